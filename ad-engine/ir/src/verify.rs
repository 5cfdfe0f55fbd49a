//! Structural checks of a function: every jump passes one argument per target parameter, branch
//! targets are distinct, every operand is a value of this function, and (for typed IR) every
//! definition is typed. Used by tests and debug assertions after each pass.

use crate::func::{Function, Operand, ValueKind};
use crate::types::Type;

/// Check `func`, returning every violation found (empty when well formed).
pub fn verify(func: &Function) -> Vec<String> {
    let mut errors = Vec::new();
    let n = func.values.len();
    let mut defined_in = vec![None; n];
    for b in func.block_ids() {
        let data = func.block(b);
        for &v in data.params.iter().chain(&data.stmts) {
            if v.index() >= n {
                errors.push(format!("{b}: {v} is not a value of this function"));
                continue;
            }
            if let Some(other) = defined_in[v.index()].replace(b) {
                errors.push(format!("{v} is defined in both {other} and {b}"));
            }
        }
        for (i, &p) in data.params.iter().enumerate() {
            if let Some(ValueKind::Param { block, index }) =
                func.values.get(p.index()).map(|d| &d.kind)
            {
                if *block != b || *index as usize != i {
                    errors.push(format!(
                        "{p} is listed as parameter {i} of {b} but defined otherwise"
                    ));
                }
            }
        }
        let check = |op: &Operand, errors: &mut Vec<String>| {
            if let Operand::Value(v) = op {
                if v.index() >= n {
                    errors.push(format!("{b}: operand {v} is not a value of this function"));
                }
            }
        };
        for &v in &data.stmts {
            if let Some(s) = func.stmt(v) {
                for a in &s.args {
                    check(a, &mut errors);
                }
            }
        }
        for op in data.term.operands() {
            check(op, &mut errors);
        }
        for call in data.term.calls() {
            match func.blocks.get(call.block.index()) {
                None => errors.push(format!("{b}: jump to missing block {}", call.block)),
                Some(target) if target.params.len() != call.args.len() => errors.push(format!(
                    "{b}: jump to {} passes {} arguments for {} parameters",
                    call.block,
                    call.args.len(),
                    target.params.len()
                )),
                Some(_) => {}
            }
        }
        let succ = data.term.successors();
        if succ.len() == 2 && succ[0] == succ[1] {
            errors.push(format!("{b}: both branch targets are {}", succ[0]));
        }
    }
    if func.ret != Type::Any {
        for (i, d) in func.values.iter().enumerate() {
            if d.ty == Type::Any && defined_in[i].is_some() {
                errors.push(format!("%{} has no type in typed IR", i + 1));
            }
        }
    }
    errors
}
