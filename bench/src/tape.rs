//! Tape bytes per loop iteration, read from the forward IR: the packed size of everything the
//! forward function pushes inside its loops.

use zy_codegen::layout::{packed_offsets, Layout};
use zy_ir::{Block, Function, Instance, Op, Prim, TypedProgram, ValueKind};

/// The bytes pushed onto AD stacks by one iteration of the loops of `inst`'s forward function
/// in `program` (zy-hir's `gradient` query's program). `None` if there is no forward
/// function or a pushed value has no machine layout.
pub fn bytes_per_iteration(program: &TypedProgram, inst: &Instance) -> Option<u32> {
    let forward = program
        .functions
        .get(&zy_ad::names::forward_instance(inst))?;
    // Pullback closures counted boxed (one pointer): the JIT may scalar-replace them instead.
    let layout = Layout::default();
    let mut total = 0;
    for b in forward.block_ids().filter(|&b| in_cycle(forward, b)) {
        for &v in &forward.block(b).stmts {
            let ValueKind::Stmt(s) = &forward.value(v).kind else {
                continue;
            };
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use zy_ir::{BlockCall, Operand, Span, Stmt, Terminator, Type};

    use super::*;

    /// `f⁺(x)`: pushes a `Tuple{Float64, Bool}` (9 bytes packed) in a loop body and a
    /// `Tuple{Float64, Float64}` once before the loop.
    fn program() -> (TypedProgram, Instance) {
        let inst = Instance {
            name: "f".into(),
            method: 0,
            args: Arc::from([Type::Float64]),
        };
        let span = Span::default();
        let mut f = Function::new("f⁺", span);
        let entry = Block::ENTRY;
        let x = f.add_param(entry, Type::Float64, span, None);
        let body_t = Type::tuple([Type::Float64, Type::Bool]);
        let once_t = Type::tuple([Type::Float64, Type::Float64]);
        let stk = f.push_stmt(
            entry,
            Stmt {
                op: Op::Prim(Prim::StackNew),
                args: vec![],
            },
            Type::Stack(Arc::new(body_t.clone())),
            span,
        );
        let once_stk = f.push_stmt(
            entry,
            Stmt {
                op: Op::Prim(Prim::StackNew),
                args: vec![],
            },
            Type::Stack(Arc::new(once_t.clone())),
            span,
        );
        let pair = f.push_stmt(
            entry,
            Stmt {
                op: Op::Prim(Prim::Tuple),
                args: vec![x.into(), x.into()],
            },
            once_t,
            span,
        );
        let push = |args: Vec<Operand>| Stmt {
            op: Op::Prim(Prim::Push),
            args,
        };
        f.push_stmt(
            entry,
            push(vec![once_stk.into(), pair.into()]),
            Type::Nothing,
            span,
        );
        let (header, body, exit) = (f.add_block(), f.add_block(), f.add_block());
        f.set_term(entry, Terminator::Jump(BlockCall::new(header)), span);
        let c = f.push_stmt(
            header,
            Stmt {
                op: Op::Prim(Prim::Lt),
                args: vec![x.into(), x.into()],
            },
            Type::Bool,
            span,
        );
        let then_to = BlockCall::new(body);
        f.set_term(
            header,
            Terminator::Branch {
                cond: c.into(),
                then_to,
                else_to: BlockCall::new(exit),
            },
            span,
        );
        let entry_val = f.push_stmt(
            body,
            Stmt {
                op: Op::Prim(Prim::Tuple),
                args: vec![x.into(), c.into()],
            },
            body_t,
            span,
        );
        f.push_stmt(
            body,
            push(vec![stk.into(), entry_val.into()]),
            Type::Nothing,
            span,
        );
        f.set_term(body, Terminator::Jump(BlockCall::new(header)), span);
        f.set_term(exit, Terminator::Return(x.into()), span);
        let mut program = TypedProgram::default();
        program
            .functions
            .insert(zy_ad::names::forward_instance(&inst), Arc::new(f));
        (program, inst)
    }

    #[test]
    fn counts_the_pushes_inside_loops_packed() {
        let (program, inst) = program();
        assert_eq!(bytes_per_iteration(&program, &inst), Some(9));
    }

    #[test]
    fn no_forward_function_is_none() {
        let (_, inst) = program();
        assert_eq!(bytes_per_iteration(&TypedProgram::default(), &inst), None);
    }
}
