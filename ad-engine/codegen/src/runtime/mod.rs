//! The runtime that compiled code calls for what machine code cannot do inline: allocation of
//! arrays, boxes and stacks in a per-call arena, errors with their source location, interrupt
//! polling, and the slow path that evaluates a primitive with the interpreter's own semantics.
//!
//! Every function here is `extern "C"` and receives the [`Ctx`] of the running call. Errors never
//! unwind through machine code: they are recorded in the context, which compiled code checks.

pub mod arena;
pub mod kernels;
pub mod math;
pub mod preserve;
pub mod site;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use zy_ir::Span;

pub use arena::{Arena, ArenaMark, ArrayObj, StackObj};
pub use site::Site;

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
    /// When the call must stop.
    pub deadline: Option<Instant>,
    /// Set by another thread to stop the call.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Storage behind [`Ctx::globals`].
    pub global_words: Vec<u64>,
}

impl Ctx {
    /// A fresh context for one call.
    pub fn new(
        max_depth: usize,
        deadline: Option<Instant>,
        cancel: Option<Arc<AtomicBool>>,
        n_globals: usize,
    ) -> Ctx {
        let mut ctx = Ctx {
            error: 0,
            fuel: FUEL_PER_POLL,
            depth: 1,
            max_depth: i64::try_from(max_depth).unwrap_or(i64::MAX),
            stack_limit: 0,
            globals: std::ptr::null_mut(),
            state: State {
                arena: Arena::default(),
                failure: None,
                deadline,
                cancel,
                global_words: vec![0; n_globals],
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
    /// [`ARENA_LIMIT`].
    pub fn check_memory(&mut self) {
        if self.state.arena.bytes() > ARENA_LIMIT {
            self.fail(Span::default(), OUT_OF_MEMORY.to_string());
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
/// Memory one call may allocate before it fails with [`OUT_OF_MEMORY`] (a runaway loop that
/// allocates or records must end with an error, not take the machine's memory).
pub const ARENA_LIMIT: usize = 4 << 30;
/// Julia's message when memory runs out.
pub const OUT_OF_MEMORY: &str = "OutOfMemoryError()";

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
    match ctx.interrupted() {
        Some(msg) => {
            ctx.fail(site.span, msg.to_string());
            1
        }
        None => 0,
    }
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

/// Allocates an empty AD stack.
///
/// # Safety
/// `ctx` must be the live context.
pub unsafe extern "C" fn zy_rt_stack_new(ctx: *mut Ctx) -> *mut StackObj {
    let ctx = unsafe { &mut *ctx };
    ctx.state.arena.new_stack()
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

/// Grows `stack` so that `need` more bytes fit.
///
/// # Safety
/// `ctx` must be the live context and `stack` one of its stacks.
pub unsafe extern "C" fn zy_rt_stack_grow(ctx: *mut Ctx, stack: *mut StackObj, need: i64) {
    let (ctx, stack) = unsafe { (&mut *ctx, &mut *stack) };
    let before = stack.cap.max(0) as usize;
    stack.grow(usize::try_from(need).unwrap_or(0));
    ctx.state
        .arena
        .note((stack.cap.max(0) as usize).saturating_sub(before));
    ctx.check_memory();
}

/// `accum!(dst, src)` on Float64 arrays: adds `src` into `dst` elementwise. When `fresh` is
/// nonzero `dst` is a new array no one has read (its contents are not zeros yet): each element
/// becomes `0.0 + src`, what adding into zeros gives. Returns 1 (and does nothing) when the
/// lengths differ.
///
/// # Safety
/// Both must be Float64 arrays of the live call.
pub unsafe extern "C" fn zy_rt_accum_into(
    dst: *mut ArrayObj,
    src: *const ArrayObj,
    fresh: i8,
) -> i8 {
    let (d, s) = unsafe { (&*dst, &*src) };
    if d.len != s.len {
        return 1;
    }
    let n = d.len.max(0) as usize;
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
        ctx.fail(site.span, message);
    }
}

/// The runtime's symbols, registered with the JIT by name.
pub fn symbols() -> Vec<(&'static str, *const u8)> {
    let mut syms = vec![
        ("zy_rt_poll", zy_rt_poll as *const u8),
        ("zy_rt_stack_overflow", zy_rt_stack_overflow as *const u8),
        ("zy_rt_fail", zy_rt_fail as *const u8),
        ("zy_rt_alloc", zy_rt_alloc as *const u8),
        ("zy_rt_stack_new", zy_rt_stack_new as *const u8),
        ("zy_rt_stack_new_at", zy_rt_stack_new_at as *const u8),
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
    syms.extend(kernels::symbols());
    syms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_past_the_memory_limit_fails_with_out_of_memory() {
        let mut ctx = Ctx::new(10, None, None, 0);
        ctx.check_memory();
        assert_eq!(ctx.error, 0);
        ctx.state.arena.note(ARENA_LIMIT + 1);
        ctx.check_memory();
        assert_eq!(ctx.error, 1);
        assert_eq!(
            ctx.state.failure.map(|f| f.1).as_deref(),
            Some("OutOfMemoryError()")
        );
    }
}
