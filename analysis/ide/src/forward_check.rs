//! The forward-mode half of `# zy: gradcheck`: the call's pushforward along a fixed
//! pseudo-random direction `v` of its positional arguments, `ẏ = ∇f · v`, compared with the dot
//! product of the reverse gradient with `v` and with central finite differences of the function
//! along `v`. Forward mode derives everything itself (an in-source `frule` where one applies),
//! so a disagreement points at a rule that one mode has wrong.

use zy_ad::forward::dual_type;
use zy_interp::fd::{Fd, Verdict};
use zy_interp::{Array, ArrayData, Value};
use zy_ir::Type;

use crate::grad::Prepared;
use crate::gradcheck::{grad_leaves, leaves, perturb, significant};
use crate::{Engine, UserError};

/// `None` if forward mode agrees with finite differences along the direction and, when the
/// reverse `gradient` passed its own check (`reverse_ok`), with the gradient's dot product; else
/// the disagreement, naming the numbers that differ. (A wrong reverse gradient is the
/// gradcheck's finding; forward mode agreeing with it adds nothing.) Calls whose result
/// is not a Float64, or whose arguments hold a `Ref` or a mutable struct (forward mode takes no
/// box from the caller), are not checked.
pub(crate) fn check(
    db: &zy_hir::RootDatabase,
    prepared: &Prepared<'_>,
    call: &str,
    gradient: &[Value],
    reverse_ok: bool,
    rtol: f64,
) -> Result<Option<String>, UserError> {
    let skip = prepared.skipped();
    let tys = prepared.arg_types().to_vec();
    // Two evaluations of the arguments: the pushforward may write to its own.
    let base = prepared.arguments_on(db, Engine::Jit)?;
    let fresh = prepared.arguments_on(db, Engine::Jit)?;
    let mut next = Direction::default();
    let mut args = Vec::new();
    let mut dirs: Vec<Value> = Vec::new();
    for (i, ((x, ty), y)) in base.iter().zip(&tys).zip(fresh).enumerate() {
        args.push(y);
        if dual_type(ty) == Type::Nothing {
            dirs.push(Value::Nothing);
            continue;
        }
        // The callee and the keywords are held: their tangents are zero.
        let t = match i < skip {
            true => tangent(x, ty, &mut || 0.0),
            false => tangent(x, ty, &mut || next.sample()),
        };
        let Some(t) = t else { return Ok(None) };
        args.push(t.clone());
        dirs.push(t);
    }
    // The reverse gradient's dot product with the direction, and the direction's leaves, read
    // before the pushforward runs (a call that writes to its arguments writes their tangents).
    let mut dot = 0.0;
    let mut scale = 0.0f64;
    let mut moves: Vec<Vec<f64>> = Vec::new();
    for (i, (x, d)) in base.iter().zip(&dirs).enumerate() {
        let mut v = Vec::new();
        if i >= skip {
            leaves(d, &mut v);
            let (mut g, mut xs) = (Vec::new(), Vec::new());
            grad_leaves(x, gradient.get(i - skip).unwrap_or(&Value::Nothing), &mut g);
            leaves(x, &mut xs);
            dot += g.iter().zip(&v).map(|(g, v)| g * v).sum::<f64>();
            scale = xs.iter().fold(scale, |m, x| m.max(x.abs()));
        }
        moves.push(v);
    }
    let out = prepared.pushforward(db, args)?;
    let Value::Tuple(pair) = &out else {
        return Ok(None);
    };
    let (Some(Value::F64(_)), Some(Value::F64(dy))) = (pair.first(), pair.get(1)) else {
        return Ok(None);
    };
    let dy = *dy;
    let at = |step: f64| -> Result<f64, UserError> {
        let mut args = prepared.arguments_on(db, Engine::Jit)?;
        for (a, v) in args.iter_mut().zip(&moves) {
            for (k, d) in v.iter().enumerate() {
                *a = perturb(a, &mut Some(k), step * d);
            }
        }
        match prepared.value_on(db, args, Engine::Jit)? {
            Value::F64(y) => Ok(y),
            other => Ok(other.as_f64().unwrap_or(f64::NAN)),
        }
    };
    let fd = match Fd::gradcheck(rtol).check(dy, scale, None, at)? {
        Verdict::Differs { fd } => Some(fd),
        _ => None,
    };
    let close = (dy - dot).abs() <= rtol * dy.abs().max(dot.abs()).max(1.0);
    let fd = fd.map(|d| zy_ir::julia_float(significant(d, 8)));
    let (dy, dot) = (zy_ir::julia_float(dy), zy_ir::julia_float(dot));
    let head = format!("forward mode `{call}`: the derivative along a fixed direction is");
    let finding = match (fd, reverse_ok, close) {
        (None, true, true) | (None, false, _) => return Ok(None),
        // Both modes agree and the gradient's own finding already says it differs from finite
        // differences: a second finding would repeat it.
        (Some(_), false, true) => return Ok(None),
        (None, true, false) => format!(
            "{head} {dy} by forward mode but {dot} by the reverse gradient (which agrees with finite differences)"
        ),
        (Some(fd), false, false) => {
            format!("{head} {dy} by forward mode but {fd} by finite differences")
        }
        (Some(fd), true, true) => format!(
            "{head} {dy} by forward mode and by the reverse gradient but {fd} by finite differences"
        ),
        (Some(fd), true, false) => format!(
            "{head} {dy} by forward mode, {dot} by the reverse gradient and {fd} by finite differences"
        ),
    };
    Ok(Some(finding))
}

/// The tangent of `x :: ty` (forward mode's, [`dual_type`]) with each Float64 leaf from
/// `next`; `None` for a value holding a `Ref` or a mutable struct.
fn tangent(x: &Value, ty: &Type, next: &mut dyn FnMut() -> f64) -> Option<Value> {
    if dual_type(ty) == Type::Nothing {
        return Some(Value::Nothing);
    }
    match (x, ty) {
        (Value::F64(_), _) => Some(Value::F64(next())),
        (Value::Array(a), _) => {
            let a = a.borrow();
            let ArrayData::F64(d) = &a.data else {
                return None;
            };
            let data = d.iter().map(|_| next()).collect();
            Some(Array::new(a.shape, ArrayData::F64(data)).into_value())
        }
        (Value::Tuple(vs), Type::Tuple(_)) => {
            let parts = fields(vs, ty, next)?;
            Some(Value::Tuple(parts.into()))
        }
        (Value::NamedTuple(names, vs), _) => {
            let parts = fields(vs, ty, next)?;
            Some(Value::NamedTuple(names.clone(), parts.into()))
        }
        (Value::Struct(s, vs), _) if !s.mutable => {
            let parts = fields(vs, ty, next)?;
            let names = s.fields.iter().map(|(n, _)| n.clone()).collect();
            Some(Value::NamedTuple(names, parts.into()))
        }
        _ => None,
    }
}

/// The tangents of the fields `vs` of a value of type `ty`.
fn fields(vs: &[Value], ty: &Type, next: &mut dyn FnMut() -> f64) -> Option<Vec<Value>> {
    let ftys = ty.field_types()?;
    vs.iter()
        .zip(ftys.iter())
        .map(|(v, t)| tangent(v, t, next))
        .collect()
}

/// A fixed pseudo-random sequence of directions' entries in ±[0.5, 1] (no entry near zero, so
/// every input moves), the same on every run.
#[derive(Default)]
struct Direction {
    state: u64,
}

impl Direction {
    fn sample(&mut self) -> f64 {
        // SplitMix64.
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let u = (z >> 11) as f64 / (1u64 << 53) as f64;
        let sign = if z & 1 == 0 { 1.0 } else { -1.0 };
        sign * (0.5 + 0.5 * u)
    }
}
