#!/bin/bash
# The README's fault-matrix columns, for every fault switch: the first seed (from 1) that finds it, what the first 40
# seeds find, and how far the shrinker cuts the first seed's journal. Run from the repository root:
#   bash scripts/fault-matrix.sh [OUT_DIR]      (default: a temporary directory, removed afterwards)
set -euo pipefail
K="$(cd "$(dirname "$0")/.." && pwd)/kvledger"
OUT=${1:-$(mktemp -d)}
[ -n "${1:-}" ] || trap 'rm -rf "$OUT"' EXIT
mkdir -p "$OUT"
switches=$("$K" faults | awk '$1 ~ /^[A-Z_]+$/ {print $1}')
echo "| switch | caught as (of the first 40 seeds) | first seed (from 1) | shrunk (inputs) |"
echo "|---|---|---|---|"
for f in $switches; do
  found=$("$K" explore --seeds 40 --keep-going --record 0 --fault "$f" --out "$OUT/$f" 2>/dev/null || true)
  # awk reads all of its input (no early exit, no head): under pipefail a writer cut off by SIGPIPE, or a grep that
  # matches nothing, would end the script at that switch
  first=$(printf '%s\n' "$found" | awk '/^seed / && !/\| clean$/ && first == "" {first = $2} END {print first}')
  summary=$(printf '%s\n' "$found" | awk 'NF {last = $0} END {sub(/.*found /, "", last); print last}')
  shrink=""
  if [ -n "$first" ]; then
    shrink=$("$K" explore --first-seed "$first" --seeds 1 --fault "$f" --out "$OUT/$f-first" 2>/dev/null |
      awk '/shrunk:/ && s == "" {s = $0; sub(/ \(.*/, "", s); sub(/.*shrunk: /, "", s)} END {print s}' || true)
  fi
  echo "| \`$f\` | $summary | ${first:-none} | ${shrink:-} |"
done
