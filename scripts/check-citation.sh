#!/usr/bin/env bash
# Validates CITATION.cff with cffconvert (pinned with hashes, scripts/citation-requirements.txt,
# from PyPI into a scratch venv under .tools/) and checks that its version is the project's.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.tools/cffconvert-venv
if ! "$venv/bin/cffconvert" --version 2> /dev/null | grep -q "^2.0.0"; then
  scripts/install-deps.sh python3-venv  # Debian splits venv (ensurepip) out of python3
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --require-hashes -r scripts/citation-requirements.txt
fi
"$venv/bin/cffconvert" --validate --infile CITATION.cff
version=$(sed -n 's/^project(mmaemu VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
cff=$(sed -n 's/^version: *//p' CITATION.cff)
if [ "$cff" != "$version" ]; then
  echo "check-citation: CITATION.cff says version $cff, CMakeLists.txt $version" >&2
  exit 1
fi
echo "check-citation: CITATION.cff valid (cffconvert 2.0.0), version $version" >&2
