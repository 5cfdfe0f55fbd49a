//! Docstrings: the string written just above a definition (`"""..."""` or `"..."`, also
//! `@doc "..." def` and `@doc raw"""...""" def`), with the name it documents: a function, a
//! struct or abstract type, a binding or a module, at the top level or inside a module, or a
//! struct's field. Read from the syntax tree, apart from the conversion to the AST: only the
//! editor shows them.

use crate::ast::{ExprKind, TextRange};
use crate::cx::Cx;
use crate::items::{defined_name_node, head};
use crate::kind::Kind;
use crate::tree::SyntaxNode;

/// A docstring and the name it documents.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Docstring {
    /// The documented name as written at its definition (`f` of `f(x) = ...`, `N` of
    /// `const N = 3`, `Base.show` of `Base.show(io, x) = ...`, a field's name).
    pub name: TextRange,
    /// For a field's docstring, the name of its struct.
    pub field_of: Option<String>,
    /// The string's value as Julia reads it: escapes resolved, the indentation common to a
    /// triple-quoted string's lines removed; an interpolation is kept as written (`$x`).
    pub text: String,
}

/// The docstrings of a file, in source order (none if the parser runs out of its time
/// budget).
pub fn docstrings(text: &str) -> Vec<Docstring> {
    let parse = crate::tree::parse(text, crate::ParseBudget::DEFAULT.deadline(text.len()));
    let mut out = Vec::new();
    if !parse.gave_up {
        statements(
            &mut Cx::new(text, &crate::names::AS_WRITTEN, &bumpalo::Bump::new()),
            &parse.root,
            &mut out,
        );
    }
    out
}

/// The docstrings of the statements of a file, a `module` or `a; b` line.
fn statements(cx: &mut Cx, parent: &SyntaxNode, out: &mut Vec<Docstring>) {
    for node in parent.args() {
        statement(cx, node, out);
    }
}

fn statement(cx: &mut Cx, node: &SyntaxNode, out: &mut Vec<Docstring>) {
    if node.leaf {
        return;
    }
    match (node.kind, node.children.as_slice()) {
        (Kind::Toplevel, _) => statements(cx, node, out),
        (Kind::Doc, [doc, documented]) => {
            record(cx, doc, documented, None, out);
            statement(cx, documented, out);
        }
        (Kind::MacroCall, [name, doc, documented]) if cx.text(name) == "@doc" => {
            record(cx, doc, documented, None, out);
            statement(cx, documented, out);
        }
        // `@kwdef struct ... end`, `@inline f(x) = ...`.
        (Kind::MacroCall, [_, .., def]) => statement(cx, def, out),
        (Kind::Module, [_, body]) => statements(cx, body, out),
        (Kind::Struct, [sig, body]) => {
            let owner = cx.text(head(sig)).to_string();
            for field in body.args() {
                if let (Kind::Doc, [doc, documented]) = (field.kind, field.children.as_slice()) {
                    if is_field(documented) {
                        record(cx, doc, documented, Some(owner.as_str()), out);
                    }
                }
            }
        }
        _ => {}
    }
}

/// A field in a struct's body: `x`, `x::T`, or `x::T = default` under `@kwdef`.
fn is_field(node: &SyntaxNode) -> bool {
    let name = match (node.leaf, node.kind, node.children.as_slice()) {
        (false, Kind::Assign, [lhs, _]) => lhs,
        _ => node,
    };
    (name.leaf && name.kind == Kind::Identifier) || (!name.leaf && name.kind == Kind::Decl)
}

/// Records `doc` as the docstring of `documented`, if that names something and `doc` is a
/// string.
fn record(
    cx: &mut Cx,
    doc: &SyntaxNode,
    documented: &SyntaxNode,
    field_of: Option<&str>,
    out: &mut Vec<Docstring>,
) {
    let name = match (
        documented.leaf,
        documented.kind,
        documented.children.as_slice(),
    ) {
        (false, Kind::Module, [name, _]) => Some(name),
        // A field, or a function documented without a definition (`"doc" f`, `"doc" f(x::T)`).
        (true, Kind::Identifier, _) | (false, Kind::Decl | Kind::Call | Kind::Where, _) => {
            Some(head(documented))
        }
        _ => defined_name_node(documented),
    };
    if let (Some(name), Some(text)) = (name, string_value(cx, doc)) {
        out.push(Docstring {
            name: name.range,
            field_of: field_of.map(str::to_string),
            text,
        });
    }
}

/// The value of a string literal or `raw"..."` string.
fn string_value(cx: &mut Cx, node: &SyntaxNode) -> Option<String> {
    let string = match (node.kind, node.children.as_slice()) {
        (Kind::StringLit, _) => node,
        (Kind::MacroCall, [name, s]) if cx.text(name) == "raw" && s.kind == Kind::StringLit => s,
        _ => return None,
    };
    let value = crate::literals::string(cx, string);
    match value.kind {
        ExprKind::Str(s) => Some(s),
        ExprKind::Call { args, .. } => Some(
            args.iter()
                .map(|part| match &part.kind {
                    ExprKind::Str(s) => s.clone(),
                    _ => interpolated(cx.slice(part.range)),
                })
                .collect(),
        ),
        _ => None,
    }
}

/// An interpolation as written: `$x`, `$(f(x))`.
fn interpolated(source: &str) -> String {
    if source.starts_with('(') || source.chars().all(|c| c.is_alphanumeric() || c == '_') {
        format!("${source}")
    } else {
        format!("$({source})")
    }
}

#[cfg(test)]
mod tests {
    use super::docstrings;

    /// Each docstring as `name [field of S]: text`.
    fn shown(text: &str) -> Vec<String> {
        docstrings(text)
            .into_iter()
            .map(|d| {
                let name = &text[d.name.start as usize..d.name.end as usize];
                match d.field_of {
                    Some(s) => format!("{name} [field of {s}]: {}", d.text),
                    None => format!("{name}: {}", d.text),
                }
            })
            .collect()
    }

    #[test]
    fn docstrings_name_what_they_document() {
        let text = r#"
"""
    f(x)

Squares `x`.
"""
f(x) = x^2

"Two methods." f(x::Int, y) = x

"A constant." const N = 3

"The name." name = "a\tb"

"Documents a module."
module M
"Inside." g(x) = x
end

"A point."
struct Point{T} <: AbstractPoint
    "The abscissa."
    x::T
    y::T
    "Not a field's."
    Point(x) = new{typeof(x)}(x, x)
end

@doc raw"""
Raw: \alpha.
""" h(x) = x

@doc "Macro form." k(x) = x

"Not a docstring: a blank line follows."

u(x) = x
"""
Interpolated $N and $(N + 1).
"""
v(x) = x
"#;
        assert_eq!(
            shown(text),
            [
                "f:     f(x)\n\nSquares `x`.\n",
                "f: Two methods.",
                "N: A constant.",
                "name: The name.",
                "M: Documents a module.",
                "g: Inside.",
                "Point: A point.",
                "x [field of Point]: The abscissa.",
                "h: Raw: \\alpha.\n",
                "k: Macro form.",
                "v: Interpolated $N and $(N + 1).\n",
            ]
        );
    }
}
