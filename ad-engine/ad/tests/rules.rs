//! Every rule through `test_rule`, at several points.

mod common;

use common::rule::{test_rule, Arg};
use zy_interp::Value;
use zy_ir::{Const, Prim};

fn f(x: f64) -> Arg {
    Arg::V(Value::F64(x))
}

fn v(xs: &[f64]) -> Arg {
    Arg::V(Value::vector_f64(xs.to_vec()))
}

fn m(rows: usize, cols: usize, col_major: &[f64]) -> Arg {
    Arg::V(Value::matrix_f64(rows, cols, col_major.to_vec()).expect("shape"))
}

fn c(i: i64) -> Arg {
    Arg::C(Const::Int(i))
}

#[test]
fn scalar_unary() {
    use Prim::*;
    for p in [Neg, Sin, Cos, Tan, Exp, Sinh, Cosh, Tanh, Atan, Abs] {
        for x in [-1.3, -0.2, 0.4, 1.7] {
            test_rule(p, &[f(x)]);
        }
    }
    for p in [Log, Sqrt, Log1p] {
        for x in [0.3, 1.0, 2.5] {
            test_rule(p, &[f(x)]);
        }
    }
    for p in [Asin, Acos] {
        for x in [-0.7, 0.1, 0.6] {
            test_rule(p, &[f(x)]);
        }
    }
}

#[test]
fn scalar_binary() {
    use Prim::*;
    for p in [Add, Sub, Mul, Div, Max, Min, Rem] {
        for (a, b) in [(1.5, -0.7), (-2.2, 0.9), (0.3, 2.4)] {
            test_rule(p, &[f(a), f(b)]);
        }
    }
    for (a, b) in [(1.5, 2.0), (0.7, 0.5), (2.0, -1.5)] {
        test_rule(Pow, &[f(a), f(b)]);
    }
    for (a, n) in [(1.5, 3), (-0.7, 2), (2.0, 0), (1.3, -2)] {
        test_rule(Pow, &[f(a), Arg::V(Value::Int(n))]);
    }
}

#[test]
fn arrays() {
    for (xs, ys) in [
        ([1.5, -2.0, 0.5], [0.3, 0.7, -1.1]),
        ([-0.4, 2.5, 1.25], [1.0, -0.5, 2.0]),
    ] {
        arrays_at(&xs, &ys);
    }
}

fn arrays_at(xs: &[f64], ys: &[f64]) {
    use Prim::*;
    let x = || v(xs);
    let y = || v(ys);
    for p in [Sum, Prod, Maximum, Minimum, Copy, First, Last] {
        test_rule(p, &[x()]);
    }
    test_rule(Prod, &[v(&[1.5, 0.0, 2.0])]);
    test_rule(Dot, &[x(), y()]);
    test_rule(GetIndex, &[x(), c(2)]);
    test_rule(SetIndex, &[x(), f(4.0), c(3)]);
    test_rule(Vect, &[f(1.0), f(-2.0), f(3.5)]);
    test_rule(Fill, &[f(0.7), c(3)]);
    let a = || m(2, 3, &[1.0, -2.0, 0.5, 3.0, 1.5, -0.5]);
    test_rule(GetIndex, &[a(), c(2), c(3)]);
    test_rule(SetIndex, &[a(), f(9.0), c(1), c(2)]);
    test_rule(MatMul, &[a(), x()]);
    test_rule(MatMul, &[a(), m(3, 2, &[1.0, 0.5, -1.0, 2.0, 0.0, 1.5])]);
    test_rule(Transpose, &[a()]);
    test_rule(Adjoint, &[a()]);
    test_rule(Hvcat, &[c(2), c(2), f(1.0), f(2.0), f(3.0), f(4.0)]);
}

#[test]
fn broadcasts() {
    let x = || v(&[1.5, -2.0, 0.5]);
    let y = || v(&[0.3, 0.7, -1.1]);
    let b = |name: &str| Arg::C(Const::Func(name.into()));
    for name in ["+", "-", "*", "/", "max"] {
        test_rule(Prim::Broadcast, &[b(name), x(), y()]);
        test_rule(Prim::Broadcast, &[b(name), x(), f(0.8)]);
        test_rule(Prim::Broadcast, &[b(name), f(-1.2), y()]);
    }
    for name in ["sin", "exp", "tanh", "abs", "-"] {
        test_rule(Prim::Broadcast, &[b(name), x()]);
    }
    test_rule(
        Prim::Broadcast,
        &[b("^"), v(&[1.5, 2.0, 0.5]), Arg::V(Value::Int(3))],
    );
}

#[test]
fn data() {
    use Prim::*;
    let r = |x: f64| Arg::V(Value::new_ref(Value::F64(x)));
    for x in [-0.5, 1.5] {
        test_rule(RefNew, &[f(x)]);
        test_rule(RefGet, &[r(x)]);
        test_rule(RefSet, &[r(x), f(2.0 * x + 1.0)]);
    }
    test_rule(Tuple, &[f(1.0), f(2.0)]);
    let t = Arg::V(Value::tuple([
        Value::F64(1.5),
        Value::F64(-0.5),
        Value::F64(2.0),
    ]));
    test_rule(GetField, &[t.clone(), c(2)]);
    test_rule(TupleIndex, &[t, Arg::V(Value::Int(3))]);
}
