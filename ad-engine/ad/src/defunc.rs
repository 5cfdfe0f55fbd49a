//! Pullback closures as their tapes (defunctionalisation), before code that differentiates is
//! differentiated again.
//!
//! A gradient whose function loops calling another function `g` keeps, per iteration, the
//! `back = make_pullback(g⁻, m, tape)` that `g⁺` returns on its tape stack, and its pullback
//! pops it and runs `call_pullback(back, ȳ)`. Inlining cannot pair the two (the closure passes
//! through the stack), and the reverse transform does not differentiate closures. But a
//! closure's type names the one function it runs (`Pullback{typeof(g⁻), ...}`), so the closure
//! carries nothing but its tape: every `Pullback{typeof(g⁻), ...}` becomes the type of `g⁻`'s
//! tape, `make_pullback(g⁻, m, tape)` becomes `tape`, and `call_pullback(back, ȳ)` the call
//! `g⁻(back, ȳ)`, which inlining then replaces by `g⁻`'s body (whose own closures the next
//! round turns into tapes in the same way). A recursive `g` has a tape holding its own closures
//! (an infinite type): a function with one is left alone, and the transform refuses it by name.

use std::sync::Arc;

use rustc_hash::FxHashMap;
use zy_ir::{
    Const, Function, Instance, Op, Operand, Prim, Stmt, Type, TypedProgram, Value, ValueKind,
};

/// Replace the pullback closures of `f` by their tapes where every closure type in `f` names a
/// non-recursive pullback of `prog` (see the module docs). Returns whether `f` changed.
/// The calls become `Invoke`s of the pullbacks keyed by the closure type (not by their
/// operands' types): the caller inlines them at once, so `budget` bounds `f`'s size with them.
pub fn defunctionalize(f: &mut Function, prog: &TypedProgram, budget: usize) -> bool {
    let mut tapes = Tapes {
        prog,
        memo: FxHashMap::default(),
        busy: Vec::new(),
    };
    let mut any = false;
    for d in &f.values {
        match tapes.map(&d.ty) {
            Some(t) => any |= t != d.ty,
            None => return false,
        }
    }
    // The signature stays: callers pass and receive closures.
    let sig_changes = f
        .args()
        .iter()
        .map(|a| f.ty(*a).clone())
        .chain([f.ret.clone()])
        .any(|t| tapes.map(&t).as_ref() != Some(&t));
    if !any || sig_changes {
        return false;
    }
    let mut size = f.values.len();
    for b in f.block_ids() {
        for &v in &f.block(b).stmts {
            if let Some(inst) = called(f, v, &tapes) {
                size += tapes
                    .prog
                    .functions
                    .get(&inst)
                    .map_or(0, |g| g.values.len());
            }
        }
    }
    if size > budget {
        return false;
    }
    // Rewrite the statements that make and call closures, on the types they had.
    let mut subst: FxHashMap<Value, Operand> = FxHashMap::default();
    let mut calls: Vec<(Value, Arc<Instance>)> = Vec::new();
    for b in f.block_ids().collect::<Vec<_>>() {
        let mut pos = 0;
        while pos < f.block(b).stmts.len() {
            let v = f.block(b).stmts[pos];
            let (Some(s), Type::Pullback(sig)) = (f.stmt(v).cloned(), f.ty(v).clone()) else {
                if let Some(inst) = called(f, v, &tapes) {
                    calls.push((v, inst));
                }
                pos += 1;
                continue;
            };
            if s.op != Op::Prim(Prim::MakePullback) {
                pos += 1;
                continue;
            }
            let real = tapes.instance(&sig).is_some()
                && matches!(s.args.first().and_then(|a| a.as_const()), Some(Const::Func(n)) if n.as_ref() != "unreached");
            let tape = if real {
                s.args.get(2).cloned().unwrap_or(Const::Nothing.into())
            } else {
                // A placeholder for a slot whose block did not run: never called.
                let ty = tapes.map(&Type::Pullback(sig)).unwrap_or(Type::Nothing);
                let span = f.value(v).span;
                placeholder(f, b, &mut pos, &ty, span)
            };
            subst.insert(v, tape);
            f.block_mut(b).stmts.remove(pos);
            f.values[v.index()].kind = ValueKind::Stmt(Stmt {
                op: Op::Prim(Prim::Tuple),
                args: vec![],
            });
        }
    }
    for d in &mut f.values {
        if let Some(t) = tapes.map(&d.ty) {
            d.ty = t;
        }
    }
    crate::simplify::substitute(f, &subst);
    for (v, inst) in calls {
        if let ValueKind::Stmt(s) = &mut f.values[v.index()].kind {
            s.op = Op::Invoke(inst);
        }
    }
    true
}

/// The pullback instance a `call_pullback` statement `v` runs, if its closure's type is one
/// [`Tapes`] replaces.
fn called(f: &Function, v: Value, tapes: &Tapes) -> Option<Arc<Instance>> {
    let s = f.stmt(v)?;
    if s.op != Op::Prim(Prim::CallPullback) {
        return None;
    }
    let Type::Pullback(sig) = f.operand_ty(s.args.first()?) else {
        return None;
    };
    tapes.instance(&sig).map(|(i, _)| i)
}

/// A value of type `ty` made of empty parts (zeros, empty arrays and stacks), inserted in `b`
/// at `*pos` (which moves past it).
fn placeholder(
    f: &mut Function,
    b: zy_ir::Block,
    pos: &mut usize,
    ty: &Type,
    span: zy_ir::Span,
) -> Operand {
    let (op, args) = match ty {
        Type::Float64 => return Const::f64(0.0).into(),
        Type::Float32 => return Const::f32(0.0).into(),
        Type::Int64 => return Const::Int(0).into(),
        Type::Bool => return Const::Bool(false).into(),
        Type::Nothing => return Const::Nothing.into(),
        Type::Tuple(ts) => {
            let parts = ts.iter().map(|t| placeholder(f, b, pos, t, span)).collect();
            (Prim::Tuple, parts)
        }
        Type::Stack(_) => (Prim::StackNew, vec![]),
        Type::Array(_, n) => (Prim::Zeros, vec![Const::Int(0).into(); usize::from(*n)]),
        _ => (Prim::Undef, vec![Const::Symbol("slot".into()).into()]),
    };
    let stmt = Stmt {
        op: Op::Prim(op),
        args,
    };
    let v = f.push_stmt(b, stmt, ty.clone(), span);
    let stmts = &mut f.block_mut(b).stmts;
    stmts.pop();
    stmts.insert(*pos, v);
    *pos += 1;
    v.into()
}

/// The tape types that replace closure types, computed once per closure type.
struct Tapes<'p> {
    prog: &'p TypedProgram,
    /// Closure type contents → its tape's type (closures inside replaced too), or `None` for
    /// a recursive pullback's (or one the program lacks).
    memo: FxHashMap<Arc<[Type]>, Option<Type>>,
    /// The closure types being replaced (a repeat is recursion).
    busy: Vec<Arc<[Type]>>,
}

impl Tapes<'_> {
    /// The pullback instance `Pullback{sig...}` names, and its body.
    fn instance(&self, sig: &Arc<[Type]>) -> Option<(Arc<Instance>, &Function)> {
        let Some(Type::Function(name)) = sig.first() else {
            return None;
        };
        if !name.ends_with('⁻') {
            return None;
        }
        self.prog
            .functions
            .iter()
            .find(|(k, _)| k.name == *name && k.args == *sig)
            .map(|(k, f)| (k.clone(), &**f))
    }

    /// `t` with every closure type replaced by its tape's type; `None` if one cannot be.
    fn map(&mut self, t: &Type) -> Option<Type> {
        Some(match t {
            Type::Pullback(sig) => return self.tape(sig),
            Type::Tuple(ts) => Type::Tuple(
                ts.iter()
                    .map(|t| self.map(t))
                    .collect::<Option<Vec<_>>>()?
                    .into(),
            ),
            Type::NamedTuple(fs) => Type::NamedTuple(
                fs.iter()
                    .map(|(n, t)| Some((n.clone(), self.map(t)?)))
                    .collect::<Option<Vec<_>>>()?
                    .into(),
            ),
            Type::Array(e, n) => Type::Array(Arc::new(self.map(e)?), *n),
            Type::Stack(e) => Type::Stack(Arc::new(self.map(e)?)),
            Type::Ref(e) => Type::Ref(Arc::new(self.map(e)?)),
            other => other.clone(),
        })
    }

    fn tape(&mut self, sig: &Arc<[Type]>) -> Option<Type> {
        if let Some(t) = self.memo.get(sig) {
            return t.clone();
        }
        if self.busy.contains(sig) {
            return None;
        }
        let tape = self
            .instance(sig)
            .and_then(|(_, body)| body.args().first().map(|a| body.ty(*a).clone()))?;
        self.busy.push(sig.clone());
        let mapped = self.map(&tape);
        self.busy.pop();
        self.memo.insert(sig.clone(), mapped.clone());
        mapped
    }
}
