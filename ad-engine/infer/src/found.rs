//! Calls on `findfirst`'s `Union{Nothing, Int64}` (the prelude's `Base.NothingOrInt`) that no
//! method takes: Julia runs `findfirst(==(3), v) + 1` and raises its `MethodError` only on a
//! run where the index is `nothing`, so such a call is the call on the index, each union
//! argument checked at run time (`Base._found_index`) rather than refused where it is typed.

use zy_ir::{Const, Name, Type};

use crate::calls::Cx;
use crate::error::Fail;
use crate::plan::PlanBuilder;
use crate::value::Val;

impl Cx<'_> {
    /// `name(args...)` again after `fail`, Julia's `MethodError` of this very call, with each
    /// `findfirst` union among `args` replaced by its index; `fail` where that does not help
    /// (no such argument, another error, no method of the indices either).
    pub(crate) fn call_on_found(
        &mut self,
        b: &mut PlanBuilder,
        name: &Name,
        args: &[Val],
        fail: Fail,
    ) -> Result<Val, Fail> {
        let bare = name.rsplit('.').next().unwrap_or(name);
        let this_call = fail.code == "method-error"
            && fail
                .message
                .starts_with(&format!("MethodError: no method matching {bare}("));
        if !this_call || !args.iter().any(is_found_union) {
            return Err(fail);
        }
        // On a run where an earlier union was `nothing` the call never happens: the message
        // for argument `k` names the indices before it as Int64s.
        let runtime: Vec<Type> = args
            .iter()
            .map(|a| {
                if is_found_union(a) {
                    Type::Int64
                } else {
                    a.ty.clone()
                }
            })
            .collect();
        let mut unwrapped = Vec::with_capacity(args.len());
        for (k, a) in args.iter().enumerate() {
            if !is_found_union(a) {
                unwrapped.push(a.clone());
                continue;
            }
            let mut shown = runtime.clone();
            shown[k] = Type::Nothing;
            let message = format!(
                "no method matching {}",
                crate::error::signature(name, &shown)
            );
            let check = [a.clone(), Val::lit(Const::Str(message.into()))];
            unwrapped.push(self.call_named(b, &"Base._found_index".into(), &check)?);
        }
        self.call_named(b, name, &unwrapped).map_err(|_| fail)
    }
}

impl Cx<'_> {
    /// `x`, a `Union{Nothing, T}` (a regex group, `m[1]`), as the `T` it holds where it is
    /// stored into an array of a concrete `elem` type (`push!(String[], m[1])`),
    /// checked at run time (`Base._convert_present`: Julia's `convert` error naming `Nothing`
    /// on a run where it is `nothing`); `None` for any other value.
    pub(crate) fn convert_present(
        &mut self,
        b: &mut PlanBuilder,
        x: &Val,
        elem: &Type,
    ) -> Option<Result<Val, Fail>> {
        nothing_or(&x.ty)?;
        if matches!(elem, Type::Union(_)) {
            return None;
        }
        let message =
            format!("Cannot `convert` an object of type Nothing to an object of type {elem}");
        let check = [x.clone(), Val::lit(Const::Str(message.into()))];
        Some(self.call_named(b, &"Base._convert_present".into(), &check))
    }
}

/// The `T` of a `Union{Nothing, T}`, `None` for any other type.
fn nothing_or(t: &Type) -> Option<&Type> {
    match t {
        Type::Union(u) if u.members.len() == 2 && u.members.contains(&Type::Nothing) => {
            u.members.iter().find(|m| **m != Type::Nothing)
        }
        _ => None,
    }
}

/// Is `v` `findfirst`'s union, the prelude's `Base.NothingOrInt`?
fn is_found_union(v: &Val) -> bool {
    matches!(&v.ty, Type::Struct(s) if &*s.name == "Base.NothingOrInt")
}
