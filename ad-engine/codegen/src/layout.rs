//! How IR types are represented in machine code: every type is flattened into a sequence of
//! scalar *slots* (scalar replacement of tuples, named tuples and immutable structs); objects
//! with identity (arrays, `Ref`s, mutable structs, AD stacks, pullbacks) are one pointer slot.

use cranelift_codegen::ir::types as cl;
use zy_ir::Type;

use crate::error::JitError;

/// One machine-level slot of a flattened value.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Slot {
    /// A `Float64`.
    F64,
    /// An `Int64`.
    I64,
    /// A `Bool` (one byte, 0 or 1).
    Bool,
    /// A pointer to a runtime object.
    Ptr,
}

impl Slot {
    /// The Cranelift type of this slot (pointers are 64-bit: the JIT targets 64-bit hosts).
    pub fn cl_type(self) -> cranelift_codegen::ir::Type {
        match self {
            Slot::F64 => cl::F64,
            Slot::I64 | Slot::Ptr => cl::I64,
            Slot::Bool => cl::I8,
        }
    }

    /// Bytes the slot takes when packed (in AD stacks and arrays).
    pub fn size(self) -> u32 {
        match self {
            Slot::Bool => 1,
            _ => 8,
        }
    }
}

/// The slots of a value of type `ty`, in order.
pub fn slots(ty: &Type) -> Result<Vec<Slot>, JitError> {
    let mut out = Vec::new();
    push_slots(ty, &mut out)?;
    Ok(out)
}

/// The number of slots of a value of type `ty`.
pub fn slot_count(ty: &Type) -> Result<usize, JitError> {
    Ok(slots(ty)?.len())
}

fn push_slots(ty: &Type, out: &mut Vec<Slot>) -> Result<(), JitError> {
    match ty {
        Type::Float64 => out.push(Slot::F64),
        Type::Int64 => out.push(Slot::I64),
        Type::Bool => out.push(Slot::Bool),
        Type::Nothing | Type::Bottom | Type::Function(_) => {}
        Type::Tuple(ts) => {
            for t in ts.iter() {
                push_slots(t, out)?;
            }
        }
        Type::NamedTuple(fs) => {
            for (_, t) in fs.iter() {
                push_slots(t, out)?;
            }
        }
        Type::Struct(s) if !s.mutable => {
            for (_, t) in &s.fields {
                push_slots(t, out)?;
            }
        }
        Type::Struct(_) | Type::Ref(_) | Type::Stack(_) | Type::Pullback(_) => out.push(Slot::Ptr),
        Type::Array(elem, _) | Type::Adjoint(elem) => {
            elem_slot(elem)?;
            out.push(Slot::Ptr)
        }
        Type::Any => return Err(JitError::unsupported("a value of type Any (untyped IR)")),
    }
    Ok(())
}

/// The slot of one array element: arrays hold numbers only.
pub fn elem_slot(elem: &Type) -> Result<Slot, JitError> {
    match elem {
        Type::Float64 => Ok(Slot::F64),
        Type::Int64 => Ok(Slot::I64),
        Type::Bool => Ok(Slot::Bool),
        other => Err(JitError::unsupported(format!("arrays of {other}"))),
    }
}

/// The range of slots that field `index` (0-based) of a scalar-replaced composite occupies.
pub fn field_range(ty: &Type, index: usize) -> Result<std::ops::Range<usize>, JitError> {
    let fields = ty
        .field_types()
        .ok_or_else(|| JitError::unsupported(format!("field access on {ty}")))?;
    if index >= fields.len() {
        return Err(JitError::unsupported(format!("field {} of {ty}", index + 1)));
    }
    let mut start = 0;
    for f in &fields[..index] {
        start += slot_count(f)?;
    }
    Ok(start..start + slot_count(&fields[index])?)
}

/// Byte offsets of each slot when the slots of `ty` are stored in memory, 8 bytes apart (the
/// layout of `Ref` contents, mutable struct fields and the fallback buffer).
pub fn word_offsets(n: usize) -> impl Iterator<Item = i32> {
    (0..n).map(|i| (i * 8) as i32)
}

/// Byte offsets of each slot when packed tightly (the layout of one AD stack entry), and the
/// entry's total size.
pub fn packed_offsets(slots: &[Slot]) -> (Vec<i32>, u32) {
    let mut offsets = Vec::with_capacity(slots.len());
    let mut at = 0u32;
    for s in slots {
        offsets.push(at as i32);
        at += s.size();
    }
    (offsets, at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use zy_ir::{StructKind, StructType};

    #[test]
    fn composites_flatten_and_objects_are_pointers() {
        let point = Type::Struct(Arc::new(StructType {
            name: "P".into(),
            params: vec![],
            fields: vec![("x".into(), Type::Float64), ("v".into(), Type::vector_f64())],
            mutable: false,
            kind: StructKind::User,
        }));
        let t = Type::tuple([Type::Int64, point.clone(), Type::Nothing, Type::Bool]);
        assert_eq!(
            slots(&t).unwrap(),
            vec![Slot::I64, Slot::F64, Slot::Ptr, Slot::Bool]
        );
        assert_eq!(field_range(&t, 1).unwrap(), 1..3);
        assert_eq!(field_range(&t, 2).unwrap(), 3..3);
        let (offs, size) = packed_offsets(&slots(&t).unwrap());
        assert_eq!((offs, size), (vec![0, 8, 16, 24], 25));
        assert!(slots(&Type::Any).is_err());
    }
}
