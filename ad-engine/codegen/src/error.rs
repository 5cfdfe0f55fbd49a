//! Why a function could not be compiled. The caller falls back to the interpreter.

use std::fmt;

/// A compilation failure: a construct the JIT does not handle, or an internal Cranelift error.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum JitError {
    /// The IR uses something the JIT does not compile (named in the message).
    Unsupported(String),
    /// The IR holds values the interpreter runs by design (strings, symbols known only at run
    /// time): no numerical code to compile there.
    Interpreted(String),
    /// The IR is not well-formed typed IR (a missing instance, an operand of the wrong shape).
    InvalidIr(String),
    /// Cranelift rejected the generated code.
    Backend(String),
}

impl JitError {
    /// An unsupported construct.
    pub fn unsupported(what: impl Into<String>) -> JitError {
        JitError::Unsupported(what.into())
    }

    /// Values left to the interpreter by design.
    pub fn interpreted(what: impl Into<String>) -> JitError {
        JitError::Interpreted(what.into())
    }

    /// Malformed input IR.
    pub fn invalid(what: impl Into<String>) -> JitError {
        JitError::InvalidIr(what.into())
    }

    /// A Cranelift error.
    pub fn backend(err: impl fmt::Display) -> JitError {
        JitError::Backend(err.to_string())
    }
}

impl fmt::Display for JitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JitError::Unsupported(what) | JitError::Interpreted(what) => {
                write!(f, "JIT unsupported: {what}")
            }
            JitError::InvalidIr(what) => write!(f, "JIT: invalid IR: {what}"),
            JitError::Backend(what) => write!(f, "JIT backend error: {what}"),
        }
    }
}

impl std::error::Error for JitError {}
