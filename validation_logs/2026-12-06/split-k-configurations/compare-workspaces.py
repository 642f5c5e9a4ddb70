"""Whether a count below the workspace's cap at one workspace carries to a larger one: the same
cells of two grids of one configuration at two workspaces (H200: dense-base at 1 MiB and
dense-ws4 at 4 MiB). Run from the repository root (python3-numpy):
  compare-workspaces.py SMALL.safetensors.xz LARGE.safetensors.xz
"""
import sys, numpy as np
sys.path.insert(0, 'validation_logs/2026-12-05/split-k')
from model_answers import read_sweep
def load(p):
    about, keys, alg, t = read_sweep(p)
    idx = t['algorithm'][0]
    table = np.array([a['splitk_num'] for a in alg] + [1, -9, -9], dtype=np.int32)  # -3 ->1, -2,-1 -> -9
    return t['m'], t['n'], t['k'], table[idx], keys[0]['workspace_bytes']
a, b = sys.argv[1], sys.argv[2]
m1, n1, k1, s1, w1 = load(a)
m2, n2, k2, s2, w2 = load(b)
print(a, s1.shape, w1, b, s2.shape, w2)
# common cells
mi = np.intersect1d(m1, m2); ni = np.intersect1d(n1, n2); ki = np.intersect1d(k1, k2)
A = s1[np.searchsorted(m1, mi)][:, np.searchsorted(n1, ni)][:, :, np.searchsorted(k1, ki)]
B = s2[np.searchsorted(m2, mi)][:, np.searchsorted(n2, ni)][:, :, np.searchsorted(k2, ki)]
M = mi[:, None, None].astype(np.int64); N = ni[None, :, None].astype(np.int64); K = ki[None, None, :].astype(np.int64)
row = M * ((N + 31) // 32 * 32) * 4
cap1 = np.minimum((w1 - 16) // row, (K + 2559) // 2560 - 1)
cap2 = np.minimum((w2 - 16) // row, (K + 2559) // 2560 - 1)
ok = (A > 0) & (B > 0)
ok = ok & np.broadcast_to(True, A.shape)
print('cells both known', ok.sum())
same_cap = ok & (cap1 == cap2)
print('same cap: equal', (A == B)[same_cap].sum(), 'of', same_cap.sum())
diff = ok & (cap1 != cap2)
print('cap differs:', diff.sum(), 'equal', (A == B)[diff].sum())
un1 = diff & (A == 1)
print('cap differs, small-ws answer 1 slice:', un1.sum(), 'equal', (A == B)[un1].sum())
un2 = diff & (A > 1) & (A < cap1)
print('cap differs, small-ws answer 2 .. its cap - 1:', un2.sum(), 'equal', (A == B)[un2].sum())
at = diff & (A == cap1) & (A > 1)
print('cap differs, small answer at cap (>1):', at.sum(), 'equal', (A == B)[at].sum())
