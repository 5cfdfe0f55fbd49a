//! Packs a prelude item's untyped SSA into bytes at build time, in the format that
//! `src/unpack.rs` reads back. Only what lowering makes is packable (every value of type `Any`,
//! calls by name, no instance, no lowering error); anything else returns `None` and the item
//! is lowered when read, as a user's item is.

use zy_ir::{
    BlockCall, Const, Function, Keywords, Method, Op, Operand, Span, StructDef, StructKind,
    Terminator, Type, TypeExpr, ValueKind,
};
use zy_lower::LoweredItem;

/// The `Span::file` the build script lowers with: the item's own number, set when read.
pub const ITEM_FILE: u32 = u32::MAX;

/// `item` packed, or `None` if it holds what the format does not carry.
pub fn pack(item: &LoweredItem) -> Option<Vec<u8>> {
    if !item.errors.is_empty() {
        return None;
    }
    let mut w = Writer(Vec::new());
    w.list(&item.methods, |w, (generic, m)| {
        w.str(generic);
        w.method(m)
    })?;
    w.list(&item.structs, Writer::struct_def)?;
    w.list(&item.globals, |w, g| {
        w.str(&g.name);
        w.function(&g.body)?;
        w.span(g.span)
    })?;
    Some(w.0)
}

struct Writer(Vec<u8>);

impl Writer {
    /// LEB128.
    fn num(&mut self, mut n: u64) {
        while n >= 0x80 {
            self.0.push((n as u8) | 0x80);
            n >>= 7;
        }
        self.0.push(n as u8);
    }

    fn flag(&mut self, b: bool) {
        self.num(u64::from(b));
    }

    fn str(&mut self, s: &str) {
        self.num(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }

    fn list<T>(&mut self, xs: &[T], mut f: impl FnMut(&mut Self, &T) -> Option<()>) -> Option<()> {
        self.num(xs.len() as u64);
        xs.iter().try_for_each(|x| f(self, x))
    }

    fn option<T>(
        &mut self,
        x: Option<&T>,
        f: impl FnOnce(&mut Self, &T) -> Option<()>,
    ) -> Option<()> {
        self.flag(x.is_some());
        x.map_or(Some(()), |x| f(self, x))
    }

    fn names(&mut self, xs: &[zy_ir::Name]) {
        self.num(xs.len() as u64);
        xs.iter().for_each(|x| self.str(x));
    }

    fn span(&mut self, s: Span) -> Option<()> {
        match s.file {
            0 => self.num(0),
            ITEM_FILE => self.num(1),
            _ => return None,
        }
        self.num(s.start.into());
        self.num(s.end.into());
        Some(())
    }

    fn type_expr(&mut self, t: &TypeExpr) -> Option<()> {
        match t {
            TypeExpr::Named { name, params } => {
                self.num(0);
                self.str(name);
                self.list(params, Writer::type_expr)
            }
            TypeExpr::Typeof(name) => {
                self.num(1);
                self.str(name);
                Some(())
            }
        }
    }

    fn method(&mut self, m: &Method) -> Option<()> {
        self.list(&m.sig, |w, t| w.option(t.as_ref(), Writer::type_expr))?;
        self.names(&m.where_params);
        self.list(&m.where_bounds, |w, (p, t)| {
            w.str(p);
            w.type_expr(t)
        })?;
        self.function(&m.body)?;
        self.span(m.span)?;
        self.option(m.keywords.as_deref(), |w, k: &Keywords| {
            w.str(&k.body);
            w.num(k.params.len() as u64);
            for (a, b) in &k.params {
                w.str(a);
                w.str(b);
            }
            w.flag(k.rest);
            Some(())
        })
    }

    fn struct_def(&mut self, s: &StructDef) -> Option<()> {
        self.str(&s.name);
        self.names(&s.params);
        self.list(&s.param_bounds, |w, (p, t)| {
            w.str(p);
            w.type_expr(t)
        })?;
        self.option(s.supertype.as_ref(), Writer::type_expr)?;
        self.flag(s.is_abstract);
        self.flag(s.inner_constructors);
        self.list(&s.fields, |w, (f, t)| {
            w.str(f);
            w.option(t.as_ref(), Writer::type_expr)
        })?;
        self.flag(s.mutable);
        self.flag(s.kind == StructKind::Closure);
        self.span(s.span)
    }

    fn function(&mut self, f: &Function) -> Option<()> {
        if f.instance.is_some() || f.ret != Type::Any {
            return None;
        }
        self.str(&f.name);
        self.names(&f.arg_names);
        self.list(&f.blocks, |w, b| {
            w.num(b.params.len() as u64);
            b.params.iter().for_each(|v| w.num(v.0.into()));
            w.num(b.stmts.len() as u64);
            b.stmts.iter().for_each(|v| w.num(v.0.into()));
            w.terminator(&b.term)?;
            w.span(b.term_span)
        })?;
        self.list(&f.values, |w, v| {
            if v.ty != Type::Any {
                return None;
            }
            match &v.kind {
                ValueKind::Param { block, index } => {
                    w.num(0);
                    w.num(block.0.into());
                    w.num((*index).into());
                }
                ValueKind::Stmt(s) => {
                    let (tag, name) = match &s.op {
                        Op::Call(n) => (1, Some(n)),
                        Op::CallValue => (2, None),
                        Op::Closure(n) => (3, Some(n)),
                        Op::Global(n) => (4, Some(n)),
                        Op::Prim(_) | Op::New(_) | Op::Invoke(_) => return None,
                    };
                    w.num(tag);
                    if let Some(n) = name {
                        w.str(n);
                    }
                    w.operands(&s.args);
                }
            }
            w.span(v.span)?;
            w.option(v.name.as_ref(), |w, n| {
                w.str(n);
                Some(())
            })
        })?;
        self.span(f.span)
    }

    fn operands(&mut self, xs: &[Operand]) {
        self.num(xs.len() as u64);
        xs.iter().for_each(|x| self.operand(x));
    }

    fn operand(&mut self, x: &Operand) {
        match x {
            Operand::Value(v) => {
                self.num(0);
                self.num(v.0.into());
            }
            Operand::Const(c) => {
                self.num(1);
                self.constant(c);
            }
        }
    }

    fn constant(&mut self, c: &Const) {
        match c {
            Const::F64(bits) => {
                self.num(0);
                self.num(*bits);
            }
            Const::Int(i) => {
                self.num(1);
                self.num(*i as u64);
            }
            Const::Bool(b) => {
                self.num(2);
                self.flag(*b);
            }
            Const::Nothing => self.num(3),
            Const::Symbol(n) => {
                self.num(4);
                self.str(n);
            }
            Const::Str(n) => {
                self.num(5);
                self.str(n);
            }
            Const::Func(n) => {
                self.num(6);
                self.str(n);
            }
            Const::Tuple(cs) => {
                self.num(7);
                self.num(cs.len() as u64);
                cs.iter().for_each(|c| self.constant(c));
            }
        }
    }

    fn block_call(&mut self, c: &BlockCall) {
        self.num(c.block.0.into());
        self.operands(&c.args);
    }

    fn terminator(&mut self, t: &Terminator) -> Option<()> {
        match t {
            Terminator::Return(x) => {
                self.num(0);
                self.operand(x);
            }
            Terminator::Jump(c) => {
                self.num(1);
                self.block_call(c);
            }
            Terminator::Branch {
                cond,
                then_to,
                else_to,
            } => {
                self.num(2);
                self.operand(cond);
                self.block_call(then_to);
                self.block_call(else_to);
            }
            Terminator::Unreachable => self.num(3),
            Terminator::Handle { leave, catch, to } => {
                self.num(4);
                self.num((*leave).into());
                self.option(catch.as_ref(), |w, c| {
                    w.block_call(c);
                    Some(())
                })?;
                self.block_call(to);
            }
        }
        Some(())
    }
}
