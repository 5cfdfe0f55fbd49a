//! Builders for untyped IR in the shape lowering produces (all types `Any`, calls by name), and
//! helpers to run inference and print the result.

#![allow(dead_code)]

use std::sync::Arc;

use zy_ir::{
    callable_name, Block, BlockCall, Const, Function, Method, Op, Operand, Program, Span, Stmt,
    StructDef, StructKind, Terminator, Type, TypeExpr,
};

/// Builds one untyped function block by block. Every statement gets its own span
/// (`start` = a counter), so tests can check where errors point.
pub struct Fb {
    pub f: Function,
    pub cur: Block,
    next: u32,
}

pub fn int(i: i64) -> Operand {
    Operand::Const(Const::Int(i))
}

pub fn float(x: f64) -> Operand {
    Operand::Const(Const::f64(x))
}

pub fn sym(s: &str) -> Operand {
    Operand::Const(Const::Symbol(s.into()))
}

pub fn func(s: &str) -> Operand {
    Operand::Const(Const::Func(s.into()))
}

pub fn ty(name: &str) -> Option<TypeExpr> {
    Some(TypeExpr::named(name))
}

pub fn ty_app(name: &str, params: &[&str]) -> Option<TypeExpr> {
    Some(TypeExpr::Named {
        name: name.into(),
        params: params.iter().map(|p| TypeExpr::named(p)).collect(),
    })
}

impl Fb {
    /// A function with named arguments.
    pub fn new(name: &str, args: &[&str]) -> Fb {
        let mut f = Function::new(name, Span::new(0, 0, 1000));
        for a in args {
            f.add_param(
                Block::ENTRY,
                Type::Any,
                Span::new(0, 0, 1),
                Some((*a).into()),
            );
            f.arg_names.push((*a).into());
        }
        Fb {
            f,
            cur: Block::ENTRY,
            next: 100,
        }
    }

    pub fn arg(&self, i: usize) -> Operand {
        Operand::Value(self.f.args()[i])
    }

    fn span(&mut self) -> Span {
        self.next += 10;
        Span::new(0, self.next, self.next + 5)
    }

    /// `Call(name, args)` in the current block.
    pub fn call(&mut self, name: &str, args: Vec<Operand>) -> Operand {
        self.op(Op::Call(name.into()), args)
    }

    /// `var = name(args...)`.
    pub fn let_(&mut self, var: &str, name: &str, args: Vec<Operand>) -> Operand {
        let v = self.call(name, args);
        if let Operand::Value(v) = v {
            self.f.name_value(v, var.into());
        }
        v
    }

    pub fn op(&mut self, op: Op, args: Vec<Operand>) -> Operand {
        let span = self.span();
        Operand::Value(
            self.f
                .push_stmt(self.cur, Stmt { op, args }, Type::Any, span),
        )
    }

    pub fn block(&mut self) -> Block {
        self.f.add_block()
    }

    /// A φ of `b` named `name`.
    pub fn phi(&mut self, b: Block, name: &str) -> Operand {
        let span = self.span();
        Operand::Value(self.f.add_param(b, Type::Any, span, Some(name.into())))
    }

    pub fn at(&mut self, b: Block) {
        self.cur = b;
    }

    pub fn jump(&mut self, to: Block, args: Vec<Operand>) {
        let span = self.span();
        self.f.set_term(
            self.cur,
            Terminator::Jump(BlockCall { block: to, args }),
            span,
        );
    }

    pub fn branch(
        &mut self,
        c: Operand,
        t: Block,
        targs: Vec<Operand>,
        e: Block,
        eargs: Vec<Operand>,
    ) {
        let span = self.span();
        let term = Terminator::Branch {
            cond: c,
            then_to: BlockCall {
                block: t,
                args: targs,
            },
            else_to: BlockCall {
                block: e,
                args: eargs,
            },
        };
        self.f.set_term(self.cur, term, span);
    }

    pub fn ret(&mut self, x: Operand) {
        let span = self.span();
        self.f.set_term(self.cur, Terminator::Return(x), span);
    }

    pub fn done(self) -> Function {
        self.f
    }
}

/// Add a method with signature `sig` (one entry per argument).
pub fn method(p: &mut Program, name: &str, sig: Vec<Option<TypeExpr>>, body: Function) {
    method_where(p, name, sig, &[], body);
}

pub fn method_where(
    p: &mut Program,
    name: &str,
    sig: Vec<Option<TypeExpr>>,
    vars: &[&str],
    body: Function,
) {
    let span = body.span;
    p.add_method(
        name.into(),
        Method {
            sig,
            where_params: vars.iter().map(|v| (*v).into()).collect(),
            where_bounds: Vec::new(),
            body: Arc::new(body),
            span,
            keywords: None,
        },
    );
}

/// Add an unannotated method named like its body.
pub fn define(p: &mut Program, body: Function) {
    let n = body.args().len();
    let name = body.name.to_string();
    method(p, &name, vec![None; n], body);
}

/// `struct name{params...} fields... end`.
pub fn structdef(
    p: &mut Program,
    name: &str,
    params: &[&str],
    fields: &[(&str, Option<TypeExpr>)],
    mutable: bool,
) {
    p.structs.insert(
        name.into(),
        StructDef {
            name: name.into(),
            params: params.iter().map(|s| (*s).into()).collect(),
            param_bounds: Vec::new(),
            supertype: None,
            is_abstract: false,
            inner_constructors: false,
            fields: fields
                .iter()
                .map(|(n, t)| ((*n).into(), t.clone()))
                .collect(),
            const_fields: Vec::new(),
            mutable,
            kind: StructKind::User,
            library: false,
            alias: None,
            span: Span::new(0, 0, 1),
        },
    );
}

/// A closure type with the given captures and its call method `body` (argument 0 `#self#`).
pub fn closure(p: &mut Program, name: &str, captures: &[&str], body: Function) {
    p.structs.insert(
        name.into(),
        StructDef {
            name: name.into(),
            params: vec![],
            param_bounds: Vec::new(),
            supertype: None,
            is_abstract: false,
            inner_constructors: false,
            fields: captures.iter().map(|c| ((*c).into(), None)).collect(),
            const_fields: Vec::new(),
            mutable: false,
            kind: StructKind::Closure,
            library: false,
            alias: None,
            span: Span::new(0, 0, 1),
        },
    );
    let n = body.args().len();
    method(p, &callable_name(name), vec![None; n], body);
}

/// Infer `name(args...)` and print every typed function (entry first), checking each with the
/// verifier.
pub fn typed(p: &Program, name: &str, args: &[Type]) -> String {
    match zy_infer::infer_entry(p, name, args) {
        Ok((root, prog)) => print_program(&root, &prog),
        Err(errs) => errors(&errs),
    }
}

pub fn print_program(root: &zy_ir::Instance, prog: &zy_ir::TypedProgram) -> String {
    let mut out = String::new();
    let mut fs: Vec<_> = prog.functions.iter().collect();
    fs.sort_by_key(|(i, _)| (&***i != root, (*i).clone()));
    for (_, f) in fs {
        let problems = zy_ir::verify(f);
        assert!(problems.is_empty(), "{problems:?}\n{f}");
        assert!(f.ret != Type::Any && f.values.iter().all(|v| v.ty != Type::Any));
        out.push_str(&f.to_string());
    }
    for (name, g) in &prog.globals {
        out.push_str(&format!("global {name} = "));
        out.push_str(&g.to_string());
    }
    out
}

pub fn errors(errs: &[zy_infer::TypeError]) -> String {
    errs.iter()
        .map(|e| {
            format!(
                "error[{}] at {}..{}: {}\n",
                e.code, e.span.start, e.span.end, e.message
            )
        })
        .collect()
}

/// The errors of inferring `name(args...)` (empty if it succeeds).
pub fn errs(p: &Program, name: &str, args: &[Type]) -> String {
    match zy_infer::infer_entry(p, name, args) {
        Ok(_) => String::new(),
        Err(e) => errors(&e),
    }
}
