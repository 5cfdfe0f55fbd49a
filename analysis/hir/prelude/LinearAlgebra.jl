# zy's prelude: the part of Julia's LinearAlgebra that zy defines in Julia. Seen after
# `using LinearAlgebra` (its exports) or as `LinearAlgebra.name`. The factorizations (`det`,
# `logdet`, `inv`, `A \ B`, the Cholesky factor) and `tril`/`triu` are primitives with
# matrix-calculus rules; what is written here is built on them.

export norm, tr, diag, diagm, kron, cholesky, Cholesky, I, UniformScaling, Diagonal, logabsdet

# Methods added to functions every file sees (the primitives `det`, `logdet` and `dot` keep
# their own methods for arrays; `\` of a matrix is written below on the primitive square solve).
import Base: \, det, logdet, dot, inv, size, length, getindex, setindex!, adjoint, transpose, +, -, *, /,
    ==, isapprox

"""
    norm(x)

The Euclidean norm of a vector, or the Frobenius norm of a matrix: `sqrt(sum(abs2, x))`.
"""
norm(x::AbstractArray) = sqrt(sum(abs2, x))
# Of a view, that of its elements.
norm(v::SubArray) = norm(collect(v))
# Of a number, its magnitude as a float (`norm(Δx)` of a step that starts as `Inf`); of `p = 0`,
# whether it is nonzero.
norm(x::Number) = abs(float(x))
function norm(x::Number, p::Real)
    afx = abs(float(x))
    p == 0 || return afx
    return x == 0 ? zero(afx) : isnan(x) ? afx : one(afx)
end

# The gradient x / norm(x), and zero at the zero vector (as ChainRules gives it) instead of
# the 0 / 0 that differentiating the definition gives there. (Of complex numbers, the
# definition is differentiated.)
function rrule(::typeof(norm), x::Union{Array{<:Real}, Adjoint})
    y = norm(x)
    function norm_pullback(ȳ)
        s = y == 0 ? zero(ȳ / y) : ȳ / y
        return (NoTangent(), s .* x)
    end
    return y, norm_pullback
end
# Forward mode's derivative along `Δx`, `dot(x, Δx) / norm(x)`, zero at the zero vector as the
# rrule's gradient is (ChainRules' frule divides by `pinv(y)`).
function frule(Δ, ::typeof(norm), x::Union{Array{<:Real}, Adjoint})
    y = norm(x)
    return y, y == 0 ? zero(y) : dot(x, Δ[2]) / y
end

"""
    norm(x, p)

The `p`-norm of the elements of `x`: `sum(abs.(x) .^ p)^(1 / p)`; `p = 2` is `norm(x)`,
`p = 1` the sum of magnitudes, `p = Inf` the largest magnitude, `p = -Inf` the smallest and
`p = 0` the number of nonzero elements. At the zero vector the gradient is zero, as
ChainRules' (which zeroes every non-finite partial).
"""
function norm(x::AbstractArray, p::Real)
    if p == 0
        return float(count(xi -> xi != 0, x))
    elseif p == 2
        return norm(x)
    elseif p == 1
        return float(sum(abs, x))
    elseif p == Inf
        return float(_maxabs(x))
    elseif p == -Inf
        return float(_minabs(x))
    end
    return _normp(x, float(p))
end

function _normp(x, q::Float64)
    s = sum(xi -> abs(xi)^q, x)
    return s == 0.0 ? 0.0 : s^(1.0 / q)
end

# ChainRules' pullback of the `p`-norm `y`: `x̄ᵢ = xᵢ (|xᵢ| / y)^(p - 2) ȳ / y` and
# `p̄ = ȳ (Σ (|xᵢ| / y)^(p - 1) |xᵢ| log|xᵢ| - y log y) / p`, each term that is not finite
# (zero elements for `p < 1`, the zero vector) taken as zero.
function rrule(::typeof(_normp), x::Array{<:Real}, p::Float64)
    y = _normp(x, p)
    function _normp_pullback(ȳ)
        c = ȳ / y
        x̄ = map(xi -> _finite_or_zero(xi * ((abs(xi) / y)^(p - 2.0) * c)), x)
        p̄ = 0.0
        if y > 0.0 && isfinite(y)
            t = sum(xi -> _finite_or_zero((abs(xi) / y)^(p - 1.0) * abs(xi) * log(abs(xi))), x)
            p̄ = ȳ * (t - y * log(y)) / p
        end
        return (NoTangent(), x̄, p̄)
    end
    return y, _normp_pullback
end

_finite_or_zero(v::Float64) = isfinite(v) ? v : 0.0

function _maxabs(x)
    m = abs(x[1])
    for k in 2:length(x)
        m = max(m, abs(x[k]))
    end
    return m
end

function _minabs(x)
    m = abs(x[1])
    for k in 2:length(x)
        m = min(m, abs(x[k]))
    end
    return m
end

"""
    dot(x, A, y)

The generalised dot product `x' * A * y`, without forming `A * y`'s transpose; Julia's
generic method, so `A` may be any matrix or wrapper with a product (`Diagonal`, `Symmetric`,
a triangular matrix) or a number.
"""
dot(x, A, y) = dot(x, A * y)

export mul!, lmul!, rmul!

"""
    mul!(C, A, B)
    mul!(C, A, B, α, β)

The product `A * B` written into `C` (`α * A * B + β * C`, the old `C` not read when `β` is
zero, as Julia's BLAS call), which is returned. (Julia refuses a `C` that is `A` or `B`; zy
computes the product first, so such a call gives the product.) `A` and `B` may be any
factors `*` takes: wrappers such as `A'`, `transpose(A)`, `Diagonal(v)`, or a number.
"""
function mul!(C::AbstractVecOrMat, A, B)
    C .= A * B
    return C
end

function mul!(C::AbstractVecOrMat, A, B, α::Number, β::Number)
    if iszero(β)
        C .= α .* (A * B)
    else
        C .= α .* (A * B) .+ β .* C
    end
    return C
end

"""
    lmul!(a, B), rmul!(A, b)

`B` scaled by the number `a` (`A` by `b`) in place, and returned.
"""
function lmul!(a::Number, B::AbstractArray)
    B .= a .* B
    return B
end

function rmul!(A::AbstractArray, b::Number)
    A .= A .* b
    return A
end

export axpy!, axpby!, normalize!

"""
    axpy!(α, x, y), axpby!(α, x, β, y)

`y` overwritten by `x * α + y` (by `x * α + y * β`) and returned; arrays of different lengths
are Julia's `DimensionMismatch`.
"""
function axpy!(α::Number, x::AbstractArray, y::AbstractArray)
    if length(x) != length(y)
        throw(DimensionMismatch("x has length $(length(x)), but y has length $(length(y))"))
    end
    y .= x .* α .+ y
    return y
end

function axpby!(α::Number, x::AbstractArray, β::Number, y::AbstractArray)
    if length(x) != length(y)
        throw(DimensionMismatch("x has length $(length(x)), but y has length $(length(y))"))
    end
    y .= x .* α .+ y .* β
    return y
end

# The order of a square matrix; a DimensionMismatch for any other.
function _checksquare(A)
    m = size(A, 1)
    n = size(A, 2)
    if m != n
        throw(DimensionMismatch("matrix is not square: dimensions are ($m, $n)"))
    end
    return n
end

"""
    tr(A)

The trace of a square matrix: the sum of its diagonal, added in order.
"""
function tr(A::AbstractMatrix)
    n = _checksquare(A)
    t = zero(A[1, 1])
    for i in 1:n
        t += A[i, i]
    end
    return t
end

"""
    diag(A)

The diagonal of a matrix, `A[i, i]` for `i` up to the smaller dimension, as a new Vector.
"""
function diag(A::AbstractMatrix)
    n = min(size(A, 1), size(A, 2))
    d = _vector(A, n)
    for i in 1:n
        d[i] = A[i, i]
    end
    return d
end

"""
    diag(A, k)

The `k`-th diagonal of a matrix (`k > 0` above the main one, `k < 0` below), as a new Vector.
"""
function diag(A::AbstractMatrix, k::Integer)
    m = size(A, 1)
    n = size(A, 2)
    if !(-m <= k <= n)
        throw(ArgumentError("requested diagonal, $k, must be at least $(-m) and at most $n for an $m-by-$n matrix"))
    end
    len = k >= 0 ? max(min(m, n - k), 0) : max(min(m + k, n), 0)
    d = _vector(A, len)
    for i in 1:len
        d[i] = k >= 0 ? A[i, i + k] : A[i - k, i]
    end
    return d
end

"""
    diagm(v)

The square matrix with the vector `v` on its diagonal and zeros elsewhere.
"""
function diagm(v::AbstractVector)
    n = length(v)
    D = _matrix(v, n, n)
    for i in 1:n
        D[i, i] = v[i]
    end
    return D
end

"""
    diagm(k => v, ...)

The square matrix with the vector `v` on its `k`-th diagonal (`0` the main one, `k > 0` above
it, `k < 0` below), of the smallest size that holds every pair, and zeros elsewhere.
"""
diagm(kv::Pair...) = _diagm_add!(_matrix(kv[1].second, _diagm_size(kv...), _diagm_size(kv...)), kv...)

_diagm_size(kv) = length(kv.second) + abs(kv.first)
_diagm_size(kv, rest...) = max(_diagm_size(kv), _diagm_size(rest...))

_diagm_add!(D) = D
function _diagm_add!(D, kv, rest...)
    k = kv.first
    v = kv.second
    for i in 1:length(v)
        D[i + max(-k, 0), i + max(k, 0)] += v[i]
    end
    return _diagm_add!(D, rest...)
end

# Of numbers, as Julia's: `dot(x, y)` is `conj(x) * y`, `det(x)` is `x` itself (a 1×1 matrix's),
# `logdet(x)` is `log(x)` (a `DomainError` below zero), `logabsdet(x)` is
# `(log(abs(x)), sign(x))`.
dot(x::Real, y::Real) = x * y
det(x::Number) = x
logdet(x::Number) = log(x)
logabsdet(x::Real) = (log(abs(x)), sign(x))

"""
    logabsdet(A)

`(log(abs(det(A))), sign(det(A)))`: the logarithm of the determinant's magnitude and its sign.
"""
function logabsdet(A::AbstractMatrix)
    d = det(A)
    return (log(abs(d)), sign(d))
end

"""
    kron(A, B)

The Kronecker product: block `(i, j)` of the result is `A[i, j] * B`. Of two vectors, the
vector `[a₁ b; a₂ b; ...]`.
"""
function kron(A::Matrix, B::Matrix)
    m = size(A, 1)
    n = size(A, 2)
    p = size(B, 1)
    q = size(B, 2)
    K = zeros(typeof(zero(eltype(A)) * zero(eltype(B))), m * p, n * q)
    for j in 1:n, i in 1:m, l in 1:q, k in 1:p
        K[(i - 1) * p + k, (j - 1) * q + l] = A[i, j] * B[k, l]
    end
    return K
end

function kron(a::Vector, b::Vector)
    m = length(a)
    p = length(b)
    K = zeros(typeof(zero(eltype(a)) * zero(eltype(b))), m * p)
    for i in 1:m, k in 1:p
        K[(i - 1) * p + k] = a[i] * b[k]
    end
    return K
end

# Of three or more: from the left, `kron(kron(a, b), c...)`.
kron(a, b, c, rest...) = kron(kron(a, b), c, rest...)

# A vector is an n×1 matrix and a row `b'` a 1×n one: `kron(a, b')` is the outer product.
kron(a::AbstractVector, b::Adjoint) = a * b
kron(a::Adjoint, b::AbstractVector) = b * a
kron(A::AbstractMatrix, b::AbstractVector) = kron(A, hcat(b))
kron(a::AbstractVector, B::AbstractMatrix) = kron(hcat(a), B)

"""
    kron!(C, A, B)

`kron(A, B)` written into `C`, which must have its size (a `DimensionMismatch` otherwise);
returns `C`.
"""
function kron!(C::AbstractVecOrMat, A::AbstractVecOrMat, B::AbstractVecOrMat)
    K = kron(A, B)
    size(C) == size(K) || throw(DimensionMismatch("kron!"))
    return copyto!(C, K)
end
export kron!

"""
    sylvester(A, B, C), lyap(A, C)

The `X` with `A*X + X*B + C = 0` (`lyap`: `A*X + X*A' + C = 0`, the continuous Lyapunov
equation), as Julia's; of numbers `-c / (a + b)` (`-c / 2a`). zy solves the Kronecker form
`(I ⊗ A + Bᵀ ⊗ I) vec(X) = -vec(C)` with `\`, where Julia uses the Schur form: the same `X` up
to rounding, and an equation without a unique solution is `\`'s `SingularException`.
"""
function sylvester(A::AbstractMatrix, B::AbstractMatrix, C::AbstractMatrix)
    m, n = size(C)
    (size(A) == (m, m) && size(B) == (n, n)) ||
        throw(DimensionMismatch("the sizes of A, B and C do not fit A*X + X*B + C = 0"))
    K = kron(Matrix(1.0I, n, n), A) + kron(Matrix(transpose(B)), Matrix(1.0I, m, m))
    return reshape(K \ (-vec(C)), m, n)
end
sylvester(a::Real, b::Real, c::Real) = -c / (a + b)
lyap(A::AbstractMatrix, C::AbstractMatrix) = sylvester(A, Matrix(A'), C)
lyap(a::Real, c::Real) = -c / (2a)
export sylvester, lyap

"""
    tril!(A, k = 0), triu!(A, k = 0)

`A` with the entries above (below) its `k`-th diagonal set to zero, in place; returns `A`.
"""
tril!(A::AbstractMatrix, k::Integer = 0) = (A .= tril(A, k); A)
triu!(A::AbstractMatrix, k::Integer = 0) = (A .= triu(A, k); A)
export tril!, triu!

"""
    Cholesky{TL, TU}

The Cholesky factorization `A = L * U` of a symmetric positive definite matrix, with
`U = L'`: `C.L` is a `LowerTriangular` and `C.U` an `UpperTriangular`, as in Julia.
"""
struct Cholesky{TL, TU}
    L::TL
    U::TU
end

"""
    cholesky(A)

The Cholesky factorization of the symmetric positive definite matrix `A`; a
`PosDefException` for a matrix that is not symmetric or not positive definite.
"""
function cholesky(A::AbstractMatrix)
    L = cholesky_lower(A)
    return Cholesky(LowerTriangular(L), UpperTriangular(_transpose_copy(L)))
end

# `repr("text/plain", C)`: Julia's display of the factorization, its type and its upper
# factor (`cholesky` of a matrix keeps the upper triangle, as Julia's dense one does).
function Base.repr(mime::String, C::Cholesky)
    mime == "text/plain" || Base._no_show(mime, typeof(C))
    return string(typeof(C), "\nU factor:\n", repr(mime, C.U))
end

# `C \ b`: two triangular solves, `L \ b` then `U \ (L \ b)`; of a Float64 factor and
# right-hand side by `_cholesky_solve`, whose rrule differentiates the two solves as one.
(\)(C::Cholesky, b) = _cholesky_ldiv(C, C.L.data, b)
_cholesky_ldiv(C, L::Matrix{Float64}, b::Union{Vector{Float64}, Matrix{Float64}}) = _cholesky_solve(L, b)
_cholesky_ldiv(C, L, b) = C.U \ (C.L \ b)

# `K \ b` for `K = T Tᵀ`, `T` the lower triangle of `L`: forward then back substitution (the
# square solve substitutes for a triangular matrix). Its gradient is the solve's, transpose's
# and triangle's rules: an in-source rrule here was as fast to run but made the first gradient
# infer its pullback over the library (most of gp_cholesky's first gradient).
function _cholesky_solve(L, b)
    T = tril(L)
    return _solve_square(_transpose_copy(T), _solve_square(T, b))
end

# `inv(C)`: the inverse of `A = L U` as a dense matrix, by the two solves of `C \ I`.
inv(C::Cholesky) = (n = size(C.L, 1); C \ Matrix(1.0I, n, n))
det(C::Cholesky) = prod(diag(C.L))^2
logdet(C::Cholesky) = 2.0 * sum(log, diag(C.L))

"""
    UniformScaling{T}

`λ` times the identity, of whatever size the other operand needs: `I` is
`UniformScaling(true)`, and `A + I`, `A - λ * I`, `λ * I`, `I * A` mean what they mean in
Julia (a square matrix is required where a size is needed).
"""
struct UniformScaling{T}
    λ::T
end

"""
    I

The identity of any size, `UniformScaling(true)`.
"""
const I = UniformScaling(true)

# `I(n)`, `2.0I(n)`: the n×n matrix `J` stands for, as Julia gives it, a `Diagonal`.
(J::UniformScaling)(n::Integer) = Diagonal(fill(J.λ, n))

# The arithmetic the inference hands operators with a UniformScaling operand to.
function _uniform_plus(A::AbstractMatrix, J::UniformScaling)
    n = _checksquare(A)
    # A copy of A in the element type of A[i, j] + λ.
    B = A .+ zero(J.λ)
    for i in 1:n
        B[i, i] += J.λ
    end
    return B
end
_uniform_plus(J::UniformScaling, A::AbstractMatrix) = _uniform_plus(A, J)
# `I` among the blocks of a concatenation (`[A I; 0I A']`, `hcat(A, I)`; inference sends it
# here with an array `A` beside it): the square matrix Julia makes of it, as tall as `A`
# (`d = 1`) or as wide (`d = 2`).
_uniform_block(J::UniformScaling, A::AbstractArray, d::Int) = Base._uniform_matrix(J, size(A, d), size(A, d))
_uniform_plus(J::UniformScaling, K::UniformScaling) = UniformScaling(J.λ + K.λ)
_uniform_minus(A::AbstractMatrix, J::UniformScaling) = _uniform_plus(A, UniformScaling(-J.λ))
_uniform_minus(J::UniformScaling, A::AbstractMatrix) = _uniform_plus(-A, J)
_uniform_minus(J::UniformScaling, K::UniformScaling) = UniformScaling(J.λ - K.λ)
_uniform_times(a::Real, J::UniformScaling) = UniformScaling(a * J.λ)
_uniform_times(J::UniformScaling, a::Real) = UniformScaling(J.λ * a)
_uniform_times(J::UniformScaling, K::UniformScaling) = UniformScaling(J.λ * K.λ)
_uniform_times(J::UniformScaling, A::AbstractArray) = J.λ * A
_uniform_times(A::AbstractArray, J::UniformScaling) = A * J.λ

# Julia's comparisons with `J`: a square matrix equal to `λ` on its diagonal and zero off it
# (`A == 2I`; a matrix that is not square is never equal), and approximately so by the
# Frobenius norm of `A - J` against `max(‖A‖, |λ| √n)`.
==(J::UniformScaling, K::UniformScaling) = J.λ == K.λ
function ==(A::AbstractMatrix, J::UniformScaling)
    size(A, 1) == size(A, 2) || return false
    for j in 1:size(A, 2), i in 1:size(A, 1)
        A[i, j] == (i == j ? J.λ : zero(J.λ)) || return false
    end
    return true
end
==(J::UniformScaling, A::AbstractMatrix) = A == J
function isapprox(J::UniformScaling, A::AbstractMatrix; atol::Real = 0.0,
                  rtol::Real = Base._default_rtol(atol))
    n = _checksquare(A)
    d = norm(A - J)
    return d <= max(atol, rtol * max(norm(A), abs(J.λ) * sqrt(n)))
end
isapprox(A::AbstractMatrix, J::UniformScaling; atol::Real = 0.0,
         rtol::Real = Base._default_rtol(atol)) = isapprox(J, A; atol = atol, rtol = rtol)
isapprox(J::UniformScaling, K::UniformScaling; atol::Real = 0.0,
         rtol::Real = Base._default_rtol(atol)) = isapprox(J.λ, K.λ; atol = atol, rtol = rtol)

"""
    Diagonal(v)
    Diagonal(A::AbstractMatrix)

The square matrix with the vector `v` on its diagonal and zeros elsewhere, stored as `v`
alone (`D.diag`): products, solves, `det` and `inv` take O(n) (O(n²) against a matrix), and
the gradient with respect to it is the gradient of `v`. Of a matrix, its diagonal, copied.
"""
struct Diagonal{V}
    diag::V
end
Diagonal(A::AbstractMatrix) = Diagonal(diag(A))

size(D::Diagonal) = (length(D.diag), length(D.diag))
# Julia's `IndexStyle` of the structured matrices is every AbstractArray's default: an element
# is found by its row and column.
Base.IndexStyle(::Diagonal) = Base.IndexCartesian()
Base.IndexStyle(::Symmetric) = Base.IndexCartesian()
Base.IndexStyle(::Hermitian) = Base.IndexCartesian()
Base.IndexStyle(::UpperTriangular) = Base.IndexCartesian()
Base.IndexStyle(::LowerTriangular) = Base.IndexCartesian()
Base.IndexStyle(::UnitUpperTriangular) = Base.IndexCartesian()
Base.IndexStyle(::UnitLowerTriangular) = Base.IndexCartesian()
Base.IndexStyle(::Tridiagonal) = Base.IndexCartesian()
Base.IndexStyle(::SymTridiagonal) = Base.IndexCartesian()
Base.IndexStyle(::Bidiagonal) = Base.IndexCartesian()
Base.IndexStyle(::UpperHessenberg) = Base.IndexCartesian()
size(D::Diagonal, d::Int) = d <= 2 ? length(D.diag) : 1
length(D::Diagonal) = length(D.diag) * length(D.diag)
getindex(D::Diagonal, i::Int, j::Int) = i == j ? D.diag[i] : zero(D.diag[i])
# Julia's: the diagonal is written into `v`; a nonzero value off it is an `ArgumentError`.
function Base.setindex!(D::Diagonal, x, i::Int, j::Int)
    if i == j
        D.diag[i] = x
    elseif !iszero(x)
        throw(ArgumentError("cannot set off-diagonal entry ($i, $j) to a nonzero value ($x)"))
    end
    return x
end
diag(D::Diagonal) = copy(D.diag)
tr(D::Diagonal) = sum(D.diag)
det(D::Diagonal) = prod(D.diag)
logdet(D::Diagonal) = sum(log, D.diag)
adjoint(D::Diagonal) = D
transpose(D::Diagonal) = D

# A zero on the diagonal: Julia's SingularException(i) (the index of the first zero).
function _diagonal_nonsingular(D::Diagonal)
    for i in 1:length(D.diag)
        if D.diag[i] == 0
            throw(SingularException(i))
        end
    end
    return nothing
end

function inv(D::Diagonal)
    _diagonal_nonsingular(D)
    return Diagonal(1.0 ./ D.diag)
end

function _diagonal_check(D::Diagonal, m::Int)
    n = length(D.diag)
    if m != n
        throw(DimensionMismatch("second dimension of D, $n, does not match the first of the other operand, $m"))
    end
    return nothing
end

# `D \ b`: each row of `b` divided by its diagonal entry.
function (\)(D::Diagonal, b::AbstractArray)
    _diagonal_check(D, size(b, 1))
    _diagonal_nonsingular(D)
    return b ./ D.diag
end

(\)(D::Diagonal, E::Diagonal) = Diagonal(D \ E.diag)

# `Matrix(D)`: the dense matrix (inference hands `Matrix(D)` here).
_diagonal_matrix(D::Diagonal) = diagm(D.diag)
# `collect(D)`: the dense matrix, which the reductions read, as Julia's generic methods read
# every element (the zeros too).
Base.collect(D::Diagonal) = _diagonal_matrix(D)
sum(D::Diagonal) = sum(collect(D))
Base.prod(D::Diagonal) = prod(collect(D))
Base.maximum(D::Diagonal) = maximum(collect(D))
Base.minimum(D::Diagonal) = minimum(collect(D))

# The arithmetic the inference hands `+`, `-`, `*` with a Diagonal operand to (operators
# cannot be given methods in zy's Julia yet).
_diagonal_plus(D::Diagonal, E::Diagonal) = Diagonal(D.diag + E.diag)
_diagonal_plus(D::Diagonal, A::AbstractMatrix) = diagm(D.diag) + A
_diagonal_plus(A::AbstractMatrix, D::Diagonal) = A + diagm(D.diag)
_diagonal_minus(D::Diagonal, E::Diagonal) = Diagonal(D.diag - E.diag)
_diagonal_minus(D::Diagonal, A::AbstractMatrix) = diagm(D.diag) - A
_diagonal_minus(A::AbstractMatrix, D::Diagonal) = A - diagm(D.diag)
_diagonal_times(D::Diagonal, E::Diagonal) = Diagonal(D.diag .* E.diag)
_diagonal_times(a::Real, D::Diagonal) = Diagonal(a .* D.diag)
_diagonal_times(D::Diagonal, a::Real) = Diagonal(D.diag .* a)

# `D * x` scales the rows of `x`, `A * D` the columns of `A`.
function _diagonal_times(D::Diagonal, x::AbstractArray)
    _diagonal_check(D, size(x, 1))
    return D.diag .* x
end

function _diagonal_times(A::AbstractMatrix, D::Diagonal)
    _diagonal_check(D, size(A, 2))
    return A .* transpose(D.diag)
end

# `A / B` of two matrices, `x' / B` of a row (inference hands them here): the `X` with
# `X * B == A`, Julia's `transpose(transpose(B) \ transpose(A))`, so the solve and its
# gradient are `\`'s (least squares, or the least-norm solution, of a non-square `B`).
function _rdiv(A::AbstractMatrix, B::AbstractMatrix)
    return copy(transpose(transpose(B) \ transpose(A)))
end
function _rdiv(x::Adjoint, B::AbstractMatrix)
    return (transpose(B) \ x')'
end

# ---- Vector helpers: cross, normalize ----------------------------------------------------------

export cross, normalize

"""
    cross(a, b)

The cross product of two 3-vectors (`a × b`).
"""
function cross(a::AbstractVector, b::AbstractVector)
    if !(length(a) == 3 && length(b) == 3)
        throw(DimensionMismatch("cross product is only defined for vectors of length 3"))
    end
    return [a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1]]
end

"""
    normalize(x, p = 2)

`x` scaled by the inverse of its `p`-norm (multiplied by `inv(norm(x, p))`, as Julia does for
every norm above about `5.6e-309`).
"""
normalize(x::AbstractVector) = x .* inv(norm(x))
normalize(x::AbstractVector, p::Real) = x .* inv(norm(x, p))

"""
    normalize!(x, p = 2)

`x` scaled in place by the inverse of its `p`-norm, and returned (`normalize`'s numbers).
"""
normalize!(x::AbstractVector) = rmul!(x, inv(norm(x)))
normalize!(x::AbstractVector, p::Real) = rmul!(x, inv(norm(x, p)))

# ---- Index helpers, symmetric matrices, operator norms -----------------------------------------

export diagind, Symmetric, Hermitian, issymmetric, ishermitian, isposdef, istriu, istril, opnorm
export isdiag

"""
    diagind(A), diagind(m, n)

The linear indices of the diagonal of an m×n matrix: the range `1:m+1:...` (`A[diagind(A)]`).
"""
diagind(m::Int, n::Int) = 1:(m + 1):((min(m, n) - 1) * (m + 1) + 1)
diagind(A::AbstractMatrix) = diagind(size(A, 1), size(A, 2))

"""
    Symmetric(A, uplo = :U), Hermitian(A, uplo = :U)

The symmetric matrix that the upper (`uplo = :U`) or lower (`:L`) triangle of the square
matrix `A` defines, as Julia's wrapper (`Symmetric{Float64, Matrix{Float64}}`, an
`AbstractMatrix` but not a `Matrix`): it reads `A`, so a later write to `A` is seen in it, and
`S[i, j] = v` off the diagonal is Julia's `ArgumentError`. For real numbers `Hermitian` reads
the same elements. The library's functions without a method for it (`*`, `\`, `cholesky`,
`eigen`, broadcasting, `sum`) read the dense matrix (`Matrix(S)`), so the gradient with
respect to `A` reaches only the triangle read.
"""
struct Symmetric{M}
    data::M
    upper::Bool
end

struct Hermitian{M}
    data::M
    upper::Bool
end

Symmetric(A::AbstractMatrix) = Symmetric(A, :U)
Symmetric(A::AbstractMatrix, uplo::Symbol) = Symmetric(_sym_square(A), _sym_upper(uplo))
Hermitian(A::AbstractMatrix) = Hermitian(A, :U)
Hermitian(A::AbstractMatrix{<:Real}, uplo::Symbol) = Hermitian(_sym_square(A), _sym_upper(uplo))
Hermitian(A::AbstractMatrix, uplo::Symbol) = error("unsupported: `Hermitian` of a complex matrix (zy's reads real matrices)")

function _sym_square(A)
    size(A, 1) == size(A, 2) || throw(DimensionMismatch("matrix is not square: dimensions are $(size(A))"))
    return A
end

function _sym_upper(uplo::Symbol)
    uplo == :U && return true
    uplo == :L && return false
    throw(ArgumentError("uplo argument must be either :U (upper) or :L (lower), got :$uplo"))
end

size(S::Union{Symmetric, Hermitian}) = size(S.data)
size(S::Union{Symmetric, Hermitian}, d::Int) = size(S.data, d)
length(S::Union{Symmetric, Hermitian}) = length(S.data)
Base.eltype(S::Union{Symmetric, Hermitian}) = eltype(S.data)
Base.parent(S::Union{Symmetric, Hermitian}) = S.data
Base.copy(S::Symmetric) = Symmetric(copy(S.data), S.upper)
Base.copy(S::Hermitian) = Hermitian(copy(S.data), S.upper)
transpose(S::Union{Symmetric, Hermitian}) = S
adjoint(S::Union{Symmetric, Hermitian}) = S

# Element `(i, j)` is read from the kept triangle.
function getindex(S::Union{Symmetric, Hermitian}, i::Int, j::Int)
    if (i <= j) == S.upper || i == j
        return S.data[i, j]
    end
    return S.data[j, i]
end
getindex(S::Union{Symmetric, Hermitian}, k::Int) = S[mod1(k, size(S, 1)), div(k - 1, size(S, 1)) + 1]

# Julia's: only the diagonal may be written (into `A`); the result is `A`.
function Base.setindex!(S::Symmetric, v, i::Int, j::Int)
    i == j || throw(ArgumentError("Cannot set a non-diagonal index in a symmetric matrix"))
    S.data[i, j] = v
    return S.data
end
function Base.setindex!(S::Hermitian, v::Real, i::Int, j::Int)
    i == j || throw(ArgumentError("Cannot set a non-diagonal index in a Hermitian matrix"))
    S.data[i, j] = v
    return S.data
end

# The dense matrix (what the library's functions without a method read, and `Matrix(S)`).
function Base.collect(S::Union{Symmetric, Hermitian})
    A = S.data
    return S.upper ? triu(A) + _transpose_copy(triu(A, 1)) : tril(A) + _transpose_copy(tril(A, -1))
end

# LinearAlgebra's arithmetic that keeps the wrapper: negation, scaling by a number, and the
# sum or difference of two wrappers of one kind (of the parents when both keep one triangle,
# else of the dense matrices, kept as `:U`). Products and broadcasts give a `Matrix`.
-(S::Symmetric) = Symmetric(-S.data, S.upper)
-(S::Hermitian) = Hermitian(-S.data, S.upper)
*(S::Symmetric, x::Real) = Symmetric(S.data * x, S.upper)
*(x::Real, S::Symmetric) = Symmetric(x * S.data, S.upper)
/(S::Symmetric, x::Real) = Symmetric(S.data / x, S.upper)
*(S::Hermitian, x::Real) = Hermitian(S.data * x, S.upper)
*(x::Real, S::Hermitian) = Hermitian(x * S.data, S.upper)
/(S::Hermitian, x::Real) = Hermitian(S.data / x, S.upper)
+(S::Symmetric, T::Symmetric) = S.upper == T.upper ? Symmetric(S.data + T.data, S.upper) : Symmetric(collect(S) + collect(T), true)
-(S::Symmetric, T::Symmetric) = S.upper == T.upper ? Symmetric(S.data - T.data, S.upper) : Symmetric(collect(S) - collect(T), true)
+(S::Hermitian, T::Hermitian) = S.upper == T.upper ? Hermitian(S.data + T.data, S.upper) : Hermitian(collect(S) + collect(T), true)
-(S::Hermitian, T::Hermitian) = S.upper == T.upper ? Hermitian(S.data - T.data, S.upper) : Hermitian(collect(S) - collect(T), true)

"""
    issymmetric(A), ishermitian(A)

Whether `A` is square and equal to its transpose.
"""
function issymmetric(A::AbstractMatrix)
    n = size(A, 1)
    n == size(A, 2) || return false
    # One flag, no early return out of the loop nest: a pullback leaving a nest early cannot
    # be differentiated again, and `eigen` checks this under second derivatives.
    same = true
    for j in 1:n, i in (j + 1):n
        same = same && A[i, j] == A[j, i]
    end
    return same
end
ishermitian(A::AbstractMatrix) = issymmetric(A)

"""
    isposdef(A)

Whether the real matrix `A` is symmetric and positive definite: whether its Cholesky
factorization succeeds, every pivot positive (a `false`, never a `PosDefException`).
"""
function isposdef(A::AbstractMatrix{<:Real})
    issymmetric(A) || return false
    n = size(A, 1)
    L = zeros(n, n)
    ok = true
    for j in 1:n
        d = Float64(A[j, j])
        for k in 1:(j - 1)
            d -= L[j, k]^2
        end
        ok = ok && d > 0
        L[j, j] = sqrt(max(d, 0.0))
        for i in (j + 1):n
            s = Float64(A[i, j])
            for k in 1:(j - 1)
                s -= L[i, k] * L[j, k]
            end
            L[i, j] = ok ? s / L[j, j] : 0.0
        end
    end
    return ok
end

"""
    istriu(A), istril(A)

Whether every element of `A` below (above) the diagonal is zero.
"""
function istriu(A::AbstractMatrix)
    zeros_below = true
    for j in 1:size(A, 2), i in (j + 1):size(A, 1)
        zeros_below = zeros_below && iszero(A[i, j])
    end
    return zeros_below
end
"""
    isdiag(A)

Whether every element of `A` off the diagonal is zero.
"""
isdiag(A::AbstractMatrix) = istriu(A) && istril(A)
function istril(A::AbstractMatrix)
    zeros_above = true
    for j in 2:size(A, 2), i in 1:min(j - 1, size(A, 1))
        zeros_above = zeros_above && iszero(A[i, j])
    end
    return zeros_above
end

"""
    opnorm(A, p)

The operator norm induced by the vector `p`-norm, for `p = 1` (the largest column sum of
magnitudes), `p = 2` (the largest singular value, `opnorm(A)`) and `p = Inf` (the largest row
sum).
"""
function opnorm(A::AbstractMatrix, p::Real)
    if p == 1
        return maximum(sum(abs.(A); dims = 1))
    elseif p == 2
        return opnorm(A)
    elseif p == Inf
        return maximum(sum(abs.(A); dims = 2))
    end
    throw(ArgumentError("invalid p-norm p=$p. Valid: 1, 2, Inf"))
end

# ---- Banded matrices --------------------------------------------------------------------------

export Tridiagonal, SymTridiagonal, Bidiagonal

"""
    Tridiagonal(dl, d, du), SymTridiagonal(dv, ev), Bidiagonal(dv, ev, uplo)

The n×n matrices of the vectors of their diagonals, as Julia's (`Tridiagonal{Float64,
Vector{Float64}}`): `d` the diagonal, `dl` the one below it and `du` the one above (each of
length n - 1); `SymTridiagonal`'s `ev` both off-diagonals; `Bidiagonal`'s `ev` the one above
(`uplo = :U`) or below (`:L`). They are `AbstractMatrix`es reading their vectors (a later write
to `d` is seen, and `T[i, j] = v` writes it on the band), so products, solves, `det`, `sum`,
`Matrix(T)` and broadcasting are Julia's generic methods over the elements, and the gradient
reaches the vectors. `Tridiagonal(A)` and `SymTridiagonal(A)` copy the band of a matrix.
"""
struct Tridiagonal{T, V <: AbstractVector{T}} <: AbstractMatrix{T}
    dl::V
    d::V
    du::V
    function Tridiagonal(dl::V, d::V, du::V) where {T, V <: AbstractVector{T}}
        n = length(d)
        if (length(dl) != n - 1 || length(du) != n - 1) && !(n == 0 && length(dl) == 0 && length(du) == 0)
            throw(ArgumentError("cannot construct Tridiagonal from incompatible lengths of subdiagonal, diagonal and superdiagonal: ($(length(dl)), $(length(d)), $(length(du)))"))
        end
        return new{T, V}(dl, d, du)
    end
end

struct SymTridiagonal{T, V <: AbstractVector{T}} <: AbstractMatrix{T}
    dv::V
    ev::V
    function SymTridiagonal(dv::V, ev::V) where {T, V <: AbstractVector{T}}
        if !(length(dv) - 1 <= length(ev) <= length(dv))
            throw(DimensionMismatch("subdiagonal has wrong length. Has length $(length(ev)), but should be either $(length(dv) - 1) or $(length(dv))."))
        end
        return new{T, V}(dv, ev)
    end
end

# (Julia keeps `uplo` as the Char 'U' or 'L'; zy whether it is the upper one.)
struct Bidiagonal{T, V <: AbstractVector{T}} <: AbstractMatrix{T}
    dv::V
    ev::V
    upper::Bool
    function Bidiagonal(dv::V, ev::V, uplo::Symbol) where {T, V <: AbstractVector{T}}
        if length(ev) != max(length(dv) - 1, 0)
            throw(DimensionMismatch("length of diagonal vector is $(length(dv)), length of off-diagonal vector is $(length(ev))"))
        end
        return new{T, V}(dv, ev, _sym_upper(uplo))
    end
end

Tridiagonal(A::AbstractMatrix) = Tridiagonal([A[i + 1, i] for i in 1:(size(A, 1) - 1)], [A[i, i] for i in 1:size(A, 1)], [A[i, i + 1] for i in 1:(size(A, 1) - 1)])
SymTridiagonal(A::AbstractMatrix) = SymTridiagonal([A[i, i] for i in 1:size(A, 1)], [A[i, i + 1] for i in 1:(size(A, 1) - 1)])

size(A::Tridiagonal) = (length(A.d), length(A.d))
size(A::Union{SymTridiagonal, Bidiagonal}) = (length(A.dv), length(A.dv))

function getindex(A::Tridiagonal, i::Int, j::Int)
    _band_checkbounds(A, i, j)
    i == j && return A.d[i]
    i == j + 1 && return A.dl[j]
    i + 1 == j && return A.du[i]
    return zero(eltype(A.d))
end

function getindex(A::SymTridiagonal, i::Int, j::Int)
    _band_checkbounds(A, i, j)
    i == j && return A.dv[i]
    i == j + 1 && return A.ev[j]
    i + 1 == j && return A.ev[i]
    return zero(eltype(A.dv))
end

function getindex(A::Bidiagonal, i::Int, j::Int)
    _band_checkbounds(A, i, j)
    i == j && return A.dv[i]
    A.upper && i + 1 == j && return A.ev[i]
    !A.upper && i == j + 1 && return A.ev[j]
    return zero(eltype(A.dv))
end

Base.summary(A::Union{Tridiagonal, SymTridiagonal, Bidiagonal}) = Base._array_summary(A)
# `repr("text/plain", A)` of a `Diagonal` or triangular matrix: Julia's display of the dense
# matrix under the wrapper's summary, each structural zero a `⋅`; of a `Symmetric` or
# `Hermitian` one, every element.
function Base.repr(mime::String, A::Union{Diagonal, UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular})
    mime == "text/plain" || Base._no_show(mime, typeof(A))
    n = size(A, 1)
    return Base._plain_grid(Base._array_summary(A), Matrix(A),
                            [_structural_zero(A, i, j) for i in 1:n, j in 1:n])
end
function Base.repr(mime::String, A::Union{Symmetric, Hermitian})
    mime == "text/plain" || Base._no_show(mime, typeof(A))
    return Base._plain_grid(Base._array_summary(A), Matrix(A))
end
_structural_zero(A::Diagonal, i, j) = i != j
_structural_zero(A::Union{UpperTriangular, UnitUpperTriangular}, i, j) = i > j
_structural_zero(A::Union{LowerTriangular, UnitLowerTriangular}, i, j) = i < j

function _band_checkbounds(A, i::Int, j::Int)
    n = size(A, 1)
    (1 <= i <= n && 1 <= j <= n) || throw(BoundsError(A, (i, j)))
    return nothing
end

# Writes on the band reach the vectors; a nonzero off it is Julia's ArgumentError.
function setindex!(A::Tridiagonal, x, i::Int, j::Int)
    _band_checkbounds(A, i, j)
    if i == j
        A.d[i] = x
    elseif i == j + 1
        A.dl[j] = x
    elseif i + 1 == j
        A.du[i] = x
    elseif !iszero(x)
        throw(ArgumentError("cannot set entry ($i, $j) off the tridiagonal band to a nonzero value ($x)"))
    end
    return A
end

diag(A::Tridiagonal) = copy(A.d)
diag(A::Union{SymTridiagonal, Bidiagonal}) = copy(A.dv)

# ---- Matrix functions ----------------------------------------------------------------------

import Base: exp, sqrt, log

"""
    exp(A)

The matrix exponential of a square Float64 matrix, by scaling and squaring with a Padé
approximant as Julia's `exp!` (Higham 2005): the degree 3, 5, 7 or 9 approximant when the
1-norm of `A` is at most 0.015, 0.25, 0.95 or 2.1, else degree 13 of `A / 2^s` squared `s`
times, `s = ⌈log₂(‖A‖₁ / 5.4)⌉`. Julia also balances `A` first (LAPACK's `gebal!`), so the last
bits can differ. The gradient is the rrule below.
"""
function exp(A::Matrix{Float64})
    n = size(A, 1)
    size(A, 2) == n || throw(DimensionMismatch("matrix is not square: dimensions are $(size(A))"))
    nA = maximum(sum(abs.(A); dims = 1))
    if nA <= 0.015
        return _exp_pade(A, (120.0, 60.0, 12.0, 1.0))
    elseif nA <= 0.25
        return _exp_pade(A, (30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0))
    elseif nA <= 0.95
        return _exp_pade(A, (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0))
    elseif nA <= 2.1
        return _exp_pade(A, (17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0,
            2162160.0, 110880.0, 3960.0, 90.0, 1.0))
    end
    s = max(0, ceil(Int, log2(nA / 5.4)))
    X = _exp_pade(A / 2.0^s, (64764752532480000.0, 32382376266240000.0, 7771770303897600.0,
        1187353796428800.0, 129060195264000.0, 10559470521600.0, 670442572800.0,
        33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0))
    for k in 1:s
        X = X * X
    end
    return X
end

# The Padé approximant r(A) = (V - U) \ (V + U) of exp with coefficients `b` (b₀ first, an odd
# degree): U = A Σ b₂ₖ₊₁ A²ᵏ, V = Σ b₂ₖ A²ᵏ.
function _exp_pade(A::Matrix{Float64}, b)
    A2 = A * A
    P = one(A)
    U = b[2] * P
    V = b[1] * P
    for k in 1:((length(b) - 1) ÷ 2)
        P = P * A2
        U = U + b[2k + 2] * P
        V = V + b[2k + 1] * P
    end
    U = A * U
    return (V - U) \ (V + U)
end

# The pullback of exp: Ā = L(Aᵀ, Ȳ), the Fréchet derivative of exp at Aᵀ applied to Ȳ (the
# adjoint of L(A, ·) in the Frobenius product), read off exp([Aᵀ Ȳ; 0 Aᵀ]) = [e^Aᵀ L; 0 e^Aᵀ].
function rrule(::typeof(exp), A::Matrix{Float64})
    Y = exp(A)
    function exp_pullback(Ȳ)
        n = size(A, 1)
        At = permutedims(A)
        E = exp([At Ȳ; zeros(n, n) At])
        return (NoTangent(), E[1:n, (n + 1):(2n)])
    end
    return Y, exp_pullback
end

"""
    sqrt(A)

The principal square root of a symmetric positive definite Float64 matrix: the symmetric
positive definite `X` with `X * X == A`, by the Denman–Beavers iteration (Julia computes it
from the eigendecomposition, so the last bits can differ). Any other matrix is refused by
name (Julia's root may be complex there). The gradient solves the Sylvester equation
`X Z + Z X = Ȳ` (the rrule below).
"""
function sqrt(A::Matrix{Float64})
    n = size(A, 1)
    size(A, 2) == n || throw(DimensionMismatch("matrix is not square: dimensions are $(size(A))"))
    A == permutedims(A) || error("unsupported: `sqrt` of a matrix that is not symmetric (Julia's root comes from the Schur form and may be complex); zy takes symmetric positive definite matrices")
    _posdef(A) || error("unsupported: `sqrt` of a symmetric matrix that is not positive definite (Julia's root may be complex); zy takes symmetric positive definite matrices")
    return _sqrt_spd(A)
end

# The Denman–Beavers iteration for the root of a symmetric positive definite `A`.
function _sqrt_spd(A::Matrix{Float64})
    Y = A
    Z = one(A)
    for k in 1:100
        Y1 = 0.5 * (Y + inv(Z))
        Z = 0.5 * (Z + inv(Y))
        done = norm(Y1 - Y) <= 4.0 * eps(1.0) * norm(Y1)
        Y = Y1
        done && break
    end
    return 0.5 * (Y + permutedims(Y))
end

# Is the symmetric `A` positive definite (its Cholesky factorization exists)?
function _posdef(A::Matrix{Float64})
    n = size(A, 1)
    L = zeros(n, n)
    for j in 1:n
        s = A[j, j]
        for k in 1:(j - 1)
            s -= L[j, k]^2
        end
        s > 0.0 || return false
        L[j, j] = Base.sqrt(s)
        for i in (j + 1):n
            t = A[i, j]
            for k in 1:(j - 1)
                t -= L[i, k] * L[j, k]
            end
            L[i, j] = t / L[j, j]
        end
    end
    return true
end

# The pullback of sqrt: Ā = Z with Xᵀ Z + Z Xᵀ = Ȳ (X = sqrt(A) is symmetric), solved as the
# n² × n² linear system (I ⊗ X + X ⊗ I) vec(Z) = vec(Ȳ).
function rrule(::typeof(sqrt), A::Matrix{Float64})
    X = sqrt(A)
    function sqrt_pullback(Ȳ)
        n = size(A, 1)
        Id = one(X)
        K = kron(Id, X) + kron(permutedims(X), Id)
        return (NoTangent(), Base._reshape(K \ Ȳ[:], n, n))
    end
    return X, sqrt_pullback
end

"""
    log(A)

The principal logarithm of a symmetric positive definite Float64 matrix (the symmetric `L`
with `exp(L) == A`): `2ˢ log(A^(1/2ˢ))`, square roots taken until `‖A^(1/2ˢ) - I‖ ≤ 0.25`, and
the series of `log(I + E)` to 40 terms (Julia computes it from the eigendecomposition, so the
last bits can differ). Any other matrix is refused by name. Its gradient is that of the
computation: the roots' rrules and the series.
"""
function log(A::Matrix{Float64})
    n = size(A, 1)
    size(A, 2) == n || throw(DimensionMismatch("matrix is not square: dimensions are $(size(A))"))
    A == permutedims(A) || error("unsupported: `log` of a matrix that is not symmetric (Julia's logarithm comes from the Schur form and may be complex); zy takes symmetric positive definite matrices")
    _posdef(A) || error("unsupported: `log` of a symmetric matrix that is not positive definite (Julia's logarithm may be complex); zy takes symmetric positive definite matrices")
    X = A
    s = 0
    while norm(X - one(X)) > 0.25 && s < 64
        X = sqrt(X)
        s += 1
    end
    E = X - one(X)
    P = one(X)
    L = zeros(n, n)
    for k in 1:40
        P = P * E
        L = L + (isodd(k) ? 1.0 : -1.0) / k * P
    end
    L = 2.0^s * L
    return 0.5 * (L + permutedims(L))
end

# ---- Symmetric eigendecomposition, singular values --------------------------------------------

export eigen, eigvals, eigvecs, Eigen, svd, svdvals, SVD

"""
    Eigen{V, M}

The eigendecomposition `A * F.vectors = F.vectors * Diagonal(F.values)`: of a symmetric matrix
the eigenvalues ascending and orthonormal eigenvectors as columns; of another real matrix
Julia's `Vector{Float64}` and `Matrix{Float64}` when every eigenvalue is real, else
`Vector{ComplexF64}` and `Matrix{ComplexF64}` (decided by the values, at run time). `λ, U = F`
destructures it, as in Julia.
"""
struct Eigen{V, M}
    values::V
    vectors::M
end


"""
    eigen(A), eigvals(A), eigvecs(A)

The eigenvalues (ascending) and eigenvectors of a real symmetric matrix (or `Symmetric(A)`), by
cyclic Jacobi rotations to full precision (Julia calls LAPACK, so the last bits can differ).
Each eigenvector's sign is chosen so that its entry of largest magnitude is positive (LAPACK
makes no such choice: a vector may be the negative of Julia's). A real matrix that is not
symmetric is decomposed by faer's Hessenberg QR: the eigenvalues sorted as Julia's `eigsortby`
(by real part, then imaginary), a `Vector{ComplexF64}` when one of them is complex; each
eigenvector of unit 2-norm with its entry of largest modulus real (LAPACK's normalisation) and
here positive (LAPACK's sign may be the other). Gradients are ChainRules' formulas for
distinct eigenvalues: `Ā = U (Diagonal(λ̄) + F ∘ (Uᵀ Ū)) Uᵀ`, `Fᵢⱼ = 1 / (λⱼ - λᵢ)`, made
symmetric; of a matrix that is not symmetric `Ā = real(V⁻ᴴ Diagonal(λ̄) Vᴴ)` for the
eigenvalues, and ChainRules' rules for its eigenvectors (with LAPACK's normalisation kept;
refused by name through the vectors of a repeated eigenvalue).
"""
# `sortby`: Julia's `sorteig!`, the values (and the vectors' columns with them) ordered by
# `sortby` of each; `nothing` keeps LAPACK's order, ascending for a symmetric matrix (which
# zy's is), not knowable for another (refused by name). The default of `Symmetric` and
# `Hermitian` is `nothing`, of other matrices `eigsortby` (the order zy's already are in).
eigen(A::AbstractMatrix; sortby = eigsortby) = _sorteig(_eigen(_square_float(A)), _lapack_order(A, sortby))
eigvals(A::AbstractMatrix; sortby = eigsortby) = _sorteig(_eigvals_any(_square_float(A)), _lapack_order(A, sortby))
eigvecs(A::AbstractMatrix) = eigen(A).vectors
# A `Symmetric` (real `Hermitian`) matrix's are real, of Julia's real types.
eigen(A::Union{Symmetric, Hermitian}; sortby = nothing) = _sorteig(Eigen(_symeigen(_symmetric_float(A))...), sortby)
eigvals(A::Union{Symmetric, Hermitian}; sortby = nothing) = _sorteig(_eigvals(_square_float(A)), sortby)

"""
    LinearAlgebra.eigsortby(λ)

Julia's default order of the eigenvalues of a matrix that is not symmetric: by real part,
then by imaginary part.
"""
eigsortby(λ::Real) = λ
eigsortby(λ::Complex) = (real(λ), imag(λ))

_sorteig(F, ::Nothing) = F
_sorteig(F, ::typeof(eigsortby)) = F
_sorteig(F, by) = _permuted(F, sortperm(_sorted_values(F); by = by))
_sorted_values(λ::AbstractVector) = λ
_sorted_values(F::Eigen) = F.values
_permuted(λ::AbstractVector, p) = λ[p]
_permuted(F::Eigen, p) = Eigen(F.values[p], F.vectors[:, p])

_lapack_order(A, by) = by
function _lapack_order(A, ::Nothing)
    issymmetric(A) || error("unsupported: `sortby = nothing` of `eigen`/`eigvals` of a matrix that is not symmetric (Julia keeps LAPACK's order, which zy's algorithm does not reproduce); pass a `sortby` function")
    return nothing
end

_eigen(A::Matrix{Float64}) = issymmetric(A) ? Eigen(_symeigen(A)...) : _general_eigen(A)
_eigen(A) = Eigen(_symeigen(_symmetric_float(A))...)

# Julia's `eigvals` of a real matrix is a `Vector{ComplexF64}` when an eigenvalue is complex
# (a type decided by the values): a union here, whose real member is `_eigvals`'s.
_eigvals_any(A::Matrix{Float64}) = _has_complex_eigvals(A) ? _complex_eigvals(A) : _eigvals(A)
_eigvals_any(A) = _eigvals(A)

function _has_complex_eigvals(A::Matrix{Float64})
    issymmetric(A) && return false
    E = _eigvals_general(A)
    return any(k -> E[k, 2] != 0.0, 1:size(A, 1))
end

# The eigenvalues `λ` and right eigenvectors `V` (columns) of `_eigen_general`'s rows.
function _general_parts(A::Matrix{Float64})
    n = size(A, 1)
    E = _eigen_general(A)
    λ = [complex(E[k, 1], E[k, 2]) for k in 1:n]
    V = [complex(E[i, 2 + j], E[i, 2 + n + j]) for i in 1:n, j in 1:n]
    return λ, V
end

_complex_eigvals(A::Matrix{Float64}) = _general_parts(A)[1]

# dλₖ = (V⁻¹ dA V)ₖₖ, so the gradient of a real function of the eigenvalues (λ̄ₖ = ∂/∂Re λₖ +
# i ∂/∂Im λₖ) is `real(V⁻ᴴ Diagonal(λ̄) Vᴴ)`, as ChainRules' `eigvals` rule.
function rrule(::typeof(_complex_eigvals), A::Matrix{Float64})
    λ, V = _general_parts(A)
    complex_eigvals_pullback(ȳ) = (NoTangent(), _complex_eigvals_cotangent(V, _cotangent(ȳ, λ)))
    return λ, complex_eigvals_pullback
end

function _complex_eigvals_cotangent(V, λ̄)
    n = size(V, 1)
    W = inv(V)
    g = [complex(λ̄[k].re, λ̄[k].im) for k in 1:n]
    return [real(sum(conj(W[k, i]) * g[k] * conj(V[j, k]) for k in 1:n)) for i in 1:n, j in 1:n]
end

# λ̇ₖ = (V⁻¹ Ȧ V)ₖₖ.
function frule(Δ, ::typeof(_complex_eigvals), A::Matrix{Float64})
    λ, V = _general_parts(A)
    Ȧ = Δ[2]
    n = length(λ)
    W = inv(V)
    λ̇ = [sum(W[k, i] * Ȧ[i, j] * V[j, k] for i in 1:n, j in 1:n) for k in 1:n]
    return λ, [(re = real(z), im = imag(z)) for z in λ̇]
end

# The eigendecomposition of a real matrix that is not symmetric: real values and vectors when
# every eigenvalue is real, complex ones otherwise.
function _general_eigen(A::Matrix{Float64})
    λ, V = _general_eigen_parts(A)
    if all(z -> imag(z) == 0.0, λ)
        return Eigen(real.(λ), real.(V))
    end
    return Eigen(λ, V)
end
_general_eigen_parts(A::Matrix{Float64}) = _general_parts(A)

# The gradient through the values and vectors: ChainRules' rrule for distinct eigenvalues,
# the adjoint of the frule below (normalisation, then `V (F ∘ K)`, then `K = V⁻¹ Ȧ V`):
# `Ā = real(V⁻ᴴ (Diagonal(λ̄) + conj(F) ∘ (Vᴴ D̄)) Vᴴ)`, with each column of `D̄` the vector's
# cotangent `v̄` less what the normalisation takes out: `v Re(s)`, `s = v̄ᴴ v` (unit norm),
# and for a complex vector `-i eₘ Im(s) / vₘ` (its largest entry `vₘ` real). Through the
# values alone it is `eigvals`'s, repeated values included; through the vectors of a repeated
# value (within `√ε` of the largest modulus) it is refused by name.
function rrule(::typeof(_general_eigen_parts), A::Matrix{Float64})
    λ, V = _general_parts(A)
    function general_eigen_pullback(ȳ)
        λ̄ = _cotangent(ȳ[1], λ)
        _zero_cotangent(ȳ[2]) && return (NoTangent(), _complex_eigvals_cotangent(V, λ̄))
        return (NoTangent(), _eigenvectors_cotangent(λ, V, λ̄, ȳ[2]))
    end
    return (λ, V), general_eigen_pullback
end

function _eigenvectors_cotangent(λ, V, λ̄, V̄)
    n = length(λ)
    _distinct_eigvals(λ)
    D̄ = [complex(V̄[i, l].re, V̄[i, l].im) for i in 1:n, l in 1:n]
    for l in 1:n
        s = sum(conj(D̄[i, l]) * V[i, l] for i in 1:n)
        for i in 1:n
            D̄[i, l] = D̄[i, l] - real(s) * V[i, l]
        end
        if imag(λ[l]) != 0.0
            m = _largest_modulus(V, l)
            D̄[m, l] = D̄[m, l] + complex(0.0, imag(s) / real(V[m, l]))
        end
    end
    M̄ = [sum(conj(V[i, k]) * D̄[i, l] for i in 1:n) for k in 1:n, l in 1:n]
    K̄ = [k == l ? complex(λ̄[k].re, λ̄[k].im) : M̄[k, l] / conj(λ[l] - λ[k]) for k in 1:n, l in 1:n]
    W = inv(V)
    return [real(sum(conj(W[k, i]) * K̄[k, l] * conj(V[j, l]) for k in 1:n, l in 1:n)) for i in 1:n, j in 1:n]
end

# The eigenvectors of a repeated eigenvalue are not differentiable (any basis of its space is
# one): refused by name, as the formula would divide by the values' difference.
function _distinct_eigvals(λ)
    n = length(λ)
    tol = Base.sqrt(eps(1.0)) * max(1.0, maximum(abs, λ))
    for k in 1:n, l in (k + 1):n
        abs(λ[l] - λ[k]) <= tol && error("unsupported: no gradient rule for the eigenvectors of `eigen` of a matrix with a repeated eigenvalue ($(λ[k]) and $(λ[l])): they are not differentiable there")
    end
    return nothing
end
_zero_cotangent(::Nothing) = true
_zero_cotangent(X::AbstractArray) = all(z -> z.re == 0.0 && z.im == 0.0, X)
# ChainRules' frule for distinct eigenvalues: with `K = V⁻¹ Ȧ V`, `λ̇ = diag(K)` and
# `V̇ = V (F ∘ K)`, `Fₖₗ = 1 / (λₗ - λₖ)` off the diagonal, then each column moved along its
# vector to keep LAPACK's normalisation: `v̇ -= v Re(vᴴ v̇)` (unit norm) and, for a complex
# vector, `v̇ -= i v Im(v̇ₘ) / vₘ` (its largest entry `vₘ` stays real).
function frule(Δ, ::typeof(_general_eigen_parts), A::Matrix{Float64})
    λ, V = _general_parts(A)
    Ȧ = Δ[2]
    n = length(λ)
    W = inv(V)
    K = [sum(W[k, i] * Ȧ[i, j] * V[j, l] for i in 1:n, j in 1:n) for k in 1:n, l in 1:n]
    D = [sum(k == l ? zero(K[k, l]) : V[i, k] * K[k, l] / (λ[l] - λ[k]) for k in 1:n) for i in 1:n, l in 1:n]
    for l in 1:n
        c = real(sum(conj(V[i, l]) * D[i, l] for i in 1:n))
        m = _largest_modulus(V, l)
        phase = imag(λ[l]) == 0.0 ? 0.0 : imag(D[m, l]) / real(V[m, l])
        for i in 1:n
            D[i, l] = D[i, l] - V[i, l] * complex(c, phase)
        end
    end
    λ̇ = [(re = real(K[k, k]), im = imag(K[k, k])) for k in 1:n]
    return (λ, V), (λ̇, [(re = real(z), im = imag(z)) for z in D])
end

# The row of column `l`'s entry of largest modulus (the first of those equal up to rounding),
# as the kernel's normalisation chose it.
function _largest_modulus(V, l::Int)
    n = size(V, 1)
    top = maximum(abs(V[i, l]) for i in 1:n)
    for i in 1:n
        abs(V[i, l]) >= top * (1.0 - 1.0e-12) && return i
    end
    return 1
end

# Refuses a gradient the library has no rule for (none through an empty array, whose zero
# gradient is exact): the tangent's type is the zero's, `(re, im)` pairs of a complex array.
function _refused_gradient(what::String, A::AbstractArray)
    isempty(A) || error("unsupported: no gradient rule for $what")
    return _zero_tangent_like(A)
end
_zero_tangent_like(A::AbstractArray{Float64}) = zero(A)
_zero_tangent_like(A::AbstractArray{<:Complex}) = map(z -> (re = 0.0, im = 0.0), A)

# Julia's `eigvals` of a real matrix tests it for symmetry at run time: the symmetric
# algorithm, else the general one (`_real_eigvals`). One rule for both, whose pullback makes
# the same test: `U Diagonal(λ̄) Uᵀ` of the symmetric one, orthonormal eigenvectors of a repeated
# eigenvalue included.
_eigvals(A::Matrix{Float64}) = issymmetric(A) ? _symeigen(A)[1] : _real_eigvals(A)
_eigvals(A) = _symeigen(_symmetric_float(A))[1]

function rrule(::typeof(_eigvals), A::Matrix{Float64})
    λ = _eigvals(A)
    function eigvals_pullback(ȳ)
        λ̄ = _cotangent(ȳ, λ)
        Ā = issymmetric(A) ? _symmetric_eigvals_cotangent(A, λ̄) : _eigvals_cotangent(A, λ, λ̄)
        return (NoTangent(), Ā)
    end
    return λ, eigvals_pullback
end

function frule(Δ, ::typeof(_eigvals), A::Matrix{Float64})
    Ȧ = Δ[2]
    issymmetric(A) || return frule(Δ, _real_eigvals, A)
    λ, U = _symeigen(A)
    return λ, diag(_transpose_copy(U) * Ȧ * U)
end

_symmetric_eigvals_cotangent(A::Matrix{Float64}, λ̄) = (U = _symeigen(A)[2]; U * Diagonal(λ̄) * _transpose_copy(U))

function _square_float(A::AbstractMatrix)
    size(A, 1) == size(A, 2) || throw(DimensionMismatch("matrix is not square: dimensions are $(size(A))"))
    return float(A)
end

function _symmetric_float(A::AbstractMatrix)
    B = _square_float(A)
    issymmetric(A) || error("unsupported: eigenvectors of a matrix that is not symmetric (they may be complex); zy decomposes symmetric matrices (`eigen(Symmetric(A))`), and takes `eigvals` of others")
    return B
end

"""
    _real_eigvals(A)

The eigenvalues of a real square matrix that is not symmetric (faer's Hessenberg QR), in
Julia's order: ascending, when all are real (`eigvals` takes `_complex_eigvals` otherwise, so
a complex one here is refused by name). Its rrule is ChainRules' for distinct eigenvalues,
`Ā = V⁻ᵀ Diagonal(λ̄) Vᵀ`, summed as `Σₖ λ̄ₖ wₖ vₖᵀ / (wₖᵀ vₖ)` with `vₖ` (`wₖ`) the right (left)
eigenvector of `λₖ`.
"""
function _real_eigvals(A::Matrix{Float64})
    E = _eigvals_general(A)
    n = size(A, 1)
    for k in 1:n
        E[k, 2] == 0.0 || error("unsupported: `eigvals` of a real matrix with complex eigenvalues ($(E[k, 1]) ± $(abs(E[k, 2]))im): Julia's result is then a Vector{ComplexF64}, which zy's `eigvals` of a real matrix does not give; zy takes matrices whose eigenvalues are real")
    end
    λ = [E[k, 1] for k in 1:n]
    # Ascending, by insertion (a rule's forward pass calls no function values).
    for j in 2:n
        k = j
        while k > 1 && λ[k] < λ[k - 1]
            λ[k], λ[k - 1] = λ[k - 1], λ[k]
            k -= 1
        end
    end
    return λ
end

# A unit null vector of `A - λI`, `λ` a simple eigenvalue of `A`: the solution of the bordered
# system `[A - λI  u; uᵀ  0] [v; μ] = [0; 1]` (nonsingular there, so its derivative is well
# conditioned), `u` a guess by inverse iteration taken as a constant. Differentiating the
# iteration itself multiplies any rounding in `λ̇` by the inverse of its shift.
function _eigvector(A::Matrix{Float64}, λ::Float64)
    n = size(A, 1)
    u = _eigvector_guess(A, λ)
    B = [i <= n && j <= n ? A[i, j] - (i == j ? λ : 0.0) : (i <= n ? u[i] : (j <= n ? u[j] : 0.0)) for i in 1:(n + 1), j in 1:(n + 1)]
    x = B \ [k == n + 1 ? 1.0 : 0.0 for k in 1:(n + 1)]
    v = x[1:n]
    return v / norm(v)
end

# Inverse iteration from a shift just off `λ` (so that the solve is not exactly singular),
# which converges in a few steps; no derivative (the bordered solve above has it).
function _eigvector_guess(A::Matrix{Float64}, λ::Float64)
    n = size(A, 1)
    M = A - (λ + 1.0e-10 * max(1.0, abs(λ))) * one(A)
    v = [1.0 + k / n for k in 1:n]
    for step in 1:3
        v = M \ v
        v = v / norm(v)
    end
    return v
end
rrule(::typeof(_eigvector_guess), A::Matrix{Float64}, λ::Float64) = (_eigvector_guess(A, λ), _ -> (NoTangent(), NoTangent(), NoTangent()))
frule(Δ, ::typeof(_eigvector_guess), A::Matrix{Float64}, λ::Float64) = (v = _eigvector_guess(A, λ); (v, zero(v)))

# Each eigenvalue's cotangent `λ̄ₖ` carried to `A`: `Σₖ λ̄ₖ wₖ vₖᵀ / (wₖᵀ vₖ)`, `vₖ` (`wₖ`) the
# right (left) eigenvector.
function _eigvals_cotangent(A::Matrix{Float64}, λ::Vector{Float64}, λ̄)
    n = length(λ)
    At = _transpose_copy(A)
    Ā = zeros(n, n)
    for k in 1:n
        v = _eigvector(A, λ[k])
        w = _eigvector(At, λ[k])
        Ā = Ā + (λ̄[k] / dot(w, v)) * (w * v')
    end
    return Ā
end

function rrule(::typeof(_real_eigvals), A::Matrix{Float64})
    λ = _real_eigvals(A)
    real_eigvals_pullback(ȳ) = (NoTangent(), _eigvals_cotangent(A, λ, _cotangent(ȳ, λ)))
    return λ, real_eigvals_pullback
end

# λ̇ₖ = wₖᵀ Ȧ vₖ / (wₖᵀ vₖ).
function frule(Δ, ::typeof(_real_eigvals), A::Matrix{Float64})
    λ = _real_eigvals(A)
    Ȧ = Δ[2]
    At = _transpose_copy(A)
    λ̇ = zeros(length(λ))
    for k in 1:length(λ)
        v = _eigvector(A, λ[k])
        w = _eigvector(At, λ[k])
        λ̇[k] = dot(w, Ȧ * v) / dot(w, v)
    end
    return λ, λ̇
end

# `(λ, U)` of the symmetric `A` by cyclic Jacobi: each rotation zeroes one off-diagonal pair
# (Golub & Van Loan, Algorithm 8.5.2), sweeps until the off-diagonal part is below rounding.
function _symeigen(A::Matrix{Float64})
    n = size(A, 1)
    B = copy(A)
    V = one(A)
    for sweep in 1:100
        off = 0.0
        for j in 2:n, i in 1:(j - 1)
            off += B[i, j]^2
        end
        off <= (eps(1.0) * norm(B))^2 / 4.0 && break
        for p in 1:(n - 1), q in (p + 1):n
            B[p, q] == 0.0 && continue
            θ = (B[q, q] - B[p, p]) / (2.0 * B[p, q])
            t = abs(θ) > 1.0e150 ? 0.5 / θ : (θ >= 0.0 ? 1.0 : -1.0) / (abs(θ) + Base.sqrt(θ^2 + 1.0))
            c = 1.0 / Base.sqrt(t^2 + 1.0)
            s = t * c
            _rotate_columns!(B, p, q, c, s)
            _rotate_rows!(B, p, q, c, s)
            _rotate_columns!(V, p, q, c, s)
        end
    end
    λ = [B[k, k] for k in 1:n]
    # Ascending, by insertion (stable), the columns of V moving with their eigenvalues.
    for j in 2:n
        k = j
        while k > 1 && λ[k] < λ[k - 1]
            λ[k], λ[k - 1] = λ[k - 1], λ[k]
            _swap_columns!(V, k, k - 1)
            k -= 1
        end
    end
    for j in 1:n
        _largest_positive!(V, j)
    end
    return (λ, V)
end

function _swap_columns!(X::Matrix{Float64}, p::Int, q::Int)
    for k in 1:size(X, 1)
        X[k, p], X[k, q] = X[k, q], X[k, p]
    end
    return X
end

# Columns p and q of X become c xₚ - s x_q and s xₚ + c x_q.
function _rotate_columns!(X::Matrix{Float64}, p::Int, q::Int, c::Float64, s::Float64)
    for k in 1:size(X, 1)
        xp = X[k, p]
        xq = X[k, q]
        X[k, p] = c * xp - s * xq
        X[k, q] = s * xp + c * xq
    end
    return X
end

# Rows p and q of X become c xₚ - s x_q and s xₚ + c x_q.
function _rotate_rows!(X::Matrix{Float64}, p::Int, q::Int, c::Float64, s::Float64)
    for k in 1:size(X, 2)
        xp = X[p, k]
        xq = X[q, k]
        X[p, k] = c * xp - s * xq
        X[q, k] = s * xp + c * xq
    end
    return X
end

# Negate column j of U if its entry of largest magnitude (the first of equal ones) is negative.
function _largest_positive!(U::Matrix{Float64}, j::Int)
    m = 1
    for i in 2:size(U, 1)
        abs(U[i, j]) > abs(U[m, j]) && (m = i)
    end
    if U[m, j] < 0.0
        for i in 1:size(U, 1)
            U[i, j] = -U[i, j]
        end
    end
    return U
end

# Fᵢⱼ = 1 / (dⱼ - dᵢ) off the diagonal, 0 on it (`d` the eigenvalues, or the squared singular
# values): the coefficients of the eigenvectors' derivative.
function _gap_inverse(d::Vector{Float64})
    n = length(d)
    return [i == j ? 0.0 : 1.0 / (d[j] - d[i]) for i in 1:n, j in 1:n]
end

_cotangent(x::Nothing, like) = zero(like)
_cotangent(x, like) = x

function rrule(::typeof(_symeigen), A::Matrix{Float64})
    λ, U = _symeigen(A)
    function symeigen_pullback(ȳ)
        λ̄ = _cotangent(ȳ[1], λ)
        Ū = _cotangent(ȳ[2], U)
        C = _gap_inverse(λ) .* (_transpose_copy(U) * Ū)
        Ā = U * (Diagonal(λ̄) + C) * _transpose_copy(U)
        return (NoTangent(), 0.5 * (Ā + _transpose_copy(Ā)))
    end
    return (λ, U), symeigen_pullback
end

# λ̇ = diag(Uᵀ Ȧ U), U̇ = U (F ∘ (Uᵀ Ȧ U)).
function frule(Δ, ::typeof(_symeigen), A::Matrix{Float64})
    λ, U = _symeigen(A)
    Ȧ = Δ[2]
    M = _transpose_copy(U) * Ȧ * U
    return (λ, U), (diag(M), U * (_gap_inverse(λ) .* M))
end

"""
    SVD{M, V}

The thin singular value decomposition `A = F.U * Diagonal(F.S) * F.Vt` of an m×n matrix:
`k = min(m, n)` singular values `F.S` descending, `F.U` (m×k) and `F.V` (n×k) with orthonormal
columns, `F.Vt` the transpose of `F.V`.
"""
struct SVD{M, V}
    U::M
    S::V
    V::M
    Vt::M
end

"""
    svd(A), svdvals(A)

The thin singular value decomposition of a real matrix and its singular values (descending),
by one-sided Jacobi rotations to full precision (Julia calls LAPACK: the last bits can differ,
and a pair of singular vectors may be the negatives of Julia's: zy makes the entry of largest
magnitude of each column of `V` positive). Gradients are ChainRules' formulas (Townsend 2016),
for distinct nonzero singular values.
"""
function svd(A::AbstractMatrix)
    U, S, V = _svd(float(A))
    return SVD(U, S, V, permutedims(V))
end
svdvals(A::AbstractMatrix) = _svd(float(A))[2]

"""
    opnorm(A), cond(A, p = 2)

The 2-norm of a matrix (its largest singular value) and its condition number in the operator
`p`-norm: for `p = 2` the largest singular value over the smallest (`Inf` for a singular
matrix, the zero matrix too), for `p = 1` and `p = Inf` of a square matrix
`opnorm(A, p) * opnorm(inv(A), p)` (`Inf` for a singular one).
"""
opnorm(A::AbstractMatrix) = svdvals(A)[1]
function cond(A::AbstractMatrix)
    s = svdvals(A)
    return iszero(s[1]) ? Inf : s[1] / s[end]
end
function cond(A::AbstractMatrix, p::Real)
    if p == 2
        return cond(A)
    elseif p == 1 || p == Inf
        size(A, 1) == size(A, 2) || throw(DimensionMismatch("matrix is not square: dimensions are $(size(A))"))
        # `cond(A)` alone has no `try`, which the gradient of a complex `inv` cannot cross.
        Ainv = try
            inv(A)
        catch e
            e isa SingularException || rethrow()
            return Inf
        end
        return opnorm(A, p) * opnorm(Ainv, p)
    end
    throw(ArgumentError("p-norm must be 1, 2 or Inf, got $p"))
end

export cond, rank

"""
    rank(A; atol = 0.0, rtol = min(size(A)...) * eps() * iszero(atol)), rank(x)

The number of singular values of `A` above `max(atol, rtol * σ₁)` (0 for an empty matrix); of
a vector or a number, 0 when it is zero and 1 otherwise.
"""
function rank(A::AbstractMatrix; atol::Real = 0.0, rtol::Real = (min(size(A)...) * eps(1.0)) * iszero(atol))
    if isempty(A)
        return 0
    end
    s = svdvals(A)
    tol = max(atol, rtol * s[1])
    return count(>(tol), s)
end
rank(x::Union{Number, AbstractVector}) = iszero(x) ? 0 : 1

"""
    pinv(A; atol = 0.0, rtol = eps() * min(size(A)...) * iszero(atol))

The Moore–Penrose pseudoinverse of a matrix, as Julia computes it: a diagonal matrix by
inverting its diagonal entries above the tolerance, any other from the SVD, `V * Diagonal(Sinv)
* U'` with `Sinv` the inverses of the singular values above `max(rtol * maximum(S), atol)` and
zeros for the rest. The gradient is the SVD's (distinct nonzero singular values).
"""
function pinv(A::AbstractMatrix; atol::Real = 0.0, rtol::Real = (eps(1.0) * min(size(A)...)) * iszero(atol))
    m, n = size(A)
    if m == 0 || n == 0
        return zeros(n, m)
    end
    if _isdiagonal(A)
        k = min(m, n)
        dtol = max(rtol * maximum(abs(A[i, i]) for i in 1:k), atol)
        B = zeros(n, m)
        for i in 1:k
            B[i, i] = abs(A[i, i]) > dtol ? inv(A[i, i]) : 0.0
        end
        return B
    end
    F = svd(A)
    tol = max(rtol * maximum(F.S), atol)
    Sinv = [s > tol ? inv(s) : 0.0 for s in F.S]
    return F.V * (Diagonal(Sinv) * permutedims(F.U))
end

# Is every entry off the diagonal zero (LinearAlgebra's `isdiag`)?
function _isdiagonal(A::AbstractMatrix)
    for j in 1:size(A, 2), i in 1:size(A, 1)
        if i != j && !iszero(A[i, j])
            return false
        end
    end
    return true
end

export pinv

"""
    nullspace(A; atol = 0.0, rtol = min(size(A)...) * eps() * iszero(atol))

An orthonormal basis of the null space of a matrix (Julia's): the columns of the full SVD's `V`
for the singular values at most `max(atol, rtol * σ₁)`, `n - rank` of them (the n×n identity
for an empty matrix). A wide m×n matrix is padded with n - m zero rows, whose SVD has the same
`V` and n singular values. The basis is not unique, so its sign (and, for a null space of
dimension two or more, its rotation) may differ from Julia's LAPACK; `A * N ≈ 0` and
`N' * N ≈ I` both hold. It has no gradient (refused).
"""
function nullspace(A::AbstractMatrix; atol::Real = 0.0, rtol::Real = (min(size(A)...) * eps(1.0)) * iszero(atol))
    m, n = size(A)
    if m == 0 || n == 0
        return Matrix{Float64}(I, n, n)
    end
    return _nullspace(m < n ? [float(A); zeros(n - m, n)] : float(A), atol, rtol)
end
nullspace(x::AbstractVector; kws...) = nullspace(reshape(copy(x), length(x), 1); kws...)
function _nullspace(A::Matrix{Float64}, atol, rtol)
    _, S, V = _svd(A)
    r = count(>(max(atol, rtol * S[1])), S)
    return V[:, (r + 1):end]
end
function rrule(::typeof(_nullspace), A::Matrix{Float64}, atol, rtol)
    nullspace_pullback(N̄) = (NoTangent(), _nullspace_refused(A, N̄), NoTangent(), NoTangent())
    return _nullspace(A, atol, rtol), nullspace_pullback
end
# Refuses a gradient through the null space, whose basis is not a function of `A` (none reaches
# it when its cotangent is zero).
function _nullspace_refused(A, N̄)
    all(iszero, N̄) || error("unsupported: the gradient of `nullspace` (its basis is not unique; the projector `I - pinv(A) * A` has one)")
    return zero(A)
end

export nullspace

# `(U, S, V)` of any real matrix: the tall case, or that of the transpose.
function _svd(A::Matrix{Float64})
    if size(A, 1) < size(A, 2)
        V, S, U = _svd_tall(permutedims(A))
        return (U, S, V)
    end
    return _svd_tall(A)
end

# One-sided Jacobi (Hestenes) on the m×n matrix A, m ≥ n: rotate pairs of columns until all are
# orthogonal; their norms are the singular values.
function _svd_tall(A::Matrix{Float64})
    m, n = size(A)
    W = copy(A)
    V = zeros(n, n)
    for j in 1:n
        V[j, j] = 1.0
    end
    for sweep in 1:100
        rotated = false
        for p in 1:(n - 1), q in (p + 1):n
            α = 0.0
            β = 0.0
            γ = 0.0
            for k in 1:m
                α += W[k, p]^2
                β += W[k, q]^2
                γ += W[k, p] * W[k, q]
            end
            abs(γ) <= eps(1.0) * Base.sqrt(α * β) && continue
            rotated = true
            ζ = (β - α) / (2.0 * γ)
            t = abs(ζ) > 1.0e150 ? 0.5 / ζ : (ζ >= 0.0 ? 1.0 : -1.0) / (abs(ζ) + Base.sqrt(ζ^2 + 1.0))
            c = 1.0 / Base.sqrt(t^2 + 1.0)
            s = t * c
            _rotate_columns!(W, p, q, c, s)
            _rotate_columns!(V, p, q, c, s)
        end
        rotated || break
    end
    S = [Base.sqrt(sum(abs2, W[:, j])) for j in 1:n]
    # Descending, by insertion (stable), the columns moving with their values.
    for j in 2:n
        k = j
        while k > 1 && S[k] > S[k - 1]
            S[k], S[k - 1] = S[k - 1], S[k]
            _swap_columns!(W, k, k - 1)
            _swap_columns!(V, k, k - 1)
            k -= 1
        end
    end
    U = zeros(m, n)
    for j in 1:n
        if S[j] > 0.0
            for i in 1:m
                U[i, j] = W[i, j] / S[j]
            end
        else
            _orthonormal_column!(U, j)
        end
        if _flip_sign(V, j)
            for i in 1:n
                V[i, j] = -V[i, j]
            end
            for i in 1:m
                U[i, j] = -U[i, j]
            end
        end
    end
    return (U, S, V)
end

# Is the entry of largest magnitude (the first of equal ones) of column j negative?
function _flip_sign(X::Matrix{Float64}, j::Int)
    m = 1
    for i in 2:size(X, 1)
        abs(X[i, j]) > abs(X[m, j]) && (m = i)
    end
    return X[m, j] < 0.0
end

# Column j of U (for a zero singular value): the first unit vector, orthogonalised against
# columns 1 … j-1 (Gram–Schmidt, twice), whose remainder is not negligible.
function _orthonormal_column!(U::Matrix{Float64}, j::Int)
    m = size(U, 1)
    for e in 1:m
        u = zeros(m)
        u[e] = 1.0
        for pass in 1:2, k in 1:(j - 1)
            d = 0.0
            for i in 1:m
                d += U[i, k] * u[i]
            end
            for i in 1:m
                u[i] -= d * U[i, k]
            end
        end
        r = Base.sqrt(sum(abs2, u))
        if r > 0.5
            for i in 1:m
                U[i, j] = u[i] / r
            end
            return U
        end
    end
    return U
end

function rrule(::typeof(_svd), A::Matrix{Float64})
    U, s, V = _svd(A)
    function svd_pullback(ȳ)
        Ū = ȳ[1]
        s̄ = ȳ[2]
        V̄ = ȳ[3]
        Ut = _transpose_copy(U)
        Vt = _transpose_copy(V)
        F = _gap_inverse(s .^ 2)
        M = isnothing(s̄) ? zeros(length(s), length(s)) : Matrix(Diagonal(s̄))
        if !isnothing(Ū)
            J = F .* (Ut * Ū)
            M = M + (J + _transpose_copy(J)) * Diagonal(s)
        end
        if !isnothing(V̄)
            K = F .* (Vt * V̄)
            M = M + Diagonal(s) * (K + _transpose_copy(K))
        end
        Ā = U * M * Vt
        if !isnothing(Ū) && size(A, 1) > length(s)
            Ā = Ā + (Ū - U * (Ut * Ū)) * Diagonal(1.0 ./ s) * Vt
        end
        if !isnothing(V̄) && size(A, 2) > length(s)
            Ā = Ā + U * Diagonal(1.0 ./ s) * _transpose_copy(V̄ - V * (Vt * V̄))
        end
        return (NoTangent(), Ā)
    end
    return (U, s, V), svd_pullback
end

# ---- QR factorization ---------------------------------------------------------------------------

export qr, QR

"""
    QR{M}

The thin QR factorization `A = F.Q * F.R` of an m×n matrix, `k = min(m, n)`: `F.Q` (m×k) with
orthonormal columns and `F.R` (k×n) upper triangular. Julia's `F.Q` is an implicit m×m
orthogonal operator whose `Matrix(F.Q)` is this m×k matrix; zy's is the m×k matrix itself, so
`F.Q' * b` has k entries (Julia's has m). `Q, R = qr(A)` destructures it.
"""
struct QR{M}
    Q::M
    R::M
end

"""
    qr(A)

The QR factorization of a real matrix by Householder reflections, as LAPACK's `geqrf` chooses
them (each reflection makes `R[j, j] = -sign(A[j, j]) * norm(A[j:m, j])`, none when the column
is already zero below the diagonal), so `R` has Julia's signs. Its gradient is that of the
computation.
"""
function qr(A::AbstractMatrix)
    Q, R = _qr(float(A))
    return QR(Q, R)
end

# `F \ b`: the least-squares solution `R \ (Qᵀ b)` of a tall or square `A` (full column rank).
(\)(F::QR, b) = F.R \ (_transpose_copy(F.Q) * b)

"""
    A \ B

The solution of `A X = B` for a real matrix `A`: of a square `A`, the solve by LU with partial
pivoting (a primitive); of a tall `A` (more rows than columns), the least-squares solution
`qr(A) \ B`; of a wide `A`, the solution of least norm `Q (Rᵀ \ B)` from `qr(transpose(A))`,
which is what Julia's pivoted QR gives for a matrix of full rank. A rank-deficient non-square
`A` (Julia's answer there is the least-norm least-squares solution) is refused by name. The
gradient is that of the computation.
"""
function (\)(A::Matrix{<:Real}, B::Union{Vector{<:Real}, Matrix{<:Real}})
    m, n = size(A)
    if m == n
        return _solve_square(A, B)
    end
    if size(B, 1) != m
        throw(DimensionMismatch("arguments must have the same number of rows"))
    end
    if m > n
        F = qr(A)
        _full_rank(F.R, m, n)
        return F \ B
    end
    F = qr(_transpose_copy(A))
    _full_rank(F.R, m, n)
    return F.Q * (_transpose_copy(F.R) \ B)
end

# Refuses a triangular factor `R` of an m×n matrix with a diagonal entry negligible beside `R`'s
# largest entry (a rank-deficient matrix): below `max(m, n) ε` of it, about the tolerance of
# Julia's rank decision.
function _full_rank(R, m, n)
    k = min(size(R)...)
    tol = max(m, n) * eps(Float64) * maximum(abs, R)
    for j in 1:k
        if abs(R[j, j]) <= tol
            error("unsupported: `\\` of a rank-deficient non-square matrix (Julia gives the least-norm least-squares solution)")
        end
    end
    return nothing
end

function _qr(A::Matrix{Float64})
    m, n = size(A)
    k = min(m, n)
    R = copy(A)
    V = zeros(m, k)
    τ = zeros(k)
    for j in 1:k
        below = 0.0
        for i in (j + 1):m
            below += R[i, j]^2
        end
        below == 0.0 && continue
        x1 = R[j, j]
        β = (x1 >= 0.0 ? -1.0 : 1.0) * Base.sqrt(x1^2 + below)
        # v = x - β e₁, reflecting x onto β e₁: H = I - 2 v vᵀ / (vᵀ v).
        V[j, j] = x1 - β
        for i in (j + 1):m
            V[i, j] = R[i, j]
        end
        τ[j] = 2.0 / ((x1 - β)^2 + below)
        for c in j:n
            s = 0.0
            for i in j:m
                s += V[i, j] * R[i, c]
            end
            for i in j:m
                R[i, c] -= τ[j] * s * V[i, j]
            end
        end
        for i in (j + 1):m
            R[i, j] = 0.0
        end
    end
    # Q = H₁ ⋯ H_k applied to the first k columns of the identity.
    Q = zeros(m, k)
    for j in 1:k
        Q[j, j] = 1.0
    end
    for j in k:-1:1
        τ[j] == 0.0 && continue
        for c in 1:k
            s = 0.0
            for i in j:m
                s += V[i, j] * Q[i, c]
            end
            for i in j:m
                Q[i, c] -= τ[j] * s * V[i, j]
            end
        end
    end
    return (Q, R[1:k, :])
end

# ---- LU factorization ---------------------------------------------------------------------------

export lu, LU

"""
    LU{M, P}

The LU factorization with partial pivoting `A[F.p, :] = F.L * F.U` of a square matrix: `F.L`
unit lower triangular, `F.U` upper triangular, `F.p` the row permutation. `L, U, p = lu(A)`
destructures it, as in Julia.
"""
struct LU{M, P}
    L::M
    U::M
    p::P
end

"""
    lu(A)

The LU factorization of a square real or complex matrix with partial pivoting (Julia's: at
each step the row of largest magnitude in the column, the first of equal ones, becomes the
pivot; of complex numbers LAPACK's magnitude `|re| + |im|`), a `SingularException` at an
exactly zero pivot as Julia's `lu` (check = true). Its gradient is that of the computation.
"""
lu(A::AbstractMatrix) = _lu(A, true)

# The factorization; without `check`, a zero pivot leaves its column as it is (LAPACK's
# `getrf`, as Julia's `lu(A; check = false)`), so `det` is zero.
function _lu(A::AbstractMatrix, check::Bool)
    n = size(A, 1)
    size(A, 2) == n || throw(DimensionMismatch("matrix is not square: dimensions are $(size(A))"))
    W = _lu_copy(A)
    p = collect(1:n)
    for k in 1:n
        r = k
        for i in (k + 1):n
            _pivot_abs(W[i, k]) > _pivot_abs(W[r, k]) && (r = i)
        end
        if W[r, k] == 0.0
            check && throw(SingularException(k))
            continue
        end
        if r != k
            p[k], p[r] = p[r], p[k]
            for c in 1:n
                W[k, c], W[r, c] = W[r, c], W[k, c]
            end
        end
        for i in (k + 1):n
            W[i, k] = W[i, k] / W[k, k]
            for c in (k + 1):n
                W[i, c] -= W[i, k] * W[k, c]
            end
        end
    end
    L = [i == j ? one(W[i, j]) : (i > j ? W[i, j] : zero(W[i, j])) for i in 1:n, j in 1:n]
    U = [i <= j ? W[i, j] : zero(W[i, j]) for i in 1:n, j in 1:n]
    return LU(L, U, p)
end
_lu_copy(A::AbstractMatrix) = float(copy(A))
_lu_copy(A::AbstractMatrix{<:Complex}) = [complex(float(real(z)), float(imag(z))) for z in A]
_pivot_abs(x::Real) = abs(x)
_pivot_abs(z::Complex) = abs(real(z)) + abs(imag(z))

# `F \ b`: forward then back substitution on the permuted right-hand side.
(\)(F::LU, b::AbstractVector) = _lu_ldiv(F.U, F, _lu_rows(F, b)[F.p])
(\)(F::LU, B::AbstractMatrix) = _lu_ldiv(F.U, F, _lu_rows(F, B)[F.p, :])
function _lu_rows(F::LU, B)
    n = length(F.p)
    size(B, 1) == n || throw(DimensionMismatch("matrix A has dimensions ($n,$n), the right-hand side has $(size(B, 1)) rows"))
    return B
end
# The permuted right-hand side `c` solved by the builtin triangular solves of real matrices; of
# complex numbers the substitutions written out.
_lu_ldiv(U::Matrix{Float64}, F::LU, c::AbstractVector{<:Real}) = U \ (F.L \ c)
_lu_ldiv(U::Matrix{Float64}, F::LU, C::AbstractMatrix{<:Real}) = U \ (F.L \ C)
_lu_ldiv(U, F::LU, c::AbstractVector) = _substitute(F, hcat(c))[:, 1]
_lu_ldiv(U, F::LU, C::AbstractMatrix) = _substitute(F, C)
function _substitute(F::LU, C::AbstractMatrix)
    n, m = size(C)
    Y = [C[i, j] + zero(F.U[i, i]) for i in 1:n, j in 1:m]
    for j in 1:m
        for i in 2:n, k in 1:(i - 1)
            Y[i, j] -= F.L[i, k] * Y[k, j]
        end
        for i in n:-1:1
            for k in (i + 1):n
                Y[i, j] -= F.U[i, k] * Y[k, j]
            end
            Y[i, j] /= F.U[i, i]
        end
    end
    return Y
end

# The determinant: the pivots' product, negated for an odd permutation.
det(F::LU) = _perm_sign(F.p) * prod(diag(F.U))

# The sign of a permutation: -1 for each cycle of even length.
function _perm_sign(p::Vector{Int})
    n = length(p)
    sgn = 1.0
    seen = fill(false, n)
    for s in 1:n
        seen[s] && continue
        len = 0
        k = s
        while !seen[k]
            seen[k] = true
            k = p[k]
            len += 1
        end
        iseven(len) && (sgn = -sgn)
    end
    return sgn
end

# Complex matrices, as Julia's generic methods: through the LU factors above (the builtins
# factor real matrices); `det`, `logdet` and `logabsdet` of a singular one without throwing.
det(A::Matrix{<:Complex}) = det(_lu(A, false))
function logabsdet(A::Matrix{<:Complex})
    F = _lu(A, false)
    s = complex(_perm_sign(F.p), 0.0)
    d = 0.0
    for i in 1:length(F.p)
        u = F.U[i, i]
        s *= iszero(u) ? zero(u) : u / abs(u)
        d += log(abs(u))
    end
    return (d, s)
end
function logdet(A::Matrix{<:Complex})
    d, s = logabsdet(A)
    return d + log(s)
end
inv(A::Matrix{<:Complex}) = (n = _checksquare(A); lu(A) \ [complex(float(i == j), 0.0) for i in 1:n, j in 1:n])
(\)(A::Matrix{<:Complex}, b::AbstractVector) = _complex_solve(A, b)
(\)(A::Matrix{<:Complex}, B::AbstractMatrix) = _complex_solve(A, B)
(\)(A::Matrix{<:Real}, b::AbstractVector{<:Complex}) = _complex_solve(A, b)
(\)(A::Matrix{<:Real}, B::AbstractMatrix{<:Complex}) = _complex_solve(A, B)
# A square `A` by LU; a non-square one by the real form `[Re A -Im A; Im A Re A]`, which maps
# `[Re x; Im x]` to `[Re Ax; Im Ax]` with the same norms, so its least-squares (tall) or
# least-norm (wide) solution is the complex one Julia's pivoted QR gives.
function _complex_solve(A, B)
    m, n = size(A)
    m == n && return lu(A) \ B
    size(B, 1) == m || throw(DimensionMismatch("arguments must have the same number of rows"))
    X = _real_form(A) \ [real.(B); imag.(B)]
    return _complex_halves(X, n)
end
_real_form(A) = [real.(A) -imag.(A); imag.(A) real.(A)]
_complex_halves(x::Vector, n::Int) = complex.(x[1:n], x[n+1:2n])
_complex_halves(X::Matrix, n::Int) = complex.(X[1:n, :], X[n+1:2n, :])

# The SVD of a complex m×n matrix from its real form's, where each singular value is twice
# (sorted descending: every other one) and each of its singular vectors `[Re u; Im u]` gives
# a complex one (a phase `e^{iθ}` away from Julia's). The singular values' gradient is
# `Σ s̄ₖ uₖ vₖᴴ` (the real form's own pullback divides by the zero gap between the copies);
# the singular vectors' gradient is refused.
function _complex_svd(A)
    m, n = size(A)
    U, s, V = _svd(_real_form(A))
    k = 1:2:length(s)
    return _complex_halves(U[:, k], m), s[k], _complex_halves(V[:, k], n)
end
svdvals(A::Matrix{<:Complex}) = _complex_svdvals(A)
_complex_svdvals(A) = _complex_svd(A)[2]
function rrule(::typeof(_complex_svdvals), A::Matrix{<:Complex})
    U, s, V = _complex_svd(A)
    svdvals_pullback(s̄) = (NoTangent(), _complex_tangent([U[i, j] * s̄[j] for i in 1:size(U, 1), j in 1:length(s)] * V'))
    return s, svdvals_pullback
end
# The tangent of a complex array from its gradient `∂Re + i ∂Im`.
_complex_tangent(G) = map(z -> (re = real(z), im = imag(z)), G)
function svd(A::Matrix{<:Complex})
    U, S, V = _complex_svd_vectors(A)
    return SVD(U, S, V, copy(V'))
end
_complex_svd_vectors(A) = _complex_svd(A)
function rrule(::typeof(_complex_svd_vectors), A::Matrix{<:Complex})
    svd_pullback(ȳ) = (NoTangent(), _svd_vectors_refused(A))
    return _complex_svd(A), svd_pullback
end
# Refuses a gradient through complex singular vectors (none for an empty matrix, whose zero
# gradient is exact).
function _svd_vectors_refused(A)
    isempty(A) || error("unsupported: the gradient of `svd` of a complex matrix; `svdvals(A)` has one")
    return map(z -> (re = 0.0, im = 0.0), A)
end
# The 2-norm of a complex matrix: the largest singular value of its real form
# [re -im; im re], whose singular values are the matrix's, each twice. Its gradient is the
# rule below: the real form's SVD rule would divide by the zero gap between the two copies.
opnorm(A::Matrix{<:Complex}) = _copnorm(_lu_copy(A))

# (σ₁, u₁, v₁): the largest singular value of a complex matrix and unit singular vectors for
# it, A v₁ = σ₁ u₁. Any vector [a; b] of the real form's top right singular space gives
# v₁ = a + ib, and its left one [c; d] (= R [a; b] / σ₁) u₁ = c + id.
function _ctop_singular(A::Matrix{Complex{Float64}})
    m, n = size(A)
    X = real.(A)
    Y = imag.(A)
    U, s, V = _svd([X -Y; Y X])
    u = [complex(U[i, 1], U[m + i, 1]) for i in 1:m]
    v = [complex(V[j, 1], V[n + j, 1]) for j in 1:n]
    return s[1], u, v
end
_copnorm(A::Matrix{Complex{Float64}}) = _ctop_singular(A)[1]

# dσ₁ = Re(u₁ᴴ dA v₁): the gradient (∂σ₁/∂re + ∂σ₁/∂im i, per entry) is u₁ v₁ᴴ.
function rrule(::typeof(_copnorm), A::Matrix{Complex{Float64}})
    σ, u, v = _ctop_singular(A)
    function copnorm_pullback(ȳ)
        Ā = [ȳ * (ui * conj(vj)) for ui in u, vj in v]
        return (NoTangent(), map(w -> (re = real(w), im = imag(w)), Ā))
    end
    return σ, copnorm_pullback
end
function frule(Δ, ::typeof(_copnorm), A::Matrix{Complex{Float64}})
    σ, u, v = _ctop_singular(A)
    Ȧ = Δ[2]
    σ̇ = 0.0
    for j in 1:length(v), i in 1:length(u)
        σ̇ += real(conj(u[i]) * complex(Ȧ[i, j].re, Ȧ[i, j].im) * v[j])
    end
    return σ, σ̇
end

export UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular

import Base: eltype, parent, copy, sum

"""
    UpperTriangular(A), LowerTriangular(A), UnitUpperTriangular(A), UnitLowerTriangular(A)

The upper (lower) triangle of the square matrix `A`, zeros elsewhere; the unit variants have
ones on the diagonal whatever `A` holds there. As in Julia, a wrapper that reads `A` (a later
write to `A` is seen in it) and reads only the triangle, so the gradient with respect to `A`
is zero outside it (ChainRules' projection onto the triangular part). `T \\ b` is back (forward)
substitution, `det` and `logdet` the product and the sum of logs of the diagonal, `inv` a
triangular matrix of the same kind; `T * x`, `T + S`, `a * T` and `Matrix(T)` read the dense
matrix.
"""
struct UpperTriangular{M}
    data::M
end

struct LowerTriangular{M}
    data::M
end

struct UnitUpperTriangular{M}
    data::M
end

struct UnitLowerTriangular{M}
    data::M
end

# Which triangle a wrapper keeps (`true`: the upper) and whether its diagonal is ones.
_tri_upper(T::Union{UpperTriangular, UnitUpperTriangular}) = true
_tri_upper(T::Union{LowerTriangular, UnitLowerTriangular}) = false
_tri_unit(T::Union{UpperTriangular, LowerTriangular}) = false
_tri_unit(T::Union{UnitUpperTriangular, UnitLowerTriangular}) = true

# A wrapper of the same kind as `T` around `A`.
_tri_like(T::UpperTriangular, A) = UpperTriangular(A)
_tri_like(T::LowerTriangular, A) = LowerTriangular(A)
_tri_like(T::UnitUpperTriangular, A) = UnitUpperTriangular(A)
_tri_like(T::UnitLowerTriangular, A) = UnitLowerTriangular(A)

# The order of the square matrix `T` wraps (Julia's constructor refuses a matrix that is not
# square; zy's checks where it is used).
function _tri_size(T)
    m, n = size(T.data, 1), size(T.data, 2)
    m == n || throw(DimensionMismatch("matrix is not square: dimensions are ($m, $n)"))
    return n
end

size(T::Union{UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular}) = (_tri_size(T), _tri_size(T))
size(T::Union{UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular}, d::Int) = d <= 2 ? _tri_size(T) : 1
length(T::Union{UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular}) = _tri_size(T)^2
eltype(T::Union{UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular}) = eltype(T.data)
parent(T::Union{UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular}) = T.data

function getindex(T::Union{UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular}, i::Int, j::Int)
    n = _tri_size(T)
    (1 <= i <= n && 1 <= j <= n) || throw(BoundsError(T, (i, j)))
    if i == j && _tri_unit(T)
        return one(eltype(T.data))
    end
    inside = _tri_upper(T) ? i <= j : i >= j
    return inside ? T.data[i, j] : zero(eltype(T.data))
end

# Julia's: a write into the kept triangle writes the parent; a nonzero value outside it, or
# a value other than one on a unit diagonal, is an `ArgumentError`.
function Base.setindex!(T::Union{UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular}, x, i::Int, j::Int)
    if _tri_upper(T) ? i > j : i < j
        part = _tri_upper(T) ? "lower" : "upper"
        iszero(x) || throw(ArgumentError("cannot set index in the $part triangular part ($i, $j) of a $(_tri_word(T)) matrix to a nonzero value ($x)"))
    elseif i == j && _tri_unit(T)
        x == one(x) || throw(ArgumentError("cannot set index on the diagonal ($i, $j) of a $(_tri_word(T)) matrix to a non-unit value ($x)"))
    else
        T.data[i, j] = x
    end
    return T
end

# The wrapper's size and type in an error's text: of a matrix its `typeof`, of a view or
# another wrapper (whose type as a value zy refuses) the parent's type elided.
Base.summary(T::Union{UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular}) =
    "$(_tri_size(T))×$(_tri_size(T)) $(_tri_text(T, T.data))"
_tri_text(T, A::Matrix) = "$(_tri_word(T)){$(eltype(A)), $(typeof(A))}"
_tri_text(T, A) = "$(_tri_word(T)){…}"
_tri_word(T::UpperTriangular) = "UpperTriangular"
_tri_word(T::LowerTriangular) = "LowerTriangular"
_tri_word(T::UnitUpperTriangular) = "UnitUpperTriangular"
_tri_word(T::UnitLowerTriangular) = "UnitLowerTriangular"

# `Matrix(T)` (inference hands it here): the dense matrix.
function _triangular_matrix(T)
    n = _tri_size(T)
    if !_tri_unit(T)
        return _tri_upper(T) ? triu(T.data) : tril(T.data)
    end
    M = _tri_upper(T) ? triu(T.data, 1) : tril(T.data, -1)
    for i in 1:n
        M[i, i] = one(eltype(M))
    end
    return M
end

# `collect(T)`: the dense matrix, which the reductions read, as Julia's generic methods read
# every element (the zeros too).
Base.collect(T::Union{UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular}) = _triangular_matrix(T)
Base.prod(T::Union{UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular}) = prod(_triangular_matrix(T))
Base.maximum(T::Union{UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular}) = maximum(_triangular_matrix(T))
Base.minimum(T::Union{UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular}) = minimum(_triangular_matrix(T))

function diag(T::Union{UpperTriangular, LowerTriangular})
    _tri_size(T)
    return diag(T.data)
end
diag(T::Union{UnitUpperTriangular, UnitLowerTriangular}) = fill(one(eltype(T.data)), _tri_size(T))
tr(T::Union{UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular}) = sum(diag(T))
sum(T::Union{UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular}) = sum(_triangular_matrix(T))
copy(T::Union{UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular}) = _tri_like(T, copy(T.data))
det(T::Union{UpperTriangular, LowerTriangular}) = prod(diag(T))
det(T::Union{UnitUpperTriangular, UnitLowerTriangular}) = (_tri_size(T); one(eltype(T.data)))
logdet(T::Union{UpperTriangular, LowerTriangular}) = sum(log, diag(T))
logdet(T::Union{UnitUpperTriangular, UnitLowerTriangular}) = (_tri_size(T); log(one(eltype(T.data))))

# The transpose of a triangle is the other triangle of the lazy transpose of `T.data` (as
# Julia's: a later write to the parent is seen through it).
transpose(T::UpperTriangular) = LowerTriangular(transpose(T.data))
transpose(T::LowerTriangular) = UpperTriangular(transpose(T.data))
transpose(T::UnitUpperTriangular) = UnitLowerTriangular(transpose(T.data))
transpose(T::UnitLowerTriangular) = UnitUpperTriangular(transpose(T.data))
adjoint(T::Union{UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular}) = transpose(T)

# A zero on the diagonal: Julia's SingularException(k) (the first such `k`).
function _tri_nonsingular(T)
    if !_tri_unit(T)
        for k in 1:_tri_size(T)
            if T.data[k, k] == 0
                throw(SingularException(k))
            end
        end
    end
    return nothing
end

# `T \ b`: the solve of the dense triangle, which `\` does by substitution (forward for a
# lower, back for an upper triangle) as Julia's triangular `ldiv!` does; its gradient with
# respect to `T.data` is the triangle's part of the dense one.
function (\)(T::Union{UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular}, b::AbstractArray)
    _tri_nonsingular(T)
    return _triangular_matrix(T) \ b
end

(\)(T::Union{UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular}, S::Union{UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular}) = T \ _triangular_matrix(S)

# `inv(T)`: `T \ I`, a triangular matrix of the same kind.
function inv(T::Union{UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular})
    n = _tri_size(T)
    return _tri_like(T, T \ Matrix(1.0I, n, n))
end

# The arithmetic the inference hands `+`, `-`, `*` with a triangular operand to (as for
# `Diagonal`): two of one kind (or a number times one) keep the kind, as in Julia; the rest
# is the dense matrix's.
_triangular_plus(T::UpperTriangular, S::UpperTriangular) = UpperTriangular(_triangular_matrix(T) + _triangular_matrix(S))
_triangular_plus(T::LowerTriangular, S::LowerTriangular) = LowerTriangular(_triangular_matrix(T) + _triangular_matrix(S))
_triangular_plus(T, S) = _tri_dense(T) + _tri_dense(S)
_triangular_minus(T::UpperTriangular, S::UpperTriangular) = UpperTriangular(_triangular_matrix(T) - _triangular_matrix(S))
_triangular_minus(T::LowerTriangular, S::LowerTriangular) = LowerTriangular(_triangular_matrix(T) - _triangular_matrix(S))
_triangular_minus(T, S) = _tri_dense(T) - _tri_dense(S)
_triangular_times(a::Real, T::Union{UpperTriangular, LowerTriangular}) = _tri_like(T, a * _triangular_matrix(T))
_triangular_times(T::Union{UpperTriangular, LowerTriangular}, a::Real) = _tri_like(T, _triangular_matrix(T) * a)
_triangular_times(T, S) = _tri_dense(T) * _tri_dense(S)
_tri_dense(T::Union{UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular}) = _triangular_matrix(T)
_tri_dense(x) = x

"""
    ldiv!(F, B), ldiv!(Y, F, B)

`F \\ B` of a factorization (`lu`, `qr`, `cholesky`), a triangular or a diagonal matrix,
written into `B` (or `Y`), which it returns.
"""
ldiv!(F::Union{LU, QR, Cholesky, Diagonal, UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular}, B::AbstractVecOrMat) = copyto!(B, F \ B)
ldiv!(Y::AbstractVecOrMat, F::Union{LU, QR, Cholesky, Diagonal, UpperTriangular, LowerTriangular, UnitUpperTriangular, UnitLowerTriangular}, B::AbstractVecOrMat) = copyto!(Y, F \ B)
export ldiv!

# ---- Hessenberg, LDLt of a SymTridiagonal, factorize ------------------------------------------

export hessenberg, Hessenberg, UpperHessenberg, ldlt, LDLt, factorize, schur, Schur, GeneralizedEigen

"""
    Schur{S, C}

The real Schur form `A = F.Z * F.T * F.Z'`: `F.T` quasi-upper-triangular (a 2×2 block on its
diagonal for each complex pair of eigenvalues, in LAPACK's standard form: equal diagonal and
`T[k, k+1] * T[k+1, k] < 0`; upper triangular where the eigenvalues are real), `F.Z`
orthogonal, `F.values` the eigenvalues in `F.T`'s diagonal order (a complex pair with its
positive imaginary part first), a `Vector{Float64}` when every one is real and a
`Vector{ComplexF64}` otherwise, as Julia's. `T, Z, vals = F` destructures it.
"""
struct Schur{S, C}
    T::S
    Z::S
    values::C
end

"""
    schur(A)

The real Schur form of a square real matrix: faer's Householder reduction to Hessenberg form,
then Francis double-shift QR steps, each converged 2×2 block standardised as LAPACK's `dlanv2`
(so `F.T`'s blocks are LAPACK's; `F.Z`'s columns, fixed only up to sign, may differ from
Julia's). Zygote has no rule for it: a gradient through it is refused by name, as is `schur`
of a complex matrix.
"""
schur(A::AbstractMatrix) = _schur_of(_schur_parts(_square_float(A))...)
schur(A::AbstractMatrix{<:Complex}) = error("unsupported: `schur` of a complex matrix (the complex Schur form) is not in zy; `eigvals(A)` gives its eigenvalues")

function _schur_parts(A::Matrix{Float64})
    n = size(A, 1)
    P = _schur(A)
    return P[:, 1:n], P[:, (n + 1):(2n)], P[:, 2n + 1], P[:, 2n + 2]
end

# Julia's values are complex when one of them is (a type decided by the values).
function _schur_of(T, Z, re, im)
    all(iszero, im) && return Schur(T, Z, re)
    return Schur(T, Z, [complex(re[k], im[k]) for k in 1:length(re)])
end

const _SCHUR = "`schur` (neither ChainRules nor Zygote has one)"
function rrule(::typeof(_schur_parts), A::Matrix{Float64})
    schur_pullback(ȳ) = (NoTangent(), _refused_gradient(_SCHUR, A))
    return _schur_parts(A), schur_pullback
end
function frule(Δ, ::typeof(_schur_parts), A::Matrix{Float64})
    T, Z, re, im = _schur_parts(A)
    return (T, Z, re, im), (_refused_gradient(_SCHUR, T), _refused_gradient(_SCHUR, Z), zero(re), zero(im))
end

"""
    GeneralizedEigen{V, M}

The solution of the generalized eigenproblem `A * F.vectors = B * F.vectors * Diagonal(F.values)`:
`F.values` and `F.vectors` as `Eigen`'s. `λ, V = F` destructures it.
"""
struct GeneralizedEigen{V, M}
    values::V
    vectors::M
end

"""
    eigen(A, B), eigvals(A, B)

The generalized eigenproblem `A v = λ B v`. Of a symmetric `A` and a symmetric positive definite
`B` (both `Symmetric` or `Hermitian`, as LAPACK's `sygvd`, or plain matrices that are, as
Julia's test before `ggev`): `B = L Lᵀ` by Cholesky, the symmetric eigenproblem of
`C = L⁻¹ A L⁻ᵀ`, and `V = L⁻ᵀ U`, so the values are real and ascending and `Vᵀ B V = I` (each
vector's sign is `U`'s, whose entry of largest magnitude is positive; LAPACK's may be the
other); `Symmetric`/`Hermitian` arguments with a `B` that is not positive definite are
Cholesky's `PosDefException`. The gradient flows through the Cholesky factor, the solves and
the symmetric eigendecomposition: `λ̇ₖ = vₖᵀ (Ȧ - λₖ Ḃ) vₖ`. Of any other pencil with `B`
nonsingular, `eigvals(A, B)` is `eigvals(B \ A)` (Julia's `ggev` values, real or complex by
the values, sorted by `eigsortby`), differentiated as `eigvals` and the solve, and its `eigen`
the eigenvectors of `B \ A` scaled as `ggev` scales them (the largest `|re| + |im|` of each is
1; the sign or phase is `eigen`'s, LAPACK's may differ), differentiated as `eigen`. A singular
`B`, whose values Julia makes infinite or NaN, is refused by name.
"""
eigen(A::Union{Symmetric, Hermitian}, B::Union{Symmetric, Hermitian}; sortby = nothing) = _sorteig(GeneralizedEigen(_symmetric_generalized(_dense_pair(A, B)...)...), sortby)
eigvals(A::Union{Symmetric, Hermitian}, B::Union{Symmetric, Hermitian}; sortby = nothing) = _sorteig(_symmetric_generalized(_dense_pair(A, B)...)[1], sortby)
function eigen(A::AbstractMatrix, B::AbstractMatrix; sortby = eigsortby)
    Af, Bf = _dense_pair(A, B)
    _definite(Af, Bf) && return _sorteig(GeneralizedEigen(_symmetric_generalized(Af, Bf)...), sortby)
    iszero(det(Bf)) && error("unsupported: `eigen(A, B)` of a singular `B` (Julia's values are then infinite or NaN)")
    return _sorteig(_ggev_of(eigen(_solve_square(Bf, Af))), _ggev_order(sortby))
end
function eigvals(A::AbstractMatrix, B::AbstractMatrix; sortby = eigsortby)
    Af, Bf = _dense_pair(A, B)
    _definite(Af, Bf) && return _sorteig(_symmetric_generalized(Af, Bf)[1], sortby)
    iszero(det(Bf)) && error("unsupported: `eigvals(A, B)` of a singular `B` (Julia's values are then infinite or NaN)")
    return _sorteig(_eigvals_any(_solve_square(Bf, Af)), _ggev_order(sortby))
end

# `sortby` as for `eigen(A)`: `nothing` keeps `sygvd`'s ascending order of a symmetric-definite
# pencil, and `ggev`'s of another, which zy's solve does not reproduce (refused by name).
_sorted_values(F::GeneralizedEigen) = F.values
_permuted(F::GeneralizedEigen, p) = GeneralizedEigen(F.values[p], F.vectors[:, p])
_ggev_order(by) = by
_ggev_order(::Nothing) = error("unsupported: `sortby = nothing` of `eigen(A, B)`/`eigvals(A, B)` of a pencil that is not symmetric-definite (Julia keeps LAPACK's `ggev` order, which zy's solve does not reproduce); pass a `sortby` function")

# `eigen(B \ A)` as LAPACK's `ggev` scales its vectors: each divided by its largest
# `|re| + |im|`, which becomes 1 (the phase stays `eigen`'s: the entry of largest modulus real
# and positive).
function _ggev_of(F::Eigen)
    V = F.vectors
    n = size(V, 1)
    scale = [maximum(abs(real(V[i, j])) + abs(imag(V[i, j])) for i in 1:n) for j in 1:n]
    return GeneralizedEigen(F.values, V ./ permutedims(scale))
end

_definite(A::Matrix{Float64}, B::Matrix{Float64}) = issymmetric(A) && issymmetric(B) && isposdef(B)

function _dense_pair(A, B)
    Af = float(Matrix(_square_float(A)))
    Bf = float(Matrix(_square_float(B)))
    size(Af) == size(Bf) || throw(DimensionMismatch("dimensions of A, $(size(A)), and B, $(size(B)), must match"))
    return Af, Bf
end

function _symmetric_generalized(A::Matrix{Float64}, B::Matrix{Float64})
    L = tril(cholesky_lower(B))
    X = _solve_square(L, A)
    C = _transpose_copy(_solve_square(L, _transpose_copy(X)))
    λ, U = _symeigen(0.5 * (C + _transpose_copy(C)))
    return λ, _solve_square(_transpose_copy(L), U)
end

"""
    UpperHessenberg(A)

The upper Hessenberg matrix of `A`'s entries on and above its first subdiagonal (those below
read as zero; `A` is wrapped, not copied), as Julia's `UpperHessenberg{T, S}`: an
`AbstractMatrix` whose products, `Matrix(H)`, `sum` and broadcasting are the generic methods
over its elements. Writing a nonzero below the subdiagonal is Julia's `ArgumentError`.
"""
struct UpperHessenberg{T, S <: AbstractMatrix{T}} <: AbstractMatrix{T}
    data::S
    function UpperHessenberg(A::S) where {T, S <: AbstractMatrix{T}}
        size(A, 1) == size(A, 2) || throw(DimensionMismatch("matrix is not square: dimensions are $(size(A))"))
        return new{T, S}(A)
    end
end

size(H::UpperHessenberg) = size(H.data)
parent(H::UpperHessenberg) = H.data
Base.summary(H::UpperHessenberg) = Base._array_summary(H)

function getindex(H::UpperHessenberg, i::Int, j::Int)
    _band_checkbounds(H, i, j)
    return i <= j + 1 ? H.data[i, j] : zero(eltype(H.data))
end

function setindex!(H::UpperHessenberg, x, i::Int, j::Int)
    if i > j + 1
        iszero(x) || throw(ArgumentError("cannot set index in the lower triangular part ($i, $j) of an UpperHessenberg matrix to a nonzero value ($x)"))
    else
        H.data[i, j] = x
    end
    return x
end

"""
    LinearAlgebra.AbstractQ{T}

An orthogonal operator that is not an `AbstractMatrix`, as Julia's: it multiplies vectors and
matrices (`Q * x`, `Q' * x`, `A * Q`), `Matrix(Q)` is its dense matrix, `Q[i, j]` an entry.
"""
abstract type AbstractQ{T} end

"""
    LinearAlgebra.HessenbergQ

The orthogonal `Q` of a Hessenberg decomposition (`hessenberg(A).Q`), Julia's
`HessenbergQ{Float64, Matrix{Float64}, Vector{Float64}, false}`. Julia keeps LAPACK's
reflectors and applies them; zy keeps the orthogonal matrix they make (`matrix`), so products
and `Matrix(Q)` are the same numbers to rounding.
"""
struct HessenbergQ{S <: AbstractMatrix{Float64}} <: AbstractQ{Float64}
    matrix::S
end

"""
    LinearAlgebra.AdjointQ

`Q'` (and `transpose(Q)`) of a real `AbstractQ`, as Julia's `AdjointQ{T, Q}`: `Q' * x` applies
`Qᵀ`, and `(Q')'` is `Q`.
"""
struct AdjointQ{S <: AbstractQ{Float64}} <: AbstractQ{Float64}
    Q::S
end

# The dense matrix each operator applies.
_q_dense(Q::HessenbergQ) = Q.matrix
_q_dense(Q::AdjointQ) = _transpose_copy(_q_dense(Q.Q))
# `Matrix(Q)` (inference hands it here): a new dense matrix.
_q_matrix(Q::AbstractQ) = copy(_q_dense(Q))

size(Q::AbstractQ) = size(_q_dense(Q))
size(Q::AbstractQ, d::Int) = size(_q_dense(Q), d)
adjoint(Q::HessenbergQ) = AdjointQ(Q)
transpose(Q::HessenbergQ) = AdjointQ(Q)
adjoint(Q::AdjointQ) = Q.Q
transpose(Q::AdjointQ) = Q.Q
inv(Q::AbstractQ) = Q'
getindex(Q::AbstractQ, i::Int, j::Int) = _q_dense(Q)[i, j]
# Julia's: its size and type (`3×3 LinearAlgebra.HessenbergQ{...}`).
Base.summary(Q::AbstractQ) = Base._array_summary(Q)

function *(Q::AbstractQ, B::AbstractVecOrMat)
    size(Q, 2) == size(B, 1) || throw(DimensionMismatch("second dimension of Q, $(size(Q, 2)), must coincide with first dimension of B, $(size(B, 1))"))
    return _q_dense(Q) * B
end
function *(A::AbstractMatrix, Q::AbstractQ)
    size(A, 2) == size(Q, 1) || throw(DimensionMismatch("second dimension of A, $(size(A, 2)), must coincide with first dimension of Q, $(size(Q, 1))"))
    return A * _q_dense(Q)
end
*(Q::AbstractQ, P::AbstractQ) = Q * _q_matrix(P)
*(Q::AbstractQ, b::Number) = _q_dense(Q) * b
*(a::Number, Q::AbstractQ) = a * _q_dense(Q)
# Division by an orthogonal `Q` is a product with `Q'`.
(\)(Q::AbstractQ, B::AbstractVecOrMat) = Q' * B
# Compared as their matrices, as Julia's.
==(Q::AbstractQ, A::AbstractMatrix) = _q_dense(Q) == A
==(A::AbstractMatrix, Q::AbstractQ) = Q == A
==(Q::AbstractQ, P::AbstractQ) = _q_dense(Q) == _q_dense(P)
isapprox(Q::AbstractQ, A::AbstractMatrix; atol::Real = 0.0,
         rtol::Real = Base._default_rtol(atol)) = isapprox(_q_dense(Q), A; atol = atol, rtol = rtol)
isapprox(A::AbstractMatrix, Q::AbstractQ; atol::Real = 0.0,
         rtol::Real = Base._default_rtol(atol)) = isapprox(Q, A; atol = atol, rtol = rtol)

"""
    Hessenberg{QT, SH}

The Hessenberg decomposition `A = F.Q * F.H * F.Q'`: `F.H` an `UpperHessenberg` (zero below its
subdiagonal) and `F.Q` a `HessenbergQ`, as Julia's, with the shift `F.μ = false`. It prints as
Julia's `Hessenberg{Float64, UpperHessenberg{Float64, Matrix{Float64}}, Matrix{Float64},
Vector{Float64}, Bool}`, and iterates as Julia's: `Q, H = F` (then `μ`).
"""
struct Hessenberg{QT, SH}
    Q::QT
    H::SH
    μ::Bool
end

"""
    hessenberg(A)

The Hessenberg decomposition of a square real matrix by faer's Householder reflections, with
LAPACK's signs (each reflection maps its column onto `-sign(x₁) ‖x‖ e₁`, as Julia's `gehrd!`).
ChainRules has no rule for it; zy's differentiates `A = Q H Qᵀ` with `Q e₁ = e₁` (both modes),
where `H` has no zero on its subdiagonal (elsewhere refused by name).
"""
hessenberg(A::AbstractMatrix) = (HQ = _hessenberg_parts(_square_float(A)); Hessenberg(HessenbergQ(HQ[2]), UpperHessenberg(HQ[1]), false))

function _hessenberg_parts(A::Matrix{Float64})
    n = size(A, 1)
    HQ = _hessenberg(A)
    return HQ[:, 1:n], HQ[:, (n + 1):(2n)]
end

# The derivative of `A = Q H Qᵀ` with `Q e₁ = e₁` and `H` unreduced (the implicit Q theorem
# makes them unique, and smooth in `A`): with `C = Qᵀ Ȧ Q`, `Q̇ = Q Ω` for the antisymmetric `Ω`
# with a zero first column that keeps `Ḣ = C + H Ω - Ω H` zero below its subdiagonal, found a
# column at a time (`_hessenberg_omega`, dividing by `H`'s subdiagonal); the rrule is its
# adjoint, the recurrence run backwards. ChainRules has none; a zero on the subdiagonal (a
# reduced `H`, where `Q` is not unique) is refused by name.
function frule(Δ, ::typeof(_hessenberg_parts), A::Matrix{Float64})
    H, Q = _hessenberg_parts(A)
    n = size(A, 1)
    C = _transpose_copy(Q) * Δ[2] * Q
    Ω = _hessenberg_omega(H, C)
    Ḣ = C + H * Ω - Ω * H
    return (H, Q), ([i > j + 1 ? 0.0 : Ḣ[i, j] for i in 1:n, j in 1:n], Q * Ω)
end

function _hessenberg_omega(H, C)
    n = size(H, 1)
    _unreduced(H)
    Ω = zeros(n, n)
    for j in 1:(n - 2), i in (j + 2):n
        s = C[i, j]
        for k in (i - 1):n
            s += H[i, k] * Ω[k, j]
        end
        for k in 1:j
            s -= Ω[i, k] * H[k, j]
        end
        Ω[i, j + 1] = s / H[j + 1, j]
        Ω[j + 1, i] = -Ω[i, j + 1]
    end
    return Ω
end

function _unreduced(H)
    for j in 1:(size(H, 1) - 2)
        H[j + 1, j] == 0.0 && error("unsupported: no gradient rule for `hessenberg` of a matrix whose Hessenberg form has a zero subdiagonal entry (H[$(j + 1), $j]): its Q is not unique there")
    end
    return nothing
end

function rrule(::typeof(_hessenberg_parts), A::Matrix{Float64})
    H, Q = _hessenberg_parts(A)
    hessenberg_pullback(ȳ) = (NoTangent(), _hessenberg_cotangent(H, Q, _cotangent(ȳ[1], H), _cotangent(ȳ[2], Q)))
    return (H, Q), hessenberg_pullback
end

# The adjoint of the frule: `H̄`'s band is `C̄`'s part and `Hᵀ H̄ - H̄ Hᵀ + Qᵀ Q̄` is `Ω̄`, carried
# to `Ω`'s entries below the diagonal (`L̄ᵢⱼ = Ω̄ᵢⱼ - Ω̄ⱼᵢ`), then back through the recurrence
# (last column first) into `C̄`; `Ā = Q C̄ Qᵀ`.
function _hessenberg_cotangent(H, Q, H̄, Q̄)
    n = size(H, 1)
    _unreduced(H)
    band = [i > j + 1 ? 0.0 : H̄[i, j] for i in 1:n, j in 1:n]
    C̄ = copy(band)
    Ω̄ = _transpose_copy(H) * band - band * _transpose_copy(H) + _transpose_copy(Q) * Q̄
    L̄ = [i > j ? Ω̄[i, j] - Ω̄[j, i] : 0.0 for i in 1:n, j in 1:n]
    for j in (n - 2):-1:1, i in (j + 2):n
        g = L̄[i, j + 1] / H[j + 1, j]
        C̄[i, j] += g
        for k in (i - 1):n
            if k > j
                L̄[k, j] += g * H[i, k]
            elseif k < j
                L̄[j, k] -= g * H[i, k]
            end
        end
        for k in 1:j
            L̄[i, k] -= g * H[k, j]
        end
    end
    return Q * C̄ * _transpose_copy(Q)
end

"""
    LDLt{S, V, D, B}

`S = L D Lᵀ` of a `SymTridiagonal` `S`: `F.L` unit lower bidiagonal, `F.D` diagonal with `F.d`
on it, `F.Lt` the transpose of `F.L`, `F.data` the factored `SymTridiagonal` (Julia keeps only
`F.data` and makes the others when read; here they are fields). `F \\ b` solves by them.
"""
struct LDLt{S, V, D, B}
    data::S
    d::V
    D::D
    L::B
    Lt::B
end

"""
    ldlt(S::SymTridiagonal)

The `L D Lᵀ` factorization of a symmetric tridiagonal matrix without pivoting, as Julia's
`ldlt!`: `lᵢ = eᵢ / dᵢ`, `dᵢ₊₁ -= lᵢ² dᵢ`, a `ZeroPivotException` at a zero pivot. Julia has
`ldlt` only for `SymTridiagonal` (and sparse) matrices: a dense matrix is a `MethodError`.
Differentiated through its arithmetic.
"""
function ldlt(S::SymTridiagonal)
    n = length(S.dv)
    d = [Float64(x) for x in S.dv]
    e = [Float64(S.ev[i]) for i in 1:(n - 1)]
    for i in 1:(n - 1)
        iszero(d[i]) && throw(ZeroPivotException(i))
        e[i] /= d[i]
        d[i + 1] -= e[i]^2 * d[i]
    end
    return LDLt(SymTridiagonal(d, e), d, Diagonal(d), Bidiagonal(ones(n), e, :L), Bidiagonal(ones(n), e, :U))
end

# `F \ b`: forward substitution by `L`, division by `D`, back substitution by `Lᵀ`, one
# right-hand side column at a time (Julia's `ldiv!` of an `LDLt{<:Any, <:SymTridiagonal}`).
(\)(F::LDLt, b::AbstractVector) = _ldlt_solve(F.d, F.L.ev, b)
(\)(F::LDLt, B::AbstractMatrix) = reduce(hcat, [_ldlt_solve(F.d, F.L.ev, B[:, j]) for j in 1:size(B, 2)])
function _ldlt_solve(d, l, b)
    n = length(d)
    length(b) == n || throw(DimensionMismatch("right hand side has $(length(b)) rows, but the matrix has $n"))
    x = [Float64(v) for v in b]
    for j in 2:n
        x[j] -= l[j - 1] * x[j - 1]
    end
    x[n] /= d[n]
    for j in (n - 1):-1:1
        x[j] = x[j] / d[j] - l[j] * x[j + 1]
    end
    return x
end
det(F::LDLt) = prod(F.d)

# A bidiagonal matrix is triangular: its solve is the dense triangular substitution, the
# same arithmetic as Julia's bidiagonal one.
(\)(B::Bidiagonal, b::AbstractVecOrMat) = Matrix(B) \ b

"""
    factorize(A)

Julia's choice of factorization by the structure of the square matrix `A`: a 1×1 matrix its
entry, a diagonal one `Diagonal`, a bidiagonal one `Bidiagonal`, a triangular one its
`LowerTriangular` or `UpperTriangular` wrapper, a symmetric positive definite one its
`cholesky`, any other `lu` (of a tridiagonal matrix Julia's `lu` of a `Tridiagonal`, here of
the dense matrix: the same solve). So `factorize(A) \\ b == A \\ b`, and the gradient flows
through the factorization chosen. Julia's Bunch–Kaufman factorization of a symmetric matrix
that is not positive definite, and its pivoted QR of a matrix that is not square, are refused
by name.
"""
function factorize(A::AbstractMatrix)
    m, n = size(A)
    m == n || error("unsupported: `factorize` of a matrix that is not square (Julia's pivoted QR, `qr(A, ColumnNorm())`); `qr(A) \\ b` solves the least-squares problem")
    m == 1 && return A[1]
    utri = true
    utri1 = true
    sym = true
    for j in 1:(n - 1), i in (j + 1):m
        if utri1 && A[i, j] != 0
            utri1 = i == j + 1
            utri = false
        end
        sym = sym && A[i, j] == A[j, i]
    end
    ltri = true
    ltri1 = true
    for j in 3:n, i in 1:(j - 2)
        ltri1 = ltri1 && A[i, j] == 0
    end
    if ltri1
        for i in 1:(n - 1)
            ltri = ltri && A[i, i + 1] == 0
        end
    end
    return _factorize(A, utri, utri1, ltri, ltri1, sym)
end

function _factorize(A, utri, utri1, ltri, ltri1, sym)
    if ltri1 && ltri && utri
        return Diagonal(A)
    elseif ltri1 && ltri && utri1
        return Bidiagonal(diag(A), diag(A, -1), :L)
    elseif ltri1 && ltri
        return LowerTriangular(A)
    elseif ltri1 && utri
        return Bidiagonal(diag(A), diag(A, 1), :U)
    elseif ltri1 && utri1
        return lu(A)
    elseif utri
        return UpperTriangular(A)
    elseif sym
        isposdef(A) || error("unsupported: `factorize` of a symmetric matrix that is not positive definite (Julia's Bunch-Kaufman factorization, `bunchkaufman`)")
        return cholesky(A)
    end
    return lu(A)
end
