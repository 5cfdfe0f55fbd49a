//! How one untyped statement is typed: a short list of typed steps (conversions, then the
//! resolved operation) and the operand that holds the statement's value.

use zy_ir::{Const, Op, Prim, Type};

/// An operand of a step.
#[derive(Clone, PartialEq, Debug)]
pub(crate) enum Arg {
    /// The statement's `i`-th operand.
    Input(usize),
    /// The value of an earlier step.
    Step(usize),
    Const(Const),
}

/// One typed statement to emit.
#[derive(Clone, PartialEq, Debug)]
pub(crate) struct Step {
    pub op: Op,
    pub args: Vec<Arg>,
    pub ty: Type,
}

/// The typed replacement of one untyped statement.
#[derive(Clone, PartialEq, Debug)]
pub(crate) struct Plan {
    pub steps: Vec<Step>,
    pub result: Arg,
    pub ty: Type,
}

/// Accumulates steps.
#[derive(Default)]
pub(crate) struct PlanBuilder {
    steps: Vec<Step>,
}

impl PlanBuilder {
    /// Append a step and return its value.
    pub fn push(&mut self, op: Op, args: Vec<Arg>, ty: Type) -> Arg {
        self.steps.push(Step { op, args, ty });
        Arg::Step(self.steps.len() - 1)
    }

    /// Append a primitive.
    pub fn prim(&mut self, p: Prim, args: Vec<Arg>, ty: Type) -> Arg {
        self.push(Op::Prim(p), args, ty)
    }

    /// Finish with `result` of type `ty`.
    pub fn finish(self, result: Arg, ty: Type) -> Plan {
        Plan {
            steps: self.steps,
            result,
            ty,
        }
    }
}

/// Emit `plan` at the end of `block` of `out`, where the statement's operands are `inputs`;
/// returns the operand holding the statement's value.
pub(crate) fn emit_plan(
    out: &mut zy_ir::Function,
    block: zy_ir::Block,
    plan: &Plan,
    inputs: &[zy_ir::Operand],
    span: zy_ir::Span,
) -> zy_ir::Operand {
    let mut steps: Vec<zy_ir::Operand> = Vec::with_capacity(plan.steps.len());
    for s in &plan.steps {
        let args = s.args.iter().map(|a| operand(a, inputs, &steps)).collect();
        let v = out.push_stmt(
            block,
            zy_ir::Stmt {
                op: s.op.clone(),
                args,
            },
            s.ty.clone(),
            span,
        );
        steps.push(zy_ir::Operand::Value(v));
    }
    operand(&plan.result, inputs, &steps)
}

fn operand(a: &Arg, inputs: &[zy_ir::Operand], steps: &[zy_ir::Operand]) -> zy_ir::Operand {
    let found = match a {
        Arg::Input(i) => inputs.get(*i),
        Arg::Step(i) => steps.get(*i),
        Arg::Const(c) => return zy_ir::Operand::Const(c.clone()),
    };
    // Plans only refer to existing inputs and earlier steps.
    found
        .cloned()
        .unwrap_or(zy_ir::Operand::Const(Const::Nothing))
}
