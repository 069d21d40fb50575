#!/usr/bin/env bash
# Reading Chakra traces safely and directly: corrupt or hostile rank files
# fail at their first bad record with bounded memory; a rank file that is a
# directory is one error line; schedule, simulate and info read a trace
# prefix with no workload file in between; workload JSON may be gzip.
source "$(dirname "$0")/lib.sh" "$@"

# --- hostile rank files -----------------------------------------------------------
# Zeros are records of length 0: an empty GlobalMetadata, then empty nodes
# (id 0) until the second one repeats the id. 200 MB of zeros are 200 KB of
# gzip; the import must stop at record 2 without inflating the rest, so it
# runs under a 1 GiB address-space limit (the whole file inflated would not).
mkdir -p "$DIR/z"
head -c 209715200 /dev/zero | gzip -c > "$DIR/z/zeros.0.et"
expect_error zeros 2 '^flux: error: .*zeros\.0\.et: record 2 at byte 2: node 0\.id = 0: duplicate id \(records 1 and 2\)$' -- \
  vm_limited 1048576 "$FLUX" import chakra "$DIR/z/zeros" -o "$DIR/z/w.json"
[ ! -e "$DIR/z/w.json" ] && pass || fail "zeros: wrote a workload"
# A record claiming 2 GiB (varint ff ff ff ff 07) after an empty metadata
# record: implausible, reported before anything is allocated for it.
printf '\000\377\377\377\377\007' | gzip -c > "$DIR/z/long.0.et"
expect_error long 2 'long\.0\.et: record 1 at byte 1: implausible: the record.s length is 2147483647 bytes' -- \
  "$FLUX" import chakra "$DIR/z/long" -o "$DIR/z/w.json"
# A record claiming 1000 bytes (e8 07) with 3 behind it, in gzip: truncated.
printf '\000\350\007abc' | gzip -c > "$DIR/z/short.0.et"
expect_error short 2 'short\.0\.et: record 1 at byte 1: truncated: the record.s length is 1000 bytes, only 3 are left' -- \
  "$FLUX" import chakra "$DIR/z/short" -o "$DIR/z/w.json"

# --- a rank file that is a directory ------------------------------------------------
mkdir -p "$DIR/d/a.0.et"
expect_error dir0 2 'x' -- "$FLUX" import chakra "$DIR/d/a" -o "$DIR/d/w.json"
[ "$(cat "$DIR/dir0.err")" = "flux: error: $DIR/d/a.0.et: is a directory, not a file" ] && pass ||
  { fail "dir0: stderr is not the one error line"; cat "$DIR/dir0.err" >&2; }
# Rank 1 a directory, with a group file beside the traces: still the one line
# (the note about the group file only comes when the import succeeds).
gen="generate llama3 --layers 2 --tp 2 --dp 2"
expect_ok gen -- "$FLUX" $gen --format chakra -o "$DIR/d/b"
mv "$DIR/d/b.1.et" "$DIR/d/b.1.moved" && mkdir "$DIR/d/b.1.et"
expect_error dir1 2 'x' -- "$FLUX" import chakra "$DIR/d/b" -o "$DIR/d/w.json"
[ "$(cat "$DIR/dir1.err")" = "flux: error: $DIR/d/b.1.et: is a directory, not a file" ] && pass ||
  { fail "dir1: stderr is not the one error line"; cat "$DIR/dir1.err" >&2; }
expect_error sim-dir 2 'b\.1\.et: is a directory, not a file$' -- \
  "$FLUX" simulate "$DIR/d/b" --scheduler ideal
[ "$(wc -l < "$DIR/sim-dir.err")" -eq 1 ] && pass || fail "sim-dir: more than one stderr line"
[ ! -e "$DIR/d/w.json" ] && pass || fail "dir: wrote a workload"

# --- the compact path: traces read directly, gzip workload JSON ---------------------------
mkdir -p "$DIR/c"
expect_ok c-gen -- "$FLUX" $gen --format chakra -o "$DIR/c/t"
expect_ok c-json -- "$FLUX" $gen -o "$DIR/c/w.json"
expect_ok c-gz -- "$FLUX" $gen -o "$DIR/c/w.json.gz"
gzip -dc "$DIR/c/w.json.gz" | cmp -s - "$DIR/c/w.json" && pass || fail "w.json.gz is not gzip of w.json"
expect_ok import-gz -- "$FLUX" import chakra "$DIR/c/t" -o "$DIR/c/back.json.gz"
gzip -dc "$DIR/c/back.json.gz" | cmp -s - "$DIR/c/w.json" && pass || fail "import -o .gz differs"
# info, schedule and simulate give the same answers from the file, its gzip and the traces.
for cmd in info simulate schedule; do
  for in in w.json w.json.gz t; do
    out=$DIR/c/$cmd-${in//./_}
    args=()
    [ "$cmd" != info ] && args=(--scheduler greedy -o "$out.o.json")
    "$FLUX" "$cmd" "$DIR/c/$in" "${args[@]}" >"$out.txt" 2>"$out.err" || fail "$cmd $in: exit $?"
    grep -v '^simulation \|^solve time ' "$out.txt" > "$out.cmp"  # wall times vary
    [ -e "$out.o.json" ] && grep -v solve_time_s "$out.o.json" >> "$out.cmp"
  done
  cmp -s "$DIR/c/$cmd-w_json.cmp" "$DIR/c/$cmd-w_json_gz.cmp" && pass || fail "$cmd: gzip differs"
  cmp -s "$DIR/c/$cmd-w_json.cmp" "$DIR/c/$cmd-t.cmp" && pass || fail "$cmd: traces differ"
  expect_grep "$cmd-notes" '^read 4 ranks, 84 nodes' "$DIR/c/$cmd-t.err"
done
expect_grep info-sends '^sends +80$' "$DIR/c/info-t.txt"
# The ideal network on a prefix keeps collectives whole (sim::simulate_lazy):
# the report and metrics of the workload file, the note saying so; --expand
# and a trace take the materialised way, with the same answers.
for run in "w.json" "t" "t --expand" "t --trace $DIR/c/ideal.trace.json"; do
  name=ideal-${run// /_}
  name=${name//[\/.]/_}
  # shellcheck disable=SC2086
  "$FLUX" simulate "$DIR/c/"$run --scheduler ideal -o "$DIR/c/$name.o.json" \
    >"$DIR/c/$name.txt" 2>"$DIR/c/$name.err" || fail "simulate $run: exit $?"
  { grep -v '^simulation ' "$DIR/c/$name.txt"; grep -v time_s "$DIR/c/$name.o.json"; } > "$DIR/c/$name.cmp"
done
for other in ideal-t ideal-t_--expand; do
  cmp -s "$DIR/c/ideal-w_json.cmp" "$DIR/c/$other.cmp" && pass || fail "$other differs from w.json"
done
expect_grep whole-note '^collectives kept whole: 20 instances of 2 shapes' "$DIR/c/ideal-t.err"
for other in ideal-t_--expand ideal-t_--trace_*; do
  grep -q 'kept whole' "$DIR/c/"$other.err && fail "$other: kept collectives whole" || pass
done
# Scheduler options `ideal` does not read are refused on either way alike.
for way in "" "--expand"; do
  # shellcheck disable=SC2086
  expect_error "ideal-moves$way" 2 '^flux: error: --moves = 10: applies to --scheduler flux, flux-milp only \(not ideal\)$' -- \
    "$FLUX" simulate "$DIR/c/t" --scheduler ideal --moves 10 $way
done
# The import options apply to a prefix.
expect_ok info-direct -- "$FLUX" info "$DIR/c/t" --collective direct --gpu h100
expect_error info-bad-alg 2 'error: --collective = rings' -- "$FLUX" info "$DIR/c/t" --collective rings
expect_error groups-empty 2 'error: --comm-groups: an empty path' -- "$FLUX" info "$DIR/c/t" --comm-groups ''
# Writing over one of the traces or the group file being read is refused up front.
cp "$DIR/c/t.1.et" "$DIR/c/t1.bak"
for cmd in schedule simulate; do
  expect_error "$cmd-over-trace" 2 't\.1\.et: -o: is also an input trace' -- \
    "$FLUX" "$cmd" "$DIR/c/t" --scheduler greedy -o "$DIR/c/t.1.et"
  expect_error "$cmd-over-groups" 2 't\.json: -o: is also the communicator groups' -- \
    "$FLUX" "$cmd" "$DIR/c/t" --scheduler greedy -o "$DIR/c/t.json"
done
expect_error import-over-trace 2 't\.1\.et: -o: is also an input trace' -- \
  "$FLUX" import chakra "$DIR/c/t" -o "$DIR/c/t.1.et"
cmp -s "$DIR/c/t.1.et" "$DIR/c/t1.bak" && pass || fail "a trace was overwritten"
# A corrupt gzip workload: one error line naming the file.
head -c 300 "$DIR/c/w.json.gz" > "$DIR/c/cut.json.gz"
expect_error cut-gz 2 'cut\.json\.gz: .*truncated gzip stream' -- "$FLUX" info "$DIR/c/cut.json.gz"
# Neither a file nor a prefix: the file is missing.
expect_error missing 2 'nothing\.json' -- "$FLUX" info "$DIR/c/nothing.json"

finish
