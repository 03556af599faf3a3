// stnc CUDA runtime: boundary fills on the device, error checking helpers. Embedded into every
// generated .cu file after stnc_runtime.h (guarded, like it).
#ifndef STNC_RUNTIME_CUDA_H_V1
#define STNC_RUNTIME_CUDA_H_V1
#include <cuda_runtime.h>

namespace stnc_rt {

// One thread per halo cell of one slab pair along dimension d (see fillBoundaryDim).
template <typename T>
__global__ void fillBoundaryDimKernel(T* a, Layout L, int d, int kind, T value) {
  const long h = L.halo[d];
  long lo[3], ext[3];
  for (int e = 0; e < 3; ++e) {
    lo[e] = e < d ? -L.halo[e] : 0;
    ext[e] = e < d ? L.n[e] + 2 * L.halo[e] : L.n[e];
  }
  ext[d] = 2 * h;  // both slabs
  const long total = ext[0] * ext[1] * ext[2];
  for (long t = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<long>(gridDim.x) * blockDim.x) {
    long c[3];
    long r = t;
    c[2] = r % ext[2];
    r /= ext[2];
    c[1] = r % ext[1];
    c[0] = r / ext[1];
    long p[3];
    for (int e = 0; e < 3; ++e) p[e] = c[e] + lo[e];
    p[d] = c[d] < h ? c[d] - h : L.n[d] + (c[d] - h);
    const long dst = at(L, p[0], p[1], p[2]);
    const long s = boundarySource(p[d], L.n[d], kind);
    if (s < 0) {
      a[dst] = value;
      continue;
    }
    p[d] = s;
    a[dst] = a[at(L, p[0], p[1], p[2])];
  }
}

template <typename T>
cudaError_t fillBoundaryDimDevice(T* a, const Layout& L, int d, int kind, T value, cudaStream_t stream) {
  if (L.halo[d] == 0) return cudaSuccess;
  long ext = 2L * L.halo[d];
  for (int e = 0; e < 3; ++e)
    if (e != d) ext *= e < d ? L.n[e] + 2 * L.halo[e] : L.n[e];
  const int threads = 256;
  long blocks = (ext + threads - 1) / threads;
  if (blocks > 65535) blocks = 65535;
  fillBoundaryDimKernel<T><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(a, L, d, kind, value);
  return cudaGetLastError();
}

}  // namespace stnc_rt

#endif  // STNC_RUNTIME_CUDA_H_V1
