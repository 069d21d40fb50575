#!/usr/bin/env bash
# Installs the Debian packages Flux needs to build, test and run, and nothing
# else. Idempotent: packages already present are left alone, so a warm machine
# pays one dpkg query. The Python bindings (python/) need pybind11, the
# interpreter's headers, numpy and pytest; pandas and matplotlib run the
# tested example docs/examples/fig2_panel.py; venv, setuptools and wheel
# serve `pip install --no-build-isolation .` (python/README.md), which the
# tests run. Runs as root, or through sudo when not root.
# --fuzz also installs clang and its libFuzzer runtime, for the opt-in fuzz
# targets (cmake -DFLUX_FUZZ=ON, docs/fuzzing.md).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev
  coinor-libcbc-dev
  libprotobuf-dev protobuf-compiler zlib1g-dev
  gnuplot-nox
  libtomlplusplus-dev
  libopenmpi-dev openmpi-bin
  pybind11-dev python3-dev python3-numpy python3-pytest
  python3-pandas python3-matplotlib
  python3-venv python3-setuptools python3-wheel
)
if [ "${1:-}" = "--fuzz" ]; then
  packages+=(clang libclang-rt-dev)
elif [ $# -gt 0 ]; then
  echo "usage: install-deps.sh [--fuzz]" >&2
  exit 2
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "install-deps: missing packages (${missing[*]}) and not root, no sudo" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q >&2
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
