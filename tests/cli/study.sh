#!/usr/bin/env bash
# One study engine (issue 30): flux evaluate --preset X is flux sweep on the
# shipped sweeps/X.toml with its options as axis overrides. Its CSVs are
# those flux wrote before (tests/data/study, written at aaa615a), column by
# column, wall-time columns aside; CSVs of that version resume; a sweep CSV
# names each column once; plots label in words, with no enhanced text.
# The real-jobs and moe presets are study_jobs.sh (two halves run side by
# side, each well within the test timeout under the sanitizers).
source "$(dirname "$0")/lib.sh" "$@"
REF=$(cd "$(dirname "$0")/../data/study" && pwd)

eval_wall=(solve_time_s replan_wall_max_s)
robust_wall=(solve_time_s sim_time_s replan_wall_p50_s replan_wall_max_s)

expect_ok fig2 -- "$FLUX" evaluate --preset paper-fig2 --layers 1,2 --tau 1us,1ms -o "$DIR/fig2" --no-plot
same fig2_csv "$REF/fig2.csv" "$DIR/fig2/fig2.csv" "${eval_wall[@]}"
robust=(evaluate --preset robustness --layers 1 --gpu a100 --tau 10us --jitters 0,10%
        --straggler-factors 1.5 --failure-jitters 0,10% --schedulers flux,flux-robust,ideal
        --trials 2 --perturb-seed 7 --replan-moves 200 --replan-time-limit 3s --no-plot)
expect_ok robust -- "$FLUX" "${robust[@]}" -o "$DIR/robust"
same robust_csv "$REF/robustness.csv" "$DIR/robust/robustness.csv" "${robust_wall[@]}"
expect_ok grid -- "$FLUX" evaluate --preset robustness --layers 1 --tau 10us,1ms --jitters 0,5%,10% \
  --straggler-factors 1.1,1.5 --failure-jitters 0,5% --schedulers bvn,ideal --trials 2 -o "$DIR/grid" --no-plot
same grid_csv "$REF/robustness-grid.csv" "$DIR/grid/robustness.csv" "${robust_wall[@]}"

# The presets' figures (the [[plot]] tables of sweeps/*.toml; the jobs' in
# study_jobs.sh): a row of panels per job (and routing), a column per
# metric, one line per scheduler.
for f in jitter straggler failure; do
  expect_grep "robust_$f" "^set multiplot layout 4,2 title .*; where " "$DIR/grid/robustness-$f.gp"
done
expect_grep robust_jitter_x "^set xlabel 'compute jitter \(%\)'$" "$DIR/grid/robustness-jitter.gp"
expect_grep robust_p95 "^set ylabel 'iteration p95 \(ms\)'$" "$DIR/grid/robustness-jitter.gp"
expect_grep robust_series "title 'bvn jitter=5%'" "$DIR/grid/robustness-failure.gp"

# CSVs the earlier version wrote partway resume: only the missing points run.
mkdir -p "$DIR/r1" && cp "$REF/fig2-partial.csv" "$DIR/r1/fig2.csv"
expect_ok resume_fig2 -- "$FLUX" evaluate --preset paper-fig2 --layers 1,2 --tau 1us,1ms -o "$DIR/r1" --no-plot
expect_grep resumed_fig2 'resuming: 7 rows' "$DIR/resume_fig2.out"
[ "$(grep -c '^\[' "$DIR/resume_fig2.out")" -eq 13 ] && pass || fail "expected 13 points measured"
same resume_fig2_csv "$REF/fig2.csv" "$DIR/r1/fig2.csv" "${eval_wall[@]}"
mkdir -p "$DIR/r2" && cp "$REF/robustness-partial.csv" "$DIR/r2/robustness.csv"
expect_ok resume_robust -- "$FLUX" "${robust[@]}" -o "$DIR/r2"
expect_grep resumed_robust 'resuming: 4 rows' "$DIR/resume_robust.out"
same resume_robust_csv "$REF/robustness.csv" "$DIR/r2/robustness.csv" "${robust_wall[@]}"

# A sweep CSV names each column once; one of the earlier version (every
# metric again after the axes) resumes, rewritten with this version's columns.
mkdir -p "$DIR/sw" && cp "$REF/tiny-partial.csv" "$DIR/sw/tiny.csv"
expect_ok sweep -- "$FLUX" sweep "$REF/tiny.toml" -o "$DIR/sw" -j 2
expect_grep sweep_resumed 'resuming: 5 points already' "$DIR/sweep.out"
csv=$DIR/sw/tiny.csv
[ -z "$(head -1 "$csv" | tr ',' '\n' | sort | uniq -d)" ] && pass ||
  fail "repeated columns: $(head -1 "$csv" | tr ',' '\n' | sort | uniq -d | paste -sd' ')"
[ "$(tail -n +2 "$csv" | wc -l)" -eq 24 ] && pass || fail "expected 24 rows in $csv"
[ "$(tail -n +2 "$csv" | awk -F, '{print NF}' | sort -u)" = "$(head -1 "$csv" | awk -F, '{print NF}')" ] &&
  pass || fail "rows and header differ in columns"
# The resumed rows are the earlier version's, each column where its name is.
col() { head -1 "$1" | tr ',' '\n' | grep -nx "$2" | head -1 | cut -d: -f1; }
for c in switches scheduler iteration_time_s peak_nic_bytes; do
  [ "$(sed -n 2,6p "$REF/tiny-partial.csv" | cut -d, -f"$(col "$REF/tiny-partial.csv" "$c")")" = \
    "$(sed -n 2,6p "$csv" | cut -d, -f"$(col "$csv" "$c")")" ] && pass || fail "resumed column $c differs"
done
# The plot: words with units, no enhanced text, ticks at the integer axis's values.
gp=$DIR/sw/tiny-iteration_time_s-by-switches.gp
expect_grep noenhanced '^set terminal .* noenhanced$' "$gp"
expect_grep ylabel "^set ylabel 'iteration time \(s\)'$" "$gp"
expect_grep xtics "^set xtics \('1' 1, '2' 2, '4' 4\)$" "$gp"
finish
