#!/usr/bin/env bash
# Bad input: one clear error naming the file / option, the field and the
# value; exit code 2; nothing half-written.
source "$(dirname "$0")/lib.sh" "$@"

expect_error tp 2 '--tp = 3: must divide the attention heads' -- \
  "$FLUX" generate llama3 --layers 1 --tp 3 --dp 2 -o "$DIR/x.json"
expect_error model 2 "--model = 7b: unknown Llama 3 model" -- \
  "$FLUX" generate llama3 --model 7b -o "$DIR/x.json"
expect_error collective 2 "--collective = tree" -- \
  "$FLUX" generate llama3 --layers 1 --collective tree -o "$DIR/x.json"
expect_error micro 2 "--micro-batches = 0" -- \
  "$FLUX" generate llama3 --layers 1 --micro-batches 0 -o "$DIR/x.json"
[ ! -e "$DIR/x.json" ] && pass || fail "x.json written despite errors"

expect_error nodir 2 "$DIR/missing/w.json" -- \
  "$FLUX" generate llama3 --layers 1 -o "$DIR/missing/w.json"
[ ! -e "$DIR/missing" ] && pass || fail "missing/ created"

expect_error nofile 2 "$DIR/nope.json" -- "$FLUX" info "$DIR/nope.json"

printf '{"format": "flux.workload/v1", "name": "x", "accelerators": 2, "tasks": [' > "$DIR/trunc.json"
expect_error truncated 2 "trunc.json" -- "$FLUX" info "$DIR/trunc.json"

cat > "$DIR/cycle.json" <<'JSON'
{"format": "flux.workload/v1", "name": "c", "accelerators": 2,
 "tasks": [{"id": 5, "src": 0, "dst": 1, "bytes": 10}, {"id": 6, "src": 1, "dst": 0, "bytes": 10}],
 "deps": [{"from": 5, "to": 6, "compute_s": 0}, {"from": 6, "to": 5, "compute_s": 0}]}
JSON
expect_error cycle 2 'cycle.json: deps = (5 -> 6 -> 5|6 -> 5 -> 6): the dependencies form a cycle' -- \
  "$FLUX" info "$DIR/cycle.json"

cat > "$DIR/neg.json" <<'JSON'
{"format": "flux.workload/v1", "name": "n", "accelerators": 2,
 "tasks": [{"id": 1, "src": 0, "dst": 1, "bytes": -4}], "deps": []}
JSON
expect_error negative 2 'neg.json: tasks\[0\]\.bytes = -4' -- "$FLUX" info "$DIR/neg.json"

cat > "$DIR/unknown.json" <<'JSON'
{"format": "flux.workload/v1", "name": "u", "accelerators": 2,
 "tasks": [{"id": 1, "src": 0, "dst": 1, "bytes": 4}], "deps": [{"from": 1, "to": 9, "compute_s": 0}]}
JSON
expect_error unknown-id 2 'unknown.json: deps\[0\]\.to = 9' -- "$FLUX" info "$DIR/unknown.json"

cat > "$DIR/range.json" <<'JSON'
{"format": "flux.workload/v1", "name": "r", "accelerators": 2,
 "tasks": [{"id": 1, "src": 0, "dst": 2, "bytes": 4}], "deps": []}
JSON
expect_error range 2 'range.json: tasks\[0\]\.dst = 2: out of range' -- "$FLUX" info "$DIR/range.json"
expect_error link 2 '--link-gbps = 0' -- "$FLUX" info "$DIR/range.json" --link-gbps 0

# Writing over an existing file: on error the old file survives intact.
echo keep > "$DIR/old.json"
expect_error keep 2 '--tp = 3' -- "$FLUX" generate llama3 --layers 1 --tp 3 -o "$DIR/old.json"
[ "$(cat "$DIR/old.json")" = keep ] && pass || fail "old.json clobbered"
finish
