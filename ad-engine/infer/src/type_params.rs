//! Values as type parameters: Julia's `Val{3}`, `Val{:a}`, `Val{true}` ([`Type::Param`] among
//! the parameters of the prelude's `struct Val{x} end`). `Val(x)` is `Val{x}()` of a value
//! known where the call is compiled (a literal, an Int the body computes from literals, a
//! symbol, a `where` variable bound by a `::Val{n}` argument, a type), as Julia's compiler
//! knows it; of a value known only at run time it is refused, since the value would be part
//! of the type, which zy fixes where code is compiled.

use zy_ir::{Const, ParamValue, Program, Type};

use crate::calls::Cx;
use crate::error::{no_method, Fail};
use crate::pattern::Bindings;
use crate::plan::PlanBuilder;
use crate::value::{types, Val};

/// The prelude's `Val`.
pub(crate) const VAL: &str = "Base.Val";

/// `Val(x)`: the instance `Val{x}()` of the prelude's struct.
pub(crate) fn val(cx: &Cx, b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
    let [x] = args else {
        return Err(no_method("Val", &types(args)));
    };
    let param = param_of(x, cx)?;
    let def = cx
        .program
        .structs
        .get(VAL)
        .ok_or_else(|| Fail::undefined_in(VAL, cx.program))?;
    let bind: Bindings = def.params.iter().cloned().zip([param]).collect();
    crate::dispatch::construct_given(cx.program, def, b, &[], Some(bind))
}

/// The type parameter that a value of type `t` (with the constant `konst`, if known) stands
/// for: `3` of the Int 3, `:a` of the symbol, `Float64` of the type `Float64`; `None` if it is
/// not known where the call is compiled, or not of a kind zy reads.
pub(crate) fn param_type(t: &Type, konst: Option<&Const>, program: &Program) -> Option<Type> {
    let value = match (konst, t) {
        (_, Type::Function(n)) => return crate::type_values::concrete_of(n, program),
        (Some(Const::Int(k)), _) => ParamValue::Int(*k),
        (Some(Const::Bool(v)), _) => ParamValue::Bool(*v),
        (_, Type::Symbol(s)) if !t.is_any_symbol() => ParamValue::Symbol(s.clone()),
        _ => return None,
    };
    Some(Type::Param(value))
}

/// The type parameter that `x` stands for as `Val`'s ([`param_type`]), or the refusal.
fn param_of(x: &Val, cx: &Cx) -> Result<Type, Fail> {
    match (param_type(&x.ty, x.konst.as_ref(), cx.program), &x.konst) {
        (Some(p), _) => Ok(p),
        (None, Some(_)) => Err(Fail::unsupported(format!(
            "`Val(x)` of a constant of type {}: zy reads an Int, a Bool, a Symbol or a concrete \
             type as `Val`'s parameter",
            x.ty
        ))),
        (None, None) => Err(Fail::unsupported(format!(
            "`Val(x)` of a value known only at run time (of type {}): its value would be part \
             of the type, which zy fixes where the code is compiled; pass a literal \
             (`Val(3)`), or a `where` variable bound by a `::Val{{n}}` argument",
            x.ty
        ))),
    }
}

/// The value a type parameter stands for in a body (`n` of `::Val{n}` where `n` is `3`).
pub(crate) fn value_of(p: &ParamValue) -> Const {
    match p {
        ParamValue::Int(k) => Const::Int(*k),
        ParamValue::Bool(v) => Const::Bool(*v),
        ParamValue::Symbol(s) => Const::Symbol(s.clone()),
    }
}

/// The Int that a `Val{n}` of the prelude stands for, if `t` is one.
pub(crate) fn val_int(t: &Type) -> Option<i64> {
    match t {
        Type::Struct(s) if &*s.name == VAL => match s.params.as_slice() {
            [Type::Param(ParamValue::Int(k))] => Some(*k),
            _ => None,
        },
        _ => None,
    }
}
