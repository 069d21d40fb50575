#!/usr/bin/env bash
# flux sweep on this machine: the same sweep (sweeps/bench-256-1024.toml by
# default) with -j 1 and then -j 2, side by side: wall time, and the peak of
# the summed resident memory of flux and its point processes (sampled every
# 0.1 s from /proc). Usage: bench/sweep.sh FLUX [SPEC] [OUTDIR]
set -euo pipefail
FLUX=$1
SPEC=${2:-$(dirname "$0")/../sweeps/bench-256-1024.toml}
OUT=${3:-$(mktemp -d)}
mkdir -p "$OUT"

descendants() {  # PID and every process under it
  echo "$1"
  local c
  for c in $(pgrep -P "$1"); do descendants "$c"; done
}

# Peak of the summed RSS (KiB) of the process tree under $1 until it ends.
peak_rss() {
  local root=$1 peak=0 sum pids
  while kill -0 "$root" 2>/dev/null; do
    pids=$(descendants "$root")
    sum=0
    for p in $pids; do
      r=$(awk '/^VmRSS:/ { print $2 }' "/proc/$p/status" 2>/dev/null || true)
      sum=$((sum + ${r:-0}))
    done
    [ "$sum" -gt "$peak" ] && peak=$sum
    sleep 0.1
  done
  echo "$peak"
}

for j in 1 2; do
  echo "-j $j: load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  start=$(date +%s.%N)
  /usr/bin/time -f "%U %S" -o "$OUT/j$j.cpu" \
    "$FLUX" sweep "$SPEC" -o "$OUT/j$j" -j "$j" --no-plot --fresh >"$OUT/j$j.log" 2>&1 &
  pid=$!
  peak=$(peak_rss "$pid")
  wait "$pid"
  end=$(date +%s.%N)
  wall=$(echo "$end - $start" | bc)
  points=$(($(wc -l < "$OUT/j$j/"*.csv) - 1))
  busy=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wall_s") c = i } NR > 1 { s += $c } END { print s }' "$OUT/j$j/"*.csv)
  cpu=$(awk '{ print $1 + $2 }' "$OUT/j$j.cpu")
  echo "-j $j: $points points in ${wall} s (CPU ${cpu} s; points' wall times add up to $busy s), peak RSS $((peak / 1024)) MiB"
  echo "-j $j: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  eval "wall_$j=$wall"
done
echo "speed-up -j 2 over -j 1: $(echo "scale=2; $wall_1 / $wall_2" | bc)"
