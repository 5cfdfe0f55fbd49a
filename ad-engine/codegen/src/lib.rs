//! zy-codegen: a Cranelift JIT for typed IR (primal, forward and pullback functions alike).
//!
//! [`JitSession::compile`] turns an instance of a [`zy_ir::TypedProgram`] into a
//! [`CompiledFn`], whose [`CompiledFn::call`] runs it on interpreter values with the
//! interpreter's semantics (results and errors, bit for bit). Numbers live unboxed in registers;
//! tuples, named tuples and immutable structs are scalar-replaced; arrays, `Ref`s, mutable
//! structs and AD stacks are pointers into a per-call arena. What machine code cannot do inline
//! runs in the [`runtime`]. Constructs the JIT does not handle give a [`JitError`] so the caller
//! can fall back to the interpreter. [`CompiledFn::bind`] converts arguments once for
//! repeated runs ([`BoundCall`]), the native entry point benchmarks time. [`clif_text`] shows the generated Cranelift IR.

mod bound;
mod convert;
mod deep;
mod error;
mod fallback;
pub mod layout;
mod peephole;
pub mod runtime;
mod session;
mod translate;

pub use bound::BoundCall;
pub use error::JitError;
pub use session::{clif_text, decide_perf_map, CompiledFn, JitSession};
