//! Rules: for each operation, its forward fragment (the primal operation, a shadow for a fresh
//! mutable result, the residuals the reverse needs), its reverse fragment (IR computing the
//! operands' gradient contributions from the residuals and the result's gradient) and its
//! pushforward (the result's tangent from the operands').
//!
//! One file per domain, each a table of entries, one per primitive, holding what the rule keeps,
//! how it reverses, how it pushes forward and the cases that test it, side by side: a scalar
//! rule is a [`ScalarRule`] (`scalar.rs`), an array, factorization, data or broadcast rule a
//! [`Rule`]. A rule sees forward-side operands in a [`FwdStmt`], pullback-side operands in a
//! [`RevStmt`] and tangents in a [`TanStmt`], and emits IR through [`Emit`]; the transform moves
//! residuals between the two passes (slots or stacks). Which primitive has a rule is the tables'
//! answer ([`rule`], [`has_rule`]); which need one is the primitive table's [`Diff::Rule`], and
//! `tests/rules.rs` and `tests/forward.rs` check every one of them on both engines. Calls of
//! user functions (`calls.rs`) and `new` (`data.rs`) are operations, not primitives, and keep
//! their own arms below.

mod arrays;
mod broadcast;
mod calls;
mod chunk;
mod data;
mod factor;
mod objects;
mod scalar;
pub(crate) mod specfun;
pub(crate) mod split;

use std::sync::Arc;

use rustc_hash::FxHashMap;
use zy_ir::{Block, Const, Diff, Instance, Name, Op, Operand, Prim, Span, SsaBuilder, Stmt, Type};

use crate::globals::GlobalShadows;
use crate::mask::ArgMask;

pub use chunk::{chunk_type, pushforward_chunk};
pub use scalar::{
    rule as scalar_rule, Forward, Kept, Reverse, ScalarRule, TangentFn, RULES as SCALAR_RULES,
};

use crate::tangent::{fdata_type, rdata_type};
use crate::AdError;

/// Emitting IR into one block of a function under construction.
pub struct Emit<'a> {
    /// Inside a broadcast rule: scalar operations with an array operand are emitted as
    /// `broadcast`, with results shaped like this array type.
    pub bcast: Option<Type>,
    pub b: &'a mut SsaBuilder,
    pub block: Block,
    pub span: Span,
}

impl Emit<'_> {
    /// Append `op(args...) :: ty`.
    pub fn op(&mut self, op: Op, args: Vec<Operand>, ty: Type) -> Operand {
        let v = self
            .b
            .func
            .push_stmt(self.block, Stmt { op, args }, ty, self.span);
        Operand::Value(v)
    }

    /// Append a primitive call.
    pub fn prim(&mut self, p: Prim, args: Vec<Operand>, ty: Type) -> Operand {
        if let Some(shape) = &self.bcast {
            let over_array = args.iter().any(|a| {
                matches!(
                    self.b.func.operand_ty(a),
                    Type::Array(..) | Type::Adjoint(_)
                )
            });
            if over_array && p.is_elementwise() {
                // Shaped like the operands: a partial computed from the primal vectors under a
                // chunk's matrix shape (`forward::chunk`) is a vector.
                let dims = args
                    .iter()
                    .map(|a| match self.b.func.operand_ty(a) {
                        Type::Array(_, n) => n,
                        Type::Adjoint(_) => 2,
                        _ => 0,
                    })
                    .max()
                    .unwrap_or(0);
                let rty = match shape {
                    Type::Array(_, n) => Type::Array(Arc::new(ty), dims.min(*n).max(1)),
                    _ => Type::Adjoint(Arc::new(ty)),
                };
                let mut bargs = vec![Operand::Const(Const::Func(p.julia_name().into()))];
                bargs.extend(args);
                return self.op(Op::Prim(Prim::Broadcast), bargs, rty);
            }
        }
        self.op(Op::Prim(p), args, ty)
    }

    /// `a + b` on Float64, folding additions of a literal zero.
    pub fn add(&mut self, a: Operand, b: Operand) -> Operand {
        match (is_zero(&a), is_zero(&b)) {
            (true, _) => b,
            (_, true) => a,
            _ => self.prim(Prim::Add, vec![a, b], Type::Float64),
        }
    }

    /// `p(x)` on a number, or broadcast over an array `x` of type `ty`.
    pub fn bcast_or_scalar(&mut self, p: Prim, x: Operand, ty: &Type) -> Operand {
        match ty {
            Type::Array(..) | Type::Adjoint(_) => {
                let f = Operand::Const(Const::Func(p.julia_name().into()));
                self.prim(Prim::Broadcast, vec![f, x], ty.clone())
            }
            _ => self.prim(p, vec![x], ty.clone()),
        }
    }

    /// `a * b` on Float64.
    pub fn mul(&mut self, a: Operand, b: Operand) -> Operand {
        self.prim(Prim::Mul, vec![a, b], Type::Float64)
    }

    /// Field `i` (0-based) of a tuple or named tuple of type `ty`.
    pub fn field(&mut self, x: Operand, i: usize, ty: &Type) -> Operand {
        let fty = ty.field(i).unwrap_or(Type::Nothing);
        if fty == Type::Nothing {
            return Const::Nothing.into();
        }
        self.prim(
            Prim::GetField,
            vec![x, Const::Int(i as i64 + 1).into()],
            fty,
        )
    }

    /// Tangent addition of two gradients of type `ty`.
    pub fn accum(&mut self, ty: &Type, a: Operand, b: Operand) -> Operand {
        match ty {
            Type::Float64 => self.add(a, b),
            Type::Float32 => match (is_zero(&a), is_zero(&b)) {
                (true, _) => b,
                (_, true) => a,
                _ => self.prim(Prim::Add, vec![a, b], Type::Float32),
            },
            Type::Nothing => Const::Nothing.into(),
            _ => self.prim(Prim::Accum, vec![a, b], ty.clone()),
        }
    }

    /// The zero rdata of type `ty` (a literal where possible).
    pub fn zero_rdata(&mut self, ty: &Type) -> Operand {
        match ty {
            Type::Float64 => Const::f64(0.0).into(),
            Type::Float32 => Const::f32(0.0).into(),
            Type::Nothing => Const::Nothing.into(),
            _ => self.prim(Prim::ZeroTangent, vec![], ty.clone()),
        }
    }

    /// A fresh zero shadow for the primal `x` of type `ty` (`None` if `ty` has no fdata).
    pub fn zero_fdata(&mut self, x: Operand, ty: &Type) -> Option<Operand> {
        let fty = fdata_type(ty);
        match (&fty, ty) {
            (Type::Nothing, _) => None,
            // Of an array, or of a value of an abstract type (the box its member has).
            (_, Type::Array(..) | Type::Union(_)) => {
                Some(self.prim(Prim::ZeroTangent, vec![x], fty))
            }
            // Of a struct whose shape depends on the data: as deep as the value, a box per
            // mutable node (one for a node reached twice).
            _ if ty.holds_recursion() => Some(self.prim(Prim::ZeroTangent, vec![x], fty)),
            (Type::Adjoint(el), Type::Adjoint(_)) => {
                // A row: zeros of its vector's shape, seen as a row.
                let v = Type::Array(el.clone(), 1);
                let col = self.prim(Prim::Adjoint, vec![x], v.clone());
                let z = self.prim(Prim::ZeroTangent, vec![col], v);
                Some(self.prim(Prim::Adjoint, vec![z], fty))
            }
            (Type::Ref(inner), Type::Ref(elem)) => {
                let content = self.prim(Prim::RefGet, vec![x], (**elem).clone());
                let z = match self.zero_fdata(content, elem) {
                    Some(z) => z,
                    None => self.zero_rdata(inner),
                };
                Some(self.prim(Prim::RefNew, vec![z], fty.clone()))
            }
            (Type::Ref(inner), _) if **inner == zy_ir::tangent_type(ty) => {
                // A mutable struct: a box holding the named tuple of its fields' gradients.
                let z = self.prim(Prim::ZeroTangent, vec![x], (**inner).clone());
                Some(self.prim(Prim::RefNew, vec![z], fty.clone()))
            }
            (Type::Ref(inner), _) => {
                // A mutable struct with fields that are boxes themselves: theirs, made fresh
                // from those fields, beside zero gradients of the others.
                let ftys = ty.field_types().unwrap_or_default();
                let slots = inner.field_types().unwrap_or_default();
                let mut parts = Vec::new();
                for (i, (ft, slot)) in ftys.iter().zip(&slots).enumerate() {
                    let xi = self.prim(
                        Prim::GetField,
                        vec![x.clone(), Const::Int(i as i64 + 1).into()],
                        ft.clone(),
                    );
                    let boxed = crate::tangent::is_box(ft);
                    parts.push(
                        match boxed.then(|| self.zero_fdata(xi.clone(), ft)).flatten() {
                            Some(z) => z,
                            None if *slot == Type::Nothing => Const::Nothing.into(),
                            None => self.prim(Prim::ZeroTangent, vec![xi], slot.clone()),
                        },
                    );
                }
                let z = self.rebuild(inner, parts);
                Some(self.prim(Prim::RefNew, vec![z], fty.clone()))
            }
            _ => {
                // A composite holding mutable parts: the shadow of each field.
                let ftys = ty.field_types().unwrap_or_default();
                let mut parts = Vec::new();
                for (i, ft) in ftys.iter().enumerate() {
                    let xi = self.prim(
                        Prim::GetField,
                        vec![x.clone(), Const::Int(i as i64 + 1).into()],
                        ft.clone(),
                    );
                    parts.push(self.zero_fdata(xi, ft).unwrap_or(Const::Nothing.into()));
                }
                Some(self.rebuild(&fty, parts))
            }
        }
    }

    /// Build a tuple or named tuple of type `ty` from its parts.
    pub fn rebuild(&mut self, ty: &Type, parts: Vec<Operand>) -> Operand {
        match ty {
            Type::NamedTuple(fs) => {
                let names: Vec<Const> = fs.iter().map(|(n, _)| Const::Symbol(n.clone())).collect();
                let mut args = vec![Operand::Const(Const::Tuple(names.into()))];
                args.extend(parts);
                self.prim(Prim::NamedTuple, args, ty.clone())
            }
            _ => self.prim(Prim::Tuple, parts, ty.clone()),
        }
    }

    /// The tuple or named tuple `x` of type `ty` with part `i` replaced by `part`.
    pub fn replace(&mut self, ty: &Type, x: Operand, i: usize, part: Operand) -> Operand {
        let n = ty.field_types().map_or(0, |f| f.len());
        let parts = (0..n)
            .map(|j| {
                if j == i {
                    part.clone()
                } else {
                    self.field(x.clone(), j, ty)
                }
            })
            .collect();
        self.rebuild(ty, parts)
    }

    /// A gradient of type `ty` (an rdata tuple or named tuple) that is zero except for part `i`.
    pub fn one_hot(&mut self, ty: &Type, i: usize, part: Operand) -> Operand {
        let ftys = ty.field_types().unwrap_or_default();
        let mut parts = Vec::new();
        for (j, ft) in ftys.iter().enumerate() {
            parts.push(if j == i {
                part.clone()
            } else {
                self.zero_rdata(ft)
            });
        }
        self.rebuild(ty, parts)
    }
}

fn is_zero(op: &Operand) -> bool {
    match op.as_const() {
        Some(Const::F32(bits)) => f32::from_bits(*bits) == 0.0,
        c => c.and_then(Const::as_f64) == Some(0.0),
    }
}

/// Is `op` the literal `0.0` (a structural zero tangent)?
pub fn is_zero_literal(op: &Operand) -> bool {
    is_zero(op)
}

/// A statement as the forward rule sees it.
pub struct FwdStmt<'s> {
    pub op: &'s Op,
    /// Forward-side operands.
    pub args: Vec<Operand>,
    /// Their shadows (forward side), where their types have fdata.
    pub shadows: Vec<Option<Operand>>,
    pub arg_tys: Vec<Type>,
    pub ty: Type,
    /// Whether the statement needs a reverse (its residuals are kept).
    pub active: bool,
    /// Whether each operand depends differentiably on a differentiated argument, an array
    /// built from constants only counting as a constant (the activity's `carries`).
    pub varied: Vec<bool>,
    /// For a call: the arguments active at it (those that vary), whose adjoint it calls.
    pub mask: ArgMask,
}

impl FwdStmt<'_> {
    /// The shadow of operand `i`, or `nothing` where it has none.
    pub fn shadow(&self, i: usize) -> Operand {
        self.shadows
            .get(i)
            .cloned()
            .flatten()
            .unwrap_or(Const::Nothing.into())
    }

    /// The shadow of operand `i` where it varies, else `nothing`: a rule keeping it does no
    /// reverse work for an operand that does not vary (see [`varies`]).
    pub fn varying_shadow(&self, i: usize) -> Operand {
        match self.varied.get(i) {
            Some(false) => Const::Nothing.into(),
            _ => self.shadow(i),
        }
    }
}

/// Does the operand whose kept shadow is `shadow` vary ([`FwdStmt::varying_shadow`])?
pub fn varies(shadow: &Operand) -> bool {
    !matches!(shadow, Operand::Const(Const::Nothing))
}

/// What a forward fragment produced.
pub struct FwdOut {
    /// The primal result.
    pub value: Operand,
    /// The result's shadow, if its type has fdata.
    pub shadow: Option<Operand>,
    /// Values the reverse fragment needs, in the order it expects them.
    pub residuals: Vec<Operand>,
}

/// A statement as the reverse rule sees it.
pub struct RevStmt<'s> {
    pub op: &'s Op,
    pub arg_tys: Vec<Type>,
    /// The statement's constant operands (`None` for SSA-value operands).
    pub consts: Vec<Option<Const>>,
    pub ty: Type,
    /// The residuals, pullback side, as the forward fragment listed them.
    pub residuals: Vec<Operand>,
    /// The result's rdata gradient, if its type has rdata.
    pub dy: Option<Operand>,
    /// For a call: the arguments active at it, which alone get rdata from its pullback.
    pub mask: ArgMask,
}

impl RevStmt<'_> {
    /// Residual `i`, as the forward fragment listed it.
    pub fn kept(&self, i: usize) -> Operand {
        self.residuals[i].clone()
    }

    /// No contribution to any operand (array operands' gradients go into their shadows).
    pub fn none(&self) -> Vec<Option<Operand>> {
        vec![None; self.arg_tys.len()]
    }

    /// Is operand `i` a Float64 (so that it gets an rdata gradient)?
    pub fn float_arg(&self, i: usize) -> bool {
        self.arg_tys.get(i) == Some(&Type::Float64)
    }
}

/// What forward rules share across one function: the callees whose adjoints the program
/// needs, and the shadows of the globals the function reaches.
pub struct Callees<'g> {
    /// The callees and the arguments active at their calls.
    pub wanted: Vec<(Arc<Instance>, ArgMask)>,
    /// The globals each function reaches.
    pub globals: &'g GlobalShadows,
    /// The shadow of each global this function reaches: a parameter of its forward function.
    pub global_shadows: FxHashMap<Name, Operand>,
}

/// The forward fragment of a statement.
pub fn forward(e: &mut Emit, s: FwdStmt, callees: &mut Callees) -> Result<FwdOut, AdError> {
    if s.active {
        objects::refuse_unsupported(e.span, s.op, &s.arg_tys, &s.ty)?;
    }
    if let Op::Prim(p) = s.op {
        let (p, at) = specfun::applied(*p, &s.args);
        let float = |i: usize| s.arg_tys.get(i).map(broadcast::elem) == Some(Type::Float64);
        specfun::refuse_underived(e.span, p, at > 0, |i| {
            s.active && float(i + at) && s.varied.get(i + at) == Some(&true)
        })?;
    }
    let out = match s.op {
        Op::Prim(p) if scalar::handles(*p) => scalar::forward(e, *p, &s),
        Op::Prim(p) => match rule(*p) {
            Some(r) => r.forward(e, &s)?,
            None if p.is_nondifferentiable() || !s.active => plain(e, &s),
            // Results that do not depend on the operand's value.
            None if matches!(p.info().diff, Diff::Constant | Diff::Convert) => plain(e, &s),
            None => return Err(unsupported(e.span, &format!("the primitive `{p}`"))),
        },
        Op::New(st) => data::forward_new(e, st, &s),
        Op::Invoke(inst) => calls::forward(e, inst, &s, callees)?,
        Op::Call(n) => return Err(unsupported(e.span, &format!("the untyped call `{n}`"))),
        Op::CallValue | Op::Closure(_) => return Err(unsupported(e.span, "untyped IR")),
        Op::Global(name) => match callees.global_shadows.get(name) {
            Some(shadow) => {
                let value = e.op(s.op.clone(), vec![], s.ty.clone());
                FwdOut {
                    value,
                    shadow: Some(shadow.clone()),
                    residuals: vec![],
                }
            }
            None => plain(e, &s),
        },
    };
    Ok(out)
}

/// The reverse fragment: one rdata contribution per operand (`None`: none).
pub fn reverse(e: &mut Emit, s: RevStmt) -> Vec<Option<Operand>> {
    match s.op {
        Op::Prim(p) if scalar::handles(*p) => scalar::reverse(e, *p, &s),
        Op::Prim(Prim::ToFloat32) => scalar::rounding_reverse(e, &s),
        Op::Prim(p) => match rule(*p) {
            Some(r) => (r.reverse)(e, &s),
            None => s.none(),
        },
        Op::New(_) => data::reverse_new(e, &s),
        Op::Invoke(_) => calls::reverse(e, &s),
        _ => s.none(),
    }
}

/// A primitive statement as its pushforward (frule) sees it: the operands with their tangents.
pub struct TanStmt {
    pub prim: Prim,
    pub args: Vec<Operand>,
    /// The operands' tangents (`None`: the operand has none, or it is a constant), of the
    /// types [`crate::forward::dual_type`] gives.
    pub tangents: Vec<Option<Operand>>,
    pub arg_tys: Vec<Type>,
    pub ty: Type,
}

impl TanStmt {
    /// The tangent of operand `i` (`None`: none, or a structural zero).
    pub fn tangent(&self, i: usize) -> Option<Operand> {
        self.tangents.get(i).cloned().flatten()
    }

    /// The tangent of operand `i`, a zero one materialised where it is a structural zero
    /// (`None` only if its type has no tangent).
    pub fn tangent_or_zero(&self, e: &mut Emit, i: usize) -> Option<Operand> {
        crate::forward::tangent_or_zero(e, &self.args[i], &self.arg_tys[i], self.tangent(i))
    }
}

/// What a pushforward produced: the primal result and its tangent (`None`: the result's type
/// has none, or it is a structural zero the caller materialises).
pub struct TanOut {
    pub value: Operand,
    pub tangent: Option<Operand>,
}

/// The pushforward of a primitive statement: its result and the result's tangent.
pub fn pushforward(e: &mut Emit, s: &TanStmt) -> Result<TanOut, AdError> {
    let p = s.prim;
    let (applied, at) = specfun::applied(p, &s.args);
    specfun::guard_underived(e, applied, at, &s.tangents);
    // A result that no tangent reaches (`zero_tangent` of a vector of Float32s, under `hvp`)
    // needs no rule of the operands' kind.
    let constant = p.is_nondifferentiable() || matches!(p.info().diff, Diff::Constant);
    if s.tangents.iter().any(Option::is_some) && !constant {
        objects::refuse_unsupported(e.span, &Op::Prim(p), &s.arg_tys, &s.ty)?;
    }
    if scalar::handles(p) {
        let value = e.prim(p, s.args.clone(), s.ty.clone());
        let tangent = match &s.ty {
            Type::Float64 | Type::Float32
                if s.ty == Type::Float32 || s.arg_tys.contains(&Type::Float32) =>
            {
                scalar::pushforward_in_float64(e, p, s, &value)
            }
            Type::Float64 => Some(scalar::pushforward(
                e,
                p,
                &s.args,
                &s.arg_tys,
                &value,
                &s.tangents,
            )),
            // Arithmetic on arrays is elementwise: the scalar rule, broadcast.
            Type::Array(..) | Type::Adjoint(_) => {
                let saved = e.bcast.replace(s.ty.clone());
                let elems: Vec<Type> = s.arg_tys.iter().map(broadcast::elem).collect();
                let t = scalar::pushforward(e, p, &s.args, &elems, &value, &s.tangents);
                e.bcast = saved;
                Some(t)
            }
            _ => None,
        };
        return Ok(TanOut { value, tangent });
    }
    if p == Prim::ToFloat32 {
        let value = e.prim(p, s.args.clone(), s.ty.clone());
        return Ok(TanOut {
            value,
            tangent: scalar::rounding_pushforward(e, s),
        });
    }
    if let Some(r) = rule(p) {
        let value = e.prim(p, s.args.clone(), s.ty.clone());
        let tangent = (r.pushforward)(e, s, &value);
        return Ok(TanOut { value, tangent });
    }
    if constant {
        let value = e.prim(p, s.args.clone(), s.ty.clone());
        return Ok(TanOut {
            value,
            tangent: None,
        });
    }
    if matches!(p, Prim::MakePullback | Prim::CallPullback) {
        // A `back` closure made in another function: a recursive function's, under `hvp`.
        return Err(unsupported(
            e.span,
            "a pullback closure in forward mode (forward over reverse of a recursive function is not supported yet)",
        ));
    }
    Err(unsupported(
        e.span,
        &format!("the primitive `{p}` in forward mode"),
    ))
}

/// The rule of one primitive that is not scalar arithmetic: what its forward pass keeps, how
/// its reverse turns the kept values and the result's gradient into the operands', how it
/// pushes a tangent forward, and the cases that test it, side by side (ChainRules' `rrule` and
/// `frule` beside their `test_rrule`, Mooncake's `rrule!!` beside its test case). Primitives
/// sharing a body (`first`, `last`) each have an entry calling it.
pub struct Rule {
    /// The primitive.
    pub prim: Prim,
    /// The forward fragment.
    pub keep: Keep,
    /// The reverse fragment: one rdata contribution per operand (`None`: none). Gradients of
    /// arrays and other mutable operands are added into their shadows, kept as residuals.
    pub reverse: ReverseFn,
    /// The pushforward: the result's tangent, given the statement and its primal result
    /// already emitted (`None`: its type has none, or it is a structural zero).
    pub pushforward: PushforwardFn,
    /// How the all-primitives tests (`tests/rules.rs`, `tests/forward.rs`) exercise the rule,
    /// on both engines, against finite differences.
    pub cases: &'static [Case],
}

/// What a rule's forward pass does.
#[derive(Clone, Copy)]
pub enum Keep {
    /// The primal operation, a fresh zero shadow for a result whose type has fdata, and, when
    /// the statement is active, the residuals this gives:
    /// `(emit, statement, result, its fresh shadow) -> residuals`.
    Residuals(ResidualsFn),
    /// The whole forward fragment, written out: for rules that read what the primal operation
    /// overwrites, or whose result's shadow is an operand's.
    Forward(ForwardFn),
}

/// The residuals of a [`Keep::Residuals`] rule: `(emit, statement, result, its fresh shadow)`.
pub type ResidualsFn =
    fn(&mut Emit, &FwdStmt, &Operand, Option<&Operand>) -> Result<Vec<Operand>, AdError>;

/// A written-out forward fragment.
pub type ForwardFn = fn(&mut Emit, &FwdStmt) -> Result<FwdOut, AdError>;

/// A reverse fragment: `(emit, statement) -> one contribution per operand`.
pub type ReverseFn = fn(&mut Emit, &RevStmt) -> Vec<Option<Operand>>;

/// A pushforward: `(emit, statement, primal result) -> the result's tangent`.
pub type PushforwardFn = fn(&mut Emit, &TanStmt, &Operand) -> Option<Operand>;

/// The forward fragment of a [`Keep::Residuals`] rule of `p`: the primal operation, a fresh
/// zero shadow, and `f`'s residuals when `s` is active.
pub fn residuals_forward(
    e: &mut Emit,
    s: &FwdStmt,
    p: Prim,
    f: ResidualsFn,
) -> Result<FwdOut, AdError> {
    let value = e.prim(p, s.args.clone(), s.ty.clone());
    let shadow = e.zero_fdata(value.clone(), &s.ty);
    let residuals = if s.active {
        f(e, s, &value, shadow.as_ref())?
    } else {
        vec![]
    };
    Ok(FwdOut {
        value,
        shadow,
        residuals,
    })
}

impl Rule {
    /// The forward fragment of `s`, a statement applying this rule's primitive.
    pub fn forward(&self, e: &mut Emit, s: &FwdStmt) -> Result<FwdOut, AdError> {
        match self.keep {
            Keep::Forward(f) => f(e, s),
            Keep::Residuals(f) => residuals_forward(e, s, self.prim, f),
        }
    }
}

/// The tables of [`Rule`]s, one per domain.
const TABLES: [&[Rule]; 4] = [arrays::RULES, factor::RULES, data::RULES, broadcast::RULES];

/// The rule of `p`, if it is a primitive other than scalar arithmetic with one here.
pub fn rule(p: Prim) -> Option<&'static Rule> {
    TABLES.into_iter().flatten().find(|r| r.prim == p)
}

/// `x`, or `nothing` when there is none: a residual slot that must keep its place.
fn or_nothing(x: Option<&Operand>) -> Operand {
    x.cloned().unwrap_or(Const::Nothing.into())
}

/// An operand of a rule's test point.
#[derive(Clone, Copy, Debug)]
pub enum TestArg {
    /// A Float64 argument (differentiated).
    Float(f64),
    /// An Int64 argument.
    Int(i64),
    /// A literal Int64 operand (a constant in the IR).
    LitInt(i64),
    /// A Bool argument.
    Bool(bool),
    /// A `Vector{Float64}` argument.
    Vector(&'static [f64]),
    /// A `Matrix{Float64}` argument: rows, columns, entries in column-major order.
    Matrix(usize, usize, &'static [f64]),
    /// A `Ref` holding a Float64.
    Ref(f64),
    /// A tuple of Float64s.
    Tuple(&'static [f64]),
    /// A literal function name (a broadcast's callee).
    Func(&'static str),
    /// A literal tuple of symbols (a named tuple's field names).
    Names(&'static [&'static str]),
}

/// A point where a rule's value and gradient must be Julia's (ChainRules') to the bit: NaN
/// matches NaN and the sign of a zero counts.
#[derive(Clone, Copy, Debug)]
pub struct Special {
    /// The operands.
    pub at: &'static [TestArg],
    /// The value.
    pub y: f64,
    /// Per non-literal operand, its gradient's entries (none for an Int).
    pub grad: &'static [&'static [f64]],
}

/// How the all-primitives test (`tests/rules.rs`) exercises a rule: on both engines, against
/// finite differences.
#[derive(Clone, Copy, Debug)]
pub enum Case {
    /// The primitive alone, applied to these operands.
    Apply(&'static [TestArg]),
    /// The gradient of `name` in the Julia source `src` at the Float64 arguments `args`, whose
    /// gradient program must contain the primitive: for rules that only differentiated code
    /// meets (tape operations, under nested differentiation) or whose operands no literal
    /// gives (named tuples, mutable structs).
    Program {
        src: &'static str,
        name: &'static str,
        args: &'static [f64],
    },
}

/// The test cases of the rule of `p` (scalar or not), as its entry lists them.
pub fn test_cases(p: Prim) -> Vec<Case> {
    if let Some(r) = scalar::rule(p) {
        return r.points.iter().map(|&a| Case::Apply(a)).collect();
    }
    rule(p).map_or(vec![], |r| r.cases.to_vec())
}

/// The special points of the rule of `p`.
pub fn special_points(p: Prim) -> &'static [Special] {
    scalar::rule(p).map_or(&[], |r| r.special)
}

/// Does `p` have a rule here (a reverse and a pushforward, scalar or not)?
pub fn has_rule(p: Prim) -> bool {
    scalar::handles(p) || rule(p).is_some()
}

/// How many entries of the rule tables (scalar or not) are `p`'s: one for a primitive with a
/// rule.
pub fn entries(p: Prim) -> usize {
    let scalar = SCALAR_RULES
        .iter()
        .chain(specfun::RULES)
        .filter(|r| r.prim == p)
        .count();
    scalar + TABLES.into_iter().flatten().filter(|r| r.prim == p).count()
}

/// An operation copied unchanged, with a zero shadow for a fresh mutable result.
fn plain(e: &mut Emit, s: &FwdStmt) -> FwdOut {
    let value = e.op(s.op.clone(), s.args.clone(), s.ty.clone());
    let shadow = e.zero_fdata(value.clone(), &s.ty);
    FwdOut {
        value,
        shadow,
        residuals: vec![],
    }
}

fn unsupported(span: Span, what: &str) -> AdError {
    AdError::new(span, format!("cannot differentiate {what}"))
}

/// The rdata type of operand `i`.
pub fn arg_rdata(s: &RevStmt, i: usize) -> Type {
    s.arg_tys.get(i).map(rdata_type).unwrap_or(Type::Nothing)
}
