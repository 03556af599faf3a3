// driver/InferExtents: `stnc run` without --size takes the interior extents from the --in arrays' shapes.
#include <doctest/doctest.h>

#include "driver/InferExtents.h"
#include "unit/TestUtil.h"

using namespace stnc;

namespace {
const dag::Kernel& only(const test::Compiled& c) {
  REQUIRE_MESSAGE(c.module, c.diagText());
  REQUIRE(c.module->kernels.size() == 1);
  return c.module->kernels.front();
}
}  // namespace

TEST_CASE("inferExtents: a full-rank input without a boundary rule gives shape - 2*halo") {
  auto c = test::compileText("stencil s(i, j) { in u; out v; v = u[i-2,j] + u[i,j+1]; }");
  const dag::Kernel& k = only(*c);
  std::vector<long> n;
  std::string error;
  REQUIRE_MESSAGE(driver::inferExtents(k, {{k.fieldIndex("u"), "u.npy", {14, 9}}}, n, error), error);
  CHECK(n == std::vector<long>{10, 7});
  // An array too small for the halo says so.
  CHECK_FALSE(driver::inferExtents(k, {{k.fieldIndex("u"), "u.npy", {4, 9}}}, n, error));
  CHECK(error.find("along i it holds no interior point inside the halo of 2") != std::string::npos);
  // No input at all: --size is needed.
  CHECK_FALSE(driver::inferExtents(k, {}, n, error));
  CHECK(error == "give --size: no --in array fixes the extent along i, j");
}

TEST_CASE("inferExtents: a rule-filled field is ambiguous alone, another array or lower-rank fields decide") {
  auto c = test::compileText(
      "stencil s(i, j) { in u, w, cx(i); out v; boundary u = periodic;\n"
      "  v = u[i-1,j] + u[i,j+1] + w + cx[i+1]; }");
  const dag::Kernel& k = only(*c);
  std::vector<long> n;
  std::string error;
  CHECK_FALSE(driver::inferExtents(k, {{k.fieldIndex("u"), "u.npy", {8, 6}}}, n, error));
  CHECK(error.find("'u.npy' (u, shape (8, 6)) may be the interior or interior + 2*halo") != std::string::npos);
  // w has no rule: it decides (and the run's shape check then holds u to it).
  REQUIRE(driver::inferExtents(k, {{k.fieldIndex("u"), "u.npy", {8, 6}}, {k.fieldIndex("w"), "w.npy", {10, 8}}}, n,
                               error));
  CHECK(n == std::vector<long>{8, 6});
  // The lower-rank cx fixes i only.
  CHECK_FALSE(driver::inferExtents(k, {{k.fieldIndex("cx"), "cx.npy", {12}}}, n, error));
  CHECK(error.find("along j") != std::string::npos);
  CHECK(error.find("along i") == std::string::npos);
  // Pointwise (no halo): a rule-filled field's shape is the interior either way.
  auto p = test::compileText("stencil p(i, j) { in u; out v; boundary u = periodic; v = 2.0 * u; }");
  REQUIRE_MESSAGE(p->module, p->diagText());
  const dag::Kernel& pk = p->module->kernels.front();
  REQUIRE_MESSAGE(driver::inferExtents(pk, {{pk.fieldIndex("u"), "u.npy", {8, 6}}}, n, error), error);
  CHECK(n == std::vector<long>{8, 6});
  // A shape of the wrong rank is left to the run's shape check.
  CHECK_FALSE(driver::inferExtents(k, {{k.fieldIndex("w"), "w.npy", {10, 8, 3}}}, n, error));
}
