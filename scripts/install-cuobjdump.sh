#!/usr/bin/env bash
# Installs cuobjdump (the CUDA toolkit here ships without it) from PyPI, pinned by version and
# sha256, into .tools/cuobjdump/ of the checkout. mmaemu build-fatbin and check-dist use it to list
# each fatbin's architectures. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
version=13.2.51  # the oldest CUDA 13 cuobjdump on PyPI; it reads nvcc 13.0's fatbins
sha256=95c69d3ddf0c2c1f535ec44c3433a66aeee19f588d9d22f73356e20b25f12b50
dest=.tools/cuobjdump
if [ -x "$dest/bin/cuobjdump" ] && "$dest/bin/cuobjdump" --version | grep -q "V$version"; then
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$work" "nvidia-cuda-cuobjdump==$version"
wheel=$(ls "$work"/*.whl)
echo "$sha256  $wheel" | sha256sum --check --quiet
python3 - "$wheel" "$work/x" <<'PY'
import sys, zipfile
zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])
PY
mkdir -p "$dest/bin"
install -m 0755 "$work/x/nvidia/cu13/bin/cuobjdump" "$dest/bin/cuobjdump"
cp "$work"/x/nvidia_cuda_cuobjdump-*.dist-info/licenses/License.txt "$dest/License.txt"
echo "install-cuobjdump: $("$dest/bin/cuobjdump" --version | tail -1)" >&2
