// Checks CUDA schedules against the compiled kernels: compiles the generated .cu with
// `nvcc -Xptxas -v`, reads registers and spills per kernel, and demotes a stream schedule that
// spills to the naive one. A register count alone is no reason: on the H200 the fused CNS
// hypterm ran faster as stream with 254 registers (one block per SM) than as naive
// (bench/results/2026-11-29: 1366 vs 1857 us).
#pragma once
#include <map>
#include <string>

#include "dag/Kernel.h"

namespace stnc::driver {

struct PtxasInfo {
  int registers = 0;
  int spillStores = 0;
  int spillLoads = 0;
  int stackFrame = 0;
};

// Registers and spills per kernel from `nvcc -Xptxas -v` output. Two keys per stream entry: the kernel's name
// (its last sweepPart entry in the log: the default part's main kernel where parts have their own) and
// "kernel/part_namespace::function" (e.g. "acoustic_sep/region_inner::sweepPart_inner",
// "acoustic_sep/default_part::sweepPart"; "star7/sweepPart" where the kernel has no part schedules).
std::map<std::string, PtxasInfo> parsePtxasLog(const std::string& log);
// Registers and spills of every kernel (parsePtxasLog's keys) of the module compiled for arch; false on failure.
bool ptxasInfo(const dag::Module& m, const std::string& arch, std::map<std::string, PtxasInfo>& out, std::string& error);
// Demotes stream schedules that spill (code generated afterwards uses the new schedules); info: ptxas's numbers of
// the module as it then is. False on failure.
bool demoteSpilling(dag::Module& m, const std::string& arch, std::map<std::string, PtxasInfo>& info, std::string& error);
// demoteSpilling, then with fitBeside (`--fit-beside`) driver/FitBeside's refit of region kernels' default parts
// (blockGiven: --block was given).
bool verifySchedules(dag::Module& m, const std::string& arch, std::map<std::string, PtxasInfo>& info, std::string& error,
                     bool fitBeside = false, bool blockGiven = false);

}  // namespace stnc::driver
