//! zy-interp
