//! Data builtins: tuples, named tuples, struct fields, `Ref`s, indexing, array literals, and the
//! lowering helpers `error`, `undef`, `range_length`, `Base._box_init!`.

use zy_ir::{Const, Name, Prim, StructKind, Type};

use crate::calls::{is_library, Cx};
use crate::error::{no_method, Fail};
use crate::plan::PlanBuilder;
use crate::value::{apply, array, convert, promote, types, Val};

/// The prelude's pair type, `a => b`.
const PAIR: &str = "Base.Pair";

/// The types Julia destructures by their first fields, with how many its `iterate` yields
/// (`a, b = p` of a pair; `λ, U = eigen(A)`, `U, S, V = svd(A)`, `L, U = cholesky(A)`,
/// `Q, R = qr(A)`, `L, U, p = lu(A)`, `T, Z, λ = schur(A)`, `Q, H, μ = hessenberg(A)`: LinearAlgebra's `iterate` of its factorizations).
const BY_FIELDS: &[(&str, i64)] = &[
    (PAIR, 2),
    ("LinearAlgebra.Eigen", 2),
    ("LinearAlgebra.GeneralizedEigen", 2),
    ("LinearAlgebra.SVD", 3),
    ("LinearAlgebra.Cholesky", 2),
    ("LinearAlgebra.QR", 2),
    ("LinearAlgebra.LU", 3),
    ("LinearAlgebra.Schur", 3),
    ("LinearAlgebra.Hessenberg", 3),
];

fn plain_values(args: &[Val]) -> Result<(), Fail> {
    if args.iter().any(|a| a.ty == Type::Any) {
        return Err(Fail::unsupported(
            "symbols and strings as values (only as field names and `error` messages); choose \
             between cases with a `Bool` or an `Int` instead",
        ));
    }
    Ok(())
}

/// Dispatch the data builtins; `None` if `name` is not one.
pub(crate) fn call(b: &mut PlanBuilder, name: &str, args: &[Val]) -> Option<Result<Val, Fail>> {
    Some(match name {
        "tuple" => plain_values(args).map(|()| {
            let refs: Vec<&Val> = args.iter().collect();
            apply(b, Prim::Tuple, &refs, Type::tuple(types(args)))
        }),
        "namedtuple" => named_tuple(b, args),
        "getindex" => get_index(b, args),
        "setindex!" => set_index(b, args),
        "getfield" => get_field(b, args),
        "setfield!" => set_field(b, args),
        "Ref" => match args {
            [x] if x.ty != Type::Any => {
                Ok(apply(b, Prim::RefNew, &[x], Type::Ref(x.ty.clone().into())))
            }
            _ => Err(no_method("Ref", &types(args))),
        },
        // The empty box itself is typed where it is made (the body's `box_content`, from every
        // store into it); called any other way it has no method.
        "_box" => Err(no_method("_box", &types(args))),
        // The first assignment of a variable a closure captured before it was assigned.
        "_box_init!" => box_store(b, Prim::RefInit, args),
        // Any later assignment of a variable a closure shares.
        "_box_set!" => box_store(b, Prim::RefSet, args),
        "vect" => vect(b, args),
        "_typejoin_vect" => typejoin_vect(b, args),
        // ChainRules' "no gradient" marker, returned by pullbacks of `rrule`s: `nothing` here.
        "NoTangent" if args.is_empty() => Ok(Val::lit(Const::Nothing)),
        "NoTangent" => Err(no_method("NoTangent", &types(args))),
        "hvcat" => hvcat(b, args),
        "error" => match args {
            [m @ Val {
                konst: Some(Const::Str(_)),
                ..
            }] => Ok(apply(b, Prim::Error, &[m], Type::Bottom)),
            // `throw(ArgumentError("bad $x"))`, lowered to `error(:ArgumentError, "bad ", x)`.
            [Val {
                konst: Some(Const::Symbol(_)),
                ..
            }, ..] => {
                let refs: Vec<&Val> = args.iter().collect();
                Ok(apply(b, Prim::Error, &refs, Type::Bottom))
            }
            [] => Err(no_method("error", &[])),
            // A call site's own arguments are parts by now; what is left came through a value
            // or a splat.
            _ => Err(Fail::unsupported(
                "`error` called through a value or with splatted arguments; call it by name \
                 with its parts (`error(\"x = \", x)`) instead",
            )),
        },
        // Inference answers `isdefined_global(:x)` where the statement calls it by name; any
        // other call (through a value, splatted) has no name to look up.
        zy_ir::ISDEFINED_GLOBAL => Err(no_method(zy_ir::ISDEFINED_GLOBAL, &types(args))),
        "isdefined_local" => match args {
            [x] => Ok(apply(b, Prim::IsDefinedLocal, &[x], Type::Bool)),
            _ => Err(no_method("isdefined_local", &types(args))),
        },
        "undef" => match args {
            [s @ Val {
                konst: Some(Const::Symbol(_)),
                ..
            }] => Ok(apply(b, Prim::Undef, &[s], Type::Bottom)),
            _ => Err(no_method("undef", &types(args))),
        },
        "float_range" => float_range(b, args),
        "float_range_op" => float_range_op(b, args),
        "range_length" => {
            if args.len() == 3
                && args
                    .iter()
                    .all(|a| matches!(a.ty, Type::Int64 | Type::Bool))
            {
                // A Bool end promotes to an Int, as `1:true` is `1:1`.
                args.iter()
                    .map(|a| convert(b, a.clone(), &Type::Int64))
                    .collect::<Result<Vec<_>, _>>()
                    .map(|ints| {
                        let refs: Vec<&Val> = ints.iter().collect();
                        apply(b, Prim::RangeLength, &refs, Type::Int64)
                    })
            } else if args.iter().any(|a| a.ty == Type::Float64) {
                Err(Fail::unsupported(
                    "a floating-point range written in the header of a `# zy: checkpoint` \
                     loop (bind it first: `r = a:s:b; for x in r`)",
                ))
            } else {
                Err(Fail::unsupported("range with non-Int endpoints"))
            }
        }
        _ => return None,
    })
}

/// `float_range(form, a, b, c)`: a Float64 range's representation (the prelude's
/// `StepRangeLen`), `c` a Float64 stop (`a:b:c`) or an Int length.
fn float_range(b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
    let ok = matches!(
        types(args).as_slice(),
        [
            Type::Int64,
            Type::Float64,
            Type::Float64,
            Type::Float64 | Type::Int64
        ]
    );
    if !ok {
        return Err(no_method("float_range", &types(args)));
    }
    let refs: Vec<&Val> = args.iter().collect();
    Ok(apply(b, Prim::FloatRange, &refs, float_range_tuple()))
}

/// The tuple `float_range` and `float_range_op` give: a range's parts, its sum and two
/// numbers.
fn float_range_tuple() -> Type {
    let (f, i) = (Type::Float64, Type::Int64);
    Type::tuple([
        f.clone(),
        f.clone(),
        f.clone(),
        f.clone(),
        i.clone(),
        i,
        f.clone(),
        f.clone(),
        f,
    ])
}

/// `float_range_op(op, parts, x)`: the representation of a Float64 range computed from the
/// range of `parts` (`(ref_hi, ref_lo, step_hi, step_lo, len, offset)`) and `x`, a number or
/// a tuple of Ints or of another range's parts.
fn float_range_op(b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
    let (f, i) = (Type::Float64, Type::Int64);
    let parts = Type::tuple([f.clone(), f.clone(), f.clone(), f, i.clone(), i]);
    let ok = match types(args).as_slice() {
        [Type::Int64, p, x] => {
            *p == parts
                && match x {
                    Type::Float64 | Type::Int64 => true,
                    Type::Tuple(ts) => *x == parts || ts.iter().all(|t| *t == Type::Int64),
                    _ => false,
                }
        }
        _ => false,
    };
    if !ok {
        return Err(no_method("float_range_op", &types(args)));
    }
    let refs: Vec<&Val> = args.iter().collect();
    Ok(apply(b, Prim::FloatRangeOp, &refs, float_range_tuple()))
}

fn named_tuple(b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
    let Some((
        Val {
            konst: Some(Const::Tuple(names)),
            ..
        },
        vals,
    )) = args.split_first()
    else {
        return Err(Fail::unsupported(
            "named tuple without constant field names",
        ));
    };
    plain_values(vals)?;
    let names: Vec<Name> = names
        .iter()
        .map(|c| match c {
            Const::Symbol(s) => Ok(s.clone()),
            _ => Err(Fail::unsupported(
                "named tuple field names that are not symbols",
            )),
        })
        .collect::<Result<_, _>>()?;
    if names.len() != vals.len() {
        return Err(Fail::unsupported(
            "named tuple with mismatched names and values",
        ));
    }
    let ty = Type::NamedTuple(names.into_iter().zip(types(vals)).collect());
    let refs: Vec<&Val> = args.iter().collect();
    Ok(apply(b, Prim::NamedTuple, &refs, ty))
}

/// How many fields destructuring a [`BY_FIELDS`] type yields.
fn fields_iterated(name: &str) -> i64 {
    BY_FIELDS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(0, |(_, k)| *k)
}

/// The field item `k` of destructuring names, for a union of one [`BY_FIELDS`] struct's
/// instances (`schur(A)`, real or complex values by the values): the members' fields are in one
/// order, so `getfield` by name splits on the member held.
pub(crate) fn union_item_field(ty: &Type, k: i64) -> Option<Name> {
    let Type::Union(u) = ty else { return None };
    let mut fields = None;
    for m in u.members.iter() {
        let Type::Struct(s) = m else { return None };
        if !(1..=fields_iterated(&s.name)).contains(&k) {
            return None;
        }
        let f = s.fields.get(usize::try_from(k - 1).ok()?)?.0.clone();
        if fields.get_or_insert_with(|| f.clone()) != &f {
            return None;
        }
    }
    fields
}

fn bounds(ty: &Type, i: i64) -> Fail {
    Fail::method(format!(
        "BoundsError: attempt to access {ty} at index [{i}]"
    ))
}

fn check_indices(name: &str, args: &[Val], idx: &[Val]) -> Result<(), Fail> {
    match idx.iter().find(|i| i.ty != Type::Int64) {
        Some(i) if i.ty.is_number() && i.ty != Type::Bool => Err(Fail::method(format!(
            "ArgumentError: invalid index of type {} (indices must be Int)",
            i.ty
        ))),
        Some(_) => Err(no_method(name, &types(args))),
        None => Ok(()),
    }
}

/// `t[i:i+k]` of a tuple whose elements have one type: the range's length is known here, its
/// start only at run time (`crate::known`), so the tuple of its `k + 1` elements, each read
/// at its run-time index (a `BoundsError` outside `t`). `None` for any other range.
fn tuple_window(b: &mut PlanBuilder, t: &Val, ts: &[Type], r: &Val) -> Option<Val> {
    let (Some(es), Type::Struct(s)) = (&r.elems, &r.ty) else {
        return None;
    };
    let t0 = ts.first()?;
    if &*s.name != "Base.UnitRange" || ts.iter().any(|t| t != t0) {
        return None;
    }
    let start = apply(
        b,
        Prim::GetField,
        &[r, &Val::lit(Const::Int(1))],
        Type::Int64,
    );
    let mut parts = Vec::with_capacity(es.len());
    for j in 0..es.len() {
        let i = apply(
            b,
            Prim::Add,
            &[&start, &Val::lit(Const::Int(j as i64))],
            Type::Int64,
        );
        parts.push(apply(b, Prim::TupleIndex, &[t, &i], t0.clone()).arg);
    }
    let ty = Type::tuple(vec![t0.clone(); parts.len()]);
    Some(Val::of(b.prim(Prim::Tuple, parts, ty.clone()), ty))
}

/// `t[r]` of a tuple by a range, an index vector or `:` (Julia's `getindex(t::Tuple, r)`): the
/// tuple of the elements `t[r[1]], t[r[2]], ...`, each of its own type. Its length is part of
/// its type, so the indices must be known where the call is compiled (`2:end`, `1:2`,
/// `[1, 3]` written there; [`crate::known`]).
fn tuple_slice(b: &mut PlanBuilder, t: &Val, ts: &[Type], r: &Val) -> Result<Val, Fail> {
    if matches!(&r.ty, Type::Struct(s) if &*s.name == "Base.Colon") {
        return Ok(t.clone());
    }
    let indexable = matches!(&r.ty, Type::Array(e, 1) if **e == Type::Int64)
        || matches!(&r.ty, Type::Struct(s) if matches!(&*s.name, "Base.UnitRange" | "Base.StepRange"));
    if !indexable {
        return Err(no_method("getindex", &[t.ty.clone(), r.ty.clone()]));
    }
    let Some(ks) = r.known_ints() else {
        if let Some(v) = tuple_window(b, t, ts, r) {
            return Ok(v);
        }
        return Err(Fail::unsupported(format!(
            "indexing a tuple by a {} known only at run time (the result is a tuple, whose \
             length is part of its type); write the range in the index (`t[2:end]`, \
             `t[1:2]`, `t[[1, 3]]`), or index a vector (`collect(t)[r]`)",
            r.ty
        )));
    };
    let mut parts = Vec::with_capacity(ks.len());
    for k in ks {
        let Some(ty) = usize::try_from(k)
            .ok()
            .and_then(|k| ts.get(k.wrapping_sub(1)))
        else {
            return Err(bounds(&t.ty, k));
        };
        parts.push(apply(
            b,
            Prim::GetField,
            &[t, &Val::lit(Const::Int(k))],
            ty.clone(),
        ));
    }
    let ty = Type::tuple(parts.iter().map(|p| p.ty.clone()));
    let ops = parts.into_iter().map(|p| p.arg).collect();
    Ok(Val::of(b.prim(Prim::Tuple, ops, ty.clone()), ty))
}

/// `x[i...]`.
fn get_index(b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
    let Some((x, idx)) = args.split_first() else {
        return Err(no_method("getindex", &[]));
    };
    match (&x.ty, idx) {
        (Type::Array(e, _) | Type::Adjoint(e), _)
            if idx.len() == 1 || idx.len() == ndims(&x.ty) =>
        {
            check_indices("getindex", args, idx)?;
            let refs: Vec<&Val> = args.iter().collect();
            Ok(apply(b, Prim::GetIndex, &refs, (**e).clone()))
        }
        (Type::Ref(t), []) => Ok(apply(b, Prim::RefGet, &[x], (**t).clone())),
        (Type::Tuple(ts), [i]) => match i.int() {
            Some(k) if k >= 1 && (k as usize) <= ts.len() => Ok(apply(
                b,
                Prim::GetField,
                &[x, i],
                ts[k as usize - 1].clone(),
            )),
            Some(k) => Err(bounds(&x.ty, k)),
            None if i.ty != Type::Int64 => tuple_slice(b, x, ts, i),
            None => {
                check_indices("getindex", args, idx)?;
                match ts.first() {
                    Some(t0) if ts.iter().all(|t| t == t0) => {
                        Ok(apply(b, Prim::TupleIndex, &[x, i], t0.clone()))
                    }
                    // Any index of `()` is out of bounds (a loop over `()` never gets here).
                    None => {
                        let error = Val::lit(Const::Symbol("BoundsError".into()));
                        let message = Val::lit(Const::Str("attempt to access Tuple{}".into()));
                        Ok(apply(b, Prim::Error, &[&error, &message], Type::Bottom))
                    }
                    _ => Err(Fail::unsupported(format!(
                        "indexing {} with a run-time index (its elements differ in type; a \
                         `for` loop over such a tuple or its indices is unrolled up to 64 \
                         elements when their number is known where it is compiled); write \
                         `map(f, t)`, `sum(f, t)` or `foreach(f, t)`, which call each element's \
                         own method",
                        x.ty
                    ))),
                }
            }
        },
        // Julia's `getindex(p::Pair, i::Int) = getfield(p, i)`: `a, b = p` destructures a
        // pair (the prelude's `Base.Pair`), by constant index as a tuple's heterogeneous parts;
        // the factorizations likewise (what their `iterate` yields).
        (Type::Struct(s), [i]) if BY_FIELDS.iter().any(|(n, _)| *n == &*s.name) => match i.int() {
            Some(k) if (1..=fields_iterated(&s.name)).contains(&k) => {
                get_field(b, &[x.clone(), i.clone()])
            }
            Some(k) => Err(bounds(&x.ty, k)),
            None => Err(Fail::unsupported(format!(
                "indexing {} with a run-time index; destructure it (`a, b = p`) or index it with \
                 a literal (`p[1]`) instead",
                x.ty
            ))),
        },
        (Type::NamedTuple(fs), [i]) => {
            let k = match (&i.konst, symbol_of(i)) {
                (Some(Const::Int(k)), _) => *k,
                (_, Some(s)) => match fs.iter().position(|(n, _)| *n == s) {
                    Some(p) => p as i64 + 1,
                    None => return Err(no_field(&x.ty, &s)),
                },
                // A run-time Int index (a `for` loop over `nt`): the tuple of its values'.
                _ if i.ty == Type::Int64 => {
                    let t = super::named::values(b, x);
                    return get_index(b, &[t, i.clone()]);
                }
                _ => return Err(no_method("getindex", &types(args))),
            };
            if k < 1 || k as usize > fs.len() {
                return Err(bounds(&x.ty, k));
            }
            let idx = Val::lit(Const::Int(k));
            Ok(apply(
                b,
                Prim::GetField,
                &[x, &idx],
                fs[k as usize - 1].1.clone(),
            ))
        }
        _ => Err(no_method("getindex", &types(args))),
    }
}

/// The number of indices that address one element (2 for an adjoint row vector).
fn ndims(t: &Type) -> usize {
    match t {
        Type::Array(_, n) => *n as usize,
        Type::Adjoint(_) => 2,
        _ => 0,
    }
}

/// `x[i...] = v`, `r[] = v`: the value is converted to the element type.
fn set_index(b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
    let [x, v, idx @ ..] = args else {
        return Err(no_method("setindex!", &types(args)));
    };
    match (&x.ty, idx) {
        (Type::Array(e, n), _) if idx.len() == 1 || idx.len() == *n as usize => {
            check_indices("setindex!", args, idx)?;
            let v = convert(b, v.clone(), e)?;
            let mut ops = vec![x, &v];
            ops.extend(idx);
            Ok(apply(b, Prim::SetIndex, &ops, (**e).clone()))
        }
        (Type::Ref(t), []) => {
            let v = convert(b, v.clone(), t)?;
            Ok(apply(b, Prim::RefSet, &[x, &v], (**t).clone()))
        }
        _ => Err(no_method("setindex!", &types(args))),
    }
}

/// Julia's error for a field `f` that a value of type `ty` does not have: the type named as
/// Julia's `getfield` names it, without module or parameters (`type NamedTuple has no field
/// b`, `type P has no field z` for a `P{Float64}`).
fn no_field(ty: &Type, f: &str) -> Fail {
    let name = match ty {
        Type::Struct(s) => s.name.rsplit('.').next().unwrap_or(&s.name).to_string(),
        Type::NamedTuple(_) => "NamedTuple".into(),
        Type::Tuple(_) => "Tuple".into(),
        Type::Array(..) => "Array".into(),
        Type::Ref(_) => "RefValue".into(),
        other => other.to_string(),
    };
    Fail::undefined(format!("type {name} has no field {f}"))
}

/// The 1-based position and type of field `f` (a symbol or a constant Int) of `x`.
fn field(x: &Val, f: &Val) -> Result<(i64, Type), Fail> {
    let fields: Vec<(Option<Name>, Type)> = match &x.ty {
        Type::Struct(s) => s
            .fields
            .iter()
            .enumerate()
            .map(|(i, (n, t))| (Some(n.clone()), x.ty.field(i).unwrap_or_else(|| t.clone())))
            .collect(),
        // The gradient of a recursive struct binds its own type's tangent in its fields.
        Type::NamedTuple(fs) => fs
            .iter()
            .enumerate()
            .map(|(i, (n, t))| (Some(n.clone()), x.ty.field(i).unwrap_or_else(|| t.clone())))
            .collect(),
        Type::Tuple(ts) => ts.iter().map(|t| (None, t.clone())).collect(),
        Type::Float64 | Type::Int64 | Type::Bool | Type::Nothing | Type::Array(..) => {
            match symbol_of(f) {
                Some(s) => return Err(no_field(&x.ty, &s)),
                None => return Err(no_method("getfield", &[x.ty.clone(), f.ty.clone()])),
            }
        }
        _ => return Err(no_method("getfield", &[x.ty.clone(), f.ty.clone()])),
    };
    let k = match (&f.konst, symbol_of(f)) {
        (_, Some(s)) => match fields.iter().position(|(n, _)| n.as_deref() == Some(&*s)) {
            Some(p) => p as i64 + 1,
            None => return Err(no_field(&x.ty, &s)),
        },
        (Some(Const::Int(k)), _) => *k,
        _ => {
            return Err(Fail::unsupported(
                "field access with a run-time field name; write the field's name (`s.a`) or a \
                 literal index (`getfield(s, 1)`) instead",
            ))
        }
    };
    if k < 1 || k as usize > fields.len() {
        return Err(bounds(&x.ty, k));
    }
    Ok((k, fields[k as usize - 1].1.clone()))
}

/// The symbol a value is: a literal `:a`, or a value of the type `Symbol` of `:a` (a symbol
/// is known where it is compiled).
pub(crate) fn symbol_of(v: &Val) -> Option<Name> {
    match (&v.konst, &v.ty) {
        (Some(Const::Symbol(s)), _) => Some(s.clone()),
        (_, Type::Symbol(s)) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

/// `s.f`.
fn get_field(b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
    let [x, f] = args else {
        return Err(no_method("getfield", &types(args)));
    };
    if let Some(t) = ref_field(x, f)? {
        return Ok(apply(b, Prim::RefGet, &[x], t));
    }
    // A run-time index of a tuple or a named tuple: Julia's `getindex(t, i)` is `getfield`.
    if f.konst.is_none()
        && f.ty == Type::Int64
        && matches!(x.ty, Type::Tuple(_) | Type::NamedTuple(_))
    {
        return get_index(b, args);
    }
    let (k, ty) = field(x, f)?;
    Ok(apply(b, Prim::GetField, &[x, &Val::lit(Const::Int(k))], ty))
}

/// The program's struct `x` is a value of, and how many of its leading fields every inner
/// constructor defines, when it may have undefined fields after them (an inner constructor
/// calls `new` with fewer arguments than fields).
fn partly_built<'a>(cx: &'a Cx, x: &Val) -> Option<(&'a zy_ir::StructDef, usize)> {
    let Type::Struct(s) = &x.ty else { return None };
    let def = cx.program.structs.get(&s.name)?;
    if def.kind != StructKind::User || !def.inner_constructors {
        return None;
    }
    let prefix = crate::dispatch::defined_prefix(cx.program, def);
    (prefix < def.fields.len()).then_some((def, prefix))
}

/// `s.f` of a struct whose field `f` an inner constructor may leave undefined: the read checks
/// it first (Julia's `UndefRefError`). `None` for another call.
pub(crate) fn checked_field(
    cx: &Cx,
    b: &mut PlanBuilder,
    name: &str,
    args: &[Val],
) -> Option<Result<Val, Fail>> {
    let ("getfield", [x, f]) = (name, args) else {
        return None;
    };
    let (_, prefix) = partly_built(cx, x)?;
    Some(field(x, f).and_then(|(k, _)| {
        if k as usize > prefix {
            let at = Val::lit(Const::Int(k));
            apply(b, Prim::CheckField, &[x, &at], Type::Nothing);
        }
        get_field(b, args)
    }))
}

/// Julia's `isdefined(s, :f)` (or `isdefined(s, i)`) of a struct: false for a name or index
/// that is no field, true for a field every constructor defines or one of a bits type (Julia
/// stores it in line), else known where it runs.
fn isdefined(cx: &Cx, b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
    let [x, f] = args else {
        return Err(no_method("isdefined", &types(args)));
    };
    let Type::Struct(s) = &x.ty else {
        return Err(Fail::unsupported(format!(
            "`isdefined` of a {} (only of a struct's field: `isdefined(s, :f)`)",
            x.ty
        )));
    };
    let k = match (&f.konst, symbol_of(f)) {
        (_, Some(n)) => s
            .fields
            .iter()
            .position(|(m, _)| *m == n)
            .map(|p| p as i64 + 1),
        (Some(Const::Int(k)), _) => (*k >= 1 && *k as usize <= s.fields.len()).then_some(*k),
        _ => return Err(no_method("isdefined", &types(args))),
    };
    let Some(k) = k else {
        return Ok(Val::lit(Const::Bool(false)));
    };
    let bits = x.ty.field(k as usize - 1).is_some_and(|t| t.is_bits());
    match partly_built(cx, x) {
        Some((_, prefix)) if k as usize > prefix && !bits => {
            let at = Val::lit(Const::Int(k));
            Ok(apply(b, Prim::IsDefinedField, &[x, &at], Type::Bool))
        }
        _ => Ok(Val::lit(Const::Bool(true))),
    }
}

/// `isdefined(...)`, `None` for another call.
pub(crate) fn is_defined(
    cx: &Cx,
    b: &mut PlanBuilder,
    name: &str,
    args: &[Val],
) -> Option<Result<Val, Fail>> {
    (name == "isdefined").then(|| isdefined(cx, b, args))
}

/// The content type of a `Ref` whose one field `x` (Julia's `Base.RefValue`) `f` names:
/// `r.x` is `r[]`.
fn ref_field(x: &Val, f: &Val) -> Result<Option<Type>, Fail> {
    let Type::Ref(t) = &x.ty else {
        return Ok(None);
    };
    match (&f.konst, symbol_of(f)) {
        (_, Some(s)) if &*s == "x" => Ok(Some((**t).clone())),
        (Some(Const::Int(1)), _) => Ok(Some((**t).clone())),
        (_, Some(s)) => Err(no_field(&x.ty, &s)),
        _ => Err(no_method("getfield", &[x.ty.clone(), f.ty.clone()])),
    }
}

/// `s.f = v` on a mutable struct; the value is converted to the field type.
fn set_field(b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
    let [x, f, v] = args else {
        return Err(no_method("setfield!", &types(args)));
    };
    if let Some(t) = ref_field(x, f)? {
        let v = convert(b, v.clone(), &t)?;
        return Ok(apply(b, Prim::RefSet, &[x, &v], t));
    }
    let (k, ty) = field(x, f)?;
    match &x.ty {
        Type::Struct(s) if s.mutable => {}
        t => {
            return Err(Fail::method(format!(
                "setfield!: immutable struct of type {t} cannot be changed"
            )))
        }
    }
    let v = convert(b, v.clone(), &ty)?;
    Ok(apply(
        b,
        Prim::SetField,
        &[x, &Val::lit(Const::Int(k)), &v],
        ty,
    ))
}

/// `s.f = v` of a field declared `const` in a mutable struct: Julia's error, else `None`.
pub(crate) fn const_field(cx: &Cx, name: &str, args: &[Val]) -> Option<Fail> {
    let ("setfield!", [x, f, _]) = (name, args) else {
        return None;
    };
    let Type::Struct(s) = &x.ty else {
        return None;
    };
    let def = cx.program.structs.get(&s.name)?;
    let (k, _) = field(x, f).ok()?;
    let (field_name, _) = s.fields.get(usize::try_from(k - 1).ok()?)?;
    // Julia names the type without its module and parameters.
    let type_name = s.name.rsplit('.').next().unwrap_or(&s.name);
    def.const_fields.contains(field_name).then(|| {
        Fail::method(format!(
            "ErrorException: setfield!: const field .{field_name} of type {type_name} cannot be changed"
        ))
    })
}

/// `s.f = v` of a value of another type than `f` holds, where `f` is untyped (or of an
/// abstract type): Julia stores `v` with its own type, while zy's struct gives each field the
/// type of what it was built with; the refusal, else `None`.
pub(crate) fn retyped_field(cx: &Cx, name: &str, args: &[Val]) -> Option<Fail> {
    let ("setfield!", [x, f, v]) = (name, args) else {
        return None;
    };
    let Type::Struct(s) = &x.ty else {
        return None;
    };
    let def = cx.program.structs.get(&s.name)?;
    let (k, ty) = field(x, f).ok()?;
    let k = usize::try_from(k - 1).ok()?;
    let keeps = crate::dispatch::field_keeps_type(cx.program, def, k);
    // A value of an abstract type of the program (a union) takes its members by `convert`,
    // a library's union struct (`Base.NothingOrInt`) its own.
    let unions =
        matches!(&ty, Type::Union(_)) || matches!(&ty, Type::Struct(t) if is_library(&t.name));
    if keeps || unions || def.kind != StructKind::User || v.ty == ty || v.ty == Type::Bottom {
        return None;
    }
    let field_name = s.fields.get(k).map_or("", |(n, _)| &**n);
    Some(Fail::unsupported(format!(
        "assigning a value of type {} to the field `{field_name}` of a {}, which holds a {ty} (an untyped or \
         abstractly typed field, which in Julia holds each value with its own type; zy gives a \
         field the type of the value the struct was built with); declare the field's type, \
         or store values of one type",
        v.ty, s.name
    )))
}

/// The element type of an array literal: numbers promote, other elements must agree; `[]` holds
/// `Any`.
fn literal_elem(elems: &[Val]) -> Result<Type, Fail> {
    plain_values(elems)?;
    if let Some(e) = elems
        .iter()
        .find(|e| crate::join::strings_or_numbers(&e.ty))
    {
        return Err(Fail::unsupported(format!(
            "an array literal holding a value of {} (Julia's element type comes from the \
             values at run time: a `Vector{{String}}` of strings, `Vector{{Int64}}` of Ints, \
             `Vector{{Any}}` of a string beside a number, which zy does not tell apart before \
             it runs); convert it first, `string(x)`",
            e.ty
        )));
    }
    let Some(first) = elems.first() else {
        // `[]` is Julia's `Any[]`: a `Vector{Any}`, holding numbers each of its own type.
        return crate::open::open_union("Any", &[])
            .ok_or_else(|| Fail::unsupported("empty array literal `[]`"));
    };
    // Symbols: a `Vector{Symbol}` of symbols known only at run time.
    let mut t = match first.ty {
        Type::Symbol(_) => Type::any_symbol(),
        _ => first.ty.clone(),
    };
    for e in &elems[1..] {
        t = if t.is_number() && e.ty.is_number() {
            promote(&t, &e.ty)
        } else if let Some(p) = promote_sized(&t, &e.ty) {
            p
        } else if let Some(p) = promoted_arrays(&t, &e.ty) {
            p
        } else if let (Type::Symbol(_), Type::Symbol(_)) = (&t, &e.ty) {
            t
        } else if t == e.ty {
            t
        } else if let Some(u) = crate::absent::literal_elem(&t, &e.ty) {
            u
        } else if let Some(u) = functions(&t, &e.ty) {
            u
        } else if let (Type::Struct(a), Type::Struct(b)) = (&t, &e.ty) {
            if is_library(&a.name) || is_library(&b.name) {
                return Err(Fail::unsupported(format!(
                    "array literal mixing {t} and {} elements (zy's arrays hold numbers); \
                     write a tuple `(a, b)`, or `[a; b]` to concatenate them",
                    e.ty
                )));
            }
            if let Some(one) = crate::join::one_struct(&[t.clone(), e.ty.clone()]) {
                // One struct whose field of Julia's abstract type holds values of different
                // types (`[P(1.0), P(2)]` of `x::Real`): the struct holding their union.
                t = one;
                continue;
            }
            if a.name == b.name {
                // One struct whose abstractly typed field (`σ::Function`) holds values of
                // different types: zy types a struct by what its fields hold.
                let field = a.fields.iter().zip(&b.fields).find(|(x, y)| x.1 != y.1);
                if let Some(((name, x), (_, y))) = field {
                    return Err(Fail::unsupported(format!(
                        "an array of {} values whose field `{name}` holds a {x} in one and a \
                         {y} in another (zy types a struct by what its fields hold, where \
                         Julia's field of an abstract type holds either); write a tuple \
                         `(a, b)`: `map(f, t)`, `sum(f, t)`, `foldl(f, t)` and `for` loops call each \
                         element's own method",
                        a.name
                    )));
                }
            }
            return Err(Fail::unsupported(format!(
                "an array of structs of different types (`[a, b]` of {t} and {} values, which \
                 Julia's Vector of their abstract type dispatches per element at run time); \
                 write a tuple `(a, b)`: `map(f, t)` and `sum(f, t)` call each \
                 element's own method",
                e.ty
            )));
        } else {
            return Err(Fail::unsupported(format!(
                "array literal mixing {t} and {} elements; write a tuple `(a, b)` instead",
                e.ty
            )));
        };
    }
    match nested_elements(&t) {
        Some(why) => Err(Fail::unsupported(why)),
        None => Ok(t),
    }
}

/// The element type of an array literal of different functions (`[sin, cos]`, the values of
/// `Dict('A' => advance!, 'L' => turn_left!)`, closures `[x -> x + 1, x -> 2x]`): Julia's
/// `Function`, held as the union of the functions, so that a call of an element runs the one it
/// holds. `None` unless `a` and `b` are functions, closures or such unions.
fn functions(a: &Type, b: &Type) -> Option<Type> {
    let members = |t: &Type| match t {
        Type::Function(_) => Some(vec![t.clone()]),
        Type::Struct(s) if s.kind == StructKind::Closure => Some(vec![t.clone()]),
        Type::Union(u) if &*u.name == "Function" => Some(u.members.clone()),
        _ => None,
    };
    let mut all = members(a)?;
    all.extend(members(b)?);
    Some(Type::union("Function".into(), all))
}

/// `T[...]`, `T[]` and `Vector{T}()` (`getindex` of a type) of a struct type, an abstract
/// type or `Any`: refused by name, as zy's arrays hold numbers (the number types' typed
/// literals are the prelude's methods). `None` for any other call.
pub(crate) fn typed_literal(cx: &Cx, name: &str, args: &[Val]) -> Option<Fail> {
    let Type::Function(t) = &args.first()?.ty else {
        return None;
    };
    if name != "getindex" {
        return None;
    }
    if typed_elem(cx, t).is_some() {
        return None;
    }
    let what = match cx.program.structs.get(t) {
        _ if crate::open::is_open(t) => {
            let other = types(&args[1..])
                .into_iter()
                .find(|a| !a.is_number() || !crate::open::holds(t, a));
            crate::open::refusal(t, &other.unwrap_or(Type::Nothing))
        }
        Some(def) if def.is_abstract => abstract_elements(t),
        Some(def) if def.kind == StructKind::User => struct_elements(t),
        _ => return None,
    };
    Some(Fail::unsupported(format!(
        "the typed array `{t}[...]` (zy's arrays hold numbers, arrays, the program's concrete structs and tuples of them): {what}"
    )))
}

/// Why a zy array cannot hold elements of type `t` and what to write instead, or `None` for a
/// type it holds: numbers, and (as references, Julia's `Vector{Vector{Float64}}`,
/// `Vector{Layer}`) arrays, the program's structs and tuples of such.
pub(crate) fn nested_elements(t: &Type) -> Option<String> {
    if is_element_type(t) {
        return None;
    }
    Some(match t {
        Type::Adjoint(_) => format!(
            "a vector of rows (of {t} values); collect each row first (`collect(x')`), or \
             keep them in a tuple"
        ),
        Type::Struct(s) if is_library(&s.name) => format!(
            "a vector of {t} values (a Vector{{{t}}} in Julia); write a tuple `(a, b)`, or \
             `[a; b]` to concatenate them"
        ),
        Type::Struct(s) if s.kind == zy_ir::StructKind::Closure => "an array of closures \
            (Julia's `Vector{Function}`; zy's arrays hold numbers, arrays, structs and tuples); \
            keep the functions in a tuple `(f, g)` and loop over it, or compute the values \
            instead of the closures"
            .to_string(),
        _ => format!("an array of {t} values"),
    })
}

/// Can a zy array hold elements of type `t`? Numbers, strings, arrays, the program's structs,
/// and tuples and named tuples of such.
pub(crate) fn is_element_type(t: &Type) -> bool {
    match t {
        _ if t.is_number() || *t == Type::Bottom || t.is_string() => true,
        // Held as objects, each element a number of its own (`Vector{Float32}`, `UInt8[...]`).
        Type::Float32 | Type::Int(_) => true,
        _ if t.is_any_symbol() => true,
        Type::Array(e, 1 | 2) => is_element_type(e),
        // A row `x'` of numbers (`rows = [v' for v in vs]`, Julia's `Vector{Adjoint{T,
        // Vector{T}}}`): held as its vector is, a reference.
        Type::Adjoint(e) => e.is_number(),
        // The library's structs are held as the program's are (`Vector{ComplexF64}`,
        // `collect(d)` of a `Dict`, `[Threads.@spawn f(i) for i in 1:4]`), but for those
        // Julia makes `AbstractArray`s: of these unit ranges, rows `transpose(v)` and views
        // (`collect(eachcol(A))`, Julia's Vector of views, each reading and writing `A`).
        Type::Struct(s) => {
            s.kind == StructKind::User
                && (!is_library(&s.name)
                    || !stands_for_array(&s.name)
                    || matches!(
                        &*s.name,
                        "Base.UnitRange" | "Base.Transpose" | "Base.SubArray"
                    ))
        }
        Type::Union(_) => true,
        Type::Tuple(ts) => !ts.is_empty() && ts.iter().all(is_element_type),
        Type::NamedTuple(fs) => !fs.is_empty() && fs.iter().all(|(_, t)| is_element_type(t)),
        _ => false,
    }
}

/// Is the library struct `name` one that Julia makes an `AbstractArray` (a range, a lazy
/// wrapper of a matrix, a view, slices of an array)?
fn stands_for_array(name: &str) -> bool {
    crate::pattern::is_range_struct(name)
        || name.starts_with("LinearAlgebra.")
        || matches!(
            name,
            "Base.Transpose"
                | "Base.AdjointMatrix"
                | "Base.TransposeMatrix"
                | "Base.SubArray"
                | "Base._Reshaped"
                | "Base.RowSlices"
                | "Base.ColumnSlices"
                | "Base.Slices"
                | "Base.CartesianIndices"
        )
}

/// The element type of a typed literal `T[...]` whose `T` (a type value's name) is an array,
/// a struct or a tuple type zy's arrays hold: `None` for numbers (the prelude's methods) and
/// for other types.
fn typed_elem(cx: &Cx, t: &str) -> Option<Type> {
    // `Symbol[]`: a vector of symbols known only at run time.
    if t == "Symbol" {
        return Some(Type::any_symbol());
    }
    // `AbstractString[]`: Julia's `Vector{AbstractString}`, whose elements are zy's strings.
    if t == "AbstractString" {
        return Some(Type::Union(std::sync::Arc::new(zy_ir::UnionType {
            name: t.into(),
            members: vec![Type::String, Type::SubString],
        })));
    }
    let pat = crate::type_values::pattern_of_name(t, cx.program).ok()?;
    let elem = crate::dispatch::concrete_type(cx.program, &pat)
        .or_else(|| crate::dispatch::number_fields_type(cx.program, t))?;
    (!elem.is_number() && is_element_type(&elem)).then_some(elem)
}

/// `T[a, b]`, `T[]` and `Vector{T}()` of an array, struct or tuple type `T`: a vector of
/// references to the elements, each converted to `T`; of `Any`, `Real` or `Number` (and `[]`)
/// a vector of their open union, holding also what the body stores into it
/// ([`Cx::any_held`]). `None` when `T` is not such a type.
pub(crate) fn typed_vect(
    cx: &Cx,
    b: &mut PlanBuilder,
    name: &str,
    args: &[Val],
) -> Option<Result<Val, Fail>> {
    // `[]` is Julia's `Any[]`, and so is a literal of values of different kinds.
    let any: Name = "Any".into();
    let (t, elems) = match (args.first().map(|a| &a.ty), name) {
        (None, "vect") => (&any, args),
        (Some(_), "vect") if crate::open::mixes_kinds(&types(args)) => (&any, args),
        (Some(Type::Function(t)), "getindex") => (t, &args[1..]),
        _ => return None,
    };
    let mut held = types(elems);
    if crate::open::is_open(t) || is_unbound_library(cx, t) || &**t == "Function" {
        held.extend(cx.any_held.iter().cloned());
    }
    if &**t == "Function" {
        return Some(function_vect(b, elems, &held));
    }
    let elem = typed_elem(cx, t)
        .or_else(|| held_instance(cx, t, &held))
        .or_else(|| {
            let def = cx.program.structs.get(crate::pattern::base_name(t))?;
            if !def.is_abstract || is_library(&def.name) {
                return None;
            }
            if held.is_empty() {
                let pat = crate::type_values::pattern_of(t, cx.program).ok()?;
                return crate::dispatch::fixed_members(cx.program, &pat);
            }
            let observed = crate::dispatch::observed_union(cx.program, &def.name, &held)?;
            applied_observed(cx, t, observed)
        })
        .or_else(|| crate::open::open_union(t, &held))?;
    Some(converted_vect(b, elems, elem))
}

/// `Function[f, g]` (or `Function[]` that the body fills): Julia's `Vector{Function}`, held as
/// the union of the functions and closures `held` (the literal's and those the body stores into
/// it), so that a call of an element runs the one it holds.
fn function_vect(b: &mut PlanBuilder, elems: &[Val], held: &[Type]) -> Result<Val, Fail> {
    let mut members = Vec::new();
    for t in held {
        match t {
            Type::Union(u) if &*u.name == "Function" => members.extend(u.members.iter().cloned()),
            Type::Function(_) => members.push(t.clone()),
            Type::Struct(s) if s.kind == StructKind::Closure => members.push(t.clone()),
            _ => {
                return Err(Fail::method(format!(
                    "MethodError: Cannot `convert` an object of type {t} to an object of type \
                     Function"
                )))
            }
        }
    }
    if members.is_empty() {
        return Err(Fail::unsupported(
            "a `Function[]` into which the function making it stores no function (zy holds \
             the functions a container may hold by their types); store them where it is made",
        ));
    }
    converted_vect(b, elems, Type::union("Function".into(), members))
}

/// `Array{Any}(missing, n)` and `Vector{Any}(nothing, n)` (of `Any`, `Real` or `Number`):
/// Julia's vector of `n` copies of the value, its element type the open union holding also what
/// the body stores into it ([`Cx::any_held`]). `None` for other types and arguments; refused
/// for a length zy does not know before it runs.
pub(crate) fn filled_open_vector(
    cx: &Cx,
    b: &mut PlanBuilder,
    t: &str,
    args: &[Val],
) -> Option<Result<Val, Fail>> {
    let [x, n] = args else {
        return None;
    };
    if !crate::open::is_open(t) || !(x.ty.is_missing() || x.ty == Type::Nothing) {
        return None;
    }
    let known = n.konst.as_ref().filter(|_| n.ty == Type::Int64);
    let Some(n) = known.and_then(|k| match k {
        Const::Int(n) => usize::try_from(*n).ok().filter(|&n| n <= MAX_FILLED),
        _ => None,
    }) else {
        return Some(Err(Fail::unsupported(format!(
            "`Array{{{t}}}({}, n)` of a length known only at run time or over {MAX_FILLED}; \
             start from `{t}[]` and `push!` instead",
            x.ty
        ))));
    };
    let mut held = vec![x.ty.clone()];
    held.extend(cx.any_held.iter().cloned());
    let elem = crate::open::open_union(t, &held)?;
    let copies = vec![x.clone(); n];
    Some(converted_vect(b, &copies, elem))
}

/// The longest `Array{Any}(missing, n)` zy writes out element by element.
const MAX_FILLED: usize = 64;

/// Is `t` a parametric struct of the library named without its parameters (`Task`, whose
/// `Task[]` holds tasks of one result type)?
pub(crate) fn is_unbound_library(cx: &Cx, t: &str) -> bool {
    cx.program
        .structs
        .get(t)
        .is_some_and(|d| is_library(&d.name) && !d.params.is_empty() && !d.is_abstract)
}

/// The element type of `T[...]` for such a struct `T` ([`is_unbound_library`]): the one
/// instance of it the literal and the function's stores hold (Julia's `Vector{Task}` holding
/// tasks of one type), `Union{}` while inference has typed none of them yet; `None` if they
/// hold several, or values of another type.
fn held_instance(cx: &Cx, t: &str, held: &[Type]) -> Option<Type> {
    let def = cx
        .program
        .structs
        .get(t)
        .filter(|_| is_unbound_library(cx, t))?;
    let Some(first) = held.first() else {
        return Some(Type::Bottom);
    };
    let one =
        matches!(first, Type::Struct(s) if s.name == def.name) && held.iter().all(|h| h == first);
    one.then(|| first.clone())
}

/// The union `observed` of the values a literal `A{P}[...]` of a parametric abstract type holds,
/// named `A{P}` (`t`), when every member is one (`None` when one is not); `observed` itself for a
/// bare `A[...]`.
fn applied_observed(cx: &Cx, t: &Name, observed: Type) -> Option<Type> {
    if !t.contains('{') {
        return Some(observed);
    }
    let pat = crate::type_values::pattern_of(t, cx.program).ok()?;
    let Type::Union(u) = &observed else {
        return None;
    };
    u.members
        .iter()
        .all(|m| crate::pattern::matches(&pat, m, &mut Default::default()))
        .then(|| {
            Type::Union(std::sync::Arc::new(zy_ir::UnionType {
                name: crate::type_values::canonical(t, cx.program).unwrap_or_else(|_| t.clone()),
                members: u.members.clone(),
            }))
        })
}

/// `Vector{T}(undef, n)` and `Matrix{T}(undef, m, n)` of an array, struct or tuple type `T`
/// (the prelude's `_undef_vector` calls `undef_objects`), and the 3-dimensional array a
/// comprehension over 3-dimensional `CartesianIndices` fills: slots that are not set yet,
/// whose reading is Julia's `UndefRefError`. `None` for another call.
pub(crate) fn undef_objects(
    cx: &Cx,
    b: &mut PlanBuilder,
    name: &str,
    args: &[Val],
) -> Option<Result<Val, Fail>> {
    if name != "undef_objects" {
        return None;
    }
    // `undef_objects(x, n)`: slots for elements of the array `x`'s type (a `Vector{Any}`'s
    // holding what it holds).
    let (elem, dims) = match args.split_first().map(|(t, d)| (&t.ty, d)) {
        Some((Type::Array(e, _), dims)) => (Some((**e).clone()), dims),
        // `Vector{Any}(undef, n)`: unset slots of the open union.
        Some((Type::Function(t), dims)) => (
            typed_elem(cx, t).or_else(|| crate::open::open_union(t, &cx.any_held)),
            dims,
        ),
        _ => return Some(Err(no_method(name, &types(args)))),
    };
    let Some(elem) = elem else {
        let Some(Type::Function(t)) = args.first().map(|a| &a.ty) else {
            return Some(Err(no_method(name, &types(args))));
        };
        let form = if dims.len() == 2 {
            format!("Matrix{{{t}}}(undef, m, n)")
        } else {
            format!("Vector{{{t}}}(undef, n)")
        };
        let why = match cx.program.structs.get(t) {
            Some(def) if def.is_abstract => abstract_elements(t),
            _ => "zy's arrays hold numbers, arrays, the program's structs and tuples of them, \
                  and values of its abstract types, not of Julia's (Julia dispatches per \
                  element at run time); keep those in a tuple `(a, b)`"
                .to_string(),
        };
        return Some(Err(Fail::unsupported(format!("`{form}`: {why}"))));
    };
    if dims.is_empty() || dims.len() > 3 || dims.iter().any(|d| d.ty != Type::Int64) {
        return Some(Err(no_method(name, &types(args))));
    }
    let refs: Vec<&Val> = dims.iter().collect();
    Some(Ok(apply(
        b,
        Prim::Zeros,
        &refs,
        array(elem, dims.len() as u8),
    )))
}

/// `[a, b]` of the program's structs of different types (or values of its abstract types):
/// Julia's `Vector` of their nearest common abstract type (`promote_typejoin`), each element
/// held with its own concrete type. `None` for another call.
pub(crate) fn abstract_vect(
    cx: &Cx,
    b: &mut PlanBuilder,
    name: &str,
    args: &[Val],
) -> Option<Result<Val, Fail>> {
    if name != "vect" || args.len() < 2 {
        return None;
    }
    let types = crate::value::types(&args);
    let program = cx.program;
    let Some(up) = crate::dispatch::typejoin(program, &types)? else {
        // Structs with no common abstract type of the program: Julia's `Vector{Any}`.
        let mut held = types.clone();
        held.extend(cx.any_held.iter().cloned());
        let elem = crate::open::open_union("Any", &held)?;
        return Some(converted_vect(b, args, elem));
    };
    Some((|| {
        let elem = crate::dispatch::abstract_union(program, &up, 0)
            .or_else(|| crate::dispatch::observed_union(program, &up, &types))
            .ok_or_else(|| Fail::unsupported(abstract_elements(&up)))?;
        converted_vect(b, args, crate::dispatch::joined(program, elem))
    })())
}

/// Why an array of the abstract type `name` is refused: zy lists the concrete types it may
/// hold (the program's structs below it), which it cannot for every abstract type.
fn abstract_elements(name: &str) -> String {
    format!(
        "an array of the abstract type {name} (Julia's, dispatched per element at run time) \
         holds the program's structs below {name}: all of them when they are structs without \
         type parameters whose fields are all declared with concrete types, else the types of \
         the elements of a literal `{name}[a, b]` (which must differ in more than an untyped \
         field's type); annotate their fields, or keep the values in a tuple `(a, b)`"
    )
}

/// The refusal of an array of the struct type `name`, with what to write instead.
fn struct_elements(name: &str) -> String {
    format!(
        "an array of structs (of {name} values, a Vector{{{name}}} in Julia); write a tuple \
         `(a, b)`: `map(f, t)`, `sum(f, t)` and constant indices work on it, or keep each \
         field in an array of its own"
    )
}

/// Julia's `promote_type` of two number types, one a Float32 or a fixed-width integer
/// (`[1f0, 2.0]` is a `Vector{Float64}`, `[1f0, 2]` a `Vector{Float32}`); `None` for others.
fn promote_sized(a: &Type, b: &Type) -> Option<Type> {
    let sized = |t: &Type| matches!(t, Type::Float32 | Type::Int(_));
    let number = |t: &Type| t.is_number() || sized(t);
    if !(number(a) && number(b)) || !(sized(a) || sized(b)) || a == b {
        return None;
    }
    Some(if *a == Type::Float64 || *b == Type::Float64 {
        Type::Float64
    } else if *a == Type::Float32 || *b == Type::Float32 {
        Type::Float32
    } else {
        super::fixed::promote(a, b)
    })
}

/// Julia's `promote_type` of two arrays of one number of dimensions whose elements are numbers
/// of different types (`[[0, 0], [5.0, 5.0]]` is a `Vector{Vector{Float64}}`): the array of
/// their promoted element type, to which each is converted (a copy). `None` for other types.
fn promoted_arrays(a: &Type, b: &Type) -> Option<Type> {
    let (Type::Array(x, n), Type::Array(y, m)) = (a, b) else {
        return None;
    };
    let plain = |t: &Type| matches!(t, Type::Int64 | Type::Bool | Type::Float64);
    (n == m && x != y && plain(x) && plain(y)).then(|| array(promote(x, y), *n))
}

/// `[a, b, c]`.
fn vect(b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
    let t = literal_elem(args)?;
    converted_vect(b, args, t)
}

/// `Base._typejoin_vect(xs...)`: the vector of `xs` whose element type is Julia's
/// `promote_typejoin` of theirs, as `Dict(ps...)` takes its keys' and values' types: one type
/// as it is, numbers of different types `Real`, numbers, strings, symbols, `nothing`, tuples
/// and arrays `Any` (each holding also the types such a container holds by default).
fn typejoin_vect(b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
    let held = types(args);
    let symbol = |t: &Type| matches!(t, Type::Symbol(_));
    let plain = |t: &Type| {
        t.is_number()
            || matches!(
                t,
                Type::String | Type::Symbol(_) | Type::Nothing | Type::Tuple(_) | Type::Array(..)
            )
    };
    let name = match held.first() {
        Some(first)
            if held
                .iter()
                .all(|t| t == first || symbol(t) && symbol(first)) =>
        {
            return vect(b, args)
        }
        _ if held.iter().all(Type::is_number) => "Real",
        _ if held.iter().all(plain) => "Any",
        _ => return vect(b, args),
    };
    let mut members = crate::open::defaults(name);
    members.extend(held);
    let elem = crate::open::open_union(name, &members)
        .ok_or_else(|| no_method("_typejoin_vect", &types(args)))?;
    converted_vect(b, args, elem)
}

/// `[a b; c d]`: constant row and column counts, then the elements row-major.
fn hvcat(b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
    let [rows, cols, elems @ ..] = args else {
        return Err(no_method("hvcat", &types(args)));
    };
    let (Some(r), Some(c)) = (rows.int(), cols.int()) else {
        return Err(Fail::unsupported("matrix literal without a constant shape"));
    };
    let cells = r.checked_mul(c).and_then(|n| usize::try_from(n).ok());
    if r < 1 || c < 1 || cells != Some(elems.len()) {
        return Err(Fail::method(format!(
            "ArgumentError: a {r}×{c} matrix literal cannot hold {} elements",
            elems.len()
        )));
    }
    let t = literal_elem(elems)?;
    let vals = elems
        .iter()
        .map(|a| convert(b, a.clone(), &t))
        .collect::<Result<Vec<_>, _>>()?;
    let mut refs: Vec<&Val> = vec![rows, cols];
    refs.extend(vals.iter());
    Ok(apply(b, Prim::Hvcat, &refs, array(t, 2)))
}

/// `Base._box_init!(r, v)`, `Base._box_set!(r, v)`: an assignment of a local that a closure
/// shares, `v` converted to what the box holds. Julia's `Core.Box` holds a value of any type;
/// zy's one type, so a value that does not convert to it is refused (where Julia would go on).
fn box_store(b: &mut PlanBuilder, p: Prim, args: &[Val]) -> Result<Val, Fail> {
    let [x @ Val {
        ty: Type::Ref(t), ..
    }, v] = args
    else {
        return Err(no_method("setindex!", &types(args)));
    };
    match convert(b, v.clone(), t) {
        Ok(v) => Ok(apply(b, p, &[x, &v], (**t).clone())),
        Err(f) if f.code == "method-error" => Err(Fail::unsupported(format!(
            "a local shared with a closure, holding a {t}, assigned a {} (Julia's box holds \
             either, zy's one type); give the two values names of their own instead",
            v.ty
        ))),
        Err(f) => Err(f),
    }
}

/// `Base._box(:x)`: the empty box of the local `x`, holding values of type `elem` (what the
/// function assigns to it), as a plan of its one primitive.
pub(crate) fn empty_box(name: &Val, elem: Type) -> crate::plan::Plan {
    let mut b = PlanBuilder::default();
    let ty = Type::Ref(elem.into());
    let v = apply(&mut b, Prim::RefUndef, &[name], ty.clone());
    b.finish(v.arg, ty)
}

/// The vector of `xs` each converted to `elem`.
fn converted_vect(b: &mut PlanBuilder, xs: &[Val], elem: Type) -> Result<Val, Fail> {
    let vals = xs
        .iter()
        .map(|a| convert(b, a.clone(), &elem))
        .collect::<Result<Vec<_>, _>>()?;
    let refs: Vec<&Val> = vals.iter().collect();
    Ok(apply(b, Prim::Vect, &refs, array(elem, 1)))
}
