//! Inline array access: lengths, sizes, and bounds-checked indexing (an index out of bounds
//! goes to the runtime, which raises the interpreter's `BoundsError` at the statement's span).
//! Other array primitives run in the runtime.

use std::collections::HashMap;

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder};
use zy_ir::{Const, Op, Operand, Prim, Span, Type};

use super::{mem, ClValue, Translator, R};
use crate::error::JitError;
use crate::layout::Elem;
use crate::runtime::arena::array_offset;

impl Translator<'_, '_, '_> {
    /// Translations of the array primitives that have an inline form.
    pub(super) fn arrays(
        &mut self,
        p: Prim,
        args: &[Operand],
        tys: &[Type],
        ty: &Type,
        span: Span,
    ) -> R<Option<Vec<ClValue>>> {
        if let Some(out) = self.linalg(p, args, tys, ty, span)? {
            return Ok(Some(out));
        }
        // A row view `x'` is indexed like the 1×n matrix it is.
        let (elem, dims) = match tys.first() {
            Some(Type::Array(elem, dims)) => ((**elem).clone(), *dims),
            Some(Type::Adjoint(elem)) => ((**elem).clone(), 2),
            _ => return Ok(None),
        };
        let ints = |ts: &[Type]| ts.iter().all(|t| *t == Type::Int64);
        Ok(Some(match p {
            Prim::Length if *ty == Type::Int64 => {
                let a = self.pointer(&args[0])?;
                vec![self.b.ins().load(types::I64, mem(), a, array_offset::LEN)]
            }
            Prim::Size if dims > 2 => {
                let a = self.pointer(&args[0])?;
                let shape = self.b.ins().load(types::I64, mem(), a, array_offset::SHAPE);
                let word = |t: &mut Self, d: u8| {
                    t.b.ins().load(types::I64, mem(), shape, 8 * i32::from(d))
                };
                match args.get(1) {
                    None => (1..=dims).map(|d| word(self, d)).collect(),
                    Some(Operand::Const(Const::Int(d))) if (1..=i64::from(dims)).contains(d) => {
                        vec![word(self, *d as u8)]
                    }
                    Some(Operand::Const(Const::Int(d))) if *d > i64::from(dims) => {
                        vec![self.b.ins().iconst(types::I64, 1)]
                    }
                    _ => return Ok(None),
                }
            }
            Prim::CheckAxes if dims > 2 => return Ok(None),
            Prim::Size if args.len() == 1 => {
                let a = self.pointer(&args[0])?;
                let rows = self.b.ins().load(types::I64, mem(), a, array_offset::ROWS);
                if dims == 1 {
                    vec![rows]
                } else {
                    let cols = self.b.ins().load(types::I64, mem(), a, array_offset::COLS);
                    vec![rows, cols]
                }
            }
            Prim::Size if args.len() == 2 => match &args[1] {
                Operand::Const(Const::Int(d)) if *d >= 1 => {
                    let a = self.pointer(&args[0])?;
                    match (*d, dims) {
                        (1, _) => vec![self.b.ins().load(types::I64, mem(), a, array_offset::ROWS)],
                        (2, 2) => vec![self.b.ins().load(types::I64, mem(), a, array_offset::COLS)],
                        _ => vec![self.b.ins().iconst(types::I64, 1)],
                    }
                }
                _ => return Ok(None),
            },
            Prim::CheckAxes if tys.len() == 2 && tys[0] == tys[1] => {
                let (a, b) = (self.pointer(&args[0])?, self.pointer(&args[1])?);
                // A vector or a row view has one extent, its length; a matrix two.
                let extents: &[i32] = match tys[0] {
                    Type::Array(_, 2) => &[array_offset::ROWS, array_offset::COLS],
                    _ => &[array_offset::LEN],
                };
                let mut bad = self.b.ins().iconst(types::I8, 0);
                for &at in extents {
                    let (m, n) = (
                        self.b.ins().load(types::I64, mem(), a, at),
                        self.b.ins().load(types::I64, mem(), b, at),
                    );
                    let differ = self.b.ins().icmp(IntCC::NotEqual, m, n);
                    bad = self.b.ins().bor(bad, differ);
                }
                self.guarded(
                    bad,
                    &[],
                    |t| t.fallback(p, args, &Type::Bottom, span),
                    |_| Ok(vec![]),
                )?;
                vec![]
            }
            Prim::GetIndex
                if ints(&tys[1..])
                    && (tys.len() == 2 || tys.len() == 3 || tys.len() == usize::from(dims) + 1) =>
            {
                let el = self.env.layout.elem(&elem)?;
                let out = match self.checked_address(p, args, &tys[0], &el, 1, span)? {
                    Some(addr) => match &self.known.pending {
                        Some((_, at, v)) if *at == addr => v.clone(),
                        _ => self.load_elem(&el, addr),
                    },
                    None => {
                        self.flush_store();
                        let (addr, bad) = self.element_address(&elem, args, 1)?;
                        self.read_elem(p, args, ty, span, &el, addr, bad)?
                    }
                };
                self.coerce(out, &elem, ty)?
            }
            Prim::SetIndex
                if tys.len() >= 3
                    && ints(&tys[2..])
                    && (tys.len() == 3 || tys.len() == 4 || tys.len() == usize::from(dims) + 2) =>
            {
                let el = self.env.layout.elem(&elem)?;
                let v = self.operand_as(&args[1], &elem)?;
                if v.len() != el.slots.len() {
                    return Err(JitError::invalid("setindex! of a value of other slots"));
                }
                if let Some(addr) = self.checked_address(p, args, &tys[0], &el, 2, span)? {
                    // Held back: a later write of the same element in this block replaces it.
                    self.known.pending = Some((el, addr, v));
                    let given = self.operand(&args[1])?;
                    return Ok(Some(self.coerce(given, &tys[1], ty)?));
                }
                self.flush_store();
                let (addr, bad) = self.element_address(&elem, args, 2)?;
                self.guarded(
                    bad,
                    &[],
                    |t| t.fallback(p, args, &Type::Bottom, span),
                    |t| {
                        t.store_elem(&el, addr, &v);
                        Ok(vec![])
                    },
                )?;
                let given = self.operand(&args[1])?;
                self.coerce(given, &tys[1], ty)?
            }
            Prim::SetLength if dims == 1 => {
                let v = self.pointer(&args[0])?;
                let n = self.operand(&args[1])?[0];
                let tail = match args.get(2) {
                    Some(t) => self.pointer(t)?,
                    None => self.b.ins().iconst(types::I64, 0),
                };
                let size = i64::from(self.env.layout.elem(&elem)?.size);
                let size = self.b.ins().iconst(types::I64, size);
                let ctx = self.ctx();
                let rt = self.env.rt.setlength;
                let out = self
                    .call_rt(rt, &[ctx, v, n, tail, size])
                    .ok_or_else(|| JitError::invalid("setlength!"))?;
                self.object_or_fallback(out, p, args, ty, span)?
            }
            Prim::SliceCopy if elem == Type::Float64 && ints(&tys[1..]) && tys.len() == 4 => {
                let x = self.pointer(&args[0])?;
                let mut ops = vec![self.ctx(), x];
                for a in &args[1..] {
                    ops.push(self.operand(a)?[0]);
                }
                let rt = self.env.rt.slice_copy;
                let out = self
                    .call_rt(rt, &ops)
                    .ok_or_else(|| JitError::invalid("slice_copy"))?;
                self.object_or_fallback(out, p, args, ty, span)?
            }
            Prim::AccumSlice
                if elem == Type::Float64
                    && tys.len() == 4
                    && ints(&tys[1..3])
                    && tys[3] == Type::vector_f64() =>
            {
                let (d, x) = (self.pointer(&args[0])?, self.pointer(&args[3])?);
                let (a, s) = (self.operand(&args[1])?[0], self.operand(&args[2])?[0]);
                let rt = self.env.rt.accum_slice;
                let plain = self.b.ins().iconst(types::I8, 0);
                let bad = self
                    .call_rt(rt, &[d, a, s, x, plain])
                    .ok_or_else(|| JitError::invalid("accum_slice!"))?;
                // An index out of bounds (the interpreter raises its error).
                self.guarded(
                    bad,
                    &[],
                    |t| t.fallback(p, args, &Type::Bottom, span),
                    |_| Ok(vec![]),
                )?;
                vec![]
            }
            _ => return Ok(None),
        }))
    }

    /// The slots of the element at `addr`.
    pub(super) fn load_elem(&mut self, el: &Elem, addr: ClValue) -> Vec<ClValue> {
        el.slots
            .iter()
            .enumerate()
            .map(|(k, s)| self.b.ins().load(s.cl_type(), mem(), addr, el.offset(k)))
            .collect()
    }

    /// Store the slots `v` as the element at `addr`.
    pub(super) fn store_elem(&mut self, el: &Elem, addr: ClValue, v: &[ClValue]) {
        for (k, x) in v.iter().enumerate() {
            self.b.ins().store(mem(), *x, addr, el.offset(k));
        }
    }

    /// Reductions and products of Float64 arrays, by the runtime's kernels.
    fn linalg(
        &mut self,
        p: Prim,
        args: &[Operand],
        tys: &[Type],
        ty: &Type,
        span: Span,
    ) -> R<Option<Vec<ClValue>>> {
        let f64_array =
            |t: &Type| matches!(t, Type::Array(e, _) | Type::Adjoint(e) if **e == Type::Float64);
        let kind = |t: &Type| match t {
            Type::Array(_, 1) => Some(0i64),
            Type::Array(_, 2) => Some(1),
            Type::Adjoint(_) => Some(2),
            _ => None,
        };
        Ok(Some(match (p, tys) {
            (Prim::Sum, [a]) if f64_array(a) && *ty == Type::Float64 => {
                let x = self.pointer(&args[0])?;
                let rt = self.env.rt.sum;
                vec![self
                    .call_rt(rt, &[x])
                    .ok_or_else(|| JitError::invalid("sum"))?]
            }
            (Prim::Maximum | Prim::Minimum, [a]) if f64_array(a) && *ty == Type::Float64 => {
                let x = self.pointer(&args[0])?;
                let len = self.b.ins().load(types::I64, mem(), x, array_offset::LEN);
                let empty = self.b.ins().icmp_imm_s(IntCC::Equal, len, 0);
                let rt = self.env.rt.extremum;
                let is_max = self
                    .b
                    .ins()
                    .iconst(types::I8, i64::from(p == Prim::Maximum));
                self.guarded(
                    empty,
                    &[types::F64],
                    |t| t.fallback(p, args, ty, span),
                    |t| Ok(vec![t.call_rt(rt, &[x, is_max]).unwrap_or(is_max)]),
                )?
            }
            (Prim::FindMax | Prim::FindMin, [a]) if f64_array(a) => {
                let x = self.pointer(&args[0])?;
                let len = self.b.ins().load(types::I64, mem(), x, array_offset::LEN);
                let empty = self.b.ins().icmp_imm_s(IntCC::Equal, len, 0);
                let rt = self.env.rt.find_extremum;
                let is_max = self
                    .b
                    .ins()
                    .iconst(types::I8, i64::from(p == Prim::FindMax));
                self.guarded(
                    empty,
                    &[types::F64, types::I64],
                    |t| t.fallback(p, args, ty, span),
                    |t| {
                        let i = t.call_rt(rt, &[x, is_max]).unwrap_or(len);
                        let data = t.b.ins().load(types::I64, mem(), x, array_offset::DATA);
                        let off = t.b.ins().imul_imm_s(i, 8);
                        let at = t.b.ins().iadd(data, off);
                        let v = t.b.ins().load(types::F64, mem(), at, -8);
                        Ok(vec![v, i])
                    },
                )?
            }
            (Prim::Dot, [a, b]) | (Prim::MatMul, [a @ Type::Adjoint(_), b @ Type::Array(_, 1)])
                if f64_array(a) && f64_array(b) && *ty == Type::Float64 =>
            {
                let (x, y) = (self.pointer(&args[0])?, self.pointer(&args[1])?);
                let lx = self.b.ins().load(types::I64, mem(), x, array_offset::LEN);
                let ly = self.b.ins().load(types::I64, mem(), y, array_offset::LEN);
                let differ = self.b.ins().icmp(IntCC::NotEqual, lx, ly);
                let rt = self.env.rt.dot;
                self.guarded(
                    differ,
                    &[types::F64],
                    |t| t.fallback(p, args, ty, span),
                    |t| Ok(vec![t.call_rt(rt, &[x, y]).unwrap_or(lx)]),
                )?
            }
            (Prim::MatMul, [a, b]) if f64_array(a) && f64_array(b) && f64_array(ty) => {
                let (Some(ka), Some(kb)) = (kind(a), kind(b)) else {
                    return Ok(None);
                };
                if ka == 0 && kb == 0 {
                    return Ok(None);
                }
                let (x, y) = (self.pointer(&args[0])?, self.pointer(&args[1])?);
                let (ka, kb) = (
                    self.b.ins().iconst(types::I64, ka),
                    self.b.ins().iconst(types::I64, kb),
                );
                let rt = self.env.rt.matmul;
                let ctx = self.ctx();
                let out = self
                    .call_rt(rt, &[ctx, x, ka, y, kb])
                    .ok_or_else(|| JitError::invalid("matmul"))?;
                self.object_or_fallback(out, p, args, ty, span)?
            }
            _ => return Ok(None),
        }))
    }

    /// The address of the element that the index operands `args[first..]` select, and whether
    /// they are out of bounds (in which case the address must not be used).
    pub(super) fn element_address(
        &mut self,
        elem: &Type,
        args: &[Operand],
        first: usize,
    ) -> R<(ClValue, ClValue)> {
        let a = self.pointer(&args[0])?;
        let size = i64::from(self.env.layout.elem(elem)?.size);
        let idx: Vec<ClValue> = args[first..]
            .iter()
            .map(|op| self.operand(op).map(|v| v[0]))
            .collect::<R<_>>()?;
        let (linear, bad) = match idx.as_slice() {
            [i] => {
                let len = self.header(a, array_offset::LEN);
                let i0 = self.b.ins().iadd_imm_s(*i, -1);
                (
                    i0,
                    self.b
                        .ins()
                        .icmp(IntCC::UnsignedGreaterThanOrEqual, i0, len),
                )
            }
            [i, j] => {
                let rows = self.header(a, array_offset::ROWS);
                let cols = self.header(a, array_offset::COLS);
                let i0 = self.b.ins().iadd_imm_s(*i, -1);
                let j0 = self.b.ins().iadd_imm_s(*j, -1);
                let bi = self
                    .b
                    .ins()
                    .icmp(IntCC::UnsignedGreaterThanOrEqual, i0, rows);
                let bj = self
                    .b
                    .ins()
                    .icmp(IntCC::UnsignedGreaterThanOrEqual, j0, cols);
                let col = self.b.ins().imul(j0, rows);
                (self.b.ins().iadd(col, i0), self.b.ins().bor(bi, bj))
            }
            _ => {
                // One index per dimension of an array of 3 or more: its sizes from the shape
                // words `[N, d₁, ..., d_N]`.
                let shape = self.b.ins().load(types::I64, mem(), a, array_offset::SHAPE);
                let mut linear = self.b.ins().iconst(types::I64, 0);
                let mut stride = self.b.ins().iconst(types::I64, 1);
                let mut bad = self.b.ins().iconst(types::I8, 0);
                for (d, i) in idx.iter().enumerate() {
                    let n = self
                        .b
                        .ins()
                        .load(types::I64, mem(), shape, 8 * (d as i32 + 1));
                    let i0 = self.b.ins().iadd_imm_s(*i, -1);
                    let out = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, i0, n);
                    bad = self.b.ins().bor(bad, out);
                    let step = self.b.ins().imul(i0, stride);
                    linear = self.b.ins().iadd(linear, step);
                    stride = self.b.ins().imul(stride, n);
                }
                (linear, bad)
            }
        };
        let data = self.header(a, array_offset::DATA);
        let off = self.b.ins().imul_imm_s(linear, size);
        Ok((self.b.ins().iadd(data, off), bad))
    }

    /// For an element of numbers of an `Array` (never unset), indexed as statement `p` of the
    /// current IR block: the element's address, its indices checked once per block. An index
    /// out of bounds runs the interpreter's `p` (its `BoundsError`) and bails out, so the code
    /// after the check runs only in bounds, and a later access of the same element (the
    /// `x̄[i] = x̄[i] + g` of a pullback) reuses the address unchecked. `None`: the caller checks.
    fn checked_address(
        &mut self,
        p: Prim,
        args: &[Operand],
        array: &Type,
        el: &Elem,
        first: usize,
        span: Span,
    ) -> R<Option<ClValue>> {
        let Type::Array(elem, _) = array else {
            return Ok(None);
        };
        if el.unset_marker().is_some() || self.in_slow_path || self.known.stmt != self.current {
            return Ok(None);
        }
        self.known.stmt = None;
        let a = self.pointer(&args[0])?;
        let mut key = vec![a];
        for op in &args[first..] {
            key.push(self.operand(op)?[0]);
        }
        if let Some(&addr) = self.known.addrs.get(&key) {
            if !matches!(&self.known.pending, Some((_, at, _)) if *at == addr) {
                self.flush_store();
            }
            return Ok(Some(addr));
        }
        // The check's slow path runs the interpreter, which must see every write before it.
        self.flush_store();
        self.known.headers = true;
        // In a loop that resizes no array, the header words of an array that is always
        // defined may be read once before the loop (`peephole::hoist_header_loads`).
        self.known.movable = self.steady_block
            && args[0]
                .as_value()
                .is_some_and(|v| self.maybe_undef[v.index()].is_none());
        let found = self.element_address(elem, args, first);
        self.known.headers = false;
        self.known.movable = false;
        let (addr, bad) = found?;
        if self.current.is_some_and(|v| self.proven.contains(&v)) {
            // In bounds by the loop's range (`ranges.rs`).
            self.known.addrs.insert(key, addr);
            return Ok(Some(addr));
        }
        let ret = if p == Prim::SetIndex {
            Type::Bottom
        } else {
            (**elem).clone()
        };
        let slow = self.b.create_block();
        let cont = self.b.create_block();
        self.b.set_cold_block(slow);
        self.b.ins().brif(bad, slow, &[], cont, &[]);
        self.b.switch_to_block(slow);
        self.in_slow_path = true;
        let raised = self.fallback(p, args, &ret, span);
        self.in_slow_path = false;
        raised?;
        // The interpreter raises a `BoundsError` for what the check found out of bounds.
        let site = self.site(
            span,
            crate::runtime::site::SiteKind::Fail(
                "internal error: an index found out of bounds was accepted".to_string(),
            ),
        );
        let (rt, ctx) = (self.env.rt.fail, self.ctx());
        self.call_rt(rt, &[ctx, site]);
        self.b.ins().jump(self.bail, &[]);
        self.b.switch_to_block(cont);
        self.known.addrs.insert(key, addr);
        Ok(Some(addr))
    }

    /// Make the element write held back in [`Known::pending`], if any.
    pub(super) fn flush_store(&mut self) {
        if let Some((el, addr, v)) = self.known.pending.take() {
            self.store_elem(&el, addr, &v);
        }
    }

    /// Can statement `v` be translated with an element write still held back? Writes and reads
    /// of elements of number arrays through checked addresses (which see it or flush it), and
    /// arithmetic on numbers, which reads no memory and never fails: nothing else may observe
    /// the array's memory before the write is made.
    pub(super) fn keeps_pending(&self, v: zy_ir::Value) -> bool {
        let Some(stmt) = self.func.stmt(v) else {
            return false;
        };
        if self.fused.contains_key(&v) {
            return false;
        }
        let number = |t: &Type| matches!(t, Type::Float64 | Type::Int64 | Type::Bool);
        let plain = |op: &Operand| match op {
            Operand::Value(x) => self.maybe_undef[x.index()].is_none() && number(self.func.ty(*x)),
            Operand::Const(c) => matches!(c, Const::F64(_) | Const::Int(_) | Const::Bool(_)),
        };
        match &stmt.op {
            Op::Prim(Prim::GetIndex | Prim::SetIndex) => match stmt.args.split_first() {
                Some((Operand::Value(a), rest)) => {
                    matches!(self.func.ty(*a), Type::Array(e, _) if number(e))
                        && self.maybe_undef[a.index()].is_none()
                        && rest.iter().all(plain)
                }
                _ => false,
            },
            Op::Prim(p) => {
                let e = p.info().effects;
                !e.allocates
                    && e.mutates.is_none()
                    && !e.calls
                    && e.throws == zy_ir::Throws::Never
                    && stmt.args.iter().all(plain)
                    && number(self.func.ty(v))
            }
            _ => false,
        }
    }

    /// Header word `off` of array `a`: loaded, or while [`Known::headers`] is set, the load of
    /// it made earlier in this IR block.
    fn header(&mut self, a: ClValue, off: i32) -> ClValue {
        if !self.known.headers {
            return self.b.ins().load(types::I64, mem(), a, off);
        }
        if let Some(&v) = self.known.words.get(&(a, off)) {
            return v;
        }
        let flags = if self.known.movable {
            mem().with_can_move()
        } else {
            mem()
        };
        let v = self.b.ins().load(types::I64, flags, a, off);
        self.known.words.insert((a, off), v);
        v
    }
}

/// What the translation of one IR block knows about its arrays: header words loaded and
/// element addresses whose indices were checked. Cleared at the start of every block and after
/// every statement that may change an array's shape or storage (see [`keeps_headers`]), so
/// every value in it was computed in a Cranelift block dominating the current one.
#[derive(Default)]
pub(super) struct Known {
    /// `(array, offset)` → the header word loaded.
    words: HashMap<(ClValue, i32), ClValue>,
    /// `[array, indices...]` → the address of the element, checked in bounds.
    addrs: HashMap<Vec<ClValue>, ClValue>,
    /// [`Translator::header`] reads and fills `words` (only while an indexing statement
    /// computes its address, outside every slow path).
    headers: bool,
    /// The header words [`Translator::header`] loads may be read before the current loop
    /// (marked `can_move`, which no other load of the JIT is).
    movable: bool,
    /// The indexing statement being translated, which may use and extend what is known.
    pub stmt: Option<zy_ir::Value>,
    /// An element write to a checked address not made yet (`x̄[i] = x̄[i] + a` followed by
    /// `x̄[i] = x̄[i] + b` stores once): the element, its address and its slots. Made before
    /// any statement that [`Translator::keeps_pending`] does not allow, and at the block's end.
    pub pending: Option<(Elem, ClValue, Vec<ClValue>)>,
}

impl Known {
    /// Forget everything (a new block, or a statement that may resize an array).
    pub(super) fn clear(&mut self) {
        self.words.clear();
        self.addrs.clear();
        self.stmt = None;
    }
}

/// Does statement `op` leave every array's length, sizes and storage as they were? Primitives
/// that mutate nothing and call nothing, and `setindex!`, which writes an element.
pub(super) fn keeps_headers(op: &Op) -> bool {
    match op {
        Op::Prim(Prim::SetIndex) => true,
        Op::Prim(p) => {
            let e = p.info().effects;
            e.mutates.is_none() && !e.calls
        }
        _ => false,
    }
}
