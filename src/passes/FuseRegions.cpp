#include "passes/FuseRegions.h"

#include "passes/SmemPlan.h"

namespace stnc::passes {

int fusableRegion(const dag::Context& ctx, const dag::Kernel& k, std::string* why) {
  auto no = [&](const std::string& w) {
    if (why) *why = w;
    return -1;
  };
  if (k.regions.empty()) return no("the kernel has no regions");
  if (k.rank() != 3) return no("rank " + std::to_string(k.rank()) + " (the fused kernel streams dimension 0 of a 3-D grid)");
  if (k.regions.size() != 1) return no(std::to_string(k.regions.size()) + " regions (one region and the default equations are supported)");
  const std::vector<int> parts = dag::kernelParts(k);
  if (parts.size() != 2) return no("the region and the default equations must both have equations");
  const dag::Schedule& s = k.scheduleOf(0);
  if (s.strategy != dag::Strategy::Stream || s.smem == 0) return no("the region's schedule has no shared-memory rings");
  if (s.rows > 1) return no("the region's schedule computes " + std::to_string(s.rows) + " rows per thread (the fused kernel computes one)");
  const SmemPlan sp = planSmem(ctx, k, 0);
  if (!sp.ok) return no("the region's rings do not fit (" + sp.why + ")");
  if (why) why->clear();
  return 0;
}

void chooseFusion(const dag::Context& ctx, dag::Kernel& k, const std::string& mode) {
  k.fusedRegion = -1;
  std::string why;
  const int r = fusableRegion(ctx, k, &why);
  if (r < 0) {
    k.fusionWhy = k.regions.empty() ? "" : "not possible: " + why;
    return;
  }
  if (mode == "off") {
    k.fusionWhy = "off (--fuse-regions=off)";
    return;
  }
  if (mode == "auto") {
    // Measured on the H200 (samples/acoustic/profile.sh, 800^3 f32): one fused kernel 4.78 ms per step
    // against 3.10 ms for the inner kernel and six PML slabs. The tiles straddling the region's boundary
    // (18 % of them) run both bodies, the default one at 4 points per thread with its fields through L1.
    k.fusionWhy = "eligible, not used: measured slower (the acoustic sample: 4.78 vs 3.10 ms per step; --fuse-regions=on fuses)";
    return;
  }
  k.fusedRegion = r;
  k.fusionWhy = "region " + k.regions[r].name + " and the default equations in one kernel (--fuse-regions=on)";
}

}  // namespace stnc::passes
