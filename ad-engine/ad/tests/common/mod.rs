//! Test helpers: hand-built typed IR, and differentiation of source text.
#![allow(dead_code)]

pub mod forward;
pub mod rule;
pub mod run;

use std::sync::Arc;

use zy_ir::{
    Block, BlockCall, Const, Function, Instance, Op, Operand, Prim, Span, Stmt, Terminator, Type,
    TypedProgram,
};

/// A small builder of typed functions.
pub struct F {
    pub f: Function,
    next_span: u32,
}

impl F {
    pub fn new(name: &str, args: &[(&str, Type)], ret: Type) -> F {
        let mut f = Function::new(name, Span::default());
        f.ret = ret;
        for (n, t) in args {
            f.add_param(Block::ENTRY, t.clone(), Span::default(), Some((*n).into()));
            f.arg_names.push((*n).into());
        }
        F { f, next_span: 1 }
    }
    pub fn arg(&self, i: usize) -> Operand {
        self.f.args()[i].into()
    }
    pub fn block(&mut self) -> Block {
        self.f.add_block()
    }
    pub fn phi(&mut self, b: Block, ty: Type, name: &str) -> Operand {
        self.f
            .add_param(b, ty, Span::default(), Some(name.into()))
            .into()
    }
    pub fn prim(&mut self, b: Block, p: Prim, args: Vec<Operand>, ty: Type) -> Operand {
        self.next_span += 1;
        let span = Span::new(0, self.next_span * 10, self.next_span * 10 + 5);
        self.f
            .push_stmt(
                b,
                Stmt {
                    op: Op::Prim(p),
                    args,
                },
                ty,
                span,
            )
            .into()
    }
    pub fn invoke(
        &mut self,
        b: Block,
        inst: &Arc<Instance>,
        args: Vec<Operand>,
        ty: Type,
    ) -> Operand {
        self.f
            .push_stmt(
                b,
                Stmt {
                    op: Op::Invoke(inst.clone()),
                    args,
                },
                ty,
                Span::default(),
            )
            .into()
    }
    pub fn named(&mut self, v: &Operand, name: &str) {
        if let Some(v) = v.as_value() {
            self.f.name_value(v, name.into());
        }
    }
    pub fn ret(&mut self, b: Block, x: Operand) {
        self.f.set_term(b, Terminator::Return(x), Span::default());
    }
    pub fn jump(&mut self, b: Block, to: Block, args: Vec<Operand>) {
        self.f.set_term(
            b,
            Terminator::Jump(BlockCall { block: to, args }),
            Span::default(),
        );
    }
    pub fn br(&mut self, b: Block, c: Operand, t: (Block, Vec<Operand>), e: (Block, Vec<Operand>)) {
        let term = Terminator::Branch {
            cond: c,
            then_to: BlockCall {
                block: t.0,
                args: t.1,
            },
            else_to: BlockCall {
                block: e.0,
                args: e.1,
            },
        };
        self.f.set_term(b, term, Span::default());
    }
    /// Finish as `name(args...)`: an instance and a one-function program.
    pub fn finish(self) -> (Arc<Instance>, TypedProgram) {
        let mut prog = TypedProgram::default();
        let inst = self.add_to(&mut prog);
        (inst, prog)
    }
    pub fn add_to(mut self, prog: &mut TypedProgram) -> Arc<Instance> {
        let args: Vec<Type> = self
            .f
            .args()
            .iter()
            .map(|a| self.f.ty(*a).clone())
            .collect();
        let inst = Arc::new(Instance {
            name: self.f.name.clone(),
            method: 0,
            args: args.into(),
        });
        self.f.instance = Some(inst.clone());
        assert_eq!(zy_ir::verify(&self.f), Vec::<String>::new());
        prog.functions.insert(inst.clone(), Arc::new(self.f));
        inst
    }
}

pub fn f64c(x: f64) -> Operand {
    Const::f64(x).into()
}

pub fn int(i: i64) -> Operand {
    Const::Int(i).into()
}

/// `a / (a + b^2)`.
pub fn paper_ratio() -> (Arc<Instance>, TypedProgram) {
    let f64t = Type::Float64;
    let mut f = F::new(
        "f",
        &[("a", f64t.clone()), ("b", f64t.clone())],
        f64t.clone(),
    );
    let (a, b) = (f.arg(0), f.arg(1));
    let e = Block::ENTRY;
    let b2 = f.prim(e, Prim::Pow, vec![b, int(2)], f64t.clone());
    let s = f.prim(e, Prim::Add, vec![a.clone(), b2], f64t.clone());
    let r = f.prim(e, Prim::Div, vec![a, s], f64t.clone());
    f.ret(e, r);
    f.finish()
}

/// `pow(x, n)`: `r = 1.0; while n > 0; n -= 1; r *= x; end; r`.
pub fn pow() -> (Arc<Instance>, TypedProgram) {
    let t = Type::Float64;
    let mut f = F::new("pow", &[("x", t.clone()), ("n", Type::Int64)], t.clone());
    let (x, n) = (f.arg(0), f.arg(1));
    let (h, body, exit) = (f.block(), f.block(), f.block());
    f.jump(Block::ENTRY, h, vec![f64c(1.0), n]);
    let r = f.phi(h, t.clone(), "r");
    let k = f.phi(h, Type::Int64, "n");
    let c = f.prim(h, Prim::Gt, vec![k.clone(), int(0)], Type::Bool);
    f.br(h, c, (body, vec![]), (exit, vec![]));
    let k2 = f.prim(body, Prim::Sub, vec![k, int(1)], Type::Int64);
    let r2 = f.prim(body, Prim::Mul, vec![r.clone(), x], t.clone());
    f.named(&k2, "n");
    f.named(&r2, "r");
    f.jump(body, h, vec![r2, k2]);
    f.ret(exit, r);
    f.finish()
}
