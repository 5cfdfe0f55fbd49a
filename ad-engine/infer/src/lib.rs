//! Type inference by specialisation, as Julia does it: each method body is typed for concrete
//! argument types, calls are resolved to primitives ([`zy_ir::Prim`]) or to other
//! specialisations ([`zy_ir::Instance`]), and joins insert the conversions Julia's promotion
//! implies. Input: an untyped [`zy_ir::Program`] from lowering. Output: typed functions in a
//! [`zy_ir::TypedProgram`].
//!
//! [`infer_instance`] types one specialisation given an oracle for its callees' return types
//! (the unit a memoising layer calls); [`infer_entry`] and [`infer_call`] run the worklist
//! fixpoint over it, so recursion converges by iterating return types up from `Union{}`.
//!
//! Conventions of the typed output that later stages rely on:
//! - arithmetic operands have one number type; conversions are explicit `float`/`Int`
//!   statements (literals are converted in place), also before jumps into a φ that joins
//!   `Int64` with `Float64` and before returns;
//! - `Prim::Broadcast`'s function operand is the scalar primitive's name
//!   ([`zy_ir::Prim::julia_name`]: `+`, `neg`, `sin`, `float`, ...), applied elementwise to
//!   arrays of one shape and scalars; row vectors are broadcast through their parents;
//! - `map`, `sum(f, xs)` and `broadcast` over a user function or closure invoke synthesised
//!   instances ([`SYNTH_METHOD`]); a top-level binding is loaded by `Op::Global` and its thunk
//!   is the instance ([`GLOBAL_METHOD`]) typed into `TypedProgram::globals`;
//! - a statement of type `Union{}` (an `error`, a call that never returns) ends its block with
//!   `unreachable`, except `undef`, whose value only flows into φs.

#![warn(missing_docs)]

mod absent;
mod aliases;
mod body;
mod builtins;
mod calls;
mod chain;
mod dispatch;
mod driver;
mod error;
mod found;
mod index_style;
mod iterate;
mod join;
mod julia_names;
mod keywords;
mod known;
mod links;
mod open;
mod pattern;
mod peel;
mod plan;
mod recursive;
mod renumber;
mod show;
mod signatures;
mod splat;
mod synth;
mod type_params;
mod type_values;
mod unroll;
mod value;

use std::sync::Arc;

use zy_ir::{Block, Function, Instance, Name, Op, Program, Span, Stmt, Terminator, Type};

pub use builtins::{julia_array_type, BUILTINS};
pub use chain::{
    growing_recursion, oversized_call, MAX_ARGUMENT_PARTS, MAX_ARGUMENT_SIZE,
    MAX_CHAIN_SPECIALISATIONS,
};
pub use driver::{infer_call, infer_entry};
pub use signatures::Signatures;
pub use synth::APPLY;

/// Is `name` a builtin function of the subset (so a free identifier with this name is not
/// undefined)?
pub fn is_builtin(name: &str) -> bool {
    BUILTINS.contains(&name) || builtins::strings::NAMES.contains(&name) || builtins::is_math(name)
}
pub use error::TypeError;
pub use show::{displays, shows};

pub use zy_ir::{GLOBAL_METHOD, SYNTH_METHOD};

/// The most specialisations one entry may reach before inference gives up.
pub const MAX_INSTANCES: usize = 10_000;

/// The deepest nesting of types (tuples in tuples, closures in closures) inference accepts.
pub const MAX_TYPE_DEPTH: usize = 24;

/// The most types one type may hold (a tuple of tuples doubling at every call reaches it
/// before [`MAX_TYPE_DEPTH`], whose nesting it would take exponential time to reach).
pub const MAX_TYPE_PARTS: usize = 10_000;

/// The result of typing one specialisation.
#[derive(Clone, PartialEq, Debug)]
pub struct InferredFunction {
    /// The typed body (`instance` set, every value typed, `ret` never `Any`).
    pub func: Function,
    /// The specialisations (and global thunks) the body refers to.
    pub callees: Vec<Arc<Instance>>,
    /// Errors found in this body.
    pub errors: Vec<TypeError>,
}

/// Type the specialisation `inst` (a method of a user function, a synthesised higher-order
/// function, or a global's thunk). `oracle` answers callees' return types, `Type::Bottom` while
/// unknown.
pub fn infer_instance(
    program: &Program,
    inst: &Instance,
    oracle: &mut dyn FnMut(&Instance) -> Type,
) -> InferredFunction {
    infer_instance_with_body(program, &Signatures::default(), inst, None, oracle)
}

/// [`infer_instance`], with the body of a method instance given by the caller where `program`
/// holds the method by its signature only (a library method whose body is lowered on demand),
/// and `signatures` the memo of `program`'s signature patterns that the caller keeps across
/// the program's instances.
pub fn infer_instance_with_body(
    program: &Program,
    signatures: &Signatures,
    inst: &Instance,
    body: Option<&Function>,
    oracle: &mut dyn FnMut(&Instance) -> Type,
) -> InferredFunction {
    let mut cx = calls::Cx::new(program, signatures, oracle);
    let inst = Arc::new(inst.clone());
    let missing = |what: &str| {
        let fail = error::Fail::undefined(format!("{what} `{}` is not defined", inst.name));
        body::failed(&inst, &inst.name, Span::default(), fail)
    };
    let (func, errors) = match inst.method {
        SYNTH_METHOD => match synth::synthesise(&mut cx, &inst) {
            Ok(f) => (f, Vec::new()),
            Err(fail) => body::failed(&inst, &inst.name, Span::default(), fail),
        },
        GLOBAL_METHOD => match program.globals.get(&inst.name) {
            Some(g) if program.rebound.contains(&inst.name) => {
                body::infer_body(&mut cx, &inst, &cell_thunk(&g.body))
            }
            Some(g) => body::infer_body(&mut cx, &inst, &g.body),
            None => missing("global"),
        },
        m => match program
            .functions
            .get(&inst.name)
            .and_then(|gf| gf.methods.get(m as usize))
        {
            Some(method) => {
                cx.type_vars = dispatch::type_vars(program, method, &inst.args);
                body::infer_body(&mut cx, &inst, body.unwrap_or(&method.body))
            }
            None => missing("method of"),
        },
    };
    let func = renumber::renumber(func);
    // A body with type errors is reported, never run: its joins may be ill-typed.
    if errors.is_empty() {
        zy_ir::debug_verify(&func, "inference");
    }
    InferredFunction {
        func,
        callees: cx.callees.into_iter().collect(),
        errors,
    }
}

/// The thunk of a binding some function rebinds: its value in a `Ref`, the cell that readers
/// load and writers store into.
fn cell_thunk(body: &Function) -> Function {
    let mut f = body.clone();
    let blocks: Vec<Block> = f.block_ids().collect();
    for block in blocks {
        let data = &f.blocks[block.index()];
        if let Terminator::Return(v) = &data.term {
            let stmt = Stmt {
                op: Op::Call("Ref".into()),
                args: vec![v.clone()],
            };
            let span = data.term_span;
            let cell = f.push_stmt(block, stmt, Type::Any, span);
            f.blocks[block.index()].term = Terminator::Return(cell.into());
        }
    }
    f
}

/// Type the thunk of a binding `name` whose untyped `body` is not part of `program` (a call
/// written as text), as [`infer_instance`] types a global's, without copying the program to
/// add it.
pub fn infer_thunk(
    program: &Program,
    name: &Name,
    body: &Function,
    oracle: &mut dyn FnMut(&Instance) -> Type,
) -> InferredFunction {
    let signatures = Signatures::default();
    let mut cx = calls::Cx::new(program, &signatures, oracle);
    let inst = Arc::new(Instance {
        name: name.clone(),
        method: GLOBAL_METHOD,
        args: Arc::from([]),
    });
    let (func, errors) = body::infer_body(&mut cx, &inst, body);
    InferredFunction {
        func: renumber::renumber(func),
        callees: cx.callees.into_iter().collect(),
        errors,
    }
}
