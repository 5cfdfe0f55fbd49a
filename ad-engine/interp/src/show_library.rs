//! Julia's `show` of the library's structs where Julia prints them otherwise than as their
//! fields: ranges (`1:4`, `1:2:5`, `0.0:0.1:1.0`, `LinRange{Float64}(0.0, 1.0, 5)`), views and
//! `Diagonal`, the triangular wrappers, `Symmetric` and `transpose(x)` as the arrays they stand
//! for, `1 => 2.0`, `sin ∘ cos`, `UniformScaling{Bool}(true)`, `RoundingMode{:Down}()`,
//! `enumerate(x)`, `zip(a, b)`, `CartesianIndex(1, 2)`, `CartesianIndices((2, 3))`, `1//2`, `'a'`, `Val{3}()`, `findfirst`'s
//! `Union{Nothing, Int64}` as `nothing` or the index, `missing`, `skipmissing(x)`, `pairs(x)` (a method's `kw...`) as Julia
//! shows a dictionary (`Base.Pairs(:a => 1.0, :b => 2.0)`), `r"a+b"i`, `s"<\1>"`,
//! `RegexMatch("ab", 1="a")`, an `IOBuffer`'s state and a `Task`'s.

use std::fmt::{self, Write};

use zy_ir::{write_julia_float, StructType, Type};

use crate::value::{Array, ArrayData, Shape, Value};

/// How a library struct is shown, by its name.
enum Form {
    UnitRange,
    OneTo,
    StepRange,
    StepRangeLen,
    LinRange,
    SubArray,
    Diagonal,
    /// `Tridiagonal`, `SymTridiagonal` and `Bidiagonal`: the dense matrix of their bands.
    Banded,
    /// `UpperTriangular` and friends: which triangle (`true`: the upper), unit diagonal, and
    /// how many subdiagonals an upper one keeps (`UpperHessenberg`'s one).
    Triangular(bool, bool, usize),
    /// `Symmetric` and `Hermitian` (of real numbers): the dense symmetric matrix.
    Symmetric,
    /// `transpose(x)` of a vector: the 1×n row.
    Transpose,
    /// `A'` and `transpose(A)` of a matrix: the transposed matrix (of `A'`, complex elements
    /// conjugated).
    TransposedMatrix {
        adjoint: bool,
    },
    Pair,
    Composed,
    Uniform,
    Rounding(&'static str),
    /// `Val{3}()`.
    Val,
    Enumerate,
    Zip,
    NothingOrInt,
    /// `missing`.
    Missing,
    /// `skipmissing(x)`.
    SkipMissing,
    CartesianIndex,
    /// `CartesianIndices((2, 3))`: its sizes (Julia's `OneTo` axes by their ends).
    CartesianIndices,
    Complex,
    Rational,
    Char,
    ConjAdjoint,
    Set,
    /// `BitSet([1, 2, 3])`: its elements in ascending order, `BitSet([])` when empty.
    BitSet,
    Pairs,
    /// `fill(1.0)`: a 0-dimensional array, by its element.
    ZeroDim,
    /// `r"a+b"i`.
    Regex,
    /// `s"<\1>"`.
    Substitution,
    /// `RegexMatch("ab", 1="a")`.
    RegexMatch,
    /// `IOBuffer(data=UInt8[...], readable=true, ...)`.
    IoBuffer,
    /// `Task (done) @0x0000000000000000`: its state, and an address zy's tasks do not have.
    Task,
    /// `Channel{Float64}(2)`: its type and its buffer's size.
    Channel,
    /// A Distributions.jl distribution: its type, then its parameters by name
    /// (`Normal{Float64}(μ=0.0, σ=1.0)`).
    Distribution,
}

fn form(t: &StructType) -> Option<Form> {
    Some(match &*t.name {
        "Base.UnitRange" => Form::UnitRange,
        "Base.OneTo" => Form::OneTo,
        "Base.StepRange" => Form::StepRange,
        "Base.StepRangeLen" => Form::StepRangeLen,
        "Base.LinRange" => Form::LinRange,
        "Base.SubArray" => Form::SubArray,
        "Base.Pair" => Form::Pair,
        "Base.ComposedFunction" => Form::Composed,
        "LinearAlgebra.Diagonal" => Form::Diagonal,
        "LinearAlgebra.Tridiagonal"
        | "LinearAlgebra.SymTridiagonal"
        | "LinearAlgebra.Bidiagonal" => Form::Banded,
        "LinearAlgebra.UpperTriangular" => Form::Triangular(true, false, 0),
        "LinearAlgebra.LowerTriangular" => Form::Triangular(false, false, 0),
        "LinearAlgebra.UnitUpperTriangular" => Form::Triangular(true, true, 0),
        "LinearAlgebra.UnitLowerTriangular" => Form::Triangular(false, true, 0),
        "LinearAlgebra.UpperHessenberg" => Form::Triangular(true, false, 1),
        "LinearAlgebra.Symmetric" | "LinearAlgebra.Hermitian" => Form::Symmetric,
        "Base.Transpose" => Form::Transpose,
        "Base.AdjointMatrix" => Form::TransposedMatrix { adjoint: true },
        "Base.TransposeMatrix" => Form::TransposedMatrix { adjoint: false },
        "LinearAlgebra.UniformScaling" => Form::Uniform,
        "Base.Enumerate" => Form::Enumerate,
        "Base.Zip" => Form::Zip,
        "Base.NothingOrInt" => Form::NothingOrInt,
        "Base.Missing" => Form::Missing,
        "Base.SkipMissing" => Form::SkipMissing,
        "Base.CartesianIndex" => Form::CartesianIndex,
        "Base.CartesianIndices" => Form::CartesianIndices,
        "Base.Complex" => Form::Complex,
        "Base.Rational" => Form::Rational,
        "Base.Char" => Form::Char,
        "Base.ConjAdjoint" => Form::ConjAdjoint,
        "Base.Set" => Form::Set,
        "Base.BitSet" => Form::BitSet,
        "Base.Pairs" => Form::Pairs,
        "Base._RoundNearest" => Form::Rounding("Nearest"),
        "Base._RoundToZero" => Form::Rounding("ToZero"),
        "Base._RoundUp" => Form::Rounding("Up"),
        "Base._RoundDown" => Form::Rounding("Down"),
        "Base.Val" => Form::Val,
        "Base.ZeroDimArray" => Form::ZeroDim,
        "Base.Regex" => Form::Regex,
        "Base.SubstitutionString" => Form::Substitution,
        "Base.RegexMatch" => Form::RegexMatch,
        "Base.IOBuffer" => Form::IoBuffer,
        "Base.Task" => Form::Task,
        "Base.Channel" => Form::Channel,
        name if name.starts_with("Distributions.") => Form::Distribution,
        _ => return None,
    })
}

/// Write `t(fields...)` as Julia shows it, if `t` is a library struct with its own `show`;
/// `Ok(false)` if it is shown as its fields (or its fields are not what the form expects).
pub(crate) fn write_library<W: Write + ?Sized>(
    f: &mut W,
    t: &StructType,
    fields: &[Value],
    show: fn(&mut W, &Value) -> fmt::Result,
) -> Result<bool, fmt::Error> {
    let Some(form) = form(t) else {
        return Ok(false);
    };
    let field = |name: &str| {
        t.fields
            .iter()
            .position(|(n, _)| &**n == name)
            .and_then(|i| fields.get(i))
    };
    match form {
        Form::Complex => match (field("re"), field("im")) {
            (Some(re), Some(im)) => write_complex(f, re, im, show)?,
            _ => return Ok(false),
        },
        // `1//2`: the numerator, `//`, the denominator.
        Form::Rational => match (field("num"), field("den")) {
            (Some(num), Some(den)) => {
                show(f, num)?;
                f.write_str("//")?;
                show(f, den)?;
            }
            _ => return Ok(false),
        },
        Form::ZeroDim => {
            let Some(Value::Array(data)) = field("data") else {
                return Ok(false);
            };
            let Some(x) = data.borrow().data.get(0) else {
                return Ok(false);
            };
            f.write_str("fill(")?;
            show(f, &x)?;
            f.write_str(")")?;
        }
        // `'a'`, escaped as Julia's `show` escapes a character.
        Form::Char => match field("_code") {
            Some(Value::Int(c)) => {
                let c = char::from_u32(*c as u32).ok_or(fmt::Error)?;
                write!(f, "'{}'", crate::show::escape_char(c, '\''))?;
            }
            _ => return Ok(false),
        },
        // `x'` of complex numbers: the row of their conjugates, as Julia shows an `Adjoint`.
        Form::ConjAdjoint => {
            let Some(Value::Array(p)) = field("parent") else {
                return Ok(false);
            };
            let p = p.borrow();
            let ArrayData::Obj(o) = &p.data else {
                return Ok(false);
            };
            let mut items = Vec::with_capacity(o.items.len());
            for z in &o.items {
                items.push(conjugate(z).ok_or(fmt::Error)?);
            }
            let n = items.len();
            let row = ArrayData::Obj(crate::value::Objects {
                elem: o.elem.clone(),
                items,
            });
            show(f, &Array::new(Shape::Matrix(1, n), row).into_value())?;
        }
        // `Set([1, 2])` (its elements in zy's order), `Set{Int64}()` when empty.
        Form::Set => {
            let Some(elements) = field("items").and_then(set_elements) else {
                return Ok(false);
            };
            if elements.is_empty() {
                let t = t.params.first().map(crate::show::type_string);
                write!(f, "Set{{{}}}()", t.unwrap_or_default())?;
            } else {
                f.write_str("Set([")?;
                for (k, x) in elements.iter().enumerate() {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    show(f, x)?;
                }
                f.write_str("])")?;
            }
        }
        Form::BitSet => {
            let Some(mut bits) = field("items").and_then(bitset_elements) else {
                return Ok(false);
            };
            bits.sort_unstable();
            f.write_str("BitSet([")?;
            for (k, x) in bits.iter().enumerate() {
                if k > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{x}")?;
            }
            f.write_str("])")?;
        }
        Form::Pairs => {
            let Some(entries) = field("data").and_then(pairs_entries) else {
                return Ok(false);
            };
            // Julia's `show` of a dictionary: its type's name alone when the keys' and values'
            // types read back from the entries, else the whole type.
            let implicit = matches!(pairs_value_types(t).as_deref(), Some([v]) if implicit(v));
            match pairs_type_string(t) {
                Some(_) if implicit && !entries.is_empty() => f.write_str("Base.Pairs(")?,
                Some(full) => write!(f, "{full}(")?,
                None => return Ok(false),
            }
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                show(f, k)?;
                f.write_str(" => ")?;
                pair_side(f, v, show)?;
            }
            f.write_char(')')?;
        }
        Form::CartesianIndex => match field("I") {
            Some(Value::Tuple(items)) => {
                f.write_str("CartesianIndex(")?;
                for (k, item) in items.iter().enumerate() {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    show(f, item)?;
                }
                f.write_char(')')?;
            }
            _ => return Ok(false),
        },
        Form::CartesianIndices => match field("dims") {
            Some(dims @ Value::Tuple(_)) => {
                f.write_str("CartesianIndices(")?;
                show(f, dims)?;
                f.write_char(')')?;
            }
            _ => return Ok(false),
        },
        Form::NothingOrInt => match (field("found"), field("index")) {
            (Some(Value::Bool(true)), Some(i)) => show(f, i)?,
            (Some(Value::Bool(false)), _) => f.write_str("nothing")?,
            _ => return Ok(false),
        },
        Form::UnitRange => match (field("start"), field("stop")) {
            (Some(a), Some(b)) => {
                show(f, a)?;
                f.write_char(':')?;
                show(f, b)?;
            }
            _ => return Ok(false),
        },
        Form::OneTo => match field("stop") {
            Some(n) => {
                f.write_str("Base.OneTo(")?;
                show(f, n)?;
                f.write_char(')')?;
            }
            None => return Ok(false),
        },
        Form::StepRange => match (field("start"), field("step"), field("stop")) {
            (Some(a), Some(s), Some(b)) => {
                show(f, a)?;
                f.write_char(':')?;
                show(f, s)?;
                f.write_char(':')?;
                show(f, b)?;
            }
            _ => return Ok(false),
        },
        Form::StepRangeLen => {
            if let Some(r) = IntRangeLen::of(&field) {
                if r.step == 0 {
                    write!(f, "StepRangeLen({}, 0, {})", r.start, r.len)?;
                } else {
                    write!(f, "{}:{}:{}", r.start, r.step, r.at(r.len))?;
                }
                return Ok(true);
            }
            let Some(r) = TwiceRange::of(&field) else {
                return Ok(false);
            };
            let step = r.step_hi + r.step_lo;
            if step == 0.0 {
                f.write_str("StepRangeLen(")?;
                write_julia_float(f, r.at(1))?;
                f.write_str(", ")?;
                write_julia_float(f, step)?;
                write!(f, ", {})", r.len)?;
            } else {
                write_julia_float(f, r.at(1))?;
                f.write_char(':')?;
                write_julia_float(f, step)?;
                f.write_char(':')?;
                write_julia_float(f, r.at(r.len))?;
            }
        }
        Form::LinRange => match (field("start"), field("stop"), field("len")) {
            (Some(a), Some(b), Some(n)) => {
                write!(
                    f,
                    "LinRange{{{}}}(",
                    crate::show::type_string(&a.julia_type())
                )?;
                show(f, a)?;
                f.write_str(", ")?;
                show(f, b)?;
                f.write_str(", ")?;
                show(f, n)?;
                f.write_char(')')?;
            }
            _ => return Ok(false),
        },
        Form::SubArray => {
            let (Some(parent), Some(indices)) = (field("parent"), field("indices")) else {
                return Ok(false);
            };
            let Some(a) = view_elements(parent, indices) else {
                return Ok(false);
            };
            show(f, &a.into_value())?;
        }
        Form::Diagonal => {
            let Some(d) = field("diag").and_then(dense) else {
                return Ok(false);
            };
            let n = d.data.len();
            let mut data = ArrayData::zeros(d.data.elem(), n * n);
            for i in 0..n {
                set(&mut data, i * n + i, &d.data, i);
            }
            show(f, &Array::new(Shape::Matrix(n, n), data).into_value())?;
        }
        Form::Banded => {
            // The diagonal and the bands below and above it, by the struct's field names.
            let (d, below, above) = match (field("d"), field("dv"), field("ev")) {
                (Some(d), _, _) => (d, field("dl"), field("du")),
                (None, Some(dv), Some(ev)) => match field("upper") {
                    Some(Value::Bool(true)) => (dv, None, Some(ev)),
                    Some(_) => (dv, Some(ev), None),
                    None => (dv, Some(ev), Some(ev)),
                },
                _ => return Ok(false),
            };
            let Some(d) = dense(d) else {
                return Ok(false);
            };
            let n = d.data.len();
            let mut data = ArrayData::zeros(d.data.elem(), n * n);
            for i in 0..n {
                set(&mut data, i * n + i, &d.data, i);
            }
            for (band, below) in [(below, true), (above, false)] {
                let Some(band) = band.and_then(dense) else {
                    continue;
                };
                for i in 0..n.saturating_sub(1).min(band.data.len()) {
                    // Column-major: (i + 1, i) below the diagonal, (i, i + 1) above it.
                    let k = if below {
                        i * n + i + 1
                    } else {
                        (i + 1) * n + i
                    };
                    set(&mut data, k, &band.data, i);
                }
            }
            show(f, &Array::new(Shape::Matrix(n, n), data).into_value())?;
        }
        Form::Triangular(upper, unit, below) => {
            let Some(a) = field("data").and_then(dense) else {
                return Ok(false);
            };
            let Shape::Matrix(n, m) = a.shape else {
                return Ok(false);
            };
            if n != m {
                return Ok(false);
            }
            let mut data = ArrayData::zeros(a.data.elem(), n * n);
            for j in 0..n {
                for i in 0..n {
                    let k = j * n + i;
                    if i == j && unit {
                        // `set` converts the 1 to the element type.
                        data.set(k, &Value::Int(1)).map_err(|_| fmt::Error)?;
                    } else if (upper && i <= j + below) || (!upper && i >= j) {
                        set(&mut data, k, &a.data, k);
                    }
                }
            }
            show(f, &Array::new(Shape::Matrix(n, n), data).into_value())?;
        }
        Form::Transpose => match field("parent").and_then(row_elements) {
            Some(a) => show(f, &a.into_value())?,
            None => return Ok(false),
        },
        Form::TransposedMatrix { adjoint } => {
            match field("parent").and_then(|p| transposed_elements(p, adjoint)) {
                Some(a) => show(f, &a.into_value())?,
                None => return Ok(false),
            }
        }
        Form::Symmetric => match (field("data"), field("upper")) {
            (Some(a), Some(Value::Bool(upper))) => match symmetric_elements(a, *upper) {
                Some(a) => show(f, &a.into_value())?,
                None => return Ok(false),
            },
            _ => return Ok(false),
        },
        Form::Pair => match (field("first"), field("second")) {
            (Some(a), Some(b)) => {
                pair_side(f, a, show)?;
                f.write_str(" => ")?;
                pair_side(f, b, show)?;
            }
            _ => return Ok(false),
        },
        Form::Composed => match (field("outer"), field("inner")) {
            (Some(a), Some(b)) => {
                show(f, a)?;
                f.write_str(" ∘ ")?;
                show(f, b)?;
            }
            _ => return Ok(false),
        },
        Form::Uniform => match field("λ") {
            Some(l) => {
                write!(
                    f,
                    "UniformScaling{{{}}}(",
                    crate::show::type_string(&l.julia_type())
                )?;
                show(f, l)?;
                f.write_char(')')?;
            }
            None => return Ok(false),
        },
        Form::Rounding(mode) => write!(f, "RoundingMode{{:{mode}}}()")?,
        Form::Distribution => {
            let ty = crate::show::type_string(&Type::Struct(std::sync::Arc::new(t.clone())));
            f.write_str(ty.strip_prefix("Distributions.").unwrap_or(&ty))?;
            for (i, ((name, _), v)) in t.fields.iter().zip(fields).enumerate() {
                f.write_str(if i == 0 { "(" } else { ", " })?;
                write!(f, "{name}=")?;
                show(f, v)?;
            }
            f.write_char(')')?;
        }
        Form::Missing => f.write_str("missing")?,
        Form::SkipMissing => match field("x") {
            Some(x) => {
                f.write_str("skipmissing(")?;
                show(f, x)?;
                f.write_char(')')?;
            }
            None => return Ok(false),
        },
        // A pattern as Julia's raw string literal (a quote escaped), then its flags.
        Form::Regex | Form::Substitution => {
            let (text, flags) = match form {
                Form::Regex => (field("pattern"), field("flags")),
                _ => (field("string"), None),
            };
            let (Some(Value::Str(text)), flags) = (text, flags) else {
                return Ok(false);
            };
            let prefix = if matches!(form, Form::Regex) {
                'r'
            } else {
                's'
            };
            write!(f, "{prefix}\"{}\"", text.replace('"', "\\\""))?;
            if let Some(Value::Str(flags)) = flags {
                f.write_str(flags)?;
            }
        }
        // `RegexMatch("ab", 1="a", y="b")`: the match, then each group by name, or by number
        // where it has none.
        Form::RegexMatch => {
            let (Some(m), Some(Value::Array(groups))) = (field("match"), field("captures")) else {
                return Ok(false);
            };
            let names = match field("regex") {
                Some(Value::Struct(_, r)) => match &r[..] {
                    [Value::Str(p), Value::Str(flags)] => {
                        crate::prim::regex::group_names(p, flags).unwrap_or_default()
                    }
                    _ => Vec::new(),
                },
                _ => Vec::new(),
            };
            f.write_str("RegexMatch(")?;
            show(f, m)?;
            let groups = groups.borrow();
            if let ArrayData::Obj(o) = &groups.data {
                for (k, g) in o.items.iter().enumerate() {
                    match names.get(k) {
                        Some(Some(name)) => write!(f, ", {name}=")?,
                        _ => write!(f, ", {}=", k + 1)?,
                    }
                    show(f, g)?;
                }
            }
            f.write_char(')')?;
        }
        // Julia's `show` of a buffer: its state, not its bytes.
        Form::Task => {
            let state = match field("status") {
                Some(Value::Int(0)) => "runnable",
                Some(Value::Int(1)) => "done",
                Some(Value::Int(2)) => "failed",
                _ => return Ok(false),
            };
            write!(f, "Task ({state}) @0x{:016x}", 0)?;
        }
        Form::Channel => {
            let ty = crate::show::type_string(&Type::Struct(std::sync::Arc::new(t.clone())));
            let Some(Value::Int(size)) = field("sz_max") else {
                return Ok(false);
            };
            write!(f, "{}({size})", ty.strip_prefix("Base.").unwrap_or(&ty))?;
        }
        Form::IoBuffer => {
            let (Some(Value::Str(text)), Some(Value::Array(bytes)), Some(Value::Bool(binary))) =
                (field("data"), field("bytes"), field("binary"))
            else {
                return Ok(false);
            };
            let (Some(Value::Int(ptr)), Some(Value::Bool(writable))) =
                (field("ptr"), field("writable"))
            else {
                return Ok(false);
            };
            // A buffer's contents are its text, or its bytes once it holds more than text.
            let size = if *binary {
                bytes.borrow().data.len()
            } else {
                text.len()
            };
            write!(
                f,
                "IOBuffer(data=UInt8[...], readable=true, writable={writable}, seekable=true, \
                 append=false, size={size}, maxsize=Inf, ptr={ptr}, mark=-1)"
            )?;
        }
        Form::Val => match t.params.as_slice() {
            [p] => write!(f, "Val{{{p}}}()")?,
            _ => return Ok(false),
        },
        Form::Enumerate => match field("itr") {
            Some(itr) => {
                f.write_str("enumerate(")?;
                show(f, itr)?;
                f.write_char(')')?;
            }
            None => return Ok(false),
        },
        Form::Zip => match field("its") {
            Some(Value::Tuple(its)) => {
                f.write_str("zip(")?;
                for (i, it) in its.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    show(f, it)?;
                }
                f.write_char(')')?;
            }
            _ => return Ok(false),
        },
    }
    Ok(true)
}

/// Julia's `show` of a complex number: `1.0 + 2.0im`, `0.0 - 1.0im`, `1 + 2im`,
/// `NaN + Inf*im`, `1//2 - 1//3*im` (a `*` before `im` unless the imaginary part is an Int or
/// a finite float),
/// and `im` itself (a `Complex{Bool}` other than `im` as `Complex(true,false)`).
fn write_complex<W: Write + ?Sized>(
    f: &mut W,
    re: &Value,
    im: &Value,
    show: fn(&mut W, &Value) -> fmt::Result,
) -> fmt::Result {
    match (re, im) {
        (Value::Bool(false), Value::Bool(true)) => f.write_str("im"),
        (Value::Bool(a), Value::Bool(b)) => write!(f, "Complex({a},{b})"),
        _ => {
            show(f, re)?;
            let (negative, magnitude, finite) = match im {
                Value::F64(y) => (
                    y.is_sign_negative() && !y.is_nan(),
                    Value::F64(y.abs()),
                    y.is_finite(),
                ),
                // `i == typemin(Int)` negates to itself; Julia widens it, printing its digits.
                Value::Int(y) if *y < 0 => {
                    f.write_str(" - ")?;
                    write!(f, "{}", (*y as i128).unsigned_abs())?;
                    return f.write_str("im");
                }
                // A rational part: its sign written between, and a `*` before `im`.
                Value::Struct(t, parts) if matches!(form(t), Some(Form::Rational)) => {
                    match parts.first() {
                        Some(Value::Int(n)) if *n < 0 => {
                            let mut magnitude = parts.to_vec();
                            magnitude[0] = Value::Int(n.checked_neg().ok_or(fmt::Error)?);
                            (true, Value::Struct(t.clone(), magnitude.into()), false)
                        }
                        _ => (false, im.clone(), false),
                    }
                }
                other => (false, other.clone(), true),
            };
            f.write_str(if negative { " - " } else { " + " })?;
            show(f, &magnitude)?;
            if !finite {
                f.write_char('*')?;
            }
            f.write_str("im")
        }
    }
}

/// `conj(z)` of a complex number held as the prelude's struct.
fn conjugate(z: &Value) -> Option<Value> {
    let Value::Struct(t, fields) = z else {
        return None;
    };
    let im = match fields.get(1)? {
        Value::F64(y) => Value::F64(-y),
        Value::Int(y) => Value::Int(y.checked_neg()?),
        _ => return None,
    };
    Some(Value::new_struct(
        t.clone(),
        vec![fields.first()?.clone(), im],
    ))
}

/// The entries `k => v` of `pairs(data)`: of a named tuple its names as symbols, of a vector
/// or a tuple the indices.
pub(crate) fn pairs_entries(data: &Value) -> Option<Vec<(Value, Value)>> {
    Some(match data {
        Value::NamedTuple(names, vals) => names
            .iter()
            .map(|n| Value::Symbol(n.clone()))
            .zip(vals.iter().cloned())
            .collect(),
        Value::Tuple(vals) => (1..).map(Value::Int).zip(vals.iter().cloned()).collect(),
        Value::Array(a) => {
            let a = a.borrow();
            if !matches!(a.shape, Shape::Vector(_)) {
                return None;
            }
            (1..).map(Value::Int).zip(a.data.values()).collect()
        }
        _ => return None,
    })
}

/// The types of the values `pairs(data)` pairs, distinct, in the order Julia writes a `Union`
/// of them: the named tuple's or tuple's element types, the vector's element type.
fn pairs_value_types(t: &StructType) -> Option<Vec<Type>> {
    let mut types: Vec<Type> = match &t.fields.iter().find(|(n, _)| &**n == "data")?.1 {
        Type::NamedTuple(fs) => fs.iter().map(|(_, t)| t.clone()).collect(),
        Type::Tuple(ts) => ts.to_vec(),
        Type::Array(e, 1) => vec![(**e).clone()],
        _ => return None,
    };
    types.sort_by_key(crate::show::type_string);
    types.dedup_by_key(|t| crate::show::type_string(t));
    Some(types)
}

/// Julia's full type of `pairs(data)`, `Base.Pairs{K, V, I, A}`, given the struct holding
/// `data`: of a named tuple `Base.Pairs{Symbol, Float64, Nothing, @NamedTuple{a::Float64,
/// b::Float64}}` (Julia 1.10's `@Kwargs`: no keys stored), of a vector its `LinearIndices`, of
/// a tuple its `Base.OneTo`; `V` is `eltype(data)`, the values' types joined ([`typejoin`]).
pub(crate) fn pairs_type_string(t: &StructType) -> Option<String> {
    let data = &t.fields.iter().find(|(n, _)| &**n == "data")?.1;
    let (key, indices) = match data {
        Type::NamedTuple(_) => ("Symbol", "Nothing".to_string()),
        Type::Tuple(_) => ("Int64", "Base.OneTo{Int64}".to_string()),
        Type::Array(_, 1) => (
            "Int64",
            "LinearIndices{1, Tuple{Base.OneTo{Int64}}}".to_string(),
        ),
        _ => return None,
    };
    let value = typejoin(&pairs_value_types(t)?);
    let data = crate::show::type_string(data);
    Some(format!("Base.Pairs{{{key}, {value}, {indices}, {data}}}"))
}

/// Julia's `eltype` of a tuple of values of these distinct types: their `promote_typejoin`,
/// as Julia's `_compute_eltype` folds it. None is `Union{}`, one itself; `Nothing` beside
/// others a `Union` with their join; numbers their closest abstract supertype (`Integer` of a
/// `Bool` and an `Int64`, `Real` of those, `Float64` and rationals, `Number` with a complex
/// number); anything else `Any`.
fn typejoin(types: &[Type]) -> String {
    let rest: Vec<&Type> = types.iter().filter(|t| **t != Type::Nothing).collect();
    if rest.len() < types.len() {
        return match rest.as_slice() {
            [] => "Nothing".to_string(),
            _ => match typejoin(&rest.into_iter().cloned().collect::<Vec<_>>()).as_str() {
                "Any" => "Any".to_string(),
                joined => format!("Union{{Nothing, {joined}}}"),
            },
        };
    }
    let names: Vec<String> = types.iter().map(crate::show::type_string).collect();
    match names.as_slice() {
        [] => return "Union{}".to_string(),
        [one] => return one.clone(),
        _ => {}
    }
    let integer = |n: &str| matches!(n, "Bool" | "Int64");
    let real = |n: &str| integer(n) || n == "Float64" || n.starts_with("Rational{");
    let number = |n: &str| real(n) || n.starts_with("Complex") || n == "ComplexF64";
    let all = |p: &dyn Fn(&str) -> bool| names.iter().all(|n| p(n));
    if all(&integer) {
        "Integer"
    } else if all(&real) {
        "Real"
    } else if all(&number) {
        "Number"
    } else {
        "Any"
    }
    .to_string()
}

/// Julia's `typeinfo_implicit`: is a value of type `t` shown so that its type reads back from
/// the text (`1.0`, `:a`, `"s"`, `[1.0]`, `(1, 2.0)`), so a container need not name it?
fn implicit(t: &Type) -> bool {
    match t {
        Type::Float64 | Type::Int64 | Type::String | Type::Symbol(_) => true,
        // Singleton types.
        Type::Nothing | Type::Function(_) => true,
        Type::Struct(s) if &*s.name == "Base.Char" => true,
        Type::Struct(s) if &*s.name == "Base.Pair" => s.params.iter().all(implicit),
        Type::Array(e, _) => implicit(e),
        Type::Tuple(ts) => ts.iter().all(implicit),
        Type::NamedTuple(fs) => fs.iter().all(|(_, t)| implicit(t)),
        _ => false,
    }
}

/// A pair inside a pair is parenthesised (`1 => (2 => 3)`).
fn pair_side<W: Write + ?Sized>(
    f: &mut W,
    v: &Value,
    show: fn(&mut W, &Value) -> fmt::Result,
) -> fmt::Result {
    let nested = matches!(v, Value::Struct(t, _) if &*t.name == "Base.Pair");
    if nested {
        f.write_char('(')?;
    }
    show(f, v)?;
    if nested {
        f.write_char(')')?;
    }
    Ok(())
}

/// `dst[i] = src[j]` for arrays of one element type.
fn set(dst: &mut ArrayData, i: usize, src: &ArrayData, j: usize) {
    match (dst, src) {
        (ArrayData::F64(d), ArrayData::F64(s)) => d[i] = s[j],
        (ArrayData::Int(d), ArrayData::Int(s)) => d[i] = s[j],
        (ArrayData::Bool(d), ArrayData::Bool(s)) => d[i] = s[j],
        _ => {}
    }
}

/// The elements of `parent` at the view's linear `indices` (a `StepRange`, or an array of
/// `Int`s whose shape is the view's) as a new array.
pub(crate) fn view_elements(parent: &Value, indices: &Value) -> Option<Array> {
    let Value::Array(p) = parent else { return None };
    let p = p.borrow();
    let mut shape = None;
    let picks: Vec<usize> = match indices {
        Value::Array(ix) => match &ix.borrow().data {
            ArrayData::Int(v) => {
                shape = Some(ix.borrow().shape);
                v.iter()
                    .map(|&k| usize::try_from(k - 1).ok())
                    .collect::<Option<_>>()?
            }
            _ => return None,
        },
        Value::Struct(t, fs) if &*t.name == "Base.StepRange" => {
            let [Value::Int(a), Value::Int(s), Value::Int(b)] = &fs[..] else {
                return None;
            };
            let n = if *s == 0 || step_range_empty(*a, *s, *b) {
                0
            } else {
                (b - a) / s + 1
            };
            (0..n)
                .map(|k| usize::try_from(a + k * s - 1).ok())
                .collect::<Option<_>>()?
        }
        _ => return None,
    };
    if picks.iter().any(|&k| k >= p.data.len()) {
        return None;
    }
    let mut data = ArrayData::zeros(p.data.elem(), picks.len());
    for (i, &k) in picks.iter().enumerate() {
        set(&mut data, i, &p.data, k);
    }
    let shape = shape.unwrap_or(Shape::Vector(picks.len()));
    Some(Array::new(shape, data))
}

/// The most elements [`range_elements`] lists; a longer range is left to its fields.
const RANGE_ELEMENTS_MAX: i64 = 1 << 24;

/// The elements of a range of Int64s or Float64s (`UnitRange`, `StepRange`, `StepRangeLen`,
/// `LinRange`: the prelude's fields `fields` of its struct `t`), as Julia computes them;
/// `None` for another struct or a range of more than [`RANGE_ELEMENTS_MAX`] elements.
pub(crate) fn range_elements(t: &StructType, fields: &[Value]) -> Option<Vec<Value>> {
    let field = |name: &str| {
        let k = t.fields.iter().position(|(n, _)| &**n == name)?;
        fields.get(k)
    };
    let int = |name: &str| match field(name) {
        Some(Value::Int(x)) => Some(*x),
        _ => None,
    };
    let float = |name: &str| match field(name) {
        Some(Value::F64(x)) => Some(*x),
        _ => None,
    };
    let listed = |n: i64| (n <= RANGE_ELEMENTS_MAX).then_some(1..=n.max(0));
    let ints = |a: i64, s: i64, b: i64| {
        let n = match step_range_empty(a, s, b) {
            true => 0,
            false => b.checked_sub(a)?.checked_div(s)?.checked_add(1)?,
        };
        Some(listed(n)?.map(|k| Value::Int(a + (k - 1) * s)).collect())
    };
    match &*t.name {
        "Base.UnitRange" => ints(int("start")?, 1, int("stop")?),
        "Base.OneTo" => ints(1, 1, int("stop")?),
        "Base.StepRange" => ints(int("start")?, int("step")?, int("stop")?),
        "Base.StepRangeLen" => {
            if let Some(r) = IntRangeLen::of(&field) {
                return Some(listed(r.len)?.map(|i| Value::Int(r.at(i))).collect());
            }
            let r = TwiceRange::of(&field)?;
            Some(listed(r.len)?.map(|i| Value::F64(r.at(i))).collect())
        }
        "Base.LinRange" => {
            let (a, b, n, d) = (float("start")?, float("stop")?, int("len")?, int("lendiv")?);
            let at = |i: i64| {
                let t = (i - 1) as f64 / d as f64;
                (1.0 - t) * a + t * b
            };
            Some(listed(n)?.map(|i| Value::F64(at(i))).collect())
        }
        _ => None,
    }
}

/// Is the Int range `a:s:b` (its stop the last element reached, or one before (after) the
/// start when it is empty, as Julia's `StepRange`) empty?
fn step_range_empty(a: i64, s: i64, b: i64) -> bool {
    a != b && ((s > 0) != (b > a))
}

/// A `StepRangeLen` of Ints (the prelude's `_int_srl`: its first element, step and length).
struct IntRangeLen {
    start: i64,
    step: i64,
    len: i64,
}

impl IntRangeLen {
    fn of<'a>(field: &impl Fn(&str) -> Option<&'a Value>) -> Option<IntRangeLen> {
        let int = |n: &str| match field(n) {
            Some(Value::Int(x)) => Some(*x),
            _ => None,
        };
        Some(IntRangeLen {
            start: int("start")?,
            step: int("step")?,
            len: int("len")?,
        })
    }

    /// Element `i` (1-based), with Julia's wrapping Int arithmetic.
    fn at(&self, i: i64) -> i64 {
        self.start.wrapping_add((i - 1).wrapping_mul(self.step))
    }
}

/// The twice-precision parts of a `StepRangeLen` (the prelude's fields), for its elements
/// computed as the prelude's `_srl_at` computes them (Julia's `unsafe_getindex`).
struct TwiceRange {
    ref_hi: f64,
    ref_lo: f64,
    step_hi: f64,
    step_lo: f64,
    len: i64,
    offset: i64,
}

impl TwiceRange {
    fn of<'a>(field: &impl Fn(&str) -> Option<&'a Value>) -> Option<TwiceRange> {
        let float = |n: &str| match field(n) {
            Some(Value::F64(x)) => Some(*x),
            _ => None,
        };
        let int = |n: &str| match field(n) {
            Some(Value::Int(x)) => Some(*x),
            _ => None,
        };
        Some(TwiceRange {
            ref_hi: float("ref_hi")?,
            ref_lo: float("ref_lo")?,
            step_hi: float("step_hi")?,
            step_lo: float("step_lo")?,
            len: int("len")?,
            offset: int("offset")?,
        })
    }

    /// Element `i` (1-based).
    fn at(&self, i: i64) -> f64 {
        let u = (i - self.offset) as f64;
        let (hi, lo) = add12(self.ref_hi, u * self.step_hi);
        hi + (lo + (u * self.step_lo + self.ref_lo))
    }
}

/// Julia's `add12`: `x + y` and its rounding error.
fn add12(x: f64, y: f64) -> (f64, f64) {
    let (big, little) = if y.abs() > x.abs() { (y, x) } else { (x, y) };
    let h = big + little;
    (h, (big - h) + little)
}

/// The elements of a `Set` from its field `items`: the keys of the `Dict` that holds.
pub(crate) fn set_elements(items: &Value) -> Option<Vec<Value>> {
    match items {
        Value::Struct(_, fs) => match fs.first() {
            Some(Value::Mutable(_, d)) => {
                crate::show::dict_entries(&d.borrow()).map(|(keys, _)| keys)
            }
            _ => None,
        },
        _ => None,
    }
}

/// The elements of a `BitSet`'s `items` (the prelude's `_BitSetItems`), in the order held.
fn bitset_elements(items: &Value) -> Option<Vec<i64>> {
    let Value::Mutable(_, fields) = items else {
        return None;
    };
    let fields = fields.borrow();
    match fields.first() {
        Some(Value::Array(a)) => match &a.borrow().data {
            ArrayData::Int(bits) => Some(bits.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// The dense matrix `Symmetric(a, uplo)` stands for: the kept triangle (`upper`) mirrored, if
/// `a` is a square matrix.
pub(crate) fn symmetric_elements(a: &Value, upper: bool) -> Option<Array> {
    let a = dense(a)?;
    let Shape::Matrix(n, m) = a.shape else {
        return None;
    };
    if n != m {
        return None;
    }
    let mut data = ArrayData::zeros(a.data.elem(), n * n);
    for j in 0..n {
        for i in 0..n {
            let kept = i == j || (i < j) == upper;
            let from = if kept { j * n + i } else { i * n + j };
            set(&mut data, j * n + i, &a.data, from);
        }
    }
    Some(Array::new(Shape::Matrix(n, n), data))
}

/// The 1×n matrix `transpose(x)` stands for, if `x` is a vector.
pub(crate) fn row_elements(x: &Value) -> Option<Array> {
    let x = dense(x)?;
    let Shape::Vector(n) = x.shape else {
        return None;
    };
    Some(Array::new(Shape::Matrix(1, n), x.data))
}

/// The matrix `A'` (`adjoint`) or `transpose(A)` of a matrix or view `a` stands for: `a`
/// transposed (of a vector view, the 1×n row), an adjoint's complex elements conjugated.
pub(crate) fn transposed_elements(a: &Value, adjoint: bool) -> Option<Array> {
    let a = dense(a)?;
    let (m, n) = match a.shape {
        Shape::Matrix(m, n) => (m, n),
        Shape::Vector(n) => (n, 1),
        _ => return None,
    };
    let data = match &a.data {
        ArrayData::Obj(o) => {
            let mut items = Vec::with_capacity(m * n);
            for j in 0..m {
                for i in 0..n {
                    let z = o.items.get(i * m + j)?;
                    items.push(if adjoint { conjugate(z)? } else { z.clone() });
                }
            }
            ArrayData::Obj(crate::value::Objects {
                elem: o.elem.clone(),
                items,
            })
        }
        numbers => {
            let mut data = ArrayData::zeros(numbers.elem(), m * n);
            for j in 0..m {
                for i in 0..n {
                    set(&mut data, j * n + i, numbers, i * m + j);
                }
            }
            data
        }
    };
    Some(Array::new(Shape::Matrix(n, m), data))
}

/// The elements of an array, or of a view (the prelude's `SubArray`) as a new array.
fn dense(a: &Value) -> Option<Array> {
    match a {
        Value::Array(a) => Some(a.borrow().clone()),
        Value::Struct(t, fs) if &*t.name == "Base.SubArray" => match &fs[..] {
            [parent, indices, ..] => view_elements(parent, indices),
            _ => None,
        },
        _ => None,
    }
}
