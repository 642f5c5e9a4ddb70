#!/usr/bin/env python3
"""Where the split-K model's predictions miss on a held-out sweep log, by kind of shape.

  holdout-misses.py MMAEMU HOLDOUT.safetensors[.xz] [--outs bf16] [--pairs e4m3xe4m3]

For each configuration of the log with the given outputs and operand pairs (tensorwise, no bias),
asks `mmaemu split-k --shapes` for every shape and counts the cells whose count differs from
cuBLASLt's, by K's alignment (16: K = 16 mod 32; 32: K = 32 mod 64; 64: K a multiple of 64), by m
(a multiple of 8 or not) and by what the model's answer came from (a grid of the configuration, a
grid of another, beyond every grid). Needs python3-numpy (the model builder's log reader).
"""
import argparse
import collections

from model_answers import answers, pair_of, read_sweep

p = argparse.ArgumentParser()
p.add_argument("mmaemu")
p.add_argument("log")
p.add_argument("--outs", default="bf16")
p.add_argument("--pairs", default="e4m3xe4m3")
a = p.parse_args()
_, keys, algorithms, t = read_sweep(a.log)
M, K, answer, key = t["m"], t["k"], t["algorithm"], t["key"]
shapes_of = lambda rows: [f"{t['m'][i]}x{t['n'][i]}x{t['k'][i]}" for i in rows]
total = collections.Counter()
for q_index, q in enumerate(keys):
    if q.get("rowwise") or "bias_dtype" in q or q["out_dtype"] not in a.outs.split(",") \
            or pair_of(q) not in a.pairs.split(","):
        continue
    rows = (key == q_index).nonzero()[0]
    misses, predicted = collections.Counter(), 0
    for i, r in zip(rows, answers(a.mmaemu, q, shapes_of(rows))):
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
