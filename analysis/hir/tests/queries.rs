//! The database on small programs: item identity, offset-free item ASTs, span mapping,
//! recursion through salsa's fixpoint, diagnostics.

use std::path::PathBuf;

use salsa::Setter;
use zy_hir::{
    diagnostics, item_ast, item_range, item_tree, line_col, ret_type, typed, InstanceId, ItemKind,
    RootDatabase, SourceFile, Workspace,
};
use zy_ir::{Instance, Type};

fn db_with(text: &str) -> (RootDatabase, SourceFile) {
    let mut db = RootDatabase::with_query_log();
    let file = SourceFile::new(&db, PathBuf::from("t.jl"), text.to_string());
    Workspace::get(&db).set_files(&mut db).to(vec![file]);
    (db, file)
}

fn ret(db: &RootDatabase, file: SourceFile, name: &str, args: &[Type]) -> Type {
    let inst = Instance {
        name: name.into(),
        method: 0,
        args: args.into(),
    };
    ret_type(db, InstanceId::of(db, file, &inst))
}

#[test]
fn items_keep_their_ids_and_asts_across_layout_edits() {
    let text = "f(x) = x + 1\n\nfunction g(y)\n    y * 2\nend\n";
    let (mut db, file) = db_with(text);
    let ids = item_tree(&db, file).clone();
    let names: Vec<(ItemKind, String)> = ids
        .iter()
        .map(|i| (i.kind(&db), i.name(&db).to_string()))
        .collect();
    assert_eq!(
        names,
        [
            (ItemKind::Function, "f".to_string()),
            (ItemKind::Function, "g".to_string())
        ]
    );
    let g_before = item_ast(&db, ids[1]).clone();
    file.set_text(&mut db).to(format!(
        "# a comment\n\n{}",
        text.replace("y * 2", "y   *   2  # twice")
    ));
    assert_eq!(*item_tree(&db, file), ids);
    assert_eq!(*item_ast(&db, ids[1]), g_before);
    // Ranks map back to the current text: `y   *   2` starts on line 6, column 5.
    let Some(ast) = item_ast(&db, ids[1]).clone() else {
        panic!("g is gone")
    };
    let zy_syntax::ast::Item::Function(def) = &*ast else {
        panic!("not a function")
    };
    let body = &def.body[0];
    let (start, end) =
        item_range(&db, ids[1], body.range.start, body.range.end).unwrap_or_default();
    assert_eq!(&file.text(&db)[start as usize..end as usize], "y   *   2");
    assert_eq!(line_col(&db, file, start).to_string(), "6:5");
}

#[test]
fn columns_count_characters() {
    let (db, file) = db_with("f(θ) = \"é\" * θ\n");
    let offset = file.text(&db).rfind('θ').unwrap_or(0) as u32;
    assert_eq!(line_col(&db, file, offset).to_string(), "1:14");
    // Offsets past the end or inside a character are clamped, never a panic.
    assert_eq!(line_col(&db, file, 3).to_string(), "1:3");
    assert_eq!(line_col(&db, file, 10_000).to_string(), "2:1");
}

#[test]
fn recursion_converges_from_union_bottom() {
    let (db, file) = db_with(
        "fact(n) = n <= 1 ? 1 : n * fact(n - 1)\n\
         is_even(n) = n == 0 ? true : is_odd(n - 1)\n\
         is_odd(n) = n == 0 ? false : is_even(n - 1)\n\
         halve(x) = x < 1.0 ? x : halve(x / 2)\n",
    );
    assert_eq!(ret(&db, file, "fact", &[Type::Int64]), Type::Int64);
    assert_eq!(ret(&db, file, "is_even", &[Type::Int64]), Type::Bool);
    assert_eq!(ret(&db, file, "halve", &[Type::Float64]), Type::Float64);
    // An Int below 1.0 is returned as it is, any other halved to a Float64: Julia's
    // `Union{Float64, Int64}`.
    assert_eq!(
        ret(&db, file, "halve", &[Type::Int64]).to_string(),
        "Union{Float64, Int64}"
    );
}

#[test]
fn recursion_that_never_returns_has_type_union_bottom() {
    let (db, file) = db_with("forever(x) = forever(x + 1)\n");
    assert_eq!(ret(&db, file, "forever", &[Type::Int64]), Type::Bottom);
    let inst = Instance {
        name: "forever".into(),
        method: 0,
        args: [Type::Int64].into(),
    };
    assert!(typed(&db, InstanceId::of(&db, file, &inst))
        .errors
        .is_empty());
}

#[test]
fn unbounded_specialisation_is_an_error_not_a_hang() {
    let (db, file) = db_with("# zy: at grow(1.0)\ngrow(x) = grow((x,))\n");
    let codes: Vec<&str> = diagnostics(&db, file)
        .iter()
        .map(|d| d.code.as_str())
        .collect();
    assert_eq!(codes, ["unsupported"]);
}

/// Run `f` on a thread with the stack the language server and the CLI give analysis: typing
/// follows chains of calls hundreds deep.
fn on_big_stack(f: impl FnOnce() + Send + 'static) {
    let thread = std::thread::Builder::new().stack_size(1 << 30).spawn(f);
    thread
        .expect("spawning the test's thread")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
}

#[test]
fn a_new_argument_type_at_every_call_is_typed_up_to_the_bound_then_refused() {
    on_big_stack(a_new_argument_type_at_every_call_is_refused_past_the_bound);
}

fn a_new_argument_type_at_every_call_is_refused_past_the_bound() {
    let text = "up(::Val{N}) where N = up(Val(N + 1))\n# zy: at f(1.0)\nf(x) = up(Val(1)) + x\n";
    let (db, file) = db_with(text);
    let inst = std::sync::Arc::new(Instance {
        name: "f".into(),
        method: 0,
        args: [Type::Float64].into(),
    });
    let (program, _) = zy_hir::typed_program(&db, zy_hir::ProgramKey::of(&db, file), &[inst]);
    let ups = program
        .functions
        .keys()
        .filter(|i| &*i.name == "up")
        .count();
    assert_eq!(ups, zy_infer::MAX_ARGUMENT_SIZE);
    // One error, at the call that would make the next specialisation.
    let found: Vec<(String, &str)> = diagnostics(&db, file)
        .iter()
        .map(|d| (line_col(&db, file, d.start).to_string(), d.message.as_str()))
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "1:24");
    assert!(
        found[0].1.starts_with(
            "unsupported: recursion through `up` with a new argument type at every call \
             (..., `Val{256}`, `Val{257}`)"
        ),
        "{found:?}"
    );
}

/// The errors of typing `name(1.0)` in `db`'s program.
fn errors_of(db: &RootDatabase, file: SourceFile, name: &str) -> Vec<String> {
    let inst = std::sync::Arc::new(Instance {
        name: name.into(),
        method: 0,
        args: [Type::Float64].into(),
    });
    let (_, errors) = zy_hir::typed_program(db, zy_hir::ProgramKey::of(db, file), &[inst]);
    errors.into_iter().map(|e| e.message).collect()
}

#[test]
fn a_refusal_does_not_depend_on_which_call_was_typed_first() {
    on_big_stack(refusals_in_every_order);
}

fn refusals_in_every_order() {
    // `long` counts down through every `Val` from 250, passing `short`'s; `past` starts past
    // the bound and `up` never stops, reaching the countdowns' types on its way.
    let text = "down(::Val{0}) = 0.0\ndown(::Val{N}) where N = N + down(Val(N - 1))\n\
                up(::Val{N}) where N = up(Val(N + 1)) + down(Val(N))\n\
                short(x) = x * down(Val(10))\nlong(x) = x * down(Val(250))\n\
                past(x) = x * down(Val(257))\nforever(x) = x * up(Val(1))\n";
    let names = ["short", "long", "past", "forever"];
    let alone: Vec<Vec<String>> = names
        .iter()
        .map(|n| {
            let (db, file) = db_with(text);
            errors_of(&db, file, n)
        })
        .collect();
    assert!(alone[0].is_empty() && alone[1].is_empty(), "{alone:?}");
    assert!(alone[2][0].contains("`Val{257}`"), "{alone:?}");
    assert!(alone[3][0].contains("recursion through `up`"), "{alone:?}");
    for order in [[3, 2, 1, 0], [2, 1, 3, 0], [0, 1, 2, 3]] {
        let (db, file) = db_with(text);
        for i in order {
            assert_eq!(
                errors_of(&db, file, names[i]),
                alone[i],
                "{order:?}: {}",
                names[i]
            );
        }
    }
}

#[test]
fn diagnostics_have_codes_and_file_offsets() {
    // An undefined name is reported at the identifier itself (`nope`).
    let text = "g(x, (a, b) = 1) = x\n# zy: at h(1.0)\nh(x) = x + nope\n";
    let (db, file) = db_with(text);
    let found: Vec<(String, &str, &str)> = diagnostics(&db, file)
        .iter()
        .map(|d| {
            (
                line_col(&db, file, d.start).to_string(),
                d.code.as_str(),
                d.message.as_str(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                "1:6".to_string(),
                "unsupported",
                "unsupported: this form of optional argument"
            ),
            (
                "3:12".to_string(),
                "undefined-name",
                "UndefVarError: `nope` not defined"
            ),
        ]
    );
}

#[test]
fn recursion_whose_type_keeps_growing_stops_with_an_error() {
    let text = "# zy: at nest(3)\nnest(n) = n == 0 ? (1,) : (nest(n - 1),)\n";
    let message = "unsupported: the return type of `nest` grows with each recursive call \
                   (type inference did not converge)";
    // Entered through the annotation's call (the cycle's head is `ret_type`).
    let (db, file) = db_with(text);
    let found: Vec<(&str, &str)> = diagnostics(&db, file)
        .iter()
        .map(|d| (d.code.as_str(), d.message.as_str()))
        .collect();
    assert_eq!(found, [("unsupported", message)]);
    // Entered through `typed` itself (the cycle's head is `typed`).
    let (db, file) = db_with(text);
    let inst = std::sync::Arc::new(Instance {
        name: "nest".into(),
        method: 0,
        args: [Type::Int64].into(),
    });
    let (_, errors) = zy_hir::typed_program(&db, zy_hir::ProgramKey::of(&db, file), &[inst]);
    assert!(
        !errors.is_empty(),
        "no error for an ever-growing return type"
    );
}

/// The ids of the prelude's function items that the program of `file` holds methods from.
fn prelude_functions(db: &RootDatabase, file: SourceFile) -> Vec<String> {
    let index = zy_hir::program_index(db, file);
    let mut out: Vec<String> = index
        .method_origin
        .iter()
        .filter(|(_, origins)| {
            origins
                .iter()
                .any(|(item, _)| zy_hir::is_prelude(db, item.file(db)))
        })
        .map(|(name, _)| name.to_string())
        .collect();
    out.sort();
    out
}

#[test]
fn a_program_holds_only_the_library_functions_it_reaches() {
    let (db, file) = db_with("f(x) = sin(cos(x))\ng(x) = abs2(x)\n");
    // `abs2` and what it calls; nothing for `f` (sin and cos are builtins).
    let names = prelude_functions(&db, file);
    assert!(names.contains(&"Base.abs2".to_string()), "{names:?}");
    assert!(!names.contains(&"Base.sum".to_string()), "{names:?}");
    assert!(
        !names.contains(&"LinearAlgebra.norm".to_string()),
        "{names:?}"
    );
    assert_eq!(ret(&db, file, "g", &[Type::Float64]), Type::Float64);
    // Every method of a function that is in, the user's extension too.
    let (db, file) = db_with("Base.sum(x::Bool) = 1.0\n");
    let index = zy_hir::program_index(&db, file);
    let Some(sum) = index.program.functions.get("Base.sum") else {
        panic!("Base.sum is not in the program")
    };
    assert!(sum.methods.len() > 1, "{} methods", sum.methods.len());
    assert!(index.program.functions.contains_key("Base._sum_dims"));
    // Of the library methods in the program, only those that inference specialises are
    // lowered: the others are held by their signatures from the build-time index.
    let (db, file) = db_with("g(x) = sum(x)\nh(x) = abs2(x)\n");
    db.enable_query_log();
    let index = zy_hir::program_index(&db, file);
    let methods: usize = index
        .method_origin
        .values()
        .flatten()
        .filter(|(item, _)| zy_hir::is_prelude(&db, item.file(&db)))
        .count();
    // An item's lowering is made by `ssa` (from its text) or read back from the build's
    // packing by `resolved_in_root` (a bundled library item's).
    let lowered = |log: &[String]| {
        log.iter()
            .filter(|q| q.starts_with("ssa(") || q.starts_with("resolved_in_root("))
            .count()
    };
    let at_index = lowered(&db.take_query_log());
    assert!(
        methods > 100 && at_index * 4 < methods,
        "{at_index} of {methods} library methods lowered"
    );
    assert_eq!(ret(&db, file, "h", &[Type::Float64]), Type::Float64);
    let log = db.take_query_log();
    assert!(
        log.iter().any(|q| q == "typed(Base.abs2(::Float64))"),
        "{log:?}"
    );
    assert_eq!(lowered(&log), 1, "bodies read besides abs2's: {log:?}");
}

/// The library's stubs are made once per root and kept across edits that leave the scope's
/// names alone; a user's method of a library function still applies after such an edit, and
/// undoing it takes it away.
#[test]
fn library_stubs_outlive_body_edits_and_a_user_method_still_applies() {
    let (mut db, file) = db_with("f(x) = sum(x)\n");
    let v = Type::Array(Type::Float64.into(), 1);
    assert_eq!(ret(&db, file, "f", &[v.clone()]), Type::Float64);
    db.enable_query_log();
    file.set_text(&mut db)
        .to("f(x) = sum(x) * 2.0\n".to_string());
    assert_eq!(ret(&db, file, "f", &[v.clone()]), Type::Float64);
    let log = db.take_query_log();
    assert!(!log.iter().any(|q| q.starts_with("stub_memo(")), "{log:?}");
    // The user's method is more specific than the library's `sum(::AbstractArray)`.
    let extended = "Base.sum(x::Vector{Float64}) = 1\nf(x) = sum(x)\n";
    file.set_text(&mut db).to(extended.to_string());
    assert_eq!(ret(&db, file, "f", &[v.clone()]), Type::Int64);
    file.set_text(&mut db).to("f(x) = sum(x)\n".to_string());
    assert_eq!(ret(&db, file, "f", &[v]), Type::Float64);
}

/// Whether the program of `file` holds a method of `function` whose signature names `ty`.
fn has_method_on(db: &RootDatabase, file: SourceFile, function: &str, ty: &str) -> bool {
    let index = zy_hir::program_index(db, file);
    index.program.functions.get(function).is_some_and(|f| {
        f.methods
            .iter()
            .any(|m| format!("{:?}", m.sig).contains(&format!("\"{ty}\"")))
    })
}

/// A method on an abstract library type all of whose values are the library's structs below
/// it waits, as one on a struct does, until the program makes one of those structs or
/// declares a struct of its own below it.
#[test]
fn methods_on_an_abstract_library_type_wait_until_a_value_below_it() {
    let q = "LinearAlgebra.AbstractQ";
    let rng = "Random.AbstractRNG";
    // `*` and `size` of numbers and vectors: no `Q` operator, no generator.
    let (db, file) = db_with("f(x) = size(x) .* abs2(x[1])\n");
    assert!(!has_method_on(&db, file, "Base.size", q));
    assert!(!has_method_on(&db, file, "Base.*", q));
    let names = prelude_functions(&db, file);
    assert!(
        !names.contains(&"LinearAlgebra._q_dense".to_string()),
        "{names:?}"
    );
    // Named only as a type, `AbstractQ` is in the program, its methods are not.
    let (db, file) = db_with("using LinearAlgebra\nf(Q::LinearAlgebra.AbstractQ) = size(Q)\n");
    assert!(zy_hir::program_index(&db, file)
        .program
        .structs
        .contains_key(q));
    assert!(!has_method_on(&db, file, "Base.size", q));
    // `hessenberg` of a matrix makes a `HessenbergQ`, below `AbstractQ`.
    let text = "using LinearAlgebra\nf(x) = hessenberg([x 1.0; 2.0 3.0]).Q * [1.0, 2.0]\n";
    let (db, file) = db_with(text);
    for function in ["Base.size", "Base.*", "LinearAlgebra._q_matrix"] {
        assert!(has_method_on(&db, file, function, q), "{function}");
    }
    let vector = Type::Array(Type::Float64.into(), 1);
    assert_eq!(ret(&db, file, "f", &[Type::Float64]), vector);
    // `rand()` draws from the default `Xoshiro`; `rand(rng)` of a program's own generator.
    let (db, file) = db_with("f(x) = x + 1.0\n");
    assert!(!has_method_on(&db, file, "Base.rand", rng));
    let (db, file) = db_with("f(x) = x + rand()\n");
    assert!(has_method_on(&db, file, "Base.rand", rng));
    assert_eq!(ret(&db, file, "f", &[Type::Float64]), Type::Float64);
    let own = "using Random\nmutable struct R <: AbstractRNG\n    s0::Int64\n    s1::Int64\n    \
               s2::Int64\n    s3::Int64\nend\nf(r) = rand(r)\n";
    let (db, file) = db_with(own);
    assert!(has_method_on(&db, file, "Base.rand", rng));
}

#[test]
fn methods_on_matrices_wait_until_the_program_can_make_one() {
    let matrix = Type::Array(Type::Float64.into(), 2);
    // A scalar `exp` holds neither LinearAlgebra's `exp(A::Matrix{Float64})` (it can never
    // apply) nor anything that it calls.
    let (db, file) = db_with("f(x) = exp(x)\n");
    let names = prelude_functions(&db, file);
    assert!(
        !names.contains(&"LinearAlgebra._exp_pade".to_string()),
        "{names:?}"
    );
    assert!(names.len() < 20, "{} functions: {names:?}", names.len());
    let index = zy_hir::program_index(&db, file);
    let takes_matrix = |m: &zy_ir::Method| format!("{:?}", m.sig).contains("Matrix");
    assert!(
        index
            .program
            .functions
            .get("Base.exp")
            .is_none_or(|f| !f.methods.iter().any(takes_matrix)),
        "exp(A::Matrix{{Float64}}) is in the program"
    );
    // Nor is it parsed or lowered: its signature comes from the build-time index.
    let (db, file) = db_with("f(x) = exp(x)\n");
    db.enable_query_log();
    zy_hir::program_index(&db, file);
    let log = db.take_query_log();
    assert!(log.iter().any(|q| q == "ssa(f)"), "{log:?}");
    assert!(
        !log.iter()
            .any(|q| q == "item_encoded(exp)" || q == "ssa(exp)"),
        "{log:?}"
    );
    assert_eq!(ret(&db, file, "f", &[Type::Float64]), Type::Float64);
    // Called with a matrix the file cannot make (the caller made it), the instance is typed in
    // the program that has them.
    assert_eq!(ret(&db, file, "f", &[matrix.clone()]), matrix);
    // Code that makes a matrix, or declares one, has them.
    for text in [
        "g(x) = exp([x 0.0; 0.0 x])\n",
        "g(x) = exp(reshape([x, 0.0, 0.0, x], 2, 2))\n",
        "g(A::Matrix{Float64}) = exp(A)\n",
        "g(x) = exp(x * x')\n",
        "g(x) = exp(fill!(Matrix{Float64}(undef, 2, 2), x))\n",
        "g(x) = exp([x * i * j for i in 1:2, j in 1:2])\n",
        "g(x) = exp(zeros(2, 2) .+ x)\n",
        "h(n) = zeros(n, n)\ng(x) = exp(h(2) .+ x)\n",
        "g(x) = exp(reduce(hcat, [[x, 0.0], [0.0, x]]))\n",
    ] {
        let (db, file) = db_with(text);
        let names = prelude_functions(&db, file);
        assert!(
            names.contains(&"LinearAlgebra._exp_pade".to_string()),
            "{text}: {names:?}"
        );
    }
    // A call string that makes the matrix.
    let (db, file) = db_with("f(A) = exp(A)\n");
    let expr = zy_syntax::parse_expr("f([1.0 0.0; 0.0 2.0])").expect("parses");
    let typed = zy_hir::type_call(&db, file, &expr).expect("types");
    assert_eq!(typed.body.ret, matrix);
}

#[test]
fn a_call_string_brings_the_library_definitions_it_names() {
    let (db, file) = db_with("f(x) = x[1]\n");
    assert!(!prelude_functions(&db, file).contains(&"Base.cumsum".to_string()));
    for (call, value) in [
        ("f(cumsum([1.0, 2.0]))", Type::Float64),
        ("hcat([1.0], [2.0])", Type::Array(Type::Float64.into(), 2)),
        ("[1.0, 2.0] == [1.0, 2.0]", Type::Bool),
    ] {
        let expr = zy_syntax::parse_expr(call).expect("parses");
        let typed = zy_hir::type_call(&db, file, &expr).expect(call);
        assert_eq!(typed.body.ret, value, "{call}");
    }
}

#[test]
fn typing_a_call_builds_the_program_of_no_library_file() {
    // Typing reads each instance's lowering errors from the call's program: the program of a
    // library method's own file is the whole library (775 functions in session 13).
    let (db, file) =
        db_with("using LinearAlgebra\nf(x) = sum(log, diag(cholesky([x 0.5; 0.5 x]).L))\n");
    db.enable_query_log();
    let expr = zy_syntax::parse_expr("f(2.0)").expect("parses");
    let typed = zy_hir::type_call(&db, file, &expr).expect("types");
    assert_eq!(typed.body.ret, Type::Float64);
    let programs: Vec<String> = db
        .take_query_log()
        .into_iter()
        .filter(|q| q.starts_with("root_program("))
        .collect();
    assert_eq!(programs.len(), 1, "{programs:?}");
}
