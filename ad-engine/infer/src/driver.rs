//! The worklist fixpoint over [`crate::infer_instance`]: infer the entry, then every callee,
//! re-inferring callers whenever a callee's return type grows.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use zy_ir::{callable_name, Instance, Program, Span, Type, TypedProgram};

use crate::chain::{chain_to, growing_recursion, oversized_call};
use crate::error::{no_method, Fail, TypeError};
use crate::{
    dispatch, infer_instance_with_body, InferredFunction, Signatures, GLOBAL_METHOD, MAX_INSTANCES,
};

/// The specialisation of the generic function `name` on `args`, typed together with everything
/// it reaches (callees, synthesised functions, globals).
pub fn infer_entry(
    program: &Program,
    name: &str,
    args: &[Type],
) -> Result<(Arc<Instance>, TypedProgram), Vec<TypeError>> {
    if !program.functions.contains_key(name) && program.globals.contains_key(name) {
        return call_global(program, name, args);
    }
    // Entry errors point at the function's first definition, if there is one.
    let span = program
        .functions
        .get(name)
        .and_then(|gf| gf.methods.first())
        .map_or(Span::default(), |m| m.span);
    let root = entry(program, name, args).map_err(|f| vec![f.at(span)])?;
    solve(program, root)
}

/// `name(args...)` where `name` is a top-level binding holding a closure or callable struct:
/// the call's instance (its `args[0]` is the callee, the binding's value) together with the
/// binding's thunk in `TypedProgram::globals`.
fn call_global(
    program: &Program,
    name: &str,
    args: &[Type],
) -> Result<(Arc<Instance>, TypedProgram), Vec<TypeError>> {
    let thunk = Arc::new(Instance {
        name: name.into(),
        method: GLOBAL_METHOD,
        args: Arc::from([]),
    });
    let (_, globals) = solve(program, thunk)?;
    let Some(callee) = globals.globals.get(name).map(|f| f.ret.clone()) else {
        return Err(vec![Fail::undefined_in(name, program).at(Span::default())]);
    };
    let (root, mut typed) = match callee {
        Type::Function(_) | Type::Struct(_) => infer_call(program, &callee, args)?,
        t => {
            let fail = Fail::method(format!("MethodError: objects of type {t} are not callable"));
            return Err(vec![fail.at(Span::default())]);
        }
    };
    typed.globals.extend(globals.globals);
    typed.functions.extend(globals.functions);
    Ok((root, typed))
}

/// Calling a value of type `callee` (a function, closure or callable struct) on `args`.
pub fn infer_call(
    program: &Program,
    callee: &Type,
    args: &[Type],
) -> Result<(Arc<Instance>, TypedProgram), Vec<TypeError>> {
    match callee {
        Type::Function(n) => infer_entry(program, n, args),
        Type::Struct(s) => {
            let mut all = vec![callee.clone()];
            all.extend_from_slice(args);
            let name = dispatch::callable_for(&Signatures::default(), program, &s.name, &all)
                .unwrap_or_else(|| callable_name(&s.name));
            infer_entry(program, &name, &all)
        }
        t => Err(vec![Fail::method(format!(
            "MethodError: objects of type {t} are not callable"
        ))
        .at(Span::default())]),
    }
}

fn entry(program: &Program, name: &str, args: &[Type]) -> Result<Arc<Instance>, Fail> {
    let Some(gf) = program.functions.get(name) else {
        if program.structs.contains_key(name) || program.globals.contains_key(name) {
            return Err(no_method(name, args));
        }
        if crate::is_builtin(name) {
            return Err(Fail::unsupported(format!(
                "the builtin `{name}` as an entry point; define a function that calls it \
                 (`f(x) = {name}(x)`) and use that instead"
            )));
        }
        return Err(Fail::undefined_in(name, program));
    };
    let method = dispatch::select(&Signatures::default(), program, gf, args)?;
    Ok(Arc::new(Instance {
        name: gf.name.clone(),
        method,
        args: args.into(),
    }))
}

/// Re-inferences allowed per instance before declaring non-convergence.
const RUNS_PER_INSTANCE: usize = 64;

fn solve(
    program: &Program,
    root: Arc<Instance>,
) -> Result<(Arc<Instance>, TypedProgram), Vec<TypeError>> {
    let mut rets: BTreeMap<Arc<Instance>, Type> = BTreeMap::new();
    let mut results: BTreeMap<Arc<Instance>, InferredFunction> = BTreeMap::new();
    let mut dependents: BTreeMap<Arc<Instance>, BTreeSet<Arc<Instance>>> = BTreeMap::new();
    let mut queue = VecDeque::from([root.clone()]);
    let mut queued: BTreeSet<Arc<Instance>> = BTreeSet::from([root.clone()]);
    // Who first called each instance: the chains that [`growing_recursion`] bounds.
    let mut parent: BTreeMap<Arc<Instance>, Arc<Instance>> = BTreeMap::new();
    let mut runs = 0usize;
    let signatures = Signatures::default();
    while let Some(inst) = queue.pop_front() {
        queued.remove(&inst);
        runs += 1;
        if runs > RUNS_PER_INSTANCE * (results.len() + 1) + 1000 {
            let fail = Fail::unsupported("type inference did not converge (recursion)");
            return Err(vec![fail.at(Span::default())]);
        }
        let mut r = infer_instance_with_body(program, &signatures, &inst, None, &mut |i| {
            rets.get(i).cloned().unwrap_or(Type::Bottom)
        });
        for c in r.callees.clone() {
            if !rets.contains_key(&c) && !parent.contains_key(&c) && c != root {
                let why = oversized_call(&inst, &c)
                    .or_else(|| growing_recursion(chain_to(&parent, &inst), &c));
                if let Some(why) = why {
                    r.refuse_call(&c, why);
                    continue;
                }
                parent.insert(c.clone(), inst.clone());
            }
            dependents
                .entry(c.clone())
                .or_default()
                .insert(inst.clone());
            if !results.contains_key(&c) && !queued.contains(&c) && !rets.contains_key(&c) {
                if results.len() + queued.len() >= MAX_INSTANCES {
                    let fail = Fail::unsupported(format!(
                        "more than {MAX_INSTANCES} specialisations (unbounded specialisation?)"
                    ));
                    return Err(vec![fail.at(r.func.span)]);
                }
                queued.insert(c.clone());
                queue.push_back(c);
            }
        }
        let ret = r.func.ret.clone();
        results.insert(inst.clone(), r);
        if rets.insert(inst.clone(), ret.clone()) != Some(ret) {
            for d in dependents.get(&inst).into_iter().flatten() {
                if queued.insert(d.clone()) {
                    queue.push_back(d.clone());
                }
            }
        }
    }
    collect(root, results)
}

/// Everything reachable from `root` in the final results (earlier rounds may have met callees
/// that the final bodies no longer call), with their errors.
fn collect(
    root: Arc<Instance>,
    mut results: BTreeMap<Arc<Instance>, InferredFunction>,
) -> Result<(Arc<Instance>, TypedProgram), Vec<TypeError>> {
    let mut program = TypedProgram::default();
    let mut errors: Vec<TypeError> = Vec::new();
    let mut seen = BTreeSet::from([root.clone()]);
    let mut queue = VecDeque::from([root.clone()]);
    while let Some(inst) = queue.pop_front() {
        let Some(r) = results.remove(&inst) else {
            continue;
        };
        for e in r.errors {
            if !errors.contains(&e) {
                errors.push(e);
            }
        }
        for c in r.callees {
            if seen.insert(c.clone()) {
                queue.push_back(c);
            }
        }
        if inst.method == GLOBAL_METHOD {
            program.globals.insert(inst.name.clone(), Arc::new(r.func));
        } else {
            program.functions.insert(inst, Arc::new(r.func));
        }
    }
    if errors.is_empty() {
        Ok((root, program))
    } else {
        Err(errors)
    }
}
