//! Sites: what the runtime needs to know about the statement that called it. Compiled code
//! passes a pointer to its site; the session keeps every site alive as long as the code.

use std::sync::Arc;

use zy_ir::{Const, Prim, Span, Type};

use crate::layout::Layout;

/// One statement (or function entry, or back edge) that may call the runtime.
#[derive(Debug)]
pub struct Site {
    /// The statement's source location, reported with any error raised here.
    pub span: Span,
    /// What the runtime does for this site.
    pub kind: SiteKind,
}

/// The purpose of a [`Site`].
#[derive(Debug)]
pub enum SiteKind {
    /// A location only (interrupt polls, stack overflow checks).
    Plain,
    /// An error with a message known at compile time.
    Fail(String),
    /// A primitive evaluated by the interpreter's semantics.
    Fallback(Fallback),
    /// A push on an AD stack of entries of this many bytes (its growth checks the memory
    /// limit and reports the loop).
    Push(u32),
    /// A string constant used as a value (`MyError("neg")`).
    Str(String),
}

/// A primitive call that the runtime evaluates on interpreter values.
#[derive(Debug)]
pub struct Fallback {
    /// The primitive.
    pub prim: Prim,
    /// Its operands.
    pub args: Vec<FallbackArg>,
    /// The statement's type.
    pub ret: Type,
    /// How the operands and the result are laid out.
    pub layout: Arc<Layout>,
    /// Reached only when an inline check fails: to raise the interpreter's error, or for a
    /// case the inline code does not cover (a broadcast stretching an extent of 1).
    pub after_failed_check: bool,
}

/// One operand of a [`Fallback`].
#[derive(Debug)]
pub enum FallbackArg {
    /// A constant operand.
    Const(Const),
    /// A value of type `ty` whose slots start at word `offset` of the buffer.
    Slots {
        /// The operand's type.
        ty: Type,
        /// First word in the buffer.
        offset: usize,
    },
}

impl Site {
    /// A plain site.
    pub fn plain(span: Span) -> Site {
        Site {
            span,
            kind: SiteKind::Plain,
        }
    }

    /// The message of a [`SiteKind::Fail`] site.
    pub fn message(&self) -> Option<&str> {
        match &self.kind {
            SiteKind::Fail(m) => Some(m),
            _ => None,
        }
    }

    /// The string constant this site stands for.
    pub fn string(&self) -> Option<&str> {
        match &self.kind {
            SiteKind::Str(s) => Some(s),
            _ => None,
        }
    }
}
