#!/usr/bin/env python3
"""Experiment (session 25): the fused region kernel over the region's rows only.

Patches a --fuse-regions=on acoustic.cu so that launchSweep runs the fused kernel over the clip box cut to
the region's extent along dims 0 and 1 (the inner region plus the two PML faces thin along the contiguous
dim 2, whose 27-column rows the inner kernel's edge tiles already cover) and the default part's per-part
kernels over the rest (the four faces thin along dims 0 and 1, TMA slab kernels as before)."""
import sys

path = sys.argv[1]
s = open(path).read()
old = """        bool done_ = false;
        if ((e_ = fused_region::launchFused(L_, clip_, r_, u, roc2, eta, v, phi, stream_, done_)) != cudaSuccess || done_) return e_;
      }"""
new = """        bool done_ = false;
        stnc_rt::Box fb_ = clip_;
        for (int d_ = 0; d_ < 2; ++d_) { fb_.lo[d_] = r_.lo[d_]; fb_.hi[d_] = r_.hi[d_]; }
        if (!stnc_rt::boxEmpty(fb_))
          if ((e_ = fused_region::launchFused(L_, fb_, r_, u, roc2, eta, v, phi, stnc_rt::laneOf(lanes_, stream_, 0), done_)) != cudaSuccess) return e_;
        if (done_) {
          stnc_rt::Box rest_[64] = {clip_};
          const int nr_ = stnc_rt::subtractBox(rest_, 1, 64, fb_);
          if (nr_ < 0) return cudaErrorInvalidValue;
          for (int b_ = 0; b_ < nr_; ++b_)
            if (!stnc_rt::boxEmpty(rest_[b_])) if ((e_ = default_part::launchPart(L_, rest_[b_], u, roc2, eta, v, phi, stnc_rt::laneOf(lanes_, stream_, 1 + b_))) != cudaSuccess) return e_;
          return e_;
        }
      }"""
if s.count(old) != 1:
    sys.exit("kbox.py: the fused launch was not found once in " + path)
open(path, "w").write(s.replace(old, new))
