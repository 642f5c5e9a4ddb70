"""The kinds of m: the H200 grids over m = 8b - 4 against those over m = 8b (1 and 4 MiB), and 4 MiB
unaligned predicted from 4 MiB aligned with or without the 1 MiB pair's difference. Run from the
repository root (python3-numpy).
"""
import sys, numpy as np
sys.path.insert(0, 'validation_logs/2026-12-05/split-k')
from model_answers import read_sweep
V = 'validation_logs/2026-12-03/split-k/'
def table(alg): return np.array([a['splitk_num'] for a in alg] + [1, -9, -9], dtype=np.int32)
def load(p):
    about, keys, alg, t = read_sweep(V + p + '.safetensors.xz')
    return t['m'], t['n'], t['k'], table(alg)[t['algorithm'][0]]
for ws, a_name, u_name in ((1, 'dense-base', 'dense-unaligned'), (4, 'dense-ws4', 'dense-ws4-unaligned')):
    ma, na, ka, A = load(a_name); mu, nu, ku, U = load(u_name)
    print(ws, 'MiB', A.shape, U.shape, ma[:2], mu[:2], ka[:2], ku[:2])
    # U rows m = 8b - 4 (b = 1..256): aligned row 8b is index b-1 in A; 8(b-1) index b-2
    rows = min(len(mu), len(ma))
    Uu = U[:rows]; Aup = A[:rows]; Adn = np.concatenate([A[:1] * 0 - 9, A[:rows - 1]])
    ok = (Uu > 0) & (Aup > 0) & (Adn > 0)
    spl = ok & ((Uu > 1) | (Aup > 1) | (Adn > 1))
    print('  cells', ok.sum(), 'split in any', spl.sum())
    print('  U == A(8b)   ', (Uu == Aup)[spl].sum(), ' U == A(8b-8)', (Uu == Adn)[spl].sum(), ' either', ((Uu == Aup) | (Uu == Adn))[spl].sum())
    # workspace-capped: row m=8b-4 allows possibly more slices than 8b
    M = mu[:rows, None, None].astype(np.int64); N = nu[None, :, None].astype(np.int64); K = ku[None, None, :].astype(np.int64)
    capU = np.minimum((ws * 1048576 - 16) // (M * ((N + 31) // 32 * 32) * 4), (K + 2559) // 2560 - 1)
    capA = np.minimum((ws * 1048576 - 16) // ((M + 4) * ((N + 31) // 32 * 32) * 4), (K + 2559) // 2560 - 1)
    same = spl & (capU == capA)
    print('  same cap: U == A(8b)', (Uu == Aup)[same].sum(), 'of', same.sum())
    diffc = spl & (capU != capA)
    print('  cap differs: U == A(8b)', (Uu == Aup)[diffc].sum(), ' U == A(8b-8)', (Uu == Adn)[diffc].sum(), 'of', diffc.sum())
print('--- predicting 4 MiB unaligned from 4 MiB aligned and the 1 MiB pair')
m1a, n1a, k1a, A1 = load('dense-base'); m1u, n1u, k1u, U1 = load('dense-unaligned')
m4a, n4a, k4a, A4 = load('dense-ws4'); m4u, n4u, k4u, U4 = load('dense-ws4-unaligned')
M = m4u[:, None, None].astype(np.int64); N = n4u[None, :, None].astype(np.int64); K = k4u[None, None, :].astype(np.int64)
row = M * ((N + 31) // 32 * 32) * 4
cap1 = np.minimum((1048576 - 16) // row, (K + 2559) // 2560 - 1); cap4 = np.minimum((4194304 - 16) // row, (K + 2559) // 2560 - 1)
pred = (cap4 > cap1) & (U4 > 0) & (A4 > 0) & (U1 > 0) & (A1 > 0)
print('cells predicted (4 MiB allows more than 1 MiB):', pred.sum(), 'split', (pred & (U4 > 1)).sum())
P1 = A4
P2 = np.where(U1 == A1, A4, np.clip(A4 + U1 - A1, 1, None))
P3 = np.where(U1 == A1, A4, U1)
for name, P in (('ws4 aligned', P1), ('delta', P2), ('1MiB-diff->1MiB unaligned', P3)):
    print(f'  {name:28s} right {(P == U4)[pred].sum()} of {pred.sum()}')
print('  1 MiB pair agrees on', (U1 == A1)[pred].sum(), '; where it agrees ws4 aligned right', ((P1 == U4) & (U1 == A1))[pred].sum(), '; where it disagrees', ((P1 == U4) & (U1 != A1))[pred].sum(), 'delta', ((P2 == U4) & (U1 != A1))[pred].sum())
