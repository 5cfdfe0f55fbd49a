//! The control flow of a function and of its adjoint as one Graphviz graph: the forward function
//! `f⁺` (the primal keeping its tape) beside the pullback `f⁻` (the reversed CFG), with the
//! recorded branch choices on the reversed edges and the tape (stacks and slots) drawn as links
//! from the forward block that keeps values to the reverse block that reads them.

use std::collections::BTreeMap;
use std::fmt::Write;

use zy_ir::{print_function, Block, Function, Op, Operand, Prim, Terminator, Value, ValueKind};

/// The graph of `name`'s forward and pullback functions.
pub(crate) fn graph(name: &str, forward: &Function, pullback: &Function) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quote(name));
    out.push_str("  rankdir=TB;\n  compound=true;\n");
    out.push_str("  node [shape=box, fontname=\"Courier\", fontsize=10];\n");
    out.push_str("  edge [fontname=\"Courier\", fontsize=9];\n");
    cluster(
        &mut out,
        "f",
        &format!("{} (forward: the primal, keeping its tape)", forward.name),
        forward,
    );
    cluster(
        &mut out,
        "b",
        &format!("{} (pullback: the reversed control flow)", pullback.name),
        pullback,
    );
    // The tape: a value named `α#k` (residuals), `br#k` (a recorded branch) or `iter#k` (an
    // iteration count) is kept by the forward block defining it and read back by the pullback
    // block defining its namesake.
    let kept = tape_values(forward);
    let read = tape_values(pullback);
    for (label, (fb, _)) in &kept {
        if let Some((bb, _)) = read.get(label) {
            let how = if pushed(forward, kept[label].1) {
                "stack"
            } else {
                "slot"
            };
            let _ = writeln!(
                out,
                "  f{} -> b{} [style=dashed, color=gray40, constraint=false, label={}];",
                fb.0,
                bb.0,
                quote(&format!("{how} {label}"))
            );
        }
    }
    out.push_str("}\n");
    out
}

/// One function as a cluster: a node per block with its statements, an edge per jump.
fn cluster(out: &mut String, prefix: &str, title: &str, f: &Function) {
    let _ = writeln!(out, "  subgraph cluster_{prefix} {{");
    let _ = writeln!(out, "    label={};", quote(title));
    let texts = block_texts(f);
    for b in f.block_ids() {
        let body = texts.get(&b).cloned().unwrap_or_default();
        let label = format!(
            "{b}:\\l{}",
            body.iter()
                .map(|l| format!("{}\\l", escape(l.trim())))
                .collect::<String>()
        );
        let _ = writeln!(out, "    {prefix}{} [label=\"{label}\"];", b.0);
    }
    for b in f.block_ids() {
        match &f.block(b).term {
            Terminator::Jump(c) => {
                let _ = writeln!(out, "    {prefix}{} -> {prefix}{};", b.0, c.block.0);
            }
            Terminator::Branch {
                cond,
                then_to,
                else_to,
            } => {
                let (yes, no) = branch_labels(f, cond);
                let _ = writeln!(
                    out,
                    "    {prefix}{} -> {prefix}{} [label={}];",
                    b.0,
                    then_to.block.0,
                    quote(&yes)
                );
                let _ = writeln!(
                    out,
                    "    {prefix}{} -> {prefix}{} [label={}];",
                    b.0,
                    else_to.block.0,
                    quote(&no)
                );
            }
            Terminator::Handle { catch, to, .. } => {
                let _ = writeln!(out, "    {prefix}{} -> {prefix}{};", b.0, to.block.0);
                if let Some(c) = catch {
                    let _ = writeln!(
                        out,
                        "    {prefix}{} -> {prefix}{} [label=\"catch\", style=dashed];",
                        b.0, c.block.0
                    );
                }
            }
            Terminator::Return(_) | Terminator::Unreachable => {}
        }
    }
    out.push_str("  }\n");
}

/// The printed statement lines of each block (φs, statements, terminator).
fn block_texts(f: &Function) -> BTreeMap<Block, Vec<String>> {
    let mut texts: BTreeMap<Block, Vec<String>> = BTreeMap::new();
    let mut current = None;
    for line in print_function(f).lines().skip(1) {
        if let Some(n) = line
            .strip_prefix('#')
            .and_then(|l| l.strip_suffix(':'))
            .and_then(|n| n.parse::<u32>().ok())
        {
            current = Some(Block(n - 1));
            continue;
        }
        if let Some(b) = current {
            texts.entry(b).or_default().push(line.to_string());
        }
    }
    texts
}

/// Edge labels of a branch: a recorded choice (`br#2 == 1`) reads as "came from", anything
/// else as the condition and its negation.
fn branch_labels(f: &Function, cond: &Operand) -> (String, String) {
    let Some(v) = cond.as_value() else {
        return (format!("{cond}"), format!("!{cond}"));
    };
    if let Some(stmt) = f.stmt(v) {
        if let (Op::Prim(Prim::Eq), [Operand::Value(rec), Operand::Const(k)]) =
            (&stmt.op, stmt.args.as_slice())
        {
            match f.value(*rec).name.as_deref() {
                Some(name) if name.starts_with("br#") => {
                    return (format!("recorded {name} = {k}"), "otherwise".into());
                }
                Some(name) if name.starts_with("iter#") => {
                    return (
                        format!("{name} = {k}: loop done"),
                        "one more iteration".into(),
                    );
                }
                _ => {}
            }
        }
    }
    (format!("{v}"), format!("!{v}"))
}

/// Values naming tape entries (`α#k`, `br#k`, `iter#k`), with the block defining each.
fn tape_values(f: &Function) -> BTreeMap<String, (Block, Value)> {
    let mut out = BTreeMap::new();
    for b in f.block_ids() {
        let data = f.block(b);
        for &v in data.params.iter().chain(&data.stmts) {
            let tape = |n: &&str| ["α#", "br#", "iter#"].iter().any(|p| n.starts_with(p));
            if let Some(name) = f.value(v).name.as_deref().filter(tape) {
                out.entry(name.to_string()).or_insert((b, v));
            }
        }
    }
    out
}

/// Is `v` pushed onto a stack (as opposed to kept in a slot)?
fn pushed(f: &Function, v: Value) -> bool {
    f.values.iter().any(|d| match &d.kind {
        ValueKind::Stmt(s) => {
            s.op == Op::Prim(Prim::Push) && s.args.get(1) == Some(&Operand::Value(v))
        }
        ValueKind::Param { .. } => false,
    })
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::{AnalysisHost, IrStage};

    fn dot(src: &str, function: &str) -> String {
        let mut host = AnalysisHost::new();
        let file = host.set_file_text(Path::new("/t/f.jl"), src.to_string());
        let dot = host
            .analysis()
            .view_ir(file, function, None, IrStage::Dot)
            .unwrap()
            .unwrap();
        assert!(
            dot.starts_with(&format!("digraph \"{function}\" {{")),
            "{dot}"
        );
        dot
    }

    /// The tape links as `(source label, target label, link label)`.
    fn links(dot: &str) -> Vec<(String, String, String)> {
        let label_of = |node: &str| {
            let prefix = format!("    {node} [label=\"");
            dot.lines()
                .find_map(|l| l.strip_prefix(&prefix))
                .unwrap_or_default()
                .to_string()
        };
        dot.lines()
            .filter(|l| l.contains("style=dashed"))
            .map(|l| {
                let (edge, rest) = l.trim().split_once(" [").unwrap();
                let (from, to) = edge.split_once(" -> ").unwrap();
                let label = rest
                    .split("label=\"")
                    .nth(1)
                    .unwrap()
                    .trim_end_matches("\"];");
                (label_of(from), label_of(to), label.to_string())
            })
            .collect()
    }

    #[test]
    fn pow_keeps_one_stack_for_its_loop_body_and_counts_iterations_in_a_slot() {
        let src = "# zy: at pow(2.0, 3)\nfunction pow(x, n)\n    r = 1\n    while n > 0\n        r *= x\n        n -= 1\n    end\n    return r\nend\n";
        let dot = dot(src, "pow");
        let links = links(&dot);
        let names: Vec<&str> = links.iter().map(|(_, _, l)| l.as_str()).collect();
        // The first iteration is peeled (`r = 1` is an Int until multiplied): a slot records
        // whether the loop ran past it.
        assert_eq!(names, ["slot br#7", "slot iter#4", "stack α#5"]);
        // The stack goes from the loop body that pushes to the reverse block that pops.
        let (from, to, _) = &links[2];
        assert!(
            from.contains("push!(") && to.contains("pop!("),
            "{from}\n{to}"
        );
        assert!(dot.contains("[label=\"iter#4 = 0: loop done\"];"), "{dot}");
    }

    #[test]
    fn a_branch_join_records_its_predecessor_and_the_reverse_branches_on_it() {
        let src = "# zy: at leaky(2.0)\nleaky(x) = x > 0 ? x : 0.01x\n";
        let dot = dot(src, "leaky");
        assert!(dot.contains("[label=\"recorded br#3 = 1\"];"), "{dot}");
        let names: Vec<String> = links(&dot).into_iter().map(|(_, _, l)| l).collect();
        assert_eq!(names, ["slot br#3"]);
    }
}
