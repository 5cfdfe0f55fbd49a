//! Lowering of top-level items: methods, struct definitions, top-level bindings, and whole
//! files (which just combine the items).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use zy_ir::{callable_name, Function, Global, Method, Span, StructDef, StructKind};
use zy_syntax::ast::{self, FunctionDef, FunctionName, GlobalDef, Item, SourceFile};

use crate::body::{BodyLowerer, ItemCx};
use crate::closure::{lower_method_body, Callee};
use crate::keywords::{lower_keyword_method, lower_optional_method};
use crate::scope::Resolution;
use crate::{LowerError, Lowered, LoweredItem};

/// The method of `def` with the signature `sig` and the lowered `body`, without keywords.
pub(crate) fn plain_method(
    def: &FunctionDef,
    sig: Vec<Option<zy_ir::TypeExpr>>,
    body: Function,
    span: Span,
) -> Method {
    Method {
        sig,
        where_params: def
            .where_params
            .iter()
            .map(|(w, _)| w.as_str().into())
            .collect(),
        where_bounds: where_bounds(def),
        body: Arc::new(body),
        span,
        keywords: None,
    }
}

/// The upper bounds of a method's `where` variables, converted.
pub(crate) fn where_bounds(def: &FunctionDef) -> Vec<(zy_ir::Name, zy_ir::TypeExpr)> {
    def.where_params
        .iter()
        .filter_map(|(v, t)| Some((v.as_str().into(), type_expr(t.as_ref()?))))
        .collect()
}

/// Convert a type annotation as written.
pub(crate) fn type_expr(t: &ast::TypeExpr) -> zy_ir::TypeExpr {
    match t {
        ast::TypeExpr::Named { name, params, .. } => zy_ir::TypeExpr::Named {
            name: name.as_str().into(),
            params: params.iter().map(type_expr).collect(),
        },
        ast::TypeExpr::Typeof { name, .. } => zy_ir::TypeExpr::Typeof(name.as_str().into()),
    }
}

/// The annotations of a definition's parameters; `xs::T...` is `Vararg{T}` (`Vararg` without
/// an annotation).
pub(crate) fn signature(def: &FunctionDef) -> Vec<Option<zy_ir::TypeExpr>> {
    def.params
        .iter()
        .map(|p| {
            let ty = p.ty.as_ref().map(type_expr);
            if p.varargs {
                Some(zy_ir::TypeExpr::Named {
                    name: zy_ir::VARARG.into(),
                    params: ty.into_iter().collect(),
                })
            } else {
                ty
            }
        })
        .collect()
}

/// The generic function a top-level method belongs to: `f`, or `(::Dense)` for a callable
/// struct. `None` for definitions that cannot be methods at top level (anonymous functions,
/// `(::typeof(f))(x)`).
pub fn generic_name(def: &FunctionDef) -> Option<String> {
    match &def.name {
        FunctionName::Named(n) => Some(n.clone()),
        FunctionName::Callable {
            ty: ast::TypeExpr::Named { name, .. },
            ..
        } => Some(callable_name(name).to_string()),
        FunctionName::Callable {
            ty: ast::TypeExpr::Typeof { .. },
            ..
        }
        | FunctionName::Anonymous => None,
    }
}

/// Lower one top-level method with its closures; see [`lower_method`].
pub fn lower_function(file: u32, def: &FunctionDef) -> LoweredItem {
    lower_method(file, def, 0)
}

/// Lower one top-level method: its body, its closures' environment structs and call methods,
/// and the errors found. `ordinal` is the number of methods of the same generic function that
/// come before this one in the file: closures are named `#f#k` in the first method and
/// `#f#m#k` in method `m > 0`, so names never depend on other functions.
pub fn lower_method(file: u32, def: &FunctionDef, ordinal: u32) -> LoweredItem {
    let Some(name) = generic_name(def) else {
        let message = match def.name {
            FunctionName::Anonymous => {
                "unsupported: anonymous function at top level; give it a name (`f(x) = ...`) instead"
            }
            _ => "unsupported: call method of a type that is not a struct",
        };
        let span = Span::new(file, def.name_range.start, def.name_range.end);
        let error = LowerError {
            span,
            code: "unsupported",
            message: message.to_string(),
        };
        return LoweredItem {
            errors: vec![error],
            ..LoweredItem::default()
        };
    };
    let prefix = if ordinal == 0 {
        format!("#{name}")
    } else {
        format!("#{name}#{ordinal}")
    };
    lower_named_method(file, def, &name, prefix)
}

/// Lower a method of the generic function `name` whose closures and generated functions are
/// named `{prefix}#...`.
pub(crate) fn lower_named_method(
    file: u32,
    def: &FunctionDef,
    name: &str,
    closure_prefix: String,
) -> LoweredItem {
    if def.params.iter().any(|p| p.default.is_some()) {
        return lower_optional_method(file, def, name, &closure_prefix);
    }
    if !def.keywords.is_empty() || def.keyword_rest.is_some() {
        return lower_keyword_method(file, def, name, &closure_prefix);
    }
    let (rewritten, refused) = crate::checkpoint::rewrite(def);
    let def = rewritten.as_ref().unwrap_or(def);
    let res = Resolution::of_function(def);
    let mut cx = ItemCx {
        file,
        res: &res,
        closure_prefix,
        out: LoweredItem::default(),
    };
    for e in refused.iter().chain(&res.errors) {
        cx.error(e.range, e.code(), e.message.clone());
    }
    let (callee, mut sig) = match &def.name {
        FunctionName::Callable { self_name, ty } => {
            let name = self_name.clone().unwrap_or_else(|| "#self#".to_string());
            (
                Callee::Struct {
                    name,
                    var: res.self_var,
                },
                vec![Some(type_expr(ty))],
            )
        }
        _ => (Callee::None, Vec::new()),
    };
    sig.extend(signature(def));
    let body = lower_method_body(&mut cx, def, name.into(), &callee);
    let method = plain_method(def, sig, body, cx.span(def.name_range));
    cx.out.methods.insert(0, (name.into(), method));
    cx.out
}

/// Lower a struct definition.
pub fn lower_struct(file: u32, def: &ast::StructDef) -> LoweredItem {
    let mut item = LoweredItem::default();
    let mut seen = BTreeSet::new();
    for f in &def.fields {
        if !seen.insert(f.name.as_str()) {
            item.errors.push(LowerError {
                span: Span::new(file, f.range.start, f.range.end),
                code: "syntax-error",
                message: format!(
                    "syntax: duplicate field name `{}` in struct `{}`",
                    f.name, def.name
                ),
            });
        }
    }
    item.structs.push(StructDef {
        name: def.name.as_str().into(),
        params: def.params.iter().map(|p| p.as_str().into()).collect(),
        param_bounds: def
            .param_bounds
            .iter()
            .map(|(p, t)| (p.as_str().into(), type_expr(t)))
            .collect(),
        supertype: def.supertype.as_ref().map(type_expr),
        is_abstract: def.is_abstract,
        inner_constructors: def.inner_constructors,
        fields: def
            .fields
            .iter()
            .map(|f| (f.name.as_str().into(), f.ty.as_ref().map(type_expr)))
            .collect(),
        const_fields: def.const_fields.iter().map(|f| f.as_str().into()).collect(),
        mutable: def.mutable,
        kind: StructKind::User,
        library: false,
        alias: def.alias.as_ref().map(type_expr),
        span: Span::new(file, def.range.start, def.range.end),
    });
    item
}

/// Lower a top-level binding into a thunk computing its value (closures in it are named
/// `#N#k`).
pub fn lower_global(file: u32, def: &GlobalDef) -> LoweredItem {
    let res = Resolution::of_global(&def.value);
    let mut cx = ItemCx {
        file,
        res: &res,
        closure_prefix: format!("#{}", def.name),
        out: LoweredItem::default(),
    };
    for e in &res.errors {
        cx.error(e.range, e.code(), e.message.clone());
    }
    let span = cx.span(def.range);
    let mut lw = BodyLowerer::new(&mut cx, Function::new(def.name.as_str(), span), true);
    let value = lw.expr(&def.value);
    let body = lw.finish(value, def.value.range);
    cx.out.globals.push(Global {
        name: def.name.as_str().into(),
        body: Arc::new(body),
        span,
    });
    cx.out
}

/// Lower every item of a file into one program, without namespaces: the items of a `module`
/// are lowered as if written at top level (the salsa layer resolves names per module).
pub fn lower_file(file: u32, src: &SourceFile) -> Lowered {
    let mut lowered = Lowered::default();
    let mut ordinals: BTreeMap<String, u32> = BTreeMap::new();
    let mut items: Vec<&Item> = src.items.iter().rev().collect();
    while let Some(item) = items.pop() {
        let part = match item {
            Item::Function(def) => {
                let ordinal = match generic_name(def) {
                    Some(name) => {
                        let n = ordinals.entry(name).or_insert(0);
                        *n += 1;
                        *n - 1
                    }
                    None => 0,
                };
                lower_method(file, def, ordinal)
            }
            Item::Struct(def) => lower_struct(file, def),
            Item::Global(def) => lower_global(file, def),
            Item::Module(m) => {
                items.extend(m.items.iter().rev());
                LoweredItem::default()
            }
            // The host loads included files into the program of the including one; imports
            // and skipped statements and refused definitions lower to nothing.
            Item::Include(_)
            | Item::Import(_)
            | Item::Export(_)
            | Item::Script(_)
            | Item::Refused(_) => LoweredItem::default(),
        };
        part.add_to(&mut lowered.program, &mut lowered.errors);
    }
    lowered
}
