//! Ints, Bools and index lists a body computes from literals and tuple lengths, known where it
//! is compiled, as Julia's constant propagation knows them: `length(t)` of a tuple, `end - 1`,
//! `1 < 2`,
//! the range `2:end` and the vector literal `[1, 3]` used once. A tuple's length is part of its
//! type, so `t[2:end]`, `t[[1, 3]]` and `Tuple([a, b, c])` are typed by what is known here.
//! Of an Int known only at run time, `i + 1` is known to be `i` plus one, so the range
//! `i:i+1` has a known length (its elements unknown) and `t[i:i+1]` is a 2-tuple.

use std::sync::Arc;

use zy_ir::{Const, Function, Op, Operand, Stmt, Type, Value};

use crate::plan::{Arg, Plan};
use crate::value::Val;

/// The longest range or vector literal whose elements are tracked (`ntuple`'s limit).
const MAX_ELEMS: i64 = 64;

/// What is known of one value where the body is compiled.
#[derive(Clone, PartialEq, Debug)]
pub(crate) enum Known {
    Int(i64),
    Bool(bool),
    /// The elements of a range or of a vector literal no other statement sees, or the Ints
    /// and Bools of a tuple of type parameters.
    Elems(Arc<[Option<Const>]>),
    /// An Int known only at run time: the value plus this offset.
    Offset(Value, i64),
}

impl Known {
    /// `v` with what is known of it.
    pub fn annotate(&self, v: &mut Val) {
        match self {
            Known::Int(k) => v.konst = Some(Const::Int(*k)),
            Known::Bool(x) => v.konst = Some(Const::Bool(*x)),
            Known::Elems(es) => v.elems = Some(es.clone()),
            Known::Offset(..) => {}
        }
    }
}

/// How many times each value of `body` is read (by statements and terminators).
pub(crate) fn use_counts(body: &Function) -> Vec<usize> {
    let mut n = vec![0; body.values.len()];
    let mut count = |op: &Operand| {
        if let Operand::Value(v) = op {
            n[v.index()] += 1;
        }
    };
    for b in body.block_ids() {
        let data = body.block(b);
        for &v in &data.stmts {
            if let Some(stmt) = body.stmt(v) {
                stmt.args.iter().for_each(&mut count);
            }
        }
        data.term.operands().into_iter().for_each(&mut count);
    }
    n
}

/// What `stmt`, resolved to `plan` on the inputs `ins`, makes known; `only_use`: no other
/// statement reads its value (so a vector literal cannot be changed before it is read);
/// `consts`: what is known of each value of the body.
pub(crate) fn known(
    stmt: &Stmt,
    ins: &[Val],
    plan: &Plan,
    only_use: bool,
    consts: &[Option<Known>],
) -> Option<Known> {
    match (&plan.result, plan.steps.is_empty()) {
        (Arg::Const(Const::Int(k)), true) => return Some(Known::Int(*k)),
        (Arg::Const(Const::Bool(x)), true) => return Some(Known::Bool(*x)),
        _ => {}
    }
    let Op::Call(name) = &stmt.op else {
        return None;
    };
    let ints: Option<Vec<i64>> = ins.iter().map(Val::int).collect();
    // Lowering calls Base's operators by their qualified names, the builtins `÷` and `%` by
    // theirs, and writes `[a, b]` as `vect`.
    let name = match &**name {
        "vect" => "vect",
        "tuple" => "tuple",
        "÷" => "÷",
        "%" => "%",
        n => n.strip_prefix("Base.")?,
    };
    match (name, ints.as_deref()) {
        ("+", Some(&[a, b])) if plan.ty == Type::Int64 => a.checked_add(b).map(Known::Int),
        ("-", Some(&[a, b])) if plan.ty == Type::Int64 => a.checked_sub(b).map(Known::Int),
        ("-", Some(&[a])) if plan.ty == Type::Int64 => a.checked_neg().map(Known::Int),
        ("*", Some(&[a, b])) if plan.ty == Type::Int64 => a.checked_mul(b).map(Known::Int),
        ("div" | "÷", Some(&[a, b])) if plan.ty == Type::Int64 => a.checked_div(b).map(Known::Int),
        ("rem" | "%", Some(&[a, b])) if plan.ty == Type::Int64 => a.checked_rem(b).map(Known::Int),
        ("^", Some(&[a, b])) if plan.ty == Type::Int64 => {
            a.checked_pow(u32::try_from(b).ok()?).map(Known::Int)
        }
        (op, Some(&[a, b])) if plan.ty == Type::Bool => compare(op, a, b).map(Known::Bool),
        ("!", _) if plan.ty == Type::Bool => match ins {
            [Val {
                konst: Some(Const::Bool(x)),
                ..
            }] => Some(Known::Bool(!x)),
            _ => None,
        },
        (":", Some(&[a, b])) if is_range(&plan.ty) => range(a, 1, b),
        (":", Some(&[a, s, b])) if is_range(&plan.ty) => range(a, s, b),
        // `i + k`, `k + i`, `i - k` of an Int `i` known only at run time.
        ("+" | "-", None) if plan.ty == Type::Int64 => {
            let (x, k) = match (&stmt.args[..], &ins[..]) {
                ([x, _], [_, k]) if k.int().is_some() => (x, k.int()?),
                ([_, x], [k, _]) if name == "+" => (x, k.int()?),
                _ => return None,
            };
            let (base, k0) = offset(x, consts)?;
            let k = if name == "+" { k } else { k.checked_neg()? };
            Some(Known::Offset(base, k0.checked_add(k)?))
        }
        // `i:i+k`: `k + 1` elements (none if `k < 0`) known only at run time.
        (":", None) if is_range(&plan.ty) && stmt.args.len() == 2 => {
            let (a, ka) = offset(&stmt.args[0], consts)?;
            let (b, kb) = offset(&stmt.args[1], consts)?;
            let n = kb.checked_sub(ka)?.checked_add(1)?.max(0);
            (a == b && n <= MAX_ELEMS).then(|| Known::Elems(vec![None; n as usize].into()))
        }
        // `(3,)` of `S{3}(...)` (lowered `#typed(S, (3,), ...)`): the Ints and Bools among
        // the type's parameters.
        ("tuple", _) if only_use && ins.iter().any(|v| scalar(v).is_some()) => {
            Some(Known::Elems(ins.iter().map(scalar).collect()))
        }
        ("vect", _)
            if only_use
                && matches!(plan.ty, Type::Array(_, 1))
                && ins.len() as i64 <= MAX_ELEMS =>
        {
            Some(Known::Elems(
                ins.iter().map(|v| v.int().map(Const::Int)).collect(),
            ))
        }
        _ => None,
    }
}

/// The Int or Bool that `v` is known to be.
fn scalar(v: &Val) -> Option<Const> {
    v.konst
        .clone()
        .filter(|c| matches!(c, Const::Int(_) | Const::Bool(_)))
}

/// Julia's comparison `op` of two Ints.
fn compare(op: &str, a: i64, b: i64) -> Option<bool> {
    Some(match op {
        "<" => a < b,
        ">" => a > b,
        "<=" | "≤" => a <= b,
        ">=" | "≥" => a >= b,
        "==" => a == b,
        "!=" | "≠" => a != b,
        _ => return None,
    })
}

/// An Int value as a value known only at run time plus a known offset.
fn offset(x: &Operand, consts: &[Option<Known>]) -> Option<(Value, i64)> {
    let Operand::Value(v) = x else {
        return None;
    };
    match consts.get(v.index()) {
        Some(Some(Known::Offset(base, k))) => Some((*base, *k)),
        Some(Some(_)) => None,
        _ => Some((*v, 0)),
    }
}

/// Is `t` the library's `UnitRange{Int64}` or `StepRange{Int64, Int64}`?
fn is_range(t: &Type) -> bool {
    matches!(t, Type::Struct(s) if matches!(&*s.name, "Base.UnitRange" | "Base.StepRange"))
}

/// The elements of `a:s:b`, when there are at most [`MAX_ELEMS`].
fn range(a: i64, s: i64, b: i64) -> Option<Known> {
    if s == 0 {
        return None;
    }
    let n = if (s > 0 && b < a) || (s < 0 && b > a) {
        0
    } else {
        (i128::from(b) - i128::from(a)) / i128::from(s) + 1
    };
    if n > i128::from(MAX_ELEMS) {
        return None;
    }
    let elems = (0..n).map(|i| Some(Const::Int((i128::from(a) + i * i128::from(s)) as i64)));
    Some(Known::Elems(elems.collect()))
}
