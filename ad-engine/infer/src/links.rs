//! Untyped fields of a mutable struct that link its values into a list, read from how the
//! program uses them: `next` of `mutable struct Node; val; next; end`, built holding `missing`
//! (an inner constructor's default, `Node(val, next = missing) = new(val, next)`) and assigned
//! another node later (`p.next = q`). Julia stores each value with its own type; zy gives such
//! a field the union of the end marker and the struct itself (`Union{Missing, Node}`), which
//! every value of the struct shares wherever it was built.

use zy_ir::{Const, Function, Op, Operand, Program, StructDef, Type, Value, NEW};

/// The value (`missing` or `nothing`) that ends a list through the untyped field `k` of the
/// mutable struct `def`: the program builds a `def` holding it there (or, where it builds
/// none so, assigns it to a field of that name: `p.next = missing`), and also assigns the
/// field a value it computes (`p.next = q`; a literal number or string is no node). `None` for
/// a field used otherwise, or ended by both values.
pub(crate) fn end_marker(program: &Program, def: &StructDef, k: usize) -> Option<Type> {
    let (field, _) = def.fields.get(k)?;
    // The ends the program builds a `def` with, and those it assigns to a field of the name
    // (of this struct or another).
    let (mut built, mut assigned) = (Vec::new(), Vec::new());
    let mut relinked = false;
    let bodies = program
        .functions
        .values()
        .filter(|gf| !crate::calls::is_library(&gf.name))
        .flat_map(|gf| gf.methods.iter().map(|m| &m.body));
    for body in bodies {
        for i in 0..body.values.len() {
            let Some(stmt) = body.stmt(Value(i as u32)) else {
                continue;
            };
            let Op::Call(n) = &stmt.op else {
                continue;
            };
            let (ends, stored) = match (&**n, stmt.args.as_slice()) {
                ("setfield!" | "Base.setproperty!", [_, Operand::Const(Const::Symbol(s)), v])
                    if s == field =>
                {
                    let end = end_of(body, v);
                    relinked |= end.is_none() && !matches!(v, Operand::Const(_));
                    (&mut assigned, end)
                }
                (n, args) if n == &*def.name => {
                    (&mut built, args.get(k).and_then(|v| end_of(body, v)))
                }
                (NEW, [s, args @ ..]) if names(body, s, def) => {
                    (&mut built, args.get(k).and_then(|v| end_of(body, v)))
                }
                _ => continue,
            };
            if let Some(end) = stored {
                if !ends.contains(&end) {
                    ends.push(end);
                }
            }
        }
    }
    let ends = if built.is_empty() { assigned } else { built };
    let [end] = ends.as_slice() else {
        return None;
    };
    let missing = || crate::dispatch::struct_instance(program, &"Base.Missing".into(), Vec::new());
    match end {
        End::Nothing if relinked => Some(Type::Nothing),
        End::Missing if relinked => missing(),
        _ => None,
    }
}

/// The two values that end a list.
#[derive(PartialEq)]
enum End {
    Nothing,
    Missing,
}

/// Which end of a list the operand `v` of `body` is, if either.
fn end_of(body: &Function, v: &Operand) -> Option<End> {
    match v {
        Operand::Const(Const::Nothing) => Some(End::Nothing),
        Operand::Value(v) => match body.stmt(*v).map(|s| &s.op) {
            // The binding `missing`, qualified (`Base.missing`) or not: a name read, not a
            // library function that a program reaches.
            Some(Op::Global(n)) if n.strip_prefix("Base.").unwrap_or(n) == "missing" => {
                Some(End::Missing)
            }
            _ => None,
        },
        Operand::Const(_) => None,
    }
}

/// Is the operand `s` of `body` the struct `def` as a value (`new`'s first argument)?
fn names(body: &Function, s: &Operand, def: &StructDef) -> bool {
    let Operand::Value(v) = s else {
        return false;
    };
    matches!(body.stmt(*v).map(|s| &s.op), Some(Op::Global(n)) if *n == def.name)
}
