// driver/RunData: `stnc run`'s .npy arrays into the generated layout and back, and params from text.
#include <doctest/doctest.h>

#include <cstring>

#include "driver/Npy.h"
#include "driver/RunData.h"
#include "unit/TestUtil.h"
#include "unit/codegen/CodegenTestUtil.h"

using namespace stnc;

namespace {

driver::NpyArray counting(std::vector<long> shape, double first) {
  driver::NpyArray a;
  a.descr = "<f8";
  a.shape = std::move(shape);
  std::vector<double> v(a.count());
  for (size_t i = 0; i < v.size(); ++i) v[i] = first + static_cast<double>(i);
  a.data.resize(v.size() * 8);
  std::memcpy(a.data.data(), v.data(), a.data.size());
  return a;
}

// The interior (n) of a full array (n + 2*halo) of a 2-D kernel with halo h along both axes.
driver::NpyArray interiorOf(const driver::NpyArray& full, long h) {
  driver::NpyArray a;
  a.descr = full.descr;
  a.shape = {full.shape[0] - 2 * h, full.shape[1] - 2 * h};
  for (long x = 0; x < a.shape[0]; ++x)
    a.data.insert(a.data.end(), full.data.begin() + ((x + h) * full.shape[1] + h) * 8,
                  full.data.begin() + ((x + h) * full.shape[1] + h + a.shape[1]) * 8);
  return a;
}

}  // namespace

TEST_CASE("RunData: a full-shaped input comes back as its interior, and a swap pair's partner starts as its copy") {
  auto c = test::compileText("stencil s(i, j) { in u; out w; swap u, w; w = u[i-1,j] + u[i,j+1]; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = c->module->kernels.front();
  test::TempDir dir;
  const driver::NpyArray u = counting({7, 5}, 1.0);  // 5x3 interior, halo 1
  const std::string path = dir.write("u.npy", driver::npyBytes(u));
  driver::RunData data;
  std::string error;
  REQUIRE_MESSAGE(data.allocate(k, {5, 3}, error), error);
  std::vector<driver::InputSpec> inputs;
  REQUIRE_MESSAGE(driver::parseInputSpecs(k, {"u=" + path}, inputs, error), error);
  REQUIRE_MESSAGE(data.load(inputs, error), error);
  const std::vector<void*> p = data.pointers();
  CHECK(data.interiorNpy(p[static_cast<size_t>(k.fieldIndex("u"))]) == driver::npyBytes(interiorOf(u, 1)));
  CHECK(data.interiorNpy(p[static_cast<size_t>(k.fieldIndex("w"))]) == driver::npyBytes(interiorOf(u, 1)));
}

TEST_CASE("RunData: shapes, dtypes, names and missing inputs are refused with the reason") {
  auto c = test::compileText("stencil s(i, j) { in u, v; out w; boundary v = periodic; w = u[i-1,j] + v[i,j+1]; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = c->module->kernels.front();
  test::TempDir dir;
  const std::string full = dir.write("full.npy", driver::npyBytes(counting({7, 5}, 0)));
  const std::string inner = dir.write("inner.npy", driver::npyBytes(counting({5, 3}, 0)));
  driver::NpyArray f32 = counting({7, 5}, 0);
  f32.descr = "<f4";
  f32.data.resize(f32.count() * 4);
  const std::string single = dir.write("single.npy", driver::npyBytes(f32));
  auto loadError = [&](const std::vector<std::string>& specs) {
    driver::RunData data;
    std::string error;
    REQUIRE(data.allocate(k, {5, 3}, error));
    std::vector<driver::InputSpec> inputs;
    CHECK_FALSE((driver::parseInputSpecs(k, specs, inputs, error) && data.load(inputs, error)));
    return error;
  };
  driver::RunData ok;
  std::string error;
  std::vector<driver::InputSpec> inputs;
  REQUIRE(ok.allocate(k, {5, 3}, error));
  REQUIRE_MESSAGE(driver::parseInputSpecs(k, {"u=" + full, "v=" + inner}, inputs, error), error);
  CHECK(inputs.size() == 2);
  CHECK(inputs[1].field == k.fieldIndex("v"));
  CHECK(inputs[1].file == inner);
  CHECK_MESSAGE(ok.load(inputs, error), error);  // v's halo comes from its rule
  CHECK(loadError({"u=" + inner, "v=" + full}).find("expected (7, 5) (interior + 2*halo)") != std::string::npos);
  CHECK(loadError({"u=" + full}) == "missing --in v=FILE.npy");
  CHECK(loadError({"u=" + single, "v=" + full}).find("has dtype <f4; stencil 's' is f64") != std::string::npos);
  CHECK(loadError({"w=" + full}) == "'w' is an output of 's', not an input");
  CHECK(loadError({"x=" + full}) == "'s' has no field 'x'");
  CHECK(loadError({"u"}) == "--in 'u': expected NAME=FILE.npy");
  CHECK(loadError({"u=" + full, "v=" + inner, "u=" + full}) == "--in u is given twice");
}

TEST_CASE("parseParams: every param once, numbers only, f32 range for f32 kernels") {
  auto c = test::compileText("stencil s(i) : f32 { in u; out w; param a, b; w = a * u + b; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = c->module->kernels.front();
  std::vector<double> v;
  std::string error;
  REQUIRE_MESSAGE(driver::parseParams(k, {"b=-0x1p-2", "a=2.5e1"}, v, error), error);
  CHECK(v == std::vector<double>{25.0, -0.25});
  CHECK_FALSE(driver::parseParams(k, {"a=1"}, v, error));
  CHECK(error == "missing --param b=VALUE");
  CHECK_FALSE(driver::parseParams(k, {"a=1", "b=1e39"}, v, error));
  CHECK(error.find("beyond the f32 range of stencil 's'") != std::string::npos);
  CHECK_FALSE(driver::parseParams(k, {"a=1", "b=1e999"}, v, error));
  CHECK(error == "--param b: '1e999' is beyond the float64 range");
  CHECK_FALSE(driver::parseParams(k, {"a=x", "b=1"}, v, error));
  CHECK(error == "--param a: 'x' is not a number");
  CHECK_FALSE(driver::parseParams(k, {"a=1", "b=2", "a=3"}, v, error));
  CHECK(error == "--param a is given twice");
  CHECK_FALSE(driver::parseParams(k, {"c=1"}, v, error));
  CHECK(error == "'s' has no param 'c'");
}
