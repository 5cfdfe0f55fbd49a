//! The reaching-gradient (activity) analysis: which SSA values a gradient can reach.
//!
//! A value is *varied* when it depends differentiably on a differentiable argument, *useful*
//! when it flows into the returned value or into a mutation; a value is *active* (gets a
//! gradient) when it is both. Objects with identity (arrays, `Ref`s, mutable structs) are taken
//! as varied and useful whenever their type is differentiable, since a write through an alias
//! can make them so; but a mutable struct or `Ref` made here whose every alias the function
//! sees ([`Tracked`]) varies field by field as what is stored into it. The result also
//! explains, per argument, why a gradient is absent.

use std::cell::RefCell;
use std::sync::Arc;

use zy_ir::{Block, Function, Instance, Op, Operand, Prim, Span, Terminator, Value, ValueKind};

use crate::mask::{ArgMask, Vary};

/// Where a value is used.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum UseSite {
    /// As an operand of the statement defining this value.
    Stmt(Value),
    /// In the terminator of this block (condition, return value or jump argument).
    Term(Block),
}

/// What the analysis knows about one SSA value.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ValueActivity {
    /// Depends differentiably on a differentiable argument.
    pub varied: bool,
    /// Flows into the return value or a mutation.
    pub useful: bool,
    /// Varied, even where arrays built from constants only count as constants (see
    /// [`constant_objects`]): what a refusal of a derivative without a rule asks. Computed
    /// apart only in a function applying such a primitive (a Bessel function of an order);
    /// elsewhere `varied`.
    pub carries: bool,
    /// Which parts of it carry: `carries` field by field, for a tuple, named tuple or
    /// immutable struct (see [`crate::mask`]). What the mask of a call passing it asks.
    pub carried: Vary,
    /// A block parameter of a block inside a loop: its gradient flows around the back edge.
    pub loop_carried: bool,
    /// Every use, with the user's span.
    pub uses: Vec<(UseSite, Span)>,
}

/// Why an argument's gradient is what it is.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ArgGradient {
    /// A gradient can reach the argument.
    Reaches,
    /// Its type has no tangent (`Int64`, `Bool`, `nothing`, functions).
    NotDifferentiable,
    /// No path leads from it to the result: its gradient is `nothing`.
    NoPath,
    /// Every path passes through a non-differentiable operation, such as this one.
    Cut { op: Prim, span: Span },
}

/// The analysis result for one typed function.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Activity {
    /// Indexed by [`Value::index`].
    pub values: Vec<ValueActivity>,
    /// One entry per function argument.
    pub args: Vec<ArgGradient>,
}

impl Activity {
    /// Does `v` get a gradient?
    pub fn is_active(&self, v: Value) -> bool {
        self.values
            .get(v.index())
            .is_some_and(|a| a.varied && a.useful)
    }

    /// Does this operand get a gradient (constants never do)?
    pub fn is_active_operand(&self, op: &Operand) -> bool {
        op.as_value().is_some_and(|v| self.is_active(v))
    }

    /// Is the object argument `arg` (which gets a gradient, as every object does: a write
    /// through an alias could make it useful) used by nothing but effect-free primitives that
    /// pass it no gradient (`length(x)`, `size(x)`, an element read but not used), or by
    /// nothing at all? Then its gradient is zero for a reason the explanation can name.
    pub fn inert(&self, func: &Function, arg: Value) -> bool {
        let Some(a) = self.values.get(arg.index()) else {
            return false;
        };
        a.uses.iter().all(|(site, _)| match site {
            UseSite::Stmt(v) => match func.stmt(*v).map(|s| &s.op) {
                Some(op @ Op::Prim(p)) => {
                    !p.has_effect()
                        && !(self.values.get(v.index()).is_some_and(|u| u.useful)
                            && passes_gradient(op))
                }
                _ => false,
            },
            UseSite::Term(_) => false,
        })
    }
}

/// Analyse `func` (typed IR), taking calls as reading no global object.
pub fn analyse(func: &Function) -> Activity {
    analyse_in(func, &|_| false)
}

/// Analyse `func`, where a call of an instance for which `reads_globals` holds reaches a global
/// object: its result may depend on what another call wrote there, so it is varied.
pub fn analyse_in(func: &Function, reads_globals: &dyn Fn(&Instance) -> bool) -> Activity {
    analyse_masked(func, reads_globals, ArgMask::ALL)
}

/// [`analyse_in`] with only the arguments `mask` leaves active differentiated: the others are
/// constants of this call (an inactive object argument is one the caller made from constants
/// and the callee does not write).
pub fn analyse_masked(
    func: &Function,
    reads_globals: &dyn Fn(&Instance) -> bool,
    mask: ArgMask,
) -> Activity {
    let n = func.values.len();
    let mut values = vec![ValueActivity::default(); n];
    let loops = crate::cfg::in_loop(func);
    let incoming = incoming_args(func);
    for b in func.block_ids() {
        let data = func.block(b);
        for &v in &data.stmts {
            if let Some(s) = func.stmt(v) {
                for a in s.args.iter().filter_map(Operand::as_value) {
                    values[a.index()]
                        .uses
                        .push((UseSite::Stmt(v), func.value(v).span));
                }
            }
        }
        for a in data
            .term
            .operands()
            .into_iter()
            .filter_map(Operand::as_value)
        {
            values[a.index()]
                .uses
                .push((UseSite::Term(b), data.term_span));
        }
        if b != Block::ENTRY {
            for &p in &data.params {
                values[p.index()].loop_carried = loops[b.index()];
            }
        }
    }
    let seeds = seeds(func, mask);
    let tracked = Tracked::find(func, &values, &|_| false, &|_| false);
    let varied = varied_from(func, &seeds, &incoming, reads_globals, &[], &tracked);
    let useful = useful_values(func, &incoming, reads_globals);
    let carries = carried(
        func,
        &values,
        &varied,
        &incoming,
        &seeds,
        reads_globals,
        &tracked,
    );
    for (i, a) in values.iter_mut().enumerate() {
        a.varied = varied[i].any();
        a.useful = useful[i];
        a.carries = carries[i].any();
        a.carried = carries[i].clone();
    }
    let args = func
        .args()
        .iter()
        .map(|&a| {
            if !func.ty(a).is_differentiable() {
                ArgGradient::NotDifferentiable
            } else if varied[a.index()].any() && useful[a.index()] {
                ArgGradient::Reaches
            } else {
                first_cut(func, a, &incoming).unwrap_or(ArgGradient::NoPath)
            }
        })
        .collect();
    Activity { values, args }
}

/// The arguments of `func` with the parts of them that `mask` leaves active.
fn seeds(func: &Function, mask: ArgMask) -> Vec<(Value, Vary)> {
    let tys: Vec<_> = func.args().iter().map(|&a| func.ty(a).clone()).collect();
    func.args().iter().copied().zip(mask.varies(&tys)).collect()
}

/// For each block parameter, the operands passed to it by every jump; for each field read of
/// a caught exception, the values thrown it may read (the transform joins them as a φ).
fn incoming_args(func: &Function) -> Vec<Vec<Operand>> {
    let mut inc = vec![Vec::new(); func.values.len()];
    for (read, thrown) in crate::payload::thrown_values(func) {
        inc[read.index()].push(thrown);
    }
    for b in func.block_ids() {
        for call in func.block(b).term.calls() {
            let params = &func.block(call.block).params;
            for (p, a) in params.iter().zip(&call.args) {
                inc[p.index()].push(a.clone());
            }
        }
    }
    inc
}

/// Does the gradient pass through this statement from its operands to its result?
fn passes_gradient(op: &Op) -> bool {
    match op {
        // Piecewise-constant functions pass a zero gradient: their inputs still count as
        // reached (a zero, not `nothing`).
        Op::Prim(Prim::Floor | Prim::Ceil | Prim::Round | Prim::Sign) => true,
        Op::Prim(Prim::Zero | Prim::One | Prim::ZeroTangent | Prim::Undef) => false,
        Op::Prim(p) => !p.is_nondifferentiable(),
        Op::New(_) | Op::Invoke(_) => true,
        Op::Call(_) | Op::CallValue | Op::Closure(_) | Op::Global(_) => false,
    }
}

/// What `seeds` vary in each value, field by field (forward fixpoint); objects with identity
/// (but those `constant` marks, and the `tracked` ones, which vary as what is stored into
/// them) and the results of calls that read globals (see [`analyse_in`]) are varied whatever
/// their operands.
fn varied_from(
    func: &Function,
    seeds: &[(Value, Vary)],
    incoming: &[Vec<Operand>],
    reads_globals: &dyn Fn(&Instance) -> bool,
    constant: &[bool],
    tracked: &Tracked,
) -> Vec<Vary> {
    let n = func.values.len();
    let mut varied = vec![Vary::No; n];
    for (s, v) in seeds {
        if func.ty(*s).is_differentiable() {
            varied[s.index()] = v.clone();
        }
    }
    loop {
        let mut changed = false;
        for (i, d) in func.values.iter().enumerate() {
            if varied[i] == Vary::Yes || !d.ty.is_differentiable() {
                continue;
            }
            let of = |op: &Operand| match op.as_value() {
                Some(v) => varied[v.index()].clone(),
                None => Vary::No,
            };
            let joined = |ops: &[Operand]| ops.iter().fold(Vary::No, |m, a| m.join(&of(a)));
            let now = match &d.kind {
                ValueKind::Param { block, .. } if *block == Block::ENTRY => continue,
                ValueKind::Param { .. } => joined(&incoming[i]),
                ValueKind::Stmt(s) => {
                    let writes = tracked.writes(i);
                    let tracked_here = writes.is_some();
                    let whole = (d.ty.is_mutable()
                        && !constant.get(i).copied().unwrap_or(false)
                        && writes.is_none())
                        || matches!(&s.op, Op::Invoke(c) if reads_globals(c));
                    let own = match whole {
                        true => Vary::Yes,
                        false => writes
                            .unwrap_or_default()
                            .iter()
                            .fold(stmt_varies(&s.op, &s.args, &d.ty, &of), |m, (field, x)| {
                                m.join(&stored(&d.ty, *field, of(x)))
                            }),
                    };
                    // A tracked object varies as what is stored into it; a value made of its
                    // operands, as they do.
                    let own = match &s.op {
                        _ if tracked_here || constant.get(i).copied().unwrap_or(false) => own,
                        Op::New(_) | Op::Prim(Prim::Tuple | Prim::NamedTuple) => own,
                        _ => own.join(&identity_parts(&d.ty)),
                    };
                    own.join(&joined(&incoming[i]))
                }
            };
            let next = varied[i].join(&now);
            if next != varied[i] {
                varied[i] = next;
                changed = true;
            }
        }
        if !changed {
            return varied;
        }
    }
}

/// The parts of a value of type `t` that are objects with identity (arrays, `Ref`s, mutable
/// structs), field by field: a write through another alias (`push!(h.items, x)` after
/// `h = make()`) makes them vary whatever statement gave the value holding them.
fn identity_parts(t: &zy_ir::Type) -> Vary {
    if t.is_mutable() {
        return Vary::Yes;
    }
    match (crate::mask::part_count(t), t.field_types()) {
        (Some(n), Some(fs)) if fs.len() == n => {
            Vary::fields(fs.iter().map(identity_parts).collect())
        }
        _ => Vary::of(t.reaches_mutable()),
    }
}

/// What varies in the result of `op` of type `ty` on `args`, each varying as `of` says: a
/// tuple, named tuple or struct made holds its operands' variation field by field, and a field
/// read gives that field's; any other statement passing a gradient varies wholly where an
/// operand varies.
fn stmt_varies(op: &Op, args: &[Operand], ty: &zy_ir::Type, of: &dyn Fn(&Operand) -> Vary) -> Vary {
    let fields = match op {
        Op::Prim(Prim::Tuple) | Op::New(_) => Some(args),
        Op::Prim(Prim::NamedTuple) => args.get(1..),
        _ => None,
    };
    match (op, fields) {
        (_, Some(fs)) if crate::mask::part_count(ty) == Some(fs.len()) => {
            Vary::fields(fs.iter().map(of).collect())
        }
        (Op::Prim(Prim::GetField), _) => match args {
            [x, zy_ir::Operand::Const(zy_ir::Const::Int(i))] if *i >= 1 => {
                of(x).field(*i as usize - 1)
            }
            _ => Vary::of(args.iter().any(|a| of(a).any())),
        },
        _ => Vary::of(passes_gradient(op) && args.iter().any(|a| of(a).any())),
    }
}

/// How an object of type `ty` varies for holding a value varying as `v` in `field` (from 0), or
/// as its content (`None`: a `Ref`'s).
fn stored(ty: &zy_ir::Type, field: Option<usize>, v: Vary) -> Vary {
    match (field, crate::mask::part_count(ty)) {
        (Some(k), Some(n)) if k < n => Vary::fields(
            (0..n)
                .map(|j| if j == k { v.clone() } else { Vary::No })
                .collect(),
        ),
        (None, None) => v,
        _ => Vary::of(v.any()),
    }
}

/// The mutable structs and `Ref`s that `func` makes (or gets from a callee that `makes` its
/// result: writes nothing, reads no global and returns an object it allocated) and whose every
/// alias it sees: each used only to read a field or the content from, to store a field or the
/// content into, to return, or as an argument of a callee that `calls_ok` takes (one that
/// writes no object it did not make) returning no object (which could share it). Stored into
/// an array or another object, passed through a jump, or given to any other operation, an
/// object may gain aliases this function does not see, and stays varied whole.
struct Tracked(Vec<Option<Vec<Write>>>);

/// A write into a tracked object: the field written (from 0; `None` for a `Ref`'s content) and
/// the value stored.
type Write = (Option<usize>, Operand);

/// Is a value of type `t` an object [`Tracked`] may follow: a mutable struct whose shape does
/// not depend on the data, or a `Ref`?
fn trackable(t: &zy_ir::Type) -> bool {
    matches!(t, zy_ir::Type::Struct(s) if s.mutable && !t.holds_recursion())
        || matches!(t, zy_ir::Type::Ref(_))
}

impl Tracked {
    /// The tracked objects of `func` (uses from `values`).
    fn find(
        func: &Function,
        values: &[ValueActivity],
        calls_ok: &dyn Fn(&Instance) -> bool,
        makes: &dyn Fn(&Instance) -> bool,
    ) -> Tracked {
        let made = |d: &zy_ir::ValueData| match &d.kind {
            ValueKind::Stmt(s) => {
                trackable(&d.ty)
                    && match &s.op {
                        Op::New(_) | Op::Prim(Prim::RefNew) => true,
                        Op::Invoke(c) => makes(c),
                        _ => false,
                    }
            }
            ValueKind::Param { .. } => false,
        };
        let objects = func.values.iter().enumerate().map(|(i, d)| {
            if !made(d) {
                return None;
            }
            let me = |a: &Operand| a.as_value().is_some_and(|v| v.index() == i);
            let mut writes = Vec::new();
            for (site, _) in &values[i].uses {
                let UseSite::Stmt(u) = site else {
                    match site {
                        UseSite::Term(b)
                            if matches!(func.block(*b).term, Terminator::Return(_)) =>
                        {
                            continue
                        }
                        _ => return None,
                    }
                };
                let us = func.stmt(*u)?;
                match (&us.op, us.args.as_slice()) {
                    (Op::Prim(Prim::GetField), [x, k]) if me(x) && !me(k) => {}
                    (Op::Prim(Prim::RefGet), [x]) if me(x) => {}
                    (Op::Prim(Prim::SetField), [x, Operand::Const(zy_ir::Const::Int(k)), v])
                        if me(x) && !me(v) && *k >= 1 =>
                    {
                        writes.push((Some(*k as usize - 1), v.clone()));
                    }
                    (Op::Prim(Prim::RefSet), [x, v]) if me(x) && !me(v) => {
                        writes.push((None, v.clone()));
                    }
                    (Op::Invoke(c), _) if calls_ok(c) && !func.ty(*u).reaches_mutable() => {}
                    _ => return None,
                }
            }
            Some(writes)
        });
        Tracked(objects.collect())
    }

    /// None tracked.
    fn none() -> Tracked {
        Tracked(Vec::new())
    }

    /// Does `func` make, or get from a call, an object that may be tracked?
    fn made_in(func: &Function) -> bool {
        func.values.iter().any(|d| match &d.kind {
            ValueKind::Stmt(s) => {
                trackable(&d.ty)
                    && matches!(s.op, Op::New(_) | Op::Invoke(_) | Op::Prim(Prim::RefNew))
            }
            ValueKind::Param { .. } => false,
        })
    }

    /// The writes into value `i`, if it is a tracked object.
    fn writes(&self, i: usize) -> Option<&[Write]> {
        self.0.get(i).and_then(|w| w.as_deref())
    }
}

/// `varied`, less what a derivative without a rule need not ask about: where `func` applies
/// such a primitive, the arrays [`constant_objects`] finds, and what is computed from them and
/// constants alone, count as constants (to a fixpoint: an array built from such an array is
/// one too).
fn carried(
    func: &Function,
    values: &[ValueActivity],
    varied: &[Vary],
    incoming: &[Vec<Operand>],
    seeds: &[(Value, Vary)],
    reads_globals: &dyn Fn(&Instance) -> bool,
    tracked: &Tracked,
) -> Vec<Vary> {
    if !applies_underived(func) {
        return varied.to_vec();
    }
    let mut now = varied.to_vec();
    loop {
        let constant = constant_objects(func, values, &any(&now), &|_| false, &|_| false);
        let next = varied_from(func, seeds, incoming, reads_globals, &constant, tracked);
        if next == now {
            return now;
        }
        now = next;
    }
}

/// Whether each value varies at all.
fn any(varied: &[Vary]) -> Vec<bool> {
    varied.iter().map(Vary::any).collect()
}

/// Does `func` apply a primitive with an operand it has no derivative in (a Bessel function of
/// an order, by a call or a broadcast)?
fn applies_underived(func: &Function) -> bool {
    use crate::rules::specfun::{applied, has_underived};
    func.values.iter().any(|d| match &d.kind {
        ValueKind::Stmt(s) => matches!(s.op, Op::Prim(p) if has_underived(applied(p, &s.args).0)),
        ValueKind::Param { .. } => false,
    })
}

/// Does `func` make an array of numbers from constants and values without a gradient alone
/// (`[0.0, 1.0]`, `zeros(3)`, `ones(n, n)`, a helper's `tridiag(n)`)?
fn makes_constant_array(func: &Function) -> bool {
    func.values.iter().any(|d| match &d.kind {
        ValueKind::Stmt(s) => {
            (matches!(&s.op, Op::Prim(p) if p.info().effects.allocates && !p.has_effect())
                || matches!(&s.op, Op::Invoke(_)))
                && matches!(&d.ty, zy_ir::Type::Array(e, _) if e.is_bits())
                && s.args
                    .iter()
                    .all(|a| a.as_value().is_none_or(|v| !func.ty(v).is_differentiable()))
        }
        ValueKind::Param { .. } => false,
    })
}

/// The arrays [`constant_objects`] finds in `func` once what they feed counts as constant too
/// (the fixpoint of [`analyse_in`]'s `carries`), a call of a callee that `writes` nothing and
/// returns numbers or a `fresh` array being a use that reads; computed where `func` applies a
/// primitive with an operand it has no derivative in or makes an array from constants alone,
/// elsewhere none. Forward mode gives them no tangent, so a callee they are passed to is
/// differentiated without one.
pub fn constant_arrays(
    func: &Function,
    reads_globals: &dyn Fn(&Instance) -> bool,
    writes: &mut dyn FnMut(&Arc<Instance>) -> bool,
    fresh: &mut dyn FnMut(&Arc<Instance>) -> bool,
) -> Vec<bool> {
    let act = analyse_in(func, reads_globals);
    match constant_fixpoint(func, &act, reads_globals, ArgMask::ALL, writes, fresh) {
        Some((constant, _)) => constant,
        None => vec![false; func.values.len()],
    }
}

/// Per value of `func` (analysed as `act`, with the arguments `mask` leaves active), which parts
/// of it depend differentiably on a differentiated argument, the arrays [`constant_arrays`] finds
/// counting as constants: the activity's `carries`, a call of a callee that `writes` nothing
/// and returns numbers or a `fresh` array reading such an array (the array it returns is
/// constant too when only constants reach the call). What the reverse transform asks of a
/// call's arguments: one that carries nothing is inactive in the callee's adjoint.
pub fn carried_across_calls(
    func: &Function,
    act: &Activity,
    reads_globals: &dyn Fn(&Instance) -> bool,
    mask: ArgMask,
    writes: &mut dyn FnMut(&Arc<Instance>) -> bool,
    fresh: &mut dyn FnMut(&Arc<Instance>) -> bool,
) -> Vec<Vary> {
    match constant_fixpoint(func, act, reads_globals, mask, writes, fresh) {
        Some((_, carries)) => carries,
        None => act.values.iter().map(|a| a.carried.clone()).collect(),
    }
}

/// The constant arrays and what carries a gradient (see [`carried_across_calls`]), where `func`
/// applies a primitive with an operand it has no derivative in or makes an array from
/// constants alone (the arrays), or makes a mutable struct or `Ref` (tracked objects passed to
/// callees that write none); `None` elsewhere.
fn constant_fixpoint(
    func: &Function,
    act: &Activity,
    reads_globals: &dyn Fn(&Instance) -> bool,
    mask: ArgMask,
    writes: &mut dyn FnMut(&Arc<Instance>) -> bool,
    fresh: &mut dyn FnMut(&Arc<Instance>) -> bool,
) -> Option<(Vec<bool>, Vec<Vary>)> {
    let arrays = applies_underived(func) || makes_constant_array(func);
    if !arrays && !Tracked::made_in(func) {
        return None;
    }
    // What a callee does, asked only of the callees an array that may be constant meets
    // (`writes` walks the callee's whole call graph): whether it may write, and whether it makes
    // its result (writes nothing, reads no global, returns an array it allocated).
    let known: RefCell<Vec<(Instance, bool, bool)>> = RefCell::new(Vec::new());
    let (writes, fresh) = (RefCell::new(writes), RefCell::new(fresh));
    let summary = |c: &Instance| {
        if let Some(&(_, w, m)) = known.borrow().iter().find(|(k, ..)| k == c) {
            return (w, m);
        }
        let arc = Arc::new(c.clone());
        let w = (*writes.borrow_mut())(&arc);
        let m = !w && !reads_globals(c) && (*fresh.borrow_mut())(&arc);
        known.borrow_mut().push((c.clone(), w, m));
        (w, m)
    };
    let calls_ok = |c: &Instance| !summary(c).0;
    let makes = |c: &Instance| summary(c).1;
    let incoming = incoming_args(func);
    let seeds = seeds(func, mask);
    let tracked = Tracked::find(func, &act.values, &calls_ok, &makes);
    let mut carries: Vec<bool> = act.values.iter().map(|a| a.varied).collect();
    loop {
        let constant = match arrays {
            true => constant_objects(func, &act.values, &carries, &calls_ok, &makes),
            false => vec![false; func.values.len()],
        };
        let next = varied_from(func, &seeds, &incoming, reads_globals, &constant, &tracked);
        let next_any = any(&next);
        if next_any == carries {
            return Some((constant, next));
        }
        carries = next_any;
    }
}

/// The arrays of numbers of `func` that no gradient can vary, though an object counts as varied
/// whatever its operands (a write through an alias could make it so): each made from operands
/// that do not vary by a primitive (`[0.0, 1.0]`, `zeros(3)`, a broadcast over such an array,
/// `A \ b`) or by a call of a callee that `makes` its result (writes nothing, reads no global
/// and returns an array it allocated), and used only to read numbers from, to make a fresh
/// array of numbers from (a broadcast, a product, a solve, a call of such a callee or of one
/// `calls_ok` takes that returns numbers), to return, or as what a primitive writes operands
/// that do not vary into. Any other use (a call, a field, a view, a jump) may alias it, and
/// keeps it varied. `uses` from `values`, variation from `varied`.
pub fn constant_objects(
    func: &Function,
    values: &[ValueActivity],
    varied: &[bool],
    calls_ok: &dyn Fn(&Instance) -> bool,
    makes: &dyn Fn(&Instance) -> bool,
) -> Vec<bool> {
    let quiet = |op: &Operand| op.as_value().is_none_or(|v| !varied[v.index()]);
    let numbers = |t: &zy_ir::Type| matches!(t, zy_ir::Type::Array(e, _) if e.is_bits());
    let made = |d: &zy_ir::ValueData| match &d.kind {
        ValueKind::Stmt(s) => {
            numbers(&d.ty)
                && s.args.iter().all(quiet)
                && match &s.op {
                    Op::Prim(p) => p.info().effects.allocates && !p.has_effect(),
                    Op::Invoke(c) => makes(c),
                    _ => false,
                }
        }
        ValueKind::Param { .. } => false,
    };
    let used_quietly = |i: usize, site: &UseSite| match site {
        UseSite::Term(b) => matches!(func.block(*b).term, Terminator::Return(_)),
        UseSite::Stmt(u) => match func.stmt(*u) {
            Some(us) => match us.op {
                Op::Prim(q) if q.has_effect() => {
                    !q.info().effects.calls
                        && us
                            .args
                            .iter()
                            .filter(|a| a.as_value().map(Value::index) != Some(i))
                            .all(quiet)
                }
                Op::Prim(q) => {
                    q == Prim::Broadcast
                        || func.ty(*u).is_bits()
                        || (makes_fresh(q) && numbers(func.ty(*u)))
                }
                Op::Invoke(ref c) => {
                    calls_ok(c) && (func.ty(*u).is_bits() || (makes(c) && numbers(func.ty(*u))))
                }
                _ => false,
            },
            None => false,
        },
    };
    func.values
        .iter()
        .enumerate()
        .map(|(i, d)| made(d) && values[i].uses.iter().all(|(site, _)| used_quietly(i, site)))
        .collect()
}

/// Does `p` make its array result afresh, sharing no operand's memory (a product, a solve, a
/// copy, a matrix's transpose)?
fn makes_fresh(p: Prim) -> bool {
    matches!(
        p,
        Prim::MatMul
            | Prim::Solve
            | Prim::Inv
            | Prim::CholeskyLower
            | Prim::Tril
            | Prim::Triu
            | Prim::Transpose
            | Prim::Adjoint
            | Prim::Copy
            | Prim::SliceCopy
            | Prim::Hvcat
    )
}

/// Values whose gradient is wanted (backward fixpoint from the return and from mutations). A
/// call whose result is not wanted still wants its arguments when it may write: when one of
/// them reaches an object (`fill!(A, x)` stores `x` into `A`) or the callee reaches a global
/// object; `isnan(y)` of a number wants nothing (its `Bool` would otherwise pull a zero
/// through `y`'s operations, and `0 * Inf` is a `NaN`).
fn useful_values(
    func: &Function,
    incoming: &[Vec<Operand>],
    reaches_globals: &dyn Fn(&Instance) -> bool,
) -> Vec<bool> {
    let n = func.values.len();
    let mut useful = vec![false; n];
    let mark = |useful: &mut Vec<bool>, op: &Operand| -> bool {
        match op.as_value() {
            Some(v) if !useful[v.index()] => {
                useful[v.index()] = true;
                true
            }
            _ => false,
        }
    };
    for b in func.block_ids() {
        if let zy_ir::Terminator::Return(x) = &func.block(b).term {
            mark(&mut useful, x);
        }
    }
    for (i, d) in func.values.iter().enumerate() {
        if d.ty.is_mutable() && d.ty.is_differentiable() {
            useful[i] = true;
        }
    }
    loop {
        let mut changed = false;
        // Backwards, so that one pass carries the mark up a chain of statements (forwards, a
        // pass moved it one statement: quadratic in a sum of thousands of terms).
        for (i, d) in func.values.iter().enumerate().rev() {
            match &d.kind {
                ValueKind::Param { .. } if useful[i] => {
                    for a in &incoming[i] {
                        changed |= mark(&mut useful, a);
                    }
                }
                ValueKind::Stmt(s) => {
                    let effect = match &s.op {
                        Op::Prim(p) => p.has_effect(),
                        Op::Invoke(c) => {
                            reaches_globals(c)
                                || s.args.iter().any(|a| match a.as_value() {
                                    Some(v) => func.ty(v).reaches_mutable(),
                                    None => false,
                                })
                        }
                        _ => false,
                    };
                    if (useful[i] || effect) && passes_gradient(&s.op) {
                        for a in &s.args {
                            changed |= mark(&mut useful, a);
                        }
                    }
                    if useful[i] {
                        for a in &incoming[i] {
                            changed |= mark(&mut useful, a);
                        }
                    }
                }
                ValueKind::Param { .. } => {}
            }
        }
        if !changed {
            return useful;
        }
    }
}

/// The first non-differentiable operation that the argument `a` feeds (following varied values
/// through the program), if any.
fn first_cut(func: &Function, a: Value, incoming: &[Vec<Operand>]) -> Option<ArgGradient> {
    let varied = any(&varied_from(
        func,
        &[(a, Vary::Yes)],
        incoming,
        &|_| false,
        &[],
        &Tracked::none(),
    ));
    for b in func.reverse_postorder() {
        for &v in &func.block(b).stmts {
            let Some(s) = func.stmt(v) else { continue };
            if let Op::Prim(p) = s.op {
                let fed = s
                    .args
                    .iter()
                    .any(|x| x.as_value().is_some_and(|x| varied[x.index()]));
                if fed && p.is_nondifferentiable() {
                    return Some(ArgGradient::Cut {
                        op: p,
                        span: func.value(v).span,
                    });
                }
            }
        }
    }
    None
}
