//! Runtime support for vectors whose elements are arrays, tuples or structs (`layout::Elem`):
//! `accum!` of a shadow of tuples of numbers, and `zero_tangent` of such a vector made in the
//! arena from the slots themselves (the interpreter's `zero_of`, without converting every
//! element to a value and back).

use std::collections::HashMap;

use zy_ir::Type;

use super::{Arena, ArrayObj};
use crate::layout::Layout;

/// `accum!(dst, src)` of two vectors of one length whose elements are `words` Float64 slots
/// each (the shadow of a `Vector{Tuple{Float64, Float64}}`, of a vector of structs of numbers):
/// every slot of `src` added into the same slot of `dst` (`0.0 + s` when `fresh`, as the
/// interpreter adds into a zero). Returns 1 (and does nothing) when the lengths differ.
///
/// # Safety
/// Both must be live arrays of the call holding `words` Float64 words per element.
pub unsafe extern "C" fn zy_rt_accum_words(
    dst: *mut ArrayObj,
    src: *const ArrayObj,
    words: i64,
    fresh: i8,
) -> i8 {
    let (d, s) = unsafe { (&*dst, &*src) };
    if d.len != s.len {
        return 1;
    }
    let n = (d.len.max(0) as usize).saturating_mul(words.max(0) as usize);
    // SAFETY: both hold `n` Float64 words; they may be the same array (then not fresh).
    unsafe {
        let (dp, sp) = (d.data.cast::<f64>(), s.data.cast::<f64>());
        for k in 0..n {
            let base = if fresh != 0 { 0.0 } else { *dp.add(k) };
            *dp.add(k) = base + *sp.add(k);
        }
    }
    0
}

/// The symbols of this module.
pub fn symbols() -> Vec<(&'static str, *const u8)> {
    vec![("zy_rt_accum_words", zy_rt_accum_words as *const u8)]
}

/// A value given to [`zero_tangent`] for its shapes: its slots and its type.
#[derive(Clone)]
struct Like {
    words: Vec<u64>,
    ty: Type,
}

/// `zero_tangent(like)` of result type `ret` when `like` (slots `words` of type `ty`) is a
/// vector of arrays, structs or tuples: the slots of the zero, made in `arena` as the
/// interpreter's `zero_of` makes the value (each element's zero shaped like it, an unset slot
/// unset, one array or mutable struct held in two slots given one zero held in both). `None`
/// for a case it does not cover (the caller then runs the interpreter's code).
pub fn zero_tangent(
    arena: &mut Arena,
    layout: &Layout,
    ret: &Type,
    words: &[u64],
    ty: &Type,
) -> Option<Vec<u64>> {
    let objects = |t: &Type| match t {
        Type::Array(e, _) => layout.elem(e).is_ok_and(|el| !el.number),
        _ => false,
    };
    if !objects(ret) || !objects(ty) {
        return None;
    }
    let like = Like {
        words: words.to_vec(),
        ty: ty.clone(),
    };
    let mut out = Vec::new();
    Zeros { arena, layout }.zero(ret, Some(&like), &mut out)?;
    Some(out)
}

struct Zeros<'a> {
    arena: &'a mut Arena,
    layout: &'a Layout,
}

impl Zeros<'_> {
    fn zero(&mut self, t: &Type, like: Option<&Like>, out: &mut Vec<u64>) -> Option<()> {
        match t {
            Type::Float64 | Type::Float32 | Type::Int64 | Type::Int(_) | Type::Bool => out.push(0),
            Type::Nothing | Type::Function(_) => {}
            Type::Tuple(ts) => self.fields(ts.iter(), like, out)?,
            Type::NamedTuple(fs) => self.fields(fs.iter().map(|(_, t)| t), like, out)?,
            Type::Struct(s) if !crate::layout::is_object(t) => {
                self.fields(s.fields.iter().map(|(_, t)| t), like, out)?
            }
            Type::Ref(inner) => {
                // The contents of a `Ref` are shaped like the `Ref`'s; a mutable struct's
                // fields like the struct's.
                let contents = match like {
                    Some(Like {
                        words,
                        ty: Type::Ref(i),
                    }) => {
                        let n = self.layout.slot_count(i).ok()?;
                        let p = *words.first()? as *const u64;
                        // SAFETY: a `Ref` is a live box of its contents' slots, one word each,
                        // and its unset word; an empty one is left to the interpreter.
                        let w = unsafe { std::slice::from_raw_parts(p, n + 1) };
                        if w[n] != 0 {
                            return None;
                        }
                        let w = w[..n].to_vec();
                        Some(Like {
                            words: w,
                            ty: (**i).clone(),
                        })
                    }
                    other => other.cloned(),
                };
                let mut w = Vec::new();
                self.zero(inner, contents.as_ref(), &mut w)?;
                let p = self.arena.alloc_words(self.layout.ref_words(inner).ok()?);
                // SAFETY: a fresh box of more than `w.len()` words.
                unsafe { std::ptr::copy_nonoverlapping(w.as_ptr(), p, w.len()) };
                out.push(p as u64);
            }
            Type::Array(e, dims) => {
                let el = self.layout.elem(e).ok()?;
                let obj = match like {
                    Some(Like {
                        words,
                        ty: Type::Array(..),
                    }) => Some(*words.first()? as *const ArrayObj),
                    Some(_) => return None,
                    None => None,
                };
                let a = match obj {
                    // SAFETY: `like` is a live array of the call.
                    Some(o) => self.arena.new_array_like(unsafe { &*o }, el.size as usize),
                    // Without a shape, the interpreter's empty matrix of numbers, or empty vector.
                    None if *dims == 2 && el.number => self.arena.new_array(0, 0, el.size as usize),
                    None => self.arena.new_array(0, 1, el.size as usize),
                };
                if let (
                    false,
                    Some(o),
                    Some(Like {
                        ty: Type::Array(le, _),
                        ..
                    }),
                ) = (el.number, obj, like)
                {
                    // SAFETY: `o` is live, `a` fresh with as many elements.
                    unsafe { self.elements(a, &*o, e, le)? };
                }
                out.push(a as u64);
            }
            _ => return None,
        }
        Some(())
    }

    /// The zeros of `tys`, each shaped like the same field of `like`.
    fn fields<'t>(
        &mut self,
        tys: impl Iterator<Item = &'t Type>,
        like: Option<&Like>,
        out: &mut Vec<u64>,
    ) -> Option<()> {
        let parts = match like {
            Some(l) => self.components(l),
            None => None,
        };
        for (i, t) in tys.enumerate() {
            self.zero(t, parts.as_ref().and_then(|ps| ps.get(i)), out)?;
        }
        Some(())
    }

    /// The parts of `like` that line up with the fields of its tangent (the interpreter's
    /// `components`).
    fn components(&self, like: &Like) -> Option<Vec<Like>> {
        let (tys, words): (Vec<Type>, Vec<u64>) = match &like.ty {
            Type::Tuple(ts) => (ts.to_vec(), like.words.clone()),
            Type::NamedTuple(fs) => (
                fs.iter().map(|(_, t)| t.clone()).collect(),
                like.words.clone(),
            ),
            Type::Struct(s) => {
                let tys: Vec<Type> = s.fields.iter().map(|(_, t)| t.clone()).collect();
                if crate::layout::is_object(&like.ty) {
                    let n = self
                        .layout
                        .slot_count(&Type::Tuple(tys.clone().into()))
                        .ok()?;
                    let p = *like.words.first()? as *const u64;
                    // SAFETY: a mutable or recursive struct is a live box of its fields' slots.
                    (tys, unsafe { std::slice::from_raw_parts(p, n) }.to_vec())
                } else {
                    (tys, like.words.clone())
                }
            }
            Type::Ref(i) => {
                let n = self.layout.slot_count(i).ok()?;
                let p = *like.words.first()? as *const u64;
                // SAFETY: a `Ref` is a live box of its contents' slots and its unset word.
                let w = unsafe { std::slice::from_raw_parts(p, n + 1) };
                if w[n] != 0 {
                    return None;
                }
                (vec![(**i).clone()], w[..n].to_vec())
            }
            _ => return None,
        };
        let mut at = 0;
        let mut parts = Vec::with_capacity(tys.len());
        for t in tys {
            let n = self.layout.slot_count(&t).ok()?;
            parts.push(Like {
                words: words.get(at..at + n)?.to_vec(),
                ty: t,
            });
            at += n;
        }
        Some(parts)
    }

    /// Fill the fresh vector `a` of `e`s with the zeros of the elements of `o` (of `le`s).
    ///
    /// # Safety
    /// `o` and `a` must be live arrays of as many elements, of `le` and of `e`.
    unsafe fn elements(
        &mut self,
        a: *mut ArrayObj,
        o: &ArrayObj,
        e: &Type,
        le: &Type,
    ) -> Option<()> {
        let (el, lel) = (self.layout.elem(e).ok()?, self.layout.elem(le).ok()?);
        let shared = matches!(le, Type::Array(..)) || matches!(le, Type::Struct(s) if s.mutable);
        let mut seen: HashMap<u64, Vec<u64>> = HashMap::new();
        for i in 0..o.len.max(0) as usize {
            // SAFETY: element `i` of `o`, one word per slot.
            let words = unsafe {
                std::slice::from_raw_parts(
                    o.data.add(i * lel.size as usize).cast::<u64>(),
                    lel.slots.len(),
                )
            }
            .to_vec();
            if lel.unset_marker().is_some_and(|k| words[k] == 0) {
                continue;
            }
            let z = match seen.get(&words[0]) {
                Some(z) if shared => z.clone(),
                _ => {
                    let mut z = Vec::new();
                    self.zero(
                        e,
                        Some(&Like {
                            words: words.clone(),
                            ty: le.clone(),
                        }),
                        &mut z,
                    )?;
                    if shared {
                        seen.insert(words[0], z.clone());
                    }
                    z
                }
            };
            if z.len() != el.slots.len() {
                return None;
            }
            // SAFETY: element `i` of the fresh `a`.
            unsafe {
                let at = (*a).data.add(i * el.size as usize).cast::<u64>();
                std::ptr::copy_nonoverlapping(z.as_ptr(), at, z.len());
            }
        }
        Some(())
    }
}
