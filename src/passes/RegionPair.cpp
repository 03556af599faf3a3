#include "passes/RegionPair.h"

#include "passes/SmemPlan.h"

namespace stnc::passes {

int regionPair(const dag::Context& ctx, const dag::Kernel& k, int part, const std::string& user, const std::string& whose,
               std::string* why) {
  auto no = [&](const std::string& w) {
    if (why) *why = w;
    return -1;
  };
  if (k.regions.empty()) return no("the kernel has no regions");
  if (k.rank() != 3) return no("rank " + std::to_string(k.rank()) + " (" + user + " streams dimension 0 of a 3-D grid)");
  if (k.regions.size() != 1) return no(std::to_string(k.regions.size()) + " regions (one region and the default equations are supported)");
  if (dag::kernelParts(k).size() != 2) return no("the region and the default equations must both have equations");
  const dag::Schedule& s = k.scheduleOf(part);
  if (s.strategy != dag::Strategy::Stream || s.smem == 0) return no(whose + " schedule has no shared-memory rings");
  if (s.rows > 1) return no(whose + " schedule computes " + std::to_string(s.rows) + " rows per thread (" + user + " computes one)");
  const SmemPlan sp = planSmem(ctx, k, part);
  if (!sp.ok) return no(whose + " rings do not fit (" + sp.why + ")");
  if (why) why->clear();
  return 0;
}

}  // namespace stnc::passes
