#!/usr/bin/env bash
# The simulator's speed: events per second and wall time of the event loop
# for the paper's instances (Llama 3 8B, TP4 x DP2, 8 GPUs, 2 switches) under
# every scheduler and tau, then one instance with >= 1M sends.
# Prints markdown tables. Usage: bench/sim_bench.sh BUILD_DIR
#   env LAYERS (default "8 16"), TAUS (default "1us 10us 100us 1ms"),
#   SCHEDULERS (default "flux-milp rotornet rotornet-vlb bvn ideal"),
#   BIG (generate flags of the large instance; empty: skip it),
#   BIG_SCHEDULERS (default "ideal greedy rotornet bvn").
set -euo pipefail
build=$1
flux=$build/apps/flux/flux
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

row() {  # row LABEL TAU SCHEDULER WORKLOAD
  local out
  out=$("$flux" simulate "$4" --scheduler "$3" --tau "$2" --time-limit 600s)
  local it events loop rate all
  it=$(awk '/^iteration time/ {print $3, $4}' <<<"$out")
  read -r events loop rate all < <(sed -nE \
    's/^simulation +([0-9]+) events in ([0-9.]+) s \(([0-9.]+) M events\/s\), ([0-9.]+) s in all/\1 \2 \3 \4/p' <<<"$out")
  printf '| %s | %s | %s | %s | %s | %s s | %s | %s s |\n' "$1" "$2" "$3" "$it" "$events" "$loop" "$rate" "$all"
}

echo "| instance | tau | scheduler | iteration time | events | event loop | M events/s | simulate() |"
echo "|---|---|---|---|---|---|---|---|"
for layers in ${LAYERS:-8 16}; do
  "$flux" generate llama3 --model 8b --layers "$layers" --tp 4 --dp 2 -o "$work/w.json" >/dev/null 2>&1
  for tau in ${TAUS:-1us 10us 100us 1ms}; do
    for s in ${SCHEDULERS:-flux-milp rotornet rotornet-vlb bvn ideal}; do
      row "8B ${layers}L TP4xDP2" "$tau" "$s" "$work/w.json"
    done
  done
done
if [[ -n "${BIG:-}" ]]; then
  # shellcheck disable=SC2086
  "$flux" generate llama3 $BIG -o "$work/big.json" >/dev/null 2>&1
  sends=$("$flux" info "$work/big.json" | awk '/^sends/ {print $2}')
  for s in ${BIG_SCHEDULERS:-ideal greedy rotornet bvn}; do
    row "$BIG ($sends sends)" 10us "$s" "$work/big.json"
  done
fi
