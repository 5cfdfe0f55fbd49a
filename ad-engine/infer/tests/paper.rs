//! The paper's examples and the basic constructs, as snapshots of the typed IR.

mod common;

use common::*;
use expect_test::expect;
use zy_ir::{Program, Type};

/// `function pow(x, n); r = 1; while n > 0; n -= 1; r *= x; end; return r; end`
fn pow_program() -> Program {
    let mut b = Fb::new("pow", &["x", "n"]);
    let (x, n) = (b.arg(0), b.arg(1));
    let head = b.block();
    let body = b.block();
    let exit = b.block();
    b.jump(head, vec![n, int(1)]);
    b.at(head);
    let n1 = b.phi(head, "n");
    let r = b.phi(head, "r");
    let c = b.call(">", vec![n1.clone(), int(0)]);
    b.branch(c, body, vec![], exit, vec![]);
    b.at(body);
    let n2 = b.let_("n", "-", vec![n1, int(1)]);
    let r2 = b.let_("r", "*", vec![r.clone(), x]);
    b.jump(head, vec![n2, r2]);
    b.at(exit);
    b.ret(r);
    let mut p = Program::default();
    define(&mut p, b.done());
    p
}

#[test]
fn pow_joins_int_and_float_with_a_conversion() {
    let p = pow_program();
    expect![[r#"
        pow(%1::Float64, %2::Int64) :: Float64   # x, n
        #1:
          %8 = float(1) :: Float64
          br #2
        #2:
          %3 = φ(#1 → %2, #3 → %6) :: Int64     # n
          %4 = φ(#1 → %8, #3 → %7) :: Float64   # r
          %5 = %3 > 0 :: Bool
          br %5 ? #3 : #4
        #3:
          %6 = %3 - 1 :: Int64                  # n
          %7 = %4 * %1 :: Float64               # r
          br #2
        #4:
          return %4
    "#]]
    .assert_eq(&typed(&p, "pow", &[Type::Float64, Type::Int64]));
}

#[test]
fn pow_on_ints_stays_int() {
    let p = pow_program();
    expect![[r#"
        pow(%1::Int64, %2::Int64) :: Int64   # x, n
        #1:
          br #2
        #2:
          %3 = φ(#1 → %2, #3 → %6) :: Int64     # n
          %4 = φ(#1 → 1, #3 → %7) :: Int64      # r
          %5 = %3 > 0 :: Bool
          br %5 ? #3 : #4
        #3:
          %6 = %3 - 1 :: Int64                  # n
          %7 = %4 * %1 :: Int64                 # r
          br #2
        #4:
          return %4
    "#]]
    .assert_eq(&typed(&p, "pow", &[Type::Int64, Type::Int64]));
}
