//! A rewrite of a function's Cranelift IR after inlining, before Cranelift's own optimisation,
//! that Cranelift does not make itself: it hoists no load out of a loop.

use std::collections::HashMap;

use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::flowgraph::ControlFlowGraph;
use cranelift_codegen::ir::{
    immediates::Offset32, types, Block, Function, InstBuilder, InstructionData, MemFlagsData,
    Opcode, Value, ValueDef,
};
use cranelift_codegen::loop_analysis::{Loop, LoopAnalysis};
use cranelift_codegen::Context;

/// Hoist the header loads (see [`hoist_header_loads`]) and the float constants of loops (see
/// [`opaque_loop_constants`]), on the function with its callees inlined.
pub(crate) fn run(ctx: &mut Context) {
    ctx.compute_cfg();
    ctx.compute_domtree();
    ctx.compute_loop_analysis();
    hoist_header_loads(&mut ctx.func, &ctx.cfg, &ctx.loop_analysis);
    opaque_loop_constants(&mut ctx.func, &ctx.loop_analysis);
}

/// Write each `f64const` inside a loop as the bit pattern `iconst.i64` cast to `f64`, the same
/// value: Cranelift rematerialises a float constant at every use (a `movabs` and a `vmovq` in
/// each iteration), but hoists the cast, a pure operation on a constant, out of the loop, so
/// the constant stays in a register.
fn opaque_loop_constants(func: &mut Function, loops: &LoopAnalysis) {
    let mut found = Vec::new();
    for block in func.layout.blocks() {
        if loops.innermost_loop(block).is_none() {
            continue;
        }
        for inst in func.layout.block_insts(block) {
            if let InstructionData::UnaryIeee64 {
                opcode: Opcode::F64const,
                imm,
            } = func.dfg.insts[inst]
            {
                found.push((inst, imm.bits()));
            }
        }
    }
    for (inst, bits) in found {
        let mut pos = FuncCursor::new(func).at_inst(inst);
        let c = pos.ins().iconst(types::I64, bits as i64);
        let v = pos.ins().bitcast(types::F64, MemFlagsData::new(), c);
        let out = func.dfg.first_result(inst);
        func.dfg.detach_inst_results(inst);
        func.dfg.change_to_alias(out, v);
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
