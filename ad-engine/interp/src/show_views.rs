//! Julia's element type of an array of views, `SubArray{T, N, P, I, L}` (what
//! `collect(eachcol(A))` shows), read from the views themselves: zy's views keep the linear
//! indices they select (a `StepRange` for a vector's range or a matrix's row or column), not
//! the index types they were made with.

use crate::show::type_string;
use crate::value::{Array, ArrayData, Value};

/// `SubArray{T, 1, P, I, L}` when every element of `a` is a view of one kind of a vector or a
/// matrix: a whole column or row of a matrix is Julia's `Base.Slice` (`eachcol`, `eachrow`,
/// `view(A, :, j)`; `view(A, 1:m, j)` reads the same elements and shows so too), a part of one
/// a `UnitRange` (a `StepRange` with a step), a vector's range a `UnitRange` (`view(v, a:b)`);
/// `None` for other arrays, views of different kinds, or none.
pub(crate) fn views_type(a: &Array) -> Option<String> {
    let ArrayData::Obj(objs) = &a.data else {
        return None;
    };
    let mut kinds = objs.items.iter().map(view_type);
    let first = kinds.next()??;
    kinds.all(|k| k.as_ref() == Some(&first)).then_some(first)
}

/// The type of one view by a `StepRange` of its parent's linear indices.
fn view_type(v: &Value) -> Option<String> {
    let Value::Struct(t, fs) = v else {
        return None;
    };
    let [Value::Array(parent), Value::Struct(r, ends), Value::Nothing] = &fs[..] else {
        return None;
    };
    let [Value::Int(start), Value::Int(step), Value::Int(stop)] = &ends[..] else {
        return None;
    };
    if &*t.name != "Base.SubArray" || &*r.name != "Base.StepRange" || *step < 1 || stop < start {
        return None;
    }
    let parent = parent.borrow();
    let len = (stop - start) / step + 1;
    // The index of a dimension read whole (by `:`), in part, or with a step.
    let range = |whole: bool, step: i64| match (whole, step) {
        (true, 1) => "Base.Slice{Base.OneTo{Int64}}",
        (false, 1) => "UnitRange{Int64}",
        _ => "StepRange{Int64, Int64}",
    };
    // Each of these is Julia's fast linear indexing (`L`): a range with scalars only.
    let indices = match parent.shape.ndims() {
        1 => range(false, *step).to_string(),
        2 => {
            let (rows, cols) = parent.shape.rows_cols();
            let rows = i64::try_from(rows).ok().filter(|&m| m > 0)?;
            let cols = i64::try_from(cols).ok()?;
            // A row steps by whole columns (of a single row, a part longer than one is a row).
            if step % rows == 0 && (rows > 1 || len > 1) {
                format!("Int64, {}", range(len == cols, step / rows))
            } else if (start - 1) / rows == (stop - 1) / rows {
                format!("{}, Int64", range(len == rows, *step))
            } else {
                return None;
            }
        }
        _ => return None,
    };
    Some(format!(
        "SubArray{{{}, 1, {}, Tuple{{{indices}}}, true}}",
        type_string(&parent.elem_type()),
        type_string(&parent.ty()),
    ))
}
