// passes/AlignRegion (--align-region): the interior column layout() aligns rows on, and why.
#include <doctest/doctest.h>

#include "passes/AlignRegion.h"
#include "unit/TestUtil.h"

using namespace stnc;

TEST_CASE("align-region: on aligns the rows on the region's first column, off says what on would do") {
  passes::ScheduleOverride on;
  on.alignRegion = "on";
  auto c = test::compileText(test::kAcousticShell, {}, on);
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = c->module->kernels.at(0);
  CHECK(k.alignColumn == 6);
  CHECK(k.alignWhy.find("rows align on interior column 6, region inner's first") != std::string::npos);
  auto d = test::compileText(test::kAcousticShell);
  REQUIRE_MESSAGE(d->module, d->diagText());
  CHECK(d->module->kernels.at(0).alignColumn == 0);
  CHECK(d->module->kernels.at(0).alignWhy.find("--align-region=on would align region inner's first column, 6") != std::string::npos);
  CHECK(passes::regionAlignColumn(d->module->kernels.at(0)) == 6);
}

TEST_CASE("align-region: the region that cuts least from the box decides, none without regions or at column 0") {
  passes::ScheduleOverride on;
  on.alignRegion = "on";
  auto c = test::compileText(
      "stencil s(i, j, k) : f64 { in u; out v; region a = [1:-1, 1:-1, 9:-1]; region b = [3:-3, 3:-3, 3:-3];\n"
      "  v @ a = u[i+1, j, k]; v @ b = u[i-1, j, k]; v = u; }",
      {}, on);
  REQUIRE_MESSAGE(c->module, c->diagText());
  CHECK(c->module->kernels.at(0).alignColumn == 9);  // a cuts 1+1+9+1+1+1 = 14 < b's 18
  auto z = test::compileText("stencil s(i, j) : f32 { in u; out v; region r = [1:-1, 0:-2]; v @ r = u[i+1, j]; v = u; }", {}, on);
  REQUIRE_MESSAGE(z->module, z->diagText());
  CHECK(z->module->kernels.at(0).alignColumn == 0);
  CHECK(z->module->kernels.at(0).alignWhy.find("starts at interior column 0") != std::string::npos);
  auto n = test::compileText("stencil s(i, j, k) : f64 { in u; out v; v = u[i+1, j, k]; }", {}, on);
  REQUIRE_MESSAGE(n->module, n->diagText());
  CHECK(n->module->kernels.at(0).alignColumn == 0);
  CHECK(n->module->kernels.at(0).alignWhy.empty());
}
