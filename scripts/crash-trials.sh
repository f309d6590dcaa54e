#!/usr/bin/env bash
# Black-box crash trials of `kvledger run` (bb-crash audit): start a live run (host device with a copy delay, file L3
# store), kill it with SIGKILL or SIGTERM after a random delay, then check that every tool reads the journal it left
# (check, replay, stats, timeline, stat: exit 0 or a documented code, at most one warning line, never a stack trace)
# and that every object in the L3 store directory is the key of a STORE decision the journal holds
# (StoreJournalAudit, from replay-tool's test classes: run `mvn -o test-compile -pl replay-tool -am` first).
#
#   scripts/crash-trials.sh [TRIALS] [SIGNAL] [OUT] [extra run flags...]   e.g. scripts/crash-trials.sh 20 KILL
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
trials="${1:-20}"; sig="${2:-KILL}"; out="${3:-/tmp/kvledger-crash-trials}"; shift 3 2>/dev/null || shift $#
flags="$(sed -n 's:.*<jvm.module.flags>\(.*\)</jvm.module.flags>.*:\1:p' "$root/pom.xml") -Dbackground.releaser=false"
cp="$root/replay-tool/target/kvledger-replay-tool-0.1.0.jar:$root/replay-tool/target/lib/*"
kv() { java $flags -cp "$cp" io.kvledger.replay.cli.KvledgerMain "$@"; }
audit() { java $flags -cp "$root/replay-tool/target/test-classes:$cp" io.kvledger.replay.cli.StoreJournalAudit "$@"; }
rm -rf "$out"; mkdir -p "$out"
bad=0
# a tool's answer is fine when its exit code is one it documents and stderr has no stack trace and at most one line
judge() {
  local name="$1" rc="$2" err="$3" allowed="$4"
  local lines; lines=$(grep -c . "$err")
  if ! [[ " $allowed " == *" $rc "* ]] || grep -q -E 'Exception|^\s+at |Error:' "$err" || [ "$lines" -gt 1 ]; then
    echo "  BAD $name rc=$rc stderr($lines lines): $(head -c 400 "$err" | tr '\n' '|')"; bad=$((bad + 1))
  fi
}
for t in $(seq 1 "$trials"); do
  j="$out/t$t/journal"; s="$out/t$t/l3"; mkdir -p "$out/t$t"
  delay_ms=$(( 400 + (RANDOM * 37 + t * 211) % 3600 ))
  java $flags -cp "$cp" io.kvledger.replay.cli.KvledgerMain run --journal "$j" --store-dir "$s" --requests 256 \
    --prompt-tokens 2048 --copy-delay-us 300 --seed "$t" "$@" >"$out/t$t/run.out" 2>"$out/t$t/run.err" &
  pid=$!
  sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
  kill -s "$sig" "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; runrc=$?
  kv check "$j" >"$out/t$t/check.out" 2>"$out/t$t/check.err"; crc=$?
  kv replay "$j" >"$out/t$t/replay.out" 2>"$out/t$t/replay.err"; rrc=$?
  kv stats "$j" >"$out/t$t/stats.out" 2>"$out/t$t/stats.err"; src=$?
  kv timeline "$j" --slot mamba:3 >"$out/t$t/timeline.out" 2>"$out/t$t/timeline.err"; trc=$?
  kv stat "$j" >"$out/t$t/stat.out" 2>"$out/t$t/stat.err"; strc=$?
  audit "$j" "$s" >"$out/t$t/audit.out" 2>"$out/t$t/audit.err"; arc=$?
  state=$(sed -n 's/^engine \([^,]*\).*/\1/p' "$out/t$t/stat.out" | head -1)
  echo "trial $t: SIG$sig after ${delay_ms} ms (run rc $runrc); check $crc, replay $rrc, stats $src, timeline $trc," \
    "stat $strc ($state); $(head -1 "$out/t$t/check.err")"
  echo "  audit: $(cat "$out/t$t/audit.out") $(head -3 "$out/t$t/audit.err" | tr '\n' '|')"
  if ! compgen -G "$j/*.cq4" >/dev/null || grep -q "^kvledger: empty journal" "$out/t$t/check.err"; then   # killed before the header was written: one line, exit 2
    ok=0; for r in $crc $rrc $src $trc $strc; do [ "$r" = 2 ] || ok=1; done
    [ "$ok" = 0 ] || { echo "  BAD: no journal, but not every tool exits 2"; bad=$((bad + 1)); }
    continue
  fi
  judge check "$crc" "$out/t$t/check.err" "0"
  judge replay "$rrc" "$out/t$t/replay.err" "0"
  judge stats "$src" "$out/t$t/stats.err" "0"
  judge timeline "$trc" "$out/t$t/timeline.err" "0"
  judge stat "$strc" "$out/t$t/stat.err" "0"
  [ "$arc" = 0 ] || { echo "  BAD audit rc=$arc"; bad=$((bad + 1)); }
  if [ "$sig" = KILL ]; then
    [[ "$state" == "stopped (process "*" ended without closing)" || ( "$state" == stopped && -s "$out/t$t/run.out" ) ]] \
      || { echo "  BAD stat state '$state' after SIGKILL"; bad=$((bad + 1)); }
  else
    [[ "$state" == stopped ]] || { echo "  BAD stat state '$state' after SIG$sig"; bad=$((bad + 1)); }
    grep -q "^checked.*clean\|clean" "$out/t$t/check.out" || true
    [ ! -s "$out/t$t/check.err" ] || { echo "  BAD check warns after SIG$sig"; bad=$((bad + 1)); }
  fi
done
echo "$trials trials, SIG$sig: $bad problems"
[ "$bad" = 0 ]
