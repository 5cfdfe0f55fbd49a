//! Rules: for each operation, its forward fragment (the primal operation, a shadow for a fresh
//! mutable result, the residuals the reverse needs) and its reverse fragment (IR computing the
//! operands' gradient contributions from the residuals and the result's gradient).
//!
//! One file per domain. A rule sees forward-side operands in a [`FwdStmt`] and pullback-side
//! operands in a [`RevStmt`], and emits IR through [`Emit`]; the transform moves residuals
//! between the two (slots or stacks). A scalar rule is one [`ScalarRule`] entry: what it keeps,
//! how it reverses and its test points, side by side; the rules of the other domains list their
//! test points in their `CASES`. Which primitives need a rule is the primitive table's
//! [`Diff::Rule`]; `tests/rules.rs` checks every one of them.

mod arrays;
mod broadcast;
mod calls;
mod data;
mod factor;
mod scalar;

use std::collections::HashMap;
use std::sync::Arc;

use zy_ir::{Block, Const, Diff, Instance, Name, Op, Operand, Prim, Span, SsaBuilder, Stmt, Type};

use crate::globals::GlobalShadows;

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
                let rty = match shape {
                    Type::Array(_, n) => Type::Array(Arc::new(ty), *n),
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
        let fty = ty
            .field_types()
            .and_then(|fs| fs.get(i).cloned())
            .unwrap_or(Type::Nothing);
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
            Type::Nothing => Const::Nothing.into(),
            _ => self.prim(Prim::Accum, vec![a, b], ty.clone()),
        }
    }

    /// The zero rdata of type `ty` (a literal where possible).
    pub fn zero_rdata(&mut self, ty: &Type) -> Operand {
        match ty {
            Type::Float64 => Const::f64(0.0).into(),
            Type::Nothing => Const::Nothing.into(),
            _ => self.prim(Prim::ZeroTangent, vec![], ty.clone()),
        }
    }

    /// A fresh zero shadow for the primal `x` of type `ty` (`None` if `ty` has no fdata).
    pub fn zero_fdata(&mut self, x: Operand, ty: &Type) -> Option<Operand> {
        let fty = fdata_type(ty);
        match (&fty, ty) {
            (Type::Nothing, _) => None,
            (_, Type::Array(..)) => Some(self.prim(Prim::ZeroTangent, vec![x], fty)),
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
            (Type::Ref(inner), _) => {
                // A mutable struct: a box holding the named tuple of its fields' gradients.
                let z = self.prim(Prim::ZeroTangent, vec![x], (**inner).clone());
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
    op.as_const().and_then(Const::as_f64) == Some(0.0)
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
}

/// What forward rules share across one function: the callees whose adjoints the program
/// needs, and the shadows of the globals the function reaches.
pub struct Callees<'g> {
    pub wanted: Vec<Arc<Instance>>,
    /// The globals each function reaches.
    pub globals: &'g GlobalShadows,
    /// The shadow of each global this function reaches: a parameter of its forward function.
    pub global_shadows: HashMap<Name, Operand>,
}

/// The forward fragment of a statement.
pub fn forward(e: &mut Emit, s: FwdStmt, callees: &mut Callees) -> Result<FwdOut, AdError> {
    let out = match s.op {
        Op::Prim(p) if scalar::handles(*p) => scalar::forward(e, *p, &s),
        Op::Prim(p) if data::handles(*p) => data::forward(e, *p, &s),
        Op::Prim(p) if arrays::handles(*p) => arrays::forward(e, *p, &s)?,
        Op::Prim(p) if factor::handles(*p) => factor::forward(e, *p, &s)?,
        Op::Prim(Prim::Broadcast) if s.active => broadcast::forward(e, &s)?,
        Op::New(st) => data::forward_new(e, st, &s),
        Op::Invoke(inst) => calls::forward(e, inst, &s, callees)?,
        Op::Prim(p) if p.is_nondifferentiable() || !s.active => plain(e, &s),
        // Results that do not depend on the operand's value.
        Op::Prim(p) if p.info().diff == Diff::Constant => plain(e, &s),
        Op::Prim(p) => return Err(unsupported(e.span, &format!("the primitive `{p}`"))),
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
        Op::Prim(p) if data::handles(*p) => data::reverse(e, *p, &s),
        Op::Prim(p) if arrays::handles(*p) => arrays::reverse(e, *p, &s),
        Op::Prim(p) if factor::handles(*p) => factor::reverse(e, *p, &s),
        Op::Prim(Prim::Broadcast) => broadcast::reverse(e, &s),
        Op::New(_) => data::reverse_new(e, &s),
        Op::Invoke(_) => calls::reverse(e, &s),
        _ => vec![None; s.arg_tys.len()],
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

/// What a pushforward produced: the primal result and its tangent (`None`: the result's type
/// has none, or it is a structural zero the caller materialises).
pub struct TanOut {
    pub value: Operand,
    pub tangent: Option<Operand>,
}

/// The pushforward of a primitive statement: its result and the result's tangent.
pub fn pushforward(e: &mut Emit, s: &TanStmt) -> Result<TanOut, AdError> {
    let p = s.prim;
    if scalar::handles(p) {
        let value = e.prim(p, s.args.clone(), s.ty.clone());
        let tangent = match &s.ty {
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
    if data::handles(p) {
        return data::pushforward(e, s);
    }
    if arrays::handles(p) {
        return arrays::pushforward(e, s);
    }
    if p == Prim::Broadcast {
        return broadcast::pushforward(e, s);
    }
    if factor::handles(p) {
        return factor::pushforward(e, s);
    }
    if p.is_nondifferentiable() || matches!(p.info().diff, Diff::Constant) {
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

/// Does `p` have a pushforward here?
pub fn has_frule(p: Prim) -> bool {
    scalar::handles(p)
        || data::FRULES.contains(&p)
        || arrays::FRULES.contains(&p)
        || factor::FRULES.contains(&p)
        || p == Prim::Broadcast
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

/// The test cases of the rule of `p` (scalar or not), as its rule file lists them.
pub fn test_cases(p: Prim) -> Vec<Case> {
    if let Some(r) = scalar::rule(p) {
        return r.points.iter().map(|&a| Case::Apply(a)).collect();
    }
    [arrays::CASES, factor::CASES, data::CASES, broadcast::CASES]
        .into_iter()
        .flatten()
        .filter(|(q, _)| *q == p)
        .map(|(_, c)| *c)
        .collect()
}

/// The special points of the rule of `p`.
pub fn special_points(p: Prim) -> &'static [Special] {
    scalar::rule(p).map_or(&[], |r| r.special)
}

/// Does `p` have a rule here?
pub fn has_rule(p: Prim) -> bool {
    scalar::handles(p)
        || data::handles(p)
        || arrays::handles(p)
        || factor::handles(p)
        || p == Prim::Broadcast
}

/// Does the scalar primitive `p` have a rule (so a wrapper function around it can be
/// differentiated)?
pub fn is_scalar_rule(p: Prim) -> bool {
    scalar::handles(p)
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
