//! The AD primitives: typed bump-pointer stacks (one push stores exactly the packed bytes of
//! the pushed value), structural zeros and tangent accumulation of scalar-replaced values.

use std::collections::HashSet;

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder};
use cranelift_frontend::Variable;
use zy_ir::{Function, Op, Operand, Prim, Span, Type};

use super::{mem, ClValue, Translator, R};
use crate::error::JitError;
use crate::layout::{packed_offsets, Slot};
use crate::runtime::arena::{array_offset, stack_offset};

use super::scalar::Slow;

/// Registers holding a stack's data pointer, length and capacity while a function uses it.
/// Stores of the length go through to the stack object (so it is always current in memory);
/// loads do not, so a loop of pushes or pops does not wait on memory. A stack belongs to one
/// activation (made by a forward function, consumed by its pullback), so nothing else changes
/// it meanwhile; the grow call changes data and capacity, which are reloaded after it.
#[derive(Clone, Copy)]
pub(crate) struct StackRegs {
    data: Variable,
    len: Variable,
    cap: Variable,
}

/// The statements defining stacks that `func` pushes to or pops from.
pub(crate) fn stack_users(func: &Function) -> HashSet<zy_ir::Value> {
    let mut out = HashSet::new();
    for v in &func.values {
        if let zy_ir::ValueKind::Stmt(stmt) = &v.kind {
            if let (Op::Prim(Prim::Push | Prim::Pop), Some(Operand::Value(s))) =
                (&stmt.op, stmt.args.first())
            {
                if func.stmt(*s).is_some() {
                    out.insert(*s);
                }
            }
        }
    }
    out
}

impl Translator<'_, '_, '_> {
    /// Load stack `v`'s fields into registers, right after the statement defining it.
    pub(super) fn cache_stack(&mut self, v: zy_ir::Value) -> R<()> {
        if !matches!(self.func.ty(v), Type::Stack(_)) {
            return Ok(());
        }
        let s = self.pointer(&Operand::Value(v))?;
        let regs = StackRegs {
            data: self.b.declare_var(types::I64),
            len: self.b.declare_var(types::I64),
            cap: self.b.declare_var(types::I64),
        };
        for (var, off) in [
            (regs.data, stack_offset::DATA),
            (regs.len, stack_offset::LEN),
            (regs.cap, stack_offset::CAP),
        ] {
            let x = self.b.ins().load(types::I64, mem(), s, off);
            self.b.def_var(var, x);
        }
        self.stacks.insert(v, regs);
        Ok(())
    }

    /// The registers of the stack operand `op`, if it has them.
    fn stack_regs(&self, op: &Operand) -> Option<StackRegs> {
        op.as_value().and_then(|v| self.stacks.get(&v)).copied()
    }

    /// A stack field: from its register, or loaded.
    fn stack_field(&mut self, regs: Option<StackRegs>, s: ClValue, field: i32) -> ClValue {
        let var = regs.map(|r| match field {
            stack_offset::DATA => r.data,
            stack_offset::LEN => r.len,
            _ => r.cap,
        });
        match var {
            Some(var) => self.b.use_var(var),
            None => self.b.ins().load(types::I64, mem(), s, field),
        }
    }

    /// Set the stack's length (in memory, and in its register).
    fn set_stack_len(&mut self, regs: Option<StackRegs>, s: ClValue, len: ClValue) {
        self.b.ins().store(mem(), len, s, stack_offset::LEN);
        if let Some(r) = regs {
            self.b.def_var(r.len, len);
        }
    }

    /// Translations of the tape and tangent primitives.
    pub(super) fn tape(
        &mut self,
        p: Prim,
        args: &[Operand],
        tys: &[Type],
        ty: &Type,
        span: Span,
    ) -> R<Option<Vec<ClValue>>> {
        Ok(Some(match (p, tys) {
            (Prim::StackNew, _) if self.env.rt.call_preserving.is_some() => {
                // Through a stack slot, by a call that keeps every register: values live
                // across it (the loop's operands) can then stay in registers.
                let slot =
                    self.b
                        .create_sized_stack_slot(cranelift_codegen::ir::StackSlotData::new(
                            cranelift_codegen::ir::StackSlotKind::ExplicitSlot,
                            8,
                            3,
                        ));
                let at = self.b.ins().stack_addr(types::I64, slot, 0);
                let rt = self.env.rt.stack_new_at;
                let ctx = self.ctx();
                self.call_rt(rt, &[ctx, at]);
                vec![self.b.ins().stack_load(types::I64, types::I64, slot, 0)]
            }
            (Prim::StackNew, _) => {
                let rt = self.env.rt.stack_new;
                let ctx = self.ctx();
                vec![self
                    .call_rt(rt, &[ctx])
                    .ok_or_else(|| JitError::invalid("stack_new"))?]
            }
            (Prim::StackMark, _) => {
                let rt = self.env.rt.stack_mark;
                let ctx = self.ctx();
                vec![self
                    .call_rt(rt, &[ctx])
                    .ok_or_else(|| JitError::invalid("stack_mark"))?]
            }
            (Prim::StackRelease, [Type::Int64]) => {
                let mark = self.pointer(&args[0])?;
                let rt = self.env.rt.stack_release;
                let ctx = self.ctx();
                self.call_rt(rt, &[ctx, mark]);
                vec![]
            }
            (Prim::Push, [Type::Stack(elem), _]) => {
                let elem = (**elem).clone();
                self.push(&elem, args, span)?;
                vec![]
            }
            (Prim::Pop, [Type::Stack(elem)]) => {
                let elem = (**elem).clone();
                let v = self.pop(&elem, args, span)?;
                self.coerce(v, &elem, ty)?
            }
            // (A union's zero like a value is the held member's: the interpreter's.)
            (Prim::ZeroTangent, _)
                if self.all_scalar(ty)? && (args.is_empty() || !matches!(ty, Type::Union(_))) =>
            {
                self.zeros(ty)?
            }
            // Zeros of the shape of the operand.
            (Prim::ZeroTangent, [Type::Array(e, d)])
                if *ty == Type::Array(e.clone(), *d) && **e == Type::Float64 && *d <= 2 =>
            {
                let like = self.pointer(&args[0])?;
                let rows = self
                    .b
                    .ins()
                    .load(types::I64, mem(), like, array_offset::ROWS);
                let cols = self
                    .b
                    .ins()
                    .load(types::I64, mem(), like, array_offset::COLS);
                let size = self.b.ins().iconst(types::I64, 8);
                let rt = if self.makes_fresh() {
                    self.env.rt.array_new_uninit
                } else {
                    self.env.rt.array_new
                };
                let ctx = self.ctx();
                vec![self
                    .call_rt(rt, &[ctx, rows, cols, size])
                    .ok_or_else(|| JitError::invalid("array_new"))?]
            }
            (Prim::Accum, [a, b]) if accum_supported(a, b, ty) => {
                let x = self.operand(&args[0])?;
                let y = self.operand(&args[1])?;
                let slow = Slow {
                    p,
                    args,
                    ty,
                    span,
                    whole: true,
                };
                self.accum(x, a, y, b, ty, &slow)?
            }
            _ => return Ok(None),
        }))
    }

    /// Does a value of `ty` consist of number slots only (no objects)?
    pub(super) fn all_scalar(&self, ty: &Type) -> R<bool> {
        Ok(self.env.layout.slots(ty)?.iter().all(|s| *s != Slot::Ptr))
    }

    fn push(&mut self, elem: &Type, args: &[Operand], span: Span) -> R<()> {
        let s = self.pointer(&args[0])?;
        let regs = self.stack_regs(&args[0]);
        let v = self.operand_as(&args[1], elem)?;
        let (offsets, size) = packed_offsets(&self.env.layout.slots(elem)?);
        if size == 0 {
            return Ok(());
        }
        let len = self.stack_field(regs, s, stack_offset::LEN);
        let end = self.b.ins().iadd_imm_s(len, i64::from(size));
        if !args[0]
            .as_value()
            .is_some_and(|v| self.reserved.contains(&v))
        {
            self.room_or_grow(s, regs, end, size, span);
        }
        let data = self.stack_field(regs, s, stack_offset::DATA);
        let at = self.b.ins().iadd(data, len);
        for (v, off) in v.iter().zip(offsets) {
            self.b.ins().store(mem(), *v, at, off);
        }
        self.set_stack_len(regs, s, end);
        Ok(())
    }

    /// Grow stack `s` when a push ending at `end` does not fit (a cold path that fails at the
    /// tape limit).
    fn room_or_grow(
        &mut self,
        s: ClValue,
        regs: Option<StackRegs>,
        end: ClValue,
        size: u32,
        span: Span,
    ) {
        let cap = self.stack_field(regs, s, stack_offset::CAP);
        let full = self.b.ins().icmp(IntCC::SignedGreaterThan, end, cap);
        let grow = self.b.create_block();
        let cont = self.b.create_block();
        self.b.set_cold_block(grow);
        self.b.ins().brif(full, grow, &[], cont, &[]);
        self.b.switch_to_block(grow);
        let site = self.site(span, crate::runtime::site::SiteKind::Push(size));
        let rt = self.env.rt.stack_grow;
        let ctx = self.ctx();
        self.call_rt(rt, &[ctx, s, site]);
        if let Some(r) = regs {
            // Growing moved the bytes and raised the capacity.
            for (var, off) in [(r.data, stack_offset::DATA), (r.cap, stack_offset::CAP)] {
                let x = self.b.ins().load(types::I64, mem(), s, off);
                self.b.def_var(var, x);
            }
        }
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
    }

    /// Does stack `stack` have room for `once + each * n` more bytes (`n >= 0`, `once >= 0`,
    /// `each > 0`)? An I8 flag; an `n` for which the sum does not fit in an Int64 has none.
    pub(super) fn has_room(
        &mut self,
        stack: zy_ir::Value,
        once: i64,
        each: i64,
        n: ClValue,
    ) -> R<ClValue> {
        let op = Operand::Value(stack);
        let s = self.pointer(&op)?;
        let regs = self.stack_regs(&op);
        let len = self.stack_field(regs, s, stack_offset::LEN);
        let cap = self.stack_field(regs, s, stack_offset::CAP);
        let room = self.b.ins().isub(cap, len);
        let max_n = (i64::MAX - once).checked_div(each).unwrap_or(0);
        let counted = self
            .b
            .ins()
            .icmp_imm_s(IntCC::SignedLessThanOrEqual, n, max_n);
        let need = self.b.ins().imul_imm_s(n, each);
        let need = self.b.ins().iadd_imm_s(need, once);
        let fits = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, need, room);
        Ok(self.b.ins().band(counted, fits))
    }

    fn pop(&mut self, elem: &Type, args: &[Operand], span: Span) -> R<Vec<ClValue>> {
        let s = self.pointer(&args[0])?;
        let elem_slots = self.env.layout.slots(elem)?;
        let (offsets, size) = packed_offsets(&elem_slots);
        if size == 0 {
            return Ok(vec![]);
        }
        let regs = self.stack_regs(&args[0]);
        let len = self.stack_field(regs, s, stack_offset::LEN);
        let empty = self
            .b
            .ins()
            .icmp_imm_s(IntCC::SignedLessThan, len, i64::from(size));
        let site = self.site(
            span,
            crate::runtime::site::SiteKind::Fail(EMPTY_STACK.to_string()),
        );
        let rt = self.env.rt.fail;
        let ctx = self.ctx();
        let tys: Vec<_> = elem_slots.iter().map(|s| s.cl_type()).collect();
        self.guarded(
            empty,
            &tys,
            |t| {
                t.call_rt(rt, &[ctx, site]);
                t.check_error();
                t.zeros(elem)
            },
            |t| {
                let start = t.b.ins().iadd_imm_s(len, -i64::from(size));
                t.set_stack_len(regs, s, start);
                let data = t.stack_field(regs, s, stack_offset::DATA);
                let at = t.b.ins().iadd(data, start);
                Ok(elem_slots
                    .iter()
                    .zip(offsets)
                    .map(|(sl, off)| t.b.ins().load(sl.cl_type(), mem(), at, off))
                    .collect())
            },
        )
    }

    /// `accum(a, b)` on scalar-replaced tangents: `nothing` is the identity, numbers add,
    /// tuples and named tuples add field by field.
    pub(super) fn accum(
        &mut self,
        a: Vec<ClValue>,
        at: &Type,
        b: Vec<ClValue>,
        bt: &Type,
        ty: &Type,
        slow: &Slow<'_>,
    ) -> R<Vec<ClValue>> {
        match (at, bt) {
            (Type::Nothing, _) => self.coerce(b, bt, ty),
            (_, Type::Nothing) => self.coerce(a, at, ty),
            (Type::Float64, Type::Float64) => Ok(vec![self.b.ins().fadd(a[0], b[0])]),
            (Type::Array(..), Type::Array(..)) | (Type::Adjoint(_), Type::Adjoint(_)) => {
                // A new array of the elementwise sums; shapes that differ are the interpreter's
                // DimensionMismatch (raised by evaluating the whole statement there).
                let rt = self.env.rt.add_arrays;
                let ctx = self.ctx();
                let out = self
                    .call_rt(rt, &[ctx, a[0], b[0]])
                    .ok_or_else(|| JitError::invalid("add_arrays"))?;
                let mismatch = self.b.ins().icmp_imm_s(IntCC::Equal, out, 0);
                self.guarded(
                    mismatch,
                    &[types::I64],
                    |t| t.slow_path(slow, types::I64),
                    |_| Ok(vec![out]),
                )
            }
            _ => {
                let (afs, bfs, tfs) = match (at.field_types(), bt.field_types(), ty.field_types()) {
                    (Some(x), Some(y), Some(z)) if x.len() == y.len() && y.len() == z.len() => {
                        (x, y, z)
                    }
                    _ => return Err(JitError::unsupported(format!("accum of {at} and {bt}"))),
                };
                let (mut ai, mut bi) = (0, 0);
                let mut out = Vec::new();
                for ((af, bf), tf) in afs.iter().zip(&bfs).zip(&tfs) {
                    let (an, bn) = (
                        self.env.layout.slot_count(af)?,
                        self.env.layout.slot_count(bf)?,
                    );
                    let x = a[ai..ai + an].to_vec();
                    let y = b[bi..bi + bn].to_vec();
                    out.extend(self.accum(x, af, y, bf, tf, slow)?);
                    ai += an;
                    bi += bn;
                }
                Ok(out)
            }
        }
    }
}

/// The interpreter's message for `pop!` on an empty stack.
pub(crate) const EMPTY_STACK: &str = "internal error: `pop!` from an empty AD stack";

/// Can `accum` of an `at` and a `bt` giving `ty` be compiled inline (with array sums in the
/// runtime)?
pub(super) fn accum_supported(at: &Type, bt: &Type, ty: &Type) -> bool {
    let f64_array =
        |t: &Type| matches!(t, Type::Array(e, _) | Type::Adjoint(e) if **e == Type::Float64);
    match (at, bt) {
        (Type::Nothing, x) | (x, Type::Nothing) => {
            x == ty || (*x == Type::Int64 && *ty == Type::Float64)
        }
        (Type::Float64, Type::Float64) => *ty == Type::Float64,
        _ if f64_array(at) && at == bt => at == ty,
        _ => match (at.field_types(), bt.field_types(), ty.field_types()) {
            (Some(x), Some(y), Some(z)) if x.len() == y.len() && y.len() == z.len() => x
                .iter()
                .zip(&y)
                .zip(&z)
                .all(|((a, b), t)| accum_supported(a, b, t)),
            _ => false,
        },
    }
}
