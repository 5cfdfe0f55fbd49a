//! Closures with keyword parameters (`(y; k = 2.0) -> k * y`, an inner `g(y; k) = ...`),
//! lowered as Julia lowers them: besides the call method on the closure's environment, a body
//! function taking the keywords positionally and the closure (`#f#1#kw(k, #self#, y)`) and a
//! default function per keyword (`#f#1#kw#k(#self#, y, earlier...)`), each reading the
//! captures from the closure it is passed. The call method binds every default and calls the
//! body; its [`Keywords`] record serves keyword calls as for a top-level method. An inner
//! function with optional positional parameters (`g(y, a = d)`) gets, as Julia lowers it, a
//! shorter call method per optional parameter left out, which computes the defaults (seeing
//! the parameters before them and the captures) and calls the closure with all of them.

use std::sync::Arc;

use zy_ir::{Block, Const, Function, Keywords, Method, Name, Op, Operand, TypeExpr, Value};
use zy_syntax::ast::{FunctionDef, TextRange};

use crate::body::{BodyLowerer, ItemCx};
use crate::closure::return_conversion;
use crate::item::{plain_method, signature, type_expr};
use crate::keywords::{default_value, KEYWORD_REST};
use crate::scope::VarId;

/// An argument of a function generated for a keyword closure.
enum Slot {
    /// The closure itself, whose fields are the captures.
    Env,
    /// A parameter, bound to a local unless `var` is `None`.
    Local {
        name: Name,
        var: Option<VarId>,
        ty: Option<TypeExpr>,
        range: TextRange,
    },
}

/// Lower closure `def` (named `name`, capturing `captures`) with keyword parameters: emit the
/// body and default functions and return the call method.
pub(crate) fn lower(
    cx: &mut ItemCx<'_>,
    def: &FunctionDef,
    name: &str,
    captures: &[VarId],
) -> Method {
    let key = def as *const FunctionDef;
    let positional_vars = cx.res.params.get(&key).cloned().unwrap_or_default();
    let keyword_vars = cx.res.keyword_params.get(&key).cloned().unwrap_or_default();
    let sig = signature(def);
    // The generated functions take a varargs tuple as it is.
    // `generated`: for the body and default functions, which bind the parameters and take a
    // varargs tuple as it is; else for the call method.
    let positional = |generated: bool| -> Vec<Slot> {
        def.params
            .iter()
            .zip(&sig)
            .enumerate()
            .map(|(i, (p, ty))| Slot::Local {
                name: p
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("#arg{}", i + 1))
                    .into(),
                var: if generated {
                    positional_vars.get(i).copied().flatten()
                } else {
                    None
                },
                ty: if p.varargs && generated {
                    None
                } else {
                    ty.clone()
                },
                range: p.range,
            })
            .collect()
    };
    let keyword_slot = |i: usize| {
        let k = &def.keywords[i];
        Slot::Local {
            name: k.name.as_str().into(),
            var: keyword_vars.get(i).copied(),
            ty: k.ty.as_ref().map(type_expr),
            range: k.range,
        }
    };
    let body_name = format!("{name}#kw");
    let mut parts = Parts { cx, def, name };
    let mut params = Vec::new();
    for (i, k) in def.keywords.iter().enumerate() {
        let default_name = format!("{body_name}#{}", k.name);
        let mut slots = vec![Slot::Env];
        slots.extend(positional(true));
        slots.extend((0..i).map(keyword_slot));
        let method = parts.part(
            &default_name,
            captures,
            slots,
            k.range,
            |lw, _, _| match &k.default {
                Some(d) => lw.expr(d),
                None => lw.expr(&default_value(k)),
            },
        );
        parts
            .cx
            .out
            .methods
            .push((default_name.as_str().into(), method));
        params.push((
            Name::from(k.name.as_str()),
            Name::from(default_name.as_str()),
        ));
    }
    let mut slots: Vec<Slot> = (0..def.keywords.len()).map(keyword_slot).collect();
    if let Some(rest) = &def.keyword_rest {
        slots.push(Slot::Local {
            name: rest.as_str().into(),
            var: keyword_vars.get(def.keywords.len()).copied(),
            ty: None,
            range: def.name_range,
        });
    }
    slots.push(Slot::Env);
    slots.extend(positional(true));
    let end = def.body.last().map_or(def.range, |e| e.range);
    let convert = return_conversion(def);
    let body = parts.part(&body_name, captures, slots, end, |lw, _, _| {
        lw.convert_return = convert;
        lw.seq(&def.body)
    });
    parts.cx.out.methods.push((body_name.as_str().into(), body));
    // The call method: `(#self#)(y) = #f#1#kw(#f#1#kw#k(#self#, y), #self#, y)`.
    let mut slots = vec![Slot::Env];
    slots.extend(positional(false));
    let mut call = parts.part(name, &[], slots, def.range, |lw, env, args| {
        let args = &args[1..];
        let mut values: Vec<Operand> = Vec::new();
        for ((_, default), kw) in params.iter().zip(&def.keywords) {
            let mut inputs = vec![Operand::from(env)];
            inputs.extend(args.iter().map(|&a| Operand::from(a)));
            inputs.extend(values.iter().cloned());
            let v = lw.call(default, inputs, kw.range);
            lw.name(&v, &kw.name);
            values.push(v);
        }
        if def.keyword_rest.is_some() {
            let empty = Operand::Const(Const::Tuple(Vec::new().into()));
            let nt = lw.call("namedtuple", vec![empty], def.name_range);
            values.push(lw.call(KEYWORD_REST, vec![nt], def.name_range));
        }
        values.push(env.into());
        values.extend(args.iter().map(|&a| Operand::from(a)));
        lw.call(&body_name, values, def.range)
    });
    call.keywords = Some(Arc::new(Keywords {
        body: body_name.as_str().into(),
        params,
        rest: def.keyword_rest.is_some(),
    }));
    call
}

/// The shorter call methods of closure `def` (named `name`, capturing `captures`) with
/// optional positional parameters: `(#self#)(y) = #self#(y, d)` for `g(y, a = d)`; none if it
/// has no optional parameter.
pub(crate) fn optional_methods(
    cx: &mut ItemCx<'_>,
    def: &FunctionDef,
    name: &str,
    captures: &[VarId],
) -> Vec<Method> {
    let vars = cx
        .res
        .params
        .get(&(def as *const FunctionDef))
        .cloned()
        .unwrap_or_default();
    let sig = signature(def);
    let required = def
        .params
        .iter()
        .take_while(|p| p.default.is_none())
        .count();
    let mut parts = Parts { cx, def, name };
    let mut methods = Vec::new();
    for k in required..def.params.len() {
        let mut slots = vec![Slot::Env];
        for (i, (p, ty)) in def.params[..k].iter().zip(&sig).enumerate() {
            slots.push(Slot::Local {
                name: p
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("#arg{}", i + 1))
                    .into(),
                var: vars.get(i).copied().flatten(),
                ty: ty.clone(),
                range: p.range,
            });
        }
        let method = parts.part(name, captures, slots, def.range, |lw, _, args| {
            // The closure (argument 0) called with the arguments given and the defaults.
            let mut call: Vec<Operand> = args.iter().map(|&a| Operand::from(a)).collect();
            for (i, p) in def.params.iter().enumerate().skip(k) {
                let Some(d) = &p.default else { continue };
                let value = lw.expr(d);
                if let Some(v) = vars.get(i).copied().flatten() {
                    lw.assign_local(v, value.clone(), p.range);
                }
                call.push(value);
            }
            lw.emit(Op::CallValue, call, def.range).into()
        });
        methods.push(method);
    }
    methods
}

/// The functions generated for one keyword closure.
struct Parts<'c, 'a, 'd> {
    cx: &'c mut ItemCx<'a>,
    def: &'d FunctionDef,
    /// The closure's type: `#f#1`.
    name: &'d str,
}

impl Parts<'_, '_, '_> {
    /// One generated function, `display`: its arguments `slots`, `captures` bound from the
    /// `Env` one, and the body `lower` emits (given the closure and every argument).
    fn part(
        &mut self,
        display: &str,
        captures: &[VarId],
        slots: Vec<Slot>,
        end: TextRange,
        lower: impl FnOnce(&mut BodyLowerer<'_, '_>, Value, &[Value]) -> Operand,
    ) -> Method {
        let def = self.def;
        let mut func = Function::new(Name::from(display), self.cx.span(def.range));
        let mut args = Vec::new();
        let mut sig = Vec::new();
        for slot in &slots {
            let (name, range, ty) = match slot {
                Slot::Env => (
                    "#self#".into(),
                    def.name_range,
                    Some(TypeExpr::named(self.name)),
                ),
                Slot::Local {
                    name, range, ty, ..
                } => (name.clone(), *range, ty.clone()),
            };
            func.arg_names.push(name.clone());
            let span = self.cx.span(range);
            args.push(func.add_param(Block::ENTRY, zy_ir::Type::Any, span, Some(name)));
            sig.push(ty);
        }
        let span = self.cx.span(def.name_range);
        let mut lw = BodyLowerer::new(self.cx, func, false);
        let mut env = args[0];
        for (slot, &arg) in slots.iter().zip(&args) {
            match slot {
                Slot::Env => {
                    env = arg;
                    lw.bind_captures(arg, captures, def.name_range);
                }
                Slot::Local {
                    var: Some(v),
                    range,
                    ..
                } => lw.assign_local(*v, arg.into(), *range),
                Slot::Local { .. } => {}
            }
        }
        let value = lower(&mut lw, env, &args);
        let body = lw.finish(value, end);
        plain_method(def, sig, body, span)
    }
}
