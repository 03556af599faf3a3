#!/usr/bin/env python3
"""random_npy.py OUT.npy f32|f64 N SEED: an N x N x N array of uniform values in [0, 1) as .npy (numpy when
installed; otherwise a slow pure-Python writer, for the small grids of a dry run)."""
import struct
import sys

out, t, n, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
try:
    import numpy as np
    np.save(out, np.random.default_rng(seed).random((n, n, n), dtype=np.float32 if t == "f32" else np.float64))
except ImportError:
    import random
    rng = random.Random(seed)
    descr = "<f4" if t == "f32" else "<f8"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d, %d), }" % (descr, n, n, n)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(out, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (n ** 3, "f" if t == "f32" else "d"), *(rng.random() for _ in range(n ** 3))))
