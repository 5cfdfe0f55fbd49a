//! zy's intermediate representation: typed SSA functions in the notation of the Zygote paper.
//!
//! This crate knows nothing of source text: values carry opaque [`Span`]s that the analysis layer
//! maps back to files. Lowering produces an untyped [`Program`]; inference turns each method into
//! typed [`Function`]s, one per [`Instance`]; the AD transform and the JIT consume those.

pub mod builder;
pub mod func;
pub mod ops;
pub mod print;
pub mod program;
pub mod types;
pub mod verify;

pub use builder::{SsaBuilder, Var, VarInit};
pub use func::{
    Block, BlockCall, BlockData, Const, Function, Operand, Span, Stmt, Terminator, Value,
    ValueData, ValueKind,
};
pub use ops::{Instance, Op, Prim, StructRef};
pub use print::{julia_float, print_function, write_julia_float};
pub use program::{
    callable_name, GenericFunction, Global, Method, Program, StructDef, TypeExpr, TypedProgram,
};
pub use types::{packed_size, tangent_type, Name, StructKind, StructType, Type};
pub use verify::verify;
