//! Shadows of global objects. A global binding whose value has mutable parts (a `const` array,
//! `Ref` or mutable struct, or a tuple holding one) is one object for the whole run, which any
//! function may read and write. Like a mutable argument, it gets one shadow per gradient
//! evaluation (Enzyme's shadow globals, made per evaluation as Mooncake makes argument
//! shadows): the driver makes a zero shadow of every such global that the differentiated call
//! can reach and passes it to the forward function after the arguments' shadows, and each
//! forward function passes its callees the shadows they reach. Every load of one global in one
//! evaluation therefore sees one shadow, and a write through it is differentiated like a write
//! to an argument.

use std::collections::BTreeMap;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};
use zy_ir::{
    Function, Instance, Name, Op, Operand, Prim, Terminator, Type, TypedProgram, Value, ValueKind,
};

use crate::activity::{analyse_masked, Activity};
use crate::mask::ArgMask;
use crate::names;
use crate::tangent::has_fdata;
use crate::AdError;

/// The globals with shadows that each function of a program can reach, and the globals whose
/// values share mutable parts with another global's.
#[derive(Clone, Debug, Default)]
pub struct GlobalShadows {
    reach: FxHashMap<Arc<Instance>, Arc<[(Name, Type)]>>,
    /// Globals whose value is computed from another global with mutable parts (`const B = A`):
    /// two names for one object, which one shadow per name would miss.
    shared: FxHashMap<Name, Name>,
    /// The functions that may write memory of a global, themselves or through a callee.
    writes_globals: FxHashSet<Arc<Instance>>,
}

impl GlobalShadows {
    /// The reach of every function of `prog`: the globals with a shadow that it loads, or that
    /// a function it calls (or differentiates) loads, in name order.
    pub fn of(prog: &TypedProgram) -> GlobalShadows {
        let mut own: FxHashMap<Arc<Instance>, BTreeMap<Name, Type>> = FxHashMap::default();
        let mut calls: FxHashMap<Arc<Instance>, Vec<Arc<Instance>>> = FxHashMap::default();
        for (inst, f) in &prog.functions {
            let (loads, callees) = direct(prog, f);
            own.insert(inst.clone(), loads);
            calls.insert(inst.clone(), callees);
        }
        // Reach grows to a fixpoint (recursion makes cycles).
        let mut reach = own;
        loop {
            let mut changed = false;
            for (inst, callees) in &calls {
                let mut add = Vec::new();
                for c in callees {
                    if let Some(r) = reach.get(c) {
                        let mine = reach.get(inst);
                        add.extend(
                            r.iter()
                                .filter(|(n, _)| !mine.is_some_and(|m| m.contains_key(*n)))
                                .map(|(n, t)| (n.clone(), t.clone())),
                        );
                    }
                }
                if !add.is_empty() {
                    reach.entry(inst.clone()).or_default().extend(add);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut shadows = GlobalShadows {
            reach: FxHashMap::default(),
            shared: FxHashMap::default(),
            writes_globals: FxHashSet::default(),
        };
        shadows.reach = reach
            .into_iter()
            .map(|(k, v)| (k, v.into_iter().collect::<Vec<_>>().into()))
            .collect();
        shadows.writes_globals = writers_of_globals(prog, &calls, &shadows);
        for (name, thunk) in &prog.globals {
            if !has_fdata(&thunk.ret) {
                continue;
            }
            if let Some(other) = shadows.returned_by(thunk).into_iter().find(|n| n != name) {
                shadows.shared.insert(name.clone(), other);
            }
        }
        shadows
    }

    /// The globals whose objects `body` (a function of a program these are the reaches of, or
    /// a body calling its functions) may return: a global itself, a part of one, a tuple or
    /// struct holding one, or what a call returns if the call reaches one. Copies and other
    /// fresh values are not.
    pub fn returned_by(&self, body: &Function) -> Vec<Name> {
        let mut out = Vec::new();
        let mut todo: Vec<Operand> = body
            .blocks
            .iter()
            .filter_map(|b| match &b.term {
                Terminator::Return(x) => Some(x.clone()),
                _ => None,
            })
            .collect();
        let mut seen = FxHashSet::default();
        while let Some(op) = todo.pop() {
            let Some(v) = op.as_value().filter(|v| seen.insert(*v)) else {
                continue;
            };
            if !has_fdata(body.ty(v)) {
                continue;
            }
            match &body.value(v).kind {
                // A φ: any of the values that reach it.
                ValueKind::Param { block, index } => {
                    for b in body.block_ids() {
                        for c in body.block(b).term.calls() {
                            if c.block == *block {
                                todo.extend(c.args.get(*index as usize).cloned());
                            }
                        }
                    }
                }
                ValueKind::Stmt(stmt) => match &stmt.op {
                    Op::Global(name) => out.push(name.clone()),
                    Op::Invoke(c) => out.extend(self.reached(c).iter().map(|(n, _)| n.clone())),
                    Op::New(_)
                    | Op::Prim(
                        Prim::Tuple
                        | Prim::NamedTuple
                        | Prim::GetField
                        | Prim::TupleIndex
                        | Prim::RefGet
                        | Prim::Transpose
                        | Prim::Adjoint
                        | Prim::IfElse,
                    ) => todo.extend(stmt.args.iter().cloned()),
                    _ => {}
                },
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// What a gradient reaches in `func`, a call that reaches a global with a shadow counting
    /// as reading and writing it (`store!(x)` then `G[]` returned reaches `x`).
    pub fn activity(&self, func: &Function) -> Activity {
        self.activity_masked(func, ArgMask::ALL)
    }

    /// [`GlobalShadows::activity`] with only the arguments `mask` leaves active differentiated.
    pub fn activity_masked(&self, func: &Function, mask: ArgMask) -> Activity {
        analyse_masked(func, &|c| !self.reached(c).is_empty(), mask)
    }

    /// The globals with shadows that `inst` reaches, in the order its forward function takes
    /// their shadows.
    pub fn reached(&self, inst: &Instance) -> &[(Name, Type)] {
        self.reach.get(inst).map_or(&[], |r| r)
    }

    /// These reaches with `alias` reaching what `inst` reaches (for a generated instance that
    /// runs `inst`'s body).
    pub fn aliased(&self, alias: &Arc<Instance>, inst: &Instance) -> GlobalShadows {
        let mut out = self.clone();
        if let Some(r) = self.reach.get(inst) {
            out.reach.insert(alias.clone(), r.clone());
        }
        out
    }

    /// An error if a global that `inst` reaches shares mutable parts with another global and
    /// `inst` may write a global's memory (the gradient of what is written through one name
    /// and read through the other would be split between two shadows; where nothing is
    /// written, the globals are constants of the call).
    pub fn check(&self, inst: &Instance, func: &Function) -> Result<(), AdError> {
        if !self.writes_globals.contains(inst) {
            return Ok(());
        }
        for (name, _) in self.reached(inst) {
            if let Some(other) = self.shared.get(name) {
                let span = func
                    .values
                    .iter()
                    .find(|d| matches!(&d.kind, ValueKind::Stmt(s) if s.op == Op::Global(name.clone())))
                    .map_or(func.span, |d| d.span);
                return Err(AdError::new(
                    span,
                    format!(
                        "cannot differentiate code that uses the global `{name}`: its value shares mutable data with the global `{other}`, and a write through one would not be seen through the other's gradient"
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// The functions of `prog` that may write memory a global holds: by a mutating primitive on
/// a value that may be (part of) a global's object, by passing one to a function that may
/// write, or by calling a function that writes one. `calls` are the functions' callees.
fn writers_of_globals(
    prog: &TypedProgram,
    calls: &FxHashMap<Arc<Instance>, Vec<Arc<Instance>>>,
    shadows: &GlobalShadows,
) -> FxHashSet<Arc<Instance>> {
    let mutates = |f: &Function, v: Value| match f.stmt(v).map(|s| &s.op) {
        Some(Op::Prim(p)) => {
            let e = p.info().effects;
            e.mutates.is_some() || e.calls
        }
        _ => false,
    };
    // The functions that may write any memory, to a fixpoint over the calls.
    let mut writers: FxHashSet<Arc<Instance>> = prog
        .functions
        .iter()
        .filter(|(_, f)| {
            f.values
                .iter()
                .enumerate()
                .any(|(i, _)| mutates(f, Value(i as u32)))
        })
        .map(|(inst, _)| inst.clone())
        .collect();
    grow(calls, &mut writers);
    let mut out: FxHashSet<Arc<Instance>> = prog
        .functions
        .iter()
        .filter(|(_, f)| writes_global_memory(f, &writers, shadows))
        .map(|(inst, _)| inst.clone())
        .collect();
    grow(calls, &mut out);
    out
}

/// Adds to `set` every function that calls one in it, to a fixpoint.
fn grow(calls: &FxHashMap<Arc<Instance>, Vec<Arc<Instance>>>, set: &mut FxHashSet<Arc<Instance>>) {
    loop {
        let add: Vec<Arc<Instance>> = calls
            .iter()
            .filter(|(inst, callees)| {
                !set.contains(*inst) && callees.iter().any(|c| set.contains(c))
            })
            .map(|(inst, _)| inst.clone())
            .collect();
        if add.is_empty() {
            break;
        }
        set.extend(add);
    }
}

/// Does `f` itself write memory that may be a global's: a mutating primitive (or one that
/// calls a function) given a value that may hold a global's object, or a call passing one to
/// a function among `writers`?
fn writes_global_memory(
    f: &Function,
    writers: &FxHashSet<Arc<Instance>>,
    shadows: &GlobalShadows,
) -> bool {
    // The values that may be (part of) a global's object: loads of globals with mutable
    // parts, what is built or read from one, what a call reaching a global returns, and φs
    // any of these reach.
    let mut held = FxHashSet::default();
    loop {
        let before = held.len();
        for (i, d) in f.values.iter().enumerate() {
            let v = Value(i as u32);
            if held.contains(&v) || !has_fdata(&d.ty) {
                continue;
            }
            let from = |ops: &[Operand]| {
                ops.iter()
                    .any(|a| a.as_value().is_some_and(|a| held.contains(&a)))
            };
            let hold = match &d.kind {
                ValueKind::Stmt(s) => match &s.op {
                    Op::Global(_) => true,
                    Op::Invoke(c) if !shadows.reached(c).is_empty() => true,
                    _ => from(&s.args),
                },
                ValueKind::Param { block, index } => f.block_ids().any(|b| {
                    f.block(b).term.calls().into_iter().any(|c| {
                        c.block == *block
                            && c.args
                                .get(*index as usize)
                                .and_then(Operand::as_value)
                                .is_some_and(|a| held.contains(&a))
                    })
                }),
            };
            if hold {
                held.insert(v);
            }
        }
        if held.len() == before {
            break;
        }
    }
    let passes = |args: &[Operand]| {
        args.iter()
            .any(|a| a.as_value().is_some_and(|a| held.contains(&a)))
    };
    f.values.iter().any(|d| match &d.kind {
        ValueKind::Stmt(s) => match &s.op {
            Op::Prim(p) => {
                let e = p.info().effects;
                match e.mutates {
                    Some(i) => s
                        .args
                        .get(usize::from(i))
                        .and_then(Operand::as_value)
                        .is_some_and(|a| held.contains(&a)),
                    None => e.calls && passes(&s.args),
                }
            }
            Op::Invoke(c) => writers.contains(c) && passes(&s.args),
            _ => false,
        },
        ValueKind::Param { .. } => false,
    })
}

/// The globals with shadows that `f` loads itself, and the functions it calls (for a call of
/// generated code whose body is not built yet, the user function it derives from).
fn direct(prog: &TypedProgram, f: &Function) -> (BTreeMap<Name, Type>, Vec<Arc<Instance>>) {
    let mut loads = BTreeMap::new();
    let mut callees = Vec::new();
    let mut seen = FxHashSet::default();
    for d in &f.values {
        let ValueKind::Stmt(s) = &d.kind else {
            continue;
        };
        match &s.op {
            Op::Global(name) if has_fdata(&d.ty) => {
                loads.insert(name.clone(), d.ty.clone());
            }
            Op::Invoke(c) if seen.insert(c.clone()) => {
                if prog.functions.contains_key(c) {
                    callees.push(c.clone());
                } else if let Some(o) = origin(prog, c) {
                    callees.push(o);
                }
            }
            _ => {}
        }
    }
    (loads, callees)
}

/// The user function that the generated instance `c` (a forward function or a driver)
/// derives from.
pub(crate) fn origin(prog: &TypedProgram, c: &Instance) -> Option<Arc<Instance>> {
    if !names::is_generated(&c.name) {
        return None;
    }
    prog.functions
        .keys()
        .find(|i| {
            !names::is_generated(&i.name)
                && (*names::forward_instance(i) == *c
                    || *names::driver_instance(i) == *c
                    || *names::pullback_driver_instance(i) == *c)
        })
        .cloned()
}
