# Shared helpers for the CLI tests. Usage: source lib.sh "$@"
set -u
FLUX=$1
DIR=$2
rm -rf "$DIR" && mkdir -p "$DIR"
failures=0
passes=0

# A sanitizer build (make test-asan) reserves terabytes of address space, so
# it cannot run under ulimit -v: vm_limited then runs the command without it.
if ldd "$FLUX" 2>/dev/null | grep -q 'libasan\|libtsan'; then SANITIZED=1; else SANITIZED=0; fi

# vm_limited KIB CMD...: CMD under an address-space limit of KIB KiB.
vm_limited() {
  local kib=$1; shift
  if [ "$SANITIZED" = 1 ]; then "$@"; else (ulimit -v "$kib" && exec "$@"); fi
}

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { passes=$((passes + 1)); }

# expect_ok NAME -- CMD...: CMD exits 0; its stdout+stderr saved in $DIR/NAME.out
expect_ok() {
  local name=$1; shift; shift
  if "$@" >"$DIR/$name.out" 2>&1; then pass; else fail "$name: exit $? from: $*"; cat "$DIR/$name.out" >&2; fi
}

# expect_error NAME CODE PATTERN -- CMD...: CMD exits CODE and its stderr
# matches PATTERN (grep -E) on a single line starting with "flux: error:".
expect_error() {
  local name=$1 code=$2 pattern=$3; shift 4
  "$@" >"$DIR/$name.out" 2>"$DIR/$name.err"
  local rc=$?
  if [ "$rc" -ne "$code" ]; then fail "$name: exit $rc, expected $code"; cat "$DIR/$name.err" >&2; return; fi
  if ! grep -Eq -- "$pattern" "$DIR/$name.err"; then
    fail "$name: stderr does not match /$pattern/:"; cat "$DIR/$name.err" >&2; return
  fi
  if [ "$(grep -c '^flux: error:' "$DIR/$name.err")" -ne 1 ]; then
    fail "$name: expected exactly one error line"; cat "$DIR/$name.err" >&2; return
  fi
  pass
}

# expect_grep NAME PATTERN FILE
expect_grep() {
  if grep -Eq -- "$2" "$3"; then pass; else fail "$1: /$2/ not in $3"; cat "$3" >&2; fi
}

# same NAME REF NEW WALL... (the study tests): NEW has REF's header and
# rows, but for the columns named WALL (wall times), which may differ, and
# columns a later format version appends after REF's (compared up to REF's
# last column).
same() {
  local name=$1 ref=$2 new=$3; shift 3
  local cols n
  cols=$(head -1 "$ref" | tr ',' '\n' | grep -nxF "$(printf '%s\n' "$@")" | cut -d: -f1 | paste -sd,)
  n=$(head -1 "$ref" | tr ',' '\n' | wc -l)
  if ! cmp -s <(head -1 "$ref") <(head -1 "$new" | cut -d, -f1-"$n"); then
    fail "$name: other header"; return
  fi
  if diff <(cut -d, --complement -f"$cols" "$ref") \
      <(cut -d, -f1-"$n" "$new" | cut -d, --complement -f"$cols") >"$DIR/$name.diff"; then
    pass
  else
    fail "$name: rows differ from $ref"; head "$DIR/$name.diff" >&2
  fi
}
finish() {
  echo "$passes passed, $failures failed"
  [ "$failures" -eq 0 ]
}
