//! zy-hir
