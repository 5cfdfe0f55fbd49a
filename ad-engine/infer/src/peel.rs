//! Peeling the first iteration of a loop whose carried number changes type. `r = 1; for i in
//! 1:n; r *= x; end` carries Julia's `Union{Float64, Int64}` around the loop: the Int `1` on
//! entry, the Float64 `r * x` after a step. Julia keeps the union (and splits each call on
//! it); zy copies the first iteration before the loop, so that the copy takes the entry's
//! types and the loop itself only the Float64s its body makes: the loop is concrete (compiled
//! code and gradients as fast as with `r = 1.0`), and the union remains only where the loop
//! ran no iteration and its exit joins the two (`pow(x, 0)` is the Int `1`, as Julia's).

use zy_ir::cfg::Dominators;
use zy_ir::{Block, BlockCall, Function, Operand, Terminator, Type};

/// `body` with the first iteration of one loop peeled, if a loop's header has a parameter of a
/// union of numbers that every back edge passes as one concrete type (the union comes from
/// the entry alone), given the types of inference's fixpoint.
pub(crate) fn peel(body: &Function, ty: &[Type], reach: &[bool]) -> Option<Function> {
    let doms = Dominators::new(body);
    let operand_ty = |op: &Operand| match op {
        Operand::Value(v) => ty[v.index()].clone(),
        Operand::Const(c) => c.ty(),
    };
    // The jumps into each block, in block order: a back edge to a header is one from a block
    // it dominates (looked up per header, scanning every block made nested `if`s cubic).
    let mut jumps_into: Vec<Vec<(Block, &BlockCall)>> = vec![Vec::new(); body.blocks.len()];
    for b in body.block_ids().filter(|b| reach[b.index()]) {
        for call in body.block(b).term.calls() {
            if let Some(into) = jumps_into.get_mut(call.block.index()) {
                into.push((b, call));
            }
        }
    }
    for header in body.block_ids().filter(|b| reach[b.index()]) {
        let Terminator::Branch { else_to, .. } = &body.block(header).term else {
            continue;
        };
        let back: Vec<&BlockCall> = jumps_into[header.index()]
            .iter()
            .filter(|(b, _)| doms.dominates(header, *b))
            .map(|(_, call)| *call)
            .collect();
        if back.is_empty() {
            continue;
        }
        let params = &body.block(header).params;
        let carried = params.iter().enumerate().any(|(i, p)| {
            matches!(ty[p.index()], Type::Union(_))
                && ty[p.index()].is_real()
                && back.iter().all(|call| {
                    let t = call.args.get(i).map(operand_ty);
                    t.as_ref().is_some_and(Type::is_number)
                        && t == back[0].args.get(i).map(operand_ty)
                })
        });
        if carried {
            if let Some(peeled) = crate::unroll::peel(body, header, else_to.block) {
                return Some(peeled);
            }
        }
    }
    None
}
