//! Array builtins: arithmetic between arrays and scalars (elementwise via `Prim::Broadcast`),
//! matrix products, reductions, constructors, shapes and transposes.

use std::sync::Arc;

use zy_ir::{Const, Op, Prim, Type};

use crate::calls::Cx;
use crate::error::{no_method, Fail};
use crate::plan::{Arg, PlanBuilder};
use crate::value::{apply, array, convert, func, promote, types, Val};

/// `x op y` where at least one side is an array.
pub(crate) fn arith(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    op: &str,
    x: &Val,
    y: &Val,
) -> Result<Val, Fail> {
    let fail = || Err(no_method(op, &[x.ty.clone(), y.ty.clone()]));
    if let Some(v) = arith_nested(cx, b, op, x, y) {
        return v;
    }
    match (op, &x.ty, &y.ty) {
        ("+" | "-", Type::Array(_, n), Type::Array(_, m)) if n == m => {
            b.prim(
                Prim::CheckAxes,
                vec![x.arg.clone(), y.arg.clone()],
                Type::Nothing,
            );
            broadcast(cx, b, op, &[x.clone(), y.clone()])
        }
        ("*", Type::Array(..), s) | ("*" | "/", s, Type::Array(..)) if s.is_number() => {
            if op == "/" {
                return fail();
            }
            broadcast(cx, b, op, &[x.clone(), y.clone()])
        }
        ("/", Type::Array(..), s) if s.is_number() => broadcast(cx, b, op, &[x.clone(), y.clone()]),
        ("+" | "-", Type::Adjoint(_), Type::Adjoint(_)) => {
            b.prim(
                Prim::CheckAxes,
                vec![x.arg.clone(), y.arg.clone()],
                Type::Nothing,
            );
            broadcast(cx, b, op, &[x.clone(), y.clone()])
        }
        ("*" | "/", Type::Adjoint(_), s) if s.is_number() => {
            broadcast(cx, b, op, &[x.clone(), y.clone()])
        }
        ("*", s, Type::Adjoint(_)) if s.is_number() => {
            broadcast(cx, b, op, &[x.clone(), y.clone()])
        }
        ("*", _, _) => matmul(b, x, y).unwrap_or_else(fail),
        _ => fail(),
    }
}

/// `a * B`, `B * a`, `B / a` and `A ± B` of arrays whose elements are arrays or structs
/// (complex numbers), or of a complex `a` and an array of numbers: Julia's definitions,
/// `broadcast(op, x, y)` (after an axes check for `±`), which call `op` on each element
/// (`x[1] * [[x[2], x[3]]]`, `2.0 * z`); `None` for arrays of numbers and a real `a`.
fn arith_nested(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    op: &str,
    x: &Val,
    y: &Val,
) -> Option<Result<Val, Fail>> {
    let nested = |t: &Type| matches!(t, Type::Array(e, _) if !e.is_number());
    let scalar = |t: &Type| t.is_number() || super::is_complex_type(t);
    let scaled = |a: &Type, s: &Type| {
        scalar(s) && (nested(a) || matches!(a, Type::Array(..)) && !s.is_number())
    };
    let ok = match (op, &x.ty, &y.ty) {
        ("+" | "-", Type::Array(_, n), Type::Array(_, m)) => {
            n == m && (nested(&x.ty) || nested(&y.ty))
        }
        ("*", a, s) | ("*", s, a) if scaled(a, s) => true,
        ("/", a, s) => scaled(a, s),
        _ => false,
    };
    if !ok {
        return None;
    }
    if op == "+" || op == "-" {
        b.prim(
            Prim::CheckAxes,
            vec![x.arg.clone(), y.arg.clone()],
            Type::Nothing,
        );
    }
    Some(cx.call_named(b, &"broadcast".into(), &[generic(op), x.clone(), y.clone()]))
}

/// The library's function `op` (`Base.*`) as a value: its methods for the prelude's structs
/// (complex numbers) and the builtin.
fn generic(op: &str) -> Val {
    let name = format!("Base.{op}");
    Val::of(func(&name), Type::Function(name.as_str().into()))
}

/// `A * B` for arrays and row vectors, `None` if Julia has no such method.
fn matmul(b: &mut PlanBuilder, x: &Val, y: &Val) -> Option<Result<Val, Fail>> {
    let (ex, ey) = (x.ty.elem()?.clone(), y.ty.elem()?.clone());
    if !ex.is_number() || !ey.is_number() {
        return None;
    }
    let e = promote(&ex, &ey);
    let shape = |elem: &Type| -> Option<Type> {
        Some(match (&x.ty, &y.ty) {
            (Type::Array(_, 2), Type::Array(_, 1)) => array(elem.clone(), 1),
            (Type::Array(_, 2), Type::Array(_, 2))
            | (Type::Array(_, 1 | 2), Type::Adjoint(_))
            | (Type::Array(_, 1), Type::Array(_, 2)) => array(elem.clone(), 2),
            (Type::Adjoint(_), Type::Array(_, 1)) => elem.clone(),
            (Type::Adjoint(_), Type::Array(_, 2)) => Type::Adjoint(Arc::new(elem.clone())),
            _ => return None,
        })
    };
    let ty = shape(&e)?;
    let conv = |b: &mut PlanBuilder, v: &Val| -> Result<Val, Fail> {
        match &v.ty {
            Type::Array(t, n) if **t != e => convert(b, v.clone(), &array(e.clone(), *n)),
            Type::Adjoint(t) if **t != e => Err(Fail::unsupported(format!(
                "products of {} with other element types; convert the vector under the adjoint \
                 first (`float.(x)'`) instead",
                v.ty
            ))),
            _ => Ok(v.clone()),
        }
    };
    Some((|| {
        let x = conv(b, x)?;
        let y = conv(b, y)?;
        Ok(apply(b, Prim::MatMul, &[&x, &y], ty))
    })())
}

/// `broadcast(f, args...)` for a builtin scalar function `f`: a `Prim::Broadcast` whose
/// function operand is the primitive's name, with the operands converted as the scalar
/// function would convert them. Without array operands it is the plain call.
pub(crate) fn broadcast(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    f: &str,
    args: &[Val],
) -> Result<Val, Fail> {
    broadcast_prim(cx, b, f, args)?
        .ok_or_else(|| Fail::unsupported(format!("broadcasting `{f}` over {}", list(args))))
}

/// [`broadcast`], or `None` when `f` on the element types is not one primitive (`*` of a
/// Float64 and a Bool, Julia's strong zero): the caller broadcasts it as a Julia function.
pub(crate) fn broadcast_prim(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    f: &str,
    args: &[Val],
) -> Result<Option<Val>, Fail> {
    let rows = args.iter().any(|a| matches!(a.ty, Type::Adjoint(_)));
    if rows && !args.iter().any(|a| matches!(a.ty, Type::Array(..))) {
        return broadcast_rows(cx, b, f, args);
    }
    // Julia's shapes: a vector is a column, a row a 1×n matrix, and the result has the most
    // dimensions among the operands (`A .+ b`, `x .* y'`); lengths are checked at run time.
    let mut n = None;
    let mut elems = Vec::with_capacity(args.len());
    for a in args {
        match &a.ty {
            Type::Array(e, k) => {
                n = Some(n.map_or(*k, |m: u8| m.max(*k)));
                elems.push((**e).clone());
            }
            Type::Adjoint(e) => {
                n = Some(2);
                elems.push((**e).clone());
            }
            t if t.is_number() || is_sized(t) => elems.push(t.clone()),
            // A type or function is a scalar to broadcasting (Julia's `broadcastable` makes it
            // a `Ref`): `zero.(typeof(x))` with no array operand is the plain call.
            Type::Function(_)
                if !args
                    .iter()
                    .any(|a| matches!(a.ty, Type::Array(..) | Type::Adjoint(_))) =>
            {
                return cx.call_named(b, &f.into(), args).map(Some);
            }
            // A boxed scalar (`Ref(v)`, `(v,)`), or a symbol or string (scalars to Julia's
            // `broadcastable`: `getfield.(v, :a)`) with an array: the synthesised broadcast.
            Type::Ref(_) | Type::Tuple(_) | Type::Symbol(_) | Type::String | Type::SubString => {
                return Ok(None)
            }
            t => return Err(Fail::unsupported(format!("broadcasting over {t}"))),
        }
    }
    let Some(n) = n else {
        return cx.call_named(b, &f.into(), args).map(Some);
    };
    // Type the scalar call on the element types to learn the operation and its conversions.
    let mut scalar = PlanBuilder::default();
    let ins: Vec<Val> = elems
        .iter()
        .enumerate()
        .map(|(i, t)| Val::of(Arg::Input(i), t.clone()))
        .collect();
    let r = cx.call_named(&mut scalar, &f.into(), &ins)?;
    let plan = scalar.finish(r.arg, r.ty);
    let Some((last, convs)) = plan.steps.split_last() else {
        return Ok(None);
    };
    let Op::Prim(p) = last.op else {
        return Ok(None);
    };
    // A primitive the broadcast kernel cannot apply per element (`length` of a string) is
    // broadcast as a Julia function.
    if Prim::elementwise(p.julia_name(), elems.len()) != Some(p) {
        return Ok(None);
    }
    if plan.result != Arg::Step(plan.steps.len() - 1) || !last.ty.is_number() {
        return Ok(None);
    }
    // Conversions of inputs, by input index.
    let mut target: Vec<Type> = elems.clone();
    for s in convs {
        match (&s.op, s.args.as_slice()) {
            (Op::Prim(Prim::Float | Prim::ToInt), [Arg::Input(i)]) => target[*i] = s.ty.clone(),
            _ => return Ok(None),
        }
    }
    let mut ops = vec![func(p.julia_name())];
    for (i, a) in args.iter().enumerate() {
        let want = match &a.ty {
            Type::Array(_, k) => array(target[i].clone(), *k),
            Type::Adjoint(e) if **e == target[i] => a.ty.clone(),
            Type::Adjoint(_) => {
                return Err(Fail::unsupported(format!(
                    "broadcasting `{f}` over a row of {} with an array (convert the row first)",
                    a.ty
                )))
            }
            _ => target[i].clone(),
        };
        let v = convert(b, a.clone(), &want)?;
        ops.push(v.arg);
    }
    let ty = array(last.ty.clone(), n);
    Ok(Some(Val::of(b.prim(Prim::Broadcast, ops, ty.clone()), ty)))
}

/// Broadcasting over row vectors (and scalars): over their parent vectors, as a row vector;
/// `None` where `f` over the parents is not one primitive (the caller broadcasts it as a Julia
/// function).
fn broadcast_rows(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    f: &str,
    args: &[Val],
) -> Result<Option<Val>, Fail> {
    let mut parents = Vec::with_capacity(args.len());
    for a in args {
        match &a.ty {
            Type::Adjoint(e) => {
                parents.push(apply(b, Prim::Adjoint, &[a], Type::Array(e.clone(), 1)));
            }
            t if t.is_number() || is_sized(t) => parents.push(a.clone()),
            t => {
                return Err(Fail::unsupported(format!(
                    "broadcasting a row vector with {t}"
                )))
            }
        }
    }
    let Some(v) = broadcast_prim(cx, b, f, &parents)? else {
        return Ok(None);
    };
    let Type::Array(elem, 1) = &v.ty else {
        return Err(Fail::unsupported(format!(
            "broadcasting `{f}` over {}",
            list(args)
        )));
    };
    let ty = Type::Adjoint(elem.clone());
    Ok(Some(apply(b, Prim::Adjoint, &[&v], ty)))
}

fn list(args: &[Val]) -> String {
    args.iter()
        .map(|a| a.ty.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Unary `-A` and `+A` on arrays, and `-x'` of a row (a row).
pub(crate) fn unary(cx: &mut Cx, b: &mut PlanBuilder, op: &str, x: &Val) -> Result<Val, Fail> {
    match (op, &x.ty) {
        // Of structs (complex numbers), each element's own method.
        ("-", Type::Array(e, _)) if !e.is_number() => {
            cx.call_named(b, &"broadcast".into(), &[generic("-"), x.clone()])
        }
        ("-", Type::Array(..) | Type::Adjoint(_)) => broadcast(cx, b, "-", std::slice::from_ref(x)),
        ("+", Type::Array(..)) => Ok(apply(b, Prim::Copy, &[x], x.ty.clone())),
        _ => Err(no_method(op, std::slice::from_ref(&x.ty))),
    }
}

/// Array functions of one argument or shape arguments.
pub(crate) fn call(b: &mut PlanBuilder, name: &str, args: &[Val]) -> Result<Val, Fail> {
    let fail = || Err(no_method(name, &types(args)));
    match (name, args) {
        ("zeros" | "ones", _) => {
            let (elem, dims) = match args.split_first() {
                Some((
                    Val {
                        ty: Type::Function(t),
                        ..
                    },
                    rest,
                )) => match elem_type(t) {
                    Some(e) => (e, rest),
                    None => return fail(),
                },
                _ => (Type::Float64, args),
            };
            shape_ctor(
                b,
                if name == "zeros" {
                    Prim::Zeros
                } else {
                    Prim::Ones
                },
                elem,
                dims,
                &[],
            )
            .unwrap_or_else(fail)
        }
        ("fill", [v, dims @ ..]) if v.ty.is_number() || is_sized(&v.ty) => {
            shape_ctor(b, Prim::Fill, v.ty.clone(), dims, std::slice::from_ref(v))
                .unwrap_or_else(fail)
        }
        ("setlength!", [v, n, tail @ ..])
            if matches!(&v.ty, Type::Array(e, 1) if super::data::is_element_type(e))
                && n.ty == Type::Int64
                && tail.iter().all(|t| t.ty == v.ty)
                && tail.len() <= 1 =>
        {
            let operands: Vec<&Val> = args.iter().collect();
            Ok(apply(b, Prim::SetLength, &operands, v.ty.clone()))
        }
        ("slice_copy", [x, a, s, n])
            if matches!(&x.ty, Type::Array(e, _) if **e == Type::Float64)
                && [a, s, n].iter().all(|i| i.ty == Type::Int64) =>
        {
            let operands: Vec<&Val> = args.iter().collect();
            Ok(apply(b, Prim::SliceCopy, &operands, Type::vector_f64()))
        }
        // Of an array of arrays or structs, a shallow copy (the elements are shared) and
        // unset slots, as Julia's.
        ("copy" | "similar", [x]) if matches!(x.ty, Type::Array(..)) => {
            let p = if name == "copy" {
                Prim::Copy
            } else {
                Prim::Similar
            };
            Ok(apply(b, p, &[x], x.ty.clone()))
        }
        ("copy", [x]) if x.ty.is_number() => Ok(x.clone()),
        ("length", [x]) => match &x.ty {
            Type::Array(..) | Type::Adjoint(_) => Ok(apply(b, Prim::Length, &[x], Type::Int64)),
            Type::Tuple(ts) => Ok(Val::lit(Const::Int(ts.len() as i64))),
            Type::NamedTuple(fs) => Ok(Val::lit(Const::Int(fs.len() as i64))),
            t if t.is_number() => Ok(Val::lit(Const::Int(1))),
            _ => fail(),
        },
        ("size", [x]) => match &x.ty {
            Type::Array(_, n) => {
                let ty = Type::tuple((0..*n).map(|_| Type::Int64));
                Ok(apply(b, Prim::Size, &[x], ty))
            }
            Type::Adjoint(_) => Ok(apply(
                b,
                Prim::Size,
                &[x],
                Type::tuple([Type::Int64, Type::Int64]),
            )),
            _ => fail(),
        },
        ("size", [x, d])
            if matches!(x.ty, Type::Array(..) | Type::Adjoint(_)) && d.ty == Type::Int64 =>
        {
            Ok(apply(b, Prim::Size, &[x, d], Type::Int64))
        }
        ("first" | "last", [x]) => match &x.ty {
            Type::Array(e, _) | Type::Adjoint(e) => {
                let p = if name == "first" {
                    Prim::First
                } else {
                    Prim::Last
                };
                Ok(apply(b, p, &[x], (**e).clone()))
            }
            Type::Tuple(ts) if !ts.is_empty() => {
                let i = if name == "first" { 1 } else { ts.len() };
                let ty = ts[i - 1].clone();
                let idx = Val::lit(Const::Int(i as i64));
                Ok(apply(b, Prim::GetField, &[x, &idx], ty))
            }
            Type::Tuple(_) => Err(Fail::method(format!(
                "BoundsError: {name} of an empty tuple"
            ))),
            t if t.is_number() => Ok(x.clone()),
            _ => fail(),
        },
        // Julia adds Bools as Ints (`add_sum`): `sum(x .> 0)` counts.
        (
            "sum",
            [x @ Val {
                ty: Type::Array(e, n),
                ..
            }],
        ) if **e == Type::Bool => {
            let x = convert(b, x.clone(), &array(Type::Int64, *n))?;
            Ok(apply(b, Prim::Sum, &[&x], Type::Int64))
        }
        ("sum" | "prod" | "maximum" | "minimum", [x]) => match &x.ty {
            Type::Array(e, _) if matches!(**e, Type::Float64 | Type::Int64) => {
                let p = match name {
                    "sum" => Prim::Sum,
                    "prod" => Prim::Prod,
                    "maximum" => Prim::Maximum,
                    _ => Prim::Minimum,
                };
                Ok(apply(b, p, &[x], (**e).clone()))
            }
            t if t.is_number() => Ok(x.clone()),
            _ => fail(),
        },
        ("dot", [x, y]) => match (&x.ty, &y.ty) {
            (Type::Array(e, n), Type::Array(f, m)) if n == m && e.is_number() && f.is_number() => {
                let t = promote(e, f);
                let x = convert(b, x.clone(), &array(t.clone(), *n))?;
                let y = convert(b, y.clone(), &array(t.clone(), *m))?;
                Ok(apply(b, Prim::Dot, &[&x, &y], t))
            }
            _ => fail(),
        },
        // The transpose of a real matrix as a new matrix: what the library's lazy
        // `transpose(A)` and `A'` (`Base.TransposeMatrix`, `Base.AdjointMatrix`) copy to.
        ("_transpose_copy", [x]) => match &x.ty {
            Type::Array(e, 2) if e.is_number() => Ok(apply(b, Prim::Transpose, &[x], x.ty.clone())),
            _ => fail(),
        },
        ("transpose" | "adjoint", [x]) => {
            let p = if name == "transpose" {
                Prim::Transpose
            } else {
                Prim::Adjoint
            };
            match &x.ty {
                // Julia's adjoint applies `adjoint` to each element (conjugates a complex
                // number), which zy's (a view of the elements) cannot; of a complex vector it
                // is the prelude's `ConjAdjoint`. A real number is its own adjoint.
                Type::Array(e, _) if p == Prim::Adjoint && !e.is_number() && !is_sized(e) => {
                    Err(Fail::unsupported(format!(
                        "`x'` (the adjoint) of an array of {e}, which applies `adjoint` to each \
                         element; write `transpose(x)`, or `transpose(conj.(x))` of complex \
                         numbers, instead"
                    )))
                }
                Type::Array(_, 2) => Ok(apply(b, p, &[x], x.ty.clone())),
                Type::Array(e, 1) => Ok(apply(b, p, &[x], Type::Adjoint(e.clone()))),
                Type::Adjoint(e) => Ok(apply(b, p, &[x], Type::Array(e.clone(), 1))),
                t if t.is_number() => Ok(x.clone()),
                _ => fail(),
            }
        }
        _ => fail(),
    }
}

/// The factorization builtins of square matrices: `det`, `logdet`, `inv`, `A \ B` (also
/// named `_solve_square`, which the library's `\` of a matrix calls), `cholesky_lower`,
/// `_eigvals_general`, `_eigen_general`, `_hessenberg` and `_schur`, on Float64 (an Int matrix or
/// right-hand side is converted first).
pub(crate) fn factor(b: &mut PlanBuilder, name: &str, args: &[Val]) -> Result<Val, Fail> {
    let fail = || Err(no_method(name, &types(args)));
    let numeric = |v: &Val, dims: &[u8]| matches!(&v.ty, Type::Array(e, n) if matches!(**e, Type::Float64 | Type::Int64) && dims.contains(n));
    let float = |b: &mut PlanBuilder, v: &Val| -> Result<Val, Fail> {
        match &v.ty {
            Type::Array(_, n) => convert(b, v.clone(), &array(Type::Float64, *n)),
            _ => Ok(v.clone()),
        }
    };
    match (name, args) {
        ("\\" | "_solve_square", [a, y]) if numeric(a, &[2]) && numeric(y, &[1, 2]) => {
            let (a, y) = (float(b, a)?, float(b, y)?);
            let ty = y.ty.clone();
            Ok(apply(b, Prim::Solve, &[&a, &y], ty))
        }
        (_, [a]) if numeric(a, &[2]) => {
            let a = float(b, a)?;
            let (p, ty) = match name {
                "det" => (Prim::Det, Type::Float64),
                "logdet" => (Prim::LogDet, Type::Float64),
                "inv" => (Prim::Inv, Type::matrix_f64()),
                "cholesky_lower" => (Prim::CholeskyLower, Type::matrix_f64()),
                "_eigvals_general" => (Prim::EigvalsGeneral, Type::matrix_f64()),
                "_eigen_general" => (Prim::EigenGeneral, Type::matrix_f64()),
                "_hessenberg" => (Prim::Hessenberg, Type::matrix_f64()),
                "_schur" => (Prim::Schur, Type::matrix_f64()),
                _ => return fail(),
            };
            Ok(apply(b, p, &[&a], ty))
        }
        _ => fail(),
    }
}

/// `tril(A)`, `tril(A, k)`, `triu(A)`, `triu(A, k)` of a numeric matrix: a matrix of its type.
pub(crate) fn triangle(b: &mut PlanBuilder, name: &str, args: &[Val]) -> Result<Val, Fail> {
    let p = if name == "tril" {
        Prim::Tril
    } else {
        Prim::Triu
    };
    match args {
        [a]
        | [a, Val {
            ty: Type::Int64, ..
        }] if matches!(&a.ty, Type::Array(e, 2) if e.is_number()) => {
            let ops: Vec<&Val> = args.iter().collect();
            Ok(apply(b, p, &ops, a.ty.clone()))
        }
        _ => Err(no_method(name, &types(args))),
    }
}

/// The element type named by a type used as a value (`zeros(Int, n)`).
/// A Float32 or a fixed-width integer: numbers an array holds as objects
/// ([`super::data::is_element_type`]).
fn is_sized(t: &Type) -> bool {
    matches!(t, Type::Float32 | Type::Int(_))
}

fn elem_type(name: &str) -> Option<Type> {
    match name {
        "Float64" => Some(Type::Float64),
        "Int" | "Int64" => Some(Type::Int64),
        "Bool" => Some(Type::Bool),
        "Float32" => Some(Type::Float32),
        _ => zy_ir::IntKind::from_name(name).map(Type::Int),
    }
}

/// `zeros(n)`, `ones(m, n)`, `fill(v, n)`: one or two Int dimensions.
fn shape_ctor(
    b: &mut PlanBuilder,
    p: Prim,
    elem: Type,
    dims: &[Val],
    lead: &[Val],
) -> Option<Result<Val, Fail>> {
    if !(1..=usize::from(zy_ir::MAX_DIMS)).contains(&dims.len())
        || dims.iter().any(|d| d.ty != Type::Int64)
    {
        return None;
    }
    let ty = array(elem, dims.len() as u8);
    let ops: Vec<&Val> = lead.iter().chain(dims).collect();
    Some(Ok(apply(b, p, &ops, ty)))
}
