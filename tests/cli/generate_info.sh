#!/usr/bin/env bash
# Generating the paper's workload and summarising it.
source "$(dirname "$0")/lib.sh" "$@"

w=$DIR/w.json
expect_ok generate -- "$FLUX" generate llama3 --model 8b --layers 8 --tp 4 --dp 2 -o "$w"
expect_grep generate-says "wrote .*1664 sends" "$DIR/generate.out"
expect_grep format '"format": *"flux.workload/v1"' "$w"
[ -z "$(ls "$DIR" | grep -v -e '^w.json$' -e '\.out$')" ] && pass || fail "stray files in $DIR"

expect_ok info -- "$FLUX" info "$w"
expect_grep info-sends '^sends +1664$' "$DIR/info.out"
expect_grep info-acc '^accelerators +8$' "$DIR/info.out"
expect_grep info-matrix 'traffic matrix \(MiB' "$DIR/info.out"
expect_grep info-share 'compute share' "$DIR/info.out"
# TP traffic 0 -> 1: 8 layers * 4 all-reduces * 6 ring steps * 16 MiB = 3072 MiB.
expect_grep info-tp-pair '^ +0 +\. +3072\.0' "$DIR/info.out"

# Same input, same output, byte for byte.
expect_ok generate2 -- "$FLUX" generate llama3 --model 8b --layers 8 --tp 4 --dp 2 -o "$DIR/w2.json"
cmp -s "$w" "$DIR/w2.json" && pass || fail "generation is not deterministic"

# Other collectives and presets run.
expect_ok hd -- "$FLUX" generate llama3 --model 70b --layers 2 --tp 8 --dp 4 --collective halving-doubling --gpu h100 -o "$DIR/hd.json"
expect_ok info-large -- "$FLUX" info "$DIR/hd.json" --top 3
expect_grep info-top 'the 3 largest' "$DIR/info-large.out"
finish
