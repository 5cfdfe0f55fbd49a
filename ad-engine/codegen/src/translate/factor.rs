//! The factorization primitives of Float64 matrices as calls of the runtime's kernels
//! (`runtime/factor.rs`): `det`, `logdet`, `inv`, `A \ B`, `cholesky_lower`, `tril`, `triu`.
//! A kernel that reports a failure (a matrix that is not square, singular, not positive
//! definite; a negative determinant; sizes that differ) leads to the interpreter's code on the
//! cold path, which raises Julia's error at the statement.

use cranelift_codegen::ir::{types, InstBuilder, StackSlotData, StackSlotKind};
use zy_ir::{Operand, Prim, Span, Type};

use super::{ClValue, Translator, R};
use crate::error::JitError;

impl Translator<'_, '_, '_> {
    /// Translations of the factorization primitives on Float64 operands.
    pub(super) fn factor(
        &mut self,
        p: Prim,
        args: &[Operand],
        tys: &[Type],
        ty: &Type,
        span: Span,
    ) -> R<Option<Vec<ClValue>>> {
        let matrix = Type::matrix_f64();
        let f64_array = |t: &Type| matches!(t, Type::Array(e, 1 | 2) if **e == Type::Float64);
        Ok(Some(match (p, tys) {
            (Prim::Det | Prim::LogDet, [a]) if *a == matrix && *ty == Type::Float64 => {
                let x = self.pointer(&args[0])?;
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    8,
                    3,
                ));
                let out = self.b.ins().stack_addr(types::I64, slot, 0);
                let rt = if p == Prim::Det {
                    self.env.rt.det
                } else {
                    self.env.rt.logdet
                };
                let bad = self
                    .call_rt(rt, &[x, out])
                    .ok_or_else(|| JitError::invalid("det"))?;
                self.guarded(
                    bad,
                    &[types::F64],
                    |t| t.fallback(p, args, ty, span),
                    |t| Ok(vec![t.b.ins().stack_load(types::I64, types::F64, slot, 0)]),
                )?
            }
            (Prim::Inv | Prim::CholeskyLower, [a]) if *a == matrix && *ty == matrix => {
                let x = self.pointer(&args[0])?;
                let rt = if p == Prim::Inv {
                    self.env.rt.inv
                } else {
                    self.env.rt.cholesky_lower
                };
                let ctx = self.ctx();
                let out = self.call_rt(rt, &[ctx, x]);
                self.or_interpreted(out, p, args, ty, span)?
            }
            (Prim::Solve, [a, b]) if *a == matrix && f64_array(b) && ty == b => {
                let (x, y) = (self.pointer(&args[0])?, self.pointer(&args[1])?);
                let rt = self.env.rt.solve;
                let ctx = self.ctx();
                let out = self.call_rt(rt, &[ctx, x, y]);
                self.or_interpreted(out, p, args, ty, span)?
            }
            (Prim::Tril | Prim::Triu, [a, rest @ ..])
                if *a == matrix && *ty == matrix && rest.iter().all(|t| *t == Type::Int64) =>
            {
                let x = self.pointer(&args[0])?;
                let k = match args.get(1) {
                    Some(k) => self.operand(k)?[0],
                    None => self.b.ins().iconst(types::I64, 0),
                };
                let upper = self.b.ins().iconst(types::I8, i64::from(p == Prim::Triu));
                let rt = self.env.rt.band;
                let ctx = self.ctx();
                vec![self
                    .call_rt(rt, &[ctx, x, k, upper])
                    .ok_or_else(|| JitError::invalid("band"))?]
            }
            _ => return Ok(None),
        }))
    }

    /// The array a kernel returned, or (when it returned null) the interpreter's result of
    /// `p(args)`, which raises the error the kernel declined.
    fn or_interpreted(
        &mut self,
        out: Option<ClValue>,
        p: Prim,
        args: &[Operand],
        ty: &Type,
        span: Span,
    ) -> R<Vec<ClValue>> {
        let out = out.ok_or_else(|| JitError::invalid(format!("`{p}` kernel")))?;
        self.object_or_fallback(out, p, args, ty, span)
    }
}
