#!/usr/bin/env python3
"""Offline instruction counts (session 36, issue 8): PTX instructions in the plane loop of each kernel.

  ptxloops.py FILE.ptx [SUBSTRING] [--ops]

FILE.ptx from `nvcc -arch=sm_90 -O3 -std=c++20 -fmad=false -ptx -o FILE.ptx GEN/acoustic.cu` (the sample's flags; no
GPU needed). For every kernel whose mangled name contains SUBSTRING (default: all), prints the instruction count of
its largest loop (the span from a label to the last backward branch to it: the plane loop of a stream kernel) and,
with --ops, that loop's opcodes by count. Kernels whose plane loop is not one natural loop (the TMA kernels' loops
wait on an mbarrier inside it) count the wait's instructions once. A static count,
not a profile: it says what a change removed from the loop body, not what it saves on the GPU.
"""
import collections
import re
import sys

args = [a for a in sys.argv[1:] if not a.startswith("--")]
if not args:
    sys.exit(__doc__)
ptx = open(args[0]).read()
want = args[1] if len(args) > 1 else ""
entries = list(re.finditer(r"\.entry (\S+)\(", ptx))
for e, m in enumerate(entries):
    name = m.group(1)
    if want not in name:
        continue
    # up to the next entry (inline-asm blocks close with a lone "}" too)
    body = ptx[m.end():entries[e + 1].start() if e + 1 < len(entries) else len(ptx)].split("\n")
    labels = {}
    best = None
    for i, line in enumerate(body):
        lm = re.match(r"^(\$L__\w+):", line)
        if lm:
            labels[lm.group(1)] = i
        bm = re.search(r"bra(?:\.uni)?\s+(\$L__\w+);", line)
        if bm and bm.group(1) in labels:
            j = labels[bm.group(1)]
            span = [x.strip() for x in body[j:i + 1] if re.match(r"^\s+[@a-z]", x)]
            if best is None or len(span) > len(best):
                best = span
    if best is None:
        print("%5s  %s" % ("-", name))
        continue
    print("%5d  %s" % (len(best), name))
    if "--ops" in sys.argv:
        ops = collections.Counter((t[1] if t[0].startswith("@") else t[0]).rstrip(";") for t in (x.split() for x in best))
        print("       " + ", ".join("%s %d" % kv for kv in ops.most_common()))
