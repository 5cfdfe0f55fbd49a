//! The code lenses of a file's testsets: where they are (from the syntax tree alone, so that
//! listing them keeps typing fast) and what running one gives, computed only when the editor
//! asks for that lens (`codeLens/resolve`).

use crate::check::julia_tests;
use crate::{Analysis, Cancellable, EvalLimits, FileId, Severity, TEST_FAILED};

/// A `@testset` of a file.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Testset {
    /// The byte range of its `@testset` macro call (the lens goes on its first line); its
    /// start names it to [`Analysis::run_testset`].
    pub start: u32,
    pub end: u32,
}

/// What running the tests of a testset (its nested ones too) gave.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct TestsetResult {
    /// Tests that passed, failed (or errored), are broken (`@test_broken`, `@test_skip`) and
    /// that zy cannot run; a test in a loop counts once per iteration, as Julia counts it.
    pub passed: usize,
    pub failed: usize,
    pub broken: usize,
    pub not_run: usize,
    /// Why the first test that did not run did not.
    pub not_run_reason: Option<String>,
}

impl TestsetResult {
    /// The lens title: `✓ 3 passed`, `✗ 1 failed, 2 passed`, `tests not run: <why>`, with the
    /// numbers broken and not run after the others.
    pub fn title(&self) -> String {
        let mut rest = String::new();
        if self.broken > 0 {
            rest.push_str(&format!(", {} broken", self.broken));
        }
        if self.not_run > 0 {
            rest.push_str(&format!(", {} not run", self.not_run));
        }
        match (self.failed, self.passed, &self.not_run_reason) {
            (0, 0, Some(why)) if self.broken == 0 => format!("tests not run: {why}"),
            (0, 0, None) if self.broken == 0 => "no tests".to_string(),
            (0, passed, _) => format!("✓ {passed} passed{rest}"),
            (failed, passed, _) => format!("✗ {failed} failed, {passed} passed{rest}"),
        }
    }
}

impl Analysis {
    /// The `@testset`s of `file`, nested ones too, in source order.
    pub fn testsets(&self, file: FileId) -> Cancellable<Vec<Testset>> {
        self.with_db(|db| {
            julia_tests::testsets(file.0.text(db))
                .into_iter()
                .map(|r| Testset {
                    start: r.start,
                    end: r.end,
                })
                .collect()
        })
    }

    /// Run the tests of the `@testset` starting at byte `start` of `file` (`None` if none
    /// starts there), each under `limits`.
    pub fn run_testset(
        &self,
        file: FileId,
        start: u32,
        limits: EvalLimits,
    ) -> Cancellable<Option<TestsetResult>> {
        let mut limits = limits;
        limits.cancel.get_or_insert_with(|| self.stale_flag());
        self.with_db(|db| {
            let text = file.0.text(db);
            let range = julia_tests::testsets(text)
                .into_iter()
                .find(|r| r.start == start)?;
            let ran = julia_tests::run_tests(db, file.0, Some(range), &limits);
            self.unwind_if_stale();
            let mut result = TestsetResult {
                passed: ran.counts.passed,
                broken: ran.counts.broken,
                ..TestsetResult::default()
            };
            for d in ran.findings {
                match (d.code.as_str(), d.severity) {
                    (TEST_FAILED, _) => result.failed += 1,
                    (_, Severity::Note) => {
                        result.not_run += 1;
                        result.not_run_reason.get_or_insert(d.message);
                    }
                    _ => {}
                }
            }
            Some(result)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::TestsetResult;

    #[test]
    fn the_title_counts_broken_tests_apart_from_passes() {
        let r = TestsetResult {
            passed: 2,
            broken: 1,
            ..TestsetResult::default()
        };
        assert_eq!(r.title(), "✓ 2 passed, 1 broken");
        let r = TestsetResult {
            failed: 1,
            broken: 2,
            not_run: 1,
            ..TestsetResult::default()
        };
        assert_eq!(r.title(), "✗ 1 failed, 0 passed, 2 broken, 1 not run");
        let r = TestsetResult {
            not_run: 1,
            not_run_reason: Some("why".to_string()),
            ..TestsetResult::default()
        };
        assert_eq!(r.title(), "tests not run: why");
    }
}
