// The hand-written hypterm experiments' common harness (hypterm_staged.cu, hypterm_split.cu): random inputs in
// [0.5, 1.5), stnc's fused kernel of bench/workloads/hypterm_c.stn as the reference, a bit-for-bit check of the
// five outputs, the memory floor (13 arrays of n^3 doubles at the D2D copy rate measured in the same run) and the
// suite's timing method (experiment.h). Arguments: [N] [reps] [profile], N a multiple of 32.
#pragma once
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "experiment.h"
#include "hypterm_c.h"

namespace hypterm_bench {

using real = double;
namespace H = stn::hypterm_c;

// D(f) as the workload writes it (hypterm_c.stn): ALP*(f[+1]-f[-1]) + BET*(...) + GAM*(...) + DEL*(...), left
// fold, so a hand kernel built with -fmad=false matches stnc's bit for bit.
constexpr real ALP = 4.0 / 5.0, BET = -1.0 / 5.0, GAM = 4.0 / 105.0, DEL = -1.0 / 280.0;
template <typename F>
__device__ __forceinline__ real deriv(F f) {
  real s = ALP * (f(1) - f(-1));
  s = s + BET * (f(2) - f(-2));
  s = s + GAM * (f(3) - f(-3));
  return s + DEL * (f(4) - f(-4));
}

// The kernels' arguments: the eight inputs and the five outputs (the experiment's, out[1] below).
struct Fields {
  const real *imx, *imy, *imz, *iene, *qu, *qv, *qw, *qpres;
  real* out[5];  // flux_irho, flux_imx, flux_imy, flux_imz, flux_iene
};

struct Harness {
  long n = 256;
  int reps = 30;
  bool profile = false;  // third argument "profile": one launch of the experiment's kernel after stnc's, for ncu
  stnc_rt::Layout L{};
  size_t cnt = 0, bytes = 0;
  // in: cons_imx, cons_imy, cons_imz, cons_iene, qu, qv, qw, qpres; out[0]: stnc's, out[1]: the experiment's
  // (flux_irho, flux_imx, flux_imy, flux_imz, flux_iene)
  real* in[8] = {};
  real* out[2][5] = {};
  const real d0 = 1.0 / 3, d1 = 1.0 / 5, d2 = 1.0 / 7;
  void* flush = nullptr;
  size_t flushN = 256u << 20;
  double floorUs = 0;
  std::vector<real> a, b;

  Harness(int argc, char** argv) {
    n = argc > 1 ? std::atol(argv[1]) : 256;
    reps = argc > 2 ? std::atoi(argv[2]) : 30;
    profile = argc > 3 && std::strcmp(argv[3], "profile") == 0;
    if (n % 32 != 0) { std::fprintf(stderr, "N must be a multiple of 32\n"); std::exit(2); }
    L = H::layout(n, n, n);
    cnt = L.count;
    bytes = cnt * sizeof(real);
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<real> dist(0.5, 1.5);
    std::vector<real> h(cnt);
    for (auto& p : in) {
      for (auto& x : h) x = dist(rng);
      CK(cudaMalloc(&p, bytes));
      CK(cudaMemcpy(p, h.data(), bytes, cudaMemcpyHostToDevice));
    }
    for (auto& o : out)
      for (auto& p : o) { CK(cudaMalloc(&p, bytes)); CK(cudaMemset(p, 0, bytes)); }
    CK(cudaMalloc(&flush, flushN));
    stnc();
    CK(cudaDeviceSynchronize());
  }

  Fields fields() const {
    real* const* o = out[1];
    return Fields{in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], {o[0], o[1], o[2], o[3], o[4]}};
  }

  // Under "profile": one launch of fn (after stnc's, in the constructor) for ncu; returns main's exit status.
  template <typename F>
  int profileOnce(F fn) {
    fn();
    CK(cudaDeviceSynchronize());
    return 0;
  }

  void stnc() {
    real* const* o = out[0];
    CK(static_cast<cudaError_t>(H::cuda::sweep(L, in[0], in[1], in[2], o[0], in[4], in[5], in[6], in[7], o[1], o[2], o[3], in[3], o[4], d0, d1, d2)));
  }

  // Points where the experiment's outputs differ from stnc's in any bit (the first three printed); clears out[1].
  long check(const char* what) {
    CK(cudaDeviceSynchronize());
    a.resize(cnt);
    b.resize(cnt);
    long bad = 0;
    for (int e = 0; e < 5; ++e) {
      CK(cudaMemcpy(a.data(), out[0][e], bytes, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(b.data(), out[1][e], bytes, cudaMemcpyDeviceToHost));
      for (long i = 0; i < n; ++i)
        for (long j = 0; j < n; ++j)
          for (long k = 0; k < n; ++k) {
            const long p = stnc_rt::at(L, i, j, k);
            if (std::memcmp(&a[p], &b[p], sizeof(real)) != 0 && bad++ < 3)
              std::printf("  %s: output %d differs at (%ld,%ld,%ld): %.17g vs %.17g\n", what, e, i, j, k, a[p], b[p]);
          }
      CK(cudaMemset(out[1][e], 0, bytes));
    }
    return bad;
  }

  // Measures the copy rate and the floor, prints them, the table's head and stnc's row.
  void begin() {
    real *ca, *cb;
    const size_t cbytes = 1ul << 30;
    CK(cudaMalloc(&ca, cbytes));
    CK(cudaMalloc(&cb, cbytes));
    CK(cudaMemset(ca, 1, cbytes));
    const double copyMs = medianMs([&] { CK(cudaMemcpyAsync(cb, ca, cbytes, cudaMemcpyDeviceToDevice)); }, reps, flush, flushN);
    CK(cudaFree(ca));
    CK(cudaFree(cb));
    const double bw = 2.0 * cbytes / (copyMs * 1e-3);
    const double pts = static_cast<double>(n) * n * n;
    floorUs = 13 * 8 * pts / bw * 1e6;
    std::printf("hypterm f64 %ld^3: copy %.2f TB/s, memory floor %.1f us (104 B/pt)\n\n", n, bw / 1e12, floorUs);
    std::printf("| kernel | us | fraction of floor | bit-identical to stnc |\n| --- | ---: | ---: | --- |\n");
    const double tS = 1e3 * medianMs([&] { stnc(); }, reps, flush, flushN);
    std::printf("| stnc fused (stream) | %.1f | %.2f | (reference) |\n", tS, floorUs / tS);
  }

  // One table row: fn() once, checked against stnc, then timed.
  template <typename F>
  void run(const char* name, F fn) {
    fn();
    const long bad = check(name);
    const double t = 1e3 * medianMs(fn, reps, flush, flushN);
    std::printf("| %s | %.1f | %.2f | %s |\n", name, t, floorUs / t, bad ? "NO" : "yes");
  }
};

}  // namespace hypterm_bench
