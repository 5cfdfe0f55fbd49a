//! The IR verifier: checks that a function is well formed, for every stage.
//!
//! - Structure: every value is defined once, as a parameter of the block that lists it or by a
//!   statement; every operand is a value of this function defined in some block; every jump
//!   targets a block other than the entry (whose parameters are the arguments) and passes one
//!   argument per target parameter; a branch's targets are distinct.
//! - Dominance: every use of a value is dominated by its definition (a statement's operands by
//!   earlier statements of its block or by dominating blocks; a jump's arguments, the φ operands
//!   of the target, by the end of the jumping block). Uses in blocks no path reaches are not
//!   checked.
//! - Types, for typed IR (a return type other than `Any`): every definition has a type, and what
//!   is cheap and certain about operand types holds. Entry parameters have the instance's
//!   argument types (but in a pullback `f⁻`, whose instance is its `Pullback` type's contents);
//!   a branch condition is `Bool`; the returned value has the return type; a jump argument has
//!   its target parameter's type, and a stored value (in a field, a `Ref`, a stack) the type
//!   that holds it, or is an `Int64` where a `Float64` is held (both engines convert it: SPEC's
//!   join rule); statements have the operand and result types their operation requires (scalar
//!   arithmetic on one number type, comparisons giving `Bool`, `tuple` and `new` typed by their
//!   operands, `getfield`/`setfield!` in range and of the field's type, `Ref`s and tape stacks
//!   of their element type, `invoke` of an instance whose argument types are the operands'). A
//!   value of type `Union{}` fits anywhere (it never arrives), and a statement with such an
//!   operand is not checked (it never runs).
//!
//! Lowering, inference (for bodies without type errors, which never run), each AD pass
//! (expansion, inlining, the transform, simplification, `rrule` adjoints) and the JIT call
//! [`debug_verify`] on what they produce, so in debug builds (and therefore in every test) a
//! malformed function is an internal error at the pass that made it; release builds skip it.
//! [`violations`] gives each violation with its location, for the IR filetests' `; error:`
//! lines.

use std::fmt;

use crate::cfg::Dominators;
use crate::func::{Block, Function, Operand, Stmt, Terminator, Value, ValueKind};
use crate::ops::{Instance, Op, Prim};
use crate::print::print_function;
use crate::types::Type;

/// What a violation is about.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Location {
    /// The function as a whole (its signature).
    Function,
    /// The definition of a value: the statement or block parameter (φ) defining it.
    Value(Value),
    /// The terminator of a block.
    Terminator(Block),
}

/// One way a function is malformed.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Violation {
    pub at: Location,
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Location::Function => f.write_str(&self.message),
            Location::Value(v) => write!(f, "{v}: {}", self.message),
            Location::Terminator(b) => write!(f, "{b}: {}", self.message),
        }
    }
}

/// Check `func`, returning every violation found, rendered (empty when well formed).
pub fn verify(func: &Function) -> Vec<String> {
    violations(func).iter().map(Violation::to_string).collect()
}

/// In debug builds, panic with every violation and the printed function if `func` is malformed
/// after `pass` (a bug in that pass). Release builds do nothing.
pub fn debug_verify(func: &Function, pass: &str) {
    if cfg!(debug_assertions) {
        let found = violations(func);
        if !found.is_empty() {
            let list: Vec<String> = found.iter().map(|v| format!("  {v}")).collect();
            panic!(
                "internal error: `{}` is malformed after {pass}:\n{}\n{}",
                func.name,
                list.join("\n"),
                print_function(func)
            );
        }
    }
}

/// Check `func`, returning every violation found with its location (empty when well formed).
pub fn violations(func: &Function) -> Vec<Violation> {
    let mut v = Verifier::new(func);
    v.structure();
    v.dominance();
    if func.ret != Type::Any {
        v.types();
    }
    v.out
}

/// Where a value is defined: its block and its position there (0 for parameters, `i + 1` for
/// the `i`-th statement).
type Def = (Block, usize);

/// The position of a block's terminator among its definitions.
const TERMINATOR: usize = usize::MAX;

struct Verifier<'f> {
    func: &'f Function,
    defined_in: Vec<Option<Def>>,
    out: Vec<Violation>,
    /// A jump to a missing block, or a value or operand outside the function: nothing that
    /// walks the CFG or reads operand types can go on.
    broken: bool,
}

impl<'f> Verifier<'f> {
    fn new(func: &'f Function) -> Verifier<'f> {
        Verifier {
            func,
            defined_in: vec![None; func.values.len()],
            out: Vec::new(),
            broken: false,
        }
    }

    fn report(&mut self, at: Location, message: String) {
        self.out.push(Violation { at, message });
    }

    /// Definitions, operands in range, jump arities, distinct branch targets.
    fn structure(&mut self) {
        let func = self.func;
        let n = func.values.len();
        for b in func.block_ids() {
            let data = func.block(b);
            let defs = data
                .params
                .iter()
                .map(|&p| (p, 0))
                .chain(data.stmts.iter().enumerate().map(|(i, &s)| (s, i + 1)));
            for (v, pos) in defs {
                if v.index() >= n {
                    self.broken = true;
                    self.report(
                        Location::Terminator(b),
                        format!("{v} is listed in {b} but is not a value of this function"),
                    );
                    continue;
                }
                if let Some((other, _)) = self.defined_in[v.index()].replace((b, pos)) {
                    self.report(
                        Location::Value(v),
                        format!("defined in both {other} and {b}"),
                    );
                }
                let is_param = pos == 0;
                match &func.value(v).kind {
                    ValueKind::Param { block, index }
                        if !is_param
                            || *block != b
                            || data.params.get(*index as usize) != Some(&v) =>
                    {
                        self.report(
                            Location::Value(v),
                            format!("listed in {b} but defined as parameter {index} of {block}"),
                        );
                    }
                    ValueKind::Stmt(_) if is_param => {
                        self.report(
                            Location::Value(v),
                            format!("listed as a parameter of {b} but defined by a statement"),
                        );
                    }
                    _ => {}
                }
            }
        }
        for b in func.block_ids() {
            let data = func.block(b);
            for &v in &data.stmts {
                if let Some(s) = func.values.get(v.index()).and_then(|_| func.stmt(v)) {
                    for a in &s.args {
                        self.operand_exists(Location::Value(v), a);
                    }
                }
            }
            for op in data.term.operands() {
                self.operand_exists(Location::Terminator(b), op);
            }
            for call in data.term.calls() {
                if call.block == Block::ENTRY {
                    self.report(
                        Location::Terminator(b),
                        "jumps to the entry block, whose parameters are the arguments".into(),
                    );
                }
                match func.blocks.get(call.block.index()) {
                    None => {
                        self.broken = true;
                        self.report(
                            Location::Terminator(b),
                            format!("jump to missing block {}", call.block),
                        );
                    }
                    Some(target) if target.params.len() != call.args.len() => self.report(
                        Location::Terminator(b),
                        format!(
                            "jump to {} passes {} arguments for {} parameters",
                            call.block,
                            call.args.len(),
                            target.params.len()
                        ),
                    ),
                    Some(_) => {}
                }
            }
            let succ = data.term.successors();
            if succ.len() == 2 && succ[0] == succ[1] {
                self.report(
                    Location::Terminator(b),
                    format!("both branch targets are {}", succ[0]),
                );
            }
        }
    }

    fn operand_exists(&mut self, at: Location, op: &Operand) {
        if let Operand::Value(v) = op {
            if v.index() >= self.func.values.len() {
                self.broken = true;
                self.report(at, format!("operand {v} is not a value of this function"));
            } else if self.defined_in[v.index()].is_none() {
                self.broken = true;
                self.report(at, format!("operand {v} is not defined in any block"));
            }
        }
    }

    /// Every use in a reachable block is dominated by its definition.
    fn dominance(&mut self) {
        let func = self.func;
        if func.blocks.is_empty() {
            self.broken = true;
            self.report(Location::Function, "the function has no blocks".into());
            return;
        }
        if self.broken {
            return;
        }
        let doms = Dominators::new(func);
        for b in func.block_ids() {
            if !doms.is_reachable(b) {
                continue;
            }
            let data = func.block(b);
            for (i, &v) in data.stmts.iter().enumerate() {
                if let Some(s) = func.values.get(v.index()).and_then(|_| func.stmt(v)) {
                    for a in &s.args {
                        self.dominated(&doms, Location::Value(v), a, (b, i + 1));
                    }
                }
            }
            for op in data.term.operands() {
                self.dominated(&doms, Location::Terminator(b), op, (b, TERMINATOR));
            }
        }
    }

    fn dominated(&mut self, doms: &Dominators, at: Location, op: &Operand, (b, pos): Def) {
        let Some(v) = op.as_value() else { return };
        let Some(&Some((db, dpos))) = self.defined_in.get(v.index()) else {
            return;
        };
        let ok = if db == b {
            dpos < pos
        } else {
            doms.dominates(db, b)
        };
        if !ok {
            let what = match at {
                Location::Terminator(_) => format!("the terminator of {b}"),
                _ => "this statement".to_string(),
            };
            self.report(
                at,
                format!("{v} (defined in {db}) does not dominate its use in {what}"),
            );
        }
    }

    /// Types of definitions, signatures, terminators and statements.
    fn types(&mut self) {
        let func = self.func;
        if self.broken {
            // Operand types mean nothing while operands or blocks are missing.
            return;
        }
        for b in func.block_ids() {
            let data = func.block(b);
            for &v in data.params.iter().chain(&data.stmts) {
                if func
                    .values
                    .get(v.index())
                    .is_some_and(|d| d.ty == Type::Any)
                {
                    self.report(Location::Value(v), "has no type in typed IR".into());
                }
            }
        }
        // A pullback `f⁻` is keyed by the contents of its `Pullback` type, not by its arguments
        // `(tape, ȳ)`.
        let pullback = func.name.ends_with('⁻');
        if let Some(inst) = func.instance.as_ref().filter(|_| !pullback) {
            let args: Vec<Type> = func
                .args()
                .iter()
                .filter_map(|a| func.values.get(a.index()))
                .map(|d| d.ty.clone())
                .collect();
            if !keyed_by(inst, &args) {
                self.report(
                    Location::Function,
                    format!(
                        "the argument types ({}) are not those of the instance {inst}",
                        comma(&args)
                    ),
                );
            }
        }
        for b in func.block_ids() {
            self.terminator_types(b);
            for &v in &func.block(b).stmts {
                if let Some(s) = func.stmt(v) {
                    if let Err(message) = stmt_types(func, s, func.ty(v)) {
                        self.report(Location::Value(v), message);
                    }
                }
            }
        }
    }

    fn terminator_types(&mut self, b: Block) {
        let func = self.func;
        let at = Location::Terminator(b);
        match &func.block(b).term {
            Terminator::Return(x) => {
                let t = func.operand_ty(x);
                if !fits(&t, &func.ret) {
                    self.report(
                        at,
                        format!(
                            "returns {x} of type {t} from a function returning {}",
                            func.ret
                        ),
                    );
                }
            }
            Terminator::Branch { cond, .. } => {
                let t = func.operand_ty(cond);
                if !fits(&t, &Type::Bool) {
                    self.report(
                        at,
                        format!("branch condition {cond} has type {t}, not Bool"),
                    );
                }
            }
            Terminator::Jump(_) | Terminator::Unreachable | Terminator::Handle { .. } => {}
        }
        for call in func.block(b).term.calls() {
            let params = &func.block(call.block).params;
            for (a, &p) in call.args.iter().zip(params) {
                let (t, want) = (func.operand_ty(a), func.ty(p));
                if !converts(&t, want) {
                    self.report(
                        at,
                        format!(
                            "passes {a} of type {t} to {p} of type {want} in {}",
                            call.block
                        ),
                    );
                }
            }
        }
    }
}

/// Can a value of type `t` stand where `want` is expected? (`Union{}` never arrives.)
fn fits(t: &Type, want: &Type) -> bool {
    t == want || *t == Type::Bottom
}

/// Can a value of type `t` be stored where `want` is held (a block parameter, a field, a `Ref`
/// or stack slot)? Both engines convert an `Int64` stored as a `Float64` (SPEC's join rule).
fn converts(t: &Type, want: &Type) -> bool {
    fits(t, want) || (*t == Type::Int64 && *want == Type::Float64)
}

fn comma(ts: &[Type]) -> String {
    ts.iter()
        .map(Type::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The operand and result types `s` requires, where they are certain: `Err` says what is
/// wrong with a statement of result type `ty`.
fn stmt_types(func: &Function, s: &Stmt, ty: &Type) -> Result<(), String> {
    let tys: Vec<Type> = s.args.iter().map(|a| func.operand_ty(a)).collect();
    if tys.contains(&Type::Bottom) {
        // Code after a statement that cannot return: nothing here runs.
        return Ok(());
    }
    let result = |want: Type| {
        if fits(ty, &want) {
            Ok(())
        } else {
            Err(format!("has type {ty}, but its operands make it {want}"))
        }
    };
    match &s.op {
        Op::Prim(p) if !p.info().arity.admits(s.args.len()) => Err(format!(
            "{p} takes {:?} operands, not {}",
            p.info().arity,
            s.args.len()
        )),
        Op::Prim(p) => prim_types(*p, &s.args, &tys, ty, result),
        Op::New(st) => {
            let whole = Type::Struct(st.clone());
            let fields: Vec<Type> = (0..st.fields.len())
                .filter_map(|i| whole.field(i))
                .collect();
            if tys.len() != fields.len() || tys.iter().zip(&fields).any(|(t, f)| !converts(t, f)) {
                return Err(format!(
                    "new {st} takes fields ({}), not ({})",
                    comma(&fields),
                    comma(&tys)
                ));
            }
            result(Type::Struct(st.clone()))
        }
        Op::Invoke(inst) if !keyed_by(inst, &tys) => Err(format!(
            "invokes {inst} with operands of types ({})",
            comma(&tys)
        )),
        Op::Invoke(_) | Op::Call(_) | Op::CallValue | Op::Closure(_) | Op::Global(_) => Ok(()),
    }
}

fn prim_types(
    p: Prim,
    args: &[Operand],
    tys: &[Type],
    ty: &Type,
    result: impl Fn(Type) -> Result<(), String>,
) -> Result<(), String> {
    let numbers = !tys.is_empty() && tys.iter().all(Type::is_number);
    let same = |tys: &[Type]| tys.windows(2).all(|w| w[0] == w[1]);
    match (p, tys) {
        (
            Prim::Add | Prim::Sub | Prim::Mul | Prim::IntDiv | Prim::Rem | Prim::Max | Prim::Min,
            [a, _],
        ) if numbers => {
            if !same(tys) {
                return Err(format!(
                    "{p} of {} and {}: scalar arithmetic needs one number type",
                    tys[0], tys[1]
                ));
            }
            result(a.clone())
        }
        (Prim::Div, [_, _]) if numbers => {
            if tys.iter().any(|t| *t != Type::Float64) {
                return Err(format!(
                    "/ of {} and {}: its operands are converted to Float64",
                    tys[0], tys[1]
                ));
            }
            result(Type::Float64)
        }
        (Prim::Lt | Prim::Le | Prim::Gt | Prim::Ge | Prim::Eq | Prim::Ne, [_, _]) if numbers => {
            if !same(tys) {
                return Err(format!(
                    "{p} of {} and {}: a comparison needs one number type",
                    tys[0], tys[1]
                ));
            }
            result(Type::Bool)
        }
        (Prim::Pow, [a, _]) if numbers => result(a.clone()),
        (Prim::Neg, [a]) if numbers => result(a.clone()),
        (Prim::Not, [a]) => {
            if *a != Type::Bool {
                return Err(format!("! of {a}, not Bool"));
            }
            result(Type::Bool)
        }
        (Prim::Float, [_]) if numbers => result(Type::Float64),
        (Prim::ToInt, [_]) if numbers => result(Type::Int64),
        (Prim::Length | Prim::RangeLength, _) => result(Type::Int64),
        (Prim::Tuple, _) => result(Type::tuple(tys.iter().cloned())),
        (Prim::GetField, [t, _]) => {
            let Some(n) = t.field_count() else {
                return Ok(());
            };
            let i = field_index(args.get(1), n, t)?;
            result(t.field(i).unwrap_or(Type::Nothing))
        }
        (Prim::SetField, [t, _, v]) => {
            let Type::Struct(st) = t else {
                return Err(format!("setfield! of a {t}, not a mutable struct"));
            };
            if !st.mutable {
                return Err(format!("setfield! of {t}, which is immutable"));
            }
            let i = field_index(args.get(1), st.fields.len(), t)?;
            let field = t.field(i).unwrap_or(Type::Nothing);
            if !converts(v, &field) {
                return Err(format!(
                    "setfield! stores a {v} in field {} of type {field}",
                    i + 1
                ));
            }
            result(v.clone())
        }
        (Prim::SetLength, [v @ Type::Array(_, 1), Type::Int64, tail @ ..])
            if tail.iter().all(|t| t == v) =>
        {
            result(v.clone())
        }
        (Prim::SetLength, _) => Err(format!(
            "setlength! of {}: it takes a Vector, an Int and a tail of the Vector's type",
            comma(tys)
        )),
        (Prim::RefNew, [t]) => result(Type::Ref(t.clone().into())),
        (Prim::RefGet, [Type::Ref(t)]) => result((**t).clone()),
        // The shadow box of a value of an abstract type, one of its members' boxes.
        (Prim::RefGet, [Type::Union(u)]) if u.members.iter().all(|m| matches!(m, Type::Ref(_))) => {
            Ok(())
        }
        (Prim::RefUndef, [_]) if !matches!(ty, Type::Ref(_)) => {
            Err(format!("ref_undef of type {ty}, not a Ref"))
        }
        (Prim::RefSet | Prim::RefInit, [Type::Ref(t), v]) => {
            if !converts(v, t) {
                return Err(format!("{p} stores a {v} in a Ref{{{t}}}"));
            }
            result(v.clone())
        }
        (Prim::RefGet | Prim::RefSet | Prim::RefInit, [t, ..]) => {
            Err(format!("{p} of a {t}, not a Ref"))
        }
        (Prim::StackNew, []) if !matches!(ty, Type::Stack(_)) => {
            Err(format!("a stack of type {ty}"))
        }
        (Prim::Push, [Type::Stack(e), v]) => {
            if !converts(v, e) {
                return Err(format!("push! of a {v} onto a Stack{{{e}}}"));
            }
            result(Type::Nothing)
        }
        (Prim::Pop, [Type::Stack(e)]) => result((**e).clone()),
        (Prim::Push | Prim::Pop, [t, ..]) => Err(format!("{p} of a {t}, not a stack")),
        _ => Ok(()),
    }
}

/// The 0-based field index of a constant Int operand in `1..=n`.
fn field_index(op: Option<&Operand>, n: usize, t: &Type) -> Result<usize, String> {
    match op.and_then(Operand::as_const) {
        Some(crate::func::Const::Int(i)) if (1..=n as i64).contains(i) => Ok(*i as usize - 1),
        Some(crate::func::Const::Int(i)) => Err(format!("field {i} of {t}, which has {n}")),
        _ => Err(format!("field index of {t} is not a constant Int")),
    }
}

/// Do arguments of types `args` match the instance `inst` they are called as? Exactly, but for
/// a forward function `f⁺`, which takes after its key's arguments the shadows of the globals it
/// reaches (they are not part of its key: every call passes the same ones).
fn keyed_by(inst: &Instance, args: &[Type]) -> bool {
    // Forward functions `f⁺` and pushforwards `∂→f` take the tangents of the globals they
    // reach after the key's arguments.
    if inst.name.ends_with('⁺') || inst.name.starts_with("∂→") {
        args.starts_with(&inst.args)
    } else {
        *inst.args == *args
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use proptest::prelude::*;

    use super::*;
    use crate::func::{BlockCall, BlockData, Const, Span, ValueData};

    /// A function of arbitrary, mostly malformed, shape: values, blocks and operands point
    /// anywhere, including outside the function.
    fn garbage() -> impl Strategy<Value = Function> {
        let operand = prop_oneof![
            (0u32..12).prop_map(|v| Operand::Value(Value(v))),
            Just(Operand::Const(Const::f64(1.0))),
            Just(Operand::Const(Const::Int(1))),
            Just(Operand::Const(Const::Bool(true))),
        ];
        let ty = prop_oneof![
            Just(Type::Any),
            Just(Type::Float64),
            Just(Type::Int64),
            Just(Type::Bool),
            Just(Type::Bottom),
            Just(Type::tuple([Type::Float64, Type::Int64])),
            Just(Type::Stack(Arc::new(Type::Float64))),
            Just(Type::Ref(Arc::new(Type::Int64))),
        ];
        let prim = proptest::sample::select(Prim::ALL.to_vec());
        let kind = prop_oneof![
            (0u32..5, 0u32..3).prop_map(|(b, i)| ValueKind::Param {
                block: Block(b),
                index: i
            }),
            (prim, proptest::collection::vec(operand.clone(), 0..4)).prop_map(|(p, args)| {
                ValueKind::Stmt(Stmt {
                    op: Op::Prim(p),
                    args,
                })
            }),
        ];
        let value = (kind, ty.clone()).prop_map(|(kind, ty)| ValueData {
            kind,
            ty,
            span: Span::default(),
            name: None,
        });
        let call =
            (0u32..5, proptest::collection::vec(operand.clone(), 0..3)).prop_map(|(b, args)| {
                BlockCall {
                    block: Block(b),
                    args,
                }
            });
        let term = prop_oneof![
            operand.clone().prop_map(Terminator::Return),
            call.clone().prop_map(Terminator::Jump),
            (operand, call.clone(), call).prop_map(|(cond, then_to, else_to)| Terminator::Branch {
                cond,
                then_to,
                else_to
            }),
            Just(Terminator::Unreachable),
        ];
        let ids = || proptest::collection::vec((0u32..12).prop_map(Value), 0..4);
        let block = (ids(), ids(), term).prop_map(|(params, stmts, term)| BlockData {
            params,
            stmts,
            term,
            term_span: Span::default(),
        });
        (
            proptest::collection::vec(value, 0..12),
            proptest::collection::vec(block, 0..5),
            ty,
            any::<bool>(),
        )
            .prop_map(|(values, blocks, ret, pullback)| {
                let mut f = Function::new(if pullback { "f⁻" } else { "f" }, Span::default());
                f.values = values;
                f.blocks = blocks;
                f.ret = ret;
                f
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5000))]

        /// Whatever a pass (or a test, or a file) hands it, the verifier reports, never panics.
        #[test]
        fn any_function_is_verified_without_a_panic(f in garbage()) {
            let found = violations(&f);
            if f.blocks.is_empty() {
                prop_assert!(!found.is_empty());
            }
        }
    }
}
