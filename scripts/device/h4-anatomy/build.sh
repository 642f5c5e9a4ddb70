#!/usr/bin/env bash
# Builds the h4 timing anatomy (h4_anatomy.cu) into OUT_DIR: one executable per variant, each
# with one part of the kernel left out. Needs nvcc (13.0); runs on an sm_90 GPU.
#   scripts/device/h4-anatomy/build.sh OUT_DIR
#   scripts/device/h4-anatomy/build.sh --one OUT_DIR TREE NAME [SWITCHES...]
# The second form builds one variant from another checkout's anatomy (TREE: the root of a
# worktree of an earlier commit), as scripts/device/pack-h4-evidence.sh does for the h4s before.
set -eu
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
build_from() {  # tree, out dir, variant name, defines...
  local tree=$1 out=$2 name=$3
  shift 3
  # -Wno-free-nonheap-object: g++ 12 misreads the shape list's std::vector in main (a false
  # positive); C7517/C7519: ptxas's notes on the wgmma pipeline.
  "$NVCC" -std=c++17 -O3 -arch=sm_90a -fmad=false -Xcompiler -Wno-free-nonheap-object \
    -I"$tree/kernels/common" -DVARIANT="\"$name\"" "$@" -o "$out/h4-anatomy-$name" \
    "$tree/scripts/device/h4-anatomy/h4_anatomy.cu" -L/usr/local/cuda/lib64/stubs -lcuda 2>&1 |
    grep -v "C751[79]" || true
}
if [ "${1:-}" = --one ]; then
  shift
  mkdir -p "${1:?usage: build.sh --one OUT_DIR TREE NAME [SWITCHES...]}"
  build_from "$2" "$1" "${@:3}"
  exit 0
fi
OUT=${1:?usage: build.sh OUT_DIR}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$OUT"
build() {  # variant name, defines...
  build_from "$ROOT" "$OUT" "$@"
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
