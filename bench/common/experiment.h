// Shared by the hand-written experiment programs under bench/: error checking and
// the timing method of the benchmark suite (CUDA events around each run, L2 evicted before it by a
// 256 MB memset, 3 warm-up runs, the median of the rest).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                         \
  do {                                                                                \
    cudaError_t e_ = (x);                                                             \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

// Median milliseconds of f() over `reps` runs; flushBuf: flushBytes of device memory used to evict L2.
template <typename F>
double medianMs(F f, int reps, void* flushBuf, size_t flushBytes) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> ms;
  for (int r = 0; r < reps + 3; ++r) {
    CK(cudaMemsetAsync(flushBuf, r & 0xff, flushBytes));
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float x = 0;
    CK(cudaEventElapsedTime(&x, a, b));
    if (r >= 3) ms.push_back(x);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Pseudo-random values in [-1, 1) from a hash of the index and seed, written on the device (host generators
// took most of a device call at 1024^3).
template <typename T>
__global__ void fillHash(T* a, size_t n, unsigned seed) {
  for (size_t q = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; q < n; q += static_cast<size_t>(gridDim.x) * blockDim.x) {
    unsigned long long x = (q + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    a[q] = static_cast<T>(static_cast<double>(x >> 11) * 0x1.0p-53 * 2.0 - 1.0);
  }
}

// Elements of a and b (n each) whose bits differ, added to *bad (float or double).
__device__ __forceinline__ unsigned long long bitsOf(float x) { return __float_as_uint(x); }
__device__ __forceinline__ unsigned long long bitsOf(double x) { return static_cast<unsigned long long>(__double_as_longlong(x)); }
template <typename T>
__global__ void countDiff(const T* a, const T* b, size_t n, unsigned long long* bad) {
  unsigned long long c = 0;
  for (size_t q = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; q < n; q += static_cast<size_t>(gridDim.x) * blockDim.x)
    c += bitsOf(a[q]) != bitsOf(b[q]);
  if (c) atomicAdd(bad, c);
}
