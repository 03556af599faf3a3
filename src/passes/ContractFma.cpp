#include "passes/ContractFma.h"

#include <functional>

namespace stnc::passes {

bool contractFma(dag::Module& m, DiagEngine&) {
  const dag::Context& old = m.ctx;
  // Uses of every node over the whole module (kernels share the context): a product used twice is
  // computed once and kept, not folded into two FMAs.
  std::vector<int> uses(old.size(), 0);
  for (dag::NodeId id = 0; id < old.size(); ++id) {
    const dag::Node& n = old.node(id);
    for (int i = 0; i < n.operandCount(); ++i) ++uses[n.operands[i]];
  }
  for (const dag::Kernel& k : m.kernels) {
    for (const dag::Output& o : k.outputs) ++uses[o.value];
    for (const dag::Boundary& b : k.boundaries)
      if (b.value != dag::kNoNode) ++uses[b.value];
  }
  auto fusable = [&](dag::NodeId id) {
    const dag::Node& n = old.node(id);
    return n.kind == dag::NodeKind::Apply && n.op == dag::Op::Mul && n.type == dag::Type::Real && uses[id] == 1;
  };

  dag::Context fresh;
  std::vector<dag::NodeId> memo(old.size(), dag::kNoNode);
  bool changed = false;
  std::function<dag::NodeId(dag::NodeId)> build = [&](dag::NodeId id) -> dag::NodeId {
    if (memo[id] != dag::kNoNode) return memo[id];
    const dag::Node& n = old.node(id);
    auto sym = [&](dag::Symbol s) { return fresh.intern(old.name(s)); };
    dag::NodeId r = dag::kNoNode;
    switch (n.kind) {
      case dag::NodeKind::Const: r = n.type == dag::Type::Bool ? fresh.boolean(n.value != 0) : fresh.constant(n.value); break;
      case dag::NodeKind::Param: r = fresh.param(sym(n.sym)); break;
      case dag::NodeKind::Access: r = fresh.access(sym(n.sym), n.offset); break;
      case dag::NodeKind::Broadcast: r = fresh.broadcast(sym(n.sym), n.axes, n.offset); break;
      case dag::NodeKind::Select: r = fresh.select(build(n.operands[0]), build(n.operands[1]), build(n.operands[2])); break;
      case dag::NodeKind::Apply: {
        const bool add = n.op == dag::Op::Add, sub = n.op == dag::Op::Sub;
        if ((add || sub) && (fusable(n.operands[1]) || fusable(n.operands[0]))) {
          changed = true;
          // Prefer the right product: in a left-nested sum it is the newest term.
          const bool right = fusable(n.operands[1]);
          const dag::Node& prod = old.node(n.operands[right ? 1 : 0]);
          dag::NodeId a = build(prod.operands[0]), b = build(prod.operands[1]);
          dag::NodeId other = build(n.operands[right ? 0 : 1]);
          if (sub && right) a = fresh.apply(dag::Op::Neg, a);       // x - a*b = fma(-a, b, x)
          if (sub && !right) other = fresh.apply(dag::Op::Neg, other);  // a*b - y = fma(a, b, -y)
          r = fresh.apply(dag::Op::Fma, a, b, other);
          break;
        }
        dag::NodeId ops[3] = {dag::kNoNode, dag::kNoNode, dag::kNoNode};
        for (int i = 0; i < n.operandCount(); ++i) ops[i] = build(n.operands[i]);
        r = fresh.apply(n.op, ops[0], ops[1], ops[2]);
        break;
      }
    }
    return memo[id] = r;
  };
  // Outputs in kernel order, then boundary values: the fresh ids stay deterministic.
  for (dag::Kernel& k : m.kernels) {
    for (dag::Output& o : k.outputs) o.value = build(o.value);
    for (dag::Boundary& b : k.boundaries)
      if (b.value != dag::kNoNode) b.value = build(b.value);
  }
  m.ctx = std::move(fresh);
  return changed;
}

}  // namespace stnc::passes
