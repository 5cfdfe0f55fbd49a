//! Lowering of the AST to untyped SSA (`zy_ir::Program`), following the untyped-IR convention:
//! every operation is a call by name, control flow becomes blocks with parameters (φ nodes),
//! closures become environment structs with call methods, and Julia's scoping rules decide
//! which identifiers are locals, captures, boxes, top-level bindings or functions.
//!
//! SSA construction follows Braun et al., "Simple and Efficient Construction of SSA Form",
//! through [`zy_ir::SsaBuilder`]; a final tidy pass drops unreachable code, unused φs and
//! empty blocks. Each top-level item lowers on its own ([`lower_method`] / [`lower_function`],
//! [`lower_struct`], [`lower_global`]) so a salsa layer can re-lower one item after an edit;
//! [`lower_file`] combines them. Closures are named after the method that contains them and a
//! counter within it (`#f#1`), never after other items.
//!
//! Module map: `checkpoint` rewrites loops under `# zy: checkpoint` into checkpointed chunks;
//! `scope` resolves names (Julia's scoping rules, captures, boxes) before anything
//! is emitted; `body` holds the per-body state and plain expressions; `split` finds the locals a
//! closure shares with its maker in name only; `boxes` follows which captured variables' boxes
//! exist on each path; `control`, `assign` and
//! `closure` lower control flow, assignments and function definitions (`keywords` and
//! `kwclosure` those with keyword or optional parameters); `index` gives `end`,
//! `begin` and `:` their meaning inside brackets and lowers ranges as values; `dotassign`
//! lowers in-place broadcasts (`x .= v`, `x[I] .+= v`); `trycatch` lowers `try`/`catch`/
//! `finally` to exception handlers; `tidy` cleans each body;
//! `item` lowers top-level items.

mod assign;
mod body;
mod boxes;
mod checkpoint;
mod closure;
mod control;
mod dotassign;
mod index;
mod item;
mod keywords;
mod kwclosure;
mod scope;
mod split;
mod tidy;
mod trycatch;

use std::sync::Arc;

use zy_ir::{
    Const, Function, Global, Method, Name, Op, Operand, Program, Span, Stmt, StructDef, ValueKind,
    SET_GLOBAL,
};

pub use item::{
    generic_name, lower_file, lower_function, lower_global, lower_method, lower_struct,
};

/// What `x.f` calls: Julia's `getproperty`, whose default is `getfield`. Name resolution makes
/// it `getfield` where the program defines no `Base.getproperty` method.
pub const GETPROPERTY: &str = "Base.getproperty";

/// What `x.f = v` calls: Julia's `setproperty!`, whose default is `setfield!` (made so where
/// the program defines no `Base.setproperty!` method).
pub const SETPROPERTY: &str = "Base.setproperty!";

/// The refusal a construct the parser refused ([`zy_syntax::ast::ExprKind::Error`]) lowers
/// to, until [`LoweredItem::name_refusals`] puts the parser's message for it in its place.
pub const REFUSED_CONSTRUCT: &str = "unsupported: a construct outside zy's subset";

/// An error found while lowering (the parser reports its own separately).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct LowerError {
    pub span: Span,
    /// `unsupported` or `syntax-error`.
    pub code: &'static str,
    /// One line naming the construct: "unsupported: range outside a for loop header".
    pub message: String,
}

/// A lowered file.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Lowered {
    pub program: Program,
    pub errors: Vec<LowerError>,
}

/// Does `body` lower a construct the parser refused (a call `error(:unsupported, what)` with
/// `what` the `placeholder`)?
fn refuses_construct(body: &Function, placeholder: Option<&str>) -> bool {
    body.values.iter().any(|v| {
        matches!(&v.kind, ValueKind::Stmt(Stmt { op: Op::Call(f), args })
            if &**f == "error"
                && matches!(args.as_slice(), [_, Operand::Const(Const::Str(w))] if Some(&**w) == placeholder))
    })
}

/// The top-level bindings `body` rebinds (its calls of [`SET_GLOBAL`]).
fn rebound_globals(body: &Function) -> impl Iterator<Item = Name> + '_ {
    body.values.iter().filter_map(|v| match &v.kind {
        ValueKind::Stmt(Stmt {
            op: Op::Call(f),
            args,
            ..
        }) if &**f == SET_GLOBAL => match args.first() {
            Some(Operand::Const(Const::Func(name))) => Some(name.clone()),
            _ => None,
        },
        _ => None,
    })
}

/// What one top-level item lowers to.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct LoweredItem {
    /// Methods with the generic function each belongs to: the item's own method first, then
    /// the call methods of its closures (`(::#f#1)`).
    pub methods: Vec<(Name, Method)>,
    /// A struct definition, and closure environments.
    pub structs: Vec<StructDef>,
    /// A top-level binding's thunk.
    pub globals: Vec<Global>,
    pub errors: Vec<LowerError>,
}

impl LoweredItem {
    /// Give each construct the parser refused (lowered to [`REFUSED_CONSTRUCT`]) the parser's
    /// message, `message(span)` (`unsupported: integer literal ...`), so that a run reaching
    /// it stops with that refusal.
    pub fn name_refusals(&mut self, message: impl Fn(Span) -> Option<String>) {
        let placeholder = REFUSED_CONSTRUCT.strip_prefix("unsupported: ");
        for (_, method) in &mut self.methods {
            if !refuses_construct(&method.body, placeholder) {
                continue;
            }
            let body = Arc::make_mut(&mut method.body);
            for v in 0..body.values.len() {
                let span = body.values[v].span;
                let ValueKind::Stmt(Stmt {
                    op: Op::Call(f),
                    args,
                }) = &mut body.values[v].kind
                else {
                    continue;
                };
                let what = match args.as_slice() {
                    [_, Operand::Const(Const::Str(what))] if &**f == "error" => what,
                    _ => continue,
                };
                if Some(&**what) != placeholder {
                    continue;
                }
                if let Some(m) = message(span) {
                    let named = m.strip_prefix("unsupported: ").unwrap_or(&m);
                    args[1] = Const::Str(named.into()).into();
                }
            }
        }
    }

    /// Add the item to `program`, reporting struct or binding names defined twice.
    pub fn add_to(self, program: &mut Program, errors: &mut Vec<LowerError>) {
        errors.extend(self.errors);
        for (name, method) in self.methods {
            program.rebound.extend(rebound_globals(&method.body));
            program.add_method(name, method);
        }
        for s in self.structs {
            let defined = program.structs.contains_key(&s.name);
            if defined || program.aliases.contains_key(&s.name) {
                let what = if defined { "struct" } else { "constant" };
                errors.push(LowerError {
                    span: s.span,
                    code: "syntax-error",
                    message: format!("syntax: invalid redefinition of {what} `{}`", s.name),
                });
            }
            match s.alias {
                Some(_) => program.aliases.insert(s.name.clone(), s),
                None => program.structs.insert(s.name.clone(), s),
            };
        }
        for g in self.globals {
            if program.globals.contains_key(&g.name) {
                errors.push(LowerError {
                    span: g.span,
                    code: "unsupported",
                    message: format!(
                        "unsupported: top-level binding `{}` assigned more than once; assign it once, or give each value a name of its own, instead",
                        g.name
                    ),
                });
            }
            program.globals.insert(g.name.clone(), g);
        }
    }
}
