//! Differentiating `try` bodies. The transform treats the edge into a catch block as any
//! edge: lowering ends a block after every operation of a try body, so an exception leaves
//! from the last block that finished, and the pullback reverses exactly the blocks that ran.
//! What it cannot reverse is the part of a call that ran before the call threw: a callee that
//! may write its arguments (or a global) inside a try body is refused by name.

use std::sync::Arc;

use zy_ir::{Block, Function, Op, Terminator, TypedProgram};

use crate::AdError;

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

/// Refuse a call inside a try body of `func` whose callee may write an object it did not make.
pub(crate) fn check_calls(prog: &TypedProgram, func: &Function) -> Result<(), AdError> {
    if !func
        .blocks
        .iter()
        .any(|b| matches!(b.term, Terminator::Handle { .. }))
    {
        return Ok(());
    }
    let inside = protected(func);
    for b in func.block_ids().filter(|b| inside[b.index()]) {
        for &v in &func.block(b).stmts {
            let Some(Op::Invoke(callee)) = func.stmt(v).map(|s| &s.op) else {
                continue;
            };
            if crate::mutates::may_mutate(prog, &Arc::clone(callee)) {
                return Err(AdError::new(
                    func.value(v).span,
                    format!(
                        "cannot differentiate `{}`: `{}` is called inside `try` and may write to its arguments or a global; should it throw, what it wrote before cannot be reversed (not supported yet: call it before the `try`, or keep the writes in the caller)",
                        func.name, callee.name
                    ),
                ));
            }
        }
    }
    Ok(())
}
