#!/usr/bin/env python3
"""Cuts a bundled subset out of a shared truth set (mmaemu-truth/1), so that a fresh clone without
../shared still runs the tests that need instruction-level truth. Only `mma_block` recordings are
cut (the first ROWS rows of each); the manifest names the source set and its manifest's sha256,
and every file gets its own sha256. Written by hand: safetensors slicing is a few lines here.

    scripts/make-truth-subset.py SOURCE_SET OUT_DIR --rows N [--ids ID,...] [--whole ID,...]
"""
import argparse
import hashlib
import json
import os
import shutil
import struct
import sys

parser = argparse.ArgumentParser()
parser.add_argument('source')
parser.add_argument('out')
parser.add_argument('--rows', type=int, required=True)
parser.add_argument('--ids', default='', help='recordings to keep (default: all)')
parser.add_argument('--whole', default='', help='recordings kept whole, every row')
args = parser.parse_args()

manifest_path = os.path.join(args.source, 'manifest.json')
manifest_bytes = open(manifest_path, 'rb').read()
manifest = json.loads(manifest_bytes)
keep = set(filter(None, args.ids.split(',')))
whole = set(filter(None, args.whole.split(',')))
tmp = args.out + '.tmp'
shutil.rmtree(tmp, ignore_errors=True)
os.makedirs(tmp)


def cut(src, dst, rows):
    with open(src, 'rb') as f:
        n = struct.unpack('<Q', f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out_header, blobs, offset = {}, [], 0
    for name, info in header.items():
        if name == '__metadata__':
            out_header[name] = info
            continue
        begin, end = info['data_offsets']
        shape = list(info['shape'])
        row_bytes = (end - begin) // shape[0]
        shape[0] = min(rows, shape[0])
        blob = data[begin:begin + row_bytes * shape[0]]
        out_header[name] = {'dtype': info['dtype'], 'shape': shape, 'data_offsets': [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(out_header, separators=(',', ':')).encode()
    text += b' ' * (-len(text) % 8)
    with open(dst, 'wb') as f:
        f.write(struct.pack('<Q', len(text)) + text + b''.join(blobs))


files, recordings = {}, []
for r in manifest['recordings']:
    if keep and r['id'] not in keep:
        continue
    if r.get('op') != 'mma_block':
        sys.exit(f"{r['id']}: only mma_block recordings are cut (op {r.get('op')})")
    dst = os.path.join(tmp, r['file'])
    rows = r['count'] if r['id'] in whole else args.rows
    cut(os.path.join(args.source, r['file']), dst, rows)
    files[r['file']] = hashlib.sha256(open(dst, 'rb').read()).hexdigest()
    r = dict(r, count=min(rows, r['count']))
    recordings.append(r)
for extra in ('LICENCE', 'LICENSE'):
    if os.path.exists(os.path.join(args.source, extra)):
        shutil.copy(os.path.join(args.source, extra), tmp)
out = {k: v for k, v in manifest.items() if k not in ('files', 'recordings')}
out['subset_of'] = {os.path.basename(os.path.normpath(args.source)): hashlib.sha256(manifest_bytes).hexdigest()}
out['subset'] = (f'the first {args.rows} rows of each recording' +
                 (f', every row of {", ".join(sorted(whole))}' if whole else '') + ' (scripts/make-truth-subset.py)')
out['files'] = files
out['recordings'] = recordings
with open(os.path.join(tmp, 'manifest.json'), 'w') as f:
    json.dump(out, f, indent=1)
    f.write('\n')
shutil.rmtree(args.out, ignore_errors=True)
os.rename(tmp, args.out)
print(f'{args.out}: {len(recordings)} recordings, {args.rows} rows each at most')
