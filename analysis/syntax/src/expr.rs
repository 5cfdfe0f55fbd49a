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

fn convert(cx: &mut Cx, node: Node) -> Expr {
    let r = range(node);
    let parts = kids(node);
    let kind = match node.kind() {
        "identifier" => match cx.text(node) {
            "nothing" => ExprKind::Nothing,
            "end" | "begin" => {
                return cx.unsupported(node, &format!("`{}` in indexing", cx.text(node)))
            }
            name => ExprKind::Ident(name.to_string()),
        },
        "boolean_literal" => ExprKind::Bool(cx.text(node) == "true"),
        "integer_literal" => return literals::integer(cx, node),
        "float_literal" => return literals::float(cx, node),
        "string_literal" => return literals::string(cx, node),
        "character_literal" => return cx.unsupported(node, "character literal"),
        "command_literal" | "prefixed_command_literal" => {
            return cx.unsupported(node, "command literal")
        }
        "prefixed_string_literal" => return cx.unsupported(node, "string macro"),
        "parenthesized_expression" => {
            if parts.iter().any(|k| k.kind() == "for_clause") {
                return cx.unsupported(node, "generator expression");
            }
            match parts.as_slice() {
                [single] => return expr(cx, *single),
                _ => ExprKind::Block(block(cx, &parts)),
            }
        }
        "tuple_expression" => return tuple(cx, node, &parts),
        "open_tuple" => ExprKind::Tuple(block(cx, &parts)),
        "vector_expression" => return arrays::vector(cx, node),
        "matrix_expression" => return arrays::matrix(cx, node),
        "comprehension_expression" => return cx.unsupported(node, "array comprehension"),
        "curly_expression" => return cx.unsupported(node, "curly braces `{...}`"),
        "parametrized_type_expression" => {
            return cx.unsupported(node, "type parameters in an expression")
        }
        "adjoint_expression" => match parts.as_slice() {
            [arg] => ExprKind::Unary {
                op: UnOp::Adjoint,
                arg: Box::new(expr(cx, *arg)),
            },
            _ => return error_expr(node),
        },
        "field_expression" => match parts.as_slice() {
            [base, name] if name.kind() == "identifier" => ExprKind::Field {
                base: Box::new(expr(cx, *base)),
                name: cx.text(*name).to_string(),
            },
            _ => return cx.unsupported(node, "computed field access"),
        },
        "index_expression" => return arrays::index(cx, node, &parts),
        "call_expression" => return call(cx, node, &parts, false),
        "broadcast_call_expression" => return call(cx, node, &parts, true),
        "macrocall_expression" => {
            let name = parts.first().map_or("", |m| cx.text(*m));
            return cx.unsupported(node, &format!("macro {name}"));
        }
        "interpolation_expression" => return cx.unsupported(node, "interpolation `$`"),
        "quote_expression" | "quote_statement" => return cx.unsupported(node, "quoted expression"),
        "unary_expression" => return unary(cx, node, &parts),
        "binary_expression" => return operators::binary(cx, node),
        "juxtaposition_expression" => match parts.as_slice() {
            [coefficient, factor] => ExprKind::Binary {
                op: BinOp::Mul,
                dotted: false,
                lhs: Box::new(expr(cx, *coefficient)),
                rhs: Box::new(expr(cx, *factor)),
            },
            _ => return error_expr(node),
        },
        "range_expression" => return operators::range_expr(cx, node),
        "splat_expression" => return cx.unsupported(node, "splatting `...`"),
        "typed_expression" | "unary_typed_expression" => {
            return cx.unsupported(node, "type assertion `::`")
        }
        "where_expression" => return cx.unsupported(node, "`where` outside a method signature"),
        "ternary_expression" => match parts.as_slice() {
            [cond, then, els] => ExprKind::Ternary {
                cond: Box::new(expr(cx, *cond)),
                then: Box::new(expr(cx, *then)),
                els: Box::new(expr(cx, *els)),
            },
            _ => return error_expr(node),
        },
        "arrow_function_expression" => return arrow_function(cx, node),
        "function_definition" => {
            return match function_definition(cx, node) {
                Some(def) => Expr::new(ExprKind::Function(Box::new(def)), r),
                None => error_expr(node),
            }
        }
        "assignment" => return assignment(cx, node, &parts),
        "compound_assignment_expression" => return compound_assignment(cx, node, &parts),
        "operator" => {
            let op = cx.text(node);
            if op == ":" || op.starts_with('.') {
                return cx.unsupported(node, &format!("operator `{op}` as a value"));
            }
            ExprKind::Ident(operators::normalize(op).to_string())
        }
        "compound_statement" => ExprKind::Block(block(cx, &parts)),
        "if_statement" => return if_statement(cx, node, &parts),
        "while_statement" => match parts.split_first() {
            Some((cond, body)) => ExprKind::While {
                cond: Box::new(expr(cx, *cond)),
                body: block(cx, body),
            },
            None => return error_expr(node),
        },
        "for_statement" => return for_statement(cx, node, &parts),
        "break_statement" => ExprKind::Break,
        "continue_statement" => ExprKind::Continue,
        "return_statement" => ExprKind::Return(parts.first().map(|v| Box::new(expr(cx, *v)))),
        "local_statement" => return local(cx, node, &parts),
        "global_statement" => return cx.unsupported(node, "global declaration"),
        "const_statement" => return cx.unsupported(node, "const in a local scope"),
        "let_statement" => return cx.unsupported(node, "let block"),
        "try_statement" => return cx.unsupported(node, "try/catch"),
        "struct_definition" => return cx.unsupported(node, "struct definition in a local scope"),
        "module_definition" => return cx.unsupported(node, "module"),
        "abstract_definition" => return cx.unsupported(node, "abstract type"),
        "primitive_definition" => return cx.unsupported(node, "primitive type"),
        "macro_definition" => return cx.unsupported(node, "macro definition"),
        "import_statement" => return cx.unsupported(node, "import"),
        "using_statement" => return cx.unsupported(node, "using"),
        "export_statement" | "public_statement" => return cx.unsupported(node, "export"),
        other => return cx.unsupported(node, &other.replace('_', " ")),
    };
    Expr::new(kind, r)
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
