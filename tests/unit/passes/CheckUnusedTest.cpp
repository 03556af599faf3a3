// passes/CheckUnused (and the unused-let check of the lowering): warnings for declared but unused
// inputs, params and lets; warnings never stop compilation unless they are errors (--Werror).
#include <doctest/doctest.h>

#include "unit/DagText.h"

using namespace stnc;
using test::diagsOf;

TEST_CASE("an input field that is never read is warned about at its declaration") {
  auto c = test::compileText("stencil s(i) {\n  in u, z;\n  out o;\n  o = u;\n}");
  REQUIRE_MESSAGE(c->module, c->diagText());
  CHECK(diagsOf(*c, Severity::Warning) == std::vector<std::string>{"2:9: input field 'z' is never read"});
  CHECK(c->diags.errorCount() == 0);
}

TEST_CASE("a param that is never used is warned about") {
  auto c = test::compileText("stencil s(i) { in u; out o; param dt, h; o = u * h; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  CHECK(diagsOf(*c, Severity::Warning) == std::vector<std::string>{"1:35: param 'dt' is never used"});
}

TEST_CASE("a let that is never used is warned about") {
  auto c = test::compileText("stencil s(i) { in u; out o; let t = u * 2; o = u; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  CHECK(diagsOf(*c, Severity::Warning) == std::vector<std::string>{"1:33: let 't' is never used"});
}

TEST_CASE("uses through defs, lets, indexed lets and selects count as uses") {
  auto c = test::compileText(
      "def f(x) = x[i-1];\n"
      "stencil s(i) { in a, b, c; out o; param p, q;\n"
      "  let t = c * q; o = f(a) + select(p > 0, b, t[i+1]); }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  CHECK(c->diags.warningCount() == 0);
}

TEST_CASE("a field read only by a folded-away expression is unused") {
  // select with a constant condition drops the untaken branch, so z is never loaded.
  auto c = test::compileText("stencil s(i) { in u, z; out o; o = select(1 < 2, u, z); }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  CHECK(diagsOf(*c, Severity::Warning) == std::vector<std::string>{"1:22: input field 'z' is never read"});
}

TEST_CASE("out and inout fields are not reported, and group kernels are not checked twice") {
  auto c = test::compileText(
      "stencil a(i) { in u, z; out x; inout w; x = u; w = 1; }\n"
      "stencil b(i) { in u; out y; y = u; }\n"
      "group g = a, b;\n");
  REQUIRE_MESSAGE(c->module, c->diagText());
  CHECK(diagsOf(*c, Severity::Warning) == std::vector<std::string>{"1:22: input field 'z' is never read"});
}

TEST_CASE("a param used directly as a boundary value is used") {
  auto c = test::compileText("stencil s(i) { in u; out o; param w; boundary u = value(w); o = u[i+1]; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  CHECK(c->diags.warningCount() == 0);
}

// Regression (fixed): CheckUnused looks only at the root node of a boundary value, not at its operands, so a
// param used inside a boundary expression (value(2 * w)) is reported as "param 'w' is never
// used" although the generated fill code reads it. Expected: no warning.
TEST_CASE("a param used inside a boundary value expression is used") {
  auto c = test::compileText("stencil s(i) { in u; out o; param w; boundary u = value(2 * w); o = u[i+1]; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  CHECK(diagsOf(*c, Severity::Warning).empty());
}

TEST_CASE("with warnings as errors an unused input stops compilation") {
  auto c = std::make_unique<test::Compiled>();
  c->diags.warningsAsErrors = true;
  std::string text = "stencil s(i) { in u, z; out o; o = u; }";
  LoadOptions lo;
  std::ostringstream log;
  passes::CompileResult r = passes::compileModule("test.stn", &text, lo, {}, c->sm, c->diags, log);
  CHECK_FALSE(r.module);
  CHECK(c->diags.errorCount() == 1);
  CHECK(c->diags.all().at(0).severity == Severity::Error);
}
