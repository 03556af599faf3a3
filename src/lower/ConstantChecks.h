// lower/ConstantChecks: constants that are not finite where the generated code uses them. Constants fold in
// float64, then round once to the stencil's type (docs/LANGUAGE.md), so two things can go wrong silently:
//   - a fold of finite constants gives inf or NaN: sqrt(-1.0), log(0.0), exp(1000.0), 1e300 * 1e300
//     (warn_const_not_finite, where the fold happens);
//   - in an f32 stencil, a finite constant beyond the f32 range meets a field, param or let and is inf there
//     (warn_const_f32_range, where it is used; folds in between may bring it back: 1e30 * 1e30 / 1e30 is fine),
//     or a nonzero one below the smallest f32 subnormal is 0 there (warn_const_f32_underflow).
// The lowering (lower/AstToDag) calls these after each apply or select it builds.
#pragma once
#include <initializer_list>
#include <string>

#include "dag/Context.h"
#include "support/Diagnostics.h"

namespace stnc::lower {

// The shortest decimal that reads back as v (whole numbers below 1e15 in full); inf, -inf and NaN by name (for
// diagnostics).
std::string formatNumber(double v);

// `result` was built from `operands`: warns at `at` if it is a constant that is not finite although every
// constant operand was.
void warnNotFiniteFold(const dag::Context& ctx, DiagEngine& diags, dag::NodeId result,
                       std::initializer_list<dag::NodeId> operands, Loc at);

// In f32 stencil `stencil`, `value` used at `at`: warns if it is a finite constant beyond the f32 range, or a
// nonzero one that rounds to 0 in f32.
void warnF32Range(const dag::Context& ctx, DiagEngine& diags, dag::NodeId value, const std::string& stencil, Loc at);

}  // namespace stnc::lower
