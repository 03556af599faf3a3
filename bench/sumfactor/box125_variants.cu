// box125_rt variants (issue 6): times one build of the stnc-generated box125_rt kernel (sumfactor
// schedule, possibly rewritten by bench/sumfactor/patch.py) on an n^3 f64 grid, the suite's way
// (CUDA events, L2 evicted before each run, median), and checks it against a plain one-thread-per-point
// kernel that sums the 125 terms as written (fma, source order): the factored order rounds differently,
// so the check is a relative tolerance, not bit equality.
//   bash bench/sumfactor/run.sh     (builds one binary per variant and prints the table)
#include <cuda_runtime.h>

#include "experiment.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "box125_rt.h"

namespace {

constexpr int kTaps = 125;

__constant__ double cCoef[kTaps];

// out = sum over (a, b, c) in [-2, 2]^3 of coef * u(i+a, j+b, k+c), in that order (the .stn's order).
__global__ void reference(stnc_rt::Layout L, const double* __restrict__ u, double* __restrict__ v) {
  const long k = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x, j = blockIdx.y, i = blockIdx.z;
  if (k >= L.n[2]) return;
  double s = 0;
  int t = 0;
  for (int a = -2; a <= 2; ++a)
    for (int b = -2; b <= 2; ++b)
      for (int c = -2; c <= 2; ++c) s = fma(cCoef[t++], u[stnc_rt::at(L, i + a, j + b, k + c)], s);
  v[stnc_rt::at(L, i, j, k)] = s;
}

// Largest |a - b| / (|b| + 1e-3) over the interior.
__global__ void maxRelDiff(stnc_rt::Layout L, const double* a, const double* b, unsigned long long* out) {
  const long k = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x, j = blockIdx.y, i = blockIdx.z;
  if (k >= L.n[2]) return;
  const long q = stnc_rt::at(L, i, j, k);
  const double d = fabs(a[q] - b[q]) / (fabs(b[q]) + 1e-3);  // values are O(0.1): near-zero sums keep an absolute scale
  atomicMax(out, static_cast<unsigned long long>(__double_as_longlong(d)));  // d >= 0: bit order is value order
}

template <std::size_t... I>
cudaError_t sweep(const stnc_rt::Layout& L, const double* u, double* v, const double* c, std::index_sequence<I...>) {
  return stn::box125_rt::cuda::sweep(L, u, v, c[I]...);
}

}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 256;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 30;
  const char* label = argc > 3 ? argv[3] : "variant";
  const stnc_rt::Layout L = stn::box125_rt::layout(n, n, n);
  double c[kTaps];
  for (int t = 0; t < kTaps; ++t) c[t] = std::ldexp(static_cast<double>((t * 2654435761u) % 1000u) - 500.0, -15);
  CK(cudaMemcpyToSymbol(cCoef, c, sizeof c));
  double *u, *v, *ref, *flush;
  unsigned long long* dMax;
  const size_t flushN = (256u << 20) / sizeof(double);
  CK(cudaMalloc(&u, L.count * sizeof(double)));
  CK(cudaMalloc(&v, L.count * sizeof(double)));
  CK(cudaMalloc(&ref, L.count * sizeof(double)));
  CK(cudaMalloc(&flush, flushN * sizeof(double)));
  CK(cudaMalloc(&dMax, sizeof *dMax));
  fillHash<<<1024, 256>>>(u, L.count, 11u);  // halo included: fixed-value halos, as the suite's
  CK(cudaMemset(v, 0xff, L.count * sizeof(double)));  // NaN: an unwritten point fails the check
  const dim3 grid((n + 127) / 128, n, n);
  reference<<<grid, 128>>>(L, u, ref);
  CK(sweep(L, u, v, c, std::make_index_sequence<kTaps>{}));
  CK(cudaMemset(dMax, 0, sizeof *dMax));
  maxRelDiff<<<grid, 128>>>(L, v, ref, dMax);
  CK(cudaDeviceSynchronize());
  unsigned long long bits = 0;
  CK(cudaMemcpy(&bits, dMax, sizeof bits, cudaMemcpyDeviceToHost));
  double rel;
  std::memcpy(&rel, &bits, sizeof rel);
  const double ms = medianMs([&] { CK(sweep(L, u, v, c, std::make_index_sequence<kTaps>{})); }, reps, flush, flushN * sizeof(double));
  const double pts = static_cast<double>(n) * n * n;
  const double floorMs = pts * kTaps * 2 / 32.8e12 * 1e3;  // the suite's FP64 FMA floor (32.8 TFLOP/s measured)
  const bool ok = std::isfinite(rel) && rel < 1e-10;
  std::printf("| %s | %ld^3 | %.1f | %.2f | %.1e | %s |\n", label, n, ms * 1e3, floorMs / ms, rel, ok ? "ok" : "**FAIL**");
  return ok ? 0 : 1;
}
