//! Values written in Julia syntax in run lines: literals (`1.5f0`, `Inf32` and `NaN32` Float32s,
//! `0x1f` unsigned integers among them), `typemin(Int64)`, `typemax(Int64)`, tuples, named
//! tuples, vectors, matrices, `Ref(x)` and constructors of the file's structs.

use std::sync::Arc;

use zy_interp::{Array, ArrayData, Shape, Value};
use zy_ir::{StructKind, StructType, Type};
use zy_syntax::ast::{Expr, ExprKind, UnOp};

/// A call `f(args...)`: the function name and the argument values.
pub fn call(text: &str, structs: &[Arc<StructType>]) -> Result<(String, Vec<Value>), String> {
    let expr = zy_syntax::parse_expr(text).map_err(|e| format!("`{text}`: {}", e.message))?;
    match &expr.kind {
        ExprKind::Call { callee, args } => match &callee.kind {
            ExprKind::Ident(name) => {
                let args = args
                    .iter()
                    .map(|a| value_of(a, structs))
                    .collect::<Result<_, _>>()?;
                Ok((name.clone(), args))
            }
            _ => Err(format!("`{text}`: expected a call of a function by name")),
        },
        _ => Err(format!("`{text}`: expected a call `f(args...)`")),
    }
}

/// A value written in Julia syntax.
pub fn value(text: &str, structs: &[Arc<StructType>]) -> Result<Value, String> {
    let expr = zy_syntax::parse_expr(text).map_err(|e| format!("`{text}`: {}", e.message))?;
    value_of(&expr, structs)
}

fn value_of(e: &Expr, structs: &[Arc<StructType>]) -> Result<Value, String> {
    let all = |es: &[Expr]| {
        es.iter()
            .map(|x| value_of(x, structs))
            .collect::<Result<Vec<_>, _>>()
    };
    Ok(match &e.kind {
        ExprKind::Float(x) => Value::F64(*x),
        ExprKind::Int(i) => Value::Int(*i),
        ExprKind::Bool(b) => Value::Bool(*b),
        ExprKind::Nothing => Value::Nothing,
        ExprKind::Ident(n) if n == "Inf" => Value::F64(f64::INFINITY),
        ExprKind::Ident(n) if n == "NaN" => Value::F64(f64::NAN),
        ExprKind::Ident(n) if n == "Inf32" => Value::F32(f32::INFINITY),
        ExprKind::Ident(n) if n == "NaN32" => Value::F32(f32::NAN),
        ExprKind::Unary { op: UnOp::Neg, arg } => match value_of(arg, structs)? {
            Value::F64(x) => Value::F64(-x),
            Value::F32(x) => Value::F32(-x),
            Value::Int(i) => Value::Int(i.wrapping_neg()),
            _ => return Err("`-` of a value that is not a number".into()),
        },
        ExprKind::Tuple(items) => Value::tuple(all(items)?),
        ExprKind::NamedTuple(fields) => {
            let names = fields
                .iter()
                .map(|(n, _)| zy_ir::Name::from(n.as_str()))
                .collect();
            let vals: Vec<Expr> = fields.iter().map(|(_, x)| x.clone()).collect();
            Value::NamedTuple(names, all(&vals)?.into())
        }
        ExprKind::Vect(items) => array(Shape::Vector(items.len()), all(items)?)?,
        ExprKind::Matrix(rows) => {
            let (m, n) = (rows.len(), rows.first().map_or(0, Vec::len));
            if rows.iter().any(|r| r.len() != n) {
                return Err("matrix rows of different lengths".into());
            }
            let column_major: Vec<Expr> = (0..n)
                .flat_map(|j| rows.iter().map(move |r| r[j].clone()))
                .collect();
            array(Shape::Matrix(m, n), all(&column_major)?)?
        }
        ExprKind::Call { callee, args } => {
            let ExprKind::Ident(name) = &callee.kind else {
                return Err("a call of something other than a name".into());
            };
            if let ([arg], "typemin" | "typemax") = (args.as_slice(), name.as_str()) {
                return match &arg.kind {
                    ExprKind::Ident(t) if t == "Int64" || t == "Int" => {
                        Ok(Value::Int(if name == "typemin" {
                            i64::MIN
                        } else {
                            i64::MAX
                        }))
                    }
                    _ => Err(format!("`{name}` of a type other than Int64")),
                };
            }
            // `1.5f0` reads as `Float32(1.5)`, `0x1f` as `31 % UInt8`.
            match (name.as_str(), args.as_slice()) {
                ("Float32", [x]) => {
                    if let ExprKind::Float(x) = x.kind {
                        return Ok(Value::F32(x as f32));
                    }
                }
                ("%", [v, t]) => {
                    if let (ExprKind::Int(v), ExprKind::Ident(t)) = (&v.kind, &t.kind) {
                        if let Some(k) = zy_ir::IntKind::from_name(t) {
                            return Ok(Value::Sized(k, k.wrap(i128::from(*v))));
                        }
                    }
                }
                _ => {}
            }
            let args = all(args)?;
            if name == "Ref" {
                return match <[Value; 1]>::try_from(args) {
                    Ok([x]) => Ok(Value::new_ref(x)),
                    Err(_) => Err("`Ref` takes one value".into()),
                };
            }
            construct(name, args, structs)?
        }
        _ => {
            return Err(
                "expected a literal value (numbers, tuples, arrays, `Ref(x)`, structs)".into(),
            )
        }
    })
}

fn array(shape: Shape, elems: Vec<Value>) -> Result<Value, String> {
    let data = if elems.iter().all(|v| matches!(v, Value::F64(_))) {
        ArrayData::F64(elems.iter().filter_map(Value::as_f64).collect())
    } else if elems.iter().all(|v| matches!(v, Value::Int(_))) {
        ArrayData::Int(
            elems
                .iter()
                .map(|v| if let Value::Int(i) = v { *i } else { 0 })
                .collect(),
        )
    } else if elems.iter().all(|v| matches!(v, Value::Bool(_))) {
        ArrayData::Bool(
            elems
                .iter()
                .map(|v| matches!(v, Value::Bool(true)))
                .collect(),
        )
    } else {
        return Err("array elements must all be Float64, all Int64 or all Bool".into());
    };
    Ok(Array::new(shape, data).into_value())
}

/// `Name(fields...)` of a declared struct whose field types are the values' types.
fn construct(name: &str, fields: Vec<Value>, structs: &[Arc<StructType>]) -> Result<Value, String> {
    let tys: Vec<Type> = fields.iter().map(Value::julia_type).collect();
    let st = structs.iter().find(|s| {
        s.kind == StructKind::User
            && &*s.name == name
            && s.fields.iter().map(|(_, t)| t).eq(tys.iter())
    });
    match st {
        Some(st) => Ok(Value::new_struct(st.clone(), fields)),
        None => Err(format!(
            "no struct `{name}` declared with fields of types {tys:?}"
        )),
    }
}

/// Do `a` and `b` have one structure, equal but for Float64s within a relative 1e-12?
pub fn close(a: &Value, b: &Value) -> bool {
    let all = |xs: &[Value], ys: &[Value]| {
        xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| close(x, y))
    };
    match (a, b) {
        (Value::F64(x), Value::F64(y)) => {
            x.to_bits() == y.to_bits() || (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1.0)
        }
        (Value::Tuple(xs), Value::Tuple(ys)) => all(xs, ys),
        (Value::NamedTuple(n, xs), Value::NamedTuple(m, ys)) => n == m && all(xs, ys),
        (Value::Struct(s, xs), Value::Struct(t, ys)) => s == t && all(xs, ys),
        (Value::Array(x), Value::Array(y)) => {
            let (x, y) = (x.borrow(), y.borrow());
            match (&x.data, &y.data) {
                (ArrayData::F64(p), ArrayData::F64(q)) => {
                    x.shape == y.shape
                        && all(
                            &p.iter().map(|v| Value::F64(*v)).collect::<Vec<_>>(),
                            &q.iter().map(|v| Value::F64(*v)).collect::<Vec<_>>(),
                        )
                }
                _ => zy_interp::show(a) == zy_interp::show(b),
            }
        }
        _ => zy_interp::show(a) == zy_interp::show(b),
    }
}
