//! The patterns of a program's method signatures, built once per program: dispatch matches a
//! call's argument types against every method of the callee, and building a method's patterns
//! walks the program's type hierarchy (`Real` takes the program's own `<: Real` structs), which
//! at every call site made a long function's inference quadratic.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use zy_ir::Name;

use crate::pattern::Pat;

/// A memo of the patterns of one program's method signatures, by generic function, method
/// index and number of arguments (a varargs method's differ by count). Use a table with one
/// program only, or with programs whose structs and signatures are equal (the patterns do not
/// depend on bodies); a clone starts empty.
#[derive(Default)]
pub struct Signatures {
    methods: Mutex<HashMap<(Name, u32, usize), Arc<[Pat]>>>,
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

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(Name, u32, usize), Arc<[Pat]>>> {
        // A panic while the lock was held left the memo whole (entries are inserted at once).
        self.methods.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Clone for Signatures {
    fn clone(&self) -> Signatures {
        Signatures::default()
    }
}

impl std::fmt::Debug for Signatures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Signatures({} memoised)", self.lock().len())
    }
}
