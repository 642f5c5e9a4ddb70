#!/usr/bin/env bash
# A scratch venv under .tools/ holding a hash-pinned requirements file from PyPI (release tooling
# only: mkdocs, cffconvert); rebuilt when the file changes. Prints the venv's folder.
#   scripts/pinned-venv.sh NAME REQUIREMENTS [PIP_OPTIONS...]
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: pinned-venv.sh NAME REQUIREMENTS [PIP_OPTIONS...]}
requirements=${2:?usage: pinned-venv.sh NAME REQUIREMENTS [PIP_OPTIONS...]}
shift 2
venv=.tools/$name-venv
stamp=$(sha256sum "$requirements" | cut -d' ' -f1)
if [ "$(cat "$venv/requirements.sha256" 2> /dev/null)" != "$stamp" ]; then
  scripts/install-deps.sh python3-venv >&2  # Debian splits venv (ensurepip) out of python3
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --require-hashes "$@" -r "$requirements" >&2
  echo "$stamp" > "$venv/requirements.sha256"
fi
echo "$PWD/$venv"
