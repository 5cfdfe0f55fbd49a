//! `for x in c` over a struct of the program that defines Julia's iteration protocol
//! (`Base.iterate(c)`, `Base.iterate(c, state)`, each returning `nothing` or `(item, state)`).
//! Lowering writes every loop over a collection by index (`length(c)`, `Base._gen_elem(c, k)`);
//! once inference sees such a struct, the loop is rewritten Julia's way: `next = iterate(c)`
//! on entry, `next = iterate(c, state)` after each iteration, the body while `next !==
//! nothing`. The methods' untyped bodies are inlined into the loop, each `return nothing`
//! jumping out of the loop and each `return (item, state)` into the body with the tuple, so
//! `iterate`'s result is not held as a union; a value returned from elsewhere (a helper's
//! `Union{Nothing, Tuple{T, S}}`) is tested against `nothing` where it runs, the tuple
//! narrowed as a branch on `x === nothing` narrows `x`. A header parameter says
//! which call is due (`iterate(c)` on entry, `iterate(c, state)` after); the state carried
//! around the loop is undefined on entry (as a local assigned later is), never read there.
//! Lowering's loop shape is relied on (as `unroll.rs` does): a header whose branch `k <= n`
//! (with `n = length(c)`) enters the body or leaves to the exit, the element read by
//! `Base._gen_elem(c, k)` in the body.

use rustc_hash::FxHashMap;
use zy_ir::cfg::Dominators;

use crate::error::Fail;
use zy_ir::{
    Block, BlockCall, Const, Function, Method, Op, Operand, Program, Span, Stmt, Terminator, Type,
    TypeExpr, Value, ValueKind,
};

/// The protocol's function, as resolution names a program's `Base.iterate(c::C)` methods.
const ITERATE: &str = "Base.iterate";

/// How deeply one `iterate` method may hand over to another (`iterate(w) = iterate(w, 1)`).
const MAX_DEPTH: usize = 4;

/// A loop over a struct with `iterate` methods: where its parts are.
struct Candidate {
    header: Block,
    /// The statement reading the element, `Base._gen_elem(c, k)`.
    elem: Value,
    /// The collection `c` and the name of the struct with `iterate` methods it is or wraps.
    xs: Operand,
    name: zy_ir::Name,
    /// The fields leading from `c` through the library's lazy iterators to that struct.
    fields: Vec<zy_ir::Name>,
    /// Whether the iterator around the struct is an `Iterators.Rest`: the struct's items from
    /// the `Rest`'s state on, `iterate(c, st)` on entry.
    resumes: bool,
}

/// `body` with its first loop over a struct of the program that defines `Base.iterate`
/// methods lowered by them, if it has one: the rewritten body, or why its methods cannot be
/// inlined (and where the loop is).
pub(crate) fn lower_iterate(
    body: &Function,
    ty: &[Type],
    program: &Program,
) -> Option<Result<Function, (Fail, Span)>> {
    let c = candidate(body, ty, program)?;
    let lowered = method(program, &c.name, 1)
        .zip(method(program, &c.name, 2))
        .and_then(|(first, next)| Rewrite::new(body, &c, next).run(first));
    Some(lowered.ok_or_else(|| {
        let why = format!(
            "a `for` loop (or generator) over a `{0}` by its `Base.iterate` methods written \
             this way: zy inlines one `Base.iterate(::{0})` and one `Base.iterate(::{0}, \
             state)` method (or one `Base.iterate(c::{0}, state = s0)`) into the loop, without \
             `where` parameters, keywords or `try`, each returning `nothing` or an \
             `(item, state)` tuple",
            c.name
        );
        (Fail::unsupported(why), body.value(c.elem).span)
    }))
}

/// The names of the structs whose `iterate` methods the program defines (the first argument
/// annotated with the struct).
pub(crate) fn iterated_struct<'t>(t: &'t Type, program: &Program) -> Option<&'t zy_ir::Name> {
    let Type::Struct(s) = t else { return None };
    let gf = program.functions.get(ITERATE)?;
    gf.methods
        .iter()
        .any(|m| annotated(m, &s.name))
        .then_some(&s.name)
}

/// The library's lazy iterators that a loop iterates around the `iterate` methods of the
/// struct they wrap (their names after `Base.`, and the field holding what they wrap): each has
/// a state (`Base._lazy_start`), may end before asking for another item (`Base._lazy_more`),
/// and makes its item of its source's, skips it or ends (`Base._lazy_step`, in the prelude).
const LAZY: &[(&str, &str)] = &[
    ("Enumerate", "itr"),
    ("Generator", "iter"),
    ("Filter", "iter"),
    ("Iterators.Take", "xs"),
    ("Iterators.Drop", "xs"),
    ("Iterators.TakeWhile", "xs"),
    ("Iterators.DropWhile", "xs"),
    ("Iterators.Accumulate", "itr"),
    ("Iterators.Cycle", "xs"),
    ("Iterators.Rest", "itr"),
];

/// One of the library's lazy iterators ([`LAZY`]): its name after `Base.`, the field holding
/// what it wraps, and that field's type.
fn lazy_layer(t: &Type) -> Option<(&str, &zy_ir::Name, &Type)> {
    let Type::Struct(s) = t else { return None };
    let base = s.name.strip_prefix("Base.").unwrap_or(&s.name);
    let (_, field) = LAZY.iter().find(|(n, _)| *n == base)?;
    let (f, inner) = s.fields.iter().find(|(f, _)| &**f == *field)?;
    Some((base, f, inner))
}

/// A struct of the program with `iterate` methods, or the library's lazy iterators around
/// one (`enumerate(Iterators.filter(p, c))`): the fields leading to the struct (outermost
/// first), its name, and whether the iterator around it is an `Iterators.Rest` (whose state
/// is the struct's: only there).
pub(crate) fn iterated_chain<'t>(
    mut t: &'t Type,
    program: &Program,
) -> Option<(Vec<zy_ir::Name>, &'t zy_ir::Name, bool)> {
    let mut fields = Vec::new();
    let mut rest = false;
    loop {
        if let Some(name) = iterated_struct(t, program) {
            return Some((fields, name, rest));
        }
        if rest {
            return None;
        }
        let (base, field, inner) = lazy_layer(t)?;
        fields.push(field.clone());
        rest = base == "Iterators.Rest";
        t = inner;
    }
}

/// The lazy iterators whose element type is their source's (Julia's `eltype(::Type{Take{I}}) =
/// eltype(I)`, ...), by their names after `Base.`.
const SAME_ELTYPE: &[&str] = &[
    "Filter",
    "Iterators.Take",
    "Iterators.Drop",
    "Iterators.TakeWhile",
    "Iterators.DropWhile",
    "Iterators.Cycle",
];

/// The struct with `iterate` methods that `t` is, or that lazy iterators keeping its element
/// type wrap, when the program declares its element type (a `Base.eltype(::Type{S})` method).
fn eltype_declared<'t>(mut t: &'t Type, program: &Program) -> Option<&'t zy_ir::Name> {
    while iterated_struct(t, program).is_none() {
        let (base, _, inner) = lazy_layer(t)?;
        SAME_ELTYPE.contains(&base).then_some(())?;
        t = inner;
    }
    let name = iterated_struct(t, program)?;
    let of_type = |m: &Method| match m.sig.first() {
        Some(Some(TypeExpr::Named { name: ty, params })) => {
            ty.strip_prefix("Base.").unwrap_or(ty) == "Type"
                && matches!(params.as_slice(), [TypeExpr::Named { name: n, .. }] if n == name)
        }
        _ => false,
    };
    let gf = program.functions.get("Base.eltype")?;
    gf.methods.iter().any(of_type).then_some(name)
}

fn annotated(m: &Method, name: &str) -> bool {
    matches!(m.sig.first(), Some(Some(TypeExpr::Named { name: n, .. })) if **n == *name)
}

/// The one `iterate` method of `arity` arguments for the struct `name` that can be inlined:
/// no `where` parameters, keywords, varargs or `try`.
fn method<'p>(program: &'p Program, name: &str, arity: usize) -> Option<&'p Method> {
    let gf = program.functions.get(ITERATE)?;
    let mut found = gf
        .methods
        .iter()
        .filter(|m| m.sig.len() == arity && annotated(m, name));
    let m = found.next()?;
    let plain = m.where_params.is_empty()
        && m.keywords.is_none()
        && m.vararg().is_none()
        && !m
            .body
            .blocks
            .iter()
            .any(|b| matches!(b.term, Terminator::Handle { .. }));
    (plain && found.next().is_none()).then_some(m)
}

/// What a loop over a value of type `t` iterates by `iterate` methods, as
/// [`iterated_chain`] says: also a `String`, by the prelude's methods (Julia's, from a byte
/// index to the next: linear where reading the `k`th character afresh is quadratic).
fn iterated_by_methods(
    t: &Type,
    program: &Program,
) -> Option<(Vec<zy_ir::Name>, zy_ir::Name, bool)> {
    if t.is_string() {
        let name: zy_ir::Name = "String".into();
        return method(program, &name, 2).map(|_| (Vec::new(), name, false));
    }
    iterated_chain(t, program).map(|(fields, name, resumes)| (fields, name.clone(), resumes))
}

/// Is `k` a parameter of the loop's `header` that some edge into it starts at 1?
fn counts_from_one(body: &Function, header: Block, k: &Operand) -> bool {
    let Operand::Value(k) = k else { return false };
    let ValueKind::Param { block, index } = body.value(*k).kind else {
        return false;
    };
    block == header
        && body.block_ids().any(|b| {
            body.block(b).term.calls().iter().any(|call| {
                call.block == header
                    && matches!(
                        call.args.get(index as usize),
                        Some(Operand::Const(Const::Int(1)))
                    )
            })
        })
}

/// The first `Base._gen_elem(c, k)` of a loop counter `k` whose `c` is such a struct.
fn candidate(body: &Function, ty: &[Type], program: &Program) -> Option<Candidate> {
    for b in body.block_ids() {
        for &v in &body.block(b).stmts {
            let Some(Stmt {
                op: Op::Call(n),
                args,
            }) = body.stmt(v)
            else {
                continue;
            };
            let [xs @ Operand::Value(x), _] = args.as_slice() else {
                continue;
            };
            if &**n != "Base._gen_elem" {
                continue;
            }
            let Some((fields, name, resumes)) = iterated_by_methods(&ty[x.index()], program) else {
                continue;
            };
            // The header enters the body (the element's block) when `k <= n`; the counter `k`
            // is a constant when the body never loops back (`for x in c; return x; end`).
            let Some(header) = body.block_ids().find(|&h| {
                matches!(&body.block(h).term, Terminator::Branch { then_to, .. } if then_to.block == b)
            }) else {
                continue;
            };
            // A string's character `k` is read by `iterate` only in a loop counting `k` from 1
            // (not in the library's `_gen_elem` of an iterator around it).
            if ty[x.index()].is_string() && !counts_from_one(body, header, &args[1]) {
                continue;
            }
            return Some(Candidate {
                header,
                elem: v,
                xs: xs.clone(),
                name,
                fields,
                resumes,
            });
        }
    }
    None
}

/// The block at the top of the rewritten loop, where the iteration's state arrives: the
/// header's own parameters (`passed` on by an edge that skips an item), the lazy iterators'
/// states, and the iterators themselves read there (outermost first, then the struct).
struct Top {
    block: Block,
    passed: Vec<Operand>,
    states: Vec<Operand>,
    objects: Vec<Operand>,
}

/// Where the inlined bodies go: out of the loop (`done`) or into the body with `(item,
/// state)` (`item`, a block taking the tuple).
struct Targets {
    done: BlockCall,
    item: Block,
}

struct Rewrite<'a> {
    body: &'a Function,
    c: &'a Candidate,
    /// `iterate(c, state)`.
    next: &'a Method,
    f: Function,
    span: Span,
}

impl<'a> Rewrite<'a> {
    fn new(body: &'a Function, c: &'a Candidate, next: &'a Method) -> Rewrite<'a> {
        let span = body.value(c.elem).span;
        Rewrite {
            body,
            c,
            next,
            f: body.clone(),
            span,
        }
    }

    fn call(&mut self, block: Block, name: &str, args: Vec<Operand>) -> Value {
        let stmt = Stmt {
            op: Op::Call(name.into()),
            args,
        };
        self.f.push_stmt(block, stmt, Type::Any, self.span)
    }

    fn run(mut self, first: &Method) -> Option<Function> {
        let next = self.next;
        let (body, c) = (self.body, self.c);
        let header = c.header;
        let Terminator::Branch {
            cond: Operand::Value(cond),
            then_to,
            else_to,
        } = body.block(header).term.clone()
        else {
            return None;
        };
        // `k <= n` with `n = length(c)`: neither is needed any more.
        let Stmt { args: cmp, .. } = body.stmt(cond)?;
        let n = cmp.get(1).and_then(Operand::as_value);
        if !body.block(header).stmts.contains(&cond) || uses(body, cond) != 1 {
            return None;
        }
        let span = body.block(header).term_span;
        let doms = Dominators::new(body);
        let back = |b: Block| {
            body.block(b).term.successors().contains(&header) && doms.dominates(header, b)
        };
        let loops = body.block_ids().any(back);
        let layers = c.fields.len();
        // Where the iteration's state lives: the header of a loop; when the body never loops
        // back but a lazy iterator may skip an item, a block of its own the header enters.
        let iterates = loops || layers > 0;
        let top = if loops || !iterates {
            header
        } else {
            self.f.add_block()
        };
        let passed: Vec<Operand> = if top == header {
            body.block(header)
                .params
                .iter()
                .map(|&p| p.into())
                .collect()
        } else {
            Vec::new()
        };
        let (is_first, carried, states) = if iterates {
            let is_first = self.f.add_param(top, Type::Any, span, None);
            let carried = self.f.add_param(top, Type::Any, span, None);
            let states: Vec<Operand> = (0..layers)
                .map(|_| self.f.add_param(top, Type::Any, span, None).into())
                .collect();
            (Some(is_first), Some(carried), states)
        } else {
            (None, None, Vec::new())
        };
        let objects = self.objects(top);
        let source = objects[layers].clone();
        // An `Iterators.Rest` around the struct enters at its state, `iterate(c, rest.st)`.
        let resumed = c.resumes.then(|| {
            let st = vec![
                objects[layers - 1].clone(),
                Const::Symbol("st".into()).into(),
            ];
            Operand::from(self.call(top, "Base.getproperty", st))
        });
        // The tuple's block: the item goes through the lazy iterators (innermost first) to
        // the body, the state around the loop.
        let item = self.f.add_block();
        let t = self.f.add_param(item, Type::Any, span, None);
        let state = self.call(item, "Base.getindex", vec![t.into(), Const::Int(2).into()]);
        let top = Top {
            block: top,
            passed,
            states,
            objects,
        };
        let (elem, new_states, at) = self.steps(&top, item, t, state, &else_to);
        self.f.set_term(at, Terminator::Jump(then_to), span);
        let targets = Targets {
            done: else_to.clone(),
            item,
        };
        // The header: `iterate(c)` on entry, `iterate(c, state)` after an iteration (only the
        // first when nothing loops back: the header may then be the entry block), once every
        // lazy iterator around `c` may ask for another item.
        let on_entry = match resumed {
            Some(st) => self.inline(next, vec![source.clone(), st], &targets, 0)?,
            None => self.inline(first, vec![source.clone()], &targets, 0)?,
        };
        let ask = match (is_first, carried) {
            (Some(is_first), Some(carried)) => {
                let after = self.inline(next, vec![source, carried.into()], &targets, 0)?;
                Terminator::Branch {
                    cond: is_first.into(),
                    then_to: BlockCall::new(on_entry),
                    else_to: BlockCall::new(after),
                }
            }
            _ => Terminator::Jump(BlockCall::new(on_entry)),
        };
        let at = self.asks(&top, &else_to);
        self.f.set_term(at, ask, span);
        self.f.block_mut(header).stmts.retain(|&v| v != cond);
        if let Some(n) = n.filter(|&n| uses(body, n) == 1) {
            for b in 0..self.f.blocks.len() {
                self.f.blocks[b].stmts.retain(|&v| v != n);
            }
        }
        if top.block != header {
            let mut entry = vec![Const::Bool(true).into(), self.undefined(header).into()];
            entry.extend(self.starts(header));
            self.f.set_term(
                header,
                Terminator::Jump(BlockCall {
                    block: top.block,
                    args: entry,
                }),
                span,
            );
        }
        // The element: the item of the outermost iterator.
        if let ValueKind::Stmt(s) = &mut self.f.values[c.elem.index()].kind {
            *s = Stmt {
                op: Op::Call("Base.getindex".into()),
                args: vec![elem.0, Const::Int(elem.1).into()],
            };
        }
        // Edges into the header: from outside the loop `(true, undefined, start states)`, back
        // edges `(false, state, states)`.
        for b in body.block_ids() {
            if !loops || !body.block(b).term.successors().contains(&header) {
                continue;
            }
            let extra: Vec<Operand> = if back(b) {
                let mut extra = vec![Const::Bool(false).into(), state.into()];
                extra.extend(new_states.iter().cloned());
                extra
            } else {
                let mut extra = vec![Const::Bool(true).into(), self.undefined(b).into()];
                extra.extend(self.starts(b));
                extra
            };
            let mut term = self.f.block(b).term.clone();
            for call in term.calls_mut() {
                if call.block == header {
                    call.args.extend(extra.iter().cloned());
                }
            }
            self.f.block_mut(b).term = term;
        }
        Some(self.f)
    }

    /// The item `t` of the struct (`(item, state)`, in `item`) through the lazy iterators
    /// around it, innermost first: each one's `Base._lazy_step` ends the loop (`done`), skips
    /// the item (back to `top` with the new states) or makes its own item of it. The tuple and
    /// index of the outermost item, the iterators' new states, and the block that reaches it.
    fn steps(
        &mut self,
        top: &Top,
        item: Block,
        t: Value,
        state: Value,
        done: &BlockCall,
    ) -> ((Operand, i64), Vec<Operand>, Block) {
        let span = self.span;
        let mut elem = (Operand::from(t), 1);
        let mut new_states = top.states.clone();
        let mut at = item;
        for j in (0..top.states.len()).rev() {
            let y = self.call(at, "Base.getindex", vec![elem.0, Const::Int(elem.1).into()]);
            let step = vec![top.objects[j].clone(), top.states[j].clone(), y.into()];
            let r = self.call(at, "Base._lazy_step", step);
            let [keep, st, stop] = [1, 3, 4]
                .map(|k| self.call(at, "Base.getindex", vec![r.into(), Const::Int(k).into()]));
            new_states[j] = st.into();
            elem = (r.into(), 2);
            let (kept, go_on) = (self.f.add_block(), self.f.add_block());
            let mut skip = top.passed.clone();
            skip.extend([Const::Bool(false).into(), state.into()]);
            skip.extend(new_states.iter().cloned());
            let to_stop = Terminator::Branch {
                cond: stop.into(),
                then_to: done.clone(),
                else_to: BlockCall::new(kept),
            };
            self.f.set_term(at, to_stop, span);
            let to_keep = Terminator::Branch {
                cond: keep.into(),
                then_to: BlockCall::new(go_on),
                else_to: BlockCall {
                    block: top.block,
                    args: skip,
                },
            };
            self.f.set_term(kept, to_keep, span);
            at = go_on;
        }
        (elem, new_states, at)
    }

    /// At `top`, each lazy iterator's `Base._lazy_more` (a `take` that has its `n` items ends
    /// the loop, `done`): the block reached when all may ask the struct for another item.
    fn asks(&mut self, top: &Top, done: &BlockCall) -> Block {
        let mut at = top.block;
        for (o, st) in top.objects.iter().zip(&top.states) {
            let more = self.call(top.block, "Base._lazy_more", vec![o.clone(), st.clone()]);
            let asks = self.f.add_block();
            let term = Terminator::Branch {
                cond: more.into(),
                then_to: BlockCall::new(asks),
                else_to: done.clone(),
            };
            self.f.set_term(at, term, self.span);
            at = asks;
        }
        at
    }

    /// The state carried around the loop before the first `iterate(c)`, read nowhere.
    fn undefined(&mut self, block: Block) -> Value {
        let sym = Const::Symbol("#iteration_state".into()).into();
        self.call(block, "undef", vec![sym])
    }

    /// `c` and the iterators it wraps, read in `block`: the lazy iterators outermost first,
    /// then the struct with `iterate` methods.
    fn objects(&mut self, block: Block) -> Vec<Operand> {
        let mut objects = vec![self.c.xs.clone()];
        for field in &self.c.fields {
            let outer = objects[objects.len() - 1].clone();
            let sym = Const::Symbol(field.clone()).into();
            objects.push(
                self.call(block, "Base.getproperty", vec![outer, sym])
                    .into(),
            );
        }
        objects
    }

    /// The lazy iterators' states before the first item, made in `block`.
    fn starts(&mut self, block: Block) -> Vec<Operand> {
        let objects = self.objects(block);
        (0..self.c.fields.len())
            .map(|j| {
                self.call(block, "Base._lazy_start", vec![objects[j].clone()])
                    .into()
            })
            .collect()
    }

    /// A copy of `m`'s body called with `args`, its returns going to `targets`: its entry.
    fn inline(
        &mut self,
        m: &Method,
        args: Vec<Operand>,
        targets: &Targets,
        depth: usize,
    ) -> Option<Block> {
        if depth > MAX_DEPTH {
            return None;
        }
        let callee: &Function = &m.body;
        // A method without a body (`function f end`) has nothing to inline.
        if callee.block_ids().next().is_none() || callee.args().len() != args.len() {
            return None;
        }
        let mut blocks: FxHashMap<Block, Block> = FxHashMap::default();
        let mut values: FxHashMap<Value, Operand> = FxHashMap::default();
        for (&p, a) in callee.args().iter().zip(&args) {
            values.insert(p, a.clone());
        }
        let copied: Vec<Block> = callee
            .block_ids()
            .filter(|&b| b == Block::ENTRY || returned_param(callee, b).is_none())
            .collect();
        for &b in &copied {
            let nb = self.f.add_block();
            blocks.insert(b, nb);
            if b == Block::ENTRY {
                continue;
            }
            for &p in &callee.block(b).params {
                let d = callee.value(p);
                let np = self.f.add_param(nb, Type::Any, d.span, d.name.clone());
                values.insert(p, np.into());
            }
        }
        // Statements in order of the blocks (a definition dominates its uses, and reverse
        // post-order visits dominators first).
        let handed_over = handed_over(callee);
        for b in callee.reverse_postorder() {
            let Some(&nb) = blocks.get(&b) else { continue };
            for &v in &callee.block(b).stmts {
                if handed_over.as_ref().is_some_and(|(h, _)| *h == v) {
                    continue;
                }
                let (Some(s), d) = (callee.stmt(v), callee.value(v)) else {
                    continue;
                };
                let s = Stmt {
                    op: s.op.clone(),
                    args: s.args.iter().map(|a| map(&values, a)).collect(),
                };
                let nv = self.f.push_stmt(nb, s, Type::Any, d.span);
                self.f.values[nv.index()].name = d.name.clone();
                values.insert(v, nv.into());
            }
        }
        for &b in &copied {
            let nb = blocks[&b];
            let term = match &callee.block(b).term {
                Terminator::Return(Operand::Value(v))
                    if handed_over.as_ref().is_some_and(|(h, _)| h == v) =>
                {
                    let (_, hand) = handed_over.as_ref()?;
                    let [Operand::Value(c0), s] = hand.as_slice() else {
                        return None;
                    };
                    if map(&values, &(*c0).into()) != args[0] {
                        return None;
                    }
                    let s = map(&values, s);
                    let next = self.next;
                    let to = self.inline(next, vec![args[0].clone(), s], targets, depth + 1)?;
                    Terminator::Jump(BlockCall::new(to))
                }
                Terminator::Return(r) => Terminator::Jump(self.route(&map(&values, r), targets)),
                other => {
                    let mut term = other.clone();
                    for call in term.calls_mut() {
                        *call = match returned_param(callee, call.block) {
                            Some(i) => self.route(&map(&values, &call.args[i]), targets),
                            None => BlockCall {
                                block: blocks[&call.block],
                                args: call.args.iter().map(|a| map(&values, a)).collect(),
                            },
                        };
                    }
                    if let Terminator::Branch { cond, .. } = &mut term {
                        *cond = map(&values, cond);
                    }
                    term
                }
            };
            let span = callee.block(b).term_span;
            self.f.set_term(nb, term, span);
        }
        Some(blocks[&Block::ENTRY])
    }
}

/// `op` in the copy: a callee value by what it became, a constant as it is.
fn map(values: &FxHashMap<Value, Operand>, op: &Operand) -> Operand {
    match op.as_value().and_then(|v| values.get(&v)) {
        Some(new) => new.clone(),
        None => op.clone(),
    }
}

impl Rewrite<'_> {
    /// Where a returned value goes: `nothing` out of the loop, a tuple the method built into
    /// it, any other value (a call's, `Union{Nothing, Tuple{T, S}}` where a helper returns
    /// `nothing` or the tuple) by a test where it runs: out of the loop if it is `nothing`,
    /// else into it as the tuple (`Base._notnothing`, as a branch on `=== nothing` narrows).
    fn route(&mut self, r: &Operand, targets: &Targets) -> BlockCall {
        let item = |r: Operand| BlockCall {
            block: targets.item,
            args: vec![r],
        };
        match r {
            Operand::Const(Const::Nothing) => targets.done.clone(),
            Operand::Value(v) if !self.builds_tuple(*v) => {
                let test = self.f.add_block();
                let none = self.call(test, "Base.===", vec![r.clone(), Const::Nothing.into()]);
                let some = self.f.add_block();
                let tuple = self.call(some, "Base._notnothing", vec![r.clone()]);
                self.f
                    .set_term(some, Terminator::Jump(item(tuple.into())), self.span);
                let branch = Terminator::Branch {
                    cond: none.into(),
                    then_to: targets.done.clone(),
                    else_to: BlockCall::new(some),
                };
                self.f.set_term(test, branch, self.span);
                BlockCall::new(test)
            }
            _ => item(r.clone()),
        }
    }

    /// Is `v` a tuple built by a statement of the rewritten body (`(item, state)`)?
    fn builds_tuple(&self, v: Value) -> bool {
        matches!(self.f.stmt(v), Some(Stmt { op: Op::Call(n), .. }) if &**n == "tuple")
    }
}

/// A block that only returns one of its parameters (the join of `c ? nothing : (x, s)`):
/// the parameter's index. Jumps into it are routed by the value they pass.
fn returned_param(f: &Function, b: Block) -> Option<usize> {
    let data = f.block(b);
    match &data.term {
        Terminator::Return(Operand::Value(v)) if data.stmts.is_empty() && b != Block::ENTRY => {
            data.params.iter().position(|p| p == v)
        }
        _ => None,
    }
}

/// A statement `Base.iterate(c, s)` whose value the method returns and nothing else reads
/// (`iterate(w) = iterate(w, 1)`): the method hands over to another, inlined in its place.
fn handed_over(f: &Function) -> Option<(Value, Vec<Operand>)> {
    for b in f.block_ids() {
        let Terminator::Return(Operand::Value(v)) = &f.block(b).term else {
            continue;
        };
        let args = match f.stmt(*v) {
            Some(Stmt {
                op: Op::Call(n),
                args,
            }) if &**n == ITERATE => args.as_slice(),
            // `Base.iterate(c, s)` written qualified: a call of the global function's value.
            Some(Stmt {
                op: Op::CallValue,
                args,
            }) if args.first().and_then(Operand::as_value).is_some_and(
                |g| matches!(f.stmt(g), Some(Stmt { op: Op::Global(n), .. }) if &**n == ITERATE),
            ) =>
            {
                &args[1..]
            }
            _ => continue,
        };
        if args.len() == 2 && uses(f, *v) == 1 {
            return Some((*v, args.to_vec()));
        }
    }
    None
}

/// How many statement operands and terminators read `v`.
fn uses(f: &Function, v: Value) -> usize {
    let mut n = 0;
    for b in f.block_ids() {
        let data = f.block(b);
        for &s in &data.stmts {
            if let Some(stmt) = f.stmt(s) {
                n += stmt.args.iter().filter(|a| a.as_value() == Some(v)).count();
            }
        }
        n += data
            .term
            .operands()
            .iter()
            .filter(|a| a.as_value() == Some(v))
            .count();
    }
    n
}

/// The library functions of an iterable that take a struct with `iterate` methods as the
/// collection of its items (Julia iterates it; zy collects the items first, in order), by
/// their names in `Base`.
const TAKES_ITERABLE: &[&str] = &[
    "sum",
    "prod",
    "maximum",
    "minimum",
    "extrema",
    "count",
    "map",
    "foreach",
    "reduce",
    "foldl",
    "foldr",
    "mapreduce",
    "unique",
    "sort",
    "Set",
    "Iterators.cycle",
    "Iterators.partition",
    "Iterators.product",
    "product",
    "_iterated_items",
];

/// Lowering's helper for destructuring, `a, b = x` reading item `i` of `x` (Julia's
/// `indexed_iterate`).
const DESTRUCTURE: &str = "Base._destructure";

/// Lowering's helper for a slurping target, `a, b... = x` reading the items of `x` from `i`
/// on but the last `k` (Julia's `Base.rest`, `Base.split_rest`).
const DESTRUCTURE_REST: &str = "Base._destructure_rest";

/// Lowering's helper for a target after a slurping one: the item `j` places before the end.
const DESTRUCTURE_END: &str = "Base._destructure_end";

impl crate::calls::Cx<'_> {
    /// `name(args...)` where an argument is a struct of the program with `iterate` methods and
    /// no method of `name` of the program's takes it: `collect(c)`, `first(c)`, `first(c, n)`,
    /// `Iterators.take`, `Iterators.takewhile`, `any`, `all` and `in` by its `iterate` methods
    /// (asking for no item after the one that decides, as Julia's: `c` may be endless), `zip`
    /// over as many items as the shortest finite collection has, the generators and
    /// reductions of [`TAKES_ITERABLE`] over its items collected (`Iterators.cycle` of an
    /// endless one lazily). `None` for any other call.
    pub(crate) fn by_iteration(
        &mut self,
        b: &mut crate::plan::PlanBuilder,
        name: &zy_ir::Name,
        args: &[crate::value::Val],
    ) -> Option<Result<crate::value::Val, Fail>> {
        if &**name == DESTRUCTURE {
            return Some(self.destructure(b, args));
        }
        if &**name == DESTRUCTURE_REST || &**name == DESTRUCTURE_END {
            return Some(self.destructure_rest(b, name, args));
        }
        let at = args
            .iter()
            .position(|a| iterated_chain(&a.ty, self.program).is_some())?;
        let Type::Struct(s) = &args[at].ty else {
            return None;
        };
        let plain = iterated_struct(&args[at].ty, self.program).is_some();
        let own = plain
            && self.program.functions.get(name).is_some_and(|gf| {
                gf.methods.iter().any(|m| {
                matches!(m.sig.get(at), Some(Some(TypeExpr::Named { name: n, .. })) if *n == s.name)
            })
            });
        if own {
            return None;
        }
        let base = name.strip_prefix("Base.").unwrap_or(name);
        let helper = match (base, at, args.len()) {
            ("collect", 0, 1) => return Some(self.collect_sized(b, args[0].clone())),
            ("first", 0, 1) => "Base._first_iterated",
            // Julia's `first(c, n) = collect(Iterators.take(c, n))`.
            ("first", 0, 2) => {
                let take = self.call_named(b, &"Base.Iterators.take".into(), args);
                return Some(take.and_then(|t| self.collect_sized(b, t)));
            }
            ("any", 0, 1) | ("any", 1, 2) => "Base._any_iterated",
            ("all", 0, 1) | ("all", 1, 2) => "Base._all_iterated",
            ("in", 1, 2) => "Base._in_iterated",
            ("zip", ..) => return Some(self.zip_iterated(b, name, args)),
            _ if TAKES_ITERABLE.contains(&base) => {
                // An endless one has no end to collect: its `cycle` is lazy (`Iterators.Cycle`
                // is one of the [`LAZY`] iterators), the others never return in Julia.
                match self.endless(b, &args[at]) {
                    Ok(true) if base == "Iterators.cycle" => return None,
                    Ok(true) => {
                        return Some(Err(Fail::unsupported(format!(
                            "`{base}` of an endless iterator (a `{}`, whose `Base.IteratorSize` \
                             is `IsInfinite`): zy reads the items of one first; take a finite \
                             part with `Iterators.take(c, n)`",
                            args[at].ty
                        ))))
                    }
                    Ok(false) => {}
                    Err(e) => return Some(Err(e)),
                }
                let items = "Base._collect_iterated";
                let mut args = args.to_vec();
                args[at] = match self.call_named(b, &items.into(), &args[at..=at]) {
                    Ok(v) => v,
                    Err(e) => return Some(Err(e)),
                };
                return Some(self.call_named(b, name, &args));
            }
            _ => return None,
        };
        Some(self.call_named(b, &helper.into(), args))
    }

    /// Julia's `collect(c)` of a struct with `iterate` methods or a lazy iterator around one,
    /// by its `Base.IteratorSize` (`Base._collect_sized`, told `c`'s type for its errors).
    /// When the struct declares its element type (`Base.eltype(::Type{S})`) and every lazy
    /// iterator around it keeps it (Julia's `eltype` of theirs is their source's), the struct's
    /// type is passed too: Julia's result is a Vector of that type.
    fn collect_sized(
        &mut self,
        b: &mut crate::plan::PlanBuilder,
        c: crate::value::Val,
    ) -> Result<crate::value::Val, Fail> {
        let shown = crate::value::Val::lit(Const::Str(c.ty.to_string().into()));
        let mut args = vec![c.clone(), shown];
        if let Some(s) = eltype_declared(&c.ty, self.program) {
            args.push(crate::value::Val::lit(Const::Func(s.clone())));
        }
        self.call_named(b, &"Base._collect_sized".into(), &args)
    }

    /// `zip(args...)` with structs with `iterate` methods (or lazy iterators around them)
    /// among the collections: each over as many of its first items as the shortest finite
    /// collection has (Julia's `zip` stops there and asks an endless one for no more). When
    /// every collection is such a struct or endless, the first struct whose
    /// `Base.IteratorSize` is not `IsInfinite` is collected first and bounds the others: the
    /// same items as Julia's lockstep iteration of pure `iterate` methods. Only endless ones
    /// are refused by name (a loop runs its structs' items from vectors).
    fn zip_iterated(
        &mut self,
        b: &mut crate::plan::PlanBuilder,
        name: &zy_ir::Name,
        args: &[crate::value::Val],
    ) -> Result<crate::value::Val, Fail> {
        let mut args = args.to_vec();
        let mut iterated: Vec<bool> = args
            .iter()
            .map(|a| iterated_chain(&a.ty, self.program).is_some())
            .collect();
        let mut bound: Option<crate::value::Val> = None;
        for (a, &it) in args.iter().zip(&iterated) {
            if it || self.endless(b, a)? {
                continue;
            }
            let n = self.call_named(b, &"Base.length".into(), std::slice::from_ref(a))?;
            bound = Some(match bound {
                Some(m) => self.call_named(b, &"Base.min".into(), &[m, n])?,
                None => n,
            });
        }
        let bound = match bound {
            Some(n) => n,
            None => {
                let mut finite = None;
                for (i, a) in args.iter().enumerate() {
                    if iterated[i] && !self.endless(b, a)? {
                        finite = Some(i);
                        break;
                    }
                }
                let Some(i) = finite else {
                    let shown: Vec<String> = args.iter().map(|a| a.ty.to_string()).collect();
                    return Err(Fail::unsupported(format!(
                        "`zip` of endless iterators only ({}): zy runs a loop over a `zip` for \
                         as many items as its shortest finite collection has; zip one with a \
                         finite collection (`zip(c, 1:n)`) or `Iterators.take` of it",
                        shown.join(", ")
                    )));
                };
                let items = "Base._collect_iterated".into();
                args[i] = self.call_named(b, &items, &args[i..=i])?;
                iterated[i] = false;
                self.call_named(b, &"Base.length".into(), &args[i..=i])?
            }
        };
        for (a, &it) in args.iter_mut().zip(&iterated) {
            if it {
                let upto = [a.clone(), bound.clone()];
                *a = self.call_named(b, &"Base._items_upto".into(), &upto)?;
            }
        }
        self.call_named(b, name, &args)
    }

    /// Whether `x`'s `Base.IteratorSize` is `IsInfinite` (the prelude's `_iterator_size`,
    /// decided by inference from `x`'s type).
    fn endless(
        &mut self,
        b: &mut crate::plan::PlanBuilder,
        x: &crate::value::Val,
    ) -> Result<bool, Fail> {
        let size = self.call_named(b, &"Base._iterator_size".into(), std::slice::from_ref(x))?;
        Ok(matches!(&size.ty, Type::Struct(s) if &*s.name == "Base.IsInfinite"))
    }

    /// Item `i` of `x` for destructuring `a, b = x` (lowering's [`DESTRUCTURE`]): Julia's
    /// `indexed_iterate`, `x[i]` of a tuple or an array, and by `iterate` for a struct with
    /// `iterate` methods or a generator (a `BoundsError` when it ends before item `i`).
    fn destructure(
        &mut self,
        b: &mut crate::plan::PlanBuilder,
        args: &[crate::value::Val],
    ) -> Result<crate::value::Val, Fail> {
        let iterated = args.first().filter(|x| {
            iterated_chain(&x.ty, self.program).is_some()
                || matches!(&x.ty, Type::Struct(s) if &*s.name == "Base.Generator")
        });
        let Some(x) = iterated else {
            return self.call_named(b, &"getindex".into(), args);
        };
        // The type as Julia's `BoundsError` shows it (a generator's type is no value in zy).
        let shown = crate::value::Val::lit(Const::Str(x.ty.to_string().into()));
        let mut all = args.to_vec();
        all.push(shown);
        self.call_named(b, &"Base._nth_iterated".into(), &all)
    }

    /// Item `k` of destructuring `a, b = x` for `x` a union of one factorization's instances
    /// (`T, Z, vals = schur(A)`, real or complex values by the values): the field by name,
    /// before the union is split (which would lose the constant `k`); for a union of tuples
    /// its item `k`, read as `x[k]` is; for `x` a value or
    /// `nothing` (`itr = iterate(xs)` where the test for `nothing` does not narrow it), the
    /// value taken out first (`Base._destructurable`: Julia's `MethodError` of iterating
    /// `nothing`), then its item `k`. `None` for any other call.
    pub(crate) fn destructure_union(
        &mut self,
        b: &mut crate::plan::PlanBuilder,
        name: &zy_ir::Name,
        args: &[crate::value::Val],
    ) -> Option<Result<crate::value::Val, Fail>> {
        let [x, i] = args else { return None };
        if &**name != DESTRUCTURE {
            return None;
        }
        if let Type::Union(u) = &x.ty {
            // A union of tuples (`minmax(x, 2)`): its item `k` as `t[k]` reads it.
            if u.members.iter().all(|t| matches!(t, Type::Tuple(_))) {
                return Some(self.call_named(b, &"getindex".into(), args));
            }
            let something = u.members.iter().filter(|t| **t != Type::Nothing).count();
            if something == 1 && u.members.len() == 2 {
                let item = self
                    .call_named(b, &"Base._destructurable".into(), std::slice::from_ref(x))
                    .and_then(|v| self.call_named(b, name, &[v, i.clone()]));
                return Some(item);
            }
        }
        let field = crate::builtins::data::union_item_field(&x.ty, i.int()?)?;
        let field = crate::value::Val::lit(Const::Symbol(field));
        Some(self.call_named(b, &"getfield".into(), &[x.clone(), field]))
    }

    /// The items of `x` from `i` on but the last `k` for a slurping target `a, b... = x` or
    /// `a, b..., c = x` (lowering's [`DESTRUCTURE_REST`]), as Julia's `Base.rest` and
    /// `Base.split_rest`: of a tuple the tuple of them (empty when none is left), of an array a
    /// new Vector (`Base._rest_array`); and the item `j` places before the end for a target
    /// after it ([`DESTRUCTURE_END`]). Julia's rest of another iterator is a lazy
    /// `Iterators.Rest`, which zy does not have: refused by name.
    fn destructure_rest(
        &mut self,
        b: &mut crate::plan::PlanBuilder,
        name: &zy_ir::Name,
        args: &[crate::value::Val],
    ) -> Result<crate::value::Val, Fail> {
        let ints: Vec<i64> = args.iter().skip(1).filter_map(|a| a.int()).collect();
        let Some(x) = args.first().filter(|_| ints.len() + 1 == args.len()) else {
            return Err(Fail::unsupported("malformed slurping destructuring"));
        };
        let index = |j: i64| crate::value::Val::lit(Const::Int(j));
        match (&x.ty, &**name, ints.as_slice()) {
            (Type::Tuple(items), DESTRUCTURE_REST, &[from, left]) => {
                let mut rest = Vec::new();
                for j in from..=items.len() as i64 - left {
                    rest.push(self.call_named(b, &"getindex".into(), &[x.clone(), index(j)])?);
                }
                self.call_named(b, &"tuple".into(), &rest)
            }
            (Type::Tuple(items), _, &[back]) => {
                let j = items.len() as i64 - back;
                self.call_named(b, &"getindex".into(), &[x.clone(), index(j)])
            }
            (Type::Array(..), DESTRUCTURE_REST, _) => {
                self.call_named(b, &"Base._rest_array".into(), args)
            }
            (Type::Array(..), _, _) => self.call_named(b, &"Base._end_item".into(), args),
            (t, ..) => Err(Fail::unsupported(format!(
                "slurping `b...` from a {t} in destructuring (Julia's is a lazy \
                 `Iterators.Rest`); zy slurps tuples and arrays: `collect` it first"
            ))),
        }
    }
}
