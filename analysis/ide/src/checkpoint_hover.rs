//! Hover on a loop under `# zy: checkpoint`: the tape its gradient keeps with and without
//! checkpointing, per iteration and in total at the function's `# zy: at` call.
//!
//! The loop runs as `checkpointed` calls of a step function (`zy-lower`'s `checkpoint`), all
//! of whose generated statements carry the loop's span. Per iteration, the plain loop would
//! keep what the step's forward pass pushes per iteration of its own loop (the same body); with
//! checkpointing, the forward pass keeps each chunk's `checkpointed` tape, and the pullback
//! rebuilds one chunk's tape at a time. The counts come from a watched run of the call: a
//! `for` loop's length (`length` or `range_length` at the loop), a `while` loop's iterations
//! and chunks (the step's and the driver's counters at the loop). Sizes count an array, like
//! any reference, as one pointer.

use std::sync::Arc;

use zy_hir::{AdjointKey, RootDatabase, SourceFile};
use zy_interp::{Step, Value as RunValue, Watch};
use zy_ir::{Instance, Name, Op, Prim, Span, Stmt, ValueKind};

use crate::eval::EvalLimits;
use crate::grad::Prepared;
use crate::hover::{pushes, size_of, Specialised};
use crate::locate::CallSite;

/// The hover text of the loop whose keyword (`word`) starts at `start`, if a
/// `# zy: checkpoint` line stands above it and the function has a `# zy: at` call.
pub(crate) fn hover(
    db: &RootDatabase,
    file: SourceFile,
    word: &str,
    start: u32,
    typed: Option<&Specialised>,
) -> Option<String> {
    let snapshots = annotation_above(file.text(db), start as usize)?;
    let head = format!("`{word}` loop under `# zy: checkpoint`");
    let Some(s) = typed else {
        return Some(format!(
            "{head}: add `# zy: at` above the function to see the tape it keeps"
        ));
    };
    if let Err(e) = &s.adjoint {
        return Some(format!(
            "{head}: not differentiable at `{}`: {}",
            s.call, e.message
        ));
    }
    if let Some(k) = snapshots {
        return Some(revolve_hover(db, file, word, start, s, k));
    }
    // The `checkpointed` call at this loop, and the step it calls.
    let (span, ck) = s.func.values.iter().find_map(|d| match &d.kind {
        ValueKind::Stmt(Stmt {
            op: Op::Invoke(inst),
            ..
        }) if zy_ad::checkpoint::is_checkpointed(inst)
            && zy_hir::locate(db, d.span, None).is_some_and(|r| r.start == start) =>
        {
            Some((d.span, inst.clone()))
        }
        _ => None,
    })?;
    let expr = zy_syntax::parse_expr(&s.call).ok()?;
    let typed_call = zy_hir::type_call(db, file, &expr).ok()?;
    let step = called(&typed_call.program, &ck)?;
    let adjoint_of = |inst: &Arc<Instance>| {
        let key = AdjointKey::of(db, typed_call.id(db, inst));
        zy_hir::adjoint(db, key).clone().ok()
    };
    let per_iteration: usize = pushes(&adjoint_of(&step)?.forward)
        .iter()
        .map(size_of)
        .sum();
    let per_chunk = size_of(&tape_type(&adjoint_of(&ck)?.forward)?);
    let mut md = format!(
        "{head}: per iteration, the plain tape keeps {per_iteration} bytes for the pullback; checkpointed, the forward pass keeps {per_chunk} bytes per chunk of iterations (its starting state) and the pullback rebuilds one chunk's tape at a time"
    );
    if let Some(c) = counts(db, file, &s.call, span, word == "while") {
        md.push_str(&format!(
            "\n\nat `{}`: {} iterations in {} chunks of at most {}: without checkpointing {} bytes in total; with it {} bytes kept, plus at most {} bytes of one chunk's tape",
            s.call,
            c.iterations,
            c.chunks,
            c.longest,
            c.iterations * per_iteration,
            c.chunks * per_chunk,
            c.longest * per_iteration
        ));
    }
    md.push_str("\n\n(an array counts as one pointer)");
    Some(md)
}

/// The hover of a loop under `snapshots=k` (Revolve's binomial schedule, `zy_ad::revolve`):
/// the bounds, and for a `for` loop the counts at the `# zy: at` call.
fn revolve_hover(
    db: &RootDatabase,
    file: SourceFile,
    word: &str,
    start: u32,
    s: &Specialised,
    k: usize,
) -> String {
    let mut md = format!(
        "`{word}` loop under `# zy: checkpoint snapshots={k}`: Revolve's binomial schedule. The gradient keeps at most {k} + t - 1 states of the loop and one iteration's tape at a time, and recomputes each iteration at most t times, t being the smallest with C({k} + t, t) ≥ the iterations"
    );
    if word == "while" {
        md.push_str(" (a `while` loop runs in chunks of 1, 2, 4, ... iterations, each so)");
    }
    // A statement at the loop (the range's or collection's length), for the watched run.
    let span = s.func.values.iter().find_map(|d| {
        zy_hir::locate(db, d.span, None)
            .is_some_and(|r| r.start == start)
            .then_some(d.span)
    });
    let n = span
        .filter(|_| word == "for")
        .and_then(|span| counts(db, file, &s.call, span, false))
        .map(|c| c.iterations);
    if let Some(n) = n {
        // The schedule's steps are blocks of `b` iterations, at most 4,096 of them (lowering's
        // `LEAF_BLOCKS`).
        let b = n.div_ceil(4096).max(1);
        let blocks = n.div_ceil(b);
        let t = zy_ad::revolve::repetitions(blocks, k.max(1));
        let redone = zy_ad::revolve::min_advances(blocks, k.max(1));
        let (unit, counted) = match b {
            1 => ("iterations".to_string(), format!("{n} iterations")),
            _ => (
                format!("blocks of {b} iterations"),
                format!("{n} iterations, {blocks} blocks of {b}"),
            ),
        };
        md.push_str(&format!(
            "\n\nat `{}`: {counted}: t = {t}; without checkpointing {n} iterations' tapes kept; with it at most {} states, and {redone} {unit} recomputed in all (the fewest any schedule with {k} snapshots needs)",
            s.call,
            (k + t).saturating_sub(1).min(blocks.max(1)),
        ));
    }
    md
}

/// The `snapshots` of the `# zy: checkpoint` line directly above the line holding byte
/// `start` (`Some(None)` without a count), if there is one.
fn annotation_above(text: &str, start: usize) -> Option<Option<usize>> {
    let line_start = text.get(..start)?.rfind('\n')?;
    let above = text.get(..line_start)?.lines().next_back()?.trim();
    let rest = above.strip_prefix('#')?.trim_start().strip_prefix("zy:")?;
    let rest = rest.trim_start().strip_prefix("checkpoint")?.trim();
    let count = rest.strip_prefix("snapshots").map_or(rest, |r| {
        r.trim_start().strip_prefix('=').unwrap_or(r).trim_start()
    });
    Some(count.parse().ok())
}

/// The step instance the synthesised body of the checkpointed call `ck` calls.
fn called(prog: &zy_ir::TypedProgram, ck: &Instance) -> Option<Arc<Instance>> {
    let body = prog.functions.get(ck)?;
    body.values.iter().find_map(|d| match &d.kind {
        ValueKind::Stmt(Stmt {
            op: Op::Invoke(c), ..
        }) => Some(c.clone()),
        _ => None,
    })
}

/// The type of the tape a `checkpointed` forward function keeps (the operand of its
/// `make_pullback`).
fn tape_type(fwd: &zy_ir::Function) -> Option<zy_ir::Type> {
    fwd.values.iter().find_map(|d| match &d.kind {
        ValueKind::Stmt(st) if st.op == Op::Prim(Prim::MakePullback) => {
            st.args.get(2).map(|a| fwd.operand_ty(a))
        }
        _ => None,
    })
}

/// How the loop ran at the call.
struct Counts {
    iterations: usize,
    chunks: usize,
    /// Iterations of the longest chunk.
    longest: usize,
}

/// The loop's counts at `call`, from a watched run: statements at the loop's `span`.
fn counts(
    db: &RootDatabase,
    file: SourceFile,
    call: &str,
    span: Span,
    is_while: bool,
) -> Option<Counts> {
    let prepared =
        Prepared::new(db, file, call, CallSite::Text(call), &EvalLimits::default()).ok()?;
    let mut seen = Seen {
        span,
        length: None,
        adds: Vec::new(),
    };
    prepared.run_watched(db, &mut seen)?;
    if is_while {
        // The step's counter (`m + 1`, once per iteration) and the driver's (`len + 1`, once
        // per chunk): the driver's function runs first.
        let driver = seen.adds.first()?.clone();
        let chunks = seen.adds.iter().filter(|f| **f == driver).count();
        let iterations = seen.adds.len() - chunks;
        let full: usize = (1..chunks).sum();
        let longest = chunks
            .saturating_sub(1)
            .max(iterations.saturating_sub(full));
        return Some(Counts {
            iterations,
            chunks,
            longest,
        });
    }
    let n = seen.length?;
    let c = (0..).find(|c: &usize| c * c >= n).unwrap_or(1).max(1);
    Some(Counts {
        iterations: n,
        chunks: n.div_ceil(c),
        longest: c.min(n),
    })
}

/// What a watched run saw at the loop's span: the length a `for` loop counted, and each `+`
/// with the function it ran in.
struct Seen {
    span: Span,
    length: Option<usize>,
    adds: Vec<Name>,
}

impl Watch for Seen {
    fn before(&mut self, _: Step<'_>, _: &[RunValue]) {}

    fn after(&mut self, step: Step<'_>, _: &[RunValue], result: &RunValue) {
        if step.span != self.span {
            return;
        }
        match step.prim {
            Prim::Length | Prim::RangeLength if self.length.is_none() => {
                if let RunValue::Int(n) = result {
                    self.length = usize::try_from(*n).ok();
                }
            }
            Prim::Add => self.adds.push(step.func.name.clone()),
            _ => {}
        }
    }
}
