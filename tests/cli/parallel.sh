#!/usr/bin/env bash
# Pipeline, context and sequence parallelism, sharded data parallelism, rank
# orders and named jobs in flux generate llama3.
source "$(dirname "$0")/lib.sh" "$@"

# TP: 8 layers x 8 micro-batches x 4 all-reduces x 2 groups x 24 ring sends
# = 12288; DP: 8 layers x 4 rings x 4 sends = 128; pipeline: 2 x 8 x 3 x 4 x 2 = 384.
expect_ok pp -- "$FLUX" generate llama3 --layers 8 --tp 4 --pp 4 --dp 2 --micro-batches 8 \
  -o "$DIR/pp.json"
expect_grep pp-says "wrote .*llama3-8b-L8-tp4-dp2-pp4-a100, 12800 sends" "$DIR/pp.out"
expect_ok pp-order -- "$FLUX" generate llama3 --layers 8 --tp 4 --pp 4 --dp 2 \
  --order tp-cp-pp-dp -o "$DIR/pp2.json"
expect_grep pp-order-name "llama3-8b-L8-tp4-pp4-dp2-a100" "$DIR/pp-order.out"

# Interleaved 1F1B: 2 stages of 2 chunks. TP 4 layers x 4 micro-batches x 4
# all-reduces x 2 groups x 4 = 512, DP 4 x 2 x 4 = 32, pipeline 2 x 4 x 3 x 2 x 2 = 96.
expect_ok vpp -- "$FLUX" generate llama3 --layers 4 --tp 2 --pp 2 --vpp 2 --dp 2 \
  --micro-batches 4 -o "$DIR/vpp.json"
expect_grep vpp-says "wrote .*llama3-8b-L4-tp2-dp2-pp2-vpp2-a100, 640 sends" "$DIR/vpp.out"

# Every option at once, as workload JSON and as Chakra traces that import back
# to the same workload, byte for byte.
all=(--layers 3 --tp 2 --cp 2 --pp 2 --dp 2 --micro-batches 3 --sequence-parallel
     --dp-sharding full --embeddings --order tp-cp-pp-dp)
expect_ok all -- "$FLUX" generate llama3 "${all[@]}" -o "$DIR/all.json"
expect_grep all-name "llama3-8b-L3-tp2-cp2-pp2-dp2-sp-fsdp-a100" "$DIR/all.out"
for enc in comm-coll send-recv; do
  expect_ok "chakra-$enc" -- "$FLUX" generate llama3 "${all[@]}" --format chakra \
    --chakra-collectives "$enc" -o "$DIR/t-$enc"
  groups=()
  [ -e "$DIR/t-$enc.json" ] && groups=(--comm-groups "$DIR/t-$enc.json")
  expect_ok "import-$enc" -- "$FLUX" import chakra "$DIR/t-$enc" "${groups[@]}" \
    -o "$DIR/back-$enc.json"
  cmp -s "$DIR/all.json" "$DIR/back-$enc.json" && pass || fail "$enc: the round trip differs"
done

# A named job, folded, with explicit options overriding it.
expect_ok job -- "$FLUX" generate llama3 --job llama3-70b-1k --fold-dp 4 --layers 8 \
  --micro-batches 2 -o "$DIR/job.json"
expect_grep job-name "llama3-70b-L8-tp8-pp4-dp32-sp-zero1-fold4-h100" "$DIR/job.out"
expect_ok help -- "$FLUX" generate llama3 --help
for flag in --pp --vpp --cp --order --sequence-parallel --dp-sharding --job llama3-405b-16k-long; do
  expect_grep "help$flag" "$flag" "$DIR/help.out"
done

o=$DIR/bad.json
expect_error pp-layers 2 '^flux: error: --pp = 9: exceeds the layers \(8\): every stage needs one$' -- \
  "$FLUX" generate llama3 --layers 8 --tp 2 --pp 9 -o "$o"
expect_error cp-seq 2 '^flux: error: --cp = 3: 2 \* cp must divide seq \(8192\)' -- \
  "$FLUX" generate llama3 --layers 2 --tp 2 --cp 3 -o "$o"
expect_error tp-heads 2 '^flux: error: --tp = 3: must divide the attention heads \(32\)$' -- \
  "$FLUX" generate llama3 --layers 2 --tp 3 --pp 2 -o "$o"
expect_error fold-order 2 '^flux: error: --fold-dp = 4: not exact with --pp in order tp-cp-dp-pp' -- \
  "$FLUX" generate llama3 --layers 2 --tp 2 --pp 2 --dp 8 --fold-dp 4 -o "$o"
expect_error sp-seq 2 '^flux: error: --sequence-parallel = on: tp \(4\) must divide the tokens' -- \
  "$FLUX" generate llama3 --layers 2 --tp 4 --seq 6 --sequence-parallel -o "$o"
expect_error vpp 2 '^flux: error: --vpp = 2: needs micro-batches \(3\) to be a multiple of pp \(2\)$' -- \
  "$FLUX" generate llama3 --layers 4 --tp 2 --pp 2 --vpp 2 --micro-batches 3 -o "$o"
expect_error order 2 '^flux: error: --order = dp-tp: unknown rank order' -- \
  "$FLUX" generate llama3 --layers 2 --tp 2 --order dp-tp -o "$o"
expect_error sharding 2 '^flux: error: --dp-sharding = zero2: unknown sharding' -- \
  "$FLUX" generate llama3 --layers 2 --tp 2 --dp-sharding zero2 -o "$o"
expect_error job 2 '^flux: error: --job = gpt: unknown job \(use llama3-405b-16k, ' -- \
  "$FLUX" generate llama3 --job gpt -o "$o"
[ ! -e "$o" ] && pass || fail "an error left a file behind"
finish
