//! Ranges are byte offsets into the file and cover exactly the construct's text.

use zy_syntax::ast::{ExprKind, FunctionName, Item, TextRange, TypeExpr};
use zy_syntax::parse_file;

fn slice(src: &str, r: TextRange) -> &str {
    &src[r.start as usize..r.end as usize]
}

#[test]
fn definitions_names_params_and_bodies() {
    let src = "# zy: at f(1.0)\nf(x::Float64, ȳ) = 2x^2 + ȳ\n(d::Dense)(x) = d.W\nconst N = 3\nstruct S{T}\n    a::T\nend\n";
    let file = parse_file(src);
    assert_eq!(file.errors, vec![]);
    let [Item::Function(f), Item::Function(d), Item::Global(n), Item::Struct(s)] =
        file.items.as_slice()
    else {
        panic!("unexpected items: {:?}", file.items);
    };
    assert_eq!(slice(src, f.range), "f(x::Float64, ȳ) = 2x^2 + ȳ");
    assert_eq!(slice(src, f.name_range), "f");
    assert_eq!(slice(src, f.params[0].range), "x::Float64");
    assert_eq!(slice(src, f.params[1].range), "ȳ");
    let Some(TypeExpr::Named { range, .. }) = &f.params[0].ty else {
        panic!("no type")
    };
    assert_eq!(slice(src, *range), "Float64");
    let body = &f.body[0];
    assert_eq!(slice(src, body.range), "2x^2 + ȳ");
    let ExprKind::Binary { lhs, .. } = &body.kind else {
        panic!("not a sum")
    };
    assert_eq!(slice(src, lhs.range), "2x^2");
    let ExprKind::Binary { rhs: power, .. } = &lhs.kind else {
        panic!("not a product")
    };
    assert_eq!(slice(src, power.range), "x^2");
    assert_eq!(slice(src, f.annotations[0].range), "f(1.0)");

    assert!(matches!(&d.name, FunctionName::Callable { self_name: Some(n), .. } if n == "d"));
    assert_eq!(slice(src, d.name_range), "(d::Dense)");
    assert_eq!(slice(src, n.name_range), "N");
    assert_eq!(slice(src, n.range), "const N = 3");
    assert_eq!(slice(src, n.value.range), "3");
    assert_eq!(slice(src, s.name_range), "S");
    assert_eq!(slice(src, s.fields[0].range), "a::T");
}

#[test]
fn split_matrix_elements_keep_file_offsets() {
    let src = "m() = [1.0 -0.3; x -y]\n";
    let file = parse_file(src);
    let [Item::Function(m)] = file.items.as_slice() else {
        panic!("unexpected items")
    };
    let ExprKind::Matrix(rows) = &m.body[0].kind else {
        panic!("not a matrix")
    };
    let texts: Vec<Vec<&str>> = rows
        .iter()
        .map(|row| row.iter().map(|e| slice(src, e.range)).collect())
        .collect();
    assert_eq!(texts, vec![vec!["1.0", "-0.3"], vec!["x", "-y"]]);
}

#[test]
fn do_blocks_and_errors() {
    let src = "f(xs) = map(xs) do x\n    x + 1\nend\ng(x, (a, b) = 1) = x\n";
    let file = parse_file(src);
    let Item::Function(f) = &file.items[0] else {
        panic!("not a method")
    };
    let ExprKind::Call { args, .. } = &f.body[0].kind else {
        panic!("not a call")
    };
    assert_eq!(slice(src, args[0].range), "do x\n    x + 1\nend");
    assert_eq!(slice(src, args[1].range), "xs");
    assert_eq!(slice(src, file.errors[0].range), "(a, b) = 1");
}

#[test]
fn keyword_parameters_and_arguments() {
    let src = "f(x; a = 2x, b::Int, kw...) = x\ng(x) = f(x, c = 1; a, kw...)\n";
    let file = parse_file(src);
    assert_eq!(file.errors, vec![]);
    let [Item::Function(f), Item::Function(g)] = file.items.as_slice() else {
        panic!("unexpected items: {:?}", file.items);
    };
    let ranges: Vec<&str> = f.keywords.iter().map(|k| slice(src, k.range)).collect();
    assert_eq!(ranges, ["a = 2x", "b::Int"]);
    let default = f.keywords[0].default.as_ref().map(|d| slice(src, d.range));
    assert_eq!(default, Some("2x"));
    assert!(f.keywords[1].default.is_none());
    assert_eq!(f.keyword_rest.as_deref(), Some("kw"));
    let ExprKind::KwCall { args, keywords, .. } = &g.body[0].kind else {
        panic!("not a keyword call")
    };
    assert_eq!(args.len(), 1);
    let values: Vec<&str> = keywords
        .iter()
        .map(|k| slice(src, k.value().range))
        .collect();
    assert_eq!(values, ["1", "a", "kw"]);
}
