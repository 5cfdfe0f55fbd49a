//! The AD tape and tangent algebra: stacks, structural zeros, and `accum` (tangent addition with
//! `nothing` as the identity).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use zy_ir::{tangent_type, Instance, Name, Prim, Type};

use super::{eval_prim, method_error};
use crate::value::{Array, ArrayData, ElemType, Pullback, Shape, Value};

/// A new empty stack.
pub fn stack_new() -> Value {
    Value::Stack(Rc::new(RefCell::new(Vec::new())))
}

/// `push!(stack, v)`: returns `nothing`.
pub fn push(args: &[Value]) -> Result<Value, String> {
    match args {
        [Value::Stack(s), v] => {
            s.borrow_mut().push(v.clone());
            Ok(Value::Nothing)
        }
        _ => Err(method_error("push!", args)),
    }
}

/// `pop!(stack)`.
pub fn pop(args: &[Value]) -> Result<Value, String> {
    match args {
        [Value::Stack(s)] => s
            .borrow_mut()
            .pop()
            .ok_or_else(|| "internal error: `pop!` from an empty AD stack".into()),
        _ => Err(method_error("pop!", args)),
    }
}

/// The parts of a value that line up with the fields of its tangent, in order.
fn components(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::Tuple(vs) | Value::NamedTuple(_, vs) | Value::Struct(_, vs) => Some(vs.to_vec()),
        Value::Mutable(_, vs) => Some(vs.borrow().clone()),
        Value::Ref(r) => Some(vec![r.borrow().clone()]),
        _ => None,
    }
}

/// `zero_tangent(x)`: the zero of the result type `ret`, with array shapes taken from the
/// optional operand (a primal or a tangent of the same structure; arrays are empty without
/// one). With `ret` unknown (`Any`), the zero of the operand's tangent type. The AD also uses it
/// for placeholder values of any type (the tape slots of blocks that did not run): structs get
/// zero fields, functions themselves, stacks a new stack.
pub fn zero_tangent(args: &[Value], ret: &Type) -> Result<Value, String> {
    let shape_of = args.first();
    let ty = match (ret, shape_of) {
        (Type::Any, Some(v)) => tangent_type(&v.julia_type()),
        _ => ret.clone(),
    };
    zero_of(&ty, shape_of, &mut Vec::new())
}

/// The objects (arrays, mutable structs) a zero was made for, by address, with their zeros:
/// an object reached twice has one shadow, and a cycle of mutable nodes ends.
type Seen = Vec<(*const (), Value)>;

/// The address of an object with identity (an array, a mutable struct).
fn identity(v: &Value) -> Option<*const ()> {
    match v {
        Value::Array(r) => Some(Rc::as_ptr(r).cast::<()>()),
        Value::Mutable(_, r) => Some(Rc::as_ptr(r).cast::<()>()),
        _ => None,
    }
}

fn zero_of(t: &Type, like: Option<&Value>, seen: &mut Seen) -> Result<Value, String> {
    let parts = like.and_then(components);
    let part = |i: usize| parts.as_ref().and_then(|ps| ps.get(i));
    let zeros = |ts: &mut dyn Iterator<Item = Type>, seen: &mut Seen| {
        ts.enumerate()
            .map(|(i, t)| zero_of(&t, part(i), seen))
            .collect::<Result<Vec<Value>, String>>()
    };
    Ok(match t {
        Type::Float64 => Value::F64(0.0),
        Type::Float32 => Value::F32(0.0),
        Type::Int64 => Value::Int(0),
        Type::Bool => Value::Bool(false),
        Type::Nothing => Value::Nothing,
        Type::Tuple(ts) => Value::Tuple(zeros(&mut ts.iter().cloned(), seen)?.into()),
        // A recursive struct (or its tangent) binds its own type in its fields
        // ([`Type::field`]).
        Type::NamedTuple(fs) => Value::NamedTuple(
            fs.iter().map(|(n, _)| n.clone()).collect(),
            zeros(&mut (0..fs.len()).filter_map(|i| t.field(i)), seen)?.into(),
        ),
        Type::Struct(s) => Value::new_struct(
            s.clone(),
            zeros(&mut (0..s.fields.len()).filter_map(|i| t.field(i)), seen)?,
        ),
        // The shadow of a mutable struct is a `Ref` of its fields' slots, one per struct: made
        // before its contents, so that a node reached again through them finds it.
        Type::Ref(inner) if matches!(like, Some(Value::Mutable(..))) => {
            let at = like.and_then(identity);
            if let Some((_, z)) = seen.iter().find(|(p, _)| Some(*p) == at) {
                return Ok(z.clone());
            }
            let shadow = Rc::new(RefCell::new(Value::Nothing));
            if let Some(at) = at {
                seen.push((at, Value::Ref(shadow.clone())));
            }
            let contents = zero_of(inner, like, seen)?;
            *shadow.borrow_mut() = contents;
            Value::Ref(shadow)
        }
        // The shadow of a `Ref` is a `Ref` of the contents' tangent.
        Type::Ref(inner) => {
            let contents = match like {
                Some(Value::Ref(r)) => Some(r.borrow().clone()),
                other => other.cloned(),
            };
            Value::new_ref(zero_of(inner, contents.as_ref(), seen)?)
        }
        // The shadow of a vector of arrays or structs: each element's own zero shadow (an
        // unset slot stays unset).
        Type::Array(e, _) if ElemType::of_type(e).is_none() => {
            let (shape, items) = match like {
                Some(Value::Array(a)) => {
                    let a = a.borrow();
                    let items = match &a.data {
                        ArrayData::Obj(o) => {
                            // One array (or mutable struct) held in two slots has one shadow,
                            // held in both.
                            let mut items = Vec::with_capacity(o.items.len());
                            for x in &o.items {
                                let z = match (x, identity(x)) {
                                    (Value::Undef(_), _) => x.clone(),
                                    (_, Some(at)) => match seen.iter().find(|(p, _)| *p == at) {
                                        Some((_, z)) => z.clone(),
                                        None => {
                                            let z = zero_of(&held(e, x), Some(x), seen)?;
                                            seen.push((at, z.clone()));
                                            z
                                        }
                                    },
                                    _ => zero_of(e, Some(x), seen)?,
                                };
                                items.push(z);
                            }
                            items
                        }
                        _ => return Err(format!("internal error: no zero value of type {t}")),
                    };
                    (a.shape, items)
                }
                _ => (Shape::Vector(0), vec![]),
            };
            let data = ArrayData::Obj(crate::value::Objects {
                elem: (**e).clone(),
                items,
            });
            Value::Array(Rc::new(RefCell::new(Array::new(shape, data))))
        }
        Type::Array(e, _) | Type::Adjoint(e) => {
            let elem = ElemType::of_type(e)
                .ok_or_else(|| format!("internal error: no zero value of type {t}"))?;
            let shape = match (like, t) {
                (Some(Value::Array(a) | Value::Adjoint(a)), _) => a.borrow().shape,
                (_, Type::Array(_, 2)) => Shape::Matrix(0, 0),
                _ => Shape::Vector(0),
            };
            let arr = Rc::new(RefCell::new(Array::new(
                shape,
                ArrayData::zeros(elem, shape.len()),
            )));
            if matches!(t, Type::Adjoint(_)) {
                Value::Adjoint(arr)
            } else {
                Value::Array(arr)
            }
        }
        Type::Function(name) => Value::Func(name.clone()),
        Type::Stack(_) => stack_new(),
        // The zero of the member for the value at hand (a primal or a gradient of one of the
        // union's members); `nothing`, the gradients' zero, without one.
        Type::Union(u) => match u.members.iter().find(|m| like.is_some_and(|v| fits(m, v))) {
            Some(m) => zero_of(m, like, seen)?,
            None => Value::Nothing,
        },
        _ => return Err(format!("internal error: no zero value of type {t}")),
    })
}

/// The tangent type of the element `x` of an array of elements of tangent type `e`: of a
/// container of `Any` holding arrays beside numbers, the array's own where it is one of the
/// union's members (whose zero is then zeros of its shape, not `nothing`).
fn held(e: &Type, x: &Value) -> Type {
    match (e, x) {
        (Type::Union(u), Value::Array(_)) => {
            let own = tangent_type(&x.julia_type());
            if u.members.contains(&own) {
                own
            } else {
                e.clone()
            }
        }
        _ => e.clone(),
    }
}

/// Is the gradient type `t` (a named tuple, or a box of one) that of the value `v` (a primal
/// struct, or a gradient or shadow of one): do their field names agree? A number's is its own
/// type (`Union{Nothing, Float64}`'s member).
fn fits(t: &Type, v: &Value) -> bool {
    if t.is_number() {
        return v.julia_type() == *t;
    }
    let names = |t: &Type| -> Option<Vec<Name>> {
        match t {
            Type::NamedTuple(fs) => Some(fs.iter().map(|(n, _)| n.clone()).collect()),
            Type::Struct(s) => Some(s.fields.iter().map(|(n, _)| n.clone()).collect()),
            Type::Ref(inner) => match &**inner {
                Type::NamedTuple(fs) => Some(fs.iter().map(|(n, _)| n.clone()).collect()),
                _ => None,
            },
            _ => None,
        }
    };
    let boxed = |t: &Type| matches!(t, Type::Ref(_));
    let vt = v.julia_type();
    let primal_box = matches!(v, Value::Mutable(..));
    names(t).is_some() && names(t) == names(&vt) && (boxed(t) == (boxed(&vt) || primal_box))
}

/// Is the tangent `v` of the type `t`: of one of a union's members, and, where `t` holds a
/// recursive struct's tangent ([`Type::Recur`]), a named tuple as deep as the data whose every
/// field is of the field's type as read ([`Type::field`])?
pub fn is_tangent_of(v: &Value, t: &Type) -> bool {
    match (v, t) {
        (_, Type::Union(u)) => u.members.iter().any(|m| is_tangent_of(v, m)),
        (Value::NamedTuple(names, vs), Type::NamedTuple(fs)) if t.holds_recursion() => {
            names.iter().eq(fs.iter().map(|(n, _)| n))
                && vs
                    .iter()
                    .enumerate()
                    .all(|(i, x)| t.field(i).is_some_and(|ft| is_tangent_of(x, &ft)))
        }
        _ => v.julia_type() == *t,
    }
}

/// `tangent_part(g, part)`: the shadow part (`:fdata`: the arrays, the same objects) or the
/// returned part (`:rdata`: the numbers) of the gradient `g`, tuples and named tuples part by
/// part; `nothing` where `g` has no such part (a union's member known only at run time).
/// With `:fdata_each` or `:rdata_each`, `g` is the shadow of a vector of such values, and the
/// result a new vector of each element's part.
pub fn tangent_part(args: &[Value]) -> Result<Value, String> {
    let (shadow, each) = match args {
        [_, Value::Symbol(p)] => match &**p {
            "fdata" => (true, false),
            "rdata" => (false, false),
            "fdata_each" => (true, true),
            "rdata_each" => (false, true),
            _ => return Err(part_expected()),
        },
        _ => return Err(part_expected()),
    };
    if !each {
        return Ok(part_of(&args[0], shadow));
    }
    let Value::Array(a) = &args[0] else {
        return Err(part_expected());
    };
    let a = a.borrow();
    let ArrayData::Obj(o) = &a.data else {
        return Err(part_expected());
    };
    let items = o.items.iter().map(|g| part_of(g, shadow)).collect();
    let data = ArrayData::Obj(crate::value::Objects {
        elem: o.elem.clone(),
        items,
    });
    Ok(Value::Array(Rc::new(RefCell::new(Array::new(
        a.shape, data,
    )))))
}

fn part_expected() -> String {
    "internal error: `tangent_part` expects a gradient and :fdata or :rdata (of a vector's \
     elements, :fdata_each or :rdata_each)"
        .into()
}

fn part_of(g: &Value, shadow: bool) -> Value {
    let parts = |vs: &[Value]| -> Option<Vec<Value>> {
        let ps: Vec<Value> = vs.iter().map(|v| part_of(v, shadow)).collect();
        (!ps.iter().all(|p| matches!(p, Value::Nothing))).then_some(ps)
    };
    match g {
        Value::Array(_) | Value::Adjoint(_) if shadow => g.clone(),
        Value::Tuple(vs) => parts(vs).map_or(Value::Nothing, |ps| Value::Tuple(ps.into())),
        Value::NamedTuple(ns, vs) => parts(vs).map_or(Value::Nothing, |ps| {
            Value::NamedTuple(ns.clone(), ps.into())
        }),
        _ if g.is_number() && !shadow => g.clone(),
        _ => Value::Nothing,
    }
}

/// `accum(a, b)`: tangent addition. `nothing` is the identity; numbers add; tuples and named
/// tuples add elementwise; arrays of one shape add elementwise into a new array.
pub fn accum(a: &Value, b: &Value) -> Result<Value, String> {
    let fail = || format!("internal error: cannot accumulate tangents {a} and {b}");
    match (a, b) {
        (Value::Nothing, x) | (x, Value::Nothing) => Ok(x.clone()),
        (Value::Tuple(xs), Value::Tuple(ys)) if xs.len() == ys.len() => {
            let sum: Result<Vec<Value>, String> =
                xs.iter().zip(ys.iter()).map(|(x, y)| accum(x, y)).collect();
            Ok(Value::Tuple(sum?.into()))
        }
        (Value::NamedTuple(nx, xs), Value::NamedTuple(ny, ys)) if nx == ny => {
            let sum: Result<Vec<Value>, String> =
                xs.iter().zip(ys.iter()).map(|(x, y)| accum(x, y)).collect();
            Ok(Value::NamedTuple(nx.clone(), sum?.into()))
        }
        (Value::Array(_), Value::Array(_)) | (Value::Adjoint(_), Value::Adjoint(_)) => {
            eval_prim(Prim::Add, &[a.clone(), b.clone()], &Type::Any)
        }
        _ if a.is_number() && b.is_number() => {
            eval_prim(Prim::Add, &[a.clone(), b.clone()], &Type::Any)
        }
        _ => Err(fail()),
    }
}

/// `accum(a, b)` that adds the arrays inside `a` in place rather than into new ones: an
/// element of a vector of arrays' shadow is that array's own shadow, seen elsewhere too.
fn accum_keeping_arrays(a: &Value, b: &Value) -> Result<Value, String> {
    match (a, b) {
        (_, Value::Nothing) => Ok(a.clone()),
        (Value::Array(_), _) => {
            accum_into(a, b)?;
            Ok(a.clone())
        }
        (Value::Tuple(xs), Value::Tuple(ys)) if xs.len() == ys.len() => {
            let sum: Result<Vec<Value>, String> = xs
                .iter()
                .zip(ys.iter())
                .map(|(x, y)| accum_keeping_arrays(x, y))
                .collect();
            Ok(Value::Tuple(sum?.into()))
        }
        (Value::NamedTuple(nx, xs), Value::NamedTuple(ny, ys)) if nx == ny => {
            let sum: Result<Vec<Value>, String> = xs
                .iter()
                .zip(ys.iter())
                .map(|(x, y)| accum_keeping_arrays(x, y))
                .collect();
            Ok(Value::NamedTuple(nx.clone(), sum?.into()))
        }
        _ => accum(a, b),
    }
}

/// `accum!(dst, x)`: add `x` (an array of `dst`'s shape, or a number added to every element)
/// into the array `dst` in place. Returns `nothing`. An `x` of a shape that broadcasting
/// extends `dst`'s to (the gradient of a broadcast's operand whose type is the result's, an
/// m×1 matrix against an m×n one) is first summed over the extension, as `unbroadcast`.
pub fn accum_into(dst: &Value, x: &Value) -> Result<Value, String> {
    let (Value::Array(d) | Value::Adjoint(d)) = dst else {
        return Err(method_error("accum!", &[dst.clone(), x.clone()]));
    };
    if matches!(d.borrow().data, ArrayData::Obj(_)) {
        // The gradients of a vector of tuples or structs: added element by element.
        let Value::Array(a) = x else {
            return Err(method_error("accum!", &[dst.clone(), x.clone()]));
        };
        let addend = a.borrow().data.values();
        let mut d = d.borrow_mut();
        if addend.len() != d.data.len() {
            return Err("internal error: `accum!` of vectors of different lengths".into());
        }
        for (i, y) in addend.iter().enumerate() {
            let old = d.data.get(i).unwrap_or(Value::Nothing);
            let sum = accum_keeping_arrays(&old, y)?;
            d.data.set(i, &sum)?;
        }
        return Ok(Value::Nothing);
    }
    let addend: Vec<Value> = match x {
        Value::Nothing => return Ok(Value::Nothing),
        Value::Array(a) | Value::Adjoint(a) => {
            let (n, m) = (a.borrow().data.len(), d.borrow().data.len());
            if n != m {
                if n < m {
                    return Err(format!(
                        "DimensionMismatch: cannot add an array of {n} elements into one of {m}"
                    ));
                }
                let summed = super::linalg::unbroadcast(x, dst)?;
                return accum_into(dst, &summed);
            }
            a.borrow().data.values()
        }
        _ if x.is_number() => vec![x.clone(); d.borrow().data.len()],
        _ => return Err(method_error("accum!", &[dst.clone(), x.clone()])),
    };
    let mut d = d.borrow_mut();
    for (i, y) in addend.iter().enumerate() {
        let old = d.data.get(i).unwrap_or(Value::Nothing);
        let sum = eval_prim(Prim::Add, &[old, y.clone()], &Type::Any)?;
        d.data.set(i, &sum)?;
    }
    Ok(Value::Nothing)
}

/// `make_pullback(f, method, tape)`: the `back` closure running pullback instance `f` (method
/// `method`, argument types from the result type) on `(tape, ȳ)`.
pub fn make_pullback(args: &[Value], ret: &Type) -> Result<Value, String> {
    let ([Value::Func(name), Value::Int(method), tape], Type::Pullback(types)) = (args, ret) else {
        return Err(
            "internal error: `make_pullback` expects (function, method, tape) and a Pullback type"
                .into(),
        );
    };
    let method = u32::try_from(*method)
        .map_err(|_| format!("internal error: `make_pullback` method index {method}"))?;
    let instance = Arc::new(Instance {
        name: name.clone(),
        method,
        args: types.clone(),
    });
    Ok(Value::Pullback(Rc::new(Pullback {
        instance,
        tape: tape.clone(),
    })))
}
