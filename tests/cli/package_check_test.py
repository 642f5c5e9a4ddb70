#!/usr/bin/env python3
"""The release archive: cpack builds mmaemu-<version>-Linux-<arch>.tar.gz from the build tree, and
`mmaemu check-dist PACKAGE --require-fatbins` passes on it and on its unpacked folder; each
check fails on a package changed to break it (a licence removed, a build-tree path left in a
CMake file, a version that disagrees, a fatbin changed, an executable that needs libfmt), a wrong
--tag fails, and a file that is not an archive is a malformed input (exit 4), not a crash.

Usage: package_check_test.py MMAEMU BUILD_DIR SOURCE_DIR"""
import json, shutil, subprocess, sys, tarfile, tempfile
from pathlib import Path

mmaemu, build, source = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))


def run(*args, cwd=None):
    r = subprocess.run([mmaemu, *map(str, args)], capture_output=True, text=True, cwd=cwd)
    return r.returncode, r.stdout + r.stderr


def verdicts(path, *extra):
    code, out = run("check-dist", path, "--require-fatbins", "--json", *extra)
    try:
        return code, {c["check"]: c["verdict"] for c in json.loads(out)["checks"]}, out
    except (json.JSONDecodeError, KeyError):
        return code, {}, out


with tempfile.TemporaryDirectory() as tmp:
    tmp = Path(tmp)
    r = subprocess.run(["cpack", "--config", str(build / "CPackConfig.cmake"), "-B", str(tmp / "pkg")],
                       capture_output=True, text=True)
    archives = list((tmp / "pkg").glob("mmaemu-*-Linux-*.tar.gz"))
    check("cpack builds one mmaemu-<version>-Linux-<arch>.tar.gz", r.returncode == 0 and len(archives) == 1,
          r.stdout + r.stderr)
    if not archives:
        sys.exit(1)
    archive = archives[0]
    code, v, out = verdicts(archive, "--out", tmp / "report.json")
    check("check-dist passes on the archive", code == 0 and v and all(x == "PASS" for x in v.values()), out)
    report = json.loads((tmp / "report.json").read_text())
    check("--out writes the same report, with the archive's sha256",
          report["verdict"] == "PASS" and len(report["package_sha256"]) == 64, report)
    code, out = run("check-dist", archive, "--tag", "v9.9.9")
    check("a wrong --tag fails", code == 1 and "v9.9.9" in out, out)

    with tarfile.open(archive) as t:
        t.extractall(tmp / "x")
    top = next((tmp / "x").iterdir())
    code, v, out = verdicts(top)
    check("check-dist passes on the unpacked folder", code == 0, out)

    def mutant(name, change, failing):
        copy = tmp / "m" / top.name
        shutil.rmtree(tmp / "m", ignore_errors=True)
        shutil.copytree(top, copy, symlinks=True)
        change(copy)
        code, v, out = verdicts(copy)
        check(f"{name}: '{failing}' fails", code == 1 and v.get(failing) == "FAIL" and
              all(x == "PASS" for k, x in v.items() if k != failing), out)

    mutant("the static library removed", lambda p: (p / "lib/libmmaemu.a").unlink(), "contents")
    mutant("a licence file removed", lambda p: (p / "share/doc/mmaemu/LICENSES/fmt.copyright").unlink(),
           "licences")
    mutant("a build-tree path in a CMake file",
           lambda p: (p / "lib/cmake/mmaemu/extra.cmake").write_text(f'set(X "{source}/lib")\n'), "build paths")
    mutant("the CMake package's version differs",
           lambda p: (p / "lib/cmake/mmaemu/mmaemuConfigVersion.cmake").write_text(
               (p / "lib/cmake/mmaemu/mmaemuConfigVersion.cmake").read_text().replace(
                   'set(PACKAGE_VERSION "', 'set(PACKAGE_VERSION "1')), "version")

    def change_fatbin(p):
        f = p / "share/mmaemu/kernels/v1.fatbin"
        b = bytearray(f.read_bytes())
        b[100] ^= 1
        f.write_bytes(bytes(b))
    mutant("a fatbin changed", change_fatbin, "fatbins")

    def needs_libfmt(p):  # the executable's DT_NEEDED string "libm.so.6" spelled as another library
        f = p / "bin/mmaemu"
        b = f.read_bytes()
        i = b.find(b"libm.so.6\0")
        f.write_bytes(b[:i] + b"libz.so.1\0" + b[i + 10:])
    mutant("the executable needs a library bookworm lacks", needs_libfmt, "runtime")

    # validate-release: from a fresh prefix, every check PASS (no GPU here: the conformance subset
    # is a SKIP that says why), the log names the archive's sha256; a broken archive fails.
    r = subprocess.run([mmaemu, "validate-release", archive, "--out", tmp / "release.json"],
                       capture_output=True, text=True)
    log = json.loads((tmp / "release.json").read_text()) if (tmp / "release.json").exists() else {}
    by = {c["check"]: c["verdict"] for c in log.get("checks", [])}
    check("validate-release passes, every bundled set replayed, the consumer built",
          r.returncode == 0 and log.get("verdict") == "PASS" and log.get("package_sha256") == report["package_sha256"]
          and by.get("Evo 2 projection replay (h200-evo2-dev)") == "PASS" and by.get("replay h200-subset") == "PASS"
          and by.get("selftest --force") == "PASS" and "FAIL" not in by.values() and len(by) >= 10,
          r.stdout + r.stderr)
    broken = tmp / "broken" / top.name
    shutil.copytree(top, broken, symlinks=True)
    (broken / "share/mmaemu/truth/h200-subset/manifest.json").write_text("{}")
    subprocess.run(["tar", "czf", tmp / "broken.tar.gz", "-C", tmp / "broken", top.name], check=True)
    r = subprocess.run([mmaemu, "validate-release", tmp / "broken.tar.gz", "--out", tmp / "broken.json"],
                       capture_output=True, text=True)
    log = json.loads((tmp / "broken.json").read_text()) if (tmp / "broken.json").exists() else {}
    check("validate-release fails on an archive whose bundled set is broken",
          r.returncode == 1 and log.get("verdict") == "FAIL" and
          any(c["verdict"] == "FAIL" and "h200-subset" in c["check"] for c in log.get("checks", [])),
          r.stdout + r.stderr)

    (tmp / "junk.tar.gz").write_bytes(b"not an archive")
    code, out = run("check-dist", tmp / "junk.tar.gz")
    check("a file that is not an archive: exit 4, named", code == 4 and "junk.tar.gz" in out, out)
    code, out = run("check-dist", tmp / "missing.tar.gz")
    check("a missing package: exit 7, named", code == 7 and "missing.tar.gz" in out, out)

print(f"package_check: {sum(results)}/{len(results)} checks passed")
sys.exit(0 if all(results) else 1)
