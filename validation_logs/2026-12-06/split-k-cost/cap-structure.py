#!/usr/bin/env python3
"""How much of cuBLASLt's split count is a cap (issue 11, towards a cost model).

  cap-structure.py GRID_LOG.safetensors[.xz] [WORKSPACE_BYTES]

On one configuration's dense grid (the first configuration of an mmaemu-sweep/2 log), over the
cells where splitting can happen (K > 5120 and room for two slices), with G = ceil(K / 128),
the K cap ceil(K / 2560) - 1, the workspace cap floor((W - 16) / (m x ceil(n / 32) x 32 x 4)) and
cap = the smaller, and T = the kernel's output tiles (the heuristic's wavesCount x 132):
  - how many cells split, and how many take exactly the cap;
  - how often the count is min(cap, L), where L is one number per kernel (tile id, cluster shape)
    and T, the count most cells below their cap take: in sample, and learnt on the rows m = 16b
    and tested on the others (how far it carries to m it never saw, given the kernel);
  - for some T, the uncapped counts along G.
Needs python3-numpy (the model builder's log reader).
"""
import collections
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '2026-12-05', 'split-k'))
from model_answers import read_sweep  # noqa: E402

_, keys, algs, t = read_sweep(sys.argv[1])
workspace = int(sys.argv[2]) if len(sys.argv) > 2 else keys[0]['workspace_bytes']
A, W = t['algorithm'][0], t['waves'][0]
M, N, K = t['m'].astype(np.int64), t['n'].astype(np.int64), t['k'].astype(np.int64)
split_of = np.array([a['splitk_num'] for a in algs])
tile_of = np.array([a['tile_id'] for a in algs])
cluster_of = np.array([a['cluster_shape_id'] for a in algs])
valid = A >= 0
a = np.clip(A, 0, None)
S, TL, CL = np.where(valid, split_of[a], 0), tile_of[a], cluster_of[a]
T = np.rint(W * 132).astype(np.int64)
shape = A.shape
m3 = np.broadcast_to(M[:, None, None], shape)
n3 = np.broadcast_to(N[None, :, None], shape)
k3 = np.broadcast_to(K[None, None, :], shape)
G = (k3 + 127) // 128
cap = np.minimum((k3 + 2559) // 2560 - 1, (workspace - 16) // (m3 * ((n3 + 31) // 32) * 32 * 4))
can = valid & (k3 > 5120) & (cap >= 2)
print(f"{os.path.basename(sys.argv[1])}, {workspace} bytes: {can.sum()} cells where splitting can happen, "
      f"{(can & (S > 1)).sum()} split, {(can & (S == cap)).sum()} at the cap")
below = can & (S < cap)


def limits(sel):
    seen = collections.defaultdict(collections.Counter)
    for key, s in zip(zip(TL[sel], CL[sel], T[sel]), S[sel]):
        seen[key][s] += 1
    return {key: c.most_common(1)[0][0] for key, c in seen.items()}


def agreement(limit, sel):
    pred = np.array([min(c, limit.get(key, 1 << 30)) for key, c in zip(zip(TL[sel], CL[sel], T[sel]), cap[sel])])
    known = np.array([key in limit for key in zip(TL[sel], CL[sel], T[sel])])
    return (pred == S[sel]).sum(), sel.sum(), known.sum()


right, cells, _ = agreement(limits(below), can)
print(f"s = min(cap, L(tile, cluster, T)), in sample: {right} of {cells} ({100 * right / cells:.1f} %)")
learn = np.broadcast_to((M % 16 == 0)[:, None, None], shape)
right, cells, known = agreement(limits(below & learn), can & ~learn)
print(f"learnt on m = 16b, tested on the other rows: {right} of {cells} ({100 * right / cells:.1f} %); "
      f"{known} of them with a (tile, cluster, T) seen in learning")
for tv in (8, 15, 16, 17, 24):
    sel = below & (T == tv)
    by_g = collections.defaultdict(collections.Counter)
    for g, s in zip(G[sel], S[sel]):
        by_g[g][s] += 1
    print(f"T = {tv}, {sel.sum()} cells below the cap; G: counts, most cells first: " +
          ' '.join(f"{g}:{'/'.join(str(x) for x, _ in by_g[g].most_common(3))}" for g in sorted(by_g)[::24]))
