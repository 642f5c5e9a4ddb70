#!/usr/bin/env python3
"""scripts/build-fatbin.py --check --require-manifest passes on the tree as committed, and fails
when a kernel source changes without its fatbin, when a fatbin's bytes change, or when the
manifest is missing (each checked on a copy of kernels/ and scripts/)."""
import shutil, subprocess, sys, tempfile
from pathlib import Path

root = Path(sys.argv[1])
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))


def run_check(tree):
    r = subprocess.run([sys.executable, tree / "scripts" / "build-fatbin.py", "--check", "--require-manifest"],
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


code, out = run_check(root)
check("the committed fatbins are current", code == 0, out)
with tempfile.TemporaryDirectory() as tmp:
    tree = Path(tmp)
    for part in ("kernels", "scripts"):
        shutil.copytree(root / part, tree / part)
    source = tree / "kernels" / "probes" / "mma_probes.cu"
    text = source.read_text()
    source.write_text(text + "\n// an edit\n")
    code, out = run_check(tree)
    check("a changed kernel source without its fatbin fails", code != 0 and "stale" in out, out)
    source.write_text(text)
    fatbin = tree / "kernels" / "bin" / "probes.fatbin"
    data = bytearray(fatbin.read_bytes())
    data[100] ^= 1
    fatbin.write_bytes(data)
    code, out = run_check(tree)
    check("a changed fatbin fails", code != 0 and "sha256" in out, out)
    (tree / "kernels" / "bin" / "manifest.json").unlink()
    code, out = run_check(tree)
    check("a missing manifest fails with --require-manifest", code != 0 and "missing" in out, out)
sys.exit(0 if all(results) else 1)
