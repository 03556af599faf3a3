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
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from patchlib import inner_dim2  # noqa: E402

path = sys.argv[-1]
s = open(path).read()
W = 27

# 1. kfull: the inner launch over whole rows, no k-face boxes
s = inner_dim2(s, "0", "L_.n[2]", "kedgetile.py: whole rows, the k-faces in the edge tiles")

# 2. the shell point, in the default part's term order
a = s.index("__global__ void __launch_bounds__(kBlockX * kBlockY) sweepPart_inner(")
helper = """// kedgetile.py: one PML point (the default part's v and phi equations, its term order, -fmad=false)
    __device__ __forceinline__ void shellPoint(float u0, float lap, float v0, float r, float e0, float exp_, float exm_, float eyp_, float eym_, float ezp_, float ezm_, float uxp_, float uxm_, float uyp_, float uym_, float uzp_, float uzm_, float phi0, float& vo, float& po) {
      const float t69 = 2.0f * e0, t70 = 2.0f + t69, t71 = e0 * e0, t72 = t70 - t71, t73 = t72 * u0, t74 = t73 - v0;
      const float t76 = lap + phi0, t77 = r * t76, t78 = t74 + t77, t79 = 1.0f + t69;
      vo = stnc_rt::divide(t78, t79);
      const float t84 = 0.5f * (exp_ - exm_), t86 = 0.5f * (uxp_ - uxm_), t87 = t84 * t86;
      const float t91 = 0.5f * (eyp_ - eym_), t93 = 0.5f * (uyp_ - uym_), t94 = t91 * t93, t95 = t87 + t94;
      const float t99 = 0.5f * (ezp_ - ezm_), t101 = 0.5f * (uzp_ - uzm_), t102 = t99 * t101, t103 = t95 + t102;
      const float t104 = phi0 - t103, t105 = 1.0f + e0;
      po = stnc_rt::divide(t104, t105);
    }
    """
if "--no-divide" in sys.argv[1:-1]:
    helper = helper.replace("vo = stnc_rt::divide(t78, t79);", "vo = t78 * t79;").replace("po = stnc_rt::divide(t104, t105);", "po = t104 * t105;")
s = s[:a] + helper + s[a:]

# 3. in the inner kernel: the shell columns of the edge tiles
a = s.index("__global__ void __launch_bounds__(kBlockX * kBlockY) sweepPart_inner(")
b = s.index("}  // sweepPart_inner", a)
k = s[a:b]
noEta = "--no-eta-loads" in sys.argv[1:-1]
store = k.index("        if (act_) {\n          if (whole_) {")
body = k[:store]


def name(off):
    return "u_%s_" % "_".join(("m%d" % -o) if o < 0 else str(o) for o in off)


def mustHave(v):
    if not re.search(r"const float %s = " % re.escape(v), body):
        sys.exit("kedgetile.py: no %s in the inner body" % v)
    return v


cols = []
for c in range(4):
    lapm = re.search(r"const float t\d+_ = roc2_0_0_%d_ \* (t\d+_);" % c, body)
    if not lapm:
        sys.exit("kedgetile.py: lap8 of column %d not found" % c)
    u = lambda di, dj, dk: mustHave(name((di, dj, c + dk)))
    cols.append(dict(lap=lapm.group(1), u0=u(0, 0, 0), v0=mustHave("v_0_0_%d_" % c), r=mustHave("roc2_0_0_%d_" % c),
                     uxp=u(1, 0, 0), uxm=u(-1, 0, 0), uyp=u(0, 1, 0), uym=u(0, -1, 0), uzp=u(0, 0, 1), uzm=u(0, 0, -1)))

shell = ["        // kedgetile.py: the tile columns holding k-face points compute them with the shell equations",
         "        float vs_[4] = {v_r0_c0_, v_r0_c1_, v_r0_c2_, v_r0_c3_}, ps_[4] = {0.0f, 0.0f, 0.0f, 0.0f};",
         "        bool sh_[4] = {false, false, false, false};",
         "        const long rlo_ = %d, rhi_ = L_.n[2] - %d;" % (W, W),
         "        if (zb_ < rlo_ || zb_ + kBlockX * kVec > rhi_) {"]
for c, d in enumerate(cols):
    shell += [
        "          if ((z_ + %d < rlo_ || z_ + %d >= rhi_) && z_ + %d >= B_.lo[2] && z_ + %d < B_.hi[2]) {" % (c, c, c, c),
        "            const long q_ = p_ + %d; (void)q_;" % c,
        "            sh_[%d] = true;" % c,
        "            shellPoint(%s, %s, %s, %s, __ldg(&eta[q_]), __ldg(&eta[q_ + s0_]), __ldg(&eta[q_ - s0_]), __ldg(&eta[q_ + s1_]), __ldg(&eta[q_ - s1_]), __ldg(&eta[q_ + 1]), __ldg(&eta[q_ - 1]), %s, %s, %s, %s, %s, %s, phi[q_], vs_[%d], ps_[%d]);"
        % (d["u0"], d["lap"], d["v0"], d["r"], d["uxp"], d["uxm"], d["uyp"], d["uym"], d["uzp"], d["uzm"], c, c),
        "          }"]
if "--prefetch-l1" in sys.argv[1:-1]:
    shell += [
        "          if (x_ + 2 < x1_ && z_ < B_.hi[2] && (z_ < rlo_ || z_ + 3 >= rhi_)) {  // kedgetile.py --prefetch-l1",
        "            const long f_ = p_ + 2 * s0_;",
        "            asm volatile(\"prefetch.global.L1 [%0];\" :: \"l\"(eta + f_));",
        "            asm volatile(\"prefetch.global.L1 [%0];\" :: \"l\"(eta + f_ + s1_));",
        "            asm volatile(\"prefetch.global.L1 [%0];\" :: \"l\"(eta + f_ - s1_));",
        "            asm volatile(\"prefetch.global.L1 [%0];\" :: \"l\"(eta + f_ + s0_));",
        "            asm volatile(\"prefetch.global.L1 [%0];\" :: \"l\"(phi + f_));",
        "          }"]
if noEta:
    shell = [l.replace("__ldg(&eta[q_])", "0.0f").replace("__ldg(&eta[q_ + s0_])", "0.0f").replace("__ldg(&eta[q_ - s0_])", "0.0f")
             .replace("__ldg(&eta[q_ + s1_])", "0.0f").replace("__ldg(&eta[q_ - s1_])", "0.0f").replace("__ldg(&eta[q_ + 1])", "0.0f")
             .replace("__ldg(&eta[q_ - 1])", "0.0f").replace("phi[q_], vs_", "0.0f, vs_") for l in shell]
shell += ["        }"]
newstore = """        if (act_) {
          if (whole_) {
            stnc_rt::storeOnce(reinterpret_cast<float4*>(&v[p_]), float4{vs_[0], vs_[1], vs_[2], vs_[3]});
          }
          else {  // the box's first or last column group
            if (z_ + 0 >= B_.lo[2] && z_ + 0 < B_.hi[2]) v[p_] = vs_[0];
            if (z_ + 1 >= B_.lo[2] && z_ + 1 < B_.hi[2]) v[p_ + 1] = vs_[1];
            if (z_ + 2 >= B_.lo[2] && z_ + 2 < B_.hi[2]) v[p_ + 2] = vs_[2];
            if (z_ + 3 >= B_.lo[2] && z_ + 3 < B_.hi[2]) v[p_ + 3] = vs_[3];
          }
          if (sh_[0]) phi[p_] = ps_[0];
          if (sh_[1]) phi[p_ + 1] = ps_[1];
          if (sh_[2]) phi[p_ + 2] = ps_[2];
          if (sh_[3]) phi[p_ + 3] = ps_[3];
        }
"""
oldstore_end = k.index("        }\n", k.index("          else {  // the box's first or last column group", store))
oldstore_end = k.index("        }\n", oldstore_end + 1) + len("        }\n")
k = k[:store] + "\n".join(shell) + "\n" + newstore + k[oldstore_end:]
k = k.replace("(void)eta; (void)phi; ", "", 1)
s = s[:a] + k + s[b:]
open(path, "w").write(s)
print("kedgetile.py: k-faces in the inner kernel's edge tiles: " + path)
