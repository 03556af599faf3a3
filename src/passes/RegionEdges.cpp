#include "passes/RegionEdges.h"

#include <algorithm>

#include "passes/RegionPair.h"

namespace stnc::passes {

int edgeRegion(const dag::Context& ctx, const dag::Kernel& k, std::string* why) {
  if (k.fusedRegion >= 0) {
    if (why) *why = "the region is fused with the default equations (--fuse-regions=on)";
    return -1;
  }
  return regionPair(ctx, k, -1, "the edge kernel", "the default part's", why);
}

void chooseEdges(const dag::Context& ctx, dag::Kernel& k, const std::string& mode) {
  k.edgeRegion = -1;
  std::string why;
  const int r = edgeRegion(ctx, k, &why);
  if (r < 0) {
    k.edgeWhy = k.regions.empty() || k.fusedRegion >= 0 ? "" : "not possible: " + why;
    return;
  }
  if (mode == "off") {
    k.edgeWhy = "off (--region-edges=off)";
    return;
  }
  const dag::Schedule& s = k.scheduleOf(-1);
  const int w = s.blockX * std::max(1, s.vec);
  if (mode == "auto") {
    // Measured on the H200 (bench/results/2026-12-04-s27-edges.md, the acoustic sample at 800^3 f32, 1000 steps,
    // A/B interleaved): 190.6 vs 191.6 Gpts/s with zero fields, 186.0 vs 186.2 with random ones. The region's
    // kernel gains what the edge kernel loses: its tiles meeting the region run both bodies.
    k.edgeWhy = "eligible, not used: measured slower (the acoustic sample: 190.6 vs 191.6 Gpts/s; --region-edges=on moves the boundary to " +
                std::to_string(w) + "-column tiles)";
    return;
  }
  k.edgeRegion = r;
  k.edgeWhy = "region " + k.regions[r].name + "'s dim-2 boundary moves to multiples of " + std::to_string(w) +
              " columns where it is off them: the default faces thin along dim 2 widen into the region and run both bodies (--region-edges=on)";
}

}  // namespace stnc::passes
