//! Operator calls of the syntax tree (`a + b + c`, `-x`, `x'`, `a .* b`, `2x`, comparison
//! chains, ranges) as AST operators. The tree already has Julia's precedence and
//! associativity; here n-ary chains fold to the left (`a + b + c` evaluates as `(a + b) + c`
//! in Julia too) and the operators outside the subset are reported.

use crate::ast::{BinOp, Expr, ExprKind, TextRange, UnOp};
use crate::cx::{error_expr, span, Cx};
use crate::expr::expr;
use crate::kind::Kind;
use crate::tree::SyntaxNode;

/// Julia spellings that are the same function as a subset operator.
pub(crate) fn normalize(op: &str) -> &str {
    match op {
        "≤" => "<=",
        "≥" => ">=",
        "≠" => "!=",
        "−" => "-",
        // The middle dot and the Greek ano teleia are the dot operator.
        "·" | "·" => "⋅",
        other => other,
    }
}

/// The subset operator spelled `text` (undotted).
pub(crate) fn binop(text: &str) -> Option<BinOp> {
    Some(match normalize(text) {
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "*" => BinOp::Mul,
        "/" => BinOp::Div,
        "÷" => BinOp::IntDiv,
        "%" => BinOp::Rem,
        "^" => BinOp::Pow,
        "<" => BinOp::Lt,
        "<=" => BinOp::Le,
        ">" => BinOp::Gt,
        ">=" => BinOp::Ge,
        "==" => BinOp::Eq,
        "!=" => BinOp::Ne,
        _ => return None,
    })
}

/// The operator of a compound assignment (`+=` is `+`).
pub(crate) fn compound_op(text: &str) -> Option<BinOp> {
    let op = binop(text)?;
    matches!(
        op,
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Pow | BinOp::IntDiv | BinOp::Rem
    )
    .then_some(op)
}

/// An operator child of a call (an identifier leaf holding the operator's text), or, in a
/// comparison chain, a dotted operator `(. <)`: its text and whether it is dotted.
fn op_of<'a>(cx: &Cx<'a>, node: &SyntaxNode) -> (&'a str, bool) {
    match (node.kind, node.children.as_slice()) {
        (Kind::Dot, [op]) => (cx.text(op), true),
        _ => (cx.text(node), false),
    }
}

/// `(call-i a op b ...)` or `(dotcall-i a op b)`.
pub(crate) fn infix(cx: &mut Cx, node: &SyntaxNode, dotted: bool) -> Expr {
    let [lhs, op, rest @ ..] = node.children.as_slice() else {
        return error_expr(node);
    };
    let (text, _) = op_of(cx, op);
    if text == ":" && !dotted {
        return range_call(cx, node, lhs, rest);
    }
    match function_op(text) {
        Some(fop) if !dotted => return function_call_chain(cx, node, op, fop, lhs, rest),
        Some(FunctionOp::Call(name)) if dotted && broadcasts(name) => {
            return dotted_call_chain(cx, node, op, name, lhs, rest)
        }
        Some(FunctionOp::Pipe) if dotted => return dotted_pipe_chain(cx, node, lhs, rest),
        _ => {}
    }
    let Some(bin) = binop(text) else {
        if is_callable_operator(text) {
            return operator_call(cx, node, op, text, dotted, lhs, rest);
        }
        return cx.unsupported(op, &unsupported_operator(text, dotted));
    };
    if fold_link(cx, lhs, bin, dotted).is_some() {
        return fold(cx, node, bin, dotted);
    }
    if !dotted && rest.len() > 1 && matches!(bin, BinOp::Add | BinOp::Mul) {
        return nary_call(cx, node, op, rest_with(lhs, rest));
    }
    if !cx.enter_many(node, rest.len().saturating_sub(1)) {
        return error_expr(node);
    }
    let mut acc = expr(cx, lhs);
    for (i, operand) in rest.iter().enumerate() {
        let rhs = expr(cx, operand);
        let range = if i + 1 == rest.len() {
            node.range
        } else {
            span(acc.range, rhs.range)
        };
        acc = Expr::new(
            ExprKind::Binary {
                op: bin,
                dotted,
                lhs: Box::new(acc),
                rhs: Box::new(rhs),
            },
            range,
        );
    }
    cx.leave_many(rest.len().saturating_sub(1));
    acc
}

/// The precedence level of the operators that chain in an [`ExprKind::Fold`]: `+` with `-`,
/// `*` with `/`.
fn fold_level(op: BinOp) -> Option<u8> {
    match op {
        BinOp::Add | BinOp::Sub => Some(0),
        BinOp::Mul | BinOp::Div => Some(1),
        _ => None,
    }
}

/// When `node` is an infix call of an operator of `op`'s fold level, dotted as `dotted`
/// (`a - b` below `a - b + c`): that operator.
fn fold_link(cx: &Cx, node: &SyntaxNode, op: BinOp, dotted: bool) -> Option<BinOp> {
    let kind = if dotted { Kind::DotCall } else { Kind::Call };
    if node.leaf || node.kind != kind || !node.is_infix() || node.children.len() < 3 {
        return None;
    }
    let (text, _) = op_of(cx, &node.children[1]);
    let link = binop(text)?;
    (fold_level(link).is_some() && fold_level(link) == fold_level(op)).then_some(link)
}

/// `a - b + c - d` (or `a / b * c`): the left-nested calls Julia parses, as one flat
/// [`ExprKind::Fold`]. The nodes down the left spine are visited in a loop (a generated
/// polynomial nests thousands deep); the innermost one converts as usual and becomes `first`,
/// each one above adds its operands (`+(x, c, d)` two steps `+ c`, `+ d`).
fn fold(cx: &mut Cx, node: &SyntaxNode, op: BinOp, dotted: bool) -> Expr {
    let mut spine = vec![node];
    let mut bottom = node;
    while let Some(lhs) = bottom.children.first() {
        if fold_link(cx, lhs, op, dotted).is_none() {
            break;
        }
        spine.push(lhs);
        bottom = lhs;
    }
    spine.pop();
    let first = expr(cx, bottom);
    let mut rest = Vec::new();
    for link in spine.into_iter().rev() {
        let Some(step) = fold_link(cx, link, op, dotted) else {
            continue;
        };
        for operand in link.children.iter().skip(2) {
            rest.push((step, expr(cx, operand)));
        }
    }
    Expr::new(
        ExprKind::Fold {
            first: Box::new(first),
            rest,
            dotted,
        },
        node.range,
    )
}

/// The operands of `lhs op rest...`.
fn rest_with<'n>(lhs: &'n SyntaxNode, rest: &'n [SyntaxNode]) -> Vec<&'n SyntaxNode> {
    std::iter::once(lhs).chain(rest).collect()
}

/// `a + b + c + ...` and `a * b * c * ...`: one call `+(a, b, c, ...)`, as Julia parses these
/// two operators, so that a chain of any length is one level of nesting (generated code holds
/// chains of thousands of terms). The lowering evaluates it as Julia's `afoldl`, a left fold.
fn nary_call(cx: &mut Cx, node: &SyntaxNode, op: &SyntaxNode, operands: Vec<&SyntaxNode>) -> Expr {
    let name = cx.text(op).to_string();
    let callee = Box::new(Expr::new(ExprKind::Ident(name), op.range));
    let args = operands.into_iter().map(|o| expr(cx, o)).collect();
    Expr::new(ExprKind::Call { callee, args }, node.range)
}

/// Operators that are calls of a library function rather than subset operators, by their
/// Julia meaning: `A \ B` is LinearAlgebra's solve, `a // b` Base's rational `//`, `x |> f` is `f(x)`, `f ∘ g` builds Base's
/// `ComposedFunction(f, g)`, `a => b` Base's `Pair(a, b)`, `a ≈ b` is `isapprox(a, b)` and
/// `a ≉ b` its negation, `x ∈ xs` / `x ∉ xs` Base's `in`, `a === b` / `a !== b` egal, `a ⊻ b`
/// `xor`, `&`, `|`, `<<`, `>>`, `>>>` Base's bitwise functions, and LinearAlgebra's `x ⋅ y` (`dot`) and `x × y` (`cross`), `a ∪ b`, `a ∩ b`, `a ⊆ b`, `a ⊈ b` (`union`, `intersect`, `issubset`), and `x isa T`.
#[derive(Clone, Copy)]
enum FunctionOp {
    Call(&'static str),
    Pipe,
    NotCall(&'static str),
}

fn function_op(text: &str) -> Option<FunctionOp> {
    Some(match normalize(text) {
        "\\" => FunctionOp::Call("\\"),
        "//" => FunctionOp::Call("//"),
        "∘" => FunctionOp::Call("ComposedFunction"),
        "=>" => FunctionOp::Call("Base.Pair"),
        "≈" => FunctionOp::Call("isapprox"),
        "≉" => FunctionOp::NotCall("isapprox"),
        "in" | "∈" => FunctionOp::Call("in"),
        "∉" => FunctionOp::NotCall("in"),
        "===" | "≡" => FunctionOp::Call("==="),
        "!==" | "≢" => FunctionOp::NotCall("==="),
        "⊻" => FunctionOp::Call("xor"),
        "&" => FunctionOp::Call("&"),
        "|" => FunctionOp::Call("|"),
        "<<" => FunctionOp::Call("<<"),
        ">>" => FunctionOp::Call(">>"),
        ">>>" => FunctionOp::Call(">>>"),
        "⋅" => FunctionOp::Call("dot"),
        "isa" => FunctionOp::Call("isa"),
        "×" => FunctionOp::Call("cross"),
        "∪" => FunctionOp::Call("union"),
        "∩" => FunctionOp::Call("intersect"),
        "⊆" => FunctionOp::Call("issubset"),
        "⊈" => FunctionOp::NotCall("issubset"),
        "|>" => FunctionOp::Pipe,
        _ => return None,
    })
}

/// Is the dotted form of the [`FunctionOp::Call`] of `name` its broadcast (`a .& b` is
/// `broadcast(&, a, b)`, `a .=> b` the vector of pairs)? Not for `∘`, whose broadcast makes
/// arrays of functions.
fn broadcasts(name: &str) -> bool {
    name != "ComposedFunction"
}

/// The library function that operator `text` calls (`//` calls `//`, `⊻` calls `xor`), for
/// the operators that are one call of their two operands.
pub(crate) fn function_op_name(text: &str) -> Option<&'static str> {
    match function_op(text)? {
        FunctionOp::Call(name) => Some(name),
        _ => None,
    }
}

/// Is `text` an operator that zy calls as a library function (`&`, `|>`, `⊻`)?
pub(crate) fn is_function_operator(text: &str) -> bool {
    function_op(text).is_some()
}

/// `a .op b .op c` for an operator that is a library function: `broadcast(f, broadcast(f, a,
/// b), c)`, as Julia's `(f).(a, b)`.
fn dotted_call_chain(
    cx: &mut Cx,
    node: &SyntaxNode,
    op: &SyntaxNode,
    name: &str,
    lhs: &SyntaxNode,
    rest: &[SyntaxNode],
) -> Expr {
    let mut acc = expr(cx, lhs);
    for operand in rest {
        let rhs = expr(cx, operand);
        let range = span(acc.range, rhs.range);
        let callee = Box::new(Expr::new(ExprKind::Ident(name.to_string()), op.range));
        let args = vec![acc, rhs];
        acc = Expr::new(ExprKind::DotCall { callee, args }, range);
    }
    acc.range = node.range;
    acc
}

/// `x .|> f .|> g`: Julia's `broadcast(|>, x, f)`, which for a function `f` is `f.(x)`; so
/// `g.(f.(x))`.
fn dotted_pipe_chain(
    cx: &mut Cx,
    node: &SyntaxNode,
    lhs: &SyntaxNode,
    rest: &[SyntaxNode],
) -> Expr {
    let mut acc = expr(cx, lhs);
    for operand in rest {
        let f = expr(cx, operand);
        let range = span(acc.range, f.range);
        let kind = ExprKind::DotCall {
            callee: Box::new(f),
            args: vec![acc],
        };
        acc = Expr::new(kind, range);
    }
    acc.range = node.range;
    acc
}

/// Operators of Julia's Base that zy's library lacks, refused by name (a call would find no
/// function where Julia has one), and those that are not functions in Julia either.
const UNCALLED: &[&str] = &["⊼", "⊽", "⊂", "⊃", "⊄", "⊅", "<:", ">:", "$", ":=", "-->"];

/// Is `text` an operator that Julia calls as the function of that name (`a ⊕ b` is
/// `⊕(a, b)`), one the program may define: not one of zy's own nor one of [`UNCALLED`]?
fn is_callable_operator(text: &str) -> bool {
    let text = normalize(text);
    text != ":" && function_op(text).is_none() && !UNCALLED.contains(&text)
}

/// `a ⊕ b` as Julia reads it, the call `⊕(a, b)` (`a ⊕ b ⊕ c` where the tree chains them,
/// `++`-like, is `⊕(a, b, c)`), or `broadcast(⊕, a, b)` dotted: the function is whatever the
/// program defines under that name.
fn operator_call(
    cx: &mut Cx,
    node: &SyntaxNode,
    op: &SyntaxNode,
    text: &str,
    dotted: bool,
    lhs: &SyntaxNode,
    rest: &[SyntaxNode],
) -> Expr {
    let callee = Box::new(Expr::new(
        ExprKind::Ident(normalize(text).to_string()),
        op.range,
    ));
    let args = std::iter::once(lhs)
        .chain(rest)
        .map(|operand| expr(cx, operand))
        .collect();
    let kind = if dotted {
        ExprKind::DotCall { callee, args }
    } else {
        ExprKind::Call { callee, args }
    };
    Expr::new(kind, node.range)
}

/// The refusal of the operator `text` (dotted or not), with what to write instead where Julia
/// has a spelling zy accepts.
pub(crate) fn unsupported_operator(text: &str, dotted: bool) -> String {
    let dot = if dotted { "." } else { "" };
    let instead = match (text, dotted) {
        ("<:" | ">:", false) => {
            "(types are not values in zy); test a value's type with `x isa T` instead"
        }
        (":=" | "-->", false) => "",
        (_, true) => "; write `broadcast(f, a, b)` with a named function `f` instead",
        (_, false) => "; write a function with a name and call it instead",
    };
    let sep = if instead.starts_with(';') || instead.is_empty() {
        ""
    } else {
        " "
    };
    format!("operator `{dot}{text}`{sep}{instead}")
}

/// `a op b op c` for a [`FunctionOp`], left-associative as Julia parses these operators
/// (`x |> f |> g` is `g(f(x))`).
fn function_call_chain(
    cx: &mut Cx,
    node: &SyntaxNode,
    op: &SyntaxNode,
    fop: FunctionOp,
    lhs: &SyntaxNode,
    rest: &[SyntaxNode],
) -> Expr {
    let mut acc = expr(cx, lhs);
    for operand in rest {
        let rhs = expr(cx, operand);
        let range = span(acc.range, rhs.range);
        acc = function_call(fop, op.range, acc, rhs, range);
    }
    acc.range = node.range;
    acc
}

/// `lhs op rhs` for a [`FunctionOp`] spelled at `op_range`: `f(lhs, rhs)`, `!f(lhs, rhs)`, or
/// `rhs(lhs)` for `|>`.
fn function_call(
    fop: FunctionOp,
    op_range: TextRange,
    lhs: Expr,
    rhs: Expr,
    range: TextRange,
) -> Expr {
    let named = |name: &str| Box::new(Expr::new(ExprKind::Ident(name.to_string()), op_range));
    let (callee, args) = match fop {
        FunctionOp::Call(name) | FunctionOp::NotCall(name) => (named(name), vec![lhs, rhs]),
        FunctionOp::Pipe => (Box::new(rhs), vec![lhs]),
    };
    let call = Expr::new(ExprKind::Call { callee, args }, range);
    match fop {
        FunctionOp::NotCall(_) => Expr::new(
            ExprKind::Unary {
                op: UnOp::Not,
                arg: Box::new(call),
            },
            range,
        ),
        _ => call,
    }
}

/// `a:b` or `a:s:b` (`(call-i a : s b)`).
fn range_call(cx: &mut Cx, node: &SyntaxNode, start: &SyntaxNode, rest: &[SyntaxNode]) -> Expr {
    let is_range = |n: &SyntaxNode| {
        n.kind == Kind::Call
            && n.is_infix()
            && n.children
                .get(1)
                .is_some_and(|op| op.leaf && cx.text(op) == ":")
    };
    if is_range(start) {
        return cx.unsupported(node, "range with more than three parts");
    }
    let (step, stop) = match rest {
        [stop] => (None, stop),
        [step, stop] => (Some(step), stop),
        _ => return error_expr(node),
    };
    let start = expr(cx, start);
    let step = step.map(|s| Box::new(expr(cx, s)));
    let stop = expr(cx, stop);
    Expr::new(
        ExprKind::Range {
            start: Box::new(start),
            step,
            stop: Box::new(stop),
        },
        node.range,
    )
}

/// `(comparison a < b <= c)`: at least two comparisons.
pub(crate) fn chain(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let Some((first, pairs)) = node.children.split_first() else {
        return error_expr(node);
    };
    let mut rest_nodes = Vec::new();
    let mut dots = Vec::new();
    for pair in pairs.chunks(2) {
        let [op, operand] = pair else {
            return error_expr(node);
        };
        let (text, dotted) = op_of(cx, op);
        let comparison = match (binop(text), function_op(text)) {
            _ if matches!(text, "<:" | ">:") && !dotted => Comparison::Subtype(text == ">:"),
            (Some(bin), _) if bin.is_comparison() => Comparison::Op(bin),
            (_, Some(fop)) if !dotted => Comparison::Function(fop),
            (None, None) if !dotted && is_callable_operator(text) => {
                Comparison::Named(normalize(text).to_string())
            }
            _ => return cx.unsupported(op, &unsupported_operator(text, dotted)),
        };
        dots.push(dotted);
        rest_nodes.push((comparison, op.range, operand));
    }
    if dots.iter().any(|&d| d) && !dots.iter().all(|&d| d) {
        let message = "a comparison chain mixing dotted and plain comparisons; write each \
                       comparison on its own, joined by `.&`";
        return cx.unsupported(node, message);
    }
    let first = expr(cx, first);
    let rest: Vec<(Comparison, TextRange, Expr)> = rest_nodes
        .into_iter()
        .map(|(op, at, operand)| (op, at, expr(cx, operand)))
        .collect();
    if !rest
        .iter()
        .all(|(op, _, _)| matches!(op, Comparison::Op(_)))
    {
        return lazy_chain(first, rest, node.range);
    }
    let rest: Vec<(BinOp, Expr)> = rest
        .into_iter()
        .filter_map(|(op, _, e)| match op {
            Comparison::Op(bin) => Some((bin, e)),
            Comparison::Function(_) | Comparison::Subtype(_) | Comparison::Named(_) => None,
        })
        .collect();
    if dots.first() == Some(&true) {
        return dotted_chain(first, rest, node.range);
    }
    Expr::new(
        ExprKind::Chain {
            first: Box::new(first),
            rest,
        },
        node.range,
    )
}

/// One comparison of a chain: a subset operator, a library function (`≈`, `in`, `===`),
/// `<:` (`>:` when swapped: `A >: B` is `B <: A`), or an operator the program may define.
#[derive(Clone)]
enum Comparison {
    Op(BinOp),
    Function(FunctionOp),
    Subtype(bool),
    /// A comparison operator the program may define (`a ≺ b`): a call of its name.
    Named(String),
}

/// `a ≈ b == c` with a library comparison or `<:`: Julia's lowering, `a ≈ b && b == c`, each operand
/// evaluated once, in order, and only while the comparisons before it hold (bound by a `let`
/// unless it is a literal or a name).
fn lazy_chain(first: Expr, rest: Vec<(Comparison, TextRange, Expr)>, range: TextRange) -> Expr {
    let mut first_bindings = Vec::new();
    let mut lhs = bound(first, 0, &mut first_bindings);
    // Each link: the bindings of its right operand, then its comparison.
    let mut links = Vec::new();
    let n = rest.len();
    for (k, (op, at, operand)) in rest.into_iter().enumerate() {
        let mut bindings = Vec::new();
        // The last operand is read once, by the last comparison.
        let rhs = if k + 1 == n {
            operand
        } else {
            bound(operand, k + 1, &mut bindings)
        };
        let comparison = match op {
            Comparison::Op(bin) => Expr::new(
                ExprKind::Binary {
                    op: bin,
                    dotted: false,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs.clone()),
                },
                range,
            ),
            Comparison::Function(fop) => function_call(fop, at, lhs, rhs.clone(), range),
            Comparison::Subtype(false) => Expr::call("<:", vec![lhs, rhs.clone()], range),
            Comparison::Subtype(true) => Expr::call("<:", vec![rhs.clone(), lhs], range),
            Comparison::Named(name) => Expr::call(&name, vec![lhs, rhs.clone()], range),
        };
        links.push((bindings, comparison));
        lhs = rhs;
    }
    let mut acc: Option<Expr> = None;
    for (bindings, comparison) in links.into_iter().rev() {
        let body = match acc {
            Some(more) => Expr::new(ExprKind::And(Box::new(comparison), Box::new(more)), range),
            None => comparison,
        };
        acc = Some(crate::broadcast_keywords::let_bound(bindings, body));
    }
    match acc {
        Some(body) => crate::broadcast_keywords::let_bound(first_bindings, body),
        None => lhs,
    }
}

/// `operand` itself if it is a literal or a name, else the variable `#cmpK` bound to it.
fn bound(operand: Expr, k: usize, bindings: &mut Vec<(Expr, Expr)>) -> Expr {
    if matches!(
        operand.kind,
        ExprKind::Float(_) | ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Ident(_)
    ) {
        return operand;
    }
    let var = Expr::new(ExprKind::Ident(format!("#cmp{k}")), operand.range);
    bindings.push((var.clone(), operand));
    var
}

/// `a .<= b .< c`: Julia's fused `(a .<= b) .& (b .< c)`, each operand evaluated once and in
/// order (bound by a `let` unless it is a literal or a name).
fn dotted_chain(first: Expr, rest: Vec<(BinOp, Expr)>, range: TextRange) -> Expr {
    let mut bindings = Vec::new();
    let mut operands = Vec::new();
    let mut ops = Vec::new();
    let all_operands =
        std::iter::once((None, first)).chain(rest.into_iter().map(|(op, e)| (Some(op), e)));
    for (k, (op, operand)) in all_operands.enumerate() {
        operands.push(bound(operand, k, &mut bindings));
        ops.extend(op);
    }
    let comparison = |k: usize, op: BinOp| {
        let kind = ExprKind::Binary {
            op,
            dotted: true,
            lhs: Box::new(operands[k].clone()),
            rhs: Box::new(operands[k + 1].clone()),
        };
        Expr::new(kind, range)
    };
    let mut all = comparison(0, ops[0]);
    for (k, &op) in ops.iter().enumerate().skip(1) {
        let kind = ExprKind::DotCall {
            callee: Box::new(Expr::new(ExprKind::Ident("&".into()), range)),
            args: vec![all, comparison(k, op)],
        };
        all = Expr::new(kind, range);
    }
    crate::broadcast_keywords::let_bound(bindings, all)
}

/// The function a prefix operator calls: `√x` is `sqrt(x)`, `∛x` `cbrt(x)`, `∜x`
/// `fourthroot(x)`, `~x` Base's bitwise not `~(x)`.
fn prefix_function(text: &str) -> Option<&'static str> {
    Some(match text {
        "√" => "sqrt",
        "∛" => "cbrt",
        "∜" => "fourthroot",
        "~" => "~",
        _ => return None,
    })
}

/// `(call-pre op x)` or `(dotcall-pre op x)`: `-x`, `+x`, `!x`, a [`prefix_function`]'s call
/// (`√x`), `.-x` (a broadcast call of `-`, `.√x` of `sqrt`).
pub(crate) fn prefix(cx: &mut Cx, node: &SyntaxNode, dotted: bool) -> Expr {
    let [op, arg] = node.children.as_slice() else {
        return error_expr(node);
    };
    let text = normalize(cx.text(op));
    if dotted {
        let name = match (text, prefix_function(text)) {
            ("-" | "+" | "!", _) => text,
            (_, Some(name)) => name,
            _ => return cx.unsupported(op, &unsupported_operator(text, true)),
        };
        let callee = Expr::new(ExprKind::Ident(name.to_string()), op.range);
        let arg = expr(cx, arg);
        return Expr::new(
            ExprKind::DotCall {
                callee: Box::new(callee),
                args: vec![arg],
            },
            node.range,
        );
    }
    let op_kind = match text {
        "-" => UnOp::Neg,
        "+" => UnOp::Plus,
        "!" => UnOp::Not,
        _ if prefix_function(text).is_some() => {
            let name = prefix_function(text).unwrap_or(text);
            let callee = Expr::new(ExprKind::Ident(name.to_string()), op.range);
            let arg = expr(cx, arg);
            return Expr::new(
                ExprKind::Call {
                    callee: Box::new(callee),
                    args: vec![arg],
                },
                node.range,
            );
        }
        _ => return cx.unsupported(op, &unsupported_operator(text, false)),
    };
    Expr::new(
        ExprKind::Unary {
            op: op_kind,
            arg: Box::new(expr(cx, arg)),
        },
        node.range,
    )
}

/// `(call-post x ')`: the adjoint.
pub(crate) fn postfix(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let [arg, op] = node.children.as_slice() else {
        return error_expr(node);
    };
    if cx.text(op) != "'" {
        let text = cx.text(op);
        return cx.unsupported(op, &format!("operator `{text}`"));
    }
    Expr::new(
        ExprKind::Unary {
            op: UnOp::Adjoint,
            arg: Box::new(expr(cx, arg)),
        },
        node.range,
    )
}

/// `2x`, `2(x + 1)`, `(x - 1)y`, `x'y`: multiplication, folded to the left.
pub(crate) fn juxtapose(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let Some((first, rest)) = node.children.split_first() else {
        return error_expr(node);
    };
    if !cx.enter_many(node, rest.len().saturating_sub(1)) {
        return error_expr(node);
    }
    let mut acc = expr(cx, first);
    for (i, factor) in rest.iter().enumerate() {
        let rhs = expr(cx, factor);
        let range = if i + 1 == rest.len() {
            node.range
        } else {
            span(acc.range, rhs.range)
        };
        acc = Expr::new(
            ExprKind::Binary {
                op: BinOp::Mul,
                dotted: false,
                lhs: Box::new(acc),
                rhs: Box::new(rhs),
            },
            range,
        );
    }
    cx.leave_many(rest.len().saturating_sub(1));
    acc
}
