#!/bin/bash
# A/B on this machine's cores: the peer traces with the writer's pages populated (default) and without
# (-Dkvledger.journal.noPopulate=true), alternately, three runs each; then the usual CPU part (gpu.sh cpu).
cd "$(dirname "$0")"
FLAGS="--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED --add-exports=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED -Dchronicle.analytics.disable=true -Dchronicle.announcer.disable=true -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -Dbackground.releaser=false -Djava.io.tmpdir=/tmp"
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
{ echo "cpus $(nproc)"; uname -r
  for i in 1 2 3; do
    for p in false true; do
      echo; echo "\$ kvledger bench --trace all --iterations 24   (run $i, -Dkvledger.journal.noPopulate=$p)"
      ./jre/bin/java $FLAGS -Dkvledger.journal.noPopulate=$p -cp "lib/*" io.kvledger.replay.cli.KvledgerMain bench --trace all --iterations 24
    done
  done
} > $OUT/populate-ab.txt 2>&1
bash ./gpu.sh cpu > $OUT/gpu-cpu-log.txt 2>&1
ls -la $OUT
