#!/usr/bin/env python3
"""`mmaemu build-fatbin --check --require-manifest` passes on the tree as committed, and fails when
a kernel source changes without its fatbin, when a fatbin's bytes change, or when the manifest is
missing; `mmaemu check-dist --verify-manifest` passes, and fails on a changed fatbin (each checked
on a copy of kernels/).

Usage: fatbin_check_test.py MMAEMU SOURCE_DIR"""
import shutil, subprocess, sys, tempfile
from pathlib import Path

mmaemu, root = sys.argv[1], Path(sys.argv[2])
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))


def run(*args):
    r = subprocess.run([mmaemu, *map(str, args)], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


code, out = run("build-fatbin", "--check", "--require-manifest", "--source", root)
check("the committed fatbins are current", code == 0 and "all up to date" in out, out)
code, out = run("check-dist", "--verify-manifest", "--dist", root / "kernels" / "bin")
check("check-dist verifies the committed fatbins", code == 0, out)
with tempfile.TemporaryDirectory() as tmp:
    tree = Path(tmp)
    shutil.copytree(root / "kernels", tree / "kernels")
    source = tree / "kernels" / "v1" / "v1_scaled_mm.cu"
    text = source.read_text()
    source.write_text(text + "\n// an edit\n")
    code, out = run("build-fatbin", "--check", "--require-manifest", "--source", tree)
    check("a changed kernel source without its fatbin fails", code == 1 and "v1: sources changed" in out, out)
    source.write_text(text)
    header = tree / "kernels" / "common" / "output_convert.h"
    header.write_text(header.read_text() + "\n")
    code, out = run("build-fatbin", "--check", "--require-manifest", "--source", tree)
    check("a changed kernel header fails too", code == 1 and "stale" in out, out)
    fatbin = tree / "kernels" / "bin" / "probes.fatbin"
    data = bytearray(fatbin.read_bytes())
    data[100] ^= 1
    fatbin.write_bytes(data)
    code, out = run("check-dist", "--verify-manifest", "--dist", tree / "kernels" / "bin")
    check("check-dist fails on a changed fatbin", code == 1 and "probes" in out and "sha256" in out, out)
    (tree / "kernels" / "bin" / "manifest.json").unlink()
    code, out = run("build-fatbin", "--check", "--require-manifest", "--source", tree)
    check("a missing manifest fails with --require-manifest", code == 1 and "missing" in out, out)
sys.exit(0 if all(results) else 1)
