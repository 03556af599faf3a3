// lower/ConstantChecks: the number spelling of diagnostics and the two constant warnings on their own
// (tests/diag/warn_not_finite.stn has them in programs).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "lower/ConstantChecks.h"

using namespace stnc;

namespace {

struct Checks {
  SourceManager sm;
  DiagEngine diags{sm};
  dag::Context ctx;
  Loc at{sm.add("test.stn", "b = a * c;\n"), 1, 5};
  int warnings() const { return diags.warningCount(); }
  std::string last() const { return diags.all().empty() ? "" : diags.all().back().message; }
};

}  // namespace

TEST_CASE("formatNumber: the shortest decimal that reads back, non-finite values by name") {
  CHECK(lower::formatNumber(0.1) == "0.1");
  CHECK(lower::formatNumber(2.5) == "2.5");
  CHECK(lower::formatNumber(1e39) == "1e+39");
  CHECK(lower::formatNumber(0.1 * 3) == "0.30000000000000004");
  CHECK(lower::formatNumber(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(lower::formatNumber(-std::numeric_limits<double>::infinity()) == "-inf");
  CHECK(lower::formatNumber(std::nan("")) == "NaN");
}

TEST_CASE("warnNotFiniteFold: only a fold that turned finite constants into inf or NaN") {
  Checks c;
  const double inf = std::numeric_limits<double>::infinity();
  const dag::NodeId big = c.ctx.constant(1e300), two = c.ctx.constant(2.0), infNode = c.ctx.constant(inf);
  const dag::NodeId overflow = c.ctx.apply(dag::Op::Mul, big, big);  // folds to inf
  lower::warnNotFiniteFold(c.ctx, c.diags, overflow, {big, big}, c.at);
  CHECK(c.warnings() == 1);
  CHECK(c.last() == "this constant expression evaluates to inf");
  // Already inf on the way in: reported where it became inf, not again.
  lower::warnNotFiniteFold(c.ctx, c.diags, c.ctx.apply(dag::Op::Mul, infNode, two), {infNode, two}, c.at);
  CHECK(c.warnings() == 1);
  // A finite fold, and a node that is not a constant.
  lower::warnNotFiniteFold(c.ctx, c.diags, c.ctx.apply(dag::Op::Mul, big, two), {big, two}, c.at);
  const dag::NodeId a = c.ctx.access(c.ctx.intern("a"), {});
  lower::warnNotFiniteFold(c.ctx, c.diags, c.ctx.apply(dag::Op::Mul, a, infNode), {a, infNode}, c.at);
  CHECK(c.warnings() == 1);
  lower::warnNotFiniteFold(c.ctx, c.diags, c.ctx.apply(dag::Op::Sqrt, c.ctx.constant(-1.0)), {c.ctx.constant(-1.0)}, c.at);
  CHECK(c.warnings() == 2);
  CHECK(c.last() == "this constant expression evaluates to NaN");
}

TEST_CASE("warnF32Range: finite constants that f32 cannot hold") {
  Checks c;
  lower::warnF32Range(c.ctx, c.diags, c.ctx.constant(3.4028234663852886e+38), "s", c.at);  // the largest f32
  lower::warnF32Range(c.ctx, c.diags, c.ctx.constant(1e-45), "s", c.at);                   // an f32 subnormal
  lower::warnF32Range(c.ctx, c.diags, c.ctx.constant(0.0), "s", c.at);
  lower::warnF32Range(c.ctx, c.diags, c.ctx.constant(std::numeric_limits<double>::infinity()), "s", c.at);
  CHECK(c.warnings() == 0);
  lower::warnF32Range(c.ctx, c.diags, c.ctx.constant(-1e39), "s", c.at);
  CHECK(c.warnings() == 1);
  CHECK(c.last() == "constant -1e+39 is beyond the f32 range: the f32 stencil 's' computes with -inf here");
}

TEST_CASE("warnF32Range: nonzero constants that f32 rounds to zero") {
  Checks c;
  lower::warnF32Range(c.ctx, c.diags, c.ctx.constant(1e-50), "s", c.at);
  CHECK(c.warnings() == 1);
  CHECK(c.last() == "constant 1e-50 is below the smallest f32 (1.4e-45): the f32 stencil 's' computes with 0 here");
  lower::warnF32Range(c.ctx, c.diags, c.ctx.constant(-5e-324), "s", c.at);  // the smallest float64 subnormal
  CHECK(c.warnings() == 2);
  CHECK(c.last() == "constant -5e-324 is below the smallest f32 (1.4e-45): the f32 stencil 's' computes with -0 here");
}
