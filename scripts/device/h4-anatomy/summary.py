"""Prints the h4 anatomy table from the JSON lines h4_anatomy writes: one row per variant and
shape, its median time, and whether its outputs equal the module's build ("full")."""
import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
full = {(r["m"], r["n"], r["k"]): r for r in rows if r["variant"] == "full"}
for r in rows:
    shape = (r["m"], r["n"], r["k"])
    base = full.get(shape)
    same = "?" if base is None else ("same" if base["hash"] == r["hash"] else "differs")
    ratio = "" if base is None else f"{r['ms'] / base['ms']:.2f}x"
    print(f"{r['variant']:18} {'x'.join(map(str, shape)):16} {r['ms']:9.4f} ms {ratio:>6} "
          f"{r['mac_per_s']:.3g} MAC/s  {same}")
