//! Primitive semantics against hand-computed Julia results.

// One-element operand lists read better as `&[x.clone()]` than as `slice::from_ref(&x)`.
#![allow(clippy::cloned_ref_to_slice_refs)]

use std::sync::Arc;

use zy_ir::{Prim, StructKind, StructType, Type};

use super::eval_prim;
use crate::show::show;
use crate::value::{Array, ArrayData, Shape, Value};

use Prim::*;

fn ev(p: Prim, args: &[Value]) -> Result<Value, String> {
    eval_prim(p, args, &Type::Any)
}

/// The result printed as Julia's `show`, or the error message.
fn run(p: Prim, args: &[Value]) -> String {
    match ev(p, args) {
        Ok(v) => show(&v),
        Err(e) => e,
    }
}

fn run_typed(p: Prim, args: &[Value], ret: &Type) -> String {
    match eval_prim(p, args, ret) {
        Ok(v) => show(&v),
        Err(e) => e,
    }
}

fn f(x: f64) -> Value {
    Value::F64(x)
}

fn i(x: i64) -> Value {
    Value::Int(x)
}

fn b(x: bool) -> Value {
    Value::Bool(x)
}

fn vf(xs: &[f64]) -> Value {
    Value::vector_f64(xs.to_vec())
}

fn vi(xs: &[i64]) -> Value {
    Array::new(Shape::Vector(xs.len()), ArrayData::Int(xs.to_vec())).into_value()
}

/// A matrix from its rows, through `hvcat` (row-major input).
fn mat(rows: &[&[f64]]) -> Value {
    let mut args = vec![i(rows.len() as i64), i(rows[0].len() as i64)];
    args.extend(rows.iter().flat_map(|r| r.iter().map(|&x| f(x))));
    ev(Hvcat, &args).unwrap()
}

fn adjoint(v: &Value) -> Value {
    ev(Adjoint, std::slice::from_ref(v)).unwrap()
}

fn func(name: &str) -> Value {
    Value::Func(name.into())
}

#[test]
fn int_arithmetic_wraps() {
    assert_eq!(run(Add, &[i(i64::MAX), i(1)]), "-9223372036854775808");
    assert_eq!(run(Mul, &[i(i64::MIN), i(-1)]), "-9223372036854775808");
    assert_eq!(run(Sub, &[i(i64::MIN), i(1)]), "9223372036854775807");
    assert_eq!(run(Neg, &[i(i64::MIN)]), "-9223372036854775808");
    assert_eq!(run(Abs, &[i(i64::MIN)]), "-9223372036854775808");
    assert_eq!(run(Add, &[b(true), b(true)]), "2");
    assert_eq!(run(Mul, &[b(false), f(f64::NAN)]), "0.0");
}

#[test]
fn division_and_remainder() {
    assert_eq!(run(Div, &[i(7), i(2)]), "3.5");
    assert_eq!(run(Div, &[f(1.0), f(0.0)]), "Inf");
    assert_eq!(run(IntDiv, &[i(7), i(2)]), "3");
    assert_eq!(run(IntDiv, &[i(-7), i(2)]), "-3");
    assert_eq!(
        run(IntDiv, &[i(1), i(0)]),
        "DivideError: integer division error"
    );
    assert_eq!(
        run(IntDiv, &[i(i64::MIN), i(-1)]),
        "DivideError: integer division error"
    );
    assert_eq!(run(IntDiv, &[f(7.5), f(2.0)]), "3.0");
    assert_eq!(run(IntDiv, &[f(-7.5), f(2.0)]), "-3.0");
    assert_eq!(run(Rem, &[i(-7), i(3)]), "-1");
    assert_eq!(run(Rem, &[i(7), i(-3)]), "1");
    assert_eq!(
        run(Rem, &[i(5), i(0)]),
        "DivideError: integer division error"
    );
    assert_eq!(run(Rem, &[i(i64::MIN), i(-1)]), "0");
    assert_eq!(run(Rem, &[f(-7.5), f(2.0)]), "-1.5");
}

#[test]
fn integer_powers() {
    assert_eq!(run(Pow, &[i(2), i(10)]), "1024");
    assert_eq!(run(Pow, &[i(3), i(40)]), "-6289078614652622815");
    assert_eq!(run(Pow, &[i(2), i(0)]), "1");
    assert_eq!(run(Pow, &[i(1), i(-5)]), "1");
    assert_eq!(run(Pow, &[i(-1), i(-3)]), "-1");
    assert_eq!(run(Pow, &[i(-1), i(-4)]), "1");
    // A literal negative exponent, typed Float64 by inference: `2^-1 == 0.5` in Julia.
    assert_eq!(run_typed(Pow, &[i(2), i(-1)], &Type::Float64), "0.5");
    assert_eq!(run_typed(Pow, &[i(2), i(-2)], &Type::Float64), "0.25");
    assert_eq!(run_typed(Pow, &[i(-2), i(-3)], &Type::Float64), "-0.125");
    let err = run(Pow, &[i(2), i(-1)]);
    assert!(
        err.starts_with("DomainError with -1: Cannot raise an integer x to a negative power -1."),
        "{err}"
    );
}

#[test]
fn float_powers() {
    assert_eq!(run(Pow, &[f(-2.0), i(3)]), "-8.0");
    assert_eq!(run(Pow, &[f(2.0), i(-2)]), "0.25");
    assert_eq!(run(Pow, &[f(1.1), i(2)]), show(&f(1.1 * 1.1)));
    assert_eq!(run(Pow, &[f(f64::NAN), i(0)]), "1.0");
    assert_eq!(run(Pow, &[f(2.0), f(0.5)]), "1.4142135623730951");
    assert_eq!(run(Pow, &[f(-2.0), f(2.0)]), "4.0");
    assert_eq!(run(Pow, &[f(1.0), f(f64::NAN)]), "1.0");
    assert_eq!(run(Pow, &[f(0.0), f(-1.0)]), "Inf");
    assert_eq!(run(Pow, &[f(0.0), f(0.5)]), "0.0");
    assert_eq!(
        run(Pow, &[f(-8.0), f(1.0 / 3.0)]),
        "DomainError with -8.0: Exponentiation yielding a complex result requires a complex \
         argument. Replace x^y with (x+0im)^y, Complex(x)^y, or similar."
    );
    // Power by squaring with compensation: exact for exactly representable results.
    assert_eq!(run(Pow, &[f(3.0), i(30)]), "2.05891132094649e14");
    assert_eq!(run(Pow, &[f(10.0), i(-3)]), "0.001");
}

#[test]
fn comparisons_follow_ieee_and_compare_ints_with_floats_exactly() {
    let nan = f(f64::NAN);
    assert_eq!(run(Ne, &[nan.clone(), nan.clone()]), "true");
    assert_eq!(run(Eq, &[nan.clone(), nan.clone()]), "false");
    assert_eq!(run(Lt, &[nan.clone(), f(1.0)]), "false");
    assert_eq!(run(Ge, &[nan, f(1.0)]), "false");
    assert_eq!(run(Eq, &[f(-0.0), f(0.0)]), "true");
    assert_eq!(
        run(Eq, &[i((1 << 53) + 1), f(9_007_199_254_740_992.0)]),
        "false"
    );
    assert_eq!(
        run(Lt, &[f(9_007_199_254_740_992.0), i((1 << 53) + 1)]),
        "true"
    );
    assert_eq!(run(Lt, &[i(1), f(1.5)]), "true");
    assert_eq!(run(Le, &[i(2), i(2)]), "true");
    assert_eq!(run(Gt, &[i(0), f(-0.5)]), "true");
    assert_eq!(run(Eq, &[i(3), f(3.0)]), "true");
    assert_eq!(run(Not, &[b(true)]), "false");
    assert_eq!(
        run(Not, &[i(1)]),
        "MethodError: no method matching !(::Int64)"
    );
}

#[test]
fn structural_equality() {
    assert_eq!(
        run(
            Eq,
            &[Value::tuple([f(1.0), i(2)]), Value::tuple([i(1), f(2.0)])]
        ),
        "true"
    );
    assert_eq!(run(Eq, &[vf(&[1.0, 2.0]), vf(&[1.0, 2.0])]), "true");
    assert_eq!(
        run(Eq, &[vf(&[1.0, f64::NAN]), vf(&[1.0, f64::NAN])]),
        "false"
    );
    assert_eq!(run(Eq, &[vf(&[1.0, 2.0]), mat(&[&[1.0, 2.0]])]), "false");
    assert_eq!(
        run(Eq, &[adjoint(&vf(&[1.0, 2.0])), mat(&[&[1.0, 2.0]])]),
        "true"
    );
    assert_eq!(run(Eq, &[Value::Nothing, f(0.0)]), "false");
    assert_eq!(
        run(Lt, &[vf(&[1.0]), vf(&[2.0])]),
        "MethodError: no method matching <(::Vector{Float64}, ::Vector{Float64})"
    );
}

#[test]
fn rounding_sign_max_min() {
    assert_eq!(run(Round, &[f(2.5)]), "2.0");
    assert_eq!(run(Round, &[f(3.5)]), "4.0");
    assert_eq!(run(Round, &[f(-0.5)]), "-0.0");
    assert_eq!(run(Floor, &[f(-1.5)]), "-2.0");
    assert_eq!(run(Ceil, &[f(-1.5)]), "-1.0");
    assert_eq!(run(Floor, &[i(3)]), "3");
    assert_eq!(run(Sign, &[f(-2.0)]), "-1.0");
    assert_eq!(run(Sign, &[f(-0.0)]), "-0.0");
    assert_eq!(run(Sign, &[f(f64::NAN)]), "NaN");
    assert_eq!(run(Sign, &[i(-3)]), "-1");
    assert_eq!(run(Max, &[f(f64::NAN), f(1.0)]), "NaN");
    assert_eq!(run(Max, &[f(1.0), f(f64::NAN)]), "NaN");
    assert_eq!(run(Min, &[f(f64::NAN), f(1.0)]), "NaN");
    assert_eq!(run(Max, &[f(-0.0), f(0.0)]), "0.0");
    assert_eq!(run(Max, &[f(0.0), f(-0.0)]), "0.0");
    assert_eq!(run(Min, &[f(0.0), f(-0.0)]), "-0.0");
    assert_eq!(run(Max, &[i(2), i(3)]), "3");
    assert_eq!(run(Min, &[i(2), f(3.0)]), "2.0");
}

#[test]
fn elementary_functions_and_domain_errors() {
    assert_eq!(run(Sqrt, &[i(4)]), "2.0");
    assert_eq!(run(Exp, &[f(0.0)]), "1.0");
    assert_eq!(run(Log, &[f(0.0)]), "-Inf");
    assert_eq!(run(Log, &[f(-0.0)]), "-Inf");
    assert_eq!(run(Sqrt, &[f(-0.0)]), "-0.0");
    assert_eq!(run(Sqrt, &[f(f64::NAN)]), "NaN");
    assert_eq!(
        run(Atan, &[f(1.0), f(1.0)]),
        show(&f(std::f64::consts::FRAC_PI_4))
    );
    assert_eq!(run(Abs, &[f(-0.0)]), "0.0");
    assert_eq!(
        run(Sqrt, &[f(-1.0)]),
        "DomainError with -1.0: sqrt was called with a negative real argument but will only \
         return a complex result if called with a complex argument. Try sqrt(Complex(x))."
    );
    assert_eq!(
        run(Log, &[f(-1.0)]),
        "DomainError with -1.0: log was called with a negative real argument but will only \
         return a complex result if called with a complex argument. Try log(Complex(x))."
    );
    assert_eq!(
        run(Log1p, &[f(-2.0)]),
        "DomainError with -2.0: log1p was called with a real argument < -1 but will only \
         return a complex result if called with a complex argument. Try log1p(Complex(x))."
    );
    assert_eq!(run(Log1p, &[f(-1.0)]), "-Inf");
    assert_eq!(
        run(Asin, &[f(2.0)]),
        "DomainError with 2.0: asin(x) is not defined for |x| > 1."
    );
    assert_eq!(
        run(Acos, &[f(-1.5)]),
        "DomainError with -1.5: acos(x) not defined for |x| > 1"
    );
    assert_eq!(run(Asin, &[f(1.0)]), show(&f(std::f64::consts::FRAC_PI_2)));
    assert_eq!(
        run(Sin, &[f(f64::INFINITY)]),
        "DomainError with Inf: sin(x) is only defined for finite x."
    );
    assert_eq!(run(Sin, &[f(f64::NAN)]), "NaN");
    assert_eq!(
        run(Sin, &[vf(&[1.0])]),
        "MethodError: no method matching sin(::Vector{Float64})"
    );
}

#[test]
fn elementary_functions_at_exact_points() {
    assert_eq!(run(Exp, &[f(0.0)]), "1.0");
    assert_eq!(run(Cos, &[f(0.0)]), "1.0");
    assert_eq!(run(Cosh, &[f(0.0)]), "1.0");
    assert_eq!(run(Sinh, &[f(-0.0)]), "-0.0");
    assert_eq!(run(Tanh, &[f(f64::INFINITY)]), "1.0");
    assert_eq!(run(Tan, &[f(0.0)]), "0.0");
    assert_eq!(
        run(Atan, &[f(f64::INFINITY)]),
        show(&f(std::f64::consts::FRAC_PI_2))
    );
    assert_eq!(run(Acos, &[f(-1.0)]), show(&f(std::f64::consts::PI)));
    // log1p keeps digits that log(1 + x) loses.
    assert_eq!(run(Log1p, &[f(1e-20)]), "1.0e-20");
    assert_eq!(run(Log, &[f(1.0 + 1e-20)]), "0.0");
    assert_eq!(run(Sqrt, &[f(2.25)]), "1.5");
}

#[test]
fn conversions() {
    assert_eq!(run(Float, &[i(3)]), "3.0");
    assert_eq!(run(Float, &[b(true)]), "1.0");
    assert_eq!(run(ToInt, &[f(3.0)]), "3");
    assert_eq!(run(ToInt, &[f(-0.0)]), "0");
    assert_eq!(run(ToInt, &[f(2.5)]), "InexactError: Int64(2.5)");
    assert_eq!(run(ToInt, &[f(f64::NAN)]), "InexactError: Int64(NaN)");
    assert_eq!(run(ToInt, &[f(1e19)]), "InexactError: Int64(1.0e19)");
    assert_eq!(run(ToInt, &[b(true)]), "1");
    assert_eq!(run(Zero, &[f(2.5)]), "0.0");
    assert_eq!(run(One, &[i(7)]), "1");
    assert_eq!(run(Zero, &[mat(&[&[1.0, 2.0]])]), "[0.0 0.0]");
    assert_eq!(
        run(One, &[mat(&[&[1.0, 2.0], &[3.0, 4.0]])]),
        "[1.0 0.0; 0.0 1.0]"
    );
    assert_eq!(
        run(One, &[mat(&[&[1.0, 2.0]])]),
        "DimensionMismatch: multiplicative identity defined only for square matrices"
    );
    let x = vf(&[1.0]);
    assert!(
        ev(Float, std::slice::from_ref(&x)).unwrap().egal(&x),
        "float of a Float64 array is itself"
    );
    assert_eq!(run(Float, &[vi(&[1, 2])]), "[1.0, 2.0]");
}

#[test]
fn matrix_literal_is_stored_column_major() {
    let m = mat(&[&[1.0, 2.0], &[3.0, 4.0]]);
    let Value::Array(a) = &m else {
        panic!("not an array")
    };
    assert_eq!(a.borrow().data, ArrayData::F64(vec![1.0, 3.0, 2.0, 4.0]));
    assert_eq!(show(&m), "[1.0 2.0; 3.0 4.0]");
    // Linear indexing walks columns.
    assert_eq!(run(GetIndex, &[m.clone(), i(2)]), "3.0");
    assert_eq!(run(GetIndex, &[m.clone(), i(3)]), "2.0");
    assert_eq!(run(GetIndex, &[m.clone(), i(1), i(2)]), "2.0");
    let ints = ev(Hvcat, &[i(1), i(2), i(1), i(2)]).unwrap();
    assert_eq!(show(&ints), "[1 2]");
    let mixed = ev(Hvcat, &[i(1), i(2), i(1), f(2.5)]).unwrap();
    assert_eq!(show(&mixed), "[1.0 2.5]");
}

#[test]
fn bounds_errors() {
    let x = vf(&[1.0, 2.0, 3.0]);
    assert_eq!(
        run(GetIndex, &[x.clone(), i(4)]),
        "BoundsError: attempt to access 3-element Vector{Float64} at index [4]"
    );
    assert_eq!(
        run(GetIndex, &[x.clone(), i(0)]),
        "BoundsError: attempt to access 3-element Vector{Float64} at index [0]"
    );
    assert_eq!(run(GetIndex, &[x.clone(), i(2), i(1)]), "2.0");
    let m = mat(&[&[1.0, 2.0], &[3.0, 4.0]]);
    assert_eq!(
        run(GetIndex, &[m.clone(), i(3), i(1)]),
        "BoundsError: attempt to access 2×2 Matrix{Float64} at index [3, 1]"
    );
    assert_eq!(
        run(GetIndex, &[m.clone(), i(5)]),
        "BoundsError: attempt to access 2×2 Matrix{Float64} at index [5]"
    );
    assert_eq!(
        run(SetIndex, &[x.clone(), f(1.0), i(4)]),
        "BoundsError: attempt to access 3-element Vector{Float64} at index [4]"
    );
    assert_eq!(
        run(GetIndex, &[x.clone(), f(1.0)]),
        "ArgumentError: invalid index: 1.0 of type Float64"
    );
    assert_eq!(
        run(GetIndex, &[x, b(true)]),
        "ArgumentError: invalid index: true of type Bool"
    );
    assert_eq!(
        run(TupleIndex, &[Value::tuple([f(1.0), f(2.0)]), i(3)]),
        "BoundsError: attempt to access Tuple{Float64, Float64} at index [3]"
    );
    assert_eq!(run(TupleIndex, &[Value::tuple([f(1.0), i(2)]), i(2)]), "2");
    let row = adjoint(&vf(&[1.0, 2.0]));
    assert_eq!(run(GetIndex, &[row.clone(), i(1), i(2)]), "2.0");
    assert_eq!(
        run(GetIndex, &[row, i(2), i(1)]),
        "BoundsError: attempt to access 1×2 adjoint(::Vector{Float64}) with eltype Float64 at index [2, 1]"
    );
}

#[test]
fn setindex_converts_and_returns_the_value() {
    let x = vf(&[1.0, 2.0]);
    assert_eq!(run(SetIndex, &[x.clone(), i(5), i(1)]), "5");
    assert_eq!(show(&x), "[5.0, 2.0]");
    let m = mat(&[&[1.0, 2.0], &[3.0, 4.0]]);
    ev(SetIndex, &[m.clone(), f(9.0), i(1), i(2)]).unwrap();
    assert_eq!(show(&m), "[1.0 9.0; 3.0 4.0]");
    let n = vi(&[1, 2]);
    assert_eq!(
        run(SetIndex, &[n.clone(), f(2.5), i(1)]),
        "InexactError: Int64(2.5)"
    );
    ev(SetIndex, &[n.clone(), f(7.0), i(1)]).unwrap();
    assert_eq!(show(&n), "[7, 2]");
}

#[test]
fn construction_and_shapes() {
    assert_eq!(run(Vect, &[f(1.0), i(2)]), "[1.0, 2.0]");
    assert_eq!(run(Vect, &[i(1), i(2)]), "[1, 2]");
    assert_eq!(
        eval_prim(Vect, &[], &Type::vector_f64()).map(|v| show(&v)),
        Ok("Float64[]".into())
    );
    assert_eq!(run(Zeros, &[i(2), i(3)]), "[0.0 0.0 0.0; 0.0 0.0 0.0]");
    assert_eq!(run(Ones, &[i(2)]), "[1.0, 1.0]");
    assert_eq!(
        run(Zeros, &[i(-1)]),
        "ArgumentError: invalid Array dimensions"
    );
    assert_eq!(run(Zeros, &[i(1 << 40)]), "OutOfMemoryError()");
    assert_eq!(run(Fill, &[i(7), i(2)]), "[7, 7]");
    assert_eq!(run(Fill, &[f(1.5), i(1), i(2)]), "[1.5 1.5]");
    let m = mat(&[&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]]);
    assert_eq!(run(Size, &[m.clone()]), "(2, 3)");
    assert_eq!(run(Size, &[m.clone(), i(2)]), "3");
    assert_eq!(run(Size, &[m.clone(), i(3)]), "1");
    assert_eq!(run(Length, &[m.clone()]), "6");
    assert_eq!(run(Size, &[adjoint(&vf(&[1.0, 2.0]))]), "(1, 2)");
    assert_eq!(run(Length, &[Value::tuple([f(1.0), i(2)])]), "2");
    assert_eq!(run(Similar, &[m.clone()]), "[0.0 0.0 0.0; 0.0 0.0 0.0]");
    let c = ev(Copy, std::slice::from_ref(&m)).unwrap();
    ev(SetIndex, &[c.clone(), f(0.0), i(1)]).unwrap();
    assert_eq!(
        show(&m),
        "[1.0 2.0 3.0; 4.0 5.0 6.0]",
        "a copy is a new array"
    );
    assert_eq!(show(&c), "[0.0 2.0 3.0; 4.0 5.0 6.0]");
    assert_eq!(run(First, &[m.clone()]), "1.0");
    assert_eq!(run(Last, &[m]), "6.0");
    assert_eq!(
        run(First, &[vf(&[])]),
        "BoundsError: attempt to access 0-element Vector{Float64} at index [1]"
    );
    assert_eq!(run(Last, &[Value::tuple([i(1), f(2.0)])]), "2.0");
}

#[test]
fn reductions() {
    assert_eq!(run(Sum, &[vf(&[0.1, 0.2, 0.3])]), "0.6000000000000001");
    assert_eq!(run(Sum, &[vf(&[])]), "0.0");
    assert_eq!(run(Sum, &[vf(&[-0.0])]), "-0.0");
    assert_eq!(run(Sum, &[vi(&[i64::MAX, 1])]), "-9223372036854775808");
    let bools = Array::new(Shape::Vector(3), ArrayData::Bool(vec![true, false, true])).into_value();
    assert_eq!(run(Sum, &[bools]), "2");
    assert_eq!(run(Prod, &[vf(&[2.0, 3.0, 0.5])]), "3.0");
    assert_eq!(run(Prod, &[vf(&[])]), "1.0");
    assert_eq!(run(Maximum, &[vf(&[1.0, f64::NAN, 3.0])]), "NaN");
    assert_eq!(run(Maximum, &[vf(&[-0.0, 0.0])]), "0.0");
    assert_eq!(run(Minimum, &[vf(&[-0.0, 0.0])]), "-0.0");
    assert_eq!(run(Minimum, &[vi(&[3, -2, 5])]), "-2");
    assert_eq!(
        run(Maximum, &[vf(&[])]),
        "ArgumentError: reducing over an empty collection is not allowed; consider supplying \
         `init` to the reducer"
    );
    assert_eq!(run(Sum, &[Value::tuple([i(1), f(2.5)])]), "3.5");
    assert_eq!(run(Sum, &[mat(&[&[1.0, 2.0], &[3.0, 4.0]])]), "10.0");
    // 2000 copies of 0.1: pairwise (1000 + 1000, each one block) differs from a left fold.
    let xs = vec![0.1; 2000];
    let half = crate::sum_f64(&xs[..1000]);
    assert_eq!(run(Sum, &[vf(&xs)]), show(&f(half + half)));
    assert_ne!(half + half, xs.iter().fold(0.0, |a, b| a + b));
}

#[test]
fn products_of_every_shape() {
    let m = mat(&[&[1.0, 2.0], &[3.0, 4.0]]);
    let x = vf(&[1.0, 1.0]);
    assert_eq!(run(MatMul, &[m.clone(), x.clone()]), "[3.0, 7.0]");
    assert_eq!(
        run(MatMul, &[m.clone(), m.clone()]),
        "[7.0 10.0; 15.0 22.0]"
    );
    assert_eq!(run(MatMul, &[adjoint(&x), vf(&[2.0, 3.0])]), "5.0");
    let row = ev(MatMul, &[adjoint(&x), m.clone()]).unwrap();
    assert!(
        matches!(row, Value::Adjoint(_)),
        "row times matrix is a row"
    );
    assert_eq!(show(&row), "[4.0 6.0]");
    assert_eq!(
        run(MatMul, &[vf(&[1.0, 2.0]), adjoint(&vf(&[3.0, 4.0, 5.0]))]),
        "[3.0 4.0 5.0; 6.0 8.0 10.0]"
    );
    assert_eq!(run(MatMul, &[f(2.0), x.clone()]), "[2.0, 2.0]");
    assert_eq!(
        run(MatMul, &[m.clone(), vf(&[1.0, 2.0, 3.0])]),
        "DimensionMismatch: matrix A has dimensions (2,2), vector B has length 3"
    );
    assert_eq!(
        run(MatMul, &[m.clone(), mat(&[&[1.0, 2.0, 3.0]])]),
        "DimensionMismatch: matrix A has dimensions (2,2), matrix B has dimensions (1,3)"
    );
    assert_eq!(
        run(MatMul, &[adjoint(&x), vf(&[1.0])]),
        "DimensionMismatch: dot product arguments have lengths 2 and 1"
    );
    assert_eq!(
        run(MatMul, &[x.clone(), x.clone()]),
        "MethodError: no method matching *(::Vector{Float64}, ::Vector{Float64})"
    );
    assert_eq!(run(Mul, &[m.clone(), x]), "[3.0, 7.0]");
    let ints = ev(Hvcat, &[i(1), i(2), i(2), i(3)]).unwrap();
    assert_eq!(run(MatMul, &[ints, vi(&[4, 5])]), "[23]");
    assert_eq!(run(Dot, &[vf(&[1.0, 2.0]), vf(&[3.0, 4.0])]), "11.0");
    assert_eq!(
        run(Dot, &[vf(&[1.0, 2.0]), vf(&[3.0])]),
        "DimensionMismatch: dot product arguments have lengths 2 and 1"
    );
}

#[test]
fn transposes() {
    let m = mat(&[&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]]);
    assert_eq!(run(Transpose, &[m.clone()]), "[1.0 4.0; 2.0 5.0; 3.0 6.0]");
    assert_eq!(run(Adjoint, &[f(2.0)]), "2.0");
    // A row vector is a view: mutating the vector shows through it, as in Julia.
    let x = vf(&[1.0, 2.0]);
    let row = adjoint(&x);
    ev(SetIndex, &[x.clone(), f(9.0), i(2)]).unwrap();
    assert_eq!(show(&row), "[1.0 9.0]");
    let back = adjoint(&row);
    assert!(back.egal(&x), "x'' is x");
}

#[test]
fn array_arithmetic() {
    let x = vf(&[1.0, 2.0]);
    assert_eq!(run(Add, &[x.clone(), vf(&[10.0, 20.0])]), "[11.0, 22.0]");
    assert_eq!(run(Sub, &[x.clone(), x.clone()]), "[0.0, 0.0]");
    assert_eq!(run(Mul, &[f(2.0), x.clone()]), "[2.0, 4.0]");
    assert_eq!(run(Mul, &[x.clone(), i(3)]), "[3.0, 6.0]");
    assert_eq!(run(Div, &[x.clone(), f(2.0)]), "[0.5, 1.0]");
    assert_eq!(run(Neg, &[x.clone()]), "[-1.0, -2.0]");
    assert_eq!(
        run(Add, &[x.clone(), vf(&[1.0, 2.0, 3.0])]),
        "DimensionMismatch: dimensions must match: a has dims (Base.OneTo(2),), b has dims \
         (Base.OneTo(3),), mismatch at 1"
    );
    assert_eq!(
        run(Add, &[x, f(1.0)]),
        "MethodError: no method matching +(::Vector{Float64}, ::Float64)"
    );
}

#[test]
fn broadcasting() {
    let x = vf(&[1.0, 4.0]);
    assert_eq!(run(Broadcast, &[func("sqrt"), x.clone()]), "[1.0, 2.0]");
    assert_eq!(run(Broadcast, &[func("+"), x.clone(), i(1)]), "[2.0, 5.0]");
    assert_eq!(run(Broadcast, &[func("^"), x.clone(), i(2)]), "[1.0, 16.0]");
    assert_eq!(run(Broadcast, &[func("-"), x.clone()]), "[-1.0, -4.0]");
    assert_eq!(
        run(Broadcast, &[func("/"), vi(&[1, 2]), i(2)]),
        "[0.5, 1.0]"
    );
    assert_eq!(
        run(Broadcast, &[func(">"), x.clone(), f(2.0)]),
        "Bool[0, 1]"
    );
    assert_eq!(run(Broadcast, &[func("*"), f(2.0), f(3.0)]), "6.0");
    assert_eq!(
        run(Broadcast, &[func("*"), x.clone(), vf(&[1.0, 2.0, 3.0])]),
        "DimensionMismatch: arrays could not be broadcast to a common size; got a dimension \
         with lengths 2 and 3"
    );
    // A vector broadcasts along the columns of a matrix.
    let m = mat(&[&[10.0, 20.0], &[30.0, 40.0]]);
    assert_eq!(
        run(Broadcast, &[func("+"), vf(&[1.0, 2.0]), m]),
        "[11.0 21.0; 32.0 42.0]"
    );
    let row = ev(Broadcast, &[func("*"), adjoint(&x), f(2.0)]).unwrap();
    assert!(matches!(row, Value::Adjoint(_)));
    assert_eq!(show(&row), "[2.0 8.0]");
    assert_eq!(
        run(Broadcast, &[func("sqrt"), vf(&[-1.0])]),
        "DomainError with -1.0: sqrt was called with a negative real argument but will only \
         return a complex result if called with a complex argument. Try sqrt(Complex(x))."
    );
    assert_eq!(
        run(Broadcast, &[func("f"), x]),
        "unsupported: broadcasting `f` (only scalar builtins)"
    );
}

fn point_type(mutable: bool) -> Arc<StructType> {
    Arc::new(StructType {
        name: "Point".into(),
        params: vec![],
        fields: vec![("x".into(), Type::Float64), ("n".into(), Type::Int64)],
        mutable,
        kind: StructKind::User,
    })
}

#[test]
fn structs_tuples_and_refs() {
    let p = super::new_struct(&point_type(false), &[i(1), i(2)]).unwrap();
    assert_eq!(
        show(&p),
        "Point(1.0, 2)",
        "fields convert to their declared types"
    );
    assert_eq!(run(GetField, &[p.clone(), i(1)]), "1.0");
    assert_eq!(run(GetField, &[p.clone(), Value::Symbol("n".into())]), "2");
    assert_eq!(
        run(SetField, &[p.clone(), i(1), f(3.0)]),
        "ErrorException: setfield!: immutable struct of type Point cannot be changed"
    );
    assert_eq!(
        super::new_struct(&point_type(false), &[f(1.5), f(2.5)]).map(|v| show(&v)),
        Err("InexactError: Int64(2.5)".into())
    );
    let q = super::new_struct(&point_type(true), &[f(1.0), i(2)]).unwrap();
    let alias = q.clone();
    assert_eq!(run(SetField, &[q.clone(), i(1), i(5)]), "5");
    assert_eq!(
        show(&alias),
        "Point(5.0, 2)",
        "mutation is seen through an alias"
    );

    let names = Value::tuple([Value::Symbol("a".into()), Value::Symbol("b".into())]);
    let nt = ev(NamedTuple, &[names, f(1.0), Value::Nothing]).unwrap();
    assert_eq!(show(&nt), "(a = 1.0, b = nothing)");
    assert_eq!(run(GetField, &[nt, i(2)]), "nothing");
    assert_eq!(run(Tuple, &[f(12.0), Value::Nothing]), "(12.0, nothing)");

    let r = eval_prim(RefNew, &[i(1)], &Type::Ref(Arc::new(Type::Float64))).unwrap();
    assert_eq!(show(&r), "Base.RefValue{Float64}(1.0)");
    // A store holds what it is given: inference converts it to the content type first (a
    // `Ref{Any}` holds each number with its own type).
    assert_eq!(run(RefSet, &[r.clone(), f(3.0)]), "3.0");
    assert_eq!(run(RefGet, &[r.clone()]), "3.0");
    assert_eq!(run(GetIndex, &[r.clone()]), "3.0");
    let any = eval_prim(RefNew, &[i(1)], &Type::Ref(Arc::new(Type::Any))).unwrap();
    assert_eq!(run(RefSet, &[any.clone(), f(2.5)]), "2.5");
    assert_eq!(run(RefGet, &[any]), "2.5");
    ev(SetIndex, &[r.clone(), f(4.5)]).unwrap();
    assert_eq!(show(&r), "Base.RefValue{Float64}(4.5)");
}

#[test]
fn undefined_locals_and_errors() {
    let u = ev(Undef, &[Value::Symbol("x".into())]).unwrap();
    assert!(matches!(u, Value::Undef(_)));
    assert_eq!(
        run(Add, &[u.clone(), f(1.0)]),
        "UndefVarError: x not defined"
    );
    assert_eq!(run(Neg, &[u.clone()]), "UndefVarError: x not defined");
    // Storing it is fine (the AD's tape does); using what is read back is not.
    let t = ev(Tuple, &[u.clone(), f(1.0)]).unwrap();
    let back = ev(GetField, &[t, i(1)]).unwrap();
    assert_eq!(run(Sin, &[back]), "UndefVarError: x not defined");
    let stack = ev(StackNew, &[]).unwrap();
    assert_eq!(
        run(Push, &[stack.clone(), u]),
        "nothing",
        "the tape may carry an undefined local"
    );
    assert_eq!(
        run(Error, &[Value::Str("bad input".into())]),
        "ErrorException: bad input"
    );
    assert_eq!(
        run(Gradient, &[func("f"), f(1.0)]),
        "internal error: `gradient` is rewritten by the AD transform before the program runs, \
         but reached the interpreter"
    );
}

#[test]
fn range_lengths() {
    assert_eq!(run(RangeLength, &[i(1), i(1), i(10)]), "10");
    assert_eq!(run(RangeLength, &[i(1), i(2), i(10)]), "5");
    assert_eq!(run(RangeLength, &[i(10), i(-3), i(1)]), "4");
    assert_eq!(run(RangeLength, &[i(5), i(1), i(1)]), "0");
    assert_eq!(
        run(RangeLength, &[i(1), i(0), i(5)]),
        "ArgumentError: step cannot be zero"
    );
    assert!(run(RangeLength, &[i(i64::MIN), i(1), i(i64::MAX)]).starts_with("OverflowError"));
}

#[test]
fn tape_stacks_are_last_in_first_out() {
    let s = ev(StackNew, &[]).unwrap();
    ev(Push, &[s.clone(), f(1.0)]).unwrap();
    ev(Push, &[s.clone(), f(2.0)]).unwrap();
    assert_eq!(run(Pop, &[s.clone()]), "2.0");
    assert_eq!(run(Pop, &[s.clone()]), "1.0");
    assert_eq!(
        run(Pop, &[s]),
        "internal error: `pop!` from an empty AD stack"
    );
}

#[test]
fn fields_new_leaves_undefined() {
    let ty = Arc::new(StructType {
        name: "Acc".into(),
        params: vec![],
        fields: vec![
            ("w".into(), Type::Float64),
            ("v".into(), Type::vector_f64()),
        ],
        mutable: true,
        kind: StructKind::User,
    });
    let unset = ev(UndefField, &[]).unwrap();
    let a = super::new_struct(&ty, &[unset.clone(), unset.clone()]).unwrap();
    assert_eq!(show(&a), "Acc(#undef, #undef)");
    // A bits field is always defined to Julia, whose read of it is refused; an object field
    // is not, and reading it is Julia's UndefRefError.
    assert_eq!(run(IsDefinedField, &[a.clone(), i(1)]), "true");
    assert_eq!(run(IsDefinedField, &[a.clone(), i(2)]), "false");
    assert!(run(CheckField, &[a.clone(), i(1)])
        .starts_with("unsupported: reading the field `w` of a Acc that `new` left undefined"));
    assert_eq!(
        run(CheckField, &[a.clone(), i(2)]),
        "UndefRefError: access to undefined reference"
    );
    // Assigning defines it; the AD's undoing of that assignment undefines it again.
    ev(SetField, &[a.clone(), i(2), vf(&[1.0])]).unwrap();
    assert_eq!(run(IsDefinedField, &[a.clone(), i(2)]), "true");
    assert_eq!(run(CheckField, &[a.clone(), i(2)]), "nothing");
    ev(SetField, &[a.clone(), i(2), unset.clone()]).unwrap();
    assert_eq!(run(IsDefinedField, &[a.clone(), i(2)]), "false");
    // Using the unset value itself is the UndefRefError too.
    assert_eq!(
        run(Add, &[unset, f(1.0)]),
        "UndefRefError: access to undefined reference"
    );
}

fn dense() -> Value {
    let ty = Arc::new(StructType {
        name: "Dense".into(),
        params: vec![],
        fields: vec![
            ("W".into(), Type::matrix_f64()),
            ("b".into(), Type::vector_f64()),
        ],
        mutable: false,
        kind: StructKind::User,
    });
    super::new_struct(&ty, &[mat(&[&[1.0, 2.0]]), vf(&[0.5])]).unwrap()
}

#[test]
fn zero_tangents_take_shapes_from_the_operand() {
    assert_eq!(
        eval_prim(ZeroTangent, &[], &Type::Float64).map(|v| show(&v)),
        Ok("0.0".into())
    );
    assert_eq!(
        eval_prim(ZeroTangent, &[], &Type::Nothing).map(|v| show(&v)),
        Ok("nothing".into())
    );
    let z = eval_prim(ZeroTangent, &[vf(&[1.0, 2.0, 3.0])], &Type::vector_f64()).unwrap();
    assert_eq!(show(&z), "[0.0, 0.0, 0.0]");
    let d = dense();
    let t = zy_ir::tangent_type(&d.julia_type());
    assert_eq!(
        show(&eval_prim(ZeroTangent, &[d.clone()], &t).unwrap()),
        "(W = [0.0 0.0], b = [0.0])"
    );
    // With the type unknown, the operand's tangent type decides.
    let pair = Value::tuple([f(2.0), i(3)]);
    assert_eq!(run(ZeroTangent, &[pair]), "(0.0, nothing)");
    // Without an operand, arrays are empty; any type has a placeholder value.
    assert_eq!(
        run_typed(ZeroTangent, &[], &Type::vector_f64()),
        "Float64[]"
    );
    assert_eq!(
        run_typed(ZeroTangent, &[], &Type::matrix_f64()),
        "Matrix{Float64}(undef, 0, 0)"
    );
    assert_eq!(
        run_typed(ZeroTangent, &[], &d.julia_type()),
        "Dense(Matrix{Float64}(undef, 0, 0), Float64[])"
    );
    let r = Type::Ref(Arc::new(Type::Float64));
    assert_eq!(
        run_typed(ZeroTangent, &[], &r),
        "Base.RefValue{Float64}(0.0)"
    );
    // The shadow of a mutable struct is a Ref of its tangent, shaped by the struct.
    let m = super::new_struct(&point_type(true), &[f(1.0), i(2)]).unwrap();
    let shadow = Type::Ref(Arc::new(zy_ir::tangent_type(&m.julia_type())));
    assert_eq!(
        run_typed(ZeroTangent, &[m], &shadow),
        "Base.RefValue{@NamedTuple{x::Float64, n::Nothing}}((x = 0.0, n = nothing))"
    );
}

#[test]
fn tangent_parts_split_by_what_the_gradient_holds() {
    let part = |g: &Value, p: &str| ev(TangentPart, &[g.clone(), Value::Symbol(p.into())]);
    // An array is all shadow, the very object; a number all returned.
    let v = vf(&[1.0, 2.0]);
    let Ok(shadow) = part(&v, "fdata") else {
        panic!("no shadow part of an array");
    };
    assert!(shadow.egal(&v), "the shadow part is the array itself");
    assert_eq!(part(&v, "rdata").map(|v| show(&v)), Ok("nothing".into()));
    assert_eq!(
        part(&f(2.5), "fdata").map(|v| show(&v)),
        Ok("nothing".into())
    );
    assert_eq!(part(&f(2.5), "rdata").map(|v| show(&v)), Ok("2.5".into()));
    assert_eq!(
        part(&Value::Nothing, "rdata").map(|v| show(&v)),
        Ok("nothing".into())
    );
    // A tuple of both, part by part; all of one part, the other is `nothing`.
    let t = Value::tuple([f(1.5), vf(&[3.0])]);
    assert_eq!(
        run(TangentPart, &[t.clone(), Value::Symbol("fdata".into())]),
        "(nothing, [3.0])"
    );
    assert_eq!(
        run(TangentPart, &[t, Value::Symbol("rdata".into())]),
        "(1.5, nothing)"
    );
    let numbers = Value::tuple([f(1.5), f(2.0)]);
    assert_eq!(
        run(TangentPart, &[numbers, Value::Symbol("fdata".into())]),
        "nothing"
    );
    assert!(part(&f(1.0), "both").is_err());
}

#[test]
fn accumulation() {
    assert_eq!(run(Accum, &[Value::Nothing, f(2.0)]), "2.0");
    assert_eq!(run(Accum, &[f(2.0), Value::Nothing]), "2.0");
    assert_eq!(run(Accum, &[f(2.0), f(0.5)]), "2.5");
    let t1 = Value::tuple([f(1.0), Value::Nothing]);
    let t2 = Value::tuple([Value::Nothing, vf(&[1.0])]);
    assert_eq!(run(Accum, &[t1, t2]), "(1.0, [1.0])");
    let x = vf(&[1.0, 2.0]);
    let sum = ev(Accum, &[x.clone(), vf(&[0.5, 0.5])]).unwrap();
    assert_eq!(show(&sum), "[1.5, 2.5]");
    assert_eq!(show(&x), "[1.0, 2.0]", "accum builds a new array");
    let names: std::rc::Rc<[zy_ir::Name]> = vec!["W".into()].into();
    let n1 = Value::NamedTuple(names.clone(), vec![f(1.0)].into());
    let n2 = Value::NamedTuple(names, vec![f(2.0)].into());
    assert_eq!(run(Accum, &[n1, n2]), "(W = 3.0,)");
    assert!(run(Accum, &[vf(&[1.0]), vf(&[1.0, 2.0])]).starts_with("DimensionMismatch"));
}

#[test]
fn accumulation_in_place() {
    let d = vf(&[1.0, 2.0]);
    assert_eq!(run(AccumInto, &[d.clone(), vf(&[0.5, 0.25])]), "nothing");
    assert_eq!(show(&d), "[1.5, 2.25]");
    ev(AccumInto, &[d.clone(), f(1.0)]).unwrap();
    assert_eq!(show(&d), "[2.5, 3.25]");
    ev(AccumInto, &[d.clone(), d.clone()]).unwrap();
    assert_eq!(
        show(&d),
        "[5.0, 6.5]",
        "adding an array into itself doubles it"
    );
}

#[test]
fn make_pullback_names_its_instance() {
    let ty = Type::Pullback(vec![Type::Float64, Type::Float64].into());
    let back = eval_prim(MakePullback, &[func("f⁻"), i(0), f(3.0)], &ty).unwrap();
    let Value::Pullback(p) = &back else {
        panic!("not a pullback")
    };
    assert_eq!(p.instance.to_string(), "f⁻(::Float64, ::Float64)");
    assert_eq!(show(&back), "pullback(f⁻)");
}
