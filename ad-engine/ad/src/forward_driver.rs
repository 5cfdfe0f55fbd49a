//! The gradient's driver `∇f` by forward mode, where the reverse transform cannot take `f`: a
//! gradient of a `hessian`, an `hvp` or a `gradient` of a recursive function, whose forward
//! pass makes `back` closures the reverse transform does not differentiate (forward mode does:
//! `forward/backs.rs`), or of a pullback that leaves a loop nest early. The gradient with
//! respect to every argument is one pushforward per number in it (a `Float64`, each entry of
//! an array of them, each such number in a tuple, named tuple or immutable struct) along the
//! unit direction, so forward over forward over reverse gives third derivatives where reverse
//! over forward over reverse cannot. Each gradient has its argument's shape as the reverse
//! driver's does (Zygote's convention: a struct's is a named tuple; an integer's `nothing`).
//! Used by the `gradient` builtin in user code ([`crate::expand`]) and by the top-level
//! gradient ([`forward_gradient_program`]).

use std::sync::Arc;

use zy_ir::{
    tangent_type, Block, BlockCall, Const, Function, Instance, Op, Operand, Prim, Span, SsaBuilder,
    Terminator, Type, TypedProgram,
};

use crate::forward::{add_pushforwards, dual_type, pushforward_key, pushforward_ret};
use crate::globals::GlobalShadows;
use crate::rules::Emit;
use crate::AdError;

/// Add to a copy of `prog` the driver `∇f` of `inst` computed by forward mode and the
/// pushforwards it calls (an `frule` of `source` overriding the function it names), for when
/// the reverse transform refused `inst` with `refusal` ([`AdError::nested_reverse`]). Where
/// forward mode cannot stand in either, the error is `refusal`'s, at its place, saying why.
pub fn forward_gradient_program(
    source: Option<&dyn crate::RuleSource>,
    prog: &TypedProgram,
    inst: &Arc<Instance>,
    refusal: AdError,
) -> Result<(Arc<Instance>, TypedProgram), AdError> {
    let mut out = prog.clone();
    add_forward_driver(source, &mut out, inst, refusal)?;
    Ok((crate::names::driver_instance(inst), out))
}

/// Insert into `prog` the driver `∇f` of `inst` by forward mode (see
/// [`forward_gradient_program`]), or `refusal` with why forward mode cannot take `inst`.
pub(crate) fn add_forward_driver(
    source: Option<&dyn crate::RuleSource>,
    prog: &mut TypedProgram,
    inst: &Arc<Instance>,
    refusal: AdError,
) -> Result<(), AdError> {
    let Some(func) = prog.functions.get(inst).cloned() else {
        return Err(refusal);
    };
    let globals = GlobalShadows::of(prog);
    let dret = crate::driver::driver_ret(&func, &globals);
    let refuse = |why: String| -> AdError {
        let mut e = refusal.clone();
        e.message = format!(
            "{}; nor can forward mode compute this gradient (one pushforward per input number): {why}",
            e.message
        );
        e
    };
    if !refusal.nested_reverse {
        return Err(refusal);
    }
    if !func.ret.is_float() {
        return Err(refuse(format!(
            "`{}` returns {}, not a Float64 or a Float32",
            inst.name, func.ret
        )));
    }
    let shapes = plan(inst, &dret).map_err(&refuse)?;
    // Forward mode runs `f` once per input number: where it may write to its arguments, each
    // run gets fresh copies of them as they were on entry; a global it may write, it cannot.
    let copying = crate::mutates::may_mutate(prog, inst);
    if copying {
        let writes = |what: String| {
            refuse(format!(
                "`{}` may write to {what}, and forward mode runs it once per input number",
                inst.name
            ))
        };
        if let Some((name, _)) = globals.reached(inst).first() {
            return Err(writes(format!("the global `{name}`")));
        }
        if let Some(t) = inst.args.iter().find(|t| !copyable(t)) {
            return Err(writes(format!(
                "an argument of type {t}, which it cannot copy for each run"
            )));
        }
    }
    let mask: Vec<bool> = shapes.iter().map(Option::is_some).collect();
    add_pushforwards(source, prog, inst, &mask)?;
    let dinst = crate::names::driver_instance(inst);
    let body = driver(&dinst, inst, &shapes, &dret, &globals, copying, func.span);
    zy_ir::debug_verify(&body, "a forward-mode gradient driver");
    prog.functions.insert(dinst, Arc::new(body));
    Ok(())
}

/// The numbers of a value that forward mode seeds one at a time: the shape of its tangent.
#[derive(Clone, Debug)]
enum Shape {
    /// A `Float64` or a `Float32` (this type).
    Number(Type),
    /// An array of `Float64` or `Float32` (of this type), one direction per entry.
    Array(Type),
    /// A tuple, named tuple or immutable struct of this type: its fields' shapes (`None`
    /// where a field has no tangent).
    Fields(Type, Vec<Option<Shape>>),
}

impl Shape {
    /// The shape of a value of type `t`: `Ok(None)` when it has no tangent, an error naming
    /// what forward mode cannot seed.
    fn of(t: &Type) -> Result<Option<Shape>, String> {
        if dual_type(t) == Type::Nothing {
            return Ok(None);
        }
        match t {
            t if t.is_float() => Ok(Some(Shape::Number(t.clone()))),
            Type::Array(e, _) if e.is_float() => Ok(Some(Shape::Array(t.clone()))),
            Type::Tuple(_) | Type::NamedTuple(_) => Shape::fields(t),
            Type::Struct(s) if !s.mutable => Shape::fields(t),
            _ => Err(format!(
                "an argument of type {t} (forward mode seeds numbers, arrays of Float64 or Float32, and tuples, named tuples and immutable structs of them)"
            )),
        }
    }

    fn fields(t: &Type) -> Result<Option<Shape>, String> {
        let parts = t
            .field_types()
            .unwrap_or_default()
            .iter()
            .map(Shape::of)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some(Shape::Fields(t.clone(), parts)))
    }
}

/// Per argument of `inst`, the shape whose gradient the driver returning `dret` computes:
/// `None` for an argument without gradient (an integer, one no gradient reaches) and for a
/// closure's or callable struct's own value, whose gradient is zero (the calls `gradient`,
/// `hvp` and `hessian` expand into read the other arguments', as Zygote's `gradient(f, x)`
/// returns none for `f`'s captures). An error says which argument forward mode cannot seed.
fn plan(inst: &Instance, dret: &Type) -> Result<Vec<Option<Shape>>, String> {
    let grads = dret
        .field_type(1)
        .and_then(Type::field_types)
        .unwrap_or_default();
    let own = usize::from(crate::names::has_callee_arg(inst));
    inst.args
        .iter()
        .zip(grads.iter())
        .enumerate()
        .map(|(i, (t, g))| {
            if i < own || *g == Type::Nothing {
                return Ok(None);
            }
            let shape = Shape::of(t)?;
            match dual_type(t) == *g {
                true => Ok(shape),
                false => Err(format!("an argument of type {t}")),
            }
        })
        .collect()
}

/// `∇f(args...) = (f(args...), (g₁, g₂, ...))`: for each number seeded in `shapes`, the
/// pushforward's `ẏ` along the direction that is 1 there and 0 elsewhere. The directions are
/// made once (arrays of zeros whose entries are set and reset around each call); a closure's
/// own gradient is its zero tangent.
fn driver(
    dinst: &Arc<Instance>,
    inst: &Arc<Instance>,
    shapes: &[Option<Shape>],
    dret: &Type,
    globals: &GlobalShadows,
    copying: bool,
    span: Span,
) -> Function {
    let mut f = Function::new(dinst.name.clone(), span);
    f.instance = Some(dinst.clone());
    f.ret = dret.clone();
    let args: Vec<Operand> = inst
        .args
        .iter()
        .map(|t| f.add_param(Block::ENTRY, t.clone(), span, None).into())
        .collect();
    let mut b = Build {
        sb: SsaBuilder::new(f),
        at: Block::ENTRY,
        span,
    };
    // The arguments as on entry, copied again for each run, where `f` may write to them.
    let entry: Vec<Option<Operand>> = inst
        .args
        .iter()
        .zip(&args)
        .map(|(t, x)| (copying && t.reaches_mutable()).then(|| b.fresh(x, t)))
        .collect();
    let ret = dret.field_type(0).cloned().unwrap_or(Type::Float64);
    let y = b.stmt(Op::Invoke(inst.clone()), args.clone(), ret.clone());
    let zeros: Vec<Option<Seed>> = args
        .iter()
        .zip(shapes)
        .map(|(x, s)| s.as_ref().map(|s| b.seed(x, s)))
        .collect();
    let directions: Vec<Option<Operand>> = zeros
        .iter()
        .map(|z| z.as_ref().map(|z| b.direction(z, &mut None)))
        .collect();
    let key = pushforward_key(
        inst,
        &shapes.iter().map(Option::is_some).collect::<Vec<_>>(),
    );
    let call = Call {
        key,
        inst,
        ret,
        args: &args,
        entry: &entry,
        zeros: &zeros,
        directions: &directions,
        globals,
    };
    let gty = dret.field_type(1).cloned().unwrap_or(Type::Nothing);
    let gtys = gty.field_types().unwrap_or_default();
    let mut parts = Vec::new();
    for (i, (x, gt)) in args.iter().zip(gtys.iter()).enumerate() {
        let g = match (&zeros[i], gt) {
            (Some(z), _) => b.gradient(&call, i, z, &mut Vec::new()),
            (None, Type::Nothing) => Const::Nothing.into(),
            (None, t) => b.prim(Prim::ZeroTangent, vec![x.clone()], t.clone()),
        };
        parts.push(g);
    }
    let gs = b.prim(Prim::Tuple, parts, gty);
    let r = b.prim(Prim::Tuple, vec![y, gs], dret.clone());
    b.sb.func.set_term(b.at, Terminator::Return(r), span);
    b.sb.finish()
}

/// A zero direction of one argument, as made: numbers (of this type) are literals, arrays
/// fresh zeros.
enum Seed {
    Number(Type),
    Array(Operand, Type),
    Fields(Type, Vec<Option<Seed>>),
}

/// The pushforward every seeded direction goes through.
struct Call<'a> {
    key: Arc<Instance>,
    inst: &'a Arc<Instance>,
    /// The function's result type, `Float64` or `Float32`: that of each `ẏ`.
    ret: Type,
    args: &'a [Operand],
    /// Copies of the arguments `f` may write to, as on entry, copied again for each run.
    entry: &'a [Option<Operand>],
    /// Each seeded argument's zero direction, as made and as an operand.
    zeros: &'a [Option<Seed>],
    directions: &'a [Option<Operand>],
    globals: &'a GlobalShadows,
}

/// A function built block by block: statements go to the end of `at`.
struct Build {
    sb: SsaBuilder,
    at: Block,
    span: Span,
}

impl Build {
    fn stmt(&mut self, op: Op, args: Vec<Operand>, ty: Type) -> Operand {
        self.emit().op(op, args, ty)
    }

    fn prim(&mut self, p: Prim, args: Vec<Operand>, ty: Type) -> Operand {
        self.stmt(Op::Prim(p), args, ty)
    }

    fn emit(&mut self) -> Emit<'_> {
        Emit {
            bcast: None,
            b: &mut self.sb,
            block: self.at,
            span: self.span,
        }
    }

    /// A copy of `x :: ty` whose arrays are fresh (see [`copyable`]).
    fn fresh(&mut self, x: &Operand, ty: &Type) -> Operand {
        match ty {
            _ if !ty.reaches_mutable() => x.clone(),
            Type::Array(..) => self.prim(Prim::Copy, vec![x.clone()], ty.clone()),
            _ => {
                let fts = ty.field_types().unwrap_or_default();
                let parts: Vec<Operand> = fts
                    .iter()
                    .enumerate()
                    .map(|(j, ft)| {
                        let xj = self.prim(Prim::GetField, vec![x.clone(), int(j + 1)], ft.clone());
                        self.fresh(&xj, ft)
                    })
                    .collect();
                match ty {
                    Type::Struct(s) => self.stmt(Op::New(s.clone()), parts, ty.clone()),
                    _ => self.emit().rebuild(ty, parts),
                }
            }
        }
    }

    /// The zero direction of `x` of shape `s`.
    fn seed(&mut self, x: &Operand, s: &Shape) -> Seed {
        match s {
            Shape::Number(t) => Seed::Number(t.clone()),
            Shape::Array(t) => {
                let z = self.prim(Prim::ZeroTangent, vec![x.clone()], dual_type(t));
                Seed::Array(z, t.clone())
            }
            Shape::Fields(t, parts) => {
                let fts = t.field_types().unwrap_or_default();
                let seeds = parts
                    .iter()
                    .enumerate()
                    .map(|(j, p)| {
                        let p = p.as_ref()?;
                        let ft = fts.get(j).cloned().unwrap_or(Type::Nothing);
                        let xj = self.prim(Prim::GetField, vec![x.clone(), int(j + 1)], ft);
                        Some(self.seed(&xj, p))
                    })
                    .collect();
                Seed::Fields(t.clone(), seeds)
            }
        }
    }

    /// The direction of `z`, its numbers zero but the one `one` names (the path of field
    /// indices to it, taken when used).
    fn direction(&mut self, z: &Seed, one: &mut Option<Vec<usize>>) -> Operand {
        match z {
            Seed::Number(t) => number(t, if one.take().is_some() { 1.0 } else { 0.0 }),
            Seed::Array(a, _) => a.clone(),
            Seed::Fields(t, seeds) => {
                let parts = seeds
                    .iter()
                    .enumerate()
                    .map(|(j, s)| match s {
                        None => Const::Nothing.into(),
                        Some(s) => {
                            let mut here = match one {
                                Some(path) if path.first() == Some(&j) => {
                                    one.take().map(|p| p[1..].to_vec())
                                }
                                _ => None,
                            };
                            self.direction(s, &mut here)
                        }
                    })
                    .collect();
                let dty = dual_type(t);
                self.emit().rebuild(&dty, parts)
            }
        }
    }

    /// The gradient with respect to argument `i`, whose zero direction is `z` at `path`
    /// within it.
    fn gradient(&mut self, call: &Call, i: usize, z: &Seed, path: &mut Vec<usize>) -> Operand {
        match z {
            Seed::Number(t) => {
                let seeds = Some(path.clone());
                let g = self.push(call, i, seeds);
                self.number_as(g, &call.ret, t)
            }
            Seed::Array(d, t) => {
                let g = self.prim(Prim::ZeroTangent, vec![d.clone()], tangent_type(t));
                let n = self.prim(Prim::Length, vec![d.clone()], Type::Int64);
                // for j in 1:n: d[j] = 1; g[j] = ẏ along the directions; d[j] = 0
                let e = t.elem().cloned().unwrap_or(Type::Float64);
                self.count_to(n, |b, j| {
                    let set = |b: &mut Build, v: f64| {
                        b.prim(
                            Prim::SetIndex,
                            vec![d.clone(), number(&e, v), j.clone()],
                            e.clone(),
                        );
                    };
                    set(b, 1.0);
                    let gj = b.push(call, i, None);
                    let gj = b.number_as(gj, &call.ret, &e);
                    set(b, 0.0);
                    b.prim(Prim::SetIndex, vec![g.clone(), gj, j.clone()], e.clone());
                });
                g
            }
            Seed::Fields(t, seeds) => {
                let parts = seeds
                    .iter()
                    .enumerate()
                    .map(|(j, s)| match s {
                        None => Const::Nothing.into(),
                        Some(s) => {
                            path.push(j);
                            let g = self.gradient(call, i, s, path);
                            path.pop();
                            g
                        }
                    })
                    .collect();
                let gty = tangent_type(t);
                self.emit().rebuild(&gty, parts)
            }
        }
    }

    /// `ẏ` of the pushforward along the zero directions, argument `i`'s replaced by the one
    /// with a 1 at `one` (a path within it) if given.
    fn push(&mut self, call: &Call, i: usize, one: Option<Vec<usize>>) -> Operand {
        let mut operands = Vec::new();
        for (k, x) in call.args.iter().enumerate() {
            let x = match &call.entry[k] {
                Some(saved) => self.fresh(saved, &call.inst.args[k]),
                None => x.clone(),
            };
            operands.push(x);
            let Some(d) = &call.directions[k] else {
                continue;
            };
            match (&one, &call.zeros[k]) {
                (Some(path), Some(z)) if k == i => {
                    let d = self.direction(z, &mut Some(path.clone()));
                    operands.push(d);
                }
                _ => operands.push(d.clone()),
            }
        }
        let mut e = self.emit();
        operands.extend(crate::forward::global_tangents(
            &mut e,
            call.globals,
            call.inst,
        ));
        let rty = pushforward_ret(&call.ret);
        let r = self.stmt(Op::Invoke(call.key.clone()), operands, rty);
        self.prim(Prim::GetField, vec![r, int(2)], call.ret.clone())
    }

    /// The float `x` of type `from` as one of type `to`: a Float32 `ẏ` widened for a Float64
    /// argument's gradient, a Float64 one rounded for a Float32 argument's (Zygote's `ProjectTo`).
    fn number_as(&mut self, x: Operand, from: &Type, to: &Type) -> Operand {
        match (from, to) {
            (Type::Float32, Type::Float64) => self.prim(Prim::Float, vec![x], Type::Float64),
            (Type::Float64, Type::Float32) => self.prim(Prim::ToFloat32, vec![x], Type::Float32),
            _ => x,
        }
    }

    /// `for j in 1:n; body(j); end`, continuing after the loop.
    fn count_to(&mut self, n: Operand, body: impl FnOnce(&mut Build, Operand)) {
        let span = self.span;
        let f = &mut self.sb.func;
        let (header, inside, exit) = (f.add_block(), f.add_block(), f.add_block());
        let jump = |to: Block, k: Operand| {
            Terminator::Jump(BlockCall {
                block: to,
                args: vec![k],
            })
        };
        f.set_term(self.at, jump(header, int(0)), span);
        let k: Operand = f.add_param(header, Type::Int64, span, None).into();
        self.at = header;
        let c = self.prim(Prim::Lt, vec![k.clone(), n], Type::Bool);
        self.sb.func.set_term(
            header,
            Terminator::Branch {
                cond: c,
                then_to: BlockCall::new(inside),
                else_to: BlockCall::new(exit),
            },
            span,
        );
        self.at = inside;
        let j = self.prim(Prim::Add, vec![k, int(1)], Type::Int64);
        body(self, j.clone());
        self.sb.func.set_term(self.at, jump(header, j), span);
        self.at = exit;
    }
}

/// Can [`Build::fresh`] copy a value of type `t`: its objects are arrays of immutable values,
/// in tuples, named tuples and immutable structs?
fn copyable(t: &Type) -> bool {
    match t {
        Type::Array(e, _) => !e.reaches_mutable(),
        Type::Struct(s) if s.mutable => false,
        Type::Tuple(_) | Type::NamedTuple(_) | Type::Struct(_) => {
            t.field_types().unwrap_or_default().iter().all(copyable)
        }
        _ => !t.reaches_mutable(),
    }
}

fn int(i: usize) -> Operand {
    Const::Int(i as i64).into()
}

/// The literal `v` as a number of the float type `t`.
fn number(t: &Type, v: f64) -> Operand {
    match t {
        Type::Float32 => Const::f32(v as f32).into(),
        _ => Const::f64(v).into(),
    }
}
