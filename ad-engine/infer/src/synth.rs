//! Typed bodies synthesised for the higher-order builtins `map(f, xs...)`, `sum(f, xs)` and
//! `broadcast(f, args...)` with a user function or closure `f`: counted loops that call `f` on
//! the elements, so the AD and the JIT treat them like user code. `checkpointed(f, args...)`
//! is the call `f(args...)` alone, an instance of its own that the AD recomputes. `splat(f,
//! pre, x, post)` is `f(pre..., x..., post...)` of a vector `x`, a branch on its length.
//! `#apply(f, args...)` is the call `f(args...)` too, the typed wrapper of a builtin passed as a
//! value. `union_split(f, args...)` is a call `f(args...)` whose first argument of an abstract type
//! (`s::Shape`, an element of a `Vector{Shape}`) is split over the concrete types it may have: a
//! run-time test per member and a branch calling that member's method.

use std::sync::Arc;

use zy_ir::{
    Block, BlockCall, Const, Function, Instance, Operand, Prim, Span, Stmt, Terminator, Type,
    UnionType,
};

use crate::calls::Cx;
use crate::error::Fail;
use crate::plan::{emit_plan, Arg, PlanBuilder};
use crate::value::{array, Val};

/// The typed body of the synthesised instance `inst` (`name` is `map`, `sum`, `broadcast` or
/// `checkpointed`).
pub(crate) fn synthesise(cx: &mut Cx, inst: &Arc<Instance>) -> Result<Function, Fail> {
    let arity_ok = match &*inst.name {
        "sum" => inst.args.len() == 2,
        "checkpointed" | APPLY => !inst.args.is_empty(),
        SPLAT => inst.args.len() == 4,
        NARROW | PROMOTE => inst.args.len() == 1,
        _ => inst.args.len() >= 2,
    };
    if !arity_ok {
        return Err(crate::error::no_method(&inst.name, &inst.args));
    }
    let mut s = Synth::new(inst);
    match &*inst.name {
        "map" | "broadcast" => s.map(cx)?,
        "sum" => s.sum(cx)?,
        "checkpointed" | APPLY => s.call_alone(cx)?,
        SPLAT => s.splat(cx)?,
        UNION_SPLIT => s.union_split(cx)?,
        NARROW => s.narrow(false)?,
        PROMOTE => s.narrow(true)?,
        n => return Err(Fail::undefined(format!("no synthesised function `{n}`"))),
    }
    Ok(s.f)
}

/// The synthesised `#apply(f, args...)`: `f(args...)`, an instance of its own, which the AD
/// differentiates where `f` is a builtin, a primitive or a library function whose call on these
/// argument types is no method instance of its own (`gradient(det, A)`, `sum` of a vector).
pub const APPLY: &str = "#apply";

/// The synthesised `splat(f, pre, x, post)`: `f(pre..., x..., post...)` of a vector `x`.
pub(crate) const SPLAT: &str = "splat";

/// The synthesised `union_split(f, args...)`: `f(args...)` split over the members of its first
/// argument of an abstract type (`f` itself, when it is one: a callable struct of a union).
pub(crate) const UNION_SPLIT: &str = "union_split";

/// The synthesised `narrow_eltype(ys)` of an array of results of a call on a container of
/// `Any` holding numbers, or of Julia's union of numbers and strings
/// ([`crate::open::narrows`]): the array of the values' element type, as
/// Julia's `map` and `collect` widen theirs from the first value's type by `promote_typejoin`:
/// a `Vector{Int64}` of Ints, a `Vector{Real}` of numbers of several types (a Float64 among
/// them), a `Vector{Integer}` of Bools beside Ints, a `Vector{Any}` of none (Julia's inferred
/// `Any`).
pub(crate) const NARROW: &str = "narrow_eltype";

/// The synthesised `promote_eltype(ys)` of an array literal holding values of a union of
/// numbers and strings (`[x > 0 ? "a" : 1]`): the array of Julia's `promote_type` of the
/// values' types (`vect`'s): a `Vector{String}` of strings, a `Vector{Float64}` of numbers a
/// Float64 among them (each converted), a `Vector{Any}` of a string beside a number.
pub(crate) const PROMOTE: &str = "promote_eltype";

/// What the call `all[0](all[1..]...)` returns when it is split over the union `all[at]` (the
/// callee itself when `at` is 0): the join of what the members' methods return (see
/// [`split_join`]). A member with no method
/// throws when it is met; the call fails here when no member has one. A member of a value
/// of `Any` (what a configuration's entry may hold) that zy does not support throws when it is
/// met too, naming what it does not support: that value may never hold it.
pub(crate) fn split_result(cx: &mut Cx, all: &[Val], at: usize) -> Result<Type, Fail> {
    let Some(Type::Union(u)) = all.get(at).map(|a| &a.ty) else {
        return Err(Fail::unsupported("malformed union split"));
    };
    let open = crate::open::is_open(&u.name);
    let mut results = Vec::new();
    let mut failed = None;
    for m in &u.members {
        let mut callee = all[0].clone();
        let mut ts: Vec<Type> = all[1..].iter().map(|a| a.ty.clone()).collect();
        match at {
            0 => callee = Val::of(Arg::Input(0), m.clone()),
            _ => ts[at - 1] = m.clone(),
        }
        let index = all.get(2).and_then(Val::int).filter(|_| at == 1);
        if let Some(parts) = tuple_elements(&callee, &ts, index) {
            results.extend(parts);
            continue;
        }
        match cx.callee_result(&callee, &ts) {
            Ok(t) => results.push(t),
            Err(fail) if fail.code == "unsupported" && !open => return Err(fail),
            Err(fail) => {
                failed.get_or_insert(fail);
            }
        }
    }
    match (results.is_empty(), failed) {
        (true, Some(fail)) => Err(fail),
        _ => split_join(cx, &all[0].ty, u, &results),
    }
}

/// The members of a union that convert to the number `to` (itself among them).
fn promoted(members: &[Type], to: &Type) -> Vec<Type> {
    members
        .iter()
        .filter(|m| *m == to || m.is_number() && crate::join::conversion(m, to).is_some())
        .cloned()
        .collect()
}

/// A union's members in the order a split tests them, the last one untested: a
/// `SubString` (held as its text, which a test at run time takes for a `String`) last where
/// the union has no `String` (beside one, the engines tag it: the interpreter's `substring`).
fn tested_last(members: &[Type]) -> Vec<Type> {
    let mut order = members.to_vec();
    if !order.contains(&Type::String) {
        order.sort_by_key(|t| *t == Type::SubString);
    }
    order
}

/// The types of the elements of a tuple whose elements differ in type, where `callee(args...)`
/// is `getindex(t, i)`: at an index known at run time only every element's
/// ([`Synth::tuple_by_index`]), at a constant `index` that element's (none past the end, Julia's
/// `BoundsError`).
fn tuple_elements(callee: &Val, args: &[Type], index: Option<i64>) -> Option<Vec<Type>> {
    let by_index =
        matches!(&callee.ty, Type::Function(f) if matches!(&**f, "getindex" | "Base.getindex"));
    match args {
        [Type::Tuple(ts), Type::Int64] if by_index && ts.iter().any(|e| *e != ts[0]) => {
            Some(match index {
                Some(k) => usize::try_from(k - 1)
                    .ok()
                    .and_then(|k| ts.get(k))
                    .cloned()
                    .into_iter()
                    .collect(),
                None => ts.to_vec(),
            })
        }
        _ => None,
    }
}

/// The join of the results of a call of `callee` split over the union `u`: one type, or
/// structs of different types joined as Julia's `promote_typejoin` joins them (their abstract
/// type, `scale(s, 2.0)` of a `Shape` is a `Shape`); other mixtures are refused.
fn split_join(
    cx: &Cx,
    callee: &Type,
    u: &zy_ir::UnionType,
    results: &[Type],
) -> Result<Type, Fail> {
    if let Some(types) = types_of(callee, results) {
        return Ok(types);
    }
    // Types as values that are the union's own members (the `DataType` part of a union narrowed
    // by a test on its value): the union of them, as they were.
    let returned: Vec<Type> = results
        .iter()
        .filter(|t| **t != Type::Bottom)
        .cloned()
        .collect();
    let own_types = returned
        .iter()
        .all(|t| matches!(t, Type::Function(_)) && u.members.contains(t));
    if own_types && returned.len() > 1 {
        return Ok(Type::union("DataType".into(), returned));
    }
    if let Some(open) = crate::open::split_result(u, results) {
        return Ok(open);
    }
    let mut ret = Type::Bottom;
    for t in results {
        let joined = crate::join::join_holding(&ret, t)
            .or_else(|| {
                let up = crate::dispatch::typejoin(cx.program, &[ret.clone(), t.clone()])??;
                crate::dispatch::abstract_union(cx.program, &up, 0)
            })
            .or_else(|| crate::join::join(&ret, t));
        // Julia's union of arrays of different dimensions (`reduce(hcat, xs)` of a container
        // of `Any`, the element itself when there is one): results that join in no other way
        // (`size`'s tuples) are each the value its method returned, as an element of a
        // `Vector{Any}` is.
        let arrays = u.members.iter().all(|m| matches!(m, Type::Array(..)));
        if let (None, true) = (&joined, arrays) {
            if let Some(open) = crate::open::open_union("Any", results) {
                return Ok(open);
            }
        }
        ret = joined.ok_or_else(|| {
            let shown = callee.to_string();
            let name = shown
                .strip_prefix("typeof(")
                .and_then(|c| c.strip_suffix(')'));
            Fail::unsupported(format!(
                "a call of `{}` on a {} whose result is a {ret} for one of its types and a {t} \
                 for another (Julia's result of a union type); make the methods return one type",
                name.unwrap_or("a function"),
                u.name
            ))
        })?;
    }
    Ok(ret)
}

/// `typeof` of a union (`typeof(c > 0 ? 5.0 : 5)`, of an element of a `Vector{Any}`): Julia's
/// `DataType`, here the union of the members' types as values, the one the value holds known
/// at run time.
fn types_of(callee: &Type, results: &[Type]) -> Option<Type> {
    let Type::Function(f) = callee else {
        return None;
    };
    let numbers = results.iter().all(|t| matches!(t, Type::Function(_)));
    (matches!(&**f, "typeof" | "Base.typeof") && numbers)
        .then(|| Type::union("DataType".into(), results.to_vec()))
}

/// The library function a keyword call splatting a vector goes through (`f(x...; k = 1)`):
/// `_splat_keywords(kw, f, args...) = f(args...; kw...)`.
pub(crate) const SPLAT_KEYWORDS: &str = "Base._splat_keywords";

/// The longest vector [`SPLAT`] passes element by element; a longer one is an `unsupported`
/// error when the call runs.
pub(crate) const SPLAT_MOST: usize = 8;

struct Synth {
    f: Function,
    args: Vec<(Operand, Type)>,
}

/// Synthesised code's span, pointing at no source: the IDE shows a run-time error raised in it
/// at the user's call that led there (`zy_ide::locate::runtime_error_at`).
const SPAN: Span = Span {
    file: 0,
    start: 0,
    end: 0,
};

/// The lengths `k` up to [`SPLAT_MOST`] of a vector of `elem`s for which some method takes
/// `callee(pre..., k elements, post...)`, and the one type their calls return (`Union{}` if
/// none returns). Calls returning different types are refused, naming two of them.
pub(crate) fn splat_lengths(
    cx: &mut Cx,
    callee: &Val,
    pre: &[Type],
    elem: &Type,
    post: &[Type],
) -> Result<(Vec<usize>, Type), Fail> {
    let mut lengths = Vec::new();
    let mut ret: Option<(usize, Type)> = None;
    // `_splat_keywords(kw, f, args...)` takes any number: the lengths are those `f` takes.
    let keywords = matches!(&callee.ty, Type::Function(n) if &**n == SPLAT_KEYWORDS);
    for k in 0..=SPLAT_MOST {
        let types: Vec<Type> = pre
            .iter()
            .cloned()
            .chain(std::iter::repeat_n(elem.clone(), k))
            .chain(post.iter().cloned())
            .collect();
        if let (true, [_, f, args @ ..]) = (keywords, types.as_slice()) {
            match cx.callee_result(&Val::of(Arg::Input(0), f.clone()), args) {
                Err(fail) if fail.code == "method-error" => continue,
                Err(fail) => return Err(fail),
                Ok(_) => {}
            }
        }
        match cx.callee_result(callee, &types) {
            Ok(t) => {
                lengths.push(k);
                match &ret {
                    _ if t == Type::Bottom => {}
                    None => ret = Some((k, t)),
                    Some((j, r)) if *r != t => {
                        return Err(Fail::unsupported(format!(
                            "splatting a Vector{{{elem}}} with `...` into a call whose result's \
                             type depends on the vector's length ({r} for {j} elements, {t} for \
                             {k}); pass a tuple, whose length is part of its type"
                        )))
                    }
                    Some(_) => {}
                }
            }
            Err(fail) if fail.code == "method-error" => {}
            Err(fail) => return Err(fail),
        }
    }
    Ok((lengths, ret.map_or(Type::Bottom, |(_, t)| t)))
}

impl Synth {
    fn new(inst: &Arc<Instance>) -> Synth {
        let mut f = Function::new(inst.name.clone(), SPAN);
        f.instance = Some(inst.clone());
        let mut args = Vec::new();
        for (i, t) in inst.args.iter().enumerate() {
            let name = match i {
                0 if matches!(&*inst.name, NARROW | PROMOTE) => "ys".to_string(),
                0 => "f".to_string(),
                1 if inst.args.len() == 2 || &*inst.name == "sum" => "xs".to_string(),
                k => format!("x{k}"),
            };
            f.arg_names.push(name.as_str().into());
            let v = f.add_param(Block::ENTRY, t.clone(), SPAN, None);
            args.push((Operand::Value(v), t.clone()));
        }
        Synth { f, args }
    }

    fn prim(&mut self, b: Block, p: Prim, args: Vec<Operand>, ty: Type) -> Operand {
        Operand::Value(self.f.push_stmt(
            b,
            Stmt {
                op: zy_ir::Op::Prim(p),
                args,
            },
            ty,
            SPAN,
        ))
    }

    /// Resolve and emit a call through the ordinary machinery (`f(x...)` or `name(x...)`).
    fn call(
        &mut self,
        cx: &mut Cx,
        b: Block,
        name: Option<&str>,
        args: &[(Operand, Type)],
    ) -> Result<(Operand, Type), Fail> {
        let vals: Vec<Val> = args
            .iter()
            .enumerate()
            .map(|(i, (_, t))| Val::of(Arg::Input(i), t.clone()))
            .collect();
        let mut pb = PlanBuilder::default();
        let v = match name {
            Some(n) => cx.call_named(&mut pb, &n.into(), &vals)?,
            None => cx.call_value(&mut pb, &vals)?,
        };
        let ty = v.ty.clone();
        let plan = pb.finish(v.arg, v.ty);
        let ops: Vec<Operand> = args.iter().map(|(o, _)| o.clone()).collect();
        Ok((emit_plan(&mut self.f, b, &plan, &ops, SPAN), ty))
    }

    fn throw(&mut self, b: Block, msg: &str) {
        self.prim(
            b,
            Prim::Error,
            vec![Operand::Const(Const::Str(msg.into()))],
            Type::Bottom,
        );
        self.f.set_term(b, Terminator::Unreachable, SPAN);
    }

    /// Apply `f` to element `k` of every array argument (scalars pass as they are).
    fn apply_f(&mut self, cx: &mut Cx, b: Block, k: Operand) -> Result<(Operand, Type), Fail> {
        let mut call_args = vec![self.args[0].clone()];
        let rest = self.args[1..].to_vec();
        for (x, t) in rest {
            match (t.elem(), self.boxed(&t)) {
                (Some(e), _) if matches!(t, Type::Array(..)) => {
                    let e = e.clone();
                    let v = self.prim(b, Prim::GetIndex, vec![x, k.clone()], e.clone());
                    call_args.push((v, e));
                }
                (_, Some(inner)) => {
                    let v = match t {
                        Type::Ref(_) => self.prim(b, Prim::RefGet, vec![x], inner.clone()),
                        _ => {
                            let one = Operand::Const(Const::Int(1));
                            self.prim(b, Prim::GetField, vec![x, one], inner.clone())
                        }
                    };
                    call_args.push((v, inner));
                }
                _ => call_args.push((x, t)),
            }
        }
        self.call(cx, b, None, &call_args)
    }

    /// The element of a boxed scalar operand of a broadcast (`Ref(v)`, a 1-tuple `(v,)`),
    /// which every call receives whole.
    fn boxed(&self, t: &Type) -> Option<Type> {
        if self
            .f
            .instance
            .as_ref()
            .is_none_or(|i| &*i.name != "broadcast")
        {
            return None;
        }
        match t {
            Type::Ref(inner) => Some((**inner).clone()),
            Type::Tuple(ts) if ts.len() == 1 => Some(ts[0].clone()),
            _ => None,
        }
    }

    /// `br k <= n ? body : exit` from a loop header with counter `k`.
    fn header(
        &mut self,
        n: Operand,
        extra: &[Type],
    ) -> (Block, Operand, Vec<Operand>, Block, Block) {
        let head = self.f.add_block();
        let k = Operand::Value(self.f.add_param(head, Type::Int64, SPAN, None));
        let vars = extra
            .iter()
            .map(|t| Operand::Value(self.f.add_param(head, t.clone(), SPAN, None)))
            .collect();
        let c = self.prim(head, Prim::Le, vec![k.clone(), n], Type::Bool);
        let (body, exit) = (self.f.add_block(), self.f.add_block());
        self.f.set_term(
            head,
            Terminator::Branch {
                cond: c,
                then_to: BlockCall::new(body),
                else_to: BlockCall::new(exit),
            },
            SPAN,
        );
        (head, k, vars, body, exit)
    }

    /// `br cond ? then : else` from `from`, to two new blocks.
    fn branch(&mut self, from: Block, cond: Operand) -> (Block, Block) {
        let (then_b, else_b) = (self.f.add_block(), self.f.add_block());
        self.f.set_term(
            from,
            Terminator::Branch {
                cond,
                then_to: BlockCall::new(then_b),
                else_to: BlockCall::new(else_b),
            },
            SPAN,
        );
        (then_b, else_b)
    }

    fn jump(&mut self, from: Block, to: Block, args: Vec<Operand>) {
        self.f
            .set_term(from, Terminator::Jump(BlockCall { block: to, args }), SPAN);
    }

    /// `map`/`broadcast`: allocate the result, check shapes, fill it element by element.
    fn map(&mut self, cx: &mut Cx) -> Result<(), Fail> {
        let arrays: Vec<(Operand, Type)> = self.args[1..]
            .iter()
            .filter(|(_, t)| matches!(t, Type::Array(..)))
            .cloned()
            .collect();
        let Some((first, Type::Array(_, n))) = arrays.first().cloned() else {
            return Err(Fail::unsupported("map without an array argument"));
        };
        let mut elems = Vec::new();
        for (_, t) in &self.args[1..] {
            elems.push(if matches!(t, Type::Array(..)) {
                t.elem().cloned().unwrap_or(Type::Bottom)
            } else {
                self.boxed(t).unwrap_or_else(|| t.clone())
            });
        }
        let r = cx.callee_result(&Val::of(Arg::Input(0), self.args[0].1.clone()), &elems)?;
        let mut b = Block::ENTRY;
        if r == Type::Bottom {
            // `f` never returns: the first call throws; over no elements the result is
            // Julia's empty `Array{Union{}}` (`[error("x") for _ in 1:0]`).
            let len = self.prim(b, Prim::Length, vec![first.clone()], Type::Int64);
            let none = self.prim(
                b,
                Prim::Eq,
                vec![len.clone(), Const::Int(0).into()],
                Type::Bool,
            );
            let (empty, call) = (self.f.add_block(), self.f.add_block());
            let branch = Terminator::Branch {
                cond: none,
                then_to: BlockCall::new(empty),
                else_to: BlockCall::new(call),
            };
            self.f.set_term(b, branch, SPAN);
            let out_ty = array(Type::Bottom, n);
            let dims: Vec<Operand> = if n == 1 {
                vec![len]
            } else {
                (1..=i64::from(n))
                    .map(|d| {
                        let at = vec![first.clone(), Operand::Const(Const::Int(d))];
                        self.prim(empty, Prim::Size, at, Type::Int64)
                    })
                    .collect()
            };
            let out = self.prim(empty, Prim::Zeros, dims, out_ty.clone());
            self.f.set_term(empty, Terminator::Return(out), SPAN);
            self.apply_f(cx, call, Operand::Const(Const::Int(1)))?;
            self.f.set_term(call, Terminator::Unreachable, SPAN);
            self.f.ret = out_ty;
            return Ok(());
        }
        if let Some(why) = crate::builtins::nested_elements(&r) {
            return Err(Fail::unsupported(format!(
                "`map` of a function returning {r}: {why}"
            )));
        }
        let len = self.prim(b, Prim::Length, vec![first.clone()], Type::Int64);
        let dims: Vec<Operand> = if n == 1 {
            vec![len.clone()]
        } else {
            (1..=i64::from(n))
                .map(|d| {
                    self.prim(
                        b,
                        Prim::Size,
                        vec![first.clone(), Operand::Const(Const::Int(d))],
                        Type::Int64,
                    )
                })
                .collect()
        };
        for (x, _) in arrays.iter().skip(1) {
            let checks: Vec<(Prim, Operand)> = if n == 1 {
                vec![(Prim::Length, len.clone())]
            } else {
                dims.iter().map(|d| (Prim::Size, d.clone())).collect()
            };
            for (d, (p, want)) in checks.into_iter().enumerate() {
                let mut args = vec![x.clone()];
                if p == Prim::Size {
                    args.push(Operand::Const(Const::Int(d as i64 + 1)));
                }
                let got = self.prim(b, p, args, Type::Int64);
                let bad = self.prim(b, Prim::Ne, vec![got, want], Type::Bool);
                let (err, ok) = (self.f.add_block(), self.f.add_block());
                self.f.set_term(
                    b,
                    Terminator::Branch {
                        cond: bad,
                        then_to: BlockCall::new(err),
                        else_to: BlockCall::new(ok),
                    },
                    SPAN,
                );
                self.throw_error(err, "DimensionMismatch: arrays must have the same shape");
                b = ok;
            }
        }
        // Results that are an Int for some elements and a Float64 for others are stored as
        // Float64s (Julia's `Vector{Real}` holds each as it is: a known difference), unless
        // they come from a container of `Any`: each is stored as it is, and the caller takes
        // the array's element type from them (`narrow_eltype`).
        let elem = match &r {
            _ if crate::open::narrows(&r) => r.clone(),
            Type::Union(u) if r.is_real() => u
                .members
                .iter()
                .fold(Type::Bool, |a, m| crate::value::promote(&a, m)),
            _ => r.clone(),
        };
        let out_ty = array(elem.clone(), n);
        let out = self.prim(b, Prim::Zeros, dims, out_ty.clone());
        let (head, k, _, body, exit) = self.header(len, &[]);
        self.jump(b, head, vec![Operand::Const(Const::Int(1))]);
        let (y, _) = self.apply_f(cx, body, k.clone())?;
        let (body, y) = self.widened(body, y, &r, &elem);
        self.prim(body, Prim::SetIndex, vec![out.clone(), y, k.clone()], elem);
        let k1 = self.prim(
            body,
            Prim::Add,
            vec![k, Operand::Const(Const::Int(1))],
            Type::Int64,
        );
        self.jump(body, head, vec![k1]);
        self.f.set_term(exit, Terminator::Return(out), SPAN);
        self.f.ret = out_ty;
        Ok(())
    }

    /// `narrow_eltype(ys)` ([`NARROW`]) and, with `promote`, `promote_eltype(ys)`
    /// ([`PROMOTE`]): a count of the values of each member type, then the array of the type
    /// the counts say, filled with the values.
    fn narrow(&mut self, promote: bool) -> Result<(), Fail> {
        let (ys, ty) = self.args[0].clone();
        let Type::Array(elem, n) = &ty else {
            return Err(Fail::unsupported(
                "narrow_eltype of a value that is no array",
            ));
        };
        let (Type::Union(u), n) = (&**elem, *n) else {
            return Err(Fail::unsupported("narrow_eltype of an array of one type"));
        };
        let u = u.clone();
        let ret = crate::open::narrowed(&u, n, promote)
            .ok_or_else(|| Fail::unsupported("narrow_eltype of an array of other values"))?;
        self.f.ret = ret.clone();
        let zero = Operand::Const(Const::Int(0));
        let one = Operand::Const(Const::Int(1));
        let len = self.prim(Block::ENTRY, Prim::Length, vec![ys.clone()], Type::Int64);
        let counts = vec![Type::Int64; u.members.len()];
        let (head, k, cs, body, exit) = self.header(len.clone(), &counts);
        let mut start = vec![one.clone()];
        start.extend(counts.iter().map(|_| zero.clone()));
        self.jump(Block::ENTRY, head, start);
        let y = self.prim(
            body,
            Prim::GetIndex,
            vec![ys.clone(), k.clone()],
            (**elem).clone(),
        );
        let mut next = vec![self.prim(body, Prim::Add, vec![k, one.clone()], Type::Int64)];
        for (m, c) in u.members.iter().zip(&cs) {
            let name = Operand::Const(Const::Symbol(m.to_string().as_str().into()));
            let is = self.prim(body, Prim::UnionIsa, vec![y.clone(), name], Type::Bool);
            let c1 = self.prim(body, Prim::Add, vec![c.clone(), one.clone()], Type::Int64);
            let c = self.prim(body, Prim::IfElse, vec![is, c1, c.clone()], Type::Int64);
            next.push(c);
        }
        self.jump(body, head, next);
        let done = self.f.add_block();
        let out = self.f.add_param(done, ret.clone(), SPAN, None);
        self.f
            .set_term(done, Terminator::Return(Operand::Value(out)), SPAN);
        // No values: a `Vector{Any}` of results of a call on a container of `Any`, Julia's
        // inferred union of results of one of a union.
        let empty = self.prim(exit, Prim::Eq, vec![len.clone(), zero.clone()], Type::Bool);
        let (then_b, mut b) = self.branch(exit, empty);
        let any = crate::open::open_union("Any", &u.members).unwrap_or(ret.clone());
        let none = if promote || crate::open::is_open(&u.name) {
            &any
        } else {
            &**elem
        };
        self.refill(then_b, &ys, &ty, none, &ret, done);
        // Values all of one type: an array of it.
        for (m, c) in u.members.iter().zip(&cs) {
            let all = self.prim(b, Prim::Eq, vec![c.clone(), len.clone()], Type::Bool);
            let (then_b, else_b) = self.branch(b, all);
            self.refill(then_b, &ys, &ty, m, &ret, done);
            b = else_b;
        }
        // Values of several kinds (a string beside a number): a `Vector{Any}`.
        let numbers: Vec<usize> = (0..u.members.len())
            .filter(|&i| u.members[i].is_number())
            .collect();
        if numbers.len() < u.members.len() {
            let mut counted = zero.clone();
            for &i in &numbers {
                counted = self.prim(b, Prim::Add, vec![counted, cs[i].clone()], Type::Int64);
            }
            let mixed = self.prim(b, Prim::Lt, vec![counted, len.clone()], Type::Bool);
            let (then_b, else_b) = self.branch(b, mixed);
            self.refill(then_b, &ys, &ty, &any, &ret, done);
            b = else_b;
        }
        // Numbers of several types, a Float64 among them: a `Vector{Real}` (a literal's a
        // `Vector{Float64}`).
        let (real, integer) = if promote {
            (Type::Float64, Type::Int64)
        } else {
            let numbers: Vec<Type> = numbers.iter().map(|&i| u.members[i].clone()).collect();
            (
                crate::open::open_union("Real", &numbers).unwrap_or(ret.clone()),
                crate::open::open_union("Integer", &[]).unwrap_or(ret.clone()),
            )
        };
        if let Some(f) = u.members.iter().position(|m| *m == Type::Float64) {
            let floats = self.prim(b, Prim::Gt, vec![cs[f].clone(), zero], Type::Bool);
            let (then_b, else_b) = self.branch(b, floats);
            self.refill(then_b, &ys, &ty, &real, &ret, done);
            b = else_b;
        }
        // Else Bools beside Ints: a `Vector{Integer}` (a literal's a `Vector{Int64}`).
        self.refill(b, &ys, &ty, &integer, &ret, done);
        Ok(())
    }

    /// From `b`: a new array of `ys`'s shape of elements `to`, filled with `ys`'s values each
    /// converted to `to`, seen as `ret` and passed to `done`.
    fn refill(&mut self, b: Block, ys: &Operand, ty: &Type, to: &Type, ret: &Type, done: Block) {
        let (Type::Array(from, n), Type::Union(u)) = (ty, ty.elem().unwrap_or(&Type::Any)) else {
            return;
        };
        let n = *n;
        let len = self.prim(b, Prim::Length, vec![ys.clone()], Type::Int64);
        let dims: Vec<Operand> = if n == 1 {
            vec![len.clone()]
        } else {
            (1..=i64::from(n))
                .map(|d| {
                    let d = Operand::Const(Const::Int(d));
                    self.prim(b, Prim::Size, vec![ys.clone(), d], Type::Int64)
                })
                .collect()
        };
        let out_ty = array(to.clone(), n);
        let out = self.prim(b, Prim::Zeros, dims, out_ty.clone());
        let (head, k, _, body, exit) = self.header(len, &[]);
        self.jump(b, head, vec![Operand::Const(Const::Int(1))]);
        let y = self.prim(
            body,
            Prim::GetIndex,
            vec![ys.clone(), k.clone()],
            (**from).clone(),
        );
        let (body, y) = if **from == *to {
            (body, y)
        } else if to.is_number() && promoted(&u.members, to).len() > 1 {
            // A literal's numbers promoted to `to` (the values are such numbers here).
            let numbers = promoted(&u.members, to);
            self.split_into(body, y, &numbers, to, |s, here, v, member| {
                match crate::join::conversion(member, to) {
                    Some(p) => s.prim(here, p, vec![v], to.clone()),
                    None => v,
                }
            })
        } else if u.members.contains(to) {
            (
                body,
                self.prim(body, Prim::UnionConvert, vec![y], to.clone()),
            )
        } else {
            let u = u.clone();
            self.rewrapped(body, y, &u, to)
        };
        self.prim(
            body,
            Prim::SetIndex,
            vec![out.clone(), y, k.clone()],
            to.clone(),
        );
        let one = Operand::Const(Const::Int(1));
        let k1 = self.prim(body, Prim::Add, vec![k, one], Type::Int64);
        self.jump(body, head, vec![k1]);
        let out = self.prim(exit, Prim::UnionConvert, vec![out], ret.clone());
        self.jump(exit, done, vec![out]);
    }

    /// `y` (of the union `from`) as a value of the union `to` holding the same member, by a
    /// test of the member it holds; the block after the conversion and the converted value.
    fn rewrapped(&mut self, b: Block, y: Operand, from: &UnionType, to: &Type) -> (Block, Operand) {
        self.split_into(b, y, &from.members, to, |s, here, v, _| {
            s.prim(here, Prim::UnionConvert, vec![v], to.clone())
        })
    }

    /// `y` (of the union of numbers `from`) converted to the number `to`, by a test of the
    /// member it holds; the block after the conversion and the converted value.
    fn widened(&mut self, b: Block, y: Operand, from: &Type, to: &Type) -> (Block, Operand) {
        let Type::Union(u) = from else {
            return (b, y);
        };
        self.split_into(
            b,
            y,
            &u.members,
            to,
            |s, here, v, member| match crate::join::conversion(member, to) {
                Some(p) => s.prim(here, p, vec![v], to.clone()),
                None => v,
            },
        )
    }

    /// `y` (a value of a union of `members`) split on the member it holds, each member's value
    /// `convert`ed to `to`; the block after the split and the joined value.
    fn split_into(
        &mut self,
        b: Block,
        y: Operand,
        members: &[Type],
        to: &Type,
        mut convert: impl FnMut(&mut Self, Block, Operand, &Type) -> Operand,
    ) -> (Block, Operand) {
        let join_b = self.f.add_block();
        let out = self.f.add_param(join_b, to.clone(), SPAN, None);
        let mut at = b;
        for (k, member) in members.iter().enumerate() {
            let here = if k + 1 == members.len() {
                at
            } else {
                let name = Operand::Const(Const::Symbol(member.to_string().as_str().into()));
                let c = self.prim(at, Prim::UnionIsa, vec![y.clone(), name], Type::Bool);
                let (then_b, else_b) = self.branch(at, c);
                at = else_b;
                then_b
            };
            let v = self.prim(here, Prim::UnionConvert, vec![y.clone()], member.clone());
            let v = convert(self, here, v, member);
            self.jump(here, join_b, vec![v]);
        }
        (join_b, Operand::Value(out))
    }

    /// `checkpointed(f, args...)` and `#apply(f, args...)`: `return f(args...)`.
    fn call_alone(&mut self, cx: &mut Cx) -> Result<(), Fail> {
        let args = self.args.clone();
        let (y, ty) = self.call(cx, Block::ENTRY, None, &args)?;
        let term = match ty {
            // `f` never returns: neither does the call.
            Type::Bottom => Terminator::Unreachable,
            _ => Terminator::Return(y),
        };
        self.f.set_term(Block::ENTRY, term, SPAN);
        self.f.ret = ty;
        Ok(())
    }

    /// `splat(f, pre, x, post)`: a branch on `length(x)` to `f(pre..., x[1], ..., x[k],
    /// post...)` for each `k` up to [`SPLAT_MOST`] that some method of `f` takes; another length
    /// is an error naming the length. Every call must return one type (Julia's would be
    /// a union: refused, naming the types).
    /// `union_split(f, args...)`: a test of the first union argument's concrete type per
    /// member, each branch calling `f` with it seen as that member; the results join to one
    /// type. A member for which no method applies throws Julia's error when it is met, as
    /// Julia's dispatch at run time does; the call is refused when no member has one.
    fn union_split(&mut self, cx: &mut Cx) -> Result<(), Fail> {
        let args = self.args.clone();
        let Some((at, Type::Union(u))) = args
            .iter()
            .enumerate()
            .find_map(|(i, (_, t))| matches!(t, Type::Union(_)).then(|| (i, t.clone())))
        else {
            return Err(Fail::unsupported("malformed union split"));
        };
        let mut b = Block::ENTRY;
        let mut results: Vec<(Block, Operand, Type)> = Vec::new();
        let mut failed: Option<Fail> = None;
        let members = tested_last(&u.members);
        for (k, member) in members.iter().enumerate() {
            let here = if k + 1 == members.len() {
                b
            } else {
                let name = Operand::Const(Const::Symbol(member.to_string().as_str().into()));
                let c = self.prim(
                    b,
                    Prim::UnionIsa,
                    vec![args[at].0.clone(), name],
                    Type::Bool,
                );
                let (then_b, else_b) = self.branch(b, c);
                b = else_b;
                then_b
            };
            let v = self.prim(
                here,
                Prim::UnionConvert,
                vec![args[at].0.clone()],
                member.clone(),
            );
            let mut call_args = args.clone();
            call_args[at] = (v, member.clone());
            if let Some(parts) = self.tuple_by_index(cx, here, &call_args) {
                results.extend(parts);
                continue;
            }
            match self.call(cx, here, None, &call_args) {
                Ok((_, Type::Bottom)) => self.f.set_term(here, Terminator::Unreachable, SPAN),
                Ok((y, t)) => results.push((here, y, t)),
                Err(fail) if fail.code == "unsupported" && !crate::open::is_open(&u.name) => {
                    return Err(fail)
                }
                Err(fail) => {
                    let msg = fail.message.clone();
                    failed.get_or_insert(fail);
                    self.throw_error(here, &msg);
                }
            }
        }
        if let (true, Some(fail)) = (results.is_empty(), failed) {
            return Err(fail);
        }
        let types: Vec<Type> = results.iter().map(|(_, _, t)| t.clone()).collect();
        let ret = split_join(cx, &args[0].1, &u, &types)?;
        self.f.ret = ret.clone();
        if ret == Type::Bottom {
            return Ok(());
        }
        let join_b = self.f.add_block();
        let y = self.f.add_param(join_b, ret.clone(), SPAN, None);
        for (from, v, t) in results {
            let v = match crate::join::conversion(&t, &ret) {
                Some(p) => self.prim(from, p, vec![v], ret.clone()),
                None => v,
            };
            self.jump(from, join_b, vec![v]);
        }
        self.f
            .set_term(join_b, Terminator::Return(Operand::Value(y)), SPAN);
        Ok(())
    }

    /// `getindex(t, i)` of a tuple whose elements differ in type (an element of a container
    /// of `Any`, `kinds(x)[3][2]`) at an index known at run time only: a test per position,
    /// each reading its element as the type it holds, and Julia's `BoundsError` past the
    /// end. The blocks reading the elements with their values; `None` for another call.
    fn tuple_by_index(
        &mut self,
        cx: &mut Cx,
        mut b: Block,
        args: &[(Operand, Type)],
    ) -> Option<Vec<(Block, Operand, Type)>> {
        let [(_, Type::Function(f)), (t, tt @ Type::Tuple(ts)), (i, Type::Int64)] = args else {
            return None;
        };
        let by_index = matches!(&**f, "getindex" | "Base.getindex");
        if !by_index || ts.iter().all(|e| *e == ts[0]) {
            return None;
        }
        let mut parts = Vec::new();
        for (k, e) in ts.iter().enumerate() {
            let at = Operand::Const(Const::Int(k as i64 + 1));
            let c = self.prim(b, Prim::Eq, vec![i.clone(), at.clone()], Type::Bool);
            let (then_b, else_b) = self.branch(b, c);
            let v = self.prim(then_b, Prim::GetField, vec![t.clone(), at], e.clone());
            parts.push((then_b, v, e.clone()));
            b = else_b;
        }
        let index = [(t.clone(), tt.clone()), (i.clone(), Type::Int64)];
        match self.call(cx, b, Some("Base._bounds_message"), &index) {
            Ok((text, _)) => {
                let error = Operand::Const(Const::Symbol("BoundsError".into()));
                self.prim(b, Prim::Error, vec![error, text], Type::Bottom);
                self.f.set_term(b, Terminator::Unreachable, SPAN);
            }
            Err(fail) => self.throw(b, &fail.message),
        }
        Some(parts)
    }

    /// End `b` raising the error `message` (`MethodError: ...` as that exception).
    fn throw_error(&mut self, b: Block, message: &str) {
        match message.split_once(": ") {
            Some((e, rest))
                if (e.ends_with("Error") || e == "DimensionMismatch") && !e.contains(' ') =>
            {
                let parts = vec![
                    Operand::Const(Const::Symbol(e.into())),
                    Operand::Const(Const::Str(rest.into())),
                ];
                self.prim(b, Prim::Error, parts, Type::Bottom);
                self.f.set_term(b, Terminator::Unreachable, SPAN);
            }
            _ => self.throw(b, message),
        }
    }

    fn splat(&mut self, cx: &mut Cx) -> Result<(), Fail> {
        let args = self.args.clone();
        let [(f, ft), (pre, Type::Tuple(pre_ts)), (x, Type::Array(e, 1)), (post, Type::Tuple(post_ts))] =
            args.as_slice()
        else {
            return Err(Fail::unsupported("malformed splatting call"));
        };
        let e = (**e).clone();
        let callee = Val::of(Arg::Input(0), ft.clone());
        let (lengths, ret) = splat_lengths(cx, &callee, pre_ts, &e, post_ts)?;
        let mut b = Block::ENTRY;
        let n = self.prim(b, Prim::Length, vec![x.clone()], Type::Int64);
        for k in lengths {
            let want = Operand::Const(Const::Int(k as i64));
            let c = self.prim(b, Prim::Eq, vec![n.clone(), want], Type::Bool);
            let (then_b, else_b) = self.branch(b, c);
            let mut args = vec![(f.clone(), ft.clone())];
            let parts = [
                (pre, Prim::GetField, pre_ts.to_vec()),
                (x, Prim::GetIndex, vec![e.clone(); k]),
                (post, Prim::GetField, post_ts.to_vec()),
            ];
            for (from, get, ts) in parts {
                for (i, t) in ts.into_iter().enumerate() {
                    let at = Operand::Const(Const::Int(i as i64 + 1));
                    let v = self.prim(then_b, get, vec![from.clone(), at], t.clone());
                    args.push((v, t));
                }
            }
            let (y, ty) = self.call(cx, then_b, None, &args)?;
            let term = match ty {
                Type::Bottom => Terminator::Unreachable,
                _ => Terminator::Return(y),
            };
            self.f.set_term(then_b, term, SPAN);
            b = else_b;
        }
        // A keyword call is shown by the function it calls.
        let called = match (ft, pre_ts.get(1)) {
            (Type::Function(n), Some(f)) if &**n == SPLAT_KEYWORDS => f,
            _ => ft,
        };
        let shown = match called {
            Type::Function(name) => name.strip_prefix("Base.").unwrap_or(name).to_string(),
            t => t.to_string(),
        };
        let most = Operand::Const(Const::Int(SPLAT_MOST as i64));
        let long = self.prim(b, Prim::Lt, vec![most, n.clone()], Type::Bool);
        let (long_b, none_b) = self.branch(b, long);
        let text = |s: String| Operand::Const(Const::Str(s.as_str().into()));
        let kind = Operand::Const(Const::Symbol("ErrorException".into()));
        let long_parts = vec![
            kind,
            text("unsupported: splatting a vector of ".into()),
            n.clone(),
            text(format!(
                " elements with `...` into `{shown}` beside other arguments or into varargs (zy \
                 passes up to {SPLAT_MOST} elements); pass a tuple or index it"
            )),
        ];
        self.prim(long_b, Prim::Error, long_parts, Type::Bottom);
        self.f.set_term(long_b, Terminator::Unreachable, SPAN);
        let none_parts = vec![
            Operand::Const(Const::Symbol("MethodError".into())),
            text(format!("no method matching {shown}(...) taking the ")),
            n,
            text(" elements of the vector splatted".into()),
        ];
        self.prim(none_b, Prim::Error, none_parts, Type::Bottom);
        self.f.set_term(none_b, Terminator::Unreachable, SPAN);
        self.f.ret = ret;
        Ok(())
    }

    /// `sum(f, xs)`: `f(xs[1]) + f(xs[2]) + ...`; an empty `xs` is Julia's `mapreduce_empty`.
    fn sum(&mut self, cx: &mut Cx) -> Result<(), Fail> {
        let xs_arg = self.args[1].clone();
        let (xs, xt) = xs_arg.clone();
        let e = xt.elem().cloned().unwrap_or(Type::Bottom);
        let r = cx.callee_result(&Val::of(Arg::Input(0), self.args[0].1.clone()), &[e])?;
        let b = Block::ENTRY;
        let n = self.prim(b, Prim::Length, vec![xs], Type::Int64);
        let empty = self.prim(
            b,
            Prim::Lt,
            vec![n.clone(), Operand::Const(Const::Int(1))],
            Type::Bool,
        );
        let (err, first) = (self.f.add_block(), self.f.add_block());
        self.f.set_term(
            b,
            Terminator::Branch {
                cond: empty,
                then_to: BlockCall::new(err),
                else_to: BlockCall::new(first),
            },
            SPAN,
        );
        let (y1, _) = self.apply_f(cx, first, Operand::Const(Const::Int(1)))?;
        if r == Type::Bottom {
            self.throw_error(err, EMPTY_REDUCE);
            self.f.set_term(first, Terminator::Unreachable, SPAN);
            self.f.ret = Type::Bottom;
            return Ok(());
        }
        // Results of a union of number types (`x < 2 ? false : x^2`) are added as their
        // promoted type, as `map` stores them (Julia adds each as it is, to the same value).
        let promoted = match &r {
            Type::Union(u) if r.is_real() && u.is_julias() => Some(
                u.members
                    .iter()
                    .fold(Type::Bool, |a, m| crate::value::promote(&a, m)),
            ),
            _ => None,
        };
        // Bools are summed as Ints.
        let acc_ty = match (&promoted, &r) {
            (Some(p), _) => p.clone(),
            (None, Type::Bool) => Type::Int64,
            (None, r) => r.clone(),
        };
        let (first, y1) = match &promoted {
            Some(p) => self.widened(first, y1, &r, p),
            None => (first, y1),
        };
        let y1 = if r == Type::Bool {
            self.prim(first, Prim::ToInt, vec![y1], Type::Int64)
        } else {
            y1
        };
        let (head, k, vars, body, exit) = self.header(n, std::slice::from_ref(&acc_ty));
        self.jump(first, head, vec![Operand::Const(Const::Int(2)), y1]);
        let acc = vars[0].clone();
        let (y, yt) = self.apply_f(cx, body, k.clone())?;
        let (body, y, yt) = match &promoted {
            Some(p) => {
                let (body, y) = self.widened(body, y, &r, p);
                (body, y, p.clone())
            }
            None => (body, y, yt),
        };
        let (s, st) = self.call(
            cx,
            body,
            Some("+"),
            &[(acc.clone(), acc_ty.clone()), (y, yt)],
        )?;
        if st != acc_ty {
            return Err(Fail::unsupported(format!(
                "`sum` accumulating {acc_ty} into {st}"
            )));
        }
        let k1 = self.prim(
            body,
            Prim::Add,
            vec![k, Operand::Const(Const::Int(1))],
            Type::Int64,
        );
        self.jump(body, head, vec![k1, s]);
        self.f.set_term(exit, Terminator::Return(acc), SPAN);
        self.empty_sum(cx, err, &xs_arg, &acc_ty);
        self.f.ret = acc_ty;
        Ok(())
    }

    /// The block `b` of `sum(f, xs)` of an empty `xs`: Julia's `mapreduce_empty(f, +, T)`, a
    /// zero of the sum's type for `identity`, `abs` and `abs2` of numbers, else its
    /// `ArgumentError` (also where that zero is not of the sum's type).
    fn empty_sum(&mut self, cx: &mut Cx, b: Block, xs: &(Operand, Type), acc_ty: &Type) {
        let plus = (
            Operand::Const(Const::Func("Base.+".into())),
            Type::Function("Base.+".into()),
        );
        let args = [self.args[0].clone(), plus, xs.clone()];
        match self.call(cx, b, Some("Base._mapreduce_empty"), &args) {
            Ok((v, t)) if t == *acc_ty => self.f.set_term(b, Terminator::Return(v), SPAN),
            Ok((_, Type::Bottom)) => self.f.set_term(b, Terminator::Unreachable, SPAN),
            _ => self.throw_error(b, EMPTY_REDUCE),
        }
    }
}

/// Julia's error reducing an empty collection without `init`.
const EMPTY_REDUCE: &str = "ArgumentError: reducing over an empty collection is not allowed; \
                            consider supplying `init` to the reducer";
