//! zy-codegen
