#!/usr/bin/env bash
# Collective choice end to end (docs/model.md, "Collective choice"):
# --collective auto keeps each collective in every decomposition that
# applies; every scheduler runs one alternative of each (the schedule's
# "choice", flux.schedule/v4), the validator and the simulator resolve the
# workload with it, --alternative fixes it; a sweep's collective axis and
# the CSV's collective and choice columns; bad uses are one error line.
source "$(dirname "$0")/lib.sh" "$@"

gen="generate llama3 --layers 2 --tp 4 --dp 2"
expect_ok gen-auto -- "$FLUX" $gen --collective auto -o "$DIR/a.json"
expect_grep gen-line 'in all the alternatives of 16 collectives; with the first of each \(416 sends\)' \
  "$DIR/gen-auto.out"
expect_grep format '"format": "flux.workload/v2"' "$DIR/a.json"
expect_ok info -- "$FLUX" info "$DIR/a.json"
expect_grep info-line '^choices +16 collectives in several decompositions \(ring, direct, halving-doubling\): 43046721 choices' \
  "$DIR/info.out"
for sched in flux greedy rotornet rotornet-vlb bvn ideal; do
  expect_ok "sched-$sched" -- "$FLUX" schedule "$DIR/a.json" --scheduler "$sched" --time-limit 2s \
    -o "$DIR/$sched.json"
  expect_grep "v4-$sched" '"format": "flux.schedule/v4"' "$DIR/$sched.json"
  expect_ok "valid-$sched" -- "$FLUX" validate "$DIR/a.json" "$DIR/$sched.json"
  expect_ok "replay-$sched" -- "$FLUX" simulate "$DIR/a.json" --schedule "$DIR/$sched.json"
done

# A fixed alternative is the job generated with it, send for send.
expect_ok gen-ring -- "$FLUX" $gen -o "$DIR/r.json"
expect_ok sched-ring -- "$FLUX" schedule "$DIR/a.json" --scheduler greedy --alternative ring \
  -o "$DIR/ar.json"
expect_ok sched-ring-fixed -- "$FLUX" schedule "$DIR/r.json" --scheduler greedy -o "$DIR/rr.json"
expect_ok sim-ar -- "$FLUX" simulate "$DIR/a.json" --schedule "$DIR/ar.json"
expect_ok sim-rr -- "$FLUX" simulate "$DIR/r.json" --schedule "$DIR/rr.json"
a=$(grep -E '^iteration time' "$DIR/sim-ar.out")
r=$(grep -E '^iteration time' "$DIR/sim-rr.out")
if [ -n "$a" ] && [ "$a" = "$r" ]; then pass; else fail "ring alternative '$a' != ring job '$r'"; fi

# Tampered: a schedule that names no choice, or another one.
sed 's/"choice": \["ring"/"choice": ["direct"/' "$DIR/ar.json" > "$DIR/other.json"
expect_error tampered 2 'invalid schedule: 24 violation' -- \
  "$FLUX" validate "$DIR/a.json" "$DIR/other.json"
expect_grep tampered-why "^violation: task 0 is a send of alternative 'ring' of choice group 0, but the schedule chose 'direct'" \
  "$DIR/tampered.out"
grep -v '"choice"' "$DIR/ar.json" > "$DIR/none.json"
expect_error no-choice 2 'invalid schedule: 1 violation' -- \
  "$FLUX" validate "$DIR/a.json" "$DIR/none.json"
expect_grep no-choice-why '^violation: choice: .*a schedule names one alternative of each' \
  "$DIR/no-choice.out"

# Bad uses: one error line, nothing written.
expect_error bad-alternative 2 'no collective of the workload has this alternative' -- \
  "$FLUX" schedule "$DIR/a.json" --alternative bruck -o "$DIR/x.json"
expect_error empty-alternative 2 '--alternative: must not be empty' -- \
  "$FLUX" schedule "$DIR/a.json" --alternative "" -o "$DIR/x.json"
expect_error plain-alternative 2 'no collective in several decompositions' -- \
  "$FLUX" schedule "$DIR/r.json" --alternative ring -o "$DIR/x.json"
expect_error bad-collective 2 'unknown collective algorithm \(use ring, direct, halving-doubling, bruck, hierarchical or auto\)' -- \
  "$FLUX" $gen --collective fastest -o "$DIR/x.json"
expect_error chakra-auto 2 'a Chakra trace holds one algorithm per collective' -- \
  "$FLUX" $gen --collective auto --format chakra -o "$DIR/x"
expect_error choice-empty 2 '--choice: an empty path' -- \
  "$FLUX" $gen --collective auto --format chakra --choice "" -o "$DIR/x"
expect_error choice-json 2 'only a Chakra trace is written with a schedule' -- \
  "$FLUX" $gen --collective auto --choice "$DIR/flux.json" -o "$DIR/x.json"
expect_error choice-fixed 2 'the job has no collective in several decompositions' -- \
  "$FLUX" $gen --collective ring --format chakra --choice "$DIR/flux.json" -o "$DIR/x"
expect_error choice-other 2 'a schedule of another workload' -- \
  "$FLUX" generate llama3 --layers 1 --tp 4 --dp 2 --collective auto --format chakra \
  --choice "$DIR/flux.json" -o "$DIR/x"
if [ -e "$DIR/x.json" ] || [ -e "$DIR/x.0.et" ]; then fail "an output was written"; else pass; fi

# The Chakra trace of a chosen decomposition (--choice): the schedule's
# sends, which the import gives back; --alternative ring's is the ring job's.
expect_ok chakra-choice -- "$FLUX" $gen --collective auto --format chakra --choice "$DIR/ar.json" \
  -o "$DIR/tr"
expect_grep chakra-choice-line "\\(the decompositions of $DIR/ar.json\\): .*, 416 sends" \
  "$DIR/chakra-choice.out"
expect_ok chakra-import -- "$FLUX" import chakra "$DIR/tr" -o "$DIR/back.json"
expect_ok gen-ring -- "$FLUX" $gen --collective ring -o "$DIR/ring.json"
if cmp -s "$DIR/back.json" "$DIR/ring.json"; then pass; else fail "the ring choice's trace is not the ring job"; fi
# A trace read with --collective auto: every decomposition, as generated.
expect_ok import-auto -- "$FLUX" import chakra "$DIR/tr" --collective auto -o "$DIR/all.json"
if cmp -s "$DIR/all.json" "$DIR/a.json"; then pass; else fail "the trace read with auto is not the auto job"; fi
expect_ok schedule-trace-auto -- "$FLUX" schedule "$DIR/tr" --collective auto --scheduler greedy \
  -o "$DIR/tr-s.json"
expect_grep schedule-trace-choice '"choice": \["' "$DIR/tr-s.json"

# The shipped studies read (docs/results.md, "Collective choice").
for study in collective-choice collective-choice-moe collective-choice-domains \
    collective-choice-deepseek collective-choice-70b; do
  expect_ok "study-$study" -- "$FLUX" sweep "$(dirname "$0")/../../sweeps/$study.toml" --dry-run \
    -o "$DIR/$study"
done
expect_grep study-deepseek-points '^48 points$' "$DIR/study-collective-choice-deepseek.out"
expect_grep study-70b-points '^8 points$' "$DIR/study-collective-choice-70b.out"

# A sweep with a collective axis: the choice column says what ran.
cat > "$DIR/s.toml" <<TOML
name = "c"
[axes]
model = "8b"
layers = 2
tp = 4
dp = 2
tau = "10us"
collective = ["ring", "auto"]
scheduler = ["greedy", "bvn"]
TOML
expect_ok sweep -- "$FLUX" sweep "$DIR/s.toml" -o "$DIR/sw"
expect_grep sweep-header ',route,choice,online_p50_s,online_p95_s,online_max_s,decisions,decision_p50_s,decision_p99_s,decision_max_s,planned_nic_max_bytes,replanned_nic_max_bytes,online_nic_max_bytes$' "$DIR/sw/c.csv"
expect_grep sweep-auto-greedy '^8b,2,4,2,auto,10us,greedy,ok,.*,(ring|direct|halving-doubling)=[0-9]+' "$DIR/sw/c.csv"
expect_grep sweep-ring-bvn '^8b,2,4,2,ring,10us,bvn,ok,.*,$' "$DIR/sw/c.csv"
finish
