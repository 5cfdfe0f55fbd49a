//! The AD's forward and pullback functions per specialisation. Each instance is transformed on
//! its own (its callees' adjoints are their own queries), so an edit re-transforms only the
//! functions whose typed bodies changed.

use std::sync::Arc;

use zy_ad::AdError;
use zy_ir::{Function, Instance};

use crate::specialise::{typed, InstanceId};

/// The forward function `f⁺` and pullback `f⁻` of one specialisation.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct AdjointFunctions {
    pub forward: Arc<Function>,
    pub pullback: Arc<Function>,
    /// The user functions whose adjoints these call.
    pub callees: Vec<Arc<Instance>>,
}

/// The adjoint of the specialisation `id`, or why it cannot be differentiated.
#[salsa::tracked(returns(ref))]
pub fn adjoint(db: &dyn salsa::Database, id: InstanceId) -> Result<AdjointFunctions, AdError> {
    let inst = id.instance(db);
    let body = typed(db, id);
    let (program, _) = crate::call::typed_program(db, id.root(db), std::slice::from_ref(inst));
    let globals = zy_ad::GlobalShadows::of(&program);
    let adj = zy_ad::transform::adjoint(inst, &body.func, &globals)?;
    Ok(AdjointFunctions {
        forward: Arc::new(adj.forward),
        pullback: Arc::new(adj.pullback),
        callees: adj.callees,
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use salsa::Setter;
    use zy_ir::{Instance, Type};

    use super::adjoint;
    use crate::specialise::InstanceId;
    use crate::{RootDatabase, SourceFile, Workspace};

    const SRC: &str = "square(x) = x * x\ncube(x) = x * x * x\n";

    fn inst(name: &str) -> Instance {
        Instance {
            name: name.into(),
            method: 0,
            args: Arc::from([Type::Float64]),
        }
    }

    #[test]
    fn editing_one_function_re_transforms_only_that_function() {
        let mut db = RootDatabase::default();
        let file = SourceFile::new(&db, PathBuf::from("a.jl"), SRC.to_string());
        Workspace::get(&db).set_files(&mut db).to(vec![file]);
        for name in ["square", "cube"] {
            let adj = adjoint(&db, InstanceId::of(&db, file, &inst(name)));
            assert!(
                adj.as_ref().is_ok_and(|a| a.pullback.name.ends_with('⁻')),
                "{adj:?}"
            );
        }
        db.enable_query_log();
        file.set_text(&mut db)
            .to(SRC.replace("x * x * x", "x * x * x * 1.0"));
        for name in ["square", "cube"] {
            let _ = adjoint(&db, InstanceId::of(&db, file, &inst(name)));
        }
        let ran: Vec<String> = db
            .take_query_log()
            .into_iter()
            .filter(|q| q.starts_with("adjoint("))
            .collect();
        assert_eq!(ran, ["adjoint(cube(::Float64))"]);
    }
}
