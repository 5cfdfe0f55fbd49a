//! The patterns of a program's method signatures, built once per program: dispatch matches a
//! call's argument types against every method of the callee, and building a method's patterns
//! walks the program's type hierarchy (`Real` takes the program's own `<: Real` structs), which
//! at every call site made a long function's inference quadratic. And the methods dispatch
//! chose, by callee and argument types: inference passes over a body until its types settle,
//! asking again at every pass for each call what the first pass was told.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use zy_ir::{Name, Type};

use crate::dispatch::Choice;
use crate::error::Fail;
use crate::pattern::Pat;

/// A dispatch asked of a table: the callee, whether its struct's default constructor competes,
/// and the argument types.
type Selection = (Name, bool, Vec<Type>);

/// A memo of the patterns of one program's method signatures, by generic function, method
/// index and number of arguments (a varargs method's differ by count). Use a table with one
/// program only, or with programs whose structs and signatures are equal (neither the patterns
/// nor the choices depend on bodies); a clone starts empty.
#[derive(Default)]
pub struct Signatures {
    methods: Mutex<HashMap<(Name, u32, usize), Arc<[Pat]>>>,
    choices: Mutex<HashMap<Selection, Result<Choice, Fail>>>,
}

impl Signatures {
    /// The patterns of method `index` of `function` for `n` arguments: the memoised ones, or
    /// those `build` makes (memoised when it succeeds).
    pub(crate) fn patterns<E>(
        &self,
        function: &Name,
        index: u32,
        n: usize,
        build: impl FnOnce() -> Result<Vec<Pat>, E>,
    ) -> Result<Arc<[Pat]>, E> {
        let key = (function.clone(), index, n);
        if let Some(found) = self.lock().get(&key) {
            return Ok(found.clone());
        }
        let built: Arc<[Pat]> = build()?.into();
        self.lock().insert(key, built.clone());
        Ok(built)
    }

    /// The method dispatch chose for `function` (`constructor`: beside its struct's default
    /// constructor) on arguments of the types `args`: the memoised choice, or the one `choose`
    /// makes (memoised, failures too: they depend on nothing else either).
    pub(crate) fn choice(
        &self,
        function: &Name,
        constructor: bool,
        args: &[Type],
        choose: impl FnOnce() -> Result<Choice, Fail>,
    ) -> Result<Choice, Fail> {
        let key = (function.clone(), constructor, args.to_vec());
        if let Some(found) = relock(&self.choices).get(&key) {
            return found.clone();
        }
        let chosen = choose();
        relock(&self.choices).insert(key, chosen.clone());
        chosen
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(Name, u32, usize), Arc<[Pat]>>> {
        relock(&self.methods)
    }
}

/// The memo behind `m`: a panic while its lock was held left it whole (entries are inserted at
/// once).
fn relock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Clone for Signatures {
    fn clone(&self) -> Signatures {
        Signatures::default()
    }
}

impl std::fmt::Debug for Signatures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let choices = relock(&self.choices).len();
        write!(
            f,
            "Signatures({} memoised, {choices} choices)",
            self.lock().len()
        )
    }
}
