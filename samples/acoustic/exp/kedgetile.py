#!/usr/bin/env python3
"""Experiment (session 29, issue 8): the PML faces thin along dim 2 (the k-faces) computed inside the inner region
kernel's edge tiles, in the generated acoustic.cu.

  kedgetile.py [--prefetch-l1] acoustic.cu

--no-eta-loads (timing only, WRONG results): the shell points read eta = 0 and phi = 0 instead of loading them.
--no-divide (timing only, WRONG results): the shell equations multiply where they divide.
--prefetch-l1: the edge tiles' threads with shell columns also issue prefetch.global.L1 for the eta and phi rows
they read two planes ahead (no registers, no shared memory).

The inner part's launch covers whole rows along dim 2 ([0, n), as kedge.py --kfull) and the two k-face boxes go
away. In the tile columns that hold k-face points (block-uniform test on the block's first column), each thread
computes, for each of its 4 columns outside the region (k < 27 or k >= n - 27), the shell equations instead of
the inner one: the u values and lap8(u) are the inner body's own (the same DAG nodes, so the same temporaries:
lap8(u) is the value multiplied by roc2), eta (radius 1) and phi are loaded through L1, and the shell body is
written out in the generated default part's term order (acoustic.cu's sweepPart, with stnc_rt::divide), so the
result must stay bit for bit (the sample's --check decides). v is stored with the inner part's vector logic, phi
per point. Hard-wired to the sample: PML width 27, one region, f32, the inner part's 4 columns per thread.
Measured: bench/results/2026-12-04-s29-kfaces.md.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from patchlib import PML, inner_columns, inner_dim2, inner_kernel, replace_store, shell_helper  # noqa: E402

opts = sys.argv[1:-1]
path = sys.argv[-1]
s = open(path).read()
W = PML

# 1. kfull: the inner launch over whole rows, no k-face boxes
s = inner_dim2(s, "0", "L_.n[2]", "kedgetile.py: whole rows, the k-faces in the edge tiles")

# 2. the shell point, in the default part's term order
a, _ = inner_kernel(s)
s = s[:a] + shell_helper("kedgetile.py", "--no-divide" in opts) + s[a:]

# 3. in the inner kernel: the shell columns of the edge tiles
a, b = inner_kernel(s)
k = s[a:b]
noEta = "--no-eta-loads" in opts
cols = inner_columns(k[:k.index("        if (act_) {\n          if (whole_) {")], "kedgetile.py")

shell = ["        // kedgetile.py: the tile columns holding k-face points compute them with the shell equations",
         "        float vs_[4] = {v_r0_c0_, v_r0_c1_, v_r0_c2_, v_r0_c3_}, ps_[4] = {0.0f, 0.0f, 0.0f, 0.0f};",
         "        bool sh_[4] = {false, false, false, false};",
         "        const long rlo_ = %d, rhi_ = L_.n[2] - %d;" % (W, W),
         "        if (zb_ < rlo_ || zb_ + kBlockX * kVec > rhi_) {"]
# eta at the point and its six neighbours (the shellPoint argument order), phi at the point; --no-eta-loads: zeros
ETA_AT = ("q_", "q_ + s0_", "q_ - s0_", "q_ + s1_", "q_ - s1_", "q_ + 1", "q_ - 1")
etaLoads = ", ".join("0.0f" if noEta else "__ldg(&eta[%s])" % q for q in ETA_AT)
phiLoad = "0.0f" if noEta else "phi[q_]"
for c, d in enumerate(cols):
    shell += [
        "          if ((z_ + %d < rlo_ || z_ + %d >= rhi_) && z_ + %d >= B_.lo[2] && z_ + %d < B_.hi[2]) {" % (c, c, c, c),
        "            const long q_ = p_ + %d; (void)q_;" % c,
        "            sh_[%d] = true;" % c,
        "            shellPoint(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, vs_[%d], ps_[%d]);"
        % (d["u0"], d["lap"], d["v0"], d["r"], etaLoads, d["uxp"], d["uxm"], d["uyp"], d["uym"], d["uzp"], d["uzm"], phiLoad, c, c),
        "          }"]
if "--prefetch-l1" in opts:
    shell += [
        "          if (x_ + 2 < x1_ && z_ < B_.hi[2] && (z_ < rlo_ || z_ + 3 >= rhi_)) {  // kedgetile.py --prefetch-l1",
        "            const long f_ = p_ + 2 * s0_;",
        "            asm volatile(\"prefetch.global.L1 [%0];\" :: \"l\"(eta + f_));",
        "            asm volatile(\"prefetch.global.L1 [%0];\" :: \"l\"(eta + f_ + s1_));",
        "            asm volatile(\"prefetch.global.L1 [%0];\" :: \"l\"(eta + f_ - s1_));",
        "            asm volatile(\"prefetch.global.L1 [%0];\" :: \"l\"(eta + f_ + s0_));",
        "            asm volatile(\"prefetch.global.L1 [%0];\" :: \"l\"(phi + f_));",
        "          }"]
shell += ["        }"]
k = replace_store(k, shell)
k = k.replace("(void)eta; (void)phi; ", "", 1)
s = s[:a] + k + s[b:]
open(path, "w").write(s)
print("kedgetile.py: k-faces in the inner kernel's edge tiles: " + path)
