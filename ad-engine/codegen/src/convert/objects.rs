//! Arrays whose elements are arrays, structs or tuples (the interpreter's [`ArrayData::Obj`])
//! across the boundary: an arena array of [`Elem`] slots, each element converted as a value of
//! its own (objects once each, so aliases stay aliases; an unset slot is a null pointer).

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use zy_interp::{ArrayData, Objects, Value, UNDEF_SLOT};
use zy_ir::Type;

use super::{FromNative, Tables, ToNative};
use crate::layout::Elem;
use crate::runtime::{Arena, ArrayObj};

impl ToNative {
    /// Write the elements `items` (of type `elem`, stored as `el`) into the fresh arena array
    /// `obj`.
    pub(super) fn write_objects(
        &mut self,
        arena: &mut Arena,
        obj: *mut ArrayObj,
        items: &[Value],
        elem: &Type,
        el: &Elem,
    ) -> Result<(), String> {
        for (i, item) in items.iter().enumerate() {
            if matches!(item, Value::Undef(_)) {
                continue;
            }
            let mut words = Vec::with_capacity(el.slots.len());
            self.value(arena, item, elem, &mut words)?;
            if words.len() != el.slots.len() {
                return Err(format!(
                    "internal error: JIT element of {} slots",
                    words.len()
                ));
            }
            // SAFETY: `obj` is a live arena array of at least `items.len()` elements of
            // `el.size` bytes, one word per slot.
            unsafe {
                let at = (*obj).data.add(i * el.size as usize).cast::<u64>();
                std::ptr::copy_nonoverlapping(words.as_ptr(), at, words.len());
            }
        }
        Ok(())
    }
}

impl FromNative {
    /// The elements of the arena array `obj` of `elem`s stored as `el`.
    pub(super) fn read_objects(
        &mut self,
        obj: &ArrayObj,
        elem: &Type,
        el: &Elem,
    ) -> Result<ArrayData, String> {
        let n = obj.len.max(0) as usize;
        let width = el.slots.len();
        let mut items = Vec::with_capacity(n);
        for i in 0..n {
            // SAFETY: `obj` holds `n` elements of `el.size` bytes, one word per slot.
            let words = unsafe {
                std::slice::from_raw_parts(obj.data.add(i * el.size as usize).cast::<u64>(), width)
            }
            .to_vec();
            let unset = el.unset_marker().is_some_and(|k| words[k] == 0);
            items.push(if unset {
                Value::Undef(UNDEF_SLOT.into())
            } else {
                self.value(&words, &mut 0, elem)?
            });
        }
        Ok(ArrayData::Obj(Objects {
            elem: elem.clone(),
            items,
        }))
    }
}

impl FromNative {
    /// The arena address of every object this converter made a value for, by the address of
    /// the value's `Rc` contents (what [`ToNative`] keys its objects by).
    pub fn objects_made(&self) -> HashMap<usize, u64> {
        self.made
            .iter()
            .filter_map(|(addr, v)| rc_key(v).map(|k| (k, *addr)))
            .collect()
    }
}

impl ToNative {
    /// A converter copying new objects into the arena, as [`ToNative::new`], but giving back
    /// the arena object itself for each value in `known` (a result of the interpreter that
    /// holds an object the compiled code passed it, such as the elements of a shallow copy).
    pub fn knowing(tables: Arc<Tables>, known: HashMap<usize, u64>) -> ToNative {
        ToNative {
            tables,
            by_rc: known,
            ..ToNative::default()
        }
    }
}

/// The address of the `Rc` contents of an object value.
fn rc_key(v: &Value) -> Option<usize> {
    match v {
        Value::Array(a) => Some(Rc::as_ptr(a) as usize),
        Value::Mutable(_, c) => Some(Rc::as_ptr(c) as usize),
        Value::Ref(c) => Some(Rc::as_ptr(c) as usize),
        _ => None,
    }
}
