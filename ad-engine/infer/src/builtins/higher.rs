//! Higher-order builtins: `map(f, xs)`, `map(f, xs, ys)`, `sum(f, xs)`, `broadcast(f, ...)` and
//! `checkpointed(f, args...)`. With a builtin scalar `f`, `map` and `broadcast` are a
//! `Prim::Broadcast`; otherwise the call invokes a synthesised instance (see [`crate::synth`])
//! that loops over the elements. Broadcasting over tuples (and scalars) unrolls into one call per
//! position and builds a tuple, as Julia's broadcast does for tuples; so does `map` over tuples
//! of one length, and `ntuple(f, n)` of a literal `n` into `n` calls. `checkpointed` always invokes one, whose body is the call
//! `f(args...)`: the AD recognises it and recomputes `f` in the pullback.

use zy_ir::{Const, Instance, Name, Op, Prim, Type};

use crate::builtins::array;
use crate::calls::{builtin_of, Cx};
use crate::dispatch;
use crate::error::{no_method, Fail};
use crate::plan::{Arg, PlanBuilder};
use crate::type_params::val_int;
use crate::value::{types, Val};
use crate::SYNTH_METHOD;

/// Dispatch the higher-order builtins; `None` if `name` is not one.
pub(crate) fn call(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    name: &str,
    args: &[Val],
) -> Option<Result<Val, Fail>> {
    Some(match (name, args) {
        ("map", [f, xs @ ..]) if !xs.is_empty() => {
            map(cx, b, f, xs, args).map(|v| narrow_eltype(cx, b, v))
        }
        ("map", _) => Err(no_method("map", &types(args))),
        ("_map_each", [f, xs @ ..]) if !xs.is_empty() => map(cx, b, f, xs, args),
        ("_map_each", _) => Err(no_method("_map_each", &types(args))),
        ("_narrow_eltype", [ys]) => Ok(narrow_eltype(cx, b, ys.clone())),
        ("_narrow_eltype", _) => Err(no_method("_narrow_eltype", &types(args))),
        ("_widen_results", [ys, it]) => Ok(widen_results(cx, b, ys, it)),
        ("_widen_results", _) => Err(no_method("_widen_results", &types(args))),
        // A dictionary's entry: Julia's `Pair{K, V}` of its key and value types.
        (crate::calls::OPEN_PAIR, [_, _]) => match cx.program.structs.get("Base.Pair") {
            Some(def) => dispatch::construct(cx.program, def, b, args),
            None => Err(no_method(crate::calls::OPEN_PAIR, &types(args))),
        },
        (crate::calls::OPEN_PAIR, _) => Err(no_method(crate::calls::OPEN_PAIR, &types(args))),
        ("sum", [f, xs]) => sum(cx, b, f, xs, args),
        ("broadcast", [f, xs @ ..]) if !xs.is_empty() => {
            broadcast(cx, b, f, xs, args).map(|v| narrow_eltype(cx, b, v))
        }
        ("broadcast", _) => Err(no_method("broadcast", &types(args))),
        ("checkpointed", [f, xs @ ..]) => checkpointed(cx, b, f, xs, args),
        ("checkpointed", _) => Err(no_method("checkpointed", &types(args))),
        ("ntuple", [f, n]) if n.ty == Type::Int64 || val_int(&n.ty).is_some() => {
            ntuple(cx, b, f, n)
        }
        ("ntuple", _) => Err(no_method("ntuple", &types(args))),
        _ => return None,
    })
}

/// The builtin that `f` applies to each element of `xs` (a scalar stands for itself): a builtin
/// function value (one the program does not define), or a library function written in Julia
/// that also has a builtin's methods (`Base.exp`, which has a method for matrices) when none
/// of its written methods applies to the elements, so that each element's call is the
/// builtin's, as [`Cx::call_generic`] falls back to it.
fn builtin_func(cx: &Cx, f: &Val, xs: &[Val]) -> Option<Name> {
    let Type::Function(n) = &f.ty else {
        return None;
    };
    if cx.program.structs.contains_key(n) || cx.program.globals.contains_key(n) {
        return None;
    }
    let Some(gf) = cx.program.functions.get(n) else {
        return Some(n.clone());
    };
    let builtin = builtin_of(n)?;
    let elems: Vec<Type> = xs
        .iter()
        .map(|x| match &x.ty {
            Type::Array(e, _) | Type::Adjoint(e) => (**e).clone(),
            t => t.clone(),
        })
        .collect();
    dispatch::select(cx.signatures, cx.program, gf, &elems)
        .is_err_and(|f| !f.is_ambiguity())
        .then(|| Name::from(builtin))
}

/// The element types of the array operands (scalars stand for themselves) and their common
/// number of dimensions; arrays must all have the same (rows `x'` are handled before).
fn shape(xs: &[Val]) -> Result<(Vec<Type>, Option<u8>), Fail> {
    let mut n = None;
    let mut elems = Vec::new();
    for x in xs {
        match &x.ty {
            Type::Array(e, k) => {
                if n.is_some_and(|m| m != *k) {
                    return Err(Fail::unsupported(
                        "mapping over arrays of different dimensions; index them in a comprehension \
                         (`[f(x[i], A[i, j]) for i in 1:size(A, 1), j in 1:size(A, 2)]`) \
                         instead",
                    ));
                }
                n = Some(*k);
                elems.push((**e).clone());
            }
            t => elems.push(t.clone()),
        }
    }
    Ok((elems, n))
}

/// Check that `f` applied to the elements gives what an array holds (numbers, and for `map`
/// and broadcasting also arrays, structs and tuples); `sum` adds numbers only.
fn element_result(cx: &mut Cx, f: &Val, elems: &[Type], what: &str) -> Result<Type, Fail> {
    let r = cx.callee_result(f, elems)?;
    let holds = if what == "sum" {
        r == Type::Bottom
            || r.is_number()
            || matches!(&r, Type::Union(u) if r.is_real() && u.is_julias())
    } else {
        super::data::is_element_type(&r)
    };
    if !holds {
        let why = super::data::nested_elements(&r).unwrap_or_default();
        return Err(Fail::unsupported(format!(
            "`{what}` of a function returning {r}: {why}"
        )));
    }
    Ok(r)
}

/// `[a, b]` of values one of which is Julia's union of numbers and strings
/// ([`crate::open::runtime_element`]: `[x > 0 ? "a" : 1]`): Julia's element type is the
/// `promote_type` of the values' types, known at run time. The values are stored as they are
/// in a vector of the union of their types (and of the numbers and strings the function
/// stores into it), whose type the synthesised [`crate::synth::PROMOTE`] then takes from
/// them. `None` for another call or other values.
pub(crate) fn runtime_literal(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    name: &str,
    args: &[Val],
) -> Option<Result<Val, Fail>> {
    if name != "vect" || !args.iter().any(|a| crate::open::runtime_element(&a.ty)) {
        return None;
    }
    let mut members = Vec::new();
    for a in args {
        match &a.ty {
            Type::Union(u) if crate::open::runtime_element(&a.ty) => {
                members.extend(u.members.iter().cloned())
            }
            t if t.is_number() || *t == Type::String => members.push(t.clone()),
            _ => return None,
        }
    }
    // What the function stores into it, should it be a `Vector{Any}` (`push!(v, 2.5)`).
    let plain = |t: &&Type| t.is_number() || **t == Type::String;
    members.extend(cx.any_held.iter().filter(plain).cloned());
    members.sort();
    members.dedup();
    let mut names: Vec<String> = members.iter().map(ToString::to_string).collect();
    names.sort();
    let elem = Type::union(
        format!("Union{{{}}}", names.join(", ")).as_str().into(),
        members,
    );
    Some((|| {
        let vals = args
            .iter()
            .map(|a| crate::value::convert(b, a.clone(), &elem))
            .collect::<Result<Vec<_>, _>>()?;
        let refs: Vec<&Val> = vals.iter().collect();
        let ys = crate::value::apply(b, Prim::Vect, &refs, crate::value::array(elem, 1));
        Ok(invoke_synth(cx, b, crate::synth::PROMOTE, &[ys]))
    })())
}

/// `ys` with its element type taken from its values where it is an array of results of a call
/// on a container of `Any` ([`crate::open::narrows`]): the synthesised
/// [`crate::synth::NARROW`]; else `ys` itself.
fn narrow_eltype(cx: &mut Cx, b: &mut PlanBuilder, ys: Val) -> Val {
    match &ys.ty {
        Type::Array(e, _) if crate::open::narrows(e) => {
            invoke_synth(cx, b, crate::synth::NARROW, std::slice::from_ref(&ys))
        }
        _ => ys,
    }
}

/// `_widen_results(ys, it)`: the empty array `ys` of the results of a comprehension's function
/// on no elements of `it`, typed by what the function returns. Where it returns nothing on
/// what `it` holds (`s.grade` of a value of `Any` of which no type zy holds it as has the field)
/// and those are values of `Any`, Julia's inference says `Any`, so the array is a `Vector{Any}`
/// (`[s.grade for s in Any[]]` is `Any[]`); `ys` itself otherwise.
fn widen_results(cx: &mut Cx, b: &mut PlanBuilder, ys: &Val, it: &Val) -> Val {
    if !matches!(&ys.ty, Type::Array(e, _) if **e == Type::Bottom) {
        return ys.clone();
    }
    let elem_of = Val::lit(Const::Func("Base._gen_elem".into()));
    let open = |t: &Type| matches!(t, Type::Union(u) if crate::open::is_open(&u.name));
    let of_any = match cx.callee_result(&elem_of, &[it.ty.clone(), Type::Int64]) {
        Ok(Type::Tuple(ts)) => ts.iter().any(open),
        Ok(t) => open(&t),
        Err(_) => false,
    };
    match crate::open::open_union("Any", &[]) {
        Some(any) if of_any => {
            let none: [Val; 0] = [];
            crate::value::apply(b, Prim::Vect, &none, crate::value::array(any, 1))
        }
        _ => ys.clone(),
    }
}

fn invoke_synth(cx: &mut Cx, b: &mut PlanBuilder, name: &str, args: &[Val]) -> Val {
    let inst = Instance {
        name: name.into(),
        method: SYNTH_METHOD,
        args: types(args).into(),
    };
    let (inst, ret) = cx.invoke(inst);
    let ops = args.iter().map(|a| a.arg.clone()).collect();
    Val::of(b.push(Op::Invoke(inst), ops, ret.clone()), ret)
}

fn map(cx: &mut Cx, b: &mut PlanBuilder, f: &Val, xs: &[Val], args: &[Val]) -> Result<Val, Fail> {
    if let Some(zipped) = zip_vectors(cx, b, xs)? {
        let mut call = vec![f.clone()];
        call.extend(zipped.iter().cloned());
        return map_zipped(cx, b, f, &zipped, &call);
    }
    map_zipped(cx, b, f, xs, args)
}

/// `map(f, xs...)` of collections [`zip_vectors`] has paired (or left as they are).
fn map_zipped(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    f: &Val,
    xs: &[Val],
    args: &[Val],
) -> Result<Val, Fail> {
    // `map(f, nt...)` of named tuples with the same names: the named tuple of the results.
    if let Some(Type::NamedTuple(first)) = xs.first().map(|x| &x.ty) {
        let names: Vec<_> = first.iter().map(|(n, _)| n.clone()).collect();
        let same = |x: &Val| matches!(&x.ty, Type::NamedTuple(fs) if fs.iter().map(|(n, _)| n).eq(names.iter()));
        if !xs.iter().all(same) {
            return Err(Fail::method(
                "ArgumentError: Named tuple names do not match.",
            ));
        }
        let tuples: Vec<Val> = xs.iter().map(|x| super::named::values(b, x)).collect();
        let t = broadcast_tuples(cx, b, f, &tuples)?;
        return Ok(super::named::rename(b, &names, &t));
    }
    if let [Type::Tuple(first), rest @ ..] = types(xs).as_slice() {
        if rest
            .iter()
            .all(|t| matches!(t, Type::Tuple(ts) if ts.len() == first.len()))
        {
            return broadcast_tuples(cx, b, f, xs);
        }
        return Err(Fail::unsupported(
            "`map` over tuples of different lengths; map tuples of one length instead",
        ));
    }
    if xs.iter().all(|x| matches!(x.ty, Type::Adjoint(_))) {
        return over_rows(cx, b, f, xs, map);
    }
    if xs.iter().any(|x| !matches!(x.ty, Type::Array(..))) {
        return Err(no_method("map", &types(args)));
    }
    let matrices = xs.len() > 1
        && xs
            .iter()
            .any(|x| matches!(x.ty, Type::Array(_, k) if k > 1));
    let numbers = xs
        .iter()
        .all(|x| matches!(&x.ty, Type::Array(e, _) if e.is_number()));
    // Several arrays of one shape (checked by the synthesised loop: Julia's `zip` does not
    // extend a dimension of length 1 as broadcasting does), and arrays of tuples or structs
    // (`map(first, ts)`: the loop's reads differentiate), map by the synthesised loop.
    if let Some(name) = builtin_func(cx, f, xs).filter(|_| !matrices && numbers) {
        // As for `broadcast`: a builtin that is not one primitive on the elements (`+` of
        // three, `*` of a Float64 and a Bool) maps as a Julia function.
        if let Some(v) = array::broadcast_prim(cx, b, &name, xs)? {
            return Ok(v);
        }
    }
    let (elems, _) = shape(xs)?;
    element_result(cx, f, &elems, "map")?;
    Ok(invoke_synth(cx, b, "map", args))
}

/// `map(f, xs...)` of several collections, an array among them, as Julia's (since 1.5) zips
/// them: vectors and tuples stop at the shortest, and arrays of different numbers of
/// dimensions are read in linear order into a Vector; only arrays all of one number of
/// dimensions above 1 keep their shape (which must be one). The prelude's
/// `Base._zip_vectors(xs...)` gives the Vectors of the first `n` elements of each; `None`
/// where the arrays keep their shape, or for one collection.
fn zip_vectors(cx: &mut Cx, b: &mut PlanBuilder, xs: &[Val]) -> Result<Option<Vec<Val>>, Fail> {
    let ranks: Vec<Option<u8>> = xs
        .iter()
        .map(|x| match &x.ty {
            Type::Array(_, k) => Some(*k),
            _ => None,
        })
        .collect();
    let arrays = ranks.iter().flatten().count();
    let tuples = xs.iter().filter(|x| matches!(x.ty, Type::Tuple(_))).count();
    let helper: Name = "Base._zip_vectors".into();
    if xs.len() < 2
        || arrays == 0
        || arrays + tuples < xs.len()
        || !cx.program.functions.contains_key(&helper)
    {
        // (A program without the prelude maps vectors of one length.)
        return Ok(None);
    }
    if tuples == 0
        && ranks
            .iter()
            .all(|k| *k == ranks[0] && k.is_some_and(|k| k > 1))
    {
        return Ok(None);
    }
    for x in xs {
        if let Type::Tuple(ts) = &x.ty {
            if ts.is_empty() || ts.iter().any(|t| t != &ts[0]) {
                return Err(Fail::unsupported(format!(
                    "`map` over a tuple of elements of different types ({}) and an array; \
                     Julia passes each element as it is, zy would promote them: map a vector \
                     `[t...]` or a tuple of one element type instead",
                    x.ty
                )));
            }
        }
    }
    let zipped = cx.call_named(b, &helper, xs)?;
    let Type::Tuple(ts) = zipped.ty.clone() else {
        return Err(Fail::unsupported("`map` of collections zip cannot pair"));
    };
    Ok(Some(
        ts.iter()
            .enumerate()
            .map(|(i, t)| {
                let idx = Arg::Const(Const::Int(i as i64 + 1));
                Val::of(
                    b.prim(Prim::GetField, vec![zipped.arg.clone(), idx], t.clone()),
                    t.clone(),
                )
            })
            .collect(),
    ))
}

fn sum(cx: &mut Cx, b: &mut PlanBuilder, f: &Val, xs: &Val, args: &[Val]) -> Result<Val, Fail> {
    let Type::Array(e, _) = &xs.ty else {
        return Err(no_method("sum", &types(args)));
    };
    let r = cx.callee_result(f, &[(**e).clone()])?;
    if matches!(&r, Type::Struct(s) if &*s.name == "Base.Complex") {
        // Complex values add as Julia code (the prelude's `+`).
        return cx.call_named(b, &"Base._complex_mapsum".into(), args);
    }
    if crate::pattern::is_user_number(&r, cx.program) {
        // The program's own numbers add by its `+` (Julia's `mapreduce(f, +, xs)`).
        return cx.call_named(b, &"Base._number_mapsum".into(), args);
    }
    if matches!(&r, Type::Union(u) if crate::open::is_open(&u.name)) {
        // Values whose types differ by element (a method per type of a `Vector{Any}`'s
        // elements): Julia's fold, each step dispatched on the values' own types.
        return cx.call_named(b, &"Base._open_mapsum".into(), args);
    }
    if matches!(r, Type::Float32 | Type::Int(_)) {
        // Float32s or fixed-width integers: the sum of the mapped array, in Julia's `add_sum`
        // type.
        let mapped = map(cx, b, f, std::slice::from_ref(xs), args)?;
        return cx.call_named(b, &"sum".into(), &[mapped]);
    }
    element_result(cx, f, &[(**e).clone()], "sum")?;
    Ok(invoke_synth(cx, b, "sum", args))
}

fn broadcast(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    f: &Val,
    xs: &[Val],
    args: &[Val],
) -> Result<Val, Fail> {
    let arrays = xs
        .iter()
        .any(|x| matches!(x.ty, Type::Array(..) | Type::Adjoint(_)));
    if let Some(xs) = tuples_as_vectors(b, xs).filter(|_| arrays) {
        return broadcast(cx, b, f, &xs, args);
    }
    if xs
        .iter()
        .any(|x| matches!(x.ty, Type::Tuple(_)) && boxed_scalar(x, arrays).is_none())
    {
        return broadcast_tuples(cx, b, f, xs);
    }
    if let Some(xs) = unbox_scalars(b, xs, !arrays) {
        let mut args = vec![f.clone()];
        args.extend(xs.iter().cloned());
        if !arrays {
            // Nothing is broadcast over: the call on the elements (`f.(Ref(v))` is `f(v)`).
            return cx.call_value(b, &args);
        }
        return broadcast(cx, b, f, &xs, &args);
    }
    if let Some(name) = builtin_func(cx, f, xs) {
        // A builtin that is one primitive on the elements is a `Prim::Broadcast`; another
        // (`x .* mask`, a Float64 times a Bool) is broadcast as a Julia function.
        if let Some(v) = array::broadcast_prim(cx, b, &name, xs)? {
            return Ok(v);
        }
    }
    if xs.iter().any(|x| matches!(x.ty, Type::Adjoint(_))) {
        return broadcast_with_rows(cx, b, f, xs);
    }
    let extended = extended(cx, b, f, xs)?;
    let (xs, args) = match &extended {
        Some(call) => (&call[1..], &call[..]),
        None => (xs, args),
    };
    let (mut elems, n) = shape(xs)?;
    for (e, x) in elems.iter_mut().zip(xs) {
        if let Some(t) = boxed_scalar(x, n.is_some()) {
            *e = t.clone();
        }
    }
    if n.is_none() {
        // `f.(x)` on scalars is the call itself.
        return cx.call_value(b, args);
    }
    element_result(cx, f, &elems, "broadcast")?;
    Ok(invoke_synth(cx, b, "broadcast", args))
}

/// The call `f(xs...)` of a broadcast by a Julia function over several arrays whose shapes may
/// differ, its arrays extended to their common shape by the prelude (Julia extends a dimension
/// of length 1): `Base._broadcast_vectors(xs...)` for vectors, `Base._broadcast_matrices` where
/// a matrix is among them; the synthesised loop then reads all at one index. `None` when no
/// array needs extending (one array, or arrays of more dimensions, which must agree).
fn extended(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    f: &Val,
    xs: &[Val],
) -> Result<Option<Vec<Val>>, Fail> {
    let dims: Vec<u8> = xs
        .iter()
        .filter_map(|x| match x.ty {
            Type::Array(_, k) => Some(k),
            _ => None,
        })
        .collect();
    let helper: Name = match dims.iter().max() {
        _ if dims.len() < 2 => return Ok(None),
        Some(1) => "Base._broadcast_vectors".into(),
        Some(2) => "Base._broadcast_matrices".into(),
        _ => return Ok(None),
    };
    if !cx.program.functions.contains_key(&helper) {
        return Ok(None);
    }
    let t = cx.call_named(b, &helper, xs)?;
    let Type::Tuple(ts) = t.ty.clone() else {
        return Err(Fail::unsupported("`broadcast` of arrays it cannot extend"));
    };
    let mut call = vec![f.clone()];
    for (i, ty) in ts.iter().enumerate() {
        let idx = Arg::Const(Const::Int(i as i64 + 1));
        call.push(Val::of(
            b.prim(Prim::GetField, vec![t.arg.clone(), idx], ty.clone()),
            ty.clone(),
        ));
    }
    Ok(Some(call))
}

/// Whether `x` is a container of one element that Julia broadcasts as a scalar beside the
/// other operands: a `Ref(v)`, or a 1-tuple `(v,)` beside an array (`x .- Ref(m)`,
/// `in.(x, (S,))`).
fn boxed_scalar(x: &Val, arrays: bool) -> Option<&Type> {
    match &x.ty {
        Type::Ref(t) => Some(t),
        Type::Tuple(ts) if arrays && ts.len() == 1 => Some(&ts[0]),
        _ => None,
    }
}

/// The operands of a broadcast beside arrays with each tuple of two or more numbers (or
/// strings) of one type replaced by the vector of its elements: Julia broadcasts a tuple as a
/// 1-d collection (`x .^ (1, 2)`, `("a", "b") .== names`). `None` when there is no such tuple,
/// or another tuple stays.
fn tuples_as_vectors(b: &mut PlanBuilder, xs: &[Val]) -> Option<Vec<Val>> {
    let homogeneous = |x: &Val| match &x.ty {
        Type::Tuple(ts) if ts.len() > 1 => ((ts[0].is_number() || ts[0] == Type::String)
            && ts.iter().all(|t| *t == ts[0]))
        .then(|| ts.clone()),
        _ => None,
    };
    let tuple = |x: &Val| matches!(&x.ty, Type::Tuple(ts) if ts.len() > 1);
    if !xs.iter().any(tuple) || xs.iter().any(|x| tuple(x) && homogeneous(x).is_none()) {
        return None;
    }
    Some(
        xs.iter()
            .map(|x| {
                let Some(ts) = homogeneous(x) else {
                    return x.clone();
                };
                let elems = (0..ts.len())
                    .map(|k| {
                        let idx = Arg::Const(Const::Int(k as i64 + 1));
                        b.prim(Prim::GetField, vec![x.arg.clone(), idx], ts[k].clone())
                    })
                    .collect();
                let ty = Type::Array(std::sync::Arc::new(ts[0].clone()), 1);
                Val::of(b.prim(Prim::Vect, elems, ty.clone()), ty)
            })
            .collect(),
    )
}

/// The operands of a broadcast with each boxed scalar (see [`boxed_scalar`]) replaced by its
/// element: all of them (`everything`, where no operand is broadcast over), or those holding a
/// number. `None` when nothing is replaced. A boxed array, tuple or struct beside arrays stays
/// boxed: the synthesised broadcast passes its element whole to every call.
fn unbox_scalars(b: &mut PlanBuilder, xs: &[Val], everything: bool) -> Option<Vec<Val>> {
    let arrays = xs
        .iter()
        .any(|x| matches!(x.ty, Type::Array(..) | Type::Adjoint(_)));
    let unboxed = |x: &Val| {
        boxed_scalar(x, arrays)
            .filter(|t| everything || t.is_number())
            .cloned()
    };
    if !xs.iter().any(|x| unboxed(x).is_some()) {
        return None;
    }
    Some(
        xs.iter()
            .map(|x| match unboxed(x) {
                Some(ty) => unbox(b, x, ty),
                None => x.clone(),
            })
            .collect(),
    )
}

/// The element `ty` of the boxed scalar `x`: `x[]` of a `Ref`, `x[1]` of a 1-tuple.
fn unbox(b: &mut PlanBuilder, x: &Val, ty: Type) -> Val {
    let (p, ops) = match x.ty {
        Type::Ref(_) => (Prim::RefGet, vec![x.arg.clone()]),
        _ => (
            Prim::GetField,
            vec![x.arg.clone(), Arg::Const(Const::Int(1))],
        ),
    };
    Val::of(b.prim(p, ops, ty.clone()), ty)
}

/// `map` or `broadcast` of `f` over rows `x'` of vectors (and numbers): `over` of their parent
/// vectors, as a row (Julia's `map` of an `Adjoint`, and the shape broadcasting gives).
fn over_rows(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    f: &Val,
    xs: &[Val],
    over: fn(&mut Cx, &mut PlanBuilder, &Val, &[Val], &[Val]) -> Result<Val, Fail>,
) -> Result<Val, Fail> {
    let parents: Vec<Val> = xs
        .iter()
        .map(|x| match &x.ty {
            Type::Adjoint(e) => {
                let ty = Type::Array(e.clone(), 1);
                Val::of(b.prim(Prim::Adjoint, vec![x.arg.clone()], ty.clone()), ty)
            }
            _ => x.clone(),
        })
        .collect();
    let mut args = vec![f.clone()];
    args.extend(parents.iter().cloned());
    let v = over(cx, b, f, &parents, &args)?;
    match &v.ty {
        Type::Array(e, 1)
            if e.is_number() || **e == Type::Float32 || matches!(**e, Type::Int(_)) =>
        {
            let ty = Type::Adjoint(e.clone());
            Ok(Val::of(b.prim(Prim::Adjoint, vec![v.arg], ty.clone()), ty))
        }
        t => Err(Fail::unsupported(format!(
            "a row of {t}: mapping over an adjoint gives a row of numbers only"
        ))),
    }
}

/// `broadcast(f, ...)` of a function that is not one primitive, with rows `x'` among the
/// operands: over rows and numbers a row; a vector with a row the matrix of `f(x[i], y[j])`
/// (the prelude's `Base._outer_broadcast`), as Julia's shapes give.
fn broadcast_with_rows(cx: &mut Cx, b: &mut PlanBuilder, f: &Val, xs: &[Val]) -> Result<Val, Fail> {
    if xs.iter().all(|x| {
        matches!(x.ty, Type::Adjoint(_) | Type::Float32 | Type::Int(_)) || x.ty.is_number()
    }) {
        return over_rows(cx, b, f, xs, broadcast);
    }
    let parent = |b: &mut PlanBuilder, x: &Val, e: &std::sync::Arc<Type>| {
        let ty = Type::Array(e.clone(), 1);
        Val::of(b.prim(Prim::Adjoint, vec![x.arg.clone()], ty.clone()), ty)
    };
    match (&xs[0].ty, xs.get(1).map(|y| &y.ty), xs.len()) {
        (Type::Array(_, 1), Some(Type::Adjoint(e)), 2) => {
            let y = parent(b, &xs[1], e);
            let args = [f.clone(), xs[0].clone(), y];
            cx.call_named(b, &"Base._outer_broadcast".into(), &args)
        }
        (Type::Adjoint(e), Some(Type::Array(_, 1)), 2) => {
            let x = parent(b, &xs[0], e);
            let args = [f.clone(), xs[1].clone(), x];
            cx.call_named(b, &"Base._outer_broadcast_flipped".into(), &args)
        }
        _ => Err(Fail::unsupported(
            "broadcasting a function over a row `x'` with operands other than one vector or \
             numbers; index them in a comprehension (`[f(x[i], y[j]) for i in 1:length(x), j in \
             1:length(y)]`) instead",
        )),
    }
}

/// `broadcast(f, xs...)` where some operands are tuples and the others numbers: the tuple of
/// `f` applied position by position, a tuple of length 1 or a number standing for every
/// position. Lengths that differ otherwise are Julia's DimensionMismatch, at run time.
fn broadcast_tuples(cx: &mut Cx, b: &mut PlanBuilder, f: &Val, xs: &[Val]) -> Result<Val, Fail> {
    let mut n = 1;
    for x in xs {
        match &x.ty {
            Type::Tuple(ts) if ts.len() == n || ts.len() == 1 => {}
            Type::Tuple(ts) if n == 1 => n = ts.len(),
            Type::Tuple(ts) => {
                let message = format!(
                    "arrays could not be broadcast to a common size; got a dimension with \
                     lengths {n} and {}",
                    ts.len()
                );
                let ops = vec![
                    Arg::Const(Const::Symbol("DimensionMismatch".into())),
                    Arg::Const(Const::Str(message.into())),
                ];
                return Ok(Val::of(
                    b.prim(Prim::Error, ops, Type::Bottom),
                    Type::Bottom,
                ));
            }
            t if t.is_number() => {}
            Type::Ref(_) => {}
            t => {
                return Err(Fail::unsupported(format!(
                    "broadcasting a tuple with {t} (write the tuple as a vector, `[t...]`, to \
                     broadcast it with arrays)"
                )))
            }
        }
    }
    let mut results = Vec::with_capacity(n);
    for i in 0..n {
        let mut call = vec![f.clone()];
        for x in xs {
            call.push(match &x.ty {
                Type::Tuple(ts) => {
                    let k = if ts.len() == 1 { 0 } else { i };
                    let idx = Arg::Const(Const::Int(k as i64 + 1));
                    let ty = ts[k].clone();
                    Val::of(
                        b.prim(Prim::GetField, vec![x.arg.clone(), idx], ty.clone()),
                        ty,
                    )
                }
                Type::Ref(t) => unbox(b, x, (**t).clone()),
                _ => x.clone(),
            });
        }
        results.push(cx.call_value(b, &call)?);
    }
    let ty = Type::tuple(results.iter().map(|r| r.ty.clone()));
    let ops = results.into_iter().map(|r| r.arg).collect();
    Ok(Val::of(b.prim(Prim::Tuple, ops, ty.clone()), ty))
}

/// The longest tuple `ntuple` unrolls.
const NTUPLE_MAX: i64 = 64;

/// `ntuple(f, n)` for a literal `n`, or `ntuple(f, Val(n))` (of the `Val`'s parameter): the tuple
/// `(f(1), ..., f(n))`, one call per position in order. A tuple's length is part of its type,
/// so `n` must be known where the call is compiled.
fn ntuple(cx: &mut Cx, b: &mut PlanBuilder, f: &Val, n: &Val) -> Result<Val, Fail> {
    let Some(n) = n.int().or_else(|| val_int(&n.ty)) else {
        return Err(Fail::unsupported(
            "`ntuple(f, n)` with a length that is not a literal (a tuple's length is part of its \
             type); write the length (`ntuple(f, 3)`), or build a vector (`[f(i) for i in 1:n]`)",
        ));
    };
    if n < 0 {
        let ops = vec![
            Arg::Const(Const::Symbol("ArgumentError".into())),
            Arg::Const(Const::Str(
                format!("tuple length should be ≥ 0, got {n}").into(),
            )),
        ];
        return Ok(Val::of(
            b.prim(Prim::Error, ops, Type::Bottom),
            Type::Bottom,
        ));
    }
    if n > NTUPLE_MAX {
        return Err(Fail::unsupported(format!(
            "`ntuple(f, {n})`: tuples longer than {NTUPLE_MAX}; build a vector instead"
        )));
    }
    let mut results = Vec::with_capacity(n as usize);
    for i in 1..=n {
        results.push(cx.call_value(b, &[f.clone(), Val::lit(Const::Int(i))])?);
    }
    let ty = Type::tuple(results.iter().map(|r| r.ty.clone()));
    let ops = results.into_iter().map(|r| r.arg).collect();
    Ok(Val::of(b.prim(Prim::Tuple, ops, ty.clone()), ty))
}

/// `checkpointed(f, args...)`: the value of `f(args...)`, through a synthesised instance.
fn checkpointed(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    f: &Val,
    xs: &[Val],
    args: &[Val],
) -> Result<Val, Fail> {
    cx.callee_result(f, &types(xs))?;
    Ok(invoke_synth(cx, b, "checkpointed", args))
}
