//! Translation of one typed IR function into Cranelift IR.
//!
//! Every IR value becomes the list of its slots ([`crate::layout`]); IR block parameters become
//! Cranelift block parameters. Each compiled function takes the call's [`Ctx`](crate::runtime::Ctx)
//! pointer first, then its arguments' slots, and returns its result's slots. After anything that
//! may fail (a call, a runtime function) the code checks the context's error word and, when it
//! is set, jumps to a *bail* block that returns zeros: errors never trap or unwind.

mod arrays;
mod broadcast;
mod calls;
mod construct;
mod control;
mod data;
mod domain;
mod factor;
mod fuse;
mod handlers;
mod objects;
pub(crate) mod pullbacks;
mod ranges;
mod scalar;
mod tape;
mod unions;
mod version;

use std::collections::HashMap;
use std::sync::Arc;

use cranelift_codegen::ir::{
    self, condcodes::IntCC, types, AbiParam, BlockArg, InstBuilder, MemFlagsData, Signature,
    StackSlotData, StackSlotKind,
};
use cranelift_frontend::FunctionBuilder;
use cranelift_jit::JITModule;
use cranelift_module::{FuncId, Module};
use zy_ir::{Block, Const, Function, Instance, Op, Operand, Prim, Span, Type, TypedProgram};

use crate::error::JitError;
use crate::layout::{Layout, Slot};
use crate::runtime::ctx_offset;
use crate::runtime::site::{Fallback, FallbackArg, Site, SiteKind};

type ClValue = ir::Value;
type R<T> = Result<T, JitError>;

/// The runtime functions imported into the module.
#[derive(Clone, Copy)]
pub(crate) struct RtFuncs {
    pub poll: FuncId,
    /// `zy_rt_catch(ctx)`: a `catch` takes the pending error (1) or leaves it (0).
    pub catch: FuncId,
    /// `zy_rt_the_exception(ctx)`: the exception the `catch` took, a held value's address.
    pub the_exception: FuncId,
    /// `zy_rt_string(ctx, site)`: a string constant, a held value's address.
    pub string: FuncId,
    /// `f(a, b, c)` as a call that keeps every register (where the target has one), for the
    /// cold paths.
    pub call_preserving: Option<FuncId>,
    pub stack_overflow: FuncId,
    pub fail: FuncId,
    pub alloc: FuncId,
    pub alloc_uninit: FuncId,
    pub stack_new: FuncId,
    pub stack_new_at: FuncId,
    pub stack_mark: FuncId,
    pub stack_release: FuncId,
    pub stack_grow: FuncId,
    pub fallback: FuncId,
    /// The runtime symbol of each elementary function of one Float64, indexed by primitive.
    pub math: [Option<FuncId>; Prim::ALL.len()],
    pub powi: FuncId,
    pub sincos: FuncId,
    pub accum_into: FuncId,
    pub accum_into_scalar: FuncId,
    pub accum_words: FuncId,
    pub sum: FuncId,
    pub sum_blocks: FuncId,
    pub extremum: FuncId,
    pub find_extremum: FuncId,
    pub dot: FuncId,
    pub matmul: FuncId,
    pub array_new: FuncId,
    pub array_new_uninit: FuncId,
    pub add_arrays: FuncId,
    pub copy_elems: FuncId,
    pub transpose: FuncId,
    pub matmul_tn: FuncId,
    pub matmul_op: FuncId,
    pub accum_outer: FuncId,
    pub matmul_accum: FuncId,
    pub accum_transposed: FuncId,
    pub setlength: FuncId,
    pub slice_copy: FuncId,
    pub accum_slice: FuncId,
    pub det: FuncId,
    pub logdet: FuncId,
    pub inv: FuncId,
    pub solve: FuncId,
    pub cholesky_lower: FuncId,
    pub band: FuncId,
}

impl RtFuncs {
    /// Declare the runtime's functions in `module`.
    pub fn declare(module: &mut JITModule) -> R<RtFuncs> {
        let p = types::I64;
        let call_preserving = match crate::runtime::preserve::symbol() {
            Some((name, _)) => {
                let mut sig = module.make_signature();
                sig.call_conv = cranelift_codegen::isa::CallConv::PreserveAll;
                sig.params.extend([AbiParam::new(p); 4]);
                Some(
                    module
                        .declare_function(name, cranelift_module::Linkage::Import, &sig)
                        .map_err(JitError::backend)?,
                )
            }
            None => None,
        };
        let sincos = {
            let mut sig = module.make_signature();
            sig.params.push(AbiParam::new(types::F64));
            sig.returns.extend([AbiParam::new(types::F64); 2]);
            module
                .declare_function("zy_rt_sincos", cranelift_module::Linkage::Import, &sig)
                .map_err(JitError::backend)?
        };
        let mut decl = |name: &str, params: &[ir::Type], ret: Option<ir::Type>| -> R<FuncId> {
            let mut sig = module.make_signature();
            sig.params.extend(params.iter().map(|t| AbiParam::new(*t)));
            sig.returns.extend(ret.map(AbiParam::new));
            module
                .declare_function(name, cranelift_module::Linkage::Import, &sig)
                .map_err(JitError::backend)
        };
        Ok(RtFuncs {
            poll: decl("zy_rt_poll", &[p, p], Some(p))?,
            catch: decl("zy_rt_catch", &[p], Some(p))?,
            the_exception: decl("zy_rt_the_exception", &[p], Some(p))?,
            string: decl("zy_rt_string", &[p, p], Some(p))?,
            call_preserving,
            stack_overflow: decl("zy_rt_stack_overflow", &[p, p], None)?,
            fail: decl("zy_rt_fail", &[p, p], None)?,
            alloc: decl("zy_rt_alloc", &[p, p], Some(p))?,
            alloc_uninit: decl("zy_rt_alloc_uninit", &[p, p], Some(p))?,
            stack_new: decl("zy_rt_stack_new", &[p], Some(p))?,
            stack_new_at: decl("zy_rt_stack_new_at", &[p, p], None)?,
            stack_mark: decl("zy_rt_stack_mark", &[p], Some(p))?,
            stack_release: decl("zy_rt_stack_release", &[p, p], None)?,
            stack_grow: decl("zy_rt_stack_grow", &[p, p, p], None)?,
            fallback: decl("zy_rt_fallback", &[p, p, p], None)?,
            math: {
                let mut math = [None; Prim::ALL.len()];
                for &prim in Prim::ALL {
                    if let Some(name) = crate::runtime::math::unary_symbol(prim) {
                        math[prim as usize] = Some(decl(name, &[types::F64], Some(types::F64))?);
                    }
                }
                math
            },
            powi: decl("zy_rt_powi", &[types::F64, p], Some(types::F64))?,
            sincos,
            accum_into: decl("zy_rt_accum_into", &[p, p, types::I8], Some(types::I8))?,
            accum_into_scalar: decl("zy_rt_accum_into_scalar", &[p, types::F64, types::I8], None)?,
            accum_words: decl("zy_rt_accum_words", &[p, p, p, types::I8], Some(types::I8))?,
            sum: decl("zy_rt_sum", &[p], Some(types::F64))?,
            sum_blocks: decl("zy_rt_sum_blocks", &[p, p, p], Some(types::F64))?,
            extremum: decl("zy_rt_extremum", &[p, types::I8], Some(types::F64))?,
            find_extremum: decl("zy_rt_find_extremum", &[p, types::I8], Some(types::I64))?,
            dot: decl("zy_rt_dot", &[p, p], Some(types::F64))?,
            matmul: decl("zy_rt_matmul", &[p, p, p, p, p], Some(p))?,
            array_new: decl("zy_rt_array_new", &[p, p, p, p], Some(p))?,
            array_new_uninit: decl("zy_rt_array_new_uninit", &[p, p, p, p], Some(p))?,
            add_arrays: decl("zy_rt_add_arrays", &[p, p, p], Some(p))?,
            copy_elems: decl("zy_rt_copy_elems", &[p, p], None)?,
            transpose: decl("zy_rt_transpose", &[p, p], Some(p))?,
            matmul_tn: decl("zy_rt_matmul_tn", &[p, p, p], Some(p))?,
            matmul_op: decl("zy_rt_matmul_op", &[p, p, types::I8, p, types::I8], Some(p))?,
            accum_outer: decl("zy_rt_accum_outer", &[p, p, p, types::I8], Some(types::I8))?,
            accum_transposed: decl(
                "zy_rt_accum_transposed",
                &[p, p, types::I8],
                Some(types::I8),
            )?,
            matmul_accum: decl(
                "zy_rt_matmul_accum",
                &[p, p, types::I8, p, types::I8, types::I8],
                Some(types::I8),
            )?,
            setlength: decl("zy_rt_setlength", &[p, p, p, p, p], Some(p))?,
            slice_copy: decl("zy_rt_slice_copy", &[p, p, p, p, p], Some(p))?,
            accum_slice: decl(
                "zy_rt_accum_slice",
                &[p, p, p, p, types::I8],
                Some(types::I8),
            )?,
            det: decl("zy_rt_det", &[p, p], Some(types::I8))?,
            logdet: decl("zy_rt_logdet", &[p, p], Some(types::I8))?,
            inv: decl("zy_rt_inv", &[p, p], Some(p))?,
            solve: decl("zy_rt_solve", &[p, p, p], Some(p))?,
            cholesky_lower: decl("zy_rt_cholesky_lower", &[p, p], Some(p))?,
            band: decl("zy_rt_band", &[p, p, p, types::I8], Some(p))?,
        })
    }
}

/// What translating a function may refer to outside itself.
pub(crate) struct Env<'a> {
    pub module: &'a mut JITModule,
    pub rt: RtFuncs,
    pub prog: &'a TypedProgram,
    /// The compiled function of every instance the function may invoke.
    pub funcs: &'a HashMap<Arc<Instance>, FuncId>,
    /// The adapter of every pullback instance a pullback closure may run.
    pub adapters: &'a HashMap<Arc<Instance>, FuncId>,
    /// The global bindings loaded, by slot in the context's global table.
    pub globals: &'a [zy_ir::Name],
    /// How values are laid out.
    pub layout: &'a Arc<Layout>,
    /// Sites created while translating; their addresses are baked into the code.
    #[allow(clippy::vec_box)]
    pub sites: &'a mut Vec<Box<Site>>,
    /// Whether functions keep the depth counter and the native stack check (programs with
    /// recursion).
    pub track_depth: bool,
}

/// The machine signature of a function taking `args` and returning `ret`.
pub(crate) fn signature(
    module: &JITModule,
    layout: &Layout,
    args: &[Type],
    ret: &Type,
) -> R<Signature> {
    let mut sig = module.make_signature();
    sig.params.push(AbiParam::new(types::I64));
    for a in args {
        sig.params.extend(
            layout
                .slots(a)?
                .into_iter()
                .map(|s| AbiParam::new(s.cl_type())),
        );
    }
    sig.returns.extend(
        layout
            .slots(ret)?
            .into_iter()
            .map(|s| AbiParam::new(s.cl_type())),
    );
    Ok(sig)
}

/// Trusted memory access (our own objects: aligned, never trapping).
pub(crate) fn mem() -> MemFlagsData {
    MemFlagsData::trusted()
}

/// The chains of broadcasts in `func` that run as one loop and the loops compiled twice for
/// their pushes, one comment line each (for the CLIF view).
pub(crate) fn clif_notes(func: &Function) -> Vec<String> {
    let mut notes = fuse::notes(func);
    notes.extend(version::notes(func));
    notes
}

/// Translate `func` into the builder's function (whose signature is already set).
pub(crate) fn translate(env: &mut Env<'_>, func: &Function, b: FunctionBuilder<'_>) -> R<()> {
    zy_ir::debug_verify(func, "the JIT's input");
    let mut t = Translator::new(env, func, b)?;
    t.body()?;
    t.b.seal_all_blocks();
    control::spread_cold(t.b.func);
    t.b.finalize(t.env.module.target_config());
    Ok(())
}

/// The state of translating one function.
pub(crate) struct Translator<'e, 'a, 'b> {
    pub env: &'e mut Env<'a>,
    pub func: &'e Function,
    pub b: FunctionBuilder<'b>,
    vals: Vec<Vec<ClValue>>,
    blocks: Vec<Option<ir::Block>>,
    rpo_index: Vec<usize>,
    ctx: ClValue,
    bail: ir::Block,
    refs: HashMap<FuncId, ir::FuncRef>,
    ret_slots: Vec<Slot>,
    /// For each value that may be an undefined local: the local's name.
    maybe_undef: Vec<Option<zy_ir::Name>>,
    /// The "is defined" flag (an I8) of each block parameter that may be undefined.
    defined: HashMap<zy_ir::Value, ClValue>,
    /// Translating the slow path of an inline check.
    in_slow_path: bool,
    /// The statement being translated may hold its domain checks back (see [`domain`]).
    hold_checks: bool,
    /// The domain checks held back so far in this block.
    held: Option<domain::Held>,
    /// Statement pairs compiled to one kernel.
    fused: HashMap<zy_ir::Value, fuse::Fused>,
    /// Zero tangents whose only reader before their one `accum!` is that `accum!`, and those
    /// `accum!`s: the array is left unzeroed and the `accum!` writes (see [`fuse::fresh`]).
    fresh: fuse::Fresh,
    /// The statement being translated.
    current: Option<zy_ir::Value>,
    /// Results computed ahead by a fused statement for a later one (`cos(x)` with `sin(x)`).
    ahead: HashMap<zy_ir::Value, ClValue>,
    /// The context's fuel, kept in a register by functions with loops (see
    /// [`Translator::burn_fuel`]).
    fuel: Option<cranelift_frontend::Variable>,
    /// The stacks this function pushes to or pops from, by IR value.
    stack_users: std::collections::HashSet<zy_ir::Value>,
    /// Registers mirroring such a stack's data pointer, length and capacity (see
    /// [`Translator::cache_stack`]).
    stacks: HashMap<zy_ir::Value, tape::StackRegs>,
    /// Array headers and checked element addresses of the current IR block.
    known: arrays::Known,
    /// The loops of the function.
    loops: Vec<control::Loop>,
    /// For each IR block: its innermost loop resizes no array (see [`control::steady_blocks`]).
    steady: Vec<bool>,
    /// The IR block being translated is steady.
    steady_block: bool,
    /// Element accesses whose index the loop's range proves in bounds (no check).
    proven: std::collections::HashSet<zy_ir::Value>,
    /// Exception handlers (see [`handlers`]).
    handlers: handlers::Handlers,
    /// Counted loops compiled twice, their pushes checked once at the entry (see [`version`]).
    versions: Vec<version::Versioned>,
    /// The stacks whose pushes skip the capacity check (while translating such a copy).
    reserved: std::collections::HashSet<zy_ir::Value>,
    /// Where a failure goes outside every `try`: the function returns with the error set.
    outer_bail: ir::Block,
}

impl<'e, 'a, 'b> Translator<'e, 'a, 'b> {
    fn new(env: &'e mut Env<'a>, func: &'e Function, mut b: FunctionBuilder<'b>) -> R<Self> {
        // Reverse post-order with a branch's last successor visited first: a loop's body is
        // laid out right after its header, and its exit after the body.
        let rpo = zy_ir::cfg::source_order(func);
        let mut rpo_index = vec![usize::MAX; func.blocks.len()];
        let mut blocks = vec![None; func.blocks.len()];
        for (i, blk) in rpo.iter().enumerate() {
            rpo_index[blk.index()] = i;
            blocks[blk.index()] = Some(b.create_block());
        }
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        let bail = b.create_block();
        b.set_cold_block(bail);
        let ctx = b.block_params(entry)[0];
        let ret_slots = env.layout.slots(&func.ret)?;
        let loops = control::loops(func, &rpo_index);
        let steady = control::steady_blocks(func, &loops);
        let maybe_undef = control::maybe_undef(func);
        let handlers = handlers::Handlers::new(func)?;
        let fused = fuse::plan(func);
        let versions = version::plan(
            func,
            &loops,
            &rpo_index,
            &maybe_undef,
            &handlers,
            &fused,
            || b.create_block(),
        );
        let mut t = Translator {
            env,
            func,
            b,
            vals: vec![Vec::new(); func.values.len()],
            blocks,
            rpo_index,
            ctx,
            bail,
            refs: HashMap::new(),
            ret_slots,
            maybe_undef,
            defined: HashMap::new(),
            in_slow_path: false,
            hold_checks: false,
            held: None,
            fused,
            ahead: HashMap::new(),
            fresh: fuse::fresh(func),
            current: None,
            fuel: None,
            stack_users: tape::stack_users(func),
            stacks: HashMap::new(),
            known: arrays::Known::default(),
            loops,
            steady,
            steady_block: false,
            proven: ranges::proven_in_bounds(func),
            handlers,
            versions,
            reserved: std::collections::HashSet::new(),
            outer_bail: bail,
        };
        t.b.switch_to_block(entry);
        Ok(t)
    }

    /// The prologue, then every reachable block in reverse post-order.
    fn body(&mut self) -> R<()> {
        let entry = self
            .b
            .current_block()
            .ok_or_else(|| JitError::invalid("no entry block"))?;
        let params: Vec<ClValue> = self.b.block_params(entry)[1..].to_vec();
        if self.has_loop() {
            let var = self.b.declare_var(types::I64);
            let f = self
                .b
                .ins()
                .load(types::I64, mem(), self.ctx, ctx_offset::FUEL);
            self.b.def_var(var, f);
            self.fuel = Some(var);
        }
        let first = self.block(Block::ENTRY)?;
        let args: Vec<BlockArg> = params.iter().map(|v| BlockArg::Value(*v)).collect();
        self.b.ins().jump(first, &args);
        for blk in zy_ir::cfg::source_order(self.func) {
            self.translate_block(blk)?;
        }
        self.fast_copies()?;
        self.landings()?;
        self.bail = self.outer_bail;
        self.b.switch_to_block(self.bail);
        let zeros: Vec<ClValue> = self
            .ret_slots
            .clone()
            .into_iter()
            .map(|s| self.zero(s))
            .collect();
        self.b.ins().return_(&zeros);
        Ok(())
    }

    /// Branch to a cold block running `fail` then bailing out when `bad` is nonzero.
    fn fail_if(&mut self, bad: ClValue, fail: impl FnOnce(&mut Self)) {
        let slow = self.b.create_block();
        let cont = self.b.create_block();
        self.b.set_cold_block(slow);
        self.b.ins().brif(bad, slow, &[], cont, &[]);
        self.b.switch_to_block(slow);
        fail(self);
        self.b.ins().jump(self.bail, &[]);
        self.b.switch_to_block(cont);
    }

    /// Return early when the context's error word is set.
    pub(crate) fn check_error(&mut self) {
        let e = self
            .b
            .ins()
            .load(types::I64, mem(), self.ctx, ctx_offset::ERROR);
        let cont = self.b.create_block();
        self.b.ins().brif(e, self.bail, &[], cont, &[]);
        self.b.switch_to_block(cont);
    }

    fn block(&self, blk: Block) -> R<ir::Block> {
        self.blocks
            .get(blk.index())
            .copied()
            .flatten()
            .ok_or_else(|| JitError::invalid(format!("jump to unreachable or missing block {blk}")))
    }

    fn translate_block(&mut self, blk: Block) -> R<()> {
        let cl_block = self.block(blk)?;
        self.b.switch_to_block(cl_block);
        // A failure inside a `try` goes to its handler's landing.
        self.bail = self.landing_of(blk)?;
        let in_try = self.bail != self.outer_bail;
        let data = self.func.block(blk);
        for &p in &data.params {
            let mut vs = Vec::new();
            for s in self.env.layout.slots(self.func.ty(p))? {
                vs.push(self.b.append_block_param(cl_block, s.cl_type()));
            }
            self.vals[p.index()] = vs;
            if self.maybe_undef[p.index()].is_some() {
                let flag = self.b.append_block_param(cl_block, types::I8);
                self.defined.insert(p, flag);
            }
        }
        self.exit_params(blk, cl_block)?;
        self.known.clear();
        self.steady_block = self.steady[blk.index()];
        for &v in &data.stmts {
            // Inside a `try` a held-back write is made before anything that may fail: the
            // `catch` sees it.
            if in_try || !self.keeps_pending(v) {
                self.flush_store();
            }
            // Inside a `try` every check is made where it stands: the handler sees the locals
            // as they are at the failing statement.
            let keeps_checks = !in_try && self.keeps_checks(v);
            if !keeps_checks {
                self.flush_checks();
            }
            if self.handlers.skips(v) {
                continue;
            }
            if let Some(stmt) = self.func.stmt(v) {
                if !matches!(stmt.op, Op::Prim(Prim::Push | Prim::IsDefinedLocal)) {
                    for a in &stmt.args {
                        self.check_defined(a, self.func.value(v).span)?;
                    }
                }
            }
            self.hold_checks = keeps_checks;
            let done = self.translate_stmt(v);
            self.hold_checks = false;
            done?;
            if !self
                .func
                .stmt(v)
                .is_some_and(|s| arrays::keeps_headers(&s.op))
            {
                self.known.clear();
            }
        }
        self.flush_store();
        self.flush_checks();
        self.terminator(blk)
    }

    fn translate_stmt(&mut self, v: zy_ir::Value) -> R<()> {
        let data = self.func.value(v);
        let stmt = self
            .func
            .stmt(v)
            .ok_or_else(|| JitError::invalid(format!("{v} is not a statement")))?;
        let (ty, span) = (data.ty.clone(), data.span);
        self.current = Some(v);
        let fused = self.fused.get(&v).cloned();
        self.known.stmt = match (&stmt.op, &fused) {
            (Op::Prim(Prim::GetIndex | Prim::SetIndex), None) => Some(v),
            _ => None,
        };
        let out = match (&stmt.op, fused) {
            // Its reader computes it (or makes it on its slow path).
            (_, Some(fuse::Fused::Absorbed)) => return Ok(()),
            (_, Some(f)) => self.fused_stmt(f, v, &stmt.op, &stmt.args, &ty, span)?,
            (op, None) => self.op(op, v, &stmt.args, &ty, span)?,
        };
        let expected = self.env.layout.slots(&ty)?.len();
        if out.len() != expected {
            return Err(JitError::invalid(format!(
                "{v}: produced {} slots for a {ty} ({expected} slots)",
                out.len()
            )));
        }
        self.vals[v.index()] = out;
        if self.stack_users.contains(&v) {
            self.cache_stack(v)?;
        }
        Ok(())
    }

    /// The slots of the result of statement `v`: `op` on `args`.
    fn op(
        &mut self,
        op: &Op,
        v: zy_ir::Value,
        args: &[Operand],
        ty: &Type,
        span: Span,
    ) -> R<Vec<ClValue>> {
        Ok(match op {
            Op::Prim(p) => self.prim(*p, args, ty, span)?,
            Op::New(s) => self.new_struct(s, args, ty)?,
            Op::Invoke(inst) => self.invoke(inst, args, ty, span)?,
            Op::Global(name) => self.global(name, ty, span)?,
            Op::Call(_) | Op::CallValue | Op::Closure(_) => {
                return Err(JitError::invalid(format!(
                    "{v}: untyped operation in typed IR"
                )))
            }
        })
    }

    /// Is the statement being translated the first write of an unzeroed array (see
    /// [`fuse::fresh`])? As a flag argument of the accumulation kernels.
    pub(crate) fn fresh_flag(&mut self) -> ClValue {
        let fresh = self.current.is_some_and(|v| self.fresh.accums.contains(&v));
        self.b.ins().iconst(types::I8, i64::from(fresh))
    }

    /// Does the statement being translated make an array that its first `accum!` will fill?
    pub(crate) fn makes_fresh(&self) -> bool {
        self.current.is_some_and(|v| self.fresh.zeros.contains(&v))
    }

    /// Give value `v` its slots (a statement absorbed by a fusion, made on a slow path).
    pub(crate) fn set_slots(&mut self, v: zy_ir::Value, slots: Vec<ClValue>) {
        self.vals[v.index()] = slots;
    }

    /// The slots of an operand, converted to type `to`.
    pub(crate) fn operand_as(&mut self, op: &Operand, to: &Type) -> R<Vec<ClValue>> {
        let from = self.func.operand_ty(op);
        let vs = self.operand(op)?;
        self.coerce(vs, &from, to)
    }

    /// The slots of an operand.
    pub(crate) fn operand(&mut self, op: &Operand) -> R<Vec<ClValue>> {
        match op {
            Operand::Value(v) if self.is_virtual_slice(op) => self.make_slice(*v),
            Operand::Value(v) => {
                if let Some((like, value)) = self.uniform(op) {
                    return self.make_uniform(&like, &value);
                }
                self.vals.get(v.index()).cloned().ok_or_else(|| {
                    JitError::invalid(format!("{v} is not a value of this function"))
                })
            }
            Operand::Const(c) => self.constant(c),
        }
    }

    fn constant(&mut self, c: &Const) -> R<Vec<ClValue>> {
        Ok(match c {
            Const::F64(bits) => vec![self.b.ins().f64const(f64::from_bits(*bits))],
            Const::F32(bits) => vec![self.b.ins().f64const(f64::from(f32::from_bits(*bits)))],
            Const::Int(i) => vec![self.b.ins().iconst(types::I64, *i)],
            Const::Bool(x) => vec![self.b.ins().iconst(types::I8, i64::from(*x))],
            // Singletons: their type is the value.
            Const::Nothing | Const::Func(_) | Const::Symbol(_) => vec![],
            Const::Str(s) => {
                let site = self.site(Span::default(), SiteKind::Str(s.to_string()));
                let rt = self.env.rt.string;
                let fref = self.func_ref(rt);
                let call = self.b.ins().call(fref, &[self.ctx, site]);
                vec![self.b.inst_results(call)[0]]
            }
            Const::Tuple(_) => {
                return Err(JitError::invalid(format!("constant {c:?} used as a value")))
            }
        })
    }

    /// Convert slots of a `from` value into those of a `to` value: the same type, a join's
    /// widening of numbers, `Union{}` (a value that does not exist at run time) to zeros, or a
    /// scalar-replaced pullback closure to its tape.
    pub(crate) fn coerce(&mut self, vs: Vec<ClValue>, from: &Type, to: &Type) -> R<Vec<ClValue>> {
        if from == to {
            return Ok(vs);
        }
        if let Type::Pullback(sig) = from {
            if self
                .env
                .layout
                .static_pullback(sig)
                .is_some_and(|sp| sp.tape == *to)
            {
                return Ok(vs);
            }
        }
        let one = |vs: &[ClValue]| {
            vs.first()
                .copied()
                .ok_or_else(|| JitError::invalid("missing slot"))
        };
        Ok(match (from, to) {
            (Type::Bottom, _) => self.zeros(to)?,
            (Type::Int64, Type::Float64) => {
                vec![self.b.ins().fcvt_from_sint(types::F64, one(&vs)?)]
            }
            (Type::Bool, Type::Int64) => vec![self.b.ins().uextend(types::I64, one(&vs)?)],
            (Type::Bool, Type::Float64) => {
                let i = self.b.ins().uextend(types::I64, one(&vs)?);
                vec![self.b.ins().fcvt_from_sint(types::F64, i)]
            }
            _ => {
                return Err(JitError::unsupported(format!(
                    "a {from} where a {to} is expected"
                )))
            }
        })
    }

    /// Zero slots of type `ty`.
    pub(crate) fn zeros(&mut self, ty: &Type) -> R<Vec<ClValue>> {
        Ok(self
            .env
            .layout
            .slots(ty)?
            .into_iter()
            .map(|s| self.zero(s))
            .collect())
    }

    fn zero(&mut self, s: Slot) -> ClValue {
        match s {
            Slot::F64 => self.b.ins().f64const(0.0),
            other => self.b.ins().iconst(other.cl_type(), 0),
        }
    }

    /// Register a site and return its address as a constant.
    pub(crate) fn site(&mut self, span: Span, kind: SiteKind) -> ClValue {
        let site = Box::new(Site { span, kind });
        let addr = &*site as *const Site as i64;
        self.env.sites.push(site);
        self.b.ins().iconst(types::I64, addr)
    }

    fn func_ref(&mut self, id: FuncId) -> ir::FuncRef {
        if let Some(r) = self.refs.get(&id) {
            return *r;
        }
        let r = self.env.module.declare_func_in_func(id, self.b.func);
        self.refs.insert(id, r);
        r
    }

    /// Call a runtime function; its single result, if any. After an allocation, the call
    /// returns early if memory ran out.
    pub(crate) fn call_rt(&mut self, id: FuncId, args: &[ClValue]) -> Option<ClValue> {
        let rt = &self.env.rt;
        let cold = [
            rt.poll,
            rt.fail,
            rt.stack_overflow,
            rt.stack_grow,
            rt.fallback,
            rt.stack_new_at,
        ];
        let out = match rt.call_preserving {
            // A cold path's call keeps every register (its outcome is in the context).
            Some(tr) if cold.contains(&id) && args.len() <= 3 => {
                let f = self.func_ref(id);
                let addr = self.b.ins().func_addr(types::I64, f);
                let zero = self.b.ins().iconst(types::I64, 0);
                let mut all = args.to_vec();
                all.resize(3, zero);
                all.push(addr);
                let r = self.func_ref(tr);
                self.b.ins().call(r, &all);
                None
            }
            _ => {
                let r = self.func_ref(id);
                let call = self.b.ins().call(r, args);
                self.b.inst_results(call).first().copied()
            }
        };
        let rt = &self.env.rt;
        let allocating = [
            rt.alloc,
            rt.alloc_uninit,
            rt.array_new,
            rt.array_new_uninit,
            rt.stack_grow,
            rt.matmul,
            rt.add_arrays,
            rt.transpose,
            rt.matmul_tn,
            rt.matmul_op,
            rt.inv,
            rt.solve,
            rt.cholesky_lower,
            rt.band,
        ];
        if allocating.contains(&id) {
            self.check_error();
        }
        out
    }

    /// The context pointer.
    pub(crate) fn ctx(&self) -> ClValue {
        self.ctx
    }

    /// Evaluate a primitive by the interpreter's semantics in the runtime: operands are
    /// spilled to a stack buffer, the result is read back from it.
    pub(crate) fn fallback(
        &mut self,
        prim: Prim,
        args: &[Operand],
        ret: &Type,
        span: Span,
    ) -> R<Vec<ClValue>> {
        if !self.in_slow_path && !interpreted_by_design(prim) {
            return Err(JitError::invalid(format!(
                "`{prim}` reached the interpreter fallback, but the primitive table declares it \
                 {:?} with no interpreted operand types",
                prim.info().jit
            )));
        }
        if !self.in_slow_path {
            self.refuse_mutating_fallback(prim, args)?;
            // Its error comes after those of the checks held back.
            self.flush_checks();
        }
        let mut fargs = Vec::new();
        let mut stores = Vec::new();
        let mut words = 0usize;
        for a in args {
            match a {
                Operand::Const(
                    c @ (Const::Symbol(_) | Const::Str(_) | Const::Tuple(_) | Const::Func(_)),
                ) => fargs.push(FallbackArg::Const(c.clone())),
                _ => {
                    let ty = self.func.operand_ty(a);
                    let vs = self.operand(a)?;
                    fargs.push(FallbackArg::Slots { ty, offset: words });
                    for v in vs {
                        stores.push((v, words));
                        words += 1;
                    }
                }
            }
        }
        let ret_slots = self.env.layout.slots(ret)?;
        let size = words.max(ret_slots.len()).max(1) * 8;
        let ss = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            size as u32,
            3,
        ));
        for (v, w) in stores {
            self.b.ins().stack_store(types::I64, v, ss, (w * 8) as i32);
        }
        let buf = self.b.ins().stack_addr(types::I64, ss, 0);
        let site = self.fallback_site(prim, fargs, ret, span, self.in_slow_path);
        let rt = self.env.rt.fallback;
        self.call_rt(rt, &[self.ctx, site, buf]);
        self.check_error();
        Ok(ret_slots
            .iter()
            .enumerate()
            .map(|(i, s)| {
                self.b
                    .ins()
                    .stack_load(types::I64, s.cl_type(), ss, (i * 8) as i32)
            })
            .collect())
    }
    /// Register the runtime's evaluation of `prim` on `args` (read from the operand buffer),
    /// giving a `ret`; `after_failed_check`: reached only when an inline check fails.
    pub(crate) fn fallback_site(
        &mut self,
        prim: Prim,
        args: Vec<FallbackArg>,
        ret: &Type,
        span: Span,
        after_failed_check: bool,
    ) -> ClValue {
        self.site(
            span,
            SiteKind::Fallback(Fallback {
                prim,
                args,
                ret: ret.clone(),
                layout: self.env.layout.clone(),
                after_failed_check,
            }),
        )
    }

    /// The object pointer `out` a runtime call returned, or where it is 0 (the call could not
    /// make it: sizes that differ, an index out of bounds, a singular matrix) the interpreter's
    /// `prim` on `args` in a cold path, which raises its error or returns its value.
    pub(crate) fn object_or_fallback(
        &mut self,
        out: ClValue,
        prim: Prim,
        args: &[Operand],
        ty: &Type,
        span: Span,
    ) -> R<Vec<ClValue>> {
        let failed = self.b.ins().icmp_imm_s(IntCC::Equal, out, 0);
        self.guarded(
            failed,
            &[types::I64],
            |t| t.fallback(prim, args, ty, span),
            |_| Ok(vec![out]),
        )
    }

    /// `fast` when `bad` is zero, otherwise `slow` (the interpreter's path, usually raising the
    /// error); both produce values of the slot types `tys`.
    pub(crate) fn guarded(
        &mut self,
        bad: ClValue,
        tys: &[ir::Type],
        slow: impl FnOnce(&mut Self) -> R<Vec<ClValue>>,
        fast: impl FnOnce(&mut Self) -> R<Vec<ClValue>>,
    ) -> R<Vec<ClValue>> {
        let slow_b = self.b.create_block();
        let fast_b = self.b.create_block();
        let join = self.b.create_block();
        self.b.set_cold_block(slow_b);
        let outs: Vec<ClValue> = tys
            .iter()
            .map(|t| self.b.append_block_param(join, *t))
            .collect();
        self.b.ins().brif(bad, slow_b, &[], fast_b, &[]);
        self.b.switch_to_block(slow_b);
        let outer = std::mem::replace(&mut self.in_slow_path, true);
        let s = slow(self);
        self.in_slow_path = outer;
        let s = s?;
        let sargs: Vec<BlockArg> = s.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(join, &sargs);
        self.b.switch_to_block(fast_b);
        let f = fast(self)?;
        let fargs: Vec<BlockArg> = f.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(join, &fargs);
        self.b.switch_to_block(join);
        Ok(outs)
    }

    /// Dispatch a primitive to its translation, or to the interpreter's semantics in the
    /// runtime when it has no inline translation for these operand types.
    pub(crate) fn prim(
        &mut self,
        p: Prim,
        args: &[Operand],
        ty: &Type,
        span: Span,
    ) -> R<Vec<ClValue>> {
        // A caught `BoundsError`'s object indexed: the interpreter keeps it where indexing
        // raised the error, compiled code's checks only the message.
        if p == Prim::ExceptionField
            && matches!(args.get(1), Some(Operand::Const(Const::Symbol(f))) if &**f == "a")
        {
            return Err(JitError::interpreted("`a` of a caught BoundsError"));
        }
        let tys: Vec<Type> = args.iter().map(|a| self.func.operand_ty(a)).collect();
        // Strings are held by the runtime: only the interpreter's primitives read them, and
        // only the data primitives move them around (a constant message, as `check_distinct`
        // takes, is read where the primitive is translated).
        let string_value = args
            .iter()
            .zip(&tys)
            .any(|(a, t)| a.as_value().is_some() && holds_string(t));
        if !interpreted_by_design(p) && !moves_slots(p) && (string_value || holds_string(ty)) {
            return Err(JitError::interpreted(format!("`{p}` of strings")));
        }
        if let Some(out) = self.scalar(p, args, &tys, ty, span)? {
            return Ok(out);
        }
        if let Some(out) = self.data(p, args, &tys, ty, span)? {
            return Ok(out);
        }
        if let Some(out) = self.objects(p, args, &tys, ty, span)? {
            return Ok(out);
        }
        if let Some(out) = self.arrays(p, args, &tys, ty, span)? {
            return Ok(out);
        }
        if let Some(out) = self.construct(p, args, &tys, ty, span)? {
            return Ok(out);
        }
        if let Some(out) = self.factor(p, args, &tys, ty, span)? {
            return Ok(out);
        }
        if p == Prim::Broadcast {
            if let Some(out) = self.broadcast(args, &tys, ty, span)? {
                return Ok(out);
            }
        }
        if let Some(out) = self.tape(p, args, &tys, ty, span)? {
            return Ok(out);
        }
        if let Some(out) = self.pullbacks(p, args, &tys, ty, span)? {
            return Ok(out);
        }
        if let Some(out) = self.unions(p, args, &tys, ty, span)? {
            return Ok(out);
        }
        match p {
            Prim::TheException => self.the_exception(),
            Prim::UndefField | Prim::CheckField | Prim::IsDefinedField => {
                Err(JitError::interpreted(
                    "a struct whose inner constructor leaves fields undefined (`new` with fewer \
                     arguments than fields)",
                ))
            }
            p if p.differentiates() => Err(JitError::unsupported(format!(
                "`{p}` before the AD transform rewrote it"
            ))),
            // The runtime works on copies of the operands: the table declares which primitives
            // neither mutate nor return (part of) an operand object, and may run there.
            p if interpreted_by_design(p) => self.fallback(p, args, ty, span),
            // An operation of a Float32 or a fixed-width integer without an inline
            // translation: the interpreter runs the program, computing it as Julia does.
            p if tys.iter().chain([ty]).any(is_single_or_sized) => Err(JitError::interpreted(
                format!("`{p}` on {}", type_list(&tys)),
            )),
            p => Err(JitError::unsupported(format!(
                "`{p}` on {}",
                type_list(&tys)
            ))),
        }
    }
}

/// Does the primitive table let codegen run `p` by the interpreter's code (on copies of the
/// operands) where it has no inline translation?
fn interpreted_by_design(p: Prim) -> bool {
    let info = p.info();
    info.jit == zy_ir::Jit::Interpreted || info.interpreted_for.is_some()
}

/// A Float32 or a fixed-width integer, which the JIT holds in the slot of a Float64 or an
/// Int64 (`layout`).
fn is_single_or_sized(t: &Type) -> bool {
    matches!(t, Type::Float32 | Type::Int(_))
}

/// Does a primitive only move its operands' slots (build or take apart tuples, structs, `Ref`s
/// and values of an abstract type, or read such a value's tag), so that a string among them may
/// pass through as its address?
fn moves_slots(p: Prim) -> bool {
    matches!(
        p,
        Prim::Tuple
            | Prim::NamedTuple
            | Prim::GetField
            | Prim::SetField
            | Prim::TupleIndex
            | Prim::RefNew
            | Prim::RefGet
            | Prim::RefSet
            | Prim::RefInit
            | Prim::UnionConvert
            | Prim::UnionIsa
    )
}

/// Does a value of type `t` hold a string (itself, or in a field or an element)?
fn holds_string(t: &Type) -> bool {
    match t {
        Type::String | Type::SubString => true,
        Type::Tuple(ts) => ts.iter().any(holds_string),
        Type::NamedTuple(fs) => fs.iter().any(|(_, t)| holds_string(t)),
        Type::Struct(s) => s.fields.iter().any(|(_, t)| holds_string(t)),
        Type::Union(u) => u.members.iter().any(holds_string),
        Type::Array(e, _) | Type::Ref(e) | Type::Stack(e) => holds_string(e),
        _ => false,
    }
}

/// `A, B, C` for messages.
pub(crate) fn type_list(tys: &[Type]) -> String {
    tys.iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
