//! Julia's `deepcopy` (aliasing inside the value preserved), the prelude's `deepcopy` made to
//! keep it too ([`Value::realias`]), and the Float64 leaves of a value as finite differences
//! see them: read them in order, or copy the value with new ones.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::value::{Array, ArrayData, Value};

/// Walks a value, copying every mutable object once (keyed by its address) so that two
/// references to one object in the original are two references to one copy.
struct Copier<'a> {
    seen: HashMap<usize, Value>,
    /// Replacement Float64 leaves, consumed in order (`None`: keep the originals).
    floats: Option<&'a [f64]>,
    next: usize,
}

impl Copier<'_> {
    fn float(&mut self, x: f64) -> f64 {
        match self.floats {
            Some(xs) => {
                let y = xs.get(self.next).copied().unwrap_or(x);
                self.next += 1;
                y
            }
            None => x,
        }
    }

    fn all(&mut self, vs: &[Value]) -> Vec<Value> {
        vs.iter().map(|v| self.copy(v)).collect()
    }

    fn copy(&mut self, v: &Value) -> Value {
        let key = match v {
            Value::Mutable(_, c) => Some(Rc::as_ptr(c) as *const u8 as usize),
            Value::Ref(c) => Some(Rc::as_ptr(c) as *const u8 as usize),
            Value::Array(c) | Value::Adjoint(c) => Some(Rc::as_ptr(c) as *const u8 as usize),
            Value::Stack(c) => Some(Rc::as_ptr(c) as *const u8 as usize),
            _ => None,
        };
        if let Some(done) = key.and_then(|k| self.seen.get(&k)) {
            // An adjoint shares its parent's storage: the copy shares the parent's copy.
            return match (v, done) {
                (Value::Adjoint(_), Value::Array(a)) => Value::Adjoint(a.clone()),
                (Value::Array(_), Value::Adjoint(a)) => Value::Array(a.clone()),
                _ => done.clone(),
            };
        }
        let out = match v {
            Value::F64(x) => Value::F64(self.float(*x)),
            Value::Tuple(vs) => Value::Tuple(self.all(vs).into()),
            Value::NamedTuple(ns, vs) => Value::NamedTuple(ns.clone(), self.all(vs).into()),
            Value::Struct(t, vs) => Value::Struct(t.clone(), self.all(vs).into()),
            Value::Mutable(t, c) => {
                Value::Mutable(t.clone(), Rc::new(RefCell::new(self.all(&c.borrow()))))
            }
            Value::Ref(c) => Value::new_ref(self.copy(&c.borrow())),
            Value::Array(a) | Value::Adjoint(a) => {
                let a = a.borrow();
                let data = match &a.data {
                    ArrayData::F64(xs) => {
                        ArrayData::F64(xs.iter().map(|&x| self.float(x)).collect())
                    }
                    other => other.clone(),
                };
                let copy = Rc::new(RefCell::new(Array::new(a.shape, data)));
                if matches!(v, Value::Adjoint(_)) {
                    Value::Adjoint(copy)
                } else {
                    Value::Array(copy)
                }
            }
            Value::Stack(s) => Value::Stack(Rc::new(RefCell::new(self.all(&s.borrow())))),
            other => other.clone(),
        };
        if let Some(k) = key {
            self.seen.insert(k, out.clone());
        }
        out
    }
}

/// The address of an object with identity (what `===` compares), `None` for a value.
fn identity(v: &Value) -> Option<usize> {
    match v {
        Value::Mutable(_, c) => Some(Rc::as_ptr(c) as *const u8 as usize),
        Value::Ref(c) => Some(Rc::as_ptr(c) as *const u8 as usize),
        Value::Array(c) | Value::Adjoint(c) => Some(Rc::as_ptr(c) as *const u8 as usize),
        _ => None,
    }
}

/// The parts of a value in field (or element) order: what [`Realias`] pairs up.
fn parts(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::Tuple(vs) | Value::NamedTuple(_, vs) | Value::Struct(_, vs) => Some(vs.to_vec()),
        Value::Mutable(_, c) => Some(c.borrow().clone()),
        Value::Array(a) => match &a.borrow().data {
            ArrayData::Obj(o) => Some(o.items.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// Walks a tree copy beside its original: the first copy of each object of the original is
/// remembered (by the original's address), and every later reference to that object is made a
/// reference to it.
struct Realias {
    first: HashMap<usize, Value>,
}

impl Realias {
    fn walk(&mut self, copy: &Value, like: &Value) -> Value {
        if let Some(k) = identity(like) {
            if let Some(first) = self.first.get(&k) {
                return first.clone();
            }
            self.first.insert(k, copy.clone());
        }
        self.inside(copy, like)
    }

    /// `copy` with its parts walked beside `like`'s: values rebuilt, objects fixed in place
    /// (they are the copy's own, fresh).
    fn inside(&mut self, copy: &Value, like: &Value) -> Value {
        let mut walked = |cs: &[Value]| -> Option<Vec<Value>> {
            let ls = parts(like)?;
            (ls.len() == cs.len())
                .then(|| cs.iter().zip(&ls).map(|(c, l)| self.walk(c, l)).collect())
        };
        match copy {
            Value::Tuple(cs) => {
                walked(cs).map_or_else(|| copy.clone(), |vs| Value::Tuple(vs.into()))
            }
            Value::NamedTuple(ns, cs) => walked(cs).map_or_else(
                || copy.clone(),
                |vs| Value::NamedTuple(ns.clone(), vs.into()),
            ),
            Value::Struct(t, cs) => {
                walked(cs).map_or_else(|| copy.clone(), |vs| Value::Struct(t.clone(), vs.into()))
            }
            Value::Mutable(_, c) => {
                let cs = c.borrow().clone();
                if let Some(vs) = walked(&cs) {
                    *c.borrow_mut() = vs;
                }
                copy.clone()
            }
            // A `Ref`'s contents beside the original's; a shadow box (a mutable struct's
            // gradient: a `Ref` of its fields' named tuple) beside the struct's fields.
            Value::Ref(c) => {
                let inner = c.borrow().clone();
                let fixed = match like {
                    Value::Ref(l) => self.walk(&inner, &l.borrow()),
                    _ => self.inside(&inner, like),
                };
                *c.borrow_mut() = fixed;
                copy.clone()
            }
            Value::Array(a) => {
                let cs = match &a.borrow().data {
                    ArrayData::Obj(o) => o.items.clone(),
                    _ => return copy.clone(),
                };
                if let Some(vs) = walked(&cs) {
                    if let ArrayData::Obj(o) = &mut a.borrow_mut().data {
                        o.items = vs;
                    }
                }
                copy.clone()
            }
            _ => copy.clone(),
        }
    }
}

impl Value {
    /// `self`, a tree copy of `like` (each object copied wherever `like` reaches it, as the
    /// prelude's `deepcopy` makes it), with the sharing of `like` restored as Julia's
    /// `deepcopy` keeps it: an object `like` reaches again is the copy of its first reference.
    /// `self`'s objects are fixed in place; a shadow or tangent of the copy, walked beside
    /// `like` the same way, stays the copy's.
    pub fn realias(&self, like: &Value) -> Value {
        Realias {
            first: HashMap::new(),
        }
        .walk(self, like)
    }

    /// Julia's `deepcopy`: new mutable objects throughout, with the aliasing between them
    /// preserved (an array held twice is copied once and held twice).
    pub fn deep_copy(&self) -> Value {
        Copier {
            seen: HashMap::new(),
            floats: None,
            next: 0,
        }
        .copy(self)
    }

    /// Every Float64 inside the value, depth first in field order, arrays in column-major
    /// order, each mutable object once however often it is referenced.
    pub fn float_leaves(&self) -> Vec<f64> {
        fn walk(v: &Value, seen: &mut HashMap<usize, ()>, out: &mut Vec<f64>) {
            let mut once = |p: usize| seen.insert(p, ()).is_none();
            match v {
                Value::F64(x) => out.push(*x),
                Value::Tuple(vs) | Value::NamedTuple(_, vs) | Value::Struct(_, vs) => {
                    vs.iter().for_each(|x| walk(x, seen, out))
                }
                Value::Mutable(_, c) if once(Rc::as_ptr(c) as *const u8 as usize) => {
                    c.borrow().iter().for_each(|x| walk(x, seen, out))
                }
                Value::Ref(c) if once(Rc::as_ptr(c) as *const u8 as usize) => {
                    walk(&c.borrow(), seen, out)
                }
                Value::Array(a) | Value::Adjoint(a) if once(Rc::as_ptr(a) as *const u8 as usize) => {
                    if let ArrayData::F64(xs) = &a.borrow().data {
                        out.extend_from_slice(xs);
                    }
                }
                Value::Stack(s) if once(Rc::as_ptr(s) as *const u8 as usize) => {
                    s.borrow().iter().for_each(|x| walk(x, seen, out))
                }
                _ => {}
            }
        }
        let mut out = Vec::new();
        walk(self, &mut HashMap::new(), &mut out);
        out
    }

    /// A deep copy whose Float64 leaves (in [`float_leaves`](Value::float_leaves) order) are
    /// `xs`; `None` if `xs` has the wrong length.
    pub fn with_float_leaves(&self, xs: &[f64]) -> Option<Value> {
        let mut c = Copier {
            seen: HashMap::new(),
            floats: Some(xs),
            next: 0,
        };
        let out = c.copy(self);
        (c.next == xs.len()).then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::show::show;

    #[test]
    fn deep_copy_preserves_aliasing_and_breaks_sharing_with_the_original() {
        let x = Value::vector_f64(vec![1.0, 2.0]);
        let Value::Array(parent) = &x else {
            unreachable!()
        };
        let pair = Value::tuple([x.clone(), x.clone(), Value::Adjoint(parent.clone())]);
        let copy = pair.deep_copy();
        let Value::Tuple(parts) = &copy else {
            unreachable!()
        };
        assert!(
            parts[0].egal(&parts[1]),
            "one array held twice stays one array"
        );
        assert!(!parts[0].egal(&x), "and it is a new array");
        if let Value::Array(a) = &parts[0] {
            a.borrow_mut().data.set(0, &Value::F64(9.0)).unwrap();
        }
        assert_eq!(show(&copy), "([9.0, 2.0], [9.0, 2.0], [9.0 2.0])");
        assert_eq!(show(&x), "[1.0, 2.0]");
    }

    #[test]
    fn float_leaves_round_trip() {
        let m = Value::matrix_f64(2, 1, vec![3.0, 4.0]).unwrap();
        let r = Value::new_ref(Value::F64(5.0));
        let v = Value::tuple([Value::F64(1.0), Value::Int(2), m.clone(), m, r]);
        assert_eq!(
            v.float_leaves(),
            vec![1.0, 3.0, 4.0, 5.0],
            "the shared matrix once"
        );
        let w = v.with_float_leaves(&[10.0, 30.0, 40.0, 50.0]).unwrap();
        assert_eq!(
            show(&w),
            "(10.0, 2, [30.0; 40.0;;], [30.0; 40.0;;], Base.RefValue{Float64}(50.0))"
        );
        assert_eq!(
            show(&v),
            "(1.0, 2, [3.0; 4.0;;], [3.0; 4.0;;], Base.RefValue{Float64}(5.0))"
        );
        assert!(v.with_float_leaves(&[1.0]).is_none());
    }
}
