//! Resolution of untyped operations (calls by name, calls of values, closures, globals) into
//! typed steps, given the concrete types of their operands.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use zy_ir::{Const, Instance, Name, Op, Prim, Program, StructKind, Type, TypeExpr};

use crate::builtins;
use crate::dispatch;
use crate::error::Fail;
use crate::join::{depth, within_parts};
use crate::pattern::Pat;
use crate::plan::{Arg, Plan, PlanBuilder};
use crate::value::Val;
use crate::{GLOBAL_METHOD, MAX_TYPE_DEPTH, MAX_TYPE_PARTS};

/// The library function lowering calls for element `k` of a collection in a `for` loop: its
/// Julia methods cover the iterators whose elements are not their indexed values (`pairs`);
/// any other collection's element is `getindex(xs, k)`.
const ITERATED: &str = "Base._gen_elem";

/// The builtin that the library function `name` (`Base.sum`, `SpecialFunctions.gamma`: the
/// special functions are primitives) extends, if it is one.
pub(crate) fn builtin_of(name: &str) -> Option<&str> {
    ["Base.", "SpecialFunctions."]
        .iter()
        .find_map(|m| name.strip_prefix(m))
        .filter(|n| crate::is_builtin(n))
}

/// What the syntax rebinds a local `x` to where a branch tested `x isa T`:
/// `#narrow_isa(x, T)`, Julia's inference narrowing a union by the test.
const NARROW_ISA: &str = "#narrow_isa";

/// What the syntax rebinds a local `x` to where a branch tested `!(x isa T)`.
const NARROW_NOTISA: &str = "#narrow_notisa";

/// Is `t` a view (`SubArray`, what `view`, `@view`, `eachrow` and `eachcol` give)?
pub(crate) fn is_view(t: &Type) -> bool {
    matches!(t, Type::Struct(s) if &*s.name == "Base.SubArray")
}

/// Is `t` a lazy wrapper that the library reads as a copy where it has no method for it: a
/// view, `Symmetric(A)`/`Hermitian(A)` (whose copy is the dense symmetric matrix), a
/// `Diagonal` or a triangular wrapper (the dense matrix with its zeros), `transpose(x)` of a
/// vector (the 1×n matrix), `x'` of a complex vector (the 1×n matrix of conjugates) or
/// `A'`/`transpose(A)` of a matrix (the transposed matrix), or a range (its elements, which
/// never change: Julia's generic `AbstractVector` methods read them one by one)? So
/// `broadcast(f, U)` maps `f` over the elements, as Julia's does, rather than calling `f(U)`.
pub(crate) fn reads_as_copy(t: &Type) -> bool {
    is_view(t)
        || is_range(t)
        || matches!(t, Type::Struct(s) if matches!(
            &*s.name,
            "LinearAlgebra.Symmetric"
                | "LinearAlgebra.Hermitian"
                | "LinearAlgebra.Diagonal"
                | "LinearAlgebra.UpperTriangular"
                | "LinearAlgebra.LowerTriangular"
                | "LinearAlgebra.UnitUpperTriangular"
                | "LinearAlgebra.UnitLowerTriangular"
                | "Base.Transpose"
                | "Base.ConjAdjoint"
                | "Base.AdjointMatrix"
                | "Base.TransposeMatrix"
        ))
}

/// May a call of the library function `name` with a view among `args` and no method for it
/// read a copy of the view instead? Julia's methods for `AbstractArray` read a view element
/// by element, which a copy reproduces for a function that does not write its arguments and
/// does not give views of them ([`makes_views`]). The
/// library marks every function that writes with `!`, as Julia's does; a user's function may
/// not, so it never reads a copy.
fn reads_views(name: &str, args: &[Type]) -> bool {
    is_library(name)
        && !name.ends_with('!')
        && !makes_views(name)
        && !structured_arithmetic(name, args)
        && args.iter().any(|t| reads_as_copy(t) && !is_range(t))
}

/// May a call of the library function `name` with a range among `args`, no method for it and
/// no builtin taking it (`t[2:3]` of a tuple is a builtin's), read a copy of each range: its
/// elements, as Julia's generic `AbstractVector` methods read them (`std(r)`, `sort(r)`)?
/// Not a function that writes (`push!(r, x)` is Julia's `MethodError`), gives views or
/// prints, where a range is shown as itself (`1:2:9`).
pub(crate) fn reads_ranges(name: &str, args: &[Type]) -> bool {
    is_library(name)
        && !name.ends_with('!')
        && !makes_views(name)
        && !prints(name)
        && args.iter().any(is_range)
}

/// Is `t` one of the library's ranges?
pub(crate) fn is_range(t: &Type) -> bool {
    matches!(t, Type::Struct(s) if crate::pattern::is_range_struct(&s.name))
}

/// Does the library function `name` write its arguments' text, where a range is shown as
/// itself (`1:2:9`), not as its elements?
fn prints(name: &str) -> bool {
    let bare = name.rsplit('.').next().unwrap_or(name);
    matches!(
        bare,
        "string" | "repr" | "print" | "println" | "show" | "sprint"
    )
}

/// Is this `+`, `-`, `*` or `Matrix` with a `Diagonal` or triangular operand? The builtins hand
/// those to the prelude's arithmetic for the wrapper (`D + D` and `2.0 * D` stay a
/// `Diagonal`), not to a copy.
fn structured_arithmetic(name: &str, args: &[Type]) -> bool {
    let bare = name.rsplit('.').next().unwrap_or(name);
    matches!(bare, "+" | "-" | "*" | "Matrix")
        && args.iter().any(|t| {
            matches!(t, Type::Struct(s) if s.name.starts_with("LinearAlgebra.")
                && (s.name.ends_with("Triangular") || &*s.name == "LinearAlgebra.Diagonal"))
        })
}

/// The prelude's `_open_pair(k, v)`: `Pair(k, v)` of the argument types as they are, a value
/// of `Any` too (a `Dict{K, Any}`'s entries, `pairs` of a `Vector{Any}`), where `Pair(k, v)`
/// of such a value has the type of the value it holds, as Julia's.
pub(crate) const OPEN_PAIR: &str = "_open_pair";

/// Is `name` a function of the library (the prelude's modules)?
pub(crate) fn is_library(name: &str) -> bool {
    ["Base.", "LinearAlgebra.", "Statistics.", "Random."]
        .iter()
        .any(|m| name.starts_with(m))
}

/// Does the library function `name` give views of its argument (which a copy of the argument
/// would silently cut from it, losing the writes through them)? `reshape` and `vec` are
/// Julia's `ReshapedArray` sharing the parent's memory.
fn makes_views(name: &str) -> bool {
    let bare = name.rsplit('.').next().unwrap_or(name);
    matches!(
        bare,
        "view"
            | "maybeview"
            | "dotview"
            | "eachrow"
            | "eachcol"
            | "eachslice"
            | "selectdim"
            | "partition"
            | "parent"
            | "reshape"
            | "vec"
    )
}

/// The refusal of a library function that gives a view (`makes_views`) of a lazy wrapper it
/// has no method for: Julia's result shares the wrapper's parent, which a copy would not.
fn wrapper_view_refused(name: &str, args: &[Type]) -> Option<Fail> {
    let wrapper = args.iter().find(|t| reads_as_copy(t))?;
    let bare = name.rsplit('.').next().unwrap_or(name);
    (is_library(name) && makes_views(name)).then(|| {
        Fail::unsupported(format!(
            "`{bare}` of a lazy wrapper ({wrapper}): Julia's result shares the wrapped array's memory, which zy would copy; `{bare}` a `collect`ed copy if neither is written afterwards"
        ))
    })
}

/// The resolution context of one instance: the program, the oracle for callees' return types,
/// and the callees met so far.
/// A table whose keys or values are of `Any`: a `Dict{K, V}` by the names of its types, or a
/// `Set{Any}`.
pub(crate) enum OpenTable {
    Dict(Name, Name),
    Set,
}

/// The most combinations of union members one call is split over before it is typed with the
/// unions themselves ([`Cx::unsplit`]).
const MAX_SPLIT: usize = 64;

pub(crate) struct Cx<'a> {
    pub program: &'a Program,
    /// The memoised patterns of the program's method signatures.
    pub signatures: &'a crate::signatures::Signatures,
    oracle: &'a mut dyn FnMut(&Instance) -> Type,
    /// Instances (including globals) that the typed body refers to.
    pub callees: BTreeSet<Arc<Instance>>,
    /// The types the method's `where` variables stand for in this instance.
    pub type_vars: crate::pattern::Bindings,
    /// The types of the values the body stores into the container the statement being typed
    /// makes (`push!(v, x)` after `v = []`): what a `Vector{Any}` or `Ref{Any}` made there
    /// holds beside its literal's values.
    pub any_held: Vec<Type>,
    /// What the program's functions called with a container of `Any` made here store into
    /// it (or into the container a field of it holds), by callee instance, argument and field
    /// (`body.rs`'s `stored_by_callee`, typing each once).
    pub stores: BTreeMap<(Arc<Instance>, usize, crate::body::Part, Option<Name>), Vec<Type>>,
    /// How many such callees are being typed one inside another.
    pub stores_depth: usize,
}

impl<'a> Cx<'a> {
    pub fn new(
        program: &'a Program,
        signatures: &'a crate::signatures::Signatures,
        oracle: &'a mut dyn FnMut(&Instance) -> Type,
    ) -> Cx<'a> {
        Cx {
            program,
            signatures,
            oracle,
            callees: BTreeSet::new(),
            type_vars: crate::pattern::Bindings::new(),
            any_held: Vec::new(),
            stores: BTreeMap::new(),
            stores_depth: 0,
        }
    }

    /// Record a callee and ask for its return type.
    pub fn invoke(&mut self, inst: Instance) -> (Arc<Instance>, Type) {
        let inst = Arc::new(inst);
        // An oracle that does not know yet may only mean "no value so far".
        let ret = match (self.oracle)(&inst) {
            Type::Any => Type::Bottom,
            t => t,
        };
        self.callees.insert(inst.clone());
        (inst, ret)
    }

    /// Type one untyped operation over operands of the given types.
    pub fn resolve(&mut self, op: &Op, ins: &[Val]) -> Result<Plan, Fail> {
        let callee = match op {
            Op::Call(n) => builtin_of(n).unwrap_or(n),
            _ => "",
        };
        let typed;
        let ins = if ins.iter().any(|i| self.type_var_of(i).is_some()) {
            typed = self.type_vars_as_values(ins)?;
            &typed[..]
        } else {
            ins
        };
        for i in ins {
            match &i.konst {
                // `f(xs...; kw)` splats into lowering's `kwcall`.
                Some(Const::Func(n)) if !self.is_defined(n) && &**n != "Base.kwcall" => {
                    return Err(Fail::undefined_in(n, self.program));
                }
                // Lowering's constant tuples (named-tuple keys, shapes) go to its own helpers.
                Some(Const::Tuple(_))
                    if !matches!(
                        callee,
                        "namedtuple" | "hvcat" | "error" | "Base.kwcall" | "Base.splatcall"
                    ) =>
                {
                    return Err(Fail::unsupported("a constant tuple as a value"));
                }
                _ => {}
            }
        }
        let mut b = PlanBuilder::default();
        let v = match op {
            Op::Call(name) if &**name == zy_ir::ISDEFINED_GLOBAL => self.is_defined_global(ins)?,
            Op::Call(name) => self.call_named(&mut b, name, ins)?,
            Op::CallValue => self.call_value(&mut b, ins)?,
            Op::Closure(name) => match self.program.structs.get(name) {
                Some(def) => dispatch::closure(def, &mut b, ins)?,
                None => return Err(Fail::undefined(format!("closure `{name}` is not defined"))),
            },
            Op::Global(name) => self.global(&mut b, name)?,
            Op::Prim(_) | Op::New(_) | Op::Invoke(_) => {
                return Err(Fail::unsupported("typed operation in untyped IR"))
            }
        };
        // An element of a container of `Any` holding values of one type is that type.
        let v = crate::open::narrow_value(&mut b, v);
        if !within_parts(&v.ty) {
            return Err(Fail::unsupported(format!(
                "a value whose type holds more than {MAX_TYPE_PARTS} types, as a recursion \
                 doubling a tuple at every call builds (`g((x, x), n - 1)`): zy fixes every type \
                 where the code is compiled, Julia dispatches such calls at run time"
            )));
        }
        if depth(&v.ty) > MAX_TYPE_DEPTH {
            return Err(Fail::unsupported(format!(
                "types nested more than {MAX_TYPE_DEPTH} levels deep (unbounded specialisation)"
            )));
        }
        Ok(b.finish(v.arg, v.ty))
    }

    /// `isdefined_global(:x)` (Julia's `@isdefined(x)` of a name that is no local), `x` as
    /// resolution qualified it: whether it names a binding, function or type of the program
    /// (its binding is not loaded: Julia does not run the value).
    fn is_defined_global(&mut self, ins: &[Val]) -> Result<Val, Fail> {
        let [Val {
            konst: Some(Const::Symbol(x)),
            ..
        }] = ins
        else {
            return Err(Fail::unsupported("`@isdefined` of an expression"));
        };
        let defined = self.global(&mut PlanBuilder::default(), x).is_ok();
        Ok(Val::lit(Const::Bool(defined)))
    }

    /// The `Dict` or `Set` `table` of `Any` keys or values holding the `keys` and `values`
    /// the function making it stores (`d[c] = n`, `push!(s, (i, j))`), a `Dict`'s values of
    /// `Any` also its defaults: the prelude's `Dict(ks, vs)` of `K[]` and `V[]` made here, where
    /// those types are known, in a `Set`'s items for a set.
    pub fn open_table(
        &mut self,
        table: &OpenTable,
        keys: Vec<Type>,
        values: Vec<Type>,
    ) -> Result<Plan, Fail> {
        let mut b = PlanBuilder::default();
        let (key, value) = match table {
            OpenTable::Dict(k, v) => (k.clone(), v.clone()),
            OpenTable::Set => ("Any".into(), "Bool".into()),
        };
        let getindex: Name = "Base.getindex".into();
        self.any_held = keys;
        let ks = self.call_named(&mut b, &getindex, &[Val::lit(Const::Func(key))]);
        self.any_held = crate::open::defaults("Any");
        self.any_held.extend(values);
        let vs = self.call_named(&mut b, &getindex, &[Val::lit(Const::Func(value))]);
        self.any_held.clear();
        let d = self.call_named(&mut b, &"Base.Dict".into(), &[ks?, vs?])?;
        let made = match table {
            OpenTable::Dict(..) => d,
            OpenTable::Set => {
                let items = self.call_named(&mut b, &"Base._SetItems".into(), &[d])?;
                self.call_named(&mut b, &"Base.Set".into(), &[items])?
            }
        };
        Ok(b.finish(made.arg, made.ty))
    }

    /// `pairs(t)[k]` of a tuple or named tuple `t` and a literal `k`: `t[k]` by its constant
    /// index, as Julia's constant propagation reads it through `getindex(::Pairs, k)`, so the
    /// elements may differ in type (`pairs((a = x, b = 2))[1]`).
    fn pairs_index(
        &mut self,
        b: &mut PlanBuilder,
        name: &Name,
        args: &[Val],
    ) -> Option<Result<Val, Fail>> {
        let [p, k] = args else {
            return None;
        };
        let Type::Struct(s) = &p.ty else {
            return None;
        };
        let tuple = matches!(
            s.fields.first(),
            Some((_, Type::Tuple(_) | Type::NamedTuple(_)))
        );
        if &**name != "Base.getindex" || &*s.name != "Base.Pairs" || !tuple || k.int().is_none() {
            return None;
        }
        let field = Val::lit(Const::Symbol("data".into()));
        let data = self.call_named(b, &"getfield".into(), &[p.clone(), field]);
        Some(data.and_then(|d| self.call_named(b, name, &[d, k.clone()])))
    }

    /// Does `name` denote something callable: a user function, struct, global or builtin
    /// (by its qualified name `Base.vcat` too, as lowering passes `[xs...;]`'s)?
    pub fn is_defined(&self, name: &str) -> bool {
        self.program.functions.contains_key(name)
            || self.program.structs.contains_key(name)
            || self.program.aliases.contains_key(name)
            || self.program.globals.contains_key(name)
            || crate::is_builtin(name)
            || builtin_of(name).is_some()
    }

    /// `name(args...)`: a user function, a struct constructor, a global holding a callable, or
    /// a builtin; on `findfirst`'s union where no method takes it, the call on its index.
    pub fn call_named(
        &mut self,
        b: &mut PlanBuilder,
        name: &Name,
        args: &[Val],
    ) -> Result<Val, Fail> {
        self.call_named_once(b, name, args)
            .or_else(|fail| self.call_on_found(b, name, args, fail))
    }

    /// [`Cx::call_named`] of the arguments as they are.
    fn call_named_once(
        &mut self,
        b: &mut PlanBuilder,
        name: &Name,
        args: &[Val],
    ) -> Result<Val, Fail> {
        if let Some(item) = self.destructure_union(b, name, args) {
            return item;
        }
        if let Some(split) = self.union_split(b, name, args) {
            return split;
        }
        if let Some(refusal) = self.length_of_iterated(name, args) {
            return Err(refusal);
        }
        if let Some(by_items) = self.by_iteration(b, name, args) {
            return by_items;
        }
        if let Some(text) = self.by_show(b, name, args) {
            return text;
        }
        // Lowering's helpers, by qualified names no user definition takes.
        match &**name {
            "Base.kwcall" => return self.keyword_call(b, args),
            "Base.splatcall" => return self.splat_call(b, args),
            zy_ir::NEW => return self.new_value(b, args),
            zy_ir::TYPED => return self.typed_value(b, args),
            zy_ir::SET_GLOBAL => return self.set_global(b, args),
            crate::synth::APPLY => return self.apply(b, args),
            NARROW_ISA | NARROW_NOTISA => return self.narrow_isa(b, name, args),
            _ => {}
        }
        if let Some(t) = self.type_vars.get(name) {
            // `T(x)` for a `where` variable `T`: a call of the type it stands for.
            let mut all = vec![self.type_value(name, &t.clone())?];
            all.extend_from_slice(args);
            return self.call_value(b, &all);
        }
        if &**name == crate::type_params::VAL {
            return crate::type_params::val(self, b, args);
        }
        if let Some(element) = self.pairs_index(b, name, args) {
            return element;
        }
        if let Some(default) = self.property_default(name, args) {
            return self.call_named(b, &default.into(), args);
        }
        if self.program.functions.contains_key(name) {
            return self.call_generic(b, name, args);
        }
        if &**name == ITERATED {
            return self.iterated_by_index(b, args);
        }
        if self.program.aliases.contains_key(name) {
            return self.alias_call(b, name, &[], args);
        }
        if crate::type_values::is_type_text(name) {
            return match crate::type_values::type_expr_of(name) {
                Some(t) => self.call_type(b, &t, args),
                None => Err(Fail::unsupported(format!(
                    "calling the type `{name}` held as a value; call `{name}(...)` by its name \
                     instead"
                ))),
            };
        }
        if let Some(def) = self.program.structs.get(name) {
            if def.kind == StructKind::User {
                return dispatch::construct(self.program, def, b, args);
            }
        }
        if self.program.globals.contains_key(name) {
            let callee = self.global(b, name)?;
            let mut all = vec![callee];
            all.extend_from_slice(args);
            return self.call_value(b, &all);
        }
        // A builtin called by its qualified name (`Base.range_length` from lowering).
        let builtin = builtin_of(name).unwrap_or(name);
        match self.call_builtin(b, name, builtin, args) {
            Some(r) => r,
            None => Err(Fail::undefined_in(name, self.program)),
        }
    }

    /// `getfield` or `setfield!` for a call of `Base.getproperty` or `Base.setproperty!` (what
    /// `x.f` and `x.f = v` call where name resolution leaves them: the program has methods of
    /// them, or the IR was not resolved) that none of the program's methods takes: Julia's
    /// default methods.
    fn property_default(&self, name: &Name, args: &[Val]) -> Option<&'static str> {
        let default = match &**name {
            "Base.getproperty" => "getfield",
            "Base.setproperty!" => "setfield!",
            _ => return None,
        };
        let Some(gf) = self.program.functions.get(name) else {
            return Some(default);
        };
        let types = crate::value::types(args);
        match dispatch::select(self.signatures, self.program, gf, &types) {
            Err(fail) if !fail.is_ambiguity() => Some(default),
            _ => None,
        }
    }

    /// `name(args...)` with an argument of an abstract type (an element of a `Vector{Shape}`):
    /// the synthesised [`crate::synth::UNION_SPLIT`], which calls the method of the argument's
    /// concrete type at run time. `None` for other calls, and for those that store such a
    /// value as it is (into an array, a tuple) rather than dispatch on it; a union of numbers
    /// stored is split, each member converted to the array's element type.
    fn union_split(
        &mut self,
        b: &mut PlanBuilder,
        name: &Name,
        args: &[Val],
    ) -> Option<Result<Val, Fail>> {
        let bare = name.strip_prefix("Base.").unwrap_or(name);
        if bare == OPEN_PAIR {
            // A dictionary's entry, a value of `Any` held as it is (the builtin).
            return None;
        }
        if let Some(narrowed) = crate::open::narrow_single(b, bare, args) {
            return Some(self.call_named(b, name, &narrowed));
        }
        if let ("_elem_of", [v, x]) = (bare, args) {
            let Type::Array(e, _) = &v.ty else {
                return None;
            };
            // A regex group into a `Vector{String}`: the text it holds, checked at run time.
            if let Some(present) = self.convert_present(b, x, e) {
                return Some(present.and_then(|x| self.call_named(b, name, &[v.clone(), x])));
            }
            // `push!` of a struct into a `Vector{Shape}`: the struct seen as a `Shape`.
            return matches!(**e, Type::Union(_)).then(|| crate::value::convert(b, x.clone(), e));
        }
        let stores = matches!(
            bare,
            "setindex!" | "push!" | "getindex" | "_box_set!" | "_box_init!"
        );
        let split = args.iter().enumerate().any(|(i, a)| {
            matches!(a.ty, Type::Union(_)) && (i == 0 || !stores || converts_each(&a.ty))
        });
        // A splatting call is split once its arguments are laid out (its flags are constants).
        if !split || matches!(bare, "tuple" | "vect" | "splatcall") {
            return None;
        }
        if let Some(whole) = self.unsplit(b, name, args) {
            return Some(whole);
        }
        let mut all = vec![Val::lit(Const::Func(name.clone()))];
        all.extend_from_slice(args);
        let at = all.iter().position(|a| matches!(a.ty, Type::Union(_)))?;
        Some(self.split_call(b, &all, at))
    }

    /// `name(args...)` typed once with its union arguments as they are, where splitting it
    /// would type more than [`MAX_SPLIT`] combinations of their members (each member's call
    /// splits over the next union: `sum` of a tuple of six elements of a `Vector{Any}`), and
    /// the one method that takes that many arguments takes the unions whole, so every
    /// combination would reach it: Julia's inference, too, stops splitting and types the call
    /// with the abstract types. `None` otherwise.
    fn unsplit(
        &mut self,
        b: &mut PlanBuilder,
        name: &Name,
        args: &[Val],
    ) -> Option<Result<Val, Fail>> {
        let combinations = args.iter().try_fold(1usize, |n, a| match &a.ty {
            Type::Union(u) => n.checked_mul(u.members.len().max(1)),
            _ => Some(n),
        });
        if combinations.is_some_and(|n| n <= MAX_SPLIT) {
            return None;
        }
        let gf = self.program.functions.get(name)?;
        let mut takers = gf.methods.iter().filter(|m| m.takes_count(args.len()));
        let (Some(_), None) = (takers.next(), takers.next()) else {
            return None;
        };
        let types = crate::value::types(args);
        dispatch::select(self.signatures, self.program, gf, &types).ok()?;
        Some(self.call_generic(b, name, args))
    }

    /// The call `all[0](all[1..]...)` split over the members of the union `all[at]` (the callee
    /// itself when `at` is 0: an element of a `Vector{Layer}` of callable structs), by the
    /// synthesised [`crate::synth::UNION_SPLIT`].
    fn split_call(&mut self, b: &mut PlanBuilder, all: &[Val], at: usize) -> Result<Val, Fail> {
        // Refused here, at the call, rather than in the synthesised body.
        let precise = crate::synth::split_result(self, all, at)?;
        let inst = Instance {
            name: crate::synth::UNION_SPLIT.into(),
            method: crate::SYNTH_METHOD,
            args: crate::value::types(&all).into(),
        };
        let (inst, ret) = self.invoke(inst);
        let ops = all.iter().map(|a| a.arg.clone()).collect();
        let y = b.push(Op::Invoke(inst), ops, ret.clone());
        // `r[1]` of a union of tuples (`(keep, item, state)` of a call on an element of a
        // `Vector{Any}`): the synthesised split reads the element at a run-time index, its type
        // the join of every element's; at the constant index it is that element's.
        let constant_index = at == 1 && all.get(2).and_then(Val::int).is_some();
        let held = |t: &Type| matches!(&ret, Type::Union(u) if u.members.contains(t));
        let narrower = match &precise {
            Type::Union(p) => p.members.iter().all(held),
            t => held(t),
        };
        if constant_index && narrower {
            let narrowed = b.prim(zy_ir::Prim::UnionConvert, vec![y], precise.clone());
            return Ok(Val::of(narrowed, precise));
        }
        Ok(Val::of(y, ret))
    }

    /// Element `k` of a collection a `for` loop iterates (no [`ITERATED`] method for it):
    /// `getindex(xs, k)`, or the refusal of a struct iterated by `Base.iterate`.
    fn iterated_by_index(&mut self, b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
        let indexed = self.call_named(b, &"Base.getindex".into(), args);
        match (
            &indexed,
            args.first().and_then(|a| self.iterated_only(&a.ty)),
        ) {
            (Err(_), Some(refusal)) => Err(refusal),
            _ => indexed,
        }
    }

    /// `length(c)` of a struct that defines Julia's iteration protocol (`Base.iterate`) and no
    /// `Base.length`: Julia's `MethodError`, saying what iterates it if the program defines it.
    fn length_of_iterated(&self, name: &str, args: &[Val]) -> Option<Fail> {
        let [xs] = args else { return None };
        let Type::Struct(s) = &xs.ty else { return None };
        if name != "Base.length" || self.defines_for("Base.length", &s.name) {
            return None;
        }
        crate::iterate::iterated_struct(&xs.ty, self.program)?;
        // The library's lazy iterators (`skipmissing(x)`): Julia's error, its type in full.
        if is_library(&s.name) {
            return Some(crate::error::no_method(
                "length",
                std::slice::from_ref(&xs.ty),
            ));
        }
        Some(Fail::method(format!(
            "MethodError: no method matching length(::{0}) (a `{0}` has `Base.iterate` methods, \
             which `for` loops, generators, the lazy iterators and the reductions follow; \
             `collect` asks for its length unless a `Base.IteratorSize(::Type{{{0}}})` method \
             says `Base.SizeUnknown()` or `Base.IsInfinite()`)",
            s.name
        )))
    }

    /// Why a struct of the program that defines `Base.iterate` methods cannot be indexed as a
    /// library iterator over it asks, or `None` for any other type.
    fn iterated_only(&self, t: &Type) -> Option<Fail> {
        let Type::Struct(s) = t else { return None };
        if !self.defines_for("Base.iterate", &s.name) {
            return None;
        }
        Some(Fail::unsupported(format!(
            "indexing a `{0}` (the library's iterators over it, such as `Iterators.take` or \
             `enumerate`, index it): it has `Base.iterate` methods only, which `for` loops, \
             generators, `collect`, `first` and the reductions follow; define \
             `Base.length(::{0})` and `Base.getindex(::{0}, i::Int)`",
            s.name
        )))
    }

    /// Does the generic function `function` have a method whose first argument is annotated
    /// with the struct `name`?
    fn defines_for(&self, function: &str, name: &str) -> bool {
        self.program.functions.get(function).is_some_and(|gf| {
            gf.methods.iter().any(|m| {
                matches!(m.sig.first(), Some(Some(zy_ir::TypeExpr::Named { name: n, .. }))
                    if **n == *name)
            })
        })
    }

    /// `new(args...)` in an inner constructor of `S` (lowered `#new(S, args...)`): the value of
    /// `S` from its fields, converted to the field types as the default constructor converts
    /// them; the fields after those given are left undefined (Julia's `#undef`, see
    /// [`dispatch::undefined_fields`]).
    fn new_value(&mut self, b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
        let def = match args.first().map(|s| &s.ty) {
            Some(Type::Function(s)) => self.program.structs.get(s),
            _ => None,
        };
        let (Some(def), Some((_, rest))) = (def, args.split_first()) else {
            return Err(Fail::unsupported("`new` outside an inner constructor"));
        };
        // `new{T...}`: the struct's parameters, given as types.
        let Some((given, fields)) = rest
            .len()
            .checked_sub(def.params.len())
            .map(|_| rest.split_at(def.params.len()))
        else {
            return Err(Fail::unsupported(
                "`new` without the struct's type parameters",
            ));
        };
        let given: Vec<(Type, Option<Const>)> = given
            .iter()
            .map(|t| (t.ty.clone(), t.konst.clone()))
            .collect();
        let params = self.given_params(def, &given, "new", fields)?;
        if fields.len() > def.fields.len() {
            return Err(Fail::method(format!(
                "ErrorException: new: too many arguments (expected {})",
                def.fields.len()
            )));
        }
        let given = (!def.params.is_empty()).then_some(params);
        let mut fields = fields.to_vec();
        let unset = dispatch::undefined_fields(self.program, def, b, fields.len(), given.as_ref())?;
        fields.extend(unset);
        dispatch::construct_given(self.program, def, b, &fields, given)
    }

    /// `S{P...}(args...)` (lowered `#typed(S, (P...,), args...)`): the default constructor of
    /// the struct `S` with its parameters given, each argument converted to its field's type
    /// with them, as Julia's.
    fn typed_value(&mut self, b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
        let [s, params, fields @ ..] = args else {
            return Err(Fail::unsupported(
                "a type with parameters called without arguments",
            ));
        };
        let (Type::Function(name), Type::Tuple(given)) = (&s.ty, &params.ty) else {
            return Err(Fail::unsupported(format!(
                "calling {} with type parameters",
                s.ty
            )));
        };
        if self.program.aliases.contains_key(name) {
            return self.alias_call(b, name, given, fields);
        }
        // `V{Int}(undef, n)` of `const V = Vector`: the array type with the parameters given.
        let bare = name.strip_prefix("Base.").unwrap_or(name);
        // `Array{Any}(missing, n)`: a vector of `Any` holding `n` missings to begin with.
        if let ("Array" | "Vector", [Type::Function(t)]) = (bare, &given[..]) {
            if let Some(v) = crate::builtins::filled_open_vector(self, b, t, fields) {
                return v;
            }
        }
        if matches!(bare, "Vector" | "Matrix" | "Array" | "Dict" | "Set") {
            let params: Option<Vec<TypeExpr>> = given
                .iter()
                .map(|t| match t {
                    Type::Function(n) => crate::type_values::type_expr_of(n),
                    _ => None,
                })
                .collect();
            if let Some(params) = params {
                let t = TypeExpr::Named {
                    name: name.clone(),
                    params,
                };
                return self.call_type(b, &t, fields);
            }
        }
        let known = params.elems.as_deref().unwrap_or_default();
        self.typed_call(b, name, given, known, fields)
    }

    /// [`Cx::typed_value`] of the type `name` with the parameters `given` (the Ints and Bools
    /// among them `known` where the call is compiled) and the arguments `fields`.
    pub(crate) fn typed_call(
        &mut self,
        b: &mut PlanBuilder,
        name: &Name,
        given: &[Type],
        known: &[Option<Const>],
        fields: &[Val],
    ) -> Result<Val, Fail> {
        if &**name == "Ref" {
            return self.typed_ref(b, given, fields);
        }
        let def = self
            .program
            .structs
            .get(name)
            .filter(|d| d.kind == StructKind::User);
        let Some(def) = def else {
            return Err(Fail::unsupported(format!(
                "calling the type `{name}{{...}}` with its parameters given; call `{name}(...)` \
                 instead"
            )));
        };
        if given.len() > def.params.len() {
            return Err(Fail::method(format!(
                "ErrorException: too many parameters for type {}",
                def.name
            )));
        }
        if given.len() < def.params.len() {
            return Err(Fail::unsupported(format!(
                "`{0}{{...}}(...)` with {1} of the {2} type parameters of `{0}`; give all {2}, or \
                 call `{0}(...)`, instead",
                def.name,
                given.len(),
                def.params.len()
            )));
        }
        // A constructor written with the parameters (`S{T}(x) where T = ...`), taking them
        // first as types; without one that applies, the default constructor (if the struct
        // has no inner constructors).
        let curly: Name = format!("{name}{{}}").into();
        let given_values: Option<Vec<Val>> = given
            .iter()
            .enumerate()
            .map(|(i, t)| match (t, known.get(i).cloned().flatten()) {
                (Type::Function(n), _) => Some(Val::lit(Const::Func(n.clone()))),
                (_, k) => k.map(Val::lit),
            })
            .collect();
        match (self.program.functions.get(&curly), given_values) {
            (Some(gf), Some(mut all)) => {
                all.extend(fields.iter().cloned());
                let types = crate::value::types(&all);
                let applies = dispatch::select(self.signatures, self.program, gf, &types).is_ok();
                if applies || def.inner_constructors {
                    return self.call_named(b, &curly, &all);
                }
            }
            _ if def.inner_constructors => {
                return Err(Fail::unsupported(format!(
                    "`{0}{{...}}(...)` of a struct whose inner constructors are not written \
                     `{0}{{T}}(...)`; call `{0}(...)` instead",
                    def.name
                )));
            }
            _ => {}
        }
        // The Ints and Bools among the parameters (`S{3}`, `S{true}`), known where the call
        // is compiled.
        let given: Vec<(Type, Option<Const>)> = given
            .iter()
            .enumerate()
            .map(|(i, t)| (t.clone(), known.get(i).cloned().flatten()))
            .collect();
        let bind = self.given_params(def, &given, &def.name, fields)?;
        dispatch::construct_given(self.program, def, b, fields, Some(bind))
    }

    /// `Ref{T}(x)`: a `Ref` holding `convert(T, x)` (`Ref{Float64}(1)` holds `1.0`), of a
    /// concrete `T`.
    fn typed_ref(
        &mut self,
        b: &mut PlanBuilder,
        given: &[Type],
        args: &[Val],
    ) -> Result<Val, Fail> {
        let mut held: Vec<Type> = args.iter().map(|a| a.ty.clone()).collect();
        held.extend(self.any_held.iter().cloned());
        let elem = match given {
            [Type::Function(t)] => crate::type_values::ref_content_of(t, self.program)
                .or_else(|| crate::open::open_union(t, &held)),
            _ => None,
        };
        let (Some(elem), [x]) = (elem, args) else {
            if let ([Type::Function(t)], [x]) = (given, args) {
                if crate::open::is_open(t) {
                    return Err(Fail::unsupported(crate::open::refusal(t, &x.ty)));
                }
            }
            return Err(Fail::unsupported(format!(
                "`Ref{{...}}` with the parameters {} (only `Ref{{T}}(x)` of one concrete type `T`, \
                 or of `Union{{Nothing, T}}` of a number type, whose content keeps that type)",
                Type::tuple(given.to_vec())
            )));
        };
        let x = crate::value::convert(b, x.clone(), &elem)?;
        let r = b.prim(Prim::RefNew, vec![x.arg], Type::Ref(elem.clone().into()));
        Ok(Val::of(r, Type::Ref(elem.into())))
    }

    /// The struct's type parameters bound to the types (or values, `S{3}`) given as values,
    /// each with its constant if it is known (`new{T}`, `S{T}(...)`, the callee named `callee`
    /// in the refusal of a parameter that is neither). A parameter given as `Any`, `Real`,
    /// `Number` or `Integer` is that abstract type, as Julia's `S{Any}`: the open union of
    /// what the fields `fields` hold where their declared types name it (`new{Any}(Any[1,
    /// "a"])`), and what the body stores into such containers.
    fn given_params(
        &self,
        def: &zy_ir::StructDef,
        given: &[(Type, Option<Const>)],
        callee: &str,
        fields: &[Val],
    ) -> Result<crate::pattern::Bindings, Fail> {
        let mut bind = crate::pattern::Bindings::new();
        for (p, (t, konst)) in def.params.iter().zip(given) {
            let ty = crate::type_params::param_type(t, konst.as_ref(), self.program).or_else(
                || match t {
                    Type::Function(n) => self.open_param(def, p, n, fields),
                    _ => None,
                },
            );
            let Some(ty) = ty else {
                let callee = callee.strip_prefix("Base.").unwrap_or(callee);
                let full: &str = &def.name;
                let name = full.strip_prefix("Base.").unwrap_or(full);
                if konst.is_none() && matches!(t, Type::Int64 | Type::Bool) {
                    return Err(Fail::unsupported(format!(
                        "`{callee}{{...}}` with the parameter `{p}` of `{name}` known only at run \
                         time (of type {t}): its value would be part of the type, which zy fixes \
                         where the code is compiled; write a literal, or a `where` variable"
                    )));
                }
                return Err(Fail::unsupported(format!(
                    "`{callee}{{...}}` with the parameter `{p}` of `{name}` not a concrete type"
                )));
            };
            bind.insert(p.clone(), ty);
        }
        Ok(bind)
    }

    /// The struct parameter `p` given as the open abstract type `name` ([`Cx::given_params`]):
    /// the open union of the types the fields bind `p` to (the elements of a `Vector{T}`
    /// field, the value of a `T` field) and of what the body stores into such containers.
    fn open_param(
        &self,
        def: &zy_ir::StructDef,
        p: &Name,
        name: &str,
        fields: &[Val],
    ) -> Option<Type> {
        if !crate::open::is_open(name) {
            return None;
        }
        let pats = dispatch::field_patterns(self.program, def).ok()?;
        let mut held: Vec<Type> = pats
            .iter()
            .zip(fields)
            .filter_map(|(pat, v)| {
                let mut bind = crate::pattern::Bindings::new();
                crate::pattern::matches(pat, &v.ty, &mut bind).then(|| bind.remove(p))?
            })
            .collect();
        held.extend(self.any_held.iter().cloned());
        crate::open::open_union(name, &held)
    }

    /// A call of the builtin `builtin` (named `name` by the caller); a builtin that does not
    /// write (no `!`) and has no method for a view among `args` reads a copy of each view, as
    /// Julia's `AbstractArray` methods read a view element by element (`view(A, 1:2, :) * v`).
    fn call_builtin(
        &mut self,
        b: &mut PlanBuilder,
        name: &Name,
        builtin: &str,
        args: &[Val],
    ) -> Option<Result<Val, Fail>> {
        let r = builtins::call(self, b, builtin, args)?;
        let views = !builtin.ends_with('!')
            && args
                .iter()
                .any(|a| reads_as_copy(&a.ty) || self.reads_user_array(builtin, &a.ty))
            || (builtin.ends_with("getindex")
                && self.slices_user_array(builtin, &crate::value::types(args)));
        Some(match r {
            Err(no_match)
                if no_match.code == "method-error" && self.sized_by_user(builtin, args) =>
            {
                let bare = builtin.rsplit('.').next().unwrap_or(builtin);
                self.call_named(b, &format!("Base._array_{bare}").into(), args)
            }
            Err(no_match) if views && no_match.code == "method-error" => {
                self.call_with_views_copied(b, name, args, no_match)
            }
            Err(no_match) if no_match.code == "method-error" => self
                .number_fallback(b, name, builtin, args)
                .or_else(|| self.isless_fallback(b, builtin, args))
                .unwrap_or(Err(no_match)),
            r => r,
        })
    }

    /// Is this `length(v)`, `isempty(v)`, `firstindex(v)` or `lastindex(v)` of an array struct
    /// of the program, which Julia's generic `AbstractArray` methods answer from its `size`
    /// (`length(A) = prod(size(A))`) without reading an element? A copy would call the
    /// struct's `getindex`, which may itself ask for the length.
    fn sized_by_user(&self, name: &str, args: &[Val]) -> bool {
        let bare = name.rsplit('.').next().unwrap_or(name);
        matches!(bare, "length" | "isempty" | "firstindex" | "lastindex")
            && matches!(args, [v] if crate::pattern::user_array(&v.ty, self.program).is_some())
    }

    /// Does the library function `name`, with no method for `t`, read a copy of it: an array
    /// struct of the program ([`crate::pattern::user_array`]), which Julia's generic methods
    /// for `AbstractArray`s read element by element through its `getindex`? Not the functions
    /// of the array interface the struct itself defines (`size`, `getindex`, `setindex!`),
    /// whose copy would read them again, nor `===` and `!==`, which compare the struct itself
    /// (a copy is never egal to it).
    fn reads_user_array(&self, name: &str, t: &Type) -> bool {
        let bare = name.rsplit('.').next().unwrap_or(name);
        !matches!(
            bare,
            "size" | "getindex" | "setindex!" | "_array_collect" | "===" | "!=="
        ) && crate::pattern::user_array(t, self.program).is_some()
    }

    /// Is this `getindex` of an array struct of the program by a range, a vector or `:`
    /// (`w[1:2]`), which Julia's generic method answers with an array of the elements the
    /// struct's own `getindex` reads: indexing a copy of them does the same.
    fn slices_user_array(&self, name: &str, types: &[Type]) -> bool {
        let bare = name.rsplit('.').next().unwrap_or(name);
        matches!(types, [t, index @ ..]
            if bare == "getindex"
                && !index.is_empty()
                && index.iter().any(|i| !matches!(i, Type::Int64 | Type::Int(_)))
                && crate::pattern::user_array(t, self.program).is_some())
    }

    /// The library functions of Julia's AbstractArray interface that an array struct of the
    /// program ([`crate::pattern::user_array`]) answers without a copy of its elements:
    /// `eltype` is its declared element type (`Any` of a bare `<: AbstractVector`, Julia's
    /// `AbstractVector{T} where T`), `size(v, d)` reads the user's `size(v)`; and a refusal
    /// for the functions that would make a `Vector{Any}` of a bare one (`collect`, `copy`,
    /// `similar`), an array zy does not have.
    fn user_array_interface(
        &mut self,
        b: &mut PlanBuilder,
        name: &str,
        args: &[Val],
    ) -> Option<Result<Val, Fail>> {
        let Some(Type::Array(elem, _)) = args
            .first()
            .and_then(|x| crate::pattern::user_array(&x.ty, self.program))
        else {
            return None;
        };
        let untyped = *elem == Type::Any;
        match (name.rsplit('.').next().unwrap_or(name), args) {
            ("eltype", [_]) if untyped => Some(Ok(Val::lit(Const::Func("Any".into())))),
            ("eltype", [_]) => {
                Some(crate::type_values::value_name(&elem).map(|n| Val::lit(Const::Func(n))))
            }
            ("size", [_, _]) => Some(self.call_named(b, &"Base._array_size".into(), args)),
            ("getindex", [x, _, _, ..])
                if args[1..].iter().all(|a| a.ty == Type::Int64) && self.indexes_linearly(b, x) =>
            {
                Some(self.call_named(b, &"Base._getindex_linear".into(), args))
            }
            ("IndexStyle", [x]) => Some(self.index_style(b, x)),
            (bare, [_]) if self.sized_by_user(bare, args) => {
                Some(self.call_named(b, &format!("Base._array_{bare}").into(), args))
            }
            // Julia's generic `checkbounds(A, i)`: by the struct's `size`, never a copy of
            // its elements (the struct's `getindex` may check its bounds so).
            ("checkbounds", [_, i]) if matches!(i.ty, Type::Int64 | Type::Int(_)) => {
                Some(self.call_named(b, &"Base._array_checkbounds".into(), args))
            }
            (f @ ("collect" | "copy" | "similar" | "Vector" | "Array" | "vec"), [x]) if untyped => {
                Some(Err(Fail::unsupported(format!(
                    "`{f}` of a {}, declared `<: AbstractVector` without an element type: Julia's \
                     result is an array of `Any`; declare the element type \
                     (`<: AbstractVector{{Float64}}`) instead",
                    x.ty
                ))))
            }
            _ => None,
        }
    }

    /// `IndexStyle(x)` of an array struct of the program: the program's method for its type
    /// (`Base.IndexStyle(::Type{<:V}) = IndexLinear()`), else Julia's default,
    /// `IndexCartesian()`.
    fn index_style(&mut self, b: &mut PlanBuilder, x: &Val) -> Result<Val, Fail> {
        let t = Val::lit(Const::Func(crate::type_values::value_name(&x.ty)?));
        let style: Name = "Base.IndexStyle".into();
        let gf = self.program.functions.get(&style);
        let ty = std::slice::from_ref(&t.ty);
        match gf.map(|gf| dispatch::select(self.signatures, self.program, gf, ty)) {
            Some(Ok(_)) => self.call_named(b, &style, &[t]),
            _ => self.call_named(b, &"Base.IndexCartesian".into(), &[]),
        }
    }

    /// `IndexStyle(T)` of a type value naming one of the library's array types
    /// (`IndexStyle(Vector{Float64})` is `IndexLinear()`, of a `Diagonal` `IndexCartesian()`);
    /// `None` for any other call.
    fn library_index_style(
        &mut self,
        b: &mut PlanBuilder,
        name: &str,
        args: &[Val],
    ) -> Option<Result<Val, Fail>> {
        let ("IndexStyle", [t]) = (name.rsplit('.').next().unwrap_or(name), args) else {
            return None;
        };
        let Type::Function(n) = &t.ty else {
            return None;
        };
        let style = match crate::index_style::linear(n)? {
            true => "Base.IndexLinear",
            false => "Base.IndexCartesian",
        };
        Some(self.call_named(b, &style.into(), &[]))
    }

    /// Is `IndexStyle(x)` of an array struct of the program `IndexLinear()`?
    fn indexes_linearly(&mut self, b: &mut PlanBuilder, x: &Val) -> bool {
        let linear = |v: &Val| matches!(&v.ty, Type::Struct(s) if &*s.name == "Base.IndexLinear");
        self.index_style(b, x).is_ok_and(|v| linear(&v))
    }

    /// Is one of `x` and `y` of the program's number types and the other a number?
    pub(crate) fn mixes_user_number(&self, x: &Val, y: &Val) -> bool {
        let user = |t: &Type| crate::pattern::is_user_number(t, self.program);
        let number = |t: &Type| t.is_number() || user(t);
        (user(&x.ty) || user(&y.ty)) && number(&x.ty) && number(&y.ty)
    }

    /// Julia's generic methods for Numbers where the builtin `builtin` has methods for zy's
    /// own numbers only and an argument is one of the program's number types
    /// ([`crate::pattern::is_user_number`]): the prelude's `sum` and `prod` of an array of
    /// them, `zero(x)` and `one(x)`, `abs(x)` of a `Real` (`x < 0 ? -x : x`), `x ^ p` (a
    /// negative literal `p` by `inv(x)`, Julia's `literal_pow`), `x > y` and `x >= y` (Julia's
    /// `y < x` and `y <= x`), and `x op y` with another number after Julia's
    /// promotion, when the program defines a `promote_rule` for the two types; without one,
    /// Julia's errors (`promotion of types D and Float64 failed to change any arguments`, and
    /// `+ not defined for D` where the program's type has no `+` of its own).
    pub(crate) fn number_fallback(
        &mut self,
        b: &mut PlanBuilder,
        name: &Name,
        builtin: &str,
        args: &[Val],
    ) -> Option<Result<Val, Fail>> {
        let program = self.program;
        let user = |t: &Type| crate::pattern::is_user_number(t, program);
        let number = |t: &Type| t.is_number() || user(t);
        // A type value naming one of them (`zero(Dual)`).
        let names_user = |t: &Type| match t {
            Type::Function(n) => crate::pattern::names_user_number(n, program),
            _ => false,
        };
        let fallback = match (builtin, args) {
            ("sum", [xs]) if matches!(&xs.ty, Type::Array(e, _) if user(e)) => "Base._number_sum",
            ("prod", [xs]) if matches!(&xs.ty, Type::Array(e, _) if user(e)) => "Base._number_prod",
            ("^", [x, p]) if user(&x.ty) && p.ty == Type::Int64 => "Base._number_power",
            ("literal_pow", [x, p]) if user(&x.ty) && p.ty == Type::Int64 => {
                "Base._number_literal_pow"
            }
            ("abs", [x]) if crate::pattern::is_user_real(&x.ty, program) => "Base._number_abs",
            (">", [x, y]) if self.mixes_user_number(x, y) => "Base._number_greater",
            (">=", [x, y]) if self.mixes_user_number(x, y) => "Base._number_greater_eq",
            ("zero", [x]) if user(&x.ty) => "Base._number_zero",
            ("one", [x]) if user(&x.ty) => "Base._number_one",
            ("zero", [t]) if names_user(&t.ty) => "Base._number_zero_of",
            ("one", [t]) if names_user(&t.ty) => "Base._number_one_of",
            ("+" | "-" | "*" | "/" | "==" | "<" | "<=", [x, y])
                if (user(&x.ty) || user(&y.ty)) && number(&x.ty) && number(&y.ty) =>
            {
                let rule = |s: &Type, t: &Type| -> bool {
                    let (Ok(s), Ok(t)) = (
                        crate::type_values::value_name(s),
                        crate::type_values::value_name(t),
                    ) else {
                        return false;
                    };
                    program
                        .functions
                        .get("Base.promote_rule")
                        .is_some_and(|gf| {
                            let types = [Type::Function(s), Type::Function(t)];
                            crate::dispatch::select(self.signatures, program, gf, &types).is_ok()
                        })
                };
                let real = |t: &Type| t.is_number() || crate::pattern::is_user_real(t, program);
                let promote = if rule(&x.ty, &y.ty) {
                    "Base._number_promote"
                } else if rule(&y.ty, &x.ty) {
                    "Base._number_promote_back"
                } else if matches!(builtin, "<" | "<=") && !(real(&x.ty) && real(&y.ty)) {
                    // Julia compares only `Real`s by promotion.
                    return None;
                } else if x.ty != y.ty {
                    "Base._number_promotion_failed"
                } else if builtin != "==" && builtin != "<=" {
                    "Base._number_no_op"
                } else {
                    return None;
                };
                let op = Val::lit(Const::Func(name.clone()));
                let all = [op, x.clone(), y.clone()];
                return Some(self.call_named(b, &promote.into(), &all));
            }
            _ => return None,
        };
        program
            .functions
            .contains_key(fallback)
            .then(|| self.call_named(b, &fallback.into(), args))
    }

    /// Julia's generic methods by `isless` where the builtin `builtin` has methods for numbers
    /// only: `max(x, y)`, `min(x, y)` of two structs, tuples or strings (the program's
    /// `Base.isless` orders its structs), and `maximum`, `minimum` of an array of them.
    fn isless_fallback(
        &mut self,
        b: &mut PlanBuilder,
        builtin: &str,
        args: &[Val],
    ) -> Option<Result<Val, Fail>> {
        let ordered = |t: &Type| matches!(t, Type::Struct(_) | Type::Tuple(_)) || t.is_string();
        let (fallback, args) = match (builtin, args) {
            ("max", [x, y]) if ordered(&x.ty) && ordered(&y.ty) => {
                ("Base._isless_max", args.to_vec())
            }
            ("min", [x, y]) if ordered(&x.ty) && ordered(&y.ty) => {
                ("Base._isless_min", args.to_vec())
            }
            ("maximum" | "minimum", [xs]) if matches!(&xs.ty, Type::Array(e, _) if ordered(e)) => {
                let largest = Val::lit(Const::Bool(builtin == "maximum"));
                ("Base._isless_extremum", vec![xs.clone(), largest])
            }
            _ => return None,
        };
        self.program
            .functions
            .contains_key(fallback)
            .then(|| self.call_named(b, &fallback.into(), &args))
    }

    /// Call a user generic function: dispatch, then invoke the chosen specialisation.
    pub fn call_generic(
        &mut self,
        b: &mut PlanBuilder,
        name: &Name,
        args: &[Val],
    ) -> Result<Val, Fail> {
        let types = crate::value::types(&args);
        if types.contains(&Type::Any) {
            // A symbol where the library's builtin takes one (`nt[:a]`: `Base.getindex` has
            // Julia methods too, none of which takes a symbol).
            if let Some(r) = builtin_of(name).and_then(|n| builtins::call(self, b, n, args)) {
                return r;
            }
            return Err(Fail::unsupported(
                "symbols and strings as values (only as field names and `error` messages); choose \
                 between cases with a `Bool` or an `Int` instead",
            ));
        }
        let Some(gf) = self.program.functions.get(name) else {
            return Err(Fail::undefined_in(name, self.program));
        };
        let user_struct = self
            .program
            .structs
            .get(name)
            .filter(|def| def.kind == StructKind::User);
        let selected = match user_struct {
            // Written inner constructors replace the default ones.
            Some(def) if def.inner_constructors => {
                dispatch::select(self.signatures, self.program, gf, &types)
                    .map(dispatch::Choice::Method)
            }
            Some(def) => {
                dispatch::select_constructor(self.signatures, self.program, gf, def, &types)
            }
            None => dispatch::select(self.signatures, self.program, gf, &types)
                .map(dispatch::Choice::Method),
        };
        if selected.as_ref().is_err_and(|f| !f.is_ambiguity()) && is_library(name) {
            if let Some(r) = self.user_array_interface(b, name, args) {
                return r;
            }
            if let Some(r) = self.library_index_style(b, name, args) {
                return r;
            }
        }
        let method = match selected {
            Ok(dispatch::Choice::Method(method)) => method,
            Ok(dispatch::Choice::Default) => {
                return match user_struct {
                    Some(def) => dispatch::construct(self.program, def, b, args),
                    None => Err(crate::error::no_method(name, &types)),
                };
            }
            // Julia's error: the builtin's methods are less specific than either.
            Err(ambiguity) if ambiguity.is_ambiguity() => return Err(ambiguity),
            Err(no_match)
                if reads_views(name, &types)
                    || (is_library(name)
                        && !name.ends_with('!')
                        && (types.iter().any(|t| self.reads_user_array(name, t))
                            || self.slices_user_array(name, &types))) =>
            {
                return self.call_with_views_copied(b, name, args, no_match);
            }
            Err(_) if &**name == ITERATED => return self.iterated_by_index(b, args),
            // A library function defined in Julia (`Base.sum`) also has the builtin's methods,
            // which are less specific than any written one.
            Err(_) if self.program.refused_beside.contains_key(name) => {
                let why = &self.program.refused_beside[name];
                return Err(Fail::unsupported(why.clone()));
            }
            Err(no_match) => {
                if let Some(r) = self.call_with_unit_ranges(b, name, args) {
                    return r.or(Err(no_match));
                }
                if let Some(refused) = wrapper_view_refused(name, &types) {
                    return Err(refused);
                }
                let builtin = builtin_of(name);
                if let Some(r) = builtin.and_then(|f| self.call_builtin(b, name, f, args)) {
                    return r;
                }
                if reads_ranges(name, &types) {
                    return self.call_with_views_copied(b, name, args, no_match);
                }
                match builtin {
                    Some(_) => return Err(no_match),
                    // Outer constructors (`LinRange(a, b, n)`) keep the default one beside them.
                    None => match self.program.structs.get(name) {
                        Some(def) if def.kind == StructKind::User && !def.inner_constructors => {
                            return dispatch::construct(self.program, def, b, args)
                                .map_err(|_| no_match);
                        }
                        _ => return Err(self.shadowing_hint(name, no_match)),
                    },
                }
            }
        };
        self.call_method(b, name, method, args)
    }

    /// `invoke(f, Tuple{T...}, args...)`: Julia's call of the method of `f` that dispatch
    /// chooses for the types `T...` (abstract ones too), specialised on the arguments' types.
    pub(crate) fn call_invoked(
        &mut self,
        b: &mut PlanBuilder,
        f: &Val,
        sig: &Val,
        args: &[Val],
    ) -> Result<Val, Fail> {
        let (Type::Function(name), Type::Function(sig)) = (&f.ty, &sig.ty) else {
            return Err(Fail::unsupported(format!(
                "`invoke` of a {} with a {}: give a named function and a written `Tuple{{...}}` type",
                f.ty, sig.ty
            )));
        };
        let Some(gf) = self.program.functions.get(name) else {
            return Err(Fail::unsupported(format!(
                "`invoke` of `{name}`, which has no methods written in Julia"
            )));
        };
        let pats = match crate::type_values::pattern_of_name(sig, self.program)? {
            Pat::Tuple(Some(pats)) if pats.len() == args.len() => pats,
            _ => {
                return Err(Fail::unsupported(format!(
                    "`invoke` with the signature `{sig}`: give a `Tuple{{...}}` of one type per argument"
                )))
            }
        };
        let mut bind = crate::pattern::Bindings::new();
        if !pats
            .iter()
            .zip(args)
            .all(|(p, a)| crate::pattern::matches(p, &a.ty, &mut bind))
        {
            return Err(Fail::method(format!(
                "TypeError: in invoke, argument type error: the arguments are not of the types `{sig}`"
            )));
        }
        let method = dispatch::select_invoked(self.program, gf, &pats, sig)?;
        self.call_method(b, name, method, args)
    }

    /// The call of method `method` of the generic function `name`, specialised on `args`.
    fn call_method(
        &mut self,
        b: &mut PlanBuilder,
        name: &Name,
        method: u32,
        args: &[Val],
    ) -> Result<Val, Fail> {
        let gf = self.program.functions.get(name);
        let args = match gf.and_then(|gf| gf.methods.get(method as usize)) {
            Some(m) => dispatch::pack_varargs(self, b, m, args)?,
            None => args.to_vec(),
        };
        let types = crate::value::types(&args);
        if !types.iter().all(within_parts) {
            return Err(Fail::unsupported(format!(
                "`{name}` called with an argument whose type holds more than {MAX_TYPE_PARTS} types: a method that calls itself with an ever larger argument (`g((x, x), n - 1)`) specialises without end; Julia dispatches such calls at run time"
            )));
        }
        if types.iter().any(|t| depth(t) > MAX_TYPE_DEPTH) {
            return Err(Fail::unsupported(format!(
                "`{name}` called with an argument type nested more than {MAX_TYPE_DEPTH} levels deep: a method that calls itself with an ever-deeper argument (a varargs method passing its tuple on) specialises without end; Julia would recurse until StackOverflowError"
            )));
        }
        let (inst, ret) = self.invoke(Instance {
            name: name.clone(),
            method,
            args: types.into(),
        });
        let args = args.iter().map(|a| a.arg.clone()).collect();
        Ok(Val::of(b.push(Op::Invoke(inst), args, ret.clone()), ret))
    }

    /// A `MethodError` of a function that hides Base's of the same name (`a::G + b::G = ...`
    /// without `import Base: +` defines a new `+`, as in a fresh Julia session): Julia's hint.
    fn shadowing_hint(&self, name: &Name, no_match: Fail) -> Fail {
        let (module, bare) = name.rsplit_once('.').unwrap_or(("Main", name));
        let base = format!("Base.{bare}");
        let hides_base = module != "Base"
            && (crate::is_builtin(bare) || self.program.functions.contains_key(base.as_str()));
        if !hides_base || no_match.code != "method-error" {
            return no_match;
        }
        let name = bare;
        let op = if name
            .chars()
            .next()
            .is_some_and(|c| !c.is_alphabetic() && c != '_')
        {
            format!(":{name}")
        } else {
            name.to_string()
        };
        Fail::method(format!(
            "{}; you may have intended to import Base.{op} (write `import Base: {name}` before defining `{name}`, or define `Base.{op}(...)`)",
            no_match.message
        ))
    }

    /// `getindex`, `setindex!`, `view` or `dotview` with a `Base.OneTo(n)` index (what `axes`
    /// and `eachindex` give) and no method for it: the call with `1:n` in its place, which
    /// Julia's `AbstractUnitRange` methods treat alike (`A[axes(A, 1), j]`,
    /// `x[eachindex(x)] .= v`).
    /// `None` for another call; `Err` when that call has no method either.
    fn call_with_unit_ranges(
        &mut self,
        b: &mut PlanBuilder,
        name: &Name,
        args: &[Val],
    ) -> Option<Result<Val, Fail>> {
        let one_to = |t: &Type| matches!(t, Type::Struct(s) if &*s.name == "Base.OneTo");
        let bare = name.strip_prefix("Base.").unwrap_or(name);
        let indexing =
            is_library(name) && matches!(bare, "getindex" | "setindex!" | "view" | "dotview");
        if !indexing || !args.iter().any(|a| one_to(&a.ty)) {
            return None;
        }
        let mut ranges = Vec::with_capacity(args.len());
        for a in args {
            ranges.push(if one_to(&a.ty) {
                match self.call_named(b, &"Base._unit_range".into(), std::slice::from_ref(a)) {
                    Ok(r) => r,
                    Err(e) => return Some(Err(e)),
                }
            } else {
                a.clone()
            });
        }
        Some(self.call_named(b, name, &ranges))
    }

    /// A library call with a view argument and no method for it: the call of a copy of each
    /// view (see [`reads_views`]), or, if that has no method either, the first error.
    fn call_with_views_copied(
        &mut self,
        b: &mut PlanBuilder,
        name: &Name,
        args: &[Val],
        no_match: Fail,
    ) -> Result<Val, Fail> {
        let sliced = self.slices_user_array(name, &crate::value::types(args));
        let mut copied = Vec::with_capacity(args.len());
        for (i, a) in args.iter().enumerate() {
            copied.push(match &a.ty {
                t if reads_as_copy(t) => {
                    self.call_named(b, &"Base.collect".into(), std::slice::from_ref(a))?
                }
                t if self.reads_user_array(name, t) || (sliced && i == 0) => {
                    self.call_named(b, &"Base._array_collect".into(), std::slice::from_ref(a))?
                }
                _ => a.clone(),
            });
        }
        self.call_named(b, name, &copied).map_err(|_| no_match)
    }

    /// `args[0](args[1..]...)`.
    pub fn call_value(&mut self, b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
        let Some((callee, rest)) = args.split_first() else {
            return Err(Fail::unsupported("call without a callee"));
        };
        match &callee.ty {
            Type::Function(n) => self.call_named(b, n, rest),
            Type::Struct(s) => {
                let types = crate::value::types(args);
                if let Some(name) =
                    dispatch::callable_for(self.signatures, self.program, &s.name, &types)
                {
                    self.call_generic(b, &name, args)
                } else {
                    Err(Fail::method(format!(
                        "MethodError: objects of type {} are not callable",
                        callee.ty
                    )))
                }
            }
            Type::Pullback(_) => builtins::diff::call_pullback(b, callee, rest),
            Type::Union(_) => self.split_call(b, args, 0),
            t => Err(Fail::method(format!(
                "MethodError: objects of type {t} are not callable"
            ))),
        }
    }

    /// Load a top-level binding, or name a function (`sin` in `map(sin, xs)`) as a constant.
    pub fn global(&mut self, b: &mut PlanBuilder, name: &Name) -> Result<Val, Fail> {
        if let Some(t) = self.type_vars.get(name) {
            return self.type_value(name, t);
        }
        if self.program.aliases.contains_key(name) {
            let named = crate::aliases::value_name(name, self.program)?;
            return Ok(Val::lit(Const::Func(named)));
        }
        if crate::type_values::is_type_text(name) && !self.program.globals.contains_key(name) {
            // `Union{DomainError, ArgumentError}`: the right side of `e isa ...` of a caught
            // exception, whose members Base's types name.
            let members = name
                .strip_prefix("Union{")
                .and_then(|m| m.strip_suffix('}'));
            if members.is_some_and(|m| {
                m.split(',')
                    .any(|t| crate::builtins::is_exception_type(t.trim()))
            }) {
                return Ok(Val::lit(Const::Func(name.clone())));
            }
            // `Vector{Float64}` written as a value; `Vector{Vector{T}}` with the `where`
            // variables it names replaced by the types they stand for.
            let name = &self.with_type_vars(name)?;
            let canonical = crate::type_values::canonical(name, self.program)?;
            return Ok(Val::lit(Const::Func(canonical)));
        }
        if !self.program.globals.contains_key(name)
            && (self.is_defined(name)
                || crate::builtins::is_written_type(name)
                || crate::builtins::is_exception_type(name))
        {
            return Ok(Val::lit(Const::Func(name.clone())));
        }
        if !self.program.globals.contains_key(name) {
            return Err(Fail::undefined_in(name, self.program));
        }
        let binding = self.binding(b, name);
        match &binding.ty {
            // A binding some function rebinds is read from its cell.
            Type::Ref(_) if self.program.rebound.contains(name) => {
                self.call_named(b, &"getindex".into(), &[binding])
            }
            _ => Ok(binding),
        }
    }

    /// The value of the top-level binding `name` (its cell, for one some function rebinds).
    fn binding(&mut self, b: &mut PlanBuilder, name: &Name) -> Val {
        let (_, ty) = self.invoke(Instance {
            name: name.clone(),
            method: GLOBAL_METHOD,
            args: Arc::from([]),
        });
        Val::of(b.push(Op::Global(name.clone()), vec![], ty.clone()), ty)
    }

    /// `x = v` in a function declaring `global x` (lowered `Base._setglobal!(x, v)`): `v`
    /// stored in `x`'s cell. zy keeps a binding's type: a value of another type is refused.
    fn set_global(&mut self, b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
        let name = match args {
            [Val {
                konst: Some(Const::Func(n)),
                ..
            }, _] => n.clone(),
            _ => return Err(Fail::unsupported("assigning a global that is not a name")),
        };
        if !self.program.globals.contains_key(&name) {
            return Err(Fail::unsupported(format!(
                "`global {name}` assigned in a function without a top-level `{name} = ...`; \
                 bind it at the top level first"
            )));
        }
        let cell = self.binding(b, &name);
        let value = &args[1];
        match &cell.ty {
            Type::Ref(t) if **t == value.ty => {
                self.call_named(b, &"setindex!".into(), &[cell, value.clone()])
            }
            Type::Ref(t) => Err(Fail::unsupported(format!(
                "assigning a {} to the global `{name}`, which holds a {t} (zy keeps a global's \
                 type; convert the value, or keep it in a `Ref{{Any}}`)",
                value.ty
            ))),
            t => Err(Fail::unsupported(format!(
                "assigning the global `{name}`, which holds a {t}"
            ))),
        }
    }

    /// The `where` variable an operand names as a value (`T` in `T.(x)`), with its type.
    fn type_var_of(&self, v: &Val) -> Option<(Name, Type)> {
        let Some(Const::Func(n)) = &v.konst else {
            return None;
        };
        Some((n.clone(), self.type_vars.get(n)?.clone()))
    }

    /// `ins` with each `where` variable passed as a value (`T.(x)`, `map(T, x)`, a keyword
    /// default `B = T.(x)`) replaced by the type it stands for, as Julia's static parameters are.
    fn type_vars_as_values(&self, ins: &[Val]) -> Result<Vec<Val>, Fail> {
        ins.iter()
            .map(|i| match self.type_var_of(i) {
                Some((n, t)) => self.type_value(&n, &t),
                None => Ok(i.clone()),
            })
            .collect()
    }

    /// The text of the type `name` with each `where` variable it names (`T` in
    /// `Vector{Vector{T}}`) replaced by the text of the type (or value) it stands for.
    fn with_type_vars(&self, name: &Name) -> Result<Name, Fail> {
        let mut out = String::with_capacity(name.len());
        let mut word = String::new();
        for c in name.chars().chain(std::iter::once(' ')) {
            if c.is_alphanumeric() || c == '_' || c == '.' {
                word.push(c);
                continue;
            }
            match self.type_vars.get(word.as_str()) {
                Some(t) => {
                    let var: Name = word.as_str().into();
                    let text = const_text(&self.type_value(&var, t)?).ok_or_else(|| {
                        Fail::unsupported(format!("the `where` variable `{var}` inside `{name}`"))
                    })?;
                    out.push_str(&text);
                }
                None => out.push_str(&word),
            }
            word.clear();
            out.push(c);
        }
        out.pop();
        Ok(out.into())
    }

    /// The type `t` that the `where` variable `var` stands for, as a value: zy represents a
    /// type as its constructor (`Float64`, a struct's name), so `T(1)` and `zero(T)` work.
    fn type_value(&self, var: &Name, t: &Type) -> Result<Val, Fail> {
        if let Type::Param(p) = t {
            // `n` of `::Val{n}`: the value.
            return Ok(Val::lit(crate::type_params::value_of(p)));
        }
        if let Some(n) = crate::pattern::dims_of(t) {
            // `N` of `AbstractArray{T, N} where N` is a number.
            return Ok(Val::lit(Const::Int(i64::from(n))));
        }
        let name: Name = match t {
            Type::Float64 => "Float64".into(),
            Type::Int64 => "Int64".into(),
            Type::Float32 => "Float32".into(),
            Type::Int(k) => k.name().into(),
            Type::String => "String".into(),
            Type::SubString => "SubString{String}".into(),
            Type::Symbol(_) if t.is_any_symbol() => "Symbol".into(),
            // `Any` of a `Vector{Any}`'s `eltype`.
            Type::Union(u) if crate::open::is_open(&u.name) => u.name.clone(),
            Type::Struct(s) if s.kind == StructKind::User && s.params.is_empty() => s.name.clone(),
            Type::Bool
            | Type::Nothing
            | Type::Array(..)
            | Type::Adjoint(_)
            | Type::Tuple(_)
            | Type::NamedTuple(_)
            | Type::Struct(_) => crate::type_values::value_name(t)?,
            // `Union{Missing, Float64}`, `Union{Missing, Nothing, Float64}` (an array's
            // `eltype`).
            Type::Union(_)
                if crate::absent::number_member(t).is_some()
                    || crate::join::missing_or(std::slice::from_ref(t)).is_some() =>
            {
                crate::type_values::value_name(t)?
            }
            _ => {
                return Err(Fail::unsupported(format!(
                    "the type {t} of `where` variable `{var}` as a value"
                )))
            }
        };
        Ok(Val::lit(Const::Func(name)))
    }

    /// The instance that calling a value of type `callee` on `args` runs, if it is user code
    /// (used by the differentiation builtins and the synthesised higher-order functions).
    pub fn callee_result(&mut self, callee: &Val, args: &[Type]) -> Result<Type, Fail> {
        Ok(self.callee_plan(callee, args)?.ty)
    }

    /// How calling a value of type `callee` on `args` is typed: its steps and result.
    pub(crate) fn callee_plan(&mut self, callee: &Val, args: &[Type]) -> Result<Plan, Fail> {
        let mut scratch = PlanBuilder::default();
        let mut all = vec![callee.clone()];
        all.extend(
            args.iter()
                .enumerate()
                .map(|(i, t)| Val::of(Arg::Input(i + 1), t.clone())),
        );
        let v = self.call_value(&mut scratch, &all)?;
        Ok(scratch.finish(v.arg, v.ty))
    }

    /// `x` where a branch tested `x isa T` ([`NARROW_ISA`]) or `!(x isa T)`
    /// ([`NARROW_NOTISA`]): `x` itself where its type passes the test, a value that never
    /// returns where it does not (a member of a union that the branch rules out: a union is
    /// split over its members first, so the branch sees the others'). A test decided at run
    /// time (of `findfirst`'s union) leaves `x` as it is.
    fn narrow_isa(&mut self, b: &mut PlanBuilder, name: &str, args: &[Val]) -> Result<Val, Fail> {
        let [x, _] = args else {
            return Err(crate::error::no_method(name, &crate::value::types(args)));
        };
        let mut scratch = PlanBuilder::default();
        let test = self.call_named(&mut scratch, &"isa".into(), args)?;
        let Arg::Const(Const::Bool(holds)) = test.arg else {
            return Ok(x.clone());
        };
        if holds == (name == NARROW_ISA) {
            return Ok(x.clone());
        }
        let message = format!("unreachable: a {} where a branch ruled it out", x.ty);
        let thrown = b.prim(
            Prim::Error,
            vec![Arg::Const(Const::Str(message.as_str().into()))],
            Type::Bottom,
        );
        Ok(Val::of(thrown, Type::Bottom))
    }

    /// `#apply(f, args...)` ([`crate::synth::APPLY`]): the call `f(args...)` as an instance of
    /// its own, through which a builtin or library function passed as a value is differentiated.
    fn apply(&mut self, b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
        let Some((f, xs)) = args.split_first() else {
            return Err(crate::error::no_method(crate::synth::APPLY, &[]));
        };
        // Refused here, at the call, rather than in the synthesised body.
        self.callee_result(f, &crate::value::types(xs))?;
        let (inst, ret) = self.invoke(Instance {
            name: crate::synth::APPLY.into(),
            method: crate::SYNTH_METHOD,
            args: crate::value::types(args).into(),
        });
        let ops = args.iter().map(|a| a.arg.clone()).collect();
        Ok(Val::of(b.push(Op::Invoke(inst), ops, ret.clone()), ret))
    }
}

/// The text of a type value (its name) or of a type parameter's value (`3`, `true`, `:a`) as
/// it is written inside a type's braces.
fn const_text(v: &Val) -> Option<String> {
    match &v.konst {
        Some(Const::Func(n)) => Some(n.to_string()),
        Some(Const::Int(i)) => Some(i.to_string()),
        Some(Const::Bool(b)) => Some(b.to_string()),
        Some(Const::Symbol(s)) => Some(format!(":{s}")),
        _ => None,
    }
}

/// Is `t` a union whose members a store converts one by one to the container's element type:
/// numbers (`Union{Float64, Int64}`, `Union{Int64, UInt8}` pushed into a `Vector{UInt8}`),
/// strings (`Union{String, SubString{String}}` into a `Vector{String}`) or `nothing` beside
/// them (`push!(v, findfirst(m))`: Julia's `convert` error where it is `nothing`)?
fn converts_each(t: &Type) -> bool {
    let plain = |m: &Type| {
        m.is_number() || m.is_string() || matches!(m, Type::Int(_) | Type::Float32 | Type::Nothing)
    };
    t.is_real() || matches!(t, Type::Union(u) if u.is_julias() && u.members.iter().all(plain))
}
