//! Types as values. zy represents a type used as a value by a name (a constant of type
//! `Function(name)`, as it represents `Float64` by its constructor): `typeof(x)`, `eltype(x)`,
//! a `where` variable and a type written in an expression (`Vector{Float64}`, which the syntax
//! turns into that text) are such names. A concrete type's name is its printed form
//! (`Vector{Float64}`), so two names of one concrete type are equal, and `==`, `isa` and
//! `eltype` on them are decided by inference, as Julia's compiler folds them.

use std::sync::Arc;

use zy_ir::{Name, Program, Type, TypeExpr};

use crate::error::Fail;
use crate::pattern::{self, Pat};

/// The name of `Tuple{}` (as the syntax names the empty tuple's type).
const EMPTY_TUPLE: &str = "Tuple{}";

/// How Julia prints a named tuple type, `@NamedTuple{a::Float64, b::Int64}`, up to its fields.
const NAMED_TUPLE: &str = "@NamedTuple{";

/// Is `name` the text of a type with parameters (as opposed to a plain name)?
pub(crate) fn is_type_text(name: &str) -> bool {
    name.contains('{')
}

/// Do two type or function names name one thing (`Int` is `Int64`)?
pub(crate) fn same_name(f: &str, g: &str) -> bool {
    let alias = |n: &str| {
        if n == "Int" {
            "Int64".to_string()
        } else {
            n.to_string()
        }
    };
    alias(f) == alias(g)
}

/// The pattern the type named `name` stands for; each `<:B` parameter is a variable bounded
/// by `B` (`AbstractVector{<:Real}`).
pub(crate) fn pattern_of(name: &str, program: &Program) -> Result<Pat, Fail> {
    if let Some(fields) = name
        .strip_prefix(NAMED_TUPLE)
        .and_then(|rest| rest.strip_suffix('}'))
    {
        return named_tuple_of(fields, program)
            .map(Pat::Leaf)
            .ok_or_else(|| Fail::unsupported(format!("the type `{name}` as a value")));
    }
    let mut bounds = Vec::new();
    let expr = Parser { text: name, at: 0 }
        .whole(&mut bounds)
        .ok_or_else(|| Fail::unsupported(format!("the type `{name}` as a value")))?;
    let vars: Vec<Name> = bounds.iter().map(|(v, _)| v.clone()).collect();
    let mut bound_pats = Vec::new();
    for (v, b) in &bounds {
        bound_pats.push((v.clone(), pattern::pattern(b, &vars, program)?));
    }
    let p = pattern::pattern(&expr, &vars, program)?;
    Ok(pattern::with_bounds(p, &bound_pats))
}

/// The type a type value's name writes (`Vector{Float64}`), if it has no `<:B` parameter.
pub(crate) fn type_expr_of(name: &str) -> Option<TypeExpr> {
    let mut bounds = Vec::new();
    let e = Parser { text: name, at: 0 }.whole(&mut bounds)?;
    bounds.is_empty().then_some(e)
}

/// The pattern of any type value's name: a type with parameters, or a plain name (`Float64`,
/// `Real`, a struct).
pub(crate) fn pattern_of_name(name: &str, program: &Program) -> Result<Pat, Fail> {
    if is_type_text(name) {
        pattern_of(name, program)
    } else {
        pattern::pattern(&TypeExpr::named(name), &[], program)
    }
}

/// `a <: b` of two type values' names, as Julia's subtyping decides it for the types zy has.
pub(crate) fn is_subtype(a: &str, b: &str, program: &Program) -> Result<bool, Fail> {
    if let Some(known) = crate::builtins::exception_subtype(a, b, program) {
        return Ok(known);
    }
    let pb = pattern_of_name(b, program)?;
    let pa = pattern_of_name(a, program)?;
    Ok(match pattern::concrete(&pa, &Default::default()) {
        Some(t) => pattern::matches(&pb, &t, &mut Default::default()),
        None => {
            pattern::subtype(&pa, &pb)
                || user_array_above(&pa, program).is_some_and(|up| pattern::subtype(&up, &pb))
        }
    })
}

/// The abstract array type above a struct of the program declared below one
/// (`AbstractVector{Int64}` of `W{Int64}` where `struct W{T} <: AbstractVector{T}`), through
/// which it is a subtype of Julia's abstract array types.
fn user_array_above(p: &Pat, program: &Program) -> Option<Pat> {
    let Pat::Struct { name, params } = p else {
        return None;
    };
    pattern::user_array_pattern(name, params.as_deref(), program)
}

/// The concrete type a type value's name stands for, if it stands for one.
pub(crate) fn concrete_of(name: &str, program: &Program) -> Option<Type> {
    if !is_type_text(name) {
        return match name {
            "Float64" => Some(Type::Float64),
            "Int" | "Int64" => Some(Type::Int64),
            "Float32" => Some(Type::Float32),
            "Bool" => Some(Type::Bool),
            "Nothing" => Some(Type::Nothing),
            "String" => Some(Type::String),
            "Symbol" => Some(Type::any_symbol()),
            // A program's struct without parameters (`Heap{Float64, Ascending}`).
            n => match program.structs.get(n) {
                Some(def) if def.params.is_empty() && !def.is_abstract => {
                    crate::dispatch::struct_instance(program, &def.name, Vec::new())
                }
                _ => zy_ir::IntKind::from_name(n).map(Type::Int),
            },
        };
    }
    let p = pattern_of(name, program).ok()?;
    concrete_in(&p, &Default::default(), program)
}

/// The concrete type `p` stands for under the bindings `b`, structs among its parts included
/// (`Tuple{UnitRange{Int64}, UnitRange{Int64}}`, a program's `Point{Float64}`): a struct's
/// fields typed by their declarations under its parameters.
pub(crate) fn concrete_in(p: &Pat, b: &pattern::Bindings, program: &Program) -> Option<Type> {
    match p {
        Pat::Struct { name, params } => {
            let params = match params {
                Some(ps) => ps
                    .iter()
                    .map(|p| concrete_in(p, b, program))
                    .collect::<Option<Vec<_>>>()?,
                None => Vec::new(),
            };
            crate::dispatch::struct_instance(program, name, params)
        }
        Pat::Tuple(Some(ps)) => Some(Type::Tuple(
            ps.iter()
                .map(|p| concrete_in(p, b, program))
                .collect::<Option<_>>()?,
        )),
        Pat::NamedTuple {
            names: Some(ns),
            types: Some(ps),
        } => Some(Type::NamedTuple(
            ns.iter()
                .zip(ps)
                .map(|(n, p)| Some((n.clone(), concrete_in(p, b, program)?)))
                .collect::<Option<_>>()?,
        )),
        Pat::Array {
            abstract_: false,
            elem: Some(e),
            ndims: Some(n),
            ..
        } => Some(Type::Array(Arc::new(concrete_in(e, b, program)?), *n)),
        Pat::Ref(Some(p)) => Some(Type::Ref(Arc::new(concrete_in(p, b, program)?))),
        // A union written out (`S{Union{Int, String}}`): Julia's union of its concrete members.
        Pat::Union(ps) if !ps.is_empty() => ps.iter().try_fold(Type::Bottom, |u, p| {
            crate::join::join(&u, &concrete_in(p, b, program)?)
        }),
        _ => pattern::concrete(p, b),
    }
}

/// The type of the values a `Ref{name}` holds: a concrete type, or Julia's
/// `Union{Nothing, T}` of a concrete number type `T` (a value zy keeps tagged).
pub(crate) fn ref_content_of(name: &str, program: &Program) -> Option<Type> {
    if let Some(t) = concrete_of(name, program) {
        return Some(t);
    }
    let Ok(Pat::Union(members)) = pattern_of_name(name, program) else {
        return None;
    };
    let members: Vec<Type> = members
        .iter()
        .map(|p| pattern::concrete(p, &Default::default()))
        .collect::<Option<_>>()?;
    match members.as_slice() {
        [Type::Nothing, t] | [t, Type::Nothing] if t.is_number() => {
            Some(crate::join::nothing_or(t))
        }
        _ => None,
    }
}

/// The name of a type value written `name`: a concrete type's printed form
/// (`Array{Float64, 1}` is `Vector{Float64}`), else the text as written.
pub(crate) fn canonical(name: &Name, program: &Program) -> Result<Name, Fail> {
    let name = &crate::aliases::expanded_name(name, program)?;
    let p = pattern_of(name, program)?;
    Ok(match pattern::concrete(&p, &Default::default()) {
        Some(t) => value_name(&t)?,
        None => struct_value_name(&p).unwrap_or_else(|| name.clone()),
    })
}

/// The name of a struct type whose parameters are all concrete (`Base.Rational{Int64}`, however
/// written), which the pattern of `::Type{Rational{Int}}` also gives.
pub(crate) fn struct_value_name(p: &Pat) -> Option<Name> {
    let Pat::Struct {
        name,
        params: Some(ps),
    } = p
    else {
        return None;
    };
    if ps.is_empty() {
        return None;
    }
    let params = ps
        .iter()
        .map(|p| value_name(&pattern::concrete(p, &Default::default())?).ok())
        .collect::<Option<Vec<_>>>()?;
    // A prelude wrapper of one array is named with Julia's parameters, as `typeof` names it
    // (`LinearAlgebra.Diagonal{Float64, Vector{Float64}}`).
    if let (Some(_), [p]) = (pattern::wrapped_kind(name), ps.as_slice()) {
        if let Some(Type::Array(e, _)) = pattern::concrete(p, &Default::default()) {
            return Some(format!("{name}{{{}, {}}}", value_name(&e).ok()?, params[0]).into());
        }
    }
    Some(format!("{name}{{{}}}", params.join(", ")).into())
}

/// The concrete named tuple type whose fields `a::Float64, b::Int64` (Julia's printed form
/// inside `@NamedTuple{...}`) give, each field's type a concrete type's name.
fn named_tuple_of(fields: &str, program: &Program) -> Option<Type> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in fields.char_indices() {
        match c {
            '{' | '(' => depth += 1,
            '}' | ')' => depth = depth.checked_sub(1)?,
            ',' if depth == 0 => {
                parts.push(&fields[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !fields.trim().is_empty() {
        parts.push(&fields[start..]);
    }
    let typed = parts
        .into_iter()
        .map(|part| {
            let (field, ty) = part.split_once("::")?;
            let p = pattern_of_name(ty.trim(), program).ok()?;
            let t = crate::dispatch::concrete_type(program, &p)?;
            Some((Name::from(field.trim()), t))
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Type::NamedTuple(typed.into()))
}

/// The name of the type `t` as a value (`typeof(x)`, `eltype(x)`): its printed form, for the
/// types whose printed form reads back as themselves.
pub(crate) fn value_name(t: &Type) -> Result<Name, Fail> {
    if let Type::NamedTuple(fs) = t {
        let fields = fs
            .iter()
            .map(|(n, f)| Ok(format!("{n}::{}", value_name(f)?)))
            .collect::<Result<Vec<_>, Fail>>()?;
        return Ok(format!("{NAMED_TUPLE}{}}}", fields.join(", ")).into());
    }
    let reads_back = |t: &Type| -> bool {
        fn ok(t: &Type) -> bool {
            match t {
                Type::Float64 | Type::Float32 | Type::Int64 | Type::Int(_) => true,
                Type::Bool | Type::Nothing => true,
                Type::String | Type::SubString => true,
                Type::Array(e, _) | Type::Adjoint(e) => ok(e),
                Type::Tuple(ts) => ts.iter().all(ok),
                // `findfirst`'s union: its type is `Nothing` or `Int64`, known only at run time.
                Type::Struct(s) if &*s.name == "Base.NothingOrInt" => false,
                // Named `Task`, without the parameters zy keeps (a result type of `Union{}`).
                Type::Struct(s) if &*s.name == "Base.Task" => true,
                Type::Struct(s) => s.kind == zy_ir::StructKind::User && s.params.iter().all(ok),
                Type::Function(n) => !n.contains('{'),
                Type::Symbol(_) | Type::Union(_) | Type::Param(_) => true,
                _ => false,
            }
        }
        ok(t)
    };
    if !reads_back(t) {
        return Err(Fail::unsupported(format!("the type {t} as a value")));
    }
    Ok(match t {
        Type::Tuple(ts) if ts.is_empty() => EMPTY_TUPLE.into(),
        Type::Function(n) => format!("typeof({n})").into(),
        // Named as the type's text reads back (the module kept) with Julia's parameters.
        Type::Struct(s) if pattern::wrapped_kind(&s.name).is_some() => match s.params.as_slice() {
            [m @ Type::Array(e, _)] => format!("{}{{{e}, {m}}}", s.name).into(),
            _ => t.to_string().into(),
        },
        _ => t.to_string().into(),
    })
}

/// The element type of the array (or array wrapper) type a type value names
/// (`eltype(Vector{Float64})`).
pub(crate) fn elem_of(name: &str, program: &Program) -> Option<Type> {
    match concrete_of(name, program)? {
        Type::Array(e, _) | Type::Adjoint(e) => Some(Arc::unwrap_or_clone(e)),
        // A prelude wrapper of one array: its array's (`eltype(Diagonal{Float64, ...})`).
        Type::Struct(s) if pattern::wrapped_kind(&s.name).is_some() => match s.params.first() {
            Some(Type::Array(e, _)) => Some((**e).clone()),
            _ => None,
        },
        _ => None,
    }
}

/// A reader of type text: `Name`, `Name{P, ...}`, `<:B`, `typeof(f)`.
struct Parser<'t> {
    text: &'t str,
    at: usize,
}

impl Parser<'_> {
    fn whole(mut self, bounds: &mut Vec<(Name, TypeExpr)>) -> Option<TypeExpr> {
        let t = self.ty(bounds)?;
        self.space();
        (self.at == self.text.len()).then_some(t)
    }

    fn space(&mut self) {
        while self.text[self.at..].starts_with(' ') {
            self.at += 1;
        }
    }

    fn eat(&mut self, s: &str) -> bool {
        self.space();
        let found = self.text[self.at..].starts_with(s);
        if found {
            self.at += s.len();
        }
        found
    }

    fn ty(&mut self, bounds: &mut Vec<(Name, TypeExpr)>) -> Option<TypeExpr> {
        if self.eat("<:") {
            let bound = self.ty(bounds)?;
            let var: Name = format!("#T{}", bounds.len() + 1).into();
            bounds.push((var.clone(), bound));
            return Some(TypeExpr::named(&var));
        }
        self.space();
        let rest = &self.text[self.at..];
        let len = rest
            .find(|c: char| matches!(c, '{' | '}' | ',' | '(' | ')' | ' '))
            .unwrap_or(rest.len());
        let name = &rest[..len];
        if name.is_empty() {
            return None;
        }
        self.at += len;
        if name == "typeof" && self.eat("(") {
            let rest = &self.text[self.at..];
            let end = rest.find(')')?;
            let f = rest[..end].trim().to_string();
            self.at += end + 1;
            return Some(TypeExpr::Typeof(f.into()));
        }
        let mut params = Vec::new();
        if self.eat("{") {
            if self.eat("}") {
                return match name {
                    "Tuple" => Some(TypeExpr::named(EMPTY_TUPLE)),
                    "Union" => Some(TypeExpr::named("Union{}")),
                    _ => None,
                };
            }
            loop {
                params.push(self.ty(bounds)?);
                if self.eat("}") {
                    break;
                }
                if !self.eat(",") {
                    return None;
                }
            }
        }
        Some(TypeExpr::Named {
            name: name.into(),
            params,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concrete_types_read_back_by_their_printed_names() {
        let program = Program::default();
        for t in [
            Type::vector_f64(),
            Type::matrix_f64(),
            Type::Tuple(Arc::from([Type::Float64, Type::Int64])),
            Type::Adjoint(Arc::new(Type::Float64)),
            Type::NamedTuple(Arc::from([
                (Name::from("name"), Type::String),
                (
                    Name::from("at"),
                    Type::Tuple(Arc::from([Type::Int64, Type::Bool])),
                ),
            ])),
        ] {
            let name = match value_name(&t) {
                Ok(n) => n,
                Err(e) => panic!("{t}: {e:?}"),
            };
            assert_eq!(concrete_of(&name, &program), Some(t));
        }
        let written: Name = "Array{Float64, 1}".into();
        assert_eq!(
            canonical(&written, &program).ok().as_deref(),
            Some("Vector{Float64}")
        );
        assert!(concrete_of("AbstractVector{<:Real}", &program).is_none());
        assert!(pattern_of("Vector{", &program).is_err());
        assert_eq!(
            value_name(&Type::NamedTuple(Arc::from([(
                Name::from("a"),
                Type::Float64
            )])))
            .ok()
            .as_deref(),
            Some("@NamedTuple{a::Float64}")
        );
        assert!(pattern_of("@NamedTuple{a}", &program).is_err());
    }
}
