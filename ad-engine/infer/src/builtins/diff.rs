//! Differentiation called from user code: `gradient`, `derivative`, `hessian`, `pullback` and
//! calls of the pullbacks it returns, and forward mode's `pushforward`, `jvp` and `hvp`. The callee's instance on the argument types is inferred
//! (and recorded as a callee) because it is what the AD will differentiate.

use std::sync::Arc;

use zy_ir::{callable_name, tangent_type, Instance, Name, Op, Prim, Type};

use crate::calls::Cx;
use crate::error::{no_method, Fail};
use crate::plan::{Arg, PlanBuilder};
use crate::value::{apply, types, Val};

/// Is `t` the prelude's `Dict`?
fn is_dict(t: &Type) -> bool {
    matches!(t, Type::Struct(s) if &*s.name == "Base.Dict")
}

/// Dispatch the differentiation builtins; `None` if `name` is not one.
pub(crate) fn call(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    name: &str,
    args: &[Val],
) -> Option<Result<Val, Fail>> {
    let p = match name {
        "gradient" => Prim::Gradient,
        "derivative" => Prim::Derivative,
        "hessian" => Prim::Hessian,
        "pullback" => Prim::PullbackOf,
        "pushforward" => Prim::Pushforward,
        "jvp" => Prim::Jvp,
        "hvp" => Prim::Hvp,
        "_pushforward_chunk" => Prim::PushforwardChunk,
        _ => return None,
    };
    Some(match p {
        Prim::Pushforward | Prim::Jvp | Prim::Hvp => directional(cx, b, p, name, args),
        Prim::PushforwardChunk => chunk(cx, b, args),
        _ => differentiate(cx, b, p, name, args),
    })
}

/// Does a value of type `t` hold a `Ref` or a mutable struct (whose forward-mode tangent is a
/// box the user cannot write)?
fn holds_box(t: &Type) -> bool {
    match t {
        Type::Ref(_) => true,
        Type::Struct(s) if s.mutable => true,
        _ => t.field_types().is_some_and(|fs| fs.iter().any(holds_box)),
    }
}

/// Is `t` a `Vector{Float32}`, whose `hessian` and `hvp` the prelude computes?
fn is_single_vector(t: &Type) -> bool {
    matches!(t, Type::Array(e, 1) if **e == Type::Float32)
}

/// `pushforward(f, x, dx)` (the directional derivative `ẏ`), `jvp(f, x, dx)` (the tuple
/// `(y, ẏ)`) and `hvp(f, x, v)` (the Hessian of a real-valued `f` times `v`): the direction has
/// the tangent type of `x`.
fn directional(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    p: Prim,
    name: &str,
    args: &[Val],
) -> Result<Val, Fail> {
    let [f, x, dx] = args else {
        return Err(no_method(name, &types(args)));
    };
    let want = tangent_type(&x.ty);
    if want == Type::Nothing || holds_box(&x.ty) {
        return Err(Fail::not_differentiable(format!(
            "`{name}` needs an argument with a tangent and no `Ref` or mutable struct, got {}",
            x.ty
        )));
    }
    if p == Prim::Hvp && is_single_vector(&x.ty) {
        return cx.call_named(b, &"Base._hvp_single".into(), args);
    }
    if p == Prim::Hvp && x.ty != Type::vector_f64() {
        return Err(Fail::not_differentiable(format!(
            "`hvp` needs a Vector{{Float64}} argument, got {}",
            x.ty
        )));
    }
    if dx.ty != want {
        return Err(Fail::not_differentiable(format!(
            "`{name}` needs a direction of type {want} (the tangent of {}), got {}",
            x.ty, dx.ty
        )));
    }
    let r = differentiated_result(cx, f, std::slice::from_ref(&x.ty))?;
    if r == Type::Bottom {
        return Ok(apply(b, p, args, Type::Bottom));
    }
    if holds_box(&r) {
        return Err(Fail::not_differentiable(format!(
            "`{name}` of a function returning {r} (a `Ref` or mutable struct) is not supported"
        )));
    }
    if p == Prim::Hvp && !r.is_real() {
        return Err(Fail::not_differentiable(format!(
            "`hvp` needs a function returning a real number; this call returns {r}"
        )));
    }
    let ty = match p {
        Prim::Pushforward => tangent_type(&r),
        Prim::Jvp => Type::tuple([r.clone(), tangent_type(&r)]),
        _ => Type::vector_f64(),
    };
    Ok(apply(b, p, args, ty))
}

/// `_pushforward_chunk(f, x, Ẋ, fallback)`: `x` a `Float64` with a chunk `Ẋ` of
/// `Vector{Float64}` or a `Vector{Float64}` with a `Matrix{Float64}`; the value is
/// `fallback()`'s (the chunked pushforward replaces it where it applies), and `f(x)` is inferred
/// because it is what the chunked transform differentiates.
fn chunk(cx: &mut Cx, b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
    let name = "_pushforward_chunk";
    let [f, x, dx, fallback] = args else {
        return Err(no_method(name, &types(args)));
    };
    let want = match &x.ty {
        Type::Float64 => Type::vector_f64(),
        t if *t == Type::vector_f64() => Type::Array(Arc::new(Type::Float64), 2),
        t => {
            return Err(Fail::not_differentiable(format!(
                "`{name}` needs a Float64 or Vector{{Float64}} argument, got {t}"
            )))
        }
    };
    if dx.ty != want {
        return Err(Fail::not_differentiable(format!(
            "`{name}` needs a chunk of type {want} for {}, got {}",
            x.ty, dx.ty
        )));
    }
    differentiated_result(cx, f, std::slice::from_ref(&x.ty))?;
    let ty = cx.callee_result(fallback, &[])?;
    Ok(apply(b, Prim::PushforwardChunk, args, ty))
}

/// What `f(xs...)` returns, for differentiating it. A function value or closure whose call on
/// these types is not one method instance of its own (a builtin such as `sum` of a vector or
/// `det`, an operator, a primitive, a library function reaching another method by conversion, a
/// closure taking varargs) gets the
/// synthesised wrapper `#apply(f, xs...)` ([`crate::synth::APPLY`]), which the AD
/// differentiates in its place.
fn differentiated_result(cx: &mut Cx, f: &Val, xtys: &[Type]) -> Result<Type, Fail> {
    let plan = cx.callee_plan(f, xtys)?;
    // The instance a direct call runs: of a function, `name(xs...)`; of a closure or callable
    // struct, its call method with the callee first.
    let (name, args): (Name, Vec<Type>) = match &f.ty {
        Type::Function(name) => (name.clone(), xtys.to_vec()),
        Type::Struct(s) => (
            callable_name(&s.name),
            std::iter::once(f.ty.clone())
                .chain(xtys.iter().cloned())
                .collect(),
        ),
        _ => return Ok(plan.ty),
    };
    let own = match (&plan.result, plan.steps.last()) {
        (Arg::Step(k), Some(last)) if *k + 1 == plan.steps.len() => {
            matches!(&last.op, Op::Invoke(i) if i.name == name && *i.args == *args)
        }
        _ => false,
    };
    if !own {
        let mut args = vec![f.ty.clone()];
        args.extend(xtys.iter().cloned());
        cx.invoke(Instance {
            name: crate::synth::APPLY.into(),
            method: crate::SYNTH_METHOD,
            args: args.into(),
        });
    }
    Ok(plan.ty)
}

fn differentiate(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    p: Prim,
    name: &str,
    args: &[Val],
) -> Result<Val, Fail> {
    let Some((f, xs)) = args.split_first().filter(|(_, xs)| !xs.is_empty()) else {
        return Err(no_method(name, &types(args)));
    };
    let xtys = types(xs);
    match (p, xtys.as_slice()) {
        (Prim::Derivative, [Type::Float64 | Type::Float32]) => {}
        (Prim::Derivative, [t]) => {
            return Err(Fail::not_differentiable(format!(
                "`derivative` needs a Float64 argument, got {t}"
            )))
        }
        (Prim::Hessian, [t]) if *t == Type::vector_f64() => {}
        // Of a Float32 vector, the prelude's loop of Float32 Hessian-vector products.
        (Prim::Hessian, [t]) if is_single_vector(t) => {
            return cx.call_named(b, &"Base._hessian_single".into(), args)
        }
        (Prim::Hessian, [t]) => {
            return Err(Fail::not_differentiable(format!(
                "`hessian` needs a Vector{{Float64}} argument, got {t}"
            )))
        }
        (Prim::Derivative | Prim::Hessian, _) => return Err(no_method(name, &types(args))),
        _ => {}
    }
    let r = differentiated_result(cx, f, &xtys)?;
    if p == Prim::Derivative && holds_box(&r) {
        return Err(Fail::not_differentiable(format!(
            "`derivative` of a function returning {r} (a `Ref` or mutable struct) is not supported"
        )));
    }
    if r == Type::Bottom {
        // The callee never returns, so neither does its derivative.
        return Ok(apply(b, p, args, Type::Bottom));
    }
    if p == Prim::Derivative && crate::calls::is_view(&r) && tangent_type(&r) != Type::Nothing {
        // The array of the entries' derivatives (ForwardDiff's), not the view's structural
        // tangent `(parent = ...)`.
        return cx.call_named(b, &"Base._view_derivative".into(), args);
    }
    let scalar_out = matches!(p, Prim::Gradient | Prim::Hessian);
    if scalar_out && !(r.is_real_or_complex() || r == Type::Float32) {
        return Err(Fail::not_differentiable(format!(
            "`{name}` needs a function returning a real number; this call returns {r}"
        )));
    }
    if p == Prim::Gradient && xtys.iter().any(is_dict) {
        // Zygote's gradient of a `Dict`, a `Dict` (the top-level gradient's too: `zy-ide`'s
        // `dict_gradients`), from the structural one.
        let g = apply(b, p, args, Type::tuple(xtys.iter().map(tangent_type)));
        let mut parts = vec![g];
        parts.extend(xs.iter().cloned());
        return cx.call_named(b, &"Base._dict_gradients".into(), &parts);
    }
    let ty = match p {
        Prim::Gradient => Type::tuple(xtys.iter().map(tangent_type)),
        Prim::Derivative => tangent_type(&r),
        Prim::Hessian => Type::matrix_f64(),
        _ => {
            let mut sig = vec![f.ty.clone()];
            sig.extend(xtys);
            Type::tuple([r, Type::Pullback(Arc::from(sig))])
        }
    };
    Ok(apply(b, p, args, ty))
}

/// `back(ȳ)` for a pullback `back`: one tangent per argument of the differentiated call.
pub(crate) fn call_pullback(b: &mut PlanBuilder, back: &Val, rest: &[Val]) -> Result<Val, Fail> {
    let (Type::Pullback(sig), [dy]) = (&back.ty, rest) else {
        return Err(no_method("pullback", &types(rest)));
    };
    let ty = Type::tuple(sig.iter().skip(1).map(tangent_type));
    Ok(apply(
        b,
        Prim::CallPullback,
        &[back.clone(), dy.clone()],
        ty,
    ))
}
