//! Short forms of values for places with little room (a lens title, an inlay hint): a value
//! that does not fit becomes Julia's `summary` if it is an array (`10-element Vector{Float64}`,
//! `3×4 Matrix{Float64}`), else its first characters and an ellipsis.

use serde_json::Value;
use zy_ide::EvalResult;

/// The longest lens title, in characters.
pub const TITLE_CHARS: usize = 80;

/// The longest inlay hint label, in characters.
pub const HINT_CHARS: usize = 40;

/// The longest form of one value inside a title.
const VALUE_CHARS: usize = 24;

/// `value` as shown, or a summary of it if that is longer than [`VALUE_CHARS`].
pub fn short(value: &EvalResult) -> String {
    if value.display.chars().count() <= VALUE_CHARS {
        return value.display.clone();
    }
    match array_summary(value) {
        Some(s) => s,
        None => truncate(&value.display, VALUE_CHARS),
    }
}

/// A gradient tuple as Julia prints it, each element in its [`short`] form.
pub fn short_tuple(values: &[EvalResult]) -> String {
    tuple(values.iter().map(short))
}

/// A gradient tuple as Julia prints it in full.
pub fn full_tuple(values: &[EvalResult]) -> String {
    tuple(values.iter().map(|v| v.display.clone()))
}

fn tuple(parts: impl Iterator<Item = String>) -> String {
    let parts: Vec<String> = parts.collect();
    match parts.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", parts.join(", ")),
    }
}

/// At most `max` characters of `text`, the last an ellipsis when something was cut.
pub fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Julia's `summary` of an array value: its size and type.
fn array_summary(value: &EvalResult) -> Option<String> {
    let Value::Array(items) = &value.json else {
        return None;
    };
    if value.ty.starts_with("Vector{") {
        return Some(format!("{}-element {}", items.len(), value.ty));
    }
    if value.ty.starts_with("Matrix{") {
        // SPEC's JSON holds a matrix as its rows.
        let cols = match items.first() {
            Some(Value::Array(row)) => row.len(),
            _ => 0,
        };
        return Some(format!("{}×{cols} {}", items.len(), value.ty));
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn value(display: &str, json: Value, ty: &str) -> EvalResult {
        EvalResult {
            display: display.into(),
            json,
            ty: ty.into(),
        }
    }

    #[test]
    fn long_arrays_become_their_summary_and_short_values_stay() {
        let v: Vec<f64> = (0..10).map(f64::from).collect();
        let shown = format!("{v:?}");
        assert_eq!(
            short(&value(&shown, json!(v), "Vector{Float64}")),
            "10-element Vector{Float64}"
        );
        let m = json!([
            [1.0, 2.0, 3.0, 4.0],
            [5.0, 6.0, 7.0, 8.0],
            [9.0, 10.0, 11.0, 12.0]
        ]);
        let shown = "[1.0 2.0 3.0 4.0; 5.0 6.0 7.0 8.0; 9.0 10.0 11.0 12.0]";
        assert_eq!(
            short(&value(shown, m, "Matrix{Float64}")),
            "3×4 Matrix{Float64}"
        );
        assert_eq!(
            short(&value("[1.0, 2.0]", json!([1.0, 2.0]), "Vector{Float64}")),
            "[1.0, 2.0]"
        );
        let nt = "(W = [1.0 2.0; 3.0 4.0], b = [0.5, 0.25])";
        assert_eq!(
            short(&value(nt, json!({}), "NamedTuple")),
            "(W = [1.0 2.0; 3.0 4.0]…"
        );
    }

    #[test]
    fn tuples_print_as_julia_does() {
        let x = value("12.0", json!(12.0), "Float64");
        let n = value("nothing", Value::Null, "Nothing");
        assert_eq!(short_tuple(std::slice::from_ref(&x)), "(12.0,)");
        assert_eq!(short_tuple(&[x.clone(), n.clone()]), "(12.0, nothing)");
        assert_eq!(full_tuple(&[]), "()");
        assert_eq!(truncate("∇∇∇∇", 3), "∇∇…");
    }
}
