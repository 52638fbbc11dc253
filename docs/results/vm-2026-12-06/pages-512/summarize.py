#!/usr/bin/env python3
"""Mean precision@100 (per seed), mean ARE and the fewest keys reported, old -> new, from run.sh's output."""
import collections
import sys

cells = collections.OrderedDict()
for line in open(sys.argv[1] if len(sys.argv) > 1 else "runs.txt"):
    p = line.split()
    if len(p) != 8:
        continue
    stream, budget, threads, _seed, version, precision, are, reported = p
    cells.setdefault((stream, budget, threads), {}).setdefault(version, []).append(
        (float(precision), float(are), int(reported)))


def fmt(runs):
    if all(r[2] == 0 for r in runs):
        return "refused"
    mean = sum(r[0] for r in runs) / len(runs)
    are = sum(r[1] for r in runs) / len(runs)
    fewest = min(r[2] for r in runs)
    seeds = ",".join("%.2f" % r[0] for r in runs)
    return f"{mean:.2f} ({seeds}) ARE {are:.3f}" + (f" [{fewest}+ reported]" if fewest < 100 else "")


for (stream, budget, threads), versions in cells.items():
    print(stream, budget, threads, "|", fmt(versions["old"]), "->", fmt(versions["new"]))
