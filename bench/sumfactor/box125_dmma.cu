// box125_rt on the FP64 tensor cores (issue 6's stretch): a hand-written experiment, not generated code.
//
//   bash bench/sumfactor/run.sh [N]      (builds, checks against a plain kernel, times; prints a table after stnc's variants)
//
// The 125-point box with arbitrary coefficients c(d0, b, a) as one small matrix product per input plane:
// for the 8 points n of a row segment and the 5 plane offsets d0 (rows m = d0 + 2 of an 8x8 result),
//   S[m][n] = sum over the 25 in-plane taps t = (b, a) of A[m][t] * B[t][n],
//   A[m][t] = c(m - 2, b, a)              (constant: loaded into the A fragments once per thread)
//   B[t][n] = u(plane, y + b, z_n + a)    (one shared-memory read per lane and k-step)
// as 7 mma.sync.m8n8k4 f64 (25 taps padded to 28, rows 5..7 zero: 1000 useful of 1792 multiply-adds, 56 %).
// The accumulator fragment is the register queue of the plane sweep: before plane p, row m holds the partial
// sum of output plane p + 2 - m; the mmas add plane p's contributions, row 4 (output p - 2) is then complete
// and stored by lanes 16..19, and every row moves down one (a shuffle by 4 lanes) for plane p + 1.
// Planes arrive in shared memory through a cp.async ring as in stnc's sumfactor kernel. A second kernel
// measures the DMMA issue rate alone (independent mma chains, nothing loaded), the ceiling of this form.
// The tensor cores' accumulation order is not stnc's: the check is a relative tolerance.
#include <cuda_runtime.h>

#include "experiment.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr int kTaps = 125, kR = 2;
constexpr int kTY = 8, kTZ = 32;                    // output tile of a block: rows x columns
constexpr int kRows = kTY + 2 * kR, kCols = kTZ + 2 * kR;  // the tile with its ring (36 columns: 18 16-byte chunks)
constexpr int kSlots = 4, kAhead = 2;               // ring slots, planes in flight
constexpr int kWarps = 4, kThreads = 32 * kWarps;   // each warp: 2 rows x 32 columns = 8 groups of 8 points

__constant__ double cCoef[kTaps];  // c[(d0 + 2) * 25 + (b + 2) * 5 + (a + 2)]

// A grid of n^3 points with a 2-point halo: planes (n + 4), rows (n + 4), row stride S (even: every
// (z + 2) even element starts a 16-byte chunk).
struct Grid {
  long n, S, P;  // points per axis, row stride, plane stride
  __host__ __device__ long at(long x, long y, long z) const { return (x + kR) * P + (y + kR) * S + (z + kR); }
  long count() const { return (n + 2 * kR + 16) * P; }  // 16 spare planes: the m16 tiles read rows past n + 2
};

__device__ __forceinline__ void mma(double& d0, double& d1, double a, double b) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};" : "+d"(d0), "+d"(d1) : "d"(a), "d"(b));
}

__device__ __forceinline__ void cpAsync16(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem));
}
__device__ __forceinline__ void cpCommit() { asm volatile("cp.async.commit_group;"); }
template <int N>
__device__ __forceinline__ void cpWait() { asm volatile("cp.async.wait_group %0;" ::"n"(N)); }

// One block: a kTY x kTZ tile of (y, z) and the output planes x0 .. x1-1 of its chunk.
__global__ void __launch_bounds__(kThreads) box125Dmma(Grid g, long chunk, const double* __restrict__ u, double* __restrict__ v) {
  __shared__ __align__(16) double tile[kSlots][kRows][kCols];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, grp = lane >> 2, tig = lane & 3;
  const long z0 = blockIdx.x * static_cast<long>(kTZ), y0 = blockIdx.y * static_cast<long>(kTY);
  const long x0 = blockIdx.z * chunk, x1 = x0 + chunk < g.n ? x0 + chunk : g.n;
  const long xs = x0 - kR, np = x1 - x0 + 2 * kR;  // planes xs .. xs + np - 1
  // A fragments, one per k-step: row grp (plane offset grp - 2), tap 4 s + tig.
  double A[7];
  int off[7];  // the B element's shared-memory offset within a slot (tap (b, a) of this lane's point)
#pragma unroll
  for (int s = 0; s < 7; ++s) {
    const int t = 4 * s + tig;
    A[s] = grp < 5 && t < 25 ? cCoef[grp * 25 + t] : 0.0;
    off[s] = t < 25 ? (t / 5) * kCols + (t % 5) : -1;  // (b + 2) rows, (a + 2) columns from the window's corner
  }
  auto copy = [&](int slot, long x) {
    for (int c = threadIdx.x; c < kRows * (kCols / 2); c += kThreads) {
      const int r = c / (kCols / 2), q = c % (kCols / 2);
      cpAsync16(&tile[slot][r][2 * q], u + g.at(x, y0 - kR + r, z0 - kR + 2 * q));
    }
  };
  for (int i = 0; i < kAhead; ++i) {
    if (i < np) copy(i, xs + i);
    cpCommit();
  }
  double acc[8][2] = {};  // group j: rows 2 warp + (j >> 2), columns 8 (j & 3) .. + 7
  for (long t = 0; t < np; ++t) {
    if (t + kAhead < np) copy(static_cast<int>((t + kAhead) % kSlots), xs + t + kAhead);
    cpCommit();
    cpWait<kAhead>();
    __syncthreads();
    const double* T = &tile[t % kSlots][0][0];
    const long xo = xs + t - kR;  // the output plane row 4 completes
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const int ry = 2 * warp + (j >> 2), cz = 8 * (j & 3);  // the group's row and first column in the tile
      const double* W = T + ry * kCols + cz + grp;            // this lane's point's window corner
#pragma unroll
      for (int s = 0; s < 7; ++s) mma(acc[j][0], acc[j][1], A[s], off[s] >= 0 ? W[off[s]] : 0.0);
      if (grp == 4 && xo >= x0 && y0 + ry < g.n && z0 + cz < g.n)
        *reinterpret_cast<double2*>(v + g.at(xo, y0 + ry, z0 + cz + 2 * tig)) = double2{acc[j][0], acc[j][1]};
      const double s0 = __shfl_up_sync(0xffffffffu, acc[j][0], 4), s1 = __shfl_up_sync(0xffffffffu, acc[j][1], 4);
      acc[j][0] = grp >= 1 && grp <= 4 ? s0 : 0.0;
      acc[j][1] = grp >= 1 && grp <= 4 ? s1 : 0.0;
    }
  }
  cpWait<0>();
}

// The same with m16n8k4 (the shape Hopper runs at twice m8n8k4's rate): 16 result rows = 5 plane offsets m x 3
// output rows j (row 3 m + j; row 15 zero), k = the 35 taps (b', a') of the 7 input rows and 5 columns the 3
// output rows read (padded to 36: 9 mmas), A[(m, j)][(b', a')] = c(m - 2, b' - 2 - j, a' - 2) where that is a
// tap (25 of 35), else 0: 3000 useful of 4608 multiply-adds (65 %). A mma group: 3 rows x 8 points. After
// a plane the rows of m = 4 (12, 13, 14: c2/c3 of lane groups 4..6) are complete; every row then moves to
// row + 3 (m + 1): within a half by a shuffle of 12 lanes, from rows 5..7 to rows 8..10 by one of 20.
constexpr int kGY = 3, kTY16 = 12;                       // rows per mma group, output rows per block
constexpr int kRows16 = kTY16 + 2 * kR;
template <int MinBlocks, int Ahead>
__global__ void __launch_bounds__(kThreads, MinBlocks) box125Dmma16(Grid g, long chunk, const double* __restrict__ u, double* __restrict__ v) {
  constexpr int kSlots16 = Ahead + 2;
  __shared__ __align__(16) double tile[kSlots16][kRows16][kCols];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, grp = lane >> 2, tig = lane & 3;
  const long z0 = blockIdx.x * static_cast<long>(kTZ), y0 = blockIdx.y * static_cast<long>(kTY16);
  const long x0 = blockIdx.z * chunk, x1 = x0 + chunk < g.n ? x0 + chunk : g.n;
  const long xs = x0 - kR, np = x1 - x0 + 2 * kR;
  double A[9][2];
  int off[9];  // B element: input row b' and column a' of tap 4 s + tig, from the group's window corner
#pragma unroll
  for (int s = 0; s < 9; ++s) {
    const int t = 4 * s + tig, bp = t / 5, ap = t % 5;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = grp + 8 * h, m = row / 3, j = row % 3, b = bp - 2 - j;
      A[s][h] = row < 15 && t < 35 && b >= -2 && b <= 2 ? cCoef[m * 25 + (b + 2) * 5 + ap] : 0.0;
    }
    off[s] = t < 35 ? bp * kCols + ap : -1;
  }
  auto copy = [&](int slot, long x) {
    for (int c = threadIdx.x; c < kRows16 * (kCols / 2); c += kThreads) {
      const int r = c / (kCols / 2), q = c % (kCols / 2);
      cpAsync16(&tile[slot][r][2 * q], u + g.at(x, y0 - kR + r, z0 - kR + 2 * q));
    }
  };
  for (int i = 0; i < Ahead; ++i) {
    if (i < np) copy(i, xs + i);
    cpCommit();
  }
  double acc[4][4] = {};  // group q of this warp: rows 3 warp .. + 2 of the tile, columns 8 q .. + 7
  for (long t = 0; t < np; ++t) {
    if (t + Ahead < np) copy(static_cast<int>((t + Ahead) % kSlots16), xs + t + Ahead);
    cpCommit();
    cpWait<Ahead>();
    __syncthreads();
    const double* T = &tile[t % kSlots16][0][0];
    const long xo = xs + t - kR;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int ry = kGY * warp, cz = 8 * q;
      const double* W = T + ry * kCols + cz + grp;
#pragma unroll
      for (int s = 0; s < 9; ++s) {
        const double b = off[s] >= 0 ? W[off[s]] : 0.0;
        asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
                     : "+d"(acc[q][0]), "+d"(acc[q][1]), "+d"(acc[q][2]), "+d"(acc[q][3]) : "d"(A[s][0]), "d"(A[s][1]), "d"(b));
      }
      // Rows 12..14 (c2/c3 of groups 4..6): output plane xo, tile rows ry + grp - 4.
      if (grp >= 4 && grp <= 6 && xo >= x0 && y0 + ry + grp - 4 < g.n && z0 + cz < g.n)
        *reinterpret_cast<double2*>(v + g.at(xo, y0 + ry + grp - 4, z0 + cz + 2 * tig)) = double2{acc[q][2], acc[q][3]};
      const double u0 = __shfl_up_sync(0xffffffffu, acc[q][0], 12), u1 = __shfl_up_sync(0xffffffffu, acc[q][1], 12);
      const double u2 = __shfl_up_sync(0xffffffffu, acc[q][2], 12), u3 = __shfl_up_sync(0xffffffffu, acc[q][3], 12);
      const double d0 = __shfl_down_sync(0xffffffffu, acc[q][0], 20), d1 = __shfl_down_sync(0xffffffffu, acc[q][1], 20);
      acc[q][0] = grp >= 3 ? u0 : 0.0;  // rows 3..7 from rows 0..4; rows 0..2 start the new output plane
      acc[q][1] = grp >= 3 ? u1 : 0.0;
      acc[q][2] = grp >= 3 ? (grp < 7 ? u2 : 0.0) : d0;  // rows 11..14 from 8..11 (row 15 stays 0), rows 8..10 from 5..7
      acc[q][3] = grp >= 3 ? (grp < 7 ? u3 : 0.0) : d1;
    }
  }
  cpWait<0>();
}

// The issue rate of each f64 mma shape alone: 8 independent accumulators per warp, `iters` rounds of 8 mmas.
// K: 4 for m8n8k4 (M = 8) and m16n8k4, 8 and 16 for m16n8k8 and m16n8k16 (M = 16).
template <int M, int K>
__device__ __forceinline__ void mmaShape(double (&d)[4], const double (&a)[8], const double (&b)[4]) {
  if constexpr (M == 8)
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};" : "+d"(d[0]), "+d"(d[1]) : "d"(a[0]), "d"(b[0]));
  else if constexpr (K == 4)
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3]) : "d"(a[0]), "d"(a[1]), "d"(b[0]));
  else if constexpr (K == 8)
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3]) : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
  else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
}
template <int M, int K>
__global__ void dmmaRate(double* sink, long iters) {
  double d[8][4] = {}, a[8], b[4];
  for (int i = 0; i < 8; ++i) a[i] = 1.0 + (threadIdx.x + i) * 1e-9;
  for (int i = 0; i < 4; ++i) b[i] = 1.0 - (threadIdx.x + i) * 1e-9;
  for (long i = 0; i < iters; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) mmaShape<M, K>(d[j], a, b);
  double s = 0;
  for (int j = 0; j < 8; ++j) s += d[j][0] + d[j][1] + d[j][2] + d[j][3];
  if (s == 42.0) *sink = s;
}

// out = sum over (a, b, c) in [-2, 2]^3 of c * u(x + a, y + b, z + c), fma in that order.
__global__ void reference(Grid g, const double* __restrict__ u, double* __restrict__ v) {
  const long z = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x, y = blockIdx.y, x = blockIdx.z;
  if (z >= g.n) return;
  double s = 0;
  int t = 0;
  for (int a = -2; a <= 2; ++a)
    for (int b = -2; b <= 2; ++b)
      for (int c = -2; c <= 2; ++c) s = fma(cCoef[t++], u[g.at(x + a, y + b, z + c)], s);
  v[g.at(x, y, z)] = s;
}

__global__ void maxRelDiff(Grid g, const double* a, const double* b, unsigned long long* out) {
  const long z = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x, y = blockIdx.y, x = blockIdx.z;
  if (z >= g.n) return;
  const long q = g.at(x, y, z);
  const double d = fabs(a[q] - b[q]) / (fabs(b[q]) + 1e-3);  // values are O(0.1): near-zero sums keep an absolute scale
  atomicMax(out, static_cast<unsigned long long>(__double_as_longlong(d)));
}

}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 256;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 30;
  std::vector<long> chunks;  // planes of dim 0 per block: argv[3..], default 32 64 128
  for (int i = 3; i < argc; ++i) chunks.push_back(std::atol(argv[i]));
  if (chunks.empty()) chunks = {32, 64, 128};
  if (n % kTZ != 0) {
    std::fprintf(stderr, "box125_dmma: n must be a multiple of %d\n", kTZ);
    return 2;
  }
  const Grid g{n, n + 2 * kR + 4, (n + 2 * kR) * (n + 2 * kR + 4)};  // row stride n + 8: even
  double c[kTaps];
  for (int t = 0; t < kTaps; ++t) c[t] = std::ldexp(static_cast<double>((t * 2654435761u) % 1000u) - 500.0, -15);
  CK(cudaMemcpyToSymbol(cCoef, c, sizeof c));
  double *u, *v, *ref, *flush, *sink;
  unsigned long long* dMax;
  const size_t flushN = (256u << 20) / sizeof(double);
  CK(cudaMalloc(&u, g.count() * sizeof(double)));
  CK(cudaMalloc(&v, g.count() * sizeof(double)));
  CK(cudaMalloc(&ref, g.count() * sizeof(double)));
  CK(cudaMalloc(&flush, flushN * sizeof(double)));
  CK(cudaMalloc(&dMax, sizeof *dMax));
  CK(cudaMalloc(&sink, sizeof *sink));
  fillHash<<<1024, 256>>>(u, g.count(), 11u);
  CK(cudaMemset(v, 0xff, g.count() * sizeof(double)));  // NaN: an unwritten point fails the check
  const dim3 rgrid((n + 127) / 128, n, n);
  reference<<<rgrid, 128>>>(g, u, ref);
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const double pts = static_cast<double>(n) * n * n;
  const double floorMs = pts * kTaps * 2 / 32.8e12 * 1e3;  // the suite's FP64 FMA floor
  std::printf("| variant | grid | µs | of FMA floor | max rel. diff vs the sum as written | check | registers, blocks per SM |\n|---|---|---:|---:|---:|---|---|\n");
  int rc = 0;
  struct Form {
    const char* name;
    void (*kernel)(Grid, long, const double*, double*);
    int tileY;
  };
  for (const Form& f : {Form{"m8n8k4, tile 8x32", box125Dmma, kTY}, Form{"m16n8k4, tile 12x32", box125Dmma16<4, 2>, kTY16},
                        Form{"m16n8k4, tile 12x32, 5 blocks per SM", box125Dmma16<5, 2>, kTY16},
                        Form{"m16n8k4, tile 12x32, 3 planes ahead", box125Dmma16<4, 3>, kTY16}}) {
    int perSm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, f.kernel, kThreads, 0));
    cudaFuncAttributes fa{};
    CK(cudaFuncGetAttributes(&fa, f.kernel));
    for (long chunk : chunks) {
      const dim3 grid(static_cast<unsigned>(n / kTZ), static_cast<unsigned>((n + f.tileY - 1) / f.tileY), static_cast<unsigned>((n + chunk - 1) / chunk));
      CK(cudaMemset(v, 0xff, g.count() * sizeof(double)));
      f.kernel<<<grid, kThreads>>>(g, chunk, u, v);
      CK(cudaGetLastError());
      CK(cudaMemset(dMax, 0, sizeof *dMax));
      maxRelDiff<<<rgrid, 128>>>(g, v, ref, dMax);
      CK(cudaDeviceSynchronize());
      unsigned long long bits = 0;
      CK(cudaMemcpy(&bits, dMax, sizeof bits, cudaMemcpyDeviceToHost));
      double rel;
      std::memcpy(&rel, &bits, sizeof rel);
      const double ms = medianMs([&] { f.kernel<<<grid, kThreads>>>(g, chunk, u, v); }, reps, flush, flushN * sizeof(double));
      const bool ok = std::isfinite(rel) && rel < 1e-10;
      rc |= !ok;
      std::printf("| DMMA %s, chunk %ld | %ld^3 | %.1f | %.2f | %.1e | %s | %d regs, %d blocks (%u blocks in all) |\n", f.name, chunk, n, ms * 1e3,
                  floorMs / ms, rel, ok ? "ok" : "**FAIL**", fa.numRegs, perSm, grid.x * grid.y * grid.z);
    }
  }
  // The ceilings: each shape's mmas alone, 32 warps per SM.
  const long iters = 1 << 14;
  const int rateBlocks = sms * 8;
  auto rate = [&](auto kernel, int m, int k) {
    const double ms = medianMs([&] { kernel<<<rateBlocks, 128>>>(sink, iters); }, 5, flush, flushN * sizeof(double));
    const double tflops = 2.0 * rateBlocks * 4 * iters * 8 * (m * 8.0 * k) / (ms * 1e9);
    std::printf("| m%dn8k%d | %.1f |\n", m, k, tflops);
    return tflops;
  };
  std::printf("\n| f64 mma shape alone (8 independent chains per warp, 32 warps per SM) | TFLOP/s |\n|---|---:|\n");
  const double r884 = rate(dmmaRate<8, 4>, 8, 4);
  rate(dmmaRate<16, 4>, 16, 4);
  rate(dmmaRate<16, 8>, 16, 8);
  rate(dmmaRate<16, 16>, 16, 16);
  std::printf("\nthe FP64 FMA ceiling of the suite: 32.8 TFLOP/s. This form (m8n8k4) uses 1000 of 1792 multiply-adds (56 %%): at the m8n8k4 rate "
              "the 125-point box would take %.1f us at %ld^3\n", pts * 1792.0 / 8 * 2 / (r884 * 1e12) * 1e6, n);
  return rc;
}
