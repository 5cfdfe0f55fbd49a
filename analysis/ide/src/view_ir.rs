//! The text of a function's IR at one stage, for `zy-analyze ir` and the editor's IR views.

use std::sync::Arc;

use zy_hir::{InstanceId, ItemKind, RootDatabase, SourceFile};
use zy_ir::{print_function, Instance, Type, TypeExpr};
use zy_syntax::ast::{AnnotationKind, Item};

use crate::eval::load_error;
use crate::locate::{error_at, in_call, in_file, CallSite};
use crate::{Analysis, Cancellable, FileId, UserError};

/// Which IR to show.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum IrStage {
    /// The untyped SSA of every method, as lowering produced it.
    Primal,
    /// The typed specialisation at a call.
    Typed,
}

impl Analysis {
    /// The IR of `function` (a name defined in `file`'s workspace) at `stage`. The typed stage
    /// specialises at `at_call`, else at the function's `# zy: at` annotation, else at its
    /// argument annotations when they are all concrete.
    pub fn view_ir(
        &self,
        file: FileId,
        function: &str,
        at_call: Option<&str>,
        stage: IrStage,
    ) -> Cancellable<Result<String, UserError>> {
        self.with_db(|db| {
            if let Some(e) = load_error(db, file.0) {
                return Err(e);
            }
            match stage {
                IrStage::Primal => primal(db, file.0, function),
                IrStage::Typed => typed(db, file.0, function, at_call),
            }
        })
    }
}

/// The untyped bodies of every method of `function`, separated by blank lines.
fn primal(db: &RootDatabase, file: SourceFile, function: &str) -> Result<String, UserError> {
    let index = zy_hir::program_index(db, zy_hir::Workspace::get(db));
    let origins = index.method_origin.get(function).ok_or_else(|| undefined(db, file, function))?;
    let bodies: Vec<String> = origins
        .iter()
        .filter_map(|&(item, i)| zy_hir::ssa(db, item).methods.get(i).map(|(_, m)| print_function(&m.body)))
        .collect();
    Ok(bodies.join("\n"))
}

fn undefined(db: &RootDatabase, file: SourceFile, function: &str) -> UserError {
    in_file(db, file, 0, format!("no function `{function}` is defined"))
}

/// The typed specialisation(s) of `function` reached by the chosen call.
fn typed(
    db: &RootDatabase,
    file: SourceFile,
    function: &str,
    at_call: Option<&str>,
) -> Result<String, UserError> {
    if let Some(call) = at_call {
        return typed_at(db, function, call, CallSite::Text(call));
    }
    let items: Vec<zy_hir::ItemId> = zy_hir::workspace_items(db)
        .into_iter()
        .filter(|i| i.kind(db) == ItemKind::Function && &**i.name(db) == function)
        .collect();
    if items.is_empty() {
        return Err(undefined(db, file, function));
    }
    for &item in &items {
        let Some(ast) = zy_hir::item_ast(db, item) else { continue };
        let Item::Function(def) = &**ast else { continue };
        if let Some(a) = def.annotations.iter().find(|a| a.kind == AnnotationKind::At) {
            let (offset, _) = zy_hir::item_range(db, item, a.range.start, a.range.end).unwrap_or((0, 0));
            let site = CallSite::InFile { file: item.file(db), offset };
            return typed_at(db, function, &a.text, site);
        }
    }
    let index = zy_hir::program_index(db, zy_hir::Workspace::get(db));
    if let Some(gf) = index.program.functions.get(function) {
        for (m, method) in gf.methods.iter().enumerate() {
            let args: Option<Vec<Type>> = method.sig.iter().map(|t| t.as_ref().and_then(concrete)).collect();
            if let Some(args) = args {
                let inst = Instance { name: gf.name.clone(), method: m as u32, args: args.into() };
                let r = zy_hir::typed(db, InstanceId::of(db, &inst));
                if let Some(e) = r.errors.first() {
                    let offset = item_start(db, items[0]);
                    let site = CallSite::InFile { file: items[0].file(db), offset };
                    return Err(error_at(db, e.span, site, e.message.clone()));
                }
                return Ok(print_function(&r.func));
            }
        }
    }
    let first = items[0];
    let offset = item_start(db, first);
    Err(in_file(
        db,
        first.file(db),
        offset,
        format!("`{function}` has no concrete signature: add `# zy: at {function}(...)` above it or pass --at"),
    ))
}

/// The byte offset at which `item` starts.
fn item_start(db: &RootDatabase, item: zy_hir::ItemId) -> u32 {
    zy_hir::item_boundaries(db, item).first().copied().unwrap_or(0)
}

/// The specialisations of `function` that typing `call` reaches.
fn typed_at(db: &RootDatabase, function: &str, call: &str, site: CallSite<'_>) -> Result<String, UserError> {
    let at = |offset: u32, message: String| match site {
        CallSite::Text(text) => in_call(text, offset, message),
        CallSite::InFile { file, offset: base } => in_file(db, file, base + offset, message),
    };
    let expr = zy_syntax::parse_expr(call).map_err(|e| at(e.range.start, e.message))?;
    let typed = zy_hir::type_call(db, &expr).map_err(|errs| match errs.0.into_iter().next() {
        Some(e) => error_at(db, e.span, site, e.message),
        None => at(0, "internal error: typing failed without a message".into()),
    })?;
    let bodies: Vec<String> = typed
        .program
        .functions
        .iter()
        .filter(|(inst, _)| &*inst.name == function)
        .map(|(_, f): (&Arc<Instance>, _)| print_function(f))
        .collect();
    if bodies.is_empty() {
        return Err(at(0, format!("`{call}` does not call `{function}`")));
    }
    Ok(bodies.join("\n"))
}

/// The concrete type an annotation names, for the types that need no program to resolve.
fn concrete(t: &TypeExpr) -> Option<Type> {
    let TypeExpr::Named { name, params } = t else { return None };
    let params: Option<Vec<Type>> = params.iter().map(concrete).collect();
    match (&**name, params?.as_slice()) {
        ("Float64", []) => Some(Type::Float64),
        ("Int64" | "Int", []) => Some(Type::Int64),
        ("Bool", []) => Some(Type::Bool),
        ("Nothing", []) => Some(Type::Nothing),
        ("Vector", [e]) => Some(Type::Array(Arc::new(e.clone()), 1)),
        ("Matrix", [e]) => Some(Type::Array(Arc::new(e.clone()), 2)),
        _ => None,
    }
}
