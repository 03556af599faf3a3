#!/usr/bin/env python3
"""Experiment (session 29, issue 8): horizontal fusion of the inner region's kernel with the two PML faces thin
along dim 2 (the k-faces), as one launch, in the generated acoustic.cu.

  khf.py [--order lo-inner-hi|faces-last] acoustic.cu

Why: samples/acoustic/exp/pattern.cu measured the step's access pattern alone (pointwise kernels, no stencil):
the k-faces as kernels of their own read 2-3 DRAM atoms per 3.4 KB row (0.72 of the copy rate); the same bytes
read by one kernel sweeping whole rows (the k-faces' columns with the inner box's) cost 67 µs less per step.
The generated k-face kernels take 189 µs each (0.52).

What: the default part's ring kernel (sweepPart) and the inner region's (sweepPart_inner) get __device__ copies
taking their block index and grid size as arguments; a new kernel sweepHF dispatches per block (block-uniform,
no divergence): tile column 0 runs the default part over the low k-face, columns 1 .. gx the inner part, column
gx + 1 the default part over the high k-face. Same block size (16x16) and chunk (32 planes) in both parts, the
inner part's banding for all, the larger shared-memory size (92 KiB, two blocks per SM). launchSweep launches it
in place of the inner kernel and the two k-face kernels when the clip box holds both faces whole.
Measured (bench/results/2026-12-04-s29-kfaces.md): 181.6 vs 188.6 Gpts/s zero fields, sweepHF 2194 µs against
1766 + 2 x 189: a dead end. Known limit: each k-face gets one tile column, so grids where a face straddles two
(the check's 128x120x112) come out wrong; at 800 the faces are one column each and the timing stands.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from patchlib import replace_once  # noqa: E402

args = sys.argv[1:]
path = args.pop()
order = "lo-inner-hi"
if "--order" in args:
    order = args[args.index("--order") + 1]
s = open(path).read()


def kernel_span(text, head):
    a = text.index(head)
    b = text.index("{", a)
    depth = 0
    for q in range(b, len(text)):
        if text[q] == "{":
            depth += 1
        elif text[q] == "}":
            depth -= 1
            if depth == 0:
                return a, q + 1
    raise SystemExit("khf.py: unbalanced kernel " + head)


def device_copy(text, name):
    head = "__global__ void __launch_bounds__(kBlockX * kBlockY) %s(" % name
    a, b = kernel_span(text, head)
    body = text[a:b]
    dev = body.replace(head, "__device__ __forceinline__ void %s_dev(const uint3 bI_, const dim3 gD_, " % name, 1)
    dev = dev.replace("blockIdx.", "bI_.").replace("gridDim.", "gD_.")
    ins = "\n      // khf.py: the kernel above as a device function of its block index\n      " + dev
    return text[:b] + ins + text[b:], b + len(ins)


s, _ = device_copy(s, "sweepPart")
s, end_inner = device_copy(s, "sweepPart_inner")

params = "const real* __restrict__ u, const real* __restrict__ roc2, const real* __restrict__ eta, real* __restrict__ v, real* __restrict__ phi"
args_ = "u, roc2, eta, v, phi"
if order == "lo-inner-hi":
    dispatch = """      const unsigned x_ = blockIdx.x;
      if (x_ == 0) default_part::sweepPart_dev(make_uint3(0, blockIdx.y, blockIdx.z), dim3(1, gridDim.y, gridDim.z), L_, Blo_, chunk_, %s);
      else if (x_ <= gxi_) sweepPart_inner_dev(make_uint3(x_ - 1, blockIdx.y, blockIdx.z), dim3(gxi_, gridDim.y, gridDim.z), L_, Bi_, chunk_, %s);
      else default_part::sweepPart_dev(make_uint3(0, blockIdx.y, blockIdx.z), dim3(1, gridDim.y, gridDim.z), L_, Bhi_, chunk_, %s);""" % (args_, args_, args_)
else:
    dispatch = """      const unsigned x_ = blockIdx.x;
      if (x_ < gxi_) sweepPart_inner_dev(make_uint3(x_, blockIdx.y, blockIdx.z), dim3(gxi_, gridDim.y, gridDim.z), L_, Bi_, chunk_, %s);
      else default_part::sweepPart_dev(make_uint3(0, blockIdx.y, blockIdx.z), dim3(1, gridDim.y, gridDim.z), L_, x_ == gxi_ ? Blo_ : Bhi_, chunk_, %s);""" % (args_, args_)

hf = """
    // khf.py: the low k-face, the inner region and the high k-face as one launch (per-block dispatch)
    __global__ void __launch_bounds__(kBlockX * kBlockY) sweepHF(const stnc_rt::Layout L_, const stnc_rt::Box Bi_, const stnc_rt::Box Blo_, const stnc_rt::Box Bhi_, const long chunk_, const unsigned gxi_, %s) {
%s
    }
    cudaError_t launchHF(const stnc_rt::Layout& L_, const stnc_rt::Box& b_, const stnc_rt::Box& blo_, const stnc_rt::Box& bhi_, %s, cudaStream_t stream_) {
      static int sms_ = 0;
      if (sms_ == 0) {
        int dev_ = 0;
        if (cudaGetDevice(&dev_) != cudaSuccess || cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, dev_) != cudaSuccess || sms_ <= 0) sms_ = 132;
      }
      const long nx_ = b_.hi[0] - b_.lo[0];
      const long gx_ = (b_.hi[2] - stnc_rt::alignDown(b_.lo[2], kBlockX * 4) + kBlockX * 4 - 1) / (kBlockX * 4), gy_ = (b_.hi[1] - b_.lo[1] + kBlockY * 1 - 1) / (kBlockY * 1);
      if (cudaError_t e_ = cudaFuncSetAttribute(sweepHF, cudaFuncAttributeMaxDynamicSharedMemorySize, 94208)) return e_;
      static int occ_ = 0;
      if (occ_ == 0 && (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_, sweepHF, kBlockX * kBlockY, 94208) != cudaSuccess || occ_ <= 0)) occ_ = 2;
      long chunk_ = stnc_rt::ringChunk(nx_, gx_ * gy_, occ_, kBlockX * kBlockY, sms_, 32L, false, 32L);
      if (chunk_ < 1) chunk_ = 1;
      if (chunk_ > nx_) chunk_ = nx_;
      const long nz_ = (nx_ + chunk_ - 1) / chunk_, rowsB_ = stnc_rt::ringBandRows(gx_ + 2, gy_, nz_, occ_, sms_);
      if ((gy_ + rowsB_ - 1) / rowsB_ * nz_ > 65535) return cudaErrorInvalidConfiguration;
      const dim3 grid_(static_cast<unsigned>(gx_ + 2), static_cast<unsigned>(rowsB_), static_cast<unsigned>((gy_ + rowsB_ - 1) / rowsB_ * nz_));
      sweepHF<<<grid_, dim3(kBlockX, kBlockY, 1), 94208, stream_>>>(L_, b_, blo_, bhi_, chunk_, static_cast<unsigned>(gx_), %s);
      return cudaGetLastError();
    }
""" % (params, dispatch, "const real* u, const real* roc2, const real* eta, real* v, real* phi", args_)
s = s[:end_inner] + hf + s[end_inner:]

old_loop = """      for (int b_ = 0; b_ < nb_; ++b_)
        if (!stnc_rt::boxEmpty(boxes_[b_])) if ((e_ = default_part::launchPart("""
new_loop = """      const stnc_rt::Box ib_ = stnc_rt::intersect(clip_, stnc_rt::regionBox(L_, kLo_inner, kHi_inner));
      int klo_ = -1, khi_ = -1;  // khf.py: the k-faces (the inner box's rows, along dim 2 before and after it)
      for (int b_ = 0; b_ < nb_; ++b_) {
        const stnc_rt::Box& q_ = boxes_[b_];
        if (q_.lo[0] == ib_.lo[0] && q_.hi[0] == ib_.hi[0] && q_.lo[1] == ib_.lo[1] && q_.hi[1] == ib_.hi[1]) {
          if (q_.hi[2] == ib_.lo[2] && q_.hi[2] - q_.lo[2] >= 24) klo_ = b_;
          if (q_.lo[2] == ib_.hi[2] && q_.hi[2] - q_.lo[2] >= 24) khi_ = b_;
        }
      }
      const bool hf_ = klo_ >= 0 && khi_ >= 0 && ib_.hi[2] - ib_.lo[2] >= 48 && L_.origin % 4 == 0 && L_.stride[1] % 4 == 0 && L_.stride[0] % 4 == 0;
      for (int b_ = 0; b_ < nb_; ++b_)
        if (!(hf_ && (b_ == klo_ || b_ == khi_)))
        if (!stnc_rt::boxEmpty(boxes_[b_])) if ((e_ = default_part::launchPart("""
s = replace_once(s, old_loop, new_loop, "khf.py")
old_inner = """        if (!stnc_rt::boxEmpty(b_)) if ((e_ = launchPart_inner(L_, b_, u, roc2, eta, v, phi, stnc_rt::laneOf(lanes_, stream_, 0))) != cudaSuccess) return e_;"""
new_inner = """        if (hf_) { if ((e_ = launchHF(L_, b_, boxes_[klo_], boxes_[khi_], u, roc2, eta, v, phi, stnc_rt::laneOf(lanes_, stream_, 0))) != cudaSuccess) return e_; }
        else if (!stnc_rt::boxEmpty(b_)) if ((e_ = launchPart_inner(L_, b_, u, roc2, eta, v, phi, stnc_rt::laneOf(lanes_, stream_, 0))) != cudaSuccess) return e_;"""
s = replace_once(s, old_inner, new_inner, "khf.py")
open(path, "w").write(s)
print("khf.py: sweepHF (order %s) in %s" % (order, path))
