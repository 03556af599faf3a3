// Ceilings measured in every run: device-to-device copy bandwidth (cudaMemcpyAsync D2D, counting
// bytes read plus bytes written) and FMA throughput (FP64 and FP32): every SM full of threads,
// each running NACC independent FMA chains (no dependency between consecutive FMAs of a chain
// within an unrolled step), FMA = 2 FLOP. Median of several timed repetitions after warm-up.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench.h"

namespace bench {
namespace {

constexpr int kFmaThreads = 256;
constexpr int kFmaAcc = 16;  // independent accumulators per thread

__device__ __forceinline__ double fmaT(double a, double b, double c) { return fma(a, b, c); }
__device__ __forceinline__ float fmaT(float a, float b, float c) { return fmaf(a, b, c); }

template <typename T>
__global__ void __launch_bounds__(kFmaThreads) fmaKernel(T* out, T a, T b, int iters) {
  T acc[kFmaAcc];
#pragma unroll
  for (int i = 0; i < kFmaAcc; ++i) acc[i] = static_cast<T>(threadIdx.x + i) * static_cast<T>(1e-3);
  for (int it = 0; it < iters; it += 4) {
#pragma unroll
    for (int u = 0; u < 4; ++u)
#pragma unroll
      for (int i = 0; i < kFmaAcc; ++i) acc[i] = fmaT(acc[i], a, b);
  }
  T s = 0;
#pragma unroll
  for (int i = 0; i < kFmaAcc; ++i) s += acc[i];
  out[blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x] = s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <typename T>
double fmaRate(int& blocksOut, int iters) {
  int dev = 0, sms = 0, perSm = 0;
  BENCH_CHECK(cudaGetDevice(&dev));
  BENCH_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  BENCH_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, fmaKernel<T>, kFmaThreads, 0));
  const int blocks = sms * std::max(perSm, 1);
  blocksOut = blocks;
  T* out = nullptr;
  BENCH_CHECK(cudaMalloc(&out, sizeof(T) * blocks * kFmaThreads));
  cudaEvent_t e0, e1;
  BENCH_CHECK(cudaEventCreate(&e0));
  BENCH_CHECK(cudaEventCreate(&e1));
  const T a = static_cast<T>(0.999999), b = static_cast<T>(1e-6);
  std::vector<double> ms;
  for (int r = 0; r < 9; ++r) {
    BENCH_CHECK(cudaEventRecord(e0));
    fmaKernel<T><<<blocks, kFmaThreads>>>(out, a, b, iters);
    BENCH_CHECK(cudaEventRecord(e1));
    BENCH_CHECK(cudaEventSynchronize(e1));
    BENCH_CHECK(cudaGetLastError());
    float t = 0;
    BENCH_CHECK(cudaEventElapsedTime(&t, e0, e1));
    if (r >= 2) ms.push_back(t);  // two warm-ups
  }
  BENCH_CHECK(cudaEventDestroy(e0));
  BENCH_CHECK(cudaEventDestroy(e1));
  BENCH_CHECK(cudaFree(out));
  const double flops = 2.0 * kFmaAcc * static_cast<double>(iters) * blocks * kFmaThreads;
  return flops / (median(ms) * 1e-3) / 1e12;
}

// One 16-byte element of every input, combined (xor: no FP, no NaN traps), stored to every output.
// kUnroll independent elements per thread and iteration (more bytes in flight per thread).
template <int kUnroll>
__global__ void __launch_bounds__(256) streamKernel(const StreamArgs a) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i0 = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i0 < a.n16; i0 += kUnroll * stride) {
    int4 s[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) s[u] = make_int4(0, 0, 0, 0);
#pragma unroll
    for (int k = 0; k < kStreamMaxIn; ++k)
      if (k < a.nIn)
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
          if (i0 + u * stride < a.n16) {
            const int4 v = __ldg(a.in[k] + i0 + u * stride);
            s[u].x ^= v.x, s[u].y ^= v.y, s[u].z ^= v.z, s[u].w ^= v.w;
          }
#pragma unroll
    for (int k = 0; k < kStreamMaxOut; ++k)
      if (k < a.nOut)
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
          if (i0 + u * stride < a.n16) a.out[k][i0 + u * stride] = s[u];
  }
}

template <int kUnroll>
int streamBlocks() {
  static int blocks = 0;
  if (blocks == 0) {
    int dev = 0, sms = 0, perSm = 0;
    BENCH_CHECK(cudaGetDevice(&dev));
    BENCH_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    BENCH_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, streamKernel<kUnroll>, 256, 0));
    blocks = sms * std::max(perSm, 1);  // one full wave, grid-stride
  }
  return blocks;
}

}  // namespace

const char* streamVariantName(int variant) {
  return variant == 0 ? "one wave" : variant == 1 ? "one wave, 4 per thread" : "one thread per element";
}

cudaError_t launchStream(const StreamArgs& a, int variant, cudaStream_t s) {
  switch (variant) {
    case 0: streamKernel<1><<<streamBlocks<1>(), 256, 0, s>>>(a); break;
    case 1: streamKernel<4><<<streamBlocks<4>(), 256, 0, s>>>(a); break;
    default:  // one thread per element, no grid stride
      streamKernel<1><<<static_cast<unsigned>((a.n16 + 255) / 256), 256, 0, s>>>(a);
  }
  return cudaGetLastError();
}

Ceilings measureCeilings(size_t copyBytes) {
  Ceilings c;
  // Copy: two buffers, filled (never time untouched memory), D2D copies.
  void *a = nullptr, *b = nullptr;
  BENCH_CHECK(cudaMalloc(&a, copyBytes));
  BENCH_CHECK(cudaMalloc(&b, copyBytes));
  BENCH_CHECK(cudaMemset(a, 0x5a, copyBytes));
  BENCH_CHECK(cudaMemset(b, 0x3c, copyBytes));
  cudaEvent_t e0, e1;
  BENCH_CHECK(cudaEventCreate(&e0));
  BENCH_CHECK(cudaEventCreate(&e1));
  std::vector<double> ms;
  for (int r = 0; r < 12; ++r) {
    BENCH_CHECK(cudaEventRecord(e0));
    BENCH_CHECK(cudaMemcpyAsync(r % 2 ? a : b, r % 2 ? b : a, copyBytes, cudaMemcpyDeviceToDevice));
    BENCH_CHECK(cudaEventRecord(e1));
    BENCH_CHECK(cudaEventSynchronize(e1));
    float t = 0;
    BENCH_CHECK(cudaEventElapsedTime(&t, e0, e1));
    if (r >= 2) ms.push_back(t);
  }
  BENCH_CHECK(cudaEventDestroy(e0));
  BENCH_CHECK(cudaEventDestroy(e1));
  BENCH_CHECK(cudaFree(a));
  BENCH_CHECK(cudaFree(b));
  c.copyBytes = static_cast<double>(copyBytes);
  c.copyGBs = 2.0 * copyBytes / (median(ms) * 1e-3) / 1e9;
  c.fmaThreads = kFmaThreads;
  c.fmaAccumulators = kFmaAcc;
  int blocks32 = 0;
  c.fp64TFs = fmaRate<double>(c.fmaBlocks, 8192);
  c.fp32TFs = fmaRate<float>(blocks32, 16384);
  return c;
}

}  // namespace bench
