#!/usr/bin/env python3
"""For every recording a replay found not bit-exact, which split counts would have made it so, and
what cuBLASLt's heuristic answers for its shape and configuration when mmaemu asks it directly:

    python3 scripts/device/find-split-count.py --set DIR --replay-log LOG.json --mmaemu M --cublaslt LT --out OUT.json

Each failing recording is copied into a set of its own that lists it once per count 1..--most
(algorithm.splitk_num), replayed with --backend cuda; then `mmaemu sweep` asks the heuristic for
its shape at 1 and 32 MiB, fast accumulation off and on. Device tool (python3, the standard library).
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess

ap = argparse.ArgumentParser()
ap.add_argument('--set', required=True)
ap.add_argument('--replay-log', required=True)
ap.add_argument('--mmaemu', required=True)
ap.add_argument('--cublaslt', required=True)
ap.add_argument('--out', required=True)
ap.add_argument('--most', type=int, default=40)
ap.add_argument('--backend', default='cuda')
ap.add_argument('--work', default='/dev/shm/find-split')
args = ap.parse_args()

manifest = json.load(open(os.path.join(args.set, 'manifest.json')))
recs = {r['id']: r for r in manifest['recordings']}
failing = [x['id'] for x in json.load(open(args.replay_log))['recordings'] if x['verdict'] != 'bit-exact']
result = {}
for rid in failing:
    r = recs[rid]
    d = os.path.join(args.work, rid)
    os.makedirs(d, exist_ok=True)
    shutil.copy(os.path.join(args.set, r['file']), d)
    digest = hashlib.sha256(open(os.path.join(d, r['file']), 'rb').read()).hexdigest()
    most = min(args.most, (r['k'] + 31) // 32)
    variants = []
    for s in range(1, most + 1):
        v = dict(r, id=f'{rid}_s{s}', algorithm={'splitk_num': s})
        variants.append(v)
    m = dict(manifest, files={r['file']: digest}, recordings=variants, skipped=[])
    json.dump(m, open(os.path.join(d, 'manifest.json'), 'w'))
    log = d + '.replay.json'  # beside the set: replay refuses to write into a set it reads
    subprocess.run([args.mmaemu, 'replay', '--truth-dir', d, '--backend', args.backend, '--out', log],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    exact = [int(x['id'].rsplit('_s', 1)[1]) for x in json.load(open(log))['recordings'] if x['verdict'] == 'bit-exact']
    pair = r['a_dtype'][3:] + 'x' + r['b_dtype'][3:]
    bias = 'none' if not r['bias'] else ('bf16' if r['out_dtype'] == 'bf16' else 'f16')
    sweep_log = os.path.join(d, 'sweep.json')
    subprocess.run([args.mmaemu, 'sweep', '--cublaslt', args.cublaslt, '--out', sweep_log, '--m', str(r['m']),
                    '--n', str(r['n']), '--k', str(r['k']), '--pairs', pair, '--out-dtypes', r['out_dtype'],
                    '--biases', bias, '--fast-accum', 'off,on', '--scale-modes', 'tensorwise',
                    '--workspaces', '1048576,4194304,33554432'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    asked = json.load(open(sweep_log)) if os.path.exists(sweep_log) else None
    result[rid] = {'m': r['m'], 'n': r['n'], 'k': r['k'], 'pair': pair, 'out_dtype': r['out_dtype'],
                   'use_fast_accum': r['use_fast_accum'], 'bias': bias, 'kernels': r['kernels'],
                   'bit_exact_counts': exact, 'heuristic': asked}
    print(rid, 'bit-exact at', exact, flush=True)
json.dump(result, open(args.out, 'w'), indent=1)
