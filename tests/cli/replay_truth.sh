#!/usr/bin/env bash
# Replays one shared truth set with the fast CPU path and requires every recording bit-exact.
# Usage: replay_truth.sh MMAEMU SOURCE_DIR SET_NAME [STAND_IN]. Without the shared set, the
# bundled tests/data/STAND_IN is replayed instead (said so); without either, exit 77 (skipped).
set -euo pipefail
exe=$1 source=$2 name=$3 stand_in=${4:-}
root=${MMAEMU_TRUTH_DIR:-$source/../shared/truth}
dir=$root/$name
if [ ! -f "$dir/manifest.json" ]; then
  if [ -n "$stand_in" ] && [ -f "$source/tests/data/$stand_in/manifest.json" ]; then
    echo "note: $dir not found: replaying the bundled subset tests/data/$stand_in (set MMAEMU_TRUTH_DIR for the whole set)"
    dir=$source/tests/data/$stand_in
  else
    echo "SKIP: $dir not found (set MMAEMU_TRUTH_DIR)"
    exit 77
  fi
fi
out=$("$exe" replay --truth-dir "$dir")
echo "$out"
total=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['recordings']))" "$dir/manifest.json")
[ "$(echo "$out" | tail -n 1)" = "replay: $total/$total recordings bit-exact" ]
