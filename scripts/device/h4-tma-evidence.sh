#!/usr/bin/env bash
# Issue 15 evidence for h4 fed by the tensor-memory accelerator, in one device call: conform
# --backend cuda (every module against the oracle; h4 through the launcher's tensor maps), the
# same with NVRTC forced (the modules compiled at run time), resident_call_test, replays of H200
# recordings with --backend cuda-h4, bench beside cuBLASLt (bf16 on the issue's shapes; f32 and
# FP8 outputs, NaN/Inf inputs and a ragged shape; split-K shapes on h4 and h1), and the h4 timing
# anatomy (where .device/ carries it).
#   scripts/device/h4-tma-evidence.sh OUT_DIR
# Carried in .device/ (scripts/device/pack-h4-evidence.sh fills it): mmaemu.xz and
# resident_call_test.xz (stripped, xz-packed builds of the commit), anatomy.tar.xz
# (scripts/device/h4-anatomy/build.sh's output and earlier commits' h4s), truth/ (recordings).
set -u
OUT=${1:?usage: h4-tma-evidence.sh OUT_DIR}
mkdir -p "$OUT"
[ -f .device/anatomy.tar.xz ] && (cd .device && tar xJf anatomy.tar.xz)
. "$(dirname "$0")/evidence-steps.sh"
anatomy() {  # every anatomy variant, then its table (scripts/device/h4-anatomy/summary.py)
  [ -d .device/anatomy ] || return 0
  for exe in .device/anatomy/h4-anatomy-*; do timeout 30 $exe >> "$OUT/anatomy.jsonl" 2>> "$OUT/anatomy.err"; done
  python3 scripts/device/h4-anatomy/summary.py "$OUT/anatomy.jsonl" > "$OUT/anatomy-summary.txt" 2>&1
  cat "$OUT/anatomy-summary.txt"
}
# A quick look first: should the rewritten h4 hang or differ, the call spends its time on the
# anatomy (which times d51f425's h4 beside it) instead of on timeouts.
step conform-h4-quick timeout 60 $M conform --backend cuda-h4 --calls 8 --out "$OUT/conform-h4-quick.json"
step conform-v9-quick timeout 60 $M conform --backend cuda-v9 --calls 8 --out "$OUT/conform-v9-quick.json"
if ! grep -q '^rc=0$' "$OUT/conform-h4-quick.out" || ! grep -q '^rc=0$' "$OUT/conform-v9-quick.out"; then
  echo "h4 or v9 failed its quick conform: the anatomy only"
  anatomy
  step resident-test timeout 100 .device/resident_call_test -d yes
  exit 1
fi
step conform timeout 200 $M conform --backend cuda --calls ${CONFORM_CALLS:-40} --out "$OUT/conform-cuda.json"
step resident-test timeout 100 .device/resident_call_test -d yes
step bench timeout 240 $M bench --cublaslt "$LT" \
  --shapes ${BENCH_SHAPES:-1024x1024x1024,4096x4096x4096,8192x8192x8192,4096x4096x16384,128x28672x8192,8192x12288x4096,16x4096x14336} \
  --backends cublaslt,cuda-h4,cuda-v9 --repeats 5 --out "$OUT/bench.json"
# Split-K shapes (cuBLASLt's count): h4's clusters of slices beside h1.
step bench-split timeout 120 $M bench --cublaslt "$LT" \
  --shapes ${SPLIT_SHAPES:-16x4096x14336,32x4096x14336,64x4096x14336,16x8192x28672,128x1024x16384,256x512x65536,16x28672x8192,2048x2048x2048} \
  --backends cublaslt,cuda-h4,cuda-h1,cuda-v9 --repeats 5 --out "$OUT/bench-split.json"
# --backend cuda as a user gets it: h4 where it covers the call, h1 (more than 8 slices) else.
step bench-cuda timeout 100 $M bench --cublaslt "$LT" --shapes 4096x4096x4096,8192x8192x8192,16x4096x14336 \
  --backends cublaslt,cuda --repeats 5 --out "$OUT/bench-cuda.json"
step replay-cuda-h200-subset timeout 100 $M replay --truth-dir .device/truth/h200-subset --backend cuda \
  --out "$OUT/replay-cuda-h200-subset.json"
for set in .device/truth/*/; do
  name=$(basename "$set")
  # Named, h4 errs on the recordings it does not cover (K % 16, more than 8 slices) and must
  # match every other.
  step "replay-h4-$name" timeout 100 $M replay --truth-dir "$set" --backend cuda-h4 --out "$OUT/replay-h4-$name.json"
done
anatomy
for variant in f32:normal f8_e4m3:normal bf16:special f16:wide; do
  dtype=${variant%%:*} dist=${variant##*:}
  step "bench-$dtype-$dist" timeout 60 $M bench --cublaslt "$LT" --shapes 1000x3001x2000,4096x4096x4096 \
    --backends cublaslt,cuda-h4 --repeats 3 --out-dtype $dtype --dist $dist --out "$OUT/bench-$dtype-$dist.json"
done
step conform-nvrtc env MMAEMU_FORCE_NVRTC=1 timeout 200 $M conform --backend cuda-h4 --calls 20 --out "$OUT/conform-h4-nvrtc.json"
