#include "passes/Footprint.h"

#include <algorithm>

namespace stnc::passes {

dag::Footprint footprintOf(const dag::Context& ctx, const dag::Kernel& k) {
  dag::Footprint fp;
  for (const dag::Field& f : k.fields)
    if (dag::isRead(f.role)) fp.fields.push_back({f.name, {0, 0, 0}, {0, 0, 0}, 0});
  for (dag::NodeId id : dag::liveNodes(ctx, k)) {
    const dag::Node& n = ctx.node(id);
    if (!n.isLoad()) continue;  // a lower-rank field's reach counts along its own axes (its offset is 0 along the others)
    for (dag::FieldFootprint& ff : fp.fields) {
      if (ff.field != ctx.name(n.sym)) continue;
      ++ff.accesses;
      for (int a = 0; a < 3; ++a) {
        ff.lo[a] = std::min(ff.lo[a], n.offset.d[a]);
        ff.hi[a] = std::max(ff.hi[a], n.offset.d[a]);
      }
    }
  }
  for (const dag::FieldFootprint& ff : fp.fields)
    for (int a = 0; a < 3; ++a) fp.halo[a] = std::max({fp.halo[a], -ff.lo[a], ff.hi[a]});
  return fp;
}

bool computeFootprints(dag::Module& m, DiagEngine&) {
  bool changed = false;
  for (dag::Kernel& k : m.kernels) {
    dag::Footprint fp = footprintOf(m.ctx, k);
    changed |= fp.halo != k.footprint.halo;
    k.footprint = fp;
  }
  return changed;
}

}  // namespace stnc::passes
