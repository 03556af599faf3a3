#include "driver/FitBeside.h"

#include <set>
#include <vector>

#include "driver/PartResidency.h"
#include "passes/Occupancy.h"
#include "passes/SmemPlan.h"

namespace stnc::driver {

namespace {
// The fewest block rows the refit goes down to: one halving of the policy's 16. On an H100 the 3-D-eta acoustic
// shell at 16x4 (the first shape that fits there) made the step 1.6 % slower (3.736 vs 3.675 ms), the profiles
// shell at 16x8 0.4 % faster (bench/results/2026-12-07-s39-h100-shell-block.md).
constexpr int kMinRows = 8;

// Whether the default part's block is the policy's own (no source, command-line or saved block).
bool policyBlock(const dag::Kernel& k) {
  if (k.request.blockX > 0) return false;
  const std::string& why = k.scheduleOf(-1).reason;
  if (why.rfind("from the schedules file", 0) == 0) return false;
  const size_t at = why.find("; overridden (");
  return at == std::string::npos || why.find("block ", why.find("): ", at)) == std::string::npos;
}

// The default part's blocks beside the regions', from ptxas's numbers; -1 where they are not all known.
int besideRegions(const dag::Module& m, const dag::Kernel& k, const std::map<std::string, PtxasInfo>& info, int smVersion) {
  const std::map<int, passes::BlockUse> uses = partBlockUses(m, k, info);
  if (uses.size() != dag::kernelParts(k).size()) return -1;
  return passes::defaultBlocksBeside(uses, passes::smLimits(smVersion));
}

struct Refit {
  size_t kernel;
  dag::Schedule before;      // the default part's schedule as the policy chose it
  bool hadOwn;               // whether the default part had its own entry in partSchedules
};
}  // namespace

bool fitDefaultParts(dag::Module& m, int smVersion, bool blockGiven, std::map<std::string, PtxasInfo>& info, const PtxasRun& run,
                     std::string& error) {
  if (blockGiven) return true;
  std::vector<Refit> open;  // kernels still looking for a default-part block that fits
  for (size_t i = 0; i < m.kernels.size(); ++i) {
    const dag::Kernel& k = m.kernels[i];
    if (k.regions.empty() || !policyBlock(k) || k.scheduleOf(-1).strategy != dag::Strategy::Stream) continue;
    if (besideRegions(m, k, info, smVersion) != 0) continue;  // fits already, or not all parts known
    open.push_back({i, k.scheduleOf(-1), k.partSchedules.count(-1) > 0});
  }
  bool ran = false;  // whether info holds numbers of refit shapes
  while (!open.empty()) {
    std::vector<Refit> tried;
    std::set<size_t> triedKernels;
    for (const Refit& r : open) {
      dag::Kernel& k = m.kernels[r.kernel];
      dag::Schedule s = k.scheduleOf(-1);
      if (s.blockY / 2 < kMinRows) continue;
      s.blockY /= 2;
      if (s.smem && !passes::planSmem(m.ctx, k, -1, s).ok) continue;
      if (s.tma == 2 && !passes::planSmemTma(m.ctx, k, -1, s).ok) continue;
      k.partSchedules[-1] = s;
      tried.push_back(r);
      triedKernels.insert(r.kernel);
    }
    // Kernels that ran out of shapes keep the policy's block.
    for (const Refit& r : open) {
      if (triedKernels.count(r.kernel)) continue;
      dag::Kernel& k = m.kernels[r.kernel];
      if (r.hadOwn) k.partSchedules[-1] = r.before;
      else k.partSchedules.erase(-1);
    }
    if (tried.empty()) {  // the last run's numbers are of shapes now given back: ptxas's numbers as the module is
      if (ran && !run(m, info, error)) return false;
      return true;
    }
    std::map<std::string, PtxasInfo> next;
    if (!run(m, next, error)) return false;
    ran = true;
    open.clear();
    for (const Refit& r : tried) {
      dag::Kernel& k = m.kernels[r.kernel];
      const PtxasInfo* pi = partPtxas(k, -1, next);
      const int beside = besideRegions(m, k, next, smVersion);
      if (pi && pi->spillStores == 0 && beside > 0) {
        const dag::Schedule& s = k.scheduleOf(-1);
        k.partSchedules[-1].reason += "; block " + std::to_string(s.blockX) + "x" + std::to_string(s.blockY) + " (was " +
                                      std::to_string(r.before.blockX) + "x" + std::to_string(r.before.blockY) +
                                      "): its blocks fit beside the regions' resident blocks (" + std::to_string(beside) +
                                      " per SM, ptxas " + std::to_string(pi->registers) + " registers), so its launches "
                                      "overlap the regions' kernels (driver/FitBeside.h)";
        continue;
      }
      open.push_back(r);
    }
    // ptxas's numbers for the module as it now is, for every kernel (refits that did not fit yet are retried).
    info = std::move(next);
  }
  return true;
}

}  // namespace stnc::driver
