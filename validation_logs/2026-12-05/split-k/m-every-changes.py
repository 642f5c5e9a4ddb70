#!/usr/bin/env python3
"""Where cuBLASLt's split-K count changes along m (every m from 1 to 2048 at fixed n and k).

  xz -dkc validation_logs/2026-12-03/split-k/m-every.safetensors.xz > m-every.safetensors
  m-every-changes.py m-every.safetensors

Counts, per workspace, the steps m - 1 -> m at which the count changes, by m mod 8: changes at
m = 0 and 1 mod 8 are the grids' two kinds of m (8b and the rest); others show the choice moving
within a group of eight. Reads the log with numpy (mmaemu-sweep/2, grid layout).
"""
import collections, json, struct, sys

import numpy as np

raw = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
base = 8 + n


def column(name):
    t = header[name]
    b, e = t["data_offsets"]
    return np.frombuffer(raw[base + b:base + e], dtype=np.int32)


meta = header["__metadata__"]
keys, algorithms = json.loads(meta["keys"]), json.loads(meta["algorithms"])
M, N, K = column("m"), column("n"), column("k")
answers = column("algorithm").reshape(len(keys), len(M), len(N), len(K))
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
