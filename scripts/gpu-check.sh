#!/bin/bash
# GPU check and benchmarks in one call on the device machine. Build the bundle on the build machine first
# (scripts/gpu-bundle.sh does these steps into a folder, by default .device/ of the checkout the device tool sends):
#   mvn -B -q package -pl replay-tool -am -DskipTests
#   mkdir -p .device/lib && cp replay-tool/target/kvledger-replay-tool-0.1.0.jar replay-tool/target/lib/*.jar .device/lib/
#   jlink --add-modules java.base,java.logging,jdk.unsupported,java.management,jdk.management,java.naming,jdk.jfr \
#         --strip-debug --no-header-files --no-man-pages --compress=2 --output .device/jre
#   cp scripts/gpu-check.sh .device/gpu.sh
# then run `bash .device/gpu.sh [quick|full|explore]` on the GPU machine; results go to $OUT (at most 8 files come
# back).
#   quick: self-check, the data-path benchmark with 1 repeat, a short pr-bench run on cuda (and one with the resident
#          copy kernel), the retract race (also with the resident kernel).
#   full:  self-check; `bench --device cuda --data-path`; pr-bench on cuda (64 KiB pages, 1 MiB states) with a JFR
#          recording and the backend's counters, its check and replay; the same run with --io-backend direct and on
#          host memory; the retract race on cuda with and without FREE_ON_RETRACT_WITH_QUEUED_LOAD.
#          Then the CPU side on this machine's cores: `bench --trace all`, and run/check/replay of a 1.7M-document
#          deterministic journal (cpu.txt).
#   cpu:   only that CPU part.
#   explore: full, and the data-path benchmark also measures the copy kernel's settings one at a time
#          (-Dkvledger.bench.explore=true).
#   datapath: only the self-check and the data-path benchmark (3 repeats): the shortest call that measures a copy
#          path change.
#   offline: no GPU; check and replay of the 5.2M-document journal (24,000 requests) on one thread and on two
#          (the reading thread and a DocumentPipeline worker), three times each, interleaved (offline.txt).
MODE=${1:-full}
cd "$(dirname "$0")"
FLAGS="--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED --add-exports=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED -Dchronicle.analytics.disable=true -Dchronicle.announcer.disable=true -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -Dbackground.releaser=false -Djava.io.tmpdir=/tmp -Dkvledger.cuda.stats=true"
J="./jre/bin/java $FLAGS"
CP="lib/*"
OUT=${OUT:-/tmp/out}; mkdir -p $OUT; rm -rf /tmp/kv; mkdir -p /tmp/kv
K() { $J -cp "$CP" io.kvledger.replay.cli.KvledgerMain "$@"; }
KX() { $J -Dkvledger.bench.explore=$([ "$MODE" = explore ] && echo true || echo false) -cp "$CP" \
  io.kvledger.replay.cli.KvledgerMain "$@"; }
step() { echo; echo "\$ $*"; }

if [ "$MODE" = offline ]; then
  BIGJ="--workload pr-bench --requests 24000 --prompt-tokens 1024 --page-size 16 --kv-pages 2048"
  { echo "cpus $(nproc)"; uptime
    step kvledger run --deterministic $BIGJ
    ( time K run --deterministic --journal /tmp/kv/big $BIGJ ) 2>&1 | tail -8; echo "exit=$?"
    for r in 1 2 3; do
      for t in 1 2; do
        step kvledger check /tmp/kv/big "(-Dkvledger.check.threads=$t, -Xmx256m)"
        ( time $J -Xmx256m -Dkvledger.check.threads=$t -cp "$CP" io.kvledger.replay.cli.KvledgerMain check /tmp/kv/big ) 2>&1
        step kvledger replay /tmp/kv/big "(-Dkvledger.replay.threads=$t)"
        ( time $J -Dkvledger.replay.threads=$t -cp "$CP" io.kvledger.replay.cli.KvledgerMain replay /tmp/kv/big ) 2>&1
      done
    done
    rm -rf /tmp/kv/big
  } > $OUT/offline.txt 2>&1
  ls -la $OUT; exit 0
fi

if [ "$MODE" != cpu ]; then
{
  nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv
  echo "cpus $(nproc)"; free -g | head -2
  echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>&1)"
  echo "iommu groups: $(ls /sys/kernel/iommu_groups 2>/dev/null | wc -l); cmdline: $(cat /proc/cmdline 2>&1)"
  step CudaSelfCheck
  $J -cp "$CP" io.kvledger.engine.device.CudaSelfCheck; echo "exit=$?"
} > $OUT/selfcheck.txt 2>&1

case "$MODE" in quick) REPEATS=1 ;; datapath) REPEATS=3 ;; *) REPEATS=7 ;; esac
{ step kvledger bench --device cuda --data-path --repeats $REPEATS
  ( time KX bench --device cuda --data-path --repeats $REPEATS ) 2>&1; echo "exit=$?"
  step kvledger bench --data-path "(no --device cuda)"; K bench --data-path; echo "exit=$?"
} > $OUT/datapath.txt 2>&1
if [ "$MODE" = datapath ]; then ls -la $OUT; exit 0; fi

if [ "$MODE" = quick ]; then
  BIG="--kv-page-bytes 65536 --mamba-state-bytes 1048576 --requests 32"
else
  BIG="--kv-page-bytes 65536 --mamba-state-bytes 1048576"
fi
{ step kvledger run --device cuda $BIG "(JFR recording on)"
  ( time $J -XX:StartFlightRecording=filename=$OUT/cuda-big.jfr,settings=default -cp "$CP" \
      io.kvledger.replay.cli.KvledgerMain run --journal /tmp/kv/cuda-big --store-dir /tmp/kv/l3-cuda-big --device cuda $BIG ) 2>&1
  echo "exit=$?"
  step kvledger check /tmp/kv/cuda-big; K check /tmp/kv/cuda-big; echo "exit=$?"
  step kvledger replay /tmp/kv/cuda-big; K replay /tmp/kv/cuda-big; echo "exit=$?"
} > $OUT/run-cuda-big.txt 2>&1
[ "$MODE" = quick ] && rm -f $OUT/cuda-big.jfr

if [ "$MODE" != quick ]; then
  { step kvledger run --device cuda --io-backend direct $BIG
    ( time K run --journal /tmp/kv/cuda-direct --store-dir /tmp/kv/l3-cuda-direct --device cuda --io-backend direct $BIG ) 2>&1; echo "exit=$?"
    step kvledger run --device host $BIG
    ( time K run --journal /tmp/kv/host-big --store-dir /tmp/kv/l3-host-big --device host $BIG ) 2>&1; echo "exit=$?"
  } > $OUT/run-compare.txt 2>&1
fi

# The resident copy kernel (--io-backend resident, chosen, not the default) through the whole runtime: a pr-bench run
# with its check and replay, and the retract race with and without the fault.
{ step kvledger run --device cuda --io-backend resident $BIG
  ( time K run --journal /tmp/kv/cuda-resident --store-dir /tmp/kv/l3-cuda-resident --device cuda --io-backend resident $BIG ) 2>&1; echo "exit=$?"
  step kvledger check /tmp/kv/cuda-resident; K check /tmp/kv/cuda-resident; echo "exit=$?"
  step kvledger replay /tmp/kv/cuda-resident; K replay /tmp/kv/cuda-resident; echo "exit=$?"
} > $OUT/run-resident.txt 2>&1

RACE="--requests 48 --prompt-tokens 512 --extend-tokens 64 --page-size 16 --kv-pages 1024 --kv-page-bytes 1024 --mamba-state-bytes 4096 --retract-rate 0.25 --copy-delay-us 1000"
{ step kvledger run --device cuda $RACE --fault FREE_ON_RETRACT_WITH_QUEUED_LOAD
  K run --journal /tmp/kv/race-bug --store-dir /tmp/kv/l3-race-bug --device cuda $RACE --fault FREE_ON_RETRACT_WITH_QUEUED_LOAD; echo "exit=$?"
  step kvledger check /tmp/kv/race-bug; K check /tmp/kv/race-bug | head -12; echo "exit=${PIPESTATUS[0]}"
  step kvledger run --device cuda $RACE "(no fault)"
  K run --journal /tmp/kv/race-clean --store-dir /tmp/kv/l3-race-clean --device cuda $RACE; echo "exit=$?"
  step kvledger check /tmp/kv/race-clean; K check /tmp/kv/race-clean | head -5; echo "exit=${PIPESTATUS[0]}"
  step kvledger run --device cuda --io-backend resident $RACE --fault FREE_ON_RETRACT_WITH_QUEUED_LOAD
  K run --journal /tmp/kv/race-bug-resident --store-dir /tmp/kv/l3-race-bug-resident --device cuda --io-backend resident $RACE --fault FREE_ON_RETRACT_WITH_QUEUED_LOAD; echo "exit=$?"
  step kvledger check /tmp/kv/race-bug-resident; K check /tmp/kv/race-bug-resident | head -3; echo "exit=${PIPESTATUS[0]}"
  step kvledger run --device cuda --io-backend resident $RACE "(no fault)"
  K run --journal /tmp/kv/race-clean-resident --store-dir /tmp/kv/l3-race-clean-resident --device cuda --io-backend resident $RACE; echo "exit=$?"
  step kvledger check /tmp/kv/race-clean-resident; K check /tmp/kv/race-clean-resident | head -3; echo "exit=${PIPESTATUS[0]}"
} > $OUT/run-retract-race.txt 2>&1
fi
if [ "$MODE" != quick ]; then
  # The CPU side on this machine's cores: the peer traces with the journal off / on (the journaller thread has a
  # core of its own here), and the offline commands on a long deterministic journal.
  BIGJ="--workload pr-bench --requests 8000 --prompt-tokens 1024 --page-size 16 --kv-pages 2048"
  { step kvledger bench --trace all --iterations 24; ( time K bench --trace all --iterations 24 ) 2>&1; echo "exit=$?"
    step kvledger run --deterministic $BIGJ
    ( time K run --deterministic --journal /tmp/kv/big $BIGJ ) 2>&1 | tail -8; echo "exit=$?"
    step kvledger check /tmp/kv/big; ( time $J -Xmx256m -cp "$CP" io.kvledger.replay.cli.KvledgerMain check /tmp/kv/big ) 2>&1
    step kvledger replay /tmp/kv/big; ( time K replay /tmp/kv/big ) 2>&1
    rm -rf /tmp/kv/big
  } > $OUT/cpu.txt 2>&1
fi
ls -la $OUT
