//! Operations: what a statement does. Untyped IR calls functions by name; inference resolves each
//! call to a [`Prim`] (a builtin with a hand-written rule) or an [`Instance`] of a user method.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use crate::prim::Prim;
use crate::types::{Name, StructType, Type};

/// The operation of a statement. Its operands are the statement's `args`.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum Op {
    /// Untyped: call the generic function with this name (user-defined or builtin, including
    /// operators: `+`, `getindex`, `tuple`, `Ref`, `broadcast`, ...).
    Call(Name),
    /// Untyped: call `args[0]` (a closure, a callable struct, a function value) with the rest.
    CallValue,
    /// Untyped: build the closure environment named here from the captured values in `args`.
    Closure(Name),
    /// Load a top-level binding (`const N = 3`, `sq = x -> x^2`).
    Global(Name),
    /// Typed: a builtin operation; semantics depend on the operand types.
    #[serde(skip)]
    Prim(Prim),
    /// Typed: construct a struct or closure environment of this type from its field values.
    #[serde(skip)]
    New(StructRef),
    /// Typed: call a specialisation of a user method. For a callable struct or closure, `args[0]`
    /// is the callee value (the hidden zeroth argument).
    #[serde(skip)]
    Invoke(Arc<Instance>),
}

/// `Instance::method` of the synthesised bodies of `map`, `sum` and `broadcast` over a user
/// function (their `Instance::name` is the builtin's name).
pub const SYNTH_METHOD: u32 = u32::MAX;

/// `Instance::method` of a top-level binding's thunk (`Instance::name` is the binding's name,
/// with no arguments).
pub const GLOBAL_METHOD: u32 = u32::MAX - 1;

/// One specialisation of a user method on concrete argument types: the unit of inference,
/// differentiation and compilation.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Instance {
    /// The generic function's name (`f`; `(::Dense)` for a callable struct's call method).
    pub name: Name,
    /// Which method of the generic function (index into its method list).
    pub method: u32,
    /// Concrete argument types, including the callee's for callable structs and closures.
    pub args: Arc<[Type]>,
}

impl fmt::Display for Instance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.name)?;
        for (i, t) in self.args.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "::")?;
            fmt::Display::fmt(t, f)?;
        }
        write!(f, ")")
    }
}

impl fmt::Debug for Instance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A resolved struct type, as carried by [`Op::New`].
pub type StructRef = Arc<StructType>;

/// The hash of a string's UTF-8 bytes (FNV-1a) under which the prelude's `Dict` keeps its
/// string and symbol keys: `string_fn(:hash, s)` when the program runs, a constant where
/// inference knows the string.
pub fn string_hash(text: &str) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        h = (h ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    h as i64
}
