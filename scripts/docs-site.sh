#!/usr/bin/env bash
# Builds the docs as a site with mkdocs --strict (issue 14): mkdocs pinned with hashes
# (scripts/docs-requirements.txt) from PyPI into a scratch venv (scripts/pinned-venv.sh), the site into a
# scratch folder (or $1). A warning fails the build.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$(scripts/pinned-venv.sh mkdocs scripts/docs-requirements.txt --only-binary=:all:)
site=${1:-$(mktemp -d)}
# Not --quiet: mkdocs counts only the warnings it prints, so --quiet would let --strict pass them.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! "$venv/bin/mkdocs" build --strict --site-dir "$site" > "$log" 2>&1; then
  grep -v "^INFO" "$log" >&2
  exit 1
fi
echo "docs-site: built into $site with $("$venv/bin/mkdocs" --version | cut -d' ' -f1-3)" >&2
