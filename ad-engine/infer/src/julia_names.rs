//! The names Julia's `Core` and `Base` export or declare public (Julia 1.11), so that a use of
//! one that zy's library leaves out is refused by name ("not in zy's library") instead of
//! reading as the program's own `UndefVarError`: a test that reaches it is then not run, not
//! counted as an error Julia would not give.

/// The module path where Julia defines `name` (`["Base"]`, `["Core"]`, `["Base", "Checked"]`),
/// if it is one of the names those modules export or make public; a `Base.`-qualified name is
/// looked up without it.
pub(crate) fn julia_home(name: &str) -> Option<&'static [&'static str]> {
    const CHECKED_HOME: &[&str] = &["Base", "Checked"];
    let bare = name.strip_prefix("Base.").unwrap_or(name);
    if let Some(checked) = bare.strip_prefix("Checked.") {
        return listed(CHECKED, checked).then_some(CHECKED_HOME);
    }
    [
        (&["Core"][..], CORE),
        (&["Base"][..], BASE),
        (CHECKED_HOME, CHECKED),
    ]
    .into_iter()
    .find(|(_, names)| listed(names, bare))
    .map(|(home, _)| home)
}

fn listed(names: &str, name: &str) -> bool {
    names.split_ascii_whitespace().any(|n| n == name)
}

/// `Core`'s exports that a program names.
const CORE: &str = "
    Any DataType Vararg NTuple Tuple Type UnionAll TypeVar Union Nothing Cvoid AbstractArray
    DenseArray NamedTuple Function Method Module Symbol Task Array UndefInitializer undef WeakRef
    VecElement Number Real Integer Bool Ref Ptr AbstractFloat Float16 Float32 Float64 Signed Int
    Int8 Int16 Int32 Int64 Int128 Unsigned UInt UInt8 UInt16 UInt32 UInt64 UInt128 AbstractChar
    Char AbstractString String IO ErrorException BoundsError DivideError DomainError Exception
    InterruptException InexactError OutOfMemoryError ReadOnlyMemoryError OverflowError
    StackOverflowError SegmentationFault UndefRefError UndefVarError TypeError ArgumentError
    MethodError AssertionError LoadError InitError UndefKeywordError ConcurrencyViolationError
    Expr QuoteNode LineNumberNode GlobalRef fieldtype getfield setfield! swapfield! modifyfield!
    replacefield! setfieldonce! nfields throw tuple isa typeof typeassert isdefined nothing
    invoke applicable sizeof ifelse Memory MemoryRef GenericMemory AtomicMemory Core
";

/// `Base`'s exports and public names, operators and macros left out.
const BASE: &str = "
    Meta StackTraces Sys Libc Docs Threads Iterators Broadcast MathConstants Checked Filesystem
    Order Sort
    AbstractChannel AbstractIrrational AbstractMatrix AbstractRange AbstractSet AbstractSlices
    AbstractUnitRange AbstractVector AbstractVecOrMat AbstractMatch AbstractPattern AbstractDict
    BigFloat BigInt BitArray BitMatrix BitVector CartesianIndex CartesianIndices LinearIndices
    Channel Cmd Colon Complex ComplexF64 ComplexF32 ComplexF16 ComposedFunction ColumnSlices
    DenseMatrix DenseVecOrMat DenseVector Dict Dims Enum ExponentialBackOff IndexCartesian
    IndexLinear IndexStyle InsertionSort BitSet IOBuffer IOStream LinRange Irrational LazyString
    Matrix MergeSort Missing IdDict OrdinalRange Pair PartialQuickSort PermutedDimsArray
    QuickSort Rational Regex RegexMatch Returns RoundFromZero RoundDown RoundingMode RoundNearest
    RoundNearestTiesAway RoundNearestTiesUp RoundToZero RoundUp RowSlices Set Some Slices
    StepRange StepRangeLen StridedArray StridedMatrix StridedVecOrMat StridedVector SubArray
    SubString SubstitutionString Timer UnitRange Val VecOrMat Vector VersionNumber WeakKeyDict
    CanonicalIndexError CapturedException CompositeException DimensionMismatch EOFError
    InvalidStateException KeyError MissingException ProcessFailedException TaskFailedException
    SystemError StringIndexError
    ARGS C_NULL DEPOT_PATH ENDIAN_BOM ENV LOAD_PATH PROGRAM_FILE stderr stdin stdout VERSION
    devnull Inf Inf16 Inf32 Inf64 NaN NaN16 NaN32 NaN64 im pi
    xor nand nor evalpoly abs abs2 acos acosd acosh acot acotd acoth acsc acscd acsch angle asec
    asecd asech asin asind asinh atan atand atanh big binomial bitreverse bitrotate bswap cbrt
    fourthroot ceil cis cispi clamp cld cmp complex conj copysign cos cosc cosd cosh cospi cot
    cotd coth count_ones count_zeros csc cscd csch deg2rad denominator div divrem eps exp exp10
    exp2 expm1 exponent factorial fld fld1 fldmod fldmod1 flipsign float tryparse floor fma
    frexp gcd gcdx hypot imag inv invmod isapprox iseven isfinite isinf isinteger isnan isodd
    ispow2 isqrt isreal issubnormal iszero isone lcm ldexp leading_ones leading_zeros log log10
    log1p log2 maxintfloat mod mod1 modf mod2pi muladd nextfloat nextpow nextprod numerator one
    oneunit powermod prevfloat prevpow rad2deg rationalize real floatmax floatmin reim
    reinterpret rem rem2pi round sec secd sech sign signbit signed significand sin sinc sincos
    sincosd sincospi sind sinh sinpi sqrt tan tand tanh tanpi trailing_ones trailing_zeros trunc
    unsafe_trunc typemax typemin unsigned widemul zero
    axes broadcast! broadcast cat checkbounds checkindex circcopy! circshift circshift! clamp!
    conj! copy! copyto! diff cumprod cumprod! cumsum cumsum! accumulate accumulate! eachcol
    eachindex eachrow eachslice extrema! extrema fill! fill first hcat hvcat hvncat indexin
    argmax argmin invperm invpermute! isassigned isperm issorted last mapslices max maximum!
    maximum min minimum! minimum minmax ndims ones parent parentindices partialsort
    partialsort! partialsortperm partialsortperm! permute! permutedims permutedims! prod! prod
    promote_shape range reshape reverse! reverse rot180 rotl90 rotr90 size selectdim sort! sort
    sortperm sortperm! sortslices dropdims stack step stride strides sum! sum to_indices vcat
    vec view zeros
    contains eachmatch endswith findall findfirst findlast findmax findmin findmin! findmax!
    findnext findprev match occursin searchsorted searchsortedfirst searchsortedlast insorted
    startswith adjoint transpose kron kron! falses trues
    append! insert! pop! popat! prepend! push! resize! popfirst! pushfirst!
    all! all allequal allunique any! any firstindex collect count! count delete! deleteat!
    keepat! eltype empty! empty lastindex filter! filter foldl foldr foreach get get! getindex
    getkey haskey in intersect! intersect isdisjoint isempty issubset issetequal keys keytype
    length map! map mapfoldl mapfoldr mapreduce merge! mergewith! merge mergewith pairs reduce
    setdiff! setdiff setindex! similar sizehint! splice! symdiff! symdiff union! union unique!
    unique values valtype
    ascii bitstring bytes2hex chomp chop chopprefix chopsuffix codepoint codeunit codeunits
    digits digits! eachsplit eachrsplit escape_string hex2bytes hex2bytes! isascii iscntrl
    isdigit isletter islowercase isnumeric isprint ispunct isspace isuppercase isxdigit
    lowercase lowercasefirst isvalid join lpad lstrip ncodeunits ndigits nextind prevind repeat
    replace replace! repr reverseind rpad rsplit rstrip split string strip textwidth thisind
    titlecase transcode unescape_string uppercase uppercasefirst
    IOContext displaysize dump print println printstyled show showerror sprint summary with
    ScopedValue precision rounding setprecision setrounding get_zero_subnormals
    set_zero_subnormals iterate enumerate zip only copy deepcopy hash identity isbits isequal
    ismutable ismutabletype isless isunordered objectid
    Condition current_task islocked istaskdone istaskstarted istaskfailed lock notify
    ReentrantLock schedule task_local_storage trylock unlock yield yieldto wait timedwait
    asyncmap asyncmap! errormonitor take! put! isready fetch bind
    coalesce ismissing missing skipmissing something isnothing nonmissingtype sleep time time_ns
    backtrace catch_backtrace current_exceptions error rethrow retry systemerror stacktrace
    convert getproperty setproperty! swapproperty! modifyproperty! replaceproperty! fieldoffset
    fieldname fieldnames fieldcount fieldtypes hasfield propertynames hasproperty
    isabstracttype isbitstype isprimitivetype isstructtype isconcretetype isdispatchtuple oftype
    promote promote_rule promote_type instances supertype typeintersect typejoin widen
    esc gensym macroexpand parse code_typed code_lowered fullname functionloc isconst
    isinteractive hasmethod methods nameof parentmodule pathof pkgdir pkgversion names which
    invokelatest evalfile include_string include_dependency GC finalizer finalize precompile
    atexit exit ntuple splat
    close closewrite countlines eachline readeach eof fd flush gethostname htol hton ismarked
    isopen isreadonly ltoh mark bytesavailable ntoh open peek pipeline Pipe PipeBuffer position
    RawFD read read! readavailable readbytes! readchomp readdir readline readlines readuntil
    copyuntil copyline redirect_stdio redirect_stderr redirect_stdin redirect_stdout reset seek
    seekend seekstart skip skipchars truncate unmark unsafe_read unsafe_write write
    AbstractDisplay display displayable TextDisplay istextmime MIME popdisplay pushdisplay
    redisplay showable HTML Text
    abspath basename dirname expanduser contractuser homedir isabspath isdirpath joinpath
    normpath realpath relpath splitdir splitdrive splitext splitpath
    cd chmod chown cp ctime diskstat download filemode filesize gperm hardlink isblockdev
    ischardev isdir isfifo isfile islink ismount ispath isreadable issetgid issetuid issocket
    issticky iswritable lstat mkdir mkpath mktemp mktempdir mtime mv operm pwd readlink rm
    samefile stat symlink tempdir tempname touch uperm walkdir
    detach getpid ignorestatus kill process_exited process_running run setenv addenv
    setcpuaffinity success withenv
    rand randn
    AbstractLock AsyncCondition CodeUnits Event Fix1 Fix2 Generator ImmutableDict OneTo UUID
    Semaphore acquire release IteratorEltype IteratorSize to_index vect isdone front rest
    split_rest tail checked_length load_path active_project isambiguous isexpr isidentifier
    issingletontype summarysize isexported ispublic operator_associativity operator_precedence
    isbinaryoperator isoperator isunaryoperator cconvert unsafe_convert notnothing
";

/// `Base.Checked`'s functions (`Base.checked_mul`, `using Base.Checked: checked_neg`).
const CHECKED: &str = "
    checked_neg checked_abs checked_add checked_sub checked_mul checked_div checked_rem
    checked_fld checked_mod checked_cld checked_pow checked_length add_with_overflow
    sub_with_overflow mul_with_overflow
";

#[cfg(test)]
mod tests {
    use super::julia_home;

    #[test]
    fn names_of_julias_library_are_found_where_julia_defines_them() {
        let base: &[&str] = &["Base"];
        let checked: &[&str] = &["Base", "Checked"];
        assert_eq!(julia_home("isperm"), Some(base));
        assert_eq!(julia_home("Base.isperm"), Some(base));
        assert_eq!(julia_home("AbstractDict"), Some(base));
        assert_eq!(julia_home("Int128"), Some(&["Core"][..]));
        assert_eq!(julia_home("checked_mul"), Some(checked));
        assert_eq!(julia_home("Base.Checked.checked_mul"), Some(checked));
        assert_eq!(julia_home("isperms"), None);
        assert_eq!(julia_home("my_helper"), None);
        assert_eq!(julia_home("Base.Checked.isperm"), None);
    }
}
