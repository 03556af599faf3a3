// Does an IEEE f32 division take its slow path when the numerator is zero? (Session 10: the acoustic
// sample's PML kernels, which divide by (1 + 2 eta) and (1 + eta), run a sweep 0.25 ms slower when the
// fields are zero than when they are random, at full clock, and -ftz=true does not change that.)
//   bash bench/divide/run.sh            (nvcc -O3 -arch=sm_90, then runs; BUILD_ONLY=1: build only)
// Times y = x / d over 256 Mi floats (d in [1, 2)) for x random and x all zero, plain and through
// stnc_rt::divide (the runtime's division, which the CUDA backend prints for `/`: a zero numerator over a
// nonzero, non-NaN divisor returns the signed zero without dividing; bit-identical to a / b).
#include <cuda_runtime.h>

#include "../../src/codegen/runtime/stnc_runtime.h"

#include <cstdio>
#include <cstring>
#include <vector>

#define CK(x)                                                                   \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      std::printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      return 1;                                                                 \
    }                                                                           \
  } while (0)

template <bool kGuard>
__global__ void divide(const float* __restrict__ x, const float* __restrict__ d, float* __restrict__ y, size_t n, int reps) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    float a = x[i], b = d[i], acc = 0.0f;
    for (int r = 0; r < reps; ++r) {  // several divisions per load: make the division, not memory, the cost
      acc += kGuard ? stnc_rt::divide(a, b) : a / b;
      b += 1.0f;
    }
    y[i] = acc;
  }
}

int main() {
  const size_t n = 256u << 20;
  std::vector<float> hx(n), hd(n);
  unsigned s = 12345;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    hx[i] = static_cast<float>(s >> 8) / 16777216.0f * 2.0f - 1.0f;
    hd[i] = 1.0f + static_cast<float>(s & 0xffff) / 65536.0f;
  }
  float *x, *z, *d, *y, *y2;
  CK(cudaMalloc(&x, n * 4));
  CK(cudaMalloc(&z, n * 4));
  CK(cudaMalloc(&d, n * 4));
  CK(cudaMalloc(&y, n * 4));
  CK(cudaMalloc(&y2, n * 4));
  CK(cudaMemcpy(x, hx.data(), n * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d, hd.data(), n * 4, cudaMemcpyHostToDevice));
  CK(cudaMemset(z, 0, n * 4));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  auto time = [&](auto kernel, const float* in, float* out, int reps) {
    float best = 1e30f;
    for (int r = 0; r < 7; ++r) {
      cudaEventRecord(a);
      kernel<<<sms * 16, 256>>>(in, d, out, n, reps);
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      float ms = 0;
      cudaEventElapsedTime(&ms, a, b);
      if (r >= 2 && ms < best) best = ms;
    }
    return best;
  };
  std::printf("| numerator | divisions per element | plain a / b (ms) | guarded (ms) | results bit-identical |\n|---|---:|---:|---:|---|\n");
  for (int reps : {1, 8}) {
    for (int zero = 0; zero < 2; ++zero) {
      const float* in = zero ? z : x;
      const float t1 = time(divide<false>, in, y, reps);
      const float t2 = time(divide<true>, in, y2, reps);
      CK(cudaGetLastError());
      std::vector<float> r1(n), r2(n);
      CK(cudaMemcpy(r1.data(), y, n * 4, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(r2.data(), y2, n * 4, cudaMemcpyDeviceToHost));
      const bool same = std::memcmp(r1.data(), r2.data(), n * 4) == 0;
      std::printf("| %s | %d | %.3f | %.3f | %s |\n", zero ? "all zero" : "random in [-1, 1)", reps, t1, t2, same ? "yes" : "**NO**");
    }
  }
  return 0;
}
