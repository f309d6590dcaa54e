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
  first=$(echo "$found" | grep "^seed " | grep -v "| clean$" | head -1 | awk '{print $2}')
  summary=$(echo "$found" | tail -1 | sed 's/.*found //')
  shrink=""
  if [ -n "$first" ]; then
    shrink=$("$K" explore --first-seed "$first" --seeds 1 --fault "$f" --out "$OUT/$f-first" 2>/dev/null |
      grep -m1 "shrunk:" | sed 's/ (.*//; s/.*shrunk: //' || true)
  fi
  echo "| \`$f\` | $summary | ${first:-none} | ${shrink:-} |"
done
