#!/usr/bin/env bash
# The `flux` scheduler from thousands to millions of sends: time, peak memory
# and gap per instance, one process each (bench/flux_scale.cpp), then (for
# the default list) a log-log plot of time and memory against sends.
# Usage: bench/flux_scale.sh BUILD_DIR OUT_DIR [TAU] [GPU] [TIME_LIMIT_S] [LIST]
#   LIST: an instance list in bench/scale/ (default flux_scale; llama_scale:
#   70B and 405B on 64 to 4,096 GPUs, folded). Writes OUT_DIR/LIST_GPU_TAU.csv.
#   e.g. bench/flux_scale.sh build docs/scale 1ms h100 60
#        bench/flux_scale.sh build docs/scale 10us a100 60 llama_scale
set -euo pipefail
build=$1
out=$2
tau=${3:-1ms}
gpu=${4:-h100}
limit=${5:-60}
list=${6:-flux_scale}
mkdir -p "$out"
csv=$out/${list}_${gpu}_${tau}.csv
echo "name,sends,gpus,tau_s,gpu,generate_s,schedule_s,peak_rss_mib,makespan_s,bound_s,gap,status,dp_generated,job_sends" > "$csv.tmp"
grep -v '^#' "$(dirname "$0")/scale/$list.list" | while read -r name model layers tp dp fold; do
  args=("$name" "$model" "$layers" "$tp" "$dp" "$gpu" "$tau" "$limit")
  [ "$fold" != 0 ] && args+=("$fold")
  "$build/bench/flux_scale" "${args[@]}" | tee -a "$csv.tmp"
done
mv "$csv.tmp" "$csv"
if [ "$list" = flux_scale ] && command -v gnuplot >/dev/null 2>&1; then
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
