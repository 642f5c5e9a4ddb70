"""How often the split count differs between output dtypes (e4m3 x e4m3, 1 MiB, 132 SMs, promoted,
m = 8b) on the H200's grids, and whether a shift of K by one or two 128-blocks explains it. Run
from the repository root (python3-numpy).
"""
import sys, collections, numpy as np
sys.path.insert(0, 'validation_logs/2026-12-05/split-k')
from model_answers import read_sweep, pair_of
V = 'validation_logs/2026-12-03/split-k/'
def table(alg): return np.array([a['splitk_num'] for a in alg] + [1, -9, -9], dtype=np.int32)
def load(p):
    about, keys, alg, t = read_sweep(V + p + '.safetensors.xz')
    tb = table(alg)
    return {(pair_of(k), k['out_dtype']): tb[t['algorithm'][q]] for q, k in enumerate(keys)}, t
base, tb_ = load('dense-base')
dt, tdt = load('dense-dtypes-e4e4-aligned')
print('axes equal', all(np.array_equal(tb_[a], tdt[a]) for a in 'mnk'), tdt['m'][:3], tdt['m'][-1], tdt['n'][-1], tdt['k'][-1])
B = base[('e4m3xe4m3', 'bf16')]
for key, S in dt.items():
    ok = (B > 0) & (S > 0)
    d = ok & (B != S)
    print(key, 'known', ok.sum(), 'differ', d.sum(), 'split-in-either', (ok & ((B > 1) | (S > 1))).sum())
    # is it a k-shift? for differing cells, does S equal B at k +- 1..3 steps?
    for sh in (-2, -1, 1, 2):
        Bs = np.roll(B, -sh, axis=2)
        print('   shift', sh, 'explains', (d & (Bs == S)).sum())
    # where: by m, n
    mi, ni, ki = np.nonzero(d)
    print('   m of diffs (quantiles)', np.percentile(tdt['m'][mi], [5, 50, 95]), 'n', np.percentile(tdt['n'][ni], [5, 50, 95]), 'k', np.percentile(tdt['k'][ki], [5, 50, 95]))
    c = collections.Counter(zip(B[d].tolist(), S[d].tolist()))
    print('   (bf16, this) pairs', c.most_common(8))
