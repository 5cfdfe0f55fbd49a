//! Making an item's AST relative to the item's start, so that an edit elsewhere in the file
//! (which shifts byte offsets) leaves the item's value equal and salsa can reuse what depends
//! on it.

use zy_syntax::ast::{
    Annotation, Expr, ExprKind, FieldDef, FunctionDef, FunctionName, GlobalDef, Item, Param,
    StructDef, TextRange, TypeExpr,
};

/// Where an item starts: its first `# zy:` annotation, or the definition itself.
pub fn item_start(item: &Item) -> u32 {
    match item {
        Item::Function(f) => {
            f.annotations.iter().map(|a| a.range.start).fold(f.range.start, u32::min)
        }
        Item::Struct(s) => s.range.start,
        Item::Global(g) => g.range.start,
    }
}

/// A copy of `item` with every range moved back by `base` bytes.
pub fn rebase_item(item: &Item, base: u32) -> Item {
    let mut item = item.clone();
    let mut r = Rebase { base };
    match &mut item {
        Item::Function(f) => r.function(f),
        Item::Struct(s) => r.structure(s),
        Item::Global(g) => r.global(g),
    }
    item
}

struct Rebase {
    base: u32,
}

impl Rebase {
    fn range(&self, r: &mut TextRange) {
        r.start = r.start.saturating_sub(self.base);
        r.end = r.end.saturating_sub(self.base);
    }

    fn function(&mut self, f: &mut FunctionDef) {
        if let FunctionName::Callable { ty, .. } = &mut f.name {
            self.ty(ty);
        }
        self.range(&mut f.name_range);
        f.params.iter_mut().for_each(|p| self.param(p));
        self.exprs(&mut f.body);
        self.range(&mut f.range);
        f.annotations.iter_mut().for_each(|a| self.annotation(a));
    }

    fn param(&mut self, p: &mut Param) {
        if let Some(ty) = &mut p.ty {
            self.ty(ty);
        }
        self.range(&mut p.range);
    }

    fn annotation(&mut self, a: &mut Annotation) {
        self.range(&mut a.range);
    }

    fn structure(&mut self, s: &mut StructDef) {
        self.range(&mut s.name_range);
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
            ExprKind::Float(_)
            | ExprKind::Int(_)
            | ExprKind::Bool(_)
            | ExprKind::Nothing
            | ExprKind::Str(_)
            | ExprKind::Ident(_)
            | ExprKind::Break
            | ExprKind::Continue
            | ExprKind::Local(_)
            | ExprKind::Error => {}
            ExprKind::Tuple(es) | ExprKind::Vect(es) | ExprKind::Block(es) => self.exprs(es),
            ExprKind::NamedTuple(fields) => fields.iter_mut().for_each(|(_, e)| self.expr(e)),
            ExprKind::Matrix(rows) => rows.iter_mut().for_each(|row| self.exprs(row)),
            ExprKind::Call { callee, args } | ExprKind::DotCall { callee, args } => {
                self.expr(callee);
                self.exprs(args);
            }
            ExprKind::Binary { lhs, rhs, .. }
            | ExprKind::Assign { lhs, rhs }
            | ExprKind::CompoundAssign { lhs, rhs, .. }
            | ExprKind::And(lhs, rhs)
            | ExprKind::Or(lhs, rhs) => {
                self.expr(lhs);
                self.expr(rhs);
            }
            ExprKind::Chain { first, rest } => {
                self.expr(first);
                rest.iter_mut().for_each(|(_, e)| self.expr(e));
            }
            ExprKind::Unary { arg, .. } => self.expr(arg),
            ExprKind::Ternary { cond, then, els } => {
                self.expr(cond);
                self.expr(then);
                self.expr(els);
            }
            ExprKind::Index { base, indices } => {
                self.expr(base);
                self.exprs(indices);
            }
            ExprKind::Field { base, .. } => self.expr(base),
            ExprKind::Range { start, step, stop } => {
                self.expr(start);
                if let Some(step) = step {
                    self.expr(step);
                }
                self.expr(stop);
            }
            ExprKind::If { branches, els } => {
                for (cond, body) in branches {
                    self.expr(cond);
                    self.exprs(body);
                }
                if let Some(els) = els {
                    self.exprs(els);
                }
            }
            ExprKind::While { cond, body } => {
                self.expr(cond);
                self.exprs(body);
            }
            ExprKind::For { var, iter, body } => {
                self.expr(var);
                self.expr(iter);
                self.exprs(body);
            }
            ExprKind::Return(value) => {
                if let Some(v) = value {
                    self.expr(v);
                }
            }
            ExprKind::Function(f) => self.function(f),
        }
    }
}
