//! In-source ChainRules-style rules: `rrule(::typeof(f), x...)` returning `(y, pullback)` with
//! `pullback(ȳ) = (NoTangent(), x̄...)` overrides the derived adjoint of `f`. `f⁺` calls the
//! rrule and keeps the returned closure on the tape; `f⁻` calls the closure and drops the
//! function's tangent.

use std::sync::Arc;

use zy_ir::{
    tangent_type, Block, Const, Function, Instance, Name, Op, Operand, Prim, Program, Span,
    SsaBuilder, Terminator, Type, TypeExpr, TypedProgram,
};

use crate::names;
use crate::rules::Emit;
use crate::tangent::{fdata_type, has_fdata, rdata_type};
use crate::AdError;

/// The typed pieces of an rrule for one instance.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Rrule {
    /// `rrule(::typeof(f), args...)`.
    pub rule: Arc<Instance>,
    /// Its return type `(y, pullback closure)`.
    pub rule_ret: Type,
    /// The closure's call method on `ȳ`.
    pub back: Arc<Instance>,
    /// What the closure returns.
    pub back_ret: Type,
    /// The rrule method's signature span, for errors.
    pub span: Span,
    /// The typed bodies of the rule, its pullback and what they reach.
    pub support: TypedProgram,
}

/// Does `program` have an `rrule` method for `inst`'s function (which [`find`] may find to
/// apply to its argument types)?
pub fn may_apply(program: &Program, inst: &Instance) -> bool {
    let wanted = Some(TypeExpr::Typeof(inst.name.clone()));
    program.functions.get("rrule").is_some_and(|generic| {
        generic
            .methods
            .iter()
            .any(|m| m.sig.first() == Some(&wanted))
    }) && !names::has_callee_arg(inst)
}

/// The rrule overriding `inst`, if `program` has one, with its typed bodies.
pub fn find(program: &Program, inst: &Instance) -> Result<Option<Rrule>, AdError> {
    let Some(generic) = program.functions.get("rrule") else {
        return Ok(None);
    };
    let wanted = Some(TypeExpr::Typeof(inst.name.clone()));
    let Some(method) = generic
        .methods
        .iter()
        .find(|m| m.sig.first() == Some(&wanted))
    else {
        return Ok(None);
    };
    if names::has_callee_arg(inst) {
        return Ok(None);
    }
    let span = method.span;
    let mut args = vec![Type::Function(inst.name.clone())];
    args.extend(inst.args.iter().cloned());
    let fail = |what: &str, errs: Vec<zy_infer::TypeError>| {
        let detail = errs.first().map(|e| e.message.clone()).unwrap_or_default();
        AdError::new(
            span,
            format!("the rrule for `{}` {what}: {detail}", inst.name),
        )
    };
    let (rule, rprog) = match zy_infer::infer_entry(program, "rrule", &args) {
        Ok(r) => r,
        // This rrule does not apply to these argument types.
        Err(_) => return Ok(None),
    };
    let rule_ret = rprog
        .functions
        .get(&rule)
        .map(|f| f.ret.clone())
        .unwrap_or(Type::Any);
    let parts = rule_ret.field_types().unwrap_or_default();
    if !matches!(rule_ret, Type::Tuple(_)) || parts.len() != 2 {
        return Err(AdError::new(
            span,
            format!(
                "the rrule for `{}` must return (y, pullback), not {rule_ret}",
                inst.name
            ),
        ));
    }
    // The whole cotangent of the result: its returned part joined with its shadow's.
    let dy = tangent_type(&parts[0]);
    let (back, bprog) = zy_infer::infer_call(program, &parts[1], &[dy])
        .map_err(|e| fail("has a pullback that cannot be called", e))?;
    let back_ret = bprog
        .functions
        .get(&back)
        .map(|f| f.ret.clone())
        .unwrap_or(Type::Any);
    let n = back_ret.field_types().map(|f| f.len());
    if !matches!(back_ret, Type::Tuple(_)) || n != Some(inst.args.len() + 1) {
        return Err(AdError::new(
            span,
            format!(
                "the rrule for `{}` returns a pullback giving {back_ret}: expected a tuple of {} (NoTangent() and one per argument)",
                inst.name,
                inst.args.len() + 1
            ),
        ));
    }
    // Each argument's tangent must be one the AD can add into that argument's gradient (or
    // `NoTangent()`); anything else would be dropped, a silent zero.
    let tangents = back_ret.field_types().unwrap_or_default();
    for (i, t) in inst.args.iter().enumerate() {
        let given = tangents.get(i + 1).cloned().unwrap_or(Type::Nothing);
        let (r, fd) = (rdata_type(t), has_fdata(t).then(|| fdata_type(t)));
        let fits = given == Type::Nothing
            || (r == Type::Nothing && fd.is_none())
            || given == r
            || fd.as_ref() == Some(&given)
            || boxed_tangent(t, &given).is_some();
        if !fits {
            let want = if r != Type::Nothing {
                r
            } else {
                fd.unwrap_or(Type::Nothing)
            };
            return Err(AdError::new(
                span,
                format!(
                    "the rrule for `{}` gives a {given} as the tangent of argument {} (a {t}): \
                     it must be a {want}, or NoTangent()",
                    inst.name,
                    i + 1
                ),
            ));
        }
    }
    let mut support = TypedProgram::default();
    for (k, f) in rprog.functions.into_iter().chain(bprog.functions) {
        support.functions.entry(k).or_insert(f);
    }
    for (k, g) in bprog.globals {
        support.globals.entry(k).or_insert(g);
    }
    Ok(Some(Rrule {
        rule,
        rule_ret,
        back,
        back_ret,
        span,
        support,
    }))
}

/// `f⁺` and `f⁻` of `inst` made from its rrule. The forward function takes the shadows of the
/// globals `f` reaches, as every forward function does, and leaves them alone: the rule says
/// what the derivative is.
pub fn adjoint(
    inst: &Instance,
    ret: &Type,
    r: &Rrule,
    globals: &[(Name, Type)],
    traced: Option<Span>,
) -> (Function, Function) {
    let row: Name = format!("{} (rrule)", inst.name).into();
    let finst = names::forward_instance(inst);
    let mut fwd = Function::new(finst.name.clone(), r.span);
    fwd.instance = Some(finst);
    let mut args = Vec::new();
    let mut shadows = Vec::new();
    for t in inst.args.iter() {
        args.push(fwd.add_param(Block::ENTRY, t.clone(), Span::default(), None));
        shadows.push(
            has_fdata(t).then(|| fwd.add_param(Block::ENTRY, fdata_type(t), Span::default(), None)),
        );
    }
    for (name, ty) in globals {
        fwd.add_param(
            Block::ENTRY,
            fdata_type(ty),
            Span::default(),
            Some(format!("{name}_f").into()),
        );
    }
    let mut sb = SsaBuilder::new(fwd);
    let mut e = Emit {
        bcast: None,
        b: &mut sb,
        block: Block::ENTRY,
        span: r.span,
    };
    let mut call = vec![Operand::Const(Const::Func(inst.name.clone()))];
    call.extend(args.iter().map(|a| Operand::Value(*a)));
    let res = e.op(Op::Invoke(r.rule.clone()), call, r.rule_ret.clone());
    let y = e.field(res.clone(), 0, &r.rule_ret);
    let back = e.field(res, 1, &r.rule_ret);
    if let Some(at) = traced {
        tap(&mut e, at, "primal", &row, y.clone());
        tap(&mut e, r.span, "rule", &row, Const::Nothing.into());
    }
    let y_f = e.zero_fdata(y.clone(), ret);
    let mut tape = vec![back];
    tape.extend(shadows.iter().flatten().map(|s| Operand::Value(*s)));
    tape.extend(y_f.iter().cloned());
    let tape_ty = Type::tuple(tape.iter().map(|t| e.b.func.operand_ty(t)));
    let tape = e.prim(Prim::Tuple, tape, tape_ty.clone());
    let pinst = names::pullback_instance(inst);
    let mp = vec![
        Const::Func(pinst.name.clone()).into(),
        Const::Int(i64::from(pinst.method)).into(),
        tape,
    ];
    let pb = e.prim(Prim::MakePullback, mp, Type::Pullback(pinst.args.clone()));
    let mut out = vec![y];
    out.extend(y_f);
    out.push(pb);
    let fret = names::forward_ret(inst, ret);
    let t = e.prim(Prim::Tuple, out, fret.clone());
    sb.func
        .set_term(Block::ENTRY, Terminator::Return(t), r.span);
    sb.func.ret = fret;
    let fwd = sb.finish();

    let mut pbf = Function::new(pinst.name.clone(), r.span);
    pbf.instance = Some(pinst);
    let tp = pbf.add_param(
        Block::ENTRY,
        tape_ty.clone(),
        Span::default(),
        Some("tape".into()),
    );
    let dy = pbf.add_param(
        Block::ENTRY,
        rdata_type(ret),
        Span::default(),
        Some("ȳ".into()),
    );
    let mut sb = SsaBuilder::new(pbf);
    let mut e = Emit {
        bcast: None,
        b: &mut sb,
        block: Block::ENTRY,
        span: r.span,
    };
    let back = e.field(tp.into(), 0, &tape_ty);
    let nshadows = shadows.iter().flatten().count();
    let seed = if has_fdata(ret) {
        // The result's shadow holds its array parts' cotangent, `ȳ` the rest.
        let shadow = e.field(tp.into(), 1 + nshadows, &tape_ty);
        crate::rules::split::joined(&mut e, shadow, dy.into(), ret)
    } else {
        dy.into()
    };
    if let Some(at) = traced {
        tap(&mut e, at, "adjoint", &row, seed.clone());
    }
    let g = e.op(
        Op::Invoke(r.back.clone()),
        vec![back, seed],
        r.back_ret.clone(),
    );
    let gtys = r.back_ret.field_types().unwrap_or_default();
    let mut parts = Vec::new();
    let mut k = 1;
    for (i, t) in inst.args.iter().enumerate() {
        let gi_ty = gtys.get(i + 1).cloned().unwrap_or(Type::Nothing);
        let rty = rdata_type(t);
        if shadows[i].is_some() {
            if let Some((read, tan)) = boxed_tangent(t, &gi_ty) {
                // The shadow is a box: add the rule's tangent into its contents.
                let gi = e.field(g.clone(), i + 1, &r.back_ret);
                let s = e.field(tp.into(), k, &tape_ty);
                let v = match read {
                    BoxedRead::Deref => e.prim(Prim::RefGet, vec![gi], tan.clone()),
                    BoxedRead::Field => e.field(gi, 0, &gi_ty),
                    BoxedRead::Itself => gi,
                };
                let cur = e.prim(Prim::RefGet, vec![s.clone()], tan.clone());
                let sum = e.accum(&tan, cur, v);
                e.prim(Prim::RefSet, vec![s, sum], tan);
            } else if gi_ty == fdata_type(t) {
                let gi = e.field(g.clone(), i + 1, &r.back_ret);
                let s = e.field(tp.into(), k, &tape_ty);
                e.prim(Prim::AccumInto, vec![s, gi], Type::Nothing);
            }
            k += 1;
        }
        parts.push(if rty != Type::Nothing && gi_ty == rty {
            e.field(g.clone(), i + 1, &r.back_ret)
        } else {
            e.zero_rdata(&rty)
        });
    }
    let rty = Type::tuple(inst.args.iter().map(rdata_type));
    let t = e.prim(Prim::Tuple, parts, rty.clone());
    sb.func
        .set_term(Block::ENTRY, Terminator::Return(t), r.span);
    sb.func.ret = rty;
    (fwd, sb.finish())
}

/// Is `given` a rule's tangent for an argument of type `t` that the AD adds into the box its
/// shadow is (a `Ref(x̄)` or `(x = x̄,)` for a `Ref`, the field tangents of a mutable struct)?
pub fn takes_boxed_tangent(t: &Type, given: &Type) -> bool {
    boxed_tangent(t, given).is_some()
}

/// How a rule's tangent for an argument whose shadow is a box (a `Ref`'s, or a mutable
/// struct's) is read.
enum BoxedRead {
    /// A `Ref` of the contents' tangent (`Ref(x̄)`): its value.
    Deref,
    /// A `Ref`'s structural tangent `(x = x̄,)` (Zygote's, ChainRules' `Tangent{RefValue}`).
    Field,
    /// The contents' tangent itself (a mutable struct's named tuple of field tangents).
    Itself,
}

/// For an argument of type `t` whose shadow is a box, the rule's tangent of type `given` in one
/// of the forms Julia's AD systems give it, and the tangent type of the box's contents.
fn boxed_tangent(t: &Type, given: &Type) -> Option<(BoxedRead, Type)> {
    let Type::Ref(tan) = fdata_type(t) else {
        return None;
    };
    let tan = (*tan).clone();
    let read = match given {
        Type::Ref(g) if **g == tan => BoxedRead::Deref,
        Type::NamedTuple(fs)
            if matches!(t, Type::Ref(_))
                && matches!(&fs[..], [(name, ft)] if &**name == "x" && *ft == tan) =>
        {
            BoxedRead::Field
        }
        g if *g == tan => BoxedRead::Itself,
        _ => return None,
    };
    Some((read, tan))
}

/// `tap(:kind, :name, x)` at `span` for the gradient debugger's trace: the function under a
/// rule is one row, `f (rrule)`, at the function's definition, with its value and the adjoint
/// its rule was given; the `rule` tap says where the rule is.
fn tap(e: &mut Emit, span: Span, kind: &str, name: &Name, x: Operand) {
    let at = std::mem::replace(&mut e.span, span);
    let args = vec![
        Const::Symbol(kind.into()).into(),
        Const::Symbol(name.clone()).into(),
        x,
    ];
    e.prim(Prim::Tap, args, Type::Nothing);
    e.span = at;
}
