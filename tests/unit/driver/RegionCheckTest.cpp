// driver/RegionCheck: `stnc run`'s warnings about regions at the run's extents.
#include <doctest/doctest.h>

#include "driver/RegionCheck.h"
#include "unit/TestUtil.h"

using namespace stnc;

namespace {

std::vector<std::string> warnings(const std::string& src, const std::vector<long>& n) {
  auto c = test::compileText(src);
  REQUIRE_MESSAGE(c->module, c->diagText());
  return driver::regionWarnings(c->module->kernels.front(), n);
}

}  // namespace

TEST_CASE("regionWarnings: disjoint regions at one size overlap at a smaller one") {
  // Along i, a = [2, n-20) and b = [20, n-2): apart for n = 37 (2..16 and 20..34), overlapping once n - 20 > 20.
  const std::string src =
      "stencil s(i, j) { in u; out v; region a = [2:-20, :]; region b = [20:-2, :];"
      " v @ a = u; v @ b = 2.0 * u; v = 3.0 * u; }";
  CHECK(warnings(src, {37, 8}).empty());
  const auto w = warnings(src, {41, 8});
  REQUIRE(w.size() == 1);
  CHECK(w[0] == "regions 'a' and 'b' overlap at 41x8: a point in both gets both updates, 'a' first");
}

TEST_CASE("regionWarnings: regions that cover the interior leave the default equations dead, and empty regions are said") {
  const std::string src =
      "stencil s(i, j) { in u; out v; region lo = [0:-4, :]; region hi = [4:0, :];"
      " v @ lo = u; v @ hi = 2.0 * u; v = 3.0 * u; }";
  // n = 8: lo = 0..3, hi = 4..7: together the interior, apart.
  auto w = warnings(src, {8, 5});
  REQUIRE(w.size() == 1);
  CHECK(w[0] == "the regions cover the whole interior at 8x5: the equations outside regions never run");
  // n = 6: lo = 0..1, hi = 4..5: rows 2 and 3 are the default part's.
  CHECK(warnings(src, {6, 5}).empty());
  // n = 4: lo is empty (0..-1), hi too (4..3): both said, and the default part covers everything.
  w = warnings(src, {4, 5});
  REQUIRE(w.size() == 2);
  CHECK(w[0] == "region 'lo' is empty at 4x5: its equations never run");
  CHECK(w[1] == "region 'hi' is empty at 4x5: its equations never run");
}

TEST_CASE("regionWarnings: no default equations, no regions, or a region without equations: nothing to say") {
  CHECK(warnings("stencil s(i) { in u; out v; region all = [:]; v @ all = u; }", {16}).empty());
  CHECK(warnings("stencil s(i, j, k) { in u; out v; v = u; }", {4, 4, 4}).empty());
  // `b` has no equations: its overlap with `a` changes nothing, but the default part still skips it.
  const auto w = warnings("stencil s(i) { in u; out v; region a = [0:-2]; region b = [2:0]; v @ a = u; v = 2.0 * u; }", {6});
  REQUIRE(w.size() == 1);
  CHECK(w[0] == "the regions cover the whole interior at 6: the equations outside regions never run");
}
