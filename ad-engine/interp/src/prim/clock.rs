//! Julia's clocks: `time()`, the seconds since the Unix epoch, and `time_ns()`, nanoseconds of
//! a monotonic clock from an arbitrary start (here the first reading in the process); the
//! local time zone's offset, by which `Dates.now()` reads the local time.

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

/// The seconds the local time zone (`TZ`, else the system's) is ahead of UTC at `t` seconds
/// after the epoch, as C's `localtime_r` gives it to Julia's `now()`; `None` where it cannot
/// say.
pub(super) fn utc_offset(t: i64) -> Option<i64> {
    let t = libc::time_t::try_from(t).ok()?;
    // SAFETY: `localtime_r` writes only into `tm`, a plain C struct for which all-zero bytes
    // are a valid value, and reads `t`; both live across the call.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&t, &mut tm).is_null() {
            return None;
        }
        Some(i64::from(tm.tm_gmtoff))
    }
}
