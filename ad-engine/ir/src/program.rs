//! An untyped program: what lowering produces from source files and inference consumes.
//! Generic functions with their methods, struct definitions, and top-level bindings.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::func::{Function, Span};
use crate::types::Name;

/// A type annotation as written (`Float64`, `Vector{Float64}`, `Bar{T}`, `::typeof(f)`),
/// resolved against concrete types by inference.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum TypeExpr {
    /// A named type, possibly applied to parameters: `Float64`, `Real`, `Vector{Float64}`,
    /// `Dense`, `Bar{T}`, `Tuple{Float64, Int}`. A name in the enclosing `where` list or struct
    /// parameter list is a type variable.
    Named { name: Name, params: Vec<TypeExpr> },
    /// `typeof(f)`: the singleton type of a generic function (as in `rrule(::typeof(f), x)`).
    Typeof(Name),
}

impl TypeExpr {
    /// A plain named type without parameters.
    pub fn named(name: &str) -> TypeExpr {
        TypeExpr::Named {
            name: name.into(),
            params: Vec::new(),
        }
    }
}

impl fmt::Display for TypeExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TypeExpr::Named { name, params } => {
                write!(f, "{name}")?;
                if !params.is_empty() {
                    write!(f, "{{")?;
                    for (i, p) in params.iter().enumerate() {
                        if i > 0 {
                            write!(f, ", ")?;
                        }
                        write!(f, "{p}")?;
                    }
                    write!(f, "}}")?;
                }
                Ok(())
            }
            TypeExpr::Typeof(n) => write!(f, "typeof({n})"),
        }
    }
}

/// The annotation of a varargs method's last parameter: `xs::T...` is `Vararg{T}`, `xs...`
/// is `Vararg`; the parameter holds the remaining arguments as a tuple.
pub const VARARG: &str = "Vararg";

/// One method of a generic function: a signature and an untyped body.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Method {
    /// One annotation per argument of `body` (`None`: unannotated, matches anything). For a
    /// callable struct or closure the first argument is the callee.
    pub sig: Vec<Option<TypeExpr>>,
    /// Type variables of a `where` clause.
    pub where_params: Vec<Name>,
    /// Upper bounds of some of them (`where {T<:Real}`): a call binding `T` to a type outside
    /// its bound does not match the method.
    pub where_bounds: Vec<(Name, TypeExpr)>,
    /// The untyped body; its entry block's parameters are the arguments.
    pub body: Arc<Function>,
    /// Span of the signature (for diagnostics about the method).
    pub span: Span,
    /// The keyword parameters, for a method written with `;` in its signature.
    pub keywords: Option<Arc<Keywords>>,
}

impl Method {
    /// The element annotation of a varargs method's last parameter (`Some(None)` for `xs...`);
    /// `None` if the method is not varargs.
    pub fn vararg(&self) -> Option<Option<&TypeExpr>> {
        match self.sig.last() {
            Some(Some(TypeExpr::Named { name, params })) if &**name == VARARG => {
                Some(params.first())
            }
            _ => None,
        }
    }

    /// The count of a varargs annotation `Vararg{T, N}`: a literal number of trailing
    /// arguments or a `where` variable bound to it; `None` for any number.
    pub fn vararg_count(&self) -> Option<&Name> {
        match self.sig.last() {
            Some(Some(TypeExpr::Named { name, params })) if &**name == VARARG => {
                match params.get(1) {
                    Some(TypeExpr::Named { name, params }) if params.is_empty() => Some(name),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Can the method take `n` positional arguments (its fixed parameters, and as many more as
    /// its varargs parameter stands for)?
    pub fn takes_count(&self, n: usize) -> bool {
        let vararg = self.vararg();
        let fixed = self.sig.len() - usize::from(vararg.is_some());
        match (
            vararg,
            self.vararg_count().and_then(|c| c.parse::<usize>().ok()),
        ) {
            (Some(_), Some(count)) => n == fixed + count,
            (Some(_), None) => n >= fixed,
            (None, _) => n == fixed,
        }
    }
}

/// How a method that takes keywords is called with them (Julia's keyword sorter): the call
/// selects the method on its positional arguments, then calls `body` with each keyword's value
/// (passed, or computed by its default function), the rest, and the positional arguments.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Keywords {
    /// The generic function of the body: `body(keywords..., [rest,] positional...)`.
    pub body: Name,
    /// Each keyword with the generic function computing its value when the call does not pass
    /// it: `default(positional..., earlier keywords...)` (it throws `UndefKeywordError` for a
    /// keyword without a default).
    pub params: Vec<(Name, Name)>,
    /// `kw...`: the keywords not named in `params` go to the body as Julia's `pairs` of a named
    /// tuple of them (a `Base.Pairs`); without it they are a `MethodError`.
    pub rest: bool,
}

/// A generic function: a name and its methods, in definition order.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct GenericFunction {
    pub name: Name,
    pub methods: Vec<Method>,
}

/// What a struct definition stands for.
pub use crate::types::StructKind;

/// A struct definition: `struct Bar{T} a::T end`, or a closure environment made by lowering.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct StructDef {
    pub name: Name,
    /// Type parameters (`T` in `Bar{T}`).
    pub params: Vec<Name>,
    /// Upper bounds of parameters (`T<:Real` in `Bar{T<:Real}`).
    pub param_bounds: Vec<(Name, TypeExpr)>,
    /// The declared supertype (`S` in `struct Bar <: S`): one of the program's abstract types.
    pub supertype: Option<TypeExpr>,
    /// An `abstract type`: no fields, no values, a name for dispatch.
    pub is_abstract: bool,
    /// Written inner constructors replace the default ones (Julia's rule); `#new(S, ...)`
    /// in them builds the value.
    pub inner_constructors: bool,
    /// Fields with optional annotations (closure captures have none).
    pub fields: Vec<(Name, Option<TypeExpr>)>,
    /// The fields declared `const` in a mutable struct (Julia 1.8): `s.a = v` may not assign them.
    pub const_fields: Vec<Name>,
    pub mutable: bool,
    pub kind: StructKind,
    /// A struct of the library (the prelude's modules), set where its names are qualified:
    /// Julia's default `show` writes the program's structs as their type and fields, and the
    /// library's its own way.
    pub library: bool,
    /// `const Name{T} = Target`: a type alias naming `Target` (its free parameters are
    /// `params`), kept in [`Program::aliases`], never a struct of its own.
    pub alias: Option<TypeExpr>,
    pub span: Span,
}

/// The function `new(args...)` of an inner constructor of `S` calls, as `#new(S, args...)`
/// (the syntax's `ast::NEW`): the value of `S` from its fields.
pub const NEW: &str = "#new";

/// A call of a struct type with its parameters given, `S{P}(args...)`, as
/// `#typed(S, (P,), args...)` (the syntax's `ast::TYPED`).
pub const TYPED: &str = "#typed";

/// The helper that `x = v` calls in a function declaring `global x`, as
/// `Base._setglobal!(x, v)` with the binding `x` as a constant: it rebinds the top-level `x`.
pub const SET_GLOBAL: &str = "Base._setglobal!";

/// A top-level binding (`const N = 3`, `sq = x -> x^2`): a zero-argument body computing it.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Global {
    pub name: Name,
    pub body: Arc<Function>,
    pub span: Span,
}

/// A whole untyped program.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Program {
    /// Generic functions by name. The call method of a callable struct or closure type `S` is
    /// stored under [`callable_name`]`(S)`.
    pub functions: BTreeMap<Name, GenericFunction>,
    pub structs: BTreeMap<Name, StructDef>,
    /// Type aliases by name (`const FVec = Vector{Float64}`): each a [`StructDef`] whose
    /// `alias` is the type it names.
    pub aliases: BTreeMap<Name, StructDef>,
    pub globals: BTreeMap<Name, Global>,
    /// The top-level bindings some function rebinds ([`SET_GLOBAL`]): each is a cell, a
    /// `Ref` of its value that every reader loads from.
    pub rebound: BTreeSet<Name>,
    /// Names whose only definition the front end refused, with the message a use of one
    /// gives instead of `UndefVarError`.
    pub refused: BTreeMap<Name, String>,
    /// Names with a refused definition beside definitions the front end kept (a struct
    /// refused, its outer constructor kept), with the message a call that no kept method
    /// takes gives instead of `MethodError`.
    pub refused_beside: BTreeMap<Name, String>,
    /// The packages the program imports that zy does not have (`Optim` of `using Optim`): a
    /// name nothing defines may come from one of them, and an `UndefVarError` says so.
    pub unknown_packages: BTreeSet<Name>,
}

/// The generic-function name under which the call methods of struct (or closure) type `name`
/// are stored: `(::Dense)`.
pub fn callable_name(struct_name: &str) -> Name {
    format!("(::{struct_name})").into()
}

impl Program {
    /// Add a method to the generic function `name`, creating it if needed.
    pub fn add_method(&mut self, name: Name, method: Method) {
        self.functions
            .entry(name.clone())
            .or_insert_with(|| GenericFunction {
                name,
                methods: Vec::new(),
            })
            .methods
            .push(method);
    }
}

/// The typed specialisations reachable from some entry calls, as inference produces them:
/// every [`Op::Invoke`](crate::Op::Invoke) in one of these functions names another key here.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct TypedProgram {
    /// One typed body per specialisation.
    pub functions: BTreeMap<Arc<crate::Instance>, Arc<Function>>,
    /// Typed bodies of the top-level bindings that the functions load, by name. Each is
    /// evaluated once per run (a global array is one object, as in Julia).
    pub globals: BTreeMap<Name, Arc<Function>>,
}
