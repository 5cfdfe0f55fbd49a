//! Every refusal says what it refuses and, where Julia has a spelling zy accepts, what to write
//! instead: the diagnostics of `tests/refused/refused.jl`, a file of refused constructs, as
//! `file:line:col code: message`, against the snapshot `tests/refused/refused.txt` (bless a
//! change with `UPDATE_EXPECT=1` and read its diff).

use std::path::Path;

use expect_test::expect_file;
use zy_ide::AnalysisHost;

#[test]
fn refusals_name_the_construct_and_what_to_write_instead() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("refused/refused.jl");
    let text = std::fs::read_to_string(&path).expect("read refused.jl");
    let mut host = AnalysisHost::new();
    let file = host.set_file_text(&path, text);
    let diagnostics = host.analysis().diagnostics(file).expect("not cancelled");
    // A message naming a path (an include of a missing file) names it below `tests/`, so
    // the snapshot is the same wherever the repository is checked out.
    let tests = Path::new(env!("CARGO_MANIFEST_DIR"))
        .to_string_lossy()
        .into_owned();
    let mut out = String::new();
    for d in diagnostics {
        out.push_str(&format!(
            "refused.jl:{}:{} [{}] {}\n",
            d.line,
            d.col,
            d.code,
            d.message.replace(&tests, "<tests>")
        ));
    }
    expect_file!["../refused/refused.txt"].assert_eq(&out);
}
