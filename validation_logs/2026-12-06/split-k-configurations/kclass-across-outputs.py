"""K-class cells of the other outputs at 1 MiB (e4m3 x e4m3 -> f16, f32, e4m3; m, n <= 2048) predicted
from their own K = 128j grid (dt), from the bf16 K-class grid (bk), or combined (combo: dt where the
bf16 grids agree across the K classes, else bk; delta: dt plus the bf16 difference), against a
held-out log (H100 SXM):
  kclass-across-outputs.py FOLDER HOLDOUT NAME=GRID ...   (the command in the README)
"""
import sys, collections, numpy as np
sys.path.insert(0, 'validation_logs/2026-12-05/split-k')
from model_answers import read_sweep, pair_of
D = sys.argv[1]; HOLD = sys.argv[2]; names = dict(a.split('=') for a in sys.argv[3:])
def table(alg): return np.array([a['splitk_num'] for a in alg] + [1, -9, -9], dtype=np.int32)
grids = {}
def load_grid(path):
    about, keys, alg, t = read_sweep(path)
    tb = table(alg)
    out = {}
    for q, key in enumerate(keys):
        out[(pair_of(key), key['out_dtype'])] = (t['m'], t['n'], t['k'], tb[t['algorithm'][q]])
    return out
def look(g, m, n, k):
    M, N, Kx, S = g
    i = np.searchsorted(M, m); j = np.searchsorted(N, n); l = np.searchsorted(Kx, k)
    if i >= len(M) or j >= len(N) or l >= len(Kx) or M[i] != m or N[j] != n or Kx[l] != k: return None
    v = S[i, j, l]
    return None if v < 0 else int(v)
G = {}
for key, path in names.items():
    G[key] = load_grid(D + '/' + path + '.safetensors.xz')
    print(key, list(G[key].keys()), file=sys.stderr)
about, keys, alg, t = read_sweep(HOLD)
tb = table(alg)
res = collections.Counter()
for q, key in enumerate(keys):
    if key['workspace_bytes'] != 1048576 or key['use_fast_accum'] or key.get('sm_count_target') or key['rowwise']: continue
    cfg = (pair_of(key), key['out_dtype'])
    if cfg == ('e4m3xe4m3', 'bf16'): continue
    rows = np.nonzero(t['key'] == q)[0]
    truth = tb[t['algorithm']]
    for i in rows:
        m, n, K = int(t['m'][i]), int(t['n'][i]), int(t['k'][i])
        if m > 2048 or n > 2048 or K <= 5120 or truth[i] < 0: continue
        cls = 16 if K % 32 == 16 else 32 if K % 64 == 32 else 0
        if cls == 0: continue
        kind = 'a' if m % 8 == 0 else 'u'
        mp = 8 * ((m + 7) // 8) - (0 if kind == 'a' else 4)
        k128 = 128 * ((K + 127) // 128)
        dt = look(G['dt-' + kind][cfg], mp, n, k128) if cfg in G['dt-' + kind] else None
        bk = look(G[f'k{cls}-{kind}'][('e4m3xe4m3', 'bf16')], mp, n, K)
        b128 = look(G['k128-' + kind][('e4m3xe4m3', 'bf16')], mp, n, k128)
        if None in (dt, bk, b128): res['missing'] += 1; continue
        T = int(truth[i])
        res['cells'] += 1
        res['dt'] += dt == T; res['bk'] += bk == T
        res['combo'] += (dt if bk == b128 else bk) == T
        res['delta'] += max(1, dt + bk - b128) == T
        res['b128==bk'] += bk == b128
        res['dt==b128'] += dt == b128
print(dict(res))
