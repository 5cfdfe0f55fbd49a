//! What the scope reads of a top-level binding's value: whether a call can change it in
//! place, and the module it may name (`const U = A.B`). Shared with the build script, which
//! records both for the prelude's bindings ([`crate::item`]), so that a fresh database's scope
//! does not parse them.

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

/// `A.B.C` (names and fields) as that dotted text.
pub(crate) fn dotted_name(e: &zy_syntax::ast::Expr) -> Option<String> {
    use zy_syntax::ast::ExprKind as E;
    match &e.kind {
        E::Ident(n) => Some(n.clone()),
        E::Field { base, name } => Some(format!("{}.{name}", dotted_name(base)?)),
        _ => None,
    }
}
