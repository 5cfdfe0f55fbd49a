//! Expressions and statements (in Julia they are one thing): the syntax tree's nodes as AST
//! expressions, and the constructs outside the subset reported by name.

use std::path::Path;

use crate::annotations;
use crate::arrays;
use crate::ast::{Expr, ExprKind, KeywordArg, Param, TextRange, UnOp, NEW, TYPED};
use crate::broadcast_keywords;
use crate::cx::{error_expr, Cx};
use crate::generators;
use crate::items::{anonymous, arrow_function, function_definition, params_of_tuple};
use crate::kind::Kind;
use crate::literals;
use crate::narrow;
use crate::operators::{self, compound_op};
use crate::tree::SyntaxNode;

/// Converts one expression or statement. A node with a syntax error inside (already
/// reported) becomes [`ExprKind::Error`], except for statement containers, whose other
/// statements are kept.
pub(crate) fn expr(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    if node.is_error() {
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

/// Nodes whose children are statements: an error in one is one broken statement among others.
fn is_container(node: &SyntaxNode) -> bool {
    matches!(
        node.kind,
        Kind::Block | Kind::If | Kind::Elseif | Kind::For | Kind::While | Kind::Function
    ) && !node.leaf
}

/// Converts a sequence of statements.
pub(crate) fn block(cx: &mut Cx, nodes: &[SyntaxNode]) -> Vec<Expr> {
    let stmts = nodes.iter().map(|n| expr(cx, n)).collect();
    narrow::block(cx, stmts, nodes)
}

/// The statements of a `(block ...)` node (or the node itself if it is not a block).
pub(crate) fn block_of(cx: &mut Cx, node: &SyntaxNode) -> Vec<Expr> {
    if node.kind == Kind::Block && !node.leaf {
        block(cx, &node.children)
    } else {
        vec![expr(cx, node)]
    }
}

/// Converts the node of one syntactic kind. Each kind has its own function, so that this
/// frame, which is on the stack once per nesting level, stays small even in debug builds.
fn convert(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    if node.leaf {
        return leaf(cx, node);
    }
    if let Some(typed) = arrays::typed_cat(cx, node) {
        return typed;
    }
    if let (Kind::Quote, [name]) = (node.kind, node.children.as_slice()) {
        if name.leaf && name.kind == Kind::Identifier {
            return Expr::new(ExprKind::Symbol(cx.text(name).to_string()), node.range);
        }
    }
    if let Some(name) = literals::var_name(cx, node) {
        return Expr::new(ExprKind::Ident(name), node.range);
    }
    if let Some(e) = crate::tasks::interpolation(cx, node) {
        return e;
    }
    if let Some(what) = outside_subset(node.kind) {
        return cx.unsupported(node, what);
    }
    type Handler = fn(&mut Cx, &SyntaxNode) -> Expr;
    let handler: Handler = match node.kind {
        Kind::Parens => parens,
        Kind::Tuple => tuple,
        Kind::Block => |cx, n| Expr::new(ExprKind::Block(block(cx, &n.children)), n.range),
        Kind::Curly => crate::type_values::type_value,
        Kind::Vect => arrays::vect,
        Kind::Comprehension => generators::comprehension,
        Kind::Generator => generators::generator,
        Kind::TypedComprehension => generators::typed_comprehension,
        Kind::Hcat => arrays::hcat,
        Kind::Vcat => arrays::vcat,
        Kind::Ncat => arrays::ncat,
        Kind::Ref => arrays::index,
        Kind::StringLit => literals::string,
        Kind::CharLit => literals::char,
        Kind::Call if node.is_infix() => |cx, n| operators::infix(cx, n, false),
        Kind::DotCall if node.is_infix() => |cx, n| operators::infix(cx, n, true),
        Kind::Call if node.is_prefix() => |cx, n| operators::prefix(cx, n, false),
        Kind::DotCall if node.is_prefix() => |cx, n| operators::prefix(cx, n, true),
        Kind::Call if node.is_postfix() => operators::postfix,
        Kind::Call => |cx, n| call(cx, n, false),
        Kind::DotCall => |cx, n| call(cx, n, true),
        Kind::Comparison => operators::chain,
        Kind::Juxtapose => operators::juxtapose,
        Kind::Dot => field,
        Kind::MacroCall => macro_call,
        Kind::Ternary => ternary,
        Kind::And => |cx, n| logical(cx, n, ExprKind::And),
        Kind::Or => |cx, n| logical(cx, n, ExprKind::Or),
        Kind::Arrow => arrow_function,
        Kind::Function => inner_function,
        Kind::Assign => assignment,
        Kind::DotAssign => dot_assignment,
        Kind::OpAssign => |cx, n| compound_assignment(cx, n, false),
        Kind::DotOpAssign => |cx, n| compound_assignment(cx, n, true),
        Kind::If => if_statement,
        Kind::While => while_statement,
        Kind::For => for_statement,
        Kind::Let => let_block,
        Kind::Try => try_block,
        Kind::Break => |_, n| Expr::new(ExprKind::Break, n.range),
        Kind::Continue => |_, n| Expr::new(ExprKind::Continue, n.range),
        Kind::Return => return_statement,
        Kind::Local => local,
        Kind::Global => global,
        Kind::Doc => doc,
        Kind::Subtype | Kind::Supertype => crate::type_values::subtype,
        Kind::Decl => type_assertion,
        Kind::LongArrow => |cx, n| cx.unsupported(n, "operator `-->`"),
        Kind::DotAnd => |cx, n| dotted_logical(cx, n, ExprKind::And),
        Kind::DotOr => |cx, n| dotted_logical(cx, n, ExprKind::Or),
        Kind::ColonAssign => |cx, n| cx.unsupported(n, "operator `:=`"),
        _ => |cx, n| cx.unsupported(n, n.kind.name()),
    };
    handler(cx, node)
}

/// The name of a construct that is outside the subset whatever its contents.
fn outside_subset(kind: Kind) -> Option<&'static str> {
    Some(match kind {
        Kind::CmdStringLit => "command literal",
        Kind::Braces | Kind::BracesCat => "curly braces `{...}`; write a tuple `(a, b)` or a vector `[a, b]` instead",
        Kind::Interpolate => "interpolation `$`",
        Kind::Quote => "quoted expression; write the code itself instead",
        Kind::Splat => "splatting `...` outside the arguments of a call; pass the splat to a function (`f(xs...)`, `vcat(xs...)`, `tuple(xs...)`) instead",
        Kind::Where => "`where` outside a method signature",
        Kind::Const => "const in a local scope; write a plain assignment instead",
        Kind::Struct => "struct definition in a local scope; define the struct at the top level instead",
        Kind::Module => "module inside a function or block; define it at the top level instead",
        Kind::Abstract => "abstract type inside a function or block; define it at the top level instead",
        Kind::Primitive => "primitive type",
        Kind::Macro => "macro definition; write a function instead",
        Kind::Import => "import inside a function or block; write it at the top level instead",
        Kind::Using => "using inside a function or block; write it at the top level instead",
        Kind::Export | Kind::Public => "export inside a function or block; write it at the top level instead",
        Kind::TypedNcat => "typed `;;` concatenation (`T[a;; b]`); write `[a;; b]` and convert the elements instead",
        Kind::TypedHcat => "concatenation in indexing brackets (write `i - 1` for a subtraction)",
        Kind::TypedVcat => "concatenation inside indexing brackets",
        Kind::AddressOf => "operator `&`",
        _ => return None,
    })
}

/// A token: a name, a literal, an operator used as a value.
fn leaf(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    match node.kind {
        Kind::Identifier => identifier(cx, node),
        Kind::Bool => Expr::new(ExprKind::Bool(cx.text(node) == "true"), node.range),
        Kind::Integer => literals::integer(cx, node),
        Kind::BinInt | Kind::OctInt | Kind::HexInt => literals::unsigned(cx, node),
        Kind::Float => literals::float(cx, node),
        Kind::Float32 => literals::float32(cx, node),
        Kind::Op(op) if op.text() == ":" => Expr::new(ExprKind::Colon, node.range),
        Kind::Op(op) => cx.unsupported(node, &format!("operator `{}` as a value", op.text())),
        Kind::MacroName => {
            let text = cx.text(node);
            cx.unsupported(node, &unknown_macro(&format!("@{text}")))
        }
        _ => error_expr(node),
    }
}

/// A name; `nothing` is the literal, `end`/`begin` only mean something inside indexing, an
/// operator's name is the function (`map(+, xs)`).
fn identifier(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let text = cx.text(node);
    let kind = match text {
        "nothing" => ExprKind::Nothing,
        "end" if cx.in_index > 0 => ExprKind::IndexEnd,
        "begin" if cx.in_index > 0 => ExprKind::IndexBegin,
        ":" => ExprKind::Colon,
        keyword @ ("end" | "begin") => {
            return cx.syntax(node, &format!("syntax error: unexpected `{keyword}`"))
        }
        // Julia's `const ∈ = in` and `const ⊆ = issubset`: the functions by their names
        // (`∈(v)`, `map(∈(s), xs)`).
        "∈" => ExprKind::Ident("in".to_string()),
        "⊆" => ExprKind::Ident("issubset".to_string()),
        name if is_operator_name(name) => ExprKind::Ident(operators::normalize(name).to_string()),
        name => ExprKind::Ident(name.to_string()),
    };
    Expr::new(kind, node.range)
}

/// Is `name` an operator rather than a word (`+`, `≤`, `√`)?
pub(crate) fn is_operator_name(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| !crate::lexer::is_identifier_start_char(c))
}

/// `(x)` is `x`.
fn parens(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    match node.children.as_slice() {
        [single] => {
            let mut inner = expr(cx, single);
            if matches!(inner.kind, ExprKind::Block(_)) {
                inner.range = node.range;
            }
            inner
        }
        _ => error_expr(node),
    }
}

/// `s.f` (and `Base.sin` as a value).
fn field(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let [base, name] = node.children.as_slice() else {
        if let [op] = node.children.as_slice() {
            // `(.+)`: Julia's `BroadcastFunction(+)`.
            let op = cx.text(op).to_string();
            let message =
                format!("operator `.{op}` as a value; write `(a, b) -> a .{op} b` instead");
            return cx.unsupported(node, &message);
        }
        return error_expr(node);
    };
    if !(name.leaf && name.kind == Kind::Identifier) {
        return cx.unsupported(node, "computed field access");
    }
    let base = Box::new(expr(cx, base));
    let name = cx.text(name).to_string();
    Expr::new(ExprKind::Field { base, name }, node.range)
}

/// `r"pattern"flags` as `Base.Regex("pattern", "flags")`, `s"text"` as
/// `Base.SubstitutionString("text")` and `dateformat"y-m-d"` as `Dates.DateFormat("y-m-d")`,
/// their text raw as Julia's string macros read it.
fn regex_literal(cx: &mut Cx, node: &SyntaxNode, name: &SyntaxNode) -> Option<Expr> {
    let (string, flags) = match node.children.as_slice() {
        [_, string] => (string, None),
        [_, string, flags] if flags.kind == Kind::String => (string, Some(flags)),
        _ => return None,
    };
    if string.kind != Kind::StringLit {
        return None;
    }
    let callee = match (cx.text(name), flags) {
        ("r", _) => "Base.Regex",
        ("s", None) => "Base.SubstitutionString",
        ("dateformat", None) => "Dates.DateFormat",
        _ => return None,
    };
    let text = literals::string(cx, string);
    let mut args = vec![text];
    if callee == "Base.Regex" {
        let flags = flags.map(|f| cx.text(f).to_string()).unwrap_or_default();
        args.push(Expr::new(ExprKind::Str(flags), node.range));
    }
    Some(Expr::call(callee, args, node.range))
}

/// `@m ...` and string macros `r"..."`: outside the subset, named by the macro.
fn macro_call(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    if let Some(expansion) = crate::macros::expand_expr(cx, node) {
        return expansion;
    }
    match node.children.first() {
        Some(name) if name.leaf && name.kind == Kind::MacroName => {
            if let [_, string] = node.children.as_slice() {
                if string.kind == Kind::StringLit && cx.text(name) == "raw" {
                    return literals::string(cx, string);
                }
            }
            if let Some(e) = regex_literal(cx, node, name) {
                return e;
            }
            let is_cmd = node
                .children
                .get(1)
                .is_some_and(|s| s.kind == Kind::CmdStringLit);
            let what = match cx.text(name) {
                _ if is_cmd => "command literal".to_string(),
                "big" => "string macro `big\"...\"`: zy has no BigInt or BigFloat (it computes \
                          with Float64, Float32 and the fixed-size integers)"
                    .to_string(),
                m => format!("string macro `{m}\"...\"`"),
            };
            cx.unsupported(node, &what)
        }
        Some(name) => {
            let text = cx.text(name).to_string();
            match (text.as_str(), &node.children[1..]) {
                // Promises about the code that leave its meaning as it is.
                (
                    "@inbounds"
                    | "Base.@inbounds"
                    | "@fastmath"
                    | "Base.@fastmath"
                    | "@inline"
                    | "Base.@inline"
                    | "@noinline"
                    | "Base.@noinline"
                    | "@propagate_inbounds"
                    | "Base.@propagate_inbounds"
                    // zy checks bounds always: the checks run, as Julia's outside `@inbounds`.
                    | "@boundscheck"
                    | "Base.@boundscheck",
                    [arg],
                ) => expr(cx, arg),
                // `@nospecialize x y` in a body: a hint about the named arguments, whose
                // value is `nothing`.
                (
                    "@nospecialize" | "Base.@nospecialize" | "@specialize" | "Base.@specialize",
                    args,
                ) if args.iter().all(|a| a.leaf && a.kind == Kind::Identifier) => {
                    Expr::new(ExprKind::Nothing, node.range)
                }
                // `GC.@preserve a b expr`: keeps `a` and `b` alive while `expr` runs (zy's
                // values live as long as they are reachable), the value of `expr`.
                ("GC.@preserve" | "Base.GC.@preserve", [kept @ .., arg])
                    if kept.iter().all(|a| a.leaf && a.kind == Kind::Identifier) =>
                {
                    expr(cx, arg)
                }
                // Test's check that the call's value is of the type inferred for it: zy types
                // every call by its arguments' concrete types, so the value is the call's.
                ("@inferred" | "Test.@inferred", [arg]) if arg.kind == Kind::Call => expr(cx, arg),
                ("@simd", [arg]) if arg.kind == Kind::For => expr(cx, arg),
                ("@threads" | "Threads.@threads" | "Base.Threads.@threads", [.., arg])
                    if arg.kind == Kind::For && node.children.len() <= 3 =>
                {
                    cx.note(
                        node.range,
                        "zy runs the iterations of this `@threads` loop one after another, in \
                         order: the same result as Julia's threads where no iteration reads \
                         what another writes"
                            .to_string(),
                    );
                    crate::tasks::threads_loop(cx, node, arg)
                }
                ("@assert", [cond]) => {
                    let text = ExprKind::Str(cx.text(cond).to_string());
                    assertion(cx, node, cond, Expr::new(text, cond.range))
                }
                ("@assert", [cond, message])
                    if matches!(message.kind, Kind::String | Kind::StringLit) =>
                {
                    let message = expr(cx, message);
                    assertion(cx, node, cond, message)
                }
                // Whether a local holds a value here: lowering's `isdefined_local(x)`.
                ("@isdefined", [x]) if x.leaf && x.kind == Kind::Identifier => {
                    Expr::call("isdefined_local", vec![expr(cx, x)], node.range)
                }
                ("@__FILE__" | "@__DIR__", []) => source_path(cx, node, &text),
                ("@sprintf" | "Printf.@sprintf", args) => crate::sprintf::sprintf(cx, node, args),
                ("@evalpoly", [x, c, cs @ ..]) => evalpoly(cx, node, x, c, cs),
                (name, args) => match crate::tasks::macro_call(cx, node, name, args) {
                    Some(e) => e,
                    None => match crate::output::macro_call(cx, node, name, args) {
                        Some(e) => e,
                        None => match crate::dotmacros::expand(cx, node, &text) {
                            Some(e) => e,
                            None => cx.unsupported(node, &unknown_macro(&text)),
                        },
                    },
                },
            }
        }
        None => error_expr(node),
    }
}

/// `@__FILE__` (`name`): the absolute path of the file holding it, as a string; `@__DIR__`:
/// that of its directory.
fn source_path(cx: &mut Cx, node: &SyntaxNode, name: &str) -> Expr {
    let Some(file) = cx.source_path else {
        return cx.unsupported(
            node,
            &format!("macro {name} outside a file (an expression given alone, or a file whose path is not UTF-8)"),
        );
    };
    let path = match name {
        "@__DIR__" => Path::new(file)
            .parent()
            .map_or_else(|| file.to_string(), |dir| dir.display().to_string()),
        _ => file.to_string(),
    };
    Expr::new(ExprKind::Str(path), node.range)
}

/// `@evalpoly(x, c...)`: Julia's `evalpoly(x, (c...,))`, the same Horner's rule.
fn evalpoly(
    cx: &mut Cx,
    node: &SyntaxNode,
    x: &SyntaxNode,
    c: &SyntaxNode,
    cs: &[SyntaxNode],
) -> Expr {
    let r = node.range;
    let coefficients = std::iter::once(c).chain(cs).map(|c| expr(cx, c)).collect();
    let args = vec![expr(cx, x), Expr::new(ExprKind::Tuple(coefficients), r)];
    Expr::call("Base.evalpoly", args, r)
}

/// The refusal of the macro call `@name` (one zy does not know).
fn unknown_macro(name: &str) -> String {
    match name {
        "@test" => "macro @test; write `@assert cond` instead".to_string(),
        _ => format!("macro {name}; write the code it stands for (or a function call) instead"),
    }
}

/// `@assert cond message`: `if !cond throw(AssertionError(message)) end`.
fn assertion(cx: &mut Cx, node: &SyntaxNode, cond: &SyntaxNode, message: Expr) -> Expr {
    let r = node.range;
    let cond = expr(cx, cond);
    let error = Expr::call("AssertionError", vec![message], r);
    let throw = Expr::call("throw", vec![error], r);
    let failed = ExprKind::Unary {
        op: crate::ast::UnOp::Not,
        arg: Box::new(cond),
    };
    let kind = ExprKind::If {
        branches: vec![(Expr::new(failed, r), vec![throw])],
        els: None,
    };
    Expr::new(kind, r)
}

/// `c ? a : b`.
fn ternary(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let [cond, then, els] = node.children.as_slice() else {
        return error_expr(node);
    };
    let (then_node, els_node) = (then, els);
    let cond = expr(cx, cond);
    let mut then = expr(cx, then_node);
    let mut els = expr(cx, els_node);
    if let Some(test) = narrow::test(&cond) {
        then = narrow::narrowed_expr(cx, &test, true, then, then_node);
        els = narrow::narrowed_expr(cx, &test, false, els, els_node);
    }
    let (cond, then, els) = (Box::new(cond), Box::new(then), Box::new(els));
    Expr::new(ExprKind::Ternary { cond, then, els }, node.range)
}

/// `a && b`, `a || b`.
fn logical(cx: &mut Cx, node: &SyntaxNode, make: fn(Box<Expr>, Box<Expr>) -> ExprKind) -> Expr {
    let [lhs, rhs] = node.children.as_slice() else {
        return error_expr(node);
    };
    let rhs_node = rhs;
    let lhs = expr(cx, lhs);
    let mut rhs = expr(cx, rhs_node);
    // `rhs` runs when `lhs` holds (`&&`) or fails (`||`).
    let runs_when = node.kind == Kind::And;
    if let Some(test) = narrow::test(&lhs) {
        rhs = narrow::narrowed_expr(cx, &test, runs_when, rhs, rhs_node);
    }
    Expr::new(make(Box::new(lhs), Box::new(rhs)), node.range)
}

/// `a .&& b` and `a .|| b`: Julia broadcasts the short-circuit operator over both operands
/// (each evaluated whole first), so `((l, r) -> l && r).(a, b)`.
fn dotted_logical(
    cx: &mut Cx,
    node: &SyntaxNode,
    make: fn(Box<Expr>, Box<Expr>) -> ExprKind,
) -> Expr {
    let [lhs, rhs] = node.children.as_slice() else {
        return error_expr(node);
    };
    let args = vec![expr(cx, lhs), expr(cx, rhs)];
    let r = node.range;
    let param = |name: &str| Param {
        name: Some(name.into()),
        ty: None,
        default: None,
        varargs: false,
        range: r,
    };
    let operand = |name: &str| Box::new(Expr::new(ExprKind::Ident(name.into()), r));
    let body = Expr::new(make(operand("#l"), operand("#r")), r);
    let callee = anonymous(r, r, vec![param("#l"), param("#r")], vec![body]);
    Expr::new(
        ExprKind::DotCall {
            callee: Box::new(callee),
            args,
        },
        r,
    )
}

/// A method definition inside a body: `function g(y) ... end`, `g(y) = ...`, or an anonymous
/// `function (y) ... end`.
fn inner_function(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    if let Some(sig) = crate::items::anonymous_where(node) {
        return cx.unsupported(sig, crate::items::ANONYMOUS_WHERE);
    }
    match function_definition(cx, node) {
        Some(def) => Expr::new(ExprKind::Function(Box::new(def)), node.range),
        None => error_expr(node),
    }
}

/// `while c ... end`.
fn while_statement(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let [cond, body] = node.children.as_slice() else {
        return error_expr(node);
    };
    let cond = Box::new(expr(cx, cond));
    let mut stmts = block_of(cx, body);
    if let Some(test) = narrow::test(&cond) {
        let nodes = if body.kind == Kind::Block && !body.leaf {
            &body.children[..]
        } else {
            std::slice::from_ref(body)
        };
        stmts = narrow::loop_body(cx, &test, stmts, nodes);
    }
    let body = stmts;
    checkpointed(cx, Expr::new(ExprKind::While { cond, body }, node.range))
}

/// `looped` under its `# zy: checkpoint` line, if it has one.
fn checkpointed(cx: &mut Cx, looped: Expr) -> Expr {
    match annotations::checkpoint_above(cx, looped.range.start as usize) {
        Some(snapshots) => {
            let range = looped.range;
            let looped = Box::new(looped);
            Expr::new(ExprKind::Checkpoint { snapshots, looped }, range)
        }
        None => looped,
    }
}

/// `return` or `return x`.
fn return_statement(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let value = node.children.first().map(|v| Box::new(expr(cx, v)));
    if let Some(io) = cx.io.clone() {
        // In a `showerror` method the text written so far is the method's value (Julia's
        // `return` there ends the writing): the value is evaluated, then the text returned.
        let text = Box::new(Expr::new(ExprKind::Ident(io), node.range));
        let mut body: Vec<Expr> = value.map(|v| *v).into_iter().collect();
        body.push(Expr::new(ExprKind::Return(Some(text)), node.range));
        return Expr::new(ExprKind::Block(body), node.range);
    }
    Expr::new(ExprKind::Return(value), node.range)
}

/// A documented statement inside a block (`begin "doc" f(x) = x end`): the statement.
fn doc(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    match node.children.as_slice() {
        [_, documented] => expr(cx, documented),
        _ => error_expr(node),
    }
}

/// `(a, b)`, `(a,)`, `()`, `(a = 1, b = x)`.
/// Is `node` a splat `xs...`?
pub(crate) fn is_splat(node: &SyntaxNode) -> bool {
    node.kind == Kind::Splat && !node.leaf
}

/// An argument or literal item, `xs...` as an [`ExprKind::Splat`].
pub(crate) fn splat_item(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    if !is_splat(node) {
        return expr(cx, node);
    }
    match node.children.as_slice() {
        [inner] => {
            let value = expr(cx, inner);
            Expr::new(ExprKind::Splat(Box::new(value)), node.range)
        }
        _ => error_expr(node),
    }
}

fn tuple(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let parts = &node.children;
    if let Some(p) = parts.iter().find(|k| k.kind == Kind::Parameters) {
        if parts.len() > 1 {
            return cx.unsupported(p, "named tuple with `;` after positional elements");
        }
        return semicolon_named_tuple(cx, node, p);
    }
    if let Some(g) = parts.iter().find(|k| k.kind == Kind::Generator) {
        return cx.unsupported(g, "generator expression");
    }
    let is_named = |k: &SyntaxNode| k.kind == Kind::Assign && !k.leaf;
    let named = parts.iter().filter(|k| is_named(k)).count();
    if named == 0 && parts.iter().any(is_splat) {
        // `(xs..., y)`: Julia's `tuple(xs..., y)`.
        let items = parts.iter().map(|p| splat_item(cx, p)).collect();
        return Expr::new(ExprKind::Tuple(items), node.range);
    }
    if named == 0 {
        return Expr::new(ExprKind::Tuple(block(cx, parts)), node.range);
    }
    if named != parts.len() {
        return cx.syntax(
            node,
            "syntax error: a tuple mixes named and positional elements",
        );
    }
    let mut fields = Vec::new();
    for field in parts {
        let [name, value] = field.children.as_slice() else {
            return error_expr(node);
        };
        if name.kind == Kind::Var {
            return cx.unsupported(name, literals::VAR_NAME_HERE);
        }
        if !(name.leaf && name.kind == Kind::Identifier) {
            return cx.syntax(name, "syntax error: invalid named tuple field name");
        }
        fields.push((cx.text(name).to_string(), expr(cx, value)));
    }
    Expr::new(ExprKind::NamedTuple(fields), node.range)
}

/// `(; a, b = x, s.c)` (Julia 1.5): the named tuple `(a = a, b = x, c = s.c)`; as an
/// assignment target, `(; a, b) = nt` reads `nt.a` and `nt.b` (lowering). A splat `nt...`
/// among them merges `nt`'s fields in its place (`Base._merge_named` of the parts, in order).
fn semicolon_named_tuple(cx: &mut Cx, node: &SyntaxNode, params: &SyntaxNode) -> Expr {
    let mut fields = Vec::new();
    let mut parts = Vec::new();
    for item in &params.children {
        if let (true, [inner]) = (is_splat(item), item.children.as_slice()) {
            if !fields.is_empty() {
                let run = std::mem::take(&mut fields);
                parts.push(Expr::new(ExprKind::NamedTuple(run), node.range));
            }
            parts.push(expr(cx, inner));
            continue;
        }
        let field = match (item.leaf, item.kind, item.children.as_slice()) {
            (true, Kind::Identifier, _) => (cx.text(item).to_string(), expr(cx, item)),
            (false, Kind::Assign, [name, value]) if name.leaf && name.kind == Kind::Identifier => {
                (cx.text(name).to_string(), expr(cx, value))
            }
            (false, Kind::Dot, [_, name]) if name.leaf && name.kind == Kind::Identifier => {
                (cx.text(name).to_string(), expr(cx, item))
            }
            (false, Kind::Assign, [name, _]) if name.kind == Kind::Var => {
                return cx.unsupported(name, literals::VAR_NAME_HERE)
            }
            _ => return cx.syntax(item, "syntax error: invalid named tuple element"),
        };
        fields.push(field);
    }
    if parts.is_empty() {
        return Expr::new(ExprKind::NamedTuple(fields), node.range);
    }
    if !fields.is_empty() {
        parts.push(Expr::new(ExprKind::NamedTuple(fields), node.range));
    }
    Expr::call("Base._merge_named", parts, node.range)
}

/// Is `node` the name `new` inside an inner constructor?
fn is_new(cx: &Cx, node: Option<&SyntaxNode>) -> bool {
    node.is_some_and(|n| n.leaf && n.kind == Kind::Identifier && cx.text(n) == "new")
        && cx.new_of.is_some()
}

/// `new(args...)` or `new{P...}(args...)` in an inner constructor of `S`: the arguments that
/// come first in `#new(S, P..., args...)`; the parameters must be all of `S`'s, as in Julia. A
/// bare `new(args...)` of a parametric `S{T}` is Julia's `new{T}(args...)`: the struct's own
/// parameter names, bound by the constructor's `where T` (unbound, Julia's `UndefVarError`).
fn new_callee(cx: &mut Cx, callee: &SyntaxNode, params: &[SyntaxNode]) -> Result<Vec<Expr>, Expr> {
    let (name, own) = cx.new_of.clone().unwrap_or_default();
    let mut lead = vec![Expr::new(ExprKind::Ident(name.clone()), callee.range)];
    if params.is_empty() {
        let own = own
            .into_iter()
            .map(|p| Expr::new(ExprKind::Ident(p), callee.range));
        lead.extend(own);
        return Ok(lead);
    }
    if params.len() != own.len() {
        let message = format!(
            "`new` with {} type parameters in an inner constructor of `{name}`, which has {}",
            params.len(),
            own.len()
        );
        return Err(cx.unsupported(callee, &message));
    }
    lead.extend(params.iter().map(|p| expr(cx, p)));
    Ok(lead)
}

/// The names of `NamedTuple{names}` (a callee), as the expression `names` (a tuple of
/// symbols), with the tuple of the types `(A, B)` of `NamedTuple{names, Tuple{A, B}}`.
fn named_tuple_names(cx: &mut Cx, curly: &SyntaxNode) -> Option<(Expr, Option<Expr>)> {
    match curly.children.as_slice() {
        [base, names] if base.leaf && cx.text(base) == "NamedTuple" => {
            Some((expr(cx, names), None))
        }
        [base, names, types] if base.leaf && cx.text(base) == "NamedTuple" => {
            let types = tuple_types(cx, types)?;
            Some((expr(cx, names), Some(types)))
        }
        _ => None,
    }
}

/// The key and value types of `Dict{K, V}` (a callee), as the tuple expression `(K, V)`.
fn dict_types(cx: &mut Cx, curly: &SyntaxNode) -> Option<Expr> {
    match curly.children.as_slice() {
        [base, k, v] if base.leaf && cx.text(base) == "Dict" => {
            let kv = vec![expr(cx, k), expr(cx, v)];
            Some(Expr::new(ExprKind::Tuple(kv), curly.range))
        }
        _ => None,
    }
}

/// The type and the tuple of its parameters of `S{P, Q}` (a callee naming a type, possibly
/// qualified: `M.S{P}`), which [`TYPED`] takes first.
fn typed_callee(cx: &mut Cx, curly: &SyntaxNode) -> Option<Vec<Expr>> {
    let (base, params) = curly.children.split_first()?;
    let named = match base.kind {
        Kind::Identifier => base.leaf,
        Kind::Dot => !base.leaf,
        _ => false,
    };
    if !named || params.is_empty() {
        return None;
    }
    let params = params.iter().map(|p| expr(cx, p)).collect();
    Some(vec![
        expr(cx, base),
        Expr::new(ExprKind::Tuple(params), curly.range),
    ])
}

/// Is `curly` `Rational{Int}` or `Rational{Int64}`?
pub(crate) fn is_int_rational(cx: &Cx, curly: &SyntaxNode) -> bool {
    match curly.children.as_slice() {
        [base, t] => {
            base.leaf
                && cx.text(base) == "Rational"
                && t.leaf
                && matches!(cx.text(t), "Int" | "Int64")
        }
        _ => false,
    }
}

/// The tuple of the element types of `Tuple{S, T}` or `NTuple{n, T}` (a callee, `n` a literal
/// up to 64, as in a signature).
fn tuple_types(cx: &mut Cx, curly: &SyntaxNode) -> Option<Expr> {
    let (base, params) = curly.children.split_first()?;
    if !base.leaf {
        return None;
    }
    let types = match (cx.text(base), params) {
        ("Tuple", _) if !params.is_empty() => params.iter().map(|p| expr(cx, p)).collect(),
        ("NTuple", [n, t]) if n.leaf && n.kind == Kind::Integer => {
            let count = cx.text(n).replace('_', "").parse::<usize>().ok()?;
            if count > 64 {
                return None;
            }
            vec![expr(cx, t); count]
        }
        _ => return None,
    };
    Some(Expr::new(ExprKind::Tuple(types), curly.range))
}

/// The prelude's function of `Set{T}` or `Channel{T}` (a callee) and the element type `T`.
fn set_type(cx: &mut Cx, curly: &SyntaxNode) -> Option<(&'static str, Expr)> {
    match curly.children.as_slice() {
        [base, t] if base.leaf && cx.text(base) == "Set" => Some(("Base._typed_set", expr(cx, t))),
        [base, t] if base.leaf && cx.text(base) == "Channel" => {
            Some(("Base._typed_channel", expr(cx, t)))
        }
        _ => None,
    }
}

/// `f(args)`, `f.(args)`, with a `do` block moved into the first argument.
fn call(cx: &mut Cx, node: &SyntaxNode, dotted: bool) -> Expr {
    let Some((callee, rest)) = node.children.split_first() else {
        return error_expr(node);
    };
    if let Some(empty) = empty_vector(cx, node, callee, rest) {
        return empty;
    }
    if let Some(shown) = crate::output::text_plain_show_call(cx, node, callee, rest) {
        return shown;
    }
    if let Some(array) = undef_array(cx, node, callee, rest) {
        return array;
    }
    // `(.+)(a, b)` and `(:)(a, b)` are these operators too.
    let mut bare = callee;
    while let (false, Kind::Parens, [inner]) = (bare.leaf, bare.kind, bare.children.as_slice()) {
        bare = inner;
    }
    let (callee_expr, leading) = match rewritten_callee(cx, callee, bare) {
        Some(Ok(parts)) => parts,
        Some(Err(refused)) => return refused,
        None => (expr(cx, callee), Vec::new()),
    };
    call_with(cx, node, dotted, callee_expr, leading, rest)
}

/// The callee of a call that the syntax rewrites (`new{T}`, `NamedTuple{names}`, `Dict{K, V}`,
/// `Set{T}`) with the argument the rewriting puts first, a refusal (`.+` or `:` as a
/// function), or `None` for an ordinary callee. Kept out of `call`'s frame, which a chain of
/// calls `f(1)(2)(3)...` nests.
#[inline(never)]
fn rewritten_callee(
    cx: &mut Cx,
    callee: &SyntaxNode,
    bare: &SyntaxNode,
) -> Option<Result<(Expr, Vec<Expr>), Expr>> {
    let (callee_expr, leading) = match (bare.leaf, bare.kind) {
        (_, Kind::Dot) if bare.children.len() == 1 => {
            let op = cx.text(&bare.children[0]).to_string();
            let message =
                format!("operator `.{op}` as a function; write `broadcast({op}, a, b)` instead");
            return Some(Err(cx.unsupported(callee, &message)));
        }
        (true, _) if cx.text(bare) == ":" => {
            return Some(Err(cx.unsupported(
                callee,
                "operator `:` as a function; write `a:b` instead",
            )));
        }
        (false, Kind::Curly) if is_new(cx, bare.children.first()) => {
            match new_callee(cx, bare, &bare.children[1..]) {
                Ok(lead) => (Expr::new(ExprKind::Ident(NEW.into()), callee.range), lead),
                Err(e) => return Some(Err(e)),
            }
        }
        // `Rational{Int}(x)`: zy's rationals are `Rational{Int64}`, which `Rational(x)` makes.
        (false, Kind::Curly) if is_int_rational(cx, bare) => (
            Expr::new(ExprKind::Ident("Rational".into()), callee.range),
            Vec::new(),
        ),
        (false, Kind::Curly) => match named_tuple_names(cx, bare) {
            // `NamedTuple{names}(t)`: the prelude's `_named_tuple_of(names, t)`;
            // `NamedTuple{names, Tuple{A, B}}(t)` its `_typed_named_tuple(names, (A, B), t)`.
            Some((n, None)) => (
                Expr::new(ExprKind::Ident("Base._named_tuple_of".into()), callee.range),
                vec![n],
            ),
            Some((n, Some(ts))) => (
                Expr::new(
                    ExprKind::Ident("Base._typed_named_tuple".into()),
                    callee.range,
                ),
                vec![n, ts],
            ),
            None => match dict_types(cx, bare) {
                // `Dict{K, V}(ps...)`: the prelude's `_typed_dict((K, V), ps...)`.
                Some(kv) => (
                    Expr::new(ExprKind::Ident("Base._typed_dict".into()), callee.range),
                    vec![kv],
                ),
                None => match set_type(cx, bare) {
                    // `Set{T}(itr)`: the prelude's `_typed_set(T, itr)`; `Channel{T}(f, n)`
                    // its `_typed_channel(T, f, n)`.
                    Some((function, t)) => (
                        Expr::new(ExprKind::Ident(function.into()), callee.range),
                        vec![t],
                    ),
                    None => match tuple_types(cx, bare) {
                        // `Tuple{S, T}(v)`, `NTuple{n, T}(v)`: the prelude's
                        // `_typed_tuple((S, T), v)`.
                        Some(ts) => (
                            Expr::new(ExprKind::Ident("Base._typed_tuple".into()), callee.range),
                            vec![ts],
                        ),
                        None => match typed_callee(cx, bare) {
                            Some(lead) => {
                                (Expr::new(ExprKind::Ident(TYPED.into()), callee.range), lead)
                            }
                            None => {
                                return Some(Err(
                                    cx.unsupported(callee, "type parameters in an expression")
                                ))
                            }
                        },
                    },
                },
            },
        },
        (true, Kind::Identifier) if is_new(cx, Some(bare)) => match new_callee(cx, bare, &[]) {
            Ok(lead) => (Expr::new(ExprKind::Ident(NEW.into()), callee.range), lead),
            Err(e) => return Some(Err(e)),
        },
        _ => return None,
    };
    Some(Ok((callee_expr, leading)))
}

/// The rest of [`call`] once its callee is converted: the arguments, and the calls the syntax
/// rewrites. Kept out of `call`'s frame, which a chain of calls `f(1)(2)(3)...` nests (each
/// level of the callee's conversion holds one).
#[inline(never)]
fn call_with(
    cx: &mut Cx,
    node: &SyntaxNode,
    dotted: bool,
    callee_expr: Expr,
    leading: Vec<Expr>,
    rest: &[SyntaxNode],
) -> Expr {
    let (do_block, list) = match rest.split_last() {
        Some((last, list)) if last.kind == Kind::Do => (Some(last), list),
        _ => (None, rest),
    };
    let is_sprint = !dotted && matches!(&callee_expr.kind, ExprKind::Ident(f) if f == "sprint");
    let written = match (do_block, list) {
        (Some(f), []) | (None, [f]) if is_sprint => sprint_function(cx, f),
        _ => None,
    };
    if let Some(f) = written {
        // `sprint(io -> ...)`: the function called on the empty text, its writes to `io`
        // extending it, as a `show` method's are.
        let empty = Expr::new(ExprKind::Str(String::new()), node.range);
        let kind = ExprKind::Call {
            callee: Box::new(f),
            args: vec![empty],
        };
        return Expr::new(kind, node.range);
    }
    let mut args = Vec::new();
    if let Some(do_block) = do_block {
        args.push(do_function(cx, do_block));
    }
    let keywords = arguments(cx, list, &mut args);
    if !leading.is_empty() {
        args.splice(0..0, leading);
    }
    if let ExprKind::Ident(name) = &callee_expr.kind {
        if name == "Tuple" && !dotted && keywords.is_empty() && args.len() == 1 {
            if let Some(t) = crate::generators::tuple_of(&args[0], node.range) {
                return t;
            }
        }
        let fixes = matches!(name.as_str(), "==" | "!=" | "<" | "<=" | ">" | ">=" | "in");
        if fixes && !dotted && keywords.is_empty() && do_block.is_none() && args.len() == 1 {
            // `==(x)`: Julia's `Base.Fix2(==, x)`, the function `y -> y == x`.
            let fix = Expr::new(ExprKind::Ident("Base.Fix2".into()), callee_expr.range);
            let mut fix_args = vec![callee_expr.clone()];
            fix_args.append(&mut args);
            let kind = ExprKind::Call {
                callee: Box::new(fix),
                args: fix_args,
            };
            return Expr::new(kind, node.range);
        }
        let row = |a: &Expr| {
            matches!(
                &a.kind,
                ExprKind::Unary {
                    op: UnOp::Adjoint,
                    ..
                }
            )
        };
        if name == "vec" && !dotted && keywords.is_empty() && args.len() == 1 && row(&args[0]) {
            // `vec(x')`: `x` itself for a vector `x` (Julia's `parent`); of a matrix the
            // prelude's view of `A` with the transposed indices.
            let callee = Expr::new(
                ExprKind::Ident("Base._vec_adjoint".into()),
                callee_expr.range,
            );
            let kind = ExprKind::Call {
                callee: Box::new(callee),
                args,
            };
            return Expr::new(kind, node.range);
        }
        let shares = matches!(name.as_str(), "reshape" | "vec" | "dropdims") && !dotted;
        if shares && args.first().is_some_and(|a| !arrays::is_fresh_array(a)) {
            // Of an array held elsewhere Julia's result shares its memory: the prelude's
            // `_reshape_shared` (`_vec_shared`, `_dropdims_shared`) gives a view of it with the
            // new shape. Of a fresh array a copy is the same, and stays a plain `Array`.
            let shared = format!("Base._{name}_shared");
            let callee = Expr::new(ExprKind::Ident(shared), callee_expr.range);
            let kind = if keywords.is_empty() {
                ExprKind::Call {
                    callee: Box::new(callee),
                    args,
                }
            } else {
                ExprKind::KwCall {
                    callee: Box::new(callee),
                    args,
                    keywords,
                }
            };
            return Expr::new(kind, node.range);
        }
        if !dotted && do_block.is_none() && keywords.is_empty() {
            if let Some(e) = crate::output::io_write(cx, name, &args, node.range) {
                return e;
            }
            let name = name.clone();
            if let Some(e) = crate::output::text_of(cx, node, &name, &args) {
                return e;
            }
        }
        if !dotted
            && do_block.is_none()
            && keywords.is_empty()
            && crate::output::is_printing(name, &args)
        {
            let name = name.clone();
            return crate::output::printing(cx, node, &name, args);
        }
    }
    let kind = if !keywords.is_empty() {
        if dotted {
            if args.iter().any(|a| matches!(a.kind, ExprKind::Splat(_))) {
                return cx.unsupported(
                    node,
                    "splatting `xs...` in a broadcast call with keyword arguments; write the \
                     arguments out",
                );
            }
            return broadcast_keywords::keyword_broadcast(callee_expr, args, keywords, node.range);
        }
        ExprKind::KwCall {
            callee: Box::new(callee_expr),
            args,
            keywords,
        }
    } else if dotted {
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
    Expr::new(kind, node.range)
}

/// `Vector{T}()`: an empty `Vector{T}`, which Julia also writes `T[]` (and zy lowers as that).
fn empty_vector(
    cx: &mut Cx,
    node: &SyntaxNode,
    callee: &SyntaxNode,
    args: &[SyntaxNode],
) -> Option<Expr> {
    let [name, elem] = callee.children.as_slice() else {
        return None;
    };
    let is_vector = callee.kind == Kind::Curly
        && !callee.leaf
        && name.leaf
        && name.kind == Kind::Identifier
        && cx.text(name) == "Vector";
    if !is_vector || !args.is_empty() {
        return None;
    }
    let kind = ExprKind::Index {
        base: Box::new(expr(cx, elem)),
        indices: vec![],
    };
    Some(Expr::new(kind, node.range))
}

/// `Vector{T}(undef, n)`, `Matrix{T}(undef, m, n)`, `Array{T}(undef, dims...)`,
/// `Array{T, N}(undef, dims...)`: an array of element type `T` whose elements are not set
/// (zy's are zeros), lowered as the prelude's `_undef_vector(T, n)`, `_undef_matrix(T, m, n)`,
/// `_undef_array(T, dims...)` or `_undef_array_rank(T, N, dims...)`.
fn undef_array(
    cx: &mut Cx,
    node: &SyntaxNode,
    callee: &SyntaxNode,
    args: &[SyntaxNode],
) -> Option<Expr> {
    if callee.kind != Kind::Curly || callee.leaf {
        return None;
    }
    let (name, elem, rank) = match callee.children.as_slice() {
        [name, elem] => (name, elem, None),
        [name, elem, rank] => (name, elem, Some(rank)),
        _ => return None,
    };
    let kind = name
        .leaf
        .then(|| cx.text(name))
        .filter(|_| name.kind == Kind::Identifier)?;
    let kind = kind.to_string();
    let first = args.first()?;
    let is_undef = first.leaf && first.kind == Kind::Identifier && cx.text(first) == "undef";
    let one_array = kind == "Array" && args.len() == 1;
    if !is_undef && rank.is_none() && (matches!(kind.as_str(), "Vector" | "Matrix") || one_array) {
        return Some(converted_array(cx, node, callee, &kind, elem, args));
    }
    if !is_undef || !matches!(kind.as_str(), "Vector" | "Matrix" | "Array") {
        return None;
    }
    if rank.is_some() && kind != "Array" {
        return None;
    }
    let ident = |name: &str| Expr::new(ExprKind::Ident(name.to_string()), callee.range);
    let mut call_args = vec![expr(cx, elem)];
    if let Some(rank) = rank {
        call_args.push(expr(cx, rank));
    }
    let keywords = arguments(cx, &args[1..], &mut call_args);
    if !keywords.is_empty() {
        return Some(cx.unsupported(node, "keyword arguments to an array constructor"));
    }
    let function = match (kind.as_str(), rank) {
        ("Vector", _) => "_undef_vector",
        ("Matrix", _) => "_undef_matrix",
        (_, None) => "_undef_array",
        (_, Some(_)) => "_undef_array_rank",
    };
    let kind = ExprKind::Call {
        callee: Box::new(ident(function)),
        args: call_args,
    };
    Some(Expr::new(kind, node.range))
}

/// `Vector{T}(x)`, `Matrix{T}(A)`, `Array{T}(A)` (a copy of `x` with its elements converted
/// to `T`) and
/// `Matrix{T}(I, m, n)` (a `UniformScaling` made an m×n matrix): the prelude's
/// `_vector_of(T, x)` and `_matrix_of(T, args...)`.
fn converted_array(
    cx: &mut Cx,
    node: &SyntaxNode,
    callee: &SyntaxNode,
    kind: &str,
    elem: &SyntaxNode,
    args: &[SyntaxNode],
) -> Expr {
    let mut call_args = vec![expr(cx, elem)];
    let keywords = arguments(cx, args, &mut call_args);
    if !keywords.is_empty() {
        return cx.unsupported(node, "keyword arguments to an array constructor");
    }
    let function = match kind {
        "Vector" => "Base._vector_of",
        "Matrix" => "Base._matrix_of",
        _ => "Base._array_of",
    };
    let callee = Expr::new(ExprKind::Ident(function.into()), callee.range);
    let kind = ExprKind::Call {
        callee: Box::new(callee),
        args: call_args,
    };
    Expr::new(kind, node.range)
}

/// The arguments of a call: the positional ones go to `args`, the keyword ones (after `;`, or
/// `a = v` among the positional ones) are returned.
fn arguments(cx: &mut Cx, list: &[SyntaxNode], args: &mut Vec<Expr>) -> Vec<KeywordArg> {
    let mut keywords = Vec::new();
    for child in list {
        match child.kind {
            Kind::Parameters if !child.leaf => {
                for keyword in &child.children {
                    if let Some(k) = keyword_argument(cx, keyword, true) {
                        keywords.push(k);
                    }
                }
            }
            Kind::Assign if !child.leaf => {
                if let Some(k) = keyword_argument(cx, child, false) {
                    keywords.push(k);
                }
            }
            Kind::Splat if !child.leaf => args.push(splat_item(cx, child)),
            Kind::Generator if !child.leaf => args.push(generators::generator(cx, child)),
            _ => args.push(expr(cx, child)),
        }
    }
    keywords
}

/// One keyword argument: `a = v`; after `;` also `a` (for `a = a`), `x.a` (for `a = x.a`) and
/// `kw...`.
fn keyword_argument(cx: &mut Cx, node: &SyntaxNode, after_semicolon: bool) -> Option<KeywordArg> {
    if node.is_error() {
        return None;
    }
    match (node.leaf, node.kind, node.children.as_slice()) {
        (false, Kind::Assign, [name, value]) if name.leaf && name.kind == Kind::Identifier => {
            Some(KeywordArg::Named {
                name: cx.text(name).to_string(),
                value: expr(cx, value),
                range: node.range,
            })
        }
        (true, Kind::Identifier, _) if after_semicolon => Some(KeywordArg::Named {
            name: cx.text(node).to_string(),
            value: expr(cx, node),
            range: node.range,
        }),
        (false, Kind::Splat, [value]) if after_semicolon => {
            Some(KeywordArg::Splat(expr(cx, value)))
        }
        // `f(; nt.y)`: the keyword `y = nt.y`, named by the field.
        (false, Kind::Dot, [_, field]) if after_semicolon && field.leaf => {
            Some(KeywordArg::Named {
                name: cx.text(field).to_string(),
                value: expr(cx, node),
                range: node.range,
            })
        }
        _ => {
            cx.unsupported(node, "this form of keyword argument");
            None
        }
    }
}

/// `do x ... end`: an anonymous function.
/// What a use of a written-to `io` other than a write is (`output::io_escape`).
pub(crate) const IO_PASSED: &str = "`io` used otherwise than written to (`print(io, ...)`, `show(io, x)`, ...): zy holds it as the text written so far, which a function it is passed to cannot extend";

/// The function `f` of `sprint(f)` written `io -> ...` or as a `do io ... end` block, with its
/// one parameter the text written so far (`output::io_write`) and that text its value; `None`
/// for any other argument.
fn sprint_function(cx: &mut Cx, node: &SyntaxNode) -> Option<Expr> {
    if !matches!(node.kind, Kind::Arrow | Kind::Do) {
        return None;
    }
    let head = node.children.first()?;
    let param = match head.children.as_slice() {
        _ if head.leaf && head.kind == Kind::Identifier => head,
        [p] if head.kind == Kind::Tuple && p.leaf && p.kind == Kind::Identifier => p,
        _ => return None,
    };
    let io = cx.text(param).to_string();
    let outer = std::mem::replace(&mut cx.io, Some(io.clone()));
    let mut f = match node.kind {
        Kind::Do => do_function(cx, node),
        _ => arrow_function(cx, node),
    };
    cx.io = outer;
    if let ExprKind::Function(def) = &mut f.kind {
        if let Some(at) = crate::output::io_escape(&def.body, &io) {
            return Some(cx.unsupported_at(at, IO_PASSED));
        }
        def.body.push(Expr::new(ExprKind::Ident(io), node.range));
    }
    Some(f)
}

fn do_function(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let [head, body] = node.children.as_slice() else {
        return error_expr(node);
    };
    let params = params_of_tuple(cx, head);
    if let Some(k) = params.keywords.first() {
        let range = k.range;
        cx.unsupported_at(range, "keyword arguments of a `do` block");
    }
    let mut params = params.positional;
    let mut body = block_of(cx, body);
    crate::items::destructure(cx, &mut params, &mut body);
    let name_range = if head.range.start == head.range.end {
        TextRange::new(node.range.start, node.range.start + 2)
    } else {
        head.range
    };
    anonymous(node.range, name_range, params, body)
}

/// `x::T` in an expression: Julia's `typeassert(x, T)`, `x` itself where it is a `T`, a
/// `TypeError` where it is not.
fn type_assertion(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let [value, ty] = node.children.as_slice() else {
        return cx.unsupported(
            node,
            "`::T` without a value; annotate a parameter (`x::Float64`) instead",
        );
    };
    let args = vec![expr(cx, value), expr(cx, ty)];
    Expr::call("typeassert", args, node.range)
}

/// `lhs = rhs`.
fn assignment(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let [lhs, rhs] = node.children.as_slice() else {
        return error_expr(node);
    };
    let target = match (lhs.leaf, lhs.kind) {
        (true, Kind::Identifier)
        | (false, Kind::Ref | Kind::Dot | Kind::Tuple | Kind::Parens | Kind::Var) => expr(cx, lhs),
        (false, Kind::Decl) => match lhs.children.as_slice() {
            [var, ty] if var.leaf && var.kind == Kind::Identifier => {
                let kind = ExprKind::Declared {
                    var: Box::new(expr(cx, var)),
                    ty: Box::new(expr(cx, ty)),
                };
                Expr::new(kind, lhs.range)
            }
            _ => return cx.unsupported(lhs, "typed declaration of anything but a name"),
        },
        _ => return cx.syntax(lhs, "syntax error: invalid assignment target"),
    };
    let value = expr(cx, rhs);
    Expr::new(
        ExprKind::Assign {
            lhs: Box::new(target),
            rhs: Box::new(value),
        },
        node.range,
    )
}

/// `x .= v`, `x[2:3] .= v`, `s.f .= v`.
fn dot_assignment(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let [lhs, rhs] = node.children.as_slice() else {
        return error_expr(node);
    };
    // Any expression is a destination, as Julia's `materialize!(dest, ...)`: a name, an
    // element or field, or a call's result (`similar(x) .= 2 .* x`).
    let target = match (lhs.leaf, lhs.kind) {
        (true, Kind::Identifier) | (false, Kind::Ref | Kind::Dot | Kind::Call | Kind::Parens) => {
            expr(cx, lhs)
        }
        _ => return cx.syntax(lhs, "syntax error: invalid target of `.=`"),
    };
    let value = expr(cx, rhs);
    Expr::new(
        ExprKind::DotAssign {
            lhs: Box::new(target),
            rhs: Box::new(value),
        },
        node.range,
    )
}

/// `x += v`, `x[i] -= v`, `s.f *= v`, `x .+= v`.
fn compound_assignment(cx: &mut Cx, node: &SyntaxNode, dotted: bool) -> Expr {
    let [lhs, op, rhs] = node.children.as_slice() else {
        return error_expr(node);
    };
    let op_text = cx.text(op);
    // `x //= v`, `x ⊻= v` of a variable, of an element `x[i, 2]` or a field `s.f` whose parts
    // are names and literals (evaluating them twice is evaluating them once): Julia's
    // `x = x // v`.
    if let (false, true, Some(name)) = (
        dotted,
        is_plain_place(lhs),
        operators::function_op_name(op_text),
    ) {
        let target = expr(cx, lhs);
        let callee = Box::new(Expr::new(ExprKind::Ident(name.to_string()), op.range));
        let args = vec![target.clone(), expr(cx, rhs)];
        let value = Expr::new(ExprKind::Call { callee, args }, node.range);
        return Expr::new(
            ExprKind::Assign {
                lhs: Box::new(target),
                rhs: Box::new(value),
            },
            node.range,
        );
    }
    let Some(bin) = compound_op(op_text) else {
        let dot = if dotted { "." } else { "" };
        let message = if operators::is_function_operator(op_text) {
            format!("operator `{dot}{op_text}=`; write `x {dot}= x {dot}{op_text} v` instead")
        } else {
            format!("operator `{dot}{op_text}=`")
        };
        return cx.unsupported(op, &message);
    };
    let lhs = expr(cx, lhs);
    let rhs = expr(cx, rhs);
    Expr::new(
        ExprKind::CompoundAssign {
            op: bin,
            dotted,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
        node.range,
    )
}

/// A name, or an element or field of one whose indices are names and literals: a place that
/// reading twice reads once.
fn is_plain_place(node: &SyntaxNode) -> bool {
    let atom = |n: &SyntaxNode| n.leaf && matches!(n.kind, Kind::Identifier | Kind::Integer);
    match (node.leaf, node.kind, node.children.as_slice()) {
        (true, Kind::Identifier, _) => true,
        (false, Kind::Ref, [base, indices @ ..]) => {
            base.leaf && base.kind == Kind::Identifier && indices.iter().all(atom)
        }
        (false, Kind::Dot, [base, field]) => {
            base.leaf
                && base.kind == Kind::Identifier
                && field.leaf
                && field.kind == Kind::Identifier
        }
        _ => false,
    }
}

/// `if c ... elseif c ... else ... end`: the tree nests each `elseif` in the branch before it,
/// and puts the `else` block last in the innermost one. The AST holds the branches in one list,
/// so a long chain adds no depth.
fn if_statement(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let mut branches = Vec::new();
    let mut els = None;
    let mut current = node;
    let mut last_test;
    loop {
        let [cond, then, rest @ ..] = current.children.as_slice() else {
            return error_expr(node);
        };
        let cond = expr(cx, cond);
        let mut body = block_of(cx, then);
        last_test = narrow::test(&cond);
        if let Some(test) = &last_test {
            body = narrow::narrowed_by(cx, test, true, body, &[then]);
        }
        branches.push((cond, body));
        match rest {
            [] => break,
            [next] if next.kind == Kind::Elseif && !next.leaf => current = next,
            [els_block] => {
                let mut body = block_of(cx, els_block);
                if let Some(test) = &last_test {
                    body = narrow::narrowed_by(cx, test, false, body, &[els_block]);
                }
                els = Some(body);
                break;
            }
            _ => return error_expr(node),
        }
    }
    Expr::new(ExprKind::If { branches, els }, node.range)
}

/// `for i in iter ... end` (also `for i = iter` and `for i ∈ iter`); `for i in a, j in b`
/// nests a loop over `j` marked `inner`.
fn for_statement(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let [iteration, body] = node.children.as_slice() else {
        return error_expr(node);
    };
    let mut specs = Vec::new();
    for spec in &iteration.children {
        let [var, iter] = spec.children.as_slice() else {
            return error_expr(node);
        };
        let (var, outer) = match (var.leaf, var.kind, var.children.as_slice()) {
            (true, Kind::Identifier, _) | (false, Kind::Tuple, _) => (expr(cx, var), false),
            (false, Kind::Outer, [name]) if name.leaf && name.kind == Kind::Identifier => {
                (expr(cx, name), true)
            }
            (false, Kind::Outer, _) => {
                return cx.unsupported(spec, "`outer` loop variable that is not a name")
            }
            _ => return cx.unsupported(var, "loop variable"),
        };
        specs.push((var, outer, expr(cx, iter), spec.range));
    }
    let mut body = block_of(cx, body);
    let count = specs.len();
    for (i, (var, outer, iter, range)) in specs.into_iter().enumerate().rev() {
        let kind = ExprKind::For {
            var: Box::new(var),
            iter: Box::new(iter),
            body,
            inner: i > 0,
            outer,
        };
        // The outermost loop spans the statement; each inner one from its variable on.
        let range = if i == 0 {
            node.range
        } else {
            TextRange::new(range.start, node.range.end)
        };
        body = vec![Expr::new(kind, range)];
    }
    match body.pop() {
        Some(e) if count > 0 => checkpointed(cx, e),
        _ => error_expr(node),
    }
}

/// `try ... catch e ... else ... finally ... end`.
fn try_block(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let Some((first, rest)) = node.children.split_first() else {
        return error_expr(node);
    };
    let body = block_of(cx, first);
    let (mut var, mut catch, mut els, mut finally) = (None, None, None, None);
    for part in rest {
        match (part.kind, part.children.as_slice()) {
            (Kind::Catch, [name, block]) if name.leaf && name.kind == Kind::Identifier => {
                var = Some(Box::new(expr(cx, name)));
                catch = Some(block_of(cx, block));
            }
            (Kind::Catch, [block]) => catch = Some(block_of(cx, block)),
            (Kind::TryElse, [block]) => els = Some(block_of(cx, block)),
            (Kind::Finally, [block]) => finally = Some(block_of(cx, block)),
            _ => return cx.unsupported(part, "this form of `try`"),
        }
    }
    let kind = ExprKind::Try {
        body,
        var,
        catch,
        els,
        finally,
    };
    Expr::new(kind, node.range)
}

/// `let a = x, b; body end`: one [`ExprKind::Let`] per binding, nested in order.
fn let_block(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let [bindings, body] = node.children.as_slice() else {
        return error_expr(node);
    };
    let list: &[SyntaxNode] = match (bindings.leaf, bindings.kind) {
        (false, Kind::Block) => &bindings.children,
        _ => std::slice::from_ref(bindings),
    };
    // Each binding: the variable, its value, its range, and a definition that opens its
    // scope (`let f(x) = 2x` is a local function `f`).
    let mut parts = Vec::new();
    for binding in list {
        let is_name = |n: &SyntaxNode| {
            (n.leaf && n.kind == Kind::Identifier) || (!n.leaf && n.kind == Kind::Var)
        };
        let part = match (binding.kind, binding.children.as_slice()) {
            _ if is_name(binding) => (Some(expr(cx, binding)), None, binding.range, None),
            (Kind::Assign, [lhs, rhs])
                if !binding.leaf && (is_name(lhs) || (!lhs.leaf && lhs.kind == Kind::Tuple)) =>
            {
                let value = expr(cx, rhs);
                (Some(expr(cx, lhs)), Some(value), binding.range, None)
            }
            // `let x::T = v`: a local of the `let` declared `T`, `v` converted to it.
            (Kind::Assign, [lhs, rhs]) if !binding.leaf && !lhs.leaf && lhs.kind == Kind::Decl => {
                let var = match lhs.children.as_slice() {
                    [var, ty] if is_name(var) => ExprKind::Declared {
                        var: Box::new(expr(cx, var)),
                        ty: Box::new(expr(cx, ty)),
                    },
                    _ => return cx.unsupported(lhs, "typed declaration of anything but a name"),
                };
                let value = expr(cx, rhs);
                let var = Expr::new(var, lhs.range);
                (Some(var), Some(value), binding.range, None)
            }
            (Kind::Function, _) if !binding.leaf => {
                (None, None, binding.range, Some(inner_function(cx, binding)))
            }
            _ => return cx.unsupported(binding, "this form of `let` binding"),
        };
        parts.push(part);
    }
    let mut body = block_of(cx, body);
    if parts.is_empty() {
        parts.push((None, None, node.range, None));
    }
    let count = parts.len();
    for (i, (var, value, range, definition)) in parts.into_iter().enumerate().rev() {
        body.splice(0..0, definition);
        let kind = ExprKind::Let {
            var: var.map(Box::new),
            value: value.map(Box::new),
            body,
        };
        let range = if i == 0 {
            node.range
        } else {
            TextRange::new(range.start, node.range.end)
        };
        body = vec![Expr::new(kind, range)];
    }
    match body.pop() {
        Some(e) if count > 0 => e,
        _ => error_expr(node),
    }
}

/// `global x`, `global x, y`, `global x = v` in a function.
fn global(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let name = |cx: &Cx, n: &SyntaxNode| {
        (n.leaf && n.kind == Kind::Identifier).then(|| cx.text(n).to_string())
    };
    let names: Option<Vec<String>> = node
        .children
        .iter()
        .flat_map(|d| match d.kind {
            Kind::Tuple if !d.leaf => d.children.iter().collect(),
            _ => vec![d],
        })
        .map(|d| name(cx, d))
        .collect();
    match (names, node.children.as_slice()) {
        (Some(names), _) if !names.is_empty() => Expr::new(ExprKind::Global(names), node.range),
        (_, [decl]) if decl.kind == Kind::Assign && !decl.leaf => {
            match decl
                .children
                .first()
                .and_then(|lhs| Some((lhs, name(cx, lhs)?)))
            {
                Some((lhs, n)) => {
                    let declared = TextRange::new(node.range.start, lhs.range.end);
                    let global = Expr::new(ExprKind::Global(vec![n]), declared);
                    let assign = expr(cx, decl);
                    Expr::new(ExprKind::Block(vec![global, assign]), node.range)
                }
                None => cx.unsupported(decl, "`global` declaration of anything but names"),
            }
        }
        (_, [decl, ..]) => cx.unsupported(decl, "`global` declaration of anything but names"),
        _ => error_expr(node),
    }
}

/// `local x`, `local x, y`, `local x = v`, `local x::T = v`.
fn local(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let names_of = |cx: &mut Cx, n: &SyntaxNode| -> Option<Vec<String>> {
        match (n.leaf, n.kind) {
            (true, Kind::Identifier) => Some(vec![cx.text(n).to_string()]),
            (false, Kind::Decl) => match n.children.as_slice() {
                [var, _] if var.leaf && var.kind == Kind::Identifier => {
                    Some(vec![cx.text(var).to_string()])
                }
                _ => None,
            },
            (false, Kind::Tuple) => n
                .children
                .iter()
                .map(|k| (k.leaf && k.kind == Kind::Identifier).then(|| cx.text(k).to_string()))
                .collect(),
            _ => None,
        }
    };
    let mut names = Vec::new();
    for decl in &node.children {
        match names_of(cx, decl) {
            Some(more) => names.extend(more),
            None => break,
        }
    }
    if names.len() == node.children.len() && !names.is_empty() {
        let local = Expr::new(ExprKind::Local(names), node.range);
        // `local x::T`: the declaration of `x`'s type stands as a statement of its own.
        let typed: Vec<Expr> = node
            .children
            .iter()
            .filter(|d| d.kind == Kind::Decl && !d.leaf)
            .filter_map(|d| match d.children.as_slice() {
                [var, ty] => {
                    let kind = ExprKind::Declared {
                        var: Box::new(expr(cx, var)),
                        ty: Box::new(expr(cx, ty)),
                    };
                    Some(Expr::new(kind, d.range))
                }
                _ => None,
            })
            .collect();
        if typed.is_empty() {
            return local;
        }
        let statements = std::iter::once(local).chain(typed).collect();
        return Expr::new(ExprKind::Block(statements), node.range);
    }
    if let [decl] = node.children.as_slice() {
        if decl.kind == Kind::Assign && !decl.leaf {
            if let Some(lhs) = decl.children.first() {
                if let Some(names) = names_of(cx, lhs) {
                    let declared = TextRange::new(node.range.start, lhs.range.end);
                    let local = Expr::new(ExprKind::Local(names), declared);
                    let assign = expr(cx, decl);
                    return Expr::new(ExprKind::Block(vec![local, assign]), node.range);
                }
            }
        }
    }
    match node.children.first() {
        Some(decl) => cx.unsupported(decl, "`local` declaration; assign the variable instead"),
        None => error_expr(node),
    }
}
