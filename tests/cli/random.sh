#!/usr/bin/env bash
# flux generate random: generating, scheduling with flux and flux-milp, the
# bad-option contract, and the same bytes for the same seed.
source "$(dirname "$0")/lib.sh" "$@"

w=$DIR/w.json
expect_ok gen -- "$FLUX" generate random --ranks 4 --sends 8 --depth 3 --seed 3 --release 2us --tail 5us -o "$w"
expect_grep gen-says 'wrote .*: random-r4-n8-d3-rl2us-tl5us-s3, 8 sends, [0-9]+ deps' "$DIR/gen.out"
expect_grep format '"format": *"flux.workload/v1"' "$w"
expect_grep release '"release_s"' "$w"
expect_grep tail '"tail_s"' "$w"

# Same options, same bytes; another seed, another workload.
expect_ok gen2 -- "$FLUX" generate random --ranks 4 --sends 8 --depth 3 --seed 3 --release 2us --tail 5us -o "$DIR/w2.json"
cmp -s "$w" "$DIR/w2.json" && pass || fail "generation is not deterministic"
expect_ok gen3 -- "$FLUX" generate random --ranks 4 --sends 8 --depth 3 --seed 4 --release 2us --tail 5us -o "$DIR/w3.json"
cmp -s "$w" "$DIR/w3.json" && fail "seeds 3 and 4 gave the same workload" || pass
# Standard output carries the same workload; the report goes to stderr.
"$FLUX" generate random --ranks 4 --sends 8 --depth 3 --seed 3 --release 2us --tail 5us -o - >"$DIR/stdout.json" 2>"$DIR/stdout.err" && pass || fail "-o - failed"
cmp -s "$w" "$DIR/stdout.json" && pass || fail "-o - differs from the file"

# Scheduled by the default scheduler and by the MILP, both validated; on 8
# sends the MILP proves its optimum, and flux must match it.
expect_ok info -- "$FLUX" info "$w"
expect_grep info-sends '^sends +8$' "$DIR/info.out"
expect_ok flux -- "$FLUX" schedule "$w" --switches 2 --tau 10us -o "$DIR/s.json"
expect_ok validate -- "$FLUX" validate "$w" "$DIR/s.json"
expect_ok milp -- "$FLUX" schedule "$w" --scheduler flux-milp --switches 2 --tau 10us --time-limit 30s -o "$DIR/m.json"
expect_grep milp-status '^status +optimal$' "$DIR/milp.out"
expect_ok validate-milp -- "$FLUX" validate "$w" "$DIR/m.json"
flux_t=$(grep '^iteration time' "$DIR/flux.out")
milp_t=$(grep '^iteration time' "$DIR/milp.out")
[ -n "$milp_t" ] && [ "$flux_t" = "$milp_t" ] && pass || fail "flux ($flux_t) and flux-milp ($milp_t) differ"
expect_ok simulate -- "$FLUX" simulate "$w" --schedule "$DIR/m.json" -o "$DIR/metrics.json"

# Bad options: one line naming the flag, exit 2, nothing written.
x=$DIR/x.json
expect_error ranks 2 '^flux: error: --ranks = 1: must be an integer between 2 and 1048576$' -- "$FLUX" generate random --ranks 1 -o "$x"
expect_error sends 2 '^flux: error: --sends = 0: must be an integer between 1 and' -- "$FLUX" generate random --sends 0 -o "$x"
expect_error fanin 2 '^flux: error: --fan-in = 65: must be an integer between 1 and 64$' -- "$FLUX" generate random --fan-in 65 -o "$x"
expect_error skip 2 '^flux: error: --skip = 1.5: must be between 0 and 1$' -- "$FLUX" generate random --skip 1.5 -o "$x"
expect_error locality 2 '^flux: error: --locality = nan: must be between 0 and 1$' -- "$FLUX" generate random --locality nan -o "$x"
expect_error transfer 2 '^flux: error: --transfer = 5: needs a unit' -- "$FLUX" generate random --transfer 5 -o "$x"
expect_error transfer-small 2 '^flux: error: --transfer = 1ps: must be between 10 ps and 1000 s$' -- "$FLUX" generate random --transfer 1ps -o "$x"
expect_error spread 2 '^flux: error: --size-spread = 0.5: must be between 1 and 1000$' -- "$FLUX" generate random --size-spread 0.5 -o "$x"
expect_error compute 2 '^flux: error: --compute = -1us' -- "$FLUX" generate random --compute=-1us -o "$x"
expect_error tail 2 '^flux: error: --tail = 2000s: must be between 0 and 1000 s$' -- "$FLUX" generate random --tail 2000s -o "$x"
expect_error seed 2 '^flux: error: --seed = x: must be an integer between 0 and 9223372036854775807$' -- "$FLUX" generate random --seed x -o "$x"
expect_error chakra 2 '^flux: error: --format = chakra: a random DAG has no Chakra form' -- "$FLUX" generate random --format chakra -o "$DIR/t"
expect_error format 2 '^flux: error: --format = xml: unknown format \(json or chakra\)$' -- "$FLUX" generate random --format xml -o "$x"
expect_error output 2 '^flux: error: --output is required' -- "$FLUX" generate random
[ ! -e "$x" ] && [ ! -e "$DIR/t.0.et" ] && pass || fail "an output was written despite errors"
# A bad value leaves an existing output untouched.
cp "$w" "$DIR/keep.json"
expect_error keep 2 '--depth = 0' -- "$FLUX" generate random --depth 0 -o "$DIR/keep.json"
cmp -s "$w" "$DIR/keep.json" && pass || fail "a failed generate clobbered its output"
finish
