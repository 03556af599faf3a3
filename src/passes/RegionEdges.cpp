#include "passes/RegionEdges.h"

#include <algorithm>

#include "passes/SmemPlan.h"

namespace stnc::passes {

int edgeRegion(const dag::Context& ctx, const dag::Kernel& k, std::string* why) {
  auto no = [&](const std::string& w) {
    if (why) *why = w;
    return -1;
  };
  if (k.regions.empty()) return no("the kernel has no regions");
  if (k.rank() != 3) return no("rank " + std::to_string(k.rank()) + " (edge kernels stream dimension 0 of a 3-D grid)");
  if (k.regions.size() != 1) return no(std::to_string(k.regions.size()) + " regions (one region and the default equations are supported)");
  if (dag::kernelParts(k).size() != 2) return no("the region and the default equations must both have equations");
  if (k.fusedRegion >= 0) return no("the region is fused with the default equations (--fuse-regions=on)");
  const dag::Schedule& s = k.scheduleOf(-1);
  if (s.strategy != dag::Strategy::Stream || s.smem == 0) return no("the default part's schedule has no shared-memory rings");
  if (s.rows > 1) return no("the default part's schedule computes " + std::to_string(s.rows) + " rows per thread (the edge kernel computes one)");
  const SmemPlan sp = planSmem(ctx, k, -1);
  if (!sp.ok) return no("the default part's rings do not fit (" + sp.why + ")");
  if (why) why->clear();
  return 0;
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
