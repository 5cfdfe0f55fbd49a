//! The conversion context: the source text, the errors found so far, the recursion guard, and
//! small helpers over tree-sitter nodes.

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Node;

use crate::ast::{Expr, ExprKind, SyntaxError, TextRange};
use crate::ts_parser::Deadline;

/// Deepest expression nesting converted; deeper input is reported as "nesting too deep".
pub(crate) const MAX_DEPTH: u32 = 200;

/// Deepest nesting of array elements parsed again (`[a -[b -[c -d]]]`): each level parses its
/// whole inside again, so the work is this many times the size of the text at most.
pub(crate) const MAX_REPARSE_DEPTH: u32 = 8;

/// State shared by the whole conversion of one text.
pub(crate) struct Cx<'a> {
    /// The text being converted (all ranges index into it).
    pub src: &'a str,
    /// Errors found while converting (the error pass reports the tree's own errors).
    pub errors: Vec<SyntaxError>,
    /// Start bytes of the `# zy:` comment lines attached to a definition.
    pub used_annotations: BTreeSet<u32>,
    /// Start byte of each top-level definition that has a docstring -> start of the docstring.
    pub docstrings: BTreeMap<usize, usize>,
    /// How many indexing brackets enclose the expression being converted (`end` is a name
    /// there).
    pub in_index: u32,
    /// When the re-parses of array elements must stop.
    pub deadline: Deadline,
    /// Did a re-parse run out of time (then the conversion's result is discarded)?
    pub gave_up: bool,
    /// How many re-parsed array elements enclose the expression being converted.
    pub reparse_depth: u32,
    depth: u32,
    too_deep_reported: bool,
}

impl<'a> Cx<'a> {
    /// A fresh context over `src`, whose parse must end by `deadline`.
    pub fn new(src: &'a str, deadline: Deadline) -> Cx<'a> {
        Cx {
            src,
            errors: Vec::new(),
            used_annotations: BTreeSet::new(),
            docstrings: BTreeMap::new(),
            in_index: 0,
            deadline,
            gave_up: false,
            reparse_depth: 0,
            depth: 0,
            too_deep_reported: false,
        }
    }

    /// The source text of `node` (empty if the range is not on character boundaries).
    pub fn text(&self, node: Node) -> &'a str {
        self.src.get(node.byte_range()).unwrap_or("")
    }

    /// Enters one level of nesting; false (after reporting once) when too deep.
    pub fn enter(&mut self, node: Node) -> bool {
        self.enter_many(node, 1)
    }

    /// Enters `levels` levels at once (a chain converted in one step), or none if too deep.
    pub fn enter_many(&mut self, node: Node, levels: usize) -> bool {
        if self.depth as usize + levels > MAX_DEPTH as usize {
            self.too_deep(node);
            return false;
        }
        self.depth += levels as u32;
        true
    }

    /// Reports "nesting too deep" at `node` (once per text).
    pub fn too_deep(&mut self, node: Node) {
        if !self.too_deep_reported {
            self.too_deep_reported = true;
            self.push(range(node), "syntax-error", "nesting too deep".to_string());
        }
    }

    /// Leaves a level entered with [`Cx::enter`].
    pub fn leave(&mut self) {
        self.leave_many(1);
    }

    /// Leaves the levels entered with [`Cx::enter_many`].
    pub fn leave_many(&mut self, levels: usize) {
        self.depth -= levels as u32;
    }

    /// Records an error.
    pub fn push(&mut self, range: TextRange, code: &'static str, message: String) {
        self.errors.push(SyntaxError {
            range,
            code,
            message,
        });
    }

    /// Reports `unsupported: {what}` at `node` and returns an error expression there.
    pub fn unsupported(&mut self, node: Node, what: &str) -> Expr {
        self.push(range(node), "unsupported", format!("unsupported: {what}"));
        error_expr(node)
    }

    /// Reports a syntax error at `node` and returns an error expression there.
    pub fn syntax(&mut self, node: Node, message: &str) -> Expr {
        self.push(range(node), "syntax-error", message.to_string());
        error_expr(node)
    }
}

/// The byte range of a node.
pub(crate) fn range(node: Node) -> TextRange {
    TextRange::new(node.start_byte() as u32, node.end_byte() as u32)
}

/// The range from the start of `a` to the end of `b`.
pub(crate) fn span(a: TextRange, b: TextRange) -> TextRange {
    TextRange::new(a.start.min(b.start), a.end.max(b.end))
}

/// An [`ExprKind::Error`] over `node` (its error has been reported elsewhere).
pub(crate) fn error_expr(node: Node) -> Expr {
    Expr::new(ExprKind::Error, range(node))
}

/// Is the node a comment (comments may appear between any two children)?
pub(crate) fn is_comment(node: Node) -> bool {
    // Comments are extra nodes; the flag is cheaper than the kind's name (but error recovery
    // can make other nodes extra too).
    node.is_extra() && matches!(node.kind(), "line_comment" | "block_comment")
}

/// The named children of `node` other than comments, in order.
pub(crate) fn kids(node: Node) -> Vec<Node> {
    if node.named_child_count() == 0 {
        return Vec::new();
    }
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|n| !is_comment(*n))
        .collect()
}

/// All children (named or not) other than comments, in order.
pub(crate) fn all_kids(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .filter(|n| !is_comment(*n))
        .collect()
}
