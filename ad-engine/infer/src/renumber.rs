//! Renumbering of a typed function's values in block order (parameters, then statements), so
//! printed IR reads top to bottom even though conversions are emitted late.

use zy_ir::{Function, Operand, Value, ValueKind};

/// `f` with its values renumbered in order of definition; values defined in no block are
/// dropped.
pub(crate) fn renumber(f: Function) -> Function {
    let mut map: Vec<Option<Value>> = vec![None; f.values.len()];
    let mut order = Vec::with_capacity(f.values.len());
    for b in &f.blocks {
        for &v in b.params.iter().chain(&b.stmts) {
            if let Some(slot) = map.get_mut(v.index()) {
                *slot = Some(Value(order.len() as u32));
                order.push(v);
            }
        }
    }
    let m = |v: Value| map.get(v.index()).copied().flatten().unwrap_or(v);
    let op = |o: &Operand| match o {
        Operand::Value(v) => Operand::Value(m(*v)),
        c => c.clone(),
    };
    let mut out = f.clone();
    out.values = order
        .iter()
        .map(|&v| {
            let mut d = f.values[v.index()].clone();
            if let ValueKind::Stmt(s) = &mut d.kind {
                s.args = s.args.iter().map(op).collect();
            }
            d
        })
        .collect();
    for b in &mut out.blocks {
        b.params = b.params.iter().map(|&v| m(v)).collect();
        b.stmts = b.stmts.iter().map(|&v| m(v)).collect();
        b.term = b.term.map(&op, &|c| call(c, &op));
    }
    out
}

fn call(c: &zy_ir::BlockCall, op: &impl Fn(&Operand) -> Operand) -> zy_ir::BlockCall {
    zy_ir::BlockCall {
        block: c.block,
        args: c.args.iter().map(op).collect(),
    }
}
