//! zy-analyze
