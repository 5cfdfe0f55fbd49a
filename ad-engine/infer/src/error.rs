//! Type errors found while inferring a specialisation.

use zy_ir::Span;

/// A diagnostic from inference: where, a stable code, and a one-line message.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct TypeError {
    /// The source location of the offending statement, variable or signature.
    pub span: Span,
    /// One of `type-conflict`, `undefined-name`, `method-error`, `unsupported`,
    /// `not-differentiable`.
    pub code: &'static str,
    /// One line, in Julia's vocabulary where Julia has one.
    pub message: String,
}

/// A failure to type one statement, before a span is attached.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct Fail {
    pub code: &'static str,
    pub message: String,
}

impl Fail {
    pub fn conflict(message: impl Into<String>) -> Fail {
        Fail {
            code: "type-conflict",
            message: message.into(),
        }
    }

    pub fn undefined(message: impl Into<String>) -> Fail {
        Fail {
            code: "undefined-name",
            message: message.into(),
        }
    }

    /// A name nothing in `program` defines: as [`Fail::undefined_name`], unless the program's
    /// definition of it was refused, which the message then says; an `UndefVarError` names the
    /// packages zy does not have that the program imports, where the name may come from.
    pub fn undefined_in(name: &str, program: &zy_ir::Program) -> Fail {
        if let Some(why) = program.refused.get(name) {
            return Fail::unsupported(why.clone());
        }
        let mut fail = Fail::undefined_name(name);
        if fail.code == "undefined-name" {
            if let Some(hint) = unknown_package_hint(name, &program.unknown_packages) {
                fail.message = hint;
            }
        }
        fail
    }

    /// A name nothing in scope defines: Julia's `UndefVarError`, or, for a name of Julia's
    /// library that zy's subset leaves out (`Dict`), an `unsupported` naming it, so that the
    /// message does not read as a typo.
    pub fn undefined_name(name: &str) -> Fail {
        match name.strip_prefix("Base.").unwrap_or(name) {
            "IdDict" | "WeakKeyDict" => Fail::unsupported(format!(
                "{name} (zy's dictionaries are `Dict`s; dictionaries by identity are outside its subset of Julia); use a `Dict` instead"
            )),
            "big" | "Float16" | "BigFloat" | "BigInt" => {
                Fail::unsupported(format!(
                    "{name}: zy computes with Float64, Float32, Int64, Bool and the integers Int8 to Int128 and UInt8 to UInt128 only; write `Float64(x)`, `Int(x)` or `Int128(x)` instead"
                ))
            }
            "Inf16" | "NaN16" => Fail::unsupported(format!(
                "{name} is a Float16, which zy does not have (it computes with Float64, Float32, Int64, Bool and the fixed-width integers); write `{}` or `{}32` instead",
                &name[..3],
                &name[..3]
            )),
            "IOContext" => Fail::unsupported(
                "IOContext (zy's streams are `IOBuffer`s without properties such as `:compact`); print to the stream itself",
            ),
            "hash" | "objectid" => Fail::unsupported(format!(
                "`{name}` (Julia's is a UInt64 that zy's numbers cannot hold, computed by a MurmurHash that changes between Julia versions); compare values with `==` or `isequal`, or use them as `Dict` keys"
            )),
            "open" | "close" | "isfile" | "isdir" | "ispath" | "readdir" | "walkdir" | "mkdir"
            | "mkpath" | "rm" | "cp" | "mv" | "touch" | "filesize" | "stat" | "mtime" | "pwd"
            | "cd" | "homedir" | "tempdir" | "tempname" | "mktemp" | "mktempdir" | "run"
            | "ENV" => Fail::unsupported(format!(
                "`{name}`: zy runs functions without files, processes or environment variables; pass what they would read to the function as an argument"
            )),
            "RemoteChannel" | "Condition" | "notify" | "yield" => {
                Fail::unsupported(format!(
                    "`{name}`: zy runs each task to completion where it is made, so no task waits for another's values; return them from the tasks and `fetch` them, or `put!` them into a `Channel{{T}}`"
                ))
            }
            "Meta" | "eval" | "include_string" => Fail::unsupported(format!(
                "`{name}`: zy compiles the whole program before it runs, so it neither parses nor evaluates code made while it runs; compute the value itself (`parse(Int, s)` reads a number's text)"
            )),
            "ComplexF32" | "ComplexF16" => Fail::unsupported(format!(
                "{name}: zy's complex numbers have Float64, Int64 or Bool parts; write `ComplexF64` instead"
            )),
            bare => match crate::julia_names::julia_home(bare) {
                Some(home) => Fail::unsupported(format!(
                    "`{bare}` (Julia's `{}.{}`) is not in zy's library; write what it computes as a function of your own",
                    home.join("."),
                    bare.rsplit('.').next().unwrap_or(bare)
                )),
                None => Fail::undefined(format!("UndefVarError: `{name}` not defined")),
            },
        }
    }

    pub fn method(message: impl Into<String>) -> Fail {
        Fail {
            code: "method-error",
            message: message.into(),
        }
    }

    /// Is this [`ambiguous`]'s error, which no builtin or fallback may answer instead?
    pub(crate) fn is_ambiguity(&self) -> bool {
        self.code == "method-error" && self.message.ends_with(AMBIGUOUS)
    }

    pub fn unsupported(message: impl Into<String>) -> Fail {
        Fail {
            code: "unsupported",
            message: format!("unsupported: {}", message.into()),
        }
    }

    pub fn not_differentiable(message: impl Into<String>) -> Fail {
        Fail {
            code: "not-differentiable",
            message: message.into(),
        }
    }

    /// Attach a location.
    pub fn at(self, span: Span) -> TypeError {
        TypeError {
            span,
            code: self.code,
            message: self.message,
        }
    }
}

/// The `UndefVarError` of `name` where the program imports `packages` that zy does not have:
/// the module `Optim` of `Optim.LBFGS` (or a name qualified by it) is such a package, a bare
/// `LBFGS` may come from any of them. `None` without such packages, or for a name qualified by
/// another module.
fn unknown_package_hint(
    name: &str,
    packages: &std::collections::BTreeSet<zy_ir::Name>,
) -> Option<String> {
    let module = name.split_once('.').map_or(name, |(m, _)| m);
    if let Some(p) = packages.get(module) {
        return Some(format!(
            "UndefVarError: `{p}` not defined: `{p}` is a package zy does not have"
        ));
    }
    let listed: Vec<String> = packages.iter().map(|p| format!("`{p}`")).collect();
    match listed.as_slice() {
        _ if name.contains('.') => None,
        [] => None,
        [one] => Some(format!(
            "UndefVarError: `{name}` not defined; it may come from the package {one}, which zy does not have"
        )),
        many => Some(format!(
            "UndefVarError: `{name}` not defined; it may come from one of the packages {}, which zy does not have",
            many.join(", ")
        )),
    }
}

/// `MethodError: no method matching f(::Float64, ::Int64)`, as Julia words it.
pub(crate) fn no_method(name: &str, args: &[zy_ir::Type]) -> Fail {
    Fail::method(format!(
        "MethodError: no method matching {}",
        signature(name, args)
    ))
}

/// [`no_method`] knowing the program's functions: one with a capitalised name passed as an
/// argument is a `::typeof(F)`, where a struct's name is a `::Type{S}`.
pub(crate) fn no_method_in(program: &zy_ir::Program, name: &str, args: &[zy_ir::Type]) -> Fail {
    let function = |f: &str| {
        program.functions.contains_key(f)
            && !program.structs.contains_key(f)
            && !crate::calls::is_library(f)
    };
    let args: Vec<String> = args
        .iter()
        .map(|t| match t {
            zy_ir::Type::Function(f) if function(f) => format!("::typeof({f})"),
            t => shown_argument(t),
        })
        .collect();
    let name = name.strip_prefix("Base.").unwrap_or(name);
    Fail::method(format!(
        "MethodError: no method matching {name}({})",
        args.join(", ")
    ))
}

/// Julia's `MethodError` of a call to which several methods apply, none more specific than
/// the others.
pub(crate) fn ambiguous(name: &str, args: &[zy_ir::Type]) -> Fail {
    Fail::method(format!("MethodError: {}{AMBIGUOUS}", signature(name, args)))
}

/// How the message of [`ambiguous`] ends.
const AMBIGUOUS: &str = " is ambiguous.";

/// `f(::Float64, ::Int64)`; a function of Base by its name alone, as every module sees it, and
/// so the types the libraries export (`::Char`, `::Rational{Int64}`).
pub(crate) fn signature(name: &str, args: &[zy_ir::Type]) -> String {
    let name = name.strip_prefix("Base.").unwrap_or(name);
    let args: Vec<String> = args.iter().map(shown_argument).collect();
    format!("{name}({})", args.join(", "))
}

/// `::T` of an argument of type `t` in a `MethodError`'s signature.
fn shown_argument(t: &zy_ir::Type) -> String {
    zy_ir::julia_cartesian_names(format!("::{}", visible(&argument_type(t))))
}

/// How Julia's `MethodError` names the type of an argument: a type passed as a value (zy
/// holds it as its constructor, `Function("Circle{Float64}")`) is a `Type{Circle{Float64}}`,
/// a number, string or character type under Julia's name (`parse(Int, s)`: `Type{Int64}`);
/// any other value its type.
fn argument_type(t: &zy_ir::Type) -> String {
    let zy_ir::Type::Function(f) = t else {
        return t.to_string();
    };
    let bare = f.strip_prefix("Base.").unwrap_or(f);
    match TYPE_VALUES.iter().find(|(n, _)| *n == bare) {
        Some((_, julia)) => format!("Type{{{julia}}}"),
        None if names_type(f) => format!("Type{{{f}}}"),
        None => t.to_string(),
    }
}

/// The types whose values [`argument_type`] names, with Julia's names for them.
const TYPE_VALUES: &[(&str, &str)] = &[
    ("Int", "Int64"),
    ("Int64", "Int64"),
    ("Int32", "Int32"),
    ("Int16", "Int16"),
    ("Int8", "Int8"),
    ("UInt64", "UInt64"),
    ("UInt32", "UInt32"),
    ("UInt16", "UInt16"),
    ("UInt8", "UInt8"),
    ("Int128", "Int128"),
    ("UInt128", "UInt128"),
    ("Float64", "Float64"),
    ("Float32", "Float32"),
    ("Bool", "Bool"),
    ("String", "String"),
    ("Char", "Char"),
];

/// Is the callee name `n` a type's (`Circle{Float64}`, `Base.UnitRange`) rather than a
/// function's? Julia's types are capitalised, its functions not.
pub(crate) fn names_type(n: &str) -> bool {
    let bare = n.split('{').next().unwrap_or(n);
    bare.rsplit('.')
        .next()
        .and_then(|last| last.chars().next())
        .is_some_and(char::is_uppercase)
}

/// The prelude's types that Base, LinearAlgebra, Random and Dates export: Julia names them without
/// their module where a program sees them.
const EXPORTED_TYPES: &[&str] = &[
    "AbstractChar",
    "Char",
    "CartesianIndex",
    "CartesianIndices",
    "Colon",
    "ComposedFunction",
    "Complex",
    "Dict",
    "LinRange",
    "Pair",
    "Rational",
    "Returns",
    "Set",
    "BitSet",
    "Some",
    "StepRange",
    "StepRangeLen",
    "SubArray",
    "UnitRange",
    "Val",
    "Bidiagonal",
    "Cholesky",
    "Diagonal",
    "Eigen",
    "GeneralizedEigen",
    "Hermitian",
    "Hessenberg",
    "LU",
    "LowerTriangular",
    "QR",
    "SVD",
    "Schur",
    "SymTridiagonal",
    "Symmetric",
    "Transpose",
    "Tridiagonal",
    "UniformScaling",
    "UnitLowerTriangular",
    "UnitUpperTriangular",
    "UpperHessenberg",
    "UpperTriangular",
    "AbstractRNG",
    "MersenneTwister",
    "Xoshiro",
    "Date",
    "DateFormat",
    "DateTime",
    "Day",
    "Hour",
    "Microsecond",
    "Millisecond",
    "Minute",
    "Month",
    "Nanosecond",
    "Second",
    "Time",
    "Week",
    "Year",
];

/// A type's text with the exported types' module prefixes left out (`Base.Char` is `Char`;
/// `Base.Iterators.Take` stays).
pub(crate) fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let at_word = !out.ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '.');
        let module = ["Base.", "LinearAlgebra.", "Random.", "Dates."]
            .into_iter()
            .find(|m| at_word && rest.starts_with(m))
            .filter(|m| {
                let name = rest[m.len()..].split(|c: char| !c.is_alphanumeric() && c != '_');
                name.take(1).any(|n| EXPORTED_TYPES.contains(&n))
            });
        match module {
            Some(m) => rest = &rest[m.len()..],
            None => {
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out
}
