//! IR functions: basic blocks with parameters (printed as φ nodes), statements, terminators.
//!
//! A [`Function`] owns an arena of value definitions, as Cranelift's data-flow graph does. Every
//! value is defined exactly once: as a block parameter or by a statement. Block 0 is the entry;
//! its parameters are the function's arguments.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::ops::{Instance, Op};
use crate::types::{Name, Type};
use std::sync::Arc;

/// An opaque source location carried through every stage, so errors and analyses map back to
/// source text. `ad-engine` never interprets it; `analysis` does.
#[derive(
    Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default, Serialize, Deserialize,
)]
pub struct Span {
    /// Which source file (an id owned by the caller).
    pub file: u32,
    /// Start byte offset.
    pub start: u32,
    /// End byte offset (exclusive).
    pub end: u32,
}

impl Span {
    /// A span in `file` from `start` to `end`.
    pub fn new(file: u32, start: u32, end: u32) -> Span {
        Span { file, start, end }
    }

    /// The smallest span covering both.
    pub fn cover(self, other: Span) -> Span {
        if self == Span::default() {
            return other;
        }
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// An SSA value: `%n` in the printed IR.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Value(pub u32);

/// A basic block: `#n` in the printed IR (printed 1-based, stored 0-based).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Block(pub u32);

impl Value {
    /// The arena index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl Block {
    /// The entry block.
    pub const ENTRY: Block = Block(0);

    /// The index into [`Function::blocks`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0 + 1)
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Block {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0 + 1)
    }
}

impl fmt::Debug for Block {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A literal constant operand.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum Const {
    /// A Float64, stored as its bits so constants can be hashed and compared exactly.
    F64(u64),
    /// A Float32, stored as its bits (a Float32 gradient's literal zero or one).
    F32(u32),
    Int(i64),
    Bool(bool),
    Nothing,
    /// A symbol (`:x`), as in named tuple field names.
    Symbol(Name),
    /// A string: only as the message of `error("...")`.
    Str(Name),
    /// A generic function used as a value (`sin` in `map(sin, xs)`, or a user function `f`).
    Func(Name),
    /// A constant tuple of constants (named-tuple field names, `hvcat` shapes).
    Tuple(Arc<[Const]>),
}

impl Const {
    /// A Float64 constant.
    pub fn f64(x: f64) -> Const {
        Const::F64(x.to_bits())
    }

    /// A Float32 constant.
    pub fn f32(x: f32) -> Const {
        Const::F32(x.to_bits())
    }

    /// The Float64 value, if this is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Const::F64(b) => Some(f64::from_bits(*b)),
            _ => None,
        }
    }

    /// The type of this constant.
    pub fn ty(&self) -> Type {
        match self {
            Const::F64(_) => Type::Float64,
            Const::F32(_) => Type::Float32,
            Const::Int(_) => Type::Int64,
            Const::Bool(_) => Type::Bool,
            Const::Nothing => Type::Nothing,
            Const::Symbol(n) => Type::Symbol(n.clone()),
            Const::Str(_) => Type::String,
            Const::Tuple(_) => Type::Any,
            Const::Func(n) => Type::Function(n.clone()),
        }
    }
}

/// An operand of a statement or branch: an SSA value or a constant.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum Operand {
    Value(Value),
    Const(Const),
}

impl From<Value> for Operand {
    fn from(v: Value) -> Operand {
        Operand::Value(v)
    }
}

impl From<Const> for Operand {
    fn from(c: Const) -> Operand {
        Operand::Const(c)
    }
}

impl Operand {
    /// The value, if this operand is one.
    pub fn as_value(&self) -> Option<Value> {
        match self {
            Operand::Value(v) => Some(*v),
            Operand::Const(_) => None,
        }
    }

    /// The constant, if this operand is one.
    pub fn as_const(&self) -> Option<&Const> {
        match self {
            Operand::Const(c) => Some(c),
            Operand::Value(_) => None,
        }
    }
}

/// A statement: `%v = op(args...) :: ty`.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Stmt {
    pub op: Op,
    pub args: Vec<Operand>,
}

/// How a value is defined.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum ValueKind {
    /// The `index`-th parameter of `block` (a function argument for the entry block, a φ
    /// otherwise).
    Param { block: Block, index: u32 },
    /// A statement.
    Stmt(Stmt),
}

/// Everything known about one value.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct ValueData {
    pub kind: ValueKind,
    /// The concrete type ([`Type::Any`] before inference).
    #[serde(with = "crate::untyped::any")]
    pub ty: Type,
    /// Where in the source this value comes from.
    pub span: Span,
    /// The source variable this value was assigned to, if any (for printing and hover).
    pub name: Option<Name>,
}

/// A jump target with the values passed to the target block's parameters.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct BlockCall {
    pub block: Block,
    pub args: Vec<Operand>,
}

impl BlockCall {
    /// A jump to `block` with no arguments.
    pub fn new(block: Block) -> BlockCall {
        BlockCall {
            block,
            args: Vec::new(),
        }
    }
}

/// How control leaves a block.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum Terminator {
    /// `return x`.
    Return(Operand),
    /// `br #n(args)`.
    Jump(BlockCall),
    /// `br %c ? #t(args) : #e(args)`. The two targets are distinct blocks.
    Branch {
        cond: Operand,
        then_to: BlockCall,
        else_to: BlockCall,
    },
    /// Control cannot reach here (after a statement of type `Union{}`, such as `error`).
    Unreachable,
    /// `try`: drop the innermost `leave` exception handlers of this frame, then install
    /// `catch` as the innermost (if any), then go to `to`. While a handler is installed, an
    /// exception thrown by a statement of this frame (or of a call it makes) goes to the
    /// handler's block with the arguments given here, evaluated now, and removes the handler;
    /// the block reads the exception with `the_exception`. A `try` body updates its handler
    /// (`leave 1` with the same `catch`) after each assignment the catch block reads, so the
    /// handler edge carries every variable's current value: an edge of the CFG like any other.
    Handle {
        leave: u32,
        catch: Option<BlockCall>,
        to: BlockCall,
    },
}

impl Terminator {
    /// The blocks control may go to next.
    pub fn successors(&self) -> Vec<Block> {
        match self {
            Terminator::Return(_) | Terminator::Unreachable => vec![],
            Terminator::Jump(c) => vec![c.block],
            Terminator::Branch {
                then_to, else_to, ..
            } => vec![then_to.block, else_to.block],
            Terminator::Handle { catch, to, .. } => std::iter::once(to.block)
                .chain(catch.as_ref().map(|c| c.block))
                .collect(),
        }
    }

    /// The jump targets with their arguments.
    pub fn calls(&self) -> Vec<&BlockCall> {
        match self {
            Terminator::Return(_) | Terminator::Unreachable => vec![],
            Terminator::Jump(c) => vec![c],
            Terminator::Branch {
                then_to, else_to, ..
            } => vec![then_to, else_to],
            Terminator::Handle { catch, to, .. } => std::iter::once(to).chain(catch).collect(),
        }
    }

    /// The jump targets with their arguments, mutable, in the order of [`Terminator::calls`].
    pub fn calls_mut(&mut self) -> Vec<&mut BlockCall> {
        match self {
            Terminator::Return(_) | Terminator::Unreachable => vec![],
            Terminator::Jump(c) => vec![c],
            Terminator::Branch {
                then_to, else_to, ..
            } => vec![then_to, else_to],
            Terminator::Handle { catch, to, .. } => std::iter::once(to).chain(catch).collect(),
        }
    }

    /// Every operand read by the terminator, mutable, in the order of
    /// [`Terminator::operands`].
    pub fn operands_mut(&mut self) -> Vec<&mut Operand> {
        match self {
            Terminator::Return(x) => vec![x],
            Terminator::Unreachable => vec![],
            Terminator::Jump(c) => c.args.iter_mut().collect(),
            Terminator::Handle { catch, to, .. } => to
                .args
                .iter_mut()
                .chain(catch.iter_mut().flat_map(|c| &mut c.args))
                .collect(),
            Terminator::Branch {
                cond,
                then_to,
                else_to,
            } => std::iter::once(cond)
                .chain(&mut then_to.args)
                .chain(&mut else_to.args)
                .collect(),
        }
    }

    /// The same terminator with every operand and jump mapped.
    pub fn map(
        &self,
        op: &impl Fn(&Operand) -> Operand,
        call: &impl Fn(&BlockCall) -> BlockCall,
    ) -> Terminator {
        match self {
            Terminator::Return(x) => Terminator::Return(op(x)),
            Terminator::Jump(c) => Terminator::Jump(call(c)),
            Terminator::Branch {
                cond,
                then_to,
                else_to,
            } => Terminator::Branch {
                cond: op(cond),
                then_to: call(then_to),
                else_to: call(else_to),
            },
            Terminator::Unreachable => Terminator::Unreachable,
            Terminator::Handle { leave, catch, to } => Terminator::Handle {
                leave: *leave,
                catch: catch.as_ref().map(call),
                to: call(to),
            },
        }
    }

    /// Every operand read by the terminator (condition, return value, block arguments).
    pub fn operands(&self) -> Vec<&Operand> {
        match self {
            Terminator::Return(x) => vec![x],
            Terminator::Unreachable => vec![],
            Terminator::Jump(c) => c.args.iter().collect(),
            Terminator::Handle { catch, to, .. } => to
                .args
                .iter()
                .chain(catch.iter().flat_map(|c| &c.args))
                .collect(),
            Terminator::Branch {
                cond,
                then_to,
                else_to,
            } => std::iter::once(cond)
                .chain(&then_to.args)
                .chain(&else_to.args)
                .collect(),
        }
    }
}

/// A basic block.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct BlockData {
    /// Parameters: the φ nodes of this block (the arguments, for the entry block).
    pub params: Vec<Value>,
    /// Statements in execution order.
    pub stmts: Vec<Value>,
    pub term: Terminator,
    /// Span of the terminator (the condition of a branch, the `return` statement).
    pub term_span: Span,
}

/// An IR function: one method body, untyped (after lowering) or typed (one specialisation).
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Function {
    /// Display name (`pow`, `(::Dense)`, `#3`).
    pub name: Name,
    /// Argument names as written in the source (`#self#` for a callee argument).
    pub arg_names: Vec<Name>,
    /// For typed functions: the specialisation this body is.
    #[serde(with = "crate::untyped::no_instance")]
    pub instance: Option<Arc<Instance>>,
    /// Inferred return type ([`Type::Any`] before inference).
    #[serde(with = "crate::untyped::any")]
    pub ret: Type,
    pub blocks: Vec<BlockData>,
    pub values: Vec<ValueData>,
    /// Span of the whole definition.
    pub span: Span,
}

impl Function {
    /// An empty function with an entry block that returns `nothing`.
    pub fn new(name: impl Into<Name>, span: Span) -> Function {
        let mut f = Function {
            name: name.into(),
            arg_names: Vec::new(),
            instance: None,
            ret: Type::Any,
            blocks: Vec::new(),
            values: Vec::new(),
            span,
        };
        f.add_block();
        f
    }

    /// The function's arguments: the entry block's parameters (none for a method without a
    /// body, `function f end`).
    pub fn args(&self) -> &[Value] {
        self.blocks.first().map_or(&[], |b| &b.params)
    }

    /// The definition of `v`.
    pub fn value(&self, v: Value) -> &ValueData {
        &self.values[v.index()]
    }

    /// The type of `v`.
    pub fn ty(&self, v: Value) -> &Type {
        &self.values[v.index()].ty
    }

    /// The type of an operand.
    pub fn operand_ty(&self, op: &Operand) -> Type {
        match op {
            Operand::Value(v) => self.ty(*v).clone(),
            Operand::Const(c) => c.ty(),
        }
    }

    /// The statement defining `v`, if it is defined by one.
    pub fn stmt(&self, v: Value) -> Option<&Stmt> {
        match &self.values[v.index()].kind {
            ValueKind::Stmt(s) => Some(s),
            ValueKind::Param { .. } => None,
        }
    }

    /// The block data.
    pub fn block(&self, b: Block) -> &BlockData {
        &self.blocks[b.index()]
    }

    /// Mutable block data.
    pub fn block_mut(&mut self, b: Block) -> &mut BlockData {
        &mut self.blocks[b.index()]
    }

    /// All block ids in storage order.
    pub fn block_ids(&self) -> impl Iterator<Item = Block> + '_ {
        (0..self.blocks.len() as u32).map(Block)
    }

    /// Append a new empty block (terminated by `Unreachable` until set).
    pub fn add_block(&mut self) -> Block {
        let b = Block(self.blocks.len() as u32);
        self.blocks.push(BlockData {
            params: Vec::new(),
            stmts: Vec::new(),
            term: Terminator::Unreachable,
            term_span: Span::default(),
        });
        b
    }

    /// Append a parameter (a φ node, or an argument for the entry block) to `block`.
    pub fn add_param(&mut self, block: Block, ty: Type, span: Span, name: Option<Name>) -> Value {
        let index = self.blocks[block.index()].params.len() as u32;
        let v = self.push_value(ValueData {
            kind: ValueKind::Param { block, index },
            ty,
            span,
            name,
        });
        self.blocks[block.index()].params.push(v);
        v
    }

    /// Append a statement at the end of `block` and return its value.
    pub fn push_stmt(&mut self, block: Block, stmt: Stmt, ty: Type, span: Span) -> Value {
        let v = self.push_value(ValueData {
            kind: ValueKind::Stmt(stmt),
            ty,
            span,
            name: None,
        });
        self.blocks[block.index()].stmts.push(v);
        v
    }

    /// Set how `block` ends.
    pub fn set_term(&mut self, block: Block, term: Terminator, span: Span) {
        let b = &mut self.blocks[block.index()];
        b.term = term;
        b.term_span = span;
    }

    /// Record the source variable name of a value (first name wins).
    pub fn name_value(&mut self, v: Value, name: Name) {
        let d = &mut self.values[v.index()];
        if d.name.is_none() {
            d.name = Some(name);
        }
    }

    fn push_value(&mut self, data: ValueData) -> Value {
        let v = Value(self.values.len() as u32);
        self.values.push(data);
        v
    }

    /// Predecessors of every block ([`cfg::predecessors`](crate::cfg::predecessors)).
    pub fn predecessors(&self) -> Vec<Vec<Block>> {
        crate::cfg::predecessors(self)
    }

    /// Blocks reachable from the entry, in reverse post-order
    /// ([`cfg::reverse_postorder`](crate::cfg::reverse_postorder)).
    pub fn reverse_postorder(&self) -> Vec<Block> {
        crate::cfg::reverse_postorder(self)
    }
}
