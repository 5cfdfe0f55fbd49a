//! zy-syntax
