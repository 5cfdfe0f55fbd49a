//! The paper's examples and the basic constructs, as snapshots of the typed IR.

use crate::common;

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
fn pow_peels_the_first_iteration_so_the_loop_is_all_float() {
    let p = pow_program();
    expect![[r#"
        pow(%1::Float64, %2::Int64) :: Union{Float64, Int64}   # x, n
        #1:
          br #5
        #2:
          %3 = φ(#3 → %6, #6 → %13) :: Int64    # n
          %4 = φ(#3 → %7, #6 → %15) :: Float64  # r
          %5 = %3 > 0 :: Bool
          br %5 ? #3 : #7
        #3:
          %6 = %3 - 1 :: Int64                  # n
          %7 = %4 * %1 :: Float64               # r
          br #2
        #4:
          %8 = φ(#5 → %12, #7 → %16) :: Union{Float64, Int64} # r
          return %8
        #5:
          %9 = φ(#1 → %2) :: Int64              # n
          %10 = φ(#1 → 1) :: Int64              # r
          %11 = %9 > 0 :: Bool
          %12 = union_convert(%10) :: Union{Float64, Int64}
          br %11 ? #6 : #4
        #6:
          %13 = %9 - 1 :: Int64                 # n
          %14 = float(%10) :: Float64
          %15 = %14 * %1 :: Float64             # r
          br #2
        #7:
          %16 = union_convert(%4) :: Union{Float64, Int64}
          br #4
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

/// `leaky(x) = x > 0 ? x : 0.01x`
fn leaky_program() -> Program {
    let mut b = Fb::new("leaky", &["x"]);
    let x = b.arg(0);
    let (t, e, j) = (b.block(), b.block(), b.block());
    let c = b.call(">", vec![x.clone(), int(0)]);
    b.branch(c, t, vec![], e, vec![]);
    b.at(t);
    b.jump(j, vec![x.clone()]);
    b.at(e);
    let y = b.call("*", vec![float(0.01), x]);
    b.jump(j, vec![y]);
    b.at(j);
    let r = b.phi(j, "r");
    b.ret(r);
    let mut p = Program::default();
    define(&mut p, b.done());
    p
}

#[test]
fn leaky_relu_on_float() {
    expect![[r#"
        leaky(%1::Float64) :: Float64   # x
        #1:
          %2 = %1 > 0.0 :: Bool
          br %2 ? #2 : #3
        #2:
          br #4
        #3:
          %3 = 0.01 * %1 :: Float64
          br #4
        #4:
          %4 = φ(#2 → %1, #3 → %3) :: Float64   # r
          return %4
    "#]]
    .assert_eq(&typed(&leaky_program(), "leaky", &[Type::Float64]));
}

#[test]
fn leaky_relu_on_int_joins_its_branches_to_julias_union() {
    expect![[r#"
        leaky(%1::Int64) :: Union{Float64, Int64}   # x
        #1:
          %2 = %1 > 0 :: Bool
          br %2 ? #2 : #3
        #2:
          %3 = union_convert(%1) :: Union{Float64, Int64}
          br #4
        #3:
          %4 = float(%1) :: Float64
          %5 = 0.01 * %4 :: Float64
          %6 = union_convert(%5) :: Union{Float64, Int64}
          br #4
        #4:
          %7 = φ(#2 → %3, #3 → %6) :: Union{Float64, Int64} # r
          return %7
    "#]]
    .assert_eq(&typed(&leaky_program(), "leaky", &[Type::Int64]));
}

#[test]
fn ratio_promotes_the_int_square() {
    // f(a, b) = a / (a + b^2)
    let mut b = Fb::new("f", &["a", "b"]);
    let (a, bb) = (b.arg(0), b.arg(1));
    let sq = b.call("^", vec![bb, int(2)]);
    let s = b.call("+", vec![a.clone(), sq]);
    let q = b.call("/", vec![a, s]);
    b.ret(q);
    let mut p = Program::default();
    define(&mut p, b.done());
    expect![[r#"
        f(%1::Float64, %2::Int64) :: Float64   # a, b
        #1:
          %3 = %2 ^ 2 :: Int64
          %4 = float(%3) :: Float64
          %5 = %1 + %4 :: Float64
          %6 = %1 / %5 :: Float64
          return %6
    "#]]
    .assert_eq(&typed(&p, "f", &[Type::Float64, Type::Int64]));
    expect![[r#"
        f(%1::Int64, %2::Int64) :: Float64   # a, b
        #1:
          %3 = %2 ^ 2 :: Int64
          %4 = %1 + %3 :: Int64
          %5 = float(%1) :: Float64
          %6 = float(%4) :: Float64
          %7 = %5 / %6 :: Float64
          return %7
    "#]]
    .assert_eq(&typed(&p, "f", &[Type::Int64, Type::Int64]));
}

/// `struct Bar{T}; a::T; b::Float64; end`, `mk(x) = Bar(x, 1)` (not allowed: parametric
/// constructors take exact types) and `mk2(x) = Bar(x, 2.0).a`.
#[test]
fn struct_with_a_type_parameter() {
    let mut p = Program::default();
    structdef(
        &mut p,
        "Bar",
        &["T"],
        &[("a", ty("T")), ("b", ty("Float64"))],
        false,
    );
    let mut b = Fb::new("mk", &["x"]);
    let x = b.arg(0);
    let s = b.let_("s", "Bar", vec![x, float(2.0)]);
    let a = b.call("getfield", vec![s.clone(), sym("a")]);
    let bf = b.call("getfield", vec![s, sym("b")]);
    let r = b.call("*", vec![a, bf]);
    b.ret(r);
    define(&mut p, b.done());
    expect![[r#"
        mk(%1::Int64) :: Float64   # x
        #1:
          %2 = new Bar{Int64}(%1, 2.0) :: Bar{Int64} # s
          %3 = getfield(%2, 1) :: Int64
          %4 = getfield(%2, 2) :: Float64
          %5 = float(%3) :: Float64
          %6 = %5 * %4 :: Float64
          return %6
    "#]]
    .assert_eq(&typed(&p, "mk", &[Type::Int64]));
    // Dispatch on `Bar{T}` binds `T`.
    let mut b = Fb::new("first_of", &["s"]);
    let s = b.arg(0);
    let a = b.call("getfield", vec![s, sym("a")]);
    b.ret(a);
    method_where(
        &mut p,
        "first_of",
        vec![ty_app("Bar", &["T"])],
        &["T"],
        b.done(),
    );
    let mut b = Fb::new("use", &["x"]);
    let x = b.arg(0);
    let s = b.call("Bar", vec![x, float(1.0)]);
    let r = b.call("first_of", vec![s]);
    b.ret(r);
    define(&mut p, b.done());
    expect![[r#"
        use(%1::Vector{Float64}) :: Vector{Float64}   # x
        #1:
          %2 = new Bar{Vector{Float64}}(%1, 1.0) :: Bar{Vector{Float64}}
          %3 = invoke first_of(%2) :: Vector{Float64}
          return %3
        first_of(%1::Bar{Vector{Float64}}) :: Vector{Float64}   # s
        #1:
          %2 = getfield(%1, 1) :: Vector{Float64}
          return %2
    "#]]
    .assert_eq(&typed(&p, "use", &[Type::vector_f64()]));
}

#[test]
fn plain_struct_constructor_converts_ints() {
    let mut p = Program::default();
    structdef(&mut p, "P", &[], &[("x", ty("Float64")), ("y", None)], true);
    let mut b = Fb::new("mk", &["i"]);
    let i = b.arg(0);
    let s = b.let_("s", "P", vec![i.clone(), i]);
    b.call("setfield!", vec![s.clone(), sym("x"), int(3)]);
    b.ret(s);
    define(&mut p, b.done());
    expect![[r#"
        mk(%1::Int64) :: P   # i
        #1:
          %2 = float(%1) :: Float64
          %3 = new P(%2, %1) :: P               # s
          %4 = setfield!(%3, 1, 3.0) :: Float64
          return %3
    "#]]
    .assert_eq(&typed(&p, "mk", &[Type::Int64]));
}

/// `function outer(x); f = y -> x * y; f(2.0); end`
#[test]
fn closure_captures_and_is_called() {
    let mut p = Program::default();
    let mut c = Fb::new("#outer#1", &["#self#", "y"]);
    let (slf, y) = (c.arg(0), c.arg(1));
    let x = c.let_("x", "getfield", vec![slf, sym("x")]);
    let r = c.call("*", vec![x, y]);
    c.ret(r);
    closure(&mut p, "#outer#1", &["x"], c.done());
    let mut b = Fb::new("outer", &["x"]);
    let x = b.arg(0);
    let f = b.op(zy_ir::Op::Closure("#outer#1".into()), vec![x]);
    let r = b.op(zy_ir::Op::CallValue, vec![f, float(2.0)]);
    b.ret(r);
    define(&mut p, b.done());
    expect![[r##"
        outer(%1::Int64) :: Float64   # x
        #1:
          %2 = new var"#outer#1"(%1) :: var"#outer#1"
          %3 = invoke (::#outer#1)(%2, 2.0) :: Float64
          return %3
        #outer#1(%1::var"#outer#1", %2::Float64) :: Float64   # #self#, y
        #1:
          %3 = getfield(%1, 1) :: Int64         # x
          %4 = float(%3) :: Float64
          %5 = %4 * %2 :: Float64
          return %5
    "##]]
    .assert_eq(&typed(&p, "outer", &[Type::Int64]));
}

/// `fact(n) = n <= 1 ? 1 : n * fact(n - 1)`
#[test]
fn recursion_converges_from_bottom() {
    let mut b = Fb::new("fact", &["n"]);
    let n = b.arg(0);
    let (t, e) = (b.block(), b.block());
    let c = b.call("<=", vec![n.clone(), int(1)]);
    b.branch(c, t, vec![], e, vec![]);
    b.at(t);
    b.ret(int(1));
    b.at(e);
    let m = b.call("-", vec![n.clone(), int(1)]);
    let f = b.call("fact", vec![m]);
    let r = b.call("*", vec![n, f]);
    b.ret(r);
    let mut p = Program::default();
    define(&mut p, b.done());
    expect![[r#"
        fact(%1::Int64) :: Int64   # n
        #1:
          %2 = %1 <= 1 :: Bool
          br %2 ? #2 : #3
        #2:
          return 1
        #3:
          %3 = %1 - 1 :: Int64
          %4 = invoke fact(%3) :: Int64
          %5 = %1 * %4 :: Int64
          return %5
    "#]]
    .assert_eq(&typed(&p, "fact", &[Type::Int64]));
    // On a Float64 the returns `1` (an Int) and `n * fact(n - 1)` join to Julia's union; the
    // product of the union is split on the member held.
    expect![[r#"
        fact(%1::Float64) :: Union{Float64, Int64}   # n
        #1:
          %2 = %1 <= 1.0 :: Bool
          br %2 ? #2 : #3
        #2:
          %3 = union_convert(1) :: Union{Float64, Int64}
          return %3
        #3:
          %4 = %1 - 1.0 :: Float64
          %5 = invoke fact(%4) :: Union{Float64, Int64}
          %6 = invoke union_split@synth(*, %1, %5) :: Float64
          %7 = union_convert(%6) :: Union{Float64, Int64}
          return %7
        union_split@synth(%1::typeof(*), %2::Float64, %3::Union{Float64, Int64}) :: Float64   # f, x1, x2
        #1:
          %4 = union_isa(%3, :Float64) :: Bool
          br %4 ? #2 : #3
        #2:
          %5 = union_convert(%3) :: Float64
          %6 = %2 * %5 :: Float64
          br #4
        #3:
          %7 = union_convert(%3) :: Int64
          %8 = float(%7) :: Float64
          %9 = %2 * %8 :: Float64
          br #4
        #4:
          %10 = φ(#2 → %6, #3 → %9) :: Float64
          return %10
    "#]]
    .assert_eq(&typed(&p, "fact", &[Type::Float64]));
}

/// `ev(n) = n == 0 ? true : od(n - 1)`, `od(n) = n == 0 ? false : ev(n - 1)`
#[test]
fn mutual_recursion_converges() {
    let mut p = Program::default();
    for (name, other, base) in [("ev", "od", true), ("od", "ev", false)] {
        let mut b = Fb::new(name, &["n"]);
        let n = b.arg(0);
        let (t, e) = (b.block(), b.block());
        let c = b.call("==", vec![n.clone(), int(0)]);
        b.branch(c, t, vec![], e, vec![]);
        b.at(t);
        b.ret(zy_ir::Operand::Const(zy_ir::Const::Bool(base)));
        b.at(e);
        let m = b.call("-", vec![n, int(1)]);
        let r = b.call(other, vec![m]);
        b.ret(r);
        define(&mut p, b.done());
    }
    expect![[r#"
        ev(%1::Int64) :: Bool   # n
        #1:
          %2 = %1 == 0 :: Bool
          br %2 ? #2 : #3
        #2:
          return true
        #3:
          %3 = %1 - 1 :: Int64
          %4 = invoke od(%3) :: Bool
          return %4
        od(%1::Int64) :: Bool   # n
        #1:
          %2 = %1 == 0 :: Bool
          br %2 ? #2 : #3
        #2:
          return false
        #3:
          %3 = %1 - 1 :: Int64
          %4 = invoke ev(%3) :: Bool
          return %4
    "#]]
    .assert_eq(&typed(&p, "ev", &[Type::Int64]));
}

/// `sq(xs) = map(x -> x^2, xs)`
#[test]
fn map_over_a_closure_is_synthesised() {
    let mut p = Program::default();
    let mut c = Fb::new("#sq#1", &["#self#", "x"]);
    let x = c.arg(1);
    let r = c.call("^", vec![x, int(2)]);
    c.ret(r);
    closure(&mut p, "#sq#1", &[], c.done());
    let mut b = Fb::new("sq", &["xs"]);
    let xs = b.arg(0);
    let f = b.op(zy_ir::Op::Closure("#sq#1".into()), vec![]);
    let r = b.call("map", vec![f, xs]);
    b.ret(r);
    define(&mut p, b.done());
    expect![[r##"
        sq(%1::Vector{Float64}) :: Vector{Float64}   # xs
        #1:
          %2 = new var"#sq#1"() :: var"#sq#1"
          %3 = invoke map@synth(%2, %1) :: Vector{Float64}
          return %3
        #sq#1(%1::var"#sq#1", %2::Float64) :: Float64   # #self#, x
        #1:
          %3 = %2 ^ 2 :: Float64
          return %3
        map@synth(%1::var"#sq#1", %2::Vector{Float64}) :: Vector{Float64}   # f, xs
        #1:
          %3 = length(%2) :: Int64
          %4 = zeros(%3) :: Vector{Float64}
          br #2
        #2:
          %5 = φ(#1 → 1, #3 → %10) :: Int64
          %6 = %5 <= %3 :: Bool
          br %6 ? #3 : #4
        #3:
          %7 = getindex(%2, %5) :: Float64
          %8 = invoke (::#sq#1)(%1, %7) :: Float64
          %9 = setindex!(%4, %8, %5) :: Float64
          %10 = %5 + 1 :: Int64
          br #2
        #4:
          return %4
    "##]]
    .assert_eq(&typed(&p, "sq", &[Type::vector_f64()]));
}
