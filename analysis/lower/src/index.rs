//! Indexing and ranges: the operands of `x[i, j]` with `end`, `begin` and `:` given their
//! meaning for the indexed value, and ranges as values (`a:b`, `a:s:b`).
//!
//! Julia lowers `end` in `x[..., end, ...]` to `lastindex(x)` with one index and to
//! `lastindex(x, d)` in position `d` of several; zy calls `_end_index(x)` (inference's
//! `length(x)`, but for a string's `lastindex`) and `size(x, d)`, which are those for every
//! indexable value of the subset (arrays, tuples, ranges, strings), so that a tuple's `t[end]`
//! stays a constant index. `begin` is `firstindex`, 1 for all of them. `:` as
//! a value is `Colon()`. The indexed value is evaluated once, before its indices.

use zy_ir::{Const, Operand};
use zy_syntax::ast::{Expr, TextRange};

use crate::body::BodyLowerer;

/// The innermost indexing being lowered: what `end` refers to.
pub(crate) struct IndexCx {
    /// The indexed value.
    base: Operand,
    /// How many indices the brackets hold.
    count: usize,
    /// The 0-based position of the index being lowered.
    dim: usize,
}

impl BodyLowerer<'_, '_> {
    /// The operands of the indices of `base[indices...]`.
    pub(crate) fn indices(&mut self, base: &Operand, indices: &[Expr]) -> Vec<Operand> {
        self.index_cx.push(IndexCx {
            base: base.clone(),
            count: indices.len(),
            dim: 0,
        });
        let mut out = Vec::with_capacity(indices.len());
        for (d, i) in indices.iter().enumerate() {
            if let Some(cx) = self.index_cx.last_mut() {
                cx.dim = d;
            }
            out.push(self.expr(i));
        }
        self.index_cx.pop();
        out
    }

    /// `end` inside brackets: `_end_index(x)` for one index, `size(x, d)` for several.
    pub(crate) fn index_end(&mut self, r: TextRange) -> Operand {
        let Some(cx) = self.index_cx.last() else {
            return self.fail(r, "syntax-error", "syntax error: unexpected `end`".into());
        };
        let (base, count, dim) = (cx.base.clone(), cx.count, cx.dim);
        if count == 1 {
            self.call("Base._end_index", vec![base], r)
        } else {
            let d = Const::Int(dim as i64 + 1).into();
            self.call("size", vec![base, d], r)
        }
    }

    /// `begin` inside brackets: the first index, 1.
    pub(crate) fn index_begin(&mut self, r: TextRange) -> Operand {
        if self.index_cx.is_empty() {
            return self.fail(r, "syntax-error", "syntax error: unexpected `begin`".into());
        }
        Const::Int(1).into()
    }

    /// `:` as a value: `Colon()`.
    pub(crate) fn colon(&mut self, r: TextRange) -> Operand {
        self.call("Colon", Vec::new(), r)
    }

    /// `a:b` is `(:)(a, b)` and `a:s:b` is `(:)(a, s, b)`, as in Julia.
    pub(crate) fn range_value(
        &mut self,
        start: &Expr,
        step: Option<&Expr>,
        stop: &Expr,
        r: TextRange,
    ) -> Operand {
        let mut args = vec![self.expr(start)];
        if let Some(s) = step {
            args.push(self.expr(s));
        }
        args.push(self.expr(stop));
        self.call(":", args, r)
    }
}
