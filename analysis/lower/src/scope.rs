//! Julia's scoping rules, resolved for one item (a top-level method or global) before it is
//! lowered: which identifier denotes which local variable, which locals a closure captures, and
//! which captured locals must live in a box.
//!
//! Scopes: the body of a function (top-level or closure) is one; every `for`/`while` body is a
//! new one (`if` and `begin` are not). A name assigned in a scope is local to it unless a local
//! of that name is visible from an enclosing scope (including an enclosing function's, which
//! makes it a capture); `local x` and `for` variables always declare fresh locals. Results are
//! keyed by the address of the AST node: the tree is borrowed, unchanged, for the whole lowering.

use rustc_hash::{FxHashMap, FxHashSet};
use zy_syntax::ast::{Expr, ExprKind, FunctionDef, FunctionName, TextRange};

/// A local variable of the item being lowered (of the method or of one of its closures).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub(crate) struct VarId(pub u32);

/// What lowering needs to know about a local.
pub(crate) struct VarInfo {
    pub name: String,
    /// Captured and reassigned (or assigned by a closure): lives in a `Ref`.
    pub boxed: bool,
}

/// A closure (anonymous function, inner named function, `do` block).
pub(crate) struct ClosureInfo {
    /// Its number within the item, from 1 in source order (`#f#1`).
    pub index: u32,
    /// The enclosing locals it captures, in order of first use.
    pub captures: Vec<VarId>,
}

/// An error found while resolving names.
pub(crate) struct ScopeError {
    pub range: TextRange,
    pub message: String,
}

impl ScopeError {
    /// Its code: `syntax-error` for what Julia rejects too, else `unsupported`.
    pub fn code(&self) -> &'static str {
        if self.message.starts_with("syntax:") {
            "syntax-error"
        } else {
            "unsupported"
        }
    }
}

/// Name resolution of one item.
#[derive(Default)]
pub(crate) struct Resolution {
    pub vars: Vec<VarInfo>,
    /// Identifiers (read or assigned) that denote locals.
    pub idents: FxHashMap<*const Expr, VarId>,
    /// The locals bound to each function's parameters (`None` for `::T` without a name).
    pub params: FxHashMap<*const FunctionDef, Vec<Option<VarId>>>,
    /// The locals bound to a closure's keyword parameters, then to its `kw...`.
    pub keyword_params: FxHashMap<*const FunctionDef, Vec<VarId>>,
    /// The local bound to a callable struct's `self` (`d` in `(d::Dense)(x)`).
    pub self_var: Option<VarId>,
    /// The local that an inner named function `function g(x) ... end` assigns.
    pub fn_vars: FxHashMap<*const FunctionDef, VarId>,
    /// Reads of `g` inside inner function `g`'s own body: its `#self#` argument.
    pub self_refs: FxHashSet<*const Expr>,
    /// Assignment targets naming a top-level binding declared `global` (`count` in
    /// `global count; count += 1`).
    pub global_targets: FxHashSet<*const Expr>,
    /// Reads of inner functions calling each other from inside each other (`od` in
    /// `ev(k) = k == 0 ? true : od(k - 1)`, defined below it and calling `ev`): a fresh
    /// closure value of the definition, made from the captures they share.
    pub sibling_refs: FxHashMap<*const Expr, *const FunctionDef>,
    pub closures: FxHashMap<*const FunctionDef, ClosureInfo>,
    /// The locals declared by each loop's body scope, fresh in every iteration.
    pub loop_locals: FxHashMap<*const Expr, Vec<VarId>>,
    /// For each loop or `let`: how many locals were declared before its scope, so a local
    /// with a smaller id that its body names is one of an enclosing scope.
    pub declared_before: FxHashMap<*const Expr, u32>,
    pub errors: Vec<ScopeError>,
    /// The type each typed local is declared with (`s::Float64 = 0`, `local x::T`), a copy of
    /// the expression written whose names are resolved here (`typeof(x0 + h)` reads the
    /// locals): every assignment to it evaluates it and converts the value.
    pub declared: FxHashMap<VarId, Box<Expr>>,
    /// The method's `where` variables that its closures read (`T` in
    /// `[zero(T) for i in 1:n]`): locals the method assigns on entry, which closures capture.
    pub where_locals: Vec<VarId>,
}

impl Resolution {
    /// Resolve a method definition (its closures included).
    pub fn of_function(def: &FunctionDef) -> Resolution {
        let mut w = Walker::new();
        w.where_vars = def.where_params.iter().map(|(v, _)| v.clone()).collect();
        let self_name = match &def.name {
            FunctionName::Callable { self_name, .. } => self_name.as_deref(),
            _ => None,
        };
        w.function_scope(def, self_name);
        w.finish()
    }

    /// Resolve the value of a top-level binding (evaluated as a function body of its own).
    pub fn of_global(value: &Expr) -> Resolution {
        let mut w = Walker::new();
        w.scopes.push(Scope::default());
        w.declare_scope_names(std::slice::from_ref(value));
        w.expr(value);
        w.finish()
    }

    /// The local an identifier denotes, if any.
    pub fn local(&self, e: &Expr) -> Option<VarId> {
        self.idents.get(&(e as *const Expr)).copied()
    }

    /// The variable's information.
    pub fn var(&self, v: VarId) -> &VarInfo {
        &self.vars[v.0 as usize]
    }
}

/// What the walk records about a local until boxing is decided.
struct VarState {
    /// The function (0: the item, then closures) that owns it.
    func: u32,
    /// Loop nesting where it was declared.
    decl_loops: u32,
    sites: u32,
    /// Walk-order clock and range of the first assignment.
    first_site: Option<(u32, TextRange)>,
    /// The first assignment is inside a loop the variable is declared outside of.
    first_site_in_loop: bool,
    captured: bool,
    assigned_by_closure: bool,
    assigned_in_nested_loop: bool,
    /// A closure captures it before it is assigned: its box is made empty there.
    early: bool,
}

#[derive(Default)]
struct Scope {
    names: FxHashMap<String, VarId>,
    /// Names declared `global` here: they denote the top-level bindings in this scope.
    globals: FxHashSet<String>,
}

struct Frame {
    func: u32,
    captures: Vec<VarId>,
    /// For an inner named function `g`: the local `g` that its definition assigns, which its
    /// own body reads as `#self#` instead of capturing it (so `g` may call itself).
    self_var: Option<VarId>,
}

struct Walker {
    res: Resolution,
    state: Vec<VarState>,
    scopes: Vec<Scope>,
    frames: Vec<Frame>,
    /// How many loops (bodies and conditions) enclose the current point.
    loops: u32,
    /// Orders assignments and closure creations as lowering will meet them.
    clock: u32,
    next_func: u32,
    next_closure: u32,
    /// Inner functions that call themselves (their local must then be assigned only once).
    self_called: Vec<VarId>,
    /// Uses of a local from a function other than its owner, with the using function.
    foreign_reads: Vec<(*const Expr, VarId, u32)>,
    /// Each closure's definition, by its function number.
    func_defs: FxHashMap<u32, *const FunctionDef>,
    /// The `where` variables of the method resolved.
    where_vars: Vec<String>,
    /// The names each closure keeps as locals of its own ([`crate::split`]).
    splits: FxHashMap<*const FunctionDef, Vec<String>>,
}

impl Walker {
    fn new() -> Walker {
        Walker {
            res: Resolution::default(),
            state: Vec::new(),
            scopes: Vec::new(),
            frames: vec![Frame {
                func: 0,
                captures: Vec::new(),
                self_var: None,
            }],
            loops: 0,
            clock: 0,
            next_func: 1,
            next_closure: 1,
            self_called: Vec::new(),
            foreign_reads: Vec::new(),
            func_defs: FxHashMap::default(),
            where_vars: Vec::new(),
            splits: FxHashMap::default(),
        }
    }

    fn func(&self) -> u32 {
        self.frames.last().map_or(0, |f| f.func)
    }

    fn declare(&mut self, name: &str) -> VarId {
        let v = VarId(self.res.vars.len() as u32);
        self.res.vars.push(VarInfo {
            name: name.to_string(),
            boxed: false,
        });
        self.state.push(VarState {
            func: self.func(),
            decl_loops: self.loops,
            sites: 0,
            first_site: None,
            first_site_in_loop: false,
            captured: false,
            assigned_by_closure: false,
            assigned_in_nested_loop: false,
            early: false,
        });
        if let Some(scope) = self.scopes.last_mut() {
            scope.names.insert(name.to_string(), v);
        }
        v
    }

    /// The local `name` denotes here, `None` for a top-level name (one declared `global` in
    /// an enclosing scope included).
    fn lookup(&self, name: &str) -> Option<VarId> {
        self.binding_scope(name)
            .and_then(|s| s.names.get(name).copied())
    }

    /// Is `name` declared `global` in the scope it is used in?
    fn declared_global(&self, name: &str) -> bool {
        self.binding_scope(name)
            .is_some_and(|s| s.globals.contains(name))
    }

    /// The innermost scope that binds `name`, as a local or declared `global`.
    fn binding_scope(&self, name: &str) -> Option<&Scope> {
        self.scopes
            .iter()
            .rev()
            .find(|s| s.globals.contains(name) || s.names.contains_key(name))
    }

    /// A use of `v` from the current function: a capture if another function owns it.
    fn touch(&mut self, v: VarId) {
        let owner = self.state[v.0 as usize].func;
        if owner == self.func() {
            return;
        }
        self.state[v.0 as usize].captured = true;
        for frame in self.frames.iter_mut().rev() {
            if frame.func == owner {
                break;
            }
            if !frame.captures.contains(&v) {
                frame.captures.push(v);
            }
        }
    }

    /// An assignment to `v` at `range`.
    fn site(&mut self, v: VarId, range: TextRange) {
        self.touch(v);
        let clock = self.tick();
        let (func, loops) = (self.func(), self.loops);
        let s = &mut self.state[v.0 as usize];
        s.sites += 1;
        if s.first_site.is_none() {
            s.first_site = Some((clock, range));
            s.first_site_in_loop = loops > s.decl_loops;
        }
        if func != s.func {
            s.assigned_by_closure = true;
        }
        if loops > s.decl_loops {
            s.assigned_in_nested_loop = true;
        }
    }

    fn tick(&mut self) -> u32 {
        self.clock += 1;
        self.clock
    }

    /// Declare the locals of the scope on top: `local` names (always fresh), then assigned
    /// names not visible from an enclosing scope nor declared `global`.
    fn declare_scope_names(&mut self, body: &[Expr]) -> Vec<VarId> {
        let (mut locals, mut assigned, mut globals) = (Vec::new(), Vec::new(), Vec::new());
        for e in body {
            collect_names(e, &mut locals, &mut assigned, &mut globals);
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.globals.extend(globals);
        }
        let mut declared = Vec::new();
        for n in locals {
            let here = self.scopes.last().is_some_and(|s| s.names.contains_key(&n));
            if !here {
                declared.push(self.declare(&n));
            }
        }
        for n in assigned {
            if self.lookup(&n).is_none() && !self.declared_global(&n) {
                declared.push(self.declare(&n));
            }
        }
        declared
    }

    fn function_scope(&mut self, def: &FunctionDef, self_name: Option<&str>) {
        self.scopes.push(Scope::default());
        if let Some(s) = self_name {
            let v = self.declare(s);
            self.site(v, def.name_range);
            self.res.self_var = Some(v);
        }
        let mut params = Vec::new();
        for p in &def.params {
            // An optional parameter's default sees the parameters before it (an inner
            // function's; a top-level method's are rewritten before they are resolved).
            if let Some(d) = &p.default {
                self.expr(d);
            }
            let v = p.name.as_deref().map(|n| {
                let v = self.declare(n);
                self.site(v, p.range);
                v
            });
            params.push(v);
        }
        self.res.params.insert(def as *const FunctionDef, params);
        // A keyword's default sees the parameters and the keywords before it.
        let mut keywords = Vec::new();
        for k in &def.keywords {
            if let Some(d) = &k.default {
                self.expr(d);
            }
            let v = self.declare(&k.name);
            self.site(v, k.range);
            keywords.push(v);
        }
        if let Some(rest) = &def.keyword_rest {
            let v = self.declare(rest);
            self.site(v, def.name_range);
            keywords.push(v);
        }
        if !keywords.is_empty() {
            self.res
                .keyword_params
                .insert(def as *const FunctionDef, keywords);
        }
        self.declare_scope_names(&def.body);
        for n in self
            .splits
            .remove(&(def as *const FunctionDef))
            .unwrap_or_default()
        {
            self.declare(&n);
        }
        let mut locals: Vec<String> = self
            .scopes
            .last()
            .map(|s| s.names.keys().cloned().collect())
            .unwrap_or_default();
        locals.sort();
        self.splits
            .extend(crate::split::split_names(&def.body, &locals));
        self.exprs(&def.body);
        self.scopes.pop();
    }

    /// The scope of a loop body (`looping`) or of a `let` block, with its variable `var`.
    fn scope(&mut self, looped: &Expr, var: Option<&Expr>, body: &[Expr], looping: bool) {
        let step = u32::from(looping);
        self.loops += step;
        self.scopes.push(Scope::default());
        self.res
            .declared_before
            .insert(looped as *const Expr, self.res.vars.len() as u32);
        let mut declared = Vec::new();
        if let Some(var) = var {
            let mut names = Vec::new();
            target_names(var, &mut names);
            for n in names {
                declared.push(self.declare(&n));
            }
        }
        declared.extend(self.declare_scope_names(body));
        if let Some(var) = var {
            self.target(var);
        }
        self.exprs(body);
        self.scopes.pop();
        self.res.loop_locals.insert(looped as *const Expr, declared);
        self.loops -= step;
    }

    /// `for outer var`: `var` must be a local of an enclosing scope, which the loop assigns;
    /// whether it is.
    fn outer_var(&mut self, var: &Expr) -> bool {
        let ExprKind::Ident(name) = &var.kind else {
            return false;
        };
        if self.lookup(name).is_none() {
            self.res.errors.push(ScopeError {
                range: var.range,
                message: "syntax: no outer local variable declaration exists for \"for outer\""
                    .to_string(),
            });
            return false;
        }
        self.loops += 1;
        self.target(var);
        self.loops -= 1;
        true
    }

    fn closure(&mut self, def: &FunctionDef) {
        let index = self.next_closure;
        self.next_closure += 1;
        let created = self.tick();
        let func = self.next_func;
        self.next_func += 1;
        self.func_defs.insert(func, def as *const FunctionDef);
        let own_name = match &def.name {
            FunctionName::Named(n) => Some(n.as_str()),
            _ => None,
        };
        let self_var = own_name.and_then(|n| self.lookup(n));
        self.frames.push(Frame {
            func,
            captures: Vec::new(),
            self_var,
        });
        self.function_scope(def, None);
        let captures = self.frames.pop().map(|f| f.captures).unwrap_or_default();
        let owner = self.func();
        for &v in &captures {
            let s = &mut self.state[v.0 as usize];
            let assigned_before = s.first_site.is_some_and(|(clock, _)| clock < created);
            if s.func != owner || assigned_before {
                continue;
            }
            let name = &self.res.vars[v.0 as usize].name;
            // Julia's box, made empty where the closure is: its value is the one assigned
            // by the time the closure reads it (not when the closure is made in a loop the
            // variable is declared outside of, which would make a box per iteration).
            if Some(name.as_str()) != own_name && self.loops == s.decl_loops {
                s.early = true;
                continue;
            }
            let message = if Some(name.as_str()) == own_name {
                format!("unsupported: recursive inner function `{name}` (define it at top level)")
            } else {
                format!(
                    "unsupported: closure made in a loop captures `{name}` before it is \
                     assigned; assign `{name}` before the loop instead"
                )
            };
            self.res.errors.push(ScopeError {
                range: def.name_range,
                message,
            });
        }
        self.res
            .closures
            .insert(def as *const FunctionDef, ClosureInfo { index, captures });
        if let Some(n) = own_name {
            if let Some(v) = self.lookup(n) {
                if self.res.fn_vars.values().any(|&w| w == v) {
                    let message = format!(
                        "unsupported: inner function `{n}` with more than one method (define \
                         it at top level)"
                    );
                    self.res.errors.push(ScopeError {
                        range: def.name_range,
                        message,
                    });
                }
                self.res.fn_vars.insert(def as *const FunctionDef, v);
                self.site(v, def.name_range);
            }
        }
    }

    fn exprs(&mut self, es: &[Expr]) {
        for e in es {
            self.expr(e);
        }
    }

    /// Under a condition (a branch that may not run).
    fn conditional(&mut self, es: &[&Expr]) {
        for e in es {
            self.expr(e);
        }
    }

    /// A read of `name` at `e`.
    fn ident(&mut self, e: &Expr, name: &str) -> Option<VarId> {
        let v = match self.lookup(name) {
            Some(v) => v,
            None => self.where_local(name, e.range)?,
        };
        if self.frames.last().and_then(|f| f.self_var) == Some(v) {
            self.res.self_refs.insert(e as *const Expr);
            self.self_called.push(v);
            return Some(v);
        }
        self.bind_ident(e, v);
        Some(v)
    }

    /// Inside a closure, the method's `where` variable `name` as a local of the method,
    /// assigned on entry (Julia's closures see their method's static parameters).
    fn where_local(&mut self, name: &str, range: TextRange) -> Option<VarId> {
        if self.func() == 0 || !self.where_vars.iter().any(|w| w == name) {
            return None;
        }
        let v = VarId(self.res.vars.len() as u32);
        self.res.vars.push(VarInfo {
            name: name.to_string(),
            boxed: false,
        });
        self.state.push(VarState {
            func: 0,
            decl_loops: 0,
            sites: 1,
            first_site: Some((0, range)),
            first_site_in_loop: false,
            captured: false,
            assigned_by_closure: false,
            assigned_in_nested_loop: false,
            early: false,
        });
        self.scopes.first_mut()?.names.insert(name.to_string(), v);
        self.res.where_locals.push(v);
        Some(v)
    }

    fn bind_ident(&mut self, e: &Expr, v: VarId) {
        self.res.idents.insert(e as *const Expr, v);
        if self.state[v.0 as usize].func != self.func() {
            self.foreign_reads.push((e as *const Expr, v, self.func()));
        }
        self.touch(v);
    }

    /// An assignment target, in the order lowering evaluates it.
    fn target(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Ident(name) => {
                if let Some(v) = self.lookup(name) {
                    self.bind_ident(e, v);
                    self.site(v, e.range);
                } else {
                    self.global_target(e, name);
                }
            }
            ExprKind::Tuple(items) => items.iter().for_each(|i| self.target(i)),
            ExprKind::NamedTuple(fields) => fields.iter().for_each(|(_, v)| self.target(v)),
            // `b...` slurping the rest in `a, b... = x`.
            ExprKind::Splat(inner) => self.target(inner),
            ExprKind::Index { base, indices } => {
                self.expr(base);
                self.exprs(indices);
            }
            ExprKind::Field { base, .. } => self.expr(base),
            ExprKind::Declared { var, ty } => {
                self.declare_type(var, ty);
                self.target(var);
            }
            _ => {}
        }
    }

    /// An assignment target `e` naming `name`, which is not a local: one declared `global`
    /// rebinds the top-level binding.
    fn global_target(&mut self, e: &Expr, name: &str) {
        if self.declared_global(name) {
            self.res.global_targets.insert(e as *const Expr);
        }
    }

    /// Record that the local `var` is declared of type `ty`. Lowering evaluates the type at
    /// every assignment from the copy kept here, so the names in the copy are the ones
    /// resolved (the first declaration is kept: Julia refuses a second of another type).
    fn declare_type(&mut self, var: &Expr, ty: &Expr) {
        let local = match &var.kind {
            ExprKind::Ident(name) => self.lookup(name),
            _ => None,
        };
        match local {
            Some(v) if !self.res.declared.contains_key(&v) => {
                let ty = Box::new(ty.clone());
                self.expr(&ty);
                self.res.declared.insert(v, ty);
            }
            _ => self.expr(ty),
        }
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Ident(name) => {
                self.ident(e, name);
            }
            // `local x::T`: a declaration, not an assignment.
            ExprKind::Declared { var, ty } => self.declare_type(var, ty),
            ExprKind::Assign { lhs, rhs } => match lhs.kind {
                ExprKind::Index { .. } | ExprKind::Field { .. } => {
                    self.target(lhs);
                    self.expr(rhs);
                }
                _ => {
                    self.expr(rhs);
                    self.target(lhs);
                }
            },
            ExprKind::CompoundAssign { lhs, rhs, .. } => match &lhs.kind {
                ExprKind::Ident(name) => {
                    let v = self.ident(lhs, name);
                    self.expr(rhs);
                    match v {
                        Some(v) => self.site(v, lhs.range),
                        None => self.global_target(lhs, name),
                    }
                }
                _ => {
                    self.target(lhs);
                    self.expr(rhs);
                }
            },
            ExprKind::If { branches, els } => {
                let mut rest: Vec<&Expr> = Vec::new();
                for (i, (cond, body)) in branches.iter().enumerate() {
                    if i == 0 {
                        self.expr(cond);
                    } else {
                        rest.push(cond);
                    }
                    rest.extend(body.iter());
                }
                rest.extend(els.iter().flatten());
                self.conditional(&rest);
            }
            ExprKind::And(a, b) | ExprKind::Or(a, b) => {
                self.expr(a);
                self.conditional(&[b]);
            }
            ExprKind::Ternary { cond, then, els } => {
                self.expr(cond);
                self.conditional(&[then, els]);
            }
            ExprKind::Chain { first, rest } => {
                self.expr(first);
                let mut later: Vec<&Expr> = rest.iter().map(|(_, e)| e).collect();
                if !later.is_empty() {
                    let second = later.remove(0);
                    self.expr(second);
                }
                self.conditional(&later);
            }
            ExprKind::While { cond, body } => {
                self.loops += 1;
                self.conditional(&[cond]);
                self.loops -= 1;
                self.scope(e, None, body, true);
            }
            ExprKind::For {
                var,
                iter,
                body,
                outer,
                ..
            } => {
                self.expr(iter);
                // An `outer` variable without an enclosing local is reported, then bound afresh.
                let reused = *outer && self.outer_var(var);
                self.scope(e, Some(&**var).filter(|_| !reused), body, true);
            }
            ExprKind::Let { var, value, body } => {
                if let Some(value) = value {
                    self.expr(value);
                }
                self.scope(e, var.as_deref(), body, false);
            }
            // Each part of a `try` is a scope of its own; the caught exception is a local of
            // the catch block.
            ExprKind::Try {
                body,
                var,
                catch,
                els,
                finally,
            } => {
                self.scope(e, None, body, false);
                if let Some(catch) = catch {
                    self.scope(e, var.as_deref(), catch, false);
                }
                for part in [els, finally].into_iter().flatten() {
                    self.scope(e, None, part, false);
                }
            }
            ExprKind::Function(def) => self.closure(def),
            _ => {
                for c in e.children() {
                    self.expr(c);
                }
            }
        }
    }

    fn finish(mut self) -> Resolution {
        self.self_called.sort();
        self.self_called.dedup();
        for &v in &self.self_called {
            let s = &self.state[v.0 as usize];
            if s.sites > 1 {
                let range = s.first_site.map_or_else(TextRange::default, |(_, r)| r);
                let name = &self.res.vars[v.0 as usize].name;
                self.res.errors.push(ScopeError {
                    range,
                    message: format!(
                        "unsupported: recursive inner function `{name}` assigned more than once; \
                         define it at top level instead"
                    ),
                });
            }
        }
        self.sibling_functions();
        for (i, s) in self.state.iter().enumerate() {
            let boxed = s.captured
                && (s.sites > 1 || s.assigned_by_closure || s.assigned_in_nested_loop || s.early);
            if !boxed {
                continue;
            }
            let var = &mut self.res.vars[i];
            var.boxed = true;
            // First assignments in the arms of a conditional are followed path by path when
            // lowering (`boxes`); a loop's are not.
            if let Some((_, range)) = s.first_site.filter(|_| s.first_site_in_loop) {
                self.res.errors.push(ScopeError {
                    range,
                    message: format!(
                        "unsupported: captured variable `{}` is reassigned but first assigned \
                         in a loop (assign it before the loop)",
                        var.name
                    ),
                });
            }
        }
        self.res
    }
}

impl Walker {
    /// Inner functions that call each other, one defined below another that calls it
    /// (`ev(k) = ... od(k - 1)`, `od(k) = ... ev(k - 1)`): each would hold the other in its
    /// environment, a type that never ends. Where they are assigned only by their definitions
    /// and read only inside each other, none holds another: each captures what any of them
    /// captures besides each other, and a read of one is a fresh closure value made from
    /// those ([`Resolution::sibling_refs`]). Otherwise they are refused by name.
    fn sibling_functions(&mut self) {
        let defs: FxHashMap<VarId, *const FunctionDef> =
            self.res.fn_vars.iter().map(|(&d, &v)| (v, d)).collect();
        let captures = |res: &Resolution, v: VarId| -> Vec<VarId> {
            defs.get(&v)
                .and_then(|d| res.closures.get(d))
                .map(|c| c.captures.clone())
                .unwrap_or_default()
        };
        let group: FxHashSet<VarId> = defs
            .keys()
            .copied()
            .filter(|v| {
                let s = &self.state[v.0 as usize];
                s.sites == 1 && !s.assigned_by_closure
            })
            .collect();
        // The ones a function captures before their definition, and those they capture.
        let mut todo: Vec<VarId> = group
            .iter()
            .copied()
            .filter(|v| self.state[v.0 as usize].early)
            .collect();
        let mut siblings = FxHashSet::default();
        while let Some(v) = todo.pop() {
            if siblings.insert(v) {
                todo.extend(
                    captures(&self.res, v)
                        .into_iter()
                        .filter(|c| group.contains(c)),
                );
            }
        }
        let cyclic = siblings
            .iter()
            .any(|&v| captures(&self.res, v).iter().any(|c| siblings.contains(c)));
        if !cyclic {
            return;
        }
        let inside = |f: u32| {
            self.func_defs
                .get(&f)
                .is_some_and(|d| siblings.iter().any(|v| defs.get(v) == Some(d)))
        };
        let outside = self
            .foreign_reads
            .iter()
            .find(|(_, v, f)| siblings.contains(v) && !inside(*f));
        if let Some(&(_, v, _)) = outside {
            let s = &self.state[v.0 as usize];
            let range = s.first_site.map_or_else(TextRange::default, |(_, r)| r);
            let name = &self.res.vars[v.0 as usize].name;
            self.res.errors.push(ScopeError {
                range,
                message: format!(
                    "unsupported: inner functions calling each other (`{name}`), one read by \
                     another closure; define them at top level instead"
                ),
            });
            return;
        }
        for &(e, v, _) in &self.foreign_reads {
            if let (true, Some(&d)) = (siblings.contains(&v), defs.get(&v)) {
                self.res.sibling_refs.insert(e, d);
            }
        }
        let mut members: Vec<VarId> = siblings.iter().copied().collect();
        members.sort();
        let mut shared = Vec::new();
        for &v in &members {
            for c in captures(&self.res, v) {
                if !siblings.contains(&c) && !shared.contains(&c) {
                    shared.push(c);
                }
            }
        }
        for &v in &siblings {
            if let Some(c) = defs.get(&v).and_then(|d| self.res.closures.get_mut(d)) {
                c.captures = shared.clone();
            }
            let s = &mut self.state[v.0 as usize];
            s.captured = false;
            s.early = false;
        }
    }
}

/// Names declared by `local`, names assigned and names declared `global`, in the scope of `e` (not descending into loop
/// bodies or function bodies, which are scopes of their own).
fn collect_names(
    e: &Expr,
    locals: &mut Vec<String>,
    assigned: &mut Vec<String>,
    globals: &mut Vec<String>,
) {
    match &e.kind {
        ExprKind::Local(names) => locals.extend(names.iter().cloned()),
        ExprKind::Global(names) => globals.extend(names.iter().cloned()),
        ExprKind::Assign { lhs, rhs } => {
            match &lhs.kind {
                ExprKind::Ident(_)
                | ExprKind::Tuple(_)
                | ExprKind::NamedTuple(_)
                | ExprKind::Declared { .. } => target_names(lhs, assigned),
                _ => collect_names(lhs, locals, assigned, globals),
            }
            collect_names(rhs, locals, assigned, globals);
        }
        ExprKind::CompoundAssign { lhs, rhs, .. } => {
            match &lhs.kind {
                ExprKind::Ident(n) => assigned.push(n.clone()),
                _ => collect_names(lhs, locals, assigned, globals),
            }
            collect_names(rhs, locals, assigned, globals);
        }
        ExprKind::Function(def) => {
            if let FunctionName::Named(n) = &def.name {
                assigned.push(n.clone());
            }
        }
        ExprKind::While { cond, .. } => collect_names(cond, locals, assigned, globals),
        ExprKind::For { iter, .. } => collect_names(iter, locals, assigned, globals),
        ExprKind::Let { value, .. } => {
            if let Some(value) = value {
                collect_names(value, locals, assigned, globals);
            }
        }
        ExprKind::Try { .. } => {}
        _ => {
            for c in e.children() {
                collect_names(c, locals, assigned, globals);
            }
        }
    }
}

/// The identifiers an assignment target binds (`a` in `a = ...`, `a, b` in `(a, b) = ...`,
/// `a` in `a::T = ...`, `b` in `a, b... = ...`).
pub(crate) fn target_names(e: &Expr, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Ident(n) => out.push(n.clone()),
        ExprKind::Declared { var, .. } | ExprKind::Splat(var) => target_names(var, out),
        ExprKind::Tuple(items) => items.iter().for_each(|i| target_names(i, out)),
        ExprKind::NamedTuple(fields) => fields.iter().for_each(|(_, v)| target_names(v, out)),
        _ => {}
    }
}
