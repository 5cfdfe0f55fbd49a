//! The reaching-gradient analysis as a result: per-argument verdicts, uses, loop-carried values.

use crate::common;

use zy_ad::{analyse, ArgGradient, UseSite};
use zy_ir::{Op, Prim, Type, ValueKind};

fn analysed(
    src: &str,
    name: &str,
    args: &[zy_interp::Value],
) -> (zy_ad::Activity, std::sync::Arc<zy_ir::Function>) {
    let (inst, prog) = common::run::typed(src, name, args);
    let f = prog.functions[&inst].clone();
    (analyse(&f), f)
}

#[test]
fn pow_reaches_x_and_not_the_int() {
    let (inst, prog) = common::pow();
    let f = &prog.functions[&inst];
    let a = analyse(f);
    assert_eq!(
        a.args,
        vec![ArgGradient::Reaches, ArgGradient::NotDifferentiable]
    );
    // r (the header's first φ) is carried around the loop and active; the counter is not.
    let header = &f.blocks[1];
    let (r, n) = (header.params[0], header.params[1]);
    assert!(a.values[r.index()].loop_carried && a.is_active(r));
    assert!(a.values[n.index()].loop_carried && !a.is_active(n));
}

#[test]
fn comparison_cuts_the_gradient_of_a_branch_condition() {
    use zy_interp::Value::F64;
    let (a, _) = analysed("h(x, y) = y > 0.0 ? x : 2x", "h", &[F64(1.0), F64(2.0)]);
    assert_eq!(a.args[0], ArgGradient::Reaches);
    assert!(
        matches!(a.args[1], ArgGradient::Cut { op: Prim::Gt, .. }),
        "{:?}",
        a.args[1]
    );
}

#[test]
fn unused_argument_has_no_path() {
    use zy_interp::Value::F64;
    let (a, _) = analysed("k(x, y) = x * 2.0", "k", &[F64(1.0), F64(2.0)]);
    assert_eq!(a.args, vec![ArgGradient::Reaches, ArgGradient::NoPath]);
}

#[test]
fn an_array_read_for_its_length_only_is_inert() {
    use zy_interp::Value;
    let v = Value::vector_f64(vec![1.0, 2.0]);
    let arg0 = |f: &zy_ir::Function| f.args()[0];
    // Never read, or read by `length` and `size` only: every array
    // gets a gradient (a write through an alias could make it useful), a zero the
    // explanation names.
    let (a, f) = analysed("k(x, y) = 10.0 * y", "k", &[v.clone(), Value::F64(2.0)]);
    assert_eq!(a.args, vec![ArgGradient::Reaches, ArgGradient::Reaches]);
    assert!(a.inert(&f, arg0(&f)));
    let (a, f) = analysed("k(x) = 1.0 * length(x) + size(x, 1)", "k", &[v.clone()]);
    assert!(a.inert(&f, arg0(&f)));
    // An element that reaches the result, or a write into the array, is no such use.
    let (a, f) = analysed("k(x) = 2.0 * x[1]", "k", &[v.clone()]);
    assert!(!a.inert(&f, arg0(&f)));
    let (a, f) = analysed("k(x, y) = (x[1] = y; 0.0)", "k", &[v, Value::F64(2.0)]);
    assert!(!a.inert(&f, arg0(&f)));
}

/// An array of Bessel orders built from constants only is varied (an object, as every array
/// is) but carries no gradient, so the refusal of a derivative in the order does not fire; one
/// holding a varied value, or written one, carries it.
#[test]
fn an_array_of_constant_orders_carries_no_gradient() {
    use zy_interp::Value::F64;
    // (varied, carries) of the operand a broadcast applies `besselj` to as its orders.
    let orders = |src: &str| {
        let (a, f) = analysed(src, "k", &[F64(1.5)]);
        let v = f.values.iter().find_map(|d| match &d.kind {
            ValueKind::Stmt(s) if s.op == Op::Prim(Prim::Broadcast) => s.args[1].as_value(),
            _ => None,
        });
        v.map(|v| (a.values[v.index()].varied, a.values[v.index()].carries))
    };
    assert_eq!(
        orders("k(x) = sum(besselj.([0.0, 1.0], x))"),
        Some((true, false))
    );
    assert_eq!(
        orders("k(x) = sum(besselj.([x, 1.0], 2.0))"),
        Some((true, true))
    );
    let written = "function k(x)\n    nus = [0.0, 1.0]\n    nus[1] = x\n    return sum(besselj.(nus, 2.0))\nend";
    assert_eq!(orders(written), Some((true, true)));
    let filled = "function k(x)\n    nus = [0.0, 1.0]\n    nus[1] = 2.0\n    return sum(besselj.(nus, x))\nend";
    assert_eq!(orders(filled), Some((true, false)));
}

#[test]
fn uses_are_listed_with_their_statements() {
    let (inst, prog) = common::paper_ratio();
    let f = &prog.functions[&inst];
    let a = analyse(f);
    let arg_a = f.args()[0];
    let users: Vec<UseSite> = a.values[arg_a.index()]
        .uses
        .iter()
        .map(|(u, _)| *u)
        .collect();
    // a feeds a + b² and a / (a + b²).
    assert_eq!(users.len(), 2);
    assert!(users.iter().all(|u| matches!(u, UseSite::Stmt(_))));
    assert!(f
        .values
        .iter()
        .all(|d| d.ty == Type::Float64 || d.ty == Type::Int64));
}

/// The names of the forward functions in the gradient program of `name(args...)`, and the
/// program, which the AD builds in reverse mode alone (or the error).
fn forward_functions(
    src: &str,
    name: &str,
    args: &[zy_interp::Value],
) -> Result<(Vec<String>, zy_ir::TypedProgram), zy_ad::AdError> {
    let (inst, prog) = common::run::typed(src, name, args);
    let (_, prog) = zy_ad::gradient_program(&prog, &inst)?;
    let mut names: Vec<String> = prog
        .functions
        .keys()
        .filter(|i| i.name.ends_with('⁺'))
        .map(|i| i.name.to_string())
        .collect();
    names.sort();
    Ok((names, prog))
}

/// One function called with a constant first argument, a constant second one and neither has
/// three adjoints; a masked one's pullback gives the constant nothing.
#[test]
fn a_call_is_differentiated_in_the_arguments_that_vary_there() {
    use zy_interp::Value::F64;
    let src = "h(c, x) = c * sin(x)\nk(x) = h(2.0, x) + h(x, 1.0) + h(x, x)";
    let (names, prog) = forward_functions(src, "k", &[F64(0.5)]).unwrap();
    assert_eq!(names, ["h⁺", "h⟨1⟩⁺", "h⟨2⟩⁺", "k⁺"]);
    let back = prog
        .functions
        .iter()
        .find(|(i, _)| &*i.name == "h⟨2⟩⁻")
        .map(|(_, f)| f.ret.clone());
    assert_eq!(
        back,
        Some(Type::tuple([Type::Nothing, Type::Float64])),
        "h⟨2⟩⁻ returns no cotangent for c"
    );
    common::run::check_fd(src, "k", vec![F64(0.5)]);
}

/// A Bessel order constant at the call of a helper is no refusal; one that varies is, by name,
/// marked for forward mode to try.
#[test]
fn a_constant_order_passed_to_a_helper_is_not_differentiated() {
    use zy_interp::Value::F64;
    let jx = "jx(nu, x) = x * besselj(nu, x)\n";
    let constant = format!("{jx}k(x) = jx(1.5, x) + jx(2.5, x)");
    let (names, _) = forward_functions(&constant, "k", &[F64(1.2)]).unwrap();
    assert_eq!(names, ["jx⟨2⟩⁺", "k⁺"]);
    common::run::check_fd(&constant, "k", vec![F64(1.2)]);
    let varied = format!("{jx}k(x) = jx(x, 2.0)");
    let e = forward_functions(&varied, "k", &[F64(1.2)]).unwrap_err();
    assert!(
        e.message.contains("with respect to its order"),
        "{}",
        e.message
    );
    assert!(e.nested_reverse);
}

/// An array made from constants and passed to a helper that only reads it is inactive there.
#[test]
fn a_constant_array_passed_to_a_reader_is_inactive() {
    use zy_interp::Value::F64;
    let src = "poly(c, x) = c[1] + c[2] * x + c[3] * x^2\nk(x) = poly([1.0, 2.0, 3.0], x)";
    let (names, _) = forward_functions(src, "k", &[F64(0.5)]).unwrap();
    assert_eq!(names, ["k⁺", "poly⟨2⟩⁺"]);
    common::run::check_fd(src, "k", vec![F64(0.5)]);
    // Written by the helper, it stays active.
    let writer = "function poly(c, x)\n    c[1] = x\n    return c[1] * c[2]\nend\nk(x) = poly([1.0, 2.0], x)";
    let (names, _) = forward_functions(writer, "k", &[F64(0.5)]).unwrap();
    assert_eq!(names, ["k⁺", "poly⁺"]);
    common::run::check_fd(writer, "k", vec![F64(0.5)]);
}

/// A recursive function whose active argument alternates: the two adjoints call each other.
#[test]
fn recursion_alternates_between_masks() {
    use zy_interp::Value::{Int, F64};
    let src = "swap(a, b, n) = n == 0 ? a * sin(b) : swap(b, a, n - 1)\nk(x, n) = swap(2.0, x, n)";
    let (names, _) = forward_functions(src, "k", &[F64(0.5), Int(3)]).unwrap();
    assert_eq!(names, ["k⁺", "swap⟨1⟩⁺", "swap⟨2⟩⁺"]);
    common::run::check_fd(src, "k", vec![F64(0.5), Int(3)]);
    common::run::check_fd(src, "k", vec![F64(0.5), Int(2)]);
}

/// A Bessel order held in a field of a named tuple, a tuple or a struct, constant at the call of
/// a helper taking the whole value: the helper's adjoint is for the fields that vary (its name
/// lists their paths), reverse mode with no refusal; the order varying is still refused.
#[test]
fn a_constant_field_is_not_differentiated() {
    use zy_interp::Value::F64;
    let jt = "jt(p) = p.x * besselj(p.nu, p.x)\n";
    let named = format!("{jt}k(x) = jt((nu = 1.0, x = x)) + jt((nu = 2.0, x = 2x))");
    let (names, _) = forward_functions(&named, "k", &[F64(1.5)]).unwrap();
    assert_eq!(names, ["jt⟨1.x⟩⁺", "k⁺"]);
    common::run::check_fd(&named, "k", vec![F64(1.5)]);
    let tuple = "jp(p, y) = p[2] * besselj(p[1], y)\nk(x) = jp((1.0, x), x)";
    let (names, _) = forward_functions(tuple, "k", &[F64(1.5)]).unwrap();
    assert_eq!(names, ["jp⟨1.2,2⟩⁺", "k⁺"]);
    common::run::check_fd(tuple, "k", vec![F64(1.5)]);
    let cfg = "struct Cfg\n    scale::Float64\n    nu::Float64\nend\n\
               term(c, x) = c.scale * besselj(c.nu, x)\nk(x) = term(Cfg(x^2, 2.0), x)";
    let (names, _) = forward_functions(cfg, "k", &[F64(1.5)]).unwrap();
    assert_eq!(names, ["k⁺", "term⟨1.scale,2⟩⁺"]);
    common::run::check_fd(cfg, "k", vec![F64(1.5)]);
    let varied = format!("{jt}k(x) = jt((nu = x, x = 2.0))");
    let e = forward_functions(&varied, "k", &[F64(1.5)]).unwrap_err();
    assert!(
        e.message.contains("with respect to its order"),
        "{}",
        e.message
    );
}

/// A closure capturing a constant order, and the tuple of a varargs helper's trailing
/// arguments, are values with fields too.
#[test]
fn closures_and_varargs_hold_constant_fields() {
    use zy_interp::Value::F64;
    let closure =
        "function k(x)\n    nu = 1.0\n    f = t -> x * besselj(nu, t)\n    return f(x)\nend";
    let (names, _) = forward_functions(closure, "k", &[F64(1.5)]).unwrap();
    assert_eq!(names, ["(::#k#1)⟨1.x,2⟩⁺", "k⁺"]);
    common::run::check_fd(closure, "k", vec![F64(1.5)]);
    let varargs = "vj(x, ps...) = ps[2] * besselj(ps[1], x)\nk(x) = vj(x, 1.0, x)";
    let (names, _) = forward_functions(varargs, "k", &[F64(1.5)]).unwrap();
    assert_eq!(names, ["k⁺", "vj⟨1,2.2⟩⁺"]);
    common::run::check_fd(varargs, "k", vec![F64(1.5)]);
}

/// Nested: a struct holding a named tuple whose one field is constant, passed on from one
/// helper to another; each mask is one adjoint however many calls share it.
#[test]
fn a_nested_constant_field_is_passed_on() {
    use zy_interp::Value::F64;
    let src = "struct Model{P}\n    p::P\n    w::Float64\nend\n\
               inner(p, x) = p.a * besselj(p.nu, x)\n\
               outer(m, x) = m.w * inner(m.p, x) + inner(m.p, 2x)\n\
               k(x) = outer(Model((a = x, nu = 1.0), 3.0), x) + outer(Model((a = 2.0, nu = 0.0), x), x)";
    let (names, _) = forward_functions(src, "k", &[F64(0.7)]).unwrap();
    assert_eq!(
        names,
        [
            "inner⟨1.a,2⟩⁺",
            "inner⟨2⟩⁺",
            "k⁺",
            "outer⟨1.p.a,2⟩⁺",
            "outer⟨1.w,2⟩⁺"
        ]
    );
    common::run::check_fd(src, "k", vec![F64(0.7)]);
}

/// A matrix made from constants and sizes (`ones(n, n)`) and passed to a helper that only
/// reads it is inactive there, and the helper's pullback does no work for it: of `A * x`'s two
/// products, only `x̄ += Aᵀ ȳ` is left (`Ā += ȳ xᵀ` with it in `quad⁻`).
#[test]
fn a_constant_matrix_gets_no_pullback_work() {
    use zy_interp::Value;
    let src = "quad(A, x) = sum(x .* (A * x))\n\
               k(x) = quad(ones(length(x), length(x)), x)\n\
               j(x) = quad(x * x', x)";
    let products = |prog: &zy_ir::TypedProgram, name: &str| {
        let f = prog.functions.iter().find(|(i, _)| &*i.name == name);
        f.map(|(_, f)| {
            f.values
                .iter()
                .filter(|d| matches!(&d.kind, ValueKind::Stmt(s) if s.op == Op::Prim(Prim::MatMul)))
                .count()
        })
    };
    let x = Value::vector_f64(vec![0.5, -1.0, 2.0]);
    let (names, prog) = forward_functions(src, "k", &[x.clone()]).unwrap();
    assert_eq!(names, ["k⁺", "quad⟨2⟩⁺"]);
    assert_eq!(products(&prog, "quad⟨2⟩⁻"), Some(1));
    common::run::check_fd(src, "k", vec![x.clone()]);
    let (names, prog) = forward_functions(src, "j", &[x.clone()]).unwrap();
    assert_eq!(names, ["j⁺", "quad⁺"]);
    assert_eq!(products(&prog, "quad⁻"), Some(2));
    common::run::check_fd(src, "j", vec![x]);
}

/// Weights made from sizes and passed to a helper that broadcasts over them: inactive there,
/// the helper's pullback accumulates no gradient into them.
#[test]
fn constant_weights_of_a_broadcast_get_no_pullback_work() {
    use zy_interp::Value;
    let src = "wsum(w, x) = sum(w .* x .^ 2)\n\
               k(x) = wsum(ones(length(x)), x)\n\
               j(x) = wsum(2 .* x, x)";
    let accums = |prog: &zy_ir::TypedProgram, name: &str| {
        let f = prog.functions.iter().find(|(i, _)| &*i.name == name);
        f.map(|(_, f)| {
            f.values
                .iter()
                .filter(
                    |d| matches!(&d.kind, ValueKind::Stmt(s) if s.op == Op::Prim(Prim::AccumInto)),
                )
                .count()
        })
    };
    let x = Value::vector_f64(vec![0.5, -1.0, 2.0]);
    let (names, prog) = forward_functions(src, "k", &[x.clone()]).unwrap();
    assert_eq!(names, ["k⁺", "wsum⟨2⟩⁺"]);
    let (_, all) = forward_functions(src, "j", &[x.clone()]).unwrap();
    assert_eq!(
        accums(&prog, "wsum⟨2⟩⁻"),
        accums(&all, "wsum⁻").map(|n| n - 1)
    );
    common::run::check_fd(src, "k", vec![x.clone()]);
    common::run::check_fd(src, "j", vec![x]);
}

/// How many statements of `p` the pullbacks (`…⁻`) of a gradient program hold.
fn in_pullbacks(prog: &zy_ir::TypedProgram, p: Prim) -> usize {
    prog.functions
        .keys()
        .filter(|i| i.name.ends_with('⁻'))
        .map(|i| in_function(prog, &i.name, p))
        .sum()
}

/// How many statements of `p` the function `name` of a program holds.
fn in_function(prog: &zy_ir::TypedProgram, name: &str, p: Prim) -> usize {
    prog.functions
        .iter()
        .filter(|(i, _)| &*i.name == name)
        .flat_map(|(_, f)| f.values.iter())
        .filter(|d| matches!(&d.kind, ValueKind::Stmt(s) if s.op == Op::Prim(p)))
        .count()
}

/// `A \ b` with a constant `A` (passed to a helper, so inactive in its adjoint): the pullback
/// solves `Aᵀ \ X̄` for `b` and forms no outer product `-B̄ Xᵀ` for `A`; with `A` varying, it
/// does.
#[test]
fn a_constant_matrix_of_a_solve_gets_no_outer_product() {
    use zy_interp::Value;
    let src = "lsq(A, b) = sum((A \\ b) .^ 2)\n\
               k(x) = lsq([2.0 1.0; 1.0 3.0], x)\n\
               j(x) = lsq([2.0 x[1]; 1.0 3.0], x)";
    let x = Value::vector_f64(vec![0.5, -1.5]);
    let (names, prog) = forward_functions(src, "k", &[x.clone()]).unwrap();
    assert_eq!(names, ["k⁺", "lsq⟨2⟩⁺"]);
    assert_eq!(in_pullbacks(&prog, Prim::Solve), 1);
    assert_eq!(in_pullbacks(&prog, Prim::MatMul), 0);
    common::run::check_fd(src, "k", vec![x.clone()]);
    let (names, prog) = forward_functions(src, "j", &[x.clone()]).unwrap();
    assert_eq!(names, ["j⁺", "lsq⁺"]);
    assert_eq!(in_pullbacks(&prog, Prim::Solve), 1);
    assert_eq!(in_pullbacks(&prog, Prim::MatMul), 1);
    common::run::check_fd(src, "j", vec![x]);
}

/// `dot(a, b)` of a constant `a`: only `b̄ += ȳ a` is left (one broadcast where two were).
#[test]
fn a_constant_operand_of_dot_gets_no_gradient_work() {
    use zy_interp::Value;
    let src = "wdot(w, x) = dot(w, x) * x[1]\n\
               k(x) = wdot([1.0, 2.0, 3.0], x)\n\
               j(x) = wdot(x .* 2.0, x)";
    let x = Value::vector_f64(vec![0.5, -1.0, 2.0]);
    let (names, prog) = forward_functions(src, "k", &[x.clone()]).unwrap();
    assert_eq!(names, ["k⁺", "wdot⟨2⟩⁺"]);
    assert_eq!(in_function(&prog, "wdot⟨2⟩⁻", Prim::Broadcast), 1);
    common::run::check_fd(src, "k", vec![x.clone()]);
    let (_, prog) = forward_functions(src, "j", &[x.clone()]).unwrap();
    assert_eq!(in_function(&prog, "wdot⁻", Prim::Broadcast), 2);
    common::run::check_fd(src, "j", vec![x]);
}

/// A matrix made from constants in the function itself and read by `inv`, `det` and a product:
/// `inv(A)` and `det(A)` get no reverse (no `inv` in the pullback, where `det`'s would need
/// one), and the product with the constant `inv(A)` only `x̄ += inv(A)ᵀ ȳ`.
#[test]
fn operations_on_a_constant_matrix_get_no_reverse() {
    use zy_interp::Value;
    let body = |a: &str| {
        format!("function k(x)\n    A = {a}\n    return sum(inv(A) * x) + det(A) * x[1]\nend")
    };
    let x = Value::vector_f64(vec![0.5, -1.0]);
    let constant = body("[2.0 1.0; 1.0 3.0]");
    let (_, prog) = forward_functions(&constant, "k", &[x.clone()]).unwrap();
    assert_eq!(in_pullbacks(&prog, Prim::Inv), 0);
    assert_eq!(in_pullbacks(&prog, Prim::MatMul), 1);
    common::run::check_fd(&constant, "k", vec![x.clone()]);
    let varied = body("[2.0 x[1]; 1.0 3.0]");
    let (_, prog) = forward_functions(&varied, "k", &[x.clone()]).unwrap();
    assert_eq!(in_pullbacks(&prog, Prim::Inv), 1);
    assert!(in_pullbacks(&prog, Prim::MatMul) > 1);
    common::run::check_fd(&varied, "k", vec![x]);
}

/// A helper returning an array it makes (`A .* s`) keeps no constant argument active: a
/// constant `A` with a varying `s` is inactive in its adjoint (`scale⟨2⟩`), and given only
/// constants its result is a constant matrix, whose product does one matmul in the pullback.
#[test]
fn a_helper_returning_a_fresh_array_leaves_constants_inactive() {
    use zy_interp::Value;
    let src = "scale(A, s) = A .* s\n\
               k(x) = sum(scale(ones(2, 2), x[1]) * x)\n\
               m(x) = sum(scale(ones(2, 2), 2.0) * x)\n\
               same(A) = A\n\
               a(x) = sum(same(ones(2, 2)) * x)";
    let x = Value::vector_f64(vec![0.5, -1.5]);
    let (names, _) = forward_functions(src, "k", &[x.clone()]).unwrap();
    assert_eq!(names, ["k⁺", "scale⟨2⟩⁺"]);
    common::run::check_fd(src, "k", vec![x.clone()]);
    let (_, prog) = forward_functions(src, "m", &[x.clone()]).unwrap();
    assert_eq!(in_pullbacks(&prog, Prim::MatMul), 1);
    common::run::check_fd(src, "m", vec![x.clone()]);
    // A helper returning its argument itself hands out an alias: the result stays active.
    let (_, prog) = forward_functions(src, "a", &[x.clone()]).unwrap();
    assert_eq!(in_pullbacks(&prog, Prim::MatMul), 2);
    common::run::check_fd(src, "a", vec![x]);
}

/// Whether each statement of `p` in `k(0.5)`'s body (`src`) is active, in block order.
fn active_of(src: &str, p: Prim) -> Vec<bool> {
    use zy_interp::Value::F64;
    let (a, f) = analysed(src, "k", &[F64(0.5)]);
    f.block_ids()
        .flat_map(|b| f.block(b).stmts.clone())
        .filter(|&v| f.stmt(v).is_some_and(|s| s.op == Op::Prim(p)))
        .map(|v| a.is_active(v))
        .collect()
}

/// A mutable struct or `Ref` made in the function varies field by field as what is stored into
/// it, while the function sees every alias of it; written through another name (a φ, an array
/// or a struct holding it, a callee writing it, a tuple a callee returns), it varies whole.
#[test]
fn a_mutable_struct_varies_as_its_fields_are_written() {
    let cell = "mutable struct Cell\n    a::Float64\n    b::Float64\nend\n\
                mutable struct Holder\n    c::Cell\nend\n\
                seta!(c, v) = (c.a = v; nothing)\n\
                wrapped(c) = (c, 1.0)\n\
                same(c) = c\n";
    let reads = |body: &str| {
        let src = format!(
            "{cell}function k(x)\n    p = Cell(1.0, 2.0)\n{body}\n    return p.a * p.b\nend"
        );
        active_of(&src, Prim::GetField)
    };
    assert_eq!(reads("    p.b = x"), [false, true]);
    assert_eq!(
        reads("    p.a = 3.0\n    p.b = x * p.a"),
        [false, false, true]
    );
    assert_eq!(
        reads("    q = x > 0 ? p : Cell(0.0, 0.0)\n    q.a = x"),
        [true, true]
    );
    assert_eq!(reads("    cs = [p]\n    cs[1].a = x"), [true, true]);
    assert_eq!(
        reads("    h = Holder(p)\n    h.c.a = x"),
        [true, true, true]
    );
    assert_eq!(reads("    seta!(p, x)"), [true, true]);
    assert_eq!(
        reads("    t = wrapped(p)\n    t[1].a = x"),
        [true, true, true]
    );
    assert_eq!(reads("    q = same(p)\n    q.a = x"), [true, true]);
    let refs = |body: &str| {
        let src = format!("function k(x)\n    r = Ref(1.0)\n{body}\n    return r[] * x\nend");
        active_of(&src, Prim::RefGet)
    };
    assert_eq!(refs("    r[] = 2.0"), [false]);
    assert_eq!(refs("    r[] = x^2"), [true]);
}

/// A Bessel order in a mutable struct (made here or by a callee returning a fresh one) or a
/// `Ref` holding a constant is a constant of the helper's adjoint (`jm⟨1.scale,2⟩`, `jr⟨2⟩`);
/// written a varying value, it is refused by name.
#[test]
fn a_constant_field_of_a_mutable_struct_is_not_differentiated() {
    use zy_interp::Value::F64;
    let src = "mutable struct S\n    nu::Float64\n    scale::Float64\nend\n\
               jm(p, x) = p.scale * besselj(p.nu, x)\n\
               jr(r, x) = x * besselj(r[], x)\n\
               k(x) = (p = S(1.0, 0.0); p.scale = x; jm(p, x))\n\
               j(x) = jr(Ref(2.0), x)\n\
               v(x) = (p = S(1.0, 0.0); p.nu = x; jm(p, 2.0))\n\
               S(nu) = S(nu, 0.0)\n\
               c(x) = (p = S(1.0); p.scale = x; jm(p, x))";
    let (names, _) = forward_functions(src, "k", &[F64(1.5)]).unwrap();
    assert_eq!(names, ["jm⟨1.scale,2⟩⁺", "k⁺"]);
    common::run::check_fd(src, "k", vec![F64(1.5)]);
    let (names, _) = forward_functions(src, "j", &[F64(1.5)]).unwrap();
    assert_eq!(names, ["jr⟨2⟩⁺", "j⁺"]);
    common::run::check_fd(src, "j", vec![F64(1.5)]);
    // Made by a callee returning a fresh object: the same.
    let (names, _) = forward_functions(src, "c", &[F64(1.5)]).unwrap();
    assert_eq!(names, ["c⁺", "jm⟨1.scale,2⟩⁺"]);
    common::run::check_fd(src, "c", vec![F64(1.5)]);
    let e = forward_functions(src, "v", &[F64(1.5)]).unwrap_err();
    assert!(
        e.message.contains("with respect to its order"),
        "{}",
        e.message
    );
}

/// A call given only constants calls the primal: the program holds no adjoint of the callee,
/// where a call with a varying argument does.
#[test]
fn a_call_given_only_constants_has_no_adjoint() {
    use zy_interp::Value;
    let src = "mk(n) = fill(2.0, n, n)\n\
               asum(A) = sum(A)\n\
               k(x) = asum(mk(2)) * x[1] + sum(mk(2) * x)\n\
               j(x) = asum(x * x')";
    let x = Value::vector_f64(vec![0.5, -1.5]);
    let (names, _) = forward_functions(src, "k", &[x.clone()]).unwrap();
    assert_eq!(names, ["k⁺"]);
    common::run::check_fd(src, "k", vec![x.clone()]);
    let (names, _) = forward_functions(src, "j", &[x.clone()]).unwrap();
    assert_eq!(names, ["asum⁺", "j⁺"]);
    common::run::check_fd(src, "j", vec![x]);
}
