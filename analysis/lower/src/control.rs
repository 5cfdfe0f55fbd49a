//! Control flow: `if`/ternary, short-circuit `&&`/`||`, comparison chains, `while`, counted
//! `for` loops, `break`, `continue`, `return`. Values that meet at a join are written to a
//! hidden variable in each arm, so the SSA builder makes (or avoids) the φ.

use zy_ir::{Block, Const, Op, Operand, Var};
use zy_syntax::ast::{BinOp, Expr, ExprKind, TextRange};

use crate::body::{BodyLowerer, LoopTargets};
use crate::trycatch::Exit;

/// The builtin counting a range's elements, called by its qualified name so that a user
/// function named `range_length` does not capture the loops' calls.
const RANGE_LENGTH: &str = "Base.range_length";
/// The builtin a counted loop starts from: `a` itself for Int ends, Julia's Float64 range
/// `a:s:b` when one of them is a Float64.
const LOOP_RANGE: &str = "Base.loop_range";
/// The builtin giving element `k` (from 0) of a counted loop: `a + k * s` for Int ends, the
/// range's `r[k + 1]` for a Float64 range.
const LOOP_ELEM: &str = "Base.loop_elem";
/// The library function giving element `k` (from 1) of a collection as iteration yields it:
/// `x[k]` (inference falls back to `getindex`) except for iterators whose elements are not
/// their indexed values (`pairs(x)` yields `k => x[k]`, where `pairs(x)[k]` is `x[k]`).
const ITERATE_AT: &str = "Base._gen_elem";

impl BodyLowerer<'_, '_> {
    /// `if c1 b1 elseif c2 b2 else e end` or `c ? a : b`; without an else, the value is
    /// `nothing` when no condition holds. With `want` false the value is not used (`nothing`
    /// is returned) and no φ joins it.
    pub(crate) fn if_expr(&mut self, e: &Expr, want: bool) -> Operand {
        let (branches, els): (Vec<Arm>, Option<&[Expr]>) = match &e.kind {
            ExprKind::If { branches, els } => (
                branches
                    .iter()
                    .map(|(c, body)| (c, body.as_slice()))
                    .collect(),
                els.as_deref(),
            ),
            ExprKind::Ternary { cond, then, els } => (
                vec![(&**cond, std::slice::from_ref(&**then))],
                Some(std::slice::from_ref(&**els)),
            ),
            _ => return self.expr(e),
        };
        let result = self.hidden();
        let join = self.new_block(e.range);
        let mut arms = Vec::new();
        for (cond, body) in branches {
            let c = self.expr(cond);
            let then_b = self.new_block(e.range);
            let else_b = self.new_block(e.range);
            self.branch(c, then_b, else_b, cond.range);
            self.b.seal_block(then_b);
            self.b.seal_block(else_b);
            self.cur = then_b;
            let before = self.boxes.clone();
            self.arm(body, want, result);
            arms.push(self.arm_boxes());
            self.jump(join, e.range);
            self.boxes = before;
            self.cur = else_b;
        }
        self.arm(els.unwrap_or_default(), want, result);
        arms.push(self.arm_boxes());
        self.jump(join, e.range);
        self.b.seal_block(join);
        self.cur = join;
        self.join_boxes(&arms);
        self.joined(want, result)
    }

    /// One arm of a conditional: its value (if wanted) goes to `result`.
    fn arm(&mut self, body: &[Expr], want: bool, result: Var) {
        if want {
            let v = self.seq(body);
            self.b.def_var(self.cur, result, v);
        } else {
            self.stmts(body);
        }
    }

    /// The value at a join: the φ of `result`, or `nothing` if unused.
    fn joined(&mut self, want: bool, result: Var) -> Operand {
        if want {
            self.b.use_var(self.cur, result)
        } else {
            Const::Nothing.into()
        }
    }

    /// `a && b` (`and`) or `a || b`: `b` is evaluated only if `a` does not decide.
    pub(crate) fn short_circuit(
        &mut self,
        a: &Expr,
        b: &Expr,
        and: bool,
        want: bool,
        r: TextRange,
    ) -> Operand {
        let result = self.hidden();
        let x = self.expr(a);
        self.b.def_var(self.cur, result, Const::Bool(!and));
        let rhs = self.new_block(r);
        let join = self.new_block(r);
        if and {
            self.branch(x, rhs, join, a.range);
        } else {
            self.branch(x, join, rhs, a.range);
        }
        self.b.seal_block(rhs);
        self.cur = rhs;
        let skipped = Some(self.boxes.clone());
        self.arm(std::slice::from_ref(b), want, result);
        let evaluated = self.arm_boxes();
        self.jump(join, r);
        self.b.seal_block(join);
        self.cur = join;
        self.join_boxes(&[skipped, evaluated]);
        self.joined(want, result)
    }

    /// `a < b <= c`: each operand evaluated once, each later comparison only if the earlier
    /// ones hold.
    pub(crate) fn chain(&mut self, first: &Expr, rest: &[(BinOp, Expr)], r: TextRange) -> Operand {
        let result = self.hidden();
        let join = self.new_block(r);
        let mut lhs = self.expr(first);
        let mut lhs_start = first.range.start;
        let mut arms = Vec::new();
        for (i, (op, e)) in rest.iter().enumerate() {
            let rhs = self.expr(e);
            // The span of this comparison alone: `b <= c` in `a < b <= c`.
            let pair = TextRange::new(lhs_start, e.range.end);
            let c = self.call(op.as_str(), vec![lhs, rhs.clone()], pair);
            self.b.def_var(self.cur, result, c.clone());
            arms.push(self.arm_boxes());
            if i + 1 == rest.len() {
                self.jump(join, r);
            } else {
                let next = self.new_block(r);
                self.branch(c, next, join, pair);
                self.b.seal_block(next);
                self.cur = next;
            }
            lhs = rhs;
            lhs_start = e.range.start;
        }
        self.b.seal_block(join);
        self.cur = join;
        self.join_boxes(&arms);
        self.b.use_var(join, result)
    }

    /// Start a loop body: its scope's locals are fresh in every iteration.
    fn enter_body(&mut self, looped: &Expr) {
        let fresh = self
            .cx
            .res
            .loop_locals
            .get(&(looped as *const Expr))
            .cloned();
        for v in fresh.unwrap_or_default() {
            self.boxes.made.remove(&v);
            self.boxes.maybe.remove(&v);
            let var = self.var(v);
            let name = self.cx.res.var(v).name.clone();
            let undef = self.call(
                "undef",
                vec![Const::Symbol(name.as_str().into()).into()],
                looped.range,
            );
            self.b.def_var(self.cur, var, undef);
        }
    }

    /// `let var = value; body end`: `value` in the enclosing scope, then `var` and the body's
    /// own locals bound afresh; the value is the body's.
    pub(crate) fn let_block(
        &mut self,
        scoped: &Expr,
        var: Option<&Expr>,
        value: Option<&Expr>,
        body: &[Expr],
    ) -> Operand {
        let value = value.map(|v| self.expr(v));
        self.enter_body(scoped);
        if let (Some(var), Some(value)) = (var, value) {
            self.bind(var, value);
        }
        self.seq(body)
    }

    /// `body` where the local `var` is known by a test: `var` rebound to `value`
    /// (`Base._notnothing(var)`, `#narrow_isa(var, T)`) for the body and to its value
    /// again after it (a boxed `var`, or a name that is not a local, is left as it is).
    pub(crate) fn narrow(&mut self, var: &Expr, value: &Expr, body: &[Expr]) -> Operand {
        let Some(v) = self
            .cx
            .res
            .local(var)
            .filter(|&v| !self.cx.res.var(v).boxed)
        else {
            return self.seq(body);
        };
        let old = self.read_local(v, var.range);
        let value = self.expr(value);
        self.assign_local(v, value, var.range);
        let result = self.seq(body);
        self.assign_local(v, old, var.range);
        result
    }

    /// `while cond body end`.
    pub(crate) fn while_loop(&mut self, looped: &Expr, cond: &Expr, body: &[Expr]) -> Operand {
        let r = looped.range;
        let header = self.new_block(r);
        self.jump(header, r);
        self.cur = header;
        let c = self.expr(cond);
        let body_b = self.new_block(r);
        let exit = self.new_block(r);
        self.branch(c, body_b, exit, cond.range);
        self.b.seal_block(body_b);
        self.cur = body_b;
        self.enter_body(looped);
        self.loops.push(LoopTargets {
            brk: exit,
            cont: header,
        });
        self.stmts(body);
        self.loops.pop();
        self.jump(header, r);
        self.b.seal_block(header);
        self.b.seal_block(exit);
        self.cur = exit;
        Const::Nothing.into()
    }

    /// `for var in a:s:b` (a counted loop over `range_length`: `loop_range` is `a` for Int ends,
    /// a Float64 range otherwise, `loop_elem` the element) or `for var in xs` (over `length`
    /// and [`ITERATE_AT`]). A hidden counter drives the loop; `var` is bound afresh in each
    /// iteration.
    pub(crate) fn for_loop(
        &mut self,
        looped: &Expr,
        var: &Expr,
        iter: &Expr,
        body: &[Expr],
        inner: bool,
    ) -> Operand {
        let r = looped.range;
        // `for v in Iterators.filter(p, xs)` (or `takewhile`, `dropwhile`) in the header: a
        // loop over `xs` that tests `p(v)` on each element (their length is known only by
        // calling `p`; Julia's loop asks none).
        let (iter, lazy) = match lazy_iterator(iter) {
            Some((module, kind, p, xs)) if !self.is_local(module) => {
                let p = self.expr(p);
                let dropping = (kind == Lazy::DropWhile).then(|| {
                    let flag = self.hidden();
                    self.b.def_var(self.cur, flag, Const::Bool(true));
                    flag
                });
                (xs, Some((kind, p, dropping)))
            }
            _ => (iter, None),
        };
        let k = self.hidden();
        let (source, n, first_k) = match &iter.kind {
            ExprKind::Range { start, step, stop } => {
                let a = self.expr(start);
                let s = step.as_deref().map(|s| self.expr(s));
                let b = self.expr(stop);
                let step_arg = s.clone().unwrap_or(Const::Int(1).into());
                let ends = vec![a, step_arg.clone(), b.clone()];
                let a = self.call(LOOP_RANGE, ends, iter.range);
                let n = self.call(RANGE_LENGTH, vec![a.clone(), step_arg, b], iter.range);
                (Source::Range { start: a, step: s }, n, 0)
            }
            _ => {
                let xs = self.expr(iter);
                let n = self.call("length", vec![xs.clone()], iter.range);
                (Source::Collection(xs), n, 1)
            }
        };
        self.b.def_var(self.cur, k, Const::Int(first_k));
        let header = self.new_block(r);
        self.jump(header, r);
        self.cur = header;
        let kv = self.b.use_var(header, k);
        let cmp = match source {
            Source::Range { .. } => "<",
            Source::Collection(_) => "<=",
        };
        let c = self.call(cmp, vec![kv, n], iter.range);
        let body_b = self.new_block(r);
        let exit = self.new_block(r);
        self.branch(c, body_b, exit, iter.range);
        self.b.seal_block(body_b);
        self.cur = body_b;
        self.enter_body(looped);
        let kv = self.b.use_var(body_b, k);
        let element = match source {
            Source::Range { start, step: None } => {
                self.call(LOOP_ELEM, vec![start, kv], iter.range)
            }
            Source::Range {
                start,
                step: Some(s),
            } => self.call(LOOP_ELEM, vec![start, kv, s], iter.range),
            Source::Collection(xs) => self.call(ITERATE_AT, vec![xs, kv], iter.range),
        };
        let latch = match lazy {
            Some((kind, p, dropping)) => {
                let latch = self.new_block(r);
                self.lazy_test(kind, p, dropping, &element, (latch, exit), iter.range);
                self.bind(var, element);
                latch
            }
            None => {
                self.bind(var, element);
                self.new_block(r)
            }
        };
        // The inner loop of `for i in a, j in b`: `break` leaves the outer loop too.
        let brk = match self.loops.last() {
            Some(outer) if inner => outer.brk,
            _ => exit,
        };
        self.loops.push(LoopTargets { brk, cont: latch });
        self.stmts(body);
        self.loops.pop();
        self.jump(latch, r);
        self.b.seal_block(latch);
        self.cur = latch;
        let kv = self.b.use_var(latch, k);
        let next = self.call("+", vec![kv, Const::Int(1).into()], r);
        self.b.def_var(latch, k, next);
        self.jump(header, r);
        self.b.seal_block(header);
        self.b.seal_block(exit);
        self.cur = exit;
        Const::Nothing.into()
    }

    /// The test a lazy iterator in a loop header makes on `element` before the body: for
    /// `filter`, on to `next` (the latch) unless `p(element)`; for `takewhile`, out of the loop
    /// (`exit`) unless `p(element)`; for `dropwhile`, while `dropping`, on to `next` if
    /// `p(element)`, else no longer dropping. Leaves `self.cur` at the body.
    fn lazy_test(
        &mut self,
        kind: Lazy,
        p: Operand,
        dropping: Option<Var>,
        element: &Operand,
        (next, exit): (Block, Block),
        range: TextRange,
    ) {
        let r = range;
        let body = self.new_block(r);
        match (kind, dropping) {
            (Lazy::DropWhile, Some(flag)) => {
                let test = self.new_block(r);
                let still = self.b.use_var(self.cur, flag);
                self.branch(still, test, body, r);
                self.b.seal_block(test);
                self.cur = test;
                let holds = self.emit(Op::CallValue, vec![p, element.clone()], r);
                self.branch(holds.into(), next, body, r);
                self.b.seal_block(body);
                self.cur = body;
                self.b.def_var(body, flag, Const::Bool(false));
                return;
            }
            (Lazy::TakeWhile, _) => {
                let holds = self.emit(Op::CallValue, vec![p, element.clone()], r);
                self.branch(holds.into(), body, exit, r);
            }
            _ => {
                let holds = self.emit(Op::CallValue, vec![p, element.clone()], r);
                self.branch(holds.into(), body, next, r);
            }
        }
        self.b.seal_block(body);
        self.cur = body;
    }

    /// `break` (`brk`) or `continue`.
    pub(crate) fn break_continue(&mut self, brk: bool, r: TextRange) -> Operand {
        let Some(targets) = self.loops.last() else {
            let word = if brk { "break" } else { "continue" };
            return self.fail(
                r,
                "syntax-error",
                format!("syntax: `{word}` outside a loop"),
            );
        };
        let to = if brk { targets.brk } else { targets.cont };
        let exit = if brk { Exit::Break } else { Exit::Continue };
        if !self.exit_regions(exit, None, Some(to), r) {
            self.jump(to, r);
            self.start_dead_block();
        }
        Const::Nothing.into()
    }

    /// `return` / `return x`.
    pub(crate) fn return_expr(&mut self, value: Option<&Expr>, r: TextRange) -> Operand {
        if self.toplevel {
            return self.fail(
                r,
                "syntax-error",
                "syntax: `return` at top level".to_string(),
            );
        }
        let v = match value {
            Some(e) => self.expr(e),
            None => Const::Nothing.into(),
        };
        self.return_value(v, r);
        Const::Nothing.into()
    }

    /// Return `v`, through the `finally` bodies of the `try` regions it leaves.
    pub(crate) fn return_value(&mut self, v: Operand, r: TextRange) {
        if !self.exit_regions(Exit::Return, Some(v.clone()), None, r) {
            self.ret(v, r);
            self.start_dead_block();
        }
    }
}

/// A condition and the body it guards.
type Arm<'e> = (&'e Expr, &'e [Expr]);

/// What a `for` loop iterates over.
enum Source {
    /// `start:step:stop` (`step` absent for `start:stop`).
    Range {
        start: Operand,
        step: Option<Operand>,
    },
    Collection(Operand),
}

/// A lazy iterator of `Base.Iterators` whose length only its predicate knows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lazy {
    Filter,
    TakeWhile,
    DropWhile,
}

/// `Iterators.filter(p, xs)` (or `takewhile`, `dropwhile`, or the same under `Base.`): the
/// module's first name, which iterator, `p` and `xs`.
fn lazy_iterator(iter: &Expr) -> Option<(&Expr, Lazy, &Expr, &Expr)> {
    let ExprKind::Call { callee, args } = &iter.kind else {
        return None;
    };
    let ExprKind::Field { base, name } = &callee.kind else {
        return None;
    };
    let module = match &base.kind {
        ExprKind::Ident(m) if m == "Iterators" => base,
        ExprKind::Field { base: outer, name } if name == "Iterators" => match &outer.kind {
            ExprKind::Ident(b) if b == "Base" => outer,
            _ => return None,
        },
        _ => return None,
    };
    let kind = match name.as_str() {
        "filter" => Lazy::Filter,
        "takewhile" => Lazy::TakeWhile,
        "dropwhile" => Lazy::DropWhile,
        _ => return None,
    };
    match args.as_slice() {
        [p, xs] => Some((&**module, kind, p, xs)),
        _ => None,
    }
}
