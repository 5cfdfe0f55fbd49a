//! zy's reference interpreter: runs typed IR (`zy_ir::TypedProgram`) with Julia's semantics, so
//! the AD (by finite differences) and the Cranelift JIT can be checked against it.
//!
//! - [`run`] runs one specialisation on argument [`Value`]s under [`Limits`] (call depth,
//!   deadline, cancellation) and returns the result or a [`RuntimeError`] carrying Julia's
//!   message and the failing statement's span.
//! - [`eval_prim`] is the single place where the meaning of each [`zy_ir::Prim`] lives.
//! - [`Value::deep_copy`] and [`Value::float_leaves`] / [`Value::with_float_leaves`] serve
//!   finite differences and arguments that a call mutates.
//! - [`run_watched`] runs with a [`Watch`] told of every primitive statement (the gradient
//!   debugger's view of a run).
//! - [`fd`] estimates derivatives by finite differences and compares them with gradients: the
//!   one implementation the rule tests, gradchecks, the rrule lint and the fuzz target share.
//! - [`show`] prints a value as Julia's `show` does; [`to_json`] encodes it as SPEC's JSON.

mod copy;
mod error_kind;
mod exception;
pub mod fd;
mod interrupt;
mod json;
mod machine;
mod prim;
mod show;
mod show_library;
mod show_views;
pub mod substring;
mod value;
mod watch;
pub mod wide;

pub use error_kind::ErrorKind;
pub use exception::Caught;
pub use json::to_json;
pub use machine::{
    bytes_text, run, run_function, tape_limit_message, Limits, RuntimeError, MAX_DEPTH, MAX_MEMORY,
};
pub use prim::factor;
pub use prim::{
    eval_prim, extremum_f64, extremum_index, gemm_f64, gemm_f64_add, gemm_f64_op, is_blocked,
    is_tangent_of, julia_eq, new_struct, sum_block, sum_block_len, sum_blocks, sum_f64,
    GEMM_DEPTH_BLOCK, LANES,
};
pub use show::{show, summary, type_string};
pub use value::{
    Array, ArrayData, ArrayRef, Dims, ElemType, Objects, Pullback, Shape, Value, MAX_DIMS,
    UNDEF_SLOT,
};
pub use watch::{run_watched, Step, Watch};
