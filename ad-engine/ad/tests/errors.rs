//! Calls whose gradient is undefined get a clear error naming the source location.

use crate::common;

use zy_interp::Value;

fn ad_error(src: &str, name: &str, args: &[Value]) -> zy_ad::AdError {
    let (inst, prog) = common::run::typed(src, name, args);
    let program = common::run::program(src);
    match zy_ad::gradient_program_with_rrules(&program, &prog, &inst) {
        Ok(_) => panic!("{name}: expected an error"),
        Err(e) => e,
    }
}

#[test]
fn non_scalar_result() {
    let src = "twice(x) = [x, 2x]";
    let e = ad_error(src, "twice", &[Value::F64(1.0)]);
    assert_eq!(
        e.message,
        "gradient of a non-scalar result (Vector{Float64})"
    );
}

#[test]
fn rrule_with_the_wrong_arity_names_the_rule() {
    let src = "sq(x) = x^2
function rrule(::typeof(sq), x)
    y = sq(x)
    sq_pullback(ȳ) = 2x * ȳ
    return y, sq_pullback
end
use_sq(x) = sq(x) + 1.0";
    let e = ad_error(src, "use_sq", &[Value::F64(1.0)]);
    assert!(
        e.message.starts_with(
            "the rrule for `sq` returns a pullback giving Float64: expected a tuple of 2"
        ),
        "{}",
        e.message
    );
    // The span is the rrule's signature (line 2).
    let start = src.find("function rrule").unwrap_or(0) as u32;
    assert!(
        e.span.start >= start && e.span.start < start + 40,
        "{:?}",
        e.span
    );
}

#[test]
fn nothing_reaches_a_function_that_always_throws() {
    let src = "boom(x) = error(\"no\")";
    let e = ad_error(src, "boom", &[Value::F64(1.0)]);
    assert_eq!(
        e.message,
        "cannot differentiate `boom`: it never returns (every path throws)"
    );
}
