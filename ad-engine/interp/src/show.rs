//! Values and types printed as Julia's `show` prints them, and the `summary` text that Julia's
//! error messages use (`3-element Vector{Float64}`).

use std::fmt::{self, Write};

use zy_ir::{write_julia_float, StructKind, Type};

use crate::value::{Array, ArrayData, Shape, Value};

/// `repr(v)`: the value as Julia's `show` prints it (`8.0`, `(12.0, nothing)`, `[1.0 2.0; 3.0
/// 4.0]`, `Dense([1.0 2.0], [0.5])`, `Base.RefValue{Float64}(1.0)`).
pub fn show(v: &Value) -> String {
    let mut text = String::with_capacity(text_size(v));
    // Writing to a `String` cannot fail.
    let _ = write_value(&mut text, v);
    text
}

/// The keys and the values of the prelude's `Dict` (its fields `keys` and `vals`) in its
/// iteration order: the entries its field `slots` (Julia's table) points at, slot by slot, or
/// in their own order when its last field (`julia`) is false.
pub(crate) fn dict_entries(fields: &[Value]) -> Option<(Vec<Value>, Vec<Value>)> {
    let [Value::Array(k), Value::Array(v), Value::Array(slots), rest @ ..] = fields else {
        return None;
    };
    let (keys, vals) = (k.borrow().data.values(), v.borrow().data.values());
    if keys.len() != vals.len() {
        return None;
    }
    let mut held: Vec<usize> = slots
        .borrow()
        .data
        .values()
        .iter()
        .filter_map(|s| match s {
            Value::Int(i) => usize::try_from(i - 1).ok().filter(|&i| i < keys.len()),
            _ => None,
        })
        .collect();
    // A dictionary holding a key whose hash is not Julia's iterates its entries in order.
    if matches!(rest.last(), Some(Value::Bool(false))) {
        held.sort_unstable();
    }
    let entries = held.iter().map(|&i| (keys[i].clone(), vals[i].clone()));
    Some(entries.unzip())
}

/// About how many bytes [`show`] writes for `v` (arrays of floats dominate: a Float64 element
/// takes up to 24 bytes with its separator), so that it writes into one allocation.
fn text_size(v: &Value) -> usize {
    match v {
        Value::Array(a) | Value::Adjoint(a) => 16 + 24 * a.borrow().data.len(),
        Value::Tuple(vs) | Value::Struct(_, vs) | Value::NamedTuple(_, vs) => {
            16 + vs.iter().map(text_size).sum::<usize>()
        }
        _ => 32,
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_value(f, self)
    }
}

/// `v` as Julia's `show` prints it, written to `f` (monomorphised, so that [`show`] writes
/// straight into its `String`).
fn write_value<W: Write + ?Sized>(f: &mut W, v: &Value) -> fmt::Result {
    match v {
        Value::F64(x) => write_julia_float(f, *x),
        Value::Int(i) => write!(f, "{i}"),
        Value::Sized(k, i) => f.write_str(&zy_ir::show_int(*k, *i)),
        Value::Wide(k, bits) => f.write_str(&zy_ir::show_bits(*k, bits.get())),
        Value::F32(x) => f.write_str(&zy_ir::julia_float32(*x)),
        Value::Bool(b) => write!(f, "{b}"),
        Value::Nothing => f.write_str("nothing"),
        Value::Tuple(vs) => {
            f.write_str("(")?;
            comma_values(f, vs)?;
            if vs.len() == 1 {
                f.write_str(",")?;
            }
            f.write_str(")")
        }
        Value::NamedTuple(ns, vs) => {
            if vs.is_empty() {
                return f.write_str("NamedTuple()");
            }
            f.write_str("(")?;
            for (i, (n, v)) in ns.iter().zip(vs.iter()).enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{n} = ")?;
                write_value(f, v)?;
            }
            if vs.len() == 1 {
                f.write_str(",")?;
            }
            f.write_str(")")
        }
        Value::Struct(t, _) | Value::Mutable(t, _) if t.kind == StructKind::Closure => {
            f.write_str(&t.name)
        }
        Value::Struct(t, fields) => {
            if crate::show_library::write_library(f, t, fields, write_value::<W>)? {
                return Ok(());
            }
            write!(f, "{}(", type_string(&Type::Struct(t.clone())))?;
            comma_values(f, fields)?;
            f.write_str(")")
        }
        Value::Mutable(t, fields) if &*t.name == "Base.Dict" => {
            let Some((keys, vals)) = dict_entries(&fields.borrow()) else {
                return Err(fmt::Error);
            };
            if keys.is_empty() {
                let kv: Vec<String> = t.params.iter().map(type_string).collect();
                return write!(f, "Dict{{{}}}()", kv.join(", "));
            }
            // Julia names the type where a key or value type is abstract (`typeinfo_prefix`):
            // `Dict{String, Any}("lr" => 0.1)`.
            let open = |p: &Type| matches!(p, Type::Union(u) if matches!(&*u.name, "Any" | "Real" | "Number" | "Integer"));
            if t.params.iter().any(open) {
                write!(f, "{}(", type_string(&Type::Struct(t.clone())))?;
            } else {
                f.write_str("Dict(")?;
            }
            for (i, (k, v)) in keys.iter().zip(&vals).enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write_value(f, k)?;
                f.write_str(" => ")?;
                write_value(f, v)?;
            }
            f.write_str(")")
        }
        Value::Mutable(t, fields) => {
            if crate::show_library::write_library(f, t, &fields.borrow(), write_value::<W>)? {
                return Ok(());
            }
            write!(f, "{}(", type_string(&Type::Struct(t.clone())))?;
            comma_values(f, &fields.borrow())?;
            f.write_str(")")
        }
        Value::Ref(r) => {
            let inner = r.borrow();
            write!(f, "Base.RefValue{{{}}}(", type_string(&inner.julia_type()))?;
            write_value(f, &inner)?;
            f.write_str(")")
        }
        Value::Array(a) => show_array(f, &a.borrow(), true),
        Value::Adjoint(a) => {
            let a = a.borrow();
            if a.data.is_empty() {
                write!(f, "adjoint({}[])", a.data.elem().ty())
            } else {
                let row = Array::new(Shape::Matrix(1, a.data.len()), a.data.clone());
                show_array(f, &row, true)
            }
        }
        Value::Func(n) => f.write_str(&visible_name(n)),
        Value::Symbol(s) => write!(f, ":{s}"),
        Value::Str(s) | Value::SubStr(s) => f.write_str(&show_string(s)),
        // As Julia shows the exception's constructor call, where zy knows its fields.
        Value::Exception(e) => match (e.field("val"), e.field("msg")) {
            (Ok(val), Ok(msg)) => {
                write!(f, "{}(", e.name())?;
                write_value(f, &val)?;
                f.write_str(", ")?;
                write_value(f, &msg)?;
                f.write_str(")")
            }
            (_, Ok(msg)) => {
                write!(f, "{}(", e.name())?;
                write_value(f, &msg)?;
                f.write_str(")")
            }
            _ => f.write_str(&e.text),
        },
        Value::Stack(s) => {
            f.write_str("Stack[")?;
            comma_values(f, &s.borrow())?;
            f.write_str("]")
        }
        Value::Pullback(p) => write!(f, "pullback({})", p.instance.name),
        Value::Undef(_) => f.write_str("#undef"),
    }
}

/// The character a value of the prelude's `Char` holds.
pub(crate) fn char_of(v: &Value) -> Option<char> {
    match v {
        Value::Struct(t, fields) if &*t.name == "Base.Char" => match fields.first() {
            Some(Value::Int(c)) => char::from_u32(u32::try_from(*c).ok()?),
            _ => None,
        },
        _ => None,
    }
}

/// `c` as Julia escapes it inside quotes `quote` (`show` of a character, `escape_string`):
/// the usual backslash escapes, `\xHH` for other ASCII controls, `\u` for other unprintable
/// characters.
pub(crate) fn escape_char(c: char, quote: char) -> String {
    match c {
        '\\' => "\\\\".into(),
        '\n' => "\\n".into(),
        '\t' => "\\t".into(),
        '\r' => "\\r".into(),
        '\0' => "\\0".into(),
        '\u{7}' => "\\a".into(),
        '\u{8}' => "\\b".into(),
        '\u{b}' => "\\v".into(),
        '\u{c}' => "\\f".into(),
        '\u{1b}' => "\\e".into(),
        c if c == quote => format!("\\{c}"),
        c if (c as u32) < 0x20 || c == '\u{7f}' => format!("\\x{:02x}", c as u32),
        c if c.is_control() || c.is_whitespace() && c != ' ' => format!("\\u{:x}", c as u32),
        c => c.to_string(),
    }
}

/// A string as Julia's `show` writes it: in quotes, `"`, `\\` and `$` escaped (so that the
/// text reads back as the same string), and what is not printable as `escape_string` writes
/// it: `\n`, `\e`, `\x7f`, `\u200b`, `\U10ffff` (four or eight hex digits before a hex digit).
fn show_string(s: &str) -> String {
    let mut out = String::from("\"");
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        let before_hex = chars.peek().is_some_and(|d| d.is_ascii_hexdigit());
        let code = c as u32;
        match c {
            '$' => out.push_str("\\$"),
            '\0' if chars.peek().is_some_and(|d| ('0'..='7').contains(d)) => out.push_str("\\x00"),
            _ if c.is_ascii() => out.push_str(&escape_char(c, '"')),
            _ if printable(c) => out.push(c),
            _ if code <= 0xffff => {
                let _ = write!(out, "\\u{code:0w$x}", w = if before_hex { 4 } else { 2 });
            }
            _ => {
                let _ = write!(out, "\\U{code:0w$x}", w = if before_hex { 8 } else { 4 });
            }
        }
    }
    out.push('"');
    out
}

/// Julia's `isprint` of a character beyond ASCII: not a control, format, separator (line,
/// paragraph), private-use or noncharacter code point.
fn printable(c: char) -> bool {
    let code = c as u32;
    let format = matches!(
        code,
        0xad | 0x600..=0x605
            | 0x61c
            | 0x6dd
            | 0x70f
            | 0x890..=0x891
            | 0x8e2
            | 0x180e
            | 0x200b..=0x200f
            | 0x202a..=0x202e
            | 0x2060..=0x2064
            | 0x2066..=0x206f
            | 0xfeff
            | 0xfff9..=0xfffb
            | 0x110bd
            | 0x110cd
            | 0x13430..=0x1343f
            | 0x1bca0..=0x1bca3
            | 0x1d173..=0x1d17a
            | 0xe0001
            | 0xe0020..=0xe007f
    );
    let private = matches!(code, 0xe000..=0xf8ff | 0xf0000..=0xffffd | 0x100000..=0x10fffd);
    let nonchar = matches!(code, 0xfdd0..=0xfdef) || code & 0xfffe == 0xfffe;
    !(c.is_control() || format || private || nonchar || matches!(code, 0x2028 | 0x2029))
}

fn comma_values<W: Write + ?Sized>(f: &mut W, vs: &[Value]) -> fmt::Result {
    for (i, v) in vs.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write_value(f, v)?;
    }
    Ok(())
}

/// Element `i` of `data` as it appears inside an array literal (`Bool`s as `1` and `0`).
fn element<W: Write + ?Sized>(f: &mut W, data: &ArrayData, i: usize) -> fmt::Result {
    match data {
        ArrayData::F64(v) => v.get(i).map_or(Ok(()), |&x| write_julia_float(f, x)),
        ArrayData::Int(v) => v.get(i).map_or(Ok(()), |x| write!(f, "{x}")),
        ArrayData::Bool(v) => v
            .get(i)
            .map_or(Ok(()), |&x| f.write_str(if x { "1" } else { "0" })),
        // An element array is shown as its outer array's type says it (no prefix of its own:
        // `Vector{Bool}[[1, 0]]`), as Julia's `:typeinfo` context does.
        ArrayData::Obj(o) => match o.items.get(i) {
            Some(Value::Array(a)) => show_array(f, &a.borrow(), false),
            // The array's type says Float32: `Float32[1.0, 2.5]`.
            Some(Value::F32(x)) if o.elem == Type::Float32 => {
                f.write_str(&zy_ir::print_float32(*x))
            }
            Some(v) => write_value(f, v),
            None => Ok(()),
        },
    }
}

/// Julia's `typeinfo_implicit`: can elements of type `t` be read back from their plain
/// printed form (`Float64`, `Int64`, arrays and tuples of such), so that an array of them
/// needs no element-type prefix?
fn implicit(t: &Type) -> bool {
    match t {
        Type::Float64 | Type::Int64 | Type::Nothing | Type::Function(_) | Type::String => true,
        Type::Symbol(_) => true,
        Type::Array(e, _) => implicit(e),
        Type::Tuple(ts) => ts.iter().all(implicit),
        Type::NamedTuple(fs) => fs.iter().all(|(_, t)| implicit(t)),
        Type::Struct(s) if &*s.name == "Base.Pair" => s.params.iter().all(implicit),
        Type::Struct(s) => &*s.name == "Base.Char",
        _ => false,
    }
}

/// `a` as Julia shows it; `typed` when the context does not already know its element type
/// (an element of an array of arrays is shown without its own prefix).
fn show_array<W: Write + ?Sized>(f: &mut W, a: &Array, typed: bool) -> fmt::Result {
    let elem = crate::show_views::views_type(a).unwrap_or_else(|| type_string(&a.elem_type()));
    // Julia prefixes the element type where the literal would not say it (`Bool[1, 0]`,
    // `Layer[Layer(...)]`).
    let prefix = if typed && !implicit(&a.elem_type()) {
        elem.as_str()
    } else {
        ""
    };
    match a.shape {
        Shape::Vector(0) => write!(f, "{elem}[]"),
        Shape::Vector(n) => {
            write!(f, "{prefix}[")?;
            for i in 0..n {
                if i > 0 {
                    f.write_str(", ")?;
                }
                element(f, &a.data, i)?;
            }
            f.write_str("]")
        }
        Shape::Matrix(m, n) if m == 0 || n == 0 => {
            write!(f, "Matrix{{{elem}}}(undef, {m}, {n})")
        }
        Shape::Matrix(m, 1) => {
            write!(f, "{prefix}[")?;
            for i in 0..m {
                if i > 0 {
                    f.write_str("; ")?;
                }
                element(f, &a.data, i)?;
            }
            f.write_str(";;]")
        }
        Shape::Matrix(m, n) => {
            write!(f, "{prefix}[")?;
            matrix_rows(f, &a.data, m, n, 0)?;
            f.write_str("]")
        }
        Shape::Nd(d) if d.as_slice().contains(&0) => {
            let sizes: Vec<String> = d.as_slice().iter().map(usize::to_string).collect();
            write!(
                f,
                "Array{{{elem}, {}}}(undef, {})",
                sizes.len(),
                sizes.join(", ")
            )
        }
        Shape::Nd(d) => {
            write!(f, "{prefix}[")?;
            show_block(f, &a.data, d.as_slice())?;
            f.write_str("]")
        }
    }
}

/// The elements of an N-d array with sizes `ds` (at least three), as Julia's literal writes
/// them: the matrices of the first two dimensions in column-major order of the others, each
/// preceded by one `;` per dimension up to the highest one whose index changed, and, when the
/// last dimension never changed (its length is one), that many `;` again at the end.
fn show_block<W: Write + ?Sized>(f: &mut W, data: &ArrayData, ds: &[usize]) -> fmt::Result {
    let [m, n, trailing @ ..] = ds else {
        return Ok(());
    };
    let (m, n) = (*m, *n);
    let slices: usize = trailing.iter().product();
    let mut reached_last = false;
    for k in 0..slices {
        if k > 0 {
            // The highest trailing dimension whose index changed from slice k - 1 to k.
            let mut changed = 2;
            let mut stride = 1;
            for (d, &len) in ds.iter().enumerate().skip(2) {
                if k % (stride * len) == 0 {
                    stride *= len;
                    continue;
                }
                changed = d;
                break;
            }
            reached_last |= changed + 1 == ds.len();
            write!(f, "{} ", ";".repeat(changed + 1))?;
        }
        matrix_rows(f, data, m, n, k * m * n)?;
    }
    if !reached_last {
        f.write_str(&";".repeat(ds.len()))?;
    }
    Ok(())
}

/// The rows of the m×n matrix stored column-major from position `at`, as a literal writes
/// them: elements apart by spaces, rows by `; `.
fn matrix_rows<W: Write + ?Sized>(
    f: &mut W,
    data: &ArrayData,
    m: usize,
    n: usize,
    at: usize,
) -> fmt::Result {
    for i in 0..m {
        if i > 0 {
            f.write_str("; ")?;
        }
        for j in 0..n {
            if j > 0 {
                f.write_str(" ")?;
            }
            element(f, data, at + j * m + i)?;
        }
    }
    Ok(())
}

/// A type as Julia prints it: `NTuple{4, Float64}` for long homogeneous tuples and
/// `@NamedTuple{a::Float64}` for named tuples; otherwise as the IR prints it.
pub fn type_string(t: &Type) -> String {
    match t {
        Type::Tuple(ts) if ts.len() > 3 && ts.iter().all(|x| *x == ts[0]) => {
            format!("NTuple{{{}, {}}}", ts.len(), type_string(&ts[0]))
        }
        Type::Tuple(ts) => {
            let inner: Vec<String> = ts.iter().map(type_string).collect();
            format!("Tuple{{{}}}", inner.join(", "))
        }
        Type::NamedTuple(fs) => {
            let mut s = String::from("@NamedTuple{");
            for (i, (n, t)) in fs.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                let _ = write!(s, "{n}::{}", type_string(t));
            }
            s.push('}');
            s
        }
        Type::Ref(inner) => format!("Base.RefValue{{{}}}", type_string(inner)),
        // Julia's alias `ComplexF64`; other complex types by their exported name.
        Type::Struct(s) if &*s.name == "Base.Complex" => match s.params.as_slice() {
            [Type::Float64] => "ComplexF64".to_string(),
            [p] => format!("Complex{{{}}}", type_string(p)),
            _ => t.to_string(),
        },
        Type::Struct(s) if &*s.name == "Base.Rational" => match s.params.as_slice() {
            [p] => format!("Rational{{{}}}", type_string(p)),
            _ => t.to_string(),
        },
        Type::Struct(s) if &*s.name == "Base.Char" => "Char".to_string(),
        // Julia's 0-dimensional array (the prelude's struct holding its element).
        Type::Struct(s) if &*s.name == "Base.ZeroDimArray" => match s.params.as_slice() {
            [p] => format!("Array{{{}, 0}}", type_string(p)),
            _ => t.to_string(),
        },
        Type::Struct(s) if &*s.name == "Base.Pair" => match s.params.as_slice() {
            [a, b] => format!("Pair{{{}, {}}}", type_string(a), type_string(b)),
            _ => t.to_string(),
        },
        // Julia's `CartesianIndex{N}` and `CartesianIndices{N, Tuple{Base.OneTo{Int64}, ...}}`
        // of the prelude's structs parametrised by their tuple of `N` Ints.
        Type::Struct(s) if matches!(&*s.name, "Base.CartesianIndex" | "Base.CartesianIndices") => {
            zy_ir::julia_cartesian_names(visible_name(&t.to_string()))
        }
        Type::Adjoint(e) => format!("LinearAlgebra.Adjoint{{{e}, Vector{{{e}}}}}"),
        Type::Struct(s) if &*s.name == "Base.StepRangeLen" && s.params[..] == [Type::Float64] => {
            FLOAT_RANGE_TYPE.to_string()
        }
        Type::Struct(s) if &*s.name == "Base.StepRangeLen" && s.params[..] == [Type::Int64] => {
            INT_RANGE_LEN_TYPE.to_string()
        }
        // Base's exported text types, unqualified as in `Main`.
        Type::Struct(s) if matches!(&*s.name, "Base.RegexMatch" | "Base.IOBuffer") => {
            s.name["Base.".len()..].to_string()
        }
        // Base's exported `IndexStyle` traits.
        Type::Struct(s) if matches!(&*s.name, "Base.IndexLinear" | "Base.IndexCartesian") => {
            s.name["Base.".len()..].to_string()
        }
        Type::Struct(s) if &*s.name == "Base.Pairs" => {
            crate::show_library::pairs_type_string(s).unwrap_or_else(|| t.to_string())
        }
        // A parametric struct with its parameters as Julia prints them (`P{Char}`, not the
        // IR's `P{Base.Char}`).
        Type::Struct(s) if !s.params.is_empty() => {
            let params: Vec<String> = s.params.iter().map(type_string).collect();
            format!("{}{{{}}}", visible_name(&s.name), params.join(", "))
        }
        other => other.to_string(),
    }
}

/// Julia's type of a Float64 range (the prelude's `StepRangeLen{Float64}`).
const FLOAT_RANGE_TYPE: &str =
    "StepRangeLen{Float64, Base.TwicePrecision{Float64}, Base.TwicePrecision{Float64}, Int64}";

/// Julia's type of an Int range by length (`2 .* (1:3)`, the prelude's `StepRangeLen{Int64}`).
const INT_RANGE_LEN_TYPE: &str = "StepRangeLen{Int64, Int64, Int64, Int64}";

/// A type or function value's name as Julia shows it in `Main` (with `using LinearAlgebra`,
/// `using Distributions`):
/// the library's names unqualified (`UnitRange{Int64}`, `Tridiagonal{Float64, Vector{Float64}}`,
/// `sin`), complex numbers as `ComplexF64` and `Complex{Int64}`.
pub(crate) fn visible_name(n: &str) -> String {
    let n = n.replace("Base.Complex{Float64}", "ComplexF64");
    // `codeunits(s)`'s type, whose parameters zy's struct does not carry.
    let n = n.replace("Base.CodeUnits", "Base.CodeUnits{UInt8, String}");
    let mut out = String::with_capacity(n.len());
    let mut rest = n.as_str();
    while !rest.is_empty() {
        let at_word = !out.ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '.');
        // `Base.OneTo`, `Base.CodeUnits`, `Base.ReinterpretArray` and LinearAlgebra's `Q`
        // operators are not exported: Julia names them with their module.
        let module = ["Base.", "LinearAlgebra.", "Distributions.", "Dates."]
            .into_iter()
            .find(|m| {
                at_word
                    && rest.starts_with(m)
                    && ![
                        "OneTo",
                        "CodeUnits",
                        "ReinterpretArray",
                        "HessenbergQ",
                        "AdjointQ",
                        "AbstractQ",
                    ]
                    .iter()
                    .any(|t| rest[m.len()..].starts_with(t))
            });
        // `Int` and `UInt` are aliases: Julia shows the types they name.
        let alias = ["Int", "UInt"].into_iter().find(|a| {
            at_word
                && rest.starts_with(a)
                && !rest[a.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
        });
        match (module, alias) {
            (Some(m), _) => rest = &rest[m.len()..],
            (None, Some(a)) => {
                out.push_str(a);
                out.push_str("64");
                rest = &rest[a.len()..];
            }
            (None, None) => {
                let c = rest.chars().next().unwrap_or_default();
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    zy_ir::julia_cartesian_names(
        out.replace("StepRangeLen{Float64}", FLOAT_RANGE_TYPE)
            .replace("StepRangeLen{Int64}", INT_RANGE_LEN_TYPE),
    )
}

/// Julia's `summary(v)`, as used in `BoundsError` messages.
pub fn summary(v: &Value) -> String {
    match v {
        Value::Array(a) => {
            let a = a.borrow();
            match a.shape {
                Shape::Vector(n) => format!("{n}-element {}", a.ty()),
                Shape::Matrix(m, n) => format!("{m}×{n} {}", a.ty()),
                Shape::Nd(d) => {
                    let sizes: Vec<String> = d.as_slice().iter().map(usize::to_string).collect();
                    format!("{} {}", sizes.join("×"), a.ty())
                }
            }
        }
        Value::Adjoint(a) => {
            let a = a.borrow();
            let e = a.data.elem().ty();
            format!(
                "1×{} adjoint(::Vector{{{e}}}) with eltype {e}",
                a.data.len()
            )
        }
        other => type_string(&other.julia_type()),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use expect_test::expect;
    use zy_ir::StructType;

    use super::*;

    fn matrix(m: usize, n: usize, data: Vec<f64>) -> Value {
        Value::matrix_f64(m, n, data).unwrap()
    }

    fn dense_type() -> Arc<StructType> {
        Arc::new(StructType {
            name: "Dense".into(),
            params: vec![],
            fields: vec![
                ("W".into(), Type::matrix_f64()),
                ("b".into(), Type::vector_f64()),
            ],
            mutable: false,
            kind: StructKind::User,
        })
    }

    #[test]
    fn scalars_and_tuples() {
        assert_eq!(show(&Value::F64(8.0)), "8.0");
        assert_eq!(show(&Value::Int(3)), "3");
        assert_eq!(show(&Value::Bool(true)), "true");
        assert_eq!(
            show(&Value::tuple([Value::F64(12.0), Value::Nothing])),
            "(12.0, nothing)"
        );
        assert_eq!(show(&Value::tuple([Value::F64(1e-7)])), "(1.0e-7,)");
        assert_eq!(show(&Value::tuple([])), "()");
    }

    #[test]
    fn arrays_print_as_literals() {
        assert_eq!(show(&Value::vector_f64(vec![1.0, 2.0])), "[1.0, 2.0]");
        assert_eq!(show(&Value::vector_f64(vec![])), "Float64[]");
        // Column-major storage [1 3; 2 4] read back row by row.
        assert_eq!(
            show(&matrix(2, 2, vec![1.0, 3.0, 2.0, 4.0])),
            "[1.0 2.0; 3.0 4.0]"
        );
        assert_eq!(show(&matrix(1, 2, vec![1.0, 2.0])), "[1.0 2.0]");
        assert_eq!(show(&matrix(2, 1, vec![1.0, 2.0])), "[1.0; 2.0;;]");
        assert_eq!(show(&matrix(0, 3, vec![])), "Matrix{Float64}(undef, 0, 3)");
        let ints = Array::new(Shape::Vector(2), ArrayData::Int(vec![1, -2])).into_value();
        assert_eq!(show(&ints), "[1, -2]");
        let bools = Array::new(Shape::Vector(2), ArrayData::Bool(vec![true, false])).into_value();
        assert_eq!(show(&bools), "Bool[1, 0]");
        let Value::Array(v) = Value::vector_f64(vec![1.0, 2.0]) else {
            unreachable!()
        };
        assert_eq!(show(&Value::Adjoint(v)), "[1.0 2.0]");
    }

    #[test]
    fn n_d_arrays_print_as_julia_literals() {
        let nd = |ds: &[usize]| {
            let n: usize = ds.iter().product();
            let data = (1..=n).map(|k| k as f64).collect();
            Array::new(Shape::from_dims(ds).unwrap(), ArrayData::F64(data)).into_value()
        };
        // Each slice after the first is preceded by one `;` per dimension up to the highest
        // whose index changed; a last dimension of length one is said at the end.
        assert_eq!(
            show(&nd(&[2, 2, 2])),
            "[1.0 3.0; 2.0 4.0;;; 5.0 7.0; 6.0 8.0]"
        );
        assert_eq!(
            show(&nd(&[2, 2, 1, 2])),
            "[1.0 3.0; 2.0 4.0;;;; 5.0 7.0; 6.0 8.0]"
        );
        assert_eq!(show(&nd(&[1, 2, 1, 2])), "[1.0 2.0;;;; 3.0 4.0]");
        assert_eq!(
            show(&nd(&[2, 1, 2, 2])),
            "[1.0; 2.0;;; 3.0; 4.0;;;; 5.0; 6.0;;; 7.0; 8.0]"
        );
        assert_eq!(show(&nd(&[2, 2, 1])), "[1.0 3.0; 2.0 4.0;;;]");
        assert_eq!(show(&nd(&[1, 1, 2, 1])), "[1.0;;; 2.0;;;;]");
    }

    #[test]
    fn structs_named_tuples_and_refs() {
        let d = Value::new_struct(
            dense_type(),
            vec![matrix(1, 2, vec![1.0, 2.0]), Value::vector_f64(vec![0.5])],
        );
        assert_eq!(show(&d), "Dense([1.0 2.0], [0.5])");
        let nt = Value::NamedTuple(
            vec!["W".into(), "b".into()].into(),
            vec![matrix(1, 2, vec![1.0, 2.0]), Value::vector_f64(vec![0.5])].into(),
        );
        assert_eq!(show(&nt), "(W = [1.0 2.0], b = [0.5])");
        let one = Value::NamedTuple(vec!["x".into()].into(), vec![Value::F64(1.0)].into());
        assert_eq!(show(&one), "(x = 1.0,)");
        assert_eq!(
            show(&Value::new_ref(Value::F64(1.0))),
            "Base.RefValue{Float64}(1.0)"
        );
    }

    fn complex(re: Value, im: Value) -> Value {
        let t = re.julia_type();
        let ty = Arc::new(StructType {
            name: "Base.Complex".into(),
            params: vec![t.clone()],
            fields: vec![("re".into(), t.clone()), ("im".into(), t)],
            mutable: false,
            kind: StructKind::User,
        });
        Value::new_struct(ty, vec![re, im])
    }

    #[test]
    fn complex_numbers_as_julia_shows_them() {
        let c = |re: f64, im: f64| complex(Value::F64(re), Value::F64(im));
        assert_eq!(show(&c(1.0, 2.0)), "1.0 + 2.0im");
        assert_eq!(show(&c(0.0, -1.0)), "0.0 - 1.0im");
        assert_eq!(show(&c(-0.0, -0.0)), "-0.0 - 0.0im");
        assert_eq!(show(&c(1.0, f64::NAN)), "1.0 + NaN*im");
        assert_eq!(show(&c(1.0, f64::NEG_INFINITY)), "1.0 - Inf*im");
        assert_eq!(show(&complex(Value::Int(1), Value::Int(-2))), "1 - 2im");
        assert_eq!(
            show(&complex(Value::Int(0), Value::Int(i64::MIN))),
            "0 - 9223372036854775808im"
        );
        assert_eq!(show(&complex(Value::Bool(false), Value::Bool(true))), "im");
        assert_eq!(
            show(&complex(Value::Bool(true), Value::Bool(false))),
            "Complex(true,false)"
        );
        let Value::Struct(t, _) = c(0.0, 0.0) else {
            unreachable!()
        };
        let v = Array::new(
            Shape::Vector(2),
            ArrayData::Obj(crate::value::Objects {
                elem: Type::Struct(t),
                items: vec![c(1.0, 2.0), c(3.0, -1.0)],
            }),
        );
        assert_eq!(
            show(&v.into_value()),
            "ComplexF64[1.0 + 2.0im, 3.0 - 1.0im]"
        );
        assert_eq!(
            show(&Value::Func("Vector{Base.Complex{Float64}}".into())),
            "Vector{ComplexF64}"
        );
        assert_eq!(
            show(&Value::Func("Base.Complex{Int64}".into())),
            "Complex{Int64}"
        );
    }

    #[test]
    fn closures_print_their_name_and_parametric_structs_their_parameters() {
        let closure = Arc::new(StructType {
            name: "#f#1".into(),
            params: vec![],
            fields: vec![("a".into(), Type::Float64)],
            mutable: false,
            kind: StructKind::Closure,
        });
        assert_eq!(
            show(&Value::new_struct(closure, vec![Value::F64(1.0)])),
            "#f#1"
        );
        let bar = Arc::new(StructType {
            name: "Bar".into(),
            params: vec![Type::Float64],
            fields: vec![("a".into(), Type::Float64)],
            mutable: true,
            kind: StructKind::User,
        });
        assert_eq!(
            show(&Value::new_struct(bar, vec![Value::F64(1.5)])),
            "Bar{Float64}(1.5)"
        );
        assert_eq!(show(&Value::Func("sin".into())), "sin");
        assert_eq!(
            show(&Value::Func(
                "LinearAlgebra.Tridiagonal{Float64, Vector{Float64}}".into()
            )),
            "Tridiagonal{Float64, Vector{Float64}}"
        );
        assert_eq!(
            show(&Value::Func("Base.UnitRange{Int64}".into())),
            "UnitRange{Int64}"
        );
        assert_eq!(show(&Value::Func("M.Base.f".into())), "M.Base.f");
    }

    #[test]
    fn summaries_for_errors() {
        expect![["3-element Vector{Float64}"]]
            .assert_eq(&summary(&Value::vector_f64(vec![0.0; 3])));
        expect![["2×3 Matrix{Float64}"]].assert_eq(&summary(&matrix(2, 3, vec![0.0; 6])));
        let t = Value::tuple([Value::F64(1.0), Value::F64(2.0)]);
        expect![["Tuple{Float64, Float64}"]].assert_eq(&summary(&t));
        let t4 = Value::tuple(vec![Value::Int(1); 4]);
        expect![["NTuple{4, Int64}"]].assert_eq(&summary(&t4));
        let Value::Array(v) = Value::vector_f64(vec![1.0, 2.0]) else {
            unreachable!()
        };
        expect![["1×2 adjoint(::Vector{Float64}) with eltype Float64"]]
            .assert_eq(&summary(&Value::Adjoint(v)));
    }
}
