//! Run-time values with Julia's data model: immutable values are shared freely, mutable ones
//! (`mutable struct`s, `Ref`s, arrays, AD stacks) live behind `Rc<RefCell<..>>` so that identity
//! is preserved and a mutation through one alias is seen through every other.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use zy_ir::{Const, Instance, IntKind, Name, StructRef, Type};

/// A shared, mutable array.
pub type ArrayRef = Rc<RefCell<Array>>;

/// A Julia value.
#[derive(Clone, Debug)]
pub enum Value {
    /// `Float64`.
    F64(f64),
    /// `Float32`.
    F32(f32),
    /// `Int64`.
    Int(i64),
    /// A fixed-width integer of another type (`UInt8`, `Int32`, ...), held as
    /// [`zy_ir::int_kind`] says: sign- or zero-extended, a `UInt64` as its bits.
    Sized(IntKind, i64),
    /// An `Int128` or a `UInt128`: its bits.
    Wide(IntKind, crate::wide::Bits128),
    /// `Bool`.
    Bool(bool),
    /// `nothing`.
    Nothing,
    /// `(a, b, ...)`.
    Tuple(Rc<[Value]>),
    /// `(a = x, b = y)`: field names and values in order.
    NamedTuple(Rc<[Name]>, Rc<[Value]>),
    /// An immutable `struct` or a closure environment.
    Struct(StructRef, Rc<[Value]>),
    /// A `mutable struct`: shared, fields assignable.
    Mutable(StructRef, Rc<RefCell<Vec<Value>>>),
    /// `Base.RefValue{T}`: a shared mutable box.
    Ref(Rc<RefCell<Value>>),
    /// `Vector` or `Matrix` of `Float64`, `Int64` or `Bool`.
    Array(ArrayRef),
    /// `x'` for a vector `x`: a 1×n row view sharing `x`'s storage, as in Julia.
    Adjoint(ArrayRef),
    /// A generic function used as a value (`sin`, a user function `f`).
    Func(Name),
    /// A symbol constant (`:x`), as in named tuple field names.
    Symbol(Name),
    /// A `String`, and a `SubString{String}` (held as its text, as Julia's compares equal)
    /// wherever its type is known from the program's.
    Str(Name),
    /// A `SubString{String}` held in a union that also holds `String`s, where the value itself
    /// must tell which it is (`union_isa`); see [`crate::substring::tag`].
    SubStr(Name),
    /// An AD tape stack.
    Stack(Rc<RefCell<Vec<Value>>>),
    /// The `back` closure of one call: calling it runs a pullback instance on its tape.
    Pullback(Rc<Pullback>),
    /// A caught exception (`catch e`).
    Exception(Rc<crate::exception::Caught>),
    /// The value of local `x` where it is not assigned: using it is an `UndefVarError`.
    Undef(Name),
}

/// The closure `back` returned by `pullback(f, args...)`.
#[derive(Clone, Debug)]
pub struct Pullback {
    /// The pullback body to run, on `(tape, ȳ)`.
    pub instance: Arc<Instance>,
    /// What the forward pass recorded for it.
    pub tape: Value,
}

/// The element type of an array.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ElemType {
    /// `Float64`.
    F64,
    /// `Int64`.
    Int,
    /// `Bool`.
    Bool,
    /// Any other type (arrays, structs, tuples): the elements are [`Value`]s, held by
    /// [`ArrayData::Obj`], which knows their type.
    Obj,
}

impl ElemType {
    /// The IR type of an element (`Any` for [`ElemType::Obj`], whose storage knows it).
    pub fn ty(self) -> Type {
        match self {
            ElemType::F64 => Type::Float64,
            ElemType::Int => Type::Int64,
            ElemType::Bool => Type::Bool,
            ElemType::Obj => Type::Any,
        }
    }

    /// The element type for IR type `t`, if it is a number type.
    pub fn of_type(t: &Type) -> Option<ElemType> {
        match t {
            Type::Float64 => Some(ElemType::F64),
            Type::Int64 => Some(ElemType::Int),
            Type::Bool => Some(ElemType::Bool),
            _ => None,
        }
    }

    /// Julia's promotion of two element types (`Bool` < `Int64` < `Float64`).
    pub fn promote(self, other: ElemType) -> ElemType {
        match (self, other) {
            (ElemType::Obj, _) | (_, ElemType::Obj) => ElemType::Obj,
            (ElemType::F64, _) | (_, ElemType::F64) => ElemType::F64,
            (ElemType::Int, _) | (_, ElemType::Int) => ElemType::Int,
            _ => ElemType::Bool,
        }
    }
}

/// The most dimensions an array may have (Julia has no limit; zy refuses more by name).
pub const MAX_DIMS: usize = zy_ir::MAX_DIMS as usize;

/// The sizes of an array with 3 to [`MAX_DIMS`] dimensions.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Dims {
    n: u8,
    d: [usize; MAX_DIMS],
}

impl Dims {
    /// The sizes `ds` (3 to [`MAX_DIMS`] of them).
    pub fn new(ds: &[usize]) -> Option<Dims> {
        if !(3..=MAX_DIMS).contains(&ds.len()) {
            return None;
        }
        let mut d = [1; MAX_DIMS];
        d[..ds.len()].copy_from_slice(ds);
        Some(Dims {
            n: ds.len() as u8,
            d,
        })
    }

    /// The sizes, first dimension first.
    pub fn as_slice(&self) -> &[usize] {
        &self.d[..usize::from(self.n)]
    }
}

/// The shape of an array.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Shape {
    /// A `Vector` of this length.
    Vector(usize),
    /// A `Matrix` with (rows, columns).
    Matrix(usize, usize),
    /// An `Array{T, N}` with `N` ≥ 3: its sizes.
    Nd(Dims),
}

impl Shape {
    /// The shape with sizes `ds`: a Vector, Matrix or N-d array (`None` for no sizes or more
    /// than [`MAX_DIMS`]).
    pub fn from_dims(ds: &[usize]) -> Option<Shape> {
        match *ds {
            [n] => Some(Shape::Vector(n)),
            [m, n] => Some(Shape::Matrix(m, n)),
            _ => Dims::new(ds).map(Shape::Nd),
        }
    }

    /// The sizes, first dimension first.
    pub fn dims(self) -> Vec<usize> {
        match self {
            Shape::Vector(n) => vec![n],
            Shape::Matrix(m, n) => vec![m, n],
            Shape::Nd(d) => d.as_slice().to_vec(),
        }
    }

    /// The number of elements.
    pub fn len(self) -> usize {
        match self {
            Shape::Vector(n) => n,
            Shape::Matrix(m, n) => m * n,
            Shape::Nd(d) => d.as_slice().iter().product(),
        }
    }

    /// Is the array empty?
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The number of dimensions.
    pub fn ndims(self) -> u8 {
        match self {
            Shape::Vector(_) => 1,
            Shape::Matrix(..) => 2,
            Shape::Nd(d) => d.n,
        }
    }

    /// The shape as (rows, columns), a vector being one column and an N-d array the matrix of
    /// its first dimension by the product of the others (its column-major storage).
    pub fn rows_cols(self) -> (usize, usize) {
        match self {
            Shape::Vector(n) => (n, 1),
            Shape::Matrix(m, n) => (m, n),
            Shape::Nd(d) => (d.d[0], d.as_slice()[1..].iter().product()),
        }
    }
}

/// Typed element storage, column-major.
#[derive(Clone, PartialEq, Debug)]
pub enum ArrayData {
    /// `Float64` elements.
    F64(Vec<f64>),
    /// `Int64` elements.
    Int(Vec<i64>),
    /// `Bool` elements.
    Bool(Vec<bool>),
    /// Elements of any other type (`Vector{Vector{Float64}}`, `Vector{Layer}`): references to
    /// values, so an element array is shared with every alias of it, as in Julia.
    Obj(Objects),
}

/// The elements of an array of objects, and their type.
#[derive(Clone, Debug)]
pub struct Objects {
    /// The element type (`Vector{Float64}` in a `Vector{Vector{Float64}}`).
    pub elem: Type,
    /// The elements; a slot never set holds [`Value::Undef`] of [`UNDEF_SLOT`].
    pub items: Vec<Value>,
}

/// The name an unset slot of an array of objects holds (Julia's `#undef`): reading it is
/// Julia's `UndefRefError`.
pub const UNDEF_SLOT: &str = "#undef";

impl Objects {
    /// `n` unset slots of element type `elem`; of `Union{Missing, T}` (`Union{Nothing, T}`)
    /// of a number type `T`, `n` times `missing` (`nothing`), as Julia fills them (`missing`
    /// of `Union{Missing, Nothing, T}`, the first of its members in Julia's order).
    pub fn unset(elem: Type, n: usize) -> Objects {
        let absent = match &elem {
            Type::Union(u)
                if u.members
                    .iter()
                    .all(|m| m.is_number() || m.is_missing() || *m == Type::Nothing) =>
            {
                let missing_first = u.members.iter().filter(|m| m.is_missing());
                let nothing = u.members.iter().filter(|m| **m == Type::Nothing);
                missing_first.chain(nothing).find_map(|m| match m {
                    Type::Nothing => Some(Value::Nothing),
                    Type::Struct(s) if m.is_missing() => {
                        Some(Value::Struct(s.clone(), Rc::from([])))
                    }
                    _ => None,
                })
            }
            _ => None,
        };
        Objects {
            elem,
            items: vec![absent.unwrap_or_else(|| Value::Undef(UNDEF_SLOT.into())); n],
        }
    }
}

impl PartialEq for Objects {
    fn eq(&self, other: &Objects) -> bool {
        self.elem == other.elem && all_egal(&self.items, &other.items)
    }
}

impl ArrayData {
    /// `n` zeros of element type `e`.
    pub fn zeros(e: ElemType, n: usize) -> ArrayData {
        match e {
            ElemType::F64 => ArrayData::F64(vec![0.0; n]),
            ElemType::Int => ArrayData::Int(vec![0; n]),
            ElemType::Bool => ArrayData::Bool(vec![false; n]),
            ElemType::Obj => ArrayData::Obj(Objects::unset(Type::Any, n)),
        }
    }

    /// The element type.
    pub fn elem(&self) -> ElemType {
        match self {
            ArrayData::F64(_) => ElemType::F64,
            ArrayData::Int(_) => ElemType::Int,
            ArrayData::Bool(_) => ElemType::Bool,
            ArrayData::Obj(_) => ElemType::Obj,
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        match self {
            ArrayData::F64(v) => v.len(),
            ArrayData::Int(v) => v.len(),
            ArrayData::Bool(v) => v.len(),
            ArrayData::Obj(o) => o.items.len(),
        }
    }

    /// Is there no element?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` (0-based; the caller checks bounds).
    pub fn get(&self, i: usize) -> Option<Value> {
        match self {
            ArrayData::F64(v) => v.get(i).map(|&x| Value::F64(x)),
            ArrayData::Int(v) => v.get(i).map(|&x| Value::Int(x)),
            ArrayData::Bool(v) => v.get(i).map(|&x| Value::Bool(x)),
            ArrayData::Obj(o) => o.items.get(i).cloned(),
        }
    }

    /// Every element as a value.
    pub fn values(&self) -> Vec<Value> {
        (0..self.len()).filter_map(|i| self.get(i)).collect()
    }

    /// Every element converted to Float64 (`Int64` and `Bool` exactly as Julia's `float`);
    /// NaNs for an array of objects, which inference never hands to a numeric kernel.
    pub fn to_f64(&self) -> Vec<f64> {
        match self {
            ArrayData::F64(v) => v.clone(),
            ArrayData::Int(v) => v.iter().map(|&x| x as f64).collect(),
            ArrayData::Bool(v) => v.iter().map(|&x| f64::from(u8::from(x))).collect(),
            ArrayData::Obj(o) => vec![f64::NAN; o.items.len()],
        }
    }

    /// Storage of element type `elem` (a number type or any other) holding `vals`, each
    /// converted as `setindex!` does.
    pub fn of_type(elem: &Type, vals: &[Value]) -> Result<ArrayData, String> {
        match ElemType::of_type(elem) {
            Some(e) => ArrayData::from_values(e, vals),
            None => Ok(ArrayData::Obj(Objects {
                elem: elem.clone(),
                items: vals.to_vec(),
            })),
        }
    }

    /// Build storage of element type `e` from scalar values, converting each as Julia's
    /// `convert` does (Int to Float exactly, Float to Int only when integral).
    pub fn from_values(e: ElemType, vals: &[Value]) -> Result<ArrayData, String> {
        let mut data = ArrayData::zeros(e, vals.len());
        for (i, v) in vals.iter().enumerate() {
            data.set(i, v)?;
        }
        Ok(data)
    }

    /// Store `v` at `i` (0-based), converting it to the element type as `setindex!` does.
    pub fn set(&mut self, i: usize, v: &Value) -> Result<(), String> {
        match self {
            ArrayData::F64(d) => {
                let x = convert_f64(v)?;
                if let Some(slot) = d.get_mut(i) {
                    *slot = x;
                }
            }
            ArrayData::Int(d) => {
                let x = convert_int(v)?;
                if let Some(slot) = d.get_mut(i) {
                    *slot = x;
                }
            }
            ArrayData::Bool(d) => {
                let x = convert_bool(v)?;
                if let Some(slot) = d.get_mut(i) {
                    *slot = x;
                }
            }
            ArrayData::Obj(o) => {
                if let Some(slot) = o.items.get_mut(i) {
                    *slot = v.clone();
                }
            }
        }
        Ok(())
    }
}

/// `convert(Float64, v)`.
pub fn convert_f64(v: &Value) -> Result<f64, String> {
    match v {
        Value::F64(x) => Ok(*x),
        Value::Int(i) => Ok(*i as f64),
        Value::Bool(b) => Ok(f64::from(u8::from(*b))),
        Value::F32(x) => Ok(f64::from(*x)),
        Value::Sized(k, held) => Ok(k.value(*held) as f64),
        Value::Wide(k, bits) => Ok(crate::wide::Exact::of(*k, bits.get()).to_f64()),
        other => Err(convert_error("Float64", other)),
    }
}

/// `convert(Int64, v)`: exact, `InexactError` otherwise.
pub fn convert_int(v: &Value) -> Result<i64, String> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Bool(b) => Ok(i64::from(*b)),
        Value::F64(x) => f64_to_int(*x).ok_or_else(|| {
            format!(
                "InexactError: Int64({})",
                crate::show::show(&Value::F64(*x))
            )
        }),
        other => Err(convert_error("Int64", other)),
    }
}

/// `convert(Bool, v)`: only 0 and 1 convert.
pub fn convert_bool(v: &Value) -> Result<bool, String> {
    let inexact = || format!("InexactError: Bool({})", crate::show::show(v));
    match v {
        Value::Bool(b) => Ok(*b),
        Value::Int(0) => Ok(false),
        Value::Int(1) => Ok(true),
        Value::Int(_) => Err(inexact()),
        Value::F64(x) if *x == 0.0 => Ok(false),
        Value::F64(x) if *x == 1.0 => Ok(true),
        Value::F64(_) => Err(inexact()),
        other => Err(convert_error("Bool", other)),
    }
}

/// The Int64 equal to `x`, if there is one.
pub fn f64_to_int(x: f64) -> Option<i64> {
    // 2^63 is exactly representable; every float in [-2^63, 2^63) with no fraction fits.
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if x.fract() == 0.0 && (-TWO_63..TWO_63).contains(&x) {
        Some(x as i64)
    } else {
        None
    }
}

fn convert_error(target: &str, v: &Value) -> String {
    format!(
        "MethodError: Cannot `convert` an object of type {} to an object of type {target}",
        v.julia_type()
    )
}

/// A `Vector` or `Matrix`: its shape and column-major storage.
#[derive(Clone, PartialEq, Debug)]
pub struct Array {
    /// Vector length or matrix dimensions.
    pub shape: Shape,
    /// The elements, column-major; as many as the shape says.
    pub data: ArrayData,
}

impl Array {
    /// An array of `shape` holding `data` (whose length must be the shape's).
    pub fn new(shape: Shape, data: ArrayData) -> Array {
        Array { shape, data }
    }

    /// The IR type (`Vector{Float64}`, `Matrix{Int64}`, `Vector{Vector{Float64}}`, ...).
    pub fn ty(&self) -> Type {
        Type::Array(Arc::new(self.elem_type()), self.shape.ndims())
    }

    /// The element type.
    pub fn elem_type(&self) -> Type {
        match &self.data {
            ArrayData::Obj(o) => o.elem.clone(),
            d => d.elem().ty(),
        }
    }

    /// Wrap as a shared value.
    pub fn into_value(self) -> Value {
        Value::Array(Rc::new(RefCell::new(self)))
    }
}

impl Value {
    /// A `Vector{Float64}`.
    pub fn vector_f64(xs: Vec<f64>) -> Value {
        Array::new(Shape::Vector(xs.len()), ArrayData::F64(xs)).into_value()
    }

    /// A `Matrix{Float64}` from its elements in column-major order. `None` if the length is
    /// not `rows * cols`.
    pub fn matrix_f64(rows: usize, cols: usize, column_major: Vec<f64>) -> Option<Value> {
        (rows.checked_mul(cols) == Some(column_major.len())).then(|| {
            Array::new(Shape::Matrix(rows, cols), ArrayData::F64(column_major)).into_value()
        })
    }

    /// A tuple.
    pub fn tuple(elems: impl IntoIterator<Item = Value>) -> Value {
        Value::Tuple(elems.into_iter().collect())
    }

    /// A struct value of type `ty` (immutable or mutable, as the type says).
    pub fn new_struct(ty: StructRef, fields: Vec<Value>) -> Value {
        if ty.mutable {
            Value::Mutable(ty, Rc::new(RefCell::new(fields)))
        } else {
            Value::Struct(ty, fields.into())
        }
    }

    /// `Ref(x)`.
    pub fn new_ref(x: Value) -> Value {
        Value::Ref(Rc::new(RefCell::new(x)))
    }

    /// The value of a constant operand.
    pub fn from_const(c: &Const) -> Value {
        match c {
            Const::F64(bits) => Value::F64(f64::from_bits(*bits)),
            Const::F32(bits) => Value::F32(f32::from_bits(*bits)),
            Const::Int(i) => Value::Int(*i),
            Const::Bool(b) => Value::Bool(*b),
            Const::Nothing => Value::Nothing,
            Const::Symbol(s) => Value::Symbol(s.clone()),
            Const::Str(s) => Value::Str(s.clone()),
            Const::Func(f) => Value::Func(f.clone()),
            Const::Tuple(cs) => Value::Tuple(cs.iter().map(Value::from_const).collect()),
        }
    }

    /// The Julia type of this value (`Any` for an undefined local, whose type is not known).
    pub fn julia_type(&self) -> Type {
        match self {
            Value::F64(_) => Type::Float64,
            Value::F32(_) => Type::Float32,
            Value::Int(_) => Type::Int64,
            Value::Sized(k, _) | Value::Wide(k, _) => Type::Int(*k),
            Value::Bool(_) => Type::Bool,
            Value::Nothing => Type::Nothing,
            Value::Tuple(vs) => Type::Tuple(vs.iter().map(Value::julia_type).collect()),
            Value::NamedTuple(ns, vs) => Type::NamedTuple(
                ns.iter()
                    .cloned()
                    .zip(vs.iter().map(Value::julia_type))
                    .collect(),
            ),
            Value::Struct(t, _) | Value::Mutable(t, _) => Type::Struct(t.clone()),
            Value::Ref(r) => Type::Ref(Arc::new(r.borrow().julia_type())),
            Value::Array(a) => a.borrow().ty(),
            Value::Adjoint(a) => Type::Adjoint(Arc::new(a.borrow().elem_type())),
            Value::Func(n) => Type::Function(n.clone()),
            Value::Str(_) => Type::String,
            Value::SubStr(_) => Type::SubString,
            Value::Exception(_) => Type::Exception,
            Value::Symbol(_) | Value::Undef(_) => Type::Any,
            Value::Pullback(p) => Type::Pullback(p.instance.args.clone()),
            Value::Stack(s) => {
                let elem = s.borrow().last().map_or(Type::Any, Value::julia_type);
                Type::Stack(Arc::new(elem))
            }
        }
    }

    /// The Float64 inside, if this is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::F64(x) => Some(*x),
            _ => None,
        }
    }

    /// Is this a number (`Float64`, `Int64`, `Bool`, a fixed-width integer)?
    pub fn is_number(&self) -> bool {
        matches!(
            self,
            Value::F64(_)
                | Value::F32(_)
                | Value::Int(_)
                | Value::Sized(..)
                | Value::Wide(..)
                | Value::Bool(_)
        )
    }

    /// The element type of a number value.
    pub fn number_elem(&self) -> Option<ElemType> {
        match self {
            Value::F64(_) => Some(ElemType::F64),
            Value::Int(_) => Some(ElemType::Int),
            Value::Bool(_) => Some(ElemType::Bool),
            _ => None,
        }
    }

    /// Julia's `===`: identity for mutable values, structural equality of bits otherwise
    /// (`NaN === NaN`, `0.0 !== -0.0`).
    pub fn egal(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::F64(a), Value::F64(b)) => a.to_bits() == b.to_bits(),
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Sized(k, a), Value::Sized(l, b)) => k == l && a == b,
            (Value::Wide(k, a), Value::Wide(l, b)) => k == l && a == b,
            (Value::F32(a), Value::F32(b)) => a.to_bits() == b.to_bits(),
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Nothing, Value::Nothing) => true,
            (Value::Tuple(a), Value::Tuple(b)) => all_egal(a, b),
            (Value::NamedTuple(na, a), Value::NamedTuple(nb, b)) => na == nb && all_egal(a, b),
            // One Julia type, whatever field types zy inferred for each value.
            (Value::Struct(ta, a), Value::Struct(tb, b)) => {
                ta.is(&tb.name, &tb.params) && all_egal(a, b)
            }
            (Value::Mutable(_, a), Value::Mutable(_, b)) => Rc::ptr_eq(a, b),
            (Value::Ref(a), Value::Ref(b)) => Rc::ptr_eq(a, b),
            (Value::Array(a), Value::Array(b)) => Rc::ptr_eq(a, b),
            (Value::Adjoint(a), Value::Adjoint(b)) => Rc::ptr_eq(a, b),
            (Value::Stack(a), Value::Stack(b)) => Rc::ptr_eq(a, b),
            (Value::Pullback(a), Value::Pullback(b)) => Rc::ptr_eq(a, b),
            (Value::Func(a), Value::Func(b))
            | (Value::Symbol(a), Value::Symbol(b))
            | (Value::Str(a), Value::Str(b))
            | (Value::SubStr(a), Value::SubStr(b)) => a == b,
            _ => false,
        }
    }
}

fn all_egal(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.egal(y))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_to_int_is_exact_or_nothing() {
        assert_eq!(f64_to_int(3.0), Some(3));
        assert_eq!(f64_to_int(-0.0), Some(0));
        assert_eq!(f64_to_int(2.5), None);
        assert_eq!(f64_to_int(f64::NAN), None);
        assert_eq!(f64_to_int(9_223_372_036_854_775_808.0), None);
        assert_eq!(f64_to_int(-9_223_372_036_854_775_808.0), Some(i64::MIN));
    }

    #[test]
    fn setting_converts_like_setindex() {
        let mut d = ArrayData::zeros(ElemType::F64, 2);
        d.set(1, &Value::Int(3)).unwrap();
        assert_eq!(d, ArrayData::F64(vec![0.0, 3.0]));
        let mut i = ArrayData::zeros(ElemType::Int, 1);
        assert_eq!(
            i.set(0, &Value::F64(2.5)),
            Err("InexactError: Int64(2.5)".to_string())
        );
        i.set(0, &Value::F64(-4.0)).unwrap();
        assert_eq!(i, ArrayData::Int(vec![-4]));
    }

    #[test]
    fn egal_compares_bits_and_identity() {
        assert!(Value::F64(f64::NAN).egal(&Value::F64(f64::NAN)));
        assert!(!Value::F64(0.0).egal(&Value::F64(-0.0)));
        let a = Value::vector_f64(vec![1.0]);
        let b = Value::vector_f64(vec![1.0]);
        assert!(a.egal(&a.clone()));
        assert!(!a.egal(&b));
    }
}
