//! A compact, stable S-expression rendering of the AST, for snapshot tests and debugging:
//! `(+ 1 (* 2 x))`, `(call f a b)`, one line per statement of a method body.

use std::fmt::{self, Display, Formatter, Write};

use crate::ast::{
    AnnotationKind, Expr, ExprKind, FunctionDef, FunctionName, ImportPath, Item, KeywordArg, Param,
    SourceFile, TypeExpr, UnOp,
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
                let keyword = match (s.is_abstract, s.mutable) {
                    (true, _) => "abstract type",
                    (false, true) => "mutable struct",
                    (false, false) => "struct",
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
                for field in &s.fields {
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

/// `(function NAME (PARAMS) [where (T)] BODY...)`; top-level methods put each statement and
/// annotation on its own line.
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

fn method(f: &mut Formatter<'_>, def: &FunctionDef, multiline: bool) -> fmt::Result {
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
    let sep = if multiline { "\n  " } else { " " };
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
    for stmt in &def.body {
        write!(f, "{sep}{stmt}")?;
    }
    write!(f, ")")
}

fn list(f: &mut Formatter<'_>, head: &str, items: &[Expr]) -> fmt::Result {
    write!(f, "({head}")?;
    for item in items {
        write!(f, " {item}")?;
    }
    write!(f, ")")
}

/// `(narrow VAR VALUE BODY...)`, apart from [`Expr`]'s `fmt`, whose frame every level of a
/// deep tree pays for in a debug build.
fn narrow(f: &mut Formatter<'_>, var: &Expr, value: &Expr, body: &[Expr]) -> fmt::Result {
    list(f, &format!("narrow {var} {value}"), body)
}

impl Display for Expr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ExprKind::Float(x) => write!(f, "{x:?}"),
            ExprKind::Int(i) => write!(f, "{i}"),
            ExprKind::Bool(b) => write!(f, "{b}"),
            ExprKind::Nothing => write!(f, "nothing"),
            ExprKind::Str(s) => write!(f, "{s:?}"),
            ExprKind::Symbol(s) => write!(f, ":{s}"),
            ExprKind::Ident(name) => write!(f, "{name}"),
            ExprKind::Tuple(items) => list(f, "tuple", items),
            ExprKind::NamedTuple(fields) => {
                write!(f, "(named-tuple")?;
                for (name, value) in fields {
                    write!(f, " ({name} {value})")?;
                }
                write!(f, ")")
            }
            ExprKind::Vect(items) => list(f, "vect", items),
            ExprKind::Matrix(rows) => {
                write!(f, "(matrix")?;
                for row in rows {
                    write!(f, " ")?;
                    list(f, "row", row)?;
                }
                write!(f, ")")
            }
            ExprKind::Call { callee, args } => list(f, &format!("call {callee}"), args),
            ExprKind::KwCall {
                callee,
                args,
                keywords,
            } => {
                write!(f, "(call {callee}")?;
                for a in args {
                    write!(f, " {a}")?;
                }
                write!(f, " (parameters")?;
                for k in keywords {
                    match k {
                        KeywordArg::Named { name, value, .. } => write!(f, " (= {name} {value})")?,
                        KeywordArg::Splat(value) => write!(f, " {value}...")?,
                    }
                }
                write!(f, "))")
            }
            ExprKind::DotCall { callee, args } => list(f, &format!("dotcall {callee}"), args),
            ExprKind::Binary {
                op,
                dotted,
                lhs,
                rhs,
            } => {
                write!(f, "({}{op} {lhs} {rhs})", if *dotted { "." } else { "" })
            }
            ExprKind::Fold {
                first,
                rest,
                dotted,
            } => {
                // The nested form Julia parses, `(- (+ (- a b) c) d)`, written without
                // recursing per step.
                let dot = if *dotted { "." } else { "" };
                for (op, _) in rest.iter().rev() {
                    write!(f, "({dot}{op} ")?;
                }
                write!(f, "{first}")?;
                for (_, e) in rest {
                    write!(f, " {e})")?;
                }
                Ok(())
            }
            ExprKind::Chain { first, rest } => {
                write!(f, "(chain {first}")?;
                for (op, e) in rest {
                    write!(f, " {op} {e}")?;
                }
                write!(f, ")")
            }
            ExprKind::Unary { op, arg } => {
                let op = match op {
                    UnOp::Neg => "-",
                    UnOp::Plus => "+",
                    UnOp::Not => "!",
                    UnOp::Adjoint => "'",
                };
                write!(f, "({op} {arg})")
            }
            ExprKind::And(a, b) => write!(f, "(&& {a} {b})"),
            ExprKind::Or(a, b) => write!(f, "(|| {a} {b})"),
            ExprKind::Ternary { cond, then, els } => write!(f, "(? {cond} {then} {els})"),
            ExprKind::Index { base, indices } => list(f, &format!("index {base}"), indices),
            ExprKind::Field { base, name } => write!(f, "(. {base} {name})"),
            ExprKind::Range { start, step, stop } => match step {
                Some(step) => write!(f, "(: {start} {step} {stop})"),
                None => write!(f, "(: {start} {stop})"),
            },
            ExprKind::Assign { lhs, rhs } => write!(f, "(= {lhs} {rhs})"),
            ExprKind::Declared { var, ty } => write!(f, "(:: {var} {ty})"),
            ExprKind::DotAssign { lhs, rhs } => write!(f, "(.= {lhs} {rhs})"),
            ExprKind::Views(e) => write!(f, "(@views {e})"),
            ExprKind::CompoundAssign {
                op,
                dotted,
                lhs,
                rhs,
            } => {
                write!(f, "({}{op}= {lhs} {rhs})", if *dotted { "." } else { "" })
            }
            ExprKind::Block(items) => list(f, "block", items),
            ExprKind::If { branches, els } => {
                write!(f, "(if")?;
                for (i, (cond, body)) in branches.iter().enumerate() {
                    write!(f, " ")?;
                    list(
                        f,
                        &format!("{} {cond}", if i == 0 { "then" } else { "elseif" }),
                        body,
                    )?;
                }
                if let Some(body) = els {
                    write!(f, " ")?;
                    list(f, "else", body)?;
                }
                write!(f, ")")
            }
            ExprKind::While { cond, body } => list(f, &format!("while {cond}"), body),
            ExprKind::Checkpoint { snapshots, looped } => match snapshots {
                Some(k) => write!(f, "(checkpoint {k} {looped})"),
                None => write!(f, "(checkpoint {looped})"),
            },
            ExprKind::For {
                var,
                iter,
                body,
                inner,
                outer,
            } => {
                let head = if *inner { "for-inner" } else { "for" };
                let var = if *outer {
                    format!("(outer {var})")
                } else {
                    var.to_string()
                };
                list(f, &format!("{head} {var} {iter}"), body)
            }
            ExprKind::Let { var, value, body } => {
                let var = var.as_ref().map_or(String::new(), |v| v.to_string());
                let value = value.as_ref().map_or(String::new(), |v| format!(" {v}"));
                list(f, &format!("let ({var}{value})"), body)
            }
            ExprKind::Narrow { var, value, body } => narrow(f, var, value, body),
            ExprKind::Try {
                body,
                var,
                catch,
                els,
                finally,
            } => try_block(f, body, var.as_deref(), catch, els, finally),
            ExprKind::Break => write!(f, "(break)"),
            ExprKind::Continue => write!(f, "(continue)"),
            ExprKind::Return(value) => match value {
                Some(v) => write!(f, "(return {v})"),
                None => write!(f, "(return)"),
            },
            ExprKind::Function(def) => method(f, def, false),
            ExprKind::Local(names) => write!(f, "(local {})", names.join(" ")),
            ExprKind::Global(names) => write!(f, "(global {})", names.join(" ")),
            ExprKind::Splat(value) => write!(f, "(... {value})"),
            ExprKind::IndexEnd => write!(f, "end"),
            ExprKind::IndexBegin => write!(f, "begin"),
            ExprKind::Colon => write!(f, ":"),
            ExprKind::Error => write!(f, "(error)"),
        }
    }
}
