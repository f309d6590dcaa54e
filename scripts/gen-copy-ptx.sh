#!/bin/bash
# Regenerate the copy kernels' PTX resources from engine/src/main/cuda/ (needs nvcc; the GPU machine does not: the
# driver compiles the PTX at load time). Each PTX ISA version is lowered to the lowest its instructions need, so
# older drivers accept it, and ptxas checks the result for the GPUs named.
#   copy.cu      -> copy.ptx:      compute_75, PTX 7.5 (CUDA 11.5 drivers on), checked for sm_75 and sm_90
#   copy_bulk.cu -> copy_bulk.ptx: compute_90, PTX 8.0 (the first with cp.async.bulk and mbarrier expect_tx), sm_90
# Run from the repository root: bash scripts/gen-copy-ptx.sh
set -e
RES=engine/src/main/resources/io/kvledger/engine/device

# gen SOURCE PTX ARCH VERSION CHECK_ARCH...
gen() {
  local src=$1 ptx=$2 arch=$3 version=$4 tmp
  shift 4
  tmp=$(mktemp -d)
  nvcc -ptx -arch="$arch" -O3 -o "$tmp/out.ptx" "$src"
  {
    echo "//"
    echo "// Generated from $src by scripts/gen-copy-ptx.sh; do not edit by hand."
    sed -e "s/^\.version .*/.version $version/" "$tmp/out.ptx"
  } > "$ptx"
  for sm in "$@"; do
    ptxas -arch="$sm" -v "$ptx" -o "$tmp/$sm.cubin"
  done
  rm -rf "$tmp"
}

gen engine/src/main/cuda/copy.cu "$RES/copy.ptx" compute_75 7.5 sm_75 sm_90
gen engine/src/main/cuda/copy_bulk.cu "$RES/copy_bulk.ptx" compute_90 8.0 sm_90
