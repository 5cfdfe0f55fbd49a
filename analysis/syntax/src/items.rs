//! Definitions: top-level items, methods (long form, short form, callable structs, anonymous),
//! parameters, type expressions, structs and globals.

use crate::annotations;
use crate::ast::{
    Expr, ExprKind, FieldDef, FunctionDef, FunctionName, GlobalDef, IncludeDef, Item, Param,
    StructDef, TextRange, TypeExpr,
};
use crate::cx::{error_expr, Cx};
use crate::expr::{block_of, expr, is_operator_name};
use crate::kind::Kind;
use crate::parser::stream::flags;
use crate::tree::SyntaxNode;

/// The items of a file: the statements of its toplevel node (`a; b` lines are nested
/// toplevel nodes).
pub(crate) fn items(cx: &mut Cx, toplevel: &SyntaxNode, out: &mut Vec<Item>) {
    for node in &toplevel.children {
        if node.kind == Kind::Toplevel && !node.leaf {
            items(cx, node, out);
        } else if let Some(item) = item(cx, node) {
            out.push(item);
        }
    }
}

/// One top-level statement.
fn item(cx: &mut Cx, node: &SyntaxNode) -> Option<Item> {
    if node.is_error() {
        return None;
    }
    if node.leaf {
        return unsupported(cx, node, TOP_LEVEL);
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
        Kind::Function => function_definition(cx, node).map(Item::Function),
        Kind::Struct => struct_definition(cx, node).map(Item::Struct),
        Kind::Const => {
            let [assignment] = node.children.as_slice() else {
                return unsupported(cx, node, "const declaration");
            };
            if assignment.kind != Kind::Assign || assignment.leaf {
                return unsupported(cx, node, "const declaration");
            }
            global(cx, node, assignment, true).map(Item::Global)
        }
        Kind::Assign => global(cx, node, node, false).map(Item::Global),
        Kind::Module => unsupported(cx, node, "module"),
        Kind::Abstract => unsupported(cx, node, "abstract type"),
        Kind::Primitive => unsupported(cx, node, "primitive type"),
        Kind::Macro => unsupported(cx, node, "macro definition"),
        Kind::Import => unsupported(cx, node, "import"),
        Kind::Using => unsupported(cx, node, "using"),
        Kind::Export | Kind::Public => unsupported(cx, node, "export"),
        Kind::MacroCall => {
            expr(cx, node);
            None
        }
        Kind::Call if is_include(cx, node) => include(cx, node).map(Item::Include),
        _ if node.has_error() => None,
        _ => unsupported(cx, node, TOP_LEVEL),
    }
}

/// Is `node` a call of `include`?
fn is_include(cx: &Cx, node: &SyntaxNode) -> bool {
    !node.is_infix()
        && !node.is_prefix()
        && node
            .children
            .first()
            .is_some_and(|callee| callee.kind == Kind::Identifier && cx.text(callee) == "include")
}

/// `include("path")`: the path must be a plain string literal.
fn include(cx: &mut Cx, node: &SyntaxNode) -> Option<IncludeDef> {
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

const TOP_LEVEL: &str = "top-level statement (only definitions are allowed at top level)";

fn unsupported<T>(cx: &mut Cx, node: &SyntaxNode, what: &str) -> Option<T> {
    cx.unsupported(node, what);
    None
}

/// `const N = 3` or `sq = x -> x^2` at top level.
fn global(
    cx: &mut Cx,
    whole: &SyntaxNode,
    assignment: &SyntaxNode,
    is_const: bool,
) -> Option<GlobalDef> {
    let [lhs, rhs] = assignment.children.as_slice() else {
        return None;
    };
    if !(lhs.leaf && lhs.kind == Kind::Identifier) {
        if assignment.has_error() {
            return None;
        }
        return unsupported(cx, lhs, "global binding of anything but a name");
    }
    let value = expr(cx, rhs);
    Some(GlobalDef {
        name: cx.text(lhs).to_string(),
        name_range: lhs.range,
        value,
        is_const,
        range: whole.range,
    })
}

/// A method's name, parameters and `where` variables.
struct Signature {
    name: FunctionName,
    name_range: TextRange,
    params: Vec<Param>,
    where_params: Vec<String>,
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
    let sig = match (sig_node.leaf, sig_node.kind) {
        (false, Kind::Tuple) => Signature {
            name: FunctionName::Anonymous,
            name_range: sig_node.range,
            params: params_of_tuple(cx, sig_node),
            where_params: Vec::new(),
        },
        _ => signature(cx, sig_node)?,
    };
    let body = if short {
        vec![expr(cx, body_node)]
    } else {
        block_of(cx, body_node)
    };
    Some(method(cx, node, sig, body))
}

fn method(cx: &mut Cx, node: &SyntaxNode, sig: Signature, body: Vec<Expr>) -> FunctionDef {
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
        params: sig.params,
        where_params: sig.where_params,
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
        (false, Kind::Decl) if node.is_infix() => unsupported(cx, node, "return type annotation"),
        (false, Kind::Call) if !node.is_infix() && !node.is_prefix() && !node.is_postfix() => {
            let (callee, args) = node.children.split_first()?;
            if args.iter().any(|a| a.kind == Kind::Do) {
                return unsupported(cx, node, "`do` block in a method signature");
            }
            let name = method_name(cx, callee)?;
            Some(Signature {
                name,
                name_range: callee.range,
                params: params(cx, args),
                where_params: Vec::new(),
            })
        }
        (false, Kind::Call) if node.is_infix() => {
            // `a + b = ...` defines the operator `+`.
            let op = node.children.get(1)?;
            let text = cx.text(op);
            unsupported(cx, op, &format!("method definition for operator `{text}`"))
        }
        _ => {
            cx.syntax(node, "syntax error: invalid method signature");
            None
        }
    }
}

/// The callee of a method signature: a name or `(d::Dense)` / `(::Dense)`.
fn method_name(cx: &mut Cx, callee: &SyntaxNode) -> Option<FunctionName> {
    match (callee.leaf, callee.kind) {
        (true, Kind::Identifier) => {
            let text = cx.text(callee);
            if is_operator_name(text) {
                return unsupported(
                    cx,
                    callee,
                    &format!("method definition for operator `{text}`"),
                );
            }
            Some(FunctionName::Named(text.to_string()))
        }
        (false, Kind::Parens) => {
            let [typed] = callee.children.as_slice() else {
                return unsupported(cx, callee, "method name");
            };
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
        (false, Kind::Dot) => unsupported(cx, callee, "qualified method name"),
        (false, Kind::Curly) => unsupported(cx, callee, "constructor definition"),
        _ => unsupported(cx, callee, "method name"),
    }
}

/// `where T`, `where {T, S}`.
fn where_params(cx: &mut Cx, node: &SyntaxNode) -> Option<Vec<String>> {
    let names: &[SyntaxNode] = match (node.leaf, node.kind) {
        (false, Kind::Braces) => &node.children,
        _ => std::slice::from_ref(node),
    };
    let mut out = Vec::new();
    for name in names {
        match (name.leaf, name.kind) {
            (true, Kind::Identifier) => out.push(cx.text(name).to_string()),
            (false, Kind::Subtype | Kind::Supertype) => {
                return unsupported(cx, name, "type bounds in `where`")
            }
            _ => return unsupported(cx, name, "`where` clause"),
        }
    }
    Some(out)
}

/// The parameters of a signature: positional ones, then keyword ones after `;`.
pub(crate) fn params(cx: &mut Cx, args: &[SyntaxNode]) -> Vec<Param> {
    let mut out = Vec::new();
    for arg in args {
        if arg.kind == Kind::Parameters && !arg.leaf {
            for keyword in &arg.children {
                cx.unsupported(keyword, "keyword arguments");
            }
            continue;
        }
        if let Some(param) = param(cx, arg) {
            out.push(param);
        }
    }
    out
}

/// The parameters of a `(tuple ...)`: an anonymous function's or a `do` block's.
pub(crate) fn params_of_tuple(cx: &mut Cx, node: &SyntaxNode) -> Vec<Param> {
    match (node.leaf, node.kind) {
        (false, Kind::Tuple) => params(cx, &node.children),
        _ => param(cx, node).into_iter().collect(),
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
            range: node.range,
        }),
        (false, Kind::Decl, [name, ty]) if name.leaf && name.kind == Kind::Identifier => {
            let ty = type_expr(cx, ty)?;
            Some(Param {
                name: Some(cx.text(name).to_string()),
                ty: Some(ty),
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
                range: node.range,
            })
        }
        (false, Kind::Assign, _) => unsupported(cx, node, "default argument values"),
        (false, Kind::Splat, _) => unsupported(cx, node, "varargs"),
        (false, Kind::Tuple | Kind::Parens, _) => unsupported(cx, node, "destructuring arguments"),
        _ => {
            cx.syntax(node, "syntax error: invalid parameter");
            None
        }
    }
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

fn type_expr_inner(cx: &mut Cx, node: &SyntaxNode) -> Option<TypeExpr> {
    match (node.leaf, node.kind, node.children.as_slice()) {
        (true, Kind::Identifier, _) => Some(TypeExpr::Named {
            name: cx.text(node).to_string(),
            params: Vec::new(),
            range: node.range,
        }),
        (false, Kind::Curly, [base, params @ ..]) if base.leaf && base.kind == Kind::Identifier => {
            let mut out = Vec::new();
            for param in params {
                out.push(type_expr(cx, param)?);
            }
            Some(TypeExpr::Named {
                name: cx.text(base).to_string(),
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
        (false, Kind::Subtype | Kind::Supertype, _) => unsupported(cx, node, "type bounds"),
        (false, Kind::Dot, _) => unsupported(cx, node, "qualified type name"),
        (true, Kind::Integer | Kind::Float | Kind::Bool, _) => {
            unsupported(cx, node, "value as a type parameter")
        }
        _ => {
            let text = cx.text(node).to_string();
            unsupported(cx, node, &format!("type expression `{text}`"))
        }
    }
}

/// `struct Name{T} field::T ... end` or `mutable struct ...`.
fn struct_definition(cx: &mut Cx, node: &SyntaxNode) -> Option<StructDef> {
    let mutable = node.has_flag(flags::MUTABLE);
    let [head, body] = node.children.as_slice() else {
        return None;
    };
    let mut head = head;
    if head.kind == Kind::Subtype && !head.leaf {
        cx.unsupported(head, "struct supertype");
        head = head.children.first()?;
    }
    let (name_node, params) = match (head.leaf, head.kind, head.children.as_slice()) {
        (true, Kind::Identifier, _) => (head, Vec::new()),
        (false, Kind::Curly, [name, vars @ ..]) if name.leaf && name.kind == Kind::Identifier => {
            let mut params = Vec::new();
            for var in vars {
                params.extend(where_params(cx, var)?);
            }
            (name, params)
        }
        _ => return unsupported(cx, head, "struct name"),
    };
    let mut fields = Vec::new();
    for field in &body.children {
        let field = match (field.kind, field.children.as_slice()) {
            (Kind::Doc, [_, documented]) if !field.leaf => documented,
            _ => field,
        };
        if field.is_error() {
            continue;
        }
        match (field.leaf, field.kind, field.children.as_slice()) {
            (true, Kind::Identifier, _) => fields.push(FieldDef {
                name: cx.text(field).to_string(),
                ty: None,
                range: field.range,
            }),
            (false, Kind::Decl, [name, ty])
                if field.is_infix() && name.leaf && name.kind == Kind::Identifier =>
            {
                if let Some(ty) = type_expr(cx, ty) {
                    fields.push(FieldDef {
                        name: cx.text(name).to_string(),
                        ty: Some(ty),
                        range: field.range,
                    });
                }
            }
            (false, Kind::Function | Kind::Assign, _) => {
                cx.unsupported(field, "inner constructor");
            }
            (false, Kind::Const, _) => {
                cx.unsupported(field, "const field");
            }
            _ if field.has_error() => {}
            _ => {
                cx.unsupported(field, "statement in a struct body");
            }
        }
    }
    Some(StructDef {
        name: cx.text(name_node).to_string(),
        name_range: name_node.range,
        params,
        fields,
        mutable,
        range: node.range,
    })
}

/// An arrow function `x -> body`, `(x, y) -> body`, `x::T -> body`.
pub(crate) fn arrow_function(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let [head, body] = node.children.as_slice() else {
        return error_expr(node);
    };
    if head.kind == Kind::Where && !head.leaf {
        return cx.unsupported(head, "`where` in an anonymous function");
    }
    let params = params_of_tuple(cx, head);
    let body = vec![expr(cx, body)];
    anonymous(node, head.range, params, body)
}

/// An anonymous function expression over `node`.
pub(crate) fn anonymous(
    node: &SyntaxNode,
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
        range: node.range,
        annotations: Vec::new(),
    };
    Expr::new(ExprKind::Function(Box::new(def)), node.range)
}
