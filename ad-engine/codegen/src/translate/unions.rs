//! Values of an abstract type (`Vector{Shape}`'s elements, `Type::Union`): a tag saying which
//! member is held and every member's slots (`Layout::member`). `union_isa` compares the tag;
//! `union_convert` tags a member, or takes the held member's slots out: a gradient nothing
//! reached (tag 0, or the member `Nothing`) gives the member's zero inline when it is made of
//! numbers, and a value of another member is the interpreter's in a cold path (Julia's
//! `TypeError`). `accum` of the gradients of a union of numbers (`Union{Float64, Int64}`'s,
//! carried around a loop) adds them inline when both hold one member or either holds none.

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder};
use zy_ir::{Const, Operand, Prim, Span, Type, UnionType};

use super::scalar::Slow;
use super::tape::accum_supported;
use super::{ClValue, Translator, R};
use crate::error::JitError;

impl Translator<'_, '_, '_> {
    /// Translations of `union_isa` and `union_convert`.
    pub(super) fn unions(
        &mut self,
        p: Prim,
        args: &[Operand],
        tys: &[Type],
        ty: &Type,
        span: Span,
    ) -> R<Option<Vec<ClValue>>> {
        Ok(Some(match (p, tys, args) {
            (Prim::UnionIsa, [Type::Union(u), _], [x, Operand::Const(Const::Symbol(name))]) => {
                let tag = self.operand(x)?[0];
                match u.members.iter().position(|m| m.to_string() == **name) {
                    Some(k) => {
                        let is = self.b.ins().icmp_imm_s(IntCC::Equal, tag, k as i64 + 1);
                        vec![is]
                    }
                    None => vec![self.b.ins().iconst(types::I8, 0)],
                }
            }
            (Prim::UnionConvert, [from], [x]) if from == ty => self.operand(x)?,
            (Prim::UnionConvert, [from], [x]) => match (from, ty) {
                (Type::Union(f), Type::Union(u))
                    if f.members.iter().all(|m| u.members.contains(m)) =>
                {
                    let v = self.operand(x)?;
                    self.widened(f, u, v)?
                }
                (Type::Union(u), _) => match u.members.iter().position(|m| m == ty) {
                    Some(k) => self.take_member(u, k, args, ty, span)?,
                    None => return Err(unconvertible(from, ty)),
                },
                (_, Type::Union(u)) => {
                    let member = u.members.iter().position(|m| m == from);
                    if member.is_none() && *from != Type::Nothing {
                        return Err(unconvertible(from, ty));
                    }
                    let v = self.operand(x)?;
                    self.tagged(u, member, v)?
                }
                _ => return Ok(None),
            },
            (Prim::Accum, [at, bt], _) => match ty {
                Type::Union(u) if self.summable(u, at, bt)? => {
                    let slow = Slow {
                        p,
                        args,
                        ty,
                        span,
                        whole: false,
                    };
                    let a = self.operand(&args[0])?;
                    let a = self.as_union(u, at, a)?;
                    let b = self.operand(&args[1])?;
                    let b = self.as_union(u, bt, b)?;
                    self.accum_union(u, a, b, &slow)?
                }
                _ => return Ok(None),
            },
            _ => return Ok(None),
        }))
    }

    /// Can `accum` of an `at` and a `bt` into the union `u` be compiled: each operand the union
    /// or one of its members (or `nothing`), and every member numbers only, added inline?
    fn summable(&self, u: &UnionType, at: &Type, bt: &Type) -> R<bool> {
        for m in &u.members {
            if !self.all_scalar(m)? || !accum_supported(m, m, m) {
                return Ok(false);
            }
        }
        let fits = |t: &Type| *t == Type::Nothing || u.members.contains(t);
        let whole = |t: &Type| matches!(t, Type::Union(v) if **v == *u);
        Ok((whole(at) || fits(at)) && (whole(bt) || fits(bt)))
    }

    /// The slots `v` of a value of type `t` seen as a value of the union `u` (`t` being `u`,
    /// one of its members, or `nothing`).
    fn as_union(&mut self, u: &UnionType, t: &Type, v: Vec<ClValue>) -> R<Vec<ClValue>> {
        match t {
            Type::Union(_) => Ok(v),
            _ => {
                let k = u.members.iter().position(|m| m == t);
                self.tagged(u, k, v)
            }
        }
    }

    /// `accum(a, b)` of two values of the union `u` of numbers: `b` where `a` holds no member,
    /// `a` where `b` holds none, the member's sum where both hold the same; two different
    /// members are the interpreter's (its internal error).
    fn accum_union(
        &mut self,
        u: &UnionType,
        a: Vec<ClValue>,
        b: Vec<ClValue>,
        slow: &Slow<'_>,
    ) -> R<Vec<ClValue>> {
        let a_none = self.holds_none(u, a[0]);
        let b_none = self.holds_none(u, b[0]);
        let same = self.b.ins().icmp(IntCC::Equal, a[0], b[0]);
        let either = self.b.ins().bor(a_none, b_none);
        let ok = self.b.ins().bor(either, same);
        let bad = self.b.ins().icmp_imm_s(IntCC::Equal, ok, 0);
        let tys: Vec<_> = self
            .env
            .layout
            .slots(slow.ty)?
            .iter()
            .map(|s| s.cl_type())
            .collect();
        self.guarded(
            bad,
            &tys,
            |t| t.slow_path(slow, types::I64),
            |t| {
                let mut sum = vec![a[0]];
                for (k, m) in u.members.iter().enumerate() {
                    let range = t.env.layout.member(u, k)?;
                    let (x, y) = (a[range.clone()].to_vec(), b[range].to_vec());
                    sum.extend(t.accum(x, m, y, m, m, slow)?);
                }
                Ok(sum
                    .iter()
                    .enumerate()
                    .map(|(i, &s)| {
                        let kept = t.b.ins().select(b_none, a[i], s);
                        t.b.ins().select(a_none, b[i], kept)
                    })
                    .collect())
            },
        )
    }

    /// Does the union value tagged `tag` hold no member: a gradient nothing reached (tag 0) or
    /// the member `Nothing`?
    fn holds_none(&mut self, u: &UnionType, tag: ClValue) -> ClValue {
        let unset = self.b.ins().icmp_imm_s(IntCC::Equal, tag, 0);
        match u.members.iter().position(|m| *m == Type::Nothing) {
            Some(k) => {
                let nothing = self.b.ins().icmp_imm_s(IntCC::Equal, tag, k as i64 + 1);
                self.b.ins().bor(unset, nothing)
            }
            None => unset,
        }
    }

    /// The slots of the union `u` holding member `k` with slots `v` (`None`: no member, tag 0).
    fn tagged(&mut self, u: &UnionType, k: Option<usize>, v: Vec<ClValue>) -> R<Vec<ClValue>> {
        let tag = k.map_or(0, |k| k as i64 + 1);
        let mut out = vec![self.b.ins().iconst(types::I64, tag)];
        for (i, m) in u.members.iter().enumerate() {
            if Some(i) == k {
                out.extend(v.iter().copied());
            } else {
                out.extend(self.zeros(m)?);
            }
        }
        Ok(out)
    }

    /// The slots `v` of a value of the union `f` seen as one of the union `u` holding every
    /// member of `f` (`Union{Add, Mul}` where `Union{Add, Leaf, Mul}` is held): the tag
    /// renumbered, each member's slots moved to where `u` keeps them.
    fn widened(&mut self, f: &UnionType, u: &UnionType, v: Vec<ClValue>) -> R<Vec<ClValue>> {
        let mut tag = self.b.ins().iconst(types::I64, 0);
        let mut out = Vec::new();
        for (j, m) in u.members.iter().enumerate() {
            match f.members.iter().position(|n| n == m) {
                Some(i) => {
                    let is = self.b.ins().icmp_imm_s(IntCC::Equal, v[0], i as i64 + 1);
                    let to = self.b.ins().iconst(types::I64, j as i64 + 1);
                    tag = self.b.ins().select(is, to, tag);
                    out.extend(v[self.env.layout.member(f, i)?].iter().copied());
                }
                None => out.extend(self.zeros(m)?),
            }
        }
        out.insert(0, tag);
        Ok(out)
    }

    /// Member `k` of the union operand `args[0]` (of type `ty`): its slots where the tag says
    /// it is held; where it holds no member, the zero the interpreter gives (`nothing`'s
    /// conversion) if `ty` is numbers only; the interpreter's `union_convert` otherwise.
    fn take_member(
        &mut self,
        u: &UnionType,
        k: usize,
        args: &[Operand],
        ty: &Type,
        span: Span,
    ) -> R<Vec<ClValue>> {
        let v = self.operand(&args[0])?;
        let range = self.env.layout.member(u, k)?;
        let other = self.b.ins().icmp_imm_s(IntCC::NotEqual, v[0], k as i64 + 1);
        let tys: Vec<_> = self
            .env
            .layout
            .slots(ty)?
            .iter()
            .map(|s| s.cl_type())
            .collect();
        let held = v[range].to_vec();
        if matches!(ty, Type::Union(_)) || !self.all_scalar(ty)? {
            return self.guarded(
                other,
                &tys,
                |t| t.fallback(Prim::UnionConvert, args, ty, span),
                |_| Ok(held),
            );
        }
        let none = self.holds_none(u, v[0]);
        let known = self.b.ins().icmp_imm_s(IntCC::Equal, none, 0);
        let bad = self.b.ins().band(other, known);
        self.guarded(
            bad,
            &tys,
            |t| t.fallback(Prim::UnionConvert, args, ty, span),
            |t| {
                let zeros = t.zeros(ty)?;
                Ok(held
                    .iter()
                    .zip(zeros)
                    .map(|(&h, z)| t.b.ins().select(none, z, h))
                    .collect())
            },
        )
    }
}

/// The refusal of a `union_convert` between types neither of which is a member of the other.
fn unconvertible(from: &Type, to: &Type) -> JitError {
    JitError::unsupported(format!("`union_convert` of a {from} to a {to}"))
}
