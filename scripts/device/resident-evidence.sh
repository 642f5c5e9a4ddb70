#!/usr/bin/env bash
# Issue 15 evidence for the device-resident entry point and kernel module v9, in one device call:
# resident_call_test (the resident path's bits against emulate_cuda and the CPU path; v9 against
# the CPU path), conform --backend cuda (every module, v9 included, against the oracle, through
# the launcher the host and resident paths share), and bench with the resident columns and v9
# beside v4 and cuBLASLt.
#   scripts/device/resident-evidence.sh OUT_DIR
# Expects .device/mmaemu.xz and .device/resident_call_test.xz (stripped, xz-packed builds of the
# same commit: strip -o .device/X build/...; xz -6 .device/X) carried with the call.
set -u
OUT=${1:?usage: resident-evidence.sh OUT_DIR}
mkdir -p "$OUT"
. "$(dirname "$0")/evidence-steps.sh"
step resident-test timeout 200 .device/resident_call_test -d yes
step conform timeout 200 $M conform --backend cuda --calls ${CONFORM_CALLS:-40} --out "$OUT/conform-cuda.json"
step bench timeout 200 $M bench --cublaslt "$LT" --shapes ${BENCH_SHAPES:-1024x1024x1024,4096x4096x4096,8192x8192x8192,16x4096x14336,128x28672x8192} \
  --backends cublaslt,cuda-h4,cuda-h1,cuda-v4,cuda-v9 --repeats 5 --out "$OUT/bench-resident.json"
