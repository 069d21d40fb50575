#!/usr/bin/env bash
# flux generate moe: a tiny mixture-of-experts job generated, summarised,
# scheduled, validated, simulated and sent through Chakra and back; bad
# options refused with one line and no output.
source "$(dirname "$0")/lib.sh" "$@"

# Mixtral 8x7B, 2 layers, DP4 = EP4, 1,024 tokens per rank: per MoE layer and
# micro-batch four all-to-alls of 4 * 3 sends of 1024 * 2 / 4 tokens * 4096 *
# 2 bytes + 2 experts' counts (16 bytes) = 4 MiB + 16; one DP ring
# all-reduce (2 * 3 * 4 sends) per layer: 2 * 48 + 2 * 24 = 144 sends.
tiny="generate moe --model mixtral-8x7b --layers 2 --dp 4 --ep 4 --seq 1024 --micro-batches 1"
w=$DIR/moe.json
expect_ok generate -- "$FLUX" $tiny -o "$w"
expect_grep generate-says "wrote .*mixtral-8x7b-L2-tp1-dp4-ep4-h100, 144 sends" "$DIR/generate.out"
expect_grep a2a-bytes '"bytes": 4194320' "$w"
expect_ok info -- "$FLUX" info "$w"
expect_grep info-sends '^sends +144$' "$DIR/info.out"
expect_grep info-acc '^accelerators +4$' "$DIR/info.out"
expect_ok generate2 -- "$FLUX" $tiny -o "$DIR/moe2.json"
cmp -s "$w" "$DIR/moe2.json" && pass || fail "generation is not deterministic"

expect_ok schedule -- "$FLUX" schedule "$w" --moves 200 --no-lp-bound -o "$DIR/s.json"
expect_ok validate -- "$FLUX" validate "$w" "$DIR/s.json"
expect_grep valid 'valid schedule' "$DIR/validate.out"
expect_ok simulate -- "$FLUX" simulate "$w" --schedule "$DIR/s.json" -o "$DIR/m.json"
expect_grep simulate-equal '^schedule says .*\(equal\)$' "$DIR/simulate.out"

# Chakra out and back in, exactly.
mkdir -p "$DIR/ch"
expect_ok chakra -- "$FLUX" $tiny --format chakra -o "$DIR/ch/m"
expect_ok import -- "$FLUX" import chakra "$DIR/ch/m" -o "$DIR/back.json"
# Uniform routing: every all-to-all is one ALL_TO_ALL node per rank; skewed
# routing (unequal pairs): explicit sends and receives, exactly as well.
expect_grep chakra-coll ' 0 COMM_SEND, 0 COMM_RECV, [1-9][0-9]* COMM_COLL' "$DIR/import.out"
mkdir -p "$DIR/chz"
expect_ok chakra-zipf -- "$FLUX" $tiny --routing zipf:1.2 --format chakra -o "$DIR/chz/m"
expect_ok chakra-zipf-gen -- "$FLUX" $tiny --routing zipf:1.2 -o "$DIR/zipf.json"
expect_ok import-zipf -- "$FLUX" import chakra "$DIR/chz/m" -o "$DIR/zipf-back.json"
expect_grep chakra-sends ' [1-9][0-9]* COMM_SEND, [1-9][0-9]* COMM_RECV' "$DIR/import-zipf.out"
cmp -s "$DIR/zipf.json" "$DIR/zipf-back.json" && pass || fail "zipf: import(export(w)) != w"
cmp -s "$w" "$DIR/back.json" && pass || fail "import(export(moe)) != moe"

# A shared expert, dense first layer, TP with sequence parallelism and PP.
expect_ok deepseek -- "$FLUX" generate moe --model deepseek-v3 --layers 3 --dense-layers 1 \
  --tp 2 --sequence-parallel --pp 2 --dp 2 --ep 2 --seq 1024 --micro-batches 2 -o "$DIR/ds.json"
expect_grep deepseek-name 'deepseek-v3-L3-tp2-dp2-pp2-ep2-sp-h100' "$DIR/deepseek.out"
mkdir -p "$DIR/ds"
expect_ok ds-chakra -- "$FLUX" generate moe --model deepseek-v3 --layers 3 --dense-layers 1 \
  --tp 2 --sequence-parallel --pp 2 --dp 2 --ep 2 --seq 1024 --micro-batches 2 --format chakra \
  -o "$DIR/ds/d"
expect_ok ds-import -- "$FLUX" import chakra "$DIR/ds/d" -o "$DIR/ds-back.json"
cmp -s "$DIR/ds.json" "$DIR/ds-back.json" && pass || fail "deepseek: import(export(w)) != w"

# --- routing files: a measured routing replayed; bad files are one clear error --------
rfile=$(dirname "$0")/../../docs/examples/routing.json
rjob="--model mixtral-8x7b --layers 2 --dp 4 --ep 4 --seq 16 --micro-batches 1"
expect_ok routing-file -- "$FLUX" generate moe $rjob --routing "file:$rfile" -o "$DIR/rfile.json"
expect_ok routing-zipf -- "$FLUX" generate moe $rjob --routing zipf:1.2 -o "$DIR/rzipf.json"
expect_ok routing-uniform -- "$FLUX" generate moe $rjob -o "$DIR/runiform.json"
# The same DAG (sends, endpoints, deps): a plan for uniform routing runs on the others.
expect_ok plan-uniform -- "$FLUX" schedule "$DIR/runiform.json" --scheduler greedy --tau 10us \
  -o "$DIR/runiform.s.json"
for r in rfile rzipf; do
  expect_ok "run-on-$r" -- "$FLUX" simulate "$DIR/runiform.json" --schedule "$DIR/runiform.s.json" \
    --run-on "$DIR/$r.json"
done
python3 - "$rfile" "$DIR" <<'PY'
import json, sys
src, out = sys.argv[1], sys.argv[2]
base = json.load(open(src))
def write(name, f):
    d = json.loads(json.dumps(base)); f(d); json.dump(d, open(f"{out}/{name}.json", "w"))
write("r-negative", lambda d: d["layers"][0]["tokens"][1].__setitem__(1, -2))
write("r-shape", lambda d: d.__setitem__("experts", 16))
write("r-conserve", lambda d: d["layers"][1]["tokens"][0].__setitem__(0, 17))
write("r-rows", lambda d: d["layers"][0]["tokens"].pop())
PY
badfile() {  # badfile NAME PATTERN
  expect_error "$1" 2 "$2" -- "$FLUX" generate moe $rjob --routing "file:$DIR/$1.json" \
    -o "$DIR/bad.json"
  [ ! -e "$DIR/bad.json" ] && pass || fail "$1 wrote its output"
}
badfile r-negative 'flux: error: .*r-negative.json: layers\[0\]\.tokens\[1\]\[1\] = -2'
badfile r-shape 'flux: error: .*r-shape.json: experts = 16'
badfile r-conserve 'flux: error: .*r-conserve.json: layers\[1\]'
badfile r-rows 'flux: error: .*r-rows.json: layers\[0\]\.tokens'
expect_error r-missing 2 'flux: error: .*nope.json' -- "$FLUX" generate moe $rjob \
  --routing "file:$DIR/nope.json" -o "$DIR/bad.json"

# --- bad options: one line, exit 2, nothing written ---------------------------------
bad() {  # bad NAME PATTERN OPTIONS...
  local name=$1 pattern=$2
  shift 2
  expect_error "$name" 2 "$pattern" -- "$FLUX" generate moe "$@" -o "$DIR/bad.json"
  [ ! -e "$DIR/bad.json" ] && pass || fail "$name wrote its output"
}
bad ep-experts '--ep = 3: must divide the experts \(8\)' --dp 3 --ep 3
bad ep-dp '--ep = 8: must divide dp \* cp \(4\)' --dp 4 --ep 8
bad top-k '--top-k = 9: must not exceed the experts \(8\)' --top-k 9
bad etp '--etp = 2: only expert tensor parallelism 1' --etp 2
bad routing '--routing = bogus' --routing bogus
bad model '--model = mixtral: unknown MoE model' --model mixtral
bad dense '--dense-layers = 2: must be less than the layers \(2\)' --layers 2 --dense-layers 2
bad tp-sp '--tp = 2: MoE with tp > 1 needs --sequence-parallel' --tp 2 --dp 4 --ep 4
bad cf '--capacity-factor = -1: must be' --capacity-factor -1
bad drift '--routing = zipf-drift:1.2:2: zipf-drift.s D must be a number in \[0, 1\]' --routing zipf-drift:1.2:2
bad drift-args '--routing = zipf-drift:1.2: zipf-drift needs two numbers' --routing zipf-drift:1.2
bad experts '--experts = 0: must be an integer between 1' --experts 0
bad too-big '--dp = 16384: the job would need about .*: about [0-9]+ sends; generate fewer layers' --model deepseek-v3 --dp 16384 --ep 256 \
  --micro-batches 64

# --- a drifting routing and plans for its prediction ---------------------------------
expect_ok drift -- "$FLUX" generate moe --model mixtral-8x7b --dp 8 --ep 8 --layers 1 \
  --routing zipf-drift:1.2:0.05 -o "$DIR/drift.json"
expect_grep drift-name 'mixtral-8x7b-L1-tp1-dp8-ep8-zipf-drift:1.2:0.05-h100' "$DIR/drift.out"
# The shipped study (sweeps/moe-predict.toml, docs/results.md) reads: 3
# routings x 4 plans x 2 taus.
expect_ok predict-study -- "$FLUX" sweep "$(dirname "$0")/../../sweeps/moe-predict.toml" \
  --dry-run -o "$DIR/predict"
expect_grep predict-points '^24 points$' "$DIR/predict-study.out"
expect_grep predict-ewma 'zipf-drift:1.2:0.5,10,ewma:0.5,1s,1ms,1s,flux ' "$DIR/predict-study.out"
cat > "$DIR/p.toml" <<'TOML'
name = "p"
[axes]
job = "mixtral-8x7b-ep8"
layers = 1
routing = "zipf-drift:1.2:0.3"
routing_iterations = 2
plan_routing = ["last", "ewma:0.5"]
tau = "10us"
scheduler = "greedy"
TOML
expect_ok predict-sweep -- "$FLUX" sweep "$DIR/p.toml" -o "$DIR/p"
expect_grep predict-row ',ewma:0.5,10us,greedy,ok,' "$DIR/p/p.csv"
expect_grep predict-columns ',last,10us,greedy,ok,.*,mixtral-8x7b-ep8-zipf-drift:1.2:0.3,1,8,zipf-drift:1.2:0.3,2,0\.[0-9]+,0\.[0-9]+,0\.[0-9]+,0\.[0-9]+,' "$DIR/p/p.csv"
sed -i 's/ewma:0.5/ewma:0/' "$DIR/p.toml"
expect_error predict-bad 2 "axes.plan_routing\\[1\\] = ewma:0: ewma needs the newest iteration's weight A in \(0, 1\]" -- \
  "$FLUX" sweep "$DIR/p.toml" -o "$DIR/p2"
finish
