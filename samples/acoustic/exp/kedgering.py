#!/usr/bin/env python3
"""Experiment (session 30, issue 8): kedgetile.py with eta and phi delivered ahead of use through shared-memory
rings in the edge tiles, in the generated acoustic.cu.

  kedgering.py [--no-divide] [--cheap-shell] [--no-copies] [--carveout] acoustic.cu

As kedgetile.py: the inner part's launch covers whole rows along dim 2 ([0, n)), the two k-face boxes go away, and
the tile columns holding k-face points (block-uniform edge_) compute them with the shell equations in the
generated default part's term order (shellPoint), reusing the inner body's u values and lap8(u): the sample's
--check decides bit for bit. What changes: eta (radius 1) and phi (radius 0) are not loaded through L1 at the
point of use but copied with cp.async into two more rings of the block's dynamic shared memory, clipped to the
32 columns around the tile's shell part (27 columns plus eta's k+-1, on 16-byte chunks):
  eta: 5 slots x 18 rows x 32 columns (planes i-1 .. i+1 read, i+2 in flight, i+3 being copied)
  phi: 3 slots x 16 rows x 32 columns (plane i read, i+1 in flight, i+2 being copied)
= 17664 bytes on top of the inner part's 94208 (111872: two blocks per SM still fit in 228 KiB). Only edge
blocks copy. The copies are issued after the plane's barrier (every thread is done with the previous plane, so
the slot read last there may be refilled: one slot less than issuing before the barrier, which would not fit)
and committed as a group of their own; the loop waits for all but the newest three groups (the main copies of
this plane and the previous one, and the previous plane's eta/phi group), which keeps the main rings' depth.
Hard-wired to the sample: PML width 27, one region, f32, the inner part's 4 columns per thread and 64 x 16
tiles; a row too short for the k-faces to lie in different tiles (n < 91) keeps the policy's boxes; the one-point fallback kernel of the
inner part (unaligned layouts, never taken by the sample) is not patched and would be WRONG on the k-faces.
--no-divide (timing only, WRONG results): the shell equations multiply where they divide.
--cheap-shell (timing only, WRONG results): the shell point adds up its inputs instead of the equations (the eta
and phi copies and loads stay): what the shell arithmetic costs.
--no-copies (timing only, WRONG results): the edge tiles issue no eta/phi copies (their rings are read as they are):
what delivering eta and phi costs.
--carveout: the launcher also asks for the largest shared-memory carveout (cudaFuncAttributePreferredSharedMemoryCarveout 100).
Measured: bench/results/2026-12-04-s30-edgering.md.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from patchlib import PML, inner_columns, inner_dim2, inner_kernel, replace_once, replace_store, shell_helper  # noqa: E402

WHO = "kedgering.py"
opts = sys.argv[1:-1]
path = sys.argv[-1]
s = open(path).read()
BASE, EXTRA = 94208, 5 * 18 * 32 * 4 + 3 * 16 * 32 * 4
ETA0, PHI0 = BASE // 4, BASE // 4 + 5 * 18 * 32  # float offsets of the rings in smem_

# 1. the inner launch over whole rows, no k-face boxes; its dynamic shared memory grows by the two rings
# (a row too short for the k-faces to lie in different tiles keeps the policy's boxes: edge_ is false there)
s = inner_dim2(s, "L_.n[2] >= %d ? 0 : {b}.lo[2]" % (64 + PML), "L_.n[2] >= %d ? L_.n[2] : {b}.hi[2]" % (64 + PML),
               WHO + ": whole rows, the k-faces in the edge tiles")
la = s.index("cudaError_t launchPart_inner(")
lb = s.index("}  // launchPart_inner", la)
launch = s[la:lb]
if "--carveout" in opts:  # the largest shared-memory carveout, asked for explicitly
    launch = replace_once(launch, "          static int occ_ = 0;", "          if (cudaError_t e_ = cudaFuncSetAttribute(sweepPart_inner, cudaFuncAttributePreferredSharedMemoryCarveout, 100)) return e_;  // %s --carveout\n          static int occ_ = 0;" % WHO, WHO)
if launch.count(str(BASE)) != 3:
    sys.exit(WHO + ": the inner launcher does not name %d bytes three times" % BASE)
s = s[:la] + launch.replace(str(BASE), str(BASE + EXTRA)) + s[lb:]
s = replace_once(s, "    // shared-memory rings: %d bytes per block, 2 block(s) per SM\n    " % BASE + "__global__ void __launch_bounds__(kBlockX * kBlockY) sweepPart_inner(",
                 "    // shared-memory rings: %d bytes per block (%s: + eta and phi rings for the edge tiles), 2 block(s) per SM\n    " % (BASE + EXTRA, WHO)
                 + "__global__ void __launch_bounds__(kBlockX * kBlockY) sweepPart_inner(", WHO)

# 2. the shell point, in the default part's term order
a, _ = inner_kernel(s)
if "--cheap-shell" not in opts:
    s = s[:a] + shell_helper(WHO, "--no-divide" in opts) + s[a:]
else:
    s = s[:a] + """// %s --cheap-shell (timing only, WRONG): every input of the shell point used once, a few additions
    __device__ __forceinline__ void shellPoint(float u0, float lap, float v0, float r, float e0, float exp_, float exm_, float eyp_, float eym_, float ezp_, float ezm_, float uxp_, float uxm_, float uyp_, float uym_, float uzp_, float uzm_, float phi0, float& vo, float& po) {
      vo = (u0 + lap) + (v0 + r) + (e0 + exp_) + (exm_ + eyp_) + (eym_ + ezp_) + (ezm_ + phi0);
      po = (uxp_ + uxm_) + (uyp_ + uym_) + (uzp_ + uzm_) + phi0;
    }
    """ % WHO + s[a:]

# 3. the inner kernel (--no-copies, timing only, WRONG: the edge tiles read whatever their eta/phi rings hold)
COPY = "false /* --no-copies */" if "--no-copies" in opts else "edge_"
a, b = inner_kernel(s)
k = s[a:b]
# two blocks per SM must stay (the rings are sized for it): at most 128 registers, whatever the variant
k = replace_once(k, "__launch_bounds__(kBlockX * kBlockY) sweepPart_inner(", "__launch_bounds__(kBlockX * kBlockY, 2) sweepPart_inner(", WHO)
k = replace_once(k, "(void)eta; (void)phi; ", "", WHO)
k = replace_once(k, "      const bool whole_ = z_ >= B_.lo[2] && z_ + kVec <= B_.hi[2];\n",
                 """      const bool whole_ = z_ >= B_.lo[2] && z_ + kVec <= B_.hi[2];
      // %s: tiles holding k-face points (block-uniform) compute them; their eta/phi rings start at column zc_
      // (16-byte aligned, 4 before the tile's shell part, which is at most %d columns: 32 columns hold it and k+-1).
      const long rlo_ = %d, rhi_ = L_.n[2] - %d;
      const bool edge_ = (zb_ < rlo_ || zb_ + kBlockX * kVec > rhi_) && L_.n[2] >= kBlockX * kVec + rlo_;  // (the launcher's test)
      const long zc_ = zb_ < rlo_ || zb_ >= rhi_ ? zb_ - 4 : stnc_rt::alignDown(rhi_ - 1, 4);
      const bool shellThread_ = edge_ && z_ < B_.hi[2] && z_ + kVec > B_.lo[2] && (z_ < rlo_ || z_ + kVec > rhi_);  // columns z_ - zc_ in [0, 28]
""" % (WHO, PML, PML, PML), WHO)
k = replace_once(k, "      extern __shared__ float4 smem_[];  // %d bytes, 16-byte aligned\n" % BASE,
                 "      extern __shared__ float4 smem_[];  // %d bytes, 16-byte aligned\n" % (BASE + EXTRA), WHO)
k = replace_once(k, "      const real* const vT_ = vS_ + (threadIdx.y) * 64 + threadIdx.x * kVec;  // this thread's point in slot 0\n",
                 """      const real* const vT_ = vS_ + (threadIdx.y) * 64 + threadIdx.x * kVec;  // this thread's point in slot 0
      real* const etaS_ = reinterpret_cast<real*>(smem_) + %d;  // %s: eta, 5 slots x 18 rows x 32 columns, planes i-1 .. i+1
      real* const phiS_ = reinterpret_cast<real*>(smem_) + %d;  // %s: phi, 3 slots x 16 rows x 32 columns, plane i
      const stnc_rt::RingCopier<real, 18, 32, kBlockX * kBlockY, false> etaC_(L_, etaS_, yb_ - 1, zc_, tid_);
      const stnc_rt::RingCopier<real, 16, 32, kBlockX * kBlockY, false> phiC_(L_, phiS_, yb_, zc_, tid_);
      if (%s) {  // plane x0_+m of eta goes to slot (m + 1) %% 5, of phi to slot m %% 3
        etaC_.copy(0, eta, L_, x0_ - 1);
        etaC_.copy(1, eta, L_, x0_);
      }
""" % (ETA0, WHO, PHI0, WHO, COPY), WHO)
k = replace_once(k, """          vC_.copy((0 + i_) % 4, v, L_, x0_ + 0 + i_);
        }
        stnc_rt::cpAsyncCommit();
""", """          vC_.copy((0 + i_) %% 4, v, L_, x0_ + 0 + i_);
        }
        stnc_rt::cpAsyncCommit();
        if (%s) {  // %s: the eta/phi groups iterations x0_-2 .. x0_-1 would have issued after their barrier
          if (x0_ + 1 + i_ <= x1_) etaC_.copy((2 + i_) %% 5, eta, L_, x0_ + 1 + i_);
          if (x0_ + i_ < x1_) phiC_.copy(i_ %% 3, phi, L_, x0_ + i_);
        }
        stnc_rt::cpAsyncCommit();
""" % (COPY, WHO), WHO)
k = replace_once(k, """        stnc_rt::cpAsyncWait<2>();  // this thread's copies of the planes read now have landed
        __syncthreads();  // and every other thread's
""", """        stnc_rt::cpAsyncWait<3>();  // this thread's copies of the planes read now have landed (%s: 2 groups a plane)
        __syncthreads();  // and every other thread's
        if (%s) {  // %s: every thread is past the previous plane, so its eta/phi slots may be refilled
          if (x_ + 3 <= x1_) etaC_.copy((it_ + 4) %% 5, eta, L_, x_ + 3);
          if (x_ + 2 < x1_) phiC_.copy((it_ + 2) %% 3, phi, L_, x_ + 2);
        }
        stnc_rt::cpAsyncCommit();
""" % (WHO, COPY, WHO), WHO)

cols = inner_columns(k[:k.index("        if (act_) {\n          if (whole_) {")], WHO)
lane = "xyzw"
shell = ["        // %s: the tile columns holding k-face points compute them with the shell equations" % WHO,
         "        float vs_[4] = {v_r0_c0_, v_r0_c1_, v_r0_c2_, v_r0_c3_}, ps_[4] = {0.0f, 0.0f, 0.0f, 0.0f};",
         "        bool sh_[4] = {false, false, false, false};",
         "        if (shellThread_) {",
         "          const int col_ = (threadIdx.y + 1) * 32 + static_cast<int>(z_ - zc_);  // this thread's first column in an eta slot",
         "          const real* const e0S_ = etaS_ + ((it_ + 1) % 5) * 576 + col_;  // plane i",
         "          const float4 e0_ = *reinterpret_cast<const float4*>(e0S_);",
         "          const float4 exp_ = *reinterpret_cast<const float4*>(etaS_ + ((it_ + 2) % 5) * 576 + col_);",
         "          const float4 exm_ = *reinterpret_cast<const float4*>(etaS_ + (it_ % 5) * 576 + col_);",
         "          const float4 eyp_ = *reinterpret_cast<const float4*>(e0S_ + 32);",
         "          const float4 eym_ = *reinterpret_cast<const float4*>(e0S_ - 32);",
         "          const float ezl_ = e0S_[-1], ezr_ = e0S_[4];",
         "          const float4 ph_ = *reinterpret_cast<const float4*>(phiS_ + (it_ % 3) * 512 + col_ - 32);"]
for c, d in enumerate(cols):
    L = lane[c]
    ezp = "e0_." + lane[c + 1] if c < 3 else "ezr_"
    ezm = "e0_." + lane[c - 1] if c > 0 else "ezl_"
    shell += [
        "          if ((z_ + %d < rlo_ || z_ + %d >= rhi_) && z_ + %d >= B_.lo[2] && z_ + %d < B_.hi[2]) {" % (c, c, c, c),
        "            sh_[%d] = true;" % c,
        "            shellPoint(%s, %s, %s, %s, e0_.%s, exp_.%s, exm_.%s, eyp_.%s, eym_.%s, %s, %s, %s, %s, %s, %s, %s, %s, ph_.%s, vs_[%d], ps_[%d]);"
        % (d["u0"], d["lap"], d["v0"], d["r"], L, L, L, L, L, ezp, ezm, d["uxp"], d["uxm"], d["uyp"], d["uym"], d["uzp"], d["uzm"], L, c, c),
        "          }"]
shell += ["        }"]
k = replace_store(k, shell)
s = s[:a] + k + s[b:]
open(path, "w").write(s)
print(WHO + ": k-faces in the inner kernel's edge tiles, eta/phi through rings: " + path)
