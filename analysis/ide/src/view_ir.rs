//! The text of a function's IR at one stage, for `zy-analyze ir` and the editor's IR views.

use std::sync::Arc;

use zy_hir::{AdjointKey, InstanceId, ItemKind, ProgramKey, RootDatabase, SourceFile};
use zy_ir::{print_function, Instance, Type, TypeExpr, TypedProgram};
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
    /// The AD's forward function `f⁺` of that specialisation.
    Forward,
    /// The AD's pullback `f⁻`.
    Pullback,
    /// Forward mode's pushforward `∂→f`, as `pushforward`, `jvp` and `derivative` of the
    /// specialisation run it.
    Pushforward,
    /// The Cranelift IR the JIT compiles it to.
    Clif,
    /// The forward and pullback control-flow graphs as one Graphviz graph.
    Dot,
}

impl Analysis {
    /// The IR of `function` (a name defined in `file`'s workspace) at `stage`. Every stage but
    /// `Primal` specialises at `at_call`, else at the function's `# zy: at` annotation, else at
    /// its argument annotations when they are all concrete.
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
            let function = &generic_name(db, file.0, function);
            if stage == IrStage::Primal {
                return primal(db, file.0, function);
            }
            let spec = specialise(db, file.0, function, at_call)?;
            let texts = stage_texts(db, &spec, stage)?;
            Ok(texts.join("\n"))
        })
    }
}

/// The generic function `name` names: itself, or the call methods of the struct `name`
/// (`Dense` for `(::Dense)`) when only those exist.
fn generic_name(db: &RootDatabase, file: SourceFile, name: &str) -> String {
    let index = zy_hir::program_index(db, file);
    let callable = zy_ir::callable_name(name);
    if !index.method_origin.contains_key(name) && index.method_origin.contains_key(&callable) {
        callable.to_string()
    } else {
        name.to_string()
    }
}

/// The untyped bodies of every method of `function`, separated by blank lines.
fn primal(db: &RootDatabase, file: SourceFile, function: &str) -> Result<String, UserError> {
    let index = zy_hir::program_index(db, file);
    let origins = index
        .method_origin
        .get(function)
        .ok_or_else(|| undefined(db, file, function))?;
    let bodies: Vec<String> = origins
        .iter()
        .filter_map(|&(item, i)| {
            zy_hir::resolved_ssa(db, file, item)
                .methods
                .get(i)
                .map(|(_, m)| print_function(&m.body))
        })
        .collect();
    Ok(bodies.join("\n"))
}

fn undefined(db: &RootDatabase, file: SourceFile, function: &str) -> UserError {
    in_file(db, file, 0, format!("no function `{function}` is defined"))
}

/// The specialisations of a function chosen for a view, with everything they reach.
struct Specialised<'a> {
    /// The program the specialisations belong to.
    key: ProgramKey,
    program: TypedProgram,
    instances: Vec<Arc<Instance>>,
    /// Where errors without a location in an item are reported.
    site: CallSite<'a>,
}

/// The IR text of each specialisation at `stage`. The adjoint stages print what the gradient
/// runs: the `adjoint` and `expanded` queries that the interpreter's gradient and the JIT read.
fn stage_texts(
    db: &RootDatabase,
    spec: &Specialised<'_>,
    stage: IrStage,
) -> Result<Vec<String>, UserError> {
    let mut out = Vec::new();
    let ad_error = |e: &zy_ad::AdError| error_at(db, e.span, spec.site, e.message.clone());
    for inst in &spec.instances {
        let id = InstanceId::in_program(db, spec.key, inst);
        let adjoint = || {
            zy_hir::adjoint(db, AdjointKey::of(db, id))
                .as_ref()
                .map_err(ad_error)
        };
        let text = match stage {
            IrStage::Primal | IrStage::Typed => {
                spec.program.functions.get(inst).map(|f| print_function(f))
            }
            IrStage::Forward => Some(print_function(&adjoint()?.forward)),
            IrStage::Pullback => Some(print_function(&adjoint()?.pullback)),
            IrStage::Pushforward => {
                // The transform of the body the builtins push forward: the expanded program's.
                let expanded = zy_hir::expanded(db, id).as_ref().map_err(ad_error)?;
                let rules = zy_hir::Rules::of(db, id.program(db));
                let (_, prog) = zy_ad::forward::pushforward_program(Some(&rules), expanded, inst)
                    .map_err(|e| ad_error(&e))?;
                let pinst = zy_ad::forward::pushforward_instance(inst);
                prog.functions.get(&pinst).map(|f| print_function(f))
            }
            IrStage::Dot => {
                let adj = adjoint()?;
                Some(crate::dot::graph(&inst.name, &adj.forward, &adj.pullback))
            }
            IrStage::Clif => {
                // What runs is the program with differentiation calls expanded.
                let expanded = zy_hir::expanded(db, id).as_ref().map_err(ad_error)?;
                Some(zy_codegen::clif_text(expanded, inst).map_err(|e| {
                    error_at(
                        db,
                        zy_ir::Span::default(),
                        spec.site,
                        format!("cannot compile: {e}"),
                    )
                })?)
            }
        };
        out.extend(text);
    }
    Ok(out)
}

/// The specialisation(s) of `function` at `at_call`, its `# zy: at` call, or its concrete
/// argument annotations.
fn specialise<'a>(
    db: &RootDatabase,
    file: SourceFile,
    function: &str,
    at_call: Option<&'a str>,
) -> Result<Specialised<'a>, UserError> {
    if let Some(call) = at_call {
        return specialise_at(db, file, function, call, CallSite::Text(call));
    }
    let items: Vec<zy_hir::ItemId> = zy_hir::item_tree(db, file)
        .iter()
        .copied()
        .filter(|i| i.kind(db) == ItemKind::Function && &**i.name(db) == function)
        .collect();
    let Some(&first) = items.first() else {
        return Err(undefined(db, file, function));
    };
    for &item in &items {
        let Some(ast) = zy_hir::item_ast(db, item) else {
            continue;
        };
        let Item::Function(def) = &**ast else {
            continue;
        };
        if let Some(a) = def
            .annotations
            .iter()
            .find(|a| a.kind == AnnotationKind::At)
        {
            let (offset, _) =
                zy_hir::item_range(db, item, a.range.start, a.range.end).unwrap_or((0, 0));
            let site = CallSite::InFile {
                file: item.file(db),
                offset,
            };
            let mut spec = specialise_at(db, file, function, &a.text, site)?;
            spec.site = CallSite::InFile {
                file: item.file(db),
                offset,
            };
            return Ok(spec);
        }
    }
    let site = CallSite::InFile {
        file: first.file(db),
        offset: item_start(db, first),
    };
    let index = zy_hir::program_index(db, file);
    if let Some(gf) = index.program.functions.get(function) {
        for (m, method) in gf.methods.iter().enumerate() {
            let args: Option<Vec<Type>> = method
                .sig
                .iter()
                .map(|t| t.as_ref().and_then(concrete))
                .collect();
            if let Some(args) = args {
                let inst = Arc::new(Instance {
                    name: gf.name.clone(),
                    method: m as u32,
                    args: args.into(),
                });
                let key = ProgramKey::of(db, file);
                let (program, errors) = zy_hir::typed_program(db, key, std::slice::from_ref(&inst));
                if let Some(e) = errors.into_iter().next() {
                    return Err(error_at(db, e.span, site, e.message));
                }
                return Ok(Specialised {
                    key,
                    program,
                    instances: vec![inst],
                    site,
                });
            }
        }
    }
    Err(in_file(
        db,
        first.file(db),
        item_start(db, first),
        format!("`{function}` has no concrete signature: add `# zy: at {function}(...)` above it or pass --at"),
    ))
}

/// The byte offset at which `item` starts.
fn item_start(db: &RootDatabase, item: zy_hir::ItemId) -> u32 {
    zy_hir::item_boundaries(db, item)
        .first()
        .copied()
        .unwrap_or(0)
}

/// The specialisations of `function` that typing `call` reaches.
fn specialise_at<'a>(
    db: &RootDatabase,
    file: SourceFile,
    function: &str,
    call: &str,
    site: CallSite<'a>,
) -> Result<Specialised<'a>, UserError> {
    let at = |offset: u32, message: String| match site {
        CallSite::Text(text) => in_call(text, offset, message),
        CallSite::InFile { file, offset: base } => in_file(db, file, base + offset, message),
    };
    let expr = zy_syntax::parse_expr(call).map_err(|e| at(e.range.start, e.message))?;
    let module = crate::grad::site_module(db, file, site);
    let typed = zy_hir::type_call_in(db, file, &module, &expr).map_err(|errs| {
        match errs.0.into_iter().next() {
            Some(e) => error_at(db, e.span, site, e.message),
            None => at(0, "internal error: typing failed without a message".into()),
        }
    })?;
    let instances: Vec<Arc<Instance>> = typed
        .program
        .functions
        .keys()
        .filter(|inst| &*inst.name == function)
        .cloned()
        .collect();
    if instances.is_empty() {
        return Err(at(0, format!("`{call}` does not call `{function}`")));
    }
    Ok(Specialised {
        key: typed.key,
        program: typed.program,
        instances,
        site,
    })
}

/// The concrete type an annotation names, for the types that need no program to resolve.
pub(crate) fn concrete(t: &TypeExpr) -> Option<Type> {
    let TypeExpr::Named { name, params } = t else {
        return None;
    };
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

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use zy_hir::InstanceId;
    use zy_ir::{print_function, Instance, Type};

    use super::IrStage;
    use crate::{AnalysisHost, Engine, EvalLimits};

    const SRC: &str = "\
helper(x) = x * x
# zy: at outer(3.0)
function outer(x)
    s = 0.0
    for i in 1:2
        s += helper(x) + derivative(helper, x)
    end
    return s
end
";

    #[test]
    fn the_pullback_view_is_the_function_the_gradient_ran() {
        let mut host = AnalysisHost::new();
        let file = host.set_file_text(Path::new("v.jl"), SRC.to_string());
        let analysis = host.analysis();
        // 2(x² + 2x) at 3: 30; its derivative 2(2x + 2) = 16.
        let g = analysis
            .grad(file, "outer(3.0)", EvalLimits::default(), Engine::Interp)
            .ok()
            .and_then(Result::ok)
            .map(|g| g.to_text());
        assert_eq!(g.as_deref(), Some("value: 30.0\ngradient: (16.0,)"));
        let db = host.raw_database();
        let outer = Instance {
            name: "outer".into(),
            method: 0,
            args: Arc::from([Type::Float64]),
        };
        let id = InstanceId::of(db, file.source_file(), &outer);
        let ran = zy_hir::gradient(db, id).as_ref().expect("differentiable");
        for (name, stage, generated) in [
            (
                "outer",
                IrStage::Pullback,
                zy_ad::names::pullback_instance(&outer),
            ),
            (
                "outer",
                IrStage::Forward,
                zy_ad::names::forward_instance(&outer),
            ),
            // A callee's pullback, which `outer⁻` calls.
            ("helper", IrStage::Pullback, {
                let helper = Instance {
                    name: "helper".into(),
                    ..outer.clone()
                };
                zy_ad::names::pullback_instance(&helper)
            }),
        ] {
            let at = Some("outer(3.0)").filter(|_| name == "helper");
            let view = analysis
                .view_ir(file, name, at, stage)
                .ok()
                .and_then(Result::ok);
            let run = ran
                .program
                .functions
                .get(&generated)
                .map(|f| print_function(f));
            assert!(run.is_some(), "{generated} is not in the gradient program");
            assert_eq!(view, run, "{name} at {stage:?}");
        }
    }
}
