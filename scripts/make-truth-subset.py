#!/usr/bin/env python3
"""Builds tests/data/h200-subset: whole recording files copied unchanged from the shared truth
sets, with a manifest listing their recordings and sha256 (format mmaemu-truth/1).

Usage: scripts/make-truth-subset.py [SHARED_TRUTH_DIR]
"""
import hashlib
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
shared = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "truth"
# Every configuration (dtypes, fast accumulation, outputs, tensorwise and rowwise scales, bias),
# every distribution, K = 32 to 32768, the special values, and split-K (16x64x32768 in 12 slices;
# 128x128x8192 in 3 slices tensorwise, unsplit rowwise); a few MB, replayed in seconds.
PICK = {
    "h200-dev": ["dev_001", "dev_002", "dev_003", "dev_004", "dev_013", "dev_022", "dev_024",
                 "dev_027", "dev_028", "dev_034"],
    "h200-epilogue-dev": ["epi_dev_003", "epi_dev_004", "epi_dev_005"],
}
out = ROOT / "tests" / "data" / "h200-subset"
out.mkdir(parents=True, exist_ok=True)
manifest = None
for set_name, stems in PICK.items():
    source = json.loads((shared / set_name / "manifest.json").read_text())
    if manifest is None:
        manifest = {"format": "mmaemu-truth/1", "source": source["source"],
                    "environment": source["environment"],
                    "subset_of": {}, "files": {}, "recordings": [], "skipped": []}
    manifest["subset_of"][set_name] = hashlib.sha256(
        (shared / set_name / "manifest.json").read_bytes()).hexdigest()
    for stem in stems:
        name = stem + ".safetensors"
        data = (shared / set_name / name).read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        assert digest == source["files"][name], f"{set_name}/{name}: hash differs from its manifest"
        shutil.copyfile(shared / set_name / name, out / name)
        manifest["files"][name] = digest
        manifest["recordings"] += [r for r in source["recordings"] if r["file"] == name]
(out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
print(f"{out}: {len(manifest['files'])} files, {len(manifest['recordings'])} recordings")
