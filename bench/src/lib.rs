//! zy-bench: the paper's Table 2. For each benchmark of `fixtures/table2`, the time of zy's
//! compiled primal and gradient, a hand-written Rust gradient, JAX and PyTorch (from
//! `bench/peers.py`), and the time from source text to the first gradient.

pub mod cases;
pub mod chart;
pub mod first;
pub mod hand;
pub mod inputs;
pub mod peers;
pub mod report;
pub mod tape;
pub mod timing;
pub mod zy;
