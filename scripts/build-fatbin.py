#!/usr/bin/env python3
"""Builds the CUDA kernel modules into kernels/bin/ and checks them.

  scripts/build-fatbin.py --release [--out kernels/bin] [--modules probes,...]
      builds each module named by kernels/<module>/spec.json with the pinned nvcc, writes
      <module>.fatbin, the ptxas resource report (build_report.json) and manifest.json
      (module, fatbin sha256, source_sha256 over its sources, nvcc version, architectures).
  scripts/build-fatbin.py --check [--require-manifest]
      without nvcc: every module's sources hash to the manifest's source_sha256 (the fatbin is not
      stale) and every fatbin's sha256 equals the manifest's.

Refuses an nvcc other than the pinned one unless --any-nvcc is given; refuses a module whose
ptxas report shows spill bytes or a stack frame.
"""
import argparse, hashlib, json, os, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PINNED_NVCC = "13.0"


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()


def source_sha256(module, spec):
    h = hashlib.sha256()
    for name in sorted(spec["sources"] + spec.get("headers", [])) + ["spec.json"]:
        with open(os.path.join(ROOT, "kernels", module, name), "rb") as f:
            h.update(name.encode() + b"\0" + f.read())
    return h.hexdigest()


def modules_in(root):
    out = []
    for name in sorted(os.listdir(os.path.join(root, "kernels"))):
        if os.path.isfile(os.path.join(root, "kernels", name, "spec.json")):
            out.append(name)
    return out


def load_spec(module):
    with open(os.path.join(ROOT, "kernels", module, "spec.json")) as f:
        return json.load(f)


def nvcc_version(nvcc):
    text = subprocess.run([nvcc, "--version"], capture_output=True, text=True, check=True).stdout
    m = re.search(r"release (\d+\.\d+), V([\d.]+)", text)
    return (m.group(1), m.group(2)) if m else ("?", "?")


def build(args):
    nvcc = args.nvcc
    release, full = nvcc_version(nvcc)
    if release != PINNED_NVCC and not args.any_nvcc:
        sys.exit(f"build-fatbin: nvcc {release} is not the pinned {PINNED_NVCC} (pass --any-nvcc to build anyway)")
    os.makedirs(args.out, exist_ok=True)
    manifest_path = os.path.join(args.out, "manifest.json")
    manifest = {"format": "mmaemu-kernels/1", "modules": {}}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
    report = {}
    modules = args.modules.split(",") if args.modules else modules_in(ROOT)
    for module in modules:
        spec = load_spec(module)
        gencode = [f"-gencode=arch=compute_{a[3:]},code={a}" for a in spec["sass"]]
        gencode += [f"-gencode=arch={p},code={p}" for p in spec.get("ptx", [])]
        sources = [os.path.join(ROOT, "kernels", module, s) for s in spec["sources"]]
        out = os.path.join(args.out, module + ".fatbin")
        with tempfile.TemporaryDirectory() as tmp:
            tmp_out = os.path.join(tmp, module + ".fatbin")
            flags = spec.get("nvcc_flags", [])
            r = subprocess.run([nvcc, "-fatbin", "-O3", "-Xptxas", "-v", *flags, *gencode, "-o", tmp_out, *sources],
                               capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"build-fatbin: {module}: nvcc failed:\n{r.stderr}")
            resources = parse_ptxas(r.stderr)
            bad = [f"{k}: {v}" for k, v in resources.items() if v.get("spill_bytes", 0) or v.get("stack_bytes", 0)]
            if bad:
                sys.exit(f"build-fatbin: {module}: spills or stack frames: " + "; ".join(bad))
            os.replace(tmp_out, out)
        report[module] = resources
        manifest["modules"][module] = {
            "fatbin": module + ".fatbin", "sha256": sha256(out), "source_sha256": source_sha256(module, spec),
            "sources": spec["sources"], "sass": spec["sass"], "ptx": spec.get("ptx", []),
            "nvcc": full, "nvcc_flags": spec.get("nvcc_flags", []), "bytes": os.path.getsize(out)}
        print(f"build-fatbin: {module}: {os.path.getsize(out)} bytes, {len(resources)} kernel images")
    write_json(os.path.join(args.out, "build_report.json"), report)
    write_json(manifest_path, manifest)


def parse_ptxas(text):
    """Per (kernel, arch): registers, spill and stack bytes from ptxas -v."""
    out, arch, kernel = {}, "?", None
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '(\w+)' for '(\w+)'", line)
        if m:
            kernel, arch = m.group(1), m.group(2)
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and kernel:
            e = out.setdefault(f"{kernel}@{arch}", {})
            e["stack_bytes"] = int(m.group(1))
            e["spill_bytes"] = int(m.group(2)) + int(m.group(3))
        m = re.search(r"Used (\d+) registers", line)
        if m and kernel:
            out.setdefault(f"{kernel}@{arch}", {})["registers"] = int(m.group(1))
    return out


def write_json(path, value):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(value, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def check(args):
    manifest_path = os.path.join(args.out, "manifest.json")
    if not os.path.exists(manifest_path):
        if args.require_manifest:
            sys.exit(f"build-fatbin --check: {manifest_path} is missing")
        print("build-fatbin --check: no manifest; nothing to check")
        return
    with open(manifest_path) as f:
        manifest = json.load(f)
    problems = []
    for module in modules_in(ROOT):
        entry = manifest["modules"].get(module)
        if entry is None:
            problems.append(f"{module}: not in the manifest (run scripts/build-fatbin.py --release)")
            continue
        if entry["source_sha256"] != source_sha256(module, load_spec(module)):
            problems.append(f"{module}: sources changed since its fatbin was built (stale fatbin)")
        fatbin = os.path.join(args.out, entry["fatbin"])
        if not os.path.exists(fatbin):
            problems.append(f"{module}: {fatbin} is missing")
        elif sha256(fatbin) != entry["sha256"]:
            problems.append(f"{module}: {fatbin} does not match the manifest's sha256")
    if problems:
        sys.exit("build-fatbin --check: " + "; ".join(problems))
    print(f"build-fatbin --check: {len(manifest['modules'])} modules up to date")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--release", action="store_true")
    p.add_argument("--check", action="store_true")
    p.add_argument("--require-manifest", action="store_true")
    p.add_argument("--out", default=os.path.join(ROOT, "kernels", "bin"))
    p.add_argument("--modules", default="")
    p.add_argument("--nvcc", default=os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc"))
    p.add_argument("--any-nvcc", action="store_true")
    args = p.parse_args()
    if args.check == args.release:
        sys.exit("build-fatbin: pass exactly one of --release, --check")
    (check if args.check else build)(args)


if __name__ == "__main__":
    main()
