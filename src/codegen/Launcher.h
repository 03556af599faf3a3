// The launcher API, shared by both backends. For every kernel K (stencil or group) of FILE.stn,
// FILE.h declares in namespace stn::K:
//   using real = double|float;  kRank, kHalo[] (per axis, the contract's halo), kPad[] (allocated
//   halo per axis: the innermost is rounded up so interior rows start on 128-byte boundaries)
//   stnc_rt::Layout layout(n_i, n_j, n_k);   index(L, i, j, k);   check(L, ptrs, align)
//   namespace cpu  { int sweep(L, fields..., params...);  int fill_boundaries(...);  int step(L, n, ...); }
//   namespace cuda { cudaError_t sweep(..., cudaStream_t = 0); ... }   (when compiled by nvcc or
//                                                                        STNC_WITH_CUDA is defined)
// Field pointers follow the declaration order; inputs are `const real*`, outputs `real*`; in
// step(), fields of a `swap` pair are `real*&` and hold their roles on return.
#pragma once
#include <string>
#include <vector>

#include "codegen/CPrinter.h"
#include "dag/Kernel.h"

namespace stnc::codegen {

struct GenOptions {
  std::string stncVersion;
  std::string commandLine;  // options that affect the output (never absolute paths)
};

enum class ArgMode { Sweep, Fill, Step };

// "const real* u, real* unew, real dt" for the given entry point (no layout, no stream).
std::string declArgs(const dag::Kernel& k, ArgMode mode);
// "u, unew, dt": the matching call arguments.
std::string callArgs(const dag::Kernel& k, ArgMode mode);
// Fields passed to fill_boundaries: inputs with a boundary rule, in field order.
std::vector<std::string> ruledFields(const dag::Kernel& k);
bool inSwap(const dag::Kernel& k, const std::string& field);
// Internal halo per dimension (3-D, rank-r kernels use the last r dimensions).
std::array<int, 3> internalHalo(const dag::Kernel& k);
// The banner every generated file starts with.
std::string banner(const dag::Module& m, const GenOptions& o, const std::string& what);
// A comment describing the kernel: source, equations, halo, footprint, decisions.
std::string kernelComment(const dag::Module& m, const dag::Kernel& k, const std::string& schedule);

std::string generateHeader(const dag::Module& m, const GenOptions& o);

extern const char* const kRuntimeHeader;
extern const char* const kRuntimeCudaHeader;

}  // namespace stnc::codegen
