//! End-to-end tests of zy; the tests live in `tests/`. The library holds what tests and fuzz
//! targets share: [`arith`], Julia's reading of arithmetic for the differential tests, and
//! [`engines`], a call checked through both engines for the property tests.

pub mod arith;
pub mod engines;
