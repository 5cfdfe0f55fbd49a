//! Print, read back, print: every function of a fixture at every stage gives its own text back
//! and verifies; the typed program read back runs each call to the same result.

use std::collections::HashSet;
use std::path::Path;

use zy_interp::Limits;
use zy_ir::{print_function, Function, Instance, TypedProgram};

use crate::support::{declare, reads_back};

/// Round-trip the fixture at `path`.
pub fn run(path: &Path) -> Result<(), String> {
    let shown = crate::shown(path);
    let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: {e}"))?;
    let mut seen = HashSet::new();
    let source = zy_lower::lower_file(0, &zy_syntax::parse_file(&text)).program;
    let untyped: Vec<&Function> = source
        .functions
        .values()
        .flat_map(|gf| gf.methods.iter().map(|m| &*m.body))
        .chain(source.globals.values().map(|g| &*g.body))
        .collect();
    round_trip(&untyped, &mut seen).map_err(|e| format!("{shown}: untyped: {e}"))?;
    let mut calls = 0;
    for call in calls_named(&text) {
        // A zero-argument wrapper types the call with everything it reaches.
        let wrapped = format!("{text}\n\nfunction __round_trip__()\n    return {call}\nend\n");
        let source = zy_lower::lower_file(0, &zy_syntax::parse_file(&wrapped)).program;
        let Ok((entry, typed)) = zy_infer::infer_entry(&source, "__round_trip__", &[]) else {
            continue;
        };
        calls += 1;
        let expanded = zy_ad::expand_with_rrules(&source, &typed).unwrap_or(typed);
        let mut all = expanded.clone();
        for (inst, f) in &expanded.functions {
            if f.ret == zy_ir::Type::Float64 {
                if let Ok((_, g)) = zy_ad::gradient_program_with_rrules(&source, &expanded, inst) {
                    all.functions.extend(g.functions);
                }
            }
        }
        let fs: Vec<&Function> = all
            .functions
            .values()
            .chain(all.globals.values())
            .map(|f| &**f)
            .collect();
        if layouts_collide(&fs)
            || fs
                .iter()
                .any(|f| f.values.iter().any(|v| v.ty.holds_recursion()))
        {
            continue;
        }
        round_trip(&fs, &mut seen).map_err(|e| format!("{shown}: `{call}`: {e}"))?;
        same_run(&expanded, &entry).map_err(|e| format!("{shown}: `{call}`: {e}"))?;
    }
    let errors_only = path.parent().is_some_and(|d| d.ends_with("errors"));
    // `prelude_*` files and files that say `# needs: prelude` call the prelude's functions,
    // which only zy-hir loads.
    let library = path
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("prelude_"))
        || text.lines().any(|l| l.trim_start() == "# needs: prelude");
    if calls == 0 && !errors_only && !library && text.contains("# expect") {
        return Err(format!("{shown}: no call could be typed"));
    }
    Ok(())
}

/// Do the functions use two layouts of one struct type (a recursive struct's values of
/// different depths: a `Node` holding a `Node`, and one holding `nothing`)? The IR text names
/// a struct type by its name and parameters, so it cannot declare both: such a call is not
/// round-tripped, nor one holding a struct of any shape (its recursive type, whose fields the
/// text would declare by the struct's own name).
fn layouts_collide(fs: &[&Function]) -> bool {
    let mut decls = Vec::new();
    for f in fs {
        declare(f, &mut decls);
    }
    let heads: Vec<&str> = decls.iter().filter_map(|d| d.lines().next()).collect();
    heads
        .iter()
        .enumerate()
        .any(|(i, h)| heads[..i].contains(h))
}

/// The calls the file's annotations and expectations name.
fn calls_named(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        let call = ["# zy: at ", "# zy: gradcheck "]
            .iter()
            .find_map(|p| line.strip_prefix(p).map(str::trim))
            .or_else(|| {
                ["# expect eval: ", "# expect grad: ", "# expect error: "]
                    .iter()
                    .find_map(|p| line.strip_prefix(p))
                    .and_then(|rest| rest.rsplit_once(" => ").map(|(c, _)| c.trim()))
            });
        if let Some(c) = call.filter(|c| !out.iter().any(|o| o == c)) {
            out.push(c.to_string());
        }
    }
    out
}

/// [`reads_back`] for the functions of `fs` not in `seen` yet.
fn round_trip(fs: &[&Function], seen: &mut HashSet<String>) -> Result<(), String> {
    let fresh: Vec<&Function> = fs
        .iter()
        .copied()
        .filter(|f| seen.insert(print_function(f)))
        .collect();
    reads_back(&fresh)
}

/// The typed program printed and read back runs `entry` to the same result.
fn same_run(prog: &TypedProgram, entry: &Instance) -> Result<(), String> {
    if !prog.globals.is_empty() {
        // Top-level bindings have no text form.
        return Ok(());
    }
    let mut decls: Vec<String> = Vec::new();
    let mut texts = Vec::new();
    for f in prog.functions.values() {
        declare(f, &mut decls);
        texts.push(print_function(f));
    }
    let module = format!("{}{}", decls.concat(), texts.join("\n"));
    let read = zy_ir::parse_module(&module)
        .map_err(|e| format!("{e} in\n{module}"))?
        .program();
    let limits = Limits {
        deadline: Some(std::time::Instant::now() + std::time::Duration::from_secs(10)),
        ..Limits::default()
    };
    let render = |r: Result<zy_interp::Value, zy_interp::RuntimeError>| match r {
        Ok(v) => zy_interp::show(&v),
        Err(e) => e.message,
    };
    let before = render(zy_interp::run(prog, entry, vec![], &limits));
    let after = render(zy_interp::run(&read, entry, vec![], &limits));
    if before != after && !before.contains("time limit") {
        return Err(format!(
            "the program read back gives {after}, the original {before}"
        ));
    }
    Ok(())
}
