#!/usr/bin/env bash
# Scale-up domains end to end: --scaleup-size on schedule, simulate, info and
# evaluate; a hand-written flux.schedule/v2 file with scale-up sends
# validates and replays to its makespan; the system round-trips through
# saved schedules; bad domains and bad files are one clear error.
source "$(dirname "$0")/lib.sh" "$@"

num() { sed -nE "s/^ *\"$1\": *([0-9.e+-]+),?$/\\1/p" "$2"; }

# The validator's example (tests/validator_test.cpp, scaleup_workload):
# domains {0, 1} and {2, 3} at 1600 Gb/s (5 ps a byte), OCS at 800 Gb/s.
# 0 and 3 run at once (opposite directions), 2 right after 0 on the same
# ports with no tau, 1 on the OCS meanwhile: makespan 1000 ps.
cat > "$DIR/w.json" <<'JSON'
{"format": "flux.workload/v1", "name": "scaleup", "accelerators": 4,
 "tasks": [{"id": 0, "src": 0, "dst": 1, "bytes": 100}, {"id": 1, "src": 0, "dst": 2, "bytes": 10},
           {"id": 2, "src": 0, "dst": 1, "bytes": 100}, {"id": 3, "src": 1, "dst": 0, "bytes": 100}],
 "deps": []}
JSON
cat > "$DIR/s.json" <<'JSON'
{"format": "flux.schedule/v2", "scheduler": "hand", "workload": "scaleup",
 "system": {"switches": 1, "link_gbps": 800, "reconfig_delay_s": 1e-09, "scaleup_size": 2,
            "scaleup_gbps": 1600},
 "makespan_s": 1e-09, "status": "feasible",
 "tasks": [{"id": 0, "fabric": "scaleup", "start_s": 0}, {"id": 1, "switch": 0, "start_s": 0},
           {"id": 2, "fabric": "scaleup", "start_s": 5e-10}, {"id": 3, "fabric": "scaleup", "start_s": 0}],
 "circuits": [{"switch": 0, "intervals": [{"a": 0, "b": 2, "setup_s": -1e-09, "up_s": 0, "down_s": 1e-10}]}]}
JSON
expect_ok validate -- "$FLUX" validate "$DIR/w.json" "$DIR/s.json"
expect_grep valid 'valid schedule of scaleup, iteration time 1 ns' "$DIR/validate.out"
expect_ok replay -- "$FLUX" simulate "$DIR/w.json" --schedule "$DIR/s.json" -o "$DIR/m.json" --trace "$DIR/t.json"
expect_grep equal '^schedule says +1 ns \(equal\)$' "$DIR/replay.out"
expect_grep summary '^scale-up +domains of 2 at 1600 Gb/s: 3 sends, 300 B inside them$' "$DIR/replay.out"
expect_grep metrics-format '"format": "flux.metrics/v2"' "$DIR/m.json"
expect_grep metrics-system '"scaleup_size": 2, "scaleup_gbps": 1600' "$DIR/m.json"
[ "$(num scaleup_sends "$DIR/m.json") $(num scaleup_bytes "$DIR/m.json") $(num ocs_sends "$DIR/m.json")" = "3 300 1" ] &&
  pass || fail "scale-up sends and bytes in m.json"
[ "$(num iteration_time_s "$DIR/m.json")" = "$(num schedule_makespan_s "$DIR/m.json")" ] && pass ||
  fail "replayed iteration time differs from the makespan"
expect_grep trace-domain '"name": "scale-up domain 0"' "$DIR/t.json"

# The same file with a send moved 1 ps earlier overlaps on egress 0; with
# no domains its scale-up sends are on the wrong fabric; as v1 it has
# unknown keys; a bad fabric name is one error.
sed 's/"start_s": 5e-10/"start_s": 4.99e-10/' "$DIR/s.json" > "$DIR/early.json"
expect_error early 2 'early.json: invalid schedule' -- "$FLUX" validate "$DIR/w.json" "$DIR/early.json"
expect_grep early-port '^violation: scale-up egress of accelerator 0: task 0 \(0->1\) runs \[0 ps, 500 ps\) and task 2 \(0->1\) starts at 499 ps' "$DIR/early.out"
sed 's/"scaleup_size": 2/"scaleup_size": 1/' "$DIR/s.json" > "$DIR/flat.json"
expect_error flat 2 'flat.json: invalid schedule' -- \
  "$FLUX" simulate "$DIR/w.json" --schedule "$DIR/flat.json" -o "$DIR/x.json"
sed 's/"scaleup_size": 2/"scaleup_size": 3/' "$DIR/s.json" > "$DIR/three.json"
expect_error three 2 'three.json: invalid schedule' -- \
  "$FLUX" simulate "$DIR/w.json" --schedule "$DIR/three.json" -o "$DIR/x.json"
expect_grep three-why 'scaleup_size = 3: must divide the 4 accelerators' "$DIR/three.err"
sed 's/flux.schedule\/v2/flux.schedule\/v1/' "$DIR/s.json" > "$DIR/v1.json"
expect_error v1 2 'v1.json: system.scaleup_size: unknown key \(flux.schedule/v1 allows here' -- \
  "$FLUX" validate "$DIR/w.json" "$DIR/v1.json"
sed 's/"fabric": "scaleup", "start_s": 0}, {"id": 1/"fabric": "nvlink", "start_s": 0}, {"id": 1/' \
  "$DIR/s.json" > "$DIR/nvlink.json"
expect_error nvlink 2 'nvlink.json: tasks\[0\].fabric = "nvlink": unknown fabric \(one of: ocs, scaleup, packet\)' -- \
  "$FLUX" simulate "$DIR/w.json" --schedule "$DIR/nvlink.json" -o "$DIR/x.json"
expect_error system-given 2 'only apply with --scheduler' -- \
  "$FLUX" simulate "$DIR/w.json" --schedule "$DIR/s.json" --scaleup-size 2 -o "$DIR/x.json"

# The paper's layer with TP inside 4-GPU domains.
w=$DIR/llama.json
expect_ok gen -- "$FLUX" generate llama3 --tp 4 --dp 2 --layers 1 -o "$w"
expect_ok info -- "$FLUX" info "$w" --scaleup-size 4
expect_grep info-domains '^scale-up +2 domains of 4 at 2400 Gb/s: 192 sends, 3.00 GiB .* inside them; 16 sends' \
  "$DIR/info.out"
expect_error size3 2 '^flux: error: --scaleup-size = 3: must divide the 8 accelerators into whole scale-up domains$' -- \
  "$FLUX" schedule "$w" --scheduler greedy --scaleup-size 3 -o "$DIR/x.json"
expect_error size3-info 2 '^flux: error: --scaleup-size = 3: must divide the 8 accelerators' -- \
  "$FLUX" info "$w" --scaleup-size 3
expect_error size3-sim 2 '^flux: error: --scaleup-size = 3: must divide the 8 accelerators' -- \
  "$FLUX" simulate "$w" --scheduler ideal --scaleup-size 3 -o "$DIR/x.json"
expect_error size3-eval 2 '^flux: error: --scaleup-size = 3: must divide the 8 accelerators' -- \
  "$FLUX" evaluate --layers 1 --tau 10us --schedulers ideal --scaleup-size 3 -o "$DIR/x.d" --no-plot
[ ! -e "$DIR/x.json" ] && [ ! -e "$DIR/x.d" ] && pass || fail "output written despite errors"

# ideal with domains: the critical path (what the schedule says) is what the
# simulator replays; the saved v2 schedule carries the system back.
expect_ok ideal -- "$FLUX" simulate "$w" --scheduler ideal --scaleup-size 4 -o "$DIR/ideal.json" \
  --save-schedule "$DIR/ideal.schedule.json"
expect_grep ideal-v2 '"scaleup_size": 4, "scaleup_gbps": 2400' "$DIR/ideal.schedule.json"
expect_ok ideal-again -- "$FLUX" simulate "$w" --schedule "$DIR/ideal.schedule.json" -o "$DIR/ideal.again.json"
cmp -s "$DIR/ideal.json" "$DIR/ideal.again.json" && pass || fail "ideal: metrics differ through the file"
[ "$(num iteration_time_s "$DIR/ideal.json")" = "$(sed -nE 's/^ *"makespan_s": *([0-9.e+-]+),$/\1/p' "$DIR/ideal.schedule.json")" ] &&
  pass || fail "ideal: replay differs from the critical path"

# Task-level schedulers with domains: each schedule validates and replays
# exactly.
for sched in greedy flux flux-milp; do
  expect_ok "sched-$sched" -- "$FLUX" schedule "$w" --scheduler "$sched" --scaleup-size 4 \
    --time-limit 5s -o "$DIR/$sched.json"
  expect_ok "validate-$sched" -- "$FLUX" validate "$w" "$DIR/$sched.json"
  expect_ok "replay-$sched" -- "$FLUX" simulate "$w" --schedule "$DIR/$sched.json"
  expect_grep "equal-$sched" '^schedule says .*\(equal\)$' "$DIR/replay-$sched.out"
done

# The domain size a job is laid out for travels with its workload: generate
# records it, Chakra export and import carry it (or --scaleup-size sets it),
# and schedule uses it when --scaleup-size is not given.
expect_ok hint-gen -- "$FLUX" generate llama3 --tp 2 --pp 2 --dp 2 --layers 2 \
  --micro-batches 2 --scaleup-size 4 -o "$DIR/hint-w.json"
expect_grep hint-json '"scaleup_size": 4,' "$DIR/hint-w.json"
expect_grep hint-json-gbps '"scaleup_gbps": 2400,' "$DIR/hint-w.json"  # A100: NVLink 3
expect_ok hint-chakra -- "$FLUX" generate llama3 --tp 2 --pp 2 --dp 2 --layers 2 \
  --micro-batches 2 --scaleup-size 4 --format chakra -o "$DIR/hint"
expect_ok hint-import -- "$FLUX" import chakra "$DIR/hint" -o "$DIR/hint-back.json"
expect_grep hint-carried '"scaleup_size": 4,' "$DIR/hint-back.json"
expect_grep hint-carried-gbps '"scaleup_gbps": 2400,' "$DIR/hint-back.json"
expect_ok hint-import2 -- "$FLUX" import chakra "$DIR/hint" --scaleup-size 2 -o "$DIR/hint2.json"
expect_grep hint-set '"scaleup_size": 2,' "$DIR/hint2.json"
expect_error hint-import-bad 2 '--scaleup-size = 3: must divide the 8 ranks' -- \
  "$FLUX" import chakra "$DIR/hint" --scaleup-size 3 -o "$DIR/hint3.json"
[ ! -e "$DIR/hint3.json" ] && pass || fail "a workload was written despite the error"
expect_error hint-gen-bad 2 '--scaleup-size = 3: must divide the 8 generated ranks' -- \
  "$FLUX" generate llama3 --tp 2 --pp 2 --dp 2 --scaleup-size 3 -o "$DIR/hint3.json"
expect_ok hint-schedule -- "$FLUX" schedule "$DIR/hint-w.json" --scheduler greedy -o "$DIR/hint-s.json"
expect_grep hint-used '"scaleup_size": 4, "scaleup_gbps": 2400' "$DIR/hint-s.json"
expect_ok hint-override -- "$FLUX" schedule "$DIR/hint-w.json" --scheduler greedy --scaleup-size 1 \
  -o "$DIR/hint-s1.json"
expect_grep hint-overridden '"format": "flux.schedule/v1"' "$DIR/hint-s1.json"
expect_ok hint-gbps -- "$FLUX" schedule "$DIR/hint-w.json" --scheduler greedy --scaleup-gbps 3600 \
  -o "$DIR/hint-s2.json"
expect_grep hint-gbps-given '"scaleup_size": 4, "scaleup_gbps": 3600' "$DIR/hint-s2.json"
# The real-jobs preset: named layouts, refused training options, a domain
# size that does not tile a job (checked before anything is generated).
expect_error jobs-layers 2 'preset real-jobs runs named jobs' -- \
  "$FLUX" evaluate --preset real-jobs --layers 1 -o "$DIR/jobs.d" --no-plot
expect_error jobs-domain 2 'scaleup-size = 3: must divide the 512' -- \
  "$FLUX" evaluate --preset real-jobs --scaleup-size 3 -o "$DIR/jobs.d" --no-plot
[ ! -e "$DIR/jobs.d/jobs.csv" ] && pass || fail "a CSV was written despite the errors"
finish
