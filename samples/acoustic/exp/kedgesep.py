#!/usr/bin/env python3
"""Experiment (session 32, issue 8): kedgetile.py for the profiles stencil (`acoustic_sep`, main.cpp `--eta
profiles`): the PML faces thin along dim 2 (the k-faces) computed inside the inner region kernel's edge tiles.

  kedgesep.py [--no-hoist] [--phi-direct] [--bounds2] acoustic.cu

Session 29's kedgetile.py lost on the 3-D eta's seven loads per shell point through L1 (174 vs 189 Gpts/s); its
timing-only bound without those loads reached 201.5. With eta as three 1-D profiles the shell points of the edge
tiles read only tiny arrays (L1-resident) and phi at the point, so the structure's bound is what remains.

The inner part's launch of acoustic_sep covers whole rows along dim 2 ([0, n), as kedge.py --kfull) and the two
k-face boxes go away. In the tile columns that hold k-face points (block-uniform test on the block's first
column), each thread computes, for each of its 4 columns outside the region (k < 27 or k >= n - 27), the shell
equations instead of the inner one, reusing the inner body's u values and lap8(u) (the same DAG nodes), in the
generated default part's term order (eta = (etax + etay) + etaz per shifted point), so the result stays bit for
bit (the sample's --check decides). v is stored with the inner part's vector logic, phi per point.

--no-hoist: the etay/etaz values are read inside the plane loop (default: once per thread, before it).
--phi-direct: phi is loaded where it is used (default: one plane ahead, into registers).
--bounds2: __launch_bounds__(256, 2) on the inner kernel (at most 128 registers: two blocks per SM).
Hard-wired to the sample: PML width 27, one region, f32, the inner part's 4 columns per thread.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from patchlib import INNER, PML, inner_columns, inner_dim2, inner_kernel, replace_once, replace_store, shell_helper  # noqa: E402

WHO = "kedgesep.py"
opts = sys.argv[1:-1]
path = sys.argv[-1]
for o in opts:
    if o not in ("--no-hoist", "--phi-direct", "--bounds2"):
        sys.exit("%s: unknown option %s" % (WHO, o))
hoist = "--no-hoist" not in opts
phiAhead = "--phi-direct" not in opts
src = open(path).read()
ns = src.index("namespace stn::acoustic_sep {")
head, s = src[:ns], src[ns:]
W = PML

# 1. kfull: the inner launch over whole rows, no k-face boxes
s = inner_dim2(s, "0", "L_.n[2]", WHO + ": whole rows, the k-faces in the edge tiles")

# 2. the shell point, in the default part's term order
a, _ = inner_kernel(s)
s = s[:a] + shell_helper(WHO) + s[a:]

# 3. in the inner kernel: the shell columns of the edge tiles
a, b = inner_kernel(s)
# acoustic_sep's kernels sit one namespace deeper than acoustic's: patchlib's texts are acoustic's indentation
k = "\n".join(l[2:] if l.startswith("  ") else l for l in s[a:b].split("\n"))
cols = inner_columns(k[:k.index("        if (act_) {\n          if (whole_) {")], WHO)


def lower(field, dims, x, y, z):
    return "%s[stnc_rt::lowerAt<%du, true>(L_, %s, %s, %s)]" % (field, dims, x, y, z)


def isShell(c):
    return "(z_ + %d < rlo_ || z_ + %d >= rhi_) && z_ + %d >= B_.lo[2] && z_ + %d < B_.hi[2]" % (c, c, c, c)


ETAYZ = [("ey0_", lower("etay", 2, 0, "y_", 0)), ("eyp_", lower("etay", 2, 0, "y_ + 1", 0)),
         ("eym_", lower("etay", 2, 0, "y_ - 1", 0))] + \
        [("ez%d_" % c, lower("etaz", 4, 0, 0, "z_ + %d" % (c - 1))) for c in range(6)]  # ez0_ = k - 1 .. ez5_ = k + 4
pre = ["      // %s: the k-faces' points in the edge tile columns (block-uniform)" % WHO,
       "      const long rlo_ = %d, rhi_ = L_.n[2] - %d;" % (W, W),
       "      const bool edge_ = zb_ < rlo_ || zb_ + kBlockX * kVec > rhi_;"]
if hoist:
    pre += ["      float %s;" % ", ".join("%s = 0.0f" % n for n, _ in ETAYZ),
            "      if (edge_) { %s }" % " ".join("%s = %s;" % (n, e) for n, e in ETAYZ)]
if phiAhead:
    pre += ["      float %s;" % ", ".join("phn%d_ = 0.0f" % c for c in range(4)),
            "      if (edge_ && act_) {"] + \
           ["        if (%s) phn%d_ = phi[p_ + %d];" % (isShell(c), c, c) for c in range(4)] + ["      }"]
loop = "      for (long x_ = x0_; x_ < x1_; ++x_, p_ += s0_) {\n"
if k.count(loop) != 1:
    sys.exit("%s: the inner kernel's plane loop not found once" % WHO)
k = k.replace(loop, "\n".join(pre) + "\n" + loop)

shell = ["        // %s: the tile columns holding k-face points compute them with the shell equations" % WHO,
         "        float vs_[4] = {v_r0_c0_, v_r0_c1_, v_r0_c2_, v_r0_c3_}, ps_[4] = {0.0f, 0.0f, 0.0f, 0.0f};",
         "        bool sh_[4] = {false, false, false, false};",
         "        if (edge_) {"]
if not hoist:
    shell += ["          const float %s;" % ", ".join("%s = %s" % (n, e) for n, e in ETAYZ)]
shell += ["          const float ex0_ = %s, exp_ = %s, exm_ = %s;" % (lower("etax", 1, "x_", 0, 0), lower("etax", 1, "x_ + 1", 0, 0),
                                                                   lower("etax", 1, "x_ - 1", 0, 0)),
          "          const float exy_ = ex0_ + ey0_;"]
if phiAhead:
    shell += ["          const float %s;" % ", ".join("ph%d_ = phn%d_" % (c, c) for c in range(4)),
              "          if (act_ && x_ + 1 < x1_) {  // phi of the next plane, in flight while this one computes"] + \
             ["            if (%s) phn%d_ = phi[p_ + s0_ + %d];" % (isShell(c), c, c) for c in range(4)] + ["          }"]
for c, d in enumerate(cols):
    ez, ezp, ezm = "ez%d_" % (c + 1), "ez%d_" % (c + 2), "ez%d_" % c
    phiAt = ("ph%d_" % c) if phiAhead else ("phi[p_ + %d]" % c)
    shell += [
        "          if (%s) {" % isShell(c),
        "            sh_[%d] = true;" % c,
        "            shellPoint(%s, %s, %s, %s, exy_ + %s, (exp_ + ey0_) + %s, (exm_ + ey0_) + %s, (ex0_ + eyp_) + %s, "
        "(ex0_ + eym_) + %s, exy_ + %s, exy_ + %s, %s, %s, %s, %s, %s, %s, %s, vs_[%d], ps_[%d]);"
        % (d["u0"], d["lap"], d["v0"], d["r"], ez, ez, ez, ez, ez, ezp, ezm,
           d["uxp"], d["uxm"], d["uyp"], d["uym"], d["uzp"], d["uzm"], phiAt, c, c),
        "          }"]
shell += ["        }"]
k = replace_store(k, shell)
k = "\n".join(("  " + l) if l else l for l in k.split("\n"))
s = s[:a] + k + s[b:]
if "--bounds2" in opts:  # after the kernel's text is found by its unchanged declaration
    s = replace_once(s, INNER, INNER.replace("(kBlockX * kBlockY)", "(kBlockX * kBlockY, 2)"), WHO)
open(path, "w").write(head + s)
print("%s: k-faces in acoustic_sep's inner kernel edge tiles (%s): %s" % (WHO, " ".join(opts) or "defaults", path))
