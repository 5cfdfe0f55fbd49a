//! Type annotations (`TypeExpr`) as patterns over concrete types: matching with `where`
//! variables, the subtype order used to pick the most specific method, and resolution of
//! concrete annotations (struct fields) to types.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use zy_ir::{IntKind, Name, ParamValue, Program, Type, TypeExpr};

use crate::error::Fail;

/// Bindings of type variables (`T` in `where T`, or a struct's parameters).
pub(crate) type Bindings = BTreeMap<Name, Type>;

/// The variable that each `<:B` in a field's type stands for: every occurrence its own, so it
/// binds nothing (the field then takes the argument's type).
const SUBTYPE_VAR: &str = "#<:";

/// The abstract number types of the subset, from widest to narrowest.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum NumClass {
    /// `Number` and `Real` (the same for real numbers).
    Real,
    AbstractFloat,
    Integer,
    Signed,
    Unsigned,
}

/// An annotation resolved against the program's names.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) enum Pat {
    Any,
    /// A type variable.
    Var(Name),
    /// A type variable with an upper bound: `T` in `where {T<:Real}`.
    Bounded(Name, Box<Pat>),
    Num(NumClass),
    /// A concrete leaf type: `Float64`, `Int64`, `Bool`, `Nothing`, `String`.
    Leaf(Type),
    /// `AbstractString`: zy's string types are `String` and `SubString{String}`, each more
    /// specific than it.
    AbstractString,
    /// `Array`/`Vector`/`Matrix` (`abstract_: false`) or their `Abstract` supertypes.
    Array {
        abstract_: bool,
        elem: Option<Box<Pat>>,
        ndims: Option<u8>,
        /// `N` in `AbstractArray{T, N} where N`: bound to the number of dimensions.
        ndims_var: Option<Name>,
    },
    /// `Tuple` (any) or `Tuple{A, B}`.
    Tuple(Option<Vec<Pat>>),
    /// `NamedTuple` (any), `NamedTuple{names}` (those names, in order, of any types) or
    /// `NamedTuple{names, Tuple{A, B}}`.
    NamedTuple {
        names: Option<Vec<Name>>,
        types: Option<Vec<Pat>>,
    },
    /// `Symbol`: every symbol (each has its own type, [`Type::Symbol`]).
    Symbol,
    /// `Function`: generic functions, closures and pullbacks.
    Function,
    /// `typeof(f)`.
    Typeof(Name),
    /// `Type{T}` of a type variable (`::Type{T}) where T<:Real`): a type as a value, binding
    /// the variable to the type it names.
    TypeValue(Box<Pat>),
    /// A user struct, with or without parameters.
    Struct {
        name: Name,
        params: Option<Vec<Pat>>,
    },
    /// A user abstract type, with the structs and abstract types below it; a parametric one
    /// written with its parameters (`Shape{Float64}`) holds them in `params`.
    Abstract {
        name: Name,
        below: Arc<BTreeSet<Name>>,
        params: Option<Arc<AbstractParams>>,
    },
    /// `Ref` or `Ref{T}`.
    Ref(Option<Box<Pat>>),
    /// `Adjoint` or `Adjoint{T}`: a row `x'` of a vector.
    Adjoint(Option<Box<Pat>>),
    /// `Union{A, B, ...}`: a value of any member (`VecOrMat{T}` is `Union{Vector{T}, Matrix{T}}`).
    Union(Vec<Pat>),
}

/// The parameters of a parametric abstract type in an annotation (`Shape{Float64}`,
/// `Shape{T} where T`), and for each type below it the parameters it gives that abstract type,
/// written with its own (`struct Circle{T} <: Shape{T}`: Circle's `[T]` give `[T]`).
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct AbstractParams {
    pub(crate) pats: Vec<Pat>,
    pub(crate) lifts: BTreeMap<Name, (Vec<Name>, Vec<Pat>)>,
}

impl AbstractParams {
    /// Does the struct `s` (below the abstract type) give it parameters matching `pats`?
    fn holds(&self, s: &zy_ir::StructType, b: &mut Bindings) -> bool {
        let Some((names, lifted)) = self.lifts.get(&s.name) else {
            return false;
        };
        let own: Bindings = names
            .iter()
            .cloned()
            .zip(s.params.iter().cloned())
            .collect();
        let mut tried = b.clone();
        let ok = lifted.len() == self.pats.len()
            && lifted
                .iter()
                .zip(&self.pats)
                .all(|(l, p)| concrete(l, &own).is_some_and(|t| matches_exact(p, &t, &mut tried)));
        if ok {
            *b = tried;
        }
        ok
    }

    /// Is every instance of `name` (`params` its parameters, `None` for all of them) one whose
    /// parameters for this abstract type are within `pats`?
    fn within(&self, name: &Name, params: Option<&[Pat]>) -> bool {
        let Some((names, lifted)) = self.lifts.get(name) else {
            return false;
        };
        let given: BTreeMap<&Name, &Pat> = match params {
            Some(ps) => names.iter().zip(ps).collect(),
            None => BTreeMap::new(),
        };
        lifted
            .iter()
            .zip(&self.pats)
            .all(|(l, p)| param_within(&put(l, &given), p))
    }
}

/// `p` with each variable named in `given` replaced by its pattern.
fn put(p: &Pat, given: &BTreeMap<&Name, &Pat>) -> Pat {
    let each = |ps: &[Pat]| ps.iter().map(|p| put(p, given)).collect::<Vec<_>>();
    match p {
        Pat::Var(v) | Pat::Bounded(v, _) => {
            given.get(v).map_or_else(|| p.clone(), |q| (*q).clone())
        }
        Pat::Array {
            abstract_,
            elem,
            ndims,
            ndims_var,
        } => Pat::Array {
            abstract_: *abstract_,
            elem: elem.as_ref().map(|e| Box::new(put(e, given))),
            ndims: *ndims,
            ndims_var: ndims_var.clone(),
        },
        Pat::Tuple(Some(ps)) => Pat::Tuple(Some(each(ps))),
        Pat::NamedTuple {
            names,
            types: Some(ps),
        } => Pat::NamedTuple {
            names: names.clone(),
            types: Some(each(ps)),
        },
        Pat::Struct {
            name,
            params: Some(ps),
        } => Pat::Struct {
            name: name.clone(),
            params: Some(each(ps)),
        },
        Pat::Ref(Some(e)) => Pat::Ref(Some(Box::new(put(e, given)))),
        p => p.clone(),
    }
}

/// The parameters the struct or abstract type `def` gives the abstract type `target` above it,
/// written with `def`'s own parameters (`[T]` of `struct Circle{T} <: Shape{T}`), through the
/// abstract types between them.
pub(crate) fn supertype_params(
    program: &Program,
    def: &zy_ir::StructDef,
    target: &str,
) -> Option<Vec<TypeExpr>> {
    let mut at = def;
    let mut put: BTreeMap<Name, TypeExpr> = BTreeMap::new();
    // A chain of supertypes is at most as long as the program has types.
    for _ in 0..=program.structs.len() {
        let Some(TypeExpr::Named { name: up, params }) = &at.supertype else {
            return None;
        };
        let params: Vec<TypeExpr> = params.iter().map(|p| substitute(p, &put)).collect();
        if **up == *target {
            return Some(params);
        }
        let sup = program.structs.get(up)?;
        put = sup.params.iter().cloned().zip(params).collect();
        at = sup;
    }
    None
}

/// `e` with each parameter name in `put` replaced by its type.
pub(crate) fn substitute(e: &TypeExpr, put: &BTreeMap<Name, TypeExpr>) -> TypeExpr {
    match e {
        TypeExpr::Named { name, params } if params.is_empty() => {
            put.get(name).cloned().unwrap_or_else(|| e.clone())
        }
        TypeExpr::Named { name, params } => TypeExpr::Named {
            name: name.clone(),
            params: params.iter().map(|p| substitute(p, put)).collect(),
        },
        e => e.clone(),
    }
}

/// The pattern of the parametric abstract type `name` with its parameters written (`Shape{T}`).
fn parametric_abstract(
    name: &Name,
    params: &[TypeExpr],
    vars: &[Name],
    program: &Program,
) -> Result<Pat, Fail> {
    let pats = params
        .iter()
        .map(|p| pattern(p, vars, program))
        .collect::<Result<Vec<_>, _>>()?;
    let below = subtypes_of(&[&**name], program);
    let lifts = below
        .iter()
        .filter_map(|s| {
            let def = program.structs.get(s)?;
            let lifted = supertype_params(program, def, name)?
                .iter()
                .map(|e| pattern(e, &def.params, program).ok())
                .collect::<Option<Vec<_>>>()?;
            Some((s.clone(), (def.params.clone(), lifted)))
        })
        .collect();
    Ok(Pat::Abstract {
        name: name.clone(),
        below: Arc::new(below),
        params: Some(Arc::new(AbstractParams { pats, lifts })),
    })
}

/// The name of a parametric abstract type without its parameters (`Shape` of a union named
/// `Shape{Float64}`).
pub(crate) fn base_name(name: &str) -> &str {
    name.split_once('{').map_or(name, |(b, _)| b)
}

/// The prelude's complex numbers, `Complex{T}`.
const COMPLEX: &str = "Base.Complex";
/// The prelude's `Missing`, the type of `missing`.
const MISSING: &str = "Base.Missing";

/// An array annotation with parameters zy cannot read (`Vector{Float64, Int}`).
fn array_annotation(expr: &TypeExpr) -> Fail {
    Fail::unsupported(format!(
        "`{expr}`; annotate with `Vector{{T}}`, `Matrix{{T}}` or \
         `AbstractArray{{T, N}} where N` instead"
    ))
}

/// Resolve an annotation; `vars` are the type variables in scope.
pub(crate) fn pattern(expr: &TypeExpr, vars: &[Name], program: &Program) -> Result<Pat, Fail> {
    let (name, params) = match expr {
        TypeExpr::Typeof(n) => return Ok(Pat::Typeof(n.clone())),
        TypeExpr::Named { name, params } => (name, params),
    };
    if vars.iter().any(|v| v == name) {
        if !params.is_empty() {
            return Err(Fail::unsupported(format!(
                "parameters on type variable `{name}`; write the parametric type with variables for its \
                 parameters (`x::Vector{{T}} where T`) instead"
            )));
        }
        return Ok(Pat::Var(name.clone()));
    }
    // `3`, `true`, `:a` as a parameter (`Val{3}`): that value.
    if let (Some(v), true) = (ParamValue::parse(name), params.is_empty()) {
        return Ok(Pat::Leaf(Type::Param(v)));
    }
    // `x::FVec` of `const FVec = Vector{Float64}`: the type the alias names.
    if program.aliases.contains_key(name) {
        return pattern(&crate::aliases::expanded(expr, program)?, vars, program);
    }
    let sub = |i: usize| -> Result<Option<Box<Pat>>, Fail> {
        match params.get(i) {
            Some(p) => Ok(Some(Box::new(pattern(p, vars, program)?))),
            None => Ok(None),
        }
    };
    let no_params = |p: Pat| -> Result<Pat, Fail> {
        if params.is_empty() {
            Ok(p)
        } else {
            Err(Fail::unsupported(format!(
                "type parameters on `{name}`; write `{name}` without parameters instead"
            )))
        }
    };
    let array = |abstract_: bool, ndims: Option<u8>, max: usize| -> Result<Pat, Fail> {
        if params.len() > max {
            return Err(array_annotation(expr));
        }
        let mut ndims = ndims;
        let mut ndims_var = None;
        if max == 2 {
            if let Some(TypeExpr::Named { name: n, params: p }) = params.get(1) {
                match n.parse::<u8>() {
                    Ok(k) if (0..=zy_ir::MAX_DIMS).contains(&k) && p.is_empty() => ndims = Some(k),
                    // `AbstractArray{T, N} where N`: any number of dimensions, named.
                    _ if p.is_empty() && vars.contains(n) => ndims_var = Some(n.clone()),
                    _ => return Err(array_annotation(expr)),
                }
            }
        }
        Ok(Pat::Array {
            abstract_,
            elem: sub(0)?,
            ndims,
            ndims_var,
        })
    };
    if let Some(k) = IntKind::from_name(name) {
        return no_params(Pat::Leaf(Type::Int(k)));
    }
    match &**name {
        "Any" => no_params(Pat::Any),
        // `Missing` in a type value's name (`Union{Missing, Float64}`, what `eltype` of an
        // array holding `missing` gives): the prelude's struct.
        "Missing"
            if !program.structs.contains_key(name) && program.structs.contains_key(MISSING) =>
        {
            no_params(Pat::Struct {
                name: MISSING.into(),
                params: Some(Vec::new()),
            })
        }
        // Julia's `Number` is `Real` and `Complex` (when the program has complex numbers).
        "Number" if params.is_empty() && program.structs.contains_key(COMPLEX) => {
            let union = TypeExpr::Named {
                name: "Union".into(),
                params: vec![TypeExpr::named("Real"), TypeExpr::named(COMPLEX)],
            };
            Ok(with_user_numbers(
                pattern(&union, vars, program)?,
                name,
                program,
            ))
        }
        "Number" | "Real" => no_params(with_user_numbers(Pat::Num(NumClass::Real), name, program)),
        // `<:B` as a parameter of a field's type (`x::Vector{<:Real}`): a variable of its own,
        // bound by nothing else.
        "<:" => match params.as_slice() {
            [bound] => Ok(Pat::Bounded(
                SUBTYPE_VAR.into(),
                Box::new(pattern(bound, vars, program)?),
            )),
            _ => Err(Fail::unsupported("`<:` with several bounds")),
        },
        // Julia's alias `const ComplexF64 = Complex{Float64}`.
        "ComplexF64" | "Base.ComplexF64" if params.is_empty() => {
            let complex = TypeExpr::Named {
                name: COMPLEX.into(),
                params: vec![TypeExpr::named("Float64")],
            };
            pattern(&complex, vars, program)
        }
        // Julia's `CartesianIndex{N}` and `CartesianIndices{N}`: the prelude's structs of a
        // tuple of `N` Ints.
        n if matches!(
            n.strip_prefix("Base.").unwrap_or(n),
            "CartesianIndex" | "CartesianIndices"
        ) && cartesian_dims(params).is_some() =>
        {
            let dims = cartesian_dims(params).unwrap_or_default();
            let ints = TypeExpr::Named {
                name: "Tuple".into(),
                params: vec![TypeExpr::named("Int64"); dims],
            };
            let bare = n.strip_prefix("Base.").unwrap_or(n);
            Ok(Pat::Struct {
                name: format!("Base.{bare}").into(),
                params: Some(vec![pattern(&ints, vars, program)?]),
            })
        }
        "AbstractFloat" => no_params(with_user_numbers(
            Pat::Num(NumClass::AbstractFloat),
            name,
            program,
        )),
        "Integer" => no_params(with_user_numbers(
            Pat::Num(NumClass::Integer),
            name,
            program,
        )),
        "Signed" => no_params(with_user_numbers(Pat::Num(NumClass::Signed), name, program)),
        "Unsigned" => no_params(Pat::Num(NumClass::Unsigned)),
        "Float64" => no_params(Pat::Leaf(Type::Float64)),
        "Float32" => no_params(Pat::Leaf(Type::Float32)),
        "Int" | "Int64" => no_params(Pat::Leaf(Type::Int64)),
        "Bool" => no_params(Pat::Leaf(Type::Bool)),
        "Nothing" => no_params(Pat::Leaf(Type::Nothing)),
        "String" => no_params(Pat::Leaf(Type::String)),
        // `SubString{String}`, or `SubString` (zy's substrings are all of `String`s); the name
        // is the prelude's constructor's where a program resolves it.
        "SubString" | "Base.SubString" => match params.as_slice() {
            [] => Ok(Pat::Leaf(Type::SubString)),
            [TypeExpr::Named { name: s, params: p }] if &**s == "String" && p.is_empty() => {
                Ok(Pat::Leaf(Type::SubString))
            }
            _ => Err(Fail::unsupported(format!(
                "`{expr}`: zy's substrings are `SubString{{String}}`"
            ))),
        },
        "AbstractString" => no_params(Pat::AbstractString),
        "Function" => no_params(with_user_functions(program)),
        "AbstractSet" | "Base.AbstractSet" if params.is_empty() => Ok(abstract_set(program)),
        "AbstractSet" | "Base.AbstractSet" => abstract_set_of(params, vars, program),
        "NamedTuple" => named_tuple(params, vars, program),
        "Symbol" => no_params(Pat::Symbol),
        "Vector" => array(false, Some(1), 1),
        "Matrix" => array(false, Some(2), 1),
        "Array" => array(false, None, 2),
        "AbstractVector" => array(true, Some(1), 1),
        "AbstractMatrix" => array(true, Some(2), 1),
        "AbstractArray" => array(true, None, 2),
        // `Union{}`: no value has it; it is a subtype of every type.
        "Union{}" => Ok(Pat::Union(Vec::new())),
        "Union" if !params.is_empty() => Ok(Pat::Union(
            params
                .iter()
                .map(|p| pattern(p, vars, program))
                .collect::<Result<_, _>>()?,
        )),
        // LinearAlgebra's names for a vector or a matrix.
        "VecOrMat" | "AbstractVecOrMat" if params.len() <= 1 => {
            let (v, m) = if name.starts_with("Abstract") {
                ("AbstractVector", "AbstractMatrix")
            } else {
                ("Vector", "Matrix")
            };
            let member = |n: &str| TypeExpr::Named {
                name: n.into(),
                params: params.clone(),
            };
            let union = TypeExpr::Named {
                name: "Union".into(),
                params: vec![member(v), member(m)],
            };
            pattern(&union, vars, program)
        }
        // Julia's abstract ranges: the prelude's range structs whose first parameter is the
        // element type (`1:3` and `1:2:5` are `AbstractRange{Int64}`, `0:0.5:1` is not an
        // `OrdinalRange`).
        "AbstractRange" | "AbstractUnitRange" | "OrdinalRange" if params.len() <= 1 => {
            let members: &[(&str, usize)] = match &**name {
                "AbstractUnitRange" => &[("Base.UnitRange", 1), ("Base.OneTo", 1)],
                "OrdinalRange" => &[
                    ("Base.UnitRange", 1),
                    ("Base.OneTo", 1),
                    ("Base.StepRange", 2),
                ],
                _ => &[
                    ("Base.UnitRange", 1),
                    ("Base.OneTo", 1),
                    ("Base.StepRange", 2),
                    ("Base.StepRangeLen", 1),
                    ("Base.LinRange", 2),
                ],
            };
            let member = |(n, arity): &(&str, usize)| -> Result<Pat, Fail> {
                let params = match params.first() {
                    None => None,
                    Some(elem) => {
                        let mut ps = vec![pattern(elem, vars, program)?];
                        ps.extend(
                            (1..*arity)
                                .map(|_| Pat::Bounded(SUBTYPE_VAR.into(), Box::new(Pat::Any))),
                        );
                        Some(ps)
                    }
                };
                Ok(Pat::Struct {
                    name: (*n).into(),
                    params,
                })
            };
            Ok(Pat::Union(
                members.iter().map(member).collect::<Result<_, _>>()?,
            ))
        }
        "Tuple" if params.is_empty() => Ok(Pat::Tuple(None)),
        // The empty tuple's type, as zy-syntax names `Tuple{}`.
        "Tuple{}" => Ok(Pat::Tuple(Some(Vec::new()))),
        "Tuple" => Ok(Pat::Tuple(Some(
            params
                .iter()
                .map(|p| pattern(p, vars, program))
                .collect::<Result<_, _>>()?,
        ))),
        "Ref" | "RefValue" | "Base.RefValue" if params.len() <= 1 => Ok(Pat::Ref(sub(0)?)),
        // The adjoint of a vector: `Adjoint{T, Vector{T}}`.
        "Adjoint" if params.len() <= 1 || params.get(1).is_some_and(is_vector_expr) => {
            Ok(Pat::Adjoint(sub(0)?))
        }
        // The adjoint of a matrix, `Adjoint{T, Matrix{T}}`: the prelude's `AdjointMatrix`.
        "Adjoint" if params.len() == 2 => Ok(Pat::Struct {
            name: "Base.AdjointMatrix".into(),
            params: Some(vec![pattern(&params[1], vars, program)?]),
        }),
        // `::Type{Float64}`: the type `Float64` as a value, which zy represents as the
        // constructor function `Float64`.
        "Type" => {
            let refused = || {
                Fail::unsupported(format!(
                    "`{expr}`; write `Type{{T}}` of a type without parameters (`::Type{{Float64}}`), \
                     or leave the argument untyped, instead"
                ))
            };
            match params.as_slice() {
                // `T::Type`: any type as a value, the builtin ones zy binds (`Float64`, `Int`,
                // `Bool`, `Nothing`) or one of the program's structs.
                [] => {
                    let mut any = vec![Pat::TypeValue(Box::new(Pat::Var(SUBTYPE_VAR.into())))];
                    any.extend(program.structs.keys().map(|s| Pat::Typeof(s.clone())));
                    Ok(Pat::Union(any))
                }
                [TypeExpr::Named { name: t, params: p }] if p.is_empty() && vars.contains(t) => {
                    Ok(Pat::TypeValue(Box::new(Pat::Var(t.clone()))))
                }
                [TypeExpr::Named { name: t, params: p }] if p.is_empty() => {
                    Ok(Pat::Typeof(t.clone()))
                }
                // `::Type{Rational{Int}}`: one concrete struct type, as its value is named.
                [inner] => match concrete_name(inner, vars, program) {
                    Some(name) => Ok(Pat::Typeof(name)),
                    // `::Type{Dual{T}} where T`: the struct's instances as values, binding
                    // the variables to their parameters.
                    None => match pattern(inner, vars, program)? {
                        p @ Pat::Struct {
                            params: Some(_), ..
                        } => Ok(Pat::TypeValue(Box::new(p))),
                        // `::Type{<:Shape}`: any type below the bound, as a value.
                        p @ Pat::Bounded(..) => Ok(Pat::TypeValue(Box::new(p))),
                        _ => Err(refused()),
                    },
                },
                _ => Err(refused()),
            }
        }
        _ => match program.structs.get(name) {
            Some(def) if def.is_abstract && params.is_empty() => Ok(Pat::Abstract {
                name: name.clone(),
                below: Arc::new(subtypes_of(&[&**name], program)),
                params: None,
            }),
            Some(def)
                if def.is_abstract
                    && !def.params.is_empty()
                    && params.len() <= def.params.len() =>
            {
                // `A{Float64}` of `abstract type A{T, N}`: the parameters not written are any
                // (`A{Float64, N} where N`).
                let mut all = params.clone();
                all.extend((params.len()..def.params.len()).map(|_| TypeExpr::Named {
                    name: "<:".into(),
                    params: vec![TypeExpr::named("Any")],
                }));
                parametric_abstract(name, &all, vars, program)
            }
            Some(def) if def.is_abstract => Err(Fail::method(
                crate::dispatch::parameter_count_error(def, params.len(), ""),
            )),
            // A struct without parameters is one type (`Vector{Layer}` is exact); a parametric
            // one named bare stands for all its instances.
            Some(def) if params.is_empty() => Ok(Pat::Struct {
                name: name.clone(),
                params: def.params.is_empty().then(Vec::new),
            }),
            // Julia's `UpperTriangular{T, M}` (`Diagonal{T, V}`, `Symmetric{T, M}`) where the
            // prelude's struct keeps only `M`: `X{T}` is any wrapped array of `T`s, `X{T, M}`
            // the one wrapping `M`.
            Some(def)
                if def.params.len() == 1 && params.len() <= 2 && wrapped_kind(name).is_some() =>
            {
                let wrapped = match params.as_slice() {
                    [t] => TypeExpr::Named {
                        name: "<:".into(),
                        params: vec![TypeExpr::Named {
                            name: wrapped_kind(name).unwrap_or("AbstractMatrix").into(),
                            params: vec![t.clone()],
                        }],
                    },
                    [_, m] => m.clone(),
                    _ => {
                        return Err(Fail::method(format!(
                            "wrong number of type parameters in `{expr}`"
                        )))
                    }
                };
                Ok(Pat::Struct {
                    name: name.clone(),
                    params: Some(vec![pattern(&wrapped, vars, program)?]),
                })
            }
            // `B{T}` of `struct B{T, HT}`: the parameters not written are any (`B{T, HT}
            // where HT`), as Julia applies a type's parameters in order.
            Some(def) if params.len() <= def.params.len() => {
                let any = TypeExpr::Named {
                    name: "<:".into(),
                    params: vec![TypeExpr::named("Any")],
                };
                let written = params.iter().map(|p| pattern(p, vars, program));
                let rest = (params.len()..def.params.len()).map(|_| pattern(&any, vars, program));
                Ok(Pat::Struct {
                    name: name.clone(),
                    params: Some(written.chain(rest).collect::<Result<_, _>>()?),
                })
            }
            Some(_) => Err(Fail::method(format!(
                "wrong number of type parameters in `{expr}`"
            ))),
            None => Err(Fail::undefined_in(name, program)),
        },
    }
}

/// The abstract array type a prelude wrapper of one array holds (`AbstractMatrix` for the
/// triangular and symmetric wrappers, `AbstractVector` for `Diagonal`), if `name` is one.
pub(crate) fn wrapped_kind(name: &str) -> Option<&'static str> {
    match name {
        "LinearAlgebra.UpperTriangular"
        | "LinearAlgebra.LowerTriangular"
        | "LinearAlgebra.UnitUpperTriangular"
        | "LinearAlgebra.UnitLowerTriangular"
        | "LinearAlgebra.Symmetric"
        | "LinearAlgebra.Hermitian" => Some("AbstractMatrix"),
        "LinearAlgebra.Diagonal" => Some("AbstractVector"),
        _ => None,
    }
}

/// The name of the concrete struct type `e` (`Rational{Int}`) as a value, if it is one.
fn concrete_name(e: &TypeExpr, vars: &[Name], program: &Program) -> Option<Name> {
    crate::type_values::struct_value_name(&pattern(e, vars, program).ok()?)
}

/// Is `e` a vector type (`Vector{T}`, `AbstractVector{T}`), the parent of an `Adjoint`?
fn is_vector_expr(e: &TypeExpr) -> bool {
    matches!(e, TypeExpr::Named { name, .. } if matches!(&**name, "Vector" | "AbstractVector"))
}

/// Julia's abstract number types that the program's own types may subtype, each with those
/// below it.
pub(crate) const USER_NUMBER_SUPERTYPES: [(&str, &[&str]); 5] = [
    ("Number", &["Real", "AbstractFloat", "Integer", "Signed"]),
    ("Real", &["AbstractFloat", "Integer", "Signed"]),
    ("AbstractFloat", &[]),
    ("Integer", &["Signed"]),
    ("Signed", &[]),
];

/// `p`, the pattern of Julia's abstract number type `name` over zy's numbers, widened by the
/// program's own types declared below `name` (`struct Dual <: Real`), if there are any: a
/// union whose second member also lists Julia's abstract types below `name`, so that `Real`
/// is more specific than `Number` also for the program's types.
fn with_user_numbers(p: Pat, name: &Name, program: &Program) -> Pat {
    let Some((_, inner)) = USER_NUMBER_SUPERTYPES.iter().find(|(n, _)| *n == &**name) else {
        return p;
    };
    let roots: Vec<&str> = std::iter::once(&**name)
        .chain(inner.iter().copied())
        .collect();
    let mut below = subtypes_of(&roots, program);
    if below.is_empty() {
        return p;
    }
    below.extend(inner.iter().map(|n| Name::from(*n)));
    Pat::Union(vec![
        p,
        Pat::Abstract {
            name: name.clone(),
            below: Arc::new(below),
            params: None,
        },
    ])
}

/// `Function`, widened by the program's structs declared below it (`struct Sq <: Function`
/// with a method `(f::Sq)(x)`), if there are any.
fn with_user_functions(program: &Program) -> Pat {
    let name = Name::from("Function");
    let below = subtypes_of(&["Function"], program);
    if below.is_empty() {
        return Pat::Function;
    }
    Pat::Union(vec![
        Pat::Function,
        Pat::Abstract {
            name,
            below: Arc::new(below),
            params: None,
        },
    ])
}

/// Julia's `AbstractSet`: the prelude's `Set` and `BitSet` and the program's structs declared
/// below it (`struct CustomSet{T} <: AbstractSet{T}`).
fn abstract_set(program: &Program) -> Pat {
    let library = |name: &str| Pat::Struct {
        name: name.into(),
        params: None,
    };
    let mut members = vec![library("Base.Set"), library("Base.BitSet")];
    let below = subtypes_of(&["AbstractSet"], program);
    if !below.is_empty() {
        members.push(Pat::Abstract {
            name: "AbstractSet".into(),
            below: Arc::new(below),
            params: None,
        });
    }
    Pat::Union(members)
}

/// Julia's `AbstractSet{T}`: a `Set{T}`, a `BitSet` where `T` is `Int64`, and the program's
/// structs declared below `AbstractSet` giving it a parameter that matches (`struct
/// CustomSet{T} <: AbstractSet{T}`).
fn abstract_set_of(params: &[TypeExpr], vars: &[Name], program: &Program) -> Result<Pat, Fail> {
    let [elem] = params else {
        return Err(Fail::method("too many parameters for type AbstractSet"));
    };
    let p = pattern(elem, vars, program)?;
    let bit_set = p == Pat::Leaf(Type::Int64);
    let mut members = vec![Pat::Struct {
        name: "Base.Set".into(),
        params: Some(vec![p]),
    }];
    if bit_set {
        members.push(Pat::Struct {
            name: "Base.BitSet".into(),
            params: None,
        });
    }
    if !subtypes_of(&["AbstractSet"], program).is_empty() {
        members.push(parametric_abstract(
            &"AbstractSet".into(),
            params,
            vars,
            program,
        )?);
    }
    Ok(Pat::Union(members))
}

/// Is `name` one of Julia's abstract array types that a struct of the program may subtype
/// (`struct V <: AbstractVector{Float64}`)?
pub(crate) fn user_array_supertype(name: &str) -> bool {
    matches!(name, "AbstractArray" | "AbstractVector" | "AbstractMatrix")
}

/// Is `name` one of the prelude's range structs (`1:3`, `1:2:5`, `0:0.5:1`, `LinRange`)?
pub(crate) fn is_range_struct(name: &str) -> bool {
    RANGE_STRUCTS.contains(&name)
}

/// The prelude's range structs, which Julia makes `AbstractRange`s.
const RANGE_STRUCTS: &[&str] = &[
    "Base.UnitRange",
    "Base.OneTo",
    "Base.StepRange",
    "Base.StepRangeLen",
    "Base.LinRange",
];

/// Is `name` a struct of the program declared below Julia's `AbstractArray`?
pub(crate) fn is_user_array_struct(name: &Name, program: &Program) -> bool {
    program
        .structs
        .get(name)
        .is_some_and(|d| array_supertype(program, d).is_some())
}

/// Julia's abstract array type above `def` (`AbstractArray{T, N}`), directly or through the
/// program's abstract types between (`struct Z{T} <: A{T, 1}` of `abstract type A{T, N} <:
/// AbstractArray{T, N}`), its parameters written with `def`'s own.
fn array_supertype<'a>(
    program: &'a Program,
    def: &'a zy_ir::StructDef,
) -> Option<(&'a str, Vec<TypeExpr>)> {
    let mut at = def;
    let mut own: BTreeMap<Name, TypeExpr> = BTreeMap::new();
    // A chain of supertypes is at most as long as the program has types.
    for _ in 0..=program.structs.len() {
        let Some(TypeExpr::Named { name, params }) = &at.supertype else {
            return None;
        };
        let given: Vec<TypeExpr> = params.iter().map(|e| substitute(e, &own)).collect();
        if user_array_supertype(name) {
            return Some((name, given));
        }
        let sup = program.structs.get(name).filter(|s| s.is_abstract)?;
        own = sup.params.iter().cloned().zip(given).collect();
        at = sup;
    }
    None
}

/// The pattern of Julia's abstract array type above the program's struct `name`
/// (`AbstractVector{T}` of `struct W{T} <: AbstractVector{T}`), with the struct's parameters
/// `params` put in where they are given (`W{Int64}`: `AbstractVector{Int64}`; a bare `W`
/// leaves `T` a variable), if `name` is such a struct.
pub(crate) fn user_array_pattern(
    name: &Name,
    params: Option<&[Pat]>,
    program: &Program,
) -> Option<Pat> {
    let def = program.structs.get(name)?;
    let (up, given) = array_supertype(program, def)?;
    let above = TypeExpr::Named {
        name: up.into(),
        params: given,
    };
    let above = pattern(&above, &def.params, program).ok()?;
    Some(match params {
        Some(ps) if ps.len() == def.params.len() => {
            put(&above, &def.params.iter().zip(ps).collect())
        }
        _ => above,
    })
}

/// The array type that a struct of the program declared below Julia's `AbstractArray` stands
/// for in an abstract annotation (`Vector{Float64}` of `struct V <: AbstractVector{Float64}`,
/// `Vector{T}` of a `V{T} <: AbstractVector{T}`, `Vector{Any}` of a bare `V <:
/// AbstractVector`), if `t` is one.
pub(crate) fn user_array(t: &Type, program: &Program) -> Option<Type> {
    let Type::Struct(s) = t else {
        return None;
    };
    if s.kind != zy_ir::StructKind::User {
        return None;
    }
    let def = program.structs.get(&s.name)?;
    let (name, params) = array_supertype(program, def)?;
    let (elem, ndims) = match (name, params.as_slice()) {
        // Julia's `AbstractVector{T} where T`: no element type of its own.
        ("AbstractVector", []) => return Some(Type::Array(Arc::new(Type::Any), 1)),
        ("AbstractMatrix", []) => return Some(Type::Array(Arc::new(Type::Any), 2)),
        ("AbstractVector", [e]) => (e, 1),
        ("AbstractMatrix", [e]) => (e, 2),
        ("AbstractArray", [e, TypeExpr::Named { name: n, params: p }]) if p.is_empty() => {
            (e, array_dims(n, &def.params, &s.params)?)
        }
        _ => return None,
    };
    // The struct's parameters bound to its type's, for an element written with them.
    let bindings: Bindings = def
        .params
        .iter()
        .cloned()
        .zip(s.params.iter().cloned())
        .collect();
    let elem = concrete(&pattern(elem, &def.params, program).ok()?, &bindings)?;
    Some(Type::Array(Arc::new(elem), ndims))
}

/// The number of dimensions `n` written in a struct's `<: AbstractArray{T, n}`: a number, or
/// one of the struct's parameters `names` (`N` of `Wrap{T, N, A}`) as its type `given` binds it.
fn array_dims(n: &str, names: &[Name], given: &[Type]) -> Option<u8> {
    let k = match names.iter().position(|p| **p == *n) {
        Some(i) => match given.get(i)? {
            Type::Param(zy_ir::ParamValue::Int(k)) => u8::try_from(*k).ok()?,
            t => dims_of(t)?,
        },
        None => n.parse::<u8>().ok()?,
    };
    (1..=zy_ir::MAX_DIMS).contains(&k).then_some(k)
}

/// [`matches`] of a struct of the program that is an array ([`user_array`]) as the array type
/// `a` it stands for, by an abstract array annotation (or a union of them) only.
fn matches_user_array(p: &Pat, a: &Type, b: &mut Bindings) -> bool {
    match p {
        Pat::Array {
            abstract_: true, ..
        } => matches(p, a, b),
        Pat::Union(ps) => ps.iter().any(|p| {
            let mut tried = b.clone();
            let ok = matches_user_array(p, a, &mut tried);
            if ok {
                *b = tried;
            }
            ok
        }),
        _ => false,
    }
}

/// Is `t` one of the program's own number types: a struct declared below Julia's `Number`,
/// `Real`, `AbstractFloat`, `Integer` or `Signed` (directly or through the program's abstract
/// types)?
pub(crate) fn is_user_number(t: &Type, program: &Program) -> bool {
    user_number_supertype(t, program).is_some()
}

/// Is `t` one of the program's own number types declared below Julia's `Real`?
pub(crate) fn is_user_real(t: &Type, program: &Program) -> bool {
    user_number_supertype(t, program).is_some_and(|n| n != "Number")
}

/// Does `name` name one of the program's own number types ([`is_user_number`])?
pub(crate) fn names_user_number(name: &str, program: &Program) -> bool {
    // `Dual{Float64}` names an instance of the struct `Dual`.
    let name = name.split_once('{').map_or(name, |(n, _)| n);
    nearest_number_supertype(name, program).is_some()
}

/// The nearest of Julia's abstract number types above `t`, a struct of the program.
fn user_number_supertype<'p>(t: &Type, program: &'p Program) -> Option<&'p str> {
    match t {
        Type::Struct(s) => nearest_number_supertype(&s.name, program),
        _ => None,
    }
}

/// The nearest of Julia's abstract number types above the struct `name` of the program.
fn nearest_number_supertype<'p>(name: &str, program: &'p Program) -> Option<&'p str> {
    let mut at = name;
    // A chain of supertypes is at most as long as the program has types.
    for _ in 0..=program.structs.len() {
        let Some(TypeExpr::Named { name, .. }) =
            program.structs.get(at).and_then(|d| d.supertype.as_ref())
        else {
            return None;
        };
        if USER_NUMBER_SUPERTYPES.iter().any(|(n, _)| *n == &**name) {
            return Some(name);
        }
        at = &**name;
    }
    None
}

/// The names of the structs and abstract types declared below any of the abstract types
/// `roots`, at any depth (one pass over the program's types per level of depth).
fn subtypes_of(roots: &[&str], program: &Program) -> BTreeSet<Name> {
    let mut below = BTreeSet::new();
    let mut grew = true;
    while grew {
        grew = false;
        for def in program.structs.values() {
            let parent = match &def.supertype {
                Some(TypeExpr::Named { name: p, .. }) => p,
                _ => continue,
            };
            if (roots.contains(&&**parent) || below.contains(parent))
                && below.insert(def.name.clone())
            {
                grew = true;
            }
        }
    }
    below
}

/// `p` with each variable that has a bound in `bounds` bounded by it.
pub(crate) fn with_bounds(p: Pat, bounds: &[(Name, Pat)]) -> Pat {
    let each = |ps: Vec<Pat>| ps.into_iter().map(|p| with_bounds(p, bounds)).collect();
    let boxed = |p: Option<Box<Pat>>| p.map(|p| Box::new(with_bounds(*p, bounds)));
    match p {
        Pat::Var(v) => match bounds.iter().find(|(w, _)| *w == v) {
            Some((_, bound)) => Pat::Bounded(v, Box::new(bound.clone())),
            None => Pat::Var(v),
        },
        Pat::Array {
            abstract_,
            elem,
            ndims,
            ndims_var,
        } => Pat::Array {
            abstract_,
            elem: boxed(elem),
            ndims,
            ndims_var,
        },
        Pat::Tuple(ps) => Pat::Tuple(ps.map(each)),
        Pat::NamedTuple { names, types } => Pat::NamedTuple {
            names,
            types: types.map(each),
        },
        Pat::Struct { name, params } => Pat::Struct {
            name,
            params: params.map(each),
        },
        Pat::Ref(p) => Pat::Ref(boxed(p)),
        Pat::Adjoint(p) => Pat::Adjoint(boxed(p)),
        Pat::TypeValue(p) => Pat::TypeValue(Box::new(with_bounds(*p, bounds))),
        Pat::Union(ps) => Pat::Union(each(ps)),
        Pat::Abstract {
            name,
            below,
            params: Some(a),
        } => Pat::Abstract {
            name,
            below,
            params: Some(Arc::new(AbstractParams {
                pats: each(a.pats.clone()),
                lifts: a.lifts.clone(),
            })),
        },
        p => p,
    }
}

/// Does the concrete type `t` match `p`? Binds type variables in `b` (consistently).
pub(crate) fn matches(p: &Pat, t: &Type, b: &mut Bindings) -> bool {
    match (p, t) {
        (Pat::Any, _) => true,
        // A number that may be absent (`Union{Missing, Float64}`, a `Vector{<:Union{Missing,
        // Real}}`'s element): each of its members is one of the pattern's.
        (Pat::Union(_), Type::Union(u)) if crate::absent::number_member(t).is_some() => {
            u.members.iter().all(|m| matches(p, m, &mut b.clone()))
        }
        // The first member that matches binds the variables.
        (Pat::Union(ps), _) => ps.iter().any(|p| {
            let mut tried = b.clone();
            let ok = matches(p, t, &mut tried);
            if ok {
                *b = tried;
            }
            ok
        }),
        (Pat::Var(v), _) => bind(v, t, b),
        (Pat::Bounded(v, bound), _) => bind(v, t, b) && matches(bound, t, b),
        (Pat::Num(c), _) => in_class(*c, t),
        (Pat::Leaf(l), _) => l == t,
        (Pat::AbstractString, _) => t.is_string(),
        (
            Pat::Array {
                abstract_,
                elem,
                ndims,
                ndims_var,
            },
            Type::Array(e, n),
        ) => {
            let _ = abstract_;
            ndims.is_none_or(|k| k == *n)
                && ndims_var
                    .as_ref()
                    .is_none_or(|v| bind(v, &dims_type(*n), b))
                && elem.as_ref().is_none_or(|p| matches_exact(p, e, b))
        }
        // A row vector `x'` is a 1×n AbstractMatrix.
        (
            Pat::Array {
                abstract_: true,
                elem,
                ndims,
                ndims_var,
            },
            Type::Adjoint(e),
        ) => {
            ndims.is_none_or(|k| k == 2)
                && ndims_var.as_ref().is_none_or(|v| bind(v, &dims_type(2), b))
                && elem.as_ref().is_none_or(|p| matches_exact(p, e, b))
        }
        // A view (`SubArray`) is an AbstractArray of its parent's elements and its indices'
        // dimensions, as Julia's.
        (
            Pat::Array {
                abstract_: true,
                elem,
                ndims,
                ndims_var,
            },
            Type::Struct(s),
        ) => view_array(s).is_some_and(|(e, n)| {
            ndims.is_none_or(|k| k == n)
                && ndims_var.as_ref().is_none_or(|v| bind(v, &dims_type(n), b))
                && elem.as_ref().is_none_or(|p| matches_exact(p, &e, b))
        }),
        (Pat::Tuple(None), Type::Tuple(_)) => true,
        (Pat::Tuple(Some(ps)), Type::Tuple(ts)) => {
            ps.len() == ts.len() && ps.iter().zip(ts.iter()).all(|(p, t)| matches(p, t, b))
        }
        (Pat::NamedTuple { names, types }, Type::NamedTuple(fs)) => {
            names.as_ref().is_none_or(|ns| {
                ns.len() == fs.len() && ns.iter().zip(fs.iter()).all(|(n, (f, _))| n == f)
            }) && types.as_ref().is_none_or(|ps| {
                ps.len() == fs.len() && ps.iter().zip(fs.iter()).all(|(p, (_, t))| matches(p, t, b))
            })
        }
        (Pat::Symbol, Type::Symbol(_)) => true,
        (Pat::Function, Type::Function(_) | Type::Pullback(_)) => true,
        (Pat::Function, Type::Struct(s)) => s.kind == zy_ir::StructKind::Closure,
        (Pat::Typeof(n), Type::Function(m)) => n == m,
        (Pat::TypeValue(p), Type::Function(m)) => {
            named_leaf(m).is_some_and(|t| matches_exact(p, &t, b))
        }
        (Pat::Struct { name, params }, Type::Struct(s)) => {
            *name == s.name
                && params.as_ref().is_none_or(|ps| {
                    ps.len() == s.params.len()
                        && ps
                            .iter()
                            .zip(&s.params)
                            .all(|(p, t)| matches_exact(p, t, b))
                })
        }
        (Pat::Abstract { below, params, .. }, Type::Struct(s)) => {
            below.contains(&s.name) && params.as_ref().is_none_or(|a| a.holds(s, b))
        }
        (
            Pat::Abstract {
                name,
                below,
                params,
            },
            Type::Union(u),
        ) => {
            // A value of the bare `Shape` (its union named so) is not a `Shape{Float64}`.
            let base = base_name(&u.name);
            (**name == *base || below.contains(base))
                && params.as_ref().is_none_or(|_| {
                    u.name.contains('{') && u.members.iter().all(|m| matches(p, m, b))
                })
        }
        (Pat::Ref(p), Type::Ref(t)) => p.as_ref().is_none_or(|p| matches_exact(p, t, b)),
        (Pat::Adjoint(p), Type::Adjoint(t)) => p.as_ref().is_none_or(|p| matches_exact(p, t, b)),
        _ => false,
    }
}

/// [`matches`] for an argument of a user's method, `isa` and `typeof`: also a shared reshape
/// (a view marked `Base._Reshaped`, see [`reshaped_array`]) matches an `Array` annotation, as
/// Julia's `reshape` of an Array is an Array, and a range, a `Diagonal`, `eachcol`'s slices or
/// an array struct of the program ([`user_array`]) an abstract one. The library's `Array`
/// methods are written for zy's arrays, so its own dispatch uses [`matches`].
pub(crate) fn matches_as_julia(p: &Pat, t: &Type, b: &mut Bindings, program: &Program) -> bool {
    let mut tried = b.clone();
    if matches(p, t, &mut tried) {
        *b = tried;
        return true;
    }
    if let Some(a) = user_array(t, program) {
        return matches_user_array(p, &a, b);
    }
    if let Some(a) = reshaped_array(t) {
        return matches(p, &a, b);
    }
    if lazy_transpose_matches(p, t, b) {
        return true;
    }
    if struct_value_matches(p, t, b, program) {
        return true;
    }
    // `::Type{T} where T` of a program's own struct type (`BH{Float64, MinT}()` passes
    // `MinT` to the constructor `BH{T, H}() where {T, H}`), or of any concrete type written
    // with parameters (`BH{Tuple{Int, Int}, MinT}()`), binding `T` to it.
    // So does `::Type{T} where T<:Vector` of such a type (`P{Vector{Int}}(a)` calling
    // `P{T}(a) where T<:Vector`), when it is below the bound.
    if let (Pat::TypeValue(inner), Type::Function(m)) = (p, t) {
        if let Pat::Var(_) | Pat::Bounded(..) = &**inner {
            // `Any` (`B{Any}(n)`), Julia's abstract type, is its open union of what such
            // containers hold where nothing says what.
            let named = struct_type_of(m, program)
                .or_else(|| crate::type_values::concrete_of(m, program))
                .or_else(|| crate::open::open_union(m, &[]));
            if let Some(s) = named {
                return matches_exact(inner, &s, b);
            }
        }
    }
    // A range or a `Diagonal` is an AbstractVector (AbstractMatrix) of its elements.
    match (p, abstract_array(t)) {
        (
            Pat::Array {
                abstract_: true, ..
            },
            Some(a),
        ) => matches(p, &a, b),
        _ => false,
    }
}

/// Does the name `m` of a value of type `Function` name a type (as opposed to a function)?
fn is_type_value(m: &str, program: &Program) -> bool {
    crate::type_values::is_type_text(m)
        || crate::open::is_open(m)
        || m == "AbstractString"
        || program.structs.contains_key(m)
        || crate::type_values::concrete_of(m, program).is_some()
}

/// Does the value of a struct type with parameters (`Dual{Float64}`) match `Type{Dual{T}}`,
/// binding `T` to each concrete parameter?
pub(crate) fn struct_value_matches(p: &Pat, t: &Type, b: &mut Bindings, program: &Program) -> bool {
    if let Pat::Union(ps) = p {
        return ps.iter().any(|p| struct_value_matches(p, t, b, program));
    }
    let (Pat::TypeValue(inner), Type::Function(m)) = (p, t) else {
        return false;
    };
    // `::Type{<:Shape}`, `::Type{T} where T<:Shape` and `T::Type`: a struct type below the
    // program's abstract type (binding the variable to it), or any struct type; `Type{<:V}`
    // of a struct `V` (`Base.IndexStyle(::Type{<:V})`) is `V` and its instances.
    let below_abstract = |p: &Pat| match p {
        Pat::Bounded(_, bound) => matches!(**bound, Pat::Abstract { .. } | Pat::Struct { .. }),
        Pat::Var(v) => &**v == SUBTYPE_VAR,
        _ => false,
    };
    // The library's bare `T::Type` (`collect(T::Type, g)`) takes any type as a value: one with
    // parameters, a union, `Any`, a number type.
    if matches!(&**inner, Pat::Var(v) if &**v == SUBTYPE_VAR) && is_type_value(m, program) {
        return true;
    }
    if let Pat::Var(_) | Pat::Bounded(..) = &**inner {
        return below_abstract(inner)
            && struct_type_of(m, program).is_some_and(|s| matches_exact(inner, &s, b));
    }
    let Pat::Struct {
        name,
        params: Some(ps),
    } = &**inner
    else {
        return false;
    };
    if !crate::type_values::is_type_text(m) {
        return false;
    }
    let Ok(Pat::Struct {
        name: n,
        params: Some(qs),
    }) = crate::type_values::pattern_of(m, program)
    else {
        return false;
    };
    let mut tried = b.clone();
    let ok = *name == n
        && ps.len() == qs.len()
        && ps.iter().zip(&qs).all(|(p, q)| {
            concrete(q, &Bindings::new()).is_some_and(|t| matches_exact(p, &t, &mut tried))
        });
    if ok {
        *b = tried;
    }
    ok
}

/// The struct type of the program that the type value `name` names (`Circle{Float64}`, a
/// struct without parameters), its fields left out: what matching it against an annotation
/// reads. `None` for any other name.
fn struct_type_of(name: &str, program: &Program) -> Option<Type> {
    let Ok(Pat::Struct { name, params }) = crate::type_values::pattern_of_name(name, program)
    else {
        return None;
    };
    let def = program.structs.get(&name)?;
    if def.is_abstract || def.kind != zy_ir::StructKind::User {
        return None;
    }
    let params = match params {
        Some(ps) if ps.len() == def.params.len() => ps
            .iter()
            .map(|p| concrete(p, &Bindings::new()))
            .collect::<Option<Vec<_>>>()?,
        None if def.params.is_empty() => Vec::new(),
        _ => return None,
    };
    Some(Type::Struct(Arc::new(zy_ir::StructType {
        name,
        params,
        fields: Vec::new(),
        mutable: def.mutable,
        kind: zy_ir::StructKind::User,
    })))
}

/// Does `A'` or `transpose(A)` of a matrix (the prelude's `AdjointMatrix`, `TransposeMatrix`)
/// match `Adjoint` or `Transpose`, the names Julia gives them (with the vector's row and
/// `transpose(x)` in one type each)?
fn lazy_transpose_matches(p: &Pat, t: &Type, b: &mut Bindings) -> bool {
    let Type::Struct(s) = t else {
        return false;
    };
    let [parent] = s.params.as_slice() else {
        return false;
    };
    let Some(e) = transposed_elem(parent) else {
        return false;
    };
    match (p, &*s.name) {
        (Pat::Adjoint(elem), "Base.AdjointMatrix") => {
            elem.as_ref().is_none_or(|p| matches_exact(p, &e, b))
        }
        (Pat::Struct { name, params }, "Base.TransposeMatrix") if &**name == "Base.Transpose" => {
            params.as_ref().is_none_or(|ps| match ps.as_slice() {
                [p] => matches_exact(p, parent, b),
                _ => false,
            })
        }
        _ => false,
    }
}

/// The array type a library struct that Julia makes an `AbstractArray` stands for in an
/// abstract annotation (`AbstractVector{Int}` of `1:3`, `AbstractMatrix` of a `Diagonal`),
/// if `t` is one.
fn abstract_array(t: &Type) -> Option<Type> {
    let Type::Struct(s) = t else {
        return None;
    };
    let (elem, n) = match (&*s.name, s.params.as_slice()) {
        (name, [e, ..]) if is_range_struct(name) => (e.clone(), 1),
        ("LinearAlgebra.Diagonal", [Type::Array(e, 1)]) => ((**e).clone(), 2),
        (
            "LinearAlgebra.Symmetric"
            | "LinearAlgebra.Hermitian"
            | "LinearAlgebra.UpperTriangular"
            | "LinearAlgebra.LowerTriangular"
            | "LinearAlgebra.UnitUpperTriangular"
            | "LinearAlgebra.UnitLowerTriangular",
            [Type::Array(e, 2)],
        ) => ((**e).clone(), 2),
        ("Base.Transpose", [Type::Array(e, 1)]) => ((**e).clone(), 2),
        ("Base.AdjointMatrix" | "Base.TransposeMatrix", [p]) => (transposed_elem(p)?, 2),
        // `eachrow`/`eachcol` of a matrix (or of a matrix view): views of one dimension.
        ("Base.RowSlices" | "Base.ColumnSlices", [m]) => (slice_view(m, 1)?, 1),
        // `eachslice` of an array of `d` dimensions: views of `d - 1`.
        ("Base.Slices", [p]) => (slice_view(p, slice_parent_dims(p)?.checked_sub(1)?)?, 1),
        _ => return None,
    };
    Some(Type::Array(Arc::new(elem), n))
}

/// The element type of the parent of a lazy transpose (`AdjointMatrix`, `TransposeMatrix`): a
/// matrix, or a view of a matrix or a vector.
fn transposed_elem(parent: &Type) -> Option<Type> {
    match parent {
        Type::Array(e, 2) => Some((**e).clone()),
        Type::Struct(s) => view_array(s).filter(|&(_, n)| n <= 2).map(|(e, _)| e),
        _ => None,
    }
}

/// The type of a slice of `parent` with `n` dimensions, as the prelude's `view` gives it: a
/// `SubArray` of the underlying array (a view's own parent) whose indices are a
/// `StepRange{Int64, Int64}` for a row or column of a matrix, else an array of `n`
/// dimensions (Julia 1.9's `Slices` are an `AbstractVector` of these views).
fn slice_view(parent: &Type, n: u8) -> Option<Type> {
    let (array, indices) = match parent {
        Type::Array(_, 2) if n == 1 => (parent.clone(), step_range()),
        Type::Array(..) => (parent.clone(), Type::Array(Arc::new(Type::Int64), n)),
        Type::Struct(s) if view_array(s).is_some() => (
            s.params.first()?.clone(),
            Type::Array(Arc::new(Type::Int64), n),
        ),
        _ => return None,
    };
    if n == 0 {
        return None;
    }
    Some(Type::Struct(Arc::new(zy_ir::StructType {
        name: "Base.SubArray".into(),
        params: vec![array.clone(), indices.clone(), Type::Nothing],
        fields: vec![
            ("parent".into(), array),
            ("indices".into(), indices),
            ("reshaped".into(), Type::Nothing),
        ],
        mutable: false,
        kind: zy_ir::StructKind::User,
    })))
}

/// The prelude's `Base.StepRange{Int64, Int64}`.
fn step_range() -> Type {
    Type::Struct(Arc::new(zy_ir::StructType {
        name: "Base.StepRange".into(),
        params: vec![Type::Int64, Type::Int64],
        fields: vec![
            ("start".into(), Type::Int64),
            ("step".into(), Type::Int64),
            ("stop".into(), Type::Int64),
        ],
        mutable: false,
        kind: zy_ir::StructKind::User,
    }))
}

/// The number of dimensions of an array or view that `eachslice` and `mapslices` slice.
pub(crate) fn slice_parent_dims(parent: &Type) -> Option<u8> {
    match parent {
        Type::Array(_, n) => Some(*n),
        Type::Struct(s) => view_array(s).map(|(_, n)| n),
        _ => None,
    }
}

/// The Array type Julia gives a shared reshape (`reshape(x, 2, 2)` of a variable: the
/// prelude's `SubArray` marked `_Reshaped()`) or a 0-dimensional array (the prelude's
/// `ZeroDimArray{T}`: `Array{T, 0}`), if `t` is one.
pub(crate) fn reshaped_array(t: &Type) -> Option<Type> {
    let Type::Struct(s) = t else {
        return None;
    };
    // Julia's 0-dimensional array, the prelude's struct holding its element.
    if let ("Base.ZeroDimArray", [e]) = (&*s.name, s.params.as_slice()) {
        return Some(Type::Array(Arc::new(e.clone()), 0));
    }
    let marked = matches!(s.params.get(2), Some(Type::Struct(r)) if &*r.name == "Base._Reshaped");
    let (e, n) = view_array(s).filter(|_| marked)?;
    Some(Type::Array(Arc::new(e), n))
}

/// The element type and number of dimensions of a view (the prelude's `Base.SubArray{P, I}`:
/// its parent's elements, its indices' dimensions), if `s` is one.
fn view_array(s: &zy_ir::StructType) -> Option<(Type, u8)> {
    if &*s.name != "Base.SubArray" {
        return None;
    }
    let (Type::Array(e, _), indices) = (s.params.first()?, s.params.get(1)?) else {
        return None;
    };
    let n = match indices {
        Type::Array(_, n) => *n,
        _ => 1,
    };
    Some(((**e).clone(), n))
}

/// Invariant matching of a type parameter: `Vector{Real}` does not match `Vector{Float64}`.
fn matches_exact(p: &Pat, t: &Type, b: &mut Bindings) -> bool {
    match p {
        Pat::Var(v) => bind(v, t, b),
        // `Vector{<:AbstractString}` holds `AbstractString[...]`'s elements too.
        Pat::Bounded(v, bound) => {
            bind(v, t, b)
                && (matches(bound, t, b)
                    || matches!(**bound, Pat::AbstractString) && matches_exact(bound, t, b))
        }
        // `Vector{Shape}` holds exactly the values of the abstract type `Shape`, and
        // `Vector{Shape{Float64}}` those of `Shape{Float64}`.
        Pat::Abstract {
            name, params: None, ..
        } => matches!(t, Type::Union(u) if u.name == *name),
        Pat::Abstract { name, .. } => matches!(t, Type::Union(u)
            if base_name(&u.name) == &**name && u.name.contains('{') && matches(p, t, b)),
        // `Vector{AbstractString}` holds exactly `AbstractString[...]`'s elements.
        Pat::AbstractString => matches!(t, Type::Union(u) if &*u.name == "AbstractString"),
        // `Vector{Union{Missing, Float64}}` holds exactly the union of those types.
        Pat::Union(ps) if ps.iter().all(is_exact) => {
            matches!(t, Type::Union(u) if u.members.len() == ps.len()
                && ps.iter().all(|p| u.members.iter().any(|m| matches(p, m, &mut b.clone()))))
        }
        _ => is_exact(p) && matches(p, t, b),
    }
}

/// Does `p` denote exactly one type (given its variables)?
fn is_exact(p: &Pat) -> bool {
    match p {
        Pat::Leaf(_) | Pat::Var(_) | Pat::Bounded(..) | Pat::Typeof(_) | Pat::TypeValue(_) => true,
        Pat::Array {
            abstract_: false,
            elem: Some(e),
            ndims: Some(_),
            ..
        } => is_exact(e),
        Pat::Tuple(Some(ps)) => ps.iter().all(is_exact),
        Pat::Ref(Some(p)) | Pat::Adjoint(Some(p)) => is_exact(p),
        Pat::Struct {
            params: Some(ps), ..
        } => ps.iter().all(is_exact),
        // The abstract type itself (`Vector{Shape}`, `Vector{Shape{Float64}}`'s elements).
        Pat::Abstract { params: None, .. } => true,
        Pat::Abstract {
            params: Some(a), ..
        } => a.pats.iter().all(is_exact),
        _ => false,
    }
}

/// What a number variable (`N` in `AbstractArray{T, N} where N`, `Vararg{T, N} where N`) is
/// bound to: an array type of `n` dimensions whose elements are `Union{}`, a type no value
/// has. [`dims_of`] reads it back.
pub(crate) fn dims_type(n: u8) -> Type {
    Type::Array(Arc::new(Type::Bottom), n)
}

/// The number of dimensions a dimension variable stands for, if `t` is such a binding.
pub(crate) fn dims_of(t: &Type) -> Option<u8> {
    match t {
        Type::Array(e, n) if **e == Type::Bottom => Some(*n),
        _ => None,
    }
}

/// The type a type value names (`Float64`, `Int`, `Bool`, `Nothing`, `Symbol`, `String`), the
/// types a `Type{T}` parameter binds `T` to.
fn named_leaf(name: &str) -> Option<Type> {
    match name {
        "Symbol" => Some(Type::any_symbol()),
        "String" => Some(Type::String),
        "Float64" => Some(Type::Float64),
        "Float32" => Some(Type::Float32),
        "Int" | "Int64" => Some(Type::Int64),
        "Bool" => Some(Type::Bool),
        "Nothing" => Some(Type::Nothing),
        n => IntKind::from_name(n).map(Type::Int),
    }
}

fn bind(v: &Name, t: &Type, b: &mut Bindings) -> bool {
    if &**v == SUBTYPE_VAR {
        return true;
    }
    match b.get(v) {
        Some(old) => old == t,
        None => {
            b.insert(v.clone(), t.clone());
            true
        }
    }
}

fn in_class(c: NumClass, t: &Type) -> bool {
    match c {
        NumClass::Real => t.is_number() || matches!(t, Type::Int(_) | Type::Float32),
        NumClass::AbstractFloat => matches!(t, Type::Float64 | Type::Float32),
        NumClass::Integer => matches!(t, Type::Int64 | Type::Bool | Type::Int(_)),
        NumClass::Signed => *t == Type::Int64 || matches!(t, Type::Int(k) if k.signed()),
        NumClass::Unsigned => matches!(t, Type::Int(k) if !k.signed()),
    }
}

/// Is every type matching `a` also matched by `b`? (Type variables count as `Any`.)
pub(crate) fn subtype(a: &Pat, b: &Pat) -> bool {
    match (a, b) {
        (Pat::Bounded(_, x), _) => subtype(x, b),
        (_, Pat::Bounded(_, y)) => subtype(a, y),
        (Pat::Union(xs), _) => xs.iter().all(|x| subtype(x, b)),
        (_, Pat::Union(ys)) => ys.iter().any(|y| subtype(a, y)),
        (_, Pat::Any | Pat::Var(_)) => true,
        (Pat::Any | Pat::Var(_), _) => false,
        (Pat::Num(x), Pat::Num(y)) => class_within(*x, *y),
        (Pat::Leaf(t), Pat::Num(c)) => in_class(*c, t),
        (Pat::Leaf(x), Pat::Leaf(y)) => x == y,
        (Pat::Leaf(Type::String | Type::SubString) | Pat::AbstractString, Pat::AbstractString) => {
            true
        }
        (
            Pat::Array {
                abstract_: aa,
                elem: ae,
                ndims: an,
                ndims_var: av,
            },
            Pat::Array {
                abstract_: ba,
                elem: be,
                ndims: bn,
                ndims_var: bv,
            },
        ) => {
            // A named number of dimensions may tie arguments together (`AbstractArray{S, N}`
            // and `AbstractArray{T, N}`): narrower than an unconstrained one.
            (*ba || !*aa)
                && (bn.is_none() || an == bn)
                && (bv.is_none() || an.is_some() || av.is_some())
                && match (ae, be) {
                    (_, None) => true,
                    (Some(x), Some(y)) => param_within(x, y),
                    (None, Some(y)) => matches!(**y, Pat::Var(_)),
                }
        }
        (Pat::Tuple(_), Pat::Tuple(None)) => true,
        (Pat::Tuple(Some(xs)), Pat::Tuple(Some(ys))) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| subtype(x, y))
        }
        (
            Pat::NamedTuple {
                names: xn,
                types: xt,
            },
            Pat::NamedTuple {
                names: yn,
                types: yt,
            },
        ) => {
            yn.as_ref().is_none_or(|y| xn.as_ref() == Some(y))
                && match (xt, yt) {
                    (_, None) => true,
                    (Some(xs), Some(ys)) => {
                        xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| subtype(x, y))
                    }
                    (None, Some(_)) => false,
                }
        }
        (Pat::Symbol, Pat::Symbol) | (Pat::Function, Pat::Function) => true,
        (Pat::Typeof(_), Pat::Function) => true,
        (Pat::Typeof(x), Pat::Typeof(y)) => x == y,
        (Pat::TypeValue(_), Pat::Function) => true,
        (Pat::TypeValue(x), Pat::TypeValue(y)) => param_within(x, y),
        // A bare `T::Type` takes every type as a value: `Type{Rational{Int}}` is below it.
        (Pat::Typeof(_), Pat::TypeValue(y)) if matches!(&**y, Pat::Var(v) if &**v == SUBTYPE_VAR) => {
            true
        }
        (Pat::Typeof(n), Pat::TypeValue(y)) => {
            named_leaf(n).is_some_and(|t| matches_exact(y, &t, &mut Bindings::new()))
        }
        (
            Pat::Struct {
                name: x,
                params: xp,
            },
            Pat::Struct {
                name: y,
                params: yp,
            },
        ) => {
            x == y
                && match (xp, yp) {
                    (_, None) => true,
                    // `S{T} where T` is `S`.
                    (None, Some(ys)) => ys.iter().all(|y| matches!(y, Pat::Var(_))),
                    (Some(xs), Some(ys)) => xs.iter().zip(ys).all(|(x, y)| param_within(x, y)),
                }
        }
        (
            Pat::Struct { name, params },
            Pat::Abstract {
                name: y,
                below,
                params: yp,
            },
        ) => {
            (name == y || below.contains(name))
                && yp
                    .as_ref()
                    .is_none_or(|a| a.within(name, params.as_deref()))
        }
        (
            Pat::Abstract {
                name, params: xp, ..
            },
            Pat::Abstract {
                name: y,
                below,
                params: yp,
            },
        ) => match (xp, yp) {
            (_, None) => name == y || below.contains(name),
            (Some(x), Some(a)) if name == y => {
                x.pats.iter().zip(&a.pats).all(|(x, y)| param_within(x, y))
            }
            (Some(x), Some(a)) => below.contains(name) && a.within(name, Some(&x.pats)),
            (None, Some(a)) => {
                (name == y || below.contains(name))
                    && a.pats.iter().all(|y| matches!(y, Pat::Var(_)))
            }
        },
        // A method for views is more specific than one for AbstractArrays.
        (
            Pat::Struct { name, .. },
            Pat::Array {
                abstract_: true, ..
            },
        ) => &**name == "Base.SubArray",
        (Pat::Ref(_), Pat::Ref(None)) => true,
        (Pat::Ref(Some(x)), Pat::Ref(Some(y))) => param_within(x, y),
        (Pat::Adjoint(_), Pat::Adjoint(None)) => true,
        (Pat::Adjoint(Some(x)), Pat::Adjoint(Some(y))) => param_within(x, y),
        // A row is a 1×n AbstractMatrix.
        (
            Pat::Adjoint(e),
            Pat::Array {
                abstract_: true,
                elem,
                ndims,
                ..
            },
        ) => {
            ndims.is_none_or(|n| n == 2)
                && match (e, elem) {
                    (_, None) => true,
                    (Some(x), Some(y)) => param_within(x, y),
                    (None, Some(y)) => matches!(**y, Pat::Var(_)),
                }
        }
        _ => false,
    }
}

/// Is every type the (invariant) type parameter `x` stands for also one that `y` stands for?
/// `Vector{Float64}` is within `Vector{T} where T<:Real`, but not within `Vector{Real}`.
fn param_within(x: &Pat, y: &Pat) -> bool {
    match (x, y) {
        (_, Pat::Var(_)) => true,
        (Pat::Bounded(_, xb), Pat::Bounded(_, yb)) => subtype(xb, yb),
        (Pat::Var(_), Pat::Bounded(..)) => false,
        (_, Pat::Bounded(_, yb)) => is_exact(x) && subtype(x, yb),
        // Invariant, parameter by parameter, where `y`'s variables stand for any type:
        // `P{F, Vector{T}}` is within `P{F, I}` (the first is the more specific method).
        (
            Pat::Struct {
                name: xn,
                params: Some(xs),
            },
            Pat::Struct {
                name: yn,
                params: Some(ys),
            },
        ) if xn == yn && xs.len() == ys.len() => xs.iter().zip(ys).all(|(x, y)| param_within(x, y)),
        // `Vector{<:Shape}` also holds the `Vector{Circle}`s: not within `Vector{Shape}`.
        (Pat::Bounded(..), _) if is_exact(y) => false,
        // Invariant: the same type, however written (`Union{Int, Float64}` is
        // `Union{Float64, Int}`).
        _ => x == y || (subtype(x, y) && subtype(y, x)),
    }
}

fn class_within(x: NumClass, y: NumClass) -> bool {
    use NumClass::*;
    matches!(
        (x, y),
        (_, Real)
            | (AbstractFloat, AbstractFloat)
            | (Integer, Integer)
            | (Signed, Integer | Signed)
            | (Unsigned, Integer | Unsigned)
    )
}

/// The concrete type an annotation denotes under `b`, if it denotes exactly one
/// (`Float64`, `Vector{T}` with `T` bound); `None` for abstract annotations (`Real`).
pub(crate) fn concrete(p: &Pat, b: &Bindings) -> Option<Type> {
    match p {
        Pat::Leaf(t) => Some(t.clone()),
        Pat::Var(v) | Pat::Bounded(v, _) => b.get(v).cloned(),
        Pat::Typeof(n) => Some(Type::Function(n.clone())),
        Pat::TypeValue(p) => {
            let t = concrete(p, b)?;
            named_leaf(&t.to_string()).map(|_| Type::Function(t.to_string().into()))
        }
        Pat::Array {
            abstract_: false,
            elem: Some(e),
            ndims: Some(n),
            ..
        } => Some(Type::Array(Arc::new(concrete(e, b)?), *n)),
        Pat::Tuple(Some(ps)) => Some(Type::Tuple(
            ps.iter().map(|p| concrete(p, b)).collect::<Option<_>>()?,
        )),
        Pat::NamedTuple {
            names: Some(ns),
            types: Some(ps),
        } => Some(Type::NamedTuple(
            ns.iter()
                .zip(ps)
                .map(|(n, p)| Some((n.clone(), concrete(p, b)?)))
                .collect::<Option<_>>()?,
        )),
        Pat::Ref(Some(p)) => Some(Type::Ref(Arc::new(concrete(p, b)?))),
        Pat::Adjoint(Some(p)) => Some(Type::Adjoint(Arc::new(concrete(p, b)?))),
        _ => None,
    }
}

/// The names of the parameter `(:a, :b)` of `NamedTuple{(:a, :b), ...}`, as the syntax
/// writes it (one name `(:a,)`), if it is one.
pub(crate) fn named_tuple_names(names: &TypeExpr) -> Option<Vec<Name>> {
    let TypeExpr::Named { name, params } = names else {
        return None;
    };
    let inner = name
        .strip_prefix('(')
        .and_then(|n| n.strip_suffix(')'))
        .filter(|_| params.is_empty())?;
    inner
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(|n| n.strip_prefix(':').map(Name::from))
        .collect()
}

/// `NamedTuple`, `NamedTuple{names}` or `NamedTuple{names, Tuple{A, B}}`, the names as the
/// syntax writes them (`(:a, :b)`, `(:a,)`).
fn named_tuple(params: &[TypeExpr], vars: &[Name], program: &Program) -> Result<Pat, Fail> {
    let refused = || {
        Fail::unsupported(
            "a `NamedTuple{...}` type other than `NamedTuple{(:a, :b)}` or \
             `NamedTuple{(:a, :b), Tuple{A, B}}`",
        )
    };
    let (names, types) = match params {
        [] => {
            return Ok(Pat::NamedTuple {
                names: None,
                types: None,
            })
        }
        [names] => (names, None),
        [names, types] => (names, Some(types)),
        _ => return Err(refused()),
    };
    let names = named_tuple_names(names).ok_or_else(refused)?;
    let types = match types.map(|t| pattern(t, vars, program)).transpose()? {
        None => None,
        Some(Pat::Tuple(Some(ps))) if ps.len() == names.len() => Some(ps),
        Some(_) => return Err(refused()),
    };
    Ok(Pat::NamedTuple {
        names: Some(names),
        types,
    })
}

/// The `N` of `CartesianIndex{N}` written with a literal (1 to 4), or `None`.
fn cartesian_dims(params: &[TypeExpr]) -> Option<usize> {
    match params {
        [TypeExpr::Named { name, params }] if params.is_empty() => {
            name.parse().ok().filter(|n| (1..=4).contains(n))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pat(src: TypeExpr, vars: &[&str]) -> Pat {
        let vars: Vec<Name> = vars.iter().map(|v| Name::from(*v)).collect();
        match pattern(&src, &vars, &Program::default()) {
            Ok(p) => p,
            Err(e) => panic!("{e:?}"),
        }
    }

    fn named(name: &str, params: Vec<TypeExpr>) -> TypeExpr {
        TypeExpr::Named {
            name: name.into(),
            params,
        }
    }

    #[test]
    fn a_union_matches_its_members_and_is_less_specific_than_each() {
        let v = pat(named("Vector", vec![TypeExpr::named("Float64")]), &[]);
        let u = pat(named("VecOrMat", vec![TypeExpr::named("Float64")]), &[]);
        let mut b = Bindings::new();
        assert!(matches(
            &u,
            &Type::Array(Arc::new(Type::Float64), 2),
            &mut b
        ));
        assert!(!matches(
            &u,
            &Type::Array(Arc::new(Type::Float64), 3),
            &mut b
        ));
        assert!(!matches(&u, &Type::Float64, &mut b));
        assert!(subtype(&v, &u) && !subtype(&u, &v));
    }

    #[test]
    fn number_hierarchy_orders_specificity() {
        let f = pat(TypeExpr::named("Float64"), &[]);
        let af = pat(TypeExpr::named("AbstractFloat"), &[]);
        let real = pat(TypeExpr::named("Real"), &[]);
        let int = pat(TypeExpr::named("Int"), &[]);
        let integer = pat(TypeExpr::named("Integer"), &[]);
        assert!(subtype(&f, &af) && subtype(&af, &real) && !subtype(&real, &af));
        assert!(subtype(&int, &integer) && !subtype(&int, &af) && !subtype(&integer, &int));
        assert!(matches(&integer, &Type::Bool, &mut Bindings::new()));
        assert!(!matches(&af, &Type::Int64, &mut Bindings::new()));
    }

    #[test]
    fn array_parameters_are_invariant() {
        let vf = pat(named("Vector", vec![TypeExpr::named("Float64")]), &[]);
        let vreal = pat(named("Vector", vec![TypeExpr::named("Real")]), &[]);
        let av = pat(TypeExpr::named("AbstractVector"), &[]);
        let avf = pat(
            named("AbstractVector", vec![TypeExpr::named("Float64")]),
            &[],
        );
        let v = pat(TypeExpr::named("Vector"), &[]);
        let t = Type::vector_f64();
        assert!(matches(&vf, &t, &mut Bindings::new()));
        assert!(!matches(&vreal, &t, &mut Bindings::new()));
        assert!(subtype(&vf, &v) && subtype(&vf, &avf) && subtype(&avf, &av));
        // Neither `Vector` nor `AbstractVector{Float64}` is more specific than the other.
        assert!(!subtype(&v, &avf) && !subtype(&avf, &v));
        assert!(!matches(&av, &Type::matrix_f64(), &mut Bindings::new()));
    }

    #[test]
    fn a_dimension_variable_ties_arguments_and_is_more_specific() {
        let elem = |v: &str| {
            named(
                "AbstractArray",
                vec![TypeExpr::named(v), TypeExpr::named("N")],
            )
        };
        let with_n = pat(elem("T"), &["T", "N"]);
        let any = pat(TypeExpr::named("AbstractArray"), &[]);
        let mut b = Bindings::new();
        assert!(matches(&with_n, &Type::vector_f64(), &mut b));
        assert!(!matches(&with_n, &Type::matrix_f64(), &mut b));
        assert_eq!(b.get("N").and_then(dims_of), Some(1));
        assert!(subtype(&with_n, &any) && !subtype(&any, &with_n));
    }

    #[test]
    fn a_parametric_abstract_type_matches_by_the_parameters_its_structs_give() {
        // abstract type Shape{T} end; struct Circle{T} <: Shape{T}; struct Unit <: Shape{Float64}
        let def = |name: &str, params: &[&str], sup: Option<TypeExpr>, is_abstract: bool| {
            zy_ir::StructDef {
                name: name.into(),
                params: params.iter().map(|p| Name::from(*p)).collect(),
                param_bounds: Vec::new(),
                supertype: sup,
                is_abstract,
                inner_constructors: false,
                fields: Vec::new(),
                const_fields: Vec::new(),
                mutable: false,
                kind: zy_ir::StructKind::User,
                library: false,
                alias: None,
                span: zy_ir::Span::default(),
            }
        };
        let shape_of = |p: &str| named("Shape", vec![TypeExpr::named(p)]);
        let mut program = Program::default();
        for d in [
            def("Shape", &["T"], None, true),
            def("Circle", &["T"], Some(shape_of("T")), false),
            def("Unit", &[], Some(shape_of("Float64")), false),
        ] {
            program.structs.insert(d.name.clone(), d);
        }
        let instance = |name: &str, params: Vec<Type>| {
            Type::Struct(Arc::new(zy_ir::StructType {
                name: name.into(),
                params,
                fields: Vec::new(),
                mutable: false,
                kind: zy_ir::StructKind::User,
            }))
        };
        let pat = |e: TypeExpr, vars: &[&str]| {
            let vars: Vec<Name> = vars.iter().map(|v| Name::from(*v)).collect();
            pattern(&e, &vars, &program).unwrap_or_else(|e| panic!("{e:?}"))
        };
        let float = pat(shape_of("Float64"), &[]);
        let int = pat(shape_of("Int64"), &[]);
        let any = pat(shape_of("T"), &["T"]);
        let circle = |t: Type| instance("Circle", vec![t]);
        let mut b = Bindings::new();
        assert!(matches(&float, &circle(Type::Float64), &mut b));
        assert!(matches(&float, &instance("Unit", Vec::new()), &mut b));
        assert!(!matches(&int, &circle(Type::Float64), &mut b));
        assert!(!matches(&int, &instance("Unit", Vec::new()), &mut b));
        assert!(matches(&any, &circle(Type::Int64), &mut b));
        assert_eq!(b.get("T"), Some(&Type::Int64));
        // `Circle` is more specific than `Shape{T} where T`, `Shape{Float64}` than both of
        // `Shape{T}` and `Shape`, and `Unit` than `Shape{Float64}`.
        let circle_pat = pat(TypeExpr::named("Circle"), &[]);
        let bare = pat(TypeExpr::named("Shape"), &[]);
        let unit = pat(TypeExpr::named("Unit"), &[]);
        assert!(subtype(&circle_pat, &any) && !subtype(&any, &circle_pat));
        assert!(subtype(&float, &any) && !subtype(&any, &float));
        assert!(subtype(&float, &bare) && subtype(&unit, &float) && !subtype(&unit, &int));
        assert!(!subtype(&circle_pat, &float));
        assert!(pattern(
            &named("Shape", vec![TypeExpr::named("Float64"); 2]),
            &[],
            &program
        )
        .is_err());
    }

    #[test]
    fn where_variables_bind_consistently() {
        let vt = pat(named("Vector", vec![TypeExpr::named("T")]), &["T"]);
        let t = pat(TypeExpr::named("T"), &["T"]);
        let mut b = Bindings::new();
        assert!(matches(&vt, &Type::vector_f64(), &mut b));
        assert!(matches(&t, &Type::Float64, &mut b));
        assert!(!matches(&t, &Type::Int64, &mut b));
        assert_eq!(b.get("T"), Some(&Type::Float64));
    }
}
