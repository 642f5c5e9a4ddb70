#!/usr/bin/env bash
# Installs what mmaemu needs to build and test: Debian's packages alone (no PyPI). cuobjdump, which
# only the release tooling needs (build-fatbin --release, the fatbin architecture checks), comes
# from PyPI through its own script, scripts/install-cuobjdump.sh. Idempotent: quiet and quick when
# everything is already there. Extra Debian packages a tool needs may be named as arguments
# (scripts/fuzz.sh: clang and its fuzzer runtime).
set -euo pipefail
packages=(build-essential cmake ninja-build git python3 libcli11-dev libfmt-dev libspdlog-dev
          nlohmann-json3-dev catch2 libssl-dev clang-format "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
