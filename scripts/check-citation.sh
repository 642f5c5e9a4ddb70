#!/usr/bin/env bash
# Validates CITATION.cff with cffconvert (pinned with hashes, scripts/citation-requirements.txt,
# from PyPI into a scratch venv, scripts/pinned-venv.sh) and checks that its version is the project's.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$(scripts/pinned-venv.sh cffconvert scripts/citation-requirements.txt)
"$venv/bin/cffconvert" --validate --infile CITATION.cff
version=$(sed -n 's/^project(mmaemu VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
cff=$(sed -n 's/^version: *//p' CITATION.cff)
if [ "$cff" != "$version" ]; then
  echo "check-citation: CITATION.cff says version $cff, CMakeLists.txt $version" >&2
  exit 1
fi
echo "check-citation: CITATION.cff valid (cffconvert 2.0.0), version $version" >&2
