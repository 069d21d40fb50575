#!/usr/bin/env bash
# Runs every benchmark, one process per benchmark family so that peak RSS is
# that family's own. Usage: bench/run.sh BUILD_DIR
set -euo pipefail
build=${1:-build}
for filter in BM_Paper8b BM_Llama405b BM_Random; do
  "$build/bench/generate_bench" --benchmark_filter="$filter" --benchmark_counters_tabular=true
done
"$build/bench/dag_bench" --benchmark_counters_tabular=true
