//! Pullback closures (`make_pullback`, `call_pullback`) and in-place accumulation into shadow
//! arrays (`accum!`).
//!
//! A pullback value is a pointer to a box: word 0 holds the address of the pullback instance's
//! *adapter* (0 for a placeholder that is never called), the following words the tape's slots.
//! The adapter `(ctx, box, ȳ...) -> rdata...` loads the tape from the box and calls the
//! pullback, so a call site needs to know only the pullback's type, not which function made it.

use cranelift_codegen::ir::{condcodes::IntCC, types, AbiParam, InstBuilder};
use cranelift_frontend::FunctionBuilder;
use cranelift_module::{FuncId, Module};
use zy_ir::{Const, Function, Instance, Operand, Prim, Span, Type};

use super::{mem, ClValue, Env, Translator, R};
use crate::error::JitError;
use crate::layout::Layout;
use crate::runtime::site::SiteKind;

/// The message when a placeholder pullback (one never made by a forward pass) is called.
const UNREACHED: &str = "internal error: call of a pullback that was never recorded";

impl Translator<'_, '_, '_> {
    /// Translations of the pullback primitives and `accum!`.
    pub(super) fn pullbacks(
        &mut self,
        p: Prim,
        args: &[Operand],
        tys: &[Type],
        ty: &Type,
        span: Span,
    ) -> R<Option<Vec<ClValue>>> {
        Ok(Some(match (p, tys) {
            (Prim::MakePullback, [_, _, _]) if self.static_sig(ty).is_some() => {
                let inst = pullback_target(args, ty)?;
                let sp = self
                    .static_sig(ty)
                    .ok_or_else(|| JitError::invalid("static pullback"))?;
                if *sp.instance == inst {
                    self.operand_as(&args[2], &sp.tape)?
                } else {
                    // A placeholder no forward pass recorded: never called.
                    self.zeros(&sp.tape)?
                }
            }
            (Prim::CallPullback, [Type::Pullback(sig), _])
                if self.env.layout.static_pullback(sig).is_some() =>
            {
                let sp = self.env.layout.static_pullback(sig).cloned();
                let sp = sp.ok_or_else(|| JitError::invalid("static pullback"))?;
                // The closure is its tape: call the pullback directly.
                let call_args = [args[0].clone(), args[1].clone()];
                self.invoke(&sp.instance, &call_args, ty, span)?
            }
            (Prim::MakePullback, [_, _, tape_ty]) => {
                let inst = pullback_target(args, ty)?;
                let tape_ty = match self.env.prog.functions.get(&inst) {
                    Some(f) => f.args().first().map_or(Type::Nothing, |a| f.ty(*a).clone()),
                    None => tape_ty.clone(),
                };
                let tape = self.operand_as(&args[2], &tape_ty)?;
                let addr = match self.env.adapters.get(&inst) {
                    Some(&id) => {
                        let r = self.func_ref(id);
                        self.b.ins().func_addr(types::I64, r)
                    }
                    None => self.b.ins().iconst(types::I64, 0),
                };
                let bx = self.alloc_words(1 + tape.len())?;
                self.b.ins().store(mem(), addr, bx, 0);
                self.store_words(bx, 1, &tape);
                vec![bx]
            }
            (Prim::CallPullback, [Type::Pullback(sig), given]) => {
                let dy_ty = self
                    .check_pullback_targets(sig, ty)?
                    .unwrap_or_else(|| given.clone());
                let bx = self.pointer(&args[0])?;
                let dy = self.operand_as(&args[1], &dy_ty)?;
                let fptr = self.b.ins().load(types::I64, mem(), bx, 0);
                let missing = self.b.ins().icmp_imm_s(IntCC::Equal, fptr, 0);
                let site = self.site(span, SiteKind::Fail(UNREACHED.to_string()));
                let rt = self.env.rt.fail;
                let ctx = self.ctx();
                self.fail_if(missing, |t| {
                    t.call_rt(rt, &[ctx, site]);
                });
                let mut sig_cl = self.env.module.make_signature();
                sig_cl.params.extend([AbiParam::new(types::I64); 2]);
                for s in self.env.layout.slots(&dy_ty)? {
                    sig_cl.params.push(AbiParam::new(s.cl_type()));
                }
                for s in self.env.layout.slots(ty)? {
                    sig_cl.returns.push(AbiParam::new(s.cl_type()));
                }
                let sref = self.b.import_signature(sig_cl);
                let mut call_args = vec![ctx, bx];
                call_args.extend(dy);
                let depth = self.env.track_depth.then(|| self.enter_call(span));
                self.spill_fuel();
                let call = self.b.ins().call_indirect(sref, fptr, &call_args);
                let results = self.b.inst_results(call).to_vec();
                self.reload_fuel();
                if let Some(d) = depth {
                    self.b
                        .ins()
                        .store(mem(), d, ctx, crate::runtime::ctx_offset::DEPTH);
                }
                self.check_error();
                results
            }
            (Prim::AccumInto, [Type::Array(e, _) | Type::Adjoint(e), x])
                if **e == Type::Float64 =>
            {
                let dst = self.pointer(&args[0])?;
                match x {
                    Type::Nothing => {}
                    Type::Float64 => {
                        let xv = self.operand(&args[1])?[0];
                        let rt = self.env.rt.accum_into_scalar;
                        let fresh = self.fresh_flag();
                        self.call_rt(rt, &[dst, xv, fresh]);
                    }
                    Type::Array(xe, _) | Type::Adjoint(xe) if **xe == Type::Float64 => {
                        let src = self.pointer(&args[1])?;
                        let rt = self.env.rt.accum_into;
                        let fresh = self.fresh_flag();
                        let bad = self
                            .call_rt(rt, &[dst, src, fresh])
                            .ok_or_else(|| JitError::invalid("accum!"))?;
                        self.guarded(
                            bad,
                            &[],
                            |t| t.fallback(p, args, &Type::Bottom, span),
                            |_| Ok(vec![]),
                        )?;
                    }
                    _ => return Ok(None),
                }
                self.zeros(ty)?
            }
            _ => return Ok(None),
        }))
    }

    /// The scalar-replaced pullback of closure type `ty`, if it is one.
    fn static_sig(&self, ty: &Type) -> Option<crate::layout::StaticPullback> {
        match ty {
            Type::Pullback(sig) => self.env.layout.static_pullback(sig).cloned(),
            _ => None,
        }
    }

    /// Every pullback a `call_pullback` on `sig` may run must take the same cotangent type and
    /// return `ty`'s slots; returns that cotangent type (`None` if no pullback has this type).
    fn check_pullback_targets(&self, sig: &[Type], ty: &Type) -> R<Option<Type>> {
        let mut dy: Option<Type> = None;
        for inst in self.env.adapters.keys().filter(|i| *i.args == *sig) {
            let Some(f) = self.env.prog.functions.get(inst) else {
                continue;
            };
            let this = f.args().get(1).map(|a| f.ty(*a).clone());
            if f.ret != *ty || this.is_none() || (dy.is_some() && dy != this) {
                return Err(JitError::unsupported(format!(
                    "pullbacks of type Pullback{{{}}} with different signatures",
                    super::type_list(sig)
                )));
            }
            dy = this;
        }
        Ok(dy)
    }
}

/// The pullback instance a `make_pullback` names.
pub(crate) fn pullback_target(args: &[Operand], ty: &Type) -> R<Instance> {
    match (args, ty) {
        (
            [Operand::Const(Const::Func(name)), Operand::Const(Const::Int(m)), _],
            Type::Pullback(sig),
        ) => Ok(Instance {
            name: name.clone(),
            method: u32::try_from(*m).map_err(|_| JitError::invalid("pullback method index"))?,
            args: sig.clone(),
        }),
        _ => Err(JitError::invalid(
            "make_pullback without a constant function and method",
        )),
    }
}

/// Define the adapter of pullback `f` (compiled as `target`): `(ctx, box, ȳ...) -> ...`.
pub(crate) fn define_adapter(
    env: &mut Env<'_>,
    f: &Function,
    target: FuncId,
    mut b: FunctionBuilder<'_>,
) -> R<()> {
    let arg_tys: Vec<Type> = f.args().iter().map(|a| f.ty(*a).clone()).collect();
    let [tape_ty, dy_ty] = arg_tys.as_slice() else {
        return Err(JitError::invalid(format!(
            "pullback {} does not take (tape, ȳ)",
            f.name
        )));
    };
    let block = b.create_block();
    b.append_block_params_for_function_params(block);
    b.switch_to_block(block);
    let params = b.block_params(block).to_vec();
    let (ctx, bx) = (params[0], params[1]);
    let mut call_args = vec![ctx];
    for (k, s) in env.layout.slots(tape_ty)?.iter().enumerate() {
        call_args.push(b.ins().load(s.cl_type(), mem(), bx, ((k + 1) * 8) as i32));
    }
    let n_dy = env.layout.slots(dy_ty)?.len();
    call_args.extend_from_slice(&params[2..2 + n_dy]);
    let r = env.module.declare_func_in_func(target, b.func);
    let call = b.ins().call(r, &call_args);
    let results = b.inst_results(call).to_vec();
    b.ins().return_(&results);
    b.seal_all_blocks();
    b.finalize(env.module.target_config());
    Ok(())
}

/// The signature of the adapter of pullback `f`.
pub(crate) fn adapter_signature(
    module: &cranelift_jit::JITModule,
    layout: &Layout,
    f: &Function,
) -> R<cranelift_codegen::ir::Signature> {
    let mut sig = module.make_signature();
    sig.params.extend([AbiParam::new(types::I64); 2]);
    if let Some(dy) = f.args().get(1) {
        for s in layout.slots(f.ty(*dy))? {
            sig.params.push(AbiParam::new(s.cl_type()));
        }
    }
    for s in layout.slots(&f.ret)? {
        sig.returns.push(AbiParam::new(s.cl_type()));
    }
    Ok(sig)
}
