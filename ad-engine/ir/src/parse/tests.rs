use std::sync::Arc;

use expect_test::{expect, Expect};
use proptest::prelude::*;

use super::*;
use crate::print::{print_function, print_structs};

/// Parse `text` and print it back: the same text.
fn round_trip(text: &str) -> Module {
    let m = parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut out = String::new();
    for st in &m.structs {
        out.push_str(&crate::print_struct(st));
        out.push('\n');
    }
    out.push_str(
        &m.functions
            .iter()
            .map(print_function)
            .collect::<Vec<_>>()
            .join("\n"),
    );
    assert_eq!(out, text);
    m
}

const UNTYPED: &str = r##"f(%1, %2)   # x, #self#
#1:
  %3 = %1 + 2.5                         # y
  %4 = -%3
  %5 = !true
  %6 = -1 - %4
  %7 = %6 - -1
  %8 = --0.0
  %9 = -(%1, %2, 3)
  %10 = %(%1, %2, %3)
  %11 = %1 % %2
  %12 = %1 .^ %2
  %13 = broadcast(-, %1, sin)
  %14 = %3(%1, :x)
  %15 = closure var"#g#1"(%1, %3)
  %16 = global offset
  %17 = namedtuple((:a, :b), %1, %2)
  %18 = error("a \"quoted\" line\nand\ttab \u{7f}")
  %19 = (::Dense)(%1)
  %20 = tuple((1,), (), nothing, NaN, Inf, -Inf, 1.0e-5, -9223372036854775808)
  br %5 ? #2 : #3
#2:
  br #4
#3:
  %22 = getfield(%1, :b)
  br #4
#4:
  %23 = φ(#2 → %3, #3 → %22)            # z
  %24 = φ(#2 → 1, #3 → %22)
  return %23
"##;

#[test]
fn untyped_ir_reads_back_to_its_text() {
    let m = round_trip(UNTYPED);
    let f = &m.functions[0];
    assert_eq!(f.instance, None);
    assert_eq!(f.arg_names, [Name::from("x"), Name::from("#self#")]);
    // %21 is skipped: a placeholder no block lists.
    assert_eq!(f.values.len(), 24);
    let stmt = |n: u32| f.stmt(Value(n - 1)).cloned();
    assert_eq!(stmt(4).map(|s| s.op), Some(Op::Call("-".into())));
    assert_eq!(
        stmt(9).map(|s| (s.op, s.args.len())),
        Some((Op::Call("-".into()), 3))
    );
    assert_eq!(stmt(14).map(|s| s.op), Some(Op::CallValue));
    assert_eq!(
        stmt(8).map(|s| s.args),
        Some(vec![Operand::Const(Const::f64(-0.0))])
    );
    let text = stmt(18).and_then(|s| s.args.first().cloned());
    assert_eq!(
        text,
        Some(Operand::Const(Const::Str(
            "a \"quoted\" line\nand\ttab \u{7f}".into()
        )))
    );
    // Jump arguments come from the φ nodes.
    let Terminator::Jump(call) = &f.blocks[2].term else {
        panic!("{:?}", f.blocks[2].term)
    };
    assert_eq!(
        call.args,
        [Operand::Value(Value(21)), Operand::Value(Value(21))]
    );
    assert!(crate::verify(f).is_empty(), "{:?}", crate::verify(f));
}

const TYPED: &str = r##"struct Point{Float64}
  x::Float64
  y::Float64
end

mutable struct Acc
  total::Float64
  p::Point{Float64}
end

closure var"#sq#1"
  a::Float64
end

g(%1::Point{Float64}, %2::Acc, %3::var"#sq#1") :: Tuple{Float64, Pullback{typeof(g), Point{Float64}, Acc}}   # p, acc
#1:
  %4 = getfield(%1, 1) :: Float64
  %5 = stack() :: Stack{Tuple{Float64, Int64}} # stk#1
  %6 = new Point{Float64}(%4, 2.0) :: Point{Float64}
  %7 = invoke (::#sq#1)(%3, %4) :: Float64
  %8 = invoke g(%1, %2, %3) :: Tuple{Float64, Pullback{typeof(g), Point{Float64}, Acc}}
  %9 = namedtuple((:a,), %4) :: (a = Float64,)
  %10 = zero_tangent() :: ()
  %11 = Ref(%9) :: Ref{(a = Float64,)}
  %12 = zeros(2, 3) :: Matrix{Float64}
  %13 = adjoint(%12) :: Adjoint{Float64, Vector{Float64}}
  %14 = undef(:r) :: Union{}
  %15 = similar(%12) :: Array{Float64, 3}
  %16 = -%4 :: Float64
  %17 = %4 > 0.0 :: Bool
  %18 = make_pullback(g⁻, 0, %5) :: Pullback{typeof(g), Point{Float64}, Acc}
  br %17 ? #2 : #3
#2:
  %19 = setfield!(%2, 1, %4) :: Float64
  br #4
#3:
  unreachable
#4:
  %20 = φ(#2 → %19) :: Float64          # r
  %21 = tuple(%20, %18) :: Tuple{Float64, Pullback{typeof(g), Point{Float64}, Acc}}
  return %21
"##;

#[test]
fn typed_ir_reads_back_to_its_text() {
    let m = round_trip(TYPED);
    let f = &m.functions[0];
    let arg_types: Vec<String> = f
        .instance
        .iter()
        .flat_map(|i| i.args.iter().map(|t| t.to_string()))
        .collect();
    assert_eq!(arg_types, ["Point{Float64}", "Acc", "var\"#sq#1\""]);
    let Some(Stmt {
        op: Op::Invoke(inst),
        ..
    }) = f.stmt(Value(6))
    else {
        panic!()
    };
    assert_eq!(inst.to_string(), "(::#sq#1)(::var\"#sq#1\", ::Float64)");
    assert_eq!(f.stmt(Value(15)).map(|s| &s.op), Some(&Op::Prim(Prim::Neg)));
    let Type::Struct(acc) = f.ty(Value(1)) else {
        panic!()
    };
    assert!(acc.mutable);
    assert_eq!(acc.fields[1].1, *f.ty(Value(0)));
    assert_eq!(
        print_structs(f),
        TYPED.split("g(%1").next().unwrap_or_default()
    );
    // The make_pullback statement names the pullback's instance.
    let pb = "g⁻(%1::Stack{Tuple{Float64, Int64}}, %2::Float64) :: Float64\n#1:\n  return %2\n";
    let prog = parse_module(&format!("{TYPED}\n{pb}"))
        .map(|m| m.program())
        .unwrap_or_default();
    let keys: Vec<String> = prog.functions.keys().map(|k| k.to_string()).collect();
    assert_eq!(
        keys,
        [
            "g(::Point{Float64}, ::Acc, ::var\"#sq#1\")",
            "g⁻(::typeof(g), ::Point{Float64}, ::Acc)"
        ]
    );
}

/// Julia's own union is written as Julia writes it, and an abstract type's with its name
/// before its members.
const UNIONS: &str = r##"f(%1::Union{Float64, Int64}, %2::Union{var"Shape", Float64, Int64}) :: Union{Nothing, Float64}
#1:
  %3 = union_convert(nothing) :: Union{Nothing, Float64}
  return %3
"##;

#[test]
fn julias_unions_read_back_as_julia_writes_them() {
    let m = round_trip(UNIONS);
    let f = &m.functions[0];
    let Type::Union(u) = f.ty(Value(0)) else {
        panic!()
    };
    assert_eq!(&*u.name, "Union{Float64, Int64}");
    assert_eq!(u.members, [Type::Float64, Type::Int64]);
    assert!(u.is_julias());
    let Type::Union(shape) = f.ty(Value(1)) else {
        panic!()
    };
    assert!(!shape.is_julias());
    assert_eq!(f.ret.to_string(), "Union{Nothing, Float64}");
}

/// Two methods of `h` specialised at `Float64` (the general one reached by `invoke`): the
/// method after `@` keeps them apart, and the first method's text has none.
const TWO_METHODS: &str = r##"h@1(%1::Float64) :: Float64
#1:
  return 1.0

h@2(%1::Float64) :: Float64
#1:
  %2 = invoke h@1(%1) :: Float64
  %3 = invoke k(%1) :: Float64
  %4 = %2 + %3 :: Float64
  return %4
"##;

#[test]
fn methods_at_the_same_types_read_back_apart() {
    let m = round_trip(TWO_METHODS);
    let keys: Vec<(String, u32)> = m
        .program()
        .functions
        .keys()
        .map(|k| (k.to_string(), k.method))
        .collect();
    assert_eq!(
        keys,
        [
            ("h(::Float64)".to_string(), 1),
            ("h(::Float64)".to_string(), 2)
        ]
    );
    let methods: Vec<(String, u32)> = [Value(1), Value(2)]
        .iter()
        .filter_map(|&v| match m.functions[1].stmt(v).map(|s| &s.op) {
            Some(Op::Invoke(i)) => Some((i.name.to_string(), i.method)),
            _ => None,
        })
        .collect();
    assert_eq!(methods, [("h".to_string(), 1), ("k".to_string(), 0)]);
}

#[test]
fn a_block_with_several_edges_from_one_predecessor_and_missing_arguments() {
    // Malformed but printable: both targets of #1 are #2, and #3 passes nothing to %3.
    let text = "h(%1::Bool) :: Float64\n#1:\n  br %1 ? #2 : #2\n#2:\n  %2 = φ(#1 → 1.0, #1 → 2.0, #3 → ?) :: Float64\n  br #3\n#3:\n  br #2\n";
    let m = round_trip(text);
    let f = &m.functions[0];
    let Terminator::Branch {
        then_to, else_to, ..
    } = &f.blocks[0].term
    else {
        panic!()
    };
    assert_eq!((then_to.args.len(), else_to.args.len()), (1, 1));
    assert_eq!(else_to.args[0], Operand::Const(Const::f64(2.0)));
    expect![[r##"
        [
            "#1: both branch targets are #2",
            "#3: jump to #2 passes 0 arguments for 1 parameters",
        ]
    "##]]
    .assert_debug_eq(&crate::verify(f));
}

fn error(text: &str, want: Expect) {
    match parse_module(text) {
        Ok(m) => panic!("parsed: {m:?}"),
        Err(e) => want.assert_eq(&e.to_string()),
    }
}

#[test]
fn errors_are_located() {
    error(
        "f(%1)\n#1:\n  %2 = %1 +\n  return %2\n",
        expect!["3:12: expected an operand after `+`, found the end of the line"],
    );
    error(
        "f(%1)\n#1:\n  %2 = %1 + %1\n  return %9\n",
        expect!["4:10: %9 is used but never defined"],
    );
    error(
        "f(%1)\n#1:\n  %2 = %1 ⊕⊕ %1\n  return %2\n",
        expect!["3:11: `⊕⊕` is not an infix operator"],
    );
    error(
        "f(%1)\n#2:\n  return %1\n",
        expect!["2:1: expected the label `#1:` (blocks are numbered in order)"],
    );
    error(
        "f(%1)\n#1:\n  return %1\n  return %1\n",
        expect!["4:1: a line after the terminator of #1"],
    );
    error(
        "f(%1)\n#1:\n  %2 = sin(%1)\n",
        expect!["3:15: #1 has no terminator (`return`, `br` or `unreachable`)"],
    );
    error(
        "f(%1) :: Float64\n#1:\n  return %1\n",
        expect!["1:3: expected `::` and the argument's type (the function has a return type)"],
    );
    error(
        "f(%1::Float64) :: Float64\n#1:\n  %2 = sin(%1)\n  return %2\n",
        expect!["3:15: expected `::`, found the end of the line"],
    );
    error(
        "f(%1::Dense) :: Float64\n#1:\n  return %1\n",
        expect!["1:7: unknown type `Dense`: declare it above with `struct Dense`"],
    );
    error(
        "f(%1::Vector{Float64, Int64}) :: Float64\n#1:\n  return %1\n",
        expect!["1:7: Vector takes one type parameter"],
    );
    error(
        "f(%1)\n#1:\n  %2 = \"open\n  return %1\n",
        expect!["3:13: expected `\"` closing the string"],
    );
    error(
        "f(%1)\n#1:\n  br #3\n#2:\n  %2 = φ(#1 → %1)\n  return %2\n",
        expect!["3:1: jump to #3, which is not defined"],
    );
    error(
        "f(%1)\n#1:\n  br #2\n#2:\n  %2 = φ(#1 → %1, #2 → %1)\n  return %2\n",
        expect!["5:1: %2 has an edge from #2, which does not jump to #2 (that often)"],
    );
    error(
        "f(%1)\n#1:\n  %1 = sin(%1)\n  return %1\n",
        expect!["3:3: %1 is defined twice"],
    );
    error(
        "f(%1)\n#1:\n  %2 = φ(#1 → %1)\n  return %1\n",
        expect!["3:8: the entry block has no φ nodes: its parameters are the arguments"],
    );
    error(
        "f(%1)\n#1:\n  %2 = 99999999999999999999 + %1\n  return %1\n",
        expect!["3:8: `99999999999999999999` is not a number"],
    );
    error(
        "f(%1)\n#1:\n  %9999999 = sin(%1)\n  return %1\n",
        expect!["1:1: value numbers go up to %9999999 for 2 values: number them densely"],
    );
    error(
        "struct S\n  x::Float64\n",
        expect!["1:1: expected `end` closing this struct"],
    );
    error(
        "  %2 = sin(%1)\n",
        expect!["1:1: expected a function header or a struct declaration"],
    );
    error(
        "f(%1)\n#1:\n  %2 = %1\n  return %1\n",
        expect![
            "3:10: expected an operator or `(` after the first operand, found the end of the line"
        ],
    );
}

#[test]
fn test_runner_comments_are_not_ir() {
    let text = "; test: verify\nf(%1)   # x\n#1:\n  %2 = error(\"a; b\") ; error: never\n  return %2 ; the end\n";
    let m = parse_module(text).map_err(|e| e.to_string());
    let f = m.as_ref().map(|m| print_function(&m.functions[0]));
    assert_eq!(
        f.as_deref(),
        Ok("f(%1)   # x\n#1:\n  %2 = error(\"a; b\")\n  return %2\n")
    );
    assert_eq!(comment_start("  %2 = error(\"a; b\") ; error: x"), 21);
    assert_eq!(comment_start("; run: f(1)"), 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Any text is read or rejected with a located error, never a panic.
    #[test]
    fn random_text_never_panics(text in "[ -~φ→⁺⁻%#\n]{0,200}") {
        if let Err(e) = parse_module(&text) {
            prop_assert!(e.line >= 1 && e.col >= 1);
        }
    }

    /// Valid text with a few characters changed: read or rejected with a located error.
    #[test]
    fn edited_text_never_panics(
        which in any::<bool>(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), "[ -~φ→\n]{0,3}"), 1..4),
    ) {
        let mut text: Vec<char> = if which { TYPED } else { UNTYPED }.chars().collect();
        for (at, insert) in edits {
            let i = at.index(text.len() + 1);
            let cut = (i + 3).min(text.len());
            text.splice(i..cut, insert.chars());
        }
        let text: String = text.into_iter().collect();
        if let Ok(m) = parse_module(&text) {
            for f in &m.functions {
                // What reads prints back to text that reads the same.
                let again = format!("{}{}", print_structs(f), print_function(f));
                let g = parse_function(&again).map(|g| print_function(&g));
                prop_assert_eq!(g, Ok(print_function(f)));
            }
        }
    }
}

/// Names the printer writes unambiguously (identifiers, operators, generated names).
const NAMES: &[&str] = &[
    "x",
    "y₁",
    "r̄",
    "#self#",
    "iter#2",
    "stk#3",
    "α#3",
    "push!",
    "f⁺",
    "∇g",
    "(::Dense)",
    "(::#f#1)⁻",
    "+",
    ".*",
    "%",
    "÷",
    "==",
];

/// A statement of a recipe: an operation, operands and a type (indices into fixed lists).
type StmtRecipe = (usize, Vec<usize>, usize);

/// A block of a recipe: φ types, statements, and a terminator (kind, jump arguments, target).
type BlockRecipe = (Vec<usize>, Vec<StmtRecipe>, StmtRecipe);

/// The pieces of a random function: value kinds and operands are picked by index among the
/// values defined so far, so every operand names a defined value.
#[derive(Clone, Debug)]
struct Recipe {
    typed: bool,
    args: Vec<usize>,
    blocks: Vec<BlockRecipe>,
    consts: Vec<u64>,
    text: String,
    names: Vec<Option<usize>>,
}

fn recipe() -> impl Strategy<Value = Recipe> {
    let idx = || 0usize..64;
    let stmt = (idx(), proptest::collection::vec(idx(), 0..4), idx());
    let term = (0usize..4, proptest::collection::vec(idx(), 0..5), idx());
    let block = (
        proptest::collection::vec(idx(), 0..3),
        proptest::collection::vec(stmt, 0..5),
        term,
    );
    (
        any::<bool>(),
        proptest::collection::vec(idx(), 0..3),
        proptest::collection::vec(block, 1..5),
        proptest::collection::vec(any::<u64>(), 1..6),
        "[ -~é\u{301}\t\n\"\\\\]{0,8}",
        proptest::collection::vec(proptest::option::of(idx()), 0..24),
    )
        .prop_map(|(typed, args, blocks, consts, text, names)| Recipe {
            typed,
            args,
            blocks,
            consts,
            text,
            names,
        })
}

/// Build the function a recipe describes. Types, constants, operations and names cycle through
/// fixed lists, so every printable form turns up.
fn build(r: &Recipe) -> Function {
    let point = Arc::new(StructType {
        name: "Point".into(),
        params: vec![Type::Float64],
        fields: vec![("x".into(), Type::Float64), ("y".into(), Type::Float64)],
        mutable: false,
        kind: StructKind::User,
    });
    let closure = Arc::new(StructType {
        name: "#f#1".into(),
        params: vec![],
        fields: vec![("a".into(), Type::Int64)],
        mutable: false,
        kind: StructKind::Closure,
    });
    let types = [
        Type::Float64,
        Type::Int64,
        Type::Bool,
        Type::Nothing,
        Type::Bottom,
        Type::tuple([Type::Float64, Type::Int64]),
        Type::tuple([]),
        Type::NamedTuple(vec![("a".into(), Type::Float64)].into()),
        Type::NamedTuple(Vec::new().into()),
        Type::Struct(point.clone()),
        Type::Struct(closure.clone()),
        Type::Ref(Arc::new(Type::vector_f64())),
        Type::matrix_f64(),
        Type::Array(Arc::new(Type::Bool), 3),
        Type::Adjoint(Arc::new(Type::Float64)),
        Type::Function("sin".into()),
        Type::Pullback(vec![Type::Function("f".into()), Type::Float64].into()),
        Type::Stack(Arc::new(Type::tuple([Type::Float64]))),
    ];
    let ty = |i: usize| {
        if r.typed {
            types[i % types.len()].clone()
        } else {
            Type::Any
        }
    };
    let name = |i: usize| Name::from(NAMES[i % NAMES.len()]);
    let consts: Vec<Const> = r
        .consts
        .iter()
        .flat_map(|&bits| {
            [
                Const::F64(bits),
                Const::f64(-0.0),
                Const::f64(f64::NEG_INFINITY),
                Const::F32(bits as u32),
                Const::f32(f32::NEG_INFINITY),
                Const::Int(bits as i64),
                Const::Bool(bits % 2 == 0),
                Const::Nothing,
                Const::Symbol(name(bits as usize)),
                Const::Str(r.text.as_str().into()),
                Const::Func(name(bits as usize + 1)),
                Const::Tuple(vec![Const::Symbol("a".into()), Const::Int(2)].into()),
                Const::Tuple(vec![Const::f64(0.5)].into()),
                Const::Tuple(Vec::new().into()),
            ]
        })
        .collect();
    let mut f = Function::new(if r.typed { "g⁺" } else { "#f#1" }, Span::default());
    f.ret = if r.typed { ty(r.args.len()) } else { Type::Any };
    for &a in &r.args {
        f.add_param(Block::ENTRY, ty(a), Span::default(), None);
    }
    f.arg_names = r.args.iter().map(|&a| name(a)).collect();
    for _ in 1..r.blocks.len() {
        f.add_block();
    }
    let n_blocks = r.blocks.len();
    let mut defined: Vec<Value> = f.args().to_vec();
    for (bi, (phis, _, _)) in r.blocks.iter().enumerate().skip(1) {
        for &p in phis {
            defined.push(f.add_param(Block(bi as u32), ty(p), Span::default(), None));
        }
    }
    let operand = |defined: &[Value], i: usize| -> Operand {
        match defined.get(i % 8) {
            Some(v) if !i.is_multiple_of(3) => Operand::Value(*v),
            _ => Operand::Const(consts[i % consts.len()].clone()),
        }
    };
    for (bi, (_, stmts, _)) in r.blocks.iter().enumerate() {
        for (op, args, t) in stmts {
            let args: Vec<Operand> = args.iter().map(|&a| operand(&defined, a)).collect();
            let prims = Prim::ALL;
            let op = match op % 8 {
                0 if r.typed => Op::New(point.clone()),
                1 if r.typed => Op::Invoke(Arc::new(Instance {
                    name: name(*t),
                    method: (*t % 3) as u32,
                    args: Vec::new().into(),
                })),
                2 => Op::Closure(closure.name.clone()),
                3 => Op::Global(name(*t)),
                // Untyped IR (lowering's output) calls everything by name.
                5 if !r.typed && args.first().is_some_and(|a| a.as_value().is_some()) => {
                    Op::CallValue
                }
                _ if !r.typed => Op::Call(name(*t)),
                _ => Op::Prim(prims[op % prims.len()]),
            };
            // Unary operators of a constant tuple would read back as calls: not printable.
            let tuple_arg = matches!(args.as_slice(), [Operand::Const(Const::Tuple(_))]);
            let unary = matches!(&op, Op::Prim(Prim::Neg | Prim::Not))
                || matches!(&op, Op::Call(n) if &**n == "-" || &**n == "!");
            let args = if tuple_arg && unary {
                vec![Operand::Const(Const::Int(1))]
            } else {
                args
            };
            let v = f.push_stmt(Block(bi as u32), Stmt { op, args }, ty(*t), Span::default());
            // Every third statement is dead: its number is skipped in the text.
            if t % 3 == 0 {
                f.blocks[bi].stmts.pop();
            } else {
                defined.push(v);
            }
        }
    }
    // Invokes take the instance their operands' types give, as the reader makes them.
    for d in 0..f.values.len() {
        let ValueKind::Stmt(s) = &f.values[d].kind else {
            continue;
        };
        if let Op::Invoke(inst) = &s.op {
            let args: Vec<Type> = s.args.iter().map(|a| f.operand_ty(a)).collect();
            let inst = Arc::new(Instance {
                name: inst.name.clone(),
                method: inst.method,
                args: args.into(),
            });
            if let ValueKind::Stmt(s) = &mut f.values[d].kind {
                s.op = Op::Invoke(inst);
            }
        }
    }
    for (bi, (_, _, (kind, args, target))) in r.blocks.iter().enumerate() {
        // Jumps go to blocks other than the entry (whose arguments the text cannot show).
        let to =
            |k: usize| Block((1 + k % n_blocks.saturating_sub(1).max(1)) as u32 % n_blocks as u32);
        let call = |k: usize| BlockCall {
            block: to(k),
            args: args
                .iter()
                .take(k % 4)
                .map(|&a| operand(&defined, a))
                .collect(),
        };
        let term = match kind {
            0 => Terminator::Return(operand(&defined, *target)),
            1 if n_blocks > 1 => Terminator::Jump(call(*target)),
            2 if n_blocks > 1 => Terminator::Branch {
                cond: operand(&defined, *target),
                then_to: call(*target),
                else_to: call(target + 1),
            },
            _ => Terminator::Unreachable,
        };
        f.set_term(Block(bi as u32), term, Span::default());
    }
    for (v, n) in f.values.iter_mut().zip(&r.names) {
        v.name = n.map(name);
    }
    f
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Print, read back, print: the same text, for functions of every form.
    #[test]
    fn generated_functions_read_back_to_their_text(r in recipe()) {
        let f = build(&r);
        let text = format!("{}{}", print_structs(&f), print_function(&f));
        let read = parse_module(&text);
        prop_assert!(read.is_ok(), "{:?}\n{}", read.err(), text);
        let again: Vec<String> = read.iter().flat_map(|m| m.functions.iter().map(print_function)).collect();
        prop_assert_eq!(again, vec![print_function(&f)]);
    }
}

/// A closure name holding `"`, `\` or a newline (read from `var"..."` with its escapes) prints
/// escaped, so that the text reads back the same (the edited-text property test found it).
#[test]
fn closure_names_print_back_escaped() {
    let text = "f(%1)\n#1:\n  %2 = closure var\"\\\"#g\\\\1\\n\"(%1)\n  return %2\n";
    let f = parse_function(text).map_err(|e| e.message);
    let printed = f.as_ref().map(print_function).map_err(Clone::clone);
    assert_eq!(
        printed.as_deref(),
        Ok("f(%1)\n#1:\n  %2 = closure var\"\\\"#g\\\\1\\n\"(%1)\n  return %2\n")
    );
    let again = printed.and_then(|p| parse_function(&p).map_err(|e| e.message));
    assert_eq!(
        again.map(|g| print_function(&g)),
        f.map(|f| print_function(&f))
    );
}

/// A symbol that is no plain name (a union member's tag `typeof(Int64)`) prints quoted, and
/// reads back as the same symbol.
#[test]
fn symbols_that_are_no_names_print_back_quoted() {
    let text = "f(%1)\n#1:\n  %2 = g(%1, :var\"typeof(Int64)\", :a)\n  return %2\n";
    let m = round_trip(text);
    let consts: Vec<&Const> = m.functions[0]
        .values
        .iter()
        .filter_map(|v| match &v.kind {
            crate::ValueKind::Stmt(s) => Some(s),
            crate::ValueKind::Param { .. } => None,
        })
        .flat_map(|s| &s.args)
        .filter_map(|a| match a {
            Operand::Const(c) => Some(c),
            Operand::Value(_) => None,
        })
        .collect();
    assert_eq!(
        consts,
        [
            &Const::Symbol("typeof(Int64)".into()),
            &Const::Symbol("a".into())
        ]
    );
}
