//! `# zy: ...` comment lines directly above a definition: `# zy: at CALL`,
//! `# zy: gradcheck CALL`, `# zy: allow(CODE)`; and `# zy: checkpoint [snapshots=K]` directly
//! above a `for` or `while` loop.

use crate::ast::{Annotation, AnnotationKind, TextRange};
use crate::cx::Cx;
use crate::kind::Kind;
use crate::tree::SyntaxNode;

/// The annotations in the block of comment lines directly above the line holding byte `start`
/// (no blank line in between). Marks their lines as used; malformed ones are reported.
pub(crate) fn above(cx: &mut Cx, start: usize) -> Vec<Annotation> {
    let mut found = Vec::new();
    for (offset, comment) in zy_comments_above(cx.src, start) {
        cx.used_annotations.insert(offset as u32);
        if let Some(annotation) = parse(cx, comment, offset) {
            found.push(annotation);
        }
    }
    found
}

/// The `# zy:` comments (start byte, trimmed text) in the block of comment lines directly
/// above the line holding byte `start`, first line first.
fn zy_comments_above(src: &str, start: usize) -> Vec<(usize, &str)> {
    let mut line_start = src
        .get(..start)
        .and_then(|s| s.rfind('\n'))
        .map_or(0, |i| i + 1);
    if src
        .get(line_start..start)
        .is_none_or(|prefix| !prefix.trim().is_empty())
    {
        return Vec::new();
    }
    let mut found = Vec::new();
    while line_start > 0 {
        let prev_start = src
            .get(..line_start - 1)
            .and_then(|s| s.rfind('\n'))
            .map_or(0, |i| i + 1);
        let line = src.get(prev_start..line_start - 1).unwrap_or("");
        let trimmed = line.trim_start();
        if !trimmed.starts_with('#') || trimmed.starts_with("#=") {
            break;
        }
        if is_zy_comment(trimmed) {
            found.push((
                prev_start + (line.len() - trimmed.len()),
                trimmed.trim_end(),
            ));
        }
        line_start = prev_start;
    }
    found.reverse();
    found
}

/// A `# zy: checkpoint [snapshots=K]` line directly above the loop starting at byte `start`:
/// `Some(K)` (`Some(None)` without a count). Marks it used; a malformed count is reported.
pub(crate) fn checkpoint_above(cx: &mut Cx, start: usize) -> Option<Option<u32>> {
    let mut found = None;
    for (offset, comment) in zy_comments_above(cx.src, start) {
        let Some(rest) = keyword(annotation_body(comment), "checkpoint") else {
            continue;
        };
        cx.used_annotations.insert(offset as u32);
        let count = rest.strip_prefix("snapshots").map_or(rest, |r| {
            r.trim_start().strip_prefix('=').unwrap_or(r).trim_start()
        });
        if count.is_empty() {
            found = Some(None);
            continue;
        }
        match count.parse::<u32>() {
            Ok(k) if k > 0 => found = Some(Some(k)),
            _ => {
                let range = TextRange::new(offset as u32, (offset + comment.len()) as u32);
                cx.push(
                    range,
                    "syntax-error",
                    format!("`# zy: checkpoint` expects `snapshots=K` with K a positive integer, not `{rest}`"),
                );
            }
        }
    }
    found
}

/// The text after `zy:` of a `# zy:` comment, trimmed at the start.
fn annotation_body(comment: &str) -> &str {
    comment
        .strip_prefix('#')
        .unwrap_or(comment)
        .trim_start()
        .strip_prefix("zy:")
        .unwrap_or("")
        .trim_start()
}

/// The message for a `# zy: checkpoint` line that is not directly above a loop.
const CHECKPOINT_NOT_ABOVE_LOOP: &str =
    "`# zy: checkpoint` is not directly above a `for` or `while` loop";

/// Parses one `# zy: ...` comment starting at byte `offset`.
fn parse(cx: &mut Cx, comment: &str, offset: usize) -> Option<Annotation> {
    let body = annotation_body(comment);
    let body_offset = offset + (comment.len() - body.len());
    let whole = TextRange::new(offset as u32, (offset + comment.len()) as u32);
    let (kind, text, text_offset) = if let Some(call) = keyword(body, "at") {
        (
            AnnotationKind::At,
            call,
            body_offset + (body.len() - call.len()),
        )
    } else if let Some(call) = keyword(body, "gradcheck") {
        (
            AnnotationKind::Gradcheck,
            call,
            body_offset + (body.len() - call.len()),
        )
    } else if let Some(code) = body
        .strip_prefix("allow(")
        .and_then(|rest| rest.strip_suffix(')'))
    {
        (
            AnnotationKind::Allow,
            code.trim(),
            body_offset + "allow(".len() + (code.len() - code.trim_start().len()),
        )
    } else if keyword(body, "checkpoint").is_some() {
        cx.push(whole, "syntax-error", CHECKPOINT_NOT_ABOVE_LOOP.to_string());
        return None;
    } else {
        let shown: String = body.chars().take(30).collect();
        cx.push(
            whole,
            "syntax-error",
            format!(
                "unknown zy annotation `{shown}` (expected `at`, `gradcheck`, `allow(CODE)` or, above a loop, `checkpoint`)"
            ),
        );
        return None;
    };
    if text.is_empty() {
        cx.push(
            whole,
            "syntax-error",
            "empty zy annotation (expected a call after the keyword)".to_string(),
        );
        return None;
    }
    let range = TextRange::new(text_offset as u32, (text_offset + text.len()) as u32);
    Some(Annotation {
        kind,
        text: text.to_string(),
        range,
    })
}

/// The trimmed text after `word` (followed by a space or nothing), if `body` starts with it.
fn keyword<'t>(body: &'t str, word: &str) -> Option<&'t str> {
    let rest = body.strip_prefix(word)?;
    (rest.is_empty() || rest.starts_with(char::is_whitespace)).then(|| rest.trim())
}

/// Does a comment's text start a `# zy:` annotation?
pub(crate) fn is_zy_comment(text: &str) -> bool {
    text.strip_prefix('#')
        .is_some_and(|rest| rest.trim_start().starts_with("zy:"))
}

/// Reports every `# zy:` line comment (of `comments`) that is not directly above a method
/// definition, unless the line below its comment block is part of a syntax error (the
/// definition did not parse). `# zy: allow(CODE)` may stand anywhere: it suppresses findings
/// on its line and the next.
pub(crate) fn report_unattached(cx: &mut Cx, root: &SyntaxNode, comments: &[TextRange]) {
    for comment in comments {
        let text = cx.slice(*comment);
        if !is_zy_comment(text) || text.starts_with("#=") {
            continue;
        }
        let start = comment.start;
        if !cx.used_annotations.contains(&start)
            && !is_allow(text)
            && !in_broken_code(root, start)
            && !above_broken_code(cx.src, root, start as usize)
        {
            let range = TextRange::new(start, comment.end);
            let message = match keyword(annotation_body(text), "checkpoint") {
                Some(_) => CHECKPOINT_NOT_ABOVE_LOOP,
                None => "`# zy:` annotation is not directly above a method definition",
            };
            cx.push(range, "syntax-error", message.to_string());
        }
    }
}

/// Is the `# zy:` comment `text` an `allow(...)`?
fn is_allow(text: &str) -> bool {
    let body = text.trim_start_matches('#').trim_start();
    body.strip_prefix("zy:")
        .is_some_and(|rest| rest.trim_start().starts_with("allow("))
}

/// Is the first line after the comment block holding byte `start` in broken code?
fn above_broken_code(src: &str, root: &SyntaxNode, start: usize) -> bool {
    let mut offset = start;
    loop {
        let Some(next) = src
            .get(offset..)
            .and_then(|s| s.find('\n'))
            .map(|i| offset + i + 1)
        else {
            return false;
        };
        offset = next;
        let line = src
            .get(offset..)
            .and_then(|s| s.lines().next())
            .unwrap_or("");
        let code = line.len() - line.trim_start().len();
        if !line.trim_start().starts_with('#') {
            if line.trim().is_empty() {
                return false;
            }
            return in_broken_code(root, (offset + code) as u32);
        }
    }
}

/// Is byte `at` inside a top-level statement that holds a syntax error?
fn in_broken_code(root: &SyntaxNode, at: u32) -> bool {
    let mut node = root;
    loop {
        let Some(child) = node
            .children
            .iter()
            .find(|c| c.range.start <= at && at < c.range.end)
        else {
            return false;
        };
        if child.kind == Kind::Toplevel && !child.leaf {
            node = child;
            continue;
        }
        return child.has_error();
    }
}
