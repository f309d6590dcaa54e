#!/bin/bash
# Build the self-contained GPU bundle (jlinked JRE, the jars, gpu-check.sh as gpu.sh) into DIR (default: .device).
# Run from the repository root: bash scripts/gpu-bundle.sh [DIR]. See scripts/gpu-check.sh.
set -e
DIR=${1:-.device}
mvn -B -ntp -o -q package -pl replay-tool -am -DskipTests
rm -rf "$DIR/lib" "$DIR/jre"
mkdir -p "$DIR/lib"
cp replay-tool/target/kvledger-replay-tool-0.1.0.jar replay-tool/target/lib/*.jar "$DIR/lib/"
# kvledger uses JCuda's driver API only: leave out the PTX compiler and NVRTC natives (about 8 MB) to stay small
zip -q -d "$DIR"/lib/jcuda-natives-*.jar 'lib/libJNvPTXCompiler-*' 'lib/libJNvrtc-*'
# gpu.sh uses no Redis: leave out its client (Lettuce, Reactor, Netty; about 7 MB), so that the bundle and the
# working tree stay under the device tool's 64 MiB (classes load lazily: run, check and replay never touch them)
rm -f "$DIR"/lib/lettuce-core-*.jar "$DIR"/lib/reactor-core-*.jar "$DIR"/lib/netty-*.jar
jlink --add-modules java.base,java.logging,jdk.unsupported,java.management,jdk.management,java.naming,jdk.jfr \
      --strip-debug --no-header-files --no-man-pages --compress=2 --output "$DIR/jre"
cp scripts/gpu-check.sh "$DIR/gpu.sh"
du -sh "$DIR"
