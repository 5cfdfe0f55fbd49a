//! Conversion between interpreter [`Value`]s and the slots of compiled code.
//!
//! Argument arrays are used in place: the compiled code gets a header pointing at the value's
//! own elements, so it reads and writes them without copies (a callee's mutations are seen by
//! the caller, as in Julia). Other mutable argument objects are copied into the call's arena
//! (each once, so aliasing is kept) and their contents copied back after the call. Results are
//! converted back to values, an argument object returned as itself.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use std::sync::Arc;

use zy_interp::{Array, ArrayData, ArrayRef, ElemType, Pullback, Shape, Value};
use zy_ir::{Instance, StructRef, Type};

use crate::layout::{packed_offsets, Layout, Slot};
use crate::runtime::arena::HEADER_WORDS;
use crate::runtime::site::Site;
use crate::runtime::{Arena, ArrayObj, StackObj};

mod objects;
mod unions;

/// A mutable argument object and its representation in the arena.
enum Shared {
    /// An array; `copied` when its elements were copied (their type differs from the slots').
    Array(ArrayRef, *mut ArrayObj, bool),
    Mutable(StructRef, Rc<RefCell<Vec<Value>>>, *mut u64),
    Ref(Rc<RefCell<Value>>, Type, *mut u64),
}

/// How values of one compilation cross the boundary: the layout, and the pullback adapters.
#[derive(Default)]
pub struct Tables {
    /// The layout rules.
    pub layout: Arc<Layout>,
    /// Adapter address to the pullback instance and its tape type.
    pub by_addr: HashMap<u64, (Arc<Instance>, Type)>,
    /// Pullback instance to its adapter's address and its tape type.
    pub by_inst: HashMap<Arc<Instance>, (u64, Type)>,
}

/// Converts values into slots, remembering the mutable objects it copied.
#[derive(Default)]
pub struct ToNative {
    tables: Arc<Tables>,
    /// Pass arrays' own elements instead of copies.
    in_place: bool,
    /// Arena address of each object copied, by the address of its `Rc` contents.
    by_rc: HashMap<usize, u64>,
    shared: Vec<Shared>,
}

impl ToNative {
    /// A converter for the values of the compilation described by `tables`, copying arrays
    /// (for values that do not outlive the conversion, such as the runtime's results).
    pub fn new(tables: Arc<Tables>) -> ToNative {
        ToNative {
            tables,
            ..ToNative::default()
        }
    }

    /// A converter for a call's arguments, which outlive the call: arrays are used in place.
    pub fn for_arguments(tables: Arc<Tables>) -> ToNative {
        ToNative {
            tables,
            in_place: true,
            ..ToNative::default()
        }
    }

    /// Append the slots of `v` (of type `ty`) to `out`, allocating objects in `arena`.
    pub fn value(
        &mut self,
        arena: &mut Arena,
        v: &Value,
        ty: &Type,
        out: &mut Vec<u64>,
    ) -> Result<(), String> {
        match (v, ty) {
            (Value::F64(x), Type::Float64) => out.push(x.to_bits()),
            // A Float32 is held as its exact Float64 value (`layout`).
            (Value::F32(x), Type::Float32) => out.push(f64::from(*x).to_bits()),
            (Value::Sized(k, i), Type::Int(t)) if k == t => out.push(*i as u64),
            (Value::Int(i), Type::Float64) => out.push((*i as f64).to_bits()),
            (Value::Int(i), Type::Int64) => out.push(*i as u64),
            (Value::Bool(b), Type::Bool) => out.push(u64::from(*b)),
            (Value::Nothing, Type::Nothing)
            | (Value::Func(_), Type::Function(_))
            | (Value::Symbol(_), Type::Symbol(_)) => {}
            (Value::Tuple(vs), Type::Tuple(ts)) if vs.len() == ts.len() => {
                for (v, t) in vs.iter().zip(ts.iter()) {
                    self.value(arena, v, t, out)?;
                }
            }
            (Value::Exception(_), Type::Exception)
            | (Value::Str(_), Type::String | Type::SubString) => {
                out.push(arena.hold(v.clone()) as u64)
            }
            // Compiled code tells the strings of a union apart by its tag: it holds the text.
            (Value::SubStr(s), Type::String | Type::SubString) => {
                out.push(arena.hold(Value::Str(s.clone())) as u64)
            }
            (Value::NamedTuple(_, vs), Type::NamedTuple(fs)) if vs.len() == fs.len() => {
                for (v, (_, t)) in vs.iter().zip(fs.iter()) {
                    self.value(arena, v, t, out)?;
                }
            }
            (Value::Struct(_, vs), Type::Struct(s))
                if !crate::layout::is_object(ty) && vs.len() == s.fields.len() =>
            {
                for (v, (_, t)) in vs.iter().zip(&s.fields) {
                    self.value(arena, v, t, out)?;
                }
            }
            // A struct whose shape depends on the data: a box of its fields' slots.
            (Value::Struct(_, vs), Type::Struct(s)) if vs.len() == s.fields.len() => {
                let tuple = Type::Tuple(field_tys(s).into());
                let mut words = Vec::new();
                self.value(arena, &Value::Tuple(vs.clone()), &tuple, &mut words)?;
                let p = arena.alloc_words(words.len());
                write_words(p, &words);
                out.push(p as u64);
            }
            (Value::Mutable(_, cell), Type::Struct(s)) if s.mutable => {
                let key = Rc::as_ptr(cell) as usize;
                if let Some(p) = self.by_rc.get(&key) {
                    out.push(*p);
                    return Ok(());
                }
                let fields = field_tys(s);
                let n: usize = fields
                    .iter()
                    .map(|t| self.tables.layout.slot_count(t).unwrap_or(0))
                    .sum();
                let p = arena.alloc_words(n);
                self.by_rc.insert(key, p as u64);
                self.shared
                    .push(Shared::Mutable(s.clone(), cell.clone(), p));
                let tuple = Type::Tuple(fields.into());
                let vals = Value::Tuple(cell.borrow().iter().cloned().collect());
                let mut words = Vec::new();
                self.value(arena, &vals, &tuple, &mut words)?;
                write_words(p, &words);
                out.push(p as u64);
            }
            (Value::Ref(cell), Type::Ref(inner)) => {
                let key = Rc::as_ptr(cell) as usize;
                if let Some(p) = self.by_rc.get(&key) {
                    out.push(*p);
                    return Ok(());
                }
                let n = self
                    .tables
                    .layout
                    .ref_words(inner)
                    .map_err(|e| e.to_string())?;
                let p = arena.alloc_words(n);
                self.by_rc.insert(key, p as u64);
                self.shared
                    .push(Shared::Ref(cell.clone(), (**inner).clone(), p));
                let mut words = Vec::new();
                let content = cell.borrow().clone();
                self.value(arena, &content, inner, &mut words)?;
                write_words(p, &words);
                out.push(p as u64);
            }
            (Value::Array(a), Type::Array(..)) => out.push(self.array(arena, a, ty)? as u64),
            (Value::Adjoint(a), Type::Adjoint(e)) => {
                let vec_ty = Type::Array(e.clone(), 1);
                let obj = self.array(arena, a, &vec_ty)?;
                // A row view sharing the vector's elements.
                let view = arena.alloc_words(HEADER_WORDS).cast::<ArrayObj>();
                // SAFETY: `obj` and `view` are live arena objects.
                unsafe {
                    let o = &*obj;
                    view.write(ArrayObj {
                        data: o.data,
                        len: o.len,
                        rows: 1,
                        cols: o.len,
                        cap: o.len,
                        shape: std::ptr::null(),
                    });
                }
                out.push(view as u64);
            }
            (Value::Stack(s), Type::Stack(elem)) => {
                let p = arena.new_stack();
                let (offsets, size) =
                    packed_offsets(&self.tables.layout.slots(elem).map_err(|e| e.to_string())?);
                let slot_kinds = self.tables.layout.slots(elem).map_err(|e| e.to_string())?;
                // SAFETY: `p` is a live arena stack.
                let st = unsafe { &mut *p };
                for v in s.borrow().iter() {
                    let mut words = Vec::new();
                    self.value(arena, v, elem, &mut words)?;
                    st.grow(size as usize);
                    let at = st.len as usize;
                    for ((w, off), k) in words.iter().zip(&offsets).zip(&slot_kinds) {
                        let dst = unsafe { st.data.add(at + *off as usize) };
                        let bytes = w.to_le_bytes();
                        let n = k.size() as usize;
                        // SAFETY: `grow` made room for `size` bytes at `at`.
                        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, n) };
                    }
                    st.len += i64::from(size);
                }
                out.push(p as u64);
            }
            (Value::Pullback(pb), Type::Pullback(sig))
                if self.tables.layout.static_pullback(sig).is_some() =>
            {
                let sp = self.tables.layout.static_pullback(sig).cloned();
                let sp = sp.ok_or("internal error: static pullback")?;
                if pb.instance == sp.instance {
                    self.value(arena, &pb.tape, &sp.tape, out)?;
                } else {
                    // A placeholder no forward pass recorded: never called.
                    let n = self
                        .tables
                        .layout
                        .slot_count(&sp.tape)
                        .map_err(|e| e.to_string())?;
                    out.extend(std::iter::repeat_n(0, n));
                }
            }
            (Value::Pullback(pb), Type::Pullback(_)) => {
                let mut words = vec![0];
                if let Some((addr, tape_ty)) = self.tables.by_inst.get(&pb.instance).cloned() {
                    words[0] = addr;
                    self.value(arena, &pb.tape, &tape_ty, &mut words)?;
                }
                let p = arena.alloc_words(words.len());
                write_words(p, &words);
                out.push(p as u64);
            }
            (v, Type::Union(u)) => self.union(arena, v, u, out)?,
            (Value::Undef(name), _) => return Err(format!("UndefVarError: {name} not defined")),
            (v, t) => {
                return Err(format!(
                    "internal error: JIT cannot pass {} as a {t}",
                    v.julia_type()
                ))
            }
        }
        Ok(())
    }

    fn array(
        &mut self,
        arena: &mut Arena,
        a: &ArrayRef,
        ty: &Type,
    ) -> Result<*mut ArrayObj, String> {
        let key = Rc::as_ptr(a) as usize;
        if let Some(p) = self.by_rc.get(&key) {
            return Ok(*p as *mut ArrayObj);
        }
        let mut arr = a
            .try_borrow_mut()
            .map_err(|_| "internal error: an argument array is borrowed".to_string())?;
        let elem = ty.elem().cloned().unwrap_or(Type::Float64);
        let el = self.tables.layout.elem(&elem).map_err(|e| e.to_string())?;
        if !el.number {
            // Elements that are values of their own: always copied (as slots).
            let (rows, cols) = arr.shape.rows_cols();
            let shape = arr.shape;
            let items = match &arr.data {
                ArrayData::Obj(o) => o.items.clone(),
                _ => return Err(format!("internal error: JIT cannot pass numbers as a {ty}")),
            };
            drop(arr);
            let p = arena.new_array(rows as i64, cols as i64, el.size as usize);
            // SAFETY: `p` is the fresh header.
            unsafe { (*p).shape = nd_shape(arena, shape) };
            self.by_rc.insert(key, p as u64);
            self.shared.push(Shared::Array(a.clone(), p, true));
            self.write_objects(arena, p, &items, &elem, &el)?;
            return Ok(p);
        }
        let slot = el.slots[0];
        let (rows, cols) = arr.shape.rows_cols();
        let len = arr.data.len();
        // The value's own elements, when their layout is the slots' (f64, i64, bool as a byte).
        let own: Option<*mut u8> = match (&mut arr.data, slot) {
            _ if !self.in_place => None,
            (ArrayData::F64(v), Slot::F64) => Some(v.as_mut_ptr().cast()),
            (ArrayData::Int(v), Slot::I64) => Some(v.as_mut_ptr().cast()),
            (ArrayData::Bool(v), Slot::Bool) => Some(v.as_mut_ptr().cast()),
            _ => None,
        };
        let p = match own {
            Some(data) => {
                let header = arena.alloc_words(HEADER_WORDS).cast::<ArrayObj>();
                let shape = nd_shape(arena, arr.shape);
                // SAFETY: a fresh header block. The elements stay where they are: the
                // caller holds the value and nothing resizes it while the call runs.
                unsafe {
                    header.write(ArrayObj {
                        data,
                        len: len as i64,
                        rows: rows as i64,
                        cols: cols as i64,
                        cap: len as i64,
                        shape,
                    })
                };
                header
            }
            None => {
                let p = arena.new_array(rows as i64, cols as i64, slot.size() as usize);
                // SAFETY: `p` is the fresh header.
                unsafe { (*p).shape = nd_shape(arena, arr.shape) };
                // SAFETY: `p` is a fresh array of `rows * cols` elements of the slot's size.
                unsafe { write_elems(&*p, &arr.data, slot)? };
                p
            }
        };
        self.by_rc.insert(key, p as u64);
        self.shared.push(Shared::Array(a.clone(), p, own.is_none()));
        Ok(p)
    }

    /// Copy the contents of every argument object back into its value.
    #[inline]
    pub fn write_back(&self) -> Result<(), String> {
        // Numbers only: no call (a repeated call of a scalar function pays for this check alone).
        if self.shared.is_empty() {
            return Ok(());
        }
        self.copy_back()
    }

    /// [`ToNative::write_back`] of a call that shares objects with its caller.
    fn copy_back(&self) -> Result<(), String> {
        if self
            .shared
            .iter()
            .all(|s| matches!(s, Shared::Array(a, p, false) if !resized(a, *p)))
        {
            // Arrays used in place: nothing to copy (the common case, kept cheap).
            return Ok(());
        }
        let mut from = FromNative::new(self);
        for s in &self.shared {
            match s {
                Shared::Array(a, p, copied) if *copied || resized(a, *p) => {
                    // SAFETY: `p` is the arena copy of `a` (or its header, whose elements
                    // `setlength!` may have moved into the arena), still alive.
                    let obj = unsafe { &**p };
                    let objects = match &a.borrow().data {
                        ArrayData::Obj(o) => Some(o.elem.clone()),
                        _ => None,
                    };
                    let data = match objects {
                        Some(elem) => {
                            let el = self.tables.layout.elem(&elem).map_err(|e| e.to_string())?;
                            from.read_objects(obj, &elem, &el)?
                        }
                        // SAFETY: as above.
                        None => unsafe { read_elems(obj, a.borrow().data.elem()) },
                    };
                    let mut arr = a.borrow_mut();
                    arr.data = data;
                    if let Shape::Vector(_) = arr.shape {
                        arr.shape = Shape::Vector(arr.data.len());
                    }
                }
                Shared::Array(..) => {}
                Shared::Mutable(s, cell, p) => {
                    let fields = field_tys(s);
                    let vals = from.boxed(*p, &fields)?;
                    *cell.borrow_mut() = vals;
                }
                Shared::Ref(cell, inner, p) => {
                    if let Some(v) = from.ref_content(*p, inner)? {
                        *cell.borrow_mut() = v;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Converts slots back into values.
pub struct FromNative {
    tables: Arc<Tables>,
    /// The original value of each argument object, by arena address.
    originals: HashMap<u64, Value>,
    /// Values already made for objects created by compiled code, by address (keeps aliasing).
    made: HashMap<u64, Value>,
}

impl FromNative {
    /// A converter that maps argument objects of `args` back to themselves.
    pub fn new(args: &ToNative) -> FromNative {
        let mut originals = HashMap::new();
        for s in &args.shared {
            let (addr, v) = match s {
                Shared::Array(a, p, _) => (*p as u64, Value::Array(a.clone())),
                Shared::Mutable(t, c, p) => (*p as u64, Value::Mutable(t.clone(), c.clone())),
                Shared::Ref(c, _, p) => (*p as u64, Value::Ref(c.clone())),
            };
            originals.insert(addr, v);
        }
        FromNative {
            tables: args.tables.clone(),
            originals,
            made: HashMap::new(),
        }
    }

    /// A converter without argument objects (fresh copies of everything).
    pub fn fresh(tables: Arc<Tables>) -> FromNative {
        FromNative {
            tables,
            originals: HashMap::new(),
            made: HashMap::new(),
        }
    }

    /// The value of type `ty` whose slots are `words[*at..]`; advances `at`.
    pub fn value(&mut self, words: &[u64], at: &mut usize, ty: &Type) -> Result<Value, String> {
        let mut next = || -> Result<u64, String> {
            let w = words
                .get(*at)
                .copied()
                .ok_or("internal error: JIT result too short")?;
            *at += 1;
            Ok(w)
        };
        Ok(match ty {
            Type::Float64 => Value::F64(f64::from_bits(next()?)),
            // Always a Float32's exact value: the narrowing is exact.
            Type::Float32 => Value::F32(f64::from_bits(next()?) as f32),
            Type::Int(k) => Value::Sized(*k, next()? as i64),
            Type::Int64 => Value::Int(next()? as i64),
            Type::Bool => Value::Bool(next()? as u8 != 0),
            Type::Nothing | Type::Bottom => Value::Nothing,
            Type::Union(u) => return self.union(words, at, u),
            Type::Function(n) => Value::Func(n.clone()),
            Type::Symbol(n) => Value::Symbol(n.clone()),
            Type::Tuple(ts) => {
                let vs = ts
                    .iter()
                    .map(|t| self.value(words, at, t))
                    .collect::<Result<Vec<_>, _>>()?;
                Value::Tuple(vs.into())
            }
            Type::NamedTuple(fs) => {
                let names: Vec<_> = fs.iter().map(|(n, _)| n.clone()).collect();
                let vs = fs
                    .iter()
                    .map(|(_, t)| self.value(words, at, t))
                    .collect::<Result<Vec<_>, _>>()?;
                Value::NamedTuple(names.into(), vs.into())
            }
            Type::Struct(s) if !crate::layout::is_object(ty) => {
                let vs = s
                    .fields
                    .iter()
                    .map(|(_, t)| self.value(words, at, t))
                    .collect::<Result<Vec<_>, _>>()?;
                Value::Struct(s.clone(), vs.into())
            }
            Type::Struct(s) if !s.mutable => {
                let p = next()?;
                let vs = self.boxed(p as *mut u64, &field_tys(s))?;
                Value::Struct(s.clone(), vs.into())
            }
            Type::Struct(s) => {
                let p = next()?;
                if let Some(v) = self.known(p) {
                    return Ok(v);
                }
                let cell = Rc::new(RefCell::new(Vec::new()));
                let v = Value::Mutable(s.clone(), cell.clone());
                self.made.insert(p, v.clone());
                *cell.borrow_mut() = self.boxed(p as *mut u64, &field_tys(s))?;
                v
            }
            Type::Ref(inner) => {
                let p = next()?;
                if let Some(v) = self.known(p) {
                    return Ok(v);
                }
                let cell = Rc::new(RefCell::new(Value::Nothing));
                let v = Value::Ref(cell.clone());
                self.made.insert(p, v.clone());
                if let Some(x) = self.ref_content(p as *mut u64, inner)? {
                    *cell.borrow_mut() = x;
                }
                v
            }
            Type::Array(elem, dims) => {
                let p = next()?;
                if let Some(v) = self.known(p) {
                    return Ok(v);
                }
                // SAFETY: `p` is an array of the running call's arena.
                let obj = unsafe { &*(p as *const ArrayObj) };
                let shape = match (*dims, obj.nd_dims()) {
                    (1, _) => Shape::Vector(obj.len as usize),
                    (2, _) => Shape::Matrix(obj.rows as usize, obj.cols as usize),
                    (n, Some(ds)) if ds.len() == usize::from(n) => {
                        let ds: Vec<usize> = ds.iter().map(|&d| d.max(0) as usize).collect();
                        Shape::from_dims(&ds).ok_or("internal error: JIT array of no shape")?
                    }
                    _ => {
                        return Err(format!(
                            "internal error: a JIT {} without its dimensions",
                            ty
                        ))
                    }
                };
                let el = self.tables.layout.elem(elem).map_err(|e| e.to_string())?;
                let data = match ElemType::of_type(elem) {
                    // SAFETY: as above.
                    Some(e) if el.number => unsafe { read_elems(obj, e) },
                    _ => self.read_objects(obj, elem, &el)?,
                };
                let v = Array::new(shape, data).into_value();
                self.made.insert(p, v.clone());
                v
            }
            Type::Adjoint(elem) => {
                let p = next()?;
                let e =
                    ElemType::of_type(elem).ok_or("internal error: JIT adjoint of non-numbers")?;
                // SAFETY: as above.
                let obj = unsafe { &*(p as *const ArrayObj) };
                let arr = Array::new(Shape::Vector(obj.len as usize), unsafe {
                    read_elems(obj, e)
                });
                Value::Adjoint(Rc::new(RefCell::new(arr)))
            }
            Type::Stack(elem) => {
                let p = next()?;
                // SAFETY: `p` is a stack of the running call's arena.
                let st = unsafe { &*(p as *const StackObj) };
                let kinds = self.tables.layout.slots(elem).map_err(|e| e.to_string())?;
                let (offsets, size) = packed_offsets(&kinds);
                let bytes = st.bytes();
                let mut entries = Vec::new();
                let mut start = 0usize;
                while size > 0 && start + size as usize <= bytes.len() {
                    let entry_words: Vec<u64> = kinds
                        .iter()
                        .zip(&offsets)
                        .map(|(k, off)| read_packed(&bytes[start + *off as usize..], *k))
                        .collect();
                    let mut i = 0;
                    entries.push(self.value(&entry_words, &mut i, elem)?);
                    start += size as usize;
                }
                Value::Stack(Rc::new(RefCell::new(entries)))
            }
            Type::Pullback(sig) if self.tables.layout.static_pullback(sig).is_some() => {
                let sp = self.tables.layout.static_pullback(sig).cloned();
                let sp = sp.ok_or("internal error: static pullback")?;
                let tape = self.value(words, at, &sp.tape)?;
                Value::Pullback(Rc::new(Pullback {
                    instance: sp.instance,
                    tape,
                }))
            }
            Type::Pullback(sig) => {
                let p = next()?;
                // SAFETY: a pullback box's first word is its adapter's address.
                let addr = unsafe { *(p as *const u64) };
                let (instance, tape) = match self.tables.by_addr.get(&addr).cloned() {
                    Some((inst, tape_ty)) => {
                        let n = self
                            .tables
                            .layout
                            .slots(&tape_ty)
                            .map_err(|e| e.to_string())?
                            .len();
                        // SAFETY: the tape's slots follow the address in the box.
                        let words =
                            unsafe { std::slice::from_raw_parts((p as *const u64).add(1), n) }
                                .to_vec();
                        let tape = self.value(&words, &mut 0, &tape_ty)?;
                        (inst, tape)
                    }
                    // A placeholder that no forward pass recorded, as the AD makes it.
                    None => (
                        Arc::new(Instance {
                            name: "unreached".into(),
                            method: 0,
                            args: sig.clone(),
                        }),
                        Value::Nothing,
                    ),
                };
                Value::Pullback(Rc::new(Pullback { instance, tape }))
            }
            // Declined at compile time (`layout`): no compiled code holds one.
            Type::Any | Type::Param(_) | Type::Recur(..) => {
                return Err(format!("internal error: JIT value of type {ty}"))
            }
            Type::String | Type::SubString | Type::Exception => {
                let p = next()? as *const Value;
                if p.is_null() {
                    return Err(format!("internal error: JIT {ty} without a value"));
                }
                // SAFETY: a non-null `String` or `Exception` slot is an address `Arena::hold`
                // gave, kept until the call ends.
                unsafe { (*p).clone() }
            }
        })
    }

    fn known(&self, p: u64) -> Option<Value> {
        self.originals
            .get(&p)
            .or_else(|| self.made.get(&p))
            .cloned()
    }

    /// The content of the box of a `Ref{inner}` at `p`: `Undef` of the local's name where the
    /// box is empty (its unset word, [`crate::layout::Layout::ref_words`], names the site).
    fn ref_content(&mut self, p: *mut u64, inner: &Type) -> Result<Option<Value>, String> {
        let n = self
            .tables
            .layout
            .slot_count(inner)
            .map_err(|e| e.to_string())?;
        // SAFETY: a `Ref`'s box holds its content's slots and the unset word.
        let unset = unsafe { *p.add(n) } as *const Site;
        if !unset.is_null() {
            // SAFETY: a nonzero unset word is the address of a site of the compiled code,
            // which outlives the call's values.
            let name = unsafe { &*unset }
                .string()
                .ok_or("an empty box whose unset word names no local")?;
            return Ok(Some(Value::Undef(name.into())));
        }
        Ok(self.boxed(p, std::slice::from_ref(inner))?.pop())
    }

    /// The values of a box holding slots of `tys` one word each.
    fn boxed(&mut self, p: *mut u64, tys: &[Type]) -> Result<Vec<Value>, String> {
        let n: usize = tys
            .iter()
            .map(|t| self.tables.layout.slot_count(t).unwrap_or(0))
            .sum();
        // SAFETY: boxes hold one word per slot of their content.
        let words = unsafe { std::slice::from_raw_parts(p, n) }.to_vec();
        let mut at = 0;
        tys.iter().map(|t| self.value(&words, &mut at, t)).collect()
    }
}

/// The types of the fields of `s` as read (a recursive struct's own type in them the struct).
fn field_tys(s: &StructRef) -> Vec<Type> {
    let whole = Type::Struct(s.clone());
    (0..s.fields.len()).filter_map(|i| whole.field(i)).collect()
}

fn write_words(p: *mut u64, words: &[u64]) {
    // SAFETY: callers allocate `p` with room for `words`.
    unsafe { std::ptr::copy_nonoverlapping(words.as_ptr(), p, words.len()) };
}

fn read_packed(bytes: &[u8], k: Slot) -> u64 {
    let mut w = [0u8; 8];
    let n = (k.size() as usize).min(bytes.len());
    w[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(w)
}

/// Copy `data` (converted to the slot's type) into the elements of `obj`.
unsafe fn write_elems(obj: &ArrayObj, data: &ArrayData, slot: Slot) -> Result<(), String> {
    let n = obj.len.max(0) as usize;
    match slot {
        Slot::F64 => {
            let dst = unsafe { std::slice::from_raw_parts_mut(obj.data.cast::<f64>(), n) };
            for (d, s) in dst.iter_mut().zip(data.to_f64()) {
                *d = s;
            }
        }
        Slot::I64 => {
            let dst = unsafe { std::slice::from_raw_parts_mut(obj.data.cast::<i64>(), n) };
            match data {
                ArrayData::Int(v) => dst.copy_from_slice(&v[..n.min(v.len())]),
                ArrayData::Bool(v) => dst.iter_mut().zip(v).for_each(|(d, s)| *d = i64::from(*s)),
                ArrayData::F64(_) | ArrayData::Obj(_) => {
                    return Err("internal error: Float64 array passed as Int64".into())
                }
            }
        }
        Slot::Bool => {
            let dst = unsafe { std::slice::from_raw_parts_mut(obj.data, n) };
            match data {
                ArrayData::Bool(v) => dst.iter_mut().zip(v).for_each(|(d, s)| *d = u8::from(*s)),
                _ => return Err("internal error: array passed as Bool".into()),
            }
        }
        Slot::Ptr => return Err("internal error: array of objects".into()),
    }
    Ok(())
}

/// The elements of `obj` as storage of element type `e`.
/// Has compiled code changed the length of the argument array `a` (used in place at `p`), so
/// that its elements moved (`setlength!`)?
fn resized(a: &ArrayRef, p: *mut ArrayObj) -> bool {
    // SAFETY: `p` is the live arena header made for `a`.
    let obj = unsafe { &*p };
    let arr = a.borrow();
    let data = match &arr.data {
        ArrayData::F64(v) => v.as_ptr().cast::<u8>(),
        ArrayData::Int(v) => v.as_ptr().cast(),
        ArrayData::Bool(v) => v.as_ptr().cast(),
        // Never in compiled code (`elem_slot` refuses arrays of objects).
        ArrayData::Obj(o) => o.items.as_ptr().cast(),
    };
    obj.len.max(0) as usize != arr.data.len() || !std::ptr::eq(obj.data.cast_const(), data)
}

unsafe fn read_elems(obj: &ArrayObj, e: ElemType) -> ArrayData {
    let n = obj.len.max(0) as usize;
    match e {
        ElemType::F64 => ArrayData::F64(
            unsafe { std::slice::from_raw_parts(obj.data.cast::<f64>(), n) }.to_vec(),
        ),
        ElemType::Int => ArrayData::Int(
            unsafe { std::slice::from_raw_parts(obj.data.cast::<i64>(), n) }.to_vec(),
        ),
        ElemType::Bool => ArrayData::Bool(
            unsafe { std::slice::from_raw_parts(obj.data, n) }
                .iter()
                .map(|b| *b != 0)
                .collect(),
        ),
        // Never in compiled code (`elem_slot` refuses arrays of objects).
        ElemType::Obj => ArrayData::Obj(zy_interp::Objects::unset(Type::Any, 0)),
    }
}

/// The shape words `[N, d₁, ..., d_N]` of an array of 3 or more dimensions, in the arena
/// (null for a vector or matrix).
fn nd_shape(arena: &mut Arena, shape: Shape) -> *const i64 {
    let Shape::Nd(d) = shape else {
        return std::ptr::null();
    };
    let ds = d.as_slice();
    let p = arena.alloc_words(ds.len() + 1).cast::<i64>();
    // SAFETY: `p` holds `ds.len() + 1` fresh words.
    unsafe {
        p.write(ds.len() as i64);
        for (k, &n) in ds.iter().enumerate() {
            p.add(k + 1).write(n as i64);
        }
    }
    p
}
