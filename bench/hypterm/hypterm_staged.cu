// Hand-written experiment (session 11): CNS hypterm with the pointwise flux products staged once per
// point, against stnc's fused group kernel (bench/workloads/hypterm_c.stn, stream schedule, which
// recomputes each product at each of the 8 offsets its derivative reads: 375 flops and ~102 loads per point).
//
// Staging (Devito's CIRE, the research note's recipe for hypterm): output c uses D(X_c) along i,
// D(Y_c) along j and D(Z_c) along k, where X_c, Y_c, Z_c are pointwise products of the inputs at one
// point (X_1 = cons_imx*qu + qpres, Y_4 = (cons_iene+qpres)*qv, ...). Per plane i a block computes
//   - X_c at the lead plane i+4 for its own column (global loads) into a register queue of 9 planes,
//   - Y_c on a (kBY+8) x 32 tile and Z_c on a kBY x 40 tile of plane i+1 into shared memory (double
//     buffered: one barrier per plane), from global loads of the 6 inputs each needs,
// and evaluates the five outputs from the queue and the tiles, in the source's operation order, so the
// result is bit for bit stnc's (both built with -fmad=false). Loads per point: 6 lead + about 20 tile
// (halo recompute) instead of ~102; products once per point instead of 8 times.
//   hypterm_staged [N] [reps] [profile]       (N a multiple of 32; run by bench/hypterm/run.sh)
#include <cuda_runtime.h>

#include <cstdio>

#include "harness.h"

namespace {

using hypterm_bench::Fields;
using hypterm_bench::Harness;
using hypterm_bench::deriv;
using hypterm_bench::real;

template <int Level>
__device__ __forceinline__ void prefetchLine(const double* p) {
  if constexpr (Level == 1) asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
  else if constexpr (Level == 2) asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

// The five products along one axis at point q: the axis' momentum, then each momentum times the axis'
// velocity m (qu, qv or qw), qpres added to the axis' own one (X_1, Y_2, Z_3), and (cons_iene + qpres) * m.
template <int Axis>
__device__ __forceinline__ void products(const Fields& F, long q, real out[5]) {
  // __ldg: read-only loads the compiler may move across the output stores (Fields carries no restrict).
  const real imx = __ldg(F.imx + q), imy = __ldg(F.imy + q), imz = __ldg(F.imz + q), iene = __ldg(F.iene + q), p = __ldg(F.qpres + q);
  const real m = __ldg(Axis == 0 ? F.qu + q : Axis == 1 ? F.qv + q : F.qw + q);
  out[0] = Axis == 0 ? imx : Axis == 1 ? imy : imz;
  out[1] = Axis == 0 ? imx * m + p : imx * m;
  out[2] = Axis == 1 ? imy * m + p : imy * m;
  out[3] = Axis == 2 ? imz * m + p : imz * m;
  out[4] = (iene + p) * m;
}

// A tile of kTile points (rows of kCols) shared by kT threads, kPer points each at most: the offsets of this
// thread's points from the start of a plane, the products of axis Axis at them into slot b of S, and
// prefetches of their lines (Level 1: L1, 2: L2; non-binding, no registers held while the lines travel).
template <int kTile, int kCols, int kT, int kPer>
struct Tile {
  int off[kPer];
  __device__ Tile(const stnc_rt::Layout& L, int tid, long row0, long col0) {
#pragma unroll
    for (int s = 0; s < kPer; ++s) {
      const int idx = tid + s * kT;
      off[s] = static_cast<int>(stnc_rt::at(L, 0, row0 + idx / kCols, col0 + idx % kCols));  // int: fewer registers
    }
  }
  __device__ static bool mine(int tid, int s) { return kTile % kT == 0 || tid + s * kT < kTile; }
  template <int Axis>
  __device__ void fill(const Fields& F, long plane, int tid, real* S, int b) const {
#pragma unroll
    for (int s = 0; s < kPer; ++s) {
      if (!mine(tid, s)) break;
      real v[5];
      products<Axis>(F, plane + off[s], v);
#pragma unroll
      for (int e = 0; e < 5; ++e) S[(b * 5 + e) * kTile + tid + s * kT] = v[e];
    }
  }
  template <int Level>
  __device__ void prefetch(const real* plane, int tid) const {
#pragma unroll
    for (int s = 0; s < kPer; ++s)
      if (mine(tid, s)) prefetchLine<Level>(plane + off[s]);
  }
};

// kPrefetch: 0 none; 1 / 2: prefetch.global.L1 / .L2 of the lines of plane x+2's tiles and lead column.
template <int kBY, int kMinBlocks, int kUnroll, int kPrefetch>
__global__ void __launch_bounds__(32 * kBY, kMinBlocks)
    staged(const stnc_rt::Layout L, long n, long chunk, Fields F, real dxinv0, real dxinv1, real dxinv2) {
  constexpr int kBX = 32, kT = kBX * kBY, kR = 4;
  constexpr int kYTile = (kBY + 2 * kR) * kBX, kZTile = kBY * (kBX + 2 * kR);
  extern __shared__ real smem_[];
  real* const Ys = smem_;                 // [2][5][kBY + 8][32]
  real* const Zs = smem_ + 2 * 5 * kYTile;  // [2][5][kBY][40]
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kBX + tx;
  const long zb = blockIdx.x * kBX, yb = blockIdx.y * kBY, z = zb + tx, y = yb + ty;
  const long x0 = blockIdx.z * chunk, x1 = x0 + chunk < n ? x0 + chunk : n;
  // The tile points this thread computes are the same on every plane: their offsets are worked out once
  // (the first version divided tile indices per plane).
  const Tile<kYTile, kBX, kT, (kYTile + kT - 1) / kT> yT(L, tid, yb - kR, zb);
  const Tile<kZTile, kBX + 2 * kR, kT, (kZTile + kT - 1) / kT> zT(L, tid, yb, zb - kR);
  const long s0 = L.stride[0];
  auto tiles = [&](long x, int b) {
    yT.template fill<1>(F, x * s0, tid, Ys, b);
    zT.template fill<2>(F, x * s0, tid, Zs, b);
  };
  auto prefetchPlane = [&](long x) {
    const real* const ins[8] = {F.imx, F.imy, F.imz, F.iene, F.qu, F.qv, F.qw, F.qpres};
#pragma unroll
    for (int f = 0; f < 8; ++f) {
      yT.template prefetch<kPrefetch>(ins[f] + x * s0, tid);
      zT.template prefetch<kPrefetch>(ins[f] + x * s0, tid);
      prefetchLine<kPrefetch>(ins[f] + stnc_rt::at(L, x + kR, y, z));
    }
  };
  real q[5][9];  // X_c at planes x-4 .. x+4
  for (int m = 0; m < 8; ++m) {
    real v[5];
    products<0>(F, stnc_rt::at(L, x0 - kR + m, y, z), v);
#pragma unroll
    for (int e = 0; e < 5; ++e) q[e][m] = v[e];
  }
  tiles(x0, 0);
  __syncthreads();
#pragma unroll kUnroll  // with 3, most of the queue shifts below become renames
  for (long x = x0; x < x1; ++x) {
    const int b = static_cast<int>((x - x0) & 1);
    {  // the lead plane's X first: its loads are in flight while the tiles' are issued
      real v[5];
      products<0>(F, stnc_rt::at(L, x + kR, y, z), v);
#pragma unroll
      for (int e = 0; e < 5; ++e) q[e][8] = v[e];
    }
    if (kPrefetch && x + 2 < x1) prefetchPlane(x + 2);
    if (x + 1 < x1) tiles(x + 1, b ^ 1);
    const long p = stnc_rt::at(L, x, y, z);
#pragma unroll
    for (int e = 0; e < 5; ++e) {
      const real* Y = Ys + (b * 5 + e) * kYTile + (ty + kR) * kBX + tx;
      const real* Z = Zs + (b * 5 + e) * kZTile + ty * (kBX + 2 * kR) + tx + kR;
      const real dx = deriv([&](int m) { return q[e][4 + m]; });
      const real dy = deriv([&](int m) { return Y[m * kBX]; });
      const real dz = deriv([&](int m) { return Z[m]; });
      F.out[e][p] = -(dxinv0 * dx + dxinv1 * dy + dxinv2 * dz);
    }
#pragma unroll
    for (int e = 0; e < 5; ++e)
#pragma unroll
      for (int m = 0; m < 8; ++m) q[e][m] = q[e][m + 1];
    __syncthreads();
  }
}

template <int kBY, int kMinBlocks, int kUnroll = 1, int kPrefetch = 0>
void launch(const Harness& h, long chunk) {
  const long n = h.n;
  const size_t smem = 2 * 5 * ((kBY + 8) * 32 + kBY * 40) * sizeof(real);
  static bool once = [&] {
    CK(cudaFuncSetAttribute(staged<kBY, kMinBlocks, kUnroll, kPrefetch>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    return true;
  }();
  (void)once;
  dim3 grid(static_cast<unsigned>(n / 32), static_cast<unsigned>(n / kBY), static_cast<unsigned>((n + chunk - 1) / chunk));
  staged<kBY, kMinBlocks, kUnroll, kPrefetch><<<grid, dim3(32, kBY), smem>>>(h.L, n, chunk, h.fields(), h.d0, h.d1, h.d2);
  CK(cudaGetLastError());
}

}  // namespace

int main(int argc, char** argv) {
  Harness h(argc, argv);
  if (h.profile) return h.profileOnce([&] { launch<8, 2, 3, 1>(h, 32); });  // for ncu
  h.begin();
  auto run = [&](const char* name, auto fn) { h.run(name, fn); };
  for (long chunk : {32L, 64L}) {
    char name[96];
    std::snprintf(name, sizeof name, "staged 32x8, 2 blocks/SM, unroll 3, chunk %ld", chunk);
    run(name, [&] { launch<8, 2, 3>(h, chunk); });
    std::snprintf(name, sizeof name, "staged 32x8, 2 blocks/SM, unroll 3, prefetch L1, chunk %ld", chunk);
    run(name, [&] { launch<8, 2, 3, 1>(h, chunk); });
    std::snprintf(name, sizeof name, "staged 32x8, 2 blocks/SM, unroll 3, prefetch L2, chunk %ld", chunk);
    run(name, [&] { launch<8, 2, 3, 2>(h, chunk); });
    std::snprintf(name, sizeof name, "staged 32x4, 3 blocks/SM, chunk %ld", chunk);
    run(name, [&] { launch<4, 3>(h, chunk); });
    std::snprintf(name, sizeof name, "staged 32x4, 3 blocks/SM, prefetch L1, chunk %ld", chunk);
    run(name, [&] { launch<4, 3, 1, 1>(h, chunk); });
    std::snprintf(name, sizeof name, "staged 32x16, 1 block/SM, chunk %ld", chunk);
    run(name, [&] { launch<16, 1>(h, chunk); });
    std::snprintf(name, sizeof name, "staged 32x16, 1 block/SM, prefetch L1, chunk %ld", chunk);
    run(name, [&] { launch<16, 1, 1, 1>(h, chunk); });
  }
  return 0;
}
