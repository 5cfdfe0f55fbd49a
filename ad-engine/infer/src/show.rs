//! `Base.show(io::IO, x::T)` methods of the program's structs. The syntax keeps such a
//! method with `io` the text written so far (a `String`) and returns the text, as it keeps
//! `showerror` methods (`zy_syntax`'s `output.rs`); inference calls it on `""` where
//! `string`, `repr` or an interpolation shows a value of type `T`. A `show(io::IO,
//! ::MIME"text/plain", x::T)` method (renamed by the syntax, without its MIME argument) is
//! called by `repr("text/plain", x)` and the result display, as Julia's REPL calls it.

use zy_ir::{Const, Type, TypeExpr};

use crate::error::Fail;
use crate::value::Val;

impl crate::calls::Cx<'_> {
    /// `string(args...)` or `repr(x)` where a value is a struct with a `Base.show(io::IO,
    /// x::T)` method of the program (its `io` the text so far, a `String`, after the syntax's
    /// rewrite): the text that method writes on `""` in its place, as Julia's `print` and
    /// `repr` call `show`. `None` for any other call.
    pub(crate) fn by_show(
        &mut self,
        b: &mut crate::plan::PlanBuilder,
        name: &zy_ir::Name,
        args: &[Val],
    ) -> Option<Result<Val, Fail>> {
        let base = name.strip_prefix("Base.").unwrap_or(name);
        // Julia shows a vector of views (`collect(eachcol(A))`) with their type
        // `SubArray{T, N, P, I, L}`, whose index types zy's views do not keep. Only where the
        // text is made: `print(xs...)` to no `IOBuffer` writes nothing zy keeps (the syntax
        // leaves it out with a note), and one to an `IOBuffer` makes its text by `string`.
        let of_views = |a: &Val| matches!(&a.ty, Type::Array(e, _) if crate::calls::is_view(e));
        if matches!(base, "string" | "repr" | "sprint") && args.iter().any(of_views) {
            return Some(Err(Fail::unsupported(
                "showing an array of views (Julia writes their type `SubArray{T, N, P, I, L}`, \
                 whose index types zy's views do not keep); show `map(collect, v)`, the copies",
            )));
        }
        // `repr("text/plain", x)`: the program's `show(io, ::MIME"text/plain", x)` method,
        // else (as Julia falls back) `repr(x)` where that is Julia's display; a dictionary's
        // and a numeric vector's, matrix's or row's are the prelude's, other arrays' refused
        // by name.
        if let ("repr", [mime, x]) = (base, args) {
            if !matches!(&mime.konst, Some(Const::Str(m)) if &**m == "text/plain") {
                return None;
            }
            if shown_by(self.program, &x.ty, SHOW_TEXT_PLAIN) {
                let all = [Val::lit(Const::Str("".into())), x.clone()];
                return Some(self.call_named(b, &SHOW_TEXT_PLAIN.into(), &all));
            }
            // A dictionary's display is the prelude's, a line per entry.
            let dict = matches!(&x.ty, Type::Struct(s) if is_dict(s));
            if !dict {
                if let Some(shown) = self.by_show(b, name, std::slice::from_ref(x)) {
                    return Some(shown);
                }
            }
            return match &x.ty {
                // Of a number, string, symbol or `nothing`, Julia's display is `repr`'s text.
                Type::Float64
                | Type::Float32
                | Type::Int64
                | Type::Int(_)
                | Type::Bool
                | Type::Nothing
                | Type::Symbol(_)
                | Type::String => {
                    Some(self.call_named(b, &"Base.repr".into(), std::slice::from_ref(x)))
                }
                // A vector or matrix of numbers, or a lazy adjoint or transpose: the
                // prelude's display, by exactly these types (the library's other arrays,
                // `Diagonal`, views, ranges, would be read as the `Matrix` they equal).
                Type::Array(e, 1 | 2)
                    if matches!(**e, Type::Float64 | Type::Int64 | Type::Bool) =>
                {
                    Some(self.call_named(b, &PLAIN_ARRAY.into(), std::slice::from_ref(x)))
                }
                // A vector of strings, symbols, tuples, named tuples, vectors or the
                // program's structs: one element a line, as `show` writes it.
                Type::Array(e, 1) if self.listed(e) => {
                    let mut all = vec![x.clone()];
                    // Julia writes a named tuple's type `@NamedTuple{a::Int64}`, which the
                    // prelude's `typeof` of such a vector does not name.
                    if holds_named_tuple(e) {
                        let elem = Const::Str(julia_type(e).into());
                        all.push(Val::lit(elem));
                    }
                    Some(self.call_named(b, &PLAIN_LIST.into(), &all))
                }
                // A tuple or named tuple is shown as `show` writes it.
                Type::Tuple(_) | Type::NamedTuple(_) => {
                    Some(self.call_named(b, &"Base.repr".into(), std::slice::from_ref(x)))
                }
                // A `LinRange`: its summary, then its elements on one line.
                Type::Struct(s) if &*s.name == "Base.LinRange" => {
                    Some(self.call_named(b, &PLAIN_LIN_RANGE.into(), std::slice::from_ref(x)))
                }
                // Any other range is shown as itself (`1:3`, `0.0:0.5:1.0`).
                t if crate::calls::is_range(t) => {
                    Some(self.call_named(b, &"Base.repr".into(), std::slice::from_ref(x)))
                }
                // A view of numbers by a range of its parent's linear indices: a vector's
                // range, a matrix's row or column.
                Type::Struct(s) if plain_view(s) => {
                    Some(self.call_named(b, &PLAIN_VIEW.into(), std::slice::from_ref(x)))
                }
                // An array struct of the program's holding numbers: its own type in the
                // summary (`2-element MyVector:`), then its elements as an array's.
                t if self.plain_user_array(t) => {
                    Some(self.call_named(b, &PLAIN_USER_ARRAY.into(), std::slice::from_ref(x)))
                }
                // A `Diagonal`, triangular, `Symmetric` or `Hermitian` matrix: the library's
                // own `repr("text/plain", A)` methods.
                Type::Struct(s) if STRUCTURED.contains(&&*s.name) => None,
                Type::Adjoint(_) => {
                    Some(self.call_named(b, &PLAIN_WRAPPER.into(), std::slice::from_ref(x)))
                }
                Type::Struct(s) if LAZY_WRAPPERS.contains(&&*s.name) => {
                    Some(self.call_named(b, &PLAIN_WRAPPER.into(), std::slice::from_ref(x)))
                }
                // A view, `Diagonal`, `Symmetric`, range, ...: not the `Matrix` the library
                // reads it as (Julia's display names the wrapper and marks structural zeros).
                t if matches!(t, Type::Array(..)) || crate::calls::reads_as_copy(t) => {
                    Some(Err(Fail::unsupported(
                        "the `text/plain` display of an array (`show(io, MIME\"text/plain\"(), \
                         x)`, `repr(\"text/plain\", x)`: Julia's summary line, then the \
                         elements aligned in columns); write `show(io, x)` for its one-line \
                         form instead",
                    )))
                }
                _ => None,
            };
        }
        // The compact form of a value the program shows (an entry of a dictionary's display)
        // is its `show`, as Julia calls it in a `:compact` context.
        if let ("_compact_text", [x]) = (base, args) {
            if shows(self.program, &x.ty) {
                return Some(self.call_named(b, &"repr".into(), std::slice::from_ref(x)));
            }
        }
        if !matches!(base, "string" | "repr") || !args.iter().any(|a| shows(self.program, &a.ty)) {
            return None;
        }
        // A type with a `string(x::T)` method of its own (Julia's `print` of a `Date`) is
        // written by it, never by its `show`.
        if let ("string", [x]) = (base, args) {
            if own_string(self.program, &x.ty) {
                return None;
            }
        }
        let mut texts = Vec::with_capacity(args.len());
        for a in args {
            let (f, mut all) = match &a.ty {
                t if base == "string" && own_string(self.program, t) => ("Base.string", vec![]),
                t if shown_by(self.program, t, SHOW) => {
                    (SHOW, vec![Val::lit(Const::Str("".into()))])
                }
                Type::Array(elem, 1) if shows(self.program, elem) => {
                    let prefix = crate::error::visible(&elem.to_string());
                    (
                        "Base._show_vector",
                        vec![Val::lit(Const::Str(prefix.into()))],
                    )
                }
                Type::Tuple(_) if shows(self.program, &a.ty) => ("Base._show_tuple", vec![]),
                Type::Struct(s) if is_dict(s) && shows(self.program, &a.ty) => {
                    // Julia names the type where a key or value type is abstract.
                    let open = s.params.iter().any(|p| matches!(p, Type::Union(_)));
                    let prefix = if open {
                        a.ty.to_string()
                    } else {
                        "Dict".to_string()
                    };
                    ("Base._show_dict", vec![Val::lit(Const::Str(prefix.into()))])
                }
                t @ (Type::NamedTuple(_) | Type::Struct(_)) if shows(self.program, t) => {
                    match self.show_fields(b, a) {
                        Ok(text) => texts.push(text),
                        Err(e) => return Some(Err(e)),
                    }
                    continue;
                }
                _ => {
                    texts.push(a.clone());
                    continue;
                }
            };
            all.push(a.clone());
            match self.call_named(b, &f.into(), &all) {
                Ok(text) => texts.push(text),
                Err(e) => return Some(Err(e)),
            }
        }
        match (base, texts.as_slice()) {
            ("repr", [text]) => Some(Ok(text.clone())),
            _ => Some(self.call_named(b, &"string".into(), &texts)),
        }
    }
}

impl crate::calls::Cx<'_> {
    /// The text Julia's `show` writes for a named tuple (`(a = P<1.0>,)`), a `Pair` (`1 =>
    /// P<1.0>`) or a struct of the program without a `show` method (`Q(P<1.0>, 2.0)`, its
    /// fields as `show` writes them), one of whose fields a `show` method of the program
    /// writes.
    fn show_fields(&mut self, b: &mut crate::plan::PlanBuilder, x: &Val) -> Result<Val, Fail> {
        let text = |t: &str| Val::lit(Const::Str(t.into()));
        let (names, open, sep, close): (Vec<zy_ir::Name>, String, &str, &str) = match &x.ty {
            Type::NamedTuple(fields) => {
                let names = fields.iter().map(|(n, _)| n.clone()).collect();
                let close = if fields.len() == 1 { ",)" } else { ")" };
                (names, "(".into(), ", ", close)
            }
            Type::Struct(s) if &*s.name == "Base.Pair" => {
                let names = s.fields.iter().map(|(n, _)| n.clone()).collect();
                (names, String::new(), " => ", "")
            }
            Type::Struct(s) => {
                let names = s.fields.iter().map(|(n, _)| n.clone()).collect();
                (names, format!("{}(", x.ty), ", ", ")")
            }
            _ => {
                return Err(Fail::unsupported(
                    "showing the fields of a value without fields",
                ))
            }
        };
        let mut pieces = vec![text(&open)];
        for (k, name) in names.iter().enumerate() {
            if k > 0 {
                pieces.push(text(sep));
            }
            if matches!(x.ty, Type::NamedTuple(_)) {
                pieces.push(text(&format!("{name} = ")));
            }
            let field = Val::lit(Const::Symbol(name.clone()));
            let value = self.call_named(b, &"getfield".into(), &[x.clone(), field])?;
            pieces.push(self.call_named(b, &"repr".into(), &[value])?);
        }
        pieces.push(text(close));
        self.call_named(b, &"string".into(), &pieces)
    }
}

/// The prelude's `Dict` (a mutable struct of its keys, values and table).
fn is_dict(s: &zy_ir::StructType) -> bool {
    &*s.name == "Base.Dict"
}

/// Is `s` a struct that Julia's default `show` writes as its type and fields (a struct of the
/// program, or a `Pair`), not one the library shows its own way?
fn shows_fields(program: &zy_ir::Program, s: &zy_ir::StructType) -> bool {
    s.kind == zy_ir::StructKind::User
        && (&*s.name == "Base.Pair" || program.structs.get(&s.name).is_some_and(|d| !d.library))
}

/// The prelude's `text/plain` display of a vector or matrix of numbers.
const PLAIN_ARRAY: &str = "Base._plain_array";

/// The prelude's `text/plain` display of a vector of strings, symbols, tuples, named tuples,
/// vectors or structs (after it, the element type's text where `typeof` cannot name it).
const PLAIN_LIST: &str = "Base._plain_list";

/// The structured matrices whose `text/plain` display is the library's (structural zeros
/// marked `⋅`).
const STRUCTURED: &[&str] = &[
    "LinearAlgebra.Diagonal",
    "LinearAlgebra.UpperTriangular",
    "LinearAlgebra.LowerTriangular",
    "LinearAlgebra.UnitUpperTriangular",
    "LinearAlgebra.UnitLowerTriangular",
    "LinearAlgebra.Symmetric",
    "LinearAlgebra.Hermitian",
];

impl crate::calls::Cx<'_> {
    /// Does Julia display a vector of `elem`s as one `show` a line, each at the left: strings,
    /// symbols, `nothing` among them, unsigned integers, tuples and named tuples of such or of
    /// numbers, vectors of such, the program's structs without a `text/plain` method of their
    /// own? (Numbers align at their decimal point, and a library struct may have a display of
    /// its own.)
    fn listed(&self, elem: &Type) -> bool {
        match elem {
            Type::String | Type::SubString | Type::Symbol(_) | Type::Nothing => true,
            // Unsigned integers are shown in hexadecimal, all of one width (`0x61`).
            Type::Int(k) => !k.signed(),
            Type::Tuple(ts) => ts.iter().all(|t| t.is_number() || self.listed(t)),
            Type::NamedTuple(fields) => {
                !fields.is_empty() && fields.iter().all(|(_, t)| t.is_number() || self.listed(t))
            }
            // A vector is shown by `show`, its element type known (`[1.0, 2.0]`, `[1, 0]` of
            // Bools), as its own display takes several lines.
            Type::Array(e, 1) => e.is_number() || self.listed(e),
            Type::Union(u) => u.is_julias() && u.members.iter().all(|t| self.listed(t)),
            Type::Struct(s) => {
                !crate::calls::is_library(&s.name) && !shown_by(self.program, elem, SHOW_TEXT_PLAIN)
            }
            _ => false,
        }
    }
}

impl crate::calls::Cx<'_> {
    /// Is `t` a struct of the program (not the library's) declared below `AbstractVector` or
    /// `AbstractMatrix` of Float64s, Ints or Bools ([`crate::pattern::user_array`])?
    fn plain_user_array(&self, t: &Type) -> bool {
        let own = matches!(t, Type::Struct(s) if !crate::calls::is_library(&s.name));
        own && matches!(crate::pattern::user_array(t, self.program), Some(Type::Array(e, 1 | 2))
            if matches!(*e, Type::Float64 | Type::Int64 | Type::Bool))
    }
}

/// The prelude's `text/plain` display of an array struct of the program.
const PLAIN_USER_ARRAY: &str = "Base._plain_user_array";

/// Does `t` hold a named tuple (in a tuple or a vector too)?
fn holds_named_tuple(t: &Type) -> bool {
    match t {
        Type::NamedTuple(_) => true,
        Type::Tuple(ts) => ts.iter().any(holds_named_tuple),
        Type::Array(e, _) => holds_named_tuple(e),
        _ => false,
    }
}

/// The type `t` as Julia prints it where it holds a named tuple (`@NamedTuple{a::Int64}`).
fn julia_type(t: &Type) -> String {
    match t {
        Type::NamedTuple(fs) => {
            let fields: Vec<String> = fs
                .iter()
                .map(|(n, f)| format!("{n}::{}", julia_type(f)))
                .collect();
            format!("@NamedTuple{{{}}}", fields.join(", "))
        }
        Type::Tuple(ts) if holds_named_tuple(t) => {
            let parts: Vec<String> = ts.iter().map(julia_type).collect();
            format!("Tuple{{{}}}", parts.join(", "))
        }
        Type::Array(e, 1) if holds_named_tuple(e) => format!("Vector{{{}}}", julia_type(e)),
        _ => t.to_string(),
    }
}

/// The prelude's `text/plain` display of a `LinRange`.
const PLAIN_LIN_RANGE: &str = "Base._plain_lin_range";

/// The prelude's `text/plain` display of a view by a range of its parent's linear indices.
const PLAIN_VIEW: &str = "Base._plain_view";

/// Is `s` a view (not a shared reshape) of a vector or matrix of numbers by a `StepRange` of
/// its linear indices, whose display the prelude writes?
fn plain_view(s: &zy_ir::StructType) -> bool {
    let numbers = |e: &Type| matches!(e, Type::Float64 | Type::Int64 | Type::Bool);
    &*s.name == "Base.SubArray"
        && matches!(s.params.as_slice(), [Type::Array(e, 1 | 2), Type::Struct(r), Type::Nothing]
            if numbers(e) && &*r.name == "Base.StepRange")
}

/// The prelude's `text/plain` display of a lazy adjoint or transpose.
const PLAIN_WRAPPER: &str = "Base._plain_wrapper";

/// The prelude's lazy adjoints and transposes of a matrix or a vector (beside `x'`, which is
/// [`Type::Adjoint`]).
const LAZY_WRAPPERS: &[&str] = &[
    "Base.AdjointMatrix",
    "Base.TransposeMatrix",
    "Base.Transpose",
];

/// Is `t` a struct with a `Base.show(io::IO, x::T)` method of `program`, or a vector, tuple,
/// named tuple, `Pair`, `Dict` or struct without its own `show` holding one? (`string`, `repr` and the result display then call the program's method.)
pub fn shows(program: &zy_ir::Program, t: &Type) -> bool {
    match t {
        Type::Array(elem, 1) => shows(program, elem),
        Type::Tuple(ts) => ts.iter().any(|t| shows(program, t)),
        Type::NamedTuple(fields) => fields.iter().any(|(_, t)| shows(program, t)),
        t if shown_by(program, t, SHOW) => true,
        Type::Struct(s) if s.mutable && is_dict(s) => s.params.iter().any(|t| shows(program, t)),
        Type::Struct(s) if shows_fields(program, s) => {
            s.fields.iter().any(|(_, t)| shows(program, t))
        }
        _ => false,
    }
}

/// Does Julia's display of a value of type `t` (`repr("text/plain", x)`) call a method of
/// `program`: a `show` method as for [`shows`], or `show(io::IO, ::MIME"text/plain", x::T)`
/// for the struct type `t`?
pub fn displays(program: &zy_ir::Program, t: &Type) -> bool {
    shows(program, t) || shown_by(program, t, SHOW_TEXT_PLAIN)
}

/// Does `program` have a method of `f` (`show`, or the `text/plain` one without its MIME
/// argument) taking `io` (a `String` after the syntax's rewrite) and the struct type `t`?
fn shown_by(program: &zy_ir::Program, t: &Type, f: &str) -> bool {
    let Type::Struct(s) = t else { return false };
    program.functions.get(f).is_some_and(|gf| {
        gf.methods.iter().any(|m| match m.sig.as_slice() {
            [Some(TypeExpr::Named { name: io, .. }), Some(TypeExpr::Named { name: x, .. })] => {
                &**io == "String" && *x == s.name
            }
            _ => false,
        })
    })
}

/// Does `program` have a `string(x::T)` method of the struct type `t`, by which `string` and
/// `print` write a value of it (Julia's `print`, where the type defines its own)?
fn own_string(program: &zy_ir::Program, t: &Type) -> bool {
    let Type::Struct(s) = t else { return false };
    program.functions.get("Base.string").is_some_and(|gf| {
        gf.methods.iter().any(
            |m| matches!(m.sig.as_slice(), [Some(TypeExpr::Named { name, .. })] if *name == s.name),
        )
    })
}

/// Julia's `show`, as resolution names a program's `Base.show(io::IO, x::T)` methods.
const SHOW: &str = "Base.show";
/// A program's `Base.show(io::IO, ::MIME"text/plain", x::T)` methods, as the syntax renames
/// them (without the MIME argument).
const SHOW_TEXT_PLAIN: &str = "Base._show_text_plain";
