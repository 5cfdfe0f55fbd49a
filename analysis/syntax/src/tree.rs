//! The generic syntax tree of Julia's surface syntax, with byte ranges, and how to parse text
//! into it. Every construct of Julia has a node here (the kinds follow JuliaSyntax's); zy's
//! subset is converted from it into [`crate::ast`]. Punctuation, keywords, whitespace and
//! comments are left out of the tree but counted in the ranges of the nodes around them;
//! comments stay available in [`Parse::comments`]. Errors that the parser marks as trivia (a
//! missing `:` in `a ? b c`, tokens skipped before a closing bracket) are left out too, but
//! flag their parent as having an error.

use std::fmt;
use std::time::Instant;

use crate::ast::TextRange;
use crate::kind::Kind;
use crate::lexer::tokenize;
use crate::parser::stream::{flags, Diagnostic, Event, Stop, Stream};
use crate::parser::{Ctx, Parser};

/// A node of the syntax tree: a token (a leaf) or a construct and its children. Trees can be
/// deep (a chain of 100,000 `-` is a left-nested tree as deep), so dropping and printing
/// (`Debug`, [`Sexp`]) use an explicit stack; cloning recurses (macro expansion clones the
/// small trees of a macro's templates and of its call's arguments).
#[derive(Clone)]
pub struct SyntaxNode {
    pub kind: Kind,
    /// Flags of the node (infix, prefix, trailing comma, ...), see the printer.
    pub flags: u16,
    pub range: TextRange,
    /// Is this a token?
    pub leaf: bool,
    pub children: Vec<SyntaxNode>,
    /// The syntax errors left out of `children` (whitespace where none is allowed, a stray
    /// token after a complete construct), each with the number of children before it, kept
    /// for the printer, which shows them as JuliaSyntax does (`(error-t)`).
    pub trivia_errors: Vec<(usize, SyntaxNode)>,
}

/// Set on a node with an error node or error token anywhere inside it.
const HAS_ERROR: u16 = 1 << 10;

impl SyntaxNode {
    /// Is there a syntax error in this node?
    pub fn has_error(&self) -> bool {
        self.flags & HAS_ERROR != 0 || self.is_error()
    }

    /// Is this an error node or error token?
    pub fn is_error(&self) -> bool {
        self.kind == Kind::ErrorNode || self.kind.is_error()
    }

    /// Written with infix syntax (`a + b`): the operator is the second child.
    pub fn is_infix(&self) -> bool {
        self.flags & flags::INFIX != 0
    }

    /// Written with prefix syntax (`-x`, `::T`).
    pub fn is_prefix(&self) -> bool {
        self.flags & flags::PREFIX != 0
    }

    /// Written with postfix syntax (`x'`).
    pub fn is_postfix(&self) -> bool {
        self.flags & flags::POSTFIX != 0
    }

    /// `mutable struct`, `baremodule`, short-form `f(x) = ...`, `:x` (by kind).
    pub fn has_flag(&self, flag: u16) -> bool {
        self.flags & flag != 0
    }

    /// The dimension of an `ncat` or `nrow`.
    pub fn dim(&self) -> usize {
        (self.flags >> flags::DIM_SHIFT) as usize
    }

    /// The children that are not error nodes.
    pub fn args(&self) -> impl Iterator<Item = &SyntaxNode> {
        self.children.iter().filter(|c| !c.is_error())
    }
}

/// A parsed text: the tree, the problems found, and the comments.
#[derive(Debug)]
pub struct Parse {
    pub root: SyntaxNode,
    pub diagnostics: Vec<Diagnostic>,
    /// The ranges of all comments, in order.
    pub comments: Vec<TextRange>,
    /// Did parsing stop before the end (the deadline passed)?
    pub gave_up: bool,
}

/// Parses a whole file into its syntax tree. Never fails; `deadline`, if given, stops the
/// parse (then [`Parse::gave_up`] is set and the tree is partial).
pub fn parse(text: &str, deadline: Option<Instant>) -> Parse {
    let first = parse_once(text, deadline, false);
    if !first.1 {
        return first.0;
    }
    // A block is missing its `end`: parse again so that the definitions after it survive.
    parse_once(text, deadline, true).0
}

/// One parse; also says whether a block missed its `end`.
fn parse_once(text: &str, deadline: Option<Instant>, recovering: bool) -> (Parse, bool) {
    let tokens = tokenize(text);
    let comments = tokens
        .iter()
        .filter(|t| t.kind == Kind::Comment)
        .map(|t| t.range)
        .collect();
    let mut parser = Parser::new(text, Stream::new(tokens, deadline), recovering);
    parser.parse_toplevel(Ctx::TOP);
    parser.s.check_deadline();
    let missing_end = parser.missing_end;
    let mut stream = parser.s;
    let gave_up = stream.stopped == Some(Stop::Deadline);
    if stream.stopped == Some(Stop::Stuck) {
        let at = stream.position().byte;
        stream.diagnose(
            TextRange::new(at, at),
            "syntax error: the parser could not go on here",
        );
    }
    let (root, mut diagnostics) = build(&stream, text);
    diagnostics.extend(stream.diagnostics);
    diagnostics.sort_by_key(|d| (d.range.start, d.range.end));
    diagnostics.dedup();
    (
        Parse {
            root,
            diagnostics,
            comments,
            gave_up,
        },
        missing_end,
    )
}

/// An item on the building stack: a built node (or a trivia token's range only).
struct Built {
    /// The index of the first event of its subtree.
    first_event: usize,
    range: Option<TextRange>,
    node: Option<SyntaxNode>,
    /// A syntax error the tree leaves out (a trivia error node): its parent has an error.
    error: bool,
    /// That error node, for the printer.
    hidden: Option<SyntaxNode>,
}

/// Builds the tree from the postorder output, without recursion; returns it and the
/// diagnostics of error nodes and error tokens.
fn build(stream: &Stream, text: &str) -> (SyntaxNode, Vec<Diagnostic>) {
    let mut stack: Vec<Built> = Vec::new();
    let mut diagnostics = Vec::new();
    for (i, event) in stream.output.iter().enumerate() {
        if event.is_token() {
            build_token(&mut stack, &mut diagnostics, i, event, text);
            continue;
        }
        let first = i.saturating_sub(event.span as usize);
        if event.is_tombstone() {
            // Its children belong to its parent: leave them on the stack.
            continue;
        }
        let split = stack
            .iter()
            .rposition(|b| b.first_event < first)
            .map_or(0, |p| p + 1);
        let mut range: Option<TextRange> = None;
        let mut children = Vec::new();
        let mut trivia_errors = Vec::new();
        let mut has_error = false;
        for built in stack.drain(split..) {
            if let Some(r) = built.range {
                range = Some(range.map_or(r, |acc| span(acc, r)));
            }
            has_error |= built.error;
            if let Some(node) = built.node {
                has_error |= node.has_error();
                children.push(node);
            }
            if let Some(error) = built.hidden {
                trivia_errors.push((children.len(), error));
            }
        }
        let range = range.unwrap_or(TextRange::new(event.range.start, event.range.start));
        if event.message > 0 {
            let message = stream
                .messages
                .get(event.message as usize - 1)
                .cloned()
                .unwrap_or_default();
            diagnostics.push(Diagnostic { range, message });
        }
        let mut fl = event.flags & !flags::TRIVIA;
        if has_error {
            fl |= HAS_ERROR;
        }
        let keep = event.flags & flags::TRIVIA == 0;
        let trivia_error = !keep && event.kind == Kind::ErrorNode;
        let node = SyntaxNode {
            kind: event.kind,
            flags: fl,
            range,
            leaf: false,
            children,
            trivia_errors,
        };
        let (node, hidden) = match (keep, trivia_error) {
            (true, _) => (Some(node), None),
            (false, true) => {
                let mut node = node;
                node.flags |= flags::TRIVIA;
                (None, Some(node))
            }
            (false, false) => (None, None),
        };
        stack.push(Built {
            first_event: first,
            range: Some(range),
            error: trivia_error || (!keep && has_error),
            node,
            hidden,
        });
    }
    let end = text.len() as u32;
    let root_error = stack.iter().any(|b| b.error);
    let mut children: Vec<SyntaxNode> = Vec::new();
    let mut root_trivia_errors = Vec::new();
    for built in stack {
        children.extend(built.node);
        if let Some(error) = built.hidden {
            root_trivia_errors.push((children.len(), error));
        }
    }
    let mut root = match (children.pop(), children.is_empty()) {
        (Some(root), true) if root.kind == Kind::Toplevel => root,
        (last, _) => SyntaxNode {
            kind: Kind::Toplevel,
            flags: 0,
            range: TextRange::default(),
            leaf: false,
            children: children.into_iter().chain(last).collect(),
            trivia_errors: Vec::new(),
        },
    };
    root.range = TextRange::new(0, end);
    root.trivia_errors.extend(root_trivia_errors);
    if root_error {
        root.flags |= HAS_ERROR;
    }
    (root, diagnostics)
}

/// A token of the output: a leaf, a trivia range, or nothing (whitespace, comments).
fn build_token(
    stack: &mut Vec<Built>,
    diagnostics: &mut Vec<Diagnostic>,
    i: usize,
    event: &Event,
    text: &str,
) {
    if event.is_tombstone() || event.kind.is_trivia() {
        return;
    }
    let range = event.range;
    let empty = range.start == range.end;
    if let Kind::Error(error) = event.kind {
        let shown = text
            .get(range.start as usize..range.end as usize)
            .unwrap_or("");
        let message = match error {
            crate::kind::TokenError::InvalidOperator => {
                format!("syntax error: invalid operator `{shown}`")
            }
            crate::kind::TokenError::UnknownCharacter
            | crate::kind::TokenError::IdentifierStart
            | crate::kind::TokenError::InvisibleChar => {
                format!(
                    "syntax error: {} `{}`",
                    error.message(),
                    shown.escape_unicode()
                )
            }
            _ => format!("syntax error: {}", error.message()),
        };
        diagnostics.push(Diagnostic { range, message });
    }
    let trivia = event.flags & flags::TRIVIA != 0;
    let error = trivia && (event.kind == Kind::ErrorNode || event.kind.is_error());
    let leaf = SyntaxNode {
        kind: event.kind,
        flags: event.flags & !flags::TRIVIA,
        range,
        leaf: true,
        children: Vec::new(),
        trivia_errors: Vec::new(),
    };
    let (node, hidden) = match (trivia, error) {
        (false, _) => (Some(leaf), None),
        (true, true) => {
            let mut leaf = leaf;
            leaf.flags |= flags::TRIVIA;
            (None, Some(leaf))
        }
        (true, false) => (None, None),
    };
    stack.push(Built {
        first_event: i,
        range: (!empty).then_some(range),
        error,
        node,
        hidden,
    });
}

/// The range from the start of `a` to the end of `b` (whichever is wider).
fn span(a: TextRange, b: TextRange) -> TextRange {
    TextRange::new(a.start.min(b.start), a.end.max(b.end))
}

impl Drop for SyntaxNode {
    fn drop(&mut self) {
        if self.children.iter().all(|c| c.children.is_empty()) {
            return;
        }
        let mut stack = std::mem::take(&mut self.children);
        while let Some(mut node) = stack.pop() {
            stack.append(&mut node.children);
        }
    }
}

/// Without the source text: `(call-i@0..5 (Identifier@0..1) ...)`.
impl fmt::Debug for SyntaxNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_tree(f, self, |f, node| {
            write!(
                f,
                "{}{}@{}..{}",
                node.kind.name(),
                suffix(node),
                node.range.start,
                node.range.end
            )
        })
    }
}

/// Writes `root` as an S-expression, each node's head by `head`, with an explicit stack.
fn write_tree(
    f: &mut fmt::Formatter<'_>,
    root: &SyntaxNode,
    head: impl Fn(&mut fmt::Formatter<'_>, &SyntaxNode) -> fmt::Result,
) -> fmt::Result {
    enum Step<'n> {
        Open(&'n SyntaxNode),
        /// `(wrapper`: a statement and the junk after it.
        OpenWrapper,
        Close,
    }
    let mut steps = vec![Step::Open(root)];
    let mut first = true;
    while let Some(step) = steps.pop() {
        if !matches!(step, Step::Close) && !first {
            f.write_str(" ")?;
        }
        match step {
            Step::Close => f.write_str(")")?,
            Step::OpenWrapper => f.write_str("(wrapper")?,
            Step::Open(node) => {
                first = false;
                if node.leaf {
                    head(f, node)?;
                    continue;
                }
                f.write_str("(")?;
                head(f, node)?;
                let parts = children_and_errors(node);
                if parts.is_empty() {
                    f.write_str(")")?;
                    continue;
                }
                steps.push(Step::Close);
                for part in parts.into_iter().rev() {
                    match part {
                        Part::Node(n) => steps.push(Step::Open(n)),
                        Part::Wrapped(statement, junk) => {
                            steps.push(Step::Close);
                            steps.extend(junk.into_iter().rev().map(Step::Open));
                            steps.push(Step::Open(statement));
                            steps.push(Step::OpenWrapper);
                        }
                    }
                }
            }
        }
        first = false;
    }
    Ok(())
}

/// A child in print order: a node, or a statement with the junk after it (JuliaSyntax's
/// `wrapper`).
enum Part<'n> {
    Node(&'n SyntaxNode),
    Wrapped(&'n SyntaxNode, Vec<&'n SyntaxNode>),
}

/// The children of `node` with its left-out syntax errors, in source order; in a `toplevel`
/// the errors after a statement are wrapped with it.
fn children_and_errors(node: &SyntaxNode) -> Vec<Part<'_>> {
    let mut parts = Vec::with_capacity(node.children.len() + node.trivia_errors.len());
    let mut errors = node.trivia_errors.iter().peekable();
    for (i, child) in node.children.iter().enumerate() {
        while let Some((_, error)) = errors.next_if(|(before, _)| *before <= i) {
            parts.push(Part::Node(error));
        }
        let junk: Vec<&SyntaxNode> = if node.kind == Kind::Toplevel {
            std::iter::from_fn(|| errors.next_if(|(before, _)| *before == i + 1))
                .map(|(_, error)| error)
                .collect()
        } else {
            Vec::new()
        };
        if junk.is_empty() {
            parts.push(Part::Node(child));
        } else {
            parts.push(Part::Wrapped(child, junk));
        }
    }
    parts.extend(errors.map(|(_, error)| Part::Node(error)));
    parts
}

/// A syntax tree printed as an S-expression over its source text: `(call-i a + b)`.
pub struct Sexp<'a> {
    pub node: &'a SyntaxNode,
    pub text: &'a str,
}

impl fmt::Display for Sexp<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let leaves = special_leaves(self.node);
        write_tree(f, self.node, |f, node| {
            if node.leaf {
                write_leaf(f, node, self.text, leaves.get(&node.range.start))
            } else if node.kind == Kind::Catch && node.children.len() == 1 {
                // JuliaSyntax's placeholder for a `catch` without a variable.
                write!(f, "{}{} \u{25a1}", node.kind.name(), suffix(node))
            } else {
                write!(f, "{}{}", node.kind.name(), suffix(node))
            }
        })
    }
}

/// Leaves printed other than by their kind, by where they start.
enum Special {
    /// The name of a string macro (`x` in `x"s"`), printed `@x_str` or `@x_cmd`.
    StrMacro(&'static str),
    /// A chunk of a raw string, and its delimiter.
    Raw(char),
    /// The name in `var"..."`.
    VarName,
    /// Punctuation inside a left-out error, which JuliaSyntax shows as `✘`.
    Cross,
}

/// The leaves under `root` that print specially, found with an explicit stack.
fn special_leaves(root: &SyntaxNode) -> std::collections::HashMap<u32, Special> {
    let mut found = std::collections::HashMap::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match (node.kind, node.children.as_slice()) {
            (Kind::MacroCall, [name, string, ..])
                if matches!(string.kind, Kind::StringLit | Kind::CmdStringLit) =>
            {
                let suffix = if string.kind == Kind::StringLit {
                    "str"
                } else {
                    "cmd"
                };
                let name = match (name.kind, name.children.as_slice()) {
                    (Kind::Dot, [.., last]) => last,
                    _ => name,
                };
                if name.leaf {
                    found.insert(name.range.start, Special::StrMacro(suffix));
                }
            }
            (Kind::StringLit, parts) if node.has_flag(flags::RAW_STRING) => {
                for part in parts.iter().filter(|p| p.leaf) {
                    found.insert(part.range.start, Special::Raw('"'));
                }
            }
            (Kind::CmdStringLit, parts) => {
                for part in parts.iter().filter(|p| p.leaf) {
                    found.insert(part.range.start, Special::Raw('`'));
                }
            }
            (Kind::Var, [name, ..]) if name.leaf => {
                found.insert(name.range.start, Special::VarName);
            }
            (Kind::ErrorNode, parts) if node.has_flag(flags::TRIVIA) => {
                for part in parts.iter().filter(|p| p.leaf && is_punctuation(p.kind)) {
                    found.insert(part.range.start, Special::Cross);
                }
            }
            _ => {}
        }
        stack.extend(node.children.iter().filter(|c| !c.leaf));
        stack.extend(
            node.trivia_errors
                .iter()
                .map(|(_, e)| e)
                .filter(|e| !e.leaf),
        );
    }
    found
}

/// Brackets, `,`, `;` and `@`: what JuliaSyntax keeps as trivia, shown as `✘` in an error.
fn is_punctuation(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Comma
            | Kind::Semicolon
            | Kind::At
            | Kind::LParen
            | Kind::RParen
            | Kind::LBracket
            | Kind::RBracket
            | Kind::LBrace
            | Kind::RBrace
    )
}

/// A token as JuliaSyntax prints it: literals by value, names as written.
fn write_leaf(
    f: &mut fmt::Formatter<'_>,
    node: &SyntaxNode,
    text: &str,
    special: Option<&Special>,
) -> fmt::Result {
    let source = text
        .get(node.range.start as usize..node.range.end as usize)
        .unwrap_or("");
    match (node.kind, special) {
        (_, Some(Special::Cross)) => f.write_str("\u{2718}"),
        (_, Some(Special::StrMacro(suffix))) => write!(f, "@{source}_{suffix}"),
        (Kind::Identifier, Some(Special::VarName)) => {
            f.write_str(&crate::show::raw_value(source, '"'))
        }
        (Kind::String | Kind::CmdString, Some(Special::Raw(delimiter))) => f.write_str(
            &crate::show::julia_string(&crate::show::raw_value(source, *delimiter)),
        ),
        (Kind::String, _) => {
            let mut value = String::new();
            match crate::literals::unescape_into(source, &mut value) {
                Ok(()) => f.write_str(&crate::show::julia_string(&value)),
                Err(e) if e.problem == crate::literals::Problem::Escape => {
                    f.write_str("(ErrorInvalidEscapeSequence)")
                }
                Err(_) => write!(f, "{source:?}"),
            }
        }
        (Kind::CmdString, _) => write!(f, "{source:?}"),
        (Kind::Char, _) => {
            let mut value = String::new();
            let ok = crate::literals::unescape_into(source, &mut value).is_ok();
            let mut chars = value.chars();
            match (ok, chars.next(), chars.next()) {
                (true, Some(c), None) => f.write_str(&crate::show::julia_char(c)),
                (true, Some(_), Some(_)) => f.write_str("(ErrorOverLongCharacter)"),
                (false, ..) => f.write_str("(ErrorInvalidEscapeSequence)"),
                _ => write!(f, "'{source}'"),
            }
        }
        (
            Kind::Integer
            | Kind::HexInt
            | Kind::BinInt
            | Kind::OctInt
            | Kind::Float
            | Kind::Float32,
            _,
        ) => match crate::show::number(source, node.kind) {
            Some(shown) => f.write_str(&shown),
            None => f.write_str(source),
        },
        (Kind::ErrorNode, _) if node.has_flag(flags::TRIVIA) => f.write_str("(error-t)"),
        (Kind::ErrorNode, _) => f.write_str("(error)"),
        (Kind::Error(error), _) => write!(f, "(Error{error:?})"),
        _ if source.is_empty() => write!(f, "\u{2205}{}", node.kind.name()),
        _ => f.write_str(source),
    }
}

/// The flags of a node as a suffix of its name: `-i` infix, `-pre`, `-post`, `-p`
/// parentheses, `-,` trailing comma, `-mut`, `-bare`, `-=` short form, `-s` triple-quoted,
/// `-r` raw, `-:` colon quote, `-N` dimension.
fn suffix(node: &SyntaxNode) -> String {
    let mut s = String::new();
    if node.kind == Kind::ErrorNode && node.has_flag(flags::TRIVIA) {
        s.push_str("-t");
    }
    if node.is_infix() {
        s.push_str("-i");
    }
    if node.is_prefix() {
        s.push_str("-pre");
    }
    if node.is_postfix() {
        s.push_str("-post");
    }
    if node.has_flag(flags::PARENS) && node.kind != Kind::Parens {
        s.push_str("-p");
    }
    if node.has_flag(flags::TRAILING_COMMA) {
        s.push_str("-,");
    }
    if node.has_flag(flags::MUTABLE) {
        s.push_str(match node.kind {
            Kind::Toplevel => "-;",
            Kind::Struct => "-mut",
            Kind::Module => "-bare",
            Kind::Function => "-=",
            Kind::Quote => "-:",
            _ => "-x",
        });
    }
    if node.has_flag(flags::TRIPLE_STRING) {
        s.push_str("-s");
    }
    if node.has_flag(flags::RAW_STRING) {
        s.push_str("-r");
    }
    if matches!(node.kind, Kind::Ncat | Kind::Nrow | Kind::TypedNcat) {
        s.push_str(&format!("-{}", node.dim()));
    }
    s
}
