// bench/l2/l2bw.cu — the L2 ceiling the ring kernels' tile copies run into: 16-byte reads that miss L1
// (ld.global.cg) over a buffer that stays in the 60 MiB L2, timed with CUDA events (median of 20 runs after 3
// warm-ups), for buffer sizes from 4 to 48 MiB. Prints TB/s of L2 -> SM traffic. Build and run:
//   nvcc -O3 -arch=sm_90 -o /tmp/l2bw bench/l2/l2bw.cu && /tmp/l2bw
#include <algorithm>
#include <cstdio>
#include <vector>

__global__ void readL2(const float4* __restrict__ p, long n, int reps, float* sink) {
  float acc = 0.f;
  const long stride = static_cast<long>(gridDim.x) * blockDim.x;
  for (int r = 0; r < reps; ++r)
    for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n; i += stride) {
      float4 v;
      asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p + i));
      acc += v.x + v.y + v.z + v.w;
    }
  if (acc == 1234.5f) *sink = acc;  // keeps the loads
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const long maxBytes = 48L << 20;
  float4* buf = nullptr;
  float* sink = nullptr;
  if (cudaMalloc(&buf, maxBytes) != cudaSuccess || cudaMalloc(&sink, 4) != cudaSuccess) { std::printf("cudaMalloc failed\n"); return 1; }
  cudaMemset(buf, 1, maxBytes);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::printf("| buffer MiB | reps | median µs | L2 -> SM TB/s |\n|---:|---:|---:|---:|\n");
  for (long mib : {4L, 8L, 16L, 24L, 32L, 48L}) {
    const long n = (mib << 20) / 16;
    const int reps = static_cast<int>(std::max(1L, 2048L / mib));
    std::vector<float> t;
    for (int it = 0; it < 23; ++it) {
      cudaEventRecord(a);
      readL2<<<sms * 8, 256>>>(buf, n, reps, sink);
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      float ms = 0.f;
      cudaEventElapsedTime(&ms, a, b);
      if (it >= 3) t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    const double med = t[t.size() / 2];
    std::printf("| %ld | %d | %.1f | %.2f |\n", mib, reps, med * 1e3, (mib << 20) * static_cast<double>(reps) / (med * 1e-3) / 1e12);
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
