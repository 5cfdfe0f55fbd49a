//! Every kind of error, with its code, message and span; and robustness on hostile programs.

use crate::common;

use common::*;
use expect_test::expect;
use zy_ir::{Op, Program, Type};

#[test]
fn type_conflict_names_the_variable_and_both_types() {
    // x = c ? :a : Ref(1.0); return x (a symbol beside a `Ref` is no union zy holds)
    let mut b = Fb::new("f", &["c"]);
    let c = b.arg(0);
    let (t, e, j) = (b.block(), b.block(), b.block());
    b.branch(c, t, vec![], e, vec![]);
    b.at(t);
    b.jump(j, vec![sym("a")]);
    b.at(e);
    let v = b.call("Ref", vec![float(1.0)]);
    b.jump(j, vec![v]);
    b.at(j);
    let x = b.phi(j, "x");
    b.ret(x);
    let mut p = Program::default();
    define(&mut p, b.done());
    expect![[r#"
        error[type-conflict] at 150..155: type conflict: `x` is Symbol on one path and Ref{Float64} on another
    "#]]
    .assert_eq(&errs(&p, "f", &[Type::Bool]));
}

#[test]
fn return_types_that_do_not_join_conflict() {
    let mut b = Fb::new("f", &["c"]);
    let c = b.arg(0);
    let (t, e) = (b.block(), b.block());
    b.branch(c, t, vec![], e, vec![]);
    b.at(t);
    b.ret(int(1));
    b.at(e);
    b.ret(func("sin"));
    let mut p = Program::default();
    define(&mut p, b.done());
    expect![[r#"
        error[type-conflict] at 130..135: type conflict: the return value of `f` is Int64 on one path and typeof(sin) on another
    "#]]
    .assert_eq(&errs(&p, "f", &[Type::Bool]));
}

#[test]
fn method_error_lists_the_argument_types() {
    let mut p = Program::default();
    let mut b = Fb::new("g", &["x"]);
    let x = b.arg(0);
    b.ret(x);
    method(&mut p, "g", vec![ty("Float64")], b.done());
    let mut b = Fb::new("f", &["x", "n"]);
    let (x, n) = (b.arg(0), b.arg(1));
    let r = b.call("g", vec![x, n]);
    b.ret(r);
    define(&mut p, b.done());
    expect![[r#"
        error[method-error] at 110..115: MethodError: no method matching g(::Float64, ::Int64)
    "#]]
    .assert_eq(&errs(&p, "f", &[Type::Float64, Type::Int64]));
    expect![[r#"
        error[method-error] at 0..1000: MethodError: no method matching g(::Int64)
    "#]]
    .assert_eq(&errs(&p, "g", &[Type::Int64]));
    // Scalar + array has no method in Julia.
    let mut b = Fb::new("h", &["x", "v"]);
    let (x, v) = (b.arg(0), b.arg(1));
    let r = b.call("+", vec![x, v]);
    b.ret(r);
    define(&mut p, b.done());
    expect![[r#"
        error[method-error] at 110..115: MethodError: no method matching +(::Float64, ::Vector{Float64})
    "#]]
    .assert_eq(&errs(&p, "h", &[Type::Float64, Type::vector_f64()]));
}

#[test]
fn undefined_names() {
    let mut b = Fb::new("f", &["x"]);
    let x = b.arg(0);
    let r = b.call("frobnicate", vec![x]);
    let g = b.op(Op::Global("N".into()), vec![]);
    let s = b.call("+", vec![r, g]);
    b.ret(s);
    let mut p = Program::default();
    define(&mut p, b.done());
    expect![[r#"
        error[undefined-name] at 110..115: UndefVarError: `frobnicate` not defined
    "#]]
    .assert_eq(&errs(&p, "f", &[Type::Float64]));
    expect![[r#"
        error[undefined-name] at 0..0: UndefVarError: `nope` not defined
    "#]]
    .assert_eq(&errs(&p, "nope", &[]));
}

#[test]
fn non_boolean_condition() {
    let mut b = Fb::new("f", &["n"]);
    let n = b.arg(0);
    let (t, e) = (b.block(), b.block());
    b.branch(n, t, vec![], e, vec![]);
    b.at(t);
    b.ret(int(1));
    b.at(e);
    b.ret(int(2));
    let mut p = Program::default();
    define(&mut p, b.done());
    expect![[r#"
        error[type-conflict] at 110..115: TypeError: non-boolean (Int64) used in boolean context
    "#]]
    .assert_eq(&errs(&p, "f", &[Type::Int64]));
}

#[test]
fn ambiguous_methods_are_an_error() {
    let mut p = Program::default();
    for sig in [
        vec![ty("Float64"), ty("Real")],
        vec![ty("Real"), ty("Float64")],
    ] {
        let mut b = Fb::new("g", &["x", "y"]);
        let x = b.arg(0);
        b.ret(x);
        method(&mut p, "g", sig, b.done());
    }
    expect![[r#"
        error[method-error] at 0..1000: MethodError: g(::Float64, ::Float64) is ambiguous.
    "#]]
    .assert_eq(&errs(&p, "g", &[Type::Float64, Type::Float64]));
    // One of them applies alone: no ambiguity.
    assert_eq!(errs(&p, "g", &[Type::Float64, Type::Int64]), "");
}

#[test]
fn tuple_index_out_of_range_is_a_bounds_error() {
    let mut b = Fb::new("f", &["x"]);
    let x = b.arg(0);
    let t = b.call("tuple", vec![x.clone(), x]);
    let r = b.call("getindex", vec![t, int(3)]);
    b.ret(r);
    let mut p = Program::default();
    define(&mut p, b.done());
    expect![[r#"
        error[method-error] at 120..125: BoundsError: attempt to access Tuple{Float64, Float64} at index [3]
    "#]]
    .assert_eq(&errs(&p, "f", &[Type::Float64]));
}

#[test]
fn unbounded_specialisation_stops_with_an_error() {
    // f(x) = f((x,))
    let mut b = Fb::new("f", &["x"]);
    let x = b.arg(0);
    let t = b.call("tuple", vec![x]);
    let r = b.call("f", vec![t]);
    b.ret(r);
    let mut p = Program::default();
    define(&mut p, b.done());
    expect![[r#"
        error[unsupported] at 110..115: unsupported: types nested more than 24 levels deep (unbounded specialisation)
    "#]]
    .assert_eq(&errs(&p, "f", &[Type::Float64]));
    // f(n) = f(n) never returns: its type is Union{}.
    let mut b = Fb::new("g", &["n"]);
    let n = b.arg(0);
    let r = b.call("g", vec![n]);
    b.ret(r);
    define(&mut p, b.done());
    expect![[r#"
        g(%1::Int64) :: Union{}   # n
        #1:
          %2 = invoke g(%1) :: Union{}
          unreachable
    "#]]
    .assert_eq(&typed(&p, "g", &[Type::Int64]));
}

#[test]
fn free_names_in_returns_and_undefined_locals() {
    // f(x) = offset
    let mut b = Fb::new("f", &["x"]);
    b.ret(func("offset"));
    let mut p = Program::default();
    define(&mut p, b.done());
    expect![[r#"
        error[undefined-name] at 110..115: UndefVarError: `offset` not defined
    "#]]
    .assert_eq(&errs(&p, "f", &[Type::Float64]));
    // if c; y = 1.0; end; return y  (y is undefined when c is false)
    let mut b = Fb::new("g", &["c"]);
    let c = b.arg(0);
    let (t, e, j) = (b.block(), b.block(), b.block());
    b.branch(c, t, vec![], e, vec![]);
    b.at(t);
    b.jump(j, vec![float(1.0)]);
    b.at(e);
    let u = b.call("undef", vec![sym("y")]);
    b.jump(j, vec![u]);
    b.at(j);
    let y = b.phi(j, "y");
    b.ret(y);
    define(&mut p, b.done());
    expect![[r#"
        g(%1::Bool) :: Float64   # c
        #1:
          br %1 ? #2 : #3
        #2:
          br #4
        #3:
          %2 = undef(:y) :: Union{}
          br #4
        #4:
          %3 = φ(#2 → 1.0, #3 → %2) :: Float64  # y
          return %3
    "#]]
    .assert_eq(&typed(&p, "g", &[Type::Bool]));
}

/// A symbol is a value whose type names it (`Symbol{:a}` in the IR text, `Symbol` to users).
#[test]
fn symbols_are_values() {
    let mut b = Fb::new("f", &["x"]);
    b.ret(sym("a"));
    let mut p = Program::default();
    define(&mut p, b.done());
    expect![[r#""#]].assert_eq(&errs(&p, "f", &[Type::Float64]));
    let mut b = Fb::new("g", &["x"]);
    let t = b.call("tuple", vec![sym("a")]);
    b.ret(t);
    define(&mut p, b.done());
    expect![[r#"
        g(%1::Float64) :: Tuple{Symbol{:a}}   # x
        #1:
          %2 = tuple(:a) :: Tuple{Symbol{:a}}
          return %2
    "#]]
    .assert_eq(&typed(&p, "g", &[Type::Float64]));
}
