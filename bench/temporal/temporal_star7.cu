// Temporal blocking experiment (issue 8): two time steps of the 7-point star (bench workload
// star7_rt, f64, fixed halos) fused in one kernel, against two sweeps of the stnc-generated kernel.
//
//   bash bench/temporal/run.sh            (builds with the stnc binary in $STNC, runs, prints a table)
//
// The fused kernel is the AN5D / 2.5-D form for T = 2, r = 1: a block of TX x TY threads owns a
// (TX-4) x (TY-4) output tile of the (dim 1, dim 2) plane and walks a chunk of dim 0. Each plane:
//   1. every thread loads u at its position (the tile plus a 2-cell ring), the plane goes to shared
//      memory, the dim-0 neighbours stay in a register queue;
//   2. threads of the tile plus a 1-cell ring compute the intermediate w = step(u) (at halo positions
//      w is the second array's halo value, exactly what the unfused second step would read), into
//      shared memory (two planes) and a register queue;
//   3. threads of the output tile compute step(w) one plane behind and store it.
// Results are compared bit for bit with two stnc sweeps (same expression order, no FMA contraction).
// Redundant work: (TX*TY) / ((TX-4)*(TY-4)) loads and first-step evaluations per output point.
#include <cuda_runtime.h>

#include "experiment.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "star7_rt.h"


struct Coef {
  double c000, cm00, cp00, c0m0, c0p0, c00m, c00p;
};

// The same expression, in the same order, as the generated kernel (stn::star7_rt).
__device__ __forceinline__ double star(const Coef& c, double ctr, double xm, double xp, double ym, double yp, double zm, double zp) {
  return c.c000 * ctr + c.cm00 * xm + c.cp00 * xp + c.c0m0 * ym + c.c0p0 * yp + c.c00m * zm + c.c00p * zp;
}

template <int TX, int TY>
__global__ void __launch_bounds__(TX * TY) fused2(const stnc_rt::Layout L, const long chunk, const double* __restrict__ u,
                                                   const double* __restrict__ vhalo, double* __restrict__ out, const Coef c) {
  __shared__ double sU[TY][TX];
  __shared__ double sW[2][TY][TX];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const long n0 = L.n[0], n1 = L.n[1], n2 = L.n[2];
  const long z = blockIdx.x * static_cast<long>(TX - 4) + tx - 2;
  const long y = blockIdx.y * static_cast<long>(TY - 4) + ty - 2;
  const long x0 = blockIdx.z * chunk;
  const long x1 = x0 + chunk < n0 ? x0 + chunk : n0;
  const bool alloc = y >= -1 && y <= n1 && z >= -1 && z <= n2;  // inside the allocated (halo 1) plane
  const bool inner = y >= 0 && y < n1 && z >= 0 && z < n2;
  const bool wRing = tx >= 1 && tx < TX - 1 && ty >= 1 && ty < TY - 1;
  const bool outTile = tx >= 2 && tx < TX - 2 && ty >= 2 && ty < TY - 2 && inner;
  const long s0 = L.stride[0];
  const long p = alloc ? stnc_rt::at(L, 0, y, z) : 0;
  auto ld = [&](const double* a, long x) { return alloc && x >= -1 && x <= n0 ? a[p + x * s0] : 0.0; };
  double ua = ld(u, x0 - 2), ub = ld(u, x0 - 1), uc = ld(u, x0);
  double wa = 0, wb = 0, wc = 0;
  for (long xw = x0 - 1; xw <= x1; ++xw) {
    sU[ty][tx] = ub;
    __syncthreads();
    double w = 0;
    if (wRing && alloc) {
      if (inner && xw >= 0 && xw < n0)
        w = star(c, ub, ua, uc, sU[ty - 1][tx], sU[ty + 1][tx], sU[ty][tx - 1], sU[ty][tx + 1]);
      else
        w = ld(vhalo, xw);  // the halo the second step reads
    }
    sW[xw & 1][ty][tx] = w;
    wa = wb;
    wb = wc;
    wc = w;
    __syncthreads();
    const long xo = xw - 1;
    if (outTile && xo >= x0 && xo < x1) {
      const int b = xo & 1;
      out[p + xo * s0] = star(c, wb, wa, wc, sW[b][ty - 1][tx], sW[b][ty + 1][tx], sW[b][ty][tx - 1], sW[b][ty][tx + 1]);
    }
    ua = ub;
    ub = uc;
    uc = ld(u, xw + 2);
  }
}

// Every interior point of a set to 1e300: a point the fused kernel misses cannot pass the comparison.
__global__ void poisonInterior(double* a, const stnc_rt::Layout L) {
  const size_t total = static_cast<size_t>(L.n[0]) * L.n[1] * L.n[2];
  for (size_t q = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; q < total; q += static_cast<size_t>(gridDim.x) * blockDim.x)
    a[stnc_rt::at(L, q / (L.n[1] * L.n[2]), q / L.n[2] % L.n[1], q % L.n[2])] = 1e300;
}

template <int TX, int TY>
cudaError_t launchFused(const stnc_rt::Layout& L, long chunk, const double* u, const double* v, double* out, const Coef& c) {
  const dim3 block(TX, TY, 1);
  const dim3 grid(static_cast<unsigned>((L.n[2] + TX - 5) / (TX - 4)), static_cast<unsigned>((L.n[1] + TY - 5) / (TY - 4)),
                  static_cast<unsigned>((L.n[0] + chunk - 1) / chunk));
  fused2<TX, TY><<<grid, block>>>(L, chunk, u, v, out, c);
  return cudaGetLastError();
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 256;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 30;
  const stnc_rt::Layout L = stn::star7_rt::layout(n, n, n);
  const Coef c{0.4, 0.1, 0.1, 0.1, 0.1, 0.1, 0.09};
  double *u, *v, *w, *f, *ref, *flush;
  unsigned long long* dBad = nullptr;
  const size_t flushN = (256u << 20) / sizeof(double);
  CK(cudaMalloc(&u, L.count * sizeof(double)));
  CK(cudaMalloc(&v, L.count * sizeof(double)));
  CK(cudaMalloc(&w, L.count * sizeof(double)));
  CK(cudaMalloc(&f, L.count * sizeof(double)));
  CK(cudaMalloc(&ref, L.count * sizeof(double)));
  CK(cudaMalloc(&flush, flushN * sizeof(double)));
  CK(cudaMalloc(&dBad, sizeof(*dBad)));
  fillHash<<<1024, 256>>>(u, L.count, 7u);
  fillHash<<<1024, 256>>>(v, L.count, 8u);
  CK(cudaGetLastError());
  CK(cudaMemcpy(w, v, L.count * sizeof(double), cudaMemcpyDeviceToDevice));
  CK(cudaMemcpy(f, v, L.count * sizeof(double), cudaMemcpyDeviceToDevice));
  namespace S = stn::star7_rt;
  auto twoSweeps = [&] {
    CK(S::cuda::sweep(L, u, v, c.c000, c.cm00, c.cp00, c.c0m0, c.c0p0, c.c00m, c.c00p));
    CK(S::cuda::sweep(L, v, w, c.c000, c.cm00, c.cp00, c.c0m0, c.c0p0, c.c00m, c.c00p));
  };
  // Reference: two stnc sweeps (u -> v -> w). v's halo is what the fused kernel reads for w there.
  twoSweeps();
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(ref, w, L.count * sizeof(double), cudaMemcpyDeviceToDevice));
  const double pts = static_cast<double>(n) * n * n;
  const double oneSweep = medianMs([&] { CK(S::cuda::sweep(L, u, v, c.c000, c.cm00, c.cp00, c.c0m0, c.c0p0, c.c00m, c.c00p)); }, reps, flush, flushN * sizeof(double));
  const double two = medianMs(twoSweeps, reps, flush, flushN * sizeof(double));
  std::printf("grid %ld^3 f64, star7, fixed halos; stnc schedule: %s\n", n, "default policy of this stnc build");
  std::printf("| variant | ms per 2 steps | Gpts/s (x2 steps) | speed-up vs 2 stnc sweeps | bit-identical |\n|---|---:|---:|---:|---|\n");
  std::printf("| stnc sweep x2 | %.4f | %.1f | 1.00 | (reference) |\n", two, 2 * pts / (two * 1e6));
  std::printf("| stnc sweep x1 (x2 for comparison) | %.4f | %.1f | %.2f | - |\n", 2 * oneSweep, 2 * pts / (2 * oneSweep * 1e6), two / (2 * oneSweep));
  struct Variant {
    const char* name;
    cudaError_t (*fn)(const stnc_rt::Layout&, long, const double*, const double*, double*, const Coef&);
    long chunk;
  };
  const Variant vs[] = {
      {"fused T=2, 32x16 threads, chunk 32", launchFused<32, 16>, 32},  {"fused T=2, 32x16 threads, chunk 128", launchFused<32, 16>, 128},
      {"fused T=2, 32x32 threads, chunk 64", launchFused<32, 32>, 64},  {"fused T=2, 64x8 threads, chunk 64", launchFused<64, 8>, 64},
      {"fused T=2, 64x16 threads, chunk 64", launchFused<64, 16>, 64},
  };
  int bad = 0;
  for (const Variant& var : vs) {
    // The reference's halo, a poisoned interior: a point the fused kernel misses cannot pass.
    CK(cudaMemcpy(f, ref, L.count * sizeof(double), cudaMemcpyDeviceToDevice));
    poisonInterior<<<1024, 256>>>(f, L);
    CK(var.fn(L, var.chunk, u, v, f, c));
    CK(cudaMemset(dBad, 0, sizeof(*dBad)));
    countDiff<<<1024, 256>>>(f, ref, L.count, dBad);
    unsigned long long nBad = 0;
    CK(cudaMemcpy(&nBad, dBad, sizeof(nBad), cudaMemcpyDeviceToHost));
    const bool same = nBad == 0;
    bad += !same;
    const double t = medianMs([&] { CK(var.fn(L, var.chunk, u, v, f, c)); }, reps, flush, flushN * sizeof(double));
    std::printf("| %s | %.4f | %.1f | %.2f | %s |\n", var.name, t, 2 * pts / (t * 1e6), two / t, same ? "yes" : "**NO**");
  }
  std::printf("\nfloor for 2 steps with 2 sweeps: %.1f MB moved; fused: %.1f MB (read u once, write once)\n", 4 * pts * 8 / 1e6,
              2 * pts * 8 / 1e6);
  return bad ? 1 : 0;
}
