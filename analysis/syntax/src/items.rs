//! Definitions: top-level items, methods (long form, short form, callable structs, anonymous),
//! parameters, type expressions, structs and globals.

use crate::annotations;
use crate::ast::{
    ArgPlace, ExportDef, Expr, ExprKind, FieldDef, FunctionDef, FunctionName, GlobalDef, ImportDef,
    ImportPath, IncludeDef, Item, KeywordParam, ModuleDef, Param, RefusedDef, ScriptArg,
    ScriptCall, ScriptDef, StructDef, TextRange, TypeExpr, EMPTY_TUPLE, EMPTY_UNION, SUBTYPE_PARAM,
};
use crate::cx::{error_expr, Cx};
use crate::enums;
use crate::expr::{block_of, expr, is_operator_name};
use crate::include_paths;
use crate::kind::Kind;
use crate::kwdef;
use crate::literals;
use crate::operators;
use crate::parser::stream::flags;
use crate::tree::SyntaxNode;

/// The items of a file: the statements of its toplevel node (`a; b` lines are nested
/// toplevel nodes).
pub(crate) fn items(cx: &mut Cx, toplevel: &SyntaxNode, out: &mut Vec<Item>) {
    for node in &toplevel.children {
        if node.kind == Kind::Toplevel && !node.leaf {
            items(cx, node, out);
        } else {
            push_item(cx, node, out);
        }
    }
}

/// One top-level statement, which may define several items (`@kwdef struct` is a struct
/// and its keyword constructor).
fn push_item(cx: &mut Cx, node: &SyntaxNode, out: &mut Vec<Item>) {
    if node.kind == Kind::MacroCall && !node.leaf {
        if let Some(expansion) = crate::macros::expand(cx, node) {
            // A call of a macro of the program: the statements it expands to.
            if let Some(expansion) = expansion {
                let tree = &expansion.tree;
                let statements = match tree.kind {
                    Kind::Block if !tree.leaf => tree.children.iter().collect(),
                    _ => vec![tree],
                };
                let first = out.len();
                crate::macros::converted(cx, node.range, expansion.renames, |cx| {
                    statements.into_iter().for_each(|s| push_item(cx, s, out))
                });
                for item in out.iter_mut().skip(first) {
                    crate::macros::relocate_item(item, node.range);
                }
            }
            return;
        }
    }
    let (errors, items) = (cx.errors.len(), out.len());
    if let Some(enum_items) = enums::items(cx, node) {
        out.extend(enum_items);
        return;
    }
    if let Some(globals) = tuple_globals(cx, node) {
        out.extend(globals.into_iter().map(Item::Global));
    } else {
        match kwdef_struct(cx, node) {
            Some(def) => out.extend(kwdef::items(cx, def)),
            None => out.extend(item(cx, node)),
        }
    }
    if out.len() == items {
        out.extend(refused(cx, node, errors).map(Item::Refused));
    }
    for item in &out[items..] {
        if let Item::Struct(def) = item {
            cx.type_names.insert(def.name.clone());
        }
    }
    let mut included = Vec::new();
    include_paths::testset_includes(cx, node, &mut included);
    for call in included {
        out.extend(include(cx, call).map(Item::Include));
    }
    loop_includes(cx, node, out);
    // A struct's inner constructors follow it.
    out.extend(cx.constructors.drain(..).map(Item::Function));
}

/// A definition that was refused while converting it (an `unsupported` error reported since
/// the first `errors`): the name it defines, and the first refusal.
fn refused(cx: &Cx, node: &SyntaxNode, errors: usize) -> Option<RefusedDef> {
    let reason = cx
        .errors
        .get(errors..)?
        .iter()
        .find(|e| e.code == "unsupported")?;
    Some(RefusedDef {
        name: defined_name(cx, node)?.to_string(),
        reason: reason.message.clone(),
        range: node.range,
    })
}

/// The plain name a top-level definition defines: a struct's or abstract type's, a function's
/// (not `Base.f` nor an operator, whose other methods stay), a binding's.
fn defined_name<'a>(cx: &Cx<'a>, node: &SyntaxNode) -> Option<&'a str> {
    let n = defined_name_node(node)?;
    let text = cx.text(n);
    (n.leaf && n.kind == Kind::Identifier && !is_operator_name(text)).then_some(text)
}

/// The node naming what a top-level definition defines (documented or under a macro): the
/// name in a struct's, abstract type's or function's signature, or a binding's.
pub(crate) fn defined_name_node(node: &SyntaxNode) -> Option<&SyntaxNode> {
    match (node.leaf, node.kind, node.children.as_slice()) {
        (false, Kind::Doc, [_, documented]) => defined_name_node(documented),
        (false, Kind::MacroCall, [.., def]) => defined_name_node(def),
        (false, Kind::Struct | Kind::Abstract | Kind::Function, [sig, ..]) => Some(head(sig)),
        (false, Kind::Const | Kind::Global, [assignment]) => defined_name_node(assignment),
        (false, Kind::Assign, [lhs, _]) => Some(head(lhs)),
        _ => None,
    }
}

/// The name inside a signature: `Name` of `Name{T} <: Super`, `f` of `f(x)::T where T`.
pub(crate) fn head(node: &SyntaxNode) -> &SyntaxNode {
    match (node.leaf, node.kind, node.children.first()) {
        (false, Kind::Subtype | Kind::Curly | Kind::Where | Kind::Decl | Kind::Call, Some(c)) => {
            head(c)
        }
        _ => node,
    }
}

/// The struct under `@kwdef` or `Base.@kwdef` (documented or not), if `node` is one.
fn kwdef_struct<'n>(cx: &mut Cx, node: &'n SyntaxNode) -> Option<&'n SyntaxNode> {
    if node.leaf {
        return None;
    }
    match (node.kind, node.children.as_slice()) {
        (Kind::Doc, [docstring, documented]) => {
            let def = kwdef_struct(cx, documented)?;
            cx.docstrings
                .insert(documented.range.start, docstring.range.start);
            Some(def)
        }
        (Kind::MacroCall, [name, def])
            if matches!(cx.text(name), "@kwdef" | "Base.@kwdef")
                && def.kind == Kind::Struct
                && !def.leaf =>
        {
            Some(def)
        }
        _ => None,
    }
}

/// One top-level statement.
fn item(cx: &mut Cx, node: &SyntaxNode) -> Option<Item> {
    if node.is_error() {
        return None;
    }
    if matches!(
        node.kind,
        Kind::StringLit | Kind::String | Kind::Integer | Kind::Float | Kind::Bool
    ) {
        // A literal on its own line (a comment written as a string): nothing to run.
        return None;
    }
    if node.leaf {
        return Some(Item::Script(script(cx, node)));
    }
    if crate::aliases::is_alias(cx, node) {
        return crate::aliases::alias(cx, node).map(Item::Struct);
    }
    match node.kind {
        Kind::Doc => {
            let [docstring, documented] = node.children.as_slice() else {
                return None;
            };
            cx.docstrings
                .insert(documented.range.start, docstring.range.start);
            item(cx, documented)
        }
        Kind::Function => match declared_function(cx, node) {
            Some(name) => Some(Item::Refused(RefusedDef {
                name: name.to_string(),
                reason: format!(
                    "unsupported: `function {name} end` declares a function that the program gives no method"
                ),
                range: node.range,
            })),
            None => function_definition(cx, node).map(Item::Function),
        },
        Kind::Struct => struct_definition(cx, node, None).map(Item::Struct),
        Kind::Const | Kind::Global => match declared_binding(node) {
            Some((assignment, is_const)) => {
                global(cx, node, assignment, is_const).map(Item::Global)
            }
            // `global x` at top level declares what every top-level name is already.
            None if node.kind == Kind::Global => Some(Item::Script(script(cx, node))),
            None => unsupported(cx, node, "const declaration"),
        },
        Kind::Assign if assigns_a_name(node) => global(cx, node, node, false).map(Item::Global),
        Kind::MacroCall if is_definition_macro(cx, node) => {
            let def = node.children.last().and_then(|def| item(cx, def));
            let views = node
                .children
                .first()
                .is_some_and(|m| cx.text(m) == "@views");
            match def {
                // `@views function f(x) ... end`: every slice its body reads is a view.
                Some(Item::Function(mut f)) if views => {
                    f.body = std::mem::take(&mut f.body)
                        .into_iter()
                        .map(|e| {
                            let range = e.range;
                            Expr::new(ExprKind::Views(Box::new(e)), range)
                        })
                        .collect();
                    Some(Item::Function(f))
                }
                def => def,
            }
        }
        Kind::MacroCall if wraps_method(node) => {
            let name = node.children.first().map_or("", |n| cx.text(n));
            unsupported(cx, node, &format!("macro `{name}` on a method definition"))
        }
        Kind::Module => module_def(cx, node).map(Item::Module),
        Kind::Abstract => abstract_definition(cx, node).map(Item::Struct),
        Kind::Primitive => unsupported(cx, node, "primitive type"),
        // Collected before the items (`macros::collect`): calls expand where they are read.
        Kind::Macro => None,
        Kind::Import | Kind::Using => import(cx, node).map(Item::Import),
        Kind::Export => Some(Item::Export(ExportDef {
            names: node.args().map(|n| cx.text(n).to_string()).collect(),
            range: node.range,
        })),
        // `public` only documents names: nothing to do.
        Kind::Public => None,
        Kind::Call if is_include(cx, node) => include(cx, node).map(Item::Include),
        Kind::Call if seed_call(cx, node).is_some() => {
            cx.seed = seed_call(cx, node);
            cx.note(
                node.range,
                "`Random.seed!` at top level seeds the top-level bindings after it, in file \
                 order; a function's own draws start from zy's fixed state (as if `seed!(0)`)"
                    .to_string(),
            );
            None
        }
        _ if node.has_error() => None,
        _ => Some(Item::Script(script(cx, node))),
    }
}

/// `module M ... end`: its items, converted as top-level ones.
fn module_def(cx: &mut Cx, node: &SyntaxNode) -> Option<ModuleDef> {
    let [name, body] = node.children.as_slice() else {
        return None;
    };
    if !(name.leaf && name.kind == Kind::Identifier) {
        return unsupported(cx, name, "module name that is not a plain name");
    }
    let mut items = Vec::new();
    let own_macros = crate::macros::collect(cx, body);
    let outer_macros = std::mem::replace(&mut cx.macros, own_macros);
    for child in &body.children {
        push_item(cx, child, &mut items);
    }
    cx.macros = outer_macros;
    Some(ModuleDef {
        name: cx.text(name).to_string(),
        name_range: name.range,
        items,
        bare: node.has_flag(flags::BARE_MODULE),
        range: node.range,
    })
}

/// `using A, B.C`, `using A: f, g as h`, `import A`, `import A.f as g`, `import .M`.
fn import(cx: &mut Cx, node: &SyntaxNode) -> Option<ImportDef> {
    let using = node.kind == Kind::Using;
    let mut def = ImportDef {
        using,
        from: None,
        paths: Vec::new(),
        range: node.range,
    };
    let entries: &[SyntaxNode] = match node.children.as_slice() {
        [from] if !from.leaf && from.kind == Kind::ImportFrom => {
            let (module, names) = from.children.split_first()?;
            def.from = Some(import_path(cx, module)?);
            names
        }
        all => all,
    };
    for entry in entries {
        let renamed = match (entry.kind, entry.children.as_slice()) {
            (Kind::As, [path, name]) => Some((path, cx.text(name).to_string())),
            _ => None,
        };
        let (path, alias) = match renamed {
            Some((path, alias)) => (path, Some(alias)),
            None => (entry, None),
        };
        def.paths.push((import_path(cx, path)?, alias));
    }
    Some(def)
}

/// `..A.b`: the leading dots and the names.
fn import_path(cx: &mut Cx, node: &SyntaxNode) -> Option<ImportPath> {
    if node.kind != Kind::ImportPath {
        return unsupported(cx, node, "import path");
    }
    let mut path = ImportPath {
        dots: 0,
        names: Vec::new(),
        range: node.range,
    };
    for part in &node.children {
        let text = cx.text(part);
        if part.leaf && part.kind.is_op(".") && path.names.is_empty() {
            path.dots += 1;
        } else if part.leaf && (part.kind == Kind::Identifier || part.kind.is_operator()) {
            path.names.push(text.to_string());
        } else {
            return unsupported(
                cx,
                part,
                "this form in an import path (a macro or an interpolation)",
            );
        }
    }
    Some(path)
}

/// A statement zy does not run: what it is and the names it mentions.
fn script(cx: &Cx, node: &SyntaxNode) -> ScriptDef {
    let what = match node.kind {
        Kind::Call if !node.is_infix() && !node.is_prefix() => match node.children.first() {
            Some(callee) if callee.leaf => format!("a call of `{}`", cx.text(callee)),
            _ => "a call".to_string(),
        },
        Kind::MacroCall => match node.children.first() {
            Some(name) => format!("a macro call `{}`", cx.text(name)),
            None => "a macro call".to_string(),
        },
        Kind::Assign => match node.children.first() {
            Some(lhs) => format!("an assignment to `{}`", cx.text(lhs)),
            None => "an assignment".to_string(),
        },
        Kind::For => "a `for` loop".to_string(),
        Kind::While => "a `while` loop".to_string(),
        Kind::If => "an `if` block".to_string(),
        Kind::Let => "a `let` block".to_string(),
        Kind::Try => "a `try` block".to_string(),
        _ => "a top-level statement".to_string(),
    };
    let mut names = Vec::new();
    let mut assigned = Vec::new();
    let mut written = Vec::new();
    let mut calls = Vec::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.leaf && n.kind == Kind::Identifier {
            push_new(&mut names, cx.text(n));
        }
        if let Some(call) = script_call(cx, n) {
            calls.push(call);
        }
        match (n.leaf, n.kind, n.children.first()) {
            (false, Kind::Assign | Kind::OpAssign, Some(target)) if rebinds(target) => {
                target_names(cx, target, &mut assigned)
            }
            // The variables of a `for` loop, as `for x in xs` binds them.
            (false, Kind::For, Some(iteration)) => {
                for spec in &iteration.children {
                    if let Some(var) = spec.children.first() {
                        target_names(cx, var, &mut assigned);
                    }
                }
            }
            (
                false,
                Kind::Assign | Kind::OpAssign | Kind::DotAssign | Kind::DotOpAssign,
                Some(target),
            ) => target_names(cx, target, &mut written),
            _ => {}
        }
        if matches!(n.kind, Kind::Call | Kind::DotCall | Kind::Parameters) && !n.leaf {
            // A keyword argument (`plot(x, label = "a")`) names a parameter: only its value
            // is code of the statement.
            for c in &n.children {
                match c.kind {
                    Kind::Assign if !c.leaf => stack.extend(c.children.iter().skip(1)),
                    _ => stack.push(c),
                }
            }
        } else {
            stack.extend(n.children.iter());
        }
    }
    ScriptDef {
        what,
        names,
        assigned,
        written,
        calls,
        range: node.range,
    }
}

/// Does assigning to `target` rebind names (`x`, `(a, b)`) rather than write into an object
/// (`x[i]`, `x.a`)?
fn rebinds(target: &SyntaxNode) -> bool {
    match target.kind {
        _ if target.leaf => true,
        Kind::Tuple | Kind::Parens => target.children.iter().all(rebinds),
        _ => false,
    }
}

/// `f(args...)` or `f.(args...)` written with call syntax: the callee's name (empty when it is
/// not a plain or dotted name) and its arguments.
fn script_call(cx: &Cx, n: &SyntaxNode) -> Option<ScriptCall> {
    if n.leaf || !matches!(n.kind, Kind::Call | Kind::DotCall) {
        return None;
    }
    if n.is_infix() || n.is_prefix() || n.is_postfix() {
        return None;
    }
    let (callee, args) = n.children.split_first()?;
    let text = cx.text(callee);
    let named = !text.is_empty()
        && !text.starts_with('.')
        && !text
            .chars()
            .any(|c| c.is_whitespace() || "()[]{},;:'\"$@".contains(c));
    Some(ScriptCall {
        callee: if named {
            text.to_string()
        } else {
            String::new()
        },
        args: script_args(cx, args),
    })
}

/// The arguments of a call, each with its place: a `do` block first, the positional ones
/// counted until a splat (after which each may be any), the keywords by name.
fn script_args(cx: &Cx, list: &[SyntaxNode]) -> Vec<ScriptArg> {
    let arg = |place, nodes: &[SyntaxNode]| ScriptArg {
        place,
        names: shared_identifiers(cx, nodes),
    };
    let (do_block, list) = match list.split_last() {
        Some((last, list)) if last.kind == Kind::Do => (Some(last), list),
        _ => (None, list),
    };
    let mut out: Vec<ScriptArg> = do_block
        .map(|d| arg(ArgPlace::Positional(0), std::slice::from_ref(d)))
        .into_iter()
        .collect();
    let mut position = out.len();
    let mut splatted = false;
    let keyword = |k: &SyntaxNode| match (k.leaf, k.kind, k.children.as_slice()) {
        (false, Kind::Assign, [name, value]) if name.leaf && name.kind == Kind::Identifier => arg(
            ArgPlace::Keyword(cx.text(name).to_string()),
            std::slice::from_ref(value),
        ),
        (true, Kind::Identifier, _) => arg(
            ArgPlace::Keyword(cx.text(k).to_string()),
            std::slice::from_ref(k),
        ),
        _ => arg(ArgPlace::AnyKeyword, std::slice::from_ref(k)),
    };
    for child in list {
        match child.kind {
            Kind::Parameters if !child.leaf => out.extend(child.children.iter().map(keyword)),
            Kind::Assign if !child.leaf => out.push(keyword(child)),
            _ => {
                splatted |= child.kind == Kind::Splat && !child.leaf;
                let place = if splatted {
                    ArgPlace::From(position)
                } else {
                    ArgPlace::Positional(position)
                };
                out.push(arg(place, std::slice::from_ref(child)));
                position += 1;
            }
        }
    }
    out
}

/// Every identifier in the trees `nodes`, once each, but those inside a call whose result is a
/// new object sharing nothing with its arguments (`copy(A)`, `zeros(n)`, `exp.(A)`, `A + B`):
/// a call passed such an argument cannot change what those names hold.
fn shared_identifiers(cx: &Cx, nodes: &[SyntaxNode]) -> Vec<String> {
    let mut names = Vec::new();
    let mut stack: Vec<&SyntaxNode> = nodes.iter().collect();
    while let Some(a) = stack.pop() {
        if a.leaf && a.kind == Kind::Identifier {
            push_new(&mut names, cx.text(a));
        }
        if !makes_new_object(cx, a) {
            stack.extend(a.children.iter());
        }
    }
    names
}

/// Library functions whose result is a new object, whatever their arguments.
const NEW_OBJECT: [&str; 14] = [
    "copy", "deepcopy", "collect", "similar", "zeros", "ones", "fill", "rand", "randn", "Matrix",
    "Vector", "Array", "hcat", "vcat",
];

/// Is `n` a call that makes a new object: a broadcast `f.(x)`, arithmetic (`A + B`, `2A`,
/// `-A`), or a call of one of [`NEW_OBJECT`]?
fn makes_new_object(cx: &Cx, n: &SyntaxNode) -> bool {
    match n.kind {
        _ if n.leaf => false,
        Kind::DotCall => true,
        Kind::Call if n.is_infix() || n.is_prefix() => {
            let op = n
                .children
                .get(usize::from(n.is_infix()))
                .map(|o| cx.text(o));
            op.is_some_and(|o| ["+", "-", "*", "/", "\\", "^"].contains(&o))
        }
        Kind::Call if !n.is_postfix() => n
            .children
            .first()
            .is_some_and(|f| NEW_OBJECT.contains(&cx.text(f))),
        _ => false,
    }
}

/// The names an assignment target (or a mutating call's argument) writes: each name of a
/// tuple, the object of an index, field or declaration (`x` of `x[i]`, `x.a`, `x::T`).
fn target_names(cx: &Cx, target: &SyntaxNode, out: &mut Vec<String>) {
    match target.kind {
        _ if target.leaf => {
            if target.kind == Kind::Identifier {
                push_new(out, cx.text(target));
            }
        }
        Kind::Tuple | Kind::Parens => {
            for part in &target.children {
                target_names(cx, part, out);
            }
        }
        // A value computed by a call (`push!(xs, copy(w))`) is no binding.
        Kind::Call => {}
        _ => {
            if let Some(object) = target.children.first() {
                target_names(cx, object, out);
            }
        }
    }
}

fn push_new(names: &mut Vec<String>, name: &str) {
    if !names.iter().any(|n| n == name) {
        names.push(name.to_string());
    }
}

/// The files a top-level `for t in ["a", "b"] ... include("$t.jl") ... end` includes: each
/// `include` once per string, its path evaluated with `t` bound to the string.
fn loop_includes(cx: &mut Cx, node: &SyntaxNode, out: &mut Vec<Item>) {
    match include_paths::loop_includes(cx, node) {
        None => {}
        Some(Ok((var, strings, calls))) => {
            let outer = cx.path_consts.remove(&var);
            for string in strings {
                cx.path_consts.insert(var.clone(), string);
                for call in &calls {
                    out.extend(include(cx, call).map(Item::Include));
                }
            }
            cx.path_consts.remove(&var);
            if let Some(outer) = outer {
                cx.path_consts.insert(var, outer);
            }
        }
        Some(Err(collection)) => {
            cx.unsupported(
                collection,
                "`include` in a loop over other than a literal vector or tuple of strings (or a top-level binding to one); write the `include`s one by one instead",
            );
        }
    }
}

/// Is `node` a call of `include`?
pub(crate) fn is_include(cx: &Cx, node: &SyntaxNode) -> bool {
    !node.is_infix()
        && !node.is_prefix()
        && node
            .children
            .first()
            .is_some_and(|callee| callee.kind == Kind::Identifier && cx.text(callee) == "include")
}

/// `include("path")`: the path a string literal, or one built from literals and the file's
/// place (`joinpath(@__DIR__, "a.jl")`: `include_paths`).
fn include(cx: &mut Cx, node: &SyntaxNode) -> Option<IncludeDef> {
    let call = expr(cx, node);
    let ExprKind::Call { args, .. } = &call.kind else {
        return None;
    };
    let path = match args.as_slice() {
        [arg] => include_paths::static_path(cx, arg).map(|p| (p, arg.range)),
        _ => None,
    };
    match path {
        Some((path, path_range)) => Some(IncludeDef {
            path,
            path_range,
            range: call.range,
        }),
        None => unsupported(
            cx,
            node,
            "`include` of a path not built from string literals; write the path as a literal (`include(\"file.jl\")`, `include(joinpath(@__DIR__, \"file.jl\"))`) instead",
        ),
    }
}

/// `x = ...` or `x::T = ...` (a binding) rather than `x[1] = ...` or `s.f = ...` (a mutation).
fn assigns_a_name(node: &SyntaxNode) -> bool {
    node.children
        .first()
        .is_some_and(|lhs| typed_name(lhs).is_some())
}

/// The name and the declared type of a binding's left side: `x` or `x::T`.
fn typed_name(lhs: &SyntaxNode) -> Option<(&SyntaxNode, Option<&SyntaxNode>)> {
    match (lhs.leaf, lhs.kind, lhs.children.as_slice()) {
        (true, Kind::Identifier, _) => Some((lhs, None)),
        (false, Kind::Decl, [name, ty]) if name.leaf && name.kind == Kind::Identifier => {
            Some((name, Some(ty)))
        }
        _ => None,
    }
}

/// `@inline function ... end` and the like: a macro that leaves the definition's meaning as it
/// is (compiler hints, `@doc "text" f(x) = ...`, also of a struct, `const` or module), or
/// `@views`, which makes the slices its body reads views.
fn is_definition_macro(cx: &Cx, node: &SyntaxNode) -> bool {
    let name = node.children.first().map(|n| cx.text(n));
    let Some(def) = node.children.last() else {
        return false;
    };
    let hint = matches!(
        name,
        Some(
            "@inline"
                | "Base.@inline"
                | "@noinline"
                | "Base.@noinline"
                | "@pure"
                | "Base.@pure"
                | "@assume_effects"
                | "Base.@assume_effects"
                | "@constprop"
                | "Base.@constprop"
                | "@fastmath"
                | "@inbounds"
                | "@propagate_inbounds"
                | "Base.@propagate_inbounds"
                | "@doc"
                | "@views"
        )
    );
    let documented = name == Some("@doc") && node.children.len() == 3;
    (hint && matches!(def.kind, Kind::Function | Kind::Assign))
        || (documented
            && matches!(
                def.kind,
                Kind::Struct | Kind::Abstract | Kind::Const | Kind::Module
            ))
}

/// Whether the macro call's last argument defines a method (`function ... end`, `f(x) = ...`):
/// what any macro that is not a compiler hint may rewrite, so zy refuses the method.
fn wraps_method(node: &SyntaxNode) -> bool {
    node.children.last().is_some_and(|def| {
        !def.leaf
            && (def.kind == Kind::Function
                || def.kind == Kind::Assign
                    && def.children.first().is_some_and(|lhs| {
                        !lhs.leaf
                            && matches!(lhs.kind, Kind::Call | Kind::Where | Kind::Decl)
                            && typed_name(lhs).is_none()
                    }))
    })
}

fn unsupported<T>(cx: &mut Cx, node: &SyntaxNode, what: &str) -> Option<T> {
    cx.unsupported(node, what);
    None
}

/// `const N = 3`, `sq = x -> x^2` or `w::Float64 = 2` at top level (a typed global holds
/// Julia's `convert(T, v)`).
fn global(
    cx: &mut Cx,
    whole: &SyntaxNode,
    assignment: &SyntaxNode,
    is_const: bool,
) -> Option<GlobalDef> {
    let [lhs, rhs] = assignment.children.as_slice() else {
        return None;
    };
    let Some((lhs, ty)) = typed_name(lhs) else {
        if assignment.has_error() {
            return None;
        }
        return unsupported(
            cx,
            lhs,
            "global binding of anything but a name; bind one name per line (`a = 1`) instead",
        );
    };
    let name = cx.text(lhs).to_string();
    let mut value = expr(cx, rhs);
    if let Some(ty) = ty {
        let r = assignment.range;
        value = Expr::call("Base.convert", vec![expr(cx, ty), value], r);
    }
    let value = seeded(cx, &name, value);
    if is_const {
        include_paths::record_const(cx, &name, &value);
    }
    include_paths::record_strings(cx, &name, &value);
    Some(GlobalDef {
        name,
        name_range: lhs.range,
        value,
        is_const,
        range: whole.range,
    })
}

/// `const a, b = 1, 2` (or `global`, or parenthesised): one binding per name, each of the
/// element written in its place, as Julia destructures the tuple. A value that is not a tuple
/// literal of as many plain elements is left to [`global`], which refuses it by name.
fn tuple_globals(cx: &mut Cx, node: &SyntaxNode) -> Option<Vec<GlobalDef>> {
    if node.leaf || !matches!(node.kind, Kind::Const | Kind::Global) {
        return None;
    }
    let (assignment, is_const) = declared_binding(node)?;
    let [lhs, rhs] = assignment.children.as_slice() else {
        return None;
    };
    let names = tuple_elements(lhs)?;
    let values = tuple_elements(rhs)?;
    if names.len() != values.len()
        || names.iter().any(|n| typed_name(n).is_none())
        || values
            .iter()
            .any(|v| v.kind == Kind::Splat || v.kind == Kind::Parameters)
    {
        return None;
    }
    let mut globals = Vec::new();
    for (name, value) in names.iter().zip(values) {
        let Some((name, ty)) = typed_name(name) else {
            return None;
        };
        let text = cx.text(name).to_string();
        let mut value = expr(cx, value);
        if let Some(ty) = ty {
            let range = value.range;
            value = Expr::call("Base.convert", vec![expr(cx, ty), value], range);
        }
        let value = seeded(cx, &text, value);
        globals.push(GlobalDef {
            name: text,
            name_range: name.range,
            value,
            is_const,
            range: node.range,
        });
    }
    Some(globals)
}

/// The elements of a tuple written without or with parentheses (`a, b` or `(a, b)`).
fn tuple_elements(node: &SyntaxNode) -> Option<&[SyntaxNode]> {
    match (node.leaf, node.kind, node.children.as_slice()) {
        (false, Kind::Tuple, elements) if elements.len() > 1 => Some(elements),
        (false, Kind::Parens, [inner]) => tuple_elements(inner),
        _ => None,
    }
}

/// The assignment of a top-level `x = v`, `const x = v`, `global x = v`, `global const x = v`
/// or `const global x = v` (each binds the global `x`), and whether it is constant.
pub(crate) fn declared_binding(node: &SyntaxNode) -> Option<(&SyntaxNode, bool)> {
    match (node.leaf, node.kind, node.children.as_slice()) {
        (false, Kind::Assign, _) => Some((node, false)),
        (false, Kind::Global, [inner]) => declared_binding(inner),
        (false, Kind::Const, [inner]) => declared_binding(inner).map(|(a, _)| (a, true)),
        _ => None,
    }
}

/// `Random.seed!(k)` or `seed!(k)` of an Int literal at top level: `(k, qualified)`, with no
/// binding after it yet.
fn seed_call(cx: &Cx, node: &SyntaxNode) -> Option<(i64, bool, Option<String>)> {
    if node.is_infix() || node.is_prefix() {
        return None;
    }
    let [callee, arg] = node.children.as_slice() else {
        return None;
    };
    let qualified = match cx.text(callee) {
        "Random.seed!" => true,
        "seed!" => false,
        _ => return None,
    };
    if !(arg.leaf && arg.kind == Kind::Integer) {
        return None;
    }
    let k = cx.text(arg).replace('_', "").parse().ok()?;
    Some((k, qualified, None))
}

/// The value of the top-level binding `name` after a `Random.seed!(k)`, as Julia runs the file
/// in order: the first binding after the seed is `(Random.seed!(k); value)`, each later one
/// `(previous; value)`, so evaluating a binding first evaluates (once per run) those before it
/// since the seed, and its draws continue theirs. A function written as a binding is left as
/// it is.
fn seeded(cx: &mut Cx, name: &str, value: Expr) -> Expr {
    let Some((k, qualified, previous)) = cx.seed.clone() else {
        return value;
    };
    if matches!(value.kind, ExprKind::Function(_)) {
        return value;
    }
    let r = value.range;
    let at = |kind: ExprKind| Expr::new(kind, r);
    let first = match previous {
        Some(p) => at(ExprKind::Ident(p)),
        None => {
            let callee = if qualified {
                at(ExprKind::Field {
                    base: Box::new(at(ExprKind::Ident("Random".to_string()))),
                    name: "seed!".to_string(),
                })
            } else {
                at(ExprKind::Ident("seed!".to_string()))
            };
            at(ExprKind::Call {
                callee: Box::new(callee),
                args: vec![at(ExprKind::Int(k))],
            })
        }
    };
    cx.seed = Some((k, qualified, Some(name.to_string())));
    at(ExprKind::Block(vec![first, value]))
}

/// A method's name, parameters and `where` variables.
struct Signature {
    name: FunctionName,
    name_range: TextRange,
    params: Params,
    /// `where` variables with their upper bounds: `T<:Real`.
    where_params: Vec<(String, Option<TypeExpr>)>,
    return_type: Option<TypeExpr>,
}

/// The parameters of a signature: positional ones, then the keyword ones after `;`.
#[derive(Default)]
pub(crate) struct Params {
    pub positional: Vec<Param>,
    pub keywords: Vec<KeywordParam>,
    /// `kw...` after the keywords.
    pub rest: Option<String>,
}

/// The name `function f end` declares (a generic function without methods, which Julia's
/// interfaces write before the methods, often with the docstring): kept as a refused
/// definition, so that it is no error while the program defines methods of `f`, and a use
/// says why when it defines none (Julia's call would be a `MethodError`).
fn declared_function<'a>(cx: &Cx<'a>, node: &SyntaxNode) -> Option<&'a str> {
    match node.children.as_slice() {
        [sig] if sig.leaf && sig.kind == Kind::Identifier => Some(cx.text(sig)),
        _ => None,
    }
}

/// The refusal of `function (x::T) where T ... end` and `((x::T) where T) -> ...`.
pub(crate) const ANONYMOUS_WHERE: &str =
    "`where` in an anonymous function; define a named function instead";

/// The signature of `function (x::T) where T ... end`, an anonymous function with `where`.
pub(crate) fn anonymous_where(node: &SyntaxNode) -> Option<&SyntaxNode> {
    let sig = node.children.first()?;
    match (sig.leaf, sig.kind, sig.children.first()) {
        (false, Kind::Where, Some(params)) if params.kind == Kind::Tuple && !params.leaf => {
            Some(sig)
        }
        _ => None,
    }
}

/// `function SIGNATURE ... end` or `SIGNATURE = body` (named, callable-struct or anonymous).
pub(crate) fn function_definition(cx: &mut Cx, node: &SyntaxNode) -> Option<FunctionDef> {
    let short = node.has_flag(flags::SHORT_FORM);
    let (sig_node, body_node) = match node.children.as_slice() {
        [sig, body] => (sig, body),
        [sig] => {
            if sig.leaf && sig.kind == Kind::Identifier {
                return unsupported(cx, node, "function declaration without methods");
            }
            return None;
        }
        _ => return None,
    };
    if sig_node.has_error() {
        return None;
    }
    if let Some(sig) = anonymous_where(node) {
        return unsupported(cx, sig, ANONYMOUS_WHERE);
    }
    let mut sig = match (sig_node.leaf, sig_node.kind) {
        (false, Kind::Tuple) => Signature {
            name: FunctionName::Anonymous,
            name_range: sig_node.range,
            params: params_of_tuple(cx, sig_node),
            where_params: Vec::new(),
            return_type: None,
        },
        _ => signature(cx, sig_node)?,
    };
    crate::output::text_plain_show(&mut sig.name, &mut sig.params.positional);
    let io = crate::output::showerror_io(&sig.name, &mut sig.params.positional);
    let outer = std::mem::replace(&mut cx.io, io.clone());
    let enclosing = cx.type_vars.len();
    cx.type_vars
        .extend(sig.where_params.iter().map(|(v, _)| v.clone()));
    let mut body = if short {
        vec![expr(cx, body_node)]
    } else {
        block_of(cx, body_node)
    };
    cx.type_vars.truncate(enclosing);
    cx.io = outer;
    if let Some(io) = io {
        match crate::output::io_escape(&body, &io) {
            // The method stays, refused where it is called.
            Some(at) => body = vec![cx.unsupported_at(at, crate::expr::IO_PASSED)],
            // The text written is the method's value.
            None => body.push(Expr::new(ExprKind::Ident(io), body_node.range)),
        }
    }
    Some(method(cx, node, sig, body))
}

fn method(cx: &mut Cx, node: &SyntaxNode, mut sig: Signature, mut body: Vec<Expr>) -> FunctionDef {
    destructure(cx, &mut sig.params.positional, &mut body);
    let mut vars = AnonymousVars::default();
    for p in &mut sig.params.positional {
        vars.name_all(p.ty.as_mut());
    }
    for k in &mut sig.params.keywords {
        vars.name_all(k.ty.as_mut());
    }
    sig.where_params
        .extend(vars.bounds.into_iter().map(|(v, b)| (v, Some(b))));
    // Annotations sit above the docstring, if there is one.
    let start = node.range.start;
    let start = cx.docstrings.get(&start).copied().unwrap_or(start);
    let annotations = match sig.name {
        FunctionName::Anonymous => Vec::new(),
        _ => annotations::above(cx, start as usize),
    };
    FunctionDef {
        name: sig.name,
        name_range: sig.name_range,
        params: sig.params.positional,
        keywords: sig.params.keywords,
        keyword_rest: sig.params.rest,
        where_params: sig.where_params,
        return_type: sig.return_type,
        body,
        range: node.range,
        annotations,
    }
}

/// `f(args)`, `(d::Dense)(args)`, `SIG where T`, `SIG where {T, S}`.
fn signature(cx: &mut Cx, node: &SyntaxNode) -> Option<Signature> {
    if !cx.enter(node) {
        return None;
    }
    let sig = signature_inner(cx, node);
    cx.leave();
    sig
}

fn signature_inner(cx: &mut Cx, node: &SyntaxNode) -> Option<Signature> {
    match (node.leaf, node.kind) {
        (false, Kind::Where) => {
            let (inner, vars) = node.children.split_first()?;
            let mut sig = signature(cx, inner)?;
            for var in vars {
                sig.where_params.extend(where_params(cx, var)?);
            }
            Some(sig)
        }
        (false, Kind::Parens) => match node.children.as_slice() {
            [inner] => signature(cx, inner),
            _ => None,
        },
        (false, Kind::Decl) if node.is_infix() => {
            let [inner, ty] = node.children.as_slice() else {
                return None;
            };
            let mut sig = signature(cx, inner)?;
            // `f(x)::T where {T}` is `(f(x)::T) where {T}` in Julia; the tree holds the
            // `where` inside the annotation.
            match (ty.leaf, ty.kind, ty.children.as_slice()) {
                (false, Kind::Where, [ty, vars @ ..]) => {
                    sig.return_type = Some(type_expr(cx, ty)?);
                    for var in vars {
                        sig.where_params.extend(where_params(cx, var)?);
                    }
                }
                _ => sig.return_type = Some(type_expr(cx, ty)?),
            }
            Some(sig)
        }
        (false, Kind::Call) if !node.is_infix() && !node.is_prefix() && !node.is_postfix() => {
            let (callee, args) = node.children.split_first()?;
            if args.iter().any(|a| a.kind == Kind::Do) {
                return unsupported(cx, node, "`do` block in a method signature");
            }
            if let Some(sig) = curly_constructor(cx, callee, args) {
                return sig;
            }
            let name = method_name(cx, callee)?;
            Some(Signature {
                name,
                name_range: callee.range,
                params: params(cx, args),
                where_params: Vec::new(),
                return_type: None,
            })
        }
        (false, Kind::Call) if node.is_prefix() => {
            // `-(a) = ...` defines a method of the operator `-` of one argument.
            let [op, operand] = node.children.as_slice() else {
                return unsupported(cx, node, "method definition of an operator of this form");
            };
            let args = match (operand.kind, operand.children.as_slice()) {
                (Kind::Parens | Kind::Tuple, args) if !operand.leaf => args,
                _ => std::slice::from_ref(operand),
            };
            Some(Signature {
                name: FunctionName::Named(operators::normalize(cx.text(op)).to_string()),
                name_range: op.range,
                params: params(cx, args),
                where_params: Vec::new(),
                return_type: None,
            })
        }
        (false, Kind::Call) if node.is_infix() => {
            // `a + b = ...` defines a method of the operator `+` of two arguments.
            let [lhs, op, rhs] = node.children.as_slice() else {
                return unsupported(cx, node, "method definition of an operator of this form");
            };
            let mut operands = Params::default();
            operands.positional.extend(param(cx, lhs));
            operands.positional.extend(param(cx, rhs));
            Some(Signature {
                name: FunctionName::Named(operators::normalize(cx.text(op)).to_string()),
                name_range: op.range,
                params: operands,
                where_params: Vec::new(),
                return_type: None,
            })
        }
        _ => {
            cx.syntax(node, "syntax error: invalid method signature");
            None
        }
    }
}

/// `S{A, B}(args)`, a constructor of `S` with its type parameters given (Julia's method of
/// the type `S{A, B}`): a method of [`curly_name`]`(S)` taking each parameter first as a type,
/// `(::Type{A}, ::Type{B}, args)`, so that `S{Float64, Int}(x)` passes them
/// (`None` when `callee` is not such a head).
fn curly_constructor(
    cx: &mut Cx,
    callee: &SyntaxNode,
    args: &[SyntaxNode],
) -> Option<Option<Signature>> {
    let (false, Kind::Curly, [name, given @ ..]) =
        (callee.leaf, callee.kind, callee.children.as_slice())
    else {
        return None;
    };
    if !(name.leaf && name.kind == Kind::Identifier) {
        return Some(unsupported(cx, callee, "constructor definition"));
    }
    let mut params = Params::default();
    for p in given {
        let Some(ty) = type_expr(cx, p) else {
            return Some(None);
        };
        params.positional.push(Param {
            name: None,
            ty: Some(TypeExpr::Named {
                name: "Type".into(),
                params: vec![ty],
                range: p.range,
            }),
            default: None,
            varargs: false,
            range: p.range,
        });
    }
    let rest = self::params(cx, args);
    params.positional.extend(rest.positional);
    params.keywords = rest.keywords;
    params.rest = rest.rest;
    Some(Some(Signature {
        name: FunctionName::Named(curly_name(cx.text(name))),
        name_range: callee.range,
        params,
        where_params: Vec::new(),
        return_type: None,
    }))
}

/// The function holding the constructors of struct `name` written with its type parameters
/// (`S{T}(x) where T = ...`), which `S{Float64}(x)` calls.
pub fn curly_name(name: &str) -> String {
    format!("{name}{{}}")
}

/// The callee of a method signature: a name or `(d::Dense)` / `(::Dense)`.
fn method_name(cx: &mut Cx, callee: &SyntaxNode) -> Option<FunctionName> {
    match (callee.leaf, callee.kind) {
        (true, Kind::Identifier) => {
            let text = cx.text(callee);
            if is_operator_name(text) {
                // `+(a, b) = ...`: a method of the operator (of Base's after `import Base: +`).
                return Some(FunctionName::Named(operators::normalize(text).to_string()));
            }
            Some(FunctionName::Named(text.to_string()))
        }
        (false, Kind::Parens) => {
            let [typed] = callee.children.as_slice() else {
                return unsupported(cx, callee, "method name");
            };
            // `(:)(a, b) = ...`: the range constructor the prelude defines; `(\)(C, b)`: the
            // prelude's solves with factorizations; `(~)(x)`, `(===)(a, b)`, `(&)`, `(|)`,
            // `(<<)`, `(>>)`, `(>>>)`: Base's bitwise operators and egal, for the values zy has.
            if typed.leaf
                && matches!(
                    cx.text(typed),
                    ":" | "\\" | "~" | "===" | "&" | "|" | "<<" | ">>" | ">>>"
                )
            {
                return Some(FunctionName::Named(cx.text(typed).to_string()));
            }
            match (typed.kind, typed.children.as_slice()) {
                (Kind::Decl, [name, ty])
                    if typed.is_infix() && name.leaf && name.kind == Kind::Identifier =>
                {
                    let ty = type_expr(cx, ty)?;
                    Some(FunctionName::Callable {
                        self_name: Some(cx.text(name).to_string()),
                        ty,
                    })
                }
                (Kind::Decl, [ty]) if typed.is_prefix() => {
                    let ty = type_expr(cx, ty)?;
                    Some(FunctionName::Callable {
                        self_name: None,
                        ty,
                    })
                }
                _ => unsupported(cx, callee, "method name"),
            }
        }
        (false, Kind::Dot) => match dotted_name(cx, callee) {
            Some(name) => Some(FunctionName::Named(name)),
            None => unsupported(cx, callee, "qualified method name"),
        },
        (false, Kind::Curly) => unsupported(cx, callee, "constructor definition"),
        (false, Kind::Var) => literals::var_name(cx, callee).map(FunctionName::Named),
        _ => unsupported(cx, callee, "method name"),
    }
}

/// A name, or a qualified one written with dots (`Base.sum`, `LinearAlgebra.norm`, `M.T`,
/// `Base.:+`, `Base.:(==)`), as one string.
pub(crate) fn dotted_name(cx: &Cx, node: &SyntaxNode) -> Option<String> {
    match (node.leaf, node.kind, node.children.as_slice()) {
        (true, Kind::Identifier, _) => Some(cx.text(node).to_string()),
        (false, Kind::Dot, [module, name]) => {
            let module = dotted_name(cx, module)?;
            let name = match (name.leaf, name.kind, name.children.as_slice()) {
                (true, Kind::Identifier, _) => cx.text(name).to_string(),
                (false, Kind::Quote, [op]) if op.leaf => cx.text(op).to_string(),
                // `Base.:(==)`: the operator in parentheses.
                (false, Kind::Quote, [parens]) if parens.kind == Kind::Parens => {
                    match parens.children.as_slice() {
                        [op] if op.leaf => cx.text(op).to_string(),
                        _ => return None,
                    }
                }
                _ => return None,
            };
            Some(format!("{module}.{name}"))
        }
        _ => None,
    }
}

/// `where T`, `where {T, S<:Real}`: each variable with its upper bound.
fn where_params(cx: &mut Cx, node: &SyntaxNode) -> Option<Vec<(String, Option<TypeExpr>)>> {
    let names: &[SyntaxNode] = match (node.leaf, node.kind) {
        (false, Kind::Braces) => &node.children,
        _ => std::slice::from_ref(node),
    };
    let mut out = Vec::new();
    for name in names {
        match (name.leaf, name.kind, name.children.as_slice()) {
            (true, Kind::Identifier, _) => out.push((cx.text(name).to_string(), None)),
            (false, Kind::Subtype, [var, bound]) if var.leaf && var.kind == Kind::Identifier => {
                let bound = type_expr(cx, bound)?;
                out.push((cx.text(var).to_string(), Some(bound)));
            }
            (false, Kind::Subtype | Kind::Supertype, _) => {
                return unsupported(cx, name, "this form of type bound in `where`")
            }
            _ => return unsupported(cx, name, "`where` clause"),
        }
    }
    Some(out)
}

/// The type variables that `Vector{<:Real}` in a signature stands for (Julia's `Vector{T}
/// where T<:Real`): each `<:B` becomes a new variable bounded by `B`.
#[derive(Default)]
struct AnonymousVars {
    bounds: Vec<(String, TypeExpr)>,
}

impl AnonymousVars {
    fn name_all(&mut self, ty: Option<&mut TypeExpr>) {
        let Some(TypeExpr::Named { name, params, .. }) = ty else {
            return;
        };
        if name == SUBTYPE_PARAM {
            if let [bound] = params.as_slice() {
                let var = format!("#T{}", self.bounds.len() + 1);
                self.bounds.push((var.clone(), bound.clone()));
                *name = var;
                params.clear();
                return;
            }
        }
        for p in params {
            self.name_all(Some(p));
        }
    }
}

/// The parameters of a method signature: positional ones, then keyword ones after `;`.
fn params(cx: &mut Cx, args: &[SyntaxNode]) -> Params {
    let mut out = Params::default();
    for arg in args {
        if arg.kind == Kind::Parameters && !arg.leaf {
            keyword_params(cx, &arg.children, &mut out);
        } else if let Some(param) = param(cx, arg) {
            if out.positional.last().is_some_and(|p| p.varargs) {
                cx.syntax(arg, "syntax error: invalid `...` on non-final argument");
            }
            let after_optional = out.positional.last().is_some_and(|p| p.default.is_some());
            if after_optional && param.default.is_none() && !param.varargs {
                cx.syntax(
                    arg,
                    "syntax error: optional positional arguments must occur at end",
                );
            }
            out.positional.push(param);
        }
    }
    out
}

/// The keyword parameters after `;`: `a = default`, `a::T = default`, a required `b` or
/// `b::T`, and a last `kw...`.
fn keyword_params(cx: &mut Cx, nodes: &[SyntaxNode], out: &mut Params) {
    for (i, node) in nodes.iter().enumerate() {
        if node.is_error() {
            continue;
        }
        let (head, default) = match (node.leaf, node.kind, node.children.as_slice()) {
            (false, Kind::Assign, [head, value]) => (head, Some(expr(cx, value))),
            _ => (node, None),
        };
        if let (false, Kind::Splat, [name]) = (head.leaf, head.kind, head.children.as_slice()) {
            if i + 1 == nodes.len() && default.is_none() && name.kind == Kind::Identifier {
                out.rest = Some(cx.text(name).to_string());
            } else {
                cx.syntax(node, "syntax error: invalid `...` on a keyword parameter");
            }
            continue;
        }
        let (name, ty) = match (head.leaf, head.kind, head.children.as_slice()) {
            (true, Kind::Identifier, _) => (head, None),
            (false, Kind::Decl, [name, ty]) if name.leaf && name.kind == Kind::Identifier => {
                match type_expr(cx, ty) {
                    Some(ty) => (name, Some(ty)),
                    None => continue,
                }
            }
            (false, Kind::Var, _) => {
                cx.unsupported(head, literals::VAR_NAME_HERE);
                continue;
            }
            _ => {
                cx.syntax(node, "syntax error: invalid keyword parameter");
                continue;
            }
        };
        let name = cx.text(name).to_string();
        if out.keywords.iter().any(|k| k.name == name)
            || out
                .positional
                .iter()
                .any(|p| p.name.as_ref() == Some(&name))
        {
            cx.syntax(
                node,
                &format!("syntax error: function argument name `{name}` is not unique"),
            );
            continue;
        }
        out.keywords.push(KeywordParam {
            name,
            ty,
            default,
            range: node.range,
        });
    }
}

/// The parameters of a `(tuple ...)`: an anonymous function's or a `do` block's, keyword
/// parameters after `;` included.
pub(crate) fn params_of_tuple(cx: &mut Cx, node: &SyntaxNode) -> Params {
    match (node.leaf, node.kind) {
        (false, Kind::Tuple) => {
            let params = params(cx, &node.children);
            if let Some(p) = params.positional.iter().find(|p| p.default.is_some()) {
                let range = p.range;
                cx.unsupported_at(
                    range,
                    "optional arguments of an anonymous function; define a named function instead",
                );
            }
            params
        }
        _ => Params {
            positional: param(cx, node).into_iter().collect(),
            ..Params::default()
        },
    }
}

/// One parameter: `x`, `x::T`, `::T`.
pub(crate) fn param(cx: &mut Cx, node: &SyntaxNode) -> Option<Param> {
    if node.is_error() {
        return None;
    }
    match (node.leaf, node.kind, node.children.as_slice()) {
        (true, Kind::Identifier, _) => Some(Param {
            name: Some(cx.text(node).to_string()),
            ty: None,
            default: None,
            varargs: false,
            range: node.range,
        }),
        (false, Kind::Decl, [name, ty]) if name.leaf && name.kind == Kind::Identifier => {
            let ty = type_expr(cx, ty)?;
            Some(Param {
                name: Some(cx.text(name).to_string()),
                ty: Some(ty),
                default: None,
                varargs: false,
                range: node.range,
            })
        }
        (false, Kind::Decl, [name, _]) if name.kind == Kind::Splat => {
            unsupported(cx, node, "varargs")
        }
        (false, Kind::Decl, [ty]) => {
            let ty = type_expr(cx, ty)?;
            Some(Param {
                name: None,
                ty: Some(ty),
                default: None,
                varargs: false,
                range: node.range,
            })
        }
        (false, Kind::Assign, [head, value]) if head.kind != Kind::Assign => {
            let param = param(cx, head)?;
            // `::Val{y} = Val(2)` has no name (lowering gives it one); a destructuring one is
            // refused.
            if param.default.is_some() || cx.destructured.remove(&head.range.start).is_some() {
                return unsupported(cx, node, "this form of optional argument");
            }
            Some(Param {
                default: Some(expr(cx, value)),
                range: node.range,
                ..param
            })
        }
        (false, Kind::Splat, [inner]) => {
            let param = param(cx, inner)?;
            if param.default.is_some() || param.name.is_none() {
                return unsupported(cx, node, "this form of varargs");
            }
            Some(Param {
                varargs: true,
                range: node.range,
                ..param
            })
        }
        (false, Kind::Tuple, _) => Some(destructuring(cx, node, node, None)),
        (false, Kind::Decl, [tuple, ty]) if !tuple.leaf && tuple.kind == Kind::Tuple => {
            let ty = type_expr(cx, ty)?;
            Some(destructuring(cx, node, tuple, Some(ty)))
        }
        // `f((x))` is `f(x)`: the parentheses only group.
        (false, Kind::Parens, [inner]) => param(cx, inner),
        // `@nospecialize(x)`, `@specialize(x)`: hints to the compiler, the parameter as it is.
        (false, Kind::MacroCall, [name, inner])
            if matches!(cx.text(name), "@nospecialize" | "@specialize") =>
        {
            param(cx, inner)
        }
        (false, Kind::Var, _) => Some(Param {
            name: Some(literals::var_name(cx, node)?),
            ty: None,
            default: None,
            varargs: false,
            range: node.range,
        }),
        _ => {
            cx.syntax(node, "syntax error: invalid parameter");
            None
        }
    }
}

/// A destructuring parameter `(a, b)` (or `(a, b)::T`) at `node`: a parameter without a name
/// yet, and its tuple recorded for [`destructure`].
fn destructuring(
    cx: &mut Cx,
    node: &SyntaxNode,
    tuple: &SyntaxNode,
    ty: Option<TypeExpr>,
) -> Param {
    let target = expr(cx, tuple);
    cx.destructured.insert(node.range.start, target);
    Param {
        name: None,
        ty,
        default: None,
        varargs: false,
        range: node.range,
    }
}

/// Julia's lowering of destructuring parameters: `f((a, b), c) = body` takes an argument
/// `#arg1` and begins with `local (a, b) = #arg1`, so the names are the function's own locals
/// (a closure's do not rebind the enclosing function's variables of the same names).
pub(crate) fn destructure(cx: &mut Cx, params: &mut [Param], body: &mut Vec<Expr>) {
    let mut bindings = Vec::new();
    for (k, p) in params.iter_mut().enumerate() {
        let Some(target) = cx.destructured.remove(&p.range.start) else {
            continue;
        };
        let mut names = Vec::new();
        bound_names(&target, &mut names);
        bindings.push(Expr::new(ExprKind::Local(names), p.range));
        let name = format!("#arg{}", k + 1);
        let value = Expr::new(ExprKind::Ident(name.clone()), p.range);
        let assign = ExprKind::Assign {
            lhs: Box::new(target),
            rhs: Box::new(value),
        };
        bindings.push(Expr::new(assign, p.range));
        p.name = Some(name);
    }
    body.splice(0..0, bindings);
}

/// The names a destructuring target binds (`(a, (b, c))`, `(a, rest...)`).
fn bound_names(target: &Expr, names: &mut Vec<String>) {
    match &target.kind {
        ExprKind::Ident(n) => names.push(n.clone()),
        ExprKind::Tuple(items) => items.iter().for_each(|e| bound_names(e, names)),
        ExprKind::Splat(inner) => bound_names(inner, names),
        _ => {}
    }
}

/// The longest `NTuple{n, T}` written out as `Tuple{T, ..., T}`.
const NTUPLE_MAX: usize = 64;

/// `NTuple{n, T}` with a literal `n`: Julia's alias of `Tuple{T, ..., T}` (`n` times).
fn ntuple_type(cx: &mut Cx, node: &SyntaxNode, params: &[SyntaxNode]) -> Option<TypeExpr> {
    let [n, elem] = params else {
        return unsupported(cx, node, "`NTuple` without two parameters `NTuple{n, T}`");
    };
    let count = (n.leaf && n.kind == Kind::Integer)
        .then(|| cx.text(n).replace('_', "").parse::<usize>().ok())
        .flatten()
        .filter(|&k| k <= NTUPLE_MAX);
    let Some(count) = count else {
        return unsupported(
            cx,
            node,
            "`NTuple{N, T}` with a length that is not a literal (a tuple's length is part of its \
             type); write the length `NTuple{3, Float64}`, or `Tuple` for a tuple of any length",
        );
    };
    let elem = type_expr(cx, elem)?;
    Some(TypeExpr::Named {
        name: if count == 0 {
            EMPTY_TUPLE.to_string()
        } else {
            "Tuple".to_string()
        },
        params: vec![elem; count],
        range: node.range,
    })
}

/// `NamedTuple{(:a, :b)}` or `NamedTuple{(:a, :b), Tuple{A, B}}`: the names as one parameter
/// written as Julia prints the tuple (`(:a, :b)`, `(:a,)`), then the tuple type if given.
fn named_tuple_type(
    cx: &mut Cx,
    node: &SyntaxNode,
    names: &SyntaxNode,
    types: Option<&SyntaxNode>,
) -> Option<TypeExpr> {
    let symbols: Option<Vec<String>> = match (names.leaf, names.kind) {
        (false, Kind::Tuple) => names.children.iter().map(|n| value_param(cx, n)).collect(),
        _ => None,
    };
    let Some(symbols) = symbols.filter(|s| s.iter().all(|v| v.starts_with(':'))) else {
        return unsupported(
            cx,
            node,
            "`NamedTuple{names}` whose names are not a tuple of symbols `(:a, :b)`",
        );
    };
    let text = match symbols.as_slice() {
        [one] => format!("({one},)"),
        all => format!("({})", all.join(", ")),
    };
    let mut params = vec![TypeExpr::Named {
        name: text,
        params: Vec::new(),
        range: names.range,
    }];
    if let Some(types) = types {
        params.push(type_expr(cx, types)?);
    }
    Some(TypeExpr::Named {
        name: "NamedTuple".to_string(),
        params,
        range: node.range,
    })
}

/// A type as written after `::` or in a struct field.
pub(crate) fn type_expr(cx: &mut Cx, node: &SyntaxNode) -> Option<TypeExpr> {
    if !cx.enter(node) {
        return None;
    }
    let ty = type_expr_inner(cx, node);
    cx.leave();
    ty
}

/// The text of a value as a type parameter (`3`, `true`, `:a`), as Julia prints it in a type,
/// if `node` is one.
pub(crate) fn value_param(cx: &Cx, node: &SyntaxNode) -> Option<String> {
    match (node.leaf, node.kind, node.children.as_slice()) {
        (true, Kind::Integer | Kind::Bool, _) => Some(cx.text(node).to_string()),
        (false, Kind::Quote, [name]) if name.leaf && name.kind == Kind::Identifier => {
            Some(format!(":{}", cx.text(name)))
        }
        _ => None,
    }
}

fn type_expr_inner(cx: &mut Cx, node: &SyntaxNode) -> Option<TypeExpr> {
    match (node.leaf, node.kind, node.children.as_slice()) {
        (true, Kind::Identifier, _) => Some(TypeExpr::Named {
            name: cx.text(node).to_string(),
            params: Vec::new(),
            range: node.range,
        }),
        (false, Kind::Curly, [base, params @ ..])
            if dotted_name(cx, base).is_some_and(|n| n == "NTuple") =>
        {
            ntuple_type(cx, node, params)
        }
        (false, Kind::Curly, [base, names, types @ ..])
            if dotted_name(cx, base).is_some_and(|n| n == "NamedTuple") && types.len() <= 1 =>
        {
            named_tuple_type(cx, node, names, types.first())
        }
        (false, Kind::Curly, [base, params @ ..]) if dotted_name(cx, base).is_some() => {
            let mut out = Vec::new();
            for param in params {
                // `Array{T, 2}`, `AbstractArray{Float64, 1}`: a number of dimensions; `Val{3}`,
                // `Val{true}`, `Val{:a}`: a value as a parameter.
                if let Some(name) = value_param(cx, param) {
                    out.push(TypeExpr::Named {
                        name,
                        params: Vec::new(),
                        range: param.range,
                    });
                    continue;
                }
                out.push(type_expr(cx, param)?);
            }
            let name = match dotted_name(cx, base).unwrap_or_default() {
                tuple if params.is_empty() && tuple == "Tuple" => EMPTY_TUPLE.to_string(),
                union if params.is_empty() && union == "Union" => EMPTY_UNION.to_string(),
                name => name,
            };
            Some(TypeExpr::Named {
                name,
                params: out,
                range: node.range,
            })
        }
        (false, Kind::Call, [callee, args @ ..])
            if !node.is_infix() && callee.leaf && cx.text(callee) == "typeof" =>
        {
            match args {
                [name] if name.leaf && name.kind == Kind::Identifier => Some(TypeExpr::Typeof {
                    name: cx.text(name).to_string(),
                    range: node.range,
                }),
                _ => unsupported(cx, node, "`typeof` of anything but a name"),
            }
        }
        (false, Kind::Subtype, [bound]) => Some(TypeExpr::Named {
            name: SUBTYPE_PARAM.to_string(),
            params: vec![type_expr(cx, bound)?],
            range: node.range,
        }),
        (false, Kind::Subtype | Kind::Supertype, _) => unsupported(cx, node, "type bounds"),
        (false, Kind::Dot, _) => match dotted_name(cx, node) {
            Some(name) => Some(TypeExpr::Named {
                name,
                params: Vec::new(),
                range: node.range,
            }),
            None => unsupported(cx, node, "qualified type name"),
        },
        // `Array{T, 3}`: a dimension count, which inference reads as the name `3`.
        (true, Kind::Integer, _) => Some(TypeExpr::Named {
            name: cx.text(node).to_string(),
            params: Vec::new(),
            range: node.range,
        }),
        (true, Kind::Float | Kind::Bool, _) => unsupported(cx, node, "value as a type parameter"),
        // `::MIME"text/plain"` of a `show` method (`output::text_plain_show` removes it).
        _ if cx.text(node) == crate::output::TEXT_PLAIN => Some(TypeExpr::Named {
            name: crate::output::TEXT_PLAIN.to_string(),
            params: Vec::new(),
            range: node.range,
        }),
        _ => {
            let text = cx.text(node).to_string();
            unsupported(cx, node, &format!("type expression `{text}`"))
        }
    }
}

/// `struct Name{T} field::T ... end` or `mutable struct ...`. With `defaults` (a `@kwdef`
/// struct) a field may be `a = default` or `a::T = default`; each field's default is pushed
/// there, `None` for a field without one.
pub(crate) fn struct_definition(
    cx: &mut Cx,
    node: &SyntaxNode,
    mut defaults: Option<&mut Vec<Option<Expr>>>,
) -> Option<StructDef> {
    let mutable = node.has_flag(flags::MUTABLE);
    let [head, body] = node.children.as_slice() else {
        return None;
    };
    let (name_node, params, param_bounds, supertype) = type_head(cx, head)?;
    let mut fields = Vec::new();
    let mut const_fields = Vec::new();
    let mut inner_constructors = false;
    // A field refused is not left out: the struct it belongs to is refused as a whole.
    let mut refused = false;
    for field in &body.children {
        let field = match (field.kind, field.children.as_slice()) {
            (Kind::Doc, [_, documented]) if !field.leaf => documented,
            _ => field,
        };
        // `const a::T`: every field of an immutable struct is constant already; in a mutable
        // one, a field that `s.a = v` may not assign (Julia 1.8).
        let (field, constant) = match (field.leaf, field.kind, field.children.as_slice()) {
            (false, Kind::Const, [declared]) => (declared, mutable),
            _ => (field, false),
        };
        if field.is_error() {
            continue;
        }
        let mut field = field;
        let mut default = None;
        if let (Some(_), false, Kind::Assign, [lhs, value]) =
            (&defaults, field.leaf, field.kind, field.children.as_slice())
        {
            if lhs.kind == Kind::Identifier || lhs.kind == Kind::Decl {
                default = Some(expr(cx, value));
                field = lhs;
            }
        }
        let before = fields.len();
        match (field.leaf, field.kind, field.children.as_slice()) {
            (true, Kind::Identifier, _) => fields.push(FieldDef {
                name: cx.text(field).to_string(),
                ty: None,
                range: field.range,
            }),
            (false, Kind::Decl, [name, ty])
                if field.is_infix() && name.leaf && name.kind == Kind::Identifier =>
            {
                match type_expr(cx, ty) {
                    Some(ty) => fields.push(FieldDef {
                        name: cx.text(name).to_string(),
                        ty: Some(ty),
                        range: field.range,
                    }),
                    None => refused = true,
                }
            }
            (false, Kind::Assign, [lhs, _])
                if matches!(lhs.kind, Kind::Identifier | Kind::Decl) =>
            {
                cx.unsupported(
                    field,
                    "field default outside a `@kwdef` struct; write `Base.@kwdef struct` instead",
                );
                refused = true;
            }
            (false, Kind::Function | Kind::Assign, _) => {
                inner_constructor(cx, field, cx.text(name_node), &params, defaults.is_some());
                inner_constructors = true;
            }
            _ if field.has_error() => {}
            _ => {
                cx.unsupported(field, "statement in a struct body");
                refused = true;
            }
        }
        if let (Some(declared), true) = (fields.get(before), constant) {
            const_fields.push(declared.name.clone());
        }
        if let Some(defaults) = defaults.as_deref_mut() {
            if fields.len() > before {
                defaults.push(default);
            }
        }
    }
    if refused {
        cx.constructors.clear();
        return None;
    }
    Some(StructDef {
        name: cx.text(name_node).to_string(),
        name_range: name_node.range,
        params,
        param_bounds,
        supertype,
        fields,
        const_fields,
        mutable,
        is_abstract: false,
        inner_constructors,
        alias: None,
        range: node.range,
    })
}

/// An inner constructor of struct `name` (with type parameters `params`): a method of `name`
/// whose `new(...)` or `new{T}(...)` builds the value ([`NEW`]), kept in `cx.constructors`
/// until the struct is emitted.
fn inner_constructor(cx: &mut Cx, node: &SyntaxNode, name: &str, params: &[String], kwdef: bool) {
    if kwdef {
        cx.unsupported(
            node,
            "inner constructor in a `@kwdef` struct; define an outer constructor instead",
        );
        return;
    }
    let outer = cx.new_of.replace((name.to_string(), params.to_vec()));
    let def = function_definition(cx, node);
    cx.new_of = outer;
    let Some(def) = def else {
        return;
    };
    match &def.name {
        FunctionName::Named(n) if *n == name || *n == curly_name(name) => cx.constructors.push(def),
        _ => {
            let range = def.name_range;
            cx.unsupported_at(
                range,
                &format!("a method of another function inside struct `{name}`; define it after the struct"),
            );
        }
    }
}

/// A type's head in `struct` and `abstract type`: `Name`, `Name{T, S<:Real}`, either with
/// `<: Super`; the name, its parameters, their bounds and the supertype.
pub(crate) type TypeHead<'n> = (
    &'n SyntaxNode,
    Vec<String>,
    Vec<(String, TypeExpr)>,
    Option<TypeExpr>,
);

pub(crate) fn type_head<'n>(cx: &mut Cx, head: &'n SyntaxNode) -> Option<TypeHead<'n>> {
    let (head, supertype) = match (head.leaf, head.kind, head.children.as_slice()) {
        // `S{T} <: Super where {T}`: the `where` binds the struct's own parameters again.
        (false, Kind::Subtype, [sub, sup]) => match (sup.leaf, sup.kind, sup.children.as_slice()) {
            (false, Kind::Where, [sup, _, ..]) => (sub, Some(supertype(cx, sup)?)),
            _ => (sub, Some(supertype(cx, sup)?)),
        },
        _ => (head, None),
    };
    match (head.leaf, head.kind, head.children.as_slice()) {
        (true, Kind::Identifier, _) => Some((head, Vec::new(), Vec::new(), supertype)),
        (false, Kind::Curly, [name, vars @ ..]) if name.leaf && name.kind == Kind::Identifier => {
            let (mut params, mut bounds) = (Vec::new(), Vec::new());
            for var in vars {
                for (param, bound) in where_params(cx, var)? {
                    if let Some(bound) = bound {
                        bounds.push((param.clone(), bound));
                    }
                    params.push(param);
                }
            }
            Some((name, params, bounds, supertype))
        }
        _ => unsupported(cx, head, "type name"),
    }
}

/// The supertype of a struct or abstract type: one of the program's abstract types (a
/// parametric one with its parameters, `Shape{T}`), `Any`,
/// `Exception` (an exception type of the program's own), Julia's `Number`, `Real` or
/// `AbstractFloat`, `Integer` or `Signed` (a number type of the program's own, `Base.Real`
/// read as `Real`), `Function` (a callable struct), or an abstract array type with its
/// parameters (`AbstractVector{Float64}`) or `AbstractSet{T}`. Julia's other abstract types (`Unsigned`,
/// `AbstractString`) are refused: a struct subtyping them would have to implement their interfaces.
fn supertype(cx: &mut Cx, node: &SyntaxNode) -> Option<TypeExpr> {
    let mut ty = type_expr(cx, node)?;
    if let TypeExpr::Named { name, params, .. } = &mut ty {
        let known = |n: &&str| {
            USER_SUPERTYPES.contains(n) || USER_ARRAY_SUPERTYPES.contains(n) || *n == "AbstractSet"
        };
        if let Some(n) = name.strip_prefix("Base.").filter(known) {
            *name = n.to_string();
        }
        if params.is_empty() && USER_SUPERTYPES.contains(&name.as_str()) {
            return Some(ty);
        }
        // `AbstractVector{T}`, `AbstractMatrix{Float64}`, `AbstractArray{T, 3}`: an array type
        // of the program (its `size` and `getindex` methods make it one).
        // `AbstractSet{T}`: a set type of the program (its `iterate`, `length` and `in`
        // methods make it one).
        let arity = match name.as_str() {
            "AbstractArray" => 2,
            "AbstractVector" | "AbstractMatrix" | "AbstractSet" => 1,
            _ => 0,
        };
        // A bare `AbstractVector`, `AbstractMatrix` or `AbstractSet` is Julia's
        // `AbstractVector{T} where T`: elements of any type (its `eltype` is `Any`).
        if arity > 0 && (params.len() == arity || (arity == 1 && params.is_empty())) {
            return Some(ty);
        }
    }
    match &ty {
        TypeExpr::Named { name, params, .. } if name == "AbstractArray" && params.is_empty() => {
            unsupported(
                cx,
                node,
                "a type subtyping Julia's `AbstractArray` without parameters; write \
             `AbstractArray{T, N}` with its number of dimensions instead",
            )
        }
        TypeExpr::Named { name, params, .. }
            if !params.is_empty() && USER_SUPERTYPES.contains(&name.as_str()) =>
        {
            let message =
                format!("`{name}` with type parameters as a supertype; write `<: {name}`");
            unsupported(cx, node, &message)
        }
        TypeExpr::Named { name, .. } if BUILTIN_ABSTRACT.contains(&name.as_str()) => {
            let message = format!(
                "a type subtyping Julia's `{name}` (zy's structs may subtype the program's own \
                 abstract types, `Number`, `Real`, `AbstractFloat`, `Integer`, `Signed`, `Function`, \
                 `AbstractVector{{T}}`, `AbstractMatrix{{T}}`, `AbstractArray{{T, N}}` and `AbstractSet{{T}}`)"
            );
            unsupported(cx, node, &message)
        }
        _ => Some(ty),
    }
}

/// Julia's abstract types that a type of the program may subtype.
const USER_SUPERTYPES: &[&str] = &[
    "Number",
    "Real",
    "AbstractFloat",
    "Integer",
    "Signed",
    "Function",
];

/// Julia's abstract array types that a struct of the program may subtype, with their
/// parameters written out (`AbstractVector{Float64}`, `AbstractArray{T, 2}`).
const USER_ARRAY_SUPERTYPES: &[&str] = &["AbstractArray", "AbstractVector", "AbstractMatrix"];

/// Julia's abstract types that zy does not let a user type subtype.
const BUILTIN_ABSTRACT: &[&str] = &[
    "Unsigned",
    "AbstractIrrational",
    "AbstractArray",
    "AbstractVector",
    "AbstractMatrix",
    "DenseArray",
    "AbstractRange",
    "AbstractString",
    "AbstractDict",
    "Base.AbstractArray",
];

/// `abstract type Name end` or `abstract type Name <: Super end`: a type for dispatch only.
fn abstract_definition(cx: &mut Cx, node: &SyntaxNode) -> Option<StructDef> {
    let head = node.children.first()?;
    let (name_node, params, param_bounds, supertype) = type_head(cx, head)?;
    Some(StructDef {
        name: cx.text(name_node).to_string(),
        name_range: name_node.range,
        params,
        param_bounds,
        supertype,
        fields: Vec::new(),
        mutable: false,
        is_abstract: true,
        inner_constructors: false,
        const_fields: Vec::new(),
        alias: None,
        range: node.range,
    })
}

/// An arrow function `x -> body`, `(x, y) -> body`, `x::T -> body`.
pub(crate) fn arrow_function(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let [head, body] = node.children.as_slice() else {
        return error_expr(node);
    };
    if is_where(head) {
        return cx.unsupported(head, ANONYMOUS_WHERE);
    }
    let mut params = params_of_tuple(cx, head);
    let mut body = vec![expr(cx, body)];
    destructure(cx, &mut params.positional, &mut body);
    let mut e = anonymous(node.range, head.range, params.positional, body);
    if let ExprKind::Function(def) = &mut e.kind {
        def.keywords = params.keywords;
        def.keyword_rest = params.rest;
    }
    e
}

/// Is `node` a `where` clause, perhaps in parentheses (`((x::T) where T) -> x`)?
fn is_where(node: &SyntaxNode) -> bool {
    match (node.leaf, node.kind, node.children.as_slice()) {
        (false, Kind::Where, _) => true,
        (false, Kind::Parens, [inner]) => is_where(inner),
        _ => false,
    }
}

/// An anonymous function expression over `node`.
pub(crate) fn anonymous(
    range: TextRange,
    name_range: TextRange,
    params: Vec<Param>,
    body: Vec<Expr>,
) -> Expr {
    let def = FunctionDef {
        name: FunctionName::Anonymous,
        name_range,
        params,
        keywords: Vec::new(),
        keyword_rest: None,
        where_params: Vec::new(),
        return_type: None,
        body,
        range,
        annotations: Vec::new(),
    };
    Expr::new(ExprKind::Function(Box::new(def)), range)
}
