#include "lower/ConstantChecks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "support/Text.h"

namespace stnc::lower {

std::string formatNumber(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  if (std::fabs(v) < 1e15 && std::floor(v) == v) {  // whole numbers as written: 2000000000, not 2e+09
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  return shortestText(v);
}

void warnNotFiniteFold(const dag::Context& ctx, DiagEngine& diags, dag::NodeId result,
                       std::initializer_list<dag::NodeId> operands, Loc at) {
  if (result == dag::kNoNode || !ctx.isConst(result)) return;
  const dag::Node& n = ctx.node(result);
  auto finite = [&](dag::NodeId id) { return id == dag::kNoNode || !ctx.isConst(id) || std::isfinite(ctx.node(id).value); };
  if (n.type == dag::Type::Real && !std::isfinite(n.value) && std::all_of(operands.begin(), operands.end(), finite))
    diags.report(DiagId::warn_const_not_finite, at) << formatNumber(n.value);
}

void warnF32Range(const dag::Context& ctx, DiagEngine& diags, dag::NodeId value, const std::string& stencil, Loc at) {
  if (value == dag::kNoNode || !ctx.isConst(value) || ctx.node(value).type != dag::Type::Real) return;
  const double v = ctx.node(value).value;
  const float f = static_cast<float>(v);
  if (std::isfinite(v) && !std::isfinite(f))
    diags.report(DiagId::warn_const_f32_range, at) << formatNumber(v) << stencil << (v > 0 ? "inf" : "-inf");
  else if (v != 0 && f == 0)
    diags.report(DiagId::warn_const_f32_underflow, at) << formatNumber(v) << stencil << (v > 0 ? "0" : "-0");
}

}  // namespace stnc::lower
