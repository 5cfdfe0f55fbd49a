//! The adjoint transform of one typed function into a forward function `f⁺` and a pullback
//! function `f⁻` (Mooncake's structure, the Zygote paper's CFG reversal).
//!
//! Forward: the primal CFG, each statement replaced by its rule's forward fragment; a block with
//! several predecessors gets a `br#` parameter recording which one jumped to it. Each block's
//! residuals (and `br#`) are kept: in slot variables threaded to the exit when the block runs at
//! most once, pushed as one tuple per execution on the block's stack (`stk#`) when it is in a
//! loop. Values defined outside every loop always go in slots. A slot needs a φ at every join
//! between its block and the exit, so the `br#` of a once-run join nested deeper than
//! [`SLOT_DEPTH`] goes instead on one `Int64` stack (`brs`) shared by all such joins: pushed
//! when the join runs, popped by its reverse block (the pullback runs them in the reverse
//! order), which keeps n nested `if`s linear. The exit returns `(y, y_f, make_pullback(tape))`.
//!
//! Pullback: one reverse block per primal block, starting from the exit's; each pops or loads its
//! residuals, runs the reverse fragments backwards, passes φ gradients to the jump operands of
//! the predecessor taken, and branches to that predecessor's reverse block. Gradients are
//! builder variables, accumulated with `+`/`accum` and reset after a definition in a loop.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};
use zy_ir::{
    Block, BlockCall, Const, Function, Instance, Op, Operand, Prim, Span, SsaBuilder, Stmt,
    Terminator, Type, Value, ValueKind, Var, VarInit,
};

use crate::activity::Activity;
use crate::cfg::{in_loop, loop_span, reaches, reaches_from, single_exit};
use crate::globals::GlobalShadows;
use crate::mask::{ArgMask, Vary};
use crate::names;
use crate::rules::{self, Callees, Emit, FwdStmt, RevStmt};
use crate::tangent::{fdata_type, has_fdata, has_rdata, rdata_type};
use crate::AdError;

/// How many φs a once-run join's `br#` slot may need before the record goes on the shared
/// branch stack instead (see the module's doc).
const SLOT_DEPTH: usize = 4;

/// The two functions produced for one instance.
pub struct Adjoint {
    pub forward: Function,
    pub pullback: Function,
    /// User functions called on the active path, with the arguments active at the calls:
    /// their adjoints are needed too.
    pub callees: Vec<(Arc<Instance>, ArgMask)>,
}

/// Per primal block: the residuals (forward values) its reverse reads, and their homes.
#[derive(Default, Clone)]
struct BlockTape {
    residuals: Vec<Value>,
    /// Residuals pushed per execution (blocks in loops).
    pushed: Vec<Value>,
    /// Stack value (forward entry) and its tape position, if the block pushes.
    stack: Option<(Value, usize)>,
    /// The `br#` parameter, for blocks with several predecessors.
    branch: Option<Value>,
    /// Residuals the pullback recomputes from the others, in forward order ([`crate::remat`]).
    remat: Vec<Value>,
    /// Induction variables of an enclosing counted loop the pullback computes from its
    /// iteration counter ([`Forward::induction`]).
    induced: Vec<Value>,
    /// For a loop header entered at most once per call: the iteration counter parameter
    /// (`iter#`), kept in a slot instead of recording the predecessor on every iteration.
    counter: Option<Value>,
}

/// What the transform of one instance knows beyond its body: which of its arguments are
/// active, and which callees take another adjoint than one per mask.
pub struct Setting<'a> {
    /// The arguments differentiated (an adjoint is built per instance and mask, see
    /// [`ArgMask`]): an inactive one is a constant of the body and gets `nothing` from the
    /// pullback.
    pub mask: ArgMask,
    /// Callees whose adjoint is fixed for all their arguments (an in-source `rrule`, a
    /// checkpointed call): called with every argument active.
    pub fixed: &'a dyn Fn(&Instance) -> bool,
    /// Whether a callee may write an object it did not make: an array made from constants
    /// passed to one that does not, and returns a number, is inactive in its adjoint.
    pub writes: &'a mut dyn FnMut(&Arc<Instance>) -> bool,
    /// Whether a callee returns an array it allocated: one that writes nothing, reads no global
    /// and is given only constants returns a constant array.
    pub fresh: &'a mut dyn FnMut(&Arc<Instance>) -> bool,
}

/// Transform `func`, the body of `inst`, in a program whose functions reach the globals
/// `globals` says, every argument active and every callee called with all of its arguments
/// active.
pub fn adjoint(
    inst: &Arc<Instance>,
    func: &Function,
    globals: &GlobalShadows,
) -> Result<Adjoint, AdError> {
    let setting = Setting {
        mask: ArgMask::ALL,
        fixed: &|_| true,
        writes: &mut |_| true,
        fresh: &mut |_| false,
    };
    adjoint_with(inst, func, globals, setting, false)
}

/// [`adjoint`] as `setting` says (`inst` names the adjoint: [`names::masked`] for a mask
/// other than all); with `trace`, the forward function taps the value and the pullback the
/// adjoint of every active variable with a source name (`tap`, [`Prim::Tap`]) for the gradient
/// debugger's watched run.
pub fn adjoint_with(
    inst: &Arc<Instance>,
    func: &Function,
    globals: &GlobalShadows,
    setting: Setting<'_>,
    trace: bool,
) -> Result<Adjoint, AdError> {
    reject_nested(func)?;
    reject_irreducible(func)?;
    globals.check(inst, func)?;
    let mut primal = func.clone();
    crate::simplify::renumber(&mut primal);
    let (f, exit) = single_exit(&primal)?;
    let act = globals.activity_masked(&f, setting.mask);
    let reads_globals = |c: &Instance| !globals.reached(c).is_empty();
    let carries = crate::activity::carried_across_calls(
        &f,
        &act,
        &reads_globals,
        setting.mask,
        setting.writes,
        setting.fresh,
    );
    let mut cx = Cx::new(&f, exit, act, globals);
    cx.trace = trace;
    cx.carries = carries;
    cx.mask = setting.mask;
    cx.fixed = setting.fixed;
    let mut callees = Callees {
        wanted: Vec::new(),
        globals,
        global_shadows: FxHashMap::default(),
    };
    let fw = forward_pass(&cx, inst, &mut callees)?;
    let pullback = pullback_pass(&cx, inst, &fw)?;
    let mut forward = fw.func;
    let mut pullback = pullback;
    zy_ir::debug_verify(&forward, "the adjoint transform");
    zy_ir::debug_verify(&pullback, "the adjoint transform");
    crate::simplify::simplify_forward(&mut forward);
    crate::simplify::simplify(&mut pullback);
    Ok(Adjoint {
        forward,
        pullback,
        callees: callees.wanted,
    })
}

/// Differentiating code that itself differentiates (the transform's own output, or user calls
/// of `gradient` and friends) is not supported yet: say so rather than cut the gradient.
fn reject_nested(func: &Function) -> Result<(), AdError> {
    use Prim::*;
    for b in func.block_ids() {
        for &v in &func.block(b).stmts {
            if let Some(Op::Prim(
                p @ (MakePullback | CallPullback | Gradient | Derivative | PullbackOf | Hessian
                | Pushforward | Jvp | Hvp | PushforwardChunk),
            )) = func.stmt(v).map(|s| &s.op)
            {
                // The statement may come from inlined library code: name the function.
                let mut e = AdError::new(
                    func.span,
                    format!("cannot differentiate `{}`: nested differentiation (`{p}` inside differentiated code, as when the inner gradient runs a recursive function) is not supported yet; `hessian` and `hvp` compute second derivatives by forward over reverse", func.name),
                );
                e.nested_reverse = matches!(p, MakePullback | CallPullback);
                return Err(e);
            }
        }
    }
    Ok(())
}

/// The reverse of a `return` or `break` out of a loop nest enters the reversed outer loop in
/// its middle: a cycle with two entries, which the loop reversal here cannot take. It arises
/// only when a pullback is differentiated again (second derivatives by reverse over reverse):
/// refuse it by name rather than reverse it wrongly.
fn reject_irreducible(func: &Function) -> Result<(), AdError> {
    if zy_ir::cfg::is_reducible(func) {
        return Ok(());
    }
    let mut e = AdError::new(
        func.span,
        format!(
            "cannot differentiate `{}` again: its pullback leaves a loop nest early (a `return` or `break` out of an inner loop), and reverse over reverse of such a pullback is not supported yet; `hessian` and `hvp` (forward over reverse) take it",
            func.name
        ),
    );
    e.nested_reverse = true;
    Err(e)
}

/// Facts about the primal shared by both passes.
struct Cx<'f> {
    f: &'f Function,
    exit: Block,
    act: Activity,
    looped: Vec<bool>,
    live: Vec<bool>,
    preds: Vec<Vec<Block>>,
    /// Blocks in reverse post-order that reach the exit.
    order: Vec<Block>,
    /// Once-run joins whose `br#` record goes on the shared branch stack ([`SLOT_DEPTH`]).
    stacked: Vec<bool>,
    /// Loop headers entered at most once per call, from one block outside the loop, with one
    /// back edge: `(outside predecessor, latch)`. Their reverse counts iterations down.
    counted: Vec<Option<(Block, Block)>>,
    globals: &'f GlobalShadows,
    /// Whether to tap named variables' values and adjoints ([`adjoint_with`]).
    trace: bool,
    /// Per value: which parts of it carry a gradient to a call
    /// ([`crate::activity::carried_across_calls`]).
    carries: Vec<Vary>,
    /// The arguments differentiated.
    mask: ArgMask,
    /// Callees called with every argument active ([`Setting::fixed`]).
    fixed: &'f dyn Fn(&Instance) -> bool,
}

impl<'f> Cx<'f> {
    fn new(f: &'f Function, exit: Block, act: Activity, globals: &'f GlobalShadows) -> Cx<'f> {
        let looped = in_loop(f);
        let live = reaches(f, exit);
        let preds = f.predecessors();
        let rpo = f.reverse_postorder();
        let order: Vec<Block> = rpo.iter().copied().filter(|b| live[b.index()]).collect();
        let counted = f
            .block_ids()
            .map(|h| match preds[h.index()].as_slice() {
                [a, b]
                    if looped[h.index()]
                        && live[h.index()]
                        && rpo.contains(a)
                        && rpo.contains(b) =>
                {
                    let inside = |q: Block| reaches(f, h)[q.index()] && reaches_from(f, h, q);
                    match (inside(*a), inside(*b)) {
                        (false, true) if !looped[a.index()] => Some((*a, *b)),
                        (true, false) if !looped[b.index()] => Some((*b, *a)),
                        _ => None,
                    }
                }
                _ => None,
            })
            .collect();
        let far = crate::cfg::frontier_deeper_than(f, SLOT_DEPTH);
        let stacked = f
            .block_ids()
            .map(|b| {
                let i = b.index();
                far[i] && live[i] && !looped[i] && preds[i].len() > 1
            })
            .collect();
        Cx {
            f,
            exit,
            act,
            looped,
            live,
            preds,
            order,
            stacked,
            counted,
            globals,
            trace: false,
            carries: Vec::new(),
            mask: ArgMask::ALL,
            fixed: &|_| true,
        }
    }

    /// The source name of `v` if it is tapped: a traced adjoint, an active variable with a
    /// gradient, named in the source (not generated code's `#` names). Its adjoint is its
    /// gradient variable, or its forward shadow (arrays, which have no gradient variable).
    fn tapped(&self, v: Value) -> Option<&zy_ir::Name> {
        let d = self.f.value(v);
        let name = d.name.as_ref()?;
        let source =
            name.starts_with(|c: char| c.is_alphabetic() || c == '_') && !name.contains('#');
        let one_kind = has_rdata(&d.ty) != has_fdata(&d.ty);
        let tapped = self.trace && source && one_kind && self.act.is_active(v);
        (tapped && !self.rejoins_itself(v)).then_some(name)
    }

    /// Whether `v` is a φ whose every incoming value is (up to `union_convert`) one of its own
    /// definition, at its span with its name: the exit of a loop whose first iteration is
    /// peeled joins the two copies of the loop's `r`. Tapping it would show again a value the
    /// definition's row already holds, as one more run.
    fn rejoins_itself(&self, v: Value) -> bool {
        let d = self.f.value(v);
        let ValueKind::Param { block, index } = d.kind else {
            return false;
        };
        let own = |op: &Operand| {
            let mut x = op.as_value();
            while let Some(s) = x.and_then(|x| self.f.stmt(x)) {
                match (&s.op, s.args.as_slice()) {
                    (Op::Prim(Prim::UnionConvert), [a]) => x = a.as_value(),
                    _ => break,
                }
            }
            x.is_some_and(|x| {
                let xd = self.f.value(x);
                x != v && xd.span == d.span && xd.name == d.name
            })
        };
        let mut incoming = self.preds[block.index()]
            .iter()
            .flat_map(|&p| self.f.block(p).term.calls())
            .filter(|c| c.block == block)
            .map(|c| c.args.get(index as usize))
            .peekable();
        block != Block::ENTRY && incoming.peek().is_some() && incoming.all(|a| a.is_some_and(own))
    }

    fn is_stmt_active(&self, v: Value) -> bool {
        let Some(s) = self.f.stmt(v) else {
            return false;
        };
        // Calls may mutate their arguments: they are effects too. A call that reaches a global
        // object may write it: its writes must be recorded and undone like this function's.
        let effect = matches!(s.op, Op::Prim(p) if p.has_effect()) || matches!(s.op, Op::Invoke(_));
        let feeds = s.args.iter().any(|a| {
            a.as_value()
                .is_some_and(|x| self.act.values[x.index()].varied)
        });
        let globals = matches!(&s.op, Op::Invoke(c) if !self.globals.reached(c).is_empty());
        // A primitive without effects whose operands all carry nothing (a constant matrix's
        // `inv(A)`, `A[i, j]`, `det(A)`) needs no reverse: its gradient would go to constants.
        let constant = match s.op {
            Op::Prim(p) => {
                !p.has_effect() && !s.args.is_empty() && !s.args.iter().any(|a| self.carries(a))
            }
            _ => false,
        };
        // A write into an array, a mutable struct or a `Ref` is recorded and undone even of
        // values that do not vary: an earlier statement's pullback may read the object.
        (self.act.is_active(v) && !constant)
            || (effect && feeds)
            || globals
            || (effect
                && matches!(
                    s.op,
                    Op::Prim(Prim::SetIndex | Prim::SetLength | Prim::SetField | Prim::RefSet)
                ))
    }

    /// Does `a` depend differentiably on a differentiated argument, an array built from
    /// constants only counting as a constant?
    fn carries(&self, a: &Operand) -> bool {
        self.carried(a).any()
    }

    /// Which parts of `a` depend differentiably on a differentiated argument (see
    /// [`Cx::carries`]).
    fn carried(&self, a: &Operand) -> Vary {
        match a.as_value() {
            Some(x) => self.carries.get(x.index()).cloned().unwrap_or(Vary::Yes),
            None => Vary::No,
        }
    }

    /// The parts of the arguments of the call `v` active at it: those that carry a gradient,
    /// field by field, or all for a callee whose adjoint is fixed ([`Setting::fixed`]); all for
    /// any other statement.
    fn call_mask(&self, v: Value) -> ArgMask {
        match self.f.stmt(v) {
            Some(Stmt {
                op: Op::Invoke(c),
                args,
            }) if !(self.fixed)(c) => {
                let tys: Vec<Type> = args.iter().map(|a| self.f.operand_ty(a)).collect();
                ArgMask::of(&tys, |i| self.carried(&args[i]))
            }
            _ => ArgMask::ALL,
        }
    }

    fn multi_pred(&self, b: Block) -> bool {
        self.preds[b.index()].len() > 1
    }
}

/// The finished forward function with what the pullback needs to know about it.
struct Forward {
    func: Function,
    tapes: Vec<BlockTape>,
    /// Residuals kept in slots, by their position in the tape tuple.
    slots: FxHashMap<Value, usize>,
    /// The position in the tape tuple of the shared stack of `br#` records, if any join uses it.
    branch_stack: Option<usize>,
    /// Primal statement -> its rule's residuals (forward side).
    residual_of: FxHashMap<Value, Vec<Operand>>,
    tape_ty: Type,
    /// Tapped primal values with a shadow -> the shadow, a residual of their block.
    tapped_shadows: FxHashMap<Value, Value>,
    /// Integer parameters of counted loop headers that start at a constant and grow by one per
    /// iteration: forward parameter -> (header, start, step). In iteration `k` (from 0) the
    /// parameter is `start + step * k`.
    induction: FxHashMap<Value, (Block, i64, i64)>,
}

impl Forward {
    /// The shadow of the tapped primal value `v` in a reverse block whose residuals are `res`.
    fn tapped_shadow(&self, res: &FxHashMap<Value, Operand>, v: Value) -> Option<Operand> {
        res.get(self.tapped_shadows.get(&v)?).cloned()
    }
}

fn forward_pass(
    cx: &Cx,
    inst: &Arc<Instance>,
    callees: &mut Callees<'_>,
) -> Result<Forward, AdError> {
    let f = cx.f;
    let fwd_inst = names::forward_instance(inst);
    let mut out = Function::new(fwd_inst.name.clone(), f.span);
    out.instance = Some(fwd_inst);
    out.arg_names = f.arg_names.clone();
    let mut map: FxHashMap<Value, Operand> = FxHashMap::default();
    let mut shadow: FxHashMap<Value, Operand> = FxHashMap::default();
    for &a in f.args() {
        let d = f.value(a);
        let fa = out.add_param(Block::ENTRY, d.ty.clone(), d.span, d.name.clone());
        map.insert(a, fa.into());
        if has_fdata(&d.ty) {
            let name = d.name.as_ref().map(|n| format!("{n}_f").into());
            let s = out.add_param(Block::ENTRY, fdata_type(&d.ty), d.span, name);
            shadow.insert(a, s.into());
        }
    }
    for (name, ty) in cx.globals.reached(inst) {
        let s = out.add_param(
            Block::ENTRY,
            fdata_type(ty),
            Span::default(),
            Some(format!("{name}_f").into()),
        );
        callees.global_shadows.insert(name.clone(), s.into());
    }
    for _ in 1..f.blocks.len() {
        out.add_block();
    }
    let mut tapes = vec![BlockTape::default(); f.blocks.len()];
    for b in f.block_ids().skip(1) {
        for &p in &f.block(b).params {
            let d = f.value(p);
            let fp = out.add_param(b, d.ty.clone(), d.span, d.name.clone());
            map.insert(p, fp.into());
            if has_fdata(&d.ty) {
                let s = out.add_param(b, fdata_type(&d.ty), d.span, None);
                shadow.insert(p, s.into());
            }
        }
        if cx.counted[b.index()].is_some() {
            let name = format!("iter{b}").into();
            tapes[b.index()].counter =
                Some(out.add_param(b, Type::Int64, Span::default(), Some(name)));
        } else if cx.live[b.index()] && cx.multi_pred(b) {
            let name = format!("br{b}").into();
            tapes[b.index()].branch =
                Some(out.add_param(b, Type::Int64, Span::default(), Some(name)));
        }
    }
    let induction = induction_vars(cx, &map);
    let mut sb = SsaBuilder::new(out);
    let mut residual_of: FxHashMap<Value, Vec<Operand>> = FxHashMap::default();
    let mut slot_vars: FxHashMap<Value, Var> = FxHashMap::default();
    let mut slots: FxHashMap<Value, usize> = FxHashMap::default();
    let mut slot_order: Vec<Value> = Vec::new();
    let mut tapped_shadows: FxHashMap<Value, Value> = FxHashMap::default();
    let mut stacked_branches: Vec<(Block, Value)> = Vec::new();
    let reads_ok = crate::remat::writes_nothing(f);
    for b in f.reverse_postorder() {
        let data = f.block(b);
        for &p in &data.params {
            if let (Some(name), Some(x)) = (cx.tapped(p), map.get(&p)) {
                tap(&mut sb, b, f.value(p).span, "primal", name, x.clone());
                if let Some(sh) = shadow.get(&p).and_then(Operand::as_value) {
                    tapes[b.index()].residuals.push(sh);
                    tapped_shadows.insert(p, sh);
                }
            }
        }
        for &v in &data.stmts {
            let d = f.value(v);
            let Some(s) = f.stmt(v) else { continue };
            let fs = FwdStmt {
                op: &s.op,
                args: s.args.iter().map(|a| mapped(&map, a)).collect(),
                shadows: s
                    .args
                    .iter()
                    .map(|a| a.as_value().and_then(|x| shadow.get(&x).cloned()))
                    .collect(),
                arg_tys: s.args.iter().map(|a| f.operand_ty(a)).collect(),
                ty: d.ty.clone(),
                active: cx.live[b.index()] && cx.is_stmt_active(v),
                varied: s.args.iter().map(|a| cx.carries(a)).collect(),
                mask: cx.call_mask(v),
            };
            let active = fs.active;
            let mut e = Emit {
                bcast: None,
                b: &mut sb,
                block: b,
                span: d.span,
            };
            let r = rules::forward(&mut e, fs, callees)?;
            if let Operand::Value(fv) = r.value {
                if sb.func.values[fv.index()].name.is_none() {
                    sb.func.values[fv.index()].name = d.name.clone();
                }
            }
            if let (Some(name), true) = (cx.tapped(v), active) {
                tap(&mut sb, b, d.span, "primal", name, r.value.clone());
                if let Some(sh) = r.shadow.as_ref().and_then(Operand::as_value) {
                    tapes[b.index()].residuals.push(sh);
                    tapped_shadows.insert(v, sh);
                }
            }
            map.insert(v, r.value);
            if let Some(sh) = r.shadow {
                shadow.insert(v, sh);
            }
            if active {
                for rv in r.residuals.iter().filter_map(Operand::as_value) {
                    if !tapes[b.index()].residuals.contains(&rv) {
                        tapes[b.index()].residuals.push(rv);
                    }
                }
                residual_of.insert(v, r.residuals);
            }
        }
        if let Some(br) = tapes[b.index()].branch {
            if cx.stacked[b.index()] {
                stacked_branches.push((b, br));
            } else {
                tapes[b.index()].residuals.push(br);
            }
        }
        // In a loop, what is cheap to recompute is not kept.
        if cx.looped[b.index()] {
            // An induction variable of a loop this block is in costs nothing to keep.
            let induced = |v: Value| {
                induction
                    .get(&v)
                    .is_some_and(|&(h, ..)| h != b && in_loop_of(f, h, b))
            };
            let looped =
                |v: Value| !induced(v) && cx.looped[forward_def_block(&sb.func, v).index()];
            let tb = &mut tapes[b.index()];
            (tb.residuals, tb.remat) =
                crate::remat::split(&sb.func, b, &tb.residuals, &looped, reads_ok);
            tb.induced = tb
                .residuals
                .iter()
                .copied()
                .filter(|&v| induced(v))
                .collect();
            tb.residuals.retain(|&v| !induced(v));
        }
        // Homes of this block's residuals: per-execution ones on its stack.
        for rv in tapes[b.index()].residuals.clone() {
            let def = forward_def_block(&sb.func, rv);
            if cx.looped[b.index()] && cx.looped[def.index()] {
                tapes[b.index()].pushed.push(rv);
            } else if let std::collections::hash_map::Entry::Vacant(slot) = slot_vars.entry(rv) {
                let ty = sb.func.ty(rv).clone();
                let init = slot_init(&ty);
                let var = sb.declare_var_with_init(ty, None, init);
                sb.def_var(def, var, rv);
                slot.insert(var);
                slot_order.push(rv);
            }
        }
        // A counted header's iteration count is kept in a slot (its last value is the count).
        if let Some(cnt) = tapes[b.index()].counter {
            let var = sb.declare_var_with_init(Type::Int64, None, VarInit::Const(Const::Int(0)));
            sb.def_var(b, var, cnt);
            slot_vars.insert(cnt, var);
            slot_order.push(cnt);
        }
        // Terminator; a latch counts the iteration it ends.
        let mut incs: FxHashMap<Block, Operand> = FxHashMap::default();
        for t in data.term.successors() {
            if let (Some((_, latch)), Some(cnt)) = (cx.counted[t.index()], tapes[t.index()].counter)
            {
                if latch == b {
                    let mut e = Emit {
                        bcast: None,
                        b: &mut sb,
                        block: b,
                        span: Span::default(),
                    };
                    incs.insert(
                        t,
                        e.prim(
                            Prim::Add,
                            vec![cnt.into(), Const::Int(1).into()],
                            Type::Int64,
                        ),
                    );
                }
            }
        }
        let empties = empty_union_shadows(cx, &mut sb, b, &shadow);
        let call = |c: &BlockCall| fwd_call(cx, f, b, c, &map, &shadow, &incs, &empties);
        // The forward function installs the same handlers; the edge into a handler passes the
        // predecessor index as any jump does.
        let term = data.term.map(&|x| mapped(&map, x), &call);
        sb.func.set_term(b, term, data.term_span);
    }
    // Stacks: created in the entry, one push per execution at the end of the block.
    let mut tape_parts: Vec<Operand> = Vec::new();
    let mut tape_tys: Vec<Type> = Vec::new();
    for (i, &rv) in slot_order.iter().enumerate() {
        let var = slot_vars[&rv];
        slots.insert(rv, i);
        let val = sb.use_var(cx.exit, var);
        tape_tys.push(sb.func.ty(rv).clone());
        tape_parts.push(val);
    }
    for b in cx.order.iter().copied() {
        let pushed = tapes[b.index()].pushed.clone();
        if pushed.is_empty() {
            continue;
        }
        let elem = Type::tuple(pushed.iter().map(|v| sb.func.ty(*v).clone()));
        let sty = Type::Stack(Arc::new(elem.clone()));
        let stk = new_stack(&mut sb, sty.clone(), format!("stk{b}"));
        let args = pushed.iter().map(|v| Operand::Value(*v)).collect();
        // The push carries the loop's span: a tape past the memory limit is reported there.
        let mut e = Emit {
            bcast: None,
            b: &mut sb,
            block: b,
            span: loop_span(cx.f, b),
        };
        let alpha = e.prim(Prim::Tuple, args, elem);
        if let Operand::Value(a) = alpha {
            e.b.func.values[a.index()].name = Some(format!("α{b}").into());
        }
        e.prim(Prim::Push, vec![stk.into(), alpha], Type::Nothing);
        tapes[b.index()].stack = Some((stk, tape_parts.len()));
        tape_tys.push(sty);
        tape_parts.push(stk.into());
    }
    // The shared stack of deep joins' `br#` records, one push as each join runs.
    let mut branch_stack = None;
    if !stacked_branches.is_empty() {
        let sty = Type::Stack(Arc::new(Type::Int64));
        let stk = new_stack(&mut sb, sty.clone(), "brs".to_string());
        for (b, br) in stacked_branches {
            let mut e = Emit {
                bcast: None,
                b: &mut sb,
                block: b,
                span: f.block(b).term_span,
            };
            e.prim(Prim::Push, vec![stk.into(), br.into()], Type::Nothing);
        }
        branch_stack = Some(tape_parts.len());
        tape_tys.push(sty);
        tape_parts.push(stk.into());
    }
    // The exit returns (y, y_f, back).
    let Terminator::Return(y) = sb.func.block(cx.exit).term.clone() else {
        return Err(AdError::new(
            f.span,
            "internal: the exit block does not return",
        ));
    };
    let ret_ty = names::forward_ret(inst, &f.ret);
    let tape_ty = Type::tuple(tape_tys);
    let span = f.block(cx.exit).term_span;
    let mut e = Emit {
        bcast: None,
        b: &mut sb,
        block: cx.exit,
        span,
    };
    let tape = e.prim(Prim::Tuple, tape_parts, tape_ty.clone());
    let pb = names::pullback_instance(inst);
    let back_args = vec![
        Const::Func(pb.name.clone()).into(),
        Const::Int(i64::from(pb.method)).into(),
        tape,
    ];
    let back = e.prim(
        Prim::MakePullback,
        back_args,
        Type::Pullback(pb.args.clone()),
    );
    let mut parts = vec![y.clone()];
    if has_fdata(&f.ret) {
        let primal_y = match &f.block(cx.exit).term {
            Terminator::Return(x) => x.clone(),
            _ => Const::Nothing.into(),
        };
        let ys = match primal_y.as_value().and_then(|v| shadow.get(&v).cloned()) {
            Some(s) => s,
            None => e
                .zero_fdata(y.clone(), &f.ret)
                .unwrap_or(Const::Nothing.into()),
        };
        parts.push(ys);
    }
    parts.push(back);
    let r = e.prim(Prim::Tuple, parts, ret_ty.clone());
    sb.func.set_term(cx.exit, Terminator::Return(r), span);
    sb.func.ret = ret_ty;
    let func = sb.finish();
    Ok(Forward {
        func,
        tapes,
        slots,
        branch_stack,
        residual_of,
        tape_ty,
        tapped_shadows,
        induction,
    })
}

/// A new stack of type `ty` named `name`, made first thing in the entry.
fn new_stack(sb: &mut SsaBuilder, ty: Type, name: String) -> Value {
    let stk = sb.func.push_stmt(
        Block::ENTRY,
        Stmt {
            op: Op::Prim(Prim::StackNew),
            args: vec![],
        },
        ty,
        Span::default(),
    );
    sb.func.values[stk.index()].name = Some(name.into());
    let stmts = &mut sb.func.block_mut(Block::ENTRY).stmts;
    stmts.pop();
    stmts.insert(0, stk);
    stk
}

/// What a slot holds on paths where its block did not run: never read by the pullback, but a
/// well-formed value of the slot's type where one is cheap to make, so the tape is a plain
/// tuple; `undef` otherwise.
fn slot_init(ty: &Type) -> VarInit {
    let stmt = |p: Prim, args: Vec<Operand>| {
        VarInit::Stmt(Stmt {
            op: Op::Prim(p),
            args,
        })
    };
    match ty {
        Type::Float64 => VarInit::Const(Const::f64(0.0)),
        Type::Float32 => VarInit::Const(Const::f32(0.0)),
        Type::Int64 => VarInit::Const(Const::Int(0)),
        Type::Bool => VarInit::Const(Const::Bool(false)),
        Type::Nothing => VarInit::Const(Const::Nothing),
        // An empty array of the slot's number of dimensions.
        Type::Array(_, n) => stmt(Prim::Zeros, vec![Const::Int(0).into(); usize::from(*n)]),
        Type::Pullback(_) => stmt(
            Prim::MakePullback,
            vec![
                Const::Func("unreached".into()).into(),
                Const::Int(0).into(),
                Const::Nothing.into(),
            ],
        ),
        Type::Ref(_) | Type::Tuple(_) | Type::NamedTuple(_) => stmt(Prim::ZeroTangent, vec![]),
        // A value of an abstract type (the old value of a field `s::Shape` a path overwrote):
        // no member held, the tag compiled code reads as unset.
        Type::Union(_) => stmt(Prim::ZeroTangent, vec![]),
        // The old value of a field a `catch` stores its exception into (compiled code holds no
        // `undef` of it).
        Type::Exception => stmt(
            Prim::ExceptionNew,
            vec![
                Const::Symbol("ErrorException".into()).into(),
                Const::Str("".into()).into(),
            ],
        ),
        _ => stmt(Prim::Undef, vec![Const::Symbol("slot".into()).into()]),
    }
}

/// Whether `op` is the value of a local on a path where it is not assigned (`undef`).
fn is_undef(f: &Function, op: &Operand) -> bool {
    op.as_value()
        .and_then(|v| f.stmt(v))
        .is_some_and(|s| s.op == Op::Prim(Prim::Undef))
}

fn mapped(map: &FxHashMap<Value, Operand>, op: &Operand) -> Operand {
    match op {
        Operand::Value(v) => map.get(v).cloned().unwrap_or(op.clone()),
        c => c.clone(),
    }
}

/// The shadows of φ arguments out of block `b` that have none (a number, or a constant, passed
/// to a local of a union with an array member: `Union{Float64, Vector{Float64}}`), keyed by
/// the target block and the parameter's index: `nothing` tagged as the union's shadow, made at
/// the end of `b`, where the jump's arguments are.
fn empty_union_shadows(
    cx: &Cx,
    sb: &mut SsaBuilder,
    b: Block,
    shadow: &FxHashMap<Value, Operand>,
) -> FxHashMap<(Block, usize), Operand> {
    let f = cx.f;
    let mut out = FxHashMap::default();
    for c in f.block(b).term.calls() {
        for (i, (p, a)) in f.block(c.block).params.iter().zip(&c.args).enumerate() {
            let fty = fdata_type(f.ty(*p));
            let Type::Union(u) = &fty else { continue };
            let missing = a.as_value().is_none_or(|v| !shadow.contains_key(&v));
            if missing && !is_undef(f, a) && u.members.contains(&Type::Nothing) {
                let mut e = Emit {
                    bcast: None,
                    b: &mut *sb,
                    block: b,
                    span: Span::default(),
                };
                let empty = e.prim(Prim::UnionConvert, vec![Const::Nothing.into()], fty.clone());
                out.insert((c.block, i), empty);
            }
        }
    }
    out
}

/// The forward jump for primal jump `c` out of `from`: each φ argument followed by its shadow
/// (`empties`: those [`empty_union_shadows`] made), then the predecessor index for `br#` or
/// the iteration count for `iter#` (`incs`: the incremented counts computed in a latch).
#[allow(clippy::too_many_arguments)]
fn fwd_call(
    cx: &Cx,
    f: &Function,
    from: Block,
    c: &BlockCall,
    map: &FxHashMap<Value, Operand>,
    shadow: &FxHashMap<Value, Operand>,
    incs: &FxHashMap<Block, Operand>,
    empties: &FxHashMap<(Block, usize), Operand>,
) -> BlockCall {
    let mut args = Vec::new();
    for (i, (p, a)) in f.block(c.block).params.iter().zip(&c.args).enumerate() {
        args.push(mapped(map, a));
        if has_fdata(f.ty(*p)) {
            let s = a.as_value().and_then(|v| shadow.get(&v).cloned());
            // An unassigned local's shadow is as undefined as the local (a `Ref` made in one
            // arm of a conditional only): `undef` vanishes in the join.
            let s = s.or_else(|| is_undef(f, a).then(|| mapped(map, a)));
            let s = s.or_else(|| empties.get(&(c.block, i)).cloned());
            args.push(s.unwrap_or(Const::Nothing.into()));
        }
    }
    if cx.counted[c.block.index()].is_some() {
        args.push(incs.get(&c.block).cloned().unwrap_or(Const::Int(0).into()));
    } else if cx.live[c.block.index()] && cx.multi_pred(c.block) {
        let k = cx.preds[c.block.index()]
            .iter()
            .position(|p| *p == from)
            .unwrap_or(0);
        args.push(Const::Int(k as i64 + 1).into());
    }
    BlockCall {
        block: c.block,
        args,
    }
}

/// [`Forward::induction`], found in the primal: a parameter of a counted header whose argument
/// from outside the loop is a constant and from the latch the parameter plus a constant.
fn induction_vars(cx: &Cx, map: &FxHashMap<Value, Operand>) -> FxHashMap<Value, (Block, i64, i64)> {
    let f = cx.f;
    let arg = |from: Block, to: Block, j: usize| -> Option<&Operand> {
        let calls: Vec<&BlockCall> = f.block(from).term.calls();
        match calls.iter().filter(|c| c.block == to).collect::<Vec<_>>()[..] {
            [c] => c.args.get(j),
            _ => None,
        }
    };
    let mut out = FxHashMap::default();
    for h in f.block_ids() {
        let Some((outside, latch)) = cx.counted[h.index()] else {
            continue;
        };
        for (j, &p) in f.block(h).params.iter().enumerate() {
            let Some(Operand::Const(Const::Int(start))) = arg(outside, h, j) else {
                continue;
            };
            let Some(Operand::Value(q)) = arg(latch, h, j) else {
                continue;
            };
            let step = match f.stmt(*q).map(|s| (&s.op, &s.args[..])) {
                Some((Op::Prim(Prim::Add), [Operand::Value(a), Operand::Const(Const::Int(c))]))
                | Some((Op::Prim(Prim::Add), [Operand::Const(Const::Int(c)), Operand::Value(a)]))
                    if *a == p =>
                {
                    *c
                }
                _ => continue,
            };
            if let (Type::Int64, Some(Operand::Value(fp))) = (f.ty(p), map.get(&p)) {
                out.insert(*fp, (h, *start, step));
            }
        }
    }
    out
}

/// Is block `b` on a cycle through the header `h` (in its loop, or a loop nested in it)?
fn in_loop_of(f: &Function, h: Block, b: Block) -> bool {
    reaches(f, h)[b.index()] && reaches_from(f, h, b)
}

fn forward_def_block(func: &Function, v: Value) -> Block {
    match &func.value(v).kind {
        ValueKind::Param { block, .. } => *block,
        ValueKind::Stmt(_) => func
            .block_ids()
            .find(|b| func.block(*b).stmts.contains(&v))
            .unwrap_or(Block::ENTRY),
    }
}

fn pullback_pass(cx: &Cx, inst: &Arc<Instance>, fw: &Forward) -> Result<Function, AdError> {
    let f = cx.f;
    let pb_inst = names::pullback_instance(inst);
    let mut out = Function::new(pb_inst.name.clone(), f.span);
    out.instance = Some(pb_inst);
    let tape = out.add_param(
        Block::ENTRY,
        fw.tape_ty.clone(),
        Span::default(),
        Some("tape".into()),
    );
    let dy = out.add_param(
        Block::ENTRY,
        rdata_type(&f.ret),
        Span::default(),
        Some("ȳ".into()),
    );
    let mut rev: FxHashMap<Block, Block> = FxHashMap::default();
    for &b in cx.order.iter().rev() {
        rev.insert(b, out.add_block());
    }
    let start = rev.get(&cx.exit).copied().unwrap_or(Block::ENTRY);
    out.set_term(
        Block::ENTRY,
        Terminator::Jump(BlockCall::new(start)),
        Span::default(),
    );
    // Values whose gradient may not arrive on the path taken (a value computed before a branch
    // that uses it on one side only): their reverse rules pass a strong zero when it did not,
    // as Zygote's `nothing` does, so an infinite partial there cannot turn the zero into NaN.
    let scalars: Vec<Value> = cx
        .order
        .iter()
        .flat_map(|&b| f.block(b).stmts.iter().copied())
        .filter(|&v| cx.act.is_active(v) && rdata_type(f.ty(v)).is_float())
        .collect();
    let everywhere = crate::cfg::used_on_every_path(f, &scalars);
    let unsure = scalars
        .iter()
        .zip(everywhere)
        .filter(|(_, e)| !e)
        .map(|(v, _)| *v)
        .collect();
    let mut g = Grads {
        sb: SsaBuilder::new(out),
        vars: FxHashMap::default(),
        unsure,
        reached: FxHashMap::default(),
        act: &cx.act,
        f,
    };
    let mut recomputed: FxHashSet<Value> = FxHashSet::default();
    // Iteration counters of counted loop headers, loaded once from the tape.
    let mut counters: FxHashMap<Block, Var> = FxHashMap::default();
    for &b in &cx.order {
        if let Some(pos) = fw.tapes[b.index()].counter.and_then(|c| fw.slots.get(&c)) {
            let var = g.sb.declare_var_with_init(
                Type::Int64,
                Some(format!("iter{b}").into()),
                VarInit::Const(Const::Int(0)),
            );
            let mut e = Emit {
                bcast: None,
                b: &mut g.sb,
                block: Block::ENTRY,
                span: Span::default(),
            };
            let k = e.field(tape.into(), *pos, &fw.tape_ty);
            name(&mut e, &k, format!("iter{b}"));
            g.sb.def_var(Block::ENTRY, var, k);
            counters.insert(b, var);
        }
    }
    // The shared stack of deep joins' `br#` records, loaded once.
    let branches = fw.branch_stack.map(|pos| {
        let mut e = Emit {
            bcast: None,
            b: &mut g.sb,
            block: Block::ENTRY,
            span: Span::default(),
        };
        let s = e.field(tape.into(), pos, &fw.tape_ty);
        name(&mut e, &s, "brs".to_string());
        s
    });
    if let Terminator::Return(Operand::Value(u)) = &f.block(cx.exit).term {
        if let Some(var) = g.var(*u) {
            g.sb.def_var(Block::ENTRY, var, dy);
        }
    }
    for &b in cx.order.iter().rev() {
        let rb = rev[&b];
        let tb = &fw.tapes[b.index()];
        let mut e = Emit {
            bcast: None,
            b: &mut g.sb,
            block: rb,
            span: Span::default(),
        };
        let from_fwd = |res: &FxHashMap<Value, Operand>, op: &Operand| match op {
            Operand::Value(v) => res.get(v).cloned().unwrap_or(Const::Nothing.into()),
            c => c.clone(),
        };
        // Residuals: popped from the block's stack, or loaded from the tape's slots.
        let mut res: FxHashMap<Value, Operand> = FxHashMap::default();
        if let Some((stk, pos)) = tb.stack {
            let s = e.field(tape.into(), pos, &fw.tape_ty);
            let ety = fw.func.ty(stk).elem().cloned().unwrap_or(Type::Nothing);
            let alpha = e.prim(Prim::Pop, vec![s], ety.clone());
            name(&mut e, &alpha, format!("α{b}"));
            for (j, rv) in tb.pushed.iter().enumerate() {
                res.insert(*rv, e.field(alpha.clone(), j, &ety));
            }
        }
        // A deep join's `br#`, popped from the shared stack.
        if let (Some(br), Some(s), true) = (tb.branch, &branches, cx.stacked[b.index()]) {
            res.insert(br, e.prim(Prim::Pop, vec![s.clone()], Type::Int64));
        }
        // A value can be both pushed here (this block is in its loop) and slotted for a block
        // outside the loop: this block reads its own copy.
        for rv in tb.residuals.iter().filter(|rv| !tb.pushed.contains(rv)) {
            if let Some(pos) = fw.slots.get(rv) {
                let x = e.field(tape.into(), *pos, &fw.tape_ty);
                if let Some(n) = &fw.func.value(*rv).name {
                    name(&mut e, &x, n.to_string());
                }
                res.insert(*rv, x);
            }
        }
        // Induction variables, from the loop's iteration counter (`k` in the reverse of
        // iteration `k`, counted from 0).
        for &rv in &tb.induced {
            let Some((&(_, start, step), Some(&var))) =
                fw.induction.get(&rv).map(|ind| (ind, counters.get(&ind.0)))
            else {
                continue;
            };
            let k = e.b.use_var(rb, var);
            let scaled = match step {
                1 => k,
                _ => e.prim(Prim::Mul, vec![Const::Int(step).into(), k], Type::Int64),
            };
            let x = match start {
                0 => scaled,
                _ => e.prim(
                    Prim::Add,
                    vec![Const::Int(start).into(), scaled],
                    Type::Int64,
                ),
            };
            res.insert(rv, x);
        }
        // Recomputed residuals, from the kept ones.
        for &rv in &tb.remat {
            if let Some(Stmt {
                op: Op::Prim(p),
                args,
            }) = fw.func.stmt(rv)
            {
                let args = args.iter().map(|a| from_fwd(&res, a)).collect();
                let x = e.prim(*p, args, fw.func.ty(rv).clone());
                recomputed.extend(x.as_value());
                if let Some(n) = &fw.func.value(rv).name {
                    name(&mut e, &x, n.to_string());
                }
                res.insert(rv, x);
            }
        }
        // Statements, last first.
        for &v in f.block(b).stmts.iter().rev() {
            let Some(s) = f.stmt(v) else { continue };
            if !cx.is_stmt_active(v) {
                continue;
            }
            let d = f.value(v);
            let residuals = fw
                .residual_of
                .get(&v)
                .map(|rs| rs.iter().map(|r| from_fwd(&res, r)).collect())
                .unwrap_or_default();
            let var = g.var(v);
            let dyv = var.map(|var| g.sb.use_var(rb, var));
            if let Some(name) = cx.tapped(v) {
                if let Some(x̄) = dyv.clone().or_else(|| fw.tapped_shadow(&res, v)) {
                    tap(&mut g.sb, rb, d.span, "adjoint", name, x̄);
                }
            }
            let rs = RevStmt {
                op: &s.op,
                arg_tys: s.args.iter().map(|a| f.operand_ty(a)).collect(),
                consts: s.args.iter().map(|a| a.as_const().cloned()).collect(),
                ty: d.ty.clone(),
                residuals,
                dy: dyv,
                mask: cx.call_mask(v),
            };
            let mut e = Emit {
                bcast: None,
                b: &mut g.sb,
                block: rb,
                span: d.span,
            };
            let mut contribs = rules::reverse(&mut e, rs);
            if let (Some(var), true) = (var, cx.looped[b.index()]) {
                let z = e.zero_rdata(&rdata_type(&d.ty));
                g.sb.def_var(rb, var, z);
            }
            if let Some(flag) = g.reached_var(v) {
                let reached = g.sb.use_var(rb, flag);
                let mut e = Emit {
                    bcast: None,
                    b: &mut g.sb,
                    block: rb,
                    span: d.span,
                };
                for (a, c) in s.args.iter().zip(contribs.iter_mut()) {
                    let t = rdata_type(&f.operand_ty(a));
                    if let Some(c) = c.as_mut().filter(|_| t.is_float()) {
                        let zero = e.zero_rdata(&t);
                        let args = vec![reached.clone(), c.clone(), zero];
                        *c = e.prim(Prim::IfElse, args, t);
                    }
                }
                if cx.looped[b.index()] {
                    g.sb.def_var(rb, flag, Const::Bool(false));
                }
            }
            for (a, c) in s.args.iter().zip(contribs) {
                if let (Some(u), Some(c)) = (a.as_value(), c) {
                    g.accumulate(rb, d.span, u, c);
                }
            }
        }
        // φ gradients, read before branching (and reset inside loops).
        let mut phis: Vec<(usize, Operand)> = Vec::new();
        if b != Block::ENTRY {
            for (j, &p) in f.block(b).params.iter().enumerate() {
                if let Some(var) = g.var(p) {
                    let gp = g.sb.use_var(rb, var);
                    if let Some(name) = cx.tapped(p) {
                        tap(&mut g.sb, rb, f.value(p).span, "adjoint", name, gp.clone());
                    }
                    phis.push((j, gp));
                    if cx.looped[b.index()] {
                        let mut e = Emit {
                            bcast: None,
                            b: &mut g.sb,
                            block: rb,
                            span: Span::default(),
                        };
                        let z = e.zero_rdata(&rdata_type(f.ty(p)));
                        g.sb.def_var(rb, var, z);
                    }
                } else if let (Some(name), Some(x̄)) = (cx.tapped(p), fw.tapped_shadow(&res, p)) {
                    tap(&mut g.sb, rb, f.value(p).span, "adjoint", name, x̄);
                }
            }
        }
        if b == Block::ENTRY {
            let mut parts = Vec::new();
            let mut tys = Vec::new();
            for (i, &a) in f.args().iter().enumerate() {
                if !cx.mask.is_active(i) {
                    // An inactive argument gets no cotangent.
                    parts.push(Const::Nothing.into());
                    tys.push(Type::Nothing);
                    continue;
                }
                let rty = rdata_type(f.ty(a));
                let val = match g.var(a) {
                    Some(var) => g.sb.use_var(rb, var),
                    None => Emit {
                        bcast: None,
                        b: &mut g.sb,
                        block: rb,
                        span: Span::default(),
                    }
                    .zero_rdata(&rty),
                };
                if let Some(name) = cx.tapped(a) {
                    let x̄ = match g.var(a) {
                        Some(_) => Some(val.clone()),
                        None => fw.tapped_shadow(&res, a),
                    };
                    if let Some(x̄) = x̄ {
                        tap(&mut g.sb, rb, f.value(a).span, "adjoint", name, x̄);
                    }
                }
                parts.push(val);
                tys.push(rty);
            }
            let rty = Type::tuple(tys);
            let mut e = Emit {
                bcast: None,
                b: &mut g.sb,
                block: rb,
                span: Span::default(),
            };
            let r = e.prim(Prim::Tuple, parts, rty.clone());
            g.sb.func.set_term(rb, Terminator::Return(r), f.span);
            g.sb.func.ret = rty;
            continue;
        }
        let preds: Vec<(usize, Block)> = cx.preds[b.index()]
            .iter()
            .copied()
            .enumerate()
            .filter(|(_, q)| rev.contains_key(q))
            .collect();
        let edge = |g: &mut Grads, at: Block, q: Block| {
            let Some(call) = f
                .block(q)
                .term
                .calls()
                .into_iter()
                .find(|c| c.block == b)
                .cloned()
            else {
                return;
            };
            for (j, gp) in &phis {
                if let Some(u) = call.args.get(*j).and_then(Operand::as_value) {
                    g.accumulate(at, Span::default(), u, gp.clone());
                }
            }
        };
        if let (Some((outside, latch)), Some(var)) =
            (cx.counted[b.index()], counters.get(&b).copied())
        {
            // Iterations left: none means the loop was entered from outside.
            let left = g.sb.use_var(rb, var);
            let mut e = Emit {
                bcast: None,
                b: &mut g.sb,
                block: rb,
                span: Span::default(),
            };
            let done = e.prim(
                Prim::Eq,
                vec![left.clone(), Const::Int(0).into()],
                Type::Bool,
            );
            let out_to = if phis.is_empty() {
                rev[&outside]
            } else {
                let eb = g.sb.func.add_block();
                edge(&mut g, eb, outside);
                g.sb.func.set_term(
                    eb,
                    Terminator::Jump(BlockCall::new(rev[&outside])),
                    Span::default(),
                );
                eb
            };
            let back = g.sb.func.add_block();
            edge(&mut g, back, latch);
            let mut e = Emit {
                bcast: None,
                b: &mut g.sb,
                block: back,
                span: Span::default(),
            };
            let dec = e.prim(Prim::Sub, vec![left, Const::Int(1).into()], Type::Int64);
            g.sb.def_var(back, var, dec);
            g.sb.func.set_term(
                back,
                Terminator::Jump(BlockCall::new(rev[&latch])),
                Span::default(),
            );
            let term = Terminator::Branch {
                cond: done,
                then_to: BlockCall::new(out_to),
                else_to: BlockCall::new(back),
            };
            g.sb.func.set_term(rb, term, Span::default());
            continue;
        }
        match preds.as_slice() {
            [] => {
                g.sb.func
                    .set_term(rb, Terminator::Unreachable, Span::default())
            }
            [(_, q)] if !cx.multi_pred(b) => {
                edge(&mut g, rb, *q);
                g.sb.func.set_term(
                    rb,
                    Terminator::Jump(BlockCall::new(rev[q])),
                    Span::default(),
                );
            }
            _ => {
                let idx = tb
                    .branch
                    .map(|br| from_fwd(&res, &Operand::Value(br)))
                    .unwrap_or(Const::Int(1).into());
                if let Operand::Value(i) = &idx {
                    g.sb.func.values[i.index()].name = Some(format!("br{b}").into());
                }
                let mut targets = Vec::new();
                for (_, q) in &preds {
                    targets.push(if phis.is_empty() {
                        rev[q]
                    } else {
                        let eb = g.sb.func.add_block();
                        edge(&mut g, eb, *q);
                        g.sb.func.set_term(
                            eb,
                            Terminator::Jump(BlockCall::new(rev[q])),
                            Span::default(),
                        );
                        eb
                    });
                }
                // A chain of `br#b == k` tests; the last predecessor is the fallthrough.
                let mut at = rb;
                let n = preds.len();
                for (i, (k, _)) in preds.iter().enumerate().take(n - 1) {
                    let mut e = Emit {
                        bcast: None,
                        b: &mut g.sb,
                        block: at,
                        span: Span::default(),
                    };
                    let c = e.prim(
                        Prim::Eq,
                        vec![idx.clone(), Const::Int(*k as i64 + 1).into()],
                        Type::Bool,
                    );
                    let next = if i + 2 == n {
                        targets[n - 1]
                    } else {
                        g.sb.func.add_block()
                    };
                    let term = Terminator::Branch {
                        cond: c,
                        then_to: BlockCall::new(targets[i]),
                        else_to: BlockCall::new(next),
                    };
                    g.sb.func.set_term(at, term, Span::default());
                    at = next;
                }
                if n == 1 {
                    g.sb.func.set_term(
                        rb,
                        Terminator::Jump(BlockCall::new(targets[0])),
                        Span::default(),
                    );
                }
            }
        }
    }
    // A recomputation nothing reads (a dead rule fragment may have read it) is dropped, even
    // one that could throw: the same operation on the same operands did not in the forward.
    let mut out = g.sb.finish();
    crate::simplify::remove_unused(&mut out, &|v, op| {
        recomputed.contains(&v) || crate::simplify::is_pure(op)
    });
    Ok(out)
}

/// `tap(:kind, :name, x)` at the end of `block`, at `span`.
fn tap(sb: &mut SsaBuilder, block: Block, span: Span, kind: &str, name: &zy_ir::Name, x: Operand) {
    let mut e = Emit {
        bcast: None,
        b: sb,
        block,
        span,
    };
    let args = vec![
        Const::Symbol(kind.into()).into(),
        Const::Symbol(name.clone()).into(),
        x,
    ];
    e.prim(Prim::Tap, args, Type::Nothing);
}

fn name(e: &mut Emit, op: &Operand, n: String) {
    if let Operand::Value(v) = op {
        e.b.func.values[v.index()].name = Some(n.into());
    }
}

/// Gradient variables of the pullback, one per active primal value with rdata.
struct Grads<'a> {
    sb: SsaBuilder,
    vars: FxHashMap<Value, Var>,
    /// Values whose gradient may not arrive (see [`crate::cfg::used_on_every_path`]) ...
    unsure: FxHashSet<Value>,
    /// ... and the variable saying whether it did on this path.
    reached: FxHashMap<Value, Var>,
    act: &'a Activity,
    f: &'a Function,
}

impl Grads<'_> {
    /// The flag saying whether `v`'s gradient arrived, if `v` needs one.
    fn reached_var(&mut self, v: Value) -> Option<Var> {
        if !self.unsure.contains(&v) {
            return None;
        }
        let init = VarInit::Const(Const::Bool(false));
        Some(
            *self
                .reached
                .entry(v)
                .or_insert_with(|| self.sb.declare_var_with_init(Type::Bool, None, init)),
        )
    }

    /// The gradient variable of `v`, if it has one.
    fn var(&mut self, v: Value) -> Option<Var> {
        let ty = self.f.ty(v);
        if !self.act.is_active(v) || !has_rdata(ty) {
            return None;
        }
        if let Some(var) = self.vars.get(&v) {
            return Some(*var);
        }
        let rty = rdata_type(ty);
        let init = match rty {
            Type::Float64 => VarInit::Const(Const::f64(0.0)),
            Type::Float32 => VarInit::Const(Const::f32(0.0)),
            _ => VarInit::Stmt(Stmt {
                op: Op::Prim(Prim::ZeroTangent),
                args: vec![],
            }),
        };
        let name = self.f.value(v).name.as_ref().map(|n| format!("{n}̄").into());
        let var = self.sb.declare_var_with_init(rty, name, init);
        self.vars.insert(v, var);
        Some(var)
    }

    /// `v̄ += c` at the end of `block`.
    fn accumulate(&mut self, block: Block, span: Span, v: Value, c: Operand) {
        let Some(var) = self.var(v) else { return };
        if let Some(flag) = self.reached_var(v) {
            self.sb.def_var(block, flag, Const::Bool(true));
        }
        let cur = self.sb.use_var(block, var);
        let ty = self.sb.var_ty(var).clone();
        let mut e = Emit {
            bcast: None,
            b: &mut self.sb,
            block,
            span,
        };
        let sum = e.accum(&ty, cur, c);
        self.sb.def_var(block, var, sum);
    }
}
