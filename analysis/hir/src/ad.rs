//! The one adjoint path: what the gradient runs, as queries that the interpreter's gradient,
//! the JIT, the IR views and hover all read.
//!
//! - [`expanded`]`(f)`: everything the specialisation `f` reaches, typed, with the
//!   differentiation builtins in user code (`gradient`, `pullback`, ...) rewritten into calls of
//!   generated functions. This is the program that runs `f`.
//! - [`adjoint`]`(f, g)`: the forward function `g⁺` and pullback `g⁻` of one instance `g` of
//!   that program, from its in-source `rrule` or by transforming its body with generated code
//!   inlined (nested AD), with the body it was built from.
//! - [`reaching`]`(f, g)`: the reaching-gradient facts of the body that adjoint differentiates.
//! - [`gradient`]`(f)`: the program of `f` with the adjoints of every instance on its active
//!   path (each from [`adjoint`]) and the driver `∇f` that runs them.
//!
//! Adjoints are per instance within the program of a root `f`: inlining needs the generated code
//! that `f`'s program holds, and whether a call may write or reaches a global depends on its
//! callees, so an instance's adjoint is keyed by the program it belongs to and depends on that
//! program. An edit re-expands, and re-transforms the instances of, only the programs that reach
//! the edited body: a program that does not call the edited function is left alone.

use std::sync::Arc;

use zy_ad::{Activity, AdError, AdjointOrigin, ArgMask, GlobalShadows, InstanceAdjoint};
use zy_ir::{Instance, TypedProgram};

use crate::call::{raised_when_reached, typed_program, Thrown};
use crate::rule::Rules;
use crate::specialise::{typed, InstanceId};

/// The program that runs the specialisation `id`: what it reaches, typed, with the
/// differentiation builtins expanded; or its first type error (but those raised where they
/// were found) or differentiation error.
#[salsa::tracked(returns(ref))]
pub fn expanded(db: &dyn salsa::Database, id: InstanceId) -> Result<Arc<TypedProgram>, AdError> {
    let inst = id.instance(db);
    let (program, errors) = typed_program(db, id.program(db), std::slice::from_ref(inst));
    // An error the code raises where it was found stops the run only if it gets there.
    let thrown = Thrown::of(&program, None);
    if let Some(e) = errors
        .into_iter()
        .find(|e| !raised_when_reached(db, e, &thrown))
    {
        return Err(AdError::new(
            e.span,
            format!("`{inst}` does not type: {}", e.message),
        ));
    }
    let program = zy_ad::expand_with_rrules(&Rules::of(db, id.program(db)), &program)?;
    // The index compares by signatures, and the rrules of nested derivatives are inferred by
    // the AD from it: depend on the typed body of every user instance the program holds.
    depend_on_bodies(db, id, &program);
    Ok(Arc::new(program))
}

/// The key of [`adjoint`]: an instance of the program that runs another.
#[salsa::interned(unsafe(no_lifetime), revisions = usize::MAX, debug)]
pub struct AdjointKey {
    /// The specialisation whose program ([`expanded`]) holds the instance.
    #[returns(copy)]
    pub program: InstanceId,
    /// The instance differentiated.
    #[returns(ref)]
    pub instance: Arc<Instance>,
    /// The arguments it is differentiated with respect to (those active at its calls).
    #[returns(copy)]
    pub mask: ArgMask,
}

impl AdjointKey {
    /// The key of `id`'s own adjoint, in its own program, every argument active.
    pub fn of(db: &dyn salsa::Database, id: InstanceId) -> AdjointKey {
        AdjointKey::new(db, id, id.instance(db).clone(), ArgMask::ALL)
    }
}

/// The forward function and pullback of `key`'s instance, as the gradient of `key`'s program
/// builds them, or why it cannot be differentiated.
#[salsa::tracked(returns(ref))]
pub fn adjoint(db: &dyn salsa::Database, key: AdjointKey) -> Result<InstanceAdjoint, AdError> {
    let program = expanded(db, key.program(db))
        .as_ref()
        .map_err(Clone::clone)?;
    let rules = Rules::of(db, key.program(db).program(db));
    let globals = shadows(db, key.program(db));
    let (inst, mask) = (key.instance(db), key.mask(db));
    zy_ad::instance_adjoint(Some(&rules), program, globals, inst, mask)
}

/// The reaching-gradient facts of the body that `key`'s adjoint differentiates, as the
/// transform computes them (a call that reaches a global with a shadow is active), or `None`
/// when a rule gives the adjoint or there is none.
#[salsa::tracked(returns(ref))]
pub fn reaching(db: &dyn salsa::Database, key: AdjointKey) -> Option<Activity> {
    let Ok(InstanceAdjoint {
        origin: AdjointOrigin::Derived { body },
        ..
    }) = adjoint(db, key)
    else {
        return None;
    };
    let globals = shadows(db, key.program(db));
    Some(globals.activity_masked(body, key.mask(db)))
}

/// The program that computes the gradient of `id`: its [`expanded`] program, the adjoint of
/// every instance on its active path (from [`adjoint`]), and the driver `∇f`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct GradientProgram {
    /// The driver `∇f(args...)`, returning `(value, (gradient per argument...))`.
    pub driver: Arc<Instance>,
    pub program: Arc<TypedProgram>,
    /// `Some(why)` when forward mode computes the gradient (one pushforward per input
    /// number) because the reverse transform refused the function: its message.
    pub forward: Option<String>,
}

/// The globals that each function of `id`'s [`expanded`] program reaches (empty if it has
/// none), computed once for all the adjoints of the program.
#[salsa::tracked(returns(ref), no_eq)]
fn shadows(db: &dyn salsa::Database, id: InstanceId) -> GlobalShadows {
    match expanded(db, id) {
        Ok(program) => GlobalShadows::of(program),
        Err(_) => GlobalShadows::default(),
    }
}

/// The gradient program of the specialisation `id`, or why it cannot be differentiated: by
/// reverse mode, or by forward mode where the reverse transform refuses nested
/// differentiation that forward mode takes ([`zy_ad::forward_gradient_program`]).
#[salsa::tracked(returns(ref))]
pub fn gradient(db: &dyn salsa::Database, id: InstanceId) -> Result<GradientProgram, AdError> {
    let program = expanded(db, id).as_ref().map_err(Clone::clone)?;
    let inst = id.instance(db);
    let reverse = zy_ad::gradient_program_with(program, inst, &mut |_, i, mask| {
        adjoint(db, AdjointKey::new(db, id, i.clone(), mask)).clone()
    });
    let (driver, program, forward) = match reverse {
        Ok((driver, program)) => (driver, program, None),
        // Where the reverse transform cannot take the function (a recursive function's
        // pullback closures, a pullback leaving a loop nest early), forward mode may.
        Err(e) if e.nested_reverse => {
            let why = e.message.clone();
            let rules = Rules::of(db, id.program(db));
            let (driver, program) =
                zy_ad::forward_gradient_program(Some(&rules), program, inst, e)?;
            (driver, program, Some(why))
        }
        Err(e) => return Err(e),
    };
    Ok(GradientProgram {
        driver,
        program: Arc::new(program),
        forward,
    })
}

/// Depend on the typed body of every user instance of `program` (in the program of `id`).
fn depend_on_bodies(db: &dyn salsa::Database, id: InstanceId, program: &TypedProgram) {
    for f in program.functions.keys() {
        if !zy_ad::names::is_generated(&f.name) {
            typed(db, id.callee(db, f));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use salsa::Setter;
    use zy_ad::AdjointOrigin;
    use zy_ir::{print_function, Instance, Type};

    use super::{adjoint, gradient, AdjointKey};
    use crate::specialise::InstanceId;
    use crate::{RootDatabase, SourceFile, Workspace};

    const SRC: &str = "\
square(x) = x * x
cube(x) = x * x * x
twice(x) = 2.0 * square(x)
slope(x) = derivative(cube, x) * x
";

    fn inst(name: &str) -> Instance {
        Instance {
            name: name.into(),
            method: 0,
            args: Arc::from([Type::Float64]),
        }
    }

    fn workspace(text: &str) -> (RootDatabase, SourceFile) {
        let mut db = RootDatabase::with_query_log();
        let file = SourceFile::new(&db, PathBuf::from("a.jl"), text.to_string());
        Workspace::get(&db).set_files(&mut db).to(vec![file]);
        (db, file)
    }

    /// The adjoint queries that ran, sorted.
    fn transforms(db: &RootDatabase) -> Vec<String> {
        let mut ran: Vec<String> = db
            .take_query_log()
            .into_iter()
            .filter(|q| q.starts_with("adjoint(") || q.starts_with("expanded("))
            .collect();
        ran.sort();
        ran
    }

    #[test]
    fn editing_one_function_re_transforms_only_the_programs_that_reach_it() {
        let (mut db, file) = workspace(SRC);
        let names = ["square", "cube", "twice", "slope"];
        let all = |db: &RootDatabase| {
            for name in names {
                let id = InstanceId::of(db, file, &inst(name));
                let adj = adjoint(db, AdjointKey::of(db, id));
                assert!(
                    adj.as_ref().is_ok_and(|a| a.pullback.name.ends_with('⁻')),
                    "{name}: {adj:?}"
                );
                assert!(gradient(db, id).is_ok(), "{name}");
            }
        };
        all(&db);
        db.enable_query_log();
        all(&db);
        assert_eq!(transforms(&db), Vec::<String>::new());

        // `cube` is in its own program and in `slope`'s (through `derivative`, whose driver
        // `slope` differentiates inlined): only those.
        file.set_text(&mut db)
            .to(SRC.replace("x * x * x", "x * x * x * 1.0"));
        all(&db);
        assert_eq!(
            transforms(&db),
            [
                "adjoint(cube(::Float64))",
                "adjoint(slope(::Float64))",
                "expanded(cube(::Float64))",
                "expanded(slope(::Float64))",
            ]
        );

        // `square` is called by `twice`: both of their programs, nothing of `cube`'s.
        file.set_text(&mut db)
            .to(SRC.replace("x * x\n", "x * x * 1.0\n"));
        all(&db);
        assert_eq!(
            transforms(&db),
            [
                "adjoint(square(::Float64) in twice(::Float64))",
                "adjoint(square(::Float64))",
                "adjoint(twice(::Float64))",
                "expanded(square(::Float64))",
                "expanded(twice(::Float64))",
            ]
        );
    }

    #[test]
    fn nested_ad_is_differentiated_inlined_and_the_gradient_runs_that_adjoint() {
        let (db, file) = workspace(SRC);
        let id = InstanceId::of(&db, file, &inst("slope"));
        let adj = adjoint(&db, AdjointKey::of(&db, id)).as_ref();
        let Ok(adj) = adj else {
            panic!("{adj:?}");
        };
        // The body differentiated is the expanded one: `derivative(cube, x)` is the inlined
        // driver `∇cube`, so no call of generated code is left in it.
        let AdjointOrigin::Derived { body, .. } = &adj.origin else {
            panic!("{:?}", adj.origin);
        };
        let text = print_function(body);
        assert!(
            !text.contains("derivative") && !text.contains('∇'),
            "{text}"
        );
        // What the gradient program holds for `slope⁻` is this very function.
        let g = gradient(&db, id).as_ref().expect("differentiable");
        let pullback = zy_ad::names::pullback_instance(id.instance(&db));
        assert_eq!(g.program.functions.get(&pullback), Some(&adj.pullback));
    }

    #[test]
    fn an_rrule_gives_the_adjoint_and_an_edit_of_it_rebuilds_it() {
        let text = "\
slow(x) = x * 2.0
function rrule(::typeof(slow), x)
    back(ȳ) = (NoTangent(), 2.0 * ȳ)
    return slow(x), back
end
";
        let (mut db, file) = workspace(text);
        let id = InstanceId::of(&db, file, &inst("slow"));
        let origin = |db: &RootDatabase| match adjoint(db, AdjointKey::of(db, id)) {
            Ok(a) => format!("{:?}", matches!(a.origin, AdjointOrigin::Rule { .. })),
            Err(e) => e.message.clone(),
        };
        assert_eq!(origin(&db), "true");
        db.enable_query_log();
        file.set_text(&mut db)
            .to(text.replace("2.0 * ȳ", "4.0 * ȳ"));
        assert_eq!(origin(&db), "true");
        assert_eq!(transforms(&db), ["adjoint(slow(::Float64))"]);
    }
}
