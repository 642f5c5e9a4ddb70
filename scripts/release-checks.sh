#!/usr/bin/env bash
# The release checks CI runs after the default workflow (issue 14): the archive built by cpack,
# `mmaemu check-dist` on it, `mmaemu validate-release` from a fresh prefix (CPU here: the GPU
# conformance subset says SKIP and why), scripts/check-docs with the mkdocs --strict site, and
# CITATION.cff validated by cffconvert (scripts/check-citation.sh).
#   scripts/release-checks.sh [LOG_DIR]   (default build/release-checks)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/release-checks}
mkdir -p "$out"
cpack --preset default > "$out/cpack.out"
version=$(sed -n 's/^project(mmaemu VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
package=build/mmaemu-$version-Linux-$(uname -m).tar.gz
build/apps/mmaemu/mmaemu check-dist "$package" --require-fatbins --out "$out/check-dist.json"
build/apps/mmaemu/mmaemu validate-release "$package" --out "$out/validate-release.json"
scripts/check-docs --site
scripts/check-citation.sh
echo "release-checks: PASS ($package; logs in $out)"
