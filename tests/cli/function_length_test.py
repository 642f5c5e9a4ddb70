#!/usr/bin/env python3
"""No function of the CLI (apps/mmaemu/*.cpp) is longer than 60 lines (issue 12: the CLI parses,
calls the library and prints; work longer than that belongs in the library). A function is a
definition that starts at column 0 and ends at its matching brace at column 0; lambdas count
toward the function that holds them.
Usage: function_length_test.py SOURCE_DIR"""
import re, sys
from pathlib import Path

LIMIT = 60
rows = []
for f in sorted((Path(sys.argv[1]) / "apps/mmaemu").glob("*.cpp")):
    lines = f.read_text().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        # A definition starts at column 0 and its signature (perhaps over several lines) ends in "{".
        head = i
        while (head < len(lines) and head - i < 6 and not lines[head].rstrip().endswith(("{", ";", "}"))):
            head += 1
        if (re.match(r"^[A-Za-z][\w:<>,*& ]*\(", line) and head < len(lines) and lines[head].rstrip().endswith("{")
                and ")" in lines[head] + line and not line.startswith(("namespace", "struct", "class", "enum"))):
            depth, j = sum(lines[x].count("{") - lines[x].count("}") for x in range(i, head + 1)), head
            while depth > 0 and j + 1 < len(lines):
                j += 1
                depth += lines[j].count("{") - lines[j].count("}")
            rows.append((j - i + 1, f"{f.name}:{i + 1}", line.strip()))
            i = j
        i += 1
rows.sort(reverse=True)
long = [r for r in rows if r[0] > LIMIT]
for n, where, sig in long:
    print(f"FAIL {where}: {n} lines: {sig}")
print(f"function_length: {len(rows)} functions, the longest {rows[0][0]} lines ({rows[0][1]}); "
      f"{len(long)} over {LIMIT}")
sys.exit(1 if long or len(rows) < 50 else 0)
