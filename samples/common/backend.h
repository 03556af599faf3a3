// samples/common/backend.h — what the samples share about backends: whether this build has the CUDA
// kernels, the fatal-error exit, and the backend line they print: "cpu (N OpenMP threads)" or
// "cuda (device name)"; false (and why) when the CUDA backend has no usable device.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>
#if defined(_OPENMP)
#include <omp.h>
#endif
#if defined(STNC_WITH_CUDA)
#include <cuda_runtime.h>
#endif

#if defined(STNC_WITH_CUDA)
constexpr bool kHaveCuda = true;
#else
constexpr bool kHaveCuda = false;
#endif

// "PROGRAM: error: MESSAGE" on stderr, exit status 2 (bad input or an unusable setup).
[[noreturn]] inline void dieAs(const char* program, const std::string& msg) {
  std::fprintf(stderr, "%s: error: %s\n", program, msg.c_str());
  std::exit(2);
}

inline bool describeBackend(const std::string& backend, std::string& text, std::string& error) {
  (void)error;  // set only by the CUDA build
  if (backend == "cpu") {
#if defined(_OPENMP)
    text = "cpu (" + std::to_string(omp_get_max_threads()) + " OpenMP threads)";
#else
    text = "cpu";
#endif
    return true;
  }
#if defined(STNC_WITH_CUDA)
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    error = std::string("no usable CUDA device (") + (e != cudaSuccess ? cudaGetErrorString(e) : "none found") +
            "); run with --backend cpu";
    return false;
  }
  int dev = 0;
  cudaGetDevice(&dev);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, dev);
  text = "cuda (" + std::string(prop.name) + ")";
#else
  text = backend;
#endif
  return true;
}
