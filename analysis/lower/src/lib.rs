//! zy-lower
