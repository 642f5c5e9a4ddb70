#!/usr/bin/env bash
# Fills .device/ (git-ignored, carried to the device) for scripts/device/h4-tma-evidence.sh:
# stripped, xz-packed mmaemu and resident_call_test from ./build (built from the commit under
# test), the h4 anatomy (scripts/device/h4-anatomy/build.sh, plus d51f425's h4 as `previous`, its
# TMA candidate as `previous-tma-staged` and 5a5d0fd's, the first TMA-fed module, as `tma-first`),
# and the recordings replayed (H200 sets from ../shared/truth and the committed subset).
# --no-anatomy leaves the anatomy out (h4-tma-evidence.sh then skips it).
#   cmake --build build && scripts/device/pack-h4-evidence.sh [--no-anatomy]
# The device copies the working tree with the carried paths, 64 MiB in all: leave validation_logs/
# and tests/data/ out of the tree for the call (rm -rf, then git checkout -- them afterwards),
# never move them outside the checkout.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TRUTH=${MMAEMU_TRUTH_DIR:-$ROOT/../shared/truth}
cd "$ROOT"
for f in build/apps/mmaemu/mmaemu build/tests/resident_call_test; do
  [ -x "$f" ] || { echo "pack-h4-evidence: $f is missing: build first" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'for t in "$work"/[0-9a-f]*/; do git worktree remove --force "$t" 2> /dev/null; done; rm -rf "$work"' EXIT
rm -rf .device && mkdir -p .device/truth "$work/anatomy"
for f in build/apps/mmaemu/mmaemu build/tests/resident_call_test; do
  strip -o ".device/$(basename "$f")" "$f"
  xz -9 -T0 ".device/$(basename "$f")"
done
with_anatomy=1
[ "${1:-}" = --no-anatomy ] && with_anatomy=0
if [ $with_anatomy = 1 ]; then
  bash scripts/device/h4-anatomy/build.sh "$work/anatomy"
  # Earlier forms of h4 from their commits' anatomy, for a side-by-side run: commit:name:switches.
  for variant in "d51f425:previous:" "d51f425:previous-tma-staged:-DMMAEMU_H4_TMA=1 -DMMAEMU_H4_STAGED_STORES=1" \
    "5a5d0fd:tma-first:"; do
    commit=${variant%%:*} rest=${variant#*:}
    name=${rest%%:*} switches=${rest#*:}
    [ -d "$work/$commit" ] || git worktree add -f --detach "$work/$commit" "$commit" > /dev/null
    # shellcheck disable=SC2086  # the switches are separate words
    bash scripts/device/h4-anatomy/build.sh --one "$work/anatomy" "$work/$commit" "$name" $switches
  done
  tar cJf .device/anatomy.tar.xz -C "$work" anatomy
fi
for set in h200-epilogue-dev h200-evo2-dev; do cp -r "$TRUTH/$set" .device/truth/; done
cp -r tests/data/h200-subset .device/truth/
du -sh .device
