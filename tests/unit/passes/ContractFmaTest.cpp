// passes/ContractFma: a*b+c patterns become fma nodes only where the product has one use; the
// later term of a sum is fused first; subtraction negates exactly; the values are those of fma.
#include <doctest/doctest.h>

#include <cmath>

#include "unit/DagText.h"
#include "dag/Verifier.h"
#include "passes/ContractFma.h"

using namespace stnc;

namespace {

std::string contracted(const std::string& src, const std::string& kernel = "s") {
  auto c = test::compileText(src);
  REQUIRE_MESSAGE(c->module, c->diagText());
  passes::contractFma(*c->module, c->diags);
  const dag::Kernel& k = test::kernelOf(*c, kernel);
  REQUIRE(dag::verifyModule(*c->module).empty());
  return test::tree(c->module->ctx, k.outputs.at(0).value, k.rank());
}

}  // namespace

TEST_CASE("a sum of products becomes a chain of fma, the newest term fused first") {
  CHECK(contracted("stencil s(i) : f64 { in a; in b; out v; v = 2.0*a[i-1] + 3.0*a[i] + 4.0*b[i+1]; }") ==
        "fma(4, b[1], fma(3, a[0], (2 * a[-1])))");
}

TEST_CASE("subtractions fuse with an exact negation") {
  CHECK(contracted("stencil s(i) : f64 { in a; in b; out v; v = a[i] - b[i]*a[i+1]; }") ==
        "fma(-b[0], a[1], a[0])");
  CHECK(contracted("stencil s(i) : f64 { in a; in b; out v; v = b[i]*a[i+1] - a[i]; }") ==
        "fma(b[0], a[1], -a[0])");
  // a constant factor is negated by folding, not by a node
  CHECK(contracted("stencil s(i) : f64 { in a; out v; v = a[i] - 0.5*a[i+1]; }") == "fma(-0.5, a[1], a[0])");
}

TEST_CASE("a product with two uses is computed once, not fused") {
  CHECK(contracted("stencil s(i) : f64 { in a; in b; out v; let p = a[i]*b[i]; v = (p + a[i+1]) / (p - b[i+1]); }") ==
        "(((a[0] * b[0]) + a[1]) / ((a[0] * b[0]) - b[1]))");
  // the single-use product p*a[i+1] still fuses, with the shared p as its operand and addend
  CHECK(contracted("stencil s(i) : f64 { in a; in b; out v; let p = a[i]*b[i]; v = p + p*a[i+1]; }") ==
        "fma((a[0] * b[0]), a[1], (a[0] * b[0]))");
}

TEST_CASE("nothing to fuse leaves the expression as it was") {
  CHECK(contracted("stencil s(i) : f64 { in a; out v; v = (a[i-1] + a[i+1]) / 2.0; }") == "((a[-1] + a[1]) / 2)");
}

TEST_CASE("constant folding of fma rounds once") {
  dag::Context c;
  const double a = 1.0 + std::ldexp(1.0, -30), b = 1.0 - std::ldexp(1.0, -30), d = -1.0;
  dag::NodeId f = c.apply(dag::Op::Fma, c.constant(a), c.constant(b), c.constant(d));
  REQUIRE(c.isConst(f));
  CHECK(c.node(f).value == std::fma(a, b, d));
  CHECK(c.node(f).value != a * b + d);  // the unfused form rounds the product away
}
