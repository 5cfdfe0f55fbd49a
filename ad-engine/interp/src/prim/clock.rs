//! Julia's clocks: `time()`, the seconds since the Unix epoch, and `time_ns()`, nanoseconds of
//! a monotonic clock from an arbitrary start (here the first reading in the process).

use std::sync::OnceLock;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// `time()`: seconds since 1970-01-01 UTC, with the system clock's resolution.
pub(super) fn since_epoch() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// `time_ns()`: as a `UInt64`'s bits. It starts at one second, so differences of readings
/// are never negative and a reading is never zero.
pub(super) fn monotonic_ns() -> i64 {
    static START: OnceLock<Instant> = OnceLock::new();
    let start = *START.get_or_init(Instant::now);
    let ns = start.elapsed().as_nanos() + 1_000_000_000;
    i64::try_from(ns).unwrap_or(i64::MAX)
}
