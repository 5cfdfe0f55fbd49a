//! What the property tests share: a call's value and gradients through both engines, compared
//! with the numbers a test derived, and Julia literals and SPEC JSON of the values it draws.

use serde_json::Value as Json;
use zy_ide::{Analysis, Engine, EvalLimits, FileId};

/// Does the JSON number `got` equal `want` within 1e-12 (relative, absolute below 1)?
pub fn close(want: f64, got: &Json) -> bool {
    got.as_f64()
        .is_some_and(|g| (g - want).abs() <= 1e-12 * want.abs().max(1.0))
}

/// `got` equals `want`, numbers by [`close`], arrays element by element.
pub fn same(want: &Json, got: &Json) -> bool {
    match (want, got) {
        (Json::Array(w), Json::Array(g)) => {
            w.len() == g.len() && w.iter().zip(g).all(|(w, g)| same(w, g))
        }
        (Json::Number(w), g) => w.as_f64().is_some_and(|w| close(w, g)),
        (w, g) => w == g,
    }
}

/// The Julia literal of a `Vector{Float64}`: `[1.5, -2.0]`, and `Float64[]` when empty (`[]`
/// is a `Vector{Any}`).
pub fn julia_vector(xs: &[f64]) -> String {
    if xs.is_empty() {
        return "Float64[]".to_string();
    }
    let items: Vec<String> = xs.iter().map(|&x| zy_ir::julia_float(x)).collect();
    format!("[{}]", items.join(", "))
}

/// A vector as SPEC's JSON encodes it.
pub fn vector_json(v: &[f64]) -> Json {
    Json::Array(v.iter().map(|&x| Json::from(x)).collect())
}

/// The value and the gradient of `call` in `file` through the interpreter and the JIT, or, for
/// the first engine that differs from `value` and `gradients` (one per argument, compared by
/// [`same`]; `accept` may take a gradient that `same` does not, such as a zero where no
/// element was read), what it gave.
pub fn check_both_engines(
    analysis: &Analysis,
    file: FileId,
    call: &str,
    value: f64,
    gradients: &[Json],
    accept: impl Fn(&Json, &Json) -> bool,
) -> Result<(), String> {
    for engine in [Engine::Interp, Engine::Jit] {
        let got = analysis
            .grad(file, call, EvalLimits::default(), engine)
            .map_err(|_| "cancelled".to_string())?
            .map_err(|e| format!("{call} ({engine:?}): {e}"))?;
        if !close(value, &got.value().json) {
            return Err(format!(
                "{call} ({engine:?}): value {} instead of {value}",
                got.value().json
            ));
        }
        if got.gradient().len() != gradients.len() {
            return Err(format!(
                "{call} ({engine:?}): {} gradients instead of {}",
                got.gradient().len(),
                gradients.len()
            ));
        }
        for (g, want) in got.gradient().iter().zip(gradients) {
            if !same(want, &g.json) && !accept(want, &g.json) {
                return Err(format!(
                    "{call} ({engine:?}): gradient {} instead of {want}",
                    g.json
                ));
            }
        }
    }
    Ok(())
}

/// Does the JIT run the gradient of `call` itself (the pipeline hands it to the interpreter
/// when the JIT declines the program)? `Err` says why not.
pub fn check_compiled(analysis: &Analysis, file: FileId, call: &str) -> Result<(), String> {
    let got = analysis
        .grad(file, call, EvalLimits::default(), Engine::Jit)
        .map_err(|_| "cancelled".to_string())?
        .map_err(|e| format!("{call} (Jit): {e}"))?;
    match got.jit_fallback {
        None => Ok(()),
        Some(why) => Err(format!("{call}: the interpreter ran it: {why}")),
    }
}

/// Run every `# expect grad:` call of the fixtures `names` (paths under `fixtures/`) asking for
/// the JIT: how many there were, and those the pipeline handed to the interpreter, with why.
pub fn fixture_fallbacks(names: &[&str]) -> (usize, Vec<String>) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut checked = 0;
    let mut fell_back = Vec::new();
    for name in names {
        let path = root.join(name);
        let text = std::fs::read_to_string(&path).expect("fixture");
        let mut host = zy_ide::AnalysisHost::new();
        let file = host.set_file_text(&path, text.clone());
        let analysis = host.analysis();
        for line in text.lines() {
            let Some(rest) = line.trim_start().strip_prefix("# expect grad: ") else {
                continue;
            };
            let Some((call, _)) = rest.rsplit_once(" => ") else {
                continue;
            };
            let got = analysis
                .grad(file, call, EvalLimits::default(), Engine::Jit)
                .expect("not cancelled")
                .unwrap_or_else(|e| panic!("{call}: {e}"));
            checked += 1;
            if let Some(why) = got.jit_fallback {
                fell_back.push(format!("{name}: {call}: {why}"));
            }
        }
    }
    (checked, fell_back)
}
