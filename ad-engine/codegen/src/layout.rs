//! How IR types are represented in machine code: every type is flattened into a sequence of
//! scalar *slots* (scalar replacement of tuples, named tuples and immutable structs); objects
//! with identity (arrays, `Ref`s, mutable structs, AD stacks) are one pointer slot. A pullback
//! closure whose type only one pullback can have is scalar-replaced too (it is its tape); other
//! pullback closures are a pointer to a box holding the pullback's address and its tape.

use std::sync::Arc;

use cranelift_codegen::ir::types as cl;
use rustc_hash::FxHashMap;
use zy_ir::{Instance, Type, UnionType};

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

/// The pullback that every closure of one `Pullback` type runs.
#[derive(Clone, Debug)]
pub struct StaticPullback {
    /// The pullback instance.
    pub instance: Arc<Instance>,
    /// Its tape type (its first argument): the closure's representation.
    pub tape: Type,
}

/// The layout rules of one compilation: which pullback closure types are scalar-replaced.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    statics: FxHashMap<Arc<[Type]>, StaticPullback>,
}

impl Layout {
    /// A layout scalar-replacing the closures of the given types. Candidates whose tape holds a
    /// closure of their own type (recursion) stay boxed.
    pub fn new(candidates: FxHashMap<Arc<[Type]>, StaticPullback>) -> Layout {
        let mut statics = candidates;
        loop {
            let cyclic: Vec<Arc<[Type]>> = statics
                .iter()
                .filter(|(sig, sp)| reaches(&statics, &sp.tape, sig, &mut Vec::new()))
                .map(|(sig, _)| sig.clone())
                .collect();
            if cyclic.is_empty() {
                return Layout { statics };
            }
            for sig in cyclic {
                statics.remove(&sig);
            }
        }
    }

    /// The pullback that closures of type `Pullback{sig}` run, if they are scalar-replaced.
    pub fn static_pullback(&self, sig: &[Type]) -> Option<&StaticPullback> {
        self.statics.get(sig)
    }

    /// The slots of a value of type `ty`, in order.
    pub fn slots(&self, ty: &Type) -> Result<Vec<Slot>, JitError> {
        let mut out = Vec::new();
        self.push_slots(ty, &mut out)?;
        Ok(out)
    }

    /// The number of slots of a value of type `ty`.
    pub fn slot_count(&self, ty: &Type) -> Result<usize, JitError> {
        Ok(self.slots(ty)?.len())
    }

    /// The words of the box of a `Ref{ty}`: the content's slots, then the *unset word*, 0 once
    /// the box holds a value; an empty box (Julia's `Core.Box` of a local a closure captures
    /// before it is assigned) holds there the address of a `SiteKind::Str` site naming the
    /// local, for the interpreter's `UndefVarError` when the box is read.
    pub fn ref_words(&self, ty: &Type) -> Result<usize, JitError> {
        Ok(self.slot_count(ty)? + 1)
    }

    /// The range of slots that field `index` (0-based) of a scalar-replaced composite occupies.
    pub fn field_range(&self, ty: &Type, index: usize) -> Result<std::ops::Range<usize>, JitError> {
        let fields = ty
            .field_types()
            .ok_or_else(|| JitError::unsupported(format!("field access on {ty}")))?;
        if index >= fields.len() {
            return Err(JitError::unsupported(format!(
                "field {} of {ty}",
                index + 1
            )));
        }
        let mut start = 0;
        for f in &fields[..index] {
            start += self.slot_count(f)?;
        }
        Ok(start..start + self.slot_count(&fields[index])?)
    }

    /// Where member `k` (0-based, in [`UnionType::members`] order) of a union keeps its slots
    /// in the union's: a union is a tag (`0` for no member: an unset element, or a gradient
    /// that nothing reached; `k + 1` for member `k`) followed by every member's slots, those of
    /// the members not held being zeros.
    pub fn member(&self, u: &UnionType, k: usize) -> Result<std::ops::Range<usize>, JitError> {
        let mut start = 1;
        for m in &u.members[..k] {
            start += self.slot_count(m)?;
        }
        Ok(start..start + self.slot_count(&u.members[k])?)
    }

    /// How one element of an array of `elem` is stored (see [`Elem`]).
    pub fn elem(&self, elem: &Type) -> Result<Elem, JitError> {
        if let Ok(slot) = elem_slot(elem) {
            return Ok(Elem {
                slots: vec![slot],
                size: slot.size(),
                number: true,
                tagged: false,
            });
        }
        if interpreted(elem) {
            return Err(JitError::interpreted(format!("arrays of {elem}")));
        }
        // A rose tree's `kids::Vector{Rose}`: elements as deep as the data.
        if elem.holds_recursion() {
            return Err(JitError::interpreted(format!(
                "arrays of {elem}, a struct whose shape depends on the data"
            )));
        }
        let refused = || JitError::unsupported(format!("arrays of {elem}"));
        if !stored_by_reference(elem) {
            return Err(refused());
        }
        let slots = self.slots(elem).map_err(|_| refused())?;
        if slots.is_empty() {
            return Err(refused());
        }
        let size = 8 * slots.len() as u32;
        Ok(Elem {
            slots,
            size,
            number: false,
            tagged: matches!(elem, Type::Union(_)),
        })
    }

    fn push_slots(&self, ty: &Type, out: &mut Vec<Slot>) -> Result<(), JitError> {
        match ty {
            Type::Float64 => out.push(Slot::F64),
            Type::Int64 => out.push(Slot::I64),
            Type::Bool => out.push(Slot::Bool),
            Type::Symbol(_) if ty.is_any_symbol() => {
                return Err(JitError::interpreted("symbols known only at run time"))
            }
            Type::Nothing | Type::Bottom | Type::Function(_) | Type::Symbol(_) | Type::Param(_) => {
            }
            Type::Tuple(ts) => {
                for t in ts.iter() {
                    self.push_slots(t, out)?;
                }
            }
            // The tangent of a struct whose shape depends on the data, as deep as the data.
            Type::NamedTuple(_) if ty.holds_recursion() => {
                return Err(JitError::interpreted(format!(
                    "a gradient `{ty}` whose shape depends on the data (the tangent of a \
                     recursive struct)"
                )))
            }
            Type::NamedTuple(fs) => {
                for (_, t) in fs.iter() {
                    self.push_slots(t, out)?;
                }
            }
            Type::Struct(s) if !is_object(ty) => {
                for (_, t) in &s.fields {
                    self.push_slots(t, out)?;
                }
            }
            Type::Pullback(sig) => match self.statics.get(sig) {
                Some(sp) => self.push_slots(&sp.tape, out)?,
                None => out.push(Slot::Ptr),
            },
            Type::Struct(_) | Type::Ref(_) | Type::Stack(_) => out.push(Slot::Ptr),
            Type::Array(elem, _) => {
                self.elem(elem)?;
                out.push(Slot::Ptr)
            }
            Type::Adjoint(elem) => {
                elem_slot(elem)?;
                out.push(Slot::Ptr)
            }
            Type::Any => return Err(JitError::unsupported("a value of type Any (untyped IR)")),
            // An `Int128` or `UInt128`: its function is the interpreter's.
            Type::Int(k) if k.wide() => {
                return Err(JitError::interpreted(format!(
                    "a value of type {k} (the interpreter holds its 128 bits)"
                )))
            }
            // A fixed-width integer: held as the interpreter holds it (sign- or
            // zero-extended; a `UInt64` its bits), every result wrapped to its width
            // (`translate/scalar.rs`, `sized`).
            Type::Int(_) => out.push(Slot::I64),
            // A Float32: its exact Float64 value, every operation rounding its result back
            // (`translate/scalar.rs`, `single`).
            Type::Float32 => out.push(Slot::F64),
            // A value whose concrete type is known only at run time (an element of a
            // `Vector{Shape}`): its tag, then every member's slots (see [`Layout::member`]).
            Type::Union(u) => {
                out.push(Slot::I64);
                for m in &u.members {
                    self.push_slots(m, out)?;
                }
            }
            // A string or a caught exception: the address of a value the runtime holds
            // (`Arena::hold`), which only the interpreter's primitives look into.
            Type::String | Type::SubString | Type::Exception => out.push(Slot::Ptr),
            // Inside a recursive struct's box, the node it holds: an object too.
            Type::Recur(..) => out.push(Slot::Ptr),
        }
        Ok(())
    }
}

/// Is a value of type `t` an object, one pointer to a box of its fields' slots: a mutable
/// struct, or a struct whose shape depends on the data (its own type in its fields, which in
/// line would have no end), copied by sharing its box.
pub fn is_object(t: &Type) -> bool {
    matches!(t, Type::Struct(s) if s.mutable || s.is_recursive())
}

/// Does a value of type `t` hold (through scalar-replaced parts) a closure of type `sig`?
fn reaches(
    statics: &FxHashMap<Arc<[Type]>, StaticPullback>,
    t: &Type,
    sig: &Arc<[Type]>,
    seen: &mut Vec<Arc<[Type]>>,
) -> bool {
    match t {
        Type::Pullback(s) => {
            if s == sig {
                return true;
            }
            if seen.contains(s) {
                return false;
            }
            seen.push(s.clone());
            statics
                .get(s)
                .is_some_and(|sp| reaches(statics, &sp.tape, sig, seen))
        }
        Type::Tuple(ts) => ts.iter().any(|t| reaches(statics, t, sig, seen)),
        Type::NamedTuple(fs) => fs.iter().any(|(_, t)| reaches(statics, t, sig, seen)),
        Type::Struct(s) if !is_object(t) => {
            s.fields.iter().any(|(_, t)| reaches(statics, t, sig, seen))
        }
        _ => false,
    }
}

/// The slot of one array element: arrays hold numbers only.
pub fn elem_slot(elem: &Type) -> Result<Slot, JitError> {
    match elem {
        Type::Float64 => Ok(Slot::F64),
        Type::Int64 => Ok(Slot::I64),
        Type::Bool => Ok(Slot::Bool),
        other if interpreted(other) => Err(JitError::interpreted(format!("arrays of {other}"))),
        other => Err(JitError::unsupported(format!("arrays of {other}"))),
    }
}

/// Array elements the interpreter runs by design: strings, symbols known only at run time,
/// caught exceptions, values of an abstract type one of whose structs is not storable, and
/// elements of Julia's `Any`, `Real` or `Number` (numbers each of its own type, and their
/// gradients, which compiled code would read as unset where a member has none), and numbers
/// that may be absent (`Union{Missing, Float64}`, `Union{Nothing, Float64}`, and their
/// gradients, `nothing` where the value is absent).
fn interpreted(t: &Type) -> bool {
    matches!(
        t,
        Type::String | Type::SubString | Type::Exception | Type::Int(_) | Type::Float32
    ) || t.is_any_symbol()
        || matches!(t, Type::Union(_)) && !stored_by_reference(t)
        || matches!(t, Type::Union(u) if is_open(&u.name) || maybe_absent(&u.members))
}

/// Are these a union's members numbers beside `missing` or `nothing`?
fn maybe_absent(members: &[Type]) -> bool {
    let absent = |m: &Type| m.is_missing() || *m == Type::Nothing;
    members.iter().any(absent) && members.iter().all(|m| m.is_number() || absent(m))
}

/// Is a union named `name` Julia's open abstract type held as numbers, or its tangent?
fn is_open(name: &str) -> bool {
    let name = name
        .strip_prefix("Tangent{")
        .and_then(|n| n.strip_suffix('}'))
        .unwrap_or(name);
    matches!(name, "Any" | "Real" | "Number" | "Integer")
}

/// The storage of one array element. Numbers are stored packed (`Float64`, `Int64` in 8 bytes,
/// `Bool` in one). Other elements are their flattened slots, one 64-bit word each: an array, a
/// mutable struct or a `Ref` is one pointer to the object itself (so `xs[1] .= 0` writes into
/// the object every alias sees; the arena keeps every object alive until the call returns),
/// and a tuple or immutable struct is its fields' slots in line (a value: reading copies them
/// out, `xs[i] = v` overwrites them), and so is a value of an abstract type (its tag and its
/// members' slots). A null first pointer, or a union's tag 0, is an unset (`#undef`) slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Elem {
    /// The element's slots, in order.
    pub slots: Vec<Slot>,
    /// Bytes between consecutive elements.
    pub size: u32,
    /// A number stored packed (the only elements of arrays that kernels and broadcasts take).
    pub number: bool,
    /// A value of an abstract type: its first slot is the member's tag.
    pub tagged: bool,
}

impl Elem {
    /// The byte offset of slot `k` within an element.
    pub fn offset(&self, k: usize) -> i32 {
        if self.number {
            0
        } else {
            8 * k as i32
        }
    }

    /// The index of the slot whose null value marks an unset element, if the element holds a
    /// pointer or a union's tag (an element of numbers only is never unset in compiled code).
    pub fn unset_marker(&self) -> Option<usize> {
        if self.tagged {
            return Some(0);
        }
        self.slots.iter().position(|s| *s == Slot::Ptr)
    }
}

/// Can a vector hold elements of `elem` in compiled code, other than numbers: arrays, mutable
/// structs, `Ref`s, tuples, named tuples and immutable structs made of numbers and those, and
/// values of an abstract type whose members are such.
fn stored_by_reference(elem: &Type) -> bool {
    match elem {
        Type::Float64 | Type::Int64 | Type::Bool | Type::Nothing => true,
        Type::Array(..) | Type::Ref(_) => true,
        Type::Struct(s) if s.mutable => true,
        Type::Struct(s) => s.fields.iter().all(|(_, t)| stored_by_reference(t)),
        Type::Tuple(ts) => ts.iter().all(stored_by_reference),
        Type::NamedTuple(fs) => fs.iter().all(|(_, t)| stored_by_reference(t)),
        Type::Union(u) => u.members.iter().all(stored_by_reference),
        _ => false,
    }
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
    use zy_ir::{StructKind, StructType};

    #[test]
    fn composites_flatten_and_objects_are_pointers() {
        let point = Type::Struct(Arc::new(StructType {
            name: "P".into(),
            params: vec![],
            fields: vec![
                ("x".into(), Type::Float64),
                ("v".into(), Type::vector_f64()),
            ],
            mutable: false,
            kind: StructKind::User,
        }));
        let t = Type::tuple([Type::Int64, point.clone(), Type::Nothing, Type::Bool]);
        let layout = Layout::default();
        assert_eq!(
            layout.slots(&t).unwrap(),
            vec![Slot::I64, Slot::F64, Slot::Ptr, Slot::Bool]
        );
        assert_eq!(layout.field_range(&t, 1).unwrap(), 1..3);
        assert_eq!(layout.field_range(&t, 2).unwrap(), 3..3);
        let (offs, size) = packed_offsets(&layout.slots(&t).unwrap());
        assert_eq!((offs, size), (vec![0, 8, 16, 24], 25));
        assert!(layout.slots(&Type::Any).is_err());
    }

    #[test]
    fn a_union_is_a_tag_and_every_members_slots() {
        let member = |name: &str, field: Type, mutable: bool| {
            Type::Struct(Arc::new(StructType {
                name: name.into(),
                params: vec![],
                fields: vec![("x".into(), field)],
                mutable,
                kind: StructKind::User,
            }))
        };
        let circle = member("Circle", Type::Float64, false);
        let disk = member("Disk", Type::Float64, true);
        let Type::Union(u) = Type::union("Shape".into(), vec![circle, disk]) else {
            panic!("two members make a union");
        };
        let layout = Layout::default();
        let t = Type::Union(u.clone());
        assert_eq!(
            layout.slots(&t).unwrap(),
            vec![Slot::I64, Slot::F64, Slot::Ptr]
        );
        assert_eq!(layout.member(&u, 0).unwrap(), 1..2);
        assert_eq!(layout.member(&u, 1).unwrap(), 2..3);
        let el = layout.elem(&t).unwrap();
        assert_eq!((el.size, el.unset_marker()), (24, Some(0)));
    }

    #[test]
    fn static_pullbacks_are_their_tape_unless_recursive() {
        let sig: Arc<[Type]> = Arc::from([Type::Function("f".into()), Type::Float64]);
        let rec: Arc<[Type]> = Arc::from([Type::Function("g".into()), Type::Int64]);
        let inst = |name: &str, args: &Arc<[Type]>| {
            Arc::new(Instance {
                name: name.into(),
                method: 0,
                args: args.clone(),
            })
        };
        let mut cands = FxHashMap::default();
        cands.insert(
            sig.clone(),
            StaticPullback {
                instance: inst("f⁻", &sig),
                tape: Type::tuple([Type::Float64]),
            },
        );
        let rec_tape = Type::tuple([Type::Pullback(rec.clone()), Type::Float64]);
        cands.insert(
            rec.clone(),
            StaticPullback {
                instance: inst("g⁻", &rec),
                tape: rec_tape,
            },
        );
        let layout = Layout::new(cands);
        assert_eq!(layout.slots(&Type::Pullback(sig)).unwrap(), vec![Slot::F64]);
        assert_eq!(layout.slots(&Type::Pullback(rec)).unwrap(), vec![Slot::Ptr]);
    }
}
