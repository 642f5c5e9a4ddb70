#!/usr/bin/env bash
# The split-K sweep of issue 4 with its replayed sample, then live parity with the swept profile:
#   scripts/device/sweep-and-live.sh WORK_DIR PACK_DIR
set -u
W=${1:?usage: sweep-and-live.sh WORK_DIR PACK_DIR}
P=${2:?usage: sweep-and-live.sh WORK_DIR PACK_DIR}
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
M=$PWD/.device/mmaemu
LT=${CUBLASLT:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcublasLt.so.13}
mkdir -p "$W" "$P"
# (This run also merged the tables into a copy of the profile that the live selftest below used,
# --write-profile; the split-K model replaced those tables and the option is gone.)
cp profiles/hopper.json "$W/hopper.json"
$M sweep --cublaslt "$LT" --out "$W/sweep.json" --out-dtypes bf16,f32 \
  --replay-sample 64 --sample-out "$W/sweep-sample" > "$W/sweep.out" 2> "$W/sweep.err"
echo "rc=$?" >> "$W/sweep.out"
rm -f "$W"/sweep-sample/*/*.safetensors
$M selftest --live --cublaslt "$LT" --calls 96 --seed 2 --profile "$W/hopper.json" --log "$W/selftest-live.json" \
  > "$W/selftest-live.out" 2>&1
echo "rc=$?" >> "$W/selftest-live.out"
cat "$W/sweep.out" "$W/selftest-live.out"
tar czf "$P/sweep-live.tgz" -C "$W" .
ls -la "$P"
