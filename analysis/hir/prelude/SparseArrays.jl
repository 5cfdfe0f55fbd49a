# zy's prelude: the part of Julia's SparseArrays that zy defines in Julia, seen after `using
# SparseArrays` (its exports) or as `SparseArrays.name`. zy holds a sparse matrix dense: the
# builders give a `Matrix` with the values Julia's `SparseMatrixCSC` holds (every element, the
# structural zeros as zeros), so indexing, arithmetic and gradients agree with Julia's; what
# tells the two apart (`issparse`, `nnz`, `nonzeros`, `findnz`) is refused by name.

export spzeros, sparse, spdiagm, issparse, nnz, nonzeros, findnz

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
