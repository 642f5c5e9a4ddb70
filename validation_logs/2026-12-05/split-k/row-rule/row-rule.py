#!/usr/bin/env python3
"""The workspace row rule's forms, cell by cell (this folder's README).

  row-rule.py LOG BEFORE ALWAYS TILE      (run in ..; LOG holdout-2027.safetensors[.xz])

BEFORE, ALWAYS and TILE: mmaemu binaries with the model before the rule, with the row below on every
step-8 grid, and with the row below only within ceil(m / 16) (the committed form). Over the log's
promoted, tensorwise, unbiased configurations at 1 MiB: first, per configuration, the cells each form
changed from BEFORE (cumulative: fixed, broke, still wrong; form 1 ALWAYS, form 2 TILE); then, for
the cells ALWAYS changed at bf16 and f32 outputs, whether the row below or the row above was right, by
whether a multiple of 16, 32, 64 or 128 lies between the row below and m, and by m minus the row below.
"""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from model_answers import answers, pair_of, read_sweep  # noqa: E402

log, bins = sys.argv[1], sys.argv[2:5]
_, keys, algorithms, t = read_sweep(log)
M, answer, key = t['m'], t['algorithm'], t['key']
stats = collections.Counter()
tiles = collections.defaultdict(lambda: [0, 0, 0])
for qi, q in enumerate(keys):
    if q.get('rowwise') or 'bias_dtype' in q or q['workspace_bytes'] != 1048576 or q['use_fast_accum']:
        continue
    rows = (key == qi).nonzero()[0]
    shapes = [f"{t['m'][i]}x{t['n'][i]}x{t['k'][i]}" for i in rows]
    before, *forms = [answers(b, q, shapes) for b in bins]
    for c, i in enumerate(rows):
        truth = algorithms[answer[i]]['splitk_num']
        r0 = before[c]['splits']
        for f, form in enumerate(forms, 1):
            r = form[c]['splits']
            if r != r0:
                stats[(f, 'fixed' if r == truth else ('broke' if r0 == truth else 'still wrong'))] += 1
        if q['out_dtype'] not in ('bf16', 'f32') or forms[0][c]['splits'] == r0:
            continue
        m = int(M[i])
        below = int(re.search(r'at m = (\d+)', forms[0][c]['basis']).group(1))
        right = 0 if forms[0][c]['splits'] == truth else 1 if r0 == truth else 2
        for tile in (16, 32, 64, 128):
            tiles[(tile, (below - 1) // tile != (m - 1) // tile)][right] += 1
        tiles[('m-below', m - below)][right] += 1
    print(q.get('sm_count_target') or 132, pair_of(q), q['out_dtype'], dict(stats), flush=True)
for k in sorted(tiles, key=str):
    print(k, 'below right, above right, neither:', tiles[k])
