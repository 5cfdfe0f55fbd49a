//! Caught exceptions (`catch e`): values of type `Exception`, whose concrete type is known only
//! at run time, so `e isa T` and `e.msg` are decided when the program runs.

use zy_ir::{Const, Prim, Type};

use crate::error::{no_method, Fail};
use crate::plan::PlanBuilder;
use crate::value::Val;

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
];

fn apply(b: &mut PlanBuilder, p: Prim, args: &[&Val], ty: Type) -> Val {
    let args = args.iter().map(|a| a.arg.clone()).collect();
    Val::of(b.prim(p, args, ty.clone()), ty)
}

/// Type a builtin call on a caught exception; `None` if it is not one.
pub(crate) fn call(b: &mut PlanBuilder, name: &str, args: &[Val]) -> Option<Result<Val, Fail>> {
    let is_exception = |v: &Val| v.ty == Type::Exception;
    Some(match (name, args) {
        ("the_exception", []) => Ok(apply(b, Prim::TheException, &[], Type::Exception)),
        ("rethrow" | "throw", [e]) if is_exception(e) => {
            Ok(apply(b, Prim::Rethrow, &[e], Type::Bottom))
        }
        ("rethrow", _) => Err(Fail::unsupported(
            "`rethrow` outside a catch block, or of a value that is not a caught exception",
        )),
        ("isa", [e, t]) if is_exception(e) => match &t.ty {
            Type::Function(ty) if &**ty == "Exception" || EXCEPTIONS.contains(&&**ty) => {
                let ty = Val::lit(Const::Symbol(ty.clone()));
                Ok(apply(b, Prim::ExceptionIsa, &[e, &ty], Type::Bool))
            }
            Type::Function(_) => Ok(Val::lit(Const::Bool(false))),
            _ => Err(no_method("isa", &[e.ty.clone(), t.ty.clone()])),
        },
        ("getproperty" | "getfield", [e, f]) if is_exception(e) => {
            let ty = match &f.konst {
                Some(Const::Symbol(f)) if &**f == "msg" => Type::String,
                Some(Const::Symbol(f)) if &**f == "val" => Type::Float64,
                _ => {
                    return Some(Err(Fail::unsupported(format!(
                        "field `{}` of a caught exception; zy reads `e.msg` and a \
                         DomainError's `e.val`",
                        f.konst.as_ref().map_or("?".to_string(), |c| c.to_string())
                    ))))
                }
            };
            Ok(apply(b, Prim::ExceptionField, &[e, f], ty))
        }
        _ => return None,
    })
}
