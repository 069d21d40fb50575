#!/usr/bin/env bash
# Full duplex circuits: a hand-written schedule where 0->1 and 1->0 share one
# circuit interval at the same time is valid with "duplex": "full", replays
# to its makespan (1 MB each way at 800 Gb/s: 10 us, both at once), and is
# refused in half duplex; a bad duplex value names system.duplex.
source "$(dirname "$0")/lib.sh" "$@"
num() { sed -nE "s/^ *\"$1\": *([0-9.e+-]+),?$/\\1/p" "$2"; }

w=$DIR/w.json
cat > "$w" <<'JSON'
{"format": "flux.workload/v1", "name": "pair", "accelerators": 3,
 "tasks": [{"id": 0, "src": 0, "dst": 1, "bytes": 1000000},
           {"id": 1, "src": 1, "dst": 0, "bytes": 1000000},
           {"id": 2, "src": 0, "dst": 2, "bytes": 1000000}],
 "deps": []}
JSON
# {0,1} up [0, 10 us) carrying both directions; {0,2} after tau = 10 us.
cat > "$DIR/full.json" <<'JSON'
{
  "format": "flux.schedule/v2",
  "scheduler": "hand",
  "workload": "pair",
  "system": {"switches": 1, "link_gbps": 800, "reconfig_delay_s": 1e-05, "duplex": "full"},
  "makespan_s": 3e-05,
  "status": "feasible",
  "tasks": [
    {"id": 0, "switch": 0, "start_s": 0},
    {"id": 1, "switch": 0, "start_s": 0},
    {"id": 2, "switch": 0, "start_s": 2e-05}
  ],
  "circuits": [
    {"switch": 0, "intervals": [
      {"a": 0, "b": 1, "setup_s": -1e-05, "up_s": 0, "down_s": 1e-05},
      {"a": 0, "b": 2, "setup_s": 1e-05, "up_s": 2e-05, "down_s": 3e-05}
    ]}
  ]
}
JSON
expect_ok validate -- "$FLUX" validate "$w" "$DIR/full.json"
expect_grep valid 'valid schedule of pair, iteration time 30 us' "$DIR/validate.out"
for e in strict ordered; do
  expect_ok "sim-$e" -- "$FLUX" simulate "$w" --schedule "$DIR/full.json" --execution "$e" -o "$DIR/m-$e.json"
  expect_grep "equal-$e" '^schedule says +30 us \(equal\)$' "$DIR/sim-$e.out"
  expect_grep "duplex-$e" '"duplex": "full"' "$DIR/m-$e.json"
  [ "$(num iteration_time_s "$DIR/m-$e.json")" = "3e-05" ] && pass || fail "$e: iteration time not 30 us"
done

# Half duplex: the same sends overlap on ports 0 and 1.
sed 's/"duplex": "full"/"duplex": "half"/' "$DIR/full.json" > "$DIR/half.json"
expect_error half 2 'half.json: invalid schedule' -- "$FLUX" validate "$w" "$DIR/half.json"
expect_grep half-why 'task 1 \(1->0\) starts at 0 ps: sends sharing a port overlap \(half duplex: reversing' "$DIR/half.out"

# In full duplex, 0->2 still needs tau after the latest end on port 0.
sed 's/"start_s": 2e-05/"start_s": 1.5e-05/' "$DIR/full.json" > "$DIR/early.json"
expect_error early 2 'early.json: invalid schedule' -- "$FLUX" validate "$w" "$DIR/early.json"
expect_grep early-why 'changing the circuit needs tau = 10000000 ps \(10 us\) \(full duplex\)' "$DIR/early.out"

sed 's/"duplex": "full"/"duplex": "quarter"/' "$DIR/full.json" > "$DIR/quarter.json"
expect_error quarter 2 'quarter.json: system.duplex = "quarter": unknown duplex \(one of: half, full\)' -- \
  "$FLUX" validate "$w" "$DIR/quarter.json"
finish
