//! The database: salsa storage plus a log of the queries that executed, recorded from salsa's
//! `WillExecute` events so tests can assert what an edit re-ran.

use std::sync::{Arc, Mutex, PoisonError};

use salsa::{DatabaseKeyIndex, EventKind};

use crate::input::{Prelude, SourceFile, Unreadable, Workspace};
use crate::prelude::{prelude_path, PRELUDE};

/// The salsa database behind every analysis. `Clone` makes a snapshot for a reader thread; a
/// setter on the original cancels the snapshots' running queries.
#[salsa::db]
#[derive(Clone)]
pub struct RootDatabase {
    storage: salsa::Storage<Self>,
    executed: Arc<Mutex<Option<Vec<DatabaseKeyIndex>>>>,
}

impl Default for RootDatabase {
    fn default() -> Self {
        let executed: Arc<Mutex<Option<Vec<DatabaseKeyIndex>>>> = Arc::default();
        let sink = executed.clone();
        let storage = salsa::Storage::new(Some(Box::new(move |event: salsa::Event| {
            if let EventKind::WillExecute { database_key } = event.kind {
                let mut log = sink.lock().unwrap_or_else(PoisonError::into_inner);
                if let Some(log) = log.as_mut() {
                    log.push(database_key);
                }
            }
        })));
        let db = RootDatabase { storage, executed };
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
}
