//! Parse, lower, infer, differentiate and run arbitrary input. Every stage must return (a
//! result or errors), never panic, hang or report an internal error; the value the gradient
//! driver computes must be the value of the plain call; and where the call is smooth in a
//! `Float64` argument (or element of one) and the input has no `rrule`, the gradient must
//! match finite differences.
//!
//! Every function (and top-level closure binding) of at most 3 arguments is called on argument
//! tuples built from `Float64`, `Int64`, `Vector{Float64}`, `Matrix{Float64}` and tuples, and
//! from the first structs the input defines: each tuple is written in Julia, as a function of
//! no arguments added to the input's items, so that its values and types come from the
//! pipeline itself.
//!
//! The stages above run without the bundled prelude, so then the same calls run through
//! `zy_ide` (the CLI's `eval` and `grad`, both engines) with it: see [`host`].
#![no_main]

use std::sync::Arc;
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use zy_interp::fd::{Fd, Verdict};
use zy_interp::{Limits, Value};
use zy_ir::{Instance, Program, Type, TypedProgram};

mod host;

/// The most arguments a function may take for the target to try calling it.
const MAX_ARITY: usize = 3;
/// How many of the input's structs become arguments.
const MAX_STRUCTS: usize = 2;
/// Prefix of the functions added to the input: argument tuples, values of bindings.
const ADDED: &str = "zy_fuzz_";
/// One run of the interpreter (plain call or gradient).
const RUN_TIME: Duration = Duration::from_millis(20);
/// All the calls of one input.
const INPUT_TIME: Duration = Duration::from_millis(400);
/// The deepest call stack of a run.
const MAX_DEPTH: usize = 200;

/// The argument tuples tried for functions of `n` arguments, each argument a Julia expression,
/// given the argument values of each kind (scalars, arrays, tuples, then struct values).
fn tuples(n: usize, kinds: &[String]) -> Vec<Vec<String>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out: Vec<Vec<String>> = kinds.iter().map(|k| vec![k.clone(); n]).collect();
    if n >= 2 {
        let mixed: [&[&str]; 3] = [
            &["[0.5, -1.5]", "1.5", "-0.25"],
            &["[1.0 2.0; -0.5 3.0]", "[0.5, -1.5]", "2.0"],
            &["1.5", "3", "0.5"],
        ];
        out.extend(
            mixed
                .iter()
                .map(|parts| parts[..n].iter().map(|p| p.to_string()).collect()),
        );
    }
    out
}

/// An argument tuple as a Julia tuple expression.
fn tuple_text(parts: &[String]) -> String {
    match parts {
        [single] => format!("({single},)"),
        _ => format!("({})", parts.join(", ")),
    }
}

/// The values of each kind: plain ones, then two of each struct (`Float64` and
/// `Vector{Float64}` fields).
fn kinds(file: &zy_syntax::ast::SourceFile) -> Vec<String> {
    let mut kinds: Vec<String> = [
        "1.5",
        "3",
        "[0.5, -1.5]",
        "[1.0 2.0; -0.5 3.0]",
        "(1.5, 2.5)",
    ]
    .map(String::from)
    .to_vec();
    let structs = file.items.iter().filter_map(|item| match item {
        zy_syntax::ast::Item::Struct(s) => Some(s),
        _ => None,
    });
    for s in structs.take(MAX_STRUCTS) {
        for field in ["1.5", "[0.5, -1.5]"] {
            let fields = vec![field; s.fields.len()].join(", ");
            kinds.push(format!("{}({fields})", s.name));
        }
    }
    kinds
}

/// One argument tuple: the typed function that builds it, and its types.
struct ArgTuple {
    builder: Arc<Instance>,
    program: TypedProgram,
    arity: usize,
    types: Vec<Type>,
}

impl ArgTuple {
    /// Fresh argument values (a run may mutate its arguments).
    fn values(&self, deadline: Instant) -> Option<Vec<Value>> {
        match zy_interp::run(&self.program, &self.builder, Vec::new(), &limits(deadline)) {
            Ok(Value::Tuple(values)) => Some(values.to_vec()),
            Ok(_) => None,
            Err(e) => {
                check("arguments", &e.message);
                None
            }
        }
    }
}

/// The limits of one run, within the time left for the input.
fn limits(input_deadline: Instant) -> Limits {
    Limits {
        max_depth: MAX_DEPTH,
        deadline: Some((Instant::now() + RUN_TIME).min(input_deadline)),
        ..Limits::default()
    }
}

/// Fails the run if `message` reports a broken invariant rather than a user error.
fn check(stage: &str, message: &str) {
    assert!(!message.starts_with("internal error"), "{stage}: {message}");
}

/// Types the builder of each argument tuple; those that fail (a struct whose fields reject the
/// values given) are left out.
fn arg_tuples(program: &Program, by_arity: &[Vec<Vec<String>>]) -> Vec<ArgTuple> {
    let mut out = Vec::new();
    let mut index = 0;
    for (arity, tuples) in by_arity.iter().enumerate() {
        for _ in tuples {
            let name = format!("{ADDED}args_{index}");
            index += 1;
            let Some((builder, program)) = infer(program, &name, &[]) else {
                continue;
            };
            let Some(Type::Tuple(types)) = program.functions.get(&builder).map(|f| f.ret.clone())
            else {
                continue;
            };
            out.push(ArgTuple {
                builder,
                program,
                arity,
                types: types.to_vec(),
            });
        }
    }
    out
}

/// A name to call and the arities to try.
struct Callable {
    name: String,
    arities: Vec<usize>,
    /// For a top-level binding (which may hold a closure, passed as a hidden first argument):
    /// the added function that returns its value.
    value: Option<String>,
}

/// The callables of `program`: generic functions with every method's arity, top-level
/// bindings with 1 and 2 (`bindings` are the added functions returning their values).
fn callables(program: &Program, bindings: &[(String, String)]) -> Vec<Callable> {
    let mut out = Vec::new();
    for (name, gf) in &program.functions {
        if name.starts_with(ADDED) || name.starts_with('(') {
            continue;
        }
        let mut arities: Vec<usize> = gf.methods.iter().map(|m| m.sig.len()).collect();
        if arities.iter().any(|&n| n > MAX_ARITY) {
            continue;
        }
        arities.sort_unstable();
        arities.dedup();
        out.push(Callable {
            name: name.to_string(),
            arities,
            value: None,
        });
    }
    for (name, value) in bindings {
        out.push(Callable {
            name: name.clone(),
            arities: vec![1, 2],
            value: Some(value.clone()),
        });
    }
    out
}

/// The value of the added function `name` of no arguments.
fn value_of(program: &Program, name: &str, deadline: Instant) -> Option<Value> {
    let (inst, typed) = infer(program, name, &[])?;
    match zy_interp::run(&typed, &inst, Vec::new(), &limits(deadline)) {
        Ok(value) => Some(value),
        Err(e) => {
            check("binding", &e.message);
            None
        }
    }
}

/// Infers `name(types...)`; a type error is a user error unless it is an internal one.
fn infer(program: &Program, name: &str, types: &[Type]) -> Option<(Arc<Instance>, TypedProgram)> {
    match zy_infer::infer_entry(program, name, types) {
        Ok(typed) => Some(typed),
        Err(errors) => {
            for e in errors {
                check("infer", &e.message);
            }
            None
        }
    }
}

/// Is this error the run's limits (time, stack depth) rather than the program's own?
fn is_limit(e: &zy_interp::RuntimeError) -> bool {
    e.message.starts_with("InterruptException") || e.message == "StackOverflowError"
}

/// Calls `name` on one argument tuple: infer, expand the differentiation builtins, run, build
/// the gradient driver and run it; the driver's value must be the call's.
fn call(program: &Program, callable: &Callable, tuple: &ArgTuple, deadline: Instant) {
    let name = &callable.name;
    let Some((inst, typed)) = infer(program, name, &tuple.types) else {
        return;
    };
    // A closure held by a binding is its call method's first argument.
    let callee = match &callable.value {
        Some(value) if inst.args.len() == tuple.types.len() + 1 => {
            let Some(callee) = value_of(program, value, deadline) else {
                return;
            };
            Some(callee)
        }
        _ => None,
    };
    let arguments = || {
        let mut values = tuple.values(deadline)?;
        values.splice(0..0, callee.clone());
        Some(values)
    };
    let expanded = match zy_ad::expand_with_rrules(program, &typed) {
        Ok(expanded) => expanded,
        Err(e) => return check("expand", &e.message),
    };
    let Some(args) = arguments() else {
        return;
    };
    let value = zy_interp::run(&expanded, &inst, args, &limits(deadline));
    if let Err(e) = &value {
        check("run", &e.message);
    }
    let (driver, gradient_program) =
        match zy_ad::gradient_program_with_rrules(program, &expanded, &inst) {
            Ok(built) => built,
            Err(e) => return check("gradient_program", &e.message),
        };
    let Some(args) = arguments() else {
        return;
    };
    let gradient = zy_interp::run(&gradient_program, &driver, args, &limits(deadline));
    let call = format!("{name}{:?}", tuple.types);
    match (&value, &gradient) {
        (_, Err(e)) => check("gradient", &e.message),
        (Ok(value), Ok(Value::Tuple(parts))) if parts.len() == 2 => {
            let (plain, through_ad) = (zy_interp::show(value), zy_interp::show(&parts[0]));
            assert_eq!(
                plain, through_ad,
                "{call}: the gradient driver's value differs"
            );
            // An in-source `rrule` may disagree with the code on purpose (or by mistake:
            // `zy-analyze check` reports that), and code that branches on a `Float64` is
            // differentiated piece by piece (60 bisection steps towards `sqrt(x)` have
            // derivative `1/sqrt(x)`, not `1/(2 sqrt(x))`): neither is checked.
            let derived =
                !program.functions.contains_key("rrule") && !branches_on_floats(&expanded);
            if let (true, Value::F64(y), Value::Tuple(gradient)) = (derived, value, &parts[1]) {
                let plain_call = |args: Vec<Value>| match zy_interp::run(
                    &expanded,
                    &inst,
                    args,
                    &limits(deadline),
                ) {
                    Ok(Value::F64(y)) => Some(y),
                    _ => None,
                };
                check_derivatives(*y, gradient, &arguments, &plain_call, &call);
            }
        }
        (Err(e), Ok(Value::Tuple(parts))) if parts.len() == 2 => assert!(
            is_limit(e),
            "{call}: the call throws `{}`, its gradient driver returns {}",
            e.message,
            zy_interp::show(&parts[0])
        ),
        (_, Ok(other)) => panic!(
            "{call}: the gradient driver returned {}",
            zy_interp::show(other)
        ),
    }
}

/// Does a conditional branch of `program` test a condition computed from a `Float64` (at most
/// three statements back)?
fn branches_on_floats(program: &TypedProgram) -> bool {
    fn from_floats(f: &zy_ir::Function, cond: &zy_ir::Operand, depth: u32) -> bool {
        let zy_ir::Operand::Value(v) = cond else {
            return false;
        };
        let Some(stmt) = f.stmt(*v) else {
            return false;
        };
        stmt.args.iter().any(|arg| match f.operand_ty(arg) {
            Type::Float64 => true,
            Type::Bool => depth > 0 && from_floats(f, arg, depth - 1),
            _ => false,
        })
    }
    program.functions.values().any(|f| {
        f.blocks.iter().any(|b| match &b.term {
            zy_ir::Terminator::Branch { cond, .. } => from_floats(f, cond, 3),
            _ => false,
        })
    })
}

/// Where a `Float64` component of the arguments is: argument `arg`, then element `elem` of
/// an array or tuple argument (`None` for a scalar).
#[derive(Clone, Copy, Debug)]
struct Component {
    arg: usize,
    elem: Option<usize>,
}

/// The `Float64` components of `args`, each with its value.
fn components(args: &[Value]) -> Vec<(Component, f64)> {
    let mut out = Vec::new();
    for (arg, value) in args.iter().enumerate() {
        match value {
            Value::F64(x) => out.push((Component { arg, elem: None }, *x)),
            Value::Array(array) => {
                if let zy_interp::ArrayData::F64(xs) = &array.borrow().data {
                    for (elem, x) in xs.iter().enumerate() {
                        out.push((
                            Component {
                                arg,
                                elem: Some(elem),
                            },
                            *x,
                        ));
                    }
                }
            }
            Value::Tuple(parts) => {
                for (elem, part) in parts.iter().enumerate() {
                    if let Value::F64(x) = part {
                        out.push((
                            Component {
                                arg,
                                elem: Some(elem),
                            },
                            *x,
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// `args` with `component` set to `x`.
fn with_component(mut args: Vec<Value>, component: Component, x: f64) -> Option<Vec<Value>> {
    let value = args.get_mut(component.arg)?;
    match (value, component.elem) {
        (value @ Value::F64(_), None) => *value = Value::F64(x),
        (Value::Array(array), Some(elem)) => match &mut array.borrow_mut().data {
            zy_interp::ArrayData::F64(xs) => *xs.get_mut(elem)? = x,
            _ => return None,
        },
        (Value::Tuple(parts), Some(elem)) => {
            let mut parts = parts.to_vec();
            *parts.get_mut(elem)? = Value::F64(x);
            *args.get_mut(component.arg)? = Value::tuple(parts);
        }
        _ => return None,
    }
    Some(args)
}

/// The gradient's entry for `component` (`nothing` is a zero).
fn gradient_at(gradient: &[Value], component: Component) -> Option<f64> {
    match (gradient.get(component.arg)?, component.elem) {
        (Value::Nothing, _) => Some(0.0),
        (Value::F64(g), None) => Some(*g),
        (Value::Array(array), Some(elem)) => match &array.borrow().data {
            zy_interp::ArrayData::F64(gs) => gs.get(elem).copied(),
            _ => None,
        },
        (Value::Tuple(parts), Some(elem)) => match parts.get(elem)? {
            Value::F64(g) => Some(*g),
            Value::Nothing => Some(0.0),
            _ => None,
        },
        _ => None,
    }
}

/// Compares the gradient of a call of value `y` with finite differences ([`Fd::FUZZ`]: one-sided,
/// judged where the two differences agree, so the call is smooth there, and everything is
/// finite) in each `Float64` component of its arguments, when the value is moderate.
fn check_derivatives(
    y: f64,
    gradient: &[Value],
    arguments: &dyn Fn() -> Option<Vec<Value>>,
    plain_call: &dyn Fn(Vec<Value>) -> Option<f64>,
    call: &str,
) {
    let Some(args) = arguments() else {
        return;
    };
    if !y.is_finite() || y.abs() > 1e6 {
        return;
    }
    for (component, x) in components(&args) {
        let Some(g) = gradient_at(gradient, component) else {
            continue;
        };
        let at = |d: f64| -> Result<f64, ()> {
            let moved = with_component(arguments().ok_or(())?, component, x + d).ok_or(())?;
            plain_call(moved).ok_or(())
        };
        // Judged only where the call is smooth (its one-sided differences agree), and finite.
        if let Ok(Verdict::Differs { fd }) = Fd::FUZZ.check(g, x, Some(y), at) {
            panic!("{call}: derivative in {component:?} is {g}, finite differences give {fd}");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut file = zy_syntax::parse_file(&text);
    let kinds = kinds(&file);
    let by_arity: Vec<Vec<Vec<String>>> = (0..=MAX_ARITY).map(|n| tuples(n, &kinds)).collect();
    let mut builders: String = by_arity
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, tuple)| format!("{ADDED}args_{i}() = {}\n", tuple_text(tuple)))
        .collect();
    let bindings: Vec<(String, String)> = file
        .items
        .iter()
        .filter_map(|item| match item {
            zy_syntax::ast::Item::Global(g) => Some(g.name.clone()),
            _ => None,
        })
        .enumerate()
        .map(|(i, name)| (name, format!("{ADDED}value_{i}")))
        .collect();
    for (name, value) in &bindings {
        builders.push_str(&format!("{value}() = {name}\n"));
    }
    let extra = zy_syntax::parse_file(&builders);
    assert_eq!(extra.errors, vec![], "{builders}");
    file.items.extend(extra.items);
    let program = zy_lower::lower_file(0, &file).program;
    let callables = callables(&program, &bindings);
    let deadline = Instant::now() + INPUT_TIME;
    let tuples = arg_tuples(&program, &by_arity);
    'engines: for callable in &callables {
        for tuple in tuples
            .iter()
            .filter(|t| callable.arities.contains(&t.arity))
        {
            if Instant::now() >= deadline {
                break 'engines;
            }
            call(&program, callable, tuple, deadline);
        }
    }
    // The same calls through the whole pipeline, prelude included.
    let host = host::Host::new(&text);
    let deadline = Instant::now() + INPUT_TIME;
    for callable in &callables {
        for &arity in &callable.arities {
            for args in &by_arity[arity] {
                if Instant::now() >= deadline {
                    return;
                }
                host.call(&callable.name, args, deadline);
            }
        }
    }
});
