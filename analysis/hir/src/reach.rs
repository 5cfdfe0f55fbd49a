//! Which definitions a program needs: the names an item refers to, and the names the engine
//! itself calls by name. A program holds its user files' items and, of the prelude, only the
//! items that define a name reached from those (transitively), so a first gradient does not
//! lower the whole library ([`crate::program_index`]).

use zy_ir::{Const, Function, Name, Op, Operand, TypeExpr, ValueKind};
use zy_lower::LoweredItem;

/// Names that inference, the AD and lowering call or construct by themselves, whatever the
/// code says, each group with the names that lead there: a program that reaches one of a
/// group's triggers (or any program, for a group without triggers) has the definitions of its
/// hooks. A library name written as a string in those crates and missing here fails
/// `every_named_definition_is_a_hook`.
pub const HOOKS: &[Hooks] = &[
    Hooks {
        // In-source rules, looked up by the AD (never qualified); lowering's helpers; the types
        // that builtins make (`a => b`, `Ref(x)`); the functions inference calls unqualified
        // (splatting, varargs, keywords, `[a, b]`, broadcasting's scalar `+`): a user
        // definition of those in Main is one of the user's items anyway.
        triggers: &[],
        hooks: &[
            "rrule",
            "frule",
            "Base.kwcall",
            "Base._destructure",
            "Base.range_length",
            "Base.Pair",
            "Base.RefValue",
            "getindex",
            "tuple",
            "namedtuple",
            "getfield",
            // `x.f = v` where the program defines `Base.setproperty!` (`Base.getproperty` is
            // `iterate`'s hook too).
            "Base.setproperty!",
            "vect",
            "+",
            // `typeof` of a union, split by inference on the member held.
            "Base.typeof",
        ],
    },
    // `Tuple(I)` of a `CartesianIndex` is recognised by its type (inference's `named`): only
    // code making one has one, so the type is a trigger of nothing more.
    Hooks {
        triggers: &["Base.CartesianIndex"],
        hooks: &[],
    },
    // `SubString` names a type in an annotation, `isa` or a typed literal (inference's
    // `pattern`), resolved to the prelude's constructors: code naming it reaches them.
    Hooks {
        triggers: &["Base.SubString"],
        hooks: &[],
    },
    // Stores into a container of `Any` are recognised by these names (inference's `body`,
    // the types a `[]` holds): only code calling them stores.
    Hooks {
        triggers: &[
            "Base.push!",
            "Base.pushfirst!",
            "Base.setindex!",
            "Base.insert!",
            "Base.append!",
            "Base.prepend!",
            // (The keys and values of a `Dict()`.)
            "Base.get!",
        ],
        hooks: &[],
    },
    // An `AbstractSet` annotation takes the library's `Set` and `BitSet` (inference's
    // `pattern` names them): only code making one has one, so the types trigger nothing more.
    // A `Set()` stored into is made of its `_SetItems` (inference's `open_table`), which
    // `Set()` reaches.
    Hooks {
        triggers: &[
            "Base.AbstractSet",
            "Base.Set",
            "Base.BitSet",
            "Base._SetItems",
        ],
        hooks: &[],
    },
    // A named tuple type called through an alias (`Item((2, 3))`) calls these constructors,
    // which `NAMED_TUPLE_CONSTRUCTORS` brings in where code names `NamedTuple`.
    Hooks {
        triggers: &["Base._named_tuple_of", "Base._typed_named_tuple"],
        hooks: &[],
    },
    // A `RegexMatch` may be `nothing` on another path and an array's element (inference's
    // `join` and `data` know it by name); `match` makes it, so code reaching `match` has it.
    Hooks {
        triggers: &["Base.RegexMatch"],
        hooks: &[],
    },
    // A 0-dimensional array is Julia's `Array{T, 0}` to `isa` and dispatch (inference's
    // `pattern` knows the struct by name); `fill(x)`, `zeros()` and the like make it, so code
    // reaching them has it.
    Hooks {
        triggers: &["Base.ZeroDimArray"],
        hooks: &[],
    },
    // `Val(x)` is made by inference (`type_params`) of the struct that code naming `Val`
    // reaches.
    Hooks {
        triggers: &["Base.Val"],
        hooks: &[],
    },
    // A `Union{Nothing, T}` (a regex group, `tryparse`'s result) stored where a `T` is held:
    // inference checks it at run time (`Base._convert_present`).
    Hooks {
        triggers: &["Base.RegexMatch", "Base.tryparse"],
        hooks: &["Base._convert_present"],
    },
    // `reduce(vcat, [a, b])` of a literal is lowered to a call of `Base._reduce_cat`, which the
    // item then names: a trigger of nothing more.
    Hooks {
        triggers: &["Base._reduce_cat"],
        hooks: &[],
    },
    // A call of an array or tuple type through an alias (`FVec(undef, n)` of `const FVec =
    // Vector{Float64}`) calls what the syntax lowers the type's call to (inference's
    // `aliases`), which the alias's item names: triggers of nothing more.
    Hooks {
        triggers: ALIAS_CONSTRUCTORS,
        hooks: &[],
    },
    // So is `Base._stack_rows` of `reduce(vcat, [x' for x in xs])` and the like.
    Hooks {
        triggers: &["Base._stack_rows"],
        hooks: &[],
    },
    // `!x` of a Bool known from the types (`l !== nothing`) is known (inference's `body`): only
    // code calling `!` has one, so the name is a trigger of nothing more.
    Hooks {
        triggers: &["Base.!"],
        hooks: &[],
    },
    // A method's `kw...` is bound to `pairs` of a named tuple, by lowering's call in the
    // method's own item (and inference's in a keyword call to it): the item names it.
    Hooks {
        triggers: &["Base.pairs"],
        hooks: &["Base.pairs"],
    },
    // `deepcopy` of a struct copies each field by `Base._deepcopy` (inference's `copies`).
    Hooks {
        triggers: &["_deepcopy_fields"],
        hooks: &["Base._deepcopy"],
    },
    // Splatting a vector `f(x...)` (inference's `splat_vector`).
    Hooks {
        triggers: &["Base.splatcall"],
        hooks: &[
            "Base._splat_fold",
            "Base._splat_vcat",
            "Base._splat_hcat",
            "Base._hvcat_rows",
            "Base._splat_arity",
            "Base._splat_string",
            "Base._splat_keywords",
            "Base.copy",
            "Base.vec",
        ],
    },
    // A loop over a tuple whose elements differ in type (inference's `unroll`) is recognised
    // by these names in the loop's own code, which reaches them.
    Hooks {
        triggers: &[
            "Base.Enumerate",
            "Base.Zip",
            "Base.Pairs",
            "Base.length",
            "Base.lastindex",
            "Base.eachindex",
        ],
        hooks: &[
            "Base.Enumerate",
            "Base.Zip",
            "Base.Pairs",
            "Base.length",
            "Base.lastindex",
            "Base.eachindex",
        ],
    },
    // `throw(x)` of a value that is not a caught exception is reported as
    // `sprint(showerror, x)` shows it (inference's `exceptions::call`).
    Hooks {
        triggers: &["throw", "Base.throw"],
        hooks: &["Base.showerror"],
    },
    // `throw(BoundsError(a, i))` (lowering's call for its message, in the item that throws).
    Hooks {
        triggers: &["Base._bounds_message"],
        hooks: &["Base._bounds_message"],
    },
    // A return annotation `f(x)::T` (lowering's call, in the user's item).
    Hooks {
        triggers: &["Base._return_convert"],
        hooks: &["Base._return_convert"],
    },
    // A typed local `x::T = v` (lowering's call, in the item that declares it).
    Hooks {
        triggers: &["Base._declared_convert"],
        hooks: &["Base._declared_convert"],
    },
    // The factorizations destructure by their fields (inference's `get_index`).
    Hooks {
        triggers: &[
            "LinearAlgebra.Eigen",
            "LinearAlgebra.SVD",
            "LinearAlgebra.Cholesky",
            "LinearAlgebra.QR",
            "LinearAlgebra.LU",
            "LinearAlgebra.Schur",
            "LinearAlgebra.GeneralizedEigen",
            "LinearAlgebra.Hessenberg",
        ],
        hooks: &[
            "LinearAlgebra.Eigen",
            "LinearAlgebra.SVD",
            "LinearAlgebra.Cholesky",
            "LinearAlgebra.QR",
            "LinearAlgebra.LU",
            "LinearAlgebra.Schur",
            "LinearAlgebra.GeneralizedEigen",
            "LinearAlgebra.Hessenberg",
        ],
    },
    // A `for` loop over a collection asks for its elements by `_gen_elem`, which inference
    // falls back to `getindex` for where no method of it applies (a struct with `iterate`
    // methods instead is refused by name).
    Hooks {
        triggers: &["Base._gen_elem"],
        hooks: &["Base._gen_elem", "Base.getindex", "Base.iterate"],
    },
    // A program defining `Base.iterate` methods for its structs: inference hands `collect`,
    // `first`, `zip`, generators, reductions and destructuring over one to these (asking
    // `_iterator_size` whether one is endless, `eltype` for its declared element type), and
    // lowers a loop over the library's lazy iterators around one by the `_lazy_` functions.
    Hooks {
        triggers: &["Base.iterate"],
        hooks: &[
            "Base._collect_iterated",
            "Base._collect_sized",
            "Base._first_iterated",
            "Base._items_upto",
            "Base._lazy_start",
            "Base._lazy_more",
            "Base._lazy_step",
            "Base.getproperty",
            "Base.Iterators.take",
            "Base._any_iterated",
            "Base._all_iterated",
            "Base._in_iterated",
            "Base._nth_iterated",
            "Base._too_few",
            "Base.min",
            "Base._iterator_size",
            "Base.IsInfinite",
            "Base.eltype",
        ],
    },
    // A program's `Base.show(io::IO, x::T)` methods (user items), which inference calls where
    // `string`, `repr` or an interpolation shows a `T`, and through these in containers.
    Hooks {
        triggers: &["Base.show"],
        hooks: &[
            "Base._show_vector",
            "Base._show_tuple",
            "Base._show_dict",
            "Base._with_repr",
            "Base._show_text_plain",
        ],
    },
    // Dates' instants and periods, which `string`, `repr`, an interpolation and the result
    // display write by their own `Base.string` and `Base.show` methods (inference's `show`).
    Hooks {
        triggers: &[
            "Dates.Date",
            "Dates.DateTime",
            "Dates.Time",
            "Dates.Year",
            "Dates.Month",
            "Dates.Week",
            "Dates.Day",
            "Dates.Hour",
            "Dates.Minute",
            "Dates.Second",
            "Dates.Millisecond",
            "Dates.Microsecond",
            "Dates.Nanosecond",
            "Dates.DateFormat",
        ],
        hooks: &["Base.show", "Base.string", "Base._show_text_plain"],
    },
    // `repr("text/plain", x)` of a number, string or symbol, which inference answers with
    // `repr(x)` (`show.rs`): reached with `repr` itself.
    Hooks {
        triggers: &["Base.repr"],
        hooks: &["Base.repr"],
    },
    // Julia's generic methods for Numbers, which inference calls for the program's own number
    // types where a builtin has methods for zy's numbers only (`calls.rs`, `number_fallback`).
    Hooks {
        triggers: &[NUMBER_TYPE],
        hooks: &[
            "Base._number_sum",
            "Base._number_mapsum",
            "Base._number_prod",
            "Base._number_zero",
            "Base._number_one",
            "Base._number_zero_of",
            "Base._number_one_of",
            "Base._number_power",
            "Base._number_literal_pow",
            "Base._number_abs",
            "Base._number_greater",
            "Base._number_greater_eq",
            "Base._number_promote",
            "Base._number_promote_back",
            "Base._number_promotion_failed",
            "Base._number_no_op",
            "Base.promote_rule",
        ],
    },
    // Julia's generic `max`, `min`, `maximum`, `minimum` by `isless`, which inference calls
    // for structs and tuples, where the builtins have methods for numbers only (`calls.rs`,
    // `isless_fallback`).
    Hooks {
        triggers: &["Base.max", "Base.min", "Base.maximum", "Base.minimum"],
        hooks: &[
            "Base._isless_max",
            "Base._isless_min",
            "Base._isless_extremum",
        ],
    },
    // The library reads an array struct of the program (`struct V <: AbstractVector{Float64}`)
    // as a copy of its elements where it has no method for it (`calls.rs`, `reads_user_array`).
    Hooks {
        triggers: &[ARRAY_TYPE],
        hooks: &[
            "Base._array_collect",
            "Base._array_size",
            "Base._array_length",
            "Base._array_isempty",
            "Base._array_firstindex",
            "Base._array_lastindex",
            "Base._array_checkbounds",
            "Base._array_summary",
        ],
    },
    // `A[i, j]` of an `IndexLinear()` array struct of the program, read by its linear
    // `getindex` (`calls.rs`, `indexes_linearly`): only a program naming `IndexStyle` says so.
    Hooks {
        triggers: &["Base.IndexStyle"],
        hooks: &[
            "Base._getindex_linear",
            "Base.IndexCartesian",
            "Base.IndexLinear",
        ],
    },
    // `Dict()` is refused by inference; the gradient of a `Dict` argument is built as one (in
    // the program by `_dict_gradients`, inference's `diff::differentiate`).
    Hooks {
        triggers: &["Base.Dict"],
        hooks: &["Base.Dict", "Base._dict_gradients"],
    },
    // A library function with no method for a view reads a copy of it (inference's
    // `call_with_views_copied`); a shared reshape is a view marked `_Reshaped`. `derivative` of
    // a function returning one is `_view_derivative` (inference's `diff::differentiate`).
    Hooks {
        triggers: &["Base.SubArray", "Base._Reshaped"],
        hooks: &["Base.SubArray", "Base.collect", "Base._view_derivative"],
    },
    // `hessian` and `hvp` of a Float32 vector are the prelude's loops (inference's
    // `diff::differentiate` and `diff::directional`).
    Hooks {
        triggers: &["hessian", "Base.hessian", "hvp", "Base.hvp"],
        hooks: &["Base._hessian_single", "Base._hvp_single"],
    },
    // A range concatenated (`[1:3; 5]`) is collected first (inference's `concat::call`), as
    // is one converted (`Vector(1:3)`, `Array(r)`: inference's builtins).
    Hooks {
        triggers: &[
            "Vector",
            "Array",
            "vcat",
            "Base.vcat",
            "hcat",
            "Base.hcat",
            "hvcat",
            "Base.hvcat",
        ],
        hooks: &["Base.collect"],
    },
    // Inference reads lowering's `Dict{K, V}()` (a call of `_typed_dict`) and a
    // `CartesianIndices` of ranges by name: only code making one names it.
    Hooks {
        triggers: &["Base._typed_dict", "Base.CartesianIndices"],
        hooks: &[],
    },
    // A range is an AbstractVector for a user's annotation (inference's `abstract_array`):
    // only code naming the range makes one.
    Hooks {
        triggers: &[
            "Base.UnitRange",
            "Base.StepRange",
            "Base.LinRange",
            "Base.OneTo",
        ],
        hooks: &[],
    },
    // `Symmetric(A)`, `Hermitian(A)`, `Diagonal(v)`, the triangular wrappers, `transpose(x)`
    // and `x'` of a complex vector are read as their dense matrix where the library has no
    // method for them (inference's `call_with_views_copied`).
    Hooks {
        triggers: &[
            "LinearAlgebra.Symmetric",
            "LinearAlgebra.Hermitian",
            "LinearAlgebra.Diagonal",
            "LinearAlgebra.UpperTriangular",
            "LinearAlgebra.LowerTriangular",
            "LinearAlgebra.UnitUpperTriangular",
            "LinearAlgebra.UnitLowerTriangular",
            "Base.Transpose",
            "Base.ConjAdjoint",
            "Base.AdjointMatrix",
            "Base.TransposeMatrix",
        ],
        hooks: &["Base.collect"],
    },
    // An index `Base.OneTo(n)` that `getindex`, `setindex!` or `view` has no method for is
    // read as `1:n` (inference's `call_with_unit_ranges`).
    Hooks {
        triggers: &["Base.OneTo"],
        hooks: &["Base._unit_range"],
    },
    // `eachrow`/`eachcol`/`eachslice`'s slices are an AbstractVector of views for a user's
    // annotation (inference's `abstract_array`): only code making them has them.
    Hooks {
        triggers: &["Base.RowSlices", "Base.ColumnSlices", "Base.Slices"],
        hooks: &[],
    },
    // A closure's box of a local (lowering's `Base._box` made empty, filled by
    // `Base._box_init!`, assigned by `Base._box_set!`): builtins of inference, with no
    // definition to bring.
    Hooks {
        triggers: &["Base._box", "Base._box_init!", "Base._box_set!"],
        hooks: &[],
    },
    // `t[:]` of a tuple is the tuple itself (inference's `tuple_slice`): only code writing
    // `:` as an index makes a `Colon`.
    Hooks {
        triggers: &["Base.Colon"],
        hooks: &[],
    },
    // A slurping target `a, b..., c = x` of an array takes its elements from `i` on, and the
    // targets after it count from the end.
    // Destructuring a value that may be `nothing` (`(x, s), st = itr` of an `iterate` result)
    // tests for it first, so that the items are read at constant positions.
    Hooks {
        triggers: &["Base._destructure"],
        hooks: &["Base._destructurable"],
    },
    Hooks {
        triggers: &["Base._destructure_rest"],
        hooks: &[
            "Base._destructure_end",
            "Base._rest_array",
            "Base._end_item",
        ],
    },
    // `Tuple(gen)` of a generator inference cannot unroll is refused by name (its type);
    // destructuring one, `a, b = (f(x) for x in xs)`, takes its items in turn.
    Hooks {
        triggers: &["Base.Generator"],
        hooks: &["Base._nth_iterated", "Base._too_few"],
    },
    // `map(f, xs...)` of several collections (inference's `zip_vectors`).
    Hooks {
        triggers: &["map", "Base.map"],
        hooks: &["Base._zip_vectors"],
    },
    // `f.(xs...)` of several arrays by a Julia function (inference's `broadcast`); `x .^ -k`
    // (lowering's broadcast of `literal_pow`).
    Hooks {
        triggers: &["broadcast", "Base.broadcast"],
        hooks: &[
            "Base._broadcast_vectors",
            "Base._broadcast_matrices",
            "Base._literal_pow_neg",
        ],
    },
    // `fill(v, n)` of a value that is not a number (inference's array builtins).
    Hooks {
        triggers: &["fill", "Base.fill"],
        hooks: &["Base._fill_any"],
    },
    // `sum(x; dims)`, `sum(f, x; init)` and the other reductions with keywords.
    Hooks {
        triggers: &["sum", "Base.sum"],
        hooks: &[
            "Base._sum_dims",
            "Base._mapfoldl",
            "Base.identity",
            "Base._mapreduce_empty",
        ],
    },
    // A task's type, which `typeof(t)` names `Task` (type values): only code making a task
    // has one.
    Hooks {
        triggers: &["Base.Task"],
        hooks: &[],
    },
    Hooks {
        triggers: &[
            "prod",
            "Base.prod",
            "maximum",
            "Base.maximum",
            "minimum",
            "Base.minimum",
        ],
        hooks: &["Base._reduce_dims", "Base._mapfoldl", "Base.identity"],
    },
    // `round(x; digits)`, `trunc(x; sigdigits)`, `round(x, RoundDown; digits)`, ...
    Hooks {
        triggers: &[
            "round",
            "Base.round",
            "trunc",
            "Base.trunc",
            "floor",
            "Base.floor",
            "ceil",
            "Base.ceil",
            "Base._RoundNearest",
            "Base._RoundDown",
            "Base._RoundUp",
            "Base._RoundToZero",
        ],
        hooks: &["Base._round_digits", "Base._round_sigdigits"],
    },
    // `missing` (its struct, which inference's patterns name), `!` of the three-valued `==` of
    // arrays that may hold it, and that `==` of tuples.
    Hooks {
        triggers: &["Base.Missing"],
        hooks: &["Base.!", "Base._tuple_equal"],
    },
    // `==` and `!=` of two arrays.
    Hooks {
        triggers: &["==", "!=", "Base.==", "Base.!="],
        hooks: &["Base._array_equal"],
    },
    // `===` of two recursive structs (and the `==` falling back to it), whose fields compare
    // by a method.
    Hooks {
        triggers: &[
            "==", "!=", "===", "!==", "Base.==", "Base.!=", "Base.===", "Base.!==",
        ],
        hooks: &["Base._egal"],
    },
    // Concatenation of arrays.
    Hooks {
        triggers: &[
            "vcat",
            "hcat",
            "hvcat",
            "Base.vcat",
            "Base.hcat",
            "Base.hvcat",
        ],
        hooks: &[
            "Base._vcat_matrix",
            "Base._vcat_vector",
            "Base._vcat_vectors",
            "Base._hcat",
            "Base._hvcat_rows",
            "Base._hvcat_stack",
            "Base._vcat_open",
            "Base._vcat_open_matrix",
            "Base._hcat_open",
        ],
    },
    // `cat(xs...; dims)`, and `vcat`/`hcat` of 3-dimensional arrays.
    Hooks {
        triggers: &[
            "cat",
            "Base.cat",
            "vcat",
            "hcat",
            "hvcat",
            "Base.vcat",
            "Base.hcat",
            "Base.hvcat",
        ],
        hooks: &["Base._cat_along", "Base._cat_along4", "Base._cat_diag"],
    },
    // `mapslices(f, A; dims)`.
    Hooks {
        triggers: &["mapslices", "Base.mapslices"],
        hooks: &[
            "Base._mapslices_columns",
            "Base._mapslices_rows",
            "Base._mapslices_fibers",
            "Base._mapslices_matrices",
        ],
    },
    // Arithmetic with values of these types (only code that names the type makes them).
    Hooks {
        triggers: &["LinearAlgebra.UniformScaling"],
        hooks: &[
            "LinearAlgebra._uniform_plus",
            "LinearAlgebra._uniform_minus",
            "LinearAlgebra._uniform_times",
            "LinearAlgebra._uniform_block",
            "Base._uniform_matrix",
        ],
    },
    // Complex numbers: `z^-2` (lowering's `literal_pow` of a negative literal), `[1.0, 2im]`
    // and `[1.0+2im 3.0; 0 x]` (inference's promotion and `_hvcat_matrix`), `A[i, j] = 1` of a
    // complex `A`, `sum(f, x)` of an `f` giving complex numbers.
    Hooks {
        triggers: &["Base.Complex"],
        hooks: &[
            "Base._literal_pow",
            "Base._complex_proto",
            "Base._complex_convert",
            "Base._complex_setindex!",
            "Base._hvcat_matrix",
            "Base._complex_mapsum",
        ],
    },
    // Rational numbers: `(1//2)^2` (lowering's `literal_pow`), `Float64(x)`, `Int(x)` of one
    // (inference's builtin conversions call the prelude), `[1//2 0.5]`.
    Hooks {
        triggers: &["Base.Rational"],
        hooks: &[
            "Base._rational_vect",
            "Base._literal_pow",
            "Base._rational_float",
            "Base._rational_int",
            // A matrix literal mixing rationals and Float64s (inference's `hvcat` promotion).
            "Base.float",
        ],
    },
    // `x[end]` is lowering's `Base._end_index(x)`, which inference makes `length(x)`, and of a
    // string `lastindex(s)`.
    Hooks {
        triggers: &["Base._end_index"],
        hooks: &["Base.length", "Base.lastindex"],
    },
    // Characters: their supertype (which a struct's definition does not reach); `Int(c)` and
    // `String(v)` of a `Vector{Char}` (inference's builtins call the prelude).
    Hooks {
        triggers: &["Base.Char"],
        hooks: &["Base.AbstractChar", "Base._char_int", "Base._string_chars"],
    },
    // `@enum` types (each constructor calls `Base._enum_value`): their supertype (which the
    // struct's definition also reaches, see `item_names`), and `Int(x)` and `Symbol(x)` of one
    // (inference's builtins call the prelude).
    Hooks {
        triggers: &["Base._enum_value"],
        hooks: &["Base.Enum", "Base._enum_int", "Base._enum_symbol"],
    },
    // `A^-1` of a matrix (lowering's `literal_pow` of a negative literal): the call `A ^ -1`.
    Hooks {
        triggers: &["literal_pow", "Base.literal_pow"],
        hooks: &["Base.^"],
    },
    // `Bool(x)` of a number that is not a Bool (inference's builtin calls the prelude).
    Hooks {
        triggers: &["Bool"],
        hooks: &["Base._bool"],
    },
    // A function that is not one primitive broadcast over a vector and a row `x'`
    // (`builtins::higher`).
    Hooks {
        triggers: &["adjoint", "Base.adjoint", "transpose", "Base.transpose"],
        hooks: &["Base._outer_broadcast", "Base._outer_broadcast_flipped"],
    },
    // The annotation `ComplexF64`, which inference reads as `Complex{Float64}`.
    Hooks {
        triggers: &["Base.ComplexF64"],
        hooks: &["Base.ComplexF64", "Base.Complex"],
    },
    // A branch that tests a variable against `nothing` rebinds it where it is not
    // (`ExprKind::Narrow`, lowered as a call of `Base._notnothing`).
    Hooks {
        triggers: &["===", "isnothing"],
        hooks: &["Base._notnothing"],
    },
    // A loop over a struct of the program by its `iterate` methods tests a result a helper
    // returned against `nothing` the same way (inference's `iterate.rs`).
    Hooks {
        triggers: &["iterate", "Base.iterate"],
        hooks: &["Base._notnothing", "Base.==="],
    },
    // ... or against `missing` (`Base._nonmissing`).
    Hooks {
        triggers: &["===", "ismissing"],
        hooks: &["Base._nonmissing"],
    },
    // `sum`, `prod`, `maximum`, `minimum` of a container of an open abstract type
    // (`Any[x, 2]`, `Real[...]`), and `sum(f, xs)` of its values: inference hands them to
    // these folds.
    Hooks {
        triggers: &[
            "Any",
            "Real",
            "Number",
            "Base.Any",
            "Base.Real",
            "Base.Number",
        ],
        hooks: &[
            "Base._open_sum",
            "Base._open_mapsum",
            "Base._open_prod",
            "Base._open_maximum",
            "Base._open_minimum",
        ],
    },
    // ... or of an array of Float32s or fixed-width integers (`sum(UInt8[1, 2])`).
    Hooks {
        triggers: &["Base.sum", "Base.prod", "Base.maximum", "Base.minimum"],
        hooks: &[
            "Base._sized_sum",
            "Base._sized_prod",
            "Base._sized_maximum",
            "Base._sized_minimum",
        ],
    },
    // `repr("text/plain", A)` (and `show(io, MIME"text/plain"(), A)`) of an array or a lazy
    // adjoint or transpose: inference calls the prelude's display.
    Hooks {
        triggers: &["repr", "Base.repr"],
        hooks: &[
            "Base._plain_array",
            "Base._plain_wrapper",
            "Base._plain_list",
            "Base._plain_lin_range",
            "Base._plain_view",
            "Base._plain_user_array",
        ],
    },
    // `findfirst`'s union: inference hands `==` and `!=` with it on a side to the prelude,
    // tests `isnothing(i)` at run time for `i isa Int`, and checks the index where a call
    // takes an Int only (`Base._found_index`).
    Hooks {
        triggers: &["Base.NothingOrInt"],
        hooks: &["Base._union_equal", "Base.isnothing", "Base._found_index"],
    },
    // `==`, `!=` and `===` of two structs: Julia's fallback compares the fields with `===`
    // (inference's `struct_egal`), and `!=` is `!(a == b)` with the program's `==`.
    Hooks {
        triggers: &["==", "!=", "==="],
        hooks: &["Base.===", "Base.=="],
    },
    // A comparison called with one argument through a value (`op = >; op(0)`): inference
    // makes `Base.Fix2` (the syntax rewrites `>(0)` itself, which names it).
    Hooks {
        triggers: &["<", "<=", ">", ">=", "==", "!="],
        hooks: &["Base.Fix2"],
    },
    // A `for` loop over a range that is not of Ints (lowering's `loop_range`/`loop_elem`,
    // which inference hands to the prelude for a `StepRangeLen`).
    Hooks {
        triggers: &["Base.loop_range", "Base.loop_elem"],
        hooks: &[
            "Base.loop_range",
            "Base.loop_elem",
            "Base._loop_range",
            "Base._loop_length",
            "Base._loop_elem",
            "Base.StepRangeLen",
        ],
    },
    // `A / B` of matrices (or a row by a matrix): right division in the prelude.
    Hooks {
        triggers: &["/", "Base./"],
        hooks: &["LinearAlgebra._rdiv"],
    },
    Hooks {
        triggers: &["LinearAlgebra.Diagonal"],
        hooks: &[
            "LinearAlgebra._diagonal_plus",
            "LinearAlgebra._diagonal_minus",
            "LinearAlgebra._diagonal_times",
            "LinearAlgebra._diagonal_matrix",
        ],
    },
    Hooks {
        triggers: &[
            "LinearAlgebra.UpperTriangular",
            "LinearAlgebra.LowerTriangular",
            "LinearAlgebra.UnitUpperTriangular",
            "LinearAlgebra.UnitLowerTriangular",
        ],
        hooks: &[
            "LinearAlgebra._triangular_plus",
            "LinearAlgebra._triangular_minus",
            "LinearAlgebra._triangular_times",
            "LinearAlgebra._triangular_matrix",
        ],
    },
    // `Matrix(F.Q)` of a Hessenberg decomposition's `Q` (inference's `Matrix` builtin).
    Hooks {
        triggers: &["LinearAlgebra.HessenbergQ", "LinearAlgebra.AdjointQ"],
        hooks: &["LinearAlgebra._q_matrix"],
    },
];

/// The name that stands for "the program can make a matrix": a library method whose signature
/// takes a `Matrix` or an `AbstractMatrix` ([`MATRIX_TYPES`]) waits on it as a value
/// (`crate::program`), so that a scalar program naming `exp` does not hold everything that
/// LinearAlgebra's `exp(A::Matrix{Float64})` calls. The user's code, a call string and the
/// argument types of the entry point reach it ([`MATRIX_MAKERS`], [`makes_matrix`]); the
/// library's own bodies do not (they make matrices only when called so).
pub const MATRIX: &str = "Matrix";

/// The type names of a method signature that only a matrix matches (or a row, `x'` or
/// `transpose(x)`, which only code calling a [matrix maker](MATRIX_MAKERS) makes).
pub const MATRIX_TYPES: &[&str] = &["Matrix", "AbstractMatrix", "Adjoint", "Transpose"];

/// The functions and types whose calls can make a matrix out of values that are not matrices
/// (a builtin under its own name, a library function under its qualified name too; the
/// library's wrappers, which inference turns into matrices by itself). Code holding a matrix
/// names one of them or calls one of [`MATRIX_MAKERS_BY_ARITY`] so that it can make one
/// ([`makes_matrix`]); a matrix argument of the entry point is read from the instance's types
/// instead ([`crate::program::ProgramKey::for_instance`]).
pub const MATRIX_MAKERS: &[&str] = &[
    "Matrix",
    "Base.Matrix",
    "Array",
    "Base.Array",
    "hcat",
    "Base.hcat",
    "vcat",
    "Base.vcat",
    "hvcat",
    "Base.hvcat",
    "cat",
    "Base.cat",
    "stack",
    "Base.stack",
    "permutedims",
    "Base.permutedims",
    "adjoint",
    "Base.adjoint",
    "transpose",
    "Base.transpose",
    "product",
    "Base.product",
    "Base.Iterators.product",
    "hessian",
    "Base.hessian",
    "jacobian",
    "Base.jacobian",
    "LinearAlgebra.diagm",
    "LinearAlgebra.kron",
    "Base._undef_matrix",
    "Base._matrix_of",
    "Base._vec_adjoint",
    "Base._vcat_matrix",
    "Base._hcat",
    "LinearAlgebra.I",
    "LinearAlgebra.UniformScaling",
    "LinearAlgebra.Diagonal",
    "LinearAlgebra.Bidiagonal",
    "LinearAlgebra.UpperTriangular",
    "LinearAlgebra.LowerTriangular",
    "LinearAlgebra.UnitUpperTriangular",
    "LinearAlgebra.UnitLowerTriangular",
];

/// Functions that make a matrix only when given enough arguments (`zeros(n)` is a vector,
/// `zeros(m, n)` a matrix), each with the fewest that can, unless one is a tuple of
/// dimensions.
pub const MATRIX_MAKERS_BY_ARITY: &[(&str, usize)] = &[
    ("zeros", 2),
    ("Base.zeros", 2),
    ("ones", 2),
    ("Base.ones", 2),
    ("rand", 2),
    ("Random.rand", 2),
    ("randn", 2),
    ("Random.randn", 2),
    ("fill", 3),
    ("Base.fill", 3),
    ("similar", 3),
    ("Base.similar", 3),
    ("reshape", 3),
    ("Base.reshape", 3),
    // `reshape(x, m, n)` of a variable, as lowering writes it.
    ("Base._reshape_shared", 3),
    ("repeat", 3),
    ("Base.repeat", 3),
    ("Base._undef_array", 3),
    ("Base._undef_array_rank", 4),
];

/// Whether `item`'s code can make a matrix with one of [`MATRIX_MAKERS_BY_ARITY`]: a call
/// with enough arguments or with a tuple (or a `size`) among them, or the function passed as
/// a value (splatted, mapped, called with keywords), which may get any arguments.
pub fn makes_matrix(item: &LoweredItem) -> bool {
    let min_args = |n: &Name| {
        MATRIX_MAKERS_BY_ARITY
            .iter()
            .find(|(m, _)| *m == &**n)
            .map(|&(_, k)| k)
    };
    let bodies = item
        .methods
        .iter()
        .map(|(_, m)| &m.body)
        .chain(item.globals.iter().map(|g| &g.body));
    for body in bodies {
        let is_dims = |a: &Operand| match a {
            Operand::Const(Const::Tuple(_)) => true,
            Operand::Const(_) => false,
            Operand::Value(v) => body.stmt(*v).is_some_and(|s| {
                matches!(&s.op, Op::Call(n)
                    if ["tuple", "size"].contains(&n.strip_prefix("Base.").unwrap_or(n)))
            }),
        };
        for v in &body.values {
            let ValueKind::Stmt(s) = &v.kind else {
                continue;
            };
            if let Op::Call(n) = &s.op {
                if let Some(k) = min_args(n) {
                    if s.args.len() >= k || s.args.iter().any(is_dims) {
                        return true;
                    }
                }
            }
            // A maker mentioned other than as the callee (`Const::Func`, a global).
            let named =
                |a: &Operand| matches!(a, Operand::Const(c) if const_mentions(c, &min_args));
            if s.args.iter().any(named)
                || matches!(&s.op, Op::Global(n) | Op::Closure(n) if min_args(n).is_some())
            {
                return true;
            }
        }
    }
    false
}

/// Whether the constant `c` names a function `is_maker` knows.
fn const_mentions(c: &Const, is_maker: &impl Fn(&Name) -> Option<usize>) -> bool {
    match c {
        Const::Func(n) => is_maker(n).is_some(),
        Const::Tuple(cs) => cs.iter().any(|c| const_mentions(c, is_maker)),
        _ => false,
    }
}

/// What a struct or abstract type of the program declared below Julia's abstract number types
/// (`Number`, `Real`, `AbstractFloat`, `Integer`, `Signed`) mentions (a name no code can write): it brings in Julia's generic methods
/// for Numbers.
pub const NUMBER_TYPE: &str = "#number type";

/// What a struct of the program declared below Julia's `AbstractArray` mentions (a name no
/// code can write): it brings in the library's copy of its elements.
pub const ARRAY_TYPE: &str = "#array type";

/// A group of [`HOOKS`].
pub struct Hooks {
    /// Names whose reaching brings the hooks in (none: always).
    pub triggers: &'static [&'static str],
    pub hooks: &'static [&'static str],
}

/// The hooks that reaching `name` brings in (with `""`: those of every program).
pub fn hooks_of(name: &str) -> impl Iterator<Item = &'static str> + '_ {
    HOOKS
        .iter()
        .filter(move |h| {
            if name.is_empty() {
                h.triggers.is_empty()
            } else {
                h.triggers.contains(&name)
            }
        })
        .flat_map(|h| h.hooks.iter().copied())
}

/// The prelude's functions that a call of an array, tuple, dictionary or set type through an
/// alias calls.
const ALIAS_CONSTRUCTORS: &[&str] = &[
    "Base._undef_vector",
    "Base._undef_matrix",
    "Base._undef_array",
    "Base._undef_array_rank",
    "Base._vector_of",
    "Base._matrix_of",
    "Base._array_of",
    "Base._typed_tuple",
    "Base._typed_dict",
    "Base._typed_set",
];

/// The prelude's functions that a call of a named tuple type through an alias calls.
const NAMED_TUPLE_CONSTRUCTORS: &[&str] = &["Base._named_tuple_of", "Base._typed_named_tuple"];

/// How code mentions a name.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mention {
    /// Defined by the item (a method's function, a struct, a binding).
    Defines,
    /// As a value: called, loaded, constructed, passed as a function.
    Value,
    /// As a type in a signature, a `where` bound or a field: only a value made elsewhere (by
    /// code that mentions the name as a value) can have it.
    Type,
    /// As the declared supertype of a struct in the program: for an abstract library type,
    /// whose values are those of the types below it, a value (the struct's, once it is made:
    /// a library struct is followed whole only then); for any other type, a type.
    Supertype,
}

/// Call `f` on every name `item` defines ([`Mention::Defines`]) or refers to: functions,
/// structs and bindings used as values ([`Mention::Value`]), types in signatures, fields and
/// `where` bounds ([`Mention::Type`]), a struct's declared supertype
/// ([`Mention::Supertype`], its parameters as types).
pub fn item_names(item: &LoweredItem, f: &mut impl FnMut(&Name, Mention)) {
    for (generic, method) in &item.methods {
        f(generic, Mention::Defines);
        for t in method.sig.iter().flatten() {
            type_names(t, f);
        }
        for (_, t) in &method.where_bounds {
            type_names(t, f);
        }
        if let Some(k) = &method.keywords {
            f(&k.body, Mention::Value);
            k.params.iter().for_each(|(_, d)| f(d, Mention::Value));
        }
        body_names(&method.body, &mut |n| f(n, Mention::Value));
    }
    for s in &item.structs {
        f(&s.name, Mention::Defines);
        // A struct's supertype is defined wherever the struct is (Julia's `UndefVarError`
        // otherwise): a library abstract type (`IOBuffer <: IO`, a program's `Sink <: IO`)
        // comes in with every struct below it, whether or not any code names it.
        if let Some(TypeExpr::Named { name, params }) = &s.supertype {
            f(name, Mention::Supertype);
            params.iter().for_each(|p| type_names(p, f));
            if matches!(
                &**name,
                "Number" | "Real" | "AbstractFloat" | "Integer" | "Signed"
            ) {
                f(&NUMBER_TYPE.into(), Mention::Value);
            }
            if matches!(
                &**name,
                "AbstractVector" | "AbstractMatrix" | "AbstractArray"
            ) {
                f(&ARRAY_TYPE.into(), Mention::Value);
            }
        }
        for t in s.fields.iter().filter_map(|(_, t)| t.as_ref()) {
            type_names(t, f);
        }
        // An alias may be called as the type it names (`MinHeap{Int}()`): that type's
        // constructors come with it.
        if let Some(t) = &s.alias {
            type_names(t, &mut |n, _| f(n, Mention::Value));
            if let TypeExpr::Named { name, .. } = t {
                let constructors = match &**name {
                    "Vector" | "Matrix" | "Array" | "Tuple" | "Dict" | "Set" => ALIAS_CONSTRUCTORS,
                    "NamedTuple" => NAMED_TUPLE_CONSTRUCTORS,
                    _ => &[],
                };
                for n in constructors {
                    f(&(*n).into(), Mention::Value);
                }
            }
        }
    }
    for g in &item.globals {
        f(&g.name, Mention::Defines);
        body_names(&g.body, &mut |n| f(n, Mention::Value));
    }
}

fn type_names(t: &TypeExpr, f: &mut impl FnMut(&Name, Mention)) {
    match t {
        TypeExpr::Named { name, params } => {
            f(name, Mention::Type);
            params.iter().for_each(|p| type_names(p, f));
        }
        TypeExpr::Typeof(name) => f(name, Mention::Type),
    }
}

fn body_names(body: &Function, f: &mut dyn FnMut(&Name)) {
    let operand = |a: &Operand, f: &mut dyn FnMut(&Name)| {
        if let Operand::Const(c) = a {
            const_names(c, f);
        }
    };
    for v in &body.values {
        let ValueKind::Stmt(s) = &v.kind else {
            continue;
        };
        match (&s.op, s.args.as_slice()) {
            // `@isdefined(x)` of a global: the answer needs `x`'s definition, if it has one.
            (Op::Call(n), [Operand::Const(Const::Symbol(x))])
                if &**n == zy_ir::ISDEFINED_GLOBAL =>
            {
                f(x)
            }
            (Op::Global(n), _) => applied_type_names(n, f),
            (Op::Call(n) | Op::Closure(n), _) => f(n),
            _ => {}
        }
        s.args.iter().for_each(|a| operand(a, f));
    }
    for b in &body.blocks {
        b.term.operands().into_iter().for_each(|a| operand(a, f));
    }
}

/// A global `n`, and for a type applied to parameters (`Base.Rational{Int}` of
/// `Rational{Int}[0.1, 3]`, `Base.Array{Rational{Int}}`) the types it names, in `n`'s module.
pub(crate) fn applied_type_names(n: &Name, f: &mut dyn FnMut(&Name)) {
    f(n);
    let Some((head, _)) = n.split_once('{') else {
        return;
    };
    let module = head.rsplit_once('.').map_or("", |(m, _)| m);
    for part in n.split(|c: char| matches!(c, '{' | '}' | ',' | ' ')) {
        if part.is_empty() || part.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        match (part.contains('.'), module) {
            (true, _) | (false, "") => f(&part.into()),
            (false, m) => f(&format!("{m}.{part}").as_str().into()),
        }
    }
}

fn const_names(c: &Const, f: &mut dyn FnMut(&Name)) {
    match c {
        Const::Func(n) => f(n),
        Const::Tuple(cs) => cs.iter().for_each(|c| const_names(c, f)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::HOOKS;

    /// The `.rs` files under `dir`, recursively.
    fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|x| x == "rs") {
                out.push(path);
            }
        }
    }

    /// The qualified library names (`"Base.f"`, `"LinearAlgebra.T"`) written as string
    /// literals in `text`.
    fn library_names(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for module in crate::prelude::PRELUDE.iter().map(|p| p.module) {
            let open = format!("\"{module}.");
            let mut rest = text;
            while let Some(at) = rest.find(&open) {
                let tail = &rest[at + 1..];
                let len = tail
                    .char_indices()
                    .skip(module.len() + 1)
                    .find(|(_, c)| !(c.is_alphanumeric() || *c == '_' || *c == '!'))
                    .map_or(tail.len(), |(i, _)| i);
                if len > module.len() + 1 && tail[len..].starts_with('"') {
                    out.push(tail[..len].to_string());
                }
                rest = &tail[len..];
            }
        }
        out
    }

    /// Every library name that the engine's crates (inference, AD, lowering, the database)
    /// write as a string outside their tests is a hook or a trigger of hooks: a program whose
    /// code does not mention it must still have its definition when the engine calls it.
    #[test]
    fn every_named_definition_is_a_hook() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = Vec::new();
        for dir in [
            "ad-engine/infer/src",
            "ad-engine/ad/src",
            "analysis/lower/src",
            "analysis/hir/src",
        ] {
            rust_files(&root.join(dir), &mut files);
        }
        assert!(files.len() > 20, "found only {} source files", files.len());
        let mut missing = Vec::new();
        for file in files.iter().filter(|f| !f.ends_with("tests.rs")) {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            // Only the code before a file's tests.
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for name in library_names(code) {
                // A type the engine recognises by name is a trigger: only code naming it
                // makes its values.
                let hooked = HOOKS.iter().any(|h| {
                    h.hooks.contains(&name.as_str()) || h.triggers.contains(&name.as_str())
                });
                // So is a name that lets a program make a matrix.
                let hooked = hooked
                    || super::MATRIX_MAKERS.contains(&name.as_str())
                    || super::MATRIX_MAKERS_BY_ARITY
                        .iter()
                        .any(|(m, _)| *m == name.as_str());
                if !hooked && !missing.contains(&name) {
                    missing.push(name);
                }
            }
        }
        assert!(missing.is_empty(), "add to reach::HOOKS: {missing:?}");
    }

    #[test]
    fn library_names_finds_qualified_literals() {
        let text =
            r#"let a = "Base._hcat"; let b = "Base.RefValue{"; f("LinearAlgebra.I", "Base.")"#;
        assert_eq!(library_names(text), ["Base._hcat", "LinearAlgebra.I"]);
    }
}
