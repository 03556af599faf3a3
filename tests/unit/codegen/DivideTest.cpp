// Division in generated CUDA code (session 10): the CUDA backend prints a / b as stnc_rt::divide(a, b),
// which returns the signed zero for a zero numerator without dividing (nvcc's IEEE division takes a slow
// subroutine there) and divides otherwise; the CPU backend keeps `/`. The function is host/device code in
// the shared runtime header, so its results are checked here bit for bit against IEEE division.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "unit/DagText.h"
#include "unit/codegen/CodegenTestUtil.h"
#include "codegen/runtime/stnc_runtime.h"

using namespace stnc;

namespace {

template <typename T>
bool sameBits(T a, T b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }

template <typename T>
std::vector<T> operands() {
  using L = std::numeric_limits<T>;
  return {T(0), -T(0), T(1), -T(1), T(0.1), -T(3.5), L::infinity(), -L::infinity(), L::quiet_NaN(), -L::quiet_NaN(),
          L::denorm_min(), -L::denorm_min(), L::min(), L::max(), -L::max(), L::epsilon()};
}

template <typename T>
void checkAllPairs() {
  for (T a : operands<T>())
    for (T b : operands<T>()) {
      CAPTURE(a);
      CAPTURE(b);
      const T want = a / b, got = stnc_rt::divide(a, b);
      if (std::isnan(want))
        CHECK(std::isnan(got));  // NaN payloads are whatever the division produces (it runs for NaN operands)
      else
        CHECK(sameBits(got, want));
    }
}

}  // namespace

TEST_CASE("stnc_rt::divide gives a / b bit for bit: signed zeros, infinities, NaN, subnormals") {
  checkAllPairs<float>();
  checkAllPairs<double>();
  // The shortcut's cases spelled out: the sign of a zero quotient is sign(a) XOR sign(b).
  CHECK(std::signbit(stnc_rt::divide(-0.0f, 2.0f)));
  CHECK_FALSE(std::signbit(stnc_rt::divide(-0.0, -2.0)));
  CHECK(std::signbit(stnc_rt::divide(0.0, -std::numeric_limits<double>::infinity())));
  CHECK(std::isnan(stnc_rt::divide(0.0f, 0.0f)));  // 0 / 0 still divides
}

TEST_CASE("the CUDA backend prints divisions as stnc_rt::divide, the CPU backend as /") {
  auto c = test::compileText(
      "stencil d(i, j, k) : f32 { in a, b; out q, h; param s; q = a / (1.0 + b[i+1,j,k]); h = a / 4.0 + s / 3.0; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  auto files = test::generateAll(*c->module);
  const std::string& cu = files[".cu"];
  const std::string& cpp = files[".cpp"];
  CHECK(cu.find("stnc_rt::divide(") != std::string::npos);
  CHECK(cpp.find("stnc_rt::divide(") == std::string::npos);
  CHECK(cpp.find(" / ") != std::string::npos);
  // Every runtime division of the CUDA kernels goes through divide: no `/` between two temporaries or loads.
  size_t kernels = cu.find("__global__ void __launch_bounds__");
  REQUIRE(kernels != std::string::npos);
  for (size_t at = cu.find("const float t", kernels); at != std::string::npos; at = cu.find("const float t", at + 1)) {
    const std::string line = cu.substr(at, cu.find('\n', at) - at);
    CAPTURE(line);
    CHECK(line.find(" / ") == std::string::npos);
  }
}
