//! Strings: `string(xs...)` and Base's functions of strings (`string_fn`). Julia's `length`
//! counts characters, and so does zy (a `String` is UTF-8 text).

use crate::show::show;
use crate::value::{Array, ArrayData, Objects, Shape, Value};

use super::method_error;
use super::parse::{is_space, parse_float, parse_int, parse_integer, valid_base};
use super::printf::{sprintf, sprintf_text, Num};
use super::regex;

/// `x` as Julia's `print` writes it: a string as its text, a symbol as its name, an unsigned
/// integer in decimal (`show` writes it in hexadecimal), anything else as `show` writes it.
pub fn print_string(x: &Value) -> String {
    match x {
        Value::Str(s) | Value::SubStr(s) | Value::Symbol(s) => s.to_string(),
        Value::F32(x) => zy_ir::print_float32(*x),
        Value::Sized(k, held) => k.value(*held).to_string(),
        Value::Wide(k, bits) => crate::wide::Exact::of(*k, bits.get()).to_string(),
        v => match crate::show::char_of(v) {
            Some(c) => c.to_string(),
            None => show(v),
        },
    }
}

/// `string(xs...)`: the operands printed one after another.
pub fn string_of(args: &[Value]) -> Value {
    Value::Str(args.iter().map(print_string).collect::<String>().into())
}

/// `string_fn(:f, s, args...)`: Base's string function `f` of string operands.
pub fn string_fn(args: &[Value]) -> Result<Value, String> {
    let Some((Value::Symbol(f), operands)) = args.split_first() else {
        return Err("internal error: `string_fn` expects a function name".into());
    };
    if let Some(r) = super::chars::char_fn(f, operands) {
        return r;
    }
    // Symbols: `Symbol(s)` of a string or a symbol, `==` of two symbols.
    match (&**f, operands) {
        ("Symbol", [Value::Str(s) | Value::Symbol(s)]) => return Ok(Value::Symbol(s.clone())),
        ("==", [Value::Symbol(a), Value::Symbol(b)]) => return Ok(Value::Bool(a == b)),
        // Julia's `hash(s, h)` of a string key, `objectid(s)` of a symbol, for the prelude's
        // Dict.
        ("hash", [Value::Str(s), Value::Int(h)]) => {
            return Ok(Value::Int(zy_ir::ops::string_hash(s, *h)))
        }
        ("hash", [Value::Symbol(s), Value::Int(_)]) => {
            return Ok(Value::Int(zy_ir::ops::symbol_hash(s)))
        }
        ("repeat", [Value::Str(s), Value::Int(n)]) => {
            return match usize::try_from(*n) {
                Ok(n) => Ok(Value::Str(s.repeat(n).into())),
                Err(_) => Err(format!("ArgumentError: can't repeat a string {n} times")),
            };
        }
        // `lpad(s, n, p)`, `rpad(s, n, p)` of strings `s` and `p`.
        (pad @ ("lpad" | "rpad"), [Value::Str(s), Value::Int(n), Value::Str(p)]) => {
            return pad_string(s, *n, p, pad == "lpad").map(|s| Value::Str(s.into()));
        }
        // Regexes (the prelude's `Regex` holds its pattern and flags as text).
        ("regex_flags", [Value::Str(p), Value::Str(flags)]) => {
            return Ok(Value::Str(regex::regex_flags(p, flags)?.into()));
        }
        (
            "regex_find",
            [Value::Str(p), Value::Str(flags), Value::Str(s), Value::Int(i), Value::Int(mode), Value::Bool(captures)],
        ) => {
            let mode = match mode {
                0 => regex::Mode::Search,
                1 => regex::Mode::Anchored,
                2 => regex::Mode::NonEmpty,
                _ => regex::Mode::AtEnd,
            };
            return regex::regex_find(p, flags, s, *i, mode, *captures);
        }
        // The groups' names, `""` for a group without one.
        ("regex_names", [Value::Str(p), Value::Str(flags)]) => {
            let names = regex::group_names(p, flags)?;
            let items = names
                .into_iter()
                .map(|n| Value::Str(n.unwrap_or_default().into()))
                .collect();
            return Ok(objects(zy_ir::Type::String, items));
        }
        // `codeunits` of a string as Julia's `Vector{UInt8}` (an `IOBuffer`'s `take!`), and
        // the `String` of such bytes (invalid UTF-8 refused by name).
        ("str_bytes", [Value::Str(s)]) => {
            let items = s
                .bytes()
                .map(|b| Value::Sized(zy_ir::IntKind::UInt8, i64::from(b)))
                .collect();
            return Ok(objects(zy_ir::Type::Int(zy_ir::IntKind::UInt8), items));
        }
        ("bytes_str", [Value::Array(v)]) => {
            let v = v.borrow();
            let ArrayData::Obj(o) = &v.data else {
                return Err(method_error("String", operands));
            };
            let bytes = o.items.iter().map(|b| match b {
                Value::Sized(zy_ir::IntKind::UInt8, b) => Ok(*b as u8),
                _ => Err(method_error("String", operands)),
            });
            let bytes = bytes.collect::<Result<Vec<u8>, _>>()?;
            return match String::from_utf8(bytes) {
                Ok(s) => Ok(Value::Str(s.into())),
                Err(_) => Err("unsupported: `String` of bytes that are not UTF-8 text".into()),
            };
        }
        // A number's bytes as `write` puts them in a stream (little-endian), and the number
        // of `proto`'s type read back from bytes `i` on (Julia's `EOFError` past their end).
        ("bits_bytes", [x]) => {
            let Some(bytes) = bits_bytes(x) else {
                return Err(method_error("write", operands));
            };
            let items = bytes
                .into_iter()
                .map(|b| Value::Sized(zy_ir::IntKind::UInt8, i64::from(b)))
                .collect();
            return Ok(objects(zy_ir::Type::Int(zy_ir::IntKind::UInt8), items));
        }
        ("bytes_bits", [Value::Array(v), Value::Int(i), proto]) => {
            let v = v.borrow();
            let ArrayData::Obj(o) = &v.data else {
                return Err(method_error("read", operands));
            };
            let Some(n) = bits_bytes(proto).map(|b| b.len()) else {
                return Err(method_error("read", operands));
            };
            let start = usize::try_from(*i - 1).map_err(|_| "EOFError: read end of file")?;
            let Some(held) = o.items.get(start..start + n) else {
                return Err("EOFError: read end of file".into());
            };
            let mut bytes = [0u8; 8];
            for (b, h) in bytes.iter_mut().zip(held) {
                match h {
                    Value::Sized(zy_ir::IntKind::UInt8, h) => *b = *h as u8,
                    _ => return Err(method_error("read", operands)),
                }
            }
            return bits_value(proto, u64::from_le_bytes(bytes))
                .ok_or_else(|| method_error("read", operands));
        }
        (
            "regex_replace",
            [Value::Str(p), Value::Str(flags), Value::Str(s), Value::Str(rep), Value::Bool(substitute), Value::Int(count)],
        ) => {
            let out = regex::regex_replace(p, flags, s, rep, *substitute, *count)?;
            return Ok(Value::Str(out.into()));
        }
        (
            "regex_split",
            [Value::Str(p), Value::Str(flags), Value::Str(s), Value::Int(limit), Value::Bool(keepempty)],
        ) => {
            let parts = regex::regex_split(p, flags, s, *limit, *keepempty)?;
            return Ok(substrings(parts.iter().map(String::as_str)));
        }
        // `replace(s, pat => rep, ...; count)`: the first `count` matches replaced.
        ("replace", [Value::Str(s), Value::Int(count), pairs @ ..]) => {
            let pairs = pairs.iter().map(|p| match p {
                Value::Str(p) => Ok(p.clone()),
                _ => Err(method_error(f, operands)),
            });
            let pairs = pairs.collect::<Result<Vec<_>, _>>()?;
            let limit = usize::try_from(*count).unwrap_or(0);
            return Ok(Value::Str(replace(s, &pairs, limit).into()));
        }
        // `parse(Int, s; base)` and `tryparse(Int, s; base)` (`(parsed, value)`).
        ("parse_int", [Value::Str(s), base @ (Value::Int(_) | Value::Nothing)]) => {
            return Ok(Value::Int(parse_int(s, base_of(base)?)?));
        }
        // `parse(Int128, s; base)`, `parse(UInt128, s; base)` and the wide literals.
        (
            "parse_int128" | "parse_uint128",
            [Value::Str(s), base @ (Value::Int(_) | Value::Nothing)],
        ) => {
            let k = match &**f {
                "parse_int128" => zy_ir::IntKind::Int128,
                _ => zy_ir::IntKind::UInt128,
            };
            let n = parse_integer(s, base_of(base)?, Some(k))?;
            return Ok(super::sized::make(Some(k), n.bits()));
        }
        ("tryparse_int", [Value::Str(s), base @ (Value::Int(_) | Value::Nothing)]) => {
            let n = parse_int(s, base_of(base)?).ok();
            let parsed = [Value::Bool(n.is_some()), Value::Int(n.unwrap_or(0))];
            return Ok(Value::Tuple(parsed.into()));
        }
        // One conversion of `@sprintf`: `%s` or `%c` of a text, `%c` of a code point, a
        // numeric conversion of a number.
        ("sprintf", [Value::Str(spec), Value::Str(text)]) => {
            return sprintf_text(spec, text).map(|s| Value::Str(s.into()));
        }
        ("sprintf", [Value::Str(spec), Value::Int(c)]) if spec.ends_with(['c', 'C']) => {
            let c = u32::try_from(*c).ok().and_then(char::from_u32);
            let c = c.ok_or_else(|| method_error(f, operands))?;
            return sprintf_text(spec, &c.to_string()).map(|s| Value::Str(s.into()));
        }
        ("sprintf", [Value::Str(spec), x]) => {
            let x = match x {
                Value::F64(v) => Num::Float(*v),
                Value::F32(v) => Num::Float(f64::from(*v)),
                Value::Int(v) => Num::Int(*v),
                Value::Bool(v) => Num::Int(i64::from(*v)),
                Value::Sized(zy_ir::IntKind::UInt64, bits) => Num::UInt(*bits as u64),
                Value::Sized(_, v) => Num::Int(*v),
                _ => return Err(method_error(f, operands)),
            };
            return sprintf(spec, x).map(|s| Value::Str(s.into()));
        }
        _ => {}
    }
    let text = |v: &Value| match v {
        Value::Str(s) => Some(s.clone()),
        _ => None,
    };
    let strs: Option<Vec<_>> = operands.iter().map(text).collect();
    let Some(strs) = strs else {
        return Err(method_error(f, operands));
    };
    Ok(match (&**f, strs.as_slice()) {
        ("split", [s]) => substrings(s.split_whitespace()),
        ("split", [s, d]) if d.is_empty() => substrings(s.split_terminator("").skip(1)),
        ("split", [s, d]) => substrings(s.split(&**d)),
        ("length", [s]) => Value::Int(s.chars().count() as i64),
        ("ncodeunits", [s]) => Value::Int(s.len() as i64),
        ("strip", [s]) => Value::Str(s.trim_matches(is_space).into()),
        ("lstrip", [s]) => Value::Str(s.trim_start_matches(is_space).into()),
        ("rstrip", [s]) => Value::Str(s.trim_end_matches(is_space).into()),
        ("parse_int", [s]) => Value::Int(parse_int(s, None)?),
        ("parse_float", [s]) => Value::F64(parse_float(s)?),
        // `tryparse(Int, s)` as `(parsed, value)`.
        ("tryparse_int", [s]) => {
            let n = parse_int(s, None).ok();
            Value::Tuple(vec![Value::Bool(n.is_some()), Value::Int(n.unwrap_or(0))].into())
        }
        // `tryparse(Float64, s)` likewise; a text `parse` refuses stays refused.
        ("tryparse_float", [s]) => {
            let x = match parse_float(s) {
                Err(e) if e.starts_with("unsupported") => return Err(e),
                parsed => parsed.ok(),
            };
            Value::Tuple(vec![Value::Bool(x.is_some()), Value::F64(x.unwrap_or(0.0))].into())
        }
        ("isempty", [s]) => Value::Bool(s.is_empty()),
        ("uppercase", [s]) => Value::Str(s.to_uppercase().into()),
        ("lowercase", [s]) => Value::Str(s.to_lowercase().into()),
        ("startswith", [s, p]) => Value::Bool(s.starts_with(&**p)),
        ("endswith", [s, p]) => Value::Bool(s.ends_with(&**p)),
        // `occursin(needle, haystack)`.
        ("occursin", [needle, s]) => Value::Bool(s.contains(&**needle)),
        ("==", [a, b]) => Value::Bool(a == b),
        // Julia compares strings by code points, which is UTF-8's byte order.
        ("<", [a, b]) => Value::Bool(a.as_bytes() < b.as_bytes()),
        _ => return Err(method_error(f, operands)),
    })
}

/// Julia's `lpad(s, n, p)` (`left`) or `rpad`: `s` padded with copies of `p` (the last one cut
/// short) to `n` characters. Julia counts `textwidth`, zy characters: the same but for wide
/// East Asian characters and combining marks.
fn pad_string(s: &str, n: i64, p: &str, left: bool) -> Result<String, String> {
    let missing = n - s.chars().count() as i64;
    if missing <= 0 {
        return Ok(s.to_string());
    }
    let width = p.chars().count() as i64;
    if width == 0 {
        return Err(format!(
            "ArgumentError: {} has zero textwidth",
            crate::show::show(&Value::Str(p.into()))
        ));
    }
    let (q, r) = (missing / width, missing % width);
    let fill: String = p.repeat(q as usize) + &p.chars().take(r as usize).collect::<String>();
    Ok(if left {
        fill + s
    } else {
        s.to_string() + &fill
    })
}

/// The `base` keyword of `parse` and `tryparse` (`nothing` when none is given).
fn base_of(base: &Value) -> Result<Option<u32>, String> {
    match base {
        Value::Int(b) => valid_base(*b).map(Some),
        _ => Ok(None),
    }
}

/// `replace(s, pat₁ => rep₁, ...; count = limit)` of the texts `[pat₁, rep₁, ...]`: from left
/// to right, the earliest match of any pattern (the first pattern of those that match there)
/// is replaced and the search goes on after it, up to `limit` matches; an empty pattern
/// matches before every character and at the end.
fn replace(s: &str, pairs: &[std::sync::Arc<str>], limit: usize) -> String {
    let mut out = String::new();
    let mut at = 0;
    let mut left = limit;
    while at <= s.len() && left > 0 {
        left -= 1;
        let found = pairs
            .chunks(2)
            .filter_map(|pr| s[at..].find(&*pr[0]).map(|k| (at + k, pr)))
            .min_by_key(|&(k, _)| k);
        let Some((k, [pat, rep])) = found else { break };
        out.push_str(&s[at..k]);
        out.push_str(rep);
        at = k + pat.len();
        if pat.is_empty() {
            // Step over one character (copied) so the search moves on.
            match s[at..].chars().next() {
                Some(c) => {
                    out.push(c);
                    at += c.len_utf8();
                }
                None => return out,
            }
        }
    }
    if at <= s.len() {
        out.push_str(&s[at..]);
    }
    out
}

/// A `Vector{SubString{String}}` of `parts` (each held as its text, as every string is).
/// A vector of `items`, each of type `elem`.
/// The little-endian bytes of a number of a fixed width, `None` for any other value.
fn bits_bytes(x: &Value) -> Option<Vec<u8>> {
    Some(match x {
        Value::F64(x) => x.to_le_bytes().to_vec(),
        Value::F32(x) => x.to_le_bytes().to_vec(),
        Value::Int(x) => x.to_le_bytes().to_vec(),
        Value::Bool(b) => vec![u8::from(*b)],
        Value::Sized(k, held) => held.to_le_bytes()[..k.bits() as usize / 8].to_vec(),
        _ => return None,
    })
}

/// The number of `proto`'s type whose bytes are the low bytes of `bits` (as [`bits_bytes`]
/// gives them).
fn bits_value(proto: &Value, bits: u64) -> Option<Value> {
    Some(match proto {
        Value::F64(_) => Value::F64(f64::from_bits(bits)),
        Value::F32(_) => Value::F32(f32::from_bits(bits as u32)),
        Value::Int(_) => Value::Int(bits as i64),
        Value::Bool(_) => Value::Bool(bits != 0),
        Value::Sized(k, _) => Value::Sized(*k, k.wrap(i128::from(bits))),
        _ => return None,
    })
}

fn objects(elem: zy_ir::Type, items: Vec<Value>) -> Value {
    let n = items.len();
    Array::new(Shape::Vector(n), ArrayData::Obj(Objects { elem, items })).into_value()
}

fn substrings<'a>(parts: impl Iterator<Item = &'a str>) -> Value {
    let items: Vec<Value> = parts.map(|p| Value::Str(p.into())).collect();
    let objects = Objects {
        elem: zy_ir::Type::SubString,
        items,
    };
    Array::new(Shape::Vector(objects.items.len()), ArrayData::Obj(objects)).into_value()
}
