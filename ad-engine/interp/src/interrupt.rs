//! The limits of the run in progress on this thread, for the one primitive whose single call
//! can outlast a deadline (a large matrix product), so that it stops too.

use std::cell::RefCell;

use crate::machine::Limits;

thread_local! {
    static CURRENT: RefCell<Option<Limits>> = const { RefCell::new(None) };
}

/// Restores the enclosing run's limits when a run ends.
pub struct Guard(Option<Limits>);

/// Make `limits` the current ones until the guard is dropped.
pub fn enter(limits: &Limits) -> Guard {
    Guard(CURRENT.with(|c| c.replace(Some(limits.clone()))))
}

impl Drop for Guard {
    fn drop(&mut self) {
        let prev = self.0.take();
        CURRENT.with(|c| *c.borrow_mut() = prev);
    }
}

/// The `InterruptException` message if the current run must stop.
pub fn check() -> Result<(), String> {
    CURRENT.with(|c| match &*c.borrow() {
        Some(limits) => limits.interrupted().map_or(Ok(()), Err),
        None => Ok(()),
    })
}
