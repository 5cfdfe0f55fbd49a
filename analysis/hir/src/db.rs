//! The database: salsa storage plus a log of the queries that executed, recorded from salsa's
//! `WillExecute` events so tests can assert what an edit re-ran, and a count of the values of
//! each interned struct, from its `DidInternValue` events.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use salsa::{Database, DatabaseKeyIndex, EventKind, IngredientIndex};

use crate::input::{Prelude, SourceFile, Unreadable, Workspace};
use crate::prelude::{prelude_path, PRELUDE};

/// The salsa database behind every analysis. `Clone` makes a snapshot for a reader thread; a
/// setter on the original cancels the snapshots' running queries.
#[salsa::db]
#[derive(Clone)]
pub struct RootDatabase {
    storage: salsa::Storage<Self>,
    executed: Arc<Mutex<Option<Vec<DatabaseKeyIndex>>>>,
    /// How many values each interned struct holds: every one is `revisions = usize::MAX`, so
    /// none is ever collected.
    interned: Arc<Mutex<HashMap<IngredientIndex, usize>>>,
}

impl Default for RootDatabase {
    fn default() -> Self {
        let executed: Arc<Mutex<Option<Vec<DatabaseKeyIndex>>>> = Arc::default();
        let interned: Arc<Mutex<HashMap<IngredientIndex, usize>>> = Arc::default();
        let (sink, counts) = (executed.clone(), interned.clone());
        let storage = salsa::Storage::new(Some(Box::new(move |event: salsa::Event| {
            match event.kind {
                EventKind::WillExecute { database_key } => {
                    let mut log = sink.lock().unwrap_or_else(PoisonError::into_inner);
                    if let Some(log) = log.as_mut() {
                        log.push(database_key);
                    }
                }
                EventKind::DidInternValue { key, .. } => {
                    let mut counts = counts.lock().unwrap_or_else(PoisonError::into_inner);
                    *counts.entry(key.ingredient_index()).or_default() += 1;
                }
                _ => {}
            }
        })));
        let db = RootDatabase {
            storage,
            executed,
            interned,
        };
        Workspace::new(&db, Vec::new());
        let prelude = PRELUDE
            .iter()
            .map(|f| SourceFile::new(&db, prelude_path(f), f.text.to_string()))
            .collect();
        Prelude::new(&db, prelude);
        Unreadable::new(&db, Default::default());
        db
    }
}

#[salsa::db]
impl salsa::Database for RootDatabase {}

impl RootDatabase {
    /// Start recording which queries execute (off by default: the log would grow forever).
    pub fn enable_query_log(&self) {
        let mut log = self.executed.lock().unwrap_or_else(PoisonError::into_inner);
        log.get_or_insert_with(Vec::new);
    }

    /// The queries that executed since the last call, as `query(key)` strings with the key
    /// described in source terms: `ssa(pow)`, `typed(pow(::Float64, ::Int64))`, `parse(a.jl)`.
    pub fn take_query_log(&self) -> Vec<String> {
        let keys = {
            let mut log = self.executed.lock().unwrap_or_else(PoisonError::into_inner);
            log.as_mut().map(std::mem::take).unwrap_or_default()
        };
        keys.into_iter()
            .map(|k| crate::describe::describe_query(self, k))
            .collect()
    }

    /// How many call strings with functions of their own (a closure, a comprehension, a test
    /// in a loop) the database has typed: each is a program of its own
    /// ([`crate::CallFunctions`]), with the instances, gradients and machine code memoised
    /// under it. Salsa never frees them; the host bounds them.
    pub fn call_programs(&self) -> usize {
        let counts = self.interned.lock().unwrap_or_else(PoisonError::into_inner);
        counts
            .iter()
            .filter(|(&i, _)| self.ingredient_debug_name(i) == "CallFunctions")
            .map(|(_, &n)| n)
            .sum()
    }
}
