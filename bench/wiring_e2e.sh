#!/usr/bin/env bash
# A job end to end on the full crossbar and on rails of radix-limited OCS,
# side by side (issue 29): `flux generate llama3 --job JOB --fold-dp F`, then
# `flux schedule`, `flux validate` and `flux simulate` of the schedule, each
# step under /usr/bin/time; full and rails alternate for ROUNDS rounds so
# both see the same machine. Prints per round and wiring the wall time and
# peak RSS of every step, the totals, and rails / full.
# Usage: bench/wiring_e2e.sh BUILD_DIR [JOB] [FOLD_DP] [RADIX] [ROUNDS] [TIME_LIMIT]
#   e.g. bench/wiring_e2e.sh build llama3-70b-1k 4 136 2 60s
set -euo pipefail
build=$1
job=${2:-llama3-70b-1k}
fold=${3:-4}
radix=${4:-136}
rounds=${5:-2}
limit=${6:-60s}
flux=$(realpath "$build/apps/flux/flux")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

measure() {  # NAME CMD... -> "wall_s rss_mib"
  local name=$1
  shift
  /usr/bin/time -f '%e %M' -o "$work/$name.time" "$@" >"$work/$name.out" 2>&1
  awk '{ printf "%s %d\n", $1, $2 / 1024 }' "$work/$name.time"
}

run() {  # TAG OPTIONS... -> one line: steps, totals
  local tag=$1
  shift
  local line="" total=0 peak=0
  for step in generate schedule validate simulate; do
    case $step in
      generate) r=$(measure "$tag-$step" "$flux" generate llama3 --job "$job" --fold-dp "$fold" -o "$work/w.json") ;;
      schedule) r=$(measure "$tag-$step" "$flux" schedule "$work/w.json" "$@" --time-limit "$limit" -o "$work/$tag.json") ;;
      validate) r=$(measure "$tag-$step" "$flux" validate "$work/w.json" "$work/$tag.json") ;;
      simulate) r=$(measure "$tag-$step" "$flux" simulate "$work/w.json" --schedule "$work/$tag.json") ;;
    esac
    read -r wall rss <<<"$r"
    line+=" $step ${wall}s/${rss}MiB"
    total=$(awk -v a="$total" -v b="$wall" 'BEGIN { print a + b }')
    peak=$((rss > peak ? rss : peak))
  done
  local it
  it=$(sed -nE 's/.*"makespan_s": ([0-9.e+-]+),/\1/p' "$work/$tag.json")
  echo "$tag:$line | total ${total}s, peak ${peak}MiB, iteration ${it}s" >&2
  echo "$total $peak"
}

echo "$job, fold-dp $fold, rails at radix $radix, $rounds rounds, time limit $limit"
for ((k = 1; k <= rounds; ++k)); do
  read -r full_s full_m < <(run full 2> >(sed "s/^/round $k /" >&2))
  read -r rails_s rails_m < <(run rails --wiring rails --ocs-radix "$radix" 2> >(sed "s/^/round $k /" >&2))
  awk -v k="$k" -v fs="$full_s" -v fm="$full_m" -v rs="$rails_s" -v rm="$rails_m" \
    'BEGIN { printf "round %d: rails / full: time %.2fx, peak memory %.2fx\n", k, rs / fs, rm / fm }'
done
