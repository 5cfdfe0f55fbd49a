//! The error pass: every ERROR and MISSING node of the tree becomes a [`SyntaxError`], and the
//! `# zy:` comment lines are collected on the way. Iterative, so any nesting depth is safe.

use tree_sitter::{Node, Tree};

use crate::ast::{SyntaxError, TextRange};
use crate::cx::{all_kids, range};
use crate::expr::in_index;

/// What the error pass found.
pub(crate) struct Scan {
    pub errors: Vec<SyntaxError>,
    /// Start bytes of the line comments that begin with `# zy:`.
    pub zy_comments: Vec<u32>,
}

/// Walks the parts of the tree that hold errors, and finds the `# zy:` comments.
pub(crate) fn scan(tree: &Tree, src: &str) -> Scan {
    let root = tree.root_node();
    let mut scan = Scan {
        errors: Vec::new(),
        zy_comments: zy_comments(root, src),
    };
    let mut cursor = tree.walk();
    loop {
        let node = cursor.node();
        if node.is_missing() {
            scan.errors.push(describe_missing(node));
        } else if node.is_error() && !sibling_missing(node) {
            scan.errors.push(describe(node, src));
        }
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return scan;
            }
        }
    }
}

/// A MISSING node: a closing `end` or bracket is reported at the construct's opening token.
fn describe_missing(node: Node) -> SyntaxError {
    if node.is_named() {
        return syntax(
            range(node),
            format!("missing {}", node.kind().replace('_', " ")),
        );
    }
    let opener = node
        .parent()
        .and_then(|p| p.child(0))
        .filter(|o| !o.is_named() && !o.is_missing());
    match (node.kind(), opener) {
        ("end", Some(opener)) => syntax(
            range(opener),
            format!("missing `end` for `{}`", opener.kind()),
        ),
        (")" | "]" | "}", Some(opener)) if matches!(opener.kind(), "(" | "[" | "{") => {
            syntax(range(opener), format!("missing `{}`", node.kind()))
        }
        (kind, _) => syntax(range(node), format!("missing `{kind}`")),
    }
}

/// Is a closer missing next to this ERROR node (`sin(x` then a newline)? Then the MISSING node
/// explains the error and the ERROR would only repeat it.
fn sibling_missing(node: Node) -> bool {
    node.parent().is_some_and(|parent| {
        let mut cursor = parent.walk();
        let found = parent.children(&mut cursor).any(|k| k.is_missing());
        found
    })
}

/// The start bytes of the line comments that begin with `# zy:` (found in the text, confirmed
/// in the tree so that strings and block comments do not count).
fn zy_comments(root: Node, src: &str) -> Vec<u32> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = src
        .get(from..)
        .and_then(|s| s.find("zy:"))
        .map(|i| from + i)
    {
        from = at + 3;
        let line_start = src
            .get(..at)
            .and_then(|s| s.rfind('\n'))
            .map_or(0, |i| i + 1);
        let Some(hash) = src
            .get(line_start..at)
            .and_then(|s| s.find('#'))
            .map(|i| line_start + i)
        else {
            continue;
        };
        let is_comment = root
            .descendant_for_byte_range(hash, hash + 1)
            .is_some_and(|n| n.kind() == "line_comment" && n.start_byte() == hash);
        if is_comment && is_zy_comment(src.get(hash..).unwrap_or("")) {
            found.push(hash as u32);
        }
    }
    found
}

/// Does a comment's text start a `# zy:` annotation?
pub(crate) fn is_zy_comment(text: &str) -> bool {
    text.strip_prefix('#')
        .is_some_and(|rest| rest.trim_start().starts_with("zy:"))
}

fn syntax(range: TextRange, message: String) -> SyntaxError {
    SyntaxError {
        range,
        code: "syntax-error",
        message,
    }
}

const BLOCK_KEYWORDS: &[&str] = &[
    "function", "if", "for", "while", "begin", "struct", "let", "try", "do", "module", "quote",
    "macro",
];

/// The most useful description of an ERROR node: an unclosed bracket, a block without `end`, or
/// the first token that could not be parsed.
fn describe(node: Node, src: &str) -> SyntaxError {
    let kids = all_kids(node);
    let mut open: Vec<Node> = Vec::new();
    for kid in &kids {
        match kid.kind() {
            "(" | "[" | "{" => open.push(*kid),
            ")" | "]" | "}" => {
                open.pop();
            }
            _ => {}
        }
    }
    if let Some(opener) = open.last() {
        let closer = match opener.kind() {
            "(" => ")",
            "[" => "]",
            _ => "}",
        };
        return syntax(range(*opener), format!("missing `{closer}`"));
    }
    if let Some(keyword) = misread_end(node, src) {
        return syntax(range(keyword), "syntax error: unexpected `end`".to_string());
    }
    let mut unclosed: Vec<Node> = Vec::new();
    for kid in &kids {
        if !kid.is_named() && BLOCK_KEYWORDS.contains(&kid.kind()) {
            unclosed.push(*kid);
        } else if !kid.is_named() && kid.kind() == "end" {
            unclosed.pop();
        }
    }
    if let Some(keyword) = unclosed.first() {
        return syntax(
            range(*keyword),
            format!("missing `end` for `{}`", keyword.kind()),
        );
    }
    let token = first_token(node);
    let text = src
        .get(token.byte_range())
        .unwrap_or("")
        .lines()
        .next()
        .unwrap_or("");
    if text.is_empty() {
        return syntax(range(node), "syntax error".to_string());
    }
    let shown: String = text.chars().take(24).collect();
    syntax(range(token), format!("syntax error: unexpected `{shown}`"))
}

/// An `end` that the grammar read as a name (`x +` then `end` on the next line), outside any
/// indexing brackets: where the code really broke.
fn misread_end<'t>(node: Node<'t>, src: &str) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    loop {
        let current = cursor.node();
        if current.kind() == "identifier"
            && src.get(current.byte_range()) == Some("end")
            && !in_index(current)
        {
            return Some(current);
        }
        if current.kind() != "index_expression" && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return None;
            }
        }
    }
}

/// The first leaf of `node` that has text (or `node` itself).
fn first_token(node: Node) -> Node {
    let mut cursor = node.walk();
    loop {
        let current = cursor.node();
        if current.start_byte() < current.end_byte() {
            if !cursor.goto_first_child() {
                return current;
            }
        } else if !cursor.goto_next_sibling() {
            return node;
        }
    }
}
