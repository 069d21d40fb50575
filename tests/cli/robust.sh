#!/usr/bin/env bash
# Ordered execution and perturbed trials end to end: every execution mode
# replays an unperturbed flux schedule to its makespan; jittered trials
# deliver every byte, write per-trial values and percentiles, and the same
# seed gives the same files byte for byte; bad perturbation options are one
# clear error and write nothing.
source "$(dirname "$0")/lib.sh" "$@"

expect_ok gen -- "$FLUX" generate llama3 --layers 4 --tp 4 --dp 2 -o "$DIR/w.json"
expect_ok sched -- "$FLUX" schedule "$DIR/w.json" --scheduler flux --tau 10us -o "$DIR/s.json"
for ex in strict ordered ordered-no-early; do
  expect_ok "sim-$ex" -- "$FLUX" simulate "$DIR/w.json" --schedule "$DIR/s.json" --execution "$ex"
  expect_grep "equal-$ex" 'schedule says .*\(equal\)' "$DIR/sim-$ex.out"
done

run_trials() {
  "$FLUX" simulate "$DIR/w.json" --schedule "$DIR/s.json" --compute-jitter 10% --straggler 3:1.1 \
    --trials 5 --perturb-seed 11 --trace-trial 2 -o "$DIR/$1.json" --trace "$DIR/$1.trace.json"
}
expect_ok trials -- run_trials m1
expect_ok trials-again -- run_trials m2
if cmp -s "$DIR/m1.json" "$DIR/m2.json" && cmp -s "$DIR/m1.trace.json" "$DIR/m2.trace.json"; then
  pass
else
  fail "same seed, different outputs"
fi
expect_grep delivered '"all_bytes_delivered": true' "$DIR/m1.json"
expect_grep count '"count": 5,' "$DIR/m1.json"
expect_grep execution '"execution": "ordered",' "$DIR/m1.json"
expect_grep p99 '"p99": ' "$DIR/m1.json"
expect_grep summary 'every byte delivered in every trial' "$DIR/trials.out"
# Without perturbation or trials the metrics file has no trials object.
expect_ok plain -- "$FLUX" simulate "$DIR/w.json" --schedule "$DIR/s.json" -o "$DIR/plain.json"
if grep -q '"trials"' "$DIR/plain.json"; then fail "plain metrics carry trials"; else pass; fi

sim() { "$FLUX" simulate "$DIR/w.json" --schedule "$DIR/s.json" -o "$DIR/bad.json" "$@"; }
expect_error strict 2 'flux: error: --execution = strict: strict replays' -- sim --execution strict --compute-jitter 5%
expect_error mode 2 'flux: error: --execution = eager: expected strict' -- sim --execution eager
expect_error percent 2 'flux: error: --compute-jitter = 5x: expected a fraction \(0\.05\) or a percentage' -- sim --compute-jitter 5x
expect_error negative 2 'flux: error: --compute-jitter = -5%: expected a fraction \(0\.05\) or a percentage' -- sim --compute-jitter -5%
expect_error rank 2 'flux: error: .*--straggler = 8: the rank is not an accelerator' -- sim --straggler 8:2
expect_error factor 2 'flux: error: --straggler = 1:0: the factor must be in \(0, 1000\]$' -- sim --straggler 1:0
expect_error form 2 'flux: error: --straggler = 1.5: expected RANK:FACTOR' -- sim --straggler 1.5
expect_error trials 2 'flux: error: --trials = 0: must be' -- sim --trials 0
expect_error trace-trial 2 'flux: error: --trace-trial = 3: must be below --trials' -- sim --trials 3 --trace-trial 3
if [ -e "$DIR/bad.json" ]; then fail "an error wrote the metrics"; else pass; fi
finish
