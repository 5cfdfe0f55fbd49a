//! Type aliases (`const FVec = Vector{Float64}`, `const MinHeap{T} = BinaryHeap{T, MinHeapType}`):
//! a name of the program's `aliases` stands for the type it names, its parameters put in place,
//! wherever inference reads a type (annotations, types written as values, constructor calls).
//! Nothing keeps the alias's name: a value's type prints as Julia prints it.

use std::collections::BTreeMap;

use zy_ir::{Const, Name, Program, StructDef, Type, TypeExpr};

use crate::calls::Cx;
use crate::error::Fail;
use crate::plan::PlanBuilder;
use crate::value::Val;

/// How deep aliases of aliases may go before the definitions are taken as circular.
const MAX_DEPTH: usize = 32;

/// `e` with every alias in it (at any depth, aliases of aliases too) replaced by the type it
/// names.
pub(crate) fn expanded(e: &TypeExpr, program: &Program) -> Result<TypeExpr, Fail> {
    expand(e, program, 0)
}

fn expand(e: &TypeExpr, program: &Program, depth: usize) -> Result<TypeExpr, Fail> {
    let TypeExpr::Named { name, params } = e else {
        return Ok(e.clone());
    };
    let params = params
        .iter()
        .map(|p| expand(p, program, depth))
        .collect::<Result<Vec<_>, _>>()?;
    match program.aliases.get(name) {
        None => Ok(TypeExpr::Named {
            name: name.clone(),
            params,
        }),
        Some(_) if depth >= MAX_DEPTH => Err(Fail::unsupported(format!(
            "type alias `{name}` defined in terms of itself"
        ))),
        Some(def) => expand(&applied(def, &params, program)?, program, depth + 1),
    }
}

/// The type that alias `def` names with `params` given for its parameters in order; one not
/// given is any type within its bound, as Julia's `MinHeap` alone is `BinaryHeap{T,
/// MinHeapType} where T`. More than it has, or one outside its bound, is Julia's error.
pub(crate) fn applied(
    def: &StructDef,
    params: &[TypeExpr],
    program: &Program,
) -> Result<TypeExpr, Fail> {
    let Some(target) = &def.alias else {
        return Err(Fail::unsupported(format!(
            "`{}` is not a type alias",
            def.name
        )));
    };
    // `M{Float64}` of `const M = Matrix`: the parameters are the named type's.
    if let TypeExpr::Named { name, params: none } = target {
        if def.params.is_empty() && none.is_empty() && !params.is_empty() {
            return Ok(TypeExpr::Named {
                name: name.clone(),
                params: params.to_vec(),
            });
        }
    }
    if params.len() > def.params.len() {
        return Err(Fail::method("ErrorException: too many parameters for type"));
    }
    for (p, given) in def.params.iter().zip(params) {
        check_bound(def, target, p, given, program)?;
    }
    let put: BTreeMap<Name, TypeExpr> = def
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let given = params.get(i).cloned();
            (p.clone(), given.unwrap_or_else(|| any_within(def, p)))
        })
        .collect();
    Ok(crate::pattern::substitute(target, &put))
}

/// Julia's `TypeError` where the concrete type `given` for the alias's parameter `p` is outside
/// its bound (`RealVec{String}` of `const RealVec{T<:Real} = AbstractVector{T}`), named by the
/// type the alias names as Julia names it (`AbstractArray`). A parameter given as a type
/// variable or an abstract type is not checked.
fn check_bound(
    def: &StructDef,
    target: &TypeExpr,
    p: &Name,
    given: &TypeExpr,
    program: &Program,
) -> Result<(), Fail> {
    let Some((_, bound)) = def.param_bounds.iter().find(|(q, _)| q == p) else {
        return Ok(());
    };
    let bindings = crate::pattern::Bindings::new();
    let concrete = crate::pattern::pattern(given, &[], program)
        .ok()
        .and_then(|g| crate::pattern::concrete(&g, &bindings));
    let Some(t) = concrete else {
        return Ok(());
    };
    let within = crate::pattern::pattern(bound, &[], program)?;
    if crate::pattern::matches_as_julia(&within, &t, &mut bindings.clone(), program) {
        return Ok(());
    }
    let inner = match target {
        TypeExpr::Named { name, .. } => match name.strip_prefix("Base.").unwrap_or(name) {
            "Vector" | "Matrix" => "Array",
            "AbstractVector" | "AbstractMatrix" => "AbstractArray",
            n => n,
        },
        TypeExpr::Typeof(_) => "Type",
    };
    Err(Fail::method(format!(
        "TypeError: in {inner}, in {p}, expected {p}<:{}, got Type{{{t}}}",
        text(bound)
    )))
}

/// `<:B` of parameter `p`'s bound `B` (`Any` without one): any type a parameter left free may
/// be.
fn any_within(def: &StructDef, p: &Name) -> TypeExpr {
    let bound = def
        .param_bounds
        .iter()
        .find(|(q, _)| q == p)
        .map_or_else(|| TypeExpr::named("Any"), |(_, b)| b.clone());
    TypeExpr::Named {
        name: "<:".into(),
        params: vec![bound],
    }
}

/// The type value that the alias `name` is: the name of the type it names (`FVec` is
/// `Vector{Float64}`, so `FVec === Vector{Float64}`), or the alias itself where it has
/// parameters, which a value of it applies (`MinHeap{Int}`) or a pattern expands.
pub(crate) fn value_name(name: &Name, program: &Program) -> Result<Name, Fail> {
    if program
        .aliases
        .get(name)
        .is_some_and(|d| !d.params.is_empty())
    {
        return Ok(name.clone());
    }
    match expanded(&TypeExpr::named(name), program)? {
        TypeExpr::Named { name, params } if params.is_empty() => Ok(name),
        t => crate::type_values::canonical(&text(&t).into(), program),
    }
}

/// A type value's name with the aliases in it expanded (`MinHeap{Int64}` is `Heap{Int64,
/// Ascending}`), so that two names of one type are equal; the name itself where it has none.
pub(crate) fn expanded_name(name: &Name, program: &Program) -> Result<Name, Fail> {
    if program.aliases.is_empty() {
        return Ok(name.clone());
    }
    let Some(written) = crate::type_values::type_expr_of(name) else {
        return Ok(name.clone());
    };
    let e = expanded(&written, program)?;
    Ok(if e == written {
        name.clone()
    } else {
        text(&e).into()
    })
}

/// The text of a type as a type value's name (`AbstractVector{<:Real}`), which
/// [`crate::type_values`] reads back.
fn text(e: &TypeExpr) -> String {
    match e {
        TypeExpr::Named { name, params } if &**name == "<:" && params.len() == 1 => {
            format!("<:{}", text(&params[0]))
        }
        TypeExpr::Named { name, params } if params.is_empty() => name.to_string(),
        TypeExpr::Named { name, params } => {
            if let Some(printed) = (&**name == "NamedTuple")
                .then(|| named_tuple_text(params))
                .flatten()
            {
                return printed;
            }
            let params: Vec<String> = params.iter().map(text).collect();
            format!("{name}{{{}}}", params.join(", "))
        }
        TypeExpr::Typeof(f) => format!("typeof({f})"),
    }
}

/// The parameters of `NamedTuple{(:a, :b), Tuple{A, B}}` as Julia prints the type,
/// `@NamedTuple{a::A, b::B}`, which [`crate::type_values`] reads back; `None` for others.
fn named_tuple_text(params: &[TypeExpr]) -> Option<String> {
    let [names, TypeExpr::Named { name, params: ts }] = params else {
        return None;
    };
    let names = crate::pattern::named_tuple_names(names)?;
    if &**name != "Tuple" || names.len() != ts.len() {
        return None;
    }
    let fields: Vec<String> = names
        .iter()
        .zip(ts)
        .map(|(n, t)| format!("{n}::{}", text(t)))
        .collect();
    Some(format!("@NamedTuple{{{}}}", fields.join(", ")))
}

impl Cx<'_> {
    /// `FVec(args...)` or `MinHeap{Int}(args...)` (its parameters `given` as type values): a
    /// call of the type the alias `name` names.
    pub(crate) fn alias_call(
        &mut self,
        b: &mut PlanBuilder,
        name: &Name,
        given: &[Type],
        args: &[Val],
    ) -> Result<Val, Fail> {
        let Some(def) = self.program.aliases.get(name) else {
            return Err(Fail::undefined_in(name, self.program));
        };
        let params = given
            .iter()
            .map(|t| match t {
                Type::Function(n) => crate::type_values::type_expr_of(n),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| {
                Fail::unsupported(format!(
                    "a parameter of the type alias `{name}` other than a type"
                ))
            })?;
        let target = expanded(&applied(def, &params, self.program)?, self.program)?;
        self.free_struct_call(def, &params, &target, args)?;
        self.call_type(b, &target, args)
    }

    /// Julia's `MethodError` of a call of an alias of a program's struct with parameters left
    /// free (`MinHeap()` of `const MinHeap{T} = Heap{T, Ascending}`): no constructor takes
    /// the struct with some of its parameters given and others not. `target` is the struct
    /// the alias names with the `params` given.
    fn free_struct_call(
        &self,
        def: &StructDef,
        params: &[TypeExpr],
        target: &TypeExpr,
        args: &[Val],
    ) -> Result<(), Fail> {
        let (TypeExpr::Named { name, .. }, Some(written)) = (target, &def.alias) else {
            return Ok(());
        };
        let user = self.program.structs.get(name);
        if params.len() >= def.params.len()
            || !user.is_some_and(|s| s.kind == zy_ir::StructKind::User)
        {
            return Ok(());
        }
        let put: BTreeMap<Name, TypeExpr> = def
            .params
            .iter()
            .cloned()
            .zip(params.iter().cloned())
            .collect();
        let free: Vec<String> = def.params[params.len()..]
            .iter()
            .map(|p| match def.param_bounds.iter().find(|(q, _)| q == p) {
                Some((_, bound)) => format!("{p}<:{}", text(bound)),
                None => p.to_string(),
            })
            .collect();
        let vars = match free.as_slice() {
            [one] => one.clone(),
            all => format!("{{{}}}", all.join(", ")),
        };
        let callee = format!(
            "({} where {vars})",
            text(&crate::pattern::substitute(written, &put))
        );
        let types: Vec<zy_ir::Type> = args.iter().map(|a| a.ty.clone()).collect();
        Err(crate::error::no_method(&callee, &types))
    }

    /// A call of the type `t` as the syntax lowers it written out (`BinaryHeap{Int64,
    /// MinHeapType}()`, `Vector{Float64}(undef, n)`, `Tuple{Float64, Float64}(v)`): through an
    /// alias, or of a type held as a value. A call needing a prelude function the program does
    /// not reach (only an alias of the type reaches those) is refused by name.
    pub(crate) fn call_type(
        &mut self,
        b: &mut PlanBuilder,
        t: &TypeExpr,
        args: &[Val],
    ) -> Result<Val, Fail> {
        let TypeExpr::Named { name, params } = t else {
            return Err(Fail::method(format!(
                "MethodError: objects of type {t} are not callable"
            )));
        };
        if params.is_empty() {
            return self.call_named(b, name, args);
        }
        if &**name == "NamedTuple" {
            return self.call_named_tuple_type(b, t, params, args);
        }
        let held = || {
            Fail::unsupported(format!(
                "calling the type `{t}` held as a value; call `{t}(...)` by its name instead"
            ))
        };
        let mut values = Vec::new();
        for p in params {
            let named = match p {
                TypeExpr::Named { name: bound, .. } if &**bound == "<:" => {
                    return Err(Fail::unsupported(format!(
                        "calling the type `{}` without all its parameters; give them \
                         (`{}{{Float64}}(...)`) instead",
                        text(t),
                        name
                    )))
                }
                TypeExpr::Named { name, params } if params.is_empty() => name.clone(),
                _ => crate::type_values::canonical(&text(p).into(), self.program)?,
            };
            values.push(Val::lit(Const::Func(named)));
        }
        let undef = |v: &Val| matches!(&v.ty, Type::Function(n) if &**n == "undef");
        // The prelude's `Dict` and `Set` are `Base.Dict` and `Base.Set` once resolved.
        let helper = match (name.strip_prefix("Base.").unwrap_or(name), args) {
            ("Vector", []) => return self.call_named(b, &"Base.getindex".into(), &values),
            ("Vector", [u, ..]) if undef(u) => UNDEF_VECTOR,
            ("Matrix", [u, ..]) if undef(u) => UNDEF_MATRIX,
            ("Array", [u, ..]) if undef(u) && params.len() == 1 => UNDEF_ARRAY,
            ("Array", [u, ..]) if undef(u) => UNDEF_ARRAY_RANK,
            ("Vector", _) => VECTOR_OF,
            ("Matrix", _) => MATRIX_OF,
            ("Array", [_]) if params.len() == 1 => ARRAY_OF,
            ("Tuple", [_]) => TYPED_TUPLE,
            ("Dict", _) if params.len() == 2 => TYPED_DICT,
            ("Set", _) if params.len() == 1 => TYPED_SET,
            _ if self.program.structs.contains_key(name) => {
                let given: Vec<Type> = values.iter().map(|v| v.ty.clone()).collect();
                return self.typed_call(b, name, &given, &[], args);
            }
            _ => return Err(held()),
        };
        if !self.program.functions.contains_key(helper) {
            return Err(held());
        }
        let mut all = match helper {
            TYPED_TUPLE | TYPED_DICT => vec![self.call_named(b, &"tuple".into(), &values)?],
            _ => values,
        };
        let skip = usize::from(helper.contains("undef"));
        all.extend(args.iter().skip(skip).cloned());
        self.call_named(b, &helper.into(), &all)
    }

    /// `NamedTuple{(:a, :b)}(t)` and `NamedTuple{(:a, :b), Tuple{A, B}}(t)` through an alias:
    /// the prelude's `_named_tuple_of(names, t)` and `_typed_named_tuple(names, (A, B), t)`, as
    /// the syntax lowers the call written out.
    fn call_named_tuple_type(
        &mut self,
        b: &mut PlanBuilder,
        t: &TypeExpr,
        params: &[TypeExpr],
        args: &[Val],
    ) -> Result<Val, Fail> {
        let refused = || {
            Fail::unsupported(format!(
                "calling the type `{}`; zy calls `NamedTuple{{(:a, :b)}}(t)` and \
                 `NamedTuple{{(:a, :b), Tuple{{A, B}}}}(t)` of a tuple `t`",
                text(t)
            ))
        };
        let names = params
            .first()
            .and_then(crate::pattern::named_tuple_names)
            .ok_or_else(refused)?;
        let symbols: Vec<Val> = names
            .into_iter()
            .map(|n| Val::lit(Const::Symbol(n)))
            .collect();
        let mut all = vec![self.call_named(b, &"tuple".into(), &symbols)?];
        let helper = match params.get(1) {
            None => NAMED_TUPLE_OF,
            Some(TypeExpr::Named { name, params: ts }) if &**name == "Tuple" => {
                let mut types = Vec::new();
                for p in ts {
                    let named = match p {
                        TypeExpr::Named { name, params } if params.is_empty() => name.clone(),
                        _ => crate::type_values::canonical(&text(p).into(), self.program)?,
                    };
                    types.push(Val::lit(Const::Func(named)));
                }
                all.push(self.call_named(b, &"tuple".into(), &types)?);
                TYPED_NAMED_TUPLE
            }
            Some(_) => return Err(refused()),
        };
        if !self.program.functions.contains_key(helper) {
            return Err(refused());
        }
        all.extend(args.iter().cloned());
        self.call_named(b, &helper.into(), &all)
    }
}

/// The prelude's functions that a call of a named tuple type lowers to (`NamedTuple{names}(t)`
/// to `_named_tuple_of(names, t)`, `NamedTuple{names, Tuple{A, B}}(t)` to
/// `_typed_named_tuple(names, (A, B), t)`): an alias of one reaches them (`zy_hir`'s `reach`).
const NAMED_TUPLE_OF: &str = "Base._named_tuple_of";
const TYPED_NAMED_TUPLE: &str = "Base._typed_named_tuple";

/// The prelude's functions that the syntax lowers a call of an array type to (`Vector{T}(undef,
/// n)` to `_undef_vector(T, n)`, `Vector{T}(x)` to `_vector_of(T, x)`), a tuple type's, a
/// dictionary's and a set's (`Dict{K, V}(ps...)` to `_typed_dict((K, V), ps...)`): an alias
/// of one of these types reaches them (`zy_hir`'s `reach`).
const UNDEF_VECTOR: &str = "Base._undef_vector";
const UNDEF_MATRIX: &str = "Base._undef_matrix";
const UNDEF_ARRAY: &str = "Base._undef_array";
const UNDEF_ARRAY_RANK: &str = "Base._undef_array_rank";
const VECTOR_OF: &str = "Base._vector_of";
const MATRIX_OF: &str = "Base._matrix_of";
const ARRAY_OF: &str = "Base._array_of";
const TYPED_TUPLE: &str = "Base._typed_tuple";
const TYPED_DICT: &str = "Base._typed_dict";
const TYPED_SET: &str = "Base._typed_set";
