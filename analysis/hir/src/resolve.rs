//! Name resolution of one lowered item in its scope ([`crate::scope`]): the names it defines
//! become qualified by its module (`f` in `module M` defines `M.f`; `Base.sum(x::T) = ...` and
//! an imported `sum` add methods to `Base.sum`), and every free name its IR refers to (functions
//! called or used as values, bindings, types in signatures and fields, `M.f` written with a
//! module) becomes the qualified name of the definition it means there. Lowering leaves names
//! as written, so it stays independent of the other files; inference sees qualified names only.
//! A binding that top-level code zy does not run may change is an error where it is read.

use std::sync::Arc;

use zy_ir::{Const, Function, Name, Op, Operand, TypeExpr, ValueKind};
use zy_lower::LoweredItem;

use crate::scope_names::ModuleNames;

/// What the error raised where a function reads a binding that top-level code zy does not run
/// changes says of it: the run's value there is unknown to zy, not an exception of Julia's.
pub const UNKNOWN_BINDING: &str = "is changed by top-level code that zy does not run";

/// `item` (written in `module`) with its definitions qualified (the structs of a library module
/// marked as the library's) and its free names resolved.
pub fn resolve_item(item: &LoweredItem, module: &str, names: &ModuleNames) -> LoweredItem {
    resolve_owned(item.clone(), module, names)
}

/// [`resolve_item`] of an item of its own (a library item just read back from the build's
/// packing, [`crate::unpack`]): bodies that nothing else holds are resolved in place, not
/// copied first.
pub(crate) fn resolve_owned(
    mut out: LoweredItem,
    module: &str,
    names: &ModuleNames,
) -> LoweredItem {
    let name = |n: &str| names.resolve(module, n);
    for (generic, method) in &mut out.methods {
        *generic = names.definition(module, generic);
        let bound: Vec<&str> = method.where_params.iter().map(|p| &**p).collect();
        for t in method.sig.iter_mut().flatten() {
            resolve_type(t, &bound, &name);
        }
        for (_, t) in &mut method.where_bounds {
            resolve_type(t, &bound, &name);
        }
        // A `where` variable in the body is the type it binds, not a global.
        resolve_body(Arc::make_mut(&mut method.body), module, names, &bound);
    }
    let library = crate::prelude::is_prelude_module(module.split('.').next().unwrap_or(module));
    for s in &mut out.structs {
        s.name = names.definition(module, &s.name);
        s.library = library;
        let bound: Vec<&str> = s.params.iter().map(|p| &**p).collect();
        for t in s.fields.iter_mut().filter_map(|(_, t)| t.as_mut()) {
            resolve_type(t, &bound, &name);
        }
        for (_, t) in &mut s.param_bounds {
            resolve_type(t, &bound, &name);
        }
        if let Some(t) = &mut s.supertype {
            resolve_type(t, &bound, &name);
        }
        if let Some(t) = &mut s.alias {
            resolve_type(t, &bound, &name);
        }
    }
    for g in &mut out.globals {
        g.name = names.definition(module, &g.name);
        resolve_body(Arc::make_mut(&mut g.body), module, names, &[]);
    }
    out
}

/// The type names of `t` resolved, except the type variables `bound`.
fn resolve_type(t: &mut TypeExpr, bound: &[&str], name: &impl Fn(&str) -> Name) {
    match t {
        TypeExpr::Named { name: n, params } => {
            if !bound.contains(&&**n) {
                *n = name(n);
            }
            for p in params {
                resolve_type(p, bound, name);
            }
        }
        TypeExpr::Typeof(n) => *n = name(n),
    }
}

/// `f`'s free names resolved, in place.
fn resolve_body(f: &mut Function, module: &str, names: &ModuleNames, type_vars: &[&str]) {
    let resolve = |n: &str| -> Name {
        if n.contains('{') {
            resolve_type_text(n, type_vars, &|t| names.resolve(module, t))
        } else {
            names.resolve(module, n)
        }
    };
    let operand = |a: &mut Operand| {
        if let Operand::Const(Const::Func(n)) = a {
            *n = resolve(n);
        }
    };
    // `M.f`: a field of a module's binding is that module's definition (and `A.B.f`: a field
    // of a module that is itself a field names a module in turn).
    let mut modules: Vec<Option<Name>> = f
        .values
        .iter()
        .map(|v| match &v.kind {
            ValueKind::Stmt(s) => match &s.op {
                Op::Global(n) => names.module_path(module, n),
                _ => None,
            },
            ValueKind::Param { .. } => None,
        })
        .collect();
    let mut module_loads = Vec::new();
    for (i, v) in f.values.iter_mut().enumerate() {
        let ValueKind::Stmt(s) = &mut v.kind else {
            continue;
        };
        if let (Op::Call(n), [Operand::Value(base), Operand::Const(Const::Symbol(field))]) =
            (&s.op, s.args.as_slice())
        {
            if &**n == "getfield" || &**n == zy_lower::GETPROPERTY {
                if let Some(Some(m)) = modules.get(base.index()) {
                    // A submodule of `m` (`A.B` in `A.B.f`), else `m`'s binding.
                    let inner = names.module_path(m, field);
                    let target = inner.clone().unwrap_or_else(|| names.resolve(m, field));
                    module_loads.push(*base);
                    if let Some(slot) = modules.get_mut(i) {
                        *slot = inner.or_else(|| names.module_path(module, &target));
                    }
                    s.op = Op::Global(target);
                    s.args.clear();
                }
            }
        }
        if let (Op::Call(n), [Operand::Const(Const::Symbol(x))]) = (&s.op, &mut s.args[..]) {
            if &**n == zy_ir::ISDEFINED_GLOBAL {
                // A module is defined, and is no value inference could look up.
                let is_module = names.module_path(module, x).is_some();
                *x = resolve(x);
                if is_module {
                    s.op = Op::Call(names.resolve(module, "identity"));
                    s.args = vec![Operand::Const(Const::Bool(true))];
                }
                continue;
            }
        }
        match &mut s.op {
            Op::Call(n) if type_vars.contains(&&**n) => {}
            Op::Call(n) => match property_default(names, n) {
                Some(default) => *n = default.into(),
                None => *n = names.resolve(module, n),
            },
            Op::Global(n) if type_vars.contains(&&**n) => {}
            Op::Global(n) => {
                *n = resolve(n);
                if let Some(at) = names.changed_by_skipped_code(n) {
                    let message =
                        format!("`{n}` {UNKNOWN_BINDING} ({at}): its value here is unknown");
                    s.op = Op::Call("error".into());
                    s.args = vec![Operand::Const(Const::Str(message.into()))];
                }
            }
            _ => {}
        }
        s.args.iter_mut().for_each(operand);
    }
    // A module is not a value: its loads that served only `M.f` go.
    if !module_loads.is_empty() {
        let used = used_values(f);
        for b in &mut f.blocks {
            b.stmts
                .retain(|v| !module_loads.contains(v) || used.contains(v));
        }
    }
    for b in &mut f.blocks {
        b.term.operands_mut().into_iter().for_each(operand);
    }
}

/// Does `item` read one of the bindings `names` where resolution refused it, as changed by
/// top-level code that zy does not run?
pub(crate) fn refuses_any(item: &LoweredItem, names: &[Name]) -> bool {
    let bodies = item.methods.iter().map(|(_, m)| &m.body);
    let bodies = bodies.chain(item.globals.iter().map(|g| &g.body));
    bodies.flat_map(|b| &b.values).any(|v| match &v.kind {
        ValueKind::Stmt(s) => match (&s.op, s.args.as_slice()) {
            (Op::Call(f), [Operand::Const(Const::Str(m))]) if &**f == "error" => names
                .iter()
                .any(|n| m.starts_with(&format!("`{n}` {UNKNOWN_BINDING}"))),
            _ => false,
        },
        ValueKind::Param { .. } => false,
    })
}

/// `getfield` or `setfield!` for the callee of `x.f` or `x.f = v` (`Base.getproperty`,
/// `Base.setproperty!`) where no module defines a method of it: Julia's defaults, decided here
/// once rather than by dispatch at every field. `None` for any other callee.
pub(crate) fn property_default(names: &ModuleNames, callee: &str) -> Option<&'static str> {
    let default = match callee {
        zy_lower::GETPROPERTY => "getfield",
        zy_lower::SETPROPERTY => "setfield!",
        _ => return None,
    };
    (!names.defines_qualified(callee)).then_some(default)
}

/// A type written as a value (`Rational{Int64}`, `Vector{Complex{Float64}}`: the syntax's text
/// of it) with each name in it resolved, except the type variables `bound`.
pub(crate) fn resolve_type_text(text: &str, bound: &[&str], name: &impl Fn(&str) -> Name) -> Name {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let is_name = word.starts_with(|c: char| c.is_alphabetic() || c == '_');
        // `:a` in `Val{:a}` is a symbol, not a name (`<:` is a bound).
        let symbol = out.ends_with(':') && !out.ends_with("<:");
        if is_name && !symbol && !bound.contains(&word.as_str()) {
            out.push_str(&name(word));
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in text.chars() {
        // A field's name in `@NamedTuple{a::Float64}`: a name only where it is followed by `:`.
        if c == ':' && !word.is_empty() {
            out.push_str(&word);
            word.clear();
            out.push(c);
            continue;
        }
        if matches!(c, '{' | '}' | ',' | ' ' | '<' | ':' | '(' | ')') {
            flush(&mut word, &mut out);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    out.into()
}

/// The values some statement or terminator reads.
fn used_values(f: &Function) -> rustc_hash::FxHashSet<zy_ir::Value> {
    let stmts = f
        .blocks
        .iter()
        .flat_map(|b| &b.stmts)
        .filter_map(|&v| f.stmt(v));
    let terms = f.blocks.iter().flat_map(|b| b.term.operands());
    stmts
        .flat_map(|s| s.args.iter())
        .chain(terms)
        .filter_map(Operand::as_value)
        .collect()
}
