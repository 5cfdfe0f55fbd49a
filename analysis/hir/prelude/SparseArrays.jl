# zy's prelude: the part of Julia's SparseArrays that zy defines in Julia, seen after `using
# SparseArrays` (its exports) or as `SparseArrays.name`. zy holds a sparse matrix dense: the
# builders give a `Matrix` with the values Julia's `SparseMatrixCSC` holds (every element, the
# structural zeros as zeros), so indexing, arithmetic and gradients agree with Julia's; what
# tells the two apart (`issparse`, `nnz`, `nonzeros`, `findnz`) is refused by name.

export spzeros, sparse, sparsevec, spdiagm, dropzeros, dropzeros!, issparse, nnz, nonzeros, findnz

import LinearAlgebra: diagm

"""
    spzeros(T, m, n), spzeros(m, n), spzeros(T, n), spzeros(n)

An `m×n` matrix (or a vector of `n`) of zeros of type `T` (Float64 unless given).
"""
spzeros(::Type{T}, m::Int, n::Int) where {T} = zeros(T, m, n)
spzeros(m::Int, n::Int) = zeros(m, n)
spzeros(::Type{T}, n::Int) where {T} = zeros(T, n)
spzeros(n::Int) = zeros(n)

"""
    sparse(I, J, V, m, n), sparse(I, J, V), sparse(A)

The `m×n` matrix with `V[k]` at `(I[k], J[k])`, the values of repeated positions added (Julia's
default `combine`), zeros elsewhere; without `m, n` the largest indices. `sparse(A)` of a
matrix is a copy of it.
"""
function sparse(I::AbstractVector{Int}, J::AbstractVector{Int}, V::AbstractVector, m::Int, n::Int)
    if !(length(I) == length(J) == length(V))
        throw(ArgumentError("the lengths of I, J and V must match"))
    end
    A = fill(zero(eltype(V)), m, n)
    for k in 1:length(I)
        if !(1 <= I[k] <= m)
            throw(ArgumentError("row indices I[k] must satisfy 1 <= I[k] <= m"))
        end
        if !(1 <= J[k] <= n)
            throw(ArgumentError("column indices J[k] must satisfy 1 <= J[k] <= n"))
        end
        A[I[k], J[k]] += V[k]
    end
    return A
end
sparse(I::AbstractVector{Int}, J::AbstractVector{Int}, V::AbstractVector) =
    sparse(I, J, V, maximum(I), maximum(J))
sparse(A::AbstractMatrix) = copy(A)
sparse(v::AbstractVector) = copy(v)

"""
    sparsevec(I, V, n), sparsevec(I, V), sparsevec(A)

The vector of length `n` with `V[k]` at `I[k]`, the values of repeated indices added (`|` of
Bools, Julia's default `combine`), zeros elsewhere; without `n` the largest index.
`sparsevec(A)` of an array is a copy of its elements as a vector.
"""
function sparsevec(I::AbstractVector{Int}, V::AbstractVector, n::Int)
    length(I) == length(V) || throw(ArgumentError("index and value vectors must be the same length"))
    for i in I
        1 <= i <= n || throw(ArgumentError("An index is out of bound."))
    end
    v = fill(_sparse_zero(V), n)
    for k in 1:length(I)
        v[I[k]] = _sparse_combine(v[I[k]], V[k])
    end
    return v
end
function sparsevec(I::AbstractVector{Int}, V::AbstractVector)
    length(I) == length(V) || throw(ArgumentError("index and value vectors must be the same length"))
    n = 0
    for i in I
        i >= 1 || error("Index must be positive.")
        n = max(n, i)
    end
    return sparsevec(I, V, n)
end
sparsevec(A::AbstractArray) = copy(vec(A))

_sparse_combine(a::Bool, b::Bool) = a | b
_sparse_combine(a, b) = a + b
_sparse_zero(V::AbstractVector{Bool}) = false
_sparse_zero(V::AbstractVector) = zero(eltype(V))

"""
    dropzeros(A), dropzeros!(A)

`A` without its stored zeros: zy stores every element, so a copy of `A` (`dropzeros!` returns
`A` itself).
"""
dropzeros(A::AbstractArray) = copy(A)
dropzeros!(A::AbstractArray) = A

"""
    spdiagm(k => v, ...)

The matrix with `v` on its `k`-th diagonal, as `diagm` (LinearAlgebra) builds it.
"""
spdiagm(kv::Pair...) = diagm(kv...)

issparse(A) = _dense_sparse("issparse")
nnz(A) = _dense_sparse("nnz")
nonzeros(A) = _dense_sparse("nonzeros")
findnz(A) = _dense_sparse("findnz")

_dense_sparse(f::String) = error("unsupported: `$f` of a sparse matrix (zy holds sparse matrices dense, so their stored entries are not known)")
