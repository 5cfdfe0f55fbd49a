//! Characters of strings, as the prelude's `Char` asks for them: code points by byte index
//! (Julia's `s[i]`, with its `BoundsError` and `StringIndexError`), by order (a `for` loop's
//! `k`th character), slices `s[i:j]`, the byte indices of characters (`nextind`, `prevind`, `thisind`,
//! `eachindex`), where a string occurs in another (`findnext`, `findprev`), and the Unicode
//! predicates and case mappings of a code point.

use crate::value::{Array, ArrayData, Shape, Value};

use super::parse::is_space;

/// `string_fn(:f, operands...)` of the characters of a string or of a code point; `None` if
/// `f` is not one of these.
pub(super) fn char_fn(f: &str, operands: &[Value]) -> Option<Result<Value, String>> {
    Some(match (f, operands) {
        ("_char_at", [Value::Str(s), Value::Int(i)]) => char_at(s, *i).map(code),
        ("_char_nth", [Value::Str(s), Value::Int(k)]) => usize::try_from(*k - 1)
            .ok()
            .and_then(|k| s.chars().nth(k))
            .map(code)
            .ok_or_else(|| bounds(s, *k)),
        ("_char_find", [Value::Str(s), Value::Int(c), Value::Bool(first)]) => {
            let found = match char::from_u32(*c as u32) {
                Some(c) if *first => s.find(c),
                Some(c) => s.rfind(c),
                None => None,
            };
            Ok(Value::Int(found.map_or(0, |i| i as i64 + 1)))
        }
        ("_str_slice", [Value::Str(s), Value::Int(i), Value::Int(j)]) => {
            slice(s, *i, *j).map(|s| Value::Str(s.into()))
        }
        ("_str_find", [Value::Str(s), Value::Str(t), Value::Int(i), Value::Bool(forward)]) => {
            Ok(Value::Int(find(s.as_bytes(), t.as_bytes(), *i, *forward)))
        }
        ("_str_codes", [Value::Str(s)]) => Ok(ints(s.chars().map(|c| c as i64))),
        ("_str_indices", [Value::Str(s)]) => Ok(ints(s.char_indices().map(|(i, _)| i as i64 + 1))),
        ("_str_graphemes", [Value::Str(s)]) => Ok(ints(
            super::graphemes::starts(s)
                .into_iter()
                .map(|i| i as i64 + 1),
        )),
        ("nextind", [Value::Str(s), Value::Int(i)]) => nextind(s, *i).map(Value::Int),
        ("prevind", [Value::Str(s), Value::Int(i)]) => prevind(s, *i).map(Value::Int),
        ("thisind", [Value::Str(s), Value::Int(i)]) => thisind(s, *i).map(Value::Int),
        (f, [Value::Int(c)]) if f.starts_with("char_") => {
            let c = char::from_u32(*c as u32).unwrap_or(char::REPLACEMENT_CHARACTER);
            property(&f["char_".len()..], c)
        }
        _ => return None,
    })
}

fn code(c: char) -> Value {
    Value::Int(c as i64)
}

/// A `Vector{Int64}` of `xs`.
fn ints(xs: impl Iterator<Item = i64>) -> Value {
    let xs: Vec<i64> = xs.collect();
    Array::new(Shape::Vector(xs.len()), ArrayData::Int(xs)).into_value()
}

/// Julia's `BoundsError` of a string's byte index.
fn bounds(s: &str, i: i64) -> String {
    format!(
        "BoundsError: attempt to access {}-codeunit String at index [{i}]",
        s.len()
    )
}

/// The byte (from 0) of the valid index `i` (from 1), or Julia's `BoundsError`.
fn byte(s: &str, i: i64) -> Result<usize, String> {
    usize::try_from(i - 1)
        .ok()
        .filter(|&b| b < s.len())
        .ok_or_else(|| bounds(s, i))
}

/// `s[i]`: the character starting at byte index `i`; inside one, Julia's `StringIndexError`
/// naming the valid indices around it.
fn char_at(s: &str, i: i64) -> Result<char, String> {
    let b = byte(s, i)?;
    if let Some(c) = s.get(b..).and_then(|rest| rest.chars().next()) {
        return Ok(c);
    }
    let prev = (0..b).rev().find(|&k| s.is_char_boundary(k)).unwrap_or(0);
    let c = s[prev..].chars().next().unwrap_or_default();
    let next = prev + c.len_utf8();
    // As Julia's `escape_string`.
    let shown = |c: char| crate::show::escape_char(c, '"');
    Err(match s[next..].chars().next() {
        Some(d) => format!(
            "StringIndexError: invalid index [{i}], valid nearby indices [{}]=>'{}', [{}]=>'{}'",
            prev + 1,
            shown(c),
            next + 1,
            shown(d)
        ),
        None => format!(
            "StringIndexError: invalid index [{i}], valid nearby index [{}]=>'{}'",
            prev + 1,
            shown(c)
        ),
    })
}

/// `s[i:j]`: the characters from the one starting at byte index `i` to the one starting at
/// `j`, `""` when `j < i`; Julia's `BoundsError` of the range outside `1:ncodeunits(s)` and
/// `StringIndexError` of an end inside a character.
fn slice(s: &str, i: i64, j: i64) -> Result<&str, String> {
    if j < i {
        return Ok("");
    }
    if i < 1 || j > s.len() as i64 {
        return Err(format!(
            "BoundsError: attempt to access {}-codeunit String at index [{i}:{j}]",
            s.len()
        ));
    }
    char_at(s, i)?;
    let last = char_at(s, j)?;
    let (from, to) = ((i - 1) as usize, (j - 1) as usize + last.len_utf8());
    Ok(&s[from..to])
}

/// The byte index (from 1) where the bytes `t` (not empty) start in `s`: the first at or after
/// `i` (`forward`), else the last at or before `i`; 0 where there is none.
fn find(s: &[u8], t: &[u8], i: i64, forward: bool) -> i64 {
    let Some(from) = i.checked_sub(1).and_then(|b| usize::try_from(b).ok()) else {
        return 0;
    };
    let at = |p: &usize| s[*p..].starts_with(t);
    let found = if forward {
        (from..s.len()).find(at)
    } else {
        (0..=from.min(s.len())).rev().find(at)
    };
    found.map_or(0, |p| p as i64 + 1)
}

/// Julia's `thisind(s, i)`: the start of the character holding byte index `i`; `0` and
/// `ncodeunits(s) + 1` are themselves.
fn thisind(s: &str, i: i64) -> Result<i64, String> {
    if i == 0 || i == s.len() as i64 + 1 {
        return Ok(i);
    }
    let b = byte(s, i)?;
    Ok((0..=b).rev().find(|&k| s.is_char_boundary(k)).unwrap_or(0) as i64 + 1)
}

/// Julia's `nextind(s, i)`: the start of the character after the one at or holding `i`
/// (`ncodeunits(s) + 1` after the last).
fn nextind(s: &str, i: i64) -> Result<i64, String> {
    if i == 0 {
        return Ok(1);
    }
    let b = byte(s, i)?;
    Ok((b + 1..=s.len())
        .find(|&k| s.is_char_boundary(k))
        .unwrap_or(s.len()) as i64
        + 1)
}

/// Julia's `prevind(s, i)`: the start of the character before byte index `i` (`0` before the
/// first), for `i` up to `ncodeunits(s) + 1`.
fn prevind(s: &str, i: i64) -> Result<i64, String> {
    if i < 1 || i > s.len() as i64 + 1 {
        return Err(bounds(s, i));
    }
    let b = (i - 1) as usize;
    Ok((0..b)
        .rev()
        .find(|&k| s.is_char_boundary(k))
        .map_or(0, |k| k as i64 + 1))
}

/// `isletter(c)` and the other predicates (a Bool), `uppercase(c)` and `lowercase(c)` (a code
/// point: Julia's simple case mapping, so a character whose mapping is several, `ß`, stays).
fn property(f: &str, c: char) -> Result<Value, String> {
    Ok(match f {
        "isletter" => Value::Bool(c.is_alphabetic() && !c.is_numeric()),
        "isspace" => Value::Bool(is_space(c)),
        "isuppercase" => Value::Bool(c.is_uppercase()),
        "islowercase" => Value::Bool(c.is_lowercase()),
        "isnumeric" => Value::Bool(c.is_numeric()),
        "uppercase" => Value::Int(simple(c, c.to_uppercase())),
        "lowercase" => Value::Int(simple(c, c.to_lowercase())),
        _ => return Err(format!("internal error: no character function `{f}`")),
    })
}

/// The code point of a case mapping `mapped` of `c` that is one character, else `c`'s own.
fn simple(c: char, mut mapped: impl Iterator<Item = char>) -> i64 {
    match (mapped.next(), mapped.next()) {
        (Some(m), None) => m as i64,
        _ => c as i64,
    }
}
