//! Methods with optional positional parameters and with keyword parameters, lowered as Julia
//! lowers them. `f(x, y = d) = body` is two methods: `f(x, y) = body` and `f(x) = (y = d;
//! f(x, y))`. For keywords: the body becomes a function
//! of its own taking the keywords positionally (`#f#kw(a, b, x)`), each keyword gets a function
//! computing its default from the positional arguments and the keywords before it
//! (`#f#kw#b(x, a)`, which throws `UndefKeywordError` for a required keyword), and the method
//! itself (`f(x)`) binds every default and calls the body. A call with keywords (`kwcall` in
//! the untyped IR) selects the method on its positional arguments and fills in the keywords
//! through the method's [`Keywords`] record.

use std::sync::Arc;

use zy_ir::{Keywords, Name};
use zy_syntax::ast::{
    Expr, ExprKind, FunctionDef, FunctionName, KeywordArg, KeywordParam, Param, TextRange,
};

use crate::item::lower_named_method;
use crate::LoweredItem;

/// The named tuple of the keywords a shorter method of an optional parameter passes on.
const FORWARDED: &str = "#kw";

/// What binds `kw...`: Julia's `pairs` of the named tuple of the other keywords passed (a
/// `Base.Pairs`, which inference's keyword calls make too).
pub(crate) const KEYWORD_REST: &str = "Base.pairs";

/// Lower `def` (a method of `name` with optional positional parameters): the full method, and
/// one method per optional parameter left out, which binds the defaults and calls the full one
/// (passing any keywords on).
pub(crate) fn lower_optional_method(
    file: u32,
    def: &FunctionDef,
    name: &str,
    prefix: &str,
) -> LoweredItem {
    let params = positional_params(def);
    let required = params.iter().take_while(|p| p.default.is_none()).count();
    let strip = |p: &Param| Param {
        default: None,
        ..p.clone()
    };
    // `xs...` after the optional parameters is not passed by the shorter methods.
    let fixed = params.len() - usize::from(params.last().is_some_and(|p| p.varargs));
    let full = FunctionDef {
        params: params.iter().map(strip).collect(),
        ..def.clone()
    };
    let mut out = lower_named_method(file, &full, name, prefix.to_string());
    let takes_keywords = !def.keywords.is_empty() || def.keyword_rest.is_some();
    for k in required..fixed {
        let r = def.name_range;
        let mut body = Vec::new();
        for p in &params[k..fixed] {
            let (Some(n), Some(d)) = (&p.name, &p.default) else {
                continue;
            };
            let kind = ExprKind::Assign {
                lhs: Box::new(ident(p.range, n)),
                rhs: Box::new(d.clone()),
            };
            body.push(Expr::new(kind, p.range));
        }
        let (fname, callee) = match &def.name {
            FunctionName::Callable { self_name, ty } => {
                let self_name = self_name.clone().unwrap_or_else(|| "#self#".to_string());
                let callee = ident(r, &self_name);
                let fname = FunctionName::Callable {
                    self_name: Some(self_name),
                    ty: ty.clone(),
                };
                (fname, callee)
            }
            other => (other.clone(), ident(r, name)),
        };
        let args = params[..fixed]
            .iter()
            .filter_map(|p| p.name.as_deref())
            .map(|n| ident(r, n))
            .collect();
        let kind = if takes_keywords {
            ExprKind::KwCall {
                callee: Box::new(callee),
                args,
                keywords: vec![KeywordArg::Splat(ident(r, FORWARDED))],
            }
        } else {
            ExprKind::Call {
                callee: Box::new(callee),
                args,
            }
        };
        body.push(Expr::new(kind, def.range));
        let short = FunctionDef {
            name: fname,
            params: params[..k].iter().map(strip).collect(),
            keywords: Vec::new(),
            keyword_rest: takes_keywords.then(|| FORWARDED.to_string()),
            body,
            ..def.clone()
        };
        let part = lower_named_method(file, &short, name, format!("{prefix}#opt{k}"));
        merge(&mut out, part);
    }
    out
}

/// Lower `def` (a method of `name` with keyword parameters); generated functions are named
/// `{prefix}#kw...`.
pub(crate) fn lower_keyword_method(
    file: u32,
    def: &FunctionDef,
    name: &str,
    prefix: &str,
) -> LoweredItem {
    let body_name = format!("{prefix}#kw");
    let positional = positional_params(def);
    let receiver = receiver(def);
    // The generated functions take a varargs tuple as it is (untyped: `xs::T...` annotates
    // each element, which the method the call dispatches to has checked).
    let leading: Vec<Param> = receiver
        .iter()
        .cloned()
        .chain(positional)
        .map(|p| Param {
            varargs: false,
            ty: if p.varargs { None } else { p.ty },
            ..p
        })
        .collect();
    let mut out = LoweredItem::default();
    let mut params = Vec::new();
    for (i, k) in def.keywords.iter().enumerate() {
        let default_name = format!("{body_name}#{}", k.name);
        let earlier = def.keywords[..i].iter().map(keyword_param);
        let default = FunctionDef {
            name: FunctionName::Named(default_name.clone()),
            name_range: k.range,
            params: leading.iter().cloned().chain(earlier).collect(),
            keywords: Vec::new(),
            keyword_rest: None,
            where_params: def.where_params.clone(),
            return_type: None,
            body: vec![default_value(k)],
            range: k.range,
            annotations: Vec::new(),
        };
        let part = lower_named_method(file, &default, &default_name, format!("#{default_name}"));
        merge(&mut out, part);
        params.push((
            Name::from(k.name.as_str()),
            Name::from(default_name.as_str()),
        ));
    }
    let rest = def.keyword_rest.as_ref().map(|r| Param {
        name: Some(r.clone()),
        ty: None,
        default: None,
        varargs: false,
        range: def.name_range,
    });
    let body = FunctionDef {
        name: FunctionName::Named(body_name.clone()),
        params: def
            .keywords
            .iter()
            .map(keyword_param)
            .chain(rest)
            .chain(leading.iter().cloned())
            .collect(),
        keywords: Vec::new(),
        keyword_rest: None,
        annotations: Vec::new(),
        ..def.clone()
    };
    merge(
        &mut out,
        lower_named_method(file, &body, &body_name, format!("#{body_name}")),
    );
    let positional = positional_method(def, &body_name);
    let mut method = lower_named_method(file, &positional, name, prefix.to_string());
    if let Some((_, m)) = method.methods.first_mut() {
        m.keywords = Some(Arc::new(Keywords {
            body: body_name.as_str().into(),
            params,
            rest: def.keyword_rest.is_some(),
        }));
    }
    // The method the user wrote comes first, as for any item.
    merge(&mut method, out);
    method
}

/// Add `part`'s methods, structs and errors to `out`.
fn merge(out: &mut LoweredItem, part: LoweredItem) {
    out.methods.extend(part.methods);
    out.structs.extend(part.structs);
    out.globals.extend(part.globals);
    out.errors.extend(part.errors);
}

/// The positional parameters, each with a name (`::T` gets a hidden one) so the generated
/// methods can pass it on.
fn positional_params(def: &FunctionDef) -> Vec<Param> {
    def.params
        .iter()
        .enumerate()
        .map(|(i, p)| Param {
            name: Some(p.name.clone().unwrap_or_else(|| format!("#arg{}", i + 1))),
            ..p.clone()
        })
        .collect()
}

/// The callable struct of `(d::Dense)(x; k)` as a parameter of the generated functions.
fn receiver(def: &FunctionDef) -> Option<Param> {
    match &def.name {
        FunctionName::Callable { self_name, ty } => Some(Param {
            name: Some(self_name.clone().unwrap_or_else(|| "#self#".to_string())),
            ty: Some(ty.clone()),
            default: None,
            varargs: false,
            range: def.name_range,
        }),
        _ => None,
    }
}

fn keyword_param(k: &KeywordParam) -> Param {
    Param {
        name: Some(k.name.clone()),
        ty: k.ty.clone(),
        default: None,
        varargs: false,
        range: k.range,
    }
}

/// A keyword's default, or `throw(UndefKeywordError(:k))` for a required one.
pub(crate) fn default_value(k: &KeywordParam) -> Expr {
    match &k.default {
        Some(d) => d.clone(),
        None => {
            let r = k.range;
            let name = Expr::new(ExprKind::Str(k.name.clone()), r);
            let error = call("UndefKeywordError", vec![name], r);
            call("throw", vec![error], r)
        }
    }
}

/// `f(x) = (a = default_a; b = default_b; #f#kw(a, b, x))`: the method itself, for calls
/// without keywords (and the one a keyword call dispatches on); `kw...` is bound to
/// `pairs(NamedTuple())`.
fn positional_method(def: &FunctionDef, body_name: &str) -> FunctionDef {
    let r = def.name_range;
    let positional = positional_params(def);
    let mut stmts = Vec::new();
    for k in &def.keywords {
        let value = default_value(k);
        let lhs = ident(k.range, &k.name);
        let kind = ExprKind::Assign {
            lhs: Box::new(lhs),
            rhs: Box::new(value),
        };
        stmts.push(Expr::new(kind, k.range));
    }
    let mut args: Vec<Expr> = def
        .keywords
        .iter()
        .map(|k| ident(k.range, &k.name))
        .collect();
    if def.keyword_rest.is_some() {
        let empty = Expr::new(ExprKind::NamedTuple(Vec::new()), r);
        args.push(call(KEYWORD_REST, vec![empty], r));
    }
    let name = match &def.name {
        FunctionName::Callable { self_name, ty } => {
            let self_name = self_name.clone().unwrap_or_else(|| "#self#".to_string());
            args.push(ident(r, &self_name));
            FunctionName::Callable {
                self_name: Some(self_name),
                ty: ty.clone(),
            }
        }
        other => other.clone(),
    };
    args.extend(
        positional
            .iter()
            .filter_map(|p| p.name.as_deref())
            .map(|n| ident(r, n)),
    );
    stmts.push(call(body_name, args, def.range));
    FunctionDef {
        name,
        params: positional,
        keywords: Vec::new(),
        keyword_rest: None,
        return_type: None,
        body: stmts,
        ..def.clone()
    }
}

fn ident(range: TextRange, name: &str) -> Expr {
    Expr::new(ExprKind::Ident(name.to_string()), range)
}

fn call(name: &str, args: Vec<Expr>, range: TextRange) -> Expr {
    let callee = Expr::new(ExprKind::Ident(name.to_string()), range);
    let kind = ExprKind::Call {
        callee: Box::new(callee),
        args,
    };
    Expr::new(kind, range)
}
