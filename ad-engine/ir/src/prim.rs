//! The primitive table: every builtin operation declared once, with the attributes the other
//! crates ask instead of keeping their own lists.
//!
//! A row names the [`Prim`] variant and its Julia name, then its [`PrimInfo`] fields: operand
//! count ([`Arity`]), whether and how it acts on numbers ([`Kind`], where an elementary
//! function carries its Rust evaluation and its domain), [`Effects`], differentiability
//! ([`Diff`]) and how the JIT runs it ([`Jit`]). Fields left out take [`PrimInfo::DEFAULT`]'s
//! values. Inference, the interpreter, the AD, codegen and the lints read these attributes; the
//! AD's rules and their test points live beside the rules in `zy-ad` (`docs/rules.md`).

use std::fmt;

use crate::specfun;

/// How many operands a primitive takes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Arity {
    /// Exactly this many.
    Exactly(u8),
    /// From the first to the second, inclusive.
    Between(u8, u8),
    /// At least this many.
    AtLeast(u8),
}

impl Arity {
    /// Does a call with `n` operands have this arity?
    pub fn admits(self, n: usize) -> bool {
        match self {
            Arity::Exactly(k) => n == usize::from(k),
            Arity::Between(a, b) => (usize::from(a)..=usize::from(b)).contains(&n),
            Arity::AtLeast(k) => n >= usize::from(k),
        }
    }
}

/// What a primitive does to numbers.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// Not an operation on numbers (or not one that broadcasts).
    Other,
    /// An elementwise operation on numbers with its own typing rule (arithmetic, comparisons,
    /// rounding, conversions): `f.(xs)` broadcasts it.
    Scalar,
    /// An elementary function of one number, libm style: `Float64` in, `Float64` out, an
    /// integer operand converted first. Broadcasts like [`Kind::Scalar`].
    Math(Math),
}

/// An elementary function of one `Float64`: its evaluation (the one function the interpreter
/// and the JIT's runtime symbol both call, so the engines agree to the bit) and its domain.
#[derive(Clone, Copy)]
pub struct Math {
    /// The value at a point of the domain.
    pub eval: fn(f64) -> f64,
    /// Where it is defined; elsewhere it throws Julia's DomainError.
    pub domain: Domain,
}

impl fmt::Debug for Math {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Math")
            .field("domain", &self.domain)
            .finish_non_exhaustive()
    }
}

/// The real domain of an elementary function, with the message of Julia's DomainError
/// outside it. NaN is inside every domain (the result is NaN).
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Domain {
    /// Every `Float64`.
    All,
    /// Finite numbers: `±Inf` throws.
    Finite(&'static str),
    /// `x >= a`.
    AtLeast(f64, &'static str),
    /// `|x| <= 1`.
    UnitInterval(&'static str),
    /// Where the evaluation is not NaN, or `x` is (Julia's `nan_dom_err`: the poles of
    /// `gamma`, `bessely0` of a negative number).
    NanResult(&'static str),
}

impl Domain {
    /// Julia's DomainError message for `x` whose evaluation is `y`, or `None` if `x` is in the
    /// domain.
    pub fn error(self, x: f64, y: f64) -> Option<&'static str> {
        match self {
            Domain::All => None,
            Domain::Finite(m) => x.is_infinite().then_some(m),
            Domain::AtLeast(a, m) => (x < a).then_some(m),
            Domain::UnitInterval(m) => (x.abs() > 1.0).then_some(m),
            Domain::NanResult(m) => (y.is_nan() && !x.is_nan()).then_some(m),
        }
    }
}

/// What a primitive does besides computing its result.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Effects {
    /// It may allocate a new object (an array, a `Ref`, a stack).
    pub allocates: bool,
    /// It mutates its operand with this index.
    pub mutates: Option<u8>,
    /// When it throws.
    pub throws: Throws,
    /// It calls a function it is given (a user function, a pullback): it may have any effect
    /// that function has.
    pub calls: bool,
    /// A watched run observes it (`tap`): it has no other purpose.
    pub observed: bool,
}

/// When a primitive throws.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Throws {
    /// Never.
    Never,
    /// On the operands described (a statement whose result is unused may still be removed).
    When(&'static str),
    /// Throwing is its purpose, on the operands described: it is never removed.
    Checks(&'static str),
}

impl Effects {
    /// Neither allocates, nor mutates, nor throws.
    pub const PURE: Effects = Effects {
        allocates: false,
        mutates: None,
        throws: Throws::Never,
        calls: false,
        observed: false,
    };

    /// Calls a function it is given, with whatever effects that function has.
    pub const CALLS: Effects = Effects {
        calls: true,
        ..Effects::PURE
    };

    /// Throws on the operands described by `when`.
    pub const fn throws(when: &'static str) -> Effects {
        Effects {
            throws: Throws::When(when),
            ..Effects::PURE
        }
    }

    /// Allocates, and throws on the operands described by `when` (`""`: never).
    pub const fn allocates(when: &'static str) -> Effects {
        Effects {
            allocates: true,
            throws: if when.is_empty() {
                Throws::Never
            } else {
                Throws::When(when)
            },
            ..Effects::PURE
        }
    }

    /// Mutates operand `k`, and throws on the operands described by `when` (`""`: never).
    pub const fn mutates(k: u8, when: &'static str) -> Effects {
        Effects {
            mutates: Some(k),
            throws: if when.is_empty() {
                Throws::Never
            } else {
                Throws::When(when)
            },
            ..Effects::PURE
        }
    }
}

/// Whether and how gradients pass through a primitive.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Diff {
    /// A rule in `zy-ad` gives its pullback; the rule's test points check it against finite
    /// differences on both engines.
    Rule,
    /// Piecewise constant: its derivative is zero where it exists, and the gradient is cut.
    Zero,
    /// Its result carries no gradient (a Bool, an Int, a shape, a fresh constant array, an
    /// error), so the gradient is cut.
    No,
    /// Copied unchanged by the AD: its result does not depend on the operands' values (`zero`,
    /// `zero_tangent`, `undef`, a range length), so no gradient reaches the operands.
    Constant,
    /// Rewritten by the AD transform before any rule applies (differentiation called from
    /// code, pullback closures), or made by it with no rule (`tangent_of`): differentiating
    /// one is refused by name.
    Rewritten,
    /// A conversion between float types (`Float32(x)` of a Float64): the gradient is
    /// converted back to the operand's type (Zygote's `ProjectTo`). A rounding has no
    /// finite-difference test; the fixtures check it.
    Convert,
}

/// How the JIT runs a primitive.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Jit {
    /// Machine instructions inline (a failed check, such as a domain or bounds error, calls the
    /// interpreter's code in the runtime to raise the error).
    Inline,
    /// A call of the runtime function with this symbol; for a [`Kind::Math`] primitive it is
    /// `extern "C" fn(f64) -> f64` around [`Math::eval`].
    Runtime(&'static str),
    /// Always the interpreter's code, called from the runtime on copies of the operands.
    Interpreted,
    /// Never reaches codegen: the AD transform rewrites it.
    Rewritten,
}

/// Every attribute of one primitive.
#[derive(Clone, Copy, Debug)]
pub struct PrimInfo {
    /// The Julia function it implements, as printed in IR.
    pub name: &'static str,
    /// Operand count.
    pub arity: Arity,
    /// What it does to numbers.
    pub kind: Kind,
    /// Allocation, mutation, throwing.
    pub effects: Effects,
    /// Whether and how gradients pass through it.
    pub diff: Diff,
    /// How the JIT runs it.
    pub jit: Jit,
    /// Operand types for which the JIT calls the interpreter's code instead of [`Self::jit`]
    /// (by design: rare types, or work that is not worth compiling). Codegen falls back to the
    /// interpreter for a primitive only when this says so or [`Self::jit`] is
    /// [`Jit::Interpreted`].
    pub interpreted_for: Option<&'static str>,
}

impl PrimInfo {
    /// The values of the fields a table row leaves out.
    pub const DEFAULT: PrimInfo = PrimInfo {
        name: "",
        arity: Arity::Exactly(1),
        kind: Kind::Other,
        effects: Effects::PURE,
        diff: Diff::Rule,
        jit: Jit::Inline,
        interpreted_for: None,
    };
}

/// `interpreted_for` of most operations with an inline translation for their common operand
/// types.
const REST: Option<&str> = Some("operand types its inline translation does not cover");

const fn math(eval: fn(f64) -> f64, domain: Domain) -> Kind {
    Kind::Math(Math { eval, domain })
}

macro_rules! prims {
    ($($(#[$doc:meta])* $variant:ident => $name:literal { $($field:ident: $value:expr),* $(,)? })*) => {
        /// A builtin operation. Operand types are concrete and, for arithmetic, equal (inference
        /// inserts `float` conversions for mixed `Int64`/`Float64`); the operation's meaning
        /// follows Julia's for those types. Its attributes are in [`PrimInfo`] ([`Prim::info`]).
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
        pub enum Prim {
            $($(#[$doc])* $variant,)*
        }

        static TABLE: &[PrimInfo] = &[
            $(PrimInfo { name: $name, $($field: $value,)* ..PrimInfo::DEFAULT },)*
        ];

        impl Prim {
            /// Every primitive, in declaration order.
            pub const ALL: &'static [Prim] = &[$(Prim::$variant,)*];
        }
    };
}

use Arity::{AtLeast, Between, Exactly};
use Diff::{Constant, Rewritten};
use Domain::{Finite, NanResult, UnitInterval};

/// The message of Julia's `nan_dom_err`, a NaN evaluation of a number that is not NaN.
const NAN_RESULT: &str = "NaN result for non-NaN input.";
use Kind::Scalar;

prims! {
    // Scalar arithmetic (operands of one number type).
    /// `a + b`.
    Add => "+" { arity: Exactly(2), kind: Scalar, interpreted_for: Some("arrays") }
    /// `a - b`.
    Sub => "-" { arity: Exactly(2), kind: Scalar, interpreted_for: Some("arrays") }
    /// `a * b` on scalars.
    Mul => "*" { arity: Exactly(2), kind: Scalar, interpreted_for: Some("arrays") }
    /// `a / b`: always Float64 (inference converts Int operands).
    Div => "/" { arity: Exactly(2), kind: Scalar, interpreted_for: Some("arrays") }
    /// `a ÷ b` (`div`): Int64 division truncating toward zero; DivideError on zero.
    IntDiv => "÷" {
        arity: Exactly(2), kind: Scalar, diff: Diff::No,
        effects: Effects::throws("an integer division by zero, or typemin(Int) ÷ -1"),
        interpreted_for: Some("Float64 and Bool operands, arrays"),
    }
    /// `a % b` (`rem`): sign of the dividend.
    Rem => "%" {
        arity: Exactly(2), kind: Scalar,
        effects: Effects::throws("an integer remainder by zero"),
        interpreted_for: Some("Float64 and Bool operands, arrays"),
    }
    /// `a ^ b`: Float^Float, Float^Int, Int^Int (by squaring; negative exponent is a DomainError).
    Pow => "^" {
        arity: Exactly(2), kind: Scalar,
        effects: Effects::throws("a negative base and a non-integer exponent, or an integer \
                                  raised to a negative power"),
        jit: Jit::Runtime("zy_rt_powi"),
        interpreted_for: Some("every pair of operand types but Float64 ^ Int64"),
    }
    /// Unary `-a`.
    Neg => "neg" { kind: Scalar, interpreted_for: Some("arrays") }
    // Comparisons and logic.
    /// `a < b`.
    Lt => "<" { arity: Exactly(2), kind: Scalar, diff: Diff::No, interpreted_for: REST }
    /// `a <= b`.
    Le => "<=" { arity: Exactly(2), kind: Scalar, diff: Diff::No, interpreted_for: REST }
    /// `a > b`.
    Gt => ">" { arity: Exactly(2), kind: Scalar, diff: Diff::No, interpreted_for: REST }
    /// `a >= b`.
    Ge => ">=" { arity: Exactly(2), kind: Scalar, diff: Diff::No, interpreted_for: REST }
    /// `a == b`.
    Eq => "==" { arity: Exactly(2), kind: Scalar, diff: Diff::No, interpreted_for: REST }
    /// `a != b`.
    Ne => "!=" { arity: Exactly(2), kind: Scalar, diff: Diff::No, interpreted_for: REST }
    /// `!a` on Bool.
    Not => "!" { kind: Scalar, diff: Diff::No, interpreted_for: REST }
    /// `ifelse(c, a, b)`: `a` if the Bool `c` holds, else `b` (both already evaluated). The
    /// AD's reverse rules use it for strong zeros: `ifelse(c, ȳ, 0.0)` is `0.0` even for an
    /// infinite `ȳ`, as ChainRules' Boolean partials are.
    IfElse => "ifelse" { arity: Exactly(3) }
    // Elementary functions (differentiable).
    Sin => "sin" {
        kind: math(f64::sin, Finite("sin(x) is only defined for finite x.")),
        effects: Effects::throws("±Inf"), jit: Jit::Runtime("zy_rt_sin"),
    }
    Cos => "cos" {
        kind: math(f64::cos, Finite("cos(x) is only defined for finite x.")),
        effects: Effects::throws("±Inf"), jit: Jit::Runtime("zy_rt_cos"),
    }
    Tan => "tan" {
        kind: math(f64::tan, Finite("tan(x) is only defined for finite x.")),
        effects: Effects::throws("±Inf"), jit: Jit::Runtime("zy_rt_tan"),
    }
    Exp => "exp" { kind: math(f64::exp, Domain::All), jit: Jit::Runtime("zy_rt_exp") }
    /// `exp(x) - 1`, accurate near 0.
    Expm1 => "expm1" { kind: math(f64::exp_m1, Domain::All), jit: Jit::Runtime("zy_rt_expm1") }
    /// `2^x`.
    Exp2 => "exp2" { kind: math(f64::exp2, Domain::All), jit: Jit::Runtime("zy_rt_exp2") }
    Log => "log" {
        kind: math(f64::ln, Domain::AtLeast(0.0, "log was called with a negative real argument but will \
            only return a complex result if called with a complex argument. Try log(Complex(x)).")),
        effects: Effects::throws("x < 0"), jit: Jit::Runtime("zy_rt_log"),
    }
    Log2 => "log2" {
        kind: math(f64::log2, Domain::AtLeast(0.0, "log2 was called with a negative real argument \
            but will only return a complex result if called with a complex argument. Try \
            log2(Complex(x)).")),
        effects: Effects::throws("x < 0"), jit: Jit::Runtime("zy_rt_log2"),
    }
    Log10 => "log10" {
        kind: math(f64::log10, Domain::AtLeast(0.0, "log10 was called with a negative real \
            argument but will only return a complex result if called with a complex argument. \
            Try log10(Complex(x)).")),
        effects: Effects::throws("x < 0"), jit: Jit::Runtime("zy_rt_log10"),
    }
    Log1p => "log1p" {
        kind: math(f64::ln_1p, Domain::AtLeast(-1.0, "log1p was called with a real argument < -1 but will \
            only return a complex result if called with a complex argument. Try log1p(Complex(x)).")),
        effects: Effects::throws("x < -1"), jit: Jit::Runtime("zy_rt_log1p"),
    }
    Sqrt => "sqrt" {
        kind: math(f64::sqrt, Domain::AtLeast(0.0, "sqrt was called with a negative real argument but will \
            only return a complex result if called with a complex argument. Try sqrt(Complex(x)).")),
        effects: Effects::throws("x < 0"),
    }
    /// The real cube root.
    Cbrt => "cbrt" { kind: math(f64::cbrt, Domain::All), jit: Jit::Runtime("zy_rt_cbrt") }
    Abs => "abs" { kind: Scalar, interpreted_for: REST }
    Tanh => "tanh" { kind: math(f64::tanh, Domain::All), jit: Jit::Runtime("zy_rt_tanh") }
    Sinh => "sinh" { kind: math(f64::sinh, Domain::All), jit: Jit::Runtime("zy_rt_sinh") }
    Cosh => "cosh" { kind: math(f64::cosh, Domain::All), jit: Jit::Runtime("zy_rt_cosh") }
    Asin => "asin" {
        kind: math(f64::asin, UnitInterval("asin(x) is not defined for |x| > 1.")),
        effects: Effects::throws("|x| > 1"), jit: Jit::Runtime("zy_rt_asin"),
    }
    Acos => "acos" {
        kind: math(f64::acos, UnitInterval("acos(x) not defined for |x| > 1")),
        effects: Effects::throws("|x| > 1"), jit: Jit::Runtime("zy_rt_acos"),
    }
    Asinh => "asinh" { kind: math(f64::asinh, Domain::All), jit: Jit::Runtime("zy_rt_asinh") }
    Acosh => "acosh" {
        kind: math(f64::acosh, Domain::AtLeast(1.0, "acosh(x) is only defined for x ≥ 1.")),
        effects: Effects::throws("x < 1"), jit: Jit::Runtime("zy_rt_acosh"),
    }
    Atanh => "atanh" {
        kind: math(f64::atanh, UnitInterval("atanh(x) is only defined for |x| ≤ 1.")),
        effects: Effects::throws("|x| > 1"), jit: Jit::Runtime("zy_rt_atanh"),
    }
    /// `atan(x)`, and `atan(y, x)` (the angle of the point `(x, y)`).
    Atan => "atan" {
        arity: Between(1, 2), kind: math(f64::atan, Domain::All), jit: Jit::Runtime("zy_rt_atan"),
        interpreted_for: Some("atan(y, x)"),
    }
    // Special functions (SpecialFunctions.jl's; kernels in `specfun.rs`).
    /// `gamma(x)`.
    Gamma => "gamma" {
        kind: math(specfun::gamma, NanResult(NAN_RESULT)),
        effects: Effects::throws("a pole: 0 > x integer, or -Inf"), jit: Jit::Runtime("zy_rt_gamma"),
    }
    /// `log(abs(gamma(x)))`: the prelude's `logabsgamma` and `loggamma` add the sign.
    LogAbsGamma => "_logabsgamma" {
        kind: math(specfun::log_abs_gamma, Domain::All), jit: Jit::Runtime("zy_rt_logabsgamma"),
    }
    /// `digamma(x)`, the derivative of `loggamma`.
    Digamma => "digamma" {
        kind: math(specfun::digamma, Domain::All), jit: Jit::Runtime("zy_rt_digamma"),
    }
    /// `polygamma(m, x)`: the `m`-th derivative of `digamma` (an Int `m >= 0`, a Float64 `x`).
    Polygamma => "polygamma" {
        arity: Exactly(2), kind: Scalar, effects: Effects::throws("m < 0"), jit: Jit::Interpreted,
    }
    Erf => "erf" { kind: math(specfun::erf, Domain::All), jit: Jit::Runtime("zy_rt_erf") }
    Erfc => "erfc" { kind: math(specfun::erfc, Domain::All), jit: Jit::Runtime("zy_rt_erfc") }
    /// The inverse of `erf`.
    Erfinv => "erfinv" {
        kind: math(specfun::erfinv, UnitInterval("`abs(x)` cannot be greater than 1.")),
        effects: Effects::throws("|x| > 1"), jit: Jit::Runtime("zy_rt_erfinv"),
    }
    /// The inverse of `erfc` on `[0, 0.0625]`, where the prelude's `erfcinv` calls it.
    ErfcinvSmall => "_erfcinv_small" {
        kind: math(specfun::erfcinv_small, Domain::All), jit: Jit::Runtime("zy_rt_erfcinv_small"),
    }
    /// `exp(x²) erfc(x)`.
    Erfcx => "erfcx" { kind: math(specfun::erfcx, Domain::All), jit: Jit::Runtime("zy_rt_erfcx") }
    Besselj0 => "besselj0" {
        kind: math(specfun::besselj0, Domain::All), jit: Jit::Runtime("zy_rt_besselj0"),
    }
    Besselj1 => "besselj1" {
        kind: math(specfun::besselj1, Domain::All), jit: Jit::Runtime("zy_rt_besselj1"),
    }
    Bessely0 => "bessely0" {
        kind: math(specfun::bessely0, NanResult(NAN_RESULT)),
        effects: Effects::throws("x < 0"), jit: Jit::Runtime("zy_rt_bessely0"),
    }
    Bessely1 => "bessely1" {
        kind: math(specfun::bessely1, NanResult(NAN_RESULT)),
        effects: Effects::throws("x < 0"), jit: Jit::Runtime("zy_rt_bessely1"),
    }
    /// Dawson's integral `exp(-x²) ∫₀ˣ exp(t²) dt`.
    Dawson => "dawson" { kind: math(specfun::dawson, Domain::All), jit: Jit::Runtime("zy_rt_dawson") }
    /// The imaginary error function `-i erf(ix)`.
    Erfi => "erfi" { kind: math(specfun::erfi, Domain::All), jit: Jit::Runtime("zy_rt_erfi") }
    /// The sine integral `∫₀ˣ sin(t)/t dt`.
    Sinint => "sinint" {
        kind: math(specfun::sinint, Domain::All), jit: Jit::Runtime("zy_rt_sinint"),
    }
    /// The cosine integral of `x >= 0`.
    Cosint => "cosint" {
        kind: math(specfun::cosint, Domain::AtLeast(0.0, "`x` must be nonnegative.")),
        effects: Effects::throws("x < 0"), jit: Jit::Runtime("zy_rt_cosint"),
    }
    /// The exponential integral `E₁(x)` of `x >= 0` (`expint(x)`).
    Expint => "expint" {
        kind: math(specfun::expint, Domain::AtLeast(0.0, "negative argument, convert to complex first")),
        effects: Effects::throws("x < 0"), jit: Jit::Runtime("zy_rt_expint"),
    }
    /// The complete elliptic integral of the first kind of the parameter `m <= 1`.
    Ellipk => "ellipk" {
        kind: math(specfun::ellipk, NanResult("`m` must lie between -Inf and 1 ---- Domain: (-Inf,1.0]")),
        effects: Effects::throws("m > 1"), jit: Jit::Runtime("zy_rt_ellipk"),
    }
    /// The complete elliptic integral of the second kind of `m <= 1`.
    Ellipe => "ellipe" {
        kind: math(specfun::ellipe, NanResult("`m` must lie between -Inf and 1 ---- Domain : (-inf,1.0]")),
        effects: Effects::throws("m > 1"), jit: Jit::Runtime("zy_rt_ellipe"),
    }
    /// `besselj(ν, x)`, the Bessel function of the first kind of order `ν` (an Int or a
    /// Float64; `x` a Float64), and the others of an order below.
    Besselj => "besselj" {
        arity: Exactly(2), kind: Scalar, effects: Effects::throws("x < 0 of a non-integer order"),
        jit: Jit::Interpreted,
    }
    /// `besseljx(ν, x)`: `besselj` (the scaling is by `exp(-|imag(x)|)`).
    Besseljx => "besseljx" {
        arity: Exactly(2), kind: Scalar, effects: Effects::throws("x < 0 of a non-integer order"),
        jit: Jit::Interpreted,
    }
    /// `bessely(ν, x)`, of the second kind.
    Bessely => "bessely" {
        arity: Exactly(2), kind: Scalar, effects: Effects::throws("x < 0"), jit: Jit::Interpreted,
    }
    /// `besselyx(ν, x)`: `bessely` (scaled by `exp(-|imag(x)|)`).
    Besselyx => "besselyx" {
        arity: Exactly(2), kind: Scalar, effects: Effects::throws("x < 0"), jit: Jit::Interpreted,
    }
    /// `besseli(ν, x)`, modified, of the first kind.
    Besseli => "besseli" {
        arity: Exactly(2), kind: Scalar, effects: Effects::throws("x < 0 of a non-integer order"),
        jit: Jit::Interpreted,
    }
    /// `besselix(ν, x)`: `besseli(ν, x) exp(-|x|)`.
    Besselix => "besselix" {
        arity: Exactly(2), kind: Scalar, effects: Effects::throws("x < 0 of a non-integer order"),
        jit: Jit::Interpreted,
    }
    /// `besselk(ν, x)`, modified, of the second kind.
    Besselk => "besselk" {
        arity: Exactly(2), kind: Scalar, effects: Effects::throws("x < 0"), jit: Jit::Interpreted,
    }
    /// `besselkx(ν, x)`: `besselk(ν, x) exp(x)`.
    Besselkx => "besselkx" {
        arity: Exactly(2), kind: Scalar, effects: Effects::throws("x < 0"), jit: Jit::Interpreted,
    }
    /// `P(a, x)`, the regularized lower incomplete gamma function of `a > 0`, `x > 0` (the
    /// prelude's `gamma_inc` checks the domain and answers the edges).
    GammaIncP => "_gamma_inc_p" { arity: Exactly(2), kind: Scalar, jit: Jit::Interpreted }
    /// `Q(a, x) = 1 - P(a, x)`, with the relative accuracy of a small tail.
    GammaIncQ => "_gamma_inc_q" { arity: Exactly(2), kind: Scalar, jit: Jit::Interpreted }
    /// `log Γ(a, x)` of the upper incomplete gamma function, any real `a`, `x > 0` (the
    /// prelude's `gamma(a, x)`, `loggamma(a, x)` and `expint(ν, x)`).
    LogUpperGamma => "_log_upper_gamma" { arity: Exactly(2), kind: Scalar, jit: Jit::Interpreted }
    /// `I_x(a, b)`, the regularized incomplete beta function of `a > 0`, `b > 0`, `x` in
    /// `[0, 1]` (the prelude's `beta_inc`).
    BetaInc => "_beta_inc" { arity: Exactly(3), kind: Scalar, jit: Jit::Interpreted }
    /// `ζ(s, z)`, the Hurwitz zeta function of `z > 0` (the Riemann `ζ(s)` at `z = 1`; the
    /// prelude's `zeta` checks the domain).
    Zeta => "_zeta" { arity: Exactly(2), kind: Scalar, jit: Jit::Interpreted }
    /// `max(a, b)`.
    Max => "max" { arity: Exactly(2), kind: Scalar, interpreted_for: REST }
    /// `min(a, b)`.
    Min => "min" { arity: Exactly(2), kind: Scalar, interpreted_for: REST }
    // Piecewise-constant functions (gradient zero).
    Floor => "floor" { kind: Scalar, diff: Diff::Zero, interpreted_for: REST }
    Ceil => "ceil" { kind: Scalar, diff: Diff::Zero, interpreted_for: REST }
    /// `round(x)`: nearest, ties to even.
    Round => "round" { kind: Scalar, diff: Diff::Zero, interpreted_for: REST }
    Sign => "sign" { kind: Scalar, diff: Diff::Zero, interpreted_for: REST }
    /// `copysign(x, y)`: `x` with the sign bit of `y` (Float64; integers are the prelude's).
    Copysign => "copysign" { arity: Exactly(2), kind: Scalar, interpreted_for: REST }
    /// `fma(x, y, z)`: `x * y + z` rounded once (Float64; Ints are the prelude's `x * y + z`).
    Fma => "fma" { arity: Exactly(3), kind: Scalar, interpreted_for: REST }
    // Bits of an Int64 (Julia's intrinsics; the prelude's `&`, `|`, `xor`, `<<`, `>>`, `>>>` of
    // Ints call them with a shift in 0..63).
    /// `and_int(a, b)`: bitwise and.
    AndInt => "and_int" { arity: Exactly(2), kind: Scalar, diff: Diff::No, interpreted_for: REST }
    /// `or_int(a, b)`: bitwise or.
    OrInt => "or_int" { arity: Exactly(2), kind: Scalar, diff: Diff::No, interpreted_for: REST }
    /// `xor_int(a, b)`: bitwise exclusive or.
    XorInt => "xor_int" { arity: Exactly(2), kind: Scalar, diff: Diff::No, interpreted_for: REST }
    /// `shl_int(x, n)`: `x` shifted left by `n mod 64` bits.
    ShlInt => "shl_int" { arity: Exactly(2), kind: Scalar, diff: Diff::No, interpreted_for: REST }
    /// `ashr_int(x, n)`: `x` shifted right by `n mod 64` bits, the sign bit coming in.
    AshrInt => "ashr_int" { arity: Exactly(2), kind: Scalar, diff: Diff::No, interpreted_for: REST }
    /// `lshr_int(x, n)`: `x` shifted right by `n mod 64` bits, zeros coming in.
    LshrInt => "lshr_int" { arity: Exactly(2), kind: Scalar, diff: Diff::No, interpreted_for: REST }
    /// `hash_int(x, h)`: Julia 1.11's `hash(x::Int64, h)`, the UInt64 as an Int's bits (the
    /// prelude's `Dict` places its keys by it).
    HashInt => "hash_int" { arity: Exactly(2), kind: Scalar, diff: Diff::No, interpreted_for: REST }
    /// `hash_float(x, h)`: Julia 1.11's `hash(x::Float64, h)` likewise.
    HashFloat => "hash_float" { arity: Exactly(2), kind: Scalar, diff: Diff::No, interpreted_for: REST }
    // Conversions.
    /// `float(x)` / `Float64(x)` from Int64 or Bool.
    Float => "float" { kind: Scalar, interpreted_for: Some("arrays") }
    /// `Int(x)` / `Int64(x)`: exact conversion (InexactError otherwise).
    ToInt => "Int" {
        kind: Scalar, diff: Diff::No, effects: Effects::throws("a Float64 that is not an integer"),
        interpreted_for: Some("Float64 operands"),
    }
    /// `Float32(x)` of a number: rounded to the nearest Float32.
    ToFloat32 => "Float32" { kind: Scalar, diff: Diff::Convert, jit: Jit::Interpreted }
    /// `T(x)` of a number `x` and a fixed-width integer type `T` (the result's; `Int64` from
    /// one of them): exact, Julia's InexactError otherwise.
    ConvertInt => "convert_int" {
        kind: Scalar, diff: Diff::No, jit: Jit::Interpreted,
        effects: Effects::throws("a value the type does not hold"),
    }
    /// `x % T` of an integer `x` and an integer type `T` (the result's): the low bits of `x`
    /// in two's complement (Julia's `trunc_int` and sign or zero extension).
    TruncInt => "trunc_int" { kind: Scalar, diff: Diff::No, jit: Jit::Interpreted }
    // Tuples, named tuples, structs.
    /// `(a, b, ...)`.
    Tuple => "tuple" { arity: AtLeast(0) }
    /// `(a = x, b = y)`: `args[0]` is a constant tuple of symbols naming the fields.
    NamedTuple => "namedtuple" { arity: AtLeast(1) }
    /// `getfield(x, i)`: field or element `i` (constant Int, 1-based) of a tuple, named tuple,
    /// struct or closure environment.
    GetField => "getfield" { arity: Exactly(2) }
    /// `setfield!(x, i, v)` on a mutable struct (`i` constant, 1-based). Returns `v`.
    SetField => "setfield!" { arity: Exactly(3), effects: Effects::mutates(0, "") }
    /// `getindex(t, i)` on a homogeneous tuple with a run-time index (bounds-checked).
    TupleIndex => "tuple_getindex" {
        arity: Exactly(2), effects: Effects::throws("an index out of bounds"), interpreted_for: REST,
    }
    // Refs.
    /// `Ref(x)`.
    RefNew => "Ref" { effects: Effects::allocates("") }
    /// `r[]`.
    RefGet => "ref_get" {}
    /// `r[] = v`. Returns `v`.
    RefSet => "ref_set!" { arity: Exactly(2), effects: Effects::mutates(0, "") }
    /// An empty `Ref`: the box of a local that a closure captures before it is assigned
    /// (Julia's `Core.Box`); `args[0]` is the local's name, `r[]` before [`Prim::RefInit`]
    /// an `UndefVarError`.
    RefUndef => "ref_undef" { arity: Exactly(1), effects: Effects::allocates("") }
    /// The first `r[] = v` of a `ref_undef` box, where there is no content to restore.
    /// Returns `v`.
    RefInit => "ref_init!" { arity: Exactly(2), effects: Effects::mutates(0, "") }
    // Arrays.
    /// `[a, b, c]`: a Vector from its elements.
    Vect => "vect" { arity: AtLeast(0), effects: Effects::allocates(""), interpreted_for: REST }
    /// `[a b; c d]`: `args[0]`, `args[1]` are constant row and column counts, then the
    /// elements in row-major order.
    Hvcat => "hvcat" {
        arity: AtLeast(2), effects: Effects::allocates("rows of unequal lengths"),
        interpreted_for: REST,
    }
    /// `zeros(n)` / `zeros(m, n)` / `zeros(dims...)`; of an array or struct element type
    /// (`Vector{T}(undef, n)`, the result `map` fills) the slots are not set yet.
    Zeros => "zeros" {
        arity: Between(1, 6), diff: Diff::No, effects: Effects::allocates("a negative size"),
        interpreted_for: REST,
    }
    /// `ones(n)` / `ones(m, n)` / `ones(dims...)`.
    Ones => "ones" {
        arity: Between(1, 6), diff: Diff::No, effects: Effects::allocates("a negative size"),
        interpreted_for: REST,
    }
    /// `fill(v, n)` / `fill(v, m, n)` / `fill(v, dims...)`.
    Fill => "fill" {
        arity: Between(2, 7), effects: Effects::allocates("a negative size"), interpreted_for: REST,
    }
    /// `similar(x)`: same shape, contents zero (Julia leaves them undefined; zy zero-fills).
    Similar => "similar" { diff: Diff::No, effects: Effects::allocates(""), interpreted_for: REST }
    /// `copy(x)`.
    Copy => "copy" { effects: Effects::allocates(""), interpreted_for: REST }
    /// `length(x)` of an array or tuple.
    Length => "length" { diff: Diff::No, interpreted_for: REST }
    /// `check_axes(a, b)`: throws Julia's `DimensionMismatch` of `a + b` unless the arrays `a`
    /// and `b` have one shape (`+` and `-` of arrays do not broadcast). Returns nothing.
    CheckAxes => "check_axes" {
        arity: Exactly(2), diff: Diff::No,
        effects: Effects { throws: Throws::Checks("arrays of different shapes"), ..Effects::PURE },
        interpreted_for: REST,
    }
    /// `size(A)` (a tuple) or `size(A, d)`.
    Size => "size" {
        arity: Between(1, 2), diff: Diff::No, effects: Effects::throws("a dimension below 1"),
        interpreted_for: REST,
    }
    /// `x[i]`, `A[i, j]`, `A[k]` (linear): 1-based, bounds-checked.
    GetIndex => "getindex" {
        arity: AtLeast(2), effects: Effects::throws("an index out of bounds"), interpreted_for: REST,
    }
    /// `x[i] = v`, `A[i, j] = v`: `args` are (array, value, indices...). Returns `v`.
    SetIndex => "setindex!" { arity: AtLeast(3), effects: Effects::mutates(0, "an index out of bounds") }
    /// `setlength!(v, n)`, `setlength!(v, n, tail)`: the Vector `v` made `n` long in place (the
    /// primitive under Julia's `resize!`, `push!`, `append!`, `pop!`): elements past `n` are
    /// removed, new ones are the elements of `tail` (of `v`'s element type and exactly as many
    /// as are added; without it, zeros). Returns the removed elements as a new Vector.
    SetLength => "setlength!" {
        arity: Between(2, 3),
        effects: Effects::mutates(0, "a negative length, or a tail of the wrong length"),
        jit: Jit::Runtime("zy_rt_setlength"),
    }
    /// `slice_copy(x, a, s, n)`: the new Vector `[x[a], x[a + s], ..., x[a + (n - 1) s]]` of a
    /// Float64 array `x` by linear index (the prelude's `x[r]` of a range, once it has checked
    /// the bounds); an index out of bounds is `x[i]`'s BoundsError.
    SliceCopy => "slice_copy" {
        arity: Exactly(4), effects: Effects::allocates("an index out of bounds"),
        interpreted_for: REST,
    }
    /// `slot_get(xs, i)`: element `i` of a vector of arrays, structs or tuples as stored, an
    /// unset slot (`#undef`) included: the AD's record of what `setindex!` overwrites.
    SlotGet => "slot_get" { arity: Exactly(2), diff: Diff::No, jit: Jit::Interpreted }
    /// `slot_set!(xs, i, v)`: store `v` (which may be an unset slot) at `i` of a vector of
    /// arrays, structs or tuples: the AD's undoing of `setindex!`. Returns `nothing`.
    SlotSet => "slot_set!" {
        arity: Exactly(3), diff: Diff::No, effects: Effects::mutates(0, ""), jit: Jit::Interpreted,
    }
    /// `first(x)`.
    First => "first" { effects: Effects::throws("an empty collection"), interpreted_for: REST }
    /// `last(x)`.
    Last => "last" { effects: Effects::throws("an empty collection"), interpreted_for: REST }
    /// `sum(x)`.
    Sum => "sum" { jit: Jit::Runtime("zy_rt_sum"), interpreted_for: REST }
    /// `prod(x)`.
    Prod => "prod" { interpreted_for: REST }
    /// `maximum(x)`.
    Maximum => "maximum" {
        effects: Effects::throws("an empty array"), jit: Jit::Runtime("zy_rt_extremum"),
        interpreted_for: REST,
    }
    /// `minimum(x)`.
    Minimum => "minimum" {
        effects: Effects::throws("an empty array"), jit: Jit::Runtime("zy_rt_extremum"),
        interpreted_for: REST,
    }
    /// `findmax(x)` of a Float64 array: `(maximum(x), i)` with `i` the first (linear) index
    /// holding it, in Julia's `isless` order (a NaN is the largest; `0.0` above `-0.0`).
    FindMax => "findmax" {
        diff: Diff::No, effects: Effects::throws("an empty array"),
        jit: Jit::Runtime("zy_rt_find_extremum"), interpreted_for: REST,
    }
    /// `findmin(x)` of a Float64 array: `(minimum(x), i)`, a NaN winning as in `minimum`.
    FindMin => "findmin" {
        diff: Diff::No, effects: Effects::throws("an empty array"),
        jit: Jit::Runtime("zy_rt_find_extremum"), interpreted_for: REST,
    }
    /// `dot(x, y)`.
    Dot => "dot" {
        arity: Exactly(2), effects: Effects::throws("arrays of different lengths"),
        jit: Jit::Runtime("zy_rt_dot"), interpreted_for: REST,
    }
    /// `A * x`, `A * B`, `x' * y`, `x' * A`: products involving an array.
    MatMul => "matmul" {
        arity: Exactly(2), effects: Effects::allocates("dimensions that do not match"),
        jit: Jit::Runtime("zy_rt_matmul"), interpreted_for: REST,
    }
    /// `transpose(A)` of a matrix (a copy), or of a vector (an adjoint row vector).
    Transpose => "transpose" {
        effects: Effects::allocates(""), jit: Jit::Runtime("zy_rt_transpose"), interpreted_for: REST,
    }
    /// `A'` (`adjoint`): for real matrices the transpose; for a vector, a row vector.
    Adjoint => "adjoint" {
        effects: Effects::allocates(""), jit: Jit::Runtime("zy_rt_transpose"), interpreted_for: REST,
    }
    // Factorizations of square Float64 matrices: `faer`'s kernels in the interpreter
    // (`zy_interp::factor`), which the JIT's runtime calls on its own arrays: one kernel, so
    // the engines agree to the bit.
    /// `det(A)`: the product of the LU pivots; zero for a singular matrix.
    Det => "det" {
        effects: Effects::throws("a matrix that is not square"), jit: Jit::Runtime("zy_rt_det"),
    }
    /// `logdet(A)`: the sum of the logarithms of the pivots' magnitudes.
    LogDet => "logdet" {
        effects: Effects::throws("a matrix that is not square, a negative determinant"),
        jit: Jit::Runtime("zy_rt_logdet"),
    }
    /// `inv(A)` of a matrix: `A \ I`.
    Inv => "inv" {
        effects: Effects::allocates("a singular or non-square matrix"),
        jit: Jit::Runtime("zy_rt_inv"),
    }
    /// `A \ B` for a square matrix `A` and a vector or matrix `B`: substitution when `A` is
    /// triangular, else LU with partial pivoting (Julia's choice).
    Solve => "\\" {
        arity: Exactly(2),
        effects: Effects::allocates("a singular or non-square matrix, or sizes that differ"),
        jit: Jit::Runtime("zy_rt_solve"),
    }
    /// `cholesky_lower(A)`: the lower factor `L` of `cholesky(A)` (`A = L Lᵀ`), zero above the
    /// diagonal; PosDefException for a matrix that is not symmetric positive definite.
    CholeskyLower => "cholesky_lower" {
        effects: Effects::allocates("a matrix that is not symmetric positive definite"),
        jit: Jit::Runtime("zy_rt_cholesky_lower"),
    }
    /// `_eigvals_general(A)`: the eigenvalues of a square matrix, symmetric or not, as the rows
    /// `[re im]` of an n×2 matrix in faer's order (a complex pair adjacent); the prelude's
    /// `eigvals` sorts them as Julia's does and differentiates them by its own rule.
    EigvalsGeneral => "_eigvals_general" {
        diff: Diff::No,
        effects: Effects::allocates("a matrix that is not square or holds a NaN or an Inf"),
        jit: Jit::Interpreted,
    }
    /// `_eigen_general(A)`: the eigenvalues and right eigenvectors of a square matrix as the
    /// n×(2n+2) matrix `[re(λ) im(λ) re(V) im(V)]`, sorted as Julia's `eigen` (by real part,
    /// then imaginary), each vector of unit norm with its largest entry real and positive; the
    /// prelude's `eigen` of a matrix that is not symmetric takes it apart.
    EigenGeneral => "_eigen_general" {
        diff: Diff::No,
        effects: Effects::allocates("a matrix that is not square or holds a NaN or an Inf"),
        jit: Jit::Interpreted,
    }
    /// `_hessenberg(A)`: the Hessenberg decomposition `A = Q H Qᵀ` of a square matrix as the
    /// n×2n matrix `[H Q]` (Householder reflections with LAPACK's signs); the prelude's
    /// `hessenberg` takes it apart.
    Hessenberg => "_hessenberg" {
        diff: Diff::No,
        effects: Effects::allocates("a matrix that is not square or holds a NaN or an Inf"),
        jit: Jit::Interpreted,
    }
    /// `_schur(A)`: the real Schur form `A = Z T Zᵀ` of a square matrix as the n×(2n+2)
    /// matrix `[T Z re(λ) im(λ)]` (Francis double-shift QR, 2×2 blocks in LAPACK's standard
    /// form); the prelude's `schur` takes it apart.
    Schur => "_schur" {
        diff: Diff::No,
        effects: Effects::allocates("a matrix that is not square or holds a NaN or an Inf"),
        jit: Jit::Interpreted,
    }
    /// `tril(A, k)`: `A` with the entries above its `k`th superdiagonal zeroed (`k = 0`: the
    /// lower triangle).
    Tril => "tril" {
        arity: Between(1, 2), effects: Effects::allocates(""), jit: Jit::Runtime("zy_rt_band"),
        interpreted_for: Some("Int and Bool matrices"),
    }
    /// `triu(A, k)`: `A` with the entries below its `k`th superdiagonal zeroed.
    Triu => "triu" {
        arity: Between(1, 2), effects: Effects::allocates(""), jit: Jit::Runtime("zy_rt_band"),
        interpreted_for: Some("Int and Bool matrices"),
    }
    /// `broadcast(f, args...)`: `args[0]` is a constant function naming a scalar primitive; the
    /// other operands are arrays of one shape or scalars. `x .+ y`, `sin.(x)`.
    Broadcast => "broadcast" {
        arity: AtLeast(2), effects: Effects::allocates("shapes that do not broadcast, or an \
                                                        error of the function"),
        interpreted_for: Some("operands of different shapes, row vectors, functions without an \
                               inline translation"),
    }
    /// `unbroadcast(c, x)`: the array `c` summed over the dimensions along which broadcasting
    /// extended `x` (whose shape alone counts), shaped like `x`: the gradient of a broadcast's
    /// operand (AD IR).
    Unbroadcast => "unbroadcast" {
        arity: Exactly(2), effects: Effects::allocates("shapes that do not broadcast"),
        jit: Jit::Interpreted,
    }
    /// `zero(x)`: the additive identity of a number, or zeros of an array's shape.
    Zero => "zero" { kind: Scalar, diff: Constant, interpreted_for: Some("arrays") }
    /// `one(x)` of a number.
    One => "one" { kind: Scalar, diff: Constant, interpreted_for: REST }
    // Differentiation called from user code (rewritten into forward/pullback calls by the AD
    // transform before anything runs).
    /// `gradient(f, args...)`: `args[0]` is the callee; a tuple with one tangent per argument.
    Gradient => "gradient" {
        arity: AtLeast(1), diff: Rewritten, effects: Effects::CALLS, jit: Jit::Rewritten,
    }
    /// `derivative(f, x)` for a scalar `x`.
    Derivative => "derivative" {
        arity: Exactly(2), diff: Rewritten, effects: Effects::CALLS, jit: Jit::Rewritten,
    }
    /// `hessian(f, x)` for a vector `x`: an n×n matrix.
    Hessian => "hessian" {
        arity: Exactly(2), diff: Rewritten, effects: Effects::CALLS, jit: Jit::Rewritten,
    }
    /// `pushforward(f, x, dx)`: the directional derivative of `f` at `x` along `dx` (forward
    /// mode).
    Pushforward => "pushforward" {
        arity: Exactly(3), diff: Rewritten, effects: Effects::CALLS, jit: Jit::Rewritten,
    }
    /// `jvp(f, x, dx)`: the tuple `(f(x), pushforward(f, x, dx))`.
    Jvp => "jvp" {
        arity: Exactly(3), diff: Rewritten, effects: Effects::CALLS, jit: Jit::Rewritten,
    }
    /// `hvp(f, x, v)` for a vector `x`: the Hessian of `f` at `x` times `v` (forward over
    /// reverse).
    Hvp => "hvp" {
        arity: Exactly(3), diff: Rewritten, effects: Effects::CALLS, jit: Jit::Rewritten,
    }
    /// `_pushforward_chunk(f, x, Ẋ, fallback)` (the prelude's `jacobian`): the pushforwards of
    /// `f` at `x` along the `k` directions of the chunk `Ẋ` at once (a `Float64` `x`'s chunk is a
    /// vector of `k` numbers, a `Vector{Float64}`'s an `n×k` matrix, as is the result's); calls
    /// `fallback()` where the chunked transform does not apply.
    PushforwardChunk => "_pushforward_chunk" {
        arity: Exactly(4), diff: Rewritten, effects: Effects::CALLS, jit: Jit::Rewritten,
    }
    /// `pullback(f, args...)`: the tuple `(y, back)`; `back` has type [`Type::Pullback`](crate::Type::Pullback).
    PullbackOf => "pullback" {
        arity: AtLeast(1), diff: Rewritten, effects: Effects::CALLS, jit: Jit::Rewritten,
    }
    /// `back(ȳ)` for a `back` returned by `pullback`: a tuple with one tangent per argument.
    CallPullback => "call_pullback" { arity: Exactly(2), diff: Rewritten, effects: Effects::CALLS }
    /// `range_length(a, s, b)`: the length of the Int range `a:s:b` (ArgumentError if `s == 0`).
    /// Lowering expands `for i in a:s:b` into a counted loop over it.
    RangeLength => "range_length" {
        arity: Exactly(3), diff: Constant, effects: Effects::throws("a step of zero"),
        interpreted_for: REST,
    }
    /// `float_range(form, a, b, c)`: Julia's Float64 range `a:b:c` (form 1),
    /// `range(a; step = b, length = c)` (2), `range(a, b; length = c)` (3) or the plain
    /// `StepRangeLen(a, b, c)` whose parts are `a` and `b` exactly (4), as the tuple
    /// `(ref_hi, ref_lo, step_hi, step_lo, len, offset, sum, a, b)`: its twice-precision
    /// reference element and step, its length and the reference's index, Julia's `sum` of
    /// it, then `a` and `b` again. Nothing of it carries a gradient: the prelude
    /// (`StepRangeLen`) adds the gradient of the elements' linear formula in `a` and `b`.
    FloatRange => "float_range" {
        arity: Exactly(4), diff: Diff::No, effects: Effects::throws("an invalid range"),
        jit: Jit::Interpreted,
    }
    /// `float_range_op(op, parts, x)`: the representation, as `float_range` gives it, of
    /// the Float64 range Julia's operation `op` makes from the range whose parts are
    /// `(ref_hi, ref_lo, step_hi, step_lo, len, offset)` and the operand `x`: `x .* r`, `x *
    /// r`, `r ./ x`, `r / x`, `r .+ x`, `x .- r`, `-r`, `reverse(r)`, `r[s]` (`x` is
    /// `(first(s), step(s), length(s))`) or `r1 + r2` (`x` is `r2`'s parts). Its last two
    /// elements are `x` again (zero when it is not a number), without gradient, as the
    /// prelude's `StepRangeLen` needs them.
    FloatRangeOp => "float_range_op" {
        arity: Exactly(3), diff: Diff::No, effects: Effects::throws("an invalid range"),
        jit: Jit::Interpreted,
    }
    // Strings: values without a gradient; the JIT declines programs that hold one.
    /// `string(xs...)`: each operand as Julia's `print` writes it, concatenated (`string(x)`,
    /// `"x = $x"`, `a * b` of strings).
    StringOf => "string" {
        arity: AtLeast(0), diff: Diff::No, effects: Effects::allocates(""),
        jit: Jit::Interpreted,
    }
    /// `string_fn(:f, s, args...)`: Base's string function `f` (`length`, `uppercase`,
    /// `lowercase`, `startswith`, `endswith`, `occursin`, `isempty`, `==`, `<`, `strip`,
    /// `ncodeunits`, `lpad`, `replace`, `parse_int`, `parse_float`, ...) of strings;
    /// `Symbol` of a string or symbol and `==` of two symbols, for symbols known only at run
    /// time; `sprintf` of a conversion spec and a number (one conversion of `@sprintf`).
    StringFn => "string_fn" {
        arity: AtLeast(2), diff: Diff::No, effects: Effects::allocates(""),
        jit: Jit::Interpreted,
    }
    // Clocks: read where they stand, never removed or moved.
    /// `time()`: the seconds since the Unix epoch, a `Float64`.
    Time => "time" {
        arity: Exactly(0), diff: Diff::No, effects: Effects { calls: true, ..Effects::PURE },
        jit: Jit::Interpreted,
    }
    /// `time_ns()`: nanoseconds of a monotonic clock from an arbitrary start, a `UInt64`
    /// (what `@elapsed` and `@time` subtract).
    TimeNs => "time_ns" {
        arity: Exactly(0), diff: Diff::No, effects: Effects { calls: true, ..Effects::PURE },
        jit: Jit::Interpreted,
    }
    /// `_utc_offset(t)`: the seconds the machine's local time zone is ahead of UTC at `t`
    /// seconds after the Unix epoch (C's `localtime_r`, as Julia's `now()` reads it).
    UtcOffset => "_utc_offset" {
        arity: Exactly(1), diff: Diff::No, effects: Effects { calls: true, ..Effects::PURE },
        jit: Jit::Interpreted,
    }
    /// `undef(:x)`: the value of local `x` on a path where it is not assigned. Its type is
    /// `Union{}` so it vanishes in joins; using it is an `UndefVarError`.
    Undef => "undef" { diff: Constant }
    /// `isdefined_local(x)`: Julia's `@isdefined(x)` of a local, whether `x` holds a value here
    /// (is not [`Prim::Undef`] on the path taken), a Bool.
    IsDefinedLocal => "isdefined_local" { diff: Diff::No }
    /// `undef_field()`: the content of a field that an inner constructor's `new` leaves
    /// undefined (`new(a)` of a struct with more fields: Julia's `#undef`), typed as the field.
    /// The JIT leaves a program holding one to the interpreter.
    UndefField => "undef_field" { arity: Exactly(0), diff: Constant }
    /// `check_field(x, i)`: nothing if field `i` of the struct `x` is defined; reading an
    /// undefined one throws Julia's `UndefRefError` (a field of a bits type, where Julia reads
    /// an arbitrary value, is refused by name). Precedes each read of a field of a struct that
    /// an inner constructor builds partly.
    CheckField => "check_field" {
        arity: Exactly(2), diff: Diff::No,
        effects: Effects { throws: Throws::Checks("an undefined field"), ..Effects::PURE },
    }
    /// `isdefined_field(x, i)`: Julia's `isdefined(x, :f)` of a field of a struct that an inner
    /// constructor builds partly, a Bool.
    IsDefinedField => "isdefined_field" { arity: Exactly(2), diff: Diff::No }
    // Errors.
    /// `error("msg")`: throws; `args[0]` is a constant string, or `error(:Exception, parts...)`
    /// with the exception's name and the parts of its message (interpolated values).
    Error => "error" {
        arity: AtLeast(1), diff: Diff::No, effects: Effects { throws: Throws::Checks("always"), ..Effects::PURE },
        jit: Jit::Interpreted,
    }
    /// `_refuse_tangent(ṫ, msg)`: forward mode's guard on an operand a primitive has no
    /// derivative in (a Bessel function's order): throws ChainRules'
    /// `NotImplementedException: msg` where the tangent `ṫ` (a number, or an array or tuple of
    /// them) is not zero; nothing otherwise.
    RefuseTangent => "_refuse_tangent" {
        arity: Exactly(2), diff: Diff::No,
        effects: Effects { throws: Throws::Checks("a tangent that is not zero"), ..Effects::PURE },
        jit: Jit::Interpreted,
    }
    /// `the_exception()`: the exception a `catch` block caught (its first statement; Julia's
    /// `Expr(:the_exception)`), of type `Exception`.
    TheException => "the_exception" {
        arity: Exactly(0), diff: Diff::No, effects: Effects { calls: true, ..Effects::PURE },
        jit: Jit::Interpreted,
    }
    /// `rethrow()` (inside a `catch`: the exception being handled) and `rethrow(e)`/`throw(e)`
    /// of a caught exception `e`: throws it again, with its type and message.
    Rethrow => "rethrow" {
        arity: Between(0, 1), diff: Diff::No,
        effects: Effects { throws: Throws::Checks("always"), ..Effects::PURE },
        jit: Jit::Interpreted,
    }
    /// `exception_isa(e, :T)` or `exception_isa(e, (:T, :S, ...))`: is the caught exception `e`
    /// of one of the named concrete types? `:Exception` names every Base exception (not a
    /// program's own, which inference lists by name), `:Any` every value.
    ExceptionIsa => "exception_isa" {
        arity: Exactly(2), diff: Diff::No, jit: Jit::Interpreted,
    }
    /// `union_isa(x, T)`: is the value `x` of an abstract type's union of the concrete type
    /// `T` (a type value naming one member)? Decided at run time, where a call on `x` is split.
    UnionIsa => "union_isa" {
        arity: Exactly(2), diff: Diff::No, jit: Jit::Interpreted,
    }
    /// `union_convert(x)`: `x` itself, seen as the statement's type: a member of an abstract
    /// type's union as the union (stored into a `Vector{Shape}`), or the union as the member
    /// a `union_isa` test found (a split call's branch); the tangent passes unchanged.
    UnionConvert => "union_convert" {
        arity: Exactly(1), jit: Jit::Interpreted,
        effects: Effects { throws: Throws::When("the value is not of the statement's type"), ..Effects::PURE },
    }
    /// `exception_field(e, :f)`: field `f` of the caught exception `e` (`msg`, a `String`, of the
    /// exceptions that have one; `val`, a `Float64`, of a `DomainError` of a number); an
    /// exception without it is Julia's `FieldError`-style message.
    ExceptionField => "exception_field" {
        arity: Exactly(2), diff: Diff::No, jit: Jit::Interpreted,
        effects: Effects { throws: Throws::When("the exception has no such field"), ..Effects::PURE },
    }
    /// `exception_type(e)`: the type of the caught exception `e` as a type value (`typeof(e)`,
    /// `BoundsError`), one of the statement's union of the exception types the program may
    /// catch.
    ExceptionType => "exception_type" {
        arity: Exactly(1), diff: Diff::No, jit: Jit::Interpreted,
        effects: Effects { throws: Throws::When("the value caught is of no exception type"), ..Effects::PURE },
    }
    /// `throw_value(x, text)`: throws the value `x` (a program's exception, or any value: Julia
    /// allows `throw(1)`), reported as `text` (`sprint(showerror, x)`) if nothing catches it.
    ThrowValue => "throw_value" {
        arity: Exactly(2), diff: Diff::No,
        effects: Effects { throws: Throws::Checks("always"), ..Effects::PURE },
        jit: Jit::Interpreted,
    }
    /// `exception_new(:E, values..., parts...)`: Base's exception `E` as a value (of type
    /// `Exception`), with the text `error(:E, ...)` raises it with.
    ExceptionNew => "exception_new" {
        arity: AtLeast(1), diff: Diff::No, effects: Effects::allocates(""),
        jit: Jit::Interpreted,
    }
    /// `exception_text(e)`: the caught exception `e` as `showerror` writes it (the text it
    /// was raised with).
    ExceptionText => "exception_text" {
        arity: Exactly(1), diff: Diff::No, effects: Effects::allocates(""),
        jit: Jit::Interpreted,
    }
    /// `realias(copy, x)`: `deepcopy`'s last step: `copy`, a tree copy of `x` (each object
    /// copied wherever `x` reaches it), with the sharing inside `x` restored (an object `x`
    /// reaches again is the copy of its first reference), `copy`'s objects fixed in place. Of
    /// the copy's shadow or tangent beside `x`, the same for it.
    Realias => "realias" {
        arity: Exactly(2), effects: Effects::allocates(""), jit: Jit::Interpreted,
    }
    /// `check_distinct(msg, a, b)`: throws `msg` (a constant string) if the objects `a` and `b`
    /// are one object (Julia's `===`). Returns nothing. (Drivers: arguments that alias.)
    CheckDistinct => "check_distinct" {
        arity: Exactly(3), diff: Diff::No,
        effects: Effects { throws: Throws::Checks("its operands are one object"), ..Effects::PURE },
    }
    /// `same_object(a, b)`: are the objects `a` and `b` (two arrays of one type) one object?
    /// Julia's `===` of mutable values, which two equal arrays are not.
    SameObject => "same_object" { arity: Exactly(2), diff: Diff::No }
    // AD tape (forward and pullback IR).
    /// A new empty stack: the result type says what it holds.
    StackNew => "stack" { arity: Exactly(0), diff: Diff::No, effects: Effects::allocates("") }
    /// `stack_mark()`: how many AD stacks the JIT's arena has handed out (0 in the
    /// interpreter, whose stacks are freed once unreachable), for `stack_release`.
    StackMark => "stack_mark" { arity: Exactly(0), diff: Diff::No, effects: Effects::allocates("") }
    /// `stack_release(mark)`: the stacks handed out since `stack_mark()` returned `mark` are
    /// dead (a checkpointed call's recomputed tape, once its pullback ran), and the JIT reuses
    /// their buffers for the next ones. Returns nothing.
    StackRelease => "stack_release" {
        arity: Exactly(1), diff: Diff::No, effects: Effects { calls: true, ..Effects::PURE },
    }
    /// `push!(stack, v)`. Returns nothing.
    Push => "push!" { arity: Exactly(2), effects: Effects::mutates(0, "") }
    /// `pop!(stack)`.
    Pop => "pop!" { effects: Effects::mutates(0, "") }
    /// The structural zero of the result type (`zero(x)` for numbers, zeros for arrays).
    ZeroTangent => "zero_tangent" {
        arity: Between(0, 1), diff: Constant, effects: Effects::allocates(""), interpreted_for: REST,
    }
    /// `tangent_of(x, s, r)`: the gradient of the value `x` from its shadow `s` and its
    /// returned part `r`, read out node by node as deep as the data: a mutable struct's box
    /// as the named tuple it holds, each box it holds read the same way (the driver's
    /// gradient w.r.t. a recursive struct). A node reached again from itself (a cycle) has no
    /// such gradient: it throws. No rule: a gradient reaching it is refused by name.
    TangentOf => "tangent_of" {
        arity: Exactly(3), diff: Rewritten, jit: Jit::Interpreted,
        effects: Effects::allocates("the structure holds a cycle"),
    }
    /// `tangent_part(g, part)`: of the gradient `g` of a value of a union whose members split
    /// apart differently (a container of `Any` holding arrays beside numbers), the part the
    /// symbol `part` names, decided by what `g` holds at run time: `:fdata` its shadow part
    /// (the arrays, kept as the same objects), `:rdata` its returned part (the numbers), each
    /// `nothing` where the value has none. `:fdata_each` and `:rdata_each` take the shadow of
    /// a vector of such values and give a new vector of each element's part (the shadow of
    /// `copy` of a container of `Any`, and what its reverse adds back). Made by the AD with no
    /// rule.
    TangentPart => "tangent_part" {
        arity: Exactly(2), diff: Rewritten, jit: Jit::Interpreted,
    }
    /// `accum(a, b)`: tangent addition, with `nothing` as the additive identity.
    Accum => "accum" {
        arity: Exactly(2), effects: Effects::allocates("arrays of different shapes"),
        interpreted_for: REST,
    }
    /// `accum!(dst, x)`: add `x` (an array of `dst`'s shape, or a Float64 added to every
    /// element) into the array `dst` in place; an `x` of a shape broadcasting extends `dst`'s
    /// to is summed over the extension first (`unbroadcast`). Returns nothing. (Pullback IR:
    /// shadow updates.)
    AccumInto => "accum!" {
        arity: Exactly(2), effects: Effects::mutates(0, "arrays of different shapes"),
        jit: Jit::Runtime("zy_rt_accum_into"),
    }
    /// `accum_slice!(dst, a, s, x)`: add the Float64 vector `x` into the elements `a`, `a + s`,
    /// ... of the Float64 array `dst` (linear indices) in place: the reverse of `slice_copy`.
    /// Returns nothing. (Pullback IR.)
    AccumSlice => "accum_slice!" {
        arity: Exactly(4), effects: Effects::mutates(0, "an index out of bounds"),
        interpreted_for: REST,
    }
    /// `make_pullback(f⁻, method, tape)`: the `back` closure of one call, as a
    /// [`Type::Pullback`](crate::Type::Pullback) value. `args[0]` (a constant function name) and
    /// `args[1]` (a constant Int method index) name the pullback instance, whose
    /// [`Instance::args`](crate::Instance::args) are the contents of the result's `Pullback`
    /// type; calling it ([`Prim::CallPullback`]) runs that instance on `(tape, ȳ)`.
    MakePullback => "make_pullback" { arity: Exactly(3), diff: Rewritten }
    // The gradient debugger (only in the programs it builds for a watched run).
    /// `tap(:primal, :x, v)` / `tap(:adjoint, :x, x̄)`: shows a watched run the value or the
    /// adjoint of the source variable `x` where the statement's span says. Returns nothing;
    /// never removed as dead code.
    Tap => "tap" {
        arity: Exactly(3), diff: Diff::No,
        effects: Effects { observed: true, ..Effects::PURE }, jit: Jit::Interpreted,
    }
}

impl Prim {
    /// Every attribute of this primitive.
    pub fn info(self) -> &'static PrimInfo {
        &TABLE[self as usize]
    }

    /// The Julia function this primitive implements, as printed in IR.
    pub fn julia_name(self) -> &'static str {
        self.info().name
    }

    /// The primitive printed as `name`, if any.
    pub fn from_julia_name(name: &str) -> Option<Prim> {
        Prim::ALL.iter().copied().find(|p| p.julia_name() == name)
    }

    /// The elementary function this primitive is, if it is one.
    pub fn math(self) -> Option<&'static Math> {
        match &self.info().kind {
            Kind::Math(m) => Some(m),
            _ => None,
        }
    }

    /// The Bessel function of an order this primitive is (`besselj(ν, x)`, ...), and whether
    /// it is the scaled one.
    pub fn bessel(self) -> Option<(specfun::Bessel, bool)> {
        use specfun::Bessel::*;
        Some(match self {
            Prim::Besselj => (J, false),
            Prim::Besseljx => (J, true),
            Prim::Bessely => (Y, false),
            Prim::Besselyx => (Y, true),
            Prim::Besseli => (I, false),
            Prim::Besselix => (I, true),
            Prim::Besselk => (K, false),
            Prim::Besselkx => (K, true),
            _ => return None,
        })
    }

    /// Does `f.(xs...)` apply this primitive to each element?
    pub fn is_elementwise(self) -> bool {
        matches!(self.info().kind, Kind::Scalar | Kind::Math(_))
    }

    /// The elementwise primitive that broadcasting the function `name` over `arity` operands
    /// applies (`-` of one operand is [`Prim::Neg`]).
    pub fn elementwise(name: &str, arity: usize) -> Option<Prim> {
        let p = match (name, arity) {
            ("-", 1) => Prim::Neg,
            (n, _) => Prim::from_julia_name(n)?,
        };
        p.is_elementwise().then_some(p)
    }

    /// Binary operators printed infix in IR (`%3 = %1 + %2`).
    pub fn is_infix(self) -> bool {
        let name = self.julia_name();
        self.info().arity == Arity::Exactly(2)
            && matches!(self.info().kind, Kind::Scalar)
            && !name.starts_with(|c: char| c.is_alphabetic() || c == '_')
    }

    /// The differentiation primitives (`gradient`, `pullback`, `pushforward`, ...): they
    /// differentiate, and so run, the function value that is their first operand; the AD
    /// transform rewrites each before the JIT sees it.
    pub fn differentiates(self) -> bool {
        matches!(
            self,
            Prim::Gradient
                | Prim::Derivative
                | Prim::Hessian
                | Prim::PullbackOf
                | Prim::Pushforward
                | Prim::Jvp
                | Prim::Hvp
                | Prim::PushforwardChunk
        )
    }

    /// Operations whose result does not depend on the inputs differentiably: their gradient is
    /// cut (comparisons, rounding, conversions to Int, shapes and lengths).
    pub fn is_nondifferentiable(self) -> bool {
        matches!(self.info().diff, Diff::Zero | Diff::No)
    }

    /// Operations with an effect on an existing object (mutation), on control (throwing is
    /// their purpose), any effect of a function they call, or one a watched run observes:
    /// never removed, never reordered.
    pub fn has_effect(self) -> bool {
        let e = self.info().effects;
        e.mutates.is_some() || e.calls || e.observed || matches!(e.throws, Throws::Checks(_))
    }

    /// Can a statement of this primitive be dropped when its result is unused? Only when it
    /// neither mutates, nor calls a function, nor can throw, nor is observed: dropping an
    /// unused `x[10]` or `sin(Inf)` would lose Julia's `BoundsError` or `DomainError`.
    pub fn is_removable(self) -> bool {
        let e = self.info().effects;
        e.mutates.is_none() && !e.calls && !e.observed && e.throws == Throws::Never
    }
}

impl fmt::Display for Prim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.julia_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prim_names_are_unique_and_round_trip() {
        for &p in Prim::ALL {
            assert_eq!(Prim::from_julia_name(p.julia_name()), Some(p), "{p:?}");
        }
    }

    #[test]
    fn the_table_is_in_declaration_order() {
        assert_eq!(TABLE.len(), Prim::ALL.len());
        for (i, &p) in Prim::ALL.iter().enumerate() {
            assert_eq!(p as usize, i);
        }
    }

    #[test]
    fn infix_operators_are_the_binary_symbols() {
        let infix: Vec<&str> = Prim::ALL
            .iter()
            .filter(|p| p.is_infix())
            .map(|p| p.julia_name())
            .collect();
        assert_eq!(
            infix,
            ["+", "-", "*", "/", "÷", "%", "^", "<", "<=", ">", ">=", "==", "!="]
        );
    }

    #[test]
    fn effects_are_the_mutations_the_checks_and_the_calls() {
        let effect: Vec<&str> = Prim::ALL
            .iter()
            .filter(|p| p.has_effect())
            .map(|p| p.julia_name())
            .collect();
        assert_eq!(
            effect,
            [
                "setfield!",
                "ref_set!",
                "ref_init!",
                "check_axes",
                "setindex!",
                "setlength!",
                "slot_set!",
                "gradient",
                "derivative",
                "hessian",
                "pushforward",
                "jvp",
                "hvp",
                "_pushforward_chunk",
                "pullback",
                "call_pullback",
                "time",
                "time_ns",
                "_utc_offset",
                "check_field",
                "error",
                "_refuse_tangent",
                "the_exception",
                "rethrow",
                "throw_value",
                "check_distinct",
                "stack_release",
                "push!",
                "pop!",
                "accum!",
                "accum_slice!",
                "tap"
            ]
        );
    }

    #[test]
    fn domains_follow_julia() {
        let sqrt = Prim::Sqrt.math().map(|m| m.domain);
        assert_eq!(sqrt.and_then(|d| d.error(0.0, 0.0)), None);
        assert!(sqrt.and_then(|d| d.error(-0.1, f64::NAN)).is_some());
        assert_eq!(sqrt.and_then(|d| d.error(f64::NAN, f64::NAN)), None);
        let asin = Prim::Asin.math().map(|m| m.domain);
        assert!(asin.and_then(|d| d.error(-1.5, f64::NAN)).is_some());
        assert_eq!(asin.and_then(|d| d.error(1.0, 1.5707963267948966)), None);
        let sin = Prim::Sin.math().map(|m| m.domain);
        assert!(sin
            .and_then(|d| d.error(f64::NEG_INFINITY, f64::NAN))
            .is_some());
        // gamma's poles: a NaN from a number; NaN in, NaN out.
        let gamma = Prim::Gamma.math().map(|m| m.domain);
        assert!(gamma.and_then(|d| d.error(-1.0, f64::NAN)).is_some());
        assert_eq!(gamma.and_then(|d| d.error(f64::NAN, f64::NAN)), None);
        assert_eq!(gamma.and_then(|d| d.error(0.0, f64::INFINITY)), None);
    }
}
