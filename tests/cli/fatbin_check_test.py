#!/usr/bin/env python3
"""`mmaemu build-fatbin --check --require-manifest` passes on the tree as committed, and fails when
a kernel source changes without its fatbin, when a fatbin's bytes change, or when the manifest is
missing; `mmaemu check-dist --verify-manifest` passes, and fails on a changed fatbin (each checked
on a copy of kernels/). With cuobjdump (scripts/install-cuobjdump.sh; CI installs it), check-dist
also compares every fatbin's architectures with the manifest and fails on a manifest that claims
one more; with nvcc, `build-fatbin --release` refuses a kernel whose PTX holds a multiply-add.

Usage: fatbin_check_test.py MMAEMU SOURCE_DIR"""
import json, shutil, subprocess, sys, tempfile
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
    manifest_path = tree / "kernels" / "bin" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    for field, value in [("sha256", 12345), ("fatbin", ["x"]), ("sass", [90])]:
        bad = json.loads(json.dumps(manifest))
        bad["modules"]["v1"][field] = value
        manifest_path.write_text(json.dumps(bad))
        code, out = run("check-dist", "--verify-manifest", "--dist", tree / "kernels" / "bin")
        check(f"check-dist refuses a manifest whose {field} has the wrong type (exit 4, not 70)",
              code == 4 and f"modules.v1.{field}" in out, out)
    manifest_path.unlink()
    code, out = run("build-fatbin", "--check", "--require-manifest", "--source", tree)
    check("a missing manifest fails with --require-manifest", code == 1 and "missing" in out, out)

cuobjdump = root / ".tools" / "cuobjdump" / "bin" / "cuobjdump"
if shutil.which("cuobjdump") or cuobjdump.exists():
    code, out = run("check-dist", "--verify-manifest", "--require-cuobjdump", "--dist", root / "kernels" / "bin")
    check("cuobjdump lists the manifest's architectures for every fatbin", code == 0 and "(cuobjdump)" in out, out)
    with tempfile.TemporaryDirectory() as tmp:
        dist = Path(tmp) / "bin"
        shutil.copytree(root / "kernels" / "bin", dist)
        manifest = json.loads((dist / "manifest.json").read_text())
        manifest["modules"]["h1"]["sass"].append("sm_86")
        (dist / "manifest.json").write_text(json.dumps(manifest))
        code, out = run("check-dist", "--verify-manifest", "--dist", dist)
        check("a manifest claiming an architecture the fatbin lacks fails", code == 1 and "no SASS sm_86" in out, out)
else:
    print("SKIP architecture checks: no cuobjdump (scripts/install-cuobjdump.sh)")

nvcc = Path("/usr/local/cuda/bin/nvcc")
if nvcc.exists():
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp)
        shutil.copytree(root / "kernels" / "common", tree / "kernels" / "common")
        (tree / "kernels" / "fma").mkdir()
        (tree / "kernels" / "fma" / "spec.json").write_text(json.dumps(
            {"module": "fma", "sources": ["fma.cu"], "sass": ["sm_80"], "ptx": [], "nvcc_flags": ["-fmad=false"]}))
        (tree / "kernels" / "fma" / "fma.cu").write_text(
            'extern "C" __global__ void f(float* x) { x[0] = __fmaf_rn(x[1], x[2], x[3]); }\n')
        code, out = run("build-fatbin", "--release", "--skip-listings", "--source", tree, "--out", tree / "bin")
        check("a kernel whose PTX holds a multiply-add is refused", code != 0 and "multiply-add" in out
              and not (tree / "bin" / "fma.fatbin").exists(), out)
else:
    print("SKIP forbidden-PTX check: no nvcc")
sys.exit(0 if all(results) else 1)
