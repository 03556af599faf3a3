#include "codegen/cuda/ConstantTable.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "support/Text.h"

namespace stnc::codegen {

namespace {
bool needsRegisters(double v) {
  if (!std::isfinite(v)) return false;
  std::uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return (bits & 0xffffffffu) != 0;  // not an FP64 immediate (the high 32 bits only)
}
}  // namespace

std::vector<double> constantTable(const dag::Context& ctx, const dag::Kernel& k) {
  std::vector<double> t;
  if (k.type != dag::ElemType::F64) return t;
  for (dag::NodeId id : dag::liveNodes(ctx, k)) {
    const dag::Node& n = ctx.node(id);
    if (n.kind == dag::NodeKind::Const && n.type != dag::Type::Bool && needsRegisters(n.value)) t.push_back(n.value);
  }
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end()), t.end());
  return t;
}

void emitConstantTable(CPrinter& p, const dag::Context& ctx, const dag::Kernel& k) {
  const std::vector<double> t = constantTable(ctx, k);
  if (t.empty()) return;
  std::string init;
  for (double v : t) appendItem(init, literal(v, k.type));
  p.line("// The f64 constants that are not FP64 immediates, read from constant memory as instruction operands");
  p.line("// instead of being held in registers across the plane loop (codegen/cuda/ConstantTable.h).");
  p.line("__constant__ double kConst_[" + std::to_string(t.size()) + "] = {" + init + "};");
}

LiteralFn constantRef(const dag::Context& ctx, const dag::Kernel& k) {
  std::vector<double> t = constantTable(ctx, k);
  const dag::ElemType type = k.type;
  return [t = std::move(t), type](double v) {
    auto it = std::lower_bound(t.begin(), t.end(), v);
    if (it != t.end() && *it == v) return "kConst_[" + std::to_string(it - t.begin()) + "]";
    return literal(v, type);
  };
}

}  // namespace stnc::codegen
