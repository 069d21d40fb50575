#!/usr/bin/env bash
# flux sweep: the same CSV with -j 1, -j 2 and under mpirun (wall-time
# columns aside), from TOML and JSON; Figure 2's points as flux evaluate
# measures them; kill -9 mid-sweep and resume; failed points recorded; bad
# sweep files refused with one line and nothing written.
source "$(dirname "$0")/lib.sh" "$@"
DATA=$(cd "$(dirname "$0")/../data/sweep" && pwd)
SWEEPS=$(cd "$(dirname "$0")/../../sweeps" && pwd)

# The CSV without its wall-time columns (wall_s, solve_time_s, sim_time_s,
# replan_wall_*).
strip_wall() {
  awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^(wall_s|solve_time_s|sim_time_s|replan_wall_.*)$/) drop[i] = 1 }
    { line = ""; for (i = 1; i <= NF; i++) if (!drop[i]) line = line (line == "" ? "" : ",") $i; print line }' "$1"
}
same_csv() {  # NAME A B
  if diff <(strip_wall "$2") <(strip_wall "$3") >"$DIR/$1.diff"; then pass; else fail "$1: CSVs differ"; head "$DIR/$1.diff" >&2; fi
}

# -j 1, -j 2, JSON, mpirun.
expect_ok slow_full -- "$FLUX" sweep "$DATA/slow.toml" -o "$DIR/slow_full" -j 2 --no-plot
expect_ok j1 -- "$FLUX" sweep "$DATA/small.toml" -o "$DIR/j1" -j 1 --no-plot
expect_ok j2 -- "$FLUX" sweep "$DATA/small.toml" -o "$DIR/j2" -j 2
expect_ok json -- "$FLUX" sweep "$DATA/small.json" -o "$DIR/json" -j 2 --no-plot
[ "$(wc -l < "$DIR/j1/small.csv")" -eq 25 ] && pass || fail "expected a header and 24 rows"
expect_grep header '^layers,tp,dp,tau,scheduler,point_status,point_error,wall_s,tau_s,iteration_time_s,' "$DIR/j1/small.csv"
[ "$(grep -c ',ok,' "$DIR/j1/small.csv")" -eq 24 ] && pass || fail "not every point ok"
expect_grep filter '^2,4,2,1ms,ideal,ok,' "$DIR/j1/small.csv"
grep -q '^1,2,2,' "$DIR/j1/small.csv" && fail "the filter kept tp 2 x dp 2" || pass
same_csv j1_j2 "$DIR/j1/small.csv" "$DIR/j2/small.csv"
same_csv toml_json "$DIR/j1/small.csv" "$DIR/json/small.csv"
expect_grep summary 'small: 24 points: 24 ok' "$DIR/j1/small-summary.txt"
expect_grep gp_script 'plot \$s0 using 1:2' "$DIR/j2/small-iteration_time_s-by-tau.gp"
if command -v gnuplot >/dev/null 2>&1; then
  [ -s "$DIR/j2/small-iteration_time_s-by-tau.png" ] && pass || fail "no plot"
fi
if command -v mpirun >/dev/null 2>&1 && "$FLUX" sweep --help | grep -q mpirun; then
  root=(); [ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
  # Open MPI's own allocations stay until exit: not ours to report.
  if [ "$SANITIZED" = 1 ]; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    root+=(-x ASAN_OPTIONS)
  fi
  expect_ok mpi -- mpirun "${root[@]}" --oversubscribe -n 3 "$FLUX" sweep "$DATA/small.toml" -o "$DIR/mpi" --no-plot
  expect_grep mpi_workers 'MPI, 2 worker ranks' "$DIR/mpi.out"
  same_csv j1_mpi "$DIR/j1/small.csv" "$DIR/mpi/small.csv"
  # A worker rank killed (kill -9) while it runs a point: Open MPI aborts the
  # job; the CSV keeps whole rows, and a rerun (here without MPI) completes it.
  mpirun "${root[@]}" --oversubscribe -n 3 "$FLUX" sweep "$DATA/slow.toml" -o "$DIR/mpikill" --no-plot >"$DIR/mpikill.out" 2>&1 &
  mpid=$!
  killed=
  # Up to a minute: MPI's start-up under the sanitizers takes seconds.
  for _ in $(seq 1 3000); do
    kill -0 "$mpid" 2>/dev/null || break
    for p in $(pgrep -f "sweep $DATA/slow.toml -o $DIR/mpikill"); do
      c=$(pgrep -P "$p" | head -n 1)
      if [ "$(ps -o comm= -p "$p")" = flux ] && [ -n "$c" ] && [ "$(ps -o comm= -p "$c")" = flux ]; then
        kill -9 "$p" && killed=$p && break 2
      fi
    done
    sleep 0.02
  done
  wait "$mpid" && fail "mpirun exited 0 after a rank was killed" || pass
  [ -n "$killed" ] && pass || fail "no worker rank found to kill"
  awk -F, 'NR == 1 { n = NF } NF != n { bad = 1 } END { exit bad }' "$DIR/mpikill/slow.csv" && pass || fail "a torn row after a rank died"
  expect_ok mpikill_resume -- "$FLUX" sweep "$DATA/slow.toml" -o "$DIR/mpikill" -j 2 --no-plot
  same_csv mpikill "$DIR/slow_full/slow.csv" "$DIR/mpikill/slow.csv"
else
  echo "mpirun absent or flux built without MPI: the MPI sweep is not checked"
fi

# A trials axis: robustness rows (p50/p95/...), the same with -j 1 and -j 2
# apart from wall times (sim_time_s and the re-plan walls too).
expect_ok trials1 -- "$FLUX" sweep "$DATA/trials.toml" -o "$DIR/trials1" -j 1 --no-plot
expect_ok trials2 -- "$FLUX" sweep "$DATA/trials.toml" -o "$DIR/trials2" -j 2
expect_grep trials_header '^layers,tp,dp,tau,jitter,seed,trials,scheduler,point_status,point_error,wall_s,job,.*,iteration_p50_s,iteration_p95_s,' "$DIR/trials1/trials.csv"
expect_grep trials_summary 'sweep trials: 9 points: 9 ok' "$DIR/trials1.out"
# Columns: the 8 axes (1-8), the point columns (9-11: wall_s), robustness.csv's
# (12-50: its four wall times last, 47-50).
# drop FILE COL...: FILE without the columns named COL (wall times).
drop() { local f=$1; shift; cut -d, --complement -f"$(head -1 "$f" | tr ',' '\n' | grep -nxF "$(printf '%s\n' "$@")" | cut -d: -f1 | paste -sd,)" "$f"; }
# by_name FILE COL...: the columns named COL (in the file's order), rows sorted.
by_name() { local f=$1; shift; tail -n +2 "$f" | cut -d, -f"$(head -1 "$f" | tr ',' '\n' | grep -nxF "$(printf '%s\n' "$@")" | cut -d: -f1 | paste -sd,)" | sort; }
robust_wall=(wall_s solve_time_s sim_time_s replan_wall_p50_s replan_wall_max_s)
drop "$DIR/trials1/trials.csv" "${robust_wall[@]}" > "$DIR/t1" && drop "$DIR/trials2/trials.csv" "${robust_wall[@]}" > "$DIR/t2"
cmp -s "$DIR/t1" "$DIR/t2" && pass || fail "trials: -j 1 and -j 2 differ"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
  { p50 = $c["iteration_p50_s"] + 0; p95 = $c["iteration_p95_s"] + 0
    if ($c["point_status"] != "ok" || p50 > p95 || p50 <= 0 || ($c["jitter"] != "0%" && $c["trials_measured"] != 3)) bad = 1; n++ }
  END { exit bad || n != 9 }' "$DIR/trials1/trials.csv" && pass || fail "trials: rows"

# Figure 2's points: the metric columns equal flux evaluate's.
expect_ok fig2_sweep -- "$FLUX" sweep "$SWEEPS/paper-fig2-small.toml" -o "$DIR/fig2" -j 2 --no-plot
expect_ok fig2_eval -- "$FLUX" evaluate --preset paper-fig2 --layers 8 --tau 1us,100us,1ms -o "$DIR/eval" --no-plot
metrics() { strip_wall "$1" | awk -F, -v OFS=, -v skip="$2" '{ $0 = $0; out = ""; for (i = skip + 1; i <= NF; i++) out = out (out == "" ? "" : ",") $i; print out }'; }
fig2_cols=(tau_s iteration_time_s schedule_makespan_s peak_nic_bytes reconfigurations circuits_set_up
           status gap lower_bound_s circuit_utilization wait_mean_s bytes_relayed sends sim_events
           time_limit_s job cluster_ranks)
if diff <(by_name "$DIR/fig2/paper-fig2-small.csv" "${fig2_cols[@]}") <(by_name "$DIR/eval/fig2.csv" "${fig2_cols[@]}") >"$DIR/fig2.diff"; then pass; else fail "sweep and evaluate differ"; head "$DIR/fig2.diff" >&2; fi
[ "$(wc -l < "$DIR/eval/fig2.csv")" -eq 16 ] && pass || fail "expected 15 evaluate rows"

# The robustness preset's file, reduced (1 layer, A100, 10 us, 2 trials,
# 200 re-plan moves):
# flux sweep's rows are flux evaluate --preset robustness's, metric for
# metric (the 18 axes and 3 point columns first; wall times last).
sed -e 's/^layers = 8/layers = 1/' -e 's/^gpu = .*/gpu = "a100"/' -e 's/^tau = .*/tau = "10us"/' \
  -e 's/^jitter = .*/jitter = [0, 0.05]/' -e 's/^trials = 20/trials = 2/' \
  -e 's/^replan_moves = 1000/replan_moves = 200/' \
  -e 's/^scheduler = .*/scheduler = ["flux-robust", "bvn", "ideal"]/' \
  "$SWEEPS/robustness.toml" >"$DIR/robustness.toml"
expect_ok robust_sweep -- "$FLUX" sweep "$DIR/robustness.toml" -o "$DIR/rsweep" -j 2 --no-plot
expect_grep robust_sweep_summary 'sweep robustness: 18 points: 18 ok' "$DIR/robust_sweep.out"
expect_ok robust_eval -- "$FLUX" evaluate --preset robustness --layers 1 --gpu a100 --tau 10us \
  --jitters 0,5% --trials 2 --replan-moves 200 --schedulers flux-robust,bvn,ideal \
  -o "$DIR/reval" --no-plot
robust_cols=(job tau_s plan_jitter perturbation execution iteration_p50_s iteration_p95_s
             iteration_p99_s iteration_max_s peak_nic_p50_bytes peak_nic_p95_bytes peak_nic_p99_bytes
             peak_nic_max_bytes all_delivered fail_time_s replanned_sends_p50 replanned_sends_max)
if diff <(by_name "$DIR/rsweep/robustness.csv" "${robust_cols[@]}") \
        <(by_name "$DIR/reval/robustness.csv" "${robust_cols[@]}") >"$DIR/robust.diff"; then pass; else
  fail "robustness: sweep and evaluate differ"; head "$DIR/robust.diff" >&2; fi
[ "$(wc -l < "$DIR/reval/robustness.csv")" -eq 19 ] && pass || fail "expected 18 evaluate rows"

# kill -9 in the middle, a torn row, resume: every row whole, finished
# points not run again, the result equal to an uninterrupted run.
csv=$DIR/slow/slow.csv
setsid "$FLUX" sweep "$DATA/slow.toml" -o "$DIR/slow" -j 1 --no-plot >"$DIR/slow1.out" 2>&1 &
pid=$!
for _ in $(seq 1 1200); do
  [ -f "$csv" ] && [ "$(wc -l < "$csv")" -ge 4 ] && break
  sleep 0.05
done
kill -9 -- -"$pid" 2>/dev/null; wait "$pid" 2>/dev/null
rows=$(($(wc -l < "$csv") - 1))
[ "$rows" -ge 3 ] && [ "$rows" -lt 10 ] && pass || fail "killed with $rows rows (expected 3..9)"
awk -F, 'NR == 1 { n = NF } NF != n { bad = 1 } END { exit bad }' "$csv" && pass || fail "a torn row after kill -9"
printf '8,4,2,1ms,20%%,1,150,greedy,ok,,0.4,L8-a100' >>"$csv"  # a row cut off by a crash
expect_ok resume -- "$FLUX" sweep "$DATA/slow.toml" -o "$DIR/slow" -j 2 --no-plot
expect_grep resumed "resuming: $rows points already in .*torn last row was dropped" "$DIR/resume.out"
expect_grep ran_rest "ran $((10 - rows)) points, $rows resumed" "$DIR/resume.out"
same_csv resume "$DIR/slow_full/slow.csv" "$csv"
expect_ok rerun -- "$FLUX" sweep "$DATA/slow.toml" -o "$DIR/slow" --no-plot
expect_grep rerun_nothing 'ran 0 points, 10 resumed' "$DIR/rerun.out"

# A point whose process crashes loses only itself.
"$FLUX" sweep "$DATA/slow.toml" -o "$DIR/crash" -j 1 --no-plot >"$DIR/crash.out" 2>&1 &
pid=$!
child=
for _ in $(seq 1 200); do
  child=$(pgrep -P "$pid" | head -n 1)
  [ -n "$child" ] && break
  sleep 0.02
done
[ -n "$child" ] && kill -SEGV "$child"
wait "$pid" && pass || fail "the sweep stopped when a point crashed"
# (a sanitizer build catches the signal and exits 1: crashed all the same)
[ "$(grep -Ec ',crashed,(died of signal 11|its process exited with status 1)' "$DIR/crash/slow.csv")" -eq 1 ] && pass || fail "no crashed row"
[ "$(grep -c ',ok,' "$DIR/crash/slow.csv")" -eq 9 ] && pass || fail "expected 9 points ok beside the crash"

# Failed points are recorded with their reason and the sweep goes on.
cat >"$DIR/fail.toml" <<'T'
name = "fail"
[axes]
layers = 2
tp = [3, 4]
dp = 2
scheduler = ["flux-milp", "ideal"]
T
expect_ok fail_invalid -- "$FLUX" sweep "$DIR/fail.toml" -o "$DIR/fail" -j 2 --no-plot
expect_grep invalid '^2,3,2,flux-milp,invalid,.*tp = 3' "$DIR/fail/fail.csv"
expect_grep invalid_ok '^2,4,2,ideal,ok,' "$DIR/fail/fail.csv"
expect_ok fail_timeout -- "$FLUX" sweep "$DIR/fail.toml" -o "$DIR/timeout" -j 2 --no-plot --point-timeout 1ms
expect_grep timeout '^2,4,2,flux-milp,timeout,killed after' "$DIR/timeout/fail.csv"
expect_ok fail_memory -- "$FLUX" sweep "$DIR/fail.toml" -o "$DIR/memory" --no-plot --memory-budget 1M
expect_grep memory '^2,4,2,ideal,memory,needs about' "$DIR/memory/fail.csv"
expect_ok retry -- "$FLUX" sweep "$DIR/fail.toml" -o "$DIR/memory" --no-plot --retry-failed
expect_grep retried '^2,4,2,ideal,ok,' "$DIR/memory/fail.csv"
[ "$(wc -l < "$DIR/memory/fail.csv")" -eq 5 ] && pass || fail "a retried point left two rows"

# Bad sweep files: one line naming the file, key and value; nothing written.
bad() {  # NAME PATTERN CONTENT
  printf '%s\n' "$3" >"$DIR/$1.toml"
  expect_error "bad_$1" 2 "$2" -- "$FLUX" sweep "$DIR/$1.toml" -o "$DIR/bad_$1"
  [ ! -e "$DIR/bad_$1" ] && pass || fail "$1: output written"
}
axes='[axes]
scheduler = ["ideal"]'
bad unknown_axis "unknown_axis.toml: line 3, axes.tpp = 4: unknown axis \(known: job, model" "$axes
tpp = 4"
bad empty_list 'empty_list.toml: line 3, axes.tau = \[\]: empty list' "$axes
tau = []"
bad bad_value 'bad_value.toml: line 3, axes.tp\[1\] = -2: must be an integer from 1' "$axes
tp = [4, -2]"
bad bad_model "bad_model.toml: line 3, axes.model\[0\] = 9b: unknown Llama 3 model" "$axes
model = [\"9b\"]"
bad bad_tau 'bad_tau.toml: line 3, axes.tau\[0\] = 10: ' "$axes
tau = [\"10\"]"
bad twice 'twice.toml: line 3, axes.dp\[1\] = 2: listed twice' "$axes
dp = [2, 2]"
bad no_point 'no_point.toml: filter = tp > 8: the filters leave no point of 2' "filter = \"tp > 8\"
$axes
tp = [2, 4]"
bad filter_syntax 'filter_syntax.toml: line 1, filter = tp \* \* 2: expected a value at "\* 2"' "filter = \"tp * * 2\"
$axes"
bad filter_name 'filter_name.toml: line 1, filter = pp == 1: unknown axis pp' "filter = \"pp == 1\"
$axes
tp = [2, 4]"
bad fail_at 'fail_at.toml: line 3, axes.fail_at\[1\] = 150%: must be from 0% \(no failure\) to 100%$' "$axes
fail_at = [0, \"150%\"]"
bad straggler 'straggler.toml: line 3, axes.straggler_factor = 2000: must be a factor in \(0, 1000\] \(1.5 is x1.5\)$' "$axes
straggler_factor = 2000"
# A number axis has its option's bounds (--capacity-factor, --link-gbps).
bad capacity '^flux: error: .*/capacity.toml: line 3, axes.capacity_factor\[1\] = 10000000.0: must be a number between 0 and 1e6$' "$axes
capacity_factor = [1.5, 1e7]"
bad link_gbps '^flux: error: .*/link_gbps.toml: line 3, axes.link_gbps = 1000000000000.0: must be a number in \(0, 1e9\]$' "$axes
link_gbps = 1e12"
bad replan_moves 'replan_moves.toml: line 3, axes.replan_moves = 0: must be an integer from 1 to' "$axes
replan_moves = 0"
bad robust_variant 'robust_variant.toml: line 2, axes.scheduler\[0\] = flux-robust: .*needs a robustness sweep' '[axes]
scheduler = ["flux-robust"]'
bad no_scheduler 'no_scheduler.toml: axes.scheduler: missing' '[axes]
tp = 4'
bad not_toml 'not_toml.toml: line 1: not valid TOML' 'axes = [[['
bad unknown_key 'unknown_key.toml: line 1, axis = .*unknown key' 'axis = 3'
printf '{"axes": {"scheduler": ["ideal"], "tp": []}}' >"$DIR/empty.json"
expect_error bad_json 2 'empty.json: axes.tp = \[\]: empty list' -- "$FLUX" sweep "$DIR/empty.json" -o "$DIR/bad_json"
# Issue 28. Every recursive reader is bounded: deep filters (parentheses,
# unary operators), deep JSON (under an unknown key, under an axis), deep
# TOML, a filter too long, a file too large, /dev/zero, a directory; each
# one line, exit 2, nothing written (also with --dry-run), no crash.
one_line() {  # NAME PATTERN FILE [ARGS...]: exit 2, exactly one stderr line, no -o written
  local name=$1 pattern=$2 file=$3; shift 3
  expect_error "$name" 2 "$pattern" -- "$FLUX" sweep "$file" -o "$DIR/out_$name" "$@"
  [ "$(wc -l < "$DIR/$name.err")" -eq 1 ] && pass || fail "$name: more than one stderr line"
  [ ! -e "$DIR/out_$name" ] && pass || fail "$name: output written"
}
python3 - "$DIR" <<'P'
import sys
d = sys.argv[1]
axes = '[axes]\nlayers = [1, 2]\nscheduler = "ideal"\n'
def toml(name, filt):
    open(f"{d}/{name}.toml", "w").write(f'filter = "{filt}"\n' + axes)
toml("parens", "(" * 10000 + "layers" + ")" * 10000 + " > 0")
toml("minus", "-" * 30000 + "layers < 0")
toml("nots", "!" * 30001 + "0")
toml("sum30k", " + ".join(["layers"] * 30000) + " > 0")
toml("sum7k", " + ".join(["layers"] * 7000) + " > 7000")
jaxes = '"axes": {"layers": [1, 2], "scheduler": "ideal"}'
open(f"{d}/deep_unknown.json", "w").write('{"x": ' + "[" * 70000 + "]" * 70000 + ", " + jaxes + "}")
open(f"{d}/deep_axis.json", "w").write('{"axes": {"scheduler": "ideal", "layers": ' + "[" * 100000 + "]" * 100000 + "}}")
open(f"{d}/deep_open.json", "w").write("[" * 1000000)
open(f"{d}/deep.toml", "w").write("a = " + "[" * 10000 + "\n")
open(f"{d}/tables.toml", "w").write("a = " + "{b = " * 5000 + "1" + "}" * 5000 + "\n")
open(f"{d}/dup.json", "w").write('{"axes": {"layers": 1, "layers": 2, "scheduler": "ideal"}}')
open(f"{d}/nul.json", "w").write('{"name": "a\\u0000b", ' + jaxes + "}")
open(f"{d}/newline.toml", "w").write('name = "a\\nb"\n' + axes)
open(f"{d}/routing_nul.toml", "w").write(axes + 'routing = "file:r.json\\u0000.x"\n')
open(f"{d}/big.toml", "w").write('description = "' + "x" * (1 << 20) + '"\n' + axes)
v = lambda n: "[" + ", ".join(str(i) for i in range(1, n + 1)) + "]"
open(f"{d}/huge.toml", "w").write(f'[axes]\nlayers = {v(100)}\ntp = {v(100)}\ndp = {v(100)}\nseq = {v(100)}\nscheduler = ["ideal", "bvn"]\n')
open(f"{d}/many.toml", "w").write(f'[axes]\nlayers = {v(1001)}\ntp = {v(1000)}\nscheduler = "ideal"\n')
P
for run in "" --dry-run; do
  one_line "parens$run" 'parens.toml: line 1, filter = \(\(\(.*\.\.\. \(20010 bytes\): nested deeper than 256 levels' "$DIR/parens.toml" $run
  one_line "minus$run" 'minus.toml: line 1, filter = ---.*: nested deeper than 256 levels' "$DIR/minus.toml" $run
  one_line "nots$run" 'nots.toml: line 1, filter = !!!.*: nested deeper than 256 levels' "$DIR/nots.toml" $run
  one_line "sum30k$run" 'sum30k.toml: line 1, filter = layers \+ layers.*: longer than 65536 characters, the limit of a filter$' "$DIR/sum30k.toml" $run
  one_line "deep_unknown$run" 'deep_unknown.json: x\[0\]\[0\].*: nested deeper than 256 levels, the limit of a sweep file$' "$DIR/deep_unknown.json" $run
  one_line "deep_axis$run" 'deep_axis.json: axes.layers\[0\]\[0\].*: nested deeper than 256 levels' "$DIR/deep_axis.json" $run
  one_line "deep_open$run" 'deep_open.json: \[0\]\[0\].*: nested deeper than 256 levels' "$DIR/deep_open.json" $run
  one_line "deep_toml$run" 'deep.toml: line 1: not valid TOML: .*depth of 256' "$DIR/deep.toml" $run
  one_line "tables_toml$run" 'tables.toml: line 1: not valid TOML: .*depth of 256' "$DIR/tables.toml" $run
  one_line "dup$run" 'dup.json: axes.layers: duplicate key$' "$DIR/dup.json" $run
  one_line "nul$run" 'nul.json: name = a\\x00b: must be a plain name \(.*control characters\)$' "$DIR/nul.json" $run
  one_line "newline$run" 'newline.toml: line 1, name = a\\nb: must be a plain name' "$DIR/newline.toml" $run
  one_line "routing_nul$run" 'routing_nul.toml: line 4, axes.routing = file:r.json\\x00.x: a control character' "$DIR/routing_nul.toml" $run
  one_line "big$run" 'big.toml: larger than 1 MiB, the limit of a sweep file$' "$DIR/big.toml" $run
  one_line "zero$run" '/dev/zero: larger than 1 MiB, the limit of a sweep file$' /dev/zero $run
  one_line "dir$run" "$DIR: is a directory, not a file\$" "$DIR" $run
  one_line "huge$run" 'huge.toml: axes = 100 x 100 x 100 x 100 x 2: 200000000 combinations of the axes. values, over the limit of 10000000' "$DIR/huge.toml" $run
  one_line "many$run" 'many.toml: axes = 1001 x 1000 x 1: 1001000 points \(about 2.39 GiB to hold\), over the limit of 1000000 points' "$DIR/many.toml" $run
done
# A flat sum within the length limit is fine: one node, evaluated in a loop.
expect_ok sum7k -- "$FLUX" sweep "$DIR/sum7k.toml" -o "$DIR/sum7k" --dry-run
expect_grep sum7k_points '^2,ideal  .*$' "$DIR/sum7k.out"
expect_grep sum7k_count '^1 points$' "$DIR/sum7k.out"

# Resume keeps only rows of this sweep's points with a known status: a row
# of another point (the axis's values changed, or hand-edited) or a status
# nobody writes is refused, and the CSV left as it was.
cp -r "$DIR/j1" "$DIR/stale"
sed 's/^tau = \["10us", "1ms"\]/tau = ["10us", "100us"]/' "$DATA/small.toml" >"$DIR/stale.toml"
grep -q '"100us"' "$DIR/stale.toml" && pass || fail "stale.toml: tau not changed"
cp "$DIR/stale/small.csv" "$DIR/stale.before"
expect_error stale 2 'small.csv: line [0-9]+ = [0-9,]+1ms,[a-z-]+: not a point of this sweep .*--fresh' -- \
  "$FLUX" sweep "$DIR/stale.toml" -o "$DIR/stale" --no-plot
cmp -s "$DIR/stale.before" "$DIR/stale/small.csv" && pass || fail "stale: the CSV was changed"
awk -F, -v OFS=, 'NR == 2 { $6 = "bogus" } { print }' "$DIR/stale.before" >"$DIR/stale/small.csv"
cp "$DIR/stale/small.csv" "$DIR/bogus.before"
expect_error bogus 2 'small.csv: line 2, point_status = bogus: unknown status' -- \
  "$FLUX" sweep "$DATA/small.toml" -o "$DIR/stale" --no-plot
cmp -s "$DIR/bogus.before" "$DIR/stale/small.csv" && pass || fail "bogus: the CSV was changed"
expect_ok stale_fresh -- "$FLUX" sweep "$DIR/stale.toml" -o "$DIR/stale" --no-plot --fresh
expect_grep stale_fresh_rows 'stale: 24 points: 24 ok|small: 24 points: 24 ok' "$DIR/stale_fresh.out"
[ "$(wc -l < "$DIR/stale/small.csv")" -eq 25 ] && pass || fail "stale: expected 24 rows after --fresh"

# A full disk (here the file size limit) while a row is appended: one error
# line, the CSV cut back to its last whole row; the rerun completes it.
mkdir -p "$DIR/full"
(trap '' XFSZ; ulimit -f 2; exec "$FLUX" sweep "$DATA/small.toml" -o "$DIR/full" -j 1 --no-plot) \
  >"$DIR/full.out" 2>"$DIR/full.err"
rc=$?
[ "$rc" -eq 2 ] && pass || fail "full: exit $rc"
[ "$(cat "$DIR/full.err" | grep -v '^flux sweep: \|^\[' | wc -l)" -eq 1 ] && pass || fail "full: expected one error line"
expect_grep full_error '^flux: error: .*small.csv: cannot append a row: File too large$' "$DIR/full.err"
[ "$(tail -c 1 "$DIR/full/small.csv" | od -An -c | tr -d ' ')" = '\n' ] && pass || fail "full: a torn row"
awk -F, 'NR == 1 { n = NF } NF != n { bad = 1 } END { exit bad || NR < 2 }' "$DIR/full/small.csv" && pass || fail "full: rows not whole"
expect_ok full_resume -- "$FLUX" sweep "$DATA/small.toml" -o "$DIR/full" -j 2 --no-plot
same_csv full "$DIR/j1/small.csv" "$DIR/full/small.csv"

# A relative file: routing path is the sweep file's directory's, whatever
# the working directory (and under MPI, whatever the workers' is).
ROUTING=$(cd "$(dirname "$0")/../../docs/examples" && pwd)/routing.json
FLUX_ABS=$(cd "$(dirname "$FLUX")" && pwd)/$(basename "$FLUX")
mkdir -p "$DIR/rel/specs" "$DIR/rel/elsewhere"
cp "$ROUTING" "$DIR/rel/specs/r.json"
cat >"$DIR/rel/specs/moe.toml" <<'T'
name = "moe"
[axes]
model = "mixtral-8x7b"
layers = 2
dp = 4
ep = 4
seq = 16
routing = "file:r.json"
scheduler = "ideal"
T
(cd "$DIR/rel/elsewhere" && "$FLUX_ABS" sweep ../specs/moe.toml -o out --no-plot) >"$DIR/rel.out" 2>&1 && pass || fail "rel: exit $?"
expect_grep rel_ok '^mixtral-8x7b,2,4,16,4,file:r.json,ideal,ok,' "$DIR/rel/elsewhere/out/moe.csv"
if command -v mpirun >/dev/null 2>&1 && "$FLUX" sweep --help | grep -q mpirun; then
  # Rank 0 in rel/, the workers in rel/elsewhere: they read rank 0's path.
  (cd "$DIR/rel" && mpirun "${root[@]}" --oversubscribe -n 1 "$FLUX_ABS" sweep specs/moe.toml -o mpi --no-plot : \
     -n 2 --wdir "$DIR/rel/elsewhere" "$FLUX_ABS" sweep specs/moe.toml -o mpi --no-plot) >"$DIR/rel_mpi.out" 2>&1 \
    && pass || { fail "rel_mpi: exit $?"; cat "$DIR/rel_mpi.out" >&2; }
  expect_grep rel_mpi_ok '^mixtral-8x7b,2,4,16,4,file:r.json,ideal,ok,' "$DIR/rel/mpi/moe.csv"
fi
# No output may be an input, however spelled: the sweep file (here where
# the summary goes, through a symlinked -o), a routing file (where the CSV
# goes). Refused before anything is written; both left as they were.
mkdir -p "$DIR/collide"
ln -s collide "$DIR/collide_link"
printf 'name = "s"\n[axes]\nlayers = 1\nscheduler = "ideal"\n' >"$DIR/collide/s-summary.txt"
cp "$DIR/collide/s-summary.txt" "$DIR/collide.before"
expect_error collide_spec 2 's-summary.txt: -o: is also the sweep file' -- \
  "$FLUX" sweep "$DIR/collide/s-summary.txt" -o "$DIR/collide_link" --no-plot
cmp -s "$DIR/collide.before" "$DIR/collide/s-summary.txt" && pass || fail "collide: the sweep file was changed"
[ ! -e "$DIR/collide/s.csv" ] && pass || fail "collide: the CSV was written"
cp "$ROUTING" "$DIR/rel/specs/moe-summary.txt"
sed -i 's/^routing = .*/routing = "file:moe-summary.txt"/' "$DIR/rel/specs/moe.toml"
expect_error collide_routing 2 'moe-summary.txt: -o: is also a routing file \(axes.routing\)' -- \
  "$FLUX" sweep "$DIR/rel/specs/moe.toml" -o "$DIR/rel/specs/./" --no-plot
cmp -s "$ROUTING" "$DIR/rel/specs/moe-summary.txt" && pass || fail "collide: the routing file was changed"
[ ! -e "$DIR/rel/specs/moe.csv" ] && pass || fail "collide: the CSV was written"
# A CSV of another sweep of the same name is refused and not touched.
sed 's/^layers = \[1, 2\]/layers = [1, 3]/; s/^tp = \[2, 4\]/pp = [1]\ntp = [2, 4]/' "$DATA/small.toml" >"$DIR/other.toml"
cp "$DIR/j1/small.csv" "$DIR/before.csv"
expect_error other_sweep 2 'small.csv: line 1 = layers,tp,dp,tau.*written by another sweep' -- \
  "$FLUX" sweep "$DIR/other.toml" -o "$DIR/j1" --no-plot
cmp -s "$DIR/before.csv" "$DIR/j1/small.csv" && pass || fail "the other sweep's CSV was changed"
finish
