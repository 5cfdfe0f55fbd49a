//! Domain checks held back over a run of arithmetic.
//!
//! `sin(x)` raises a DomainError at `±Inf`, `log(x)` and `sqrt(x)` below 0: each elementary
//! function checks its operand. A branch per check splits a straight-line function into four
//! blocks a call, which is what Cranelift's register allocator pays for (its live-in sets are
//! blocks × live values). Inside a run of statements that neither fail otherwise nor have an
//! effect, the checks are instead folded into three values — whether any failed, and the site
//! and operand of the first that did — and tested once where the run ends: before a statement
//! that may fail or write, and before the terminator. The failed check's own statement then
//! raises its error in the runtime, the same error the branch would have raised, and nothing
//! the run computed with the functions' unchecked results is seen.

use cranelift_codegen::ir::{types, InstBuilder, StackSlotData, StackSlotKind};
use zy_ir::{Op, Operand, Type};

use super::fuse::Fused;
use super::scalar::Slow;
use super::{ClValue, Translator, R};
use crate::runtime::ctx_offset;
use crate::runtime::site::FallbackArg;

/// The checks of the run so far.
pub(super) struct Held {
    /// Some check failed (an I8).
    any: ClValue,
    /// The fallback site of the first that failed.
    site: ClValue,
    /// Its operand.
    arg: ClValue,
}

impl Translator<'_, '_, '_> {
    /// Can statement `v` be translated with domain checks held back? Arithmetic on numbers that
    /// neither writes, allocates nor calls, and throws nothing but the DomainError of an
    /// elementary function of a Float64.
    pub(super) fn keeps_checks(&self, v: zy_ir::Value) -> bool {
        let Some(stmt) = self.func.stmt(v) else {
            return false;
        };
        if !matches!(
            self.fused.get(&v),
            None | Some(Fused::SinCos { .. } | Fused::Ahead)
        ) {
            return false;
        }
        let Op::Prim(p) = stmt.op else {
            return false;
        };
        let number = |t: &Type| matches!(t, Type::Float64 | Type::Int64 | Type::Bool);
        let plain = |op: &Operand| match op {
            Operand::Value(x) => self.maybe_undef[x.index()].is_none() && number(self.func.ty(*x)),
            Operand::Const(c) => matches!(
                c,
                zy_ir::Const::F64(_) | zy_ir::Const::Int(_) | zy_ir::Const::Bool(_)
            ),
        };
        let e = p.info().effects;
        let elementary = p.math().is_some()
            && *self.func.ty(v) == Type::Float64
            && stmt.args.len() == 1
            && self.func.operand_ty(&stmt.args[0]) == Type::Float64;
        !e.allocates
            && e.mutates.is_none()
            && !e.calls
            && !e.observed
            && (e.throws == zy_ir::Throws::Never || elementary)
            && stmt.args.iter().all(plain)
            && number(self.func.ty(v))
    }

    /// The values `fast` computes, checked by `bad` (nonzero when `slow`'s statement raises its
    /// DomainError): held back in a run of [`Self::keeps_checks`] statements, else a branch to
    /// the runtime. `fast` makes `n` values; the runtime's are its result `n` times.
    pub(super) fn domain_checked(
        &mut self,
        bad: ClValue,
        slow: &Slow<'_>,
        n: usize,
        fast: impl FnOnce(&mut Self) -> R<Vec<ClValue>>,
    ) -> R<Vec<ClValue>> {
        let held_arg = match slow.args {
            [Operand::Value(x)]
                if self.hold_checks
                    && !self.in_slow_path
                    && !slow.whole
                    && *slow.ty == Type::Float64
                    && *self.func.ty(*x) == Type::Float64 =>
            {
                self.operand(&slow.args[0])?.first().copied()
            }
            _ => None,
        };
        let Some(x) = held_arg else {
            // The checks held so far come first.
            self.flush_checks();
            let tys = vec![types::F64; n];
            return self.guarded(
                bad,
                &tys,
                |t| Ok(vec![t.slow_path(slow, types::F64)?[0]; n]),
                fast,
            );
        };
        let out = fast(self)?;
        let site = self.fallback_site(
            slow.p,
            vec![FallbackArg::Slots {
                ty: Type::Float64,
                offset: 0,
            }],
            slow.ty,
            slow.span,
            true,
        );
        self.held = Some(match self.held.take() {
            None => Held {
                any: bad,
                site,
                arg: x,
            },
            Some(h) => Held {
                site: self.b.ins().select(h.any, h.site, site),
                arg: self.b.ins().select(h.any, h.arg, x),
                any: self.b.ins().bor(h.any, bad),
            },
        });
        Ok(out)
    }

    /// Test the held checks: when one failed, its statement raises its error in the runtime.
    pub(super) fn flush_checks(&mut self) {
        let Some(h) = self.held.take() else {
            return;
        };
        let slow = self.b.create_block();
        let cont = self.b.create_block();
        self.b.set_cold_block(slow);
        self.b.ins().brif(h.any, slow, &[], cont, &[]);
        self.b.switch_to_block(slow);
        let ss =
            self.b
                .create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8, 3));
        self.b.ins().stack_store(types::I64, h.arg, ss, 0);
        let buf = self.b.ins().stack_addr(types::I64, ss, 0);
        let rt = self.env.rt.fallback;
        self.call_rt(rt, &[self.ctx, h.site, buf]);
        let e = self
            .b
            .ins()
            .load(types::I64, super::mem(), self.ctx, ctx_offset::ERROR);
        self.b.ins().brif(e, self.bail, &[], cont, &[]);
        self.b.switch_to_block(cont);
    }
}
