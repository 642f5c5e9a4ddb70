#!/usr/bin/env python3
"""Summarises a torch-recorded set's replays (scripts/device/split-k-learn.sh part `torch`):
    python3 torch-summary.py torch-1 [more folders]   # in this folder; prints the summary
Each folder holds manifest.json.xz (the recordings: shapes, configurations, kernel names) and
replay-recording.json.xz / replay-profile.json.xz (`mmaemu replay --backend cuda`, with the
profile's counts weighed against the kernel names, and with the profile's alone)."""
import collections
import json
import lzma
import sys


def load(path):
    return json.load(lzma.open(path))


for folder in sys.argv[1:]:
    manifest = load(f'{folder}/manifest.json.xz')
    recs = {r['id']: r for r in manifest['recordings']}
    print(f'{folder}: {len(recs)} recorded ({manifest["source"]}), {len(manifest["skipped"])} refused by torch')
    for mode in ('recording', 'profile'):
        rep = load(f'{folder}/replay-{mode}.json.xz')['recordings']
        exact = sum(x['verdict'] == 'bit-exact' for x in rep)
        split = sum(any('splitK' in k for k in recs[x['id']]['kernels']) for x in rep)
        inside = sum(x['inside_envelope'] for x in rep)
        told = sum('kernels' in x['split_k_source'] for x in rep)
        print(f'  --split-k-from {mode}: {exact}/{len(rep)} bit-exact; {split} split by cuBLASLt (kernel names); '
              f'{inside} inside the envelope; {told} counts set by the kernel names')
        by = collections.Counter()
        for x in rep:
            r = recs[x['id']]
            key = (r['a_dtype'][3:] + 'x' + r['b_dtype'][3:], r['out_dtype'], 'fast' if r['use_fast_accum'] else 'promoted',
                   'K%128=' + ('0' if r['k'] % 128 == 0 else '16mod32' if r['k'] % 32 == 16 else '32mod64' if r['k'] % 64 == 32 else '64mod128'))
            by[key + (x['verdict'],)] += 1
        for x in rep:
            if x['verdict'] != 'bit-exact':
                r = recs[x['id']]
                print(f'    {x["id"]}: {r["a_dtype"]}x{r["b_dtype"]} -> {r["out_dtype"]}, '
                      f'{"fast" if r["use_fast_accum"] else "promoted"}{", bias" if r["bias"] else ""}, count {x["split_k"]}, '
                      f'K mod 128 = {r["k"] % 128}; kernel {r["kernels"][0]}')
