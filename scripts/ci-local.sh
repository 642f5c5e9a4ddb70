#!/usr/bin/env bash
# Runs CI's steps (.ci/run) on a clean clone of the committed HEAD in a scratch folder, with
# ../shared beside it when this checkout has one, as CI does; the scratch folder is removed after.
#   scripts/ci-local.sh
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone --quiet "$src" "$work/checkout"
[ -d "$src/../shared" ] && ln -s "$(cd "$src/../shared" && pwd)" "$work/shared"
cd "$work/checkout"
time bash .ci/run
