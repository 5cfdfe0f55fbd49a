//! zy-lsp
