#!/usr/bin/env python3
"""Where two .npy arrays differ bit for bit: the first differences with their indices, values and bits.

    python3 scripts/gpu/npy_diff.py A.npy B.npy [--max N] [--show NAME=IN.npy ...] [--radius R]

For a failed comparison of the GPU check or the random campaign (their work directories keep every
variant's outputs and inputs as .npy): prints how many elements differ, then up to N of them as
`index  a  b  (bits a / bits b)`; with --show, the listed inputs' values at that index and its neighbours
within R along each axis (an input larger than the output by 2 h along an axis is taken to hold a halo
of h there: it is indexed at the output's index + h; the printed indices are the input's) (the boundary fills or reads that differ are usually visible there). Exit status 0
when the arrays are identical, 1 when they differ, 2 on a bad input. Pure Python (no numpy needed).
"""

import argparse
import itertools
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_check as gc  # noqa: E402  (.npy reading)

CODES = {"<f4": ("f", "I", 4), "<f8": ("d", "Q", 8)}


def load(path):
    descr, shape, data = gc.read_npy(path)
    if descr not in CODES:
        raise ValueError("%s: dtype %s (only <f4 and <f8)" % (path, descr))
    fc, ic, size = CODES[descr]
    n = 1
    for s in shape:
        n *= s
    if len(data) < n * size:
        raise ValueError("%s: %d bytes for %d elements" % (path, len(data), n))
    vals = struct.unpack("<%d%s" % (n, fc), data[:n * size])
    bits = struct.unpack("<%d%s" % (n, ic), data[:n * size])
    return shape, vals, bits, size


def flat(index, shape):
    f = 0
    for i, s in zip(index, shape):
        f = f * s + i
    return f


def unflat(f, shape):
    out = []
    for s in reversed(shape):
        out.append(f % s)
        f //= s
    return tuple(reversed(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--max", type=int, default=20, help="differences to print (default 20)")
    ap.add_argument("--show", action="append", default=[], metavar="NAME=IN.npy",
                    help="an input whose values around each printed difference to show (repeatable)")
    ap.add_argument("--radius", type=int, default=1, help="neighbourhood of --show along each axis (default 1)")
    args = ap.parse_args()
    try:
        sa, va, ba, size = load(args.a)
        sb, vb, bb, _ = load(args.b)
        shows = []
        for s in args.show:
            name, _, path = s.partition("=")
            if not path:
                raise ValueError("--show %s: expected NAME=IN.npy" % s)
            shows.append((name, load(path)))
    except (OSError, ValueError) as e:
        print("npy_diff: error: %s" % e, file=sys.stderr)
        return 2
    if sa != sb:
        print("npy_diff: error: shapes differ: %s vs %s" % (sa, sb), file=sys.stderr)
        return 2
    diff = [i for i in range(len(ba)) if ba[i] != bb[i]]
    print("%d of %d elements differ (shape %s)" % (len(diff), len(ba), "x".join(map(str, sa))))
    width = 2 * size
    for f in diff[:args.max]:
        idx = unflat(f, sa)
        print("  %s  %r  %r  (%0*x / %0*x)" % (idx, va[f], vb[f], width, ba[f], width, bb[f]))
        for name, (ss, vs, _, _) in shows:
            if len(ss) != len(sa):
                continue
            cells = []
            # An input with a halo (larger than the output by 2 h along an axis) is indexed at index + h.
            at0 = [i + (s - o) // 2 for i, s, o in zip(idx, ss, sa)]
            ranges = [range(max(0, i - args.radius), min(s, i + args.radius + 1)) for i, s in zip(at0, ss)]
            for at in itertools.product(*ranges):
                cells.append("%s=%r" % (",".join(map(str, at)), vs[flat(at, ss)]))
            print("    %s: %s" % (name, "  ".join(cells)))
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
