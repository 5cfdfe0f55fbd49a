//! The direct subexpressions of an expression, for the passes that walk the AST.

use crate::ast::{Expr, ExprKind, KeywordArg};

impl Expr {
    /// The direct subexpressions in evaluation order (none for a function definition, whose
    /// body is another function).
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Float(_)
            | ExprKind::Int(_)
            | ExprKind::Bool(_)
            | ExprKind::Nothing
            | ExprKind::Str(_)
            | ExprKind::Symbol(_)
            | ExprKind::Ident(_)
            | ExprKind::Break
            | ExprKind::Continue
            | ExprKind::Local(_)
            | ExprKind::Global(_)
            | ExprKind::IndexEnd
            | ExprKind::IndexBegin
            | ExprKind::Colon
            | ExprKind::Error
            | ExprKind::Function(_)
            | ExprKind::Return(None) => Vec::new(),
            ExprKind::Tuple(es) | ExprKind::Vect(es) | ExprKind::Block(es) => es.iter().collect(),
            ExprKind::NamedTuple(fields) => fields.iter().map(|(_, e)| e).collect(),
            ExprKind::Matrix(rows) => rows.iter().flatten().collect(),
            ExprKind::Call { callee, args } | ExprKind::DotCall { callee, args } => {
                std::iter::once(&**callee).chain(args).collect()
            }
            ExprKind::KwCall {
                callee,
                args,
                keywords,
            } => std::iter::once(&**callee)
                .chain(args)
                .chain(keywords.iter().map(KeywordArg::value))
                .collect(),
            ExprKind::Declared { var: lhs, ty: rhs }
            | ExprKind::Binary { lhs, rhs, .. }
            | ExprKind::DotAssign { lhs, rhs }
            | ExprKind::Assign { lhs, rhs }
            | ExprKind::CompoundAssign { lhs, rhs, .. }
            | ExprKind::And(lhs, rhs)
            | ExprKind::Or(lhs, rhs) => vec![lhs, rhs],
            ExprKind::Chain { first, rest } | ExprKind::Fold { first, rest, .. } => {
                std::iter::once(&**first)
                    .chain(rest.iter().map(|(_, e)| e))
                    .collect()
            }
            ExprKind::Unary { arg, .. }
            | ExprKind::Splat(arg)
            | ExprKind::Views(arg)
            | ExprKind::Field { base: arg, .. }
            | ExprKind::Return(Some(arg))
            | ExprKind::Checkpoint { looped: arg, .. } => vec![arg],
            ExprKind::Ternary { cond, then, els } => vec![cond, then, els],
            ExprKind::Index { base, indices } => std::iter::once(&**base).chain(indices).collect(),
            ExprKind::Range { start, step, stop } => std::iter::once(&**start)
                .chain(step.as_deref())
                .chain([&**stop])
                .collect(),
            ExprKind::If { branches, els } => branches
                .iter()
                .flat_map(|(c, body)| std::iter::once(c).chain(body))
                .chain(els.iter().flatten())
                .collect(),
            ExprKind::While { cond, body } => std::iter::once(&**cond).chain(body).collect(),
            ExprKind::For {
                var, iter, body, ..
            } => [&**iter, &**var].into_iter().chain(body).collect(),
            ExprKind::Let { var, value, body } => value
                .as_deref()
                .into_iter()
                .chain(var.as_deref())
                .chain(body)
                .collect(),
            ExprKind::Narrow { var, value, body } => {
                [&**var, &**value].into_iter().chain(body).collect()
            }
            ExprKind::Try {
                body,
                var,
                catch,
                els,
                finally,
            } => body
                .iter()
                .chain(var.as_deref())
                .chain(catch.iter().flatten())
                .chain(els.iter().flatten())
                .chain(finally.iter().flatten())
                .collect(),
        }
    }

    /// [`Expr::children`], mutable, in the same order.
    pub fn children_mut(&mut self) -> Vec<&mut Expr> {
        match &mut self.kind {
            ExprKind::Float(_)
            | ExprKind::Int(_)
            | ExprKind::Bool(_)
            | ExprKind::Nothing
            | ExprKind::Str(_)
            | ExprKind::Symbol(_)
            | ExprKind::Ident(_)
            | ExprKind::Break
            | ExprKind::Continue
            | ExprKind::Local(_)
            | ExprKind::Global(_)
            | ExprKind::IndexEnd
            | ExprKind::IndexBegin
            | ExprKind::Colon
            | ExprKind::Error
            | ExprKind::Function(_)
            | ExprKind::Return(None) => Vec::new(),
            ExprKind::Tuple(es) | ExprKind::Vect(es) | ExprKind::Block(es) => {
                es.iter_mut().collect()
            }
            ExprKind::NamedTuple(fields) => fields.iter_mut().map(|(_, e)| e).collect(),
            ExprKind::Matrix(rows) => rows.iter_mut().flatten().collect(),
            ExprKind::Call { callee, args } | ExprKind::DotCall { callee, args } => {
                std::iter::once(&mut **callee).chain(args).collect()
            }
            ExprKind::KwCall {
                callee,
                args,
                keywords,
            } => std::iter::once(&mut **callee)
                .chain(args)
                .chain(keywords.iter_mut().map(|k| match k {
                    KeywordArg::Named { value, .. } | KeywordArg::Splat(value) => value,
                }))
                .collect(),
            ExprKind::Declared { var: lhs, ty: rhs }
            | ExprKind::Binary { lhs, rhs, .. }
            | ExprKind::DotAssign { lhs, rhs }
            | ExprKind::Assign { lhs, rhs }
            | ExprKind::CompoundAssign { lhs, rhs, .. }
            | ExprKind::And(lhs, rhs)
            | ExprKind::Or(lhs, rhs) => vec![&mut **lhs, &mut **rhs],
            ExprKind::Chain { first, rest } | ExprKind::Fold { first, rest, .. } => {
                std::iter::once(&mut **first)
                    .chain(rest.iter_mut().map(|(_, e)| e))
                    .collect()
            }
            ExprKind::Unary { arg, .. }
            | ExprKind::Splat(arg)
            | ExprKind::Views(arg)
            | ExprKind::Field { base: arg, .. }
            | ExprKind::Return(Some(arg))
            | ExprKind::Checkpoint { looped: arg, .. } => vec![&mut **arg],
            ExprKind::Ternary { cond, then, els } => vec![&mut **cond, &mut **then, &mut **els],
            ExprKind::Index { base, indices } => {
                std::iter::once(&mut **base).chain(indices).collect()
            }
            ExprKind::Range { start, step, stop } => std::iter::once(&mut **start)
                .chain(step.as_deref_mut())
                .chain([&mut **stop])
                .collect(),
            ExprKind::If { branches, els } => branches
                .iter_mut()
                .flat_map(|(c, body)| std::iter::once(c).chain(body))
                .chain(els.iter_mut().flatten())
                .collect(),
            ExprKind::While { cond, body } => std::iter::once(&mut **cond).chain(body).collect(),
            ExprKind::For {
                var, iter, body, ..
            } => [&mut **iter, &mut **var].into_iter().chain(body).collect(),
            ExprKind::Let { var, value, body } => value
                .as_deref_mut()
                .into_iter()
                .chain(var.as_deref_mut())
                .chain(body)
                .collect(),
            ExprKind::Narrow { var, value, body } => {
                [&mut **var, &mut **value].into_iter().chain(body).collect()
            }
            ExprKind::Try {
                body,
                var,
                catch,
                els,
                finally,
            } => body
                .iter_mut()
                .chain(var.as_deref_mut())
                .chain(catch.iter_mut().flatten())
                .chain(els.iter_mut().flatten())
                .chain(finally.iter_mut().flatten())
                .collect(),
        }
    }
}
