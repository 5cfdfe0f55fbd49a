//! A compact, stable S-expression rendering of the AST, for snapshot tests and debugging:
//! `(+ 1 (* 2 x))`, `(call f a b)`, one line per statement of a method body.

use std::fmt::{self, Display, Formatter, Write};

use crate::ast::{
    AnnotationKind, BinOp, Expr, ExprKind, FunctionDef, FunctionName, ImportPath, Item, KeywordArg,
    Param, SourceFile, TypeExpr, UnOp,
};

/// Renders a parsed file: one block per item, then one line per error
/// (`error START..END: MESSAGE [CODE]`).
pub fn debug_tree(file: &SourceFile) -> String {
    let mut out = String::new();
    for item in &file.items {
        let _ = writeln!(out, "{item}");
    }
    for error in &file.errors {
        let _ = writeln!(
            out,
            "error {}..{}: {} [{}]",
            error.range.start, error.range.end, error.message, error.code
        );
    }
    for note in &file.notes {
        let _ = writeln!(
            out,
            "note {}..{}: {}",
            note.range.start, note.range.end, note.message
        );
    }
    out
}

impl Display for Item {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Item::Function(def) => method(f, def, true),
            Item::Struct(s) => {
                let keyword = match (s.is_abstract, s.mutable, &s.alias) {
                    (_, _, Some(_)) => "alias",
                    (true, _, _) => "abstract type",
                    (false, true, _) => "mutable struct",
                    (false, false, _) => "struct",
                };
                write!(f, "({keyword} {}", s.name)?;
                if !s.params.is_empty() {
                    let params: Vec<String> = s
                        .params
                        .iter()
                        .map(|p| match s.param_bounds.iter().find(|(q, _)| q == p) {
                            Some((_, bound)) => format!("{p}<:{bound}"),
                            None => p.clone(),
                        })
                        .collect();
                    write!(f, "{{{}}}", params.join(", "))?;
                }
                if let Some(sup) = &s.supertype {
                    write!(f, " <: {sup}")?;
                }
                if let Some(target) = &s.alias {
                    write!(f, " = {target}")?;
                }
                for field in &s.fields {
                    if s.const_fields.contains(&field.name) {
                        write!(f, " const")?;
                    }
                    write!(f, " {}", field.name)?;
                    if let Some(ty) = &field.ty {
                        write!(f, "::{ty}")?;
                    }
                }
                write!(f, ")")
            }
            Item::Global(g) => write!(
                f,
                "({} {} {})",
                if g.is_const { "const" } else { "global" },
                g.name,
                g.value
            ),
            Item::Include(i) => write!(f, "(include {:?})", i.path),
            Item::Module(m) => {
                write!(f, "({}module {}", if m.bare { "bare" } else { "" }, m.name)?;
                for item in &m.items {
                    write!(f, " {item}")?;
                }
                write!(f, ")")
            }
            Item::Import(i) => {
                write!(f, "({}", if i.using { "using" } else { "import" })?;
                if let Some(from) = &i.from {
                    write!(f, " {from}:")?;
                }
                for (path, alias) in &i.paths {
                    write!(f, " {path}")?;
                    if let Some(alias) = alias {
                        write!(f, " as {alias}")?;
                    }
                }
                write!(f, ")")
            }
            Item::Export(e) => write!(f, "(export {})", e.names.join(" ")),
            Item::Script(s) => write!(f, "(script {})", s.what),
            Item::Refused(r) => write!(f, "(refused {})", r.name),
        }
    }
}

impl Display for ImportPath {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            ".".repeat(self.dots as usize),
            self.names.join(".")
        )
    }
}

impl Display for TypeExpr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            TypeExpr::Named { name, params, .. } => {
                write!(f, "{name}")?;
                if !params.is_empty() {
                    write!(f, "{{")?;
                    for (i, p) in params.iter().enumerate() {
                        write!(f, "{}{p}", if i > 0 { ", " } else { "" })?;
                    }
                    write!(f, "}}")?;
                }
                Ok(())
            }
            TypeExpr::Typeof { name, .. } => write!(f, "typeof({name})"),
        }
    }
}

impl Display for Param {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.default.is_some() {
            write!(f, "(= ")?;
        }
        if let Some(name) = &self.name {
            write!(f, "{name}")?;
        }
        if let Some(ty) = &self.ty {
            write!(f, "::{ty}")?;
        }
        if self.varargs {
            write!(f, "...")?;
        }
        if let Some(d) = &self.default {
            write!(f, " {d})")?;
        }
        Ok(())
    }
}

/// `(try (block ...) (catch e ...) (else ...) (finally ...))`: out of [`Expr`]'s `fmt`, whose
/// frame each level of a deep expression holds.
#[inline(never)]
fn try_block(
    f: &mut Formatter<'_>,
    body: &[Expr],
    var: Option<&Expr>,
    catch: &Option<Vec<Expr>>,
    els: &Option<Vec<Expr>>,
    finally: &Option<Vec<Expr>>,
) -> fmt::Result {
    write!(f, "(try ")?;
    list(f, "block", body)?;
    if let Some(c) = catch {
        let var = var.map_or(String::new(), |v| format!(" {v}"));
        write!(f, " ")?;
        list(f, &format!("catch{var}"), c)?;
    }
    if let Some(e) = els {
        write!(f, " ")?;
        list(f, "else", e)?;
    }
    if let Some(b) = finally {
        write!(f, " ")?;
        list(f, "finally", b)?;
    }
    write!(f, ")")
}

/// `(function NAME (PARAMS) [where (T)] BODY...)`; top-level methods put each statement and
/// annotation on its own line. A lambda's body holds the next level of a deep expression, so
/// the signature and annotations are written apart, by helpers whose frames are gone by then.
fn method(f: &mut Formatter<'_>, def: &FunctionDef, multiline: bool) -> fmt::Result {
    signature(f, def)?;
    let sep = if multiline { "\n  " } else { " " };
    annotations(f, def, sep)?;
    for stmt in &def.body {
        write!(f, "{sep}{stmt}")?;
    }
    write!(f, ")")
}

/// `(function NAME (PARAMS (parameters KW...))::R where (T)`, the head of [`method`].
#[inline(never)]
fn signature(f: &mut Formatter<'_>, def: &FunctionDef) -> fmt::Result {
    match &def.name {
        FunctionName::Named(name) => write!(f, "(function {name} (")?,
        FunctionName::Callable { self_name, ty } => write!(
            f,
            "(function ({}::{ty}) (",
            self_name.as_deref().unwrap_or("")
        )?,
        FunctionName::Anonymous => write!(f, "(-> (")?,
    }
    for (i, p) in def.params.iter().enumerate() {
        write!(f, "{}{p}", if i > 0 { " " } else { "" })?;
    }
    if !def.keywords.is_empty() || def.keyword_rest.is_some() {
        write!(f, " (parameters")?;
        for k in &def.keywords {
            let ty = k.ty.as_ref().map(|t| format!("::{t}")).unwrap_or_default();
            match &k.default {
                Some(d) => write!(f, " (= {}{ty} {d})", k.name)?,
                None => write!(f, " {}{ty}", k.name)?,
            }
        }
        if let Some(rest) = &def.keyword_rest {
            write!(f, " {rest}...")?;
        }
        write!(f, ")")?;
    }
    write!(f, ")")?;
    if let Some(t) = &def.return_type {
        write!(f, "::{t}")?;
    }
    if !def.where_params.is_empty() {
        let vars: Vec<String> = def
            .where_params
            .iter()
            .map(|(v, bound)| match bound {
                Some(bound) => format!("{v}<:{bound}"),
                None => v.clone(),
            })
            .collect();
        write!(f, " where ({})", vars.join(" "))?;
    }
    Ok(())
}

/// The `# zy:` annotations of a method, each after `sep`.
#[inline(never)]
fn annotations(f: &mut Formatter<'_>, def: &FunctionDef, sep: &str) -> fmt::Result {
    for a in &def.annotations {
        let kind = match a.kind {
            AnnotationKind::At => "at",
            AnnotationKind::Gradcheck => "gradcheck",
            AnnotationKind::Allow => "allow",
        };
        write!(
            f,
            "{sep}@{kind} {:?} {}..{}",
            a.text, a.range.start, a.range.end
        )?;
    }
    Ok(())
}

fn list(f: &mut Formatter<'_>, head: &str, items: &[Expr]) -> fmt::Result {
    write!(f, "({head}")?;
    items_after(f, items)?;
    write!(f, ")")
}

/// ` ITEM ITEM...`: each item after a space.
fn items_after(f: &mut Formatter<'_>, items: &[Expr]) -> fmt::Result {
    for item in items {
        write!(f, " {item}")?;
    }
    Ok(())
}

// Each form an `Expr` prints is written by a helper of its own: `Expr`'s `fmt` is one frame per
// level of a deep tree (up to the AST's depth limit), and in a debug build a frame holds the
// temporaries of every arm it contains, so `fmt` keeps only the dispatch.

/// A leaf: a literal, a name, or a form that holds no expression.
#[inline(never)]
fn leaf(f: &mut Formatter<'_>, kind: &ExprKind) -> fmt::Result {
    match kind {
        ExprKind::Float(x) => write!(f, "{x:?}"),
        ExprKind::Int(i) => write!(f, "{i}"),
        ExprKind::Bool(b) => write!(f, "{b}"),
        ExprKind::Nothing => write!(f, "nothing"),
        ExprKind::Str(s) => write!(f, "{s:?}"),
        ExprKind::Symbol(s) => write!(f, ":{s}"),
        ExprKind::Ident(name) => write!(f, "{name}"),
        ExprKind::Break => write!(f, "(break)"),
        ExprKind::Continue => write!(f, "(continue)"),
        ExprKind::Return(None) => write!(f, "(return)"),
        ExprKind::Local(names) => write!(f, "(local {})", names.join(" ")),
        ExprKind::Global(names) => write!(f, "(global {})", names.join(" ")),
        ExprKind::IndexEnd => write!(f, "end"),
        ExprKind::IndexBegin => write!(f, "begin"),
        ExprKind::Colon => write!(f, ":"),
        // `ExprKind::Error`; [`Expr`]'s `fmt` hands the other forms to their own helpers.
        _ => write!(f, "(error)"),
    }
}

/// `(HEAD A)`: a form of one expression (`(return x)`, `(... xs)`, `(@views e)`).
#[inline(never)]
fn unary_form(f: &mut Formatter<'_>, head: &str, a: &Expr) -> fmt::Result {
    write!(f, "({head} {a})")
}

/// `(HEAD A B)`: a form of two expressions (`(= x 1)`, `(&& a b)`).
#[inline(never)]
fn binary_form(f: &mut Formatter<'_>, head: &str, a: &Expr, b: &Expr) -> fmt::Result {
    write!(f, "({head} {a} {b})")
}

/// `(HEAD CALLEE ARG...)`: a call, a dotted call or an indexing.
#[inline(never)]
fn applied(f: &mut Formatter<'_>, head: &str, callee: &Expr, args: &[Expr]) -> fmt::Result {
    write!(f, "({head} {callee}")?;
    items_after(f, args)?;
    write!(f, ")")
}

/// `(call F ARG... (parameters (= k v) rest...))`.
#[inline(never)]
fn keyword_call(
    f: &mut Formatter<'_>,
    callee: &Expr,
    args: &[Expr],
    keywords: &[KeywordArg],
) -> fmt::Result {
    write!(f, "(call {callee}")?;
    items_after(f, args)?;
    write!(f, " (parameters")?;
    for k in keywords {
        match k {
            KeywordArg::Named { name, value, .. } => write!(f, " (= {name} {value})")?,
            KeywordArg::Splat(value) => write!(f, " {value}...")?,
        }
    }
    write!(f, "))")
}

/// `(named-tuple (a 1) (b x))`.
#[inline(never)]
fn named_tuple(f: &mut Formatter<'_>, fields: &[(String, Expr)]) -> fmt::Result {
    write!(f, "(named-tuple")?;
    for (name, value) in fields {
        write!(f, " ({name} {value})")?;
    }
    write!(f, ")")
}

/// `(matrix (row a b) (row c d))`.
#[inline(never)]
fn matrix(f: &mut Formatter<'_>, rows: &[Vec<Expr>]) -> fmt::Result {
    write!(f, "(matrix")?;
    for row in rows {
        write!(f, " ")?;
        list(f, "row", row)?;
    }
    write!(f, ")")
}

/// `(OP LHS RHS)` of an operator, dotted (`.+`) or not, or of its update (`+=`).
#[inline(never)]
fn operator(
    f: &mut Formatter<'_>,
    op: &BinOp,
    dotted: bool,
    update: &str,
    lhs: &Expr,
    rhs: &Expr,
) -> fmt::Result {
    let dot = if dotted { "." } else { "" };
    write!(f, "({dot}{op}{update} {lhs} {rhs})")
}

/// A flat fold `a - b + c - d` in the nested form Julia parses, `(- (+ (- a b) c) d)`, written
/// without recursing per step.
#[inline(never)]
fn fold(f: &mut Formatter<'_>, first: &Expr, rest: &[(BinOp, Expr)], dotted: bool) -> fmt::Result {
    let dot = if dotted { "." } else { "" };
    for (op, _) in rest.iter().rev() {
        write!(f, "({dot}{op} ")?;
    }
    write!(f, "{first}")?;
    for (_, e) in rest {
        write!(f, " {e})")?;
    }
    Ok(())
}

/// `(chain a < b <= c)`.
#[inline(never)]
fn chain(f: &mut Formatter<'_>, first: &Expr, rest: &[(BinOp, Expr)]) -> fmt::Result {
    write!(f, "(chain {first}")?;
    for (op, e) in rest {
        write!(f, " {op} {e}")?;
    }
    write!(f, ")")
}

/// `(- x)`, `(! x)`, `(' x)`.
#[inline(never)]
fn prefixed(f: &mut Formatter<'_>, op: UnOp, arg: &Expr) -> fmt::Result {
    let op = match op {
        UnOp::Neg => "-",
        UnOp::Plus => "+",
        UnOp::Not => "!",
        UnOp::Adjoint => "'",
    };
    unary_form(f, op, arg)
}

/// `(? c a b)`.
#[inline(never)]
fn ternary(f: &mut Formatter<'_>, cond: &Expr, then: &Expr, els: &Expr) -> fmt::Result {
    write!(f, "(? {cond} {then} {els})")
}

/// `(. x name)`.
#[inline(never)]
fn field(f: &mut Formatter<'_>, base: &Expr, name: &str) -> fmt::Result {
    write!(f, "(. {base} {name})")
}

/// `(: a b)` or `(: a s b)`.
#[inline(never)]
fn range(f: &mut Formatter<'_>, start: &Expr, step: Option<&Expr>, stop: &Expr) -> fmt::Result {
    match step {
        Some(step) => write!(f, "(: {start} {step} {stop})"),
        None => write!(f, "(: {start} {stop})"),
    }
}

/// `(if (then c ...) (elseif c ...) (else ...))`.
#[inline(never)]
fn if_chain(
    f: &mut Formatter<'_>,
    branches: &[(Expr, Vec<Expr>)],
    els: Option<&[Expr]>,
) -> fmt::Result {
    write!(f, "(if")?;
    for (i, (cond, body)) in branches.iter().enumerate() {
        let head = if i == 0 { "then" } else { "elseif" };
        write!(f, " ({head} {cond}")?;
        items_after(f, body)?;
        write!(f, ")")?;
    }
    if let Some(body) = els {
        write!(f, " ")?;
        list(f, "else", body)?;
    }
    write!(f, ")")
}

/// `(while c BODY...)`.
#[inline(never)]
fn while_loop(f: &mut Formatter<'_>, cond: &Expr, body: &[Expr]) -> fmt::Result {
    write!(f, "(while {cond}")?;
    items_after(f, body)?;
    write!(f, ")")
}

/// `(for i ITER BODY...)`, `for-inner` for a loop's inner variables, `(outer i)` for a variable
/// declared `outer`.
#[inline(never)]
fn for_loop(
    f: &mut Formatter<'_>,
    var: &Expr,
    iter: &Expr,
    body: &[Expr],
    inner: bool,
    outer: bool,
) -> fmt::Result {
    let head = if inner { "for-inner" } else { "for" };
    match outer {
        true => write!(f, "({head} (outer {var}) {iter}")?,
        false => write!(f, "({head} {var} {iter}")?,
    }
    items_after(f, body)?;
    write!(f, ")")
}

/// `(let (x v) BODY...)`, `(let () BODY...)`.
#[inline(never)]
fn let_block(
    f: &mut Formatter<'_>,
    var: Option<&Expr>,
    value: Option<&Expr>,
    body: &[Expr],
) -> fmt::Result {
    write!(f, "(let (")?;
    if let Some(var) = var {
        write!(f, "{var}")?;
    }
    if let Some(value) = value {
        write!(f, " {value}")?;
    }
    write!(f, ")")?;
    items_after(f, body)?;
    write!(f, ")")
}

/// `(narrow VAR VALUE BODY...)`.
#[inline(never)]
fn narrow(f: &mut Formatter<'_>, var: &Expr, value: &Expr, body: &[Expr]) -> fmt::Result {
    write!(f, "(narrow {var} {value}")?;
    items_after(f, body)?;
    write!(f, ")")
}

/// `(checkpoint K LOOP)` or `(checkpoint LOOP)`.
#[inline(never)]
fn checkpoint(f: &mut Formatter<'_>, snapshots: Option<u32>, looped: &Expr) -> fmt::Result {
    match snapshots {
        Some(k) => write!(f, "(checkpoint {k} {looped})"),
        None => write!(f, "(checkpoint {looped})"),
    }
}

impl Display for Expr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ExprKind::Tuple(items) => list(f, "tuple", items),
            ExprKind::Vect(items) => list(f, "vect", items),
            ExprKind::Block(items) => list(f, "block", items),
            ExprKind::NamedTuple(fields) => named_tuple(f, fields),
            ExprKind::Matrix(rows) => matrix(f, rows),
            ExprKind::Call { callee, args } => applied(f, "call", callee, args),
            ExprKind::DotCall { callee, args } => applied(f, "dotcall", callee, args),
            ExprKind::Index { base, indices } => applied(f, "index", base, indices),
            ExprKind::KwCall {
                callee,
                args,
                keywords,
            } => keyword_call(f, callee, args, keywords),
            ExprKind::Binary {
                op,
                dotted,
                lhs,
                rhs,
            } => operator(f, op, *dotted, "", lhs, rhs),
            ExprKind::CompoundAssign {
                op,
                dotted,
                lhs,
                rhs,
            } => operator(f, op, *dotted, "=", lhs, rhs),
            ExprKind::Fold {
                first,
                rest,
                dotted,
            } => fold(f, first, rest, *dotted),
            ExprKind::Chain { first, rest } => chain(f, first, rest),
            ExprKind::Unary { op, arg } => prefixed(f, *op, arg),
            ExprKind::And(a, b) => binary_form(f, "&&", a, b),
            ExprKind::Or(a, b) => binary_form(f, "||", a, b),
            ExprKind::Assign { lhs, rhs } => binary_form(f, "=", lhs, rhs),
            ExprKind::Declared { var, ty } => binary_form(f, "::", var, ty),
            ExprKind::DotAssign { lhs, rhs } => binary_form(f, ".=", lhs, rhs),
            ExprKind::Ternary { cond, then, els } => ternary(f, cond, then, els),
            ExprKind::Field { base, name } => field(f, base, name),
            ExprKind::Range { start, step, stop } => range(f, start, step.as_deref(), stop),
            ExprKind::Views(e) => unary_form(f, "@views", e),
            ExprKind::Splat(value) => unary_form(f, "...", value),
            ExprKind::Return(Some(value)) => unary_form(f, "return", value),
            ExprKind::If { branches, els } => if_chain(f, branches, els.as_deref()),
            ExprKind::While { cond, body } => while_loop(f, cond, body),
            ExprKind::Checkpoint { snapshots, looped } => checkpoint(f, *snapshots, looped),
            ExprKind::For {
                var,
                iter,
                body,
                inner,
                outer,
            } => for_loop(f, var, iter, body, *inner, *outer),
            ExprKind::Let { var, value, body } => {
                let_block(f, var.as_deref(), value.as_deref(), body)
            }
            ExprKind::Narrow { var, value, body } => narrow(f, var, value, body),
            ExprKind::Try {
                body,
                var,
                catch,
                els,
                finally,
            } => try_block(f, body, var.as_deref(), catch, els, finally),
            ExprKind::Function(def) => method(f, def, false),
            kind @ (ExprKind::Float(_)
            | ExprKind::Int(_)
            | ExprKind::Bool(_)
            | ExprKind::Nothing
            | ExprKind::Str(_)
            | ExprKind::Symbol(_)
            | ExprKind::Ident(_)
            | ExprKind::Break
            | ExprKind::Continue
            | ExprKind::Return(None)
            | ExprKind::Local(_)
            | ExprKind::Global(_)
            | ExprKind::IndexEnd
            | ExprKind::IndexBegin
            | ExprKind::Colon
            | ExprKind::Error) => leaf(f, kind),
        }
    }
}
