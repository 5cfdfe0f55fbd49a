//! The abstract syntax of the Julia subset: plain data with byte ranges, converted from the
//! syntax tree ([`crate::tree`]), which has Julia's meaning (`2x^2` is `2*(x^2)`, `a < b < c`
//! is a chained comparison, `[1.0 -0.3]` is a 1×2 matrix, `-2` is a literal). Everything
//! outside the subset becomes [`ExprKind::Error`] plus a [`SyntaxError`] naming the construct.

use std::fmt;

/// A byte range in one source file.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct TextRange {
    pub start: u32,
    pub end: u32,
}

impl TextRange {
    /// The range from `start` to `end` (bytes).
    pub fn new(start: u32, end: u32) -> TextRange {
        TextRange { start, end }
    }

    /// Does the range contain byte `offset` (end inclusive, as a cursor after a word hovers it)?
    pub fn contains(self, offset: u32) -> bool {
        self.start <= offset && offset <= self.end
    }
}

/// A parsed file: its items, every syntax error or unsupported construct found, and notes on
/// what zy reads differently from Julia without changing a value (output it skips).
#[derive(Clone, PartialEq, Debug, Default)]
pub struct SourceFile {
    pub items: Vec<Item>,
    pub errors: Vec<SyntaxError>,
    pub notes: Vec<SyntaxNote>,
}

/// A note on a construct zy accepts with a difference the user should know of: the output
/// of `println` or `@show` inside a function is not shown.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct SyntaxNote {
    pub range: TextRange,
    /// One line.
    pub message: String,
}

/// A problem found while parsing: a syntax error or a construct outside the subset.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct SyntaxError {
    pub range: TextRange,
    /// Stable code: `syntax-error`, `unsupported`.
    pub code: &'static str,
    /// One line, naming the construct: "unsupported: keyword arguments".
    pub message: String,
}

/// A top-level item.
#[derive(Clone, PartialEq, Debug)]
pub enum Item {
    Function(FunctionDef),
    Struct(StructDef),
    /// `const N = 3` or `sq = x -> x^2` at top level.
    Global(GlobalDef),
    /// `include("other.jl")` at top level.
    Include(IncludeDef),
    /// `module M ... end`.
    Module(ModuleDef),
    /// `using ...` or `import ...`.
    Import(ImportDef),
    /// `export f, g`.
    Export(ExportDef),
    /// A top-level statement zy does not run (`println(x)`, a loop, `push!(xs, 1.0)`).
    Script(ScriptDef),
    /// A definition zy refused (the error at it says why): kept by name so that a use of the
    /// name says so, not that it is undefined.
    Refused(RefusedDef),
}

/// A refused definition: the name it would define and the refusal's message.
#[derive(Clone, PartialEq, Debug)]
pub struct RefusedDef {
    pub name: String,
    /// The refusal, as reported at the definition (`unsupported: ...`).
    pub reason: String,
    pub range: TextRange,
}

/// `module M ... end` (or `baremodule`): definitions in a namespace of their own.
#[derive(Clone, PartialEq, Debug)]
pub struct ModuleDef {
    pub name: String,
    pub name_range: TextRange,
    pub items: Vec<Item>,
    /// `baremodule`: Base is not used implicitly.
    pub bare: bool,
    pub range: TextRange,
}

/// A path to a module or to a name in one, as `using` and `import` write it: `LinearAlgebra`,
/// `.M` (a module of the current one), `..N` (of the parent), `Base.sum`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct ImportPath {
    /// Leading dots: 0 for an absolute path, 1 for the current module, 2 for its parent, ...
    pub dots: u32,
    pub names: Vec<String>,
    pub range: TextRange,
}

/// `using A, B`, `using A: f, g as h`, `import A`, `import A.f`, `import A: f`.
#[derive(Clone, PartialEq, Debug)]
pub struct ImportDef {
    /// `using` (the module's exported names become visible) or `import` (only what is named;
    /// a function named so gets the file's methods).
    pub using: bool,
    /// `A` in `using A: f, g`.
    pub from: Option<ImportPath>,
    /// The modules (`using A, B`, `import A`) or, with `from` or a dotted path (`import A.f`),
    /// the names imported, each with its `as` renaming.
    pub paths: Vec<(ImportPath, Option<String>)>,
    pub range: TextRange,
}

/// `export f, g`.
#[derive(Clone, PartialEq, Debug)]
pub struct ExportDef {
    pub names: Vec<String>,
    pub range: TextRange,
}

/// A top-level statement zy does not run: skipped with a note. The names it mentions are the
/// global bindings it may change.
#[derive(Clone, PartialEq, Debug)]
pub struct ScriptDef {
    /// What it is, for the note: "a call of `println`", "a `for` loop".
    pub what: String,
    /// Every identifier in the statement.
    pub names: Vec<String>,
    /// The names it rebinds: assignment targets (`x = ...`, `x += ...`, `(a, b) = ...`) and
    /// loop variables.
    pub assigned: Vec<String>,
    /// The names whose objects it writes into: `x[i] = ...`, `x.a = ...`, `x .= ...`,
    /// `x[i] += ...`. A mutable value it only reads may still be changed by a call it is
    /// passed to (its [`ScriptCall`]s say which).
    pub written: Vec<String>,
    /// The calls it makes, each with the identifiers of its arguments by place.
    pub calls: Vec<ScriptCall>,
    pub range: TextRange,
}

/// A call in a [`ScriptDef`].
#[derive(Clone, PartialEq, Debug)]
pub struct ScriptCall {
    /// The callee's name as written (`plot`, `M.f`), or empty when it is no name.
    pub callee: String,
    /// Its arguments (a `do` block's function first, as Julia passes it), keywords included.
    pub args: Vec<ScriptArg>,
}

/// An argument of a [`ScriptCall`]: where it is passed and the identifiers whose objects it
/// may share (every identifier in it but those inside a call making a new object, `copy(A)`).
#[derive(Clone, PartialEq, Debug)]
pub struct ScriptArg {
    pub place: ArgPlace,
    pub names: Vec<String>,
}

/// Where a call passes an argument, as a method's parameters receive it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ArgPlace {
    /// The positional argument with this index (from 0).
    Positional(usize),
    /// Any positional argument from this index on (`xs...`, or an argument after one).
    From(usize),
    /// The keyword argument of this name.
    Keyword(String),
    /// Any keyword argument (`kw...`).
    AnyKeyword,
}

/// `include("other.jl")`: the other file's definitions are loaded here, as in Julia. The path
/// is relative to the including file's directory.
#[derive(Clone, PartialEq, Debug)]
pub struct IncludeDef {
    /// The path as written.
    pub path: String,
    /// Range of the string literal.
    pub path_range: TextRange,
    /// Range of the whole call.
    pub range: TextRange,
}

/// A `# zy: ...` comment line immediately above a definition.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Annotation {
    pub kind: AnnotationKind,
    /// The text after the keyword (`f(2.0, 3)` for `at`/`gradcheck`, the code for `allow`).
    pub text: String,
    /// Range of `text` in the file.
    pub range: TextRange,
}

/// Which annotation.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum AnnotationKind {
    /// `# zy: at f(2.0, 3)`.
    At,
    /// `# zy: gradcheck f(2.0, 3)`.
    Gradcheck,
    /// `# zy: allow(CODE)`.
    Allow,
}

/// What a method definition defines.
#[derive(Clone, PartialEq, Debug)]
pub enum FunctionName {
    /// `function f(...)` / `f(x) = ...`.
    Named(String),
    /// `(d::Dense)(x) = ...`: a call method of a struct type; `self_name` is `d`.
    Callable {
        self_name: Option<String>,
        ty: TypeExpr,
    },
    /// An anonymous function (`x -> ...`, `function (x) ... end`, a `do` block).
    Anonymous,
}

/// A function parameter.
#[derive(Clone, PartialEq, Debug)]
pub struct Param {
    /// `None` for `::typeof(f)`.
    pub name: Option<String>,
    pub ty: Option<TypeExpr>,
    /// `y = 2.0`: an optional positional parameter (Julia defines a method without it that
    /// passes the default).
    pub default: Option<Expr>,
    /// `xs...` (last): the remaining arguments, as a tuple.
    pub varargs: bool,
    pub range: TextRange,
}

/// A keyword parameter, after the `;` of a signature: `a = 2.0`, `a::Float64 = 2.0`, or a
/// required `b` (no default: a call without it is an `UndefKeywordError`).
#[derive(Clone, PartialEq, Debug)]
pub struct KeywordParam {
    pub name: String,
    pub ty: Option<TypeExpr>,
    /// Evaluated when the call does not pass the keyword; it sees the positional parameters
    /// and the keywords before it.
    pub default: Option<Expr>,
    pub range: TextRange,
}

/// A keyword argument of a call: `a = v` (or the shorthand `a` for `a = a`), or `kw...`
/// splatting a named tuple.
#[derive(Clone, PartialEq, Debug)]
pub enum KeywordArg {
    Named {
        name: String,
        value: Expr,
        range: TextRange,
    },
    Splat(Expr),
}

/// A method definition (top level, nested in a body, or anonymous).
#[derive(Clone, PartialEq, Debug)]
pub struct FunctionDef {
    pub name: FunctionName,
    /// Range of the name (the whole signature for anonymous functions).
    pub name_range: TextRange,
    pub params: Vec<Param>,
    /// Keyword parameters (after `;`), in order.
    pub keywords: Vec<KeywordParam>,
    /// `kw...` after the keywords: the other keywords passed, as a named tuple.
    pub keyword_rest: Option<String>,
    /// `where` type variables with their upper bounds: `T` and `S<:Real` in
    /// `where {T, S<:Real}`, and those that `Vector{<:Real}` stands for (`#T1<:Real`, ...).
    pub where_params: Vec<(String, Option<TypeExpr>)>,
    /// `f(x)::Float64 = ...`: the return values are converted to it.
    pub return_type: Option<TypeExpr>,
    /// The body; its value is the value of the last expression (or of a `return`).
    pub body: Vec<Expr>,
    /// Range of the whole definition.
    pub range: TextRange,
    /// `# zy:` comments directly above the definition.
    pub annotations: Vec<Annotation>,
}

/// `struct Bar{T} a::T end` or `mutable struct ...`.
#[derive(Clone, PartialEq, Debug)]
pub struct StructDef {
    pub name: String,
    pub name_range: TextRange,
    pub params: Vec<String>,
    /// Upper bounds of parameters: `T<:Real` in `struct S{T<:Real}`.
    pub param_bounds: Vec<(String, TypeExpr)>,
    /// `S` in `struct A <: S` or `abstract type A <: S end`.
    pub supertype: Option<TypeExpr>,
    pub fields: Vec<FieldDef>,
    /// The fields declared `const` in a mutable struct (Julia 1.8): `s.a = v` may not assign them.
    pub const_fields: Vec<String>,
    pub mutable: bool,
    /// `abstract type A end`: a type with no fields and no values, for dispatch.
    pub is_abstract: bool,
    /// The body defines inner constructors, which replace the default ones (Julia's rule);
    /// they follow the struct as methods of its name, `new(...)` in them a call of [`NEW`].
    pub inner_constructors: bool,
    /// `const Name{T} = Target` (or `Name = Target{P}` at top level): a type alias, the name of
    /// the type `Target` with `params` its free parameters; no struct of its own (no fields).
    pub alias: Option<TypeExpr>,
    pub range: TextRange,
}

/// A struct field.
#[derive(Clone, PartialEq, Debug)]
pub struct FieldDef {
    pub name: String,
    pub ty: Option<TypeExpr>,
    pub range: TextRange,
}

/// A top-level binding.
#[derive(Clone, PartialEq, Debug)]
pub struct GlobalDef {
    pub name: String,
    pub name_range: TextRange,
    pub value: Expr,
    pub is_const: bool,
    pub range: TextRange,
}

/// A type as written: `Float64`, `Vector{Float64}`, `Bar{T}`, `typeof(f)`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum TypeExpr {
    Named {
        name: String,
        params: Vec<TypeExpr>,
        range: TextRange,
    },
    Typeof {
        name: String,
        range: TextRange,
    },
}

impl TypeExpr {
    /// The type's text as a value (`Vector{Float64}`, `AbstractVector{<:Real}`), as
    /// inference parses it back (`zy_infer`'s `type_text`).
    pub fn value_text(&self) -> String {
        let list = |params: &[TypeExpr]| {
            params
                .iter()
                .map(TypeExpr::value_text)
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            TypeExpr::Named { name, params, .. } if name == SUBTYPE_PARAM => {
                format!("<:{}", list(params))
            }
            TypeExpr::Named { name, params, .. } if params.is_empty() => name.clone(),
            TypeExpr::Named { name, params, .. } => format!("{name}{{{}}}", list(params)),
            TypeExpr::Typeof { name, .. } => format!("typeof({name})"),
        }
    }
}

/// The name of `Tuple{}`, the type of the empty tuple, as [`TypeExpr::Named`] without
/// parameters (a plain `Tuple` is every tuple type).
pub const EMPTY_TUPLE: &str = "Tuple{}";
/// The name of `Union{}`, the type no value has (`Type::Bottom`), as a type's text.
pub const EMPTY_UNION: &str = "Union{}";

/// The name of a `<:B` type parameter (`Vector{<:Real}`) as [`TypeExpr::Named`] with `B` as
/// its one parameter; a method's signature turns it into a bounded `where` variable.
pub const SUBTYPE_PARAM: &str = "<:";

/// The callee that `new(args...)` in an inner constructor of `S` becomes, as `#new(S, args...)`:
/// the value of `S` built from its fields, without any constructor.
pub const NEW: &str = "#new";

/// The callee that a call of a struct type with its parameters given, `S{P, Q}(args...)`,
/// becomes, as `#typed(S, (P, Q), args...)`: the struct's constructor with those parameters.
pub const TYPED: &str = "#typed";

/// The callee of an interpolated string literal, `"bad $x"`: Julia's `string("bad ", x)`,
/// which zy takes only as an exception's message.
pub const INTERPOLATION: &str = "#string";

/// An expression with its range.
#[derive(Clone, PartialEq, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub range: TextRange,
}

/// Binary operators, including dotted (broadcast) forms via [`ExprKind::Binary::dotted`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    /// `÷`.
    IntDiv,
    /// `%`.
    Rem,
    Pow,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl BinOp {
    /// The Julia function name (`+`, `÷`, `<=`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::IntDiv => "÷",
            BinOp::Rem => "%",
            BinOp::Pow => "^",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
        }
    }

    /// Is this a comparison (part of a chain `a < b <= c`)?
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        )
    }
}

impl fmt::Display for BinOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Unary operators.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum UnOp {
    /// `-x`.
    Neg,
    /// `+x`.
    Plus,
    /// `!x`.
    Not,
    /// Postfix `x'`.
    Adjoint,
}

/// Expression forms.
#[derive(Clone, PartialEq, Debug)]
pub enum ExprKind {
    Float(f64),
    Int(i64),
    Bool(bool),
    Nothing,
    /// A string literal: only meaningful as the message of `error("...")`.
    Str(String),
    /// A quoted symbol `:a`: a value (a field name or key to `nt[:a]`, `getproperty(s, :a)`,
    /// `haskey(nt, :a)`; a mode to compare with `==`), whose type names it.
    Symbol(String),
    Ident(String),
    /// `(a, b)`, `(a,)`.
    Tuple(Vec<Expr>),
    /// `(a = x, b = y)`.
    NamedTuple(Vec<(String, Expr)>),
    /// `[a, b, c]`.
    Vect(Vec<Expr>),
    /// `[a b; c d]`: rows of equal length (`[a b]` is one row).
    Matrix(Vec<Vec<Expr>>),
    /// `f(args...)`; `callee` is any expression (an identifier, a field, a call result).
    Call {
        callee: Box<Expr>,
        args: Vec<Expr>,
    },
    /// `f(args...; keywords...)` or `f(args..., a = v)`: a call with keyword arguments.
    KwCall {
        callee: Box<Expr>,
        args: Vec<Expr>,
        keywords: Vec<KeywordArg>,
    },
    /// `f.(args...)`: broadcast call.
    DotCall {
        callee: Box<Expr>,
        args: Vec<Expr>,
    },
    /// `a op b`; `dotted` for `.+`, `.*`, `.^`, ... Implicit multiplication `2x` is `Mul`.
    Binary {
        op: BinOp,
        dotted: bool,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// A left-associative chain of one precedence level's operators, `a - b + c - d` (`+`
    /// and `-`) or `a / b * c` (`*` and `/`), all dotted or all undotted, held flat: Julia's
    /// left-nested `((a - b) + c) - d`, evaluated in that order. Generated code holds chains of
    /// thousands of sign changes, which nested would be too deep for the passes that recurse
    /// over the AST. `first` is the innermost operand (itself a [`ExprKind::Binary`] or an
    /// n-ary `+`/`*` call when the chain starts so); `rest` holds at least one step.
    Fold {
        first: Box<Expr>,
        rest: Vec<(BinOp, Expr)>,
        dotted: bool,
    },
    /// A comparison chain `a < b <= c` with at least two comparisons (a single comparison is a
    /// [`ExprKind::Binary`]). Julia: `a < b && b <= c` with `b` evaluated once.
    Chain {
        first: Box<Expr>,
        rest: Vec<(BinOp, Expr)>,
    },
    Unary {
        op: UnOp,
        arg: Box<Expr>,
    },
    /// `a && b` (short-circuit).
    And(Box<Expr>, Box<Expr>),
    /// `a || b` (short-circuit).
    Or(Box<Expr>, Box<Expr>),
    /// `c ? a : b`.
    Ternary {
        cond: Box<Expr>,
        then: Box<Expr>,
        els: Box<Expr>,
    },
    /// `x[i]`, `A[i, j]`, `r[]`.
    Index {
        base: Box<Expr>,
        indices: Vec<Expr>,
    },
    /// `s.f`.
    Field {
        base: Box<Expr>,
        name: String,
    },
    /// `a:b` or `a:s:b`.
    Range {
        start: Box<Expr>,
        step: Option<Box<Expr>>,
        stop: Box<Expr>,
    },
    /// `lhs = rhs` where `lhs` is an identifier, index, field, or tuple of identifiers
    /// (destructuring).
    Assign {
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `x::T` as an assignment target (`s::Float64 = 0`): declares the local `x` of type `T`
    /// in its scope, so that every assignment to it converts the value to `T` (Julia's typed
    /// local). `var` is an identifier, `ty` a type written as a value.
    Declared {
        var: Box<Expr>,
        ty: Box<Expr>,
    },
    /// `lhs op= rhs` (`+=`, `-=`, `*=`, `/=`; `dotted` for `.+=`).
    CompoundAssign {
        op: BinOp,
        dotted: bool,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `lhs .= rhs`: `rhs` broadcast into the array `lhs` (an identifier, a field or an
    /// indexing, which then means a view of the indexed elements).
    DotAssign {
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `@views e`: in `e`, a slice `x[I]` that is read is a view of `x` (`maybeview`).
    Views(Box<Expr>),
    /// `begin ... end` or a parenthesised sequence: value of the last expression.
    Block(Vec<Expr>),
    /// `if c1 ... elseif c2 ... else ... end`: `branches` are (condition, body) pairs.
    If {
        branches: Vec<(Expr, Vec<Expr>)>,
        els: Option<Vec<Expr>>,
    },
    While {
        cond: Box<Expr>,
        body: Vec<Expr>,
    },
    /// `for var in iter ... end`; `var` is an identifier or a tuple of identifiers.
    /// `for i in a, j in b ... end` is an outer loop over `i` whose body is an `inner` loop
    /// over `j`: a `break` there leaves both, as in Julia. `for outer i in ...` (`outer`)
    /// assigns the enclosing scope's local `i` instead of a fresh one.
    For {
        var: Box<Expr>,
        iter: Box<Expr>,
        body: Vec<Expr>,
        inner: bool,
        outer: bool,
    },
    /// `let var = value; body end` with one binding (several nest): `value` is evaluated
    /// outside, `var` and the names assigned in `body` are new locals. `let x` declares `x`
    /// without a value; `let` alone only opens the scope.
    Let {
        var: Option<Box<Expr>>,
        value: Option<Box<Expr>>,
        body: Vec<Expr>,
    },
    /// `try body catch var; catch_body else els finally finally end`: `catch` is present when
    /// written (with the caught exception bound to `var`, an identifier, if one is named); the
    /// value is the try body's or the catch body's last value (the `else` body's when it runs).
    Try {
        body: Vec<Expr>,
        var: Option<Box<Expr>>,
        catch: Option<Vec<Expr>>,
        els: Option<Vec<Expr>>,
        finally: Option<Vec<Expr>>,
    },
    /// Where `var` (an identifier) is known by a test just before (not `nothing`, a `T` or not
    /// a `T`): inside `body` it is `value` (`Base._notnothing(var)`, `#narrow_isa(var,
    /// T)`), after it what it was (Julia's inference narrows a union so). No scope of its own
    /// (`narrow.rs`).
    Narrow {
        var: Box<Expr>,
        value: Box<Expr>,
        body: Vec<Expr>,
    },
    /// A `for` or `while` loop under a `# zy: checkpoint [snapshots=K]` line: its gradient
    /// keeps the loop-carried state every chunk of iterations instead of every iteration's
    /// tape (`docs/checkpointing.md`). `snapshots`: the `K` written, if any.
    Checkpoint {
        snapshots: Option<u32>,
        looped: Box<Expr>,
    },
    Break,
    Continue,
    Return(Option<Box<Expr>>),
    /// An anonymous function, an inner named function, or a `do` block (already moved into the
    /// call's first argument).
    Function(Box<FunctionDef>),
    /// `t...` as a call argument: the elements of the tuple `t` as arguments.
    Splat(Box<Expr>),
    /// `local x` declarations are accepted and ignored apart from scoping.
    Local(Vec<String>),
    /// `global x` in a function: assigning `x` there rebinds the top-level binding.
    Global(Vec<String>),
    /// `end` inside indexing brackets: the last index of the innermost indexed value's
    /// dimension (Julia's `lastindex(x)` or `lastindex(x, d)`).
    IndexEnd,
    /// `begin` inside indexing brackets: the first index (`firstindex`).
    IndexBegin,
    /// `:` as a value (`A[:, j]`, `view(A, 1, :)`): Julia's `Colon()`, every index of a
    /// dimension.
    Colon,
    /// A construct outside the subset or a syntax error; a [`SyntaxError`] describes it.
    Error,
}

impl KeywordArg {
    /// The value passed (the named tuple, for `kw...`).
    pub fn value(&self) -> &Expr {
        match self {
            KeywordArg::Named { value, .. } | KeywordArg::Splat(value) => value,
        }
    }
}

impl Expr {
    /// An expression of `kind` over `range`.
    pub fn new(kind: ExprKind, range: TextRange) -> Expr {
        Expr { kind, range }
    }

    /// The call `name(args...)` over `range` (the callee's range too).
    pub fn call(name: &str, args: Vec<Expr>, range: TextRange) -> Expr {
        let callee = Box::new(Expr::new(ExprKind::Ident(name.into()), range));
        Expr::new(ExprKind::Call { callee, args }, range)
    }
}
