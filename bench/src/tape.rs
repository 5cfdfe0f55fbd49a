//! Tape bytes per loop iteration, read from the forward IR: the packed size of everything the
//! forward function pushes inside its loops.

use zy_codegen::layout::{packed_offsets, Layout};
use zy_ir::{Block, Function, Instance, Op, Prim, TypedProgram, ValueKind};

/// The bytes pushed onto AD stacks by one iteration of the loops of `inst`'s forward function
/// in `program` (a program made by `zy_ad::gradient_program`). `None` if there is no forward
/// function or a pushed value has no machine layout.
pub fn bytes_per_iteration(program: &TypedProgram, inst: &Instance) -> Option<u32> {
    let forward = program.functions.get(&zy_ad::names::forward_instance(inst))?;
    // Pullback closures counted boxed (one pointer): the JIT may scalar-replace them instead.
    let layout = Layout::default();
    let mut total = 0;
    for b in forward.block_ids().filter(|&b| in_cycle(forward, b)) {
        for &v in &forward.block(b).stmts {
            let ValueKind::Stmt(s) = &forward.value(v).kind else { continue };
            if s.op == Op::Prim(Prim::Push) {
                let pushed = forward.operand_ty(s.args.get(1)?);
                total += packed_offsets(&layout.slots(&pushed).ok()?).1;
            }
        }
    }
    Some(total)
}

/// Can control leave `b` and come back to it?
fn in_cycle(f: &Function, start: Block) -> bool {
    let mut seen = vec![false; f.blocks.len()];
    let mut todo = f.block(start).term.successors();
    while let Some(b) = todo.pop() {
        if b == start {
            return true;
        }
        if !std::mem::replace(&mut seen[b.index()], true) {
            todo.extend(f.block(b).term.successors());
        }
    }
    false
}
