#!/usr/bin/env python3
"""Experiment (session 27): bounds on two launch-geometry changes of the generated acoustic.cu (issue 8).

  kedge.py [--kedge] [--inner-chunk N] acoustic.cu

--kedge         the inner region's part covers dim 2 only between multiples of 32 ([32, 768) at 800) and the PML
                faces thin along dim 2 widen to one whole 32-column tile each ([0, 32) and [768, 800)), so their
                rows start and end on 128-byte lines. The faces run the shell equations on the 5 + 5 columns that
                belong to the inner region: the RESULTS ARE WRONG THERE (phi changes where eta's neighbours are
                nonzero); run with AB_CHECK=none. It bounds what a face kernel with per-lane region dispatch
                (inner lanes run the inner body) could gain: it ignores the divergent inner lanes' cost.
--inner-chunk N the inner region's part streams N planes per block (the policy: 32).
--kfull         (session 29) the inner region's part covers whole rows along dim 2 ([0, n)) and the k-faces vanish:
                the inner equation on the k-faces' columns, WRONG there (no PML); a lower bound on a region kernel
                whose edge tiles also compute the k-faces (it moves the faces' u, v, roc2 bytes but not eta and
                phi, and runs no shell body). Run with AB_CHECK=none.
--l2-fetch N    cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, N) before main (a static initializer appended
                to the file): the L2's DRAM fetch granularity, 0..128 bytes.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from patchlib import inner_dim2  # noqa: E402

args = sys.argv[1:]
path = args.pop()
s = open(path).read()
n = 0
if "--kedge" in args:
    s = inner_dim2(s, "({b}.lo[2] + 31) / 32 * 32", "{b}.hi[2] / 32 * 32", "kedge.py")
    n += 1
if "--kfull" in args:
    s = inner_dim2(s, "0", "L_.n[2]", "kedge.py --kfull")
    n += 1
if "--inner-chunk" in args:
    chunk = int(args[args.index("--inner-chunk") + 1])
    start = s.index("cudaError_t launchPart_inner(")
    end = s.index("}  // launchPart_inner", start)
    body = s[start:end]
    old = "long chunk_ = kChunk > 0 ? kChunk : stnc_rt::ringChunk("
    if body.count(old) != 1:
        sys.exit("kedge.py: the inner part's ring chunk was not found once")
    body = body.replace(old, "long chunk_ = %d; (void)stnc_rt::ringChunk(" % chunk)
    s = s[:start] + body + s[end:]
    n += 1
if "--l2-fetch" in args:
    g = int(args[args.index("--l2-fetch") + 1])
    s += ("\n// kedge.py --l2-fetch: the L2's DRAM fetch granularity for the whole process\n"
          "#include <cstdio>\n"
          "static const int kedgeL2Fetch_ = [] {\n"
          "  const int e = static_cast<int>(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, %d));\n"
          "  size_t v = 0;\n"
          "  cudaDeviceGetLimit(&v, cudaLimitMaxL2FetchGranularity);\n"
          "  std::fprintf(stderr, \"kedge.py: L2 fetch granularity %%zu bytes (set: error %%d)\\n\", v, e);\n"
          "  return e;\n"
          "}();\n" % g)
    n += 1
if n == 0:
    sys.exit("kedge.py: nothing to do (give --kedge, --kfull, --inner-chunk N and/or --l2-fetch N)")
open(path, "w").write(s)
