//! Tuples, named tuples and structs (scalar-replaced: their slots are just the fields' slots),
//! mutable structs and `Ref`s (pointers to boxes of 8-byte words, one per slot).

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder};
use zy_ir::{Const, Operand, Prim, Span, StructRef, Type};

use super::{mem, ClValue, Translator, R};
use crate::error::JitError;
use crate::runtime::site::SiteKind;

/// The most words of a box that [`Translator::alloc_words`] zeroes with stores of its own.
const INLINE_ZEROED_WORDS: usize = 16;

impl Translator<'_, '_, '_> {
    /// Translations of the data-structure primitives.
    pub(super) fn data(
        &mut self,
        p: Prim,
        args: &[Operand],
        tys: &[Type],
        ty: &Type,
        span: Span,
    ) -> R<Option<Vec<ClValue>>> {
        Ok(Some(match (p, tys) {
            (Prim::CheckDistinct, [_, a, b]) if a == b && a.is_mutable() => {
                let Some(Const::Str(msg)) = args[0].as_const() else {
                    return Err(JitError::invalid("check_distinct without a message"));
                };
                let (x, y) = (self.pointer(&args[1])?, self.pointer(&args[2])?);
                let same = self.b.ins().icmp(IntCC::Equal, x, y);
                let site = self.site(span, SiteKind::Fail(msg.to_string()));
                let rt = self.env.rt.fail;
                let ctx = self.ctx();
                self.fail_if(same, |t| {
                    t.call_rt(rt, &[ctx, site]);
                });
                vec![]
            }
            (Prim::SameObject, [a, b]) if a == b && a.is_mutable() => {
                let (x, y) = (self.pointer(&args[0])?, self.pointer(&args[1])?);
                vec![self.b.ins().icmp(IntCC::Equal, x, y)]
            }
            (Prim::Tuple, _) => self.concat(args)?,
            (Prim::NamedTuple, [_, ..]) => self.concat(&args[1..])?,
            (Prim::GetField, [obj, _]) => {
                let index = const_index(&args[1])?;
                if crate::layout::is_object(obj) {
                    let ptr = self.pointer(&args[0])?;
                    let range = self.env.layout.field_range(obj, index)?;
                    // As read: a recursive struct's own type in it is the struct (one layout).
                    let field_ty = obj.field(index);
                    let field_ty =
                        field_ty.ok_or_else(|| JitError::invalid("missing field type"))?;
                    let v = self.load_words(ptr, range.start, &field_ty)?;
                    self.coerce(v, &field_ty, ty)?
                } else {
                    let range = self.env.layout.field_range(obj, index)?;
                    let field_ty = obj.field_types().and_then(|f| f.get(index).cloned());
                    let vs = self.operand(&args[0])?;
                    let field = vs
                        .get(range)
                        .ok_or_else(|| JitError::invalid("field slots out of range"))?
                        .to_vec();
                    let field_ty =
                        field_ty.ok_or_else(|| JitError::invalid("missing field type"))?;
                    self.coerce(field, &field_ty, ty)?
                }
            }
            (Prim::SetField, [obj @ Type::Struct(s), _, vty]) if s.mutable => {
                let index = const_index(&args[1])?;
                let field_ty = obj.field(index);
                let field_ty = field_ty.ok_or_else(|| JitError::invalid("missing field"))?;
                let ptr = self.pointer(&args[0])?;
                let range = self.env.layout.field_range(obj, index)?;
                let v = self.operand_as(&args[2], &field_ty)?;
                self.store_words(ptr, range.start, &v);
                let v = self.operand(&args[2])?;
                self.coerce(v, vty, ty)?
            }
            (Prim::TupleIndex, [Type::Tuple(elems), Type::Int64]) => {
                match self.tuple_index(elems, args, ty, span)? {
                    Some(v) => v,
                    None => return Ok(None),
                }
            }
            (Prim::RefNew, [inner]) => {
                let inner_ty = ty.elem().cloned().unwrap_or_else(|| inner.clone());
                let v = self.operand_as(&args[0], &inner_ty)?;
                let ptr = self.alloc_words(self.env.layout.ref_words(&inner_ty)?)?;
                self.store_words(ptr, 0, &v);
                vec![ptr]
            }
            (Prim::RefUndef, [_]) => {
                let Some(Const::Symbol(name)) = args[0].as_const() else {
                    return Err(JitError::invalid("ref_undef without the local's name"));
                };
                let inner = ty.elem().cloned().unwrap_or(Type::Bottom);
                let n = self.env.layout.slot_count(&inner)?;
                let ptr = self.alloc_words(n + 1)?;
                let site = self.site(span, SiteKind::Str(name.to_string()));
                self.store_words(ptr, n, &[site]);
                vec![ptr]
            }
            (Prim::RefGet, [Type::Ref(inner)]) => {
                let inner = (**inner).clone();
                let ptr = self.pointer(&args[0])?;
                let n = self.env.layout.slot_count(&inner)?;
                let unset = self.b.ins().load(types::I64, mem(), ptr, (n * 8) as i32);
                let tys = self.env.layout.slots(ty)?;
                let tys: Vec<_> = tys.iter().map(|s| s.cl_type()).collect();
                // An empty box: the interpreter raises its `UndefVarError`.
                self.guarded(
                    unset,
                    &tys,
                    |t| t.fallback(p, args, ty, span),
                    |t| {
                        let v = t.load_words(ptr, 0, &inner)?;
                        t.coerce(v, &inner, ty)
                    },
                )?
            }
            (Prim::RefSet | Prim::RefInit, [Type::Ref(inner), vty]) => {
                let inner = (**inner).clone();
                let ptr = self.pointer(&args[0])?;
                let mut v = self.operand_as(&args[1], &inner)?;
                // The box holds a value now.
                v.push(self.b.ins().iconst(types::I64, 0));
                self.store_words(ptr, 0, &v);
                let v = self.operand(&args[1])?;
                self.coerce(v, vty, ty)?
            }
            // `x'` and `transpose(x)` of a vector are row views sharing its elements, and the
            // adjoint of a row view is the vector again.
            (Prim::Adjoint | Prim::Transpose, [Type::Array(_, 1) | Type::Adjoint(_)]) => {
                let a = self.pointer(&args[0])?;
                let view = self.alloc_words(crate::runtime::arena::HEADER_WORDS)?;
                let row = matches!(ty, Type::Adjoint(_));
                let off = crate::runtime::arena::array_offset::DATA;
                let data = self.b.ins().load(types::I64, mem(), a, off);
                let len = self.b.ins().load(
                    types::I64,
                    mem(),
                    a,
                    crate::runtime::arena::array_offset::LEN,
                );
                let one = self.b.ins().iconst(types::I64, 1);
                let (rows, cols) = if row { (one, len) } else { (len, one) };
                let null = self.b.ins().iconst(types::I64, 0);
                self.store_words(view, 0, &[data, len, rows, cols, len, null]);
                vec![view]
            }
            (Prim::Length, [Type::Tuple(elems)]) => {
                vec![self.b.ins().iconst(types::I64, elems.len() as i64)]
            }
            _ => return Ok(None),
        }))
    }

    /// `New`: an immutable struct is its fields' slots; a mutable or recursive one is a box.
    pub(super) fn new_struct(
        &mut self,
        s: &StructRef,
        args: &[Operand],
        ty: &Type,
    ) -> R<Vec<ClValue>> {
        if args.len() != s.fields.len() {
            return Err(JitError::invalid(format!(
                "{} built from {} values",
                s.name,
                args.len()
            )));
        }
        let whole = Type::Struct(s.clone());
        let mut vs = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let fty = whole.field(i).unwrap_or(Type::Nothing);
            vs.extend(self.operand_as(a, &fty)?);
        }
        if !crate::layout::is_object(&whole) {
            return Ok(vs);
        }
        if !matches!(ty, Type::Struct(_)) {
            return Err(JitError::invalid(format!("New of {} typed {ty}", s.name)));
        }
        let ptr = self.alloc_words(vs.len())?;
        self.store_words(ptr, 0, &vs);
        Ok(vec![ptr])
    }

    fn concat(&mut self, args: &[Operand]) -> R<Vec<ClValue>> {
        let mut vs = Vec::new();
        for a in args {
            vs.extend(self.operand(a)?);
        }
        Ok(vs)
    }

    /// `t[i]` with a run-time index: a bounds check (the runtime raises the interpreter's
    /// BoundsError), then a chain of selects.
    fn tuple_index(
        &mut self,
        elems: &[Type],
        args: &[Operand],
        ty: &Type,
        span: Span,
    ) -> R<Option<Vec<ClValue>>> {
        let Some(first) = elems.first() else {
            return Ok(None);
        };
        if elems.iter().any(|e| e != first) || first != ty {
            return Ok(None);
        }
        let n = elems.len() as i64;
        let width = self.env.layout.slots(first)?.len();
        let tuple = self.operand(&args[0])?;
        let i = self.operand(&args[1])?[0];
        let i0 = self.b.ins().iadd_imm_s(i, -1);
        let bad = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, i0, n);
        let tys: Vec<_> = self
            .env
            .layout
            .slots(first)?
            .iter()
            .map(|s| s.cl_type())
            .collect();
        let out = self.guarded(
            bad,
            &tys,
            |t| t.fallback(Prim::TupleIndex, args, ty, span),
            |t| {
                let mut out: Vec<ClValue> = tuple[(n as usize - 1) * width..].to_vec();
                for k in (0..n as usize - 1).rev() {
                    let hit = t.b.ins().icmp_imm_s(IntCC::Equal, i0, k as i64);
                    for (j, o) in out.iter_mut().enumerate() {
                        *o = t.b.ins().select(hit, tuple[k * width + j], *o);
                    }
                }
                Ok(out)
            },
        )?;
        Ok(Some(out))
    }

    /// The single pointer slot of an object operand.
    pub(super) fn pointer(&mut self, op: &Operand) -> R<ClValue> {
        match self.operand(op)?.as_slice() {
            [p] => Ok(*p),
            _ => Err(JitError::invalid("expected an object pointer")),
        }
    }

    /// A fresh zeroed box of `n` words (at least one). A small one (a pullback's record, a
    /// `Ref`) is zeroed here by stores, not by the runtime's call of `memset`.
    pub(super) fn alloc_words(&mut self, n: usize) -> R<ClValue> {
        let small = n <= INLINE_ZEROED_WORDS;
        let words = self.b.ins().iconst(types::I64, n as i64);
        let rt = if small {
            self.env.rt.alloc_uninit
        } else {
            self.env.rt.alloc
        };
        let ctx = self.ctx();
        let ptr = self
            .call_rt(rt, &[ctx, words])
            .ok_or_else(|| JitError::invalid("alloc returned nothing"))?;
        if small {
            let zero = self.b.ins().iconst(types::I64, 0);
            for k in 0..n.max(1) {
                self.b.ins().store(mem(), zero, ptr, (k * 8) as i32);
            }
        }
        Ok(ptr)
    }

    /// Load the slots of a `ty` stored at words `start..` of the box at `ptr`.
    pub(super) fn load_words(&mut self, ptr: ClValue, start: usize, ty: &Type) -> R<Vec<ClValue>> {
        Ok(self
            .env
            .layout
            .slots(ty)?
            .iter()
            .enumerate()
            .map(|(k, s)| {
                self.b
                    .ins()
                    .load(s.cl_type(), mem(), ptr, ((start + k) * 8) as i32)
            })
            .collect())
    }

    /// Store slots at words `start..` of the box at `ptr`.
    pub(super) fn store_words(&mut self, ptr: ClValue, start: usize, vs: &[ClValue]) {
        for (k, v) in vs.iter().enumerate() {
            self.b.ins().store(mem(), *v, ptr, ((start + k) * 8) as i32);
        }
    }
}

/// A constant 1-based field index, as 0-based.
fn const_index(op: &Operand) -> R<usize> {
    match op {
        Operand::Const(Const::Int(i)) if *i >= 1 => Ok((*i - 1) as usize),
        _ => Err(JitError::unsupported(
            "a field index that is not a constant",
        )),
    }
}
