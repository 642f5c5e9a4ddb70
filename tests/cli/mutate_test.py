#!/usr/bin/env python3
"""mmaemu mutate on the bundled one-recording split-K tail set (1x16x48656 in 19 slices, f16 out):
the matrix is complete (every preset move, algorithm move and split-count move judged), the
mutants the recording must catch are killed by it (one slice more or fewer, the Hopper FP8 preset's
alignment bits, promotion every 64 elements), the ones it cannot see survive with a reason (the
Ada algorithms: no recording uses them), and the code rules are listed; a set the model does not
reproduce unmutated is refused.
Usage: mutate_test.py MMAEMU SOURCE_DIR"""
import json, shutil, subprocess, sys, tempfile
from pathlib import Path

mmaemu, root = sys.argv[1], Path(sys.argv[2])
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else f": {str(detail)[:2000]}"))


tail = root / "tests/data/h200-split-k-tail"
r = subprocess.run([mmaemu, "mutate", "--truth-dirs", str(tail), "--json"], capture_output=True, text=True)
m = json.loads(r.stdout) if r.returncode == 0 else {}
by = {(x["target"], x["change"]): x for x in m.get("mutants", [])}
check("mutate runs and judges every mutant", r.returncode == 0 and m.get("format") == "mmaemu-mutation-matrix/1"
      and m["mutants_judged"] == len(m["mutants"]) > 150 and m["recordings"] == 1, r.stderr)


def verdict(target, change):
    return by.get((target, change), {}).get("verdict")


# 20 slices instead of 19 cut this K (381 blocks, the tail dropped either way) into sums whose f16
# bits happen to agree: the mutant is judged on the one recording and survives, saying so.
more = by.get(("every scaled_mm plan", "one split-K slice more"), {})
check("one split-K slice more is judged on the recording (this one cannot tell 20 slices from 19)",
      more.get("recordings_using") == 1 and more.get("verdict") == "survived"
      and "1 recordings use it" in more.get("reason", ""), more)
check("one split-K slice fewer is killed", verdict("every split scaled_mm plan", "one split-K slice fewer") == "killed")
check("the Hopper FP8 step with one alignment bit fewer is killed",
      verdict("hopper_fp8_wgmma_k32", "one alignment bit fewer") == "killed")
promote = [x for x in m.get("mutants", []) if x["parameter"] == "promotion_interval" and x["target"] == "cublaslt_nvjet_promote128"]
check("promotion every 64 elements is killed", any(x["verdict"] == "killed" and "64" in x["change"] for x in promote), promote)
ada = [x for x in m.get("mutants", []) if x["target"].startswith("cutlass_sm89")]
check("the Ada algorithms survive, saying no recording uses them",
      ada and all(x["verdict"] == "survived" and "no recording" in x["reason"] for x in ada), ada[:2])
check("the rules that are code are listed", len(m.get("rules_that_are_code", [])) >= 3)

with tempfile.TemporaryDirectory() as tmp:
    broken = Path(tmp) / "broken"
    shutil.copytree(tail, broken)
    manifest = json.loads((broken / "manifest.json").read_text())
    manifest["recordings"][0]["out_dtype"] = "bf16"  # the recorded f16 bits read as bf16: not reproduced
    (broken / "manifest.json").write_text(json.dumps(manifest))
    r = subprocess.run([mmaemu, "mutate", "--truth-dirs", str(broken)], capture_output=True, text=True)
    check("a set the model does not reproduce unmutated is refused, named",
          r.returncode != 0 and "broken" in r.stderr and "baseline" not in r.stdout, r.stdout + r.stderr)
print(f"mutate: {sum(results)}/{len(results)} checks passed")
sys.exit(0 if all(results) else 1)
