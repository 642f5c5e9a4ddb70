#!/usr/bin/env bash
# Issue 5 evidence on a GPU: every CUDA module (v1, v4, h1, h4) x every FP8 preset against the oracle, from
# the carried fatbins and from NVRTC; replays of the H200 truth sets with --backend cuda (h4 where
# it applies, else h1, else v4), cuda-h1, cuda-v4, cuda-v1 and cpu; and `mmaemu bench` beside
# native cuBLASLt:
#   scripts/device/kernels-evidence.sh WORK_DIR PACK_DIR [PARTS]
# PARTS: a comma list of conform, replay, bench (default all three), so that the evidence can be
# gathered over several short device calls.
set -u
W=${1:?usage: kernels-evidence.sh WORK_DIR PACK_DIR [PARTS]}
P=${2:?usage: kernels-evidence.sh WORK_DIR PACK_DIR [PARTS]}
PARTS=,${3:-conform,replay,bench},
want() { [[ $PARTS == *,$1,* ]]; }
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
M=$PWD/.device/mmaemu
CUBLASLT=${CUBLASLT:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcublasLt.so.13}
mkdir -p "$W" "$P"
# The three H200 sets and the tree exceed the device's 64 MiB carry: carry them as one
# .device/truth.tar.xz (tar cJf .device/truth.tar.xz -C .device truth) and unpack them here.
if [ -f .device/truth.tar.xz ] && [ ! -d .device/truth/h200-dev ]; then
  python3 -c "import tarfile; tarfile.open('.device/truth.tar.xz').extractall('.device')"
fi
step() {  # name, command...: output to W/name.out with the exit status
  local name=$1
  shift
  "$@" > "$W/$name.out" 2>&1
  echo "rc=$?" >> "$W/$name.out"
}
$M info > "$W/info.txt" 2>&1
if want conform; then
step conform-fatbin $M conform --backend cuda --calls 200 --out "$W/conform-fatbin.json"
MMAEMU_FORCE_NVRTC=1 step conform-nvrtc $M conform --backend cuda --calls 200 --seed 7 --out "$W/conform-nvrtc.json"
fi
want replay && for set in .device/truth/h200-dev .device/truth/h200-epilogue-dev .device/truth/h200-evo2-dev \
           tests/data/h200-subset tests/data/h200-recorded-configs tests/data/h200-recorded-grid; do
  name=$(basename "$set")
  for backend in cuda cuda-h1 cuda-v4 cuda-v1 cpu; do
    step "replay-$name-$backend" $M replay --truth-dir "$set" --backend $backend --out "$W/replay-$name-$backend.json"
  done
done
if want bench; then
# Speed: every backend on a small shape (the oracle too), then the GPU backends on larger ones.
step bench-small $M bench --cublaslt "$CUBLASLT" --shapes 256x256x1024 \
  --backends cublaslt,cuda-h4,cuda-h1,cuda-v4,cuda-v1,cpu,oracle --repeats 3 --out "$W/bench-small.json"
step bench-medium $M bench --cublaslt "$CUBLASLT" --shapes 1024x1024x1024,2048x2048x2048 \
  --backends cublaslt,cuda-h4,cuda-h1,cuda-v4,cuda-v1,cpu --repeats 3 --max-seconds 20 --out "$W/bench-medium.json"
step bench-large $M bench --cublaslt "$CUBLASLT" --shapes 4096x4096x4096,8192x8192x8192,4096x4096x16384 \
  --backends cublaslt,cuda-h4,cuda-h1,cuda-v4 --repeats 5 --max-seconds 10 --out "$W/bench-large.json"
step bench-large-fast $M bench --cublaslt "$CUBLASLT" --shapes 4096x4096x4096 --fast-accum \
  --backends cublaslt,cuda-h4,cuda-h1,cuda-v4,cuda-v1 --repeats 3 --max-seconds 20 --out "$W/bench-large-fast.json"
fi
tail -n 4 "$W"/*.out
tar czf "$P/kernels-evidence.tgz" -C "$W" .
