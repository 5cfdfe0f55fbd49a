//! A compiled function bound to its arguments, for running it many times without crossing the
//! value boundary (`CompiledFn::call` is one bind, one run and one conversion): the arguments are converted once, every run reuses the same context and the
//! arena's memory, and results stay in native form until they are asked for as values.

use zy_interp::{Limits, RuntimeError, Value};

use crate::convert::{FromNative, ToNative};
use crate::runtime::{ArenaMark, Ctx};
use crate::session::CompiledFn;

/// A [`CompiledFn`] with its arguments converted, ready to [`run`](BoundCall::run) again and
/// again. Each run sees the arguments as the previous runs left them (mutations persist), and
/// frees what the previous run allocated.
pub struct BoundCall<'f> {
    f: &'f CompiledFn,
    ctx: Ctx,
    to: ToNative,
    words: Vec<u64>,
    out: Vec<u64>,
    /// The arena after the arguments' conversion: runs allocate past it.
    mark: ArenaMark,
    /// Whether `out` holds the result of a successful run.
    ran: bool,
}

impl CompiledFn {
    /// Convert `args` once for repeated runs under `limits` (its deadline, if any, applies to
    /// every run).
    pub fn bind(&self, args: &[Value], limits: &Limits) -> Result<BoundCall<'_>, RuntimeError> {
        let fail = |message: String| RuntimeError::new(self.span, message);
        if args.len() != self.args.len() {
            return Err(fail(format!(
                "internal error: compiled code takes {} arguments, got {}",
                self.args.len(),
                args.len()
            )));
        }
        let mut ctx = Ctx::new(limits, self.n_globals);
        let mut to = ToNative::for_arguments(self.tables.clone());
        let mut words = Vec::with_capacity(self.n_arg_slots);
        for (a, t) in args.iter().zip(&self.args) {
            to.value(&mut ctx.state.arena, a, t, &mut words)
                .map_err(fail)?;
        }
        let mark = ctx.state.arena.mark();
        Ok(BoundCall {
            f: self,
            ctx,
            to,
            words,
            out: vec![0; self.n_ret_slots.max(1)],
            mark,
            ran: false,
        })
    }
}

impl BoundCall<'_> {
    /// Run the machine code once. The result's slots (numbers unboxed, arrays as pointers to
    /// their headers) stay valid until the next run; [`BoundCall::result`] converts them.
    pub fn run(&mut self) -> Result<&[u64], RuntimeError> {
        self.ran = false;
        self.ctx.state.arena.reset_to(self.mark);
        self.ctx.reset();
        let span = self.f.span;
        self.f
            .run(&mut self.ctx, &self.words, &mut self.out)
            .map_err(|message| RuntimeError::new(span, message))?;
        let written = self.to.write_back();
        if self.ctx.error != 0 {
            let (span, message) = self
                .ctx
                .state
                .failure
                .take()
                .unwrap_or((span, "internal error: JIT error without a message".into()));
            // A value thrown (or an exception rethrown) is of its own kind.
            return Err(match &self.ctx.state.thrown {
                Some(thrown) => RuntimeError::of_caught(span, message, thrown),
                None => RuntimeError::new(span, message),
            });
        }
        written.map_err(|message| RuntimeError::new(span, message))?;
        self.ran = true;
        Ok(&self.out)
    }

    /// The last successful run's result as an interpreter value.
    pub fn result(&self) -> Result<Value, RuntimeError> {
        let fail = |message: String| RuntimeError::new(self.f.span, message);
        if !self.ran {
            return Err(fail("internal error: no successful run to convert".into()));
        }
        FromNative::new(&self.to)
            .value(&self.out, &mut 0, &self.f.ret)
            .map_err(fail)
    }
}
