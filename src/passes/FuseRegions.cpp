#include "passes/FuseRegions.h"

#include "passes/RegionPair.h"

namespace stnc::passes {

int fusableRegion(const dag::Context& ctx, const dag::Kernel& k, std::string* why) {
  return regionPair(ctx, k, 0, "the fused kernel", "the region's", why);
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
