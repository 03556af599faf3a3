#include "dag/Verifier.h"

namespace stnc::dag {

std::string verifyModule(const Module& m) {
  const Context& ctx = m.ctx;
  for (NodeId id = 0; id < ctx.size(); ++id) {
    const Node& n = ctx.node(id);
    for (int i = 0; i < n.operandCount(); ++i) {
      if (n.operands[i] >= id) return "node %" + std::to_string(id) + " uses a later node";
      Type want = Type::Real;
      if (n.kind == NodeKind::Apply && opInfo(n.op).operandsBool) want = Type::Bool;
      if (n.kind == NodeKind::Select) want = i == 0 ? Type::Bool : n.type;
      if (ctx.node(n.operands[i]).type != want) return "node %" + std::to_string(id) + " has an operand of the wrong type";
    }
  }
  for (const Kernel& k : m.kernels) {
    for (NodeId id : liveNodes(ctx, k)) {
      const Node& n = ctx.node(id);
      if (n.kind == NodeKind::Access) {
        const Field* f = k.field(ctx.name(n.sym));
        if (!f || !isRead(f->role)) return k.name + ": access to '" + ctx.name(n.sym) + "', not a readable field";
        for (int a = k.rank(); a < 3; ++a)
          if (n.offset.d[a] != 0) return k.name + ": access beyond the kernel's rank";
        if (f->role == Role::InOut && !n.offset.isZero()) return k.name + ": inout field read at an offset";
      }
      if (n.kind == NodeKind::Broadcast) {
        const Field* f = k.field(ctx.name(n.sym));
        if (!f || f->role != Role::In || f->axes != n.axes)
          return k.name + ": broadcast of '" + ctx.name(n.sym) + "', not a lower-rank input over those axes";
        if (maskOffset(n.offset, n.axes) != n.offset) return k.name + ": broadcast offset along an axis its field lacks";
      }
      if (n.kind == NodeKind::Access && k.field(ctx.name(n.sym)) && k.field(ctx.name(n.sym))->lowerRank())
        return k.name + ": plain access to the lower-rank field '" + ctx.name(n.sym) + "'";
      if (n.kind == NodeKind::Param && k.paramIndex(ctx.name(n.sym)) < 0)
        return k.name + ": unknown param '" + ctx.name(n.sym) + "'";
    }
    for (const Output& o : k.outputs) {
      const Field* f = k.field(o.field);
      if (!f || !isWritten(f->role)) return k.name + ": output '" + o.field + "' is not a written field";
      if (ctx.node(o.value).type != Type::Real) return k.name + ": output '" + o.field + "' is not real";
    }
  }
  return "";
}

}  // namespace stnc::dag
