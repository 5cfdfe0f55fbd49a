//! Calls with keyword arguments, `kwcall(names, values..., f, args...)` (Julia's
//! `Core.kwcall`): the method is selected on the positional arguments as for any call, and its
//! [`zy_ir::Keywords`] record says how to call its body: each keyword's value is the one
//! passed or, when the call leaves it out, its default function's result; a keyword the method
//! does not take is a `MethodError` unless it collects the rest (`kw...`).

use zy_ir::{callable_name, Const, Name, Type};

use crate::calls::Cx;
use crate::dispatch;
use crate::error::{signature, Fail};
use crate::plan::PlanBuilder;
use crate::value::Val;

/// The name that marks a splatted named tuple (`kw...`) among a call's keyword names.
const SPLAT: &str = "...";

/// What a method's `kw...` is bound to: `pairs` of the named tuple of the other keywords (Julia's
/// `Base.Pairs`), as lowering binds it for a call without keywords.
const KEYWORD_REST: &str = "Base.pairs";

impl Cx<'_> {
    /// The keyword call `args` (as [`Self::keyword_call`] takes it) with each range among its
    /// positional arguments (those from `positional` on) replaced by the vector of its
    /// elements.
    fn keyword_call_ranges_copied(
        &mut self,
        b: &mut PlanBuilder,
        args: &[Val],
        positional: usize,
    ) -> Result<Val, Fail> {
        let mut copied = Vec::with_capacity(args.len());
        for (k, a) in args.iter().enumerate() {
            copied.push(match &a.ty {
                Type::Struct(s) if k >= positional && crate::pattern::is_range_struct(&s.name) => {
                    self.call_named(b, &"Base.collect".into(), std::slice::from_ref(a))?
                }
                _ => a.clone(),
            });
        }
        self.keyword_call(b, &copied)
    }

    /// `kwcall(names, values..., f, args...)`.
    pub(crate) fn keyword_call(&mut self, b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
        let Some((
            Val {
                konst: Some(Const::Tuple(names)),
                ..
            },
            rest,
        )) = args.split_first()
        else {
            return Err(Fail::unsupported("malformed keyword call"));
        };
        if rest.len() <= names.len() {
            return Err(Fail::unsupported("malformed keyword call"));
        }
        let (values, rest) = rest.split_at(names.len());
        let passed = self.passed_keywords(b, names, values)?;
        let (callee, positional) = rest
            .split_first()
            .ok_or_else(|| Fail::unsupported("keyword call without a callee"))?;
        // A global holding a function (`const search = searchsorted`) calls what it holds.
        let held;
        let callee = match &callee.konst {
            Some(Const::Func(n))
                if !self.program.functions.contains_key(n)
                    && self.program.globals.contains_key(n) =>
            {
                held = self.global(b, n)?;
                &held
            }
            _ => callee,
        };
        let (name, full): (Name, Vec<Val>) = match &callee.ty {
            Type::Function(n) => (n.clone(), positional.to_vec()),
            Type::Struct(s) => {
                let all: Vec<Val> = std::iter::once(callee).chain(positional).cloned().collect();
                let types = crate::value::types(&all);
                let name = dispatch::callable_for(self.signatures, self.program, &s.name, &types)
                    .unwrap_or_else(|| callable_name(&s.name));
                (name, all)
            }
            t => {
                return Err(Fail::method(format!(
                    "MethodError: objects of type {t} are not callable"
                )))
            }
        };
        let types = crate::value::types(&full);
        // A callable object's own type is in the name it is shown by: `(::Gain)(::Float64)`.
        let shown = &types[full.len() - positional.len()..];
        let no_method = |note: &str| {
            let kws: Vec<String> = passed
                .iter()
                .map(|(n, v)| format!("{n}::{}", v.ty))
                .collect();
            let sig = signature(&name, shown);
            let sig = format!("{}; {})", sig.trim_end_matches(')'), kws.join(", "));
            Fail::method(format!("MethodError: no method matching {sig}{note}"))
        };
        if let Some(v) = self.sum_dims(b, &name, &passed, &full)? {
            return Ok(v);
        }
        if let Some(v) = self.reduce_init(b, &name, &passed, &full)? {
            return Ok(v);
        }
        if let Some(v) = self.round_digits(b, &name, &passed, &full)? {
            return Ok(v);
        }
        if let Some(v) = self.cat_dims(b, &name, &passed, &full)? {
            return Ok(v);
        }
        if let Some(v) = self.mapslices_dims(b, &name, &passed, &full)? {
            return Ok(v);
        }
        let Some(gf) = self.program.functions.get(&name) else {
            return Err(no_method(""));
        };
        let selected = match dispatch::select(self.signatures, self.program, gf, &types) {
            Err(ambiguity) if ambiguity.is_ambiguity() => return Err(ambiguity),
            selected => selected.ok(),
        };
        let selected = selected.and_then(|method| {
            let m = gf.methods.get(method as usize)?;
            Some((m.keywords.clone(), m))
        });
        let (keywords, m) = match selected {
            Some((Some(keywords), m)) => (keywords, m),
            // As without keywords, a library function with no method for a range that takes
            // keywords reads the range's elements (`sort(1:5; rev = true)` is Julia's generic
            // `AbstractVector` method's, `sort(1:5)` the range's own).
            _ if crate::calls::reads_ranges(&name, shown) => {
                let positional = args.len() - positional.len();
                return self
                    .keyword_call_ranges_copied(b, args, positional)
                    .map_err(|_| no_method(""));
            }
            Some((None, _)) => {
                return Err(no_method(" (the method takes no keyword arguments)"));
            }
            None => return Err(no_method("")),
        };
        let full = dispatch::pack_varargs(self, b, m, &full)?;
        let mut unknown = passed
            .iter()
            .filter(|(n, _)| !keywords.params.iter().any(|(k, _)| k == n));
        if !keywords.rest {
            if let Some((n, _)) = unknown.next() {
                return Err(no_method(&format!(
                    " (the method does not take the keyword argument `{n}`)"
                )));
            }
        }
        let mut body_args = Vec::new();
        for (k, default) in &keywords.params {
            let value = match passed.iter().find(|(n, _)| n == k) {
                Some((_, v)) => v.clone(),
                None => {
                    let mut inputs = full.clone();
                    inputs.extend(body_args.iter().cloned());
                    self.call_generic(b, default, &inputs)?
                }
            };
            if value.ty == Type::Bottom {
                // The default throws (a required keyword left out): the body is never called.
                return Ok(value);
            }
            body_args.push(value);
        }
        if keywords.rest {
            let (names, values): (Vec<Const>, Vec<Val>) = passed
                .iter()
                .filter(|(n, _)| !keywords.params.iter().any(|(k, _)| k == n))
                .map(|(n, v)| (Const::Symbol(n.clone()), v.clone()))
                .unzip();
            let mut nt = vec![Val::lit(Const::Tuple(names.into()))];
            nt.extend(values);
            let nt = self.call_named(b, &"namedtuple".into(), &nt)?;
            body_args.push(self.call_named(b, &KEYWORD_REST.into(), &[nt])?);
        }
        body_args.extend(full);
        self.call_generic(b, &keywords.body, &body_args)
    }

    /// `sum(A; dims = d)`, and `prod`, `maximum`, `minimum`, of an array, a row `x'`, a view
    /// or a wrapper (`transpose(x)`, `Symmetric(A)`): the builtin
    /// reductions take no keywords, so the prelude computes them (`Base._sum_dims(A, d)`,
    /// `Base._reduce_dims(op, A, d)`); `sum(f, A; dims = d)` and the others with a function
    /// reduce `map(f, A)` so (Julia's `mapreduce(f, op, A; dims)`, `f` called once per element).
    /// `None` for any other call.
    fn sum_dims(
        &mut self,
        b: &mut PlanBuilder,
        name: &Name,
        passed: &[(Name, Val)],
        positional: &[Val],
    ) -> Result<Option<Val>, Fail> {
        let ([(k, d)], [f @ .., a]) = (passed, positional) else {
            return Ok(None);
        };
        if f.len() > 1 {
            return Ok(None);
        }
        // `transpose(x)`, `Symmetric(A)` and views (`view(A, :, 1:2)`, a shared `reshape`): the
        // prelude's methods, which read them element by element, or its reading of a copy.
        let wrapper = crate::calls::reads_as_copy(&a.ty);
        // Arrays of numbers (Float32s too, whose sums are Float32s); `sum`'s also of numbers
        // that may be `missing` (`nothing`).
        let numbers = |e: &Type| {
            e.is_number()
                || *e == Type::Float32
                || (name.strip_prefix("Base.").unwrap_or(name) == "sum"
                    && crate::absent::number_member(e).is_some())
        };
        let array = wrapper || matches!(&a.ty, Type::Array(e, _) | Type::Adjoint(e) if numbers(e));
        if &**k != "dims" || !array {
            return Ok(None);
        }
        let (helper, op) = match name.strip_prefix("Base.").unwrap_or(name) {
            "sum" => ("Base._sum_dims", None),
            "prod" => ("Base._reduce_dims", Some("*")),
            "maximum" => ("Base._reduce_dims", Some("max")),
            "minimum" => ("Base._reduce_dims", Some("min")),
            _ => return Ok(None),
        };
        if !self.program.functions.contains_key(helper) {
            return Ok(None);
        }
        let mut args: Vec<Val> = op
            .map(|f| Val::lit(Const::Func(f.into())))
            .into_iter()
            .collect();
        let a = match f {
            [f] => self.call_named(b, &"map".into(), &[f.clone(), a.clone()])?,
            _ => a.clone(),
        };
        args.extend([a, d.clone()]);
        self.call_named(b, &helper.into(), &args).map(Some)
    }

    /// `sum(x; init)`, `sum(f, x; init)`, and `prod`, `maximum`, `minimum` likewise: the
    /// builtin reductions take no keywords, so the prelude folds from `init` as Julia's
    /// `mapreduce(f, op, x; init)` does (`Base._mapfoldl(f, op, init, x)`: from the left, an
    /// empty `x` giving `init`). `None` for any other call.
    fn reduce_init(
        &mut self,
        b: &mut PlanBuilder,
        name: &Name,
        passed: &[(Name, Val)],
        positional: &[Val],
    ) -> Result<Option<Val>, Fail> {
        let [(k, init)] = passed else {
            return Ok(None);
        };
        let (f, x) = match positional {
            [x] => (Val::lit(Const::Func("Base.identity".into())), x),
            [f, x] => (f.clone(), x),
            _ => return Ok(None),
        };
        if &**k != "init" || !matches!(&x.ty, Type::Array(..) | Type::Struct(_) | Type::Tuple(_)) {
            return Ok(None);
        }
        let op = match name.strip_prefix("Base.").unwrap_or(name) {
            "sum" => "+",
            "prod" => "*",
            "maximum" => "max",
            "minimum" => "min",
            _ => return Ok(None),
        };
        let helper: Name = "Base._mapfoldl".into();
        if !self.program.functions.contains_key(&helper) {
            return Ok(None);
        }
        let args = [f, Val::lit(Const::Func(op.into())), init.clone(), x.clone()];
        self.call_named(b, &helper, &args).map(Some)
    }

    /// `cat(xs...; dims)`: the result's number of dimensions depends on `dims`, so it must be
    /// known here: `dims = 1` is `vcat`, `dims = 2` `hcat`, `dims = 3` the prelude's
    /// `Base._cat_along(3, xs...)`, `dims = 4` `Base._cat_along4(xs...)`, a tuple `dims = (1, 2)` the block diagonal
    /// (`Base._cat_diag(dims, xs...)`, which checks the tuple). `None` for any other call.
    fn cat_dims(
        &mut self,
        b: &mut PlanBuilder,
        name: &Name,
        passed: &[(Name, Val)],
        positional: &[Val],
    ) -> Result<Option<Val>, Fail> {
        let [(k, d)] = passed else {
            return Ok(None);
        };
        if name.strip_prefix("Base.").unwrap_or(name) != "cat" || &**k != "dims" {
            return Ok(None);
        }
        if positional.is_empty() {
            return Err(Fail::unsupported(
                "`cat()` of nothing (its element type would be Any); write `Float64[]` instead",
            ));
        }
        let (callee, lead): (&str, Option<Val>) = match (&d.ty, d.int()) {
            (_, Some(1)) => ("vcat", None),
            (_, Some(2)) => ("hcat", None),
            (_, Some(3)) => ("Base._cat_along", Some(d.clone())),
            (_, Some(4)) => ("Base._cat_along4", None),
            (Type::Tuple(ts), _) if ts.len() == 2 && ts.iter().all(|t| *t == Type::Int64) => {
                ("Base._cat_diag", Some(d.clone()))
            }
            (Type::Int64, None) => {
                return Err(Fail::unsupported(
                    "`cat` with `dims` known only at run time (the result's number of \
                     dimensions depends on it); write the number (`dims = 3`) instead",
                ))
            }
            _ => {
                return Err(Fail::unsupported(format!(
                    "`cat` with `dims = {}`; zy concatenates along dimensions 1 to 4 \
                     (`vcat`, `hcat`, `dims = 3`, `dims = 4`) and block-diagonally \
                     (`dims = (1, 2)`)",
                    d.int()
                        .map_or_else(|| format!("::{}", d.ty), |k| k.to_string())
                )))
            }
        };
        let mut args: Vec<Val> = lead.into_iter().collect();
        args.extend(positional.iter().cloned());
        self.call_named(b, &callee.into(), &args).map(Some)
    }

    /// `mapslices(f, A; dims)`: the slices `f` receives (vectors or matrices) depend on `dims`,
    /// so it must be known here: of a matrix `dims = 1` (columns, `Base._mapslices_columns`) or
    /// `2` (rows); of a 3-dimensional array `dims = (1, 2)` (the matrices `A[:, :, k]`, which
    /// `Base._mapslices_matrices` checks the tuple for) or `3` (the vectors `A[i, j, :]`).
    /// `None` for any other call.
    fn mapslices_dims(
        &mut self,
        b: &mut PlanBuilder,
        name: &Name,
        passed: &[(Name, Val)],
        positional: &[Val],
    ) -> Result<Option<Val>, Fail> {
        let ([(k, d)], [_, a]) = (passed, positional) else {
            return Ok(None);
        };
        if name.strip_prefix("Base.").unwrap_or(name) != "mapslices" || &**k != "dims" {
            return Ok(None);
        }
        let pair = matches!(&d.ty, Type::Tuple(ts) if ts.len() == 2 && ts.iter().all(|t| *t == Type::Int64));
        let helper = match (crate::pattern::slice_parent_dims(&a.ty), d.int()) {
            (Some(2), Some(1)) => "Base._mapslices_columns",
            (Some(2), Some(2)) => "Base._mapslices_rows",
            (Some(3), Some(3)) => "Base._mapslices_fibers",
            (Some(3), None) if pair => "Base._mapslices_matrices",
            _ => {
                return Err(Fail::unsupported(format!(
                    "`mapslices` of {} with `dims {}`; zy maps the columns or rows of a matrix \
                     (`dims = 1`, `2`) and the matrices (`dims = (1, 2)`) or vectors \
                     (`dims = 3`) of a 3-dimensional array, with `dims` written as a constant",
                    a.ty,
                    d.int()
                        .map_or_else(|| format!("::{}", d.ty), |k| format!("= {k}"))
                )))
            }
        };
        let mut args = positional.to_vec();
        if pair {
            args.push(d.clone());
        }
        self.call_named(b, &helper.into(), &args).map(Some)
    }

    /// `round(x; digits)`, `round(x; sigdigits)`, with `base`, and `trunc`, `floor`, `ceil` so,
    /// of a Float64: the builtins take no keywords, so the prelude rounds
    /// (`Base._round_digits(f, x, digits, base)`, `Base._round_sigdigits(f, x, sigdigits,
    /// base)`, Julia's definitions, `f` the rounding function). `None` for any other call.
    fn round_digits(
        &mut self,
        b: &mut PlanBuilder,
        name: &Name,
        passed: &[(Name, Val)],
        positional: &[Val],
    ) -> Result<Option<Val>, Fail> {
        let bare = name.strip_prefix("Base.").unwrap_or(name);
        let (x, bare) = match positional {
            [x] => (x, bare),
            // `round(x, RoundDown; digits)`: the mode's rounding function.
            [x, mode] if bare == "round" => match rounding_function(&mode.ty) {
                Some(f) => (x, f),
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
        if !matches!(bare, "round" | "trunc" | "floor" | "ceil") || x.ty != Type::Float64 {
            return Ok(None);
        }
        let find = |k: &str| {
            passed
                .iter()
                .find(|(n, _)| &**n == k)
                .map(|(_, v)| v.clone())
        };
        let (helper, digits) = match (find("digits"), find("sigdigits")) {
            (Some(d), None) => ("Base._round_digits", d),
            (None, Some(d)) => ("Base._round_sigdigits", d),
            (Some(_), Some(_)) => {
                return Err(Fail::method(format!(
                    "ArgumentError: `{bare}` cannot use both `digits` and `sigdigits` arguments."
                )))
            }
            (None, None) => return Ok(None),
        };
        if passed
            .iter()
            .any(|(n, _)| !matches!(&**n, "digits" | "sigdigits" | "base"))
        {
            return Ok(None);
        }
        let base = find("base").unwrap_or_else(|| Val::lit(Const::Int(10)));
        let helper: Name = helper.into();
        if !self.program.functions.contains_key(&helper) {
            return Ok(None);
        }
        let f = Val::lit(Const::Func(format!("Base.{bare}").into()));
        self.call_named(b, &helper, &[f, x.clone(), digits, base])
            .map(Some)
    }

    /// The keywords a call passes, in order, with `kw...` splatted (a named tuple, or the
    /// `pairs` of one another method's `kw...` is bound to); a later value of the same name
    /// replaces the earlier one (as Julia's `merge`).
    pub(crate) fn passed_keywords(
        &mut self,
        b: &mut PlanBuilder,
        names: &[Const],
        values: &[Val],
    ) -> Result<Vec<(Name, Val)>, Fail> {
        let mut passed: Vec<(Name, Val)> = Vec::new();
        let mut add = |name: Name, value: Val| match passed.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => passed.push((name, value)),
        };
        for (name, value) in names.iter().zip(values) {
            let Const::Symbol(name) = name else {
                return Err(Fail::unsupported("malformed keyword call"));
            };
            if &**name != SPLAT {
                add(name.clone(), value.clone());
                continue;
            }
            let value = match &value.ty {
                t if crate::builtins::is_keyword_pairs(t) => {
                    let data = Val::lit(Const::Symbol("data".into()));
                    self.call_named(b, &"getfield".into(), &[value.clone(), data])?
                }
                _ => value.clone(),
            };
            let Type::NamedTuple(fields) = &value.ty else {
                return Err(Fail::method(format!(
                    "MethodError: keyword arguments splatted with `...` must be a named tuple or \
                     its `pairs` (another method's `kw...`), not {}",
                    value.ty
                )));
            };
            for (field, _) in fields.iter() {
                let key = Val::lit(Const::Symbol(field.clone()));
                let x = self.call_named(b, &"getfield".into(), &[value.clone(), key])?;
                add(field.clone(), x);
            }
        }
        Ok(passed)
    }
}

/// The rounding function of one of Julia's rounding modes (`RoundDown` rounds as `floor`),
/// `None` for another type.
fn rounding_function(mode: &Type) -> Option<&'static str> {
    let Type::Struct(s) = mode else { return None };
    match &*s.name {
        "Base._RoundNearest" => Some("round"),
        "Base._RoundDown" => Some("floor"),
        "Base._RoundUp" => Some("ceil"),
        "Base._RoundToZero" => Some("trunc"),
        _ => None,
    }
}
