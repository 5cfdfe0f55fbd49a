//! The path an `include` names, as scripts and packages write it: a string literal, or one
//! built at parse time from literals and the file's own place (`joinpath(@__DIR__, "lib",
//! "a.jl")`, `"$(@__DIR__)/a.jl"`, `@__DIR__() * "/a.jl"`, `joinpath(dirname(@__FILE__),
//! "a.jl")`, `normpath(...)`, a top-level `const` holding such a path, `joinpath(SRC,
//! "a.jl")`), and the `include`s a top-level `@testset` runs.

use std::path::{Component, Path, PathBuf};

use crate::ast::{BinOp, Expr, ExprKind, INTERPOLATION};
use crate::cx::Cx;
use crate::kind::Kind;
use crate::tree::SyntaxNode;

/// The path `e` names, if it is built from string literals alone (`@__DIR__` and
/// `@__FILE__` are literals by now), relative to the including file's directory where it
/// starts there: Julia's `include` of `joinpath(@__DIR__, p)` reads what `include(p)` reads.
pub(crate) fn static_path(cx: &Cx, e: &Expr) -> Option<String> {
    let path = fold(cx, e)?;
    let dir = cx.source_path.and_then(|f| Path::new(f).parent());
    match dir.and_then(|d| Path::new(&path).strip_prefix(d).ok()) {
        Some(rest) if rest.as_os_str().is_empty() => Some(".".to_string()),
        Some(rest) => Some(rest.to_str()?.to_string()),
        None => Some(path),
    }
}

/// Of a top-level `const name = value`: records `value`'s string where it is known without
/// running anything, so that a later `include(joinpath(name, "a.jl"))` names its path.
pub(crate) fn record_const(cx: &mut Cx, name: &str, value: &Expr) {
    if let Some(path) = fold(cx, value) {
        cx.path_consts.insert(name.to_string(), path);
    }
}

/// Of a top-level binding `name = value`: records `value`'s strings where it is a literal
/// vector or tuple of them (`tests = ["a", "b"]`), so that a later `for t in name` loop
/// names the files it includes; forgets them where `name` is bound to anything else.
pub(crate) fn record_strings(cx: &mut Cx, name: &str, value: &Expr) {
    match strings(value) {
        Some(strings) => cx.string_lists.insert(name.to_string(), strings),
        None => cx.string_lists.remove(name),
    };
}

/// The strings of a literal vector or tuple of them.
fn strings(e: &Expr) -> Option<Vec<String>> {
    match &e.kind {
        ExprKind::Vect(items) | ExprKind::Tuple(items) => items
            .iter()
            .map(|e| match &e.kind {
                ExprKind::Str(s) => Some(s.clone()),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// Of a top-level `for t in collection ... end` whose body includes files (directly, in
/// `begin` blocks and `@testset`s): the loop's name, the strings it takes (Julia runs each
/// `include` at top level once per string), and the `include` calls. `Err` with the
/// collection where it is not a literal vector or tuple of strings, nor a top-level binding
/// to one.
pub(crate) fn loop_includes<'n>(
    cx: &mut Cx,
    node: &'n SyntaxNode,
) -> Option<Result<(String, Vec<String>, Vec<&'n SyntaxNode>), &'n SyntaxNode>> {
    let (Kind::For, [iteration, body]) = (node.kind, node.children.as_slice()) else {
        return None;
    };
    let mut calls = Vec::new();
    testset_includes(cx, body, &mut calls);
    if calls.is_empty() || node.leaf {
        return None;
    }
    let [spec] = iteration.children.as_slice() else {
        return Some(Err(iteration));
    };
    let (Kind::In, [var, collection]) = (spec.kind, spec.children.as_slice()) else {
        return Some(Err(spec));
    };
    if !(var.leaf && var.kind == Kind::Identifier) {
        return Some(Err(var));
    }
    let taken = match crate::expr::expr(cx, collection) {
        Expr {
            kind: ExprKind::Ident(name),
            ..
        } => cx.string_lists.get(&name).cloned(),
        literal => strings(&literal),
    };
    match taken {
        Some(strings) => Some(Ok((cx.text(var).to_string(), strings, calls))),
        None => Some(Err(collection)),
    }
}

/// The string `e` evaluates to, where that is known without running anything.
fn fold(cx: &Cx, e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Str(s) => Some(s.clone()),
        ExprKind::Ident(name) => cx.path_consts.get(name).cloned(),
        ExprKind::Binary {
            op: BinOp::Mul,
            dotted: false,
            lhs,
            rhs,
        } => Some(fold(cx, lhs)? + &fold(cx, rhs)?),
        ExprKind::Call { callee, args } => {
            let ExprKind::Ident(f) = &callee.kind else {
                return None;
            };
            let parts = args
                .iter()
                .map(|a| fold(cx, a))
                .collect::<Option<Vec<_>>>()?;
            match (f.as_str(), parts.as_slice()) {
                (INTERPOLATION | "string", _) => Some(parts.concat()),
                ("joinpath", [_, ..]) => {
                    // A later absolute part starts the path again, as Julia's `joinpath`.
                    let mut path = PathBuf::new();
                    parts.iter().for_each(|p| path.push(p));
                    Some(path.to_str()?.to_string())
                }
                ("dirname", [p]) => Some(
                    Path::new(p)
                        .parent()
                        .map_or(String::new(), |d| d.display().to_string()),
                ),
                ("normpath", [p]) => Some(normpath(p)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Julia's `normpath`: `.` parts dropped and `dir/..` pairs cancelled.
fn normpath(p: &str) -> String {
    let mut out = PathBuf::new();
    for c in Path::new(p).components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out.display().to_string()
}

/// The `include(...)` calls a top-level `@testset ... begin ... end` makes among its
/// statements (in nested testsets and `begin` blocks too): Julia runs each file at top level
/// when the testset reaches it, so its definitions are the program's.
pub(crate) fn testset_includes<'n>(cx: &Cx, node: &'n SyntaxNode, out: &mut Vec<&'n SyntaxNode>) {
    if node.leaf {
        return;
    }
    match node.kind {
        Kind::MacroCall
            if node
                .children
                .first()
                .is_some_and(|m| matches!(cx.text(m), "@testset" | "Test.@testset")) =>
        {
            if let Some(body) = node.children.last() {
                testset_includes(cx, body, out);
            }
        }
        Kind::Block => {
            for statement in &node.children {
                if statement.kind == Kind::Call && crate::items::is_include(cx, statement) {
                    out.push(statement);
                } else {
                    testset_includes(cx, statement, out);
                }
            }
        }
        _ => {}
    }
}
