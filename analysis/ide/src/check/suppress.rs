//! `# zy: allow(CODE, ...)`: per-line suppression. A comment on a line of code suppresses the
//! codes on that line; a comment on a line of its own suppresses them on the next line of
//! code (further comment lines in between, such as `# zy: at`, are skipped).

use std::collections::HashSet;

use crate::Diagnostic;

/// The `(line, code)` pairs (1-based lines) suppressed in `text`.
pub(crate) fn allowed(text: &str) -> HashSet<(u32, String)> {
    let mut out = HashSet::new();
    let mut pending: Vec<String> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i as u32 + 1;
        let trimmed = line.trim_start();
        let codes = line
            .find('#')
            .map(|at| codes_in(&line[at..]))
            .unwrap_or_default();
        if trimmed.starts_with('#') {
            pending.extend(codes);
            continue;
        }
        for code in pending.drain(..).chain(codes) {
            out.insert((n, code));
        }
    }
    out
}

/// The codes of a `# zy: allow(...)` comment (`comment` starts at its `#`).
fn codes_in(comment: &str) -> Vec<String> {
    let body = comment.trim_start_matches('#').trim_start();
    let Some(rest) = body.strip_prefix("zy:") else {
        return Vec::new();
    };
    let Some(list) = rest
        .trim_start()
        .strip_prefix("allow(")
        .and_then(|r| r.split(')').next())
    else {
        return Vec::new();
    };
    list.split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect()
}

/// `diags` without the ones `text` suppresses.
pub(crate) fn retain_allowed(text: &str, diags: &mut Vec<Diagnostic>) {
    if !text.contains("allow(") {
        return;
    }
    let allowed = allowed(text);
    diags.retain(|d| !allowed.contains(&(d.line, d.code.clone())));
}

#[cfg(test)]
mod tests {
    use super::allowed;

    #[test]
    fn same_line_and_next_code_line() {
        let text = "# zy: allow(zero-gradient, gradient-cut)\n# zy: at f(1.0)\nf(x, y) = x\n\
                    g(x) = round(x)  # zy: allow(gradient-cut)\nh(x) = x\n";
        let mut got: Vec<(u32, String)> = allowed(text).into_iter().collect();
        got.sort();
        let want = [
            (3, "gradient-cut"),
            (3, "zero-gradient"),
            (4, "gradient-cut"),
        ];
        assert_eq!(got, want.map(|(l, c)| (l, c.to_string())));
    }

    #[test]
    fn other_comments_do_not_count() {
        assert!(
            allowed("# allow(zero-gradient)\nf(x) = x\n# zy: at f(1.0)\nf(x) = x\n").is_empty()
        );
    }
}
