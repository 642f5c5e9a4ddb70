#!/usr/bin/env python3
"""Records random torch._scaled_mm calls on a GPU as an mmaemu-truth/1 set, the way the project's
hardware truth is taken: torch's own cuBLASLt at its default workspace, the kernels each call
launched named by torch.profiler (a splitKreduce_kernel when cuBLASLt split K), no split count.

    python3 scripts/device/torch-record.py --out DIR --calls N --seed S [--split-region]

--split-region draws most shapes where cuBLASLt may split K (m up to 128, n up to 512, K from
5136 to 65536), the rest anywhere up to 1024 x 1024 x 8192. Shapes are off the sweep grids: m any,
n and K any multiples of 16. Every configuration torch takes: the three operand pairs, bf16, f16,
f32 and f8_e4m3 outputs, fast accumulation on and off, a bias of the output's dtype (bf16, f16),
tensorwise and rowwise scales. A call torch refuses is listed in `skipped`.

Device tool: needs torch (the device image's python3). The safetensors files are written by hand
(an 8-byte header length, a JSON header, the raw bytes): the safetensors package is not assumed.
"""
import argparse
import hashlib
import json
import os
import random
import struct
import time

import torch

DT = {'f8_e4m3': torch.float8_e4m3fn, 'f8_e5m2': torch.float8_e5m2, 'bf16': torch.bfloat16,
      'f16': torch.float16, 'f32': torch.float32}
ST = {torch.float8_e4m3fn: 'F8_E4M3', torch.float8_e5m2: 'F8_E5M2', torch.bfloat16: 'BF16',
      torch.float16: 'F16', torch.float32: 'F32'}
PAIRS = [('f8_e4m3', 'f8_e4m3'), ('f8_e4m3', 'f8_e5m2'), ('f8_e5m2', 'f8_e4m3')]


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        raw = t.detach().contiguous().cpu().view(torch.uint8).numpy().tobytes()
        header[name] = {'dtype': ST[t.dtype], 'shape': list(t.shape), 'data_offsets': [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(',', ':')).encode()
    text += b' ' * (-len(text) % 8)
    tmp = path + '.tmp'
    with open(tmp, 'wb') as f:
        f.write(struct.pack('<Q', len(text)) + text)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)


def draw_shape(rng, split_region):
    if split_region and rng.random() < 0.8:
        return rng.randint(1, 128), 16 * rng.randint(1, 32), 16 * rng.randint(321, 4096)
    return rng.randint(1, 1024), 16 * rng.randint(1, 64), 16 * rng.randint(1, 512)


def draw_config(rng):
    a_dt, b_dt = rng.choice(PAIRS)
    out = rng.choice(['bf16', 'f16', 'f32', 'f8_e4m3'])
    rowwise = rng.random() < 0.15
    bias = out in ('bf16', 'f16') and rng.random() < 0.3
    return a_dt, b_dt, out, rng.random() < 0.5, rowwise, bias


def kernels_of(fn):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        out = fn()
        torch.cuda.synchronize()
    names = [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    return out, [n for n in names if 'Memcpy' not in n and 'Memset' not in n]


def record_one(rng, index, split_region, out_dir):
    m, n, k = draw_shape(rng, split_region)
    a_dt, b_dt, out_dt, fast, rowwise, with_bias = draw_config(rng)
    gen = torch.Generator(device='cuda').manual_seed(rng.randrange(1 << 31))
    a = torch.randn(m, k, device='cuda', generator=gen).to(DT[a_dt])
    b = torch.randn(n, k, device='cuda', generator=gen).to(DT[b_dt])
    if rowwise:
        sa = torch.rand(m, 1, device='cuda', generator=gen) * 2 + 0.01
        sb = torch.rand(1, n, device='cuda', generator=gen) * 2 + 0.01
    else:
        sa = torch.tensor(round(0.01 + 2 * rng.random(), 4), device='cuda')
        sb = torch.tensor(round(0.01 + 2 * rng.random(), 4), device='cuda')
    bias = torch.randn(n, device='cuda', generator=gen).to(DT[out_dt]) if with_bias else None
    cid = f'torch_{index:04d}_{m}x{n}x{k}'

    def call():
        return torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb, bias=bias, out_dtype=DT[out_dt],
                                use_fast_accum=fast)

    try:
        out, kernels = kernels_of(call)
        again = call()
        torch.cuda.synchronize()
    except Exception as e:  # torch refused the combination
        return None, f'{cid} {a_dt}x{b_dt}->{out_dt} fast={fast} rowwise={rowwise} bias={with_bias}: {str(e).splitlines()[0]}'
    tensors = {'a': a, 'b': b, 'out': out}
    if rowwise:
        tensors['scale_rows'] = sa.float()
        tensors['scale_cols'] = sb.float()
    if bias is not None:
        tensors['bias'] = bias
    fname = cid + '.safetensors'
    write_safetensors(os.path.join(out_dir, fname), tensors)
    rec = {'id': cid, 'op': 'scaled_mm', 'file': fname, 'm': m, 'n': n, 'k': k, 'a': 'a', 'a_dtype': a_dt,
           'b': 'b', 'b_dtype': b_dt, 'b_layout': 'n_by_k_rowmajor',
           'scale_a': 'scale_rows' if rowwise else float(sa.item()),
           'scale_b': 'scale_cols' if rowwise else float(sb.item()),
           'bias': 'bias' if bias is not None else None, 'out': 'out', 'out_dtype': out_dt,
           'use_fast_accum': fast, 'deterministic': bool(torch.equal(out.view(torch.uint8), again.view(torch.uint8))),
           'kernels': kernels, 'dist': 'normal', 'seed': index}
    return rec, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', required=True)
    ap.add_argument('--calls', type=int, default=100)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--split-region', action='store_true')
    ap.add_argument('--max-seconds', type=float, default=1e9)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(args.seed)
    start = time.time()
    recordings, skipped = [], []
    for i in range(args.calls):
        if time.time() - start > args.max_seconds:
            break
        rec, why = record_one(rng, i, args.split_region, args.out)
        (recordings.append(rec) if rec else skipped.append(why))
    props = torch.cuda.get_device_properties(0)
    files = {}
    for r in recordings:
        with open(os.path.join(args.out, r['file']), 'rb') as f:
            files[r['file']] = hashlib.sha256(f.read()).hexdigest()
    manifest = {'format': 'mmaemu-truth/1', 'source': 'torch._scaled_mm (scripts/device/torch-record.py, seed %d)' % args.seed,
                'environment': {'gpu': props.name, 'sm': f'{props.major}.{props.minor}',
                                'multiprocessors': props.multi_processor_count, 'torch': torch.__version__,
                                'cuda_runtime': torch.version.cuda, 'recorded': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())},
                'files': files, 'recordings': recordings, 'skipped': skipped}
    with open(os.path.join(args.out, 'manifest.json.tmp'), 'w') as f:
        json.dump(manifest, f, indent=1)
    os.replace(os.path.join(args.out, 'manifest.json.tmp'), os.path.join(args.out, 'manifest.json'))
    print(f'{len(recordings)} recorded, {len(skipped)} skipped, {time.time() - start:.1f} s')


if __name__ == '__main__':
    main()
