#!/usr/bin/env python3
"""Experiment (session 27): the fused region kernel on the dim-2 edge tiles only (issue 8).

Patches a --fuse-regions=on acoustic.cu so that launchSweep runs
  - the fused kernel (per-tile region dispatch: tiles wholly inside `inner` run its equations, others per point)
    over the region's extent along dims 0 and 1 and, along dim 2, the two edge boxes [clip lo, 64-aligned region
    start) and [64-aligned region end - 64, clip hi) (the fused kernel needs 48 columns or more),
  - the inner region's own part over the 64-aligned middle between them (whole 256-byte tile rows),
  - the default part over the rest (the four PML faces thin along dims 0 and 1, as before).
Results are exact (every point runs its own equations); the check applies."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from patchlib import FUSED_LAUNCH, default_part_rest, replace_once  # noqa: E402

path = sys.argv[1]
s = open(path).read()
new = """        // kfuse.py: edge boxes along dim 2 to the fused kernel, the aligned middle to the inner part.
        stnc_rt::Box rows_ = r_;
        rows_.lo[2] = clip_.lo[2]; rows_.hi[2] = clip_.hi[2];
        stnc_rt::Box e1_ = rows_, e2_ = rows_, mid_ = r_;
        const long a0_ = (r_.lo[2] + 63) / 64 * 64, a1_ = r_.hi[2] / 64 * 64 - 64;
        e1_.hi[2] = a0_; e2_.lo[2] = a1_; mid_.lo[2] = a0_; mid_.hi[2] = a1_;
        if (!stnc_rt::boxEmpty(r_) && a0_ < a1_) {
          bool d1_ = false, d2_ = false;
          if ((e_ = fused_region::launchFused(L_, e1_, r_, u, roc2, eta, v, phi, stnc_rt::laneOf(lanes_, stream_, 5), d1_)) != cudaSuccess) return e_;
          if ((e_ = fused_region::launchFused(L_, e2_, r_, u, roc2, eta, v, phi, stnc_rt::laneOf(lanes_, stream_, 6), d2_)) != cudaSuccess) return e_;
          if (!d1_ || !d2_) return cudaErrorInvalidValue;  // kfuse.py: an edge box the fused kernel refused
          if ((e_ = launchPart_inner(L_, mid_, u, roc2, eta, v, phi, stnc_rt::laneOf(lanes_, stream_, 0))) != cudaSuccess) return e_;
""" + default_part_rest("rows_", "          ") + """        }
      }"""
open(path, "w").write(replace_once(s, FUSED_LAUNCH, new, "kfuse.py"))
