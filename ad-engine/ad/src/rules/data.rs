//! Rules of tuples, named tuples, immutable structs and `Ref`s. Structural gradients: a tuple's
//! gradient is a tuple, a struct's a named tuple of its fields'. A `Ref`'s gradient lives in its
//! shadow `Ref` (looked up, not returned).

use zy_ir::{Const, Operand, Prim, StructRef, Type};

use super::Case::{Apply, Program};
use super::Keep::Forward;
use super::TestArg::{Float as F, Int as I, LitInt as L, Names, Ref as R, Tuple as T};
use super::{arg_rdata, Emit, FwdOut, FwdStmt, RevStmt, Rule, TanStmt};
use crate::forward::dual_type;
use crate::tangent::{box_type, fdata_type, has_fdata, rdata_type, slot_type, stack_entry_type};
use Prim::*;

const T3: super::TestArg = T(&[1.5, -0.5, 2.0]);

/// The rules of tuples, structs, `Ref`s and AD stacks.
pub const RULES: &[Rule] = &[
    Rule {
        prim: Tuple,
        keep: Forward(|e, s| Ok(tuple_forward(e, s, Tuple))),
        reverse: |e, s| tuple_reverse(e, s, Tuple),
        pushforward: tuple_tangent,
        cases: &[Apply(&[F(1.0), F(2.0)])],
    },
    Rule {
        prim: NamedTuple,
        keep: Forward(|e, s| Ok(tuple_forward(e, s, NamedTuple))),
        reverse: |e, s| tuple_reverse(e, s, NamedTuple),
        pushforward: tuple_tangent,
        cases: &[Apply(&[Names(&["a", "b"]), F(1.5), F(-0.5)])],
    },
    Rule {
        prim: GetField,
        keep: Forward(|e, s| {
            let mutable = on_mutable(&s.arg_tys);
            match mutable.and_then(|nt| forward_mutable(e, GetField, s, &nt)) {
                Some(out) => Ok(out),
                None => Ok(part_forward(e, s, GetField, vec![])),
            }
        }),
        reverse: |e, s| match on_mutable(&s.arg_tys) {
            Some(nt) => reverse_mutable(e, GetField, s, &nt),
            None => getfield_reverse(e, s),
        },
        pushforward: part_tangent,
        cases: &[Apply(&[T3, L(2)])],
    },
    Rule {
        prim: SetField,
        keep: Forward(|e, s| {
            let mutable = on_mutable(&s.arg_tys);
            match mutable.and_then(|nt| forward_mutable(e, SetField, s, &nt)) {
                Some(out) => Ok(out),
                None => Ok(alone(e, s, SetField)),
            }
        }),
        reverse: |e, s| match on_mutable(&s.arg_tys) {
            Some(nt) => reverse_mutable(e, SetField, s, &nt),
            None => s.none(),
        },
        pushforward: |e, s, _| {
            // setfield!(x, i, v): the box of x's fields' tangents gets v's at i.
            if let (Some(tx), Some(i), Type::Ref(inner)) = (
                s.tangent(0),
                field_index(s.args.get(1)),
                dual_type(&s.arg_tys[0]),
            ) {
                let old = e.prim(RefGet, vec![tx.clone()], (*inner).clone());
                let tv = s.tangent_or_zero(e, 2).unwrap_or(Const::Nothing.into());
                let new = e.replace(&inner, old, i, tv);
                e.prim(RefSet, vec![tx, new], (*inner).clone());
            }
            s.tangent(2)
        },
        cases: &[Program {
            src: "mutable struct P\n    a::Float64\nend\n\
                  f(x) = (p = P(1.0); p.a = 3.0 * x; p.a * x)",
            name: "f",
            args: &[0.7],
        }],
    },
    Rule {
        prim: UnionConvert,
        // The value itself seen as the statement's type (a member as its abstract type, or
        // back), and so its shadow and its gradient.
        keep: Forward(|e, s| Ok(same_on_shadow(e, s, UnionConvert))),
        reverse: |e, s| {
            let mut out = s.none();
            let rty = rdata_type(&s.arg_tys[0]);
            if let (Some(dy), false) = (&s.dy, rty == Type::Nothing) {
                out[0] = Some(e.prim(UnionConvert, vec![dy.clone()], rty));
            }
            out
        },
        pushforward: |e, s, _| {
            let dty = dual_type(&s.ty);
            if dty == Type::Nothing {
                return None;
            }
            // A member seen as the union: its zero tangent (`nothing` for a member without
            // one, `Tanh()`) is converted too, as no zero of the union's tangent says which
            // member it is. Back to a member, a structural zero stays one.
            let t = match s.tangent(0) {
                Some(t) => t,
                None if matches!(s.arg_tys[0], Type::Union(_)) => return None,
                None => s
                    .tangent_or_zero(e, 0)
                    .unwrap_or(Operand::Const(Const::Nothing)),
            };
            Some(e.prim(UnionConvert, vec![t], dty))
        },
        cases: &[Program {
            src: "abstract type S end\nstruct A <: S\n    a::Float64\nend\n\
                  struct B <: S\n    b::Float64\nend\ng(a::A) = a.a^2\ng(b::B) = 3.0 * b.b\n\
                  f(x) = sum(g, [A(x), B(2.0 * x)])",
            name: "f",
            args: &[0.7],
        }],
    },
    Rule {
        prim: Realias,
        // The copy with the original's sharing restored, and its shadow alike: the copy's
        // own objects, so what reaches them reaches the copy's gradient.
        keep: Forward(|e, s| Ok(same_on_shadow(e, s, Realias))),
        // The original's gradient comes through the copy, not through its sharing.
        reverse: |_, s| {
            let mut out = s.none();
            out[0] = s.dy.clone();
            out
        },
        pushforward: |e, s, _| {
            let dty = dual_type(&s.ty);
            let t = s.tangent(0)?;
            (dty != Type::Nothing).then(|| e.prim(Realias, vec![t, s.args[1].clone()], dty))
        },
        cases: &[Apply(&[T3, T3])],
    },
    Rule {
        prim: TupleIndex,
        // The run-time index.
        keep: Forward(|e, s| Ok(part_forward(e, s, TupleIndex, vec![s.args[1].clone()]))),
        reverse: tupleindex_reverse,
        pushforward: part_tangent,
        cases: &[Apply(&[T3, I(3)])],
    },
    Rule {
        prim: Accum,
        keep: Forward(|e, s| Ok(alone(e, s, Accum))),
        reverse: |_, s| {
            // a + b: both get ȳ.
            let mut out = s.none();
            if let Some(dy) = &s.dy {
                for (i, o) in out.iter_mut().enumerate() {
                    if arg_rdata(s, i) == rdata_type(&s.ty) {
                        *o = Some(dy.clone());
                    }
                }
            }
            out
        },
        pushforward: |e, s, _| {
            let dty = dual_type(&s.ty);
            if dty == Type::Nothing {
                return None;
            }
            let (a, b) = (s.tangent_or_zero(e, 0), s.tangent_or_zero(e, 1));
            match (a, b) {
                (Some(a), Some(b)) => Some(e.accum(&dty, a, b)),
                (a, b) => a.or(b),
            }
        },
        cases: &[
            Apply(&[F(1.5), F(-0.5)]),
            Apply(&[T(&[1.0, 2.0]), T(&[0.5, -3.0])]),
        ],
    },
    Rule {
        prim: RefNew,
        keep: Forward(refnew_forward),
        reverse: |e, s| {
            // x̄ = the content gradient gathered in the shadow.
            let mut out = s.none();
            if let (Some(r), Some(elem)) = (s.residuals.first(), s.ty.elem()) {
                if rdata_type(elem) != Type::Nothing {
                    out[0] = Some(e.prim(RefGet, vec![r.clone()], rdata_type(elem)));
                }
            }
            out
        },
        pushforward: |e, s, _| {
            let dty = dual_type(&s.ty);
            if dty == Type::Nothing {
                return None;
            }
            s.tangent_or_zero(e, 0)
                .map(|tv| e.prim(RefNew, vec![tv], dty.clone()))
        },
        cases: &[Apply(&[F(-0.5)]), Apply(&[F(1.5)])],
    },
    Rule {
        prim: RefGet,
        // The box's shadow, where the content's gradient gathers.
        keep: Forward(|e, s| {
            refuse_mixed_box(e, &s.ty)?;
            let value = e.prim(RefGet, s.args.clone(), s.ty.clone());
            let sh = s.shadows.first().cloned().flatten();
            let shadow = match (sh.clone(), fdata_type(&s.ty)) {
                (Some(r), fty) if fty != Type::Nothing => Some(e.prim(RefGet, vec![r], fty)),
                _ => None,
            };
            Ok(FwdOut {
                value,
                shadow,
                residuals: sh.into_iter().collect(),
            })
        }),
        reverse: |e, s| {
            // The content's returned gradient (a Float64's, a struct of numbers' named tuple)
            // gathers in the shadow box.
            let rty = rdata_type(&s.ty);
            if let (Some(dy), Some(r), false) = (&s.dy, s.residuals.first(), rty == Type::Nothing) {
                let cur = e.prim(RefGet, vec![r.clone()], rty.clone());
                let sum = e.accum(&rty, cur, dy.clone());
                e.prim(RefSet, vec![r.clone(), sum], rty);
            }
            s.none()
        },
        pushforward: |e, s, _| {
            let dty = dual_type(&s.ty);
            if dty == Type::Nothing {
                return None;
            }
            s.tangent(0).map(|tr| e.prim(RefGet, vec![tr], dty.clone()))
        },
        cases: &[
            Apply(&[R(-0.5)]),
            Apply(&[R(1.5)]),
            Program {
                src: "struct P\n    a::Float64\n    b::Float64\nend\n\
                      f(x) = (r = Ref(P(x, 2x)); r[].a * r[].b)",
                name: "f",
                args: &[0.7],
            },
        ],
    },
    Rule {
        prim: RefSet,
        keep: Forward(|e, s| Ok(forward_refset(e, s))),
        reverse: refset_reverse,
        pushforward: |e, s, _| {
            if let (Some(tr), Some(tv)) = (s.tangent(0), s.tangent_or_zero(e, 1)) {
                e.prim(RefSet, vec![tr, tv.clone()], dual_type(&s.ty));
            }
            s.tangent(1)
        },
        cases: &[Apply(&[R(-0.5), F(0.0)]), Apply(&[R(1.5), F(4.0)])],
    },
    // The box of a variable a closure captures before it is assigned: made empty, then filled.
    Rule {
        prim: RefUndef,
        keep: Forward(refundef_forward),
        reverse: |_, s| s.none(),
        pushforward: |e, s, _| {
            let dty = dual_type(&s.ty);
            (dty != Type::Nothing).then(|| e.prim(RefUndef, s.args.clone(), dty))
        },
        cases: &[Program {
            src: LATER_CAPTURE,
            name: "f",
            args: &[0.7],
        }],
    },
    Rule {
        prim: RefInit,
        keep: Forward(|e, s| Ok(refinit_forward(e, s))),
        reverse: |e, s| {
            // The content's gradient gathered in the shadow goes to the value stored.
            let mut out = s.none();
            let vr = arg_rdata(s, 1);
            if let (Some(shadow), true) = (s.residuals.first(), vr != Type::Nothing) {
                let g = e.prim(RefGet, vec![shadow.clone()], vr.clone());
                let z = e.zero_rdata(&vr);
                e.prim(RefSet, vec![shadow.clone(), z], vr.clone());
                out[1] = Some(match &s.dy {
                    Some(dy) => e.accum(&vr, g, dy.clone()),
                    None => g,
                });
            }
            out
        },
        pushforward: |e, s, _| {
            if let (Some(tr), Some(tv)) = (s.tangent(0), s.tangent_or_zero(e, 1)) {
                e.prim(RefInit, vec![tr, tv.clone()], dual_type(&s.ty));
            }
            s.tangent(1)
        },
        cases: &[Program {
            src: LATER_CAPTURE,
            name: "f",
            args: &[0.7],
        }],
    },
    // AD stacks (differentiating generated code: nested AD). A stack's shadow holds one
    // gradient per entry: `push!` also pushes a zero there and `pop!` drops it; in reverse,
    // undoing a `pop!` pushes the value back with its gradient, and undoing a `push!` pops both
    // and hands the gradient to the pushed value.
    Rule {
        prim: StackNew,
        keep: Forward(|e, s| {
            let value = e.prim(StackNew, s.args.clone(), s.ty.clone());
            let fty = fdata_type(&s.ty);
            let shadow = (fty != Type::Nothing).then(|| e.prim(StackNew, vec![], fty));
            Ok(FwdOut {
                value,
                shadow,
                residuals: vec![],
            })
        }),
        reverse: |_, s| s.none(),
        pushforward: |e, s, _| {
            let dty = dual_type(&s.ty);
            (dty != Type::Nothing).then(|| e.prim(StackNew, vec![], dty))
        },
        // `Diff::No` (a stack is not a value to differentiate); `push!` and `pop!` test it.
        cases: &[],
    },
    Rule {
        prim: Push,
        keep: Forward(|e, s| {
            let value = e.prim(Push, s.args.clone(), s.ty.clone());
            let Some(ss) = s.shadows.first().cloned().flatten() else {
                return Ok(alone_after(value));
            };
            // The entry's shadow (a fresh zero one where it has none) beside a zero gradient.
            let elem = &s.arg_tys[1];
            let shadow = match s.shadows.get(1).cloned().flatten() {
                Some(x) => Some(x),
                None => e.zero_fdata(s.args[1].clone(), elem),
            };
            let zero = e.zero_rdata(&rdata_type(elem));
            let entry = stack_entry(e, elem, shadow, zero);
            e.prim(Push, vec![ss.clone(), entry], Type::Nothing);
            Ok(FwdOut {
                value,
                shadow: None,
                residuals: vec![s.args[0].clone(), ss],
            })
        }),
        reverse: |e, s| {
            let mut out = s.none();
            if let [stk, ss] = s.residuals.as_slice() {
                let elem = s.arg_tys[1].clone();
                e.prim(Pop, vec![stk.clone()], elem.clone());
                let entry = e.prim(Pop, vec![ss.clone()], stack_entry_type(&elem));
                out[1] = stack_entry_parts(e, &elem, entry).1;
            }
            out
        },
        pushforward: |e, s, _| {
            if let (Some(ts), Some(tv)) = (s.tangent(0), s.tangent_or_zero(e, 1)) {
                e.prim(Push, vec![ts, tv], Type::Nothing);
            }
            None
        },
        cases: &[
            Program {
                src: NESTED_LOOP,
                name: "d",
                args: &[1.3],
            },
            Program {
                src: NESTED_ARRAY_TAPE,
                name: "d",
                args: &[1.5, -0.5],
            },
        ],
    },
    Rule {
        prim: Pop,
        keep: Forward(|e, s| {
            let value = e.prim(Pop, s.args.clone(), s.ty.clone());
            let Some(ss) = s.shadows.first().cloned().flatten() else {
                return Ok(alone_after(value));
            };
            // The popped entry's shadow is the one pushed with it.
            let entry = e.prim(Pop, vec![ss.clone()], stack_entry_type(&s.ty));
            let shadow = stack_entry_parts(e, &s.ty, entry).0;
            let mut residuals = vec![s.args[0].clone(), ss, value.clone()];
            residuals.extend(shadow.clone());
            Ok(FwdOut {
                value,
                shadow,
                residuals,
            })
        }),
        reverse: |e, s| {
            if let [stk, ss, v, shadow @ ..] = s.residuals.as_slice() {
                e.prim(Push, vec![stk.clone(), v.clone()], Type::Nothing);
                let g = match &s.dy {
                    Some(dy) => dy.clone(),
                    None => e.zero_rdata(&rdata_type(&s.ty)),
                };
                let entry = stack_entry(e, &s.ty, shadow.first().cloned(), g);
                e.prim(Push, vec![ss.clone(), entry], Type::Nothing);
            }
            s.none()
        },
        pushforward: |e, s, _| {
            let dty = dual_type(&s.ty);
            if dty == Type::Nothing {
                return None;
            }
            s.tangent(0).map(|ts| e.prim(Pop, vec![ts], dty.clone()))
        },
        cases: &[Program {
            src: NESTED_LOOP,
            name: "d",
            args: &[1.3],
        }],
    },
];

/// The primal operation `p` alone: no shadow, nothing kept.
fn alone(e: &mut Emit, s: &FwdStmt, p: Prim) -> FwdOut {
    alone_after(e.prim(p, s.args.clone(), s.ty.clone()))
}

/// The primal result `value` alone: no shadow, nothing kept.
/// The entry of an AD stack's shadow for a value of type `elem` (`stack_entry_type`): its
/// shadow and its gradient, as far as the type has them.
fn stack_entry(e: &mut Emit, elem: &Type, shadow: Option<Operand>, grad: Operand) -> Operand {
    let entry = stack_entry_type(elem);
    match (has_fdata(elem), rdata_type(elem) != Type::Nothing) {
        (true, true) => {
            let shadow = shadow.unwrap_or(Const::Nothing.into());
            e.rebuild(&entry, vec![shadow, grad])
        }
        (true, false) => shadow.unwrap_or(Const::Nothing.into()),
        _ => grad,
    }
}

/// The shadow and the gradient held in an entry of an AD stack's shadow.
fn stack_entry_parts(
    e: &mut Emit,
    elem: &Type,
    entry: Operand,
) -> (Option<Operand>, Option<Operand>) {
    let entry_ty = stack_entry_type(elem);
    match (has_fdata(elem), rdata_type(elem) != Type::Nothing) {
        (true, true) => (
            Some(e.field(entry.clone(), 0, &entry_ty)),
            Some(e.field(entry, 1, &entry_ty)),
        ),
        (true, false) => (Some(entry), None),
        (false, true) => (None, Some(entry)),
        (false, false) => (None, None),
    }
}

fn alone_after(value: Operand) -> FwdOut {
    FwdOut {
        value,
        shadow: None,
        residuals: vec![],
    }
}

/// The forward of a primitive that applies to its first operand's shadow as to the operand,
/// the other operands unchanged: `p(x, rest...)`, and `p(dx, rest...)` where `x` has a shadow
/// and the result's type has fdata.
fn same_on_shadow(e: &mut Emit, s: &FwdStmt, p: Prim) -> FwdOut {
    let value = e.prim(p, s.args.clone(), s.ty.clone());
    let fty = fdata_type(&s.ty);
    let shadow = match (s.shadows.first().cloned().flatten(), fty != Type::Nothing) {
        (Some(x), true) => {
            let mut args = s.args.clone();
            args[0] = x;
            Some(e.prim(p, args, fty))
        }
        _ => None,
    };
    FwdOut {
        value,
        shadow,
        residuals: vec![],
    }
}

/// A tuple or named tuple: its shadow is built from its fields' shadows.
fn tuple_forward(e: &mut Emit, s: &FwdStmt, p: Prim) -> FwdOut {
    let value = e.prim(p, s.args.clone(), s.ty.clone());
    let fty = fdata_type(&s.ty);
    let shadow = (fty != Type::Nothing).then(|| {
        let parts = (first_field(p)..s.args.len())
            .map(|i| s.shadow(i))
            .collect();
        e.rebuild(&fty, parts)
    });
    FwdOut {
        value,
        shadow,
        residuals: vec![],
    }
}

/// Each field gets its part of ȳ.
fn tuple_reverse(e: &mut Emit, s: &RevStmt, p: Prim) -> Vec<Option<Operand>> {
    let mut out = s.none();
    if let Some(dy) = &s.dy {
        let rty = rdata_type(&s.ty);
        for (i, o) in out.iter_mut().enumerate().skip(first_field(p)) {
            if arg_rdata(s, i) != Type::Nothing {
                *o = Some(e.field(dy.clone(), i - first_field(p), &rty));
            }
        }
    }
    out
}

/// The tuple of the fields' tangents.
fn tuple_tangent(e: &mut Emit, s: &TanStmt, _: &Operand) -> Option<Operand> {
    let dty = dual_type(&s.ty);
    if dty == Type::Nothing {
        return None;
    }
    let parts = (first_field(s.prim)..s.args.len())
        .map(|i| s.tangent_or_zero(e, i).unwrap_or(Const::Nothing.into()))
        .collect();
    Some(e.rebuild(&dty, parts))
}

/// A part of an immutable value (`getfield`, `tuple_getindex`, `p`): its shadow is that part
/// of the value's shadow; keeps `residuals`.
fn part_forward(e: &mut Emit, s: &FwdStmt, p: Prim, residuals: Vec<Operand>) -> FwdOut {
    let value = e.prim(p, s.args.clone(), s.ty.clone());
    let fty = fdata_type(&s.ty);
    let shadow = match (s.shadows.first().cloned().flatten(), fty != Type::Nothing) {
        (Some(x), true) => Some(e.prim(p, vec![x, s.args[1].clone()], fty)),
        _ => None,
    };
    FwdOut {
        value,
        shadow,
        residuals,
    }
}

/// The same part of the value's tangent (of the box of its fields' tangents for a mutable
/// struct).
fn part_tangent(e: &mut Emit, s: &TanStmt, _: &Operand) -> Option<Operand> {
    let dty = dual_type(&s.ty);
    if dty == Type::Nothing {
        return None;
    }
    let tx = s.tangent(0)?;
    let tx = match dual_type(&s.arg_tys[0]) {
        Type::Ref(inner) if matches!(s.arg_tys[0], Type::Struct(_)) => {
            e.prim(RefGet, vec![tx], (*inner).clone())
        }
        _ => tx,
    };
    Some(e.prim(s.prim, vec![tx, s.args[1].clone()], dty))
}

/// `getfield` of an immutable value: ȳ in the field's place of a gradient zero elsewhere.
fn getfield_reverse(e: &mut Emit, s: &RevStmt) -> Vec<Option<Operand>> {
    let mut out = s.none();
    let xr = arg_rdata(s, 0);
    if let (Some(dy), Some(Const::Int(i))) = (&s.dy, s.consts.get(1).cloned().flatten()) {
        if xr != Type::Nothing && i >= 1 {
            out[0] = Some(e.one_hot(&xr, (i - 1) as usize, dy.clone()));
        }
    }
    out
}

/// A homogeneous tuple (of numbers, or of tuples of them): ȳ lands at the run-time index,
/// every other element's gradient is zero.
fn tupleindex_reverse(e: &mut Emit, s: &RevStmt) -> Vec<Option<Operand>> {
    let mut out = s.none();
    let xr = arg_rdata(s, 0);
    if let (Some(dy), Type::Tuple(ts)) = (&s.dy, &xr) {
        let i = s.kept(0);
        let mut parts = Vec::new();
        for (j, t) in ts.iter().enumerate() {
            if *t == Type::Nothing {
                parts.push(Const::Nothing.into());
                continue;
            }
            let hit = e.prim(
                Eq,
                vec![i.clone(), Const::Int(j as i64 + 1).into()],
                Type::Bool,
            );
            let zero = e.zero_rdata(t);
            parts.push(e.prim(IfElse, vec![hit, dy.clone(), zero], t.clone()));
        }
        out[0] = Some(e.rebuild(&xr, parts));
    }
    out
}

/// A Ref of an array holds the array's own shadow (writes through `r[]` are writes to the
/// array); otherwise a fresh gradient box. Keeps the shadow.
fn refnew_forward(e: &mut Emit, s: &FwdStmt) -> Result<FwdOut, crate::AdError> {
    refuse_mixed_box(e, &s.arg_tys[0])?;
    let value = e.prim(RefNew, s.args.clone(), s.ty.clone());
    let fty = fdata_type(&s.ty);
    let shadow = match (
        shares_shadow(&s.arg_tys[0]),
        s.shadows.first().cloned().flatten(),
    ) {
        (true, Some(content)) => Some(e.prim(RefNew, vec![content], fty.clone())),
        _ => e.zero_fdata(value.clone(), &s.ty),
    };
    let residuals = shadow.iter().cloned().collect();
    Ok(FwdOut {
        value,
        shadow,
        residuals,
    })
}

/// A box's shadow holds its content's whole tangent, which the rules read as fdata or rdata:
/// content with both (a struct of an array and a number) is refused by name, not mistyped.
fn refuse_mixed_box(e: &Emit, content: &Type) -> Result<(), crate::AdError> {
    if has_fdata(content) && rdata_type(content) != Type::Nothing {
        let parts = if content.holds_recursion() {
            "a recursive struct's tangent, as deep as the data"
        } else {
            "both arrays and numbers"
        };
        let what = format!("a `Ref` or captured variable holding {content} ({parts})");
        return Err(super::unsupported(e.span, &what));
    }
    Ok(())
}

/// A closure reading `c`, assigned after the closure is made (Julia's `Core.Box`).
const LATER_CAPTURE: &str = "function f(x)\n    g(t) = t * c\n    c = x * x\n    g(3.0) + c\nend";

/// The shadow of an empty box: empty too where the content is an array (its shadow is the
/// array's own, stored with it), else a box of a zero gradient.
fn refundef_forward(e: &mut Emit, s: &FwdStmt) -> Result<FwdOut, crate::AdError> {
    let elem = s.ty.elem().cloned().unwrap_or(Type::Bottom);
    refuse_mixed_box(e, &elem)?;
    let value = e.prim(RefUndef, s.args.clone(), s.ty.clone());
    let fty = fdata_type(&s.ty);
    let shadow = match &fty {
        _ if elem == Type::Bottom => None,
        Type::Nothing => None,
        _ if shares_shadow(&elem) => Some(e.prim(RefUndef, s.args.clone(), fty.clone())),
        Type::Ref(inner) => {
            let z = e.zero_rdata(inner);
            Some(e.prim(RefNew, vec![z], fty.clone()))
        }
        _ => None,
    };
    Ok(FwdOut {
        value,
        shadow,
        residuals: Vec::new(),
    })
}

/// The first `r[] = v` of an empty box: an array's shadow goes into the box's shadow; the
/// shadow is kept, where the content's gradient gathers.
fn refinit_forward(e: &mut Emit, s: &FwdStmt) -> FwdOut {
    let elem = s.arg_tys[0].elem().cloned().unwrap_or(Type::Nothing);
    let value = e.prim(RefInit, s.args.clone(), s.ty.clone());
    let sr = s.shadows.first().cloned().flatten();
    if let (true, Some(sr), Some(new)) = (
        shares_shadow(&elem),
        sr.clone(),
        s.shadows.get(1).cloned().flatten(),
    ) {
        e.prim(RefInit, vec![sr, new], fdata_type(&elem));
    }
    FwdOut {
        value,
        shadow: s.shadows.get(1).cloned().flatten(),
        residuals: sr.into_iter().collect(),
    }
}

/// `r[] = v`: restore the old content, hand the content gradient to `v`, zero it (or, for an
/// array, put the old array's shadow back in the box's shadow).
fn refset_reverse(e: &mut Emit, s: &RevStmt) -> Vec<Option<Operand>> {
    let mut out = s.none();
    let (r, old) = (s.kept(0), s.kept(1));
    e.prim(RefSet, vec![r, old], s.arg_tys[1].clone());
    if let (Some(sr), Some(old_shadow)) = (s.residuals.get(2), s.residuals.get(3)) {
        let fty = fdata_type(&s.arg_tys[1]);
        e.prim(RefSet, vec![sr.clone(), old_shadow.clone()], fty);
    }
    let vr = arg_rdata(s, 1);
    if let (Some(shadow), true) = (s.residuals.get(2), vr != Type::Nothing) {
        let g = e.prim(RefGet, vec![shadow.clone()], vr.clone());
        let z = e.zero_rdata(&vr);
        e.prim(RefSet, vec![shadow.clone(), z], vr.clone());
        out[1] = Some(match &s.dy {
            Some(dy) => e.accum(&vr, g, dy.clone()),
            None => g,
        });
    }
    out
}

/// Nested differentiation through a loop: the inner gradient's tape pushes and pops, which the
/// outer one differentiates.
const NESTED_LOOP: &str = "
function pow(x, n)
    r = 1.0
    for i in 1:n
        r *= x
    end
    return r
end
d(x) = derivative(z -> pow(z, 3), x)";

/// A loop whose tape holds arrays (the element a run-time index picks from a tuple of arrays),
/// differentiated twice: the outer AD gives each popped array the shadow pushed with it.
const NESTED_ARRAY_TAPE: &str = "
function tape(a, b)
    xs = (a, b)
    s = 0.0
    for i in 1:2
        v = xs[i]
        s += v[1]^2 * v[2]
    end
    return s
end
d(p, q) = sum(gradient(tape, [p, q], [q, p])[1])";

/// Is a value of type `t` its own gradient's home, so that a `Ref` holding it holds its shadow
/// (an array: its fdata is its whole tangent; a mutable struct: its box)?
fn shares_shadow(t: &Type) -> bool {
    has_fdata(t) && fdata_type(t) == slot_type(t)
}

/// Index (0-based) of the first operand that is a field value.
fn first_field(p: Prim) -> usize {
    usize::from(p == Prim::NamedTuple)
}

/// Is operand 0 a mutable struct?
fn on_mutable(s_tys: &[Type]) -> Option<Type> {
    match s_tys.first() {
        Some(t @ Type::Struct(st)) if st.mutable => Some(box_type(t)),
        _ => None,
    }
}

/// The constant field index (1-based) of a getfield/setfield!.
fn field_index(c: Option<&Operand>) -> Option<usize> {
    match c?.as_const()? {
        Const::Int(i) if *i >= 1 => Some(*i as usize - 1),
        _ => None,
    }
}

/// `r[] = v`: keep the old content to restore it in the reverse pass.
fn forward_refset(e: &mut Emit, s: &FwdStmt) -> FwdOut {
    let elem = s.arg_tys[0].elem().cloned().unwrap_or(Type::Nothing);
    let old = e.prim(Prim::RefGet, vec![s.args[0].clone()], elem.clone());
    let value = e.prim(Prim::RefSet, s.args.clone(), s.ty.clone());
    let mut residuals = vec![s.args[0].clone(), old];
    let sr = s.shadows.first().cloned().flatten();
    residuals.extend(sr.clone());
    if let (true, Some(sr), Some(new)) = (
        shares_shadow(&elem),
        sr,
        s.shadows.get(1).cloned().flatten(),
    ) {
        // The box now holds the new array: its shadow holds that array's shadow (the old one
        // is put back in reverse).
        let fty = fdata_type(&elem);
        let old_shadow = e.prim(Prim::RefGet, vec![sr.clone()], fty.clone());
        e.prim(Prim::RefSet, vec![sr, new], fty);
        residuals.push(old_shadow);
    }
    FwdOut {
        value,
        shadow: s.shadows.get(1).cloned().flatten(),
        residuals,
    }
}

/// `getfield`/`setfield!` on a mutable struct, whose shadow is a `Ref` of the named tuple of
/// its fields' gradients.
fn forward_mutable(e: &mut Emit, p: Prim, s: &FwdStmt, nt: &Type) -> Option<FwdOut> {
    let i = field_index(s.args.get(1))?;
    let sx = s.shadows.first().cloned().flatten();
    let fty = s.ty.clone();
    match p {
        Prim::GetField => {
            let value = e.prim(p, s.args.clone(), fty.clone());
            let shadow = match (&sx, has_fdata(&fty)) {
                (Some(sx), true) => {
                    let g = e.prim(Prim::RefGet, vec![sx.clone()], nt.clone());
                    Some(e.field(g, i, nt))
                }
                _ => None,
            };
            Some(FwdOut {
                value,
                shadow,
                residuals: sx.into_iter().collect(),
            })
        }
        Prim::SetField => {
            let old = e.prim(
                Prim::GetField,
                vec![s.args[0].clone(), s.args[1].clone()],
                fty.clone(),
            );
            let value = e.prim(p, s.args.clone(), fty.clone());
            let mut residuals = vec![
                s.args[0].clone(),
                sx.clone().unwrap_or(Const::Nothing.into()),
                old,
            ];
            if let (Some(sx), true) = (&sx, has_fdata(&fty)) {
                // The field's shadow becomes the new value's; the old one is restored later.
                let g = e.prim(Prim::RefGet, vec![sx.clone()], nt.clone());
                let old_shadow = e.field(g.clone(), i, nt);
                let new_shadow = s
                    .shadows
                    .get(2)
                    .cloned()
                    .flatten()
                    .unwrap_or(Const::Nothing.into());
                let g2 = e.replace(nt, g, i, new_shadow);
                e.prim(Prim::RefSet, vec![sx.clone(), g2], nt.clone());
                residuals.push(old_shadow);
            }
            Some(FwdOut {
                value,
                shadow: s.shadows.get(2).cloned().flatten(),
                residuals,
            })
        }
        _ => None,
    }
}

fn reverse_mutable(e: &mut Emit, p: Prim, s: &RevStmt, nt: &Type) -> Vec<Option<Operand>> {
    let mut out = vec![None; s.arg_tys.len()];
    let Some(i) = s
        .consts
        .get(1)
        .cloned()
        .flatten()
        .and_then(|c| field_index(Some(&c.into())))
    else {
        return out;
    };
    let fty = s.ty.clone();
    let gty = nt
        .field_types()
        .and_then(|f| f.get(i).cloned())
        .unwrap_or(Type::Nothing);
    match p {
        Prim::GetField => {
            if let (Some(dy), Some(sx)) = (&s.dy, s.residuals.first()) {
                let g = e.prim(Prim::RefGet, vec![sx.clone()], nt.clone());
                let cur = e.field(g.clone(), i, nt);
                let sum = e.accum(&gty, cur, dy.clone());
                let g2 = e.replace(nt, g, i, sum);
                e.prim(Prim::RefSet, vec![sx.clone(), g2], nt.clone());
            }
        }
        _ => {
            // setfield!(x, i, v): restore the old field, hand its gradient to v, zero it.
            let (x, sx, old) = (
                s.residuals[0].clone(),
                s.residuals[1].clone(),
                s.residuals[2].clone(),
            );
            e.prim(
                Prim::SetField,
                vec![x, Const::Int(i as i64 + 1).into(), old],
                fty.clone(),
            );
            if sx.as_const().is_some() {
                return out;
            }
            let g = e.prim(Prim::RefGet, vec![sx.clone()], nt.clone());
            if let Some(old_shadow) = s.residuals.get(3) {
                let g2 = e.replace(nt, g, i, old_shadow.clone());
                e.prim(Prim::RefSet, vec![sx, g2], nt.clone());
            } else if rdata_type(&fty) != Type::Nothing {
                let vbar = e.field(g.clone(), i, nt);
                let z = e.zero_rdata(&gty);
                let g2 = e.replace(nt, g, i, z);
                e.prim(Prim::RefSet, vec![sx, g2], nt.clone());
                out[2] = Some(match &s.dy {
                    Some(dy) => e.accum(&gty, vbar, dy.clone()),
                    None => vbar,
                });
            }
        }
    }
    out
}

/// `new T(fields...)`: the shadow of an immutable struct is the named tuple of its fields'
/// shadows; a mutable struct's is a `Ref` of its field gradients.
pub fn forward_new(e: &mut Emit, st: &StructRef, s: &FwdStmt) -> FwdOut {
    let value = e.op(zy_ir::Op::New(st.clone()), s.args.clone(), s.ty.clone());
    let fty = fdata_type(&s.ty);
    let shadow = if fty == Type::Nothing {
        None
    } else if st.mutable {
        // A box of the fields' gradients; fields with shadows share them.
        let nt = box_type(&s.ty);
        let mut parts = Vec::new();
        for (i, t) in s.arg_tys.iter().enumerate() {
            parts.push(match s.shadows.get(i).cloned().flatten() {
                Some(sh) if has_fdata(t) => sh,
                _ => {
                    let ft = nt
                        .field_types()
                        .and_then(|f| f.get(i).cloned())
                        .unwrap_or(Type::Nothing);
                    e.zero_rdata(&ft)
                }
            });
        }
        let g = e.rebuild(&nt, parts);
        let shadow = e.prim(Prim::RefNew, vec![g], fty.clone());
        return FwdOut {
            value,
            shadow: Some(shadow.clone()),
            residuals: vec![shadow],
        };
    } else {
        let parts = (0..s.args.len())
            .map(|i| {
                s.shadows
                    .get(i)
                    .cloned()
                    .flatten()
                    .unwrap_or(Const::Nothing.into())
            })
            .collect();
        Some(e.rebuild(&fty, parts))
    };
    FwdOut {
        value,
        shadow,
        residuals: vec![],
    }
}

/// Field gradients of `new T(fields...)` from the named-tuple gradient (for a mutable struct,
/// from its shadow box).
pub fn reverse_new(e: &mut Emit, s: &RevStmt) -> Vec<Option<Operand>> {
    if let (Some(nt), Some(sh)) = (on_mutable(std::slice::from_ref(&s.ty)), s.residuals.first()) {
        let g = e.prim(Prim::RefGet, vec![sh.clone()], nt.clone());
        return (0..s.arg_tys.len())
            .map(|i| (arg_rdata(s, i) != Type::Nothing).then(|| e.field(g.clone(), i, &nt)))
            .collect();
    }
    let rty = rdata_type(&s.ty);
    (0..s.arg_tys.len())
        .map(|i| match &s.dy {
            Some(dy) if arg_rdata(s, i) != Type::Nothing => Some(e.field(dy.clone(), i, &rty)),
            _ => None,
        })
        .collect()
}
