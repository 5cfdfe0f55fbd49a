//! Library methods held by their signature until inference specialises them. Most prelude
//! items are one plain method (no closures, keywords or optional arguments): the build script
//! lowers each of those once and records its signature and the names its body uses
//! ([`BundledMethod`]), so that a program holds such a method without parsing or lowering it;
//! its body is lowered the first time inference asks for it (`crate::specialise::typed` reads
//! it through `resolved_ssa`).

use std::sync::Arc;

use rustc_hash::FxHashMap;
use zy_ir::{Function, Method, Name, Span, Type, TypeExpr};
use zy_lower::LoweredItem;

use crate::scope_names::ModuleNames;

/// A [`TypeExpr`] as the build script writes it.
#[derive(Debug)]
pub(crate) enum StaticType {
    Named(&'static str, &'static [StaticType]),
    Typeof(&'static str),
}

impl StaticType {
    /// The type with its names resolved by `name`, except the type variables `bound` (as
    /// `crate::resolve` resolves a lowered signature's types).
    fn resolved(&self, bound: &[&str], name: &mut impl FnMut(&'static str) -> Name) -> TypeExpr {
        match self {
            StaticType::Named(n, params) => TypeExpr::Named {
                name: if bound.contains(n) {
                    (*n).into()
                } else {
                    name(n)
                },
                params: params.iter().map(|p| p.resolved(bound, name)).collect(),
            },
            StaticType::Typeof(n) => TypeExpr::Typeof(name(n)),
        }
    }
}

/// Names of the build-time index resolved in one module, each once: the stubs of a module's
/// methods mention the same names over and over (`AbstractArray`, `length`, `eltype`). Valid
/// while the scope it was filled from is.
#[derive(Default)]
pub(crate) struct Resolved(FxHashMap<&'static str, Name>);

impl Resolved {
    /// [`ModuleNames::resolve`] of `name` in `module`.
    fn get(&mut self, names: &ModuleNames, module: &str, name: &'static str) -> Name {
        self.0
            .entry(name)
            .or_insert_with(|| names.resolve(module, name))
            .clone()
    }
}

/// How a body uses a name it mentions (each resolved as `crate::resolve` resolves it).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Use {
    /// The callee of a call.
    Call,
    /// A binding or function loaded as a value.
    Global,
    /// A function constant among a statement's operands.
    Func,
}

/// A prelude method whose item lowers to that method alone, as the build script lowered it.
#[derive(Debug)]
pub(crate) struct BundledMethod {
    /// The generic function's name as written.
    pub generic: &'static str,
    pub sig: &'static [Option<StaticType>],
    pub where_params: &'static [&'static str],
    pub where_bounds: &'static [(&'static str, StaticType)],
    /// The signature's span, in ranks of the item (as [`crate::item_ast`]'s offsets).
    pub span: (u32, u32),
    /// The names its body mentions, as written, each once.
    pub uses: &'static [(Use, &'static str)],
}

impl BundledMethod {
    /// The item as lowering makes it and `crate::resolve` resolves it in `module`, but with a
    /// body that has no blocks (which inference refuses as malformed, so a stub never runs):
    /// the item whose spans carry `span_file`. Its names are resolved as they are made, not
    /// made as written first (a first gradient makes ~1,300 stubs), through `memo`, the names
    /// already resolved in `module`.
    pub(crate) fn resolved_stub(
        &self,
        span_file: u32,
        module: &str,
        names: &ModuleNames,
        memo: &mut Resolved,
    ) -> LoweredItem {
        let mut name = |n: &'static str| memo.get(names, module, n);
        let span = Span::new(span_file, self.span.0, self.span.1);
        let body = Function {
            name: self.generic.into(),
            arg_names: Vec::new(),
            instance: None,
            ret: Type::Any,
            blocks: Vec::new(),
            values: Vec::new(),
            span,
        };
        let bound = self.where_params;
        let method = Method {
            sig: self
                .sig
                .iter()
                .map(|t| t.as_ref().map(|t| t.resolved(bound, &mut name)))
                .collect(),
            where_params: bound.iter().map(|&p| p.into()).collect(),
            where_bounds: self
                .where_bounds
                .iter()
                .map(|(p, t)| ((*p).into(), t.resolved(bound, &mut name)))
                .collect(),
            body: Arc::new(body),
            span,
            keywords: None,
        };
        LoweredItem {
            methods: vec![(names.definition(module, self.generic), method)],
            ..LoweredItem::default()
        }
    }

    /// The names its body refers to, resolved in `module` as `crate::resolve` resolves the
    /// lowered body's (the build script leaves out the bodies that read a module's member,
    /// `M.f`, which resolution rewrites), through `memo` as [`BundledMethod::resolved_stub`].
    pub(crate) fn body_names(
        &self,
        module: &str,
        names: &ModuleNames,
        memo: &mut Resolved,
        f: &mut impl FnMut(Name),
    ) {
        for &(kind, n) in self.uses {
            let type_var = self.where_params.contains(&n);
            match kind {
                Use::Call | Use::Global if type_var => f(n.into()),
                Use::Call => match crate::resolve::property_default(names, n) {
                    Some(default) => f(default.into()),
                    None => f(memo.get(names, module, n)),
                },
                Use::Func => f(memo.get(names, module, n)),
                // A type applied to parameters (`SubString{String}`): resolved word by word,
                // and the types it names, as the lowered body's global is.
                Use::Global if n.contains('{') => {
                    let resolve = |t: &str| names.resolve(module, t);
                    let q = crate::resolve::resolve_type_text(n, self.where_params, &resolve);
                    crate::reach::applied_type_names(&q, &mut |t| f(t.clone()));
                }
                Use::Global => {
                    let q = memo.get(names, module, n);
                    // Resolution makes the load of such a binding a call of `error`.
                    if names.changed_by_skipped_code(&q).is_some() {
                        f("error".into());
                    } else {
                        f(q);
                    }
                }
            }
        }
    }
}

/// Is `body` a stub's (its method held by its signature, its body not lowered)?
pub fn is_stub(body: &Function) -> bool {
    body.blocks.is_empty()
}
