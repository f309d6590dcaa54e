#!/usr/bin/env bash
# Journal corruption fuzz of every command that reads a journal (JournalFuzzer; JournalFuzzTest runs a fixed sample
# of it in the build). Writes three small journals with `kvledger run` (live pr-bench, deterministic pr-bench, a
# deterministic random workload with scarce Mamba slots, retracts and aborts), then for each damages every byte of
# Chronicle's header and index region three ways, RANDOM random bytes of the documents one way each, and truncates
# at pages and frame boundaries, running check, replay, stats, inspect, timeline, dump and shrink on every copy.
# Prints each run that breaks the contract (exit 0 with the intact output or one warning line, or exit 2 with one
# line; no exception, no hang) and a tally.
#
# Damage to the start of metadata.cq4t makes Chronicle retry its table store as if locked for
# chronicle.table.store.timeoutMS (10 s by default; 1 s here) and a truncated one waits about 2 s, so the metadata
# part is the slow one. FUZZ_FILE=.cq4 (or .cq4t) fuzzes only the files whose names end so; FUZZ_OPTS passes
# more -D options: -Dfuzz.below=N (only offsets below N), -Dfuzz.leaks=true (report a damaged copy whose reads leave
# mappings of it behind, MAPPING-LEAK), -Dfuzz.slowMs=N (report runs longer than N ms, default 5000).
#
#   scripts/fuzz-journal.sh [RANDOM] [SEED]      (default 2000 and 1; about 30 min per journal on 2 cores)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
random="${1:-2000}"
seed="${2:-1}"
cd "$root"
nice mvn -B -o -q package -DskipTests -pl replay-tool -am
work="$(mktemp -d "${TMPDIR:-/tmp}/kvledger-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT
flags="$(sed -n 's:.*<jvm.module.flags>\(.*\)</jvm.module.flags>.*:\1:p' "$root/pom.xml")"
target="$root/replay-tool/target"
cp="$target/test-classes:$target/kvledger-replay-tool-0.1.0.jar:$target/lib/*"
kv() { java $flags -cp "$cp" io.kvledger.replay.cli.KvledgerMain "$@"; }
kv run --requests 8 --prompt-tokens 512 --journal "$work/live" --store-dir "$work/l3" >/dev/null
kv run --requests 8 --prompt-tokens 512 --deterministic --journal "$work/deterministic" >/dev/null
kv run --requests 8 --prompt-tokens 512 --workload random --mamba-slots 12 --retract-rate 0.2 --abort-rate 0.1 \
  --deterministic --journal "$work/scarce" >/dev/null
for journal in live deterministic scarce; do
  # shellcheck disable=SC2086
  nice java $flags -Dchronicle.table.store.timeoutMS=1000 ${FUZZ_FILE:+-Dfuzz.file=$FUZZ_FILE} ${FUZZ_OPTS:-} \
    -cp "$cp" io.kvledger.replay.cli.JournalFuzzer "$work/$journal" "$work/fuzz-$journal" "$random" "$seed"
done
