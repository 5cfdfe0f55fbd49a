//! Where the AD finds a program's in-source rules (`rrule`, `frule`): in the untyped program
//! the typed one was inferred from, each rule inferred where the AD asks for it, or through a
//! host's memo of those inferences (the analysis layer infers each rule once per program and
//! instance, for all the gradients that reach it).

use std::sync::Arc;

use zy_ir::{Instance, Program};

use crate::frule::Frule;
use crate::rrule::Rrule;
use crate::AdError;

/// The in-source rules of a program.
pub trait RuleSource {
    /// The untyped program whose `rrule` and `frule` methods are the rules (its signatures
    /// say which functions have one).
    fn program(&self) -> &Program;

    /// The rrule overriding the adjoint of `inst`, if one applies ([`crate::rrule::find`]).
    fn rrule(&self, inst: &Instance) -> Result<Option<Arc<Rrule>>, AdError> {
        crate::rrule::find(self.program(), inst).map(|r| r.map(Arc::new))
    }

    /// The frule overriding forward mode for `inst`, if one applies ([`crate::frule::find`]).
    fn frule(&self, inst: &Instance) -> Result<Option<Arc<Frule>>, AdError> {
        crate::frule::find(self.program(), inst).map(|r| r.map(Arc::new))
    }
}

/// A program's rules, inferred each time the AD asks.
impl RuleSource for Program {
    fn program(&self) -> &Program {
        self
    }
}
