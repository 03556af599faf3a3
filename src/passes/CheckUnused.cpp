#include "passes/CheckUnused.h"

#include <set>

namespace stnc::passes {

bool checkUnused(dag::Module& m, DiagEngine& diags) {
  for (const dag::Kernel& k : m.kernels) {
    if (k.isGroup) continue;
    std::set<std::string> fields, params;
    std::vector<dag::NodeId> roots;
    for (dag::NodeId id : dag::liveNodes(m.ctx, k)) roots.push_back(id);
    for (const dag::Boundary& b : k.boundaries)
      if (b.value != dag::kNoNode) roots.push_back(b.value);
    while (!roots.empty()) {  // every node under the outputs and the boundary values
      const dag::Node& n = m.ctx.node(roots.back());
      roots.pop_back();
      if (n.isLoad()) fields.insert(m.ctx.name(n.sym));
      if (n.kind == dag::NodeKind::Param) params.insert(m.ctx.name(n.sym));
      for (int i = 0; i < n.operandCount(); ++i) roots.push_back(n.operands[i]);
    }
    for (const dag::Field& f : k.fields)
      if (f.role == dag::Role::In && !fields.count(f.name)) diags.report(DiagId::warn_unused_field, f.loc) << f.name;
    for (size_t i = 0; i < k.params.size(); ++i)
      if (!params.count(k.params[i])) diags.report(DiagId::warn_unused_param, k.paramLocs[i]) << k.params[i];
  }
  return false;
}

}  // namespace stnc::passes
