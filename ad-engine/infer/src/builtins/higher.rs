//! Higher-order builtins: `map(f, xs)`, `map(f, xs, ys)`, `sum(f, xs)`, `broadcast(f, ...)` and
//! `checkpointed(f, args...)`. With a builtin scalar `f`, `map` and `broadcast` are a
//! `Prim::Broadcast`; otherwise the call invokes a synthesised instance (see [`crate::synth`])
//! that loops over the elements. `checkpointed` always invokes one, whose body is the call
//! `f(args...)`: the AD recognises it and recomputes `f` in the pullback.

use zy_ir::{Instance, Name, Op, Type};

use crate::builtins::array;
use crate::calls::Cx;
use crate::error::{no_method, Fail};
use crate::plan::PlanBuilder;
use crate::value::Val;
use crate::SYNTH_METHOD;

fn types(args: &[Val]) -> Vec<Type> {
    args.iter().map(|a| a.ty.clone()).collect()
}

/// Dispatch the higher-order builtins; `None` if `name` is not one.
pub(crate) fn call(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    name: &str,
    args: &[Val],
) -> Option<Result<Val, Fail>> {
    Some(match (name, args) {
        ("map", [f, xs @ ..]) if (1..=2).contains(&xs.len()) => map(cx, b, f, xs, args),
        ("map", _) => Err(no_method("map", &types(args))),
        ("sum", [f, xs]) => sum(cx, b, f, xs, args),
        ("broadcast", [f, xs @ ..]) if !xs.is_empty() => broadcast(cx, b, f, xs, args),
        ("broadcast", _) => Err(no_method("broadcast", &types(args))),
        ("checkpointed", [f, xs @ ..]) => checkpointed(cx, b, f, xs, args),
        ("checkpointed", _) => Err(no_method("checkpointed", &types(args))),
        _ => return None,
    })
}

/// The name of a builtin function value (one the program does not define).
fn builtin_func(cx: &Cx, f: &Val) -> Option<Name> {
    match &f.ty {
        Type::Function(n)
            if !cx.program.functions.contains_key(n)
                && !cx.program.structs.contains_key(n)
                && !cx.program.globals.contains_key(n) =>
        {
            Some(n.clone())
        }
        _ => None,
    }
}

/// The element types of the array operands (scalars stand for themselves) and their common
/// number of dimensions; arrays must all have the same.
fn shape(xs: &[Val]) -> Result<(Vec<Type>, Option<u8>), Fail> {
    let mut n = None;
    let mut elems = Vec::new();
    for x in xs {
        match &x.ty {
            Type::Array(e, k) => {
                if n.is_some_and(|m| m != *k) {
                    return Err(Fail::unsupported(
                        "mapping over arrays of different dimensions",
                    ));
                }
                n = Some(*k);
                elems.push((**e).clone());
            }
            Type::Adjoint(_) => return Err(Fail::unsupported("mapping over an adjoint")),
            t => elems.push(t.clone()),
        }
    }
    Ok((elems, n))
}

/// Check that `f` applied to the elements gives numbers (arrays here hold numbers).
fn element_result(cx: &mut Cx, f: &Val, elems: &[Type], what: &str) -> Result<Type, Fail> {
    let r = cx.callee_result(f, elems)?;
    if r != Type::Bottom && !r.is_number() {
        return Err(Fail::unsupported(format!(
            "`{what}` of a function returning {r}"
        )));
    }
    Ok(r)
}

fn invoke_synth(cx: &mut Cx, b: &mut PlanBuilder, name: &str, args: &[Val]) -> Val {
    let inst = Instance {
        name: name.into(),
        method: SYNTH_METHOD,
        args: types(args).into(),
    };
    let (inst, ret) = cx.invoke(inst);
    let ops = args.iter().map(|a| a.arg.clone()).collect();
    Val::of(b.push(Op::Invoke(inst), ops, ret.clone()), ret)
}

fn map(cx: &mut Cx, b: &mut PlanBuilder, f: &Val, xs: &[Val], args: &[Val]) -> Result<Val, Fail> {
    if xs.iter().any(|x| !matches!(x.ty, Type::Array(..))) {
        return Err(no_method("map", &types(args)));
    }
    if let Some(name) = builtin_func(cx, f) {
        return array::broadcast(cx, b, &name, xs);
    }
    let (elems, _) = shape(xs)?;
    element_result(cx, f, &elems, "map")?;
    Ok(invoke_synth(cx, b, "map", args))
}

fn sum(cx: &mut Cx, b: &mut PlanBuilder, f: &Val, xs: &Val, args: &[Val]) -> Result<Val, Fail> {
    let Type::Array(e, _) = &xs.ty else {
        return Err(no_method("sum", &types(args)));
    };
    element_result(cx, f, &[(**e).clone()], "sum")?;
    Ok(invoke_synth(cx, b, "sum", args))
}

fn broadcast(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    f: &Val,
    xs: &[Val],
    args: &[Val],
) -> Result<Val, Fail> {
    if let Some(name) = builtin_func(cx, f) {
        return array::broadcast(cx, b, &name, xs);
    }
    let (elems, n) = shape(xs)?;
    if n.is_none() {
        // `f.(x)` on scalars is the call itself.
        return cx.call_value(b, args);
    }
    element_result(cx, f, &elems, "broadcast")?;
    Ok(invoke_synth(cx, b, "broadcast", args))
}

/// `checkpointed(f, args...)`: the value of `f(args...)`, through a synthesised instance.
fn checkpointed(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    f: &Val,
    xs: &[Val],
    args: &[Val],
) -> Result<Val, Fail> {
    cx.callee_result(f, &types(xs))?;
    Ok(invoke_synth(cx, b, "checkpointed", args))
}
