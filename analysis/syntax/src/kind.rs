//! The kinds of tokens and of syntax tree nodes, and Julia's operators with their precedence
//! classes (the tables of Julia's own parser, JuliaSyntax's `kinds.jl`).

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

/// The kind of a token or of a syntax tree node.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Kind {
    // Trivia.
    /// Spaces and tabs (no newline).
    Whitespace,
    /// Whitespace holding one newline (`\n` or `\r\n`) and the blanks after it.
    NewlineWs,
    /// `# ...` or `#= ... =#`.
    Comment,

    // Atoms.
    Identifier,
    /// `true` or `false`.
    Bool,
    /// `42`, `1_000`.
    Integer,
    /// `0b101`.
    BinInt,
    /// `0o17`.
    OctInt,
    /// `0xff`.
    HexInt,
    /// `1.0`, `1e-3`, `.5`, `0x1p3`.
    Float,
    /// `1f0`, `1.5f-3`.
    Float32,
    /// A chunk of text inside a string literal.
    String,
    /// A chunk of text inside a command literal.
    CmdString,
    /// The character inside a character literal.
    Char,

    Keyword(Keyword),

    // Delimiters.
    /// `@`.
    At,
    Comma,
    Semicolon,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    LParen,
    RParen,
    /// `"`.
    DQuote,
    /// `"""`.
    TripleDQuote,
    /// `` ` ``.
    Backtick,
    /// ```` ``` ````.
    TripleBacktick,

    /// An operator (its precedence class is in the table).
    Op(Op),
    /// A token the lexer could not make sense of.
    Error(TokenError),
    /// The end of the input.
    EndMarker,

    // Interior nodes of the syntax tree.
    Toplevel,
    Block,
    /// A call `f(x)`, an infix call `a + b`, a prefix `-x` or postfix `x'` call.
    Call,
    /// A broadcast call `f.(x)`, `a .+ b`, `.-x`.
    DotCall,
    /// A chain of comparisons `a < b <= c`.
    Comparison,
    /// `T{A, B}`.
    Curly,
    /// `2x`, `2(x + 1)`, `(x - 1)y`.
    Juxtapose,
    /// A string literal with its chunks and interpolations.
    StringLit,
    /// A command literal.
    CmdStringLit,
    /// A character literal.
    CharLit,
    MacroCall,
    /// `@m` or `M.@m`: the name of a macro.
    MacroName,
    /// The arguments after `;` in a call, a tuple or brackets.
    Parameters,
    Tuple,
    /// `a[i]`.
    Ref,
    /// `[a, b]`.
    Vect,
    /// `(x)`: grouping parentheses.
    Parens,
    /// `{a, b}`.
    Braces,
    /// `{a b}`.
    BracesCat,
    /// `[a b]`.
    Hcat,
    /// `[a; b]`.
    Vcat,
    /// `[a;; b]` and higher dimensions; `dim` is in the node's flags.
    Ncat,
    /// `T[a b]`.
    TypedHcat,
    /// `T[a; b]`.
    TypedVcat,
    /// `T[a;; b]`.
    TypedNcat,
    /// One row of a `Vcat` (`a b`).
    Row,
    /// One part of an `Ncat` along its dimension (in the flags).
    Nrow,
    /// `x for x in xs`.
    Generator,
    /// `for ... if cond` inside a generator.
    Filter,
    /// The iteration specs of a `for` or a generator.
    Iteration,
    /// `[x for x in xs]`.
    Comprehension,
    /// `T[x for x in xs]`.
    TypedComprehension,
    /// `import A.B.c`: one path.
    ImportPath,
    /// One iteration spec `x in xs` (also `x = xs`, `x ∈ xs`).
    In,
    /// `a => b` is a call; `a = b`, `a += b`, `a .= b`, `a .+= b`, `a := b`.
    Assign,
    /// `x += 1` (the operator is the middle child).
    OpAssign,
    /// `x .= y`.
    DotAssign,
    /// `x .+= y`.
    DotOpAssign,
    /// `x := y`.
    ColonAssign,
    /// `a ? b : c`.
    Ternary,
    /// `a && b`.
    And,
    /// `a || b`.
    Or,
    /// `a .&& b`.
    DotAnd,
    /// `a .|| b`.
    DotOr,
    /// `x -> body` (the arguments are a tuple).
    Arrow,
    /// `x --> y`.
    LongArrow,
    /// `x::T` or `::T`.
    Decl,
    /// `A <: B` or `<: B`.
    Subtype,
    /// `A >: B` or `>: B`.
    Supertype,
    /// `x...`.
    Splat,
    /// `a.b`: field access (and `A.@m`, `f.$x`).
    Dot,
    /// `:x`, `quote ... end`.
    Quote,
    /// `$x`.
    Interpolate,
    /// `&x` (only meaningful in `ccall`).
    AddressOf,
    /// `x where T`.
    Where,
    /// A method definition (`function ... end`, `f(x) = ...`).
    Function,
    /// `macro ... end`.
    Macro,
    If,
    Elseif,
    While,
    For,
    Let,
    Try,
    Catch,
    Finally,
    /// `try ... catch ... else ... end`.
    TryElse,
    Return,
    Break,
    Continue,
    Local,
    Global,
    Const,
    Struct,
    Abstract,
    Primitive,
    Module,
    Import,
    Using,
    Export,
    Public,
    /// `import A: b, c`.
    ImportFrom,
    /// `import A as B`.
    As,
    /// `f(x) do y ... end`: the `do` block (the last argument of the call).
    Do,
    /// `"doc" f(x) = ...`.
    Doc,
    /// `outer i` in a `for` loop.
    Outer,
    /// `var"name"`.
    Var,
    /// A syntax error; the message is in the diagnostics.
    ErrorNode,
    /// A placeholder in the parser's output: a token that is dropped, or a node whose children
    /// belong to its parent.
    Tombstone,
}

/// Julia's reserved and contextual keywords.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Keyword {
    Baremodule,
    Begin,
    Break,
    Catch,
    Const,
    Continue,
    Do,
    Else,
    Elseif,
    End,
    Export,
    Finally,
    For,
    Function,
    Global,
    If,
    Import,
    Let,
    Local,
    Macro,
    Module,
    Public,
    Quote,
    Return,
    Struct,
    Try,
    Using,
    While,
    // Contextual keywords: names everywhere but in their construct.
    Abstract,
    As,
    Doc,
    Mutable,
    Outer,
    Primitive,
    Type,
    Var,
}

impl Keyword {
    /// The keyword spelled `text`.
    pub fn from_text(text: &str) -> Option<Keyword> {
        use Keyword::*;
        Some(match text {
            "baremodule" => Baremodule,
            "begin" => Begin,
            "break" => Break,
            "catch" => Catch,
            "const" => Const,
            "continue" => Continue,
            "do" => Do,
            "else" => Else,
            "elseif" => Elseif,
            "end" => End,
            "export" => Export,
            "finally" => Finally,
            "for" => For,
            "function" => Function,
            "global" => Global,
            "if" => If,
            "import" => Import,
            "let" => Let,
            "local" => Local,
            "macro" => Macro,
            "module" => Module,
            "public" => Public,
            "quote" => Quote,
            "return" => Return,
            "struct" => Struct,
            "try" => Try,
            "using" => Using,
            "while" => While,
            "abstract" => Abstract,
            "as" => As,
            "doc" => Doc,
            "mutable" => Mutable,
            "outer" => Outer,
            "primitive" => Primitive,
            "type" => Type,
            "var" => Var,
            _ => return None,
        })
    }

    /// How the keyword is spelled.
    pub fn text(self) -> &'static str {
        use Keyword::*;
        match self {
            Baremodule => "baremodule",
            Begin => "begin",
            Break => "break",
            Catch => "catch",
            Const => "const",
            Continue => "continue",
            Do => "do",
            Else => "else",
            Elseif => "elseif",
            End => "end",
            Export => "export",
            Finally => "finally",
            For => "for",
            Function => "function",
            Global => "global",
            If => "if",
            Import => "import",
            Let => "let",
            Local => "local",
            Macro => "macro",
            Module => "module",
            Public => "public",
            Quote => "quote",
            Return => "return",
            Struct => "struct",
            Try => "try",
            Using => "using",
            While => "while",
            Abstract => "abstract",
            As => "as",
            Doc => "doc",
            Mutable => "mutable",
            Outer => "outer",
            Primitive => "primitive",
            Type => "type",
            Var => "var",
        }
    }

    /// A contextual keyword is a name outside its construct (`type = 1` is an assignment).
    pub fn is_contextual(self) -> bool {
        use Keyword::*;
        matches!(
            self,
            Abstract | As | Doc | Mutable | Outer | Primitive | Type | Var
        )
    }
}

/// Errors the lexer finds in a token.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum TokenError {
    /// `#=` without its `=#`.
    EofMultiComment,
    /// `1.2.3`, `1e`, `0x`, `0b12`.
    InvalidNumericConstant,
    /// `0x1.8` without an exponent.
    HexFloatMustContainP,
    /// `1.+2`: `1.0 + 2` or `1 .+ 2`?
    AmbiguousNumericConstant,
    /// `1.x`: a literal ending with `.` cannot be juxtaposed.
    AmbiguousNumericDotMultiply,
    /// `"$x!"`: an interpolated name followed by a character that could continue it.
    InvalidInterpolationTerminator,
    /// A zero-width or other invisible character.
    InvisibleChar,
    /// A character that may continue but not start a name.
    IdentifierStart,
    /// A character that is nothing in Julia.
    UnknownCharacter,
    /// Unbalanced bidirectional formatting characters in a string or comment.
    BidiFormatting,
    /// `--`, `<---`, `..+`.
    InvalidOperator,
    /// `**`.
    StarStar,
}

impl TokenError {
    /// What is wrong, in one line.
    pub fn message(self) -> &'static str {
        match self {
            TokenError::EofMultiComment => "unterminated multi-line comment #= ... =#",
            TokenError::InvalidNumericConstant => "invalid numeric constant",
            TokenError::HexFloatMustContainP => "hex float literal must contain `p` or `P`",
            TokenError::AmbiguousNumericConstant => {
                "ambiguous `.` syntax; add whitespace to clarify (eg `1.+2` might be `1.0+2` or \
                 `1 .+ 2`)"
            }
            TokenError::AmbiguousNumericDotMultiply => {
                "numeric constant cannot be implicitly multiplied because it ends with `.`"
            }
            TokenError::InvalidInterpolationTerminator => {
                "interpolated variable ends with invalid character; use `$(...)` instead"
            }
            TokenError::InvisibleChar => "invisible character",
            TokenError::IdentifierStart => "identifier cannot begin with character",
            TokenError::UnknownCharacter => "unknown unicode character",
            TokenError::BidiFormatting => "unbalanced bidirectional unicode formatting",
            TokenError::InvalidOperator => "invalid operator",
            TokenError::StarStar => {
                "use `x^y` instead of `x**y` for exponentiation, and `x...` instead of `**x` \
                 for splatting"
            }
        }
    }
}

/// The precedence class of an operator, from the loosest to the tightest binding.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Prec {
    /// `=`, `~`, `:=`, `≔`, ... (`+=` and friends are lexed as one [`Op`] of this class).
    Assignment,
    /// `=>`.
    Pair,
    /// `?`.
    Conditional,
    /// `-->`, `→`, `↔`, ...
    Arrow,
    /// `||`.
    LazyOr,
    /// `&&`.
    LazyAnd,
    /// `<`, `==`, `<:`, `in`, `isa`, `≈`, ...
    Comparison,
    /// `<|` and `|>`.
    Pipe,
    /// `:`, `..`, `…`, ...
    Colon,
    /// `+`, `-`, `|`, `$`, `⊕`, ...
    Plus,
    /// `*`, `/`, `÷`, `%`, `&`, `⋅`, `∘`, ...
    Times,
    /// `//`.
    Rational,
    /// `<<`, `>>`, `>>>`.
    Bitshift,
    /// `^`, `↑`, ...
    Power,
    /// `::`.
    Decl,
    /// `where`.
    Where,
    /// `.`.
    Dot,
    /// Operators outside the binary table: `!`, `'`, `.'`, `->`, `...`, `¬`, `√`, `∛`, `∜`.
    Other,
}

/// Julia's operators by precedence class, each in its canonical spelling.
const CLASSES: &[(Prec, &str)] = &[
    (Prec::Assignment, "= := ~ ≔ ⩴ ≕ op="),
    (Prec::Pair, "=>"),
    (Prec::Conditional, "?"),
    (
        Prec::Arrow,
        "--> <-- <--> ← → ↔ ↚ ↛ ↞ ↠ ↢ ↣ ↤ ↦ ↮ ⇎ ⇍ ⇏ ⇐ ⇒ ⇔ ⇴ ⇶ ⇷ ⇸ ⇹ ⇺ ⇻ ⇼ ⇽ ⇾ ⇿ ⟵ ⟶ ⟷ ⟹ ⟺ ⟻ ⟼ \
         ⟽ ⟾ ⟿ ⤀ ⤁ ⤂ ⤃ ⤄ ⤅ ⤆ ⤇ ⤌ ⤍ ⤎ ⤏ ⤐ ⤑ ⤔ ⤕ ⤖ ⤗ ⤘ ⤝ ⤞ ⤟ ⤠ ⥄ ⥅ ⥆ ⥇ ⥈ ⥊ ⥋ ⥎ ⥐ ⥒ ⥓ \
         ⥖ ⥗ ⥚ ⥛ ⥞ ⥟ ⥢ ⥤ ⥦ ⥧ ⥨ ⥩ ⥪ ⥫ ⥬ ⥭ ⥰ ⧴ ⬱ ⬰ ⬲ ⬳ ⬴ ⬵ ⬶ ⬷ ⬸ ⬹ ⬺ ⬻ ⬼ ⬽ ⬾ ⬿ ⭀ ⭁ ⭂ ⭃ \
         ⥷ ⭄ ⥺ ⭇ ⭈ ⭉ ⭊ ⭋ ⭌ ￩ ￫ ⇜ ⇝ ↜ ↝ ↩ ↪ ↫ ↬ ↼ ↽ ⇀ ⇁ ⇄ ⇆ ⇇ ⇉ ⇋ ⇌ ⇚ ⇛ ⇠ ⇢ ↷ ↶ ↺ ↻ 🢲",
    ),
    (Prec::LazyOr, "||"),
    (Prec::LazyAnd, "&&"),
    (
        Prec::Comparison,
        "<: >: > < >= ≥ <= ≤ == === ≡ != ≠ !== ≢ ∈ in isa ∉ ∋ ∌ ⊆ ⊈ ⊂ ⊄ ⊊ ∝ ∊ ∍ ∥ ∦ ∷ ∺ ∻ ∽ ∾ ≁ \
         ≃ ≂ ≄ ≅ ≆ ≇ ≈ ≉ ≊ ≋ ≌ ≍ ≎ ≐ ≑ ≒ ≓ ≖ ≗ ≘ ≙ ≚ ≛ ≜ ≝ ≞ ≟ ≣ ≦ ≧ ≨ ≩ ≪ ≫ ≬ ≭ ≮ ≯ ≰ ≱ ≲ ≳ ≴ \
         ≵ ≶ ≷ ≸ ≹ ≺ ≻ ≼ ≽ ≾ ≿ ⊀ ⊁ ⊃ ⊅ ⊇ ⊉ ⊋ ⊏ ⊐ ⊑ ⊒ ⊜ ⊩ ⊬ ⊮ ⊰ ⊱ ⊲ ⊳ ⊴ ⊵ ⊶ ⊷ ⋍ ⋐ ⋑ ⋕ ⋖ ⋗ ⋘ \
         ⋙ ⋚ ⋛ ⋜ ⋝ ⋞ ⋟ ⋠ ⋡ ⋢ ⋣ ⋤ ⋥ ⋦ ⋧ ⋨ ⋩ ⋪ ⋫ ⋬ ⋭ ⋲ ⋳ ⋴ ⋵ ⋶ ⋷ ⋸ ⋹ ⋺ ⋻ ⋼ ⋽ ⋾ ⋿ ⟈ ⟉ ⟒ ⦷ ⧀ ⧁ \
         ⧡ ⧣ ⧤ ⧥ ⩦ ⩧ ⩪ ⩫ ⩬ ⩭ ⩮ ⩯ ⩰ ⩱ ⩲ ⩳ ⩵ ⩶ ⩷ ⩸ ⩹ ⩺ ⩻ ⩼ ⩽ ⩾ ⩿ ⪀ ⪁ ⪂ ⪃ ⪄ ⪅ ⪆ ⪇ ⪈ ⪉ ⪊ ⪋ ⪌ \
         ⪍ ⪎ ⪏ ⪐ ⪑ ⪒ ⪓ ⪔ ⪕ ⪖ ⪗ ⪘ ⪙ ⪚ ⪛ ⪜ ⪝ ⪞ ⪟ ⪠ ⪡ ⪢ ⪣ ⪤ ⪥ ⪦ ⪧ ⪨ ⪩ ⪪ ⪫ ⪬ ⪭ ⪮ ⪯ ⪰ ⪱ ⪲ ⪳ ⪴ \
         ⪵ ⪶ ⪷ ⪸ ⪹ ⪺ ⪻ ⪼ ⪽ ⪾ ⪿ ⫀ ⫁ ⫂ ⫃ ⫄ ⫅ ⫆ ⫇ ⫈ ⫉ ⫊ ⫋ ⫌ ⫍ ⫎ ⫏ ⫐ ⫑ ⫒ ⫓ ⫔ ⫕ ⫖ ⫗ ⫘ ⫙ ⫷ ⫸ ⫹ \
         ⫺ ⊢ ⊣ ⟂ ⫪ ⫫",
    ),
    (Prec::Pipe, "<| |>"),
    (Prec::Colon, ": .. … ⁝ ⋮ ⋱ ⋰ ⋯"),
    (
        Prec::Plus,
        "$ + - ++ ⊕ ⊖ ⊞ ⊟ | ∪ ∨ ⊔ ± ∓ ∔ ∸ ≏ ⊎ ⊻ ⊽ ⋎ ⋓ ⟇ ⧺ ⧻ ⨈ ⨢ ⨣ ⨤ ⨥ ⨦ ⨧ ⨨ ⨩ ⨪ ⨫ ⨬ ⨭ ⨮ ⨹ ⨺ ⩁ \
         ⩂ ⩅ ⩊ ⩌ ⩏ ⩐ ⩒ ⩔ ⩖ ⩗ ⩛ ⩝ ⩡ ⩢ ⩣ ¦",
    ),
    (
        Prec::Times,
        "* / ÷ % ⋅ ∘ × \\ & ∩ ∧ ⊗ ⊘ ⊙ ⊚ ⊛ ⊠ ⊡ ⊓ ∗ ∙ ∤ ⅋ ≀ ⊼ ⋄ ⋆ ⋇ ⋉ ⋊ ⋋ ⋌ ⋏ ⋒ ⟑ ⦸ ⦼ ⦾ ⦿ ⧶ ⧷ \
         ⨇ ⨰ ⨱ ⨲ ⨳ ⨴ ⨵ ⨶ ⨷ ⨸ ⨻ ⨼ ⨽ ⩀ ⩃ ⩄ ⩋ ⩍ ⩎ ⩑ ⩓ ⩕ ⩘ ⩚ ⩜ ⩞ ⩟ ⩠ ⫛ ⊍ ▷ ⨝ ⟕ ⟖ ⟗ ⌿ ⨟",
    ),
    (Prec::Rational, "//"),
    (Prec::Bitshift, "<< >> >>>"),
    (
        Prec::Power,
        "^ ↑ ↓ ⇵ ⟰ ⟱ ⤈ ⤉ ⤊ ⤋ ⤒ ⤓ ⥉ ⥌ ⥍ ⥏ ⥑ ⥔ ⥕ ⥘ ⥙ ⥜ ⥝ ⥠ ⥡ ⥣ ⥥ ⥮ ⥯ ￪ ￬",
    ),
    (Prec::Decl, "::"),
    (Prec::Where, "where"),
    (Prec::Dot, "."),
    (Prec::Other, "! ' .' -> ... ¬ √ ∛ ∜"),
];

/// An operator: an index into the table of Julia's operators.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Op(u16);

/// The operator table: every operator's spelling and class, and the index of each spelling.
struct Table {
    ops: Vec<(&'static str, Prec)>,
    by_text: HashMap<&'static str, Op>,
    /// The operators spelled with one non-ASCII character, and their look-alike aliases.
    by_char: HashMap<char, Op>,
    /// The first characters of the symbolic operators (not `.`, `...`, `.'`, `op=`, words).
    first_chars: std::collections::HashSet<char>,
}

/// Characters the lexer reads as another operator: the minus sign is `-`, the middle dots are
/// `⋅`.
const ALIASES: &[(char, &str)] = &[('−', "-"), ('\u{b7}', "⋅"), ('\u{387}', "⋅")];

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut ops = Vec::new();
        let mut by_text = HashMap::new();
        let mut by_char = HashMap::new();
        let mut first_chars = std::collections::HashSet::new();
        for (prec, list) in CLASSES {
            for text in list.split_whitespace() {
                let op = Op(ops.len() as u16);
                by_text.insert(text, op);
                ops.push((text, *prec));
                let mut chars = text.chars();
                if let (Some(c), None) = (chars.next(), chars.next()) {
                    if !c.is_ascii() {
                        by_char.insert(c, op);
                    }
                }
                if !matches!(text, "." | "..." | ".'" | "op=" | "in" | "isa" | "where") {
                    first_chars.extend(text.chars().next());
                }
            }
        }
        for (alias, text) in ALIASES {
            if let Some(op) = by_text.get(text) {
                by_char.insert(*alias, *op);
                first_chars.insert(*alias);
            }
        }
        Table {
            ops,
            by_text,
            by_char,
            first_chars,
        }
    })
}

impl Op {
    /// The operator spelled `text` (canonical spelling; `op=` stands for all of `+=`, `-=`, ...).
    pub fn from_text(text: &str) -> Option<Op> {
        table().by_text.get(text).copied()
    }

    /// An operator of the table by its spelling (a spelling outside the table, which no caller
    /// passes, gives the table's first operator rather than a panic).
    pub(crate) fn known(text: &str) -> Op {
        Op::from_text(text).unwrap_or(Op(0))
    }

    /// The operator written as the single non-ASCII character `c` (`−` is `-`, `·` is `⋅`).
    pub fn from_char(c: char) -> Option<Op> {
        table().by_char.get(&c).copied()
    }

    /// Can `c` start an operator other than `.` and `...`? (Used to tell `1.+2` apart.)
    pub fn starts_with(c: char) -> bool {
        table().first_chars.contains(&c)
    }

    /// The canonical spelling.
    pub fn text(self) -> &'static str {
        table().ops.get(self.0 as usize).map_or("", |op| op.0)
    }

    /// The precedence class.
    pub fn prec(self) -> Prec {
        table()
            .ops
            .get(self.0 as usize)
            .map_or(Prec::Other, |op| op.1)
    }

    /// Is this the operator spelled `text`?
    pub fn is(self, text: &str) -> bool {
        self.text() == text
    }

    /// `in`, `isa`, `where`: operators spelled like names.
    pub fn is_word(self) -> bool {
        matches!(self.text(), "in" | "isa" | "where")
    }

    /// The syntactic operators: not functions, so never called or used as values.
    pub fn is_syntactic(self) -> bool {
        matches!(
            self.text(),
            "&&" | "||" | "." | "..." | "->" | "=" | ":=" | "op="
        )
    }

    /// May a suffix (`₁`, `′`, a combining mark) follow this operator as part of it?
    pub fn takes_suffix(self) -> bool {
        !(self.prec() == Prec::Assignment
            || matches!(
                self.text(),
                "..."
                    | "?"
                    | "<:"
                    | ">:"
                    | "&&"
                    | "||"
                    | "in"
                    | "isa"
                    | "≔"
                    | "⩴"
                    | ":"
                    | ".."
                    | "$"
                    | "::"
                    | "where"
                    | "."
                    | "!"
                    | ".'"
                    | "->"
                    | "¬"
                    | "√"
                    | "∛"
                    | "∜"
            ))
    }

    /// `√`, `∛`, `∜`: they bind a following literal coefficient (`√2x` is `(√2)x`).
    pub fn is_radical(self) -> bool {
        matches!(self.text(), "√" | "∛" | "∜")
    }
}

impl fmt::Debug for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Op({})", self.text())
    }
}

impl Kind {
    /// Whitespace and comments.
    pub fn is_trivia(self) -> bool {
        matches!(self, Kind::Whitespace | Kind::NewlineWs | Kind::Comment)
    }

    /// Numeric literals (`true` and `false` included, as in Julia's parser).
    pub fn is_number(self) -> bool {
        matches!(
            self,
            Kind::Bool
                | Kind::Integer
                | Kind::BinInt
                | Kind::OctInt
                | Kind::HexInt
                | Kind::Float
                | Kind::Float32
        )
    }

    /// Numbers, string and command chunks, characters.
    pub fn is_literal(self) -> bool {
        self.is_number() || matches!(self, Kind::String | Kind::CmdString | Kind::Char)
    }

    /// Operators, including the invalid ones the lexer recognised as operators (`--`, `**`).
    pub fn is_operator(self) -> bool {
        matches!(
            self,
            Kind::Op(_) | Kind::Error(TokenError::InvalidOperator | TokenError::StarStar)
        )
    }

    /// The operator, if this is one.
    pub fn op(self) -> Option<Op> {
        match self {
            Kind::Op(op) => Some(op),
            _ => None,
        }
    }

    /// Is this the operator spelled `text`?
    pub fn is_op(self, text: &str) -> bool {
        self.op().is_some_and(|op| op.is(text))
    }

    /// The precedence class of an operator.
    pub fn prec(self) -> Option<Prec> {
        self.op().map(Op::prec)
    }

    /// Is this the keyword `keyword`?
    pub fn is_keyword(self, keyword: Keyword) -> bool {
        self == Kind::Keyword(keyword)
    }

    /// Any keyword, reserved or contextual.
    pub fn is_any_keyword(self) -> bool {
        matches!(self, Kind::Keyword(_))
    }

    /// A reserved word (a keyword that is never a name).
    pub fn is_reserved_word(self) -> bool {
        matches!(self, Kind::Keyword(k) if !k.is_contextual())
    }

    /// A contextual keyword (`mutable`, `type`, `outer`, ...).
    pub fn is_contextual_keyword(self) -> bool {
        matches!(self, Kind::Keyword(k) if k.is_contextual())
    }

    /// `in`, `isa`, `where`.
    pub fn is_word_operator(self) -> bool {
        self.op().is_some_and(Op::is_word)
    }

    /// `end`, `else`, `elseif`, `catch`, `finally`.
    pub fn is_block_continuation_keyword(self) -> bool {
        matches!(
            self,
            Kind::Keyword(
                Keyword::End | Keyword::Else | Keyword::Elseif | Keyword::Catch | Keyword::Finally
            )
        )
    }

    /// A lexer error.
    pub fn is_error(self) -> bool {
        matches!(self, Kind::Error(_))
    }

    /// `"` or `"""`.
    pub fn is_string_delim(self) -> bool {
        matches!(self, Kind::DQuote | Kind::TripleDQuote)
    }

    /// `√`, `∛`, `∜`.
    pub fn is_radical_op(self) -> bool {
        self.op().is_some_and(Op::is_radical)
    }

    /// The kind as it appears in a printed syntax tree.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Whitespace => "Whitespace",
            Kind::NewlineWs => "NewlineWs",
            Kind::Comment => "Comment",
            Kind::Identifier => "Identifier",
            Kind::Bool => "Bool",
            Kind::Integer => "Integer",
            Kind::BinInt => "BinInt",
            Kind::OctInt => "OctInt",
            Kind::HexInt => "HexInt",
            Kind::Float => "Float",
            Kind::Float32 => "Float32",
            Kind::String => "String",
            Kind::CmdString => "CmdString",
            Kind::Char => "Char",
            Kind::Keyword(k) => k.text(),
            Kind::At => "@",
            Kind::Comma => ",",
            Kind::Semicolon => ";",
            Kind::LBracket => "[",
            Kind::RBracket => "]",
            Kind::LBrace => "{",
            Kind::RBrace => "}",
            Kind::LParen => "(",
            Kind::RParen => ")",
            Kind::DQuote => "\"",
            Kind::TripleDQuote => "\"\"\"",
            Kind::Backtick => "`",
            Kind::TripleBacktick => "```",
            Kind::Op(op) => op.text(),
            Kind::Error(_) => "error-token",
            Kind::EndMarker => "EndMarker",
            Kind::Toplevel => "toplevel",
            Kind::Block => "block",
            Kind::Call => "call",
            Kind::DotCall => "dotcall",
            Kind::Comparison => "comparison",
            Kind::Curly => "curly",
            Kind::Juxtapose => "juxtapose",
            Kind::StringLit => "string",
            Kind::CmdStringLit => "cmdstring",
            Kind::CharLit => "char",
            Kind::MacroCall => "macrocall",
            Kind::MacroName => "macro_name",
            Kind::Parameters => "parameters",
            Kind::Tuple => "tuple",
            Kind::Ref => "ref",
            Kind::Vect => "vect",
            Kind::Parens => "parens",
            Kind::Braces => "braces",
            Kind::BracesCat => "bracescat",
            Kind::Hcat => "hcat",
            Kind::Vcat => "vcat",
            Kind::Ncat => "ncat",
            Kind::TypedHcat => "typed_hcat",
            Kind::TypedVcat => "typed_vcat",
            Kind::TypedNcat => "typed_ncat",
            Kind::Row => "row",
            Kind::Nrow => "nrow",
            Kind::Generator => "generator",
            Kind::Filter => "filter",
            Kind::Iteration => "iteration",
            Kind::Comprehension => "comprehension",
            Kind::TypedComprehension => "typed_comprehension",
            Kind::ImportPath => "importpath",
            Kind::In => "in",
            Kind::Assign => "=",
            Kind::OpAssign => "op=",
            Kind::DotAssign => ".=",
            Kind::DotOpAssign => ".op=",
            Kind::ColonAssign => ":=",
            Kind::Ternary => "?",
            Kind::And => "&&",
            Kind::Or => "||",
            Kind::DotAnd => ".&&",
            Kind::DotOr => ".||",
            Kind::Arrow => "->",
            Kind::LongArrow => "-->",
            Kind::Decl => "::",
            Kind::Subtype => "<:",
            Kind::Supertype => ">:",
            Kind::Splat => "...",
            Kind::Dot => ".",
            Kind::Quote => "quote",
            Kind::Interpolate => "$",
            Kind::AddressOf => "&",
            Kind::Where => "where",
            Kind::Function => "function",
            Kind::Macro => "macro",
            Kind::If => "if",
            Kind::Elseif => "elseif",
            Kind::While => "while",
            Kind::For => "for",
            Kind::Let => "let",
            Kind::Try => "try",
            Kind::Catch => "catch",
            Kind::Finally => "finally",
            Kind::TryElse => "else",
            Kind::Return => "return",
            Kind::Break => "break",
            Kind::Continue => "continue",
            Kind::Local => "local",
            Kind::Global => "global",
            Kind::Const => "const",
            Kind::Struct => "struct",
            Kind::Abstract => "abstract",
            Kind::Primitive => "primitive",
            Kind::Module => "module",
            Kind::Import => "import",
            Kind::Using => "using",
            Kind::Export => "export",
            Kind::Public => "public",
            Kind::ImportFrom => ":",
            Kind::As => "as",
            Kind::Do => "do",
            Kind::Doc => "doc",
            Kind::Outer => "outer",
            Kind::Var => "var",
            Kind::ErrorNode => "error",
            Kind::Tombstone => "TOMBSTONE",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Op, Prec};

    #[test]
    fn every_operator_has_one_class() {
        let mut seen = std::collections::HashSet::new();
        for (_, list) in super::CLASSES {
            for text in list.split_whitespace() {
                assert!(seen.insert(text), "{text} listed twice");
            }
        }
        assert_eq!(Op::from_text("+").map(Op::prec), Some(Prec::Plus));
        assert_eq!(Op::from_text("≈").map(Op::prec), Some(Prec::Comparison));
        assert_eq!(Op::from_text("√").map(Op::prec), Some(Prec::Other));
        assert_eq!(Op::from_text("x"), None);
    }
}
