// Temporal blocking at radius 4 (issue 8): two leapfrog steps of the acoustic sample's inner equation
//   v = 2u - v + roc2 * lap8(u),  swap u, v        (bench/temporal/leap8.stn, f32, 25-point star)
// fused by hand in one kernel, against two sweeps of the stnc-generated kernel.
//
//   STNC=build-static/stnc bash bench/temporal/run-leap8.sh [N ...]
//
// Two single steps move 2 x 16 B per point (read u, v, roc2, write v); a fused pair reads u(t), u(t-1),
// roc2 once and writes u(t+1) and u(t+2): 20 B per point, 0.625 of the traffic. What it costs: with
// T = 2 and r = 4 a tile needs the intermediate u(t+1) on the tile plus 4 cells and u(t) on the tile plus
// 8 cells, all recomputed by every block that needs them.
//
// The kernel (2.5-D, the form of AN5D for T = 2): TX x TY threads, each owning 4 consecutive k columns,
// cover a (4 TX) x TY region of the (k, j) plane: the output tile of (4 TX - 16) x (TY - 16) plus 8 cells
// on every side. The block walks a chunk of dim 0 (i). Per plane iw:
//   1. every thread pushes u(iw + 4) into its register queue (u(iw-4) .. u(iw+4)) and stores u(iw) in
//      shared memory;
//   2. threads of the tile plus 4 cells compute w = u(t+1) at plane iw (outside the interior w is the
//      halo value the second single step would read: u(t-1)'s halo, stnc sweeps leave halos alone),
//      push it into a second register queue (w(iw-8) .. w(iw)) and store w(iw-4) in shared memory;
//   3. threads of the output tile compute u(t+2) at plane iw - 4 and store it and w(iw-4).
// Two arrays are written: in place would race (a block's stores hit cells that neighbouring blocks
// still read as u(t) or u(t-1) for their redundant ring), so a pair reads (A, B) and writes (W, X),
// and a step loop would rotate four arrays. Two forms: fused2 loads the next plane with plain loads PF
// planes ahead (registers), fusedRing copies u, v and roc2 D planes ahead into per-thread cp.async rings
// (as stnc's ring schedule does) and can unroll its plane loop by the queues' length. Every variant is
// checked bit for bit against two stnc sweeps (same expression order, -fmad=false on both).
// Modes: `N ...` (the table), `--profile N` (one launch each, for ncu: PROFILE=1 in the script),
// `--sustained N STEPS` (the launcher's step loop and a pointwise stream: SUSTAINED=STEPS in the script).
// Results: bench/results/2026-11-30-temporal-r4.md.
#include <cuda_runtime.h>

#include "experiment.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "leap8.h"
#include "leap8_util.h"

namespace {

using namespace leap8x;  // bench/temporal/leap8_util.h

// The update of a thread's 4 columns at one plane: q = the column's dim-0 queue (centre q[4]),
// S = the shared plane of the same field, v and r = the other step inputs at the 4 columns.
template <int TX, int TY>
__device__ __forceinline__ float4 update4(const float4 (&q)[9], const float4 (&S)[TY][TX], int tx, int ty, const float4& v,
                                          const float4& r) {
  const float4 l = S[ty][tx - 1], c4 = S[ty][tx], rr = S[ty][tx + 1];
  float4 up[4], dn[4];
#pragma unroll
  for (int m = 1; m <= 4; ++m) {
    up[m - 1] = S[ty + m][tx];
    dn[m - 1] = S[ty - m][tx];
  }
  return leap8x::update4cols(q, up, dn, l, c4, rr, v, r);
}

// Where a thread of a fused-pair block sits: its 4 columns (k .. k+3) and row j of the block's 64 x 32 style
// region (the output tile plus 8 cells), its chunk x0 .. x1 of dim 0, and its roles.
template <int TX, int TY>
struct Place {
  long k, j, x0, x1, p, s0;
  bool alloc;      // a whole 16-byte vector inside the allocation
  bool inner;      // interior columns (n2 % 4 == 0: all 4 or none)
  bool wThread;    // computes the intermediate: the output tile plus 4 cells
  bool outThread;  // stores: the output tile, interior only
  __device__ Place(const stnc_rt::Layout& L, long chunk) {
    constexpr int OX = 4 * TX - 16, OY = TY - 16;
    const int tx = threadIdx.x, ty = threadIdx.y;
    k = blockIdx.x * static_cast<long>(OX) - 8 + 4 * tx;
    j = blockIdx.y * static_cast<long>(OY) - 8 + ty;
    x0 = blockIdx.z * chunk;
    x1 = x0 + chunk < L.n[0] ? x0 + chunk : L.n[0];
    alloc = j >= -L.pad[1] && j < L.dim[1] - L.pad[1] && k >= -L.pad[2] && k + 4 <= L.dim[2] - L.pad[2];
    inner = j >= 0 && j < L.n[1] && k >= 0 && k < L.n[2];
    wThread = tx >= 1 && tx < TX - 1 && ty >= 4 && ty < TY - 4;
    outThread = tx >= 2 && tx < TX - 2 && ty >= 8 && ty < TY - 8 && inner;
    s0 = L.stride[0];
    p = alloc ? stnc_rt::at(L, 0, j, k) : 0;
  }
  // Plane i of this thread's columns is allocated.
  __device__ bool planeOk(const stnc_rt::Layout& L, long i) const { return alloc && i >= -L.pad[0] && i < L.dim[0] - L.pad[0]; }
  __device__ float4 ld(const stnc_rt::Layout& L, const float* a, long i) const {
    return planeOk(L, i) ? *reinterpret_cast<const float4*>(a + p + i * s0) : float4{0, 0, 0, 0};
  }
};

// The rest of a plane, the same in both forms, once u(iw + 4) is in the queue and v(iw), roc2(iw) are at
// hand: u(iw) into shared memory; the intermediate w(iw) into its queue and w(iw - 4) into shared memory;
// then, for the output tile (store), u(t+2) at plane iw - 4 (roc2 there from rocOut()) and both stores.
template <int TX, int TY, typename RocOut>
__device__ __forceinline__ void planeStep(const Place<TX, TY>& at, const stnc_rt::Layout& L, long iw, float4 (&uq)[9],
                                          float4 (&wq)[9], float4 (&uS)[TY][TX], float4 (&wS)[TY][TX], const float4& vC,
                                          const float4& rC, bool store, RocOut rocOut, float* __restrict__ W,
                                          float* __restrict__ X) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  uS[ty][tx] = uq[4];
  __syncthreads();
  float4 w = float4{0, 0, 0, 0};
  if (at.wThread) {
    if (at.inner && iw >= 0 && iw < L.n[0]) w = update4<TX, TY>(uq, uS, tx, ty, vC, rC);
    else w = vC;  // outside the interior: B's halo value (what the second sweep reads there)
  }
#pragma unroll
  for (int q = 0; q < 8; ++q) wq[q] = wq[q + 1];
  wq[8] = w;
  wS[ty][tx] = wq[4];
  __syncthreads();
  if (store) {
    const long at0 = at.p + (iw - 4) * at.s0;
    const float4 x = update4<TX, TY>(wq, wS, tx, ty, uq[0], rocOut());
    *reinterpret_cast<float4*>(W + at0) = wq[4];
    *reinterpret_cast<float4*>(X + at0) = x;
  }
#pragma unroll
  for (int q = 0; q < 8; ++q) uq[q] = uq[q + 1];
}

template <int TX, int TY, int PF>
__global__ void __launch_bounds__(TX * TY, 1) fused2(const stnc_rt::Layout L, const long chunk, const float* __restrict__ A,
                                                      const float* __restrict__ B, const float* __restrict__ R,
                                                      float* __restrict__ W, float* __restrict__ X) {
  __shared__ float4 uS[TY][TX];  // u(iw): the tile plus 8 cells
  __shared__ float4 wS[TY][TX];  // w(iw - 4): the tile plus 4 cells
  const long n0 = L.n[0];
  const Place<TX, TY> at(L, chunk);
  const long x0 = at.x0, x1 = at.x1, p = at.p, s0 = at.s0;
  const bool inner = at.inner, wThread = at.wThread, outThread = at.outThread;
  auto ld = [&](const float* a, long i) { return at.ld(L, a, i); };
  const bool wInner = wThread && inner;
  float4 uq[9], wq[9];
#pragma unroll
  for (int q = 0; q < 8; ++q) uq[q] = ld(A, x0 - 8 + q);
#pragma unroll
  for (int q = 0; q < 9; ++q) wq[q] = float4{0, 0, 0, 0};
  // Loads PF iterations ahead: slot s holds u(iw + 4 + s), v(iw + s), roc2(iw + s) for iteration iw.
  float4 uN[PF], vN[PF], rN[PF];
#pragma unroll
  for (int s = 0; s < PF; ++s) {
    const long i = x0 - 4 + s;
    uN[s] = ld(A, i + 4);
    vN[s] = wThread ? ld(B, i) : float4{0, 0, 0, 0};  // B at halo cells too: w's halo values
    rN[s] = wInner && i >= 0 && i < n0 ? ld(R, i) : float4{0, 0, 0, 0};
  }
  for (long iw = x0 - 4; iw < x1 + 4; ++iw) {
    const long io = iw - 4;
    const bool store = outThread && io >= x0;
    const float4 rO = store ? ld(R, io) : float4{0, 0, 0, 0};
    uq[8] = uN[0];
    const float4 vC = vN[0], rC = rN[0];
#pragma unroll
    for (int s = 0; s + 1 < PF; ++s) {
      uN[s] = uN[s + 1];
      vN[s] = vN[s + 1];
      rN[s] = rN[s + 1];
    }
    {
      const long i = iw + PF;
      uN[PF - 1] = ld(A, i + 4);
      vN[PF - 1] = wThread ? ld(B, i) : float4{0, 0, 0, 0};
      rN[PF - 1] = wInner && i >= 0 && i < n0 ? ld(R, i) : float4{0, 0, 0, 0};
    }
    planeStep(at, L, iw, uq, wq, uS, wS, vC, rC, store, [&] { return rO; }, W, X);
  }
}

// The same pair with the loads of u, v and roc2 issued D planes ahead as 16-byte cp.async copies into
// shared-memory rings (each thread copies and later reads only its own vector: no barrier for them),
// as stnc's ring schedule does; registers hold only the two queues. roc2's ring keeps 4 more planes:
// the second step reads roc2 at plane iw - 4.

template <int TX, int TY, int D, int U>
__global__ void __launch_bounds__(TX * TY, 1) fusedRing(const stnc_rt::Layout L, const long chunk, const float* __restrict__ A,
                                                         const float* __restrict__ B, const float* __restrict__ R,
                                                         float* __restrict__ W, float* __restrict__ X) {
  constexpr int SU = D + 1, SR = D + 5;
  __shared__ float4 uS[TY][TX];
  __shared__ float4 wS[TY][TX];
  extern __shared__ float4 ring[];  // u: SU slots, v: SU slots, roc2: SR slots, each TY x TX vectors
  float4* const uR = ring;
  float4* const vR = ring + SU * TY * TX;
  float4* const rR = ring + 2 * SU * TY * TX;
  const int me = threadIdx.y * TX + threadIdx.x;
  const Place<TX, TY> at(L, chunk);
  const long x0 = at.x0, x1 = at.x1, p = at.p, s0 = at.s0;
  const bool inner = at.inner, wThread = at.wThread, outThread = at.outThread;
  auto planeOk = [&](long i) { return at.planeOk(L, i); };
  auto ld = [&](const float* a, long i) { return at.ld(L, a, i); };
  // Iteration it (plane iw = x0 - 4 + it) reads u(iw + 4), v(iw), roc2(iw): copied D iterations ahead.
  auto issue = [&](long it) {
    const long iw = x0 - 4 + it;
    const bool okU = planeOk(iw + 4), okW = wThread && planeOk(iw);
    cpAsync16(uR + (it % SU) * TY * TX + me, okU ? A + p + (iw + 4) * s0 : A, okU);
    cpAsync16(vR + (it % SU) * TY * TX + me, okW ? B + p + iw * s0 : B, okW);
    cpAsync16(rR + (it % SR) * TY * TX + me, okW ? R + p + iw * s0 : R, okW);
  };
  float4 uq[9], wq[9];
#pragma unroll
  for (int q = 0; q < 8; ++q) uq[q] = ld(A, x0 - 8 + q);
#pragma unroll
  for (int q = 0; q < 9; ++q) wq[q] = float4{0, 0, 0, 0};
  const long iters = x1 - x0 + 8;
#pragma unroll
  for (int it = 0; it < D; ++it) {
    if (it < iters) issue(it);
    cpAsyncCommit();
  }
  // U = 9 unrolls the plane loop by the queues' length: their shifts become register renaming.
#pragma unroll U
  for (long it = 0; it < iters; ++it) {
    const long iw = x0 - 4 + it, io = iw - 4;
    if (it + D < iters) issue(it + D);
    cpAsyncCommit();
    cpAsyncWait<D>();  // this thread's copies for iteration it have landed
    uq[8] = uR[(it % SU) * TY * TX + me];
    const float4 vC = vR[(it % SU) * TY * TX + me], rC = rR[(it % SR) * TY * TX + me];
    const bool store = outThread && io >= x0;
    planeStep(at, L, iw, uq, wq, uS, wS, vC, rC, store, [&] { return rR[((it - 4) % SR) * TY * TX + me]; }, W, X);
  }
}

using Launch = void (*)(const stnc_rt::Layout&, long, const float*, const float*, const float*, float*, float*);

template <int TX, int TY, int PF>
void launchFused(const stnc_rt::Layout& L, long chunk, const float* A, const float* B, const float* R, float* W, float* X) {
  constexpr int OX = 4 * TX - 16, OY = TY - 16;
  const dim3 block(TX, TY, 1);
  const dim3 grid(static_cast<unsigned>((L.n[2] + OX - 1) / OX), static_cast<unsigned>((L.n[1] + OY - 1) / OY),
                  static_cast<unsigned>((L.n[0] + chunk - 1) / chunk));
  fused2<TX, TY, PF><<<grid, block>>>(L, chunk, A, B, R, W, X);
  CK(cudaGetLastError());
}

template <int TX, int TY, int D, int U = 1>
void launchRing(const stnc_rt::Layout& L, long chunk, const float* A, const float* B, const float* R, float* W, float* X) {
  constexpr int OX = 4 * TX - 16, OY = TY - 16;
  const int bytes = (2 * (D + 1) + D + 5) * TX * TY * static_cast<int>(sizeof(float4));
  static bool once = [&] {
    CK(cudaFuncSetAttribute(fusedRing<TX, TY, D, U>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    return true;
  }();
  (void)once;
  const dim3 block(TX, TY, 1);
  const dim3 grid(static_cast<unsigned>((L.n[2] + OX - 1) / OX), static_cast<unsigned>((L.n[1] + OY - 1) / OY),
                  static_cast<unsigned>((L.n[0] + chunk - 1) / chunk));
  fusedRing<TX, TY, D, U><<<grid, block, bytes>>>(L, chunk, A, B, R, W, X);
  CK(cudaGetLastError());
}

// The same three reads and one write per element without neighbours (no halo, no reuse): the rate the
// memory system sustains for this mix, over the whole allocation as flat float4 arrays.
__global__ void pointwise(const float4* __restrict__ u, const float4* __restrict__ r, float4* __restrict__ v, size_t n4) {
  for (size_t q = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; q < n4; q += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const float4 a = u[q], b = v[q], c = r[q];
    v[q] = float4{2.0f * a.x - b.x + c.x * a.x, 2.0f * a.y - b.y + c.y * a.y, 2.0f * a.z - b.z + c.z * a.z, 2.0f * a.w - b.w + c.w * a.w};
  }
}

__global__ void poisonInterior(float* a, const stnc_rt::Layout L) {
  const long n = L.n[0] * L.n[1] * L.n[2];
  for (long q = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; q < n; q += static_cast<long>(gridDim.x) * blockDim.x) {
    const long k = q % L.n[2], j = q / L.n[2] % L.n[1], i = q / (L.n[1] * L.n[2]);
    a[stnc_rt::at(L, i, j, k)] = __int_as_float(0x7fbadbad);
  }
}

struct Arrays {
  stnc_rt::Layout L;
  float *A, *B, *R, *W, *X, *Aref, *Bref;
};

Arrays allocate(long n0, long n1, long n2) {
  Arrays a{};
  a.L = stn::leap8::layout(n0, n1, n2);
  for (float** f : {&a.A, &a.B, &a.R, &a.W, &a.X, &a.Aref, &a.Bref}) CK(cudaMalloc(f, a.L.count * sizeof(float)));
  // Random u and v everywhere (halo too); roc2 in a stable range ((c dt / h)^2 <= 1 / sum|w| ~ 0.05).
  fillRandom(a.A, a.L.count, -1.0f, 1.0f, 11);
  fillRandom(a.B, a.L.count, -1.0f, 1.0f, 12);
  fillRandom(a.R, a.L.count, 0.01f, 0.05f, 13);
  return a;
}

void release(Arrays& a) {
  for (float* f : {a.A, a.B, a.R, a.W, a.X, a.Aref, a.Bref}) CK(cudaFree(f));
}

// Two stnc sweeps into (Bref, Aref): Bref = u(t+1), Aref = u(t+2).
void reference(Arrays& a) {
  const size_t bytes = a.L.count * sizeof(float);
  CK(cudaMemcpy(a.Bref, a.B, bytes, cudaMemcpyDeviceToDevice));
  CK(cudaMemcpy(a.Aref, a.A, bytes, cudaMemcpyDeviceToDevice));
  CK(stn::leap8::cuda::sweep(a.L, a.A, a.R, a.Bref));
  CK(stn::leap8::cuda::sweep(a.L, a.Bref, a.R, a.Aref));
  CK(cudaDeviceSynchronize());
}

// Runs a fused variant once on poisoned outputs and compares with the reference bit for bit.
unsigned long long check(Arrays& a, Launch f, long chunk, unsigned long long* dBad) {
  const size_t bytes = a.L.count * sizeof(float);
  CK(cudaMemcpy(a.W, a.B, bytes, cudaMemcpyDeviceToDevice));  // halos as the sweeps leave them
  CK(cudaMemcpy(a.X, a.A, bytes, cudaMemcpyDeviceToDevice));
  poisonInterior<<<1024, 256>>>(a.W, a.L);
  poisonInterior<<<1024, 256>>>(a.X, a.L);
  f(a.L, chunk, a.A, a.B, a.R, a.W, a.X);
  CK(cudaMemset(dBad, 0, sizeof(*dBad)));
  countDiff<<<1024, 256>>>(a.W, a.Bref, a.L.count, dBad);
  countDiff<<<1024, 256>>>(a.X, a.Aref, a.L.count, dBad);
  unsigned long long bad = 0;
  CK(cudaMemcpy(&bad, dBad, sizeof(bad), cudaMemcpyDeviceToHost));
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  // --profile N: one stnc sweep and one launch of the best fused variant on N^3, nothing else (for ncu).
  if (argc == 3 && std::strcmp(argv[1], "--profile") == 0) {
    Arrays a = allocate(std::atol(argv[2]), std::atol(argv[2]), std::atol(argv[2]));
    CK(stn::leap8::cuda::sweep(a.L, a.A, a.R, a.B));
    launchRing<16, 32, 3, 9>(a.L, 256, a.A, a.B, a.R, a.W, a.X);
    CK(cudaDeviceSynchronize());
    release(a);
    return 0;
  }
  // --sustained N STEPS: the launcher's step loop (CUDA graph of two steps, replayed) for STEPS steps on N^3
  // after 20 warm-up steps, as the acoustic sample's benchmark runs: what this equation sustains.
  if (argc == 4 && std::strcmp(argv[1], "--sustained") == 0) {
    const long n = std::atol(argv[2]), steps = std::atol(argv[3]);
    Arrays a = allocate(n, n, n);
    CK(stn::leap8::cuda::step(a.L, 20, a.A, a.R, a.B));
    CK(cudaDeviceSynchronize());
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaEventRecord(e0));
    CK(stn::leap8::cuda::step(a.L, steps, a.A, a.R, a.B));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    const double pts = static_cast<double>(n) * n * n, perStep = ms / steps;
    std::printf("SUSTAINED grid=%ld^3 steps=%ld ms_per_step=%.4f gpts=%.1f of_floor=%.3f (floor %.4f ms: 16 B/pt at 4.25 TB/s)\n", n, steps,
                perStep, pts / (perStep * 1e6), 16.0 * pts / 4.25e9 / perStep, 16.0 * pts / 4.25e9);
    // The pointwise mix for as many steps (u and v swapped each step), on the whole allocation.
    const size_t n4 = a.L.count / 4;
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CK(cudaEventRecord(e0));
    for (long s = 0; s < steps; ++s) {
      pointwise<<<sms * 8, 256>>>(reinterpret_cast<const float4*>(a.A), reinterpret_cast<const float4*>(a.R), reinterpret_cast<float4*>(a.B), n4);
      std::swap(a.A, a.B);
    }
    CK(cudaGetLastError());
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    const double tbs = 16.0 * static_cast<double>(a.L.count) / (ms / steps * 1e-3) / 1e12;
    std::printf("SUSTAINED pointwise (3 reads + 1 write per element, %zu elements) steps=%ld ms_per_step=%.4f TB/s=%.3f of_copy_floor=%.3f\n",
                a.L.count, steps, ms / steps, tbs, tbs / 4.25);
    release(a);
    return 0;
  }
  std::vector<long> sizes;
  for (int q = 1; q < argc; ++q) sizes.push_back(std::atol(argv[q]));
  if (sizes.empty()) sizes = {800};
  const int reps = 20;
  const size_t flushN = (256u << 20) / sizeof(float);
  float* flush = nullptr;
  unsigned long long* dBad = nullptr;
  CK(cudaMalloc(&flush, flushN * sizeof(float)));
  CK(cudaMalloc(&dBad, sizeof(*dBad)));
  struct Variant {
    const char* name;
    Launch fn;
    long chunk;
  };
  const Variant vs[] = {
      {"rings: 16x32 threads (out 48x16), 2 planes ahead, chunk 128", launchRing<16, 32, 2>, 128},
      {"rings: 16x32 threads (out 48x16), 3 planes ahead, chunk 128", launchRing<16, 32, 3>, 128},
      {"rings: 16x32 threads (out 48x16), 3 planes ahead, chunk 128, unroll 9", launchRing<16, 32, 3, 9>, 128},
      {"rings: 16x32 threads (out 48x16), 3 planes ahead, chunk 256, unroll 9", launchRing<16, 32, 3, 9>, 256},
      {"rings: 16x24 threads (out 48x8), 3 planes ahead, chunk 128, unroll 9", launchRing<16, 24, 3, 9>, 128},
      {"rings: 16x24 threads (out 48x8), 3 planes ahead, chunk 128", launchRing<16, 24, 3>, 128},
      {"16x32 threads (out 48x16), prefetch 1, chunk 64", launchFused<16, 32, 1>, 64},
      {"16x32 threads (out 48x16), prefetch 1, chunk 128", launchFused<16, 32, 1>, 128},
      {"16x32 threads (out 48x16), prefetch 2, chunk 128", launchFused<16, 32, 2>, 128},
      {"16x24 threads (out 48x8), prefetch 1, chunk 128", launchFused<16, 24, 1>, 128},
      {"16x32 threads (out 48x16), prefetch 1, chunk 256", launchFused<16, 32, 1>, 256},
  };
  int failures = 0;
  // Bit-for-bit check on an odd-shaped grid first (edges of every kind, a partial chunk and tiles).
  {
    Arrays a = allocate(203, 117, 164);
    reference(a);
    for (const Variant& v : vs) {
      const unsigned long long bad = check(a, v.fn, v.chunk, dBad);
      std::printf("check 203x117x164: %-52s %s (%llu mismatches)\n", v.name, bad ? "**MISMATCH**" : "bit-identical", bad);
      failures += bad != 0;
    }
    release(a);
  }
  for (const long n : sizes) {
    Arrays a = allocate(n, n, n);
    reference(a);
    const double pts = static_cast<double>(n) * n * n;
    namespace S = stn::leap8;
    const double one = medianMs([&] { CK(S::cuda::sweep(a.L, a.A, a.R, a.B)); }, reps, flush, flushN * sizeof(float));
    const double two = medianMs([&] {
      CK(S::cuda::sweep(a.L, a.A, a.R, a.B));
      CK(S::cuda::sweep(a.L, a.B, a.R, a.A));
    }, reps, flush, flushN * sizeof(float));
    // The timing sweeps changed A and B: the reference again, for the check below.
    reference(a);
    const double floorTwo = 32.0 * pts / 4.25e9, floorFused = 20.0 * pts / 4.25e9;  // ms at the 4.25 TB/s copy rate
    std::printf("\ngrid %ld^3 f32 (leap8: lap8 leapfrog, r = 4), 2 time steps; memory floors at 4.25 TB/s: two sweeps %.3f ms (32 B/pt), fused %.3f ms (20 B/pt)\n",
                n, floorTwo, floorFused);
    std::printf("| variant | ms per 2 steps | Gpts/s (x2 steps) | of its floor | speed-up vs 2 stnc sweeps | bit-identical |\n|---|---:|---:|---:|---:|---|\n");
    std::printf("| stnc sweep x2 | %.3f | %.1f | %.2f | 1.00 | (reference) |\n", two, 2 * pts / (two * 1e6), floorTwo / two);
    std::printf("| stnc sweep x1 (x2 for comparison) | %.3f | %.1f | %.2f | %.2f | - |\n", 2 * one, 2 * pts / (2 * one * 1e6), floorTwo / (2 * one),
                two / (2 * one));
    for (const Variant& v : vs) {
      const unsigned long long bad = check(a, v.fn, v.chunk, dBad);
      failures += bad != 0;
      const double t = medianMs([&] { v.fn(a.L, v.chunk, a.A, a.B, a.R, a.W, a.X); }, reps, flush, flushN * sizeof(float));
      std::printf("| fused T=2, %s | %.3f | %.1f | %.2f | %.2f | %s |\n", v.name, t, 2 * pts / (t * 1e6), floorFused / t, two / t,
                  bad ? "**NO**" : "yes");
    }
    release(a);
  }
  return failures ? 1 : 0;
}
