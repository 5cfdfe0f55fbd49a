//! Checking a pushforward: its directional derivative along a direction `d` against central
//! finite differences of `t -> f(x + t d)`, against the reverse gradient's dot product with
//! `d`, and the JIT's against the interpreter's, bit for bit.

use std::sync::Arc;

use zy_ad::forward::{dual_type, pushforward_program};
use zy_interp::fd::{Fd, Verdict};
use zy_interp::{run, show, ArrayData, Limits, Value};
use zy_ir::{Instance, Type, TypedProgram};

use super::run::{deep_copy, gradient_prog, leaves};

/// The `k`-th entry of the test direction: distinct, of both signs, away from zero.
pub fn direction(k: usize) -> f64 {
    let x = (0.37 + 0.61 * k as f64).sin();
    if x.abs() < 0.2 {
        x.signum() * 0.5 + x
    } else {
        x
    }
}

/// The tangent of `v :: ty` along the direction from leaf `k` on (`None` if `ty` has none).
pub fn tangent_value(v: &Value, ty: &Type, k: &mut usize) -> Option<Value> {
    if dual_type(ty) == Type::Nothing {
        return None;
    }
    let next = |k: &mut usize| {
        *k += 1;
        direction(*k - 1)
    };
    let field_tys = ty.field_types().unwrap_or_default();
    let fields = |vs: &[Value], k: &mut usize| -> Vec<Value> {
        vs.iter()
            .zip(field_tys.iter())
            .map(|(x, t)| tangent_value(x, t, k).unwrap_or(Value::Nothing))
            .collect()
    };
    Some(match (v, ty) {
        (Value::F64(_), _) => Value::F64(next(k)),
        (Value::Array(a), _) => {
            let mut arr = a.borrow().clone();
            match &mut arr.data {
                ArrayData::F64(xs) => {
                    for x in xs.iter_mut() {
                        *x = next(k);
                    }
                }
                // Arrays of objects: each element's own tangent, of the elements' dual type.
                ArrayData::Obj(objs) => {
                    let elem = objs.elem.clone();
                    for x in objs.items.iter_mut() {
                        *x = tangent_value(x, &elem, k).unwrap_or(Value::Nothing);
                    }
                    objs.elem = dual_type(&elem);
                }
                _ => {}
            }
            arr.into_value()
        }
        (Value::Tuple(vs), _) => Value::Tuple(fields(vs, k).into()),
        (Value::Struct(_, vs), Type::Struct(st)) | (Value::NamedTuple(_, vs), Type::Struct(st)) => {
            let names: Vec<_> = st.fields.iter().map(|(n, _)| n.clone()).collect();
            Value::NamedTuple(names.into(), fields(vs, k).into())
        }
        (Value::NamedTuple(ns, vs), _) => Value::NamedTuple(ns.clone(), fields(vs, k).into()),
        (Value::Mutable(_, vs), Type::Struct(st)) => {
            // A mutable struct's tangent: a box of its fields' tangents.
            let names: Vec<_> = st.fields.iter().map(|(n, _)| n.clone()).collect();
            let vs = vs.borrow().clone();
            Value::new_ref(Value::NamedTuple(names.into(), fields(&vs, k).into()))
        }
        (Value::Ref(r), Type::Ref(inner)) => {
            Value::new_ref(tangent_value(&r.borrow(), inner, k).unwrap_or(Value::Nothing))
        }
        (other, _) => panic!("no test tangent for {}", show(other)),
    })
}

/// `v` with every Float64 leaf moved by `h` times its direction entry (from leaf `k` on).
fn moved(v: &Value, k: &mut usize, h: f64) -> Value {
    match v {
        Value::F64(x) => {
            *k += 1;
            Value::F64(x + h * direction(*k - 1))
        }
        Value::Array(a) => {
            let mut arr = a.borrow().clone();
            if let ArrayData::F64(xs) = &mut arr.data {
                for x in xs.iter_mut() {
                    *k += 1;
                    *x += h * direction(*k - 1);
                }
            }
            arr.into_value()
        }
        Value::Tuple(vs) => Value::Tuple(vs.iter().map(|x| moved(x, k, h)).collect()),
        Value::Struct(t, vs) => {
            Value::Struct(t.clone(), vs.iter().map(|x| moved(x, k, h)).collect())
        }
        Value::Ref(r) => Value::new_ref(moved(&r.borrow(), k, h)),
        Value::Mutable(t, vs) => Value::new_struct(
            t.clone(),
            vs.borrow().iter().map(|x| moved(x, k, h)).collect(),
        ),
        other => deep_copy(other),
    }
}

/// The arguments of `∂→f`: each argument followed by its tangent where it has one.
pub fn pushforward_args(args: &[Value], tys: &[Type]) -> Vec<Value> {
    let mut out = Vec::new();
    let mut k = 0;
    for (a, t) in args.iter().zip(tys) {
        out.push(deep_copy(a));
        out.extend(tangent_value(a, t, &mut k));
    }
    out
}

/// `(y, ẏ)` of `inst` at `args` along the test direction, by the interpreter and the JIT
/// (which must agree bit for bit).
pub fn jvp(prog: &TypedProgram, inst: &Arc<Instance>, args: &[Value]) -> (Value, Value) {
    let (pinst, pprog) =
        pushforward_program(None, prog, inst).unwrap_or_else(|e| panic!("{inst}: {}", e.message));
    for f in pprog.functions.values() {
        let errs = zy_ir::verify(f);
        assert!(errs.is_empty(), "{f}\n{errs:?}");
    }
    let limits = Limits::default();
    let by_interp = run(&pprog, &pinst, pushforward_args(args, &inst.args), &limits)
        .unwrap_or_else(|e| panic!("{inst}: {}", e.message));
    let compiled =
        match zy_codegen::JitSession::new().and_then(|mut jit| jit.compile(&pprog, &pinst)) {
            Ok(c) => c,
            // Strings and symbols known only at run time are the interpreter's by design.
            Err(zy_codegen::JitError::Interpreted(_)) => return pair(inst, by_interp),
            Err(e) => panic!("{inst}: the JIT declined the pushforward: {e}"),
        };
    let by_jit = compiled
        .call(&pushforward_args(args, &inst.args), &limits)
        .unwrap_or_else(|e| panic!("{inst}: {}", e.message));
    assert_eq!(
        show(&by_jit),
        show(&by_interp),
        "{inst}: the JIT and the interpreter differ on the pushforward"
    );
    pair(inst, by_interp)
}

/// The pushforward's result `(y, ẏ)`.
fn pair(inst: &Instance, v: Value) -> (Value, Value) {
    match v {
        Value::Tuple(p) if p.len() == 2 => (p[0].clone(), p[1].clone()),
        other => panic!("{inst}: the pushforward returned {}", show(&other)),
    }
}

/// Check the pushforward of a Float64-valued `inst` at `args` against finite differences along
/// the test direction and against the reverse gradient's dot product with it.
pub fn check_jvp(prog: &TypedProgram, inst: &Arc<Instance>, args: &[Value]) {
    let (y, dy) = jvp(prog, inst, args);
    let (y, dy) = match (y, dy) {
        (Value::F64(y), Value::F64(dy)) => (y, dy),
        (y, dy) => panic!("{inst}: (y, ẏ) = ({}, {})", show(&y), show(&dy)),
    };
    let primal = |xs: Vec<Value>| match run(prog, inst, xs, &Limits::default()) {
        Ok(Value::F64(v)) => Ok(v),
        other => Err(format!("{other:?}")),
    };
    let at = |h: f64| {
        let mut k = 0;
        primal(args.iter().map(|a| moved(a, &mut k, h)).collect())
    };
    let verdict = Fd::RULES.check(dy, 0.0, Some(y), at);
    assert_eq!(
        verdict,
        Ok(Verdict::Agrees),
        "{inst}: ẏ = {dy} differs from finite differences"
    );
    let dot = reverse_dot(prog, inst, args).unwrap_or_else(|e| panic!("{inst}: {e}"));
    assert!(agree(dy, dot), "{inst}: ẏ = {dy}, but ∇f · d = {dot}");
}

/// Do a directional derivative and the reverse gradient's dot product agree (relative 1e-10,
/// NaN with NaN)?
pub fn agree(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-10 * a.abs().max(b.abs()).max(1.0)
}

/// The reverse gradient of `inst` at `args`, dotted with the test direction.
pub fn reverse_dot(prog: &TypedProgram, inst: &Instance, args: &[Value]) -> Result<f64, String> {
    let copies: Vec<Value> = args.iter().map(deep_copy).collect();
    let (_, g) = gradient_prog(prog, inst, copies)?;
    let Value::Tuple(gs) = &g else {
        return Err(format!("gradient {}", show(&g)));
    };
    let mut k = 0;
    let mut dot = 0.0;
    for (a, gi) in args.iter().zip(gs.iter()) {
        let (mut xs, mut gl) = (Vec::new(), Vec::new());
        leaves(a, &mut xs);
        leaves(gi, &mut gl);
        for i in 0..xs.len() {
            dot += gl.get(i).copied().unwrap_or(0.0) * direction(k);
            k += 1;
        }
    }
    Ok(dot)
}
