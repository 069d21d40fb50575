#!/usr/bin/env bash
# `flux evaluate --preset fabrics` (issue 29; docs/results.md, "Fabrics that
# can be built"): resumed from the CSV of a full run (tests/data/fabrics,
# the run docs/results.md quotes; measuring it takes 42 min), it runs what
# is left, the points the wiring cannot run (405B folded across pods),
# which are refused before any job is generated, listed with the reason,
# and the command succeeds; the CSV comes back row for row, each job on
# each fabric a table of the summary.
source "$(dirname "$0")/lib.sh" "$@"
REPO=$(cd "$(dirname "$0")/../.." && pwd)
REF=$REPO/tests/data/fabrics/fabrics.csv

mkdir -p "$DIR/f"
cp "$REF" "$DIR/f/fabrics.csv"
expect_ok resume -- "$FLUX" evaluate --preset fabrics -j 2 -o "$DIR/f"
expect_grep resumed 'resuming: 150 rows already in' "$DIR/resume.out"
expect_grep points 'preset fabrics, 210 points' "$DIR/resume.out"
expect_grep cannot-run '^60 points the configuration cannot run \(not measured\):$' \
  "$DIR/f/summary.txt"
expect_grep why '^  llama3-405b-16k,.*,rails,320,400,packet,1,10us,60s,rotornet: fold = 32 copies: under rails the lift of a folded schedule is exact only when each rail is one switch per plane \(2048 domains, radix 320\)' \
  "$DIR/f/summary.txt"
# Written in the current version: the rows of the reference (version 4)
# with the collective columns (ring, no choice) and the online and uncertain-NIC columns
# (empty) after them.
sed '1s/$/,collective,choice,online_p50_s,online_p95_s,online_max_s,decisions,decision_p50_s,decision_p99_s,decision_max_s,planned_nic_max_bytes,replanned_nic_max_bytes,online_nic_max_bytes/; 2,$s/$/,ring,,,,,,,,,,,/' "$REF" > "$DIR/expected.csv"
if cmp -s "$DIR/expected.csv" "$DIR/f/fabrics.csv"; then pass; else fail "the resumed CSV differs from $REF"; fi
# A table per job and fabric that has rows: 1 for 405B, 7 for the others.
n=$(grep -c '^llama3-70b-1k: .*; rails, 16 OCS of \(576\|320\|136\) ports' "$DIR/f/summary.txt")
if [ "$n" = 6 ]; then pass; else fail "70B rails tables: $n, expected 6"; fi
n=$(grep -c '^llama3-405b-16k: ' "$DIR/f/summary.txt")
if [ "$n" = 1 ]; then pass; else fail "405B tables: $n, expected 1 (the crossbar's)"; fi
expect_grep moe-packet '^deepseek-v3-256-uniform: .*; rails, 16 OCS of 136 ports \(2 planes x 8 groups\), 512 ports used; packet fabric 400 Gb/s, every route$' \
  "$DIR/f/summary.txt"
finish
