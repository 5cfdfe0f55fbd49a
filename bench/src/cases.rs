//! The five benchmarks of Table 2: which fixture, which call.

/// One benchmark: a fixture of `fixtures/table2` and the call whose gradient is timed.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    /// The key of the benchmark in `table2.json`.
    pub key: &'static str,
    /// The fixture's file name.
    pub file: &'static str,
    /// The fixture's text (embedded, so that the binary runs from anywhere).
    pub source: &'static str,
    /// The benchmark call, as written in the fixture's `# zy: at` line.
    pub call: &'static str,
}

/// The benchmarks in the order of the paper's table.
pub const CASES: [Case; 5] = [
    Case {
        key: "sincos",
        file: "sincos.jl",
        source: include_str!("../../fixtures/table2/sincos.jl"),
        call: "sin_cos(1.0)",
    },
    Case {
        key: "loop",
        file: "loop.jl",
        source: include_str!("../../fixtures/table2/loop.jl"),
        call: "pow(1.001, 1000)",
    },
    Case {
        key: "logsumexp",
        file: "logsumexp.jl",
        source: include_str!("../../fixtures/table2/logsumexp.jl"),
        call: "logsumexp(lse_input(1000))",
    },
    Case {
        key: "logistic_regression",
        file: "logistic.jl",
        source: include_str!("../../fixtures/table2/logistic.jl"),
        call: "logistic_loss([0.1, -0.2, 0.3, -0.4, 0.5, -0.1, 0.2, -0.3, 0.4, -0.5], logistic_X(100, 10), logistic_y(100))",
    },
    Case {
        key: "mlp",
        file: "mlp.jl",
        source: include_str!("../../fixtures/table2/mlp.jl"),
        call: "mlp_loss(mlp_W1(), mlp_b1(), mlp_W2(), mlp_b2(), mlp_input(), 3)",
    },
];

/// The case with JSON key `key`.
pub fn by_key(key: &str) -> Option<Case> {
    CASES.iter().copied().find(|c| c.key == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_call_is_annotated_in_its_fixture() {
        for case in CASES {
            let line = format!("# zy: at {}", case.call);
            assert!(case.source.contains(&line), "{} lacks `{line}`", case.file);
        }
    }
}
