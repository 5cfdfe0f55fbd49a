//! Time to first gradient: from the source text to the first gradient result in a fresh
//! [`AnalysisHost`] (parse, lower, infer, differentiate, compile, evaluate the arguments, run).
//! Measured as CPU time, like every figure of the benchmark: the work is single-threaded, so on
//! an idle machine it is the wall-clock latency, and on a loaded one it leaves out the waits.

use std::path::Path;

use crate::timing::CpuTime;

use zy_ide::{AnalysisHost, Engine, EvalLimits};

use crate::cases::Case;

/// Milliseconds from `case`'s source text to its first JIT gradient, in a fresh host.
pub fn first_gradient_ms(case: &Case) -> Result<f64, String> {
    let start = CpuTime::now();
    let mut host = AnalysisHost::new();
    let file = host.set_file_text(Path::new(case.file), case.source.to_string());
    let result = host
        .analysis()
        .grad(file, case.call, EvalLimits::default(), Engine::Jit)
        .map_err(|_| "cancelled".to_string())?
        .map_err(|e| e.to_string())?;
    let ms = start.elapsed().as_secs_f64() * 1e3;
    std::hint::black_box(result);
    Ok(ms)
}
