//! Output inside functions: `println`, `print`, `@show`, `@time`, `@info`, `@warn`, `@error`,
//! `@debug`, `@printf`. zy shows no output, so it leaves the printing out, with a note, and
//! keeps everything else Julia does: the arguments are evaluated in order (an error in one is
//! still thrown), `@show e` and `@time e` are `e`'s value, the others `nothing`. `@debug`
//! evaluates nothing, as Julia's does while debug logging is off (the default). `@elapsed e`
//! is the seconds `e` took, as Julia's.
//!
//! `showerror(io::IO, e::E)` and `show(io::IO, x::T)` methods are kept: their `io` is the text
//! written so far (a `String`), each `print(io, ...)` extends it, and the method returns it;
//! `sprint(showerror, e)` calls one on `""`, and `throw` uses it for the uncaught exception's
//! report; inference calls a `show` method on `""` where `string`, `repr` or an interpolation
//! shows a value of its type.

use crate::ast::{Expr, ExprKind, FunctionName, Param, TextRange, TypeExpr, INTERPOLATION};
use crate::cx::Cx;
use crate::expr::expr;
use crate::kind::Kind;
use crate::tree::SyntaxNode;

/// Functions whose only effect is output.
const PRINTING: [&str; 2] = ["println", "print"];

/// Is a call of `name` on `args` output that zy leaves out? `show(x)` and `display(x)` write
/// to `stdout` as `println` does (`show(io, x)` to another stream builds text instead), and
/// `flush(stdout)` writes out what was printed.
pub(crate) fn is_printing(name: &str, args: &[Expr]) -> bool {
    let to_stdout =
        |a: &Expr| matches!(&a.kind, ExprKind::Ident(s) if s == "stdout" || s == "stderr");
    match (name, args) {
        ("show" | "display", [_]) => true,
        ("show" | "display", [io, _]) | ("flush", [io]) => to_stdout(io),
        _ => PRINTING.contains(&name),
    }
}

/// `println(args...)`: the arguments evaluated for their errors, then `nothing`. A leading
/// `stdout` or `stderr` names the stream.
pub(crate) fn printing(cx: &mut Cx, node: &SyntaxNode, name: &str, args: Vec<Expr>) -> Expr {
    if let Some(e) = to_stream(cx, node.range, name, &args) {
        return e;
    }
    let args = args.into_iter().enumerate().filter(|(i, a)| {
        *i > 0 || !matches!(&a.kind, ExprKind::Ident(s) if s == "stdout" || s == "stderr")
    });
    let mut body = Vec::new();
    for (_, a) in args {
        evaluated_parts(a, &mut body);
    }
    cx.note(
        node.range,
        format!(
            "zy shows no output: this `{name}` is left out (its arguments are still evaluated)"
        ),
    );
    body.push(Expr::new(ExprKind::Nothing, node.range));
    Expr::new(ExprKind::Block(body), node.range)
}

/// Is `e` a name (other than `stdout` and `stderr`) or a field (`s.io`), which may hold a
/// stream, as the first argument of `print`?
fn names_stream(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Ident(s) => s != "stdout" && s != "stderr",
        ExprKind::Field { .. } => true,
        _ => false,
    }
}

/// `print(io, xs...)` or `println(io, xs...)` (`println(io)` too) where `io` [names a
/// stream](names_stream): a call of the prelude's, which writes to an `IOBuffer` and leaves
/// the output out (all arguments evaluated) where `io` is anything else, as zy cannot tell
/// before types.
fn to_stream(cx: &mut Cx, range: TextRange, name: &str, args: &[Expr]) -> Option<Expr> {
    let to = match name {
        "print" | "@printf" | "Printf.@printf" => "Base.print",
        "println" => "Base.println",
        _ => return None,
    };
    let [io, ..] = args else {
        return None;
    };
    if !names_stream(io) {
        return None;
    }
    cx.note(
        range,
        format!(
            "zy shows no output: this `{name}` writes to its first argument if that is an \
             `IOBuffer`, and is left out otherwise (its arguments are still evaluated)"
        ),
    );
    Some(Expr::call(to, args.to_vec(), range))
}

/// An output macro `name` on `args`, or `None` if `name` is not one.
pub(crate) fn macro_call(
    cx: &mut Cx,
    node: &SyntaxNode,
    name: &str,
    args: &[SyntaxNode],
) -> Option<Expr> {
    let range = node.range;
    if name == "@elapsed" {
        return Some(elapsed(cx, node, args));
    }
    // `@printf(io, fmt, xs...)`: `print(io, @sprintf(fmt, xs...))`.
    if let ("@printf" | "Printf.@printf", [io, _, ..]) = (name, args) {
        let format = matches!(io.kind, Kind::String | Kind::StringLit);
        let io = (!format).then(|| expr(cx, io)).filter(names_stream);
        if let Some(io) = io {
            let text = crate::sprintf::sprintf(cx, node, &args[1..]);
            let args = [io, text];
            return io_write(cx, "print", &args, range)
                .or_else(|| to_stream(cx, range, name, &args));
        }
    }
    let (body, message) = match name {
        "@show" | "@time" => {
            let mut body: Vec<Expr> = args.iter().map(|a| expr(cx, a)).collect();
            if body.is_empty() {
                body.push(Expr::new(ExprKind::Nothing, range));
            }
            let message = format!("zy shows no output: `{name}` gives the value without printing");
            (body, message)
        }
        "@info" | "@warn" | "@error" | "@printf" | "Printf.@printf" => {
            let mut body = Vec::new();
            for a in args {
                // `key = value` of a log record: the value.
                let value = match (a.kind, a.children.as_slice()) {
                    (Kind::Assign, [_, value]) if !a.leaf => value,
                    _ => a,
                };
                let e = expr(cx, value);
                evaluated_parts(e, &mut body);
            }
            body.push(Expr::new(ExprKind::Nothing, range));
            let message = format!(
                "zy shows no output: this `{name}` is left out (its arguments are still evaluated)"
            );
            (body, message)
        }
        "@debug" => (
            vec![Expr::new(ExprKind::Nothing, range)],
            "zy shows no output: `@debug` is off, as in Julia by default (nothing is evaluated)"
                .to_string(),
        ),
        _ => return None,
    };
    cx.note(range, message);
    Some(Expr::new(ExprKind::Block(body), range))
}

/// `@elapsed e`: Julia's `t0 = time_ns(); e; (time_ns() - t0) / 1e9`, the seconds `e` took
/// as a `Float64`, `t0` a local of its own (named by where the macro stands, so one inside
/// another keeps its start). `e`'s assignments are the function's, as Julia's escaped
/// expression's are.
fn elapsed(cx: &mut Cx, node: &SyntaxNode, args: &[SyntaxNode]) -> Expr {
    let range = node.range;
    let start = ident_at(&format!("#elapsed{}", range.start), range);
    let now = || Expr::call("time_ns", Vec::new(), range);
    let mut body = vec![Expr::new(
        ExprKind::Assign {
            lhs: Box::new(start.clone()),
            rhs: Box::new(now()),
        },
        range,
    )];
    body.extend(args.iter().map(|a| expr(cx, a)));
    let took = Expr::call("-", vec![now(), start], range);
    let seconds = Expr::new(ExprKind::Float(1e9), range);
    body.push(Expr::call("/", vec![took, seconds], range));
    Expr::new(ExprKind::Block(body), range)
}

/// The parts of an argument that are evaluated: not its string literals, and of an
/// interpolated string only what it interpolates.
fn evaluated_parts(e: Expr, out: &mut Vec<Expr>) {
    match e.kind {
        ExprKind::Str(_) => {}
        ExprKind::Call { callee, args } if matches!(&callee.kind, ExprKind::Ident(s) if s == INTERPOLATION) => {
            for a in args {
                evaluated_parts(a, out);
            }
        }
        kind => out.push(Expr::new(kind, e.range)),
    }
}

/// The type of `show`'s MIME argument for Julia's REPL display, `MIME"text/plain"`, as
/// `type_expr` names it.
pub(crate) const TEXT_PLAIN: &str = "MIME\"text/plain\"";

/// `show(io, MIME"text/plain"(), x)` (or `MIME("text/plain")`) as a call: `print(io,
/// repr("text/plain", x))`, the text Julia's display writes (zy has no MIME values); to
/// `stdout` that text left out as output is. `None` for any other call, and inside a `show`
/// method, whose `io` is the text written so far.
pub(crate) fn text_plain_show_call(
    cx: &mut Cx,
    node: &SyntaxNode,
    callee: &SyntaxNode,
    rest: &[SyntaxNode],
) -> Option<Expr> {
    if cx.io.is_some() || !matches!(cx.text(callee), "show" | "Base.show") {
        return None;
    }
    let [io, mime, x] = rest else {
        return None;
    };
    let plain = match (mime.leaf, mime.kind, mime.children.as_slice()) {
        (false, Kind::Call, [m]) => cx.text(m) == TEXT_PLAIN,
        (false, Kind::Call, [m, s]) => cx.text(m) == "MIME" && cx.text(s) == "\"text/plain\"",
        _ => false,
    };
    let plain_args = [io, x]
        .iter()
        .all(|a| !matches!(a.kind, Kind::Parameters | Kind::Splat | Kind::Assign));
    if !plain || !plain_args {
        return None;
    }
    let io = expr(cx, io);
    let mime = Expr::new(ExprKind::Str("text/plain".into()), mime.range);
    let text = Expr::call("Base.repr", vec![mime, expr(cx, x)], node.range);
    // To `stdout` (or `stderr`): output, the text made and left out.
    if matches!(&io.kind, ExprKind::Ident(s) if s == "stdout" || s == "stderr") {
        return Some(printing(cx, node, "show", vec![io, text]));
    }
    Some(Expr::call("print", vec![io, text], node.range))
}

/// The function a method `show(io::IO, ::MIME"text/plain", x)` becomes, without its MIME
/// argument: inference calls it where Julia's display and `repr("text/plain", x)` would.
pub(crate) const SHOW_TEXT_PLAIN: &str = "Base._show_text_plain";

/// Of a method `show(io::IO, ::MIME"text/plain", x)` (or `Base.show`): the same method of
/// [`SHOW_TEXT_PLAIN`] without the MIME argument (zy has no MIME values to dispatch on).
pub(crate) fn text_plain_show(name: &mut FunctionName, params: &mut Vec<Param>) {
    let FunctionName::Named(f) = name else { return };
    let mime =
        |p: &Param| matches!(&p.ty, Some(TypeExpr::Named { name, .. }) if name == TEXT_PLAIN);
    if (f == "show" || f == "Base.show") && params.len() == 3 && mime(&params[1]) {
        params.remove(1);
        *f = SHOW_TEXT_PLAIN.to_string();
    }
}

/// Of a method `showerror(io::IO, e)` or `show(io::IO, x)` (or `Base.showerror`,
/// `Base.show`, [`SHOW_TEXT_PLAIN`]): the name of `io`, whose type becomes `String` (the text
/// written so far).
pub(crate) fn showerror_io(name: &FunctionName, params: &mut [Param]) -> Option<String> {
    let FunctionName::Named(f) = name else {
        return None;
    };
    // `show` only with `io::IO` written: an unannotated first argument is not Julia's stream.
    let shows = f == "show" || f == "Base.show" || f == SHOW_TEXT_PLAIN;
    if f != "showerror" && f != "Base.showerror" && !shows {
        return None;
    }
    let [io, _] = params else {
        return None;
    };
    let range = match &io.ty {
        None if !shows => io.range,
        Some(TypeExpr::Named {
            name,
            params,
            range,
        }) if params.is_empty() && (name == "IO" || name == "Base.IO") => *range,
        _ => return None,
    };
    io.ty = Some(TypeExpr::Named {
        name: "String".into(),
        params: Vec::new(),
        range,
    });
    io.name.clone()
}

/// Functions of a stream that do not write to it: a `show` method's `io` passed to one stays
/// refused ([`io_escape`]).
const ASKED: &[&str] = &["get", "haskey", "IOContext"];

/// The parameter of the function that hands a helper an `IOBuffer` in place of a `show`
/// method's `io`.
const HELPER_IO: &str = "#io";

/// Inside a `showerror` method, a write to its `io` (`print(io, ...)`, `println`, `write`,
/// `show(io, x)`, `showerror(io, x)`, a helper passed `io`): `io = string(io, ...)`, the text
/// extended.
pub(crate) fn io_write(
    cx: &Cx,
    name: &str,
    args: &[Expr],
    range: crate::ast::TextRange,
) -> Option<Expr> {
    let io = cx.io.as_deref()?;
    let (first, rest) = args.split_first()?;
    if !matches!(&first.kind, ExprKind::Ident(s) if s == io) {
        return None;
    }
    let ident = |s: &str| ident_at(s, range);
    let call = |f: &str, args: Vec<Expr>| Expr::call(f, args, range);
    let mut parts = vec![ident(io)];
    let text = match (name, rest) {
        ("print" | "write", _) => {
            parts.extend(rest.iter().cloned());
            call("string", parts)
        }
        ("println", _) => {
            parts.extend(rest.iter().cloned());
            parts.push(Expr::new(ExprKind::Str("\n".into()), range));
            call("string", parts)
        }
        ("show", [x]) => {
            parts.push(call("repr", vec![x.clone()]));
            call("string", parts)
        }
        ("showerror", [x]) => call(name, vec![ident(io), x.clone()]),
        // Asked of the stream rather than written to it (`get(io, :compact, false)`).
        (f, _) if ASKED.contains(&f) => return None,
        // `io` passed to a helper (`helper(io, x)`, `join(io, xs)`): the text the helper
        // writes to an `IOBuffer` of its own (the prelude's `_written`).
        _ => {
            let mut passed = vec![ident(HELPER_IO)];
            passed.extend(rest.iter().cloned());
            let param = Param {
                name: Some(HELPER_IO.into()),
                ty: None,
                default: None,
                varargs: false,
                range,
            };
            let f = crate::items::anonymous(range, range, vec![param], vec![call(name, passed)]);
            parts.push(call("Base._written", vec![f]));
            call("string", parts)
        }
    };
    Some(Expr::new(
        ExprKind::Assign {
            lhs: Box::new(ident(io)),
            rhs: Box::new(text),
        },
        range,
    ))
}

/// Where `body` uses the `io` of a `show` method or of `sprint(io -> ...)` otherwise than to
/// write to it or return it (`helper(io, x)`, `out = io`): zy's `io` is the text written so far, which a
/// function it is passed to cannot extend, so such a use is refused, never silently lost.
pub(crate) fn io_escape(body: &[Expr], io: &str) -> Option<crate::ast::TextRange> {
    body.iter().find_map(|e| escape_in(e, io))
}

fn escape_in(e: &Expr, io: &str) -> Option<crate::ast::TextRange> {
    let is_io = |e: &Expr| matches!(&e.kind, ExprKind::Ident(s) if s == io);
    match &e.kind {
        ExprKind::Ident(s) if s == io => Some(e.range),
        // A write (`io_write`): `io = string(io, ...)`, `io = showerror(io, x)`.
        ExprKind::Assign { lhs, rhs } if is_io(lhs) => match &rhs.kind {
            ExprKind::Call { callee, args }
                if matches!(&callee.kind, ExprKind::Ident(f) if f == "string" || f == "showerror")
                    && args.first().is_some_and(is_io) =>
            {
                io_escape(&args[1..], io)
            }
            _ => Some(e.range),
        },
        // The text written ends the function (lowering's `return` of a writing method).
        ExprKind::Return(Some(v)) if is_io(v) => None,
        ExprKind::Function(def) => io_escape(&def.body, io),
        _ => e.children().into_iter().find_map(|c| escape_in(c, io)),
    }
}

/// `sprint(showerror, e)`, `sprint(show, x)`, `sprint(print, x)`: the text each writes, as a
/// `String`; `showerror(stdout, e)` (or `stderr`): the text computed and left out, with a note.
pub(crate) fn text_of(cx: &mut Cx, node: &SyntaxNode, name: &str, args: &[Expr]) -> Option<Expr> {
    let range = node.range;
    let call = |f: &str, args: Vec<Expr>| Expr::call(f, args, range);
    let empty = || Expr::new(ExprKind::Str(String::new()), range);
    match (name, args) {
        ("sprint", [f, x]) => match &f.kind {
            ExprKind::Ident(f) if f == "showerror" => {
                Some(call("showerror", vec![empty(), x.clone()]))
            }
            ExprKind::Ident(f) if f == "show" => Some(call("repr", vec![x.clone()])),
            ExprKind::Ident(f) if f == "print" => Some(call("string", vec![x.clone()])),
            _ => None,
        },
        ("showerror", [io, x]) if matches!(&io.kind, ExprKind::Ident(s) if s == "stdout" || s == "stderr") =>
        {
            cx.note(
                range,
                "zy shows no output: this `showerror` is left out (its text is still computed)"
                    .to_string(),
            );
            let text = call("showerror", vec![empty(), x.clone()]);
            Some(Expr::new(
                ExprKind::Block(vec![text, Expr::new(ExprKind::Nothing, range)]),
                range,
            ))
        }
        _ => None,
    }
}

/// The name `s` as an expression at `range`.
fn ident_at(s: &str, range: crate::ast::TextRange) -> Expr {
    Expr::new(ExprKind::Ident(s.into()), range)
}
