//! The checker behind `zy-analyze check` and the editor's warnings: lints over the typed IR of
//! every function of the file that can be typed (at its `# zy: at` and `# zy: gradcheck`
//! calls, through typed callers, or at concrete parameter annotations: [`coverage`]), with the
//! reaching-gradient analysis and a few structural rules, the in-source `rrule` check,
//! `zy.toml` levels and `# zy: allow(CODE)` suppression.
//!
//! One implementation, two faces: [`Analysis::diagnostics`] includes the lints at their
//! default levels (the language server shows them); [`Analysis::check`] adds the gradchecks and
//! applies a file's [`FileConfig`]. Lint codes and their rationale are documented in
//! `docs/lints.md`.

mod capture;
mod config;
mod coverage;
mod cut;
mod declared;
pub(crate) mod julia_tests;
mod nonfinite;
mod rrule;
mod runtime;
mod suppress;
mod tape;
mod test_text;
mod test_throws;

use std::sync::Arc;

use zy_ad::activity::Activity;
use zy_hir::{ItemKind, RootDatabase, SourceFile, TypedCall};
use zy_ir::{Function, Span};
use zy_syntax::ast::{AnnotationKind, Item};

pub use config::{Config, ConfigError, FileConfig, Level, DEFAULT_MAX_FILE_SIZE, DEFAULT_RTOL};
pub use coverage::{Coverage, Untyped};
pub(crate) use cut::zero_cut;
pub use julia_tests::{TestCounts, TEST_FAILED, TEST_NOT_RUN};

use crate::{
    Analysis, Cancellable, Diagnostic, EvalLimits, FileId, Severity, FORWARD_MISMATCH, GRADCHECK,
};

/// A lint: its stable code, default level and what it finds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Lint {
    /// The stable code (`zero-gradient`), used in output, `zy.toml` and `# zy: allow`.
    pub code: &'static str,
    /// The level when `zy.toml` says nothing.
    pub default: Level,
    /// One line, for `--help`-style listings and SARIF rule descriptions.
    pub summary: &'static str,
}

/// Code of [`LINTS`]: an argument no gradient can reach.
pub const ZERO_GRADIENT: &str = "zero-gradient";
/// Code of [`LINTS`]: a gradient cut by a non-differentiable operation on every path.
pub const GRADIENT_CUT: &str = "gradient-cut";
/// Code of [`LINTS`]: an array written after a pullback captured it.
pub const MUTATION_AFTER_CAPTURE: &str = "mutation-after-capture";
/// Code of [`LINTS`]: an in-source `rrule` that disagrees with finite differences.
pub const RRULE_MISMATCH: &str = "rrule-mismatch";
/// Code of [`LINTS`]: a loop or recursion whose tape grows with a value, not the input's size.
pub const UNBOUNDED_TAPE: &str = "unbounded-tape";
/// Code of [`LINTS`]: a non-finite gradient of finite arguments at an annotated call.
pub use nonfinite::NONFINITE_GRADIENT;
/// Code of [`LINTS`]: a `using`/`import` of a package zy does not know.
pub use zy_hir::UNKNOWN_PACKAGE;

/// Every lint, in documentation order.
pub const LINTS: &[Lint] = &[
    Lint {
        code: ZERO_GRADIENT,
        default: Level::Warn,
        summary: "a differentiable argument that no gradient can reach: its gradient is always `nothing`",
    },
    Lint {
        code: GRADIENT_CUT,
        default: Level::Warn,
        summary: "every path from an argument to the result passes through a non-differentiable operation",
    },
    Lint {
        code: MUTATION_AFTER_CAPTURE,
        default: Level::Warn,
        summary: "an array written after a pullback captured it: zy saves and restores each overwritten element",
    },
    Lint {
        code: RRULE_MISMATCH,
        default: Level::Warn,
        summary: "an in-source `rrule` whose gradient disagrees with finite differences at a `# zy: at` call",
    },
    Lint {
        code: UNBOUNDED_TAPE,
        default: Level::Warn,
        summary: "a loop or recursion whose tape grows with the value of a Float64, not with the size of the input",
    },
    Lint {
        code: NONFINITE_GRADIENT,
        default: Level::Warn,
        summary: "the gradient at a `# zy: at` or `# zy: gradcheck` call is NaN or infinite although its arguments are finite; reported where the first non-finite value was born",
    },
    Lint {
        code: UNKNOWN_PACKAGE,
        default: Level::Warn,
        summary: "a `using` or `import` of a package zy does not know (`using Plots`): the functions that use a name only it defines are refused",
    },
];

/// What running a file's tests found ([`Analysis::check_tests`]).
#[derive(Clone, Debug)]
pub struct TestRun {
    /// Failures, errors, and notes on the tests zy cannot run.
    pub findings: Vec<Diagnostic>,
    /// How many tests gave each verdict.
    pub counts: TestCounts,
    /// The top-level statements (by start offset) whose tests ran.
    ran: Vec<u32>,
}

impl TestRun {
    /// Add the findings to `found`, leaving out the "zy does not run" notes of the statements
    /// whose tests ran; the counts.
    pub fn apply(self, found: &mut Vec<Diagnostic>) -> TestCounts {
        found.retain(|d| !(d.code == zy_hir::SKIPPED && self.ran.contains(&d.start)));
        found.extend(self.findings);
        self.counts
    }
}

/// The lint with this code, if it is one.
pub fn lint(code: &str) -> Option<&'static Lint> {
    LINTS.iter().find(|l| l.code == code)
}

impl Analysis {
    /// Everything `zy-analyze check` reports for `file`: [`Analysis::check_static`] and
    /// [`Analysis::check_gradchecks`] together, sorted by position.
    pub fn check(
        &self,
        file: FileId,
        config: &FileConfig,
        limits: EvalLimits,
    ) -> Cancellable<Vec<Diagnostic>> {
        let mut found = self.check_static(file, config)?;
        found.extend(self.check_gradchecks(file, config, limits.clone())?);
        self.check_tests(file, config, limits)?.apply(&mut found);
        found.sort_by_key(|d| (d.start, d.end));
        Ok(found)
    }

    /// Run the file's own `@test`s (at top level and in `@testset` blocks) as Julia's `Test`
    /// would: a failure or an error is a `test-failed` finding, a test zy cannot run a note.
    pub fn check_tests(
        &self,
        file: FileId,
        config: &FileConfig,
        limits: EvalLimits,
    ) -> Cancellable<TestRun> {
        let mut limits = limits;
        limits.cancel.get_or_insert_with(|| self.stale_flag());
        self.with_db(|db| {
            let ran = julia_tests::check(db, file.0, &limits);
            self.unwind_if_stale();
            TestRun {
                findings: finish(db, file.0, ran.findings, config),
                counts: ran.counts,
                ran: ran.taken,
            }
        })
    }

    /// Syntax, lowering and type errors, lints and in-source rrule checks of `file`, levelled
    /// by `config`, without the ones a `# zy: allow(CODE)` comment suppresses.
    pub fn check_static(&self, file: FileId, config: &FileConfig) -> Cancellable<Vec<Diagnostic>> {
        let limits = EvalLimits {
            cancel: Some(self.stale_flag()),
            ..EvalLimits::default()
        };
        self.with_db(|db| {
            let mut found = crate::diagnostics::errors(db, file.0);
            found.extend(lints(db, file.0, &limits, config.rtol));
            self.unwind_if_stale();
            finish(db, file.0, found, config)
        })
    }

    /// The `# zy: gradcheck` findings of `file` (with `config`'s tolerance and levels).
    pub fn check_gradchecks(
        &self,
        file: FileId,
        config: &FileConfig,
        limits: EvalLimits,
    ) -> Cancellable<Vec<Diagnostic>> {
        let mut limits = limits;
        limits.cancel.get_or_insert_with(|| self.stale_flag());
        self.with_db(|db| {
            let found = crate::gradcheck::gradchecks(db, file.0, &limits, config.rtol);
            self.unwind_if_stale();
            finish(db, file.0, found, config)
        })
    }

    /// How many functions of `file` `check` typed (and linted), and how many it could not.
    pub fn coverage(&self, file: FileId) -> Cancellable<Coverage> {
        self.with_db(|db| {
            if crate::eval::load_error(db, file.0).is_some() {
                return coverage::count(db, file.0, &Default::default());
            }
            let specs = specialisations(db, file.0);
            let typed = coverage::typed_functions(db, file.0, &specs);
            coverage::count(db, file.0, &typed)
        })
    }
}

/// The lints of `file` (static ones, then the rrule checks, which run code under `limits`).
pub(crate) fn lints(
    db: &RootDatabase,
    file: SourceFile,
    limits: &EvalLimits,
    rtol: f64,
) -> Vec<Diagnostic> {
    if crate::eval::load_error(db, file).is_some() {
        return Vec::new(); // the errors say why
    }
    let mut out = Vec::new();
    let specs = specialisations(db, file);
    // A function whose result has no gradient (a predicate, an Int count) is not
    // differentiated: there is nothing to lint.
    let typed = coverage::typed_functions(db, file, &specs);
    out.extend(typed.errors);
    for t in typed
        .functions
        .iter()
        .filter(|t| t.func.ret.is_differentiable())
    {
        let cx = Cx {
            db,
            file,
            spec: t,
            activity: t.activity.clone(),
        };
        cut::check(&cx, &mut out);
        capture::check(&cx, &mut out);
        tape::check(&cx, &mut out);
    }
    out.extend(rrule::check(db, file, &specs, limits, rtol));
    out.extend(nonfinite::check(db, file, &specs, limits));
    out.extend(runtime::check(db, file, limits));
    out
}

/// Level, suppress, deduplicate and sort findings.
pub(crate) fn finish(
    db: &RootDatabase,
    file: SourceFile,
    found: Vec<Diagnostic>,
    config: &FileConfig,
) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = found
        .into_iter()
        .filter_map(|mut d| {
            d.severity = match d.severity {
                // Notes stay notes unless zy.toml names their code.
                Severity::Note if !config.names(&d.code) => Severity::Note,
                _ => config.level(&d.code).severity()?,
            };
            Some(d)
        })
        .collect();
    suppress::retain_allowed(file.text(db), &mut out);
    out.sort_by(|a, b| {
        (a.start, a.end, &a.code, &a.message).cmp(&(b.start, b.end, &b.code, &b.message))
    });
    out.dedup();
    out
}

/// A function of the file specialised at one of its annotated calls.
pub(crate) struct Specialisation {
    /// The call as written, and the byte offset of its text in the file.
    pub call: String,
    pub call_start: u32,
    pub call_end: u32,
    /// The same call is also a `# zy: gradcheck` of the item (checked there).
    pub gradchecked: bool,
    /// The typed call with everything it reaches.
    pub typed: TypedCall,
    /// The typed body of the specialisation the call invokes.
    pub func: Arc<Function>,
}

/// The specialisations of the file's functions at their `# zy: at` and `# zy: gradcheck` calls
/// (each distinct call once; calls that do not type are reported by `diagnostics`).
fn specialisations(db: &RootDatabase, file: SourceFile) -> Vec<Specialisation> {
    let mut out: Vec<Specialisation> = Vec::new();
    for &item in zy_hir::item_tree(db, file) {
        if item.kind(db) != ItemKind::Function {
            continue;
        }
        let Some(ast) = zy_hir::item_ast(db, item) else {
            continue;
        };
        let Item::Function(def) = &**ast else {
            continue;
        };
        let first = out.len();
        for a in &def.annotations {
            if a.kind == AnnotationKind::Allow || out[first..].iter().any(|s| s.call == a.text) {
                continue;
            }
            let Some((call_start, call_end)) =
                zy_hir::item_range(db, item, a.range.start, a.range.end)
            else {
                continue;
            };
            let Ok(expr) = zy_syntax::parse_expr(&a.text) else {
                continue;
            };
            let module = zy_hir::item_module(db, zy_hir::scope_root(db, file), item);
            let Ok(typed) = zy_hir::type_call_in(db, file, &module, &expr) else {
                continue;
            };
            let Some(inst) = crate::grad::returned_invoke(&typed.body) else {
                continue;
            };
            let Some(func) = typed.program.functions.get(&inst).cloned() else {
                continue;
            };
            if func.span.file != item.span_file() {
                continue; // the call dispatches to another method
            }
            let gradchecked = def
                .annotations
                .iter()
                .any(|g| g.kind == AnnotationKind::Gradcheck && g.text == a.text);
            out.push(Specialisation {
                call: a.text.clone(),
                call_start,
                call_end,
                gradchecked,
                typed,
                func,
            });
        }
    }
    out
}

/// What a lint pass over one specialisation needs.
pub(crate) struct Cx<'a> {
    pub db: &'a RootDatabase,
    pub file: SourceFile,
    pub spec: &'a coverage::TypedFn,
    pub activity: Activity,
}

impl Cx<'_> {
    /// The byte range of an IR span of the function, if it is in this file.
    pub fn range(&self, span: Span) -> Option<(u32, u32)> {
        if span.file != self.spec.item.span_file() {
            return None;
        }
        zy_hir::locate(self.db, span, None)
            .filter(|r| r.file == self.file)
            .map(|r| (r.start, r.end))
    }

    /// The name of argument `i` as written (`argument 2` if it has none).
    pub fn arg_name(&self, i: usize) -> String {
        match self.spec.func.arg_names.get(i) {
            Some(n) if !n.is_empty() && !n.starts_with('#') => n.to_string(),
            _ => format!("argument {}", i + 1),
        }
    }

    /// A warning with `code` over `range`.
    pub fn finding(&self, range: (u32, u32), code: &str, message: String) -> Diagnostic {
        diagnostic(self.db, self.file, range, code, message)
    }
}

/// A warning with `code` over the byte `range` of `file`.
pub(crate) fn diagnostic(
    db: &RootDatabase,
    file: SourceFile,
    range: (u32, u32),
    code: &str,
    message: String,
) -> Diagnostic {
    let severity = if code == GRADCHECK || code == FORWARD_MISMATCH {
        Severity::Error
    } else {
        Severity::Warning
    };
    Diagnostic::at(db, file, range, code, message, severity)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use expect_test::{expect, Expect};

    use crate::{AnalysisHost, Config, EvalLimits};

    /// `line:col severity[code] message` of each diagnostic (the editor's face).
    fn diagnostics(text: &str, want: Expect) {
        let mut host = AnalysisHost::new();
        let file = host.set_file_text(Path::new("t.jl"), text.to_string());
        let found = host.analysis().diagnostics(file).unwrap();
        let lines: Vec<String> = found
            .iter()
            .map(|d| {
                format!(
                    "{}:{} {}[{}] {}",
                    d.line,
                    d.col,
                    d.severity.as_str(),
                    d.code,
                    d.message
                )
            })
            .collect();
        want.assert_eq(&(lines.join("\n") + "\n"));
    }

    #[test]
    fn the_editor_sees_lints_as_warnings_and_allow_comments() {
        diagnostics(
            "# zy: at f(1.0, 2.0)\nf(x, y) = 2.0 * x\n\n# zy: at g(1.0, 2.0)\ng(x, y) = 2.0 * x  # zy: allow(zero-gradient)\n\n\
             # zy: at h(1.0, 2.0)\nfunction h(x, y)\n    # zy: allow(gradient-cut)\n    r = round(y)\n    return x * r\nend\n",
            expect![[r#"
                2:6 warning[zero-gradient] no gradient can reach `y`: the result does not depend on it, so its gradient is always `nothing`
            "#]],
        );
    }

    #[test]
    fn a_parameter_named_underscore_is_ignored_on_purpose() {
        // The solver calls `f(u, t)`; the closure ignores `t` by naming it `_`, and `g` its
        // second argument: neither is flagged, while `h`'s unused `t` still is.
        diagnostics(
            "step(f, u) = u + 0.1 * f(u, 0.0)\n\
             # zy: at run(2.0)\nrun(k) = step((u, _) -> -k * u, 1.0)\n\
             # zy: at g(1.0, 2.0)\ng(x, _) = 2.0 * x\n\
             # zy: at h(1.0, 2.0)\nh(x, t) = 2.0 * x\n",
            expect![[r#"
                7:6 warning[zero-gradient] no gradient can reach `t`: the result does not depend on it, so its gradient is always `nothing`
            "#]],
        );
    }

    #[test]
    fn no_zero_gradient_for_a_function_zy_refuses_to_run() {
        // `w` is changed by a top-level loop zy does not run: `f` throws where it reads it, so
        // nothing is said of its arguments' gradients; `g`, which returns, is still linted.
        diagnostics(
            "w = 2.0\nfor i in 1:3\n    global w += 1.0\nend\n\n\
             # zy: at f(1.0, 2.0)\nf(x, y) = x * w + y\n\n\
             # zy: at g(1.0, 2.0)\ng(x, y) = 2.0 * x\n",
            expect![[r#"
                2:1 note[skipped-statement] zy does not run a `for` loop at top level: only definitions are loaded (it may change `w`, so a function that reads it is refused)
                7:15 error[runtime-error] `f(1.0, 2.0)` throws: ErrorException: `w` is changed by top-level code that zy does not run (t.jl:2:1): its value here is unknown
                10:6 warning[zero-gradient] no gradient can reach `y`: the result does not depend on it, so its gradient is always `nothing`
            "#]],
        );
    }

    #[test]
    fn broadcasts_and_callable_structs() {
        // Arrays are objects with identity: a write through an alias could carry a gradient,
        // so `v` is not flagged. A scalar broadcast is a scalar call. The callable struct's
        // hidden argument is not an argument of the source, and `direct` passes `y` on (the
        // analysis of a caller does not look inside callees), so neither is flagged; the call
        // method itself is checked at the types its callers pass, where `unused` is unused.
        diagnostics(
            "# zy: at total([1.4, 2.6], 0.5)\ntotal(v, x) = sum(round.(v)) + 3.0 * floor.(x)\n\n\
             struct Scale\n    a::Float64\nend\n(s::Scale)(x, unused) = s.a * x\n\n\
             # zy: at apply(Scale(2.0), 3.0)\napply(s, x) = s(x, 1.0)\n\n\
             # zy: at direct(Scale(2.0), 3.0, 4.0)\ndirect(s, x, y) = s(x, y)\n",
            expect![[r#"
                2:38 warning[gradient-cut] `floor` cuts the gradient of `x` on every path to the result: its gradient is always zero
                7:15 warning[zero-gradient] no gradient can reach `unused`: the result does not depend on it, so its gradient is always `nothing`
            "#]],
        );
    }

    #[test]
    fn check_applies_levels_and_tolerance() {
        let mut host = AnalysisHost::new();
        let text = "# zy: at f(1.0, 2.0)\nf(x, y) = 2.0 * x\n";
        let file = host.set_file_text(Path::new("t.jl"), text.to_string());
        let config = Config::parse("[lints]\nzero-gradient = \"error\"\n")
            .unwrap()
            .for_path("t.jl");
        let found = host
            .analysis()
            .check(file, &config, EvalLimits::default())
            .unwrap();
        assert_eq!(
            found
                .iter()
                .map(|d| (d.code.as_str(), d.severity.as_str()))
                .collect::<Vec<_>>(),
            [("zero-gradient", "error")]
        );
        let config = Config::parse("[lints]\nzero-gradient = \"allow\"\n")
            .unwrap()
            .for_path("t.jl");
        assert_eq!(
            host.analysis()
                .check(file, &config, EvalLimits::default())
                .unwrap(),
            vec![]
        );
    }

    const COVERAGE: &str = "# zy: at outer(2.0)\nouter(x) = helper(x, 1.0)\n\n\
         helper(x, y) = 3.0 * x\n\n\
         annotated(x::Float64, v::Vector{Float64}, y::Float64) = x * v[1]\n\n\
         generic(x) = x + 1.0\nabstract(x::Real) = 2x\n";

    #[test]
    fn callees_and_concretely_annotated_functions_are_linted_too() {
        // `helper` is typed at the types `outer` passes it, `annotated` at its annotations;
        // neither has a `# zy: at` call.
        diagnostics(
            COVERAGE,
            expect![[r#"
                4:11 warning[zero-gradient] no gradient can reach `y`: the result does not depend on it, so its gradient is always `nothing`
                6:43 warning[zero-gradient] no gradient can reach `y`: the result does not depend on it, so its gradient is always `nothing`
            "#]],
        );
    }

    #[test]
    fn coverage_counts_the_functions_not_typed() {
        let mut host = AnalysisHost::new();
        let file = host.set_file_text(Path::new("t.jl"), COVERAGE.to_string());
        // `generic` and `abstract` (whose annotation is not concrete) have nothing to type at.
        assert_eq!(
            host.analysis().coverage(file).unwrap(),
            crate::Coverage {
                checked: 3,
                untyped: vec![
                    crate::Untyped {
                        name: "generic".into(),
                        line: 8,
                        col: 1
                    },
                    crate::Untyped {
                        name: "abstract".into(),
                        line: 9,
                        col: 1
                    },
                ]
            }
        );
        // In a module, a function is typed at its concrete annotations as at top level.
        let file = host.set_file_text(
            Path::new("m.jl"),
            "module M\ntotal(W::Matrix{Float64}) = sum(W)\ngeneric(x) = x\nend\n".to_string(),
        );
        assert_eq!(
            host.analysis().coverage(file).unwrap(),
            crate::Coverage {
                checked: 1,
                untyped: vec![crate::Untyped {
                    name: "generic".into(),
                    line: 3,
                    col: 1
                }]
            }
        );
        // A function whose own `# zy: at` does not type is reported there, not counted.
        let file = host.set_file_text(
            Path::new("u.jl"),
            "# zy: at f(1.0)\nf(x) = undefined_thing(x)\n".to_string(),
        );
        assert_eq!(
            host.analysis().coverage(file).unwrap(),
            crate::Coverage {
                checked: 0,
                untyped: Vec::new()
            }
        );
    }
}
