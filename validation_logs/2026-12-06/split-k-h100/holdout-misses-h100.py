#!/usr/bin/env python3
"""Where the H100 SXM model's predictions miss on holdout-2029, e4m3 x e4m3 -> OUTS, by kind of shape.

  holdout-misses-h100.py MMAEMU HOLDOUT.safetensors[.xz] [OUTS] [promoted|fast]

For each workspace of the log (tensorwise, no bias, 132 SMs), asks `mmaemu split-k --gpu "NVIDIA
H100 80GB HBM3"` for every shape and counts the predicted cells, and those whose count differs
from cuBLASLt's, by (m or n beyond 2048: 'big', else 'in'; K's alignment 16/32/64; m a multiple
of 8 'm8' or not 'mo'). Needs python3-numpy (the model builder's log reader).
"""
import collections
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '2026-12-05', 'split-k'))
from model_answers import pair_of, read_sweep  # noqa: E402


def answers(mmaemu, key, shapes, chunk=4000):
    args = [mmaemu, 'split-k', '--gpu', 'NVIDIA H100 80GB HBM3', '--workspace', str(key['workspace_bytes']),
            '--out-dtype', key['out_dtype'], '--pair', pair_of(key), '--json']
    if key['use_fast_accum']:
        args.append('--fast-accum')
    out = []
    for c in range(0, len(shapes), chunk):
        run = subprocess.run(args + ['--shapes', ','.join(shapes[c:c + chunk])], capture_output=True, text=True,
                             check=True)
        out += json.loads(run.stdout)['shapes']
    return out


mmaemu, log = sys.argv[1], sys.argv[2]
outs = (sys.argv[3] if len(sys.argv) > 3 else 'bf16').split(',')
fast = len(sys.argv) > 4 and sys.argv[4] == 'fast'
_, keys, algorithms, t = read_sweep(log)
M, N, K, answer, key = t['m'], t['n'], t['k'], t['algorithm'], t['key']
for q_index, q in enumerate(keys):
    if (q['out_dtype'] not in outs or pair_of(q) != 'e4m3xe4m3' or q['use_fast_accum'] != fast
            or q.get('sm_count_target') or q['workspace_bytes'] == 0 or q.get('rowwise') or 'bias_dtype' in q):
        continue
    rows = (key == q_index).nonzero()[0]
    shapes = [f'{M[i]}x{N[i]}x{K[i]}' for i in rows]
    wrong, predicted = collections.Counter(), collections.Counter()
    for i, r in zip(rows, answers(mmaemu, q, shapes)):
        truth = algorithms[answer[i]]['splitk_num'] if answer[i] >= 0 else None
        if not (r['basis'].startswith('predicted') or 'beyond every grid' in r['basis']):
            continue
        k = int(K[i])
        kind = ('big' if M[i] > 2048 or N[i] > 2048 else 'in', 16 if k % 32 else 32 if k % 64 else 64,
                'm8' if M[i] % 8 == 0 else 'mo')
        predicted[kind] += 1
        if truth is not None and r['splits'] != truth:
            wrong[kind] += 1
    print(f"{q['workspace_bytes'] >> 20} MiB, {q['out_dtype']}, {'fast' if fast else 'promoted'}: "
          f"{sum(wrong.values())} of {sum(predicted.values())} predicted cells wrong")
    for kind in sorted(predicted):
        print(f'    {kind}: {wrong[kind]} of {predicted[kind]}')
