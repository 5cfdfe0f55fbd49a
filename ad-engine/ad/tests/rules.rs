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

/// `p(args...)` has value `y` and, per `V` argument, the gradient entries `g` (a number or an
/// array's entries; an Int argument has none), on both engines. NaN matches NaN; the sign of
/// a zero counts.
fn at(p: Prim, args: &[Arg], y: f64, g: &[&[f64]]) {
    let (val, grad) = common::rule::grad_at(p, args);
    let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    let shown = format!("{} {}", zy_interp::show(&val), zy_interp::show(&grad));
    assert!(
        same(val.as_f64().unwrap_or(f64::NAN), y),
        "{p}: value {shown}, want {y}"
    );
    let Value::Tuple(gs) = &grad else {
        panic!("{p}: gradient {shown}")
    };
    assert_eq!(gs.len(), g.len(), "{p}: {shown}");
    for (gi, want) in gs.iter().zip(g) {
        let mut got = Vec::new();
        common::run::leaves(gi, &mut got);
        assert!(
            got.len() == want.len() && got.iter().zip(want.iter()).all(|(a, b)| same(*a, *b)),
            "{p}: gradient {shown}, want {g:?}"
        );
    }
}

/// The special points of docs/rules.md: zy's value and derivative are ChainRules'.
#[test]
fn special_points_follow_chainrules() {
    use Prim::*;
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let fc = |x: f64| Arg::C(Const::f64(x));
    let i = |n: i64| Arg::V(Value::Int(n));
    // x^p, Float64 exponent: ChainRules' `_pow_grad_x` and `_pow_grad_p`.
    at(Pow, &[f(0.0), f(2.0)], 0.0, &[&[0.0], &[0.0]]);
    at(Pow, &[f(0.0), f(1.0)], 0.0, &[&[1.0], &[0.0]]);
    at(Pow, &[f(0.0), f(0.0)], 1.0, &[&[0.0], &[nan]]);
    at(Pow, &[f(0.0), f(0.5)], 0.0, &[&[inf], &[0.0]]);
    at(Pow, &[f(0.0), f(-1.0)], inf, &[&[-inf], &[nan]]);
    at(Pow, &[f(-0.0), f(-2.0)], inf, &[&[inf], &[nan]]);
    at(
        Pow,
        &[f(2.0), f(0.0)],
        1.0,
        &[&[0.0], &[std::f64::consts::LN_2]],
    );
    // A negative base with an integral exponent: the exponent's gradient is y log|x|.
    at(
        Pow,
        &[f(-2.0), f(2.0)],
        4.0,
        &[&[-4.0], &[4.0 * std::f64::consts::LN_2]],
    );
    // The issue's `p(x) = 0.0^x` at 2: 0.0, not NaN.
    at(Pow, &[fc(0.0), f(2.0)], 0.0, &[&[0.0]]);
    // Int exponents, a variable and a literal.
    at(Pow, &[f(0.0), i(0)], 1.0, &[&[0.0], &[]]);
    at(Pow, &[f(0.0), i(-2)], inf, &[&[-inf], &[]]);
    at(Pow, &[f(-2.0), i(3)], -8.0, &[&[12.0], &[]]);
    at(Pow, &[f(0.0), c(0)], 1.0, &[&[0.0]]);
    at(Pow, &[f(0.0), c(1)], 0.0, &[&[1.0]]);
    at(Pow, &[f(0.0), c(-1)], inf, &[&[-inf]]);
    // Kinks and ties.
    at(Abs, &[f(0.0)], 0.0, &[&[0.0]]);
    at(Abs, &[f(-0.0)], 0.0, &[&[-0.0]]);
    at(Max, &[f(1.0), f(1.0)], 1.0, &[&[0.0], &[1.0]]);
    at(Max, &[f(2.0), f(1.0)], 2.0, &[&[1.0], &[0.0]]);
    at(Max, &[f(nan), f(1.0)], nan, &[&[0.0], &[1.0]]);
    at(Min, &[f(1.0), f(1.0)], 1.0, &[&[1.0], &[0.0]]);
    at(Min, &[f(2.0), f(1.0)], 1.0, &[&[0.0], &[1.0]]);
    at(Maximum, &[v(&[1.0, 3.0, 3.0])], 3.0, &[&[0.0, 1.0, 0.0]]);
    at(Maximum, &[v(&[1.0, nan, 3.0])], nan, &[&[0.0, 1.0, 0.0]]);
    at(Maximum, &[v(&[-0.0, 0.0])], 0.0, &[&[0.0, 1.0]]);
    at(Minimum, &[v(&[2.0, -1.0, -1.0])], -1.0, &[&[0.0, 1.0, 0.0]]);
    // Singular points of the elementary functions.
    at(Sqrt, &[f(0.0)], 0.0, &[&[inf]]);
    at(Log, &[f(0.0)], -inf, &[&[inf]]);
    at(Log1p, &[f(-1.0)], -inf, &[&[inf]]);
    at(Asin, &[f(1.0)], std::f64::consts::FRAC_PI_2, &[&[inf]]);
    at(Acos, &[f(1.0)], 0.0, &[&[-inf]]);
    at(Div, &[f(1.0), f(0.0)], inf, &[&[inf], &[-inf]]);
    at(Div, &[f(-1.0), f(0.0)], -inf, &[&[inf], &[inf]]);
    at(Div, &[f(0.0), f(0.0)], nan, &[&[inf], &[nan]]);
    at(Tanh, &[f(20.0)], 1.0, &[&[0.0]]);
    at(Exp, &[f(1000.0)], inf, &[&[inf]]);
    at(Exp, &[f(-1000.0)], 0.0, &[&[0.0]]);
    // 0 * Inf: each factor's partial is the other factor, as in ChainRules.
    at(Mul, &[f(0.0), f(inf)], nan, &[&[inf], &[0.0]]);
    at(
        Dot,
        &[v(&[0.0, 1.0]), v(&[inf, 1.0])],
        nan,
        &[&[inf, 1.0], &[0.0, 1.0]],
    );
    at(Prod, &[v(&[0.0, 2.0, 3.0])], 0.0, &[&[6.0, 0.0, 0.0]]);
    at(Prod, &[v(&[0.0, 0.0, 3.0])], 0.0, &[&[0.0, 0.0, 0.0]]);
    // rem jumps where the quotient is an integer.
    at(Rem, &[f(6.0), f(3.0)], 0.0, &[&[nan], &[nan]]);
    at(Rem, &[f(7.0), f(3.0)], 1.0, &[&[1.0], &[-2.0]]);
    // Piecewise constant: zero.
    for p in [Sign, Floor, Ceil, Round] {
        at(p, &[f(0.0)], 0.0, &[&[0.0]]);
    }
}
