#!/usr/bin/env bash
# Outputs (io/output.hpp): devices and FIFOs written directly, symlinks
# followed, permissions kept, "-" as standard output, empty paths, outputs
# that are inputs or each other, temporaries removed on SIGINT/SIGTERM, and
# flux evaluate's directory, lock and plots. Never a real /dev file: the
# devices are made here with mknod.
# Without lib.sh (and so without $DIR) this script would write to /: stop.
source "$(dirname "$0")/lib.sh" "$@" || exit 1
[ -n "${DIR:-}" ] && [ -x "${FLUX:-}" ] || { echo "usage: outputs.sh FLUX DIR" >&2; exit 1; }
# In the scratch directory, so that a wrong "-" or "" lands there.
FLUX=$(realpath "$FLUX") DIR=$(realpath "$DIR")
cd "$DIR" || exit 1

# no_temporaries NAME DIR: nothing named .*.tmp-* left in DIR
no_temporaries() {
  if [ -z "$(find "$2" -name '.*.tmp-*' -print -quit)" ]; then pass; else
    fail "$1: temporaries left: $(find "$2" -name '.*.tmp-*')"
  fi
}

w=$DIR/w.json
expect_ok gen -- "$FLUX" generate llama3 --layers 1 -o "$w"
cp "$w" "$DIR/w.orig"

# --- devices and FIFOs: written directly, never replaced ----------------------
if mknod "$DIR/null" c 1 3 2>/dev/null && mknod "$DIR/full" c 1 7 2>/dev/null; then
  expect_ok null -- "$FLUX" schedule "$w" -o "$DIR/null"
  [ -c "$DIR/null" ] && pass || fail "null device replaced by a $(stat -c %F "$DIR/null")"
  expect_error full 2 "$DIR/full: cannot write: No space left on device" -- \
    "$FLUX" schedule "$w" -o "$DIR/full"
  [ -c "$DIR/full" ] && pass || fail "full device replaced by a $(stat -c %F "$DIR/full")"
  expect_error full-trace 2 "full: cannot write: No space left on device" -- \
    "$FLUX" simulate "$w" --scheduler greedy --trace "$DIR/full"
  # A device is no collision: both outputs may go to the null device.
  expect_ok null-twice -- "$FLUX" simulate "$w" --scheduler greedy -o "$DIR/null" --trace "$DIR/null"
  [ -c "$DIR/null" ] && pass || fail "null device replaced"
  rm -f "$DIR/null" "$DIR/full"
else
  echo "mknod not permitted: device outputs not checked"
fi
mkfifo "$DIR/fifo"
timeout 20 cat "$DIR/fifo" > "$DIR/from-fifo" &  # bounded: a replaced FIFO has no writer
reader=$!
expect_ok fifo -- "$FLUX" schedule "$w" -o "$DIR/fifo"
wait "$reader"
[ -p "$DIR/fifo" ] && pass || fail "FIFO replaced by a $(stat -c %F "$DIR/fifo")"
expect_grep fifo-data '"format": "flux.schedule/v1"' "$DIR/from-fifo"
no_temporaries devices "$DIR"

# --- symlinks followed, permissions kept ----------------------------------------
echo old > "$DIR/target.json"
chmod 600 "$DIR/target.json"
ln -s target.json "$DIR/link.json"
expect_ok symlink -- "$FLUX" schedule "$w" -o "$DIR/link.json"
[ -L "$DIR/link.json" ] && pass || fail "symlink replaced by a file"
expect_grep symlink-target '"format": "flux.schedule/v1"' "$DIR/target.json"
[ "$(stat -c %a "$DIR/target.json")" = 600 ] && pass ||
  fail "mode 600 became $(stat -c %a "$DIR/target.json")"
ln -s new-target.json "$DIR/dangling.json"
expect_ok dangling -- "$FLUX" schedule "$w" -o "$DIR/dangling.json"
[ -L "$DIR/dangling.json" ] && [ -f "$DIR/new-target.json" ] && pass ||
  fail "a dangling symlink's target was not created through it"
ln -s model-target.lp "$DIR/model-link.lp"
expect_ok milp-link -- "$FLUX" schedule "$w" --scheduler flux-milp --tau 1ms --time-limit 10s \
  --export-milp "$DIR/model-link.lp"
[ -L "$DIR/model-link.lp" ] && [ -s "$DIR/model-target.lp" ] && pass ||
  fail "--export-milp did not write through its symlink"
echo keep > "$DIR/perm.json"
chmod 640 "$DIR/perm.json"
expect_ok perm -- "$FLUX" generate llama3 --layers 1 -o "$DIR/perm.json"
[ "$(stat -c %a "$DIR/perm.json")" = 640 ] && pass || fail "mode 640 became $(stat -c %a "$DIR/perm.json")"

# --- "-": standard output, the report on standard error -------------------------
"$FLUX" schedule "$w" -o - > "$DIR/stdout.json" 2> "$DIR/stdout.err" && pass || fail "schedule -o - failed"
[ "$(head -c 1 "$DIR/stdout.json")" = "{" ] && pass || fail "schedule -o -: stdout is not the JSON alone"
expect_grep stdout-report '^scheduler +flux' "$DIR/stdout.err"
"$FLUX" validate "$w" "$DIR/stdout.json" > /dev/null && pass || fail "schedule on stdout does not validate"
"$FLUX" generate llama3 --layers 1 -o - > "$DIR/gen-stdout.json" 2>/dev/null
cmp -s "$DIR/gen-stdout.json" "$w" && pass || fail "generate -o - differs from generate -o FILE"
"$FLUX" simulate "$w" --scheduler greedy -o - > "$DIR/m-stdout.json" 2>/dev/null
[ "$(head -c 1 "$DIR/m-stdout.json")" = "{" ] && pass || fail "simulate -o -: stdout is not the JSON alone"
[ ! -e "$DIR/-" ] && pass || fail "a file named - was written"

# --- refused: empty paths, "-" where it means nothing, directories ----------------
expect_error empty-o 2 "-o = '': an empty path" -- "$FLUX" schedule "$w" -o ''
expect_error empty-trace 2 "--trace = '': an empty path" -- "$FLUX" simulate "$w" --scheduler greedy --trace ''
expect_error empty-gen 2 "-o = '': an empty path" -- "$FLUX" generate llama3 --layers 1 -o ''
expect_error empty-chakra 2 "-o = '': an empty prefix" -- \
  "$FLUX" generate llama3 --layers 1 --format chakra -o ''
expect_error dash-chakra 2 "-o = -: standard output cannot take Chakra traces" -- \
  "$FLUX" generate llama3 --layers 1 --format chakra -o -
expect_error empty-eval 2 "-o = '': an empty path" -- "$FLUX" evaluate --layers 1 --tau 1us -o ''
expect_error dash-eval 2 "-o = -: standard output cannot take a directory" -- \
  "$FLUX" evaluate --layers 1 --tau 1us -o -
mkdir -p "$DIR/adir"
expect_error dir 2 "adir: is a directory" -- "$FLUX" schedule "$w" -o "$DIR/adir"
[ ! -e "$DIR/-.0.et" ] && pass || fail "Chakra traces written to a prefix -"

# --- collisions, checked before any work ------------------------------------------
expect_error same-input 2 "w.json: -o: is also the input workload" -- "$FLUX" schedule "$w" -o "$w"
ln -s w.json "$DIR/w-link.json"
expect_error same-input-link 2 "w-link.json: -o: is also the input workload" -- \
  "$FLUX" schedule "$w" -o "$DIR/w-link.json"
cmp -s "$w" "$DIR/w.orig" && pass || fail "the input workload was replaced"
expect_error metrics-trace 2 "m.json: --trace: is also the metrics output \(-o\)" -- \
  "$FLUX" simulate "$w" --scheduler greedy -o "$DIR/m.json" --trace "$DIR/m.json"
[ ! -e "$DIR/m.json" ] && pass || fail "m.json written despite the collision"
expect_error two-stdout 2 "--trace: is also the metrics output" -- \
  "$FLUX" simulate "$w" --scheduler greedy -o - --trace -
expect_ok sched -- "$FLUX" schedule "$w" -o "$DIR/s.json"
expect_error sim-schedule 2 "s.json: --trace: is also the input schedule" -- \
  "$FLUX" simulate "$w" --schedule "$DIR/s.json" --trace "$DIR/s.json"
expect_error unfold-same 2 "j.json: --schedule-output: is also the workload output" -- \
  "$FLUX" unfold "$w" --schedule "$DIR/s.json" -o "$DIR/j.json" --schedule-output "$DIR/./j.json"
expect_ok chakra -- "$FLUX" generate llama3 --layers 1 --format chakra -o "$DIR/tr"
cp "$DIR/tr.0.et" "$DIR/tr.0.orig"
expect_error import-same 2 "tr.0.et: -o: is also an input trace" -- \
  "$FLUX" import chakra "$DIR/tr" -o "$DIR/tr.0.et"
cmp -s "$DIR/tr.0.et" "$DIR/tr.0.orig" && pass || fail "an input trace was replaced"
no_temporaries collisions "$DIR"

# --- SIGINT / SIGTERM: no temporary left, the target untouched --------------------
# A workload big enough to be caught while it is written: 474 MB, written
# in about 2.5 s (14 s under ASan).
for sig in INT TERM; do
  echo keep > "$DIR/big.json"
  # Job control on: a script's background jobs otherwise ignore SIGINT.
  set -m
  "$FLUX" generate llama3 --model 70b --tp 8 --dp 32 -o "$DIR/big.json" > /dev/null 2>&1 &
  pid=$!
  set +m
  tmp=""
  for _ in $(seq 1200); do  # up to 120 s for the temporary to start growing
    tmp=$(find "$DIR" -name '.big.json.tmp-*' -size +1k -print -quit)
    [ -n "$tmp" ] && break
    sleep 0.1
  done
  [ -n "$tmp" ] && pass || fail "SIG$sig: no temporary seen being written"
  kill -s "$sig" "$pid"
  wait "$pid"
  rc=$?
  expected=$((128 + $(kill -l "$sig")))
  [ "$rc" -eq "$expected" ] && pass || fail "SIG$sig: exit $rc, expected $expected"
  no_temporaries "SIG$sig" "$DIR"
  [ "$(cat "$DIR/big.json")" = keep ] && pass || fail "SIG$sig: big.json touched"
done
rm -f "$DIR"/.big.json.tmp-*

# --- flux evaluate: the directory before any work, the lock, the plots ------------
echo file > "$DIR/afile"
expect_error eval-file 2 "afile: not a directory" -- "$FLUX" evaluate --layers 1 --tau 1us -o "$DIR/afile"
expect_error eval-nodir 2 "afile/sub: cannot create the directory" -- \
  "$FLUX" evaluate --layers 1 --tau 1us -o "$DIR/afile/sub"
# A read-only directory (a read-only tmpfs as root; chmod otherwise): refused
# before the first point is solved.
mkdir -p "$DIR/ro"
if { [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o ro,size=64k tmpfs "$DIR/ro" 2>/dev/null; } ||
   { [ "$(id -u)" -ne 0 ] && chmod 555 "$DIR/ro"; }; then
  expect_error eval-ro 2 "ro: cannot write: (Read-only file system|Permission denied)" -- \
    "$FLUX" evaluate --layers 1 --tau 1us -o "$DIR/ro"
  grep -q '^\[' "$DIR/eval-ro.err" && fail "eval-ro: points solved before the error" || pass
  if [ "$(id -u)" -eq 0 ]; then umount "$DIR/ro"; else chmod 755 "$DIR/ro"; fi
else
  echo "no read-only directory possible here: not checked"
fi

# A fake gnuplot on PATH: what the real one does on a full disk (exit 0, a
# truncated PNG), fails, or takes its time. It writes where the script says.
mkdir -p "$DIR/bin"
cat > "$DIR/bin/gnuplot" <<'SH'
#!/usr/bin/env bash
script=$(cat "${1:-/dev/stdin}")
[ "${FAKE_GNUPLOT:-}" = slow ] && sleep 5
printf '%s\n' "$script" | sed -n "s/^set output '\(.*\)'$/\1/p" | while read -r out; do
  printf '\x89PNG\r\n\x1a\n<svg' > "$out"
done
[ "${FAKE_GNUPLOT:-}" = fail ] && exit 1
exit 0
SH
chmod +x "$DIR/bin/gnuplot"
run_fake() { FAKE_GNUPLOT=$1 PATH="$DIR/bin:$PATH" "${@:2}"; }
ev=$DIR/ev
expect_error eval-truncated 2 "fig2.png: gnuplot wrote an incomplete plot" -- \
  run_fake truncate "$FLUX" evaluate --layers 1 --tau 1us --schedulers bvn,ideal -o "$ev"
[ ! -e "$ev/fig2.png" ] && pass || fail "a half plot was left"
no_temporaries eval-truncated "$ev"
expect_error eval-gnuplot-fails 1 "gnuplot failed \(exit status 1\)" -- \
  run_fake fail "$FLUX" evaluate --layers 1 --tau 1us --schedulers bvn,ideal -o "$ev"
[ ! -e "$ev/fig2.png" ] && pass || fail "a plot was left by a failed gnuplot"
no_temporaries eval-gnuplot-fails "$ev"

# Two runs on one directory: the second is refused, naming the first (which
# holds the lock while its gnuplot takes 5 s).
ev=$DIR/ev-lock
env FAKE_GNUPLOT=slow PATH="$DIR/bin:$PATH" \
  "$FLUX" evaluate --layers 1 --tau 1us --schedulers bvn,ideal -o "$ev" > /dev/null 2>&1 &
first=$!
for _ in $(seq 100); do
  [ "$(cat "$ev/.flux-evaluate.lock" 2>/dev/null)" = "$first" ] && break
  sleep 0.1
done
expect_error eval-lock 2 "ev-lock: another flux evaluate is writing here \(pid $first\)" -- \
  "$FLUX" evaluate --layers 1 --tau 1us --schedulers bvn,ideal -o "$ev" --no-plot
wait "$first"
no_temporaries eval-lock "$ev"

# A real full disk, where a small tmpfs can be mounted (root): the CSV fits,
# the plots do not.
if command -v gnuplot >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] && mkdir -p "$DIR/small" &&
   mount -t tmpfs -o size=24k tmpfs "$DIR/small" 2>/dev/null; then
  "$FLUX" evaluate --layers 1 --tau 1us --schedulers bvn,ideal -o "$DIR/small" \
    > "$DIR/eval-full.out" 2> "$DIR/eval-full.err"
  rc=$?
  [ "$rc" -ne 0 ] && pass || fail "eval on a full disk: exit 0"
  grep -q '^plotted' "$DIR/eval-full.out" && fail "eval on a full disk: 'plotted'" || pass
  [ "$(grep -c '^flux: error:' "$DIR/eval-full.err")" -eq 1 ] && pass || fail "eval-full: not one error line"
  [ ! -e "$DIR/small/fig2.png" ] && pass || fail "a half plot on a full disk"
  no_temporaries eval-full "$DIR/small"
  umount "$DIR/small"
else
  echo "no small tmpfs (or no gnuplot): the full disk not checked"
fi
finish
