//! New arrays built inline: literals `[a, b, c]`, `zeros`, `ones`, `similar`, `copy` and the
//! transpose of Float64 arrays. Dimensions that are negative or too large run in the runtime, which raises
//! the interpreter's error.

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder};
use zy_ir::{Operand, Prim, Span, Type};

use super::{mem, ClValue, Translator, R};
use crate::error::JitError;
use crate::layout::elem_slot;
use crate::runtime::arena::array_offset;

/// The interpreter's largest array (elements); larger ones are an `OutOfMemoryError` there.
const MAX_ELEMS: i64 = 1 << 26;

impl Translator<'_, '_, '_> {
    /// Translations of the array constructors.
    pub(super) fn construct(
        &mut self,
        p: Prim,
        args: &[Operand],
        tys: &[Type],
        ty: &Type,
        span: Span,
    ) -> R<Option<Vec<ClValue>>> {
        let Type::Array(elem, dims) = ty else {
            return Ok(None);
        };
        let (elem, dims) = ((**elem).clone(), *dims);
        Ok(Some(match (p, tys) {
            (Prim::Vect, _) if dims == 1 && elem.is_number() && tys.iter().all(Type::is_number) => {
                let slot = elem_slot(&elem)?;
                let n = self.b.ins().iconst(types::I64, args.len() as i64);
                let one = self.b.ins().iconst(types::I64, 1);
                let arr = self.new_array(n, one, slot.size())?;
                let data = self
                    .b
                    .ins()
                    .load(types::I64, mem(), arr, array_offset::DATA);
                for (k, a) in args.iter().enumerate() {
                    let v = self.operand_as(a, &elem)?;
                    let v = *v.first().ok_or_else(|| JitError::invalid("vect element"))?;
                    self.b
                        .ins()
                        .store(mem(), v, data, (k as u32 * slot.size()) as i32);
                }
                vec![arr]
            }
            (Prim::Zeros | Prim::Ones, _)
                if elem == Type::Float64
                    && !tys.is_empty()
                    && tys.len() == usize::from(dims)
                    && tys.iter().all(|t| *t == Type::Int64) =>
            {
                let ds: Vec<ClValue> = args
                    .iter()
                    .map(|a| self.operand(a).map(|v| v[0]))
                    .collect::<R<_>>()?;
                let (rows, cols) = match ds.as_slice() {
                    [n] => (*n, self.b.ins().iconst(types::I64, 1)),
                    [m, n] => (*m, *n),
                    _ => return Ok(None),
                };
                // Negative or huge dimensions: the interpreter's error.
                let big_r = self
                    .b
                    .ins()
                    .icmp_imm_u(IntCC::UnsignedGreaterThan, rows, MAX_ELEMS);
                let big_c = self
                    .b
                    .ins()
                    .icmp_imm_u(IntCC::UnsignedGreaterThan, cols, MAX_ELEMS);
                let both = self.b.ins().imul(rows, cols);
                let big_n = self
                    .b
                    .ins()
                    .icmp_imm_u(IntCC::UnsignedGreaterThan, both, MAX_ELEMS);
                let bad = self.b.ins().bor(big_r, big_c);
                let bad = self.b.ins().bor(bad, big_n);
                self.guarded(
                    bad,
                    &[types::I64],
                    |t| t.fallback(p, args, ty, span),
                    |t| {
                        let arr = t.new_array(rows, cols, 8)?;
                        if p == Prim::Ones {
                            // 0.0 + 1.0 is exactly 1.0.
                            let one = t.b.ins().f64const(1.0);
                            let rt = t.env.rt.accum_into_scalar;
                            let zeroed = t.b.ins().iconst(types::I8, 0);
                            t.call_rt(rt, &[arr, one, zeroed]);
                        }
                        Ok(vec![arr])
                    },
                )?
            }
            (Prim::Similar | Prim::Copy, [Type::Array(e, d)])
                if **e == Type::Float64 && *d == dims && dims <= 2 && elem == Type::Float64 =>
            {
                let a = self.pointer(&args[0])?;
                let rows = self.b.ins().load(types::I64, mem(), a, array_offset::ROWS);
                let cols = self.b.ins().load(types::I64, mem(), a, array_offset::COLS);
                let arr = self.new_array(rows, cols, 8)?;
                if p == Prim::Copy {
                    let rt = self.env.rt.copy_elems;
                    self.call_rt(rt, &[arr, a]);
                }
                vec![arr]
            }
            // The transpose of a matrix is a copy (as in the interpreter).
            (Prim::Transpose | Prim::Adjoint, [Type::Array(e, 2)])
                if **e == Type::Float64 && dims == 2 && elem == Type::Float64 =>
            {
                let a = self.pointer(&args[0])?;
                let rt = self.env.rt.transpose;
                let ctx = self.ctx();
                vec![self
                    .call_rt(rt, &[ctx, a])
                    .ok_or_else(|| JitError::invalid("transpose"))?]
            }
            _ => return Ok(None),
        }))
    }

    /// A fresh zero-filled `rows × cols` array of `size`-byte elements.
    pub(super) fn new_array(&mut self, rows: ClValue, cols: ClValue, size: u32) -> R<ClValue> {
        let size = self.b.ins().iconst(types::I64, i64::from(size));
        let rt = self.env.rt.array_new;
        let ctx = self.ctx();
        self.call_rt(rt, &[ctx, rows, cols, size])
            .ok_or_else(|| JitError::invalid("array_new"))
    }
}
