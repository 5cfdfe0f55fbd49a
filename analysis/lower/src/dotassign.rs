//! In-place broadcasting: `x .= v` is `broadcast!(identity, x, v)`, as Julia's
//! `materialize!` means it (`x` any expression: `similar(y) .= v` fills a new array); an indexed target `x[I...] .= v` writes into
//! `dotview(x, I...)`, a view of those elements, so the write reaches `x`. `x .op= v` is
//! `x .= x .op v` with the target evaluated once. The expression's value is the target.

use zy_ir::{Const, Operand};
use zy_syntax::ast::{BinOp, Expr, ExprKind, TextRange};

use crate::body::BodyLowerer;

impl BodyLowerer<'_, '_> {
    /// `lhs .= rhs`, or `lhs .op= rhs` when `op` is given.
    pub(crate) fn dot_assign(
        &mut self,
        lhs: &Expr,
        rhs: &Expr,
        op: Option<BinOp>,
        r: TextRange,
    ) -> Operand {
        let dest = match &lhs.kind {
            ExprKind::Index { base, indices } => {
                let x = self.expr(base);
                let mut args = self.indices(&x, indices);
                args.insert(0, x);
                self.call("dotview", args, lhs.range)
            }
            // A name, a field, or any other expression's value (a call's result).
            _ => self.expr(lhs),
        };
        let mut value = self.expr(rhs);
        if let Some(op) = op {
            let f = Const::Func(op.as_str().into()).into();
            value = self.call("broadcast", vec![f, dest.clone(), value], r);
        }
        let identity = Const::Func("identity".into()).into();
        self.call("broadcast!", vec![identity, dest.clone(), value], r);
        dest
    }
}
