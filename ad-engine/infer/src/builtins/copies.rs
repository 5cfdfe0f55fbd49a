//! `deepcopy` of the program's structs: the prelude's fallback method calls
//! `Base._deepcopy_fields(x)`, a new struct of the same type (no constructor runs, as Julia's
//! `deepcopy` calls none) whose fields are `_deepcopy` of `x`'s, so a mutable struct and every
//! array, `Dict` or struct inside it are fresh; `Base._realias(copy, x)` (the primitive
//! `realias`) then restores the sharing inside `x`.

use zy_ir::{Const, Op, Prim, StructKind, Type};

use crate::calls::Cx;
use crate::error::{no_method, Fail};
use crate::plan::{Arg, PlanBuilder};
use crate::value::Val;

/// Type `_deepcopy_fields(x)`; `None` for any other call.
pub(crate) fn call(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    name: &str,
    args: &[Val],
) -> Option<Result<Val, Fail>> {
    if name == "_realias" {
        return Some(match args {
            [copy, x] if copy.ty == x.ty => Ok(Val::of(
                b.prim(
                    Prim::Realias,
                    vec![copy.arg.clone(), x.arg.clone()],
                    x.ty.clone(),
                ),
                x.ty.clone(),
            )),
            _ => Err(no_method("_realias", &crate::value::types(&args))),
        });
    }
    if name != "_deepcopy_fields" {
        return None;
    }
    Some(match args {
        [x @ Val {
            ty: Type::Struct(st),
            ..
        }] if st.kind == StructKind::User => {
            let mut fields = Vec::with_capacity(st.fields.len());
            for k in 0..st.fields.len() {
                let ty = &x.ty.field(k).unwrap_or(Type::Nothing);
                let field = Arg::Const(Const::Int(k as i64 + 1));
                let value = Val::of(
                    b.prim(Prim::GetField, vec![x.arg.clone(), field], ty.clone()),
                    ty.clone(),
                );
                match cx.call_named(b, &"Base._deepcopy".into(), &[value]) {
                    Ok(copy) if copy.ty == *ty => fields.push(copy.arg),
                    // A recursive field's copy, typed from the copies made so far.
                    Ok(copy) if crate::join::widens(&copy.ty, ty) => {
                        match crate::value::convert(b, copy, ty) {
                            Ok(copy) => fields.push(copy.arg),
                            Err(e) => return Some(Err(e)),
                        }
                    }
                    Ok(copy) => {
                        return Some(Err(Fail::unsupported(format!(
                            "`deepcopy` of a {ty} that gives a {}",
                            copy.ty
                        ))))
                    }
                    Err(e) => return Some(Err(e)),
                }
            }
            Ok(Val::of(
                b.push(Op::New(st.clone()), fields, x.ty.clone()),
                x.ty.clone(),
            ))
        }
        _ => Err(no_method("deepcopy", &crate::value::types(&args))),
    })
}
