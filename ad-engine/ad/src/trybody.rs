//! Differentiating `try` bodies. The transform treats the edge into a catch block as any
//! edge: lowering ends a block after every operation of a try body, so an exception leaves
//! from the last block that finished, and the pullback reverses exactly the blocks that ran.
//! What it cannot reverse is the part of a call that ran before the call threw: a callee that
//! may write its arguments (or a global) inside a try body is differentiated as straight-line
//! code when it returns, and its throwing stops the gradient at run time, by name, with an
//! error no `catch` takes ([`guard_calls`]). A task's body (`Threads.@spawn out[i] = f(x[i])`)
//! is such a call: its gradient passes through when the task does not fail.

use std::sync::Arc;

use zy_ir::{Block, BlockCall, Const, Function, Op, Prim, Stmt, Terminator, Type, TypedProgram};

/// For every block, whether an exception handler is installed while it runs.
fn protected(func: &Function) -> Vec<bool> {
    let mut depth: Vec<Option<i64>> = vec![None; func.blocks.len()];
    let mut work = vec![(Block::ENTRY, 0i64)];
    while let Some((b, d)) = work.pop() {
        match depth.get(b.index()) {
            Some(None) => depth[b.index()] = Some(d),
            _ => continue,
        }
        match &func.block(b).term {
            Terminator::Handle { leave, catch, to } => {
                let left = d - i64::from(*leave);
                if let Some(c) = catch {
                    work.push((c.block, left));
                    work.push((to.block, left + 1));
                } else {
                    work.push((to.block, left));
                }
            }
            term => work.extend(term.successors().into_iter().map(|s| (s, d))),
        }
    }
    depth.into_iter().map(|d| d.unwrap_or(0) > 0).collect()
}

/// Guard each call inside a try body of `func` whose callee may write an object it did not
/// make: a handler of its own is installed around the call, whose block stops the run with an
/// `unsupported` error naming the call (what the callee wrote before it threw cannot be
/// reversed), and removed after it, so the try body's own handler takes every other exception.
pub(crate) fn guard_calls(prog: &TypedProgram, func: &mut Function) {
    if !func
        .blocks
        .iter()
        .any(|b| matches!(b.term, Terminator::Handle { .. }))
    {
        return;
    }
    let inside = protected(func);
    let mut sites = Vec::new();
    for b in func.block_ids().filter(|b| inside[b.index()]) {
        for (at, &v) in func.block(b).stmts.iter().enumerate() {
            if let Some(Op::Invoke(callee)) = func.stmt(v).map(|s| &s.op) {
                if crate::mutates::may_mutate(prog, &Arc::clone(callee)) {
                    sites.push((b, at, callee.name.to_string()));
                }
            }
        }
    }
    // From the last site of a block to the first, so earlier positions stay valid.
    for (b, at, callee) in sites.into_iter().rev() {
        guard(func, b, at, &callee);
    }
}

/// Split `b` around its statement at `at`, a call of `callee`: `b` installs the guard's
/// handler, a block of the call alone removes it, and a third holds the rest of `b`.
fn guard(func: &mut Function, b: Block, at: usize, callee: &str) {
    let call = func.block(b).stmts[at];
    let span = func.value(call).span;
    let rest = func.block_mut(b).stmts.split_off(at + 1);
    func.block_mut(b).stmts.truncate(at);
    let term = std::mem::replace(&mut func.block_mut(b).term, Terminator::Unreachable);
    let term_span = func.block(b).term_span;
    let (alone, after, stop) = (func.add_block(), func.add_block(), func.add_block());
    func.block_mut(alone).stmts.push(call);
    func.block_mut(after).stmts = rest;
    func.set_term(after, term, term_span);
    let install = Terminator::Handle {
        leave: 0,
        catch: Some(BlockCall::new(stop)),
        to: BlockCall::new(alone),
    };
    func.set_term(b, install, span);
    let remove = Terminator::Handle {
        leave: 1,
        catch: None,
        to: BlockCall::new(after),
    };
    func.set_term(alone, remove, span);
    let why = format!(
        "the gradient of `{}` through `{callee}`, which threw inside `try` (a task \
         that failed, or a `catch`) after it may have written to its arguments or a global: \
         what it wrote cannot be reversed (a gradient passes through such a call only when it \
         returns)",
        func.name
    );
    let message = Stmt {
        op: Op::Prim(Prim::Error),
        args: vec![
            Const::Symbol("unsupported".into()).into(),
            Const::Str(why.as_str().into()).into(),
        ],
    };
    // `error(:unsupported, why)` raises an error of zy's own, which no `catch` takes.
    func.push_stmt(stop, message, Type::Bottom, span);
    func.set_term(stop, Terminator::Unreachable, span);
}
