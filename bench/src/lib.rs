//! zy-bench: the paper's Table 2 and the workloads table. For each benchmark (a fixture of
//! `fixtures/table2` or `fixtures/workloads`), the time of zy's compiled primal and gradient
//! (the machine code of the salsa `compiled` query), a hand-written Rust gradient, JAX and
//! PyTorch (from `bench/peers.py`), the time from source text to the first gradient, and the
//! time from the editor's gradient lens to its result over the LSP.

pub mod cases;
#[cfg(feature = "chart")]
pub mod chart;
pub mod first;
pub mod hand;
pub mod inputs;
pub mod lsp;
pub mod peers;
pub mod report;
pub mod tape;
pub mod timing;
pub mod zy;
