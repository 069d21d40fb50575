#!/usr/bin/env bash
# One study engine (issue 30), the jobs' presets: flux evaluate --preset
# real-jobs and --preset moe write the CSVs flux wrote before
# (tests/data/study, written at aaa615a), wall-time columns aside, and their
# figures a row of panels per job (and routing). The other presets are
# study.sh.
source "$(dirname "$0")/lib.sh" "$@"
REF=$(cd "$(dirname "$0")/../data/study" && pwd)
eval_wall=(solve_time_s replan_wall_max_s)

expect_ok jobs -- "$FLUX" evaluate --preset real-jobs --tau 1ms --schedulers ideal,bvn -o "$DIR/jobs" --no-plot
same jobs_csv "$REF/jobs.csv" "$DIR/jobs/jobs.csv" "${eval_wall[@]}"
expect_ok moe -- "$FLUX" evaluate --preset moe --tau 1ms --schedulers ideal -o "$DIR/moe" --no-plot
same moe_csv "$REF/moe.csv" "$DIR/moe/moe.csv" "${eval_wall[@]}"

expect_grep jobs_gp "^set multiplot layout 2,3 title " "$DIR/jobs/jobs.gp"
expect_grep jobs_row "^set title 'llama3-70b-1k'$" "$DIR/jobs/jobs.gp"
expect_grep moe_gp "^set multiplot layout 4,3 title " "$DIR/moe/moe.gp"
expect_grep moe_row "^set title 'mixtral-8x7b-ep8, zipf:1.2'$" "$DIR/moe/moe.gp"

finish
