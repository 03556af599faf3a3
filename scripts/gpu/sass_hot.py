#!/usr/bin/env python3
"""sass_hot.py — where an issue-bound kernel's instructions go, from Nsight Compute's source counters.

    ncu --set none --section SourceCounters -k regex:KERNEL --launch-count 1 -o rep BINARY ARGS
    ncu -i rep.ncu-rep --page source --csv --print-source sass > rep.csv
    python3 scripts/gpu/sass_hot.py rep.csv [POINTS]

Prints the warp instructions executed, by class (the classes of sass_summary.py) and by opcode (top 25),
and, given the number of points the launch computed, warp instructions per point (x 32 = thread
instructions per point: what the kernel's issue slots are spent on).
"""
import csv
import re
import sys
from collections import Counter

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from sass_summary import classify  # noqa: E402

OPCODE = re.compile(r"^\s*(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)")


def column(head, *words):
    for k, h in enumerate(head):
        if all(w.lower() in h.lower() for w in words):
            return k
    return None


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    rows = [r for r in csv.reader(open(argv[1], errors="replace")) if r]
    start = next((k for k, r in enumerate(rows) if column(r, "source") is not None
                  and column(r, "instructions executed") is not None), None)
    if start is None:
        print("(no source-counter table in %s)\n" % argv[1])
        return 0
    head = rows[start]
    src, ex = column(head, "source"), column(head, "instructions executed")
    ops = Counter()
    for r in rows[start + 1:]:
        if len(r) <= max(src, ex):
            continue
        m = OPCODE.match(r[src])
        try:
            n = float(r[ex].replace(",", "") or 0)
        except ValueError:
            continue
        if m and n > 0:
            ops[m.group(1)] += n
    total = sum(ops.values())
    points = float(argv[2]) if len(argv) > 2 else 0
    per = (lambda n: f"{n / points * 32:.1f}") if points > 0 else (lambda n: "")
    cls = classify(ops)
    print(f"warp instructions executed: {total:.0f}" + (f" ({per(total)} thread instructions per point)" if points else ""))
    print()
    print("| class | warp instructions | share % | per point |")
    print("| --- | ---: | ---: | ---: |")
    for name, n in cls.most_common():
        print(f"| {name} | {n:.0f} | {100 * n / total:.1f} | {per(n)} |")
    print()
    print("| opcode | warp instructions | share % | per point |")
    print("| --- | ---: | ---: | ---: |")
    for op, n in ops.most_common(25):
        print(f"| {op} | {n:.0f} | {100 * n / total:.1f} | {per(n)} |")
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
