#!/usr/bin/env python3
"""Builds tests/data/h200-recorded-configs from a set that `mmaemu record` wrote on the H200 with
the configuration grid of scripts/device/issue4-evidence.sh (32x32x128, every operand pair,
output dtype, scale mode, bias and fast accumulation): the normal distribution for every
configuration and the special values for e4m3 x e4m3. Files are copied unchanged; the manifest
keeps the recorder's environment and lists only the copied recordings.

Usage: scripts/make-recorded-configs-subset.py RECORDED_SET_DIR
"""
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
source = Path(sys.argv[1])
target = ROOT / "tests" / "data" / "h200-recorded-configs"
manifest = json.loads((source / "manifest.json").read_text())
keep = [r for r in manifest["recordings"]
        if r["dist"] == "normal" or (r["dist"] == "special" and "e4m3xe4m3" in r["id"])]
if target.exists():
    shutil.rmtree(target)
target.mkdir(parents=True)
for r in keep:
    shutil.copyfile(source / r["file"], target / r["file"])
out = dict(manifest, recordings=keep, files={r["file"]: manifest["files"][r["file"]] for r in keep},
           source=manifest["source"] + "; subset made by scripts/make-recorded-configs-subset.py")
(target / "manifest.json").write_text(json.dumps(out, indent=1) + "\n")
print(f"{len(keep)} recordings, {sum(f.stat().st_size for f in target.iterdir())} bytes in {target}")
