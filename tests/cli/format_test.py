#!/usr/bin/env python3
"""Every C++ source of the library, the executable and the tests is as .clang-format lays it out
(clang-format 14, Debian bookworm's; scripts/install-deps.sh installs it), kernels/ included (their
sources are hashed into the committed fatbins' manifest: reformatting one means `mmaemu
build-fatbin --release` for its module). Generated data and inline PTX operand lists are fenced
with `// clang-format off` / `on`.

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
files = sorted(p for d in ('apps', 'lib', 'tests', 'kernels') for ext in ('*.cpp', '*.hpp', '*.h', '*.cu')
               for p in (source / d).rglob(ext))
if not files:
    sys.exit('no sources found under ' + str(source))
bad = [p for p in files
       if subprocess.run([exe, '--dry-run', '-Werror', str(p)], capture_output=True).returncode]
for p in bad:
    print('not formatted: ' + str(p.relative_to(source)) + ' (clang-format -i fixes it)')
print(f'{len(files) - len(bad)}/{len(files)} sources formatted')
sys.exit(1 if bad else 0)
