// Checks CUDA schedules against the compiled kernels: compiles the generated .cu with
// `nvcc -Xptxas -v`, reads registers and spills per kernel, and demotes a stream schedule that
// spills or needs more than kMaxStreamRegisters registers (fewer than two 256-thread blocks per
// SM: too little memory parallelism for a bandwidth-bound sweep) to the naive one.
#pragma once
#include <map>
#include <string>

#include "dag/Kernel.h"

namespace stnc::driver {

constexpr int kMaxStreamRegisters = 128;

struct PtxasInfo {
  int registers = 0;
  int spillStores = 0;
  int spillLoads = 0;
  int stackFrame = 0;
};

// Registers and spills of every kernel's sweepKernel, keyed by kernel name; false on failure.
bool ptxasInfo(const dag::Module& m, const std::string& arch, std::map<std::string, PtxasInfo>& out, std::string& error);
// Demotes over-budget stream schedules (code generated afterwards uses the new schedules); false on failure.
bool verifySchedules(dag::Module& m, const std::string& arch, std::map<std::string, PtxasInfo>& info, std::string& error);

}  // namespace stnc::driver
