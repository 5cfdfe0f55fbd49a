//! Reads back the untyped SSA of a prelude item that the build script lowered and packed
//! (`build/pack.rs`), so that a process neither parses nor lowers the library items it reaches:
//! [`crate::ssa`] of a bundled item is this, spans set to the item's number. The bytes are the
//! build's own (`bundled_lowering_is_the_lowering` checks every item against its lowering);
//! bytes that do not read read as `None`, and the item is then lowered from its text.

use std::sync::Arc;

use zy_ir::{
    Block, BlockCall, BlockData, Const, Function, Global, Keywords, Method, Name, Op, Operand,
    Span, Stmt, StructDef, StructKind, Terminator, Type, TypeExpr, Value, ValueData, ValueKind,
};
use zy_lower::LoweredItem;

/// The lowered item packed in `bytes`, its spans in file `span_file`.
pub(crate) fn unpack(bytes: &[u8], span_file: u32) -> Option<LoweredItem> {
    let mut r = Reader {
        bytes,
        at: 0,
        span_file,
    };
    let item = LoweredItem {
        methods: r.list(|r| Some((r.name()?, r.method()?)))?,
        structs: r.list(Reader::struct_def)?,
        globals: r.list(|r| {
            Some(Global {
                name: r.name()?,
                body: Arc::new(r.function()?),
                span: r.span()?,
            })
        })?,
        errors: Vec::new(),
    };
    (r.at == bytes.len()).then_some(item)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    span_file: u32,
}

impl Reader<'_> {
    /// LEB128.
    fn num(&mut self) -> Option<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self.bytes.get(self.at)?;
            self.at += 1;
            n |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Some(n);
            }
        }
        None
    }

    fn u32(&mut self) -> Option<u32> {
        self.num()?.try_into().ok()
    }

    fn flag(&mut self) -> Option<bool> {
        match self.num()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    fn name(&mut self) -> Option<Name> {
        let len = usize::try_from(self.num()?).ok()?;
        let bytes = self.bytes.get(self.at..self.at.checked_add(len)?)?;
        self.at += len;
        std::str::from_utf8(bytes).ok().map(Name::from)
    }

    fn list<T>(&mut self, mut f: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        let len = usize::try_from(self.num()?).ok()?;
        // Every element takes a byte at least: a corrupt length fails before allocating.
        let mut out = Vec::with_capacity(len.min(self.bytes.len() - self.at));
        for _ in 0..len {
            out.push(f(self)?);
        }
        Some(out)
    }

    fn option<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        if self.flag()? {
            f(self).map(Some)
        } else {
            Some(None)
        }
    }

    fn span(&mut self) -> Option<Span> {
        let file = match self.num()? {
            0 => 0,
            1 => self.span_file,
            _ => return None,
        };
        Some(Span::new(file, self.u32()?, self.u32()?))
    }

    fn type_expr(&mut self) -> Option<TypeExpr> {
        match self.num()? {
            0 => Some(TypeExpr::Named {
                name: self.name()?,
                params: self.list(Reader::type_expr)?,
            }),
            1 => Some(TypeExpr::Typeof(self.name()?)),
            _ => None,
        }
    }

    fn bound(&mut self) -> Option<(Name, TypeExpr)> {
        Some((self.name()?, self.type_expr()?))
    }

    fn method(&mut self) -> Option<Method> {
        Some(Method {
            sig: self.list(|r| r.option(Reader::type_expr))?,
            where_params: self.list(Reader::name)?,
            where_bounds: self.list(Reader::bound)?,
            body: Arc::new(self.function()?),
            span: self.span()?,
            keywords: self.option(|r| {
                Some(Arc::new(Keywords {
                    body: r.name()?,
                    params: r.list(|r| Some((r.name()?, r.name()?)))?,
                    rest: r.flag()?,
                }))
            })?,
        })
    }

    fn struct_def(&mut self) -> Option<StructDef> {
        Some(StructDef {
            name: self.name()?,
            params: self.list(Reader::name)?,
            param_bounds: self.list(Reader::bound)?,
            supertype: self.option(Reader::type_expr)?,
            is_abstract: self.flag()?,
            inner_constructors: self.flag()?,
            fields: self.list(|r| Some((r.name()?, r.option(Reader::type_expr)?)))?,
            mutable: self.flag()?,
            kind: if self.flag()? {
                StructKind::Closure
            } else {
                StructKind::User
            },
            span: self.span()?,
        })
    }

    fn function(&mut self) -> Option<Function> {
        let name = self.name()?;
        let arg_names = self.list(Reader::name)?;
        let blocks = self.list(|r| {
            Some(BlockData {
                params: r.list(|r| r.u32().map(Value))?,
                stmts: r.list(|r| r.u32().map(Value))?,
                term: r.terminator()?,
                term_span: r.span()?,
            })
        })?;
        let values = self.list(|r| {
            let kind = match r.num()? {
                0 => ValueKind::Param {
                    block: Block(r.u32()?),
                    index: r.u32()?,
                },
                tag => {
                    let op = match tag {
                        1 => Op::Call(r.name()?),
                        2 => Op::CallValue,
                        3 => Op::Closure(r.name()?),
                        4 => Op::Global(r.name()?),
                        _ => return None,
                    };
                    ValueKind::Stmt(Stmt {
                        op,
                        args: r.list(Reader::operand)?,
                    })
                }
            };
            Some(ValueData {
                kind,
                ty: Type::Any,
                span: r.span()?,
                name: r.option(Reader::name)?,
            })
        })?;
        Some(Function {
            name,
            arg_names,
            instance: None,
            ret: Type::Any,
            blocks,
            values,
            span: self.span()?,
        })
    }

    fn operand(&mut self) -> Option<Operand> {
        match self.num()? {
            0 => Some(Operand::Value(Value(self.u32()?))),
            1 => Some(Operand::Const(self.constant()?)),
            _ => None,
        }
    }

    fn constant(&mut self) -> Option<Const> {
        Some(match self.num()? {
            0 => Const::F64(self.num()?),
            1 => Const::Int(self.num()? as i64),
            2 => Const::Bool(self.flag()?),
            3 => Const::Nothing,
            4 => Const::Symbol(self.name()?),
            5 => Const::Str(self.name()?),
            6 => Const::Func(self.name()?),
            7 => Const::Tuple(self.list(Reader::constant)?.into()),
            _ => return None,
        })
    }

    fn block_call(&mut self) -> Option<BlockCall> {
        Some(BlockCall {
            block: Block(self.u32()?),
            args: self.list(Reader::operand)?,
        })
    }

    fn terminator(&mut self) -> Option<Terminator> {
        Some(match self.num()? {
            0 => Terminator::Return(self.operand()?),
            1 => Terminator::Jump(self.block_call()?),
            2 => Terminator::Branch {
                cond: self.operand()?,
                then_to: self.block_call()?,
                else_to: self.block_call()?,
            },
            3 => Terminator::Unreachable,
            4 => Terminator::Handle {
                leave: self.u32()?,
                catch: self.option(Reader::block_call)?,
                to: self.block_call()?,
            },
            _ => return None,
        })
    }
}
