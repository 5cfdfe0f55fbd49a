//! Calls that splat arguments, `splatcall(flags, f, args...)` (Julia's `f(t...)`): each
//! argument flagged `true` is a tuple (or named tuple) whose elements become arguments; the
//! call is then typed as any other.

use zy_ir::{Const, Type};

use crate::calls::Cx;
use crate::error::Fail;
use crate::plan::PlanBuilder;
use crate::value::Val;

impl Cx<'_> {
    /// `splatcall(flags, f, args...)`.
    pub(crate) fn splat_call(&mut self, b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
        let Some((
            Val {
                konst: Some(Const::Tuple(flags)),
                ..
            },
            rest,
        )) = args.split_first()
        else {
            return Err(Fail::unsupported("malformed splatting call"));
        };
        let Some((callee, values)) = rest.split_first() else {
            return Err(Fail::unsupported("malformed splatting call"));
        };
        let mut expanded = vec![callee.clone()];
        for (flag, value) in flags.iter().zip(values) {
            if *flag != Const::Bool(true) {
                expanded.push(value.clone());
                continue;
            }
            let count = match &value.ty {
                Type::Tuple(items) => items.len(),
                Type::NamedTuple(fields) => fields.len(),
                Type::Array(..) => {
                    return Err(Fail::unsupported(
                        "splatting an array with `...` (its length is not known where the call is compiled; index it or pass a tuple)",
                    ))
                }
                t => {
                    return Err(Fail::method(format!(
                        "MethodError: no method matching iterate(::{t}) (splatting with `...`)"
                    )))
                }
            };
            for i in 1..=count {
                let index = Val::lit(Const::Int(i as i64));
                let x = self.call_named(b, &"getindex".into(), &[value.clone(), index])?;
                expanded.push(x);
            }
        }
        match &callee.konst {
            Some(Const::Func(name)) => self.call_named(b, name, &expanded[1..]),
            _ => self.call_value(b, &expanded),
        }
    }
}
