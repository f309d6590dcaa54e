#!/bin/bash
# GPU check and benchmark in one call. Prepare the bundle on the build machine first:
#   mvn -B -q package -pl replay-tool -am -DskipTests
#   mkdir -p .device/lib && cp replay-tool/target/kvledger-replay-tool-0.1.0.jar replay-tool/target/lib/*.jar .device/lib/
#   jlink --add-modules java.base,java.logging,jdk.unsupported,java.management,jdk.management,java.naming \
#         --strip-debug --no-header-files --no-man-pages --compress=2 --output .device/jre
#   cp scripts/gpu-check.sh .device/gpu.sh
# then run `bash .device/gpu.sh` on the GPU machine (results under $OUT).
# One call on the GPU machine: self-check of the JCuda backend, then pr-bench on cuda and on host, checked.
cd "$(dirname "$0")"
J="./jre/bin/java --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED --add-exports=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED -Dchronicle.analytics.disable=true -Dchronicle.announcer.disable=true -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -Djava.io.tmpdir=/tmp"
CP="lib/*"
OUT=${OUT:-/tmp/out}; mkdir -p $OUT /tmp/kv
nvidia-smi -L > $OUT/gpu.txt 2>&1; nproc >> $OUT/gpu.txt; free -g >> $OUT/gpu.txt
$J -cp "$CP" io.kvledger.engine.device.CudaSelfCheck > $OUT/selfcheck.txt 2>&1; echo "exit=$?" >> $OUT/selfcheck.txt
run() { name=$1; shift; ( time $J -cp "$CP" io.kvledger.replay.cli.KvledgerMain run --journal /tmp/kv/$name --store-dir /tmp/kv/l3-$name "$@" ) > $OUT/run-$name.txt 2>&1; echo "exit=$?" >> $OUT/run-$name.txt; }


run cuda-big --device cuda --kv-page-bytes 65536 --mamba-state-bytes 1048576
run host-big --device host --kv-page-bytes 65536 --mamba-state-bytes 1048576
$J -cp "$CP" io.kvledger.replay.cli.KvledgerMain check /tmp/kv/cuda-big > $OUT/check-cuda-big.txt 2>&1; echo "exit=$?" >> $OUT/check-cuda-big.txt
$J -cp "$CP" io.kvledger.replay.cli.KvledgerMain replay /tmp/kv/cuda-big > $OUT/replay-cuda-big.txt 2>&1; echo "exit=$?" >> $OUT/replay-cuda-big.txt
run cuda-big-m64 --device cuda --kv-page-bytes 65536 --mamba-state-bytes 1048576 --mamba-slots 64
$J -cp "$CP" io.kvledger.replay.cli.KvledgerMain bench > $OUT/bench.txt 2>&1
