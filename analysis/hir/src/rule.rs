//! The in-source rules (`rrule`, `frule`) of a program, each inferred once per program and
//! instance: every gradient of the program that reaches the instance (each root of a test
//! file's hundreds, each call a test runs) shares it, where the AD alone would infer it again
//! per gradient. A rule's inference reads the bodies of the rule and of what it reaches, so an
//! edit of any of them infers it again.

use std::sync::Arc;

use zy_ad::frule::Frule;
use zy_ad::rrule::Rrule;
use zy_ad::{AdError, RuleSource};
use zy_ir::{Instance, Program};

use crate::program::ProgramKey;

/// The key of [`rrule`] and [`frule`]: an instance of a program.
#[salsa::interned(unsafe(no_lifetime), revisions = usize::MAX, debug)]
pub(crate) struct RuleUse {
    #[returns(copy)]
    program: ProgramKey,
    #[returns(ref)]
    pub(crate) instance: Arc<Instance>,
}

/// The rrule overriding the adjoint of the key's instance, typed, if one applies.
#[salsa::tracked(returns(ref))]
fn rrule(db: &dyn salsa::Database, key: RuleUse) -> Result<Option<Arc<Rrule>>, AdError> {
    let inst = key.instance(db);
    let source = key.program(db).rules_for(db, &inst.name);
    Ok(zy_ad::rrule::find(source, inst)?.map(Arc::new))
}

/// The frule overriding forward mode for the key's instance, typed, if one applies.
#[salsa::tracked(returns(ref))]
fn frule(db: &dyn salsa::Database, key: RuleUse) -> Result<Option<Arc<Frule>>, AdError> {
    let inst = key.instance(db);
    let source = key.program(db).rules_for(db, &inst.name);
    Ok(zy_ad::frule::find(source, inst)?.map(Arc::new))
}

/// The rules of a program as the AD reads them, each inferred by [`rrule`] or [`frule`].
pub struct Rules<'db> {
    db: &'db dyn salsa::Database,
    key: ProgramKey,
}

impl<'db> Rules<'db> {
    /// The rules of the program `key`.
    pub fn of(db: &'db dyn salsa::Database, key: ProgramKey) -> Rules<'db> {
        Rules { db, key }
    }

    fn key(&self, inst: &Instance) -> RuleUse {
        let home = self.key.home(self.db, inst);
        RuleUse::new(self.db, home, Arc::new(inst.clone()))
    }
}

impl RuleSource for Rules<'_> {
    fn program(&self) -> &Program {
        &self.key.index(self.db).program
    }

    fn rrule(&self, inst: &Instance) -> Result<Option<Arc<Rrule>>, AdError> {
        match zy_ad::rrule::may_apply(self.program(), inst) {
            true => rrule(self.db, self.key(inst)).clone(),
            false => Ok(None),
        }
    }

    fn frule(&self, inst: &Instance) -> Result<Option<Arc<Frule>>, AdError> {
        match zy_ad::frule::may_apply(self.program(), inst) {
            true => frule(self.db, self.key(inst)).clone(),
            false => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use salsa::Setter;
    use zy_interp::{Limits, Value};
    use zy_ir::{Instance, Type};

    use crate::specialise::InstanceId;
    use crate::{gradient, RootDatabase, SourceFile, Workspace};

    const SRC: &str = "\
slow(x) = x * 2.0
function rrule(::typeof(slow), x)
    back(ȳ) = (NoTangent(), 2.0 * ȳ)
    return slow(x), back
end
thrice(x) = 3.0 * slow(x)
plus(x) = slow(x) + x
";

    /// The derivative of `name` at 1.0 by its gradient program, and the rule inferences that
    /// ran for it.
    fn derivative(db: &RootDatabase, file: SourceFile, name: &str) -> (String, Vec<String>) {
        let inst = Instance {
            name: name.into(),
            method: 0,
            args: Arc::from([Type::Float64]),
        };
        let g = match gradient(db, InstanceId::of(db, file, &inst)) {
            Ok(g) => g,
            Err(e) => return (e.message.clone(), Vec::new()),
        };
        let out = zy_interp::run(
            &g.program,
            &g.driver,
            vec![Value::F64(1.0)],
            &Limits::default(),
        );
        let shown = out.map_or_else(|e| format!("error: {e}"), |v| zy_interp::show(&v));
        let ran = db
            .take_query_log()
            .into_iter()
            .filter(|q| q.starts_with("rrule("))
            .collect();
        (shown, ran)
    }

    #[test]
    fn programs_reaching_one_rule_share_its_inference_and_an_edit_of_it_is_seen() {
        let mut db = RootDatabase::with_query_log();
        let file = SourceFile::new(&db, PathBuf::from("a.jl"), SRC.to_string());
        Workspace::get(&db).set_files(&mut db).to(vec![file]);
        db.enable_query_log();
        // d/dx 3·slow(x) = 3·2 by the rule; the second program reuses the rule's inference.
        let once = vec!["rrule(slow(::Float64))".to_string()];
        assert_eq!(
            derivative(&db, file, "thrice"),
            ("(6.0, (6.0,))".into(), once.clone())
        );
        assert_eq!(
            derivative(&db, file, "plus"),
            ("(3.0, (3.0,))".into(), vec![])
        );
        // The rule now says 4ȳ: both gradients follow it, from one inference again.
        file.set_text(&mut db).to(SRC.replace("2.0 * ȳ", "4.0 * ȳ"));
        assert_eq!(
            derivative(&db, file, "thrice"),
            ("(6.0, (12.0,))".into(), once)
        );
        assert_eq!(
            derivative(&db, file, "plus"),
            ("(3.0, (5.0,))".into(), vec![])
        );
    }
}
