//! The database: salsa storage, and for tests a log of the queries that executed, recorded from
//! salsa's `WillExecute` events so they can assert what an edit re-ran.

use std::sync::{Arc, Mutex, PoisonError};

use salsa::plumbing::{SalsaStructInDb, ZalsaDatabase};
use salsa::{DatabaseKeyIndex, EventKind};

use crate::call::CallFunctions;
use crate::input::{CodeGoal, Prelude, SourceFile, Unreadable, Workspace};
use crate::prelude::{prelude_path, PRELUDE};

/// The log of executed queries: `None` until [`RootDatabase::enable_query_log`].
type QueryLog = Arc<Mutex<Option<Vec<DatabaseKeyIndex>>>>;

/// The salsa database behind every analysis. `Clone` makes a snapshot for a reader thread; a
/// setter on the original cancels the snapshots' running queries.
#[salsa::db]
#[derive(Clone)]
pub struct RootDatabase {
    storage: salsa::Storage<Self>,
    /// Where executed queries are logged, in a database made by
    /// [`RootDatabase::with_query_log`]; a database without it has no event callback, so salsa
    /// makes no event at all (a first gradient raises ~20,000).
    executed: Option<QueryLog>,
}

impl Default for RootDatabase {
    fn default() -> Self {
        RootDatabase::made(None)
    }
}

#[salsa::db]
impl salsa::Database for RootDatabase {}

impl RootDatabase {
    /// A database whose executed queries can be recorded ([`RootDatabase::enable_query_log`]),
    /// for tests: every query then raises an event.
    pub fn with_query_log() -> Self {
        RootDatabase::made(Some(QueryLog::default()))
    }

    /// A fresh database of the same kind as this one: with a query log (off) if this has one.
    pub fn fresh(&self) -> Self {
        RootDatabase::made(self.executed.as_ref().map(|_| QueryLog::default()))
    }

    /// A database holding the workspace's inputs (no file yet, the bundled prelude), with an
    /// event callback only if it logs queries.
    fn made(executed: Option<QueryLog>) -> Self {
        let callback = executed.clone().map(|sink| {
            Box::new(move |event: salsa::Event| {
                if let EventKind::WillExecute { database_key } = event.kind {
                    let mut log = sink.lock().unwrap_or_else(PoisonError::into_inner);
                    if let Some(log) = log.as_mut() {
                        log.push(database_key);
                    }
                }
            }) as Box<dyn Fn(salsa::Event) + Send + Sync>
        });
        let db = RootDatabase {
            storage: salsa::Storage::new(callback),
            executed,
        };
        Workspace::new(&db, Vec::new());
        let prelude = PRELUDE
            .iter()
            .map(|f| SourceFile::new(&db, prelude_path(f), f.text.to_string()))
            .collect();
        Prelude::new(&db, prelude);
        Unreadable::new(&db, Default::default());
        CodeGoal::new(&db, false);
        db
    }

    /// Start recording which queries execute (off by default: the log would grow forever).
    ///
    /// # Panics
    ///
    /// If the database was not made by [`RootDatabase::with_query_log`]: it would record
    /// nothing, and a test of what did not re-run would pass whatever ran.
    pub fn enable_query_log(&self) {
        let Some(executed) = &self.executed else {
            panic!("a query log needs a database made by RootDatabase::with_query_log");
        };
        let mut log = executed.lock().unwrap_or_else(PoisonError::into_inner);
        log.get_or_insert_with(Vec::new);
    }

    /// The queries that executed since the last call, as `query(key)` strings with the key
    /// described in source terms: `ssa(pow)`, `typed(pow(::Float64, ::Int64))`, `parse(a.jl)`.
    pub fn take_query_log(&self) -> Vec<String> {
        let keys = match &self.executed {
            Some(executed) => {
                let mut log = executed.lock().unwrap_or_else(PoisonError::into_inner);
                log.as_mut().map(std::mem::take).unwrap_or_default()
            }
            None => Vec::new(),
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
        CallFunctions::entries(self.zalsa()).count()
    }
}
