//! Typed values while a call is being resolved, and Julia's conversions between them.

use std::sync::Arc;

use zy_ir::{Const, Prim, Type};

use crate::error::Fail;
use crate::plan::{Arg, PlanBuilder};

/// A typed operand during resolution: an input of the statement, a step's result or a literal.
#[derive(Clone, PartialEq, Debug)]
pub(crate) struct Val {
    pub arg: Arg,
    pub ty: Type,
    /// The literal, when the operand is one (symbols, tuple indices, function names), or an
    /// Int the body computed from literals and tuple lengths (`length(t) - 1`).
    pub konst: Option<Const>,
    /// The elements of a range or vector literal known where the call is compiled (`2:end` of
    /// a tuple, `[1, 3]`), or of a tuple of type parameters (`(3, true)` of `S{3, true}()`):
    /// one entry per element, the Int or Bool where it is one known there.
    pub elems: Option<Arc<[Option<Const>]>>,
}

impl Val {
    /// A computed value.
    pub fn of(arg: Arg, ty: Type) -> Val {
        Val {
            arg,
            ty,
            konst: None,
            elems: None,
        }
    }

    /// A literal.
    pub fn lit(c: Const) -> Val {
        Val {
            arg: Arg::Const(c.clone()),
            ty: c.ty(),
            konst: Some(c),
            elems: None,
        }
    }

    /// The constant Int, if this is an Int literal.
    pub fn int(&self) -> Option<i64> {
        match self.konst {
            Some(Const::Int(i)) => Some(i),
            _ => None,
        }
    }

    /// The Ints of a range or vector known where the call is compiled, if each is.
    pub fn known_ints(&self) -> Option<Vec<i64>> {
        self.elems
            .as_ref()?
            .iter()
            .map(|e| match e {
                Some(Const::Int(k)) => Some(*k),
                _ => None,
            })
            .collect()
    }
}

impl AsRef<Val> for Val {
    fn as_ref(&self) -> &Val {
        self
    }
}

/// The types of a call's arguments.
pub(crate) fn types(args: &[Val]) -> Vec<Type> {
    args.iter().map(|a| a.ty.clone()).collect()
}

/// Primitive `p` applied to `args` (values or references to them), typed `ty`.
pub(crate) fn apply(b: &mut PlanBuilder, p: Prim, args: &[impl AsRef<Val>], ty: Type) -> Val {
    let args = args.iter().map(|a| a.as_ref().arg.clone()).collect();
    Val::of(b.prim(p, args, ty.clone()), ty)
}

/// Convert `v` to type `to` as Julia's `convert` would for the subset: numbers between each
/// other (Float64 -> Int64 is exact or throws `InexactError` at run time), Int arrays to Float64.
pub(crate) fn convert(b: &mut PlanBuilder, v: Val, to: &Type) -> Result<Val, Fail> {
    if v.ty == *to {
        return Ok(v);
    }
    // Literals convert at compile time.
    match (&v.konst, to) {
        (Some(Const::Int(i)), Type::Float64) => return Ok(Val::lit(Const::f64(*i as f64))),
        (Some(Const::Bool(x)), Type::Float64) => {
            return Ok(Val::lit(Const::f64(f64::from(u8::from(*x)))))
        }
        (Some(Const::Bool(x)), Type::Int64) => return Ok(Val::lit(Const::Int(i64::from(*x)))),
        _ => {}
    }
    // `convert(String, s)` of a `SubString` (a `Vector{String}`'s element, a `Dict`'s key) and
    // `convert(SubString{String}, s)` of a `String`: the same text, held alike.
    if v.ty.is_string() && to.is_string() {
        let text = b.prim(Prim::StringOf, vec![v.arg], to.clone());
        return Ok(Val::of(text, to.clone()));
    }
    // A symbol known where it is compiled, stored where any symbol may be (`Vector{Symbol}`).
    if matches!(v.ty, Type::Symbol(_)) && to.is_any_symbol() {
        let f = Arg::Const(Const::Symbol("Symbol".into()));
        return Ok(Val::of(
            b.prim(Prim::StringFn, vec![f, v.arg], to.clone()),
            to.clone(),
        ));
    }
    // A symbol known where it is compiled, stored into a container of `Any`: a run-time one.
    if let (Type::Symbol(_), Type::Union(u)) = (&v.ty, to) {
        if !v.ty.is_any_symbol() && u.members.contains(&Type::any_symbol()) {
            let v = convert(b, v, &Type::any_symbol())?;
            return convert(b, v, to);
        }
    }
    if let Some(n) = crate::absent::number_member(to).filter(|n| v.ty.is_number() && v.ty != *n) {
        // A number stored where `Union{Missing, T}` is held: a `T` first
        // (`Union{Missing, Float64}[1, missing]`).
        let v = convert(b, v, &n)?;
        return convert(b, v, to);
    }
    let prim = match (&v.ty, to) {
        (Type::Int64 | Type::Bool | Type::Int(_) | Type::Float32, Type::Float64) => Prim::Float,
        (Type::Int(_) | Type::Float32, Type::Int64) => Prim::ToInt,
        (Type::Int64 | Type::Bool | Type::Float64 | Type::Float32 | Type::Int(_), Type::Int(_)) => {
            Prim::ConvertInt
        }
        (Type::Int64 | Type::Bool | Type::Float64 | Type::Int(_), Type::Float32) => Prim::ToFloat32,
        // A struct stored where its abstract type is declared (`Vector{Shape}`, a field).
        (t, Type::Union(u)) if u.members.contains(t) => Prim::UnionConvert,
        // Part of a union where it is held, a struct of a fixed shape where its recursive
        // type is.
        (t, to) if crate::join::widens(t, to) => Prim::UnionConvert,
        // A struct whose parameters are not those of the parametric abstract type held
        // (`Sq{Int64}` where a `Shape{Float64}` is): Julia's convert error.
        (Type::Struct(s), Type::Union(u)) if !abstract_params_among(&u.name, &s.params) => {
            return Err(no_convert(&v.ty, to));
        }
        (Type::Struct(_), Type::Union(u)) if !u.members.iter().all(Type::is_number) => {
            // Julia's value of an abstract type holds any of its members; zy's holds the
            // members it lists (every struct below it, or those its literal was made of).
            return Err(Fail::unsupported(format!(
                "storing a {} where a value of the abstract type {} is held, which zy made for \
                 the types {} (the structs below it without type parameters and untyped \
                 fields, or those its literal held); put a {} in the literal it starts from",
                v.ty,
                u.name,
                u.members
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                v.ty
            )));
        }
        (t, Type::Union(u)) if crate::open::is_open(&u.name) => {
            return Err(Fail::unsupported(crate::open::refusal(&u.name, t)));
        }
        (Type::Bool | Type::Float64, Type::Int64) => Prim::ToInt,
        (Type::Array(e, n), Type::Array(f, m))
            if n == m
                && **f == Type::Float64
                && (e.is_number() || matches!(**e, Type::Float32 | Type::Int(_))) =>
        {
            return Ok(Val::of(
                b.prim(Prim::Broadcast, vec![func("float"), v.arg], to.clone()),
                to.clone(),
            ));
        }
        (Type::Array(e, n), Type::Array(f, m))
            if n == m && **f == Type::Int64 && **e == Type::Bool =>
        {
            return Ok(Val::of(
                b.prim(Prim::Broadcast, vec![func("Int"), v.arg], to.clone()),
                to.clone(),
            ));
        }
        (Type::Struct(st), Type::Array(_, 2)) if lazy_transpose_of_real(st).is_some() => {
            let parent = lazy_transpose_of_real(st).cloned().unwrap_or(Type::Nothing);
            return transposed_copy(b, v.arg, parent, to);
        }
        (t, Type::Array(..)) if crate::pattern::reshaped_array(t).as_ref() == Some(to) => {
            // Julia stores the very array, sharing memory; zy's shared reshape is a view,
            // and a copy would silently cut the sharing.
            return Err(Fail::unsupported(format!(
                "storing a `reshape`/`vec` of a variable (which shares its memory) where a {to} \
                 is declared (a field, an element of a typed array); store `copy(...)` of it, \
                 or declare the field `AbstractArray`"
            )));
        }
        // One struct whose abstractly typed fields hold values of other types than those the
        // container keeps (`Pt(true, 1)` into a `Set{Pt}()` of `Int64` fields): one type in
        // Julia, two in zy.
        (Type::Struct(a), Type::Struct(t)) if a.name == t.name && a.params == t.params => {
            let shown = |s: &zy_ir::StructType| {
                let fields: Vec<String> = s.fields.iter().map(|(_, f)| f.to_string()).collect();
                fields.join(", ")
            };
            return Err(Fail::unsupported(format!(
                "storing a {} whose fields hold ({}) where one whose fields hold ({}) is kept \
                 (Julia's one type; zy types a struct by what its abstractly typed fields \
                 hold); build it with values of those types",
                a.name,
                shown(a),
                shown(t)
            )));
        }
        _ => return Err(no_convert(&v.ty, to)),
    };
    Ok(Val::of(b.prim(prim, vec![v.arg], to.clone()), to.clone()))
}

/// Julia's error for storing a `from` where a `to` is held.
fn no_convert(from: &Type, to: &Type) -> Fail {
    Fail::method(format!(
        "MethodError: Cannot `convert` an object of type {from} to an object of type {to}"
    ))
}

/// Are the parameters of the applied abstract type `name` (`Float64` of `Shape{Float64}`) all
/// among a struct's `params`, as they are for the structs below it? (A plain name has none,
/// nor has a `Union{...}` or a tangent's union.)
fn abstract_params_among(name: &str, params: &[Type]) -> bool {
    let Some((base, inside)) = name
        .split_once('{')
        .and_then(|(base, rest)| Some((base, rest.strip_suffix('}')?)))
    else {
        return true;
    };
    if matches!(base, "Union" | "Tangent") {
        return true;
    }
    let shown: Vec<String> = params.iter().map(ToString::to_string).collect();
    inside.split(", ").all(|p| shown.iter().any(|s| s == p))
}

/// The parent of `A'` or `transpose(A)` (the prelude's `AdjointMatrix`, `TransposeMatrix`) of
/// a `Matrix` of real numbers: its type, a matrix whose transpose the wrapper reads.
fn lazy_transpose_of_real(st: &zy_ir::StructType) -> Option<&Type> {
    if !matches!(&*st.name, "Base.AdjointMatrix" | "Base.TransposeMatrix") {
        return None;
    }
    let (_, parent) = st.fields.first()?;
    match parent {
        Type::Array(e, 2) if e.is_number() => Some(parent),
        _ => None,
    }
}

/// Julia's `convert(Matrix{T}, A')` of a real matrix `A` (a field or a typed local declared a
/// `Matrix`): a new matrix, the transpose of the parent, its elements converted to `T`.
fn transposed_copy(
    b: &mut PlanBuilder,
    wrapper: Arg,
    parent: Type,
    to: &Type,
) -> Result<Val, Fail> {
    let field = Arg::Const(Const::Int(1));
    let matrix = b.prim(Prim::GetField, vec![wrapper, field], parent.clone());
    let copy = Val::of(
        b.prim(Prim::Transpose, vec![matrix], parent.clone()),
        parent,
    );
    convert(b, copy, to)
}

/// A function literal operand.
pub(crate) fn func(name: &str) -> Arg {
    Arg::Const(Const::Func(name.into()))
}

/// Julia's `promote_type` for two number types.
pub(crate) fn promote(a: &Type, b: &Type) -> Type {
    match (a, b) {
        _ if a == b => a.clone(),
        (Type::Float64, _) | (_, Type::Float64) => Type::Float64,
        _ => Type::Int64,
    }
}

/// An array type.
pub(crate) fn array(elem: Type, n: u8) -> Type {
    Type::Array(Arc::new(elem), n)
}
