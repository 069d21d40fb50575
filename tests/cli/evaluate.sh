#!/usr/bin/env bash
# flux evaluate: a reduced Figure 2 sweep end to end, the invariants of its
# CSV, resuming an interrupted sweep, -j 2, the preset as a sweep file, the
# plots, and the errors.
source "$(dirname "$0")/lib.sh" "$@"

out=$DIR/results
expect_ok sweep -- "$FLUX" evaluate --preset paper-fig2 --layers 1 --tau 1us,1ms -o "$out"
csv=$out/fig2.csv
[ "$(wc -l < "$csv")" -eq 11 ] && pass || fail "expected a header and 10 rows in $csv"
expect_grep header '^layers,tau_s,scheduler,iteration_time_s,schedule_makespan_s,peak_nic_bytes,reconfigurations,' "$csv"
expect_grep summary 'flux-milp against the best other scheduler' "$DIR/sweep.out"
expect_grep limit 'time limit 60 s per instance' "$DIR/sweep.out"

# Invariants: all rows finite; every scheduler >= ideal at its (layers, tau);
# flux-milp's simulated iteration time equals its schedule's makespan.
awk -F, 'NR > 1 {
    key = $1 "," $2
    if ($4 == "" || $4 !~ /^[0-9.e+-]+$/ || $4 <= 0) { print "bad iteration time: " $0; bad = 1 }
    t[key "," $3] = $4
    if ($3 == "ideal") ideal[key] = $4
    if ($3 == "flux-milp" && $4 != $5) { print "replay != makespan: " $0; bad = 1 }
    n[key]++
  }
  END {
    for (k in t) { split(k, p, ","); if (t[k] + 0 < ideal[p[1] "," p[2]] + 0) { print "below ideal: " k; bad = 1 } }
    for (k in n) if (n[k] != 5) { print "missing schedulers at " k; bad = 1 }
    exit bad
  }' "$csv" && pass || fail "CSV invariants"

# Figure 2's script: three panels (time, memory, reconfigurations) in a row
# per layer count, ideal in the time panel only, log axes, units in words.
gp=$out/fig2.gp
expect_grep gp_multiplot "^set multiplot layout 1,3 title 'model 8b, layers 1, tp 4, dp 2, gpu a100, " "$gp"
expect_grep gp_time "^set ylabel 'iteration time \(ms\)'$" "$gp"
expect_grep gp_memory "^set ylabel 'peak NIC memory \(bytes\)'$" "$gp"
expect_grep gp_reconf "^set ylabel 'reconfigurations'$" "$gp"
expect_grep gp_tau "^set xlabel 'reconfiguration delay \(us\)'$" "$gp"
expect_grep gp_row "^set title '1 layers'$" "$gp"
expect_grep gp_svg "^set terminal svg .* noenhanced$" "$gp"
[ "$(grep -c "title 'ideal'" "$gp")" -eq 2 ] && pass || fail "ideal drawn outside the time panels (once per output)"
[ "$(grep -c "^set logscale y$" "$gp")" -eq 6 ] && pass || fail "expected log y in the 3 panels of both outputs"
grep -q '{' "$gp" && fail "enhanced-text markup in $gp" || pass
if command -v gnuplot >/dev/null 2>&1; then
  [ -s "$out/fig2.png" ] && pass || fail "no fig2.png"
  grep -q '</svg>' "$out/fig2.svg" && pass || fail "no fig2.svg"
  [ -z "$(ls "$out" | grep '\.tmp')" ] && pass || fail "temporary plot left behind"
else
  echo "gnuplot not installed: plots not checked"
fi

# An interrupted sweep resumes from the rows already written.
cp "$csv" "$DIR/full.csv"
head -n 8 "$DIR/full.csv" > "$csv"
expect_ok resume -- "$FLUX" evaluate --layers 1 --tau 1us,1ms -o "$out" --no-plot
expect_grep resumed 'resuming: 7 rows' "$DIR/resume.out"
[ "$(grep -c '^\[' "$DIR/resume.out")" -eq 3 ] && pass || fail "expected 3 points computed"
# Same rows again, wall times (solve_time_s, column 12) aside.
cut -d, -f1-11,13- "$DIR/full.csv" > "$DIR/a" && cut -d, -f1-11,13- "$csv" > "$DIR/b"
cmp -s "$DIR/a" "$DIR/b" && pass || fail "resumed sweep differs from the full one"

# The points run through the sweep runner: two at once give the same rows.
expect_ok jobs2 -- "$FLUX" evaluate --layers 1 --tau 1us,1ms -j 2 -o "$DIR/j2" --no-plot
cut -d, -f1-11,13- "$DIR/j2/fig2.csv" > "$DIR/c"
cmp -s "$DIR/a" "$DIR/c" && pass || fail "-j 2 differs from -j 1"

# A preset's system is the file's unless the command line gives an option:
# the MoE preset runs full duplex, --duplex half overrides it, and
# --duplex full turns paper-fig2 (half duplex) full.
expect_ok moe_duplex -- "$FLUX" evaluate --preset moe --tau 1ms --schedulers ideal -o "$DIR/moe" --no-plot
expect_grep moe_full 'deepseek-v3-256-uniform: .*2 switches, 800 Gb/s, full duplex, sends in 2 channels$' "$DIR/moe_duplex.out"
expect_ok moe_half -- "$FLUX" evaluate --preset moe --tau 1ms --schedulers ideal --duplex half --switches 3 -o "$DIR/moe_half" --no-plot
expect_grep moe_half_sys 'deepseek-v3-256-uniform: .*3 switches, 800 Gb/s, sends in 2 channels$' "$DIR/moe_half.out"
expect_ok fig2_full -- "$FLUX" evaluate --layers 1 --tau 1ms --schedulers greedy,ideal --duplex full -o "$DIR/fig2_full" --no-plot
expect_grep fig2_full_sys ', 2 switches, 800 Gb/s, full duplex$' "$DIR/fig2_full.out"

# The system's options are axis overrides: the plot's title names the
# values measured (4 switches at 400 Gb/s), as the CSV does, not the
# preset's; so do a time limit (--time-limit, --full) and --tp, --dp.
expect_ok sys_axes -- "$FLUX" evaluate --preset paper-fig2 --layers 1 --tau 1ms --schedulers ideal,bvn \
  --switches 4 --link-gbps 400 --time-limit 20s --tp 2 --dp 4 -o "$DIR/sys" --no-plot
expect_grep sys_title "^set multiplot layout 1,3 title 'model 8b, layers 1, tp 2, dp 4, gpu a100, switches 4, link_gbps 400, tau 1ms, time_limit 20s'$" "$DIR/sys/fig2.gp"
grep -q 'switches 2\|link_gbps 800\|tp 4' "$DIR/sys/fig2.gp" && fail "the preset's system in fig2.gp" || pass
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
  $c["switches"] != 4 || $c["link_gbps"] != 400 || $c["time_limit_s"] != 20 || $c["tp"] != 2 { bad = 1 }
  END { exit bad || NR != 3 }' "$DIR/sys/fig2.csv" && pass || fail "fig2.csv: not 4 switches at 400 Gb/s, 20 s"

# The preset is the shipped sweep file: flux sweep runs the same 70 points.
SWEEPS=$(cd "$(dirname "$0")/../../sweeps" && pwd)
expect_ok preset_file -- "$FLUX" sweep "$SWEEPS/paper-fig2.toml" --dry-run
expect_grep points '^70 points$' "$DIR/preset_file.out"
expect_ok jobs_file -- "$FLUX" sweep "$SWEEPS/real-jobs.toml" --dry-run
expect_grep jobs_points '^20 points$' "$DIR/jobs_file.out"

expect_error preset 2 '--preset = fig3: unknown preset' -- "$FLUX" evaluate --preset fig3 -o "$DIR/x"
expect_error sched 2 '--schedulers = magic' -- "$FLUX" evaluate --schedulers flux-milp,magic -o "$DIR/x"
expect_error tau 2 '--tau = 5' -- "$FLUX" evaluate --tau 5 -o "$DIR/x"
echo "1,2,3" > "$DIR/bad.csv"; mkdir -p "$DIR/bad"; cp "$DIR/bad.csv" "$DIR/bad/fig2.csv"
expect_error corrupt 2 'fig2.csv: line 1' -- "$FLUX" evaluate --layers 1 --tau 1us -o "$DIR/bad"
[ ! -e "$DIR/x" ] && pass || fail "output directory created despite errors"
finish
