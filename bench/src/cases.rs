//! The benchmarks: Table 2's five (`fixtures/table2`) and the workloads table's five
//! (`fixtures/workloads`), each a fixture and the call whose gradient is timed.

/// One benchmark: a fixture and the call whose gradient is timed.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    /// The key of the benchmark in its table's JSON.
    pub key: &'static str,
    /// The fixture's path under `fixtures/`.
    pub file: &'static str,
    /// The fixture's text (embedded, so that the binary runs from anywhere).
    pub source: &'static str,
    /// The benchmark call. Table 2's fixtures carry it in their `# zy: at` line; a workload's
    /// fixture may choose a smaller call there, which `zy-analyze check` runs in the
    /// interpreter on every check.
    pub call: &'static str,
    /// What the reader of the row must know (printed under the table and kept in the JSON).
    pub note: Option<&'static str>,
}

impl Case {
    /// The function called, `f` of `f(args...)`.
    pub fn function(&self) -> &'static str {
        self.call.split('(').next().unwrap_or(self.call)
    }

    /// The fixture's text with the `# zy: at` line of the benchmark's function set to the
    /// benchmark call (what the editor's gradient lens then runs), or `None` if the function
    /// has no such line.
    pub fn source_at_benchmark(&self) -> Option<String> {
        let prefix = format!("# zy: at {}(", self.function());
        let mut found = false;
        let lines: Vec<String> = self
            .source
            .lines()
            .map(|line| {
                if !found && line.trim_start().starts_with(&prefix) {
                    found = true;
                    format!("# zy: at {}", self.call)
                } else {
                    line.to_string()
                }
            })
            .collect();
        found.then(|| lines.join("\n") + "\n")
    }
}

/// A table of benchmarks, with where its results go.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Table {
    /// The paper's Table 2.
    Table2,
    /// Code as users write it.
    Workloads,
}

impl Table {
    /// The table called `name` (`table2`, `workloads`).
    pub fn named(name: &str) -> Option<Table> {
        match name {
            "table2" => Some(Table::Table2),
            "workloads" => Some(Table::Workloads),
            _ => None,
        }
    }

    /// Its name, which also names its JSON and chart.
    pub fn name(self) -> &'static str {
        match self {
            Table::Table2 => "table2",
            Table::Workloads => "workloads",
        }
    }

    /// Its benchmarks, in table order.
    pub fn cases(self) -> &'static [Case] {
        match self {
            Table::Table2 => &CASES,
            Table::Workloads => &WORKLOADS,
        }
    }
}

/// The benchmarks of Table 2 in the order of the paper's table.
pub const CASES: [Case; 5] = [
    Case {
        key: "sincos",
        file: "table2/sincos.jl",
        source: include_str!("../../fixtures/table2/sincos.jl"),
        call: "sin_cos(1.0)",
        note: None,
    },
    Case {
        key: "loop",
        file: "table2/loop.jl",
        source: include_str!("../../fixtures/table2/loop.jl"),
        call: "pow(1.001, 1000)",
        note: None,
    },
    Case {
        key: "logsumexp",
        file: "table2/logsumexp.jl",
        source: include_str!("../../fixtures/table2/logsumexp.jl"),
        call: "logsumexp(lse_input(1000))",
        note: None,
    },
    Case {
        key: "logistic_regression",
        file: "table2/logistic.jl",
        source: include_str!("../../fixtures/table2/logistic.jl"),
        call: "logistic_loss([0.1, -0.2, 0.3, -0.4, 0.5, -0.1, 0.2, -0.3, 0.4, -0.5], logistic_X(100, 10), logistic_y(100))",
        note: None,
    },
    Case {
        key: "mlp",
        file: "table2/mlp.jl",
        source: include_str!("../../fixtures/table2/mlp.jl"),
        call: "mlp_loss(mlp_W1(), mlp_b1(), mlp_W2(), mlp_b2(), mlp_input(), 3)",
        note: None,
    },
];

/// The workloads: code as users write it, in the order of issue 16.
pub const WORKLOADS: [Case; 6] = [
    Case {
        key: "rosenbrock",
        file: "workloads/rosenbrock.jl",
        source: include_str!("../../fixtures/workloads/rosenbrock.jl"),
        call: "rosenbrock(rosenbrock_start(10000))",
        note: None,
    },
    Case {
        key: "rosenbrock_slices",
        file: "workloads/rosenbrock.jl",
        source: include_str!("../../fixtures/workloads/rosenbrock.jl"),
        call: "rosenbrock_slices(rosenbrock_start(10000))",
        note: Some(
            "the same function over the slices x[2:end] and x[1:end-1] with broadcasts, as JAX \
             and PyTorch write it; the hand-written gradient is the loop's",
        ),
    },
    Case {
        key: "rk4",
        file: "workloads/rk4.jl",
        source: include_str!("../../fixtures/workloads/rk4.jl"),
        call: "simulate(0.1, (1.0, 0.0), 0.01, 1000)",
        note: None,
    },
    Case {
        key: "mlp_batch",
        file: "workloads/mlp_batch.jl",
        source: include_str!("../../fixtures/workloads/mlp_batch.jl"),
        call: "mlp_batch_loss(mlp_weights(128, 784, 0.01, 0.0), mlp_bias(128, 0.01), mlp_weights(10, 128, 0.1, 0.5), mlp_bias(10, 0.1), mlp_inputs(784, 64), mlp_targets(10, 64))",
        note: None,
    },
    Case {
        key: "gp_cholesky",
        file: "workloads/gp_cholesky.jl",
        source: include_str!("../../fixtures/workloads/gp_cholesky.jl"),
        call: "gp_nll(0.0, 0.0, -1.0, gp_x(200), gp_y(200))",
        note: None,
    },
    Case {
        key: "tree_sum",
        file: "workloads/tree_sum.jl",
        source: include_str!("../../fixtures/workloads/tree_sum.jl"),
        call: "tree_sum(tree_input(1024))",
        note: None,
    },
];

/// The case with JSON key `key`, in either table.
pub fn by_key(key: &str) -> Option<Case> {
    CASES
        .iter()
        .chain(&WORKLOADS)
        .copied()
        .find(|c| c.key == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table2_call_is_annotated_in_its_fixture() {
        for case in CASES {
            let line = format!("# zy: at {}", case.call);
            assert!(case.source.contains(&line), "{} lacks `{line}`", case.file);
            assert_eq!(case.source_at_benchmark().as_deref(), Some(case.source));
        }
    }

    #[test]
    fn every_benchmark_function_has_a_lens_call_to_set() {
        for case in CASES.iter().chain(&WORKLOADS) {
            let text = case.source_at_benchmark();
            let line = format!("# zy: at {}\n", case.call);
            assert!(
                text.as_deref().is_some_and(|t| t.contains(&line)),
                "{} has no `# zy: at {}(...)`",
                case.file,
                case.function()
            );
        }
        // gp_cholesky's fixture is checked at n = 50; the benchmark sets n = 200.
        let gp = by_key("gp_cholesky").unwrap();
        assert!(gp
            .source
            .contains("# zy: at gp_nll(0.0, 0.0, -1.0, gp_x(50), gp_y(50))"));
        assert_eq!(gp.function(), "gp_nll");
    }

    #[test]
    fn keys_are_unique_across_tables() {
        let mut keys: Vec<&str> = CASES.iter().chain(&WORKLOADS).map(|c| c.key).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), 11);
        assert_eq!(Table::named("workloads"), Some(Table::Workloads));
        assert_eq!(Table::named("table2").map(Table::name), Some("table2"));
        assert_eq!(Table::named("table3"), None);
    }
}
