#include "passes/TemporalBlocking.h"

#include <cstdlib>

namespace stnc::passes {

TemporalPlan planTemporal(const dag::Context& ctx, const dag::Kernel& k) {
  TemporalPlan t;
  auto no = [&](const std::string& why) {
    t.why = why;
    return t;
  };
  if (k.rank() != 3) return no("rank " + std::to_string(k.rank()) + " (the fused sweep streams along dimension 0 of a 3-D grid)");
  // The widest read of a field that changes from step to step (a member of a swap pair) decides first:
  // a fused pair recomputes the intermediate step on a ring of that radius around every tile.
  int radius = 0;
  std::string wide;
  for (dag::NodeId id : dag::liveNodes(ctx, k)) {
    const dag::Node& n = ctx.node(id);
    if (n.kind != dag::NodeKind::Access) continue;
    const std::string& f = ctx.name(n.sym);
    bool swapped = false;
    for (const auto& [a, b] : k.swaps) swapped = swapped || f == a || f == b;
    for (int d : n.offset.d)
      if (swapped && std::abs(d) > radius) radius = std::abs(d), wide = f;
  }
  if (radius > 1)
    return no(wide + " is read at radius " + std::to_string(radius) +
              ": measured not to pay (a hand-fused pair of the radius-4 acoustic leapfrog ran 0.72x of two sweeps on "
              "the H200, needing 1.54x their instructions; bench/results/2026-11-30-temporal-r4.md; both steps in one "
              "launch through L2, nothing recomputed, 0.73x: the reuse distance exceeds L2, "
              "bench/results/2026-12-01-s17-wave.md)");
  if (!k.regions.empty()) return no("the kernel has regions");
  for (const dag::Field& f : k.fields)
    if (f.lowerRank()) return no("field " + f.name + " has fewer axes than the kernel (the fused pair reads full fields only)");
  if (k.outputs.size() != 1) return no(std::to_string(k.outputs.size()) + " outputs (one is supported)");
  t.out = k.outputs[0].field;
  for (const auto& [a, b] : k.swaps) {
    if (a == t.out) t.in = b;
    if (b == t.out) t.in = a;
  }
  if (t.in.empty()) return no("the output is in no swap pair");
  if (k.swaps.size() != 1) return no("more than one swap pair");
  for (const dag::Boundary& b : k.boundaries)
    if (b.field == t.out) return no("the output field has a boundary rule of its own");
  const dag::Field* out = k.field(t.out);
  if (!out || dag::isRead(out->role)) return no("the output is also read");
  for (const dag::Field& f : k.fields)
    if (f.name != t.out && dag::isWritten(f.role)) return no("field " + f.name + " is written too");
  for (dag::NodeId id : dag::liveNodes(ctx, k)) {
    const dag::Node& n = ctx.node(id);
    if (n.kind != dag::NodeKind::Access || ctx.name(n.sym) != t.in) continue;
    if (n.offset.d[0] != 0 && (n.offset.d[1] != 0 || n.offset.d[2] != 0))
      return no(t.in + " is read off-axis across dimension 0 (box-like: needs three shared planes)");
  }
  t.ok = true;
  t.why = "two steps fused per sweep: " + t.in + " read once, " + t.out + " (step 1) and the result (step 2) written";
  return t;
}

}  // namespace stnc::passes
