//! Assignments: to locals, into arrays and `Ref`s (`setindex!`), into fields (`setproperty!`),
//! destructuring, and compound assignment with the target's parts evaluated once.

use zy_ir::{Const, Operand, SET_GLOBAL};
use zy_syntax::ast::{BinOp, Expr, ExprKind, TextRange};

use crate::body::BodyLowerer;
use crate::{GETPROPERTY, SETPROPERTY};

/// The helper reading item `i` of a destructured value, by its qualified name so that no user
/// function captures it: inference reads a tuple's or an array's `x[i]`, and the items of a
/// struct with `iterate` methods or of a generator by iterating (Julia's `indexed_iterate`).
const DESTRUCTURE: &str = "Base._destructure";

/// The helper reading the items of a destructured value from `i` on, all but the last `k`, for
/// a slurping target `a, b... = x` or `a, b..., c = x` (Julia's `Base.rest`,
/// `Base.split_rest`): a tuple of them, or a new vector of an array's.
const DESTRUCTURE_REST: &str = "Base._destructure_rest";

/// The helper reading the item `j` places before the end of a destructured value, for a target
/// after a slurping one (`c` in `a, b..., c = x` is `x[end]`).
const DESTRUCTURE_END: &str = "Base._destructure_end";

impl BodyLowerer<'_, '_> {
    /// `lhs = rhs`; the value is `rhs`.
    pub(crate) fn assign(&mut self, lhs: &Expr, rhs: &Expr, r: TextRange) -> Operand {
        match &lhs.kind {
            ExprKind::Index { base, indices } => {
                let x = self.expr(base);
                let idx = self.indices(&x, indices);
                let v = self.expr(rhs);
                let mut args = vec![x, v.clone()];
                args.extend(idx);
                self.call("setindex!", args, r);
                v
            }
            ExprKind::Field { base, name } => {
                let s = self.expr(base);
                let v = self.expr(rhs);
                let field = Const::Symbol(name.as_str().into()).into();
                self.call(SETPROPERTY, vec![s, field, v.clone()], r);
                v
            }
            ExprKind::Ident(_)
            | ExprKind::Tuple(_)
            | ExprKind::NamedTuple(_)
            | ExprKind::Declared { .. } => {
                let v = self.expr(rhs);
                self.bind(lhs, v.clone());
                v
            }
            _ => {
                self.expr(rhs);
                self.invalid_target(lhs)
            }
        }
    }

    /// Bind an identifier, or destructure into a tuple of targets: `a, b = t` is
    /// `a = t[1]; b = t[2]` (by [`DESTRUCTURE`]); a target may be an element or a field (`v[i], v[j] = v[j], v[i]`),
    /// its array and indices evaluated when it is assigned, after the right-hand side, as Julia.
    pub(crate) fn bind(&mut self, target: &Expr, value: Operand) {
        match &target.kind {
            ExprKind::Index { base, indices } => {
                let x = self.expr(base);
                let idx = self.indices(&x, indices);
                let mut args = vec![x, value];
                args.extend(idx);
                self.call("setindex!", args, target.range);
            }
            ExprKind::Field { base, name } => {
                let s = self.expr(base);
                let field = Const::Symbol(name.as_str().into()).into();
                self.call(SETPROPERTY, vec![s, field, value], target.range);
            }
            // The conversion to the declared type is `assign_local`'s.
            ExprKind::Declared { var, .. } => self.bind(var, value),
            ExprKind::Ident(name) => match self.cx.res.local(target) {
                Some(v) => self.assign_local(v, value, target.range),
                None if self
                    .cx
                    .res
                    .global_targets
                    .contains(&(target as *const Expr)) =>
                {
                    let binding = Const::Func(name.as_str().into()).into();
                    self.call(SET_GLOBAL, vec![binding, value], target.range);
                }
                None => {
                    // Scope resolution declares every assigned name; reaching here means the
                    // name is not assignable (a malformed tree).
                    let message = format!("syntax: cannot assign to `{name}` here");
                    self.cx.error(target.range, "syntax-error", message);
                }
            },
            ExprKind::Tuple(items) => {
                let slurp = items
                    .iter()
                    .position(|item| matches!(item.kind, ExprKind::Splat(_)));
                for (i, item) in items.iter().enumerate() {
                    // Items after a slurp count from the end: `c` in `a, b..., c = x` is
                    // `x[end]` (Julia's `Base.split_rest`).
                    let after = slurp.filter(|&s| i > s).map(|_| items.len() - 1 - i);
                    if let ExprKind::Splat(inner) = &item.kind {
                        if slurp != Some(i) {
                            let message = "syntax: multiple `...` in destructuring assignment \
                                           are ambiguous";
                            self.fail(item.range, "syntax-error", message.to_string());
                            continue;
                        }
                        let left = (items.len() - 1 - i) as i64;
                        let rest = self.call(
                            DESTRUCTURE_REST,
                            vec![
                                value.clone(),
                                Const::Int(i as i64 + 1).into(),
                                Const::Int(left).into(),
                            ],
                            item.range,
                        );
                        self.bind(inner, rest);
                        continue;
                    }
                    if let Some(from_end) = after {
                        let x = self.call(
                            DESTRUCTURE_END,
                            vec![value.clone(), Const::Int(from_end as i64).into()],
                            item.range,
                        );
                        self.bind(item, x);
                        continue;
                    }
                    let x = self.call(
                        DESTRUCTURE,
                        vec![value.clone(), Const::Int(i as i64 + 1).into()],
                        item.range,
                    );
                    self.bind(item, x);
                }
            }
            // `(; a, b) = nt`: `a = nt.a; b = nt.b` (Julia's `getproperty`).
            ExprKind::NamedTuple(fields) => {
                for (name, item) in fields {
                    if !matches!(&item.kind, ExprKind::Ident(n) if n == name) {
                        let message = "syntax: invalid assignment location; destructure a named \
                                       tuple into its own names, `(; a, b) = nt`";
                        self.fail(item.range, "syntax-error", message.to_string());
                        continue;
                    }
                    let field = Const::Symbol(name.as_str().into()).into();
                    let x = self.call(GETPROPERTY, vec![value.clone(), field], item.range);
                    self.bind(item, x);
                }
            }
            // `a = 1, b = 2` is `a = ((1, b) = 2)`: Julia's lowering rejects the literal.
            _ if describe(target) == "a literal" => {
                let message = "syntax: invalid assignment location (a literal)";
                self.fail(target.range, "syntax-error", message.to_string());
            }
            _ => {
                let what = describe(target);
                let message =
                    format!("unsupported: destructuring into {what}; destructure into names, elements (`a[i]`) or fields (`s.f`) instead");
                self.fail(target.range, "unsupported", message);
            }
        }
    }

    /// `lhs op= rhs`: `x = x op rhs`; for `x[i] op= v` and `s.f op= v` the array, indices and
    /// struct are evaluated once. The value is the new value.
    pub(crate) fn compound_assign(
        &mut self,
        op: BinOp,
        dotted: bool,
        lhs: &Expr,
        rhs: &Expr,
        r: TextRange,
    ) -> Operand {
        if dotted {
            return self.dot_assign(lhs, rhs, Some(op), r);
        }
        match &lhs.kind {
            ExprKind::Ident(_) => {
                let old = self.expr(lhs);
                let v = self.expr(rhs);
                let new = self.call(op.as_str(), vec![old, v], r);
                self.bind(lhs, new.clone());
                new
            }
            ExprKind::Index { base, indices } => {
                let x = self.expr(base);
                let idx = self.indices(&x, indices);
                let mut get = vec![x.clone()];
                get.extend(idx.iter().cloned());
                let old = self.call("getindex", get, lhs.range);
                let v = self.expr(rhs);
                let new = self.call(op.as_str(), vec![old, v], r);
                let mut set = vec![x, new.clone()];
                set.extend(idx);
                self.call("setindex!", set, r);
                new
            }
            ExprKind::Field { base, name } => {
                let s = self.expr(base);
                let field: Operand = Const::Symbol(name.as_str().into()).into();
                let old = self.call(GETPROPERTY, vec![s.clone(), field.clone()], lhs.range);
                let v = self.expr(rhs);
                let new = self.call(op.as_str(), vec![old, v], r);
                self.call(SETPROPERTY, vec![s, field, new.clone()], r);
                new
            }
            _ => {
                self.expr(rhs);
                self.invalid_target(lhs)
            }
        }
    }
}

impl BodyLowerer<'_, '_> {
    /// Report an assignment to something that cannot be assigned; lower it as `error`.
    fn invalid_target(&mut self, lhs: &Expr) -> Operand {
        let what = describe(lhs);
        let message = format!("syntax: invalid assignment location: cannot assign to {what}");
        self.fail(lhs.range, "syntax-error", message)
    }
}

/// A short description of an expression form, for error messages.
fn describe(e: &Expr) -> &'static str {
    match &e.kind {
        ExprKind::Float(_)
        | ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Nothing
        | ExprKind::Str(_) => "a literal",
        ExprKind::Ident(_) => "a name",
        ExprKind::Tuple(_) => "a tuple",
        ExprKind::Call { .. } | ExprKind::DotCall { .. } => "a call",
        ExprKind::Index { .. } => "an indexed element",
        ExprKind::Field { .. } => "a field",
        ExprKind::Binary { .. }
        | ExprKind::Fold { .. }
        | ExprKind::Unary { .. }
        | ExprKind::Chain { .. } => "an operator expression",
        _ => "this expression",
    }
}
