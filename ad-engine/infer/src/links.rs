//! Untyped fields of a mutable struct that link its values into a list, read from how the
//! program uses them: `next` of `mutable struct Node; val; next; end`, built holding `missing`
//! (an inner constructor's default, `Node(val, next = missing) = new(val, next)`) and assigned
//! another node later (`p.next = q`). Julia stores each value with its own type; zy gives such
//! a field the union of the end marker and the struct itself (`Union{Missing, Node}`), which
//! every value of the struct shares wherever it was built. A field built empty and filled
//! later with a value of another kind (`tree.data = x`) holds Julia's `Any`.

use zy_ir::{
    Block, Const, Function, Method, Op, Operand, Program, Stmt, StructDef, Type, TypeExpr, Value,
    ValueKind, NEW,
};

/// The value (`missing` or `nothing`) that ends a list through the untyped field `k` of the
/// mutable struct `def`: the program builds a `def` holding it there (or, where it builds
/// none so, assigns it to a field of that name: `p.next = missing`), and also assigns the
/// field a value it computes (`p.next = q`; a literal number or string, arithmetic, or an
/// argument declared of another type, `x::T where T<:Real`, is no node). `None` for a field used
/// otherwise, or ended by both values.
pub(crate) fn end_marker(program: &Program, def: &StructDef, k: usize) -> Option<Type> {
    let uses = Uses::of(program, def, k)?;
    let ends = if uses.built.is_empty() {
        uses.assigned
    } else {
        uses.built
    };
    let [end] = ends.as_slice() else {
        return None;
    };
    let missing = || crate::dispatch::struct_instance(program, &"Base.Missing".into(), Vec::new());
    match end {
        End::Nothing if uses.relinked => Some(Type::Nothing),
        End::Missing if uses.relinked => missing(),
        _ => None,
    }
}

/// Is the untyped field `k` of the mutable struct `def` one that the program builds empty
/// (holding `nothing` or `missing`) and fills later with a value of its own (`tree.data =
/// x`)? Julia's field holds each value with its own type, so zy gives it Julia's `Any`.
pub(crate) fn filled_later(program: &Program, def: &StructDef, k: usize) -> bool {
    Uses::of(program, def, k).is_some_and(|u| !u.built.is_empty() && u.filled)
}

/// Is the untyped field `k` of the mutable struct `def`, built holding a `built`, assigned a
/// value of another type later: a constant of another type (`s.n = 1.5` of `S(0)`), or, where
/// it holds an integer, arithmetic on a value computed elsewhere (`a.total += x`, which is a
/// `Float64` for a `Float64` `x`), or a division, or, where it holds a number or a string, an
/// untyped argument of the function storing it (`set!(s, x) = (s.n = x)`, which the program
/// may call with any value)? Julia's field holds each value with its own type, so zy gives it
/// Julia's `Any`.
pub(crate) fn retyped(program: &Program, def: &StructDef, k: usize, built: &Type) -> bool {
    let Some(uses) = Uses::of(program, def, k) else {
        return false;
    };
    let integer = matches!(built, Type::Int64 | Type::Bool);
    let scalar = built.is_number() || built.is_string();
    uses.stored.iter().any(|s| match s {
        Stored::Constant(t) => t != built,
        Stored::Arithmetic => integer,
        Stored::Argument => scalar,
        Stored::Other => false,
    })
}

/// How the program uses one untyped field of a mutable struct.
struct Uses {
    /// The ends the program builds a value of the struct with there.
    built: Vec<End>,
    /// The ends it assigns to a field of the name (of this struct or another).
    assigned: Vec<End>,
    /// Does it assign the field a computed value that may be a node?
    relinked: bool,
    /// Does it assign the field any value but an end?
    filled: bool,
    /// What it assigns the field (but the ends).
    stored: Vec<Stored>,
}

/// A value the program assigns to a field, as far as its type shows before typing.
enum Stored {
    /// A constant of this type (`s.n = 1.5`).
    Constant(Type),
    /// Arithmetic that may change an integer's type: a division, or one on a value that is
    /// neither a constant nor the field itself (`a.total += x`).
    Arithmetic,
    /// An argument of the storing function declared of no type (`x` of `set!(s, x)`).
    Argument,
    /// Any other value.
    Other,
}

impl Uses {
    /// The uses of field `k` of `def` in the program's own functions.
    fn of(program: &Program, def: &StructDef, k: usize) -> Option<Uses> {
        let (field, _) = def.fields.get(k)?;
        let mut uses = Uses {
            built: Vec::new(),
            assigned: Vec::new(),
            relinked: false,
            filled: false,
            stored: Vec::new(),
        };
        // The program's functions, and its methods of the library's (`Base.push!(t::Tree,
        // x)`): those that take a `def`.
        let methods = program.functions.values().flat_map(|gf| {
            let library = crate::calls::is_library(&gf.name);
            gf.methods.iter().filter(move |m| !library || takes(m, def))
        });
        for m in methods {
            let body = &*m.body;
            for i in 0..body.values.len() {
                let Some(stmt) = body.stmt(Value(i as u32)) else {
                    continue;
                };
                let Op::Call(n) = &stmt.op else {
                    continue;
                };
                let (ends, stored) = match (&**n, stmt.args.as_slice()) {
                    (
                        "setfield!" | "Base.setproperty!",
                        [x, Operand::Const(Const::Symbol(s)), v],
                    ) if s == field && !of_another(program, m, x, def) => {
                        let end = end_of(body, v);
                        uses.filled |= end.is_none();
                        uses.relinked |= end.is_none()
                            && !matches!(v, Operand::Const(_))
                            && !other_argument(m, v, def)
                            && !untyped_argument(m, v)
                            && !arithmetic(body, v);
                        if end.is_none() {
                            uses.stored.push(if untyped_argument(m, v) {
                                Stored::Argument
                            } else {
                                stored(body, v, field)
                            });
                        }
                        (&mut uses.assigned, end)
                    }
                    (n, args) if n == &*def.name => {
                        (&mut uses.built, args.get(k).and_then(|v| end_of(body, v)))
                    }
                    (NEW, [s, args @ ..]) if names(body, s, def) => {
                        (&mut uses.built, args.get(k).and_then(|v| end_of(body, v)))
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
        Some(uses)
    }
}

/// Is the operand `v` of `body` the result of arithmetic (`3x`, `a + b`), which is no node?
fn arithmetic(body: &Function, v: &Operand) -> bool {
    let Some(Op::Call(n)) = v.as_value().and_then(|v| body.stmt(v)).map(|s| &s.op) else {
        return false;
    };
    matches!(
        n.strip_prefix("Base.").unwrap_or(n),
        "+" | "-" | "*" | "/" | "^"
    )
}

/// What the operand `v` of `body`, assigned to the field `field`, is.
fn stored(body: &Function, v: &Operand, field: &str) -> Stored {
    let stmt = |v: &Operand| v.as_value().and_then(|v| body.stmt(v));
    if let Operand::Const(c) = v {
        return Stored::Constant(c.ty());
    }
    let Some(Stmt {
        op: Op::Call(n),
        args,
    }) = stmt(v)
    else {
        return Stored::Other;
    };
    // The field itself, `s.n` of `s.n += 1`, or a constant beside it.
    let known = |a: &Operand| match a {
        Operand::Const(_) => true,
        a => matches!(stmt(a), Some(Stmt { op: Op::Call(g), args })
            if matches!(&**g, "getfield" | "Base.getproperty")
                && matches!(args.get(1), Some(Operand::Const(Const::Symbol(s))) if &**s == field)),
    };
    let division = n.strip_prefix("Base.").unwrap_or(n) == "/";
    if division || (arithmetic(body, v) && !args.iter().all(known)) {
        Stored::Arithmetic
    } else {
        Stored::Other
    }
}

/// Is the operand `x` of the method `m` evidently no `def`: an argument declared of a type
/// that holds none, or a value built by another struct's constructor (a store to `a.next` of
/// an `A` leaves a `B`'s `next` as it is)?
fn of_another(program: &Program, m: &Method, x: &Operand, def: &StructDef) -> bool {
    if other_argument(m, x, def) {
        return true;
    }
    let built = x.as_value().and_then(|x| m.body.stmt(x)).map(|s| &s.op);
    matches!(built, Some(Op::Call(n)) if *n != def.name && program.structs.contains_key(n))
}

/// Is the operand `v` of the method `m` one of its arguments declared of no type (`x` of
/// `set!(s, x)`), which the program may call with any value: no node of its own?
fn untyped_argument(m: &Method, v: &Operand) -> bool {
    let Some(v) = v.as_value() else {
        return false;
    };
    match m.body.value(v).kind {
        ValueKind::Param {
            block: Block::ENTRY,
            index,
        } => matches!(m.sig.get(index as usize), Some(None)),
        _ => false,
    }
}

/// Does the method `m` take a `def` (an argument declared of a type that names it)?
fn takes(m: &Method, def: &StructDef) -> bool {
    m.sig
        .iter()
        .flatten()
        .any(|t| crate::dispatch::mentions(t, &def.name))
}

/// Is the operand `v` of the method `m` one of its arguments declared of a type that holds no
/// `def` (`node::T where T<:Real`, `x::Int`)?
fn other_argument(m: &Method, v: &Operand, def: &StructDef) -> bool {
    let Some(v) = v.as_value() else {
        return false;
    };
    let ValueKind::Param {
        block: Block::ENTRY,
        index,
    } = m.body.value(v).kind
    else {
        return false;
    };
    let Some(Some(declared)) = m.sig.get(index as usize) else {
        return false;
    };
    // A type variable stands for its bound; one without a bound for any type.
    let declared = match declared {
        TypeExpr::Named { name, params } if params.is_empty() => {
            match m.where_bounds.iter().find(|(p, _)| p == name) {
                Some((_, bound)) => bound,
                None if m.where_params.contains(name) => return false,
                None => declared,
            }
        }
        _ => declared,
    };
    let any = matches!(declared, TypeExpr::Named { name, .. } if &**name == "Any");
    !any && !crate::dispatch::mentions(declared, &def.name)
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
