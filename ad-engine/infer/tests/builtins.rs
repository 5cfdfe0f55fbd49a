//! Builtins: arrays, broadcasting, indexing, data structures, differentiation calls, globals,
//! callable structs and dispatch.

use crate::common;

use common::*;
use expect_test::expect;
use std::sync::Arc;
use zy_ir::{Global, Op, Operand, Program, Span, Type};

/// A one-block function `name(args...)` whose body is built by `f` and returns its result.
fn one(p: &mut Program, name: &str, args: &[&str], f: impl FnOnce(&mut Fb) -> Operand) {
    let mut b = Fb::new(name, args);
    let r = f(&mut b);
    b.ret(r);
    define(p, b.done());
}

fn matrix_int() -> Type {
    Type::Array(Arc::new(Type::Int64), 2)
}

#[test]
fn array_arithmetic_and_products() {
    let mut p = Program::default();
    one(&mut p, "f", &["A", "x", "s"], |b| {
        let (a, x, s) = (b.arg(0), b.arg(1), b.arg(2));
        let y = b.call("*", vec![a.clone(), x.clone()]);
        let z = b.call("*", vec![s.clone(), y]);
        let w = b.call("/", vec![z, s]);
        let d = b.call("-", vec![w, x.clone()]);
        let t = b.call("adjoint", vec![x.clone()]);
        let q = b.call("*", vec![t.clone(), a]);
        let o = b.call("*", vec![x, t]);
        b.call("tuple", vec![d, q, o])
    });
    expect![[r#"
        f(%1::Matrix{Float64}, %2::Vector{Float64}, %3::Int64) :: Tuple{Vector{Float64}, Adjoint{Float64, Vector{Float64}}, Matrix{Float64}}   # A, x, s
        #1:
          %4 = matmul(%1, %2) :: Vector{Float64}
          %5 = float(%3) :: Float64
          %6 = broadcast(*, %5, %4) :: Vector{Float64}
          %7 = float(%3) :: Float64
          %8 = broadcast(/, %6, %7) :: Vector{Float64}
          %9 = check_axes(%8, %2) :: Nothing
          %10 = broadcast(-, %8, %2) :: Vector{Float64}
          %11 = adjoint(%2) :: Adjoint{Float64, Vector{Float64}}
          %12 = matmul(%11, %1) :: Adjoint{Float64, Vector{Float64}}
          %13 = matmul(%2, %11) :: Matrix{Float64}
          %14 = tuple(%10, %12, %13) :: Tuple{Vector{Float64}, Adjoint{Float64, Vector{Float64}}, Matrix{Float64}}
          return %14
    "#]]
    .assert_eq(&typed(&p, "f", &[Type::matrix_f64(), Type::vector_f64(), Type::Int64]));
    // An Int matrix times a Float64 vector converts the matrix; x' * x is a number.
    one(&mut p, "g", &["A", "x"], |b| {
        let (a, x) = (b.arg(0), b.arg(1));
        let y = b.call("*", vec![a, x.clone()]);
        let t = b.call("adjoint", vec![x]);
        b.call("*", vec![t, y])
    });
    expect![[r#"
        g(%1::Matrix{Int64}, %2::Vector{Float64}) :: Float64   # A, x
        #1:
          %3 = broadcast(float, %1) :: Matrix{Float64}
          %4 = matmul(%3, %2) :: Vector{Float64}
          %5 = adjoint(%2) :: Adjoint{Float64, Vector{Float64}}
          %6 = matmul(%5, %4) :: Float64
          return %6
    "#]]
    .assert_eq(&typed(&p, "g", &[matrix_int(), Type::vector_f64()]));
    // Vector * Vector has no method.
    one(&mut p, "h", &["x"], |b| {
        let x = b.arg(0);
        b.call("*", vec![x.clone(), x])
    });
    expect![[r#"
        error[method-error] at 110..115: MethodError: no method matching *(::Vector{Float64}, ::Vector{Float64})
    "#]]
    .assert_eq(&errs(&p, "h", &[Type::vector_f64()]));
}

#[test]
fn dotted_calls_broadcast_builtins_with_conversions() {
    let mut p = Program::default();
    one(&mut p, "f", &["x", "v"], |b| {
        let (x, v) = (b.arg(0), b.arg(1));
        let s = b.call("broadcast", vec![func("sin"), v.clone()]);
        let t = b.call("broadcast", vec![func("+"), s, int(1)]);
        let u = b.call("broadcast", vec![func("^"), t, int(2)]);
        let w = b.call("broadcast", vec![func("-"), u]);
        let m = b.call("map", vec![func("max"), w, v]);
        let k = b.call("broadcast", vec![func("cos"), x]);
        b.call("tuple", vec![m, k])
    });
    expect![[r#"
        f(%1::Float64, %2::Vector{Int64}) :: Tuple{Vector{Float64}, Float64}   # x, v
        #1:
          %3 = broadcast(float, %2) :: Vector{Float64}
          %4 = broadcast(sin, %3) :: Vector{Float64}
          %5 = broadcast(+, %4, 1.0) :: Vector{Float64}
          %6 = broadcast(^, %5, 2) :: Vector{Float64}
          %7 = broadcast(neg, %6) :: Vector{Float64}
          %8 = broadcast(float, %2) :: Vector{Float64}
          %9 = broadcast(max, %7, %8) :: Vector{Float64}
          %10 = cos(%1) :: Float64
          %11 = tuple(%9, %10) :: Tuple{Vector{Float64}, Float64}
          return %11
    "#]]
    .assert_eq(&typed(
        &p,
        "f",
        &[Type::Float64, Type::Array(Arc::new(Type::Int64), 1)],
    ));
}

#[test]
fn broadcast_and_sum_of_a_user_function_are_synthesised() {
    let mut p = Program::default();
    one(&mut p, "sq", &["x"], |b| {
        let x = b.arg(0);
        b.call("*", vec![x.clone(), x])
    });
    one(&mut p, "f", &["v", "s"], |b| {
        let v = b.arg(0);
        let y = b.call("broadcast", vec![func("sq"), v]);
        b.call("sum", vec![func("sq"), y])
    });
    expect![[r#"
        f(%1::Vector{Float64}, %2::Int64) :: Float64   # v, s
        #1:
          %3 = invoke broadcast@synth(sq, %1) :: Vector{Float64}
          %4 = invoke sum@synth(sq, %3) :: Float64
          return %4
        broadcast@synth(%1::typeof(sq), %2::Vector{Float64}) :: Vector{Float64}   # f, xs
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
          %8 = invoke sq(%7) :: Float64
          %9 = setindex!(%4, %8, %5) :: Float64
          %10 = %5 + 1 :: Int64
          br #2
        #4:
          return %4
        sq(%1::Float64) :: Float64   # x
        #1:
          %2 = %1 * %1 :: Float64
          return %2
        sum@synth(%1::typeof(sq), %2::Vector{Float64}) :: Float64   # f, xs
        #1:
          %3 = length(%2) :: Int64
          %4 = %3 < 1 :: Bool
          br %4 ? #2 : #3
        #2:
          %5 = error(:ArgumentError, "reducing over an empty collection is not allowed; consider supplying `init` to the reducer") :: Union{}
          unreachable
        #3:
          %6 = getindex(%2, 1) :: Float64
          %7 = invoke sq(%6) :: Float64
          br #4
        #4:
          %8 = φ(#3 → 2, #5 → %14) :: Int64
          %9 = φ(#3 → %7, #5 → %13) :: Float64
          %10 = %8 <= %3 :: Bool
          br %10 ? #5 : #6
        #5:
          %11 = getindex(%2, %8) :: Float64
          %12 = invoke sq(%11) :: Float64
          %13 = %9 + %12 :: Float64
          %14 = %8 + 1 :: Int64
          br #4
        #6:
          return %9
    "#]]
    .assert_eq(&typed(&p, "f", &[Type::vector_f64(), Type::Int64]));
}

#[test]
fn map_over_two_arrays_checks_their_shapes() {
    let mut p = Program::default();
    one(&mut p, "add", &["x", "y"], |b| {
        let (x, y) = (b.arg(0), b.arg(1));
        b.call("+", vec![x, y])
    });
    one(&mut p, "f", &["u", "v"], |b| {
        let (u, v) = (b.arg(0), b.arg(1));
        b.call("map", vec![func("add"), u, v])
    });
    let vi = Type::Array(Arc::new(Type::Int64), 1);
    expect![[r#"
        f(%1::Vector{Float64}, %2::Vector{Int64}) :: Vector{Float64}   # u, v
        #1:
          %3 = invoke map@synth(add, %1, %2) :: Vector{Float64}
          return %3
        add(%1::Float64, %2::Int64) :: Float64   # x, y
        #1:
          %3 = float(%2) :: Float64
          %4 = %1 + %3 :: Float64
          return %4
        map@synth(%1::typeof(add), %2::Vector{Float64}, %3::Vector{Int64}) :: Vector{Float64}   # f, x1, x2
        #1:
          %4 = length(%2) :: Int64
          %5 = length(%3) :: Int64
          %6 = %5 != %4 :: Bool
          br %6 ? #2 : #3
        #2:
          %7 = error(:DimensionMismatch, "arrays must have the same shape") :: Union{}
          unreachable
        #3:
          %8 = zeros(%4) :: Vector{Float64}
          br #4
        #4:
          %9 = φ(#3 → 1, #5 → %15) :: Int64
          %10 = %9 <= %4 :: Bool
          br %10 ? #5 : #6
        #5:
          %11 = getindex(%2, %9) :: Float64
          %12 = getindex(%3, %9) :: Int64
          %13 = invoke add(%11, %12) :: Float64
          %14 = setindex!(%8, %13, %9) :: Float64
          %15 = %9 + 1 :: Int64
          br #4
        #6:
          return %8
    "#]]
    .assert_eq(&typed(&p, "f", &[Type::vector_f64(), vi]));
}

#[test]
fn indexing_tuples_refs_and_arrays() {
    let mut p = Program::default();
    one(&mut p, "f", &["t", "i", "A", "r"], |b| {
        let (t, i, a, r) = (b.arg(0), b.arg(1), b.arg(2), b.arg(3));
        let t1 = b.call("getindex", vec![t.clone(), int(2)]);
        let ti = b.call("getindex", vec![t, i.clone()]);
        let aij = b.call("getindex", vec![a.clone(), i.clone(), int(1)]);
        b.call("setindex!", vec![a.clone(), int(0), i.clone(), i]);
        let rv = b.call("getindex", vec![r.clone()]);
        b.call("setindex!", vec![r, int(2)]);
        let n = b.call("length", vec![a.clone()]);
        let sz = b.call("size", vec![a]);
        b.call("tuple", vec![t1, ti, aij, rv, n, sz])
    });
    let t = Type::tuple([Type::Float64, Type::Float64]);
    let r = Type::Ref(Arc::new(Type::Float64));
    expect![[r#"
        f(%1::Tuple{Float64, Float64}, %2::Int64, %3::Matrix{Float64}, %4::Ref{Float64}) :: Tuple{Float64, Float64, Float64, Float64, Int64, Tuple{Int64, Int64}}   # t, i, A, r
        #1:
          %5 = getfield(%1, 2) :: Float64
          %6 = tuple_getindex(%1, %2) :: Float64
          %7 = getindex(%3, %2, 1) :: Float64
          %8 = setindex!(%3, 0.0, %2, %2) :: Float64
          %9 = ref_get(%4) :: Float64
          %10 = ref_set!(%4, 2.0) :: Float64
          %11 = length(%3) :: Int64
          %12 = size(%3) :: Tuple{Int64, Int64}
          %13 = tuple(%5, %6, %7, %9, %11, %12) :: Tuple{Float64, Float64, Float64, Float64, Int64, Tuple{Int64, Int64}}
          return %13
    "#]]
    .assert_eq(&typed(&p, "f", &[t, Type::Int64, Type::matrix_f64(), r]));
    // A run-time index into a heterogeneous tuple is not supported; a Float64 index is invalid.
    one(&mut p, "g", &["t", "i"], |b| {
        let (t, i) = (b.arg(0), b.arg(1));
        b.call("getindex", vec![t, i])
    });
    expect![[r#"
        error[unsupported] at 110..115: unsupported: indexing Tuple{Float64, Int64} with a run-time index (its elements differ in type; a `for` loop over such a tuple or its indices is unrolled up to 64 elements when their number is known where it is compiled); write `map(f, t)`, `sum(f, t)` or `foreach(f, t)`, which call each element's own method
    "#]]
    .assert_eq(&errs(&p, "g", &[Type::tuple([Type::Float64, Type::Int64]), Type::Int64]));
    expect![[r#"
        error[method-error] at 110..115: ArgumentError: invalid index of type Float64 (indices must be Int)
    "#]]
    .assert_eq(&errs(&p, "g", &[Type::vector_f64(), Type::Float64]));
}

#[test]
fn literals_named_tuples_and_refs() {
    let mut p = Program::default();
    one(&mut p, "f", &["x", "i"], |b| {
        let (x, i) = (b.arg(0), b.arg(1));
        let v = b.call(
            "vect",
            vec![
                x.clone(),
                i.clone(),
                zy_ir::Operand::Const(zy_ir::Const::Bool(true)),
            ],
        );
        let m = b.call(
            "hvcat",
            vec![int(2), int(2), x.clone(), int(0), i.clone(), x.clone()],
        );
        let names = zy_ir::Operand::Const(zy_ir::Const::Tuple(Arc::from(vec![
            zy_ir::Const::Symbol("a".into()),
            zy_ir::Const::Symbol("b".into()),
        ])));
        let nt = b.call("namedtuple", vec![names, v, m]);
        let a = b.call("getfield", vec![nt.clone(), sym("b")]);
        let r = b.call("Ref", vec![i]);
        b.call("tuple", vec![nt, a, r])
    });
    expect![[r#"
        f(%1::Float64, %2::Int64) :: Tuple{(a = Vector{Float64}, b = Matrix{Float64}), Matrix{Float64}, Ref{Int64}}   # x, i
        #1:
          %3 = float(%2) :: Float64
          %4 = vect(%1, %3, 1.0) :: Vector{Float64}
          %5 = float(%2) :: Float64
          %6 = hvcat(2, 2, %1, 0.0, %5, %1) :: Matrix{Float64}
          %7 = namedtuple((:a, :b), %4, %6) :: (a = Vector{Float64}, b = Matrix{Float64})
          %8 = getfield(%7, 2) :: Matrix{Float64}
          %9 = Ref(%2) :: Ref{Int64}
          %10 = tuple(%7, %8, %9) :: Tuple{(a = Vector{Float64}, b = Matrix{Float64}), Matrix{Float64}, Ref{Int64}}
          return %10
    "#]]
    .assert_eq(&typed(&p, "f", &[Type::Float64, Type::Int64]));
}

#[test]
fn differentiation_calls_include_the_callee() {
    let mut p = Program::default();
    one(&mut p, "loss", &["w", "x"], |b| {
        let (w, x) = (b.arg(0), b.arg(1));
        let y = b.call("*", vec![w, x]);
        b.call("sin", vec![y])
    });
    one(&mut p, "f", &["w", "n"], |b| {
        let (w, n) = (b.arg(0), b.arg(1));
        let g = b.call("gradient", vec![func("loss"), w.clone(), n.clone()]);
        let d = b.call("derivative", vec![func("sin"), w.clone()]);
        let pb = b.call("pullback", vec![func("loss"), w, n]);
        let back = b.call("getindex", vec![pb, int(2)]);
        let gs = b.op(Op::CallValue, vec![back, float(1.0)]);
        b.call("tuple", vec![g, d, gs])
    });
    expect![[r#"
        f(%1::Float64, %2::Int64) :: Tuple{Tuple{Float64, Nothing}, Float64, Tuple{Float64, Nothing}}   # w, n
        #1:
          %3 = gradient(loss, %1, %2) :: Tuple{Float64, Nothing}
          %4 = derivative(sin, %1) :: Float64
          %5 = pullback(loss, %1, %2) :: Tuple{Float64, Pullback{typeof(loss), Float64, Int64}}
          %6 = getfield(%5, 2) :: Pullback{typeof(loss), Float64, Int64}
          %7 = call_pullback(%6, 1.0) :: Tuple{Float64, Nothing}
          %8 = tuple(%3, %4, %7) :: Tuple{Tuple{Float64, Nothing}, Float64, Tuple{Float64, Nothing}}
          return %8
        #apply@synth(%1::typeof(sin), %2::Float64) :: Float64   # f, xs
        #1:
          %3 = sin(%2) :: Float64
          return %3
        loss(%1::Float64, %2::Int64) :: Float64   # w, x
        #1:
          %3 = float(%2) :: Float64
          %4 = %1 * %3 :: Float64
          %5 = sin(%4) :: Float64
          return %5
    "#]]
    .assert_eq(&typed(&p, "f", &[Type::Float64, Type::Int64]));
    // The gradient of a function returning a vector is not defined.
    one(&mut p, "h", &["v"], |b| {
        let v = b.arg(0);
        b.call("gradient", vec![func("copy"), v])
    });
    expect![[r#"
        error[not-differentiable] at 110..115: `gradient` needs a function returning a real number; this call returns Vector{Float64}
    "#]]
    .assert_eq(&errs(&p, "h", &[Type::vector_f64()]));
    one(&mut p, "k", &["v"], |b| {
        let v = b.arg(0);
        b.call("hessian", vec![func("sum"), v])
    });
    expect![[r#"
        k(%1::Vector{Float64}) :: Matrix{Float64}   # v
        #1:
          %2 = hessian(sum, %1) :: Matrix{Float64}
          return %2
        #apply@synth(%1::typeof(sum), %2::Vector{Float64}) :: Float64   # f, xs
        #1:
          %3 = sum(%2) :: Float64
          return %3
    "#]]
    .assert_eq(&typed(&p, "k", &[Type::vector_f64()]));
}

#[test]
fn globals_are_inferred_once_and_callable() {
    let mut p = Program::default();
    // const N = 3; sq = x -> x^2
    let mut g = Fb::new("N", &[]);
    g.ret(int(3));
    p.globals.insert(
        "N".into(),
        Global {
            name: "N".into(),
            body: Arc::new(g.done()),
            span: Span::default(),
        },
    );
    let mut c = Fb::new("#sq#1", &["#self#", "x"]);
    let x = c.arg(1);
    let r = c.call("^", vec![x, int(2)]);
    c.ret(r);
    closure(&mut p, "#sq#1", &[], c.done());
    let mut g = Fb::new("sq", &[]);
    let f = g.op(Op::Closure("#sq#1".into()), vec![]);
    g.ret(f);
    p.globals.insert(
        "sq".into(),
        Global {
            name: "sq".into(),
            body: Arc::new(g.done()),
            span: Span::default(),
        },
    );
    one(&mut p, "f", &["x"], |b| {
        let x = b.arg(0);
        let n = b.op(Op::Global("N".into()), vec![]);
        let y = b.call("sq", vec![x]);
        b.call("*", vec![n, y])
    });
    expect![[r##"
        f(%1::Float64) :: Float64   # x
        #1:
          %2 = global N :: Int64
          %3 = global sq :: var"#sq#1"
          %4 = invoke (::#sq#1)(%3, %1) :: Float64
          %5 = float(%2) :: Float64
          %6 = %5 * %4 :: Float64
          return %6
        #sq#1(%1::var"#sq#1", %2::Float64) :: Float64   # #self#, x
        #1:
          %3 = %2 ^ 2 :: Float64
          return %3
        global N = N@global() :: Int64
        #1:
          return 3
        global sq = sq@global() :: var"#sq#1"
        #1:
          %1 = new var"#sq#1"() :: var"#sq#1"
          return %1
    "##]]
    .assert_eq(&typed(&p, "f", &[Type::Float64]));
}

#[test]
fn dispatch_picks_the_most_specific_method() {
    let mut p = Program::default();
    for (sig, tag) in [
        (ty("Real"), 1),
        (ty("AbstractFloat"), 2),
        (ty("Float64"), 3),
        (ty("Integer"), 4),
        (ty("AbstractVector"), 5),
        (ty_app("Vector", &["Float64"]), 6),
        (ty_app("AbstractArray", &["T"]), 7),
        (ty("Function"), 8),
        (None, 9),
    ] {
        let mut b = Fb::new("g", &["x"]);
        b.ret(int(tag));
        method_where(&mut p, "g", vec![sig], &["T"], b.done());
    }
    let callee = |t: Type| -> String {
        match zy_infer::infer_entry(&p, "g", &[t]) {
            Ok((root, _)) => root.method.to_string(),
            Err(e) => errors(&e),
        }
    };
    let vi = Type::Array(Arc::new(Type::Int64), 1);
    let got: Vec<String> = [
        Type::Float64,
        Type::Int64,
        Type::Bool,
        Type::vector_f64(),
        vi,
        Type::matrix_f64(),
        Type::Function("sin".into()),
        Type::Nothing,
    ]
    .into_iter()
    .map(callee)
    .collect();
    // Methods are 0-based: Float64 -> 2, Int -> Integer (3), Bool -> Integer (3), ...
    assert_eq!(got, ["2", "3", "3", "5", "4", "6", "7", "8"]);
}

#[test]
fn callable_structs_dispatch_on_the_callee() {
    let mut p = Program::default();
    structdef(
        &mut p,
        "Dense",
        &[],
        &[
            ("W", ty_app("Matrix", &["Float64"])),
            ("b", ty_app("Vector", &["Float64"])),
        ],
        false,
    );
    let mut b = Fb::new("(::Dense)", &["d", "x"]);
    let (d, x) = (b.arg(0), b.arg(1));
    let w = b.call("getfield", vec![d.clone(), sym("W")]);
    let bb = b.call("getfield", vec![d, sym("b")]);
    let y = b.call("*", vec![w, x]);
    let z = b.call("+", vec![y, bb]);
    b.ret(z);
    method(&mut p, "(::Dense)", vec![ty("Dense"), None], b.done());
    one(&mut p, "run", &["W", "b", "x"], |b| {
        let (w, bb, x) = (b.arg(0), b.arg(1), b.arg(2));
        let d = b.call("Dense", vec![w, bb]);
        b.op(Op::CallValue, vec![d, x])
    });
    expect![[r#"
        run(%1::Matrix{Float64}, %2::Vector{Float64}, %3::Vector{Float64}) :: Vector{Float64}   # W, b, x
        #1:
          %4 = new Dense(%1, %2) :: Dense
          %5 = invoke (::Dense)(%4, %3) :: Vector{Float64}
          return %5
        (::Dense)(%1::Dense, %2::Vector{Float64}) :: Vector{Float64}   # d, x
        #1:
          %3 = getfield(%1, 1) :: Matrix{Float64}
          %4 = getfield(%1, 2) :: Vector{Float64}
          %5 = matmul(%3, %2) :: Vector{Float64}
          %6 = check_axes(%5, %4) :: Nothing
          %7 = broadcast(+, %5, %4) :: Vector{Float64}
          return %7
    "#]]
    .assert_eq(&typed(&p, "run", &[Type::matrix_f64(), Type::vector_f64(), Type::vector_f64()]));
    let dense = zy_infer::infer_entry(
        &p,
        "run",
        &[Type::matrix_f64(), Type::vector_f64(), Type::vector_f64()],
    )
    .map(|(_, prog)| {
        prog.functions
            .keys()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
    });
    assert_eq!(
        dense,
        Ok(vec![
            "(::Dense)(::Dense, ::Vector{Float64})".to_string(),
            "run(::Matrix{Float64}, ::Vector{Float64}, ::Vector{Float64})".to_string()
        ])
    );
}

#[test]
fn diagonal_signatures_are_more_specific() {
    let mut p = Program::default();
    // g(x::T, y::T) where T = 1, then g(x, y) = 2 (defined later).
    for (sig, vars, tag) in [
        (vec![ty("T"), ty("T")], vec!["T"], 1),
        (vec![None, None], vec![], 2),
    ] {
        let mut b = Fb::new("g", &["x", "y"]);
        b.ret(int(tag));
        method_where(&mut p, "g", sig, &vars, b.done());
    }
    let pick = |args: &[Type]| {
        zy_infer::infer_entry(&p, "g", args)
            .map(|(i, _)| i.method)
            .map_err(|e| errors(&e))
    };
    assert_eq!(pick(&[Type::Float64, Type::Float64]), Ok(0));
    assert_eq!(pick(&[Type::Float64, Type::Int64]), Ok(1));
}

#[test]
fn scalar_promotion_follows_julia() {
    let mut p = Program::default();
    one(&mut p, "f", &["b", "i", "x"], |bb| {
        let (b, i, x) = (bb.arg(0), bb.arg(1), bb.arg(2));
        let v = vec![
            bb.call("+", vec![b.clone(), b.clone()]),
            bb.call("-", vec![b.clone(), i.clone()]),
            bb.call("*", vec![b.clone(), x.clone()]),
            bb.call("÷", vec![i.clone(), int(2)]),
            bb.call("%", vec![x.clone(), i.clone()]),
            bb.call("^", vec![i.clone(), i.clone()]),
            bb.call("^", vec![i.clone(), x.clone()]),
            bb.call("^", vec![x.clone(), b.clone()]),
            bb.call("<", vec![b.clone(), x.clone()]),
            bb.call("-", vec![b.clone()]),
            bb.call("abs", vec![i.clone()]),
            bb.call("floor", vec![x.clone()]),
            bb.call("sqrt", vec![i.clone()]),
            bb.call("max", vec![i.clone(), x.clone()]),
            bb.call("Int", vec![x.clone()]),
            bb.call(
                "==",
                vec![x.clone(), zy_ir::Operand::Const(zy_ir::Const::Nothing)],
            ),
        ];
        bb.call("tuple", v)
    });
    expect![[r#"
        f(%1::Bool, %2::Int64, %3::Float64) :: Tuple{Int64, Int64, Float64, Int64, Float64, Int64, Float64, Float64, Bool, Int64, Int64, Float64, Float64, Float64, Int64, Bool}   # b, i, x
        #1:
          %4 = Int(%1) :: Int64
          %5 = Int(%1) :: Int64
          %6 = %4 + %5 :: Int64
          %7 = Int(%1) :: Int64
          %8 = %7 - %2 :: Int64
          %9 = copysign(0.0, %3) :: Float64
          %10 = ifelse(%1, %3, %9) :: Float64
          %11 = %2 ÷ 2 :: Int64
          %12 = float(%2) :: Float64
          %13 = %3 % %12 :: Float64
          %14 = %2 ^ %2 :: Int64
          %15 = float(%2) :: Float64
          %16 = %15 ^ %3 :: Float64
          %17 = Int(%1) :: Int64
          %18 = %3 ^ %17 :: Float64
          %19 = float(%1) :: Float64
          %20 = %19 < %3 :: Bool
          %21 = Int(%1) :: Int64
          %22 = -%21 :: Int64
          %23 = abs(%2) :: Int64
          %24 = floor(%3) :: Float64
          %25 = float(%2) :: Float64
          %26 = sqrt(%25) :: Float64
          %27 = float(%2) :: Float64
          %28 = max(%27, %3) :: Float64
          %29 = Int(%3) :: Int64
          %30 = tuple(%6, %8, %10, %11, %13, %14, %16, %18, %20, %22, %23, %24, %26, %28, %29, false) :: Tuple{Int64, Int64, Float64, Int64, Float64, Int64, Float64, Float64, Bool, Int64, Int64, Float64, Float64, Float64, Int64, Bool}
          return %30
    "#]]
    .assert_eq(&typed(&p, "f", &[Type::Bool, Type::Int64, Type::Float64]));
    one(&mut p, "g", &["x", "b"], |bb| {
        let (x, b) = (bb.arg(0), bb.arg(1));
        let d = bb.call("÷", vec![x.clone(), x]);
        let m = bb.call("*", vec![b.clone(), b.clone()]);
        let r = bb.call("%", vec![b.clone(), b]);
        bb.call("tuple", vec![d, m, r])
    });
    expect![[r#"
        g(%1::Float64, %2::Bool) :: Tuple{Float64, Bool, Bool}   # x, b
        #1:
          %3 = %1 ÷ %1 :: Float64
          %4 = %2 * %2 :: Bool
          %5 = %2 % %2 :: Bool
          %6 = tuple(%3, %4, %5) :: Tuple{Float64, Bool, Bool}
          return %6
    "#]]
    .assert_eq(&typed(&p, "g", &[Type::Float64, Type::Bool]));
}

#[test]
fn sum_of_a_predicate_counts_in_int() {
    let mut p = Program::default();
    one(&mut p, "pos", &["x"], |b| {
        let x = b.arg(0);
        b.call(">", vec![x, float(0.0)])
    });
    one(&mut p, "f", &["v"], |b| {
        let v = b.arg(0);
        b.call("sum", vec![func("pos"), v])
    });
    let r = zy_infer::infer_entry(&p, "f", &[Type::vector_f64()]).map(|(root, prog)| {
        let sum = prog.functions.keys().find(|i| &*i.name == "sum").cloned();
        (
            prog.functions[&root].ret.clone(),
            sum.map(|s| prog.functions[&s].to_string()),
        )
    });
    let Ok((ret, Some(sum))) = r else {
        panic!("{r:?}")
    };
    assert_eq!(ret, Type::Int64);
    expect![[r#"
        sum@synth(%1::typeof(pos), %2::Vector{Float64}) :: Int64   # f, xs
        #1:
          %3 = length(%2) :: Int64
          %4 = %3 < 1 :: Bool
          br %4 ? #2 : #3
        #2:
          %5 = error(:ArgumentError, "reducing over an empty collection is not allowed; consider supplying `init` to the reducer") :: Union{}
          unreachable
        #3:
          %6 = getindex(%2, 1) :: Float64
          %7 = invoke pos(%6) :: Bool
          %8 = Int(%7) :: Int64
          br #4
        #4:
          %9 = φ(#3 → 2, #5 → %16) :: Int64
          %10 = φ(#3 → %8, #5 → %15) :: Int64
          %11 = %9 <= %3 :: Bool
          br %11 ? #5 : #6
        #5:
          %12 = getindex(%2, %9) :: Float64
          %13 = invoke pos(%12) :: Bool
          %14 = Int(%13) :: Int64
          %15 = %10 + %14 :: Int64
          %16 = %9 + 1 :: Int64
          br #4
        #6:
          return %10
    "#]]
    .assert_eq(&sum);
}

#[test]
fn row_vectors_scale_and_broadcast_through_their_parents() {
    let mut p = Program::default();
    one(&mut p, "f", &["x"], |b| {
        let x = b.arg(0);
        let t = b.call("adjoint", vec![x]);
        let s = b.call("*", vec![int(2), t.clone()]);
        let u = b.call("broadcast", vec![func("sin"), t]);
        b.call("+", vec![s, u])
    });
    expect![[r#"
        f(%1::Vector{Float64}) :: Adjoint{Float64, Vector{Float64}}   # x
        #1:
          %2 = adjoint(%1) :: Adjoint{Float64, Vector{Float64}}
          %3 = adjoint(%2) :: Vector{Float64}
          %4 = broadcast(*, 2.0, %3) :: Vector{Float64}
          %5 = adjoint(%4) :: Adjoint{Float64, Vector{Float64}}
          %6 = adjoint(%2) :: Vector{Float64}
          %7 = broadcast(sin, %6) :: Vector{Float64}
          %8 = adjoint(%7) :: Adjoint{Float64, Vector{Float64}}
          %9 = check_axes(%5, %8) :: Nothing
          %10 = adjoint(%5) :: Vector{Float64}
          %11 = adjoint(%8) :: Vector{Float64}
          %12 = broadcast(+, %10, %11) :: Vector{Float64}
          %13 = adjoint(%12) :: Adjoint{Float64, Vector{Float64}}
          return %13
    "#]]
    .assert_eq(&typed(&p, "f", &[Type::vector_f64()]));
}
