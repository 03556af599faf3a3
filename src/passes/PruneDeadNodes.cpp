#include "passes/PruneDeadNodes.h"

namespace stnc::passes {

bool pruneDeadNodes(dag::Module& m, DiagEngine&) {
  const dag::Context& old = m.ctx;
  std::vector<char> live(old.size(), 0);
  std::vector<dag::NodeId> work;
  for (const dag::Kernel& k : m.kernels) {
    for (const dag::Output& o : k.outputs) work.push_back(o.value);
    for (const dag::Boundary& b : k.boundaries)
      if (b.value != dag::kNoNode) work.push_back(b.value);
  }
  while (!work.empty()) {
    dag::NodeId id = work.back();
    work.pop_back();
    if (live[id]) continue;
    live[id] = 1;
    const dag::Node& n = old.node(id);
    for (int i = 0; i < n.operandCount(); ++i) work.push_back(n.operands[i]);
  }
  size_t liveCount = 0;
  for (char c : live) liveCount += c;
  if (liveCount == old.size()) return false;

  dag::Context fresh;
  std::vector<dag::NodeId> remap(old.size(), dag::kNoNode);
  auto sym = [&](dag::Symbol s) { return fresh.intern(old.name(s)); };
  for (dag::NodeId id = 0; id < old.size(); ++id) {
    if (!live[id]) continue;
    const dag::Node& n = old.node(id);
    auto op = [&](int i) { return remap[n.operands[i]]; };
    switch (n.kind) {
      case dag::NodeKind::Const: remap[id] = n.type == dag::Type::Bool ? fresh.boolean(n.value != 0) : fresh.constant(n.value); break;
      case dag::NodeKind::Param: remap[id] = fresh.param(sym(n.sym)); break;
      case dag::NodeKind::Access: remap[id] = fresh.access(sym(n.sym), n.offset); break;
      case dag::NodeKind::Broadcast: remap[id] = fresh.broadcast(sym(n.sym), n.axes, n.offset); break;
      case dag::NodeKind::Apply:
        remap[id] = fresh.apply(n.op, op(0), n.operandCount() > 1 ? op(1) : dag::kNoNode, n.operandCount() > 2 ? op(2) : dag::kNoNode);
        break;
      case dag::NodeKind::Select: remap[id] = fresh.select(op(0), op(1), op(2)); break;
    }
  }
  for (dag::Kernel& k : m.kernels) {
    for (dag::Output& o : k.outputs) o.value = remap[o.value];
    for (dag::Boundary& b : k.boundaries)
      if (b.value != dag::kNoNode) b.value = remap[b.value];
  }
  m.ctx = std::move(fresh);
  return true;
}

}  // namespace stnc::passes
