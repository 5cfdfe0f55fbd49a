//! Machine code per specialisation: `compiled(key)` runs the Cranelift JIT on one instance (its
//! primal, or its gradient driver `∇f`) and keeps the result until an edit changes a body it
//! was built from. It reads the programs of [`crate::ad`], which depend on the typed body of
//! every user instance they hold, so an edit of an unrelated function recompiles nothing.

use std::fmt;

use zy_codegen::{CompiledFn, JitSession};
use zy_ir::Instance;

use crate::ad::{expanded, gradient};
use crate::input::{CodeGoal, SourceFile};
use crate::specialise::InstanceId;

/// What of an instance `f` is compiled.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Target {
    /// `f` itself.
    Primal,
    /// The gradient driver `∇f`, returning `(value, (gradient per argument...))`.
    Gradient,
    /// `f` itself, for a call that runs once (an argument of a gradient's call): compiled
    /// quickly rather than to fast code ([`JitSession::quick`]).
    Once,
}

/// The key of [`compiled`]: an instance and what of it is compiled.
#[salsa::interned(unsafe(no_lifetime), revisions = usize::MAX, debug)]
pub struct CompileKey {
    /// The specialisation `f`.
    #[returns(copy)]
    pub instance: InstanceId,
    /// Its primal or its gradient driver.
    #[returns(copy)]
    pub target: Target,
}

impl CompileKey {
    /// The key of `target` of `inst` in the program of `root`.
    pub fn of(
        db: &dyn salsa::Database,
        root: SourceFile,
        inst: &Instance,
        target: Target,
    ) -> CompileKey {
        CompileKey::new(db, InstanceId::of(db, root, inst), target)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Target::Primal => "primal",
            Target::Once => "primal, run once",
            Target::Gradient => "gradient",
        })
    }
}

/// The machine code of `key`, or why it cannot be compiled (the JIT's refusal, a type error or
/// a differentiation error): the caller then runs the interpreter, which reports errors with
/// their spans. What is compiled is what the interpreter runs: the [`expanded`] program of the
/// instance, or its [`gradient`] program; compiled quickly for a call run once or where the
/// host's [`CodeGoal`] asks it, else to fast code.
#[salsa::tracked(returns(ref))]
pub fn compiled(db: &dyn salsa::Database, key: CompileKey) -> Result<CompiledFn, String> {
    let id = key.instance(db);
    let target = key.target(db);
    let (program, entry) = match target {
        Target::Primal | Target::Once => {
            let program = expanded(db, id).as_ref().map_err(|e| e.message.clone())?;
            (&**program, id.instance(db).clone())
        }
        Target::Gradient => {
            let g = gradient(db, id).as_ref().map_err(|e| e.message.clone())?;
            (&*g.program, g.driver.clone())
        }
    };
    let quick = target == Target::Once || *CodeGoal::get(db).quick(db);
    let session = match quick {
        true => JitSession::quick(),
        false => JitSession::new(),
    };
    session
        .and_then(|mut jit| jit.compile(program, &entry))
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use salsa::Setter;
    use zy_interp::{Limits, Value};
    use zy_ir::{Instance, Type};

    use super::{compiled, CompileKey, Target};
    use crate::{RootDatabase, SourceFile, Workspace};

    const SRC: &str = "\
square(x) = x * helper(x)
helper(x) = x
other(x) = x + 1.0
function slow(x)
    x * 2.0
end
function rrule(::typeof(slow), x)
    back(ȳ) = (NoTangent(), 2.0 * ȳ)
    return slow(x), back
end
";

    fn workspace(text: &str) -> (RootDatabase, SourceFile) {
        let mut db = RootDatabase::with_query_log();
        let file = SourceFile::new(&db, PathBuf::from("a.jl"), text.to_string());
        Workspace::get(&db).set_files(&mut db).to(vec![file]);
        (db, file)
    }

    /// `name(x)` on the JIT, shown as Julia shows the result.
    fn run(db: &RootDatabase, file: SourceFile, name: &str, target: Target, x: f64) -> String {
        let inst = Instance {
            name: name.into(),
            method: 0,
            args: Arc::from([Type::Float64]),
        };
        match compiled(db, CompileKey::of(db, file, &inst, target)) {
            Ok(f) => match f.call(&[Value::F64(x)], &Limits::default()) {
                Ok(v) => zy_interp::show(&v),
                Err(e) => format!("error: {e}"),
            },
            Err(why) => format!("refused: {why}"),
        }
    }

    fn compilations(db: &RootDatabase) -> Vec<String> {
        let mut log: Vec<String> = db
            .take_query_log()
            .into_iter()
            .filter(|q| q.starts_with("compiled("))
            .collect();
        log.sort();
        log
    }

    #[test]
    fn machine_code_is_reused_until_a_body_it_was_built_from_changes() {
        let (mut db, file) = workspace(SRC);
        assert_eq!(run(&db, file, "square", Target::Primal, 3.0), "9.0");
        assert_eq!(
            run(&db, file, "square", Target::Gradient, 3.0),
            "(9.0, (6.0,))"
        );
        db.enable_query_log();
        assert_eq!(
            run(&db, file, "square", Target::Gradient, 5.0),
            "(25.0, (10.0,))"
        );
        assert_eq!(compilations(&db), Vec::<String>::new());

        // An unrelated function: nothing recompiles.
        file.set_text(&mut db).to(SRC.replace("x + 1.0", "x + 2.0"));
        assert_eq!(run(&db, file, "square", Target::Primal, 3.0), "9.0");
        assert_eq!(
            run(&db, file, "square", Target::Gradient, 3.0),
            "(9.0, (6.0,))"
        );
        assert_eq!(compilations(&db), Vec::<String>::new());

        let both = [
            "compiled(square(::Float64), gradient)",
            "compiled(square(::Float64), primal)",
        ];
        // Its own body: 2x^2 at 3 is 18, d/dx is 4x.
        file.set_text(&mut db)
            .to(SRC.replace("x * helper(x)", "2.0 * x * helper(x)"));
        assert_eq!(run(&db, file, "square", Target::Primal, 3.0), "18.0");
        assert_eq!(
            run(&db, file, "square", Target::Gradient, 3.0),
            "(18.0, (12.0,))"
        );
        assert_eq!(compilations(&db), both);

        // A callee's body: x^3 at 3 is 27, d/dx is 3x^2.
        file.set_text(&mut db)
            .to(SRC.replace("helper(x) = x", "helper(x) = x * x"));
        assert_eq!(run(&db, file, "square", Target::Primal, 3.0), "27.0");
        assert_eq!(
            run(&db, file, "square", Target::Gradient, 3.0),
            "(27.0, (27.0,))"
        );
        assert_eq!(compilations(&db), both);
    }

    #[test]
    fn an_rrule_edit_recompiles_the_gradient_that_uses_it() {
        let (mut db, file) = workspace(SRC);
        assert_eq!(run(&db, file, "slow", Target::Primal, 3.0), "6.0");
        assert_eq!(
            run(&db, file, "slow", Target::Gradient, 3.0),
            "(6.0, (2.0,))"
        );
        db.enable_query_log();
        file.set_text(&mut db).to(SRC.replace("2.0 * ȳ", "4.0 * ȳ"));
        assert_eq!(run(&db, file, "slow", Target::Primal, 3.0), "6.0");
        assert_eq!(
            run(&db, file, "slow", Target::Gradient, 3.0),
            "(6.0, (4.0,))"
        );
        assert_eq!(compilations(&db), ["compiled(slow(::Float64), gradient)"]);
    }

    #[test]
    fn code_that_runs_once_is_compiled_apart_to_the_same_value() {
        // 1.5^3 by a loop, then plus x^2: 3.375 + 2.25.
        let src = "function cube_plus(x)\n    r = 1.0\n    for i in 1:3\n        r *= x\n    end\n    r + x * x\nend\n";
        let (db, file) = workspace(src);
        db.enable_query_log();
        assert_eq!(run(&db, file, "cube_plus", Target::Once, 1.5), "5.625");
        assert_eq!(run(&db, file, "cube_plus", Target::Primal, 1.5), "5.625");
        assert_eq!(
            compilations(&db),
            [
                "compiled(cube_plus(::Float64), primal)",
                "compiled(cube_plus(::Float64), primal, run once)",
            ]
        );
    }

    /// A host that asks for quick code gets the same values from every target, and a change
    /// of the goal recompiles what was compiled for the other.
    #[test]
    fn quick_code_gives_the_same_values_and_a_change_of_goal_recompiles() {
        let (mut db, file) = workspace(SRC);
        assert_eq!(
            run(&db, file, "square", Target::Gradient, 3.0),
            "(9.0, (6.0,))"
        );
        db.enable_query_log();
        crate::input::CodeGoal::get(&db).set_quick(&mut db).to(true);
        assert_eq!(run(&db, file, "square", Target::Primal, 3.0), "9.0");
        assert_eq!(
            run(&db, file, "square", Target::Gradient, 3.0),
            "(9.0, (6.0,))"
        );
        assert_eq!(
            run(&db, file, "slow", Target::Gradient, 3.0),
            "(6.0, (2.0,))"
        );
        assert_eq!(
            compilations(&db),
            [
                "compiled(slow(::Float64), gradient)",
                "compiled(square(::Float64), gradient)",
                "compiled(square(::Float64), primal)",
            ]
        );
    }

    #[test]
    fn a_function_that_does_not_type_is_refused_with_the_reason() {
        let (db, file) = workspace("bad(x) = x > 0 ? (1, x) : sin\n");
        assert_eq!(
            run(&db, file, "bad", Target::Primal, 1.0),
            "refused: `bad(::Float64)` does not type: type conflict: a value is \
             Tuple{Int64, Float64} on one path and typeof(Base.sin) on another"
        );
    }

    /// An undefined name is Julia's `UndefVarError`, raised when the run reaches it.
    #[test]
    fn an_undefined_name_is_raised_where_the_run_reaches_it() {
        let (db, file) = workspace("bad(x) = x + y\n");
        assert_eq!(
            run(&db, file, "bad", Target::Primal, 1.0),
            "error: UndefVarError: `y` not defined"
        );
    }
}
