#!/usr/bin/env bash
# Builds the h4 timing anatomy (h4_anatomy.cu) into OUT_DIR: one executable per variant, each
# with one part of the kernel left out. Needs nvcc (13.0); runs on an sm_90 GPU.
#   scripts/device/h4-anatomy/build.sh OUT_DIR
set -eu
OUT=${1:?usage: build.sh OUT_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
mkdir -p "$OUT"
build() {  # variant name, defines...
  local name=$1
  shift
  "$NVCC" -std=c++17 -O3 -arch=sm_90a -fmad=false -I"$HERE/../../../kernels/common" \
    -DVARIANT="\"$name\"" "$@" -o "$OUT/h4-anatomy-$name" "$HERE/h4_anatomy.cu" \
    -L/usr/local/cuda/lib64/stubs -lcuda 2>&1 |
    grep -v "C751[79]" || true
}
build full &
build no-copies -DMMAEMU_H4_COPIES=0 &
build no-copy-b -DMMAEMU_H4_COPY_B=0 &
build no-steps -DMMAEMU_H4_STEPS=0 &
build no-stores -DMMAEMU_H4_STORES=0 &
build steps-only -DMMAEMU_H4_COPIES=0 -DMMAEMU_H4_STORES=0 &
build skeleton -DMMAEMU_H4_COPIES=0 -DMMAEMU_H4_STEPS=0 -DMMAEMU_H4_STORES=0 &
build s4 -DMMAEMU_H4_STAGES=4 &
build s6 -DMMAEMU_H4_STAGES=6 &
build group4 -DMMAEMU_H4_GROUP_TILES=4 &
build group16 -DMMAEMU_H4_GROUP_TILES=16 &
build cluster2 -DMMAEMU_H4_CLUSTER=2 &
build cluster2-no-stores -DMMAEMU_H4_CLUSTER=2 -DMMAEMU_H4_STORES=0 &
build steps-only-nosync -DMMAEMU_H4_COPIES=0 -DMMAEMU_H4_STORES=0 -DMMAEMU_H4_SYNC=0 &
build steps-bare -DMMAEMU_H4_COPIES=0 -DMMAEMU_H4_SYNC=0 -DMMAEMU_H4_EPILOGUE=0 &
build steps-bare-chain -DMMAEMU_H4_COPIES=0 -DMMAEMU_H4_SYNC=0 -DMMAEMU_H4_EPILOGUE=0 \
  -DANATOMY_SINGLE_CHAIN=1 &
build no-epilogue -DMMAEMU_H4_EPILOGUE=0 &
build chain -DANATOMY_SINGLE_CHAIN=1 &
wait
ls "$OUT"/h4-anatomy-* > /dev/null
