//! The driver `∇f(args...)`: zero shadows for the arguments, the forward pass, the pullback
//! seeded with `1.0`, and each argument's full gradient assembled from its shadow (fdata) and
//! the pullback's rdata. `nothing` where no gradient can reach the argument. Arguments that
//! the call mutates end in the state the plain call leaves them in.
//!
//! `f⁺` and `f⁻` are inlined: the tape goes straight from one to the other as an SSA value, no
//! `back` closure is made, and a driver of a function without calls or loops is plain
//! differentiable code, so differentiating it again gives a second derivative.

use std::sync::Arc;

use zy_ir::{
    tangent_type, Block, BlockCall, Const, Function, Instance, Name, Op, Operand, Prim, Span,
    SsaBuilder, Terminator, Type, TypedProgram, Value,
};

use crate::activity::ArgGradient;
use crate::globals::GlobalShadows;
use crate::names;
use crate::rules::Emit;
use crate::tangent::{box_type, has_fdata, is_box, rdata_type, slot_type};
use crate::AdError;

/// Build the driver of `inst` (whose typed body is `func`), inlining its forward and pullback
/// functions `adj` (needed unless the result is an Int or Bool). `mutates`: whether the call
/// may change an object its arguments or a global reach (see [`may_mutate`]); `shadows`: the
/// globals with shadows each function reaches (see [`crate::globals`]).
pub fn driver(
    inst: &Arc<Instance>,
    func: &Function,
    adj: Option<(&Function, &Function)>,
    mutates: bool,
    shadows: &GlobalShadows,
) -> Result<(Arc<Instance>, Function), AdError> {
    let globals = shadows.reached(inst);
    let constant = is_constant(&func.ret);
    if func.ret == Type::Bottom {
        return Err(AdError::new(
            func.span,
            format!(
                "cannot differentiate `{}`: it never returns (every path throws)",
                func.name
            ),
        ));
    }
    if !is_scalar(&func.ret) && !constant {
        return Err(AdError::new(
            func.span,
            format!(
                "gradient of a non-scalar result ({})",
                zy_infer::julia_array_type(&func.ret)
            ),
        ));
    }
    // A union holding an array and a number (`Union{Float64, Vector{Float64}}`) has its
    // shadow boxed for one member and not for the other: `combine` has no run-time branch to
    // tell them apart. Such a union is an argument only of a generated union split, which
    // the gradient of a user's call differentiates through its caller, never as a root.
    if let Some(&a) = func.args().iter().find(|&&a| mixes_arrays(func.ty(a))) {
        return Err(AdError::new(
            func.span,
            format!(
                "cannot differentiate `{}` with respect to an argument of type {} directly",
                func.name,
                func.ty(a)
            ),
        ));
    }
    let act = shadows.activity(func);
    let dinst = names::driver_instance(inst);
    let mut out = Function::new(dinst.name.clone(), func.span);
    out.instance = Some(dinst.clone());
    out.arg_names = func.arg_names.clone();
    let args: Vec<_> = func
        .args()
        .iter()
        .map(|&a| {
            let d = func.value(a);
            out.add_param(Block::ENTRY, d.ty.clone(), d.span, d.name.clone())
        })
        .collect();
    let mut sb = SsaBuilder::new(out);
    let mut e = Emit {
        bcast: None,
        b: &mut sb,
        block: Block::ENTRY,
        span: func.span,
    };
    if constant {
        // An Int or Bool result: no gradient reaches any argument.
        let call_args = args.iter().map(|a| Operand::Value(*a)).collect();
        let y = e.op(Op::Invoke(inst.clone()), call_args, func.ret.clone());
        let tty = Type::tuple(args.iter().map(|_| Type::Nothing));
        let nothings = args
            .iter()
            .map(|_| Operand::Const(Const::Nothing))
            .collect();
        let t = e.prim(Prim::Tuple, nothings, tty.clone());
        let rty = Type::tuple([func.ret.clone(), tty]);
        let res = e.prim(Prim::Tuple, vec![y, t], rty.clone());
        sb.func
            .set_term(Block::ENTRY, Terminator::Return(res), func.span);
        sb.func.ret = rty;
        return Ok((dinst, sb.finish()));
    }
    if let Some((t, _)) = func
        .args()
        .iter()
        .filter_map(|&a| crate::tangent::object_array(func.ty(a)))
        .find(|(_, ok)| !ok)
    {
        let why = crate::tangent::OBJECT_ARRAY_WHY;
        return Err(AdError::new(
            func.span,
            crate::tangent::object_array_refusal(&t, why),
        ));
    }
    if mutates {
        refuse_aliases(&mut e, func, &args, globals);
    }
    let mut call_args = Vec::new();
    let mut shadows = Vec::new();
    for &a in &args {
        let ty = e.b.func.ty(a).clone();
        call_args.push(Operand::Value(a));
        let s = e.zero_fdata(a.into(), &ty);
        if let Some(s) = &s {
            call_args.push(s.clone());
        }
        shadows.push(s);
    }
    // One zero shadow per global object for this evaluation.
    for (name, ty) in globals {
        let g = e.op(Op::Global(name.clone()), vec![], ty.clone());
        call_args.extend(e.zero_fdata(g, ty));
    }
    let Some((fwd, pb)) = adj else {
        return Err(AdError::new(
            func.span,
            format!("internal: no adjoint of {inst}"),
        ));
    };
    // Forward pass; its exit returns (y, [y_f], make_pullback(f⁻, m, tape)).
    let (mut fwd_exit, r) = inline(&mut sb, Block::ENTRY, fwd, call_args);
    let parts = tuple_parts(&sb.func, &r);
    let (y, tape) = match (
        parts.first(),
        parts.last().map(|b| tuple_parts(&sb.func, b)),
    ) {
        (Some(y), Some(mp)) if mp.len() == 3 => (y.clone(), mp[2].clone()),
        _ => {
            return Err(AdError::new(
                func.span,
                format!("internal: unexpected forward function of {inst}"),
            ))
        }
    };
    // A result that may be a string (`x > 0 ? x^2 : "negative"`), `missing` or a complex
    // number: no gradient of it.
    if let Type::Union(u) = &func.ret {
        for m in u.members.iter().filter(|m| !m.is_number()) {
            let name = Operand::Const(Const::Symbol(m.to_string().as_str().into()));
            let mut e = Emit {
                bcast: None,
                b: &mut sb,
                block: fwd_exit,
                span: func.span,
            };
            let is = e.prim(Prim::UnionIsa, vec![y.clone(), name], Type::Bool);
            let (fail, next) = (sb.func.add_block(), sb.func.add_block());
            sb.func.set_term(
                fwd_exit,
                Terminator::Branch {
                    cond: is,
                    then_to: BlockCall::new(fail),
                    else_to: BlockCall::new(next),
                },
                func.span,
            );
            let why = match m {
                // Julia's `eigvals(A)[k]`, complex at run time: Zygote's `sensitivity` refuses it.
                Type::Struct(s) if &*s.name == "Base.Complex" => format!(
                    "gradient of a complex result: `{}` returned a ComplexF64 (Zygote: \
                     \"Output is complex, so the gradient is not defined.\"); differentiate a \
                     real function of it (`real(z)`, `abs2(z)`)",
                    func.name
                ),
                _ => format!(
                    "gradient of a result that is not a number: `{}` returned a {m} (its result \
                     is of type {})",
                    func.name, func.ret
                ),
            };
            let mut e = Emit {
                bcast: None,
                b: &mut sb,
                block: fail,
                span: func.span,
            };
            e.prim(
                Prim::Error,
                vec![Const::Str(why.as_str().into()).into()],
                Type::Bottom,
            );
            sb.func.set_term(fail, Terminator::Unreachable, func.span);
            fwd_exit = next;
        }
    }
    // Pullback, seeded with 1.0 (as the tangent of a union result: the Float64 member's).
    let seed = match &func.ret {
        Type::Union(_) => {
            let mut e = Emit {
                bcast: None,
                b: &mut sb,
                block: fwd_exit,
                span: func.span,
            };
            let one = Const::f64(1.0).into();
            e.prim(Prim::UnionConvert, vec![one], tangent_type(&func.ret))
        }
        Type::Float32 => Const::f32(1.0).into(),
        _ => Const::f64(1.0).into(),
    };
    let (at, g) = inline(&mut sb, fwd_exit, pb, vec![tape, seed]);
    let mut e = Emit {
        bcast: None,
        b: &mut sb,
        block: at,
        span: func.span,
    };
    let arg_tys: Vec<Type> = args.iter().map(|a| e.b.func.ty(*a).clone()).collect();
    let gty = Type::tuple(arg_tys.iter().map(rdata_type));
    if mutates && (arg_tys.iter().any(Type::is_mutable) || !globals.is_empty()) {
        // The pullback undid the call's mutations (restoring each overwritten value on its way
        // back); run the call again so the arguments and globals end as the plain call leaves
        // them.
        let again = args.iter().map(|a| Operand::Value(*a)).collect();
        e.op(Op::Invoke(inst.clone()), again, func.ret.clone());
    }
    let mut tangents = Vec::new();
    let mut ttys = Vec::new();
    for (i, ty) in arg_tys.iter().enumerate() {
        if act.args.get(i) != Some(&ArgGradient::Reaches) {
            tangents.push(Operand::Const(Const::Nothing));
            ttys.push(Type::Nothing);
            continue;
        }
        let r = e.field(g.clone(), i, &gty);
        tangents.push(gradient_of(
            &mut e,
            args[i].into(),
            shadows[i].clone(),
            r,
            ty,
        ));
        ttys.push(tangent_type(ty));
    }
    let tty = Type::tuple(ttys);
    let t = e.prim(Prim::Tuple, tangents, tty.clone());
    let rty = Type::tuple([func.ret.clone(), tty]);
    let res = e.prim(Prim::Tuple, vec![y, t], rty.clone());
    let end = e.block;
    sb.func.set_term(end, Terminator::Return(res), func.span);
    sb.func.ret = rty;
    let mut out = sb.finish();
    crate::simplify::simplify(&mut out);
    Ok((dinst, out))
}

/// Each argument (and global) gets a shadow of its own, which is right for a call that only
/// reads: the gradient of each argument position. When the call may write, two of them that
/// are one object would each see half of it (`f(v, v)` writing through the first): emit
/// checks that stop the driver, at `func`'s definition, if any two mutable objects among the
/// arguments, their parts and the globals `f` reaches are one object.
fn refuse_aliases(e: &mut Emit, func: &Function, args: &[Value], globals: &[(Name, Type)]) {
    let mut objects: Vec<(Operand, Type, String)> = Vec::new();
    for (i, &a) in args.iter().enumerate() {
        let name = func
            .arg_names
            .get(i)
            .map_or_else(|| format!("argument {}", i + 1), |n| n.to_string());
        let ty = e.b.func.ty(a).clone();
        mutable_parts(e, a.into(), &ty, name, &mut objects);
    }
    for (name, ty) in globals {
        let g = e.op(Op::Global(name.clone()), vec![], ty.clone());
        mutable_parts(e, g, ty, name.to_string(), &mut objects);
    }
    for (j, (b, tb, nb)) in objects.iter().enumerate() {
        for (a, ta, na) in &objects[..j] {
            if ta != tb {
                continue;
            }
            let message = format!(
                "cannot differentiate `{}` here: `{na}` and `{nb}` are one object, which it may write; a gradient per argument is not defined then (pass a copy)",
                func.name
            );
            let args = vec![Const::Str(message.into()).into(), a.clone(), b.clone()];
            e.prim(Prim::CheckDistinct, args, Type::Nothing);
        }
    }
}

/// The objects with identity (arrays, `Ref`s, mutable structs) in a value `x` of type `ty`:
/// itself, and those in its fields and contents.
fn mutable_parts(
    e: &mut Emit,
    x: Operand,
    ty: &Type,
    path: String,
    out: &mut Vec<(Operand, Type, String)>,
) {
    if !ty.is_differentiable() {
        return;
    }
    if ty.is_mutable() {
        out.push((x.clone(), ty.clone(), path.clone()));
    }
    match ty {
        Type::Ref(inner) => {
            let content = e.prim(Prim::RefGet, vec![x], (**inner).clone());
            mutable_parts(e, content, inner, format!("{path}[]"), out);
        }
        Type::Tuple(_) | Type::NamedTuple(_) | Type::Struct(_) => {
            let names: Vec<String> = match ty {
                Type::NamedTuple(fs) => fs.iter().map(|(n, _)| format!("{path}.{n}")).collect(),
                Type::Struct(s) => s
                    .fields
                    .iter()
                    .map(|(n, _)| format!("{path}.{n}"))
                    .collect(),
                _ => (1..)
                    .take(ty.field_types().map_or(0, |f| f.len()))
                    .map(|i| format!("{path}[{i}]"))
                    .collect(),
            };
            for (i, (ft, fname)) in ty
                .field_types()
                .unwrap_or_default()
                .iter()
                .zip(names)
                .enumerate()
            {
                if ft.is_differentiable()
                    && (ft.is_mutable() || ft.field_types().is_some() || matches!(ft, Type::Ref(_)))
                {
                    let part = e.prim(
                        Prim::GetField,
                        vec![x.clone(), Const::Int(i as i64 + 1).into()],
                        ft.clone(),
                    );
                    mutable_parts(e, part, ft, fname, out);
                }
            }
        }
        _ => {}
    }
}

/// `∇ᵖf(args...)`, what `pullback(f, args...)` in user code calls, and its user pullback
/// `∇ᵖf⁻`. `∇ᵖf` returns `(f(args...), back)`, `back` a closure holding the arguments; each call
/// `back(ȳ)` runs `f⁺` on fresh zero shadows (of the arguments and of the `globals` `f`
/// reaches) and `f⁻` seeded with `ȳ`, and returns one full tangent per argument (the callee's
/// dropped), so `back` can be called any number of times. `f` must not mutate what it did not
/// allocate (the caller checks): its forward and pullback would change the arguments.
pub fn pullback_driver(
    inst: &Arc<Instance>,
    func: &Function,
    globals: &[(Name, Type)],
) -> Result<(Function, Function), AdError> {
    let pinst = names::pullback_driver_instance(inst);
    let uinst = names::user_pullback_instance(inst);
    let span = func.span;
    // ∇ᵖf(args...) = (f(args...), make_pullback(∇ᵖf⁻, m, (args...)))
    let mut out = Function::new(pinst.name.clone(), span);
    out.instance = Some(pinst.clone());
    out.arg_names = func.arg_names.clone();
    let args: Vec<Operand> = func
        .args()
        .iter()
        .map(|&a| {
            let d = func.value(a);
            out.add_param(Block::ENTRY, d.ty.clone(), d.span, d.name.clone())
                .into()
        })
        .collect();
    let arg_tys: Vec<Type> = inst.args.to_vec();
    let mut sb = SsaBuilder::new(out);
    let mut e = Emit {
        bcast: None,
        b: &mut sb,
        block: Block::ENTRY,
        span,
    };
    let y = e.op(Op::Invoke(inst.clone()), args.clone(), func.ret.clone());
    let tape_ty = Type::tuple(arg_tys.iter().cloned());
    let tape = e.prim(Prim::Tuple, args, tape_ty.clone());
    let back_ty = Type::Pullback(names::pullback_sig(inst));
    let mp = vec![
        Const::Func(uinst.name.clone()).into(),
        Const::Int(i64::from(uinst.method)).into(),
        tape,
    ];
    let back = e.prim(Prim::MakePullback, mp, back_ty.clone());
    let rty = Type::tuple([func.ret.clone(), back_ty]);
    let r = e.prim(Prim::Tuple, vec![y, back], rty.clone());
    sb.func.set_term(Block::ENTRY, Terminator::Return(r), span);
    sb.func.ret = rty;
    let fwd = sb.finish();

    // ∇ᵖf⁻(tape, ȳ): f⁺ on the saved arguments and zero shadows, f⁻ seeded with ȳ.
    let mut out = Function::new(uinst.name.clone(), span);
    out.instance = Some(uinst);
    let tp = out.add_param(
        Block::ENTRY,
        tape_ty.clone(),
        Span::default(),
        Some("tape".into()),
    );
    let dy_ty = tangent_type(&func.ret);
    let dy = out.add_param(
        Block::ENTRY,
        dy_ty.clone(),
        Span::default(),
        Some("ȳ".into()),
    );
    let mut sb = SsaBuilder::new(out);
    let mut e = Emit {
        bcast: None,
        b: &mut sb,
        block: Block::ENTRY,
        span,
    };
    let mut call_args = Vec::new();
    let mut shadows = Vec::new();
    let mut primals = Vec::new();
    for (i, ty) in arg_tys.iter().enumerate() {
        let a = e.field(tp.into(), i, &tape_ty);
        primals.push(a.clone());
        call_args.push(a.clone());
        let s = e.zero_fdata(a, ty);
        call_args.extend(s.clone());
        shadows.push(s);
    }
    for (name, ty) in globals {
        let g = e.op(Op::Global(name.clone()), vec![], ty.clone());
        call_args.extend(e.zero_fdata(g, ty));
    }
    let fret = names::forward_ret(inst, &func.ret);
    let r = e.op(
        Op::Invoke(names::forward_instance(inst)),
        call_args,
        fret.clone(),
    );
    let nparts = fret.field_types().map_or(1, |f| f.len());
    let inner = e.field(r.clone(), nparts - 1, &fret);
    // The result's cotangent: its rdata is the pullback's seed, its fdata goes into the
    // result's shadow.
    let seed = if has_fdata(&func.ret) {
        let y_f = e.field(r, 1, &fret);
        split_cotangent(&mut e, dy.into(), y_f, &func.ret)?
    } else if rdata_type(&func.ret) == Type::Nothing {
        Const::Nothing.into()
    } else {
        dy.into()
    };
    let gty = Type::tuple(arg_tys.iter().map(rdata_type));
    let g = e.prim(Prim::CallPullback, vec![inner, seed], gty.clone());
    let skip = usize::from(names::has_callee_arg(inst));
    let mut tangents = Vec::new();
    let mut ttys = Vec::new();
    for (i, ty) in arg_tys.iter().enumerate().skip(skip) {
        let r = e.field(g.clone(), i, &gty);
        tangents.push(gradient_of(
            &mut e,
            primals[i].clone(),
            shadows[i].clone(),
            r,
            ty,
        ));
        ttys.push(tangent_type(ty));
    }
    let tty = Type::tuple(ttys);
    let t = e.prim(Prim::Tuple, tangents, tty.clone());
    let end = e.block;
    sb.func.set_term(end, Terminator::Return(t), span);
    sb.func.ret = tty;
    let mut back = sb.finish();
    crate::simplify::simplify(&mut back);
    Ok((fwd, back))
}

/// Split the cotangent `dy` of a result of type `ty` (a number, an array, or tuples of them):
/// add its array parts into the result's shadow `y_f`, and return its rdata part.
fn split_cotangent(e: &mut Emit, dy: Operand, y_f: Operand, ty: &Type) -> Result<Operand, AdError> {
    match ty {
        _ if !has_fdata(ty) => Ok(if rdata_type(ty) == Type::Nothing { Const::Nothing.into() } else { dy }),
        Type::Array(..) => {
            e.prim(Prim::AccumInto, vec![y_f, dy], Type::Nothing);
            Ok(Const::Nothing.into())
        }
        Type::Tuple(ts) => {
            let (tty, fty, rty) = (tangent_type(ty), crate::tangent::fdata_type(ty), rdata_type(ty));
            let mut parts = Vec::new();
            for (i, t) in ts.iter().enumerate() {
                let di = e.field(dy.clone(), i, &tty);
                let fi = e.field(y_f.clone(), i, &fty);
                let r = split_cotangent(e, di, fi, t)?;
                if rty != Type::Nothing {
                    parts.push(r);
                }
            }
            Ok(if rty == Type::Nothing { Const::Nothing.into() } else { e.rebuild(&rty, parts) })
        }
        _ => Err(AdError::new(e.span, format!("`pullback` of a function returning {ty} is not supported (numbers, arrays and tuples of them are)"))),
    }
}

/// Whether running `inst` may mutate an object it did not make (see [`crate::mutates`]).
pub fn may_mutate(prog: &TypedProgram, inst: &Arc<Instance>) -> bool {
    crate::mutates::may_mutate(prog, inst)
}

/// The instance that `gradient(callee, xs...)` (or `derivative`, `pullback`, `hessian`) in `f`
/// differentiates (a builtin's through its wrapper [`apply_instance`]), if known.
pub(crate) fn differentiated(
    prog: &TypedProgram,
    f: &Function,
    args: &[Operand],
) -> Option<Arc<Instance>> {
    let (callee, xs) = args.split_first()?;
    let mut tys: Vec<Type> = xs.iter().map(|x| f.operand_ty(x)).collect();
    let callee_ty = f.operand_ty(callee);
    let name = match &callee_ty {
        Type::Function(name) => name.clone(),
        Type::Struct(s) => {
            tys.insert(0, callee_ty.clone());
            zy_ir::callable_name(&s.name)
        }
        _ => return None,
    };
    let wrapper = matches!(callee_ty, Type::Function(_)).then(|| apply_instance(&callee_ty, &tys));
    prog.functions
        .keys()
        .find(|i| i.name == name && *i.args == *tys)
        .or_else(|| wrapper.as_ref().filter(|w| prog.functions.contains_key(*w)))
        .cloned()
}

/// The wrapper `#apply(f, xs...)` ([`zy_infer::APPLY`]) that inference synthesises for a
/// function value `f` of type `callee_ty` differentiated on arguments of types `xtys`.
pub(crate) fn apply_instance(callee_ty: &Type, xtys: &[Type]) -> Arc<Instance> {
    let mut args = vec![callee_ty.clone()];
    args.extend(xtys.iter().cloned());
    Arc::new(Instance {
        name: zy_infer::APPLY.into(),
        method: zy_infer::SYNTH_METHOD,
        args: args.into(),
    })
}

/// Is `op` an object that `f` itself allocates (so mutating it changes nothing the caller
/// could see before `f` hands it out)? A view such as `x'` or an element read from an array is
/// not: it may be, or share, an argument's object.
pub(crate) fn fresh(f: &Function, op: &Operand) -> bool {
    let Some(stmt) = op.as_value().and_then(|v| f.stmt(v)) else {
        return false;
    };
    match &stmt.op {
        Op::New(_) => true,
        Op::Prim(p) => matches!(
            p,
            Prim::Zeros
                | Prim::Ones
                | Prim::Fill
                | Prim::Similar
                | Prim::Copy
                | Prim::Vect
                | Prim::Hvcat
                | Prim::RefNew
                | Prim::StackNew
        ),
        _ => false,
    }
}

/// The return type of the driver of `func`: `(y, (g1, g2, ...))`.
pub fn driver_ret(func: &Function, shadows: &GlobalShadows) -> Type {
    let act = shadows.activity(func);
    let constant = is_constant(&func.ret);
    let grads = func.args().iter().enumerate().map(|(i, a)| {
        if constant || act.args.get(i) != Some(&ArgGradient::Reaches) {
            Type::Nothing
        } else {
            tangent_type(func.ty(*a))
        }
    });
    Type::tuple([func.ret.clone(), Type::tuple(grads)])
}

/// Is a result of type `t` an integer or `Bool` (or a union of them), which no gradient reaches?
pub fn is_constant(t: &Type) -> bool {
    t.is_real() && !is_scalar(t)
}

/// Can a result of type `t` be differentiated, seeded with `1.0`: a `Float64` (a `Float32`,
/// seeded with `1f0`), a value of `Any` that may be one, or a union of
/// numbers that may hold one (`s = 0; for v in x; s += v; end; s`, Julia's
/// `Union{Float64, Int64}`; `eigvals(A)[k]`, a `Float64` or a `ComplexF64`)?
pub fn is_scalar(t: &Type) -> bool {
    match t {
        Type::Float64 | Type::Float32 => true,
        // A real or complex union (`eigvals(A)[k]`), a string or `missing` beside a number,
        // or a value of `Any` that may be a Float64 (`sum(abs2, p[1] * x .+ p[2]) * p[3]` of
        // `p = Any[W, b, 0.5]`, Julia's inferred `Any`): the gradient fails when the result is
        // not a real number.
        Type::Union(u) => {
            t.is_real_or_complex()
                || (u.members.contains(&Type::Float64)
                    && (matches!(&*u.name, "Any" | "Real" | "Number")
                        || u.members.iter().all(|m| {
                            m.is_number()
                                || m.is_missing()
                                || matches!(m, Type::String | Type::SubString)
                        })))
        }
        _ => false,
    }
}

/// The operands of the `tuple`/`make_pullback` statement defining `op`.
fn tuple_parts(func: &Function, op: &Operand) -> Vec<Operand> {
    op.as_value()
        .and_then(|v| func.stmt(v))
        .map(|s| s.args.clone())
        .unwrap_or_default()
}

/// Copy `callee` into `sb.func`, entered by a jump from `from` with `args` for its arguments.
/// Returns the copy of its (single) returning block, left without a terminator, and the copy
/// of the returned operand.
fn inline(
    sb: &mut SsaBuilder,
    from: Block,
    callee: &Function,
    args: Vec<Operand>,
) -> (Block, Operand) {
    let (entry, exits) = crate::inline::copy_body(&mut sb.func, callee, args);
    sb.func.set_term(
        from,
        Terminator::Jump(BlockCall::new(entry)),
        Span::default(),
    );
    exits
        .into_iter()
        .next()
        .unwrap_or((entry, Operand::Const(Const::Nothing)))
}

/// The gradient of a vector of mutable structs (of type `ty`) from its shadow `s`, a vector of
/// boxes: `out[k] = s[k][]` for every `k`, a loop that leaves `e` in its exit block.
fn unbox_elements(e: &mut Emit, s: Operand, ty: &Type) -> Operand {
    let (tty, fty) = (tangent_type(ty), crate::tangent::fdata_type(ty));
    let (Some(boxed), Some(elem)) = (fty.elem().cloned(), tty.elem().cloned()) else {
        return s;
    };
    let span = e.span;
    let n = e.prim(Prim::Length, vec![s.clone()], Type::Int64);
    let out = e.prim(Prim::Zeros, vec![n.clone()], tty.clone());
    let f = &mut e.b.func;
    let (head, body, exit) = (f.add_block(), f.add_block(), f.add_block());
    let k: Operand = f
        .add_param(head, Type::Int64, span, Some("k".into()))
        .into();
    let start = BlockCall {
        block: head,
        args: vec![Const::Int(1).into()],
    };
    f.set_term(e.block, Terminator::Jump(start), span);
    e.block = head;
    let more = e.prim(Prim::Le, vec![k.clone(), n], Type::Bool);
    let test = Terminator::Branch {
        cond: more,
        then_to: BlockCall::new(body),
        else_to: BlockCall::new(exit),
    };
    e.b.func.set_term(head, test, span);
    e.block = body;
    let b = e.prim(Prim::GetIndex, vec![s, k.clone()], boxed);
    let g = match ty.elem() {
        Some(el) => combine(e, Some(b), Const::Nothing.into(), el),
        None => b,
    };
    e.prim(Prim::SetIndex, vec![out.clone(), g, k.clone()], elem);
    let next = e.prim(Prim::Add, vec![k, Const::Int(1).into()], Type::Int64);
    let again = BlockCall {
        block: head,
        args: vec![next],
    };
    e.b.func.set_term(body, Terminator::Jump(again), span);
    e.block = exit;
    out
}

/// The gradient of a value of type `ty` from what a shadow box holds for it (its own box,
/// for a `Ref` or mutable struct with a gradient; otherwise its gradient).
fn unbox_slot(e: &mut Emit, slot: Operand, ty: &Type) -> Operand {
    if is_box(ty) && has_fdata(ty) {
        combine(e, Some(slot), Const::Nothing.into(), ty)
    } else {
        slot
    }
}

/// Is `t` a union with an array member (whose shadow is the array's, not a box)?
fn mixes_arrays(t: &Type) -> bool {
    matches!(t, Type::Union(u) if u.members.iter().any(|m| matches!(m, Type::Array(..) | Type::Adjoint(_))))
}

/// The full tangent of the argument `x` of type `ty` from its shadow `s` and rdata `r`. One
/// holding a recursive struct with a box per node or both parts per node
/// ([`crate::tangent::split_recursion`]) is read out of them at run time, node by node as
/// deep as the data (`tangent_of`); others field by field, to a depth fixed here.
fn gradient_of(e: &mut Emit, x: Operand, s: Option<Operand>, r: Operand, ty: &Type) -> Operand {
    if crate::tangent::split_recursion(ty).is_none() {
        return combine(e, s, r, ty);
    }
    let s = s.unwrap_or(Operand::Const(Const::Nothing));
    e.prim(Prim::TangentOf, vec![x, s, r], tangent_type(ty))
}

/// The full tangent of a value of type `ty` from its shadow `s` and rdata `r`.
fn combine(e: &mut Emit, s: Option<Operand>, r: Operand, ty: &Type) -> Operand {
    let tty = tangent_type(ty);
    let Some(s) = s.filter(|_| has_fdata(ty)) else {
        return if tty == Type::Nothing {
            Const::Nothing.into()
        } else {
            r
        };
    };
    // A struct whose shape depends on the data, all shadow (arrays and its own type, as deep
    // as the data): the shadow is its gradient.
    if ty.holds_recursion() && crate::tangent::fdata_type(ty) == tty {
        return s;
    }
    match ty {
        Type::Array(el, _) if crate::tangent::boxed_elements(el) => unbox_elements(e, s, ty),
        Type::Array(..) | Type::Adjoint(_) => s,
        // A value of an abstract type whose members are mutable structs: what its box holds.
        Type::Union(_) => e.prim(Prim::RefGet, vec![s], tty),
        Type::Ref(inner) => {
            let x = e.prim(Prim::RefGet, vec![s], slot_type(inner));
            let x = unbox_slot(e, x, inner);
            e.rebuild(&tty, vec![x])
        }
        Type::Struct(st) if st.mutable => {
            let contents = box_type(ty);
            let g = e.prim(Prim::RefGet, vec![s], contents.clone());
            if contents == tty {
                return g;
            }
            let ftys = ty.field_types().unwrap_or_default();
            let parts = ftys
                .iter()
                .enumerate()
                .map(|(i, ft)| {
                    let slot = e.field(g.clone(), i, &contents);
                    unbox_slot(e, slot, ft)
                })
                .collect();
            e.rebuild(&tty, parts)
        }
        _ => {
            let ftys = ty.field_types().unwrap_or_default();
            let (sty, rty) = (crate::tangent::fdata_type(ty), rdata_type(ty));
            let mut parts = Vec::new();
            for (i, ft) in ftys.iter().enumerate() {
                let si = has_fdata(ft).then(|| e.field(s.clone(), i, &sty));
                let ri = if rty == Type::Nothing {
                    Const::Nothing.into()
                } else {
                    e.field(r.clone(), i, &rty)
                };
                parts.push(combine(e, si, ri, ft));
            }
            e.rebuild(&tty, parts)
        }
    }
}
