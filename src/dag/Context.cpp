#include "dag/Context.h"

#include <cmath>
#include <cstring>

#include "support/Error.h"

namespace stnc::dag {

namespace {
const OpInfo kOps[] = {
#define X(name, spelling, arity, rbool, abool) {spelling, arity, rbool, abool},
    STNC_DAG_OPS(X)
#undef X
};
uint64_t bitsOf(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
}  // namespace

const OpInfo& opInfo(Op op) { return kOps[static_cast<int>(op)]; }

namespace {
const std::pair<const char*, Op> kIntrinsics[] = {
    {"abs", Op::Abs}, {"min", Op::Min},   {"max", Op::Max},     {"sqrt", Op::Sqrt},
    {"exp", Op::Exp}, {"log", Op::Log},   {"pow", Op::Pow},     {"sin", Op::Sin},
    {"cos", Op::Cos}, {"floor", Op::Floor}, {"ceil", Op::Ceil}};
}  // namespace

std::vector<std::string> intrinsicNames() {
  std::vector<std::string> v;
  for (auto& [n, o] : kIntrinsics) v.push_back(n);
  return v;
}

bool intrinsicOp(const std::string& name, Op& op) {
  for (auto& [n, o] : kIntrinsics)
    if (name == n) {
      op = o;
      return true;
    }
  return false;
}

Symbol Context::intern(const std::string& name) {
  auto it = symbols_.find(name);
  if (it != symbols_.end()) return it->second;
  Symbol s = static_cast<Symbol>(names_.size());
  names_.push_back(name);
  symbols_.emplace(name, s);
  return s;
}

bool Context::lookup(const std::string& name, Symbol& s) const {
  auto it = symbols_.find(name);
  if (it == symbols_.end()) return false;
  s = it->second;
  return true;
}

NodeId Context::unique(const Node& n) {
  auto key = std::make_tuple(static_cast<int>(n.kind), static_cast<int>(n.type), static_cast<int>(n.op),
                             n.operands[0], n.operands[1], n.operands[2], bitsOf(n.value), n.sym, n.offset.d[0],
                             n.offset.d[1], n.offset.d[2], static_cast<int>(n.axes));
  auto it = index_.find(key);
  if (it != index_.end()) return it->second;
  NodeId id = static_cast<NodeId>(nodes_.size());
  nodes_.push_back(n);
  index_.emplace(key, id);
  return id;
}

NodeId Context::constant(double v) {
  Node n{};
  n.kind = NodeKind::Const;
  n.type = Type::Real;
  n.value = v == 0.0 ? v : v;  // -0.0 and 0.0 stay distinct (different bits)
  return unique(n);
}

NodeId Context::boolean(bool v) {
  Node n{};
  n.kind = NodeKind::Const;
  n.type = Type::Bool;
  n.value = v ? 1.0 : 0.0;
  return unique(n);
}

NodeId Context::param(Symbol s) {
  Node n{};
  n.kind = NodeKind::Param;
  n.type = Type::Real;
  n.sym = s;
  return unique(n);
}

NodeId Context::access(Symbol field, Offset off) {
  Node n{};
  n.kind = NodeKind::Access;
  n.type = Type::Real;
  n.sym = field;
  n.offset = off;
  return unique(n);
}

NodeId Context::broadcast(Symbol field, unsigned axes, Offset off) {
  STNC_ASSERT(axes != 0 && axes < 8, "a broadcast needs the axes its field has");
  STNC_ASSERT(maskOffset(off, axes) == off, "a broadcast's offset along an axis its field lacks");
  Node n{};
  n.kind = NodeKind::Broadcast;
  n.type = Type::Real;
  n.sym = field;
  n.axes = static_cast<uint8_t>(axes);
  n.offset = off;
  return unique(n);
}

double Context::fold(Op op, double a, double b, double c) {
  switch (op) {
    case Op::Neg: return -a;
    case Op::Not: return a == 0.0 ? 1.0 : 0.0;
    case Op::Add: return a + b;
    case Op::Sub: return a - b;
    case Op::Mul: return a * b;
    case Op::Div: return a / b;
    case Op::Lt: return a < b;
    case Op::Le: return a <= b;
    case Op::Gt: return a > b;
    case Op::Ge: return a >= b;
    case Op::Eq: return a == b;
    case Op::Ne: return a != b;
    case Op::And: return (a != 0.0) && (b != 0.0);
    case Op::Or: return (a != 0.0) || (b != 0.0);
    // min/max are selects (docs/LANGUAGE.md): on ties (+0 vs -0) and NaN, the first operand
    // unless the second compares strictly smaller (min) / larger (max).
    case Op::Min: return b < a ? b : a;
    case Op::Max: return a < b ? b : a;
    case Op::Pow: return std::pow(a, b);
    case Op::Abs: return std::fabs(a);
    case Op::Sqrt: return std::sqrt(a);
    case Op::Exp: return std::exp(a);
    case Op::Log: return std::log(a);
    case Op::Sin: return std::sin(a);
    case Op::Cos: return std::cos(a);
    case Op::Floor: return std::floor(a);
    case Op::Ceil: return std::ceil(a);
    case Op::Fma: return std::fma(a, b, c);
  }
  STNC_UNREACHABLE("unknown op");
  return 0;
}

NodeId Context::apply(Op op, NodeId a, NodeId b, NodeId c) {
  const OpInfo& info = opInfo(op);
  STNC_ASSERT(a < nodes_.size(), "operand out of range");
  STNC_ASSERT(info.arity < 2 || b < nodes_.size(), "missing operand");
  STNC_ASSERT(info.arity < 3 || c < nodes_.size(), "missing operand");
  bool allConst = isConst(a) && (info.arity < 2 || isConst(b)) && (info.arity < 3 || isConst(c));
  if (allConst) {
    double r = fold(op, nodes_[a].value, info.arity >= 2 ? nodes_[b].value : 0.0, info.arity >= 3 ? nodes_[c].value : 0.0);
    return info.resultBool ? boolean(r != 0.0) : constant(r);
  }
  Node n{};
  n.kind = NodeKind::Apply;
  n.type = info.resultBool ? Type::Bool : Type::Real;
  n.op = op;
  n.operands = {a, info.arity >= 2 ? b : kNoNode, info.arity >= 3 ? c : kNoNode};
  return unique(n);
}

NodeId Context::select(NodeId c, NodeId a, NodeId b) {
  if (isConst(c)) return nodes_[c].value != 0.0 ? a : b;
  if (a == b) return a;
  Node n{};
  n.kind = NodeKind::Select;
  n.type = nodes_[a].type;
  n.operands = {c, a, b};
  return unique(n);
}

}  // namespace stnc::dag
