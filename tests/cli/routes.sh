#!/usr/bin/env bash
# Routes chosen per send (--route forward|forward-rx|packet|auto;
# docs/model.md, "Routes") end to end: a send no circuit joins is forwarded
# at its sender or its receiver or sent as packets, and under auto the
# scheduler picks per send; schedules carry the routes (flux.schedule/v4),
# the validator and the simulator follow them, tampered routes and bad
# options are one clear error with nothing written.
source "$(dirname "$0")/lib.sh" "$@"

# Mixtral 8x7B EP8 on 8 GPUs in domains of 2: rails of radix 4 make 2 rails
# of one pod each, so the all-to-all between rails needs a route.
expect_ok gen -- "$FLUX" generate moe --model mixtral-8x7b --dp 8 --ep 8 --layers 1 \
  --scaleup-size 2 -o "$DIR/moe.json"
FAB=(--wiring rails --ocs-radix 4 --packet-gbps 400)
makespan() { sed -n 's/.*"makespan_s": \([0-9.e+-]*\).*/\1/p' "$1"; }
for route in forward forward-rx packet auto; do
  expect_ok "sched-$route" -- "$FLUX" schedule "$DIR/moe.json" "${FAB[@]}" --route "$route" \
    --scheduler greedy -o "$DIR/$route.json"
  expect_ok "valid-$route" -- "$FLUX" validate "$DIR/moe.json" "$DIR/$route.json"
  expect_ok "replay-$route" -- "$FLUX" simulate "$DIR/moe.json" --schedule "$DIR/$route.json" \
    -o "$DIR/$route-m.json"
  expect_grep "equal-$route" '^schedule says .*\(equal\)$' "$DIR/replay-$route.out"
done
expect_grep rx-report '^forwarded +152 sends to a scale-up peer of their receiver, then through it' \
  "$DIR/sched-forward-rx.out"
expect_grep rx-wiring '; forwarded at the receiver; switch numbers are planes$' "$DIR/sched-forward-rx.out"
expect_grep auto-wiring '; routes chosen per send; switch numbers are planes$' "$DIR/sched-auto.out"
expect_grep auto-mix '^forwarded +[0-9]+ sends through a scale-up peer \([0-9]+ at the sender, [0-9]+ at the receiver\)' \
  "$DIR/sched-auto.out"
expect_grep auto-packets '^packet +[1-9][0-9]* sends over the packet fabric' "$DIR/sched-auto.out"
expect_grep auto-format '"format": "flux.schedule/v4"' "$DIR/auto.json"
expect_grep auto-route '"route": "auto"' "$DIR/auto.json"
expect_grep auto-routes '"routes": \["(forward|forward-rx|packet)"' "$DIR/auto.json"
expect_grep rx-route '"route": "forward-rx"' "$DIR/forward-rx.json"
# greedy is deterministic and auto runs it on each uniform choice too: auto
# is never behind a fixed policy, and here strictly ahead of all three.
auto=$(makespan "$DIR/auto.json")
for route in forward forward-rx packet; do
  fixed=$(makespan "$DIR/$route.json")
  awk -v a="$auto" -v f="$fixed" 'BEGIN { exit !(a < f) }' && pass ||
    fail "auto ($auto) not below --route $route ($fixed)"
done
# Robust planning adopts a plan with its routes (validated once, routed once).
expect_ok robust -- "$FLUX" schedule "$DIR/moe.json" "${FAB[@]}" --route auto --scheduler greedy \
  --robust-jitter 5% -o "$DIR/robust.json"
expect_ok robust-valid -- "$FLUX" validate "$DIR/moe.json" "$DIR/robust.json"
expect_ok info -- "$FLUX" info "$DIR/moe.json" "${FAB[@]}" --route auto
expect_grep info-choices '^route choices +152 sends with several routes \(--route auto\)' "$DIR/info.out"

# With the collectives chosen too: the schedule names both.
expect_ok gen-auto -- "$FLUX" generate moe --model mixtral-8x7b --dp 8 --ep 8 --layers 1 \
  --scaleup-size 2 --collective auto -o "$DIR/moec.json"
expect_ok both -- "$FLUX" schedule "$DIR/moec.json" "${FAB[@]}" --route auto --scheduler greedy \
  -o "$DIR/both.json"
expect_grep both-choice '"choice": \[' "$DIR/both.json"
expect_grep both-routes '"routes": \[' "$DIR/both.json"
expect_ok both-valid -- "$FLUX" validate "$DIR/moec.json" "$DIR/both.json"
expect_ok both-replay -- "$FLUX" simulate "$DIR/moec.json" --schedule "$DIR/both.json"
expect_grep both-equal '^schedule says .*\(equal\)$' "$DIR/both-replay.out"

# Tampered routes: one dropped, one naming a route the send does not have
# (no packet fabric in the schedule), and a policy without a choice.
python3 - "$DIR/auto.json" "$DIR" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
d = sys.argv[2]
t = json.loads(json.dumps(s)); t["routes"] = t["routes"][1:]
json.dump(t, open(d + "/t-short.json", "w"))
t = json.loads(json.dumps(s)); t["routes"][0] = "relay"
json.dump(t, open(d + "/t-name.json", "w"))
t = json.loads(json.dumps(s)); t["system"]["route"] = "forward"
json.dump(t, open(d + "/t-policy.json", "w"))
PY
expect_error tamper-short 2 'invalid schedule' -- "$FLUX" validate "$DIR/moe.json" "$DIR/t-short.json"
expect_grep tamper-short-why 'routes: routes = 151 routes: the workload has 152 sends with a choice of route under --route auto' \
  "$DIR/tamper-short.out"
expect_error tamper-name 2 'invalid schedule' -- "$FLUX" validate "$DIR/moe.json" "$DIR/t-name.json"
expect_grep tamper-name-why "routes\[0\] = relay: not a route of send [0-9]+ \(it has forward, forward-rx, packet\)" \
  "$DIR/tamper-name.out"
expect_error tamper-policy 2 'invalid schedule' -- "$FLUX" validate "$DIR/moe.json" "$DIR/t-policy.json"
expect_grep tamper-policy-why 'no send of the workload has a choice of route' "$DIR/tamper-policy.out"
expect_error tamper-sim 2 't-name.json: routes\[0\] = relay' -- \
  "$FLUX" simulate "$DIR/moe.json" --schedule "$DIR/t-name.json" -o "$DIR/none.json"
[ ! -e "$DIR/none.json" ] && pass || fail "simulate wrote metrics of a tampered schedule"

# No route: across pods without a packet fabric, the message names both
# sides under auto.
expect_error no-route 2 "no route from rank [0-9]+ \(rail [01], pod [01]\) to rank [0-9]+ \(rail [01], pod [01]\): .*nor one of either's scale-up domain" -- \
  "$FLUX" schedule "$DIR/moe.json" --wiring rails --ocs-radix 2 --route auto -o "$DIR/none.json"
[ ! -e "$DIR/none.json" ] && pass || fail "a schedule was written without a route"

# Sweeps take the policies as an axis.
cat > "$DIR/r.toml" <<'TOML'
name = "r"
[axes]
job = "mixtral-8x7b-ep8"
layers = 1
scaleup_size = 2
wiring = "rails"
ocs_radix = 4
packet_gbps = 400
route = ["forward", "auto"]
tau = "10us"
scheduler = "greedy"
TOML
expect_ok sweep -- "$FLUX" sweep "$DIR/r.toml" -o "$DIR/r"
expect_grep sweep-auto ',400,auto,10us,greedy,ok,' "$DIR/r/r.csv"
# The shipped study (sweeps/fabrics-routes.toml, docs/results.md) reads, and
# its filter keeps its five route settings at two taus for two schedulers.
expect_ok study -- "$FLUX" sweep "$(dirname "$0")/../../sweeps/fabrics-routes.toml" --dry-run \
  -o "$DIR/study"
expect_grep study-points '^20 points$' "$DIR/study.out"
expect_grep study-auto ',rails,136,400,auto,2,1ms,10s,flux ' "$DIR/study.out"
finish
