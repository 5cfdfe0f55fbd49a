//! Vectors of arrays, structs and tuples in compiled code (`layout::Elem`): each operation
//! compiles (the JIT must not decline), gives the interpreter's value, and leaves the caller's
//! arguments as the interpreter does (elements are references: writes into them and into the
//! vector reach the caller; a result holding an argument's element holds that very object).

use crate::support;

use support::{deep_copy, render};
use zy_codegen::JitSession;
use zy_interp::{Limits, Value};
use zy_ir::{Instance, Type, TypedProgram};

const DEFS: &str = r#"
struct Layer
    W::Matrix{Float64}
    b::Vector{Float64}
end
mutable struct Particle
    x::Float64
    v::Float64
end
"#;

/// `name` of `src` (after [`DEFS`]) typed for `args`.
fn typed(src: &str, name: &str, args: &[Type]) -> (std::sync::Arc<Instance>, TypedProgram) {
    let text = format!("{DEFS}\n{src}");
    let lowered = zy_lower::lower_file(0, &zy_syntax::parse_file(&text));
    zy_infer::infer_entry(&lowered.program, name, args)
        .unwrap_or_else(|e| panic!("{name}: {}", e[0].message))
}

/// The value of the Julia expression `expr`, by the interpreter.
fn value(expr: &str) -> Value {
    let (inst, prog) = typed(&format!("__arg__() = {expr}"), "__arg__", &[]);
    zy_interp::run(&prog, &inst, vec![], &Limits::default()).unwrap_or_else(|e| panic!("{e:?}"))
}

/// Call `name(args...)` of `src` on both engines; both must give `want`, and leave the
/// arguments showing alike. Returns the JIT's result and its (mutated) arguments.
fn both(src: &str, name: &str, args: &[&str], want: &str) -> (Value, Vec<Value>) {
    let jit_args: Vec<Value> = args.iter().map(|a| value(a)).collect();
    let interp_args: Vec<Value> = jit_args.iter().map(deep_copy).collect();
    let tys: Vec<Type> = jit_args.iter().map(Value::julia_type).collect();
    let (inst, prog) = typed(src, name, &tys);
    let mut jit = JitSession::new().unwrap();
    let compiled = jit
        .compile(&prog, &inst)
        .unwrap_or_else(|e| panic!("{name}: the JIT declined: {e}"));
    let by_jit = compiled.call(&jit_args, &Limits::default());
    let by_interp = zy_interp::run(&prog, &inst, interp_args.clone(), &Limits::default());
    assert_eq!(render(&by_jit), want, "{name} (JIT)");
    assert_eq!(render(&by_interp), want, "{name} (interpreter)");
    let show = |vs: &[Value]| vs.iter().map(zy_interp::show).collect::<Vec<_>>();
    assert_eq!(
        show(&jit_args),
        show(&interp_args),
        "{name}: arguments after"
    );
    (by_jit.unwrap_or(Value::Nothing), jit_args)
}

/// The element `i` (1-based) of a vector of objects.
fn element(v: &Value, i: usize) -> Value {
    let Value::Array(a) = v else { panic!("{v:?}") };
    a.borrow().data.get(i - 1).expect("element")
}

#[test]
fn literals_index_and_length() {
    let src = "f(x) = (xs = [x, 2x, [9.0]]; (xs[2][2], length(xs), xs))";
    both(
        src,
        "f",
        &["[1.0, 2.0]"],
        "(4.0, 3, [[1.0, 2.0], [2.0, 4.0], [9.0]])",
    );
}

#[test]
fn a_write_into_an_element_reaches_the_caller_and_every_alias() {
    let src = "f(xs) = (xs[1][2] = 0.0; ys = xs[3]; ys[1] = 7.0; xs[2] = xs[3]; xs)";
    let (out, args) = both(
        src,
        "f",
        &["[[1.0, 2.0], [3.0], [4.0]]"],
        "[[1.0, 0.0], [7.0], [7.0]]",
    );
    // The result is the argument itself; `xs[2] = xs[3]` put one array in two slots.
    assert!(out.egal(&args[0]));
    assert!(element(&args[0], 2).egal(&element(&args[0], 3)));
}

#[test]
fn setindex_stores_the_callers_own_array() {
    let src = "f(xs, y) = (xs[1] = y; y[1] = 2.0; xs[1][1] + xs[2][1])";
    let (_, args) = both(src, "f", &["[[1.0], [3.0]]", "[5.0]"], "5.0");
    assert_eq!(zy_interp::show(&args[0]), "[[2.0], [3.0]]");
    assert!(element(&args[0], 1).egal(&args[1]));
}

#[test]
fn iteration_over_elements_and_indices() {
    let src = "function f(xs)
        s = 0.0
        for x in xs
            s += x[1]
        end
        for i in 1:length(xs)
            s += i * length(xs[i])
        end
        return s
    end";
    // (1 + 3) + (1·2 + 2·1)
    both(src, "f", &["[[1.0, 2.0], [3.0]]"], "8.0");
}

#[test]
fn a_model_of_immutable_layers_in_line() {
    let src = "function f(layers, x)
        h = x
        for l in layers
            h = tanh.(l.W * h .+ l.b)
        end
        layers[2] = Layer(layers[1].W, [1.0, 1.0])
        return (h[2], layers[2].b, length(layers))
    end";
    // tanh(0.5 + 0.5) = tanh(1), then tanh(1·tanh(1) + 0).
    let want = format!(
        "({}, [1.0, 1.0], 2)",
        zy_ir::julia_float(1f64.tanh().tanh())
    );
    both(
        src,
        "f",
        &[
            "[Layer([1.0 0.0; 0.0 1.0], [0.0, 0.5]), Layer([2.0 0.0; 0.0 1.0], [0.0, 0.0])]",
            "[0.0, 0.5]",
        ],
        &want,
    );
}

#[test]
fn mutable_structs_are_written_through_the_vector() {
    let src = "function f(ps, dt)
        for p in ps
            p.x += dt * p.v
        end
        ps[2] = ps[1]
        ps[2].v = 0.0
        return ps
    end";
    let (out, args) = both(
        src,
        "f",
        &["[Particle(1.0, 2.0), Particle(3.0, -1.0)]", "0.5"],
        "Particle[Particle(2.0, 0.0), Particle(2.0, 0.0)]",
    );
    assert!(out.egal(&args[0]));
    assert!(element(&args[0], 1).egal(&element(&args[0], 2)));
}

#[test]
fn tuples_in_line() {
    let src = "function f(x)
        v = [(x, 1.0), (2x, x)]
        v[1] = (v[2][2], 0.5)
        return (v, v[1][1] * v[2][1])
    end";
    both(src, "f", &["3.0"], "([(3.0, 0.5), (6.0, 3.0)], 18.0)");
}

#[test]
fn first_and_last_are_the_elements_themselves() {
    let src = "f(xs) = (a = first(xs); a[1] = 0.0; (a, last(xs), xs[1]))";
    let (out, args) = both(
        src,
        "f",
        &["[[1.0], [2.0, 3.0]]"],
        "([0.0], [2.0, 3.0], [0.0])",
    );
    let Value::Tuple(parts) = &out else {
        panic!("{out:?}")
    };
    assert!(parts[0].egal(&element(&args[0], 1)));
    assert!(parts[1].egal(&element(&args[0], 2)));
}

#[test]
fn first_of_an_empty_vector_is_the_interpreters_error() {
    let src = "f(xs) = first(xs)";
    let (inst, prog) = typed(src, "f", &[Type::Array(Type::vector_f64().into(), 1)]);
    let empty = || {
        zy_interp::Array::new(
            zy_interp::Shape::Vector(0),
            zy_interp::ArrayData::Obj(zy_interp::Objects::unset(Type::vector_f64(), 0)),
        )
        .into_value()
    };
    let mut jit = JitSession::new().unwrap();
    let by_jit = jit
        .compile(&prog, &inst)
        .expect("compiled")
        .call(&[empty()], &Limits::default());
    let by_interp = zy_interp::run(&prog, &inst, vec![empty()], &Limits::default());
    assert!(by_jit.is_err(), "{by_jit:?}");
    assert_eq!(render(&by_jit), render(&by_interp));
}

/// The gradient of `name` of `src` on both engines, each at its own `args()` (made twice, so
/// that aliasing inside them is kept): equal renderings, returned.
fn both_gradients(src: &str, name: &str, args: impl Fn() -> Vec<Value>) -> String {
    let (args, copies) = (args(), args());
    let tys: Vec<Type> = args.iter().map(Value::julia_type).collect();
    let (inst, prog) = typed(src, name, &tys);
    let (driver, prog) = zy_ad::gradient_program(&prog, &inst).expect("differentiable");
    let mut jit = JitSession::new().unwrap();
    let by_jit = jit
        .compile(&prog, &driver)
        .unwrap_or_else(|e| panic!("{name}: the JIT declined: {e}"))
        .call(&args, &Limits::default());
    let by_interp = zy_interp::run(&prog, &driver, copies, &Limits::default());
    assert_eq!(render(&by_jit), render(&by_interp), "{name}");
    render(&by_jit)
}

#[test]
fn one_array_in_two_slots_has_one_shadow() {
    // xs = [a, a, b]: ∂/∂xs of xs[1][1]·xs[3][1] + 2·xs[2][1] is a's shadow (b₁ + 2, 0) in
    // slots 1 and 2 and b's (a₁, 0) in slot 3 (the zero shadow is made in the arena, shared
    // as the interpreter shares it).
    let src = "f(xs) = xs[1][1] * xs[3][1] + 2.0 * xs[2][1]";
    let xs = || {
        let a = Value::vector_f64(vec![3.0, 1.0]);
        let b = Value::vector_f64(vec![5.0, 1.0]);
        let items = vec![a.clone(), a, b];
        let objects = zy_interp::Objects {
            elem: Type::vector_f64(),
            items,
        };
        let data = zy_interp::ArrayData::Obj(objects);
        vec![zy_interp::Array::new(zy_interp::Shape::Vector(3), data).into_value()]
    };
    assert_eq!(
        both_gradients(src, "f", xs),
        "(21.0, ([[7.0, 0.0], [7.0, 0.0], [3.0, 0.0]],))"
    );
}

#[test]
fn the_zero_shadow_of_layers_and_particles_is_shaped_like_them() {
    let src = "f(ls, ps) = sum(ls[2].W) * ls[1].b[1] + ps[1].x * ps[2].v";
    let args = || {
        vec![
            value("[Layer([1.0 2.0], [3.0]), Layer([4.0 5.0], [6.0])]"),
            value("[Particle(1.0, 2.0), Particle(3.0, -1.0)]"),
        ]
    };
    // ∂/∂ls₁.b₁ = 9, ∂/∂ls₂.W = 3 each; ∂/∂ps₁.x = -1, ∂/∂ps₂.v = 1.
    assert_eq!(
        both_gradients(src, "f", args),
        "(26.0, ([(W = [0.0 0.0], b = [9.0]), (W = [3.0 3.0], b = [0.0])], [(x = -1.0, v = 0.0), (x = 0.0, v = 1.0)]))"
    );
}
