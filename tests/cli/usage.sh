#!/usr/bin/env bash
# Usage errors (issue 17, defect 3): every bad command line, whatever CLI11
# or the option tables make of it, is one line "flux: error: ...", exit 2,
# nothing else on stderr and no output written.
source "$(dirname "$0")/lib.sh" "$@"

"$FLUX" generate llama3 --layers 1 -o "$DIR/w.json" 2>/dev/null || fail "generate"

# expect_usage NAME PATTERN -- CMD...: exit 2, stderr exactly one line, matching.
expect_usage() {
  local name=$1 pattern=$2; shift 3
  expect_error "$name" 2 "^flux: error: .*$pattern" -- "$@"
  local lines
  lines=$(wc -l < "$DIR/$name.err")
  [ "$lines" -eq 1 ] && pass || { fail "$name: $lines lines on stderr"; cat "$DIR/$name.err" >&2; }
  [ ! -s "$DIR/$name.out" ] && pass || { fail "$name: wrote to stdout"; cat "$DIR/$name.out" >&2; }
}

S=("$FLUX" schedule "$DIR/w.json" -o "$DIR/s.json")
expect_usage sw-neg '--switches = -1: must be an integer between 1 and 1048576' -- "${S[@]}" --switches -1
expect_usage sw-exp '--switches = 1e9: must be an integer between 1 and 1048576' -- "${S[@]}" --switches 1e9
expect_usage sw-abc '--switches = abc: must be an integer' -- "${S[@]}" --switches abc
expect_usage sw-2p64 '--switches = 18446744073709551616: must be an integer' -- "${S[@]}" --switches 18446744073709551616
expect_usage sw-big '--switches = 1048577: must be an integer between 1 and 1048576' -- "${S[@]}" --switches 1048577
expect_usage sw-frac '--switches = 2.5: must be an integer' -- "${S[@]}" --switches 2.5
expect_usage sw-empty '--switches: must be an integer' -- "${S[@]}" --switches ''
expect_usage gap '--gap = 1: must be in \[0, 1\)' -- "${S[@]}" --gap 1
expect_usage gap-nan '--gap = nan: must be in' -- "${S[@]}" --gap nan
expect_usage link '--link-gbps = 0: must be in \(0, 1e9\]' -- "${S[@]}" --link-gbps 0
expect_usage threads '--threads = 0: must be an integer between 1 and 256' -- "${S[@]}" --threads 0
expect_usage tau-unit '--tau = 5: needs a unit' -- "${S[@]}" --tau 5
expect_usage tau-neg '--tau = -1us: must be between 0 and 9.2e6 s' -- "${S[@]}" --tau -1us
expect_usage tau-big '--tau = 1e7s: must be between 0 and 9.2e6 s' -- "${S[@]}" --tau 1e7s
expect_usage limit '--time-limit = 2e6s: must be between 0 and 1e6 s' -- "${S[@]}" --time-limit 2e6s
expect_usage seed '--seed = -3: must be an integer' -- "${S[@]}" --seed -3
expect_usage unknown-opt '--bogus: unknown option \(flux schedule --help\)' -- "${S[@]}" --bogus
expect_usage extra "'extra': unexpected argument" -- "${S[@]}" extra
expect_usage missing-value '--output' -- "$FLUX" schedule "$DIR/w.json" -o
expect_usage missing-arg 'workload is required' -- "$FLUX" schedule
expect_usage unknown-cmd "'frobnicate': unknown command \(known: generate, info" -- "$FLUX" frobnicate
expect_usage no-cmd 'a command is required' -- "$FLUX"
expect_usage no-sub 'a command is required \(llama3, moe, random\)' -- "$FLUX" generate
expect_usage tp-2p32 '--tp = 4294967296: must be an integer between 1 and 1048576' -- \
  "$FLUX" generate llama3 --tp 4294967296 -o "$DIR/x.json"
expect_usage layers '--layers = 0: must be an integer between 1 and 65536' -- \
  "$FLUX" generate llama3 --layers 0 -o "$DIR/x.json"
expect_usage gemm '--gemm-efficiency = 1.5: must be in \(0, 1\]' -- \
  "$FLUX" generate llama3 --layers 1 --gemm-efficiency 1.5 -o "$DIR/x.json"
expect_usage mtu '--mtu = 0: must be an integer between 1 and' -- \
  "$FLUX" simulate "$DIR/w.json" --scheduler ideal --mtu 0
expect_usage eval-tp '--tp = 0: must be an integer' -- "$FLUX" evaluate --tp 0 -o "$DIR/ev"
expect_usage eval-sw '--switches = 0: must be an integer' -- "$FLUX" evaluate --switches 0 -o "$DIR/ev"
expect_usage export-empty '--export-milp: an empty path' -- "${S[@]}" --scheduler flux-milp --export-milp ''
expect_usage info-tau '--tau: unknown option' -- "$FLUX" info "$DIR/w.json" --tau 1us
[ ! -e "$DIR/s.json" ] && [ ! -e "$DIR/x.json" ] && [ ! -e "$DIR/ev" ] && pass ||
  fail "an output was written despite a usage error"

# Help and version still print and exit 0; the help shows defaults and bounds.
"$FLUX" schedule --help > "$DIR/help.out" 2>&1 && pass || fail "--help exit $?"
expect_grep help-bounds '--switches.*\[default 2; between 1 and 1048576\]' "$DIR/help.out"
expect_grep help-tau '--tau TIME.*\[default 10 us; between 0 and 9.2e6 s\]' "$DIR/help.out"
"$FLUX" --version > "$DIR/version.out" 2>&1 && pass || fail "--version exit $?"
finish
