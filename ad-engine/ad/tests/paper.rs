//! The Zygote paper's worked examples: forward and pullback IR as snapshots.

mod common;

use expect_test::{expect, Expect};
use zy_ad::names;

fn check(case: (std::sync::Arc<zy_ir::Instance>, zy_ir::TypedProgram), fwd: Expect, pb: Expect) {
    let (inst, prog) = case;
    let (_, out) = zy_ad::gradient_program(&prog, &inst).expect("differentiable");
    let f = &out.functions[&names::forward_instance(&inst)];
    let p = &out.functions[&names::pullback_instance(&inst)];
    assert_eq!(zy_ir::verify(f), Vec::<String>::new(), "{f}");
    assert_eq!(zy_ir::verify(p), Vec::<String>::new(), "{p}");
    fwd.assert_eq(&f.to_string());
    pb.assert_eq(&p.to_string());
}

#[test]
fn ratio() {
    check(common::paper_ratio(),
        expect![[r#"
            f⁺(%1::Float64, %2::Float64) :: Tuple{Float64, Pullback{typeof(f), Float64, Float64}}   # a, b
            #1:
              %3 = %2 ^ 2 :: Float64
              %4 = %1 + %3 :: Float64
              %5 = %1 / %4 :: Float64
              %6 = tuple(%2, %3, %4, %5) :: Tuple{Float64, Float64, Float64, Float64}
              %7 = make_pullback(f⁻, 0, %6) :: Pullback{typeof(f), Float64, Float64}
              %8 = tuple(%5, %7) :: Tuple{Float64, Pullback{typeof(f), Float64, Float64}}
              return %8
        "#]],
        expect![[r#"
            f⁻(%1::Tuple{Float64, Float64, Float64, Float64}, %2::Float64) :: Tuple{Float64, Float64}
            #1:
              %32 = zero_tangent() :: Float64
              %31 = zero_tangent() :: Float64
              %30 = zero_tangent() :: Float64
              %29 = zero_tangent() :: Float64
              br #2
            #2:
              %3 = getfield(%1, 1) :: Float64
              %4 = getfield(%1, 2) :: Float64
              %5 = getfield(%1, 3) :: Float64
              %6 = getfield(%1, 4) :: Float64
              %8 = %2 / %5 :: Float64
              %9 = %8 * %6 :: Float64
              %10 = -%9 :: Float64
              %12 = %29 + %8 :: Float64
              %14 = %30 + %10 :: Float64
              %15 = %12 + %14 :: Float64
              %17 = %31 + %14 :: Float64
              %18 = float(2) :: Float64
              %19 = %18 == 0.0 :: Bool
              %20 = float(%19) :: Float64
              %21 = %18 - 1.0 :: Float64
              %22 = %21 + %20 :: Float64
              %23 = %3 ^ %22 :: Float64
              %24 = %18 * %23 :: Float64
              %25 = %17 * %24 :: Float64
              %27 = %32 + %25 :: Float64
              %28 = tuple(%15, %27) :: Tuple{Float64, Float64}
              return %28
        "#]],
    );
}

#[test]
fn leaky_relu_records_the_branch() {
    check(common::leaky_relu(),
        expect![[r#"
            relu⁺(%1::Float64) :: Tuple{Float64, Pullback{typeof(relu), Float64}}   # x
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
              %7 = tuple(%1, %3) :: Tuple{Float64, Int64}
              %8 = make_pullback(relu⁻, 0, %7) :: Pullback{typeof(relu), Float64}
              %9 = tuple(%2, %8) :: Tuple{Float64, Pullback{typeof(relu), Float64}}
              return %9
        "#]],
        expect![[r#"
            relu⁻(%1::Tuple{Float64, Int64}, %2::Float64) :: Tuple{Float64}
            #1:
              %20 = zero_tangent() :: Float64
              %19 = zero_tangent() :: Float64
              br #2
            #2:
              %3 = getfield(%1, 2) :: Int64         # br#4
              %7 = %3 == 1 :: Bool
              br %7 ? #6 : #7
            #3:
              br #5
            #4:
              %10 = getfield(%1, 1) :: Float64
              %12 = %9 * %10 :: Float64
              %13 = %9 * 0.01 :: Float64
              %15 = %19 + %13 :: Float64
              br #5
            #5:
              %16 = φ(#3 → %6, #4 → %15) :: Float64 # x̄
              %17 = tuple(%16) :: Tuple{Float64}
              return %17
            #6:
              %6 = %19 + %2 :: Float64
              br #3
            #7:
              br #8
            #8:
              %9 = %20 + %2 :: Float64
              br #4
        "#]],
    );
}

#[test]
fn pow_pushes_one_float_per_iteration() {
    check(common::pow(),
        expect![[r#"
            pow⁺(%1::Float64, %2::Int64) :: Tuple{Float64, Pullback{typeof(pow), Float64, Int64}}   # x, n
            #1:
              %13 = stack() :: Stack{Tuple{Float64}} # stk#3
              %10 = stack() :: Stack{Tuple{Int64}}  # stk#2
              br #2
            #2:
              %3 = φ(#1 → 1.0, #3 → %8) :: Float64  # r
              %4 = φ(#1 → %2, #3 → %7) :: Int64     # n
              %5 = φ(#1 → 1, #3 → 2) :: Int64       # br#2
              %6 = %4 > 0 :: Bool
              %11 = tuple(%5) :: Tuple{Int64}       # α#2
              %12 = push!(%10, %11) :: Nothing
              br %6 ? #3 : #4
            #3:
              %7 = %4 - 1 :: Int64                  # n
              %8 = %3 * %1 :: Float64               # r
              %14 = tuple(%3) :: Tuple{Float64}     # α#3
              %15 = push!(%13, %14) :: Nothing
              br #2
            #4:
              %16 = tuple(%1, %10, %13) :: Tuple{Float64, Stack{Tuple{Int64}}, Stack{Tuple{Float64}}}
              %17 = make_pullback(pow⁻, 0, %16) :: Pullback{typeof(pow), Float64, Int64}
              %18 = tuple(%3, %17) :: Tuple{Float64, Pullback{typeof(pow), Float64, Int64}}
              return %18
        "#]],
        expect![[r#"
            pow⁻(%1::Tuple{Float64, Stack{Tuple{Int64}}, Stack{Tuple{Float64}}}, %2::Float64) :: Tuple{Float64, Nothing}
            #1:
              %29 = zero_tangent() :: Float64
              %27 = zero_tangent() :: Float64
              br #3
            #2:
              %3 = getfield(%1, 3) :: Stack{Tuple{Float64}}
              %4 = pop!(%3) :: Tuple{Float64}       # α#3
              %5 = getfield(%4, 1) :: Float64
              %6 = getfield(%1, 1) :: Float64
              %8 = %20 * %6 :: Float64
              %9 = %20 * %5 :: Float64
              %11 = 0.0 + %8 :: Float64
              %13 = %26 + %9 :: Float64
              br #4
            #3:
              br #4
            #4:
              %17 = φ(#2 → %11, #3 → %2) :: Float64 # r̄
              %26 = φ(#2 → %13, #3 → %27) :: Float64 # x̄
              %28 = φ(#2 → 0.0, #3 → %29) :: Float64 # r̄
              %14 = getfield(%1, 2) :: Stack{Tuple{Int64}}
              %15 = pop!(%14) :: Tuple{Int64}       # α#2
              %16 = getfield(%15, 1) :: Int64       # br#2
              %18 = %16 == 1 :: Bool
              br %18 ? #6 : #7
            #5:
              %22 = tuple(%26, nothing) :: Tuple{Float64, Nothing}
              return %22
            #6:
              br #5
            #7:
              br #8
            #8:
              %20 = %28 + %17 :: Float64
              br #2
        "#]],
    );
}
