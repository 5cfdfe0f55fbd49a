//! Definitions: top-level items, methods (long form, short form, callable structs, anonymous),
//! parameters, type expressions, structs and globals.

use tree_sitter::Node;

use crate::annotations;
use crate::ast::{
    Expr, ExprKind, FieldDef, FunctionDef, FunctionName, GlobalDef, IncludeDef, Item, Param,
    StructDef, TextRange, TypeExpr,
};
use crate::cx::{all_kids, error_expr, kids, range, Cx};
use crate::expr::{block, expr};

/// The items of a file (or of an ERROR node at top level, where only definitions that start a
/// line are taken: the rest belongs to the construct that failed to parse).
pub(crate) fn items(cx: &mut Cx, parent: Node, out: &mut Vec<Item>, inside_error: bool) {
    let nodes = kids(parent);
    for (i, &node) in nodes.iter().enumerate() {
        if let Some(next) = nodes
            .get(i + 1)
            .filter(|next| is_docstring(node, Some(**next)))
        {
            cx.docstrings.insert(next.start_byte(), node.start_byte());
            continue;
        }
        if node.is_error() {
            if cx.enter(node) {
                items(cx, node, out, true);
                cx.leave();
            }
            continue;
        }
        if inside_error && !(is_definition(node) && starts_line(cx, node)) {
            continue;
        }
        if let Some(item) = item(cx, node) {
            out.push(item);
        }
    }
}

/// A string directly above a definition or a struct field documents it (Julia's docstrings).
fn is_docstring(node: Node, next: Option<Node>) -> bool {
    node.kind() == "string_literal"
        && next.is_some_and(|n| {
            (is_definition(n) || is_field(n))
                && n.start_position().row == node.end_position().row + 1
        })
}

fn is_definition(node: Node) -> bool {
    matches!(
        node.kind(),
        "function_definition" | "struct_definition" | "const_statement" | "assignment"
    )
}

/// A struct field (`x` or `x::T`).
fn is_field(node: Node) -> bool {
    matches!(node.kind(), "identifier" | "typed_expression")
}

/// Does `node` start at column 0?
fn starts_line(cx: &Cx, node: Node) -> bool {
    let start = node.start_byte();
    start == 0 || cx.src.as_bytes().get(start - 1) == Some(&b'\n')
}

/// One top-level statement.
fn item(cx: &mut Cx, node: Node) -> Option<Item> {
    match node.kind() {
        "function_definition" => function_definition(cx, node).map(Item::Function),
        "struct_definition" => struct_definition(cx, node).map(Item::Struct),
        "const_statement" => {
            let assignment = kids(node).into_iter().find(|k| k.kind() == "assignment")?;
            global(cx, node, assignment, true).map(Item::Global)
        }
        "assignment" => {
            let lhs = kids(node).first().copied()?;
            if is_method_signature(lhs) {
                short_function(cx, node).map(Item::Function)
            } else {
                global(cx, node, node, false).map(Item::Global)
            }
        }
        "module_definition" => unsupported(cx, node, "module"),
        "abstract_definition" => unsupported(cx, node, "abstract type"),
        "primitive_definition" => unsupported(cx, node, "primitive type"),
        "macro_definition" => unsupported(cx, node, "macro definition"),
        "import_statement" => unsupported(cx, node, "import"),
        "using_statement" => unsupported(cx, node, "using"),
        "export_statement" | "public_statement" => unsupported(cx, node, "export"),
        "macrocall_expression" => {
            expr(cx, node);
            None
        }
        "call_expression" if is_include(cx, node) => include(cx, node).map(Item::Include),
        _ => unsupported(
            cx,
            node,
            "top-level statement (only definitions are allowed at top level)",
        ),
    }
}

/// Is `node` a call of `include`?
fn is_include(cx: &Cx, node: Node) -> bool {
    kids(node)
        .first()
        .is_some_and(|callee| callee.kind() == "identifier" && cx.text(*callee) == "include")
}

/// `include("path")`: the path must be a plain string literal.
fn include(cx: &mut Cx, node: Node) -> Option<IncludeDef> {
    let call = expr(cx, node);
    let ExprKind::Call { args, .. } = &call.kind else {
        return None;
    };
    match args.as_slice() {
        [Expr {
            kind: ExprKind::Str(path),
            range,
        }] => Some(IncludeDef {
            path: path.clone(),
            path_range: *range,
            range: call.range,
        }),
        _ => unsupported(cx, node, "`include` of anything but one string literal"),
    }
}

fn unsupported<T>(cx: &mut Cx, node: Node, what: &str) -> Option<T> {
    cx.unsupported(node, what);
    None
}

/// Is the left side of an `=` a method signature (`f(x)`, `f(x) where T`, `f(x)::T`)?
pub(crate) fn is_method_signature(lhs: Node) -> bool {
    let mut node = lhs;
    while node.kind() == "where_expression" {
        match kids(node).first() {
            Some(inner) => node = *inner,
            None => return false,
        }
    }
    match node.kind() {
        "call_expression" => true,
        "typed_expression" => kids(node)
            .first()
            .is_some_and(|k| k.kind() == "call_expression"),
        _ => false,
    }
}

/// `const N = 3` or `sq = x -> x^2` at top level.
fn global(cx: &mut Cx, whole: Node, assignment: Node, is_const: bool) -> Option<GlobalDef> {
    let parts = kids(assignment);
    let [lhs, _op, rhs] = parts.as_slice() else {
        return None;
    };
    if lhs.kind() != "identifier" {
        return unsupported(cx, *lhs, "global binding of anything but a name");
    }
    let value = expr(cx, *rhs);
    Some(GlobalDef {
        name: cx.text(*lhs).to_string(),
        name_range: range(*lhs),
        value,
        is_const,
        range: range(whole),
    })
}

/// A method's name, parameters and `where` variables.
struct Signature {
    name: FunctionName,
    name_range: TextRange,
    params: Vec<Param>,
    where_params: Vec<String>,
}

/// `function SIGNATURE ... end` (named, callable-struct or anonymous).
pub(crate) fn function_definition(cx: &mut Cx, node: Node) -> Option<FunctionDef> {
    let parts = kids(node);
    let sig_index = parts.iter().position(|k| k.kind() == "signature")?;
    let sig_node = kids(parts[sig_index]).first().copied()?;
    if parts[sig_index].has_error() {
        return None;
    }
    let sig = match sig_node.kind() {
        "identifier" => return unsupported(cx, node, "function declaration without methods"),
        "argument_list" => Signature {
            name: FunctionName::Anonymous,
            name_range: range(sig_node),
            params: params(cx, sig_node),
            where_params: Vec::new(),
        },
        _ => signature(cx, sig_node)?,
    };
    let body = block(cx, &parts[sig_index + 1..]);
    Some(method(cx, node, sig, body))
}

/// `f(x) = body` (also `(d::Dense)(x) = ...`).
pub(crate) fn short_function(cx: &mut Cx, node: Node) -> Option<FunctionDef> {
    let parts = kids(node);
    let [lhs, _op, rhs] = parts.as_slice() else {
        return None;
    };
    let sig = signature(cx, *lhs)?;
    let body = vec![expr(cx, *rhs)];
    Some(method(cx, node, sig, body))
}

fn method(cx: &mut Cx, node: Node, sig: Signature, body: Vec<Expr>) -> FunctionDef {
    // Annotations sit above the docstring, if there is one.
    let start = node.start_byte();
    let start = cx.docstrings.get(&start).copied().unwrap_or(start);
    let annotations = match sig.name {
        FunctionName::Anonymous => Vec::new(),
        _ => annotations::above(cx, start),
    };
    FunctionDef {
        name: sig.name,
        name_range: sig.name_range,
        params: sig.params,
        where_params: sig.where_params,
        body,
        range: range(node),
        annotations,
    }
}

/// `f(args)`, `(d::Dense)(args)`, `SIG where T`, `SIG where {T, S}`.
fn signature(cx: &mut Cx, node: Node) -> Option<Signature> {
    if node.has_error() || !cx.enter(node) {
        return None;
    }
    let sig = signature_inner(cx, node);
    cx.leave();
    sig
}

fn signature_inner(cx: &mut Cx, node: Node) -> Option<Signature> {
    match node.kind() {
        "where_expression" => {
            let parts = kids(node);
            let [inner, vars] = parts.as_slice() else {
                return None;
            };
            let mut sig = signature(cx, *inner)?;
            sig.where_params.extend(where_params(cx, *vars)?);
            Some(sig)
        }
        "typed_expression" => unsupported(cx, node, "return type annotation"),
        "call_expression" => {
            let parts = kids(node);
            if parts.iter().any(|k| k.kind() == "do_clause") {
                return unsupported(cx, node, "`do` block in a method signature");
            }
            let [callee, args] = parts.as_slice() else {
                return None;
            };
            let name = method_name(cx, *callee)?;
            Some(Signature {
                name,
                name_range: range(*callee),
                params: params(cx, *args),
                where_params: Vec::new(),
            })
        }
        _ => {
            cx.syntax(node, "syntax error: invalid method signature");
            None
        }
    }
}

/// The callee of a method signature: a name or `(d::Dense)` / `(::Dense)`.
fn method_name(cx: &mut Cx, callee: Node) -> Option<FunctionName> {
    match callee.kind() {
        "identifier" => Some(FunctionName::Named(cx.text(callee).to_string())),
        "parenthesized_expression" => {
            let inner = kids(callee);
            let [typed] = inner.as_slice() else {
                return unsupported(cx, callee, "method name");
            };
            let parts = kids(*typed);
            match (typed.kind(), parts.as_slice()) {
                ("typed_expression", [name, ty]) if name.kind() == "identifier" => {
                    let ty = type_expr(cx, *ty)?;
                    Some(FunctionName::Callable {
                        self_name: Some(cx.text(*name).to_string()),
                        ty,
                    })
                }
                ("unary_typed_expression", [ty]) => {
                    let ty = type_expr(cx, *ty)?;
                    Some(FunctionName::Callable {
                        self_name: None,
                        ty,
                    })
                }
                _ => unsupported(cx, callee, "method name"),
            }
        }
        "field_expression" => unsupported(cx, callee, "qualified method name"),
        "operator" => unsupported(
            cx,
            callee,
            &format!("method definition for operator `{}`", cx.text(callee)),
        ),
        "parametrized_type_expression" => unsupported(cx, callee, "constructor definition"),
        _ => unsupported(cx, callee, "method name"),
    }
}

/// `where T` or `where {T, S}`.
fn where_params(cx: &mut Cx, node: Node) -> Option<Vec<String>> {
    let names = match node.kind() {
        "curly_expression" => kids(node),
        _ => vec![node],
    };
    let mut out = Vec::new();
    for name in names {
        match name.kind() {
            "identifier" => out.push(cx.text(name).to_string()),
            "binary_expression" => return unsupported(cx, name, "type bounds in `where`"),
            _ => return unsupported(cx, name, "`where` clause"),
        }
    }
    Some(out)
}

/// The parameters in an `argument_list` of a signature, a `do` block or an arrow function.
pub(crate) fn params(cx: &mut Cx, list: Node) -> Vec<Param> {
    let mut out = Vec::new();
    let mut keywords = false;
    for child in all_kids(list) {
        if !child.is_named() {
            keywords |= child.kind() == ";";
            continue;
        }
        if keywords {
            cx.unsupported(child, "keyword arguments");
            continue;
        }
        if let Some(param) = param(cx, child) {
            out.push(param);
        }
    }
    out
}

/// One parameter: `x`, `x::T`, `::T`.
pub(crate) fn param(cx: &mut Cx, node: Node) -> Option<Param> {
    let parts = kids(node);
    match (node.kind(), parts.as_slice()) {
        ("identifier", _) => Some(Param {
            name: Some(cx.text(node).to_string()),
            ty: None,
            range: range(node),
        }),
        ("typed_expression", [name, ty]) if name.kind() == "identifier" => {
            let ty = type_expr(cx, *ty)?;
            Some(Param {
                name: Some(cx.text(*name).to_string()),
                ty: Some(ty),
                range: range(node),
            })
        }
        ("typed_expression", [name, _]) if name.kind() == "splat_expression" => {
            unsupported(cx, node, "varargs")
        }
        ("unary_typed_expression", [ty]) => {
            let ty = type_expr(cx, *ty)?;
            Some(Param {
                name: None,
                ty: Some(ty),
                range: range(node),
            })
        }
        ("named_argument", _) => unsupported(cx, node, "default argument values"),
        ("splat_expression", _) => unsupported(cx, node, "varargs"),
        ("tuple_expression" | "parenthesized_expression", _) => {
            unsupported(cx, node, "destructuring arguments")
        }
        ("ERROR", _) => None,
        _ => {
            cx.syntax(node, "syntax error: invalid parameter");
            None
        }
    }
}

/// A type as written after `::` or in a struct field.
pub(crate) fn type_expr(cx: &mut Cx, node: Node) -> Option<TypeExpr> {
    if !cx.enter(node) {
        return None;
    }
    let ty = type_expr_inner(cx, node);
    cx.leave();
    ty
}

fn type_expr_inner(cx: &mut Cx, node: Node) -> Option<TypeExpr> {
    let parts = kids(node);
    match (node.kind(), parts.as_slice()) {
        ("identifier", _) => Some(TypeExpr::Named {
            name: cx.text(node).to_string(),
            params: Vec::new(),
            range: range(node),
        }),
        ("parametrized_type_expression", [base, curly]) if base.kind() == "identifier" => {
            let mut params = Vec::new();
            for param in kids(*curly) {
                params.push(type_expr(cx, param)?);
            }
            Some(TypeExpr::Named {
                name: cx.text(*base).to_string(),
                params,
                range: range(node),
            })
        }
        ("call_expression", [callee, args]) if cx.text(*callee) == "typeof" => {
            match kids(*args).as_slice() {
                [name] if name.kind() == "identifier" => Some(TypeExpr::Typeof {
                    name: cx.text(*name).to_string(),
                    range: range(node),
                }),
                _ => unsupported(cx, node, "`typeof` of anything but a name"),
            }
        }
        ("binary_expression", _) => unsupported(cx, node, "type bounds"),
        ("field_expression", _) => unsupported(cx, node, "qualified type name"),
        ("integer_literal" | "float_literal" | "boolean_literal", _) => {
            unsupported(cx, node, "value as a type parameter")
        }
        _ => unsupported(cx, node, &format!("type expression `{}`", cx.text(node))),
    }
}

/// `struct Name{T} field::T ... end` or `mutable struct ...`.
fn struct_definition(cx: &mut Cx, node: Node) -> Option<StructDef> {
    let mutable = all_kids(node).iter().any(|k| k.kind() == "mutable");
    let parts = kids(node);
    let head_index = parts.iter().position(|k| k.kind() == "type_head")?;
    let mut head = kids(parts[head_index]).first().copied()?;
    if head.kind() == "binary_expression" {
        cx.unsupported(head, "struct supertype");
        head = kids(head).first().copied()?;
    }
    let (name_node, params) = match head.kind() {
        "identifier" => (head, Vec::new()),
        "parametrized_type_expression" => {
            let head_parts = kids(head);
            let [name, curly] = head_parts.as_slice() else {
                return None;
            };
            (*name, where_params(cx, *curly)?)
        }
        _ => return unsupported(cx, head, "struct name"),
    };
    if name_node.kind() != "identifier" {
        return unsupported(cx, name_node, "struct name");
    }
    let mut fields = Vec::new();
    let body = &parts[head_index + 1..];
    for (i, field) in body.iter().enumerate() {
        if is_docstring(*field, body.get(i + 1).copied()) {
            continue;
        }
        let field_parts = kids(*field);
        match (field.kind(), field_parts.as_slice()) {
            ("identifier", _) => fields.push(FieldDef {
                name: cx.text(*field).to_string(),
                ty: None,
                range: range(*field),
            }),
            ("typed_expression", [name, ty]) if name.kind() == "identifier" => {
                if let Some(ty) = type_expr(cx, *ty) {
                    fields.push(FieldDef {
                        name: cx.text(*name).to_string(),
                        ty: Some(ty),
                        range: range(*field),
                    });
                }
            }
            ("function_definition", _) | ("assignment", _) => {
                cx.unsupported(*field, "inner constructor");
            }
            ("const_statement", _) => {
                cx.unsupported(*field, "const field");
            }
            ("ERROR", _) => {}
            _ => {
                cx.unsupported(*field, "statement in a struct body");
            }
        }
    }
    Some(StructDef {
        name: cx.text(name_node).to_string(),
        name_range: range(name_node),
        params,
        fields,
        mutable,
        range: range(node),
    })
}

/// An arrow function `x -> body`, `(x, y) -> body`, `x::T -> body`.
pub(crate) fn arrow_function(cx: &mut Cx, node: Node) -> Expr {
    let parts = kids(node);
    let [head, body] = parts.as_slice() else {
        return error_expr(node);
    };
    let params = match head.kind() {
        "argument_list" => params(cx, *head),
        _ => param(cx, *head).into_iter().collect(),
    };
    let body = vec![expr(cx, *body)];
    anonymous(node, range(*head), params, body)
}

/// An anonymous function expression over `node`.
pub(crate) fn anonymous(
    node: Node,
    name_range: TextRange,
    params: Vec<Param>,
    body: Vec<Expr>,
) -> Expr {
    let def = FunctionDef {
        name: FunctionName::Anonymous,
        name_range,
        params,
        where_params: Vec::new(),
        body,
        range: range(node),
        annotations: Vec::new(),
    };
    Expr::new(crate::ast::ExprKind::Function(Box::new(def)), range(node))
}
