#!/usr/bin/env bash
# The include graph of src/sched has no cycle: no folder (or root file)
# includes one that includes it back, and nothing includes portfolio/, the
# top (src/sched/README.md, "Layout"). Usage: sched_include_cycles.sh
# [SCHED_DIR] (default: src/sched beside this script). Exits 1 on a cycle.
#
# Nodes: each folder of src/sched (heuristic, exact, milp, portfolio), and
# each file at its root by stem (restriction.hpp and restriction.cpp are
# `restriction`). Edges: a file's `#include "..."` resolved from its own
# folder to a file of src/sched ("../exact/x.hpp", "heuristic/x.hpp",
# "../restriction.hpp"); public headers ("flux/...") are not part of it.
# tsort finds the cycles.
set -u
SCHED=${1:-$(dirname "$0")/../src/sched}
SCHED=$(realpath "$SCHED")
[ -d "$SCHED" ] || { echo "no such folder: $SCHED" >&2; exit 2; }

node_of() {  # a path relative to src/sched -> its node
  case $1 in
    */*) echo "${1%%/*}" ;;
    *) echo "${1%%.*}" ;;
  esac
}

edges=$(
  cd "$SCHED" || exit 2
  find . -name '*.cpp' -o -name '*.hpp' | sed 's|^\./||' | sort | while read -r file; do
    from=$(node_of "$file")
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file" |
      while read -r inc; do
        target=$(realpath -m --relative-to=. "$(dirname "$file")/$inc")
        [ -f "$target" ] || continue  # a public or system header
        to=$(node_of "$target")
        [ "$from" != "$to" ] && echo "$from $to"
      done
  done | sort -u
) || exit 2

status=0
echo "src/sched include graph (folder -> folder it includes):"
echo "$edges" | sed 's/^/  /; s/ \([^ ]*\)$/ -> \1/'
if ! loops=$(echo "$edges" | tsort 2>&1 >/dev/null) || [ -n "$loops" ]; then
  echo "FAIL: include cycle in src/sched:" >&2
  echo "$loops" >&2
  status=1
fi
if into_top=$(echo "$edges" | grep ' portfolio$'); then
  echo "FAIL: portfolio/ is the top, nothing includes it:" >&2
  echo "$into_top" >&2
  status=1
fi
[ "$status" = 0 ] && echo "no cycle"
exit "$status"
