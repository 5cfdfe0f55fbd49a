//! Inference from source text: the fixtures' annotated calls, through parsing and lowering.

use crate::common;

use std::path::{Path, PathBuf};

use zy_ir::Program;

/// Parse and lower `text`; `Err` with the front end's messages.
fn lower(text: &str) -> Result<Program, String> {
    let file = zy_syntax::parse_file(text);
    if !file.errors.is_empty() {
        return Err(format!("{:?}", file.errors));
    }
    let lowered = zy_lower::lower_file(0, &file);
    if !lowered.errors.is_empty() {
        return Err(format!("{:?}", lowered.errors));
    }
    Ok(lowered.program)
}

/// Infer `call` in the context of `text` by typing `__entry__() = call`.
fn at(text: &str, call: &str) -> Result<String, String> {
    let program = lower(&format!("{text}\n__entry__() = {call}\n"))?;
    match zy_infer::infer_entry(&program, "__entry__", &[]) {
        Ok((root, prog)) => Ok(common::print_program(&root, &prog)),
        Err(errs) => Err(common::errors(&errs)),
    }
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// The calls a fixture names in `# zy: at` and `# expect eval:` / `# expect grad:` lines.
fn calls(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(c) = line.strip_prefix("# zy: at ") {
            out.push(c.trim().to_string());
        }
        for prefix in ["# expect eval: ", "# expect grad: "] {
            if let Some(rest) = line.strip_prefix(prefix) {
                if let Some((c, _)) = rest.rsplit_once(" => ") {
                    out.push(c.trim().to_string());
                }
            }
        }
    }
    out
}

/// Whether a file uses modules (`module`, `using`, `import`), which only zy-hir's scopes and
/// prelude resolve, or is a `prelude_*` file or says `# needs: prelude` (ranges, slices) or
/// `# needs: pipeline` (keywords, varargs), which call the prelude's functions;
/// `tests/tests/fixtures.rs` checks those files through the whole pipeline.
fn needs_scopes(path: &Path, text: &str) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().to_string());
    name.is_some_and(|n| n.starts_with("prelude_"))
        || text.lines().any(|l| {
            let l = l.trim_start();
            [
                "module ",
                "using ",
                "import ",
                "# needs: prelude",
                "# needs: pipeline",
            ]
            .iter()
            .any(|k| l.starts_with(k))
        })
}

/// The names of the functions zy's prelude defines (`name(...) = ...` or `function name(`).
fn prelude_functions() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../analysis/hir/prelude");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        for line in text.lines() {
            let line = line.strip_prefix("function ").unwrap_or(line);
            let name: String = line
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '!')
                .collect();
            if !name.is_empty() && line[name.len()..].starts_with('(') {
                names.push(name);
            }
        }
    }
    names
}

#[test]
fn every_fixture_call_infers() {
    let mut failures = Vec::new();
    let mut count = 0;
    let prelude = prelude_functions();
    let mut paths: Vec<PathBuf> = [fixtures(), fixtures().join("table2")]
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir).into_iter().flatten())
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    paths.sort();
    for path in paths
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jl"))
    {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        if needs_scopes(path, &text) {
            continue;
        }
        for call in calls(&text) {
            count += 1;
            match at(&text, &call) {
                // A function of zy's prelude: only zy-hir loads it (tests/tests/fixtures.rs
                // checks these calls through the whole pipeline). Without it, one of Julia's
                // Base names reads as missing from zy's library.
                Err(e)
                    if prelude.iter().any(|n| {
                        e.contains(&format!("`{n}` not defined"))
                            || e.contains(&format!("`{n}` (Julia's "))
                    }) => {}
                Err(e) => failures.push(format!("{}: {call}: {e}", path.display())),
                Ok(_) => {}
            }
        }
    }
    assert!(count > 50, "only {count} calls found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `line:col` (1-based, bytes) of a byte offset.
fn position(text: &str, offset: u32) -> String {
    let before = &text.as_bytes()[..(offset as usize).min(text.len())];
    let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
    let col = before.iter().rev().take_while(|&&c| c != b'\n').count() + 1;
    format!("{line}:{col}")
}

#[test]
fn error_fixtures_report_inference_diagnostics_where_expected() {
    let dir = fixtures().join("errors");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.sort();
    let mut checked = 0;
    let mut failures = Vec::new();
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let front_end_ok = lower(&text).is_ok();
        let mut found = Vec::new();
        for call in calls(&text) {
            let entry = format!("{text}\n__entry__() = {call}\n");
            let f = zy_syntax::parse_file(&entry);
            let p = zy_lower::lower_file(0, &f).program;
            if let Err(errs) = zy_infer::infer_entry(&p, "__entry__", &[]) {
                for e in errs {
                    found.push(format!(
                        "{} {} {}",
                        position(&text, e.span.start),
                        e.code,
                        e.message
                    ));
                }
            }
        }
        for line in text.lines() {
            let Some(rest) = line.trim().strip_prefix("# expect diagnostic: ") else {
                continue;
            };
            let mut parts = rest.splitn(3, ' ');
            let (Some(pos), Some(code), Some(sub)) = (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            // `unsupported` is inference's only for files the front end accepts.
            let mine = match code {
                "type-conflict" | "undefined-name" | "method-error" => true,
                "unsupported" => front_end_ok,
                _ => false,
            };
            if !mine {
                continue;
            }
            checked += 1;
            // A free identifier has no span of its own in the IR (lowering makes it a
            // `Const::Func` operand), so its error points at the call on the same line.
            let want = match code {
                "undefined-name" => format!("{}:", pos.split(':').next().unwrap_or(pos)),
                _ => format!("{pos} "),
            };
            let hit = found.iter().any(|f| {
                f.starts_with(&want)
                    && f.contains(&format!(" {code} "))
                    && f.contains(sub.trim_matches('"'))
            });
            if !hit {
                failures.push(format!(
                    "{}: expected `{rest}`, found {found:?}",
                    path.display()
                ));
            }
        }
    }
    assert!(checked >= 4, "{checked}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn rrule_and_its_pullback_infer() {
    let text = std::fs::read_to_string(fixtures().join("rrule.jl")).unwrap_or_default();
    let program = lower(&text).unwrap_or_default();
    let f = zy_ir::Type::Function("myrelu".into());
    let out = zy_infer::infer_entry(&program, "rrule", &[f, zy_ir::Type::Float64]);
    let Ok((root, prog)) = out else {
        panic!("{out:?}")
    };
    let ret = prog.functions[&root].ret.clone();
    let zy_ir::Type::Tuple(parts) = &ret else {
        panic!("{ret}")
    };
    assert_eq!(parts[0], zy_ir::Type::Float64);
    let back = zy_infer::infer_call(&program, &parts[1], &[zy_ir::Type::Float64]);
    let Ok((broot, bprog)) = back else {
        panic!("{back:?}")
    };
    assert_eq!(
        bprog.functions[&broot].ret.to_string(),
        "Tuple{Nothing, Float64}"
    );
}

#[test]
fn a_global_closure_is_an_entry() {
    let program = lower("sq = x -> x^2\nconst K = 2.0\nplus(x) = K + x\n").unwrap_or_default();
    let out = zy_infer::infer_entry(&program, "sq", &[zy_ir::Type::Float64]);
    let Ok((root, prog)) = out else {
        panic!("{out:?}")
    };
    assert_eq!(root.to_string(), "(::#sq#1)(::var\"#sq#1\", ::Float64)");
    assert_eq!(prog.functions[&root].ret, zy_ir::Type::Float64);
    assert!(prog.globals.contains_key("sq"));
    let k = zy_infer::infer_entry(&program, "K", &[zy_ir::Type::Float64]).map(|_| ());
    assert_eq!(
        k.map_err(|e| e[0].message.clone()),
        Err("MethodError: objects of type Float64 are not callable".to_string())
    );
}

#[test]
fn pow_from_source() {
    let text = std::fs::read_to_string(fixtures().join("pow.jl")).unwrap_or_default();
    let program = lower(&text).unwrap_or_default();
    let out = zy_infer::infer_entry(&program, "pow", &[zy_ir::Type::Float64, zy_ir::Type::Int64]);
    let Ok((root, prog)) = out else {
        panic!("{out:?}")
    };
    expect_test::expect![[r#"
        pow(%1::Float64, %2::Int64) :: Union{Float64, Int64}   # x, n
        #1:
          br #5
        #2:
          %3 = φ(#3 → %7, #6 → %15) :: Int64    # n
          %4 = φ(#3 → %6, #6 → %14) :: Float64  # r
          %5 = %3 > 0 :: Bool
          br %5 ? #3 : #7
        #3:
          %6 = %4 * %1 :: Float64               # r
          %7 = %3 - 1 :: Int64                  # n
          br #2
        #4:
          %8 = φ(#5 → %12, #7 → %16) :: Union{Float64, Int64} # r
          return %8
        #5:
          %9 = φ(#1 → %2) :: Int64              # n
          %10 = φ(#1 → 1) :: Int64              # r
          %11 = %9 > 0 :: Bool
          %12 = union_convert(%10) :: Union{Float64, Int64}
          br %11 ? #6 : #4
        #6:
          %13 = float(%10) :: Float64
          %14 = %13 * %1 :: Float64             # r
          %15 = %9 - 1 :: Int64                 # n
          br #2
        #7:
          %16 = union_convert(%4) :: Union{Float64, Int64}
          br #4
    "#]]
    .assert_eq(&common::print_program(&root, &prog));
}
