//! Timing: warm up, size batches to about 10 ms, take the median over at least 20 batches.
//!
//! Time is the process's CPU time, not the wall clock: on a shared machine (2 cores, other
//! builds running) the wall clock also counts the time the process waits to be scheduled,
//! which varies from one batch to the next and would make ratios of two timings meaningless.

use std::hint::black_box;
use std::time::Duration;

/// How long one batch should take.
const BATCH: Duration = Duration::from_millis(10);
/// How many batches the median is taken over.
const BATCHES: usize = 21;
/// How long to run before measuring (caches, branch predictors, lazily mapped pages).
const WARM_UP: Duration = Duration::from_millis(50);

/// The median time of one call of `f`, in nanoseconds. `f` should pass its inputs through
/// [`black_box`]; its result is passed through it here.
pub fn median_ns<R>(mut f: impl FnMut() -> R) -> f64 {
    medians_ns(&mut [&mut || {
        black_box(f());
    }])[0]
}

/// The median time of one call of each of `fs`, in nanoseconds, their batches interleaved
/// (one batch of each in turn) so that every function meets the same state of the machine
/// (other processes, the allocator's free lists): their ratios are then fair.
pub fn medians_ns(fs: &mut [&mut dyn FnMut()]) -> Vec<f64> {
    let batches: Vec<u64> = fs
        .iter_mut()
        .map(|f| {
            let start = CpuTime::now();
            let (mut calls, mut chunk) = (0u64, 1u64);
            // The clock is read between chunks of calls that grow, so that reading it (a
            // system call) does not dominate the warm-up of a function of a few nanoseconds.
            while calls < 3 || start.elapsed() < WARM_UP {
                for _ in 0..chunk {
                    f();
                }
                calls += chunk;
                chunk = (chunk * 2).min(1024);
            }
            let per_call = start.elapsed().as_secs_f64().max(1e-9) / calls as f64;
            ((BATCH.as_secs_f64() / per_call).ceil() as u64).max(1)
        })
        .collect();
    let mut samples = vec![Vec::with_capacity(BATCHES); fs.len()];
    for _ in 0..BATCHES {
        for ((f, &batch), out) in fs.iter_mut().zip(&batches).zip(&mut samples) {
            let t = CpuTime::now();
            for _ in 0..batch {
                f();
            }
            out.push(t.elapsed().as_nanos() as f64 / batch as f64);
        }
    }
    samples.iter_mut().map(|s| median(s)).collect()
}

/// A point in the CPU time of this process (all its threads).
#[derive(Clone, Copy, Debug)]
pub struct CpuTime(Duration);

impl CpuTime {
    /// The CPU time used by the process so far.
    pub fn now() -> CpuTime {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant Linux and
        // macOS define. On failure `ts` stays zero and timings read zero, never garbage.
        unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
        CpuTime(Duration::new(
            ts.tv_sec.max(0) as u64,
            ts.tv_nsec.clamp(0, 999_999_999) as u32,
        ))
    }

    /// The CPU time used since `self`.
    pub fn elapsed(self) -> Duration {
        CpuTime::now().0.saturating_sub(self.0)
    }
}

/// The median of `xs` (the mean of the middle two for an even count); NaN when empty.
pub fn median(xs: &mut [f64]) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&mut []).is_nan());
    }

    #[test]
    fn every_call_lasts_at_least_what_it_waits() {
        let mut calls = 0;
        let ns = median_ns(|| {
            calls += 1;
            let t = CpuTime::now();
            while t.elapsed() < Duration::from_micros(500) {}
        });
        // A call cannot take less than its busy wait (an upper bound would depend on the load).
        assert!(ns >= 5e5, "{ns}");
        // Three warm-up calls at least, then one call per batch at least.
        assert!(calls >= 3 + BATCHES, "{calls}");
    }
}
