#!/usr/bin/env python3
"""Experiment (session 25): the fused region kernel over the region's rows only.

Patches a --fuse-regions=on acoustic.cu so that launchSweep runs the fused kernel over the clip box cut to
the region's extent along dims 0 and 1 (the inner region plus the two PML faces thin along the contiguous
dim 2, whose 27-column rows the inner kernel's edge tiles already cover) and the default part's per-part
kernels over the rest (the four faces thin along dims 0 and 1, TMA slab kernels as before).

  kbox.py [--sep] acoustic.cu     (--sep: the profiles stencil acoustic_sep, session 32)"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from patchlib import FIELDS, FIELDS_SEP, default_part_rest, fused_launch, replace_once  # noqa: E402

path = sys.argv[-1]
f = FIELDS_SEP if "--sep" in sys.argv[1:-1] else FIELDS
s = open(path).read()
new = """        bool done_ = false;
        stnc_rt::Box fb_ = clip_;
        for (int d_ = 0; d_ < 2; ++d_) { fb_.lo[d_] = r_.lo[d_]; fb_.hi[d_] = r_.hi[d_]; }
        if (!stnc_rt::boxEmpty(fb_))
          if ((e_ = fused_region::launchFused(L_, fb_, r_, """ + f + """, stnc_rt::laneOf(lanes_, stream_, 0), done_)) != cudaSuccess) return e_;
        if (done_) {
""" + default_part_rest("fb_", "          ", f) + """        }
      }"""
open(path, "w").write(replace_once(s, fused_launch(f), new, "kbox.py"))
