#!/usr/bin/env bash
# Replays one shared truth set with the fast CPU path and requires every recording bit-exact.
# Usage: replay_truth.sh MMAEMU SOURCE_DIR SET_NAME. Exit 77 (skipped) when the set is absent.
set -euo pipefail
exe=$1 source=$2 name=$3
root=${MMAEMU_TRUTH_DIR:-$source/../shared/truth}
if [ ! -f "$root/$name/manifest.json" ]; then
  echo "SKIP: $root/$name not found (set MMAEMU_TRUTH_DIR)"
  exit 77
fi
out=$("$exe" replay --truth-dir "$root/$name")
echo "$out"
total=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['recordings']))" "$root/$name/manifest.json")
[ "$(echo "$out" | tail -n 1)" = "replay: $total/$total recordings bit-exact" ]
