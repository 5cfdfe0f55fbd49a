//! Arrays: construction, shape queries, bounds-checked 1-based indexing (column-major, linear
//! indexing of matrices), conversions and broadcasting.

use std::cell::RefCell;
use std::rc::Rc;

use zy_ir::{Prim, Type};

use super::{data, eval_prim, method_error};
use crate::show::summary;
use crate::value::{Array, ArrayData, ElemType, Shape, Value};

/// The most elements one array may hold; beyond it allocation fails as Julia's would.
const MAX_ELEMS: usize = 1 << 26;

/// The shape (a row vector is 1×n) and a copy of the storage of an array or adjoint (`None`
/// for anything else, or an array whose storage does not fit its shape).
pub fn view(v: &Value) -> Option<(Shape, ArrayData)> {
    let (shape, a) = match v {
        Value::Array(a) => (a.borrow().shape, a),
        Value::Adjoint(a) => (Shape::Matrix(1, a.borrow().data.len()), a),
        _ => return None,
    };
    let a = a.borrow();
    (a.data.len() == shape.len()).then(|| (shape, a.data.clone()))
}

/// A new array value, refusing sizes no machine could hold.
fn alloc(shape: Shape, data: impl FnOnce(usize) -> ArrayData) -> Result<Value, String> {
    let n = match shape {
        Shape::Vector(n) => Some(n),
        Shape::Matrix(m, n) => m.checked_mul(n),
        Shape::Nd(d) => d
            .as_slice()
            .iter()
            .try_fold(1usize, |p, &k| p.checked_mul(k)),
    };
    match n {
        Some(n) if n <= MAX_ELEMS => Ok(Array::new(shape, data(n)).into_value()),
        _ => Err("OutOfMemoryError()".into()),
    }
}

/// The element type an array result takes: from the inferred type when it names one, else the
/// promotion of the elements' types (Float64 for no elements).
fn result_elem(ret: &Type, vals: &[Value]) -> Result<ElemType, String> {
    if let Some(e) = ret.elem().and_then(ElemType::of_type) {
        return Ok(e);
    }
    let mut elem: Option<ElemType> = None;
    for v in vals {
        let e = v
            .number_elem()
            .ok_or_else(|| format!("unsupported: an array of {} values", v.julia_type()))?;
        elem = Some(elem.map_or(e, |x| x.promote(e)));
    }
    Ok(elem.unwrap_or(ElemType::F64))
}

/// `[a, b, c]`.
pub fn vect(args: &[Value], ret: &Type) -> Result<Value, String> {
    if let Some(elem) = ret.elem().filter(|e| !e.is_number() && **e != Type::Any) {
        // `[x, y]` of arrays, structs or tuples: a vector of references to them.
        let data = ArrayData::of_type(elem, args)?;
        return alloc(Shape::Vector(args.len()), |_| data);
    }
    let e = result_elem(ret, args)?;
    let data = ArrayData::from_values(e, args)?;
    alloc(Shape::Vector(args.len()), |_| data)
}

/// `[a b; c d]`: row and column counts, then the elements row by row.
pub fn hvcat(args: &[Value], ret: &Type) -> Result<Value, String> {
    let [Value::Int(rows), Value::Int(cols), elems @ ..] = args else {
        return Err("internal error: `hvcat` expects constant row and column counts".into());
    };
    let (Ok(m), Ok(n)) = (usize::try_from(*rows), usize::try_from(*cols)) else {
        return Err("ArgumentError: invalid Array dimensions".into());
    };
    if m.checked_mul(n) != Some(elems.len()) {
        return Err(format!(
            "DimensionMismatch: a {m}×{n} matrix literal needs {} elements, got {}",
            m.saturating_mul(n),
            elems.len()
        ));
    }
    if let Some(elem) = ret.elem().filter(|e| !e.is_number() && **e != Type::Any) {
        // `[a b; c d]` of rationals, structs or tuples: references to them, column by column.
        let columns: Vec<Value> = (0..elems.len())
            .map(|k| elems[(k % m) * n + k / m].clone())
            .collect();
        let data = ArrayData::of_type(elem, &columns)?;
        return alloc(Shape::Matrix(m, n), |_| data);
    }
    let e = result_elem(ret, elems)?;
    let mut data = ArrayData::zeros(e, elems.len());
    for i in 0..m {
        for j in 0..n {
            data.set(j * m + i, &elems[i * n + j])?;
        }
    }
    alloc(Shape::Matrix(m, n), |_| data)
}

/// Dimensions given as Int operands (`zeros(m, n)`).
fn dims(args: &[Value], name: &str, all: &[Value]) -> Result<Shape, String> {
    let mut ds = Vec::with_capacity(2);
    for a in args {
        match a {
            Value::Int(d) => ds.push(
                usize::try_from(*d)
                    .map_err(|_| "ArgumentError: invalid Array dimensions".to_string())?,
            ),
            _ => return Err(method_error(name, all)),
        }
    }
    if ds.len() > crate::value::MAX_DIMS {
        return Err(format!(
            "unsupported: arrays of more than {} dimensions",
            crate::value::MAX_DIMS
        ));
    }
    Shape::from_dims(&ds).ok_or_else(|| method_error(name, all))
}

/// `zeros(dims...)`, `ones(dims...)`.
pub fn zeros_ones(p: Prim, args: &[Value], ret: &Type) -> Result<Value, String> {
    let shape = dims(args, p.julia_name(), args)?;
    if let Some(unit) = ret.elem().and_then(|e| sized_unit(e, p == Prim::Ones)) {
        // `zeros(Float32, n)`, `ones(UInt8, n)`: numbers held as objects.
        let elem = unit.julia_type();
        return alloc(shape, |n| {
            ArrayData::Obj(crate::value::Objects {
                elem,
                items: vec![unit; n],
            })
        });
    }
    if let Some(elem) = ret.elem().filter(|e| !e.is_number() && **e != Type::Any) {
        // `Vector{T}(undef, n)` of arrays or structs (inference's `undef_objects`), and the
        // result `map` fills: slots not set yet.
        let elem = elem.clone();
        return alloc(shape, |n| {
            ArrayData::Obj(crate::value::Objects::unset(elem, n))
        });
    }
    let e = ret
        .elem()
        .and_then(ElemType::of_type)
        .unwrap_or(ElemType::F64);
    alloc(shape, |n| {
        let mut data = ArrayData::zeros(e, n);
        if p == Prim::Ones {
            match &mut data {
                ArrayData::F64(v) => v.fill(1.0),
                ArrayData::Int(v) => v.fill(1),
                ArrayData::Bool(v) => v.fill(true),
                ArrayData::Obj(_) => {}
            }
        }
        data
    })
}

/// Zero or one of a Float32 or fixed-width integer element type `t`, which an array holds as
/// objects.
fn sized_unit(t: &Type, one: bool) -> Option<Value> {
    let unit = u8::from(one);
    match t {
        Type::Float32 => Some(Value::F32(f32::from(unit))),
        Type::Int(k) => Some(super::sized::make(Some(*k), u128::from(unit))),
        _ => None,
    }
}

/// `fill(v, dims...)`.
pub fn fill(args: &[Value]) -> Result<Value, String> {
    let Some((v, rest)) = args.split_first() else {
        return Err(method_error("fill", args));
    };
    let shape = dims(rest, "fill", args)?;
    if matches!(v, Value::F32(_) | Value::Sized(..) | Value::Wide(..)) {
        let elem = v.julia_type();
        return alloc(shape, |n| {
            ArrayData::Obj(crate::value::Objects {
                elem,
                items: vec![v.clone(); n],
            })
        });
    }
    let e = v
        .number_elem()
        .ok_or_else(|| format!("unsupported: fill with a {} value", v.julia_type()))?;
    let mut err = Ok(());
    let out = alloc(shape, |n| {
        let mut data = ArrayData::zeros(e, n);
        for i in 0..n {
            if let Err(e) = data.set(i, v) {
                err = Err(e);
                break;
            }
        }
        data
    })?;
    err.map(|()| out)
}

/// `similar(x)` (zero-filled) and `copy(x)`.
pub fn similar_copy(p: Prim, a: &Value) -> Result<Value, String> {
    let fresh = |arr: &Array| {
        let data = if p == Prim::Copy {
            // Shallow, as Julia's: the elements of an array of arrays are shared.
            arr.data.clone()
        } else if let ArrayData::Obj(o) = &arr.data {
            ArrayData::Obj(crate::value::Objects::unset(o.elem.clone(), o.items.len()))
        } else {
            ArrayData::zeros(arr.data.elem(), arr.data.len())
        };
        Rc::new(RefCell::new(Array::new(arr.shape, data)))
    };
    match a {
        Value::Array(arr) => Ok(Value::Array(fresh(&arr.borrow()))),
        Value::Adjoint(arr) => Ok(Value::Adjoint(fresh(&arr.borrow()))),
        Value::F64(_)
        | Value::Int(_)
        | Value::Bool(_)
        | Value::Tuple(_)
        | Value::NamedTuple(..)
            if p == Prim::Copy =>
        {
            Ok(a.clone())
        }
        _ => Err(method_error(p.julia_name(), std::slice::from_ref(a))),
    }
}

/// `-x` and other elementwise unary functions of an array, into a new array.
pub fn map_unary(p: Prim, a: &Value) -> Result<Value, String> {
    broadcast_op(p, std::slice::from_ref(a), &Type::Any)
}

/// `float(x)`, `zero(x)`, `one(x)` of an array.
pub fn float_zero_one(p: Prim, a: &Value) -> Result<Value, String> {
    let (arr, adjoint) = match a {
        Value::Array(arr) => (arr, false),
        Value::Adjoint(arr) => (arr, true),
        _ => return Err(method_error(p.julia_name(), std::slice::from_ref(a))),
    };
    let wrap = |new: Array| {
        let r = Rc::new(RefCell::new(new));
        if adjoint {
            Value::Adjoint(r)
        } else {
            Value::Array(r)
        }
    };
    let old = arr.borrow();
    match p {
        // `float` of a Float64 array is the array itself.
        Prim::Float if old.data.elem() == ElemType::F64 => Ok(a.clone()),
        Prim::Float => Ok(wrap(Array::new(
            old.shape,
            ArrayData::F64(old.data.to_f64()),
        ))),
        Prim::Zero => Ok(wrap(Array::new(
            old.shape,
            ArrayData::zeros(old.data.elem(), old.data.len()),
        ))),
        _ => match old.shape {
            Shape::Matrix(m, n) if m == n && !adjoint => {
                let mut data = ArrayData::zeros(old.data.elem(), m * n);
                for i in 0..m {
                    data.set(i * m + i, &Value::Int(1))?;
                }
                Ok(wrap(Array::new(old.shape, data)))
            }
            Shape::Matrix(..) => Err(
                "DimensionMismatch: multiplicative identity defined only for square matrices"
                    .into(),
            ),
            Shape::Vector(_) | Shape::Nd(_) => Err(method_error("one", std::slice::from_ref(a))),
        },
    }
}

/// `length(x)`.
pub fn length(args: &[Value]) -> Result<Value, String> {
    let n = match args {
        [Value::Array(a)] | [Value::Adjoint(a)] => a.borrow().data.len(),
        [Value::Tuple(vs)] | [Value::NamedTuple(_, vs)] => vs.len(),
        [Value::F64(_) | Value::Int(_) | Value::Bool(_)] => 1,
        _ => return Err(method_error("length", args)),
    };
    Ok(Value::Int(n as i64))
}

/// The dimensions of an array-like value (none for a number).
fn dims_of(v: &Value) -> Option<Vec<usize>> {
    match v {
        Value::Array(a) => Some(a.borrow().shape.dims()),
        Value::Adjoint(a) => Some(vec![1, a.borrow().data.len()]),
        Value::F64(_) | Value::Int(_) | Value::Bool(_) => Some(vec![]),
        _ => None,
    }
}

/// `size(A)` (a tuple) and `size(A, d)` (1 past the last dimension).
pub fn size(args: &[Value]) -> Result<Value, String> {
    let ds = args
        .first()
        .and_then(dims_of)
        .ok_or_else(|| method_error("size", args))?;
    match args {
        [_] => Ok(Value::tuple(ds.iter().map(|&d| Value::Int(d as i64)))),
        [_, Value::Int(d)] if *d >= 1 => {
            let d = usize::try_from(*d - 1).unwrap_or(usize::MAX);
            Ok(Value::Int(ds.get(d).map_or(1, |&k| k as i64)))
        }
        [_, Value::Int(d)] => Err(format!("ArgumentError: dimension out of range (got {d})")),
        _ => Err(method_error("size", args)),
    }
}

/// An integer index; Julia rejects `Bool` and `Float64` indices.
fn int_index(v: &Value, all: &[Value]) -> Result<i64, String> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::F64(_) | Value::Bool(_) => Err(format!(
            "ArgumentError: invalid index: {v} of type {}",
            v.julia_type()
        )),
        _ => Err(method_error("getindex", all)),
    }
}

/// The 0-based storage position of 1-based indices `idx` in an array with dimensions `ds`
/// (column-major; one index is linear, trailing indices past the dimensions must be 1), or a
/// `BoundsError` naming `whole`.
fn position(whole: &Value, ds: &[usize], idx: &[Value]) -> Result<usize, String> {
    let oob = || {
        let shown: Vec<String> = idx.iter().map(|i| i.to_string()).collect();
        format!(
            "BoundsError: attempt to access {} at index [{}]",
            summary(whole),
            shown.join(", ")
        )
    };
    let in_range = |i: i64, n: usize| i >= 1 && (i as u64) <= n as u64;
    if let [k] = idx {
        let k = int_index(k, idx)?;
        let len = ds.iter().fold(1usize, |p, &n| p.saturating_mul(n));
        return if in_range(k, len) {
            Ok(k as usize - 1)
        } else {
            Err(oob())
        };
    }
    let (mut pos, mut stride) = (0usize, 1usize);
    for (d, v) in idx.iter().enumerate() {
        let i = int_index(v, idx)?;
        // The last of fewer indices than dimensions runs over the trailing ones (Julia's
        // partial linear indexing).
        let n = if d + 1 == idx.len() && d < ds.len() {
            ds[d..].iter().fold(1usize, |p, &n| p.saturating_mul(n))
        } else {
            ds.get(d).copied().unwrap_or(1)
        };
        if !in_range(i, n) {
            return Err(oob());
        }
        pos += (i as usize - 1) * stride;
        stride *= n;
    }
    Ok(pos)
}

/// `x[i]`, `A[i, j]`, `A[k]`, `r[]`, `t[i]`.
pub fn get_index(args: &[Value]) -> Result<Value, String> {
    let Some((x, idx)) = args.split_first() else {
        return Err(method_error("getindex", args));
    };
    match x {
        Value::Array(a) | Value::Adjoint(a) if !idx.is_empty() => {
            let ds = dims_of(x).unwrap_or_default();
            let pos = position(x, &ds, idx)?;
            match a.borrow().data.get(pos) {
                Some(Value::Undef(_)) => Err(UNDEF_REF.into()),
                Some(v) => Ok(v),
                None => Err("internal error: array storage too short".into()),
            }
        }
        Value::Ref(_) if idx.is_empty() => data::ref_get(std::slice::from_ref(x)),
        Value::Tuple(_) if idx.len() == 1 => data::tuple_index(args),
        _ => Err(method_error("getindex", args)),
    }
}

/// `slot_get(xs, i)` and `slot_set!(xs, i, v)` on a vector of objects: the slot as stored,
/// unset or not (the AD's record and undoing of `setindex!`).
pub fn slot(p: Prim, args: &[Value]) -> Result<Value, String> {
    let (Some(Value::Array(a)), Some(Value::Int(i))) = (args.first(), args.get(1)) else {
        return Err(method_error(p.julia_name(), args));
    };
    // Outside the vector: the `BoundsError` of the write the AD records it for.
    let out_of_bounds = || {
        format!(
            "BoundsError: attempt to access {} at index [{i}]",
            summary(&args[0])
        )
    };
    let mut a = a.borrow_mut();
    let ArrayData::Obj(o) = &mut a.data else {
        return Err(method_error(p.julia_name(), args));
    };
    let slot = i
        .checked_sub(1)
        .and_then(|k| usize::try_from(k).ok())
        .and_then(|k| o.items.get_mut(k));
    let Some(slot) = slot else {
        drop(a);
        return Err(out_of_bounds());
    };
    match args.get(2) {
        Some(v) => {
            *slot = v.clone();
            Ok(Value::Nothing)
        }
        None => Ok(slot.clone()),
    }
}

/// Julia's error for reading a slot of an array of objects that was never set.
pub const UNDEF_REF: &str = "UndefRefError: access to undefined reference";

/// `x[i...] = v`: operands are (array, value, indices...). Converts `v` to the element type;
/// returns `v`.
pub fn set_index(args: &[Value]) -> Result<Value, String> {
    let [x, v, idx @ ..] = args else {
        return Err(method_error("setindex!", args));
    };
    match x {
        Value::Array(a) | Value::Adjoint(a) if !idx.is_empty() => {
            let ds = dims_of(x).unwrap_or_default();
            let pos = position(x, &ds, idx)?;
            a.borrow_mut().data.set(pos, v)?;
            Ok(v.clone())
        }
        Value::Ref(_) if idx.is_empty() => data::ref_set(&[x.clone(), v.clone()]),
        _ => Err(method_error("setindex!", args)),
    }
}

/// `first(x)`, `last(x)`.
pub fn first_last(p: Prim, a: &Value) -> Result<Value, String> {
    let is_first = p == Prim::First;
    match a {
        Value::Array(arr) | Value::Adjoint(arr) => {
            let arr = arr.borrow();
            let n = arr.data.len();
            let i = if is_first { 0 } else { n.wrapping_sub(1) };
            arr.data.get(i).ok_or_else(|| {
                format!(
                    "BoundsError: attempt to access {} at index [{}]",
                    summary(a),
                    if is_first { 1 } else { 0 }
                )
            })
        }
        Value::Tuple(vs) => {
            let v = if is_first { vs.first() } else { vs.last() };
            v.cloned()
                .ok_or_else(|| "ArgumentError: Tuple must be non-empty".into())
        }
        Value::F64(_) | Value::Int(_) | Value::Bool(_) => Ok(a.clone()),
        _ => Err(method_error(p.julia_name(), std::slice::from_ref(a))),
    }
}

/// `broadcast(f, args...)`: operand 0 names a scalar function; the others are numbers and
/// arrays whose dimensions agree or are 1 (Julia's rule), giving one result per position.
pub fn broadcast(args: &[Value], ret: &Type) -> Result<Value, String> {
    let Some((Value::Func(name), operands)) = args.split_first() else {
        return Err("internal error: `broadcast` expects a constant function first".into());
    };
    let p = Prim::elementwise(name, operands.len())
        .ok_or_else(|| format!("unsupported: broadcasting `{name}` (only scalar builtins)"))?;
    broadcast_op(p, operands, ret)
}

/// Broadcast the scalar primitive `p` over `operands`: Julia's shapes (a vector is a column,
/// a row a 1×n matrix, a dimension of length 1 extends; the result has the most dimensions).
fn broadcast_op(p: Prim, operands: &[Value], ret: &Type) -> Result<Value, String> {
    struct Operand {
        value: Option<Value>,
        dims: Vec<usize>,
        data: Option<ArrayData>,
    }
    let mut ops = Vec::with_capacity(operands.len());
    let mut out: Vec<usize> = Vec::new();
    let mut ndims = 0u8;
    let mut all_adjoint = true;
    let combine = |a: usize, b: usize| -> Result<usize, String> {
        if a == b || b == 1 {
            Ok(a)
        } else if a == 1 {
            Ok(b)
        } else {
            Err(format!(
                "DimensionMismatch: arrays could not be broadcast to a common size; got a \
                 dimension with lengths {a} and {b}"
            ))
        }
    };
    for v in operands {
        match view(v) {
            Some((shape, data)) => {
                let mut ds = shape.dims();
                if matches!(v, Value::Adjoint(_)) {
                    ds = vec![1, data.len()];
                }
                if out.len() < ds.len() {
                    out.resize(ds.len(), 1);
                }
                for (o, &d) in out.iter_mut().zip(&ds) {
                    *o = combine(*o, d)?;
                }
                ndims = ndims.max(ds.len() as u8);
                all_adjoint &= matches!(v, Value::Adjoint(_));
                ops.push(Operand {
                    value: None,
                    dims: ds,
                    data: Some(data),
                });
            }
            None if v.is_number() => ops.push(Operand {
                value: Some(v.clone()),
                dims: vec![],
                data: None,
            }),
            None => return Err(method_error("broadcast", operands)),
        }
    }
    if ndims == 0 {
        return eval_prim(p, operands, ret);
    }
    let count = out
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .filter(|&n| n <= MAX_ELEMS)
        .ok_or("OutOfMemoryError()")?;
    // Each operand's storage stride per result dimension (0 where it extends).
    let strides: Vec<Vec<usize>> = ops
        .iter()
        .map(|op| {
            let mut stride = 1;
            (0..out.len())
                .map(|d| {
                    let n = op.dims.get(d).copied().unwrap_or(1);
                    let s = if n == 1 { 0 } else { stride };
                    stride *= n;
                    s
                })
                .collect()
        })
        .collect();
    let mut results = Vec::with_capacity(count);
    let mut elems = Vec::with_capacity(ops.len());
    let mut index = vec![0usize; out.len()];
    for _ in 0..count {
        elems.clear();
        for (op, st) in ops.iter().zip(&strides) {
            let v = match (&op.value, &op.data) {
                (Some(v), _) => v.clone(),
                (None, Some(d)) => {
                    let at: usize = index.iter().zip(st).map(|(i, s)| i * s).sum();
                    d.get(at).unwrap_or(Value::Nothing)
                }
                (None, None) => Value::Nothing,
            };
            elems.push(v);
        }
        results.push(eval_prim(p, &elems, &Type::Any)?);
        // The next index in column-major order.
        for (i, &n) in index.iter_mut().zip(&out) {
            *i += 1;
            if *i < n {
                break;
            }
            *i = 0;
        }
    }
    let data = match ret
        .elem()
        .filter(|e| matches!(**e, Type::Float32 | Type::Int(_)))
    {
        // Float32s or fixed-width integers (the AD's `Float32.(ȳ)`): held as objects.
        Some(elem) => ArrayData::of_type(elem, &results)?,
        None => ArrayData::from_values(result_elem(ret, &results)?, &results)?,
    };
    if all_adjoint {
        let arr = Array::new(Shape::Vector(out[1]), data);
        return Ok(Value::Adjoint(Rc::new(RefCell::new(arr))));
    }
    let shape = Shape::from_dims(&out[..usize::from(ndims)])
        .ok_or_else(|| "internal error: a broadcast result of no dimensions".to_string())?;
    Ok(Array::new(shape, data).into_value())
}

/// `setlength!(v, n)`, `setlength!(v, n, tail)`: the Vector `v` made `n` long in place, new
/// elements from `tail` (exactly as many as are added) or zeros; the removed elements are
/// returned as a new Vector.
pub fn set_length(args: &[Value]) -> Result<Value, String> {
    let (v, n, tail) = match args {
        [Value::Array(v), Value::Int(n)] => (v, *n, None),
        [Value::Array(v), Value::Int(n), Value::Array(t)] => (v, *n, Some(t)),
        _ => return Err(method_error("setlength!", args)),
    };
    let (old, elem) = {
        let a = v.borrow();
        if !matches!(a.shape, Shape::Vector(_)) {
            return Err(method_error("setlength!", args));
        }
        (a.data.len(), a.data.elem())
    };
    if n < 0 {
        return Err("ArgumentError: new length must be ≥ 0".into());
    }
    let n = n as usize;
    if n > MAX_ELEMS {
        return Err("OutOfMemoryError()".into());
    }
    // Copied before `v` is borrowed mutably: the tail may be `v` itself.
    let tail = match tail.map(|t| t.borrow().data.clone()) {
        Some(t) if t.len() != n.saturating_sub(old) || t.elem() != elem => {
            return Err(format!(
                "DimensionMismatch: setlength! adds {} elements, but the tail holds {}",
                n.saturating_sub(old),
                t.len()
            ));
        }
        t => t,
    };
    let mut a = v.borrow_mut();
    fn cut<T: Clone>(d: &mut Vec<T>, n: usize, tail: Option<Vec<T>>, zero: T) -> Vec<T> {
        let removed = if n < d.len() { d.split_off(n) } else { vec![] };
        d.extend(tail.unwrap_or_default());
        d.resize(n, zero);
        removed
    }
    let removed = match (&mut a.data, tail) {
        (ArrayData::F64(d), t) => ArrayData::F64(cut(
            d,
            n,
            t.and_then(|t| match t {
                ArrayData::F64(t) => Some(t),
                _ => None,
            }),
            0.0,
        )),
        (ArrayData::Int(d), t) => ArrayData::Int(cut(
            d,
            n,
            t.and_then(|t| match t {
                ArrayData::Int(t) => Some(t),
                _ => None,
            }),
            0,
        )),
        (ArrayData::Bool(d), t) => ArrayData::Bool(cut(
            d,
            n,
            t.and_then(|t| match t {
                ArrayData::Bool(t) => Some(t),
                _ => None,
            }),
            false,
        )),
        (ArrayData::Obj(d), t) => {
            let elem = d.elem.clone();
            let unset = Value::Undef(crate::value::UNDEF_SLOT.into());
            let items = cut(
                &mut d.items,
                n,
                t.and_then(|t| match t {
                    ArrayData::Obj(t) => Some(t.items),
                    _ => None,
                }),
                unset,
            );
            ArrayData::Obj(crate::value::Objects { elem, items })
        }
    };
    a.shape = Shape::Vector(n);
    Ok(Array::new(Shape::Vector(removed.len()), removed).into_value())
}

/// The linear indices `a, a + s, ..., a + (n - 1) s` of `slice_copy` and `accum_slice!` into a
/// Float64 array of `len` elements, 0-based, or the 1-based index that is out of bounds.
fn strided(a: i64, s: i64, n: i64, len: usize) -> Result<Vec<usize>, i64> {
    (0..n.max(0))
        .map(|k| {
            let i = a.wrapping_add(k.wrapping_mul(s));
            usize::try_from(i)
                .ok()
                .filter(|&j| (1..=len).contains(&j))
                .map(|j| j - 1)
                .ok_or(i)
        })
        .collect()
}

/// `slice_copy(x, a, s, n)`: the Vector of `x[a + k s]` for `k` in `0:n-1` (see `Prim::SliceCopy`).
pub fn slice_copy(args: &[Value]) -> Result<Value, String> {
    let [x, Value::Int(a), Value::Int(s), Value::Int(n)] = args else {
        return Err(method_error("slice_copy", args));
    };
    let Value::Array(arr) = x else {
        return Err(method_error("slice_copy", args));
    };
    let arr = arr.borrow();
    let ArrayData::F64(data) = &arr.data else {
        return Err(method_error("slice_copy", args));
    };
    if usize::try_from(*n).is_ok_and(|n| n > MAX_ELEMS) {
        return Err("OutOfMemoryError()".into());
    }
    match strided(*a, *s, *n, data.len()) {
        Ok(idx) => {
            let out: Vec<f64> = idx.iter().map(|&j| data[j]).collect();
            Ok(Array::new(Shape::Vector(out.len()), ArrayData::F64(out)).into_value())
        }
        Err(i) => {
            drop(arr);
            get_index(&[x.clone(), Value::Int(i)])
        }
    }
}

/// `accum_slice!(dst, a, s, x)`: `dst[a + k s] += x[k + 1]` for every element of the Float64
/// vector `x` (see `Prim::AccumSlice`).
pub fn accum_slice(args: &[Value]) -> Result<Value, String> {
    let [Value::Array(d), Value::Int(a), Value::Int(s), Value::Array(x)] = args else {
        return Err(method_error("accum_slice!", args));
    };
    let addend = match &x.borrow().data {
        ArrayData::F64(v) => v.clone(),
        _ => return Err(method_error("accum_slice!", args)),
    };
    let mut d = d.borrow_mut();
    let ArrayData::F64(data) = &mut d.data else {
        return Err(method_error("accum_slice!", args));
    };
    let n = i64::try_from(addend.len()).map_err(|_| "OutOfMemoryError()".to_string())?;
    let idx = strided(*a, *s, n, data.len()).map_err(|i| {
        format!(
            "internal error: `accum_slice!` at index {i} of {} elements",
            data.len()
        )
    })?;
    for (&j, y) in idx.iter().zip(&addend) {
        data[j] += y;
    }
    Ok(Value::Nothing)
}
