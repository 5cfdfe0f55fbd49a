//! Closures sharing a box with the function making them (Julia's `Core.Box`) run compiled.

use zy_tests::engines::fixture_fallbacks;

/// Every gradient of the fixtures of boxes, empty ones (a local a closure captures before it
/// is assigned) included, runs on the JIT: the pipeline never hands one to the interpreter.
#[test]
fn the_fixtures_of_boxes_run_on_the_jit() {
    let (checked, fell_back) = fixture_fallbacks(&["closures_later.jl", "closures_boxed.jl"]);
    assert!(checked >= 20, "only {checked} gradients found");
    assert!(
        fell_back.is_empty(),
        "run by the interpreter:\n{}",
        fell_back.join("\n")
    );
}
