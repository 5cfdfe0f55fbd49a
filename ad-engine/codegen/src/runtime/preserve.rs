//! Calls of the runtime's cold paths that keep every register (Cranelift's `preserve_all`
//! convention). A loop whose back edge may poll for interrupts, or whose body may fail a bounds
//! check or grow a tape, has calls on those cold paths; with ordinary calls there, which
//! clobber every vector register, the register allocator keeps the loop's Float64 values on
//! the stack for the whole loop, so each iteration waits on memory.
//!
//! `zy_rt_call_preserving(a, b, c, f)` saves the registers the System V convention lets a
//! callee clobber (the integer scratch registers and xmm0-xmm15, all Cranelift allocates),
//! calls `f(a, b, c)` and restores them. The runtime functions called this way return nothing:
//! their outcome is in the context (its error word) or in memory.

#[cfg(target_arch = "x86_64")]
std::arch::global_asm!(
    ".globl zy_rt_call_preserving",
    ".p2align 4",
    "zy_rt_call_preserving:",
    "push rbp",
    "mov rbp, rsp",
    "push rax",
    "push rcx",
    "push rdx",
    "push rsi",
    "push rdi",
    "push r8",
    "push r9",
    "push r10",
    "push r11",
    // Nine pushes after rbp leave rsp 8 bytes off a 16-byte boundary: 264 realigns it.
    "sub rsp, 264",
    "movdqu [rsp + 0], xmm0",
    "movdqu [rsp + 16], xmm1",
    "movdqu [rsp + 32], xmm2",
    "movdqu [rsp + 48], xmm3",
    "movdqu [rsp + 64], xmm4",
    "movdqu [rsp + 80], xmm5",
    "movdqu [rsp + 96], xmm6",
    "movdqu [rsp + 112], xmm7",
    "movdqu [rsp + 128], xmm8",
    "movdqu [rsp + 144], xmm9",
    "movdqu [rsp + 160], xmm10",
    "movdqu [rsp + 176], xmm11",
    "movdqu [rsp + 192], xmm12",
    "movdqu [rsp + 208], xmm13",
    "movdqu [rsp + 224], xmm14",
    "movdqu [rsp + 240], xmm15",
    "call rcx",
    "movdqu xmm0, [rsp + 0]",
    "movdqu xmm1, [rsp + 16]",
    "movdqu xmm2, [rsp + 32]",
    "movdqu xmm3, [rsp + 48]",
    "movdqu xmm4, [rsp + 64]",
    "movdqu xmm5, [rsp + 80]",
    "movdqu xmm6, [rsp + 96]",
    "movdqu xmm7, [rsp + 112]",
    "movdqu xmm8, [rsp + 128]",
    "movdqu xmm9, [rsp + 144]",
    "movdqu xmm10, [rsp + 160]",
    "movdqu xmm11, [rsp + 176]",
    "movdqu xmm12, [rsp + 192]",
    "movdqu xmm13, [rsp + 208]",
    "movdqu xmm14, [rsp + 224]",
    "movdqu xmm15, [rsp + 240]",
    "add rsp, 264",
    "pop r11",
    "pop r10",
    "pop r9",
    "pop r8",
    "pop rdi",
    "pop rsi",
    "pop rdx",
    "pop rcx",
    "pop rax",
    "pop rbp",
    "ret",
);

#[cfg(target_arch = "x86_64")]
extern "C" {
    fn zy_rt_call_preserving(a: u64, b: u64, c: u64, f: u64);
}

/// The preserving trampoline's symbol, where this target has one (elsewhere cold paths make
/// ordinary calls).
pub fn symbol() -> Option<(&'static str, *const u8)> {
    #[cfg(target_arch = "x86_64")]
    return Some(("zy_rt_call_preserving", zy_rt_call_preserving as *const u8));
    #[cfg(not(target_arch = "x86_64"))]
    None
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::runtime::{Ctx, Site};

    #[test]
    fn a_poll_through_the_trampoline_refills_the_fuel_and_reports_a_cancel() {
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let limits = zy_interp::Limits {
            max_depth: 10,
            cancel: Some(flag.clone()),
            ..zy_interp::Limits::default()
        };
        let mut ctx = Ctx::new(&limits, 0);
        ctx.fuel = 0;
        let site = Site {
            span: zy_ir::Span::default(),
            kind: crate::runtime::site::SiteKind::Plain,
        };
        let poll = crate::runtime::zy_rt_poll as *const u8 as u64;
        let (c, s) = (&mut ctx as *mut Ctx as u64, &site as *const Site as u64);
        unsafe { zy_rt_call_preserving(c, s, 0, poll) };
        assert_eq!((ctx.fuel, ctx.error), (crate::runtime::FUEL_PER_POLL, 0));
        flag.store(true, std::sync::atomic::Ordering::Relaxed);
        unsafe { zy_rt_call_preserving(c, s, 0, poll) };
        assert_eq!(ctx.error, 1);
    }
}
