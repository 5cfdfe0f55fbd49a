//! Vectors whose elements are arrays, structs or tuples (`layout::Elem`): literals, `first`,
//! `last`, `accum!` of a shadow of tuples of numbers, and the AD's `slot_get`/`slot_set!`,
//! which read and write a slot as stored (an unset one too).
//! Indexing, `setlength!` and `length` are the arrays' own translations (`arrays.rs`); other
//! primitives run in the interpreter on converted operands, those that mutate an operand
//! holding objects refused ([`Translator::refuse_mutating_fallback`]).

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder};
use zy_ir::{Operand, Prim, Span, Type};

use super::{mem, ClValue, Translator, R};
use crate::error::JitError;
use crate::layout::{Elem, Slot};
use crate::runtime::arena::array_offset;

impl Translator<'_, '_, '_> {
    /// Translations of the primitives on vectors of objects that have an inline form.
    pub(super) fn objects(
        &mut self,
        p: Prim,
        args: &[Operand],
        tys: &[Type],
        ty: &Type,
        span: Span,
    ) -> R<Option<Vec<ClValue>>> {
        let ints = |ts: &[Type]| ts.iter().all(|t| *t == Type::Int64);
        Ok(Some(match (p, tys.first(), ty) {
            (Prim::Vect, _, Type::Array(elem, 1))
                if tys.iter().all(|t| t == &**elem) && !self.env.layout.elem(elem)?.number =>
            {
                let el = self.env.layout.elem(elem)?;
                let n = self.b.ins().iconst(types::I64, args.len() as i64);
                let one = self.b.ins().iconst(types::I64, 1);
                let arr = self.new_array(n, one, el.size)?;
                let data = self
                    .b
                    .ins()
                    .load(types::I64, mem(), arr, array_offset::DATA);
                for (k, a) in args.iter().enumerate() {
                    let v = self.operand(a)?;
                    let at = self.b.ins().iadd_imm_s(data, i64::from(el.size) * k as i64);
                    self.store_elem(&el, at, &v);
                }
                vec![arr]
            }
            // `first(xs)`, `last(xs)`: an empty vector is the interpreter's error.
            (Prim::First | Prim::Last, Some(Type::Array(elem, _)), _)
                if tys.len() == 1 && **elem == *ty && !self.env.layout.elem(elem)?.number =>
            {
                let el = self.env.layout.elem(elem)?;
                let a = self.pointer(&args[0])?;
                let len = self.b.ins().load(types::I64, mem(), a, array_offset::LEN);
                let empty = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::SignedLessThanOrEqual, len, 0);
                let data = self.b.ins().load(types::I64, mem(), a, array_offset::DATA);
                let addr = if p == Prim::Last {
                    let k = self.b.ins().iadd_imm_s(len, -1);
                    let off = self.b.ins().imul_imm_s(k, i64::from(el.size));
                    self.b.ins().iadd(data, off)
                } else {
                    data
                };
                self.read_elem(p, args, ty, span, &el, addr, empty)?
            }
            // A slot by its linear index, in a vector or an array of any shape (a matrix of
            // complex numbers that a comprehension fills).
            (Prim::SlotGet, Some(Type::Array(elem, _)), _)
                if tys.len() == 2 && ints(&tys[1..]) && **elem == *ty =>
            {
                let el = self.env.layout.elem(elem)?;
                let (addr, bad) = self.element_address(elem, args, 1)?;
                let tys: Vec<_> = el.slots.iter().map(|s| s.cl_type()).collect();
                self.guarded(
                    bad,
                    &tys,
                    |t| t.fallback(p, args, ty, span),
                    |t| Ok(t.load_elem(&el, addr)),
                )?
            }
            (Prim::SlotSet, Some(Type::Array(elem, _)), _)
                if tys.len() == 3 && tys[1] == Type::Int64 && tys[2] == **elem =>
            {
                let el = self.env.layout.elem(elem)?;
                let (addr, bad) =
                    self.element_address(elem, &[args[0].clone(), args[1].clone()], 1)?;
                let v = self.operand(&args[2])?;
                self.guarded(
                    bad,
                    &[],
                    |t| t.fallback(p, args, &Type::Bottom, span),
                    |t| {
                        t.store_elem(&el, addr, &v);
                        Ok(vec![])
                    },
                )?;
                self.zeros(ty)?
            }
            (Prim::AccumInto, Some(Type::Array(elem, _)), _)
                if tys.len() == 2 && tys[1] == tys[0] && self.numbers_only(elem)? =>
            {
                let el = self.env.layout.elem(elem)?;
                let (dst, src) = (self.pointer(&args[0])?, self.pointer(&args[1])?);
                let words = self.b.ins().iconst(types::I64, el.slots.len() as i64);
                let fresh = self.fresh_flag();
                let rt = self.env.rt.accum_words;
                let bad = self
                    .call_rt(rt, &[dst, src, words, fresh])
                    .ok_or_else(|| JitError::invalid("accum!"))?;
                self.guarded(
                    bad,
                    &[],
                    |t| t.fallback(p, args, &Type::Bottom, span),
                    |_| Ok(vec![]),
                )?;
                self.zeros(ty)?
            }
            _ => return Ok(None),
        }))
    }

    /// The element at `addr`, or, when `bad` (out of bounds, an empty vector) or the slot is
    /// unset (`#undef`), the interpreter's `p(args)`, which raises its error.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn read_elem(
        &mut self,
        p: Prim,
        args: &[Operand],
        ty: &Type,
        span: Span,
        el: &Elem,
        addr: ClValue,
        bad: ClValue,
    ) -> R<Vec<ClValue>> {
        let tys: Vec<_> = el.slots.iter().map(|s| s.cl_type()).collect();
        self.guarded(
            bad,
            &tys,
            |t| t.fallback(p, args, ty, span),
            |t| match el.unset_marker() {
                Some(k) => {
                    let ptr = t.b.ins().load(types::I64, mem(), addr, el.offset(k));
                    let unset = t.b.ins().icmp_imm_s(IntCC::Equal, ptr, 0);
                    t.guarded(
                        unset,
                        &tys,
                        |t| t.fallback(p, args, ty, span),
                        |t| Ok(t.load_elem(el, addr)),
                    )
                }
                None => Ok(t.load_elem(el, addr)),
            },
        )
    }

    /// Are elements of `elem` stored as Float64 words only (tuples and structs of numbers)?
    fn numbers_only(&self, elem: &Type) -> R<bool> {
        let el = self.env.layout.elem(elem)?;
        Ok(!el.number && el.slots.iter().all(|s| *s == Slot::F64))
    }

    /// Refuse to run `prim` in the interpreter when it mutates an operand holding objects of
    /// compiled code: the interpreter works on converted copies, and its writes would be lost.
    pub(super) fn refuse_mutating_fallback(&self, prim: Prim, args: &[Operand]) -> R<()> {
        // `deepcopy`'s `realias` fixes the copy's objects in place where one holds another.
        if let (Prim::Realias, Some(a)) = (prim, args.first()) {
            let ty = self.func.operand_ty(a);
            if holds_objects_in_object(&ty) {
                return Err(JitError::interpreted(format!(
                    "`deepcopy` of a {ty}, whose objects hold objects"
                )));
            }
        }
        let Some(k) = prim.info().effects.mutates else {
            return Ok(());
        };
        let Some(a) = args.get(usize::from(k)) else {
            return Ok(());
        };
        match self.func.operand_ty(a) {
            Type::Array(elem, _) if !self.env.layout.elem(&elem)?.number => Err(
                JitError::unsupported(format!("`{prim}` of an array of {elem}")),
            ),
            _ => Ok(()),
        }
    }
}

/// Does a value of type `t` reach an object (a mutable struct, an array, a `Ref`) holding
/// another object?
fn holds_objects_in_object(t: &Type) -> bool {
    let parts = t.field_types().unwrap_or_default();
    match t {
        Type::Array(elem, _) | Type::Ref(elem) => elem.reaches_mutable(),
        Type::Struct(s) if s.mutable => parts.iter().any(Type::reaches_mutable),
        Type::Union(u) => u.members.iter().any(holds_objects_in_object),
        _ => parts.iter().any(holds_objects_in_object),
    }
}
