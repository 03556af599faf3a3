// Experiment (session 29, issue 8): the memory-pattern floor of one acoustic PML step.
//
//   nvcc -O3 -arch=sm_90 -o pattern samples/acoustic/exp/pattern.cu && ./pattern [N]
//
// The generated step moves, per point, u v roc2 -> v in the inner region (16 B) and u v roc2 eta phi -> v phi in the
// PML shell (28 B), over the boxes the launcher splits the grid into (the inner box and six faces). These kernels do
// exactly those compulsory accesses and no stencil (each point reads its own values only: no halo, no shared memory,
// no arithmetic worth the name), on the sample's layout (808 x 808 x 864 f32 arrays, interior at column 32). What they
// take is what the access pattern alone costs: the gap between them and the generated kernels is what a better
// kernel could win, the gap between them and the copy rate is what the pattern (short rows, page misses) costs.
// Timing: CUDA events, 3 warm-ups, median of 15; random fields. Results: bench/results/2026-12-04-s29-kfaces.md.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); std::exit(1); } } while (0)

struct Box { int lo[3], hi[3]; };
static long S0, S1, ORG;  // strides and the interior origin (host)
struct Geo { long s0, s1, org; };

// One thread per point of the tile column: 32 columns x 8 rows per block, grid.z = planes.
// hole0 < hole1: columns [hole0, hole1) skipped and grid.x = 2 picks the box's first and last tile column (the two
// k-faces in one launch).
__global__ void shellPts(Geo g, Box b, int hole0, int hole1, const float* __restrict__ u, const float* __restrict__ roc2,
                         const float* __restrict__ eta, float* __restrict__ v, float* __restrict__ phi) {
  const int lastCol = (b.hi[2] - 1) / 32 - b.lo[2] / 32;  // with a hole, grid.x = 2: the first and the last tile column
  const int col = hole0 < hole1 && blockIdx.x == 1 ? lastCol : blockIdx.x;
  const int k = b.lo[2] / 32 * 32 + col * 32 + threadIdx.x;
  const int j = b.lo[1] + blockIdx.y * 8 + threadIdx.y;
  const int i = b.lo[0] + blockIdx.z;
  if (k < b.lo[2] || k >= b.hi[2] || j >= b.hi[1] || (k >= hole0 && k < hole1)) return;
  const long p = g.org + i * g.s0 + j * g.s1 + k;
  const float e = eta[p], uu = u[p], vv = v[p], r = roc2[p], f = phi[p];
  v[p] = (2.f + e) * uu - vv + r * f;
  phi[p] = f - e * uu;
}
__global__ void innerPts(Geo g, Box b, const float* __restrict__ u, const float* __restrict__ roc2, float* __restrict__ v) {
  const int k = b.lo[2] / 32 * 32 + blockIdx.x * 32 + threadIdx.x;
  const int j = b.lo[1] + blockIdx.y * 8 + threadIdx.y;
  const int i = b.lo[0] + blockIdx.z;
  if (k < b.lo[2] || k >= b.hi[2] || j >= b.hi[1]) return;
  const long p = g.org + i * g.s0 + j * g.s1 + k;
  v[p] = 2.f * u[p] - v[p] + roc2[p] * u[p];
}
// Both parts in one kernel, per point: the inner box's 3r1w inside [a, z)^3, the shell's 5r2w outside.
__global__ void fusedPts(Geo g, Box b, int a, int z, const float* __restrict__ u, const float* __restrict__ roc2,
                         const float* __restrict__ eta, float* __restrict__ v, float* __restrict__ phi) {
  const int k = b.lo[2] + blockIdx.x * 32 + threadIdx.x, j = b.lo[1] + blockIdx.y * 8 + threadIdx.y, i = b.lo[0] + blockIdx.z;
  if (k >= b.hi[2] || j >= b.hi[1]) return;
  const long p = g.org + i * g.s0 + j * g.s1 + k;
  if (i >= a && i < z && j >= a && j < z && k >= a && k < z) { v[p] = 2.f * u[p] - v[p] + roc2[p] * u[p]; return; }
  const float e = eta[p], uu = u[p], vv = v[p], r = roc2[p], f = phi[p];
  v[p] = (2.f + e) * uu - vv + r * f;
  phi[p] = f - e * uu;
}
// The thread of a vector kernel: columns k4 .. k4+3, row j, planes i0 .. i0+np-1 of box b; false past the box.
template <int PPT>
__device__ bool vecSite(const Box& b, int& k4, int& j, int& i0, int& np) {
  k4 = b.lo[2] / 4 * 4 + (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  j = b.lo[1] + blockIdx.y * blockDim.y + threadIdx.y;
  i0 = b.lo[0] + blockIdx.z * PPT;
  np = b.hi[0] - i0 < PPT ? b.hi[0] - i0 : PPT;
  return k4 < b.hi[2] && j < b.hi[1];
}
// The same accesses as 16-byte vectors, PPT planes per thread (all loads before the stores): more bytes in flight.
// Thread columns k4 .. k4+3 (k4 a multiple of 4: the rows start on 128 bytes, so every vector is aligned); a vector
// partly outside the box stores only its points inside. bx threads along dim 2 (4 columns each), 256 / bx rows.
template <bool Shell, int PPT>
__global__ void vecPts(Geo g, Box b, int a, int z, const float* __restrict__ u, const float* __restrict__ roc2,
                       const float* __restrict__ eta, float* __restrict__ v, float* __restrict__ phi) {
  int k4, j, i0, np;
  if (!vecSite<PPT>(b, k4, j, i0, np)) return;
  const bool whole = k4 >= b.lo[2] && k4 + 4 <= b.hi[2] && !(Shell && k4 + 4 > a && k4 < z && a < z);
  float4 U[PPT], V[PPT], R[PPT], E[PPT], P[PPT];
  long p[PPT];
#pragma unroll
  for (int q = 0; q < PPT; ++q) {
    if (q >= np) break;
    p[q] = g.org + (i0 + q) * g.s0 + j * g.s1 + k4;
    U[q] = *reinterpret_cast<const float4*>(u + p[q]);
    V[q] = *reinterpret_cast<const float4*>(v + p[q]);
    R[q] = *reinterpret_cast<const float4*>(roc2 + p[q]);
    if (Shell) { E[q] = *reinterpret_cast<const float4*>(eta + p[q]); P[q] = *reinterpret_cast<const float4*>(phi + p[q]); }
  }
#pragma unroll
  for (int q = 0; q < PPT; ++q) {
    if (q >= np) break;
    const float* uu = &U[q].x; const float* vv = &V[q].x; const float* rr = &R[q].x; const float* ee = &E[q].x; const float* ff = &P[q].x;
    float4 O, Q; float* o = &O.x; float* f = &Q.x;
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      if (Shell) { o[c] = (2.f + ee[c]) * uu[c] - vv[c] + rr[c] * ff[c]; f[c] = ff[c] - ee[c] * uu[c]; }
      else o[c] = 2.f * uu[c] - vv[c] + rr[c] * uu[c];
    }
    if (whole) {
      *reinterpret_cast<float4*>(v + p[q]) = O;
      if (Shell) *reinterpret_cast<float4*>(phi + p[q]) = Q;
    } else {
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const int k = k4 + c;
        if (k < b.lo[2] || k >= b.hi[2] || (Shell && k >= a && k < z)) continue;
        v[p[q] + c] = o[c];
        if (Shell) phi[p[q] + c] = f[c];
      }
    }
  }
}
// Both parts per point with vectors (the row-fused pattern): inside [a, z)^3 the inner 3r1w, elsewhere the shell's
// 5r2w; eta and phi are loaded only by vectors holding a shell point.
template <int PPT>
__global__ void vecFused(Geo g, Box b, int a, int z, const float* __restrict__ u, const float* __restrict__ roc2,
                         const float* __restrict__ eta, float* __restrict__ v, float* __restrict__ phi) {
  int k4, j, i0, np;
  if (!vecSite<PPT>(b, k4, j, i0, np)) return;
  const bool jin = j >= a && j < z;
  float4 U[PPT], V[PPT], R[PPT], E[PPT], P[PPT];
  long p[PPT];
  bool sh[PPT];
#pragma unroll
  for (int q = 0; q < PPT; ++q) {
    if (q >= np) break;
    const bool iin = i0 + q >= a && i0 + q < z;
    sh[q] = !(iin && jin && k4 >= a && k4 + 4 <= z);  // the vector holds a shell point
    p[q] = g.org + (i0 + q) * g.s0 + j * g.s1 + k4;
    U[q] = *reinterpret_cast<const float4*>(u + p[q]);
    V[q] = *reinterpret_cast<const float4*>(v + p[q]);
    R[q] = *reinterpret_cast<const float4*>(roc2 + p[q]);
    if (sh[q]) { E[q] = *reinterpret_cast<const float4*>(eta + p[q]); P[q] = *reinterpret_cast<const float4*>(phi + p[q]); }
  }
#pragma unroll
  for (int q = 0; q < PPT; ++q) {
    if (q >= np) break;
    const bool iin = i0 + q >= a && i0 + q < z;
    const float* uu = &U[q].x; const float* vv = &V[q].x; const float* rr = &R[q].x; const float* ee = &E[q].x; const float* ff = &P[q].x;
    float4 O, Q; float* o = &O.x; float* f = &Q.x;
    if (!sh[q]) {
#pragma unroll
      for (int c = 0; c < 4; ++c) o[c] = 2.f * uu[c] - vv[c] + rr[c] * uu[c];
      *reinterpret_cast<float4*>(v + p[q]) = O;
      continue;
    }
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const int k = k4 + c;
      const bool in = iin && jin && k >= a && k < z;
      if (in) o[c] = 2.f * uu[c] - vv[c] + rr[c] * uu[c];
      else { o[c] = (2.f + ee[c]) * uu[c] - vv[c] + rr[c] * ff[c]; f[c] = ff[c] - ee[c] * uu[c]; }
    }
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const int k = k4 + c;
      if (k < b.lo[2] || k >= b.hi[2]) continue;
      v[p[q] + c] = o[c];
      if (!(iin && jin && k >= a && k < z)) phi[p[q] + c] = f[c];
    }
  }
}
__global__ void copyK(const float4* __restrict__ a, float4* __restrict__ b, long n) {
  for (long q = blockIdx.x * (long)blockDim.x + threadIdx.x; q < n; q += (long)gridDim.x * blockDim.x) b[q] = a[q];
}
__global__ void copy4K(const float4* __restrict__ a, float4* __restrict__ b, long n) {  // 4 vectors in flight per thread
  const long s = (long)gridDim.x * blockDim.x;
  for (long q = blockIdx.x * (long)blockDim.x + threadIdx.x; q < n; q += 4 * s) {
    float4 t[4];
    for (int r = 0; r < 4; ++r) if (q + r * s < n) t[r] = a[q + r * s];
    for (int r = 0; r < 4; ++r) if (q + r * s < n) b[q + r * s] = t[r];
  }
}
__global__ void initK(float* a, long n, unsigned seed) {
  for (long q = blockIdx.x * (long)blockDim.x + threadIdx.x; q < n; q += (long)gridDim.x * blockDim.x) {
    unsigned x = (unsigned)q * 2654435761u ^ seed; x ^= x >> 13; x *= 0x5bd1e995u; x ^= x >> 15;
    a[q] = (x & 0xffff) * (1.f / 65536.f) * 1e-3f;
  }
}

static float* F[5];  // u roc2 eta v phi
static Geo G;
static dim3 gridOf(const Box& b, int cols = -1) {
  const int c = cols > 0 ? cols : (b.hi[2] - b.lo[2] / 32 * 32 + 31) / 32;
  return dim3(c, (b.hi[1] - b.lo[1] + 7) / 8, b.hi[0] - b.lo[0]);
}
static void launchShell(const Box& b, cudaStream_t s) {
  shellPts<<<gridOf(b), dim3(32, 8), 0, s>>>(G, b, 0, 0, F[0], F[1], F[2], F[3], F[4]);
}
static void launchInner(const Box& b, cudaStream_t s) { innerPts<<<gridOf(b), dim3(32, 8), 0, s>>>(G, b, F[0], F[1], F[3]); }
// vecPts over a box (hole [a, z) along dim 2 for the shell's one-launch k-faces; a >= z: none)
static int gPPT = 1;
template <bool Shell, int PPT> static void launchVecP(const Box& b, cudaStream_t s, int a, int z) {
  const int cols4 = (b.hi[2] - b.lo[2] / 4 * 4 + 3) / 4;
  const int bx = cols4 <= 8 ? 8 : 32, by = 256 / bx;
  const dim3 grid((cols4 + bx - 1) / bx, (b.hi[1] - b.lo[1] + by - 1) / by, (b.hi[0] - b.lo[0] + PPT - 1) / PPT);
  vecPts<Shell, PPT><<<grid, dim3(bx, by), 0, s>>>(G, b, a, z, F[0], F[1], F[2], F[3], F[4]);
}
template <bool Shell> static void launchVec(const Box& b, cudaStream_t s, int a = 1, int z = 0) {
  if (gPPT == 1) launchVecP<Shell, 1>(b, s, a, z);
  else if (gPPT == 2) launchVecP<Shell, 2>(b, s, a, z);
  else launchVecP<Shell, 4>(b, s, a, z);
}

template <class Fn> static float timeIt(Fn fn) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int r = 0; r < 18; ++r) {
    CK(cudaEventRecord(a)); fn(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
    float ms = 0; CK(cudaEventElapsedTime(&ms, a, b));
    if (r >= 3) t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2] * 1000.f;  // µs
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 800, w = 27;
  const long d2 = ((32 + n + 4) + 31) / 32 * 32, d1 = n + 8, d0 = n + 8;
  S1 = d2; S0 = d1 * d2; ORG = 4 * S0 + 4 * S1 + 32;
  G = {S0, S1, ORG};
  const long cnt = d0 * S0;
  for (auto& f : F) { CK(cudaMalloc(&f, cnt * 4)); }
  for (int q = 0; q < 5; ++q) initK<<<1024, 256>>>(F[q], cnt, 17u * q + 5u);
  CK(cudaDeviceSynchronize());
  cudaStream_t st[8];
  for (auto& s : st) CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t fork, join[8];
  CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  for (auto& e : join) CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  auto onLanes = [&](std::vector<std::function<void(cudaStream_t)>> fs) {
    CK(cudaEventRecord(fork, 0));
    for (size_t q = 0; q < fs.size(); ++q) { CK(cudaStreamWaitEvent(st[q], fork)); fs[q](st[q]); CK(cudaEventRecord(join[q], st[q])); }
    for (size_t q = 0; q < fs.size(); ++q) CK(cudaStreamWaitEvent(0, join[q]));
  };
  const int a = w, z = n - w;
  const Box inner{{a, a, a}, {z, z, z}};
  const Box f0lo{{0, 0, 0}, {a, n, n}}, f0hi{{z, 0, 0}, {n, n, n}};
  const Box f1lo{{a, 0, 0}, {z, a, n}}, f1hi{{a, z, 0}, {z, n, n}};
  const Box f2lo{{a, a, 0}, {z, z, a}}, f2hi{{a, a, z}, {z, z, n}};
  const Box f2both{{a, a, 0}, {z, z, n}};
  auto pts = [](const Box& b) { return double(b.hi[0] - b.lo[0]) * (b.hi[1] - b.lo[1]) * (b.hi[2] - b.lo[2]); };
  auto row = [&](const char* what, double bytes, float us) {
    std::printf("| %s | %.1f | %.0f | %.1f | %.3f |\n", what, us, bytes / 1e6, bytes / us / 1e3, bytes / us / 1e3 / 4255.0);
  };
  // copy rate on 2 GB
  {
    const long m = cnt / 4;
    const float us = timeIt([&] { copyK<<<132 * 16, 256>>>((const float4*)F[0], (float4*)F[4], m); });
    std::printf("grid %d^3, arrays %ldx%ldx%ld f32\n\n| pattern | µs | compulsory MB | GB/s | of 4255 GB/s copy |\n| --- | ---: | ---: | ---: | ---: |\n", n, d0, d1, d2);
    row("copy (D2D kernel, 2 x 2.2 GB)", 8.0 * cnt, us);
    row("copy (4 vectors in flight per thread)", 8.0 * cnt, timeIt([&] { copy4K<<<132 * 8, 512>>>((const float4*)F[0], (float4*)F[4], m); }));
    row("copy (cudaMemcpy D2D)", 8.0 * cnt, timeIt([&] { CK(cudaMemcpyAsync(F[4], F[0], cnt * 4, cudaMemcpyDeviceToDevice)); }));
    for (int q = 0; q < 5; ++q) initK<<<1024, 256>>>(F[q], cnt, 17u * q + 5u);
  }
  const double ib = 16 * pts(inner), fb[6] = {28 * pts(f0lo), 28 * pts(f0hi), 28 * pts(f1lo), 28 * pts(f1hi), 28 * pts(f2lo), 28 * pts(f2hi)};
  double shellB = 0; for (double x : fb) shellB += x;
  row("inner box, 3r1w pointwise", ib, timeIt([&] { launchInner(inner, 0); }));
  row("i-face lo (27 planes)", fb[0], timeIt([&] { launchShell(f0lo, 0); }));
  row("j-face lo (27 rows)", fb[2], timeIt([&] { launchShell(f1lo, 0); }));
  row("k-face lo (27 columns)", fb[4], timeIt([&] { launchShell(f2lo, 0); }));
  row("k-face hi (27 columns)", fb[5], timeIt([&] { launchShell(f2hi, 0); }));
  row("k-faces, two launches on two lanes", fb[4] + fb[5], timeIt([&] { onLanes({[&](cudaStream_t s) { launchShell(f2lo, s); }, [&](cudaStream_t s) { launchShell(f2hi, s); }}); }));
  row("k-faces, one launch (grid.x = first and last tile column)", fb[4] + fb[5], timeIt([&] {
    Box b = f2both;
    // x = 0: the first tile column; x = 1: the last; the hole [a, z) skipped
    shellPts<<<dim3(2, (b.hi[1] - b.lo[1] + 7) / 8, b.hi[0] - b.lo[0]), dim3(32, 8)>>>(G, b, a, z, F[0], F[1], F[2], F[3], F[4]);
  }));
  row("shell: six faces on six lanes", shellB, timeIt([&] {
    onLanes({[&](cudaStream_t s) { launchShell(f0lo, s); }, [&](cudaStream_t s) { launchShell(f0hi, s); },
             [&](cudaStream_t s) { launchShell(f1lo, s); }, [&](cudaStream_t s) { launchShell(f1hi, s); },
             [&](cudaStream_t s) { launchShell(f2lo, s); }, [&](cudaStream_t s) { launchShell(f2hi, s); }});
  }));
  row("step: inner + six faces on seven lanes", ib + shellB, timeIt([&] {
    onLanes({[&](cudaStream_t s) { launchInner(inner, s); }, [&](cudaStream_t s) { launchShell(f0lo, s); },
             [&](cudaStream_t s) { launchShell(f0hi, s); }, [&](cudaStream_t s) { launchShell(f1lo, s); },
             [&](cudaStream_t s) { launchShell(f1hi, s); }, [&](cudaStream_t s) { launchShell(f2lo, s); },
             [&](cudaStream_t s) { launchShell(f2hi, s); }});
  }));
  row("step: whole grid, 5r2w pointwise (no regions: the shell's bytes everywhere)", 28 * pts(Box{{0, 0, 0}, {n, n, n}}),
      timeIt([&] { launchShell(Box{{0, 0, 0}, {n, n, n}}, 0); }));
  row("step: one kernel, per point inner 3r1w or shell 5r2w", ib + shellB,
      timeIt([&] { fusedPts<<<gridOf(Box{{0, 0, 0}, {n, n, n}}), dim3(32, 8)>>>(G, Box{{0, 0, 0}, {n, n, n}}, a, z, F[0], F[1], F[2], F[3], F[4]); }));
  row("step: one kernel for the rows of the inner j-i range (k-faces with the inner box), i- and j-faces on lanes", ib + shellB, timeIt([&] {
    onLanes({[&](cudaStream_t s) { fusedPts<<<gridOf(f2both), dim3(32, 8), 0, s>>>(G, f2both, a, z, F[0], F[1], F[2], F[3], F[4]); },
             [&](cudaStream_t s) { launchShell(f0lo, s); }, [&](cudaStream_t s) { launchShell(f0hi, s); },
             [&](cudaStream_t s) { launchShell(f1lo, s); }, [&](cudaStream_t s) { launchShell(f1hi, s); }});
  }));
  for (int ppt : {1, 2, 4}) {
  gPPT = ppt;
  std::printf("\nThe same with 16-byte vectors, %d plane(s) per thread:\n\n| pattern | µs | compulsory MB | GB/s | of 4255 GB/s copy |\n| --- | ---: | ---: | ---: | ---: |\n", ppt);
  row("vec: inner box 3r1w", ib, timeIt([&] { launchVec<false>(inner, 0); }));
  row("vec: i-face lo", fb[0], timeIt([&] { launchVec<true>(f0lo, 0); }));
  row("vec: j-face lo", fb[2], timeIt([&] { launchVec<true>(f1lo, 0); }));
  row("vec: k-face lo", fb[4], timeIt([&] { launchVec<true>(f2lo, 0); }));
  row("vec: k-face hi", fb[5], timeIt([&] { launchVec<true>(f2hi, 0); }));
  row("vec: shell, six faces on six lanes", shellB, timeIt([&] {
    onLanes({[&](cudaStream_t s) { launchVec<true>(f0lo, s); }, [&](cudaStream_t s) { launchVec<true>(f0hi, s); },
             [&](cudaStream_t s) { launchVec<true>(f1lo, s); }, [&](cudaStream_t s) { launchVec<true>(f1hi, s); },
             [&](cudaStream_t s) { launchVec<true>(f2lo, s); }, [&](cudaStream_t s) { launchVec<true>(f2hi, s); }});
  }));
  row("vec: step, inner + six faces on seven lanes", ib + shellB, timeIt([&] {
    onLanes({[&](cudaStream_t s) { launchVec<false>(inner, s); }, [&](cudaStream_t s) { launchVec<true>(f0lo, s); },
             [&](cudaStream_t s) { launchVec<true>(f0hi, s); }, [&](cudaStream_t s) { launchVec<true>(f1lo, s); },
             [&](cudaStream_t s) { launchVec<true>(f1hi, s); }, [&](cudaStream_t s) { launchVec<true>(f2lo, s); },
             [&](cudaStream_t s) { launchVec<true>(f2hi, s); }});
  }));
  {
    auto fusedL = [&](const Box& b, cudaStream_t st_) {
      const int cols4 = (b.hi[2] - b.lo[2] / 4 * 4 + 3) / 4;
      const dim3 grid((cols4 + 31) / 32, (b.hi[1] - b.lo[1] + 7) / 8, (b.hi[0] - b.lo[0] + 1) / 2);
      vecFused<2><<<grid, dim3(32, 8), 0, st_>>>(G, b, a, z, F[0], F[1], F[2], F[3], F[4]);
    };
    if (ppt == 2) {
      row("vec fused: whole step as one row-sweeping kernel", ib + shellB, timeIt([&] { fusedL(Box{{0, 0, 0}, {n, n, n}}, 0); }));
      row("vec fused: inner + k-faces as one kernel (rows of the inner j-i range), i- and j-faces on lanes", ib + shellB, timeIt([&] {
        onLanes({[&](cudaStream_t st_) { fusedL(f2both, st_); }, [&](cudaStream_t st_) { launchVec<true>(f0lo, st_); },
                 [&](cudaStream_t st_) { launchVec<true>(f0hi, st_); }, [&](cudaStream_t st_) { launchVec<true>(f1lo, st_); },
                 [&](cudaStream_t st_) { launchVec<true>(f1hi, st_); }});
      }));
      row("vec fused: inner + k-faces alone", ib + fb[4] + fb[5], timeIt([&] { fusedL(f2both, 0); }));
      row("vec: inner + k-faces on three lanes (the policy's split)", ib + fb[4] + fb[5], timeIt([&] {
        onLanes({[&](cudaStream_t st_) { launchVec<false>(inner, st_); }, [&](cudaStream_t st_) { launchVec<true>(f2lo, st_); },
                 [&](cudaStream_t st_) { launchVec<true>(f2hi, st_); }});
      }));
    }
  }
  row("vec: whole grid 5r2w (no regions)", 28 * pts(Box{{0, 0, 0}, {n, n, n}}), timeIt([&] { launchVec<true>(Box{{0, 0, 0}, {n, n, n}}, 0); }));
  }
  CK(cudaDeviceSynchronize());
  return 0;
}
