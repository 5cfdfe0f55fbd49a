//! `# zy: checkpoint [snapshots=K]` above a `for` or `while` loop: the loop is rewritten, before
//! names are resolved, into `checkpointed` calls of a step function of the loop-carried state,
//! so the gradient keeps the state at some iterations instead of every iteration's tape, and
//! the pullback recomputes the rest (`docs/checkpointing.md`). Without `snapshots`, a `for`
//! loop runs in chunks of `⌈√n⌉` iterations (below) and a `while` loop in chunks of 1, 2, 3,
//! ... ([`growing`]); with `snapshots=K`, Revolve's binomial schedule ([`revolved`],
//! [`revolved_while`]).
//!
//! ```julia
//! # zy: checkpoint
//! for i in a:s:b            #ck_a = a; #ck_s = s; #ck_n = Base.range_length(#ck_a, #ck_s, b)
//!     body                  #ck_c = ⌈√n⌉ iterations per chunk
//! end                       #ck_j = 0
//!                           while #ck_j < #ck_n
//!                               (x, h) = checkpointed(function (x, h, #ck_a, #ck_s, lo, hi)
//!                                       for k in lo:hi    (a `while` loop: [`iterations`])
//!                                           local i; i = #ck_a + k * #ck_s; body
//!                                       end
//!                                       (x, h)
//!                                   end, x, h, #ck_a, #ck_s, #ck_j, min(#ck_j + #ck_c, #ck_n) - 1)
//!                               #ck_j = #ck_j + #ck_c
//!                           end
//! ```
//!
//! The state threaded through the step is every local of the enclosing scopes that the body
//! names (read or assigned), so a number the loop only reads gets its gradient accumulated
//! in the same order as in the plain loop (the gradient of the step's result flows into the
//! next chunk's), and the gradient is the plain loop's bit for bit. Each iteration runs the
//! plain loop's operations on the same values (`getindex(xs, k)` for a collection,
//! `a + k * s` for a range). `break` and `return` in the body, which would leave only the
//! chunk, are refused.

use zy_syntax::ast::{Expr, ExprKind, FunctionDef, FunctionName, Param, TextRange};

use crate::scope::{target_names, Resolution, ScopeError};

/// `def` with every annotated loop rewritten (`None` if it has none), and the annotated loops
/// refused, which are lowered as plain loops.
pub(crate) fn rewrite(def: &FunctionDef) -> (Option<FunctionDef>, Vec<ScopeError>) {
    if !def.body.iter().any(has_checkpoint) {
        return (None, Vec::new());
    }
    let mut def = def.clone();
    let mut errors = Vec::new();
    let mut count = 0;
    loop {
        let res = Resolution::of_function(&def);
        let mut done = None;
        for e in &mut def.body {
            if visit_first(e, &mut |e| replace(e, &res, count, &mut errors)) {
                done = Some(());
                break;
            }
        }
        if done.is_none() {
            return (Some(def), errors);
        }
        count += 1;
    }
}

/// Does `e` hold an annotated loop?
fn has_checkpoint(e: &Expr) -> bool {
    if matches!(e.kind, ExprKind::Checkpoint { .. }) {
        return true;
    }
    let mut found = false;
    each_child(e, &mut |c| found = found || has_checkpoint(c));
    found
}

/// Calls `f` on the first annotated loop in `e` (outermost first, in source order); whether
/// there was one.
fn visit_first(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) -> bool {
    if matches!(e.kind, ExprKind::Checkpoint { .. }) {
        f(e);
        return true;
    }
    let mut done = false;
    each_child_mut(e, &mut |c| {
        if !done {
            done = visit_first(c, f);
        }
    });
    done
}

/// Replace the annotated loop `e` by its chunked form (the `count`th in the item), or by the
/// plain loop with an error in `errors`.
fn replace(e: &mut Expr, res: &Resolution, count: usize, errors: &mut Vec<ScopeError>) {
    let ExprKind::Checkpoint { snapshots, looped } = &e.kind else {
        return;
    };
    let refusal = match &looped.kind {
        ExprKind::For { outer: true, .. } => Some((
            looped.range,
            "unsupported: `for outer` loop under `# zy: checkpoint`".to_string(),
        )),
        ExprKind::For { body, .. } => leaves_chunk(body),
        ExprKind::While { body, .. } => leaves_chunk(body),
        _ => None,
    };
    let replacement = match refusal {
        Some((range, message)) => {
            errors.push(ScopeError { range, message });
            (**looped).clone()
        }
        None => match (&looped.kind, snapshots) {
            (ExprKind::While { .. }, None) => growing(looped, res, count),
            (ExprKind::While { .. }, Some(k)) => revolved_while(looped, *k, res, count),
            (_, Some(k)) => revolved(looped, *k, res, count),
            (_, None) => chunked(looped, res, count),
        },
    };
    *e = replacement;
}

/// A `break` or `return` in a loop body that would leave the chunk instead of the loop.
fn leaves_chunk(body: &[Expr]) -> Option<(TextRange, String)> {
    fn walk(e: &Expr, in_loop: bool) -> Option<(TextRange, String)> {
        match &e.kind {
            ExprKind::Break if !in_loop => Some((
                e.range,
                "unsupported: `break` in a loop under `# zy: checkpoint`; leave the loop through its \
                 condition (`while k <= n && !done`), or drop the comment, instead"
                    .to_string(),
            )),
            ExprKind::Return(_) => Some((
                e.range,
                "unsupported: `return` in a loop under `# zy: checkpoint`; leave the loop through its \
                 condition and return after it, or drop the comment, instead"
                    .to_string(),
            )),
            ExprKind::Function(_) => None,
            ExprKind::While { .. } | ExprKind::For { inner: false, .. } => {
                let mut found = None;
                each_child(e, &mut |c| found = found.take().or_else(|| walk(c, true)));
                found
            }
            _ => {
                let mut found = None;
                each_child(e, &mut |c| {
                    found = found.take().or_else(|| walk(c, in_loop))
                });
                found
            }
        }
    }
    body.iter().find_map(|e| walk(e, false))
}

/// What a `for` loop's iterations index, evaluated once before it as the plain loop does:
/// `(start, step)` of a range, or the collection, with `n` their count.
struct Source {
    /// The assignments of the hidden names.
    setup: Vec<Expr>,
    /// The hidden names the iterations read (`a`, `s`, or `r`).
    names: Vec<&'static str>,
    /// The index of the first iteration (0 for a range, 1 for a collection).
    first: i64,
    /// The loop variable's value at index `k` (the hidden name `k`).
    element: Expr,
}

impl Source {
    fn of(g: &Gen, iter: &Expr) -> Source {
        match &iter.kind {
            ExprKind::Range { start, step, stop } => {
                let s = step.as_deref().cloned().unwrap_or(g.int(1));
                let n = g.call(
                    "Base.range_length",
                    vec![g.id("a"), g.id("s"), (**stop).clone()],
                );
                let offset = g.call("*", vec![g.id("k"), g.id("s")]);
                Source {
                    setup: vec![
                        g.assign("a", (**start).clone()),
                        g.assign("s", s),
                        g.assign("n", n),
                    ],
                    names: vec!["a", "s"],
                    first: 0,
                    element: g.call("+", vec![g.id("a"), offset]),
                }
            }
            _ => Source {
                setup: vec![
                    g.assign("r", iter.clone()),
                    g.assign("n", g.call("length", vec![g.id("r")])),
                ],
                names: vec!["r"],
                first: 1,
                element: g.call("getindex", vec![g.id("r"), g.id("k")]),
            },
        }
    }
}

/// The plain loop's iterations `lo:hi` (hidden names) of `body` with the loop variable `var`,
/// counted by a `while` loop (`k` is `lo - 1`, then each iteration's index), which compiles
/// to a compare and an add where a range would need its length computed for every chunk:
///
/// ```julia
/// #ck_k = #ck_lo - 1
/// while #ck_k < #ck_hi
///     #ck_k = #ck_k + 1
///     local i; i = element; body
/// end
/// ```
///
/// The index is advanced first, so `continue` in the body goes on to the next iteration.
fn iterations(g: &Gen, var: &Expr, body: &[Expr], element: Expr) -> Expr {
    let mut var_names = Vec::new();
    target_names(var, &mut var_names);
    let mut step_body = vec![
        g.assign("k", g.call("+", vec![g.id("k"), g.int(1)])),
        g.expr(ExprKind::Local(var_names)),
        g.expr(ExprKind::Assign {
            lhs: Box::new(var.clone()),
            rhs: Box::new(element),
        }),
    ];
    step_body.extend(body.iter().cloned());
    g.expr(ExprKind::Block(vec![
        g.assign("k", g.call("-", vec![g.id("lo"), g.int(1)])),
        g.expr(ExprKind::While {
            cond: Box::new(g.call("<", vec![g.id("k"), g.id("hi")])),
            body: step_body,
        }),
    ]))
}

/// The chunked form of the `for` loop `looped` (see the module documentation), without
/// `snapshots=K`: chunks of `⌈√n⌉` iterations.
fn chunked(looped: &Expr, res: &Resolution, count: usize) -> Expr {
    let ExprKind::For {
        var, iter, body, ..
    } = &looped.kind
    else {
        return looped.clone();
    };
    let r = looped.range;
    let g = Gen { r, count };
    let state = state_names(looped, body.iter(), res);
    let Source {
        setup: mut out,
        names: source,
        first,
        element,
    } = Source::of(&g, iter);
    // The chunk length: the smallest c with c² ≥ n, at least 1.
    out.push(g.assign("c", g.int(0)));
    let square = g.call("*", vec![g.id("c"), g.id("c")]);
    let grow = g.assign("c", g.call("+", vec![g.id("c"), g.int(1)]));
    out.push(g.expr(ExprKind::While {
        cond: Box::new(g.call("<", vec![square, g.id("n")])),
        body: vec![grow],
    }));
    let small = g.call("<", vec![g.id("c"), g.int(1)]);
    out.push(g.expr(ExprKind::If {
        branches: vec![(small, vec![g.assign("c", g.int(1))])],
        els: None,
    }));
    // The step: the iterations `lo:hi` of the plain loop, on the state passed in.
    let inner = iterations(&g, var, body, element);
    let names = |extra: &[&str]| -> Vec<String> {
        state
            .iter()
            .cloned()
            .chain(extra.iter().map(|n| g.name(n)))
            .collect()
    };
    let state_tuple = || g.expr(ExprKind::Tuple(state.iter().map(|n| g.ident(n)).collect()));
    let step = g.step(
        names(&[&source[..], &["lo", "hi"]].concat()),
        vec![inner, state_tuple()],
    );
    // The driver: one `checkpointed` step per chunk.
    let lo = g.call("+", vec![g.id("j"), g.int(first)]);
    let end = g.call(
        "min",
        vec![g.call("+", vec![g.id("j"), g.id("c")]), g.id("n")],
    );
    let hi = g.call("+", vec![end, g.int(first - 1)]);
    let mut args = vec![g.expr(ExprKind::Function(Box::new(step)))];
    args.extend(state.iter().map(|n| g.ident(n)));
    args.extend(source.iter().map(|n| g.id(n)));
    args.extend([lo, hi]);
    let call = g.call("checkpointed", args);
    let run = match state.is_empty() {
        true => call,
        false => g.expr(ExprKind::Assign {
            lhs: Box::new(state_tuple()),
            rhs: Box::new(call),
        }),
    };
    let next = g.assign("j", g.call("+", vec![g.id("j"), g.id("c")]));
    out.push(g.assign("j", g.int(0)));
    out.push(g.expr(ExprKind::While {
        cond: Box::new(g.call("<", vec![g.id("j"), g.id("n")])),
        body: vec![run, next],
    }));
    out.push(g.expr(ExprKind::Nothing));
    g.expr(ExprKind::Block(out))
}

/// The most blocks a `snapshots=K` `for` loop's iterations are grouped into, the steps of its
/// schedule: each is one `checkpointed` call, whose cost a block of many cheap iterations
/// amortises; up to this many iterations, a block is one iteration.
const LEAF_BLOCKS: i64 = 4096;

/// The binomial (Revolve) form of the `for` loop `looped` under `snapshots=K` (see the module
/// documentation): a step function that reverses iterations `lo:end-1` of the plain loop with
/// `sn` snapshots, calling itself under `checkpointed` for the first part of each split.
///
/// ```julia
/// #ck_seg = function (#ck_self, x, h, #ck_a, #ck_s, #ck_lo, #ck_end, #ck_sn)
///     while #ck_end - #ck_lo > 1
///         #ck_m = _revolve_split(#ck_end - #ck_lo, #ck_sn)
///         (x, h) = checkpointed(#ck_self, #ck_self, x, h, #ck_a, #ck_s, #ck_lo,
///                               #ck_lo + #ck_m, #ck_sn)
///         #ck_lo = #ck_lo + #ck_m; #ck_sn = #ck_sn - 1
///     end
///     #ck_hi = #ck_lo    (the block's iterations, below)
///     for #ck_k in #ck_lo:#ck_hi  local i; i = #ck_a + #ck_k * #ck_s; body  end    ([`iterations`])
///     (x, h)
/// end
/// if #ck_n > 0
///     (x, h) = #ck_seg(#ck_seg, x, h, #ck_a, #ck_s, 0, #ck_n, K)
/// end
/// ```
///
/// The forward pass runs each split's first part without a tape, keeping its state, down to
/// the last iteration, whose tape it keeps; the pullback of each `checkpointed` part runs that
/// part's forward pass again, which splits it the same way: the moves of
/// `zy_ad::revolve::schedule(n, K)`, each iteration advanced without a tape as often as
/// Revolve's optimal schedule advances it, and taped once.
fn revolved(looped: &Expr, snapshots: u32, res: &Resolution, count: usize) -> Expr {
    let ExprKind::For {
        var, iter, body, ..
    } = &looped.kind
    else {
        return looped.clone();
    };
    let g = Gen {
        r: looped.range,
        count,
    };
    let state = state_names(looped, body.iter(), res);
    let Source {
        setup: mut out,
        names: source,
        first,
        element,
    } = Source::of(&g, iter);
    let state_tuple = || g.expr(ExprKind::Tuple(state.iter().map(|n| g.ident(n)).collect()));
    let operands = |me: &str, lo: Expr, end: Expr, sn: Expr| {
        let mut args = vec![g.id(me), g.id(me)];
        args.extend(state.iter().map(|n| g.ident(n)));
        args.extend(source.iter().chain(&["b", "n"]).map(|n| g.id(n)));
        args.extend([lo, end, sn]);
        args
    };
    let assign_state = |value: Expr| match state.is_empty() {
        true => value,
        false => g.expr(ExprKind::Assign {
            lhs: Box::new(state_tuple()),
            rhs: Box::new(value),
        }),
    };
    let length = || g.call("-", vec![g.id("end"), g.id("lo")]);
    let split = g.assign("m", g.call("_revolve_split", vec![length(), g.id("sn")]));
    let mid = g.call("+", vec![g.id("lo"), g.id("m")]);
    let part = g.call(
        "checkpointed",
        operands("self", g.id("lo"), mid.clone(), g.id("sn")),
    );
    let descend = g.expr(ExprKind::While {
        cond: Box::new(g.call(">", vec![length(), g.int(1)])),
        body: vec![
            split,
            assign_state(part),
            g.assign("lo", mid),
            g.assign("sn", g.call("-", vec![g.id("sn"), g.int(1)])),
        ],
    });
    let params: Vec<String> = std::iter::once(g.name("self"))
        .chain(state.iter().cloned())
        .chain(source.iter().chain(&["b", "n"]).map(|n| g.name(n)))
        .chain(["lo", "end", "sn"].map(|n| g.name(n)))
        .collect();
    let step = g.step(
        params,
        vec![
            descend,
            // The block's iterations: `lo * b + first` to `min((lo + 1) b, n) + first - 1`.
            g.assign("hi", {
                let next = g.call("+", vec![g.id("lo"), g.int(1)]);
                let stop = g.call("*", vec![next, g.id("b")]);
                let stop = g.call("min", vec![stop, g.id("n")]);
                g.call("+", vec![stop, g.int(first - 1)])
            }),
            g.assign("lo", {
                let start = g.call("*", vec![g.id("lo"), g.id("b")]);
                g.call("+", vec![start, g.int(first)])
            }),
            iterations(&g, var, body, element),
            state_tuple(),
        ],
    );
    out.push(g.assign("seg", g.expr(ExprKind::Function(Box::new(step)))));
    // Blocks of `b` iterations, at most LEAF_BLOCKS of them, are the schedule's steps.
    let up = g.call("+", vec![g.id("n"), g.int(LEAF_BLOCKS - 1)]);
    let b = g.call(
        "max",
        vec![g.call("÷", vec![up, g.int(LEAF_BLOCKS)]), g.int(1)],
    );
    out.push(g.assign("b", b));
    let up = g.call("-", vec![g.call("+", vec![g.id("n"), g.id("b")]), g.int(1)]);
    let blocks = g.call("÷", vec![up, g.id("b")]);
    let call = g.expr(ExprKind::Call {
        callee: Box::new(g.id("seg")),
        args: operands("seg", g.int(0), blocks, g.int(i64::from(snapshots)))
            .into_iter()
            .skip(1)
            .collect(),
    });
    out.push(g.expr(ExprKind::If {
        branches: vec![(
            g.call(">", vec![g.id("n"), g.int(0)]),
            vec![assign_state(call)],
        )],
        els: None,
    }));
    out.push(g.expr(ExprKind::Nothing));
    g.expr(ExprKind::Block(out))
}

/// The `while` loop `looped` under `snapshots=K`: its trip count is not known at entry, so it
/// runs in chunks of 1, 2, 4, 8, ... iterations, each a `checkpointed` call of a step that
/// reverses up to that many iterations by the binomial schedule with `K` snapshots, as
/// [`revolved`] does, the condition tested before each iteration as in the plain loop. A
/// part of a split that starts after the condition failed runs nothing.
///
/// ```julia
/// #ck_seg = function (#ck_self, x, #ck_lo, #ck_end, #ck_sn)
///     #ck_go = true
///     while #ck_go && #ck_end - #ck_lo > 1
///         #ck_m = _revolve_split(#ck_end - #ck_lo, #ck_sn)
///         (x, #ck_go) = checkpointed(#ck_self, #ck_self, x, #ck_lo, #ck_lo + #ck_m, #ck_sn)
///         #ck_lo = #ck_lo + #ck_m; #ck_sn = #ck_sn - 1
///     end
///     #ck_k = 0
///     while #ck_go && #ck_k < 1
///         #ck_go = cond
///         if !#ck_go break end
///         #ck_k = #ck_k + 1
///         body
///     end
///     (x, #ck_go)
/// end
/// #ck_len = 1; #ck_more = true
/// while #ck_more
///     (x, #ck_more) = checkpointed(#ck_seg, #ck_seg, x, 0, #ck_len, K)
///     #ck_len = 2 * #ck_len
/// end
/// ```
fn revolved_while(looped: &Expr, snapshots: u32, res: &Resolution, count: usize) -> Expr {
    let ExprKind::While { cond, body } = &looped.kind else {
        return looped.clone();
    };
    let g = Gen {
        r: looped.range,
        count,
    };
    let state = state_names(looped, std::iter::once(&**cond).chain(body), res);
    let result = |flag: &str| {
        let mut parts: Vec<Expr> = state.iter().map(|n| g.ident(n)).collect();
        parts.push(g.id(flag));
        g.expr(ExprKind::Tuple(parts))
    };
    let operands = |me: &str, lo: Expr, end: Expr, sn: Expr| {
        let mut args = vec![g.id(me), g.id(me)];
        args.extend(state.iter().map(|n| g.ident(n)));
        args.extend([lo, end, sn]);
        args
    };
    let assign = |lhs: Expr, rhs: Expr| {
        g.expr(ExprKind::Assign {
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        })
    };
    let and = |a: Expr, b: Expr| g.expr(ExprKind::And(Box::new(a), Box::new(b)));
    let length = || g.call("-", vec![g.id("end"), g.id("lo")]);
    let mid = g.call("+", vec![g.id("lo"), g.id("m")]);
    let part = g.call(
        "checkpointed",
        operands("self", g.id("lo"), mid.clone(), g.id("sn")),
    );
    let descend = g.expr(ExprKind::While {
        cond: Box::new(and(g.id("go"), g.call(">", vec![length(), g.int(1)]))),
        body: vec![
            g.assign("m", g.call("_revolve_split", vec![length(), g.id("sn")])),
            assign(result("go"), part),
            g.assign("lo", mid),
            g.assign("sn", g.call("-", vec![g.id("sn"), g.int(1)])),
        ],
    });
    // The last iteration of the part, if the condition still holds: a loop of at most one
    // iteration, so that `continue` in the body means what it means in the plain loop.
    let leaf = guarded_iteration(&g, cond, "k", body);
    let params: Vec<String> = std::iter::once(g.name("self"))
        .chain(state.iter().cloned())
        .chain(["lo", "end", "sn"].map(|n| g.name(n)))
        .collect();
    let step = g.step(
        params,
        vec![
            g.assign("go", g.expr(ExprKind::Bool(true))),
            descend,
            g.assign("k", g.int(0)),
            g.expr(ExprKind::While {
                cond: Box::new(and(g.id("go"), g.call("<", vec![g.id("k"), g.int(1)]))),
                body: leaf,
            }),
            result("go"),
        ],
    );
    let chunk = g.call(
        "checkpointed",
        operands("seg", g.int(0), g.id("len"), g.int(i64::from(snapshots))),
    );
    g.expr(ExprKind::Block(vec![
        g.assign("seg", g.expr(ExprKind::Function(Box::new(step)))),
        g.assign("len", g.int(1)),
        g.assign("more", g.expr(ExprKind::Bool(true))),
        g.expr(ExprKind::While {
            cond: Box::new(g.id("more")),
            body: vec![
                assign(result("more"), chunk),
                g.assign("len", g.call("*", vec![g.int(2), g.id("len")])),
            ],
        }),
        g.expr(ExprKind::Nothing),
    ]))
}

/// One iteration of a `while` loop inside a step: `go = cond`, leave the loop when it fails,
/// count the iteration in `counter`, then the body.
fn guarded_iteration(g: &Gen, cond: &Expr, counter: &str, body: &[Expr]) -> Vec<Expr> {
    let mut out = vec![
        g.assign("go", cond.clone()),
        g.expr(ExprKind::If {
            branches: vec![(
                g.expr(ExprKind::Unary {
                    op: zy_syntax::ast::UnOp::Not,
                    arg: Box::new(g.id("go")),
                }),
                vec![g.expr(ExprKind::Break)],
            )],
            els: None,
        }),
        g.assign(counter, g.call("+", vec![g.id(counter), g.int(1)])),
    ];
    out.extend(body.iter().cloned());
    out
}

/// The chunked form of the `while` loop `looped`: chunks of 1, 2, 3, ... iterations, so `n`
/// iterations keep about `√(2n)` states and the largest chunk's tape is as long. The step
/// returns the state and whether the loop goes on; it tests the condition before each
/// iteration, as the plain loop does, and exactly as often.
///
/// ```julia
/// #ck_len = 0; #ck_more = true
/// while #ck_more
///     #ck_len = #ck_len + 1
///     (x, #ck_more) = checkpointed(function (x, #ck_len)
///             #ck_m = 0; #ck_more = true
///             while #ck_m < #ck_len
///                 #ck_more = cond
///                 if !#ck_more break end
///                 #ck_m = #ck_m + 1
///                 body
///             end
///             (x, #ck_more)
///         end, x, #ck_len)
/// end
/// ```
fn growing(looped: &Expr, res: &Resolution, count: usize) -> Expr {
    let ExprKind::While { cond, body } = &looped.kind else {
        return looped.clone();
    };
    let g = Gen {
        r: looped.range,
        count,
    };
    let state = state_names(looped, std::iter::once(&**cond).chain(body), res);
    let inner_body = guarded_iteration(&g, cond, "m", body);
    // The step's own flag is `go`: a `more` assigned in it would be the driver's, captured.
    let result = |g: &Gen, flag: &str| {
        let mut parts: Vec<Expr> = state.iter().map(|n| g.ident(n)).collect();
        parts.push(g.id(flag));
        g.expr(ExprKind::Tuple(parts))
    };
    let params: Vec<String> = state.iter().cloned().chain([g.name("len")]).collect();
    let step = g.step(
        params,
        vec![
            g.assign("m", g.int(0)),
            g.assign("go", g.expr(ExprKind::Bool(true))),
            g.expr(ExprKind::While {
                cond: Box::new(g.call("<", vec![g.id("m"), g.id("len")])),
                body: inner_body,
            }),
            result(&g, "go"),
        ],
    );
    let mut args = vec![g.expr(ExprKind::Function(Box::new(step)))];
    args.extend(state.iter().map(|n| g.ident(n)));
    args.push(g.id("len"));
    let run = g.expr(ExprKind::Assign {
        lhs: Box::new(result(&g, "more")),
        rhs: Box::new(g.call("checkpointed", args)),
    });
    g.expr(ExprKind::Block(vec![
        g.assign("len", g.int(0)),
        g.assign("more", g.expr(ExprKind::Bool(true))),
        g.expr(ExprKind::While {
            cond: Box::new(g.id("more")),
            body: vec![
                g.assign("len", g.call("+", vec![g.id("len"), g.int(1)])),
                run,
            ],
        }),
        g.expr(ExprKind::Nothing),
    ]))
}

/// The locals of the enclosing scopes that the loop names in `parts` (its body, including the
/// closures it defines, and a `while` loop's condition), in order of first mention.
fn state_names<'e>(
    looped: &Expr,
    parts: impl Iterator<Item = &'e Expr>,
    res: &Resolution,
) -> Vec<String> {
    let before = res
        .declared_before
        .get(&(looped as *const Expr))
        .copied()
        .unwrap_or(0);
    let mut names: Vec<String> = Vec::new();
    fn walk(e: &Expr, res: &Resolution, before: u32, names: &mut Vec<String>) {
        if let Some(v) = res.local(e).filter(|v| v.0 < before) {
            let name = &res.var(v).name;
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        each_child(e, &mut |c| walk(c, res, before, names));
    }
    for e in parts {
        walk(e, res, before, &mut names);
    }
    names
}

/// Builds the generated expressions, all at the loop's range; hidden names are
/// `#ck{count}_{name}`, which no source identifier can be.
struct Gen {
    r: TextRange,
    count: usize,
}

impl Gen {
    fn expr(&self, kind: ExprKind) -> Expr {
        Expr::new(kind, self.r)
    }

    fn name(&self, n: &str) -> String {
        format!("#ck{}_{n}", self.count)
    }

    /// A hidden name.
    fn id(&self, n: &str) -> Expr {
        self.ident(&self.name(n))
    }

    fn ident(&self, n: &str) -> Expr {
        self.expr(ExprKind::Ident(n.to_string()))
    }

    fn int(&self, i: i64) -> Expr {
        self.expr(ExprKind::Int(i))
    }

    fn call(&self, f: &str, args: Vec<Expr>) -> Expr {
        self.expr(ExprKind::Call {
            callee: Box::new(self.ident(f)),
            args,
        })
    }

    /// An anonymous function of `params` (names) with `body`.
    fn step(&self, params: Vec<String>, body: Vec<Expr>) -> FunctionDef {
        let params = params
            .into_iter()
            .map(|n| Param {
                name: Some(n),
                ty: None,
                default: None,
                varargs: false,
                range: self.r,
            })
            .collect();
        FunctionDef {
            name: FunctionName::Anonymous,
            name_range: self.r,
            params,
            keywords: Vec::new(),
            keyword_rest: None,
            where_params: Vec::new(),
            return_type: None,
            body,
            range: self.r,
            annotations: Vec::new(),
        }
    }

    fn assign(&self, n: &str, value: Expr) -> Expr {
        self.expr(ExprKind::Assign {
            lhs: Box::new(self.id(n)),
            rhs: Box::new(value),
        })
    }
}

/// The direct subexpressions of `e` in evaluation order, a function definition's body
/// included (a closure's loops are rewritten too).
fn each_child(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    match &e.kind {
        ExprKind::Function(def) => def.body.iter().for_each(f),
        _ => e.children().into_iter().for_each(f),
    }
}

/// [`each_child`] on mutable expressions.
fn each_child_mut(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    match &mut e.kind {
        ExprKind::Function(def) => def.body.iter_mut().for_each(f),
        _ => e.children_mut().into_iter().for_each(f),
    }
}
