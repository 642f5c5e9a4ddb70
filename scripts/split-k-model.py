#!/usr/bin/env python3
"""Builds a split-K model (mmaemu-split-k/1) from mmaemu sweep logs.

    scripts/split-k-model.py --out profiles/hopper-split-k.json --grids LOG... --points LOG... [--legacy SWEEP.json]

--grids: mmaemu-sweep/2 grid logs: one grid per configuration, stored as runs along k (a grid
over three lattices, --m FROM..TO/STEP ..., is also the basis of predictions between its points).
--points: mmaemu-sweep/2 logs of random shapes (--random): every cell stored as a point.
--legacy: an mmaemu-sweep/1 JSON log (the documented grid), stored as grids over its listed axes. A log's .xz form is read as well. Cells the heuristic was not asked (--max-seconds) are
left out; a grid keeps its rows of m that were asked in full. Cells a rule answers (sweep
--skip-ruled) hold one slice in a grid and are left out of points.

Maintainer tool: needs python3-numpy (Debian) besides the standard library.
"""
import argparse
import base64
import io
import json
import lzma
import os
import struct
import sys
import tarfile

import numpy as np

DTYPES = {'I32': np.int32, 'U32': np.uint32, 'F32': np.float32, 'U16': np.uint16, 'I64': np.int64, 'U8': np.uint8}


def read_sweep(path):
    raw = lzma.open(path).read() if path.endswith('.xz') else open(path, 'rb').read()
    n = struct.unpack('<Q', raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    data = memoryview(raw)[8 + n:]
    meta = header.pop('__metadata__')
    tensors = {}
    for name, info in header.items():
        b, e = info['data_offsets']
        tensors[name] = np.frombuffer(data[b:e], dtype=DTYPES[info['dtype']]).reshape(info['shape'])
    about = json.loads(meta['mmaemu'])
    if about.get('format') != 'mmaemu-sweep/2':
        sys.exit(f'{path}: not an mmaemu-sweep/2 log')
    return about, json.loads(meta['keys']), json.loads(meta['algorithms']), tensors


def config_of(key, about):
    sm = key.get('sm_count_target') or about['environment']['multiprocessors']
    return {'sm_count': sm, 'workspace_bytes': key['workspace_bytes'], 'rowwise': key['rowwise'],
            'use_fast_accum': key['use_fast_accum'], 'a_dtype': key['a_dtype'], 'b_dtype': key['b_dtype'],
            'out_dtype': key['out_dtype'], 'bias_dtype': key.get('bias_dtype')}


def varints(values):
    out = bytearray()
    for v in values:
        v = int(v)
        assert v >= 0
        while True:
            b = v & 0x7F
            v >>= 7
            out.append(b | (0x80 if v else 0))
            if not v:
                break
    return out


def runs(vector):
    """(length, value) pairs of a 1-D array."""
    change = np.nonzero(vector[1:] != vector[:-1])[0] + 1
    starts = np.concatenate(([0], change))
    ends = np.concatenate((change, [len(vector)]))
    return [(int(e - s), int(vector[s])) for s, e in zip(starts, ends)]


def splits_of(algorithms, index):
    # -1 (none returned) and -2 (not asked) map to 0; -3 (not asked: a rule gives one slice) to 1.
    table = np.array([a['splitk_num'] for a in algorithms] + [1, 0, 0], dtype=np.int32)
    return table[index]


def axis(values):
    values = [int(v) for v in values]
    step = values[1] - values[0] if len(values) > 1 else 1
    if all(b - a == step for a, b in zip(values, values[1:])):
        return [values[0], values[-1], step]
    return {'values': values}


def column_runs(splits):
    """The runs along k of every (m, n) column, as the model's base64 varint stream."""
    stream = bytearray()
    for i in range(splits.shape[0]):
        for j in range(splits.shape[1]):
            for length, value in runs(splits[i, j]):
                stream += varints((length, value))
    return base64.b64encode(bytes(stream)).decode()


def grid_entries(path):
    """One grid per configuration of a grid log; a row of m cut short by the deadline becomes points."""
    about, keys, algorithms, t = read_sweep(path)
    if about['layout'] != 'grid':
        sys.exit(f'{path}: --grids takes grid logs')
    name = path
    grids, points = [], []
    for q, key in enumerate(keys):
        index = t['algorithm'][q]
        asked_rows = np.nonzero((index != -2).all(axis=(1, 2)))[0]
        rows = int(asked_rows[-1]) + 1 if len(asked_rows) else 0
        if rows == 0 or not (index[:rows] != -2).all():
            sys.exit(f'{path}: configuration {q}: no complete row of m was asked')
        splits = splits_of(algorithms, index[:rows])
        evidence = (f'{name}: mmaemu sweep on the {about["environment"]["gpu"]} (commit {about["mmaemu_commit"]}), '
                    f'{int(index[:rows].size)} cells of {len(keys)} configuration(s)')
        config = config_of(key, about)
        grids.append({'config': config, 'm': axis(t['m'][:rows]), 'n': axis(t['n']), 'k': axis(t['k']),
                      'runs': column_runs(splits), 'evidence': evidence})
        if rows < len(t['m']):
            partial = splits_of(algorithms, index[rows])
            rest = {}
            for j, n in enumerate(t['n']):
                for l, k in enumerate(t['k']):
                    if index[rows, j, l] >= -1 and n % 16 == 0 and k % 16 == 0:
                        rest[(int(t['m'][rows]), int(n), int(k))] = {0: int(partial[j, l])}
            if rest:
                points.append(points_entry([config], rest, evidence + f'; {len(rest)} more in a row cut short'))
    return grids, points


def legacy_grids(path):
    log = json.load(open(path))
    grid = log['grid']
    out = []
    for table in log['tables']:
        key = {k: table[k] for k in ('workspace_bytes', 'rowwise', 'use_fast_accum', 'a_dtype', 'b_dtype', 'out_dtype')}
        splits = np.array(table['splits'], dtype=np.int32).reshape(len(grid['m']), len(grid['n']), len(grid['k']))
        out.append({'config': config_of(key, log), 'm': axis(grid['m']), 'n': axis(grid['n']), 'k': axis(grid['k']),
                    'runs': column_runs(splits),
                    'evidence': f'{path}: mmaemu sweep (documented grid) on the {log["environment"]["gpu"]}'})
    return out


def points_entry(configs, cells, evidence):
    """cells: {(m, n, k): {config index: splits}} -> a points entry."""
    shapes = sorted(cells)
    shape_stream = bytearray()
    split_stream = bytearray()
    for m, n, k in shapes:
        assert n % 16 == 0 and k % 16 == 0
        shape_stream += varints((m, n // 16, k // 16))
        row = np.zeros(len(configs), dtype=np.int32)
        for c, s in cells[(m, n, k)].items():
            row[c] = s
        for length, value in runs(row):
            split_stream += varints((length, min(value, 255)))
    return {'configs': configs, 'shapes': base64.b64encode(bytes(shape_stream)).decode(),
            'splits': base64.b64encode(bytes(split_stream)).decode(), 'evidence': evidence}


def point_cells(path):
    about, keys, algorithms, t = read_sweep(path)
    configs = [config_of(k, about) for k in keys]
    cells = {}
    if about['layout'] == 'list':
        splits = splits_of(algorithms, t['algorithm'])
        asked = t['algorithm'] >= -1
        for q, m, n, k, s, a in zip(t['key'], t['m'], t['n'], t['k'], splits, asked):
            if a and n % 16 == 0 and k % 16 == 0:
                cells.setdefault((int(m), int(n), int(k)), {})[int(q)] = int(s)
    else:
        splits = splits_of(algorithms, t['algorithm'])
        asked = t['algorithm'] >= -1
        for q in range(len(keys)):
            for i, m in enumerate(t['m']):
                for j, n in enumerate(t['n']):
                    if n % 16:
                        continue
                    for l, k in enumerate(t['k']):
                        if asked[q, i, j, l] and k % 16 == 0:
                            cells.setdefault((int(m), int(n), int(k)), {})[q] = int(splits[q, i, j, l])
    count = sum(len(v) for v in cells.values())
    evidence = (f'{path}: mmaemu sweep on the {about["environment"]["gpu"]} '
                f'(commit {about["mmaemu_commit"]}), {count} cells')
    return configs, cells, evidence


def write_model(path, data):
    """The model as JSON, or (OUT.tar.xz) as the one JSON file in a reproducible xz tarball: the
    form the tree keeps (a twelfth of the size; the build unpacks it, lib/CMakeLists.txt)."""
    tmp = path + '.tmp'
    if path.endswith('.tar.xz'):
        name = os.path.basename(path)[:-len('.tar.xz')] + '.json'
        info = tarfile.TarInfo(name)
        info.size, info.mtime, info.mode = len(data), 0, 0o644
        with tarfile.open(tmp, mode='w:xz', preset=9, format=tarfile.USTAR_FORMAT) as tar:
            tar.addfile(info, io.BytesIO(data))
    else:
        open(tmp, 'wb').write(data)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--out', required=True, help='the model: OUT.json, or OUT.tar.xz (the tree keeps that)')
    ap.add_argument('--grids', nargs='*', default=[])
    ap.add_argument('--points', nargs='*', default=[])
    ap.add_argument('--legacy', nargs='*', default=[])
    ap.add_argument('--base', required=True, help='a JSON file with the model fields other than grids and points')
    o = ap.parse_args()
    model = json.load(open(o.base))
    model['format'] = 'mmaemu-split-k/1'
    model['grids'] = []
    model['points'] = []
    for p in o.grids:
        grids, points = grid_entries(p)
        model['grids'] += grids
        model['points'] += points
    for p in o.legacy:
        model['grids'] += legacy_grids(p)
    for p in o.points:
        model['points'].append(points_entry(*point_cells(p)))
    text = json.dumps(model, indent=1) + '\n'
    write_model(o.out, text.encode())
    print(f'{o.out}: {len(model["grids"])} grids, {len(model["points"])} point sets, {len(text)} bytes')


if __name__ == '__main__':
    main()
