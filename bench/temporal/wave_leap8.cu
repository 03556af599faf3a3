// Two leapfrog steps through L2 (issue 8): a wavefront of the acoustic sample's inner equation
//   v = 2u - v + roc2 * lap8(u),  swap u, v        (bench/temporal/leap8.stn, f32, 25-point star, r = 4)
// where step t+1 runs a few planes behind step t in the same launch, so that what it reads (step t's
// output, u(t) at offset 0, roc2) is still in the 60 MB L2. Unlike the fused pair of temporal_leap8.cu
// nothing is recomputed: every point of both steps is computed once, by the same code as a single sweep.
//
//   STNC=build-static/stnc bash bench/temporal/run-wave8.sh [N ...]
//
// DRAM bytes per point for two steps: 32 B as two sweeps (read u, v, roc2, write v; twice); 20 B if the
// second step's reads hit L2 (read u(t), u(t-1), roc2 once, write u(t+1) and u(t+2)).
//
// How: one launch of 2 x T blocks (T tile columns of 16 rows x 64 columns, each streamed along dim 0 over
// the whole grid: 16 x 16 threads, 4 columns per thread, cp.async rings of u (with its 4-cell halo), v and
// roc2 two planes ahead, a register queue of u along dim 0 -- the stnc schedule). A block takes the next
// item of a fixed list from an atomic ticket: step t of tile n, then step t+1 of tile n - D, for n = 0, 1,
// ...; D >= (tiles per row) + 1, so when step t+1 of a tile is taken, step t of every neighbouring tile has
// been taken by a running block (no deadlock: blocks only wait for items dispensed before theirs).
// Both steps work in place in two arrays, as the launcher's step does (u and v swapped):
//   step t:   B = 2A - B + R lap(A)        step t+1: A = 2B - A + R lap(B)
// so step t+1 may overwrite A (u(t)) at a plane only when step t of the 3 x 3 neighbouring tiles has read
// it, and may read B (u(t+1)) only where step t has written it. Step t's blocks publish their progress
// (planes done) every kPub planes (fence, release store); step t+1's warp 0 waits (relaxed loads, a fence) until
// the neighbours are 7 planes ahead of the copies it is about to issue. Progress values carry an epoch
// (one per launch), so the flags are never reset.
//
// Every variant is checked bit for bit against two stnc sweeps (same expression order, -fmad=false) on an
// odd-shaped grid and at the timed size, and against 6 sweeps after 3 launches (the epochs).
// Modes: `N ...` (table), `--profile N` (one stnc sweep, one wave launch: for ncu), `--sustained N STEPS`.
#include <cuda_runtime.h>

#include "experiment.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "leap8.h"
#include "leap8_util.h"

namespace {

using namespace leap8x;  // bench/temporal/leap8_util.h

constexpr int kTX = 16, kTY = 16, kR = 4;
constexpr int kW = 4 * kTX, kH = kTY;                // a tile: 64 columns x 16 rows
constexpr int kUC = kW + 2 * kR, kUR = kH + 2 * kR;  // u's tile with its halo: 72 x 24
constexpr int kUSlots = 8, kVSlots = 4;              // planes i .. i+4, 2 in flight, one more
constexpr int kUFloats = kUSlots * kUR * kUC, kVFloats = kVSlots * kH * kW;
constexpr size_t kSmem = (kUFloats + 2 * kVFloats) * sizeof(float);
constexpr int kEpoch = 1 << 14;  // progress = epoch * kEpoch + planes done (n0 < kEpoch)
constexpr int kThreads = kTX * kTY;

__device__ __forceinline__ void stRelease(int* p, int v) {
  asm volatile("st.release.gpu.global.s32 [%0], %1;\n" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ int ldRelaxed(const int* p) {
  int v;
  asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// What the progress flags say about the 3 x 3 tiles around (ty, tx): the fewest planes done this epoch.
// Called by all of warp 0: lanes 0-8 read one flag each (relaxed loads, in parallel: acquire loads in a
// loop are serialised, about a microsecond each), the minimum goes to every lane.
__device__ int neighboursDone(const int* prog, int base, int ty, int tx, int tilesY, int tilesX) {
  const int lane = threadIdx.x + kTX * threadIdx.y;  // warp 0: threadIdx.y 0-1
  int m = kEpoch;
  if (lane < 9) {
    const int y = ty + lane / 3 - 1, x = tx + lane % 3 - 1;
    if (y >= 0 && y < tilesY && x >= 0 && x < tilesX) m = ldRelaxed(prog + y * tilesX + x) - base;
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) m = min(m, __shfl_xor_sync(0xffffffffu, m, o));
  return m;
}

// Warp 0 of a step-t+1 block: returns once the neighbours have done `planes` planes (capped by the caller
// at n0); a fence after the flags were seen orders the block's later reads after the neighbours' stores
// (with the barrier that follows: the pattern of CUTLASS's semaphore).
__device__ void waitFor(int& have, int planes, const int* prog, int base, int ty, int tx, int tilesY, int tilesX) {
  if (have >= planes) return;
  for (;;) {
    have = neighboursDone(prog, base, ty, tx, tilesY, tilesX);
    if (have >= planes) break;
    __nanosleep(20);
  }
  __threadfence();
}

// This thread's share of a tile's copies for one plane: u (with halo, 432 16-byte chunks: 2 per thread at
// most), v and roc2 (256 chunks: the thread's own 4 columns).
struct Copies {
  long uOff[2];
  bool uOk[2];
  int uDst[2];
  long vOff;
  bool vOk;
  __device__ Copies(const stnc_rt::Layout& L, long yb, long zb, int tid) {
#pragma unroll
    for (int q = 0; q < 2; ++q) {
      const int c = tid + q * kThreads;
      const int r = c / (kUC / 4), col = c % (kUC / 4);
      const long y = yb - kR + r, z = zb - kR + 4 * col;
      uOk[q] = c < kUR * (kUC / 4) && y >= -L.pad[1] && y < L.dim[1] - L.pad[1] && z >= -L.pad[2] && z + 4 <= L.dim[2] - L.pad[2];
      uOff[q] = uOk[q] ? stnc_rt::at(L, 0, y, z) : 0;
      uDst[q] = r * kUC + 4 * col;
    }
    const long y = yb + tid / kTX, z = zb + 4 * (tid % kTX);
    vOk = y < L.n[1] && z < L.n[2];
    vOff = vOk ? stnc_rt::at(L, 0, y, z) : 0;
  }
  __device__ void u(float* slot, const float* a, long plane, long s0, int tid) const {
#pragma unroll
    for (int q = 0; q < 2; ++q)
      if (tid + q * kThreads < kUR * (kUC / 4)) cpAsync16(slot + uDst[q], a + uOff[q] + plane * s0, uOk[q]);
  }
  __device__ void v(float* slot, const float* a, long plane, long s0, int tid) const {
    cpAsync16(slot + 4 * tid, a + vOff + plane * s0, vOk);
  }
};

// items[q]: (kind << 20) | tile, kind 0 = step t, 1 = step t+1.
template <int kPub>
__global__ void __launch_bounds__(kThreads) wavePair(const stnc_rt::Layout L, const int* __restrict__ items, int* ticket, int* prog,
                                                     int epoch, int tilesY, int tilesX, float* A, float* B, const float* __restrict__ R) {
  extern __shared__ float4 smem4_[];
  float* const uS = reinterpret_cast<float*>(smem4_);
  float* const vS = uS + kUFloats;
  float* const rS = vS + kVFloats;
  __shared__ int item_s;
  const int tid = threadIdx.y * kTX + threadIdx.x;
  const long n0 = L.n[0], s0 = L.stride[0];
  const int base = epoch * kEpoch;
  int have = -1;  // warp 0 of a second-step block: the neighbours' planes done, as last seen
  if (tid == 0) item_s = items[atomicAdd(ticket, 1)];
  __syncthreads();
  const int item = item_s;
  const int kind = item >> 20, tile = item & ((1 << 20) - 1);
  const int ty = tile / tilesX, tx = tile % tilesX;
  const float* u = kind == 0 ? A : B;  // read at radius 4
  float* v = kind == 0 ? B : A;        // read at offset 0 and overwritten
  const long yb = static_cast<long>(ty) * kH, zb = static_cast<long>(tx) * kW;
  const long y = yb + threadIdx.y, z = zb + 4 * threadIdx.x;
  const bool act = y < L.n[1] && z < L.n[2];
  if (kind == 1 && tid < 32) waitFor(have, static_cast<int>(min(7L, n0)), prog, base, ty, tx, tilesY, tilesX);
  __syncthreads();
  const Copies cp(L, yb, zb, tid);
  // The queue: u at planes -4 .. 3 from global memory (L2: another block may have just written them).
  float4 uq[9];
  const long p = act ? stnc_rt::at(L, 0, y, z) : 0;
#pragma unroll
  for (int m = 0; m < 8; ++m) uq[m] = act ? __ldcg(reinterpret_cast<const float4*>(u + p + (m - 4) * s0)) : float4{0, 0, 0, 0};
  for (int q = 0; q < 4; ++q)
    if (q < n0 + kR) cp.u(uS + q * kUR * kUC, u, q, s0, tid);
  cpAsyncCommit();
  for (int q = 0; q < 2; ++q) {
    if (4 + q < n0 + kR) cp.u(uS + (4 + q) * kUR * kUC, u, 4 + q, s0, tid);
    if (q < n0) {
      cp.v(vS + q * kH * kW, v, q, s0, tid);
      cp.v(rS + q * kH * kW, R, q, s0, tid);
    }
    cpAsyncCommit();
  }
  const int me = (threadIdx.y + kR) * kUC + 4 * threadIdx.x + kR;  // this thread's first column in a u slot
  for (long it = 0; it < n0; ++it) {
    if (it + 6 < n0 + kR) cp.u(uS + ((it + 6) % kUSlots) * kUR * kUC, u, it + 6, s0, tid);
    if (it + 2 < n0) {
      cp.v(vS + ((it + 2) % kVSlots) * kH * kW, v, it + 2, s0, tid);
      cp.v(rS + ((it + 2) % kVSlots) * kH * kW, R, it + 2, s0, tid);
    }
    cpAsyncCommit();
    cpAsyncWait<2>();
    // A second-step block (warp 0): before this barrier, what the next iteration's copies need (u plane it + 7).
    if (kind == 1 && tid < 32) waitFor(have, static_cast<int>(min(it + 8, n0)), prog, base, ty, tx, tilesY, tilesX);
    __syncthreads();
    // A first-step block: every thread's stores of planes < it are done (the barrier); publish them.
    if (kind == 0 && tid == 0 && it % kPub == 0 && it > 0) {
      __threadfence();
      stRelease(prog + tile, base + static_cast<int>(it));
    }
    const float* P = uS + (it % kUSlots) * kUR * kUC + me;
    uq[8] = *reinterpret_cast<const float4*>(uS + ((it + 4) % kUSlots) * kUR * kUC + me);
    const float4 l = *reinterpret_cast<const float4*>(P - 4), c4 = uq[4], rr = *reinterpret_cast<const float4*>(P + 4);
    float4 up[4], dn[4];
#pragma unroll
    for (int m = 1; m <= 4; ++m) {
      up[m - 1] = *reinterpret_cast<const float4*>(P + m * kUC);
      dn[m - 1] = *reinterpret_cast<const float4*>(P - m * kUC);
    }
    const float4 vv = *reinterpret_cast<const float4*>(vS + (it % kVSlots) * kH * kW + 4 * tid);
    const float4 rv = *reinterpret_cast<const float4*>(rS + (it % kVSlots) * kH * kW + 4 * tid);
    const float4 out = leap8x::update4cols(uq, up, dn, l, c4, rr, vv, rv);
    if (act) *reinterpret_cast<float4*>(v + p + it * s0) = out;
#pragma unroll
    for (int m = 0; m < 8; ++m) uq[m] = uq[m + 1];
  }
  if (kind == 0) {
    __syncthreads();
    if (tid == 0) {
      __threadfence();
      stRelease(prog + tile, base + static_cast<int>(n0));
    }
  }
}

// The launch's state: the item list, the ticket, the progress flags and the epoch.
struct Wave {
  int *items = nullptr, *ticket = nullptr, *prog = nullptr;
  int epoch = 0, tilesY = 0, tilesX = 0, pub = 4, items2 = 2;  // items2: items per tile (2, or 1: single)
  size_t smem = kSmem;  // 2 x kSmem: one block per SM (half the tiles in flight: a shorter reuse distance)
};

// single: the first step's items only (one sweep by the same kernel, for comparison with one stnc sweep).
Wave makeWave(const stnc_rt::Layout& L, int lag, int pub, bool single = false, bool onePerSM = false) {
  Wave w;
  w.smem = onePerSM ? 2 * kSmem : kSmem;
  w.tilesY = static_cast<int>((L.n[1] + kH - 1) / kH);
  w.tilesX = static_cast<int>((L.n[2] + kW - 1) / kW);
  w.pub = pub;
  w.items2 = single ? 1 : 2;
  const int T = w.tilesY * w.tilesX, D = w.tilesX + 1 + lag;
  std::vector<int> items;
  for (int n = 0; n < T + D; ++n) {
    if (n < T) items.push_back(n);
    if (n - D >= 0 && !single) items.push_back((1 << 20) | (n - D));
  }
  CK(cudaMalloc(&w.items, items.size() * sizeof(int)));
  CK(cudaMemcpy(w.items, items.data(), items.size() * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMalloc(&w.ticket, sizeof(int)));
  CK(cudaMalloc(&w.prog, T * sizeof(int)));
  CK(cudaMemset(w.prog, 0, T * sizeof(int)));
  return w;
}

void freeWave(Wave& w) {
  CK(cudaFree(w.items));
  CK(cudaFree(w.ticket));
  CK(cudaFree(w.prog));
}

template <int kPub>
void launchPub(Wave& w, const stnc_rt::Layout& L, float* A, float* B, const float* R, cudaStream_t s) {
  static bool set = false;
  if (!set) {
    CK(cudaFuncSetAttribute(wavePair<kPub>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(2 * kSmem)));
    set = true;
  }
  CK(cudaMemsetAsync(w.ticket, 0, sizeof(int), s));
  ++w.epoch;
  wavePair<kPub><<<w.items2 * w.tilesY * w.tilesX, dim3(kTX, kTY), w.smem, s>>>(L, w.items, w.ticket, w.prog, w.epoch, w.tilesY, w.tilesX, A, B, R);
  CK(cudaGetLastError());
}

// Two steps in place: B = u(t+1), A = u(t+2).
void wave(Wave& w, const stnc_rt::Layout& L, float* A, float* B, const float* R, cudaStream_t s = nullptr) {
  if (w.pub == 1) launchPub<1>(w, L, A, B, R, s);
  else if (w.pub == 2) launchPub<2>(w, L, A, B, R, s);
  else if (w.pub == 8) launchPub<8>(w, L, A, B, R, s);
  else launchPub<4>(w, L, A, B, R, s);
}

struct Arrays {
  stnc_rt::Layout L;
  float *A, *B, *R, *Aref, *Bref;
};

Arrays allocate(long n0, long n1, long n2) {
  Arrays a{};
  a.L = stn::leap8::layout(n0, n1, n2);
  for (float** f : {&a.A, &a.B, &a.R, &a.Aref, &a.Bref}) CK(cudaMalloc(f, a.L.count * sizeof(float)));
  fillRandom(a.A, a.L.count, -1.0f, 1.0f, 11);
  fillRandom(a.B, a.L.count, -1.0f, 1.0f, 12);
  fillRandom(a.R, a.L.count, 0.01f, 0.05f, 13);
  return a;
}

void release(Arrays& a) {
  for (float* f : {a.A, a.B, a.R, a.Aref, a.Bref}) CK(cudaFree(f));
}

unsigned long long diff(const float* x, const float* ref, size_t n, unsigned long long* dBad) {
  CK(cudaMemset(dBad, 0, sizeof(*dBad)));
  countDiff<<<1024, 256>>>(x, ref, n, dBad);
  unsigned long long bad = 0;
  CK(cudaMemcpy(&bad, dBad, sizeof(bad), cudaMemcpyDeviceToHost));
  return bad;
}

// `pairs` launches of the wave on copies of (A, B) against 2 x pairs stnc sweeps; the mismatching elements
// of both arrays (both are read before they are written, so they cannot be poisoned: a point left unwritten
// keeps a value two steps old, which differs).
unsigned long long check(Arrays& a, Wave& w, int pairs, unsigned long long* dBad) {
  const size_t bytes = a.L.count * sizeof(float);
  float *X = nullptr, *W = nullptr;
  CK(cudaMalloc(&X, bytes));
  CK(cudaMalloc(&W, bytes));
  CK(cudaMemcpy(a.Aref, a.A, bytes, cudaMemcpyDeviceToDevice));
  CK(cudaMemcpy(a.Bref, a.B, bytes, cudaMemcpyDeviceToDevice));
  CK(cudaMemcpy(X, a.A, bytes, cudaMemcpyDeviceToDevice));
  CK(cudaMemcpy(W, a.B, bytes, cudaMemcpyDeviceToDevice));
  for (int q = 0; q < pairs; ++q) {
    CK(stn::leap8::cuda::sweep(a.L, a.Aref, a.R, a.Bref));
    CK(stn::leap8::cuda::sweep(a.L, a.Bref, a.R, a.Aref));
  }
  for (int q = 0; q < pairs; ++q) wave(w, a.L, X, W, a.R);
  CK(cudaDeviceSynchronize());
  const unsigned long long bad = diff(X, a.Aref, a.L.count, dBad) + diff(W, a.Bref, a.L.count, dBad);
  CK(cudaFree(X));
  CK(cudaFree(W));
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned long long* dBad = nullptr;
  CK(cudaMalloc(&dBad, sizeof(*dBad)));
  if (argc == 3 && std::strcmp(argv[1], "--profile") == 0) {
    Arrays a = allocate(std::atol(argv[2]), std::atol(argv[2]), std::atol(argv[2]));
    Wave w = makeWave(a.L, 1, 4);
    CK(stn::leap8::cuda::sweep(a.L, a.A, a.R, a.B));
    wave(w, a.L, a.A, a.B, a.R);
    Wave w1 = makeWave(a.L, 1, 4, true);  // then the first step's items alone
    wave(w1, a.L, a.A, a.B, a.R);
    Wave w2 = makeWave(a.L, 1, 4, false, true);  // then the pair with one block per SM
    wave(w2, a.L, a.A, a.B, a.R);
    CK(cudaDeviceSynchronize());
    return 0;
  }
  if (argc == 4 && std::strcmp(argv[1], "--sustained") == 0) {  // STEPS steps: stnc's step loop, then the wave
    const long n = std::atol(argv[2]), steps = std::atol(argv[3]) / 2 * 2;
    Arrays a = allocate(n, n, n);
    Wave w = makeWave(a.L, 1, 4);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    const double pts = static_cast<double>(n) * n * n;
    for (int pass = 0; pass < 2; ++pass) {
      for (int q = 0; q < 10; ++q) wave(w, a.L, a.A, a.B, a.R);
      CK(stn::leap8::cuda::step(a.L, 20, a.A, a.R, a.B));
      CK(cudaDeviceSynchronize());
      float ms = 0;
      CK(cudaEventRecord(e0));
      CK(stn::leap8::cuda::step(a.L, steps, a.A, a.R, a.B));
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      CK(cudaEventElapsedTime(&ms, e0, e1));
      std::printf("SUSTAINED stnc step  grid=%ld^3 steps=%ld ms_per_step=%.4f gpts=%.1f\n", n, steps, ms / steps, pts / (ms / steps * 1e6));
      CK(cudaEventRecord(e0));
      for (long q = 0; q < steps / 2; ++q) wave(w, a.L, a.A, a.B, a.R);
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      CK(cudaEventElapsedTime(&ms, e0, e1));
      std::printf("SUSTAINED wave pairs grid=%ld^3 steps=%ld ms_per_step=%.4f gpts=%.1f\n", n, steps, ms / steps, pts / (ms / steps * 1e6));
    }
    return 0;
  }
  std::vector<long> sizes;
  for (int q = 1; q < argc; ++q) sizes.push_back(std::atol(argv[q]));
  if (sizes.empty()) sizes = {800};
  struct Variant {
    const char* name;
    int lag, pub;
    bool onePerSM = false;
  };
  const Variant vs[] = {
      {"lag 1 tile, publish every 4 planes", 1, 4},  {"lag 1 tile, publish every plane", 1, 1},
      {"lag 1 tile, publish every 2 planes", 1, 2},
      {"lag 1 tile, publish every 8 planes", 1, 8},  {"lag = 1 tile row, publish every 4", -1, 4},
      {"lag = 3 tile rows, publish every 4", -3, 4},   {"lag 1 tile, publish every 8, one block per SM", 1, 8, true},
      {"lag 1 tile, publish every 4, one block per SM", 1, 4, true},
  };
  int failures = 0;
  auto lagOf = [](const Variant& v, const stnc_rt::Layout& L) {
    const int tilesX = static_cast<int>((L.n[2] + kW - 1) / kW);
    return v.lag >= 0 ? v.lag : -v.lag * tilesX;
  };
  {
    Arrays a = allocate(203, 117, 164);
    for (const Variant& v : vs) {
      Wave w = makeWave(a.L, lagOf(v, a.L), v.pub, false, v.onePerSM);
      for (int pairs : {1, 3}) {
        const unsigned long long bad = check(a, w, pairs, dBad);
        std::printf("check 203x117x164, %d launch(es): %-40s %s (%llu mismatches)\n", pairs, v.name, bad ? "**MISMATCH**" : "bit-identical", bad);
        failures += bad != 0;
      }
      freeWave(w);
    }
    release(a);
  }
  const int reps = 20;
  const size_t flushN = (256u << 20) / sizeof(float);
  float* flush = nullptr;
  CK(cudaMalloc(&flush, flushN * sizeof(float)));
  for (const long n : sizes) {
    Arrays a = allocate(n, n, n);
    const double pts = static_cast<double>(n) * n * n;
    namespace S = stn::leap8;
    const double two = medianMs([&] {
      CK(S::cuda::sweep(a.L, a.A, a.R, a.B));
      CK(S::cuda::sweep(a.L, a.B, a.R, a.A));
    }, reps, flush, flushN * sizeof(float));
    {  // the wave kernel's first step alone (whole columns, no second step): is the schedule itself as fast?
      const double one = medianMs([&] { CK(S::cuda::sweep(a.L, a.A, a.R, a.B)); }, reps, flush, flushN * sizeof(float));
      Wave w = makeWave(a.L, 1, 4, true);
      const double t = medianMs([&] { wave(w, a.L, a.A, a.B, a.R); }, reps, flush, flushN * sizeof(float));
      std::printf("one step: stnc sweep %.3f ms, the wave kernel's step-t items alone (whole columns, publishing every 4) %.3f ms (%.2fx)\n", one, t,
                  one / t);
      freeWave(w);
    }
    const double floorTwo = 32.0 * pts / 4.25e9, floorWave = 20.0 * pts / 4.25e9;
    std::printf("\ngrid %ld^3 f32 (leap8, r = 4), 2 time steps; floors at 4.25 TB/s: two sweeps %.3f ms (32 B/pt), through L2 %.3f ms (20 B/pt)\n", n,
                floorTwo, floorWave);
    std::printf("| variant | ms per 2 steps | Gpts/s (x2 steps) | of the 20 B/pt floor | vs 2 stnc sweeps | bit-identical |\n|---|---:|---:|---:|---:|---|\n");
    std::printf("| stnc sweep x2 | %.3f | %.1f | %.2f | 1.00 | (reference) |\n", two, 2 * pts / (two * 1e6), floorWave / two);
    for (const Variant& v : vs) {
      Wave w = makeWave(a.L, lagOf(v, a.L), v.pub, false, v.onePerSM);
      const unsigned long long bad = check(a, w, 1, dBad);
      failures += bad != 0;
      const double t = medianMs([&] { wave(w, a.L, a.A, a.B, a.R); }, reps, flush, flushN * sizeof(float));
      std::printf("| wave, %s | %.3f | %.1f | %.2f | %.2f | %s |\n", v.name, t, 2 * pts / (t * 1e6), floorWave / t, two / t, bad ? "**NO**" : "yes");
      freeWave(w);
    }
    release(a);
  }
  return failures ? 1 : 0;
}
