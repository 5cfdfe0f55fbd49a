//! Reductions, products and broadcasts of Float64 arrays run by the JIT's kernels and loops
//! agree with the interpreter bit for bit, including their errors.

use crate::support;

use support::*;
use zy_interp::Value;
use zy_ir::{Block, Const, Operand, Prim, Type};

fn func(name: &str) -> Operand {
    Operand::Const(Const::Func(name.into()))
}

fn vecf() -> Type {
    Type::vector_f64()
}

fn matf() -> Type {
    Type::matrix_f64()
}

/// A deterministic vector with varied magnitudes (so summation order shows in the bits).
fn data(n: usize, seed: f64) -> Vec<f64> {
    (0..n)
        .map(|i| (seed * (i as f64 + 1.0)).sin() * 10f64.powi((i % 7) as i32 - 3))
        .collect()
}

#[test]
fn logsumexp_and_mlp_layer_shapes() {
    // lse(x) = (m = maximum(x); m + log(sum(exp.(x .- m))))
    let fl = Type::Float64;
    let mut fb = Fb::new("lse", &[vecf()], fl.clone());
    let x = fb.args[0];
    let e = Block::ENTRY;
    let m = fb.prim(e, Prim::Maximum, vec![v(x)], fl.clone(), 10);
    let d = fb.prim(e, Prim::Broadcast, vec![func("-"), v(x), v(m)], vecf(), 11);
    let ex = fb.prim(e, Prim::Broadcast, vec![func("exp"), v(d)], vecf(), 12);
    let s = fb.prim(e, Prim::Sum, vec![v(ex)], fl.clone(), 13);
    let l = fb.prim(e, Prim::Log, vec![v(s)], fl.clone(), 14);
    let r = fb.prim(e, Prim::Add, vec![v(m), v(l)], fl.clone(), 15);
    fb.ret(e, v(r));
    let inst = fb.inst();
    let prog = program(vec![fb]);
    let xs = data(3000, 0.37);
    let m = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let out = check(&prog, &inst, vec![Value::vector_f64(xs)]);
    assert!(out.parse::<f64>().is_ok_and(|v| v > m), "{out}");
    assert_eq!(
        check(&prog, &inst, vec![Value::vector_f64(vec![])]),
        "error at 10..11: ArgumentError: reducing over an empty collection is not allowed; consider supplying `init` to the reducer"
    );

    // layer(W, x, b) = (tanh.(W * x .+ b), x' * W', dot(x, x), x * x')
    let ret = Type::tuple([
        vecf(),
        Type::Adjoint(std::sync::Arc::new(fl.clone())),
        fl.clone(),
        matf(),
    ]);
    let mut fb = Fb::new("layer", &[matf(), vecf(), vecf()], ret.clone());
    let (w, x, b) = (fb.args[0], fb.args[1], fb.args[2]);
    let wx = fb.prim(e, Prim::MatMul, vec![v(w), v(x)], vecf(), 10);
    let z = fb.prim(e, Prim::Broadcast, vec![func("+"), v(wx), v(b)], vecf(), 11);
    let h = fb.prim(e, Prim::Broadcast, vec![func("tanh"), v(z)], vecf(), 12);
    let xt = fb.prim(
        e,
        Prim::Adjoint,
        vec![v(x)],
        Type::Adjoint(std::sync::Arc::new(fl.clone())),
        13,
    );
    let wt = fb.prim(e, Prim::Adjoint, vec![v(w)], matf(), 14);
    let row = fb.prim(
        e,
        Prim::MatMul,
        vec![v(xt), v(wt)],
        Type::Adjoint(std::sync::Arc::new(fl.clone())),
        15,
    );
    let dd = fb.prim(e, Prim::Dot, vec![v(x), v(x)], fl.clone(), 16);
    let outer = fb.prim(e, Prim::MatMul, vec![v(x), v(xt)], matf(), 17);
    let t = fb.prim(e, Prim::Tuple, vec![v(h), v(row), v(dd), v(outer)], ret, 18);
    fb.ret(e, v(t));
    let inst = fb.inst();
    let prog = program(vec![fb]);
    let (rows, cols) = (5, 37);
    let w = Value::matrix_f64(rows, cols, data(rows * cols, 0.11)).unwrap();
    let args = vec![
        w,
        Value::vector_f64(data(cols, 0.7)),
        Value::vector_f64(data(rows, 1.3)),
    ];
    let out = check(&prog, &inst, args);
    assert!(out.starts_with("([") && out.ends_with("])"), "{out}");
    // A product with mismatched inner dimensions is the interpreter's DimensionMismatch.
    let w = Value::matrix_f64(2, 3, data(6, 0.5)).unwrap();
    let args = vec![
        w,
        Value::vector_f64(data(2, 0.7)),
        Value::vector_f64(data(2, 1.3)),
    ];
    assert_eq!(
        check(&prog, &inst, args),
        "error at 10..11: DimensionMismatch: matrix A has dimensions (2,3), vector B has length 2"
    );
}

#[test]
fn the_clif_text_names_what_runs_in_the_runtime() {
    // w(x) = sum(fill(x, 2)) + sqrt(x): `fill` runs in the runtime, sqrt's DomainError check
    // only on its error path.
    let fl = Type::Float64;
    let mut fb = Fb::new("w", std::slice::from_ref(&fl), fl.clone());
    let x = fb.args[0];
    let e = Block::ENTRY;
    let a = fb.prim(e, Prim::Fill, vec![v(x), i(2)], vecf(), 10);
    let s = fb.prim(e, Prim::Sum, vec![v(a)], fl.clone(), 11);
    let r = fb.prim(e, Prim::Sqrt, vec![v(x)], fl.clone(), 12);
    let t = fb.prim(e, Prim::Add, vec![v(s), v(r)], fl.clone(), 13);
    fb.ret(e, v(t));
    let inst = fb.inst();
    let prog = program(vec![fb]);
    let clif = zy_codegen::clif_text(&prog, &inst).unwrap();
    let trailer = clif
        .split("; evaluated by the runtime with the interpreter's semantics:\n")
        .nth(1);
    assert_eq!(
        trailer,
        Some(";   fill -> Vector{Float64} at 10..11\n"),
        "{clif}"
    );
    assert_eq!(check(&prog, &inst, vec![Value::F64(4.0)]), "10.0");
}

#[test]
fn matrix_pullbacks_fuse_the_transpose_and_the_outer_product() {
    // mp(W, d, x, D) = (t = transpose(W); g = t * d; o = d * x'; accum!(D, o); (g, D))
    // as the pullback of W * x writes it: both pairs compile to one kernel each.
    let row = Type::Adjoint(std::sync::Arc::new(Type::Float64));
    let ret = Type::tuple([vecf(), matf()]);
    let mut fb = Fb::new("mp", &[matf(), vecf(), vecf(), matf()], ret.clone());
    let (w, d, x, dm) = (fb.args[0], fb.args[1], fb.args[2], fb.args[3]);
    let e = Block::ENTRY;
    let t = fb.prim(e, Prim::Transpose, vec![v(w)], matf(), 10);
    let g = fb.prim(e, Prim::MatMul, vec![v(t), v(d)], vecf(), 11);
    let xt = fb.prim(e, Prim::Adjoint, vec![v(x)], row, 12);
    let o = fb.prim(e, Prim::MatMul, vec![v(d), v(xt)], matf(), 13);
    fb.prim(e, Prim::AccumInto, vec![v(dm), v(o)], Type::Nothing, 14);
    let r = fb.prim(e, Prim::Tuple, vec![v(g), v(dm)], ret, 15);
    fb.ret(e, v(r));
    let inst = fb.inst();
    let prog = program(vec![fb]);
    let clif = zy_codegen::clif_text(&prog, &inst).unwrap();
    assert!(
        clif.contains("zy_rt_matmul_tn") && clif.contains("zy_rt_accum_outer"),
        "{clif}"
    );
    let (m, n) = (7, 33);
    let args = |d_len: usize, rows: usize| {
        vec![
            Value::matrix_f64(m, n, data(m * n, 0.23)).unwrap(),
            Value::vector_f64(data(d_len, 0.9)),
            Value::vector_f64(data(n, 1.7)),
            Value::matrix_f64(rows, n, data(rows * n, 0.4)).unwrap(),
        ]
    };
    // Bit for bit the unfused products (W' d sums each column of W in order).
    let out = check(&prog, &inst, args(m, m));
    assert!(out.starts_with("([") && out.ends_with("])"), "{out}");
    // W' d with d of the wrong length: the product's DimensionMismatch, on the slow path.
    let out = check(&prog, &inst, args(m + 1, m));
    assert!(
        out.starts_with("error at 11..12: DimensionMismatch"),
        "{out}"
    );
    // D of the wrong shape but the same length: accum! adds by linear index, as unfused.
    let (rows, cols) = (n, m);
    let w = Value::matrix_f64(m, n, data(m * n, 0.23)).unwrap();
    let same_len = vec![
        w.clone(),
        Value::vector_f64(data(m, 0.9)),
        Value::vector_f64(data(n, 1.7)),
        Value::matrix_f64(rows, cols, data(rows * cols, 0.4)).unwrap(),
    ];
    let out = check(&prog, &inst, same_len);
    assert!(out.starts_with("([") && out.ends_with("])"), "{out}");
    // D of another length: accum!'s DimensionMismatch.
    let out = check(&prog, &inst, args(m, m + 1));
    assert!(
        out.starts_with("error at 14..15: DimensionMismatch"),
        "{out}"
    );
}

#[test]
fn a_zero_tangent_written_first_by_accumulation_is_not_zeroed_first() {
    // fz(x, s, y, n) = (z1 = zero_tangent(x); accum!(z1, x)            # written, not zeroed
    //                   z2 = zero_tangent(x); accum!(z2, s)            # filled with 0.0 + s
    //                   z3 = zero_tangent(x); for _ in 1:n accum!(z3, x) end  # in a loop: adds
    //                   z4 = zero_tangent(x); t = sum(z4); accum!(z4, x)      # read first
    //                   z5 = zero_tangent(x); accum!(z5, y)            # y of another length
    //                   (z1, z2, z3, z4, t, z5))
    let (fl, int) = (Type::Float64, Type::Int64);
    let ret = Type::tuple([vecf(), vecf(), vecf(), vecf(), fl.clone(), vecf()]);
    let mut fb = Fb::new(
        "fz",
        &[vecf(), fl.clone(), vecf(), int.clone()],
        ret.clone(),
    );
    let (x, s, y, n) = (fb.args[0], fb.args[1], fb.args[2], fb.args[3]);
    let e = Block::ENTRY;
    let zero = |fb: &mut Fb, b, at| fb.prim(b, Prim::ZeroTangent, vec![v(x)], vecf(), at);
    let accum = |fb: &mut Fb, b, dst, src: Operand, at| {
        fb.prim(b, Prim::AccumInto, vec![v(dst), src], Type::Nothing, at)
    };
    let z1 = zero(&mut fb, e, 10);
    accum(&mut fb, e, z1, v(x), 11);
    let z2 = zero(&mut fb, e, 12);
    accum(&mut fb, e, z2, v(s), 13);
    let z3 = zero(&mut fb, e, 14);
    let (head, hp) = fb.block(std::slice::from_ref(&int));
    let (body, _) = fb.block(&[]);
    let (exit, _) = fb.block(&[]);
    fb.jump(e, head, vec![i(0)]);
    let more = fb.prim(head, Prim::Lt, vec![v(hp[0]), v(n)], Type::Bool, 15);
    fb.branch(head, v(more), (body, vec![]), (exit, vec![]));
    accum(&mut fb, body, z3, v(x), 16);
    let k = fb.prim(body, Prim::Add, vec![v(hp[0]), i(1)], int, 17);
    fb.jump(body, head, vec![v(k)]);
    let z4 = zero(&mut fb, exit, 18);
    let t = fb.prim(exit, Prim::Sum, vec![v(z4)], fl, 19);
    accum(&mut fb, exit, z4, v(x), 20);
    let z5 = zero(&mut fb, exit, 21);
    accum(&mut fb, exit, z5, v(y), 22);
    let r = fb.prim(
        exit,
        Prim::Tuple,
        vec![v(z1), v(z2), v(z3), v(z4), v(t), v(z5)],
        ret,
        23,
    );
    fb.ret(exit, v(r));
    let inst = fb.inst();
    let prog = program(vec![fb]);
    let args = |y: Vec<f64>| {
        vec![
            Value::vector_f64(vec![1.5, -0.0, 2.0]),
            Value::F64(-0.0),
            Value::vector_f64(y),
            Value::Int(3),
        ]
    };
    let expect =
        "([1.5, 0.0, 2.0], [0.0, 0.0, 0.0], [4.5, 0.0, 6.0], [1.5, 0.0, 2.0], 0.0, [1.0, 2.0, 3.0])";
    assert_eq!(check(&prog, &inst, args(vec![1.0, 2.0, 3.0])), expect);
    // Runs of one bound call reuse the arena: the second finds the first's numbers in the
    // memory of its unzeroed arrays, and must write over all of them. (x is used in place, so
    // changing its elements between runs changes what the second run reads.)
    let f = zy_codegen::JitSession::new()
        .and_then(|mut s| s.compile(&prog, &inst))
        .expect("compiles");
    let limits = zy_interp::Limits::default();
    let bound_args = args(vec![1.0, 2.0, 3.0]);
    let mut call = f.bind(&bound_args, &limits).expect("binds");
    call.run().expect("runs");
    assert_eq!(zy_interp::show(&call.result().expect("converts")), expect);
    if let Value::Array(a) = &bound_args[0] {
        if let zy_interp::ArrayData::F64(xs) = &mut a.borrow_mut().data {
            xs.copy_from_slice(&[0.25, 0.5, 0.75]);
        }
    }
    call.run().expect("runs");
    assert_eq!(
        zy_interp::show(&call.result().expect("converts")),
        "([0.25, 0.5, 0.75], [0.0, 0.0, 0.0], [0.75, 1.5, 2.25], [0.25, 0.5, 0.75], 0.0, [1.0, 2.0, 3.0])"
    );
    let out = check(&prog, &inst, args(vec![1.0]));
    assert!(
        out.starts_with("error at 22..23: DimensionMismatch"),
        "{out}"
    );
}

#[test]
fn a_broadcast_accumulated_at_once_adds_in_its_loop() {
    // ba(x, y, d) = (o1 = x .* y; accum!(d, o1)                 # into an argument's array
    //                o2 = d .- x; accum!(d, o2)                 # d is also an operand
    //                z = zero_tangent(x); o3 = -x; accum!(z, o3)  # fresh: 0.0 + (-x)
    //                (d, z))
    let ret = Type::tuple([vecf(), vecf()]);
    let mut fb = Fb::new("ba", &[vecf(), vecf(), vecf()], ret.clone());
    let (x, y, d) = (fb.args[0], fb.args[1], fb.args[2]);
    let e = Block::ENTRY;
    let o1 = fb.prim(e, Prim::Broadcast, vec![func("*"), v(x), v(y)], vecf(), 10);
    fb.prim(e, Prim::AccumInto, vec![v(d), v(o1)], Type::Nothing, 11);
    let o2 = fb.prim(e, Prim::Broadcast, vec![func("-"), v(d), v(x)], vecf(), 12);
    fb.prim(e, Prim::AccumInto, vec![v(d), v(o2)], Type::Nothing, 13);
    let z = fb.prim(e, Prim::ZeroTangent, vec![v(x)], vecf(), 14);
    let o3 = fb.prim(e, Prim::Broadcast, vec![func("-"), v(x)], vecf(), 15);
    fb.prim(e, Prim::AccumInto, vec![v(z), v(o3)], Type::Nothing, 16);
    let r = fb.prim(e, Prim::Tuple, vec![v(d), v(z)], ret, 17);
    fb.ret(e, v(r));
    let inst = fb.inst();
    let prog = program(vec![fb]);
    let args = |d: Vec<f64>| {
        vec![
            Value::vector_f64(vec![1.0, 0.0, -2.5]),
            Value::vector_f64(vec![3.0, -1.0, 4.0]),
            Value::vector_f64(d),
        ]
    };
    // d = d + x.*y = (3.5, -0.0 + -0.0, -9.5), then d + (d - x) (-0.0 stays -0.0); z = 0.0 + (-x)
    // turns x's 0.0 into 0.0, not -0.0.
    assert_eq!(
        check(&prog, &inst, args(vec![0.5, -0.0, 0.5])),
        "([6.0, -0.0, -16.5], [-1.0, 0.0, 2.5])"
    );
    // d of another length: accum!'s error, from the unfused path.
    let out = check(&prog, &inst, args(vec![0.5, 1.0]));
    assert!(
        out.starts_with("error at 11..12: DimensionMismatch"),
        "{out}"
    );
}

#[test]
fn a_product_of_matrices_is_the_interpreters_blocked_product() {
    // mm(A, B) = A * B: both engines call matrixmultiply's kernel, so they agree bit for bit;
    // the entries are the products' sums (checked against a plain triple loop to 1e-12).
    let mut fb = Fb::new("mm", &[matf(), matf()], matf());
    let (a, b) = (fb.args[0], fb.args[1]);
    let c = fb.prim(Block::ENTRY, Prim::MatMul, vec![v(a), v(b)], matf(), 10);
    fb.ret(Block::ENTRY, v(c));
    let inst = fb.inst();
    let prog = program(vec![fb]);
    // The second size spans two of the kernel's panels of 256 columns.
    for (m, k, n) in [(9, 37, 5), (3, 4, 300)] {
        let (x, y) = (data(m * k, 0.31), data(k * n, 0.77));
        let out = check(
            &prog,
            &inst,
            vec![
                Value::matrix_f64(m, k, x.clone()).unwrap(),
                Value::matrix_f64(k, n, y.clone()).unwrap(),
            ],
        );
        let got: Vec<f64> = out
            .trim_start_matches('[')
            .trim_end_matches(']')
            .split([';', ' '])
            .filter(|t| !t.is_empty())
            .map(|t| t.parse().unwrap())
            .collect();
        // Julia shows a matrix row by row.
        for i in 0..m {
            for j in 0..n {
                let want: f64 = (0..k).map(|l| x[l * m + i] * y[j * k + l]).sum();
                let g = got[i * n + j];
                assert!(
                    (g - want).abs() <= 1e-12 * want.abs().max(1.0),
                    "{i},{j}: {g} vs {want}"
                );
            }
        }
    }
}

#[test]
fn chains_of_broadcasts_run_as_one_loop_with_the_same_bits() {
    // lse(x) = (m = maximum(x); m + log(sum(exp.(x .- m)))): `x .- m` and `exp.` are one loop.
    let fl = Type::Float64;
    let mut fb = Fb::new("lse", &[vecf()], fl.clone());
    let x = fb.args[0];
    let e = Block::ENTRY;
    let m = fb.prim(e, Prim::Maximum, vec![v(x)], fl.clone(), 10);
    let d = fb.prim(e, Prim::Broadcast, vec![func("-"), v(x), v(m)], vecf(), 11);
    let ex = fb.prim(e, Prim::Broadcast, vec![func("exp"), v(d)], vecf(), 12);
    let s = fb.prim(e, Prim::Sum, vec![v(ex)], fl.clone(), 13);
    let l = fb.prim(e, Prim::Log, vec![v(s)], fl.clone(), 14);
    let r = fb.prim(e, Prim::Add, vec![v(m), v(l)], fl.clone(), 15);
    fb.ret(e, v(r));
    let inst = fb.inst();
    let prog = program(vec![fb]);
    let clif = zy_codegen::clif_text(&prog, &inst).unwrap();
    assert!(
        clif.contains(
            "; fused: %3 = broadcast(-, %1, %2), %4 = broadcast(exp, %3) -> summed at %5\n"
        ),
        "{clif}"
    );
    for n in [
        1, 2, 7, 8, 15, 16, 17, 23, 24, 31, 1000, 1023, 1024, 1025, 2049, 3000,
    ] {
        let out = check(&prog, &inst, vec![Value::vector_f64(data(n, 0.37))]);
        assert!(out.parse::<f64>().is_ok(), "{n}: {out}");
    }
    // Its gradient: the forward's chain, whose first stage's zero tangent takes the shape of x,
    // makes exp.(x .- m) (for the pullback) and sums it.
    let (grad, gprog) = zy_ad::gradient_program(&prog, &inst).expect("differentiable");
    let clif = zy_codegen::clif_text(&gprog, &grad).unwrap();
    assert!(
        clif.contains(
            "; fused: %4 = broadcast(-, %1, %3), %6 = broadcast(exp, %4) -> made, summed for %8\n"
        ),
        "{clif}"
    );
    // The pullback: the shadow of exp.(...) is the number ȳ / s (never made); the loop
    // adding its product into the shadow of x .- m sums it for the gradient of m.
    for note in [
        "; fused: %13 = broadcast(*, %7, %6) -> added into %5 at %14, summed for %16\n",
        "; not made: %7 = zero_tangent(...) filled with %11\n",
    ] {
        assert!(clif.contains(note), "{clif}");
    }
    for n in [1, 3, 16, 1000, 1025, 2100] {
        let out = check(&gprog, &grad, vec![Value::vector_f64(data(n, 0.61))]);
        assert!(out.starts_with('('), "{n}: {out}");
    }

    // ch(x, y) = (sum(2.0 .* (x .* y) .+ x .^ 2), zero_tangent(x .* y)): one loop summing in
    // place, zeros of x's shape; stretched shapes and shapes that do not broadcast go the
    // unfused way, with its results and errors.
    let mut fb = Fb::new("ch", &[vecf(), vecf()], Type::tuple([fl.clone(), vecf()]));
    let (x, y) = (fb.args[0], fb.args[1]);
    let p = fb.prim(e, Prim::Broadcast, vec![func("*"), v(x), v(y)], vecf(), 20);
    let z = fb.prim(e, Prim::ZeroTangent, vec![v(p)], vecf(), 21);
    let q = fb.prim(
        e,
        Prim::Broadcast,
        vec![func("*"), f(2.0), v(p)],
        vecf(),
        22,
    );
    let sq = fb.prim(e, Prim::Broadcast, vec![func("^"), v(x), i(2)], vecf(), 23);
    let t = fb.prim(e, Prim::Broadcast, vec![func("+"), v(q), v(sq)], vecf(), 24);
    let s = fb.prim(e, Prim::Sum, vec![v(t)], fl.clone(), 25);
    let ret = Type::tuple([fl.clone(), vecf()]);
    let r = fb.prim(e, Prim::Tuple, vec![v(s), v(z)], ret, 26);
    fb.ret(e, v(r));
    let inst = fb.inst();
    let prog = program(vec![fb]);
    let clif = zy_codegen::clif_text(&prog, &inst).unwrap();
    assert!(
        clif.contains(
            "; fused: %3 = broadcast(*, %1, %2), %5 = broadcast(*, 2.0, %3), \
             %6 = broadcast(^, %1, 2), %7 = broadcast(+, %5, %6) -> summed at %8\n"
        ),
        "{clif}"
    );
    let two = |a: Vec<f64>, b: Vec<f64>| vec![Value::vector_f64(a), Value::vector_f64(b)];
    for n in [1, 4, 16, 19, 1500] {
        let out = check(&prog, &inst, two(data(n, 0.3), data(n, 0.9)));
        assert!(out.starts_with('('), "{n}: {out}");
    }
    // y of length 1 is stretched: the unfused broadcasts, and zeros of their shape.
    // 2 (3 - 6 + 1.5) + (1 + 4 + 0.25) = 2.25.
    assert_eq!(
        check(&prog, &inst, two(vec![1.0, -2.0, 0.5], vec![3.0])),
        "(2.25, [0.0, 0.0, 0.0])"
    );
    let out = check(&prog, &inst, two(vec![1.0, -2.0, 0.5], vec![3.0, 1.0]));
    assert!(
        out.starts_with("error at 20..21: DimensionMismatch"),
        "{out}"
    );

    // ac(x, y, d) = (z = zero_tangent(x); accum!(z, y .* (2.0 .* x)); accum!(d, (x .- y) .^ 2);
    // (z, d)): both chains add into their destination in one loop (z fresh: 0.0 + ...).
    let ret = Type::tuple([vecf(), vecf()]);
    let mut fb = Fb::new("ac", &[vecf(), vecf(), vecf()], ret.clone());
    let (x, y, d) = (fb.args[0], fb.args[1], fb.args[2]);
    let z = fb.prim(e, Prim::ZeroTangent, vec![v(x)], vecf(), 30);
    let tx = fb.prim(
        e,
        Prim::Broadcast,
        vec![func("*"), f(2.0), v(x)],
        vecf(),
        31,
    );
    let p = fb.prim(e, Prim::Broadcast, vec![func("*"), v(y), v(tx)], vecf(), 32);
    fb.prim(e, Prim::AccumInto, vec![v(z), v(p)], Type::Nothing, 33);
    let df = fb.prim(e, Prim::Broadcast, vec![func("-"), v(x), v(y)], vecf(), 34);
    let sq = fb.prim(e, Prim::Broadcast, vec![func("^"), v(df), i(2)], vecf(), 35);
    fb.prim(e, Prim::AccumInto, vec![v(d), v(sq)], Type::Nothing, 36);
    let r = fb.prim(e, Prim::Tuple, vec![v(z), v(d)], ret, 37);
    fb.ret(e, v(r));
    let inst = fb.inst();
    let prog = program(vec![fb]);
    let clif = zy_codegen::clif_text(&prog, &inst).unwrap();
    for note in [
        "; fused: %5 = broadcast(*, 2.0, %1), %6 = broadcast(*, %2, %5) -> added into %4 at %7\n",
        "; fused: %8 = broadcast(-, %1, %2), %9 = broadcast(^, %8, 2) -> added into %3 at %10\n",
    ] {
        assert!(clif.contains(note), "{clif}");
    }
    let three = |a: Vec<f64>, b: Vec<f64>, c: Vec<f64>| {
        vec![
            Value::vector_f64(a),
            Value::vector_f64(b),
            Value::vector_f64(c),
        ]
    };
    // z = 0.0 + y (2x) = (6.0, -0.0 + ... ) -> 0.0 + -0.0 = 0.0; d + (x - y)^2.
    assert_eq!(
        check(
            &prog,
            &inst,
            three(vec![1.0, 0.0], vec![3.0, -1.0], vec![0.5, -0.0])
        ),
        "([6.0, 0.0], [4.5, 1.0])"
    );
    // A d of length 1: the unfused accum!, which sums what broadcasting stretched
    // (0.5 + 4.0 + 1.0).
    assert_eq!(
        check(
            &prog,
            &inst,
            three(vec![1.0, 0.0], vec![3.0, -1.0], vec![0.5])
        ),
        "([6.0, 0.0], [5.5])"
    );
}

#[test]
fn a_uniform_shadow_is_a_number_and_a_sum_is_taken_as_its_array_is_stored() {
    // un(x, y, s) = (z = zero_tangent(x); accum!(z, s); w = zero_tangent(y);
    // accum!(w, z .* y); (w, sum(w))): z is never made (its loop reads 0.0 + s), and the
    // loop adding into w sums what it stores.
    let fl = Type::Float64;
    let ret = Type::tuple([vecf(), fl.clone()]);
    let mut fb = Fb::new("un", &[vecf(), vecf(), fl.clone()], ret.clone());
    let (x, y, s) = (fb.args[0], fb.args[1], fb.args[2]);
    let e = Block::ENTRY;
    let z = fb.prim(e, Prim::ZeroTangent, vec![v(x)], vecf(), 10);
    fb.prim(e, Prim::AccumInto, vec![v(z), v(s)], Type::Nothing, 11);
    let w = fb.prim(e, Prim::ZeroTangent, vec![v(y)], vecf(), 12);
    let p = fb.prim(e, Prim::Broadcast, vec![func("*"), v(z), v(y)], vecf(), 13);
    fb.prim(e, Prim::AccumInto, vec![v(w), v(p)], Type::Nothing, 14);
    let t = fb.prim(e, Prim::Sum, vec![v(w)], fl.clone(), 15);
    let r = fb.prim(e, Prim::Tuple, vec![v(w), v(t)], ret, 16);
    fb.ret(e, v(r));
    let inst = fb.inst();
    let prog = program(vec![fb]);
    let clif = zy_codegen::clif_text(&prog, &inst).unwrap();
    for note in [
        "; fused: %7 = broadcast(*, %4, %2) -> added into %6 at %8, summed for %9\n",
        "; not made: %4 = zero_tangent(...) filled with %3\n",
    ] {
        assert!(clif.contains(note), "{clif}");
    }
    let args = |a: Vec<f64>, b: Vec<f64>, c: f64| {
        vec![Value::vector_f64(a), Value::vector_f64(b), Value::F64(c)]
    };
    // 2 (2, -1, 0.5) = (4, -2, 1), summed 3.
    assert_eq!(
        check(
            &prog,
            &inst,
            args(vec![1.0, 2.0, 3.0], vec![2.0, -1.0, 0.5], 2.0)
        ),
        "([4.0, -2.0, 1.0], 3.0)"
    );
    // z = 0.0 + -0.0 = 0.0, so 0.0 * -1.0 = -0.0, stored as 0.0 + -0.0 = 0.0.
    assert_eq!(
        check(&prog, &inst, args(vec![1.0, 2.0], vec![2.0, -1.0], -0.0)),
        "([0.0, 0.0], 0.0)"
    );
    for n in [1, 8, 17, 1000, 1025, 3000] {
        let out = check(&prog, &inst, args(data(n, 0.2), data(n, 0.8), 0.3));
        assert!(out.starts_with('('), "{n}: {out}");
    }
    // x and y of different lengths: the broadcast's DimensionMismatch, made unfused (with z).
    let out = check(
        &prog,
        &inst,
        args(vec![1.0, 2.0], vec![2.0, -1.0, 0.5], 2.0),
    );
    assert!(out.contains("DimensionMismatch"), "{out}");

    // ms(x) = (e = exp.(x); (e, sum(e))): one loop makes e and sums it.
    let mut fb = Fb::new("ms", &[vecf()], Type::tuple([vecf(), fl.clone()]));
    let x = fb.args[0];
    let ex = fb.prim(e, Prim::Broadcast, vec![func("exp"), v(x)], vecf(), 20);
    let t = fb.prim(e, Prim::Sum, vec![v(ex)], fl.clone(), 21);
    let r = fb.prim(
        e,
        Prim::Tuple,
        vec![v(ex), v(t)],
        Type::tuple([vecf(), fl.clone()]),
        22,
    );
    fb.ret(e, v(r));
    let inst = fb.inst();
    let prog = program(vec![fb]);
    let clif = zy_codegen::clif_text(&prog, &inst).unwrap();
    assert!(
        clif.contains("; fused: %2 = broadcast(exp, %1) -> made, summed for %3\n"),
        "{clif}"
    );
    assert_eq!(
        check(&prog, &inst, vec![Value::vector_f64(vec![0.0, 0.0])]),
        "([1.0, 1.0], 2.0)"
    );
    for n in [0, 1, 15, 16, 1024, 1025, 2049] {
        let out = check(&prog, &inst, vec![Value::vector_f64(data(n, 0.45))]);
        assert!(out.starts_with('('), "{n}: {out}");
    }
}
