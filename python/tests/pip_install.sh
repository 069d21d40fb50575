#!/usr/bin/env bash
# pip install of the package into a virtual environment, and the one-line
# ImportErrors of an interpreter the module cannot serve. The package's
# files (pyproject.toml, setup.py, python/flux) are copied to a scratch
# source tree; FLUX_BUILD_DIR hands setup.py the module this build made, so
# the test builds nothing (a fresh `pip install .`, which runs CMake, is
# measured in python/README.md).
# Usage: pip_install.sh SOURCE_DIR BUILD_DIR SCRATCH_DIR
set -u
SRC=$1
BUILD=$2
T=$3
PY=/usr/bin/python3
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
if ! "$PY" -c 'import venv, ensurepip' 2>/dev/null; then
  echo "SKIP: $PY has no venv/ensurepip (python3-venv)"
  exit 77
fi
rm -rf "$T" && mkdir -p "$T/src/python"
cp "$SRC/pyproject.toml" "$SRC/setup.py" "$SRC/setup.cfg" "$T/src/"
cp -r "$SRC/python/flux" "$SRC/python/README.md" "$T/src/python/"
export PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1

# 1. Into a venv that sees the system's packages (numpy): installed, imported
# from the venv, and it schedules.
"$PY" -m venv --system-site-packages "$T/v" || { fail "venv"; exit 1; }
if ! FLUX_BUILD_DIR="$BUILD" "$T/v/bin/pip" install --no-index --no-build-isolation "$T/src" \
  >"$T/pip.out" 2>&1; then
  fail "pip install"; tail -20 "$T/pip.out" >&2
fi
(cd "$T" && "$T/v/bin/python" - "$T/v" <<'PYCODE') || fail "import from the venv"
import os, sys
import flux
assert flux.__file__.startswith(sys.argv[1]), flux.__file__
w = flux.generate.random(ranks=4, sends=8, depth=3, seed=3)
s = flux.schedule(w, scheduler="greedy")
assert s.makespan_ps > 0 and flux.validate(w, s).ok
PYCODE
# setup.py refuses a build directory made for another interpreter.
mkdir -p "$T/other/python/flux"
printf 'PYTHON = "/opt/other/python3"\n' >"$T/other/python/flux/_build.py"
FLUX_BUILD_DIR="$T/other" "$T/v/bin/pip" install --no-index --no-build-isolation "$T/src" \
  >"$T/other.out" 2>&1 && fail "a build for another interpreter was installed"
grep -q 'FLUX_BUILD_DIR=.*builds for /opt/other/python3, not ' "$T/other.out" ||
  fail "no reason given for the other interpreter: $(tail -3 "$T/other.out")"

# import_error PYTHON PKGDIR: the ImportError's text (one line) on stdout.
import_error() {
  (cd "$T" && PYTHONPATH=$2 "$1" -c '
try:
    import flux
except ImportError as e:
    print(str(e))
else:
    print("imported")')
}
# 2. An interpreter without numpy (a venv without the system's packages):
# one line naming it and what to do.
"$PY" -m venv "$T/bare" || fail "bare venv"
msg=$(import_error "$T/bare/bin/python" "$BUILD/python")
[ "$(printf '%s\n' "$msg" | wc -l)" = 1 ] || fail "not one line: $msg"
printf '%s' "$msg" | grep -qE "^flux needs numpy, which $T/bare/bin/python \(Python 3\.[0-9]+\) does not have: install it for this interpreter" ||
  fail "numpy missing: $msg"
# 3. A module built for another interpreter: one line naming both, and how
# to build for this one.
cp -r "$BUILD/python/flux" "$T/alien"
mv "$T/alien"/_flux.*.so "$T/alien/_flux.cpython-39-x86_64-linux-gnu.so"
mkdir -p "$T/alienpkg" && mv "$T/alien" "$T/alienpkg/flux"
printf 'PYTHON = "/opt/py39/bin/python3"\nPYTHON_VERSION = "3.9"\n' >"$T/alienpkg/flux/_build.py"
msg=$(import_error "$T/v/bin/python" "$T/alienpkg")
[ "$(printf '%s\n' "$msg" | wc -l)" = 1 ] || fail "not one line: $msg"
printf '%s' "$msg" | grep -qE "^flux cannot be imported: its extension module was built for /opt/py39/bin/python3 \(Python 3\.9\), not for $T/v/bin/python \(Python 3\.[0-9]+\); build flux for this interpreter: .* -m pip install --no-build-isolation" ||
  fail "other interpreter: $msg"

[ "$failures" = 0 ] && echo "pip_install: all passed" && exit 0
exit 1
