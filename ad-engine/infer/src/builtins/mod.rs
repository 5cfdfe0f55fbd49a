//! Builtin functions of the subset, resolved by name and operand types into primitives.

pub(crate) mod array;
pub(crate) mod concat;
mod copies;
pub(crate) mod data;
pub(crate) use data::empty_box;
pub(crate) use data::filled_open_vector;
pub(crate) use data::is_unbound_library;
pub(crate) use data::nested_elements;
pub(crate) mod diff;
mod exceptions;
pub(crate) use exceptions::exception_subtype;
pub(crate) mod fixed;
mod higher;
mod named;
pub(crate) use named::is_keyword_pairs;
mod scalar;
mod single;
pub(crate) mod strings;

use zy_ir::{Const, Name, Prim, Type};

use crate::calls::Cx;
use crate::error::{no_method, Fail};
use crate::pattern::Pat;
use crate::plan::{Arg, PlanBuilder};
use crate::value::Val;

/// Every builtin function name of the subset but the elementary functions of the primitive
/// table ([`is_math`]), including the names lowering uses for syntax (`getindex`, `vect`,
/// `range_length`, ...).
pub const BUILTINS: &[&str] = &[
    "invoke",
    "time",
    "time_ns",
    "_utc_offset",
    "+",
    "-",
    "*",
    "/",
    "÷",
    "%",
    "^",
    "literal_pow",
    "<",
    "<=",
    ">",
    ">=",
    "==",
    "!=",
    "!",
    "abs",
    "sign",
    "floor",
    "ceil",
    "round",
    "max",
    "min",
    "isa",
    "the_exception",
    "rethrow",
    "throw",
    "exception_text",
    "exception_new",
    "repr",
    "values",
    "Tuple",
    "NamedTuple",
    "merge",
    "haskey",
    "keys",
    "getproperty",
    "_rename",
    "typeof",
    "eltype",
    "fieldtypes",
    "fieldnames",
    "supertype",
    "isabstracttype",
    "isconcretetype",
    "_apply_type",
    "<:",
    "copysign",
    "fma",
    "polygamma",
    "besselj",
    "besseljx",
    "bessely",
    "besselyx",
    "besseli",
    "besselix",
    "besselk",
    "besselkx",
    "_gamma_inc_p",
    "_gamma_inc_q",
    "_log_upper_gamma",
    "_beta_inc",
    "_zeta",
    "and_int",
    "or_int",
    "xor_int",
    "hash_int",
    "hash_float",
    "shl_int",
    "ashr_int",
    "lshr_int",
    "===",
    "isnothing",
    "float",
    "Float64",
    "Float32",
    "Int",
    "Int64",
    "Int8",
    "Int16",
    "Int32",
    "UInt8",
    "UInt16",
    "UInt32",
    "UInt64",
    "UInt",
    "Int128",
    "UInt128",
    "Bool",
    "zero",
    "one",
    "zeros",
    "ones",
    "fill",
    "copy",
    "similar",
    "length",
    "size",
    "first",
    "last",
    "sum",
    "prod",
    "maximum",
    "minimum",
    "dot",
    "det",
    "logdet",
    "inv",
    "\\",
    "_solve_square",
    "cholesky_lower",
    "_eigvals_general",
    "_eigen_general",
    "_hessenberg",
    "_schur",
    "tril",
    "triu",
    "transpose",
    "adjoint",
    "_transpose_copy",
    "Matrix",
    "Vector",
    "Array",
    "tuple",
    "namedtuple",
    "getindex",
    "setindex!",
    "setlength!",
    "slice_copy",
    "getfield",
    "setfield!",
    "Ref",
    "_box",
    "_box_init!",
    "_box_set!",
    "vect",
    "_typejoin_vect",
    "hvcat",
    "_deepcopy_fields",
    "_realias",
    "vcat",
    "hcat",
    "error",
    "undef",
    "isdefined_local",
    zy_ir::ISDEFINED_GLOBAL,
    "isdefined",
    "undef_objects",
    "range_length",
    "_end_index",
    "loop_range",
    "loop_elem",
    "float_range",
    "float_range_op",
    "map",
    "_map_each",
    "_open_pair",
    "_narrow_eltype",
    "_widen_results",
    "ntuple",
    "broadcast",
    "gradient",
    "derivative",
    "hessian",
    "pullback",
    "checkpointed",
    "pushforward",
    "jvp",
    "hvp",
    "NoTangent",
];

/// The prelude's `LinearAlgebra.UniformScaling` (`I`, `λ * I`).
const UNIFORM_SCALING: &str = "LinearAlgebra.UniformScaling";

fn is_uniform(v: &Val) -> bool {
    matches!(&v.ty, Type::Struct(s) if &*s.name == UNIFORM_SCALING)
}

/// `A + I`, `A - λ * I`, `λ * I`: arithmetic with the library's `UniformScaling` is Julia code
/// in the prelude (`LinearAlgebra._uniform_plus`, `_uniform_minus`, `_uniform_times`), as
/// Julia gives `+` methods for it; operators cannot be given methods in zy's Julia yet.
fn uniform_scaling(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    op: &str,
    x: &Val,
    y: &Val,
) -> Result<Val, Fail> {
    let helper = match op {
        "+" => "LinearAlgebra._uniform_plus",
        "-" => "LinearAlgebra._uniform_minus",
        _ => "LinearAlgebra._uniform_times",
    };
    cx.call_named(b, &helper.into(), &[x.clone(), y.clone()])
}

/// Is `v` one of the prelude's complex numbers (`Base.Complex{T}`)?
fn is_complex(v: &Val) -> bool {
    is_complex_type(&v.ty)
}

/// Whether `t` is the prelude's `Base.Complex`.
pub(super) fn is_complex_type(t: &Type) -> bool {
    matches!(t, Type::Struct(s) if &*s.name == "Base.Complex")
}

/// Is `v` one of the prelude's rational numbers?
pub(super) fn is_rational(v: &Val) -> bool {
    is_rational_type(&v.ty)
}

/// Whether `t` is the prelude's `Base.Rational`.
pub(super) fn is_rational_type(t: &Type) -> bool {
    matches!(t, Type::Struct(s) if &*s.name == "Base.Rational")
}

/// `Int(x)` and `Symbol(x)` of an `@enum` value: its number and its name (Julia's
/// `Int(x::Enum)`, `Symbol(x::Enum)`), by the prelude.
fn enum_conversion(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    name: &str,
    args: &[Val],
) -> Option<Result<Val, Fail>> {
    let [x] = args else { return None };
    let is_enum = matches!(&x.ty, Type::Struct(s) if cx.program.structs.get(&s.name)
        .is_some_and(|d| crate::dispatch::is_below(cx.program, d, "Base.Enum")));
    let f = match name {
        "Int" | "Int64" if is_enum => "Base._enum_int",
        "Symbol" if is_enum => "Base._enum_symbol",
        _ => return None,
    };
    Some(cx.call_named(b, &f.into(), args))
}

/// Whether `t` is the prelude's `Base.Char`.
pub(super) fn is_char_type(t: &Type) -> bool {
    matches!(t, Type::Struct(s) if &*s.name == "Base.Char")
}

/// `[1//3 1; -1//3 1]`, `[1//2 3]`: a matrix literal of numbers mixing rationals with other
/// numbers, its elements promoted first as Julia's `hvcat` promotes them (beside a Float64 to
/// Float64s, else to rationals).
fn rational_literal(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    name: &str,
    args: &[Val],
) -> Option<Result<Val, Fail>> {
    let shape = literal_shape(name, args, false)?;
    let elems = args.get(shape..)?;
    if !mixes_rational(elems) {
        return None;
    }
    let to: Name = if elems.iter().any(|e| e.ty == Type::Float64) {
        "Base.float".into()
    } else {
        "Base.Rational".into()
    };
    recall_converted(cx, b, name, args, shape, |cx, b, e| {
        cx.call_named(b, &to, std::slice::from_ref(e))
    })
}

/// How many arguments of the array literal's call `name(args...)` give its shape (`hvcat`'s
/// row and column counts: 2; the row lengths of `[a; b c]`: 1), before its elements; `None` for
/// a call that is no literal (`vect` only where `vect` counts).
fn literal_shape(name: &str, args: &[Val], vect: bool) -> Option<usize> {
    match name {
        "hvcat" if args.first().and_then(concat::row_lengths).is_some() => Some(1),
        "hvcat" => Some(2),
        "hcat" => Some(0),
        "vect" if vect => Some(0),
        _ => None,
    }
}

/// The array literal `name(args...)` called again with its elements (after `shape` leading
/// arguments) each converted by `convert`, as Julia promotes them before building the array.
fn recall_converted(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    name: &str,
    args: &[Val],
    shape: usize,
    mut convert: impl FnMut(&mut Cx, &mut PlanBuilder, &Val) -> Result<Val, Fail>,
) -> Option<Result<Val, Fail>> {
    let mut promoted = args[..shape].to_vec();
    for e in &args[shape..] {
        match convert(cx, b, e) {
            Ok(v) => promoted.push(v),
            Err(e) => return Some(Err(e)),
        }
    }
    call(cx, b, name, &promoted)
}

/// `[1.0+2im 3.0; 0 4]`, `[1 2im]`, `[1.0, 2im]`: an array literal of numbers mixing complex
/// numbers with real ones (or with complex numbers of other part types), its elements
/// converted first to the type Julia's `vect`/`hvcat` promote them to (the prelude's
/// `Base._complex_proto` of the elements, a zero of that type, and `Base._complex_convert`).
fn complex_literal(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    name: &str,
    args: &[Val],
) -> Option<Result<Val, Fail>> {
    let shape = literal_shape(name, args, true)?;
    let elems = args.get(shape..)?;
    if !mixes_complex(elems) {
        return complex_matrix(cx, b, name, args);
    }
    let proto = match cx.call_named(b, &"Base._complex_proto".into(), elems) {
        Ok(proto) => proto,
        Err(e) => return Some(Err(e)),
    };
    recall_converted(cx, b, name, args, shape, |cx, b, e| {
        let pair = [proto.clone(), e.clone()];
        cx.call_named(b, &"Base._complex_convert".into(), &pair)
    })
}

/// `[a b; c d]` of complex numbers of one type: the prelude's `Base._hvcat_matrix(rows, cols,
/// [a, b, c, d])`, a comprehension over the vector of the elements, which the AD
/// differentiates (the `hvcat` primitive has no rule for elements that are structs).
fn complex_matrix(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    name: &str,
    args: &[Val],
) -> Option<Result<Val, Fail>> {
    let ("hvcat", [rows, cols, elems @ ..]) = (name, args) else {
        return None;
    };
    let cells = rows.int()?.checked_mul(cols.int()?)?;
    if !elems.iter().all(is_complex) || usize::try_from(cells).ok()? != elems.len() {
        return None;
    }
    Some(cx.call_named(b, &"vect".into(), elems).and_then(|xs| {
        cx.call_named(
            b,
            &"Base._hvcat_matrix".into(),
            &[rows.clone(), cols.clone(), xs],
        )
    }))
}

/// `x[i] = v` of a number into an array of rationals, or of a rational into a Float64 array:
/// `v` converted first, as Julia's `convert` does, by the prelude (`Rational(v)`, exact for a
/// Float64; `Float64(v)`). Into an array of complex numbers, `v` of another type or a matrix
/// written at `[i, j]`: the prelude's `Base._complex_setindex!`, which converts `v` and writes
/// by linear index (the AD's writes into arrays of structs are linear).
fn converting_store(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    name: &str,
    args: &[Val],
) -> Option<Result<Val, Fail>> {
    let ("setindex!", [x, v, idx @ ..]) = (name, args) else {
        return None;
    };
    let Type::Array(e, _) = &x.ty else {
        return None;
    };
    let into_rational = is_rational_type(e);
    let convert = if into_rational && v.ty.is_number() {
        "Base.Rational"
    } else if **e == Type::Float64 && is_rational(v) {
        "Base._rational_float"
    } else if is_complex_type(e)
        && (is_complex(v) || v.ty.is_number())
        && (v.ty != **e || idx.len() == 2)
    {
        return Some(cx.call_named(b, &"Base._complex_setindex!".into(), args));
    } else {
        return None;
    };
    let converted = match cx.call_named(b, &convert.into(), std::slice::from_ref(v)) {
        Ok(c) => c,
        Err(e) => return Some(Err(e)),
    };
    let mut args = vec![x.clone(), converted];
    args.extend(idx.iter().cloned());
    data::call(b, name, &args)
}

/// Does an array literal's `elems` mix complex numbers with real ones or with complex numbers
/// of other part types (`[1.0, 2im]`), which Julia promotes to one complex type?
fn mixes_complex(elems: &[Val]) -> bool {
    elems.iter().any(is_complex)
        && elems.iter().all(|e| is_complex(e) || e.ty.is_number())
        && elems.iter().any(|e| e.ty != elems[0].ty)
}

/// Does an array literal mix rationals with other numbers (`[1, 1//2]`, `[1.0, 1//2]`), which
/// Julia's `vect` promotes?
fn mixes_rational(elems: &[Val]) -> bool {
    elems.iter().any(is_rational)
        && elems.iter().all(|e| is_rational(e) || e.ty.is_number())
        && elems.iter().any(|e| e.ty != elems[0].ty)
}

/// The prelude's `LinearAlgebra.Diagonal` (`Diagonal(v)`).
const DIAGONAL: &str = "LinearAlgebra.Diagonal";

fn is_diagonal(v: &Val) -> bool {
    matches!(&v.ty, Type::Struct(s) if &*s.name == DIAGONAL)
}

/// Is `v` one of LinearAlgebra's `Q` operators (`hessenberg(A).Q`, its adjoint)?
fn is_q(v: &Val) -> bool {
    matches!(&v.ty, Type::Struct(s)
        if matches!(&*s.name, "LinearAlgebra.HessenbergQ" | "LinearAlgebra.AdjointQ"))
}

/// `D * x`, `A + D`, `λ * D`, `Matrix(D)`: as for [`uniform_scaling`], Julia code in the
/// prelude (`LinearAlgebra._diagonal_plus`, `_diagonal_minus`, `_diagonal_times`,
/// `_diagonal_matrix`).
fn diagonal(cx: &mut Cx, b: &mut PlanBuilder, op: &str, args: &[Val]) -> Result<Val, Fail> {
    let helper = match op {
        "+" => "LinearAlgebra._diagonal_plus",
        "-" => "LinearAlgebra._diagonal_minus",
        "*" => "LinearAlgebra._diagonal_times",
        _ => "LinearAlgebra._diagonal_matrix",
    };
    cx.call_named(b, &helper.into(), args)
}

/// The prelude's triangular wrappers (`UpperTriangular(A)`, ...).
const TRIANGULAR: [&str; 4] = [
    "LinearAlgebra.UpperTriangular",
    "LinearAlgebra.LowerTriangular",
    "LinearAlgebra.UnitUpperTriangular",
    "LinearAlgebra.UnitLowerTriangular",
];

fn is_triangular(v: &Val) -> bool {
    matches!(&v.ty, Type::Struct(s) if TRIANGULAR.contains(&&*s.name))
}

/// `T * x`, `T + S`, `a * T`, `Matrix(T)` of a triangular wrapper: as for [`diagonal`], Julia
/// code in the prelude (`LinearAlgebra._triangular_plus`, `_triangular_minus`,
/// `_triangular_times`, `_triangular_matrix`).
fn triangular(cx: &mut Cx, b: &mut PlanBuilder, op: &str, args: &[Val]) -> Result<Val, Fail> {
    let helper = match op {
        "+" => "LinearAlgebra._triangular_plus",
        "-" => "LinearAlgebra._triangular_minus",
        "*" => "LinearAlgebra._triangular_times",
        _ => "LinearAlgebra._triangular_matrix",
    };
    cx.call_named(b, &helper.into(), args)
}

/// Is `name` an elementary function of the primitive table (`Float64` in and out)?
pub fn is_math(name: &str) -> bool {
    zy_ir::Prim::from_julia_name(name).is_some_and(|p| p.math().is_some())
}

/// The prelude's Float64 range (`a:s:b` with a Float64 among them).
const FLOAT_RANGE: &str = "Base.StepRangeLen";

/// The helpers of a counted `for` loop over `a:s:b` (see lowering's `for_loop`):
/// `loop_range(a, s, b)` is `a` itself when the ends are Ints (the loop counts with Int
/// arithmetic, `loop_elem(a, k[, s])` being `a + k * s`), else Julia's range `a:s:b` (the
/// prelude's `_loop_range`: a Float64 range, a `StepRange{Char, Int64}` of `'a':'z'`, or the
/// `CartesianIndices` of `I:J`), whose length and elements the prelude gives (`_loop_length`,
/// `_loop_elem`: `r[k + 1]`), so `for t in 0.0:0.1:1.0` sees Julia's elements.
fn counted_loop(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    name: &str,
    args: &[Val],
) -> Option<Result<Val, Fail>> {
    let ranges = [FLOAT_RANGE, "Base.StepRange", "Base.CartesianIndices"];
    let is_range = |v: &Val| matches!(&v.ty, Type::Struct(s) if ranges.contains(&&*s.name));
    let helper =
        |cx: &mut Cx, b: &mut PlanBuilder, f: &str, args: &[Val]| cx.call_named(b, &f.into(), args);
    Some(match (name, args) {
        ("loop_range", [a, s, stop]) => {
            // A Bool among Ints promotes to an Int (`1:true` is `1:1`); a value no range
            // holds (an entry of a `Dict{Symbol, Any}` that may be `nothing` or a string) is
            // Julia's `MethodError` when it is met.
            let ints = |v: &&Val| matches!(v.ty, Type::Int64 | Type::Bool);
            let no_end = |v: &&Val| {
                matches!(
                    v.ty,
                    Type::Nothing
                        | Type::String
                        | Type::Symbol(_)
                        | Type::Tuple(_)
                        | Type::Array(..)
                )
            };
            if [a, s, stop].iter().all(ints) {
                crate::value::convert(b, a.clone(), &Type::Int64)
            } else if [a, s, stop].iter().any(no_end) {
                Err(no_method(":", &crate::value::types(args)))
            } else {
                helper(cx, b, "Base._loop_range", args)
            }
        }
        ("range_length", [r, _, _]) if is_range(r) => {
            helper(cx, b, "Base._loop_length", std::slice::from_ref(r))
        }
        ("loop_elem", [r, k, ..]) if is_range(r) => {
            helper(cx, b, "Base._loop_elem", &[r.clone(), k.clone()])
        }
        ("loop_elem", [a, k]) => helper(cx, b, "+", &[a.clone(), k.clone()]),
        ("loop_elem", [a, k, s]) => helper(cx, b, "*", &[k.clone(), s.clone()])
            .and_then(|offset| helper(cx, b, "+", &[a.clone(), offset])),
        ("loop_range" | "loop_elem", _) => Err(no_method(name, &crate::value::types(&args))),
        _ => return None,
    })
}

/// Type a call of the builtin `name`; `None` if there is no such builtin.
pub(crate) fn call(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    name: &str,
    args: &[Val],
) -> Option<Result<Val, Fail>> {
    if name == "invoke" {
        return Some(match args {
            [f, sig, rest @ ..] => cx.call_invoked(b, f, sig, rest),
            _ => Err(no_method(name, &crate::value::types(args))),
        });
    }
    // The clocks: `time()` in seconds, `time_ns()` a `UInt64` of nanoseconds.
    if let ("time" | "time_ns", []) = (name, args) {
        let (p, ty) = match name {
            "time" => (Prim::Time, Type::Float64),
            _ => (Prim::TimeNs, Type::Int(zy_ir::IntKind::UInt64)),
        };
        return Some(Ok(Val::of(b.prim(p, Vec::new(), ty.clone()), ty)));
    }
    // The local time zone's offset at a time in seconds (`Dates.now()`'s).
    if name == "_utc_offset" {
        return Some(match args {
            [t] if t.ty == Type::Int64 => {
                let offset = b.prim(Prim::UtcOffset, vec![t.arg.clone()], Type::Int64);
                Ok(Val::of(offset, Type::Int64))
            }
            _ => Err(no_method(name, &crate::value::types(args))),
        });
    }
    if let Some(r) = enum_conversion(cx, b, name, args) {
        return Some(r);
    }
    if let Some(r) = single::call(b, name, args) {
        return Some(r);
    }
    if let Some(r) = fixed::call(b, name, args) {
        return Some(r);
    }
    if let Some(r) = fixed::indices(cx, b, name, args) {
        return Some(r);
    }
    if let Some(r) = rational_literal(cx, b, name, args) {
        return Some(r);
    }
    if let Some(r) = complex_literal(cx, b, name, args) {
        return Some(r);
    }
    if let Some(r) = concat::call(cx, b, name, args) {
        return Some(r);
    }
    if let Some(r) = copies::call(cx, b, name, args) {
        return Some(r);
    }
    if let Some(r) = counted_loop(cx, b, name, args) {
        return Some(r);
    }
    if let Some(r) = data::typed_vect(cx, b, name, args) {
        return Some(r);
    }
    if let Some(r) = data::abstract_vect(cx, b, name, args) {
        return Some(r);
    }
    if let Some(r) = data::undef_objects(cx, b, name, args) {
        return Some(r);
    }
    if let Some(refusal) = data::typed_literal(cx, name, args) {
        return Some(Err(refusal));
    }
    if name == "vect" && mixes_rational(args) {
        return Some(cx.call_named(b, &"Base._rational_vect".into(), args));
    }
    if let Some(r) = converting_store(cx, b, name, args) {
        return Some(r);
    }
    if let Some(r) = exceptions::call(cx, b, name, args) {
        return Some(r);
    }
    // `end` in `x[end]` (lowering's): `lastindex(s)` of a string (its last character's byte
    // index), `length(x)` of anything else (a tuple's a constant).
    if name == "_end_index" {
        let last = match args {
            [x] if x.ty.is_string() => "Base.lastindex",
            _ => "Base.length",
        };
        return Some(cx.call_named(b, &last.into(), args));
    }
    // `String(v)` of a `Vector{Char}`: the prelude's.
    if let ("String", [v]) = (name, args) {
        if matches!(&v.ty, Type::Array(e, 1) if is_char_type(e)) {
            return Some(cx.call_named(b, &"Base._string_chars".into(), args));
        }
    }
    if let Some(r) = strings::call(b, name, args) {
        return Some(r);
    }
    if let Some(error) = data::const_field(cx, name, args) {
        return Some(Err(error));
    }
    if let Some(refusal) = data::retyped_field(cx, name, args) {
        return Some(Err(refusal));
    }
    if let Some(r) = data::checked_field(cx, b, name, args) {
        return Some(r);
    }
    if let Some(r) = data::is_defined(cx, b, name, args) {
        return Some(r);
    }
    if let Some(r) = higher::runtime_literal(cx, b, name, args) {
        return Some(r);
    }
    if let Some(r) = data::call(b, name, args) {
        return Some(r);
    }
    if let Some(r) = named::call(b, name, args) {
        return Some(r);
    }
    if let Some(r) = diff::call(cx, b, name, args) {
        return Some(r);
    }
    if let Some(r) = higher::call(cx, b, name, args) {
        return Some(r);
    }
    let is_array = |v: &Val| matches!(v.ty, Type::Array(..) | Type::Adjoint(_));
    Some(match (name, args) {
        // `+(a, b, c, ...)`, `*(a, b, c, ...)`: Julia's left fold `(a + b) + c`.
        ("+" | "*", [x, y, rest @ ..]) if !rest.is_empty() => {
            let first = cx.call_named(b, &name.into(), &[x.clone(), y.clone()]);
            first.and_then(|xy| {
                let mut more = vec![xy];
                more.extend_from_slice(rest);
                cx.call_named(b, &name.into(), &more)
            })
        }
        ("+" | "-" | "*", [x, y]) if is_uniform(x) || is_uniform(y) => {
            uniform_scaling(cx, b, name, x, y)
        }
        ("+" | "-" | "*", [x, y]) if is_diagonal(x) || is_diagonal(y) => {
            diagonal(cx, b, name, args)
        }
        ("Matrix", [x]) if is_diagonal(x) => diagonal(cx, b, name, args),
        ("+" | "-" | "*", [x, y]) if is_triangular(x) || is_triangular(y) => {
            triangular(cx, b, name, args)
        }
        ("Matrix", [x]) if is_triangular(x) => triangular(cx, b, name, args),
        // `Matrix(Q)` of LinearAlgebra's `Q` operators: the prelude's `_q_matrix`.
        ("Matrix", [x]) if is_q(x) => cx.call_named(b, &"LinearAlgebra._q_matrix".into(), args),
        // `Matrix(I, m, n)`, `Matrix(I, (m, n))`: the prelude's `_uniform_matrix` (`J.λ` on
        // the diagonal).
        ("Matrix", [j, _, _] | [j, _]) if is_uniform(j) => {
            cx.call_named(b, &"Base._uniform_matrix".into(), args)
        }
        ("Matrix", [x]) if matches!(&x.ty, Type::Array(_, 2)) => array::call(b, "copy", args),
        // `Matrix(x')` of a row: the 1×n matrix `collect` makes.
        ("Matrix", [x]) if matches!(&x.ty, Type::Adjoint(_)) => {
            cx.call_named(b, &"Base.collect".into(), args)
        }
        ("Matrix", _) => Err(no_method(
            name,
            &crate::value::types(&args),
        )),
        // `Vector(x)` of a vector or range, `Array(A)` of an array or range: Julia's
        // `Array{T, N}(A)`, a new array of its elements.
        ("Vector", [x]) if matches!(&x.ty, Type::Array(_, 1)) => array::call(b, "copy", args),
        ("Array", [x]) if matches!(&x.ty, Type::Array(..)) => array::call(b, "copy", args),
        ("Vector" | "Array", [x]) if crate::calls::is_range(&x.ty) => {
            cx.call_named(b, &"Base.collect".into(), args)
        }
        ("Vector" | "Array", _) => Err(no_method(name, &crate::value::types(&args))),
        // `A / B` of matrices, `x' / B` of a row: Julia's right division (the `X` with
        // `X * B == A`), Julia code in the prelude (`LinearAlgebra._rdiv`).
        ("/", [x, y])
            if matches!(y.ty, Type::Array(_, 2))
                && matches!(x.ty, Type::Array(_, 2) | Type::Adjoint(_)) =>
        {
            cx.call_named(b, &"LinearAlgebra._rdiv".into(), args)
        }
        ("+" | "-" | "*" | "/" | "÷" | "%" | "^", [x, y]) if is_array(x) || is_array(y) => {
            array::arith(cx, b, name, x, y)
        }
        ("==" | "!=", [x, y]) if is_nothing_or_int(x) || is_nothing_or_int(y) => {
            prelude_equality(cx, b, "Base._union_equal", name, x, y)
        }
        ("==" | "!=", [x, y]) if is_array(x) && is_array(y) => {
            prelude_equality(cx, b, "Base._array_equal", name, x, y)
        }
        // Tuples that may hold `missing`: Julia's three-valued `==`.
        ("==" | "!=", [x, y])
            if is_tuple(x) && is_tuple(y) && (may_miss(&x.ty) || may_miss(&y.ty)) =>
        {
            prelude_equality(cx, b, "Base._tuple_equal", name, x, y)
        }
        ("==" | "!=", [x, y]) if is_tuple(x) && is_tuple(y) => tuple_equality(cx, b, name, x, y),
        // Named tuples: the same names in the same order, and `==` values.
        (
            "==" | "!=",
            [x @ Val {
                ty: Type::NamedTuple(xs),
                ..
            }, y @ Val {
                ty: Type::NamedTuple(ys),
                ..
            }],
        ) => {
            if !xs.iter().map(|(n, _)| n).eq(ys.iter().map(|(n, _)| n)) {
                return Some(Ok(Val::lit(Const::Bool(name != "=="))));
            }
            let (xv, yv) = (named::values(b, x), named::values(b, y));
            if may_miss(&xv.ty) || may_miss(&yv.ty) {
                return Some(prelude_equality(cx, b, "Base._tuple_equal", name, &xv, &yv));
            }
            tuple_equality(cx, b, name, &xv, &yv)
        }
        (
            "==" | "!=",
            [Val {
                ty: Type::Function(f),
                ..
            }, Val {
                ty: Type::Function(g),
                ..
            }],
        ) if is_union_text(f) || is_union_text(g) => union_equality(cx, name, f, g),
        // Julia's `==(x::Number, y::Number) = ==(promote(x, y)...)`: one of the program's
        // number types beside another number (`r == 1`) compares after promotion.
        ("==", [x, y]) if x.ty != y.ty && cx.mixes_user_number(x, y) => cx
            .number_fallback(b, &name.into(), name, args)
            .unwrap_or_else(|| scalar::equality(name, x, y)),
        // `a != b` of a struct (or a `Ref`) is `!(a == b)`, with the program's `==` where it
        // has one.
        ("!=", [x, y]) if is_struct(x) || is_struct(y) || has_identity(x) => cx
            .call_named(b, &"Base.==".into(), args)
            .and_then(|eq| negated(b, eq)),
        // Julia's fallback `a == b` is `a === b`: of two immutable structs, every field egal.
        ("==", [x, y]) if same_immutable_struct(x, y) => struct_egal(cx, b, x, y),
        // Of two mutable structs (or `Ref`s), `===` is their identity.
        ("==", [x, y]) if has_identity(x) && x.ty == y.ty => Ok(identical(b, x, y)),
        ("==" | "!=", [x, y]) if !(x.ty.is_number() && y.ty.is_number()) => {
            scalar::equality(name, x, y)
        }
        (
            "+" | "-" | "*" | "/" | "÷" | "%" | "^" | "<" | "<=" | ">" | ">=" | "==" | "!=",
            [x, y],
        ) => scalar::binary(b, name, x, y),
        ("literal_pow", [x, _]) if is_complex(x) || is_rational(x) => {
            cx.call_named(b, &"Base._literal_pow".into(), args)
        }
        ("literal_pow", [x, p]) if !is_array(x) => scalar::literal_pow(b, x, p),
        // `A^-1` of a matrix is Julia's generic `literal_pow`, the call `A ^ -1` (LinearAlgebra's
        // `inv(A)` by squaring).
        ("literal_pow", [x, p]) => cx.call_named(b, &"Base.^".into(), &[x.clone(), p.clone()]),
        ("literal_pow", _) => Err(no_method(
            name,
            &crate::value::types(&args),
        )),
        ("-" | "+", [x]) if is_array(x) => array::unary(cx, b, name, x),
        ("-" | "+" | "!", [x]) => scalar::unary(b, name, x),
        // `==(x)`, `>(0)`: Base's `Fix2(op, x)`, the function `y -> op(y, x)`.
        ("==" | "!=" | "<" | "<=" | ">" | ">=", [x]) => {
            let op = Val::lit(zy_ir::Const::Func(name.into()));
            cx.call_named(b, &"Base.Fix2".into(), &[op, x.clone()])
        }
        (n, _) if is_math(n) => scalar::math(b, name, args),
        ("abs" | "sign" | "floor" | "ceil" | "round", _) => scalar::keep_type(b, name, args),
        ("max" | "min", _) => scalar::min_max(b, name, args),
        ("polygamma", _) => scalar::polygamma(b, args),
        (
            "besselj" | "besseljx" | "bessely" | "besselyx" | "besseli" | "besselix" | "besselk"
            | "besselkx",
            _,
        ) => scalar::bessel(b, name, args),
        ("_gamma_inc_p" | "_gamma_inc_q" | "_log_upper_gamma" | "_beta_inc" | "_zeta", _) => {
            scalar::incomplete(b, name, args)
        }
        ("isa", [x, t]) if is_nothing_or_int(x) => union_isa(cx, b, x, t),
        ("isa", _) => isa(cx, args),
        (
            "<:",
            [Val {
                ty: Type::Function(a),
                ..
            }, Val {
                ty: Type::Function(b),
                ..
            }],
        ) => crate::type_values::is_subtype(a, b, cx.program).map(|s| Val::lit(Const::Bool(s))),
        // Julia's `SubArray{T, N, P, I, L}` names index types zy's view does not keep.
        ("typeof", [x]) if holds_view(&x.ty) => {
            Err(Fail::unsupported(
                "the type of a view (Julia's `SubArray{T, N, P, I, L}`) or of a wrapper of one as a value; test `x isa SubArray` or `x isa AbstractVector` instead",
            ))
        }
        ("typeof", [x]) => match type_of_type(&x.ty, cx.program) {
            Some(kind) => Ok(Val::lit(Const::Func(kind.into()))),
            None => crate::type_values::value_name(&julia_array_type(&x.ty))
                .map(|n| Val::lit(Const::Func(n))),
        },
        ("eltype", [t]) => type_eltype(cx, b, t),
        ("fieldtypes", [t]) => type_fieldtypes(cx, b, t),
        ("fieldnames", [t]) => type_fieldnames(cx, b, t),
        ("_apply_type", _) => apply_type(cx, args),
        ("supertype", [t]) => type_supertype(cx, t),
        ("isabstracttype" | "isconcretetype", [t]) => type_kind(cx, name, t),
        // Julia's `<:` is a builtin checking that both operands are types.
        ("<:", [_, _]) => match args.iter().find(|a| !matches!(a.ty, Type::Function(_))) {
            Some(value) => {
                let message = format!(
                    "in <:, expected Type, got a value of type {}",
                    crate::error::visible(&value.ty.to_string())
                );
                let parts = vec![
                    Arg::Const(Const::Symbol("TypeError".into())),
                    Arg::Const(Const::Str(message.into())),
                ];
                Ok(Val::of(b.prim(Prim::Error, parts, Type::Bottom), Type::Bottom))
            }
            None => Err(no_method(name, &crate::value::types(&args))),
        },
        (
            "typeof" | "eltype" | "fieldtypes" | "fieldnames" | "supertype" | "<:" | "isabstracttype"
            | "isconcretetype",
            _,
        ) => Err(no_method(
            name,
            &crate::value::types(&args),
        )),
        ("copysign", _) => scalar::copysign(b, args),
        ("fma", _) => scalar::fma(b, args),
        ("and_int" | "or_int" | "xor_int" | "shl_int" | "ashr_int" | "lshr_int", _) => {
            scalar::int_bits(b, name, args)
        }
        ("hash_int" | "hash_float", _) => scalar::hash(b, name, args),
        ("===", [x, y]) if same_immutable_struct(x, y) => struct_egal(cx, b, x, y),
        ("===", [x, y]) if has_identity(x) && x.ty == y.ty => Ok(identical(b, x, y)),
        ("===", [x, y]) if matches!(x.ty, Type::Array(..)) && x.ty == y.ty => {
            Ok(same_object(b, x, y))
        }
        ("===", [x, y]) => scalar::egal(x, y),
        ("isnothing", [x]) => Ok(Val::lit(zy_ir::Const::Bool(x.ty == Type::Nothing))),
        ("===" | "isnothing", _) => Err(no_method(
            name,
            &crate::value::types(&args),
        )),
        // Of a rational, the prelude's conversions (Julia's `Float64(x::Rational)`, `Int(x)`).
        ("float" | "Float64", [x]) if is_rational(x) => {
            cx.call_named(b, &"Base._rational_float".into(), args)
        }
        ("Int" | "Int64", [x]) if is_rational(x) => {
            cx.call_named(b, &"Base._rational_int".into(), args)
        }
        // Of a character, its code point (Julia's `Int(c::Char)`).
        ("Int" | "Int64", [x]) if is_char_type(&x.ty) => {
            cx.call_named(b, &"Base._char_int".into(), args)
        }
        ("float" | "Float64" | "Int" | "Int64", _) => scalar::conversion(b, name, args),
        // `Bool(x)`: `x` itself for a Bool; of another number, the prelude's `Base._bool`
        // (Julia's `Bool(x::Real)`, an `InexactError` unless `x` is 0 or 1).
        ("Bool", [x]) if x.ty == Type::Bool => Ok(x.clone()),
        ("Bool", [x]) if x.ty.is_number() || matches!(x.ty, Type::Float32 | Type::Int(_)) => {
            cx.call_named(b, &"Base._bool".into(), args)
        }
        ("Bool", _) => Err(no_method(
            name,
            &crate::value::types(&args),
        )),
        ("zero" | "one", _) => scalar::zero_one(b, name, args),
        // `fill(missing, n)`: Julia's `Vector{Missing}`, which holds nothing else.
        ("fill", [v, ..]) if v.ty.is_missing() || v.ty == Type::Nothing => {
            Err(Fail::unsupported(format!(
                "`fill({0}, n)` (Julia's array of {1} alone, `Vector{{{1}}}`): zy's arrays hold \
                 numbers, arrays, structs and tuples; for slots to set later write \
                 `Vector{{Union{{{1}, Float64}}}}({0}, n)`",
                if v.ty == Type::Nothing { "nothing" } else { "missing" },
                v.ty
            )))
        }
        // `fill(v, n)`, `fill(v, m, n)` of a value that is not a number (a tuple, a struct, an
        // array): the prelude's `Base._fill_any`, every element the one `v` (Julia's aliasing).
        ("fill", [v, dims @ ..])
            if !v.ty.is_number()
                && (1..=2).contains(&dims.len())
                && dims.iter().all(|d| d.ty == Type::Int64) =>
        {
            cx.call_named(b, &"Base._fill_any".into(), args)
        }
        ("zeros" | "ones" | "fill", _) if of_three_dims(name, args) => Err(Fail::unsupported(
            format!("`{name}` of more than {} dimensions", zy_ir::MAX_DIMS),
        )),
        // Of an array of Float32s or fixed-width integers: the prelude's fold from the zero or
        // one of Julia's `add_sum`/`mul_prod` type (a small integer's Int64 or UInt64).
        ("sum" | "prod" | "maximum" | "minimum", [x]) if sized_element(x).is_some() => {
            let e = sized_element(x).unwrap_or(Type::Float32);
            let acc = match e {
                Type::Int(k) if k.signed() => Type::Int64,
                Type::Int(_) => Type::Int(zy_ir::IntKind::UInt64),
                t => t,
            };
            let unit = Val::lit(Const::Int(i64::from(name == "prod")));
            let fold = format!("Base._sized_{name}");
            crate::value::convert(b, unit, &acc)
                .and_then(|unit| cx.call_named(b, &fold.as_str().into(), &[x.clone(), unit]))
        }
        // Of a container of `Any`, `Real` or `Number`: the prelude's fold, each step dispatched
        // on the elements' own types.
        ("sum" | "prod" | "maximum" | "minimum", [x]) if open_element(x).is_some() => {
            let fold = format!("Base._open_{name}");
            let t = open_element(x).unwrap_or_default();
            let t = Val::lit(Const::Symbol(t));
            cx.call_named(b, &fold.as_str().into(), &[x.clone(), t])
        }
        (
            "zeros" | "ones" | "fill" | "copy" | "similar" | "length" | "size" | "first" | "last"
            | "setlength!" | "sum" | "prod" | "maximum" | "minimum" | "dot" | "transpose"
            | "adjoint" | "_transpose_copy" | "slice_copy",
            _,
        ) => array::call(b, name, args),
        (
            "det" | "logdet" | "inv" | "\\" | "_solve_square" | "cholesky_lower"
            | "_eigvals_general"
            | "_eigen_general"
            | "_hessenberg"
            | "_schur",
            _,
        ) => {
            array::factor(b, name, args)
        }
        ("tril" | "triu", _) => array::triangle(b, name, args),
        (
            "+" | "-" | "*" | "/" | "÷" | "%" | "^" | "<" | "<=" | ">" | ">=" | "==" | "!=" | "!",
            _,
        ) => Err(no_method(
            name,
            &crate::value::types(&args),
        )),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use zy_ir::Program;

    #[test]
    fn exactly_the_listed_names_are_builtins() {
        let program = Program::default();
        let mut oracle = |_: &zy_ir::Instance| Type::Bottom;
        let signatures = crate::Signatures::default();
        let mut cx = Cx::new(&program, &signatures, &mut oracle);
        let math = zy_ir::Prim::ALL.iter().filter(|p| p.math().is_some());
        let names = BUILTINS.iter().chain(strings::NAMES).copied();
        for name in names.chain(math.map(|p| p.julia_name())) {
            let mut b = PlanBuilder::default();
            assert!(call(&mut cx, &mut b, name, &[]).is_some(), "{name}");
        }
        for name in ["frobnicate", "push!", "Float16"] {
            let mut b = PlanBuilder::default();
            assert!(call(&mut cx, &mut b, name, &[]).is_none(), "{name}");
        }
    }
}

/// The element type of an array of Float32s or fixed-width integers (held as objects).
fn sized_element(x: &Val) -> Option<Type> {
    match &x.ty {
        Type::Array(e, _) if matches!(**e, Type::Float32 | Type::Int(_)) => Some((**e).clone()),
        _ => None,
    }
}

/// The element type of `x`, an array of one of Julia's open abstract types (`Any` of a
/// `Vector{Any}`, `Real`).
fn open_element(x: &Val) -> Option<Name> {
    match &x.ty {
        Type::Array(e, _) => match &**e {
            Type::Union(u) if crate::open::is_open(&u.name) => Some(u.name.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// `x isa T`: decided by the types, as every value's type is known (`T` a type name: a
/// concrete type, a struct, or an abstract type such as `Real` or one of the program's own).
fn isa(cx: &mut Cx, args: &[Val]) -> Result<Val, Fail> {
    let ([x, _], Some(Type::Function(name))) = (args, args.get(1).map(|t| &t.ty)) else {
        return Err(no_method("isa", &crate::value::types(&args)));
    };
    // `T isa DataType`, `T isa UnionAll`: by the type of the type value `T`, of each type a
    // union of them may hold (`c ? Int : Float64`); false of any other value.
    if let "DataType" | "UnionAll" = &**name {
        let members = match &x.ty {
            Type::Union(u) if &*u.name == "DataType" => u.members.clone(),
            t => vec![t.clone()],
        };
        let kinds: Vec<Option<&str>> = members
            .iter()
            .map(|t| type_of_type(t, cx.program))
            .collect();
        if kinds.windows(2).all(|w| w[0] == w[1]) {
            let holds = kinds.first().is_some_and(|k| *k == Some(&**name));
            return Ok(Val::lit(Const::Bool(holds)));
        }
    }
    let pat = crate::type_values::pattern_of_name(name, cx.program)?;
    let holds = crate::pattern::matches_as_julia(&pat, &x.ty, &mut Default::default(), cx.program);
    Ok(Val::lit(Const::Bool(holds)))
}

/// Does a type value's name hold a union (`Union{A, B}`, `Union{}`, `VecOrMat{T}`), whose
/// members may be written in any order?
fn is_union_text(name: &str) -> bool {
    name.contains("Union{") || name.contains("VecOrMat{")
}

/// `A == B` of types one of which is a union: Julia's type equality, `A <: B && B <: A`
/// (`Union{Float64, Int} == Union{Int, Float64}`).
fn union_equality(cx: &mut Cx, op: &str, a: &str, b: &str) -> Result<Val, Fail> {
    let program = cx.program;
    let same = crate::type_values::is_subtype(a, b, program)?
        && crate::type_values::is_subtype(b, a, program)?;
    Ok(Val::lit(Const::Bool(same == (op == "=="))))
}

/// `i isa T` of `findfirst`'s `Union{Nothing, Int64}`: decided at run time when `T` holds one
/// of `Nothing` and `Int64` but not the other (`isnothing(i)` or its negation).
fn union_isa(cx: &mut Cx, b: &mut PlanBuilder, x: &Val, t: &Val) -> Result<Val, Fail> {
    let holds = |cx: &mut Cx, ty: Type| -> Result<bool, Fail> {
        let v = isa(cx, &[Val::of(Arg::Const(Const::Nothing), ty), t.clone()])?;
        Ok(matches!(v.arg, Arg::Const(Const::Bool(true))))
    };
    let (nothing, int) = (holds(cx, Type::Nothing)?, holds(cx, Type::Int64)?);
    if nothing == int {
        return Ok(Val::lit(Const::Bool(nothing)));
    }
    let is_nothing = cx.call_named(b, &"Base.isnothing".into(), std::slice::from_ref(x))?;
    if nothing {
        return Ok(is_nothing);
    }
    let not = b.prim(zy_ir::Prim::Not, vec![is_nothing.arg], Type::Bool);
    Ok(Val::of(not, Type::Bool))
}

/// Are the shape arguments of `zeros`/`ones`/`fill` (after an element type or a value) more
/// sizes than zy's arrays have dimensions ([`zy_ir::MAX_DIMS`]), or a tuple of them?
fn of_three_dims(name: &str, args: &[Val]) -> bool {
    let dims = match (name, args) {
        ("fill", [_, dims @ ..]) => dims,
        (
            _,
            [Val {
                ty: Type::Function(_),
                ..
            }, dims @ ..],
        ) => dims,
        _ => args,
    };
    match dims {
        [Val {
            ty: Type::Tuple(ts),
            ..
        }] => ts.len() > usize::from(zy_ir::MAX_DIMS) && ts.iter().all(|t| *t == Type::Int64),
        _ => dims.len() > usize::from(zy_ir::MAX_DIMS) && dims.iter().all(|d| d.ty == Type::Int64),
    }
}

/// `eltype(T)` of a type value `T` naming an array type: its element type, as a value.
/// `eltype(x)` of a value the prelude has no method for is Julia's fallback `eltype(typeof(x))`
/// (a `Base.eltype(::Type{W{T}})` of the program's own container).
fn type_eltype(cx: &mut Cx, b: &mut PlanBuilder, t: &Val) -> Result<Val, Fail> {
    let elem = match &t.ty {
        Type::Function(n) => crate::type_values::elem_of(n, cx.program),
        Type::Struct(s) if s.kind == zy_ir::StructKind::User => {
            let ty = Val::lit(Const::Func(crate::type_values::value_name(&t.ty)?));
            return cx.call_named(b, &"Base.eltype".into(), &[ty]);
        }
        _ => None,
    };
    // A struct of the program that declares no element type: Julia's `eltype(::Type) = Any`.
    let declares_none = |n: &str| {
        let bare = n.split_once('{').map_or(n, |(b, _)| b);
        cx.program.structs.get(bare).is_some_and(|d| !d.is_abstract)
    };
    let elem = elem.or_else(|| match &t.ty {
        Type::Function(n) => supertype_elem(n, cx.program),
        _ => None,
    });
    match (elem, &t.ty) {
        (Some(e), _) => Ok(Val::lit(Const::Func(crate::type_values::value_name(&e)?))),
        (None, Type::Function(n)) if declares_none(n) => Ok(Val::lit(Const::Func("Any".into()))),
        (None, _) => Err(no_method("eltype", std::slice::from_ref(&t.ty))),
    }
}

/// The element type of the program's struct type `name` under `AbstractArray{E}` or
/// `AbstractSet{E}` (and their aliases): Julia's `eltype(::Type{<:AbstractArray{E}}) = E`, `E`
/// one of the struct's parameters (read from `name`'s) or a type written out.
fn supertype_elem(name: &str, program: &zy_ir::Program) -> Option<Type> {
    let bare = name.split_once('{').map_or(name, |(b, _)| b);
    let def = program.structs.get(bare)?;
    let zy_ir::TypeExpr::Named {
        name: sup,
        params: sup_params,
    } = def.supertype.as_ref()?
    else {
        return None;
    };
    let arrays = [
        "AbstractArray",
        "AbstractVector",
        "AbstractMatrix",
        "DenseArray",
        "DenseVector",
        "DenseMatrix",
        "AbstractSet",
    ];
    if !arrays.contains(&&**sup) {
        return None;
    }
    let written = sup_params.first()?;
    let own = match written {
        zy_ir::TypeExpr::Named { name: e, params } if params.is_empty() => {
            def.params.iter().position(|p| p == e)
        }
        _ => None,
    };
    match own {
        Some(i) => match crate::type_values::concrete_of(name, program)? {
            Type::Struct(s) => s.params.get(i).cloned(),
            _ => None,
        },
        None => crate::type_values::concrete_of(&written.to_string(), program),
    }
}

/// `Name{P...}` with computed parameters (`Dual{promote_type(T, S)}`): the type value whose
/// parameters are the type values or the Int, Bool and Symbol constants given, as Julia's
/// `Core.apply_type` makes it.
fn apply_type(cx: &mut Cx, args: &[Val]) -> Result<Val, Fail> {
    let refused = || {
        Fail::unsupported(
            "a type parameter computed from a value that is not a type, an Int, a Bool or a \
             Symbol known where the call is compiled",
        )
    };
    let Some((Type::Function(base), params)) = args.split_first().map(|(b, ps)| (&b.ty, ps)) else {
        return Err(refused());
    };
    let mut texts = Vec::with_capacity(params.len());
    for p in params {
        texts.push(match (&p.ty, &p.konst) {
            (Type::Function(n), _) => n.to_string(),
            (_, Some(Const::Int(i))) => i.to_string(),
            (_, Some(Const::Bool(v))) => v.to_string(),
            (_, Some(Const::Symbol(s))) => format!(":{s}"),
            _ => return Err(refused()),
        });
    }
    let text: Name = format!("{base}{{{}}}", texts.join(", ")).into();
    let name = crate::type_values::canonical(&text, cx.program)?;
    Ok(Val::lit(Const::Func(name)))
}

/// `supertype(T)` of a type value: of one of the program's structs or abstract types, its
/// declared supertype with the type's parameters put in (`Shape{Float64}` of
/// `Circle{Float64}`, `Any` where it declares none); of Julia's number types, theirs.
fn type_supertype(cx: &mut Cx, t: &Val) -> Result<Val, Fail> {
    let Type::Function(n) = &t.ty else {
        return Err(no_method("supertype", std::slice::from_ref(&t.ty)));
    };
    if let Some(up) = exceptions::exception_supertype(n, cx.program) {
        return Ok(Val::lit(Const::Func(up)));
    }
    let julias = match crate::type_values::canonical(n, cx.program)?.as_ref() {
        "Float64" | "Float32" => Some("AbstractFloat"),
        "Int64" | "Int32" | "Int16" | "Int8" | "Int128" => Some("Signed"),
        "UInt64" | "UInt32" | "UInt16" | "UInt8" | "UInt128" => Some("Unsigned"),
        "Bool" | "Signed" | "Unsigned" => Some("Integer"),
        "AbstractFloat" | "Integer" => Some("Real"),
        "Real" => Some("Number"),
        "Number" => Some("Any"),
        _ => None,
    };
    if let Some(up) = julias {
        return Ok(Val::lit(Const::Func(up.into())));
    }
    let program = cx.program;
    let refused = || {
        Fail::unsupported(format!(
            "`supertype({n})`: zy answers it for Julia's number types and the program's own types              with all their parameters given"
        ))
    };
    let (name, given) = match crate::type_values::pattern_of_name(n, program)? {
        Pat::Struct { name, params: None }
        | Pat::Abstract {
            name, params: None, ..
        } => (name, Vec::new()),
        Pat::Struct {
            name,
            params: Some(ps),
        } => (name, ps),
        Pat::Abstract {
            name,
            params: Some(a),
            ..
        } => (name, a.pats.clone()),
        _ => return Err(refused()),
    };
    let def = program
        .structs
        .get(&name)
        .filter(|d| d.params.len() == given.len())
        .ok_or_else(refused)?;
    let given = given
        .iter()
        .map(|p| crate::pattern::concrete(p, &Default::default()))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(refused)?;
    let Some(up) = &def.supertype else {
        return Ok(Val::lit(Const::Func("Any".into())));
    };
    let names = given
        .iter()
        .map(crate::type_values::value_name)
        .collect::<Result<Vec<_>, _>>()?;
    let put: std::collections::BTreeMap<Name, zy_ir::TypeExpr> = def
        .params
        .iter()
        .cloned()
        .zip(names.iter().map(|n| zy_ir::TypeExpr::named(n)))
        .collect();
    let text: Name = crate::pattern::substitute(up, &put).to_string().into();
    let name = crate::type_values::canonical(&text, program)?;
    Ok(Val::lit(Const::Func(name)))
}

/// A type of Julia's that zy knows by its name rather than by a definition in the program or
/// the prelude.
pub(crate) struct JuliaType {
    pub(crate) name: &'static str,
    /// `isabstracttype` of it.
    pub(crate) is_abstract: bool,
    /// Is the name a value where a program writes it (`T = Real`, `x isa Integer`)? The others
    /// are reached from other types only (`supertype(UInt8)` is `Unsigned`), or, `Exception`,
    /// among Base's exceptions.
    pub(crate) written: bool,
}

const fn julia_type(name: &'static str, is_abstract: bool, written: bool) -> JuliaType {
    JuliaType {
        name,
        is_abstract,
        written,
    }
}

/// Julia's types that zy knows by name: its abstract types, and the types without all their
/// parameters (`Vector`, `Adjoint`) or of types (`DataType`) that a program may write as values.
pub(crate) const JULIA_TYPES: &[JuliaType] = &[
    julia_type("Any", true, true),
    julia_type("Number", true, true),
    julia_type("Real", true, true),
    julia_type("AbstractFloat", true, true),
    julia_type("Integer", true, true),
    julia_type("Signed", true, true),
    julia_type("Unsigned", true, false),
    julia_type("Exception", true, false),
    julia_type("AbstractArray", true, true),
    julia_type("AbstractVector", true, true),
    julia_type("AbstractMatrix", true, true),
    julia_type("AbstractRange", true, true),
    julia_type("AbstractUnitRange", true, true),
    julia_type("OrdinalRange", true, true),
    julia_type("AbstractString", true, true),
    julia_type("AbstractDict", true, false),
    julia_type("AbstractSet", true, true),
    julia_type("Function", true, true),
    julia_type("Vector", false, true),
    julia_type("Matrix", false, true),
    julia_type("Array", false, true),
    julia_type("Tuple", false, true),
    julia_type("NamedTuple", false, true),
    julia_type("Nothing", false, true),
    julia_type("Symbol", false, true),
    // `Adjoint`: a row `x'` (a type of zy's own) or the prelude's `AdjointMatrix`.
    julia_type("Adjoint", false, true),
    // The types of types (`typeof(Real)`).
    julia_type("DataType", false, true),
    julia_type("UnionAll", false, true),
];

/// Is `name` one of [`JULIA_TYPES`] that a program may write as a value?
pub(crate) fn is_written_type(name: &str) -> bool {
    JULIA_TYPES.iter().any(|t| t.written && t.name == name)
}

/// Is `name` one of Julia's abstract types among [`JULIA_TYPES`]?
fn is_julias_abstract(name: &str) -> bool {
    JULIA_TYPES.iter().any(|t| t.is_abstract && t.name == name)
}

/// Julia's type of a type value (`typeof(Real)`): `Union` of a union (`Core.TypeofBottom` of
/// `Union{}`), `UnionAll` of a type with parameters not given (`Vector`, `AbstractArray`, a
/// program's `Point` of `Point{T}`), `DataType` of any other type. `None` if `t` is no type
/// value (a function's own type).
fn type_of_type(t: &Type, program: &zy_ir::Program) -> Option<&'static str> {
    let Type::Function(n) = t else {
        return None;
    };
    let n: &str = n;
    if n == "Union{}" {
        return Some("Core.TypeofBottom");
    }
    if n.starts_with("Union{") {
        return Some("Union");
    }
    // A struct's name never holds its parameters: `Box{Float64}` is found by none.
    let def = program.structs.get(n);
    let named_type = JULIA_TYPES.iter().any(|t| t.name == n)
        || is_exception_type(n)
        || def.is_some()
        || crate::type_values::is_type_text(n)
        || crate::type_values::concrete_of(n, program).is_some()
        || matches!(n, "String" | "Symbol" | "DataType" | "UnionAll" | "Union");
    if !named_type {
        return None;
    }
    let free = match n {
        "Vector" | "Matrix" | "Array" | "AbstractArray" | "AbstractVector" | "AbstractMatrix"
        | "AbstractRange" | "AbstractUnitRange" | "OrdinalRange" | "NamedTuple" | "Adjoint" => true,
        _ => def.is_some_and(|d| !d.params.is_empty()),
    };
    Some(if free { "UnionAll" } else { "DataType" })
}

/// `isabstracttype(T)` and `isconcretetype(T)` of a type value: Julia's abstract types and the
/// program's `abstract type`s are abstract; Base's exceptions, and types that name one
/// concrete type with all its parameters (`Vector{Float64}`, not `Vector` or `Real` or a
/// `Union`), are concrete. A value that is no type is neither (Julia's `false`).
fn type_kind(cx: &mut Cx, name: &str, t: &Val) -> Result<Val, Fail> {
    let (Type::Function(n), Some(_)) = (&t.ty, type_of_type(&t.ty, cx.program)) else {
        return Ok(Val::lit(Const::Bool(false)));
    };
    let program = cx.program;
    let def = program.structs.get(n);
    let is_abstract = is_julias_abstract(n) || def.is_some_and(|d| d.is_abstract);
    let answer = match name {
        "isabstracttype" => is_abstract,
        _ if is_abstract => false,
        _ if exceptions::EXCEPTIONS.contains(&&**n) || matches!(&**n, "Symbol" | "String") => true,
        _ => match crate::type_values::pattern_of_name(n, program) {
            Ok(p) => crate::type_values::concrete_in(&p, &Default::default(), program).is_some(),
            Err(_) => false,
        },
    };
    Ok(Val::lit(Const::Bool(answer)))
}

/// `fieldtypes(T)` of a type value `T` naming a tuple type: its element types, a tuple of
/// type values (`fieldtypes(Tuple{Float64, Int}) == (Float64, Int64)`).
fn type_fieldtypes(cx: &mut Cx, b: &mut PlanBuilder, t: &Val) -> Result<Val, Fail> {
    let elems = match &t.ty {
        Type::Function(n) => crate::type_values::concrete_of(n, cx.program),
        _ => None,
    };
    let Some(Type::Tuple(ts)) = elems else {
        return Err(no_method("fieldtypes", std::slice::from_ref(&t.ty)));
    };
    let types = ts
        .iter()
        .map(|e| crate::type_values::value_name(e).map(|n| Val::lit(Const::Func(n))))
        .collect::<Result<Vec<_>, _>>()?;
    let ty = Type::tuple(types.iter().map(|v| v.ty.clone()));
    Ok(crate::value::apply(b, zy_ir::Prim::Tuple, &types, ty))
}

/// `fieldnames(T)` of a type value `T` naming a struct or a named tuple: its field names, a
/// tuple of symbols (`fieldnames(Rect) == (:w, :h)`), the default of `propertynames`.
fn type_fieldnames(cx: &mut Cx, b: &mut PlanBuilder, t: &Val) -> Result<Val, Fail> {
    let refused = || no_method("fieldnames", std::slice::from_ref(&t.ty));
    let Type::Function(n) = &t.ty else {
        return Err(refused());
    };
    let names: Vec<Name> = match crate::type_values::pattern_of(n, cx.program)? {
        Pat::Struct { name, .. } => match cx.program.structs.get(&name) {
            Some(def) if !def.is_abstract => def.fields.iter().map(|(f, _)| f.clone()).collect(),
            _ => return Err(refused()),
        },
        _ => match crate::type_values::concrete_of(n, cx.program) {
            Some(Type::NamedTuple(fields)) => fields.iter().map(|(f, _)| f.clone()).collect(),
            _ => return Err(refused()),
        },
    };
    let symbols: Vec<Val> = names
        .into_iter()
        .map(|f| Val::lit(Const::Symbol(f)))
        .collect();
    let ty = Type::tuple(symbols.iter().map(|v| v.ty.clone()));
    Ok(crate::value::apply(b, zy_ir::Prim::Tuple, &symbols, ty))
}

/// Is `name` `Exception` or one of Base's exception types, values as the right side of `isa`
/// (of a caught exception)?
pub(crate) fn is_exception_type(name: &str) -> bool {
    name == "Exception" || exceptions::EXCEPTIONS.contains(&name)
}

/// Is `t` a view (not a shared reshape, which Julia types as an Array) or a struct holding one
/// in its parameters (`A'` of a view)?
fn holds_view(t: &Type) -> bool {
    match t {
        Type::Struct(_) if crate::calls::is_view(t) => crate::pattern::reshaped_array(t).is_none(),
        Type::Struct(s) => s.params.iter().any(holds_view),
        _ => false,
    }
}

/// `t` with each shared reshape, itself or a parameter of a wrapper, as the Array Julia types
/// it (`reshape(x, 2, 2)'` is an `Adjoint{Float64, Matrix{Float64}}`).
pub fn julia_array_type(t: &Type) -> Type {
    if let Some(a) = crate::pattern::reshaped_array(t) {
        return a;
    }
    match t {
        Type::Struct(s) if !s.params.is_empty() => {
            let mut s = (**s).clone();
            s.params = s.params.iter().map(julia_array_type).collect();
            Type::Struct(std::sync::Arc::new(s))
        }
        _ => t.clone(),
    }
}

fn is_tuple(v: &Val) -> bool {
    matches!(v.ty, Type::Tuple(_))
}

/// `a == b` of tuples: as Julia's, true when they have one length and their elements are `==`
/// position by position (`(1, 2) == (1.0, 2.0)`); each comparison is the `==` of its elements'
/// types, and the results are joined with `ifelse`.
/// Is `v` a struct value (of the program or the library)?
fn is_struct(v: &Val) -> bool {
    matches!(v.ty, Type::Struct(_))
}

/// Are `x` and `y` values of one immutable struct type of Julia's (whose `===` compares their
/// fields)? One Julia type may be several of zy's, whose fields hold narrower types: a
/// `Tree("a", nothing, nothing)` written out and a `Tree` built by a recursive function.
fn same_immutable_struct(x: &Val, y: &Val) -> bool {
    match (&x.ty, &y.ty) {
        (Type::Struct(s), Type::Struct(t)) => !s.mutable && !t.mutable && s.is(&t.name, &t.params),
        _ => false,
    }
}

/// Is `v` a mutable struct or a `Ref`, an object whose `===` is its identity?
fn has_identity(v: &Val) -> bool {
    matches!(&v.ty, Type::Struct(s) if s.mutable) || matches!(v.ty, Type::Ref(_))
}

/// `x === y` of two objects with identity: are they the same object (the interpreter's and
/// the JIT's `==` of such operands)?
fn identical(b: &mut PlanBuilder, x: &Val, y: &Val) -> Val {
    Val::of(
        b.prim(Prim::Eq, vec![x.arg.clone(), y.arg.clone()], Type::Bool),
        Type::Bool,
    )
}

/// `x === y` of two arrays: are they one array (two equal arrays are not)?
fn same_object(b: &mut PlanBuilder, x: &Val, y: &Val) -> Val {
    Val::of(
        b.prim(
            Prim::SameObject,
            vec![x.arg.clone(), y.arg.clone()],
            Type::Bool,
        ),
        Type::Bool,
    )
}

/// `!eq` of a Bool.
fn negated(b: &mut PlanBuilder, eq: Val) -> Result<Val, Fail> {
    if eq.ty != Type::Bool {
        return Err(Fail::unsupported(format!(
            "`!=` where `==` gives a {}",
            eq.ty
        )));
    }
    Ok(Val::of(
        b.prim(Prim::Not, vec![eq.arg], Type::Bool),
        Type::Bool,
    ))
}

/// `x === y` of two values of one immutable struct type: Julia's egal, every field `===`
/// (floats bit for bit, so `NaN === NaN` and `0.0 !== -0.0`, strings by content, arrays and
/// mutable structs by identity), which is also `==` when the program defines no `==` for the
/// type. The fields of a recursive struct (`left::Union{Tree, Nothing}`) compare by the
/// prelude's `Base._egal`, which calls this again one level down.
fn struct_egal(cx: &mut Cx, b: &mut PlanBuilder, x: &Val, y: &Val) -> Result<Val, Fail> {
    let Type::Struct(s) = &x.ty else {
        return scalar::egal(x, y);
    };
    // Fields that may hold the struct again compare through a method of the prelude, whose
    // call inference types once however deep the comparison goes at run time.
    let egal: Name = if x.ty.holds_recursion() || y.ty.holds_recursion() {
        "Base._egal".into()
    } else {
        "Base.===".into()
    };
    let mut all = Val::lit(Const::Bool(true));
    for (field, _) in &s.fields {
        let name = Val::lit(Const::Symbol(field.clone()));
        let xf = cx.call_named(b, &"getfield".into(), &[x.clone(), name.clone()])?;
        let yf = cx.call_named(b, &"getfield".into(), &[y.clone(), name])?;
        let eq = cx.call_named(b, &egal, &[xf, yf])?;
        // A comparison inference has not typed yet (the method being typed, called again).
        if eq.ty == Type::Bottom {
            return Ok(eq);
        }
        if eq.ty != Type::Bool {
            return Err(Fail::unsupported(format!(
                "`===` of {} whose fields compare to {}",
                x.ty, eq.ty
            )));
        }
        let joined = b.prim(
            Prim::IfElse,
            vec![all.arg, eq.arg, Arg::Const(Const::Bool(false))],
            Type::Bool,
        );
        all = Val::of(joined, Type::Bool);
    }
    Ok(all)
}

fn tuple_equality(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    op: &str,
    x: &Val,
    y: &Val,
) -> Result<Val, Fail> {
    let (Type::Tuple(xs), Type::Tuple(ys)) = (&x.ty, &y.ty) else {
        return scalar::equality(op, x, y);
    };
    if xs.len() != ys.len() {
        return Ok(Val::lit(Const::Bool(op != "==")));
    }
    let mut all = Val::lit(Const::Bool(true));
    for (i, (xt, yt)) in xs.iter().zip(ys.iter()).enumerate() {
        let at = || Arg::Const(Const::Int(i as i64 + 1));
        let xi = Val::of(
            b.prim(Prim::GetField, vec![x.arg.clone(), at()], xt.clone()),
            xt.clone(),
        );
        let yi = Val::of(
            b.prim(Prim::GetField, vec![y.arg.clone(), at()], yt.clone()),
            yt.clone(),
        );
        let eq = cx.call_named(b, &"==".into(), &[xi, yi])?;
        if eq.ty != Type::Bool {
            return Err(Fail::unsupported(format!(
                "`==` of tuples whose elements compare to {}",
                eq.ty
            )));
        }
        let joined = b.prim(
            Prim::IfElse,
            vec![all.arg, eq.arg, Arg::Const(Const::Bool(false))],
            Type::Bool,
        );
        all = Val::of(joined, Type::Bool);
    }
    if op == "==" {
        return Ok(all);
    }
    Ok(Val::of(
        b.prim(Prim::Not, vec![all.arg], Type::Bool),
        Type::Bool,
    ))
}

/// Does a value of type `t` hold `missing` (itself, a union with it, or a tuple or named tuple
/// of such), where `==` is three-valued?
fn may_miss(t: &Type) -> bool {
    match t {
        Type::Union(u) => u.members.iter().any(Type::is_missing),
        Type::Tuple(ts) => ts.iter().any(may_miss),
        Type::NamedTuple(fs) => fs.iter().any(|(_, t)| may_miss(t)),
        t => t.is_missing(),
    }
}

/// The prelude's `Base.NothingOrInt`, `findfirst`'s `Union{Nothing, Int64}`.
fn is_nothing_or_int(v: &Val) -> bool {
    matches!(&v.ty, Type::Struct(s) if &*s.name == "Base.NothingOrInt")
}

/// `x == y` (`x != y`) by the prelude's `helper`, negated for `!=`: `Base._union_equal` with
/// `findfirst`'s union on a side (`nothing == nothing`, the index `==` a number),
/// `Base._array_equal` of two arrays (same shape, equal elements).
fn prelude_equality(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    helper: &str,
    op: &str,
    x: &Val,
    y: &Val,
) -> Result<Val, Fail> {
    let eq = cx.call_named(b, &helper.into(), &[x.clone(), y.clone()])?;
    if op == "==" {
        return Ok(eq);
    }
    if eq.ty != Type::Bool {
        // `missing` of arrays that may hold it: `!missing` is `missing`.
        return cx.call_named(b, &"Base.!".into(), &[eq]);
    }
    let not = b.prim(zy_ir::Prim::Not, vec![eq.arg], Type::Bool);
    Ok(Val::of(not, Type::Bool))
}
