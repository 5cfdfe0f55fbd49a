//! Lowering of one body (a method, a closure's call method, a global's thunk) to untyped SSA:
//! the builder state, locals, and the expressions without control flow. Control flow lives in
//! `control`, assignments in `assign`, function definitions in `closure`.

use rustc_hash::{FxHashMap, FxHashSet};
use zy_ir::{
    Block, BlockCall, Const, Function, Name, Op, Operand, Span, SsaBuilder, Stmt, Terminator, Type,
    Value, Var, VarInit,
};
use zy_syntax::ast::{BinOp, Expr, ExprKind, KeywordArg, TextRange, UnOp, INTERPOLATION};

use crate::closure::ReturnConversion;
use crate::scope::{Resolution, VarId};
use crate::{LowerError, LoweredItem};

/// The helpers that type a call with keywords and a call with splatted arguments, called by
/// their qualified names so that a user function named `kwcall` or `splatcall` does not
/// capture them.
pub(crate) const KWCALL: &str = "Base.kwcall";
pub(crate) const SPLATCALL: &str = "Base.splatcall";
/// `Base._declared_convert(T, v)`: a value assigned to a local declared `x::T`.
const DECLARED_CONVERT: &str = "Base._declared_convert";
/// The empty box of a local a closure captures before it is assigned (`boxes`).
pub(crate) const EMPTY_BOX: &str = "Base._box";
/// The first assignment into such a box.
const BOX_INIT: &str = "Base._box_init!";
/// Any later assignment of a boxed local.
const BOX_SET: &str = "Base._box_set!";
/// Converts a value returned under a return annotation `f(x)::T`.
const RETURN_CONVERT: &str = "Base._return_convert";
/// `throw(BoundsError(a, i))`'s message after `BoundsError: `, as Julia's `showerror` writes it.
const BOUNDS_MESSAGE: &str = "Base._bounds_message";

/// What the bodies of one item share: where they are, name resolution, and the output.
pub(crate) struct ItemCx<'a> {
    pub file: u32,
    pub res: &'a Resolution,
    /// Closures are named `{prefix}#{k}`: `#f#1`.
    pub closure_prefix: String,
    pub out: LoweredItem,
}

impl ItemCx<'_> {
    pub fn span(&self, r: TextRange) -> Span {
        Span::new(self.file, r.start, r.end)
    }

    /// Report an error at `range`.
    pub fn error(&mut self, range: TextRange, code: &'static str, message: String) {
        let span = self.span(range);
        self.out.errors.push(LowerError {
            span,
            code,
            message,
        });
    }
}

/// Where `break` and `continue` go in the innermost loop.
pub(crate) struct LoopTargets {
    pub brk: Block,
    pub cont: Block,
}

/// The lowering of one body.
pub(crate) struct BodyLowerer<'c, 'a> {
    pub cx: &'c mut ItemCx<'a>,
    pub b: SsaBuilder,
    /// The block being filled.
    pub cur: Block,
    vars: FxHashMap<VarId, Var>,
    /// Boxed locals whose `Ref` exists on the current path (from their first assignment, or
    /// captured).
    pub boxes: crate::boxes::Boxes,
    /// Blocks that only code after `return`, `break` or `continue` continues in.
    pub(crate) dead_blocks: FxHashSet<Block>,
    pub loops: Vec<LoopTargets>,
    /// A global's thunk: `return` is not allowed.
    pub toplevel: bool,
    /// In a closure's call method: the closure itself (argument 0).
    pub self_value: Option<Value>,
    /// `f(x)::T`: how each returned value is converted to `T`.
    pub convert_return: Option<ReturnConversion>,
    /// The construct each block was made for.
    block_spans: FxHashMap<Block, Span>,
    /// The indexings whose brackets are being lowered, innermost last (for `end`).
    pub(crate) index_cx: Vec<crate::index::IndexCx>,
    /// Inside `@views`: a slice that is read is a view (`maybeview`).
    pub(crate) views: bool,
    /// The `try` bodies being lowered, innermost last: the exception handlers installed.
    pub(crate) regions: Vec<crate::trycatch::Region>,
    /// The exceptions of the catch blocks being lowered, innermost last (for `rethrow()`).
    pub(crate) caught: Vec<Operand>,
}

impl<'c, 'a> BodyLowerer<'c, 'a> {
    pub fn new(cx: &'c mut ItemCx<'a>, func: Function, toplevel: bool) -> Self {
        BodyLowerer {
            cx,
            b: SsaBuilder::new(func),
            cur: Block::ENTRY,
            vars: FxHashMap::default(),
            boxes: Default::default(),
            dead_blocks: FxHashSet::default(),
            loops: Vec::new(),
            convert_return: None,
            toplevel,
            self_value: None,
            block_spans: FxHashMap::default(),
            index_cx: Vec::new(),
            views: false,
            regions: Vec::new(),
            caught: Vec::new(),
        }
    }

    pub fn span(&self, r: TextRange) -> Span {
        self.cx.span(r)
    }

    /// The builder variable of a source local.
    pub fn var(&mut self, v: VarId) -> Var {
        if let Some(&var) = self.vars.get(&v) {
            return var;
        }
        let name: Name = self.cx.res.var(v).name.as_str().into();
        let var = self.b.declare_var_with_init(
            Type::Any,
            Some(name.clone()),
            VarInit::Stmt(undef_stmt(name)),
        );
        self.vars.insert(v, var);
        var
    }

    /// A variable for an intermediate value (an `if`'s result), not named in the IR.
    pub fn hidden(&mut self) -> Var {
        self.b
            .declare_var_with_init(Type::Any, None, VarInit::Stmt(undef_stmt("#tmp".into())))
    }

    /// Append a statement. Inside a `try` body it ends its block, re-installing the handlers:
    /// each operation that may throw is then the whole of its block, so an exception leaves
    /// from a point where every block before it finished, and the AD reverses exactly those.
    pub fn emit(&mut self, op: Op, args: Vec<Operand>, range: TextRange) -> Value {
        let span = self.span(range);
        let v = self
            .b
            .func
            .push_stmt(self.cur, Stmt { op, args }, Type::Any, span);
        self.refresh_handlers(range);
        v
    }

    /// `name(args...)`.
    pub fn call(&mut self, name: &str, args: Vec<Operand>, range: TextRange) -> Operand {
        self.emit(Op::Call(name.into()), args, range).into()
    }

    /// What a construct that cannot be lowered evaluates to: `error(message)`, or for a
    /// refusal (`unsupported: what`) `error(:unsupported, what)`, which stops a run that
    /// reaches it with the refusal (no `catch` takes it), and nothing before.
    pub fn error_call(&mut self, message: &str, range: TextRange) -> Operand {
        let args = match message.strip_prefix("unsupported: ") {
            Some(what) => vec![
                Const::Symbol("unsupported".into()).into(),
                Const::Str(what.into()).into(),
            ],
            None => vec![Const::Str(message.into()).into()],
        };
        self.call("error", args, range)
    }

    /// Report an error and lower the construct as a call to `error`.
    pub fn fail(&mut self, range: TextRange, code: &'static str, message: String) -> Operand {
        let v = self.error_call(&message, range);
        self.cx.error(range, code, message);
        v
    }

    /// `@isdefined(x)` (the syntax's `isdefined_local(x)`) of a local that is not captured and
    /// reassigned; of a name that is no local here, `isdefined_global(:x)` (whether the module
    /// defines the global: resolution qualifies the name, inference answers); of a captured
    /// local, refused.
    fn is_defined(&mut self, x: &Expr, r: TextRange) -> Operand {
        let found = self.cx.res.local(x);
        let local = found.filter(|&v| !self.cx.res.var(v).boxed);
        match (local, &x.kind) {
            (Some(v), _) => {
                let value = self.read_local(v, r);
                self.call("isdefined_local", vec![value], r)
            }
            (None, ExprKind::Ident(name)) if found.is_none() => {
                let name = Operand::Const(Const::Symbol(name.as_str().into()));
                self.call(zy_ir::ISDEFINED_GLOBAL, vec![name], r)
            }
            (None, ExprKind::Ident(name)) => {
                let message = format!(
                    "unsupported: `@isdefined({name})` of a local that a closure captures and \
                     reassigns"
                );
                self.fail(r, "unsupported", message)
            }
            _ => self.fail(
                r,
                "unsupported",
                "unsupported: `@isdefined` of an expression".into(),
            ),
        }
    }

    /// A new block for the construct at `range` (the span of φs that join in it).
    pub fn new_block(&mut self, range: TextRange) -> Block {
        let b = self.b.func.add_block();
        let span = self.span(range);
        self.block_spans.insert(b, span);
        b
    }

    /// Continue in a block no jump reaches (after `return`, `break`, `continue`), so that the
    /// code after them still lowers; it is dropped at the end.
    pub fn start_dead_block(&mut self) {
        let b = self.b.func.add_block();
        self.b.seal_block(b);
        self.mark_dead(b);
        self.cur = b;
    }

    pub fn jump(&mut self, to: Block, range: TextRange) {
        self.refresh_handlers(range);
        let span = self.span(range);
        self.b
            .set_term(self.cur, Terminator::Jump(BlockCall::new(to)), span);
    }

    /// End the current block with a branch on `cond`; `then_to` and `else_to` are distinct.
    pub fn branch(&mut self, cond: Operand, then_to: Block, else_to: Block, range: TextRange) {
        self.refresh_handlers(range);
        let span = self.span(range);
        let term = Terminator::Branch {
            cond,
            then_to: BlockCall::new(then_to),
            else_to: BlockCall::new(else_to),
        };
        self.b.set_term(self.cur, term, span);
    }

    pub fn ret(&mut self, value: Operand, range: TextRange) {
        let value = match self.convert_return.clone() {
            Some(ReturnConversion::Number(convert)) => self.call(convert, vec![value], range),
            // Julia's `convert(T, v)::T`: `v` itself where it is a `T` already.
            Some(ReturnConversion::Type(ty)) => {
                let ty = self.nonlocal(&ty, range);
                self.call(RETURN_CONVERT, vec![ty, value], range)
            }
            None => value,
        };
        let span = self.span(range);
        self.b.set_term(self.cur, Terminator::Return(value), span);
    }

    /// Give a statement's value the name of the source variable it is assigned to.
    pub fn name(&mut self, value: &Operand, name: &str) {
        if let Operand::Value(v) = value {
            self.b.func.name_value(*v, name.into());
        }
    }

    /// Read a local (through its box if it has one).
    pub fn read_local(&mut self, v: VarId, range: TextRange) -> Operand {
        let var = self.var(v);
        let value = self.b.use_var(self.cur, var);
        let info = self.cx.res.var(v);
        if !info.boxed || !self.boxes.readable(v) {
            return value;
        }
        let name = info.name.clone();
        let x = self.call("getindex", vec![value], range);
        self.name(&x, &name);
        x
    }

    /// Assign a local: a new SSA definition, or a store into its box (made at the first
    /// assignment).
    pub fn assign_local(&mut self, v: VarId, value: Operand, range: TextRange) {
        let res = self.cx.res;
        let value = match res.declared.get(&v) {
            Some(ty) => {
                let ty = self.expr(ty);
                self.call(DECLARED_CONVERT, vec![ty, value], range)
            }
            None => value,
        };
        let var = self.var(v);
        let info = self.cx.res.var(v);
        let name = info.name.clone();
        if !info.boxed {
            self.name(&value, &name);
            self.b.def_var(self.cur, var, value);
            self.refresh_handlers(range);
        } else if self.boxes.maybe.contains(&v) || self.boxes.maybe_unset.contains(&v) {
            let message = format!(
                "unsupported: captured variable `{name}` is reassigned here but assigned on only \
                 some paths before (assign it before the branch)"
            );
            self.fail(range, "unsupported", message);
        } else if self.boxes.unset.remove(&v) {
            let r = self.b.use_var(self.cur, var);
            self.call(BOX_INIT, vec![r, value], range);
        } else if self.boxes.made.insert(v) {
            let r = self.call("Ref", vec![value], range);
            self.name(&r, &name);
            self.b.def_var(self.cur, var, r);
            self.refresh_handlers(range);
        } else {
            let r = self.b.use_var(self.cur, var);
            self.call(BOX_SET, vec![r, value], range);
        }
    }

    /// Lower a sequence; its value is the last expression's (`nothing` if empty).
    pub fn seq(&mut self, es: &[Expr]) -> Operand {
        match es.split_last() {
            Some((last, init)) => {
                self.stmts(init);
                self.expr(last)
            }
            None => Const::Nothing.into(),
        }
    }

    /// Lower a sequence whose value is not used.
    pub fn stmts(&mut self, es: &[Expr]) {
        for e in es {
            self.effect(e);
        }
    }

    /// Lower an expression whose value is not used: control flow then joins no value.
    fn effect(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::If { .. } | ExprKind::Ternary { .. } => {
                self.if_expr(e, false);
            }
            ExprKind::And(a, b) => {
                self.short_circuit(a, b, true, false, e.range);
            }
            ExprKind::Or(a, b) => {
                self.short_circuit(a, b, false, false, e.range);
            }
            ExprKind::Block(es) => self.stmts(es),
            _ => {
                self.expr(e);
            }
        }
    }

    fn all(&mut self, es: &[Expr]) -> Vec<Operand> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    /// Lower an expression to the operand holding its value.
    pub fn expr(&mut self, e: &Expr) -> Operand {
        let r = e.range;
        match &e.kind {
            ExprKind::Float(x) => Const::f64(*x).into(),
            ExprKind::Int(i) => Const::Int(*i).into(),
            ExprKind::Bool(b) => Const::Bool(*b).into(),
            ExprKind::Nothing => Const::Nothing.into(),
            ExprKind::Str(s) => Const::Str(s.as_str().into()).into(),
            ExprKind::Symbol(s) => Const::Symbol(s.as_str().into()).into(),
            ExprKind::Ident(name) => match (self.cx.res.local(e), self.self_value) {
                _ if self.cx.res.sibling_refs.contains_key(&(e as *const Expr)) => {
                    self.sibling(e, r)
                }
                (Some(v), _) => self.read_local(v, r),
                (None, Some(me)) if self.cx.res.self_refs.contains(&(e as *const Expr)) => {
                    me.into()
                }
                _ => self.nonlocal(name, r),
            },
            ExprKind::Tuple(items) if has_splat(items) => self.splat_literal("tuple", items, r),
            ExprKind::Tuple(items) => {
                let args = self.all(items);
                self.call("tuple", args, r)
            }
            ExprKind::NamedTuple(fields) => {
                let names: Vec<Const> = fields
                    .iter()
                    .map(|(n, _)| Const::Symbol(n.as_str().into()))
                    .collect();
                let mut args = vec![Operand::Const(Const::Tuple(names.into()))];
                for (_, x) in fields {
                    args.push(self.expr(x));
                }
                self.call("namedtuple", args, r)
            }
            ExprKind::Vect(items) if has_splat(items) => self.splat_literal("vect", items, r),
            ExprKind::Vect(items) => {
                let args = self.all(items);
                self.call("vect", args, r)
            }
            ExprKind::Matrix(rows) => self.matrix(rows, r),
            ExprKind::Call { callee, args } => self.call_expr(callee, args, r),
            ExprKind::KwCall {
                callee,
                args,
                keywords,
            } => self.keyword_call(callee, args, keywords, r),
            ExprKind::Splat(_) => self.fail(
                r,
                "unsupported",
                "unsupported: `...` outside the arguments of a call; pass the splat to a function (`f(xs...)`, `vcat(xs...)`, `tuple(xs...)`) instead".into(),
            ),
            ExprKind::DotCall { callee, args } if args.len() > 2 && self.is_nary(callee) => {
                let f = self.function_value(callee);
                self.left_fold(args, r, |me, a, b, r| {
                    me.call("broadcast", vec![f.clone(), a, b], r)
                })
            }
            ExprKind::DotCall { callee, args } => {
                let f = self.function_value(callee);
                let mut all = vec![f];
                all.extend(self.all(args));
                self.call("broadcast", all, r)
            }
            ExprKind::Binary {
                op,
                dotted,
                lhs,
                rhs,
            } => {
                if *op == BinOp::Pow
                    && matches!(&lhs.kind, ExprKind::Ident(n) if n == "ℯ")
                    && !self.is_local(lhs)
                {
                    // Julia defines `ℯ^x` as `exp(x)` (not a power of the rounded constant).
                    let x = self.expr(rhs);
                    return if *dotted {
                        self.call("broadcast", vec![Const::Func("exp".into()).into(), x], r)
                    } else {
                        self.call("exp", vec![x], r)
                    };
                }
                let (a, b) = (self.expr(lhs), self.expr(rhs));
                if *op == BinOp::Pow && !*dotted && negative_int_literal(rhs).is_some() {
                    // Julia lowers a literal exponent to `Base.literal_pow`, which differs from
                    // `^` for negative ones (`2^-2` is 0.25, while `2^n` with `n = -2` throws).
                    self.call("literal_pow", vec![a, b], r)
                } else if let (BinOp::Pow, Some(p)) = (op, negative_int_literal(rhs)) {
                    // `x .^ -k` broadcasts `literal_pow` with the literal (the prelude's
                    // `_literal_pow_neg(x, k)` written with literals), not `^`.
                    let f = Const::Func("Base._literal_pow_neg".into()).into();
                    self.call("broadcast", vec![f, a, Const::Int(-p).into()], r)
                } else if *dotted {
                    self.call(
                        "broadcast",
                        vec![Const::Func(op.as_str().into()).into(), a, b],
                        r,
                    )
                } else {
                    self.call(op.as_str(), vec![a, b], r)
                }
            }
            ExprKind::Fold {
                first,
                rest,
                dotted,
            } => self.fold(first, rest, *dotted, r),
            ExprKind::Unary { op, arg } => self.unary(*op, arg, r),
            ExprKind::Index { base, indices } => {
                let x = self.expr(base);
                let mut args = self.indices(&x, indices);
                args.insert(0, x);
                let read = if self.views { "maybeview" } else { "getindex" };
                self.call(read, args, r)
            }
            ExprKind::Views(inner) => {
                let outer = std::mem::replace(&mut self.views, true);
                let v = self.expr(inner);
                self.views = outer;
                v
            }
            ExprKind::Field { base, name } => {
                let s = self.expr(base);
                self.call(
                    crate::GETPROPERTY,
                    vec![s, Const::Symbol(name.as_str().into()).into()],
                    r,
                )
            }
            ExprKind::Range { start, step, stop } => {
                self.range_value(start, step.as_deref(), stop, r)
            }
            ExprKind::IndexEnd => self.index_end(r),
            ExprKind::IndexBegin => self.index_begin(r),
            ExprKind::Colon => self.colon(r),
            ExprKind::Block(es) => self.seq(es),
            ExprKind::Let { var, value, body } => {
                self.let_block(e, var.as_deref(), value.as_deref(), body)
            }
            ExprKind::Narrow { var, value, body } => self.narrow(var, value, body),
            ExprKind::Try {
                body,
                var,
                catch,
                els,
                finally,
            } => self.try_expr(
                e,
                body,
                var.as_deref(),
                catch.as_deref(),
                els.as_deref(),
                finally.as_deref(),
            ),
            ExprKind::Local(_) | ExprKind::Global(_) | ExprKind::Declared { .. } => {
                Const::Nothing.into()
            }
            ExprKind::Error => self.error_call(crate::REFUSED_CONSTRUCT, r),
            ExprKind::Chain { first, rest } => self.chain(first, rest, r),
            ExprKind::And(a, b) => self.short_circuit(a, b, true, true, r),
            ExprKind::Or(a, b) => self.short_circuit(a, b, false, true, r),
            ExprKind::Ternary { .. } | ExprKind::If { .. } => self.if_expr(e, true),
            ExprKind::While { cond, body } => self.while_loop(e, cond, body),
            // Rewritten before lowering (`checkpoint`) except in top-level code, where nothing
            // is differentiated: the plain loop.
            ExprKind::Checkpoint { looped, .. } => self.expr(looped),
            ExprKind::For {
                var,
                iter,
                body,
                inner,
                ..
            } => self.for_loop(e, var, iter, body, *inner),
            ExprKind::Break => self.break_continue(true, r),
            ExprKind::Continue => self.break_continue(false, r),
            ExprKind::Return(value) => self.return_expr(value.as_deref(), r),
            ExprKind::Assign { lhs, rhs } => self.assign(lhs, rhs, r),
            ExprKind::DotAssign { lhs, rhs } => self.dot_assign(lhs, rhs, None, r),
            ExprKind::CompoundAssign {
                op,
                dotted,
                lhs,
                rhs,
            } => self.compound_assign(*op, *dotted, lhs, rhs, r),
            ExprKind::Function(def) => self.closure(def, r),
        }
    }

    /// A name that is not a local: a constant of Base, or a top-level binding or function,
    /// loaded by its own statement so that an undefined name is reported at the identifier.
    pub(crate) fn nonlocal(&mut self, name: &str, r: TextRange) -> Operand {
        match name {
            "pi" | "π" => Const::f64(std::f64::consts::PI).into(),
            "ℯ" => Const::f64(std::f64::consts::E).into(),
            "Inf" => Const::f64(f64::INFINITY).into(),
            "NaN" => Const::f64(f64::NAN).into(),
            _ => self.emit(Op::Global(name.into()), Vec::new(), r).into(),
        }
    }

    /// Does identifier `e` denote a local (or, in an inner function, the function itself)?
    pub(crate) fn is_local(&self, e: &Expr) -> bool {
        let p = e as *const Expr;
        self.cx.res.idents.contains_key(&p) || self.cx.res.self_refs.contains(&p)
    }

    /// The function operand of `broadcast`: a name as a constant function, or a value.
    fn function_value(&mut self, callee: &Expr) -> Operand {
        match &callee.kind {
            ExprKind::Ident(name) if !self.is_local(callee) => {
                Const::Func(name.as_str().into()).into()
            }
            _ => self.expr(callee),
        }
    }

    fn call_expr(&mut self, callee: &Expr, args: &[Expr], r: TextRange) -> Operand {
        if let (ExprKind::Ident(name), [], Some(e)) = (&callee.kind, args, self.caught_exception())
        {
            if name == "rethrow" && !self.is_local(callee) {
                return self.call("rethrow", vec![e], r);
            }
        }
        if let Some(thrown) = self.thrown_exception(callee, args) {
            return thrown;
        }
        if let (ExprKind::Ident(name), [x]) = (&callee.kind, args) {
            if name == "isdefined_local" {
                return self.is_defined(x, r);
            }
        }
        if let Some(made) = self.exception_value(callee, args, r) {
            return made;
        }
        if let (ExprKind::Ident(cat), [arg]) = (&callee.kind, args) {
            if let ExprKind::Splat(list) = &arg.kind {
                if cat == "vcat" && !self.is_local(callee) {
                    if let Some(rows) = self.rows_of(list, true, r) {
                        return rows;
                    }
                }
            }
        }
        if args.iter().any(|a| matches!(a.kind, ExprKind::Splat(_))) {
            return self.splat_call(callee, args, r);
        }
        if let Some(cat) = self.reduce_cat_literal(callee, args, r) {
            return cat;
        }
        // `"x = $x"`: Julia's `string("x = ", x)`.
        if matches!(&callee.kind, ExprKind::Ident(n) if n == INTERPOLATION) {
            let parts = self.all(args);
            return self.call("string", parts, r);
        }
        match &callee.kind {
            ExprKind::Ident(name) if args.len() > 2 && is_nary(name) && !self.is_local(callee) => {
                self.left_fold(args, r, |me, a, b, r| me.call(name, vec![a, b], r))
            }
            ExprKind::Ident(name) if !self.is_local(callee) => {
                let args = self.all(args);
                self.call(name, args, r)
            }
            _ => {
                let mut all = vec![self.expr(callee)];
                all.extend(self.all(args));
                self.emit(Op::CallValue, all, r).into()
            }
        }
    }

    /// `reduce(vcat, [a, b, ...])` and `reduce(hcat, [a, b, ...])` of a literal with two or more
    /// elements: the prelude's `_reduce_cat(vcat, a, b, ...)`, which is `vcat(a, b, ...)` (Julia's
    /// result) when a row is among them, so the vector of rows (`[x', 2x']`), which a zy array
    /// cannot hold, is never built, and `reduce` of the literal otherwise.
    fn reduce_cat_literal(
        &mut self,
        callee: &Expr,
        args: &[Expr],
        r: TextRange,
    ) -> Option<Operand> {
        let (ExprKind::Ident(reduce), [op, list]) = (&callee.kind, args) else {
            return None;
        };
        let ExprKind::Ident(cat) = &op.kind else {
            return None;
        };
        if reduce != "reduce"
            || !matches!(cat.as_str(), "vcat" | "hcat")
            || self.is_local(callee)
            || self.is_local(op)
        {
            return None;
        }
        if cat == "vcat" {
            if let Some(rows) = self.rows_of(list, false, r) {
                return Some(rows);
            }
        }
        let ExprKind::Vect(items) = &list.kind else {
            return None;
        };
        if items.is_empty() || has_splat(items) {
            return None;
        }
        let mut operands = vec![Const::Func(cat.as_str().into()).into()];
        operands.extend(self.all(items));
        Some(self.call("Base._reduce_cat", operands, r))
    }

    /// `[f(x) for x in xs]` whose body is a row (`x'`, `transpose(x)`), or `adjoint.(xs)`,
    /// `transpose.(xs)`, as the rows `reduce(vcat, ...)` or `vcat(...)` stacks: the prelude's
    /// `_stack_rows(f, xs, splatted)`, the matrix whose rows they are (Julia's
    /// `reduce(vcat, rows)`, or `vcat(rows...)` when `splatted`), so that the vector of rows,
    /// which a zy array cannot hold, is never built.
    fn rows_of(&mut self, list: &Expr, splatted: bool, r: TextRange) -> Option<Operand> {
        let (f, xs) = match &list.kind {
            ExprKind::Call { callee, args, .. } if is_ident(callee, "Base.collect") => {
                let [g] = args.as_slice() else {
                    return None;
                };
                let ExprKind::Call { callee, args, .. } = &g.kind else {
                    return None;
                };
                let [f, xs] = args.as_slice() else {
                    return None;
                };
                let ExprKind::Function(def) = &f.kind else {
                    return None;
                };
                let row = match def.body.last().map(|e| &e.kind) {
                    Some(ExprKind::Unary {
                        op: UnOp::Adjoint, ..
                    }) => true,
                    Some(ExprKind::Call { callee, args, .. }) => {
                        is_ident(callee, "transpose") && args.len() == 1 && !self.is_local(callee)
                    }
                    _ => false,
                };
                if !is_ident(callee, "Base.Generator") || !row {
                    return None;
                }
                (f, xs)
            }
            ExprKind::DotCall { callee, args } => {
                let [xs] = args.as_slice() else {
                    return None;
                };
                let row = is_ident(callee, "adjoint") || is_ident(callee, "transpose");
                if !row || self.is_local(callee) || matches!(xs.kind, ExprKind::Splat(_)) {
                    return None;
                }
                (&**callee, xs)
            }
            _ => return None,
        };
        let operands = vec![self.expr(f), self.expr(xs), Const::Bool(splatted).into()];
        Some(self.call("Base._stack_rows", operands, r))
    }

    /// Is `callee` Base's `+` or `*` (not a local of that name)?
    fn is_nary(&self, callee: &Expr) -> bool {
        matches!(&callee.kind, ExprKind::Ident(n) if is_nary(n)) && !self.is_local(callee)
    }

    /// `op(a, b, c, ...)` as Julia's `afoldl`: `op(op(a, b), c)...`, each step by `step`, one
    /// statement per operand (never recursing per operand: chains in generated code have
    /// thousands). The partial results span the source from the first operand to the last one
    /// they include, the whole call's span `r` the last.
    fn left_fold(
        &mut self,
        args: &[Expr],
        r: TextRange,
        step: impl Fn(&mut Self, Operand, Operand, TextRange) -> Operand,
    ) -> Operand {
        let mut acc = self.expr(&args[0]);
        for (i, arg) in args.iter().enumerate().skip(1) {
            let b = self.expr(arg);
            let range = if i + 1 == args.len() {
                r
            } else {
                TextRange::new(args[0].range.start, arg.range.end)
            };
            acc = step(self, acc, b, range);
        }
        acc
    }

    /// `a - b + c - ...` ([`ExprKind::Fold`]): Julia's left-nested calls `-(a, b)`, then
    /// `+(ans, c)`, ... (broadcasts when dotted), one statement per step without recursing per
    /// step. The partial results span the source from `first` to the last operand they
    /// include, the whole chain's span `r` the last, as the nested form's did.
    fn fold(
        &mut self,
        first: &Expr,
        rest: &[(BinOp, Expr)],
        dotted: bool,
        r: TextRange,
    ) -> Operand {
        let mut acc = self.expr(first);
        for (i, (op, arg)) in rest.iter().enumerate() {
            let b = self.expr(arg);
            let range = if i + 1 == rest.len() {
                r
            } else {
                TextRange::new(first.range.start, arg.range.end)
            };
            acc = if dotted {
                let f = Const::Func(op.as_str().into()).into();
                self.call("broadcast", vec![f, acc, b], range)
            } else {
                self.call(op.as_str(), vec![acc, b], range)
            };
        }
        acc
    }

    /// `f(a, t...)`: `splatcall((false, true), f, a, t)`, flagging the splatted arguments.
    fn splat_call(&mut self, callee: &Expr, args: &[Expr], r: TextRange) -> Operand {
        let f = self.function_value(callee);
        let mut flags = Vec::new();
        let mut all = Vec::new();
        for a in args {
            let (flag, value) = match &a.kind {
                ExprKind::Splat(inner) => (true, &**inner),
                _ => (false, a),
            };
            flags.push(Const::Bool(flag));
            all.push(self.expr(value));
        }
        let mut operands = vec![Operand::Const(Const::Tuple(flags.into())), f];
        operands.extend(all);
        self.call(SPLATCALL, operands, r)
    }

    /// `(a, xs...)` and `[a, xs...]`: Julia's `tuple(a, xs...)` and `Base.vect(a, xs...)`
    /// (Base's functions, whatever the program names so).
    fn splat_literal(&mut self, function: &str, items: &[Expr], r: TextRange) -> Operand {
        let callee = Expr::new(ExprKind::Ident(function.into()), r);
        self.splat_call(&callee, items, r)
    }

    /// `error(message)` and `throw(E(message))` of an exception type with a message
    /// (`ArgumentError("bad $x")`, `DomainError(x, "msg")`): `error(:E, parts...)`, which
    /// throws `E` with the parts formatted as Julia's `string` does.
    fn thrown_exception(&mut self, callee: &Expr, args: &[Expr]) -> Option<Operand> {
        let ExprKind::Ident(name) = &callee.kind else {
            return None;
        };
        if self.is_local(callee) {
            return None;
        }
        if name == "error" {
            return self.error_message(args);
        }
        let [arg] = args else {
            return None;
        };
        let ExprKind::Call { callee: ty, args } = &arg.kind else {
            return None;
        };
        let ExprKind::Ident(ty) = &ty.kind else {
            return None;
        };
        if name != "throw" {
            return None;
        }
        match (ty.as_str(), args.as_slice()) {
            (
                "ArgumentError" | "AssertionError" | "DimensionMismatch" | "ErrorException"
                | "OverflowError" | "TypeError",
                [message],
            ) => {
                let parts = message_parts(message)?;
                Some(self.exception(ty, &[], parts, arg.range))
            }
            ("SingularException" | "ZeroPivotException" | "KeyError", [index]) => {
                Some(self.exception(ty, std::slice::from_ref(index), &[], arg.range))
            }
            // Julia's text names the array's summary and the index: the prelude writes it.
            ("BoundsError", [_] | [_, _]) => {
                let operands = args.iter().map(|e| self.expr(e)).collect();
                let text = self.call(BOUNDS_MESSAGE, operands, arg.range);
                let args = vec![Const::Symbol(ty.as_str().into()).into(), text];
                Some(self.call("error", args, arg.range))
            }
            ("DomainError", [value, message]) => {
                let parts = message_parts(message)?;
                Some(self.exception(ty, std::slice::from_ref(value), parts, arg.range))
            }
            ("DomainError", [value]) => {
                Some(self.exception(ty, std::slice::from_ref(value), &[], arg.range))
            }
            // Julia shows it as `InexactError: f(T, x)`, or `T(x)` where `f` is `T`'s name.
            ("InexactError", [func, target, value]) => {
                let ExprKind::Symbol(f) = &func.kind else {
                    return None;
                };
                let head = match &target.kind {
                    ExprKind::Ident(t) if t.split('{').next() != Some(&**f) => {
                        format!("{f}({t}, ")
                    }
                    _ => format!("{f}("),
                };
                let x = self.expr(value);
                let args = vec![
                    Const::Symbol(ty.as_str().into()).into(),
                    Const::Str(head.as_str().into()).into(),
                    x,
                    Const::Str(")".into()).into(),
                ];
                Some(self.call("error", args, arg.range))
            }
            ("UndefKeywordError", [message]) => {
                let ExprKind::Str(keyword) = &message.kind else {
                    return None;
                };
                let text = format!("keyword argument `{keyword}` not assigned");
                let text = Expr::new(ExprKind::Str(text), message.range);
                Some(self.exception(ty, &[], &[text], arg.range))
            }
            _ => None,
        }
    }

    /// `error(x...)`: Julia throws `ErrorException(string(x...))`, so the parts are an
    /// interpolation's pieces, or the arguments themselves (`error(msg)`, `error("bad: ", x)`).
    /// A literal message stays as it is (`error("msg")`), as does the library's typed form
    /// `error(:ArgumentError, parts...)`; no argument, or a splatted one, is left to the call's
    /// own refusal.
    fn error_message(&mut self, args: &[Expr]) -> Option<Operand> {
        let (first, last) = (args.first()?, args.last()?);
        if matches!(first.kind, ExprKind::Symbol(_))
            || args.iter().any(|a| matches!(a.kind, ExprKind::Splat(_)))
            || matches!(
                args,
                [Expr {
                    kind: ExprKind::Str(_),
                    ..
                }]
            )
        {
            return None;
        }
        let parts = match args {
            [arg] => message_parts(arg).unwrap_or(args),
            _ => args,
        };
        let range = TextRange::new(first.range.start, last.range.end);
        Some(self.exception("ErrorException", &[], parts, range))
    }

    /// A Base exception constructed as a value (`e = ArgumentError(msg)`, `DomainError(x,
    /// msg)`, `KeyError(k)`, `DivideError()`): `exception_new(:E, values..., parts...)`, a
    /// caught-exception value that `throw` raises, with the text `error(:E, ...)` would raise.
    fn exception_value(&mut self, callee: &Expr, args: &[Expr], r: TextRange) -> Option<Operand> {
        let ExprKind::Ident(ty) = &callee.kind else {
            return None;
        };
        if self.is_local(callee) || args.iter().any(|a| matches!(a.kind, ExprKind::Splat(_))) {
            return None;
        }
        // The message: its parts (of an interpolation), or a value printed; or Julia's text.
        let fixed = |text: &str| Some(Operand::from(Const::Str(text.into())));
        let (parts, text): (&[Expr], Option<Operand>) = match (ty.as_str(), args) {
            (
                "ArgumentError"
                | "AssertionError"
                | "DimensionMismatch"
                | "ErrorException"
                | "OverflowError"
                | "StringIndexError"
                | "InvalidStateException",
                [message],
            ) => (message_parts(message).unwrap_or(args), None),
            ("AssertionError", []) => (args, fixed("")),
            ("DivideError", []) => (args, fixed("integer division error")),
            ("EOFError", []) => (args, fixed("read end of file")),
            ("UndefRefError", []) => (args, fixed("access to undefined reference")),
            ("KeyError" | "SingularException" | "ZeroPivotException" | "DomainError", [_])
            | ("DomainError", [_, _]) => (args, None),
            (ty, _) if NOT_VALUES.contains(&ty) => {
                let message = format!(
                    "unsupported: `{ty}(...)` as a value (zy makes `ArgumentError(msg)`, \
                     `AssertionError(msg)`, `DimensionMismatch(msg)`, `ErrorException(msg)`, \
                     `OverflowError(msg)`, `DomainError(x[, msg])`, `KeyError(k)`, `DivideError()`, \
                     `EOFError()`; a `catch` receives the others as the runtime raises them)"
                );
                return Some(self.fail(r, "unsupported", message));
            }
            _ => return None,
        };
        let mut operands = vec![Const::Symbol(ty.as_str().into()).into()];
        for e in parts {
            let x = self.expr(e);
            operands.push(x);
        }
        operands.extend(text);
        Some(self.call("exception_new", operands, r))
    }

    /// `error(:E, values..., parts...)`.
    fn exception(&mut self, ty: &str, values: &[Expr], parts: &[Expr], r: TextRange) -> Operand {
        let mut args = vec![Const::Symbol(ty.into()).into()];
        for e in values.iter().chain(parts) {
            let x = self.expr(e);
            args.push(x);
        }
        self.call("error", args, r)
    }

    /// `f(args...; keywords...)`: `kwcall(names, values..., f, args...)`, where `names` is a
    /// tuple of symbols with `...` for a splatted named tuple.
    fn keyword_call(
        &mut self,
        callee: &Expr,
        args: &[Expr],
        keywords: &[KeywordArg],
        r: TextRange,
    ) -> Operand {
        let f = self.function_value(callee);
        let splats: Vec<bool> = args
            .iter()
            .map(|a| matches!(a.kind, ExprKind::Splat(_)))
            .collect();
        let positional: Vec<Operand> = args
            .iter()
            .map(|a| match &a.kind {
                ExprKind::Splat(inner) => self.expr(inner),
                _ => self.expr(a),
            })
            .collect();
        let mut names = Vec::new();
        let mut values = Vec::new();
        for k in keywords {
            let name = match k {
                KeywordArg::Named { name, range, .. } => {
                    if names.contains(&Const::Symbol(name.as_str().into())) {
                        let message = format!("syntax: keyword argument `{name}` repeated in call");
                        return self.fail(*range, "syntax-error", message);
                    }
                    name.as_str()
                }
                KeywordArg::Splat(_) => "...",
            };
            names.push(Const::Symbol(name.into()));
            values.push(self.expr(k.value()));
        }
        let mut all = vec![Operand::Const(Const::Tuple(names.into()))];
        all.extend(values);
        all.push(f);
        if !splats.contains(&true) {
            all.extend(positional);
            return self.call(KWCALL, all, r);
        }
        // `f(xs...; kw)`: the splatting call of `kwcall` whose positional arguments splat.
        let flags: Vec<Const> = std::iter::repeat_n(false, all.len())
            .chain(splats)
            .map(Const::Bool)
            .collect();
        let mut operands = vec![
            Operand::Const(Const::Tuple(flags.into())),
            Operand::Const(Const::Func(KWCALL.into())),
        ];
        operands.extend(all);
        operands.extend(positional);
        self.call(SPLATCALL, operands, r)
    }

    fn unary(&mut self, op: UnOp, arg: &Expr, r: TextRange) -> Operand {
        match (op, &arg.kind) {
            // A negative literal is a literal.
            (UnOp::Neg, ExprKind::Int(i)) if *i != i64::MIN => return Const::Int(-i).into(),
            (UnOp::Neg, ExprKind::Float(x)) => return Const::f64(-x).into(),
            _ => {}
        }
        let a = self.expr(arg);
        let name = match op {
            UnOp::Neg => "-",
            UnOp::Plus => "+",
            UnOp::Not => "!",
            UnOp::Adjoint => "adjoint",
        };
        self.call(name, vec![a], r)
    }

    /// `[a b; c d]`: `hvcat(rows, cols, elements...)` when every row holds as many elements;
    /// rows of different lengths (`[v'; w' 1]`, `[A B; C]`) are Julia's `hvcat((1, 2), ...)`,
    /// the tuple of the row lengths, since blocks of different widths may still fit.
    fn matrix(&mut self, rows: &[Vec<Expr>], r: TextRange) -> Operand {
        let cols = rows.first().map_or(0, |row| row.len());
        let mut args: Vec<Operand> = match rows.iter().all(|row| row.len() == cols) {
            true => vec![
                Const::Int(rows.len() as i64).into(),
                Const::Int(cols as i64).into(),
            ],
            false => {
                let lengths = rows.iter().map(|row| Const::Int(row.len() as i64));
                vec![Operand::Const(Const::Tuple(
                    lengths.collect::<Vec<_>>().into(),
                ))]
            }
        };
        for row in rows {
            args.extend(self.all(row));
        }
        self.call("hvcat", args, r)
    }

    /// End the body: return `value`, build the φs, and tidy the result.
    pub fn finish(mut self, value: Operand, range: TextRange) -> Function {
        self.ret(value, range);
        let mut f = self.b.finish();
        // The builder's φs carry no span: give them their block's construct.
        for (b, span) in self.block_spans {
            for p in f.block(b).params.clone() {
                f.values[p.index()].span = span;
            }
        }
        let f = crate::tidy::tidy(f);
        zy_ir::debug_verify(&f, "lowering");
        f
    }
}

/// `undef(:name)`: the value of a local where no assignment reaches.
fn undef_stmt(name: Name) -> Stmt {
    Stmt {
        op: Op::Call("undef".into()),
        args: vec![Const::Symbol(name).into()],
    }
}

/// Is `e` an integer literal below zero as written (`-2` or `(-2)`, where the parser reads a
/// signed literal; `- 2` and `-(2)` are calls of `-`, as in Julia)?
/// The value of a negative integer literal.
fn negative_int_literal(e: &Expr) -> Option<i64> {
    match e.kind {
        ExprKind::Int(i) if i < 0 => Some(i),
        _ => None,
    }
}

/// The pieces of an exception message: a string literal, or the parts of an interpolated one
/// (`string("bad ", x)`).
fn message_parts(e: &Expr) -> Option<&[Expr]> {
    match &e.kind {
        ExprKind::Str(_) => Some(std::slice::from_ref(e)),
        ExprKind::Call { callee, args } => match &callee.kind {
            ExprKind::Ident(n) if n == INTERPOLATION => Some(args),
            _ => None,
        },
        _ => None,
    }
}

/// Base's exception types a program may not construct as values (every other form of the
/// types `exception_value` makes is refused by name too).
const NOT_VALUES: &[&str] = &[
    "ArgumentError",
    "AssertionError",
    "DimensionMismatch",
    "ErrorException",
    "OverflowError",
    "DomainError",
    "KeyError",
    "DivideError",
    "EOFError",
    "BoundsError",
    "MethodError",
    "TypeError",
    "UndefVarError",
    "UndefKeywordError",
    "UndefRefError",
    "InexactError",
    "StackOverflowError",
    "OutOfMemoryError",
    "InterruptException",
    "SystemError",
    "SingularException",
    "ZeroPivotException",
    "StringIndexError",
];

/// Does a tuple or vector literal splat one of its items (`(xs..., y)`)?
/// Is `e` the name `name`?
fn is_ident(e: &Expr, name: &str) -> bool {
    matches!(&e.kind, ExprKind::Ident(n) if n == name)
}

fn has_splat(items: &[Expr]) -> bool {
    items.iter().any(|e| matches!(e.kind, ExprKind::Splat(_)))
}

/// Base's operators whose calls take any number of operands and fold to the left
/// (`+(a, b, c) == (a + b) + c`): the two Julia parses a chain of as one call.
fn is_nary(name: &str) -> bool {
    name == "+" || name == "*"
}
