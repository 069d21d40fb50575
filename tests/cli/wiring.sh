#!/usr/bin/env bash
# Wirings other than full (docs/model.md, "Wiring") end to end: rails and a
# wiring file schedule, validate and replay alike; schedules carry their
# wiring (flux.schedule/v3; full-wiring files unchanged); unroutable sends,
# bad wirings and bad files are one clear error with nothing written.
source "$(dirname "$0")/lib.sh" "$@"

# 32 ranks in 8 domains of 4: TP inside the domains, DP and PP across them
# between ranks of one local index, so rails carry every send.
expect_ok gen -- "$FLUX" generate llama3 --tp 4 --dp 4 --pp 2 --layers 2 --scaleup-size 4 \
  -o "$DIR/j.json"
expect_ok full -- "$FLUX" schedule "$DIR/j.json" --time-limit 1s -o "$DIR/full.json"
expect_grep full-v2 '"format": "flux.schedule/v2"' "$DIR/full.json"
grep -q '"wiring"' "$DIR/full.json" && fail "a full wiring writes no wiring key" || pass

expect_ok rails -- "$FLUX" schedule "$DIR/j.json" --wiring rails --ocs-radix 8 --time-limit 1s \
  -o "$DIR/rails.json"
expect_grep rails-v3 '"format": "flux.schedule/v3"' "$DIR/rails.json"
expect_grep rails-system '"wiring": "rails", "ocs_radix": 8' "$DIR/rails.json"
expect_grep rails-report '^wiring +rails, 8 OCS of 8 ports \(2 planes x 4 groups\), 64 ports used' \
  "$DIR/rails.out"
expect_ok rails-valid -- "$FLUX" validate "$DIR/j.json" "$DIR/rails.json"
expect_ok rails-replay -- "$FLUX" simulate "$DIR/j.json" --schedule "$DIR/rails.json"
expect_grep rails-equal '^schedule says .*\(equal\)$' "$DIR/rails-replay.out"
expect_grep rails-sim-wiring '^wiring +rails, 8 OCS' "$DIR/rails-replay.out"
for s in greedy bvn rotornet rotornet-vlb ideal; do
  expect_ok "rails-$s" -- "$FLUX" simulate "$DIR/j.json" --scheduler "$s" --wiring rails --ocs-radix 8
done

# The same rails written as a file: 4 rails x 2 planes, 8 ranks each.
python3 - "$DIR/w.json" <<'PY'
import json, sys
sw = [{"ports": [d * 4 + r for d in range(8)]} for r in range(4) for p in range(2)]
json.dump({"format": "flux.wiring/v1", "accelerators": 32, "radix": 8, "switches": sw}, open(sys.argv[1], "w"))
PY
expect_ok file -- "$FLUX" schedule "$DIR/j.json" --wiring "file:$DIR/w.json" --time-limit 1s \
  -o "$DIR/file.json"
expect_grep file-ports '"wiring_switches": \[' "$DIR/file.json"
[ "$(grep makespan_s "$DIR/file.json")" = "$(grep makespan_s "$DIR/rails.json")" ] && pass ||
  fail "the file's rails and --wiring rails give different makespans"
expect_ok file-valid -- "$FLUX" validate "$DIR/j.json" "$DIR/file.json"
expect_ok file-replay -- "$FLUX" simulate "$DIR/j.json" --schedule "$DIR/file.json"
expect_grep file-equal '^schedule says .*\(equal\)$' "$DIR/file-replay.out"

# Unroutable: pods of 2 domains split the DP rings; nothing written, an
# old file kept.
echo keep > "$DIR/old.json"
expect_error no-route 2 'tasks\[[0-9]+\] = send [0-9]+: no route from rank [0-9]+ \(rail [0-3], pod [0-3]\) to rank [0-9]+ \(rail [0-3], pod [0-3]\): no switch joins them under --wiring rails' -- \
  "$FLUX" schedule "$DIR/j.json" --wiring rails --ocs-radix 2 -o "$DIR/old.json"
[ "$(cat "$DIR/old.json")" = keep ] && pass || fail "old.json clobbered"
expect_error rails-no-radix 2 '^flux: error: --ocs-radix = 0: rails need the switches. radix' -- \
  "$FLUX" schedule "$DIR/j.json" --wiring rails -o "$DIR/x.json"
expect_error full-radix 2 '^flux: error: --ocs-radix = 16: a full wiring needs a port per accelerator' -- \
  "$FLUX" schedule "$DIR/j.json" --ocs-radix 16 -o "$DIR/x.json"
expect_error radix-one 2 '^flux: error: --ocs-radix = 1: a switch needs at least 2 ports' -- \
  "$FLUX" schedule "$DIR/j.json" --ocs-radix 1 -o "$DIR/x.json"
expect_error bad-kind 2 '^flux: error: --wiring = mesh: must be full, rails or file:PATH$' -- \
  "$FLUX" schedule "$DIR/j.json" --wiring mesh -o "$DIR/x.json"
expect_error no-file 2 'nope.json: cannot open' -- \
  "$FLUX" schedule "$DIR/j.json" --wiring "file:$DIR/nope.json" -o "$DIR/x.json"
expect_error planes 2 '^flux: error: --switches = 3: the wiring file links every accelerator to 2 switches' -- \
  "$FLUX" schedule "$DIR/j.json" --wiring "file:$DIR/w.json" --switches 3 -o "$DIR/x.json"
expect_error wiring-is-output 2 'the wiring file' -- \
  "$FLUX" schedule "$DIR/j.json" --wiring "file:$DIR/w.json" -o "$DIR/w.json"
expect_grep wiring-kept '"format": "flux.wiring/v1"' "$DIR/w.json"
bad() {  # bad NAME PATTERN JSON
  echo "$3" > "$DIR/$1.json"
  expect_error "$1" 2 "$2" -- "$FLUX" schedule "$DIR/j.json" --wiring "file:$DIR/$1.json" -o "$DIR/x.json"
}
bad twice 'twice.json: switches\[0\]\.ports\[2\] = 4: on this switch twice' \
  '{"format": "flux.wiring/v1", "accelerators": 32, "radix": 8, "switches": [{"ports": [0, 4, 4]}]}'
bad radix 'radix.json: switches\[0\]\.ports = 3 ports: more than the radix, 2' \
  '{"format": "flux.wiring/v1", "accelerators": 32, "radix": 2, "switches": [{"ports": [0, 4, 8]}]}'
bad count '--wiring = file:.*count.json: wires 4 accelerators, the job has 32' \
  '{"format": "flux.wiring/v1", "accelerators": 4, "radix": 4, "switches": [{"ports": [0, 1, 2, 3]}]}'
bad ungrouped 'accelerators 0 and 1 share switch 0 but not all their switches' \
  '{"format": "flux.wiring/v1", "accelerators": 32, "radix": 32, "switches": [{"ports": ['"$(seq -s, 0 31)"']}, {"ports": [0]}, {"ports": ['"$(seq -s, 1 31)"']}]}'
[ ! -e "$DIR/x.json" ] && pass || fail "x.json written by a failing run"

# Forwarding: an MoE all-to-all across domains of 4 reaches other rails
# through the source's domain-mate on the destination's rail (core/routes.hpp).
expect_ok moe -- "$FLUX" generate moe --model mixtral-8x7b --dp 8 --ep 8 --layers 1 \
  --scaleup-size 4 -o "$DIR/moe.json"
expect_ok moe-rails -- "$FLUX" schedule "$DIR/moe.json" --wiring rails --ocs-radix 8 \
  --time-limit 1s -o "$DIR/moe-s.json"
expect_grep moe-forwarded '^forwarded +[1-9][0-9]* sends through a scale-up peer to their rail' \
  "$DIR/moe-rails.out"
expect_ok moe-valid -- "$FLUX" validate "$DIR/moe.json" "$DIR/moe-s.json"
expect_ok moe-replay -- "$FLUX" simulate "$DIR/moe.json" --schedule "$DIR/moe-s.json"
expect_grep moe-equal '^schedule says .*\(equal\)$' "$DIR/moe-replay.out"
expect_grep moe-sim-forwarded '^forwarded +[1-9]' "$DIR/moe-replay.out"
expect_ok moe-robust -- "$FLUX" schedule "$DIR/moe.json" --wiring rails --ocs-radix 8 \
  --robust-jitter 10% --time-limit 1s -o "$DIR/moe-robust.json"
expect_ok moe-robust-valid -- "$FLUX" validate "$DIR/moe.json" "$DIR/moe-robust.json"
expect_ok moe-info -- "$FLUX" info "$DIR/moe.json" --wiring rails --ocs-radix 8
expect_grep moe-info-wiring '^wiring +rails, 8 OCS of 8 ports \(2 planes x 4 groups\)' "$DIR/moe-info.out"
expect_grep moe-info-forwarded '^forwarded +[1-9][0-9]* sends through a scale-up peer' "$DIR/moe-info.out"
expect_ok moe-bvn -- "$FLUX" simulate "$DIR/moe.json" --scheduler bvn --wiring rails --ocs-radix 8
# Without domains nothing forwards: pods of 4 split the all-to-all.
expect_ok moe1 -- "$FLUX" generate moe --model mixtral-8x7b --dp 8 --ep 8 --layers 1 \
  -o "$DIR/moe1.json"
expect_error moe-no-route 2 'no route from rank [0-9]+ \(rail 0, pod [01]\) to rank [0-9]+ \(rail 0, pod [01]\): no switch joins them under --wiring rails \(pods of 4 domains\), and there is no packet fabric \(--packet-gbps\)$' -- \
  "$FLUX" schedule "$DIR/moe1.json" --wiring rails --ocs-radix 4 -o "$DIR/x.json"

# Sweep axes wiring and ocs_radix (from core::kSystemOptions): the file
# relative to the sweep file; a full wiring refuses a radix below the job.
cat > "$DIR/fab.toml" <<'TOML'
name = "fab"
[axes]
model = "8b"
layers = 2
tp = 4
dp = 4
pp = 2
scaleup_size = 4
wiring = ["full", "rails", "file:w.json"]
ocs_radix = 8
tau = "10us"
scheduler = ["greedy", "bvn"]
TOML
expect_ok sweep -- "$FLUX" sweep "$DIR/fab.toml" -o "$DIR/fab"
expect_grep sweep-header '^model,layers,tp,pp,dp,scaleup_size,wiring,ocs_radix,tau,scheduler,' "$DIR/fab/fab.csv"
expect_grep sweep-full-refused '^8b,2,4,2,4,4,full,8,10us,greedy,invalid,ocs_radix = 8: a full wiring needs a port per accelerator' "$DIR/fab/fab.csv"
[ "$(grep -c '^8b,2,4,2,4,4,rails,8,10us,greedy,ok,,[0-9.]*,1e-05,0.039797470753,' "$DIR/fab/fab.csv")" = 1 ] &&
  [ "$(grep -c '^8b,2,4,2,4,4,file:w.json,8,10us,greedy,ok,,[0-9.]*,1e-05,0.039797470753,' "$DIR/fab/fab.csv")" = 1 ] &&
  pass || fail "rails and the wiring file give the same sweep rows"

# A switches axis beside a wiring file must equal its planes, as --switches.
sed 's/^ocs_radix = 8$/ocs_radix = 8\nswitches = [2, 3]/; s/^wiring = .*/wiring = "file:w.json"/' \
  "$DIR/fab.toml" > "$DIR/fab3.toml"
expect_ok sweep-planes -- "$FLUX" sweep "$DIR/fab3.toml" -o "$DIR/fab3"
[ "$(grep -c ',3,file:w.json,8,10us,greedy,invalid,switches = 3: the wiring file links every accelerator to 2 switches' "$DIR/fab3/fab.csv")" = 1 ] &&
  [ "$(grep -c ',2,file:w.json,8,10us,greedy,ok,' "$DIR/fab3/fab.csv")" = 1 ] && pass ||
  fail "switches 3 beside a 2-plane wiring file: not refused, or switches 2 not run"

# Tampered: the schedule claims pods of 2 domains; its circuits then join
# ranks no switch joins.
sed 's/"ocs_radix": 8/"ocs_radix": 2/' "$DIR/rails.json" > "$DIR/tampered.json"
expect_error tampered 2 'invalid schedule' -- "$FLUX" validate "$DIR/j.json" "$DIR/tampered.json"
expect_grep tampered-why 'routes: .*no route from rank' "$DIR/tampered.out"
finish
