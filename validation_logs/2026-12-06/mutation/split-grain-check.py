#!/usr/bin/env python3
"""Why 'split-K slices in multiples of 256 instead of 128' survives: for every split recording of
the given sets (split count from `mmaemu replay --json`, K from the manifest), whether slices cut
in 256-multiples fall where the 128-multiples do.  Usage: split-grain-check.py MMAEMU SET..."""
import json, math, subprocess, sys

def cuts(k, s, grain):
    per = math.ceil(math.ceil(k / grain) / s) * grain
    return [min(k, per * i) for i in range(1, s)]

same = differ = 0
for d in sys.argv[2:]:
    m = json.load(open(f"{d}/manifest.json"))
    ks = {r["id"]: r["k"] for r in m["recordings"] if r.get("op") == "scaled_mm"}
    log = json.loads(subprocess.run([sys.argv[1], "replay", "--truth-dir", d, "--json"], capture_output=True,
                                    text=True).stdout)
    for r in log["recordings"]:
        if r.get("split_k", 1) > 1 and r["id"] in ks:
            k, s = ks[r["id"]], r["split_k"]
            if cuts(k, s, 128) == cuts(k, s, 256):
                same += 1
            else:
                differ += 1
                print(f"{d.split('/')[-1]}/{r['id']}: K {k} in {s}: {cuts(k, s, 128)} vs {cuts(k, s, 256)}")
print(f"split recordings: {same} cut alike by both grains, {differ} cut differently")
