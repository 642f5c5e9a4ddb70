# Which recordings lost the last 16 elements of K: for every recording replayed under slice rule 0
# (never drop) and rule 5 (when K = 16 mod 128 and ceil(K/128) - 1 divides by the splits: the
# whole 128-blocks in equal slices, the last 16 elements not added) of slice-rules.patch, which of
# the two gave the recorded bits, beside the final rule (rule 5 at >= 17 splits,
# kernels/common/k_slices.h). python3 tail-table.py  (run in this folder)
import glob, json, lzma, os

def load(path):
    return json.load(lzma.open(path) if path.endswith('.xz') else open(path))

def find(name):
    for p in (name, name + '.xz'):
        if os.path.exists(p): return p

rows, agree, total = [], 0, 0
for r0 in sorted(glob.glob('rules/replay-*-rule0.json*')):
    r5 = find(r0.replace('rule0', 'rule5').replace('.xz', ''))
    for a, b in zip(load(r0)['recordings'], load(r5)['recordings']):
        k = int(a['id'].split('_')[1].split('x')[2]); s = a['recorded_split_k']; g = -(-k // 128)
        if k % 128 != 16 or s < 2: continue
        ok0, ok5 = a['verdict'] == 'bit-exact', b['verdict'] == 'bit-exact'
        seen = 'both' if ok0 and ok5 else 'kept' if ok0 else 'dropped' if ok5 else 'neither'
        rule = 'dropped' if s >= 17 and (g - 1) % s == 0 else 'kept'
        total += 1; agree += seen in (rule, 'both')
        rows.append((a['id'][4:], k, s, (g - 1) % s, seen, rule))
print('%-62s %7s %3s %8s %8s %8s' % ('recording', 'K', 's', '(G-1)%s', 'hardware', 'rule'))
for r in rows: print('%-62s %7d %3d %8d %8s %8s' % r)
print('K = 16 mod 128, split: %d recordings, the rule agrees with the hardware on %d' % (total, agree))
