//! Mooncake's `test_rule`: differentiate one primitive applied to given arguments, on the JIT
//! and the interpreter (which must agree bit for bit), and compare with central finite
//! differences; check that the primal state after forward + pullback is
//! the state after the plain call.
//!
//! The primitive's result (and every array argument, which it may mutate) is reduced to a
//! number by a weighted sum with fixed, distinct weights, so every output entry is checked.

use std::sync::Arc;

use zy_ad::rules::{Case, TestArg};
use zy_interp::{eval_prim, Value};
use zy_ir::{
    Block, Const, Function, Instance, Op, Operand, Prim, Span, Stmt, Terminator, Type, TypedProgram,
};

use super::run::check_fd_prog;

/// An argument of the statement: a value passed in (and differentiated) or a constant.
#[derive(Clone)]
pub enum Arg {
    V(Value),
    C(Const),
}

impl Arg {
    /// The argument a rule's test point describes.
    pub fn of(t: &TestArg) -> Arg {
        let floats = |xs: &[f64]| xs.iter().map(|x| Value::F64(*x)).collect::<Vec<_>>();
        match *t {
            TestArg::Float(x) => Arg::V(Value::F64(x)),
            TestArg::Int(n) => Arg::V(Value::Int(n)),
            TestArg::LitInt(n) => Arg::C(Const::Int(n)),
            TestArg::Bool(b) => Arg::V(Value::Bool(b)),
            TestArg::Vector(xs) => Arg::V(Value::vector_f64(xs.to_vec())),
            TestArg::Matrix(m, n, xs) => {
                Arg::V(Value::matrix_f64(m, n, xs.to_vec()).expect("a matrix of its shape"))
            }
            TestArg::Ref(x) => Arg::V(Value::new_ref(Value::F64(x))),
            TestArg::Tuple(xs) => Arg::V(Value::tuple(floats(xs))),
            TestArg::Func(f) => Arg::C(Const::Func(f.into())),
            TestArg::Names(ns) => Arg::C(Const::Tuple(
                ns.iter().map(|n| Const::Symbol((*n).into())).collect(),
            )),
        }
    }
}

/// Check a rule by one of its test cases.
pub fn test_case(p: Prim, case: &Case) {
    match case {
        Case::Apply(args) => test_rule(p, &args.iter().map(Arg::of).collect::<Vec<_>>()),
        Case::Program { src, name, args } => test_program(p, src, name, args),
    }
}

/// Check `name(args...)` in `src` as [`test_rule`] checks one primitive, after checking that
/// its gradient program runs `p`.
pub fn test_program(p: Prim, src: &str, name: &str, args: &[f64]) {
    let inputs: Vec<Value> = args.iter().map(|x| Value::F64(*x)).collect();
    let (inst, prog) = super::run::typed(src, name, &inputs);
    // Differentiation called from the code becomes calls of forward and pullback functions.
    let prog = zy_ad::expand(&prog).unwrap_or_else(|e| panic!("{p}: {}", e.message));
    let (_, grad) =
        zy_ad::gradient_program(&prog, &inst).unwrap_or_else(|e| panic!("{p}: {}", e.message));
    let runs_p = grad.functions.values().any(|f| {
        f.block_ids().any(|b| {
            f.block(b)
                .stmts
                .iter()
                .any(|&v| f.stmt(v).is_some_and(|s| s.op == Op::Prim(p)))
        })
    });
    assert!(
        runs_p,
        "{p}: the gradient program of {name} does not run it"
    );
    jit_agrees(&prog, &inst, &inputs);
    check_fd_prog(&prog, &inst, inputs);
}

fn weight(k: usize) -> f64 {
    0.5 + 0.25 * k as f64
}

/// Check the rule of `p` on `args`.
pub fn test_rule(p: Prim, args: &[Arg]) {
    let (prog, inst, inputs) = rule_program(p, args);
    jit_agrees(&prog, &inst, &inputs);
    check_fd_prog(&prog, &inst, inputs);
}

/// Check the pushforward (frule) of `p` by one of its rule's test cases: along a direction,
/// against finite differences and the reverse gradient, on both engines.
pub fn test_frule(p: Prim, case: &Case) {
    match case {
        Case::Apply(args) => {
            let args: Vec<Arg> = args.iter().map(Arg::of).collect();
            let (prog, inst, inputs) = rule_program(p, &args);
            super::forward::check_jvp(&prog, &inst, &inputs);
        }
        Case::Program { src, name, args } => {
            let inputs: Vec<Value> = args.iter().map(|x| Value::F64(*x)).collect();
            let (inst, prog) = super::run::typed(src, name, &inputs);
            let prog = zy_ad::expand(&prog).unwrap_or_else(|e| panic!("{p}: {}", e.message));
            super::forward::check_jvp(&prog, &inst, &inputs);
        }
    }
}

/// The function of the `V` arguments that applies `p` to `args` and reduces its result, and
/// every array argument after the call, to a weighted sum; with its inputs (the arguments,
/// then the weight arrays).
pub fn rule_program(p: Prim, args: &[Arg]) -> (TypedProgram, Arc<Instance>, Vec<Value>) {
    let values: Vec<Value> = args
        .iter()
        .map(|a| match a {
            Arg::V(v) => super::run::deep_copy(v),
            Arg::C(c) => Value::from_const(c),
        })
        .collect();
    let y = eval_prim(p, &values, &Type::Any).unwrap_or_else(|e| panic!("{p}: {e}"));
    let ty = y.julia_type();
    let mut f = Function::new(format!("rule_{}", p.julia_name()), Span::default());
    let mut params = Vec::new();
    let mut inputs = Vec::new();
    let mut operands = Vec::new();
    for a in args {
        match a {
            Arg::V(v) => {
                let x = f.add_param(Block::ENTRY, v.julia_type(), Span::default(), None);
                params.push((x, v.julia_type()));
                inputs.push(v.clone());
                operands.push(Operand::Value(x));
            }
            Arg::C(c) => operands.push(c.clone().into()),
        }
    }
    let e = Block::ENTRY;
    let out = f.push_stmt(
        e,
        Stmt {
            op: Op::Prim(p),
            args: operands,
        },
        ty.clone(),
        Span::new(0, 1, 2),
    );
    // The weighted sum of the result and of every array argument after the call (whose shape
    // the call may have changed: `setlength!`).
    let after = args.iter().zip(&values).filter_map(|(a, v)| match a {
        Arg::V(_) => Some(v.clone()),
        Arg::C(_) => None,
    });
    let mut terms: Vec<(Operand, Type, Value)> = vec![(out.into(), ty, y.clone())];
    for ((x, t), v) in params.iter().zip(after) {
        if matches!(t, Type::Array(..) | Type::Ref(_)) {
            terms.push((Operand::Value(*x), t.clone(), v));
        }
    }
    let mut total = Operand::Const(Const::f64(0.0));
    let mut k = 0;
    for (x, t, like) in terms {
        for part in reduce(
            &mut f,
            &mut params_weights(&mut inputs, &mut k),
            x,
            &t,
            &like,
        ) {
            total = f
                .push_stmt(
                    e,
                    prim(Prim::Add, vec![total, part]),
                    Type::Float64,
                    Span::default(),
                )
                .into();
        }
    }
    f.set_term(e, Terminator::Return(total), Span::default());
    f.ret = Type::Float64;
    let arg_tys: Vec<Type> = f.args().iter().map(|a| f.ty(*a).clone()).collect();
    let inst = Arc::new(Instance {
        name: f.name.clone(),
        method: 0,
        args: arg_tys.into(),
    });
    f.instance = Some(inst.clone());
    f.arg_names = (0..f.args().len())
        .map(|i| format!("x{i}").into())
        .collect();
    let mut prog = TypedProgram::default();
    prog.functions.insert(inst.clone(), Arc::new(f));
    (prog, inst, inputs)
}

/// The value and gradient of `p(args...)` itself (a one-statement function of the `V`
/// arguments), through the interpreter and the JIT, which must agree bit for bit.
pub fn grad_at(p: Prim, args: &[Arg]) -> (Value, Value) {
    let mut f = Function::new(format!("at_{}", p.julia_name()), Span::default());
    let mut inputs = Vec::new();
    let mut operands = Vec::new();
    for a in args {
        match a {
            Arg::V(v) => {
                let x = f.add_param(Block::ENTRY, v.julia_type(), Span::default(), None);
                inputs.push(super::run::deep_copy(v));
                operands.push(Operand::Value(x));
            }
            Arg::C(c) => operands.push(c.clone().into()),
        }
    }
    let e = Block::ENTRY;
    let y = f.push_stmt(e, prim(p, operands), Type::Float64, Span::new(0, 1, 2));
    f.set_term(e, Terminator::Return(y.into()), Span::default());
    f.ret = Type::Float64;
    let arg_tys: Vec<Type> = f.args().iter().map(|a| f.ty(*a).clone()).collect();
    let inst = Arc::new(Instance {
        name: f.name.clone(),
        method: 0,
        args: arg_tys.into(),
    });
    f.instance = Some(inst.clone());
    let mut prog = TypedProgram::default();
    prog.functions.insert(inst.clone(), Arc::new(f));
    jit_agrees(&prog, &inst, &inputs);
    super::run::gradient_prog(&prog, &inst, inputs).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// The gradient of `inst` through the JIT is the interpreter's, bit for bit (and the JIT
/// compiles it).
fn jit_agrees(prog: &TypedProgram, inst: &Instance, inputs: &[Value]) {
    let (driver, prog) =
        zy_ad::gradient_program(prog, inst).unwrap_or_else(|e| panic!("{inst}: {}", e.message));
    let copies = |xs: &[Value]| xs.iter().map(super::run::deep_copy).collect::<Vec<_>>();
    let limits = zy_interp::Limits::default();
    let by_interp =
        zy_interp::run(&prog, &driver, copies(inputs), &limits).map(|v| zy_interp::show(&v));
    let compiled =
        match zy_codegen::JitSession::new().and_then(|mut jit| jit.compile(&prog, &driver)) {
            Ok(compiled) => compiled,
            // Values of an abstract type (a `Vector{Shape}`'s elements) and empty boxes the JIT
            // leaves to the interpreter by design.
            Err(zy_codegen::JitError::Interpreted(_)) if holds_union(&prog) || empty_box(&prog) => {
                return
            }
            Err(e) => panic!("{inst}: the JIT declined: {e}"),
        };
    let by_jit = compiled
        .call(&copies(inputs), &limits)
        .map(|v| zy_interp::show(&v));
    assert_eq!(
        by_jit, by_interp,
        "{inst}: the JIT and the interpreter differ"
    );
}

/// Does a function of `prog` hold a value of one of the program's abstract types?
/// Does the program make the empty box of a variable captured before it is assigned?
fn empty_box(prog: &TypedProgram) -> bool {
    prog.functions.values().any(|f| {
        f.values.iter().any(|v| {
            matches!(&v.kind, zy_ir::ValueKind::Stmt(s) if s.op == zy_ir::Op::Prim(zy_ir::Prim::RefUndef))
        })
    })
}

fn holds_union(prog: &TypedProgram) -> bool {
    prog.functions.values().any(|f| {
        f.values.iter().any(|v| {
            matches!(v.ty, Type::Union(_))
                || v.ty.elem().is_some_and(|e| matches!(e, Type::Union(_)))
        })
    })
}

/// Weight arrays are extra arguments (`W`), appended to the inputs as they are needed.
struct Weights<'a> {
    inputs: &'a mut Vec<Value>,
    k: &'a mut usize,
}

fn params_weights<'a>(inputs: &'a mut Vec<Value>, k: &'a mut usize) -> Weights<'a> {
    Weights { inputs, k }
}

fn prim(p: Prim, args: Vec<Operand>) -> Stmt {
    Stmt {
        op: Op::Prim(p),
        args,
    }
}

/// Weighted Float64 terms of `x :: t` (`like` is a value of its shape).
fn reduce(f: &mut Function, w: &mut Weights, x: Operand, t: &Type, like: &Value) -> Vec<Operand> {
    let e = Block::ENTRY;
    match t {
        Type::Float64 => {
            *w.k += 1;
            let c = Const::f64(weight(*w.k)).into();
            vec![f
                .push_stmt(
                    e,
                    prim(Prim::Mul, vec![x, c]),
                    Type::Float64,
                    Span::default(),
                )
                .into()]
        }
        Type::Array(el, n) if **el == Type::Float64 => {
            // sum(x .* W) with W a fixed argument of x's shape.
            let Value::Array(a) = like else { return vec![] };
            let mut arr = a.borrow().clone();
            if let zy_interp::ArrayData::F64(xs) = &mut arr.data {
                for (i, v) in xs.iter_mut().enumerate() {
                    *v = weight(*w.k + i + 1);
                }
                *w.k += xs.len();
            }
            let wv = f.add_param(e, Type::Array(el.clone(), *n), Span::default(), None);
            w.inputs.push(arr.into_value());
            let fx = Const::Func("*".into()).into();
            let prod = f.push_stmt(
                e,
                prim(Prim::Broadcast, vec![fx, x, wv.into()]),
                t.clone(),
                Span::default(),
            );
            vec![f
                .push_stmt(
                    e,
                    prim(Prim::Sum, vec![prod.into()]),
                    Type::Float64,
                    Span::default(),
                )
                .into()]
        }
        Type::Ref(inner) => {
            let Value::Ref(r) = like else { return vec![] };
            let content = r.borrow().clone();
            let x = f.push_stmt(
                e,
                prim(Prim::RefGet, vec![x]),
                (**inner).clone(),
                Span::default(),
            );
            reduce(f, w, x.into(), inner, &content)
        }
        Type::NamedTuple(fs) => {
            let ts: Vec<Type> = fs.iter().map(|(_, t)| t.clone()).collect();
            let Value::NamedTuple(_, parts) = like else {
                return vec![];
            };
            let mut out = Vec::new();
            for (i, ti) in ts.iter().enumerate() {
                let xi = f.push_stmt(
                    e,
                    prim(
                        Prim::GetField,
                        vec![x.clone(), Const::Int(i as i64 + 1).into()],
                    ),
                    ti.clone(),
                    Span::default(),
                );
                out.extend(reduce(f, w, xi.into(), ti, &parts[i]));
            }
            out
        }
        Type::Tuple(ts) => {
            let mut out = Vec::new();
            for (i, ti) in ts.iter().enumerate() {
                let xi = f.push_stmt(
                    e,
                    prim(
                        Prim::GetField,
                        vec![x.clone(), Const::Int(i as i64 + 1).into()],
                    ),
                    ti.clone(),
                    Span::default(),
                );
                let Value::Tuple(parts) = like else {
                    return out;
                };
                out.extend(reduce(f, w, xi.into(), ti, &parts[i]));
            }
            out
        }
        _ => vec![],
    }
}
