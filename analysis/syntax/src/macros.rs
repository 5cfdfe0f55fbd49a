//! User-defined macros: `macro name(params...) ... end`, and their calls expanded where they
//! are converted, as Julia expands a macro before lowering the code around it. The body runs
//! at expansion ([`crate::macro_eval`]) on the call's syntax trees; its result, a tree of the
//! macro's template nodes and the call's argument nodes, is converted in place of the call
//! with Julia's hygiene: the names that the macro's own code assigns are renamed (`##s#1`)
//! unless `esc`aped, and the other names it uses are read where the macro is defined (the
//! call's module: a macro is visible in the module defining it). Every range of the converted
//! code that is not inside the call's arguments becomes the call's, so that errors, hover and
//! the IR point at the call.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use crate::ast::{Expr, ExprKind, Item, TextRange};
use crate::cx::Cx;
use crate::kind::Kind;
use crate::macro_eval::{inside, leaves, Expander, Value};
use crate::tree::SyntaxNode;

/// The first of the ranges given to the nodes a macro builds: above every offset of a text
/// zy reads, so that their texts are told apart from the source's.
pub(crate) const BUILT_RANGES: u32 = 0xF000_0000;

/// The deepest nesting of expansions (a macro whose expansion calls it again, endlessly).
const MAX_EXPANSION_DEPTH: u32 = 100;

/// A `macro name(params...) ... end` of the program.
pub(crate) struct MacroDef {
    name: String,
    params: Vec<String>,
    /// The name of a last `args...` parameter.
    rest: Option<String>,
    body: SyntaxNode,
    range: TextRange,
}

/// An expansion: its tree, and the hygienic names its leaves read, by range.
pub(crate) struct Expansion<'a> {
    pub tree: SyntaxNode,
    pub renames: BTreeMap<(u32, u32), &'a str>,
}

/// The macros defined among the statements of `toplevel` (a file's or a module's body, `a; b`
/// lines too), in order; a definition zy cannot take is reported there.
pub(crate) fn collect(cx: &mut Cx, toplevel: &SyntaxNode) -> Vec<Rc<MacroDef>> {
    let mut out = Vec::new();
    for node in toplevel.children.iter().filter(|n| !n.leaf) {
        let node = match (node.kind, node.children.as_slice()) {
            (Kind::Doc, [_, documented]) => documented,
            _ => node,
        };
        match node.kind {
            Kind::Toplevel if !node.leaf => out.extend(collect(cx, node)),
            Kind::Macro if !node.leaf => out.extend(definition(cx, node).map(Rc::new)),
            _ => {}
        }
    }
    out
}

/// `macro name(x, y, rest...) body end`.
fn definition(cx: &mut Cx, node: &SyntaxNode) -> Option<MacroDef> {
    let [signature, body] = node.children.as_slice() else {
        return None;
    };
    let (Kind::Call, [name, params @ ..]) = (signature.kind, signature.children.as_slice()) else {
        cx.unsupported(
            signature,
            "this form of macro signature; write `macro name(x, y...)`",
        );
        return None;
    };
    if !(name.leaf && name.kind == Kind::Identifier) {
        cx.unsupported(name, "macro name that is not a plain name");
        return None;
    }
    let mut def = MacroDef {
        name: cx.text(name).to_string(),
        params: Vec::new(),
        rest: None,
        body: body.clone(),
        range: node.range,
    };
    for (i, param) in params.iter().enumerate() {
        let splat = match (param.kind, param.children.as_slice()) {
            (Kind::Splat, [inner]) if !param.leaf && i + 1 == params.len() => Some(inner),
            _ => None,
        };
        match splat.unwrap_or(param) {
            p if p.leaf && p.kind == Kind::Identifier => {
                let name = cx.text(p).to_string();
                match splat {
                    Some(_) => def.rest = Some(name),
                    None => def.params.push(name),
                }
            }
            p => {
                cx.unsupported(
                    p,
                    "macro parameter other than a name or a last `xs...` (a type, a default)",
                );
                return None;
            }
        }
    }
    Some(def)
}

/// The expansion of `node` if it calls a macro of the program (`None` otherwise): `Some(None)`
/// if it was refused (and reported).
pub(crate) fn expand<'a>(cx: &mut Cx<'a>, node: &SyntaxNode) -> Option<Option<Expansion<'a>>> {
    let (name, args) = node.children.split_first()?;
    let text = cx.text(name);
    let bare = text.strip_prefix('@')?;
    if !cx.macros.iter().any(|m| m.name == bare) {
        return None;
    }
    // A call in a macro's template expands where that macro's call is, after the definitions.
    let in_template = cx.macros.iter().any(|m| inside(node.range, m.range));
    let Some(def) = cx
        .macros
        .iter()
        .rev()
        .find(|m| m.name == bare && (in_template || m.range.end <= node.range.start))
        .cloned()
    else {
        let message = format!(
            "macro {text} used before its definition (Julia expands a call where it reads it)"
        );
        cx.push(
            name.range,
            "syntax-error",
            format!("syntax error: {message}"),
        );
        return Some(None);
    };
    if cx.expansion_depth >= MAX_EXPANSION_DEPTH {
        let message = format!(
            "macro {text} expanded more than {MAX_EXPANSION_DEPTH} levels deep (its expansion calls it again)"
        );
        cx.unsupported(node, &message);
        return Some(None);
    }
    if let Some(p) = args.iter().find(|a| a.kind == Kind::Parameters) {
        cx.unsupported(p, &format!("arguments after `;` in a call of macro {text}"));
        return Some(None);
    }
    let n = def.params.len();
    if args.len() < n || (def.rest.is_none() && args.len() > n) {
        let message = format!(
            "syntax error: macro {text} takes {n}{} argument{}, given {} (Julia's MethodError when it expands)",
            if def.rest.is_some() { " or more" } else { "" },
            if n == 1 { "" } else { "s" },
            args.len()
        );
        cx.push(node.range, "syntax-error", message);
        return Some(None);
    }
    let argument = |a: &SyntaxNode| Value::Code {
        node: a.clone(),
        escaped: false,
        argument: true,
    };
    let mut env: BTreeMap<String, Value> = def
        .params
        .iter()
        .cloned()
        .zip(args.iter().map(argument))
        .collect();
    if let Some(rest) = &def.rest {
        env.insert(
            rest.clone(),
            Value::List(args[n..].iter().map(argument).collect()),
        );
    }
    let mut expander = Expander::new(cx, text, node.range, env);
    let Ok(value) = expander.run(&def.body.children) else {
        return Some(None);
    };
    let escaped = matches!(
        value,
        Value::Code { escaped: true, .. } | Value::Int(_) | Value::Str(_)
    );
    let Ok(mut trees) = expander.nodes(node, value, false) else {
        return Some(None);
    };
    if expander.check_escaped().is_err() {
        return Some(None);
    }
    let escaped_template = std::mem::take(&mut expander.escaped_template);
    let tree = trees.pop()?;
    let renames = match escaped {
        true => BTreeMap::new(),
        false => hygiene(cx, &tree, node.range, &escaped_template),
    };
    Some(Some(Expansion { tree, renames }))
}

/// The new names of the macro's own locals in `tree`: the names its code (not inside the
/// call's range, not escaped) assigns, binds in a loop or declares `local`.
fn hygiene<'a>(
    cx: &mut Cx<'a>,
    tree: &SyntaxNode,
    call: TextRange,
    escaped: &BTreeSet<(u32, u32)>,
) -> BTreeMap<(u32, u32), &'a str> {
    let own = |leaf: &SyntaxNode| {
        leaf.leaf
            && leaf.kind == Kind::Identifier
            && !inside(leaf.range, call)
            && !escaped.contains(&(leaf.range.start, leaf.range.end))
    };
    let mut locals = BTreeSet::new();
    assigned(cx, tree, &own, &mut locals);
    let mut names = Vec::new();
    leaves(tree, &mut |leaf| {
        if own(leaf) {
            names.push(leaf.range);
        }
    });
    let mut fresh: BTreeMap<&str, &'a str> = BTreeMap::new();
    let mut renames = BTreeMap::new();
    for range in names {
        let name = cx.slice(range);
        if !locals.contains(name) {
            continue;
        }
        let new = match fresh.get(name) {
            Some(new) => *new,
            None => {
                cx.gensyms += 1;
                let new: &'a str = cx.arena.alloc_str(&format!("##{name}#{}", cx.gensyms));
                fresh.insert(name, new);
                new
            }
        };
        renames.insert((range.start, range.end), new);
    }
    renames
}

/// The names that `node`'s own code assigns (`own` tells its leaves from the caller's).
fn assigned(
    cx: &Cx,
    node: &SyntaxNode,
    own: &dyn Fn(&SyntaxNode) -> bool,
    out: &mut BTreeSet<String>,
) {
    if node.leaf {
        return;
    }
    match (node.kind, node.children.as_slice()) {
        (Kind::Assign | Kind::OpAssign, [lhs, ..]) => targets(cx, lhs, own, out),
        (Kind::In, [var, _]) => targets(cx, var, own, out),
        (Kind::Local, names) => names
            .iter()
            .for_each(|n| match (n.kind, n.children.first()) {
                (Kind::Assign, Some(lhs)) if !n.leaf => targets(cx, lhs, own, out),
                _ => targets(cx, n, own, out),
            }),
        _ => {}
    }
    // A call's `name = value` arguments are keywords, not assignments.
    let keywords = matches!(
        node.kind,
        Kind::Call | Kind::DotCall | Kind::MacroCall | Kind::Parameters | Kind::Tuple | Kind::Curly
    );
    for child in &node.children {
        match (keywords, child.kind, child.children.as_slice()) {
            (true, Kind::Assign, [_, value]) if !child.leaf => assigned(cx, value, own, out),
            _ => assigned(cx, child, own, out),
        }
    }
}

/// The names an assignment's left side binds: `x`, `x::T`, `(a, b)`.
fn targets(
    cx: &Cx,
    lhs: &SyntaxNode,
    own: &dyn Fn(&SyntaxNode) -> bool,
    out: &mut BTreeSet<String>,
) {
    if lhs.leaf {
        if own(lhs) {
            out.insert(cx.text(lhs).to_string());
        }
        return;
    }
    match (lhs.kind, lhs.children.as_slice()) {
        (Kind::Tuple | Kind::Parens, items) => items.iter().for_each(|i| targets(cx, i, own, out)),
        (Kind::Decl, [name, _]) => targets(cx, name, own, out),
        _ => {}
    }
}

/// The expression a call of a program's macro stands for, if `node` is one (an error
/// expression where the expansion was refused).
pub(crate) fn expand_expr(cx: &mut Cx, node: &SyntaxNode) -> Option<Expr> {
    let Some(expansion) = expand(cx, node)? else {
        return Some(Expr::new(ExprKind::Error, node.range));
    };
    let tree = &expansion.tree;
    let mut e = converted(cx, node.range, expansion.renames, |cx| {
        crate::expr::expr(cx, tree)
    });
    relocate(&mut e, node.range);
    Some(e)
}

/// Runs `convert` on an expansion of the call at `call` whose leaves read `renames`; the
/// errors and notes it reports outside the call's arguments are placed at the call.
pub(crate) fn converted<'a, T>(
    cx: &mut Cx<'a>,
    call: TextRange,
    renames: BTreeMap<(u32, u32), &'a str>,
    convert: impl FnOnce(&mut Cx<'a>) -> T,
) -> T {
    let outer = cx.expansion_text.clone();
    cx.expansion_text.extend(renames);
    let (errors, notes) = (cx.errors.len(), cx.notes.len());
    cx.expansion_depth += 1;
    let out = convert(cx);
    cx.expansion_depth -= 1;
    // Keep the texts of built nodes (their ranges are never reused), drop the renames.
    let built = std::mem::take(&mut cx.expansion_text)
        .into_iter()
        .filter(|((start, _), _)| *start >= BUILT_RANGES);
    cx.expansion_text = outer;
    cx.expansion_text.extend(built);
    for error in cx.errors.iter_mut().skip(errors) {
        error.range = at_call(error.range, call);
    }
    for note in cx.notes.iter_mut().skip(notes) {
        note.range = at_call(note.range, call);
    }
    out
}

/// `range` if it is inside the call's arguments, else the call's.
fn at_call(range: TextRange, call: TextRange) -> TextRange {
    if inside(range, call) {
        range
    } else {
        call
    }
}

/// Places a top-level statement or binding that a call expanded to at the call (a method or
/// struct keeps the template's ranges).
pub(crate) fn relocate_item(item: &mut Item, call: TextRange) {
    match item {
        Item::Script(script) => script.range = at_call(script.range, call),
        Item::Global(global) => {
            global.range = at_call(global.range, call);
            global.name_range = at_call(global.name_range, call);
            relocate(&mut global.value, call);
        }
        _ => {}
    }
}

/// Places every range of `e` that is not the call's own code at the call (a method defined in
/// the expansion keeps its own ranges).
fn relocate(e: &mut Expr, call: TextRange) {
    if matches!(e.kind, ExprKind::Function(_)) {
        return;
    }
    e.range = at_call(e.range, call);
    for child in e.children_mut() {
        relocate(child, call);
    }
}
