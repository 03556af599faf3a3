#include "codegen/KernelBody.h"

#include "support/Error.h"

namespace stnc::codegen {

namespace {

std::string accessName(const dag::Context& ctx, const dag::Kernel& k, const dag::Node& n) {
  std::string s = cIdent(ctx.name(n.sym));
  for (int a = 0; a < k.rank(); ++a) {
    int d = n.offset.d[a];
    s += "_" + (d < 0 ? "m" + std::to_string(-d) : std::to_string(d));
  }
  return s + "_";
}

const char* binaryOperator(dag::Op op) {
  switch (op) {
    case dag::Op::Add: return " + ";
    case dag::Op::Sub: return " - ";
    case dag::Op::Mul: return " * ";
    case dag::Op::Div: return " / ";
    case dag::Op::Lt: return " < ";
    case dag::Op::Le: return " <= ";
    case dag::Op::Gt: return " > ";
    case dag::Op::Ge: return " >= ";
    case dag::Op::Eq: return " == ";
    case dag::Op::Ne: return " != ";
    case dag::Op::And: return " && ";
    case dag::Op::Or: return " || ";
    default: return nullptr;
  }
}

// The name or inline text of a node's value.
std::string ref(const dag::Context& ctx, const dag::Kernel& k, dag::NodeId id) {
  const dag::Node& n = ctx.node(id);
  switch (n.kind) {
    case dag::NodeKind::Const: return n.type == dag::Type::Bool ? (n.value != 0 ? "true" : "false") : literal(n.value, k.type);
    case dag::NodeKind::Param: return cIdent(ctx.name(n.sym));
    case dag::NodeKind::Access: return accessName(ctx, k, n);
    case dag::NodeKind::Apply:
    case dag::NodeKind::Select: return "t" + std::to_string(id) + "_";
  }
  return "?";
}

std::string applyText(const dag::Context& ctx, const dag::Kernel& k, const dag::Node& n) {
  auto r = [&](int i) { return ref(ctx, k, n.operands[i]); };
  if (n.kind == dag::NodeKind::Select) return r(0) + " ? " + r(1) + " : " + r(2);
  if (n.op == dag::Op::Neg) return "-" + r(0);
  if (n.op == dag::Op::Not) return "!" + r(0);
  if (const char* b = binaryOperator(n.op)) return r(0) + b + r(1);
  std::string f = mathFunction(n.op, k.type);
  STNC_ASSERT(!f.empty(), "op without an emission");
  return f + "(" + r(0) + (n.operandCount() > 1 ? ", " + r(1) : "") + ")";
}

}  // namespace

std::string offsetIndex(const dag::Kernel& k, const dag::Offset& o) {
  std::string s = "p_";
  for (int a = 0; a < k.rank(); ++a) {
    int d = o.d[a];
    if (d == 0) continue;
    int dim = internalDim(k, a);
    std::string mag = std::to_string(d < 0 ? -d : d);
    std::string term = dim == 2 ? mag : (mag == "1" ? "" : mag + " * ") + (dim == 0 ? "s0_" : "s1_");
    s += (d < 0 ? " - " : " + ") + term;
  }
  return s;
}

std::string scalarExpr(const dag::Context& ctx, const dag::Kernel& k, dag::NodeId id) {
  const dag::Node& n = ctx.node(id);
  if (n.kind == dag::NodeKind::Const || n.kind == dag::NodeKind::Param) return ref(ctx, k, id);
  auto r = [&](int i) { return "(" + scalarExpr(ctx, k, n.operands[i]) + ")"; };
  if (n.kind == dag::NodeKind::Select) return r(0) + " ? " + r(1) + " : " + r(2);
  if (n.op == dag::Op::Neg) return "-" + r(0);
  if (n.op == dag::Op::Not) return "!" + r(0);
  if (const char* b = binaryOperator(n.op)) return r(0) + b + r(1);
  return mathFunction(n.op, k.type) + "(" + r(0) + (n.operandCount() > 1 ? ", " + r(1) : "") + ")";
}

std::string accessLoad(const dag::Context& ctx, const dag::Kernel& k, const dag::Node& n) {
  return cIdent(ctx.name(n.sym)) + "[" + offsetIndex(k, n.offset) + "]";
}

void emitPointBody(CPrinter& p, const dag::Context& ctx, const dag::Kernel& k, const AccessFn& access) {
  const std::string real = dag::elemCType(k.type);
  for (dag::NodeId id : dag::liveNodes(ctx, k)) {
    const dag::Node& n = ctx.node(id);
    switch (n.kind) {
      case dag::NodeKind::Const:
      case dag::NodeKind::Param: break;
      case dag::NodeKind::Access:
        p.line("const " + real + " " + accessName(ctx, k, n) + " = " + (access ? access(n) : accessLoad(ctx, k, n)) + ";");
        break;
      case dag::NodeKind::Apply:
      case dag::NodeKind::Select:
        p.line("const " + (n.type == dag::Type::Bool ? std::string("bool") : real) + " " + ref(ctx, k, id) + " = " +
               applyText(ctx, k, n) + ";");
        break;
    }
  }
  for (const dag::Output& o : k.outputs) p.line(cIdent(o.field) + "[p_] = " + ref(ctx, k, o.value) + ";");
}

}  // namespace stnc::codegen
