//! zy's intermediate representation: typed SSA functions in the notation of the Zygote paper.
//!
//! This crate knows nothing of source text: values carry opaque [`Span`]s that the analysis layer
//! maps back to files. Lowering produces an untyped [`Program`]; inference turns each method into
//! typed [`Function`]s, one per [`Instance`]; the AD transform and the JIT consume those.
//!
//! - [`func`], [`ops`], [`types`], [`program`]: the entities; [`builder`]: SSA construction
//!   from variables. The untyped entities are serde types (typed parts do not serialize).
//! - [`prim`](mod@prim): the primitive table, one row per builtin operation with the attributes
//!   every other crate asks (arity, elementwise math, effects, differentiability, JIT lowering).
//! - [`print`](mod@print) writes a function as text ([`print_function`], and [`print_struct`] for the
//!   struct declarations typed text needs); [`parse`] reads that text back at every stage
//!   ([`parse_module`]), so print, read, print is the identity. The IR filetests of
//!   `fixtures/ir/` are written in it.
//! - [`cfg`](mod@cfg): predecessors, depth-first orders, reachability, loops and dominators, for every
//!   pass that walks the control-flow graph.
//! - [`verify`](mod@verify): structure, dominance and operand types. Every pass calls [`debug_verify`] on
//!   what it produces: in debug builds a malformed function is an internal error at that pass.

pub mod builder;
pub mod cfg;
pub mod func;
pub mod int_kind;
pub mod ops;
pub mod parse;
pub mod prim;
pub mod print;
pub mod program;
pub mod specfun;
pub mod types;
mod untyped;
pub mod verify;

pub use builder::{SsaBuilder, Var, VarInit};
pub use func::{
    Block, BlockCall, BlockData, Const, Function, Operand, Span, Stmt, Terminator, Value,
    ValueData, ValueKind,
};
pub use int_kind::{promote_ints, show_bits, show_int, IntKind};
pub use ops::{Instance, Op, Prim, StructRef, GLOBAL_METHOD, ISDEFINED_GLOBAL, SYNTH_METHOD};
pub use parse::{parse_function, parse_module, Module, ParseError};
pub use prim::{Arity, Diff, Domain, Effects, Jit, Kind, Math, PrimInfo, Throws};
pub use print::{
    julia_cartesian_names, julia_float, julia_float32, print_float32, print_function, print_struct,
    print_structs, write_julia_float,
};
pub use program::{
    callable_name, GenericFunction, Global, Keywords, Method, Program, StructDef, TypeExpr,
    TypedProgram, NEW, SET_GLOBAL, TYPED, VARARG,
};
pub use types::{
    packed_size, tangent_type, Name, ParamValue, StructKind, StructType, Type, UnionType, MAX_DIMS,
};
pub use verify::{debug_verify, verify, violations, Location, Violation};
