//! Julia's regular expressions (`r"a+b"i`, `Regex(p, flags)`): Julia compiles them with PCRE,
//! zy with the `regex-automata` crate, whose syntax is PCRE's for what both read and whose
//! leftmost-first matches are PCRE's backtracking order, and what that crate does not read
//! (lookaround, backreferences, atomic groups, conditionals) with `fancy-regex`, a
//! backtracking matcher in PCRE's order built on it. What PCRE reads otherwise, or zy cannot
//! match as PCRE does, is refused by name, never matched differently: syntax neither crate
//! reads, or that one reads otherwise (`\<`, `\>`, `\b{...}`, `\v`, `\h`, `\Z`, `\G`, ...),
//! the flags `x` and `a`;
//! at match time `$` (and `^` with `m`) against a text ending in a newline, a group that
//! takes part in no match (Julia's `nothing` capture), and after an empty match a longer one
//! at the same place that PCRE's `NOTEMPTY_ATSTART` retry could prefer (the backtracking
//! matcher retries as PCRE does).
//!
//! The prelude's `Regex` holds the pattern and its flags as text; each operation compiles
//! them (a cache keeps the compiled forms).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use regex_automata::meta::Regex;
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input, MatchKind};
use regex_syntax::hir::Look;

use crate::value::{Array, ArrayData, Shape, Value};

/// A compiled pattern.
struct Compiled {
    engine: Engine,
    /// The pattern has `$` without `m` or `^`/`$` with `m`: PCRE treats a final newline
    /// otherwise than the crates.
    line_anchor: bool,
}

/// The matcher of a pattern.
enum Engine {
    /// `regex-automata`'s, compiled twice: with PCRE's preference order, and reporting the
    /// longest match (to tell whether a longer match than an empty one exists at a place).
    Automata { first: Regex, longest: Regex },
    /// `fancy-regex`'s backtracking, for what `regex-automata` does not read: in PCRE's order,
    /// and for PCRE's retry after an empty match, rejecting empty matches (`None` for a
    /// pattern that matches only the empty string).
    Backtracking {
        first: fancy_regex::Regex,
        non_empty: Option<fancy_regex::Regex>,
    },
}

/// Escapes `fancy-regex` reads otherwise than PCRE (`\h` PCRE's horizontal space, `\Z`
/// before one final newline only, `\G` and `\g`, `\O`, `\U`).
const READ_OTHERWISE: [&str; 7] = ["\\h", "\\H", "\\Z", "\\G", "\\g", "\\O", "\\U"];

thread_local! {
    static CACHE: RefCell<HashMap<(String, String), Rc<Compiled>>> =
        RefCell::new(HashMap::new());
}

/// `flags` in Julia's order (`i`, `m`, `s`), as `show` writes them, or Julia's
/// `ArgumentError` of an unknown flag.
pub fn normalised_flags(flags: &str) -> Result<String, String> {
    for f in flags.chars() {
        match f {
            'i' | 'm' | 's' => {}
            'x' | 'a' => {
                return Err(format!(
                    "unsupported: the regex flag `{f}` (zy's regexes take `i`, `m` and `s`)"
                ))
            }
            _ => return Err(format!("ArgumentError: unknown regex flag: {f}")),
        }
    }
    Ok("ims".chars().filter(|f| flags.contains(*f)).collect())
}

/// `Regex(pattern, flags)`: the flags as `show` writes them, or why zy cannot match the
/// pattern as Julia does.
pub fn regex_flags(pattern: &str, flags: &str) -> Result<String, String> {
    compile(pattern, flags)?;
    normalised_flags(flags)
}

fn compile(pattern: &str, flags: &str) -> Result<Rc<Compiled>, String> {
    let key = (pattern.to_string(), flags.to_string());
    if let Some(c) = CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(c);
    }
    normalised_flags(flags)?;
    for bad in ["\\<", "\\>", "\\b{", "\\B{", "\\v", "\\V"] {
        if pattern.contains(bad) {
            return Err(format!(
                "unsupported: `{bad}` in the regex {}: PCRE reads it otherwise than zy",
                shown(pattern)
            ));
        }
    }
    let config = syntax::Config::new()
        .case_insensitive(flags.contains('i'))
        .multi_line(flags.contains('m'))
        .dot_matches_new_line(flags.contains('s'));
    let compiled = match syntax::parse_with(pattern, &config) {
        Ok(hir) => {
            let looks = hir.properties().look_set();
            let line_anchor = looks.contains(Look::End)
                || looks.contains(Look::StartLF)
                || looks.contains(Look::EndLF);
            let build = |kind: MatchKind| {
                Regex::builder()
                    .configure(Regex::config().match_kind(kind))
                    .build_from_hir(&hir)
                    .map_err(|e| format!("unsupported: the regex {} ({e})", shown(pattern)))
            };
            let engine = Engine::Automata {
                first: build(MatchKind::LeftmostFirst)?,
                longest: build(MatchKind::All)?,
            };
            Compiled {
                engine,
                line_anchor,
            }
        }
        Err(_) => backtracking(pattern, flags)?,
    };
    let compiled = Rc::new(compiled);
    CACHE.with(|c| c.borrow_mut().insert(key, compiled.clone()));
    Ok(compiled)
}

/// `pattern` compiled by `fancy-regex`, or why zy cannot match it as PCRE does.
fn backtracking(pattern: &str, flags: &str) -> Result<Compiled, String> {
    if let Some(bad) = READ_OTHERWISE.iter().find(|bad| pattern.contains(*bad)) {
        return Err(format!(
            "unsupported: `{bad}` in the regex {}: PCRE reads it otherwise than zy",
            shown(pattern)
        ));
    }
    let build = |non_empty: bool| {
        fancy_regex::RegexBuilder::new(pattern)
            .case_insensitive(flags.contains('i'))
            .multi_line(flags.contains('m'))
            .dot_matches_new_line(flags.contains('s'))
            .find_not_empty(non_empty)
            .build()
    };
    let first = build(false).map_err(|e| {
        format!(
            "unsupported: the regex {} ({e}); zy reads PCRE's syntax without recursion, \
             subroutine calls, `\\Z` and variable-length lookbehind",
            shown(pattern)
        )
    })?;
    // `$` anywhere (or `^` with `m`) may be a line anchor: the text is checked for a final
    // newline as for the other engine.
    let line_anchor = pattern.contains('$') || (flags.contains('m') && pattern.contains('^'));
    Ok(Compiled {
        engine: Engine::Backtracking {
            first,
            non_empty: build(true).ok(),
        },
        line_anchor,
    })
}

/// The names of the groups of `pattern` after the whole match's, `None` for a group without
/// one (`(?<year>\d+)` is named `year`).
pub fn group_names(pattern: &str, flags: &str) -> Result<Vec<Option<String>>, String> {
    let c = compile(pattern, flags)?;
    Ok(match &c.engine {
        Engine::Automata { first, .. } => {
            let info = first.group_info();
            let names = info.pattern_names(regex_automata::PatternID::ZERO).skip(1);
            names.map(|n| n.map(str::to_string)).collect()
        }
        Engine::Backtracking { first, .. } => first
            .capture_names()
            .skip(1)
            .map(|n| n.map(str::to_string))
            .collect(),
    })
}

/// `r"..."` as Julia shows a pattern.
fn shown(pattern: &str) -> String {
    format!("r\"{}\"", pattern.replace('"', "\\\""))
}

/// Where a search starts and how.
#[derive(Clone, Copy, PartialEq)]
pub enum Mode {
    /// Anywhere from the start.
    Search,
    /// At the start only (`startswith`).
    Anchored,
    /// At the start only and not empty: PCRE's retry after an empty match (`eachmatch`).
    NonEmpty,
    /// Anywhere, ending at the end (`endswith`, PCRE's `ENDANCHORED`).
    AtEnd,
}

/// A match: its byte range and its groups' (`None` for a group in no match).
struct Found {
    range: std::ops::Range<usize>,
    groups: Vec<Option<std::ops::Range<usize>>>,
}

/// The first match of `pattern` in `s` from byte `at` (0-based) by `mode`.
fn find(
    c: &Compiled,
    pattern: &str,
    s: &str,
    at: usize,
    mode: Mode,
) -> Result<Option<Found>, String> {
    if c.line_anchor && s.ends_with('\n') {
        return Err(format!(
            "unsupported: the regex {} has a line anchor and the text ends in a newline \
             (PCRE's `$` also matches before it)",
            shown(pattern)
        ));
    }
    if at > s.len() {
        return Ok(None);
    }
    let (first, longest) = match &c.engine {
        Engine::Automata { first, longest } => (first, longest),
        Engine::Backtracking { first, non_empty } => {
            return backtrack(first, non_empty.as_ref(), pattern, s, at, mode)
        }
    };
    let anchored = if mode == Mode::Search {
        Anchored::No
    } else {
        Anchored::Yes
    };
    let input = Input::new(s).range(at..).anchored(anchored);
    let mut caps = first.create_captures();
    first.search_captures(&input, &mut caps);
    let Some(m) = caps.get_match() else {
        return Ok(None);
    };
    if m.is_empty() && mode == Mode::NonEmpty {
        // PCRE retries for a non-empty match in its own order, which the crate cannot
        // follow: only where there is none is the answer known.
        return match longest.find(input) {
            Some(l) if !l.is_empty() => Err(format!(
                "unsupported: after an empty match, the regex {} also matches {:?} at byte \
                 {}, which PCRE's retry may prefer",
                shown(pattern),
                &s[l.range()],
                at + 1
            )),
            _ => Ok(None),
        };
    }
    let groups = (1..caps.group_len()).map(|g| caps.get_group(g).map(|s| s.range()));
    Ok(Some(Found {
        range: m.range(),
        groups: groups.collect(),
    }))
}

/// [`find`] by the backtracking matcher: PCRE's retry after an empty match (`NonEmpty`) is
/// the anchored search that rejects empty matches.
fn backtrack(
    first: &fancy_regex::Regex,
    non_empty: Option<&fancy_regex::Regex>,
    pattern: &str,
    s: &str,
    at: usize,
    mode: Mode,
) -> Result<Option<Found>, String> {
    let re = match (mode, non_empty) {
        (Mode::NonEmpty, Some(re)) => re,
        (Mode::NonEmpty, None) => return Ok(None),
        _ => first,
    };
    let input = fancy_regex::RegexInput::new(s)
        .from_pos(at)
        .anchored(mode != Mode::Search);
    let caps = re
        .captures_input(input)
        .map_err(|e| format!("unsupported: matching the regex {} ({e})", shown(pattern)))?;
    let Some(caps) = caps else {
        return Ok(None);
    };
    let Some(m) = caps.get(0) else {
        return Ok(None);
    };
    let groups = (1..caps.len()).map(|g| caps.get(g).map(|m| m.range()));
    Ok(Some(Found {
        range: m.range(),
        groups: groups.collect(),
    }))
}

/// The 1-based index of the last character of `s[r]` (`r.start` for an empty range: the
/// `j` of `SubString(s, i, j)`).
fn last_index(s: &str, r: &std::ops::Range<usize>) -> i64 {
    match s[r.clone()].char_indices().last() {
        Some((k, _)) => (r.start + k + 1) as i64,
        None => r.start as i64,
    }
}

fn ints(v: Vec<i64>) -> Value {
    Array::new(Shape::Vector(v.len()), ArrayData::Int(v)).into_value()
}

/// `regex_find(pattern, flags, s, i, mode, captures)`: the first match at or after byte `i`
/// (1-based) as `(i, j, group_starts, group_ends)`, `i` 0 if none; with `captures`, a group
/// that took part in no match starts at 0 (Julia's offset of a `nothing` capture).
pub fn regex_find(
    pattern: &str,
    flags: &str,
    s: &str,
    i: i64,
    mode: Mode,
    captures: bool,
) -> Result<Value, String> {
    // A match ending at the end is a match of the pattern followed by `\z` (the pattern was
    // checked whole when its `Regex` was made).
    let at_end;
    let (pattern, mode) = match mode {
        Mode::AtEnd => {
            at_end = format!("(?:{pattern})\\z");
            (at_end.as_str(), Mode::Search)
        }
        _ => (pattern, mode),
    };
    let c = compile(pattern, flags)?;
    let at = usize::try_from(i - 1).unwrap_or(0);
    let found = find(&c, pattern, s, at, mode)?;
    let (mut starts, mut ends) = (Vec::new(), Vec::new());
    let (i, j) = match &found {
        None => (0, 0),
        Some(f) => {
            if captures {
                for g in &f.groups {
                    match g {
                        Some(g) => {
                            starts.push(g.start as i64 + 1);
                            ends.push(last_index(s, g));
                        }
                        None => {
                            starts.push(0);
                            ends.push(-1);
                        }
                    }
                }
            }
            (f.range.start as i64 + 1, last_index(s, &f.range))
        }
    };
    Ok(Value::Tuple(
        vec![Value::Int(i), Value::Int(j), ints(starts), ints(ends)].into(),
    ))
}

/// The byte after the character at `at` (or `at + 1` at the end).
fn after(s: &str, at: usize) -> usize {
    at + s[at..].chars().next().map_or(1, char::len_utf8)
}

/// `replace(s, r => rep; count)`: Julia's loop over `findnext` (an empty match right after a
/// replaced one is skipped, the search moves one character on after an empty match); `rep`
/// a `SubstitutionString` (`\0`, `\1`, `\g<1>`, `\\`) when `substitute`.
pub fn regex_replace(
    pattern: &str,
    flags: &str,
    s: &str,
    rep: &str,
    substitute: bool,
    count: i64,
) -> Result<String, String> {
    let c = compile(pattern, flags)?;
    let mut out = String::new();
    let mut kept = 0; // the first byte not yet copied
    let mut at = 0;
    // Julia counts the matches found, replaced or not.
    let mut n = 0;
    while n < count {
        let Some(f) = find(&c, pattern, s, at, Mode::Search)? else {
            break;
        };
        n += 1;
        let r = f.range.clone();
        if kept == 0 || r.end > kept {
            out.push_str(&s[kept..r.start]);
            if substitute {
                substitution(&mut out, rep, s, &f, pattern, flags)?;
            } else {
                out.push_str(rep);
            }
        }
        if r.is_empty() {
            kept = r.start;
            if r.start >= s.len() {
                break;
            }
            at = after(s, r.start);
        } else {
            kept = r.end;
            at = r.end;
        }
    }
    out.push_str(&s[kept.min(s.len())..]);
    Ok(out)
}

/// Write `rep` with its group references replaced by the groups of `f`.
fn substitution(
    out: &mut String,
    rep: &str,
    s: &str,
    f: &Found,
    pattern: &str,
    flags: &str,
) -> Result<(), String> {
    let group = |k: usize| -> Result<&str, String> {
        let r = if k == 0 {
            Some(f.range.clone())
        } else {
            f.groups.get(k - 1).cloned().ok_or_else(|| {
                format!(
                    "ErrorException: PCRE error: unknown substring (group {k} of {})",
                    shown(pattern)
                )
            })?
        };
        Ok(r.map_or("", |r| &s[r]))
    };
    let mut chars = rep.char_indices().peekable();
    while let Some((_, ch)) = chars.next() {
        if ch != '\\' {
            out.push(ch);
            continue;
        }
        match chars.peek().map(|&(_, c)| c) {
            Some('\\') => {
                chars.next();
                out.push('\\');
            }
            Some(d) if d.is_ascii_digit() => {
                let mut k = 0usize;
                while let Some(&(_, d)) = chars.peek().filter(|(_, d)| d.is_ascii_digit()) {
                    k = k * 10 + d.to_digit(10).unwrap_or(0) as usize;
                    chars.next();
                }
                out.push_str(group(k)?);
            }
            Some('g') => {
                chars.next();
                let mut name = String::new();
                if chars.next().map(|(_, c)| c) != Some('<') {
                    return Err("ArgumentError: Bad substitution string: \\g without <".into());
                }
                for (_, c) in chars.by_ref() {
                    if c == '>' {
                        break;
                    }
                    name.push(c);
                }
                let k = match name.parse::<usize>() {
                    Ok(k) => k,
                    Err(_) => named_group(pattern, flags, &name)?,
                };
                out.push_str(group(k)?);
            }
            _ => out.push('\\'),
        }
    }
    Ok(())
}

/// The number of the group named `name` in `pattern` (`\\g<name>` of a substitution), or
/// Julia's error where there is none.
fn named_group(pattern: &str, flags: &str, name: &str) -> Result<usize, String> {
    let names = group_names(pattern, flags)?;
    match names.iter().position(|n| n.as_deref() == Some(name)) {
        Some(k) => Ok(k + 1),
        None => Err(format!(
            "ErrorException: Bad replacement string: Group {name} not found in regex {}",
            shown(pattern)
        )),
    }
}

/// `split(s, r; limit, keepempty)`: the parts between matches, as Julia's `_split` over
/// `findnext` (a match starting past the last character ends it).
pub fn regex_split(
    pattern: &str,
    flags: &str,
    s: &str,
    limit: i64,
    keepempty: bool,
) -> Result<Vec<String>, String> {
    let c = compile(pattern, flags)?;
    let mut parts = Vec::new();
    let mut i = 0; // the start of the current part
    let mut at = 0;
    let last = s.char_indices().last().map_or(0, |(k, _)| k);
    while let Some(f) = find(&c, pattern, s, at, Mode::Search)? {
        let (j, k) = (f.range.start, f.range.end);
        if s.is_empty() || j > last || (limit > 0 && parts.len() as i64 == limit - 1) {
            break;
        }
        if i < k {
            if keepempty || i < j {
                parts.push(s[i..j].to_string());
            }
            i = k;
        }
        at = if k <= j { after(s, j) } else { k };
    }
    if keepempty || i < s.len() {
        parts.push(s[i.min(s.len())..].to_string());
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::{regex_replace, regex_split};

    fn split(p: &str, s: &str) -> Vec<String> {
        regex_split(p, "", s, 0, true).unwrap_or_else(|e| vec![e])
    }

    fn replace(p: &str, s: &str, rep: &str) -> String {
        regex_replace(p, "", s, rep, true, i64::MAX).unwrap_or_else(|e| e)
    }

    #[test]
    fn splits_and_replaces_as_julia() {
        assert_eq!(split(r"\s+", "a  b c"), ["a", "b", "c"]);
        assert_eq!(split(r"\s+", " a b "), ["", "a", "b", ""]);
        assert_eq!(split(r",", "a,,b"), ["a", "", "b"]);
        assert_eq!(split(r"x*", "abc"), ["a", "b", "c"]);
        assert_eq!(replace(r"(\d+)", "a12b3", r"<\1>"), "a<12>b<3>");
        assert_eq!(replace(r"x*", "abc", "-"), "-a-b-c-");
        assert_eq!(replace(r"a*", "baaac", "-"), "-b-c-");
        assert_eq!(replace(r"(a)(b)", "abab", r"\2\1\0\\"), r"baab\baab\");
    }

    #[test]
    fn lookaround_and_backreferences_match_as_pcre() {
        assert_eq!(replace(r"(?<=a)b", "abcb", "X"), "aXcb");
        assert_eq!(replace(r"(\w)\1", "aabcc", "<\\1>"), "<a>b<c>");
        assert_eq!(replace(r"(?=a)", "banana", "-"), "b-an-an-a");
        assert_eq!(split(r"(?<=,)", "a,b,c"), ["a,", "b,", "c"]);
        assert_eq!(split(r"\d+(?!px)", "10px 5"), ["", "0px ", ""]);
        assert!(replace(r"a\Z", "a", "").contains("PCRE reads it otherwise"));
    }
}
