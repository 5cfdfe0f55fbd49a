//! Parse, lower and infer arbitrary input: every stage must return (a result or errors), never
//! panic or hang.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use zy_ir::Type;

/// The most arguments a function may take for the target to try calling it.
const MAX_ARITY: usize = 3;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let file = zy_syntax::parse_file(&text);
    let lowered = zy_lower::lower_file(0, &file);
    let program = &lowered.program;
    let vector = Type::Array(Arc::new(Type::Float64), 1);
    for (name, gf) in &program.functions {
        let arities: Vec<usize> = gf.methods.iter().map(|m| m.sig.len()).collect();
        if arities.iter().any(|&n| n > MAX_ARITY) {
            continue;
        }
        for &n in &arities {
            for arg in [Type::Float64, Type::Int64, vector.clone()] {
                let args = vec![arg; n];
                let _ = zy_infer::infer_entry(program, name, &args);
            }
            if n >= 2 {
                let mut mixed = vec![Type::Float64; n];
                mixed[0] = vector.clone();
                let _ = zy_infer::infer_entry(program, name, &mixed);
            }
        }
    }
});
