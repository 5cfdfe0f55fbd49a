"""Times the AD peers on the five benchmarks of Table 2 and prints JSON for zy-bench.

JAX: ``jax.jit(jax.grad(f))`` (and ``jax.jit(f)`` for the forward time), compiled and warmed
up before timing. PyTorch: eager mode, the forward plus ``backward()`` (and the forward under
``torch.no_grad()``). Float64 and one thread for both, as zy runs. The inputs are generated
exactly as the fixtures under ``fixtures/table2`` generate them (1-based indices), and each
function's value is checked against the value the fixture expects.

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

# The values the fixtures expect (fixtures/table2/*.jl, `# expect eval:` lines).
EXPECTED = {
    "sincos": 0.5143952585235492,
    "loop": 2.7169239322355985,
    "logsumexp": 7.144468742178754,
    "logistic_regression": 0.7667141253967636,
    "mlp": 2.318519599961533,
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


def inputs():
    """The benchmark inputs as the fixtures build them, as float64 numpy arrays."""
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


def check(notes, peer, key, value):
    want = EXPECTED[key]
    if abs(value - want) > 1e-12 * max(1.0, abs(want)):
        notes.append(f"{peer}: {key} computes {value!r}, the fixture expects {want!r}")


def run_jax(data, notes):
    import jax
    import jax.numpy as jnp
    from jax import lax

    jax.config.update("jax_enable_x64", True)

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

    funcs = {"sincos": sin_cos, "loop": pow_, "logsumexp": logsumexp, "logistic_regression": logistic, "mlp": mlp}
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


def run_torch(data, notes):
    import torch

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)

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

    funcs = {"sincos": sin_cos, "loop": pow_, "logsumexp": logsumexp, "logistic_regression": logistic, "mlp": mlp}
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


def main():
    notes = []
    venv_notes = os.path.join(sys.prefix, "notes.txt")
    if os.path.exists(venv_notes):
        with open(venv_notes) as fh:
            notes.extend(line.strip() for line in fh if line.strip())
    data = inputs()
    result = {"jax": None, "torch": None}
    for name, run in (("jax", run_jax), ("torch", run_torch)):
        try:
            result[name], version = run(data, notes)
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
