#!/usr/bin/env bash
# Folded workloads from the command line: generate --fold-dp, info, schedule
# and simulate them; the ideal iteration time equals the full job's; the
# baselines and the Chakra exporter refuse them.
source "$(dirname "$0")/lib.sh" "$@"

num() { sed -nE "s/^ *\"$1\": *([0-9.e+-]+),?$/\\1/p" "$2"; }

expect_ok gen-fold -- "$FLUX" generate llama3 --layers 2 --tp 2 --dp 8 --fold-dp 4 -o "$DIR/f.json"
expect_grep fold-json '"copies": 2' "$DIR/f.json"
expect_ok gen-full -- "$FLUX" generate llama3 --layers 2 --tp 2 --dp 8 -o "$DIR/w.json"
expect_ok info -- "$FLUX" info "$DIR/f.json"
expect_grep info-fold '^fold  *2 copies of 4 blocks of 2 ranks: stands for 16 accelerators and 704 sends$' \
  "$DIR/info.out"

expect_ok ideal-fold -- "$FLUX" simulate "$DIR/f.json" --scheduler ideal -o "$DIR/if.json"
expect_ok ideal-full -- "$FLUX" simulate "$DIR/w.json" --scheduler ideal -o "$DIR/iw.json"
[ "$(num iteration_time_s "$DIR/if.json")" = "$(num iteration_time_s "$DIR/iw.json")" ] && pass ||
  fail "ideal iteration time of the fold differs from the job's"
expect_grep copies '"copies": 2,' "$DIR/if.json"

expect_ok flux -- "$FLUX" simulate "$DIR/f.json" --scheduler flux --tau 1ms -o "$DIR/m.json"
expect_grep folded-line '^folded  *one of 2 copies \(the job: 16 accelerators\)' "$DIR/flux.out"
[ "$(num iteration_time_s "$DIR/m.json")" = "$(num schedule_makespan_s "$DIR/m.json")" ] && pass ||
  fail "replay of the folded schedule differs from its makespan"

# The fold and its schedule lifted to the job: valid, and the same iteration time.
expect_ok sched -- "$FLUX" schedule "$DIR/f.json" --tau 1ms -o "$DIR/fs.json"
expect_ok unfold -- "$FLUX" unfold "$DIR/f.json" --schedule "$DIR/fs.json" -o "$DIR/job.json" \
  --schedule-output "$DIR/js.json"
expect_grep unfold-sends 'job.json: llama3-8b-L2-tp2-dp8-fold4-a100-unfolded, 704 sends' "$DIR/unfold.out"
expect_ok validate-job -- "$FLUX" validate "$DIR/job.json" "$DIR/js.json"
expect_ok sim-job -- "$FLUX" simulate "$DIR/job.json" --schedule "$DIR/js.json" -o "$DIR/jm.json"
[ "$(num iteration_time_s "$DIR/jm.json")" = "$(num iteration_time_s "$DIR/m.json")" ] && pass ||
  fail "the lifted schedule's iteration time differs from the fold's"
expect_error unfold-pair 2 'give --schedule and --schedule-output together' -- \
  "$FLUX" unfold "$DIR/f.json" --schedule "$DIR/fs.json" -o "$DIR/x.json"
expect_error unfold-other 2 'fs.json' -- \
  "$FLUX" unfold "$DIR/w.json" --schedule "$DIR/fs.json" -o "$DIR/x.json" --schedule-output "$DIR/xs.json"
[ ! -e "$DIR/xs.json" ] && pass || fail "unfold wrote a schedule despite an error"

# A job too large for memory is refused with a message, not killed.
cat > "$DIR/huge.json" <<'JSON'
{"format": "flux.workload/v1", "name": "huge", "accelerators": 3,
 "fold": {"copies": 1431655765, "block_ranks": 1},
 "tasks": [{"id": 0, "src": 0, "dst": 1, "bytes": 8}, {"id": 1, "src": 1, "dst": 2, "bytes": 8},
           {"id": 2, "src": 2, "dst": 0, "bytes": 8}],
 "deps": []}
JSON
expect_error unfold-huge 2 'fold.copies = 1431655765: the job would need about' -- \
  "$FLUX" unfold "$DIR/huge.json" -o "$DIR/x.json"

# Out of memory is an error, not a kill: under a 400 MB address-space limit
# (not with sanitizers, which need terabytes of address space).
if ! ldd "$FLUX" 2>/dev/null | grep -q 'libasan\|libtsan'; then
  expect_error oom 1 'out of memory: make the job smaller, or fold it' -- \
    bash -c "ulimit -v 400000 && exec \"\$0\" generate llama3 --model 70b --tp 8 --dp 64 -o \"\$1\"" \
    "$FLUX" "$DIR/x.json"
fi

expect_error rotornet 2 'cannot schedule a folded workload \(2 copies\)' -- \
  "$FLUX" simulate "$DIR/f.json" --scheduler rotornet -o "$DIR/x.json"
expect_error fold2 2 '--fold-dp = 2: must be at least 3 and divide dp \(8\)' -- \
  "$FLUX" generate llama3 --layers 1 --tp 2 --dp 8 --fold-dp 2 -o "$DIR/x.json"
expect_error inexact 2 "does not split into dp \\* cp = 12 equal chunks" -- \
  "$FLUX" generate llama3 --layers 1 --tp 2 --dp 12 --fold-dp 4 -o "$DIR/x.json"
expect_error chakra 2 'a folded workload has no Chakra form' -- \
  "$FLUX" generate llama3 --layers 1 --tp 2 --dp 8 --fold-dp 4 --format chakra -o "$DIR/x"
[ ! -e "$DIR/x.json" ] && [ ! -e "$DIR/x.0.et" ] && pass || fail "an error left a file behind"
finish
