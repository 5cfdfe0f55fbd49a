//! zy-infer
