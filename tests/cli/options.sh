#!/usr/bin/env bash
# One meaning per number and no option ignored: fractions and percentages
# read alike on every surface (a bare number is a fraction, a percentage
# says %, a bare number >= 1 is refused), seeds from 0 to 2^63 - 1, options
# a combination would ignore refused, a command's several outputs written
# all or none, and the one-line errors of an invalid schedule and of the
# simulated-time limit.
source "$(dirname "$0")/lib.sh" "$@"

W=$DIR/w.json
S=$DIR/s.json
"$FLUX" generate llama3 --layers 1 --tp 2 --dp 2 -o "$W" 2>/dev/null
"$FLUX" schedule "$W" --scheduler greedy -o "$S" >/dev/null
sim() { "$FLUX" simulate "$W" --schedule "$S" "$@"; }

# --- Fractions and percentages ----------------------------------------------
# 0.05 is 5%, on the command line as in Python: the same run.
expect_ok frac -- sim --compute-jitter 0.05 --trials 3 -o "$DIR/frac.json"
expect_ok pct -- sim --compute-jitter 5% --trials 3 -o "$DIR/pct.json"
cmp -s "$DIR/frac.json" "$DIR/pct.json" && pass || fail "--compute-jitter 0.05 and 5% differ"
expect_grep frac_cv '"compute_jitter_cv": 0\.05' "$DIR/frac.json"
expect_grep frac_line 'jitter 5%' "$DIR/frac.out"
expect_ok big_pct -- sim --compute-jitter 150% -o "$DIR/big.json"
# A bare number of 1 or more is ambiguous: refused, suggesting N%.
ambiguous='ambiguous: a bare number is a fraction below 1 \(0\.05 is 5%\); for a percentage write'
for v in 5 1 1.5 1000; do
  expect_error "jitter_$v" 2 "^flux: error: --compute-jitter = $v: $ambiguous $v%\$" -- sim --compute-jitter "$v"
done
for v in -0.1 nan 1001% 5%% abc; do
  expect_error "jitter_bad_$v" 2 "^flux: error: --compute-jitter = $v: expected a fraction \(0\.05\) or a percentage \(5%\) from 0% to 1000%\$" \
    -- sim --compute-jitter "$v"
done
expect_error jitter_empty 2 '^flux: error: --compute-jitter: expected a fraction' -- sim --compute-jitter ''
# --robust-jitter: the same rule, its help in percent.
expect_error robust_10 2 "^flux: error: --robust-jitter = 10: $ambiguous 10%" -- \
  "$FLUX" schedule "$W" --robust-jitter 10 -o "$DIR/r.json"
[ ! -e "$DIR/r.json" ] && pass || fail "r.json written despite the error"
expect_ok robust_frac -- "$FLUX" schedule "$W" --scheduler greedy --robust-jitter 0.1 -o "$DIR/r1.json"
expect_ok robust_pct -- "$FLUX" schedule "$W" --scheduler greedy --robust-jitter 10% -o "$DIR/r2.json"
cmp -s <(grep -v solve_time "$DIR/r1.json") <(grep -v solve_time "$DIR/r2.json") && pass ||
  fail "--robust-jitter 0.1 and 10% differ"
"$FLUX" schedule --help >"$DIR/help.txt"
expect_grep robust_help '--robust-jitter FRACTION .*\(0\.1 or 10%.*between 0% and 1000%' "$DIR/help.txt"
"$FLUX" simulate --help >"$DIR/shelp.txt"
expect_grep jitter_help '--compute-jitter FRACTION .*0\.05 or 5%.*between 0% and 1000%' "$DIR/shelp.txt"
# evaluate's lists: the same rule.
expect_error jitters_5 2 "^flux: error: --jitters = 5: $ambiguous 5%" -- \
  "$FLUX" evaluate --preset robustness --layers 1 --jitters 0,5 -o "$DIR/e"
expect_error failure_jitters_5 2 "^flux: error: --failure-jitters = 5: $ambiguous 5%" -- \
  "$FLUX" evaluate --preset robustness --layers 1 --failure-jitters 5 -o "$DIR/e"
[ ! -e "$DIR/e" ] && pass || fail "evaluate made its directory despite the error"
# Sweep files: a number is a fraction (kept as its percentage), "5%" a percentage.
axes='[axes]
layers = 1
tp = 2
dp = 2
tau = "10us"
trials = 2
scheduler = "ideal"'
printf '%s\njitter = [0, 0.05, "20%%"]\n' "$axes" >"$DIR/j.toml"
expect_ok sweep_frac -- "$FLUX" sweep "$DIR/j.toml" -o "$DIR/sj" --dry-run
expect_grep sweep_5pct '^1,2,2,10us,5%,2,ideal ' "$DIR/sweep_frac.out"
expect_grep sweep_20pct '^1,2,2,10us,20%,2,ideal ' "$DIR/sweep_frac.out"
printf '%s\njitter = [0, 5]\n' "$axes" >"$DIR/j5.toml"
expect_error sweep_5 2 "^flux: error: .*j5.toml: line 8, axes.jitter\[1\] = 5: $ambiguous 5%\$" -- \
  "$FLUX" sweep "$DIR/j5.toml" -o "$DIR/sj" --dry-run
printf '{"axes": {"layers": 1, "tp": 2, "dp": 2, "tau": "10us", "fail_at": 50, "scheduler": "ideal"}}' >"$DIR/f.json"
expect_error sweep_fail_at 2 "^flux: error: .*f.json: axes.fail_at = 50: $ambiguous 50%\$" -- \
  "$FLUX" sweep "$DIR/f.json" -o "$DIR/sj" --dry-run

# --- Seeds: 0 to 2^63 - 1 everywhere ------------------------------------------
seed_range='must be an integer between 0 and 9223372036854775807'
for v in -1 9223372036854775808 18446744073709551615 18446744073709551616; do
  expect_error "perturb_seed_$v" 2 "^flux: error: --perturb-seed = $v: $seed_range\$" -- \
    sim --compute-jitter 5% --perturb-seed "$v"
  expect_error "seed_$v" 2 "^flux: error: --seed = $v: $seed_range\$" -- \
    "$FLUX" schedule "$W" --seed "$v"
  expect_error "routing_seed_$v" 2 "^flux: error: --routing-seed = $v: $seed_range\$" -- \
    "$FLUX" generate moe --layers 1 --routing zipf:1.2 --routing-seed "$v" -o "$DIR/moe.json"
done
expect_ok seed_max -- sim --compute-jitter 5% --perturb-seed 9223372036854775807

# --- Options a combination would ignore --------------------------------------
"$FLUX" schedule "$W" --scheduler greedy --duplex full -o "$DIR/sfull.json" >/dev/null
expect_error duplex_with_schedule 2 '^flux: error: --schedule = .*sfull.json: the system comes from the schedule file: the system options \(--duplex\) only apply with --scheduler$' -- \
  "$FLUX" simulate "$W" --schedule "$DIR/sfull.json" --duplex half
expect_error system_with_schedule 2 'the system options \(--switches, --tau\) only apply' -- \
  sim --tau 1us --switches 4
expect_error sched_with_schedule 2 'already planned: the scheduler options \(--time-limit, --seed\) only apply with --scheduler' -- \
  sim --time-limit 1s --seed 3
expect_error save_with_schedule 2 '^flux: error: --save-schedule = .*x.json: writes the schedule --scheduler makes' -- \
  sim --save-schedule "$DIR/x.json"
[ ! -e "$DIR/x.json" ] && pass || fail "x.json written despite the error"
# With --fail-switch the scheduler options steer the re-planning: accepted
# when the re-planning scheduler reads them (S's own, greedy, does not).
expect_ok replan_options -- sim --fail-switch 1@1ms --time-limit 1s --moves 10 --replan-scheduler flux
expect_error replan_greedy_moves 2 '^flux: error: --moves = 10: applies to --scheduler flux, flux-milp only \(not greedy\)$' -- \
  sim --fail-switch 1@1ms --moves 10
# An option no scheduler of the run reads is refused, naming those that do.
expect_error moves_bvn 2 '^flux: error: --moves = 5: applies to --scheduler flux, flux-milp only \(not bvn\)$' -- \
  "$FLUX" schedule "$W" --scheduler bvn --moves 5 -o "$DIR/x.json"
expect_error duty_flux 2 '^flux: error: --duty-cycle = 0\.5: applies to --scheduler rotornet, rotornet-vlb only \(not flux\)$' -- \
  "$FLUX" schedule "$W" --duty-cycle 0.5 -o "$DIR/x.json"
expect_error gap_flux 2 '^flux: error: --gap = 0\.01: applies to --scheduler flux-milp only \(not flux\)$' -- \
  "$FLUX" schedule "$W" --gap 0.01 -o "$DIR/x.json"
expect_error lpbound_greedy 2 '^flux: error: --no-lp-bound: applies to --scheduler flux only \(not greedy\)$' -- \
  "$FLUX" simulate "$W" --scheduler greedy --no-lp-bound
expect_error nosym_flux 2 '^flux: error: --no-symmetry: applies to --scheduler flux-milp only \(not flux\)$' -- \
  "$FLUX" schedule "$W" --no-symmetry -o "$DIR/x.json"
expect_error evaluate_moves 2 '^flux: error: --moves = 5: applies to --scheduler flux, flux-milp only \(not bvn, rotornet\)$' -- \
  "$FLUX" evaluate --schedulers bvn,rotornet --moves 5 --layers 1 --tau 1ms -o "$DIR/e_moves"
[ ! -e "$DIR/x.json" ] && [ ! -e "$DIR/e_moves" ] && pass || fail "written despite the errors"
# Read by the scheduler chosen (or by one of evaluate's): accepted; a value
# equal to the default changes nothing and is accepted anywhere.
expect_ok duty_rotornet -- "$FLUX" schedule "$W" --scheduler rotornet --duty-cycle 0.5 -o "$DIR/dr.json"
expect_ok seed_default_bvn -- "$FLUX" schedule "$W" --scheduler bvn --seed 1 -o "$DIR/sb.json"
expect_ok verbose_greedy -- "$FLUX" schedule "$W" --scheduler greedy -v -o "$DIR/vg.json"
for s in rotornet rotornet-vlb bvn ideal; do
  expect_error "robust_$s" 2 "^flux: error: --robust-jitter = 10%: $s plans circuits from the traffic alone" -- \
    "$FLUX" schedule "$W" --scheduler "$s" --robust-jitter 10% -o "$DIR/rr.json"
done
expect_error robust_sim_bvn 2 'bvn plans circuits from the traffic alone' -- \
  "$FLUX" simulate "$W" --scheduler bvn --robust-jitter 5%
[ ! -e "$DIR/rr.json" ] && pass || fail "rr.json written despite the error"

# --- Several outputs: all or none ---------------------------------------------
# /dev/full is written directly and fails (ENOSPC) after the files' temporaries
# are complete: the metrics file keeps its old contents, the schedule is not
# created and no temporary is left.
mkdir -p "$DIR/out"
echo old-metrics >"$DIR/out/m.json"
echo old-trace >"$DIR/out/t.json"
expect_error full_trace 2 '^flux: error: /dev/full: cannot write: No space left on device$' -- \
  sim -o "$DIR/out/m.json" --trace /dev/full
[ "$(cat "$DIR/out/m.json")" = old-metrics ] && pass || fail "-o replaced although --trace failed"
expect_error full_metrics 2 '/dev/full: cannot write' -- \
  "$FLUX" simulate "$W" --scheduler greedy -o /dev/full --trace "$DIR/out/t.json" \
  --save-schedule "$DIR/out/new.json"
[ "$(cat "$DIR/out/t.json")" = old-trace ] && pass || fail "--trace replaced although -o failed"
[ ! -e "$DIR/out/new.json" ] && pass || fail "--save-schedule created although -o failed"
[ "$(ls -A "$DIR/out" | sort | tr '\n' ' ')" = "m.json t.json " ] && pass ||
  fail "files left in out/: $(ls -A "$DIR/out")"
# All three written when nothing fails.
expect_ok all_three -- "$FLUX" simulate "$W" --scheduler greedy -o "$DIR/out/m.json" \
  --trace "$DIR/out/t.json" --save-schedule "$DIR/out/new.json"
expect_grep all_metrics '"format": "flux.metrics/v1"' "$DIR/out/m.json"
expect_grep all_schedule '"format": "flux.schedule/v1"' "$DIR/out/new.json"
# unfold: the workload and the schedule, both or neither.
"$FLUX" generate llama3 --layers 1 --tp 2 --dp 8 --fold-dp 4 -o "$DIR/fold.json" 2>/dev/null
"$FLUX" schedule "$DIR/fold.json" --scheduler greedy -o "$DIR/fold_s.json" >/dev/null
echo old-job >"$DIR/out/job.json"
expect_error unfold_full 2 '/dev/full: cannot write' -- \
  "$FLUX" unfold "$DIR/fold.json" -o "$DIR/out/job.json" --schedule "$DIR/fold_s.json" \
  --schedule-output /dev/full
[ "$(cat "$DIR/out/job.json")" = old-job ] && pass || fail "unfold replaced -o although the schedule failed"

# --- One-line errors ----------------------------------------------------------
# An invalid schedule: its first violation and how many more, on one line.
sed -E 's/"start_s": [0-9.e-]+/"start_s": 0/' "$S" >"$DIR/bad.json"
expect_error invalid_schedule 2 '^flux: error: .*bad.json: invalid schedule from greedy for workload .*: [0-9]+ violations: task [0-9]+ .* \(and [0-9]+ more; flux validate lists them\)$' -- \
  "$FLUX" simulate "$W" --schedule "$DIR/bad.json" -o "$DIR/m2.json"
[ "$(wc -l <"$DIR/invalid_schedule.err")" -eq 1 ] && pass || fail "invalid schedule: more than one stderr line"
[ ! -e "$DIR/m2.json" ] && pass || fail "m2.json written despite the error"
expect_error unfold_invalid 2 '^flux: error: .*bad_fold.json: invalid schedule .* \(and [0-9]+ more; flux validate lists them\)$' -- \
  bash -c "sed -E 's/\"start_s\": [0-9.e-]+/\"start_s\": 0/' '$DIR/fold_s.json' >'$DIR/bad_fold.json' &&
    '$FLUX' unfold '$DIR/fold.json' -o '$DIR/job2.json' --schedule '$DIR/bad_fold.json' --schedule-output '$DIR/js2.json'"
# The simulated-time limit names --max-time, not the schedule.
expect_error max_time 1 '^flux: error: the iteration has not finished within the simulated-time limit max_time \(--max-time 1 ms\): 40 of 40 sends unfinished, the next event at .*; raise the limit$' -- \
  "$FLUX" simulate "$W" --scheduler ideal --max-time 1ms

# --- evaluate: one scheduler plots; a list value twice is refused -------------
expect_ok eval_ideal -- "$FLUX" evaluate --layers 1 --tau 1us,10us --schedulers ideal -o "$DIR/e20"
gp20=$DIR/e20/fig2.gp
expect_grep eval_layout "^plot \\\$s0 using 1:2 with linespoints linetype 1 title 'ideal'$" "$gp20"
# ideal has no memory or reconfigurations panel worth drawing: empty, linear.
[ "$(grep -c '^plot -1 notitle$' "$gp20")" -eq 4 ] && pass || fail "expected 2 empty panels per output"
! grep -Eq '^plot *$' "$gp20" && pass || fail "the plot has an empty plot command"
! grep -q 'against the best other scheduler' "$DIR/e20/summary.txt" && pass ||
  fail "summary.txt compares ideal with nothing"
if command -v gnuplot >/dev/null; then
  [ -s "$DIR/e20/fig2.png" ] && pass || fail "no plot for one scheduler"
fi
expect_error eval_tau_twice 2 '^flux: error: --tau = 1 us: listed twice$' -- \
  "$FLUX" evaluate --layers 1 --tau 1us,1000ns --schedulers ideal -o "$DIR/e21"
expect_error eval_layers_twice 2 '^flux: error: --layers = 1: listed twice$' -- \
  "$FLUX" evaluate --layers 1,1 --tau 1us --schedulers ideal -o "$DIR/e21"
expect_error robust_jitters_twice 2 '^flux: error: --jitters = 0\.05: listed twice$' -- \
  "$FLUX" evaluate --preset robustness --layers 1 --jitters 5%,0.05 -o "$DIR/e21"
expect_error robust_tau_twice 2 '^flux: error: --tau = 10 us: listed twice$' -- \
  "$FLUX" evaluate --preset robustness --layers 1 --tau 10us,0.01ms -o "$DIR/e21"
[ ! -e "$DIR/e21" ] && pass || fail "evaluate made its directory despite the error"

# A routing path that is not UTF-8: escaped in the workload's name (which
# must be UTF-8), the file itself read as named.
odd=$DIR/$(printf 'r\xffx.json')
cp "$(dirname "$0")/../../docs/examples/routing.json" "$odd"
expect_ok routing_non_utf8 -- "$FLUX" generate moe --model mixtral-8x7b --layers 2 --dp 4 --ep 4 \
  --seq 16 --micro-batches 1 --routing "file:$odd" -o "$DIR/odd.json"
expect_grep routing_name '"name": ".*file:.*r\\\\xffx\.json' "$DIR/odd.json"
"$FLUX" generate moe --model mixtral-8x7b --layers 2 --dp 4 --ep 4 --seq 16 --micro-batches 1 \
  --routing "file:$(dirname "$0")/../../docs/examples/routing.json" -o "$DIR/plain.json" 2>/dev/null
cmp -s <(grep -v '"name"' "$DIR/odd.json") <(grep -v '"name"' "$DIR/plain.json") && pass ||
  fail "the non-UTF-8 routing path gave another workload"

# rotornet on 100,000 accelerators (3 sends): its circuits sized before any
# is built, refused at once with the size (not "out of memory ... fold it").
python3 - "$DIR/n100000.json" <<'PY'
import json, sys
tasks = [{"id": i, "src": i, "dst": i + 1, "bytes": 1000} for i in range(3)]
json.dump({"format": "flux.workload/v1", "name": "n100000", "accelerators": 100000,
           "tasks": tasks, "deps": []}, open(sys.argv[1], "w"))
PY
for s in rotornet rotornet-vlb; do
  expect_error "rotornet_big_$s" 2 '^flux: error: accelerators = 100000: .*(GiB|circuits).*rotornet.*(bvn)' -- \
    vm_limited 4000000 "$FLUX" schedule "$DIR/n100000.json" --scheduler "$s" -o "$DIR/rbig.json"
done
[ ! -e "$DIR/rbig.json" ] && pass || fail "rbig.json written despite the error"
expect_ok bvn_big -- "$FLUX" schedule "$DIR/n100000.json" --scheduler bvn -o "$DIR/bbig.json"

finish
