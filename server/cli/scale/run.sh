#!/usr/bin/env bash
# The scale benchmark of `zy-analyze check`: a generated tree of 1,000 files of 100 lines each
# (100,000 lines: smooth functions, loops, arrays, structs, recursion, 9 `# zy: at` calls and
# one `# zy: gradcheck` per file), checked once with `--timings`.
#
#   server/cli/scale/run.sh [ZY_ANALYZE]   (default: target/debug/zy-analyze)
set -euo pipefail
cd "$(dirname "$0")/../../.."
bin="${1:-target/debug/zy-analyze}"
tree="target/check-scale"
rm -rf "$tree"
for d in $(seq 0 9); do
    mkdir -p "$tree/pkg$d"
    for f in $(seq 0 99); do
        i=$((d * 100 + f))
        c="$((i % 7 + 1)).$((i % 10))"
        cat > "$tree/pkg$d/m$f.jl" <<JULIA
# Generated module $i of the scale benchmark: nine functions specialised by `# zy: at`,
# one gradcheck, and helpers.

struct Layer$i
    w::Float64
    b::Float64
end

# zy: at affine$i(Layer$i($c, 0.5), 2.0)
function affine$i(l, x)
    y = l.w * x + l.b
    return tanh(y)
end

# zy: at poly$i(1.5, 4)
# zy: gradcheck poly$i(1.5, 4)
function poly$i(x, n)
    s = 0.0
    p = 1.0
    for k in 1:n
        p = p * x
        s += p / k
    end
    return s
end

# zy: at norm$i([1.0, $c, 3.0])
function norm$i(v)
    s = 0.0
    for k in 1:length(v)
        s += v[k]^2
    end
    return sqrt(s)
end

# zy: at soft$i([0.5, -1.0, $c])
function soft$i(v)
    m = maximum(v)
    z = sum(exp.(v .- m))
    return m + log(z)
end

# zy: at leaky$i(-$c)
leaky$i(x) = x > 0.0 ? x : 0.01 * x

# zy: at rpow$i($c, 5)
function rpow$i(x, n)
    if n == 0
        return 1.0
    end
    return x * rpow$i(x, n - 1)
end

# zy: at mix$i(0.3, $c)
function mix$i(a, b)
    t = sin(a) * cos(b)
    u = exp(-a * a) + log1p(b * b)
    if t > u
        return t - u
    else
        return u - t
    end
end

# zy: at newton$i($c)
function newton$i(a)
    x = a
    for k in 1:20
        x = 0.5 * (x + a / x)
    end
    return x
end

const SCALE$i = $c

function helper$i(x)
    y = x * SCALE$i
    z = y + 1.0
    return z * z
end

function chain$i(x)
    a = helper$i(x)
    b = helper$i(a)
    return a + b
end

function clamp$i(x, lo, hi)
    if x < lo
        return lo
    elseif x > hi
        return hi
    end
    return x
end

# zy: at twice$i($c)
function twice$i(x)
    return 2.0 * helper$i(x)
end
JULIA
    done
done
echo "generated $(find "$tree" -name '*.jl' | wc -l) files, $(cat "$tree"/*/*.jl | wc -l) lines"
start=$(date +%s.%N)
status=0
"$bin" check "$tree" --format short --timings > target/check-scale.out || status=$?
end=$(date +%s.%N)
echo "exit status $status, $(wc -l < target/check-scale.out) findings, wall $(echo "$end - $start" | bc) s"
