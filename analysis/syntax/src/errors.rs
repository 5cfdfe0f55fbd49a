//! The error pass: every ERROR and MISSING node of the tree becomes a [`SyntaxError`], and the
//! `# zy:` comment lines are collected. One iterative walk with its own ancestor stack (a
//! tree-sitter node finds its parent only by searching down from the root), so any nesting
//! depth is safe and the time is linear in the size of the broken parts of the tree (the
//! paths to errors and the insides of ERROR nodes).

use tree_sitter::{Node, Tree};

use crate::ast::{SyntaxError, TextRange};
use crate::cx::{all_kids, range};

/// What the error pass found.
pub(crate) struct Scan {
    pub errors: Vec<SyntaxError>,
    /// Start bytes of the line comments that begin with `# zy:`.
    pub zy_comments: Vec<u32>,
}

/// One node on the path from the root to the current node.
struct Frame<'t> {
    node: Node<'t>,
    /// Position among its parent's children.
    index: usize,
    /// Inside the brackets of an indexing expression (where `end` is a name).
    in_index: bool,
    /// The innermost enclosing ERROR node, as an index into the list of ERROR nodes.
    error: Option<usize>,
    /// Does this node have a MISSING child (computed when first needed)?
    missing_child: Option<bool>,
}

/// An ERROR node and what was found inside it.
struct ErrorNode<'t> {
    node: Node<'t>,
    /// The enclosing ERROR node.
    outer: Option<usize>,
    /// The first `end` inside it that the grammar read as a name (`x +` then `end` on the next
    /// line), outside indexing brackets: where the code really broke.
    misread_end: Option<Node<'t>>,
    /// A MISSING sibling (`sin(x` then a newline) already explains this error.
    explained: bool,
}

/// Walks the parts of the tree that hold errors, and finds the `# zy:` comments.
pub(crate) fn scan(tree: &Tree, src: &str) -> Scan {
    let root = tree.root_node();
    let mut errors = Vec::new();
    let mut error_nodes: Vec<ErrorNode> = Vec::new();
    let mut stack = vec![frame(None, root, 0, &mut error_nodes)];
    let mut cursor = tree.walk();
    loop {
        let node = cursor.node();
        visit(node, src, &mut stack, &mut errors, &mut error_nodes);
        let inside_error = stack.last().is_some_and(|f| f.error.is_some());
        if (node.has_error() || inside_error) && cursor.goto_first_child() {
            let child = frame(stack.last(), cursor.node(), 0, &mut error_nodes);
            stack.push(child);
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                let index = stack.pop().map_or(0, |f| f.index + 1);
                let sibling = frame(stack.last(), cursor.node(), index, &mut error_nodes);
                stack.push(sibling);
                break;
            }
            if !cursor.goto_parent() {
                let described = error_nodes.iter().filter(|e| !e.explained);
                errors.extend(described.map(|e| describe(e, src)));
                return Scan {
                    errors,
                    zy_comments: zy_comments(root, src),
                };
            }
            stack.pop();
        }
    }
}

/// The frame of `node`, child number `index` of `parent`.
fn frame<'t>(
    parent: Option<&Frame<'t>>,
    node: Node<'t>,
    index: usize,
    error_nodes: &mut Vec<ErrorNode<'t>>,
) -> Frame<'t> {
    let in_index =
        parent.is_some_and(|p| p.in_index || (p.node.kind() == "index_expression" && index > 0));
    let mut error = parent.and_then(|p| p.error);
    if node.is_error() {
        error_nodes.push(ErrorNode {
            node,
            outer: error,
            misread_end: None,
            explained: false,
        });
        error = Some(error_nodes.len() - 1);
    }
    Frame {
        node,
        index,
        in_index,
        error,
        missing_child: None,
    }
}

/// Records what `node` (on top of `stack`) says about errors.
fn visit<'t>(
    node: Node<'t>,
    src: &str,
    stack: &mut [Frame<'t>],
    errors: &mut Vec<SyntaxError>,
    error_nodes: &mut [ErrorNode<'t>],
) {
    let (top, ancestors) = match stack.split_last_mut() {
        Some(split) => split,
        None => return,
    };
    let parent = ancestors.last_mut();
    if node.is_missing() {
        errors.push(describe_missing(node, parent.map(|p| p.node)));
    } else if node.is_error() {
        if let (Some(parent), Some(slot)) = (parent, top.error) {
            let missing = *parent
                .missing_child
                .get_or_insert_with(|| has_missing_child(parent.node));
            error_nodes[slot].explained = missing;
        }
    } else if !top.in_index
        && node.kind() == "identifier"
        && src.get(node.byte_range()) == Some("end")
    {
        // The first misread `end` inside each enclosing ERROR node.
        let mut slot = top.error;
        while let Some(i) = slot {
            if error_nodes[i].misread_end.is_some() {
                break;
            }
            error_nodes[i].misread_end = Some(node);
            slot = error_nodes[i].outer;
        }
    }
}

/// Does `node` have a MISSING child (then its ERROR children only repeat that error)?
fn has_missing_child(node: Node) -> bool {
    let mut cursor = node.walk();
    let found = node.children(&mut cursor).any(|k| k.is_missing());
    found
}

/// A MISSING node: a closing `end` or bracket is reported at the construct's opening token.
fn describe_missing(node: Node, parent: Option<Node>) -> SyntaxError {
    if node.is_named() {
        return syntax(
            range(node),
            format!("missing {}", node.kind().replace('_', " ")),
        );
    }
    let opener = parent
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
fn describe(error: &ErrorNode, src: &str) -> SyntaxError {
    let node = error.node;
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
    if let Some(keyword) = error.misread_end {
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

/// The first leaf of `node` that has text (or `node` itself).
fn first_token(node: Node) -> Node {
    let mut cursor = node.walk();
    // Bounded, so that nested ERROR nodes cost linear time: a deep first token is shown as
    // the start of the node's text.
    for _ in 0..64 {
        let current = cursor.node();
        if current.start_byte() < current.end_byte() {
            if !cursor.goto_first_child() {
                return current;
            }
        } else if !cursor.goto_next_sibling() {
            return node;
        }
    }
    cursor.node()
}
