#!/usr/bin/env bash
# flux simulate: replaying a Flux schedule reproduces its makespan, the
# baselines run and are slower than ideal, outputs are deterministic, and
# schedules that do not fit are clear errors.
source "$(dirname "$0")/lib.sh" "$@"

w=$DIR/w.json
num() { sed -nE "s/^ *\"$1\": *([0-9.e+-]+),?$/\\1/p" "$2"; }

expect_ok gen -- "$FLUX" generate llama3 --layers 1 --tp 4 --dp 2 -o "$w"
expect_ok milp -- "$FLUX" schedule "$w" --scheduler flux-milp --tau 10us --time-limit 30s -o "$DIR/s.json"
expect_ok replay -- "$FLUX" simulate "$w" --schedule "$DIR/s.json" -o "$DIR/m.json" --trace "$DIR/t.json"
expect_grep equal '^schedule says .*\(equal\)$' "$DIR/replay.out"
expect_grep metrics '"format": "flux.metrics/v1"' "$DIR/m.json"
expect_grep peak '"peak_nic_bytes": 4096,' "$DIR/m.json"
expect_grep trace '"traceEvents"' "$DIR/t.json"
expect_grep trace-circuit '"cat": "circuit"' "$DIR/t.json"
[ "$(num iteration_time_s "$DIR/m.json")" = "$(num schedule_makespan_s "$DIR/m.json")" ] && pass ||
  fail "replayed iteration time differs from the makespan"

expect_ok ideal -- "$FLUX" simulate "$w" --scheduler ideal -o "$DIR/ideal.json"
for s in rotornet rotornet-vlb bvn; do
  expect_ok "$s" -- "$FLUX" simulate "$w" --scheduler "$s" --tau 10us -o "$DIR/$s.json" \
    --save-schedule "$DIR/$s.schedule.json"
  awk -v a="$(num iteration_time_s "$DIR/$s.json")" -v b="$(num iteration_time_s "$DIR/ideal.json")" \
    'BEGIN { exit !(a >= b) }' && pass || fail "$s faster than ideal"
  [ "$(num bytes_sent "$DIR/$s.json")" = "$(num bytes_delivered "$DIR/$s.json")" ] && pass ||
    fail "$s: bytes sent != delivered"
  # The saved (periodic) schedule replays to the same metrics.
  expect_ok "$s-again" -- "$FLUX" simulate "$w" --schedule "$DIR/$s.schedule.json" -o "$DIR/$s.again.json"
  cmp -s "$DIR/$s.json" "$DIR/$s.again.json" && pass || fail "$s: metrics differ between runs"
done
expect_grep period '"period_s"' "$DIR/rotornet.schedule.json"
expect_grep vlb '"routing": "vlb"' "$DIR/rotornet-vlb.schedule.json"

# Errors: nothing written, one clear line, exit 2.
expect_error both 2 'only apply with --scheduler' -- \
  "$FLUX" simulate "$w" --schedule "$DIR/s.json" --tau 1ms -o "$DIR/x.json"
expect_error neither 2 'give either --schedule FILE or --scheduler NAME' -- "$FLUX" simulate "$w" -o "$DIR/x.json"
expect_error mtu 2 '--mtu = 0' -- "$FLUX" simulate "$w" --scheduler ideal --mtu 0 -o "$DIR/x.json"
expect_ok gen2 -- "$FLUX" generate llama3 --layers 2 --tp 4 --dp 2 -o "$DIR/w2.json"
expect_error other 2 's.json: .*workload' -- "$FLUX" simulate "$DIR/w2.json" --schedule "$DIR/s.json" -o "$DIR/x.json"
cat > "$DIR/overlap.json" <<'JSON'
{"format": "flux.schedule/v1", "scheduler": "hand", "workload": "llama3-8b-L1-tp4-dp2-a100",
 "system": {"switches": 1, "link_gbps": 800, "reconfig_delay_s": 1e-05},
 "makespan_s": 0, "status": "feasible", "tasks": [],
 "circuits": [{"switch": 0, "intervals": [
   {"a": 0, "b": 1, "setup_s": 0, "up_s": 1e-05, "down_s": 0.001},
   {"a": 1, "b": 2, "setup_s": 0.0005, "up_s": 0.00051, "down_s": 0.002}]}]}
JSON
expect_error overlap 2 'overlap.json: invalid schedule' -- "$FLUX" simulate "$w" --schedule "$DIR/overlap.json" -o "$DIR/x.json"
expect_grep overlap-port 'switch 0, port 1: .* overlap' "$DIR/overlap.err"
sed 's/"switch": 0, "intervals"/"switch": 4, "intervals"/' "$DIR/overlap.json" > "$DIR/switch.json"
expect_error switch 2 'switch.json: circuits\[0\].switch = 4' -- \
  "$FLUX" simulate "$w" --schedule "$DIR/switch.json" -o "$DIR/x.json"
[ ! -e "$DIR/x.json" ] && pass || fail "x.json written despite errors"
finish
