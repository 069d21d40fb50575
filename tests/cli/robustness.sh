# flux evaluate --preset robustness (sweeps/robustness.toml through the
# sweep runner), reduced (1 layer, A100, tau 10 us, 2 trials), and flux
# schedule --robust-jitter: the CSV's axes, every trial delivering every
# byte (the failure points too), the same seed giving the same rows, -j 2
# giving those of -j 1, resuming, and one-line errors for bad options.
source "$(dirname "$0")/lib.sh" "$@"

common=(evaluate --preset robustness --layers 1 --gpu a100 --tau 10us --no-plot)
base=("${common[@]}" --jitters 0,10% --straggler-factors 1.5 --failure-jitters none)
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

# The same seed, another directory: the same rows but for the four wall times.
expect_ok again -- "$FLUX" "${tiny[@]}" -o "$DIR/b"
strip() { rev "$1" | cut -d, -f5- | rev; }
if [ "$(strip "$csv")" = "$(strip "$DIR/b/robustness.csv")" ]; then pass; else
  fail "same seed, different rows"; diff <(strip "$csv") <(strip "$DIR/b/robustness.csv") >&2; fi
# Two points at once (each in a process of its own, as every preset runs
# them): the same rows, in the same order.
expect_ok parallel -- "$FLUX" "${tiny[@]}" -j 2 -o "$DIR/p"
if [ "$(strip "$csv")" = "$(strip "$DIR/p/robustness.csv")" ]; then pass; else
  fail "-j 2 gave other rows than -j 1"; diff <(strip "$csv") <(strip "$DIR/p/robustness.csv") >&2; fi
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

# A switch failure mid-iteration, alone and under 10% jitter: switch 1 dark
# at half of ideal's iteration time for every scheduler, re-planned.
fail=("${common[@]}" --jitters 0 --straggler-factors 1.5 --failure-jitters 0,10% --trials 2
      --schedulers flux,bvn,ideal --replan-moves 200 --replan-time-limit 3s)
expect_ok failure -- "$FLUX" "${fail[@]}" -o "$DIR/f"
fcsv=$DIR/f/robustness.csv
# 3 schedulers x 4 perturbations (none, straggler, failure, failure + 10%).
[ "$(tail -n +2 "$fcsv" | wc -l)" -eq 12 ] && pass || fail "expected 12 rows in $fcsv"
[ "$(grep -c ',failure,' "$fcsv")" -eq 6 ] && pass || fail "expected 6 failure rows"
[ "$(grep ',failure,' "$fcsv" | cut -d, -f"$delivered" | sort -u)" = true ] && pass ||
  fail "a failure trial lost bytes"
fcol() { head -1 "$fcsv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
[ "$(grep ',failure,' "$fcsv" | cut -d, -f"$(fcol fail_switch)","$(fcol fail_time_s)" | sort -u | wc -l)" -eq 1 ] &&
  pass || fail "the failure time differs between schedulers"
expect_grep failure_flux '^L1-a100,1,a100,1e-05,flux,0,failure,0.1,0,1,2,1,ordered,' "$fcsv"
expect_grep failure_summary 'failure: switch 1 dark at' "$DIR/failure.out"
expect_grep failure_table 're-planned sends p50' "$DIR/failure.out"
[ "$(grep ',flux,0,failure,0,' "$fcsv" | cut -d, -f"$(fcol replanned_sends_p50)")" -gt 0 ] &&
  pass || fail "flux re-planned no send"
expect_ok failure_again -- "$FLUX" "${fail[@]}" -o "$DIR/g"
[ "$(strip "$fcsv")" = "$(strip "$DIR/g/robustness.csv")" ] && pass ||
  fail "same seed, different failure rows"
expect_error replan_limit 2 '^flux: error: --replan-time-limit = -1s: ' \
  -- "$FLUX" "${common[@]}" --failure-jitters 0 --replan-time-limit -1s -o "$DIR/e"
expect_error failure_jitters 2 '^flux: error: --failure-jitters = x: expected a fraction \(0\.05\) or a percentage' \
  -- "$FLUX" "${fail[@]}" --failure-jitters 0,x -o "$DIR/e"
expect_error one_switch 2 '^flux: error: --switches = 1: the failure points need a surviving switch' \
  -- "$FLUX" "${fail[@]}" --switches 1 -o "$DIR/e"

# Bad options: one line, exit 2, no CSV written.
expect_error trials0 2 '^flux: error: --trials = 0: must be an integer between 1 and 1000000$' \
  -- "$FLUX" "${base[@]}" --trials 0 -o "$DIR/e"
expect_error jitters 2 '^flux: error: --jitters = abc: expected a fraction \(0\.05\) or a percentage' \
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
expect_error robust_bad 2 '^flux: error: --robust-jitter = abc: expected a fraction \(0\.05\) or a percentage' \
  -- "$FLUX" schedule "$DIR/w.json" --robust-jitter abc -o "$DIR/bad.json"
expect_error robust_file 2 '^flux: error: --robust-jitter = 5%: plans with --scheduler' \
  -- "$FLUX" simulate "$DIR/w.json" --schedule "$DIR/rs.json" --robust-jitter 5%
[ ! -e "$DIR/bad.json" ] && pass || fail "bad.json written after an error"

finish
