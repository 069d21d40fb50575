#!/usr/bin/env bash
# The files a command touches, by class (issue 28): nothing is written until
# everything that can refuse has run (the generators and the import check the
# workload's time range first); no output is an input, however it is spelled
# (the routing file of generate moe, against -o and the trace files); the
# lock files are Flux's own (a symlink, hard link, FIFO or foreign file under
# a lock's name is refused and left as it was); a NUL in a path is refused;
# a Chakra prefix names its trace alone; an error is one bounded line.
source "$(dirname "$0")/lib.sh" "$@"
REPO=$(cd "$(dirname "$0")/../.." && pwd)
DATA=$REPO/tests/data/sweep
cd "$DIR" || exit 1

# kept NAME FILE CONTENT: FILE still holds CONTENT.
kept() {
  if [ "$(cat "$2" 2>/dev/null)" = "$3" ]; then pass; else fail "$1: $2 changed"; fi
}
# no_temporaries NAME DIR: no temporary left in DIR.
no_temporaries() {
  if ls -A "$2" | grep -q '\.tmp-'; then fail "$1: a temporary is left in $2"; else pass; fi
}

# --- 1. Checked before written: the time range (N1) ---------------------------
echo precious >keep.json
expect_error random-range 2 "beyond the 9.2e6 s Flux can represent; nothing written: change --sends" -- \
  "$FLUX" generate random --compute 1000s --sends 20000 --depth 10000 -o keep.json
kept random-range keep.json precious
# The audit's repros: each generated workload is past the range only as a
# whole (every send one after another), so the generators' own checks pass.
eff="--gemm-efficiency 1e-6 --attention-efficiency 1e-6 --memory-efficiency 1e-6"
expect_error llama-range 2 "nothing written: change --layers.*--gemm-efficiency" -- \
  "$FLUX" generate llama3 --model 405b --tp 8 --dp 4 --layers 16 $eff -o keep.json
kept llama-range keep.json precious
expect_error moe-range 2 "tasks = 10752 sends: .* beyond the 9.2e6 s .*; nothing written" -- \
  "$FLUX" generate moe --layers 32 --dp 8 --ep 8 $eff -o keep.json
kept moe-range keep.json precious
# The same through Chakra: no trace file, no group file.
mkdir ov
expect_error chakra-range 2 "nothing written" -- \
  "$FLUX" generate moe --layers 32 --dp 8 --ep 8 $eff --format chakra -o ov/p
if [ -z "$(ls -A ov)" ]; then pass; else fail "chakra-range: files left in ov: $(ls -A ov)"; fi
# A refused import keeps the workload file.
expect_error import-missing 2 "nope\.0\.et: no such file" -- "$FLUX" import chakra nope -o keep.json
kept import-missing keep.json precious

# --- 2. No output is an input: the routing file (N2) --------------------------
cp "$REPO/docs/examples/routing.json" r.json
cp r.json r.orig
moe_r="generate moe --layers 2 --dp 4 --ep 4 --seq 16"
expect_error routing-same 2 "r.json: -o: is also the routing file \(--routing\)" -- \
  "$FLUX" $moe_r --routing file:r.json -o r.json
# Other spellings of the same file: ./, absolute, a symlink, a hard link, and
# the file named through a symlinked directory.
ln -s r.json r-link.json
ln r.json r-hard.json
mkdir sub && ln -s .. sub/up
for out in ./r.json "$DIR/r.json" r-link.json r-hard.json sub/up/r.json; do
  expect_error "routing-spelled-$(basename "$out")" 2 "is also the routing file" -- \
    "$FLUX" $moe_r --routing file:r.json -o "$out"
done
for via in ./r.json "$DIR/r.json" r-link.json; do
  expect_error "routing-via-$(basename "$via")" 2 "is also the routing file" -- \
    "$FLUX" $moe_r --routing "file:$via" -o r-hard.json
done
# The routing file as a Chakra trace file or as the group file.
cp r.json rt.0.et
expect_error routing-trace 2 "rt.0.et: -o: is also the routing file" -- \
  "$FLUX" $moe_r --routing file:rt.0.et --format chakra -o rt
cp r.json rt2.json
expect_error routing-groups 2 "rt2.json: -o: is also the routing file" -- \
  "$FLUX" $moe_r --routing file:rt2.json --format chakra -o rt2
cmp -s r.json r.orig && cmp -s rt.0.et r.orig && cmp -s rt2.json r.orig && pass ||
  fail "routing files changed"
# A routing file and a distinct output: written.
expect_ok routing-ok -- "$FLUX" $moe_r --routing file:r.json -o moe.json
cmp -s r.json r.orig && pass || fail "routing-ok: r.json changed"

# --- 3. Lock files are Flux's own (N4) ----------------------------------------
# A symlink, a hard link, a FIFO, a directory or another file under the lock's
# name: refused before any work, and the file it points to untouched.
echo precious >victim.txt
lock_cases() {  # NAME LOCKNAME CMD...
  local name=$1 lockname=$2; shift 2
  local d
  d=$DIR/lk-$name-link; mkdir -p "$d"; ln -s ../victim.txt "$d/$lockname"
  expect_error "$name-lock-symlink" 2 "$lockname: is a symbolic link: not a lock file Flux made" -- \
    "$@" -o "$d"
  d=$DIR/lk-$name-dangling; mkdir -p "$d"; ln -s ../created-by-lock "$d/$lockname"
  expect_error "$name-lock-dangling" 2 "is a symbolic link" -- "$@" -o "$d"
  [ -e "$DIR/created-by-lock" ] && fail "$name-lock-dangling: the link's target was created" || pass
  d=$DIR/lk-$name-hard; mkdir -p "$d"; ln victim.txt "$d/$lockname"
  expect_error "$name-lock-hard" 2 "has other hard links" -- "$@" -o "$d"
  d=$DIR/lk-$name-fifo; mkdir -p "$d"; mkfifo "$d/$lockname"
  expect_error "$name-lock-fifo" 2 "is not a regular file" -- timeout 20 "$@" -o "$d"
  d=$DIR/lk-$name-text; mkdir -p "$d"; echo "my notes" >"$d/$lockname"
  expect_error "$name-lock-text" 2 "holds something other than a pid" -- "$@" -o "$d"
  kept "$name-lock-text" "$d/$lockname" "my notes"
  kept "$name-lock" victim.txt precious
}
lock_cases sweep .flux-sweep-small.lock "$FLUX" sweep "$DATA/small.toml" --no-plot
lock_cases evaluate .flux-evaluate.lock "$FLUX" evaluate --layers 1 --tau 1us --no-plot
# A stale lock of an earlier run (a pid) is taken over.
mkdir stale && echo 999999999 >stale/.flux-sweep-one.lock
cat >one.toml <<'EOF'
name = "one"
[axes]
layers = [1]
tp = [2]
dp = [2]
tau = ["10us"]
scheduler = ["ideal"]
EOF
expect_ok stale-lock -- "$FLUX" sweep one.toml -o stale --no-plot
# Rewritten with this run's pid (pids stay below 2^22, the stale one is not).
lockpid=$(cat stale/.flux-sweep-one.lock)
if [[ "$lockpid" =~ ^[0-9]+$ ]] && [ "$lockpid" != 999999999 ]; then pass; else
  fail "stale-lock: holds '$lockpid', not the new run's pid"
fi

# --- 4. A NUL or a newline in a name; errors stay one bounded line (N9) ------
long=$(head -c 100000 /dev/zero | tr '\0' x)
expect_error long-value 2 "xxx\.\.\. \([0-9]+ bytes\)" -- "$FLUX" generate llama3 --model "$long" -o w.json
len=$(wc -c <"$DIR/long-value.err")
[ "$len" -lt 1000 ] && pass || fail "long-value: the error is $len bytes"
expect_error newline-value 2 "a\\\\nb" -- "$FLUX" generate llama3 --model $'a\nb' -o w.json
expect_error ctl-path 2 "x\\\\x01y" -- "$FLUX" info $'x\001y.json'
[ -e w.json ] && fail "w.json written" || pass

# --- 5. A Chakra prefix names its trace alone (N16) ---------------------------
"$FLUX" generate llama3 --layers 1 --tp 4 --dp 2 --format chakra -o P >/dev/null 2>&1 || fail "P 8 ranks"
[ -e P.7.et ] && pass || fail "P.7.et missing"
expect_ok prefix-fewer -- "$FLUX" generate llama3 --layers 1 --tp 2 --dp 2 --format chakra -o P
expect_grep prefix-fewer "removed .*P\.4\.et \.\. .*P\.7\.et, ranks of an earlier trace" "$DIR/prefix-fewer.out"
[ -e P.4.et ] || [ -e P.7.et ] && fail "prefix-fewer: stale ranks left" || pass
expect_ok prefix-import -- "$FLUX" import chakra P -o back.json
expect_grep prefix-import "read 4 ranks" "$DIR/prefix-import.out"
mkdir t
for p in t/ t/. t/..; do
  expect_error "prefix-dir-${#p}" 2 "-o = $p: names a directory, not a prefix" -- \
    "$FLUX" generate llama3 --layers 1 --tp 2 --dp 1 --format chakra -o "$p"
done
[ -z "$(ls -A t)" ] && pass || fail "prefix-dir: files in t: $(ls -A t)"

no_temporaries all "$DIR"
finish
