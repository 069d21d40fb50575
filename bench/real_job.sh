#!/usr/bin/env bash
# A named training job end to end as a user runs it: `flux generate llama3
# --job NAME` (folded), then `flux simulate --scheduler flux`, which schedules,
# validates and simulates. Each step under /usr/bin/time -v; prints the wall
# time and peak RSS of each, the end-to-end total, and the schedule's
# iteration time, bound and gap.
# Usage: bench/real_job.sh BUILD_DIR [JOB] [FOLD_DP] [TAU] [TIME_LIMIT]
#   e.g. bench/real_job.sh build llama3-405b-16k 4 1ms 60s
set -euo pipefail
build=$1
job=${2:-llama3-405b-16k}
fold=${3:-4}
tau=${4:-1ms}
limit=${5:-60s}
flux=$(realpath "$build/apps/flux/flux")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

measure() {  # NAME CMD... -> "NAME wall_s rss_mib"
  local name=$1
  shift
  /usr/bin/time -v "$@" >"$work/$name.out" 2>"$work/$name.time"
  local wall rss
  wall=$(sed -nE 's/.*Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (.*)/\1/p' "$work/$name.time" |
    awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
  rss=$(sed -nE 's/.*Maximum resident set size \(kbytes\): ([0-9]+)/\1/p' "$work/$name.time")
  echo "$name $wall $((rss / 1024))"
}

gen=$(measure generate "$flux" generate llama3 --job "$job" --fold-dp "$fold" -o "$work/w.json")
sim=$(measure simulate "$flux" simulate "$work/w.json" --scheduler flux --tau "$tau" \
  --time-limit "$limit" -o "$work/m.json" --save-schedule "$work/s.json")
json() { sed -nE "s/^ *\"$1\": \"?([^\",]*)\"?,?$/\\1/p" "$2" | head -1; }
read -r _ gen_s gen_mib <<<"$gen"
read -r _ sim_s sim_mib <<<"$sim"
echo "job $job, fold_dp $fold, tau $tau, flux time limit $limit"
grep -m1 '^wrote' "$work/generate.out" || true
printf '%-22s %10s %10s\n' step "wall (s)" "RSS (MiB)"
printf '%-22s %10.1f %10d\n' "generate (to JSON)" "$gen_s" "$gen_mib"
printf '%-22s %10.1f %10d\n' "schedule+validate+sim" "$sim_s" "$sim_mib"
printf '%-22s %10.1f %10d\n' "end to end" "$(awk -v a="$gen_s" -v b="$sim_s" 'BEGIN { print a + b }')" \
  "$((gen_mib > sim_mib ? gen_mib : sim_mib))"
echo "makespan $(json makespan_s "$work/s.json") s, bound $(json lower_bound_s "$work/s.json") s," \
  "gap $(json gap "$work/s.json"), status $(json status "$work/s.json"), solve $(json solve_time_s "$work/s.json") s"
echo "simulated iteration time $(json iteration_time_s "$work/m.json") s," \
  "reconfigurations $(json reconfigurations "$work/m.json"), peak NIC $(json peak_nic_bytes "$work/m.json") B"
