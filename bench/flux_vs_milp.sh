#!/usr/bin/env bash
# `flux` against the exact scheduler on the MILP benchmark's instances (the
# paper's setup: Llama 3 8B, TP4 x DP2, 2 switches, 800 Gb/s; A100 layers
# 1-16 x tau 1us-1ms, H100 layers 1-4 x tau 10us, 1ms), side by side in one
# run. Prints a markdown table row per instance.
# Usage: bench/flux_vs_milp.sh BUILD_DIR [FLUX_LIMIT] [MILP_LIMIT]
#   e.g. bench/flux_vs_milp.sh build 60s 120s
set -euo pipefail
build=$1
flux_limit=${2:-60s}
milp_limit=${3:-120s}
flux=$build/apps/flux/flux
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
field() { awk -v k="$1" '$1 == k {print $3, $4}' "$2"; }
echo "| gpu | layers | tau | flux | flux status | flux time | flux-milp | flux-milp status | flux-milp gap | flux - milp |"
echo "|---|---|---|---|---|---|---|---|---|---|"
run() {  # gpu layers taus...
  local gpu=$1 layers=$2
  shift 2
  "$flux" generate llama3 --model 8b --layers "$layers" --tp 4 --dp 2 --gpu "$gpu" -o "$work/w.json" >/dev/null 2>&1
  for tau in "$@"; do
    "$flux" schedule "$work/w.json" --tau "$tau" --time-limit "$flux_limit" -o "$work/f.json" >"$work/f.out"
    "$flux" schedule "$work/w.json" --scheduler flux-milp --tau "$tau" --time-limit "$milp_limit" \
      -o "$work/m.json" >"$work/m.out"
    local fms mms
    fms=$(sed -nE 's/^ *"makespan_s": ([0-9.e+-]+),?$/\1/p' "$work/f.json")
    mms=$(sed -nE 's/^ *"makespan_s": ([0-9.e+-]+),?$/\1/p' "$work/m.json")
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$gpu" "$layers" "$tau" \
      "$(field iteration "$work/f.out" | awk '{print $1, $2}')" "$(awk '/^status/ {print $2}' "$work/f.out")" \
      "$(awk '/^solve time/ {print $3, $4}' "$work/f.out")" \
      "$(field iteration "$work/m.out")" "$(awk '/^status/ {print $2}' "$work/m.out")" \
      "$(sed -nE 's/^lower bound .*\(gap ([0-9.]+%)\)/\1/p' "$work/m.out")" \
      "$(awk -v a="$fms" -v b="$mms" 'BEGIN {printf "%+.3f%%", 100 * (a - b) / b}')"
  done
}
for layers in 1 2 4 8 16; do run a100 "$layers" 1us 10us 100us 1ms; done
for layers in 1 2 4; do run h100 "$layers" 10us 1ms; done
