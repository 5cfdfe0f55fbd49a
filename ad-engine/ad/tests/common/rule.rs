//! Mooncake's `test_rule`: differentiate one primitive applied to given arguments, on the JIT
//! and the interpreter (which must agree bit for bit), and compare with central finite
//! differences; check that the primal state after forward + pullback is
//! the state after the plain call.
//!
//! The primitive's result (and every array argument, which it may mutate) is reduced to a
//! number by a weighted sum with fixed, distinct weights, so every output entry is checked.

use std::sync::Arc;

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

fn weight(k: usize) -> f64 {
    0.5 + 0.25 * k as f64
}

/// Check the rule of `p` on `args`.
pub fn test_rule(p: Prim, args: &[Arg]) {
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
    // The weighted sum of the result and of every array argument after the call.
    let mut terms: Vec<(Operand, Type, Value)> = vec![(out.into(), ty, y.clone())];
    for ((x, t), v) in params.iter().zip(inputs.clone()) {
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
    jit_agrees(&prog, &inst, &inputs);
    check_fd_prog(&prog, &inst, inputs);
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
    let compiled = zy_codegen::JitSession::new()
        .and_then(|mut jit| jit.compile(&prog, &driver))
        .unwrap_or_else(|e| panic!("{inst}: the JIT declined: {e}"));
    let by_jit = compiled
        .call(&copies(inputs), &limits)
        .map(|v| zy_interp::show(&v));
    assert_eq!(
        by_jit, by_interp,
        "{inst}: the JIT and the interpreter differ"
    );
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
