//! Tuples, named tuples, structs and `Ref`s: construction, field access and mutation.

use zy_ir::{Name, StructKind, StructRef, Type};

use super::array::UNDEF_REF;
use super::{method_error, undef_error};
use crate::show::{summary, type_string};
use crate::value::{convert_bool, convert_f64, convert_int, Value, UNDEF_SLOT};

/// `convert(t, v)` for a field or `Ref` slot declared as `t`: numbers convert exactly (as Julia
/// does on construction and assignment), everything else is stored as it is.
pub fn convert_to(t: &Type, v: &Value) -> Result<Value, String> {
    Ok(match t {
        Type::Float64 if !matches!(v, Value::F64(_)) => Value::F64(convert_f64(v)?),
        Type::Int64 if !matches!(v, Value::Int(_)) => Value::Int(convert_int(v)?),
        Type::Bool if !matches!(v, Value::Bool(_)) => Value::Bool(convert_bool(v)?),
        _ => v.clone(),
    })
}

/// `new T(fields...)`: a struct or closure environment. A closure may capture a local that is
/// not assigned yet (Julia boxes it and fails only when the closure reads it); a user struct
/// may not, but holds the fields an inner constructor's `new` leaves undefined (`#undef`).
pub fn new_struct(ty: &StructRef, args: &[Value]) -> Result<Value, String> {
    if args.len() != ty.fields.len() {
        return Err(format!(
            "internal error: `new {ty}` expects {} fields, got {}",
            ty.fields.len(),
            args.len()
        ));
    }
    let mut fields = Vec::with_capacity(args.len());
    for ((_, t), v) in ty.fields.iter().zip(args) {
        match v {
            Value::Undef(_) if ty.kind == StructKind::Closure => fields.push(v.clone()),
            Value::Undef(name) if **name == *UNDEF_SLOT => fields.push(v.clone()),
            Value::Undef(name) => return Err(undef_error(name)),
            _ => fields.push(convert_to(t, v)?),
        }
    }
    Ok(Value::new_struct(ty.clone(), fields))
}

/// `(a = x, b = y)`: operand 0 is the tuple of field-name symbols.
pub fn named_tuple(args: &[Value]) -> Result<Value, String> {
    let Some((Value::Tuple(names), vals)) = args.split_first() else {
        return Err("internal error: `namedtuple` expects a tuple of names first".into());
    };
    let mut ns = Vec::with_capacity(names.len());
    for n in names.iter() {
        match n {
            Value::Symbol(s) => ns.push(s.clone()),
            _ => return Err("internal error: `namedtuple` field names must be symbols".into()),
        }
    }
    if ns.len() != vals.len() {
        return Err(format!(
            "internal error: `namedtuple` has {} names and {} values",
            ns.len(),
            vals.len()
        ));
    }
    Ok(Value::NamedTuple(ns.into(), vals.into()))
}

/// The 0-based position of field `key` (a 1-based Int or a symbol) among `names`.
fn field_position<'a>(
    key: &Value,
    count: usize,
    mut names: impl Iterator<Item = &'a str>,
) -> Option<usize> {
    match key {
        Value::Int(i) if *i >= 1 && (*i as u64) <= count as u64 => Some(*i as usize - 1),
        Value::Symbol(s) => names.position(|n| n == &**s),
        _ => None,
    }
}

fn no_field(x: &Value, key: &Value) -> String {
    match (x, key) {
        (Value::Tuple(_), Value::Int(i)) => {
            format!(
                "BoundsError: attempt to access {} at index [{i}]",
                summary(x)
            )
        }
        (_, Value::Symbol(s)) => {
            format!(
                "ErrorException: type {} has no field {s}",
                type_string(&x.julia_type())
            )
        }
        _ => format!(
            "internal error: no field {key} in {}",
            type_string(&x.julia_type())
        ),
    }
}

/// `getfield(x, i)`: field `i` (1-based Int or symbol) of a tuple, named tuple, struct, closure
/// environment or `Ref`.
pub fn get_field(args: &[Value]) -> Result<Value, String> {
    let [x, key] = args else {
        return Err("internal error: `getfield` expects 2 operands".into());
    };
    let found = match x {
        Value::Tuple(vs) => {
            field_position(key, vs.len(), std::iter::empty()).and_then(|i| vs.get(i).cloned())
        }
        Value::NamedTuple(ns, vs) => {
            field_position(key, vs.len(), ns.iter().map(|n| &**n)).and_then(|i| vs.get(i).cloned())
        }
        Value::Struct(t, vs) => field_position(key, vs.len(), t.fields.iter().map(|(n, _)| &**n))
            .and_then(|i| vs.get(i).cloned()),
        Value::Mutable(t, vs) => {
            let vs = vs.borrow();
            field_position(key, vs.len(), t.fields.iter().map(|(n, _)| &**n))
                .and_then(|i| vs.get(i).cloned())
        }
        Value::Ref(r) => field_position(key, 1, std::iter::once("x")).map(|_| r.borrow().clone()),
        _ => return Err(method_error("getfield", args)),
    };
    found.ok_or_else(|| no_field(x, key))
}

/// `setfield!(x, i, v)` on a mutable struct: converts `v` to the field's type; returns `v`.
pub fn set_field(args: &[Value]) -> Result<Value, String> {
    let [x, key, v] = args else {
        return Err("internal error: `setfield!` expects 3 operands".into());
    };
    match x {
        Value::Mutable(t, vs) => {
            let i = field_position(key, t.fields.len(), t.fields.iter().map(|(n, _)| &**n))
                .ok_or_else(|| no_field(x, key))?;
            // The AD's undoing of the first assignment of a field `new` left undefined.
            let converted = match v {
                Value::Undef(name) if **name == *UNDEF_SLOT => v.clone(),
                _ => convert_to(&t.fields[i].1, v)?,
            };
            if let Some(slot) = vs.borrow_mut().get_mut(i) {
                *slot = converted;
            }
            Ok(v.clone())
        }
        Value::Struct(t, _) => Err(format!(
            "ErrorException: setfield!: immutable struct of type {t} cannot be changed"
        )),
        _ => Err(method_error("setfield!", args)),
    }
}

/// The struct `x`'s field `key` (a 1-based Int), its declared type and whether it holds a
/// value (is not `#undef`).
fn field_state(x: &Value, key: &Value) -> Option<(Name, Type, bool)> {
    let Value::Int(i) = key else { return None };
    let k = usize::try_from(i.checked_sub(1)?).ok()?;
    let (t, defined) = match x {
        Value::Struct(t, vs) => (t, !is_unset(vs.get(k)?)),
        Value::Mutable(t, vs) => (t, !is_unset(vs.borrow().get(k)?)),
        _ => return None,
    };
    let (name, ty) = t.fields.get(k)?;
    Some((name.clone(), ty.clone(), defined))
}

fn is_unset(v: &Value) -> bool {
    matches!(v, Value::Undef(name) if **name == *UNDEF_SLOT)
}

/// `check_field(x, i)`: reading field `i` of a struct an inner constructor built partly. An
/// undefined field is Julia's `UndefRefError`; one of a bits type, where Julia reads whatever
/// the memory holds, is refused by name.
pub fn check_field(args: &[Value]) -> Result<Value, String> {
    let [x, key] = args else {
        return Err("internal error: `check_field` expects 2 operands".into());
    };
    let Some((name, ty, defined)) = field_state(x, key) else {
        return Err(method_error("getfield", args));
    };
    match defined {
        true => Ok(Value::Nothing),
        false if ty.is_bits() => Err(format!(
            "unsupported: reading the field `{name}` of a {} that `new` left undefined: Julia \
             stores a field of type {} in line and reads whatever its memory holds; assign it \
             before reading it",
            type_string(&x.julia_type()),
            type_string(&ty)
        )),
        false => Err(UNDEF_REF.into()),
    }
}

/// `isdefined_field(x, i)`: Julia's `isdefined(x, :f)`, true for a field of a bits type (Julia
/// stores it in line, always defined).
pub fn isdefined_field(args: &[Value]) -> Result<Value, String> {
    let [x, key] = args else {
        return Err("internal error: `isdefined_field` expects 2 operands".into());
    };
    let Some((_, ty, defined)) = field_state(x, key) else {
        return Err(method_error("isdefined", args));
    };
    Ok(Value::Bool(defined || ty.is_bits()))
}

/// `t[i]` on a tuple with a run-time index.
pub fn tuple_index(args: &[Value]) -> Result<Value, String> {
    match args {
        [Value::Tuple(vs), Value::Int(i)] => usize::try_from(*i)
            .ok()
            .and_then(|i| i.checked_sub(1))
            .and_then(|i| vs.get(i))
            .cloned()
            .ok_or_else(|| {
                format!(
                    "BoundsError: attempt to access {} at index [{i}]",
                    summary(&args[0])
                )
            }),
        _ => Err(method_error("getindex", args)),
    }
}

/// `r[]`.
pub fn ref_get(args: &[Value]) -> Result<Value, String> {
    match args {
        [Value::Ref(r)] => match &*r.borrow() {
            Value::Undef(name) => Err(undef_error(name)),
            v => Ok(v.clone()),
        },
        _ => Err(method_error("getindex", args)),
    }
}

/// `r[] = v`: stores `v`, which inference has converted to the `Ref`'s content type (a
/// `Ref{Any}` holds each number with its own type); returns `v`.
pub fn ref_set(args: &[Value]) -> Result<Value, String> {
    match args {
        [Value::Ref(r), v] => {
            *r.borrow_mut() = v.clone();
            Ok(v.clone())
        }
        _ => Err(method_error("setindex!", args)),
    }
}
