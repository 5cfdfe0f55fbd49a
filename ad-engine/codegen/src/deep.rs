//! The native stack of deep code (recursive, or call chains longer than the session's bound):
//! one large stack per OS thread, mapped on the thread's first deep call and reused by every
//! later one, so a call costs a stack switch rather than a thread (a `clone3`, `mmap` and
//! `munmap`, 20-50 µs). Compiled code checks its stack pointer against [`Ctx::stack_limit`] at
//! every call, so running out of this stack is a `StackOverflowError`, never a crash; a guard
//! page below it catches anything else. Pages that deep calls touched stay with the thread until
//! it ends, as a thread's own stack does.
//!
//! A deep call made while the thread's stack is in use (compiled code calling back into
//! compiled code), and every deep call on targets without the stack switch, runs on a thread
//! of its own with a stack as large.

use crate::runtime::Ctx;

/// Native stack for deep code: the depth limit is reached long before it runs out.
const DEEP_STACK: usize = 256 << 20;
/// Native stack kept free below the checked limit, for runtime functions.
const STACK_MARGIN: usize = 1 << 20;

/// The trampoline every compiled function is entered through.
pub(crate) type Entry = extern "C" fn(*mut Ctx, *const u64, *mut u64);

/// Run `f(ctx, args, out)` on a large native stack, with `ctx.stack_limit` set inside it.
pub(crate) fn run(f: Entry, ctx: &mut Ctx, args: &[u64], out: &mut [u64]) -> Result<(), String> {
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    if switch::run(f, ctx, args.as_ptr(), out.as_mut_ptr()) {
        return Ok(());
    }
    on_thread(f, ctx, args, out)
}

/// A context pointer handed to the thread that runs deep code.
struct SendCtx(*mut Ctx, *const u64, *mut u64);
// SAFETY: the spawning thread waits for the callee thread and touches nothing meanwhile.
unsafe impl Send for SendCtx {}

/// Run `f` on a fresh thread with a [`DEEP_STACK`] stack and wait for it.
fn on_thread(f: Entry, ctx: &mut Ctx, args: &[u64], out: &mut [u64]) -> Result<(), String> {
    let p = SendCtx(ctx, args.as_ptr(), out.as_mut_ptr());
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(DEEP_STACK)
            .spawn_scoped(s, move || {
                let p = p;
                let here = &p as *const SendCtx as u64;
                // SAFETY: the caller's context outlives this scoped thread.
                let ctx = unsafe { &mut *p.0 };
                ctx.stack_limit = here.saturating_sub((DEEP_STACK - STACK_MARGIN) as u64);
                f(p.0, p.1, p.2);
            })
            .map_err(|e| format!("internal error: cannot start the JIT thread: {e}"))?
            .join()
            .map_err(|_| "internal error: the JIT thread panicked".to_string())
    })
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod switch {
    use std::cell::Cell;

    use super::{Entry, DEEP_STACK, STACK_MARGIN};
    use crate::runtime::Ctx;

    /// Inaccessible bytes below the stack.
    const GUARD: usize = 64 << 10;

    /// This thread's deep stack: its mapping, and whether a call is running on it.
    struct Stack {
        base: Cell<usize>,
        busy: Cell<bool>,
    }

    impl Drop for Stack {
        fn drop(&mut self) {
            let base = self.base.get();
            if base != 0 {
                // SAFETY: `base` is this thread's mapping of GUARD + DEEP_STACK bytes, and no
                // call runs on it while the thread ends.
                unsafe { libc::munmap(base as *mut libc::c_void, GUARD + DEEP_STACK) };
            }
        }
    }

    thread_local! {
        static STACK: Stack = const { Stack { base: Cell::new(0), busy: Cell::new(false) } };
    }

    /// Map GUARD + DEEP_STACK bytes (address space until touched) with the guard inaccessible.
    fn map() -> Option<usize> {
        // SAFETY: a fresh anonymous mapping; nothing else refers to it.
        unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                GUARD + DEEP_STACK,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_STACK,
                -1,
                0,
            );
            if p == libc::MAP_FAILED {
                return None;
            }
            if libc::mprotect(p, GUARD, libc::PROT_NONE) != 0 {
                libc::munmap(p, GUARD + DEEP_STACK);
                return None;
            }
            Some(p as usize)
        }
    }

    /// Run `f` on this thread's deep stack. False (nothing run) when the stack is in use or
    /// cannot be mapped.
    pub(super) fn run(f: Entry, ctx: &mut Ctx, args: *const u64, out: *mut u64) -> bool {
        STACK
            .try_with(|s| {
                if s.busy.get() {
                    return false;
                }
                if s.base.get() == 0 {
                    match map() {
                        Some(b) => s.base.set(b),
                        None => return false,
                    }
                }
                let bottom = s.base.get() + GUARD;
                let top = bottom + DEEP_STACK;
                ctx.stack_limit = (bottom + STACK_MARGIN) as u64;
                s.busy.set(true);
                // SAFETY: `top` is the 16-byte aligned end of a mapping no other frame uses
                // (`busy`); `f` is an `extern "C"` function that returns normally (nothing
                // unwinds through `extern "C"`), so the saved stack pointer is restored.
                unsafe { call_on(top, f, ctx, args, out) };
                s.busy.set(false);
                true
            })
            .unwrap_or(false)
    }

    /// Call `f(ctx, args, out)` with the stack pointer at `top`, then switch back.
    ///
    /// # Safety
    /// `top` must be the 16-byte aligned end of writable memory large enough for `f`, used by
    /// nothing else meanwhile.
    unsafe fn call_on(top: usize, f: Entry, ctx: *mut Ctx, args: *const u64, out: *mut u64) {
        // SAFETY: the caller's contract; r12 is callee-saved, so it holds the old stack
        // pointer across the call, and every caller-saved register is declared clobbered.
        unsafe {
            std::arch::asm!(
                "mov r12, rsp",
                "mov rsp, {top}",
                "call {f}",
                "mov rsp, r12",
                top = in(reg) top,
                f = in(reg) f,
                in("rdi") ctx,
                in("rsi") args,
                in("rdx") out,
                out("r12") _,
                clobber_abi("C"),
            );
        }
    }
}
