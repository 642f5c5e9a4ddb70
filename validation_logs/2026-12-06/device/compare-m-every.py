#!/usr/bin/env python3
"""The split count and algorithm configuration cuBLASLt's heuristic chose for the same questions on
two GPUs, cell by cell (two mmaemu-sweep/2 logs of the same grid).
Usage: compare-m-every.py H200_LOG OTHER_LOG   (needs python3-numpy)"""
import importlib.util, json, sys
from pathlib import Path
import numpy as np

root = Path(__file__).resolve().parents[3]
spec = importlib.util.spec_from_file_location('skm', root / 'scripts/split-k-model.py')
skm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(skm)
a, b = skm.read_sweep(sys.argv[1]), skm.read_sweep(sys.argv[2])
for x in (a, b):
    e = x[0]['environment']
    print(f"{e['gpu']}: {e['multiprocessors']} SMs, cuBLASLt {e['cublaslt']['version']}")
assert a[1] == b[1] and all((a[3][t] == b[3][t]).all() for t in ('m', 'n', 'k')), 'not the same grid'
sa, sb = skm.splits_of(a[2], a[3]['algorithm']), skm.splits_of(b[2], b[3]['algorithm'])
d = sa != sb
print(f'cells: {sa.size}; split count equal on {int((~d).sum())}, different on {int(d.sum())}')
print(f'  first splits, second does not: {int((d & (sa > 1) & (sb == 1)).sum())}; the reverse: '
      f'{int((d & (sa == 1) & (sb > 1)).sum())}; both split, other counts: {int((d & (sa > 1) & (sb > 1)).sum())}')


def configs(x):
    keys = [json.dumps({k: v for k, v in al.items() if k != 'id'}, sort_keys=True) for al in x[2]]
    return np.array(keys + ['none', 'none', 'none'], dtype=object)[x[3]['algorithm']]


print(f"algorithm configuration (tile, cluster, stages, swizzle, reduction, split) equal on "
      f"{int((configs(a) == configs(b)).sum())} of {sa.size}")
for w, key in enumerate(a[1]):
    print(f"  workspace {key['workspace_bytes']}: split count different on {int(d[w].sum())} of {d[w].size}")
m = a[3]['m']
for lo, hi in [(1, 64), (65, 256), (257, 1024), (1025, 2048)]:
    sel = (m >= lo) & (m <= hi)
    print(f'  m {lo}..{hi}: different on {int(d[:, sel].sum())} of {d[:, sel].size}')
