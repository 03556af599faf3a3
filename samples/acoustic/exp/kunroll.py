#!/usr/bin/env python3
"""Experiment (session 30, issue 8): unroll the plane loops of the generated acoustic.cu's ring kernels.

  kunroll.py [--faces N] [--inner N] acoustic.cu

--faces N  `#pragma unroll N` on the default part's plane loops (the PML faces: sweepPart, sweepPart_tma), and
           `__launch_bounds__(256, 3)` on sweepPart_tma so that its three blocks per SM (the rings allow three)
           stay (unrolled 3x it takes 92 registers otherwise: two blocks).
--inner N  the same on the inner region's plane loop (sweepPart_inner; two blocks per SM at up to 128 registers).
Why: ncu's source counters (scripts/gpu/hot-acoustic.sh) count 162-235 thread instructions per point in the face
kernels and 82.5 in the inner one, with IMAD (nvcc's register moves) at 20-32 and 14.6 per point: the dim-0 register
queues (u: 9 planes, eta: 3) shift every value each plane; unrolled N times the shifts become renames except at
the loop's back edge. Unrolling never changes results (the same operations in the same order).
Measured: bench/results/2026-12-04-s30-edgering.md.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from patchlib import replace_once  # noqa: E402

WHO = "kunroll.py"
args = sys.argv[1:]
path = args.pop()
s = open(path).read()
LOOP = "for (long x_ = x0_; x_ < x1_; ++x_, p_ += s0_) {"


def unroll(s, kernel, n):
    """s with the plane loop of `kernel` (its first after the kernel's signature) unrolled n times."""
    a = s.index(") %s(" % kernel)  # the end of the signature's __launch_bounds__(...)
    b = s.index(LOOP, a)
    line = s.rindex("\n", 0, b) + 1
    indent = s[line:b]
    return s[:line] + "%s#pragma unroll %d  // %s\n" % (indent, n, WHO) + s[line:]


n_faces = n_inner = 0
while args:
    o = args.pop(0)
    if o == "--faces":
        n_faces = int(args.pop(0))
    elif o == "--inner":
        n_inner = int(args.pop(0))
    else:
        sys.exit(WHO + ": unknown option " + o)
if not (n_faces or n_inner):
    sys.exit(WHO + ": nothing to do (--faces N and/or --inner N)")
if n_faces:
    s = replace_once(s, "__launch_bounds__(kBlockX * kBlockY) sweepPart_tma(", "__launch_bounds__(kBlockX * kBlockY, 3) sweepPart_tma(", WHO)
    s = unroll(s, "sweepPart", n_faces)
    s = unroll(s, "sweepPart_tma", n_faces)
if n_inner:
    s = unroll(s, "sweepPart_inner", n_inner)
open(path, "w").write(s)
print("%s: faces unrolled %d, inner %d: %s" % (WHO, n_faces, n_inner, path))
