//! The conversion context: the source text, the errors found so far, the nesting guard, and
//! small helpers over syntax tree nodes.

use std::collections::{BTreeMap, BTreeSet};

use crate::ast::{Expr, ExprKind, SyntaxError, SyntaxNote, TextRange};
use crate::names::Names;
use crate::parser::TOO_DEEP;
use crate::tree::SyntaxNode;

/// Deepest expression nesting converted; deeper input is reported as nested too deeply (the
/// lowering and everything after it recurse over the AST, on the analysis threads' stacks).
pub(crate) const MAX_DEPTH: u32 = crate::MAX_NESTING;

/// State shared by the whole conversion of one text.
pub(crate) struct Cx<'a> {
    /// The text being converted (all ranges index into it).
    pub src: &'a str,
    /// The names of `src` that Julia reads in another form than written.
    names: &'a Names,
    /// Errors found while converting (the parser reports the syntax errors).
    pub errors: Vec<SyntaxError>,
    /// Start bytes of the `# zy:` comment lines attached to a definition.
    pub used_annotations: BTreeSet<u32>,
    /// Start byte of each top-level definition that has a docstring -> start of the docstring.
    pub docstrings: BTreeMap<u32, u32>,
    /// Notes on output skipped inside functions.
    pub notes: Vec<SyntaxNote>,
    /// How many indexing brackets enclose the expression being converted (`end` is a name
    /// there).
    pub in_index: u32,
    /// Destructuring parameters `f((a, b))` converted but not yet bound: the tuple each
    /// stands for, by the start of the parameter (`items::destructure` binds them).
    pub destructured: BTreeMap<u32, Expr>,
    /// Inside an inner constructor: the struct that `new(...)` builds, and the names of its
    /// type parameters (`new{T}(...)` gives them; a bare `new(...)` means `new{T}(...)`).
    pub new_of: Option<(String, Vec<String>)>,
    /// Inner constructors converted with their struct, not yet emitted as items.
    pub constructors: Vec<crate::ast::FunctionDef>,
    /// Inside a `showerror(io::IO, e)` method: the name of its `io`, whose writes build the
    /// text the method returns (`output::io_write`).
    pub io: Option<String>,
    /// The last top-level `Random.seed!(k)` (`k`, and whether it was written qualified), and
    /// the binding defined after it most recently: the top-level bindings after a seed draw
    /// from it in file order (`items::seeded`).
    pub seed: Option<(i64, bool, Option<String>)>,
    /// The `where` variables of the methods enclosing the expression being converted (`T` in
    /// `T[a b]` names a type there).
    pub type_vars: Vec<String>,
    /// The absolute path of the file being converted, if known: `@__FILE__` is it.
    pub source_path: Option<&'a str>,
    /// The top-level `const`s bound to a path known without running anything (`const SRC =
    /// joinpath(@__DIR__, "..", "src")`), by name, in file order: `include` paths built on them.
    pub path_consts: BTreeMap<String, String>,
    /// The top-level bindings to a literal vector or tuple of strings (`tests = ["a", "b"]`),
    /// by name, as bound last in file order: `for t in tests; include("$t.jl"); end`.
    pub string_lists: BTreeMap<String, Vec<String>>,
    /// How many `@sync` blocks enclose the expression being converted (a task spawned there
    /// joins the innermost one's group, `tasks::spawn`).
    pub in_sync: u32,
    /// Inside the body of a `@spawn` or `@async`: the values its `$x` interpolations take
    /// when the task is made, by the hidden names the body reads them under.
    pub spawn_values: Option<Vec<(String, Expr)>>,
    /// The types the statements converted so far define (structs, abstract types, aliases),
    /// by name: `const P = Point` after them is an alias of one (`aliases::is_alias`).
    pub type_names: BTreeSet<String>,
    /// The macros of the program visible here (the file's top level or the module being
    /// converted), in definition order.
    pub macros: Vec<std::rc::Rc<crate::macros::MacroDef>>,
    /// While a macro's expansion is converted: the names its nodes read in place of their
    /// text (hygienic renames of the macro's own locals, and the names and literals the macro
    /// built), by range.
    pub expansion_text: BTreeMap<(u32, u32), &'a str>,
    /// Where the texts of `expansion_text` live.
    pub arena: &'a bumpalo::Bump,
    /// The next range handed to a node that a macro built (above any offset of a text).
    pub next_built: u32,
    /// How many hygienic names the expansions so far have made.
    pub gensyms: u32,
    /// How many macro expansions enclose the code being converted.
    pub expansion_depth: u32,
    depth: u32,
    too_deep_reported: bool,
}

impl<'a> Cx<'a> {
    /// A fresh context over `src`, whose names not in normal form are `names`; the texts
    /// that macro expansions make live in `arena`.
    pub fn new(src: &'a str, names: &'a Names, arena: &'a bumpalo::Bump) -> Cx<'a> {
        Cx {
            src,
            names,
            errors: Vec::new(),
            used_annotations: BTreeSet::new(),
            docstrings: BTreeMap::new(),
            notes: Vec::new(),
            in_index: 0,
            destructured: BTreeMap::new(),
            new_of: None,
            constructors: Vec::new(),
            io: None,
            seed: None,
            type_vars: Vec::new(),
            source_path: None,
            path_consts: BTreeMap::new(),
            string_lists: BTreeMap::new(),
            in_sync: 0,
            spawn_values: None,
            type_names: BTreeSet::new(),
            macros: Vec::new(),
            expansion_text: BTreeMap::new(),
            arena,
            next_built: crate::macros::BUILT_RANGES,
            gensyms: 0,
            expansion_depth: 0,
            depth: 0,
            too_deep_reported: false,
        }
    }

    /// Records a note at `range`.
    pub fn note(&mut self, range: TextRange, message: String) {
        self.notes.push(SyntaxNote { range, message });
    }

    /// The source text of `node`.
    pub fn text(&self, node: &SyntaxNode) -> &'a str {
        self.slice(node.range)
    }

    /// The source text of `range` (a name's as Julia reads it).
    pub fn slice(&self, range: TextRange) -> &'a str {
        if let Some(text) = self.expansion_text.get(&(range.start, range.end)) {
            return text;
        }
        if let Some(name) = self.names.get(range) {
            return name;
        }
        self.src
            .get(range.start as usize..range.end as usize)
            .unwrap_or("")
    }

    /// Enters `levels` levels of nesting at once (a chain converted in one step), or none and
    /// false (after reporting once) if that is too deep.
    pub fn enter_many(&mut self, node: &SyntaxNode, levels: usize) -> bool {
        if self.depth as usize + levels > MAX_DEPTH as usize {
            self.too_deep(node);
            return false;
        }
        self.depth += levels as u32;
        true
    }

    /// Enters one level of nesting.
    pub fn enter(&mut self, node: &SyntaxNode) -> bool {
        self.enter_many(node, 1)
    }

    /// Leaves the levels entered with [`Cx::enter_many`].
    pub fn leave_many(&mut self, levels: usize) {
        self.depth = self.depth.saturating_sub(levels as u32);
    }

    pub fn leave(&mut self) {
        self.leave_many(1);
    }

    /// Reports "nested too deeply" at `node` (once per text).
    fn too_deep(&mut self, node: &SyntaxNode) {
        if !self.too_deep_reported {
            self.too_deep_reported = true;
            self.push(
                node.range,
                "syntax-error",
                format!("syntax error: {TOO_DEEP}"),
            );
        }
    }

    /// Records an error.
    pub fn push(&mut self, range: TextRange, code: &'static str, message: String) {
        self.errors.push(SyntaxError {
            range,
            code,
            message,
        });
    }

    /// Reports `unsupported: {what}` at `range` and returns an error expression there.
    pub fn unsupported_at(&mut self, range: TextRange, what: &str) -> Expr {
        self.push(range, "unsupported", format!("unsupported: {what}"));
        Expr::new(ExprKind::Error, range)
    }

    /// Reports `unsupported: {what}` at `node` and returns an error expression there.
    pub fn unsupported(&mut self, node: &SyntaxNode, what: &str) -> Expr {
        self.unsupported_at(node.range, what)
    }

    /// Reports a syntax error at `node` and returns an error expression there.
    pub fn syntax(&mut self, node: &SyntaxNode, message: &str) -> Expr {
        self.push(node.range, "syntax-error", message.to_string());
        error_expr(node)
    }
}

/// The range from the start of `a` to the end of `b`.
pub(crate) fn span(a: TextRange, b: TextRange) -> TextRange {
    TextRange::new(a.start.min(b.start), a.end.max(b.end))
}

/// An [`ExprKind::Error`] over `node` (its error has been reported elsewhere).
pub(crate) fn error_expr(node: &SyntaxNode) -> Expr {
    Expr::new(ExprKind::Error, node.range)
}
