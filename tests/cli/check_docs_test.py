#!/usr/bin/env python3
"""scripts/check-docs passes on the committed docs, and fails, naming each, on a document that
names a log that is not committed, links to a missing file, names a subcommand that does not
exist, or (in docs/cli.md's table) an option a subcommand does not have.
Usage: check_docs_test.py MMAEMU SOURCE_DIR"""
import subprocess, sys, tempfile
from pathlib import Path

mmaemu, root = sys.argv[1], Path(sys.argv[2])
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))


def run(*extra):
    r = subprocess.run([sys.executable, root / "scripts/check-docs", "--mmaemu", mmaemu, *extra],
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


code, out = run()
check("the committed docs pass", code == 0 and out.strip().endswith("PASS"), out)
with tempfile.TemporaryDirectory() as tmp:
    doc = Path(tmp) / "bad.md"
    doc.write_text("See `validation_logs/2099-01-01/nothing.json` and [the log](../missing.md).\n"
                   "Run `mmaemu frobnicate --fast`.\n")
    code, out = run("--extra", str(doc))
    check("a log that is not committed is named", code == 1 and "validation_logs/2099-01-01/nothing.json" in out, out)
    check("a missing link target is named", "missing.md" in out, out)
    check("a subcommand that does not exist is named", "`mmaemu frobnicate`" in out, out)
print(f"check_docs: {sum(results)}/{len(results)} checks passed")
sys.exit(0 if all(results) else 1)
