//! Recursions whose argument types change at every call (`h(::Val{N}) where N = h(Val(N + 1))`,
//! `p` and `q` calling each other on ever larger tuples): every call is a new specialisation,
//! so typing one inside its caller would never end. A chain of calls may hold a bounded number
//! of specialisations of one method; the call past the bound is refused by name, where Julia
//! would dispatch at run time (and recurse until `StackOverflowError` if nothing stops it).

use std::sync::Arc;

use zy_ir::{Instance, Op, ValueKind};

use crate::error::visible;
use crate::{InferredFunction, TypeError};

/// Specialisations of one method with different argument types that one chain of calls (each
/// typed inside its caller) may hold: a recursion on tuples or `Val`s that stops stays far
/// below it, one that never stops reaches it in well under a second.
pub const MAX_CHAIN_SPECIALISATIONS: usize = 64;

/// Why `callee` may not be typed at the end of `chain` (the specialisations being typed, the
/// outermost first): the chain already holds [`MAX_CHAIN_SPECIALISATIONS`] specialisations of
/// its method, none of them `callee` itself (that is a recursion typed by fixpoint).
pub fn growing_recursion<'a>(
    chain: impl IntoIterator<Item = &'a Instance>,
    callee: &Instance,
) -> Option<String> {
    let mut same = Vec::new();
    for inst in chain {
        if inst.name == callee.name && inst.method == callee.method {
            if inst.args == callee.args {
                return None;
            }
            same.push(inst);
        }
    }
    let [first, second, ..] = same[..] else {
        return None;
    };
    (same.len() >= MAX_CHAIN_SPECIALISATIONS).then(|| {
        format!(
            "unsupported: recursion through `{}` with a new argument type at every call ({}, {}, \
             ...): zy types every call for its argument types and stops after \
             {MAX_CHAIN_SPECIALISATIONS} of them in one chain (Julia dispatches such calls at run \
             time; one that never stops ends in StackOverflowError)",
            callee.name.strip_prefix("Base.").unwrap_or(&callee.name),
            arg_types(first),
            arg_types(second)
        )
    })
}

/// The argument types of `inst` as written in a message: `` `Val{1}` `` for one argument,
/// `` `(Float64, Int64)` `` for several.
fn arg_types(inst: &Instance) -> String {
    match &inst.args[..] {
        [t] => format!("`{}`", visible(&t.to_string())),
        ts => {
            let ts: Vec<String> = ts.iter().map(|t| visible(&t.to_string())).collect();
            format!("`({})`", ts.join(", "))
        }
    }
}

impl InferredFunction {
    /// Refuse the body's call of `callee` with `message`: an `unsupported` error at the call
    /// (at the function where no statement invokes it), and `callee` dropped from the callees,
    /// so that nothing types it afterwards.
    pub fn refuse_call(&mut self, callee: &Instance, message: String) {
        self.callees.retain(|c| **c != *callee);
        let span = self
            .func
            .values
            .iter()
            .find_map(|d| match &d.kind {
                ValueKind::Stmt(s) if matches!(&s.op, Op::Invoke(i) if **i == *callee) => {
                    Some(d.span)
                }
                _ => None,
            })
            .unwrap_or(self.func.span);
        let error = TypeError {
            span,
            code: "unsupported",
            message,
        };
        if !self.errors.contains(&error) {
            self.errors.push(error);
        }
    }
}

/// The chain of specialisations from the root to `inst`, outermost first, by following
/// `parent` (who first called each).
pub(crate) fn chain_to<'a>(
    parent: &'a std::collections::BTreeMap<Arc<Instance>, Arc<Instance>>,
    inst: &'a Arc<Instance>,
) -> Vec<&'a Instance> {
    let mut chain = vec![&**inst];
    let mut at = inst;
    while let Some(p) = parent.get(at) {
        chain.push(p);
        at = p;
    }
    chain.reverse();
    chain
}

#[cfg(test)]
mod tests {
    use super::*;
    use zy_ir::Type;

    /// `h` called on a tuple of `n` numbers.
    fn tuple_of(n: usize) -> Instance {
        Instance {
            name: "h".into(),
            method: 0,
            args: Arc::from([Type::tuple(vec![Type::Float64; n])]),
        }
    }

    #[test]
    fn refuses_the_call_past_the_bound_and_names_the_first_types() {
        let chain: Vec<Instance> = (1..=MAX_CHAIN_SPECIALISATIONS).map(tuple_of).collect();
        let below = &chain[..MAX_CHAIN_SPECIALISATIONS - 1];
        let last = tuple_of(MAX_CHAIN_SPECIALISATIONS);
        assert_eq!(growing_recursion(below, &last), None);
        let message =
            growing_recursion(&chain, &tuple_of(MAX_CHAIN_SPECIALISATIONS + 1)).unwrap_or_default();
        assert!(
            message.starts_with(
                "unsupported: recursion through `h` with a new argument type at every call \
                 (`Tuple{Float64}`, `Tuple{Float64, Float64}`, ...)"
            ),
            "{message}"
        );
    }

    #[test]
    fn a_callee_already_in_the_chain_is_a_fixpoint_not_a_refusal() {
        let chain: Vec<Instance> = (1..=100).map(tuple_of).collect();
        assert_eq!(growing_recursion(&chain, &tuple_of(7)), None);
    }

    #[test]
    fn other_methods_and_functions_do_not_count() {
        let mut chain: Vec<Instance> = (1..=100).map(tuple_of).collect();
        for inst in &mut chain {
            inst.method = 1;
        }
        assert_eq!(growing_recursion(&chain, &tuple_of(200)), None);
    }
}
