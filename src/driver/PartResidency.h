// Each stream part's block on an SM as ptxas compiled it (--verify-schedules): registers per thread from the
// log, threads from the part's schedule, shared memory from its rings. What --report's resident and overlap
// lines print and what driver/FitBeside decides on (passes/Occupancy has the SM model).
#pragma once
#include <map>
#include <string>

#include "dag/Kernel.h"
#include "driver/PtxasCheck.h"
#include "passes/Occupancy.h"

namespace stnc::driver {

// The CUDA entry of part `part` of k in parsePtxasLog's keys (with `suffix`: that kernel of the part, e.g. "_tma"),
// or null.
const PtxasInfo* partPtxas(const dag::Kernel& k, int part, const std::map<std::string, PtxasInfo>& ptxas, const std::string& suffix = "");
// The block use of every stream part of k that ptxas compiled (part index -> use; -1 the default part).
std::map<int, passes::BlockUse> partBlockUses(const dag::Module& m, const dag::Kernel& k, const std::map<std::string, PtxasInfo>& ptxas);
// The block use of the default part's slab kernel (Schedule::tma 2: NAME_tma, passes::slabSchedule), if ptxas compiled one.
bool slabBlockUse(const dag::Module& m, const dag::Kernel& k, const std::map<std::string, PtxasInfo>& ptxas, passes::BlockUse& use);

}  // namespace stnc::driver
