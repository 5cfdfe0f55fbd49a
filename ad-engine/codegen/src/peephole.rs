//! Rewrites of a function's Cranelift IR after inlining, before Cranelift's own optimisation:
//! what only shows once the callees are in their caller (a pullback's seed is the constant 1.0
//! only inside the gradient driver), and what Cranelift does not do itself (it hoists no load
//! out of a loop).

use std::collections::HashMap;

use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::flowgraph::ControlFlowGraph;
use cranelift_codegen::isa::TargetIsa;
use cranelift_codegen::{CodegenResult, Context};
use cranelift_codegen::ir::{
    immediates::Offset32, Block, Function, InstBuilder, InstructionData, Opcode, Value,
    ValueDef,
};
use cranelift_codegen::loop_analysis::{Loop, LoopAnalysis};

/// Both rewrites, after Cranelift's removal of block parameters that receive one value (which
/// turns the seed a pullback's loop carries into the constant its caller passes).
pub(crate) fn run(ctx: &mut Context, isa: &dyn TargetIsa) -> CodegenResult<()> {
    ctx.compute_cfg();
    ctx.compute_domtree();
    ctx.remove_constant_phis(isa)?;
    fold_unit_products(&mut ctx.func);
    ctx.compute_loop_analysis();
    hoist_header_loads(&mut ctx.func, &ctx.cfg, &ctx.loop_analysis);
    Ok(())
}

/// `fmul x, 1.0` is `x` (IEEE 754 multiplication by one is exact, signed zeros and NaNs
/// included; LLVM folds it as well). The pullbacks' products with the seed of a gradient.
fn fold_unit_products(func: &mut Function) {
    let one = 1.0f64.to_bits();
    let is_one = |func: &Function, v: Value| match func.dfg.value_def(v) {
        ValueDef::Result(i, 0) => matches!(
            func.dfg.insts[i],
            InstructionData::UnaryIeee64 { opcode: Opcode::F64const, imm } if imm.bits() == one
        ),
        _ => false,
    };
    let mut folds = Vec::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            if let InstructionData::Binary {
                opcode: Opcode::Fmul,
                args: [a, b],
            } = func.dfg.insts[inst]
            {
                let kept = if is_one(func, a) {
                    b
                } else if is_one(func, b) {
                    a
                } else {
                    continue;
                };
                folds.push((inst, kept));
            }
        }
    }
    for (inst, kept) in folds {
        let kept = func.dfg.resolve_aliases(kept);
        let out = func.dfg.first_result(inst);
        func.dfg.detach_inst_results(inst);
        func.dfg.change_to_alias(out, kept);
        func.layout.remove_inst(inst);
    }
}

/// Move the loads the translator marked as array header words of a loop that cannot resize
/// any array (`can_move` without `readonly`, see `Translator::header`) to the preheader of
/// their innermost loop, when their array is defined outside it and the loop has one: one load
/// per array and word instead of one per iteration.
fn hoist_header_loads(func: &mut Function, cfg: &ControlFlowGraph, loops: &LoopAnalysis) {
    if loops.loops().next().is_none() {
        return;
    }
    let mut found = Vec::new();
    for block in func.layout.blocks() {
        let Some(lp) = loops.innermost_loop(block) else {
            continue;
        };
        for inst in func.layout.block_insts(block) {
            if let InstructionData::Load {
                opcode: Opcode::Load,
                arg,
                flags,
                offset,
            } = func.dfg.insts[inst]
            {
                let f = func.dfg.mem_flags[flags];
                if f.can_move() && !f.readonly() {
                    found.push((inst, lp, arg, offset));
                }
            }
        }
    }
    let mut hoisted: HashMap<(Loop, Value, Offset32), Value> = HashMap::new();
    for (inst, lp, addr, offset) in found {
        let addr = func.dfg.resolve_aliases(addr);
        let defined_in = match func.dfg.value_def(addr) {
            ValueDef::Result(i, _) => func.layout.inst_block(i),
            ValueDef::Param(b, _) => Some(b),
            _ => None,
        };
        if defined_in.is_none_or(|b| loops.is_in_loop(b, lp)) {
            continue;
        }
        let Some(pre) = preheader(func, cfg, loops, lp) else {
            continue;
        };
        let out = func.dfg.first_result(inst);
        let v = match hoisted.get(&(lp, addr, offset)) {
            Some(&v) => v,
            None => {
                let (ty, flags) = (
                    func.dfg.value_type(out),
                    func.dfg.insts[inst].memflags_data(&func.dfg),
                );
                let Some(flags) = flags else { continue };
                let Some(term) = func.layout.last_inst(pre) else {
                    continue;
                };
                let mut pos = FuncCursor::new(func).at_inst(term);
                let v = pos.ins().load(ty, flags, addr, offset);
                hoisted.insert((lp, addr, offset), v);
                v
            }
        };
        func.dfg.detach_inst_results(inst);
        func.dfg.change_to_alias(out, v);
        func.layout.remove_inst(inst);
    }
}

/// The block outside `lp` that is the only predecessor of its header from outside, and that
/// jumps only there.
fn preheader(
    func: &Function,
    cfg: &ControlFlowGraph,
    loops: &LoopAnalysis,
    lp: Loop,
) -> Option<Block> {
    let header = loops.loop_header(lp);
    let mut outside = cfg
        .pred_iter(header)
        .map(|p| p.block)
        .filter(|b| !loops.is_in_loop(*b, lp));
    let pre = outside.next()?;
    if outside.any(|b| b != pre) || cfg.succ_iter(pre).any(|s| s != header) {
        return None;
    }
    func.layout.last_inst(pre).map(|_| pre)
}
