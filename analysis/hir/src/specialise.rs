//! Typed SSA per specialisation. `typed(instance)` infers one body, asking `ret_type` for each
//! callee; recursion is a salsa cycle resolved by fixpoint iteration from `Union{}` (the return
//! types only grow, so the iteration converges as the worklist in `zy_infer` does). An instance
//! belongs to the program of one root file (see [`crate::scope`]): the same method seen from two
//! files is two instances, since what its names mean may differ.

use std::cell::RefCell;
use std::sync::Arc;

use zy_infer::InferredFunction;
use zy_ir::{Function, Instance, Span, Type};

use crate::input::SourceFile;
use crate::program::{resolved_ssa, ProgramIndex, ProgramKey};

/// A specialisation of a user method, a binding's thunk or a synthesised higher-order function,
/// in the program of the file `root`.
#[salsa::interned(unsafe(no_lifetime), revisions = usize::MAX, debug)]
pub struct InstanceId {
    #[returns(copy)]
    pub program: ProgramKey,
    #[returns(ref)]
    pub instance: Arc<Instance>,
}

impl InstanceId {
    /// The id of `inst` in the program that the code of `file` sees (with the library's
    /// methods on matrices when an argument holds a matrix: [`ProgramKey::for_instance`]).
    pub fn of(db: &dyn salsa::Database, file: SourceFile, inst: &Instance) -> InstanceId {
        InstanceId::new(
            db,
            ProgramKey::for_instance(db, file, inst),
            Arc::new(inst.clone()),
        )
    }

    /// The id of `inst` in the program `key` (typed in the program without a call's own
    /// functions where it cannot reach them: [`ProgramKey::home`]).
    pub fn in_program(db: &dyn salsa::Database, key: ProgramKey, inst: &Instance) -> InstanceId {
        InstanceId::new(db, key.home(db, inst), Arc::new(inst.clone()))
    }

    /// The id of `inst` in the same program as `self` (a callee of it).
    pub fn callee(self, db: &dyn salsa::Database, inst: &Instance) -> InstanceId {
        InstanceId::in_program(db, self.program(db), inst)
    }

    /// The root file of the instance's program.
    pub fn root(self, db: &dyn salsa::Database) -> SourceFile {
        self.program(db).root(db)
    }

    /// The index of the instance's program.
    pub fn index(self, db: &dyn salsa::Database) -> &Arc<ProgramIndex> {
        self.program(db).index(db)
    }
}

/// The typed body of one specialisation, the callees it refers to and its type errors.
#[salsa::tracked(returns(ref), cycle_initial = typed_initial, cycle_fn = typed_recover)]
pub fn typed(db: &dyn salsa::Database, id: InstanceId) -> Arc<InferredFunction> {
    let inst = id.instance(db);
    let root = id.root(db);
    let index = id.index(db);
    // The index's equality ignores bodies (and holds a library method's as a stub): read this
    // instance's own body from its item, which also depends on it.
    let body = index.method_body(db, id.program(db), &inst.name, inst.method);
    if let Some(item) = index.origin(&inst.name, inst.method) {
        resolved_ssa(db, root, item);
    }
    let chain = InChain::enter(inst);
    let mut refused: Vec<(Instance, String)> = Vec::new();
    let mut oracle = |callee: &Instance| {
        let why = zy_infer::oversized_call(inst, callee).or_else(|| chain.refusal(callee));
        if let Some(why) = why {
            if !refused.iter().any(|(c, _)| c == callee) {
                refused.push((callee.clone(), why));
            }
            return Type::Bottom;
        }
        ret_type(db, id.callee(db, callee))
    };
    let mut inferred = zy_infer::infer_instance_with_body(
        &index.program,
        &index.signatures,
        inst,
        body.map(|b| &**b),
        &mut oracle,
    );
    for (callee, why) in refused {
        inferred.refuse_call(&callee, why);
    }
    Arc::new(inferred)
}

/// Specialisations typed one inside another (a callee's [`typed`] inside its caller's) before
/// inference stops, so that a chain of calls too long for the thread's stack ends with an
/// error instead of overflowing it.
const MAX_NESTING: usize = 4096;

thread_local! {
    /// The specialisations whose [`typed`] queries run on this thread, the outermost first.
    static CHAIN: RefCell<Vec<Arc<Instance>>> = const { RefCell::new(Vec::new()) };
}

/// One specialisation on this thread's chain of [`typed`] queries while its body is typed.
struct InChain;

impl InChain {
    fn enter(inst: &Arc<Instance>) -> InChain {
        CHAIN.with(|c| c.borrow_mut().push(inst.clone()));
        InChain
    }

    /// Why the body being typed may not call `callee`: the chain is as deep as the stack
    /// allows, or it holds too many specialisations of `callee`'s method
    /// ([`zy_infer::growing_recursion`]).
    fn refusal(&self, callee: &Instance) -> Option<String> {
        CHAIN.with(|c| {
            let chain = c.borrow();
            if chain.len() >= MAX_NESTING {
                return Some(format!(
                    "unsupported: calls nested more than {MAX_NESTING} deep while typing \
                     `{}`: zy types every call inside its caller",
                    callee.name
                ));
            }
            zy_infer::growing_recursion(chain.iter().map(|i| &**i), callee)
        })
    }
}

impl Drop for InChain {
    fn drop(&mut self) {
        CHAIN.with(|c| c.borrow_mut().pop());
    }
}

/// The return type of a specialisation (`Union{}` if it never returns). Callers depend on this
/// rather than on the whole body, so a body edit that keeps the type re-infers no caller.
#[salsa::tracked(returns(clone), cycle_initial = ret_initial, cycle_fn = ret_recover)]
pub fn ret_type(db: &dyn salsa::Database, id: InstanceId) -> Type {
    typed(db, id).func.ret.clone()
}

/// Iterations of a recursive cycle before inference gives up.
const MAX_CYCLE_ITERATIONS: u32 = 64;

fn typed_initial(
    db: &dyn salsa::Database,
    _id: salsa::Id,
    inst: InstanceId,
) -> Arc<InferredFunction> {
    let inst = inst.instance(db);
    let mut func = Function::new(inst.name.clone(), Span::default());
    func.instance = Some(inst.clone());
    func.ret = Type::Bottom;
    Arc::new(InferredFunction {
        func,
        callees: Vec::new(),
        errors: Vec::new(),
    })
}

fn typed_recover(
    _db: &dyn salsa::Database,
    cycle: &salsa::Cycle,
    last: &Arc<InferredFunction>,
    value: Arc<InferredFunction>,
    _id: InstanceId,
) -> Arc<InferredFunction> {
    if cycle.iteration() < MAX_CYCLE_ITERATIONS || value == *last {
        return value;
    }
    // Not converging: settle on the last value with an error, so the cycle ends.
    let mut settled = (**last).clone();
    let fail = zy_infer::TypeError {
        span: last.func.span,
        code: "unsupported",
        message: "unsupported: type inference did not converge (recursion)".into(),
    };
    if !settled.errors.contains(&fail) {
        settled.errors.push(fail);
    }
    Arc::new(settled)
}

fn ret_initial(_db: &dyn salsa::Database, _id: salsa::Id, _inst: InstanceId) -> Type {
    Type::Bottom
}

/// Past the iteration bound, keep the last type so the cycle ends; the instance's body then
/// disagrees with its return type, which [`crate::call::typed_program`] reports.
fn ret_recover(
    _db: &dyn salsa::Database,
    cycle: &salsa::Cycle,
    last: &Type,
    value: Type,
    _id: InstanceId,
) -> Type {
    if cycle.iteration() < MAX_CYCLE_ITERATIONS {
        value
    } else {
        last.clone()
    }
}
