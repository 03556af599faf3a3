// Shared by the leap8 experiments (temporal_leap8.cu: fused pairs; wave_leap8.cu: two steps through L2):
// the leapfrog update in the generated kernel's order, float4 lanes, cp.async, the random fill (the bit-for-bit
// comparison, countDiff, is in bench/common/experiment.h).
#pragma once
#include <cuda_runtime.h>

#include <random>
#include <vector>

#include "experiment.h"

namespace leap8x {

// One leapfrog update in the generated kernel's order (stnc's default flags: sums factored by distance,
// no contraction): s[m-1] = ((((u[i+m] + u[i-m]) + u[j+m]) + u[j-m]) + u[k+m]) + u[k-m].
__device__ __forceinline__ float leap(float u, float v, float r, const float (&s)[4]) {
  const float t = 2.0f * u - v;
  float acc = 1.6f * s[0] + (-0.2f) * s[1];
  acc = acc + 0.025396826f * s[2];
  acc = acc + (-0.0017857143f) * s[3];
  return t + r * ((-8.541667f) * u + acc);
}

__device__ __forceinline__ float comp(const float4& a, int c) { return c == 0 ? a.x : c == 1 ? a.y : c == 2 ? a.z : a.w; }
__device__ __forceinline__ void setComp(float4& a, int c, float x) {
  if (c == 0) a.x = x;
  else if (c == 1) a.y = x;
  else if (c == 2) a.z = x;
  else a.w = x;
}

// The update of a thread's 4 consecutive columns at one plane: q = the columns' dim-0 queue (centre q[4]),
// up[m-1] / dn[m-1] = the rows at j+m / j-m, l, c4, rr = the row's vectors left of, at and right of the
// columns, v and r = the other inputs there.
__device__ __forceinline__ float4 update4cols(const float4 (&q)[9], const float4 (&up)[4], const float4 (&dn)[4], const float4& l,
                                              const float4& c4, const float4& rr, const float4& v, const float4& r) {
  const float row[12] = {l.x, l.y, l.z, l.w, c4.x, c4.y, c4.z, c4.w, rr.x, rr.y, rr.z, rr.w};
  float4 out;
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    float s[4];
#pragma unroll
    for (int m = 1; m <= 4; ++m)
      s[m - 1] = ((((comp(q[4 + m], c) + comp(q[4 - m], c)) + comp(up[m - 1], c)) + comp(dn[m - 1], c)) + row[4 + c + m]) + row[4 + c - m];
    setComp(out, c, leap(comp(q[4], c), comp(v, c), comp(r, c), s));
  }
  return out;
}

// 16 bytes from global src to shared dst as a cp.async (16 zero bytes when !valid: nothing is read), the
// commit of a group, and the wait until at most N groups are in flight.
__device__ __forceinline__ void cpAsync16(void* dst, const float* src, bool valid) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(valid ? 16 : 0) : "memory");
}
__device__ __forceinline__ void cpAsyncCommit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// n uniform values in [lo, hi) from seed, copied to device memory d.
inline void fillRandom(float* d, size_t n, float lo, float hi, unsigned seed) {
  std::vector<float> h(n);
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (auto& x : h) x = dist(g);
  CK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
}

}  // namespace leap8x
