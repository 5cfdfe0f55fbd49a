//! The specialisations of a function at its parameter annotations where each is a concrete
//! type (`x::Float64`, `W::Matrix{Float64}`): where `check` types a function that no
//! annotated call reaches, and what hover shows for it.

use std::sync::Arc;

use zy_hir::{ItemId, RootDatabase, SourceFile};
use zy_ir::Instance;

/// The instances of the methods `item` (a function of `file`) defines without keywords whose
/// parameters are all annotated with concrete types, in method order. A function in a module
/// (`module M`, or a file a package's module includes) is named with its module's path.
pub(crate) fn annotated_instances(
    db: &RootDatabase,
    file: SourceFile,
    item: ItemId,
) -> Vec<Arc<Instance>> {
    let index = zy_hir::program_index(db, file);
    let root = zy_hir::scope_root(db, file);
    let name = zy_hir::qualify(&zy_hir::item_module(db, root, item), item.name(db));
    let Some(gf) = index.program.functions.get(&name) else {
        return Vec::new();
    };
    let origin = index.method_origin.get(&gf.name);
    gf.methods
        .iter()
        .enumerate()
        .filter(|(m, method)| {
            method.keywords.is_none()
                && origin
                    .and_then(|o| o.get(*m))
                    .is_some_and(|(i, _)| *i == item)
        })
        .filter_map(|(m, method)| {
            let args: Vec<zy_ir::Type> = method
                .sig
                .iter()
                .map(|t| t.as_ref().and_then(crate::view_ir::concrete))
                .collect::<Option<_>>()?;
            Some(Arc::new(Instance {
                name: gf.name.clone(),
                method: m as u32,
                args: args.into(),
            }))
        })
        .collect()
}
