//! The gradient's driver `∇f` by forward mode, where the reverse transform cannot take `f`: a
//! gradient of a `hessian`, an `hvp` or a `gradient` of a recursive function, whose forward
//! pass makes `back` closures the reverse transform does not differentiate (forward mode does:
//! `forward/backs.rs`). The gradient with respect to `f`'s last argument `x` is one pushforward
//! per entry of `x` along the unit vector (a `Float64` `x`: one along `1.0`), so forward over
//! forward over reverse gives third derivatives where reverse over forward over reverse cannot.

use std::sync::Arc;

use zy_ir::{
    Block, BlockCall, Const, Function, Instance, Op, Operand, Prim, Span, Stmt, Terminator, Type,
};

/// Whether a forward-mode driver can stand for the reverse one of a function whose driver
/// returns `dret`: the gradient of the last argument, a `Float64`, a `Vector{Float64}` or a
/// tuple of those (`jacobian`'s rows take the gradient of a tuple), is all its callers read.
pub(crate) fn applies(inst: &Instance, dret: &Type) -> bool {
    let Some(grads) = dret.field_type(1).and_then(Type::field_types) else {
        return false;
    };
    let Some((last, lead)) = grads.split_last() else {
        return false;
    };
    // A closure's or callable struct's own value comes first; any other argument before `x`
    // must have no gradient.
    let own = usize::from(crate::names::has_callee_arg(inst));
    let plain = |t: &Type| *t == Type::Float64 || *t == Type::vector_f64();
    lead.iter().skip(own).all(|g| *g == Type::Nothing)
        && inst.args.last() == Some(last)
        && match last {
            Type::Tuple(ts) => ts.iter().all(plain),
            t => plain(t),
        }
}

/// `∇f(lead..., x) = (f(lead..., x), (0..., g))`: for each number in `x` (itself, a
/// vector's entry, a tuple's component), the pushforward `∂ᵥf(lead..., x, e)[2]` along the
/// direction `e` that is 1 there and 0 elsewhere (one zero direction per component, its entry
/// set and reset around each call). `vinst` is the directional driver `∂ᵥf`. The gradient of
/// a closure's or callable struct's own value (see [`applies`]) is zero: the calls
/// `gradient`, `hvp` and `hessian` expand into read `x`'s alone, as Zygote's `gradient(f, x)`
/// returns no gradient for `f`'s captures.
pub(crate) fn driver(
    dinst: &Arc<Instance>,
    inst: &Arc<Instance>,
    vinst: Arc<Instance>,
    dret: &Type,
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
    let (Some((x, lead)), Some(xty)) = (args.split_last(), inst.args.last()) else {
        return f;
    };
    let mut b = Build {
        f,
        at: Block::ENTRY,
        span,
    };
    let y = b.stmt(Op::Invoke(inst.clone()), args.clone(), Type::Float64);
    // The components of x, and a zero direction for each.
    let tys: Vec<Type> = match xty {
        Type::Tuple(ts) => ts.to_vec(),
        t => vec![t.clone()],
    };
    let tuple = matches!(xty, Type::Tuple(_));
    let mut comps = Vec::new();
    let mut zeros = Vec::new();
    for (c, t) in tys.iter().enumerate() {
        let v = match tuple {
            true => b.prim(Prim::GetField, vec![x.clone(), int(c + 1)], t.clone()),
            false => x.clone(),
        };
        zeros.push(match t {
            Type::Float64 => Const::f64(0.0).into(),
            _ => {
                let n = b.prim(Prim::Length, vec![v.clone()], Type::Int64);
                b.prim(Prim::Zeros, vec![n], t.clone())
            }
        });
        comps.push(v);
    }
    let mut grads = Vec::new();
    for (c, t) in tys.iter().enumerate() {
        // The pushforward along `zeros` with component c replaced by `dc`.
        let push = |b: &mut Build, dc: Operand| -> Operand {
            let mut dirs = zeros.clone();
            dirs[c] = dc;
            let dx = match tuple {
                true => b.prim(Prim::Tuple, dirs, xty.clone()),
                false => dirs.remove(0),
            };
            let mut call = args.clone();
            call.push(dx);
            let rty = Type::tuple([Type::Float64, Type::Float64]);
            let r = b.stmt(Op::Invoke(vinst.clone()), call, rty);
            b.prim(Prim::GetField, vec![r, int(2)], Type::Float64)
        };
        if *t == Type::Float64 {
            grads.push(push(&mut b, Const::f64(1.0).into()));
            continue;
        }
        let d = zeros[c].clone();
        let n = b.prim(Prim::Length, vec![comps[c].clone()], Type::Int64);
        let g = b.prim(Prim::Zeros, vec![n.clone()], t.clone());
        // for j in 1:n: d[j] = 1; g[j] = pushforward along d; d[j] = 0
        b.count_to(n, |b, j| {
            let set = |b: &mut Build, v: f64| {
                b.prim(
                    Prim::SetIndex,
                    vec![d.clone(), Const::f64(v).into(), j.clone()],
                    Type::Float64,
                );
            };
            set(b, 1.0);
            let gj = push(b, d.clone());
            set(b, 0.0);
            b.prim(
                Prim::SetIndex,
                vec![g.clone(), gj, j.clone()],
                Type::Float64,
            );
        });
        grads.push(g);
    }
    let gx = match tuple {
        true => b.prim(Prim::Tuple, grads, xty.clone()),
        false => grads.remove(0),
    };
    let gty = dret.field_type(1).cloned().unwrap_or(Type::Nothing);
    let lead_tys = gty.field_types().unwrap_or_default();
    let mut parts: Vec<Operand> = lead
        .iter()
        .zip(lead_tys)
        .map(|(a, t)| match t {
            Type::Nothing => Const::Nothing.into(),
            t => b.prim(Prim::ZeroTangent, vec![a.clone()], t),
        })
        .collect();
    parts.push(gx);
    let gs = b.prim(Prim::Tuple, parts, gty);
    let r = b.prim(Prim::Tuple, vec![y, gs], dret.clone());
    b.f.set_term(b.at, Terminator::Return(r), span);
    b.f
}

fn int(i: usize) -> Operand {
    Const::Int(i as i64).into()
}

/// A function built block by block: statements go to the end of `at`.
struct Build {
    f: Function,
    at: Block,
    span: Span,
}

impl Build {
    fn stmt(&mut self, op: Op, args: Vec<Operand>, ty: Type) -> Operand {
        self.f
            .push_stmt(self.at, Stmt { op, args }, ty, self.span)
            .into()
    }

    fn prim(&mut self, p: Prim, args: Vec<Operand>, ty: Type) -> Operand {
        self.stmt(Op::Prim(p), args, ty)
    }

    /// `for j in 1:n; body(j); end`, continuing after the loop.
    fn count_to(&mut self, n: Operand, body: impl FnOnce(&mut Build, Operand)) {
        let span = self.span;
        let (header, inside, exit) = (self.f.add_block(), self.f.add_block(), self.f.add_block());
        let jump = |to: Block, k: Operand| {
            Terminator::Jump(BlockCall {
                block: to,
                args: vec![k],
            })
        };
        self.f.set_term(self.at, jump(header, int(0)), span);
        let k: Operand = self.f.add_param(header, Type::Int64, span, None).into();
        self.at = header;
        let c = self.prim(Prim::Lt, vec![k.clone(), n], Type::Bool);
        self.f.set_term(
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
        self.f.set_term(self.at, jump(header, j), span);
        self.at = exit;
    }
}
