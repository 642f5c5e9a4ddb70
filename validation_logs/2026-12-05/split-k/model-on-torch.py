#!/usr/bin/env python3
"""The profile's split count for every call of a torch-recorded set, against what the H200 did:
    python3 model-on-torch.py MMAEMU torch-1 [FIND.json]     # in this folder
A call's count is known where the replay with the profile's count was bit-exact (that count, or one
giving the same bits), or where find-split-count.py found the counts that would have matched; the
rest is unknown. Prints how often the profile (this binary's) gives a count known to be right."""
import collections
import json
import lzma
import subprocess
import sys

exe, folder = sys.argv[1], sys.argv[2]
find = json.load(open(sys.argv[3])) if len(sys.argv) > 3 else {}
recs = json.load(lzma.open(f'{folder}/manifest.json.xz'))['recordings']
replay = {x['id']: x for x in json.load(lzma.open(f'{folder}/replay-profile.json.xz'))['recordings']}
groups = collections.defaultdict(list)
for r in recs:
    pair = r['a_dtype'][3:] + 'x' + r['b_dtype'][3:]
    bias = 'none' if not r['bias'] else ('bf16' if r['out_dtype'] == 'bf16' else 'f16')
    groups[(pair, r['out_dtype'], r['use_fast_accum'], bias, r['scale_a'] == 'scale_rows')].append(r)
right = wrong = unknown = 0
for (pair, out, fast, bias, rowwise), rs in sorted(groups.items()):
    args = [exe, 'split-k', '--json', '--shapes', ','.join(f"{r['m']}x{r['n']}x{r['k']}" for r in rs),
            '--pair', pair, '--out-dtype', out, '--bias', bias] + (['--fast-accum'] if fast else []) + \
           (['--rowwise'] if rowwise else [])
    answers = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)['shapes']
    for r, a in zip(rs, answers):
        x = replay[r['id']]
        if r['id'] in find:
            ok = a['splits'] in find[r['id']]['bit_exact_counts']
        elif x['verdict'] == 'bit-exact':
            ok = a['splits'] == x['split_k'] or None  # another count may give the same bits
        else:
            ok = None
        if ok is None:
            unknown += 1
        elif ok:
            right += 1
        else:
            wrong += 1
            print(f"  {r['id']} {pair} {out} {'fast' if fast else 'promoted'} bias={bias}: {a['splits']} ({a['basis']})")
print(f'{folder}: the profile\'s count known right on {right}, known wrong on {wrong}, unknown on {unknown} of {len(recs)}')
