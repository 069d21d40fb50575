#!/usr/bin/env bash
# flux simulate --online (docs/model.md, "Online MoE scheduling"): a plan
# made for the uniform routing run online on a zipf iteration, its online
# schedule valid for that iteration and replayed exactly, deterministic
# under a modelled budget, the plan itself on a known routing; the sweep
# axes; bad budgets and combinations refused with one line and nothing
# written.
source "$(dirname "$0")/lib.sh" "$@"

tiny="generate moe --model mixtral-8x7b --layers 2 --dp 4 --ep 4 --seq 1024 --micro-batches 2"
u=$DIR/u.json
z=$DIR/z.json
expect_ok gen-u -- "$FLUX" $tiny -o "$u"
expect_ok gen-z -- "$FLUX" $tiny --routing zipf:1.2 -o "$z"
expect_ok schedule -- "$FLUX" schedule "$u" --tau 10us --moves 200 --no-lp-bound -o "$DIR/s.json"

expect_ok online -- "$FLUX" simulate "$u" --schedule "$DIR/s.json" --run-on "$z" --online \
  --decision-budget 100us -o "$DIR/m.json" --save-schedule "$DIR/online.json"
expect_grep online-line '^online +4 reveals, 16 decisions \(0 kept the plan: sizes as predicted\), [0-9]+ of [0-9]+ sends placed anew; budget 100 us \(modelled\)$' "$DIR/online.out"
expect_grep online-wall '^decision time +p50 [0-9.]+ us, p99 [0-9.]+ us, max [0-9.]+ us \(wall' "$DIR/online.out"
expect_grep online-equal '^schedule says .*\(equal\)$' "$DIR/online.out"
expect_ok validate -- "$FLUX" validate "$z" "$DIR/online.json"
expect_grep valid 'valid schedule' "$DIR/validate.out"
# The online schedule replays as itself on the zipf iteration.
expect_ok replay -- "$FLUX" simulate "$z" --schedule "$DIR/online.json" -o "$DIR/m2.json"
t1=$(grep -E '^iteration time' "$DIR/online.out")
t2=$(grep -E '^iteration time' "$DIR/replay.out")
[ "$t1" = "$t2" ] && pass || fail "replay: '$t1' != '$t2'"
# Modelled: the same decisions again, bit for bit (the wall times aside).
expect_ok online2 -- "$FLUX" simulate "$u" --schedule "$DIR/s.json" --run-on "$z" --online \
  --decision-budget 100us -o "$DIR/m3.json"
cmp -s "$DIR/m.json" "$DIR/m3.json" && pass || fail "online runs differ"
# A known routing: nothing to decide, the plan's makespan.
expect_ok known -- "$FLUX" simulate "$u" --schedule "$DIR/s.json" --run-on "$u" --online
expect_grep known-line '^online +4 reveals, 0 decisions \(16 kept the plan' "$DIR/known.out"
expect_grep known-equal '^schedule says .*\(equal\)$' "$DIR/known.out"
# Measured: each decision's wall time is its latency.
expect_ok measured -- "$FLUX" simulate "$u" --schedule "$DIR/s.json" --run-on "$z" --online \
  --decision-latency measured
expect_grep measured-line 'budget 100 us \(measured\)$' "$DIR/measured.out"
expect_grep measured-placed ' [1-9][0-9]* of [0-9]+ sends placed anew' "$DIR/measured.out"
# A reserve that leaves no time (the deadline is the decision's start):
# every decision stops before its first step, the plan's places kept.
expect_ok reserved -- "$FLUX" simulate "$u" --schedule "$DIR/s.json" --run-on "$z" --online \
  --decision-latency measured --decision-budget 1ns --decision-reserve 500ps
expect_grep reserved-line ' 0 of [0-9]+ sends placed anew; budget 1 ns \(measured, 500 ps reserved\)$' \
  "$DIR/reserved.out"

# Refused: one line, exit 2, nothing written.
expect_error no-run-on 2 '^flux: error: --online: needs --run-on' -- \
  "$FLUX" simulate "$u" --schedule "$DIR/s.json" --online -o "$DIR/bad.json"
expect_error budget-alone 2 '^flux: error: --online: --decision-budget apply with --online only' -- \
  "$FLUX" simulate "$u" --schedule "$DIR/s.json" --run-on "$z" --decision-budget 1ms \
  -o "$DIR/bad.json"
expect_error reserve-modelled 2 '^flux: error: --decision-reserve = 30 us: applies with a measured decision latency only$' -- \
  "$FLUX" simulate "$u" --schedule "$DIR/s.json" --run-on "$z" --online --decision-reserve 30us \
  -o "$DIR/bad.json"
expect_error reserve-big 2 '^flux: error: --decision-reserve = 1 ms: must be below the decision budget \(100 us\)$' -- \
  "$FLUX" simulate "$u" --schedule "$DIR/s.json" --run-on "$z" --online --decision-latency measured \
  --decision-reserve 1ms -o "$DIR/bad.json"
expect_error bad-budget 2 '^flux: error: --decision-budget = -1us' -- \
  "$FLUX" simulate "$u" --schedule "$DIR/s.json" --run-on "$z" --online --decision-budget -1us \
  -o "$DIR/bad.json"
expect_error big-budget 2 '^flux: error: --decision-budget = 11s: must be between 0 and 10 s' -- \
  "$FLUX" simulate "$u" --schedule "$DIR/s.json" --run-on "$z" --online --decision-budget 11s \
  -o "$DIR/bad.json"
expect_error bad-latency 2 '^flux: error: --decision-latency = fast: must be modelled or measured' -- \
  "$FLUX" simulate "$u" --schedule "$DIR/s.json" --run-on "$z" --online --decision-latency fast \
  -o "$DIR/bad.json"
expect_error jitter 2 '^flux: error: --online: an online run is one unperturbed iteration' -- \
  "$FLUX" simulate "$u" --schedule "$DIR/s.json" --run-on "$z" --online --compute-jitter 5% \
  -o "$DIR/bad.json"
[ ! -e "$DIR/bad.json" ] && pass || fail "an error left bad.json"
expect_error save-input 2 '^flux: error: ' -- \
  "$FLUX" simulate "$u" --schedule "$DIR/s.json" --run-on "$z" --online --save-schedule "$z"
cmp -s "$z" "$DIR/z.json" && pass || fail "the input was clobbered"

# The sweep axes: online columns for flux, none for a circuit-only rotor.
cat > "$DIR/sw.toml" <<TOML
name = "on"
[axes]
model = "mixtral-8x7b"
layers = 2
dp = 4
ep = 4
seq = 1024
routing = "zipf:1.2"
routing_iterations = 2
decision_budget = ["off", "100us"]
tau = "10us"
time_limit = "1s"
scheduler = ["flux", "rotornet"]

[[plot]]
name = "on"
x = "tau"
y = ["planned_p50_s", "online_p50_s", "decisions"]
series = "scheduler"
TOML
expect_ok sweep -- "$FLUX" sweep "$DIR/sw.toml" -o "$DIR/sw" -j 1
csv=$DIR/sw/on.csv
# The online columns plot; a point without them is a gap (NaN), not an error.
expect_grep plot-online '^1e-05 [0-9.e-]+ [0-9.e-]+ 16$' "$DIR/sw/on.gp"
expect_grep plot-gap '^1e-05 [0-9.e-]+ NaN NaN$' "$DIR/sw/on.gp"
if command -v gnuplot >/dev/null 2>&1; then
  [ -s "$DIR/sw/on.png" ] && pass || fail "no plot"
fi
online_col=$(head -1 "$csv" | tr ',' '\n' | grep -n '^online_p50_s$' | cut -d: -f1)
budget_col=$(head -1 "$csv" | tr ',' '\n' | grep -n '^decision_budget$' | cut -d: -f1)
[ -n "$online_col" ] && [ -n "$budget_col" ] && pass || fail "no online_p50_s or decision_budget column"
filled=$(awk -F, -v o="$online_col" -v b="$budget_col" 'NR > 1 && $o != "" {print $b}' "$csv" | sort | uniq -c | tr -s ' ')
[ "$filled" = " 1 100us" ] && pass || fail "online columns filled on: '$filled'"
# The online runs' NIC memory on the online row (a replay on time holds a
# packet per send at least), the planned and re-planned runs' on every
# uncertain row.
nic_col=$(head -1 "$csv" | tr ',' '\n' | grep -n '^online_nic_max_bytes$' | cut -d: -f1)
planned_nic_col=$(head -1 "$csv" | tr ',' '\n' | grep -n '^planned_nic_max_bytes$' | cut -d: -f1)
nic=$(awk -F, -v o="$nic_col" -v b="$budget_col" -v p="$planned_nic_col" \
  'NR > 1 && $o != "" {print $b, ($o >= 4096), ($p >= 4096)}' "$csv")
[ "$nic" = "100us 1 1" ] && pass || fail "online NIC memory: '$nic'"
planned_nic=$(awk -F, -v p="$planned_nic_col" 'NR > 1 && $p != "" {n++} END {print n}' "$csv")
[ "$planned_nic" = 4 ] && pass || fail "planned NIC memory on $planned_nic rows, expected 4"
expect_error sweep-bad 2 'axes.decision_budget = 1 parsec' -- \
  "$FLUX" sweep <(sed 's/\["off", "100us"\]/"1 parsec"/' "$DIR/sw.toml") -o "$DIR/sw2" --dry-run
finish
