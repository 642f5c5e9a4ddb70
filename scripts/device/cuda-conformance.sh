#!/usr/bin/env bash
# Issue 5 evidence: the CUDA backend (kernel v1, carried fatbin) against the oracle on random and
# adversarial calls, and replays of the H200 truth sets with --backend cuda beside the CPU's:
#   scripts/device/cuda-conformance.sh WORK_DIR PACK_DIR
set -u
W=${1:?usage: cuda-conformance.sh WORK_DIR PACK_DIR}
P=${2:?usage: cuda-conformance.sh WORK_DIR PACK_DIR}
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
M=$PWD/.device/mmaemu
mkdir -p "$W" "$P"
$M info > "$W/info.txt" 2>&1
$M conform --backend cuda --calls 200 --out "$W/conform-v1-fatbin.json" > "$W/conform-v1-fatbin.out" 2>&1
echo "rc=$?" >> "$W/conform-v1-fatbin.out"
MMAEMU_FORCE_NVRTC=1 $M conform --backend cuda --calls 200 --seed 7 --out "$W/conform-v1-nvrtc.json" \
  > "$W/conform-v1-nvrtc.out" 2>&1
echo "rc=$?" >> "$W/conform-v1-nvrtc.out"
for set in .device/truth/h200-dev .device/truth/h200-epilogue-dev .device/truth/h200-evo2-dev \
           tests/data/h200-subset tests/data/h200-recorded-configs tests/data/h200-recorded-grid; do
  name=$(basename "$set")
  for backend in cuda cpu; do
    $M replay --truth-dir "$set" --backend $backend --out "$W/replay-$name-$backend.json" \
      > "$W/replay-$name-$backend.out" 2>&1
    echo "rc=$?" >> "$W/replay-$name-$backend.out"
  done
done
tail -n 3 "$W"/*.out
tar czf "$P/cuda-conformance.tgz" -C "$W" .
