//! `SubString{String}` beside `String` in one union. Both are held as their text
//! ([`Value::Str`]), which is all a value whose type the program knows needs; a union holding
//! both must tell them apart at run time (`isa`, `typeof`, dispatch), so a `SubString` entering
//! such a union is tagged ([`Value::SubStr`]) and untagged again when a split takes it out.

use zy_ir::{Type, UnionType};

use crate::value::Value;

/// `v` converted by `union_convert` from the type `from` to `to`, tagged or untagged as `to`
/// asks: a `SubString` (or a member of a union whose only string is one) entering a union that
/// holds both strings is tagged; a tagged one leaving such a union is its text again.
pub fn tag(v: Value, from: &Type, to: &Type) -> Value {
    match v {
        Value::Str(s) if holds_both(to) && only_substrings(from) => Value::SubStr(s),
        Value::SubStr(s) if !holds_both(to) => Value::Str(s),
        v => v,
    }
}

/// The value of the member `member` of a union `u` taken from elsewhere (the JIT's slots): a
/// `SubString` tagged where `u` holds both strings.
pub fn member_value(v: Value, u: &UnionType, member: &Type) -> Value {
    match v {
        Value::Str(s) if *member == Type::SubString && union_holds_both(u) => Value::SubStr(s),
        v => v,
    }
}

/// Does the union `t` hold both a `String` and a `SubString{String}`?
pub fn holds_both(t: &Type) -> bool {
    matches!(t, Type::Union(u) if union_holds_both(u))
}

fn union_holds_both(u: &UnionType) -> bool {
    u.members.contains(&Type::String) && u.members.contains(&Type::SubString)
}

/// Is every string a value of type `t` may be a `SubString`?
fn only_substrings(t: &Type) -> bool {
    match t {
        Type::SubString => true,
        Type::Union(u) => {
            u.members.contains(&Type::SubString) && !u.members.contains(&Type::String)
        }
        _ => false,
    }
}
