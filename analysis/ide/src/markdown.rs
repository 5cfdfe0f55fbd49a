//! A docstring's Markdown (Julia's flavour) as the editor's (CommonMark) shows it: code blocks
//! fenced as Julia, admonitions as block quotes. Julia's blocks are read as its `Markdown`
//! reads them: an indented code block starts a block (it does not break a paragraph), a list
//! item's content is indented by its marker's width, an admonition's by four spaces.

/// The docstring `doc` (Julia's Markdown) as the editor's Markdown.
pub(crate) fn editor_markdown(doc: &str) -> String {
    let lines: Vec<&str> = doc.lines().collect();
    blocks(&lines).join("\n")
}

/// The lines of `lines` (a docstring, a list item's or an admonition's content) converted.
fn blocks(lines: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    // Whether a block may start here: an indented line then is code, not a paragraph's.
    let mut block_start = true;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some((next, shown)) = fenced(lines, i) {
            out.extend(shown);
            i = next;
            block_start = true;
        } else if block_start && indented(line).is_some() {
            let mut end = i;
            while end + 1 < lines.len()
                && (indented(lines[end + 1]).is_some() || blank(lines[end + 1]))
            {
                end += 1;
            }
            while blank(lines[end]) {
                end -= 1;
            }
            let code: Vec<&str> = lines[i..=end]
                .iter()
                .map(|l| indented(l).unwrap_or(""))
                .collect();
            out.extend(code_block("julia", &code));
            i = end + 1;
        } else if let Some(width) = list_marker(line) {
            let end = nested_end(lines, i, |l| l.starts_with(&" ".repeat(width)));
            let content: Vec<&str> = std::iter::once(&line[width..])
                .chain(
                    lines[i + 1..end]
                        .iter()
                        .map(|l| l.get(width..).unwrap_or("")),
                )
                .collect();
            let marker = &line[..width];
            for (k, l) in blocks(&content).into_iter().enumerate() {
                let lead = if k == 0 {
                    marker.to_string()
                } else {
                    " ".repeat(width)
                };
                out.push(format!("{lead}{l}").trim_end().to_string());
            }
            i = end;
            block_start = true;
        } else if let Some(title) = admonition(line) {
            let end = nested_end(lines, i, |l| indented(l).is_some());
            let content: Vec<&str> = lines[i + 1..end]
                .iter()
                .map(|l| indented(l).unwrap_or(""))
                .collect();
            let mut content = blocks(&content);
            while content.last().is_some_and(|l| l.is_empty()) {
                content.pop();
            }
            out.push(format!("> **{title}**"));
            out.push(">".to_string());
            out.extend(
                content
                    .iter()
                    .map(|l| format!("> {l}").trim_end().to_string()),
            );
            // The blank lines after the admonition's content end the quote.
            out.extend(
                lines[i + 1..end]
                    .iter()
                    .rev()
                    .take_while(|l| blank(l))
                    .map(|_| String::new()),
            );
            i = end;
            block_start = true;
        } else {
            out.push(line.to_string());
            block_start = blank(line) || is_heading(line);
            i += 1;
        }
    }
    out
}

fn blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// The line without its four spaces (or tab) of indentation, if it has them.
fn indented(line: &str) -> Option<&str> {
    line.strip_prefix("    ")
        .or_else(|| line.strip_prefix('\t'))
}

fn is_heading(line: &str) -> bool {
    let hashes = line.len() - line.trim_start_matches('#').len();
    (1..=6).contains(&hashes)
        && line[hashes..]
            .chars()
            .next()
            .is_none_or(|c| c == ' ' || c == '\t')
}

/// The end (exclusive) of the block nested under line `i` (a list item's, an admonition's):
/// the lines after it that are blank or `inside`.
fn nested_end(lines: &[&str], i: usize, inside: impl Fn(&str) -> bool) -> usize {
    let mut end = i + 1;
    while end < lines.len() && (blank(lines[end]) || inside(lines[end])) {
        end += 1;
    }
    end
}

/// The width of the list marker that starts `line` (`- `, `* `, `+ `, `1. `, `2) `, after up
/// to three spaces), which is the indentation of the item's content.
fn list_marker(line: &str) -> Option<usize> {
    let lead = line.len() - line.trim_start_matches(' ').len();
    if lead > 3 {
        return None;
    }
    let rest = &line[lead..];
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let marker = match rest[digits..].chars().next()? {
        '.' | ')' if digits > 0 => digits + 1,
        '*' | '+' | '-' if digits == 0 => 1,
        _ => return None,
    };
    match rest[marker..].chars().next() {
        None => Some(lead + marker),
        Some(' ') => Some(lead + marker + 1),
        Some(_) => None,
    }
}

/// The title of the admonition `line` opens (`!!! note` is "Note", `!!! tip "Speed"` is
/// "Speed"), if it opens one.
fn admonition(line: &str) -> Option<String> {
    let rest = line.strip_prefix("!!! ")?.trim();
    let (category, title) = match rest.split_once(' ') {
        Some((c, t)) => (c, Some(t.strip_prefix('"')?.strip_suffix('"')?)),
        None => (rest, None),
    };
    if category.is_empty() || !category.chars().all(|c| c.is_ascii_lowercase()) {
        return None;
    }
    Some(match title {
        Some(t) => t.to_string(),
        None => category[..1].to_uppercase() + &category[1..],
    })
}

/// The fenced code block line `i` opens, if it opens one that is closed: the line after it,
/// and the block as shown: Julia's code (`jldoctest`, `julia-repl`, none) fenced as `julia`,
/// another language's as it is.
fn fenced(lines: &[&str], i: usize) -> Option<(usize, Vec<String>)> {
    let line = lines[i].trim_start();
    if lines[i].len() - line.len() > 3 {
        return None;
    }
    let c = line.chars().next().filter(|&c| c == '`' || c == '~')?;
    let n = line.len() - line.trim_start_matches(c).len();
    let (fence, info) = line.split_at(n);
    if n < 3 || info.contains(c) {
        return None;
    }
    let closes = |l: &&str| {
        l.strip_prefix(fence)
            .is_some_and(|rest| !rest.starts_with(c))
    };
    let end = i + 1 + lines[i + 1..].iter().position(closes)?;
    let code = &lines[i + 1..end];
    // `jldoctest name; setup = ...`: the language is the first word.
    let shown = match info.trim().split([' ', ';']).next().unwrap_or("") {
        "" | "julia" | "jldoctest" | "julia-repl" => code_block("julia", code),
        _ => std::iter::once(line)
            .chain(code.iter().copied())
            .chain([fence])
            .map(str::to_string)
            .collect(),
    };
    Some((end + 1, shown))
}

/// `code` fenced as `language`, with a fence longer than any line of it starts with.
fn code_block(language: &str, code: &[&str]) -> Vec<String> {
    let inner = code
        .iter()
        .map(|l| l.trim_start().len() - l.trim_start().trim_start_matches('`').len())
        .max()
        .unwrap_or(0);
    let fence = "`".repeat(inner.max(2) + 1);
    let mut out = vec![format!("{fence}{language}")];
    out.extend(code.iter().map(|l| l.to_string()));
    out.push(fence);
    out
}

#[cfg(test)]
mod tests {
    use super::editor_markdown;

    #[track_caller]
    fn check(doc: &str, shown: &str) {
        assert_eq!(editor_markdown(doc), shown);
    }

    #[test]
    fn an_indented_signature_and_doctests_are_fenced_as_julia() {
        check(
            "    clamp(x, lo, hi)\n\nClamp `x`.\n\n# Examples\n```jldoctest; setup = :(x = 1)\njulia> clamp(2, 0, 1)\n1\n```\n",
            "```julia\nclamp(x, lo, hi)\n```\n\nClamp `x`.\n\n# Examples\n```julia\njulia> clamp(2, 0, 1)\n1\n```",
        );
        // Indented code right after a heading; blank lines inside kept, those after it not.
        check(
            "# Examples\n    a = 1\n\n    b = 2\n\nText.",
            "# Examples\n```julia\na = 1\n\nb = 2\n```\n\nText.",
        );
        check("```math\nx^2\n```", "```math\nx^2\n```");
        check("~~~julia-repl\njulia> 1\n~~~", "```julia\njulia> 1\n```");
        // A code line starting with a fence gets a longer fence.
        check("    ```\n    x", "````julia\n```\nx\n````");
    }

    #[test]
    fn indentation_inside_paragraphs_lists_and_admonitions_is_not_code() {
        // Indented lines continuing a paragraph are the paragraph's.
        check("Text\n    more text", "Text\n    more text");
        // A list item's content after a blank line; code indented further is code.
        check(
            "- `x`: the input\n\n  more on `x`\n\n      x = 1\n- `y`",
            "- `x`: the input\n\n  more on `x`\n\n  ```julia\n  x = 1\n  ```\n- `y`",
        );
        check(
            "!!! note\n    Costs memory.\n\n        f(x)\n\nAfter.",
            "> **Note**\n>\n> Costs memory.\n>\n> ```julia\n> f(x)\n> ```\n\nAfter.",
        );
        check(
            "!!! warning \"Slow\"\n    Use `g`.",
            "> **Slow**\n>\n> Use `g`.",
        );
        // An unclosed fence is text, as Julia reads it.
        check("```julia\nx", "```julia\nx");
        // Interpolations are kept as written.
        check("Uses `$(N)` steps.", "Uses `$(N)` steps.");
    }
}
