#!/usr/bin/env bash
# The exact scheduler on the paper's setup: Llama 3 8B, TP4 x DP2, 8 GPUs,
# 2 switches, 800 Gb/s; layers x tau. Prints a markdown table row per
# instance: model size, the greedy warm start, the result and its time.
# Usage: bench/milp_paper.sh BUILD_DIR [TIME_LIMIT] [GENERATE_FLAGS...]
#   e.g. bench/milp_paper.sh build 600s
#        LAYERS="1 2" TAUS="1ms" bench/milp_paper.sh build 120s --gpu h100
#        SCHED_FLAGS="--no-implied-pairs --no-symmetry --no-horizon --no-warm-start --no-bound" \
#          LAYERS=8 bench/milp_paper.sh build 60s        (the paper's plain model)
set -euo pipefail
build=$1
limit=${2:-600s}
shift 2 || shift $#
flux=$build/apps/flux/flux
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "| layers | tau | sends | columns (integer) | rows | greedy | CBC | result | status | gap | wall time |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for layers in ${LAYERS:-1 2 4 8 16}; do
  "$flux" generate llama3 --model 8b --layers "$layers" --tp 4 --dp 2 "$@" -o "$work/w.json" 2>/dev/null
  sends=$("$flux" info "$work/w.json" | awk '/^sends/ {print $2}')
  for tau in ${TAUS:-1us 10us 100us 1ms}; do
    start=$(date +%s.%N)
    "$flux" schedule "$work/w.json" --scheduler flux-milp --switches 2 --tau "$tau" \
      --time-limit "$limit" ${SCHED_FLAGS:-} -v -o "$work/s.json" >"$work/out" 2>"$work/err"
    end=$(date +%s.%N)
    model=$(grep -m1 '^flux-milp: ' "$work/err")
    cols=$(sed -E 's/^flux-milp: ([0-9]+) columns \(([0-9]+) integer\), ([0-9]+) rows.*/\1 (\2)/' <<<"$model")
    rows=$(sed -E 's/^flux-milp: [0-9]+ columns \([0-9]+ integer\), ([0-9]+) rows.*/\1/' <<<"$model")
    greedy=$(sed -E 's/.*greedy ([0-9.]+ [a-z]+),.*/\1/' <<<"$model")
    # CBC's own outcome, or "-" when the greedy schedule met the bound.
    cbc=$(sed -nE 's/^flux-milp: CBC ([a-z_]+)(, objective ([0-9.e+]+) ms)?.*/\1 \3 ms/p' "$work/err" | sed 's/  ms$//')
    result=$(awk '/^iteration time/ {print $3, $4}' "$work/out")
    status=$(awk '/^status/ {print $2}' "$work/out")
    gap=$(sed -nE 's/^lower bound .*\(gap ([0-9.]+%)\)/\1/p' "$work/out")
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.1f s |\n' "$layers" "$tau" "$sends" \
      "$cols" "$rows" "$greedy" "${cbc:--}" "$result" "$status" "$gap" "$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')"
  done
done
