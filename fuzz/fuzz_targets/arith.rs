//! Differential check of the parser on fuzzer-chosen arithmetic (issue 17): the input's bytes
//! choose the point `(x, y)`, then up to four expressions (`zy_tests::arith::Gen::from_bytes`)
//! and their spacing; each runs as the body of `f(x, y) = ...` through `zy-ide`'s gradient,
//! and its value and derivative in `x` must match Julia's reading of the text (the reference
//! evaluator of `zy_tests::arith`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use zy_tests::arith::{check_batch, render, Gen};

/// Where the functions are evaluated (negative values exercise the DomainErrors).
const POINTS: [f64; 7] = [0.5, 1.3, 2.0, 3.7, 0.25, -0.7, -2.5];

fuzz_target!(|data: &[u8]| {
    let mut bytes = data.iter().copied();
    let mut point = || POINTS[bytes.next().unwrap_or(0) as usize % POINTS.len()];
    let (x, y) = (point(), point());
    let mut texts = Vec::new();
    while texts.len() < 4 && bytes.len() > 0 {
        let g = Gen::from_bytes(&mut bytes, 6);
        // The next 8 bytes, bit by bit, decide the optional spaces.
        let spaces: Vec<bool> = bytes
            .by_ref()
            .take(8)
            .flat_map(|b| (0..8).map(move |i| b >> i & 1 == 1))
            .collect();
        texts.push(render(&g, &mut spaces.into_iter()));
    }
    if let Err(e) = check_batch(&texts, x, y) {
        panic!("{e}");
    }
});
