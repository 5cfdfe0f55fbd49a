//! What the scope reads of a top-level binding's value: whether a call can change it in
//! place, and the module it may name (`const U = A.B`); and of a struct, whether its values
//! can be changed at all. Shared with the build script, which records them for the prelude's
//! bindings and structs ([`crate::item`]), so that a fresh database's scope does not parse
//! them.

/// Is `value` a number, string, `nothing`, or a tuple of them: a value no call can change in
/// place?
pub(crate) fn immutable_value(value: &zy_syntax::ast::Expr) -> bool {
    use zy_syntax::ast::ExprKind as E;
    match &value.kind {
        E::Float(_) | E::Int(_) | E::Bool(_) | E::Nothing | E::Str(_) => true,
        E::Unary { arg, .. } => immutable_value(arg),
        E::Binary {
            dotted: false,
            lhs,
            rhs,
            ..
        } => immutable_value(lhs) && immutable_value(rhs),
        E::Fold {
            dotted: false,
            first,
            rest,
        } => immutable_value(first) && rest.iter().all(|(_, e)| immutable_value(e)),
        E::Tuple(parts) => parts.iter().all(immutable_value),
        E::NamedTuple(fields) => fields.iter().all(|(_, v)| immutable_value(v)),
        _ => false,
    }
}

/// What builds `value` if no call can change it in place: `None` if one may (an array, a
/// `Ref`, anything computed), else the callees of the struct constructions in it (none for
/// [`immutable_value`]'s values; `Missing` for `Missing()`, `Point` for `(Point(0.0, 1.0), 2)`),
/// each of which must then be a struct of [`immutable_struct`] for the value to be settled.
pub(crate) fn settled_makers(value: &zy_syntax::ast::Expr) -> Option<Vec<String>> {
    let mut makers = Vec::new();
    built_of_settled(value, &mut makers).then_some(makers)
}

/// Is `value` made of [`immutable_value`]s by calls (their callees pushed on `makers`),
/// tuples and named tuples?
fn built_of_settled(value: &zy_syntax::ast::Expr, makers: &mut Vec<String>) -> bool {
    use zy_syntax::ast::ExprKind as E;
    match &value.kind {
        E::Call { callee, args } => match dotted_name(callee) {
            Some(name) => {
                makers.push(name);
                args.iter().all(|a| built_of_settled(a, makers))
            }
            None => false,
        },
        E::Tuple(parts) => parts.iter().all(|p| built_of_settled(p, makers)),
        E::NamedTuple(fields) => fields.iter().all(|(_, v)| built_of_settled(v, makers)),
        _ => immutable_value(value),
    }
}

/// Can no call change a value of the struct `def` in place, nor anything it holds: it is
/// immutable and each field is declared a number, string, symbol, `missing` or `nothing` (or
/// a type parameter bounded by a number type), or it has none (`struct Missing end`)?
pub(crate) fn immutable_struct(def: &zy_syntax::ast::StructDef) -> bool {
    use zy_syntax::ast::TypeExpr;
    const SCALARS: &[&str] = &[
        "Float64",
        "Float32",
        "Int",
        "Int64",
        "Int32",
        "Int16",
        "Int8",
        "UInt",
        "UInt64",
        "UInt32",
        "UInt16",
        "UInt8",
        "Int128",
        "UInt128",
        "Bool",
        "Char",
        "String",
        "Symbol",
        "Missing",
        "Nothing",
        "Real",
        "Number",
        "Integer",
        "AbstractFloat",
        "Signed",
        "Unsigned",
    ];
    let scalar = |t: &TypeExpr| {
        matches!(t, TypeExpr::Named { name, params, .. }
        if params.is_empty() && SCALARS.contains(&name.as_str()))
    };
    let bounded = |name: &str| {
        def.param_bounds
            .iter()
            .any(|(p, bound)| p == name && scalar(bound))
    };
    !def.mutable
        && !def.is_abstract
        && def.fields.iter().all(|f| match &f.ty {
            Some(t @ TypeExpr::Named { name, params, .. }) => {
                scalar(t) || (params.is_empty() && bounded(name))
            }
            _ => false,
        })
}

/// `A.B.C` (names and fields) as that dotted text.
pub(crate) fn dotted_name(e: &zy_syntax::ast::Expr) -> Option<String> {
    use zy_syntax::ast::ExprKind as E;
    match &e.kind {
        E::Ident(n) => Some(n.clone()),
        E::Field { base, name } => Some(format!("{}.{name}", dotted_name(base)?)),
        _ => None,
    }
}
