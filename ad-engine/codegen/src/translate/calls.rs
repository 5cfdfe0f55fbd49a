//! Calls: of compiled instances (with the depth counter in recursive code), and of global
//! bindings' thunks (evaluated once per top-level call).

use std::sync::Arc;

use cranelift_codegen::ir::{condcodes::IntCC, types, BlockArg, InstBuilder};
use zy_ir::{Instance, Operand, Span, Type};

use super::{mem, ClValue, Translator, R};
use crate::error::JitError;
use crate::runtime::ctx_offset;
use crate::runtime::site::SiteKind;

impl Translator<'_, '_, '_> {
    /// Before a call in recursive code: one more frame; too many (or too little native stack
    /// left) is a `StackOverflowError` at the call, as in the interpreter. The call also burns
    /// fuel, so runaway recursion sees the deadline. Returns the depth to restore.
    pub(super) fn enter_call(&mut self, span: Span) -> ClValue {
        let ctx = self.ctx;
        let d = self.b.ins().load(types::I64, mem(), ctx, ctx_offset::DEPTH);
        let max = self
            .b
            .ins()
            .load(types::I64, mem(), ctx, ctx_offset::MAX_DEPTH);
        let deep = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, d, max);
        let sp = self.b.ins().get_stack_pointer(types::I64);
        let limit = self
            .b
            .ins()
            .load(types::I64, mem(), ctx, ctx_offset::STACK_LIMIT);
        let low = self.b.ins().icmp(IntCC::UnsignedLessThan, sp, limit);
        let bad = self.b.ins().bor(deep, low);
        let site = self.site(span, SiteKind::Plain);
        let rt = self.env.rt.stack_overflow;
        self.fail_if(bad, |t| {
            t.call_rt(rt, &[ctx, site]);
        });
        let d1 = self.b.ins().iadd_imm_s(d, 1);
        self.b.ins().store(mem(), d1, ctx, ctx_offset::DEPTH);
        // Recursion without loops must still see the deadline.
        self.burn_fuel(span);
        d
    }

    pub(super) fn invoke(
        &mut self,
        inst: &Arc<Instance>,
        args: &[Operand],
        ty: &Type,
        span: Span,
    ) -> R<Vec<ClValue>> {
        let callee = self
            .env
            .prog
            .functions
            .get(inst)
            .ok_or_else(|| JitError::invalid(format!("no typed body for {inst}")))?
            .clone();
        let id = *self
            .env
            .funcs
            .get(inst)
            .ok_or_else(|| JitError::invalid(format!("{inst} was not declared")))?;
        let params: Vec<Type> = callee
            .args()
            .iter()
            .map(|a| callee.ty(*a).clone())
            .collect();
        if args.len() != params.len() {
            return Err(JitError::invalid(format!(
                "{inst} called with {} arguments",
                args.len()
            )));
        }
        let mut call_args = vec![self.ctx];
        for (a, t) in args.iter().zip(&params) {
            let vs = self.operand_as(a, t)?;
            call_args.extend(vs);
        }
        let depth = self.env.track_depth.then(|| self.enter_call(span));
        let fref = self.func_ref(id);
        self.spill_fuel();
        let call = self.b.ins().call(fref, &call_args);
        let results = self.b.inst_results(call).to_vec();
        self.reload_fuel();
        if let Some(d) = depth {
            self.b.ins().store(mem(), d, self.ctx, ctx_offset::DEPTH);
        }
        self.check_error();
        self.coerce(results, &callee.ret, ty)
    }

    /// A global binding: evaluated by its thunk at first use in a call, then read from its box.
    /// The slot holds 0 before the first use and 1 while the thunk runs (a use then is an
    /// `UndefVarError`, as in the interpreter).
    pub(super) fn global(&mut self, name: &zy_ir::Name, ty: &Type, span: Span) -> R<Vec<ClValue>> {
        let index = self
            .env
            .globals
            .iter()
            .position(|g| g == name)
            .ok_or_else(|| JitError::invalid(format!("global `{name}` was not collected")))?;
        let key = crate::session::global_instance(name);
        let thunk = self
            .env
            .prog
            .globals
            .get(name)
            .cloned()
            .ok_or_else(|| JitError::invalid("global thunk"))?;
        let id = *self
            .env
            .funcs
            .get(&key)
            .ok_or_else(|| JitError::invalid("global thunk id"))?;
        let ctx = self.ctx;
        let table = self
            .b
            .ins()
            .load(types::I64, mem(), ctx, ctx_offset::GLOBALS);
        let at = (index * 8) as i32;
        let p = self.b.ins().load(types::I64, mem(), table, at);
        let ready = self.b.create_block();
        let compute = self.b.create_block();
        let have = self.b.create_block();
        let bx = self.b.append_block_param(ready, types::I64);
        let unset = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, p, 1);
        self.b.ins().brif(unset, compute, &[], have, &[]);
        self.b.switch_to_block(have);
        self.b.ins().jump(ready, &[BlockArg::Value(p)]);
        self.b.switch_to_block(compute);
        self.b.set_cold_block(compute);
        let running = self.b.ins().icmp_imm_s(IntCC::Equal, p, 1);
        let site = self.site(
            span,
            SiteKind::Fail(format!("UndefVarError: {name} not defined")),
        );
        let rt = self.env.rt.fail;
        self.fail_if(running, |t| {
            t.call_rt(rt, &[ctx, site]);
        });
        let one = self.b.ins().iconst(types::I64, 1);
        self.b.ins().store(mem(), one, table, at);
        let depth = self.env.track_depth.then(|| self.enter_call(span));
        let fref = self.func_ref(id);
        self.spill_fuel();
        let call = self.b.ins().call(fref, &[ctx]);
        let vals = self.b.inst_results(call).to_vec();
        self.reload_fuel();
        if let Some(d) = depth {
            self.b.ins().store(mem(), d, ctx, ctx_offset::DEPTH);
        }
        self.check_error();
        let vals = self.coerce(vals, &thunk.ret, ty)?;
        let boxed = self.alloc_words(vals.len())?;
        self.store_words(boxed, 0, &vals);
        let table = self
            .b
            .ins()
            .load(types::I64, mem(), ctx, ctx_offset::GLOBALS);
        self.b.ins().store(mem(), boxed, table, at);
        self.b.ins().jump(ready, &[BlockArg::Value(boxed)]);
        self.b.switch_to_block(ready);
        self.load_words(bx, 0, ty)
    }
}
