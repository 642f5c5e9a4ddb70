#!/usr/bin/env python3
"""End-to-end tests of the mmaemu executable: info, gemm round trips against recorded outputs,
bad inputs (one-line error naming the problem, non-zero exit, no crash), selftest and its cache.

Usage: cli_test.py MMAEMU_EXECUTABLE SOURCE_DIR
"""
import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

exe, source = sys.argv[1], Path(sys.argv[2])
subset = source / "tests" / "data" / "h200-subset"
tmp = Path(tempfile.mkdtemp(prefix="mmaemu-cli-"))
env = dict(os.environ, XDG_CACHE_HOME=str(tmp / "cache"))
results = []


def run(*args):
    p = subprocess.run([exe, *map(str, args)], capture_output=True, text=True, env=env, timeout=600)
    return p.returncode, p.stdout, p.stderr


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}" + ("" if ok else f": {detail}"))


def read_safetensors(path):
    raw = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    return header, raw[8 + n:]


def tensor_bytes(path, name):
    header, data = read_safetensors(path)
    begin, end = header[name]["data_offsets"]
    return data[begin:end]


def write_safetensors(path, tensors):
    header, blob = {}, b""
    for name, (dtype, shape, data) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(blob), len(blob) + len(data)]}
        blob += data
    text = json.dumps(header).encode()
    Path(path).write_bytes(struct.pack("<Q", len(text)) + text + blob)


try:
    import ctypes
    ctypes.CDLL("libcuda.so.1")
    has_driver = True
except OSError:
    has_driver = False


def expect_error(name, args, code_ok, needle):
    code, out, err = run(*args)
    lines = [l for l in err.strip().splitlines() if l]
    ok = code not in (0,) and code_ok(code) and needle in err and len(lines) == 1 and "internal" not in err
    check(name, ok, f"exit {code}, stderr {err.strip()!r}")


# info
code, out, err = run("info")
check("info runs", code == 0 and "profiles:" in out and "hopper" in out, err)
check("info says why there is or is no GPU path", "GPU path: " in out, out)
code, out, err = run("info", "--json")
try:
    info = json.loads(out)
    check("info --json", code == 0 and {p["name"] for p in info["profiles"]} >= {"hopper", "ada"}
          and len(info["presets"]) >= 16 and "why_unavailable" in info["cuda"], out[:200])
except json.JSONDecodeError as e:
    check("info --json", False, str(e))

# gemm round trips: recorded calls rebuilt from the manifest, output compared byte for byte
manifest = json.loads((subset / "manifest.json").read_text())
wanted = {"dev_001_c00", "dev_001_c01", "dev_004_c03", "dev_013_c08", "dev_022_c05", "dev_027_c09",
          "epi_dev_003_c06", "epi_dev_004_c08", "epi_dev_004_c02"}
for r in manifest["recordings"]:
    if r["id"] not in wanted:
        continue
    out_path = tmp / f"{r['id']}.safetensors"
    args = ["gemm", "--in", subset / r["file"], "--out", out_path, "--a", r["a"], "--b", r["b"],
            "--out-dtype", r["out_dtype"], "--scale-a", repr(r["scale_a"]) if not isinstance(r["scale_a"], str) else r["scale_a"],
            "--scale-b", repr(r["scale_b"]) if not isinstance(r["scale_b"], str) else r["scale_b"], "--json"]
    if r["use_fast_accum"]:
        args.append("--fast-accum")
    if r["bias"]:
        args += ["--bias", r["bias"]]
    code, out, err = run(*args)
    same = code == 0 and out_path.exists() and \
        tensor_bytes(out_path, "out") == tensor_bytes(subset / r["file"], r["out"])
    check(f"gemm reproduces {r['id']}", same, f"exit {code}: {err.strip()}")
summary = json.loads(out) if out.strip() else {}
check("gemm --json names the plan, typed", summary.get("preset") == "hopper_fp8_wgmma_k32"
      and isinstance(summary.get("split_k"), int) and isinstance(summary.get("inside_envelope"), bool)
      and summary.get("threads", 0) >= 1, out)
header, _ = read_safetensors(tmp / "epi_dev_004_c02.safetensors")
check("gemm writes its plan into the file's metadata",
      header.get("__metadata__", {}).get("algorithm", "").startswith("cublaslt_nvjet"), header.get("__metadata__"))
leftovers = [p.name for p in tmp.iterdir() if ".tmp" in p.name]
check("gemm leaves no temporary file", not leftovers, leftovers)
# A kill while the output is being written leaves neither the temporary file nor a torn output:
# SIGTERM is sent once the temporary file exists (a 256 MiB f32 output takes a while to write and
# sync), then the signal takes its default course.
def killed_mid_write(m):
    zeros = tmp / f"zeros{m}.safetensors"
    write_safetensors(zeros, {"a": ("F8_E4M3", [m, 16], bytes(m * 16)), "b": ("F8_E4M3", [8192, 16], bytes(8192 * 16))})
    out = tmp / f"killed{m}.safetensors"
    p = subprocess.Popen([exe, "gemm", "--in", str(zeros), "--out", str(out), "--out-dtype", "f32"], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen = False
    while p.poll() is None and not seen:
        seen = any(name.startswith(out.name + ".tmp") for name in os.listdir(tmp))
    if seen:
        p.send_signal(signal.SIGTERM)
    code = p.wait(timeout=600)
    leftovers = [name for name in os.listdir(tmp) if name.startswith(out.name)]
    return seen, code, leftovers


for m in (8192, 32768):
    seen, code, leftovers = killed_mid_write(m)
    if seen:
        break
check("SIGTERM during gemm's write: the exit status names the signal, no temporary file or output is left",
      seen and code == -signal.SIGTERM and not leftovers,
      f"temporary file seen: {seen}, exit {code}, left: {leftovers}")
# Outputs never destroy inputs or special files.
victim = tmp / "victim.safetensors"
victim.write_bytes((subset / "dev_001.safetensors").read_bytes())
before = victim.read_bytes()
expect_error("gemm refuses to write over its input", ["gemm", "--in", victim, "--out", victim], lambda c: c == 2,
             "an input of this command")
check("gemm left its input as it was", victim.read_bytes() == before, "")
expect_error("replay refuses to write into the set it reads", ["replay", "--truth-dir", subset, "--out", subset / "manifest.json"],
             lambda c: c == 2, "a folder this command reads")
link = tmp / "link.safetensors"
link.symlink_to(tmp / "elsewhere.safetensors")
expect_error("gemm refuses to replace a symlink at its output", ["gemm", "--in", victim, "--out", link], lambda c: c == 3,
             "not a regular file")
check("the symlink is still a symlink", link.is_symlink(), "")
# A split count is bounded before anything is sized by it (2e9 once ran without end).
for splits in ("2000000000", "0"):
    expect_error(f"gemm refuses --splits {splits}", ["gemm", "--in", subset / "dev_001.safetensors", "--out", tmp / "s.safetensors",
                 "--splits", splits], lambda c: c == 2, "split count" if splits != "0" else "")

# --max-output: an output over the bound is refused before it is allocated, and nothing is written.
expect_error("gemm refuses an output over --max-output", ["gemm", "--in", subset / "dev_001.safetensors", "--out",
             tmp / "max.safetensors", "--max-output", "100"], lambda c: c == 2, "more than --max-output 100")
check("gemm --max-output wrote nothing", not (tmp / "max.safetensors").exists(), "")

# bad input
good = subset / "dev_001.safetensors"
a = tensor_bytes(good, "a")
b = tensor_bytes(good, "b")
expect_error("missing input file", ["gemm", "--in", tmp / "nope.safetensors", "--out", tmp / "x"],
             lambda c: c == 3, "nope.safetensors: no such file")
write_safetensors(tmp / "bf16.safetensors", {"a": ("BF16", [16, 16], a), "b": ("F8_E4M3", [16, 32], b)})
expect_error("wrong dtype", ["gemm", "--in", tmp / "bf16.safetensors", "--out", tmp / "x"],
             lambda c: c == 2, "tensor 'a' has dtype BF16")
write_safetensors(tmp / "k.safetensors", {"a": ("F8_E4M3", [16, 32], a), "b": ("F8_E4M3", [8, 64], b)})
expect_error("mismatched K", ["gemm", "--in", tmp / "k.safetensors", "--out", tmp / "x"],
             lambda c: c == 2, "K differs (32 vs 64)")
(tmp / "trunc.safetensors").write_bytes(good.read_bytes()[:100])
expect_error("truncated safetensors", ["gemm", "--in", tmp / "trunc.safetensors", "--out", tmp / "x"],
             lambda c: c == 4, "truncated")
(tmp / "garbage.safetensors").write_bytes(b"\xff" * 64)
expect_error("garbage file", ["gemm", "--in", tmp / "garbage.safetensors", "--out", tmp / "x"],
             lambda c: c == 4, "garbage.safetensors")
# Found by tests/fuzz (scripts/fuzz.sh): a number too large for a double in a header ended the
# process (an uncaught exception, exit 70).
header = b'{"a":{"dtype":"F8_E4M3","shape":[4E48369],"data_offsets":[0,16]}}'
header += b" " * (-len(header) % 8)
(tmp / "bignum.safetensors").write_bytes(len(header).to_bytes(8, "little") + header + bytes(16))
expect_error("a number past a double's range in a header", ["gemm", "--in", tmp / "bignum.safetensors", "--out", tmp / "x"],
             lambda c: c == 4, "number overflow")
expect_error("unknown profile", ["gemm", "--in", good, "--out", tmp / "x", "--profile", "volta"],
             lambda c: c == 7, "no profile named 'volta'")
expect_error("unknown out dtype", ["gemm", "--in", good, "--out", tmp / "x", "--out-dtype", "f64"],
             lambda c: c == 2, "--out-dtype 'f64'")
expect_error("scale that is neither number nor tensor", ["gemm", "--in", good, "--out", tmp / "x", "--scale-a", "abc"],
             lambda c: c == 2, "--scale-a 'abc'")
expect_error("unwritable output", ["gemm", "--in", good, "--out", tmp / "no" / "dir" / "x.safetensors"],
             lambda c: c == 3, "cannot create")
check("failed runs write nothing", not (tmp / "x").exists())
code, out, err = run("gemm", "--in", good)
check("missing required option is a usage error", code == 2 and "--out" in err, err)
code, out, err = run("frobnicate")
check("unknown subcommand is a usage error that names it and lists the subcommands",
      code == 2 and "unknown subcommand 'frobnicate'" in err and "split-k" in err, err)
code, out, err = run("info", "-v")
check("-v after the subcommand is the global option", code == 0 and "mmaemu" in out, err)
code, out, err = run("gemm", "--in", good, "--out", tmp / "x", "--no-such-option")
check("an unknown option is still a usage error", code == 2 and "no-such-option" in err, err)

# replay
code, out, err = run("replay", "--truth-dir", subset, "--out", tmp / "replay.json")
last = out.strip().splitlines()[-1] if out.strip() else ""
total = len(manifest["recordings"])
check("replay of the bundled subset is bit-exact", code == 0 and last == f"replay: {total}/{total} recordings bit-exact", last + err)
log = json.loads((tmp / "replay.json").read_text())
check("replay --out logs every recording with its plan",
      len(log["recordings"]) == total and all(r["verdict"] == "bit-exact" for r in log["recordings"])
      and log["manifest_sha256"] and {r["split_k"] for r in log["recordings"]} >= {1, 3, 12}, str(log)[:300])
code, out, err = run("replay", "--truth-dir", subset, "--json", "--only", "dev_001_c00")
try:
    printed = json.loads(out)
except ValueError:
    printed = {}
check("replay --json prints the log to stdout (and nothing else there)",
      code == 0 and len(printed.get("recordings", [])) == 1 and "replay: 1/1 recordings bit-exact" in err, out[:200] + err)
grid = source / "tests" / "data" / "h200-recorded-grid"
code, out, err = run("replay", "--truth-dir", grid)
check("replay of the set recorded by mmaemu record on the H200", code == 0 and out.strip().endswith("replay: 36/36 recordings bit-exact"), out + err)
code, out, err = run("replay", "--truth-dir", subset, "--profile", "ada", "--only", "dev_004_c00", "dev_004_c01")
lines = out.strip().splitlines()
check("replay reports mismatches and fails", code == 1 and lines[-1] == "replay: 0/2 recordings bit-exact"
      and all("elements differ; first at (" in l and "recorded 0x" in l and "emulated 0x" in l and "ulp" in l
              for l in lines[:-1]) and len(lines) == 3, out + err)
small = tmp / "small-set"
small.mkdir()
one = dict(manifest, files={"dev_001.safetensors": manifest["files"]["dev_001.safetensors"]},
           recordings=[r for r in manifest["recordings"] if r["file"] == "dev_001.safetensors"])
(small / "manifest.json").write_text(json.dumps(one))
data = bytearray((subset / "dev_001.safetensors").read_bytes())
(small / "dev_001.safetensors").write_bytes(data)
code, out, err = run("replay", "--truth-dir", small, "--backend", "oracle")
check("replay of a copied set with the oracle", code == 0 and out.strip().endswith("replay: 12/12 recordings bit-exact"), out + err)
data[-1] ^= 0x40
(small / "dev_001.safetensors").write_bytes(data)
expect_error("replay refuses a tampered file", ["replay", "--truth-dir", small], lambda c: c == 5, "dev_001.safetensors: sha256")
for field, value, needle in [("sm_count_target", 0, "sm_count_target"), ("workspace_bytes", "1 MiB", "workspace_bytes")]:
    bad = dict(one, recordings=[dict(one["recordings"][0], **{field: value})])
    (small / "manifest.json").write_text(json.dumps(bad))
    expect_error(f"replay refuses a malformed recording {field}", ["replay", "--truth-dir", small], lambda c: c == 4,
                 f"field '{needle}'")
bad = dict(one, environment=dict(one["environment"], sm_count_target=-3))
(small / "manifest.json").write_text(json.dumps(bad))
expect_error("replay refuses a malformed environment.sm_count_target", ["replay", "--truth-dir", small], lambda c: c == 4,
             "environment.sm_count_target")
# A recording whose tensors disagree with its manifest, or whose file is gone, is refused with the
# set (bad input), not replayed and counted as a miss.
data[-1] ^= 0x40
(small / "dev_001.safetensors").write_bytes(data)
bad = dict(one, recordings=[dict(one["recordings"][0], m=one["recordings"][0]["m"] + 1)] + one["recordings"][1:])
(small / "manifest.json").write_text(json.dumps(bad))
expect_error("replay refuses a recording whose m disagrees with its tensors", ["replay", "--truth-dir", small],
             lambda c: c == 4, "has shape")
(small / "manifest.json").write_text(json.dumps(one))
(small / "dev_001.safetensors").unlink()
expect_error("replay refuses a set whose file is missing", ["replay", "--truth-dir", small], lambda c: c == 3,
             "dev_001.safetensors: no such file")
# Every disagreement between the manifest and the tensors, each refused with exit 4 and the
# recording or tensor named (issue 13's corpus of malformed sets).
(small / "dev_001.safetensors").write_bytes(data)
r0 = one["recordings"][0]
for what, recording, needle in [
        ("a duplicate id", None, f"id '{r0['id']}' is used by an earlier recording"),
        ("an operand dtype the tensor does not have", dict(r0, a_dtype="f8_e5m2"),
         "tensor 'a' is F8_E4M3, the manifest implies F8_E5M2"),
        ("a tensor the file does not hold", dict(r0, out="no_such_out"), "no tensor 'no_such_out'"),
        ("a scale tensor of the wrong dtype", dict(r0, scale_a="b"), "tensor 'b' is F8_E4M3, the manifest implies F32"),
        ("a bias of the wrong dtype", dict(r0, bias="a"), "bias 'a' must be BF16 or F16"),
        ("a bias of the wrong length", dict(r0, bias=r0["out"]), f"tensor '{r0['out']}' has shape [16, 16], the manifest implies [16]"),
        ("an output dtype the tensor does not have", dict(r0, out_dtype="f16"), "the manifest implies F16"),
        # optional fields of the wrong type, refused like missing required ones (JsonFields)
        ("a distribution that is not a string", dict(r0, dist=5), "field 'dist' must be a string"),
        ("kernel names that are not strings", dict(r0, kernels=[1]), "field 'kernels' must be an array of strings"),
        ("a split count out of range", dict(r0, algorithm={"splitk_num": 0}),
         "field 'algorithm.splitk_num' must be an integer in [1, 4096]")]:
    recordings = [r0, r0] if recording is None else [recording]
    (small / "manifest.json").write_text(json.dumps(dict(one, recordings=recordings)))
    expect_error(f"replay refuses {what}", ["replay", "--truth-dir", small], lambda c: c == 4, needle)
deep = {"format": "mmaemu-truth/1"}
for _ in range(100):
    deep = {"nested": deep}
(small / "manifest.json").write_text(json.dumps(dict(one, source=deep)))
expect_error("replay refuses a manifest nested too deeply", ["replay", "--truth-dir", small], lambda c: c == 4,
             "nests deeper than 64 levels")
(small / "manifest.json").write_text(json.dumps(one))
# A recording file that is a FIFO (read without end) or a link out of the set.
(small / "dev_001.safetensors").unlink()
os.mkfifo(small / "dev_001.safetensors")
expect_error("replay refuses a FIFO in place of a file", ["replay", "--truth-dir", small], lambda c: c == 3,
             "not a regular file")
(small / "dev_001.safetensors").unlink()
outside = tmp / "outside.safetensors"
outside.write_bytes(data)
(small / "dev_001.safetensors").symlink_to(outside)
expect_error("replay refuses a symlink leaving the set", ["replay", "--truth-dir", small], lambda c: c == 4,
             "a symlink leaving the set")
(small / "dev_001.safetensors").unlink()
(small / "inside.bin").write_bytes(data)
(small / "dev_001.safetensors").symlink_to("inside.bin")
code, out, err = run("replay", "--truth-dir", small, "--backend", "oracle")
check("replay follows a symlink inside the set", code == 0 and out.strip().endswith("12/12 recordings bit-exact"),
      out + err)
expect_error("replay --only of an unknown id", ["replay", "--truth-dir", subset, "--only", "nope"], lambda c: c == 7, "--only nope")
if not has_driver:
    expect_error("replay --backend cuda says why not", ["replay", "--truth-dir", subset, "--backend", "cuda"],
                 lambda c: c == 8, "--backend cuda: no CUDA driver")
    expect_error("gemm --backend cuda says why not", ["gemm", "--in", tmp / "none.safetensors", "--out", tmp / "o.safetensors",
                 "--backend", "cuda"], lambda c: c in (3, 8), "")
expect_error("replay of a missing folder", ["replay", "--truth-dir", tmp / "none"], lambda c: c == 3, "manifest.json: no such file")

# The commands that need a GPU say why they cannot run, with exit 8, where there is none.
if has_driver:
    print("SKIP the no-GPU refusals: this machine has a CUDA driver")
else:
    for name, args in [("sweep", ["sweep", "--out", tmp / "sweep.json", "--m", "64", "--n", "64", "--k", "256"]),
                       ("probe", ["probe", "--out", tmp / "probe.json"]),
                       ("record", ["record", "--out", tmp / "rec"]),
                       ("selftest --live", ["selftest", "--live"])]:
        expect_error(f"{name} without a GPU says why", args, lambda c: c == 8, "libcuda.so.1")
        check(f"{name} without a GPU writes nothing", not (tmp / "sweep.json").exists() and not (tmp / "probe.json").exists()
              and not (tmp / "rec" / "manifest.json").exists())
expect_error("sweep refuses a bad axis", ["sweep", "--out", tmp / "s.json", "--k", "64,x"], lambda c: c == 2, "--k: 'x'")
expect_error("sweep refuses a bad scale mode", ["sweep", "--out", tmp / "s.json", "--scale-modes", "colwise"],
             lambda c: c == 2, "--scale-modes")
expect_error("record refuses a bad scale mode", ["record", "--out", tmp / "r", "--scales", "colwise"],
             lambda c: c == 2, "--scales")
expect_error("probe --data of a missing file", ["probe", "--out", tmp / "p.json", "--data", tmp / "none.safetensors"],
             lambda c: c == 3, "none.safetensors")

# bench: JSON on stdout, the table on stderr; every backend's bits compared
code, out, err = run("bench", "--shapes", "32x48x100,17x5x64", "--backends", "cpu,oracle", "--repeats", "2")
try:
    bench = json.loads(out)
except ValueError:
    bench = {}
check("bench times cpu and oracle and compares their bits", code == 0 and bench.get("format") == "mmaemu-bench/1"
      and len(bench.get("results", [])) == 4 and all(r.get("bits_equal_first", True) and r["runs"] == 2
                                                      and r["covered"] for r in bench["results"])
      and bench.get("outputs_compared") == 2 and bench.get("all_bits_equal") is True
      and "32x48x100" in err, out[:300] + err)
code, out, err = run("bench", "--shapes", "32x48x100", "--backends", "cpu", "--repeats", "1")
try:
    bench = json.loads(out)
except ValueError:
    bench = {}
check("bench with one backend compares nothing and does not claim equal bits",
      code == 0 and bench.get("outputs_compared") == 0 and bench.get("all_bits_equal") is False, out[:300] + err)
expect_error("bench refuses an unknown backend", ["bench", "--backends", "cpu,gpu9"], lambda c: c == 2, "--backend gpu9")
expect_error("bench refuses a bad shape", ["bench", "--shapes", "64x64"], lambda c: c == 2, "--shapes: '64x64'")
if not has_driver:
    expect_error("bench --backends cuda-h1 without a GPU says why", ["bench", "--backends", "cuda-h1"],
                 lambda c: c == 8, "libcuda.so.1")
    expect_error("conform --backend cuda-v4 without a GPU says why", ["conform", "--backend", "cuda-v4"],
                 lambda c: c == 8, "libcuda.so.1")
code, out, err = run("conform", "--backend", "cpu", "--calls", "3", "--jobs", "2", "--out", tmp / "conform.json")
if (tmp / "conform.json").exists():
    before = (tmp / "conform.json").read_bytes()
    expect_error("--no-clobber refuses an existing --out before any work",
                 ["conform", "--backend", "cpu", "--calls", "1", "--no-clobber", "--out", tmp / "conform.json"],
                 lambda c: c == 2, "--no-clobber")
    check("--no-clobber leaves the existing file as it was", (tmp / "conform.json").read_bytes() == before)

matrix = json.loads((tmp / "conform.json").read_text())["matrix"] if (tmp / "conform.json").exists() else {}
check("conform --backend cpu: the fast path equals the oracle on every FP8 preset",
      code == 0 and all(matrix.get("cpu", {}).get(p, {}).get("verdict") == "PASS"
                        for p in ("hopper_fp8_wgmma_k32", "ada_fp8_mma_k32", "blackwell_fp8_mma_k32")), out + err)

# A sweep log's metadata holds JSON in strings: bounded and parsed as every other JSON.
def write_sweep_log(path, keys):
    meta = {"mmaemu": json.dumps({"format": "mmaemu-sweep/2"}), "keys": keys, "algorithms": "[]"}
    header = json.dumps({"__metadata__": meta, "m": {"dtype": "I32", "shape": [1], "data_offsets": [0, 4]}}).encode()
    header += b" " * (-len(header) % 8)
    path.write_bytes(len(header).to_bytes(8, "little") + header + bytes(4))


write_sweep_log(tmp / "deep-log.safetensors", "[" * 100 + "]" * 100)
expect_error("a sweep log's metadata nested past the bound", ["split-k", "--logs", tmp / "deep-log.safetensors"],
             lambda c: c == 4, "deep-log.safetensors: metadata 'keys' nests deeper than 64 levels")
write_sweep_log(tmp / "bignum-log.safetensors", "[4E48369]")
expect_error("a sweep log's metadata with a number past a double's range",
             ["split-k", "--logs", tmp / "bignum-log.safetensors"],
             lambda c: c == 4, "metadata 'keys' is not valid JSON (number overflow")

# split-K: the profile's model, by shape and SM count; replays that take every count from it
code, out, err = run("split-k", "--shapes", "16x64x20480,4096x4096x4096,101x16x20480", "--json")
try:
    ask = json.loads(out)
    rows = {(r["m"], r["n"], r["k"]): r for r in ask["shapes"]}
    check("split-k answers swept shapes, rules and predictions with their basis",
          code == 0 and rows[(16, 64, 20480)]["splits"] == 7 and rows[(16, 64, 20480)]["inside_envelope"]
          and rows[(4096, 4096, 4096)]["splits"] == 1 and "rule" in rows[(4096, 4096, 4096)]["basis"]
          and not rows[(101, 16, 20480)]["inside_envelope"] and "predicted" in rows[(101, 16, 20480)]["basis"]
          and "132 SMs" in ask["device"], out + err)
except (json.JSONDecodeError, KeyError) as e:
    check("split-k --json", False, f"{e}: {out} {err}")
code, out, err = run("split-k", "--shapes", "256x256x32768", "--sm-count", "114")
check("split-k --sm-count 114 answers as cuBLASLt does for an H100 PCIe's SM count",
      code == 0 and "256x256x32768: 3 slices (swept" in out, out + err)
expect_error("split-k wants shapes or logs", ["split-k"], lambda c: c == 2, "--shapes")
expect_error("split-k refuses a bad shape", ["split-k", "--shapes", "16x16"], lambda c: c == 2, "'16x16'")
expect_error("split-k refuses a log that is not a sweep log", ["split-k", "--logs", good], lambda c: c == 4,
             "not an mmaemu-sweep/2 log")
configs = source / "tests" / "data" / "h200-recorded-configs"
code, out, err = run("replay", "--truth-dir", configs, "--split-k-from", "profile", "--out", tmp / "rp.json")
log = json.loads((tmp / "rp.json").read_text()) if (tmp / "rp.json").exists() else {}
check("replay --split-k-from profile: the project's recordings bit-exact with the model's counts",
      code == 0 and out.strip().endswith("recordings bit-exact") and log.get("split_k_from") == "profile"
      and all("split-K model" in r["split_k_source"] for r in log.get("recordings", []))
      and "144/144" in log.get("split_k_agreement", ""), out + err)
code, out, err = run("replay", "--truth-dir", configs, "--sm-count", "114", "--split-k-from", "profile")
check("replay --sm-count 114 names the GPU whose choice it emulates", "114 SMs (H100 PCIe as the H200's heuristic answers" in err, err)
expect_error("replay refuses an unknown --split-k-from", ["replay", "--truth-dir", configs, "--split-k-from", "table"],
             lambda c: c == 2, "--split-k-from")
code, out, err = run("gemm", "--in", good, "--out", tmp / "sm114.safetensors", "--sm-count", "114", "--json")
check("gemm --sm-count names the GPU whose split-K choice it emulates",
      code == 0 and "H100 PCIe" in json.loads(out or "{}").get("heuristic_device", ""), out + err)

# selftest and its cache
code, out, err = run("selftest", "--force")
last = out.strip().splitlines()[-1] if out.strip() else ""
check("selftest passes", code == 0 and last.startswith("selftest: PASS"), last + err)
code, out, err = run("selftest")
check("selftest reuses a fresh verdict", code == 0 and "cached" in out, out[-200:])
code, out, err = run("selftest", "--json", "--force")
try:
    report = json.loads(out)
    check("selftest --json", report["passed"] and report["passed_checks"] == report["total_checks"] and not report["cached"])
except json.JSONDecodeError as e:
    check("selftest --json", False, str(e))

passed = sum(results)
print(f"{passed} passed, {len(results) - passed} failed")
sys.exit(0 if passed == len(results) else 1)
