// bench/temporal: cuda::step of bench/temporal/step7.stn as generated (run.sh builds it with
// --temporal=off and --temporal=on). Prints, per grid, ms per step (median of 5 calls of
// step(STEPS)) and an FNV-1a hash of both arrays' interiors after one call on a small odd grid,
// which run.sh compares between the two builds (temporal blocking must not change a bit).
#include <cuda_runtime.h>

#include "experiment.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#ifdef STEP7_F32  // bench/temporal/step7f.stn: the same star in f32
#include "step7f.h"
namespace S = stn::step7f;
using real_t = float;
#else
#include "step7.h"
namespace S = stn::step7;
using real_t = double;
#endif

struct Grid {
  stnc_rt::Layout L;
  real_t *u = nullptr, *v = nullptr;
  Grid(long a, long b, long c) : L(S::layout(a, b, c)) {
    CK(cudaMalloc(&u, L.count * sizeof(real_t)));
    CK(cudaMalloc(&v, L.count * sizeof(real_t)));
    fillHash<<<1024, 256>>>(u, L.count, 11u);
    fillHash<<<1024, 256>>>(v, L.count, 12u);
    CK(cudaGetLastError());
  }
  ~Grid() {
    cudaFree(u);
    cudaFree(v);
  }
  cudaError_t step(long n) { return S::cuda::step(L, n, u, v, 0.4, 0.1, 0.1, 0.1, 0.1, 0.1, 0.09); }
};

static unsigned long long hashInterior(const Grid& g) {
  std::vector<real_t> h(g.L.count);
  unsigned long long x = 1469598103934665603ull;
  for (const real_t* a : {g.u, g.v}) {
    CK(cudaMemcpy(h.data(), a, g.L.count * sizeof(real_t), cudaMemcpyDeviceToHost));
    for (long i = 0; i < g.L.n[0]; ++i)
      for (long j = 0; j < g.L.n[1]; ++j)
        for (long k = 0; k < g.L.n[2]; ++k) {
          const unsigned char* b = reinterpret_cast<const unsigned char*>(&h[stnc_rt::at(g.L, i, j, k)]);
          for (size_t q = 0; q < sizeof(real_t); ++q) x = (x ^ b[q]) * 1099511628211ull;
        }
  }
  return x;
}

int main(int argc, char** argv) {
  const long steps = 100;
  {
    Grid small(61, 37, 45);
    CK(small.step(10));
    CK(cudaDeviceSynchronize());
    std::printf("HASH 61x37x45 10 steps %016llx\n", hashInterior(small));
  }
  for (int a = 1; a < argc; ++a) {
    const long n = std::atol(argv[a]);
    Grid g(n, n, n);
    CK(g.step(4));  // warm-up (module load, allocations)
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<float> ms;
    for (int r = 0; r < 5; ++r) {
      CK(cudaEventRecord(e0));
      CK(g.step(steps));
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float t = 0;
      CK(cudaEventElapsedTime(&t, e0, e1));
      ms.push_back(t / steps);
    }
    std::sort(ms.begin(), ms.end());
    std::printf("STEP n=%ld ms_per_step=%.4f gpts=%.1f\n", n, ms[2], static_cast<double>(n) * n * n / (ms[2] * 1e6));
  }
  return 0;
}
