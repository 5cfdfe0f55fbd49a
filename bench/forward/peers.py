"""Times JAX on the forward-mode rows of issue 15 and prints JSON for zy-bench-forward.

Usage: ``bench/forward/peers.py`` (run with the venv's Python; ``bench/forward/run --peers``
does). Rows, each jitted, compiled and warmed up before timing, float64, one thread:

- ``hvp_N`` (N = 1000, 10000): ``jax.jvp(jax.grad(f), (x,), (v,))[1]`` of the Rosenbrock function
  written with whole-array operations, and ``grad_N``: ``jax.grad(f)`` at the same point;
- ``jacfwd``, ``jacrev``: ``jax.jacfwd`` / ``jax.jacrev`` of ``tanh(W @ x + b)`` (100 -> 100);
- ``matvec``, ``matmul``: ``W @ x`` and ``W @ W`` (100 x 100), the products the Jacobian's two
  ways of computing are made of.

The inputs are bench/forward/forward.jl's, generated with the same formulas (1-based indices).
Output: ``{"jax": {KEY: {"ns": T, "sum": S}, ...} | null, "notes": [...]}``, where ``sum`` is the
sum of the result's entries, which zy-bench-forward compares with zy's.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from peers import median_ns  # noqa: E402  (bench/peers.py: the same timing, the thread settings)

import numpy as np  # noqa: E402


def inputs():
    """bench/forward/forward.jl's inputs."""
    def rosen_x(n):
        i = np.arange(1, n + 1)
        return np.where(i % 2 == 1, -1.2, 1.0)

    def rosen_v(n):
        return np.sin(0.1 * np.arange(1, n + 1))

    i = np.arange(1, 101)[:, None]
    j = np.arange(1, 101)[None, :]
    w = 0.1 * np.sin(i + 2 * j)
    b = 0.01 * np.arange(1, 101)
    x = np.cos(0.3 * np.arange(1, 101))
    return rosen_x, rosen_v, (w, b, x)


def run_jax():
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    rosen_x, rosen_v, (w, b, x) = inputs()

    def rosenbrock(x):
        return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)

    def hvp(x, v):
        return jax.jvp(jax.grad(rosenbrock), (x,), (v,))[1]

    def dense(x, w, b):
        return jnp.tanh(w @ x + b)

    out = {}

    def time(key, f, *args):
        args = [jnp.asarray(a, dtype=jnp.float64) for a in args]
        f = jax.jit(f)
        value = jax.block_until_ready(f(*args))
        out[key] = {
            "ns": median_ns(lambda: jax.block_until_ready(f(*args))),
            "sum": float(jnp.sum(value)),
        }

    for n in (1000, 10000):
        time(f"hvp_{n}", hvp, rosen_x(n), rosen_v(n))
        time(f"grad_{n}", jax.grad(rosenbrock), rosen_x(n))
    time("jacfwd", jax.jacfwd(dense), x, w, b)
    time("jacrev", jax.jacrev(dense), x, w, b)
    time("matvec", lambda w, x: w @ x, w, x)
    time("matmul", lambda w, v: w @ v, w, w)
    return out, f"jax {jax.__version__}"


def main():
    notes = []
    result = {"jax": None}
    try:
        result["jax"], version = run_jax()
        notes.append(f"{version}, float64, one thread")
    except ImportError as e:
        notes.append(f"jax: not installed ({e})")
    except Exception as e:  # a failing peer is reported, not fatal
        notes.append(f"jax: failed: {type(e).__name__}: {e}")
    result["notes"] = notes
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
