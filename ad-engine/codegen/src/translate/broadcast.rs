//! `broadcast(f, args...)` compiled as a loop over the elements, `f` translated inline. Only
//! arrays of one shape (and scalars), and vectors as columns of a matrix result, take this
//! path; other shapes (extents of 1 stretched) and row vectors run in the runtime, which raises
//! the interpreter's errors too.

use cranelift_codegen::ir::{condcodes::IntCC, types, BlockArg, InstBuilder};
use zy_ir::{Const, Operand, Prim, Span, Type};

use super::scalar::Slow;
use super::{mem, ClValue, Translator, R};
use crate::error::JitError;
use crate::layout::elem_slot;
use crate::runtime::arena::array_offset;

impl Translator<'_, '_, '_> {
    /// The loop form of a broadcast, if the operand types allow it.
    pub(super) fn broadcast(
        &mut self,
        args: &[Operand],
        tys: &[Type],
        ty: &Type,
        span: Span,
    ) -> R<Option<Vec<ClValue>>> {
        self.broadcast_loop(args, tys, ty, span, None, |t| {
            t.fallback(Prim::Broadcast, args, ty, span)
        })
    }

    /// The loop of `broadcast(args...)`: into a new array, or with `into = (dst, fresh)` added
    /// into the Float64 array `dst` of the result's shape (`dst[i] += f(...)`, or
    /// `dst[i] = 0.0 + f(...)` when `dst` is fresh: see `fuse::fresh`). `slow` runs when the
    /// shapes differ (it must raise the interpreter's error or compute the unfused result).
    pub(super) fn broadcast_loop(
        &mut self,
        args: &[Operand],
        tys: &[Type],
        ty: &Type,
        span: Span,
        into: Option<(ClValue, bool)>,
        slow: impl FnOnce(&mut Self) -> R<Vec<ClValue>>,
    ) -> R<Option<Vec<ClValue>>> {
        let (Some(Operand::Const(Const::Func(name))), Type::Array(elem, _)) = (args.first(), ty)
        else {
            return Ok(None);
        };
        // Arrays of 3 or more dimensions run in the runtime (the loop compares two extents).
        if [ty].into_iter().chain(tys).any(|t| matches!(t, Type::Array(_, d) if *d > 2)) {
            return Ok(None);
        }
        let Some(p) = Prim::elementwise(name, args.len() - 1) else {
            return Ok(None);
        };
        let elem = (**elem).clone();
        let ops = &args[1..];
        let op_tys = &tys[1..];
        let mut elem_tys = Vec::new();
        let mut first_array = None;
        for (k, t) in op_tys.iter().enumerate() {
            match t {
                Type::Array(e, _) if e.is_number() => {
                    elem_tys.push((**e).clone());
                    first_array.get_or_insert(k);
                }
                t if t.is_number() => elem_tys.push(t.clone()),
                _ => return Ok(None),
            }
        }
        let Some(mut first) = first_array else {
            return Ok(None);
        };
        // A matrix result takes its shape from its first matrix operand; a vector operand is
        // then a column, read at the row's index in every column (`d .* M`).
        let matrix_out = matches!(ty, Type::Array(_, 2));
        if matrix_out {
            match op_tys.iter().position(|t| matches!(t, Type::Array(_, 2))) {
                Some(k) => first = k,
                None => return Ok(None),
            }
        }
        let column: Vec<bool> = op_tys
            .iter()
            .map(|t| matrix_out && matches!(t, Type::Array(_, 1)))
            .collect();
        let out_slot = elem_slot(&elem)?;
        // Would the scalar operation translate inline? (Probe in a throwaway block.)
        if !self.scalar_supported(p, &elem_tys, &elem) {
            return Ok(None);
        }
        let mut ptrs = Vec::new();
        let mut scalars = Vec::new();
        for (o, t) in ops.iter().zip(op_tys) {
            let vs = self.operand(o)?;
            let v = *vs
                .first()
                .ok_or_else(|| JitError::invalid("broadcast operand without a slot"))?;
            if matches!(t, Type::Array(..)) {
                ptrs.push(Some(v));
                scalars.push(None);
            } else {
                ptrs.push(None);
                scalars.push(Some(v));
            }
        }
        let a0 = ptrs[first].ok_or_else(|| JitError::invalid("broadcast array"))?;
        let rows = self.b.ins().load(types::I64, mem(), a0, array_offset::ROWS);
        let cols = self.b.ins().load(types::I64, mem(), a0, array_offset::COLS);
        let len = self.b.ins().load(types::I64, mem(), a0, array_offset::LEN);
        let mut bad = self.b.ins().iconst(types::I8, 0);
        for (k, a) in ptrs.iter().enumerate() {
            let Some(a) = *a else { continue };
            if k == first {
                continue;
            }
            let r = self.b.ins().load(types::I64, mem(), a, array_offset::ROWS);
            let dr = self.b.ins().icmp(IntCC::NotEqual, r, rows);
            let d = if column[k] {
                dr
            } else {
                let c = self.b.ins().load(types::I64, mem(), a, array_offset::COLS);
                let dc = self.b.ins().icmp(IntCC::NotEqual, c, cols);
                self.b.ins().bor(dr, dc)
            };
            bad = self.b.ins().bor(bad, d);
        }
        if let Some((dst, _)) = into {
            if elem != Type::Float64 {
                return Ok(None);
            }
            let r = self
                .b
                .ins()
                .load(types::I64, mem(), dst, array_offset::ROWS);
            let c = self
                .b
                .ins()
                .load(types::I64, mem(), dst, array_offset::COLS);
            let dr = self.b.ins().icmp(IntCC::NotEqual, r, rows);
            let dc = self.b.ins().icmp(IntCC::NotEqual, c, cols);
            let d = self.b.ins().bor(dr, dc);
            bad = self.b.ins().bor(bad, d);
        }
        let square = ops.get(1) == Some(&Operand::Const(Const::Int(2)));
        let out_tys: &[types::Type] = if into.is_some() { &[] } else { &[types::I64] };
        let out = self.guarded(bad, out_tys, slow, |t| {
            let out = match into {
                Some((dst, _)) => dst,
                None => {
                    // Every element is written below before anything reads the array.
                    let rt = t.env.rt.array_new_uninit;
                    let ctx = t.ctx();
                    let size = t.b.ins().iconst(types::I64, i64::from(out_slot.size()));
                    t.call_rt(rt, &[ctx, rows, cols, size])
                        .ok_or_else(|| JitError::invalid("array_new"))?
                }
            };
            let out_data = t.b.ins().load(types::I64, mem(), out, array_offset::DATA);
            let datas: Vec<Option<ClValue>> = ptrs
                .iter()
                .map(|p| p.map(|a| t.b.ins().load(types::I64, mem(), a, array_offset::DATA)))
                .collect();
            let head = t.b.create_block();
            let body = t.b.create_block();
            let exit = t.b.create_block();
            let i = t.b.append_block_param(head, types::I64);
            // The row of element `i` (for column operands).
            let row = t.b.append_block_param(head, types::I64);
            let zero = t.b.ins().iconst(types::I64, 0);
            t.b.ins()
                .jump(head, &[BlockArg::Value(zero), BlockArg::Value(zero)]);
            t.b.switch_to_block(head);
            let more = t.b.ins().icmp(IntCC::SignedLessThan, i, len);
            t.b.ins().brif(more, body, &[], exit, &[]);
            t.b.switch_to_block(body);
            let mut xs = Vec::new();
            for (((d, s), et), col) in datas.iter().zip(&scalars).zip(&elem_tys).zip(&column) {
                xs.push(match (d, s) {
                    (Some(d), _) => {
                        let slot = elem_slot(et)?;
                        let at = if *col { row } else { i };
                        let off = t.b.ins().imul_imm_s(at, i64::from(slot.size()));
                        let at = t.b.ins().iadd(*d, off);
                        t.b.ins().load(slot.cl_type(), mem(), at, 0)
                    }
                    (None, Some(s)) => *s,
                    (None, None) => return Err(JitError::invalid("broadcast operand")),
                });
            }
            let slow = Slow {
                p: Prim::Broadcast,
                args,
                ty,
                span,
                whole: true,
            };
            let v = t
                .scalar_values(p, &xs, &elem_tys, &elem, square, &slow)?
                .ok_or_else(|| JitError::invalid("broadcast element operation"))?;
            let off = t.b.ins().imul_imm_s(i, i64::from(out_slot.size()));
            let at = t.b.ins().iadd(out_data, off);
            let v = match into {
                None => v,
                Some((_, fresh)) => {
                    // What accum! of the materialised result would have stored.
                    let old = if fresh {
                        t.b.ins().f64const(0.0)
                    } else {
                        t.b.ins().load(types::F64, mem(), at, 0)
                    };
                    t.b.ins().fadd(old, v)
                }
            };
            t.b.ins().store(mem(), v, at, 0);
            let next = t.b.ins().iadd_imm_s(i, 1);
            let next_row = t.b.ins().iadd_imm_s(row, 1);
            let wrap = t.b.ins().icmp(IntCC::Equal, next_row, rows);
            let next_row = t.b.ins().select(wrap, zero, next_row);
            t.b.ins()
                .jump(head, &[BlockArg::Value(next), BlockArg::Value(next_row)]);
            t.b.switch_to_block(exit);
            Ok(if into.is_some() { vec![] } else { vec![out] })
        })?;
        Ok(Some(out))
    }

    /// Does `p` on scalars of `tys` giving `ty` have an inline translation?
    fn scalar_supported(&self, p: Prim, tys: &[Type], ty: &Type) -> bool {
        let float_math = p.math().is_some()
            || matches!(
                p,
                Prim::Neg | Prim::Abs | Prim::Floor | Prim::Ceil | Prim::Round | Prim::Sign
            );
        let float_bin = matches!(
            p,
            Prim::Add | Prim::Sub | Prim::Mul | Prim::Div | Prim::Max | Prim::Min | Prim::Copysign
        );
        let cmp = matches!(
            p,
            Prim::Lt | Prim::Le | Prim::Gt | Prim::Ge | Prim::Eq | Prim::Ne
        );
        match (tys, ty) {
            ([Type::Float64], Type::Float64) => float_math,
            ([Type::Float64, Type::Float64], Type::Float64) => float_bin,
            ([Type::Float64, Type::Float64], Type::Bool) => cmp,
            ([Type::Float64, Type::Int64], Type::Float64) => p == Prim::Pow,
            ([Type::Bool | Type::Int64], Type::Float64) => p == Prim::Float,
            _ => false,
        }
    }
}
