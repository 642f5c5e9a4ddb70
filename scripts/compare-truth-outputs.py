#!/usr/bin/env python3
"""Compares the recorded outputs of two truth sets call by call (same recording id): were the same
calls, made again, bitwise equal? Pure Python (no numpy).

Usage: compare-truth-outputs.py REFERENCE_SET OTHER_SET
"""
import json
import struct
import sys
from pathlib import Path


def tensor(path, name):
    raw = path.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    begin, end = header[name]["data_offsets"]
    return raw[8 + n + begin:8 + n + end]


ref_dir, other_dir = Path(sys.argv[1]), Path(sys.argv[2])
ref = {r["id"]: r for r in json.loads((ref_dir / "manifest.json").read_text())["recordings"]}
other = json.loads((other_dir / "manifest.json").read_text())
same = differ = 0
for r in other["recordings"]:
    if r["id"] not in ref:
        continue
    a = tensor(ref_dir / ref[r["id"]]["file"], ref[r["id"]]["out"])
    b = tensor(other_dir / r["file"], r["out"])
    if a == b:
        same += 1
    else:
        differ += 1
        print(f"DIFFER {r['id']}")
print(f"compare: {same}/{same + differ} calls bitwise equal to {ref_dir.name}")
sys.exit(0 if differ == 0 else 1)
