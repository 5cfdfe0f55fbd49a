//! The whole program as dispatch sees it: every generic function's method signatures, every
//! struct and binding, with bodies replaced by one empty stub. A body edit leaves it equal, so
//! the instances that only *call* the edited function are not re-inferred.

use std::collections::BTreeMap;
use std::sync::Arc;

use zy_ir::{Function, Name, Program, Span};
use zy_lower::{LowerError, LoweredItem};

use crate::input::Workspace;
use crate::item::{item_tree, ItemId};
use crate::lower::ssa;

/// The program's signatures and where each body comes from.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ProgramIndex {
    /// Every method, struct and binding, with bodies stubbed out.
    pub program: Program,
    /// For every generic function, in method order: the item each method was lowered from and
    /// its index among that item's methods.
    pub method_origin: BTreeMap<Name, Vec<(ItemId, usize)>>,
    /// The item each top-level binding was lowered from.
    pub global_origin: BTreeMap<Name, ItemId>,
    /// Problems found combining items (a struct or binding defined twice), each with the item
    /// whose span it carries.
    pub errors: Vec<LowerError>,
}

/// The signatures of the whole workspace.
#[salsa::tracked(returns(ref))]
pub fn program_index(db: &dyn salsa::Database, ws: Workspace) -> Arc<ProgramIndex> {
    let stub = Arc::new(Function::new("#stub", Span::default()));
    let mut index = ProgramIndex::default();
    for &file in ws.files(db) {
        for &item in item_tree(db, file) {
            let lowered = ssa(db, item);
            for (i, (name, _)) in lowered.methods.iter().enumerate() {
                index.method_origin.entry(name.clone()).or_default().push((item, i));
            }
            for g in &lowered.globals {
                index.global_origin.insert(g.name.clone(), item);
            }
            stubbed(lowered, &stub).add_to(&mut index.program, &mut index.errors);
        }
    }
    Arc::new(index)
}

/// The whole untyped program with its bodies (for consumers that need every body at once, such
/// as the AD's lookup of in-source `rrule`s). Changes with every body edit.
#[salsa::tracked(returns(ref))]
pub fn full_program(db: &dyn salsa::Database, ws: Workspace) -> Arc<Program> {
    let mut program = Program::default();
    let mut errors = Vec::new();
    for &file in ws.files(db) {
        for &item in item_tree(db, file) {
            let mut lowered = (**ssa(db, item)).clone();
            lowered.errors.clear();
            lowered.add_to(&mut program, &mut errors);
        }
    }
    Arc::new(program)
}

/// A copy of `item` without its bodies and errors (those are reported per item).
fn stubbed(item: &LoweredItem, stub: &Arc<Function>) -> LoweredItem {
    let mut item = item.clone();
    item.errors.clear();
    for (_, m) in &mut item.methods {
        m.body = stub.clone();
    }
    for g in &mut item.globals {
        g.body = stub.clone();
    }
    item
}

impl ProgramIndex {
    /// The program with the real body of the method or binding `name`/`method` put back
    /// (bodies come from `ssa` of the item they were lowered from).
    pub fn with_body(&self, db: &dyn salsa::Database, name: &Name, method: u32) -> Program {
        let mut program = self.program.clone();
        if method == zy_infer::GLOBAL_METHOD {
            if let (Some(&item), Some(g)) =
                (self.global_origin.get(name), program.globals.get_mut(name))
            {
                if let Some(real) = ssa(db, item).globals.iter().find(|r| &r.name == name) {
                    g.body = real.body.clone();
                }
            }
        } else if let Some(&(item, i)) =
            self.method_origin.get(name).and_then(|o| o.get(method as usize))
        {
            let real = ssa(db, item).methods.get(i).map(|(_, m)| m.body.clone());
            let slot = program.functions.get_mut(name).and_then(|gf| gf.methods.get_mut(method as usize));
            if let (Some(real), Some(slot)) = (real, slot) {
                slot.body = real;
            }
        }
        program
    }
}
