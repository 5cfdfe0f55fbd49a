//! The lexer: every kind of token, with its exact text, checked against how Julia tokenizes.

use zy_syntax::kind::{Kind, TokenError};
use zy_syntax::lexer::tokenize;

/// The tokens of `text` other than the end marker, as `kind text` (whitespace shown as `_`).
fn toks(text: &str) -> Vec<String> {
    tokenize(text)
        .into_iter()
        .filter(|t| t.kind != Kind::EndMarker)
        .map(|t| {
            let s = &text[t.range.start as usize..t.range.end as usize];
            let kind = match t.kind {
                Kind::Op(_) if t.suffixed => "op-suffixed".to_string(),
                Kind::Op(_) => "op".to_string(),
                Kind::Error(e) => format!("{e:?}"),
                Kind::Keyword(_) => "kw".to_string(),
                k if k.name() == s => return s.to_string(),
                k => k.name().to_string(),
            };
            format!("{kind} {}", s.replace('\n', "\\n"))
        })
        .collect()
}

fn kinds(text: &str) -> Vec<Kind> {
    tokenize(text)
        .into_iter()
        .filter(|t| !t.kind.is_trivia() && t.kind != Kind::EndMarker)
        .map(|t| t.kind)
        .collect()
}

#[test]
fn tokens_cover_the_text_exactly() {
    let text = "function f(x::Float64; k=1) # c\n  y = x' * \"a$(x)b\" #= c =#\nend";
    let tokens = tokenize(text);
    let mut at = 0;
    for t in &tokens {
        assert_eq!(t.range.start, at, "{t:?}");
        at = t.range.end;
    }
    assert_eq!(at as usize, text.len());
    assert_eq!(tokens.last().map(|t| t.kind), Some(Kind::EndMarker));
}

#[test]
fn identifiers_and_keywords() {
    assert_eq!(
        toks("x α₁ ȳ x̄ ∇f push! a!=b _1 end mutable"),
        [
            "Identifier x",
            "Whitespace  ",
            "Identifier α₁",
            "Whitespace  ",
            "Identifier ȳ",
            "Whitespace  ",
            "Identifier x̄",
            "Whitespace  ",
            "Identifier ∇f",
            "Whitespace  ",
            "Identifier push!",
            "Whitespace  ",
            "Identifier a",
            "op !=",
            "Identifier b",
            "Whitespace  ",
            "Identifier _1",
            "Whitespace  ",
            "kw end",
            "Whitespace  ",
            "kw mutable",
        ]
    );
    assert_eq!(
        toks("true false"),
        ["Bool true", "Whitespace  ", "Bool false"]
    );
    assert_eq!(
        toks("x in xs where isa"),
        [
            "Identifier x",
            "Whitespace  ",
            "op in",
            "Whitespace  ",
            "Identifier xs",
            "Whitespace  ",
            "op where",
            "Whitespace  ",
            "op isa"
        ]
    );
}

#[test]
fn integers() {
    assert_eq!(toks("42"), ["Integer 42"]);
    assert_eq!(toks("1_000_000"), ["Integer 1_000_000"]);
    assert_eq!(toks("1__0"), ["Integer 1", "Identifier __0"]);
    assert_eq!(toks("1_"), ["Integer 1", "Identifier _"]);
    assert_eq!(toks("0xff_ff"), ["HexInt 0xff_ff"]);
    assert_eq!(toks("0b101"), ["BinInt 0b101"]);
    assert_eq!(toks("0o17"), ["OctInt 0o17"]);
    assert_eq!(toks("0b12"), ["InvalidNumericConstant 0b12"]);
    assert_eq!(toks("0x"), ["InvalidNumericConstant 0x"]);
    assert_eq!(toks("0xg"), ["InvalidNumericConstant 0xg"]);
    assert_eq!(toks("0o8"), ["InvalidNumericConstant 0o8"]);
    // `2x`: a number then a name (juxtaposition is the parser's business).
    assert_eq!(toks("2x"), ["Integer 2", "Identifier x"]);
    assert_eq!(toks("0x1y"), ["InvalidNumericConstant 0x1y"]);
}

#[test]
fn floats() {
    for f in [
        "1.0", "1.", ".5", "1e-3", "1E3", "2.5e+3", "1.5e−3", "0x1p3", "0x1.8p-2", "0x.8p0",
        "1_0.0_1", "1e1_0",
    ] {
        let expected = if f == "1e1_0" {
            vec!["Float 1e1".to_string(), "Identifier _0".to_string()]
        } else {
            vec![format!("Float {f}")]
        };
        assert_eq!(toks(f), expected, "{f}");
    }
    assert_eq!(toks("1f0"), ["Float32 1f0"]);
    assert_eq!(toks("1.5f-3"), ["Float32 1.5f-3"]);
    // `1e` and `1f` are a number juxtaposed with a name, as in Julia.
    assert_eq!(toks("1e"), ["Integer 1", "Identifier e"]);
    assert_eq!(toks("1f"), ["Integer 1", "Identifier f"]);
    assert_eq!(
        toks("1.e"),
        ["AmbiguousNumericDotMultiply 1.", "Identifier e"]
    );
    assert_eq!(
        toks("1.x"),
        ["AmbiguousNumericDotMultiply 1.", "Identifier x"]
    );
    assert_eq!(toks("1.(x)")[0], "AmbiguousNumericDotMultiply 1.");
    assert_eq!(toks("1.e+"), ["InvalidNumericConstant 1.e+"]);
    assert_eq!(toks("1.2.3"), ["InvalidNumericConstant 1.2.", "Integer 3"]);
    assert_eq!(toks("1e1.5"), ["InvalidNumericConstant 1e1.", "Integer 5"]);
    assert_eq!(toks("0x1.8"), ["HexFloatMustContainP 0x1.8"]);
    assert_eq!(
        toks("1.+2"),
        ["AmbiguousNumericConstant 1.", "op +", "Integer 2"]
    );
    // Ranges and splats after a number.
    assert_eq!(toks("1..2"), ["Integer 1", "op ..", "Integer 2"]);
    assert_eq!(toks("1:2"), ["Integer 1", "op :", "Integer 2"]);
    assert_eq!(toks("x..."), ["Identifier x", "op ..."]);
    assert_eq!(toks("1.0..."), ["Float 1.0", "op ..."]);
}

#[test]
fn dotted_and_suffixed_operators() {
    assert_eq!(
        toks("a.+b"),
        ["Identifier a", "op .", "op +", "Identifier b"]
    );
    assert_eq!(toks("x.^2"), ["Identifier x", "op .", "op ^", "Integer 2"]);
    assert_eq!(
        toks("1 .+ 2"),
        [
            "Integer 1",
            "Whitespace  ",
            "op .",
            "op +",
            "Whitespace  ",
            "Integer 2"
        ]
    );
    assert_eq!(
        toks("f.(x)"),
        ["Identifier f", "op .", "(", "Identifier x", ")"]
    );
    assert_eq!(toks("a +₁ b")[2], "op-suffixed +₁");
    assert_eq!(toks("a -′ b")[2], "op-suffixed -′");
    // `=` never takes a suffix.
    assert_eq!(toks("a =₁")[2], "op =");
    assert_eq!(toks("x .+= 1")[2..4], ["op .", "op +="]);
    for op in [
        "+=", "-=", "*=", "/=", "//=", "^=", "÷=", "%=", "|=", "&=", "<<=", ">>=", ">>>=", "\\=",
        "⊻=", "$=",
    ] {
        assert_eq!(toks(op), [format!("op {op}")], "{op}");
    }
    for op in [
        "==", "===", "!=", "!==", "<=", ">=", "<:", ">:", "<|", "|>", "=>", "->", "-->", "<--",
        "<-->", "::", ":=", "&&", "||", "...", "..", "//", ">>>", "<<", "++", "≈", "√", "⊗", "→",
        "−",
    ] {
        assert_eq!(toks(op), [format!("op {op}")], "{op}");
    }
    assert_eq!(toks("--"), ["InvalidOperator --"]);
    assert_eq!(toks("**"), ["StarStar **"]);
    assert_eq!(toks("..+"), ["InvalidOperator ..+"]);
    // `->` after a dot is `-` then `>` (`.->` is not an operator).
    assert_eq!(toks("a.->b")[1..4], ["op .", "op -", "op >"]);
    // The minus sign and the middle dot are read as `-` and `⋅`.
    assert_eq!(tokenize("−")[0].kind, tokenize("-")[0].kind);
    assert_eq!(tokenize("·")[0].kind, tokenize("⋅")[0].kind);
}

#[test]
fn adjoint_or_character() {
    assert_eq!(toks("x'"), ["Identifier x", "op '"]);
    assert_eq!(toks("x''"), ["Identifier x", "op '", "op '"]);
    assert_eq!(toks("(a)'"), ["(", "Identifier a", ")", "op '"]);
    assert_eq!(
        toks("A[1]'"),
        ["Identifier A", "[", "Integer 1", "]", "op '"]
    );
    assert_eq!(toks("2'"), ["Integer 2", "op '"]);
    assert_eq!(toks("'a'"), ["op '", "Char a", "op '"]);
    assert_eq!(toks("'\\n'"), ["op '", "Char \\n", "op '"]);
    assert_eq!(toks("'''"), ["op '", "Char '", "op '"]);
    assert_eq!(
        toks("x 'a'"),
        ["Identifier x", "Whitespace  ", "op '", "Char a", "op '"]
    );
    assert_eq!(
        toks("f('α')"),
        ["Identifier f", "(", "op '", "Char α", "op '", ")"]
    );
}

#[test]
fn strings() {
    assert_eq!(toks("\"abc\""), ["\"", "String abc", "\""]);
    assert_eq!(toks("\"\""), ["\"", "\""]);
    assert_eq!(toks("\"a\\\"b\""), ["\"", "String a\\\"b", "\""]);
    assert_eq!(
        toks("\"a $x b\""),
        ["\"", "String a ", "op $", "Identifier x", "String  b", "\""]
    );
    assert_eq!(
        toks("\"$(x + 1)!\""),
        [
            "\"",
            "op $",
            "(",
            "Identifier x",
            "Whitespace  ",
            "op +",
            "Whitespace  ",
            "Integer 1",
            ")",
            "String !",
            "\""
        ]
    );
    // Nested strings and parentheses inside an interpolation.
    assert_eq!(
        toks("\"$(f(\"(\"))\""),
        [
            "\"",
            "op $",
            "(",
            "Identifier f",
            "(",
            "\"",
            "String (",
            "\"",
            ")",
            ")",
            "\""
        ]
    );
    assert_eq!(toks("\"$x!\"")[2], "Identifier x!");
    assert_eq!(toks("\"$x“\"")[3], "InvalidInterpolationTerminator “");
    assert_eq!(
        toks("\"\"\"a\n\"b\"\n\"\"\""),
        ["\"\"\"", "String a\\n", "String \"b\"\\n", "\"\"\""]
    );
    // After a name the string is raw: no interpolation, no escapes but `\"`.
    assert_eq!(
        toks("r\"a$b\\d\""),
        ["Identifier r", "\"", "String a$b\\d", "\""]
    );
    assert_eq!(toks("`ls $x`"), ["`", "CmdString ls $x", "`"]);
    assert_eq!(toks("\"abc"), ["\"", "String abc"]);
    // An escaped newline is whitespace inside the string.
    assert_eq!(
        toks("\"a\\\n  b\""),
        ["\"", "String a", "Whitespace \\\\n  ", "String b", "\""]
    );
}

#[test]
fn comments_and_whitespace() {
    assert_eq!(
        toks("x # c\ny"),
        [
            "Identifier x",
            "Whitespace  ",
            "Comment # c",
            "NewlineWs \\n",
            "Identifier y"
        ]
    );
    assert_eq!(
        toks("#= a #= b =# c =#x"),
        ["Comment #= a #= b =# c =#", "Identifier x"]
    );
    assert_eq!(toks("#= a"), ["EofMultiComment #= a"]);
    // One newline per token: a blank line is two tokens.
    assert_eq!(
        toks("a\n\n  b"),
        [
            "Identifier a",
            "NewlineWs \\n",
            "NewlineWs \\n  ",
            "Identifier b"
        ]
    );
    assert_eq!(
        toks("a\r\nb"),
        ["Identifier a", "NewlineWs \r\\n", "Identifier b"]
    );
    assert_eq!(toks("\u{feff}x"), ["Whitespace \u{feff}", "Identifier x"]);
}

#[test]
fn odd_characters_are_error_tokens() {
    assert_eq!(kinds("\u{200b}"), [Kind::Error(TokenError::InvisibleChar)]);
    assert_eq!(kinds("₁"), [Kind::Error(TokenError::IdentifierStart)]);
    assert_eq!(kinds("§"), [Kind::Error(TokenError::UnknownCharacter)]);
}

#[test]
fn macros_and_dots() {
    assert_eq!(
        toks("@inbounds x"),
        ["@", "Identifier inbounds", "Whitespace  ", "Identifier x"]
    );
    // `@.` names the macro `.`.
    assert_eq!(
        toks("@. x"),
        ["@", "Identifier .", "Whitespace  ", "Identifier x"]
    );
    assert_eq!(
        toks("Base.@kwdef"),
        ["Identifier Base", "op .", "@", "Identifier kwdef"]
    );
    assert_eq!(toks("a.b"), ["Identifier a", "op .", "Identifier b"]);
}

#[test]
fn the_arrow_with_lower_hook_is_an_operator() {
    // Julia's issue 57143: `a 🢲 b` is a call of the arrow 🢲 (its Unicode category would start
    // a name); after a name's first character it continues the name, as in JuliaSyntax.
    assert_eq!(
        toks("a 🢲 b"),
        [
            "Identifier a",
            "Whitespace  ",
            "op 🢲",
            "Whitespace  ",
            "Identifier b"
        ]
    );
    assert_eq!(toks("x🢲"), ["Identifier x🢲"]);
}
