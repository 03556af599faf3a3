// driver/CompareResults: how the autotuner decides that a candidate schedule computed the policy's
// results (bit for bit, NaN equal to NaN; a libm tolerance only for kernels that call libm).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "driver/CompareResults.h"
#include "unit/DagText.h"

using namespace stnc;

TEST_CASE("exact comparison: equal bits pass, one ulp and the sign of zero do not, NaN equals NaN") {
  std::vector<double> a = {1.0, -0.0, std::numeric_limits<double>::quiet_NaN(), 3.5};
  std::vector<double> b = a;
  CHECK(driver::compareValues(a.data(), b.data(), a.size(), 8, true).count == 0);
  b[2] = -std::numeric_limits<double>::quiet_NaN();  // another NaN: equal
  CHECK(driver::compareValues(a.data(), b.data(), a.size(), 8, true).count == 0);
  b[1] = 0.0;                           // +0 vs -0
  b[3] = std::nextafter(3.5, 4.0);      // one ulp
  driver::ValueDiff d = driver::compareValues(a.data(), b.data(), a.size(), 8, true);
  CHECK(d.count == 2);
  CHECK(d.first == 1);
  CHECK(driver::describe(d, a.size()).find("2 of 4 values differ (first at 1") == 0);
  b[1] = -0.0;
  d = driver::compareValues(a.data(), b.data(), a.size(), 8, true);
  CHECK(d.count == 1);
  CHECK(d.first == 3);
  CHECK(d.a == 3.5);
  CHECK(d.b == std::nextafter(3.5, 4.0));
}

TEST_CASE("libm tolerance: a few ulp pass, a real difference or a NaN against a number does not (f64 and f32)") {
  std::vector<double> a = {1e300, 2.0, 1.0};
  std::vector<double> b = {std::nextafter(1e300, 2e300), 2.0 + 1e-13, 1.0};
  CHECK(driver::compareValues(a.data(), b.data(), 3, 8, false).count == 0);
  CHECK(driver::compareValues(a.data(), b.data(), 3, 8, true).count == 2);
  b[2] = 1.001;
  CHECK(driver::compareValues(a.data(), b.data(), 3, 8, false).count == 1);
  b[2] = std::numeric_limits<double>::quiet_NaN();
  CHECK(driver::compareValues(a.data(), b.data(), 3, 8, false).count == 1);
  std::vector<float> x = {1.0f, 100.0f, std::numeric_limits<float>::infinity()};
  std::vector<float> y = {1.0f + 4e-6f, 100.0f, -std::numeric_limits<float>::infinity()};
  driver::ValueDiff d = driver::compareValues(x.data(), y.data(), 3, 4, false);
  CHECK(d.count == 1);  // the infinities of opposite sign
  CHECK(d.first == 2);
  y[0] = 1.001f;
  CHECK(driver::compareValues(x.data(), y.data(), 3, 4, false).count == 2);
}

TEST_CASE("callsLibm sees exp/log/pow/sin/cos in the live DAG only") {
  auto plain = test::compileText("stencil s(i) : f64 { in u; out v; v = sqrt(abs(u[i-1])) + u[i+1]; }\n");
  auto libm = test::compileText("stencil s(i) : f64 { in u; out v; v = u[i] + 0.5 * exp(u[i+1]); }\n");
  REQUIRE(plain->module);
  REQUIRE(libm->module);
  CHECK_FALSE(driver::callsLibm(plain->module->ctx, test::kernelOf(*plain, "s")));
  CHECK(driver::callsLibm(libm->module->ctx, test::kernelOf(*libm, "s")));
}
