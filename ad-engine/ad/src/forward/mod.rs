//! Forward mode: the pushforward `∂→f(x1, ẋ1, x2, ẋ2, ...)` of a typed function, returning
//! `(y, ẏ)`, the value and its directional derivative along the tangents `ẋᵢ`.
//!
//! The pushforward keeps `f`'s CFG: every block parameter gains a tangent parameter and every
//! statement is followed by its frule ([`crate::rules::pushforward`]), which computes the
//! result's tangent from the operands' (Mooncake's dual numbers, unboxed into pairs of SSA
//! values). No tape: loops, branches and recursion need nothing more. A tangent mirrors its
//! value's structure ([`dual_type`]): a number's is a number, a tuple's a tuple, a struct's
//! or closure's a named tuple of its fields', an array's an array of its shape written
//! wherever the array is written, and a mutable value's a `Ref` of its fields' tangents, so
//! that writes through aliases reach one tangent. A global object with mutable parts gets one
//! tangent per evaluation, passed after the arguments' as the reverse mode passes its shadows
//! ([`crate::globals`]), so a write to it is seen by every later read. Calls of user functions
//! call their
//! pushforwards ([`add_pushforwards`]); calls of generated code (the drivers of nested
//! gradients) are inlined first, so forward over reverse sees plain operations; the `back`
//! closures left (a recursive function's) get closures as tangents ([`backs`]).
//!
//! Activity: a value that no differentiated argument reaches (a captured constant, a literal,
//! anything computed from those alone) carries no tangent, a structural zero decided here at
//! transform time, so its frule terms vanish (`W * ẋ`, not `Ẇ * x + W * ẋ`) and no zero array
//! is made. A call passes only the tangents it has and calls the pushforward specialised to
//! those arguments ([`pushforward_key`]), or the function itself when it has none; both only
//! for a callee that writes no object it did not make ([`crate::mutates::may_mutate`]), since
//! a write through an argument without a tangent would lose the written value's.

mod backs;
pub mod chunk;

use std::sync::Arc;

use zy_ir::{
    tangent_type, BlockCall, Const, Function, Instance, Name, Op, Operand, Prim, SsaBuilder,
    Terminator, Type, TypedProgram, Value,
};

use crate::globals::GlobalShadows;
use crate::rules::{self, Emit, TanStmt};
use crate::AdError;

/// The type of the forward-mode tangent of a value of type `t` (`Nothing` when it has none):
/// [`tangent_type`], except that a `Ref`'s and a mutable struct's tangent is a `Ref` (it is
/// written where the value is) and an AD stack's is a stack of its entries' tangents.
pub fn dual_type(t: &Type) -> Type {
    let boxed = |inner: Type| match inner {
        Type::Nothing => Type::Nothing,
        i => Type::Ref(Arc::new(i)),
    };
    match t {
        Type::Ref(inner) => boxed(dual_type(inner)),
        // A struct whose shape depends on the data: its own type in a field stands for the
        // tangent of the node it holds (a mutable node's box).
        Type::Struct(s) if s.is_recursive() => {
            let part = crate::tangent::recursive_part(s, dual_type, s.mutable);
            if s.mutable {
                boxed(part)
            } else {
                part
            }
        }
        Type::Struct(s) if s.mutable => boxed(composite(t)),
        Type::Stack(e) => match dual_type(e) {
            Type::Nothing => Type::Nothing,
            d => Type::Stack(Arc::new(d)),
        },
        Type::Tuple(_) | Type::NamedTuple(_) | Type::Struct(_) => composite(t),
        Type::Array(e, n) => match dual_type(e) {
            Type::Nothing => Type::Nothing,
            d => Type::Array(Arc::new(d), *n),
        },
        Type::Pullback(sig) => backs::dual_pullback(sig),
        // The tangent of the member held (a mutable member's is a box).
        Type::Union(u) => u.map(dual_type),
        _ => tangent_type(t),
    }
}

/// Tuples, named tuples and structs: the tangent of each field, `Nothing` overall when no
/// field has one.
fn composite(t: &Type) -> Type {
    let fields: Vec<Type> = t
        .field_types()
        .unwrap_or_default()
        .iter()
        .map(dual_type)
        .collect();
    if fields.iter().all(|f| *f == Type::Nothing) {
        return Type::Nothing;
    }
    match t {
        Type::Tuple(_) => Type::tuple(fields),
        Type::NamedTuple(fs) => Type::NamedTuple(
            fs.iter()
                .zip(fields)
                .map(|((n, _), d)| (n.clone(), d))
                .collect(),
        ),
        Type::Struct(s) => Type::NamedTuple(
            s.fields
                .iter()
                .zip(fields)
                .map(|((n, _), d)| (n.clone(), d))
                .collect(),
        ),
        _ => Type::Nothing,
    }
}

/// The zero tangent of `x :: ty`: a literal for a number, fresh objects for arrays and
/// mutable values, made from the value for a union (`None` when `ty` has no tangent).
pub fn zero_tangent(e: &mut Emit, x: &Operand, ty: &Type) -> Option<Operand> {
    let dty = dual_type(ty);
    match (ty, &dty) {
        (_, Type::Nothing) => None,
        (Type::Float64, _) => Some(Const::f64(0.0).into()),
        (Type::Float32, _) => Some(Const::f32(0.0).into()),
        // Of an array, shaped like it; of a value of an abstract type, the zero of the member
        // it holds.
        (Type::Array(..) | Type::Adjoint(_) | Type::Union(_), _) => {
            Some(e.prim(Prim::ZeroTangent, vec![x.clone()], dty))
        }
        // Of a struct whose shape depends on the data (or of its tangent), shaped like it.
        _ if ty.holds_recursion() => Some(e.prim(Prim::ZeroTangent, vec![x.clone()], dty)),
        (Type::Stack(_), _) => Some(e.prim(Prim::StackNew, vec![], dty)),
        (Type::Pullback(_), _) => Some(backs::unreached(e, ty)),
        (Type::Ref(inner), _) => {
            let content = e.prim(Prim::RefGet, vec![x.clone()], (**inner).clone());
            let z = zero_tangent(e, &content, inner)?;
            Some(e.prim(Prim::RefNew, vec![z], dty))
        }
        _ => {
            let ftys = ty.field_types().unwrap_or_default();
            let parts = ftys
                .iter()
                .enumerate()
                .map(|(i, ft)| {
                    if dual_type(ft) == Type::Nothing {
                        return Const::Nothing.into();
                    }
                    let xi = e.prim(
                        Prim::GetField,
                        vec![x.clone(), Const::Int(i as i64 + 1).into()],
                        ft.clone(),
                    );
                    zero_tangent(e, &xi, ft).unwrap_or(Const::Nothing.into())
                })
                .collect();
            Some(match &dty {
                Type::Ref(inner) => {
                    let nt = e.rebuild(inner, parts);
                    e.prim(Prim::RefNew, vec![nt], dty.clone())
                }
                _ => e.rebuild(&dty, parts),
            })
        }
    }
}

/// `t`, or the zero tangent of `x :: ty` when `t` is `None`.
pub fn tangent_or_zero(
    e: &mut Emit,
    x: &Operand,
    ty: &Type,
    t: Option<Operand>,
) -> Option<Operand> {
    match t {
        Some(t) => Some(t),
        None => zero_tangent(e, x, ty),
    }
}

/// The pushforward instance `∂→f(x1, ẋ1, x2, ...)`: a tangent after each argument that has one.
pub fn pushforward_instance(inst: &Instance) -> Arc<Instance> {
    let mut args = Vec::new();
    for t in inst.args.iter() {
        args.push(t.clone());
        let d = dual_type(t);
        if d != Type::Nothing {
            args.push(d);
        }
    }
    Arc::new(Instance {
        name: format!("∂→{}", inst.name).into(),
        method: inst.method,
        args: args.into(),
    })
}

/// Every argument of `inst` pushed forward with a tangent (where its type has one).
pub fn all_active(inst: &Instance) -> Vec<bool> {
    vec![true; inst.args.len()]
}

/// The pushforward of `inst` in which only the arguments marked in `active` carry tangents (the
/// others are structural zeros): [`pushforward_instance`] when every argument that has a
/// tangent is marked, else `∂→f⟨i,j⟩(x1, x2, ẋ2, ...)`, the 1-based positions of the marked
/// arguments in the name (so that masks of the same argument types are distinct instances).
pub fn pushforward_key(inst: &Instance, active: &[bool]) -> Arc<Instance> {
    let marked = |i: usize| active.get(i).copied().unwrap_or(true);
    let with_tangent: Vec<usize> = (0..inst.args.len())
        .filter(|&i| dual_type(&inst.args[i]) != Type::Nothing)
        .collect();
    if with_tangent.iter().all(|&i| marked(i)) {
        return pushforward_instance(inst);
    }
    let mut args = Vec::new();
    for (i, t) in inst.args.iter().enumerate() {
        args.push(t.clone());
        let d = dual_type(t);
        if d != Type::Nothing && marked(i) {
            args.push(d);
        }
    }
    let positions: Vec<String> = with_tangent
        .iter()
        .filter(|&&i| marked(i))
        .map(|i| (i + 1).to_string())
        .collect();
    Arc::new(Instance {
        name: format!("∂→{}⟨{}⟩", inst.name, positions.join(",")).into(),
        method: inst.method,
        args: args.into(),
    })
}

/// The pushforward's return type for a function returning `ret`: `(y, ẏ)`.
pub fn pushforward_ret(ret: &Type) -> Type {
    Type::tuple([ret.clone(), dual_type(ret)])
}

/// The pushforward of one function and the user functions whose pushforwards it calls.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Pushforward {
    /// `∂→f`.
    pub func: Function,
    /// The instances it calls the pushforwards of, each with the arguments that carry
    /// tangents.
    pub callees: Vec<(Arc<Instance>, Vec<bool>)>,
    /// The pullbacks `f⁻` of the closures it makes, whose tangent closures run `∂ᵇf⁻`.
    pub backs: Vec<Arc<Instance>>,
}

/// The pushforward of `inst`, whose typed body is `func`, every argument carrying a tangent;
/// `globals` are the reaches of the program's functions.
pub fn pushforward(
    inst: &Arc<Instance>,
    func: &Function,
    globals: &GlobalShadows,
    prog: &TypedProgram,
) -> Result<Pushforward, AdError> {
    let mut mutates = |c: &Arc<Instance>| crate::mutates::may_mutate(prog, c);
    pushforward_masked(inst, &all_active(inst), func, globals, prog, &mut mutates)
}

/// The pushforward [`pushforward_key`]`(inst, active)`: the arguments not marked in `active`
/// carry no tangent (the caller has checked that `inst` writes no object it did not make).
/// `mutates` tells whether a callee may write an object it did not make.
pub fn pushforward_masked(
    inst: &Arc<Instance>,
    active: &[bool],
    func: &Function,
    globals: &GlobalShadows,
    prog: &TypedProgram,
    mutates: &mut dyn FnMut(&Arc<Instance>) -> bool,
) -> Result<Pushforward, AdError> {
    globals.check(inst, func)?;
    if let Some(why) = crate::tangent::recursive_refusal(func, &|_| true, true) {
        return Err(why);
    }
    let arg_active = |p: Value| match func.args().iter().position(|a| *a == p) {
        Some(i) => active.get(i).copied().unwrap_or(true),
        None => true,
    };
    let constant = constant_numbers(func, &arg_active, globals);
    if let Some(pf) = transform(inst, active, func, globals, prog, mutates, &constant)? {
        return Ok(pf);
    }
    // A rule made a tangent the analysis did not foresee: every parameter gets one.
    let none = vec![false; func.values.len()];
    transform(inst, active, func, globals, prog, mutates, &none)?.ok_or_else(|| {
        AdError::new(
            func.span,
            "internal: a tangent reached a constant parameter",
        )
    })
}

/// The Float64 block parameters (other than arguments) that no varying value reaches: every
/// value jumped to them is a constant or computed from constants alone (the seed `1.0` of a
/// gradient's pullback and its loop-carried copies, under `hvp`). They carry no tangent, so no
/// zero tangent is multiplied through the loop. Varying: the active arguments, anything that can
/// be written (arrays, `Ref`s, ...: a varying value may be stored in them), globals, calls
/// reaching globals, pullback closures, and what is computed from a varying value.
fn constant_numbers(
    func: &Function,
    arg_active: &dyn Fn(Value) -> bool,
    globals: &GlobalShadows,
) -> Vec<bool> {
    let n = func.values.len();
    let args = func.args();
    let mut varying = vec![false; n];
    for b in func.block_ids() {
        for &p in &func.block(b).params {
            varying[p.index()] = if args.contains(&p) {
                arg_active(p)
            } else {
                *func.ty(p) != Type::Float64
            };
        }
    }
    let order = func.reverse_postorder();
    loop {
        let mut changed = false;
        let vary = |varying: &[bool], a: &Operand| a.as_value().is_some_and(|v| varying[v.index()]);
        for &b in &order {
            for &v in &func.block(b).stmts {
                let Some(stmt) = func.stmt(v) else { continue };
                let reads = stmt.args.iter().any(|a| vary(&varying, a));
                let now = reads
                    || has_identity(func.ty(v))
                    || match &stmt.op {
                        Op::Global(_) | Op::Prim(Prim::MakePullback | Prim::CallPullback) => true,
                        Op::Invoke(c) => !globals.reached(c).is_empty(),
                        _ => false,
                    };
                if now && !varying[v.index()] {
                    varying[v.index()] = true;
                    changed = true;
                }
            }
            for c in func.block(b).term.calls() {
                for (a, p) in c.args.iter().zip(&func.block(c.block).params) {
                    if vary(&varying, a) && !varying[p.index()] {
                        varying[p.index()] = true;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut constant = vec![false; n];
    for b in func.block_ids() {
        for &p in &func.block(b).params {
            constant[p.index()] = !varying[p.index()] && !args.contains(&p);
        }
    }
    constant
}

/// [`pushforward_masked`] with the block parameters marked in `constant` carrying no tangent;
/// `None` if a tangent other than a literal zero reaches one of them.
fn transform(
    inst: &Arc<Instance>,
    active: &[bool],
    func: &Function,
    globals: &GlobalShadows,
    prog: &TypedProgram,
    mutates: &mut dyn FnMut(&Arc<Instance>) -> bool,
    constant: &[bool],
) -> Result<Option<Pushforward>, AdError> {
    let pinst = pushforward_key(inst, active);
    let arg_active = |p: Value| match func.args().iter().position(|a| *a == p) {
        Some(i) => active.get(i).copied().unwrap_or(true),
        None => !constant[p.index()],
    };
    let mut out = Function::new(pinst.name.clone(), func.span);
    out.instance = Some(pinst);
    out.ret = pushforward_ret(&func.ret);
    for _ in 1..func.blocks.len() {
        out.add_block();
    }
    let n = func.values.len();
    let mut vals: Vec<Option<Operand>> = vec![None; n];
    let mut tans: Vec<Option<Operand>> = vec![None; n];
    for b in func.block_ids() {
        for &p in &func.block(b).params {
            let d = func.value(p);
            vals[p.index()] = Some(
                out.add_param(b, d.ty.clone(), d.span, d.name.clone())
                    .into(),
            );
            let dty = dual_type(&d.ty);
            if dty != Type::Nothing && arg_active(p) {
                let name = d.name.as_ref().map(|n| Name::from(format!("{n}\u{307}")));
                tans[p.index()] = Some(out.add_param(b, dty, d.span, name).into());
            }
        }
    }
    for (i, a) in func.args().iter().enumerate() {
        let name = func
            .arg_names
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("x{i}").into());
        out.arg_names.push(name.clone());
        if dual_type(func.ty(*a)) != Type::Nothing && arg_active(*a) {
            out.arg_names.push(format!("{name}\u{307}").into());
        }
    }
    // The tangents of the global objects `inst` reaches, after the arguments'.
    let mut global_tans: Vec<(Name, Operand)> = Vec::new();
    for (name, ty) in globals.reached(inst) {
        let dty = dual_type(ty);
        let tname = Name::from(format!("{name}\u{307}"));
        let p = out.add_param(zy_ir::Block::ENTRY, dty, func.span, Some(tname.clone()));
        out.arg_names.push(tname);
        global_tans.push((name.clone(), p.into()));
    }
    let global_tangent = |name: &Name| {
        global_tans
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.clone())
    };
    let used = used_values(func);
    let reads_globals = |c: &Instance| !globals.reached(c).is_empty();
    let constant_arrays =
        crate::activity::constant_arrays(func, &reads_globals, &mut |c| mutates(c), &mut |c| {
            crate::checkpoint::returns_fresh(prog, c)
        });
    let mut sb = SsaBuilder::new(out);
    let mut callees: Vec<(Arc<Instance>, Vec<bool>)> = Vec::new();
    let mut backs_made: Vec<Arc<Instance>> = Vec::new();
    let order = func.reverse_postorder();
    for &b in &order {
        let mut e = Emit {
            bcast: None,
            b: &mut sb,
            block: b,
            span: func.span,
        };
        for &v in &func.block(b).stmts {
            let Some(stmt) = func.stmt(v) else { continue };
            let d = func.value(v);
            e.span = d.span;
            let (args, tangents, arg_tys) = operands(func, stmt, &vals, &tans);
            let (value, tangent) = match &stmt.op {
                Op::Prim(Prim::MakePullback) => {
                    let (value, tangent) = backs::make_pullback(
                        &mut e,
                        |i| prog.functions.contains_key(i),
                        &args,
                        &arg_tys.get(2).cloned().unwrap_or(Type::Nothing),
                        tangents.get(2).cloned().flatten(),
                        &d.ty,
                        &mut backs_made,
                    );
                    (value, Some(tangent))
                }
                Op::Prim(Prim::CallPullback) => {
                    let (value, tangent) =
                        backs::call_pullback(&mut e, &args, &arg_tys, &tangents, &d.ty)?;
                    (value, Some(tangent))
                }
                // A result nothing reads, kept for its error (`x[i]` out of bounds): no tangent.
                Op::Prim(p) if !used[v.index()] && is_plain_read(*p) => {
                    (e.prim(*p, args, d.ty.clone()), None)
                }
                Op::Prim(p) => {
                    let s = TanStmt {
                        prim: *p,
                        args,
                        tangents,
                        arg_tys,
                        ty: d.ty.clone(),
                    };
                    let out = rules::pushforward(&mut e, &s)?;
                    // A number's literal zero tangent is a structural zero: no `0.0 * ∂` after.
                    let tangent = out
                        .tangent
                        .filter(|t| d.ty != Type::Float64 || !rules::is_zero_literal(t))
                        .map(|t| unshared(&mut e, t, &s.tangents, &d.ty));
                    (out.value, tangent)
                }
                Op::New(st) => {
                    let value = e.op(stmt.op.clone(), args.clone(), d.ty.clone());
                    let dty = dual_type(&d.ty);
                    let tangent = if dty == Type::Nothing {
                        None
                    } else {
                        let mut parts = Vec::new();
                        for ((x, t), ty) in args.iter().zip(tangents).zip(&arg_tys) {
                            let z = tangent_or_zero(&mut e, x, ty, t);
                            parts.push(z.unwrap_or(Const::Nothing.into()));
                        }
                        Some(match &dty {
                            Type::Ref(nt) if st.mutable => {
                                let g = e.rebuild(nt, parts);
                                e.prim(Prim::RefNew, vec![g], dty.clone())
                            }
                            _ => e.rebuild(&dty, parts),
                        })
                    };
                    (value, tangent)
                }
                Op::Invoke(callee) => {
                    // Only the tangents the operands have, unless the callee may write
                    // through an argument (then each gets one, a zero where it has none).
                    let every = mutates(callee);
                    let mask: Vec<bool> = tangents.iter().map(|t| every || t.is_some()).collect();
                    let reached = globals.reached(callee);
                    if !mask.contains(&true) && reached.is_empty() {
                        // Nothing varies the call: its result's tangent is a structural zero.
                        (e.op(stmt.op.clone(), args, d.ty.clone()), None)
                    } else {
                        let mut cargs = Vec::new();
                        for (((x, t), ty), on) in args.iter().zip(tangents).zip(&arg_tys).zip(&mask)
                        {
                            cargs.push(x.clone());
                            if *on {
                                cargs.extend(tangent_or_zero(&mut e, x, ty, t));
                            }
                        }
                        for (name, ty) in reached {
                            match global_tangent(name) {
                                Some(t) => cargs.push(t),
                                None => cargs.extend(global_zero(&mut e, name, ty)),
                            }
                        }
                        let rty = pushforward_ret(&d.ty);
                        let key = pushforward_key(callee, &mask);
                        let r = e.op(Op::Invoke(key), cargs, rty.clone());
                        let item = (callee.clone(), mask);
                        if !callees.contains(&item) {
                            callees.push(item);
                        }
                        let value = e.field(r.clone(), 0, &rty);
                        (value, Some(e.field(r, 1, &rty)))
                    }
                }
                Op::Global(name) => {
                    // A global object's tangent for this evaluation; a constant's is zero.
                    let value = e.op(stmt.op.clone(), vec![], d.ty.clone());
                    (value, global_tangent(name))
                }
                Op::Call(_) | Op::CallValue | Op::Closure(_) => {
                    return Err(AdError::new(d.span, "cannot differentiate untyped IR"));
                }
            };
            let tangent = match tangent {
                // An array built from constants only: no tangent, as a constant has none.
                _ if constant_arrays[v.index()] => None,
                Some(t) if dual_type(&d.ty) != Type::Nothing => Some(t),
                _ if !used[v.index()] || stays_zero(func, stmt, &d.ty, &tans) => None,
                _ => zero_tangent(&mut e, &value, &d.ty),
            };
            vals[v.index()] = Some(value);
            tans[v.index()] = tangent;
        }
        let term = match &func.block(b).term {
            Terminator::Return(x) => {
                let ty = func.operand_ty(x);
                let y = value_of(&vals, x);
                let t = tangent_of(&tans, x);
                let t = tangent_or_zero(&mut e, &y, &ty, t).unwrap_or(Const::Nothing.into());
                let rty = pushforward_ret(&func.ret);
                Terminator::Return(e.prim(Prim::Tuple, vec![y, t], rty))
            }
            Terminator::Jump(c) => match jump(&mut e, func, c, &vals, &tans) {
                Some(c) => Terminator::Jump(c),
                None => return Ok(None),
            },
            Terminator::Branch {
                cond,
                then_to,
                else_to,
            } => {
                let (Some(then_to), Some(else_to)) = (
                    jump(&mut e, func, then_to, &vals, &tans),
                    jump(&mut e, func, else_to, &vals, &tans),
                ) else {
                    return Ok(None);
                };
                Terminator::Branch {
                    cond: value_of(&vals, cond),
                    then_to,
                    else_to,
                }
            }
            Terminator::Unreachable => Terminator::Unreachable,
            // The same handlers: the edge into a catch block carries the values and tangents
            // of the point it was installed at, as any jump does.
            Terminator::Handle { leave, catch, to } => {
                let Some(to) = jump(&mut e, func, to, &vals, &tans) else {
                    return Ok(None);
                };
                let catch = match catch {
                    Some(c) => match jump(&mut e, func, c, &vals, &tans) {
                        Some(c) => Some(c),
                        None => return Ok(None),
                    },
                    None => None,
                };
                Terminator::Handle {
                    leave: *leave,
                    catch,
                    to,
                }
            }
        };
        let span = func.block(b).term_span;
        sb.func.set_term(b, term, span);
    }
    let mut out = sb.finish();
    crate::simplify::forward_stores(&mut out);
    crate::simplify::dead_stores(&mut out);
    crate::simplify::simplify(&mut out);
    zy_ir::debug_verify(&out, "the pushforward");
    Ok(Some(Pushforward {
        func: out,
        callees,
        backs: backs_made,
    }))
}

/// Which values of `func` a statement or terminator uses.
fn used_values(func: &Function) -> Vec<bool> {
    let mut used = vec![false; func.values.len()];
    for b in func.block_ids() {
        let data = func.block(b);
        let stmts = data.stmts.iter().filter_map(|&v| func.stmt(v));
        let operands = stmts
            .flat_map(|s| s.args.iter())
            .chain(data.term.operands());
        for v in operands.filter_map(Operand::as_value) {
            used[v.index()] = true;
        }
    }
    used
}

/// A primitive that writes nothing and calls nothing, so its tangent is needed only where its
/// result is read.
fn is_plain_read(p: Prim) -> bool {
    let effects = p.info().effects;
    effects.mutates.is_none() && !effects.calls && !matches!(p, Prim::MakePullback)
}

/// May the result of `stmt :: ty`, which got no tangent, keep none (a structural zero)? Not
/// when a zero tangent is something its users write or call (arrays, `Ref`s, mutable values,
/// AD stacks and pullback closures anywhere in it): a fresh object without a tangent could be
/// written a varied value. A field of a value without a tangent keeps none whatever its type:
/// that value is an argument left without one (of a function that writes no object it did not
/// make), a constant, or made of neither arrays nor mutable parts.
fn stays_zero(func: &Function, stmt: &zy_ir::Stmt, ty: &Type, tans: &[Option<Operand>]) -> bool {
    let projection = match (&stmt.op, stmt.args.first()) {
        (Op::Prim(Prim::GetField), Some(x)) => tangent_of(tans, x).is_none(),
        (Op::Prim(Prim::GetIndex), Some(x)) => {
            matches!(func.operand_ty(x), Type::Tuple(_)) && tangent_of(tans, x).is_none()
        }
        _ => false,
    };
    plain(&dual_type(ty)) && (projection || !has_identity(ty))
}

/// A tangent made of numbers and arrays of them only (no `Ref`, stack or closure).
fn plain(d: &Type) -> bool {
    match d {
        Type::Nothing | Type::Float64 | Type::Float32 => true,
        Type::Array(e, _) | Type::Adjoint(e) => plain(e),
        Type::Tuple(_) | Type::NamedTuple(_) => {
            d.field_types().unwrap_or_default().iter().all(plain)
        }
        _ => false,
    }
}

/// Does a value of type `t` hold an object with identity (one that can be written) anywhere?
fn has_identity(t: &Type) -> bool {
    match t {
        Type::Array(..) | Type::Adjoint(_) | Type::Ref(_) | Type::Stack(_) | Type::Pullback(_) => {
            true
        }
        Type::Struct(s) if s.mutable => true,
        Type::Tuple(_) | Type::NamedTuple(_) | Type::Struct(_) => {
            t.field_types().unwrap_or_default().iter().any(has_identity)
        }
        _ => false,
    }
}

/// A tangent that is one of the operands' tangents, for a result with identity (an array
/// computed from an array): copied, so writes to the result do not reach the operand.
fn unshared(e: &mut Emit, t: Operand, operands: &[Option<Operand>], ty: &Type) -> Operand {
    let shared = operands.iter().flatten().any(|o| *o == t);
    if shared && matches!(ty, Type::Array(..)) {
        let dty = dual_type(ty);
        e.prim(Prim::Copy, vec![t], dty)
    } else {
        t
    }
}

/// A statement's operands in the transformed function: their values, their tangents (none
/// for a constant or an inactive value) and their primal types.
pub(super) fn operands(
    func: &Function,
    stmt: &zy_ir::Stmt,
    vals: &[Option<Operand>],
    tans: &[Option<Operand>],
) -> (Vec<Operand>, Vec<Option<Operand>>, Vec<Type>) {
    let args = stmt.args.iter().map(|a| value_of(vals, a)).collect();
    let tangents = stmt.args.iter().map(|a| tangent_of(tans, a)).collect();
    let tys = stmt.args.iter().map(|a| func.operand_ty(a)).collect();
    (args, tangents, tys)
}

/// The transformed value of the primal operand `a` (a constant is itself).
pub(super) fn value_of(vals: &[Option<Operand>], a: &Operand) -> Operand {
    match a {
        Operand::Value(v) => vals[v.index()].clone().unwrap_or(Const::Nothing.into()),
        c => c.clone(),
    }
}

/// The tangent of the primal operand `a`, if it has one (a constant has none).
pub(super) fn tangent_of(tans: &[Option<Operand>], a: &Operand) -> Option<Operand> {
    match a {
        Operand::Value(v) => tans[v.index()].clone(),
        Operand::Const(_) => None,
    }
}

/// A jump with each argument followed by its tangent, where the target's parameter has one;
/// `None` if a tangent other than a literal zero reaches a parameter without one.
fn jump(
    e: &mut Emit,
    func: &Function,
    c: &BlockCall,
    vals: &[Option<Operand>],
    tans: &[Option<Operand>],
) -> Option<BlockCall> {
    let params: &[Value] = &func.block(c.block).params;
    let mut args = Vec::new();
    for (a, p) in c.args.iter().zip(params) {
        let ty = func.ty(*p).clone();
        let x = value_of(vals, a);
        args.push(x.clone());
        let t = tangent_of(tans, a);
        if tans[p.index()].is_some() {
            args.extend(tangent_or_zero(e, &x, &ty, t));
        } else if dual_type(&ty) != Type::Nothing && t.is_some_and(|t| !rules::is_zero_literal(&t))
        {
            // (A parameter that cannot carry a tangent, such as a caught exception joined with
            // the `undef` of the paths that caught none, drops what the argument has.)
            return None;
        }
    }
    Some(BlockCall {
        block: c.block,
        args,
    })
}

/// A zero tangent for the global `name :: ty` (its value loaded here).
fn global_zero(e: &mut Emit, name: &Name, ty: &Type) -> Option<Operand> {
    let g = e.op(Op::Global(name.clone()), vec![], ty.clone());
    zero_tangent(e, &g, ty)
}

/// The arguments of `∂→inst` after its arguments' and their tangents: a fresh zero tangent for
/// each global object `inst` reaches (one evaluation's).
pub fn global_tangents(e: &mut Emit, globals: &GlobalShadows, inst: &Instance) -> Vec<Operand> {
    let mut out = Vec::new();
    for (name, ty) in globals.reached(inst) {
        out.extend(global_zero(e, name, ty));
    }
    out
}

/// Add [`pushforward_key`]`(inst, active)` to `prog` and the pushforwards of every function it
/// calls, transitively; an `frule` of `source` overrides the pushforward of the function it
/// names. The caller has checked that `inst` writes no object it did not make if `active`
/// leaves an argument out.
pub fn add_pushforwards(
    source: Option<&dyn crate::RuleSource>,
    prog: &mut TypedProgram,
    inst: &Arc<Instance>,
    active: &[bool],
) -> Result<(), AdError> {
    let globals = GlobalShadows::of(prog);
    let mut writes: rustc_hash::FxHashMap<Arc<Instance>, bool> = Default::default();
    // Each function to push forward, its arguments with tangents, and its pushforward's key.
    let mut work = vec![(inst.clone(), active.to_vec(), pushforward_key(inst, active))];
    while let Some((i, active, pinst)) = work.pop() {
        if prog.functions.contains_key(&pinst) {
            continue;
        }
        if let Some(rule) = source.map(|s| s.frule(&i)).transpose()?.flatten() {
            let ret = prog.functions.get(&i).map_or(Type::Any, |f| f.ret.clone());
            rule.check(&i, &ret)?;
            for (k, f) in &rule.support.functions {
                prog.functions.entry(k.clone()).or_insert_with(|| f.clone());
            }
            for (k, g) in &rule.support.globals {
                prog.globals.entry(k.clone()).or_insert_with(|| g.clone());
            }
            let f = crate::frule::pushforward(&i, &active, &ret, &rule, globals.reached(&i));
            prog.functions.insert(pinst, Arc::new(f));
            continue;
        }
        let func = prog.functions.get(&i).cloned().ok_or_else(|| {
            AdError::new(zy_ir::Span::default(), format!("no typed body for {i}"))
        })?;
        // Generated code called here (a nested gradient) is pushed forward inlined, so that
        // the `back` closures its forward functions make are called where they are made.
        let mut body = crate::inline::inline_generated(&func, prog);
        if body != *func {
            // The parts of the inlined code this function drops (the value of a gradient's
            // function, computed in a loop) are not pushed forward.
            crate::simplify::prune(&mut body);
            drop_dead_powers(&mut body);
        }
        crate::payload::route(prog, &mut body)?;
        let mut mutates = |c: &Arc<Instance>| {
            *writes
                .entry(c.clone())
                .or_insert_with(|| crate::mutates::may_mutate(prog, c))
        };
        let mut pf = pushforward_masked(&i, &active, &body, &globals, prog, &mut mutates)?;
        // Named as keyed (a pullback's pushforward by its signature too, `backs::dual_back`).
        pf.func.name = pinst.name.clone();
        pf.func.instance = Some(pinst.clone());
        prog.functions.insert(pinst, Arc::new(pf.func));
        work.extend(pf.callees.into_iter().map(|(c, mask)| {
            let k = pushforward_key(&c, &mask);
            (c, mask, k)
        }));
        for back in pf.backs {
            let Some(f) = prog.functions.get(&back).cloned() else {
                continue;
            };
            let (dinst, dual, key) = backs::dual_back(&back, &f);
            prog.functions
                .entry(dinst)
                .or_insert_with(|| Arc::new(dual));
            let every = all_active(&back);
            work.push((back, every, key));
        }
    }
    Ok(())
}

/// Drop the dead `x ^ n` of a Float64 and an Int (which cannot throw; `^` of other operands
/// can, so dead code elimination keeps it) and what only they read: the loop computing the
/// dropped value of a gradient's function (`(x[i+1] - x[i]^2)^2` in Rosenbrock's) then reads
/// `x[i]` only for its bounds check, and its tangent is not read at all.
fn drop_dead_powers(body: &mut Function) {
    let powers: rustc_hash::FxHashSet<Value> = body
        .block_ids()
        .flat_map(|b| body.block(b).stmts.clone())
        .filter(|&v| {
            body.stmt(v).is_some_and(|s| {
                s.op == Op::Prim(Prim::Pow)
                    && s.args.len() == 2
                    && body.operand_ty(&s.args[0]) == Type::Float64
                    && body.operand_ty(&s.args[1]) == Type::Int64
            })
        })
        .collect();
    crate::simplify::remove_unused(body, &|v, op| {
        crate::simplify::is_pure(op) || powers.contains(&v)
    });
}

/// A copy of `prog` with the pushforward of `inst`, of everything it calls (the `frule`s of
/// `source` applying), and the driver `∂ᵈf(x1, ẋ1, x2, ...)` that runs it with fresh tangents
/// of the globals it reaches; returns the driver's instance (the same arguments as `∂→f`'s).
pub fn pushforward_program(
    source: Option<&dyn crate::RuleSource>,
    prog: &TypedProgram,
    inst: &Arc<Instance>,
) -> Result<(Arc<Instance>, TypedProgram), AdError> {
    let mut out = prog.clone();
    add_pushforwards(source, &mut out, inst, &all_active(inst))?;
    let globals = GlobalShadows::of(prog);
    let pinst = pushforward_instance(inst);
    let dinst = Arc::new(Instance {
        name: format!("∂ᵈ{}", inst.name).into(),
        method: inst.method,
        args: pinst.args.clone(),
    });
    let ret = prog
        .functions
        .get(inst)
        .map_or(Type::Any, |f| f.ret.clone());
    let span = prog.functions.get(inst).map(|f| f.span).unwrap_or_default();
    let mut f = Function::new(dinst.name.clone(), span);
    f.instance = Some(dinst.clone());
    f.ret = pushforward_ret(&ret);
    let mut call: Vec<Operand> = dinst
        .args
        .iter()
        .map(|t| {
            f.add_param(zy_ir::Block::ENTRY, t.clone(), span, None)
                .into()
        })
        .collect();
    let mut sb = SsaBuilder::new(f);
    let mut e = Emit {
        bcast: None,
        b: &mut sb,
        block: zy_ir::Block::ENTRY,
        span,
    };
    call.extend(global_tangents(&mut e, &globals, inst));
    let r = e.op(Op::Invoke(pinst), call, pushforward_ret(&ret));
    sb.func
        .set_term(zy_ir::Block::ENTRY, Terminator::Return(r), span);
    out.functions.insert(dinst.clone(), Arc::new(sb.finish()));
    Ok((dinst, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tangents_of_common_types() {
        let v = Type::vector_f64();
        let cases = [
            (Type::Float64, "Float64"),
            (Type::Int64, "Nothing"),
            (v.clone(), "Vector{Float64}"),
            (Type::Ref(Arc::new(Type::Float64)), "Ref{Float64}"),
            (
                Type::tuple([Type::Float64, Type::Int64]),
                "Tuple{Float64, Nothing}",
            ),
            (Type::tuple([Type::Int64, Type::Bool]), "Nothing"),
        ];
        for (t, want) in cases {
            assert_eq!(dual_type(&t).to_string(), want, "{t}");
        }
    }
}
