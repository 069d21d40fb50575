#!/usr/bin/env bash
# The `flux` scheduler from thousands to ~12M sends: time, peak memory and
# gap per instance, one process each (bench/flux_scale.cpp), then a log-log
# plot of time and memory against sends (gnuplot).
# Usage: bench/flux_scale.sh BUILD_DIR OUT_DIR [TAU] [GPU] [TIME_LIMIT_S]
#   e.g. bench/flux_scale.sh build docs/scale 1ms h100 60
set -euo pipefail
build=$1
out=$2
tau=${3:-1ms}
gpu=${4:-h100}
limit=${5:-60}
mkdir -p "$out"
csv=$out/flux_scale_${gpu}_${tau}.csv
echo "name,sends,gpus,tau_s,gpu,generate_s,schedule_s,peak_rss_mib,makespan_s,bound_s,gap,status" > "$csv.tmp"
# name model layers tp dp
while read -r name model layers tp dp; do
  "$build/bench/flux_scale" "$name" "$model" "$layers" "$tp" "$dp" "$gpu" "$tau" "$limit" | tee -a "$csv.tmp"
done <<'LIST'
8b-L8-tp4-dp2 8b 8 4 2
8b-L32-tp8-dp4 8b 32 8 4
70b-L80-tp8-dp4 70b 80 8 4
70b-L80-tp8-dp16 70b 80 8 16
70b-L80-tp8-dp32 70b 80 8 32
405b-L126-tp8-dp32 405b 126 8 32
405b-L126-tp8-dp64 405b 126 8 64
LIST
mv "$csv.tmp" "$csv"
if command -v gnuplot >/dev/null 2>&1; then
  gnuplot <<GP
set terminal pngcairo size 1000,450 font ',10'
set output '$out/flux_scale_${gpu}_${tau}.png'
set datafile separator ','
set multiplot layout 1,2 title 'flux scheduler, Llama 3 8B-405B, $gpu compute, tau = $tau, time limit $limit s'
set logscale xy
set grid
set xlabel 'sends'
set ylabel 'schedule time (s)'
plot '$csv' using 2:7 every ::1 with linespoints pt 7 lw 2 notitle
set ylabel 'peak RSS (MiB, workload included)'
plot '$csv' using 2:8 every ::1 with linespoints pt 7 lw 2 notitle
unset multiplot
GP
fi
