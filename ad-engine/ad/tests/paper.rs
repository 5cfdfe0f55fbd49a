//! The Zygote paper's worked examples: forward and pullback IR as snapshots.

mod common;

use expect_test::{expect, Expect};

fn check(case: (std::sync::Arc<zy_ir::Instance>, zy_ir::TypedProgram), fwd: Expect, pb: Expect) {
    let (inst, prog) = case;
    let (f, p) = zy_ad::adjoint_functions(None, &prog, &inst).expect("differentiable");
    let (f, p) = (&*f, &*p);
    assert_eq!(zy_ir::verify(f), Vec::<String>::new(), "{f}");
    assert_eq!(zy_ir::verify(p), Vec::<String>::new(), "{p}");
    fwd.assert_eq(&f.to_string());
    pb.assert_eq(&p.to_string());
}

#[test]
fn ratio() {
    check(
        common::paper_ratio(),
        expect![[r#"
            f⁺(%1::Float64, %2::Float64) :: Tuple{Float64, Pullback{typeof(f⁻), Float64, Float64}}   # a, b
            #1:
              %3 = %2 ^ 2 :: Float64
              %4 = %1 + %3 :: Float64
              %5 = %1 / %4 :: Float64
              %6 = tuple(%2, %4, %5) :: Tuple{Float64, Float64, Float64}
              %7 = make_pullback(f⁻, 0, %6) :: Pullback{typeof(f⁻), Float64, Float64}
              %8 = tuple(%5, %7) :: Tuple{Float64, Pullback{typeof(f⁻), Float64, Float64}}
              return %8
        "#]],
        expect![[r#"
            f⁻(%1::Tuple{Float64, Float64, Float64}, %2::Float64) :: Tuple{Float64, Float64}
            #1:
              br #2
            #2:
              %3 = getfield(%1, 1) :: Float64       # b
              %4 = getfield(%1, 2) :: Float64
              %5 = getfield(%1, 3) :: Float64
              %6 = %2 / %4 :: Float64
              %7 = %6 * %5 :: Float64
              %8 = -%7 :: Float64
              %9 = %6 + %8 :: Float64
              %10 = 2.0 * %3 :: Float64
              %11 = %8 * %10 :: Float64
              %12 = tuple(%9, %11) :: Tuple{Float64, Float64}
              return %12
        "#]],
    );
}

#[test]
fn leaky_relu_records_the_branch() {
    check(
        common::leaky_relu(),
        expect![[r#"
            relu⁺(%1::Float64) :: Tuple{Float64, Pullback{typeof(relu⁻), Float64}}   # x
            #1:
              %4 = %1 > 0.0 :: Bool
              br %4 ? #2 : #3
            #2:
              br #4
            #3:
              %5 = 0.01 * %1 :: Float64
              br #4
            #4:
              %2 = φ(#2 → %1, #3 → %5) :: Float64   # y
              %3 = φ(#2 → 1, #3 → 2) :: Int64       # br#4
              %6 = tuple(%1, %3) :: Tuple{Float64, Int64}
              %7 = make_pullback(relu⁻, 0, %6) :: Pullback{typeof(relu⁻), Float64}
              %8 = tuple(%2, %7) :: Tuple{Float64, Pullback{typeof(relu⁻), Float64}}
              return %8
        "#]],
        expect![[r#"
            relu⁻(%1::Tuple{Float64, Int64}, %2::Float64) :: Tuple{Float64}
            #1:
              br #2
            #2:
              %4 = getfield(%1, 2) :: Int64         # br#4
              %5 = %4 == 1 :: Bool
              br %5 ? #4 : #3
            #3:
              %6 = %2 * 0.01 :: Float64
              br #4
            #4:
              %3 = φ(#2 → %2, #3 → %6) :: Float64   # x̄
              %7 = tuple(%3) :: Tuple{Float64}
              return %7
        "#]],
    );
}

#[test]
fn pow_pushes_one_float_per_iteration() {
    check(
        common::pow(),
        expect![[r#"
            pow⁺(%1::Float64, %2::Int64) :: Tuple{Float64, Pullback{typeof(pow⁻), Float64, Int64}}   # x, n
            #1:
              %6 = stack() :: Stack{Tuple{Float64}} # stk#3
              br #2
            #2:
              %3 = φ(#1 → 1.0, #3 → %9) :: Float64  # r
              %4 = φ(#1 → %2, #3 → %8) :: Int64     # n
              %5 = φ(#1 → 0, #3 → %10) :: Int64     # iter#2
              %7 = %4 > 0 :: Bool
              br %7 ? #3 : #4
            #3:
              %8 = %4 - 1 :: Int64                  # n
              %9 = %3 * %1 :: Float64               # r
              %10 = %5 + 1 :: Int64
              %11 = tuple(%3) :: Tuple{Float64}     # α#3
              %12 = push!(%6, %11) :: Nothing
              br #2
            #4:
              %13 = tuple(%5, %1, %6) :: Tuple{Int64, Float64, Stack{Tuple{Float64}}}
              %14 = make_pullback(pow⁻, 0, %13) :: Pullback{typeof(pow⁻), Float64, Int64}
              %15 = tuple(%3, %14) :: Tuple{Float64, Pullback{typeof(pow⁻), Float64, Int64}}
              return %15
        "#]],
        expect![[r#"
            pow⁻(%1::Tuple{Int64, Float64, Stack{Tuple{Float64}}}, %2::Float64) :: Tuple{Float64, Nothing}
            #1:
              %6 = getfield(%1, 1) :: Int64         # iter#2
              br #2
            #2:
              %3 = φ(#1 → %2, #5 → %14) :: Float64  # r̄
              %4 = φ(#1 → %6, #5 → %9) :: Int64     # iter#2
              %5 = φ(#1 → 0.0, #5 → %16) :: Float64 # x̄
              %7 = %4 == 0 :: Bool
              br %7 ? #3 : #4
            #3:
              %8 = tuple(%5, nothing) :: Tuple{Float64, Nothing}
              return %8
            #4:
              %9 = %4 - 1 :: Int64
              br #5
            #5:
              %10 = getfield(%1, 3) :: Stack{Tuple{Float64}}
              %11 = pop!(%10) :: Tuple{Float64}     # α#3
              %12 = getfield(%11, 1) :: Float64
              %13 = getfield(%1, 2) :: Float64      # x
              %14 = %3 * %13 :: Float64
              %15 = %3 * %12 :: Float64
              %16 = %5 + %15 :: Float64
              br #2
        "#]],
    );
}
