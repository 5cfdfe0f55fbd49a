//! The whole program, compared by its signatures only. Inference of one specialisation needs
//! every method's signature (for dispatch) but only its own body; so the program index holds
//! the latest bodies while its equality ignores them: a body edit re-runs this query but
//! leaves it "unchanged" for salsa, and only the instances whose own body changed (they depend
//! on that item's `ssa` directly) are re-inferred.

use std::collections::BTreeMap;
use std::sync::Arc;

use zy_ir::{Global, Method, Name, Program};
use zy_lower::LowerError;

use crate::input::SourceFile;
use crate::item::{item_tree, ItemId};
use crate::lower::ssa;
use crate::resolve::resolve_item;
use crate::scope::{item_module, scope_files, scope_names, scope_root};

/// The program with where each body comes from.
#[derive(Clone, Debug, Default)]
pub struct ProgramIndex {
    /// Every method, struct and binding, with its body as of the latest execution.
    pub program: Program,
    /// For every generic function, in method order: the item each method was lowered from and
    /// its index among that item's methods.
    pub method_origin: BTreeMap<Name, Vec<(ItemId, usize)>>,
    /// The item each top-level binding was lowered from.
    pub global_origin: BTreeMap<Name, ItemId>,
    /// Problems found combining items (a struct or binding defined twice), each with the item
    /// whose span it carries.
    pub errors: Vec<LowerError>,
}

/// Equal when everything but the bodies is equal (see the module documentation).
impl PartialEq for ProgramIndex {
    fn eq(&self, other: &ProgramIndex) -> bool {
        let (a, b) = (&self.program, &other.program);
        a.structs == b.structs
            && same_keys(&a.functions, &b.functions, |f, g| {
                f.name == g.name
                    && f.methods.len() == g.methods.len()
                    && f.methods
                        .iter()
                        .zip(&g.methods)
                        .all(|(m, n)| same_signature(m, n))
            })
            && same_keys(&a.globals, &b.globals, |g: &Global, h: &Global| {
                g.span == h.span
            })
            && self.method_origin == other.method_origin
            && self.global_origin == other.global_origin
            && self.errors == other.errors
    }
}

impl Eq for ProgramIndex {}

fn same_keys<V>(
    a: &BTreeMap<Name, V>,
    b: &BTreeMap<Name, V>,
    same: impl Fn(&V, &V) -> bool,
) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|((k, v), (l, w))| k == l && same(v, w))
}

fn same_signature(m: &Method, n: &Method) -> bool {
    m.sig == n.sig
        && m.where_params == n.where_params
        && m.where_bounds == n.where_bounds
        && m.span == n.span
}

/// The lowered item with its names resolved in the scope of `file` (see [`crate::scope`]).
/// Re-runs when the item's text changes or when a definition appears in or disappears from the
/// scope.
pub fn resolved_ssa(
    db: &dyn salsa::Database,
    file: SourceFile,
    item: ItemId,
) -> &Arc<zy_lower::LoweredItem> {
    resolved_in_root(db, scope_root(db, file), item)
}

#[salsa::tracked(returns(ref))]
fn resolved_in_root(
    db: &dyn salsa::Database,
    root: SourceFile,
    item: ItemId,
) -> Arc<zy_lower::LoweredItem> {
    let module = item_module(db, root, item);
    Arc::new(resolve_item(ssa(db, item), &module, scope_names(db, root)))
}

/// The program that the code of `file` sees: the prelude's definitions, those of the root of
/// its program and of every file included there (see [`crate::scope`]).
pub fn program_index(db: &dyn salsa::Database, file: SourceFile) -> &Arc<ProgramIndex> {
    root_program(db, scope_root(db, file))
}

#[salsa::tracked(returns(ref))]
fn root_program(db: &dyn salsa::Database, root: SourceFile) -> Arc<ProgramIndex> {
    let mut index = ProgramIndex::default();
    for file in scope_files(db, root) {
        for &item in item_tree(db, file) {
            let lowered = resolved_in_root(db, root, item);
            for (i, (name, _)) in lowered.methods.iter().enumerate() {
                index
                    .method_origin
                    .entry(name.clone())
                    .or_default()
                    .push((item, i));
            }
            for g in &lowered.globals {
                index.global_origin.insert(g.name.clone(), item);
            }
            let mut part = (**lowered).clone();
            part.errors.clear(); // reported per item
            part.add_to(&mut index.program, &mut index.errors);
        }
    }
    Arc::new(index)
}

impl ProgramIndex {
    /// The item the body of method `method` of `name` (or of the binding `name`, for
    /// [`zy_infer::GLOBAL_METHOD`]) was lowered from.
    pub fn origin(&self, name: &Name, method: u32) -> Option<ItemId> {
        if method == zy_infer::GLOBAL_METHOD {
            self.global_origin.get(name).copied()
        } else {
            self.method_origin
                .get(name)?
                .get(method as usize)
                .map(|&(item, _)| item)
        }
    }
}
