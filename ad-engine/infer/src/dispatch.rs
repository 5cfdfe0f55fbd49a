//! Method selection (the most specific applicable method, as Julia dispatches) and the default
//! constructors of user structs.

use std::sync::Arc;

use zy_ir::{
    GenericFunction, Name, Op, Program, StructDef, StructKind, StructType, Type, TypeExpr,
};

use crate::error::{ambiguous, no_method, Fail};
use crate::pattern::{
    concrete, dims_type, matches, matches_as_julia, pattern, subtype, with_bounds, Bindings,
    NumClass, Pat,
};
use crate::plan::PlanBuilder;
use crate::signatures::Signatures;
use crate::value::{convert, Val};

/// The index of the most specific method of `gf` applicable to `args` (`sigs` memoises the
/// patterns of the program's methods).
pub(crate) fn select(
    sigs: &Signatures,
    program: &Program,
    gf: &GenericFunction,
    args: &[Type],
) -> Result<u32, Fail> {
    match select_among(sigs, program, gf, None, args)? {
        Choice::Method(i) => Ok(i),
        Choice::Default => Err(crate::error::no_method_in(program, &gf.name, args)),
    }
}

/// The index of the most specific method of `gf` applicable to arguments of the types `sig`
/// (patterns, abstract ones too): what Julia's `invoke(f, Tuple{sig...}, args...)` runs.
/// `shown` is the signature as written, for the error when none applies.
pub(crate) fn select_invoked(
    program: &Program,
    gf: &GenericFunction,
    sig: &[Pat],
    shown: &str,
) -> Result<u32, Fail> {
    let mut applicable: Vec<(u32, Vec<Pat>)> = Vec::new();
    for (i, m) in gf.methods.iter().enumerate() {
        if m.vararg().is_some() || m.sig.len() != sig.len() {
            continue;
        }
        let pats = patterns(program, m, sig.len())?;
        if sig.iter().zip(&pats).all(|(s, p)| subtype(s, p)) {
            applicable.push((i as u32, pats));
        }
    }
    let sub = |a: &[Pat], b: &[Pat]| a.iter().zip(b).all(|(x, y)| subtype(x, y));
    applicable
        .iter()
        .filter(|(_, p)| applicable.iter().all(|(_, q)| sub(p, q)))
        .map(|(i, _)| *i)
        .next_back()
        .ok_or_else(|| {
            Fail::method(format!(
                "MethodError: no method of `{}` applicable to the types `{shown}` (Julia's `invoke`)",
                gf.name
            ))
        })
}

/// What a call of a struct's name with outer constructors runs.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Choice {
    /// This method of the generic function.
    Method(u32),
    /// The struct's default constructor.
    Default,
}

/// The most specific of `struct_def`'s outer constructors (the methods of `gf`) and its
/// default constructor, as Julia dispatches between them: `Chain(layers::T) where T<:Tuple`
/// is more specific than a written `Chain(layers...)`, and a written method with the default's
/// signature replaces it.
pub(crate) fn select_constructor(
    sigs: &Signatures,
    program: &Program,
    gf: &GenericFunction,
    struct_def: &StructDef,
    args: &[Type],
) -> Result<Choice, Fail> {
    select_among(sigs, program, gf, Some(struct_def), args)
}

/// [`select`], with `struct_def`'s default constructor as one more candidate: the choice `sigs`
/// remembers for these types, or the one [`choose`] makes.
fn select_among(
    sigs: &Signatures,
    program: &Program,
    gf: &GenericFunction,
    struct_def: Option<&StructDef>,
    args: &[Type],
) -> Result<Choice, Fail> {
    sigs.choice(&gf.name, struct_def.is_some(), args, || {
        choose(sigs, program, gf, struct_def, args)
    })
}

/// The most specific applicable method of `gf` (or `struct_def`'s default constructor).
fn choose(
    sigs: &Signatures,
    program: &Program,
    gf: &GenericFunction,
    struct_def: Option<&StructDef>,
    args: &[Type],
) -> Result<Choice, Fail> {
    // The default constructor comes first: a later written method of the same signature
    // replaces it. A struct without parameters has two: `S(x::Float64)` and `S(x)`, which
    // converts.
    const DEFAULT: usize = usize::MAX;
    const CONVERTING: usize = usize::MAX - 1;
    let mut applicable: Vec<(usize, Arc<[Pat]>)> = Vec::new();
    // A user's method sees a shared reshape as the Array Julia's is; the library's see zy's view.
    let library = crate::calls::is_library(&gf.name);
    if let Some(def) = struct_def.filter(|d| d.fields.len() == args.len() && !d.is_abstract) {
        let pats = field_patterns(program, def)?;
        let mut b = Bindings::new();
        if pats.iter().zip(args).all(|(p, t)| matches(p, t, &mut b)) {
            applicable.push((DEFAULT, pats.clone().into()));
        }
        if def.params.is_empty() && pats.iter().any(|p| *p != Pat::Any) {
            applicable.push((CONVERTING, vec![Pat::Any; args.len()].into()));
        }
    }
    for (i, m) in gf.methods.iter().enumerate() {
        // A varargs parameter stands for any number of arguments of its element annotation.
        if !m.takes_count(args.len()) {
            continue;
        }
        let pats = match sigs.patterns(&gf.name, i as u32, args.len(), || {
            patterns(program, m, args.len())
        }) {
            Ok(pats) => pats,
            // A method whose signature zy cannot read fails only the calls it may take.
            Err(_) if !might_take(program, m, args) => continue,
            Err(e) => return Err(e),
        };
        refuse_exception_dispatch(gf, &pats, args)?;
        let mut b = Bindings::new();
        let matching = |p: &Pat, t: &Type, b: &mut Bindings| match library {
            true => {
                matches(p, t, b)
                    || takes_substring(p, t)
                    || crate::pattern::struct_value_matches(p, t, b, program)
            }
            false => matches_as_julia(p, t, b, program),
        };
        if pats.iter().zip(args).all(|(p, t)| matching(p, t, &mut b)) {
            applicable.push((i, pats));
        }
    }
    let sub = |a: &[Pat], b: &[Pat]| a.iter().zip(b).all(|(x, y)| within(program, library, x, y));
    // Candidates at least as specific as every other applicable method; among equivalent
    // signatures the later definition replaces the earlier one, as in Julia.
    let best: Vec<usize> = applicable
        .iter()
        .filter(|(_, p)| applicable.iter().all(|(_, q)| sub(p, q)))
        .map(|(i, _)| *i)
        .collect();
    // Equivalent up to type variables: `f(x::T, y::T) where T` is more specific than
    // `f(x, y)`, so prefer the signature that ties more arguments together.
    let ties = |i: usize| {
        applicable
            .iter()
            .find(|(j, _)| *j == i)
            .map_or(0, |(_, p)| tied(p))
    };
    // Julia prefers a method with a fixed number of arguments to an equivalent varargs one.
    let fixed_arity = |i: &usize| gf.methods.get(*i).is_none_or(|m| m.vararg().is_none());
    let best: Vec<usize> = if best.iter().any(fixed_arity) {
        best.into_iter().filter(fixed_arity).collect()
    } else {
        best
    };
    let best_tie = best.iter().map(|&i| ties(i)).max().unwrap_or(0);
    let best: Vec<usize> = best.into_iter().filter(|&i| ties(i) == best_tie).collect();
    match (best.last(), applicable.is_empty()) {
        (_, true) => Err(crate::error::no_method_in(program, &gf.name, args)),
        (Some(&(DEFAULT | CONVERTING)), _) => Ok(Choice::Default),
        (Some(&i), _) => Ok(Choice::Method(i as u32)),
        (None, _) => Err(ambiguous(&gf.name, args)),
    }
}

/// Is the annotation `x` at least as specific as `y`? An array struct of the program, and the
/// library's ranges (`AbstractRange` is their union), are more specific than an abstract array
/// annotation; in the library a `SubString` method is more specific than the `String` one that
/// also takes it.
fn within(program: &Program, library: bool, x: &Pat, y: &Pat) -> bool {
    match (x, y) {
        (
            Pat::Union(members),
            Pat::Array {
                abstract_: true, ..
            },
        ) if !members.is_empty() => members.iter().all(|m| within(program, library, m, y)),
        (
            Pat::Struct { name, .. },
            Pat::Array {
                abstract_: true, ..
            },
        ) => {
            crate::pattern::is_user_array_struct(name, program)
                || crate::pattern::is_range_struct(name)
                || subtype(x, y)
        }
        (Pat::Leaf(Type::SubString), Pat::Leaf(Type::String)) => library,
        _ => subtype(x, y),
    }
}

/// Does a library method's `String` annotation (alone or in a `Union`) take a `SubString`?
/// The library's string functions are written for zy's strings, which hold a `SubString`'s
/// text as a `String`'s, so they apply to both as Julia's `AbstractString` methods do.
fn takes_substring(p: &Pat, t: &Type) -> bool {
    match p {
        Pat::Leaf(Type::String) => *t == Type::SubString,
        Pat::Union(ps) => ps.iter().any(|p| takes_substring(p, t)),
        _ => false,
    }
}

/// Whether `m`, whose signature does not read as patterns, may take `args`: each annotation
/// read as its bare type (`B` for `B{T, N, X}`); a type zy does not know (a struct it refused)
/// has no values to take.
fn might_take(program: &Program, m: &zy_ir::Method, args: &[Type]) -> bool {
    let vararg = m.vararg();
    let fixed = m.sig.len() - usize::from(vararg.is_some());
    let bare = |e: &TypeExpr| {
        let head = match e {
            TypeExpr::Named { name, .. } => TypeExpr::named(name),
            TypeExpr::Typeof(_) => e.clone(),
        };
        pattern(&head, &m.where_params, program).ok()
    };
    let mut b = Bindings::new();
    m.sig[..fixed]
        .iter()
        .map(Option::as_ref)
        .chain(std::iter::repeat(vararg.flatten()))
        .zip(args)
        .all(|(s, t)| match s.map_or(Some(Pat::Any), bare) {
            Some(p) => matches_as_julia(&p, t, &mut b, program),
            None => false,
        })
}

/// The patterns of `m`'s annotations for a call with `n` arguments (a varargs annotation
/// repeated), its `where` bounds applied.
fn patterns(program: &Program, m: &zy_ir::Method, n: usize) -> Result<Vec<Pat>, Fail> {
    let vararg = m.vararg();
    let fixed = m.sig.len() - usize::from(vararg.is_some());
    let bounds = m
        .where_bounds
        .iter()
        .map(|(v, t)| Ok((v.clone(), pattern(t, &m.where_params, program)?)))
        .collect::<Result<Vec<_>, Fail>>()?;
    m.sig[..fixed]
        .iter()
        .map(Option::as_ref)
        .chain(std::iter::repeat(vararg.flatten()))
        .take(n)
        .map(|s| match s {
            Some(e) => Ok(with_bounds(pattern(e, &m.where_params, program)?, &bounds)),
            None => Ok(Pat::Any),
        })
        .collect()
}

/// The types that `m`'s `where` variables stand for in a call with arguments `args` (as the
/// body takes them: a varargs method's trailing arguments as one tuple).
pub(crate) fn type_vars(program: &Program, m: &zy_ir::Method, args: &[Type]) -> Bindings {
    let mut b = Bindings::new();
    let trailing = match (m.vararg(), args.last()) {
        (Some(_), Some(Type::Tuple(rest))) => Some(rest.len()),
        _ => None,
    };
    let args: Vec<Type> = match (m.vararg(), args.split_last()) {
        (Some(_), Some((Type::Tuple(rest), fixed))) => {
            fixed.iter().chain(rest.iter()).cloned().collect()
        }
        _ => args.to_vec(),
    };
    if let Ok(pats) = patterns(program, m, args.len()) {
        for (p, t) in pats.iter().zip(&args) {
            // As `matches` wherever it matches; a user's `A::Matrix{T}` binds `T` of a reshape.
            matches_as_julia(p, t, &mut b, program);
        }
    }
    // `N` of `Vararg{T, N} where N`: the number of trailing arguments.
    if let (Some(n), Some(trailing)) = (m.vararg_count(), trailing) {
        if m.where_params.contains(n) {
            if let Ok(count) = u8::try_from(trailing) {
                b.insert(n.clone(), dims_type(count));
            }
        }
    }
    b
}

/// The arguments of a call of `method` as its body takes them: a varargs method's trailing
/// arguments packed into one tuple.
pub(crate) fn pack_varargs(
    cx: &mut crate::calls::Cx,
    b: &mut PlanBuilder,
    method: &zy_ir::Method,
    args: &[Val],
) -> Result<Vec<Val>, Fail> {
    if method.vararg().is_none() {
        return Ok(args.to_vec());
    }
    let fixed = method.sig.len() - 1;
    let mut out = args[..fixed].to_vec();
    out.push(cx.call_named(b, &"tuple".into(), &args[fixed..])?);
    Ok(out)
}

/// How many times the argument patterns repeat a type variable, at any depth: `f(x::T, y::T)`,
/// `f(x::Vector{T}, y::Vector{T})` and `f(x::AbstractVector{T}, y::T)` tie their arguments
/// together, which makes them more specific than the same signature without the variable.
fn tied(pats: &[Pat]) -> usize {
    let mut seen: Vec<&Name> = Vec::new();
    let mut count = 0;
    for p in pats {
        occurrences(p, &mut |v| {
            if seen.contains(&v) {
                count += 1;
            } else {
                seen.push(v);
            }
        });
    }
    count
}

/// Call `each` with every type variable `p` names, outside the bounds of bounded ones.
fn occurrences<'p>(p: &'p Pat, each: &mut dyn FnMut(&'p Name)) {
    match p {
        Pat::Var(v) | Pat::Bounded(v, _) => each(v),
        Pat::Array {
            elem, ndims_var, ..
        } => {
            if let Some(e) = elem {
                occurrences(e, each);
            }
            if let Some(n) = ndims_var {
                each(n);
            }
        }
        Pat::Tuple(Some(ps))
        | Pat::NamedTuple {
            types: Some(ps), ..
        }
        | Pat::Struct {
            params: Some(ps), ..
        } => {
            ps.iter().for_each(|q| occurrences(q, each));
        }
        // A value is one member: `VecOrMat{T}` names `T` once.
        Pat::Union(ps) => {
            let mut names: Vec<&Name> = Vec::new();
            for q in ps {
                occurrences(q, &mut |v| {
                    if !names.contains(&v) {
                        names.push(v);
                    }
                });
            }
            names.into_iter().for_each(each);
        }
        Pat::TypeValue(q) | Pat::Ref(Some(q)) | Pat::Adjoint(Some(q)) => occurrences(q, each),
        _ => {}
    }
}

/// The default constructor `S(fields...)` of a user struct: the concrete struct type (type
/// parameters inferred from the field annotations) and an `Op::New`.
pub(crate) fn construct(
    program: &Program,
    def: &StructDef,
    b: &mut PlanBuilder,
    args: &[Val],
) -> Result<Val, Fail> {
    construct_given(program, def, b, args, None)
}

/// The constructor `def` as Julia names it in a `MethodError`: `Fixed{3}` with its parameters
/// `given`, `Fixed` without.
fn applied_name(def: &StructDef, given: Option<&Bindings>) -> String {
    let Some(given) = given else {
        return def.name.to_string();
    };
    let params: Vec<String> = def
        .params
        .iter()
        .map(|p| given.get(p).map_or_else(|| p.to_string(), Type::to_string))
        .collect();
    format!("{}{{{}}}", def.name, params.join(", "))
}

/// Does a field of a parameter bounded by an abstract array type (`data::A` of
/// `A<:AbstractArray{T, N}`) take `t` as Julia's subtyping does (a range, a `Diagonal`, an
/// array struct of the program), binding the parameter to `t` itself?
fn bounded_as_julia(program: &Program, p: &Pat, t: &Type, b: &mut Bindings) -> bool {
    let Pat::Bounded(v, bound) = p else {
        return false;
    };
    if b.get(v).is_some_and(|old| old != t) {
        return false;
    }
    let mut tried = b.clone();
    if !matches_as_julia(bound, t, &mut tried, program) {
        return false;
    }
    tried.insert(v.clone(), t.clone());
    *b = tried;
    true
}

/// The bound `e` as Julia shows it in a TypeError: with the parameters `given` in place of
/// their names (`AbstractArray{Float64, 2}` of `AbstractArray{T, N}`).
fn instantiated(e: &zy_ir::TypeExpr, given: &Bindings) -> String {
    match e {
        zy_ir::TypeExpr::Named { name, params } if params.is_empty() => given
            .get(name)
            .map_or_else(|| name.to_string(), Type::to_string),
        zy_ir::TypeExpr::Named { name, params } => {
            let shown: Vec<String> = params.iter().map(|p| instantiated(p, given)).collect();
            format!("{name}{{{}}}", shown.join(", "))
        }
        zy_ir::TypeExpr::Typeof(_) => e.to_string(),
    }
}

/// [`construct`], or with `given` type parameters (`new{T}(...)`: each argument converted to
/// its field's type with them, as Julia's `new{T}`; a parameter outside its bound is Julia's
/// TypeError).
pub(crate) fn construct_given(
    program: &Program,
    def: &StructDef,
    b: &mut PlanBuilder,
    args: &[Val],
    given: Option<Bindings>,
) -> Result<Val, Fail> {
    let types = crate::value::types(&args);
    if def.is_abstract {
        return Err(Fail::method(format!(
            "MethodError: no constructors have been defined for {}",
            applied_name(def, given.as_ref())
        )));
    }
    check_supertype(def, program)?;
    if args.len() != def.fields.len() {
        return Err(no_method(&applied_name(def, given.as_ref()), &types));
    }
    let pats = field_patterns(program, def)?;
    let parametric = !def.params.is_empty() && given.is_none();
    if let Some(given) = &given {
        // A bound written with the other parameters (`A<:AbstractArray{T, N}`) holds with
        // them as given, a number of dimensions as a pattern binds one.
        let others: Bindings = given
            .iter()
            .map(|(p, t)| match t {
                Type::Param(zy_ir::ParamValue::Int(n)) => (
                    p.clone(),
                    u8::try_from(*n).map_or_else(|_| t.clone(), dims_type),
                ),
                _ => (p.clone(), t.clone()),
            })
            .collect();
        for (p, bound) in &def.param_bounds {
            let (Some(t), bound_pat) = (given.get(p), pattern(bound, &def.params, program)?) else {
                continue;
            };
            if !matches(&bound_pat, t, &mut others.clone()) {
                return Err(Fail::method(format!(
                    "TypeError: in {}, in {p}, expected {p}<:{}, got Type{{{t}}}",
                    def.name,
                    instantiated(bound, given)
                )));
            }
        }
    }
    let mut bind = given.unwrap_or_default();
    let mut fields = Vec::with_capacity(args.len());
    let mut values = Vec::with_capacity(args.len());
    for ((pat, arg), (fname, _)) in pats.iter().zip(args).zip(&def.fields) {
        // A parametric struct's constructor takes exactly the annotated types; a plain one
        // converts its arguments to the field types.
        // A field of an abstract array type takes what Julia's subtyping puts below it (a
        // `Diagonal` in `A::AbstractMatrix{Float64}`), each struct holding its own.
        let exact = matches(pat, &arg.ty, &mut bind)
            || bounded_as_julia(program, pat, &arg.ty, &mut bind)
            || matches!(
                pat,
                Pat::Array {
                    abstract_: true,
                    ..
                }
            ) && matches_as_julia(pat, &arg.ty, &mut bind, program);
        // A field of an abstract type (`s::Shape`, `s::Shape{Float64}`) holds any of its
        // values, as Julia's: the union of those zy can list, when it lists the value given,
        // so that structs built with different shapes are of one type (`[Frame(c),
        // Frame(s)]`) and a mutable one's field takes another shape later. An immutable
        // struct's field takes the union where its members are immutable structs of numbers,
        // whose tangents the AD splits; others keep the shape they were built with.
        let held = held_members(program, pat, &arg.ty).filter(|u| {
            matches!(u, Type::Union(m) if m.members.contains(&arg.ty)
                && (def.mutable || m.members.iter().all(plain_value)))
        });
        let (ty, v) = if let (true, Some(held)) = (exact, held) {
            let v = convert(b, arg.clone(), &held)?;
            (held, v)
        } else if exact {
            let ty = concrete(pat, &bind).unwrap_or_else(|| arg.ty.clone());
            (ty, arg.clone())
        } else if parametric {
            return Err(no_method(&def.name, &types));
        } else {
            let Some(ty) = concrete(pat, &bind) else {
                return Err(no_method(&def.name, &types));
            };
            let v = convert(b, arg.clone(), &ty)?;
            (ty, v)
        };
        fields.push((fname.clone(), ty));
        values.push(v);
    }
    let params = def
        .params
        .iter()
        .map(|p| {
            bind.get(p).cloned().ok_or_else(|| {
                Fail::unsupported(format!(
                    "cannot infer type parameter `{p}` of `{}`; give a field the type `{p}`, or drop \
                     the parameter, instead",
                    def.name
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    // A number of dimensions (`N` of `A<:AbstractArray{T, N}`) is that number, as in Julia's
    // `Wrap{Float64, 1, Vector{Float64}}`.
    let params: Vec<Type> = params
        .into_iter()
        .map(|t| match crate::pattern::dims_of(&t) {
            Some(n) => Type::Param(zy_ir::ParamValue::Int(i64::from(n))),
            None => t,
        })
        .collect();
    check_supertype_bounds(program, def, &params)?;
    // A mutable struct's link to a node of its own type or `nothing` (`next::Union{Nothing,
    // DNode}`, or an untyped `next` the program ends with `missing`) holds either, whatever it
    // was built with: it has its declared type, so that a node built with `nothing` is
    // relinked later (`last.next = n`).
    let links = if def.mutable {
        linked_fields(program, def, &pats)
    } else {
        Vec::new()
    };
    let recur = Type::Recur(def.name.clone(), params.as_slice().into());
    for (i, end) in &links {
        fields[*i].1 = crate::join::join(end, &recur).unwrap_or_else(|| recur.clone());
    }
    // The other untyped fields of such a node hold any value of its own type, as Julia's
    // `Any` (a list's head holding `"root"`, its nodes numbers): every node is of one type.
    // So does a mutable struct's untyped field built empty and filled later (`tree.data = x`
    // of a tree built holding `nothing`), or assigned a value of another type than it was
    // built with (`s.n = 1.5` of `S(0)`).
    if def.mutable {
        for (k, pat) in pats.iter().enumerate() {
            let open = !links.is_empty()
                || crate::links::filled_later(program, def, k)
                || crate::links::retyped(program, def, k, &fields[k].1);
            if matches!(pat, Pat::Any) && open && !links.iter().any(|(i, _)| *i == k) {
                fields[k].1 = any_field(program, &fields[k].1)?;
            }
        }
    }
    let mut st = Arc::new(StructType {
        name: def.name.clone(),
        params,
        fields,
        mutable: def.mutable,
        kind: StructKind::User,
    });
    // A field holding a value of the struct's own type of any shape (`Node(x, l)` with `l` a
    // list grown by a loop): the struct's recursive type.
    if crate::recursive::needs_recursion(&st) {
        if let Some(Type::Struct(r)) = crate::recursive::recursive(&[Type::Struct(st.clone())]) {
            st = r;
        }
    }
    // Each value converted to its field's type where that is wider (a recursive type, a
    // union the field was given above).
    let whole = Type::Struct(st.clone());
    for (i, v) in values.iter_mut().enumerate() {
        let to = whole.field(i).unwrap_or(Type::Nothing);
        if st.is_recursive() || v.ty != to {
            *v = convert(b, v.clone(), &to)?;
        }
    }
    let ty = Type::Struct(st.clone());
    let values = values.into_iter().map(|v| v.arg).collect();
    Ok(Val::of(b.push(Op::New(st), values, ty.clone()), ty))
}

/// The contents of the fields after the first `from` of `def`, which an inner constructor's
/// `new` leaves undefined (Julia's `#undef`): one `undef_field` each, typed by the field's
/// declaration (with the parameters `params` of `new{T}`). A field of no concrete declared
/// type is refused by name.
pub(crate) fn undefined_fields(
    program: &Program,
    def: &StructDef,
    b: &mut PlanBuilder,
    from: usize,
    params: Option<&Bindings>,
) -> Result<Vec<Val>, Fail> {
    let pats = field_patterns(program, def)?;
    let none = Bindings::new();
    let mut out = Vec::new();
    for (p, (name, ann)) in pats.iter().zip(&def.fields).skip(from) {
        let ty = concrete(p, params.unwrap_or(&none))
            .or_else(|| concrete_type(program, p))
            .filter(|t| *t != Type::Any);
        let Some(ty) = ty else {
            let why = match ann {
                Some(t) if mentions(t, &def.name) => format!(
                    "its declared type holds `{}` itself (a node linked later, `x.next = x`, \
                     is not supported yet)",
                    def.name
                ),
                _ => "its declared type is not one concrete type zy can give it".to_string(),
            };
            return Err(Fail::unsupported(format!(
                "`new` leaving the field `{name}` of `{}` undefined: {why}; pass the field to \
                 `new`",
                def.name
            )));
        };
        let v = b.prim(zy_ir::Prim::UndefField, Vec::new(), ty.clone());
        out.push(Val::of(v, ty));
    }
    Ok(out)
}

/// Does the type expression `t` name the type `name` anywhere?
pub(crate) fn mentions(t: &zy_ir::TypeExpr, name: &Name) -> bool {
    match t {
        zy_ir::TypeExpr::Named { name: n, params } => {
            n == name || params.iter().any(|p| mentions(p, name))
        }
        zy_ir::TypeExpr::Typeof(_) => false,
    }
}

/// How many leading fields every `new` in the inner constructors of `def` passes: its fields
/// after these may be undefined (all of them are defined when it is every field).
pub(crate) fn defined_prefix(program: &Program, def: &StructDef) -> usize {
    let full = def.fields.len();
    let Some(gf) = program.functions.get(&def.name) else {
        return full;
    };
    let passed = gf
        .methods
        .iter()
        .flat_map(|m| &m.body.values)
        .filter_map(|v| match &v.kind {
            zy_ir::ValueKind::Stmt(s) if matches!(&s.op, Op::Call(n) if **n == *zy_ir::NEW) => {
                Some(s.args.len().saturating_sub(1 + def.params.len()))
            }
            _ => None,
        });
    passed.fold(full, usize::min)
}

/// The program's abstract type `name` as the union of the concrete structs below it (closed
/// world: a `Vector{Shape}` holds the `Shape`s the program defines); `None` when one of them
/// is parametric or has a field of no concrete declared type, or there is none.
pub(crate) fn abstract_union(program: &Program, name: &Name, depth: u8) -> Option<Type> {
    let members = program
        .structs
        .values()
        .filter(|d| d.kind == StructKind::User && !d.is_abstract && is_below(program, d, name))
        .map(|d| {
            let p = Pat::Struct {
                name: d.name.clone(),
                params: None,
            };
            concrete_within(program, &p, depth + 1)
        })
        .collect::<Option<Vec<_>>>()?;
    match members.len() {
        0 => None,
        _ => Some(Type::Union(Arc::new(zy_ir::UnionType {
            name: name.clone(),
            members: sorted(members),
        }))),
    }
}

/// The parametric abstract type `name` with concrete parameters (`Shape{Float64}`) as the union
/// of the concrete structs below it with those parameters (`Circle{Float64}` of `struct
/// Circle{T} <: Shape{T}`); `None` when a parameter is not concrete, a struct's parameters are
/// not all fixed by them (with `lenient`, such a struct is left out), or there is none.
fn applied_union(
    program: &Program,
    name: &Name,
    a: &crate::pattern::AbstractParams,
    depth: u8,
    lenient: bool,
) -> Option<Type> {
    let given = a
        .pats
        .iter()
        .map(|p| concrete_within(program, p, depth + 1))
        .collect::<Option<Vec<_>>>()?;
    let mut members = Vec::new();
    for (s, (names, lifted)) in &a.lifts {
        let def = program.structs.get(s)?;
        if def.is_abstract || def.kind != StructKind::User {
            continue;
        }
        let mut bind = Bindings::new();
        let fits = lifted
            .iter()
            .zip(&given)
            .all(|(l, t)| crate::pattern::matches(l, t, &mut bind));
        if !fits {
            continue;
        }
        let member = names
            .iter()
            .map(|n| bind.get(n).cloned().map(Pat::Leaf))
            .collect::<Option<Vec<_>>>()
            .and_then(|params| {
                let p = Pat::Struct {
                    name: s.clone(),
                    params: Some(params),
                };
                concrete_within(program, &p, depth + 1)
            });
        match member {
            Some(m) => members.push(m),
            None if lenient => {}
            None => return None,
        }
    }
    let shown: Vec<String> = given.iter().map(ToString::to_string).collect();
    (!members.is_empty()).then(|| {
        Type::Union(Arc::new(zy_ir::UnionType {
            name: format!("{name}{{{}}}", shown.join(", ")).into(),
            members: sorted(members),
        }))
    })
}

/// The values of a parametric abstract type with concrete parameters (`Shape{Float64}`) that an
/// empty `Vector{Shape{Float64}}()` may be given: the structs below it whose parameters those
/// fix and whose fields have concrete types (a `Labelled{L, T} <: Shape{T}` has an `L` of its
/// own, which no store can add later). `None` for any other pattern.
pub(crate) fn fixed_members(program: &Program, p: &Pat) -> Option<Type> {
    match p {
        Pat::Abstract {
            name,
            params: Some(a),
            ..
        } => applied_union(program, name, a, 0, true),
        _ => None,
    }
}

/// The values a struct's field of the abstract type `p` holds over time, built with a
/// `given`: [`fixed_members`] of a parametric one (`Shape{Float64}`); of a plain one (`Shape`)
/// every struct below it, or where those have parameters, the structs below it given the
/// parameters that `given` gives it (a field built with a `Circle{Float64}` holds the
/// `Shape{Float64}`s).
fn held_members(program: &Program, p: &Pat, given: &Type) -> Option<Type> {
    let Pat::Abstract {
        name, params: None, ..
    } = p
    else {
        return fixed_members(program, p);
    };
    if let Some(all) = abstract_union(program, name, 0) {
        return Some(all);
    }
    let applied = joined_name(program, name, std::slice::from_ref(given));
    let (_, inside) = applied.split_once('{')?;
    let params = inside
        .strip_suffix('}')?
        .split(", ")
        .map(|t| (!t.contains(['{', ' '])).then(|| zy_ir::TypeExpr::named(t)))
        .collect::<Option<Vec<_>>>()?;
    let expr = zy_ir::TypeExpr::Named {
        name: name.clone(),
        params,
    };
    match fixed_members(program, &pattern(&expr, &[], program).ok()?)? {
        Type::Union(u) => Some(Type::Union(Arc::new(zy_ir::UnionType {
            name: name.clone(),
            members: u.members.clone(),
        }))),
        _ => None,
    }
}

/// The union `t` of values below one of the program's abstract types, named as Julia's
/// `typejoin` of its members names it: a parametric abstract type with the parameters they all
/// give it (`Shape{Float64}`), else the abstract type alone.
pub(crate) fn joined(program: &Program, t: Type) -> Type {
    match &t {
        Type::Union(u) => Type::Union(Arc::new(zy_ir::UnionType {
            name: joined_name(program, &u.name, &u.members),
            members: u.members.clone(),
        })),
        _ => t,
    }
}

fn joined_name(program: &Program, name: &Name, members: &[Type]) -> Name {
    let Some(def) = program.structs.get(name).filter(|d| !d.params.is_empty()) else {
        return name.clone();
    };
    let given = |t: &Type| -> Option<Vec<Type>> {
        let Type::Struct(s) = t else { return None };
        let sdef = program.structs.get(&s.name)?;
        let own: Bindings = sdef
            .params
            .iter()
            .cloned()
            .zip(s.params.iter().cloned())
            .collect();
        crate::pattern::supertype_params(program, sdef, name)?
            .iter()
            .map(|e| concrete(&pattern(e, &sdef.params, program).ok()?, &own))
            .collect()
    };
    let all: Option<Vec<Vec<Type>>> = members.iter().map(given).collect();
    match all.as_deref() {
        Some([first, rest @ ..])
            if first.len() == def.params.len() && rest.iter().all(|g| g == first) =>
        {
            let shown: Vec<String> = first.iter().map(ToString::to_string).collect();
            format!("{name}{{{}}}", shown.join(", ")).into()
        }
        _ => name.clone(),
    }
}

/// The values of the program's abstract type `name` that a literal holds (`Shape[c, s]`,
/// `[c, s]` of a `Circle` and a `Square`), when [`abstract_union`] cannot list every member (a
/// member has a type parameter or an untyped field): the union of the concrete types of
/// `types`, each below `name` (or a value of that abstract type). `None` when one is not, or
/// when two differ only in an untyped field's type (both are Julia's one type, which a run
/// time `isa` could not tell apart).
pub(crate) fn observed_union(program: &Program, name: &Name, types: &[Type]) -> Option<Type> {
    let mut members = Vec::new();
    for t in types {
        match t {
            Type::Struct(s)
                if program
                    .structs
                    .get(&s.name)
                    .is_some_and(|d| is_below(program, d, name)) =>
            {
                members.push(t.clone())
            }
            Type::Union(u) if crate::pattern::base_name(&u.name) == &**name => {
                members.extend(u.members.iter().cloned())
            }
            _ => return None,
        }
    }
    members.sort();
    members.dedup();
    let mut shown: Vec<String> = members.iter().map(ToString::to_string).collect();
    shown.sort();
    shown.dedup();
    (!members.is_empty() && shown.len() == members.len()).then(|| {
        Type::Union(Arc::new(zy_ir::UnionType {
            name: name.clone(),
            members,
        }))
    })
}

/// Is `t` a number, or an immutable struct or tuple of such values at any depth?
fn plain_value(t: &Type) -> bool {
    match t {
        Type::Struct(s) => !s.mutable && s.fields.iter().all(|(_, f)| plain_value(f)),
        Type::Tuple(ts) => ts.iter().all(plain_value),
        t => t.is_number(),
    }
}

/// The join of values of the program's structs below one of its abstract types on two paths
/// (`c ? Square(x) : Circle(x)`, Julia's `Union{Circle, Square}`): a value of the abstract
/// type, the union of every struct below it ([`abstract_union`]), else of the two; `None` for
/// other types.
pub(crate) fn abstract_join(program: &Program, a: &Type, b: &Type) -> Option<Type> {
    let types = [a.clone(), b.clone()];
    let up = typejoin(program, &types)??;
    let lists = |u: &Type, t: &Type| match (u, t) {
        (Type::Union(u), Type::Union(t)) => t.members.iter().all(|m| u.members.contains(m)),
        (Type::Union(u), t) => u.members.contains(t),
        _ => false,
    };
    let all = abstract_union(program, &up, 0).filter(|u| lists(u, a) && lists(u, b));
    let u = all.or_else(|| observed_union(program, &up, &types))?;
    Some(joined(program, u))
}

fn sorted(mut ts: Vec<Type>) -> Vec<Type> {
    ts.sort();
    ts
}

/// Julia's `promote_typejoin` of values of the program's structs (or of its abstract types) of
/// different types: `Some(Some(S))` for their nearest common abstract type `S`, `Some(None)`
/// when they have none (Julia's `Any`); `None` when they are not all such values or are of one
/// struct type.
pub(crate) fn typejoin(program: &Program, types: &[Type]) -> Option<Option<Name>> {
    let names = types
        .iter()
        .map(|t| match t {
            Type::Struct(s) if s.kind == StructKind::User && !crate::calls::is_library(&s.name) => {
                Some(s.name.clone())
            }
            Type::Union(u) => Some(crate::pattern::base_name(&u.name).into()),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    // One struct of different field types, or one type.
    if names.iter().all(|n| *n == names[0]) {
        return None;
    }
    let below = |n: &Name, up: &str| {
        **n == *up
            || program
                .structs
                .get(n)
                .is_some_and(|d| is_below(program, d, up))
    };
    let ancestors = std::iter::successors(Some(names[0].clone()), |n| {
        match program.structs.get(n)?.supertype.as_ref()? {
            zy_ir::TypeExpr::Named { name, .. } => Some(name.clone()),
            _ => None,
        }
    });
    let found = ancestors
        .take(program.structs.len() + 1)
        .find(|up| names.iter().all(|n| below(n, up)));
    Some(found)
}

/// The generic function a call of a value of the struct `name` on `args` (the value first)
/// dispatches in: the struct's own call methods (`(::S)`) if one applies, else those of its
/// nearest abstract supertype with one that does (`(m::Model)(x) = ...` serves every `Model`),
/// as Julia's one method table holds them all. Where none applies, the nearest that exists
/// (its `MethodError`); `None` when no type on the chain is callable.
pub(crate) fn callable_for(
    sigs: &Signatures,
    program: &Program,
    name: &Name,
    args: &[Type],
) -> Option<Name> {
    let chain = std::iter::successors(Some(name.clone()), |n| {
        match program.structs.get(n)?.supertype.as_ref()? {
            zy_ir::TypeExpr::Named { name, .. } => Some(name.clone()),
            _ => None,
        }
    });
    let mut nearest = None;
    // A chain of supertypes is at most as long as the program has types.
    for n in chain.take(program.structs.len() + 1) {
        let callable = zy_ir::callable_name(&n);
        let Some(gf) = program.functions.get(&callable) else {
            continue;
        };
        if select(sigs, program, gf, args).is_ok() {
            return Some(callable);
        }
        nearest.get_or_insert(callable);
    }
    nearest
}

/// Is the struct `def` declared below the abstract type `name` (through its supertypes)?
pub(crate) fn is_below(program: &Program, def: &StructDef, name: &str) -> bool {
    let mut at = def;
    // A chain of supertypes is at most as long as the program has types.
    for _ in 0..=program.structs.len() {
        let Some(zy_ir::TypeExpr::Named { name: up, .. }) = &at.supertype else {
            return false;
        };
        if **up == *name {
            return true;
        }
        match program.structs.get(up) {
            Some(d) => at = d,
            None => return false,
        }
    }
    false
}

/// The concrete type that an annotation without type variables stands for, the program's
/// structs without parameters included (`Vector{Layer}`, `Layer` when its fields are
/// annotated with concrete types); `None` where it stands for several types.
pub(crate) fn concrete_type(program: &Program, p: &Pat) -> Option<Type> {
    concrete_within(program, p, 0)
}

/// The type of the values of an immutable struct without parameters whose fields are declared
/// with concrete types or Julia's abstract number types (`c::Integer`, `x::Real`), as the
/// element of a container made before any is built (`Pt[]`, `Set{Pt}()`): Julia's one type
/// `Pt`, each abstract field the union of the numbers a literal gives it (`Integer`: `Int64`;
/// `Real` and `Number`: `Float64` and `Int64`), so a value built with either widens to it when
/// stored (one built with a `Bool` is refused there, `Cannot convert`). `None` for other
/// structs.
pub(crate) fn number_fields_type(program: &Program, name: &str) -> Option<Type> {
    let def = program.structs.get(name)?;
    if def.kind != StructKind::User || def.is_abstract || def.mutable || !def.params.is_empty() {
        return None;
    }
    let union = |members: &[Type]| {
        let (first, rest) = members.split_first()?;
        rest.iter()
            .try_fold(first.clone(), |u, t| crate::join::join(&u, t))
    };
    let mut abstract_fields = 0;
    let fields = def
        .fields
        .iter()
        .zip(field_patterns(program, def).ok()?)
        .map(|((n, _), p)| {
            // (With the number types below `Real` beside the class: the library's `Rational`.)
            let class = match &p {
                Pat::Union(ps) => ps.first(),
                p => Some(p),
            };
            let t = match class {
                Some(Pat::Num(NumClass::Integer)) => Some(Type::Int64),
                Some(Pat::Num(NumClass::Real)) => union(&[Type::Float64, Type::Int64]),
                _ => return Some((n.clone(), concrete_type(program, &p)?)),
            };
            abstract_fields += 1;
            Some((n.clone(), t?))
        })
        .collect::<Option<Vec<_>>>()?;
    (abstract_fields > 0).then(|| {
        Type::Struct(Arc::new(StructType {
            name: def.name.clone(),
            params: Vec::new(),
            fields,
            mutable: false,
            kind: StructKind::User,
        }))
    })
}

/// The type of a field of `def` declared as an array of `def` itself (`kids::Vector{Tree}`): an
/// array of the struct's own recursive type ([`Type::Recur`]), a tree of any shape.
fn own_array(def: &StructDef, p: &Pat) -> Option<Type> {
    let Pat::Array {
        abstract_: false,
        elem: Some(e),
        ndims: Some(n),
        ..
    } = p
    else {
        return None;
    };
    match &**e {
        Pat::Struct { name, params }
            if *name == def.name && params.as_ref().is_some_and(Vec::is_empty) =>
        {
            Some(Type::Array(
                Arc::new(Type::Recur(name.clone(), Arc::from([]))),
                *n,
            ))
        }
        _ => None,
    }
}

fn concrete_within(program: &Program, p: &Pat, depth: u8) -> Option<Type> {
    // Deep enough for any struct nesting a program writes; a cycle of structs stops here.
    if depth > 16 {
        return None;
    }
    match p {
        Pat::Abstract {
            name, params: None, ..
        } => abstract_union(program, name, depth),
        Pat::Abstract {
            name,
            params: Some(a),
            ..
        } => applied_union(program, name, a, depth, false),
        Pat::Struct { name, params } if params.as_ref().is_none_or(|ps| ps.is_empty()) => {
            let def = program.structs.get(name)?;
            if def.kind != StructKind::User || def.is_abstract || !def.params.is_empty() {
                return None;
            }
            let pats = field_patterns(program, def).ok()?;
            let fields = def
                .fields
                .iter()
                .zip(&pats)
                .map(|((n, _), p)| {
                    let t = own_array(def, p).or_else(|| concrete_within(program, p, depth + 1));
                    Some((n.clone(), t?))
                })
                .collect::<Option<Vec<_>>>()?;
            Some(Type::Struct(Arc::new(StructType {
                name: def.name.clone(),
                params: Vec::new(),
                fields,
                mutable: def.mutable,
                kind: StructKind::User,
            })))
        }
        // A parametric struct with concrete parameters (`Complex{Float64}`): its fields'
        // annotations with the parameters put in.
        Pat::Struct {
            name,
            params: Some(ps),
        } => {
            let def = program.structs.get(name)?;
            if def.kind != StructKind::User || def.is_abstract || def.params.len() != ps.len() {
                return None;
            }
            let params = ps
                .iter()
                .map(|p| concrete_within(program, p, depth + 1))
                .collect::<Option<Vec<_>>>()?;
            let bindings: Bindings = def
                .params
                .iter()
                .cloned()
                .zip(params.iter().cloned())
                .collect();
            let fields = def
                .fields
                .iter()
                .zip(field_patterns(program, def).ok()?)
                .map(|((n, _), p)| Some((n.clone(), concrete(&p, &bindings)?)))
                .collect::<Option<Vec<_>>>()?;
            Some(Type::Struct(Arc::new(StructType {
                name: def.name.clone(),
                params,
                fields,
                mutable: def.mutable,
                kind: StructKind::User,
            })))
        }
        Pat::Array {
            abstract_: false,
            elem: Some(e),
            ndims: Some(n),
            ..
        } => Some(Type::Array(
            Arc::new(concrete_within(program, e, depth + 1)?),
            *n,
        )),
        Pat::Tuple(Some(ps)) => Some(Type::Tuple(
            ps.iter()
                .map(|p| concrete_within(program, p, depth + 1))
                .collect::<Option<_>>()?,
        )),
        Pat::NamedTuple {
            names: Some(ns),
            types: Some(ps),
        } => Some(Type::NamedTuple(
            ns.iter()
                .zip(ps)
                .map(|(n, p)| Some((n.clone(), concrete_within(program, p, depth + 1)?)))
                .collect::<Option<_>>()?,
        )),
        // A `Symbol` held in a value's type (`Pair{Symbol, Float64}`) is one known at run time.
        Pat::Symbol => Some(Type::any_symbol()),
        // `Union{Missing, Float64}`, `Union{Nothing, Int}`: Julia's union of a number type
        // and an absent value (an array's element, a field).
        Pat::Union(ps) => crate::absent::union_of(
            &ps.iter()
                .map(|p| concrete_within(program, p, depth + 1))
                .collect::<Option<Vec<_>>>()?,
        ),
        _ => concrete(p, &Bindings::new()),
    }
}

/// Does field `k` (from 0) of `def` keep one type whatever is stored into it: is it declared
/// with a concrete type or one of the struct's parameters? (An untyped field, or one of an
/// abstract or union type, holds each value with its own type in Julia.)
pub(crate) fn field_keeps_type(program: &Program, def: &StructDef, k: usize) -> bool {
    let Ok(pats) = field_patterns(program, def) else {
        return true;
    };
    pats.get(k).is_none_or(|p| {
        matches!(p, Pat::Var(_) | Pat::Bounded(..)) || concrete_type(program, p).is_some()
    })
}

/// The type of an untyped field of a linked node (or one filled after it is built) holding a
/// `given` value: Julia's `Any` as the open union of the numbers, `nothing`, `missing` and
/// strings, and of `given` (symbols, which compiled code does not hold in a union, only where
/// one is given).
fn any_field(program: &Program, given: &Type) -> Result<Type, Fail> {
    let mut held: Vec<Type> = crate::open::defaults("Any")
        .into_iter()
        .filter(|t| !matches!(t, Type::Symbol(_)))
        .collect();
    held.extend(struct_instance(program, &"Base.Missing".into(), Vec::new()));
    held.push(given.clone());
    crate::open::open_union("Any", &held).ok_or_else(|| {
        Fail::unsupported(format!(
            "a value of type {given} in an untyped field of a mutable struct that holds values \
             of several types (zy holds numbers, strings, symbols, `nothing` and `missing` \
             there); declare the field's type"
        ))
    })
}

/// The fields of `def` that link its values, by index from 0, each with the value that ends
/// the list: those declared as a union of `nothing` (or `missing`) and the struct itself
/// (`next::Union{DNode, Nothing}`, `left::Union{Nothing, PTree{T}}` of a `PTree{T}`), and the
/// untyped ones the program uses so ([`crate::links::end_marker`]).
fn linked_fields(program: &Program, def: &StructDef, pats: &[Pat]) -> Vec<(usize, Type)> {
    let own = |p: &Pat| match p {
        Pat::Struct { name, params } if *name == def.name => match params {
            None => def.params.is_empty(),
            Some(ps) => {
                ps.len() == def.params.len()
                    && ps
                        .iter()
                        .zip(&def.params)
                        .all(|(p, v)| matches!(p, Pat::Var(n) if n == v))
            }
        },
        _ => false,
    };
    let end = |p: &Pat| match p {
        Pat::Leaf(Type::Nothing) => Some(Type::Nothing),
        Pat::Struct { name, .. } if &**name == "Base.Missing" => {
            struct_instance(program, name, Vec::new())
        }
        _ => None,
    };
    let link = |k: usize, p: &Pat| match p {
        Pat::Union(ms) if ms.iter().any(own) => {
            let mut ends = ms.iter().filter(|m| !own(m)).map(end);
            match (ends.next(), ends.next()) {
                (Some(end), None) => end,
                _ => None,
            }
        }
        Pat::Any if def.mutable => crate::links::end_marker(program, def, k),
        _ => None,
    };
    pats.iter()
        .enumerate()
        .filter_map(|(k, p)| Some((k, link(k, p)?)))
        .collect()
}

/// The patterns of the default constructor's exact method: the field annotations, with the
/// bounds of the struct's parameters (`struct S{T<:Real}` constructs as `S(x::T) where
/// T<:Real`).
/// The concrete type of the struct `name` with the parameters `params` (none for a struct
/// without), each field of the type its declaration gives under them; `None` for an abstract
/// type, a field of no concrete declared type (Julia's `Any` field, which zy types by the value
/// a constructor is given), or a struct whose shape depends on the data or that links to its
/// own type.
pub(crate) fn struct_instance(program: &Program, name: &Name, params: Vec<Type>) -> Option<Type> {
    let def = program.structs.get(name)?;
    if def.is_abstract || def.params.len() != params.len() {
        return None;
    }
    let pats = field_patterns(program, def).ok()?;
    if def.mutable && !linked_fields(program, def, &pats).is_empty() {
        return None;
    }
    let bind: Bindings = def
        .params
        .iter()
        .cloned()
        .zip(params.iter().cloned())
        .collect();
    let fields = pats
        .iter()
        .zip(&def.fields)
        .map(|(p, (f, _))| {
            Some((
                f.clone(),
                crate::type_values::concrete_in(p, &bind, program)?,
            ))
        })
        .collect::<Option<Vec<_>>>()?;
    let st = StructType {
        name: def.name.clone(),
        params,
        fields,
        mutable: def.mutable,
        kind: StructKind::User,
    };
    let recursive = st.is_recursive() || crate::recursive::needs_recursion(&st);
    (!recursive).then(|| Type::Struct(Arc::new(st)))
}

pub(crate) fn field_patterns(program: &Program, def: &StructDef) -> Result<Vec<Pat>, Fail> {
    let bounds = def
        .param_bounds
        .iter()
        .map(|(p, t)| Ok((p.clone(), pattern(t, &def.params, program)?)))
        .collect::<Result<Vec<_>, Fail>>()?;
    def.fields
        .iter()
        .map(|(_, ann)| match ann {
            Some(e) => Ok(with_bounds(pattern(e, &def.params, program)?, &bounds)),
            None => Ok(Pat::Any),
        })
        .collect()
}

/// A caught exception's concrete type is known only at run time, where Julia would choose
/// the method by it: a method annotating that position with a type is refused by name rather
/// than passed over. (`showerror`'s fallback reads the text the exception was raised with,
/// which a program's `showerror` methods made.)
fn refuse_exception_dispatch(
    gf: &GenericFunction,
    pats: &[Pat],
    args: &[Type],
) -> Result<(), Fail> {
    if &*gf.name == "Base.showerror" {
        return Ok(());
    }
    for (p, t) in pats.iter().zip(args) {
        // A method for `nothing` (`Base._notnothing`'s, where a branch tested `e === nothing`)
        // or for one of the library's own structs, which no program throws, is passed over.
        let never_thrown = match p {
            Pat::Struct { name, .. } => crate::calls::is_library(name),
            p => concrete(p, &Default::default()) == Some(Type::Nothing),
        };
        if *t == Type::Exception && !matches!(p, Pat::Any | Pat::Var(_)) && !never_thrown {
            return Err(Fail::unsupported(format!(
                "calling `{}` on a caught exception where one of its methods takes a particular \
                 type (Julia chooses by the exception's type at run time, which zy does not); \
                 test `e isa T` and read `e`'s fields at the call instead",
                gf.name
            )));
        }
    }
    Ok(())
}

/// Julia's TypeError for an instance of `def` (its parameters `params`) whose parameters for a
/// parametric abstract type above it are outside that type's bounds (`Circle{String}` of
/// `struct Circle{T} <: Shape{T}` and `abstract type Shape{T<:Real}`).
fn check_supertype_bounds(program: &Program, def: &StructDef, params: &[Type]) -> Result<(), Fail> {
    let mut at = def;
    let mut own: Bindings = def
        .params
        .iter()
        .cloned()
        .zip(params.iter().cloned())
        .collect();
    // A chain of supertypes is at most as long as the program has types.
    for _ in 0..=program.structs.len() {
        let Some(zy_ir::TypeExpr::Named {
            name: up,
            params: ups,
        }) = &at.supertype
        else {
            break;
        };
        let Some(sup) = program.structs.get(up).filter(|s| s.is_abstract) else {
            break;
        };
        let given: Vec<Option<Type>> = ups
            .iter()
            .map(|e| concrete(&pattern(e, &at.params, program).ok()?, &own))
            .collect();
        for (p, bound) in &sup.param_bounds {
            let at_bound = sup.params.iter().position(|q| q == p);
            let Some(Some(t)) = at_bound.and_then(|i| given.get(i)) else {
                continue;
            };
            if !matches(
                &pattern(bound, &sup.params, program)?,
                t,
                &mut Bindings::new(),
            ) {
                return Err(Fail::method(format!(
                    "TypeError: in {up}, in {p}, expected {p}<:{bound}, got Type{{{t}}}"
                )));
            }
        }
        own = sup
            .params
            .iter()
            .zip(given)
            .filter_map(|(p, t)| Some((p.clone(), t?)))
            .collect();
        at = sup;
    }
    Ok(())
}

/// Julia's error for the abstract type `sup` written with `given` parameters as the supertype
/// of `sub`: a type without parameters given some, too many, or too few (Julia's `UnionAll`,
/// which no type may subtype).
pub(crate) fn parameter_count_error(sup: &StructDef, given: usize, sub: &str) -> String {
    let name = &sup.name;
    if sup.params.is_empty() {
        format!("TypeError: in Type{{...}} expression, expected UnionAll, got Type{{{name}}}")
    } else if given > sup.params.len() {
        format!("ErrorException: too many parameters for type {name}")
    } else {
        format!("ErrorException: invalid subtyping in definition of {sub}: can only subtype data types.")
    }
}

/// Julia's errors for a declared supertype that is not defined, or not an abstract type.
/// (A cycle of abstract types, which Julia cannot define, is its UndefVarError too.)
fn check_supertype(def: &StructDef, program: &Program) -> Result<(), Fail> {
    let mut seen = std::collections::BTreeSet::new();
    let mut at = def;
    while let Some(zy_ir::TypeExpr::Named { name, params }) = &at.supertype {
        match program.structs.get(name) {
            _ if matches!(&**name, "Any" | "Exception" | "Function" | "AbstractSet") => break,
            // Julia's abstract number and array types (`struct Dual <: Real`, `struct V <:
            // AbstractVector{Float64}`).
            _ if crate::pattern::USER_NUMBER_SUPERTYPES
                .iter()
                .any(|(n, _)| *n == &**name)
                || crate::pattern::user_array_supertype(name) =>
            {
                break
            }
            Some(sup) if sup.is_abstract && params.len() != sup.params.len() => {
                return Err(Fail::method(parameter_count_error(
                    sup,
                    params.len(),
                    &at.name,
                )))
            }
            Some(sup) if sup.is_abstract && seen.insert(name.clone()) => {
                check_typevar_bounds(program, at, sup, params)?;
                at = sup
            }
            Some(sup) if sup.is_abstract => return Err(Fail::undefined_name(name)),
            Some(_) => {
                return Err(Fail::method(format!(
                    "invalid subtyping in definition of {}: can only subtype abstract types.",
                    at.name
                )))
            }
            None => return Err(Fail::undefined_in(name, program)),
        }
    }
    Ok(())
}

/// Julia's TypeError where `def` passes one of its own type variables to a bounded parameter
/// of its supertype `sup` (`params` as written) without a bound within that one: `struct
/// Circle{T} <: Shape{T}` of `abstract type Shape{T<:Real}` needs `Circle{T<:Real}`.
fn check_typevar_bounds(
    program: &Program,
    def: &StructDef,
    sup: &StructDef,
    params: &[zy_ir::TypeExpr],
) -> Result<(), Fail> {
    for (given, p) in params.iter().zip(&sup.params) {
        let zy_ir::TypeExpr::Named {
            name: v,
            params: ps,
        } = given
        else {
            continue;
        };
        let bound = sup.param_bounds.iter().find(|(q, _)| q == p);
        let (true, Some((_, bound))) = (ps.is_empty() && def.params.contains(v), bound) else {
            continue;
        };
        let own = match def.param_bounds.iter().find(|(q, _)| q == v) {
            Some((_, b)) => pattern(b, &def.params, program)?,
            None => Pat::Any,
        };
        if !crate::pattern::subtype(&own, &pattern(bound, &sup.params, program)?) {
            return Err(Fail::method(format!(
                "TypeError: in {}, in {p}, expected {p}<:{bound}, got TypeVar",
                sup.name
            )));
        }
    }
    Ok(())
}

/// The environment of a closure: its captures, typed as the captured values.
pub(crate) fn closure(def: &StructDef, b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
    if def.fields.len() != args.len() || def.kind != StructKind::Closure {
        return Err(Fail::unsupported(format!(
            "malformed closure `{}`",
            def.name
        )));
    }
    let st = Arc::new(StructType {
        name: def.name.clone(),
        params: Vec::new(),
        fields: def
            .fields
            .iter()
            .zip(args)
            .map(|((n, _), a)| (n.clone(), a.ty.clone()))
            .collect(),
        mutable: false,
        kind: StructKind::Closure,
    });
    let ty = Type::Struct(st.clone());
    Ok(Val::of(
        b.push(
            Op::New(st),
            args.iter().map(|a| a.arg.clone()).collect(),
            ty.clone(),
        ),
        ty,
    ))
}
