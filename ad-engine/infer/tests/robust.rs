//! Inference never panics: random untyped programs (well formed or not) give typed programs
//! that verify, or errors.

use crate::common;

use std::sync::Arc;

use common::*;
use zy_ir::{
    Block, BlockCall, Const, Function, Op, Operand, Program, Span, Stmt, StructDef, StructKind,
    Terminator, Type, TypeExpr, Value,
};

/// A small deterministic generator (64-bit LCG).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

const NAMES: &[&str] = &[
    "+",
    "-",
    "*",
    "/",
    "÷",
    "%",
    "^",
    "<",
    "==",
    "!=",
    "!",
    "sin",
    "abs",
    "max",
    "float",
    "Int",
    "zero",
    "zeros",
    "ones",
    "fill",
    "copy",
    "length",
    "size",
    "first",
    "sum",
    "dot",
    "adjoint",
    "tuple",
    "namedtuple",
    "vect",
    "hvcat",
    "getindex",
    "setindex!",
    "getfield",
    "setfield!",
    "Ref",
    "error",
    "undef",
    "range_length",
    "broadcast",
    "map",
    "gradient",
    "derivative",
    "hessian",
    "pullback",
    "pushforward",
    "jvp",
    "hvp",
    "f0",
    "f1",
    "S",
    "nope",
    "G",
];

fn operand(r: &mut Rng, avail: &[Value]) -> Operand {
    match r.below(12) {
        0..=5 if !avail.is_empty() => Operand::Value(*r.pick(avail)),
        0 | 6 => Operand::Const(Const::Int(r.below(5) as i64 - 1)),
        1 | 7 => Operand::Const(Const::f64(r.below(4) as f64 * 0.5)),
        2 => Operand::Const(Const::Bool(r.below(2) == 0)),
        3 => Operand::Const(Const::Symbol((*r.pick(&["a", "b", "x"])).into())),
        4 => Operand::Const(Const::Func((*r.pick(NAMES)).into())),
        5 => Operand::Const(Const::Str("boom".into())),
        8 => Operand::Const(Const::Nothing),
        9 => Operand::Const(Const::Tuple(Arc::from(vec![Const::Symbol("a".into())]))),
        10 => Operand::Value(Value(r.below(40) as u32)),
        _ => Operand::Const(Const::Int(2)),
    }
}

fn function(r: &mut Rng, name: &str, nargs: usize) -> Function {
    let mut f = Function::new(name, Span::new(0, 0, 1));
    for i in 0..nargs {
        f.add_param(
            Block::ENTRY,
            Type::Any,
            Span::default(),
            Some(format!("a{i}").into()),
        );
    }
    let nblocks = 1 + r.below(4);
    for _ in 1..nblocks {
        let b = f.add_block();
        for _ in 0..r.below(3) {
            f.add_param(b, Type::Any, Span::default(), Some("p".into()));
        }
    }
    for b in 0..nblocks {
        let b = Block(b as u32);
        let mut avail: Vec<Value> = f.args().to_vec();
        avail.extend(f.block(b).params.clone());
        for _ in 0..r.below(6) {
            let op = match r.below(10) {
                0 => Op::CallValue,
                1 => Op::Closure((*r.pick(&["#c", "S", "nope"])).into()),
                2 => Op::Global((*r.pick(&["G", "H"])).into()),
                _ => Op::Call((*r.pick(NAMES)).into()),
            };
            let args = (0..r.below(4)).map(|_| operand(r, &avail)).collect();
            let v = f.push_stmt(b, Stmt { op, args }, Type::Any, Span::new(0, 5, 6));
            avail.push(v);
        }
        // Jumps to the entry block are malformed (the verifier rejects them): aim elsewhere.
        let target = Block(if nblocks > 1 {
            1 + r.below(nblocks - 1)
        } else {
            0
        } as u32);
        let call = |r: &mut Rng, t: Block, f: &Function, avail: &[Value]| {
            let n = f.block(t).params.len() + usize::from(r.below(10) == 0);
            BlockCall {
                block: t,
                args: (0..n).map(|_| operand(r, avail)).collect(),
            }
        };
        let term = match r.below(4) {
            0 => Terminator::Return(operand(r, &avail)),
            1 => Terminator::Jump(call(r, target, &f, &avail)),
            2 if nblocks > 2 => {
                let other = Block((target.0 as usize % (nblocks - 1) + 1) as u32);
                Terminator::Branch {
                    cond: operand(r, &avail),
                    then_to: call(r, target, &f, &avail),
                    else_to: call(r, other, &f, &avail),
                }
            }
            _ => Terminator::Return(Operand::Const(Const::Int(0))),
        };
        f.set_term(b, term, Span::default());
    }
    f
}

fn annotation(r: &mut Rng) -> Option<TypeExpr> {
    let names = [
        "Float64", "Real", "Int", "Vector", "T", "S", "Nope", "Tuple", "Function",
    ];
    let a = *r.pick(&names);
    let b = *r.pick(&names);
    match r.below(3) {
        0 => None,
        1 => Some(TypeExpr::named(a)),
        _ => Some(TypeExpr::Named {
            name: a.into(),
            params: vec![TypeExpr::named(b)],
        }),
    }
}

fn program(r: &mut Rng) -> Program {
    let mut p = Program::default();
    for name in ["f0", "f1"] {
        for _ in 0..1 + r.below(2) {
            let n = r.below(3);
            let body = function(r, name, n);
            let sig = (0..n).map(|_| annotation(r)).collect();
            method_where(&mut p, name, sig, &["T"], body);
        }
    }
    let fields: Vec<(&str, Option<TypeExpr>)> = vec![("a", annotation(r)), ("b", annotation(r))];
    structdef(&mut p, "S", &["T"], &fields, r.below(2) == 0);
    p.structs.insert(
        "#c".into(),
        StructDef {
            name: "#c".into(),
            params: vec![],
            param_bounds: Vec::new(),
            supertype: None,
            is_abstract: false,
            inner_constructors: false,
            fields: vec![("x".into(), None)],
            const_fields: Vec::new(),
            mutable: false,
            kind: StructKind::Closure,
            library: false,
            alias: None,
            span: Span::default(),
        },
    );
    let call = function(r, "#c", 2);
    method(&mut p, "(::#c)", vec![None, None], call);
    let g = function(r, "G", 0);
    p.globals.insert(
        "G".into(),
        zy_ir::Global {
            name: "G".into(),
            body: Arc::new(g),
            span: Span::default(),
        },
    );
    p
}

#[test]
fn random_programs_never_panic() {
    let mut r = Rng(7);
    let arg_types = [
        Type::Float64,
        Type::Int64,
        Type::Bool,
        Type::vector_f64(),
        Type::matrix_f64(),
        Type::tuple([Type::Float64, Type::Int64]),
        Type::Ref(Arc::new(Type::Float64)),
        Type::Function("f1".into()),
    ];
    let mut typed_ok = 0;
    for _ in 0..10_000 {
        let p = program(&mut r);
        let name = *r.pick(&["f0", "f1"]);
        let n = r.below(3);
        let args: Vec<Type> = (0..n).map(|_| r.pick(&arg_types).clone()).collect();
        if let Ok((root, prog)) = zy_infer::infer_entry(&p, name, &args) {
            print_program(&root, &prog);
            typed_ok += 1;
        }
    }
    // The generator must exercise the success path too.
    assert!(typed_ok > 150, "{typed_ok}");
}
