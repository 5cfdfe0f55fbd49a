//! Inlay hints: the gradient type of each argument of a function specialised by `# zy: at`.

use crate::hover::specialisation;
use crate::outline::outline;
use crate::{Analysis, Cancellable, FileId};

/// A hint shown after byte `offset`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct InlayHint {
    pub offset: u32,
    pub label: String,
}

impl Analysis {
    /// `∇ T` after each argument of each function with a `# zy: at` call, `T` the type of the
    /// argument's gradient at that call (`Nothing` where no gradient exists or reaches it).
    pub fn gradient_hints(&self, file: FileId) -> Cancellable<Vec<InlayHint>> {
        self.with_db(|db| {
            let mut hints = Vec::new();
            for f in outline(db, file.0) {
                let Some(s) = specialisation(db, file.0, &f) else {
                    continue;
                };
                // Callable structs and closures have the callee as argument 0, not written.
                let skip = s.func.args().len().saturating_sub(f.params.len());
                let n = s.func.args().len() - skip;
                for (i, p) in f.params.iter().enumerate().take(n) {
                    hints.push(InlayHint {
                        offset: p.end,
                        label: format!("∇ {}", s.gradient_type(skip + i)),
                    });
                }
            }
            hints
        })
    }
}
