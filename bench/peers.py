"""Times the AD peers on the benchmarks of one table and prints JSON for zy-bench.

Usage: ``peers.py [table2|workloads]`` (default ``table2``): the paper's Table 2, or the
workloads table.

JAX: ``jax.jit(jax.grad(f))`` (and ``jax.jit(f)`` for the forward time), compiled and warmed
up before timing. PyTorch: eager mode, the forward plus ``backward()`` (and the forward under
``torch.no_grad()``). Float64 and one thread for both, as zy runs. Each function is written as
a user of that framework writes it. The inputs are generated exactly as the fixtures under
``fixtures/table2`` and ``fixtures/workloads`` generate them (1-based indices), and each
function's value is checked against the value zy computes.

Output: ``{"jax": {KEY: {"forward_ns": F, "grad_ns": G}, ...} | null, "torch": ... | null,
"notes": [...]}``. A peer that is not installed is ``null`` with a note.
"""

import json
import math
import os
import statistics
import sys
import time

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402  (after the thread settings)

BATCH_S = 0.010
BATCHES = 21
WARM_UP_S = 0.05

# The values of the benchmark calls: the fixtures' `# expect eval:` lines (fixtures/table2,
# fixtures/workloads), and for gp_cholesky, whose fixture is checked at a smaller size, the value
# zy and numpy's Cholesky agree on (to 1e-14) at n = 200.
EXPECTED = {
    "sincos": 0.5143952585235492,
    "loop": 2.7169239322355985,
    "logsumexp": 7.144468742178754,
    "logistic_regression": 0.7667141253967636,
    "mlp": 2.318519599961533,
    "rosenbrock": 2540516.0,
    "rosenbrock_slices": 2540516.0,
    "rk4": 0.3850247249755993,
    "mlp_batch": 1.0122022731493452,
    "gp_cholesky": 13.325041434336498,
    "tree_sum": -0.13026955034508836,
}


def clock():
    """The process's CPU time in seconds (all threads), as zy-bench measures: on a shared
    machine the wall clock also counts waiting to be scheduled."""
    return time.process_time()


def median_ns(f):
    """Median time of one call of f over BATCHES batches of about BATCH_S each, after warm-up."""
    start = clock()
    calls = 0
    while calls < 3 or clock() - start < WARM_UP_S:
        f()
        calls += 1
    per_call = max(clock() - start, 1e-9) / calls
    batch = max(1, math.ceil(BATCH_S / per_call))
    samples = []
    for _ in range(BATCHES):
        t = clock()
        for _ in range(batch):
            f()
        samples.append((clock() - t) * 1e9 / batch)
    return statistics.median(samples)


def table2_inputs():
    """Table 2's inputs as the fixtures build them, as float64 numpy arrays."""
    i = np.arange(1, 1001, dtype=np.float64)
    lse_x = np.sin(i)
    n, d = 100, 10
    ii = np.arange(1, n + 1, dtype=np.float64)[:, None]
    jj = np.arange(1, d + 1, dtype=np.float64)[None, :]
    log_x = np.sin(0.1 * ii * jj + 0.3 * jj)
    log_y = np.where(np.arange(1, n + 1) % 3 == 0, 1.0, -1.0)
    log_w = np.array([0.1, -0.2, 0.3, -0.4, 0.5, -0.1, 0.2, -0.3, 0.4, -0.5])
    r = np.arange(1, 129)
    c = np.arange(1, 785)
    k = np.arange(1, 11)
    w1 = 0.01 * np.sin((r[:, None] * c[None, :]).astype(np.float64))
    b1 = 0.01 * np.cos(r.astype(np.float64))
    w2 = 0.1 * np.cos((k[:, None] * r[None, :]).astype(np.float64))
    b2 = np.zeros(10)
    x = 0.5 + 0.5 * np.sin(0.1 * c.astype(np.float64))
    return {
        "sincos": ([1.0], []),
        "loop": ([1.001], [1000]),
        "logsumexp": ([lse_x], []),
        "logistic_regression": ([log_w, log_x, log_y], []),
        "mlp": ([w1, b1, w2, b2, x], [3]),
    }


def workloads_inputs():
    """The workloads' inputs as the fixtures under fixtures/workloads build them."""
    i = np.arange(1, 10001)
    rosenbrock_x = np.where(i % 2 == 1, -1.2, 1.0)

    def weights(m, n, s, p):
        return s * np.sin(np.arange(1, m + 1)[:, None] * np.arange(1, n + 1)[None, :] + p)

    def bias(m, s):
        return s * np.cos(np.arange(1, m + 1, dtype=np.float64))

    j = np.arange(1, 785)[:, None]
    k = np.arange(1, 65)[None, :]
    mlp_x = 0.5 + 0.5 * np.sin(0.1 * j + 0.3 * k)
    mlp_y = np.zeros((10, 64))
    for col in range(1, 65):
        mlp_y[col % 10, col - 1] = 1.0
    g = np.arange(1, 201, dtype=np.float64)
    gp_x = 0.05 * g
    gp_y = np.sin(0.05 * g) + 0.1 * np.sin(7.3 * g)
    tree_x = np.cos(np.arange(1, 1025, dtype=np.float64))
    return {
        "rosenbrock": ([rosenbrock_x], []),
        "rosenbrock_slices": ([rosenbrock_x], []),
        # The state tuple (x0, v0) as one array of two.
        "rk4": ([0.1, np.array([1.0, 0.0]), 0.01], [1000]),
        "mlp_batch": ([weights(128, 784, 0.01, 0.0), bias(128, 0.01), weights(10, 128, 0.1, 0.5), bias(10, 0.1), mlp_x, mlp_y], []),
        "gp_cholesky": ([0.0, 0.0, -1.0, gp_x, gp_y], []),
        "tree_sum": ([tree_x], []),
    }


def check(notes, peer, key, value):
    want = EXPECTED[key]
    if abs(value - want) > 1e-12 * max(1.0, abs(want)):
        notes.append(f"{peer}: {key} computes {value!r}, zy's fixture expects {want!r}")


def jax_table2(jax, jnp, lax):
    """Table 2 in JAX."""

    def sin_cos(x):
        return jnp.sin(jnp.cos(x))

    def pow_(x, n):
        return lax.fori_loop(0, n, lambda _, r: r * x, jnp.float64(1.0))

    def logsumexp(x):
        m = jnp.max(x)
        return m + jnp.log(jnp.sum(jnp.exp(x - m)))

    def logistic(w, xs, y):
        z = xs @ w
        return jnp.sum(jnp.log1p(jnp.exp(-(y * z)))) / y.shape[0]

    def mlp(w1, b1, w2, b2, x, label):
        h = jnp.tanh(w1 @ x + b1)
        z = w2 @ h + b2
        m = jnp.max(z)
        return m + jnp.log(jnp.sum(jnp.exp(z - m))) - z[label - 1]

    return {"sincos": sin_cos, "loop": pow_, "logsumexp": logsumexp, "logistic_regression": logistic, "mlp": mlp}


def jax_workloads(jax, jnp, lax):
    """The workloads in JAX, as its users write them: whole-array operations, lax loops."""
    from jax.scipy.linalg import solve_triangular

    def rosenbrock(x):
        return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)

    def simulate(c, u0, h, n):
        def f(u):
            return jnp.array([u[1], -u[0] - c * u[1]])

        def step(_, u):
            k1 = f(u)
            k2 = f(u + h / 2 * k1)
            k3 = f(u + h / 2 * k2)
            k4 = f(u + h * k3)
            return u + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

        u = lax.fori_loop(0, n, step, u0)
        return u[0] ** 2 + u[1] ** 2

    def mlp_batch(w1, b1, w2, b2, x, y):
        h = jnp.tanh(w1 @ x + b1[:, None])
        z = w2 @ h + b2[:, None]
        return jnp.sum((z - y) ** 2) / x.shape[1]

    def gp_nll(log_l, log_sf, log_sn, x, y):
        d = x[:, None] - x[None, :]
        k = jnp.exp(2 * log_sf) * jnp.exp(-(d**2) / (2 * jnp.exp(2 * log_l))) + jnp.exp(2 * log_sn) * jnp.eye(x.shape[0])
        chol = jnp.linalg.cholesky(k)
        z = solve_triangular(chol, y, lower=True)
        return (z @ z + 2 * jnp.sum(jnp.log(jnp.diag(chol))) + x.shape[0] * jnp.log(2 * jnp.pi)) / 2

    def tree_sum(x):
        def tree(lo, hi):
            if lo == hi:
                return jnp.sin(x[lo])
            mid = (lo + hi) // 2
            return tree(lo, mid) + tree(mid + 1, hi)

        return tree(0, x.shape[0] - 1)

    return {"rosenbrock": rosenbrock, "rosenbrock_slices": rosenbrock, "rk4": simulate, "mlp_batch": mlp_batch, "gp_cholesky": gp_nll, "tree_sum": tree_sum}


def run_jax(table, data, notes):
    import jax
    import jax.numpy as jnp
    from jax import lax

    jax.config.update("jax_enable_x64", True)
    funcs = TABLES[table][1](jax, jnp, lax)
    out = {}
    for key, f in funcs.items():
        floats, statics = data[key]
        args = [jnp.asarray(a, dtype=jnp.float64) for a in floats] + statics
        static = tuple(range(len(floats), len(args)))
        diff = tuple(range(len(floats)))
        fwd = jax.jit(f, static_argnums=static)
        grad = jax.jit(jax.grad(f, argnums=diff), static_argnums=static)
        check(notes, "jax", key, float(fwd(*args)))
        jax.block_until_ready(grad(*args))
        out[key] = {
            "forward_ns": median_ns(lambda: jax.block_until_ready(fwd(*args))),
            "grad_ns": median_ns(lambda: jax.block_until_ready(grad(*args))),
        }
    return out, f"jax {jax.__version__}"


def torch_table2(torch):
    """Table 2 in PyTorch."""

    def sin_cos(x):
        return torch.sin(torch.cos(x))

    def pow_(x, n):
        r = torch.ones((), dtype=torch.float64)
        for _ in range(n):
            r = r * x
        return r

    def logsumexp(x):
        m = torch.max(x)
        return m + torch.log(torch.sum(torch.exp(x - m)))

    def logistic(w, xs, y):
        z = xs @ w
        return torch.sum(torch.log1p(torch.exp(-(y * z)))) / y.shape[0]

    def mlp(w1, b1, w2, b2, x, label):
        h = torch.tanh(w1 @ x + b1)
        z = w2 @ h + b2
        m = torch.max(z)
        return m + torch.log(torch.sum(torch.exp(z - m))) - z[label - 1]

    return {"sincos": sin_cos, "loop": pow_, "logsumexp": logsumexp, "logistic_regression": logistic, "mlp": mlp}


def torch_workloads(torch):
    """The workloads in PyTorch eager mode, as its users write them."""

    def rosenbrock(x):
        return torch.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)

    def simulate(c, u0, h, n):
        def f(u):
            return torch.stack([u[1], -u[0] - c * u[1]])

        u = u0
        for _ in range(n):
            k1 = f(u)
            k2 = f(u + h / 2 * k1)
            k3 = f(u + h / 2 * k2)
            k4 = f(u + h * k3)
            u = u + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        return u[0] ** 2 + u[1] ** 2

    def mlp_batch(w1, b1, w2, b2, x, y):
        h = torch.tanh(w1 @ x + b1[:, None])
        z = w2 @ h + b2[:, None]
        return torch.sum((z - y) ** 2) / x.shape[1]

    def gp_nll(log_l, log_sf, log_sn, x, y):
        d = x[:, None] - x[None, :]
        n = x.shape[0]
        k = torch.exp(2 * log_sf) * torch.exp(-(d**2) / (2 * torch.exp(2 * log_l))) + torch.exp(2 * log_sn) * torch.eye(n, dtype=torch.float64)
        chol = torch.linalg.cholesky(k)
        z = torch.linalg.solve_triangular(chol, y[:, None], upper=False)[:, 0]
        return (z @ z + 2 * torch.sum(torch.log(torch.diagonal(chol))) + n * math.log(2 * math.pi)) / 2

    def tree_sum(x):
        def tree(lo, hi):
            if lo == hi:
                return torch.sin(x[lo])
            mid = (lo + hi) // 2
            return tree(lo, mid) + tree(mid + 1, hi)

        return tree(0, x.shape[0] - 1)

    return {"rosenbrock": rosenbrock, "rosenbrock_slices": rosenbrock, "rk4": simulate, "mlp_batch": mlp_batch, "gp_cholesky": gp_nll, "tree_sum": tree_sum}


def run_torch(table, data, notes):
    import torch

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    funcs = TABLES[table][2](torch)
    out = {}
    for key, f in funcs.items():
        floats, statics = data[key]
        params = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in floats]
        args = params + statics

        def forward():
            with torch.no_grad():
                return f(*args)

        def gradient():
            for p in params:
                p.grad = None
            y = f(*args)
            y.backward()
            return y

        check(notes, "torch", key, float(forward()))
        out[key] = {"forward_ns": median_ns(forward), "grad_ns": median_ns(gradient)}
    return out, f"torch {torch.__version__}"


# Each table: its inputs, its JAX functions, its PyTorch functions.
TABLES = {
    "table2": (table2_inputs, jax_table2, torch_table2),
    "workloads": (workloads_inputs, jax_workloads, torch_workloads),
}


def main():
    table = sys.argv[1] if len(sys.argv) > 1 else "table2"
    if table not in TABLES:
        sys.exit(f"peers.py: no table {table!r} (one of {', '.join(TABLES)})")
    notes = []
    venv_notes = os.path.join(sys.prefix, "notes.txt")
    if os.path.exists(venv_notes):
        with open(venv_notes) as fh:
            notes.extend(line.strip() for line in fh if line.strip())
    data = TABLES[table][0]()
    result = {"jax": None, "torch": None}
    for name, run in (("jax", run_jax), ("torch", run_torch)):
        try:
            result[name], version = run(table, data, notes)
            notes.append(f"{version}, float64, one thread")
        except ImportError as e:
            if not any(n.startswith(name + ":") for n in notes):
                notes.append(f"{name}: not installed ({e})")
        except Exception as e:  # a peer that fails is reported, not fatal
            notes.append(f"{name}: failed: {type(e).__name__}: {e}")
    result["notes"] = notes
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
