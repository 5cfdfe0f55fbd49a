//! Concatenation of arrays: `vcat`, `hcat`, and the array literals built from arrays
//! (`[x; y]`, `[x y]`, `[A B; C D]`). The operand types decide the shape of the result, as
//! Julia's methods do; the copying is Julia code in the prelude (`Base._vcat_vector`,
//! `Base._vcat_matrix`, `Base._hcat`), which the AD differentiates like user code. Literals of
//! numbers only stay the `vect`/`hvcat` primitives.

use zy_ir::Type;

use crate::calls::Cx;
use crate::error::Fail;
use crate::plan::PlanBuilder;
use crate::value::Val;

/// Type `vcat`, `hcat` and an `hvcat` literal holding an array; `None` for anything else.
pub(crate) fn call(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    name: &str,
    args: &[Val],
) -> Option<Result<Val, Fail>> {
    if matches!(name, "vcat" | "hcat" | "hvcat") && args.iter().any(is_collected) {
        // A range is a vector whose elements are computed, a row `x'` or a transpose a lazy
        // matrix reading its parent: concatenated, their elements (`[1:3; 5]`, `vcat(0, 1:n)`,
        // `[x'; y']`, `[A' B]`), as Julia copies them.
        let mut parts = Vec::with_capacity(args.len());
        for a in args {
            parts.push(match is_collected(a) {
                true => match cx.call_named(b, &"Base.collect".into(), std::slice::from_ref(a)) {
                    Ok(v) => v,
                    Err(e) => return Some(Err(e)),
                },
                false => a.clone(),
            });
        }
        return call(cx, b, name, &parts);
    }
    let is_array = |v: &Val| matches!(v.ty, Type::Array(..) | Type::Adjoint(_));
    if let ("hvcat", [rows, xs @ ..]) = (name, args) {
        if let Some(lengths) = row_lengths(rows) {
            return Some(match xs.iter().any(is_array) {
                true => hvcat(cx, b, &lengths, xs),
                false => ragged_numbers(cx, b, &lengths, xs),
            });
        }
    }
    if matches!(name, "vcat" | "hcat") && args.iter().any(super::is_uniform) {
        let d = if name == "vcat" { 2 } else { 1 };
        return Some(sized_uniforms(cx, b, args, d).and_then(|xs| match name {
            "vcat" => vcat(cx, b, &xs),
            _ => hcat(cx, b, &xs),
        }));
    }
    Some(match (name, args) {
        ("vcat", []) | ("hcat", []) => Err(Fail::unsupported(format!(
            "`{name}()` (its element type would be Any); write `Float64[]` instead"
        ))),
        ("vcat", xs) if !xs.iter().any(is_array) => cx.call_named(b, &"vect".into(), xs),
        ("vcat", xs) => vcat(cx, b, xs),
        ("hcat", xs) => hcat(cx, b, xs),
        // Julia's `hvcat(rows::Tuple, xs...)` called by name.
        ("hvcat", [rows, xs @ ..]) if matches!(rows.ty, Type::Tuple(_)) => {
            match xs.iter().any(is_array) {
                true => Err(Fail::unsupported(
                    "`hvcat(rows, blocks...)` of arrays called by name; write the block \
                     literal `[A B; C]`",
                )),
                false => cx
                    .call_named(b, &"vect".into(), xs)
                    .and_then(|v| hvcat_rows(cx, b, rows, &v)),
            }
        }
        ("hvcat", [rows, cols, xs @ ..]) if xs.iter().any(is_array) => {
            let (Some(r), Some(c)) = (rows.int(), cols.int()) else {
                return Some(Err(Fail::unsupported(
                    "matrix literal without a constant shape",
                )));
            };
            let c = usize::try_from(c).unwrap_or(0);
            let r = usize::try_from(r).unwrap_or(0);
            hvcat(cx, b, &vec![c; r], xs)
        }
        _ => return None,
    })
}

/// `[a; b c]` of numbers, rows of different lengths: Julia's `hvcat((1, 2), a, b, c)`, whose
/// `ArgumentError` is raised at run time by `Base._hvcat_rows`.
fn ragged_numbers(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    lengths: &[usize],
    xs: &[Val],
) -> Result<Val, Fail> {
    let ints: Vec<Val> = lengths
        .iter()
        .map(|&n| Val::lit(zy_ir::Const::Int(n as i64)))
        .collect();
    let rows = cx.call_named(b, &"tuple".into(), &ints)?;
    let v = cx.call_named(b, &"vect".into(), xs)?;
    hvcat_rows(cx, b, &rows, &v)
}

/// `hvcat(rows, xs...)` of the numbers in the vector `xs` (splatted, or the arguments
/// gathered): the matrix of `length(rows)` rows of `rows[1]` elements each, row by row
/// (`Base._hvcat_rows`, with Julia's errors on a mismatched shape).
pub(crate) fn hvcat_rows(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    rows: &Val,
    xs: &Val,
) -> Result<Val, Fail> {
    match &xs.ty {
        Type::Array(e, 1) if e.is_number() => {
            cx.call_named(b, &"Base._hvcat_rows".into(), &[rows.clone(), xs.clone()])
        }
        t => Err(Fail::unsupported(format!(
            "`hvcat(rows, xs...)` of a {t}; splat a vector of numbers"
        ))),
    }
}

/// Whether `v` is one of the prelude's ranges (`a:b`, `a:s:b`, `range(...)`, `LinRange`) or a
/// lazy row or transpose (`x'`, `transpose(x)`, `A'`), which concatenation collects first.
fn is_collected(v: &Val) -> bool {
    // Matched by name only: a value of one has its type already (nothing to reach).
    let s = match &v.ty {
        Type::Adjoint(_) => return true,
        Type::Struct(s) => s,
        _ => return false,
    };
    matches!(
        s.name.strip_prefix("Base."),
        Some(
            "UnitRange"
                | "OneTo"
                | "StepRange"
                | "LinRange"
                | "StepRangeLen"
                | "Transpose"
                | "AdjointMatrix"
                | "TransposeMatrix"
        )
    )
}

/// The parts with each `UniformScaling` made the square matrix Julia's concatenation makes of
/// it, as tall as the first array among the parts (`d = 1`: a row of blocks, `hcat`) or as
/// wide (`d = 2`: `vcat`), by the prelude's `LinearAlgebra._uniform_block`.
fn sized_uniforms(cx: &mut Cx, b: &mut PlanBuilder, xs: &[Val], d: i64) -> Result<Vec<Val>, Fail> {
    if !xs.iter().any(super::is_uniform) {
        return Ok(xs.to_vec());
    }
    let Some(beside) = xs.iter().find(|x| matches!(x.ty, Type::Array(..))) else {
        return Err(Fail::unsupported(
            "concatenating `I` with no array beside it to give its size (Julia takes it from \
             the other block rows); write `Matrix(I, n, n)`",
        ));
    };
    let beside = beside.clone();
    xs.iter()
        .map(|x| match super::is_uniform(x) {
            true => cx.call_named(
                b,
                &"LinearAlgebra._uniform_block".into(),
                &[x.clone(), beside.clone(), Val::lit(zy_ir::Const::Int(d))],
            ),
            false => Ok(x.clone()),
        })
        .collect()
}

/// Are the parts Vectors of one element type that is not a number (vectors of vectors, of
/// tuples, of structs), which Julia's `vcat` joins into one Vector of their elements?
fn vectors_of_values(xs: &[Val]) -> bool {
    let Some(Type::Array(e, 1)) = xs.first().map(|x| &x.ty) else {
        return false;
    };
    let number = e.is_number() || super::is_rational_type(e) || super::is_complex_type(e);
    !number && xs.iter().all(|x| x.ty == xs[0].ty)
}

/// The parts must be numbers (rationals and complex numbers too), Vectors or Matrices of
/// numbers.
fn check_parts(xs: &[Val]) -> Result<(), Fail> {
    let number =
        |t: &Type| t.is_number() || super::is_rational_type(t) || super::is_complex_type(t);
    for x in xs {
        match &x.ty {
            t if number(t) => {}
            Type::Array(e, _) if number(e) => {}
            t => {
                return Err(Fail::unsupported(format!(
                    "concatenating a {t}; concatenate numbers, vectors and matrices, and keep \
                     other values together in a tuple `(a, b)`, instead"
                )))
            }
        }
    }
    Ok(())
}

/// The element type of `vcat` of Vectors of Julia's open abstract types (`vcat(Any[W],
/// Any[b])`, each zy's union of what it holds): their join, a `Vector{Any}` holding what each
/// part holds. `None` unless every part is such a Vector.
fn open_vectors(xs: &[Val]) -> Option<Type> {
    let elem = |x: &Val| match &x.ty {
        Type::Array(e, 1) if matches!(&**e, Type::Union(u) if crate::open::is_open(&u.name)) => {
            Some((**e).clone())
        }
        _ => None,
    };
    let (first, rest) = xs.split_first()?;
    rest.iter().try_fold(elem(first)?, |joined, x| {
        crate::open::join(&joined, &elem(x)?)
    })
}

/// `vcat` or `hcat` (`name`) of numbers, Vectors and Matrices with an array of Julia's open
/// abstract types among them (`vcat(zeros(Int, n)', A)` of `A = reshape([], 0, n)`, a
/// `Matrix{Any}`): Julia's element type is then their `promote_type`, that abstract type
/// (`Any` where it cannot hold a part's elements), each element keeping its own type. The
/// array of the open union of every part's element types, filled by the prelude's
/// `_vcat_open`, `_vcat_open_matrix` or `_hcat_open` from a prototype of that type. `None`
/// unless a part is such an array.
fn open_parts(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    name: &str,
    xs: &[Val],
) -> Option<Result<Val, Fail>> {
    let open = |t: &Type| match t {
        Type::Union(u) if crate::open::is_open(&u.name) => Some(u.name.clone()),
        _ => None,
    };
    let names: Vec<zy_ir::Name> = xs
        .iter()
        .filter_map(|x| match &x.ty {
            Type::Array(e, 1 | 2) => open(e),
            _ => None,
        })
        .collect();
    let widest = ["Any", "Number", "Real", "Integer"]
        .into_iter()
        .find(|n| names.iter().any(|m| &**m == *n))?;
    let mut held = Vec::with_capacity(xs.len());
    for x in xs {
        held.push(match &x.ty {
            Type::Array(e, 1 | 2) => (**e).clone(),
            t if t.is_number() => t.clone(),
            t => {
                return Some(Err(Fail::unsupported(format!(
                    "concatenating a {t} with an array of `{widest}`; concatenate numbers,                      vectors and matrices"
                ))))
            }
        });
    }
    let elem =
        crate::open::open_union(widest, &held).or_else(|| crate::open::open_union("Any", &held))?;
    let matrix = xs.iter().any(|x| matches!(x.ty, Type::Array(_, 2)));
    let helper = match name {
        "hcat" => "Base._hcat_open",
        _ if matrix => "Base._vcat_open_matrix",
        _ => "Base._vcat_open",
    };
    let empty: [Val; 0] = [];
    let proto = crate::value::apply(b, zy_ir::Prim::Vect, &empty, crate::value::array(elem, 1));
    let mut parts = vec![proto];
    parts.extend(xs.iter().cloned());
    Some(cx.call_named(b, &helper.into(), &parts))
}

/// `vcat(xs...)`: a Vector of numbers and Vectors, a Matrix when a part is one.
fn vcat(cx: &mut Cx, b: &mut PlanBuilder, xs: &[Val]) -> Result<Val, Fail> {
    if vectors_of_values(xs) {
        return cx.call_named(b, &"Base._vcat_vectors".into(), xs);
    }
    if let Some(elem) = open_vectors(xs) {
        // Appended in order to an empty Vector of the joined type.
        let empty: [Val; 0] = [];
        let out = crate::value::apply(b, zy_ir::Prim::Vect, &empty, crate::value::array(elem, 1));
        let mut parts = vec![out];
        parts.extend(xs.iter().cloned());
        return cx.call_named(b, &"Base._vcat_vectors".into(), &parts);
    }
    if let Some(v) = open_parts(cx, b, "vcat", xs) {
        return v;
    }
    check_parts(xs)?;
    if let Some(v) = along_nd(cx, b, 1, xs) {
        return v;
    }
    let matrix = xs.iter().any(|x| matches!(x.ty, Type::Array(_, 2)));
    let helper = if matrix {
        "Base._vcat_matrix"
    } else {
        "Base._vcat_vector"
    };
    cx.call_named(b, &helper.into(), xs)
}

/// `hcat(xs...)`: a Matrix, numbers as 1×1 and Vectors as columns.
fn hcat(cx: &mut Cx, b: &mut PlanBuilder, xs: &[Val]) -> Result<Val, Fail> {
    if let Some(v) = open_parts(cx, b, "hcat", xs) {
        return v;
    }
    check_parts(xs)?;
    if let Some(v) = along_nd(cx, b, 2, xs) {
        return v;
    }
    cx.call_named(b, &"Base._hcat".into(), xs)
}

/// `vcat`/`hcat` with a part of 3 dimensions: the prelude's `Base._cat_along(d, xs...)`, a
/// 3-dimensional array (`None` when every part has at most 2 dimensions).
fn along_nd(cx: &mut Cx, b: &mut PlanBuilder, d: i64, xs: &[Val]) -> Option<Result<Val, Fail>> {
    if !xs
        .iter()
        .any(|x| matches!(x.ty, Type::Array(_, n) if n >= 3))
    {
        return None;
    }
    if xs
        .iter()
        .any(|x| matches!(x.ty, Type::Array(_, n) if n > 3))
    {
        return Some(Err(Fail::unsupported(
            "concatenating arrays of more than 3 dimensions",
        )));
    }
    let mut args = vec![Val::lit(zy_ir::Const::Int(d))];
    args.extend(xs.iter().cloned());
    Some(cx.call_named(b, &"Base._cat_along".into(), &args))
}

/// The row lengths of the literal `[A; B C]`, lowered `hvcat((1, 2), ...)` with a constant
/// tuple; `None` for anything else.
pub(crate) fn row_lengths(rows: &Val) -> Option<Vec<usize>> {
    let Some(zy_ir::Const::Tuple(items)) = &rows.konst else {
        return None;
    };
    items
        .iter()
        .map(|c| match c {
            zy_ir::Const::Int(n) => usize::try_from(*n).ok(),
            _ => None,
        })
        .collect()
}

/// `[A B; C D]`, `[A; B C]`: the rows of blocks (`lengths[i]` blocks in row `i`), each `hcat`,
/// then stacked by the prelude's `Base._hvcat_stack`, which checks the widths as Julia does.
fn hvcat(cx: &mut Cx, b: &mut PlanBuilder, lengths: &[usize], xs: &[Val]) -> Result<Val, Fail> {
    if lengths.is_empty() || lengths.contains(&0) || lengths.iter().sum::<usize>() != xs.len() {
        return Err(Fail::method(format!(
            "ArgumentError: a block literal of rows {lengths:?} cannot hold {} parts",
            xs.len()
        )));
    }
    let mut block_rows = Vec::new();
    let mut rest = xs;
    for &n in lengths {
        let (row, after) = rest.split_at(n);
        rest = after;
        let row = sized_uniforms(cx, b, row, 1)?;
        check_parts(&row)?;
        block_rows.push(hcat(cx, b, &row)?);
    }
    match block_rows.as_slice() {
        [single] => Ok(single.clone()),
        _ => cx.call_named(b, &"Base._hvcat_stack".into(), &block_rows),
    }
}
