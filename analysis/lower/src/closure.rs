//! Function bodies: a method's arguments and body, and closures (anonymous functions, inner
//! named functions, `do` blocks) converted into an environment struct of their captures plus a
//! call method on it whose argument 0 is `#self#`.

use zy_ir::{
    callable_name, Block, Const, Function, Name, Op, Operand, StructDef, StructKind, Type,
};
use zy_syntax::ast::{FunctionDef, FunctionName, TextRange, TypeExpr};

use crate::body::{BodyLowerer, ItemCx, EMPTY_BOX};
use crate::item::{plain_method, signature};
use crate::scope::VarId;

/// Argument 0 of a method that has one.
pub(crate) enum Callee {
    /// A plain function: no hidden argument.
    None,
    /// A callable struct `(d::Dense)(x)`: the struct, bound to `d` if named.
    Struct { name: String, var: Option<VarId> },
    /// A closure's environment, holding these captures.
    Closure(Vec<VarId>),
}

/// Lower the body of `def` into a function named `display`.
pub(crate) fn lower_method_body(
    cx: &mut ItemCx<'_>,
    def: &FunctionDef,
    display: Name,
    callee: &Callee,
) -> Function {
    let mut func = Function::new(display, cx.span(def.range));
    let self_name = match callee {
        Callee::None => None,
        Callee::Struct { name, .. } => Some(name.as_str()),
        Callee::Closure(_) => Some("#self#"),
    };
    let self_arg = self_name.map(|n| {
        func.arg_names.push(n.into());
        func.add_param(
            Block::ENTRY,
            Type::Any,
            cx.span(def.name_range),
            Some(n.into()),
        )
    });
    let mut args = Vec::new();
    for p in &def.params {
        let name: Name = p.name.as_deref().unwrap_or("_").into();
        func.arg_names.push(name.clone());
        args.push(func.add_param(Block::ENTRY, Type::Any, cx.span(p.range), Some(name)));
    }
    let params = cx
        .res
        .params
        .get(&(def as *const FunctionDef))
        .cloned()
        .unwrap_or_default();
    let convert_return = return_conversion(def);
    let mut lw = BodyLowerer::new(cx, func, false);
    lw.convert_return = convert_return;
    match (callee, self_arg) {
        (Callee::Struct { var: Some(v), .. }, Some(s)) => {
            lw.assign_local(*v, s.into(), def.name_range)
        }
        (Callee::Closure(captures), Some(s)) => lw.bind_captures(s, captures, def.name_range),
        _ => {}
    }
    for (p, (arg, v)) in def.params.iter().zip(args.into_iter().zip(params)) {
        if let Some(v) = v {
            lw.assign_local(v, arg.into(), p.range);
        }
    }
    if !matches!(callee, Callee::Closure(_)) {
        for &v in &lw.cx.res.where_locals {
            let name = lw.cx.res.var(v).name.clone();
            let t = lw.nonlocal(&name, def.name_range);
            lw.assign_local(v, t, def.name_range);
        }
    }
    let value = lw.seq(&def.body);
    let end = def.body.last().map_or(def.range, |e| e.range);
    lw.finish(value, end)
}

/// How `f(x)::T` converts each returned value: by `Float64`/`Int` for those two, else by
/// Julia's `convert(T, v)::T`.
#[derive(Clone)]
pub(crate) enum ReturnConversion {
    /// `::Float64` or `::Int`: a call of that constructor.
    Number(&'static str),
    /// Any other type, as its text as a value (`Vector{Float64}`, `T` of a `where`).
    Type(String),
}

/// The conversion of each returned value that `def`'s return annotation asks for.
pub(crate) fn return_conversion(def: &FunctionDef) -> Option<ReturnConversion> {
    let ty = def.return_type.as_ref()?;
    Some(match ty {
        TypeExpr::Named { name, params, .. } if params.is_empty() => match name.as_str() {
            "Float64" => ReturnConversion::Number("Float64"),
            "Int" | "Int64" => ReturnConversion::Number("Int"),
            _ => ReturnConversion::Type(ty.value_text()),
        },
        _ => ReturnConversion::Type(ty.value_text()),
    })
}

impl BodyLowerer<'_, '_> {
    /// Make the empty box of `v`, which a closure captures before it is assigned.
    fn empty_box(&mut self, v: VarId, r: TextRange) {
        let name = self.cx.res.var(v).name.clone();
        let symbol = Const::Symbol(name.as_str().into()).into();
        let b = self.call(EMPTY_BOX, vec![symbol], r);
        self.name(&b, &name);
        let var = self.var(v);
        self.b.def_var(self.cur, var, b);
        self.boxes.made.insert(v);
        self.boxes.unset.insert(v);
    }

    /// A read of inner function `e` from inside another that it calls back
    /// ([`crate::scope::Resolution::sibling_refs`]): its closure, which holds nothing.
    pub(crate) fn sibling(&mut self, e: &zy_syntax::ast::Expr, r: TextRange) -> Operand {
        let info = self
            .cx
            .res
            .sibling_refs
            .get(&(e as *const zy_syntax::ast::Expr))
            .and_then(|d| self.cx.res.closures.get(d))
            .map(|c| (c.index, c.captures.clone()));
        let Some((index, captures)) = info else {
            return self.fail(
                r,
                "unsupported",
                "unsupported: function reference here".into(),
            );
        };
        let name = format!("{}#{}", self.cx.closure_prefix, index);
        let args = self.capture_args(&captures, r);
        self.emit(Op::Closure(name.as_str().into()), args, r).into()
    }

    /// The values a closure holding `captures` is made of: a boxed one's box itself (made
    /// empty here if nothing assigned it yet), so that the closure shares the variable.
    fn capture_args(&mut self, captures: &[VarId], r: TextRange) -> Vec<Operand> {
        let mut args = Vec::new();
        for &c in captures {
            if self.cx.res.var(c).boxed {
                if !self.boxes.readable(c) {
                    self.empty_box(c, r);
                }
                let var = self.var(c);
                args.push(self.b.use_var(self.cur, var));
            } else {
                args.push(self.read_local(c, r));
            }
        }
        args
    }

    /// In a function of closure `s`: read each capture from its field (a boxed one stays a
    /// box, shared with the closure's creator).
    pub(crate) fn bind_captures(&mut self, s: zy_ir::Value, captures: &[VarId], r: TextRange) {
        self.self_value = Some(s);
        for &c in captures {
            let name = self.cx.res.var(c).name.clone();
            let field = Const::Symbol(name.as_str().into()).into();
            let x = self.call("getfield", vec![s.into(), field], r);
            self.name(&x, &name);
            if self.cx.res.var(c).boxed {
                self.boxes.made.insert(c);
            }
            let var = self.var(c);
            self.b.def_var(Block::ENTRY, var, x);
        }
    }

    /// A function definition inside a body: build the closure value from the captures, and
    /// emit its environment struct and call method. An inner named function also assigns its
    /// local.
    pub(crate) fn closure(&mut self, def: &FunctionDef, r: TextRange) -> Operand {
        if let FunctionName::Callable { .. } = def.name {
            let message = "unsupported: callable struct method inside a function; define it at the top level instead".to_string();
            return self.fail(r, "unsupported", message);
        }
        if def.params.iter().any(|p| p.default.is_some()) {
            if def.name == FunctionName::Anonymous {
                // The parser reported it.
                return self.error_call(
                    "unsupported: optional arguments of an anonymous function",
                    r,
                );
            }
            if !def.keywords.is_empty()
                || def.keyword_rest.is_some()
                || def.params.iter().any(|p| p.varargs)
            {
                let message = "unsupported: optional arguments of an inner function that also takes keywords or varargs; define the function at the top level instead".to_string();
                return self.fail(r, "unsupported", message);
            }
        }
        let Some(info) = self.cx.res.closures.get(&(def as *const FunctionDef)) else {
            return self.fail(
                r,
                "unsupported",
                "unsupported: function definition here".into(),
            );
        };
        let name = format!("{}#{}", self.cx.closure_prefix, info.index);
        let captures = info.captures.clone();
        let args = self.capture_args(&captures, def.name_range);
        let value: Operand = self.emit(Op::Closure(name.as_str().into()), args, r).into();
        let span = self.span(def.range);
        let fields = captures
            .iter()
            .map(|&c| (self.cx.res.var(c).name.as_str().into(), None))
            .collect();
        self.cx.out.structs.push(StructDef {
            name: name.as_str().into(),
            params: Vec::new(),
            param_bounds: Vec::new(),
            supertype: None,
            is_abstract: false,
            inner_constructors: false,
            fields,
            const_fields: Vec::new(),
            mutable: false,
            kind: StructKind::Closure,
            library: false,
            alias: None,
            span,
        });
        let method = if def.keywords.is_empty() && def.keyword_rest.is_none() {
            let body = lower_method_body(
                self.cx,
                def,
                name.as_str().into(),
                &Callee::Closure(captures.clone()),
            );
            let mut sig = vec![Some(zy_ir::TypeExpr::named(&name))];
            sig.extend(signature(def));
            plain_method(def, sig, body, self.span(def.name_range))
        } else {
            crate::kwclosure::lower(self.cx, def, &name, &captures)
        };
        self.cx.out.methods.push((callable_name(&name), method));
        for method in crate::kwclosure::optional_methods(self.cx, def, &name, &captures) {
            self.cx.out.methods.push((callable_name(&name), method));
        }
        if let Some(&v) = self.cx.res.fn_vars.get(&(def as *const FunctionDef)) {
            self.assign_local(v, value.clone(), def.name_range);
        }
        value
    }
}
