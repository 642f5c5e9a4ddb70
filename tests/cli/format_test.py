#!/usr/bin/env python3
"""Every C++ source of the library, the executable and the tests is as .clang-format lays it out
(clang-format 14, Debian bookworm's; scripts/install-deps.sh installs it). Left out: the generated
builtin vectors (scripts/gen-builtin-vectors.py writes them) and kernels/, whose sources are hashed
into the committed fatbins' manifest (reformatting one means rebuilding the fatbins).

    format_test.py SOURCE_DIR
"""
import pathlib
import shutil
import subprocess
import sys

source = pathlib.Path(sys.argv[1])
exe = shutil.which('clang-format')
if not exe:
    sys.exit('clang-format is not installed (scripts/install-deps.sh installs it)')
skip = {source / 'lib' / 'src' / 'preset' / 'builtin_vectors.cpp'}
files = sorted(p for d in ('apps', 'lib', 'tests') for ext in ('*.cpp', '*.hpp', '*.h')
               for p in (source / d).rglob(ext) if p not in skip)
if not files:
    sys.exit('no sources found under ' + str(source))
bad = [p for p in files
       if subprocess.run([exe, '--dry-run', '-Werror', str(p)], capture_output=True).returncode]
for p in bad:
    print('not formatted: ' + str(p.relative_to(source)) + ' (clang-format -i fixes it)')
print(f'{len(files) - len(bad)}/{len(files)} sources formatted')
sys.exit(1 if bad else 0)
