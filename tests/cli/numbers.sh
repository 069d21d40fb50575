#!/usr/bin/env bash
# Numbers at the edges of what Flux represents: times beyond 9.2e6 s, switch
# counts beyond 2^20, rank counts the dense structures could not hold, and
# statuses that say there is no schedule. Each is one named error (exit 2)
# and no output file, or a quick, small answer.
source "$(dirname "$0")/lib.sh" "$@"

# One send of 1e18 bytes: 1.25e7 s at 800 Gb/s, beyond the range.
cat > "$DIR/big.json" <<'JSON'
{"format": "flux.workload/v1", "name": "big", "accelerators": 4,
 "tasks": [{"id": 0, "src": 0, "dst": 1, "bytes": 1000000000000000000}], "deps": []}
JSON
range='big.json: tasks\[0\]\.bytes = 1000000000000000000: transmission at 800 Gb/s takes 1e\+07 s, beyond the 9\.2e6 s Flux can represent'
for s in ideal flux greedy flux-milp rotornet rotornet-vlb bvn; do
  expect_error "big_$s" 2 "$range" -- "$FLUX" schedule "$DIR/big.json" --scheduler "$s" -o "$DIR/big_$s.json"
  [ ! -e "$DIR/big_$s.json" ] && pass || fail "big_$s.json written despite the error"
done
expect_error big_info 2 "$range" -- "$FLUX" info "$DIR/big.json"
expect_error big_simulate 2 "$range" -- "$FLUX" simulate "$DIR/big.json" --scheduler ideal

# A rate so low that an ordinary send takes years.
"$FLUX" generate llama3 --layers 1 --tp 2 --dp 2 -o "$DIR/small.json" 2>/dev/null
expect_error slow_link 2 'small.json: tasks\[[0-9]+\]\.bytes = [0-9]+: transmission at 1e-09 Gb/s takes' -- \
  "$FLUX" schedule "$DIR/small.json" --link-gbps 1e-9 -o "$DIR/slow.json"
[ ! -e "$DIR/slow.json" ] && pass || fail "slow.json written despite the error"

# Ten sends of 1e6 s each in a chain: each fits, the sum does not.
{
  printf '{"format": "flux.workload/v1", "name": "chain", "accelerators": 2, "tasks": ['
  for i in 0 1 2 3 4 5 6 7 8 9; do
    [ "$i" -gt 0 ] && printf ','
    printf '{"id": %d, "src": %d, "dst": %d, "bytes": 100000000000000000}' "$i" $((i % 2)) $(((i + 1) % 2))
  done
  printf '], "deps": ['
  for i in 1 2 3 4 5 6 7 8 9; do
    [ "$i" -gt 1 ] && printf ','
    printf '{"from": %d, "to": %d, "compute_s": 1}' $((i - 1)) "$i"
  done
  printf ']}\n'
} > "$DIR/chain.json"
expect_error chain 2 'chain.json: tasks = 10 sends: running every send one after another at 800 Gb/s .* takes 1e\+07 s, beyond the 9\.2e6 s' -- \
  "$FLUX" schedule "$DIR/chain.json" --scheduler greedy -o "$DIR/chain_s.json"

# One limit, one message for times in files (5e6 s is within it).
for v in 5e6 1e7; do
  cat > "$DIR/rel_$v.json" <<JSON
{"format": "flux.workload/v1", "name": "r", "accelerators": 2,
 "tasks": [{"id": 0, "src": 0, "dst": 1, "bytes": 8, "release_s": $v}], "deps": []}
JSON
done
expect_ok release_5e6 -- "$FLUX" info "$DIR/rel_5e6.json"
expect_error release_1e7 2 'rel_1e7.json: tasks\[0\]\.release_s = 1e7: must be between 0 and 9\.2e6 s' -- \
  "$FLUX" info "$DIR/rel_1e7.json"

# Switch counts: 2^20 is the one limit of System::validate and schedule files.
expect_error switches 2 '--switches = 1048577: must be an integer between 1 and 1048576' -- \
  "$FLUX" schedule "$DIR/small.json" --switches 1048577 -o "$DIR/sw.json"
[ ! -e "$DIR/sw.json" ] && pass || fail "sw.json written despite the error"

# The largest valid switch count on many ranks: the schedulers' per-switch
# state is capped at one switch per send (identical switches), not s x n.
cat > "$DIR/ranks4096.json" <<'JSON'
{"format": "flux.workload/v1", "name": "w4096", "accelerators": 4096,
 "tasks": [{"id": 0, "src": 0, "dst": 4095, "bytes": 8}, {"id": 1, "src": 4095, "dst": 7, "bytes": 8}],
 "deps": [{"from": 0, "to": 1, "compute_s": 1e-6}]}
JSON
for s in greedy flux; do
  expect_ok "maxsw_$s" -- vm_limited 2000000 "$FLUX" schedule "$DIR/ranks4096.json" --scheduler "$s" \
    --switches 1048576 -o "$DIR/maxsw_$s.json"
  expect_ok "maxsw_${s}_valid" -- "$FLUX" validate "$DIR/ranks4096.json" "$DIR/maxsw_$s.json"
done

# flux info is O(sends): three sends among 2^32 - 2 ranks, then 10^5 ranks.
for n in 4294967294 100000; do
  cat > "$DIR/ranks_$n.json" <<JSON
{"format": "flux.workload/v1", "name": "wide", "accelerators": $n,
 "tasks": [{"id": 0, "src": 0, "dst": $((n - 1)), "bytes": 8},
           {"id": 1, "src": 5, "dst": 3, "bytes": 16},
           {"id": 2, "src": 0, "dst": $((n - 1)), "bytes": 8}], "deps": []}
JSON
  expect_ok "info_$n" -- vm_limited 1000000 "$FLUX" info "$DIR/ranks_$n.json"
  expect_grep "info_pairs_$n" "^pairs +2 \(src, dst\) with traffic" "$DIR/info_$n.out"
  expect_grep "info_top_$n" "0 -> $((n - 1)) +16 B" "$DIR/info_$n.out"
done
# bvn needs its matrix: a rank count it cannot hold is refused by name.
expect_error bvn_wide 2 'accelerators = 4294967294: bvn' -- \
  vm_limited 1000000 "$FLUX" schedule "$DIR/ranks_4294967294.json" --scheduler bvn -o "$DIR/bvn.json"

# A schedule whose status says there is none must not carry tasks or circuits.
"$FLUX" generate llama3 --layers 1 --tp 2 --dp 1 -o "$DIR/w.json" 2>/dev/null
"$FLUX" schedule "$DIR/w.json" --scheduler greedy -o "$DIR/s.json" >/dev/null
sed 's/"status": "[a-z_]*"/"status": "infeasible"/' "$DIR/s.json" > "$DIR/inf.json"
grep -q '"status": "infeasible"' "$DIR/inf.json" && pass || fail "status not replaced"
expect_error infeasible_validate 2 'inf.json: invalid schedule' -- "$FLUX" validate "$DIR/w.json" "$DIR/inf.json"
expect_grep infeasible_why 'status infeasible means there is no schedule, but the schedule has [0-9]+ task assignments' \
  "$DIR/infeasible_validate.out"
expect_error infeasible_simulate 2 'inf.json: invalid schedule' -- \
  "$FLUX" simulate "$DIR/w.json" --schedule "$DIR/inf.json" -o "$DIR/inf_m.json"
expect_grep infeasible_simulate_why 'status infeasible means there is no schedule' \
  "$DIR/infeasible_simulate.err"
[ ! -e "$DIR/inf_m.json" ] && pass || fail "inf_m.json written despite the error"

# A job that would not fit is refused before anything is generated, with the
# estimate flux unfold uses, pointing to --fold-dp.
# (Needs less than the ~116 GiB the job would take; skipped on larger machines.)
if [ "$(awk '/MemAvailable/ {print $2}' /proc/meminfo)" -lt 100000000 ]; then
expect_error gen_405b 2 '--dp = 512: the job would need about [0-9.]+ GiB, and .* is available: about 556351488 sends; fold the DP replicas \(--fold-dp' -- \
  vm_limited 2000000 "$FLUX" generate llama3 --model 405b --tp 8 --dp 512 -o "$DIR/405b.json"
[ ! -e "$DIR/405b.json" ] && pass || fail "405b.json written despite the error"
fi

finish
