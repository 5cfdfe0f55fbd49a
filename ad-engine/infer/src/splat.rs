//! Calls that splat arguments, `splatcall(flags, f, args...)` (Julia's `f(t...)`): each
//! argument flagged `true` is a tuple (or named tuple) whose elements become arguments; the
//! call is then typed as any other. A vector splatted (its length known only at run time) goes
//! to a fold or a stacking helper of the library, or to the synthesised `splat`.

use zy_ir::{Const, Instance, Op, Type};

use crate::calls::Cx;
use crate::error::Fail;
use crate::plan::PlanBuilder;
use crate::value::Val;

impl Cx<'_> {
    /// `splatcall(flags, f, args...)`.
    pub(crate) fn splat_call(&mut self, b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
        let Some((
            Val {
                konst: Some(Const::Tuple(flags)),
                ..
            },
            rest,
        )) = args.split_first()
        else {
            return Err(Fail::unsupported("malformed splatting call"));
        };
        let Some((callee, values)) = rest.split_first() else {
            return Err(Fail::unsupported("malformed splatting call"));
        };
        if let ([Const::Bool(true)], [s]) = (flags.as_ref(), values) {
            if is_slices(&s.ty) && is_cat(callee) {
                return self.splat_vector(b, callee, s);
            }
        }
        let values = flags
            .iter()
            .zip(values)
            .map(|(flag, v)| match (flag, &v.ty) {
                (Const::Bool(true), Type::Struct(_)) => self.collect_splatted(b, v),
                _ => Ok(v.clone()),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let values = values.as_slice();
        if let Some(joined) = self.splat_arrays(b, callee, flags, values)? {
            return Ok(joined);
        }
        if let [Const::Bool(true)] = flags.as_ref() {
            if let [x @ Val {
                ty: Type::Array(_, 1),
                elems: None,
                ..
            }] = values
            {
                return self.splat_vector(b, callee, x);
            }
        }
        let mut expanded = vec![callee.clone()];
        // The vector splatted, and how many arguments come before it.
        let mut vector: Option<(usize, Val)> = None;
        for (flag, value) in flags.iter().zip(values) {
            if *flag != Const::Bool(true) {
                expanded.push(value.clone());
                continue;
            }
            let count = match (&value.ty, &value.elems) {
                (Type::Tuple(items), _) => items.len(),
                (Type::NamedTuple(fields), _) => fields.len(),
                // A vector literal nothing else reads: its length is known here.
                (Type::Array(_, 1), Some(elems)) => elems.len(),
                (Type::Array(_, 1), None) if vector.is_none() => {
                    vector = Some((expanded.len() - 1, value.clone()));
                    continue;
                }
                // A number iterates once, as itself: `f(x...)` of a Float64 is `f(x)`.
                (t, _) if t.is_number() => {
                    expanded.push(value.clone());
                    continue;
                }
                (Type::Array(..), _) => {
                    return Err(Fail::unsupported(
                        "splatting an array with `...` beside another splatted array, or of \
                         more than one dimension (its length is not known where the call is \
                         compiled); splat one vector, index it, or pass a tuple",
                    ))
                }
                (t, _) => {
                    return Err(Fail::method(format!(
                        "MethodError: no method matching iterate(::{t}) (splatting with `...`)"
                    )))
                }
            };
            for i in 1..=count {
                let index = Val::lit(Const::Int(i as i64));
                let x = self.call_named(b, &"getindex".into(), &[value.clone(), index])?;
                expanded.push(x);
            }
        }
        if let Some((at, x)) = vector {
            let (pre, post) = expanded[1..].split_at(at);
            if is_kwcall(callee) {
                return self.splat_keywords(b, pre, &x, post);
            }
            return self.splat_run(b, callee, pre, &x, post);
        }
        match &callee.konst {
            Some(Const::Func(name)) => self.call_named(b, name, &expanded[1..]),
            _ => self.call_value(b, &expanded),
        }
    }

    /// `[a..., b..., x]` or `f(a..., b...)` where several arrays whose lengths are known only
    /// at run time, or an array of more than one dimension, are splatted: Julia iterates each
    /// in turn (a matrix by columns). Their elements are gathered into one vector, the `vcat`
    /// of each array's `vec`, then splatted as one vector. In a vector literal (`vect`) the
    /// other items join as one-element vectors (their types promoted as `vect` promotes); in
    /// another call the splatted arrays must sit together, of one element type, with no other
    /// splatted argument, else `None` (the caller's refusal).
    fn splat_arrays(
        &mut self,
        b: &mut PlanBuilder,
        callee: &Val,
        flags: &[Const],
        values: &[Val],
    ) -> Result<Option<Val>, Fail> {
        let at_run_time = |i: usize| {
            flags[i] == Const::Bool(true)
                && match (&values[i].ty, &values[i].elems) {
                    (Type::Array(_, 1), elems) => elems.is_none(),
                    (Type::Array(..), _) => true,
                    _ => false,
                }
        };
        let arrays: Vec<usize> = (0..values.len()).filter(|&i| at_run_time(i)).collect();
        let (Some(&first), Some(&last)) = (arrays.first(), arrays.last()) else {
            return Ok(None);
        };
        let several_dims = arrays
            .iter()
            .any(|&i| matches!(values[i].ty, Type::Array(_, n) if n > 1));
        if arrays.len() < 2 && !several_dims {
            return Ok(None);
        }
        let vect = matches!(&callee.konst, Some(Const::Func(n)) if n.strip_prefix("Base.").unwrap_or(n) == "vect");
        let (lo, hi) = if vect {
            (0, values.len())
        } else {
            (first, last + 1)
        };
        if !vect {
            let elem = |i: usize| match &values[i].ty {
                Type::Array(e, _) => Some(e.clone()),
                _ => None,
            };
            let together = (lo..hi).all(|i| at_run_time(i) && elem(i) == elem(first));
            let others_plain =
                (0..values.len()).all(|i| (lo..hi).contains(&i) || flags[i] != Const::Bool(true));
            if !together || !others_plain || is_kwcall(callee) {
                return Ok(None);
            }
        }
        let mut pieces = Vec::with_capacity(hi - lo);
        for (flag, v) in flags[lo..hi].iter().zip(&values[lo..hi]) {
            let one = std::slice::from_ref(v);
            let piece = match (flag, &v.ty) {
                (Const::Bool(true), Type::Array(..)) => {
                    self.call_named(b, &"Base.vec".into(), one)?
                }
                (Const::Bool(true), Type::Tuple(items)) => {
                    let mut elems = Vec::with_capacity(items.len());
                    for i in 1..=items.len() {
                        let index = Val::lit(Const::Int(i as i64));
                        elems.push(self.call_named(b, &"getindex".into(), &[v.clone(), index])?);
                    }
                    self.call_named(b, &"vect".into(), &elems)?
                }
                (Const::Bool(true), t) if !t.is_number() => return Ok(None),
                _ => self.call_named(b, &"vect".into(), one)?,
            };
            pieces.push(piece);
        }
        let joined = self.call_named(b, &"vcat".into(), &pieces)?;
        if vect {
            return Ok(Some(joined));
        }
        if lo == 0 && hi == values.len() {
            return self.splat_vector(b, callee, &joined).map(Some);
        }
        self.splat_run(b, callee, &values[..lo], &joined, &values[hi..])
            .map(Some)
    }

    /// A range, a generator or another iterable struct splatted (`vcat(1:3...)`, `[r...]`):
    /// Julia iterates it, so its items are collected into a vector, splatted as vectors are.
    /// A struct that cannot be iterated is Julia's `MethodError` for `iterate`.
    fn collect_splatted(&mut self, b: &mut PlanBuilder, v: &Val) -> Result<Val, Fail> {
        match self.call_named(b, &"Base.collect".into(), std::slice::from_ref(v)) {
            Ok(c) if matches!(c.ty, Type::Array(_, 1)) => Ok(c),
            _ => Err(Fail::method(format!(
                "MethodError: no method matching iterate(::{}) (splatting with `...`)",
                v.ty
            ))),
        }
    }

    /// `f(x...)` of a vector `x` alone (or of the rows or columns `vcat`/`hcat` splat, which
    /// the library concatenates without a vector of views): Julia splats it at run time. The folds `+`, `*`,
    /// `max`, `min` (`Base._splat_fold`), `vcat`/`hcat` (`Base._splat_vcat`, `_splat_hcat`),
    /// `string` (`Base._splat_string`), `[x...]` (a copy), and a function whose methods all
    /// take one number `n` of arguments: `length(x)` checked to be `n` (`Base._splat_arity`),
    /// then `f(x[1], ..., x[n])`; any other callee, [`Cx::splat_run`].
    fn splat_vector(&mut self, b: &mut PlanBuilder, callee: &Val, x: &Val) -> Result<Val, Fail> {
        let Some(Const::Func(name)) = &callee.konst else {
            return self.splat_run(b, callee, &[], x, &[]);
        };
        let bare = name.strip_prefix("Base.").unwrap_or(name);
        let helper = match bare {
            "+" | "*" | "max" | "min" => Some(("Base._splat_fold", true)),
            "vcat" => Some(("Base._splat_vcat", false)),
            "hcat" => Some(("Base._splat_hcat", false)),
            "vect" => Some(("Base.copy", false)),
            "string" => Some(("Base._splat_string", false)),
            _ => None,
        };
        if let Some((helper, with_op)) = helper {
            let args = if with_op {
                vec![callee.clone(), x.clone()]
            } else {
                vec![x.clone()]
            };
            return self.call_named(b, &helper.into(), &args);
        }
        let arities: Vec<usize> = match self.program.functions.get(name) {
            Some(gf) if gf.methods.iter().all(|m| m.vararg().is_none()) => {
                let mut n: Vec<usize> = gf.methods.iter().map(|m| m.sig.len()).collect();
                n.sort_unstable();
                n.dedup();
                n
            }
            _ => Vec::new(),
        };
        let [n] = arities.as_slice() else {
            return self.splat_run(b, callee, &[], x, &[]);
        };
        let count = Val::lit(Const::Int(*n as i64));
        self.call_named(
            b,
            &"Base._splat_arity".into(),
            &[callee.clone(), x.clone(), count],
        )?;
        let mut args = Vec::with_capacity(*n);
        for i in 1..=*n {
            let index = Val::lit(Const::Int(i as i64));
            args.push(self.call_named(b, &"getindex".into(), &[x.clone(), index])?);
        }
        self.call_named(b, name, &args)
    }

    /// `f(pre..., x..., post...)` of a vector `x` whose length only the run knows, into a
    /// varargs function, one of several arities or a function value: Julia makes a tuple of
    /// `x`'s elements. zy calls the synthesised `splat(f, pre, x, post)`, which branches on
    /// `length(x)` to the call of each length up to [`crate::synth::SPLAT_MOST`] that a method
    /// takes (`crate::synth`).
    fn splat_run(
        &mut self,
        b: &mut PlanBuilder,
        callee: &Val,
        pre: &[Val],
        x: &Val,
        post: &[Val],
    ) -> Result<Val, Fail> {
        if matches!(&callee.konst, Some(Const::Func(n)) if &**n == "tuple") {
            return Err(Fail::unsupported(format!(
                "splatting a {} into a tuple `(x...,)` (a tuple's length is part of its type, \
                 a vector's is known only at run time); index it, or keep the vector",
                x.ty
            )));
        }
        if let (Some(Const::Func(n)), [rows], []) = (&callee.konst, pre, post) {
            if n.strip_prefix("Base.").unwrap_or(n) == "hvcat" && matches!(rows.ty, Type::Tuple(_))
            {
                return crate::builtins::concat::hvcat_rows(self, b, rows, x);
            }
        }
        let Type::Array(elem, 1) = &x.ty else {
            return Err(Fail::unsupported("malformed splatting call"));
        };
        // Refused here, at the call, rather than in the synthesised body.
        crate::synth::splat_lengths(
            self,
            callee,
            &crate::value::types(pre),
            elem,
            &crate::value::types(post),
        )?;
        let pre = self.call_named(b, &"tuple".into(), pre)?;
        let post = self.call_named(b, &"tuple".into(), post)?;
        let args = [callee.clone(), pre, x.clone(), post];
        let inst = Instance {
            name: crate::synth::SPLAT.into(),
            method: crate::SYNTH_METHOD,
            args: crate::value::types(&args).into(),
        };
        let (inst, ret) = self.invoke(inst);
        let ops = args.iter().map(|a| a.arg.clone()).collect();
        Ok(Val::of(b.push(Op::Invoke(inst), ops, ret.clone()), ret))
    }
}

impl Cx<'_> {
    /// `f(pre..., x..., post...; kw)` of a vector `x` (lowering's `kwcall(names, values..., f,
    /// pre..., x, post...)`): the keywords become one named tuple, whose type holds their
    /// names, and the call splats `x` into the library's `Base._splat_keywords(kw, f, args...)`,
    /// which calls `f(args...; kw...)`, as [`Cx::splat_run`] splats any vector.
    fn splat_keywords(
        &mut self,
        b: &mut PlanBuilder,
        pre: &[Val],
        x: &Val,
        post: &[Val],
    ) -> Result<Val, Fail> {
        let Some((
            Val {
                konst: Some(Const::Tuple(names)),
                ..
            },
            rest,
        )) = pre.split_first()
        else {
            return Err(Fail::unsupported("malformed keyword call"));
        };
        if rest.len() <= names.len() {
            return Err(Fail::unsupported(
                "splatting a vector with `...` among keyword arguments; splat it among the \
                 positional arguments",
            ));
        }
        let (values, positional) = rest.split_at(names.len());
        let passed = self.passed_keywords(b, names, values)?;
        let (keys, vals): (Vec<Const>, Vec<Val>) = passed
            .into_iter()
            .map(|(n, v)| (Const::Symbol(n), v))
            .unzip();
        let mut parts = vec![Val::lit(Const::Tuple(keys.into()))];
        parts.extend(vals);
        let kw = self.call_named(b, &"namedtuple".into(), &parts)?;
        let mut pre = vec![kw];
        pre.extend(positional.iter().cloned());
        let callee = Val::lit(Const::Func(crate::synth::SPLAT_KEYWORDS.into()));
        self.splat_run(b, &callee, &pre, x, post)
    }
}

/// Lowering's keyword call `f(xs...; kw)`, whose keyword names are constants a tuple would lose.
fn is_kwcall(callee: &Val) -> bool {
    matches!(&callee.konst, Some(Const::Func(n)) if &**n == "Base.kwcall")
}

/// `eachrow(A)` or `eachcol(A)`: Base's `RowSlices`, `ColumnSlices`.
fn is_slices(t: &Type) -> bool {
    matches!(t, Type::Struct(s) if matches!(&*s.name, "Base.RowSlices" | "Base.ColumnSlices"))
}

/// Is `f` Base's `vcat` or `hcat`?
fn is_cat(f: &Val) -> bool {
    matches!(&f.konst, Some(Const::Func(n)) if matches!(n.strip_prefix("Base.").unwrap_or(n), "vcat" | "hcat"))
}
