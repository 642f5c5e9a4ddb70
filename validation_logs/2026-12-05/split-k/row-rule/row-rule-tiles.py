import json, struct, subprocess, sys, collections, numpy as np
exec(open('/tmp/gen/cellcmp.py').read().split("bins = sys.argv[1:]")[0])
bins = ['/tmp/gen/mm_0', '/tmp/gen/mm_a']
st = collections.defaultdict(lambda: [0, 0, 0])
for qi, q in enumerate(keys):
    if q.get('rowwise') or 'bias_dtype' in q or q['workspace_bytes'] != 1048576 or q['use_fast_accum']: continue
    if q['out_dtype'] not in ('bf16', 'f32'): continue
    rows = np.where(KEY == qi)[0]
    shapes = [f"{M[i]}x{N[i]}x{K[i]}" for i in rows]
    res = []
    for b in bins:
        args = [b, 'split-k', '--workspace', str(q['workspace_bytes']), '--out-dtype', q['out_dtype'], '--pair', pair_of(q),
                '--sm-count', str(q.get('sm_count_target') or 132), '--json']
        out = []
        for c in range(0, len(shapes), 4000):
            out += json.loads(subprocess.run(args + ['--shapes', ','.join(shapes[c:c+4000])], capture_output=True, text=True, check=True).stdout)['shapes']
        res.append(out)
    for t, i in enumerate(rows):
        truth = algs[A[i]]['splitk_num']
        a0, a1 = res[0][t], res[1][t]
        if a0['splits'] == a1['splits']: continue
        m = int(M[i])
        import re
        above = int(re.search(r'at m = (\d+)', a0['basis']).group(1)); below = int(re.search(r'at m = (\d+)', a1['basis']).group(1))
        w = 'below' if a1['splits'] == truth else ('above' if a0['splits'] == truth else 'neither')
        for tile in (16, 32, 64, 128):
            crosses = (below - 1) // tile != (m - 1) // tile
            s = st[(tile, crosses)]; s[['below', 'above', 'neither'].index(w)] += 1
        s = st[('m-below', m - below)]; s[['below', 'above', 'neither'].index(w)] += 1
for k in sorted(st, key=str): print(k, 'below right, above right, neither:', st[k])
