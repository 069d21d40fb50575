# flux evaluate --preset robustness, reduced (1 layer, A100, tau 10 us, 2
# trials), and flux schedule --robust-jitter: the CSV's axes, every trial
# delivering every byte, the same seed giving the same rows, resuming, and
# one-line errors for bad options.
source "$(dirname "$0")/lib.sh" "$@"

base=(evaluate --preset robustness --layers 1 --gpu a100 --tau 10us --jitters 0,10%
      --straggler-factors 1.5 --no-plot)
tiny=("${base[@]}" --schedulers flux,flux-robust,ideal --trials 2 --perturb-seed 7)
expect_ok run -- "$FLUX" "${tiny[@]}" -o "$DIR/a"
csv=$DIR/a/robustness.csv
# 1 job x 1 tau x 3 schedulers x 3 perturbations (none, jitter 10%, straggler 1.5x).
[ "$(tail -n +2 "$csv" | wc -l)" -eq 9 ] && pass || fail "expected 9 rows in $csv"
expect_grep header '^job,layers,gpu,tau_s,scheduler,plan_jitter,perturbation,jitter,straggler_rank,straggler_factor,trials,seed,execution,iteration_p50_s,iteration_p95_s,iteration_p99_s,iteration_max_s,peak_nic_p50_bytes,peak_nic_p95_bytes,peak_nic_p99_bytes,peak_nic_max_bytes,all_delivered,' "$csv"
col() { head -1 "$csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
delivered=$(col all_delivered)
[ "$(tail -n +2 "$csv" | cut -d, -f"$delivered" | sort -u)" = true ] && pass ||
  fail "a trial lost bytes: $(cut -d, -f"$delivered" "$csv" | sort -u | tr '\n' ' ')"
expect_grep jitter_row '^L1-a100,1,a100,1e-05,flux-robust,0.1,jitter,0.1,0,1,2,7,ordered,' "$csv"
expect_grep straggler_row '^L1-a100,1,a100,1e-05,ideal,0,straggler,0,0,1.5,1,7,ordered,' "$csv"
expect_grep summary 'p95 iteration time against the first scheduler' "$DIR/run.out"

# The same seed, another directory: the same rows but for the two wall times.
expect_ok again -- "$FLUX" "${tiny[@]}" -o "$DIR/b"
strip() { rev "$1" | cut -d, -f3- | rev; }
if [ "$(strip "$csv")" = "$(strip "$DIR/b/robustness.csv")" ]; then pass; else
  fail "same seed, different rows"; diff <(strip "$csv") <(strip "$DIR/b/robustness.csv") >&2; fi
# Another seed moves the jittered rows.
expect_ok seed -- "$FLUX" "${base[@]}" --schedulers flux,flux-robust,ideal --trials 2 --perturb-seed 8 -o "$DIR/c"
[ "$(strip "$csv" | grep ',jitter,' | cut -d, -f14)" != \
  "$(strip "$DIR/c/robustness.csv" | grep ',jitter,' | cut -d, -f14)" ] && pass ||
  fail "seed 8 gave the same jittered times as seed 7"

# Resuming: a row removed is measured again, the others are kept.
head -n 5 "$csv" >"$DIR/partial.csv" && mkdir -p "$DIR/d" && cp "$DIR/partial.csv" "$DIR/d/robustness.csv"
expect_ok resume -- "$FLUX" "${tiny[@]}" -o "$DIR/d"
expect_grep resumed 'resuming: 4 rows' "$DIR/resume.out"
[ "$(strip "$csv")" = "$(strip "$DIR/d/robustness.csv")" ] && pass || fail "resumed rows differ"
expect_error resume_other 2 'flux: error: .*seed = 7: row 1 was measured with seed = 7, this sweep uses 9' \
  -- "$FLUX" "${base[@]}" --schedulers flux,flux-robust,ideal --trials 2 --perturb-seed 9 -o "$DIR/d"

# Bad options: one line, exit 2, no CSV written.
expect_error trials0 2 '^flux: error: --trials = 0: must be an integer between 1 and 1000000$' \
  -- "$FLUX" "${base[@]}" --trials 0 -o "$DIR/e"
expect_error jitters 2 '^flux: error: --jitters = abc: expected a percentage' \
  -- "$FLUX" "${tiny[@]}" --jitters 0,abc -o "$DIR/e"
expect_error factors 2 '^flux: error: --straggler-factors = 0: expected a factor in \(0, 1000\]$' \
  -- "$FLUX" "${tiny[@]}" --straggler-factors 0 -o "$DIR/e"
expect_error variant 2 '^flux: error: --schedulers = foo-robust: unknown scheduler' \
  -- "$FLUX" "${base[@]}" --schedulers flux,foo-robust -o "$DIR/e"
expect_error rank 2 '^flux: error: --straggler-rank = 8: not a rank of L1-a100 \(it has 8\)$' \
  -- "$FLUX" "${tiny[@]}" --straggler-rank 8 -o "$DIR/e"
expect_error other_preset 2 '^flux: error: --preset = paper-fig2: --jitters, .* only apply to --preset robustness$' \
  -- "$FLUX" evaluate --preset paper-fig2 --trials 2 -o "$DIR/e"
[ ! -e "$DIR/e/robustness.csv" ] && pass || fail "a CSV was written after an error"

# flux schedule --robust-jitter: a plan for p95 compute, valid for the real workload.
expect_ok gen -- "$FLUX" generate llama3 --layers 1 -o "$DIR/w.json"
expect_ok robust_schedule -- "$FLUX" schedule "$DIR/w.json" --robust-jitter 20% -o "$DIR/rs.json"
expect_ok robust_validate -- "$FLUX" validate "$DIR/w.json" "$DIR/rs.json"
expect_ok robust_simulate -- "$FLUX" simulate "$DIR/w.json" --schedule "$DIR/rs.json" \
  --compute-jitter 20% --trials 3
expect_grep robust_delivered 'every byte delivered in every trial' "$DIR/robust_simulate.out"
expect_error robust_bad 2 '^flux: error: --robust-jitter = abc: expected a percentage' \
  -- "$FLUX" schedule "$DIR/w.json" --robust-jitter abc -o "$DIR/bad.json"
expect_error robust_file 2 '^flux: error: --robust-jitter = 5%: plans with --scheduler' \
  -- "$FLUX" simulate "$DIR/w.json" --schedule "$DIR/rs.json" --robust-jitter 5%
[ ! -e "$DIR/bad.json" ] && pass || fail "bad.json written after an error"

finish
