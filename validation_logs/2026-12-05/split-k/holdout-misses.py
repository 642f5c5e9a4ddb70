#!/usr/bin/env python3
"""Where the split-K model's predictions miss on a held-out sweep log, by kind of shape.

  holdout-misses.py MMAEMU HOLDOUT.safetensors [--outs bf16] [--pairs e4m3xe4m3]

For each configuration of the log with the given outputs and operand pairs (tensorwise, no bias),
asks `mmaemu split-k --shapes` for every shape and counts the cells whose count differs from
cuBLASLt's, by K's alignment (16: K = 16 mod 32; 32: K = 32 mod 64; 64: K a multiple of 64), by m
(a multiple of 8 or not) and by what the model's answer came from (a grid of the configuration, a
grid of another, beyond every grid). Reads the log with numpy (mmaemu-sweep/2, list layout).
"""
import argparse, collections, json, struct, subprocess, sys

import numpy as np

p = argparse.ArgumentParser()
p.add_argument("mmaemu")
p.add_argument("log")
p.add_argument("--outs", default="bf16")
p.add_argument("--pairs", default="e4m3xe4m3")
a = p.parse_args()
raw = open(a.log, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
base = 8 + n


def column(name):
    t = header[name]
    b, e = t["data_offsets"]
    return np.frombuffer(raw[base + b:base + e], dtype={"I32": np.int32, "U16": np.uint16}[t["dtype"]])


meta = header["__metadata__"]
keys, algorithms = json.loads(meta["keys"]), json.loads(meta["algorithms"])
M, N, K, answer, key = column("m"), column("n"), column("k"), column("algorithm"), column("key")
pair_of = lambda q: q["a_dtype"].replace("f8_", "") + "x" + q["b_dtype"].replace("f8_", "")
total = collections.Counter()
for q_index, q in enumerate(keys):
    if q.get("rowwise") or "bias_dtype" in q or q["out_dtype"] not in a.outs.split(",") \
            or pair_of(q) not in a.pairs.split(","):
        continue
    rows = np.where(key == q_index)[0]
    shapes = [f"{M[i]}x{N[i]}x{K[i]}" for i in rows]
    args = [a.mmaemu, "split-k", "--workspace", str(q["workspace_bytes"]), "--out-dtype", q["out_dtype"],
            "--pair", pair_of(q), "--sm-count", str(q.get("sm_count_target") or 132), "--json"]
    if q["use_fast_accum"]:
        args.append("--fast-accum")
    answers = []
    for c in range(0, len(shapes), 2000):
        out = subprocess.run(args + ["--shapes", ",".join(shapes[c:c + 2000])], capture_output=True, text=True,
                             check=True)
        answers += json.loads(out.stdout)["shapes"]
    misses, predicted = collections.Counter(), 0
    for i, r in zip(rows, answers):
        truth = algorithms[answer[i]]["splitk_num"] if answer[i] >= 0 else None
        basis = r["basis"]
        if basis.startswith("predicted") or "beyond every grid" in basis:
            predicted += 1
        if truth is None or r["splits"] == truth:
            continue
        k = int(K[i])
        align = 16 if k % 32 else 32 if k % 64 else 64
        source = ("this configuration's grid" if "a grid of this configuration" in basis
                  else "beyond every grid" if "beyond every grid" in basis else "another configuration's grid")
        misses[(align, "m = 8b" if M[i] % 8 == 0 else "m other", source)] += 1
    name = (f"{q.get('sm_count_target') or 132} SMs, {q['workspace_bytes'] >> 20} MiB, "
            f"{'fast' if q['use_fast_accum'] else 'promoted'}, {pair_of(q)} -> {q['out_dtype']}")
    print(f"{name}: {sum(misses.values())} of {predicted} predicted cells wrong")
    for (align, mkind, source), count in sorted(misses.items(), key=lambda x: -x[1]):
        print(f"    K aligned to {align:2}, {mkind:7}, from {source}: {count}")
    total.update(misses)
print(f"all: {sum(total.values())} wrong; K aligned to 16 or 32: "
      f"{sum(v for (al, _, _), v in total.items() if al < 64)}")
sys.exit(0)
