//! Copying loops: unrolling, and peeling a loop's first iteration ([`peel`], for
//! [`crate::peel`]). Unrolling a `for` loop over a tuple whose elements differ in type: Julia
//! compiles such a loop over a union of the element types; zy has no union-typed values, so a loop whose
//! element `Base._gen_elem(xs, k)` would need a run-time index into a heterogeneous tuple
//! (directly, or through `enumerate`, `zip` or `pairs` of one) is copied once per element,
//! each copy reading its element by a constant index and so typed with that element's own
//! type. Lowering's loop shape is relied on: a header block whose first parameter-reading
//! branch `k <= n` enters the body or leaves to the exit, back edges to the header.

use rustc_hash::{FxHashMap, FxHashSet};
use zy_ir::cfg::Dominators;
use zy_ir::{
    Block, BlockCall, Const, Function, Name, Op, Operand, Span, Stmt, Terminator, Type, Value,
    ValueKind,
};

/// The longest tuple a loop is unrolled over; a longer one keeps the run-time index refusal.
pub(crate) const MAX_UNROLL: usize = 64;

/// The most blocks a body may grow to by unrolling (nested loops multiply).
const MAX_BLOCKS: usize = 8192;

/// How element `j` of an iterated value is read when `j` is a constant.
enum Shape {
    /// `xs[j]`: a tuple or named tuple.
    Index,
    /// `Base._gen_elem(xs, j)`: a collection whose elements share one type.
    Plain,
    /// `(j, elem(xs.itr))`.
    Enumerate(Box<Shape>),
    /// `(elem(xs.its[1]), elem(xs.its[2]), ...)`.
    Zip(Vec<Shape>),
    /// `key => xs.data[j]`: the key `j`, or the `j`th name of a named tuple.
    Pairs(Option<Vec<Name>>),
}

/// What unrolling needs to know of an iterated type.
struct Plan {
    shape: Shape,
    /// Do the elements differ in type (so a run-time index cannot read them)?
    mixed: bool,
    /// The number of elements, when the type fixes it.
    len: Option<usize>,
}

fn field<'t>(t: &'t Type, name: &str) -> Option<&'t Type> {
    match t {
        Type::Struct(s) => s.fields.iter().find(|(n, _)| &**n == name).map(|(_, t)| t),
        _ => None,
    }
}

fn all_same<'t>(mut ts: impl Iterator<Item = &'t Type>) -> bool {
    match ts.next() {
        Some(first) => ts.all(|t| t == first),
        None => true,
    }
}

fn plan(t: &Type) -> Plan {
    let plain = Plan {
        shape: Shape::Plain,
        mixed: false,
        len: None,
    };
    match t {
        Type::Tuple(ts) => Plan {
            shape: Shape::Index,
            mixed: !all_same(ts.iter()),
            len: Some(ts.len()),
        },
        Type::NamedTuple(fs) => Plan {
            shape: Shape::Index,
            mixed: !all_same(fs.iter().map(|(_, t)| t)),
            len: Some(fs.len()),
        },
        Type::Struct(s) => match (&*s.name, field(t, "itr"), field(t, "its"), field(t, "data")) {
            ("Base.Enumerate", Some(itr), _, _) => {
                let inner = plan(itr);
                Plan {
                    shape: Shape::Enumerate(Box::new(inner.shape)),
                    ..inner
                }
            }
            ("Base.Zip", _, Some(Type::Tuple(parts)), _) => {
                let plans: Vec<Plan> = parts.iter().map(plan).collect();
                let mixed = plans.iter().any(|p| p.mixed);
                // Only parts of known length: `zip` stops at the shortest.
                let len = plans.iter().map(|p| p.len).collect::<Option<Vec<_>>>();
                Plan {
                    len: len.and_then(|l| l.into_iter().min()),
                    mixed,
                    shape: Shape::Zip(plans.into_iter().map(|p| p.shape).collect()),
                }
            }
            ("Base.Pairs", _, _, Some(data)) => {
                let inner = plan(data);
                let names: Option<Vec<Name>> = match data {
                    Type::NamedTuple(fs) => Some(fs.iter().map(|(n, _)| n.clone()).collect()),
                    _ => None,
                };
                // A named tuple's keys are symbols, each its own type: two or more differ.
                let mixed = inner.mixed || names.as_ref().is_some_and(|n| n.len() > 1);
                match inner.shape {
                    Shape::Index => Plan {
                        shape: Shape::Pairs(names),
                        mixed,
                        ..inner
                    },
                    _ => plain,
                }
            }
            _ => plain,
        },
        _ => plain,
    }
}

/// What each copy of the loop reads in place of its element statement.
enum Element {
    /// Element `j` of the iterated value, read by its [`Shape`].
    Read(Shape, Operand),
    /// The index `first + j` of a counted loop over a tuple's indices.
    Index(i64),
}

/// A loop to copy: its header, its exit (where the header's test leaves to), and how.
struct Candidate {
    header: Block,
    exit: Block,
    mode: Mode,
}

/// How a loop is copied.
enum Mode {
    /// Once per element of a tuple: copy `j` reads element `j + 1` in place of the element
    /// statement `elem` and its header enters the body; a last copy of the header leaves.
    Unroll {
        elem: Value,
        element: Element,
        len: usize,
    },
    /// Its first iteration copied before it: the copy's header tests as the loop's does, and
    /// its back edges enter the loop itself, which stays as it was.
    Peel,
}

impl Mode {
    /// The number of copies of the whole loop.
    fn copies(&self) -> usize {
        match self {
            Mode::Unroll { len, .. } => *len,
            Mode::Peel => 1,
        }
    }
}

/// The statement defining `v`, if it calls `name`.
fn call_of<'f>(body: &'f Function, v: &Operand, name: &str) -> Option<&'f [Operand]> {
    match body.stmt(v.as_value()?)? {
        Stmt {
            op: Op::Call(n),
            args,
        } if &**n == name => Some(args),
        _ => None,
    }
}

/// The number of elements of `v` when its type fixes it (a tuple, named tuple, or an iterator
/// over one).
fn fixed_len(ty: &[Type], v: &Operand) -> Option<usize> {
    v.as_value().and_then(|v| plan(&ty[v.index()]).len)
}

/// The loop counter `k` (a header parameter) of an element statement `name(source, k)`.
fn counter(body: &Function, args: &[Operand]) -> Option<Block> {
    match args {
        [_, Operand::Value(k)] => match body.value(*k).kind {
            ValueKind::Param { block, .. } => Some(block),
            ValueKind::Stmt(_) => None,
        },
        _ => None,
    }
}

/// A counted loop whose index `i` reads a heterogeneous tuple (`t[i]`): `for i in
/// 1:length(t)` (constant ends, or `length(t)` / `lastindex(t)` of a tuple) or `for i in
/// eachindex(t)`. Its statement defining `i`, its header, first index and count.
fn index_loop(body: &Function, ty: &[Type], i: &Operand) -> Option<(Value, Block, i64, usize)> {
    let iv = i.as_value()?;
    if let Some(args) = call_of(body, i, "Base.loop_elem") {
        let header = counter(body, args)?;
        let range = call_of(body, &args[0], "Base.loop_range")?;
        let [Operand::Const(Const::Int(a)), Operand::Const(Const::Int(1)), b] = range else {
            return None;
        };
        let b = match b {
            Operand::Const(Const::Int(b)) => *b,
            _ => {
                let t =
                    call_of(body, b, "Base.length").or_else(|| call_of(body, b, "Base.lastindex"));
                match t {
                    Some([t]) => fixed_len(ty, t)? as i64,
                    _ => return None,
                }
            }
        };
        let count = usize::try_from(b - a + 1).unwrap_or(0);
        return Some((iv, header, *a, count));
    }
    let args = call_of(body, i, "Base._gen_elem")?;
    let header = counter(body, args)?;
    match call_of(body, &args[0], "Base.eachindex")? {
        [t] => Some((iv, header, 1, fixed_len(ty, t)?)),
        _ => None,
    }
}

/// The first loop of `body` that reads a heterogeneous tuple by its counter (a loop over one,
/// or over its indices), of at most [`MAX_UNROLL`] iterations, given the types found so far
/// (`ty`, `reach` from inference's fixpoint).
fn candidate(body: &Function, ty: &[Type], reach: &[bool]) -> Option<Candidate> {
    for b in body.block_ids().filter(|b| reach[b.index()]) {
        for &v in &body.block(b).stmts {
            let Some(Stmt {
                op: Op::Call(n),
                args,
            }) = body.stmt(v)
            else {
                continue;
            };
            let found = match (&**n, args.as_slice()) {
                ("Base._gen_elem", [xs @ Operand::Value(x), _]) => {
                    let p = plan(&ty[x.index()]);
                    match (counter(body, args), p.len) {
                        (Some(header), Some(len)) if p.mixed => {
                            Some((v, header, Element::Read(p.shape, xs.clone()), len))
                        }
                        _ => None,
                    }
                }
                ("Base.getindex", [Operand::Value(t), i]) if plan(&ty[t.index()]).mixed => {
                    index_loop(body, ty, i).map(|(iv, header, first, count)| {
                        (iv, header, Element::Index(first), count)
                    })
                }
                _ => None,
            };
            let Some((elem, header, element, len)) = found.filter(|f| f.3 <= MAX_UNROLL) else {
                continue;
            };
            let Terminator::Branch { else_to, .. } = &body.block(header).term else {
                continue;
            };
            return Some(Candidate {
                header,
                exit: else_to.block,
                mode: Mode::Unroll { elem, element, len },
            });
        }
    }
    None
}

/// `body` with its first loop over a heterogeneous tuple unrolled, if it has one.
pub(crate) fn unroll(body: &Function, ty: &[Type], reach: &[bool]) -> Option<Function> {
    let c = candidate(body, ty, reach)?;
    if body.blocks.len() * (c.mode.copies() + 1) > MAX_BLOCKS {
        return None;
    }
    let region = region(body, c.header, c.exit);
    if let Mode::Unroll {
        element: Element::Read(_, xs),
        ..
    } = &c.mode
    {
        if xs.as_value().is_some_and(|v| defined_in(body, &region, v)) {
            return None;
        }
    }
    Some(Unroller::new(body, &c, &region).run())
}

/// `body` with the first iteration of the loop at `header` (leaving to `exit`) copied before
/// it, when the copy keeps the body within bounds and nothing after the loop reads a value of
/// its body other than the header's.
pub(crate) fn peel(body: &Function, header: Block, exit: Block) -> Option<Function> {
    let region = region(body, header, exit);
    if body.blocks.len() + region.len() > MAX_BLOCKS {
        return None;
    }
    let h = body.block(header);
    let outside_reads = body
        .block_ids()
        .filter(|b| !region.contains(b))
        .flat_map(|b| reads(body, b))
        .filter_map(|op| op.as_value())
        .any(|v| defined_in(body, &region, v) && !h.params.contains(&v) && !h.stmts.contains(&v));
    if outside_reads {
        return None;
    }
    let c = Candidate {
        header,
        exit,
        mode: Mode::Peel,
    };
    Some(Unroller::new(body, &c, &region).run())
}

/// The blocks of the loop at `header`: those it dominates that its exit does not.
fn region(body: &Function, header: Block, exit: Block) -> Vec<Block> {
    let doms = Dominators::new(body);
    body.block_ids()
        .filter(|&b| doms.dominates(header, b) && !doms.dominates(exit, b))
        .collect()
}

/// Is `v` defined in one of the `region`'s blocks?
fn defined_in(body: &Function, region: &[Block], v: Value) -> bool {
    match &body.value(v).kind {
        ValueKind::Param { block, .. } => region.contains(block),
        ValueKind::Stmt(_) => region.iter().any(|&b| body.block(b).stmts.contains(&v)),
    }
}

/// The operands block `b` reads: its statements' and its terminator's.
fn reads(body: &Function, b: Block) -> Vec<&Operand> {
    let data = body.block(b);
    let mut ops: Vec<&Operand> = data.term.operands();
    for &v in &data.stmts {
        if let Some(s) = body.stmt(v) {
            ops.extend(&s.args);
        }
    }
    ops
}

/// The copies being made: per copy, its blocks and values.
struct Unroller<'a> {
    body: &'a Function,
    c: &'a Candidate,
    region: &'a [Block],
    f: Function,
    /// `blocks[j]`: copy `j`'s block for each region block; the last (`j` = the number of
    /// copies) is a copy of the header only when unrolling, the loop itself when peeling.
    blocks: Vec<FxHashMap<Block, Block>>,
    values: Vec<FxHashMap<Value, Operand>>,
}

impl<'a> Unroller<'a> {
    fn new(body: &'a Function, c: &'a Candidate, region: &'a [Block]) -> Unroller<'a> {
        Unroller {
            body,
            c,
            region,
            f: body.clone(),
            blocks: Vec::new(),
            values: Vec::new(),
        }
    }

    fn run(mut self) -> Function {
        let (c, body) = (self.c, self.body);
        let copies = c.mode.copies();
        // The copies of the loop, then the header once more, which leaves it (unrolling), or
        // the loop itself (peeling).
        let mut cloned = Vec::new();
        for j in 0..=copies {
            let mut bmap = FxHashMap::default();
            let mut vmap = FxHashMap::default();
            let copied: Vec<Block> = match c.mode {
                _ if j < copies => self.region.to_vec(),
                Mode::Unroll { .. } => vec![c.header],
                Mode::Peel => {
                    self.blocks
                        .push(self.region.iter().map(|&b| (b, b)).collect());
                    self.values.push(vmap);
                    continue;
                }
            };
            for &b in &copied {
                let nb = self.f.add_block();
                bmap.insert(b, nb);
                for &p in &body.block(b).params {
                    let d = body.value(p);
                    let np = self.f.add_param(nb, Type::Any, d.span, d.name.clone());
                    vmap.insert(p, np.into());
                }
                for &v in &body.block(b).stmts {
                    let d = body.value(v);
                    if let Mode::Unroll { elem, element, .. } = &c.mode {
                        if v == *elem {
                            let e = match element {
                                Element::Read(shape, xs) => {
                                    self.element(nb, shape, xs.clone(), j as i64 + 1, d.span)
                                }
                                Element::Index(first) => Const::Int(first + j as i64).into(),
                            };
                            vmap.insert(v, e);
                            continue;
                        }
                    }
                    let Some(s) = body.stmt(v) else { continue };
                    let nv = self.f.push_stmt(nb, s.clone(), Type::Any, d.span);
                    self.f.values[nv.index()].name = d.name.clone();
                    vmap.insert(v, nv.into());
                    cloned.push((j, nv));
                }
            }
            self.blocks.push(bmap);
            self.values.push(vmap);
        }
        for (j, nv) in cloned {
            if let ValueKind::Stmt(s) = &self.f.values[nv.index()].kind {
                let args = s.args.iter().map(|a| self.operand(j, a)).collect();
                if let ValueKind::Stmt(s) = &mut self.f.values[nv.index()].kind {
                    s.args = args;
                }
            }
        }
        self.terminators();
        self.outside();
        match c.mode {
            Mode::Unroll { .. } => {
                for &b in self.region {
                    let data = self.f.block_mut(b);
                    data.stmts.clear();
                    data.term = Terminator::Unreachable;
                }
            }
            Mode::Peel => self.leave_by_own_block(),
        }
        self.f
    }

    /// A peeled loop's header leaves through a block of its own, so that what the exit's
    /// join converts (the loop's Float64 into the union with the copy's Int) is converted
    /// once, on leaving, rather than by the header on every iteration.
    fn leave_by_own_block(&mut self) {
        let (header, exit) = (self.c.header, self.c.exit);
        let span = self.body.block(header).term_span;
        let mut term = self.f.block(header).term.clone();
        for call in term.calls_mut().into_iter().filter(|c| c.block == exit) {
            let leave = self.f.add_block();
            self.f.set_term(leave, Terminator::Jump(call.clone()), span);
            *call = BlockCall {
                block: leave,
                args: Vec::new(),
            };
        }
        self.f.block_mut(header).term = term;
    }

    /// Element `j` (from 1) of `xs`, read by statements appended to `nb`.
    fn element(&mut self, nb: Block, shape: &Shape, xs: Operand, j: i64, span: Span) -> Operand {
        let call = |f: &mut Function, name: &str, args: Vec<Operand>| -> Operand {
            let op = Op::Call(name.into());
            f.push_stmt(nb, Stmt { op, args }, Type::Any, span).into()
        };
        let sym = |s: &str| Operand::Const(Const::Symbol(s.into()));
        let int = |i: i64| Operand::Const(Const::Int(i));
        match shape {
            Shape::Index => call(&mut self.f, "Base.getindex", vec![xs, int(j)]),
            Shape::Plain => call(&mut self.f, "Base._gen_elem", vec![xs, int(j)]),
            Shape::Enumerate(inner) => {
                let itr = call(&mut self.f, "getfield", vec![xs, sym("itr")]);
                let e = self.element(nb, inner, itr, j, span);
                call(&mut self.f, "tuple", vec![int(j), e])
            }
            Shape::Zip(parts) => {
                let its = call(&mut self.f, "getfield", vec![xs, sym("its")]);
                let mut es = Vec::new();
                for (i, part) in parts.iter().enumerate() {
                    let p = call(
                        &mut self.f,
                        "Base.getindex",
                        vec![its.clone(), int(i as i64 + 1)],
                    );
                    es.push(self.element(nb, part, p, j, span));
                }
                call(&mut self.f, "tuple", es)
            }
            Shape::Pairs(names) => {
                let data = call(&mut self.f, "getfield", vec![xs, sym("data")]);
                let v = call(&mut self.f, "Base.getindex", vec![data, int(j)]);
                let key = match names.as_ref().and_then(|n| n.get(j as usize - 1)) {
                    Some(n) => sym(n),
                    None => int(j),
                };
                call(&mut self.f, "Base.Pair", vec![key, v])
            }
        }
    }

    /// `op` as copy `j` reads it.
    fn operand(&self, j: usize, op: &Operand) -> Operand {
        match op.as_value().and_then(|v| self.values[j].get(&v)) {
            Some(new) => new.clone(),
            None => op.clone(),
        }
    }

    /// Copy `j`'s jump to `call`: the header is the next copy's, a region block copy `j`'s.
    fn target(&self, j: usize, call: &BlockCall) -> BlockCall {
        let block = if call.block == self.c.header {
            self.blocks[j + 1][&self.c.header]
        } else {
            self.blocks[j]
                .get(&call.block)
                .copied()
                .unwrap_or(call.block)
        };
        BlockCall {
            block,
            args: call.args.iter().map(|a| self.operand(j, a)).collect(),
        }
    }

    /// The copies' terminators: when unrolling, every copy's header enters its body (the
    /// tuple's length is the loop's) and the last header leaves to the exit.
    fn terminators(&mut self) {
        let (c, body) = (self.c, self.body);
        let (copies, unroll) = (c.mode.copies(), matches!(c.mode, Mode::Unroll { .. }));
        let last = if unroll { copies + 1 } else { copies };
        for j in 0..last {
            for (&b, &nb) in &self.blocks[j] {
                let old = &body.block(b).term;
                let term = match old {
                    Terminator::Branch {
                        then_to, else_to, ..
                    } if unroll && b == c.header => {
                        let way = if j < copies { then_to } else { else_to };
                        Terminator::Jump(self.target(j, way))
                    }
                    Terminator::Return(x) => Terminator::Return(self.operand(j, x)),
                    Terminator::Unreachable => Terminator::Unreachable,
                    Terminator::Jump(to) => Terminator::Jump(self.target(j, to)),
                    Terminator::Branch {
                        cond,
                        then_to,
                        else_to,
                    } => Terminator::Branch {
                        cond: self.operand(j, cond),
                        then_to: self.target(j, then_to),
                        else_to: self.target(j, else_to),
                    },
                    Terminator::Handle { leave, catch, to } => Terminator::Handle {
                        leave: *leave,
                        catch: catch.as_ref().map(|c| self.target(j, c)),
                        to: self.target(j, to),
                    },
                };
                let span = body.block(b).term_span;
                self.f.set_term(nb, term, span);
            }
        }
    }

    /// The blocks outside the loop: a jump into it enters the first copy, and a value of the
    /// header read after the loop (where the exit had one predecessor, no φ) becomes a new
    /// parameter of the exit, passed by each copy that leaves to it.
    fn outside(&mut self) {
        let (c, body) = (self.c, self.body);
        let inside: FxHashSet<Block> = self.region.iter().copied().collect();
        let first = self.blocks[0][&c.header];
        let header_values: Vec<Value> = {
            let h = body.block(c.header);
            h.params.iter().chain(&h.stmts).copied().collect()
        };
        let outside: Vec<Block> = body.block_ids().filter(|b| !inside.contains(b)).collect();
        let mut read = Vec::new();
        for &b in &outside {
            for op in reads(body, b) {
                if let Some(v) = op.as_value().filter(|v| header_values.contains(v)) {
                    if !read.contains(&v) {
                        read.push(v);
                    }
                }
            }
        }
        let mut after: FxHashMap<Value, Operand> = FxHashMap::default();
        for &w in &read {
            let d = body.value(w);
            let np = self.f.add_param(c.exit, Type::Any, d.span, d.name.clone());
            after.insert(w, np.into());
        }
        let swap = |op: &Operand| match op.as_value().and_then(|v| after.get(&v)) {
            Some(new) => new.clone(),
            None => op.clone(),
        };
        for &b in &outside {
            let stmts = self.f.block(b).stmts.clone();
            for v in stmts {
                if let ValueKind::Stmt(s) = &mut self.f.values[v.index()].kind {
                    s.args = s.args.iter().map(swap).collect();
                }
            }
            let data = self.f.block_mut(b);
            let mut term = data.term.clone();
            retarget(&mut term, |call| {
                call.args = call.args.iter().map(swap).collect();
                if call.block == c.header {
                    call.block = first;
                }
                if call.block == c.exit {
                    call.args.extend(read.iter().map(|w| after[w].clone()));
                }
            });
            if let Terminator::Return(x) | Terminator::Branch { cond: x, .. } = &mut term {
                *x = swap(x);
            }
            data.term = term;
        }
        // The copies (and a peeled loop) leaving to the exit pass their own values of what it
        // now receives.
        for j in 0..=c.mode.copies() {
            let extra: Vec<Operand> = read.iter().map(|w| self.operand(j, &(*w).into())).collect();
            let copies: Vec<Block> = self.blocks[j].values().copied().collect();
            for nb in copies {
                let mut term = self.f.block(nb).term.clone();
                retarget(&mut term, |call| {
                    if call.block == c.exit {
                        call.args.extend(extra.iter().cloned());
                    }
                });
                self.f.block_mut(nb).term = term;
            }
        }
    }
}

/// Apply `f` to every jump target of `term`.
fn retarget(term: &mut Terminator, mut f: impl FnMut(&mut BlockCall)) {
    for call in term.calls_mut() {
        f(call);
    }
}
