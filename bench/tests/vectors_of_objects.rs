//! Every primal that the fixtures of vectors of arrays, structs and tuples evaluate runs as
//! machine code from the `compiled` query (the JIT compiles the program holding the vector;
//! before session 10 it declined it) and gives the interpreter's value, or its error. The one
//! decline by design: a `deepcopy` of objects holding objects, whose sharing only the
//! interpreter restores (session 17).

use std::path::Path;

use zy_bench::zy::prepare_primal;
use zy_ide::{AnalysisHost, EvalLimits};

#[test]
fn the_primals_of_the_vector_fixtures_are_compiled_and_agree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut checked = 0;
    let mut problems = Vec::new();
    for name in ["vectors_of_arrays.jl", "vectors_of_structs.jl"] {
        let path = root.join(name);
        let text = std::fs::read_to_string(&path).expect("fixture");
        let mut host = AnalysisHost::new();
        let file = host.set_file_text(&path, text.clone());
        let analysis = host.analysis();
        for line in text.lines().map(str::trim_start) {
            let (call, error) = match (
                line.strip_prefix("# expect eval: "),
                line.strip_prefix("# expect error: "),
            ) {
                (Some(rest), _) => (rest.rsplit_once(" => ").map(|(c, _)| c), false),
                (_, Some(rest)) => (rest.rsplit_once(" => ").map(|(c, _)| c), true),
                _ => continue,
            };
            let Some(call) = call.map(str::trim) else {
                continue;
            };
            // Calls of `gradient`, `jacobian`, ... inside a function, and errors of the front
            // end, are other tests' business: only primals of the file's functions here.
            let Ok((args, primal, _host)) = prepare_primal(name, &text, call) else {
                continue;
            };
            let Some(compiled) = primal.compiled() else {
                let reason = primal.fallback_reason().unwrap_or("?");
                if reason.contains("`deepcopy` of") {
                    continue;
                }
                problems.push(format!("{name}: {call}: not compiled: {reason}"));
                continue;
            };
            checked += 1;
            let by_jit = compiled.call(&args, &zy_interp::Limits::default());
            let by_interp = analysis
                .eval(file, call, EvalLimits::default())
                .expect("not cancelled");
            match (by_jit, by_interp) {
                (Ok(v), Ok(want)) if zy_interp::to_json(&v) == want.json => {}
                (Err(e), Err(want)) if error && want.message.contains(&e.message) => {}
                (got, want) => problems.push(format!(
                    "{name}: {call}: JIT {:?} but interpreter {:?}",
                    got.map(|v| zy_interp::show(&v)).map_err(|e| e.message),
                    want.map(|w| w.display).map_err(|e| e.message)
                )),
            }
        }
    }
    assert!(checked > 40, "only {checked} calls compiled");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
