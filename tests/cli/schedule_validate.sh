#!/usr/bin/env bash
# Scheduling the paper's workload, validating the result, and the errors of
# both commands.
source "$(dirname "$0")/lib.sh" "$@"

w=$DIR/w.json
expect_ok gen -- "$FLUX" generate llama3 --layers 1 --tp 4 --dp 2 -o "$w"
expect_ok milp -- "$FLUX" schedule "$w" --scheduler flux-milp --switches 2 --tau 10us --time-limit 30s -o "$DIR/s.json"
expect_grep milp-status '^status +optimal$' "$DIR/milp.out"
expect_grep format '"format": *"flux.schedule/v1"' "$DIR/s.json"
expect_grep circuits '"circuits"' "$DIR/s.json"
expect_ok validate -- "$FLUX" validate "$w" "$DIR/s.json"
expect_grep valid 'valid schedule' "$DIR/validate.out"

# The exported model and a greedy schedule.
expect_ok export -- "$FLUX" schedule "$w" --scheduler flux-milp --tau 1ms --export-milp "$DIR/model.lp" --time-limit 10s
expect_grep lp '^Minimize' "$DIR/model.lp"
expect_ok greedy -- "$FLUX" schedule "$w" --scheduler greedy --tau 1ms -o "$DIR/g.json"
expect_ok validate-g -- "$FLUX" validate "$w" "$DIR/g.json"

# A schedule tampered with: the first send moved to t = 0, before its release.
sed -E '0,/"start_s": *[0-9.e+-]+/{s/"start_s": *[0-9.e+-]+/"start_s": 0/}' "$DIR/s.json" > "$DIR/bad.json"
cmp -s "$DIR/s.json" "$DIR/bad.json" && fail "sed did not change the schedule" || pass
expect_error tampered 2 'bad.json: invalid schedule' -- "$FLUX" validate "$w" "$DIR/bad.json"
expect_grep violation '^violation: ' "$DIR/tampered.out"

# A schedule for another workload.
expect_ok gen2 -- "$FLUX" generate llama3 --layers 2 --tp 4 --dp 2 -o "$DIR/w2.json"
expect_error other 2 'invalid schedule' -- "$FLUX" validate "$DIR/w2.json" "$DIR/s.json"

expect_error unknown 2 '--scheduler = magic: unknown scheduler \(known: flux, flux-milp, greedy, rotornet, rotornet-vlb, bvn, ideal\)' -- \
  "$FLUX" schedule "$w" --scheduler magic -o "$DIR/x.json"
expect_error zero 2 '--switches = 0' -- "$FLUX" schedule "$w" --switches 0 -o "$DIR/x.json"
expect_error tau 2 '--tau = -3us' -- "$FLUX" schedule "$w" --tau=-3us -o "$DIR/x.json"
expect_error limit 2 '--time-limit = 5' -- "$FLUX" schedule "$w" --time-limit 5 -o "$DIR/x.json"
expect_error lpext 2 'model.txt' -- "$FLUX" schedule "$w" --scheduler flux-milp --export-milp "$DIR/model.txt" -o "$DIR/x.json"
expect_error milponly 2 '--export-milp = .*model.lp: applies to --scheduler flux-milp only' -- \
  "$FLUX" schedule "$w" --scheduler greedy --export-milp "$DIR/model.lp" -o "$DIR/x.json"
[ ! -e "$DIR/x.json" ] && pass || fail "x.json written despite errors"

# The model and the schedule are written as one: -o failing keeps the old
# model and leaves no temporary; both written when nothing fails.
mkdir -p "$DIR/m"
echo old-model >"$DIR/m/model.lp"
expect_error export_full 2 '/dev/full: cannot write' -- "$FLUX" schedule "$w" --scheduler flux-milp \
  --tau 1ms --time-limit 10s --export-milp "$DIR/m/model.lp" -o /dev/full
[ "$(cat "$DIR/m/model.lp")" = old-model ] && pass || fail "--export-milp replaced although -o failed"
[ "$(ls -A "$DIR/m")" = model.lp ] && pass || fail "files left in m/: $(ls -A "$DIR/m")"
expect_ok export_both -- "$FLUX" schedule "$w" --scheduler flux-milp --tau 1ms --time-limit 10s \
  --export-milp "$DIR/m/model.mps" -o "$DIR/m/s.json"
expect_grep mps '^ROWS' "$DIR/m/model.mps"
expect_grep export_schedule '"format": *"flux.schedule/v1"' "$DIR/m/s.json"
finish
