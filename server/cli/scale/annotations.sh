#!/usr/bin/env bash
# How `zy-analyze check` scales with the number of `# zy: at` annotations in one file: files of
# N one-line functions, each specialised by its own annotation, once with calls that run and
# once with calls that throw (each reported where it throws). Prints the wall time per file;
# linear growth doubles it when N doubles.
#
#   server/cli/scale/annotations.sh [ZY_ANALYZE] [N...]   (default: target/release/zy-analyze
#                                                           1000 2000 4000 8000)
set -euo pipefail
cd "$(dirname "$0")/../../.."
bin="${1:-target/release/zy-analyze}"
shift || true
sizes="${*:-1000 2000 4000 8000}"
dir="target/check-annotations"
mkdir -p "$dir"
printf '%-8s %-10s %s\n' N calls "wall (s)"
for n in $sizes; do
    for kind in run throw; do
        file="$dir/$kind$n.jl"
        for ((i = 0; i < n; i++)); do
            if [[ $kind = run ]]; then body="x^2 + $i.0"; else body="sqrt(x - 2.0)"; fi
            printf '# zy: at f%d(1.0)\nf%d(x) = %s\n\n' "$i" "$i" "$body"
        done > "$file"
        start=$(date +%s.%N)
        "$bin" check "$file" --format short > /dev/null || true
        end=$(date +%s.%N)
        printf '%-8s %-10s %.2f\n' "$n" "$kind" "$(echo "$end - $start" | bc)"
    done
done
