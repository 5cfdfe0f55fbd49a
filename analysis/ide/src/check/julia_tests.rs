//! The file's own Julia tests, run by `check`: `@test`, `@test_throws`, `@test_broken` and
//! `@test_skip` at top level and in `@testset ... begin ... end` blocks (nested), as Julia's
//! `Test` runs them. A test inside a testset sees the statements before it in its testsets
//! (`m = Linear(2.0, 1.0)`), evaluated afresh for each test; an earlier test's expression is
//! kept among them only where it calls a function named with `!` (it may change what later
//! tests read), and left out again where it throws (Julia's `Test` catches that error). A test zy cannot run (an unsupported construct, a name top-level code changes,
//! a test in a loop) is a note, never a failure: only Julia's verdicts are errors.

use zy_hir::{RootDatabase, SourceFile};
use zy_syntax::ast::TextRange;
use zy_syntax::kind::Kind;
use zy_syntax::tree::SyntaxNode;

use crate::eval::{eval_at, Failure};
use crate::locate::CallSite;
use crate::{Diagnostic, EvalLimits, Related, Severity, UserError};

/// The code of a test that fails or errors, as Julia's `Test` reports it.
pub const TEST_FAILED: &str = "test-failed";
/// The code of the note on a test zy cannot run.
pub const TEST_NOT_RUN: &str = "test-not-run";

/// What a test macro asks.
#[derive(Clone, PartialEq, Debug)]
enum Ask {
    /// `@test e`: `e` is `true`.
    True,
    /// `@test_broken e` (or `@test e broken=true`): `e` is `false` or throws.
    Broken,
    /// `@test_throws E e`: `e` throws an `E`.
    Throws(String),
}

/// One test of the file, ready to run.
struct Case {
    ask: Ask,
    /// The test macro call, for the finding's place.
    range: TextRange,
    /// The expression as written, for messages.
    shown: String,
    /// The text evaluated: the enclosing testsets' statements, then the expression; byte `i`
    /// of it is the file's byte `base + i` up to the expression (later positions are close).
    text: String,
    base: u32,
    /// For a comparison `a op b`, how to show its operands when it fails.
    operands: Option<Operands>,
    /// The earlier tests' expressions kept in `text` (file ranges).
    kept: Vec<TextRange>,
}

impl Case {
    /// Leave out the kept expression `r` of an earlier test (it threw), here and in the
    /// operands' texts: spaces in its place, so that positions stay.
    fn drop_kept(&mut self, r: TextRange) {
        let (start, end) = ((r.start - self.base) as usize, (r.end - self.base) as usize);
        let blank = |t: &mut String| {
            if let Some(part) = t.get(start..end) {
                let spaces: String = part
                    .chars()
                    .map(|c| if c == '\n' { c } else { ' ' })
                    .collect();
                t.replace_range(start..end, &spaces);
            }
        };
        blank(&mut self.text);
        if let Some(o) = &mut self.operands {
            blank(&mut o.a);
            blank(&mut o.b);
        }
        self.kept.retain(|&k| k != r);
    }
}

/// The operands of a comparison test, for Julia's `Evaluated: 4.0 ≈ 4.1 (atol=0.01)`.
struct Operands {
    /// The texts evaluating `a` and `b` as the test's text evaluates the comparison.
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
    /// The top-level statements whose tests were all taken (their "not run" note goes).
    taken: Vec<u32>,
}

/// The findings of running the tests of `file`, and the top-level statements whose tests ran
/// (by start offset): their `skipped-statement` notes no longer apply.
pub(crate) fn check(
    db: &RootDatabase,
    file: SourceFile,
    limits: &EvalLimits,
) -> (Vec<Diagnostic>, Vec<u32>) {
    if crate::eval::load_error(db, file).is_some() {
        return (Vec::new(), Vec::new()); // reported by `diagnostics`
    }
    let text = file.text(db);
    let found = find(text);
    let mut out = Vec::new();
    for (range, reason) in found.skipped {
        out.push(finding(db, file, range, TEST_NOT_RUN, reason, Vec::new()));
    }
    for mut case in found.cases {
        let result = loop {
            let result = run(db, file, &case, limits);
            // An earlier test kept for its effect threw: Julia's `Test` caught that, so the
            // test runs again without it.
            let culprit = result
                .as_ref()
                .and_then(|(_, _, related)| related.first())
                .and_then(|at| {
                    case.kept
                        .iter()
                        .copied()
                        .find(|k| k.start <= at.start && at.start < k.end)
                });
            match culprit {
                Some(k) => case.drop_kept(k),
                None => break result,
            }
        };
        if let Some((code, message, related)) = result {
            out.push(finding(db, file, case.range, code, message, related));
        }
    }
    (out, found.taken)
}

fn finding(
    db: &RootDatabase,
    file: SourceFile,
    range: TextRange,
    code: &str,
    message: String,
    related: Vec<Related>,
) -> Diagnostic {
    let lc = zy_hir::line_col(db, file, range.start);
    Diagnostic {
        start: range.start,
        end: range.end,
        line: lc.line,
        col: lc.col,
        code: code.to_string(),
        message,
        severity: match code {
            TEST_NOT_RUN => Severity::Note,
            _ => Severity::Error,
        },
        related,
    }
}

/// Run one test: `None` when it passes, else the finding's code, message and related places.
fn run(
    db: &RootDatabase,
    file: SourceFile,
    case: &Case,
    limits: &EvalLimits,
) -> Option<(&'static str, String, Vec<Related>)> {
    let site = CallSite::InFile {
        file,
        offset: case.base,
    };
    let shown = &case.shown;
    let result = eval_at(db, file, &case.text, site, limits);
    let thrown = match result {
        Ok(value) => {
            let verdict = match (&case.ask, value.ty.as_str(), value.display.as_str()) {
                (Ask::Throws(e), _, _) => format!(
                    "Test Failed: Expression: {shown}, Expected: {e}, No exception thrown"
                ),
                (_, ty, _) if ty != "Bool" => format!(
                    "Error During Test: Expression evaluated to non-Boolean: {shown}, Value: {}",
                    value.display
                ),
                (Ask::True, _, "true") | (Ask::Broken, _, "false") => return None,
                (Ask::Broken, _, _) => format!(
                    "Unexpected Pass: Expression: {shown}, Got correct result, please change to @test if no longer broken"
                ),
                (Ask::True, _, _) => match evaluated(db, file, case, limits) {
                    Some(e) => format!("Test Failed: Expression: {shown}, Evaluated: {e}"),
                    None => format!("Test Failed: Expression: {shown}"),
                },
            };
            return Some((TEST_FAILED, verdict, Vec::new()));
        }
        Err(Failure::Typing(code, e)) if !is_julia_error(code, &e) => {
            let message = format!("zy cannot run this test: {}", e.message);
            return Some((
                TEST_NOT_RUN,
                message,
                related(db, file, &e, "zy stops here"),
            ));
        }
        Err(Failure::Typing(_, e) | Failure::Running(e)) => e,
    };
    if is_zy_limit(&thrown) {
        let message = format!("zy cannot run this test: {}", thrown.message);
        return Some((
            TEST_NOT_RUN,
            message,
            related(db, file, &thrown, "zy stops here"),
        ));
    }
    let message = match &case.ask {
        Ask::Broken => return None,
        Ask::Throws(e) if throws(&thrown.message, e) => return None,
        Ask::Throws(e) => format!(
            "Test Failed: Expression: {shown}, Expected: {e}, Thrown: {}",
            thrown.message
        ),
        Ask::True => format!(
            "Error During Test: Expression: {shown}, threw: {}",
            thrown.message
        ),
    };
    Some((
        TEST_FAILED,
        message,
        related(db, file, &thrown, "thrown here"),
    ))
}

/// Is a typing failure with `code` an exception Julia throws too (a `MethodError`, an
/// `UndefVarError`), rather than something outside zy's language?
fn is_julia_error(code: &str, e: &UserError) -> bool {
    matches!(code, "method-error" | "undefined-name") && !is_zy_limit(e)
}

/// Does the error say zy cannot know the value (a binding top-level code it does not run
/// changes, a construct outside its language) or stopped the run at its time limit, rather
/// than what Julia would throw?
fn is_zy_limit(e: &UserError) -> bool {
    e.message.contains("top-level code that zy does not run")
        || e.message.starts_with("unsupported")
        || e.message.starts_with("InterruptException: time limit")
}

/// Is an exception with this message one of type `expected` (by name: `MethodError`,
/// `DomainError`, `ErrorException` for `error("...")`)? `Exception` matches every exception.
fn throws(message: &str, expected: &str) -> bool {
    let name = expected.rsplit('.').next().unwrap_or(expected);
    if name == "Exception" {
        return true;
    }
    let thrown: String = message
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    thrown == name
}

/// The error's place in `file` as a related location labelled `label`.
fn related(db: &RootDatabase, file: SourceFile, e: &UserError, label: &str) -> Vec<Related> {
    let at = zy_hir::LineCol {
        line: e.line,
        col: e.col,
    };
    let start = match &e.file == file.path(db) {
        true => zy_hir::offset_of(db, file, at),
        false => None,
    };
    start.map_or_else(Vec::new, |start| {
        vec![Related {
            file: e.file.clone(),
            line: e.line,
            col: e.col,
            start,
            end: start,
            message: label.to_string(),
        }]
    })
}

/// The operands of a failed comparison as Julia's `Evaluated:` line shows them (`4.0 == 5.0`).
fn evaluated(
    db: &RootDatabase,
    file: SourceFile,
    case: &Case,
    limits: &EvalLimits,
) -> Option<String> {
    let o = case.operands.as_ref()?;
    let site = CallSite::InFile {
        file,
        offset: case.base,
    };
    let a = eval_at(db, file, &o.a, site, limits).ok()?;
    let b = eval_at(db, file, &o.b, site, limits).ok()?;
    Some(format!(
        "{} {} {}{}",
        a.display, o.op, b.display, o.keywords
    ))
}

/// The tests of the file with `text`, by its syntax tree.
fn find(text: &str) -> Found {
    let parse = zy_syntax::tree::parse(text, None);
    let mut found = Found::default();
    for stmt in &parse.root.children {
        match test_macro(text, stmt) {
            Some(TestMacro::Test) => {
                found.taken.push(stmt.range.start);
                let scope = Scope {
                    text,
                    base: None,
                    blanks: Vec::new(),
                    depth: 0,
                    kept: Vec::new(),
                };
                scope.case(stmt, &mut found);
            }
            Some(TestMacro::Testset) => {
                found.taken.push(stmt.range.start);
                let scope = Scope {
                    text,
                    base: Some(stmt.range.start),
                    blanks: Vec::new(),
                    depth: 0,
                    kept: Vec::new(),
                };
                scope.testset(stmt, &mut found);
            }
            None => {}
        }
    }
    found
}

/// The kinds of test macro.
#[derive(Clone, Copy, PartialEq, Debug)]
enum TestMacro {
    /// `@test`, `@test_throws`, `@test_broken`, `@test_skip`.
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
        "test" | "test_throws" | "test_broken" | "test_skip" => Some(TestMacro::Test),
        "testset" => Some(TestMacro::Testset),
        _ => None,
    }
}

/// The text of a range (empty if it is not one of `text`).
fn slice(text: &str, range: TextRange) -> &str {
    text.get(range.start as usize..range.end as usize)
        .unwrap_or_default()
}

/// Where a test is: the testsets around it, as text to evaluate before its expression.
#[derive(Clone)]
struct Scope<'a> {
    text: &'a str,
    /// The start of the outermost testset (none at top level).
    base: Option<u32>,
    /// Ranges from `base` on that are left out (spaces; newlines kept), with what replaces
    /// their first bytes (`begin` for a testset's header).
    blanks: Vec<(TextRange, &'static str)>,
    /// How many testsets are open.
    depth: usize,
    /// The earlier tests' expressions kept (file ranges).
    kept: Vec<TextRange>,
}

impl Scope<'_> {
    /// The text from `base` to `upto` with the blanks applied.
    fn prefix(&self, base: u32, upto: u32) -> String {
        let mut bytes = self
            .text
            .as_bytes()
            .get(base as usize..upto as usize)
            .unwrap_or_default()
            .to_vec();
        for (r, with) in &self.blanks {
            let start = r.start.saturating_sub(base) as usize;
            let end = (r.end.min(upto)).saturating_sub(base) as usize;
            for b in bytes.iter_mut().take(end).skip(start) {
                if *b != b'\n' {
                    *b = b' ';
                }
            }
            if end >= start + with.len() {
                bytes[start..start + with.len()].copy_from_slice(with.as_bytes());
            }
        }
        // Whole characters were replaced, so the bytes are still UTF-8.
        String::from_utf8(bytes).unwrap_or_default()
    }

    /// The body of `@testset ["name"] begin ... end`: each statement in order.
    fn testset(mut self, node: &SyntaxNode, found: &mut Found) {
        let Some(block) = node.children.last().filter(|b| b.kind == Kind::Block) else {
            let reason = "zy runs the tests of a `@testset ... begin ... end` block, not of a `@testset for` loop";
            not_run(self.text, node, reason, found);
            return;
        };
        let first = block
            .children
            .first()
            .map_or(block.range.end, |s| s.range.start);
        self.blanks
            .push((TextRange::new(node.range.start, first), "begin"));
        self.depth += 1;
        for stmt in &block.children {
            match test_macro(self.text, stmt) {
                Some(TestMacro::Test) => {
                    self.case(stmt, found);
                    // Later tests see it only if it may change what they read.
                    let keep = expression(self.text, stmt)
                        .filter(|(_, e, _)| mutates(self.text, e) && e.range.end <= stmt.range.end);
                    match keep {
                        Some((_, e, _)) => {
                            self.blanks
                                .push((TextRange::new(stmt.range.start, e.range.start), ""));
                            self.blanks
                                .push((TextRange::new(e.range.end, stmt.range.end), ""));
                            self.kept.push(e.range);
                        }
                        None => self.blanks.push((stmt.range, "")),
                    }
                }
                Some(TestMacro::Testset) => {
                    self.clone().testset(stmt, found);
                    self.blanks.push((stmt.range, ""));
                }
                None if holds_test(self.text, stmt) => {
                    let reason = "zy runs a testset's tests written as its statements, not those inside a loop or a condition";
                    not_run(self.text, stmt, reason, found);
                    self.blanks.push((stmt.range, ""));
                }
                None => {}
            }
        }
    }

    /// The test at `stmt`, made a [`Case`] (or a "not run" note).
    fn case(&self, stmt: &SyntaxNode, found: &mut Found) {
        let text = self.text;
        let Some((ask, expr, keywords)) = expression(text, stmt) else {
            if !is_skip(text, stmt) {
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
                ("skip", "true") => return,
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
        let base = self.base.unwrap_or(expr.range.start);
        let head = match self.base {
            Some(_) => {
                let mut scope = self.clone();
                scope
                    .blanks
                    .push((TextRange::new(stmt.range.start, expr.range.start), ""));
                scope.prefix(base, expr.range.start)
            }
            None => String::new(),
        };
        let tail = "\nend".repeat(self.depth);
        let operands = match ask {
            Ask::True => comparison(text, expr).map(|(a, op, b)| Operands {
                a: format!("{head}{a}{tail}"),
                b: format!("{head}{b}{tail}"),
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
            shown,
            text: format!("{head}{written}{tail}"),
            base,
            operands,
            kept: self.kept.clone(),
        });
    }
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

/// Does the expression call a function named with `!` (one that may change its arguments)?
fn mutates(text: &str, e: &SyntaxNode) -> bool {
    let own = e.kind == Kind::Call
        && !e.is_infix()
        && e.children
            .first()
            .is_some_and(|c| slice(text, c.range).ends_with('!'));
    own || e.children.iter().any(|c| mutates(text, c))
}

/// Does `node` hold a test macro anywhere?
fn holds_test(text: &str, node: &SyntaxNode) -> bool {
    test_macro(text, node).is_some() || node.children.iter().any(|c| holds_test(text, c))
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
        let found = find(text);
        let mut out = String::new();
        for c in found.cases {
            out.push_str(&format!("{:?} @{} {:?}\n", c.ask, c.base, c.text));
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
            True @0 "begin             \n    m = 2.0\n          f(m) == 4.0\nend"
            True @0 "begin             \n    m = 2.0\n                     \n          isapprox(g!(m), 1; atol=0.1)\nend"
            True @0 "begin             \n    m = 2.0\n                     \n          g!(m) ≈ 1         \n    begin             \n        q = m\n              q > 0\nend\nend"
            Throws("DomainError") @0 "begin             \n    m = 2.0\n                     \n          g!(m) ≈ 1         \n                      \n             \n                   \n       \n                             sqrt(-m)\nend"
            True @197 "h(1)"
        "#]]
        .assert_eq(&texts(text));
    }

    #[test]
    fn tests_in_loops_and_unreadable_ones_are_not_run() {
        let text = "@testset \"a\" begin\n    for i in 1:2\n        @test i > 0\n    end\nend\n@testset for i in 1:2\n    @test i > 0\nend\n@test\n";
        expect_test::expect![[r#"
            not run 44..55: zy runs a testset's tests written as its statements, not those inside a loop or a condition
            not run 94..105: zy runs the tests of a `@testset ... begin ... end` block, not of a `@testset for` loop
            not run 110..115: zy cannot read this test macro's arguments
        "#]]
        .assert_eq(&texts(text));
    }

    #[test]
    fn an_exception_matches_by_name() {
        assert!(throws("MethodError: no method matching f()", "MethodError"));
        assert!(throws("DomainError with -1.0: sqrt", "Base.DomainError"));
        assert!(throws("anything", "Exception"));
        assert!(!throws("BoundsError: attempt to access", "DomainError"));
    }
}
