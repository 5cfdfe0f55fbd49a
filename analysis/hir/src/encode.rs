//! Making an item's AST independent of where the item sits and of the layout inside it, so that
//! edits elsewhere in the file, and whitespace or comment edits inside the item, leave the
//! item's value equal and salsa reuses everything computed from it.
//!
//! Every offset in the item's ranges is replaced by its rank among the item's distinct range
//! boundaries. Ranks keep the order of offsets (so nesting, ordering and emptiness of ranges are
//! unchanged); the sorted boundaries map a rank back to the offset in the current text.

use std::sync::Arc;

use zy_syntax::ast::{
    Annotation, Expr, ExprKind, FieldDef, FunctionDef, FunctionName, GlobalDef, Item, KeywordArg,
    Param, StructDef, TextRange, TypeExpr,
};

/// An item with ranks for offsets, and the absolute offsets of the ranks.
pub struct Encoded {
    pub item: Arc<Item>,
    /// `boundaries[rank]` is the byte offset in the file.
    pub boundaries: Vec<u32>,
}

/// The rank encoding of `item`, whose offsets are `base` bytes before their place in the file.
pub fn encode_item(mut item: Item, base: u32) -> Encoded {
    let mut boundaries = Vec::new();
    Ranges(|r: &mut TextRange| boundaries.extend([r.start, r.end])).item(&mut item);
    boundaries.sort_unstable();
    boundaries.dedup();
    let rank = |x: u32| boundaries.partition_point(|&b| b < x) as u32;
    Ranges(|r: &mut TextRange| {
        r.start = rank(r.start);
        r.end = rank(r.end);
    })
    .item(&mut item);
    boundaries.iter_mut().for_each(|b| *b += base);
    Encoded {
        item: Arc::new(item),
        boundaries,
    }
}

/// Calls its function on every range of an item.
struct Ranges<F: FnMut(&mut TextRange)>(F);

impl<F: FnMut(&mut TextRange)> Ranges<F> {
    fn range(&mut self, r: &mut TextRange) {
        (self.0)(r)
    }

    fn item(&mut self, item: &mut Item) {
        match item {
            Item::Function(f) => self.function(f),
            Item::Struct(s) => self.structure(s),
            Item::Global(g) => self.global(g),
            Item::Include(i) => {
                self.range(&mut i.path_range);
                self.range(&mut i.range);
            }
            Item::Module(m) => {
                self.range(&mut m.name_range);
                m.items.iter_mut().for_each(|i| self.item(i));
                self.range(&mut m.range);
            }
            Item::Import(i) => {
                if let Some(from) = &mut i.from {
                    self.range(&mut from.range);
                }
                i.paths
                    .iter_mut()
                    .for_each(|(p, _)| self.range(&mut p.range));
                self.range(&mut i.range);
            }
            Item::Export(e) => self.range(&mut e.range),
            Item::Script(s) => self.range(&mut s.range),
            Item::Refused(r) => self.range(&mut r.range),
        }
    }
    fn function(&mut self, f: &mut FunctionDef) {
        if let FunctionName::Callable { ty, .. } = &mut f.name {
            self.ty(ty);
        }
        self.range(&mut f.name_range);
        f.params.iter_mut().for_each(|p| self.param(p));
        for (_, bound) in &mut f.where_params {
            if let Some(t) = bound {
                self.ty(t);
            }
        }
        if let Some(t) = &mut f.return_type {
            self.ty(t);
        }
        for k in &mut f.keywords {
            if let Some(ty) = &mut k.ty {
                self.ty(ty);
            }
            if let Some(d) = &mut k.default {
                self.expr(d);
            }
            self.range(&mut k.range);
        }
        self.exprs(&mut f.body);
        self.range(&mut f.range);
        f.annotations.iter_mut().for_each(|a| self.annotation(a));
    }

    fn param(&mut self, p: &mut Param) {
        if let Some(ty) = &mut p.ty {
            self.ty(ty);
        }
        if let Some(d) = &mut p.default {
            self.expr(d);
        }
        self.range(&mut p.range);
    }

    fn annotation(&mut self, a: &mut Annotation) {
        self.range(&mut a.range);
    }

    fn structure(&mut self, s: &mut StructDef) {
        self.range(&mut s.name_range);
        s.param_bounds.iter_mut().for_each(|(_, t)| self.ty(t));
        if let Some(t) = &mut s.supertype {
            self.ty(t);
        }
        if let Some(t) = &mut s.alias {
            self.ty(t);
        }
        s.fields.iter_mut().for_each(|f| self.field(f));
        self.range(&mut s.range);
    }

    fn field(&mut self, f: &mut FieldDef) {
        if let Some(ty) = &mut f.ty {
            self.ty(ty);
        }
        self.range(&mut f.range);
    }

    fn global(&mut self, g: &mut GlobalDef) {
        self.range(&mut g.name_range);
        self.expr(&mut g.value);
        self.range(&mut g.range);
    }

    fn ty(&mut self, t: &mut TypeExpr) {
        match t {
            TypeExpr::Named { params, range, .. } => {
                params.iter_mut().for_each(|p| self.ty(p));
                self.range(range);
            }
            TypeExpr::Typeof { range, .. } => self.range(range),
        }
    }

    fn exprs(&mut self, es: &mut [Expr]) {
        es.iter_mut().for_each(|e| self.expr(e));
    }

    fn expr(&mut self, e: &mut Expr) {
        self.range(&mut e.range);
        match &mut e.kind {
            ExprKind::KwCall { keywords, .. } => {
                for k in keywords {
                    if let KeywordArg::Named { range, .. } = k {
                        self.range(range);
                    }
                }
            }
            ExprKind::Function(f) => self.function(f),
            _ => {}
        }
        for child in e.children_mut() {
            self.expr(child);
        }
    }
}
