//! Operations: what a statement does. Untyped IR calls functions by name; inference resolves each
//! call to a [`Prim`] (a builtin with a hand-written rule) or an [`Instance`] of a user method.

use std::fmt;
use std::sync::Arc;

use crate::types::{Name, StructType, Type};

/// The operation of a statement. Its operands are the statement's `args`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Op {
    /// Untyped: call the generic function with this name (user-defined or builtin, including
    /// operators: `+`, `getindex`, `tuple`, `Ref`, `broadcast`, ...).
    Call(Name),
    /// Untyped: call `args[0]` (a closure, a callable struct, a function value) with the rest.
    CallValue,
    /// Untyped: build the closure environment named here from the captured values in `args`.
    Closure(Name),
    /// Load a top-level binding (`const N = 3`, `sq = x -> x^2`).
    Global(Name),
    /// Typed: a builtin operation; semantics depend on the operand types.
    Prim(Prim),
    /// Typed: construct a struct or closure environment of this type from its field values.
    New(StructRef),
    /// Typed: call a specialisation of a user method. For a callable struct or closure, `args[0]`
    /// is the callee value (the hidden zeroth argument).
    Invoke(Arc<Instance>),
}

/// One specialisation of a user method on concrete argument types: the unit of inference,
/// differentiation and compilation.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Instance {
    /// The generic function's name (`f`; `(::Dense)` for a callable struct's call method).
    pub name: Name,
    /// Which method of the generic function (index into its method list).
    pub method: u32,
    /// Concrete argument types, including the callee's for callable structs and closures.
    pub args: Arc<[Type]>,
}

impl fmt::Display for Instance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.name)?;
        for (i, t) in self.args.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "::{t}")?;
        }
        write!(f, ")")
    }
}

impl fmt::Debug for Instance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

macro_rules! prims {
    ($($(#[$doc:meta])* $variant:ident => $name:literal,)*) => {
        /// A builtin operation. Operand types are concrete and, for arithmetic, equal (inference
        /// inserts `float` conversions for mixed `Int64`/`Float64`); the operation's meaning
        /// follows Julia's for those types.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
        pub enum Prim {
            $($(#[$doc])* $variant,)*
        }

        impl Prim {
            /// Every primitive, in declaration order.
            pub const ALL: &'static [Prim] = &[$(Prim::$variant,)*];

            /// The Julia function this primitive implements, as printed in IR.
            pub fn julia_name(self) -> &'static str {
                match self {
                    $(Prim::$variant => $name,)*
                }
            }
        }
    };
}

prims! {
    // Scalar arithmetic (operands of one number type).
    /// `a + b`.
    Add => "+",
    /// `a - b`.
    Sub => "-",
    /// `a * b` on scalars.
    Mul => "*",
    /// `a / b`: always Float64 (inference converts Int operands).
    Div => "/",
    /// `a ÷ b` (`div`): Int64 division truncating toward zero; DivideError on zero.
    IntDiv => "÷",
    /// `a % b` (`rem`): sign of the dividend.
    Rem => "%",
    /// `a ^ b`: Float^Float, Float^Int, Int^Int (by squaring; negative exponent is a DomainError).
    Pow => "^",
    /// Unary `-a`.
    Neg => "neg",
    // Comparisons and logic.
    /// `a < b`.
    Lt => "<",
    /// `a <= b`.
    Le => "<=",
    /// `a > b`.
    Gt => ">",
    /// `a >= b`.
    Ge => ">=",
    /// `a == b`.
    Eq => "==",
    /// `a != b`.
    Ne => "!=",
    /// `!a` on Bool.
    Not => "!",
    /// `ifelse(c, a, b)`: `a` if the Bool `c` holds, else `b` (both already evaluated). The
    /// AD's reverse rules use it for strong zeros: `ifelse(c, ȳ, 0.0)` is `0.0` even for an
    /// infinite `ȳ`, as ChainRules' Boolean partials are.
    IfElse => "ifelse",
    // Elementary functions (differentiable).
    Sin => "sin",
    Cos => "cos",
    Tan => "tan",
    Exp => "exp",
    Log => "log",
    Log1p => "log1p",
    Sqrt => "sqrt",
    Abs => "abs",
    Tanh => "tanh",
    Sinh => "sinh",
    Cosh => "cosh",
    Asin => "asin",
    Acos => "acos",
    Atan => "atan",
    /// `max(a, b)`.
    Max => "max",
    /// `min(a, b)`.
    Min => "min",
    // Piecewise-constant functions (gradient zero).
    Floor => "floor",
    Ceil => "ceil",
    /// `round(x)`: nearest, ties to even.
    Round => "round",
    Sign => "sign",
    // Conversions.
    /// `float(x)` / `Float64(x)` from Int64 or Bool.
    Float => "float",
    /// `Int(x)` / `Int64(x)`: exact conversion (InexactError otherwise).
    ToInt => "Int",
    // Tuples, named tuples, structs.
    /// `(a, b, ...)`.
    Tuple => "tuple",
    /// `(a = x, b = y)`: `args[0]` is a constant tuple of symbols naming the fields.
    NamedTuple => "namedtuple",
    /// `getfield(x, i)`: field or element `i` (constant Int, 1-based) of a tuple, named tuple,
    /// struct or closure environment.
    GetField => "getfield",
    /// `setfield!(x, i, v)` on a mutable struct (`i` constant, 1-based). Returns `v`.
    SetField => "setfield!",
    /// `getindex(t, i)` on a homogeneous tuple with a run-time index (bounds-checked).
    TupleIndex => "tuple_getindex",
    // Refs.
    /// `Ref(x)`.
    RefNew => "Ref",
    /// `r[]`.
    RefGet => "ref_get",
    /// `r[] = v`. Returns `v`.
    RefSet => "ref_set!",
    // Arrays.
    /// `[a, b, c]`: a Vector from its elements.
    Vect => "vect",
    /// `[a b; c d]`: `args[0]`, `args[1]` are constant row and column counts, then the
    /// elements in row-major order.
    Hvcat => "hvcat",
    /// `zeros(n)` / `zeros(m, n)`.
    Zeros => "zeros",
    /// `ones(n)` / `ones(m, n)`.
    Ones => "ones",
    /// `fill(v, n)` / `fill(v, m, n)`.
    Fill => "fill",
    /// `similar(x)`: same shape, contents zero (Julia leaves them undefined; zy zero-fills).
    Similar => "similar",
    /// `copy(x)`.
    Copy => "copy",
    /// `length(x)` of an array or tuple.
    Length => "length",
    /// `size(A)` (a tuple) or `size(A, d)`.
    Size => "size",
    /// `x[i]`, `A[i, j]`, `A[k]` (linear): 1-based, bounds-checked.
    GetIndex => "getindex",
    /// `x[i] = v`, `A[i, j] = v`: `args` are (array, value, indices...). Returns `v`.
    SetIndex => "setindex!",
    /// `first(x)`.
    First => "first",
    /// `last(x)`.
    Last => "last",
    /// `sum(x)`.
    Sum => "sum",
    /// `prod(x)`.
    Prod => "prod",
    /// `maximum(x)`.
    Maximum => "maximum",
    /// `minimum(x)`.
    Minimum => "minimum",
    /// `findmax(x)` of a Float64 array: `(maximum(x), i)` with `i` the first (linear) index
    /// holding it, in Julia's `isless` order (a NaN is the largest; `0.0` above `-0.0`).
    FindMax => "findmax",
    /// `findmin(x)` of a Float64 array: `(minimum(x), i)`, a NaN winning as in `minimum`.
    FindMin => "findmin",
    /// `dot(x, y)`.
    Dot => "dot",
    /// `A * x`, `A * B`, `x' * y`, `x' * A`: products involving an array.
    MatMul => "matmul",
    /// `transpose(A)` of a matrix (a copy), or of a vector (an adjoint row vector).
    Transpose => "transpose",
    /// `A'` (`adjoint`): for real matrices the transpose; for a vector, a row vector.
    Adjoint => "adjoint",
    /// `broadcast(f, args...)`: `args[0]` is a constant function naming a scalar primitive; the
    /// other operands are arrays of one shape or scalars. `x .+ y`, `sin.(x)`.
    Broadcast => "broadcast",
    /// `zero(x)`: the additive identity of a number, or zeros of an array's shape.
    Zero => "zero",
    /// `one(x)` of a number.
    One => "one",
    // Differentiation called from user code (rewritten into forward/pullback calls by the AD
    // transform before anything runs).
    /// `gradient(f, args...)`: `args[0]` is the callee; a tuple with one tangent per argument.
    Gradient => "gradient",
    /// `derivative(f, x)` for a scalar `x`.
    Derivative => "derivative",
    /// `hessian(f, x)` for a vector `x`: an n×n matrix.
    Hessian => "hessian",
    /// `pullback(f, args...)`: the tuple `(y, back)`; `back` has type [`Type::Pullback`](crate::Type::Pullback).
    PullbackOf => "pullback",
    /// `back(ȳ)` for a `back` returned by `pullback`: a tuple with one tangent per argument.
    CallPullback => "call_pullback",
    /// `range_length(a, s, b)`: the length of the Int range `a:s:b` (ArgumentError if `s == 0`).
    /// Lowering expands `for i in a:s:b` into a counted loop over it.
    RangeLength => "range_length",
    /// `undef(:x)`: the value of local `x` on a path where it is not assigned. Its type is
    /// `Union{}` so it vanishes in joins; using it is an `UndefVarError`.
    Undef => "undef",
    // Errors.
    /// `error("msg")`: throws; `args[0]` is a constant string.
    Error => "error",
    /// `check_distinct(msg, a, b)`: throws `msg` (a constant string) if the objects `a` and `b`
    /// are one object (Julia's `===`). Returns nothing. (Drivers: arguments that alias.)
    CheckDistinct => "check_distinct",
    // AD tape (forward and pullback IR).
    /// A new empty stack: the result type says what it holds.
    StackNew => "stack",
    /// `push!(stack, v)`. Returns nothing.
    Push => "push!",
    /// `pop!(stack)`.
    Pop => "pop!",
    /// The structural zero of the result type (`zero(x)` for numbers, zeros for arrays).
    ZeroTangent => "zero_tangent",
    /// `accum(a, b)`: tangent addition, with `nothing` as the additive identity.
    Accum => "accum",
    /// `accum!(dst, x)`: add `x` (an array of `dst`'s shape, or a Float64 added to every
    /// element) into the array `dst` in place. Returns nothing. (Pullback IR: shadow updates.)
    AccumInto => "accum!",
    /// `make_pullback(f⁻, method, tape)`: the `back` closure of one call, as a
    /// [`Type::Pullback`](crate::Type::Pullback) value. `args[0]` (a constant function name) and
    /// `args[1]` (a constant Int method index) name the pullback instance, whose
    /// [`Instance::args`] are the contents of the result's `Pullback` type; calling it
    /// ([`Prim::CallPullback`]) runs that instance on `(tape, ȳ)`.
    MakePullback => "make_pullback",
}

impl Prim {
    /// The primitive printed as `name`, if any.
    pub fn from_julia_name(name: &str) -> Option<Prim> {
        Prim::ALL.iter().copied().find(|p| p.julia_name() == name)
    }

    /// Binary operators printed infix in IR (`%3 = %1 + %2`).
    pub fn is_infix(self) -> bool {
        matches!(
            self,
            Prim::Add
                | Prim::Sub
                | Prim::Mul
                | Prim::Div
                | Prim::IntDiv
                | Prim::Rem
                | Prim::Pow
                | Prim::Lt
                | Prim::Le
                | Prim::Gt
                | Prim::Ge
                | Prim::Eq
                | Prim::Ne
        )
    }

    /// Operations whose result does not depend on the inputs differentiably: their gradient is
    /// cut (comparisons, rounding, conversions to Int, shapes and lengths).
    pub fn is_nondifferentiable(self) -> bool {
        matches!(
            self,
            Prim::Lt
                | Prim::Le
                | Prim::Gt
                | Prim::Ge
                | Prim::Eq
                | Prim::Ne
                | Prim::Not
                | Prim::Floor
                | Prim::Ceil
                | Prim::Round
                | Prim::Sign
                | Prim::ToInt
                | Prim::IntDiv
                | Prim::Length
                | Prim::Size
                | Prim::Zeros
                | Prim::Ones
                | Prim::Similar
                | Prim::StackNew
                | Prim::Error
                | Prim::FindMax
                | Prim::FindMin
                | Prim::CheckDistinct
        )
    }

    /// Operations with an effect on an existing object (mutation) or on control (throwing).
    pub fn has_effect(self) -> bool {
        matches!(
            self,
            Prim::SetField
                | Prim::RefSet
                | Prim::SetIndex
                | Prim::Push
                | Prim::Pop
                | Prim::Error
                | Prim::AccumInto
                | Prim::CheckDistinct
        )
    }
}

impl fmt::Display for Prim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.julia_name())
    }
}

/// A resolved struct type, as carried by [`Op::New`].
pub type StructRef = Arc<StructType>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prim_names_are_unique_and_round_trip() {
        for &p in Prim::ALL {
            assert_eq!(Prim::from_julia_name(p.julia_name()), Some(p), "{p:?}");
        }
    }
}
