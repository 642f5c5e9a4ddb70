# Per-cell: which predictions each binary gets right, over the bf16 e4m3xe4m3 configurations (and mixed ones).
import json, struct, subprocess, sys, collections, numpy as np
raw = open('/tmp/h.st', 'rb').read()
n = struct.unpack('<Q', raw[:8])[0]; hdr = json.loads(raw[8:8+n]); base = 8 + n
def col(name):
    t = hdr[name]; b, e = t['data_offsets']
    return np.frombuffer(raw[base+b:base+e], dtype={'I32': np.int32, 'U16': np.uint16}[t['dtype']])
meta = hdr['__metadata__']; keys = json.loads(meta['keys']); algs = json.loads(meta['algorithms'])
M, N, K, A, KEY = col('m'), col('n'), col('k'), col('algorithm'), col('key')
pair_of = lambda q: q['a_dtype'].replace('f8_', '') + 'x' + q['b_dtype'].replace('f8_', '')
bins = sys.argv[1:]
stats = collections.Counter()
for qi, q in enumerate(keys):
    if q.get('rowwise') or 'bias_dtype' in q or q['workspace_bytes'] != 1048576 or q['use_fast_accum']: continue
    rows = np.where(KEY == qi)[0]
    shapes = [f"{M[i]}x{N[i]}x{K[i]}" for i in rows]
    res = []
    for b in bins:
        args = [b, 'split-k', '--workspace', str(q['workspace_bytes']), '--out-dtype', q['out_dtype'], '--pair', pair_of(q),
                '--sm-count', str(q.get('sm_count_target') or 132), '--json']
        out = []
        for c in range(0, len(shapes), 4000):
            out += [r['splits'] for r in json.loads(subprocess.run(args + ['--shapes', ','.join(shapes[c:c+4000])], capture_output=True, text=True, check=True).stdout)['shapes']]
        res.append(out)
    for t, i in enumerate(rows):
        truth = algs[A[i]]['splitk_num']
        r0 = res[0][t]
        for bi in range(1, len(bins)):
            r = res[bi][t]
            if r != r0:
                m = int(M[i])
                stats[(bi, 'fixed' if r == truth else ('broke' if r0 == truth else 'still wrong'))] += 1
    print(q.get('sm_count_target') or 132, pair_of(q), q['out_dtype'], dict(stats), flush=True)
