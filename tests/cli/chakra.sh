#!/usr/bin/env bash
# Chakra execution traces in and out: generated workloads exported (both
# collective encodings, plain and gzip) and imported back identical; the
# real traces of ../shared/traces/chakra (when present) imported, scheduled
# and simulated; bad traces rejected with one clear error and no output.
source "$(dirname "$0")/lib.sh" "$@"

traces=${FLUX_CHAKRA_TRACES:-$(dirname "$0")/../../../shared/traces/chakra}

# --- out and back in -------------------------------------------------------------
gen="generate llama3 --layers 2 --tp 2 --dp 2 --micro-batches 2"
expect_ok gen-json -- "$FLUX" $gen -o "$DIR/g.json"
expect_ok gen-direct -- "$FLUX" $gen --collective direct -o "$DIR/g-direct.json"
for enc in comm-coll send-recv; do
  mkdir -p "$DIR/$enc"
  expect_ok "gen-$enc" -- "$FLUX" $gen --collective direct --format chakra --chakra-collectives "$enc" \
    -o "$DIR/$enc/g"
  expect_grep "files-$enc" "wrote .*/g.0.et \.\. .*/g\.(3\.et|json):" "$DIR/gen-$enc.out"
  # The algorithm is recorded in the traces; the groups file is found next to them.
  expect_ok "back-$enc" -- "$FLUX" import chakra "$DIR/$enc/g" -o "$DIR/back-$enc.json"
  cmp -s "$DIR/g-direct.json" "$DIR/back-$enc.json" && pass || fail "$enc: import(export(w)) != w"
done
expect_grep groups-file '"1": \[0, 1\]' "$DIR/comm-coll/g.json"
expect_ok named -- "$FLUX" import chakra "$DIR/comm-coll/g" --name mine -o "$DIR/named.json"
expect_grep named-json '"name": "mine",' "$DIR/named.json"
[ ! -e "$DIR/send-recv/g.json" ] && pass || fail "send-recv wrote a group file"
# Asking for another algorithm than the one exported gives another workload.
expect_ok back-ring -- "$FLUX" import chakra "$DIR/comm-coll/g" --collective ring -o "$DIR/back-ring.json"
cmp -s "$DIR/g.json" "$DIR/back-ring.json" && pass || fail "--collective ring differs from a ring export"

# gzip-compressed files, also as two concatenated gzip members.
mkdir -p "$DIR/gz"
for f in "$DIR"/send-recv/g.*.et; do
  b=$(basename "$f")
  head -c 100 "$f" | gzip -c > "$DIR/gz/$b"
  tail -c +101 "$f" | gzip -c >> "$DIR/gz/$b"
done
expect_ok gz -- "$FLUX" import chakra "$DIR/gz/g" -o "$DIR/back-gz.json"
cmp -s "$DIR/g-direct.json" "$DIR/back-gz.json" && pass || fail "gzip import differs"

# --- traces of other tools ------------------------------------------------------------
if [ -d "$traces" ]; then
  ring=$traces/astra-sim/examples/system/custom_collectives/custom_ring_allreduce_8npus_1MB/custom_allreduce
  expect_ok ring -- "$FLUX" import chakra "$ring" -o "$DIR/ring.json"
  expect_grep ring-read 'read 8 ranks, 280 nodes \(56 COMP, 112 COMM_SEND, 112 COMM_RECV' "$DIR/ring.out"
  expect_grep ring-wrote 'wrote .*ring.json: custom_allreduce, 112 sends, 208 deps, 14.00 MiB' "$DIR/ring.out"

  micro=$traces/astra-sim/examples/workload/microbenchmarks
  expect_ok a2a -- "$FLUX" import chakra "$micro/all_to_all/16npus_1MB/all_to_all" -o "$DIR/a2a.json"
  expect_grep a2a-sends '240 sends, 0 deps, 15.00 MiB' "$DIR/a2a.out"
  expect_ok ar-hd -- "$FLUX" import chakra "$micro/all_reduce/8npus_1MB/all_reduce" \
    --collective halving-doubling -o "$DIR/ar.json"
  expect_grep ar-hd-bytes '48 sends, .* 14.00 MiB' "$DIR/ar-hd.out"

  dense=$traces/astra-sim-artifacts/examples/multitenancy/inputs/denseA/denseA
  expect_ok dense -- "$FLUX" import chakra "$dense" -o "$DIR/dense.json"
  expect_grep dense-groups 'using communicator groups from .*denseA.json' "$DIR/dense.out"
  expect_grep dense-read '60 COMM_COLL in 30 collectives.*172 COMP timed by the a100 roofline' "$DIR/dense.out"
  expect_grep dense-wrote 'denseA, 80 sends, .* 42.00 KiB' "$DIR/dense.out"
  expect_ok dense-greedy -- "$FLUX" schedule "$DIR/dense.json" --scheduler greedy --tau 1us -o "$DIR/dense.s.json"
  expect_ok dense-validate -- "$FLUX" validate "$DIR/dense.json" "$DIR/dense.s.json"
  expect_ok dense-replay -- "$FLUX" simulate "$DIR/dense.json" --schedule "$DIR/dense.s.json" -o "$DIR/dense.m.json"
  expect_grep dense-equal '^schedule says .*\(equal\)$' "$DIR/dense-replay.out"
  expect_ok dense-milp -- "$FLUX" schedule "$DIR/dense.json" --scheduler flux-milp --tau 1us --time-limit 5s \
    -o "$DIR/dense.milp.json"
  expect_ok dense-rotor -- "$FLUX" simulate "$DIR/dense.json" --scheduler rotornet --tau 1us -o "$DIR/dense.r.json"
  expect_grep dense-bytes '"bytes_delivered": 43008,' "$DIR/dense.r.json"

  # The same trace without its groups file: the error names the group.
  mkdir -p "$DIR/nogroups"
  for r in 0 1 2 3; do cp "$dense.$r.et" "$DIR/nogroups/"; done
  expect_error nogroups 2 'denseA.0.et: node 80.pg_name = "1": names a communicator group, but no group file' -- \
    "$FLUX" import chakra "$DIR/nogroups/denseA" -o "$DIR/x.json"
  echo '{"1": [0, 1], "1": [2, 3]}' > "$DIR/dup.json"
  expect_error dup-group 2 'dup.json: "1": duplicate key' -- \
    "$FLUX" import chakra "$DIR/nogroups/denseA" --comm-groups "$DIR/dup.json" -o "$DIR/x.json"
  head -c 3000 "$dense.1.et" > "$DIR/nogroups/denseA.1.et"
  expect_error truncated 2 'denseA.1.et: record [0-9]+ at byte [0-9]+: truncated' -- \
    "$FLUX" import chakra "$DIR/nogroups/denseA" --comm-groups "$dense.json" -o "$DIR/x.json"
else
  echo "no traces at $traces: their checks skipped"
fi

# --- bad input -------------------------------------------------------------------------
expect_error noprefix 2 "nope.0.et: no such file" -- "$FLUX" import chakra "$DIR/nope" -o "$DIR/x.json"
mkdir -p "$DIR/bad"
cp "$DIR/send-recv/g.0.et" "$DIR/send-recv/g.1.et" "$DIR/bad/"
cp "$DIR/send-recv/g.3.et" "$DIR/bad/g.3.et"
expect_error gap 2 'g.2.et: no such file, but g.3.et exists' -- "$FLUX" import chakra "$DIR/bad/g" -o "$DIR/x.json"
cp "$DIR/g.json" "$DIR/bad/j.0.et"
expect_error wrong-message 2 'j.0.et: record 0 at byte 0: ' -- "$FLUX" import chakra "$DIR/bad/j" -o "$DIR/x.json"
printf '\000\377\377\377\377\377\001' > "$DIR/bad/v.0.et"
expect_error varint 2 'v.0.et: record 1 at byte 1: bad varint' -- "$FLUX" import chakra "$DIR/bad/v" -o "$DIR/x.json"
# GlobalMetadata, then node 1 (COMP) with data_deps = [9]: no node 9.
printf '\000\006\010\001\030\004\050\011' > "$DIR/bad/d.0.et"
expect_error dangling 2 'd.0.et: node 1.data_deps = 9: no node with this id in the file' -- \
  "$FLUX" import chakra "$DIR/bad/d" -o "$DIR/x.json"
expect_ok drop -- "$FLUX" import chakra "$DIR/bad/d" --drop-missing-deps -o "$DIR/d.json"
expect_grep drop-warning '^flux: warning: .*d.0.et: ignored 1 dependencies on ids absent' "$DIR/drop.out"
# Nodes 1 and 2 (COMP) waiting for each other.
printf '\000\006\010\001\030\004\050\002\006\010\002\030\004\050\001' > "$DIR/bad/c.0.et"
expect_error cycle 2 'c.0.et: data_deps/ctrl_deps = (1 -> 2 -> 1|2 -> 1 -> 2): the dependencies form a cycle' -- \
  "$FLUX" import chakra "$DIR/bad/c" -o "$DIR/x.json"
expect_error algo 2 '--collective = tree' -- "$FLUX" import chakra "$DIR/send-recv/g" --collective tree -o "$DIR/x.json"
expect_error gpu 2 '--gpu = v100' -- "$FLUX" import chakra "$DIR/send-recv/g" --gpu v100 -o "$DIR/x.json"
expect_error format 2 '--format = xml: unknown format' -- "$FLUX" $gen --format xml -o "$DIR/x.json"
expect_error encoding 2 '--chakra-collectives = msccl' -- "$FLUX" $gen --format chakra --chakra-collectives msccl -o "$DIR/x"
expect_error nodir 2 "missing/t.0.et: cannot write" -- "$FLUX" $gen --format chakra -o "$DIR/missing/t"
[ ! -e "$DIR/x.json" ] && [ ! -e "$DIR/x.0.et" ] && [ ! -e "$DIR/missing" ] && pass ||
  fail "output written despite errors"
[ -z "$(find "$DIR" -name '.*tmp*')" ] && pass || fail "temporary files left behind"

# A trace of a job whose workload would not fit (about 56 GiB) is written
# from its program, without making its sends: in an address space of 1.5 GB.
# (Skipped on machines with the memory to make the workload.)
if [ "$(awk '/MemAvailable/ {print $2}' /proc/meminfo)" -lt 50000000 ]; then
  mkdir -p "$DIR/huge"
  huge="generate llama3 --model 8b --layers 128 --tp 1 --dp 1024 --format chakra"
  expect_ok huge -- vm_limited 1500000 "$FLUX" $huge -o "$DIR/huge/t"
  expect_grep huge-report "huge/t.json: llama3-8b-L128-tp1-dp1024-a100, 268173312 sends in 128 collectives, from the job's program \\(its workload, about [0-9.]+ GiB, would not fit" \
    "$DIR/huge.out"
  [ -e "$DIR/huge/t.1023.et" ] && [ ! -e "$DIR/huge/t.1024.et" ] && [ -e "$DIR/huge/t.json" ] &&
    pass || fail "huge: not 1,024 rank files and the groups"
  expect_error huge-auto 2 'collective = auto: a job written without its sends runs one algorithm per collective' -- \
    "$FLUX" $huge --collective auto -o "$DIR/huge/a"
  [ ! -e "$DIR/huge/a.0.et" ] && pass || fail "huge-auto: written despite the error"
  # Commands that need every send refuse it at once (its sends alone take
  # 32 GiB), counting its sends with the collectives kept whole, and say what
  # runs it.
  if [ "$(awk '/MemAvailable/ {print $2}' /proc/meminfo)" -lt 30000000 ]; then
  expect_error huge-info 2 "huge/t: the traces hold 268173312 sends: their workload would need at least [0-9.]+ GiB, and [0-9.]+ GiB is available; .flux simulate .*huge/t --scheduler ideal. keeps their collectives whole" -- \
    vm_limited 1500000 "$FLUX" info "$DIR/huge/t"
  expect_error huge-schedule 2 "huge/t: the traces hold 268173312 sends" -- \
    vm_limited 1500000 "$FLUX" schedule "$DIR/huge/t" -o "$DIR/huge/s.json"
  [ ! -e "$DIR/huge/s.json" ] && pass || fail "huge-schedule: written despite the error"
  fi
fi
finish
