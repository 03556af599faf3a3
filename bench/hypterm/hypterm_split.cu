// Hand-written experiment (session 22): CNS hypterm with the block's threads split by output, against
// stnc's fused group kernel (bench/workloads/hypterm_c.stn, stream schedule with rings and queue heads from
// global memory: 246 registers per thread, 8 warps per SM, 0.56 of the memory floor at 256^3).
//
// Question (issue 6, hypterm row): is register pressure the lever? stnc's fused kernel gives every thread all
// five outputs of its point, so each thread holds the dim-0 register queues of six fields (108 registers) and
// the SM runs 8 warps. Here a block has five warp groups over the same 32 x kBY tile (threadIdx.z = the
// output): every group reads the same shared-memory rings of the in-plane inputs (copied once per block by
// cp.async, kPF planes in flight), and each group keeps one dim-0 queue: its own product X_e (cons_imx,
// cons_imx*qu + qpres, cons_imy*qu, cons_imz*qu, (cons_iene + qpres)*qu) at 9 planes, loaded one plane
// ahead from global memory. The in-plane derivatives recompute their products at each offset, as stnc
// does. Same arithmetic as the fused kernel, same order: bit for bit stnc's result (both -fmad=false).
//   hypterm_split [N] [reps] [profile]       (N a multiple of 32; run by bench/hypterm/run.sh)
#include <cuda_runtime.h>

#include <cstdio>

#include "harness.h"

namespace {

using hypterm_bench::Fields;
using hypterm_bench::Harness;
using hypterm_bench::deriv;
using hypterm_bench::real;
constexpr int kOut = 5, kR = 4, kBX = 32, kCols = kBX + 2 * kR;
// The ring's fields, each a (kBY + 8) x 40 box per plane: the five read along j and k, then qv (read along j
// only: its 32 middle columns are copied) and qw (along k only: its kBY middle rows).
enum { IMX, IMY, IMZ, IENE, QP, QV, QW, kNF };

// The flux product of output E along axis `Axis` (0: i with qu, 1: j with qv, 2: k with qw) at one point: the
// axis' momentum for E = 0, else momentum_E * vel (+ qpres on the axis' own momentum), (cons_iene + qpres) * vel.
// get(f) reads input f (IMX, IMY, IMZ, IENE, QP, or VEL for the axis' velocity); only what E needs is read.
enum { VEL = kNF };
template <int E, int Axis, typename G>
__device__ __forceinline__ real product(G get) {
  if constexpr (E == 0) return get(Axis == 0 ? IMX : Axis == 1 ? IMY : IMZ);
  else if constexpr (E == 4) return (get(IENE) + get(QP)) * get(VEL);
  else if constexpr (E == Axis + 1) return get(E - 1) * get(VEL) + get(QP);
  else return get(E - 1) * get(VEL);
}

__device__ __forceinline__ unsigned smemAddr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void copy16(void* dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smemAddr(dst)), "l"(src));
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;"); }
template <int N>
__device__ __forceinline__ void waitGroups() { asm volatile("cp.async.wait_group %0;" ::"n"(N)); }

// X_E at plane x of column `col` from global memory.
template <int E>
__device__ __forceinline__ real productX(const Fields& F, long q) {
  return product<E, 0>([&](int f) {
    return __ldg(f == IMX ? F.imx + q : f == IMY ? F.imy + q : f == IMZ ? F.imz + q : f == IENE ? F.iene + q : f == QP ? F.qpres + q : F.qu + q);
  });
}

template <int E>
__device__ __forceinline__ void fillQueue(const Fields& F, long x0, long s0, long col, real q[9]) {
#pragma unroll
  for (int m = 0; m < 9; ++m) q[m] = productX<E>(F, (x0 - kR + m) * s0 + col);
}

// One plane of output E at this thread's point: S points at the point in the plane's ring slot. The next
// queue head (plane x+5) is loaded first and its product taken last, so its loads are in flight meanwhile.
template <int E, int kBY>
__device__ __forceinline__ void planeStep(const Fields& F, const real* S, long x, long x1, long s0, long col, real q[9], real d0, real d1, real d2) {
  constexpr int kBox = (kBY + 2 * kR) * kCols;
  const real head = x + 1 < x1 ? productX<E>(F, (x + kR + 1) * s0 + col) : 0.0;  // none past the halo
  const real dx = deriv([&](int m) { return q[4 + m]; });
  const real dy = deriv([&](int m) { return product<E, 1>([&](int f) { return S[(f == VEL ? QV : f) * kBox + m * kCols]; }); });
  const real dz = deriv([&](int m) { return product<E, 2>([&](int f) { return S[(f == VEL ? QW : f) * kBox + m]; }); });
  F.out[E][x * s0 + col] = -(d0 * dx + d1 * dy + d2 * dz);
#pragma unroll
  for (int m = 0; m < 8; ++m) q[m] = q[m + 1];
  q[8] = head;
}

template <int kBY, int kPF, int kMinBlocks>
__global__ void __launch_bounds__(kBX * kBY * kOut, kMinBlocks)
    split(const stnc_rt::Layout L, long n, long chunk, Fields F, real dxinv0, real dxinv1, real dxinv2) {
  constexpr int kRows = kBY + 2 * kR, kBox = kRows * kCols, kSlots = kPF + 1, kT = kBX * kBY * kOut;
  // 16-byte copies per plane: five full boxes (20 per row), qv's 16 middle ones per row, qw's middle rows.
  constexpr int kFull = kRows * (kCols / 2), kQv = kRows * (kBX / 2), kQw = kBY * (kCols / 2);
  constexpr int kCopies = 5 * kFull + kQv + kQw;
  extern __shared__ __align__(16) real ring[];  // [kSlots][kNF][kRows][kCols]
  const int tx = threadIdx.x, ty = threadIdx.y, e = threadIdx.z;
  const int tid = (e * kBY + ty) * kBX + tx;
  const long zb = static_cast<long>(blockIdx.x) * kBX, yb = static_cast<long>(blockIdx.y) * kBY;
  const long x0 = blockIdx.z * chunk, x1 = x0 + chunk < n ? x0 + chunk : n;
  const long s0 = L.stride[0];
  const long corner = stnc_rt::at(L, 0, yb - kR, zb - kR);  // plane 0's box corner
  // Plane x into ring slot s: every thread issues its share of the copies (constant divisors).
  auto issue = [&](long x, int s) {
    real* const slot = ring + static_cast<long>(s) * kNF * kBox;
    for (int c = tid; c < kCopies; c += kT) {
      int f, r, q;  // field, box row, 16-byte column
      if (c < 5 * kFull) { f = c / kFull; r = (c % kFull) / (kCols / 2); q = c % (kCols / 2); }
      else if (c < 5 * kFull + kQv) { const int d = c - 5 * kFull; f = QV; r = d / (kBX / 2); q = d % (kBX / 2) + kR / 2; }
      else { const int d = c - 5 * kFull - kQv; f = QW; r = d / (kCols / 2) + kR; q = d % (kCols / 2); }
      const real* const src = f == IMX ? F.imx : f == IMY ? F.imy : f == IMZ ? F.imz : f == IENE ? F.iene : f == QP ? F.qpres : f == QV ? F.qv : F.qw;
      copy16(slot + (f * kRows + r) * kCols + 2 * q, src + x * s0 + corner + r * L.stride[1] + 2 * q);
    }
  };
  const long col = stnc_rt::at(L, 0, yb + ty, zb + tx);
  for (int s = 0; s < kPF; ++s) {
    if (x0 + s < x1) issue(x0 + s, s);
    commit();
  }
  real q[9];  // X_e at planes x-4 .. x+4
  switch (e) {
    case 0: fillQueue<0>(F, x0, s0, col, q); break;
    case 1: fillQueue<1>(F, x0, s0, col, q); break;
    case 2: fillQueue<2>(F, x0, s0, col, q); break;
    case 3: fillQueue<3>(F, x0, s0, col, q); break;
    default: fillQueue<4>(F, x0, s0, col, q); break;
  }
  for (long x = x0; x < x1; ++x) {
    waitGroups<kPF - 1>();  // this thread's copies of plane x have landed
    __syncthreads();        // everyone's have, and everyone is done with plane x-1's slot
    if (x + kPF < x1) issue(x + kPF, static_cast<int>((x + kPF - x0) % kSlots));
    commit();
    const real* const S = ring + static_cast<long>((x - x0) % kSlots) * kNF * kBox + (ty + kR) * kCols + tx + kR;
    switch (e) {  // uniform in each warp
      case 0: planeStep<0, kBY>(F, S, x, x1, s0, col, q, dxinv0, dxinv1, dxinv2); break;
      case 1: planeStep<1, kBY>(F, S, x, x1, s0, col, q, dxinv0, dxinv1, dxinv2); break;
      case 2: planeStep<2, kBY>(F, S, x, x1, s0, col, q, dxinv0, dxinv1, dxinv2); break;
      case 3: planeStep<3, kBY>(F, S, x, x1, s0, col, q, dxinv0, dxinv1, dxinv2); break;
      default: planeStep<4, kBY>(F, S, x, x1, s0, col, q, dxinv0, dxinv1, dxinv2); break;
    }
  }
  waitGroups<0>();
}

template <int kBY, int kPF, int kMinBlocks>
void launch(const Harness& h, long chunk) {
  const long n = h.n;
  const size_t smem = static_cast<size_t>(kPF + 1) * kNF * (kBY + 2 * kR) * kCols * sizeof(real);
  static bool once = [&] {
    CK(cudaFuncSetAttribute(split<kBY, kPF, kMinBlocks>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    return true;
  }();
  (void)once;
  dim3 grid(static_cast<unsigned>(n / kBX), static_cast<unsigned>(n / kBY), static_cast<unsigned>((n + chunk - 1) / chunk));
  split<kBY, kPF, kMinBlocks><<<grid, dim3(kBX, kBY, kOut), smem>>>(h.L, n, chunk, h.fields(), h.d0, h.d1, h.d2);
  CK(cudaGetLastError());
}

}  // namespace

int main(int argc, char** argv) {
  Harness h(argc, argv);
  if (h.profile) return h.profileOnce([&] { launch<4, 2, 1>(h, 64); });  // for ncu
  h.begin();
  auto run = [&](const char* name, auto fn) { h.run(name, fn); };
  for (long chunk : {32L, 64L, 128L}) {
    char name[96];
#define SPLIT(BY, PF, MB)                                                                                              \
  std::snprintf(name, sizeof name, "split 32x%dx5, %d planes in flight, %d block(s)/SM, chunk %ld", BY, PF, MB, chunk); \
  run(name, [&] { launch<BY, PF, MB>(h, chunk); });
    SPLIT(4, 2, 1)
    SPLIT(4, 2, 2)
    SPLIT(4, 3, 1)
    SPLIT(4, 3, 2)
    SPLIT(6, 2, 1)
    SPLIT(2, 2, 3)
#undef SPLIT
  }
  return 0;
}
