//! The runtime that compiled code calls for what machine code cannot do inline: allocation of
//! arrays, boxes and stacks in a per-call arena, errors with their source location, interrupt
//! polling, and the slow path that evaluates a primitive with the interpreter's own semantics.
//!
//! Every function here is `extern "C"` and receives the [`Ctx`] of the running call. Errors never
//! unwind through machine code: they are recorded in the context, which compiled code checks.

pub mod arena;
pub mod factor;
pub mod kernels;
pub mod math;
pub mod objects;
pub mod preserve;
pub mod site;
pub mod slices;

use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use zy_ir::Span;

pub use arena::{Arena, ArenaMark, ArrayObj, StackObj};
pub use site::{Site, SiteKind};

/// Byte offsets of the [`Ctx`] fields that compiled code reads and writes.
pub mod ctx_offset {
    /// Nonzero when an error is pending.
    pub const ERROR: i32 = 0;
    /// Back edges left before the next interrupt poll.
    pub const FUEL: i32 = 8;
    /// Frames on the call stack (the top-level call is frame 1).
    pub const DEPTH: i32 = 16;
    /// Depth at which a call is a `StackOverflowError`.
    pub const MAX_DEPTH: i32 = 24;
    /// Lowest native stack address compiled code may use (0: unchecked).
    pub const STACK_LIMIT: i32 = 32;
    /// Pointer to one word per global binding: its boxed value, or 0 before first use.
    pub const GLOBALS: i32 = 40;
}

/// Back edges between two polls of the deadline and the cancel flag.
pub const FUEL_PER_POLL: i64 = 1 << 14;

/// The state of one top-level call, passed to every compiled function as its first argument.
#[repr(C)]
pub struct Ctx {
    /// Nonzero when [`State::failure`] holds an error (compiled code returns early).
    pub error: u64,
    /// See [`ctx_offset::FUEL`].
    pub fuel: i64,
    /// See [`ctx_offset::DEPTH`].
    pub depth: i64,
    /// See [`ctx_offset::MAX_DEPTH`].
    pub max_depth: i64,
    /// See [`ctx_offset::STACK_LIMIT`].
    pub stack_limit: u64,
    /// See [`ctx_offset::GLOBALS`].
    pub globals: *mut u64,
    /// Everything compiled code does not touch directly.
    pub state: State,
}

/// The Rust-side part of a [`Ctx`].
pub struct State {
    /// Memory of every object allocated during the call.
    pub arena: Arena,
    /// The first runtime error raised.
    pub failure: Option<(Span, String)>,
    /// The exception a `throw(x)` or `rethrow(e)` raised (its value, type and first span), for
    /// the `catch` that takes the error it failed with, or the report if none does.
    pub thrown: Option<Rc<zy_interp::Caught>>,
    /// The exception the innermost `catch` took (what `the_exception()` reads).
    pub caught: Option<Rc<zy_interp::Caught>>,
    /// When the call must stop.
    pub deadline: Option<Instant>,
    /// Set by another thread to stop the call.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Storage behind [`Ctx::globals`].
    pub global_words: Vec<u64>,
    /// Bytes the call may allocate ([`zy_interp::Limits::max_memory`]).
    pub max_memory: usize,
    /// The span of the last interrupt poll or stack growth (a loop or a call), where an
    /// allocation past the limit is reported: allocating runtime calls do not know their
    /// statement.
    pub last_site: Span,
}

impl Ctx {
    /// A fresh context for one call under `limits`.
    pub fn new(limits: &zy_interp::Limits, n_globals: usize) -> Ctx {
        let mut ctx = Ctx {
            error: 0,
            fuel: FUEL_PER_POLL,
            depth: 1,
            max_depth: i64::try_from(limits.max_depth).unwrap_or(i64::MAX),
            stack_limit: 0,
            globals: std::ptr::null_mut(),
            state: State {
                arena: Arena::default(),
                failure: None,
                thrown: None,
                caught: None,
                deadline: limits.deadline,
                cancel: limits.cancel.clone(),
                global_words: vec![0; n_globals],
                max_memory: limits.max_memory,
                last_site: Span::default(),
            },
        };
        // The table's heap buffer stays put when the context moves.
        ctx.globals = ctx.state.global_words.as_mut_ptr();
        ctx
    }

    /// Make a used context fresh for another run: no error, full fuel, depth 1, no globals
    /// loaded (their boxes lived in the arena, which the caller resets).
    pub fn reset(&mut self) {
        self.error = 0;
        self.fuel = FUEL_PER_POLL;
        self.depth = 1;
        self.state.failure = None;
        self.state.last_site = Span::default();
        for w in &mut self.state.global_words {
            *w = 0;
        }
    }

    /// Record an error (the first one wins) and tell compiled code to return.
    pub fn fail(&mut self, span: Span, message: String) {
        if self.state.failure.is_none() {
            self.state.failure = Some((span, message));
        }
        self.error = 1;
    }

    /// Fail the call (compiled code checks right after allocating) once the arena exceeds
    /// [`State::max_memory`].
    pub fn check_memory(&mut self) {
        let limit = self.state.max_memory;
        if self.state.arena.bytes() > limit {
            let message = format!(
                "OutOfMemoryError: what the call allocated (arrays, boxes, tape) passed the limit of {} (max_memory)",
                zy_interp::bytes_text(limit as u64)
            );
            self.fail(self.state.last_site, message);
        }
    }

    /// Has the deadline passed or the cancel flag been set?
    fn interrupted(&self) -> Option<&'static str> {
        if let Some(flag) = &self.state.cancel {
            if flag.load(Ordering::Relaxed) {
                return Some(CANCELLED);
            }
        }
        match self.state.deadline {
            Some(d) if Instant::now() >= d => Some(TIME_LIMIT),
            _ => None,
        }
    }
}

/// The interpreter's message when the deadline passes.
pub const TIME_LIMIT: &str = "InterruptException: time limit exceeded";
/// The interpreter's message when the cancel flag is set.
pub const CANCELLED: &str = "InterruptException: cancelled";

/// The interpreter's message when the depth limit is reached.
pub const STACK_OVERFLOW: &str = "StackOverflowError";

/// Polls the deadline and cancel flag once the fuel ran out; returns 1 (with the error set)
/// when the call must stop, 0 otherwise.
///
/// # Safety
/// `ctx` and `site` must be the live context and a site of the running code.
pub unsafe extern "C" fn zy_rt_poll(ctx: *mut Ctx, site: *const Site) -> i64 {
    let (ctx, site) = unsafe { (&mut *ctx, &*site) };
    ctx.fuel = FUEL_PER_POLL;
    ctx.state.last_site = site.span;
    match ctx.interrupted() {
        Some(msg) => {
            ctx.fail(site.span, msg.to_string());
            1
        }
        None => 0,
    }
}

/// A `catch`: takes the pending error if a `catch` may catch it (not an interrupt, the memory
/// limit or an internal error: [`zy_interp::ErrorKind::catchable`]) and returns 1; 0 leaves it
/// pending.
///
/// # Safety
/// `ctx` must be the live context of the running code.
pub unsafe extern "C" fn zy_rt_catch(ctx: *mut Ctx) -> i64 {
    let ctx = unsafe { &mut *ctx };
    let Some((span, message)) = ctx.state.failure.take() else {
        return 0;
    };
    // What `throw(x)`/`rethrow(e)` raised, else Base's exception its message names.
    let caught = match ctx.state.thrown.take().filter(|c| c.text == message) {
        Some(thrown) => thrown,
        None => Rc::new(zy_interp::Caught::from_message(&message, span, Vec::new())),
    };
    if !caught.kind.catchable() {
        ctx.state.failure = Some((span, message));
        return 0;
    }
    ctx.state.caught = Some(caught);
    ctx.error = 0;
    1
}

/// `the_exception()`: the exception the innermost `catch` took, as the address of a value the
/// arena keeps (null, with an internal error set, outside a `catch`).
///
/// # Safety
/// `ctx` must be the live context of the running code.
pub unsafe extern "C" fn zy_rt_the_exception(ctx: *mut Ctx) -> *const zy_interp::Value {
    let ctx = unsafe { &mut *ctx };
    match ctx.state.caught.clone() {
        Some(c) => ctx.state.arena.hold(zy_interp::Value::Exception(c)),
        None => {
            let span = ctx.state.last_site;
            ctx.fail(
                span,
                "internal error: `the_exception` outside a catch block".into(),
            );
            std::ptr::null()
        }
    }
}

/// A string constant as a value: the address of a `String` the arena holds.
///
/// # Safety
/// `ctx` and `site` must be the live context and a string site of the running code.
pub unsafe extern "C" fn zy_rt_string(ctx: *mut Ctx, site: *const Site) -> *const zy_interp::Value {
    let (ctx, site) = unsafe { (&mut *ctx, &*site) };
    let s = site.string().unwrap_or_default();
    ctx.state.arena.hold(zy_interp::Value::Str(s.into()))
}

/// Records a `StackOverflowError` at a call.
///
/// # Safety
/// As for [`zy_rt_poll`].
pub unsafe extern "C" fn zy_rt_stack_overflow(ctx: *mut Ctx, site: *const Site) {
    let (ctx, site) = unsafe { (&mut *ctx, &*site) };
    ctx.fail(site.span, STACK_OVERFLOW.to_string());
}

/// Records the error a site stands for (its message is fixed at compile time).
///
/// # Safety
/// As for [`zy_rt_poll`].
pub unsafe extern "C" fn zy_rt_fail(ctx: *mut Ctx, site: *const Site) {
    let (ctx, site) = unsafe { (&mut *ctx, &*site) };
    let message = site
        .message()
        .unwrap_or("internal error: unreachable code reached")
        .to_string();
    ctx.fail(site.span, message);
}

/// Allocates `words` zeroed 8-byte words (a `Ref`, a mutable struct, a pullback's tape).
///
/// # Safety
/// `ctx` must be the live context.
pub unsafe extern "C" fn zy_rt_alloc(ctx: *mut Ctx, words: i64) -> *mut u64 {
    let ctx = unsafe { &mut *ctx };
    let p = ctx
        .state
        .arena
        .alloc_words(usize::try_from(words).unwrap_or(0));
    ctx.check_memory();
    p
}

/// Allocates `words` 8-byte words holding whatever an earlier allocation left: compiled code
/// zeroes a small box with its own stores, which cost less than the call of `memset` that
/// [`zy_rt_alloc`] makes.
///
/// # Safety
/// `ctx` must be the live context.
pub unsafe extern "C" fn zy_rt_alloc_uninit(ctx: *mut Ctx, words: i64) -> *mut u64 {
    let ctx = unsafe { &mut *ctx };
    let p = ctx
        .state
        .arena
        .alloc_words_uninit(usize::try_from(words).unwrap_or(0));
    ctx.check_memory();
    p
}

/// Allocates an empty AD stack.
///
/// # Safety
/// `ctx` must be the live context.
pub unsafe extern "C" fn zy_rt_stack_new(ctx: *mut Ctx) -> *mut StackObj {
    let ctx = unsafe { &mut *ctx };
    ctx.state.arena.new_stack()
}

/// How many stacks the arena has handed out (`stack_mark`).
///
/// # Safety
/// `ctx` must be the live context.
pub unsafe extern "C" fn zy_rt_stack_mark(ctx: *mut Ctx) -> i64 {
    let ctx = unsafe { &mut *ctx };
    ctx.state.arena.stack_mark() as i64
}

/// The stacks handed out since `stack_mark` returned `mark` are dead: reuse them
/// (`stack_release`).
///
/// # Safety
/// `ctx` must be the live context, and no stack handed out since `mark` used again.
pub unsafe extern "C" fn zy_rt_stack_release(ctx: *mut Ctx, mark: i64) {
    let ctx = unsafe { &mut *ctx };
    ctx.state
        .arena
        .release_stacks(usize::try_from(mark).unwrap_or(usize::MAX));
}

/// Allocates an empty AD stack and writes its address to `out` (for a call that keeps every
/// register, which cannot return a value).
///
/// # Safety
/// `ctx` must be the live context and `out` writable.
pub unsafe extern "C" fn zy_rt_stack_new_at(ctx: *mut Ctx, out: *mut *mut StackObj) {
    let ctx = unsafe { &mut *ctx };
    unsafe { out.write(ctx.state.arena.new_stack()) };
}

/// Grows `stack` so that one more entry of the push `site` fits, within the memory limit:
/// past it, the call fails at the site (the loop) with the tape's size and the loop's
/// iterations. Growth is rare (capacity doubles), and may take long for a large tape, so it
/// also polls the deadline.
///
/// # Safety
/// `ctx` must be the live context, `stack` one of its stacks and `site` a push site.
pub unsafe extern "C" fn zy_rt_stack_grow(ctx: *mut Ctx, stack: *mut StackObj, site: *const Site) {
    let (ctx, stack, site) = unsafe { (&mut *ctx, &mut *stack, &*site) };
    let SiteKind::Push(need) = site.kind else {
        ctx.fail(
            site.span,
            "internal error: a stack grown at a site that is not a push".into(),
        );
        return;
    };
    if let Some(msg) = ctx.interrupted() {
        ctx.fail(site.span, msg.to_string());
        return;
    }
    ctx.state.last_site = site.span;
    let need = need as usize;
    let (len, cap) = (stack.len.max(0) as usize, stack.cap.max(0) as usize);
    let limit = ctx.state.max_memory;
    let avail = limit.saturating_sub(ctx.state.arena.bytes());
    if len + need > cap + avail {
        // What the call holds: the tape (stacks' capacity) with anything else it allocated.
        let tape = ctx.state.arena.bytes() as u64;
        let iterations = (len / need.max(1)) as u64;
        ctx.fail(
            site.span,
            zy_interp::tape_limit_message(tape, iterations, limit as u64),
        );
        return;
    }
    stack.grow_within(need, cap + avail);
    ctx.state
        .arena
        .note((stack.cap.max(0) as usize).saturating_sub(cap));
}

/// `accum!(dst, src)` on Float64 arrays: adds `src` into `dst` elementwise. When `fresh` is
/// nonzero `dst` is a new array no one has read (its contents are not zeros yet): each element
/// becomes `0.0 + src`, what adding into zeros gives. A longer `src` whose shape broadcasting
/// extends `dst`'s to (an m×n gradient of an m×1 operand) is summed over the extension first,
/// as the interpreter's `unbroadcast`. Returns 1 (and does nothing) when the shapes do not fit.
///
/// # Safety
/// Both must be Float64 arrays of the live call.
pub unsafe extern "C" fn zy_rt_accum_into(
    dst: *mut ArrayObj,
    src: *const ArrayObj,
    fresh: i8,
) -> i8 {
    let (d, s) = unsafe { (&*dst, &*src) };
    let n = d.len.max(0) as usize;
    if d.len != s.len {
        return unsafe { accum_unbroadcast(d, s, fresh) };
    }
    // SAFETY: both hold `n` Float64 elements; they may be the same array (then not fresh).
    unsafe {
        let (dp, sp) = (d.data.cast::<f64>(), s.data.cast::<f64>());
        if fresh != 0 {
            for k in 0..n {
                *dp.add(k) = 0.0 + *sp.add(k);
            }
        } else {
            for k in 0..n {
                *dp.add(k) += *sp.add(k);
            }
        }
    }
    0
}

/// [`zy_rt_accum_into`] of a `src` longer than `dst`: the sums of `src` over the dimensions
/// where `dst` has length one, each from zero in index order (Julia's `sum(dims)`), added into
/// `dst`. Returns 1 when `dst`'s shape is not one broadcasting extends to `src`'s.
///
/// # Safety
/// Both must be Float64 arrays of the live call.
unsafe fn accum_unbroadcast(d: &ArrayObj, s: &ArrayObj, fresh: i8) -> i8 {
    let dims = |a: &ArrayObj| -> Vec<i64> {
        a.nd_dims()
            .map_or_else(|| vec![a.rows, a.cols], <[i64]>::to_vec)
    };
    let (mut sd, mut dd) = (dims(s), dims(d));
    let rank = sd.len().max(dd.len());
    sd.resize(rank, 1);
    dd.resize(rank, 1);
    let fits = |big: i64, small: i64| small == big || small == 1;
    if d.len >= s.len
        || sd.iter().zip(&dd).any(|(&m, &p)| !fits(m, p) || m < 0)
        || sd.iter().product::<i64>() != s.len
        || dd.iter().product::<i64>() != d.len
    {
        return 1;
    }
    let (slen, dlen) = (s.len as usize, d.len as usize);
    // SAFETY: `src` holds `slen` Float64 elements, `dst` `dlen` (checked above), and they are
    // different arrays (their lengths differ).
    let (src, dst) = unsafe {
        (
            std::slice::from_raw_parts(s.data.cast::<f64>(), slen),
            std::slice::from_raw_parts_mut(d.data.cast::<f64>(), dlen),
        )
    };
    // `dst`'s stride per dimension, 0 where it has length one.
    let mut stride = 1usize;
    let strides: Vec<usize> = dd
        .iter()
        .map(|&p| {
            let st = if p == 1 { 0 } else { stride };
            stride *= p as usize;
            st
        })
        .collect();
    let mut sums = vec![0.0; dlen];
    let mut index = vec![0usize; rank];
    for &x in src {
        let k: usize = index.iter().zip(&strides).map(|(i, s)| i * s).sum();
        sums[k] += x;
        for (i, &n) in index.iter_mut().zip(&sd) {
            *i += 1;
            if *i < n as usize {
                break;
            }
            *i = 0;
        }
    }
    for (e, x) in dst.iter_mut().zip(sums) {
        *e = if fresh != 0 { 0.0 + x } else { *e + x };
    }
    0
}

/// `accum!(dst, x)` with a Float64 `x`: adds `x` to every element of `dst` (sets each to
/// `0.0 + x` when `fresh` is nonzero, see [`zy_rt_accum_into`]).
///
/// # Safety
/// `dst` must be a Float64 array of the live call.
pub unsafe extern "C" fn zy_rt_accum_into_scalar(dst: *mut ArrayObj, x: f64, fresh: i8) {
    let d = unsafe { &*dst };
    let n = d.len.max(0) as usize;
    // SAFETY: `dst` holds `n` Float64 elements.
    let elems = unsafe { std::slice::from_raw_parts_mut(d.data.cast::<f64>(), n) };
    if fresh != 0 {
        elems.fill(0.0 + x);
    } else {
        for e in elems {
            *e += x;
        }
    }
}

/// Evaluates the primitive of a fallback site with the interpreter's semantics: the operands'
/// slots are in `buf` (8 bytes each), the result's slots are written back to `buf`.
///
/// # Safety
/// `buf` must hold the slots the site describes, with room for the result's slots.
pub unsafe extern "C" fn zy_rt_fallback(ctx: *mut Ctx, site: *const Site, buf: *mut u64) {
    let (ctx, site) = unsafe { (&mut *ctx, &*site) };
    if let Err(message) = unsafe { crate::fallback::run(ctx, site, buf) } {
        // A rethrown exception is reported where it was first raised, as the interpreter does.
        let span = match &ctx.state.thrown {
            Some(c) if c.text == message && c.span != Span::default() => c.span,
            _ => site.span,
        };
        ctx.fail(span, message);
    }
}

/// The runtime's symbols, registered with the JIT by name.
pub fn symbols() -> Vec<(&'static str, *const u8)> {
    let mut syms = vec![
        ("zy_rt_poll", zy_rt_poll as *const u8),
        ("zy_rt_catch", zy_rt_catch as *const u8),
        ("zy_rt_the_exception", zy_rt_the_exception as *const u8),
        ("zy_rt_string", zy_rt_string as *const u8),
        ("zy_rt_stack_overflow", zy_rt_stack_overflow as *const u8),
        ("zy_rt_fail", zy_rt_fail as *const u8),
        ("zy_rt_alloc", zy_rt_alloc as *const u8),
        ("zy_rt_alloc_uninit", zy_rt_alloc_uninit as *const u8),
        ("zy_rt_stack_new", zy_rt_stack_new as *const u8),
        ("zy_rt_stack_new_at", zy_rt_stack_new_at as *const u8),
        ("zy_rt_stack_mark", zy_rt_stack_mark as *const u8),
        ("zy_rt_stack_release", zy_rt_stack_release as *const u8),
        ("zy_rt_stack_grow", zy_rt_stack_grow as *const u8),
        ("zy_rt_fallback", zy_rt_fallback as *const u8),
        ("zy_rt_accum_into", zy_rt_accum_into as *const u8),
        (
            "zy_rt_accum_into_scalar",
            zy_rt_accum_into_scalar as *const u8,
        ),
    ];
    syms.extend(preserve::symbol());
    syms.extend(math::symbols());
    syms.extend(objects::symbols());
    syms.extend(kernels::symbols());
    syms.extend(factor::symbols());
    syms.extend(slices::symbols());
    syms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_past_the_memory_limit_fails_with_out_of_memory() {
        let limits = zy_interp::Limits {
            max_memory: 1 << 20,
            ..zy_interp::Limits::default()
        };
        let mut ctx = Ctx::new(&limits, 0);
        ctx.check_memory();
        assert_eq!(ctx.error, 0);
        ctx.state.arena.note((1 << 20) + 1);
        ctx.check_memory();
        assert_eq!(ctx.error, 1);
        assert_eq!(
            ctx.state.failure.map(|f| f.1).as_deref(),
            Some("OutOfMemoryError: what the call allocated (arrays, boxes, tape) passed the limit of 1.0 MiB (max_memory)")
        );
    }

    #[test]
    fn a_stack_grows_within_the_limit_and_then_fails_at_its_site() {
        let limits = zy_interp::Limits {
            max_memory: 1000,
            ..zy_interp::Limits::default()
        };
        let mut ctx = Ctx::new(&limits, 0);
        let site = Site {
            span: Span::new(0, 7, 9),
            kind: SiteKind::Push(16),
        };
        let stack = ctx.state.arena.new_stack();
        let mut pushes = 0;
        while ctx.error == 0 {
            let s = unsafe { &mut *stack };
            if s.len + 16 > s.cap {
                unsafe { zy_rt_stack_grow(&mut ctx, stack, &site) };
                continue;
            }
            s.len += 16;
            pushes += 1;
        }
        // 62 entries of 16 bytes fit in 1000 bytes (the capacity, clamped to the limit).
        assert_eq!(pushes, 62);
        assert!(ctx.state.arena.bytes() <= 1000);
        assert_eq!(
            ctx.state.failure,
            Some((
                Span::new(0, 7, 9),
                "OutOfMemoryError: the tape of the loop here reached 1000 bytes after 62 iterations; the limit is 1000 bytes (max_memory)".to_string()
            ))
        );
    }
}
