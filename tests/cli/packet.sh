#!/usr/bin/env bash
# A packet fabric beside the OCS (docs/model.md, "Routes") end to end: sends
# no circuit or forwarder carries go as packets; every scheduler places them,
# the validator checks them, the simulator replays them; schedules carry the
# packet fabric (flux.schedule/v3); tampered files and bad options are one
# clear error with nothing written.
source "$(dirname "$0")/lib.sh" "$@"

# Mixtral 8x7B EP8 on 8 GPUs without scale-up domains: rails of radix 4
# make two pods, and half the all-to-all crosses them.
expect_ok gen -- "$FLUX" generate moe --model mixtral-8x7b --dp 8 --ep 8 --layers 1 \
  -o "$DIR/moe.json"
FAB=(--wiring rails --ocs-radix 4 --packet-gbps 400 --packet-latency 2us)
for sched in flux greedy ideal rotornet rotornet-vlb bvn; do
  expect_ok "sched-$sched" -- "$FLUX" schedule "$DIR/moe.json" "${FAB[@]}" --scheduler "$sched" \
    --time-limit 1s -o "$DIR/$sched.json"
  expect_ok "valid-$sched" -- "$FLUX" validate "$DIR/moe.json" "$DIR/$sched.json"
  expect_ok "replay-$sched" -- "$FLUX" simulate "$DIR/moe.json" --schedule "$DIR/$sched.json" \
    -o "$DIR/$sched-m.json"
  expect_grep "packet-$sched" '^packet +[1-9][0-9]* sends over the packet fabric' \
    "$DIR/replay-$sched.out"
done
expect_grep flux-wiring '^wiring +rails, 4 OCS of 4 ports \(2 planes x 2 groups\), 16 ports used; packet fabric 400 Gb/s, 2 us' \
  "$DIR/sched-flux.out"
for sched in flux greedy; do
  expect_grep "equal-$sched" '^schedule says .*\(equal\)$' "$DIR/replay-$sched.out"
done
expect_grep format '"format": "flux.schedule/v3"' "$DIR/flux.json"
expect_grep fabric '"fabric": "packet"' "$DIR/flux.json"
expect_grep system '"packet_gbps": 400' "$DIR/flux.json"
expect_grep metrics '"packet_sends": [1-9]' "$DIR/flux-m.json"
expect_ok trace -- "$FLUX" simulate "$DIR/moe.json" --schedule "$DIR/flux.json" --trace "$DIR/t.json"
expect_grep trace-process '"name":"packet fabric"|"name": "packet fabric"' "$DIR/t.json"
expect_grep trace-slices '"cat":"packet"|"cat": "packet"' "$DIR/t.json"
# Slower packets cost time: an oversubscription of 8 between pods.
expect_ok slow -- "$FLUX" schedule "$DIR/moe.json" "${FAB[@]}" --packet-oversubscription 8 \
  --time-limit 1s -o "$DIR/slow.json"
fast=$(sed -n 's/.*"makespan_s": \([0-9.e+-]*\).*/\1/p' "$DIR/flux.json")
slow=$(sed -n 's/.*"makespan_s": \([0-9.e+-]*\).*/\1/p' "$DIR/slow.json")
awk -v f="$fast" -v s="$slow" 'BEGIN { exit !(s > f) }' && pass ||
  fail "oversubscription 8 did not lengthen the makespan ($fast -> $slow)"

# With domains: --route packet sends what forwarding would carry as packets.
expect_ok gen2 -- "$FLUX" generate moe --model mixtral-8x7b --dp 8 --ep 8 --layers 1 \
  --scaleup-size 2 -o "$DIR/moe2.json"
expect_ok fwd -- "$FLUX" schedule "$DIR/moe2.json" --wiring rails --ocs-radix 4 \
  --packet-gbps 400 --time-limit 1s -o "$DIR/fwd.json"
expect_grep fwd-forwarded '^forwarded +[1-9]' "$DIR/fwd.out"
if grep -q '^packet ' "$DIR/fwd.out"; then fail "forwardable sends went as packets"; else pass; fi
expect_ok pkt -- "$FLUX" schedule "$DIR/moe2.json" --wiring rails --ocs-radix 4 \
  --packet-gbps 400 --route packet --time-limit 1s -o "$DIR/pkt.json"
expect_grep pkt-packet '^packet +[1-9]' "$DIR/pkt.out"
if grep -q '^forwarded ' "$DIR/pkt.out"; then fail "--route packet still forwarded"; else pass; fi
expect_ok pkt-valid -- "$FLUX" validate "$DIR/moe2.json" "$DIR/pkt.json"

# The shipped study (sweeps/fabrics-moe.toml) reads, and its filter keeps
# the five fabrics it means, at two taus, for four schedulers.
expect_ok study -- "$FLUX" sweep "$(dirname "$0")/../../sweeps/fabrics-moe.toml" --dry-run \
  -o "$DIR/study"
expect_grep study-points '^40 points$' "$DIR/study.out"
expect_grep study-packet ',rails,16,400,packet,2,1ms,10s,bvn ' "$DIR/study.out"

# A sweep's rows count the bytes each route carries and the OCS the wiring
# builds (forwarded_bytes, packet_bytes, ocs_switches), then say the fabric
# (its columns that are not axes here: packet latency, oversubscription,
# route).
cat > "$DIR/p.toml" <<'TOML'
name = "p"
[axes]
job = "mixtral-8x7b-ep8"
layers = 1
wiring = "rails"
ocs_radix = 4
packet_gbps = [0, 400]
tau = "10us"
scheduler = "greedy"
TOML
expect_ok sweep -- "$FLUX" sweep "$DIR/p.toml" -o "$DIR/p"
expect_grep sweep-columns ',forwarded_bytes,packet_bytes,ocs_switches,packet_latency_s,packet_oversubscription,route,collective,choice,online_p50_s,online_p95_s,online_max_s,decisions,decision_p50_s,decision_p99_s,decision_max_s,planned_nic_max_bytes,replanned_nic_max_bytes,online_nic_max_bytes$' "$DIR/p/p.csv"
expect_grep sweep-packet-bytes ',400,10us,greedy,ok,.*,0,[1-9][0-9]*,4,0,1,forward,ring,,,,,,,,,,,$' "$DIR/p/p.csv"
# Without the packet fabric the job has no route: an invalid point, with why.
expect_grep sweep-no-route ',0,10us,greedy,invalid,.*no route from rank' "$DIR/p/p.csv"

# Bad options: one line, exit 2, nothing written.
echo keep > "$DIR/old.json"
expect_error route-no-fabric 2 '^flux: error: --route = packet: needs a packet fabric \(--packet-gbps\)$' -- \
  "$FLUX" schedule "$DIR/moe.json" --wiring rails --ocs-radix 4 --route packet -o "$DIR/old.json"
expect_error bad-route 2 '^flux: error: --route = relay: must be forward, forward-rx, packet or auto$' -- \
  "$FLUX" schedule "$DIR/moe.json" "${FAB[@]}" --route relay -o "$DIR/old.json"
expect_error bad-oversub 2 '^flux: error: --packet-oversubscription = 0.5: ' -- \
  "$FLUX" schedule "$DIR/moe.json" "${FAB[@]}" --packet-oversubscription 0.5 -o "$DIR/old.json"
expect_error bad-gbps 2 '^flux: error: --packet-gbps = -1: ' -- \
  "$FLUX" schedule "$DIR/moe.json" --wiring rails --ocs-radix 4 --packet-gbps -1 -o "$DIR/old.json"
[ "$(cat "$DIR/old.json")" = keep ] && pass || fail "old.json clobbered"

# Tampered: a packet send moved onto a switch, and a packet send started
# with the one before it from the same source.
python3 - "$DIR/moe.json" "$DIR/flux.json" "$DIR/t1.json" "$DIR/t2.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
src = {t["id"]: t["src"] for t in w["tasks"]}
s = json.load(open(sys.argv[2]))
pk = sorted((t for t in s["tasks"] if t.get("fabric") == "packet"), key=lambda t: t["start_s"])
t1 = json.loads(json.dumps(s))
for t in t1["tasks"]:
    if t["id"] == pk[0]["id"]:
        del t["fabric"]
        t["switch"] = 0
json.dump(t1, open(sys.argv[3], "w"))
first = pk[0]
second = next(t for t in pk[1:] if src[t["id"]] == src[first["id"]])
t2 = json.loads(json.dumps(s))
for t in t2["tasks"]:
    if t["id"] == second["id"]:
        t["start_s"] = first["start_s"]
json.dump(t2, open(sys.argv[4], "w"))
PY
expect_error tamper-switch 2 'invalid schedule' -- "$FLUX" validate "$DIR/moe.json" "$DIR/t1.json"
expect_grep tamper-switch-why 'is on switch 0, but its ranks are joined by no switch \(--wiring rails, --route forward\): it must use the packet fabric' \
  "$DIR/tamper-switch.out"
expect_error tamper-overlap 2 'invalid schedule' -- "$FLUX" validate "$DIR/moe.json" "$DIR/t2.json"
expect_grep tamper-overlap-why 'packet egress of accelerator [0-9]+: .*electrical transfers sharing a port overlap' \
  "$DIR/tamper-overlap.out"
finish
