// driver/PointSources: what `stnc run --source FIELD@I,J=WAVE` becomes (the field index, the point and
// one wavelet value per step, in the order the C entry points take them) and each way it can be wrong.
#include <doctest/doctest.h>

#include <cstring>

#include "driver/Npy.h"
#include "driver/PointSources.h"
#include "unit/DagText.h"
#include "unit/codegen/CodegenTestUtil.h"

using namespace stnc;

namespace {

const char* const kHeat = "stencil h(i, j) : f32 { in u; out un; swap u, un; un = u + 0.25 * (u[i+1,j] - u); }";

// A 1-D .npy wavelet of float32 values.
std::string waveFile(test::TempDir& dir, const std::vector<float>& w) {
  driver::NpyArray a;
  a.descr = "<f4";
  a.shape = {static_cast<long>(w.size())};
  a.data.resize(w.size() * 4);
  std::memcpy(a.data.data(), w.data(), a.data.size());
  return dir.write("w.npy", driver::npyBytes(a));
}

std::string parseError(const dag::Kernel& k, long steps, const std::string& spec) {
  driver::PointSources s;
  std::string error;
  CHECK_FALSE(driver::parsePointSources(k, {8, 5}, steps, {spec}, s, error));
  return error;
}

}  // namespace

TEST_CASE("--source: field index and point per source, the wavelet's first `steps` values or a constant") {
  auto c = test::compileText(kHeat);
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = test::kernelOf(*c, "h");
  test::TempDir dir;
  const std::string w = waveFile(dir, {0.5f, -1.0f, 2.25f, 9.0f});
  driver::PointSources s;
  std::string error;
  REQUIRE_MESSAGE(driver::parsePointSources(k, {8, 5}, 3, {"un@7,0=" + w, "u@2,4=-0.125"}, s, error), error);
  CHECK(s.count == 2);
  CHECK(s.at == std::vector<long>{k.fieldIndex("un"), 7, 0, k.fieldIndex("u"), 2, 4});
  CHECK(s.wave == std::vector<double>{0.5, -1.0, 2.25, -0.125, -0.125, -0.125});
  REQUIRE(driver::parsePointSources(k, {8, 5}, 0, {}, s, error));  // no sources: nothing needed
  CHECK(s.count == 0);
}

TEST_CASE("--source errors name what is wrong") {
  auto c = test::compileText(kHeat);
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = test::kernelOf(*c, "h");
  CHECK(parseError(k, 0, "un@1,1=1").find("--steps") != std::string::npos);
  CHECK(parseError(k, 2, "w@1,1=1").find("no field 'w'") != std::string::npos);
  CHECK(parseError(k, 2, "un@1=1").find("1 coordinates; 'h' has 2 axes") != std::string::npos);
  CHECK(parseError(k, 2, "un@8,0=1").find("i = 8 is outside the interior [0, 8)") != std::string::npos);
  CHECK(parseError(k, 2, "un@1,1.5=1").find("'1.5' is not an integer") != std::string::npos);
  CHECK(parseError(k, 2, "un1,1=1").find("expected FIELD@i,j=") != std::string::npos);
  CHECK(parseError(k, 2, "un@1,1=").find("expected FIELD@i,j=") != std::string::npos);
  test::TempDir dir;
  CHECK(parseError(k, 5, "un@1,1=" + waveFile(dir, {1, 2, 3})).find("holds 3 values; --steps 5") != std::string::npos);
  CHECK(parseError(k, 2, "un@1,1=" + (dir.path / "none.npy").string()).find("none.npy") != std::string::npos);
}
