#!/usr/bin/env bash
# Online MoE scheduling's decision time (docs/model.md, "Online MoE
# scheduling"; docs/benchmarks.md): the DeepSeek-V3-like job (8 layers, PP4
# x DP64, EP16 across two 8-GPU servers, 4 micro-batches) planned by flux for
# the uniform routing, run online on a zipf:1.2 iteration; per budget and
# latency model the iteration time and every decision's wall time (p50,
# p99, max). Prints a markdown table. Usage: bench/online_decisions.sh BUILD_DIR
#   env BUDGETS (default "10us 100us 1ms"), TAU (default 1us),
#   TIME_LIMIT (the plan's, default 10s), RESERVED (measured runs with a
#   reserve, BUDGET:RESERVE pairs, default "100us:30us").
set -euo pipefail
build=$1
flux=$build/apps/flux/flux
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
job=(generate moe --model deepseek-v3 --layers 8 --pp 4 --dp 64 --ep 16 --seq 4096
     --micro-batches 4 --scaleup-size 8)
"$flux" "${job[@]}" --routing uniform -o "$work/u.json" >/dev/null
"$flux" "${job[@]}" --routing zipf:1.2 -o "$work/z.json" >/dev/null
"$flux" schedule "$work/u.json" --switches 2 --tau "${TAU:-1us}" --duplex full \
  --time-limit "${TIME_LIMIT:-10s}" -o "$work/plan.json" >/dev/null

row() {  # row LABEL FLUX-SIMULATE-FLAGS...
  local label=$1 out it online dec
  shift
  out=$("$flux" simulate "$work/u.json" --schedule "$work/plan.json" --run-on "$work/z.json" "$@")
  it=$(awk '/^iteration time/ {print $3, $4}' <<<"$out")
  online=$(sed -nE 's/^online +[0-9]+ reveals, ([0-9]+) decisions .*, ([0-9]+ of [0-9]+) sends placed anew.*/\1 | \2/p' <<<"$out")
  dec=$(sed -nE 's/^decision time +p50 ([0-9.]+) us, p99 ([0-9.]+) us, max ([0-9.]+) us.*forecasts between them ([0-9.]+) s.*/\1 | \2 | \3 | \4 s/p' <<<"$out")
  printf '| %s | %s | %s | %s |\n' "$label" "$it" "${online:-- | -}" "${dec:-- | - | - | -}"
}

echo "| run | iteration time | decisions | sends placed anew | decision p50 (us) | p99 (us) | max (us) | forecasts |"
echo "|---|---|---|---|---|---|---|---|"
row "planned once (ordered)"
for b in ${BUDGETS:-10us 100us 1ms}; do
  row "online, $b modelled" --online --decision-budget "$b"
  row "online, $b measured" --online --decision-budget "$b" --decision-latency measured
  for pair in ${RESERVED-100us:30us}; do
    [ "${pair%%:*}" = "$b" ] || continue
    row "online, $b measured, ${pair#*:} reserved" --online --decision-budget "$b" \
      --decision-latency measured --decision-reserve "${pair#*:}"
  done
done
# The machine's stalls (what a measured decision cannot plan for).
stalls=$build/bench/clock_stalls
if [ -x "$stalls" ]; then "$stalls" 5; fi
