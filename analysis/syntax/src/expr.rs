//! Expressions and statements (in Julia they are one thing).

use tree_sitter::Node;

use crate::arrays;
use crate::ast::{BinOp, Expr, ExprKind, TextRange, UnOp};
use crate::cx::{all_kids, error_expr, kids, range, Cx};
use crate::items::{
    anonymous, arrow_function, function_definition, is_method_signature, params, short_function,
};
use crate::literals;
use crate::operators::{self, compound_op};

/// Converts one expression or statement node. A node with a syntax error inside (already
/// reported by the error pass) becomes [`ExprKind::Error`], except for statement containers.
pub(crate) fn expr(cx: &mut Cx, node: Node) -> Expr {
    if node.is_error() || node.is_missing() {
        return error_expr(node);
    }
    if !cx.enter(node) {
        return error_expr(node);
    }
    let result = if node.has_error() && !is_container(node) {
        error_expr(node)
    } else {
        convert(cx, node)
    };
    cx.leave();
    result
}

/// Nodes whose children are statements: an ERROR child is one broken statement among others.
fn is_container(node: Node) -> bool {
    matches!(
        node.kind(),
        "function_definition"
            | "compound_statement"
            | "if_statement"
            | "elseif_clause"
            | "else_clause"
            | "for_statement"
            | "while_statement"
    )
}

/// Converts a sequence of statements.
pub(crate) fn block(cx: &mut Cx, nodes: &[Node]) -> Vec<Expr> {
    nodes.iter().map(|n| expr(cx, *n)).collect()
}

/// Converts the node of one syntactic kind.
type Handler = fn(&mut Cx, Node, &[Node]) -> Expr;

/// Dispatches on the node kind. Each kind has its own function, so that this frame, which is on
/// the stack once per nesting level, stays small even in debug builds.
fn convert(cx: &mut Cx, node: Node) -> Expr {
    let kind = node.kind();
    if let Some(what) = outside_subset(kind) {
        return cx.unsupported(node, what);
    }
    let handler: Handler = match kind {
        "identifier" => identifier,
        "boolean_literal" => |cx, n, _| Expr::new(ExprKind::Bool(cx.text(n) == "true"), range(n)),
        "integer_literal" => |cx, n, _| literals::integer(cx, n),
        "float_literal" => |cx, n, _| literals::float(cx, n),
        "string_literal" => |cx, n, _| literals::string(cx, n),
        "parenthesized_expression" => parenthesized,
        "tuple_expression" => tuple,
        "open_tuple" => |cx, n, parts| Expr::new(ExprKind::Tuple(block(cx, parts)), range(n)),
        "vector_expression" => |cx, n, _| arrays::vector(cx, n),
        "matrix_expression" => |cx, n, _| arrays::matrix(cx, n),
        "index_expression" => arrays::index,
        "adjoint_expression" => adjoint,
        "field_expression" => field,
        "call_expression" => |cx, n, parts| call(cx, n, parts, false),
        "broadcast_call_expression" => |cx, n, parts| call(cx, n, parts, true),
        "macrocall_expression" => macro_call,
        "unary_expression" => unary,
        "binary_expression" => |cx, n, _| operators::binary(cx, n),
        "juxtaposition_expression" => juxtaposition,
        "range_expression" => |cx, n, _| operators::range_expr(cx, n),
        "ternary_expression" => ternary,
        "arrow_function_expression" => |cx, n, _| arrow_function(cx, n),
        "function_definition" => inner_function,
        "assignment" => assignment,
        "compound_assignment_expression" => compound_assignment,
        "operator" => operator,
        "compound_statement" => {
            |cx, n, parts| Expr::new(ExprKind::Block(block(cx, parts)), range(n))
        }
        "if_statement" => if_statement,
        "while_statement" => while_statement,
        "for_statement" => for_statement,
        "break_statement" => |_, n, _| Expr::new(ExprKind::Break, range(n)),
        "continue_statement" => |_, n, _| Expr::new(ExprKind::Continue, range(n)),
        "return_statement" => return_statement,
        "local_statement" => local,
        _ => |cx, n, _| cx.unsupported(n, &n.kind().replace('_', " ")),
    };
    handler(cx, node, &kids(node))
}

/// The name of a construct that is outside the subset whatever its contents.
fn outside_subset(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "character_literal" => "character literal",
        "command_literal" | "prefixed_command_literal" => "command literal",
        "prefixed_string_literal" => "string macro",
        "comprehension_expression" => "array comprehension",
        "curly_expression" => "curly braces `{...}`",
        "parametrized_type_expression" => "type parameters in an expression",
        "interpolation_expression" => "interpolation `$`",
        "quote_expression" | "quote_statement" => "quoted expression",
        "splat_expression" => "splatting `...`",
        "typed_expression" | "unary_typed_expression" => "type assertion `::`",
        "where_expression" => "`where` outside a method signature",
        "global_statement" => "global declaration",
        "const_statement" => "const in a local scope",
        "let_statement" => "let block",
        "try_statement" => "try/catch",
        "struct_definition" => "struct definition in a local scope",
        "module_definition" => "module",
        "abstract_definition" => "abstract type",
        "primitive_definition" => "primitive type",
        "macro_definition" => "macro definition",
        "import_statement" => "import",
        "using_statement" => "using",
        "export_statement" | "public_statement" => "export",
        _ => return None,
    })
}

/// A name; `nothing` is the literal, `end`/`begin` only mean something inside indexing.
fn identifier(cx: &mut Cx, node: Node, _: &[Node]) -> Expr {
    let kind = match cx.text(node) {
        "nothing" => ExprKind::Nothing,
        keyword @ ("end" | "begin") if cx.in_index > 0 => {
            return cx.unsupported(node, &format!("`{keyword}` in indexing"))
        }
        keyword @ ("end" | "begin") => {
            return cx.syntax(node, &format!("syntax error: unexpected `{keyword}`"))
        }
        name => ExprKind::Ident(name.to_string()),
    };
    Expr::new(kind, range(node))
}

/// `(x)` is `x`; `(a; b)` is a block.
fn parenthesized(cx: &mut Cx, node: Node, parts: &[Node]) -> Expr {
    if parts.iter().any(|k| k.kind() == "for_clause") {
        return cx.unsupported(node, "generator expression");
    }
    match parts {
        [single] => expr(cx, *single),
        _ => Expr::new(ExprKind::Block(block(cx, parts)), range(node)),
    }
}

/// Postfix `x'`.
fn adjoint(cx: &mut Cx, node: Node, parts: &[Node]) -> Expr {
    let [arg] = parts else {
        return error_expr(node);
    };
    let arg = Box::new(expr(cx, *arg));
    Expr::new(
        ExprKind::Unary {
            op: UnOp::Adjoint,
            arg,
        },
        range(node),
    )
}

/// `s.f`.
fn field(cx: &mut Cx, node: Node, parts: &[Node]) -> Expr {
    let [base, name] = parts else {
        return error_expr(node);
    };
    if name.kind() != "identifier" {
        return cx.unsupported(node, "computed field access");
    }
    let base = Box::new(expr(cx, *base));
    let name = cx.text(*name).to_string();
    Expr::new(ExprKind::Field { base, name }, range(node))
}

/// `@m ...`: outside the subset, named by the macro.
fn macro_call(cx: &mut Cx, node: Node, parts: &[Node]) -> Expr {
    let name = parts.first().map_or("", |m| cx.text(*m));
    cx.unsupported(node, &format!("macro {name}"))
}

/// `2x`, `2(x + 1)`, `x'y`: a multiplication.
fn juxtaposition(cx: &mut Cx, node: Node, parts: &[Node]) -> Expr {
    let [coefficient, factor] = parts else {
        return error_expr(node);
    };
    let lhs = Box::new(expr(cx, *coefficient));
    let rhs = Box::new(expr(cx, *factor));
    Expr::new(
        ExprKind::Binary {
            op: BinOp::Mul,
            dotted: false,
            lhs,
            rhs,
        },
        range(node),
    )
}

/// `c ? a : b`.
fn ternary(cx: &mut Cx, node: Node, parts: &[Node]) -> Expr {
    let [cond, then, els] = parts else {
        return error_expr(node);
    };
    let cond = Box::new(expr(cx, *cond));
    let then = Box::new(expr(cx, *then));
    let els = Box::new(expr(cx, *els));
    Expr::new(ExprKind::Ternary { cond, then, els }, range(node))
}

/// `function g(y) ... end` or `function (y) ... end` inside a body.
fn inner_function(cx: &mut Cx, node: Node, _: &[Node]) -> Expr {
    match function_definition(cx, node) {
        Some(def) => Expr::new(ExprKind::Function(Box::new(def)), range(node)),
        None => error_expr(node),
    }
}

/// An operator used as a value (`map(+, xs, ys)`).
fn operator(cx: &mut Cx, node: Node, _: &[Node]) -> Expr {
    let op = cx.text(node);
    if op == ":" || op.starts_with('.') {
        return cx.unsupported(node, &format!("operator `{op}` as a value"));
    }
    Expr::new(
        ExprKind::Ident(operators::normalize(op).to_string()),
        range(node),
    )
}

/// `while c ... end`.
fn while_statement(cx: &mut Cx, node: Node, parts: &[Node]) -> Expr {
    let Some((cond, body)) = parts.split_first() else {
        return error_expr(node);
    };
    let cond = Box::new(expr(cx, *cond));
    let body = block(cx, body);
    Expr::new(ExprKind::While { cond, body }, range(node))
}

/// `return` or `return x`.
fn return_statement(cx: &mut Cx, node: Node, parts: &[Node]) -> Expr {
    let value = parts.first().map(|v| Box::new(expr(cx, *v)));
    Expr::new(ExprKind::Return(value), range(node))
}

/// `(a, b)`, `(a,)`, `()`, `(a = 1, b = x)`.
fn tuple(cx: &mut Cx, node: Node, parts: &[Node]) -> Expr {
    if parts.iter().any(|k| k.kind() == "for_clause") {
        return cx.unsupported(node, "generator expression");
    }
    if all_kids(node).iter().any(|k| k.kind() == ";") {
        return cx.unsupported(node, "named tuple with `;`");
    }
    let named = parts.iter().filter(|k| k.kind() == "named_field").count();
    if named == 0 {
        return Expr::new(ExprKind::Tuple(block(cx, parts)), range(node));
    }
    if named != parts.len() {
        return cx.syntax(
            node,
            "syntax error: a tuple mixes named and positional elements",
        );
    }
    let mut fields = Vec::new();
    for field in parts {
        let field_parts = kids(*field);
        let [name, value] = field_parts.as_slice() else {
            return error_expr(node);
        };
        fields.push((cx.text(*name).to_string(), expr(cx, *value)));
    }
    Expr::new(ExprKind::NamedTuple(fields), range(node))
}

/// `f(args)`, `f.(args)`, with a `do` block moved into the first argument.
fn call(cx: &mut Cx, node: Node, parts: &[Node], dotted: bool) -> Expr {
    let (callee, list, do_clause) = match parts {
        [callee, list] => (*callee, *list, None),
        [callee, list, do_clause] => (*callee, *list, Some(*do_clause)),
        _ => return error_expr(node),
    };
    let callee_expr = match callee.kind() {
        "operator" => {
            let op = cx.text(callee);
            if op.starts_with('.') || op == ":" {
                return cx.unsupported(callee, &format!("operator `{op}` as a function"));
            }
            Expr::new(
                ExprKind::Ident(operators::normalize(op).to_string()),
                range(callee),
            )
        }
        _ => expr(cx, callee),
    };
    let mut args = Vec::new();
    if let Some(do_clause) = do_clause {
        args.push(do_block(cx, do_clause));
    }
    args.extend(arguments(cx, list));
    let kind = if dotted {
        ExprKind::DotCall {
            callee: Box::new(callee_expr),
            args,
        }
    } else {
        ExprKind::Call {
            callee: Box::new(callee_expr),
            args,
        }
    };
    Expr::new(kind, range(node))
}

/// The arguments of a call; keyword arguments and splatting are outside the subset.
fn arguments(cx: &mut Cx, list: Node) -> Vec<Expr> {
    let mut args = Vec::new();
    let mut keywords = false;
    for child in all_kids(list) {
        if !child.is_named() {
            keywords |= child.kind() == ";";
            continue;
        }
        let arg = if keywords || child.kind() == "named_argument" {
            cx.unsupported(child, "keyword arguments")
        } else if child.kind() == "for_clause" {
            args.pop();
            cx.unsupported(child, "generator expression")
        } else if child.kind() == "splat_expression" {
            cx.unsupported(child, "splatting `...`")
        } else {
            expr(cx, child)
        };
        args.push(arg);
    }
    args
}

/// `do x ... end`: an anonymous function.
fn do_block(cx: &mut Cx, node: Node) -> Expr {
    let parts = kids(node);
    let Some((head, body)) = parts.split_first() else {
        return error_expr(node);
    };
    let params = params(cx, *head);
    let body = block(cx, body);
    anonymous(node, range(*head), params, body)
}

/// Prefix `-x`, `+x`, `!x`, `√x` (a call of `sqrt`), `.-x` (a broadcast call of `-`).
fn unary(cx: &mut Cx, node: Node, parts: &[Node]) -> Expr {
    let [op, arg] = parts else {
        return error_expr(node);
    };
    let op_text = cx.text(*op);
    let op = match op_text {
        "-" | "−" => UnOp::Neg,
        "+" => UnOp::Plus,
        "!" => UnOp::Not,
        "√" => {
            let callee = Expr::new(ExprKind::Ident("sqrt".to_string()), range(*op));
            let arg = expr(cx, *arg);
            return Expr::new(
                ExprKind::Call {
                    callee: Box::new(callee),
                    args: vec![arg],
                },
                range(node),
            );
        }
        ".-" | ".+" | ".!" => {
            let callee = Expr::new(ExprKind::Ident(op_text[1..].to_string()), range(*op));
            let arg = expr(cx, *arg);
            return Expr::new(
                ExprKind::DotCall {
                    callee: Box::new(callee),
                    args: vec![arg],
                },
                range(node),
            );
        }
        _ => return cx.unsupported(*op, &format!("operator `{op_text}`")),
    };
    Expr::new(
        ExprKind::Unary {
            op,
            arg: Box::new(expr(cx, *arg)),
        },
        range(node),
    )
}

/// `lhs = rhs`, or a short-form inner method `f(x) = ...`.
fn assignment(cx: &mut Cx, node: Node, parts: &[Node]) -> Expr {
    let [lhs, _op, rhs] = parts else {
        return error_expr(node);
    };
    if is_method_signature(*lhs) {
        return match short_function(cx, node) {
            Some(def) => Expr::new(ExprKind::Function(Box::new(def)), range(node)),
            None => error_expr(node),
        };
    }
    let target = match lhs.kind() {
        "identifier" | "index_expression" | "field_expression" | "open_tuple"
        | "tuple_expression" => expr(cx, *lhs),
        "typed_expression" => return cx.unsupported(*lhs, "typed variable declaration"),
        _ => return cx.syntax(*lhs, "syntax error: invalid assignment target"),
    };
    let value = expr(cx, *rhs);
    Expr::new(
        ExprKind::Assign {
            lhs: Box::new(target),
            rhs: Box::new(value),
        },
        range(node),
    )
}

/// `x += v`, `x[i] -= v`, `s.f *= v`, `x .+= v`.
fn compound_assignment(cx: &mut Cx, node: Node, parts: &[Node]) -> Expr {
    let [lhs, op, rhs] = parts else {
        return error_expr(node);
    };
    let op_text = cx.text(*op);
    if op_text == ".=" {
        return cx.unsupported(node, "in-place broadcast .=");
    }
    let Some((op, dotted)) = compound_op(op_text) else {
        return cx.unsupported(*op, &format!("operator `{op_text}`"));
    };
    let lhs = expr(cx, *lhs);
    let rhs = expr(cx, *rhs);
    Expr::new(
        ExprKind::CompoundAssign {
            op,
            dotted,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
        range(node),
    )
}

/// `if c ... elseif c ... else ... end`.
fn if_statement(cx: &mut Cx, node: Node, parts: &[Node]) -> Expr {
    let Some(cond) = node.child_by_field_name("condition") else {
        return error_expr(node);
    };
    let then: Vec<Node> = parts
        .iter()
        .copied()
        .filter(|k| k.id() != cond.id() && !matches!(k.kind(), "elseif_clause" | "else_clause"))
        .collect();
    let mut branches = vec![(expr(cx, cond), block(cx, &then))];
    let mut els = None;
    for clause in parts {
        match clause.kind() {
            "elseif_clause" => {
                let clause_parts = kids(*clause);
                let Some(cond) = clause.child_by_field_name("condition") else {
                    return error_expr(node);
                };
                let body: Vec<Node> = clause_parts
                    .into_iter()
                    .filter(|k| k.id() != cond.id())
                    .collect();
                branches.push((expr(cx, cond), block(cx, &body)));
            }
            "else_clause" => els = Some(block(cx, &kids(*clause))),
            _ => {}
        }
    }
    Expr::new(ExprKind::If { branches, els }, range(node))
}

/// `for i in iter ... end` (also `for i = iter` and `for i ∈ iter`).
fn for_statement(cx: &mut Cx, node: Node, parts: &[Node]) -> Expr {
    let bindings = parts
        .iter()
        .take_while(|k| k.kind() == "for_binding")
        .count();
    if bindings != 1 {
        return cx.unsupported(
            node,
            "several iteration variables in one `for` (nest the loops)",
        );
    }
    let binding = parts[0];
    if all_kids(binding).iter().any(|k| k.kind() == "outer") {
        return cx.unsupported(binding, "`outer` loop variable");
    }
    let binding_parts = kids(binding);
    let [var, _op, iter] = binding_parts.as_slice() else {
        return error_expr(node);
    };
    let var = match var.kind() {
        "identifier" | "tuple_expression" => expr(cx, *var),
        _ => return cx.unsupported(*var, "loop variable"),
    };
    let iter = expr(cx, *iter);
    let body = block(cx, &parts[1..]);
    Expr::new(
        ExprKind::For {
            var: Box::new(var),
            iter: Box::new(iter),
            body,
        },
        range(node),
    )
}

/// `local x`, `local x, y`, `local x = v`.
fn local(cx: &mut Cx, node: Node, parts: &[Node]) -> Expr {
    let [decl] = parts else {
        return error_expr(node);
    };
    let names_of = |cx: &mut Cx, n: Node| -> Option<Vec<String>> {
        match n.kind() {
            "identifier" => Some(vec![cx.text(n).to_string()]),
            "open_tuple" => kids(n)
                .iter()
                .map(|k| (k.kind() == "identifier").then(|| cx.text(*k).to_string()))
                .collect(),
            _ => None,
        }
    };
    if let Some(names) = names_of(cx, *decl) {
        return Expr::new(ExprKind::Local(names), range(node));
    }
    if decl.kind() == "assignment" {
        let decl_parts = kids(*decl);
        if let Some(names) = decl_parts.first().and_then(|lhs| names_of(cx, *lhs)) {
            let declared = TextRange::new(range(node).start, range(decl_parts[0]).end);
            let local = Expr::new(ExprKind::Local(names), declared);
            let assign = expr(cx, *decl);
            return Expr::new(ExprKind::Block(vec![local, assign]), range(node));
        }
    }
    cx.unsupported(*decl, "`local` declaration")
}
