//! Joins of types where control flow merges (φ nodes, return values).

use zy_ir::{StructKind, Type};

use crate::MAX_TYPE_PARTS;

/// The join of two types: equal types join to themselves, `Bottom` is the identity, `Int64`
/// with `Float64` (`c > 0 ? 5.0 : 5`, `s = 0` before `s += x[i]`) gives Julia's
/// `Union{Float64, Int64}`, `Bool` with another number that number (where Julia keeps
/// `Union{Bool, T}`, as [`plain_numbers`] makes of `Bool`, `Int64` and `Float64`); a union
/// joins with any of its members to itself.
/// `nothing` and values of the program's structs join as [`unions`] says, numbers, `nothing`
/// and arrays of numbers as [`numbers_or_arrays`] says. `None` is a conflict.
pub(crate) fn join(a: &Type, b: &Type) -> Option<Type> {
    join_with(a, b, true)
}

/// [`join`] where structs of different types join only where one holds the other, not as two
/// kinds of node over a third: a call split over a union looks for their abstract type first
/// (Julia's `promote_typejoin`).
pub(crate) fn join_holding(a: &Type, b: &Type) -> Option<Type> {
    join_with(a, b, false)
}

fn join_with(a: &Type, b: &Type, siblings: bool) -> Option<Type> {
    match (a, b) {
        _ if a == b => Some(a.clone()),
        (Type::Bottom, t) | (t, Type::Bottom) => Some(t.clone()),
        (Type::Int64, Type::Float64) | (Type::Float64, Type::Int64) => Some(numbers(a, b)),
        (Type::Union(u), t) | (t, Type::Union(u)) if u.members.contains(t) => {
            Some(Type::Union(u.clone()))
        }
        _ if data_types(a, b).is_some() => data_types(a, b),
        _ if plain_numbers(a, b).is_some() => plain_numbers(a, b),
        (Type::Bool, t) | (t, Type::Bool) if t.is_number() => Some(t.clone()),
        (Type::Union(_), Type::Union(_)) if crate::open::join(a, b).is_some() => {
            crate::open::join(a, b)
        }
        // A value of `Any` on one path (a caught exception's field, a `Vector{Any}`'s
        // element) and one it can hold on another (of Julia's union too: an element of the
        // `Vector{Union{Float64, Int64}}` a `map` of no values gives): a value of `Any` still.
        (Type::Union(u), t) | (t, Type::Union(u))
            if crate::open::is_open(&u.name) && !matches!(t, Type::Union(v) if !v.is_julias()) =>
        {
            crate::open::open_union(&u.name, &[a.clone(), b.clone()])
        }
        _ => unions(&[a.clone(), b.clone()], siblings)
            .or_else(|| numbers_or_arrays(a, b))
            .or_else(|| factorizations(a, b))
            .or_else(|| numbers_or_strings(a, b))
            .or_else(|| missing_or(&[a.clone(), b.clone()]))
            .or_else(|| tuples_of_numbers(a, b))
            .or_else(|| values(a, b)),
    }
}

/// Julia's union of plain values of different types that no rule above joins: arrays of
/// different element types (`[]` on one path, an `Int[]` filled on another: `Union{Vector{Any},
/// Vector{Int64}}`), a `UInt8` and an `Int64`, tuples of such values (`(nothing, [])` beside
/// `(n, [[1, 2]])`), with numbers, strings, symbols and `nothing` beside them: each use splits
/// on the member held, as for `Union{Float64, Int64}`. A `String` beside a `SubString{String}`
/// is such a union too: the engines hold both as their text, and tag the `SubString` that
/// enters it (the interpreter's `substring`, the JIT's union tag). `None` where a member is
/// another kind of value (a struct, a function, a pullback), and where the two strings would
/// meet inside arrays or tuples, which hold no such tag (`isa SubString` would answer wrongly).
fn values(a: &Type, b: &Type) -> Option<Type> {
    fn plain(t: &Type) -> bool {
        match t {
            Type::Float64 | Type::Float32 | Type::Int64 | Type::Int(_) | Type::Bool => true,
            Type::Nothing | Type::String | Type::SubString | Type::Symbol(_) => true,
            Type::Array(e, _) => {
                plain(e)
                    || matches!(&**e, Type::Union(u) if crate::open::is_open(&u.name) || u.is_julias())
            }
            Type::Tuple(ts) => ts
                .iter()
                .all(|t| plain(t) || matches!(t, Type::Union(u) if u.is_julias())),
            _ => false,
        }
    }
    let mut members = union_members(a, b);
    fn strings(t: &Type, found: &mut [bool; 2]) {
        match t {
            Type::String => found[0] = true,
            Type::SubString => found[1] = true,
            Type::Array(e, _) => strings(e, found),
            Type::Tuple(ts) => ts.iter().for_each(|t| strings(t, found)),
            Type::Union(u) => u.members.iter().for_each(|t| strings(t, found)),
            _ => {}
        }
    }
    if !members.iter().all(plain) {
        return None;
    }
    let mut nested = [false; 2];
    members
        .iter()
        .filter(|t| !t.is_string())
        .for_each(|t| strings(t, &mut nested));
    let top = [
        members.contains(&Type::String),
        members.contains(&Type::SubString),
    ];
    if nested.contains(&true) && (nested[0] || top[0]) && (nested[1] || top[1]) {
        return None;
    }
    members.sort();
    members.dedup();
    // Two symbols known at compile time (`:pos` beside `:neg`) are one member, `Symbol`, which
    // no union holds: a conflict, as before.
    if members.len() < 2 {
        return None;
    }
    Some(nothing_first_union(members))
}

/// Julia's union of tuples of numbers that differ in their types (`minmax(3, 2.5)`, which is
/// `(2.5, 3)` or `(3, 2.5)` by the values: `Union{Tuple{Float64, Int64}, Tuple{Int64,
/// Float64}}`), or of such unions: each use splits on the member held.
fn tuples_of_numbers(a: &Type, b: &Type) -> Option<Type> {
    let mut members = Vec::new();
    for t in [a, b] {
        match t {
            Type::Union(u) if u.is_julias() => members.extend(u.members.iter().cloned()),
            t => members.push(t.clone()),
        }
    }
    let numbers = |t: &Type| {
        matches!(t, Type::Tuple(ts) if !ts.is_empty()
            && ts.iter().all(|e| matches!(e, Type::Float64 | Type::Int64 | Type::Bool)))
    };
    if !members.iter().all(numbers) {
        return None;
    }
    Some(sorted_union(members))
}

/// Types as values on two paths (`typeof(e)` of a caught exception in a `catch`, `Nothing` in
/// the `try`; `c ? Int : Float64`), one of them a union of them or both named as types are
/// (Julia's `DataType`): the union of them all, the one held known at run time.
fn data_types(a: &Type, b: &Type) -> Option<Type> {
    let members = |t: &Type| match t {
        Type::Union(u) if &*u.name == "DataType" => Some(u.members.clone()),
        Type::Function(_) => Some(vec![t.clone()]),
        _ => None,
    };
    let named_types = matches!((a, b), (Type::Function(x), Type::Function(y))
        if crate::error::names_type(x) && crate::error::names_type(y));
    if !named_types && !matches!((a, b), (Type::Union(_), _) | (_, Type::Union(_))) {
        return None;
    }
    let mut all = members(a)?;
    all.extend(members(b)?);
    Some(Type::union("DataType".into(), all))
}

/// Julia's `Union{Missing, T}` of `missing` and numbers (`[1.0, missing]`, `x > 0 ? x :
/// missing`, a comparison of an element of such an array: `Union{Missing, Bool}`), or of two
/// such unions, `nothing` among them too (`Union{Missing, Nothing, Float64}`). `None` unless
/// `missing` is among them and every other member is a number or `nothing`.
pub(crate) fn missing_or(types: &[Type]) -> Option<Type> {
    let mut members = Vec::new();
    for t in types {
        match t {
            Type::Union(u) if u.name.starts_with("Union{") => members.extend(u.members.clone()),
            t => members.push(t.clone()),
        }
    }
    let absent = |t: &Type| t.is_missing() || *t == Type::Nothing;
    if !members.iter().any(Type::is_missing) || !members.iter().all(|t| absent(t) || t.is_number())
    {
        return None;
    }
    members.sort();
    members.dedup();
    let mut names: Vec<String> = members
        .iter()
        .filter(|t| !absent(t))
        .map(ToString::to_string)
        .collect();
    names.sort();
    // Julia orders the singletons first: `Union{Missing, Nothing, Float64}`.
    if members.contains(&Type::Nothing) {
        names.insert(0, "Nothing".into());
    }
    names.insert(0, "Missing".into());
    Some(named_union(&names, members))
}

/// Julia's union of a number and an array of numbers (`rho = n > 2 ? sum(x) : x`, a
/// `Union{Float64, Vector{Float64}}`), with `nothing` too (an `if` without `else`), a `Bool`
/// or a `String` (a `try` giving an array whose `catch` tests the exception or gives a
/// message), a type as a value (`typeof(e)` there: Julia's `DataType`), or of two such
/// unions: each use splits on the member held, as for `Union{Float64, Int64}`. A
/// `ComplexF64` is such a number, an array of them such an array: `eigvals` of a real matrix
/// is a `Vector{Float64}` or a `Vector{ComplexF64}` by its values, and an element of it a
/// `Float64` or a `ComplexF64`.
fn numbers_or_arrays(a: &Type, b: &Type) -> Option<Type> {
    let mut members = Vec::new();
    for t in [a, b] {
        match t {
            Type::Union(u) if u.is_julias() || &*u.name == "DataType" => {
                members.extend(u.members.iter().cloned())
            }
            t => members.push(t.clone()),
        }
    }
    let complex_f64 = |t: &Type| matches!(t, Type::Struct(s) if &*s.name == "Base.Complex" && s.params[..] == [Type::Float64]);
    let array = |t: &Type| matches!(t, Type::Array(e, _) if e.is_number() || complex_f64(e));
    let plain = |t: &Type| {
        matches!(
            t,
            Type::Float64
                | Type::Int64
                | Type::Bool
                | Type::String
                | Type::Nothing
                | Type::Function(_)
        ) || complex_f64(t)
    };
    if !members.iter().all(|t| plain(t) || array(t))
        || !members.iter().any(|t| array(t) || complex_f64(t))
    {
        return None;
    }
    members.sort();
    members.dedup();
    // Julia shows `nothing` first, then numbers, then arrays.
    // Types as values are Julia's `DataType`.
    let shown_name = |t: &Type| match t {
        Type::Function(_) => "DataType".to_string(),
        t => t.to_string(),
    };
    let rank = |t: &Type| (*t != Type::Nothing, array(t), shown_name(t));
    let mut shown = members.clone();
    shown.sort_by_key(rank);
    let mut names: Vec<String> = shown.iter().map(shown_name).collect();
    names.dedup();
    Some(named_union(&names, members))
}

/// Julia's union of the factorizations a function of a matrix's values may return: `eigen` of
/// a real matrix (`Eigen` of real or of complex values, decided by them; `schur`'s `Schur`
/// and `eigen(A, B)`'s `GeneralizedEigen` likewise), `factorize` (a `Diagonal`, `Bidiagonal`, triangular wrapper, `Cholesky` or `LU`
/// by the matrix's structure, the entry of a 1×1 matrix), or two such unions. `None` unless
/// every member is one of these LinearAlgebra structs or a `Float64`, and one is a struct.
fn factorizations(a: &Type, b: &Type) -> Option<Type> {
    const NAMES: &[&str] = &[
        "LinearAlgebra.Eigen",
        "LinearAlgebra.GeneralizedEigen",
        "LinearAlgebra.Diagonal",
        "LinearAlgebra.Bidiagonal",
        "LinearAlgebra.LowerTriangular",
        "LinearAlgebra.UpperTriangular",
        "LinearAlgebra.Cholesky",
        "LinearAlgebra.LU",
        "LinearAlgebra.Schur",
    ];
    let factor = |t: &Type| matches!(t, Type::Struct(s) if NAMES.contains(&&*s.name));
    let mut members = Vec::new();
    for t in [a, b] {
        match t {
            Type::Union(u) if u.members.iter().any(factor) => {
                members.extend(u.members.iter().cloned())
            }
            t => members.push(t.clone()),
        }
    }
    if !members.iter().any(factor) || !members.iter().all(|t| factor(t) || *t == Type::Float64) {
        return None;
    }
    Some(sorted_union(members))
}

/// Julia's union of numbers and strings or symbols (`x > 0 ? "pos" : 0`, a `try` giving an
/// Int and its `catch` a message, or a number and `:failed`), with `nothing` too:
/// `Union{Int64, String}`, `Union{Float64, Symbol}`, each use split on the member held. `None`
/// unless a string or symbol and a number are among them and every other member is a number,
/// a string, a symbol or `nothing`.
fn numbers_or_strings(a: &Type, b: &Type) -> Option<Type> {
    let mut members = union_members(a, b);
    let number = |t: &Type| matches!(t, Type::Float64 | Type::Int64 | Type::Bool);
    let string = |t: &Type| matches!(t, Type::String | Type::SubString | Type::Symbol(_));
    if !members.iter().any(number)
        || !members.iter().any(string)
        || !members
            .iter()
            .all(|t| number(t) || string(t) || *t == Type::Nothing)
    {
        return None;
    }
    members.sort();
    members.dedup();
    Some(nothing_first_union(members))
}

/// The members of a union of `a` and `b`: the members of a Julia union among them, and a
/// symbol as any `Symbol` (one among other values is known at run time, the member held told
/// by its type, and every symbol's is `Symbol`).
fn union_members(a: &Type, b: &Type) -> Vec<Type> {
    let mut members = Vec::new();
    for t in [a, b] {
        match t {
            Type::Union(u) if u.is_julias() => members.extend(u.members.iter().cloned()),
            Type::Symbol(_) => members.push(Type::any_symbol()),
            t => members.push(t.clone()),
        }
    }
    members
}

/// Julia's union of `members` (sorted, without repeats), named as Julia shows it: `Nothing`
/// first, then the others by name.
fn nothing_first_union(members: Vec<Type>) -> Type {
    let mut names: Vec<String> = members
        .iter()
        .filter(|t| **t != Type::Nothing)
        .map(ToString::to_string)
        .collect();
    names.sort();
    if members.contains(&Type::Nothing) {
        names.insert(0, "Nothing".into());
    }
    named_union(&names, members)
}

/// Is `t` a union [`numbers_or_strings`] makes?
pub(crate) fn strings_or_numbers(t: &Type) -> bool {
    matches!(t, Type::Union(u) if u.is_julias()
        && u.members.iter().any(|m| matches!(m, Type::String | Type::SubString))
        && u.members.iter().any(Type::is_number))
}

/// The join of `nothing` and values of the program's structs (and Julia's unions of them):
/// Julia's union of their types. `nothing` joins with any type [`joins_nothing`] accepts
/// (`Union{Nothing, T}`), where values of one struct type of different shapes, one holding the
/// other (a list of one node and one of two), are the struct's recursive type
/// ([`crate::recursive::recursive`]). Structs of different types join where they are nodes of
/// one structure: one holds the other (a leaf and an inner node of a tree, `Union{Leaf,
/// Split}`), or (where `siblings_join` allows) both hold one kind of node (`Add` and `Mul` over
/// `Leaf`); others are a conflict, or their abstract type where the caller looks for one.
fn unions(types: &[Type], siblings_join: bool) -> Option<Type> {
    let mut members = Vec::new();
    for t in types {
        match t {
            Type::Union(u) if u.name.starts_with("Union{") => members.extend(u.members.clone()),
            t => members.push(t.clone()),
        }
    }
    // `missing` is a list's end as `nothing` is, beside the program's nodes
    // (`Union{Missing, Node}`); beside numbers it is [`missing_or`]'s.
    let ends_list = members.iter().any(is_node);
    let absent = |t: &Type| *t == Type::Nothing || ends_list && t.is_missing();
    if !members.iter().all(|t| absent(t) || joins_nothing(t)) {
        return None;
    }
    members.sort();
    members.dedup();
    let mut joined: Vec<Type> = Vec::new();
    for m in &members {
        let Type::Struct(s) = m else {
            joined.push(m.clone());
            continue;
        };
        let same: Vec<Type> = members
            .iter()
            .filter(|o| matches!(o, Type::Struct(t) if s.is(&t.name, &t.params)))
            .cloned()
            .collect();
        joined.push(match same.as_slice() {
            [one] => one.clone(),
            _ => crate::recursive::recursive(&same).or_else(|| one_struct(&same))?,
        });
    }
    joined.sort();
    joined.dedup();
    let others: Vec<&Type> = joined.iter().filter(|t| !absent(t)).collect();
    let related = others.len() < 2
        || others.iter().all(|t| is_node(t))
            && others.iter().any(|t| {
                t.holds_recursion()
                    || others
                        .iter()
                        .any(|o| o != t && (holds(t, o) || siblings_join && siblings(t, o)))
            });
    if !related {
        return None;
    }
    let mut names: Vec<String> = others.iter().map(ToString::to_string).collect();
    names.sort();
    if joined.contains(&Type::Nothing) {
        names.insert(0, "Nothing".into());
    }
    if joined.iter().any(Type::is_missing) {
        names.insert(0, "Missing".into());
    }
    Some(named_union(&names, joined))
}

/// Values of one immutable struct type whose fields hold values of different types: a field
/// declared with one of Julia's abstract types or untyped (`x::Real` holding a `Float64` in one
/// `P` and an `Int64` in another), where Julia's struct is one type and stores each value with
/// its own. The struct whose fields are the joins of theirs (`Union{Float64, Int64}`); `None`
/// where a field's types do not join to a union of numbers (a `Vector` in one and an `Int64`
/// in another), or for a mutable struct (whose values are shared, which a conversion to the
/// joined type would copy).
pub(crate) fn one_struct(shapes: &[Type]) -> Option<Type> {
    let (Type::Struct(first), rest) = shapes.split_first()? else {
        return None;
    };
    if first.mutable {
        return None;
    }
    let mut fields = first.fields.clone();
    for t in rest {
        let Type::Struct(s) = t else {
            return None;
        };
        if !first.is(&s.name, &s.params) || s.mutable || s.fields.len() != fields.len() {
            return None;
        }
        for ((_, a), (_, b)) in fields.iter_mut().zip(&s.fields) {
            let j = join(a, b)?;
            // The AD and the JIT hold a struct's union field of numbers only.
            if *a != j && !matches!(&j, Type::Union(u) if u.members.iter().all(Type::is_number)) {
                return None;
            }
            *a = j;
        }
    }
    Some(Type::Struct(std::sync::Arc::new(zy_ir::StructType {
        fields,
        ..(**first).clone()
    })))
}

/// Is a value of type `t` one that may be `nothing` on another path, joining with it to
/// Julia's `Union{Nothing, T}`: a number (`tryparse`), a tuple (`iterate`), a string, a range
/// (`findfirst` of a string), a Cartesian index (`findfirst` of a matrix), a table (a search
/// that returns a `Dict` or a `Set` it found, `nothing` where it finds none), or a node: a
/// value of one of the program's structs (`l = nothing` before `l = Node(x, l)`), or a
/// recursive struct's own type inside its fields?
fn joins_nothing(t: &Type) -> bool {
    match t {
        Type::Tuple(ts) => !ts.is_empty(),
        Type::Struct(s)
            if matches!(
                &*s.name,
                "Base.UnitRange"
                    | "Base.RegexMatch"
                    | "Base.CartesianIndex"
                    | "Base.Dict"
                    | "Base.Set"
            ) =>
        {
            true
        }
        // `err = nothing` before a `catch e` that keeps `err = e`.
        Type::Exception => true,
        t => t.is_number() || t.is_string() || is_node(t),
    }
}

/// Is `t` a value of one of the program's own structs, or a recursive struct's own type
/// inside its fields?
fn is_node(t: &Type) -> bool {
    match t {
        Type::Struct(s) => s.kind == StructKind::User && !crate::calls::is_library(&s.name),
        t => matches!(t, Type::Recur(..)),
    }
}

/// Does a field of the struct `t` (at any depth) hold a value of `other`'s struct type?
fn holds(t: &Type, other: &Type) -> bool {
    let (Type::Struct(s), Type::Struct(o)) = (t, other) else {
        return false;
    };
    s.fields.iter().any(|(_, f)| match f {
        Type::Struct(f) if o.is(&f.name, &f.params) => true,
        Type::Union(u) => u.members.iter().any(|m| m == other || holds(m, other)),
        f => holds(f, other),
    })
}

/// Do the structs `t` and `o` both hold (in a field, at any depth) a value of one struct type:
/// two kinds of inner node of one tree (`Add(Leaf, Leaf)` and `Mul(Leaf, Leaf)`)?
fn siblings(t: &Type, o: &Type) -> bool {
    let (Type::Struct(s), Type::Struct(_)) = (t, o) else {
        return false;
    };
    s.fields.iter().any(|(_, f)| match f {
        Type::Struct(_) => holds(o, f),
        Type::Union(u) => u.members.iter().any(|m| holds(o, m)),
        _ => false,
    })
}

/// Is a value of type `from` one of `to` without being `to` or a member of it: a union of
/// some of its members (`Union{Leaf, Split}` where `Union{Nothing, Leaf, Split}` is held), or
/// a struct of a fixed shape where its recursive type is held, or where the struct of one
/// name whose fields are their joins is (`Mul(Leaf, Leaf)` where `Mul(a::Union{Add, Leaf},
/// ...)` is)? It needs no conversion but its type's.
pub(crate) fn widens(from: &Type, to: &Type) -> bool {
    let same_struct =
        matches!((from, to), (Type::Struct(a), Type::Struct(b)) if a.is(&b.name, &b.params));
    from != to
        && (matches!(to, Type::Union(_)) || to.holds_recursion() || same_struct)
        && join(from, to).as_ref() == Some(to)
}

/// Julia's `Union{Nothing, T}`.
pub(crate) fn nothing_or(t: &Type) -> Type {
    Type::union(
        format!("Union{{Nothing, {t}}}").as_str().into(),
        vec![Type::Nothing, t.clone()],
    )
}

/// Julia's union of `Bool` and `Int64` or `Float64` (`x > 0 ? 1 : true`), or of such unions
/// (`Union{Bool, Float64, Int64}`): each value keeps its own type, a `Bool` printing `true`,
/// not `1`. `None` unless `Bool` is among them and every member is one of the three.
fn plain_numbers(a: &Type, b: &Type) -> Option<Type> {
    let mut members = Vec::new();
    for t in [a, b] {
        match t {
            Type::Union(u) if u.is_julias() => members.extend(u.members.iter().cloned()),
            t => members.push(t.clone()),
        }
    }
    let plain = |t: &Type| matches!(t, Type::Bool | Type::Int64 | Type::Float64);
    if !members.contains(&Type::Bool) || !members.iter().all(plain) {
        return None;
    }
    members.sort();
    members.dedup();
    if members.len() < 2 {
        return None;
    }
    let mut names: Vec<String> = members.iter().map(ToString::to_string).collect();
    names.sort();
    Some(named_union(&names, members))
}

/// Julia's union of two different number types, shown with its members in Julia's order
/// (`Union{Float64, Int64}`).
fn numbers(a: &Type, b: &Type) -> Type {
    let mut names = [a.to_string(), b.to_string()];
    names.sort();
    let name = format!("Union{{{}, {}}}", names[0], names[1]);
    Type::union(name.as_str().into(), vec![a.clone(), b.clone()])
}

/// The primitive that converts a value of type `from` into `to` after a join, if one is needed.
pub(crate) fn conversion(from: &Type, to: &Type) -> Option<zy_ir::Prim> {
    match (from, to) {
        (Type::Int64 | Type::Bool, Type::Float64) => Some(zy_ir::Prim::Float),
        (Type::Bool, Type::Int64) => Some(zy_ir::Prim::ToInt),
        (t, Type::Union(u)) if u.members.contains(t) => Some(zy_ir::Prim::UnionConvert),
        _ if widens(from, to) => Some(zy_ir::Prim::UnionConvert),
        _ => None,
    }
}

/// Does `t` hold at most [`MAX_TYPE_PARTS`] types, each counted where it occurs (a tuple of
/// two scalars has three)? Stops counting there, so it costs no more on a type that doubles
/// at every level (`((x, x), (x, x))`), whose [`depth`] would walk every part.
pub(crate) fn within_parts(t: &Type) -> bool {
    fn walk(t: &Type, left: &mut usize) -> bool {
        let Some(l) = left.checked_sub(1) else {
            return false;
        };
        *left = l;
        match t {
            Type::Tuple(ts) | Type::Pullback(ts) => ts.iter().all(|t| walk(t, left)),
            Type::NamedTuple(fs) => fs.iter().all(|(_, t)| walk(t, left)),
            Type::Struct(s) => {
                s.fields.iter().all(|(_, t)| walk(t, left))
                    && s.params.iter().all(|t| walk(t, left))
            }
            Type::Union(u) => u.members.iter().all(|t| walk(t, left)),
            Type::Ref(t) | Type::Array(t, _) | Type::Adjoint(t) | Type::Stack(t) => walk(t, left),
            _ => true,
        }
    }
    let mut left = MAX_TYPE_PARTS;
    walk(t, &mut left)
}

/// How deeply `t` nests (a scalar is 1).
pub(crate) fn depth(t: &Type) -> usize {
    let inner = match t {
        Type::Tuple(ts) | Type::Pullback(ts) => ts.iter().map(depth).max().unwrap_or(0),
        Type::NamedTuple(fs) => fs.iter().map(|(_, t)| depth(t)).max().unwrap_or(0),
        Type::Struct(s) => {
            let f = s.fields.iter().map(|(_, t)| depth(t)).max().unwrap_or(0);
            f.max(s.params.iter().map(depth).max().unwrap_or(0))
        }
        Type::Ref(t) | Type::Array(t, _) | Type::Adjoint(t) | Type::Stack(t) => depth(t),
        // A type as a value nests as its name does (`typeof(typeof(Int64))`).
        Type::Function(n) => n.chars().filter(|c| matches!(c, '(' | '{')).count(),
        _ => 0,
    };
    inner + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn different_numbers_join_to_julias_union() {
        let u = join(&Type::Int64, &Type::Float64);
        assert_eq!(
            u.as_ref().map(|t| t.to_string()).as_deref(),
            Some("Union{Float64, Int64}")
        );
        assert_eq!(u, join(&Type::Float64, &Type::Int64));
        assert_eq!(
            join(&Type::Bool, &Type::Int64).map(|t| t.to_string()),
            Some("Union{Bool, Int64}".to_string())
        );
        assert_eq!(
            join(&u.clone().unwrap(), &Type::Bool).map(|t| t.to_string()),
            Some("Union{Bool, Float64, Int64}".to_string())
        );
        assert_eq!(
            join(&u.unwrap(), &Type::Int64),
            join(&Type::Int64, &Type::Float64)
        );
        assert_eq!(
            join(&Type::Bottom, &Type::vector_f64()),
            Some(Type::vector_f64())
        );
        // A number on one path and an array of numbers on another: Julia's union.
        assert_eq!(
            join(&Type::Int64, &Type::vector_f64()).map(|t| t.to_string()),
            Some("Union{Int64, Vector{Float64}}".to_string())
        );
        // A `try` giving an array whose `catch` gives a message, a test or the exception's type.
        assert_eq!(
            join(&Type::String, &Type::vector_f64()).map(|t| t.to_string()),
            Some("Union{String, Vector{Float64}}".to_string())
        );
        assert_eq!(
            join(&Type::vector_f64(), &Type::Bool).map(|t| t.to_string()),
            Some("Union{Bool, Vector{Float64}}".to_string())
        );
        let types = Type::union(
            "DataType".into(),
            vec![
                Type::Function("BoundsError".into()),
                Type::Function("DomainError".into()),
            ],
        );
        assert_eq!(
            join(&types, &Type::vector_f64()).map(|t| t.to_string()),
            Some("Union{DataType, Vector{Float64}}".to_string())
        );
        assert_eq!(
            join(&types, &Type::Function("Nothing".into())),
            Some(Type::union(
                "DataType".into(),
                vec![
                    Type::Function("BoundsError".into()),
                    Type::Function("DomainError".into()),
                    Type::Function("Nothing".into()),
                ],
            ))
        );
        // Plain values of other kinds: Julia's union too (`[]` on one path, an `Int` vector on
        // another); a function beside them is a conflict.
        assert_eq!(
            join(&Type::tuple([Type::Float64]), &Type::Float64).map(|t| t.to_string()),
            Some("Union{Float64, Tuple{Float64}}".to_string())
        );
        let any = crate::open::open_union("Any", &[]).map(|e| Type::Array(e.into(), 1));
        assert_eq!(
            any.and_then(|a| join(&a, &Type::Array(Type::Int64.into(), 1)))
                .map(|t| t.to_string()),
            Some("Union{Vector{Any}, Vector{Int64}}".to_string())
        );
        assert_eq!(join(&Type::Function("sin".into()), &Type::Float64), None);
        // Real or complex eigenvalues: a union of the two vectors, and of their elements.
        let c = Type::Struct(std::sync::Arc::new(zy_ir::StructType {
            name: "Base.Complex".into(),
            params: vec![Type::Float64],
            fields: vec![("re".into(), Type::Float64), ("im".into(), Type::Float64)],
            mutable: false,
            kind: StructKind::User,
        }));
        let vc = Type::Array(std::sync::Arc::new(c.clone()), 1);
        assert_eq!(
            join(&Type::vector_f64(), &vc).map(|t| t.to_string()),
            Some("Union{Vector{Base.Complex{Float64}}, Vector{Float64}}".to_string())
        );
        assert_eq!(
            join(&c, &Type::Float64).map(|t| t.to_string()),
            Some("Union{Base.Complex{Float64}, Float64}".to_string())
        );
        // A number, or the symbol a `catch` gives: `Union{Float64, Symbol}`, symbols of
        // different names one member, a symbol known at run time.
        let failed = join(&Type::Float64, &Type::Symbol("failed".into()));
        assert_eq!(
            failed.as_ref().map(|t| t.to_string()).as_deref(),
            Some("Union{Float64, Symbol}")
        );
        assert_eq!(
            join(&failed.unwrap(), &Type::Symbol("skipped".into())).map(|t| t.to_string()),
            Some("Union{Float64, Symbol}".to_string())
        );
        let t = Type::tuple([Type::tuple([Type::Float64])]);
        assert_eq!(depth(&t), 3);
    }
}

/// The union of `members`, sorted and without repeats, named by its members' names in order.
fn sorted_union(mut members: Vec<Type>) -> Type {
    members.sort();
    members.dedup();
    let mut names: Vec<String> = members.iter().map(ToString::to_string).collect();
    names.sort();
    named_union(&names, members)
}

/// The union of `members` shown as `Union{names...}`, in the order given.
fn named_union(names: &[String], members: Vec<Type>) -> Type {
    let name = format!("Union{{{}}}", names.join(", "));
    Type::union(name.as_str().into(), members)
}
