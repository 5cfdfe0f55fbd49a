//! Helpers shared by the lowering tests: parse, lower, check the IR's invariants, and render
//! everything lowering produced as text for snapshots.

#![allow(dead_code)] // each test binary uses a different part

use std::fmt::Write;

use zy_ir::{print_function, verify, Function, Op, Operand, Terminator};
use zy_lower::{lower_file, Lowered};

/// Parse `src` (which must parse cleanly) and lower it.
pub fn lower(src: &str) -> Lowered {
    let file = zy_syntax::parse_file(src);
    assert!(file.errors.is_empty(), "parse errors: {:?}", file.errors);
    let lowered = lower_file(0, &file);
    for f in functions(&lowered) {
        check(f);
    }
    lowered
}

/// Every body in the program: methods, then globals' thunks.
pub fn functions(l: &Lowered) -> Vec<&Function> {
    let methods = l
        .program
        .functions
        .values()
        .flat_map(|g| g.methods.iter().map(|m| &*m.body));
    methods
        .chain(l.program.globals.values().map(|g| &*g.body))
        .collect()
}

/// The structural invariants of lowered IR: the verifier's, plus every block ends in a real
/// terminator, no φ is trivial, and an empty block exists only to keep a branch's targets
/// distinct.
pub fn check(f: &Function) {
    let text = print_function(f);
    assert_eq!(verify(f), Vec::<String>::new(), "{text}");
    for b in f.block_ids() {
        let data = f.block(b);
        // `unreachable` only after a statement that never returns: the `rethrow` of a
        // `finally` body's dispatch (lowering knows no other; `error` is a call it continues).
        let rethrows = data
            .stmts
            .last()
            .and_then(|&v| f.stmt(v))
            .is_some_and(|s| matches!(&s.op, Op::Call(n) if &**n == "rethrow"));
        assert!(
            !matches!(data.term, Terminator::Unreachable) || rethrows,
            "{b} unterminated in\n{text}"
        );
        for (i, &p) in data.params.iter().enumerate().filter(|_| b.0 != 0) {
            let mut incoming: Vec<&Operand> = Vec::new();
            for q in f.block_ids() {
                for call in f.block(q).term.calls() {
                    if call.block == b && call.args[i] != Operand::Value(p) {
                        incoming.push(&call.args[i]);
                    }
                }
            }
            incoming.dedup();
            assert!(incoming.len() > 1, "trivial φ {p} in\n{text}");
        }
        if b.0 != 0 && data.params.is_empty() && data.stmts.is_empty() {
            let Terminator::Jump(to) = &data.term else {
                continue;
            };
            // Needed as a loop on its own (`while true end`) or to keep targets distinct.
            let needed = to.block == b
                || f.block_ids().any(|q| match &f.block(q).term {
                    Terminator::Branch {
                        then_to, else_to, ..
                    } => {
                        (then_to.block == b && else_to.block == to.block)
                            || (else_to.block == b && then_to.block == to.block)
                    }
                    _ => false,
                });
            assert!(needed, "needless empty block {b} in\n{text}");
        }
    }
}

/// Everything lowering produced, as text: bodies, closure and struct definitions, errors.
pub fn render(l: &Lowered) -> String {
    let mut out = String::new();
    for s in l.program.structs.values() {
        let fields: Vec<String> = s
            .fields
            .iter()
            .map(|(n, t)| match t {
                Some(t) => format!("{n}::{t}"),
                None => n.to_string(),
            })
            .collect();
        let _ = writeln!(
            out,
            "struct {} {{{}}} {:?}",
            s.name,
            fields.join(", "),
            s.kind
        );
    }
    for g in l.program.functions.values() {
        for m in &g.methods {
            let sig: Vec<String> = m
                .sig
                .iter()
                .map(|t| t.as_ref().map_or("_".to_string(), |t| t.to_string()))
                .collect();
            let _ = writeln!(out, "method {}({})", g.name, sig.join(", "));
            out.push_str(&print_function(&m.body));
        }
    }
    for g in l.program.globals.values() {
        let _ = writeln!(out, "global {}", g.name);
        out.push_str(&print_function(&g.body));
    }
    out.push_str(&errors(l));
    out
}

/// The errors only, one per line: `code start..end: message`.
pub fn errors(l: &Lowered) -> String {
    let mut out = String::new();
    for e in &l.errors {
        let _ = writeln!(
            out,
            "{} {}..{}: {}",
            e.code, e.span.start, e.span.end, e.message
        );
    }
    out
}

/// The body of the first method of `name`, printed.
pub fn body(l: &Lowered, name: &str) -> String {
    match l.program.functions.get(name) {
        Some(g) => print_function(&g.methods[0].body),
        None => panic!(
            "no function {name} in {:?}",
            l.program.functions.keys().collect::<Vec<_>>()
        ),
    }
}
