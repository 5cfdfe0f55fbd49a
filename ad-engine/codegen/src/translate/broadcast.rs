//! `broadcast(f, args...)` compiled as a loop over the elements, `f` translated inline. Only
//! arrays of one shape (and scalars), and vectors as columns of a matrix result, take this
//! path; other shapes (extents of 1 stretched), row vectors and arrays of 3 or more dimensions
//! run in the runtime, which raises the interpreter's errors too.
//!
//! One loop may also compute a chain of broadcasts (each stage reading the elements of the
//! stages before it, see `fuse::Chain`) and add its result into an array, or sum it.

use cranelift_codegen::ir::{condcodes::IntCC, types, BlockArg, InstBuilder};
use zy_interp::LANES;
use zy_ir::{Const, Operand, Prim, Span, Type};

use super::scalar::Slow;
use super::{mem, ClValue, Translator, R};
use crate::error::JitError;
use crate::layout::elem_slot;
use crate::runtime::arena::array_offset;

/// One broadcast statement of a loop: `broadcast(args...)` of type `ty`, which is the IR value
/// `id` when later stages read it.
pub(super) struct Stage {
    pub id: Option<zy_ir::Value>,
    pub args: Vec<Operand>,
    pub ty: Type,
    pub span: Span,
}

/// The Float64 array a loop adds its elements into.
#[derive(Clone, Copy)]
pub(super) struct Into {
    /// The array.
    pub dst: ClValue,
    /// It is fresh (see `fuse::fresh`): `dst[i] = 0.0 + y` instead of `dst[i] += y`.
    pub fresh: bool,
    /// Added into the slice of `dst` at the 0-based first index `base`, step `step`, of
    /// length `n`, as `accum_slice!` adds a slice's gradient made by `accum!` into zeros:
    /// `dst[base + i step] += 0.0 + y`.
    pub view: Option<(ClValue, ClValue, ClValue)>,
}

/// What a loop does with its last stage's elements.
#[derive(Clone, Copy)]
pub(super) enum Out {
    /// Stores them into a new array, its result.
    New,
    /// Adds them into an array.
    Into(Into),
    /// Sums them (a Float64 result), in `sum`'s order: block by block (at most
    /// [`SUM_BLOCK`] elements, see `zy_interp::sum_block_len`), each block in the
    /// interpreter's interleaved lanes (see `summed_block`), the blocks' sums combined by the
    /// interpreter's pairwise split, so the bits are `sum` of the made array.
    Sum,
    /// Stores them as `New` does and sums them as `Sum` does: the new array and the sum.
    NewSum,
    /// Adds them as `Into` does and sums the elements stored (the sum of the array after):
    /// the sum.
    IntoSum(Into),
}

/// Where a loop puts each element: into a new array's `data`, or added into `into`'s array
/// (whose data `data` is).
#[derive(Clone, Copy)]
struct Put {
    data: ClValue,
    into: Option<Into>,
}

/// The most elements of one sequential block of `sum` (Julia's pairwise block size).
const SUM_BLOCK: i64 = 1024;

/// Where a stage's operand comes from, element by element.
#[derive(Clone, Copy)]
enum Src {
    /// An array's element (index into the loop's arrays).
    Array(usize),
    /// A number, the same for every element (index into the loop's scalars).
    Scalar(usize),
    /// An earlier stage's element.
    Stage(usize),
}

/// A stage resolved for translation.
struct Plan {
    p: Prim,
    srcs: Vec<Src>,
    elem_tys: Vec<Type>,
    elem: Type,
    square: bool,
}

/// What the loop body reads.
struct LoopEnv<'a> {
    plans: &'a [Plan],
    /// The data pointers of the arrays read.
    datas: &'a [ClValue],
    /// For an array that is a slice read in place: the first 0-based index and the step of
    /// its elements in the parent's data.
    views: &'a [Option<(ClValue, ClValue)>],
    scalars: &'a [ClValue],
    /// The arrays' element types.
    elem_tys: &'a [Type],
    /// Which arrays are vectors read as the columns of a matrix result (`d .* M`): at the
    /// element's row, not its linear index.
    columns: &'a [bool],
    rows: ClValue,
    /// The statement the runtime evaluates when an element operation's inline check fails.
    slow: &'a Slow<'a>,
}

impl Translator<'_, '_, '_> {
    /// The loop form of a broadcast, if the operand types allow it.
    pub(super) fn broadcast(
        &mut self,
        args: &[Operand],
        _tys: &[Type],
        ty: &Type,
        span: Span,
    ) -> R<Option<Vec<ClValue>>> {
        let stage = Stage {
            id: None,
            args: args.to_vec(),
            ty: ty.clone(),
            span,
        };
        self.broadcast_loop(&[stage], Out::New, |t| {
            t.fallback(Prim::Broadcast, args, ty, span)
        })
    }

    /// The loop of `stages` (the others are not made): the last one's elements in a new array
    /// (its result), or added into the Float64 array `dst` of [`Out::Into`] of their
    /// shape (`dst[i] += y`, or `dst[i] = 0.0 + y` when `dst` is fresh: see `fuse::fresh`), or
    /// summed (the sum its result), or stored either way and the stored elements summed
    /// ([`Out::NewSum`], [`Out::IntoSum`]). `slow` runs when the shapes differ (it must raise
    /// the interpreter's error or compute the unfused results, in the order of `out`'s). `None` when the operand types have no loop form (nothing was emitted).
    pub(super) fn broadcast_loop(
        &mut self,
        stages: &[Stage],
        out: Out,
        slow: impl FnOnce(&mut Self) -> R<Vec<ClValue>>,
    ) -> R<Option<Vec<ClValue>>> {
        let Some(root) = stages.last() else {
            return Ok(None);
        };
        // Every stage has the result's dimensions (1 or 2); a matrix result reads a vector
        // operand as a column.
        let dims = match root.ty {
            Type::Array(_, d @ (1 | 2)) => d,
            _ => return Ok(None),
        };
        if stages
            .iter()
            .any(|st| !matches!(st.ty, Type::Array(_, d) if d == dims))
        {
            return Ok(None);
        }
        // Resolve every stage's function and operands before emitting anything.
        let mut arrays: Vec<(Operand, Type)> = Vec::new();
        let mut scalar_ops: Vec<Operand> = Vec::new();
        // The arrays uniform shadows take their shapes from, each with whether the shadow is
        // read as a column.
        let mut uniforms: Vec<(Operand, bool)> = Vec::new();
        let mut plans: Vec<Plan> = Vec::new();
        for (k, st) in stages.iter().enumerate() {
            let (Some(Operand::Const(Const::Func(name))), Type::Array(elem, _)) =
                (st.args.first(), &st.ty)
            else {
                return Ok(None);
            };
            let Some(p) = Prim::elementwise(name, st.args.len() - 1) else {
                return Ok(None);
            };
            let mut srcs = Vec::new();
            let mut elem_tys = Vec::new();
            for o in &st.args[1..] {
                let earlier = o
                    .as_value()
                    .and_then(|v| stages[..k].iter().position(|s| s.id == Some(v)));
                if let Some(j) = earlier {
                    srcs.push(Src::Stage(j));
                    elem_tys.push(plans[j].elem.clone());
                    continue;
                }
                if let Some((like, _)) = self.uniform(o) {
                    let Type::Array(_, d) = self.func.operand_ty(o) else {
                        return Ok(None);
                    };
                    if d > dims {
                        return Ok(None);
                    }
                    srcs.push(Src::Scalar(scalar_ops.len()));
                    scalar_ops.push(o.clone());
                    elem_tys.push(Type::Float64);
                    uniforms.push((like, d < dims));
                    continue;
                }
                match self.func.operand_ty(o) {
                    Type::Array(e, d) if e.is_number() && d <= dims => {
                        let t = Type::Array(e.clone(), d);
                        let at = arrays.iter().position(|(a, _)| a == o).unwrap_or_else(|| {
                            arrays.push((o.clone(), t));
                            arrays.len() - 1
                        });
                        srcs.push(Src::Array(at));
                        elem_tys.push((*e).clone());
                    }
                    t if t.is_number() => {
                        srcs.push(Src::Scalar(scalar_ops.len()));
                        scalar_ops.push(o.clone());
                        elem_tys.push(t);
                    }
                    _ => return Ok(None),
                }
            }
            let elem = (**elem).clone();
            if !self.scalar_supported(p, &elem_tys, &elem) {
                return Ok(None);
            }
            let square = st.args.get(2) == Some(&Operand::Const(Const::Int(2)));
            plans.push(Plan {
                p,
                srcs,
                elem_tys,
                elem,
                square,
            });
        }
        let elem = plans[plans.len() - 1].elem.clone();
        if arrays.is_empty() || (!matches!(out, Out::New) && elem != Type::Float64) {
            return Ok(None);
        }
        let out_slot = elem_slot(&elem)?;
        let mut scalars = Vec::new();
        for o in &scalar_ops {
            if let Some((_, value)) = self.uniform(o) {
                scalars.push(self.uniform_element(&value)?);
                continue;
            }
            let vs = self.operand(o)?;
            scalars.push(
                *vs.first()
                    .ok_or_else(|| JitError::invalid("broadcast operand without a slot"))?,
            );
        }
        // Each array's pointer, and for a slice read in place its parent's, with the slice's
        // first index and step.
        let mut ptrs = Vec::new();
        let mut views: Vec<Option<(ClValue, ClValue)>> = Vec::new();
        for (o, _) in &arrays {
            if self.is_virtual_slice(o) {
                let (x, base, step, _) = self.slice_view(o)?;
                ptrs.push(x);
                views.push(Some((base, step)));
            } else {
                ptrs.push(self.pointer(o)?);
                views.push(None);
            }
        }
        // The shape comes from the first array of the result's dimensions.
        let columns: Vec<bool> = arrays
            .iter()
            .map(|(_, t)| matches!(t, Type::Array(_, d) if *d < dims))
            .collect();
        let Some(first) = columns.iter().position(|c| !c) else {
            return Ok(None);
        };
        let mut shapes = Vec::new();
        for (o, _) in &arrays {
            shapes.push(self.shape(o)?);
        }
        // Whether each shape is a column's (`columns`, then the destination's and the uniform
        // shadows').
        let mut as_column = columns.clone();
        let mut outside = None;
        match out {
            Out::Into(Into {
                dst,
                view: Some((base, step, n)),
                ..
            }) => {
                // The slice's indices must be inside `dst`.
                let len = self.b.ins().load(types::I64, mem(), dst, array_offset::LEN);
                let first = self.b.ins().iadd_imm_s(base, 1);
                let ok = self.slice_in_bounds(first, step, n, len);
                outside = Some(self.b.ins().bnot(ok));
                shapes.push((n, self.b.ins().iconst(types::I64, 1)));
            }
            Out::Into(Into { dst, .. }) | Out::IntoSum(Into { dst, .. }) => shapes.push((
                self.b
                    .ins()
                    .load(types::I64, mem(), dst, array_offset::ROWS),
                self.b
                    .ins()
                    .load(types::I64, mem(), dst, array_offset::COLS),
            )),
            Out::New | Out::Sum | Out::NewSum => {}
        }
        as_column.resize(shapes.len(), false);
        for (like, column) in &uniforms {
            shapes.push(self.shape(like)?);
            as_column.push(*column);
        }
        let (rows, cols) = shapes[first];
        let len = self.b.ins().imul(rows, cols);
        let mut bad = self.b.ins().iconst(types::I8, 0);
        let others = shapes
            .iter()
            .zip(&as_column)
            .enumerate()
            .filter(|&(k, _)| k != first)
            .map(|(_, (s, c))| (*s, *c));
        for ((r, c), column) in others {
            let dr = self.b.ins().icmp(IntCC::NotEqual, r, rows);
            let d = if column {
                dr
            } else {
                let dc = self.b.ins().icmp(IntCC::NotEqual, c, cols);
                self.b.ins().bor(dr, dc)
            };
            bad = self.b.ins().bor(bad, d);
        }
        if let Some(o) = outside {
            let o = self.b.ins().band_imm_u(o, 1);
            bad = self.b.ins().bor(bad, o);
        }
        let out_tys: &[types::Type] = match out {
            Out::New => &[types::I64],
            Out::Into(_) => &[],
            Out::Sum | Out::IntoSum(_) => &[types::F64],
            Out::NewSum => &[types::I64, types::F64],
        };
        let elem_tys: Vec<Type> = arrays
            .iter()
            .map(|(_, t)| match t {
                Type::Array(e, _) => (**e).clone(),
                t => t.clone(),
            })
            .collect();
        let slow_stmt = Slow {
            p: Prim::Broadcast,
            args: &root.args,
            ty: &root.ty,
            span: root.span,
            whole: true,
        };
        let res = self.guarded(bad, out_tys, slow, |t| {
            let datas: Vec<ClValue> = ptrs
                .iter()
                .map(|a| t.b.ins().load(types::I64, mem(), *a, array_offset::DATA))
                .collect();
            let env = LoopEnv {
                plans: &plans,
                datas: &datas,
                views: &views,
                scalars: &scalars,
                elem_tys: &elem_tys,
                columns: &columns,
                rows,
                slow: &slow_stmt,
            };
            let zero = t.b.ins().iconst(types::I64, 0);
            let range = [zero, len, zero];
            match out {
                Out::New | Out::NewSum => {
                    // Every element is written below before anything reads the array.
                    let rt = t.env.rt.array_new_uninit;
                    let ctx = t.ctx();
                    let size = t.b.ins().iconst(types::I64, i64::from(out_slot.size()));
                    let made = t
                        .call_rt(rt, &[ctx, rows, cols, size])
                        .ok_or_else(|| JitError::invalid("array_new"))?;
                    let data = t.b.ins().load(types::I64, mem(), made, array_offset::DATA);
                    let put = Some(Put { data, into: None });
                    if matches!(out, Out::NewSum) {
                        return Ok(vec![made, t.summed_loop(&env, len, put)?]);
                    }
                    t.elementwise_loop(&env, range, put)?;
                    Ok(vec![made])
                }
                Out::Into(into) | Out::IntoSum(into) => {
                    let data =
                        t.b.ins()
                            .load(types::I64, mem(), into.dst, array_offset::DATA);
                    let put = Some(Put {
                        data,
                        into: Some(into),
                    });
                    if matches!(out, Out::IntoSum(_)) {
                        return Ok(vec![t.summed_loop(&env, len, put)?]);
                    }
                    t.elementwise_loop(&env, range, put)?;
                    Ok(Vec::new())
                }
                Out::Sum => Ok(vec![t.summed_loop(&env, len, None)?]),
            }
        })?;
        Ok(Some(res))
    }

    /// The sum of the loop's elements, block by block (see [`Out::Sum`]); with `put`, the sum
    /// of the elements it stores.
    fn summed_loop(&mut self, env: &LoopEnv<'_>, len: ClValue, put: Option<Put>) -> R<ClValue> {
        // The blocks' sums, in the arena: every block but the last has over 512 elements.
        let blocks = self.b.ins().ushr_imm_u(len, 9);
        let blocks = self.b.ins().iadd_imm_s(blocks, 1);
        let one = self.b.ins().iconst(types::I64, 1);
        let size = self.b.ins().iconst(types::I64, 8);
        let ctx = self.ctx();
        let sums = self
            .call_rt(self.env.rt.array_new_uninit, &[ctx, blocks, one, size])
            .ok_or_else(|| JitError::invalid("array_new"))?;
        let sums = self
            .b
            .ins()
            .load(types::I64, mem(), sums, array_offset::DATA);
        let head = self.b.create_block();
        let body = self.b.create_block();
        let exit = self.b.create_block();
        let start = self.b.append_block_param(head, types::I64);
        let k = self.b.append_block_param(head, types::I64);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b
            .ins()
            .jump(head, &[BlockArg::Value(zero), BlockArg::Value(zero)]);
        self.b.switch_to_block(head);
        let more = self.b.ins().icmp(IntCC::SignedLessThan, start, len);
        self.b.ins().brif(more, body, &[], exit, &[]);
        self.b.switch_to_block(body);
        let m = self.sum_block_len(len, start);
        // A block is not empty, so the rows are not zero.
        let row = if env.columns.contains(&true) {
            self.b.ins().urem(start, env.rows)
        } else {
            zero
        };
        let s = self.summed_block(env, [start, m, row], put)?;
        let at = self.b.ins().ishl_imm_u(k, 3);
        let at = self.b.ins().iadd(sums, at);
        self.b.ins().store(mem(), s, at, 0);
        let end = self.b.ins().iadd(start, m);
        let next = self.b.ins().iadd_imm_s(k, 1);
        self.b
            .ins()
            .jump(head, &[BlockArg::Value(end), BlockArg::Value(next)]);
        self.b.switch_to_block(exit);
        self.call_rt(self.env.rt.sum_blocks, &[len, sums, k])
            .ok_or_else(|| JitError::invalid("sum_blocks"))
    }

    /// The length of the sequential block of `sum`'s order over `len` elements that starts at
    /// `start` (`zy_interp::sum_block_len`): the leaf of the pairwise split that holds it.
    fn sum_block_len(&mut self, len: ClValue, start: ClValue) -> ClValue {
        let head = self.b.create_block();
        let split = self.b.create_block();
        let exit = self.b.create_block();
        let lo = self.b.append_block_param(head, types::I64);
        let n = self.b.append_block_param(head, types::I64);
        let m = self.b.append_block_param(exit, types::I64);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b
            .ins()
            .jump(head, &[BlockArg::Value(zero), BlockArg::Value(len)]);
        self.b.switch_to_block(head);
        let big = self
            .b
            .ins()
            .icmp_imm_s(IntCC::SignedGreaterThan, n, SUM_BLOCK);
        self.b
            .ins()
            .brif(big, split, &[], exit, &[BlockArg::Value(n)]);
        self.b.switch_to_block(split);
        // mid = (n - 1) / 2 + 1: the left half, then the right one.
        let mid = self.b.ins().iadd_imm_s(n, -1);
        let mid = self.b.ins().ushr_imm_u(mid, 1);
        let mid = self.b.ins().iadd_imm_s(mid, 1);
        let lo_mid = self.b.ins().iadd(lo, mid);
        let left = self.b.ins().icmp(IntCC::SignedLessThan, start, lo_mid);
        let rest = self.b.ins().isub(n, mid);
        let lo = self.b.ins().select(left, lo, lo_mid);
        let n = self.b.ins().select(left, mid, rest);
        self.b
            .ins()
            .jump(head, &[BlockArg::Value(lo), BlockArg::Value(n)]);
        self.b.switch_to_block(exit);
        m
    }

    /// The sum of the `m > 0` elements from `start` (`row` the row of `start`), one sequential
    /// block, as `zy_interp::sum_block` sums it: from [`LANES`] elements on, lane `j` adds the
    /// elements at `j`, `j + LANES`, ... of the whole groups (the lanes are the loop's block
    /// parameters, in registers), the lanes combine as a balanced tree and the rest adds in
    /// left to right; a block shorter than two groups is a left fold. The lanes start at
    /// `-0.0`, which adding leaves every element as it is.
    fn summed_block(
        &mut self,
        env: &LoopEnv<'_>,
        [start, m, row]: [ClValue; 3],
        put: Option<Put>,
    ) -> R<ClValue> {
        let lanes = LANES as i64;
        let groups = self.b.create_block();
        let head = self.b.create_block();
        let body = self.b.create_block();
        let tree = self.b.create_block();
        let rest = self.b.create_block();
        let acc = self.b.append_block_param(rest, types::F64);
        let at = self.b.append_block_param(rest, types::I64);
        let at_row = self.b.append_block_param(rest, types::I64);
        let neg_zero = self.b.ins().f64const(-0.0);
        let grouped = self
            .b
            .ins()
            .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, m, 2 * lanes);
        let to_rest = [neg_zero, start, row].map(BlockArg::Value);
        self.b.ins().brif(grouped, groups, &[], rest, &to_rest);
        self.b.switch_to_block(groups);
        let whole = self.b.ins().band_imm_s(m, -lanes);
        let groups_end = self.b.ins().iadd(start, whole);
        let i = self.b.append_block_param(head, types::I64);
        let head_row = self.b.append_block_param(head, types::I64);
        let sums: Vec<ClValue> = (0..LANES)
            .map(|_| self.b.append_block_param(head, types::F64))
            .collect();
        let mut args = vec![BlockArg::Value(start), BlockArg::Value(row)];
        args.extend([BlockArg::Value(neg_zero); LANES]);
        self.b.ins().jump(head, &args);
        self.b.switch_to_block(head);
        let more = self.b.ins().icmp(IntCC::SignedLessThan, i, groups_end);
        self.b.ins().brif(more, body, &[], tree, &[]);
        self.b.switch_to_block(body);
        let (mut at_i, mut r) = (i, head_row);
        let mut next = Vec::with_capacity(LANES);
        for &lane in &sums {
            let x = self.element(env, at_i, r)?;
            let x = self.put_element(env, put, at_i, x)?;
            next.push(self.b.ins().fadd(lane, x));
            at_i = self.b.ins().iadd_imm_s(at_i, 1);
            r = self.next_row(env, r);
        }
        let mut args = vec![BlockArg::Value(at_i), BlockArg::Value(r)];
        args.extend(next.into_iter().map(BlockArg::Value));
        self.b.ins().jump(head, &args);
        self.b.switch_to_block(tree);
        let mut level = sums;
        while level.len() > 1 {
            level = level
                .chunks_exact(2)
                .map(|pair| self.b.ins().fadd(pair[0], pair[1]))
                .collect();
        }
        let to_rest = [level[0], groups_end, head_row].map(BlockArg::Value);
        self.b.ins().jump(rest, &to_rest);
        self.b.switch_to_block(rest);
        // The elements past the whole groups (or the whole short block), left to right.
        let end = self.b.ins().iadd(start, m);
        let fold_head = self.b.create_block();
        let fold_body = self.b.create_block();
        let done = self.b.create_block();
        let f_acc = self.b.append_block_param(fold_head, types::F64);
        let f_i = self.b.append_block_param(fold_head, types::I64);
        let f_row = self.b.append_block_param(fold_head, types::I64);
        let sum = self.b.append_block_param(done, types::F64);
        self.b
            .ins()
            .jump(fold_head, &[acc, at, at_row].map(BlockArg::Value));
        self.b.switch_to_block(fold_head);
        let more = self.b.ins().icmp(IntCC::SignedLessThan, f_i, end);
        self.b
            .ins()
            .brif(more, fold_body, &[], done, &[BlockArg::Value(f_acc)]);
        self.b.switch_to_block(fold_body);
        let x = self.element(env, f_i, f_row)?;
        let x = self.put_element(env, put, f_i, x)?;
        let acc = self.b.ins().fadd(f_acc, x);
        let next = self.b.ins().iadd_imm_s(f_i, 1);
        let next_row = self.next_row(env, f_row);
        self.b
            .ins()
            .jump(fold_head, &[acc, next, next_row].map(BlockArg::Value));
        self.b.switch_to_block(done);
        Ok(sum)
    }

    /// Emit the loop over the elements `start <= i < end` (`row0` the row of `start`): each
    /// stage's element in turn, the last one put where `put` says.
    fn elementwise_loop(
        &mut self,
        env: &LoopEnv<'_>,
        [start, end, row0]: [ClValue; 3],
        put: Option<Put>,
    ) -> R<()> {
        let head = self.b.create_block();
        let body = self.b.create_block();
        let exit = self.b.create_block();
        let i = self.b.append_block_param(head, types::I64);
        // The row of element `i` (for column operands).
        let row = self.b.append_block_param(head, types::I64);
        self.b
            .ins()
            .jump(head, &[BlockArg::Value(start), BlockArg::Value(row0)]);
        self.b.switch_to_block(head);
        let more = self.b.ins().icmp(IntCC::SignedLessThan, i, end);
        self.b.ins().brif(more, body, &[], exit, &[]);
        self.b.switch_to_block(body);
        let v = self.element(env, i, row)?;
        self.put_element(env, put, i, v)?;
        let next = self.b.ins().iadd_imm_s(i, 1);
        let next_row = self.next_row(env, row);
        self.b
            .ins()
            .jump(head, &[BlockArg::Value(next), BlockArg::Value(next_row)]);
        self.b.switch_to_block(exit);
        Ok(())
    }

    /// Put the last stage's value `v` at element `i` where `put` says (nowhere without it), and
    /// return the value stored.
    fn put_element(
        &mut self,
        env: &LoopEnv<'_>,
        put: Option<Put>,
        i: ClValue,
        v: ClValue,
    ) -> R<ClValue> {
        let Some(Put { data, into }) = put else {
            return Ok(v);
        };
        let root_elem = &env.plans[env.plans.len() - 1].elem;
        let out_slot = elem_slot(root_elem)?;
        let mut k = i;
        if let Some((base, step, _)) = into.and_then(|d| d.view) {
            let d = self.b.ins().imul(i, step);
            k = self.b.ins().iadd(base, d);
        }
        let off = self.b.ins().imul_imm_s(k, i64::from(out_slot.size()));
        let at = self.b.ins().iadd(data, off);
        let Some(d) = into else {
            self.b.ins().store(mem(), v, at, 0);
            return Ok(v);
        };
        // What accum! of the materialised result would have stored (into the zeros of a
        // slice's gradient, then added into its parent's by accum_slice!).
        let (old, v) = if d.view.is_some() {
            let zero = self.b.ins().f64const(0.0);
            let y = self.b.ins().fadd(zero, v);
            (self.b.ins().load(types::F64, mem(), at, 0), y)
        } else if d.fresh {
            (self.b.ins().f64const(0.0), v)
        } else {
            (self.b.ins().load(types::F64, mem(), at, 0), v)
        };
        let nv = self.b.ins().fadd(old, v);
        self.b.ins().store(mem(), nv, at, 0);
        Ok(nv)
    }

    /// The last stage's value at element `i` (at row `row`, for column operands): each
    /// stage's element in turn.
    fn element(&mut self, env: &LoopEnv<'_>, i: ClValue, row: ClValue) -> R<ClValue> {
        let mut loaded: Vec<Option<ClValue>> = vec![None; env.datas.len()];
        let mut elems: Vec<ClValue> = Vec::new();
        for plan in env.plans {
            let mut xs = Vec::new();
            for src in &plan.srcs {
                xs.push(match *src {
                    Src::Array(a) => match loaded[a] {
                        Some(x) => x,
                        None => {
                            let slot = elem_slot(&env.elem_tys[a])?;
                            let mut at = if env.columns[a] { row } else { i };
                            if let Some((base, step)) = env.views[a] {
                                let k = self.b.ins().imul(at, step);
                                at = self.b.ins().iadd(base, k);
                            }
                            let off = self.b.ins().imul_imm_s(at, i64::from(slot.size()));
                            let at = self.b.ins().iadd(env.datas[a], off);
                            let x = self.b.ins().load(slot.cl_type(), mem(), at, 0);
                            loaded[a] = Some(x);
                            x
                        }
                    },
                    Src::Scalar(s) => env.scalars[s],
                    Src::Stage(j) => elems[j],
                });
            }
            let v = self
                .scalar_values(
                    plan.p,
                    &xs,
                    &plan.elem_tys,
                    &plan.elem,
                    plan.square,
                    env.slow,
                )?
                .ok_or_else(|| JitError::invalid("broadcast element operation"))?;
            elems.push(v);
        }
        elems
            .last()
            .copied()
            .ok_or_else(|| JitError::invalid("a broadcast loop without stages"))
    }

    /// The row of the element after one at `row` (the same value when no operand is read as a
    /// column).
    fn next_row(&mut self, env: &LoopEnv<'_>, row: ClValue) -> ClValue {
        if !env.columns.contains(&true) {
            return row;
        }
        let next = self.b.ins().iadd_imm_s(row, 1);
        let wrap = self.b.ins().icmp(IntCC::Equal, next, env.rows);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.ins().select(wrap, zero, next)
    }

    /// Does `p` on scalars of `tys` giving `ty` have an inline translation?
    fn scalar_supported(&self, p: Prim, tys: &[Type], ty: &Type) -> bool {
        let float_math = p.math().is_some()
            || matches!(
                p,
                Prim::Neg | Prim::Abs | Prim::Floor | Prim::Ceil | Prim::Round | Prim::Sign
            );
        let float_bin = matches!(
            p,
            Prim::Add | Prim::Sub | Prim::Mul | Prim::Div | Prim::Max | Prim::Min | Prim::Copysign
        );
        let cmp = matches!(
            p,
            Prim::Lt | Prim::Le | Prim::Gt | Prim::Ge | Prim::Eq | Prim::Ne
        );
        match (tys, ty) {
            ([Type::Float64], Type::Float64) => float_math,
            ([Type::Float64, Type::Float64], Type::Float64) => float_bin,
            ([Type::Float64, Type::Float64], Type::Bool) => cmp,
            ([Type::Float64, Type::Int64], Type::Float64) => p == Prim::Pow,
            ([Type::Bool | Type::Int64], Type::Float64) => p == Prim::Float,
            _ => false,
        }
    }
}
