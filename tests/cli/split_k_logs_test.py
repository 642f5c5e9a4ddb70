#!/usr/bin/env python3
"""The hopper profile's split-K models against every committed sweep log (validation_logs/*/split-k*/*.xz;
each log against the model of the GPU it was swept on, split-k --logs):
every cell cuBLASLt's heuristic was asked about must be answered from swept data or a rule (none
predicted) and equal what the heuristic chose. Logs named in the folder's held-out.json were kept
out of the model: there every swept or ruled answer must be right, and at least the committed
number of predictions (a floor, so that a worse predictor fails).

    split_k_logs_test.py MMAEMU SOURCE_DIR
"""
import glob
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile

exe, source = sys.argv[1], sys.argv[2]
logs = sorted(glob.glob(os.path.join(source, 'validation_logs', '*', 'split-k*', '*.safetensors.xz')))
if not logs:
    sys.exit('no committed sweep logs found')
held_out = {}
for listing in glob.glob(os.path.join(source, 'validation_logs', '*', 'split-k*', 'held-out.json')):
    for name, floor in json.load(open(listing))['logs'].items():
        held_out[os.path.join(os.path.dirname(listing), name)] = floor['predicted_equal_at_least']
failures = 0
with tempfile.TemporaryDirectory() as tmp:
    for xz in logs:
        # One log at a time: the dense ones are 200 MB each unpacked.
        path = os.path.join(tmp, os.path.basename(xz)[:-3])
        with lzma.open(xz) as src, open(path, 'wb') as dst:
            shutil.copyfileobj(src, dst, 1 << 24)
        run = subprocess.run([exe, 'split-k', '--logs', path], capture_output=True, text=True)
        os.remove(path)
        print(run.stdout.strip())
        m = re.search(r'swept or ruled (\d+)/(\d+) equal, predicted (\d+)/(\d+) equal', run.stdout)
        if xz in held_out:
            ok = m and m.group(1) == m.group(2) and int(m.group(3)) >= held_out[xz]
            print(f'held out: {m.group(3) if m else "?"} predictions right, at least {held_out[xz]} wanted')
        else:
            ok = run.returncode == 0 and m and m.group(1) == m.group(2) and m.group(4) == '0' and int(m.group(2)) > 0
        if not ok:
            failures += 1
            print(f'FAIL {xz}: rc {run.returncode}; {run.stderr.strip()}')
print(f'{len(logs) - failures}/{len(logs)} sweep logs answered exactly by the model')
sys.exit(1 if failures else 0)
