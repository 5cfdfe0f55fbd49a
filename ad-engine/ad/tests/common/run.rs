//! Differentiating source text end to end: parse, lower, infer, transform, interpret; and the
//! finite-difference reference.

use zy_interp::fd::{Fd, Verdict};
use zy_interp::{run, show, Limits, Value};
use zy_ir::{Instance, Program, Type, TypedProgram};

/// Parse and lower `src` (panics on errors: test programs are well formed).
pub fn program(src: &str) -> Program {
    let file = zy_syntax::parse_file(src);
    assert!(file.errors.is_empty(), "syntax errors: {:?}", file.errors);
    let lowered = zy_lower::lower_file(0, &file);
    assert!(
        lowered.errors.is_empty(),
        "lowering errors: {:?}",
        lowered.errors
    );
    lowered.program
}

/// The typed program for `name(args...)`.
pub fn typed(src: &str, name: &str, args: &[Value]) -> (std::sync::Arc<Instance>, TypedProgram) {
    let tys: Vec<Type> = args.iter().map(Value::julia_type).collect();
    zy_infer::infer_entry(&program(src), name, &tys)
        .unwrap_or_else(|e| panic!("type errors: {e:?}"))
}

/// `(value, gradient)` of `name(args...)` through the AD, or the AD's error message.
pub fn gradient(src: &str, name: &str, args: Vec<Value>) -> Result<(Value, Value), String> {
    let (inst, prog) = typed(src, name, &args);
    let (driver, prog) = zy_ad::gradient_program(&prog, &inst).map_err(|e| e.message)?;
    for f in prog.functions.values() {
        let errs = zy_ir::verify(f);
        assert!(errs.is_empty(), "{f}\n{errs:?}");
    }
    let out = run(&prog, &driver, args, &Limits::default()).map_err(|e| e.message)?;
    match out {
        Value::Tuple(parts) if parts.len() == 2 => Ok((parts[0].clone(), parts[1].clone())),
        other => Err(format!("driver returned {}", show(&other))),
    }
}

/// `gradient` shown as Julia would: `"(y, (g1, g2))"`.
pub fn shown(src: &str, name: &str, args: Vec<Value>) -> String {
    match gradient(src, name, args) {
        Ok((y, g)) => format!("{} {}", show(&y), show(&g)),
        Err(e) => format!("error: {e}"),
    }
}

/// Deep copy of arguments (arrays are shared otherwise).
pub fn deep_copy(v: &Value) -> Value {
    match v {
        Value::Array(a) => Value::Array(std::rc::Rc::new(std::cell::RefCell::new(
            a.borrow().clone(),
        ))),
        Value::Tuple(vs) => Value::Tuple(vs.iter().map(deep_copy).collect()),
        Value::Struct(t, vs) => Value::Struct(t.clone(), vs.iter().map(deep_copy).collect()),
        Value::NamedTuple(n, vs) => {
            Value::NamedTuple(n.clone(), vs.iter().map(deep_copy).collect())
        }
        Value::Ref(r) => Value::new_ref(deep_copy(&r.borrow())),
        Value::Mutable(t, vs) => {
            Value::new_struct(t.clone(), vs.borrow().iter().map(deep_copy).collect())
        }
        other => other.clone(),
    }
}

/// Flatten the Float64 leaves of a value (arrays in storage order), in order.
pub fn leaves(v: &Value, out: &mut Vec<f64>) {
    match v {
        Value::F64(x) => out.push(*x),
        Value::Array(a) | Value::Adjoint(a) => match &a.borrow().data {
            zy_interp::ArrayData::Obj(objs) => objs.items.iter().for_each(|x| leaves(x, out)),
            data => out.extend(data.to_f64()),
        },
        Value::Tuple(vs) | Value::NamedTuple(_, vs) | Value::Struct(_, vs) => {
            vs.iter().for_each(|x| leaves(x, out))
        }
        Value::Mutable(_, vs) => vs.borrow().iter().for_each(|x| leaves(x, out)),
        Value::Ref(r) => leaves(&r.borrow(), out),
        _ => {}
    }
}

/// A copy of `v` with its `k`-th Float64 leaf moved by `h`.
fn perturbed(v: &Value, k: &mut usize, h: f64) -> Value {
    match v {
        Value::F64(x) => {
            let hit = *k == 0;
            *k = k.wrapping_sub(1);
            Value::F64(if hit { x + h } else { *x })
        }
        Value::Array(a) => {
            let mut arr = a.borrow().clone();
            if let zy_interp::ArrayData::F64(xs) = &mut arr.data {
                for x in xs.iter_mut() {
                    if *k == 0 {
                        *x += h;
                    }
                    *k = k.wrapping_sub(1);
                }
            }
            arr.into_value()
        }
        Value::Tuple(vs) => Value::Tuple(vs.iter().map(|x| perturbed(x, k, h)).collect()),
        Value::Struct(t, vs) => {
            Value::Struct(t.clone(), vs.iter().map(|x| perturbed(x, k, h)).collect())
        }
        Value::Ref(r) => Value::new_ref(perturbed(&r.borrow(), k, h)),
        Value::Mutable(t, vs) => Value::new_struct(
            t.clone(),
            vs.borrow().iter().map(|x| perturbed(x, k, h)).collect(),
        ),
        other => deep_copy(other),
    }
}

fn primal(prog: &TypedProgram, inst: &Instance, args: &[Value]) -> f64 {
    let args = args.iter().map(deep_copy).collect();
    match run(prog, inst, args, &Limits::default()) {
        Ok(Value::F64(y)) => y,
        other => panic!("primal: {other:?}"),
    }
}

/// Check the AD gradient of every Float64 leaf of every argument against finite differences
/// ([`Fd::RULES`]: the best of several step sizes and their Richardson extrapolations, within
/// a relative 1e-6), and that the arguments
/// hold their entry values after the gradient call when the primal call leaves them unchanged.
pub fn check_fd(src: &str, name: &str, args: Vec<Value>) {
    let (inst, prog) = typed(src, name, &args);
    check_fd_prog(&prog, &inst, args);
}

/// `(value, gradient)` of `inst` in `prog` through the AD.
pub fn gradient_prog(
    prog: &TypedProgram,
    inst: &Instance,
    args: Vec<Value>,
) -> Result<(Value, Value), String> {
    let (driver, prog) = zy_ad::gradient_program(prog, inst).map_err(|e| e.message)?;
    for f in prog.functions.values() {
        let errs = zy_ir::verify(f);
        assert!(errs.is_empty(), "{f}\n{errs:?}");
    }
    match run(&prog, &driver, args, &Limits::default()).map_err(|e| e.message)? {
        Value::Tuple(parts) if parts.len() == 2 => Ok((parts[0].clone(), parts[1].clone())),
        other => Err(format!("driver returned {}", show(&other))),
    }
}

/// [`check_fd`] for a typed program.
pub fn check_fd_prog(prog: &TypedProgram, inst: &Instance, args: Vec<Value>) {
    let (prog, inst, name) = (prog.clone(), inst.clone(), inst.name.to_string());
    let ad_args: Vec<Value> = args.iter().map(deep_copy).collect();
    let (y, g) =
        gradient_prog(&prog, &inst, ad_args.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let y0 = primal(&prog, &inst, &args);
    assert!(
        (y.as_f64().unwrap_or(f64::NAN) - y0).abs() <= 1e-12 * y0.abs().max(1.0),
        "value {} vs {y0}",
        show(&y)
    );
    let Value::Tuple(gs) = &g else {
        panic!("gradient {}", show(&g))
    };
    for (i, a) in args.iter().enumerate() {
        let mut n = Vec::new();
        leaves(a, &mut n);
        let mut ad = Vec::new();
        leaves(&gs[i], &mut ad);
        if ad.is_empty() {
            ad = vec![0.0; n.len()];
        }
        assert_eq!(ad.len(), n.len(), "argument {i}: gradient {}", show(&gs[i]));
        for (k, (&adk, &x)) in ad.iter().zip(&n).enumerate() {
            let at = |h: f64| {
                let moved: Vec<Value> = args
                    .iter()
                    .enumerate()
                    .map(|(j, x)| {
                        if j == i {
                            perturbed(x, &mut k.clone(), h)
                        } else {
                            deep_copy(x)
                        }
                    })
                    .collect();
                Ok::<_, ()>(primal(&prog, &inst, &moved))
            };
            let verdict = Fd::RULES.check(adk, x, None, at);
            assert_eq!(
                verdict,
                Ok(Verdict::Agrees),
                "{name}: argument {i} leaf {k}: AD {adk} differs from finite differences"
            );
        }
    }
    // The primal state after forward + pullback equals the state after the plain call.
    let plain: Vec<Value> = args.iter().map(deep_copy).collect();
    let _ = run(&prog, &inst, plain.clone(), &Limits::default());
    for (a, b) in ad_args.iter().zip(&plain) {
        assert_eq!(
            show(a),
            show(b),
            "{name}: primal state after the gradient call"
        );
    }
}

/// Assert that `name(args...)` has value `y` and, per argument, the gradient leaves `want`
/// (`None`: the gradient is `nothing`), within a relative 1e-12.
pub fn assert_grad(src: &str, name: &str, args: Vec<Value>, y: f64, want: &[Option<&[f64]>]) {
    let (val, g) = gradient(src, name, args).unwrap_or_else(|e| panic!("{name}: {e}"));
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0);
    assert!(
        close(val.as_f64().unwrap_or(f64::NAN), y),
        "{name}: value {} != {y}",
        show(&val)
    );
    let Value::Tuple(gs) = &g else {
        panic!("gradient {}", show(&g))
    };
    assert_eq!(gs.len(), want.len(), "{name}: {}", show(&g));
    for (i, (gi, wi)) in gs.iter().zip(want).enumerate() {
        match wi {
            None => assert!(
                matches!(gi, Value::Nothing),
                "{name}: gradient {i} is {}, not nothing",
                show(gi)
            ),
            Some(w) => {
                let mut got = Vec::new();
                leaves(gi, &mut got);
                assert!(
                    got.len() == w.len() && got.iter().zip(w.iter()).all(|(a, b)| close(*a, *b)),
                    "{name}: gradient {i} is {}, want {w:?}",
                    show(gi)
                );
            }
        }
    }
}
