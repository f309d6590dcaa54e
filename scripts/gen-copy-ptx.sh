#!/bin/bash
# Regenerate the copy kernel's PTX resource from engine/src/main/cuda/copy.cu (needs nvcc; the GPU machine does
# not: the driver compiles the PTX at load time). The PTX ISA version is lowered to 7.5, the lowest that the
# generated instructions need, so drivers from CUDA 11.5 on accept it; ptxas checks the result for sm_75 and sm_90.
# Run from the repository root: bash scripts/gen-copy-ptx.sh
set -e
SRC=engine/src/main/cuda/copy.cu
PTX=engine/src/main/resources/io/kvledger/engine/device/copy.ptx
TMP=$(mktemp -d)
nvcc -ptx -arch=compute_75 -O3 -o "$TMP/copy.ptx" "$SRC"
{
  echo "//"
  echo "// Generated from $SRC by scripts/gen-copy-ptx.sh; do not edit by hand."
  sed -e 's/^\.version .*/.version 7.5/' "$TMP/copy.ptx"
} > "$PTX"
ptxas -arch=sm_75 "$PTX" -o "$TMP/copy75.cubin"
ptxas -arch=sm_90 -v "$PTX" -o "$TMP/copy90.cubin"
rm -rf "$TMP"

# The bulk-copy (TMA) kernels: sm_90 only, PTX ISA 8.0 (the first with cp.async.bulk and mbarrier expect_tx).
BULK_SRC=engine/src/main/cuda/copy_bulk.cu
BULK_PTX=engine/src/main/resources/io/kvledger/engine/device/copy_bulk.ptx
TMP=$(mktemp -d)
nvcc -ptx -arch=compute_90 -O3 -o "$TMP/copy_bulk.ptx" "$BULK_SRC"
{
  echo "//"
  echo "// Generated from $BULK_SRC by scripts/gen-copy-ptx.sh; do not edit by hand."
  sed -e 's/^\.version .*/.version 8.0/' "$TMP/copy_bulk.ptx"
} > "$BULK_PTX"
ptxas -arch=sm_90 -v "$BULK_PTX" -o "$TMP/copy_bulk90.cubin"
rm -rf "$TMP"
