#!/usr/bin/env bash
# The project's own H200 evidence (issue 4), in one device call: probe, sweep (with a replayed
# sample), live parity, and record sets. Run from the repository root on the device machine with
# the binary and its Debian libraries carried in .device/ (see docs/validation.md):
#   scripts/device/issue4-evidence.sh OUT_DIR
set -u
OUT=${1:?usage: issue4-evidence.sh OUT_DIR}
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
M=$PWD/.device/mmaemu
LT=${CUBLASLT:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcublasLt.so.13}
mkdir -p "$OUT"
step() { echo "== $(date +%T) $*" | tee -a "$OUT/steps.log"; }

step info
$M info > "$OUT/info.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,memory.total --format=csv >> "$OUT/info.txt" 2>&1

step sweep
# (This run also merged the tables into a copy of the profile, --write-profile; the split-K model
# replaced those tables and the option is gone.)
$M sweep --cublaslt "$LT" --out "$OUT/sweep.json" \
    --out-dtypes bf16,f32 --replay-sample 48 --sample-out "$OUT/sweep-sample" > "$OUT/sweep.out" 2> "$OUT/sweep.err"
echo "rc=$?" >> "$OUT/sweep.out"
rm -rf "$OUT/sweep-sample"/*/*.safetensors

step probe
$M probe --tiles-per-class 16 --out "$OUT/probe.json" --save-data "$OUT/probe-data.safetensors" > "$OUT/probe.out" 2> "$OUT/probe.err"
echo "rc=$?" >> "$OUT/probe.out"

step selftest live
$M selftest --live --cublaslt "$LT" --calls 64 --profile "$OUT/hopper.json" --log "$OUT/selftest-live.json" > "$OUT/selftest-live.out" 2>&1
echo "rc=$?" >> "$OUT/selftest-live.out"

step record h200-dev inputs
$M record --cublaslt "$LT" --inputs-from .device/truth/h200-dev --out "$OUT/rec-h200-dev" > "$OUT/rec-h200-dev.out" 2>&1
python3 scripts/compare-truth-outputs.py .device/truth/h200-dev "$OUT/rec-h200-dev" > "$OUT/compare-h200-dev.log" 2>&1
$M replay --truth-dir "$OUT/rec-h200-dev" --out "$OUT/replay-rec-h200-dev.json" > "$OUT/replay-rec-h200-dev.out" 2>&1

step record configuration grid, small shape
$M record --cublaslt "$LT" --out "$OUT/rec-configs-small" --shapes 32x32x128 --pairs e4m3xe4m3,e4m3xe5m2,e5m2xe4m3 \
  --dists normal,wide,cancel,small,special --out-dtypes bf16,f16,f32,f8_e4m3,f8_e5m2 \
  --scales one,tensorwise,rowwise --bias none,match > "$OUT/rec-configs-small.out" 2>&1
$M replay --truth-dir "$OUT/rec-configs-small" --out "$OUT/replay-rec-configs-small.json" > "$OUT/replay-rec-configs-small.out" 2>&1

step record configuration grid, split shapes
$M record --cublaslt "$LT" --out "$OUT/rec-configs-large" --shapes 128x128x8192,16x64x32768,256x512x4096,100x200x3000 \
  --pairs e4m3xe4m3,e5m2xe4m3 --dists normal,special --out-dtypes bf16,f32,f8_e4m3 \
  --scales tensorwise,rowwise --bias none,match > "$OUT/rec-configs-large.out" 2>&1
$M replay --truth-dir "$OUT/rec-configs-large" --out "$OUT/replay-rec-configs-large.json" > "$OUT/replay-rec-configs-large.out" 2>&1
rm -rf "$OUT/rec-configs-large"/*.safetensors  # too large to bring back; the manifest and logs stay

step done
tail -n 3 "$OUT"/*.out
# What comes back from the device is at most 8 files of 16 MiB: pack the logs and the small sets.
if [ -n "${PACK_INTO:-}" ]; then
  tar czf "$PACK_INTO/logs.tgz" -C "$OUT" --exclude=probe-data.safetensors --exclude=rec-configs-small \
    --exclude='rec-h200-dev/*.safetensors' .
  tar czf "$PACK_INTO/rec-configs-small.tgz" -C "$OUT" rec-configs-small
  gzip -c "$OUT/probe-data.safetensors" > "$PACK_INTO/probe-data.safetensors.gz"
  ls -la "$PACK_INTO"
fi
