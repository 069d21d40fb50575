#!/usr/bin/env bash
# `flux` against `flux-milp` on random DAGs (`flux generate random`), side by
# side in one run: per instance the makespan, the lower bound, the status and
# the wall time of each, the best known schedule (the smaller makespan) and
# the best bound (the larger bound). Writes a CSV and prints a markdown table.
# Instances: SIZES x TAUS x SWITCHES x SEEDS, ranks RANKS, the generator's
# other knobs at their defaults (median transfer 10 us). JOBS instances run at
# once (each solve is single-threaded). With OTHER=path/to/flux the second
# scheduler is that binary's `flux` (another build, e.g. before a change)
# instead of flux-milp, with the first limit.
# Usage: bench/flux_random.sh BUILD_DIR OUT.csv [FLUX_LIMIT] [MILP_LIMIT]
#   e.g. SIZES="100 1000 5000" JOBS=2 bench/flux_random.sh build random.csv 60s 600s
set -euo pipefail
build=$1
csv=$2
flux_limit=${3:-60s}
milp_limit=${4:-600s}
sizes=${SIZES:-100 300 1000 3000 5000}
taus=${TAUS:-1us 10us 100us}
switches=${SWITCHES:-2}
seeds=${SEEDS:-1}
ranks=${RANKS:-8}
jobs=${JOBS:-1}
flux=$(realpath "$build/apps/flux/flux")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

json() { sed -nE "s/^ *\"$1\": \"?([^\",]*)\"?,?$/\\1/p" "$2" | head -1; }
one() {  # sends tau switches seed -> one CSV line
  local n=$1 tau=$2 s=$3 seed=$4 d="$work/$1-$2-$3-$4"
  mkdir -p "$d"
  "$flux" generate random --sends "$n" --ranks "$ranks" --seed "$seed" -o "$d/w.json" >/dev/null 2>&1
  local line="$n,$ranks,$seed,$tau,$s"
  for sched in flux second; do
    local limit=$flux_limit bin=$flux name=$sched
    if [[ $sched == second ]]; then
      if [[ -n $other ]]; then bin=$other name=flux; else limit=$milp_limit name=flux-milp; fi
    fi
    if "$bin" schedule "$d/w.json" --scheduler "$name" --tau "$tau" --switches "$s" \
      --time-limit "$limit" -o "$d/$sched.json" >/dev/null 2>"$d/$sched.err"; then
      line+=",$(json makespan_s "$d/$sched.json"),$(json lower_bound_s "$d/$sched.json")"
      line+=",$(json status "$d/$sched.json"),$(json solve_time_s "$d/$sched.json")"
    else
      line+=",,,error,"
    fi
  done
  echo "$line" >"$d/row"
}
export -f one json
other=${OTHER:+$(realpath "$OTHER")}
export flux other ranks flux_limit milp_limit work

for n in $sizes; do for tau in $taus; do for s in $switches; do for seed in $seeds; do
  echo "$n $tau $s $seed"
done; done; done; done | xargs -P "$jobs" -L 1 bash -c 'one "$@"' _

second=${OTHER:+other}
second=${second:-milp}
echo "sends,ranks,seed,tau,switches,flux_makespan_s,flux_bound_s,flux_status,flux_time_s,${second}_makespan_s,${second}_bound_s,${second}_status,${second}_time_s" >"$csv"
cat "$work"/*/row | sort -t, -k1,1n -k4,4 -k5,5n -k3,3n >>"$csv"

b=${OTHER:+other flux}
b=${b:-flux-milp}
echo "| sends | tau | switches | seed | flux | flux gap (reported) | flux time | $b | $b status | $b time | best bound | flux vs best known | best known vs best bound |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
tail -n +2 "$csv" | awk -F, '{
  best = $6; if ($10 != "" && $10 < best) best = $10
  bound = $7; if ($11 != "" && $11 > bound) bound = $11
  printf "| %s | %s | %s | %s | %.4g ms | %.2f%% | %.1f s | %.4g ms | %s | %.1f s | %.4g ms | %+.2f%% | %.2f%% |\n",
    $1, $4, $5, $3, 1e3 * $6, 100 * ($6 - $7) / $7, $9, 1e3 * $10, $12, $13, 1e3 * bound,
    100 * ($6 - best) / best, 100 * (best - bound) / bound
}'

# Per size: how the first scheduler (flux of BUILD_DIR) compares with the second.
echo
echo "| sends | instances | flux better | equal | worse | flux better than second by: mean / max | proved optimal: flux / second | mean reported gap: flux / second | mean time: flux / second |"
echo "|---|---|---|---|---|---|---|---|---|"
tail -n +2 "$csv" | awk -F, '$10 != "" {
  n = $1; k[n]++; a = $6; b = $10
  if (a < b) better[n]++; else if (a == b) equal[n]++; else worse[n]++
  d = 100 * (b - a) / b; sum[n] += d; if (!(n in mx) || d > mx[n]) mx[n] = d
  oa[n] += ($8 == "optimal"); ob[n] += ($12 == "optimal")
  ga[n] += 100 * (a - $7) / $7; gb[n] += 100 * (b - $11) / $11; ta[n] += $9; tb[n] += $13
} END {
  for (n in k) printf "%d | %d | %d | %d | %d | %.2f%% / %.2f%% | %d / %d | %.1f%% / %.1f%% | %.2f s / %.2f s |\n",
    n, k[n], better[n], equal[n], worse[n], sum[n] / k[n], mx[n], oa[n], ob[n], ga[n] / k[n], gb[n] / k[n],
    ta[n] / k[n], tb[n] / k[n]
}' | sort -n | sed 's/^/| /'
