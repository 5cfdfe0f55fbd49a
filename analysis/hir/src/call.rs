//! Typing a call written as text (a `# zy: at` annotation, `zy-analyze eval`): the call becomes
//! the body of a synthetic zero-argument binding, typed against the program of the file it is
//! made in, with every specialisation it reaches taken from the memoised `typed` queries. A call
//! with functions of its own (`gradient(x -> x^2, 3.0)`, a comprehension, a `do` block) is
//! lowered as any binding is, its closures' methods and environments with it, and typed in a
//! program that holds them ([`ProgramKey::own`], [`CallFunctions`]).

use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};
use zy_infer::{TypeError, GLOBAL_METHOD};
use zy_ir::{
    Const, Function, Global, Instance, Name, Op, Operand, Prim, Program, Span, TypedProgram,
    ValueKind,
};
use zy_syntax::ast::{Expr, GlobalDef};

use zy_lower::LoweredItem;

use crate::input::SourceFile;
use crate::item::ItemId;
use crate::program::{knowing_names, needed_names, KnownBindings, ProgramKey};
use crate::reach::{item_names, makes_matrix, MATRIX, MATRIX_MAKERS};
use crate::resolve::resolve_item;
use crate::scope::{is_prelude, scope_names, scope_root, MAIN};
use crate::specialise::{ret_type, typed, InstanceId};

/// The name of the synthetic binding holding a call.
pub const CALL_NAME: &str = "#call";

/// `Span::file` of spans inside the call text (relative to its start).
pub const CALL_SPAN_FILE: u32 = 0;

/// The functions of a call string's own: its closures' methods and their environments'
/// structs, lowered and resolved with the call. Each distinct one is a program of its own,
/// with everything memoised under it; salsa keeps every one, so the host counts them
/// ([`crate::RootDatabase::call_programs`]) and bounds them.
#[salsa::interned(unsafe(no_lifetime), revisions = usize::MAX, debug)]
pub struct CallFunctions {
    #[returns(ref)]
    pub program: Arc<Program>,
}

/// A call typed with everything it reaches.
#[derive(Clone, Debug)]
pub struct TypedCall {
    /// The typed body of the call (no arguments).
    pub body: Arc<Function>,
    /// Every specialisation and binding the call reaches.
    pub program: TypedProgram,
    /// The program the call is typed in: the file's, with the prelude definitions of the
    /// names the call refers to.
    pub key: ProgramKey,
}

impl TypedCall {
    /// The id of `inst` (a specialisation the call reaches) in the call's program.
    pub fn id(&self, db: &dyn salsa::Database, inst: &Instance) -> InstanceId {
        InstanceId::in_program(db, self.key, inst)
    }
}

/// Why a call could not be typed: errors located by IR spans (in the call text when
/// `span.file` is [`CALL_SPAN_FILE`], else in the item with that number).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CallErrors(pub Vec<TypeError>);

/// Type the call `expr` (ranges relative to the call text), made in the file `file`.
pub fn type_call(
    db: &dyn salsa::Database,
    file: SourceFile,
    expr: &Expr,
) -> Result<TypedCall, CallErrors> {
    type_call_in(db, file, MAIN, expr)
}

/// [`type_call_in`] for running the call: when the typed program raises every error where
/// it was found ([`raised_when_reached`]), that program, so that one in code the run does not
/// reach (a branch after a `throw`, the element call of a comprehension over no elements) is
/// no error. A call that runs as part of the skipped statement `at` of `file` (a test's text,
/// which runs the code before the test in its statement) sees the bindings that only that
/// statement and later ones change as they are defined
/// ([`crate::scope::ScopeNames::known_at`]).
pub fn type_call_to_run(
    db: &dyn salsa::Database,
    file: SourceFile,
    module: &str,
    expr: &Expr,
    at: Option<ItemId>,
) -> Result<TypedCall, CallErrors> {
    let known = at
        .map(|item| scope_names(db, file).known_at(item))
        .filter(|names| !names.is_empty())
        .map(|names| KnownBindings::new(db, Arc::from(names)));
    let (typed, errors) = type_call_with_errors(db, file, module, expr, known)?;
    let thrown = Thrown::of(&typed.program, Some(&typed.body));
    match errors.iter().all(|e| raised_when_reached(db, e, &thrown)) {
        true => Ok(typed),
        false => Err(CallErrors(errors)),
    }
}

/// The errors of `errors`, found typing `program`, that stop a run before it starts: those
/// the code does not raise where they were found ([`raised_when_reached`]).
pub fn blocking_errors(
    db: &dyn salsa::Database,
    program: &TypedProgram,
    errors: Vec<TypeError>,
) -> Vec<TypeError> {
    let thrown = Thrown::of(program, None);
    errors
        .into_iter()
        .filter(|e| !raised_when_reached(db, e, &thrown))
        .collect()
}

/// How the type error of a condition that is no `Bool` starts (`zy_infer`'s message).
const NON_BOOLEAN: &str = "TypeError: non-boolean";

/// Whether a run may go ahead despite the type error `e`, because the code raises it where
/// it was found, as Julia raises an exception only where the run gets: a `MethodError`
/// (also one inside the library, reported at the call that led there) or a `TypeError` of a
/// condition that is no `Bool` (inference ends that branch with the throw); an `UndefVarError` or
/// a refused construct (which stops the run there, no `catch` taking it) that the typed code
/// (`thrown`) throws at its place, or that lowering made a throw of (where the run never
/// gets, as inference found, nothing of it is left).
pub(crate) fn raised_when_reached(
    db: &dyn salsa::Database,
    e: &TypeError,
    thrown: &Thrown,
) -> bool {
    match e.code {
        "method-error" => true,
        "type-conflict" => e.message.starts_with(NON_BOOLEAN),
        "undefined-name" | "unsupported" => {
            thrown.0.contains(&(e.span, e.message.as_str().into()))
                || lowered_as_refusal(db, e.span)
        }
        _ => false,
    }
}

/// What a typed program throws where: each `error` statement's span and message.
pub(crate) struct Thrown(FxHashSet<(Span, Name)>);

impl Thrown {
    /// The throws of `program`'s functions and bindings and of `body`.
    pub(crate) fn of(program: &TypedProgram, body: Option<&Function>) -> Thrown {
        let functions = program.functions.values().chain(program.globals.values());
        let mut out = FxHashSet::default();
        for f in functions.map(|f| &**f).chain(body) {
            for d in &f.values {
                let ValueKind::Stmt(s) = &d.kind else {
                    continue;
                };
                let message = match (&s.op, s.args.as_slice()) {
                    (Op::Prim(Prim::Error), [Operand::Const(Const::Str(m))]) => m.clone(),
                    (
                        Op::Prim(Prim::Error),
                        [Operand::Const(Const::Symbol(n)), Operand::Const(Const::Str(m))],
                    ) => format!("{n}: {m}").as_str().into(),
                    _ => continue,
                };
                out.insert((d.span, message));
            }
        }
        Thrown(out)
    }
}

/// Did lowering make the construct at `span` (of a user's item) a refusal raised where it is
/// reached (`error(:unsupported, what)`)?
fn lowered_as_refusal(db: &dyn salsa::Database, span: Span) -> bool {
    if span.file == CALL_SPAN_FILE {
        return false;
    }
    let Some(item) = crate::diag::item_of_span(db, span.file) else {
        return false;
    };
    let lowered = crate::lower::ssa(db, item);
    let bodies = lowered.methods.iter().map(|(_, m)| &m.body);
    bodies.flat_map(|b| &b.values).any(|d| {
        d.span == span
            && matches!(&d.kind, ValueKind::Stmt(s) if matches!(&s.op, Op::Call(f) if &**f == "error")
                && matches!(s.args.first(), Some(Operand::Const(Const::Symbol(k))) if &**k == "unsupported"))
    })
}

/// [`type_call`], with the call's names seen from `module` of `file`'s program (the module of
/// the definition a `# zy:` annotation stands above).
pub fn type_call_in(
    db: &dyn salsa::Database,
    file: SourceFile,
    module: &str,
    expr: &Expr,
) -> Result<TypedCall, CallErrors> {
    match type_call_with_errors(db, file, module, expr, None)? {
        (typed, errors) if errors.is_empty() => Ok(typed),
        (_, errors) => Err(CallErrors(errors)),
    }
}

/// The call typed, with the type errors found in it and what it reaches (each raised where it
/// was found), in a program that knows the bindings `known`; `Err` when it could not be
/// lowered.
fn type_call_with_errors(
    db: &dyn salsa::Database,
    file: SourceFile,
    module: &str,
    expr: &Expr,
    known: Option<KnownBindings>,
) -> Result<(TypedCall, Vec<TypeError>), CallErrors> {
    let def = GlobalDef {
        name: CALL_NAME.into(),
        name_range: expr.range,
        value: expr.clone(),
        is_const: true,
        range: expr.range,
    };
    let lowered = zy_lower::lower_global(CALL_SPAN_FILE, &def);
    if !lowered.errors.is_empty() {
        let errors = lowered
            .errors
            .into_iter()
            .map(|e| TypeError {
                span: e.span,
                code: e.code,
                message: e.message,
            })
            .collect();
        return Err(CallErrors(errors));
    }
    let names = match known {
        Some(known) => knowing_names(db, scope_root(db, file), known),
        None => scope_names(db, file),
    };
    let lowered = resolve_item(&lowered, module, names);
    // Typed against the program as it is: copying it to add the call would cost time in the
    // size of the program for every call (quadratic over a file's annotations).
    let Some(call) = lowered.globals.first() else {
        return Err(CallErrors(Vec::new()));
    };
    let key = call_program(db, file, &lowered, false, known);
    let typed = type_in(db, key, call);
    // The library's methods on matrices wait until the program can make one
    // (`reach::MATRIX_MAKERS`); a library function that makes one where those lists do not
    // say so would fail here for a method it does not see: typed again with them.
    if typed.1.iter().any(|e| e.code == "method-error") && !key.index(db).reached.contains(MATRIX) {
        let again = type_in(db, call_program(db, file, &lowered, true, known), call);
        if again.1.is_empty() {
            return Ok(again);
        }
    }
    Ok(typed)
}

/// The call `call` typed in the program `key`, with the type errors found.
fn type_in(
    db: &dyn salsa::Database,
    key: ProgramKey,
    call: &Global,
) -> (TypedCall, Vec<TypeError>) {
    let program = &key.index(db).program;
    let mut oracle = |callee: &Instance| ret_type(db, InstanceId::in_program(db, key, callee));
    let entry = zy_infer::infer_thunk(program, &call.name, &call.body, &mut oracle);
    let (program, mut errors) = typed_program(db, key, &entry.callees);
    for e in entry.errors.iter().rev() {
        if !errors.contains(e) {
            errors.insert(0, e.clone());
        }
    }
    let typed = TypedCall {
        body: Arc::new(entry.func),
        program,
        key,
    };
    (typed, errors)
}

/// The program a call (lowered and resolved in `file`) is typed in: the file's, with the
/// prelude definitions the call refers to and the file's code does not reach (and the methods
/// on matrices when the call makes one, or `matrices` says so), and the call's own functions,
/// knowing the bindings `known`.
fn call_program(
    db: &dyn salsa::Database,
    file: SourceFile,
    call: &LoweredItem,
    matrices: bool,
    known: Option<KnownBindings>,
) -> ProgramKey {
    let mut names = Vec::new();
    item_names(call, &mut |n, _| names.push(n.clone()));
    if matrices || makes_matrix(call) || names.iter().any(|n| MATRIX_MAKERS.contains(&&**n)) {
        names.push(MATRIX.into());
    }
    let reach = needed_names(db, file, names);
    let own = (!call.methods.is_empty() || !call.structs.is_empty()).then(|| {
        let mut own = Program::default();
        for (name, method) in &call.methods {
            own.add_method(name.clone(), method.clone());
        }
        for s in &call.structs {
            own.structs.insert(s.name.clone(), s.clone());
        }
        CallFunctions::new(db, Arc::new(own))
    });
    ProgramKey::new(
        db,
        scope_root(db, file),
        Arc::<[Name]>::from(reach),
        own,
        known,
    )
}

/// The typed bodies of `roots` (instances of the program `key`) and of everything they
/// reach, with the type errors found in them (each once, in the order met). An error inside
/// the library is reported at the program's call that led into it, naming the library
/// function, where there is one.
pub fn typed_program(
    db: &dyn salsa::Database,
    key: ProgramKey,
    roots: &[Arc<Instance>],
) -> (TypedProgram, Vec<TypeError>) {
    let mut errors: Vec<TypeError> = Vec::new();
    let mut out = TypedProgram::default();
    let mut seen: BTreeSet<Arc<Instance>> = roots.iter().cloned().collect();
    let mut queue: VecDeque<Arc<Instance>> = roots.iter().cloned().collect();
    // The program's call through which each library instance was first reached.
    let mut entered_at: FxHashMap<Arc<Instance>, Span> = FxHashMap::default();
    while let Some(inst) = queue.pop_front() {
        let id = InstanceId::in_program(db, key, &inst);
        let r = typed(db, id);
        let library = in_library(db, r.func.span.file);
        let entry = entered_at.get(&inst).copied().filter(|_| library);
        let mut push = |e: TypeError| {
            let e = match entry {
                Some(span) if in_library(db, e.span.file) => TypeError {
                    span,
                    code: e.code,
                    message: format!("{} ({})", e.message, inside(&inst.name)),
                },
                _ => e,
            };
            if !errors.contains(&e) {
                errors.push(e);
            }
        };
        // A function zy could not lower is refused where a call reaches it, not for the whole
        // file: the other functions of the file keep working.
        for e in lowering_errors(db, key, r.func.span.file) {
            push(e);
        }
        for e in &r.errors {
            push(e.clone());
        }
        if r.errors.is_empty() && r.func.ret != ret_type(db, id) {
            // The fixpoint was cut short: callers were typed with another return type.
            errors.push(TypeError {
                span: r.func.span,
                code: "unsupported",
                message: format!(
                    "unsupported: the return type of `{}` grows with each recursive call (type inference did not converge)",
                    inst.name
                ),
            });
        }
        for c in &r.callees {
            if seen.insert(c.clone()) {
                let site = if library {
                    entry
                } else {
                    call_site(&r.func, c)
                };
                if let Some(span) = site {
                    entered_at.insert(c.clone(), span);
                }
                queue.push_back(c.clone());
            }
        }
        let func = Arc::new(r.func.clone());
        if inst.method == GLOBAL_METHOD {
            out.globals.insert(inst.name.clone(), func);
        } else {
            out.functions.insert(inst, func);
        }
    }
    (out, errors)
}

/// Is the item whose spans carry `span_file` one of the library's (the prelude's)?
fn in_library(db: &dyn salsa::Database, span_file: u32) -> bool {
    span_file != CALL_SPAN_FILE
        && crate::diag::item_of_span(db, span_file).is_some_and(|i| is_prelude(db, i.file(db)))
}

/// Where in the library an error lies: in the library's `Base.sum`, or, for the library's
/// own helpers (`Base._gen_fold`), inside the library.
fn inside(name: &str) -> String {
    match name.rsplit('.').next() {
        Some(last) if !last.starts_with(['_', '#']) => format!("in the library's `{name}`"),
        _ => "inside the library".to_string(),
    }
}

/// The span of `func`'s first call of `callee`, if it calls it directly.
fn call_site(func: &Function, callee: &Instance) -> Option<Span> {
    func.values.iter().find_map(|d| match &d.kind {
        ValueKind::Stmt(s) if matches!(&s.op, Op::Invoke(i) if **i == *callee) => Some(d.span),
        _ => None,
    })
}

/// The errors found lowering the item whose spans carry `span_file` (an unsupported construct
/// in its body), and combining it with the program `key` (a struct defined twice).
fn lowering_errors(db: &dyn salsa::Database, key: ProgramKey, span_file: u32) -> Vec<TypeError> {
    if span_file == CALL_SPAN_FILE {
        return Vec::new();
    }
    let Some(item) = crate::diag::item_of_span(db, span_file) else {
        return Vec::new();
    };
    let parsed = crate::diag::unsupported_in(db, item).iter().cloned();
    // The errors of combining the items of the program the call is typed in (not of the
    // program of the item's own file: for a library item that is the whole library's).
    let combined = key
        .index(db)
        .errors
        .iter()
        .filter(|e| e.span.file == span_file);
    let lowered = crate::lower::ssa(db, item)
        .errors
        .iter()
        .chain(combined)
        .map(|e| TypeError {
            span: e.span,
            code: e.code,
            message: e.message.clone(),
        });
    parsed.chain(lowered).collect()
}
