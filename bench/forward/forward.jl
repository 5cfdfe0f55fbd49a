# The forward-mode rows of issue 15 (bench/forward/run): a Hessian-vector product of the
# Rosenbrock function, and the Jacobian of a 100 -> 100 dense layer, written as users write them.

# The chained Rosenbrock function, as fixtures/workloads/rosenbrock.jl writes it.
function rosenbrock(x)
    s = 0.0
    for i in 1:length(x)-1
        s += 100 * (x[i+1] - x[i]^2)^2 + (1 - x[i])^2
    end
    return s
end

# H(x) v by forward over reverse.
rosenbrock_hvp(x, v) = hvp(rosenbrock, x, v)

# Deterministic inputs, the same formulas as bench/peers.py's.
rosenbrock_x(n) = [i % 2 == 1 ? -1.2 : 1.0 for i in 1:n]
rosenbrock_v(n) = [sin(0.1 * i) for i in 1:n]

# One dense layer with tanh, and its Jacobian with respect to its input.
dense(W, b, x) = tanh.(W * x .+ b)
dense_jacobian(W, b, x) = jacobian(x -> dense(W, b, x), x)[1]

# The two ways of computing it one direction at a time: the prelude's forward mode (one
# pushforward per column, what `jacobian` runs here), and Zygote's reverse mode (one pullback,
# its `back` called once per row).
dense_jacobian_forward(W, b, x) = _jac_forward(t -> dense(W, b, t), 100, (), (), x)[1]
function dense_jacobian_reverse(W, b, x)
    y, back = pullback(t -> dense(W, b, t), x)
    J = zeros(length(y), length(x))
    for k in 1:length(y)
        e = zeros(length(y))
        e[k] = 1.0
        g = back(e)[1]
        for i in 1:length(x)
            J[k, i] = g[i]
        end
    end
    return J
end

# The same Jacobian written by hand, J = diag(1 - y²) W, as the two ways of pushing the unit
# directions through `dense` compute it: one product `W * eᵢ` per column (what forward mode
# does, without its tangents of the captured `W` and `b`), or all of them as one product
# `W * I` (what chunked tangents would do).
function dense_columns(W, b, x)
    d = 1.0 .- dense(W, b, x) .^ 2
    J = zeros(length(d), length(x))
    e = zeros(length(x))
    for i in 1:length(x)
        e[i] = 1.0
        c = d .* (W * e)
        e[i] = 0.0
        for k in 1:length(d)
            J[k, i] = c[k]
        end
    end
    return J
end

function dense_chunked(W, b, x)
    I = zeros(length(x), length(x))
    for i in 1:length(x)
        I[i, i] = 1.0
    end
    return (1.0 .- dense(W, b, x) .^ 2) .* (W * I)
end

# The same with the rows scaled by a loop instead of broadcasting the vector over the matrix.
function dense_chunked_loop(W, b, x)
    I = zeros(length(x), length(x))
    for i in 1:length(x)
        I[i, i] = 1.0
    end
    d = 1.0 .- dense(W, b, x) .^ 2
    J = W * I
    for i in 1:length(x)
        for k in 1:length(d)
            J[k, i] = d[k] * J[k, i]
        end
    end
    return J
end

# The products those are made of: a matrix-vector product per column or row, against the one
# matrix-matrix product a batched Jacobian needs.
dense_matvec(W, x) = W * x
dense_matmul(W, V) = W * V

dense_W(m, n) = [0.1 * sin(i + 2 * j) for i in 1:m, j in 1:n]
dense_b(m) = [0.01 * i for i in 1:m]
dense_x(n) = [cos(0.3 * i) for i in 1:n]
