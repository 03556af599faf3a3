// The default part of a region kernel beside its regions (with ptxas's registers, --verify-schedules).
//
// A region kernel's parts run concurrently, one lane each: the region's box and the default part's boxes around
// it (the acoustic sample's inner box and its six PML faces). A default-part block only runs under the region's
// kernel where it fits on an SM beside the region's resident blocks; where none fits, the default part runs
// only in the region kernel's tail and a step takes about the sum of the two. On sm_90 the acoustic inner box
// (97 registers, 256 threads, 92 KiB rings, two blocks per SM) leaves 12288 registers and 42 KiB: its 16x16
// shell blocks (80 registers, 54 KiB) do not fit, 16x8 ones (88 registers, 36 KiB) do, and the step ran
// 0.45 % faster on an H100 (bench/results/2026-12-07-s39-h100-shell-block.md).
//
// So where no default-part block fits beside a region's, the default part gets blocks of half the rows (the
// tile's columns, and so its rows' coalescing, stay), down to 8 rows, each shape checked with ptxas's registers
// (they change with the block); the first that fits is kept, else the schedule stays as it was (the 3-D-eta
// acoustic shell fits only at 16x4, which lost 1.6 % on an H100). A block the source, the command line or a
// schedules file gives the default part stays too.
#pragma once
#include <functional>
#include <map>
#include <string>

#include "dag/Kernel.h"
#include "driver/PtxasCheck.h"

namespace stnc::driver {

// Compiles the module and reads ptxas's registers per kernel (ptxasInfo for one architecture, or a test's model).
using PtxasRun = std::function<bool(const dag::Module&, std::map<std::string, PtxasInfo>&, std::string&)>;

// Refits the default parts as above; `info` holds ptxas's numbers for the module as it is and is updated for
// the kernels that change. blockGiven: the command line gave every kernel its block. False on failure.
bool fitDefaultParts(dag::Module& m, int smVersion, bool blockGiven, std::map<std::string, PtxasInfo>& info, const PtxasRun& run,
                     std::string& error);

}  // namespace stnc::driver
