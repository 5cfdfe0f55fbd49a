//! The JSON encoding of values fixed by SPEC: numbers as numbers (non-finite floats as the
//! strings `"NaN"`, `"Inf"`, `"-Inf"`), `nothing` and `missing` as `null`, tuples and vectors as arrays, a
//! matrix as an array of rows, a view or a range as the array it stands for, structs, named tuples and closures as objects keyed by field, a
//! `Ref` as `{"x": ...}`, a character as its string.

use serde_json::{Map, Value as Json};

use crate::value::{ArrayData, Shape, Value};

/// Encode `v` as SPEC's JSON.
pub fn to_json(v: &Value) -> Json {
    match v {
        Value::F64(x) => float(*x),
        Value::F32(x) => float(f64::from(*x)),
        Value::Int(i) => Json::from(*i),
        Value::Sized(zy_ir::IntKind::UInt64, i) => Json::from(*i as u64),
        Value::Sized(_, i) => Json::from(*i),
        // An Int128 or UInt128: a number where 64 bits hold it, else its digits as a string
        // (JSON readers hold no wider integers exactly).
        Value::Wide(k, bits) => {
            let v = crate::wide::Exact::of(*k, bits.get());
            match (v.to_i128().map(i64::try_from), u64::try_from(v.bits())) {
                (Some(Ok(i)), _) => Json::from(i),
                (_, Ok(u)) if !v.negative() => Json::from(u),
                _ => Json::from(v.to_string()),
            }
        }
        Value::Bool(b) => Json::Bool(*b),
        Value::Nothing | Value::Undef(_) | Value::Pullback(_) => Json::Null,
        Value::Tuple(vs) => Json::Array(vs.iter().map(to_json).collect()),
        Value::NamedTuple(ns, vs) => object(ns.iter().map(|n| &**n).zip(vs.iter())),
        // `findfirst`'s `Union{Nothing, Int64}`: `null` or the index.
        Value::Struct(t, vs) if &*t.name == "Base.NothingOrInt" => match &vs[..] {
            [Value::Bool(true), i] => to_json(i),
            _ => Json::Null,
        },
        // `missing`, as JSON writers encode it.
        Value::Struct(t, _) if &*t.name == "Base.Missing" => Json::Null,
        // A character: the string of it.
        Value::Struct(t, _) if &*t.name == "Base.Char" => match crate::show::char_of(v) {
            Some(c) => Json::String(c.to_string()),
            None => Json::Null,
        },
        // A view (`view`, `reshape` of a variable): the array it stands for.
        Value::Struct(t, vs) if &*t.name == "Base.SubArray" => {
            let field = |name: &str| {
                let k = t.fields.iter().position(|(n, _)| &**n == name)?;
                vs.get(k)
            };
            let elements = field("parent")
                .zip(field("indices"))
                .and_then(|(p, i)| crate::show_library::view_elements(p, i));
            match elements {
                Some(a) => to_json(&a.into_value()),
                None => object(t.fields.iter().map(|(n, _)| &**n).zip(vs.iter())),
            }
        }
        // `Symmetric(A)`, `Hermitian(A)`: the dense matrix they stand for.
        Value::Struct(t, vs)
            if matches!(
                &*t.name,
                "LinearAlgebra.Symmetric" | "LinearAlgebra.Hermitian"
            ) =>
        {
            match vs.first().zip(vs.get(1)) {
                Some((a, Value::Bool(upper))) => {
                    match crate::show_library::symmetric_elements(a, *upper) {
                        Some(a) => to_json(&a.into_value()),
                        None => object(t.fields.iter().map(|(n, _)| &**n).zip(vs.iter())),
                    }
                }
                _ => object(t.fields.iter().map(|(n, _)| &**n).zip(vs.iter())),
            }
        }
        // `transpose(x)`: the 1×n row, as an `Adjoint` row.
        Value::Struct(t, vs) if &*t.name == "Base.Transpose" => {
            match vs.first().and_then(crate::show_library::row_elements) {
                Some(a) => to_json(&a.into_value()),
                None => object(t.fields.iter().map(|(n, _)| &**n).zip(vs.iter())),
            }
        }
        // `A'` and `transpose(A)` of a matrix: the transposed matrix (an adjoint's complex
        // elements conjugated).
        Value::Struct(t, vs)
            if matches!(&*t.name, "Base.AdjointMatrix" | "Base.TransposeMatrix") =>
        {
            let adjoint = &*t.name == "Base.AdjointMatrix";
            match vs
                .first()
                .and_then(|p| crate::show_library::transposed_elements(p, adjoint))
            {
                Some(a) => to_json(&a.into_value()),
                None => object(t.fields.iter().map(|(n, _)| &**n).zip(vs.iter())),
            }
        }
        // A `Set`: an array of its elements.
        Value::Struct(t, vs) if &*t.name == "Base.Set" => {
            match vs.first().and_then(crate::show_library::set_elements) {
                Some(xs) => Json::Array(xs.iter().map(to_json).collect()),
                None => Json::Null,
            }
        }
        // `pairs(x)`, a method's `kw...`: an object keyed by each key as `print` writes it, as
        // a `Dict`'s.
        Value::Struct(t, vs) if &*t.name == "Base.Pairs" => {
            match vs.first().and_then(crate::show_library::pairs_entries) {
                Some(entries) => Json::Object(
                    entries
                        .iter()
                        .map(|(k, v)| (crate::prim::strings::print_string(k), to_json(v)))
                        .collect(),
                ),
                None => object(t.fields.iter().map(|(n, _)| &**n).zip(vs.iter())),
            }
        }
        // A range: the array of its elements, as a view's.
        Value::Struct(t, vs) => match crate::show_library::range_elements(t, vs) {
            Some(elements) => Json::Array(elements.iter().map(to_json).collect()),
            None => object(t.fields.iter().map(|(n, _)| &**n).zip(vs.iter())),
        },
        // A `Dict`: an object keyed by each key as `print` writes it (`"a"`, `"1"`).
        Value::Mutable(t, vs) if &*t.name == "Base.Dict" => {
            match crate::show::dict_entries(&vs.borrow()) {
                Some((keys, vals)) => Json::Object(
                    keys.iter()
                        .map(crate::prim::strings::print_string)
                        .zip(vals.iter().map(to_json))
                        .collect(),
                ),
                None => Json::Null,
            }
        }
        Value::Mutable(t, vs) => object(t.fields.iter().map(|(n, _)| &**n).zip(vs.borrow().iter())),
        Value::Ref(r) => object(std::iter::once(("x", &*r.borrow()))),
        Value::Array(a) => {
            let a = a.borrow();
            match a.shape {
                Shape::Vector(n) => Json::Array((0..n).map(|i| element(&a.data, i)).collect()),
                Shape::Matrix(m, n) => Json::Array(
                    (0..m)
                        .map(|i| Json::Array((0..n).map(|j| element(&a.data, j * m + i)).collect()))
                        .collect(),
                ),
                Shape::Nd(d) => nested(&a.data, d.as_slice(), 0, 1),
            }
        }
        // A row vector is a 1×n matrix: one row.
        Value::Adjoint(a) => {
            let a = a.borrow();
            let row = (0..a.data.len()).map(|i| element(&a.data, i)).collect();
            Json::Array(vec![Json::Array(row)])
        }
        // A type or function as Julia names it (`UnitRange{Int64}`, `Base.OneTo{Int64}`).
        Value::Func(n) => Json::String(crate::show::visible_name(n)),
        Value::Symbol(n) | Value::Str(n) | Value::SubStr(n) => Json::String(n.to_string()),
        Value::Exception(e) => Json::String(e.text.clone()),
        Value::Stack(s) => Json::Array(s.borrow().iter().map(to_json).collect()),
    }
}

/// An N-d array as nested JSON arrays indexed first by the first dimension (`J[i][j][k]` is
/// `A[i, j, k]`, as a matrix's rows hold its columns): the elements at storage position `at`
/// plus each index of the dimensions `ds` times its `stride`.
fn nested(data: &crate::value::ArrayData, ds: &[usize], at: usize, stride: usize) -> Json {
    match ds.split_first() {
        None => element(data, at),
        Some((&n, rest)) => Json::Array(
            (0..n)
                .map(|i| nested(data, rest, at + i * stride, stride * n))
                .collect(),
        ),
    }
}

fn float(x: f64) -> Json {
    if x.is_nan() {
        Json::String("NaN".into())
    } else if x.is_infinite() {
        Json::String(if x > 0.0 { "Inf" } else { "-Inf" }.into())
    } else {
        serde_json::Number::from_f64(x).map_or(Json::Null, Json::Number)
    }
}

fn element(data: &ArrayData, i: usize) -> Json {
    match data {
        ArrayData::F64(v) => v.get(i).map_or(Json::Null, |&x| float(x)),
        ArrayData::Int(v) => v.get(i).map_or(Json::Null, |&x| Json::from(x)),
        ArrayData::Bool(v) => v.get(i).map_or(Json::Null, |&x| Json::Bool(x)),
        ArrayData::Obj(o) => o.items.get(i).map_or(Json::Null, to_json),
    }
}

fn object<'a>(fields: impl Iterator<Item = (&'a str, &'a Value)>) -> Json {
    let mut map = Map::new();
    for (name, v) in fields {
        map.insert(name.to_string(), to_json(v));
    }
    Json::Object(map)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn scalars_and_special_floats() {
        assert_eq!(to_json(&Value::F64(2.5)), json!(2.5));
        assert_eq!(to_json(&Value::F64(f64::NAN)), json!("NaN"));
        assert_eq!(to_json(&Value::F64(f64::INFINITY)), json!("Inf"));
        assert_eq!(to_json(&Value::F64(f64::NEG_INFINITY)), json!("-Inf"));
        assert_eq!(to_json(&Value::Int(-3)), json!(-3));
        assert_eq!(to_json(&Value::Bool(true)), json!(true));
        assert_eq!(to_json(&Value::Nothing), json!(null));
    }

    #[test]
    fn structs_and_closures_are_objects_keyed_by_field() {
        use std::sync::Arc;
        use zy_ir::{StructKind, StructType, Type};
        let ty = |name: &str, mutable, kind| {
            Arc::new(StructType {
                name: name.into(),
                params: vec![],
                fields: vec![
                    ("W".into(), Type::matrix_f64()),
                    ("b".into(), Type::vector_f64()),
                ],
                mutable,
                kind,
            })
        };
        let fields = || {
            vec![
                Value::matrix_f64(1, 2, vec![1.0, 2.0]).unwrap(),
                Value::vector_f64(vec![0.5]),
            ]
        };
        let want = json!({"W": [[1.0, 2.0]], "b": [0.5]});
        for (mutable, kind) in [
            (false, StructKind::User),
            (true, StructKind::User),
            (false, StructKind::Closure),
        ] {
            let v = Value::new_struct(ty("Dense", mutable, kind), fields());
            assert_eq!(to_json(&v), want);
        }
    }

    #[test]
    fn containers() {
        let t = Value::tuple([Value::F64(12.0), Value::Nothing]);
        assert_eq!(to_json(&t), json!([12.0, null]));
        let m = Value::matrix_f64(2, 2, vec![1.0, 3.0, 2.0, 4.0]).unwrap();
        assert_eq!(to_json(&m), json!([[1.0, 2.0], [3.0, 4.0]]));
        assert_eq!(to_json(&Value::vector_f64(vec![0.5])), json!([0.5]));
        let nt = Value::NamedTuple(
            vec!["W".into(), "b".into()].into(),
            vec![Value::F64(1.0), Value::Nothing].into(),
        );
        assert_eq!(to_json(&nt), json!({"W": 1.0, "b": null}));
        assert_eq!(to_json(&Value::new_ref(Value::F64(2.0))), json!({"x": 2.0}));
        let Value::Array(v) = Value::vector_f64(vec![1.0, 2.0]) else {
            unreachable!()
        };
        assert_eq!(to_json(&Value::Adjoint(v)), json!([[1.0, 2.0]]));
    }
}
