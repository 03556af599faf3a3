// The optimization report (`stnc FILE --report`): for each kernel, the chosen CUDA schedule and
// why, the loads per point (distinct accesses vs after register queues), the arithmetic per point,
// and the compulsory bytes per point that set the memory floor.
#pragma once
#include <iosfwd>

#include <map>
#include <string>

#include "dag/Kernel.h"
#include "driver/PtxasCheck.h"

namespace stnc::driver {

struct KernelCost {
  int loads = 0;       // distinct (field, offset) loads per point
  int queuedLoads = 0; // loads per point left after the stream schedule's register queues
  int flops = 0;       // + - * / min max abs ... per point (one each), select and comparisons included
  int bytes = 0;       // compulsory bytes per point: each read field once + each written field once
};

// part: -2 = the whole kernel (every output); otherwise one region part (-1 = the default equations),
// whose bytes count only the fields that part reads or writes.
KernelCost costOf(const dag::Context& ctx, const dag::Kernel& k, int part = -2);
// smVersion: the target architecture (passes::smVersionOf), for the resident-block lines that ptxas info enables.
void printReport(std::ostream& os, const dag::Module& m, const std::map<std::string, PtxasInfo>& ptxas = {}, int smVersion = 90);

}  // namespace stnc::driver
