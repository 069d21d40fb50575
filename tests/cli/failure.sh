#!/usr/bin/env bash
# A failed switch end to end (flux simulate --fail-switch): the summary
# prints the re-planning's wall time beside the iteration time, the metrics
# carry the failure and every byte; a failure after the iteration's end is
# the plain run; jittered trials re-plan per trial and the same seed gives
# the same metrics (wall times aside); a trace of the remainder; bad
# failures are one clear error and write nothing.
source "$(dirname "$0")/lib.sh" "$@"

expect_ok gen -- "$FLUX" generate llama3 --layers 2 --tp 4 --dp 2 -o "$DIR/w.json"
expect_ok sched -- "$FLUX" schedule "$DIR/w.json" --scheduler greedy --tau 10us -o "$DIR/s.json"
expect_ok one -- "$FLUX" schedule "$DIR/w.json" --scheduler greedy --switches 1 -o "$DIR/s1.json"
sim() { "$FLUX" simulate "$DIR/w.json" --schedule "$DIR/s.json" "$@"; }

# Mid-iteration (the plan ends at 44.2 ms): re-planned by the schedule's scheduler.
expect_ok mid -- sim --fail-switch 1@20ms -o "$DIR/mid.json" --trace "$DIR/mid.trace.json"
expect_grep mid-summary 'iteration time .*switch 1 dark at 20 ms: [0-9]+ sends re-planned by greedy in [0-9.]+ s wall time' "$DIR/mid.out"
expect_grep mid-plan 'schedule says .*planned without the failure' "$DIR/mid.out"
expect_grep mid-failure '"failure": \{"switch": 1, "time_ps": 20000000000, "disrupted": true' "$DIR/mid.json"
expect_grep mid-fields '"replan_scheduler": "greedy", .*"remainder_iteration_time_s": .*"replan_wall_time_s": ' "$DIR/mid.json"
expect_grep mid-bytes '"bytes_delivered": 8187543552,' "$DIR/mid.json"
expect_grep mid-trace '"traceEvents"' "$DIR/mid.trace.json"
# Another scheduler re-plans on request.
expect_ok rotor -- sim --fail-switch 0@20ms --replan-scheduler rotornet -o "$DIR/rotor.json"
expect_grep rotor '"replan_scheduler": "rotornet"' "$DIR/rotor.json"
expect_grep rotor-bytes '"bytes_delivered": 8187543552,' "$DIR/rotor.json"

# After the iteration's end nothing happens: the metrics are the plain run's.
expect_ok plain -- sim -o "$DIR/plain.json"
expect_ok late -- sim --fail-switch 0@1s -o "$DIR/late.json"
expect_grep late-summary 'dark at 1 s: nothing to re-plan' "$DIR/late.out"
flat() { tr -d '\n ' <"$1"; }  # one line without blanks
if [ "$(grep -v '"failure"' "$DIR/late.json" | tr -d '\n ,')" = "$(tr -d '\n ,' <"$DIR/plain.json")" ]; then
  pass
else
  fail "a failure after the end changed the metrics"
fi

# Trials: each re-plans; the same seed gives the same file but for wall times.
run_trials() {
  sim --fail-switch 1@20ms --compute-jitter 5% --trials 3 --perturb-seed 5 -o "$DIR/$1.json"
}
expect_ok trials -- run_trials t1
expect_ok trials-again -- run_trials t2
strip() { flat "$1" | sed -E 's/"replan_wall_time_s":(\[[^]]*\]|[0-9.e+-]+)//g'; }
if [ "$(strip "$DIR/t1.json")" = "$(strip "$DIR/t2.json")" ]; then pass; else fail "same seed, different metrics"; fi
expect_grep trials-delivered '"all_bytes_delivered": true' "$DIR/t1.json"
flat "$DIR/t1.json" >"$DIR/t1.flat"
expect_grep trials-per-trial '"failure":\{"replanned_sends":\[[0-9]+,[0-9]+,[0-9]+\]' "$DIR/t1.flat"

# Bad failures: one error line, exit 2, nothing written.
bad() { sim -o "$DIR/bad.json" "$@"; }
expect_error range 2 'flux: error: --fail-switch = 2@20 ms: no such switch: the system has 2' -- bad --fail-switch 2@20ms
expect_error form 2 'flux: error: --fail-switch = 20ms: expected SWITCH@TIME' -- bad --fail-switch 20ms
expect_error switch 2 'flux: error: --fail-switch = x@20ms: expected SWITCH@TIME with SWITCH' -- bad --fail-switch x@20ms
expect_error negative 2 'flux: error: --fail-switch = 1@-2ms: the time' -- bad --fail-switch 1@-2ms
expect_error unit 2 'flux: error: --fail-switch = 1@2: the time' -- bad --fail-switch 1@2
expect_error single 2 'flux: error: --fail-switch = 0@20 ms: the system has a single switch' -- \
  "$FLUX" simulate "$DIR/w.json" --schedule "$DIR/s1.json" --fail-switch 0@20ms -o "$DIR/bad.json"
expect_error scheduler 2 'flux: error: --replan-scheduler = nope: unknown scheduler' -- bad --fail-switch 1@20ms --replan-scheduler nope
expect_error alone 2 'flux: error: --replan-scheduler: .*apply with --fail-switch only' -- bad --replan-delay 1ms
expect_error limit 2 'flux: error: --replan-time-limit = -1s: ' -- bad --fail-switch 1@20ms --replan-time-limit -1s
if [ -e "$DIR/bad.json" ]; then fail "an error wrote the metrics"; else pass; fi
finish
