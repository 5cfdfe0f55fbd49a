//! The file's own Julia tests, run by `check`: `@test`, `@test_throws`, `@test_broken`,
//! `@test_skip` and `@test_nowarn` at top level, in `@testset ... begin ... end` blocks
//! (nested, `@testset let`, a `let` inside) and in `module ... end`, as Julia's `Test` runs
//! them. A test inside a testset runs as the code before it in its top-level statement runs
//! in Julia, evaluated afresh for each test: its testsets' bodies are `let` blocks (their
//! assignments stay inside), every earlier test's expression runs in a `try` (Julia's `Test`
//! catches its error; what it changes is seen), and every earlier testset runs as a `let` in a
//! `try` (an error outside its tests ends it, not the enclosing one). One that names none of
//! the locals of the code around both it and the test, in a statement that changes no
//! top-level binding (by zy's analysis of the statements it skips), changes nothing the test
//! sees and is left out; so is one zy stops in (a construct outside its subset), for the
//! later tests too.
//!
//! A test in a loop (`@testset "n $i" for i in 1:3`, or a `for` loop of tests inside a
//! testset or at top level) runs once per time control reaches it, up to [`MAX_ITERATIONS`]:
//! its text is a closure of the iteration's number that runs the loops as written (each
//! iteration's tests run, the test's own expression too), counts the times the test is
//! reached and returns the test's value the `k`-th time (so what earlier iterations changed
//! is seen), and a failing iteration is named as Julia names its testset (`i = 2: Test
//! Failed: ...`). Other code holding tests runs as written the same way (`if`/`elseif`/
//! `else`, `while`, `begin`, `cond && @testset ...`, `@eval @testset`): a test runs each time
//! control reaches it, and one control never reaches (a branch not taken) is never counted,
//! as Julia never sees it. A test zy cannot run (an unsupported construct, a name top-level
//! code changes, a condition zy cannot evaluate) is a note, never a failure: only Julia's
//! verdicts are errors.

use std::path::Path;

use zy_hir::{RootDatabase, SourceFile};
use zy_syntax::ast::TextRange;
use zy_syntax::kind::Kind;
use zy_syntax::tree::SyntaxNode;

use super::declared::{declared, Declared};
use super::test_text::{Edit, Texter};
use super::test_throws;
use crate::error::CALL_FILE;
use crate::eval::{eval_at, EvalResult, Failure, FailureKind};
use crate::locate::CallSite;
use crate::{Diagnostic, EvalLimits, Related, Severity, UserError};

/// The code of a test that fails or errors, as Julia's `Test` reports it.
pub const TEST_FAILED: &str = "test-failed";
/// The code of the note on a test zy cannot run.
pub const TEST_NOT_RUN: &str = "test-not-run";

/// The most iterations of its loops a test is run in.
pub const MAX_ITERATIONS: u32 = 10;

/// What a test macro asks.
#[derive(Clone, PartialEq, Debug)]
enum Ask {
    /// `@test e`: `e` is `true`.
    True,
    /// `@test_broken e` (or `@test e broken=true`): `e` is `false` or throws.
    Broken,
    /// `@test_throws E e`: `e` throws an `E`.
    Throws(String),
    /// `@test_nowarn e`: `e` runs without an error and writes no warning (which zy, showing
    /// no output, cannot see: a run without an error is a note, never a pass).
    NoWarn,
    /// `@test_skip e` (or `@test e skip=true`) in a loop: `e` is not run, and each time
    /// control reaches the test Julia records it as `Broken`.
    Skip,
}

/// One test of the file, ready to run.
struct Case {
    ask: Ask,
    /// The test macro call, for the finding's place.
    range: TextRange,
    /// The expression as written, for messages.
    shown: String,
    /// The expression evaluated (with the test's keywords passed to its call).
    value: String,
    /// How the test's texts are made.
    wrap: Wrap,
    /// For a comparison `a op b`, how to show its operands when it fails.
    operands: Option<Operands>,
    /// For a test in a loop, what else its iterations need.
    looped: Option<Looped>,
    /// Is it inside a `module ... end` (whose names zy does not give it: it runs among the
    /// file's top-level names)?
    in_module: bool,
    /// The top-level statement it is part of (its text runs that statement's code before it).
    at: Option<zy_hir::ItemId>,
}

/// A test in a loop: its text ends in `(` and takes the iteration's number and `)`.
struct Looped {
    /// The text giving the name of the iteration's testset where the test is (a `@testset
    /// for`'s description, `"i = $(i)"` by default), if its innermost loop is a testset's.
    desc: Option<String>,
    /// Is the test in a loop (not only under a condition), so control may reach it again?
    repeats: bool,
}

impl Case {
    /// The text returning `value` in the test's place (the `k`-th time it is reached, in a
    /// loop), with the testsets and tests at `dropped` left out.
    fn text(&self, file: &str, value: &str, k: Option<u32>, dropped: &[TextRange]) -> Texter {
        let mut t = self.wrap.text(file, value, dropped, false);
        if let Some(k) = k {
            t.literal(&format!("{k})"), self.wrap.cut);
        }
        t
    }
}

/// The operands of a comparison test, for Julia's `Evaluated: 4.0 ≈ 4.1 (atol=0.01)`.
struct Operands {
    /// The expressions `a` and `b`, evaluated in the test's place.
    a: String,
    b: String,
    op: String,
    /// The test's keywords as Julia shows them after the operands (` (atol=0.01)`).
    keywords: String,
}

/// The tests found in a file, and what could not be made a test.
#[derive(Default)]
struct Found {
    cases: Vec<Case>,
    /// Tests that are not run, with the reason.
    skipped: Vec<(TextRange, String)>,
    /// `@test_skip` and `skip=true` tests outside loops (which Julia records as `Broken`).
    skips: Vec<TextRange>,
    /// The top-level statements whose tests were all taken (their "not run" note goes).
    taken: Vec<u32>,
}

/// What running a test once gave.
enum Outcome {
    /// It passed.
    Passed,
    /// A `@test_broken` that is still broken (Julia's `Broken`).
    Broken,
    /// In a loop: control does not reach the test that many times.
    Done,
    /// It failed or could not run: the finding's code, message and related places.
    Finding(&'static str, String, Vec<Related>),
    /// Code of its testsets before it threw (the error's message and place): Julia never
    /// reaches the test, and the testset whose code threw records one error.
    Outside(String, Vec<Related>),
}

/// How many of a file's tests gave each of the verdicts Julia's `Test Summary` counts (a test
/// in a loop once per iteration, as Julia counts it), and how many zy could not run.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct TestCounts {
    /// `Pass`: a `@test` that held, a `@test_throws` that saw its exception.
    pub passed: usize,
    /// `Fail`: `Test Failed`.
    pub failed: usize,
    /// `Error`: `Error During Test` (a throw, a non-Boolean value) and `Unexpected Pass`.
    pub errored: usize,
    /// `Broken`: a `@test_broken` that is still broken.
    pub broken: usize,
    /// Tests zy cannot run (its `test-not-run` notes): in no column of Julia's.
    pub not_run: usize,
}

impl TestCounts {
    /// Julia's `Total`: the tests that gave a verdict.
    pub fn total(&self) -> usize {
        self.passed + self.failed + self.errored + self.broken
    }

    /// These counts and `other`'s together.
    pub fn add(&mut self, other: TestCounts) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.errored += other.errored;
        self.broken += other.broken;
        self.not_run += other.not_run;
    }

    /// Count a finding's verdict (before an iteration's name is put in front of its message).
    fn count(&mut self, code: &str, message: &str) {
        match code {
            TEST_NOT_RUN => self.not_run += 1,
            _ if message.starts_with("Test Failed") => self.failed += 1,
            _ => self.errored += 1,
        }
    }
}

/// The findings of running the tests of `file`, their counts, and the top-level statements
/// whose tests ran (by start offset): their `skipped-statement` notes no longer apply.
pub(crate) fn check(db: &RootDatabase, file: SourceFile, limits: &EvalLimits) -> Ran {
    run_tests(db, file, None, limits)
}

/// What running tests of a file gave.
#[derive(Default)]
pub(crate) struct Ran {
    /// Failures, errors, and notes on the tests zy cannot run.
    pub(crate) findings: Vec<Diagnostic>,
    /// How many tests gave each verdict.
    pub(crate) counts: TestCounts,
    /// The top-level statements whose tests ran (by start offset).
    pub(crate) taken: Vec<u32>,
}

/// Run the tests of `file`, or only those inside `within`.
pub(crate) fn run_tests(
    db: &RootDatabase,
    file: SourceFile,
    within: Option<TextRange>,
    limits: &EvalLimits,
) -> Ran {
    let mut ran = Ran::default();
    if crate::eval::load_error(db, file).is_some() {
        return ran; // reported by `diagnostics`
    }
    let inside = |r: TextRange| within.is_none_or(|w| w.start <= r.start && r.end <= w.end);
    let mut found = find(file.text(db), &unchanging(db, file));
    let statements = statements(db, file);
    let names = zy_hir::scope::scope_names(db, file);
    let declared = declared(file.text(db), &|n| names.defines_qualified(n));
    for case in &mut found.cases {
        case.at = statements
            .iter()
            .find(|(range, _)| contains(*range, case.range))
            .map(|&(_, item)| item);
        if let Some(d) = declared.iter().find(|d| contains(d.stmt, case.range)) {
            case.wrap.declare(d);
        }
    }
    for (range, reason) in found.skipped.into_iter().filter(|(r, _)| inside(*r)) {
        let note = finding(db, file, range, TEST_NOT_RUN, reason, Vec::new());
        ran.findings.push(note);
        ran.counts.not_run += 1;
    }
    // A skipped test in a loop is a case, counted each time control reaches it.
    ran.counts.broken += found.skips.iter().filter(|r| inside(**r)).count();
    // The testsets and tests where zy stops, left out of later tests' code.
    let mut dropped = Vec::new();
    let sets = testsets(file.text(db));
    // The testsets that recorded an error outside their tests.
    let mut ended = Vec::new();
    let cases: Vec<Case> = found
        .cases
        .into_iter()
        .filter(|c| inside(c.range))
        .collect();
    let held = held_in_one_run(db, file, &cases, limits);
    for case in cases {
        if held.contains(&case.range) {
            ran.counts.passed += 1;
            continue;
        }
        match case.looped {
            None => match settle(db, file, &case, None, limits, &mut dropped) {
                Outcome::Finding(code, message, related) => {
                    ran.counts.count(code, &message);
                    let f = finding(db, file, case.range, code, message, related);
                    ran.findings.push(f);
                }
                Outcome::Outside(message, related) => {
                    let thrown = related.first().map(|r| r.start);
                    let set = ending(&sets, case.range, thrown).unwrap_or(case.range);
                    if !ended.contains(&set) {
                        ended.push(set);
                        let message = format!(
                            "Error During Test: Got exception outside of a @test: {message}"
                        );
                        ran.counts.count(TEST_FAILED, &message);
                        let f = finding(db, file, set, TEST_FAILED, message, related);
                        ran.findings.push(f);
                    }
                }
                Outcome::Passed => ran.counts.passed += 1,
                Outcome::Broken => ran.counts.broken += 1,
                Outcome::Done => {}
            },
            Some(_) => run_iterations(db, file, &case, limits, &mut ran, &mut dropped),
        }
    }
    ran.taken = found.taken;
    ran
}

/// The `@testset`s of the file with `text` (nested ones too), by their macro calls' ranges.
pub(crate) fn testsets(text: &str) -> Vec<TextRange> {
    fn walk(text: &str, node: &SyntaxNode, out: &mut Vec<TextRange>) {
        if test_macro(text, node) == Some(TestMacro::Testset) {
            out.push(node.range);
        }
        for c in &node.children {
            walk(text, c, out);
        }
    }
    let parse = zy_syntax::tree::parse(text, None);
    let mut out = Vec::new();
    walk(text, &parse.root, &mut out);
    out
}

/// The straight-line `@test`s (outside loops and modules) of each top-level statement with
/// more than one that hold, found by one run of the statement's code for all of them (by
/// their ranges): each is counted as it runs, and the run ends at the first that gives
/// anything but `true`. One run where each test's own would repeat the code before it; the
/// tests from the first that did not hold on are left to their own runs.
fn held_in_one_run(
    db: &RootDatabase,
    file: SourceFile,
    cases: &[Case],
    limits: &EvalLimits,
) -> Vec<TextRange> {
    let straight = |c: &&Case| c.ask == Ask::True && c.looped.is_none() && !c.in_module;
    let mut held = Vec::new();
    let mut rest: Vec<&Case> = cases.iter().filter(straight).collect();
    while let Some(first) = rest.first() {
        let base = first.wrap.base;
        let n = rest.iter().take_while(|c| c.wrap.base == base).count();
        let group: Vec<&Case> = rest.drain(..n).collect();
        let Some(last) = group.last().filter(|_| group.len() > 1) else {
            continue;
        };
        let text = last.wrap.text_of_all(file.text(db), &group);
        let count = match evaluate(db, file, last, &text.text, limits) {
            Ok(v) if v.ty == "Int64" => v.display.parse::<i64>().unwrap_or(0),
            _ => 0,
        };
        // `-m`: the `m`-th gave something else; `n`: all held.
        let passed = match count {
            c if c < 0 => c.unsigned_abs() as usize - 1,
            c => c as usize,
        };
        held.extend(group.iter().take(passed.min(group.len())).map(|c| c.range));
    }
    held
}

/// The testset among `sets` that records the error its code threw before the test at `test`
/// (at the file's offset `thrown`, if known): the innermost around the test whose code holds
/// that place, else the innermost around the test.
fn ending(sets: &[TextRange], test: TextRange, thrown: Option<u32>) -> Option<TextRange> {
    let around = sets.iter().filter(|s| contains(**s, test) && **s != test);
    let innermost =
        |sets: Vec<&TextRange>| sets.into_iter().min_by_key(|s| s.end - s.start).copied();
    let holding = around
        .clone()
        .filter(|s| thrown.is_some_and(|at| s.start <= at && at < s.end))
        .collect();
    innermost(holding).or_else(|| innermost(around.collect()))
}

/// Run a test in a loop once per time control reaches it, up to [`MAX_ITERATIONS`]: a
/// finding for each failing iteration, named after its testset where the loop is a
/// `@testset for`'s.
fn run_iterations(
    db: &RootDatabase,
    file: SourceFile,
    case: &Case,
    limits: &EvalLimits,
    ran: &mut Ran,
    dropped: &mut Vec<TextRange>,
) {
    let repeats = case.looped.as_ref().is_some_and(|l| l.repeats);
    if repeats && case.ask == Ask::True {
        if let Some(reached) = sweep(db, file, case, limits, dropped) {
            ran.counts.passed += reached.min(MAX_ITERATIONS) as usize;
            if reached > MAX_ITERATIONS {
                ran.findings.push(later_iterations(db, file, case));
            }
            return;
        }
    }
    let last = if repeats { MAX_ITERATIONS } else { 1 };
    for k in 1..=last {
        match settle(db, file, case, Some(k), limits, dropped) {
            Outcome::Passed => ran.counts.passed += 1,
            Outcome::Broken => ran.counts.broken += 1,
            // (Only a test outside loops is found outside its testset's code.)
            Outcome::Done | Outcome::Outside(..) => return,
            Outcome::Finding(TEST_FAILED, message, related) => {
                ran.counts.count(TEST_FAILED, &message);
                let message = match name(db, file, case, k, limits, dropped) {
                    Some(name) => format!("{name}: {message}"),
                    None => message,
                };
                ran.findings
                    .push(finding(db, file, case.range, TEST_FAILED, message, related));
            }
            // zy's limit: the same in every iteration.
            Outcome::Finding(code, message, related) => {
                ran.counts.count(code, &message);
                ran.findings
                    .push(finding(db, file, case.range, code, message, related));
                return;
            }
        }
    }
    if repeats && reached(db, file, case, MAX_ITERATIONS + 1, limits, dropped) {
        ran.findings.push(later_iterations(db, file, case));
    }
}

/// The note on a test in a loop that control reaches more than [`MAX_ITERATIONS`] times.
fn later_iterations(db: &RootDatabase, file: SourceFile, case: &Case) -> Diagnostic {
    let message = format!(
        "zy ran this test in the first {MAX_ITERATIONS} iterations of its loop, not the later ones"
    );
    finding(db, file, case.range, TEST_NOT_RUN, message, Vec::new())
}

/// Run a `@test` in a loop through all its iterations at once, as one run of its loop's text
/// (up to the time after [`MAX_ITERATIONS`] that control reaches it): how many times control
/// reached it, if each of those gave `true`. One run where the test holds every time, which
/// is what the run per iteration ([`run_iterations`]) would find in as many runs, each
/// repeating the iterations before its own; `None` (an iteration gave another value, threw, or
/// zy stopped) leaves the verdicts to that run per iteration.
fn sweep(
    db: &RootDatabase,
    file: SourceFile,
    case: &Case,
    limits: &EvalLimits,
    dropped: &[TextRange],
) -> Option<u32> {
    let mut t = case.wrap.text(file.text(db), &case.value, dropped, true);
    t.literal(&format!("{})", MAX_ITERATIONS + 1), case.wrap.cut);
    let value = evaluate(db, file, case, &t.text, limits).ok()?;
    match value.ty.as_str() {
        "Int64" => value.display.parse().ok(),
        _ => None,
    }
}

/// Run a test (the `k`-th time it is reached, in a loop) until zy stops in none of the
/// earlier testsets and tests its code runs: the one where it stops is left out (added to
/// `dropped`, for the later tests too), as if it were not written, and the test runs again.
fn settle(
    db: &RootDatabase,
    file: SourceFile,
    case: &Case,
    k: Option<u32>,
    limits: &EvalLimits,
    dropped: &mut Vec<TextRange>,
) -> Outcome {
    loop {
        let outcome = run(db, file, case, k, limits, dropped);
        if !stops(&outcome) {
            return outcome;
        }
        let located = match &outcome {
            Outcome::Finding(_, _, related) => related
                .first()
                .and_then(|at| case.wrap.construct_at(at.start))
                .filter(|r| !dropped.contains(r)),
            _ => None,
        };
        match located.or_else(|| culprit(db, file, case, k, limits, dropped)) {
            Some(r) => dropped.push(r),
            None => return outcome,
        }
    }
}

/// Did zy stop in the test's code (not at its time limit, which the test's own code may
/// reach)?
fn stops(outcome: &Outcome) -> bool {
    matches!(outcome, Outcome::Finding(TEST_NOT_RUN, m, _)
        if m.starts_with(CANNOT_RUN) && !m.contains("InterruptException"))
}

/// The start of the note on a test whose code zy stops in.
const CANNOT_RUN: &str = "zy cannot run this test";

/// The earlier testset or test whose code zy stops in, where the test runs without them (a
/// construct of the included files' code stopped it, so no place in the test's code says
/// which): by halves, the fewest of them, in the order written, that it stops with.
fn culprit(
    db: &RootDatabase,
    file: SourceFile,
    case: &Case,
    k: Option<u32>,
    limits: &EvalLimits,
    dropped: &[TextRange],
) -> Option<TextRange> {
    let constructs = case.wrap.constructs(dropped);
    let stops_with = |kept: usize| {
        let mut left_out = dropped.to_vec();
        left_out.extend_from_slice(&constructs[kept..]);
        stops(&run(db, file, case, k, limits, &left_out))
    };
    if constructs.is_empty() || stops_with(0) {
        return None;
    }
    let (mut without, mut with) = (0, constructs.len());
    while with - without > 1 {
        let mid = (without + with) / 2;
        match stops_with(mid) {
            true => with = mid,
            false => without = mid,
        }
    }
    Some(constructs[with - 1])
}

/// The name of the testset of the `k`-th iteration of a test in a loop, if the loop is a
/// testset's (`i = 2`).
fn name(
    db: &RootDatabase,
    file: SourceFile,
    case: &Case,
    k: u32,
    limits: &EvalLimits,
    dropped: &[TextRange],
) -> Option<String> {
    let desc = case.looped.as_ref()?.desc.as_ref()?;
    let text = case.text(file.text(db), desc, Some(k), dropped).text;
    let value = evaluate(db, file, case, &text, limits).ok()?;
    value.json.as_str().map(str::to_string)
}

/// Does control reach the test of a loop a `k`-th time?
fn reached(
    db: &RootDatabase,
    file: SourceFile,
    case: &Case,
    k: u32,
    limits: &EvalLimits,
    dropped: &[TextRange],
) -> bool {
    let text = case.text(file.text(db), "true", Some(k), dropped).text;
    evaluate(db, file, case, &text, limits).is_ok_and(|v| v.display == "true")
}

/// Evaluate one of a case's texts (positions in it are the call's: [`Case::place`] maps
/// them to the file's), as part of the case's top-level statement.
fn evaluate(
    db: &RootDatabase,
    file: SourceFile,
    case: &Case,
    text: &str,
    limits: &EvalLimits,
) -> Result<EvalResult, Failure> {
    eval_at(db, file, text, CallSite::Text(text), case.at, limits)
}

fn finding(
    db: &RootDatabase,
    file: SourceFile,
    range: TextRange,
    code: &str,
    message: String,
    related: Vec<Related>,
) -> Diagnostic {
    let severity = match code {
        TEST_NOT_RUN => Severity::Note,
        _ => Severity::Error,
    };
    let range = (range.start, range.end);
    Diagnostic {
        related,
        ..Diagnostic::at(db, file, range, code, message, severity)
    }
}

/// Run one test (the `k`-th time it is reached, in a loop).
fn run(
    db: &RootDatabase,
    file: SourceFile,
    case: &Case,
    k: Option<u32>,
    limits: &EvalLimits,
    dropped: &[TextRange],
) -> Outcome {
    let shown = &case.shown;
    let text = case.text(file.text(db), &case.value, k, dropped);
    let at = |e: &UserError, label: &str| related(db, file, &text, e, label);
    let (thrown, kind) = match evaluate(db, file, case, &text.text, limits) {
        Err(Failure { error, .. }) if k.is_some() && error.message == DONE => return Outcome::Done,
        Ok(_) if case.ask == Ask::Skip => return Outcome::Broken,
        Ok(_) if case.ask == Ask::NoWarn => {
            let message = "zy ran this test's expression without an error, but cannot tell whether it warns (zy shows no output)";
            return Outcome::Finding(TEST_NOT_RUN, message.to_string(), Vec::new());
        }
        Ok(value) => {
            let verdict = match (&case.ask, value.ty.as_str(), value.display.as_str()) {
                (Ask::Throws(e), _, _) => format!(
                    "Test Failed: Expression: {shown}, Expected: {e}, No exception thrown"
                ),
                (_, ty, _) if ty != "Bool" => format!(
                    "Error During Test: Expression evaluated to non-Boolean: {shown}, Value: {}",
                    value.display
                ),
                (Ask::True, _, "true") => return Outcome::Passed,
                (Ask::Broken, _, "false") => return Outcome::Broken,
                (Ask::Broken, _, _) => format!(
                    "Unexpected Pass: Expression: {shown}, Got correct result, please change to @test if no longer broken"
                ),
                (Ask::True | Ask::NoWarn | Ask::Skip, _, _) => match evaluated(db, file, case, k, limits, dropped) {
                    Some(e) => format!("Test Failed: Expression: {shown}, Evaluated: {e}"),
                    None => format!("Test Failed: Expression: {shown}"),
                },
            };
            return Outcome::Finding(TEST_FAILED, verdict, Vec::new());
        }
        Err(Failure {
            kind: FailureKind::Zy,
            error,
        }) => {
            let message = format!("{CANNOT_RUN}: {}", error.message);
            return Outcome::Finding(TEST_NOT_RUN, message, at(&error, "zy stops here"));
        }
        Err(Failure {
            kind: FailureKind::Julia(_),
            error,
        }) if case.in_module && error.message.starts_with("UndefVarError") => {
            let message = format!(
                "zy cannot run this test: it runs a module's tests among the file's top-level names, where {}",
                error.message
            );
            return Outcome::Finding(TEST_NOT_RUN, message, at(&error, "zy stops here"));
        }
        Err(Failure {
            kind: FailureKind::Julia(_),
            error,
        }) if k.is_none() && throws_before(db, file, case, limits, dropped) => {
            let message = error.message.clone();
            return Outcome::Outside(message, at(&error, "thrown here"));
        }
        Err(Failure {
            kind: FailureKind::Julia(kind),
            error,
        }) => (error, kind),
    };
    let message = match &case.ask {
        Ask::Broken => return Outcome::Broken,
        // The loop threw before it reached the test.
        Ask::Skip => return Outcome::Done,
        Ask::Throws(e) => match test_throws::expected(e) {
            x if test_throws::meets(&x, &kind, &thrown.message) => return Outcome::Passed,
            test_throws::Expected::Other => {
                let message = format!(
                    "zy cannot run this test: unsupported: `@test_throws {e}`; zy compares the exception's type, a message a string is part of, or a value `T(\"message\")` of Base's exceptions of one field"
                );
                return Outcome::Finding(TEST_NOT_RUN, message, Vec::new());
            }
            test_throws::Expected::Substring(_) => format!(
                "Test Failed: Expression: {shown}, Expected: {e}, Message: {:?}",
                test_throws::shown(&kind, &thrown.message)
            ),
            _ => format!(
                "Test Failed: Expression: {shown}, Expected: {e}, Thrown: {}",
                thrown.message
            ),
        },
        Ask::True | Ask::NoWarn => format!(
            "Error During Test: Expression: {shown}, threw: {}",
            thrown.message
        ),
    };
    Outcome::Finding(TEST_FAILED, message, at(&thrown, "thrown here"))
}

/// Does the code before a test (outside loops) throw, before its expression runs?
fn throws_before(
    db: &RootDatabase,
    file: SourceFile,
    case: &Case,
    limits: &EvalLimits,
    dropped: &[TextRange],
) -> bool {
    let text = case.text(file.text(db), "true", None, dropped).text;
    matches!(
        evaluate(db, file, case, &text, limits),
        Err(Failure {
            kind: FailureKind::Julia(_),
            ..
        })
    )
}

/// The error a loop's text throws when control does not reach its test the asked number of
/// times.
const DONE: &str = "ErrorException: #done";

/// The error's place in `file` as a related location labelled `label` (a place in the test's
/// `text` mapped to the file's).
fn related(
    db: &RootDatabase,
    file: SourceFile,
    text: &Texter,
    e: &UserError,
    label: &str,
) -> Vec<Related> {
    let start = if e.file == Path::new(CALL_FILE) {
        text_offset(&text.text, e.line, e.col).map(|t| text.map.file_offset(t))
    } else if &e.file == file.path(db) {
        let at = zy_hir::LineCol {
            line: e.line,
            col: e.col,
        };
        zy_hir::offset_of(db, file, at)
    } else {
        None
    };
    start.map_or_else(Vec::new, |start| {
        let lc = zy_hir::line_col(db, file, start);
        vec![Related {
            file: file.path(db).clone(),
            line: lc.line,
            col: lc.col,
            start,
            end: start,
            message: label.to_string(),
        }]
    })
}

/// The byte offset in `text` of the 1-based `line` and `col` (in characters).
fn text_offset(text: &str, line: u32, col: u32) -> Option<u32> {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.checked_sub(1)? as usize)
        .map(str::len)
        .sum();
    let rest = text.get(start..)?;
    let within: usize = rest
        .chars()
        .take(col.checked_sub(1)? as usize)
        .map(char::len_utf8)
        .sum();
    u32::try_from(start + within).ok()
}

/// The operands of a failed comparison as Julia's `Evaluated:` line shows them (`4.0 == 5.0`).
fn evaluated(
    db: &RootDatabase,
    file: SourceFile,
    case: &Case,
    k: Option<u32>,
    limits: &EvalLimits,
    dropped: &[TextRange],
) -> Option<String> {
    let o = case.operands.as_ref()?;
    let operand = |e: &str| {
        let text = case.text(file.text(db), e, k, dropped).text;
        evaluate(db, file, case, &text, limits).ok()
    };
    let (a, b) = (operand(&o.a)?, operand(&o.b)?);
    Some(format!(
        "{} {} {}{}",
        a.display, o.op, b.display, o.keywords
    ))
}

/// The top-level statements of `file` (skipped code, which a test's text runs part of), by
/// their ranges.
fn statements(db: &RootDatabase, file: SourceFile) -> Vec<(TextRange, zy_hir::ItemId)> {
    zy_hir::item_tree(db, file)
        .iter()
        .filter(|&&item| item.kind(db) == zy_hir::ItemKind::Script)
        .filter_map(|&item| match zy_hir::item_ast(db, item).as_deref() {
            Some(zy_syntax::ast::Item::Script(s)) => {
                let (start, end) = zy_hir::item_range(db, item, s.range.start, s.range.end)?;
                Some((TextRange::new(start, end), item))
            }
            _ => None,
        })
        .collect()
}

/// The starts of the top-level statements of `file` that change no top-level binding, by
/// zy's analysis of the statements it skips (what they change in place through the
/// program's functions included).
fn unchanging(db: &RootDatabase, file: SourceFile) -> Vec<u32> {
    let names = zy_hir::scope::scope_names(db, file);
    statements(db, file)
        .into_iter()
        .filter(|&(_, item)| names.changed_by_statement(item).is_empty())
        .map(|(range, _)| range.start)
        .collect()
}

/// The tests of the file with `text`, by its syntax tree; `unchanging` the starts of the
/// top-level statements that change no top-level binding.
fn find(text: &str, unchanging: &[u32]) -> Found {
    let parse = zy_syntax::tree::parse(text, None);
    let mut found = Found::default();
    let code = Code { text, unchanging };
    code.statements(&parse.root.children, None, &mut found);
    found
}

/// A file's text, with the starts of its top-level statements that change no top-level
/// binding.
struct Code<'t> {
    text: &'t str,
    unchanging: &'t [u32],
}

/// The tests among top-level statements, or a module's (`defined` the names the module
/// defines: a test using one is not run, as zy runs the tests among the file's top-level
/// names).
impl Code<'_> {
    fn statements(&self, stmts: &[SyntaxNode], defined: Option<&[&str]>, found: &mut Found) {
        let text = self.text;
        for stmt in stmts {
            let mut runs = Runs {
                unchanging: self.unchanging.contains(&stmt.range.start),
                ..Runs::default()
            };
            runs.add(text, stmt);
            let runs = &runs;
            let scope = |base| Scope {
                text,
                base,
                edits: Vec::new(),
                runs,
                bound: Vec::new(),
                depth: 0,
                cut: None,
                desc: None,
                looped: false,
                repeats: false,
                in_module: defined.is_some(),
            };
            if let Some(name) = defined.and_then(|names| uses_any(text, stmt, names)) {
                if holds_test(text, stmt) {
                    found.taken.push(stmt.range.start);
                    let reason = format!("zy runs a module's tests among the file's top-level names, and this one uses `{name}`, which its module defines");
                    not_run(text, stmt, &reason, found);
                }
                continue;
            }
            match test_macro(text, stmt) {
                Some(TestMacro::Test) => {
                    found.taken.push(stmt.range.start);
                    scope(None).case(stmt, found);
                }
                Some(TestMacro::Testset) => {
                    found.taken.push(stmt.range.start);
                    scope(Some(stmt.range.start)).testset(stmt, found);
                }
                None if stmt.kind == Kind::For && holds_test(text, stmt) => {
                    found.taken.push(stmt.range.start);
                    scope(Some(stmt.range.start)).for_loop(stmt, stmt, None, found);
                }
                None if stmt.kind == Kind::Let && holds_test(text, stmt) => {
                    found.taken.push(stmt.range.start);
                    scope(Some(stmt.range.start)).let_block(stmt, found);
                }
                None if runs_as_written(text, stmt) && holds_test(text, stmt) => {
                    found.taken.push(stmt.range.start);
                    scope(Some(stmt.range.start)).as_written(stmt, found);
                }
                None if stmt.kind == Kind::Module && !stmt.leaf => {
                    if let Some(body) = stmt.children.get(1) {
                        let names = module_names(text, &body.children);
                        self.statements(&body.children, Some(&names), found);
                    }
                }
                None => {}
            }
        }
    }
}

/// The names the statements of a module's body define: its functions, structs, bindings.
fn module_names<'t>(text: &'t str, stmts: &[SyntaxNode]) -> Vec<&'t str> {
    fn head(node: &SyntaxNode) -> &SyntaxNode {
        match (node.leaf, node.kind, node.children.first()) {
            (
                false,
                Kind::Subtype | Kind::Curly | Kind::Where | Kind::Decl | Kind::Call,
                Some(c),
            ) => head(c),
            _ => node,
        }
    }
    fn defined(node: &SyntaxNode) -> Option<&SyntaxNode> {
        match (node.leaf, node.kind, node.children.as_slice()) {
            (false, Kind::Doc | Kind::MacroCall, [.., def]) => defined(def),
            (false, Kind::Struct | Kind::Abstract | Kind::Function | Kind::Assign, [sig, ..]) => {
                Some(head(sig))
            }
            (false, Kind::Const | Kind::Global, [inner]) => defined(inner),
            _ => None,
        }
    }
    stmts
        .iter()
        .filter_map(defined)
        .filter(|n| n.leaf && n.kind == Kind::Identifier)
        .map(|n| slice(text, n.range))
        .collect()
}

/// The first of `names` that `node` uses as a name.
fn uses_any<'a>(text: &str, node: &SyntaxNode, names: &[&'a str]) -> Option<&'a str> {
    if node.leaf {
        let name = (node.kind == Kind::Identifier).then(|| slice(text, node.range))?;
        return names.iter().find(|n| **n == name).copied();
    }
    node.children.iter().find_map(|c| uses_any(text, c, names))
}

/// The kinds of test macro.
#[derive(Clone, Copy, PartialEq, Debug)]
enum TestMacro {
    /// `@test`, `@test_throws`, `@test_broken`, `@test_skip`, `@test_nowarn`.
    Test,
    /// `@testset`.
    Testset,
}

/// Is `node` a call of a test macro (also written `Test.@test`)?
fn test_macro(text: &str, node: &SyntaxNode) -> Option<TestMacro> {
    if node.kind != Kind::MacroCall {
        return None;
    }
    let name = node.children.first()?;
    let name = slice(text, name.range);
    match name.rsplit('.').next()?.trim_start_matches('@') {
        "test" | "test_throws" | "test_broken" | "test_skip" | "test_nowarn" => {
            Some(TestMacro::Test)
        }
        "testset" => Some(TestMacro::Testset),
        _ => None,
    }
}

/// The text of a range (empty if it is not one of `text`).
fn slice(text: &str, range: TextRange) -> &str {
    text.get(range.start as usize..range.end as usize)
        .unwrap_or_default()
}

/// Where a test is: the testsets and loops around it, and the code of its top-level
/// statement that runs before it.
#[derive(Clone)]
struct Scope<'a> {
    text: &'a str,
    /// The start of the outermost testset or loop (none at top level).
    base: Option<u32>,
    /// The edits of the testsets, loops and branches around the test (a testset's header
    /// made `let`).
    edits: Vec<Edit>,
    /// How the other tests and testsets of the top-level statement run.
    runs: &'a Runs<'a>,
    /// The testsets, loops and branches around the test, with the names each binds: what
    /// a testset before the test inside one can change that the test sees, where the
    /// statement changes no top-level binding.
    bound: Vec<(TextRange, Vec<&'a str>)>,
    /// How many testsets, loops and branches are open.
    depth: usize,
    /// Where the outermost open loop ends, and how many were open around it: a test in it
    /// runs with the rest of the loop's body (later iterations see what it does).
    cut: Option<(u32, usize)>,
    /// The name of the innermost testset, as Julia text, where it is a `@testset for`'s.
    desc: Option<String>,
    /// Is a loop or a branch open (the test runs where control reaches it: see
    /// [`Scope::wrap`])?
    looped: bool,
    /// Is a loop open (control may reach the test more than once)?
    repeats: bool,
    /// Is it inside a `module ... end`?
    in_module: bool,
}

impl<'a> Scope<'a> {
    /// Enter `node`, a testset, loop, branch or block around the test: the names it binds
    /// are locals the test may see.
    fn enter(&mut self, node: &SyntaxNode) {
        let mut names = Vec::new();
        bound_names(self.text, node, &mut names);
        self.bound.push((node.range, names));
    }

    /// `@testset ["name"] begin ... end`, `@testset ["name $i"] for ... end`, or `@testset
    /// let ... end`: its body is a `let` (Julia's `Test` runs it in one).
    fn testset(mut self, node: &SyntaxNode, found: &mut Found) {
        self.enter(node);
        match node.children.last() {
            Some(block) if block.kind == Kind::Block => {
                let first = block
                    .children
                    .first()
                    .map_or(block.range.end, |s| s.range.start);
                let header = TextRange::new(node.range.start, first);
                self.edits.push(Edit::new(node.range, header, "let\n"));
                self.depth += 1;
                self.desc = None;
                self.body(block, found);
            }
            Some(f) if f.kind == Kind::For => {
                let named = node.children[1..node.children.len() - 1]
                    .iter()
                    .find(|c| matches!(c.kind, Kind::String | Kind::StringLit));
                let desc = match named {
                    Some(d) => Some(slice(self.text, d.range).to_string()),
                    None => default_desc(self.text, f),
                };
                self.for_loop(node, f, desc, found);
            }
            // `@testset let x = 1 ... end`: the `let` runs as written.
            Some(l) if l.kind == Kind::Let => {
                let Some(block) = l.children.last().filter(|b| b.kind == Kind::Block) else {
                    not_run(self.text, node, "zy cannot read this `let`", found);
                    return;
                };
                let header = TextRange::new(node.range.start, l.range.start);
                self.edits.push(Edit::new(node.range, header, ""));
                self.depth += 1;
                self.desc = None;
                self.body(block, found);
            }
            _ => {
                let reason = "zy runs the tests of a `@testset` written with `begin ... end`, `for` or `let`, not of this form";
                not_run(self.text, node, reason, found);
            }
        }
    }

    /// `let x = v ... end` holding tests: the `let` runs as written, its tests seeing its
    /// bindings.
    fn let_block(mut self, node: &SyntaxNode, found: &mut Found) {
        let Some(block) = node.children.last().filter(|b| b.kind == Kind::Block) else {
            not_run(self.text, node, "zy cannot read this `let`", found);
            return;
        };
        self.enter(node);
        self.depth += 1;
        self.body(block, found);
    }

    /// The loop `f` (the last argument of `node`, a `@testset`, or `node` itself): its body
    /// runs as written, each test in it once per time control reaches it.
    fn for_loop(
        mut self,
        node: &SyntaxNode,
        f: &SyntaxNode,
        desc: Option<String>,
        found: &mut Found,
    ) {
        let Some(body) = f.children.last().filter(|b| b.kind == Kind::Block) else {
            let reason = "zy cannot read this loop";
            not_run(self.text, node, reason, found);
            return;
        };
        if node.range.start < f.range.start {
            let header = TextRange::new(node.range.start, f.range.start);
            self.edits.push(Edit::new(node.range, header, ""));
        }
        self.enter(node);
        self.enter_loop(node.range.end);
        if desc.is_some() {
            self.desc = desc;
        }
        self.body(body, found);
    }

    /// Open a loop that ends at `end`.
    fn enter_loop(&mut self, end: u32) {
        self.cut.get_or_insert((end, self.depth));
        self.depth += 1;
        self.looped = true;
        self.repeats = true;
    }

    /// The statements of a testset's, loop's or branch's body, in order.
    fn body(self, block: &SyntaxNode, found: &mut Found) {
        for stmt in statements_of(block) {
            self.statement(stmt, found);
        }
    }

    /// One statement of a body: its tests found (the code of the statement runs before
    /// later tests as [`Runs::add`] makes it).
    fn statement(&self, stmt: &SyntaxNode, found: &mut Found) {
        match test_macro(self.text, stmt) {
            Some(TestMacro::Test) => self.case(stmt, found),
            Some(TestMacro::Testset) => self.clone().testset(stmt, found),
            None if !holds_test(self.text, stmt) => {}
            None => match stmt.kind {
                Kind::For => self.clone().for_loop(stmt, stmt, None, found),
                Kind::Let => self.clone().let_block(stmt, found),
                _ => self.clone().as_written(stmt, found),
            },
        }
    }

    /// A statement holding tests that Julia runs as code (`if`, `while`, `cond && @testset
    /// ...`, `begin ... end`, `@eval @testset ...`): it runs as written, each test in it
    /// where control reaches it; a test control never reaches is not counted, as Julia never
    /// sees it.
    fn as_written(mut self, stmt: &SyntaxNode, found: &mut Found) {
        self.enter(stmt);
        match (stmt.kind, stmt.children.as_slice()) {
            (Kind::If, _) => {
                self.depth += 1;
                self.looped = true;
                self.branches(stmt, found);
            }
            (Kind::While, [cond, body]) if !holds_test(self.text, cond) => {
                self.enter_loop(stmt.range.end);
                self.body(body, found);
            }
            // A test as the operand itself (`cond && @test x`) is left to a later version.
            (Kind::And | Kind::Or, [first, second])
                if !holds_test(self.text, first)
                    && test_macro(self.text, second) != Some(TestMacro::Test) =>
            {
                self.looped = true;
                self.statement(second, found);
            }
            (Kind::Block, _) if !stmt.leaf => {
                self.depth += 1;
                self.body(stmt, found);
            }
            _ => match evaled_testset(self.text, stmt) {
                // `@eval` of a testset runs it (among the module's names, as zy runs all).
                Some(inner) => {
                    let eval = TextRange::new(stmt.range.start, inner.range.start);
                    self.edits.push(Edit::new(stmt.range, eval, ""));
                    self.testset(inner, found);
                }
                None => {
                    let reason = "zy runs the tests of a testset's statements, loops, branches and `cond && @testset ...`, not of this construct";
                    not_run(self.text, stmt, reason, found);
                }
            },
        }
    }

    /// The branches of `if` (or of its `elseif`) `node`, in order (control reaching a test
    /// in a later branch took none of the earlier ones).
    fn branches(self, node: &SyntaxNode, found: &mut Found) {
        let [cond, then, rest @ ..] = node.children.as_slice() else {
            not_run(self.text, node, "zy cannot read this `if`", found);
            return;
        };
        if holds_test(self.text, cond) {
            let reason = "zy runs the tests of an `if`'s branches, not of its condition";
            not_run(self.text, node, reason, found);
            return;
        }
        self.clone().body(then, found);
        match rest {
            [] => {}
            [next] if next.kind == Kind::Elseif && !next.leaf => self.branches(next, found),
            [els] => self.body(els, found),
            _ => not_run(self.text, node, "zy cannot read this `if`", found),
        }
    }

    /// The test at `stmt`, made a [`Case`] (or a "not run" note).
    fn case(&self, stmt: &SyntaxNode, found: &mut Found) {
        let text = self.text;
        let expression = expression(text, stmt).filter(|(_, e, _)| e.range.end <= stmt.range.end);
        let Some((ask, expr, keywords)) = expression else {
            if is_skip(text, stmt) {
                self.skip(stmt, found);
            } else {
                let reason = "zy cannot read this test macro's arguments";
                found.skipped.push((stmt.range, reason.to_string()));
            }
            return;
        };
        let mut ask = ask;
        let mut passed = Vec::new();
        for kw in keywords {
            let [name, value] = kw.children.as_slice() else {
                continue;
            };
            match (slice(text, name.range), slice(text, value.range)) {
                ("skip", "true") => {
                    self.skip(stmt, found);
                    return;
                }
                ("broken", "true") => ask = Ask::Broken,
                ("skip" | "broken", "false") => {}
                _ => passed.push(slice(text, kw.range)),
            }
        }
        let shown = slice(text, expr.range).to_string();
        let written = match passed.as_slice() {
            [] => Some(shown.clone()),
            kws => with_keywords(text, expr, &kws.join(", ")),
        };
        let Some(written) = written else {
            let reason = "zy passes a test's keywords to a call or a comparison `a op b` only";
            found.skipped.push((stmt.range, reason.to_string()));
            return;
        };
        let operands = match ask {
            Ask::True => comparison(text, expr).map(|(a, op, b)| Operands {
                a: a.to_string(),
                b: b.to_string(),
                op: op.to_string(),
                keywords: match passed.as_slice() {
                    [] => String::new(),
                    kws => format!(" ({})", kws.join(", ")),
                },
            }),
            _ => None,
        };
        found.cases.push(Case {
            ask,
            range: stmt.range,
            shown: shown.clone(),
            value: written,
            wrap: self.wrap(stmt, expr.range, Some(shown)),
            operands,
            looped: self.looped(),
            in_module: self.in_module,
            at: None,
        });
    }

    /// `@test_skip` (or `skip=true`) at `stmt`: outside a loop counted once; in a loop a
    /// [`Ask::Skip`] case, counted each time control reaches it.
    fn skip(&self, stmt: &SyntaxNode, found: &mut Found) {
        if !self.looped {
            found.skips.push(stmt.range);
            return;
        }
        let at = TextRange::new(stmt.range.end, stmt.range.end);
        found.cases.push(Case {
            ask: Ask::Skip,
            range: stmt.range,
            shown: slice(self.text, stmt.range).to_string(),
            value: "true".to_string(),
            wrap: self.wrap(stmt, at, None),
            operands: None,
            looped: self.looped(),
            in_module: self.in_module,
            at: None,
        });
    }

    /// How the texts of the test at `stmt`, whose expression is at `expr`, are made; `run`
    /// is the expression an iteration that does not return it runs.
    fn wrap(&self, stmt: &SyntaxNode, expr: TextRange, run: Option<String>) -> Wrap {
        let (cut, depth) = match (self.repeats, self.cut) {
            (true, Some(cut)) => cut,
            _ => (stmt.range.end, self.depth),
        };
        let around = |e: &&Edit| !contains(e.owner, stmt.range);
        let mut edits = self.edits.clone();
        edits.extend(self.runs.edits.iter().filter(around).cloned());
        // A statement that changes no top-level binding changes only its locals (and what
        // they hold): a testset or test before the test that names none of the locals around
        // the test changes nothing it sees, and is left out.
        let mut inert = Vec::new();
        if self.runs.unchanging {
            let mut end = 0;
            for c in &self.runs.constructs {
                if contains(c.range, stmt.range) || c.range.start < end {
                    continue;
                }
                end = c.range.end;
                // The locals it may see: those of the constructs around both it and the test.
                let seen: Vec<&str> = (self.bound.iter())
                    .filter(|(around, _)| contains(*around, c.range))
                    .flat_map(|(_, names)| names.iter().copied())
                    .collect();
                if uses_any(self.text, c, &seen).is_none() {
                    inert.push(c.range);
                }
            }
        }
        Wrap {
            base: self.base.unwrap_or(stmt.range.start),
            cut,
            closing: "\nend".repeat(depth),
            looped: self.looped,
            edits,
            inert,
            stmt: stmt.range,
            expr,
            run,
            locals: String::new(),
        }
    }

    /// What the iterations of a test need, in a loop.
    fn looped(&self) -> Option<Looped> {
        self.looped.then(|| Looped {
            desc: self.desc.clone(),
            repeats: self.repeats,
        })
    }
}

/// The names the code of `node` binds outside the testsets in it: those assigned (`x = v`,
/// `x += v`, `x .= v`, a `let`'s, `x[i] = v` and `x.f = v` writing into `x`) and a loop's
/// variables.
fn bound_names<'t>(text: &'t str, node: &SyntaxNode, out: &mut Vec<&'t str>) {
    fn names<'t>(text: &'t str, node: &SyntaxNode, out: &mut Vec<&'t str>) {
        if node.leaf {
            if node.kind == Kind::Identifier {
                out.push(slice(text, node.range));
            }
            return;
        }
        node.children.iter().for_each(|c| names(text, c, out));
    }
    if node.leaf {
        return;
    }
    match node.kind {
        Kind::Assign | Kind::OpAssign | Kind::DotAssign | Kind::DotOpAssign => {
            if let Some(target) = node.children.first() {
                names(text, target, out);
            }
        }
        Kind::Iteration => {
            for spec in &node.children {
                if let Some(var) = spec.children.first() {
                    names(text, var, out);
                }
            }
        }
        _ => {}
    }
    node.children
        .iter()
        .filter(|c| test_macro(text, c) != Some(TestMacro::Testset))
        .for_each(|c| bound_names(text, c, out));
}

/// Is `inner` inside `outer`?
fn contains(outer: TextRange, inner: TextRange) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

/// How the tests and testsets of a top-level statement run where their verdicts are not the
/// one reported.
#[derive(Default)]
struct Runs<'n> {
    /// The edits making them run as Julia runs them ([`Runs::add`]).
    edits: Vec<Edit>,
    /// The tests and testsets, in the order written (one before those inside it).
    constructs: Vec<&'n SyntaxNode>,
    /// Does the statement change no top-level binding (by zy's analysis of the statements it
    /// skips, what the program's functions change in place included)?
    unchanging: bool,
}

impl<'n> Runs<'n> {
    /// Add the tests and testsets in `node`: a test's expression in a `try` (`Test` catches
    /// its error), a testset's body a `let` in a `try` (an error outside its tests ends it,
    /// and no more), an `@eval`'d testset the testset; a test zy cannot read, or a
    /// `@test_skip`, `nothing`.
    fn add(&mut self, text: &str, node: &'n SyntaxNode) {
        if test_macro(text, node).is_some() {
            self.constructs.push(node);
        }
        self.edits_of(text, node);
    }

    fn edits_of(&mut self, text: &str, node: &'n SyntaxNode) {
        let r = node.range;
        let out = &mut self.edits;
        let ends = |out: &mut Vec<Edit>, header: TextRange, with: &str| {
            out.push(Edit::new(r, header, with));
            out.push(Edit::new(r, TextRange::new(r.end, r.end), "\ncatch\nend)"));
        };
        match test_macro(text, node) {
            Some(TestMacro::Test) => match expression(text, node) {
                Some((_, e, keywords))
                    if e.range.end <= r.end
                        && !keywords
                            .iter()
                            .any(|k| slice(text, k.range).replace(' ', "") == "skip=true") =>
                {
                    ends(out, TextRange::new(r.start, e.range.start), "(try ");
                    let rest = TextRange::new(e.range.end, r.end);
                    out.push(Edit::new(r, rest, ""));
                }
                _ => out.push(Edit::new(r, r, "nothing")),
            },
            Some(TestMacro::Testset) => match node.children.last() {
                Some(block) if block.kind == Kind::Block => {
                    let first = block
                        .children
                        .first()
                        .map_or(block.range.end, |s| s.range.start);
                    ends(out, TextRange::new(r.start, first), "(try\nlet\n");
                    self.add(text, block);
                }
                Some(inner) if matches!(inner.kind, Kind::For | Kind::Let) => {
                    ends(out, TextRange::new(r.start, inner.range.start), "(try\n");
                    self.add(text, inner);
                }
                _ => out.push(Edit::new(r, r, "nothing")),
            },
            None => match evaled_testset(text, node) {
                Some(inner) => {
                    out.push(Edit::new(r, TextRange::new(r.start, inner.range.start), ""));
                    self.add(text, inner);
                }
                None if holds_test(text, node) => {
                    node.children.iter().for_each(|c| self.add(text, c));
                }
                None => {}
            },
        }
    }
}

/// How a test's texts are made: the file's text from `base` to `cut` with `edits` (those of
/// the testsets, loops and branches around the test, and the others' [`Runs::add`]), the
/// test at `stmt` made one returning a value, then the blocks open at `cut` closed; in a
/// loop, a closure of `#k` that runs the loops and returns the value the `#k`-th time control
/// reaches the test (see the module documentation). Its names are spelled `var"#k"`, which no
/// plain Julia name is, so the test's code cannot clash.
struct Wrap {
    base: u32,
    cut: u32,
    closing: String,
    looped: bool,
    edits: Vec<Edit>,
    /// The other testsets and tests left out as changing nothing the test sees.
    inert: Vec<TextRange>,
    stmt: TextRange,
    /// The test's expression (empty for a `@test_skip`).
    expr: TextRange,
    /// The expression run where the test's value is not returned, in a loop.
    run: Option<String>,
    /// `local x, y; `: the top-level bindings the test's statement makes ([`Declared`]),
    /// locals of the whole text.
    locals: String,
}

impl Wrap {
    /// The text whose value is `value` in the test's place, with the testsets and tests at
    /// `dropped` left out (`nothing`); in a loop, it ends in `(`. A `sweep`'s, in a loop, runs
    /// the loops through and returns how many times control reached the test, if `value` was
    /// `true` each of those times up to the `#k`-th, else -1 ([`sweep`]).
    fn text(&self, file: &str, value: &str, dropped: &[TextRange], sweep: bool) -> Texter {
        let (stmt, expr) = (self.stmt, self.expr);
        let (before, after) = match (self.looped, &self.run) {
            (false, _) => (String::new(), String::new()),
            (true, _) if sweep => (
                "var\"#n\" += 1; if var\"#n\" > var\"#k\"; return var\"#n\"; end; if !(("
                    .to_string(),
                ") === true); return -1; end".to_string(),
            ),
            (true, run) => (
                "var\"#n\" += 1; if var\"#n\" == var\"#k\"; return ".to_string(),
                match run {
                    Some(run) => format!("; end; try {run}\ncatch\nend"),
                    None => "; end".to_string(),
                },
            ),
        };
        // In the order written: the value (after the expression, for a `@test_skip`) is
        // inserted before what follows it.
        let mut own = vec![Edit::new(
            stmt,
            TextRange::new(stmt.start, expr.start),
            &before,
        )];
        if value != slice(file, expr) {
            own.push(Edit::new(stmt, expr, value));
        }
        own.push(Edit::new(stmt, TextRange::new(expr.end, stmt.end), &after));
        let gone = |r: &TextRange| dropped.contains(r) || self.inert.contains(r);
        let left_out: Vec<Edit> = dropped
            .iter()
            .chain(&self.inert)
            .filter(|r| !contains(**r, stmt))
            .map(|&r| Edit::new(r, r, "nothing"))
            .collect();
        let edits: Vec<&Edit> = self
            .edits
            .iter()
            .filter(|e| !gone(&e.owner))
            .chain(&own)
            .chain(&left_out)
            .collect();
        let mut t = Texter::default();
        let block = !self.looped && !self.locals.is_empty();
        if self.looped {
            t.literal("((var\"#k\") -> begin var\"#n\" = 0; ", self.base);
        } else if block {
            t.literal("begin ", self.base);
        }
        t.literal(&self.locals, self.base);
        t.file(file, self.base, self.cut, &edits);
        t.literal(&self.closing, self.cut);
        match (self.looped, sweep) {
            (true, false) => t.literal("\nerror(\"#done\")\nend)(", self.cut),
            (true, true) => t.literal("\nvar\"#n\"\nend)(", self.cut),
            (false, _) if block => t.literal("\nend", self.cut),
            (false, _) => {}
        }
        t
    }

    /// The text running the test's statement up to it with each of `cases` (its own
    /// statement's straight-line `@test`s up to it, in order, this one last) counted as it
    /// runs: the number of them, if each was reached in order and gave `true`, else `-m`
    /// where the `m`-th did not (`#t` holds the one running, whose throw the `try` of an
    /// earlier testset may catch).
    fn text_of_all(&self, file: &str, cases: &[&Case]) -> Texter {
        let counted: Vec<TextRange> = cases.iter().map(|c| c.wrap.stmt).collect();
        let mut own = Vec::new();
        for (i, c) in (1..).zip(cases) {
            let (stmt, expr) = (c.wrap.stmt, c.wrap.expr);
            // Reached in order (an error outside the tests may end a testset before one).
            let before = format!(
                "(if var\"#t\" != 0; return -var\"#t\"; end; if var\"#n\" != {}; return -(var\"#n\" + 1); end; var\"#n\" = {i}; var\"#t\" = {i}; if !((",
                i - 1
            );
            own.push(Edit::new(
                stmt,
                TextRange::new(stmt.start, expr.start),
                &before,
            ));
            if c.value != slice(file, expr) {
                own.push(Edit::new(stmt, expr, &c.value));
            }
            let after = format!(") === true); return -{i}; end; var\"#t\" = 0)");
            own.push(Edit::new(stmt, TextRange::new(expr.end, stmt.end), &after));
        }
        let edits: Vec<&Edit> = self
            .edits
            .iter()
            .filter(|e| !counted.contains(&e.owner))
            .chain(&own)
            .collect();
        let mut t = Texter::default();
        t.literal("(() -> begin var\"#n\" = 0; var\"#t\" = 0; ", self.base);
        t.literal(&self.locals, self.base);
        t.file(file, self.base, self.cut, &edits);
        t.literal(&self.closing, self.cut);
        let n = cases.len();
        let result = format!(
            "\nvar\"#t\" != 0 ? -var\"#t\" : var\"#n\" == {n} ? {n} : -(var\"#n\" + 1)\nend)()"
        );
        t.literal(&result, self.cut);
        t
    }

    /// Run the top-level bindings that the test's statement makes as locals of the text.
    fn declare(&mut self, d: &Declared) {
        self.locals = format!("local {}; ", d.names.join(", "));
        for &k in &d.keywords {
            self.edits.push(Edit::new(d.stmt, k, ""));
        }
    }

    /// The testsets and tests other than the reported one (and those around it) that its
    /// text runs, in the order written (a testset before those inside it).
    fn constructs(&self, dropped: &[TextRange]) -> Vec<TextRange> {
        let mut owners: Vec<TextRange> = self
            .edits
            .iter()
            .map(|e| e.owner)
            .filter(|o| !contains(*o, self.stmt) && o.start < self.cut)
            .filter(|o| !dropped.contains(o) && !self.inert.contains(o))
            .collect();
        owners.sort_by_key(|o| (o.start, std::cmp::Reverse(o.end)));
        owners.dedup();
        owners
    }

    /// The innermost testset or test other than the reported one (and those around it)
    /// that the file's offset `at` is in.
    fn construct_at(&self, at: u32) -> Option<TextRange> {
        self.edits
            .iter()
            .map(|e| e.owner)
            .filter(|o| !contains(*o, self.stmt) && o.start <= at && at < o.end)
            .min_by_key(|o| o.end - o.start)
    }
}

/// Julia's name of a `@testset for` iteration without a description: each loop variable and
/// its value, `"i = $(i), j = $(j)"`.
fn default_desc(text: &str, f: &SyntaxNode) -> Option<String> {
    let iteration = f.children.first()?;
    let parts: Vec<String> = iteration
        .children
        .iter()
        .filter_map(|spec| spec.children.first())
        .map(|v| {
            let v = slice(text, v.range);
            format!("{v} = $({v})")
        })
        .collect();
    Some(format!("\"{}\"", parts.join(", ")))
}

/// Is `stmt` `@test_skip ...` (which Julia only records)?
fn is_skip(text: &str, stmt: &SyntaxNode) -> bool {
    stmt.children
        .first()
        .is_some_and(|n| slice(text, n.range).ends_with("test_skip"))
}

/// A test macro's question, its expression and its trailing `key = value` arguments.
fn expression<'n>(
    text: &str,
    stmt: &'n SyntaxNode,
) -> Option<(Ask, &'n SyntaxNode, Vec<&'n SyntaxNode>)> {
    let name = slice(text, stmt.children.first()?.range);
    let args: Vec<&SyntaxNode> = stmt.children[1..]
        .iter()
        .filter(|c| !c.is_error())
        .collect();
    let keywords = |rest: &[&'n SyntaxNode]| -> Option<Vec<&'n SyntaxNode>> {
        rest.iter()
            .map(|&k| (k.kind == Kind::Assign && k.children.len() == 2).then_some(k))
            .collect()
    };
    match (name.rsplit('.').next()?, args.as_slice()) {
        ("@test", [e, rest @ ..]) => Some((Ask::True, *e, keywords(rest)?)),
        ("@test_broken", [e, rest @ ..]) => Some((Ask::Broken, *e, keywords(rest)?)),
        ("@test_nowarn", [e]) => Some((Ask::NoWarn, *e, Vec::new())),
        ("@test_throws", [exception, e]) => {
            let exception = slice(text, exception.range).to_string();
            Some((Ask::Throws(exception), *e, Vec::new()))
        }
        _ => None,
    }
}

/// `e` with `keywords` passed to its call: `isapprox(a, b; atol = 1e-8)` for `a ≈ b`,
/// `(op)(a, b; kw)` for another comparison, `f(x...; kw)` for a call.
fn with_keywords(text: &str, e: &SyntaxNode, keywords: &str) -> Option<String> {
    if let Some((a, op, b)) = comparison(text, e) {
        let f = match op {
            "≈" => "isapprox".to_string(),
            op => format!("({op})"),
        };
        return Some(format!("{f}({a}, {b}; {keywords})"));
    }
    if e.kind != Kind::Call || e.is_infix() || e.is_prefix() || e.is_postfix() {
        return None;
    }
    let (callee, args) = e.children.split_first()?;
    let mut parts: Vec<&str> = Vec::new();
    for a in args {
        if a.kind == Kind::Parameters {
            return None; // already has keywords: left to a later version of the test
        }
        parts.push(slice(text, a.range));
    }
    Some(format!(
        "{}({}; {keywords})",
        slice(text, callee.range),
        parts.join(", ")
    ))
}

/// `a op b` written infix with a comparison operator: the operands' texts and the operator.
fn comparison<'t>(text: &'t str, e: &SyntaxNode) -> Option<(&'t str, &'t str, &'t str)> {
    if e.kind != Kind::Call || !e.is_infix() {
        return None;
    }
    let [a, op, b] = e.children.as_slice() else {
        return None;
    };
    let op_text = slice(text, op.range);
    let comparing = [
        "==", "!=", "≈", "≉", "<", "<=", ">", ">=", "≤", "≥", "===", "!==", "≠", "in", "∈", "isa",
    ];
    comparing
        .contains(&op_text)
        .then(|| (slice(text, a.range), op_text, slice(text, b.range)))
}

/// Does `node` hold a test macro anywhere?
fn holds_test(text: &str, node: &SyntaxNode) -> bool {
    test_macro(text, node).is_some() || node.children.iter().any(|c| holds_test(text, c))
}

/// The statements of a block (a lone statement where the body is one).
fn statements_of(node: &SyntaxNode) -> &[SyntaxNode] {
    match node.kind == Kind::Block && !node.leaf {
        true => &node.children,
        false => std::slice::from_ref(node),
    }
}

/// Is `node` code that [`Scope::as_written`] runs (not a definition holding tests, such as
/// a macro's)?
fn runs_as_written(text: &str, node: &SyntaxNode) -> bool {
    let code = matches!(
        node.kind,
        Kind::If | Kind::While | Kind::And | Kind::Or | Kind::Block
    );
    code || evaled_testset(text, node).is_some()
}

/// The testset of `@eval @testset ...`.
fn evaled_testset<'n>(text: &str, node: &'n SyntaxNode) -> Option<&'n SyntaxNode> {
    if node.kind != Kind::MacroCall {
        return None;
    }
    let (name, args) = node.children.split_first()?;
    let [inner] = args else {
        return None;
    };
    let eval = matches!(slice(text, name.range), "@eval" | "Base.@eval");
    (eval && test_macro(text, inner) == Some(TestMacro::Testset)).then_some(inner)
}

/// Every test macro in `node`: not run, for `reason`.
fn not_run(text: &str, node: &SyntaxNode, reason: &str, found: &mut Found) {
    match test_macro(text, node) {
        Some(TestMacro::Test) => found.skipped.push((node.range, reason.to_string())),
        _ => {
            for c in &node.children {
                not_run(text, c, reason, found);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The evaluated texts of the tests of `text`, one per line.
    fn texts(text: &str) -> String {
        let found = find(text, &[]);
        let mut out = String::new();
        for c in found.cases {
            let t = c.text(text, &c.value, None, &[]).text;
            out.push_str(&format!("{:?} @{} {:?}\n", c.ask, c.wrap.base, t));
        }
        for (r, why) in found.skipped {
            out.push_str(&format!("not run {}..{}: {why}\n", r.start, r.end));
        }
        out
    }

    #[test]
    fn a_testset_keeps_its_statements_and_its_positions() {
        let text = "@testset \"a\" begin\n    m = 2.0\n    @test f(m) == 4.0\n    @test g!(m) ≈ 1 atol=0.1\n    @testset \"b\" begin\n        q = m\n        @test q > 0\n    end\n    @test_throws DomainError sqrt(-m)\nend\n@test h(1)\n@test_skip x\n";
        expect_test::expect![[r#"
            True @0 "let\nm = 2.0\n    f(m) == 4.0\nend"
            True @0 "let\nm = 2.0\n    (try f(m) == 4.0\ncatch\nend)\n    isapprox(g!(m), 1; atol=0.1)\nend"
            True @0 "let\nm = 2.0\n    (try f(m) == 4.0\ncatch\nend)\n    (try g!(m) ≈ 1\ncatch\nend)\n    let\nq = m\n        q > 0\nend\nend"
            Throws("DomainError") @0 "let\nm = 2.0\n    (try f(m) == 4.0\ncatch\nend)\n    (try g!(m) ≈ 1\ncatch\nend)\n    (try\nlet\nq = m\n        (try q > 0\ncatch\nend)\n    end\ncatch\nend)\n    sqrt(-m)\nend"
            True @191 "h(1)"
        "#]]
        .assert_eq(&texts(text));
    }

    #[test]
    fn tests_in_loops_run_in_closures_and_unreadable_ones_are_not_run() {
        let text = "@testset \"a\" begin\n    for i in 1:2\n        @test i > 0\n    end\n    while false\n        @test true\n    end\nend\n@testset \"n $i\" for i in 1:2\n    @test i > 0\nend\nfor (a, b) in [(1, 2)]\n    @test a < b\nend\n@test\n";
        expect_test::expect![[r##"
            True @0 "((var\"#k\") -> begin var\"#n\" = 0; let\nfor i in 1:2\n        var\"#n\" += 1; if var\"#n\" == var\"#k\"; return i > 0; end; try i > 0\ncatch\nend\n    end\nend\nerror(\"#done\")\nend)("
            True @0 "((var\"#k\") -> begin var\"#n\" = 0; let\nfor i in 1:2\n        (try i > 0\ncatch\nend)\n    end\n    while false\n        var\"#n\" += 1; if var\"#n\" == var\"#k\"; return true; end; try true\ncatch\nend\n    end\nend\nerror(\"#done\")\nend)("
            True @111 "((var\"#k\") -> begin var\"#n\" = 0; for i in 1:2\n    var\"#n\" += 1; if var\"#n\" == var\"#k\"; return i > 0; end; try i > 0\ncatch\nend\nend\nerror(\"#done\")\nend)("
            True @160 "((var\"#k\") -> begin var\"#n\" = 0; for (a, b) in [(1, 2)]\n    var\"#n\" += 1; if var\"#n\" == var\"#k\"; return a < b; end; try a < b\ncatch\nend\nend\nerror(\"#done\")\nend)("
            not run 203..208: zy cannot read this test macro's arguments
        "##]].assert_eq(&texts(text));
    }

    #[test]
    fn tests_under_conditions_run_as_written_and_a_later_branch_leaves_out_the_earlier() {
        let text = "@testset \"a\" begin\n    if c\n        @test x\n    else\n        @test y\n    end\n    c && @testset \"b\" begin\n        @test z\n    end\n    c && @test w\nend\n@eval @testset begin\n    @test v\nend\n";
        expect_test::expect![[r##"
            True @0 "((var\"#k\") -> begin var\"#n\" = 0; let\nif c\n        var\"#n\" += 1; if var\"#n\" == var\"#k\"; return x; end; try x\ncatch\nend\nend\nend\nerror(\"#done\")\nend)("
            True @0 "((var\"#k\") -> begin var\"#n\" = 0; let\nif c\n        (try x\ncatch\nend)\n    else\n        var\"#n\" += 1; if var\"#n\" == var\"#k\"; return y; end; try y\ncatch\nend\nend\nend\nerror(\"#done\")\nend)("
            True @0 "((var\"#k\") -> begin var\"#n\" = 0; let\nif c\n        (try x\ncatch\nend)\n    else\n        (try y\ncatch\nend)\n    end\n    c && let\nvar\"#n\" += 1; if var\"#n\" == var\"#k\"; return z; end; try z\ncatch\nend\nend\nend\nerror(\"#done\")\nend)("
            True @150 "let\nv\nend"
            not run 138..145: zy runs the tests of a testset's statements, loops, branches and `cond && @testset ...`, not of this construct
        "##]].assert_eq(&texts(text));
    }

    #[test]
    fn tests_in_a_module_and_a_let_run_unless_they_use_the_modules_names() {
        let text = "module T\nusing Test\nh(x) = x\n@testset begin\n    let y = 2\n        @test f(y) == 4\n    end\n    @test_nowarn f(1)\nend\n@test h(1) == 1\nend\n";
        expect_test::expect![[r#"
            True @29 "let\nlet y = 2\n        f(y) == 4\nend\nend"
            NoWarn @29 "let\nlet y = 2\n        (try f(y) == 4\ncatch\nend)\n    end\n    f(1)\nend"
            not run 116..131: zy runs a module's tests among the file's top-level names, and this one uses `h`, which its module defines
        "#]].assert_eq(&texts(text));
    }

    #[test]
    fn a_loop_test_maps_its_text_to_the_file() {
        let text = "@testset for i in 1:2\n    x = i\n    @test x > 0\nend\n";
        let found = find(text, &[]);
        let [case] = found.cases.as_slice() else {
            panic!("one case");
        };
        let t = case.text(text, &case.value, Some(2), &[]);
        let at = |s: &str| t.map.file_offset(t.text.find(s).unwrap_or(0) as u32);
        let file = |t: &str| text.find(t).unwrap_or(usize::MAX) as u32;
        assert_eq!(at("x = i"), file("x = i"));
        assert_eq!(at("x > 0"), file("x > 0"));
        assert_eq!(at("var\"#n\" = 0"), 0);
        assert_eq!(at("if var\"#n\""), file("@test x"));
        assert!(t.text.ends_with("end)(2)"), "{}", t.text);
        assert_eq!(
            case.looped
                .as_ref()
                .and_then(|l| l.desc.as_deref())
                .map(|d| d.contains("\"i = $(i)\"")),
            Some(true)
        );
        assert_eq!(text_offset("ab\ncd", 2, 2), Some(4));
        assert_eq!(text_offset("aé\nc", 1, 3), Some(3));
    }
}
