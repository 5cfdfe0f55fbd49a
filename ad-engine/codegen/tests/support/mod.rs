//! Helpers for the JIT tests: typed IR built by hand, and a check that the JIT and the
//! interpreter agree on it.

#![allow(dead_code)]

use std::sync::Arc;

use zy_codegen::JitSession;
use zy_interp::{Limits, RuntimeError, Value};
use zy_ir::{
    Block, BlockCall, Const, Function, Instance, Op, Operand, Prim, Span, Stmt, Terminator, Type,
    TypedProgram,
};

/// A typed function under construction.
pub struct Fb {
    pub f: Function,
    pub args: Vec<zy_ir::Value>,
}

/// Span `start..start+1` of file 0, so tests can tell statements apart.
pub fn sp(start: u32) -> Span {
    Span::new(0, start, start + 1)
}

impl Fb {
    /// A function `name(args...) :: ret`, method 0.
    pub fn new(name: &str, args: &[Type], ret: Type) -> Fb {
        let mut f = Function::new(name, sp(0));
        let vals = args
            .iter()
            .map(|t| f.add_param(Block::ENTRY, t.clone(), sp(0), None))
            .collect();
        f.ret = ret;
        f.instance = Some(Arc::new(Instance {
            name: name.into(),
            method: 0,
            args: args.into(),
        }));
        Fb { f, args: vals }
    }

    /// The instance this function is.
    pub fn inst(&self) -> Arc<Instance> {
        self.f.instance.clone().expect("instance set by Fb::new")
    }

    /// `%v = p(args...) :: ty` at the end of `b`, with span `sp(at)`.
    pub fn prim(
        &mut self,
        b: Block,
        p: Prim,
        args: Vec<Operand>,
        ty: Type,
        at: u32,
    ) -> zy_ir::Value {
        self.f.push_stmt(
            b,
            Stmt {
                op: Op::Prim(p),
                args,
            },
            ty,
            sp(at),
        )
    }

    /// `%v = invoke inst(args...) :: ty`.
    pub fn invoke(
        &mut self,
        b: Block,
        inst: Arc<Instance>,
        args: Vec<Operand>,
        ty: Type,
    ) -> zy_ir::Value {
        self.f.push_stmt(
            b,
            Stmt {
                op: Op::Invoke(inst),
                args,
            },
            ty,
            sp(1),
        )
    }

    /// A new block with parameters of these types.
    pub fn block(&mut self, params: &[Type]) -> (Block, Vec<zy_ir::Value>) {
        let b = self.f.add_block();
        let ps = params
            .iter()
            .map(|t| self.f.add_param(b, t.clone(), sp(0), None))
            .collect();
        (b, ps)
    }

    pub fn ret(&mut self, b: Block, x: impl Into<Operand>) {
        self.f.set_term(b, Terminator::Return(x.into()), sp(2));
    }

    pub fn jump(&mut self, b: Block, to: Block, args: Vec<Operand>) {
        self.f
            .set_term(b, Terminator::Jump(BlockCall { block: to, args }), sp(3));
    }

    pub fn branch(
        &mut self,
        b: Block,
        c: impl Into<Operand>,
        t: (Block, Vec<Operand>),
        e: (Block, Vec<Operand>),
    ) {
        self.f.set_term(
            b,
            Terminator::Branch {
                cond: c.into(),
                then_to: BlockCall {
                    block: t.0,
                    args: t.1,
                },
                else_to: BlockCall {
                    block: e.0,
                    args: e.1,
                },
            },
            sp(4),
        );
    }
}

pub fn v(x: zy_ir::Value) -> Operand {
    Operand::Value(x)
}

pub fn f(x: f64) -> Operand {
    Operand::Const(Const::f64(x))
}

pub fn i(x: i64) -> Operand {
    Operand::Const(Const::Int(x))
}

/// A program of these functions.
pub fn program(fs: Vec<Fb>) -> TypedProgram {
    let mut p = TypedProgram::default();
    for fb in fs {
        assert!(
            zy_ir::verify(&fb.f).is_empty(),
            "{:?}",
            zy_ir::verify(&fb.f)
        );
        p.functions.insert(fb.inst(), Arc::new(fb.f));
    }
    p
}

/// A comparable rendering of a result: Julia's `show` of the value (floats print exactly), or
/// the error with its span.
pub fn render(r: &Result<Value, RuntimeError>) -> String {
    match r {
        Ok(v) => zy_interp::show(v),
        Err(e) => format!("error at {}..{}: {}", e.span.start, e.span.end, e.message),
    }
}

/// Run `inst` on `args` in the JIT and in the interpreter, assert they agree, and return the
/// common rendering.
pub fn check(prog: &TypedProgram, inst: &Instance, args: Vec<Value>) -> String {
    check_with(prog, inst, args, &Limits::default())
}

/// As [`check`], under `limits`.
pub fn check_with(
    prog: &TypedProgram,
    inst: &Instance,
    args: Vec<Value>,
    limits: &Limits,
) -> String {
    let mut jit = JitSession::new().expect("JIT session");
    let compiled = jit.compile(prog, inst).expect("compiles");
    let copies: Vec<Value> = args.iter().map(deep_copy).collect();
    let bound_args: Vec<Value> = args.iter().map(deep_copy).collect();
    let by_jit = compiled.call(&args, limits);
    let by_interp = zy_interp::run(prog, inst, copies, limits);
    let (a, b) = (render(&by_jit), render(&by_interp));
    assert_eq!(a, b, "JIT (left) and interpreter (right) disagree");
    // The native entry point: the same result, converted from the slots of a bound run.
    let by_bound = compiled
        .bind(&bound_args, limits)
        .and_then(|mut call| call.run().map(drop).and_then(|()| call.result()));
    assert_eq!(
        render(&by_bound),
        a,
        "bound run (left) and call (right) disagree"
    );
    a
}

/// A copy of `v` sharing no mutable object with it (so two engines can mutate their own).
pub fn deep_copy(v: &Value) -> Value {
    use std::cell::RefCell;
    use std::rc::Rc;
    match v {
        Value::Tuple(vs) => Value::Tuple(vs.iter().map(deep_copy).collect()),
        Value::NamedTuple(n, vs) => {
            Value::NamedTuple(n.clone(), vs.iter().map(deep_copy).collect())
        }
        Value::Struct(t, vs) => Value::Struct(t.clone(), vs.iter().map(deep_copy).collect()),
        Value::Mutable(t, c) => Value::Mutable(
            t.clone(),
            Rc::new(RefCell::new(c.borrow().iter().map(deep_copy).collect())),
        ),
        Value::Ref(c) => Value::Ref(Rc::new(RefCell::new(deep_copy(&c.borrow())))),
        Value::Array(a) => {
            let mut copy = a.borrow().clone();
            // The elements of a vector of arrays or structs are references: copy them too.
            if let zy_interp::ArrayData::Obj(o) = &mut copy.data {
                o.items = o.items.iter().map(deep_copy).collect();
            }
            Value::Array(Rc::new(RefCell::new(copy)))
        }
        Value::Adjoint(a) => Value::Adjoint(Rc::new(RefCell::new(a.borrow().clone()))),
        Value::Stack(s) => Value::Stack(Rc::new(RefCell::new(
            s.borrow().iter().map(deep_copy).collect(),
        ))),
        other => other.clone(),
    }
}

/// Print each of `fs` (after the struct declarations it needs), read the text back and print
/// it again: the same text, and a function that verifies.
pub fn reads_back(fs: &[&Function]) -> Result<(), String> {
    for f in fs {
        let mut decls = Vec::new();
        declare(f, &mut decls);
        let text = zy_ir::print_function(f);
        let module = format!("{}{text}", decls.concat());
        let read = zy_ir::parse_module(&module).map_err(|e| format!("{e} in\n{module}"))?;
        let again: String = read.functions.iter().map(zy_ir::print_function).collect();
        if again != text {
            return Err(format!("read back differently:\n{text}\nas\n{again}"));
        }
        for g in &read.functions {
            let problems = zy_ir::verify(g);
            if !problems.is_empty() {
                return Err(format!("read back malformed: {problems:?}\n{text}"));
            }
        }
    }
    Ok(())
}

/// Add the declarations of the structs `f` needs to `decls`, each once, in order.
pub fn declare(f: &Function, decls: &mut Vec<String>) {
    for d in zy_ir::print_structs(f)
        .split("\n\n")
        .filter(|d| !d.is_empty())
    {
        let d = format!("{d}\n\n");
        if !decls.contains(&d) {
            decls.push(d);
        }
    }
}

/// pow(x, n): r = 1.0; while n > 0; r *= x; n -= 1; end; r
pub fn pow_fn() -> Fb {
    let mut fb = Fb::new("pow", &[Type::Float64, Type::Int64], Type::Float64);
    let (x, n) = (fb.args[0], fb.args[1]);
    let e = Block::ENTRY;
    let (head, hp) = fb.block(&[Type::Float64, Type::Int64]);
    let (body, _) = fb.block(&[]);
    let (exit, _) = fb.block(&[]);
    fb.jump(e, head, vec![f(1.0), v(n)]);
    let c = fb.prim(head, Prim::Gt, vec![v(hp[1]), i(0)], Type::Bool, 10);
    fb.branch(head, v(c), (body, vec![]), (exit, vec![]));
    let r = fb.prim(body, Prim::Mul, vec![v(hp[0]), v(x)], Type::Float64, 11);
    let k = fb.prim(body, Prim::Sub, vec![v(hp[1]), i(1)], Type::Int64, 12);
    fb.jump(body, head, vec![v(r), v(k)]);
    fb.ret(exit, v(hp[0]));
    fb
}
