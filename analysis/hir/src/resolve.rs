//! Name resolution of one lowered item in its scope: every free name its IR refers to
//! (functions called or used as values, bindings, types in signatures and fields) is replaced
//! by the qualified name of the definition it means there ([`ScopeNames::resolve`]). Lowering
//! leaves names as written, so it stays independent of the other files; inference then sees
//! only qualified names.

use std::sync::Arc;

use zy_ir::{Const, Function, Op, Operand, Terminator, TypeExpr, ValueKind};
use zy_lower::LoweredItem;

use crate::scope::ScopeNames;

/// `item` (lowered in `module`) with its free names resolved by `names`.
pub fn resolve_item(item: &LoweredItem, module: &str, names: &ScopeNames) -> LoweredItem {
    let name = |n: &str| names.resolve(module, n);
    let mut out = item.clone();
    for (_, method) in &mut out.methods {
        let bound: Vec<&str> = method.where_params.iter().map(|p| &**p).collect();
        for t in method.sig.iter_mut().flatten() {
            resolve_type(t, &bound, &name);
        }
        method.body = Arc::new(resolve_body(&method.body, &name));
    }
    for s in &mut out.structs {
        let bound: Vec<&str> = s.params.iter().map(|p| &**p).collect();
        for t in s.fields.iter_mut().filter_map(|(_, t)| t.as_mut()) {
            resolve_type(t, &bound, &name);
        }
    }
    for g in &mut out.globals {
        g.body = Arc::new(resolve_body(&g.body, &name));
    }
    out
}

/// The type names of `t` resolved, except the type variables `bound`.
fn resolve_type(t: &mut TypeExpr, bound: &[&str], name: &impl Fn(&str) -> zy_ir::Name) {
    match t {
        TypeExpr::Named { name: n, params } => {
            if !bound.contains(&&**n) {
                *n = name(n);
            }
            for p in params {
                resolve_type(p, bound, name);
            }
        }
        TypeExpr::Typeof(n) => *n = name(n),
    }
}

fn resolve_body(f: &Function, name: &impl Fn(&str) -> zy_ir::Name) -> Function {
    let mut f = f.clone();
    let operand = |a: &mut Operand| {
        if let Operand::Const(Const::Func(n)) = a {
            *n = name(n);
        }
    };
    for v in &mut f.values {
        let ValueKind::Stmt(s) = &mut v.kind else {
            continue;
        };
        if let Op::Call(n) | Op::Global(n) = &mut s.op {
            *n = name(n);
        }
        s.args.iter_mut().for_each(operand);
    }
    for b in &mut f.blocks {
        match &mut b.term {
            Terminator::Return(x) => operand(x),
            Terminator::Jump(c) => c.args.iter_mut().for_each(operand),
            Terminator::Branch {
                cond,
                then_to,
                else_to,
            } => {
                operand(cond);
                then_to
                    .args
                    .iter_mut()
                    .chain(&mut else_to.args)
                    .for_each(operand);
            }
            Terminator::Unreachable => {}
        }
    }
    f
}
