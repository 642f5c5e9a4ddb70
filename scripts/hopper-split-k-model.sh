#!/usr/bin/env bash
# Rebuilds the hopper profile's split-K models from the committed sweep logs (issue 11): the one
# place that lists which logs each model is built from. Needs python3-numpy.
#   scripts/hopper-split-k-model.sh [h200|h100-sxm] [OUT]
# h200 (default): profiles/hopper-split-k.tar.xz (hopper-split-k.json, xz-packed), the H200's
#   choice; holdout-2027 and holdout-2028 are never among its logs
#   (validation_logs/2026-12-03/split-k/held-out.json).
# h100-sxm: profiles/hopper-h100-sxm-split-k.tar.xz, the H100 SXM's choice (its own sweeps: the
#   same library chooses otherwise there, validation_logs/2026-12-06/split-k-h100/README.md).
set -eu
cd "$(dirname "$0")/.."
if [ "${1:-h200}" = h100-sxm ]; then
  H=validation_logs/2026-12-06/split-k-h100
  exec python3 scripts/split-k-model.py --out "${2:-profiles/hopper-h100-sxm-split-k.tar.xz}" --base $H/model-base.json \
    --grids $H/dense-base.safetensors.xz $H/dense-ws32-fine.safetensors.xz $H/dense-ws32.safetensors.xz \
    $H/dense-ws4.safetensors.xz $H/dense-unaligned.safetensors.xz $H/dense-tall.safetensors.xz \
    $H/dense-k16.safetensors.xz \
    $H/dense-k32.safetensors.xz $H/dense-unaligned-k16.safetensors.xz $H/dense-unaligned-k32.safetensors.xz \
    $H/dense-wide-unaligned.safetensors.xz $H/dense-wide-aligned-k128.safetensors.xz \
    $H/dense-wide-aligned-k16.safetensors.xz $H/dense-wide-aligned-k32.safetensors.xz \
    $H/dense-wide-unaligned-k128.safetensors.xz $H/dense-wide-unaligned-k16.safetensors.xz \
    $H/dense-wide-unaligned-k32.safetensors.xz $H/dense-wide-ws4-aligned-k128.safetensors.xz \
    $H/dense-wide-ws4-aligned-k16.safetensors.xz $H/dense-wide-ws4-aligned-k32.safetensors.xz \
    $H/dense-wide-ws4-unaligned-k128.safetensors.xz $H/dense-wide-ws4-unaligned-k16.safetensors.xz \
    $H/dense-wide-ws4-unaligned-k32.safetensors.xz \
    $H/dense-dtypes-e4e4-aligned.safetensors.xz $H/dense-dtypes-e4e4-unaligned.safetensors.xz \
    $H/dense-dtypes-e4e5-aligned.safetensors.xz $H/dense-dtypes-e4e5-unaligned.safetensors.xz \
    $H/dense-dtypes-e5e4-aligned.safetensors.xz $H/dense-dtypes-e5e4-unaligned.safetensors.xz \
    validation_logs/2026-12-06/device/m-every-h100-sxm.safetensors.xz --points $H/configs.safetensors.xz
fi
[ "${1:-h200}" = h200 ] && shift $(($# > 0 ? 1 : 0))
V=validation_logs/2026-12-03/split-k
W=validation_logs/2026-12-05/split-k  # later sweeps (holdout-2028 there is never read)
OUT=${1:-profiles/hopper-split-k.tar.xz}
# Grids first, in the order the decider breaks ties by: the 1 MiB base grids, the other SM
# counts and workspaces, the K-alignment grids, the per-pair dtype grids, then the listed-value logs.
GRIDS=(dense-base dense-sm114 dense-ws32-fine dense-ws32 dense-unaligned dense-ws32-unaligned dense-ws32-fine-sm114 dense-ws32-sm114
  dense-ws4 dense-ws4-unaligned dense-wide dense-tall
  dense-k16 dense-k32 dense-unaligned-k16 dense-unaligned-k32 dense-unaligned-sm114 dense-wide-unaligned
  dense-wide-aligned-k128 dense-wide-aligned-k16 dense-wide-aligned-k32 dense-wide-unaligned-k128
  dense-wide-unaligned-k16 dense-wide-unaligned-k32 dense-tiny
  dense-dtypes-e4e4-aligned dense-dtypes-e4e4-unaligned dense-dtypes-e4e5-aligned dense-dtypes-e4e5-unaligned
  dense-dtypes-e5e4-aligned dense-dtypes-e5e4-unaligned
  $W/dense-sm114-k16-aligned $W/dense-sm114-k16-unaligned $W/dense-sm114-k32-aligned $W/dense-sm114-k32-unaligned
  ${EXTRA_GRIDS:-}
  m-every n-every k-every big-k sm-targets)
args=()
for g in "${GRIDS[@]}"; do
  case $g in */*) args+=("$g.safetensors.xz") ;; *) args+=("$V/$g.safetensors.xz") ;; esac  # a path: a later folder's log
done
exec python3 scripts/split-k-model.py --out "$OUT" --base validation_logs/2026-12-06/split-k/model-base.json --grids "${args[@]}" \
  --points "$V/configs.safetensors.xz" "$V/holdout.safetensors.xz" --legacy validation_logs/2026-12-02/sweep/sweep.json
