//! Recursions whose argument types change at every call (`h(::Val{N}) where N = h(Val(N + 1))`,
//! `p` and `q` calling each other on ever larger tuples): every call is a new specialisation,
//! so typing one inside its caller would never end. Such types grow (a longer tuple, a larger
//! `Val`), and a call whose argument types pass [`MAX_ARGUMENT_SIZE`] is refused by name, where
//! Julia would dispatch at run time (and recurse until `StackOverflowError` if nothing stops
//! it): a bound on the call alone, so whether a specialisation is refused does not depend on
//! which caller typed it first. A recursion whose types change without growing is refused
//! after [`MAX_CHAIN_SPECIALISATIONS`] specialisations of one method in one chain of calls.

use std::sync::Arc;

use zy_ir::{Instance, Op, ParamValue, Type, ValueKind};

use crate::error::visible;
use crate::{InferredFunction, TypeError};

/// The largest argument types a call may have: integer parameters (`Val{N}`) at most this
/// large in magnitude, symbols at most this long, tuples of at most [`MAX_ARGUMENT_PARTS`]
/// elements. A countdown on `Val` or a recursion on tuples stays below it; one growing a type
/// at every call reaches it within a second (typing a level takes about 3 ms in a debug
/// build).
pub const MAX_ARGUMENT_SIZE: usize = 256;

/// The most elements the tuples of a call's argument types may hold together: fewer than
/// [`MAX_ARGUMENT_SIZE`], since typing a call on a tuple costs more the longer it is.
pub const MAX_ARGUMENT_PARTS: usize = 128;

/// Specialisations of one method with different argument types that one chain of calls (each
/// typed inside its caller) may hold: the bound for a recursion whose types change without
/// growing past [`MAX_ARGUMENT_SIZE`].
pub const MAX_CHAIN_SPECIALISATIONS: usize = 2 * MAX_ARGUMENT_SIZE;

/// Why `caller` may not call `callee`: its argument types are larger than
/// [`MAX_ARGUMENT_SIZE`]. Named as a recursion when `caller` is another specialisation of
/// `callee`'s method.
pub fn oversized_call(caller: &Instance, callee: &Instance) -> Option<String> {
    let mut left = MAX_ARGUMENT_PARTS;
    if callee.args.iter().all(|t| within_size(t, &mut left)) {
        return None;
    }
    let name = callee.name.strip_prefix("Base.").unwrap_or(&callee.name);
    let why = format!(
        "zy types every call for its argument types and stops where their tuples hold \
         more than {MAX_ARGUMENT_PARTS} elements, or a type parameter or symbol passes \
         {MAX_ARGUMENT_SIZE} (Julia dispatches such calls at run time; one that never stops \
         ends in StackOverflowError)"
    );
    Some(
        if caller.name == callee.name && caller.method == callee.method {
            format!(
                "unsupported: recursion through `{name}` with a new argument type at every call \
                 (..., {}, {}): {why}",
                arg_types(caller),
                arg_types(callee)
            )
        } else {
            format!(
                "unsupported: a call of `{name}` with argument types {} larger than zy types, \
                 as a recursion making a new argument type at every call builds: {why}",
                arg_types(callee)
            )
        },
    )
}

/// Does `t` fit in what is `left` of [`MAX_ARGUMENT_PARTS`], which its tuples' elements use
/// up, its parameters and symbols each within [`MAX_ARGUMENT_SIZE`]? The fields of a struct
/// do not count: its definition fixes them, a recursion cannot grow them. Stops counting at
/// the bound, so it costs no more on a tuple that doubles at every call.
fn within_size(t: &Type, left: &mut usize) -> bool {
    let own = match t {
        Type::Param(ParamValue::Int(n)) => usize::try_from(n.unsigned_abs()).unwrap_or(usize::MAX),
        Type::Param(ParamValue::Symbol(s)) | Type::Symbol(s) => s.chars().count(),
        _ => 0,
    };
    if own > MAX_ARGUMENT_SIZE {
        return false;
    }
    let mut take = |n: usize| match left.checked_sub(n) {
        Some(l) => {
            *left = l;
            true
        }
        None => false,
    };
    match t {
        Type::Tuple(ts) | Type::Pullback(ts) => {
            take(ts.len()) && ts.iter().all(|t| within_size(t, left))
        }
        Type::NamedTuple(fs) => take(fs.len()) && fs.iter().all(|(_, t)| within_size(t, left)),
        Type::Struct(s) => s.params.iter().all(|t| within_size(t, left)),
        Type::Union(u) => u.members.iter().all(|t| within_size(t, left)),
        Type::Ref(t) | Type::Array(t, _) | Type::Adjoint(t) | Type::Stack(t) => {
            within_size(t, left)
        }
        _ => true,
    }
}

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
/// `` `(Float64, Int64)` `` for several, cut short after [`MESSAGE_TYPE_CHARS`] characters.
fn arg_types(inst: &Instance) -> String {
    let text = match &inst.args[..] {
        [t] => visible(&t.to_string()),
        ts => {
            let ts: Vec<String> = ts.iter().map(|t| visible(&t.to_string())).collect();
            format!("({})", ts.join(", "))
        }
    };
    match text.char_indices().nth(MESSAGE_TYPE_CHARS) {
        Some((at, _)) => format!("`{}...`", &text[..at]),
        None => format!("`{text}`"),
    }
}

/// The longest argument types a message writes out.
const MESSAGE_TYPE_CHARS: usize = 60;

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

    /// `h` called on one argument of type `t`.
    fn called_on(t: Type) -> Instance {
        Instance {
            name: "h".into(),
            method: 0,
            args: Arc::from([t]),
        }
    }

    #[test]
    fn a_call_is_refused_past_the_argument_size_whoever_calls() {
        let param = |n: i64| called_on(Type::Param(ParamValue::Int(n)));
        let bound = MAX_ARGUMENT_SIZE as i64;
        let other = Instance {
            name: "g".into(),
            ..param(0)
        };
        for caller in [&other, &param(bound)] {
            assert_eq!(oversized_call(caller, &param(bound)), None);
            assert_eq!(oversized_call(caller, &param(-bound)), None);
        }
        let own = oversized_call(&param(bound), &param(bound + 1)).unwrap_or_default();
        assert!(
            own.starts_with(
                "unsupported: recursion through `h` with a new argument type at every call \
                 (..., `256`, `257`)"
            ),
            "{own}"
        );
        let from_other = oversized_call(&other, &param(-bound - 1)).unwrap_or_default();
        assert!(
            from_other.starts_with("unsupported: a call of `h` with argument types `-257`"),
            "{from_other}"
        );
    }

    #[test]
    fn tuples_count_their_elements_wherever_they_are() {
        let caller = tuple_of(1);
        assert_eq!(oversized_call(&caller, &tuple_of(MAX_ARGUMENT_PARTS)), None);
        assert!(oversized_call(&caller, &tuple_of(MAX_ARGUMENT_PARTS + 1)).is_some());
        // Two tuples of half the bound each, nested in a third: their elements add up.
        let half = Type::tuple(vec![Type::Float64; MAX_ARGUMENT_PARTS / 2]);
        let both = called_on(Type::tuple(vec![half.clone(), half]));
        assert!(oversized_call(&caller, &both).is_some());
        let elements = |n| Arc::new(Type::tuple(vec![Type::Int64; n]));
        let array = |n| called_on(Type::Array(elements(n), 1));
        assert_eq!(oversized_call(&caller, &array(MAX_ARGUMENT_PARTS)), None);
        assert!(oversized_call(&caller, &array(MAX_ARGUMENT_PARTS + 1)).is_some());
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
