"""What this folder's analysis scripts share: a sweep log read by the model builder's own reader
(scripts/split-k-model.py's read_sweep, .xz or not), and the model's answers for a log's shapes
in one configuration, asked of `mmaemu split-k --shapes`."""
import importlib.util
import json
import os
import subprocess

_builder = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'scripts', 'split-k-model.py')
_spec = importlib.util.spec_from_file_location('split_k_model', _builder)
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
read_sweep = _module.read_sweep  # (about, keys, algorithms, tensors)


def pair_of(key):
    return key['a_dtype'].replace('f8_', '') + 'x' + key['b_dtype'].replace('f8_', '')


def answers(mmaemu, key, shapes, chunk=2000):
    """The model's answer (split-k's JSON per shape) for each MxNxK of `shapes` in `key`'s configuration."""
    args = [mmaemu, 'split-k', '--workspace', str(key['workspace_bytes']), '--out-dtype', key['out_dtype'],
            '--pair', pair_of(key), '--sm-count', str(key.get('sm_count_target') or 132), '--json']
    if key['use_fast_accum']:
        args.append('--fast-accum')
    out = []
    for c in range(0, len(shapes), chunk):
        run = subprocess.run(args + ['--shapes', ','.join(shapes[c:c + chunk])], capture_output=True, text=True,
                             check=True)
        out += json.loads(run.stdout)['shapes']
    return out
