//! Caught exceptions (`catch e`): values of type `Exception`, whose concrete type is known only
//! at run time, so `e isa T` and `e.msg` are decided when the program runs.

use zy_ir::{Const, Name, Prim, Program, StructDef, StructKind, Type, TypeExpr};

use crate::calls::Cx;
use crate::error::{no_method, Fail};
use crate::plan::PlanBuilder;
use crate::value::{array, Val};

/// The exception types Julia's Base raises that zy knows by name (`e isa T` of any other type
/// that is not `Exception` is `false`).
pub(crate) const EXCEPTIONS: &[&str] = &[
    "ErrorException",
    "ArgumentError",
    "AssertionError",
    "BoundsError",
    "DimensionMismatch",
    "DivideError",
    "DomainError",
    "InexactError",
    "KeyError",
    "MethodError",
    "OverflowError",
    "SingularException",
    "StackOverflowError",
    "TypeError",
    "UndefKeywordError",
    "UndefRefError",
    "UndefVarError",
    "StringIndexError",
    "EOFError",
    "SystemError",
    "InvalidStateException",
    "ReadOnlyMemoryError",
    "InitError",
    "LoadError",
    "TaskFailedException",
    "CompositeException",
    "CapturedException",
    "ProcessFailedException",
    "MissingException",
    "PosDefException",
    "ZeroPivotException",
    "RankDeficientException",
    "LAPACKException",
];

fn apply(b: &mut PlanBuilder, p: Prim, args: &[&Val], ty: Type) -> Val {
    let args = args.iter().map(|a| a.arg.clone()).collect();
    Val::of(b.prim(p, args, ty.clone()), ty)
}

/// Is `def` a program's exception type: declared below `Exception`, at any depth?
fn is_user_exception(def: &StructDef, program: &Program) -> bool {
    let mut at = def;
    for _ in 0..program.structs.len() + 1 {
        match &at.supertype {
            Some(TypeExpr::Named { name, .. }) if &**name == "Exception" => return true,
            Some(TypeExpr::Named { name, .. }) => match program.structs.get(name) {
                Some(sup) => at = sup,
                None => return false,
            },
            _ => return false,
        }
    }
    false
}

/// The supertype of an exception type as a value: `Exception` of Base's (Julia declares each
/// directly below it), `Any` of `Exception`, the declared one of the program's types below
/// `Exception` (abstract ones too). `None` if `name` is not an exception type.
pub(crate) fn exception_supertype(name: &str, program: &Program) -> Option<Name> {
    match name {
        "Exception" => return Some("Any".into()),
        n if EXCEPTIONS.contains(&n) => return Some("Exception".into()),
        _ => {}
    }
    let def = program.structs.get(name)?;
    if def.kind != StructKind::User || !is_user_exception(def, program) {
        return None;
    }
    match &def.supertype {
        Some(TypeExpr::Named { name, .. }) => Some(name.clone()),
        _ => None,
    }
}

/// `a <: b` where `a` or `b` is an exception type as a value (`typeof(e) <: Exception`,
/// `BoundsError <: ArgumentError`): `a`'s chain of supertypes reaches `b`; no other type is
/// below an exception type but `Union{}`. A union of plain names is below `b` if each of its
/// members is, and above `a` if one is. `None` if no exception type is among them.
pub(crate) fn exception_subtype(a: &str, b: &str, program: &Program) -> Option<bool> {
    if let Some(ms) = plain_members(a) {
        let each: Option<Vec<bool>> = ms
            .iter()
            .map(|m| exception_subtype(m, b, program))
            .collect();
        return each.map(|e| e.iter().all(|&x| x));
    }
    if let Some(ms) = plain_members(b) {
        let each: Option<Vec<bool>> = ms
            .iter()
            .map(|m| exception_subtype(a, m, program))
            .collect();
        return each.map(|e| e.iter().any(|&x| x));
    }
    let below_a = exception_supertype(a, program).is_some();
    if !below_a && exception_supertype(b, program).is_none() {
        return None;
    }
    if b == "Any" || a == "Union{}" {
        return Some(true);
    }
    let mut at: Name = a.into();
    for _ in 0..program.structs.len() + 2 {
        if &*at == b {
            return Some(true);
        }
        match exception_supertype(&at, program) {
            Some(up) => at = up,
            None => return Some(false),
        }
    }
    Some(false)
}

/// The members of the name of a union of plain names (`Union{BoundsError, DomainError}`).
fn plain_members(t: &str) -> Option<Vec<&str>> {
    let inner = t.strip_prefix("Union{")?.strip_suffix('}')?;
    (!inner.contains('{')).then(|| inner.split(',').map(str::trim).collect())
}

/// The program's concrete exception types (structs below `Exception`).
fn user_exceptions(program: &Program) -> impl Iterator<Item = &StructDef> {
    program
        .structs
        .values()
        .filter(|d| d.kind == StructKind::User && !d.is_abstract && is_user_exception(d, program))
}

/// The concrete type names a caught exception `e isa T` compares with, for the type value
/// named `ty`: `None` if no exception is a `T` (the test is `false`).
fn isa_names(ty: &str, program: &Program) -> Option<Vec<Name>> {
    if let Some(members) = ty.strip_prefix("Union{").and_then(|t| t.strip_suffix('}')) {
        let mut all = Vec::new();
        for m in members.split(',') {
            all.extend(isa_names(m.trim(), program).unwrap_or_default());
        }
        return (!all.is_empty()).then_some(all);
    }
    match ty {
        "Any" => return Some(vec!["Any".into()]),
        "Exception" => {
            let mut all: Vec<Name> = vec!["Exception".into()];
            all.extend(user_exceptions(program).map(|d| d.name.clone()));
            return Some(all);
        }
        "Int" | "Int64" => return Some(vec!["Int64".into()]),
        "Float64" | "String" | "Bool" | "Nothing" => return Some(vec![ty.into()]),
        _ if EXCEPTIONS.contains(&ty) => return Some(vec![ty.into()]),
        _ => {}
    }
    let def = program.structs.get(ty)?;
    let below: Vec<Name> = program
        .structs
        .values()
        .filter(|d| d.kind == StructKind::User && !d.is_abstract && is_below(d, &def.name, program))
        .map(|d| d.name.clone())
        .collect();
    (!below.is_empty()).then_some(below)
}

/// Is `t` one of Base's concrete exception types as a value (`DomainError`)?
fn is_base_exception(t: &Type) -> bool {
    matches!(t, Type::Function(n) if EXCEPTIONS.contains(&&**n))
}

/// `typeof(e)` of a caught exception: Julia's `DataType`, the union of the exception types as
/// values (Base's and the program's), the one it holds known at run time.
fn exception_types(program: &Program) -> Type {
    let base = EXCEPTIONS.iter().map(|n| Name::from(*n));
    let own = user_exceptions(program).map(|d| d.name.clone());
    Type::union(
        "DataType".into(),
        base.chain(own).map(Type::Function).collect(),
    )
}

/// Is `def` the type `ty` or declared below it?
fn is_below(def: &StructDef, ty: &Name, program: &Program) -> bool {
    let mut at = def;
    for _ in 0..program.structs.len() + 1 {
        if at.name == *ty {
            return true;
        }
        match &at.supertype {
            Some(TypeExpr::Named { name, .. }) => match program.structs.get(name) {
                Some(sup) => at = sup,
                None => return false,
            },
            _ => return false,
        }
    }
    false
}

/// The type of field `f` of a caught exception: the join of the types the exception types
/// with such a field give it (Base's `msg` is a `String`; a `DomainError`'s `val`, Julia's
/// field of type `Any`, holds a number of its own type, a `Bool`, `Float64` or `Int64`; a
/// program's exceptions by their declarations).
fn field_type(f: &str, program: &Program) -> Result<Type, Fail> {
    let any_number = crate::open::open_union("Any", &[Type::Float64]).unwrap_or(Type::Float64);
    let mut found: Vec<(Name, Type)> = match f {
        "msg" => vec![("ErrorException".into(), Type::String)],
        "val" => vec![("DomainError".into(), any_number)],
        "i" => vec![("BoundsError".into(), bounds_index())],
        "key" => vec![("KeyError".into(), dict_key())],
        "info" => vec![("SingularException".into(), Type::Int64)],
        "a" => vec![("BoundsError".into(), bounds_object())],
        _ => Vec::new(),
    };
    for def in user_exceptions(program) {
        if !def.fields.iter().any(|(n, _)| &**n == f) {
            continue;
        }
        let concrete = crate::type_values::pattern_of_name(&def.name, program)
            .ok()
            .and_then(|p| crate::dispatch::concrete_type(program, &p));
        let ty = match concrete {
            Some(Type::Struct(st)) => st
                .fields
                .iter()
                .find(|(n, _)| &**n == f)
                .map(|(_, t)| t.clone()),
            _ => None,
        };
        let Some(ty) = ty else {
            return Err(Fail::unsupported(format!(
                "field `{f}` of a caught exception: `{}` does not declare it with a concrete type \
                 (`{f}::String`)",
                def.name
            )));
        };
        found.push((def.name.clone(), ty));
    }
    match found.split_first() {
        None => Err(Fail::unsupported(format!(
            "field `{f}` of a caught exception: no exception type zy knows has it"
        ))),
        // Types that join (a `DomainError`'s number of any type and a program's `Float64`)
        // are the join.
        Some(((_, t), rest)) => rest.iter().try_fold(t.clone(), |acc, (n, u)| {
            crate::join::join(&acc, u).ok_or_else(|| {
                Fail::unsupported(format!(
                    "field `{f}` of a caught exception, which is a `{acc}` in `{}` and a `{u}` \
                     in `{n}`; test the type first and read it through a function of that type",
                    found[0].0
                ))
            })
        }),
    }
}

/// A `KeyError`'s `key` (Julia's field of type `Any`): a key of the dictionaries zy holds, a
/// string, a symbol or a number.
fn dict_key() -> Type {
    let held = [Type::String, Type::any_symbol(), Type::Int64, Type::Float64];
    crate::open::open_union("Any", &held).unwrap_or(Type::String)
}

/// A `BoundsError`'s `a` (Julia's field of type `Any`): the array or string indexed, a vector
/// or matrix of numbers or a vector of strings (another object read there is an error naming
/// it).
fn bounds_object() -> Type {
    let held = [
        Type::String,
        array(Type::Float64, 1),
        array(Type::Int64, 1),
        array(Type::Bool, 1),
        array(Type::String, 1),
        array(Type::Float64, 2),
        array(Type::Int64, 2),
    ];
    crate::open::open_union("Any", &held).unwrap_or(Type::Int64)
}

/// A `BoundsError`'s `i` (Julia's field of type `Any`): the index of a tuple or a string, an
/// `Int`; the tuple of the indices of an array, of one to three.
fn bounds_index() -> Type {
    let tuples = (1..=3).map(|n| Type::tuple(std::iter::repeat_n(Type::Int64, n)));
    let held: Vec<Type> = std::iter::once(Type::Int64).chain(tuples).collect();
    crate::open::open_union("Any", &held).unwrap_or(Type::Int64)
}

/// Type a builtin call on a caught exception, or a `throw`; `None` if it is not one.
pub(crate) fn call(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    name: &str,
    args: &[Val],
) -> Option<Result<Val, Fail>> {
    let is_exception = |v: &Val| v.ty == Type::Exception;
    Some(match (name, args) {
        ("the_exception", []) => Ok(apply(b, Prim::TheException, &[], Type::Exception)),
        ("rethrow" | "throw", [e]) if is_exception(e) => {
            Ok(apply(b, Prim::Rethrow, &[e], Type::Bottom))
        }
        // `throw(x)` of any other value: reported as `sprint(showerror, x)` shows it.
        ("throw", [x]) => {
            let io = Val::lit(Const::Str("".into()));
            match cx.call_named(b, &"Base.showerror".into(), &[io, x.clone()]) {
                Ok(text) => Ok(apply(b, Prim::ThrowValue, &[x, &text], Type::Bottom)),
                Err(e) => Err(e),
            }
        }
        (
            "exception_new",
            [Val {
                konst: Some(Const::Symbol(_)),
                ..
            }, ..],
        ) => {
            let args: Vec<&Val> = args.iter().collect();
            Ok(apply(b, Prim::ExceptionNew, &args, Type::Exception))
        }
        // Julia's `show`: a caught exception as its constructor call (`string(e)`), any other
        // value as the interpreter's `show` writes it.
        ("repr", [x]) if is_exception(x) => Ok(apply(b, Prim::StringOf, &[x], Type::String)),
        ("repr", [x]) => Ok(apply(b, Prim::ExceptionText, &[x], Type::String)),
        ("exception_text", [x]) => Ok(apply(b, Prim::ExceptionText, &[x], Type::String)),
        ("throw" | "exception_text" | "exception_new" | "repr", _) => {
            Err(no_method(name, &crate::value::types(&args)))
        }
        ("rethrow", _) => Err(Fail::unsupported(
            "`rethrow` outside a catch block, or of a value that is not a caught exception",
        )),
        ("isa", [e, t]) if is_exception(e) => match &t.ty {
            Type::Function(ty) => match isa_names(ty, cx.program) {
                Some(names) => {
                    let names = Const::Tuple(names.into_iter().map(Const::Symbol).collect());
                    Ok(apply(
                        b,
                        Prim::ExceptionIsa,
                        &[e, &Val::lit(names)],
                        Type::Bool,
                    ))
                }
                None => Ok(Val::lit(Const::Bool(false))),
            },
            _ => Err(no_method("isa", &[e.ty.clone(), t.ty.clone()])),
        },
        ("typeof", [e]) if is_exception(e) => Ok(apply(
            b,
            Prim::ExceptionType,
            &[e],
            exception_types(cx.program),
        )),
        // A value of any other type (`nothing` where no exception was caught) is none of
        // Base's exceptions, which are made only as caught exceptions' values.
        ("isa", [x, t]) if !matches!(x.ty, Type::Union(_)) && is_base_exception(&t.ty) => {
            Ok(Val::lit(Const::Bool(false)))
        }
        ("getproperty" | "getfield", [e, f]) if is_exception(e) => {
            let ty = match &f.konst {
                Some(Const::Symbol(f)) => field_type(f, cx.program),
                _ => Err(Fail::unsupported(
                    "a field of a caught exception named by a value known only at run time",
                )),
            };
            ty.map(|ty| apply(b, Prim::ExceptionField, &[e, f], ty))
        }
        _ => return None,
    })
}
