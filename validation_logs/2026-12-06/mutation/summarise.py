#!/usr/bin/env python3
"""The mutation matrix (mmaemu-mutation-matrix/1) summarised: counts per kind and target, every
survivor with its reason.  Usage: summarise.py mutation-matrix.json"""
import collections, json, sys

m = json.load(open(sys.argv[1]))
print(f"{m['mutants_judged']} mutants over {m['recordings']} recordings of {', '.join(m['truth_sets'])}: "
      f"{m['killed']} killed, {m['survived']} survived ({m['moves_not_applicable']} moves not applicable; "
      f"{m['seconds']:.0f} s, mmaemu {m['mmaemu_commit']})")
rows = collections.defaultdict(lambda: [0, 0])
for x in m["mutants"]:
    rows[(x["kind"], x["target"])][x["verdict"] == "survived"] += 1
print("\n| kind | target | killed | survived |\n| --- | --- | --- | --- |")
for (kind, target), (k, s) in sorted(rows.items()):
    print(f"| {kind} | {target} | {k} | {s} |")
print("\nSurvivors:\n")
for x in m["mutants"]:
    if x["verdict"] == "survived":
        print(f"- {x['target']}, {x['parameter']} ({x['change']}): {x['reason']}")
print("\nRules that are code, not data:\n")
for f in m["rules_that_are_code"]:
    print(f"- {f['rule']} ({f['where']}): judged by {f['judged_by']}")
