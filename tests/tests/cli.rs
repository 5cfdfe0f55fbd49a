//! What `zy-analyze` prints, checked through the `zy-ide` API it is a thin layer over: values
//! in text and JSON, IR snapshots of the paper's `pow`, and the one-line errors for bad input.
//! (The binary's exit statuses are tested in `server/cli/tests`.)

use std::path::Path;

use expect_test::{expect, Expect};
use zy_ide::{AnalysisHost, Engine, EvalLimits, FileId, IrStage};

const POW: &str = "\
# zy: at pow(2.0, 3)
function pow(x, n)
    r = 1
    while n > 0
        r *= x
        n -= 1
    end
    return r
end

get_at(x, i) = x[i]
";

fn host(text: &str) -> (AnalysisHost, FileId) {
    let mut host = AnalysisHost::new();
    let file = host.set_file_text(Path::new("pow.jl"), text.to_string());
    (host, file)
}

fn eval(call: &str) -> String {
    let (host, file) = host(POW);
    match host
        .analysis()
        .eval(file, call, EvalLimits::default())
        .unwrap()
    {
        Ok(v) => format!("{} {}", v.display, v.json),
        Err(e) => e.to_string(),
    }
}

/// The display of `call`'s value in `file`, or its error.
fn display(host: &AnalysisHost, file: FileId, call: &str) -> String {
    match host
        .analysis()
        .eval(file, call, EvalLimits::default())
        .unwrap()
    {
        Ok(v) => v.display,
        Err(e) => e.to_string(),
    }
}

fn ir(stage: IrStage, at: Option<&str>, expect: Expect) {
    let (host, file) = host(POW);
    let text = host
        .analysis()
        .view_ir(file, "pow", at, stage)
        .unwrap()
        .unwrap();
    expect.assert_eq(&text);
}

#[test]
fn eval_prints_the_value_as_julia_shows_it_and_as_json() {
    assert_eq!(eval("pow(2.0, 3)"), "8.0 8.0");
    assert_eq!(eval("pow(2, 10)"), "1024 1024");
    // `r = 1` never multiplied stays Julia's Int.
    assert_eq!(eval("pow(2.0, 0)"), "1 1");
    assert_eq!(eval("get_at([1.5, 2.5], 2)"), "2.5 2.5");
}

/// An array of views prints Julia's element type `SubArray{T, N, P, I, L}`: a whole column or
/// row by `Base.Slice`, a part of one or of a vector by a range.
#[test]
fn arrays_of_views_print_julias_subarray_type() {
    let src = "\
columns(A) = collect(eachcol(A))
rows(A) = collect(eachrow(A))
windows(x) = [view(x, 1:2), view(x, 2:3)]
strided(x) = [view(x, 1:2:3)]
parts(A) = ([view(A, 1:1, 2), view(A, 2:2, 1)], [view(A, 2, 1:1)])
mixed(A) = [view(A, :, 1), view(A, 1:1, 2)]
";
    let (host, file) = host(src);
    let show = |call: &str| display(&host, file, call);
    let a = "[1.0 2.0; 3.0 4.0]";
    assert_eq!(
        show(&format!("columns({a})")),
        "SubArray{Float64, 1, Matrix{Float64}, Tuple{Base.Slice{Base.OneTo{Int64}}, Int64}, \
         true}[[1.0, 3.0], [2.0, 4.0]]"
    );
    assert_eq!(
        show(&format!("rows({a})")),
        "SubArray{Float64, 1, Matrix{Float64}, Tuple{Int64, Base.Slice{Base.OneTo{Int64}}}, \
         true}[[1.0, 2.0], [3.0, 4.0]]"
    );
    assert_eq!(
        show("windows([1.0, 2.0, 3.0])"),
        "SubArray{Float64, 1, Vector{Float64}, Tuple{UnitRange{Int64}}, true}[[1.0, 2.0], \
         [2.0, 3.0]]"
    );
    assert_eq!(
        show("strided([1, 2, 3])"),
        "SubArray{Int64, 1, Vector{Int64}, Tuple{StepRange{Int64, Int64}}, true}[[1, 3]]"
    );
    assert_eq!(
        show(&format!("parts({a})")),
        "(SubArray{Float64, 1, Matrix{Float64}, Tuple{UnitRange{Int64}, Int64}, true}[[2.0], \
         [3.0]], SubArray{Float64, 1, Matrix{Float64}, Tuple{Int64, UnitRange{Int64}}, \
         true}[[3.0]])"
    );
    // Views of different kinds: zy's own element type.
    assert!(show(&format!("mixed({a})")).starts_with("SubArray{Matrix{Float64}"));
}

/// Ranges, views, pairs and the LinearAlgebra wrappers print as Julia's `show` prints them, not
/// as the prelude's fields (`1:4`, not `Base.UnitRange{Int64}(1, 4)`).
#[test]
fn library_values_print_as_julia_shows_them() {
    let src = "\
using LinearAlgebra
ranges() = (1:3 .+ 1, 1:2:5, 5:-1:2, 1:0, 0.0:0.1:1.0, range(0, 1, length = 5), LinRange(0.0, 1.0, 5))
views(A, x) = (view(A, :, 1), view(A, 2, :), view(x, [true, false, true]), view(x, 2:3))
wrappers() = (Diagonal([1.0, 2.0]), I, 2.0 * I, 1 => 2.0, 1 => 2 => 3, sin ∘ cos, RoundDown)
banded() = (Tridiagonal([1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0]), SymTridiagonal([1, 2], [3]), Bidiagonal([1.0, 2.0], [3.0], :L))
iterators(x) = (enumerate(x), zip(x, 1:2))
";
    let (host, file) = host(src);
    let show = |call: &str| display(&host, file, call);
    assert_eq!(
        show("ranges()"),
        "(1:4, 1:2:5, 5:-1:2, 1:0, 0.0:0.1:1.0, 0.0:0.25:1.0, LinRange{Float64}(0.0, 1.0, 5))"
    );
    assert_eq!(
        show("views([1.0 2.0; 3.0 4.0], [1, 2, 3])"),
        "([1.0, 3.0], [3.0, 4.0], [1, 3], [2, 3])"
    );
    assert_eq!(
        show("wrappers()"),
        "([1.0 0.0; 0.0 2.0], UniformScaling{Bool}(true), UniformScaling{Float64}(2.0), \
         1 => 2.0, 1 => (2 => 3), sin ∘ cos, RoundingMode{:Down}())"
    );
    assert_eq!(
        show("banded()"),
        "([3.0 6.0 0.0; 1.0 4.0 7.0; 0.0 2.0 5.0], [1 3; 3 2], [1.0 0.0; 3.0 2.0])"
    );
    assert_eq!(
        show("iterators([1.0, 2.0])"),
        "(enumerate([1.0, 2.0]), zip([1.0, 2.0], 1:2))"
    );
}

#[test]
fn grad_gives_one_gradient_per_argument() {
    let (host, file) = host(POW);
    let analysis = host.analysis();
    for engine in [Engine::Interp, Engine::Jit] {
        let g = analysis
            .grad(file, "pow(2.0, 3)", EvalLimits::default(), engine)
            .unwrap()
            .unwrap();
        let why = "`n` is of type Int64, which has no gradient (only floating-point values, and arrays, tuples and structs of them, do)";
        assert_eq!(
            g.to_json_text(),
            format!(
                r#"{{"value":8.0,"gradient":[12.0,null],"nonfinite":null,"why":[{{"arg":1,"col":17,"file":"pow.jl","line":2,"message":"{why}","name":"n"}}]}}"#
            )
        );
        assert_eq!(
            g.to_text(),
            format!("value: 8.0\ngradient: (12.0, nothing)\nnote: pow.jl:2:17: {why}")
        );
        assert_eq!(g.jit_fallback, None, "the JIT compiles pow's gradient");
    }
}

#[test]
fn a_non_scalar_result_is_refused_naming_the_type_julia_gives() {
    // A shared reshape is a view inside zy; Julia's `reshape` of a Vector is a Matrix.
    let (host, file) = host("square(x) = reshape(x, 2, 2)\n");
    let e = host
        .analysis()
        .grad(
            file,
            "square([1.0, 2.0, 3.0, 4.0])",
            EvalLimits::default(),
            Engine::Interp,
        )
        .unwrap()
        .map(|g| g.to_text())
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "pow.jl:1:1: error: gradient of a non-scalar result (Matrix{Float64})"
    );
}

#[test]
fn a_gradient_through_any_or_missing_fails_where_the_result_is_no_number() {
    let (host, file) = host(
        "loss(p) = sum(abs2, p[1] * [1.0, 2.0] .+ p[2]) * p[3]\n\
         pick(p, k) = p[k] * 2.0\n\
         cube(x) = x > 0 ? x^3 : missing\n",
    );
    let analysis = host.analysis();
    for engine in [Engine::Interp, Engine::Jit] {
        let grad = |call: &str| {
            analysis
                .grad(file, call, EvalLimits::default(), engine)
                .unwrap()
        };
        // The parameters' gradients, one per entry; the JIT leaves the container of `Any` to
        // the interpreter and says so.
        let g = grad("loss(Any[[1.0 2.0; 3.0 4.0], [0.5, -1.0], 0.5])").unwrap();
        assert_eq!(
            g.to_json_text(),
            r#"{"value":65.125,"gradient":[[[[5.5,11.0],[10.0,20.0]],[5.5,10.0],130.25]],"nonfinite":null,"why":[]}"#
        );
        if engine == Engine::Jit {
            let fallback = g.jit_fallback.clone().unwrap_or_default();
            assert!(fallback.contains("arrays of Any"), "{fallback}");
        }
        // A value of `Any` that is an array where the result is: no gradient of it.
        let e = grad("pick(Any[[1.0, 2.0], 3.0], 1)").unwrap_err();
        assert!(
            e.to_string()
                .contains("`pick` returned a Vector{Float64} (its result is of type Any)"),
            "{e}"
        );
        let text = grad("pick(Any[[1.0, 2.0], 3.0], 2)").unwrap().to_text();
        assert!(
            text.starts_with("value: 6.0\ngradient: (Any[[0.0, 0.0], 2.0], nothing)"),
            "{text}"
        );
        assert_eq!(
            grad("cube(2.0)").unwrap().to_json_text(),
            r#"{"value":8.0,"gradient":[12.0],"nonfinite":null,"why":[]}"#
        );
        let e = grad("cube(-2.0)").unwrap_err();
        assert!(e.to_string().contains("`cube` returned a Missing"), "{e}");
    }
}

#[test]
fn grad_of_a_library_call_differentiates_it_as_written() {
    let (host, file) = host("using LinearAlgebra\nconst A0 = [2.0 1.0; 0.5 3.0]\n");
    let analysis = host.analysis();
    for engine in [Engine::Interp, Engine::Jit] {
        let grad = |call: &str| {
            let g = analysis
                .grad(file, call, EvalLimits::default(), engine)
                .unwrap()
                .unwrap();
            (g.to_json_text(), g.to_text(), g.jit_fallback.clone())
        };
        // d det(A) = det(A) inv(A)', the cofactors; a constant of the file as the argument.
        let (json, _, fallback) = grad("det(A0)");
        assert_eq!(
            json,
            r#"{"value":5.5,"gradient":[[[3.0,-0.5],[-1.0,2.0]]],"nonfinite":null,"why":[]}"#
        );
        assert_eq!(fallback, None, "the JIT compiles det's gradient");
        let (json, _, _) = grad("sum([1.0, 2.0])");
        assert_eq!(
            json,
            r#"{"value":3.0,"gradient":[[1.0,1.0]],"nonfinite":null,"why":[]}"#
        );
        // An Int argument has no gradient.
        let (json, text, _) = grad("max(2, 3.5)");
        assert_eq!(
            json,
            r#"{"value":3.5,"gradient":[null,1.0],"nonfinite":null,"why":[]}"#
        );
        assert_eq!(text, "value: 3.5\ngradient: (nothing, 1.0)");
    }
}

#[test]
fn primal_ir_of_pow() {
    ir(
        IrStage::Primal,
        None,
        expect![[r#"
            pow(%1, %2)   # x, n
            #1:
              br #2
            #2:
              %3 = φ(#1 → %2, #3 → %7)              # n
              %4 = φ(#1 → 1, #3 → %6)               # r
              %5 = Base.>(%3, 0)
              br %5 ? #3 : #4
            #3:
              %6 = Base.*(%4, %1)                   # r
              %7 = Base.-(%3, 1)                    # n
              br #2
            #4:
              return %4
        "#]],
    );
}

#[test]
fn typed_ir_of_pow_at_the_annotation_and_at_a_call() {
    ir(
        IrStage::Typed,
        None,
        expect![[r#"
            pow(%1::Float64, %2::Int64) :: Union{Float64, Int64}   # x, n
            #1:
              br #5
            #2:
              %3 = φ(#3 → %7, #6 → %15) :: Int64    # n
              %4 = φ(#3 → %6, #6 → %14) :: Float64  # r
              %5 = %3 > 0 :: Bool
              br %5 ? #3 : #7
            #3:
              %6 = %4 * %1 :: Float64               # r
              %7 = %3 - 1 :: Int64                  # n
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
              %13 = float(%10) :: Float64
              %14 = %13 * %1 :: Float64             # r
              %15 = %9 - 1 :: Int64                 # n
              br #2
            #7:
              %16 = union_convert(%4) :: Union{Float64, Int64}
              br #4
        "#]],
    );
    ir(
        IrStage::Typed,
        Some("pow(2, 3)"),
        expect![[r#"
            pow(%1::Int64, %2::Int64) :: Int64   # x, n
            #1:
              br #2
            #2:
              %3 = φ(#1 → %2, #3 → %7) :: Int64     # n
              %4 = φ(#1 → 1, #3 → %6) :: Int64      # r
              %5 = %3 > 0 :: Bool
              br %5 ? #3 : #4
            #3:
              %6 = %4 * %1 :: Int64                 # r
              %7 = %3 - 1 :: Int64                  # n
              br #2
            #4:
              return %4
        "#]],
    );
}

/// `exp.(x)` of numbers is the builtin's loop although the library's `exp` has a method for
/// matrices (which no Float64 element matches): one `broadcast` primitive, which the JIT fuses
/// with `x .- m` (logsumexp), not a call of a synthesised broadcast of a Julia function.
#[test]
fn a_library_function_broadcast_over_numbers_is_the_builtin_primitive() {
    let src = "lse(x) = (m = maximum(x); m + log(sum(exp.(x .- m))))\nsq(A) = exp.(A)\n";
    let (host, file) = host(src);
    let typed = |name: &str, at: &str| {
        host.analysis()
            .view_ir(file, name, Some(at), IrStage::Typed)
            .unwrap()
            .unwrap()
    };
    let lse = typed("lse", "lse([1.0, 2.0])");
    assert!(lse.contains("= broadcast(exp, %"), "{lse}");
    assert!(!lse.contains("invoke"), "{lse}");
    // Over a vector of matrices the element's call is the matrix method: a Julia broadcast.
    let sq = typed("sq", "sq([[1.0 0.0; 0.0 1.0]])");
    // (The text names the library method after `@`: `invoke broadcast@m(Base.exp, %2)`.)
    assert!(
        sq.contains("invoke broadcast@") && sq.contains("(Base.exp, %"),
        "{sq}"
    );
}

#[test]
fn bad_calls_are_one_line_errors_with_a_position() {
    assert_eq!(
        eval("pow(2.0)"),
        "<call>:1:1: error: MethodError: no method matching pow(::Float64)"
    );
    assert_eq!(
        eval("powx(2.0, 1)"),
        "<call>:1:1: error: UndefVarError: `powx` not defined"
    );
    assert_eq!(
        eval("get_at([1.0, 2.0], 3)"),
        "pow.jl:11:16: error: BoundsError: attempt to access 2-element Vector{Float64} at index [3]"
    );
    assert_eq!(eval("pow(2.0, "), "<call>:1:4: error: missing `)`");
}

#[test]
fn an_error_inside_the_library_is_reported_at_the_program_call_that_reached_it() {
    let text = "\
struct Countdown
    n::Int
end
Base.iterate(c::Countdown, s = c.n) = s <= 0 ? nothing : (s, s - 1)
first_of(c) = first(c)
closures(x) = sum(g() for g in [() -> x * i for i in 1:3])
";
    let (host, file) = host(text);
    let error = |call: &str| {
        let result = host.analysis().eval(file, call, EvalLimits::default());
        result.unwrap().unwrap_err().to_string()
    };
    assert_eq!(
        error("first_of(Countdown(0))"),
        "pow.jl:5:15: error: ArgumentError: collection must be non-empty (raised in Julia's \
         library, in `_first_iterated`)"
    );
    let closures = error("closures(2.0)");
    assert!(
        closures.starts_with("pow.jl:6:32: error: unsupported: `map` of a function returning")
            && closures.contains("an array of closures"),
        "{closures}"
    );
}

#[test]
fn a_struct_with_a_show_method_is_displayed_by_it() {
    let text = "\
struct P
    a::Float64
end
Base.show(io::IO, p::P) = print(io, \"P<\", p.a, \">\")
";
    let (host, file) = host(text);
    let display = |call: &str| {
        let result = host.analysis().eval(file, call, EvalLimits::default());
        result.unwrap().unwrap().display
    };
    assert_eq!(display("P(1.5)"), "P<1.5>");
    assert_eq!(display("[P(1.0), P(2.0)]"), "P[P<1.0>, P<2.0>]");
    assert_eq!(display("(P(1.0), 2)"), "(P<1.0>, 2)");
    assert_eq!(display("P(1.5).a"), "1.5");
}

#[test]
fn a_file_with_a_syntax_error_is_refused() {
    let (host, file) = host("function f(x)\n    x * * 2\nend\n");
    let e = host
        .analysis()
        .eval(file, "f(1.0)", EvalLimits::default())
        .unwrap()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "pow.jl:2:9: error: syntax error: unexpected `*`"
    );
}

#[test]
fn typed_view_without_a_concrete_signature_asks_for_an_annotation() {
    let (host, file) = host("g(x) = 2x\nh(x::Float64) = 3x\n");
    let analysis = host.analysis();
    let e = analysis
        .view_ir(file, "g", None, IrStage::Typed)
        .unwrap()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "pow.jl:1:1: error: `g` has no concrete signature: add `# zy: at g(...)` above it or pass --at"
    );
    let typed = analysis
        .view_ir(file, "h", None, IrStage::Typed)
        .unwrap()
        .unwrap();
    assert!(typed.starts_with("h(%1::Float64) :: Float64"), "{typed}");
}

#[test]
fn a_struct_name_shows_its_call_methods() {
    let text = "struct Scale\n    k::Float64\nend\n(s::Scale)(x) = s.k * x\n";
    let (host, file) = host(text);
    let analysis = host.analysis();
    let primal = analysis
        .view_ir(file, "Scale", None, IrStage::Primal)
        .unwrap()
        .unwrap();
    assert!(primal.starts_with("(::Scale)(%1, %2)   # s, x"), "{primal}");
    let typed = analysis
        .view_ir(file, "Scale", Some("Scale(2.0)(3.0)"), IrStage::Typed)
        .unwrap()
        .unwrap();
    assert!(
        typed.starts_with("(::Scale)(%1::Scale, %2::Float64) :: Float64"),
        "{typed}"
    );
}

#[test]
fn a_call_string_has_functions_of_its_own() {
    // Closures, comprehensions and `do` blocks are lowered with the call: (x -> x)(2.0)^2 = 4.
    assert_eq!(eval("pow((x -> x)(2.0), 2)"), "4.0 4.0");
    assert_eq!(eval("sum([pow(i, 2) for i in 1:3])"), "14 14");
    assert_eq!(
        eval("map([1.0, 2.0]) do v\n    pow(v, 3)\nend"),
        "[1.0, 8.0] [1.0,8.0]"
    );
    // d/dx x³ = 3x², 12 at 2.
    assert_eq!(eval("gradient(x -> pow(x, 3), 2.0)"), "(12.0,) [12.0]");
    // An error in the call's own function is located in the call.
    assert_eq!(
        eval("map(v -> pow(v, 2) + \"a\", [1.0])"),
        "<call>:1:10: error: MethodError: no method matching +(::Float64, ::String)"
    );
}

#[test]
fn odd_call_strings_give_values_or_one_line_errors() {
    let odd = [
        "",
        "(",
        ")",
        "pow",
        "pow(",
        "pow(2.0, 3) + 1",
        "1 +",
        "[1.0 2.0; 3.0]",
        "pow(2.0, 3)(1)",
        "x -> x",
        "for i in 1:3 end",
        "pow(2.0, 3); 1",
        "\u{0}",
        "π",
        "Inf",
        "NaN",
        "1e400",
        "pow(2.0, 10^100)",
        "get_at([1.0], -1)",
        "get_at((1.0, 2.0), 2)",
        "pow(2.0, 3",
        "#",
        "a = 1",
        "pow(\"s\", 1)",
        "pow(2.0, 3.5)",
        "get_at([1.0 2.0; 3.0 4.0], 4)",
        "1:3",
        "pow(2.0, 3)'",
    ];
    let (host, file) = host(POW);
    let analysis = host.analysis();
    for call in odd {
        let shown = match analysis.eval(file, call, EvalLimits::default()).unwrap() {
            Ok(v) => v.display,
            Err(e) => e.to_string(),
        };
        assert!(
            !shown.contains('\n') && !shown.is_empty(),
            "{call:?} gave {shown:?}"
        );
        let g = analysis
            .grad(file, call, EvalLimits::default(), Engine::Interp)
            .unwrap();
        if let Err(e) = g {
            assert!(e.to_string().contains(": error: "), "{call:?} gave {e}");
        }
    }
}

/// Values of an abstract type (a `Vector{Shape}`'s elements, calls on them split over its
/// members) compile: every gradient `fixtures/abstract_arrays.jl` expects runs in the JIT (its
/// values are the fixture test's).
#[test]
fn the_jit_compiles_arrays_of_an_abstract_type() {
    let calls = jit_compiles_every_gradient_of("abstract_arrays.jl");
    assert!(calls.len() > 10, "only {} gradients", calls.len());
}

/// A struct's field of an abstract type (`s::Shape`, the union of the structs below it) and a
/// value that is one shape or another by branch compile: every gradient
/// `fixtures/abstract31.jl` expects runs in the JIT, the write of a mutable struct's such field
/// on some paths too (its values are the fixture test's).
#[test]
fn the_jit_compiles_fields_of_an_abstract_type() {
    let calls = jit_compiles_every_gradient_of("abstract31.jl");
    assert!(calls.iter().any(|c| c.starts_with("rescene(")), "{calls:?}");
}

/// A struct's field of Julia's abstract type holding a Float64 in one value and an Int64 in
/// another (`x::Real`, a `Union{Float64, Int64}`), and a branch on a block view's style,
/// compile: every gradient `fixtures/abstract32.jl` expects runs in the JIT.
#[test]
fn the_jit_compiles_fields_of_julias_abstract_types() {
    let calls = jit_compiles_every_gradient_of("abstract32.jl");
    assert!(calls.iter().any(|c| c.starts_with("squares(")), "{calls:?}");
}

/// Run every `# expect grad:` call of the fixture `name` in the JIT, asserting that none falls
/// back to the interpreter; the calls run.
fn jit_compiles_every_gradient_of(name: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut host = AnalysisHost::new();
    let file = host.set_file_text(&path, text.clone());
    let analysis = host.analysis();
    let calls: Vec<String> = text
        .lines()
        .filter_map(|l| Some(l.strip_prefix("# expect grad: ")?.rsplit_once(" => ")?.0))
        .map(String::from)
        .collect();
    for call in &calls {
        let g = analysis
            .grad(file, call, EvalLimits::default(), Engine::Jit)
            .unwrap()
            .unwrap();
        assert_eq!(
            g.jit_fallback, None,
            "the JIT compiles the gradient of {call}"
        );
    }
    calls
}

/// A struct whose shape depends on the data (a list grown by a loop) runs in the interpreter:
/// its gradient too, the JIT engine saying why it fell back; a mutable one's gradient too,
/// through a shadow box per node. The JIT compiles such a list where no gradient reaches it,
/// a mutable one too.
#[test]
fn the_gradient_through_a_data_shaped_struct_runs_in_the_interpreter() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/structs_data_shaped.jl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut host = AnalysisHost::new();
    let file = host.set_file_text(&path, text);
    let analysis = host.analysis();
    for engine in [Engine::Interp, Engine::Jit] {
        for (call, want) in [
            ("sum_squares([1.0, 2.0, 3.0])", "[2.0, 4.0, 6.0]"),
            ("mutable_sum([1.0, 2.0])", "[1.0, 1.0]"),
        ] {
            let g = analysis
                .grad(file, call, EvalLimits::default(), engine)
                .unwrap()
                .unwrap();
            assert_eq!(g.gradient()[0].display, want, "{call}");
            let fallback = g.jit_fallback.clone().unwrap_or_default();
            assert_eq!(
                fallback.contains("whose shape depends on the data"),
                engine == Engine::Jit,
                "{call}: {fallback}"
            );
        }
        // A list that no gradient reaches is compiled, a node one pointer, a mutable one too.
        for (call, want) in [("list_scaled(2.0)", "10.0"), ("count_scaled(2.0)", "12.0")] {
            let g = analysis
                .grad(file, call, EvalLimits::default(), engine)
                .unwrap()
                .unwrap();
            assert_eq!(
                (g.gradient()[0].display.as_str(), g.jit_fallback.as_deref()),
                (want, None),
                "{call}"
            );
        }
    }
}
