//! Strings as values: `string(xs...)`, `a * b`, `==`, `length`, `uppercase`, `startswith`,
//! `occursin`, ... of `String`s, each a primitive without a gradient (`string`, `string_fn`);
//! `Symbol(s)` of a string, and `==` of symbols known only at run time (`Vector{Symbol}`'s
//! elements, a `Dict`'s keys).

use std::sync::Arc;

use zy_ir::{Const, IntKind, Prim, Type};

use crate::error::{no_method, Fail};
use crate::plan::{Arg, PlanBuilder};
use crate::value::Val;

fn is_str(v: &Val) -> bool {
    v.ty.is_string()
}

/// The builtins of strings (beside `==`, `*`, `length` and the others they share).
pub(crate) const NAMES: &[&str] = &[
    "string",
    "String",
    "Symbol",
    "uppercase",
    "lowercase",
    "startswith",
    "endswith",
    "occursin",
    "_string_hash",
    "_sprintf",
    "split",
    "_split",
    "ncodeunits",
    "strip",
    "lstrip",
    "rstrip",
    "lpad",
    "rpad",
    "_replace",
    "_regex_flags",
    "_regex_find",
    "_regex_replace",
    "_regex_split",
    "_regex_names",
    "_str_bytes",
    "_bits_bytes",
    "_bytes_bits",
    "_parse_int",
    "_parse_int128",
    "_parse_uint128",
    "_parse_float",
    "_tryparse_int",
    "_tryparse_float",
    "_char_at",
    "_char_nth",
    "_char_find",
    "_char_fn",
    "_str_ind",
    "_str_codes",
    "_str_slice",
    "_substring",
    "_str_find",
    "_str_indices",
    "_str_graphemes",
];

/// `string_fn(:f, args...)` with result type `ty`.
fn string_fn(b: &mut PlanBuilder, f: &str, args: &[Val], ty: Type) -> Val {
    let mut all = vec![Arg::Const(Const::Symbol(f.into()))];
    all.extend(args.iter().map(|a| a.arg.clone()));
    Val::of(b.prim(Prim::StringFn, all, ty.clone()), ty)
}

/// No `base` keyword, or an Int one (`nothing`: none given).
fn int_base(base: &[Val]) -> bool {
    base.len() <= 1
        && base
            .iter()
            .all(|b| matches!(b.ty, Type::Int64 | Type::Nothing))
}

/// Is `ty` a number type whose bytes `write` puts in a stream (`Float64`, `Int32`, `Bool`, ...)?
fn is_bits(ty: &Type) -> bool {
    ty.is_number() || matches!(ty, Type::Float32) || matches!(ty, Type::Int(k) if !k.wide())
}

/// `!v` of a `Bool`.
fn not(b: &mut PlanBuilder, v: Val) -> Val {
    Val::of(b.prim(Prim::Not, vec![v.arg], Type::Bool), Type::Bool)
}

/// Dispatch the string builtins; `None` if `name` is not one for these operands.
pub(crate) fn call(b: &mut PlanBuilder, name: &str, args: &[Val]) -> Option<Result<Val, Fail>> {
    // `==` of a symbol known only at run time: compared when the program runs.
    if let ("==" | "!=" | "===", [x, y]) = (name, args) {
        if let (Type::Symbol(_), Type::Symbol(_)) = (&x.ty, &y.ty) {
            if x.ty.is_any_symbol() || y.ty.is_any_symbol() {
                let eq = string_fn(b, "==", args, Type::Bool);
                return Some(Ok(match name {
                    "==" | "===" => eq,
                    _ => not(b, eq),
                }));
            }
        }
    }
    if !NAMES.contains(&name) && !args.iter().any(is_str) {
        return None;
    }
    let all_str = args.iter().all(is_str);
    Some(Ok(match (name, args) {
        // One conversion of `@sprintf(fmt, xs...)` (lowering's): `spec` a literal such as
        // `"%.3f"`, `x` a number.
        // `%s` with a width or precision, `%c`: the value as `print` writes it (a code point
        // for `%c` as it is).
        (
            "_sprintf",
            [spec @ Val {
                konst: Some(Const::Str(text)),
                ..
            }, x],
        ) if text.ends_with(['s', 'S', 'c', 'C']) && printable(&x.ty) => {
            let x = match x.ty {
                Type::Int64 if text.ends_with(['c', 'C']) => x.clone(),
                _ => as_string(b, x),
            };
            string_fn(b, "sprintf", &[spec.clone(), x], Type::String)
        }
        ("_sprintf", [spec, x]) if is_str(spec) => {
            if !matches!(
                x.ty,
                Type::Float64 | Type::Float32 | Type::Int64 | Type::Int(_) | Type::Bool
            ) {
                return Some(Err(Fail::unsupported(format!(
                    "`@sprintf` of a value of type {} for a numeric conversion",
                    x.ty
                ))));
            }
            string_fn(b, "sprintf", args, Type::String)
        }
        // Julia's `print` of a value other than a string, a character or a symbol is its
        // `show`: a struct, a named tuple, a `Dict`, a matrix or a vector of strings as
        // `repr` writes it.
        ("string", _) => {
            let all = args
                .iter()
                .map(|a| match printable(&a.ty) {
                    true => a.arg.clone(),
                    false => b.prim(Prim::ExceptionText, vec![a.arg.clone()], Type::String),
                })
                .collect();
            Val::of(b.prim(Prim::StringOf, all, Type::String), Type::String)
        }
        // `Symbol("a")`: the symbol `:a`, known where zy compiles it as every symbol is.
        (
            "Symbol",
            [Val {
                konst: Some(Const::Str(text)),
                ..
            }],
        ) => Val::lit(Const::Symbol(text.clone())),
        // Of a string known only at run time: a symbol known only at run time.
        ("Symbol", [s]) if is_str(s) => string_fn(b, "Symbol", args, Type::any_symbol()),
        (
            "Symbol",
            [Val {
                ty: Type::Symbol(_),
                ..
            }],
        ) => args[0].clone(),
        // `Symbol(x...)`: the symbol of `string(x...)`.
        ("Symbol", [_, ..]) if args.iter().all(|a| printable(&a.ty)) => {
            let all = args.iter().map(|a| a.arg.clone()).collect();
            let s = Val::of(b.prim(Prim::StringOf, all, Type::String), Type::String);
            string_fn(b, "Symbol", &[s], Type::any_symbol())
        }
        // A `SubString`'s text as a `String` (both hold their text alike).
        ("String", [s]) if s.ty == Type::String => s.clone(),
        ("String", [s]) if is_str(s) => match crate::value::convert(b, s.clone(), &Type::String) {
            Ok(v) => v,
            Err(e) => return Some(Err(e)),
        },
        // The text of a `Vector{UInt8}` (`String(take!(io))`).
        ("String", [v]) if v.ty == Type::Array(Arc::new(Type::Int(IntKind::UInt8)), 1) => {
            string_fn(b, "bytes_str", args, Type::String)
        }
        // Julia has no `String` of `nothing` (a regex group absent from a match) or a number.
        ("String", [x]) if x.ty == Type::Nothing || x.ty.is_number() => {
            return Some(Err(no_method("String", &crate::value::types(args))))
        }
        ("String", _) => {
            return Some(Err(Fail::unsupported(
                "`String(...)` of anything but a string or a `Vector{UInt8}`; write `string(x)` \
                 instead",
            )))
        }
        // `*` of strings concatenates (`string(a, b)`).
        ("*", [_, _, ..]) if all_str => {
            let all = args.iter().map(|a| a.arg.clone()).collect();
            Val::of(b.prim(Prim::StringOf, all, Type::String), Type::String)
        }
        ("==", [_, _]) if all_str => string_fn(b, "==", args, Type::Bool),
        // Julia's egal of two `String`s compares their content.
        ("===", [x, y]) if x.ty == Type::String && y.ty == Type::String => {
            string_fn(b, "==", args, Type::Bool)
        }
        ("!=", [_, _]) if all_str => {
            let eq = string_fn(b, "==", args, Type::Bool);
            not(b, eq)
        }
        // Julia's order of strings, by code point (`"Z" < "a" < "é"`, a prefix first).
        ("<", [_, _]) if all_str => string_fn(b, "<", args, Type::Bool),
        (">", [x, y]) if all_str => string_fn(b, "<", &[y.clone(), x.clone()], Type::Bool),
        ("<=", [x, y]) if all_str => {
            let gt = string_fn(b, "<", &[y.clone(), x.clone()], Type::Bool);
            not(b, gt)
        }
        (">=", [_, _]) if all_str => {
            let lt = string_fn(b, "<", args, Type::Bool);
            not(b, lt)
        }
        // Julia's `hash(s, h)` of a string key, `objectid(s)` of a symbol (`h` unused), for the
        // prelude's Dict (known here: a constant).
        (
            "_string_hash",
            [Val {
                konst: Some(Const::Str(text)),
                ..
            }, Val {
                konst: Some(Const::Int(h)),
                ..
            }],
        ) => Val::lit(Const::Int(zy_ir::ops::string_hash(text, *h))),
        (
            "_string_hash",
            [Val {
                konst: Some(Const::Symbol(name)),
                ..
            }, _],
        ) => Val::lit(Const::Int(zy_ir::ops::symbol_hash(name))),
        ("_string_hash", [s, h])
            if (is_str(s) || matches!(s.ty, Type::Symbol(_))) && h.ty == Type::Int64 =>
        {
            string_fn(b, "hash", args, Type::Int64)
        }
        // `s^n`, `repeat(s, n)`: `s` written `n` times.
        ("^" | "repeat", [s, n]) if is_str(s) && n.ty == Type::Int64 => {
            string_fn(b, "repeat", args, Type::String)
        }
        ("length", [_]) if all_str => string_fn(b, "length", args, Type::Int64),
        // `split(s)` at whitespace, `split(s, delim)` at each `delim`: Julia's
        // `Vector{SubString{String}}` (`_split` of the prelude's `split` with keywords).
        ("split" | "_split", [_] | [_, _]) if all_str => {
            let ty = Type::Array(std::sync::Arc::new(Type::SubString), 1);
            string_fn(b, "split", args, ty)
        }
        ("uppercase" | "lowercase", [_]) if all_str => string_fn(b, name, args, Type::String),
        // Julia's `strip` is a view of the text kept (base/strings/util.jl).
        ("strip" | "lstrip" | "rstrip", [_]) if all_str => {
            string_fn(b, name, args, Type::SubString)
        }
        ("ncodeunits", [_]) if all_str => string_fn(b, name, args, Type::Int64),
        // `lpad(x, n, p = " ")`: `x` and `p` as `string` prints them.
        ("lpad" | "rpad", [x, n, p @ ..])
            if n.ty == Type::Int64 && p.len() <= 1 && args.iter().all(|a| printable(&a.ty)) =>
        {
            let space = Val::lit(Const::Str(" ".into()));
            let p = p.first().unwrap_or(&space);
            let (x, p) = (as_string(b, x), as_string(b, p));
            string_fn(b, name, &[x, n.clone(), p], Type::String)
        }
        // The prelude's `replace(s, pat => rep, ...; count)`: `_replace(s, count, pat, rep,
        // ...)`.
        ("_replace", [s, count, pairs @ ..])
            if is_str(s)
                && count.ty == Type::Int64
                && !pairs.is_empty()
                && pairs.len() % 2 == 0
                && pairs.iter().all(is_str) =>
        {
            string_fn(b, "replace", args, Type::String)
        }
        // The prelude's regexes: a pattern and its flags as text, then the string searched.
        ("_regex_flags", [_, _]) if all_str => string_fn(b, "regex_flags", args, Type::String),
        // `(i, j, group_starts, group_ends)` of the first match from `i` by a mode.
        ("_regex_find", [p, f, s, i, mode, captures])
            if [p, f, s].into_iter().all(is_str)
                && i.ty == Type::Int64
                && mode.ty == Type::Int64
                && captures.ty == Type::Bool =>
        {
            let ints = Type::Array(std::sync::Arc::new(Type::Int64), 1);
            let ty = Type::tuple([Type::Int64, Type::Int64, ints.clone(), ints]);
            string_fn(b, "regex_find", args, ty)
        }
        // The names of the groups, `""` for one without.
        ("_regex_names", [_, _]) if all_str => {
            let ty = Type::Array(std::sync::Arc::new(Type::String), 1);
            string_fn(b, "regex_names", args, ty)
        }
        // A string's bytes (`codeunits`; the `String` of them is above).
        ("_str_bytes", [_]) if all_str => {
            let ty = Type::Array(Arc::new(Type::Int(IntKind::UInt8)), 1);
            string_fn(b, "str_bytes", args, ty)
        }
        // The bytes of a number as `write` puts them in a stream (little-endian), and the
        // number of `proto`'s type whose bytes start at `i` of a `Vector{UInt8}` (`read`).
        ("_bits_bytes", [x]) if is_bits(&x.ty) => {
            let ty = Type::Array(Arc::new(Type::Int(IntKind::UInt8)), 1);
            string_fn(b, "bits_bytes", args, ty)
        }
        ("_bytes_bits", [v, i, proto])
            if v.ty == Type::Array(Arc::new(Type::Int(IntKind::UInt8)), 1)
                && i.ty == Type::Int64
                && is_bits(&proto.ty) =>
        {
            string_fn(b, "bytes_bits", args, proto.ty.clone())
        }
        ("_regex_replace", [p, f, s, rep, substitute, count])
            if [p, f, s, rep].into_iter().all(is_str)
                && substitute.ty == Type::Bool
                && count.ty == Type::Int64 =>
        {
            string_fn(b, "regex_replace", args, Type::String)
        }
        ("_regex_split", [p, f, s, limit, keepempty])
            if [p, f, s].into_iter().all(is_str)
                && limit.ty == Type::Int64
                && keepempty.ty == Type::Bool =>
        {
            let ty = Type::Array(std::sync::Arc::new(Type::SubString), 1);
            string_fn(b, "regex_split", args, ty)
        }
        // `parse(Int, s)`, `parse(Int, s; base)`.
        ("_parse_int", [s, base @ ..]) if is_str(s) && int_base(base) => {
            string_fn(b, "parse_int", args, Type::Int64)
        }
        // `parse(Int128, s)`, `parse(UInt128, s)` (with `base`), and the wide literals.
        ("_parse_int128", [s, base @ ..]) if is_str(s) && int_base(base) => {
            string_fn(b, "parse_int128", args, Type::Int(IntKind::Int128))
        }
        ("_parse_uint128", [s, base @ ..]) if is_str(s) && int_base(base) => {
            string_fn(b, "parse_uint128", args, Type::Int(IntKind::UInt128))
        }
        ("_parse_float", [_]) if all_str => string_fn(b, "parse_float", args, Type::Float64),
        // `(parsed, value)`.
        ("_tryparse_int", [s, base @ ..]) if is_str(s) && int_base(base) => {
            let ty = Type::tuple([Type::Bool, Type::Int64]);
            string_fn(b, "tryparse_int", args, ty)
        }
        ("_tryparse_float", [_]) if all_str => {
            let ty = Type::tuple([Type::Bool, Type::Float64]);
            string_fn(b, "tryparse_float", args, ty)
        }
        // The prelude's characters: code points of a string's characters, by byte index
        // (`_char_at`), by order (`_char_nth`), all of them (`_str_codes`); the byte index of
        // the first or last of a code point (`_char_find`, 0 if none).
        ("_char_at" | "_char_nth", [s, i]) if is_str(s) && i.ty == Type::Int64 => {
            string_fn(b, name, args, Type::Int64)
        }
        // `s[i:j]` by byte indices.
        ("_str_slice", [s, i, j]) if is_str(s) && i.ty == Type::Int64 && j.ty == Type::Int64 => {
            string_fn(b, name, args, Type::String)
        }
        // `SubString(s, i, j)`: the same text as `s[i:j]`, with the same `BoundsError` and
        // `StringIndexError`, as Julia's `SubString` constructor checks them.
        ("_substring", [s, i, j]) if is_str(s) && i.ty == Type::Int64 && j.ty == Type::Int64 => {
            string_fn(b, "_str_slice", args, Type::SubString)
        }
        // Where `t` starts in `s` from byte index `i` on (or back from it), 0 if nowhere.
        ("_str_find", [s, t, i, forward])
            if is_str(s) && is_str(t) && i.ty == Type::Int64 && forward.ty == Type::Bool =>
        {
            string_fn(b, name, args, Type::Int64)
        }
        ("_char_find", [s, c, first])
            if is_str(s) && c.ty == Type::Int64 && first.ty == Type::Bool =>
        {
            string_fn(b, name, args, Type::Int64)
        }
        ("_str_codes" | "_str_indices" | "_str_graphemes", [_]) if all_str => {
            let ty = Type::Array(std::sync::Arc::new(Type::Int64), 1);
            string_fn(b, name, args, ty)
        }
        // `nextind`, `prevind`, `thisind` of a byte index.
        (
            "_str_ind",
            [Val {
                konst: Some(Const::Symbol(f)),
                ..
            }, s, i],
        ) if is_str(s) && i.ty == Type::Int64 => string_fn(b, f, &args[1..], Type::Int64),
        // `isletter`, `uppercase`, ... of a code point: a Bool, or the code point of the
        // case mapping.
        (
            "_char_fn",
            [Val {
                konst: Some(Const::Symbol(f)),
                ..
            }, c],
        ) if c.ty == Type::Int64 => {
            let ty = match &**f {
                "uppercase" | "lowercase" => Type::Int64,
                _ => Type::Bool,
            };
            string_fn(b, &format!("char_{f}"), &args[1..], ty)
        }
        ("startswith" | "endswith" | "occursin", [_, _]) if all_str => {
            string_fn(b, name, args, Type::Bool)
        }
        (n, _) if NAMES.contains(&n) => {
            return Some(Err(no_method(name, &crate::value::types(&args))))
        }
        _ => return None,
    }))
}

/// `x` as a `String`: itself, or `string(x)`.
fn as_string(b: &mut PlanBuilder, x: &Val) -> Val {
    if is_str(x) {
        return x.clone();
    }
    Val::of(
        b.prim(Prim::StringOf, vec![x.arg.clone()], Type::String),
        Type::String,
    )
}

/// Can `string` print a value of type `t` as Julia does? Numbers, strings, symbols, `nothing`,
/// caught exceptions, and tuples and arrays of them.
fn printable(t: &Type) -> bool {
    match t {
        Type::Float64 | Type::Int64 | Type::Bool | Type::Nothing | Type::String => true,
        Type::Float32 | Type::Int(_) => true,
        Type::SubString | Type::Symbol(_) | Type::Exception => true,
        // A type or function value: its name.
        Type::Function(_) => true,
        Type::Tuple(ts) => ts.iter().all(printable),
        Type::Array(e, 1) => e.is_number() || super::is_char_type(e),
        // A rational prints as Julia shows it, `1//2`; a character as itself; a `Val` as
        // `Val{3}()`; a range as Julia's `show` of it (`1:2:9`, `0.0:0.1:1.0`).
        Type::Struct(s) => {
            matches!(&*s.name, "Base.Rational" | "Base.Char" | "Base.Val")
                || crate::pattern::is_range_struct(&s.name)
        }
        _ => false,
    }
}
