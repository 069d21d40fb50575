#!/usr/bin/env bash
# A plan run on another workload of the same structure (flux simulate
# --run-on; docs/model.md "Running a plan on another workload"): Llama 3 8B
# planned at one sequence length and run at another (same sends and deps,
# other sizes and compute). Running on itself reproduces the plan; longer
# sequences take longer; the metrics name both workloads; a workload of
# another structure, strict execution and --fail-switch are one clear error
# and write nothing.
source "$(dirname "$0")/lib.sh" "$@"

gen() { "$FLUX" generate llama3 --layers 2 --tp 4 --dp 2 "$@"; }
expect_ok gen-a -- gen --seq 4096 -o "$DIR/a.json"
expect_ok gen-b -- gen --seq 8192 -o "$DIR/b.json"
expect_ok gen-c -- "$FLUX" generate llama3 --layers 3 --tp 4 --dp 2 -o "$DIR/c.json"
expect_ok sched -- "$FLUX" schedule "$DIR/a.json" --scheduler flux --tau 10us -o "$DIR/s.json"

expect_ok self -- "$FLUX" simulate "$DIR/a.json" --schedule "$DIR/s.json" --run-on "$DIR/a.json" \
  -o "$DIR/self.json"
expect_grep self-equal 'schedule says .*planned for the other workload' "$DIR/self.out"
makespan=$(grep -Eo '"schedule_makespan_s": [0-9.e+-]+' "$DIR/self.json" | cut -d' ' -f2)
iter=$(grep -Eo '"iteration_time_s": [0-9.e+-]+' "$DIR/self.json" | cut -d' ' -f2)
if [ -n "$iter" ] && [ "$iter" = "$makespan" ]; then pass; else fail "on itself: $iter != $makespan"; fi

expect_ok on-b -- "$FLUX" simulate "$DIR/a.json" --schedule "$DIR/s.json" --run-on "$DIR/b.json" \
  -o "$DIR/on-b.json"
expect_grep planned-for '"planned_for": ' "$DIR/on-b.json"
expect_grep planned-line '^planned for ' "$DIR/on-b.out"
iter_b=$(grep -Eo '"iteration_time_s": [0-9.e+-]+' "$DIR/on-b.json" | cut -d' ' -f2)
if python3 -c "import sys; sys.exit(0 if float('$iter_b') > float('$iter') else 1)"; then pass; else
  fail "seq 8192 on the seq 4096 plan ($iter_b s) not slower than the plan ($iter s)"
fi
# With --scheduler the plan is made for the positional workload.
expect_ok plan-run -- "$FLUX" simulate "$DIR/a.json" --scheduler greedy --tau 10us \
  --run-on "$DIR/b.json" --trials 2

sim() { "$FLUX" simulate "$DIR/a.json" --schedule "$DIR/s.json" -o "$DIR/bad.json" "$@"; }
expect_error structure 2 "flux: error: .*c.json: tasks = .*differs from the planned workload" -- \
  sim --run-on "$DIR/c.json"
expect_error strict 2 'flux: error: --execution = strict: strict replays' -- \
  sim --run-on "$DIR/b.json" --execution strict
expect_error failure 2 'flux: error: --run-on = .*do not combine' -- \
  sim --run-on "$DIR/b.json" --fail-switch 1@1ms
expect_error missing 2 'flux: error: .*nope.json' -- sim --run-on "$DIR/nope.json"
expect_error itself 2 'flux: error: ' -- sim --run-on "$DIR/bad.json" -o "$DIR/bad.json"
if [ -e "$DIR/bad.json" ]; then fail "an error wrote bad.json"; else pass; fi
finish
