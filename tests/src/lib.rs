//! End-to-end tests of zy; the tests live in `tests/`.
