#!/usr/bin/env python3
"""Where cuBLASLt's split-K count changes along m (every m from 1 to 2048 at fixed n and k).

  m-every-changes.py validation_logs/2026-12-03/split-k/m-every.safetensors.xz

Counts, per workspace, the steps m - 1 -> m at which the count changes, by m mod 8: changes at
m = 0 and 1 mod 8 are the grids' two kinds of m (8b and the rest); others show the choice moving
within a group of eight. Needs python3-numpy (the model builder's log reader; grid layout).
"""
import collections
import sys

import numpy as np

from model_answers import read_sweep

_, keys, algorithms, t = read_sweep(sys.argv[1])
M, N, K = t["m"], t["n"], t["k"]
answers = t["algorithm"].reshape(len(keys), len(M), len(N), len(K))
splits = np.vectorize(lambda a: algorithms[a]["splitk_num"] if a >= 0 else -1)(answers)
for q, key in enumerate(keys):
    changes = collections.Counter()
    for j in range(len(N)):
        for l in range(len(K)):
            s = splits[q, :, j, l]
            for i in range(1, len(M)):
                if s[i] != s[i - 1]:
                    changes[int(M[i]) % 8] += 1
    steps = (len(M) - 1) * len(N) * len(K)
    print(f"{key['workspace_bytes']} bytes: {steps} steps of m; changes by m mod 8: "
          + ", ".join(f"{r}: {changes[r]}" for r in range(8)))
