//! Values of an abstract type (`Vector{Shape}`'s elements, `Type::Union`): a tag saying which
//! member is held and every member's slots (`Layout::member`). `union_isa` compares the tag;
//! `union_convert` tags a member, or takes the held member's slots out, a tag that differs (a
//! value of another member, or a gradient nothing reached) being the interpreter's in a cold
//! path (Julia's `TypeError`, or the member's zero gradient).

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder};
use zy_ir::{Const, Operand, Prim, Span, Type, UnionType};

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
            _ => return Ok(None),
        }))
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

    /// Member `k` of the union operand `args[0]` (of type `ty`): its slots where the tag says
    /// it is held, the interpreter's `union_convert` otherwise.
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
        self.guarded(
            other,
            &tys,
            |t| t.fallback(Prim::UnionConvert, args, ty, span),
            |_| Ok(v[range].to_vec()),
        )
    }
}

/// The refusal of a `union_convert` between types neither of which is a member of the other.
fn unconvertible(from: &Type, to: &Type) -> JitError {
    JitError::unsupported(format!("`union_convert` of a {from} to a {to}"))
}
