//! The JIT session: one long-lived Cranelift module into which instances are compiled, and the
//! compiled functions it hands out.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::inline::{Inline, InlineCommand};
use cranelift_codegen::ir::{types, AbiParam, ExternalName, InstBuilder, UserFuncName};
use cranelift_codegen::isa::{OwnedTargetIsa, TargetIsa};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{ArenaMemoryProvider, JITBuilder, JITModule};
use cranelift_module::{FuncId, Module, ModuleReloc};
use rustc_hash::{FxHashMap, FxHashSet};
use zy_interp::{Limits, RuntimeError, Value};
use zy_ir::{Function, Instance, Op, Type, TypedProgram};

use crate::convert::Tables;
use crate::error::JitError;
use crate::layout::{Layout, StaticPullback};
use crate::runtime::{self, Ctx, Site};
use crate::translate::{self, mem, pullbacks, signature, Env, RtFuncs};

/// The address space reserved for one session's code and data (see [`JitSession::new`]).
const ARENA_RESERVE: usize = 256 << 20;

/// The module and everything its code points to. Dropped (and its memory freed) when the
/// session and every compiled function from it are gone.
struct ModuleOwner {
    inner: Mutex<Inner>,
}

struct Inner {
    module: Option<JITModule>,
    /// The module's target with the single-pass register allocator, for large functions
    /// (see [`define`]).
    large: OwnedTargetIsa,
    rt: RtFuncs,
    /// Sites whose addresses are baked into the code.
    /// Boxed: their addresses are baked into the code while the vector grows.
    #[allow(clippy::vec_box)]
    sites: Vec<Box<Site>>,
}

// SAFETY: the module and the sites are only touched under the mutex; compiled code only reads
// sites, which never change after compilation.
unsafe impl Send for ModuleOwner {}
// SAFETY: as above.
unsafe impl Sync for ModuleOwner {}

impl Drop for ModuleOwner {
    fn drop(&mut self) {
        let inner = match self.inner.get_mut() {
            Ok(i) => i,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(module) = inner.module.take() {
            // SAFETY: no compiled function outlives the owner (each holds an `Arc` to it).
            unsafe { module.free_memory() };
        }
    }
}

/// A Cranelift JIT for typed IR: compiles instances (primal, forward or pullback alike) to
/// machine code. Compiling the same set of function bodies again reuses the earlier code.
pub struct JitSession {
    owner: Arc<ModuleOwner>,
    ctx: Context,
    fctx: FunctionBuilderContext,
    cache: FxHashMap<Vec<Arc<Function>>, CompiledFn>,
}

/// Decide, once per process, whether compiled functions are listed in `/tmp/perf-<pid>.map`
/// for Linux `perf`: only when `ZY_PERF_MAP=1`. cranelift-jit writes the map whenever
/// `PERF_BUILDID_DIR` is set, so this removes that variable (or, with `ZY_PERF_MAP=1`, sets
/// it when unset). It changes the environment: a binary calls it at the start of `main`,
/// before other threads; [`JitSession::new`] calls it too, a no-op after the first call.
pub fn decide_perf_map() {
    static DECIDED: std::sync::Once = std::sync::Once::new();
    DECIDED.call_once(|| {
        let wanted = std::env::var_os("ZY_PERF_MAP").is_some_and(|v| v == "1");
        match (wanted, std::env::var_os("PERF_BUILDID_DIR").is_some()) {
            (true, false) => std::env::set_var("PERF_BUILDID_DIR", std::env::temp_dir()),
            (false, true) => std::env::remove_var("PERF_BUILDID_DIR"),
            _ => {}
        }
    });
}

impl JitSession {
    /// A session for the host machine, making fast code.
    pub fn new() -> Result<JitSession, JitError> {
        JitSession::with_settings("speed", "backtracking")
    }

    /// A session for code that runs once (the calls computing a gradient's arguments): compiled
    /// without Cranelift's optimisations and with its single-pass register allocator, which
    /// take most of the compile time and could save only a little of one run.
    pub fn quick() -> Result<JitSession, JitError> {
        JitSession::with_settings("none", "single_pass")
    }

    /// A session at Cranelift's `opt_level` and `regalloc_algorithm`.
    fn with_settings(opt_level: &str, regalloc: &str) -> Result<JitSession, JitError> {
        decide_perf_map();
        let isa = host_isa(opt_level, regalloc)?;
        let large = host_isa(opt_level, "single_pass")?;
        let mut jb = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
        // One contiguous reservation for the module's code and data: calls between its
        // functions are 32-bit relative, and pages the system hands out one by one can land
        // more than 2 GiB apart in a process with large mappings (the server's analysis
        // stacks), which cranelift-jit cannot link (it panicked, and the gradient fell back to
        // the interpreter). The reservation is address space only until code is written.
        let arena = ArenaMemoryProvider::new_with_size(ARENA_RESERVE).map_err(JitError::backend)?;
        jb.memory_provider(Box::new(arena));
        for (name, ptr) in runtime::symbols() {
            jb.symbol(name, ptr);
        }
        let mut module = JITModule::new(jb);
        let rt = RtFuncs::declare(&mut module)?;
        let ctx = module.make_context();
        Ok(JitSession {
            owner: Arc::new(ModuleOwner {
                inner: Mutex::new(Inner {
                    module: Some(module),
                    large,
                    rt,
                    sites: Vec::new(),
                }),
            }),
            ctx,
            fctx: FunctionBuilderContext::new(),
            cache: FxHashMap::default(),
        })
    }

    /// How many compilations produced new code in this session (each adds to the module's
    /// memory, which is freed only with the session and its compiled functions: a long-lived
    /// caller rebuilds the session when this grows).
    pub fn compilations(&self) -> usize {
        self.cache.len()
    }

    /// Compile `inst` of `prog` and every instance it invokes.
    pub fn compile(
        &mut self,
        prog: &TypedProgram,
        inst: &Instance,
    ) -> Result<CompiledFn, JitError> {
        self.build_guarded(prog, inst, None)
    }

    /// [`Self::build`], with a panic inside Cranelift turned into an error (the session is then
    /// poisoned: later compilations fail and the caller starts a new session).
    fn build_guarded(
        &mut self,
        prog: &TypedProgram,
        inst: &Instance,
        clif: Option<&mut String>,
    ) -> Result<CompiledFn, JitError> {
        let run = std::panic::AssertUnwindSafe(|| self.build(prog, inst, clif));
        std::panic::catch_unwind(run).unwrap_or_else(|_| {
            Err(JitError::backend(format!(
                "the code generator failed on {inst}"
            )))
        })
    }

    fn build(
        &mut self,
        prog: &TypedProgram,
        inst: &Instance,
        mut clif: Option<&mut String>,
    ) -> Result<CompiledFn, JitError> {
        let Reach {
            funcs: reach,
            pullbacks,
            globals,
        } = reachable(prog, inst)?;
        refuse_rows_of_growing_vectors(&reach)?;
        let key: Vec<Arc<Function>> = reach.iter().map(|(_, f)| f.clone()).collect();
        if clif.is_none() {
            if let Some(done) = self.cache.get(&key) {
                return Ok(done.clone());
            }
        }
        let track_depth = needs_deep_stack(&reach, &pullbacks);
        let layout = Arc::new(layout_for(prog, &pullbacks));
        let owner = self.owner.clone();
        let mut guard = owner
            .inner
            .lock()
            .map_err(|_| JitError::backend("JIT session poisoned"))?;
        let inner = &mut *guard;
        let rt = inner.rt;
        let large = &*inner.large;
        let module = inner
            .module
            .as_mut()
            .ok_or_else(|| JitError::backend("JIT module freed"))?;
        // std maps: the translator's `Env` takes them.
        let mut ids = HashMap::new();
        for (i, f) in &reach {
            let sig = signature(module, &layout, &arg_types(f), &f.ret)?;
            let id = module
                .declare_anonymous_function(&sig)
                .map_err(JitError::backend)?;
            ids.insert(i.clone(), id);
        }
        let mut adapters = HashMap::new();
        for p in pullbacks
            .iter()
            .filter(|p| layout.static_pullback(&p.args).is_none())
        {
            let f = &prog.functions[p];
            let id = module
                .declare_anonymous_function(&pullbacks::adapter_signature(module, &layout, f)?)
                .map_err(JitError::backend)?;
            adapters.insert(p.clone(), id);
        }
        // Translate every function first, so small callees can be inlined into their callers.
        let mut bodies: FxHashMap<u32, cranelift_codegen::ir::Function> = FxHashMap::default();
        for (i, f) in &reach {
            let id = ids[i];
            self.ctx.func.signature = signature(module, &layout, &arg_types(f), &f.ret)?;
            self.ctx.func.name = UserFuncName::user(0, id.as_u32());
            let mut env = Env {
                module: &mut *module,
                rt,
                prog,
                funcs: &ids,
                adapters: &adapters,
                globals: &globals,
                layout: &layout,
                sites: &mut inner.sites,
                track_depth,
            };
            let b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fctx);
            let done = translate::translate(&mut env, f, b);
            let body =
                std::mem::replace(&mut self.ctx.func, cranelift_codegen::ir::Function::new());
            module.clear_context(&mut self.ctx);
            done?;
            bodies.insert(id.as_u32(), body);
        }
        // Inline into the bodies that compiled code still calls or takes the address of,
        // from the roots on, and compile only these: a small function inlined at every call
        // site needs no code of its own (Cranelift's time grows with the code it is given),
        // and a long chain of calls is inlined into once per inlining budget, not at every
        // function of it.
        let roots = std::iter::once(ids[&reach[0].0]).chain(adapters.keys().map(|p| ids[p]));
        let mut inlined: FxHashMap<u32, cranelift_codegen::ir::Function> = FxHashMap::default();
        let mut work: Vec<u32> = roots.map(|id| id.as_u32()).collect();
        while let Some(id) = work.pop() {
            let Some(body) = bodies.get(&id).filter(|_| !inlined.contains_key(&id)) else {
                continue;
            };
            self.ctx.func = body.clone();
            let done = (|| {
                if !track_depth {
                    let inliner = Inliner {
                        bodies: &bodies,
                        budget: INLINE_BUDGET,
                    };
                    self.ctx
                        .inline(inliner)
                        .map_err(|e| JitError::backend(format!("{e:?}")))?;
                }
                crate::peephole::run(&mut self.ctx);
                Ok(())
            })();
            let func =
                std::mem::replace(&mut self.ctx.func, cranelift_codegen::ir::Function::new());
            module.clear_context(&mut self.ctx);
            done?;
            work.extend(called(&func));
            inlined.insert(id, func);
        }
        for (i, func) in &reach {
            let id = ids[i];
            let Some(body) = inlined.remove(&id.as_u32()) else {
                continue;
            };
            self.ctx.func = body;
            let done = (|| {
                if let Some(out) = clif.as_deref_mut() {
                    self.ctx
                        .optimize(module.isa(), &mut ControlPlane::default())
                        .map_err(|e| JitError::backend(format!("{e:?}")))?;
                    let text = self.ctx.func.display().to_string();
                    let _ = writeln!(out, "; {i}");
                    for note in translate::clif_notes(func) {
                        let _ = writeln!(out, "{note}");
                    }
                    let _ = writeln!(out, "{}", name_imports(&text, module));
                }
                define(module, large, id, &mut self.ctx)
            })();
            module.clear_context(&mut self.ctx);
            done?;
        }
        for (p, &id) in &adapters {
            let f = &prog.functions[p];
            self.ctx.func.signature = pullbacks::adapter_signature(module, &layout, f)?;
            self.ctx.func.name = UserFuncName::user(0, id.as_u32());
            let mut env = Env {
                module: &mut *module,
                rt,
                prog,
                funcs: &ids,
                adapters: &adapters,
                globals: &globals,
                layout: &layout,
                sites: &mut inner.sites,
                track_depth,
            };
            let b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fctx);
            let done = pullbacks::define_adapter(&mut env, f, ids[p], b).and_then(|()| {
                module
                    .define_function(id, &mut self.ctx)
                    .map_err(|e| JitError::backend(format!("{e:?}")))
            });
            module.clear_context(&mut self.ctx);
            done?;
        }
        let (top, top_fn) = &reach[0];
        let entry = trampoline(
            module,
            &layout,
            &mut self.ctx,
            &mut self.fctx,
            ids[top],
            top_fn,
        )?;
        module.finalize_definitions().map_err(JitError::backend)?;
        let code = module.get_finalized_function(entry);
        let mut table = Tables {
            layout: layout.clone(),
            ..Tables::default()
        };
        for (p, &id) in &adapters {
            let addr = module.get_finalized_function(id) as u64;
            let f = &prog.functions[p];
            let tape = f.args().first().map_or(Type::Nothing, |a| f.ty(*a).clone());
            table.by_addr.insert(addr, (p.clone(), tape.clone()));
            table.by_inst.insert(p.clone(), (addr, tape));
        }
        drop(guard);
        let compiled = CompiledFn {
            _owner: owner,
            entry: code as usize,
            args: arg_types(top_fn),
            ret: top_fn.ret.clone(),
            span: top_fn.span,
            deep: track_depth,
            tables: Arc::new(table),
            n_globals: globals.len(),
            n_arg_slots: arg_types(top_fn)
                .iter()
                .map(|t| layout.slot_count(t))
                .sum::<Result<usize, _>>()?,
            n_ret_slots: layout.slot_count(&top_fn.ret)?,
        };
        self.cache.insert(key, compiled.clone());
        Ok(compiled)
    }
}

/// The Cranelift target for the host at `opt_level` with the register allocator `regalloc`.
fn host_isa(opt_level: &str, regalloc: &str) -> Result<OwnedTargetIsa, JitError> {
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k: &str, v: &str| f.set(k, v).map_err(JitError::backend);
    set(&mut flags, "opt_level", opt_level)?;
    set(&mut flags, "regalloc_algorithm", regalloc)?;
    set(&mut flags, "enable_multi_ret_implicit_sret", "true")?;
    set(
        &mut flags,
        "enable_verifier",
        if cfg!(debug_assertions) {
            "true"
        } else {
            "false"
        },
    )?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    set(&mut flags, "is_pic", "false")?;
    cranelift_native::builder()
        .map_err(JitError::backend)?
        .finish(settings::Flags::new(flags))
        .map_err(JitError::backend)
}

/// Instructions past which a function is compiled with the single-pass register allocator:
/// the backtracking one's time grows with blocks × live values, which makes it most of the
/// compile time of a long straight-line gradient (bench/README.md, "Session 32: size").
const LARGE_FUNCTION: usize = 20_000;

/// Compile the function in `ctx` and define it as `id` in `module`; a large one with `large`.
fn define(
    module: &mut JITModule,
    large: &dyn TargetIsa,
    id: FuncId,
    ctx: &mut Context,
) -> Result<(), JitError> {
    if ctx.func.dfg.num_insts() <= LARGE_FUNCTION {
        return module
            .define_function(id, ctx)
            .map_err(|e| JitError::backend(format!("{e:?}")));
    }
    ctx.compile(large, &mut ControlPlane::default())
        .map_err(|e| JitError::backend(format!("{:?}", e.inner)))?;
    let code = ctx
        .compiled_code()
        .ok_or_else(|| JitError::backend("no compiled code"))?;
    let relocs: Vec<ModuleReloc> = code
        .buffer
        .relocs()
        .iter()
        .map(|r| ModuleReloc::from_mach_reloc(r, &ctx.func, id))
        .collect();
    module
        .define_function_bytes(
            id,
            u64::from(code.buffer.alignment),
            code.code_buffer(),
            &relocs,
        )
        .map_err(|e| JitError::backend(format!("{e:?}")))
}

/// The functions that `f` calls or takes the address of.
fn called(f: &cranelift_codegen::ir::Function) -> Vec<u32> {
    use cranelift_codegen::ir::InstructionData as I;
    let mut found = Vec::new();
    for block in f.layout.blocks() {
        for inst in f.layout.block_insts(block) {
            let (I::Call { func_ref, .. }
            | I::TryCall { func_ref, .. }
            | I::FuncAddr { func_ref, .. }) = f.dfg.insts[inst]
            else {
                continue;
            };
            if let ExternalName::User(r) = &f.dfg.ext_funcs[func_ref].name {
                found.push(f.params.user_named_funcs()[*r].index);
            }
        }
    }
    found
}

/// Instructions a callee may have to be inlined.
const INLINE_MAX_INSTS: usize = 400;
/// Inlined calls per function.
const INLINE_BUDGET: usize = 64;

/// Inlines direct calls of small compiled functions (only in programs without recursion).
struct Inliner<'a> {
    bodies: &'a FxHashMap<u32, cranelift_codegen::ir::Function>,
    budget: usize,
}

impl Inline for Inliner<'_> {
    fn inline(
        &mut self,
        caller: &cranelift_codegen::ir::Function,
        _inst: cranelift_codegen::ir::Inst,
        _opcode: cranelift_codegen::ir::Opcode,
        callee: cranelift_codegen::ir::FuncRef,
        _args: &[cranelift_codegen::ir::Value],
    ) -> InlineCommand<'_> {
        let ExternalName::User(r) = &caller.dfg.ext_funcs[callee].name else {
            return InlineCommand::KeepCall;
        };
        let index = caller.params.user_named_funcs()[*r].index;
        match self.bodies.get(&index) {
            Some(body) if self.budget > 0 && body.dfg.num_insts() <= INLINE_MAX_INSTS => {
                self.budget -= 1;
                InlineCommand::Inline {
                    callee: std::borrow::Cow::Borrowed(body),
                    visit_callee: true,
                }
            }
            _ => InlineCommand::KeepCall,
        }
    }
}

/// The optimised Cranelift IR of `inst` and every instance it invokes, as text (for
/// `zy-analyze ir --stage clif`).
///
/// A trailer lists the statements whose primitive runs in the runtime with the interpreter's
/// semantics (the slow path: nothing else is called out of line except kernels and allocation).
pub fn clif_text(prog: &TypedProgram, inst: &Instance) -> Result<String, JitError> {
    let mut session = JitSession::new()?;
    let mut out = String::new();
    session.build_guarded(prog, inst, Some(&mut out))?;
    let inner = session
        .owner
        .inner
        .lock()
        .map_err(|_| JitError::backend("JIT session poisoned"))?;
    let slow: Vec<String> = inner
        .sites
        .iter()
        .filter_map(|s| match &s.kind {
            crate::runtime::site::SiteKind::Fallback(fb) if !fb.after_failed_check => {
                Some(format!(
                    ";   {} -> {} at {}..{}",
                    fb.prim, fb.ret, s.span.start, s.span.end
                ))
            }
            _ => None,
        })
        .collect();
    if !slow.is_empty() {
        let _ = writeln!(
            out,
            "; evaluated by the runtime with the interpreter's semantics:"
        );
        for line in slow {
            let _ = writeln!(out, "{line}");
        }
    }
    Ok(out)
}

/// `text` with each declaration of a runtime function (`fn3 = u0:12 sig2`) followed by the
/// function's name (`; zy_rt_matmul`).
fn name_imports(text: &str, module: &JITModule) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        out.push_str(line);
        let name = line
            .trim_start()
            .strip_prefix("fn")
            .and_then(|rest| rest.split_once(" = u0:"))
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .and_then(|id| id.parse::<u32>().ok())
            .and_then(|id| {
                module
                    .declarations()
                    .get_function_decl(FuncId::from_u32(id))
                    .name
                    .clone()
            })
            .filter(|n| n.starts_with("zy_rt_"));
        if let Some(n) = name {
            let _ = write!(out, "  ; {n}");
        }
        out.push('\n');
    }
    out
}

/// `extern "C" fn(ctx, args, out)`: loads the arguments' slots from `args` (8 bytes each),
/// calls the function and stores its result's slots to `out`.
fn trampoline(
    module: &mut JITModule,
    layout: &Layout,
    ctx: &mut Context,
    fctx: &mut FunctionBuilderContext,
    callee: FuncId,
    f: &Function,
) -> Result<FuncId, JitError> {
    let mut sig = module.make_signature();
    sig.params.extend([AbiParam::new(types::I64); 3]);
    let id = module
        .declare_anonymous_function(&sig)
        .map_err(JitError::backend)?;
    ctx.func.signature = sig;
    ctx.func.name = UserFuncName::user(0, id.as_u32());
    let mut b = FunctionBuilder::new(&mut ctx.func, fctx);
    let block = b.create_block();
    b.append_block_params_for_function_params(block);
    b.switch_to_block(block);
    let (c, args, out) = (
        b.block_params(block)[0],
        b.block_params(block)[1],
        b.block_params(block)[2],
    );
    let mut call_args = vec![c];
    let mut word = 0i32;
    for t in arg_types(f) {
        for s in layout.slots(&t)? {
            call_args.push(b.ins().load(s.cl_type(), mem(), args, word * 8));
            word += 1;
        }
    }
    let fref = module.declare_func_in_func(callee, b.func);
    let call = b.ins().call(fref, &call_args);
    let results = b.inst_results(call).to_vec();
    for (k, r) in results.into_iter().enumerate() {
        b.ins().store(mem(), r, out, (k * 8) as i32);
    }
    b.ins().return_(&[]);
    b.seal_all_blocks();
    b.finalize(module.target_config());
    let done = module
        .define_function(id, ctx)
        .map_err(|e| JitError::backend(format!("{e:?}")));
    module.clear_context(ctx);
    done?;
    Ok(id)
}

fn arg_types(f: &Function) -> Vec<Type> {
    f.args().iter().map(|a| f.ty(*a).clone()).collect()
}

/// `inst` and every instance reachable from it through calls, `inst` first; and the pullback
/// instances that pullback closures of the types these functions handle may run.
fn reachable(prog: &TypedProgram, inst: &Instance) -> Result<Reach, JitError> {
    let (top, f) = prog
        .functions
        .get_key_value(inst)
        .ok_or_else(|| JitError::invalid(format!("no typed body for {inst}")))?;
    // Small generated callees that make or accumulate slices are inlined, for fusion.
    let recursive = zy_ad::Recursive::of(prog);
    let prepare = |f: &Arc<Function>| {
        zy_ad::inline_slices(f, prog, &recursive).map_or_else(|| f.clone(), Arc::new)
    };
    let mut funcs = vec![(top.clone(), prepare(f))];
    let mut seen: FxHashSet<Arc<Instance>> = FxHashSet::from_iter([top.clone()]);
    let mut sigs: FxHashSet<Arc<[Type]>> = FxHashSet::default();
    let mut pullbacks = Vec::new();
    let mut globals = Vec::new();
    let made = recorded_pullbacks(prog);
    let mut i = 0;
    while i < funcs.len() {
        let f = funcs[i].1.clone();
        let mut next = Vec::new();
        let known = sigs.len();
        for v in &f.values {
            pullback_sigs(&v.ty, &mut sigs);
            if let zy_ir::ValueKind::Stmt(s) = &v.kind {
                match &s.op {
                    Op::Invoke(callee) => next.push(callee.clone()),
                    Op::Global(name) if !globals.contains(name) => {
                        let thunk = prog.globals.get(name).ok_or_else(|| {
                            JitError::invalid(format!("no typed body for global `{name}`"))
                        })?;
                        globals.push(name.clone());
                        let key = global_instance(name);
                        if seen.insert(key.clone()) {
                            funcs.push((key, thunk.clone()));
                        }
                    }
                    _ => {}
                }
            }
        }
        pullback_sigs(&f.ret, &mut sigs);
        // The recorded pullbacks of these signatures were taken when they were first seen.
        let grew = sigs.len() > known;
        for k in made
            .iter()
            .filter(|k| grew && sigs.contains(&k.args) && prog.functions.contains_key(*k))
        {
            if !pullbacks.contains(k) {
                pullbacks.push(k.clone());
                next.push(k.clone());
            }
        }
        for callee in next {
            if seen.insert(callee.clone()) {
                let body = prog
                    .functions
                    .get(&callee)
                    .ok_or_else(|| JitError::invalid(format!("no typed body for {callee}")))?;
                funcs.push((callee, prepare(body)));
            }
        }
        i += 1;
    }
    Ok(Reach {
        funcs,
        pullbacks,
        globals,
    })
}

/// The pullback instances that some `make_pullback` of `prog` names: the only functions a
/// pullback closure can run.
fn recorded_pullbacks(prog: &TypedProgram) -> Vec<Arc<Instance>> {
    let mut out: Vec<Arc<Instance>> = Vec::new();
    for f in prog.functions.values() {
        for v in &f.values {
            if let zy_ir::ValueKind::Stmt(s) = &v.kind {
                if s.op == Op::Prim(zy_ir::Prim::MakePullback) {
                    if let Ok(inst) = pullbacks::pullback_target(&s.args, &v.ty) {
                        if !out.iter().any(|k| **k == inst) {
                            out.push(Arc::new(inst));
                        }
                    }
                }
            }
        }
    }
    out
}

/// The layout of a compilation: closures of a type that only one recorded pullback has are
/// scalar-replaced.
fn layout_for(prog: &TypedProgram, pullbacks: &[Arc<Instance>]) -> Layout {
    let mut by_sig: FxHashMap<Arc<[Type]>, Vec<&Arc<Instance>>> = FxHashMap::default();
    for p in pullbacks {
        by_sig.entry(p.args.clone()).or_default().push(p);
    }
    let mut candidates = FxHashMap::default();
    for (sig, insts) in by_sig {
        if let [only] = insts.as_slice() {
            if let Some(f) = prog.functions.get(*only) {
                if let [tape, _] = f.args() {
                    let sp = StaticPullback {
                        instance: (*only).clone(),
                        tape: f.ty(*tape).clone(),
                    };
                    candidates.insert(sig, sp);
                }
            }
        }
    }
    Layout::new(candidates)
}

/// The key under which the thunk of global `name` is compiled.
pub(crate) fn global_instance(name: &zy_ir::Name) -> Arc<Instance> {
    Arc::new(Instance {
        name: format!("global {name}").into(),
        method: u32::MAX - 1,
        args: Arc::from([]),
    })
}

/// What one compilation covers.
/// A row `x'` of a vector is a header sharing the vector's elements, which `setlength!` may
/// move: a program that both grows or shrinks vectors and holds rows is left to the
/// interpreter, whose rows follow their vector.
fn refuse_rows_of_growing_vectors(
    reach: &[(Arc<Instance>, Arc<Function>)],
) -> Result<(), JitError> {
    fn holds_row(t: &Type) -> bool {
        matches!(t, Type::Adjoint(_)) || t.field_types().is_some_and(|fs| fs.iter().any(holds_row))
    }
    let values = || reach.iter().flat_map(|(_, f)| f.values.iter());
    let resizes = values().any(|v| {
        matches!(&v.kind, zy_ir::ValueKind::Stmt(s) if s.op == Op::Prim(zy_ir::Prim::SetLength))
    });
    if resizes && values().any(|v| holds_row(&v.ty)) {
        return Err(JitError::unsupported(
            "`setlength!` (push!, append!, pop!, resize!) in a program holding a row `x'` of a \
             vector",
        ));
    }
    Ok(())
}

struct Reach {
    funcs: Vec<(Arc<Instance>, Arc<Function>)>,
    pullbacks: Vec<Arc<Instance>>,
    /// Global bindings loaded, in the order of their slots in the context.
    globals: Vec<zy_ir::Name>,
}

/// The signatures of the pullback closures inside a value of type `t`.
fn pullback_sigs(t: &Type, out: &mut FxHashSet<Arc<[Type]>>) {
    match t {
        Type::Pullback(sig) if out.insert(sig.clone()) => {
            for t in sig.iter() {
                pullback_sigs(t, out);
            }
        }
        Type::Tuple(ts) => ts.iter().for_each(|t| pullback_sigs(t, out)),
        Type::NamedTuple(fs) => fs.iter().for_each(|(_, t)| pullback_sigs(t, out)),
        Type::Struct(st) => st.fields.iter().for_each(|(_, t)| pullback_sigs(t, out)),
        Type::Ref(t) | Type::Stack(t) => pullback_sigs(t, out),
        _ => {}
    }
}

/// Calls deeper than this run on a large stack ([`crate::deep`]), with the depth counted.
const DEEP_CHAIN: usize = 256;

/// Do calls of `reach` need the depth counter and a large stack: does a function take part in
/// a cycle of calls (a `call_pullback` may call any pullback of its type), or is the longest
/// chain of calls deeper than [`DEEP_CHAIN`]?
fn needs_deep_stack(reach: &[(Arc<Instance>, Arc<Function>)], pullbacks: &[Arc<Instance>]) -> bool {
    let index: FxHashMap<&Instance, usize> = reach
        .iter()
        .enumerate()
        .map(|(i, (k, _))| (&**k, i))
        .collect();
    let edges: Vec<Vec<usize>> = reach
        .iter()
        .map(|(_, f)| {
            let mut out = Vec::new();
            for v in &f.values {
                let zy_ir::ValueKind::Stmt(s) = &v.kind else {
                    continue;
                };
                match &s.op {
                    Op::Invoke(c) => out.extend(index.get(&**c).copied()),
                    Op::Prim(zy_ir::Prim::CallPullback) => {
                        if let Some(Type::Pullback(sig)) = s.args.first().map(|a| f.operand_ty(a)) {
                            let targets = pullbacks.iter().filter(|p| p.args == sig);
                            out.extend(targets.filter_map(|p| index.get(&**p).copied()));
                        }
                    }
                    _ => {}
                }
            }
            out
        })
        .collect();
    // Kahn's algorithm: a cycle leaves nodes unsorted; the longest chain follows the order.
    let mut indegree = vec![0usize; reach.len()];
    for targets in &edges {
        for &m in targets {
            indegree[m] += 1;
        }
    }
    let mut ready: Vec<usize> = (0..reach.len()).filter(|&n| indegree[n] == 0).collect();
    let mut chain = vec![1usize; reach.len()];
    let mut sorted = 0;
    while let Some(n) = ready.pop() {
        sorted += 1;
        for &m in &edges[n] {
            chain[m] = chain[m].max(chain[n] + 1);
            indegree[m] -= 1;
            if indegree[m] == 0 {
                ready.push(m);
            }
        }
    }
    sorted < reach.len() || chain.iter().any(|&c| c > DEEP_CHAIN)
}

/// A compiled instance, callable on interpreter values. Keeps its machine code alive.
#[derive(Clone)]
pub struct CompiledFn {
    /// Keeps the machine code mapped while this function lives.
    _owner: Arc<ModuleOwner>,
    entry: usize,
    pub(crate) args: Vec<Type>,
    pub(crate) ret: Type,
    pub(crate) span: zy_ir::Span,
    /// Calls count frames and run on a large stack ([`crate::deep`]).
    deep: bool,
    pub(crate) tables: Arc<Tables>,
    pub(crate) n_globals: usize,
    /// Words of the arguments' slots.
    pub(crate) n_arg_slots: usize,
    /// Words of the result's slots.
    pub(crate) n_ret_slots: usize,
}

impl PartialEq for CompiledFn {
    /// The same machine code.
    fn eq(&self, other: &CompiledFn) -> bool {
        self.entry == other.entry && Arc::ptr_eq(&self._owner, &other._owner)
    }
}

impl Eq for CompiledFn {}

impl std::fmt::Debug for CompiledFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CompiledFn(({}) -> {} at {:#x})",
            crate::translate::type_list(&self.args),
            self.ret,
            self.entry
        )
    }
}

impl CompiledFn {
    /// The argument types the code was compiled for.
    pub fn arg_types(&self) -> &[Type] {
        &self.args
    }

    /// The result type.
    pub fn ret_type(&self) -> &Type {
        &self.ret
    }

    /// Run the compiled code on `args` under `limits`, with the interpreter's semantics: the
    /// same result, or the same error at the same span. Mutations of argument objects are
    /// visible in `args` afterwards.
    pub fn call(&self, args: &[Value], limits: &Limits) -> Result<Value, RuntimeError> {
        let mut bound = self.bind(args, limits)?;
        bound.run()?;
        bound.result()
    }

    /// The one entry into machine code.
    pub(crate) fn run(&self, ctx: &mut Ctx, args: &[u64], out: &mut [u64]) -> Result<(), String> {
        // SAFETY: `entry` is the trampoline compiled for this function's argument and result
        // slots; `args` holds one word per argument slot and `out` one per result slot (or
        // one); the module's memory lives as long as `self.owner`.
        let f: crate::deep::Entry = unsafe { std::mem::transmute(self.entry) };
        if !self.deep {
            f(ctx, args.as_ptr(), out.as_mut_ptr());
            return Ok(());
        }
        crate::deep::run(f, ctx, args, out)
    }
}
