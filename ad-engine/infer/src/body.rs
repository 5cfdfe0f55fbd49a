//! Inference of one method body for one instance: a dataflow fixpoint over the untyped CFG
//! (types of values, reachable blocks, φ joins), then emission of the typed function with the
//! resolved operations and the conversions that joins need.

use std::sync::Arc;

use zy_ir::{
    Block, BlockCall, Const, Function, Instance, Name, Op, Operand, Prim, Program, Span, Stmt,
    Terminator, Type, Value,
};

use crate::calls::Cx;
use crate::error::{Fail, TypeError};
use crate::join::{conversion, join};
use crate::known::Known;
use crate::plan::{emit_plan, Arg, Plan, PlanBuilder};
use crate::value::Val;

/// Lowering's empty box of a variable a closure captures before it is assigned, and the first
/// assignment that fills it.
const EMPTY_BOX: &str = "Base._box";
const BOX_INIT: &str = "Base._box_init!";
const BOX_SET: &str = "Base._box_set!";

/// Passes over the CFG before giving up (joins only climb a short lattice; types nest at most
/// [`crate::MAX_TYPE_DEPTH`] deep).
const MAX_PASSES: usize = 1000;

/// Type `body` as the specialisation `inst`.
pub(crate) fn infer_body(
    cx: &mut Cx,
    inst: &Arc<Instance>,
    body: &Function,
) -> (Function, Vec<TypeError>) {
    if let Some(t) = inst
        .args
        .iter()
        .find(|t| matches!(t, Type::Any | Type::Bottom | Type::Stack(_)))
    {
        let fail = Fail::unsupported(format!("an argument of type {t}"));
        return failed(inst, &body.name, body.span, fail);
    }
    let problems = if body.blocks.is_empty() {
        vec!["no blocks".into()]
    } else {
        zy_ir::verify(body)
    };
    if let Some(p) = problems.first() {
        let fail = Fail::unsupported(format!("malformed IR for `{}`: {p}", body.name));
        return failed(inst, &body.name, body.span, fail);
    }
    if body.args().len() != inst.args.len() {
        let fail = Fail::method(format!(
            "{} takes {} arguments, called with {}",
            body.name,
            body.args().len(),
            inst.args.len()
        ));
        return failed(inst, &body.name, body.span, fail);
    }
    let mut typer = Typer::new(body, inst, cx.program);
    if !typer.fixpoint(cx) {
        let fail = Fail::unsupported("type inference did not converge");
        return failed(inst, &body.name, body.span, fail);
    }
    // A loop over a struct with `Base.iterate` methods: typed again, iterating by them.
    match crate::iterate::lower_iterate(body, &typer.ty, cx.program) {
        Some(Ok(lowered)) => return infer_body(cx, inst, &lowered),
        Some(Err((fail, at))) => return failed(inst, &body.name, at, fail),
        None => {}
    }
    // A loop over a tuple whose elements differ in type: typed again with one copy per element.
    if let Some(unrolled) = crate::unroll::unroll(body, &typer.ty, &typer.reach) {
        return infer_body(cx, inst, &unrolled);
    }
    // A loop carrying a union of numbers only from its entry: typed again, its first
    // iteration peeled.
    if let Some(peeled) = crate::peel::peel(body, &typer.ty, &typer.reach) {
        return infer_body(cx, inst, &peeled);
    }
    typer.emit(cx, inst)
}

/// A function whose body only throws, with the error that explains why.
pub(crate) fn failed(
    inst: &Arc<Instance>,
    name: &Name,
    span: Span,
    fail: Fail,
) -> (Function, Vec<TypeError>) {
    let mut out = Function::new(name.clone(), span);
    out.instance = Some(inst.clone());
    out.ret = Type::Bottom;
    for t in inst.args.iter() {
        let t = if *t == Type::Any {
            Type::Bottom
        } else {
            t.clone()
        };
        out.add_param(Block::ENTRY, t, span, None);
    }
    throw(&mut out, Block::ENTRY, &fail.message, span);
    (out, vec![fail.at(span)])
}

/// End `block` with `error(msg)`; a message naming Julia's exception (`MethodError: ...`)
/// raises that exception, so that a run reaching a call inference found no method for
/// raises the `MethodError` Julia raises there. A refusal (`unsupported: ...`) stops the run
/// where it is reached, as no `catch` can take it.
pub(crate) fn throw(out: &mut Function, block: Block, msg: &str, span: Span) {
    let named = msg.split_once(": ").filter(|(name, _)| {
        let exception = (name.ends_with("Error") || name.ends_with("Exception"))
            && name.chars().all(|c| c.is_ascii_alphanumeric());
        exception || *name == UNSUPPORTED
    });
    let args = match named {
        Some((name, rest)) => vec![
            Operand::Const(Const::Symbol(name.into())),
            Operand::Const(Const::Str(rest.into())),
        ],
        None => vec![Operand::Const(Const::Str(msg.into()))],
    };
    out.push_stmt(
        block,
        Stmt {
            op: Op::Prim(Prim::Error),
            args,
        },
        Type::Bottom,
        span,
    );
    out.set_term(block, Terminator::Unreachable, span);
}

/// The exception name of a refusal raised at run time: the engines' `unsupported: ...`.
pub(crate) const UNSUPPORTED: &str = "unsupported";

/// How many calls deep [`Typer::stored_by_callee`] follows a container of `Any` passed on.
const MAX_STORE_DEPTH: usize = 4;

/// Does the call `name(ins...)` make a container of `Any` (`[]`, `Any[...]`, `Vector{Any}()`,
/// `Ref{Any}(x)`) or of `Function` (`Function[...]`), which holds what the function stores into
/// it?
fn makes_open_container(name: &str, ins: &[Val]) -> bool {
    let any = |v: &Val| matches!(&v.ty, Type::Function(t) if &**t == "Any");
    match (name, ins) {
        ("vect", []) => true,
        // A literal whose type its values decide may be a `Vector{Any}`.
        ("vect", args) => args.iter().any(|a| crate::open::runtime_element(&a.ty)),
        // `Function[...]`: it holds the functions stored into it too.
        ("Base.getindex", [t, ..]) if matches!(&t.ty, Type::Function(f) if &**f == "Function") => {
            true
        }
        ("Base.getindex", [t, ..]) => any(t),
        // `Array{Any}(missing, n)`: a vector of `Any` holding `missing`s to begin with.
        ("#typed", [r, params, x, _]) if matches!(&r.ty, Type::Function(t) if matches!(&**t, "Array" | "Vector")) => {
            matches!(&params.ty, Type::Tuple(ps) if matches!(&ps[..], [Type::Function(t)] if &**t == "Any"))
                && (x.ty.is_missing() || x.ty == Type::Nothing)
        }
        ("#typed", [r, params, ..]) => {
            matches!(&r.ty, Type::Function(t) if &**t == "Ref")
                && matches!(&params.ty, Type::Tuple(ps) if matches!(&ps[..], [Type::Function(t)] if &**t == "Any"))
        }
        _ => false,
    }
}

/// Is `t` an array of `Any` (`[]`)?
fn holds_any(t: &Type) -> bool {
    matches!(t, Type::Array(e, _) if matches!(&**e, Type::Union(u) if &*u.name == "Any"))
}

/// The array type `t` of a container of `Any` holding `stored` too: `None` where it holds
/// them already, or is no such array.
fn widened(t: &Type, stored: Vec<Type>) -> Option<Type> {
    let (Type::Array(elem, n), Type::Union(u)) = (t, t.elem()?) else {
        return None;
    };
    if &*u.name != "Any" {
        return None;
    }
    let mut held = u.members.clone();
    held.extend(stored);
    let wider = crate::open::open_union("Any", &held).filter(|w| w != &**elem)?;
    Some(Type::Array(Arc::new(wider), *n))
}

/// Is `name` one of the program's own functions (not the library's)?
fn is_own_function(cx: &Cx, name: &str) -> bool {
    cx.program.functions.contains_key(name) && !crate::calls::is_library(name)
}

/// `T[]` of a parametric library struct named without its parameters (`Task[]`): a vector of
/// the one instance type the function stores into it.
fn makes_unbound_library_vector(cx: &Cx, name: &str, ins: &[Val]) -> bool {
    match (name, ins) {
        ("Base.getindex", [t]) => {
            matches!(&t.ty, Type::Function(t) if crate::builtins::is_unbound_library(cx, t))
        }
        _ => false,
    }
}

/// The table of `Any` keys or values the call `name(ins...)` makes: `Dict()`, `Dict{K, Any}()`
/// and `Dict{Any, V}()` (lowered `_typed_dict((K, V))`), `Set()` and `Set{Any}()` (lowered
/// `_typed_set(Any)`), whose keys and values are what the function stores into it.
fn open_table(name: &str, ins: &[Val]) -> Option<crate::calls::OpenTable> {
    use crate::calls::OpenTable;
    let any: Name = "Any".into();
    let is_any = |t: &Name| **t == *"Any";
    match (name, ins) {
        ("Base.Dict", []) => Some(OpenTable::Dict(any.clone(), any)),
        ("Base.Set", []) => Some(OpenTable::Set),
        ("Base._typed_set", [t]) => {
            matches!(&t.ty, Type::Function(t) if is_any(t)).then_some(OpenTable::Set)
        }
        ("Base._typed_dict", [kv]) => match &kv.ty {
            Type::Tuple(ts) => match &ts[..] {
                [Type::Function(k), Type::Function(v)] if is_any(k) || is_any(v) => {
                    Some(OpenTable::Dict(k.clone(), v.clone()))
                }
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// What of a container a store puts there: the elements of a vector (or `Ref`), the keys of a
/// `Dict` or `Set`, the values of a `Dict`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(crate) enum Part {
    Elements,
    Keys,
    Values,
}

/// The key (or value, by `part`) of a `Pair` of type `t`; `None` for another type.
fn pair_half(t: &Type, part: Part) -> Option<Type> {
    let Type::Struct(s) = t else {
        return None;
    };
    let at = usize::from(part == Part::Values);
    (&*s.name == "Base.Pair").then(|| s.fields.get(at).map(|f| f.1.clone()))?
}

fn is_undef(stmt: &Stmt) -> bool {
    matches!(&stmt.op, Op::Call(n) if &**n == "undef")
}

/// `isdefined_local(x)` (`@isdefined(x)`): false, not an error, of a local never assigned here.
fn is_isdefined(stmt: &Stmt) -> bool {
    matches!(&stmt.op, Op::Call(n) if &**n == "isdefined_local")
}

/// The conflict of two values of one struct whose fields hold values of different types on two
/// paths (`x > 0 ? P(x) : P(1)` of a field `x::Real`): the field that differs named.
fn struct_conflict(what: &str, a: &zy_ir::StructType, b: &zy_ir::StructType) -> String {
    let differs = a.fields.iter().zip(&b.fields).find(|(x, y)| x.1 != y.1);
    let Some(((field, x), (_, y))) = differs else {
        return format!(
            "type conflict: {what} is a {} of two types on two paths",
            a.name
        );
    };
    let name = &a.name;
    format!(
        "type conflict: {what} is a {name} whose field `{field}` is {x} on one path and {y} on \
         another (zy types a struct by what its fields hold, where Julia's field of an abstract \
         type holds either); give the field values of one type where the {name} is built"
    )
}

/// Why a statement's operands cannot be typed.
enum Blocked {
    /// An operand's type is in error (already reported where it arose).
    Poisoned,
    /// An operand is a local that is never assigned on any path here.
    Undefined(Operand),
}

struct Typer<'a> {
    body: &'a Function,
    /// The program, whose abstract types join their structs on different paths.
    program: &'a Program,
    /// Type of every untyped value (`Any`: in error; `Bottom`: no value yet / never).
    ty: Vec<Type>,
    reach: Vec<bool>,
    /// The block runs to its terminator and (for a branch) its condition is a Bool.
    flows: Vec<bool>,
    /// Values that are a Bool known from the types alone (`x === nothing`, `isnothing(x)`): a
    /// branch on one takes only its way, as Julia's inference prunes it, so the other way is
    /// not typed (`w === nothing ? 2x : w * x` with `w = nothing`). A φ is known where every
    /// way into it that runs passes the same known Bool (`s === :a || s === :b` of a symbol).
    known: Vec<Option<bool>>,
    /// Ints and index lists known where the body is compiled ([`crate::known`]).
    consts: Vec<Option<Known>>,
    /// How many times each value is read.
    uses: Vec<usize>,
    order: Vec<Block>,
    /// Each block's predecessors (a block jumping twice into one listed twice).
    preds: Vec<Vec<Block>>,
}

impl<'a> Typer<'a> {
    fn new(body: &'a Function, inst: &Instance, program: &'a Program) -> Typer<'a> {
        let mut ty = vec![Type::Bottom; body.values.len()];
        for (&a, t) in body.args().iter().zip(inst.args.iter()) {
            ty[a.index()] = t.clone();
        }
        let mut reach = vec![false; body.blocks.len()];
        reach[0] = true;
        Typer {
            body,
            program,
            ty,
            reach,
            flows: vec![false; body.blocks.len()],
            known: vec![None; body.values.len()],
            consts: vec![None; body.values.len()],
            uses: crate::known::use_counts(body),
            order: body.reverse_postorder(),
            preds: body.predecessors(),
        }
    }

    /// The join of the types `a` and `b` on two paths: [`join`], or the program's structs below
    /// one of its abstract types (`c ? Square(x) : Circle(x)`) as a value of it.
    fn join(&self, a: &Type, b: &Type) -> Option<Type> {
        join(a, b).or_else(|| crate::dispatch::abstract_join(self.program, a, b))
    }

    /// The accumulated join at a φ: `Any` marks a conflict (reported once, at emission).
    fn accumulate(&self, old: &Type, new: &Type) -> Type {
        if *old == Type::Any || *new == Type::Any {
            return Type::Any;
        }
        self.join(old, new).unwrap_or(Type::Any)
    }

    fn operand_ty(&self, op: &Operand) -> Type {
        match op {
            Operand::Value(v) => self.ty.get(v.index()).cloned().unwrap_or(Type::Any),
            Operand::Const(c) => c.ty(),
        }
    }

    /// The types of the operands `args` typed so far.
    fn operand_types(&self, args: &[Operand]) -> Vec<Type> {
        args.iter().map(|a| self.operand_ty(a)).collect()
    }

    fn inputs(&self, args: &[Operand]) -> Result<Vec<Val>, Blocked> {
        args.iter()
            .enumerate()
            .map(|(i, a)| match a {
                Operand::Value(v) => match self.operand_ty(a) {
                    Type::Any => Err(Blocked::Poisoned),
                    Type::Bottom => Err(Blocked::Undefined(a.clone())),
                    t => {
                        let mut val = Val::of(Arg::Input(i), t);
                        if let Some(Some(k)) = self.consts.get(v.index()) {
                            k.annotate(&mut val);
                        }
                        Ok(val)
                    }
                },
                Operand::Const(c) => Ok(Val {
                    arg: Arg::Input(i),
                    ty: c.ty(),
                    konst: Some(c.clone()),
                    elems: None,
                }),
            })
            .collect()
    }

    /// The typed replacement of statement `v`: an empty box (`Base._box(:x)`) holds what the
    /// function stores into it, and so does a container of `Any` (`[]`, `Any[]`,
    /// `Vector{Any}()`, `Ref{Any}(x)`).
    fn resolve(&self, cx: &mut Cx, v: Value, stmt: &Stmt, ins: &[Val]) -> Result<Plan, Fail> {
        match (&stmt.op, ins) {
            (Op::Call(n), [name]) if &**n == EMPTY_BOX => {
                Ok(crate::builtins::empty_box(name, self.box_content(v)?))
            }
            (Op::Call(n), _)
                if makes_open_container(n, ins) || makes_unbound_library_vector(cx, n, ins) =>
            {
                cx.any_held = self.stored_into(cx, v, Part::Elements, None);
                let plan = cx.resolve(&stmt.op, ins);
                cx.any_held.clear();
                plan
            }
            // A table stored into by the function: its keys and values of `Any` hold what is
            // stored (as it is made where nothing is).
            (Op::Call(n), _) if open_table(n, ins).is_some() => {
                let keys = self.stored_into(cx, v, Part::Keys, None);
                let values = self.stored_into(cx, v, Part::Values, None);
                match open_table(n, ins) {
                    Some(table) if !keys.is_empty() || !values.is_empty() => {
                        cx.open_table(&table, keys, values)
                    }
                    _ => cx.resolve(&stmt.op, ins),
                }
            }
            (Op::Call(n), _) if is_own_function(cx, n) => {
                let plan = cx.resolve(&stmt.op, ins)?;
                Ok(self.filled_here(cx, v, plan))
            }
            _ => cx.resolve(&stmt.op, ins),
        }
    }

    /// The plan of the call `v` of one of the program's functions, where it returns a container
    /// of `Any` that this body stores into or passes to a function that does (`school =
    /// new_school()` of `new_school() = []`, then `add!(students, school)`): Julia's
    /// `Vector{Any}` holds whatever is stored into it, so the value returned is taken as a
    /// container of what its maker saw stored and what is stored here (the same object: only
    /// its type widens).
    fn filled_here(&self, cx: &mut Cx, v: Value, plan: Plan) -> Plan {
        let ty = match &plan.ty {
            t if holds_any(t) => widened(t, self.stored_into(cx, v, Part::Elements, None)),
            // A struct whose untyped field holds one (`School() = School([])`, then
            // `add!(s, x) = push!(s.students, x)`): the struct with that field widened.
            Type::Struct(s) => {
                let mut fields = s.fields.clone();
                for (name, t) in &mut fields {
                    if holds_any(t) {
                        let stored = self.stored_into(cx, v, Part::Elements, Some(&**name));
                        *t = widened(t, stored).unwrap_or_else(|| t.clone());
                    }
                }
                (fields != s.fields).then(|| {
                    Type::Struct(Arc::new(zy_ir::StructType {
                        fields,
                        ..(**s).clone()
                    }))
                })
            }
            _ => None,
        };
        let Some(ty) = ty else {
            return plan;
        };
        let mut b = PlanBuilder::default();
        for s in plan.steps {
            b.push(s.op, s.args, s.ty);
        }
        let widened = b.prim(Prim::UnionConvert, vec![plan.result], ty.clone());
        b.finish(widened, ty)
    }

    /// The types of the values the body stores into the container `c` as its `part`
    /// (elements: `push!(c, x...)`, `pushfirst!(c, x...)`, `insert!(c, i, x)`, `c[i...] = x`,
    /// `c[] = x`, the elements of `append!(c, xs)` and `prepend!(c, xs)`; keys: `c[k] = v`,
    /// `get!(c, k, v)`, `push!(c, k => v)` and a set's `push!(c, k)`; values: `v` of those),
    /// through the φs that only pass it on, and those the program's functions it is passed to
    /// store into it ([`Typer::stored_by_callee`]): those typed so far. With a `field`, what
    /// it stores so into the container that field of `c` holds (`push!(s.students, x)`).
    fn stored_into(&self, cx: &mut Cx, c: Value, part: Part, field: Option<&str>) -> Vec<Type> {
        let containers = self.passed_on(c);
        let mut held = Vec::new();
        for i in 0..self.body.values.len() {
            let Some(stmt) = self.body.stmt(Value(i as u32)) else {
                continue;
            };
            let Op::Call(n) = &stmt.op else {
                continue;
            };
            let passed = |a: &Operand| a.as_value().is_some_and(|a| containers.contains(&a));
            let args = &stmt.args;
            let stored = match (&**n, part) {
                ("getfield" | "Base.getproperty", _) if field.is_some() => match args.as_slice() {
                    [x, Operand::Const(Const::Symbol(f))] if passed(x) && Some(&**f) == field => {
                        self.stored_into(cx, Value(i as u32), part, None)
                    }
                    _ => Vec::new(),
                },
                _ if field.is_some() => Vec::new(),
                _ if !args.first().is_some_and(passed) => Vec::new(),
                ("Base.push!" | "Base.pushfirst!", Part::Elements) => {
                    self.operand_types(&args[1..])
                }
                // A `Dict`'s pairs, a `Set`'s keys.
                ("Base.push!", Part::Keys | Part::Values) => self
                    .operand_types(&args[1..])
                    .into_iter()
                    .map(|t| match (pair_half(&t, part), part) {
                        (Some(half), _) => half,
                        (None, Part::Keys) => t,
                        (None, _) => Type::Bottom,
                    })
                    .collect(),
                ("Base.setindex!", Part::Keys) if args.len() == 3 => self.operand_types(&args[2..]),
                ("Base.setindex!", Part::Values) if args.len() == 3 => {
                    self.operand_types(&args[1..2])
                }
                ("Base.get!", Part::Keys) if args.len() == 3 => self.operand_types(&args[1..2]),
                ("Base.get!", Part::Values) if args.len() == 3 => self.operand_types(&args[2..]),
                (_, Part::Keys | Part::Values) => Vec::new(),
                // The elements of the arrays and tuples appended.
                ("Base.append!" | "Base.prepend!", _) => self
                    .operand_types(&stmt.args[1..])
                    .into_iter()
                    .flat_map(|t| match t {
                        Type::Array(e, _) => vec![(*e).clone()],
                        Type::Tuple(ts) => ts.to_vec(),
                        _ => Vec::new(),
                    })
                    .collect(),
                ("Base.setindex!" | "Base.insert!", _) if stmt.args.len() > 1 => {
                    let at = if &**n == "Base.insert!" { 2 } else { 1 };
                    self.operand_types(stmt.args.get(at..at + 1).unwrap_or_default())
                }
                _ => Vec::new(),
            };
            let by_callee = stmt
                .args
                .iter()
                .position(passed)
                .filter(|_| stored.is_empty());
            let stored = match by_callee {
                Some(at) => self.stored_by_callee(cx, n, &stmt.args, at, part, field),
                None => stored,
            };
            for t in stored {
                if !matches!(t, Type::Any | Type::Bottom) && !held.contains(&t) {
                    held.push(t);
                }
            }
        }
        held
    }

    /// The types the program's function `name` called on `args` stores into its argument `at`,
    /// a container of `Any` (`log!(h, (k, loss))` of `h = []`, where `log!(h, e) = push!(h,
    /// e)`): the method dispatch chooses for the argument types typed so far, typed for them,
    /// as Julia's `push!` stores any value at run time; calls nested [`MAX_STORE_DEPTH`] deep
    /// at most (a recursion stores what its first calls store).
    fn stored_by_callee(
        &self,
        cx: &mut Cx,
        name: &Name,
        args: &[Operand],
        at: usize,
        part: Part,
        field: Option<&str>,
    ) -> Vec<Type> {
        let program = cx.program;
        let types = self.operand_types(args);
        let Some(gf) = program.functions.get(name) else {
            return Vec::new();
        };
        if crate::calls::is_library(name)
            || types.iter().any(|t| matches!(t, Type::Any | Type::Bottom))
        {
            return Vec::new();
        }
        let Ok(method) = crate::dispatch::select(cx.signatures, program, gf, &types) else {
            return Vec::new();
        };
        // (A library method not read yet is a stub without blocks.)
        let Some(m) = gf
            .methods
            .get(method as usize)
            .filter(|m| m.vararg().is_none() && !m.body.blocks.is_empty())
        else {
            return Vec::new();
        };
        let inst = Arc::new(Instance {
            name: name.clone(),
            method,
            args: types.into(),
        });
        let key = (inst.clone(), at, part, field.map(Name::from));
        if let Some(held) = cx.stores.get(&key) {
            return held.clone();
        }
        if cx.stores_depth >= MAX_STORE_DEPTH {
            return Vec::new();
        }
        cx.stores.insert(key.clone(), Vec::new());
        let vars = crate::dispatch::type_vars(program, m, &inst.args);
        let type_vars = std::mem::replace(&mut cx.type_vars, vars);
        let callees = std::mem::take(&mut cx.callees);
        cx.stores_depth += 1;
        let mut typer = Typer::new(&m.body, &inst, program);
        let held = match (typer.fixpoint(cx), m.body.args().get(at)) {
            (true, Some(&param)) => typer.stored_into(cx, param, part, field),
            _ => Vec::new(),
        };
        cx.stores_depth -= 1;
        cx.callees = callees;
        cx.type_vars = type_vars;
        cx.stores.insert(key, held.clone());
        held
    }

    /// `b` and the block parameters every jump into passes `b` (or one of these) as, and the
    /// values a destructuring takes it out of a tuple as (`a, s = n, Set()`): the values that
    /// hold what `b` holds.
    fn passed_on(&self, b: Value) -> Vec<Value> {
        let mut boxes = vec![b];
        loop {
            let mut grew = false;
            for v in self.destructured(&boxes) {
                if !boxes.contains(&v) {
                    boxes.push(v);
                    grew = true;
                }
            }
            for blk in self.body.block_ids() {
                for call in self.body.block(blk).term.calls() {
                    let params = &self.body.block(call.block).params;
                    for (a, &p) in call.args.iter().zip(params) {
                        let passes = a.as_value().is_some_and(|a| boxes.contains(&a));
                        if passes && !boxes.contains(&p) && self.only_boxes(call.block, p, &boxes) {
                            boxes.push(p);
                            grew = true;
                        }
                    }
                }
            }
            if !grew {
                break;
            }
        }
        boxes
    }

    /// The values `_destructure(t, i)` that take one of `boxes` out of the tuple `t` it was
    /// put in at `i`.
    fn destructured(&self, boxes: &[Value]) -> Vec<Value> {
        let stmt = |v: &Operand| v.as_value().and_then(|v| self.body.stmt(v));
        let mut out = Vec::new();
        for i in 0..self.body.values.len() {
            let Some(Stmt {
                op: Op::Call(n),
                args,
            }) = self.body.stmt(Value(i as u32))
            else {
                continue;
            };
            let [t, Operand::Const(Const::Int(at))] = args.as_slice() else {
                continue;
            };
            let Some(Stmt {
                op: Op::Call(tuple),
                args: elems,
            }) = stmt(t)
            else {
                continue;
            };
            let taken = usize::try_from(*at - 1).ok().and_then(|k| elems.get(k));
            let holds = taken
                .and_then(Operand::as_value)
                .is_some_and(|e| boxes.contains(&e));
            if &**n == "Base._destructure" && &**tuple == "tuple" && holds {
                out.push(Value(i as u32));
            }
        }
        out
    }

    /// The join of the types of the values stored into the box `b` (through the φs that
    /// only pass it on): `Union{}` while none is typed.
    fn box_content(&self, b: Value) -> Result<Type, Fail> {
        let boxes = self.passed_on(b);
        let mut content = Type::Bottom;
        for i in 0..self.body.values.len() {
            let Some(stmt) = self.body.stmt(Value(i as u32)) else {
                continue;
            };
            let stores = matches!(&stmt.op, Op::Call(n) if [BOX_SET, BOX_INIT].contains(&&**n));
            let [Operand::Value(target), x] = stmt.args.as_slice() else {
                continue;
            };
            if !stores || !boxes.contains(target) {
                continue;
            }
            let t = self.operand_ty(x);
            content = match join(&content, &t) {
                Some(j) if t != Type::Any => j,
                _ => {
                    let name = self.body.value(b).name.clone().unwrap_or_default();
                    return Err(Fail::unsupported(format!(
                        "a variable a closure captures before it is assigned (`{name}`) \
                         assigned values of types {content} and {t}"
                    )));
                }
            };
        }
        Ok(content)
    }

    /// Does every jump into `blk` pass one of `boxes` as its parameter `p`?
    fn only_boxes(&self, blk: Block, p: Value, boxes: &[Value]) -> bool {
        let Some(i) = self.body.block(blk).params.iter().position(|&q| q == p) else {
            return false;
        };
        self.body.block_ids().all(|b| {
            self.body.block(b).term.calls().iter().all(|c| {
                c.block != blk
                    || c.args
                        .get(i)
                        .and_then(|a| a.as_value())
                        .is_some_and(|a| boxes.contains(&a) || a == p)
            })
        })
    }

    /// Iterate to a fixpoint; `false` if it does not converge.
    fn fixpoint(&mut self, cx: &mut Cx) -> bool {
        for _ in 0..MAX_PASSES {
            if !self.pass(cx) {
                return true;
            }
        }
        false
    }

    /// One pass in reverse post-order; returns whether anything changed.
    fn pass(&mut self, cx: &mut Cx) -> bool {
        let mut changed = false;
        for i in 0..self.order.len() {
            let blk = self.order[i];
            if !self.reach[blk.index()] {
                continue;
            }
            let data = self.body.block(blk);
            for (i, &p) in data.params.iter().enumerate() {
                let known = self.incoming_known(blk, i);
                if self.known[p.index()] != known {
                    self.known[p.index()] = known;
                    changed = true;
                }
            }
            let mut flows = true;
            for &v in &data.stmts {
                let Some(stmt) = self.body.stmt(v) else {
                    continue;
                };
                let (t, known, konst) = match self.inputs(&stmt.args) {
                    Err(Blocked::Poisoned) => (Type::Any, None, None),
                    Err(Blocked::Undefined(_)) if is_isdefined(stmt) => {
                        (Type::Bool, Some(false), None)
                    }
                    Err(Blocked::Undefined(_)) => (Type::Bottom, None, None),
                    Ok(ins) => match self.resolve(cx, v, stmt, &ins) {
                        Ok(p) => {
                            let known = match (&p.result, p.steps.is_empty()) {
                                (Arg::Const(Const::Bool(b)), true) => Some(*b),
                                _ => self.negated(stmt),
                            };
                            let only_use = self.uses[v.index()] == 1;
                            let konst = crate::known::known(stmt, &ins, &p, only_use, &self.consts);
                            (p.ty, known, konst)
                        }
                        Err(_) => (Type::Any, None, None),
                    },
                };
                if self.known[v.index()] != known {
                    self.known[v.index()] = known;
                    changed = true;
                }
                if self.consts[v.index()] != konst {
                    self.consts[v.index()] = konst;
                    changed = true;
                }
                if self.ty[v.index()] != t {
                    self.ty[v.index()] = t.clone();
                    changed = true;
                }
                if t == Type::Any || (t == Type::Bottom && !is_undef(stmt)) {
                    flows = false;
                    break;
                }
            }
            if flows {
                if let Terminator::Branch { cond, .. } = &data.term {
                    let ct = self.operand_ty(cond);
                    flows = ct == Type::Bool || may_be_missing_bool(&ct);
                }
            }
            self.flows[blk.index()] = flows;
            if !flows {
                continue;
            }
            for call in self.taken(&data.term) {
                changed |= self.flow(call);
            }
        }
        changed
    }

    /// `!x` of a Bool known from the types: `x !== nothing`, lowered `!(x === nothing)` (a
    /// `while l !== nothing` loop over a list is not entered when `l` is `nothing`).
    fn negated(&self, stmt: &Stmt) -> Option<bool> {
        match (&stmt.op, stmt.args.as_slice()) {
            (Op::Call(n), [Operand::Value(x)]) if &**n == "Base.!" => {
                self.known.get(x.index()).copied().flatten().map(|b| !b)
            }
            _ => None,
        }
    }

    /// The way a branch on a known Bool takes, if its condition is one.
    fn known_way<'t>(&self, term: &'t Terminator) -> Option<&'t BlockCall> {
        match term {
            Terminator::Branch {
                cond: Operand::Value(v),
                then_to,
                else_to,
            } => {
                self.known
                    .get(v.index())
                    .copied()
                    .flatten()
                    .map(|b| if b { then_to } else { else_to })
            }
            _ => None,
        }
    }

    /// The successors control can reach from `term`.
    fn taken<'t>(&self, term: &'t Terminator) -> Vec<&'t BlockCall> {
        match self.known_way(term) {
            Some(call) => vec![call],
            None => term.calls(),
        }
    }

    fn flow(&mut self, call: &BlockCall) -> bool {
        let Some(target) = self.body.blocks.get(call.block.index()) else {
            return false;
        };
        let mut changed = !self.reach[call.block.index()];
        self.reach[call.block.index()] = true;
        for (&p, a) in target.params.iter().zip(&call.args) {
            let new = self.accumulate(&self.ty[p.index()], &self.operand_ty(a));
            if new != self.ty[p.index()] {
                self.ty[p.index()] = new;
                changed = true;
            }
        }
        changed
    }

    /// The Bool every way that runs into `blk` passes as its parameter `i`, if one is known
    /// there and they agree.
    fn incoming_known(&self, blk: Block, i: usize) -> Option<bool> {
        let mut known = None;
        let preds = self.preds.get(blk.index())?;
        for (j, &b) in preds.iter().enumerate() {
            let again = j > 0 && preds[j - 1] == b;
            if again || !(self.reach[b.index()] && self.flows[b.index()]) {
                continue;
            }
            for call in self.taken(&self.body.block(b).term) {
                if call.block != blk {
                    continue;
                }
                let k = match call.args.get(i)? {
                    Operand::Const(Const::Bool(k)) => *k,
                    Operand::Value(v) => self.known.get(v.index()).copied().flatten()?,
                    Operand::Const(_) => return None,
                };
                if known.is_some_and(|j| j != k) {
                    return None;
                }
                known = Some(k);
            }
        }
        known
    }

    /// The types flowing into parameter `i` of `blk` from the blocks that reach it.
    fn incoming(&self, blk: Block, i: usize) -> Vec<Type> {
        let mut out = Vec::new();
        for b in self.body.block_ids() {
            if !(self.reach[b.index()] && self.flows[b.index()]) {
                continue;
            }
            for call in self.taken(&self.body.block(b).term) {
                if call.block == blk {
                    if let Some(a) = call.args.get(i) {
                        out.push(self.operand_ty(a));
                    }
                }
            }
        }
        out
    }

    /// Build the typed function.
    fn emit(&self, cx: &mut Cx, inst: &Arc<Instance>) -> (Function, Vec<TypeError>) {
        let body = self.body;
        let mut errors = Vec::new();
        cx.callees.clear();
        let mut out = Function::new(body.name.clone(), body.span);
        out.arg_names = body.arg_names.clone();
        out.instance = Some(inst.clone());
        let mut bmap: Vec<Option<Block>> = vec![None; body.blocks.len()];
        for b in body.block_ids().filter(|b| self.reach[b.index()]) {
            bmap[b.index()] = Some(if b == Block::ENTRY {
                Block::ENTRY
            } else {
                out.add_block()
            });
        }
        let mut vmap: Vec<Option<Operand>> = vec![None; body.values.len()];
        // Parameters (arguments and φs), reporting conflicting joins.
        for b in body.block_ids() {
            let Some(nb) = bmap[b.index()] else { continue };
            for (i, &p) in body.block(b).params.iter().enumerate() {
                let d = body.value(p);
                let t = match &self.ty[p.index()] {
                    Type::Any => {
                        if let Some(e) = self.conflict(b, i, d.name.as_deref(), d.span) {
                            errors.push(e);
                        }
                        Type::Bottom
                    }
                    t => t.clone(),
                };
                let nv = out.add_param(nb, t, d.span, d.name.clone());
                vmap[p.index()] = Some(Operand::Value(nv));
            }
        }
        // Statements, in an order where definitions come before uses.
        let mut ended = vec![false; body.blocks.len()];
        for &b in &self.order {
            let Some(nb) = bmap[b.index()] else { continue };
            for &v in &body.block(b).stmts {
                let Some(stmt) = body.stmt(v) else { continue };
                let d = body.value(v);
                let Some(ops) = map_all(&vmap, &stmt.args) else {
                    throw(
                        &mut out,
                        nb,
                        "malformed IR: value used before its definition",
                        d.span,
                    );
                    ended[b.index()] = true;
                    break;
                };
                let plan = match self.inputs(&stmt.args) {
                    Err(Blocked::Poisoned) => Err(None),
                    Err(Blocked::Undefined(_)) if is_isdefined(stmt) => {
                        Ok(PlanBuilder::default()
                            .finish(Arg::Const(Const::Bool(false)), Type::Bool))
                    }
                    Err(Blocked::Undefined(a)) => Err(Some(self.undefined(&a))),
                    Ok(ins) => self.resolve(cx, v, stmt, &ins).map_err(|f| {
                        errors.push(f.clone().at(d.span));
                        Some(f.message)
                    }),
                };
                match plan {
                    Ok(plan) => {
                        let r = emit_plan(&mut out, nb, &plan, &ops, d.span);
                        if let (Some(name), Operand::Value(nv)) = (&d.name, &r) {
                            out.name_value(*nv, name.clone());
                        }
                        vmap[v.index()] = Some(r);
                        if plan.ty == Type::Bottom && !is_undef(stmt) {
                            out.set_term(nb, Terminator::Unreachable, d.span);
                            ended[b.index()] = true;
                            break;
                        }
                    }
                    Err(msg) => {
                        let msg = msg.unwrap_or_else(|| "unreachable: type error".into());
                        throw(&mut out, nb, &msg, d.span);
                        ended[b.index()] = true;
                        break;
                    }
                }
            }
        }
        out.ret = self.return_type(&mut errors);
        // Terminators, with the conversions that joins need.
        for b in body.block_ids() {
            let Some(nb) = bmap[b.index()] else { continue };
            if ended[b.index()] {
                continue;
            }
            let data = body.block(b);
            let span = data.term_span;
            let bad = data.term.operands().into_iter().find_map(|o| match o {
                Operand::Const(Const::Func(n)) if !cx.is_defined(n) => {
                    Some(Fail::undefined_in(n, cx.program))
                }
                Operand::Const(c @ Const::Tuple(_)) => Some(Fail::unsupported(format!(
                    "`{c}` as a value; read a field as `s.a`, and choose between cases \
                         with a `Bool` or an `Int`, instead"
                ))),
                _ => None,
            });
            if let Some(fail) = bad {
                throw(&mut out, nb, &fail.message, span);
                errors.push(fail.at(span));
                continue;
            }
            if let Some((name, msg)) = self.conflicting_phi(&out, &data.term, &bmap) {
                throw(&mut out, nb, &msg, span);
                // Reported once, where the paths meet, if the join found it already.
                let named = format!("`{name}`");
                if !errors
                    .iter()
                    .any(|e| e.code == "type-conflict" && e.message.contains(&named))
                {
                    errors.push(Fail::conflict(msg).at(span));
                }
                continue;
            }
            let term = match &data.term {
                Terminator::Unreachable => Some(Terminator::Unreachable),
                Terminator::Return(x) => match (self.operand_ty(x), map_one(&vmap, x)) {
                    (Type::Any, _) | (_, None) => None,
                    (Type::Bottom, _) => {
                        let msg = self.undefined(x);
                        throw(&mut out, nb, &msg, span);
                        continue;
                    }
                    (t, Some(op)) => {
                        let ret = out.ret.clone();
                        let op = convert_op(&mut out, nb, op, &t, &ret, span);
                        Some(Terminator::Return(op))
                    }
                },
                Terminator::Jump(c) => self
                    .emit_call(&mut out, nb, c, &vmap, &bmap, span)
                    .map(Terminator::Jump),
                Terminator::Handle { leave, catch, to } => {
                    let to = self.emit_call(&mut out, nb, to, &vmap, &bmap, span);
                    let catch = catch
                        .as_ref()
                        .map(|c| self.emit_call(&mut out, nb, c, &vmap, &bmap, span));
                    match (to, catch) {
                        (Some(to), None) => Some(Terminator::Handle {
                            leave: *leave,
                            catch: None,
                            to,
                        }),
                        (Some(to), Some(Some(c))) => Some(Terminator::Handle {
                            leave: *leave,
                            catch: Some(c),
                            to,
                        }),
                        _ => None,
                    }
                }
                Terminator::Branch {
                    cond,
                    then_to,
                    else_to,
                } => {
                    let ct = self.operand_ty(cond);
                    if ct == Type::Bottom {
                        let msg = self.undefined(cond);
                        throw(&mut out, nb, &msg, span);
                        continue;
                    }
                    if may_be_missing_bool(&ct) {
                        // `if x[i] > 0` of an element that may be `missing`: the Bool taken
                        // out, Julia's `TypeError` when it is `missing`.
                        let t = self.emit_call(&mut out, nb, then_to, &vmap, &bmap, span);
                        let e = self.emit_call(&mut out, nb, else_to, &vmap, &bmap, span);
                        let term = match (map_one(&vmap, cond), t, e) {
                            (Some(c), Some(then_to), Some(else_to)) => {
                                let stmt = Stmt {
                                    op: Op::Prim(zy_ir::Prim::UnionConvert),
                                    args: vec![c],
                                };
                                let c = out.push_stmt(nb, stmt, Type::Bool, span);
                                Terminator::Branch {
                                    cond: Operand::Value(c),
                                    then_to,
                                    else_to,
                                }
                            }
                            _ => {
                                throw(&mut out, nb, "unreachable: type error", span);
                                continue;
                            }
                        };
                        out.set_term(nb, term, span);
                        continue;
                    }
                    if ct != Type::Bool {
                        let msg = format!("TypeError: non-boolean ({ct}) used in boolean context");
                        if ct != Type::Any {
                            errors.push(Fail::conflict(msg.clone()).at(span));
                        }
                        throw(&mut out, nb, &msg, span);
                        continue;
                    }
                    if let Some(way) = self.known_way(&data.term) {
                        let term = self
                            .emit_call(&mut out, nb, way, &vmap, &bmap, span)
                            .map(Terminator::Jump);
                        match term {
                            Some(t) => out.set_term(nb, t, span),
                            None => throw(&mut out, nb, "unreachable: type error", span),
                        }
                        continue;
                    }
                    let t = self.emit_call(&mut out, nb, then_to, &vmap, &bmap, span);
                    let e = self.emit_call(&mut out, nb, else_to, &vmap, &bmap, span);
                    match (map_one(&vmap, cond), t, e) {
                        (Some(cond), Some(then_to), Some(else_to)) => Some(Terminator::Branch {
                            cond,
                            then_to,
                            else_to,
                        }),
                        _ => None,
                    }
                }
            };
            match term {
                Some(t) => out.set_term(nb, t, span),
                None => throw(&mut out, nb, "unreachable: type error", span),
            }
        }
        (out, errors)
    }

    /// The type conflict of a jump into a φ whose incoming types do not join (a Julia
    /// `Union` zy does not type, such as an `Int` then a `Vector`): the φ has no type, and the
    /// jump ends in the type error.
    fn conflicting_phi(
        &self,
        out: &Function,
        term: &Terminator,
        bmap: &[Option<Block>],
    ) -> Option<(String, String)> {
        for call in term.calls() {
            let Some(target) = bmap.get(call.block.index()).copied().flatten() else {
                continue;
            };
            for (a, &p) in call.args.iter().zip(&out.block(target).params) {
                let from = self.operand_ty(a);
                if *out.ty(p) == Type::Bottom && from != Type::Bottom && from != Type::Any {
                    let name = out
                        .value(p)
                        .name
                        .as_deref()
                        .unwrap_or("a variable")
                        .to_string();
                    let msg = format!(
                        "type conflict: `{name}` is {from} on one path into this loop or branch and of another type on another (zy gives each variable one type)"
                    );
                    return Some((name, msg));
                }
            }
        }
        None
    }

    fn emit_call(
        &self,
        out: &mut Function,
        nb: Block,
        call: &BlockCall,
        vmap: &[Option<Operand>],
        bmap: &[Option<Block>],
        span: Span,
    ) -> Option<BlockCall> {
        let target = bmap.get(call.block.index()).copied().flatten()?;
        let params = out.block(target).params.clone();
        let mut args = Vec::with_capacity(call.args.len());
        for (a, p) in call.args.iter().zip(params) {
            let op = map_one(vmap, a)?;
            let to = out.ty(p).clone();
            if to == Type::Bottom {
                // A φ whose incoming types conflict (reported): the jump cannot pass a value
                // to it, so the block ends in the type error instead.
                return None;
            }
            args.push(convert_op(out, nb, op, &self.operand_ty(a), &to, span));
        }
        Some(BlockCall {
            block: target,
            args,
        })
    }

    /// The join of the returned values' types, reporting a conflict.
    fn return_type(&self, errors: &mut Vec<TypeError>) -> Type {
        let mut ret = Type::Bottom;
        for b in self.body.block_ids() {
            if !(self.reach[b.index()] && self.flows[b.index()]) {
                continue;
            }
            let data = self.body.block(b);
            let Terminator::Return(x) = &data.term else {
                continue;
            };
            let t = self.operand_ty(x);
            if t == Type::Any {
                continue;
            }
            match self.join(&ret, &t) {
                Some(j) => ret = j,
                None => {
                    let msg = format!(
                        "type conflict: the return value of `{}` is {} on one path and {t} on another",
                        self.body.name, ret
                    );
                    errors.push(Fail::conflict(msg).at(data.term_span));
                    return ret;
                }
            }
        }
        ret
    }

    /// Where a join is reported: the φ's own span when it is specific, else the smallest span
    /// covering the terminators of the blocks that flow into it (the construct where the paths
    /// meet, such as the `if`).
    fn join_span(&self, blk: Block, span: Span) -> Span {
        if span != Span::default() && span != self.body.span {
            return span;
        }
        let mut cover = Span::default();
        for b in self.body.block_ids() {
            let data = self.body.block(b);
            let flows_in = data.term.successors().contains(&blk);
            if flows_in && self.reach[b.index()] && data.term_span != Span::default() {
                cover = cover.cover(data.term_span);
            }
        }
        if cover == Span::default() {
            self.body.span
        } else {
            cover
        }
    }

    /// The conflict error at parameter `i` of `blk`, unless it only inherits an earlier error.
    fn conflict(&self, blk: Block, i: usize, name: Option<&str>, span: Span) -> Option<TypeError> {
        let mut acc = Type::Bottom;
        for t in self.incoming(blk, i) {
            if t == Type::Any {
                return None;
            }
            match self.join(&acc, &t) {
                Some(j) => acc = j,
                None => {
                    let what = match name {
                        Some(n) => format!("`{n}`"),
                        None => "a value".to_string(),
                    };
                    let msg = match (&acc, &t) {
                        (Type::Symbol(a), Type::Symbol(b)) => format!(
                            "type conflict: {what} is :{a} on one path and :{b} on another (zy \
                             knows each symbol where it compiles, as a constant); choose with a \
                             `Bool` or an `Int` instead"
                        ),
                        (Type::Struct(a), Type::Struct(b)) if a.is(&b.name, &b.params) => {
                            struct_conflict(&what, a, b)
                        }
                        _ => {
                            format!("type conflict: {what} is {acc} on one path and {t} on another")
                        }
                    };
                    return Some(Fail::conflict(msg).at(self.join_span(blk, span)));
                }
            }
        }
        None
    }

    fn undefined(&self, a: &Operand) -> String {
        let name = a.as_value().and_then(|v| self.body.value(v).name.clone());
        match name {
            Some(n) => format!("UndefVarError: `{n}` not defined"),
            None => "UndefVarError: local variable not defined".into(),
        }
    }
}

fn map_one(vmap: &[Option<Operand>], a: &Operand) -> Option<Operand> {
    match a {
        Operand::Value(v) => vmap.get(v.index()).cloned().flatten(),
        Operand::Const(_) => Some(a.clone()),
    }
}

fn map_all(vmap: &[Option<Operand>], args: &[Operand]) -> Option<Vec<Operand>> {
    args.iter().map(|a| map_one(vmap, a)).collect()
}

/// Is `t` the union of `Bool` and `missing` (a comparison of a value that may be
/// `missing`), which a branch takes only as a `Bool`?
fn may_be_missing_bool(t: &Type) -> bool {
    matches!(t, Type::Union(u) if u.members.contains(&Type::Bool)
        && u.members.iter().all(|m| *m == Type::Bool || m.is_missing()))
}

/// Convert `op` (of type `from`) for a join of type `to`, emitting the conversion in `block`.
fn convert_op(
    out: &mut Function,
    block: Block,
    op: Operand,
    from: &Type,
    to: &Type,
    span: Span,
) -> Operand {
    match conversion(from, to) {
        Some(p) => {
            let stmt = Stmt {
                op: Op::Prim(p),
                args: vec![op],
            };
            Operand::Value(out.push_stmt(block, stmt, to.clone(), span))
        }
        None => op,
    }
}
