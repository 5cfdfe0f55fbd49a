//! Concrete types of the Julia subset, and the structural tangent type of each.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::int_kind::IntKind;

/// The most dimensions an `Array{T, N}` may have in zy (Julia has no limit; more are refused
/// by name).
pub const MAX_DIMS: u8 = 6;

/// A name shared cheaply between IR objects (function names, field names, struct names).
pub type Name = Arc<str>;

/// A concrete type, as Julia would infer it for one specialisation.
///
/// Untyped IR (straight out of lowering) uses [`Type::Any`] everywhere; inference replaces it.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    /// Not inferred yet (untyped IR only).
    Any,
    /// `Union{}`: the type of an expression that never returns (it throws).
    Bottom,
    Float64,
    /// `Float32`: a value whose gradient is a Float32 (reverse mode; forward mode refuses
    /// one by name), and the JIT declines programs that hold one.
    Float32,
    Int64,
    /// A fixed-width integer other than `Int64` (`UInt8`, `Int32`, ...): a value, never
    /// differentiated. The JIT declines programs that hold one.
    Int(IntKind),
    Bool,
    Nothing,
    /// `Tuple{A, B, ...}`.
    Tuple(Arc<[Type]>),
    /// `@NamedTuple{a::A, b::B}`: also the tangent of structs and closures.
    NamedTuple(Arc<[(Name, Type)]>),
    /// A user `struct`/`mutable struct`, a closure environment or a callable struct.
    Struct(Arc<StructType>),
    /// `Base.RefValue{T}`: `Ref(x)`, and the box of a captured variable that is reassigned.
    Ref(Arc<Type>),
    /// `Array{T, N}` for `N` from 1 (`Vector`), 2 (`Matrix`) to [`MAX_DIMS`].
    Array(Arc<Type>, u8),
    /// `Adjoint{T, Vector{T}}`: a row vector, the result of `x'` for a vector `x`.
    Adjoint(Arc<Type>),
    /// `typeof(f)`: the singleton type of a generic function (user-defined or builtin).
    Function(Name),
    /// `Symbol`, one type per symbol (`:a`): a symbol is known where it is compiled, as Julia
    /// propagates a constant symbol, so `s == :a` and `nt[s]` fold. Shown as `Symbol`. The
    /// empty name is a symbol known only at run time (an element of a `Vector{Symbol}`, a
    /// `Dict`'s key): [`Type::any_symbol`].
    Symbol(Name),
    /// `Exception`: an exception caught by `catch e`, whose concrete type (`DomainError`,
    /// `ErrorException`, ...) is known only at run time (Julia infers `Any`). Carries no
    /// gradient; the JIT declines programs that hold one.
    Exception,
    /// `String`: a run-time string (literals, `string(x)`, `"x = $x"`, `a * b`). Carries no
    /// gradient; the JIT declines programs that hold one.
    String,
    /// `SubString{String}`: a view of part of a `String` (`split`, `strip`, `SubString(s, i,
    /// j)`, `view(s, r)`), held as its own text, as a `String` is: only its type differs
    /// (`typeof`, `show` of its containers, dispatch). Carries no gradient.
    SubString,
    /// The closure returned by `pullback(f, args...)`: calling it runs the pullback of this
    /// specialisation of `f`. Carries the callee type and the argument types.
    Pullback(Arc<[Type]>),
    /// An AD tape stack of values of this type (forward/pullback IR only).
    Stack(Arc<Type>),
    /// A value of one of the program's abstract types (`Shape`), the element type of an array
    /// of structs of different types (`Vector{Shape}`): one of its concrete subtypes, known
    /// only at run time. Calls on it are split over its members (closed world).
    Union(Arc<UnionType>),
    /// A value as a type parameter: `3` in `Val{3}`, `:a` in `Val{:a}`, `true` in `Val{true}`.
    /// No value has this type; it is a struct's parameter or what a `where` variable binds.
    Param(ParamValue),
    /// Inside the fields of a recursive struct type named so (a list grown by a loop, a tree
    /// built by recursion on the data), that struct itself: `next::Union{Nothing, Node}` of a
    /// `Node` of any length is held as `Union{Nothing, Recur(Node)}`, the struct's name and
    /// parameters. Reading a field unfolds it ([`Type::field`]). In a tangent, the tangent of
    /// that struct: the named tuple around it. The JIT leaves such values to the interpreter.
    Recur(Name, Arc<[Type]>),
}

/// A value Julia allows as a type parameter, of the kinds zy reads: an `Int`, a `Bool`, a
/// `Symbol`.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum ParamValue {
    Int(i64),
    Bool(bool),
    Symbol(Name),
}

impl ParamValue {
    /// The parameter written as Julia writes it in a type (`3`, `true`, `:a`), if `text` is one.
    pub fn parse(text: &str) -> Option<ParamValue> {
        match text {
            "true" => Some(ParamValue::Bool(true)),
            "false" => Some(ParamValue::Bool(false)),
            _ => match text.strip_prefix(':') {
                Some(s) if s.starts_with(|c: char| c.is_alphabetic() || c == '_') => {
                    Some(ParamValue::Symbol(s.into()))
                }
                Some(_) => None,
                None => text.parse().ok().map(ParamValue::Int),
            },
        }
    }
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Int(k) => write!(f, "{k}"),
            ParamValue::Bool(b) => write!(f, "{b}"),
            ParamValue::Symbol(s) => write!(f, ":{s}"),
        }
    }
}

/// The comma-separated parts of `text` outside brackets and quotes (`Int64, Vector{T, N}`).
fn top_level_parts(text: &str) -> Vec<String> {
    let (mut parts, mut depth, mut quoted, mut start) = (Vec::new(), 0i32, false, 0);
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '{' | '(' | '[' if !quoted => depth += 1,
            '}' | ')' | ']' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                parts.push(text[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(text[start..].trim().to_string());
    parts
}

/// An abstract type as the union of the concrete types the program defines under it.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct UnionType {
    /// The abstract type's name (`Shape`), what Julia shows; a tangent's is `Tangent{Shape}`.
    pub name: Name,
    /// The concrete member types, sorted and distinct.
    pub members: Vec<Type>,
}

impl UnionType {
    /// Is this a union Julia writes itself (`Union{Float64, Int64}`, named by its members'
    /// text), rather than an abstract type of the program (`Shape`) or a tangent's union?
    pub fn is_julias(&self) -> bool {
        self.name.starts_with("Union{")
            && self
                .members
                .iter()
                .all(|m| format!("{m}") == format!("{m:#}"))
    }

    /// Is this a union of Julia's named by exactly its members, so that its name reads back
    /// as it (not `Union{DataType, Vector{Float64}}`, whose `DataType` stands for the
    /// exception types that are its members)?
    pub fn is_written_out(&self) -> bool {
        let Some(inner) = self
            .name
            .strip_prefix("Union{")
            .and_then(|n| n.strip_suffix('}'))
        else {
            return false;
        };
        let mut named = top_level_parts(inner);
        let mut members: Vec<String> = self.members.iter().map(|m| format!("{m}")).collect();
        named.sort_unstable();
        members.sort_unstable();
        self.is_julias() && named == members
    }

    /// The union of `part` of every member (their tangents, or a part of them), `Nothing` when
    /// every member's is. Named `Tangent{Shape}`, except `Any`'s, which is `Any` again (the
    /// gradient of a `Vector{Any}` is Zygote's `Vector{Any}` of its entries' gradients).
    pub fn map(&self, part: impl Fn(&Type) -> Type) -> Type {
        let parts: Vec<Type> = self.members.iter().map(part).collect();
        if parts.iter().all(|t| *t == Type::Nothing) {
            Type::Nothing
        } else if &*self.name == "Any" {
            Type::union(self.name.clone(), parts)
        } else {
            Type::union(format!("Tangent{{{}}}", self.name).as_str().into(), parts)
        }
    }
}

/// `t` with the free [`Type::Recur`]s of the recursive struct type `whole` replaced by it (an
/// inner struct of the same type binds its own).
pub fn unfold(t: &Type, whole: &StructType) -> Type {
    let each = |t: &Type| unfold(t, whole);
    match t {
        Type::Recur(n, ps) if whole.is(n, ps) => Type::Struct(Arc::new(whole.clone())),
        Type::Struct(s) if !whole.is(&s.name, &s.params) && t.holds_recursion() => {
            Type::Struct(Arc::new(StructType {
                fields: s.fields.iter().map(|(n, f)| (n.clone(), each(f))).collect(),
                ..(**s).clone()
            }))
        }
        Type::Union(u) => Type::union(u.name.clone(), u.members.iter().map(each).collect()),
        Type::Tuple(ts) => Type::tuple(ts.iter().map(each)),
        Type::NamedTuple(fs) => {
            Type::NamedTuple(fs.iter().map(|(n, f)| (n.clone(), each(f))).collect())
        }
        Type::Ref(e) => Type::Ref(Arc::new(each(e))),
        Type::Array(e, n) => Type::Array(Arc::new(each(e)), *n),
        _ => t.clone(),
    }
}

/// `t` in the standard form of recursive struct types: a struct whose shape depends on the data
/// (one holding a [`Type::Recur`]) written out where it first occurs on a path from the root,
/// and as [`Type::Recur`] where it occurs again inside itself, through other structs too (an
/// `Add` holding a `Mul` holding an `Add`). Julia has one type per struct name, so two such
/// occurrences of one struct are one type, and two paths building the same type give equal
/// types. `t` is closed: every `Recur` in it is bound by a struct around it.
pub fn refold(t: &Type) -> Type {
    fn go(t: &Type, path: &mut Vec<(Name, Vec<Type>)>) -> Type {
        match t {
            Type::Struct(s) if t.holds_recursion() => {
                if path.iter().any(|(n, ps)| s.is(n, ps)) {
                    return s.recur();
                }
                path.push((s.name.clone(), s.params.clone()));
                let fields = s
                    .fields
                    .iter()
                    .map(|(n, f)| (n.clone(), go(f, path)))
                    .collect();
                path.pop();
                Type::Struct(Arc::new(StructType {
                    fields,
                    ..(**s).clone()
                }))
            }
            Type::Union(u) => {
                let members = u.members.iter().map(|m| go(m, path)).collect();
                Type::union(u.name.clone(), members)
            }
            Type::Tuple(ts) => Type::tuple(ts.iter().map(|t| go(t, path))),
            Type::NamedTuple(fs) => {
                Type::NamedTuple(fs.iter().map(|(n, f)| (n.clone(), go(f, path))).collect())
            }
            Type::Ref(e) => Type::Ref(Arc::new(go(e, path))),
            Type::Array(e, n) => Type::Array(Arc::new(go(e, path)), *n),
            _ => t.clone(),
        }
    }
    go(t, &mut Vec::new())
}

/// `t` with its free [`Type::Recur`]s replaced by `whole`, the named tuple of a recursive
/// struct's tangent holding `t` in a field. A tangent has no struct to bind its `Recur`, so the
/// innermost named tuple around one binds it: `(val = Float64, next = Union{Nothing, Node})`
/// is a `Node`'s tangent of any length, its `next` read as `Union{Nothing, (val = ..., next =
/// ...)}`. A struct inside `t` binds its own.
fn unfold_tangent(t: &Type, whole: &Type) -> Type {
    let each = |t: &Type| unfold_tangent(t, whole);
    match t {
        Type::Recur(..) => whole.clone(),
        Type::Union(u) => Type::union(u.name.clone(), u.members.iter().map(each).collect()),
        Type::Tuple(ts) => Type::tuple(ts.iter().map(each)),
        Type::Ref(e) => Type::Ref(Arc::new(each(e))),
        Type::Array(e, n) => Type::Array(Arc::new(each(e)), *n),
        _ => t.clone(),
    }
}

/// The definition of a concrete struct type: `Bar{Float64}` with its fields resolved.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StructType {
    /// The struct's name as written (`Dense`), or a generated name for a closure (`#3`).
    pub name: Name,
    /// Concrete type parameters (`Bar{T}` instantiated at `T = Float64`).
    pub params: Vec<Type>,
    /// Field names and concrete field types, in declaration (or capture) order.
    pub fields: Vec<(Name, Type)>,
    /// `mutable struct`: fields can be assigned and the value has identity.
    pub mutable: bool,
    /// What the struct stands for.
    pub kind: StructKind,
}

impl StructType {
    /// Is this the struct type `name{params...}`?
    pub fn is(&self, name: &Name, params: &[Type]) -> bool {
        self.name == *name && self.params == params
    }

    /// Does a field hold the struct's own type ([`Type::Recur`]): is it a struct whose shape
    /// depends on the data?
    pub fn is_recursive(&self) -> bool {
        fn mentions(t: &Type, s: &StructType) -> bool {
            match t {
                Type::Recur(n, ps) => s.is(n, ps),
                Type::Struct(f) => {
                    !s.is(&f.name, &f.params) && f.fields.iter().any(|(_, t)| mentions(t, s))
                }
                Type::Union(u) => u.members.iter().any(|m| mentions(m, s)),
                Type::Tuple(ts) => ts.iter().any(|t| mentions(t, s)),
                Type::NamedTuple(fs) => fs.iter().any(|(_, t)| mentions(t, s)),
                Type::Ref(t) | Type::Array(t, _) => mentions(t, s),
                _ => false,
            }
        }
        self.fields.iter().any(|(_, t)| mentions(t, self))
    }

    /// The struct's own type inside its fields.
    pub fn recur(&self) -> Type {
        Type::Recur(self.name.clone(), self.params.as_slice().into())
    }
}

/// Where a struct type comes from.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Serialize, Deserialize)]
pub enum StructKind {
    /// A `struct` written by the user.
    User,
    /// The environment of an anonymous function or inner function: fields are its captures.
    Closure,
}

impl Type {
    /// `Vector{Float64}`.
    pub fn vector_f64() -> Type {
        Type::Array(Arc::new(Type::Float64), 1)
    }

    /// `Matrix{Float64}`.
    pub fn matrix_f64() -> Type {
        Type::Array(Arc::new(Type::Float64), 2)
    }

    /// A tuple type from its element types.
    pub fn tuple(elems: impl IntoIterator<Item = Type>) -> Type {
        Type::Tuple(elems.into_iter().collect())
    }

    /// `Symbol` of a symbol known only at run time (what a `Vector{Symbol}` holds).
    pub fn any_symbol() -> Type {
        Type::Symbol(Name::from(""))
    }

    /// Is this [`Type::any_symbol`]?
    pub fn is_any_symbol(&self) -> bool {
        matches!(self, Type::Symbol(n) if n.is_empty())
    }

    /// Is this a string type: `String` or `SubString{String}`, which hold their text alike?
    pub fn is_string(&self) -> bool {
        matches!(self, Type::String | Type::SubString)
    }

    /// Is this a number type (`Int64`, `Float64`, `Bool`)?
    pub fn is_number(&self) -> bool {
        matches!(self, Type::Float64 | Type::Int64 | Type::Bool)
    }

    /// Is this a float type, whose gradient is of its own type (Float64, Float32)?
    pub fn is_float(&self) -> bool {
        matches!(self, Type::Float64 | Type::Float32)
    }

    /// Is this Julia's `Missing`, the type of `missing` (the prelude's `Base.Missing`)?
    pub fn is_missing(&self) -> bool {
        matches!(self, Type::Struct(s) if &*s.name == "Base.Missing")
    }

    /// Is this a real number's type: a number, or Julia's union of numbers
    /// (`Union{Float64, Int64}`, a value that is an `Int` on one path and a `Float64` on
    /// another)?
    pub fn is_real(&self) -> bool {
        match self {
            Type::Union(u) => u.members.iter().all(Type::is_number),
            t => t.is_number(),
        }
    }

    /// Is this a real number type, or Julia's union of `Float64` and `ComplexF64` (an
    /// eigenvalue of a real matrix), real when the data make it so? A gradient of a function
    /// returning one seeds its `Float64`.
    pub fn is_real_or_complex(&self) -> bool {
        let complex = |t: &Type| matches!(t, Type::Struct(s) if &*s.name == "Base.Complex");
        match self {
            Type::Union(u) => {
                u.members.contains(&Type::Float64)
                    && u.members.iter().all(|m| m.is_number() || complex(m))
            }
            t => t.is_number(),
        }
    }

    /// Does this type have identity (mutation through one reference is seen through another)?
    pub fn is_mutable(&self) -> bool {
        match self {
            Type::Struct(s) => s.mutable,
            Type::Ref(_) | Type::Array(..) | Type::Stack(_) => true,
            Type::Union(u) => u.members.iter().any(Type::is_mutable),
            _ => false,
        }
    }

    /// Is this Julia's `isbitstype` (numbers, and immutable tuples and structs of them, stored
    /// in line): a field of it is always defined, an unset one holding an arbitrary value.
    pub fn is_bits(&self) -> bool {
        match self {
            Type::Float64
            | Type::Float32
            | Type::Int64
            | Type::Int(_)
            | Type::Bool
            | Type::Nothing => true,
            Type::Tuple(ts) => ts.iter().all(Type::is_bits),
            Type::NamedTuple(fs) => fs.iter().all(|(_, t)| t.is_bits()),
            Type::Struct(s) => !s.mutable && s.fields.iter().all(|(_, t)| t.is_bits()),
            Type::Union(u) => u.members.iter().all(Type::is_bits),
            _ => false,
        }
    }

    /// Does a value of this type reach an object a call could write: is it mutable, or a
    /// tuple, named tuple, struct or union member holding one?
    pub fn reaches_mutable(&self) -> bool {
        match self {
            Type::Union(u) => u.members.iter().any(Type::reaches_mutable),
            _ => {
                self.is_mutable()
                    || self
                        .field_types()
                        .is_some_and(|fs| fs.iter().any(Type::reaches_mutable))
            }
        }
    }

    /// The union of an abstract type `name` over `members` (sorted, repeats dropped); a union
    /// of one member is that member.
    pub fn union(name: Name, mut members: Vec<Type>) -> Type {
        members.sort();
        members.dedup();
        match members.as_slice() {
            [one] => one.clone(),
            _ => Type::Union(Arc::new(UnionType { name, members })),
        }
    }

    /// Can a gradient be attached to a value of this type (its tangent is not `Nothing`)?
    pub fn is_differentiable(&self) -> bool {
        tangent_type(self) != Type::Nothing
    }

    /// The element type of an array, stack or adjoint vector.
    pub fn elem(&self) -> Option<&Type> {
        match self {
            Type::Array(t, _) | Type::Stack(t) | Type::Adjoint(t) | Type::Ref(t) => Some(t),
            _ => None,
        }
    }

    /// The type of field `i` (from 0) of a tuple, named tuple or struct.
    pub fn field_type(&self, i: usize) -> Option<&Type> {
        match self {
            Type::Tuple(ts) => ts.get(i),
            Type::NamedTuple(fs) => fs.get(i).map(|(_, t)| t),
            Type::Struct(s) => s.fields.get(i).map(|(_, t)| t),
            _ => None,
        }
    }

    /// The type of field `i` (from 0) of a tuple, named tuple or struct, as a value read from it
    /// has it: a recursive struct's own type in the field ([`Type::Recur`]) is the struct, and
    /// in the named tuple of such a struct's tangent, the named tuple.
    pub fn field(&self, i: usize) -> Option<Type> {
        let t = self.field_type(i)?;
        Some(match self {
            Type::Struct(s) if s.is_recursive() => refold(&unfold(t, s)),
            Type::NamedTuple(_) => unfold_tangent(t, self),
            _ => t.clone(),
        })
    }

    /// Does the type hold a [`Type::Recur`] anywhere (a struct whose shape depends on the
    /// data, which the JIT leaves to the interpreter)?
    pub fn holds_recursion(&self) -> bool {
        match self {
            Type::Recur(..) => true,
            Type::Struct(s) => {
                s.fields.iter().any(|(_, t)| t.holds_recursion())
                    || s.params.iter().any(Type::holds_recursion)
            }
            Type::Union(u) => u.members.iter().any(Type::holds_recursion),
            Type::Tuple(ts) | Type::Pullback(ts) => ts.iter().any(Type::holds_recursion),
            Type::NamedTuple(fs) => fs.iter().any(|(_, t)| t.holds_recursion()),
            Type::Ref(t) | Type::Array(t, _) | Type::Adjoint(t) | Type::Stack(t) => {
                t.holds_recursion()
            }
            _ => false,
        }
    }

    /// The number of fields of a tuple, named tuple or struct (None for other types).
    pub fn field_count(&self) -> Option<usize> {
        match self {
            Type::Tuple(ts) => Some(ts.len()),
            Type::NamedTuple(fs) => Some(fs.len()),
            Type::Struct(s) => Some(s.fields.len()),
            _ => None,
        }
    }

    /// The types of the fields of a tuple, named tuple or struct (None for other types).
    pub fn field_types(&self) -> Option<Vec<Type>> {
        match self {
            Type::Tuple(ts) => Some(ts.to_vec()),
            Type::NamedTuple(fs) => Some(fs.iter().map(|(_, t)| t.clone()).collect()),
            Type::Struct(s) => Some(s.fields.iter().map(|(_, t)| t.clone()).collect()),
            _ => None,
        }
    }
}

/// The structural tangent (gradient) type of a value of type `t`, following Zygote:
/// numbers other than `Float64` and everything without a differentiable part get `Nothing`;
/// a tuple's tangent is a tuple, a struct's or closure's a named tuple of its fields' tangents,
/// a `Ref`'s `(x = T̄,)`, an array's an array of its shape.
pub fn tangent_type(t: &Type) -> Type {
    match t {
        Type::Float64 => Type::Float64,
        // Zygote's: a Float32's gradient is a Float32 (`ProjectTo` rounds it back).
        Type::Float32 => Type::Float32,
        Type::Any => Type::Any,
        Type::Bottom => Type::Bottom,
        Type::Int64
        | Type::Int(_)
        | Type::Bool
        | Type::Nothing
        | Type::Function(_)
        | Type::Symbol(_)
        | Type::String
        | Type::SubString
        | Type::Exception
        | Type::Pullback(_)
        | Type::Param(_) => Type::Nothing,
        Type::Tuple(ts) => {
            let tans: Vec<Type> = ts.iter().map(tangent_type).collect();
            if tans.iter().all(|t| *t == Type::Nothing) {
                Type::Nothing
            } else {
                Type::Tuple(tans.into())
            }
        }
        Type::NamedTuple(fs) => named_tangent(fs.iter().map(|(n, t)| (n.clone(), t))),
        Type::Struct(s) => named_tangent(s.fields.iter().map(|(n, t)| (n.clone(), t))),
        Type::Ref(inner) => named_tangent(std::iter::once((Name::from("x"), &**inner))),
        Type::Array(e, n) => match tangent_type(e) {
            Type::Nothing => Type::Nothing,
            te => Type::Array(Arc::new(te), *n),
        },
        Type::Adjoint(e) => match tangent_type(e) {
            Type::Nothing => Type::Nothing,
            te => Type::Adjoint(Arc::new(te)),
        },
        Type::Stack(e) => match tangent_type(e) {
            Type::Nothing => Type::Nothing,
            te => Type::Stack(Arc::new(te)),
        },
        // One of the members' tangents, whichever the value is.
        Type::Union(u) => u.map(tangent_type),
        // The enclosing recursive struct's tangent, the named tuple around it
        // ([`Type::field`] unfolds it).
        Type::Recur(..) => t.clone(),
    }
}

/// The bytes a value of type `t` takes on an AD stack: numbers unboxed (a `Bool` is one byte),
/// composites as the sum of their fields, objects and closures as one pointer, `nothing` and
/// functions as nothing. The JIT stores exactly these bytes (except that it may keep a
/// pullback closure's tape in place of its pointer); both engines measure a tape by it.
pub fn packed_size(t: &Type) -> u64 {
    match t {
        Type::Float64 | Type::Int64 => 8,
        Type::Int(k) => u64::from(k.bits() / 8),
        Type::Float32 => 4,
        Type::Bool => 1,
        Type::Any
        | Type::Bottom
        | Type::Nothing
        | Type::Function(_)
        | Type::Symbol(_)
        | Type::Param(_) => 0,
        Type::Tuple(ts) => ts.iter().map(packed_size).sum(),
        Type::NamedTuple(fs) => fs.iter().map(|(_, t)| packed_size(t)).sum(),
        Type::Struct(s) if !s.mutable => s.fields.iter().map(|(_, t)| packed_size(t)).sum(),
        Type::Struct(_)
        | Type::Ref(_)
        | Type::Array(..)
        | Type::Adjoint(_)
        | Type::String
        | Type::SubString
        | Type::Exception
        | Type::Pullback(_)
        | Type::Stack(_)
        | Type::Union(_)
        | Type::Recur(..) => 8,
    }
}

fn named_tangent<'a>(fields: impl Iterator<Item = (Name, &'a Type)>) -> Type {
    let tans: Vec<(Name, Type)> = fields.map(|(n, t)| (n, tangent_type(t))).collect();
    if tans.iter().all(|(_, t)| *t == Type::Nothing) {
        Type::Nothing
    } else {
        Type::NamedTuple(tans.into())
    }
}

/// Julia's name of a type (`Vector{Float64}`, `Symbol`); the alternate form (`{:#}`), which
/// the IR text uses, also names each symbol's type (`Symbol{:a}`) so that it reads back.
impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Any => write!(f, "Any"),
            Type::Bottom => write!(f, "Union{{}}"),
            Type::Float64 => write!(f, "Float64"),
            Type::Float32 => write!(f, "Float32"),
            Type::Int64 => write!(f, "Int64"),
            Type::Int(k) => write!(f, "{k}"),
            Type::Bool => write!(f, "Bool"),
            Type::Nothing => write!(f, "Nothing"),
            Type::Tuple(ts) => {
                write!(f, "Tuple{{")?;
                comma_list(f, ts.iter())?;
                write!(f, "}}")
            }
            Type::NamedTuple(fs) => {
                write!(f, "(")?;
                for (i, (n, t)) in fs.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{n} = ")?;
                    fmt::Display::fmt(t, f)?;
                }
                if fs.len() == 1 {
                    write!(f, ",")?;
                }
                write!(f, ")")
            }
            Type::Struct(s) => fmt::Display::fmt(&**s, f),
            Type::Ref(t) => wrapped(f, "Ref{", t, "}"),
            Type::Array(t, 1) => wrapped(f, "Vector{", t, "}"),
            Type::Array(t, 2) => wrapped(f, "Matrix{", t, "}"),
            Type::Array(t, n) => wrapped(f, "Array{", t, &format!(", {n}}}")),
            Type::Adjoint(t) => {
                wrapped(f, "Adjoint{", t, ", ")?;
                wrapped(f, "Vector{", t, "}}")
            }
            Type::Function(n) => write!(f, "typeof({n})"),
            Type::Symbol(n) if f.alternate() && !n.is_empty() => write!(f, "Symbol{{:{n}}}"),
            Type::Symbol(_) => write!(f, "Symbol"),
            Type::String => write!(f, "String"),
            Type::SubString => write!(f, "SubString{{String}}"),
            Type::Exception => write!(f, "Exception"),
            Type::Pullback(ts) => {
                write!(f, "Pullback{{")?;
                comma_list(f, ts.iter())?;
                write!(f, "}}")
            }
            Type::Stack(t) => wrapped(f, "Stack{", t, "}"),
            // The IR text names the members too, so that it reads back; Julia's own union
            // (`Union{Float64, Int64}`) is its name.
            Type::Union(u) if f.alternate() && !u.is_written_out() => {
                write!(f, "Union{{var{:?}, ", &*u.name)?;
                comma_list(f, u.members.iter())?;
                write!(f, "}}")
            }
            Type::Union(u) => write!(f, "{}", u.name),
            Type::Param(v) => write!(f, "{v}"),
            Type::Recur(n, ps) if ps.is_empty() => write!(f, "{n}"),
            Type::Recur(n, ps) => {
                write!(f, "{n}{{")?;
                comma_list(f, ps.iter())?;
                write!(f, "}}")
            }
        }
    }
}

/// `before`, `t` in `f`'s form, then `after`.
fn wrapped(f: &mut fmt::Formatter<'_>, before: &str, t: &Type, after: &str) -> fmt::Result {
    f.write_str(before)?;
    fmt::Display::fmt(t, f)?;
    f.write_str(after)
}

impl fmt::Debug for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for StructType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            // The prelude's stand-in for `findfirst`'s union.
            StructKind::User if &*self.name == "Base.NothingOrInt" => {
                return f.write_str("Union{Nothing, Int64}")
            }
            // Julia's `Task` has no parameters: zy's keeps its function's and result's types.
            StructKind::User if &*self.name == "Base.Task" && !f.alternate() => {
                return f.write_str("Task")
            }
            // Julia's `Missing` (the IR text keeps the prelude's name, which reads back).
            StructKind::User if &*self.name == "Base.Missing" && !f.alternate() => {
                return f.write_str("Missing")
            }
            // Julia's 0-dimensional `Array{T, 0}` (the prelude's struct holding its element).
            StructKind::User if &*self.name == "Base.ZeroDimArray" && !f.alternate() => {
                if let [t] = self.params.as_slice() {
                    return wrapped(f, "Array{", t, ", 0}");
                }
                write!(f, "{}", self.name)?
            }
            // Julia's wrappers name their element type first (`Transpose{Float64,
            // Vector{Float64}}`); zy's prelude structs keep only the wrapped array's type.
            StructKind::User if is_array_wrapper(&self.name) => {
                if let [p @ Type::Array(e, _)] = self.params.as_slice() {
                    let bare = match &*self.name {
                        "Base.AdjointMatrix" => "Adjoint",
                        "Base.TransposeMatrix" => "Transpose",
                        name => name.rsplit('.').next().unwrap_or(name),
                    };
                    return write!(f, "{bare}{{{e}, {p}}}");
                }
                write!(f, "{}", self.name)?
            }
            // Julia's triangular wrappers and factorizations also name their element types
            // (`LowerTriangular{Float64, Matrix{Float64}}`, `Cholesky{Float64,
            // Matrix{Float64}}`); the IR text (`{:#}`) keeps the prelude's form, which reads back.
            StructKind::User if !f.alternate() => match julia_parameters(self) {
                Some(params) => {
                    // LinearAlgebra's `Q` operators are not exported: Julia names their module.
                    let bare = match &*self.name {
                        "LinearAlgebra.HessenbergQ" | "LinearAlgebra.AdjointQ" => &self.name,
                        name => name.rsplit('.').next().unwrap_or(name),
                    };
                    write!(f, "{bare}{{")?;
                    comma_list(f, params.iter())?;
                    return write!(f, "}}");
                }
                None => write!(f, "{}", self.name)?,
            },
            StructKind::User => write!(f, "{}", self.name)?,
            // Escaped as the reader's `var"..."` reads it (a `"` or `\` in a name).
            StructKind::Closure => write!(f, "var{:?}", &*self.name)?,
        }
        if !self.params.is_empty() {
            write!(f, "{{")?;
            comma_list(f, self.params.iter())?;
            write!(f, "}}")?;
        }
        Ok(())
    }
}

/// Is `name` one of the prelude's wrappers of an array that Julia parameterises by the element
/// type and the wrapped array's type?
fn is_array_wrapper(name: &str) -> bool {
    matches!(
        name,
        "Base.Transpose"
            | "Base.AdjointMatrix"
            | "Base.TransposeMatrix"
            | "LinearAlgebra.Symmetric"
            | "LinearAlgebra.Hermitian"
            | "LinearAlgebra.Diagonal"
    )
}

/// The parameters Julia gives one of the prelude's triangular wrappers (`{T, M}` of the
/// wrapped `M`) or factorizations (`Cholesky{T, M}`, `LU{T, M, P}`, `Eigen{T, V, M, C}` and
/// `GeneralizedEigen` likewise, `SVD{T, Tr, M, C}`, `Schur{T, S, C}`, `Hessenberg` and its
/// `Q`), where zy's keep only the arrays' types.
fn julia_parameters(st: &StructType) -> Option<Vec<Type>> {
    let elem = |t: &Type| match t {
        Type::Array(e, _) => Some((**e).clone()),
        _ => None,
    };
    let wrapped = |t: &Type| match t {
        Type::Struct(s) => s.params.first().cloned(),
        _ => None,
    };
    match (&*st.name, st.params.as_slice()) {
        (
            "LinearAlgebra.UpperTriangular"
            | "LinearAlgebra.LowerTriangular"
            | "LinearAlgebra.UnitUpperTriangular"
            | "LinearAlgebra.UnitLowerTriangular",
            [m],
        ) => Some(vec![elem(m)?, m.clone()]),
        ("LinearAlgebra.Cholesky", [l, _]) => {
            let m = wrapped(l)?;
            Some(vec![elem(&m)?, m])
        }
        ("LinearAlgebra.LU", [m, p]) => Some(vec![elem(m)?, m.clone(), p.clone()]),
        ("LinearAlgebra.Eigen" | "LinearAlgebra.GeneralizedEigen", [v, m]) => {
            Some(vec![elem(m)?, elem(v)?, m.clone(), v.clone()])
        }
        ("LinearAlgebra.SVD", [m, v]) => Some(vec![elem(m)?, elem(v)?, m.clone(), v.clone()]),
        ("LinearAlgebra.Schur", [s, c]) => Some(vec![elem(s)?, s.clone(), c.clone()]),
        // `HessenbergQ{T, S, W, sym}` of the reflectors' matrix `S` and scalings `W` (zy's
        // holds the orthogonal matrix), `AdjointQ{T, Q}`, and `Hessenberg{T, SH, S, W, V}`
        // with the shift's type `V` (zy's holds its `Q` and `H`).
        ("LinearAlgebra.HessenbergQ", [s]) => {
            let e = elem(s)?;
            Some(vec![
                e.clone(),
                s.clone(),
                Type::Array(e.into(), 1),
                Type::Param(ParamValue::Bool(false)),
            ])
        }
        ("LinearAlgebra.AdjointQ", [q]) => Some(vec![elem(&wrapped(q)?)?, q.clone()]),
        ("LinearAlgebra.Hessenberg", [q, h]) => {
            let s = wrapped(q)?;
            let e = elem(&s)?;
            Some(vec![
                e.clone(),
                h.clone(),
                s,
                Type::Array(e.into(), 1),
                Type::Bool,
            ])
        }
        _ => None,
    }
}

impl fmt::Debug for StructType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

fn comma_list<'a>(
    f: &mut fmt::Formatter<'_>,
    items: impl Iterator<Item = &'a Type>,
) -> fmt::Result {
    for (i, t) in items.enumerate() {
        if i > 0 {
            write!(f, ", ")?;
        }
        fmt::Display::fmt(t, f)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dense() -> Type {
        Type::Struct(Arc::new(StructType {
            name: "Dense".into(),
            params: vec![],
            fields: vec![
                ("W".into(), Type::matrix_f64()),
                ("b".into(), Type::vector_f64()),
            ],
            mutable: false,
            kind: StructKind::User,
        }))
    }

    #[test]
    fn tangent_of_struct_is_named_tuple_of_fields() {
        assert_eq!(
            tangent_type(&dense()).to_string(),
            "(W = Matrix{Float64}, b = Vector{Float64})"
        );
    }

    #[test]
    fn tangent_of_mixed_tuple_keeps_nothing_slots() {
        let t = Type::tuple([Type::Float64, Type::Int64]);
        assert_eq!(tangent_type(&t).to_string(), "Tuple{Float64, Nothing}");
        let ints = Type::tuple([Type::Int64, Type::Bool]);
        assert_eq!(tangent_type(&ints), Type::Nothing);
    }

    #[test]
    fn tangent_of_ref_and_int_array() {
        let r = Type::Ref(Arc::new(Type::Float64));
        assert_eq!(tangent_type(&r).to_string(), "(x = Float64,)");
        let v = Type::Array(Arc::new(Type::Int64), 1);
        assert_eq!(tangent_type(&v), Type::Nothing);
        assert!(!v.is_differentiable());
    }

    #[test]
    fn tangent_of_a_recursive_struct_unfolds_to_itself() {
        // struct Node; val::Float64; next::Union{Node, Nothing}; end, of any length.
        let node = StructType {
            name: "Node".into(),
            params: vec![],
            fields: vec![],
            mutable: false,
            kind: StructKind::User,
        };
        let next = Type::union(
            "Union{Nothing, Node}".into(),
            vec![Type::Nothing, node.recur()],
        );
        let node = Type::Struct(Arc::new(StructType {
            fields: vec![("val".into(), Type::Float64), ("next".into(), next)],
            ..node
        }));
        let tan = tangent_type(&node);
        assert_eq!(
            tan.to_string(),
            "(val = Float64, next = Tangent{Union{Nothing, Node}})"
        );
        // The tangent's `next` is `nothing` or the tangent itself, as the struct's is the struct.
        let Some(Type::Union(u)) = tan.field(1) else {
            panic!("{:?}", tan.field(1))
        };
        assert_eq!(u.members, vec![Type::Nothing, tan.clone()]);
        let Some(Type::Union(u)) = node.field(1) else {
            panic!("{:?}", node.field(1))
        };
        assert_eq!(u.members, vec![Type::Nothing, node]);
    }
}
