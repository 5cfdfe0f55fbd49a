//! Values of an abstract type (`Type::Union`) across the boundary: the member's tag, then every
//! member's slots, the held member's filled in and the others zero (`Layout::member`).

use zy_interp::Value;
use zy_ir::{Name, Type, UnionType};

use super::{FromNative, ToNative};
use crate::runtime::Arena;

impl ToNative {
    /// Append the slots of `v` seen as a value of the union `u`: `nothing` where no member is
    /// `Nothing` is a gradient nothing reached (tag 0).
    pub(super) fn union(
        &mut self,
        arena: &mut Arena,
        v: &Value,
        u: &UnionType,
        out: &mut Vec<u64>,
    ) -> Result<(), String> {
        let layout = self.tables.layout.clone();
        let whole = layout
            .slot_count(&Type::Union(u.clone().into()))
            .map_err(|e| e.to_string())?;
        let start = out.len();
        out.resize(start + whole, 0);
        let Some(k) = member_of(u, v) else {
            return match v {
                Value::Nothing => Ok(()),
                _ => Err(format!(
                    "internal error: JIT cannot pass {} as a {}",
                    v.julia_type(),
                    u.name
                )),
            };
        };
        let mut words = Vec::new();
        self.value(arena, v, &u.members[k], &mut words)?;
        let range = layout.member(u, k).map_err(|e| e.to_string())?;
        out[start] = k as u64 + 1;
        out[start + range.start..start + range.end].copy_from_slice(&words);
        Ok(())
    }
}

impl FromNative {
    /// The value of the union `u` whose slots start at `words[*at]`; advances `at`.
    pub(super) fn union(
        &mut self,
        words: &[u64],
        at: &mut usize,
        u: &UnionType,
    ) -> Result<Value, String> {
        let layout = self.tables.layout.clone();
        let start = *at;
        let tag = *words
            .get(start)
            .ok_or("internal error: JIT result too short")?;
        *at += layout
            .slot_count(&Type::Union(u.clone().into()))
            .map_err(|e| e.to_string())?;
        let Some(k) = (tag as usize).checked_sub(1) else {
            return Ok(Value::Nothing);
        };
        let member = u
            .members
            .get(k)
            .ok_or_else(|| format!("internal error: JIT tag {tag} of {}", u.name))?;
        let range = layout.member(u, k).map_err(|e| e.to_string())?;
        let v = self.value(words, &mut (start + range.start), member)?;
        Ok(zy_interp::substring::member_value(v, u, member))
    }
}

/// The member of `u` that the value `v` is: its type, or for a gradient the member whose
/// fields it has (a gradient's field types may be narrower than the member's).
fn member_of(u: &UnionType, v: &Value) -> Option<usize> {
    let ty = v.julia_type();
    u.members.iter().position(|m| *m == ty).or_else(|| {
        let names = field_names(&ty)?;
        u.members
            .iter()
            .position(|m| field_names(m).as_ref() == Some(&names))
    })
}

/// The field names of a struct or a named tuple.
fn field_names(t: &Type) -> Option<Vec<Name>> {
    match t {
        Type::NamedTuple(fs) => Some(fs.iter().map(|(n, _)| n.clone()).collect()),
        Type::Struct(s) => Some(s.fields.iter().map(|(n, _)| n.clone()).collect()),
        _ => None,
    }
}
