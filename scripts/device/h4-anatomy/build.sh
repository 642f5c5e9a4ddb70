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
build no-steps -DMMAEMU_H4_STEPS=0 &
build no-stores -DMMAEMU_H4_STORES=0 &
build steps-only -DMMAEMU_H4_COPIES=0 -DMMAEMU_H4_STORES=0 &
build swizzle -DMMAEMU_H4_SWIZZLE=1 &
build swizzle-no-stores -DMMAEMU_H4_SWIZZLE=1 -DMMAEMU_H4_STORES=0 &
build staged -DMMAEMU_H4_STAGED_STORES=1 &
build swizzle-staged -DMMAEMU_H4_SWIZZLE=1 -DMMAEMU_H4_STAGED_STORES=1 &
build tma -DMMAEMU_H4_TMA=1 &
build tma-staged -DMMAEMU_H4_TMA=1 -DMMAEMU_H4_STAGED_STORES=1 &
build tma-s7 -DMMAEMU_H4_TMA=1 -DMMAEMU_H4_STAGES=7 &
build tma-staged-s7 -DMMAEMU_H4_TMA=1 -DMMAEMU_H4_STAGED_STORES=1 -DMMAEMU_H4_STAGES=7 &
build swizzle-s7 -DMMAEMU_H4_SWIZZLE=1 -DMMAEMU_H4_STAGES=7 &
build skeleton -DMMAEMU_H4_COPIES=0 -DMMAEMU_H4_STEPS=0 -DMMAEMU_H4_STORES=0 &
wait
ls "$OUT"/h4-anatomy-* > /dev/null
