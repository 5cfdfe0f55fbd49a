//! A variable-based SSA builder over [`Function`], in the manner of Cranelift's
//! `FunctionBuilder`: passes that produce IR (the AD transform above all) assign *variables*
//! in blocks and read them back, and the builder inserts the block parameters (φ nodes) and jump
//! arguments, following Braun et al., "Simple and Efficient Construction of Static Single
//! Assignment Form" (incomplete φs for unsealed blocks, trivial-φ removal).
//!
//! Protocol: add every block's own parameters before reading variables in it; set a block's
//! terminator (through [`set_term`](SsaBuilder::set_term) where blocks are sealed one by one)
//! before sealing its successors; [`seal_block`](SsaBuilder::seal_block) a block once all its
//! predecessors' terminators are in place. A read of a variable that no definition
//! reaches on some path gets the variable's *initialiser* (by default `undef(:name)`), computed
//! once at the top of the entry block.

use rustc_hash::FxHashMap;

use crate::func::{Block, Const, Function, Operand, Span, Stmt, Terminator, Value, ValueKind};
use crate::ops::{Op, Prim};
use crate::types::{Name, Type};

/// A mutable variable of the builder (not an SSA value).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Var(pub u32);

struct VarData {
    ty: Type,
    name: Option<Name>,
    init: VarInit,
}

/// What a read of a variable sees where no definition reaches.
#[derive(Clone, Debug)]
pub enum VarInit {
    /// A constant.
    Const(Const),
    /// The result of this statement (its operands must be constants), placed once at the top
    /// of the entry block when first needed.
    Stmt(Stmt),
}

/// The builder: owns the function being built (public, so passes push statements into it
/// directly) and the variable bookkeeping.
pub struct SsaBuilder {
    /// The function under construction.
    pub func: Function,
    vars: Vec<VarData>,
    defs: FxHashMap<(Var, Block), Operand>,
    /// Sealed blocks with their predecessors, which cannot change once sealed (computing them
    /// on every read made construction quadratic in the number of blocks).
    sealed: FxHashMap<Block, Vec<Block>>,
    /// By block index: the blocks whose terminators, set through
    /// [`set_term`](SsaBuilder::set_term), jump to it, in block order (finding them by a scan of
    /// every block at each seal made a chain of thousands of `elseif`s quadratic).
    preds: Vec<Vec<Block>>,
    incomplete: FxHashMap<Block, Vec<(Var, Value)>>,
    /// Live φs created by the builder: the variable they stand for and their operand per
    /// predecessor (turned into jump arguments by [`finish`](SsaBuilder::finish)).
    phis: FxHashMap<Value, (Var, Vec<(Block, Operand)>)>,
    /// Removed φs and what replaced them.
    replaced: FxHashMap<Value, Operand>,
    /// For a value, the builder φs that may have it as an operand (so that removing a trivial φ
    /// visits its users only, not every φ).
    phi_users: FxHashMap<Value, Vec<Value>>,
    /// While [`seal_all_blocks`](SsaBuilder::seal_all_blocks) runs: uses of removed φs in
    /// statements and terminators are rewritten in one pass at its end rather than one pass
    /// over the function per removed φ (quadratic in a function of thousands of statements).
    deferred: bool,
    /// Removed φs still among their blocks' parameters while deferred.
    removed_params: rustc_hash::FxHashSet<Value>,
    /// Initialiser statements already placed in the entry block, by variable.
    inits: FxHashMap<Var, Value>,
}

impl SsaBuilder {
    /// Start building on `func` (typically fresh from [`Function::new`]). The entry block is
    /// sealed: it has no predecessors.
    pub fn new(func: Function) -> SsaBuilder {
        let mut sealed = FxHashMap::default();
        sealed.insert(Block::ENTRY, Vec::new());
        SsaBuilder {
            func,
            vars: Vec::new(),
            defs: FxHashMap::default(),
            sealed,
            preds: Vec::new(),
            incomplete: FxHashMap::default(),
            phis: FxHashMap::default(),
            replaced: FxHashMap::default(),
            phi_users: FxHashMap::default(),
            deferred: false,
            removed_params: Default::default(),
            inits: FxHashMap::default(),
        }
    }

    /// Seal every block, append the builder φs' operands to the jumps into their blocks, and
    /// return the function. Jumps must already pass the arguments of the blocks' own parameters
    /// (those added by the caller before any builder φ).
    pub fn finish(mut self) -> Function {
        self.seal_all_blocks();
        for b in self.func.block_ids().collect::<Vec<_>>() {
            let phis: Vec<Value> = self
                .func
                .block(b)
                .params
                .iter()
                .copied()
                .filter(|p| self.phis.contains_key(p))
                .collect();
            for phi in phis {
                let ops = self.phis[&phi].1.clone();
                for (pred, op) in ops {
                    for call in self.func.block_mut(pred).term.calls_mut() {
                        if call.block == b {
                            call.args.push(op.clone());
                        }
                    }
                }
            }
        }
        self.func
    }

    /// A new variable of type `ty` whose undefined reads are `undef(:var)`.
    pub fn declare_var(&mut self, ty: Type) -> Var {
        let init = Stmt {
            op: Op::Prim(Prim::Undef),
            args: vec![Const::Symbol("var".into()).into()],
        };
        self.declare_var_with_init(ty, None, VarInit::Stmt(init))
    }

    /// A new variable with a source-level `name` (given to the φs it creates) and its value
    /// where no definition reaches.
    pub fn declare_var_with_init(&mut self, ty: Type, name: Option<Name>, init: VarInit) -> Var {
        let v = Var(self.vars.len() as u32);
        self.vars.push(VarData { ty, name, init });
        v
    }

    /// The type of a variable.
    pub fn var_ty(&self, var: Var) -> &Type {
        &self.vars[var.0 as usize].ty
    }

    /// Assign `var := value` at the current end of `block`.
    pub fn def_var(&mut self, block: Block, var: Var, value: impl Into<Operand>) {
        self.defs.insert((var, block), value.into());
    }

    /// The value of `var` at the current end of `block`.
    pub fn use_var(&mut self, block: Block, var: Var) -> Operand {
        if let Some(op) = self.defs.get(&(var, block)) {
            return self.resolve(op.clone());
        }
        self.use_var_recursive(block, var)
    }

    fn use_var_recursive(&mut self, block: Block, var: Var) -> Operand {
        let op = match self.sealed.get(&block).cloned() {
            None => {
                let phi = self.add_phi(block, var);
                self.incomplete.entry(block).or_default().push((var, phi));
                Operand::Value(phi)
            }
            Some(preds) if block == Block::ENTRY || preds.is_empty() => self.init_value(var),
            Some(preds) if preds.len() == 1 => self.use_var(preds[0], var),
            Some(_) => {
                let phi = self.add_phi(block, var);
                // Break cycles: the φ is the definition while its operands are looked up.
                self.def_var(block, var, phi);
                self.add_phi_operands(block, var, phi)
            }
        };
        self.def_var(block, var, op.clone());
        op
    }

    fn init_value(&mut self, var: Var) -> Operand {
        if let Some(&v) = self.inits.get(&var) {
            return v.into();
        }
        let data = &self.vars[var.0 as usize];
        let (stmt, ty) = match &data.init {
            VarInit::Const(c) => return c.clone().into(),
            VarInit::Stmt(s) => (s.clone(), data.ty.clone()),
        };
        let v = self.func.push_stmt(Block::ENTRY, stmt, ty, Span::default());
        // Move it to the top of the entry block: its operands are constants.
        let stmts = &mut self.func.block_mut(Block::ENTRY).stmts;
        stmts.pop();
        stmts.insert(0, v);
        self.inits.insert(var, v);
        v.into()
    }

    fn add_phi(&mut self, block: Block, var: Var) -> Value {
        let data = &self.vars[var.0 as usize];
        let (ty, name) = (data.ty.clone(), data.name.clone());
        let phi = self.func.add_param(block, ty, Span::default(), name);
        self.phis.insert(phi, (var, Vec::new()));
        phi
    }

    /// Give `phi` (a parameter of `block`) one operand per predecessor, then remove it if it
    /// turns out trivial.
    fn add_phi_operands(&mut self, block: Block, var: Var, phi: Value) -> Operand {
        let mut ops = Vec::new();
        for pred in self.sealed.get(&block).cloned().unwrap_or_default() {
            ops.push((pred, self.use_var(pred, var)));
        }
        // Operands looked up meanwhile may have replaced φs this one refers to.
        let ops = ops
            .into_iter()
            .map(|(b, op)| (b, self.resolve(op)))
            .collect::<Vec<_>>();
        for (_, op) in &ops {
            if let Operand::Value(v) = op {
                self.phi_users.entry(*v).or_default().push(phi);
            }
        }
        if let Some(entry) = self.phis.get_mut(&phi) {
            entry.1 = ops;
        }
        self.try_remove_trivial_phi(phi)
    }

    /// Set how `block` ends, recording its jumps as the predecessors
    /// [`seal_block`](SsaBuilder::seal_block) gives its successors.
    pub fn set_term(&mut self, block: Block, term: Terminator, span: Span) {
        for s in self.func.block(block).term.successors() {
            if let Some(ps) = self.preds.get_mut(s.index()) {
                ps.retain(|&p| p != block);
            }
        }
        for s in term.successors() {
            if self.preds.len() <= s.index() {
                self.preds.resize(s.index() + 1, Vec::new());
            }
            let ps = &mut self.preds[s.index()];
            if let Err(at) = ps.binary_search(&block) {
                ps.insert(at, block);
            }
        }
        self.func.set_term(block, term, span);
    }

    /// Declare that every predecessor of `block` has its terminator, set through
    /// [`set_term`](SsaBuilder::set_term): complete its pending φs.
    pub fn seal_block(&mut self, block: Block) {
        if self.sealed.contains_key(&block) {
            return;
        }
        let preds = self.preds.get(block.index()).cloned().unwrap_or_default();
        self.sealed.insert(block, preds);
        for (var, phi) in self.incomplete.remove(&block).unwrap_or_default() {
            self.add_phi_operands(block, var, phi);
        }
    }

    /// Seal every block not sealed yet.
    pub fn seal_all_blocks(&mut self) {
        let outer = std::mem::replace(&mut self.deferred, true);
        self.seal_remaining_blocks();
        self.deferred = outer;
        if !outer {
            self.resolve_all_uses();
            self.drop_removed_params();
        }
    }

    fn seal_remaining_blocks(&mut self) {
        let preds = self.func.predecessors();
        for b in self.func.block_ids().collect::<Vec<_>>() {
            if let std::collections::hash_map::Entry::Vacant(slot) = self.sealed.entry(b) {
                slot.insert(preds[b.index()].clone());
                for (var, phi) in self.incomplete.remove(&b).unwrap_or_default() {
                    self.add_phi_operands(b, var, phi);
                }
            }
        }
    }

    /// If every operand of `phi` is `phi` itself or one other operand, replace `phi` by that
    /// operand everywhere and drop it; then retry the φs that used it.
    fn try_remove_trivial_phi(&mut self, phi: Value) -> Operand {
        let Some((var, ops)) = self.phis.get(&phi) else {
            return self.resolve(Operand::Value(phi));
        };
        let var = *var;
        let mut same: Option<Operand> = None;
        for (_, op) in ops {
            if *op == Operand::Value(phi) || Some(op) == same.as_ref() {
                continue;
            }
            if same.is_some() {
                return Operand::Value(phi);
            }
            same = Some(op.clone());
        }
        // No operand: an unreachable block, or a φ fed only by itself.
        let replacement = match same {
            Some(op) => op,
            None => self.init_value(var),
        };
        self.phis.remove(&phi);
        self.remove_param(phi);
        self.replaced.insert(phi, replacement.clone());
        let users = self.replace_uses(phi, &replacement);
        for user in users {
            if self.phis.contains_key(&user) && !self.is_incomplete(user) {
                self.try_remove_trivial_phi(user);
            }
        }
        self.resolve(replacement)
    }

    fn is_incomplete(&self, phi: Value) -> bool {
        self.incomplete
            .values()
            .any(|list| list.iter().any(|(_, p)| *p == phi))
    }

    /// Follow the chain of removed φs to the operand that now stands for `op`.
    fn resolve(&self, mut op: Operand) -> Operand {
        while let Operand::Value(v) = op {
            match self.replaced.get(&v) {
                Some(next) => op = next.clone(),
                None => return Operand::Value(v),
            }
        }
        op
    }

    /// Remove the builder φ `phi` from its block's parameters (while deferred, later, with the
    /// others: one at a time is quadratic in a block of thousands of φs).
    fn remove_param(&mut self, phi: Value) {
        if self.deferred {
            self.removed_params.insert(phi);
            return;
        }
        let ValueKind::Param { block, index } = self.func.value(phi).kind else {
            return;
        };
        let i = index as usize;
        self.func.block_mut(block).params.remove(i);
        let params = self.func.block(block).params.clone();
        for (j, p) in params.into_iter().enumerate().skip(i) {
            self.func.values[p.index()].kind = ValueKind::Param {
                block,
                index: j as u32,
            };
        }
    }

    /// Replace every use of `old` by `new` (statements, terminators, φ operands; variable
    /// definitions resolve when read); return the builder φs that used it. Statements and
    /// terminators wait for [`resolve_all_uses`](SsaBuilder::resolve_all_uses) while deferred.
    fn replace_uses(&mut self, old: Value, new: &Operand) -> Vec<Value> {
        let target = Operand::Value(old);
        if !self.deferred {
            let swap = |a: &mut Operand| {
                if *a == target {
                    *a = new.clone();
                }
            };
            for b in self.func.block_ids().collect::<Vec<_>>() {
                self.for_each_use(b, swap);
            }
        }
        let mut users = Vec::new();
        for p in self.phi_users.remove(&old).unwrap_or_default() {
            let Some((_, ops)) = self.phis.get_mut(&p) else {
                continue;
            };
            let mut used = false;
            for (_, op) in ops.iter_mut() {
                if *op == target {
                    *op = new.clone();
                    used = true;
                }
            }
            if used {
                users.push(p);
                if let Operand::Value(v) = new {
                    self.phi_users.entry(*v).or_default().push(p);
                }
            }
        }
        users.sort();
        users.dedup();
        users
    }

    /// Removes the parameters [`remove_param`](SsaBuilder::remove_param) deferred.
    fn drop_removed_params(&mut self) {
        if self.removed_params.is_empty() {
            return;
        }
        let removed = std::mem::take(&mut self.removed_params);
        for block in self.func.block_ids().collect::<Vec<_>>() {
            let params = &mut self.func.block_mut(block).params;
            if !params.iter().any(|p| removed.contains(p)) {
                continue;
            }
            params.retain(|p| !removed.contains(p));
            let params = params.clone();
            for (index, p) in params.into_iter().enumerate() {
                self.func.values[p.index()].kind = ValueKind::Param {
                    block,
                    index: index as u32,
                };
            }
        }
    }

    /// Every use of a removed φ in a statement or terminator, replaced by what stands for it.
    fn resolve_all_uses(&mut self) {
        if self.replaced.is_empty() {
            return;
        }
        let replaced = std::mem::take(&mut self.replaced);
        let resolve = |a: &mut Operand| {
            while let Operand::Value(v) = a {
                match replaced.get(v) {
                    Some(next) => *a = next.clone(),
                    None => break,
                }
            }
        };
        for b in self.func.block_ids().collect::<Vec<_>>() {
            self.for_each_use(b, resolve);
        }
        self.replaced = replaced;
    }

    /// Applies `f` to every operand of `b`'s statements and terminator.
    fn for_each_use(&mut self, b: Block, mut f: impl FnMut(&mut Operand)) {
        let func = &mut self.func;
        for i in 0..func.block(b).stmts.len() {
            let v = func.block(b).stmts[i];
            if let ValueKind::Stmt(s) = &mut func.values[v.index()].kind {
                s.args.iter_mut().for_each(&mut f);
            }
        }
        let term = &mut func.block_mut(b).term;
        match term {
            Terminator::Return(x) => f(x),
            Terminator::Branch { cond, .. } => f(cond),
            _ => {}
        }
        for call in term.calls_mut() {
            call.args.iter_mut().for_each(&mut f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::func::BlockCall;
    use crate::print::print_function;

    fn prim(p: Prim, args: Vec<Operand>) -> Stmt {
        Stmt {
            op: Op::Prim(p),
            args,
        }
    }

    /// `r = 1.0; i = 0; while i < n; r = r * x; i = i + 1; end; return r`, written with
    /// variables: the header gets φs for `r` and `i`, nothing for the loop-invariant `x`.
    #[test]
    fn loop_gets_phis_only_for_reassigned_variables() {
        let mut f = Function::new("pow", Span::default());
        f.ret = Type::Float64;
        let x = f.add_param(
            Block::ENTRY,
            Type::Float64,
            Span::default(),
            Some("x".into()),
        );
        let n = f.add_param(Block::ENTRY, Type::Int64, Span::default(), Some("n".into()));
        let header = f.add_block();
        let body = f.add_block();
        let exit = f.add_block();
        let mut b = SsaBuilder::new(f);
        let init = |c: Const| prim(Prim::Add, vec![c.clone().into(), c.into()]);
        let r = b.declare_var_with_init(
            Type::Float64,
            Some("r".into()),
            VarInit::Stmt(init(Const::f64(0.0))),
        );
        let i =
            b.declare_var_with_init(Type::Int64, Some("i".into()), VarInit::Const(Const::Int(0)));
        let xv = b.declare_var(Type::Float64);
        b.def_var(Block::ENTRY, r, Const::f64(1.0));
        b.def_var(Block::ENTRY, i, Const::Int(0));
        b.def_var(Block::ENTRY, xv, x);
        b.set_term(
            Block::ENTRY,
            Terminator::Jump(BlockCall::new(header)),
            Span::default(),
        );
        // Header: not sealed until the back edge exists.
        let iv = b.use_var(header, i);
        let c = b.func.push_stmt(
            header,
            prim(Prim::Lt, vec![iv, n.into()]),
            Type::Bool,
            Span::default(),
        );
        b.set_term(
            header,
            Terminator::Branch {
                cond: c.into(),
                then_to: BlockCall::new(body),
                else_to: BlockCall::new(exit),
            },
            Span::default(),
        );
        b.seal_block(body);
        let (rv, xx, iv) = (b.use_var(body, r), b.use_var(body, xv), b.use_var(body, i));
        let r2 = b.func.push_stmt(
            body,
            prim(Prim::Mul, vec![rv, xx]),
            Type::Float64,
            Span::default(),
        );
        let i2 = b.func.push_stmt(
            body,
            prim(Prim::Add, vec![iv, Const::Int(1).into()]),
            Type::Int64,
            Span::default(),
        );
        b.def_var(body, r, r2);
        b.def_var(body, i, i2);
        b.set_term(
            body,
            Terminator::Jump(BlockCall::new(header)),
            Span::default(),
        );
        b.seal_block(header);
        b.seal_block(exit);
        let out = b.use_var(exit, r);
        b.set_term(exit, Terminator::Return(out), Span::default());
        let f = b.finish();
        assert_eq!(crate::verify::verify(&f), Vec::<String>::new());
        expect_test::expect![[r#"
            pow(%1::Float64, %2::Int64) :: Float64
            #1:
              br #2
            #2:
              %3 = φ(#1 → 0, #3 → %8) :: Int64      # i
              %5 = φ(#1 → 1.0, #3 → %7) :: Float64  # r
              %4 = %3 < %2 :: Bool
              br %4 ? #3 : #4
            #3:
              %7 = %5 * %1 :: Float64
              %8 = %3 + 1 :: Int64
              br #2
            #4:
              return %5
        "#]]
        .assert_eq(&print_function(&f));
    }
}
