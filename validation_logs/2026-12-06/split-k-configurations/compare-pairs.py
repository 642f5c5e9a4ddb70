"""How often the split count differs between operand pairs of one output dtype, cell by cell on the
1 MiB grids (132 SMs, promoted, tensorwise). Run from the repository root (python3-numpy):
  compare-pairs.py [FOLDER]   FOLDER: validation_logs/2026-12-03/split-k/ (H200, default) or the H100 SXM's
"""
import sys, numpy as np
sys.path.insert(0, 'validation_logs/2026-12-05/split-k')
from model_answers import read_sweep, pair_of
V = sys.argv[1] if len(sys.argv) > 1 else 'validation_logs/2026-12-03/split-k/'
def table(alg): return np.array([a['splitk_num'] for a in alg] + [1, -9, -9], dtype=np.int32)
def load(p):
    about, keys, alg, t = read_sweep(V + p + '.safetensors.xz')
    tb = table(alg)
    return {(pair_of(k), k['out_dtype']): tb[t['algorithm'][q]] for q, k in enumerate(keys)}
for kind in ('aligned', 'unaligned'):
    G = {}
    for tag in ('e4e4', 'e4e5', 'e5e4'):
        G.update(load(f'dense-dtypes-{tag}-{kind}'))
    base = load('dense-base' if kind == 'aligned' else 'dense-unaligned')
    G.update(base)
    print(kind, sorted(G))
    for out in ('bf16', 'f16', 'f32', 'f8_e4m3'):
        ref = G.get(('e4m3xe4m3', out))
        for pair in ('e4m3xe5m2', 'e5m2xe4m3'):
            S = G.get((pair, out))
            if S is None or ref is None: continue
            ok = (S > 0) & (ref > 0)
            print(f'  {out:8s} {pair} vs e4m3xe4m3: differ {((S != ref) & ok).sum()} of {ok.sum()} (split in either {(ok & ((S > 1) | (ref > 1))).sum()})')
