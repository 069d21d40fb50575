#!/usr/bin/env bash
# The library (src/, include/) and the Python module (python/src) stand
# without the command line: none of their files includes a header of apps/
# (by a path into apps/, or by a bare name that only apps/flux's include
# directory resolves: cli_common.hpp, sweep_driver.hpp, ...), none includes
# CLI11, and neither python/CMakeLists.txt nor src/ links flux_cli or CLI11.
# What the CLI and Python share lives in src/frontend (flux::frontend).
# Usage: layering.sh SOURCE_DIR
set -u
root=${1:?usage: layering.sh SOURCE_DIR}
cd "$root" || exit 1

# Names of the command line's headers: those there now, and those that were
# (moved to src/frontend, a bare include of one would find nothing else).
names=" cli_common.hpp cli_options.hpp workload_input.hpp outputs.hpp sweep_driver.hpp gnuplot.hpp"
names+=" commands.hpp run.hpp "
for h in apps/*/*.hpp; do names+="${h##*/} "; done

fail=0
include_re='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^">]*)[">]'
while IFS= read -r hit; do
  file=${hit%%:*}
  rest=${hit#*:}
  line=${rest%%:*}
  [[ ${rest#*:} =~ $include_re ]] || continue
  path=${BASH_REMATCH[1]}
  why=""
  if [[ $path == apps/* || $path == */apps/* ]]; then
    why="a path into apps/"
  elif [[ $path == CLI/* ]]; then
    why="CLI11, the command line's parser"
  elif [[ $path != */* && $names == *" $path "* && ! -e ${file%/*}/$path ]]; then
    why="a header of apps/flux"
  fi
  if [[ -n $why ]]; then
    echo "$file:$line: #include of $path: $why (the library and Python use flux::frontend)"
    fail=1
  fi
done < <(grep -rnE --include='*.cpp' --include='*.hpp' --include='*.h' \
           '^[[:space:]]*#[[:space:]]*include' src include python/src | sort -t: -k1,1 -k2,2n)

# The build: the Python module and the library link no command line.
while IFS= read -r cmake; do
  if grep -nE '^[^#]*\b(flux_cli|CLI11)\b' "$cmake"; then
    echo "$cmake: links the command line (flux_cli or CLI11): link flux::frontend"
    fail=1
  fi
done < <(
  echo python/CMakeLists.txt
  find src -name CMakeLists.txt | sort
)

if [[ $fail -ne 0 ]]; then
  echo "layering: FAILED"
  exit 1
fi
echo "layering: ok"
