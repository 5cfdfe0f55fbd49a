//! Top-level bindings that a statement holding tests makes as it runs: `global r = Robot()`
//! inside a `@testset` binds `r` at top level when Julia runs it, and the later code of the
//! statement (other testsets too) reads it there. A test's text runs its statement's code as
//! `let` blocks ([`super::julia_tests`]), so such a binding, one the program does not define,
//! is a local of the whole text instead: declared at its start, assigned where the `global`
//! was written.

use zy_syntax::ast::TextRange;
use zy_syntax::kind::Kind;
use zy_syntax::tree::SyntaxNode;

/// The bindings a top-level statement makes with `global x = v`.
pub(super) struct Declared {
    /// The statement.
    pub(super) stmt: TextRange,
    /// The names, each once, in the order first written.
    pub(super) names: Vec<String>,
    /// The `global` keywords of those assignments (the text drops them).
    pub(super) keywords: Vec<TextRange>,
}

/// The bindings each top-level statement of the file with `text` makes with `global x = v`
/// (outside the functions it defines), of names that `defined` says the program does not
/// define.
pub(super) fn declared(text: &str, defined: &dyn Fn(&str) -> bool) -> Vec<Declared> {
    let parse = zy_syntax::tree::parse(text, None);
    let mut out = Vec::new();
    for stmt in &parse.root.children {
        let mut d = Declared {
            stmt: stmt.range,
            names: Vec::new(),
            keywords: Vec::new(),
        };
        walk(text, stmt, defined, &mut d);
        if !d.names.is_empty() {
            out.push(d);
        }
    }
    out
}

fn walk(text: &str, node: &SyntaxNode, defined: &dyn Fn(&str) -> bool, d: &mut Declared) {
    if node.leaf || matches!(node.kind, Kind::Function | Kind::Macro | Kind::Arrow) {
        return;
    }
    // `f(x) = ...`: a function's body.
    if let (Kind::Assign, Some(lhs)) = (node.kind, node.children.first()) {
        if matches!(lhs.kind, Kind::Call | Kind::Where) {
            return;
        }
    }
    if node.kind == Kind::Global {
        if let [assign] = node.children.as_slice() {
            if let Some(name) = assigned(text, assign).filter(|n| !defined(n)) {
                if !d.names.iter().any(|n| n == name) {
                    d.names.push(name.to_string());
                }
                d.keywords
                    .push(TextRange::new(node.range.start, assign.range.start));
                return walk(text, assign, defined, d);
            }
        }
    }
    for c in &node.children {
        walk(text, c, defined, d);
    }
}

/// The name `node` assigns, if it is `x = v`.
fn assigned<'t>(text: &'t str, node: &SyntaxNode) -> Option<&'t str> {
    match (node.leaf, node.kind, node.children.as_slice()) {
        (false, Kind::Assign, [lhs, _]) if lhs.leaf && lhs.kind == Kind::Identifier => {
            text.get(lhs.range.start as usize..lhs.range.end as usize)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_global_assigned_in_a_testset_is_declared_unless_the_program_defines_it() {
        let text = "n = 1\n@testset \"a\" begin\n    global r = 2\n    global n = 3\n    f() = (global q = 1)\nend\n";
        let found = declared(text, &|n| n == "n");
        let [d] = found.as_slice() else {
            panic!("one statement declares");
        };
        assert_eq!(d.names, ["r"]);
        let kept: Vec<&str> = d
            .keywords
            .iter()
            .map(|r| &text[r.start as usize..r.end as usize])
            .collect();
        assert_eq!(kept, ["global "]);
    }
}
