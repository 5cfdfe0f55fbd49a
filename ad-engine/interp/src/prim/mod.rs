//! The semantics of every [`Prim`], in one place: [`eval_prim`] maps operand values to a result
//! value or Julia's error message.

mod array;
mod chars;
mod clock;
mod data;
pub mod factor;
mod graphemes;
mod linalg;
mod parse;
mod printf;
mod reduce;
pub(crate) mod regex;
mod scalar;
mod schur;
mod single;
mod sized;
mod spectral;
pub mod strings;
mod tangent;
pub use tangent::is_tangent_of;
mod tangent_of;
mod twice;
mod wide;

use zy_ir::{Prim, Type};

use crate::show::{show, type_string};
use crate::value::{ArrayData, Value};

pub use data::new_struct;
pub use linalg::{gemm_f64, gemm_f64_add, gemm_f64_op, is_blocked, GEMM_DEPTH_BLOCK};
pub use reduce::{
    extremum_f64, extremum_index, sum_block, sum_block_len, sum_blocks, sum_f64, LANES,
};

/// Apply primitive `p` to `args`. `ret` is the statement's inferred type: it fixes the result
/// type where the operands alone do not (empty arrays, `zero_tangent`, AD stacks); `Type::Any`
/// lets the operands decide. An operand that is an undefined local is an `UndefVarError`, except
/// where the value is only stored or moved (`push!`, tuples, `getfield`): the AD keeps values of
/// blocks that did not run on its tape, and a use of what is read back still fails.
pub fn eval_prim(p: Prim, args: &[Value], ret: &Type) -> Result<Value, String> {
    if !matches!(
        p,
        Prim::Push
            | Prim::Tuple
            | Prim::NamedTuple
            | Prim::GetField
            | Prim::SlotSet
            | Prim::IsDefinedLocal
    ) {
        if let Some(Value::Undef(name)) = args.iter().find(|a| matches!(a, Value::Undef(_))) {
            match (p, **name == *crate::value::UNDEF_SLOT) {
                // The shadow of a field `new` left undefined is undefined too.
                (Prim::ZeroTangent, true) => return Ok(Value::Undef(name.clone())),
                // The AD undoes the first assignment of such a field.
                (Prim::SetField, true) => {}
                _ => return Err(undef_error(name)),
            }
        }
    }
    use Prim::*;
    match p {
        Add | Sub | Mul | Div | IntDiv | Rem | Pow => {
            let [a, b] = operands(p, args)?;
            if let (Pow, Value::Int(x), Value::Int(n), Type::Float64) = (p, a, b, ret) {
                Ok(Value::F64(scalar::literal_pow_int(*x, *n)))
            } else if a.is_number() && b.is_number() {
                scalar::arith(p, a, b)
            } else {
                linalg::array_arith(p, a, b)
            }
        }
        IfElse => match args {
            [Value::Bool(c), a, b] => Ok(if *c { a.clone() } else { b.clone() }),
            _ => Err(method_error("ifelse", args)),
        },
        Neg if matches!(args, [Value::Array(_) | Value::Adjoint(_)]) => {
            let [a] = operands(p, args)?;
            array::map_unary(p, a)
        }
        Atan => match args {
            [y, x] => scalar::atan2(y, x),
            _ => {
                let [a] = operands(p, args)?;
                scalar::unary(p, a)
            }
        },
        Neg | Not | Abs | Floor | Ceil | Round | Sign | ToInt | ToFloat32 => {
            let [a] = operands(p, args)?;
            scalar::unary(p, a)
        }

        ConvertInt => {
            let [a] = operands(p, args)?;
            sized::convert(sized::target(ret)?, a)
        }
        TruncInt => {
            let [a] = operands(p, args)?;
            sized::truncate(sized::target(ret)?, a)
        }
        Float | Zero | One => {
            let [a] = operands(p, args)?;
            if a.is_number() {
                scalar::unary(p, a)
            } else {
                array::float_zero_one(p, a)
            }
        }
        Max | Min => {
            let [a, b] = operands(p, args)?;
            scalar::max_min(p, a, b)
        }
        Copysign => {
            let [a, b] = operands(p, args)?;
            scalar::copysign(a, b)
        }
        AndInt | OrInt | XorInt | ShlInt | AshrInt | LshrInt => match args {
            [Value::Int(a), Value::Int(b)] => Ok(Value::Int(scalar::int_bits(p, *a, *b))),
            // And, or and xor keep a sign- or zero-extended value so.
            [Value::Sized(k, a), Value::Sized(l, b)]
                if k == l && matches!(p, AndInt | OrInt | XorInt) =>
            {
                Ok(Value::Sized(*k, scalar::int_bits(p, *a, *b)))
            }
            [Value::Wide(k, a), Value::Wide(l, b)] if k == l => {
                Ok(wide::int_bits(p, *k, a.get(), b.get()))
            }
            _ => Err(method_error(p.julia_name(), args)),
        },
        HashInt | HashFloat => match args {
            [Value::Int(x), Value::Int(h)] => Ok(Value::Int(zy_ir::ops::int_hash(*x, *h))),
            [Value::F64(x), Value::Int(h)] => Ok(Value::Int(zy_ir::ops::float_hash(*x, *h))),
            _ => Err(method_error(p.julia_name(), args)),
        },
        Fma => {
            let [a, b, c] = operands(p, args)?;
            scalar::fma(a, b, c)
        }
        Polygamma => {
            let [m, x] = operands(p, args)?;
            scalar::polygamma(m, x)
        }
        Besselj | Besseljx | Bessely | Besselyx | Besseli | Besselix | Besselk | Besselkx => {
            let [nu, x] = operands(p, args)?;
            scalar::bessel(p, nu, x)
        }
        GammaIncP | GammaIncQ | LogUpperGamma | Zeta => {
            let [a, x] = operands(p, args)?;
            scalar::incomplete(p, &[a, x])
        }
        BetaInc => {
            let [a, b, x] = operands(p, args)?;
            scalar::incomplete(p, &[a, b, x])
        }
        Lt | Le | Gt | Ge | Eq | Ne => {
            let [a, b] = operands(p, args)?;
            compare(p, a, b)
        }
        Tuple => Ok(Value::Tuple(args.into())),
        NamedTuple => data::named_tuple(args),
        GetField => data::get_field(args),
        SetField => data::set_field(args),
        TupleIndex => data::tuple_index(args),
        RefNew => {
            let [a] = operands(p, args)?;
            let a = match ret {
                Type::Ref(t) => data::convert_to(t, a)?,
                _ => a.clone(),
            };
            Ok(Value::new_ref(a))
        }
        RefUndef => match args {
            [Value::Symbol(name)] => Ok(Value::new_ref(Value::Undef(name.clone()))),
            _ => Err(method_error("ref_undef", args)),
        },
        RefGet => data::ref_get(args),
        RefSet | RefInit => data::ref_set(args),
        Vect => array::vect(args, ret),
        Hvcat => array::hvcat(args, ret),
        Zeros | Ones => array::zeros_ones(p, args, ret),
        Fill => array::fill(args),
        Similar | Copy => {
            let [a] = operands(p, args)?;
            array::similar_copy(p, a)
        }
        Length => array::length(args),
        Size => array::size(args),
        GetIndex => array::get_index(args),
        SetIndex => array::set_index(args),
        SetLength => array::set_length(args),
        SliceCopy => array::slice_copy(args),
        AccumSlice => array::accum_slice(args),
        SlotGet | SlotSet => array::slot(p, args),
        First | Last => {
            let [a] = operands(p, args)?;
            array::first_last(p, a)
        }
        Sum | Prod | Maximum | Minimum => {
            let [a] = operands(p, args)?;
            reduce::reduce(p, a)
        }
        FindMax | FindMin => {
            let [a] = operands(p, args)?;
            reduce::find_extremum(p, a)
        }
        Dot => {
            let [a, b] = operands(p, args)?;
            linalg::dot(a, b)
        }
        CheckAxes => {
            let [a, b] = operands(p, args)?;
            linalg::check_axes(a, b)
        }
        MatMul => {
            let [a, b] = operands(p, args)?;
            linalg::matmul(a, b)
        }
        Transpose | Adjoint => {
            let [a] = operands(p, args)?;
            linalg::transpose(p, a)
        }
        Det | LogDet | Inv | CholeskyLower | EigvalsGeneral | EigenGeneral | Hessenberg | Schur => {
            let [a] = operands(p, args)?;
            match p {
                Det => factor::det(a),
                LogDet => factor::logdet(a),
                Inv => factor::inv(a),
                EigvalsGeneral => factor::eigvals_general(a),
                EigenGeneral => spectral::eigen_general(a),
                Hessenberg => spectral::hessenberg(a),
                Schur => schur::schur(a),
                _ => factor::cholesky_lower(a),
            }
        }
        Tril | Triu => match args {
            [a] => linalg::triangle(p, a, 0),
            [a, Value::Int(k)] => linalg::triangle(p, a, *k),
            _ => Err(method_error(p.julia_name(), args)),
        },
        Solve => {
            let [a, b] = operands(p, args)?;
            factor::solve(a, b)
        }
        Broadcast => array::broadcast(args, ret),
        Unbroadcast => {
            let [c, x] = operands(p, args)?;
            linalg::unbroadcast(c, x)
        }
        RangeLength => {
            let [a, s, b] = operands(p, args)?;
            range_length(a, s, b)
        }
        FloatRange => {
            let [form, a, b, c] = operands(p, args)?;
            twice::float_range(form, a, b, c)
        }
        FloatRangeOp => {
            let [op, parts, x] = operands(p, args)?;
            twice::float_range_op(op, parts, x)
        }
        StringOf => Ok(strings::string_of(args)),
        StringFn => strings::string_fn(args),
        Time => Ok(Value::F64(clock::since_epoch())),
        TimeNs => Ok(Value::Sized(zy_ir::IntKind::UInt64, clock::monotonic_ns())),
        UtcOffset => match args {
            [Value::Int(t)] => clock::utc_offset(*t)
                .map(Value::Int)
                .ok_or_else(|| "unsupported: `now()`: the local time zone cannot be read".into()),
            _ => Err(internal(p, "expects one Int64 operand")),
        },
        Undef => match args {
            [Value::Symbol(name)] => Ok(Value::Undef(name.clone())),
            _ => Err(internal(p, "expects one symbol operand")),
        },
        IsDefinedLocal => {
            let [x] = operands(p, args)?;
            Ok(Value::Bool(!matches!(x, Value::Undef(_))))
        }
        UndefField => Ok(Value::Undef(crate::value::UNDEF_SLOT.into())),
        CheckField => data::check_field(args),
        IsDefinedField => data::isdefined_field(args),
        Error => match args {
            [Value::Str(msg)] => Err(format!("ErrorException: {msg}")),
            [other] => Err(format!("ErrorException: {}", show(other))),
            [Value::Symbol(exception), parts @ ..] => Err(exception_message(exception, parts)),
            _ => Err(internal(
                p,
                "expects a message, or an exception type and a message",
            )),
        },
        RefuseTangent => match args {
            [t, Value::Str(msg)] if zero_tangent(t) => Ok(Value::Nothing),
            [_, Value::Str(msg)] => Err(format!("NotImplementedException: {msg}")),
            _ => Err(internal(p, "expects a tangent and a message")),
        },
        ExceptionIsa => match args {
            [Value::Exception(e), Value::Symbol(t)] => Ok(Value::Bool(e.isa(&[t]))),
            [Value::Exception(e), Value::Tuple(ts)] => {
                let names: Vec<&str> = ts
                    .iter()
                    .filter_map(|t| match t {
                        Value::Symbol(t) => Some(&**t),
                        _ => None,
                    })
                    .collect();
                Ok(Value::Bool(e.isa(&names)))
            }
            _ => Err(internal(p, "expects an exception and type names")),
        },
        UnionIsa => match args {
            // A symbol (held as one known at run time) is a `Symbol`.
            [Value::Symbol(_), Value::Symbol(t)] => Ok(Value::Bool(**t == *"Symbol")),
            [v, Value::Symbol(t)] => Ok(Value::Bool(v.julia_type().to_string() == **t)),
            _ => Err(internal(p, "expects a value and a type name")),
        },
        UnionConvert => match args {
            [v] if matches!(ret, Type::Union(_) | Type::Any) || of_type(v, ret) => Ok(v.clone()),
            // A container of `Any` taken where more kinds of values are stored into it (or a
            // struct's shadow holding one): the same value, its arrays holding the wider union.
            [v] if widen_open(v, ret) => Ok(v.clone()),
            // A union's gradient that nothing reached: the member's zero.
            [Value::Nothing] => tangent::zero_tangent(&[], ret),
            // A branch on a comparison of a value that may be `missing`.
            [v] if *ret == Type::Bool => Err(format!(
                "TypeError: non-boolean ({}) used in boolean context",
                v.julia_type()
            )),
            [v] => Err(format!(
                "TypeError: in typeassert, expected {ret}, got a value of type {}",
                v.julia_type()
            )),
            _ => Err(internal(p, "expects one value")),
        },
        ExceptionNew => match args {
            [Value::Symbol(exception), parts @ ..] => {
                let text = exception_message(exception, parts);
                let caught = crate::Caught::from_message(&text, Default::default(), Vec::new());
                Ok(Value::Exception(std::rc::Rc::new(caught)))
            }
            _ => Err(internal(p, "expects an exception type and its message")),
        },
        ExceptionText => match args {
            [Value::Exception(e)] => Ok(Value::Str(e.showerror_text().as_str().into())),
            [v] => Ok(Value::Str(show(v).as_str().into())),
            _ => Err(internal(p, "expects one value")),
        },
        ThrowValue => match args {
            [_, Value::Str(text)] => Err(text.to_string()),
            _ => Err(internal(p, "expects a value and its text")),
        },
        ExceptionField => match args {
            // The object a `BoundsError` holds, of a type the statement's union may not hold.
            [Value::Exception(e), Value::Symbol(f)] if &**f == "a" => {
                let a = e.field(f)?;
                match ret {
                    Type::Union(u) if !u.members.contains(&a.julia_type()) => Err(format!(
                        "unsupported: `a` of a caught BoundsError holding a {}: zy reads it of \
                         strings, vectors and matrices of numbers and vectors of strings",
                        crate::show::type_string(&a.julia_type())
                    )),
                    _ => Ok(a),
                }
            }
            [Value::Exception(e), Value::Symbol(f)] => e.field(f),
            _ => Err(internal(p, "expects an exception and a field name")),
        },
        ExceptionType => match args {
            [Value::Exception(e)] => {
                let t = Value::Func(e.name().into());
                match ret {
                    Type::Union(u) if !u.members.contains(&t.julia_type()) => Err(format!(
                        "unsupported: `typeof` of a caught value of type {}, which is no \
                         exception type; test it with `isa`",
                        e.name()
                    )),
                    _ => Ok(t),
                }
            }
            _ => Err(internal(p, "expects an exception")),
        },
        Rethrow => match args {
            [Value::Exception(e)] => Err(e.text.clone()),
            _ => Err(internal(p, "expects the exception to throw")),
        },
        TheException => Err(internal(p, "runs only in a catch block")),
        Realias => match args {
            [copy, like] => Ok(copy.realias(like)),
            _ => Err(internal(p, "expects a copy and its original")),
        },
        CheckDistinct => match args {
            [Value::Str(msg), a, b] if a.egal(b) => Err(msg.to_string()),
            [Value::Str(_), _, _] => Ok(Value::Nothing),
            _ => Err(internal(p, "expects a message and two objects")),
        },
        SameObject => match args {
            [a, b] => Ok(Value::Bool(a.egal(b))),
            _ => Err(internal(p, "expects two objects")),
        },
        StackNew => Ok(tangent::stack_new()),
        // The interpreter's stacks are freed once unreachable: nothing to mark or release.
        StackMark => Ok(Value::Int(0)),
        StackRelease => Ok(Value::Nothing),
        Push => tangent::push(args),
        Pop => tangent::pop(args),
        ZeroTangent => tangent::zero_tangent(args, ret),
        TangentOf => tangent_of::tangent_of(args),
        TangentPart => tangent::tangent_part(args),
        Accum => {
            let [a, b] = operands(p, args)?;
            tangent::accum(a, b)
        }
        AccumInto => {
            let [dst, x] = operands(p, args)?;
            tangent::accum_into(dst, x)
        }
        MakePullback => tangent::make_pullback(args, ret),
        Tap => Ok(Value::Nothing),
        CallPullback => Err(internal(
            p,
            "calls code: the interpreter runs it, not `eval_prim`",
        )),
        Gradient | Derivative | Hessian | PullbackOf | Pushforward | Jvp | Hvp
        | PushforwardChunk => Err(internal(
            p,
            "is rewritten by the AD transform before the program runs, but reached the interpreter",
        )),
        // The elementary functions of the primitive table.
        _ => {
            let [a] = operands(p, args)?;
            scalar::unary(p, a)
        }
    }
}

/// The operands as a fixed-size array, or an internal error naming the primitive.
/// Is this tangent zero (a number, or every number of an array or tuple)?
fn zero_tangent(t: &Value) -> bool {
    match t {
        Value::F64(x) => *x == 0.0,
        Value::Nothing => true,
        Value::Array(a) => a.borrow().data.to_f64().iter().all(|&x| x == 0.0),
        Value::Tuple(xs) => xs.iter().all(zero_tangent),
        _ => false,
    }
}

fn operands<const N: usize>(p: Prim, args: &[Value]) -> Result<&[Value; N], String> {
    args.try_into()
        .map_err(|_| internal(p, &format!("expects {N} operands, got {}", args.len())))
}

/// An error that well-formed typed IR cannot produce.
fn internal(p: Prim, what: &str) -> String {
    format!("internal error: `{}` {what}", p.julia_name())
}

/// The one-line text of exception `exception` (`ArgumentError`) built from message parts, each
/// formatted as Julia's `string` does; a `DomainError`'s first part is its value.
fn exception_message(exception: &str, parts: &[Value]) -> String {
    let text = |parts: &[Value]| -> String {
        parts
            .iter()
            // As `string` prints each part: a symbol without its colon.
            .map(|p| match p {
                Value::Str(s) | Value::Symbol(s) => s.to_string(),
                v => show(v),
            })
            .collect()
    };
    match (exception, parts) {
        // `DomainError(x)` has no message: Julia shows the value alone.
        ("DomainError", [value]) => format!("DomainError with {}", show(value)),
        ("DomainError", [value, message @ ..]) => {
            format!("DomainError with {}: {}", show(value), text(message))
        }
        // `throw(SingularException(k))`: Julia shows the exception as constructed.
        ("SingularException", [index]) => format!("SingularException({})", show(index)),
        ("KeyError", [key]) => format!("KeyError: key {} not found", show(key)),
        // `throw(ZeroPivotException(k))`: Julia's `showerror` names no index.
        ("ZeroPivotException", [_]) => "ZeroPivotException: factorization encountered one or \
            more zero pivots. Consider switching to a pivoted LU factorization."
            .into(),
        _ => format!("{exception}: {}", text(parts)),
    }
}

/// `UndefVarError` for using local `name` where it is not assigned; Julia's `UndefRefError`
/// for an unset slot or field (`#undef`).
pub fn undef_error(name: &str) -> String {
    if name == crate::value::UNDEF_SLOT {
        return array::UNDEF_REF.into();
    }
    format!("UndefVarError: {name} not defined")
}

/// Julia's `MethodError` text for calling `name` on these values.
pub fn method_error(name: &str, args: &[Value]) -> String {
    let types: Vec<String> = args
        .iter()
        .map(|a| format!("::{}", type_string(&a.julia_type())))
        .collect();
    format!(
        "MethodError: no method matching {name}({})",
        types.join(", ")
    )
}

/// Julia's `DomainError` text (its message on one line).
pub fn domain_error(v: &Value, msg: &str) -> String {
    format!("DomainError with {}: {msg}", show(v))
}

/// Comparisons: IEEE on floats, exact between Int and Float, structural `==` on containers.
fn compare(p: Prim, a: &Value, b: &Value) -> Result<Value, String> {
    use std::cmp::Ordering::*;
    if let Some(ord) = scalar::num_cmp(a, b) {
        let r = match p {
            Prim::Lt => ord == Some(Less),
            Prim::Le => matches!(ord, Some(Less | Equal)),
            Prim::Gt => ord == Some(Greater),
            Prim::Ge => matches!(ord, Some(Greater | Equal)),
            Prim::Eq => ord == Some(Equal),
            _ => ord != Some(Equal),
        };
        return Ok(Value::Bool(r));
    }
    match p {
        Prim::Eq => Ok(Value::Bool(julia_eq(a, b))),
        Prim::Ne => Ok(Value::Bool(!julia_eq(a, b))),
        _ => Err(method_error(p.julia_name(), &[a.clone(), b.clone()])),
    }
}

/// Julia's `==`: numeric equality of numbers, elementwise for tuples, named tuples and arrays of
/// one shape, `===` for everything else.
pub fn julia_eq(a: &Value, b: &Value) -> bool {
    if let Some(ord) = scalar::num_cmp(a, b) {
        return ord == Some(std::cmp::Ordering::Equal);
    }
    let all = |x: &[Value], y: &[Value]| {
        x.len() == y.len() && x.iter().zip(y).all(|(p, q)| julia_eq(p, q))
    };
    match (a, b) {
        (Value::Tuple(x), Value::Tuple(y)) => all(x, y),
        (Value::NamedTuple(nx, x), Value::NamedTuple(ny, y)) => nx == ny && all(x, y),
        (Value::Array(_) | Value::Adjoint(_), Value::Array(_) | Value::Adjoint(_)) => {
            match (array::view(a), array::view(b)) {
                (Some((sa, da)), Some((sb, db))) => {
                    sa.rows_cols() == sb.rows_cols()
                        && sa.ndims() == sb.ndims()
                        && all(&da.values(), &db.values())
                }
                _ => false,
            }
        }
        _ => a.egal(b),
    }
}

/// The length of the Int range `a:s:b`.
fn range_length(a: &Value, s: &Value, b: &Value) -> Result<Value, String> {
    let (Value::Int(a), Value::Int(s), Value::Int(b)) = (a, s, b) else {
        return Err(method_error(
            "range_length",
            &[a.clone(), s.clone(), b.clone()],
        ));
    };
    let (a, s, b) = (i128::from(*a), i128::from(*s), i128::from(*b));
    if s == 0 {
        return Err("ArgumentError: step cannot be zero".into());
    }
    let n = if (s > 0 && a > b) || (s < 0 && a < b) {
        0
    } else {
        (b - a) / s + 1
    };
    i64::try_from(n)
        .map(Value::Int)
        .map_err(|_| format!("OverflowError: the length of the range {a}:{s}:{b} overflows Int64"))
}

/// Is `v` a value of `to` but for the arrays of `Any` it holds, of which `to` holds wider
/// unions (a struct's shadow whose field holds one)? Those arrays are widened in place.
fn widen_open(v: &Value, to: &Type) -> bool {
    match (v, to) {
        (Value::Array(a), _) => {
            let fits = widens_open(&a.borrow().data, to);
            if let (true, ArrayData::Obj(o), Some(e)) = (fits, &mut a.borrow_mut().data, to.elem())
            {
                o.elem = e.clone();
            }
            fits
        }
        (Value::Ref(r), Type::Ref(inner)) => widen_open(&r.borrow(), inner),
        (Value::NamedTuple(names, vs), Type::NamedTuple(fs)) => {
            names.len() == fs.len()
                && names
                    .iter()
                    .zip(vs.iter())
                    .zip(fs.iter())
                    .all(|((n, v), (m, f))| n == m && (of_type(v, f) || widen_open(v, f)))
        }
        _ => false,
    }
}

/// Is an array of `data` one of `Any` whose elements `to` (an array of a wider union of
/// `Any`) also holds?
fn widens_open(data: &ArrayData, to: &Type) -> bool {
    let (ArrayData::Obj(o), Some(Type::Union(wide))) = (data, to.elem()) else {
        return false;
    };
    let Type::Union(narrow) = &o.elem else {
        return false;
    };
    &*narrow.name == "Any"
        && &*wide.name == "Any"
        && narrow.members.iter().all(|m| wide.members.contains(m))
}

/// Is `v` of the concrete type `t`? A struct built with a fixed shape (a `Node` holding
/// `nothing`) is also of its recursive type (a `Node` of any length), which is Julia's one type,
/// and its tangent, a named tuple as deep as it, of the recursive tangent (by its field names);
/// a mutable node's shadow, a `Ref` of such a named tuple, of its box type (checked to the
/// named tuple only: a cycle of nodes has no end).
fn of_type(v: &Value, t: &Type) -> bool {
    match (v, t) {
        (Value::NamedTuple(names, _), Type::NamedTuple(b)) if t.holds_recursion() => {
            names.iter().eq(b.iter().map(|(n, _)| n))
        }
        (Value::Ref(r), Type::Ref(inner)) if t.holds_recursion() => of_type(&r.borrow(), inner),
        // A struct's tangent whose fields are of the types held, or members of the unions held
        // (that of a `P(1.5)` seen as the tangent of a `P` whose `x::Real` holds a
        // `Union{Float64, Int64}`).
        (Value::NamedTuple(names, vs), Type::NamedTuple(b)) if names.len() == b.len() => names
            .iter()
            .zip(vs.iter())
            .zip(b.iter())
            .all(|((n, v), (m, f))| n == m && (matches!(f, Type::Union(_)) || of_type(v, f))),
        (Value::Symbol(_), Type::Symbol(_)) => t.is_any_symbol(),
        // A `SubString` is held as its text, as a `String` is.
        (Value::Str(_), Type::SubString) => true,
        _ => match (v.julia_type(), t) {
            // A struct of one name and parameters is one Julia type whatever its fields hold.
            (Type::Struct(a), Type::Struct(b)) => b.is(&a.name, &a.params),
            (a, t) => a == *t,
        },
    }
}

#[cfg(test)]
mod tests;
