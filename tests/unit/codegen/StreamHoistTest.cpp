// The CUDA stream kernels' plane loop (codegen/cuda/StreamKernel): what leaves it. Lower-rank fields that do not
// vary along dim 0, and the arithmetic on them alone, are computed once per thread before the loop; a lower-rank
// field that varies along dim 0 and is read at several dim-0 offsets is kept in a register queue (one load per
// plane). The CPU backend's loops are unchanged. (Bit for bit on the GPU: tests/e2e lowerrank.stn through
// scripts/gpu/e2e-cuda.sh.)
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "unit/codegen/CodegenTestUtil.h"

using namespace stnc;

namespace {

// The text of the first kernel named `name` in a CUDA file: from its __global__ line to the next one.
std::string kernelText(const std::string& cu, const std::string& name) {
  const size_t at = cu.find(" " + name + "(");
  REQUIRE(at != std::string::npos);
  const size_t begin = cu.rfind("__global__", at);
  const size_t end = cu.find("__global__", at);
  return cu.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

// The generated files of `src` and its default part's stream kernel, split at the plane loop.
struct PlaneLoop {
  std::map<std::string, std::string> files;
  std::string before, in;
  explicit PlaneLoop(const std::string& src) : files(test::generateAll(*test::compileText(src)->module)) {
    const std::string k = kernelText(files.at(".cu"), "sweepPart");
    const size_t loop = k.find("for (long x_ = x0_;");
    REQUIRE(loop != std::string::npos);
    before = k.substr(0, loop), in = k.substr(loop);
  }
};

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("arithmetic on lower-rank fields constant along dim 0 leaves the plane loop") {
  // (cy + cz) and cy[j+1] * 2 do not vary along i; u * ... and cx + ... do. g * g (params only) stays: nvcc hoists it.
  const PlaneLoop p(
      "stencil hs(i, j, k) : f32 { in u, cx(i), cy(j), cz(k); out o; param g;\n"
      "  o = u[i-1,j,k] * (cy + cz) + u[i+1,j,k] * (cy[j+1] * 2.0) + (cx + cz) * u + g * g * u[i,j,k+1]; }\n");
  const std::string &before = p.before, &in = p.in;
  CHECK(before.find("computed once per thread before the plane loop") != std::string::npos);
  CHECK(before.find(" = cy_0_0_0_ + cz_0_0_0_;") != std::string::npos);
  CHECK(before.find(" = cy_0_1_0_ * 2.0f;") != std::string::npos);
  CHECK(in.find("cy_0_0_0_ + cz_0_0_0_") == std::string::npos);  // not computed again in the loop
  CHECK(in.find(" = cx_0_0_0_ + cz_0_0_0_;") != std::string::npos);  // varies along i: in the loop
  CHECK(before.find("g * g") == std::string::npos);
  CHECK(in.find("g * g") != std::string::npos);
  // The CPU loops keep every operation at its point.
  const std::string cpp = p.files.at(".cpp");
  CHECK(cpp.find("computed once per thread") == std::string::npos);
  CHECK(count(cpp, "cy_0_0_0_ + cz_0_0_0_") >= 1);
}

TEST_CASE("a lower-rank field read at several dim-0 offsets is a register queue: one load per plane") {
  const PlaneLoop p(
      "stencil qs(i, j, k) : f32 { in u, ex(i), w(i, k); out o;\n"
      "  o = (ex[i+1] - ex[i-1]) * (u[i+1,j,k] - u[i-1,j,k]) + ex * u + w[i+1,k] * u[i,j,k+1]; }\n");
  const std::string &before = p.before, &in = p.in;
  // ex: slots i-1 and i loaded before the loop (as the first plane names them), i+1 each plane, then shifted.
  CHECK(before.find("float bq0_m1_, bq0_0_;") != std::string::npos);
  CHECK(before.find("bq0_m1_ = ex[stnc_rt::lowerAt<1u, true, 1u>(L_, x_ - 1, 0, 0)];") != std::string::npos);
  CHECK(count(in, "ex[stnc_rt::lowerAt") == 1);
  CHECK(in.find("const float bq0_1_ = ex[stnc_rt::lowerAt<1u, true, 1u>(L_, x_ + 1, 0, 0)];") != std::string::npos);
  CHECK(in.find("const float ex_m1_0_0_ = bq0_m1_;") != std::string::npos);
  CHECK(in.find("bq0_m1_ = bq0_0_; bq0_0_ = bq0_1_;") != std::string::npos);
  // w is read at one dim-0 offset: a plain load per plane, no queue.
  CHECK(in.find("w[stnc_rt::lowerAt<5u, true, 1u>(L_, x_ + 1, 0, z_)]") != std::string::npos);
  CHECK((before + in).find("bq1_") == std::string::npos);
  // The CPU loops read every offset where it is used.
  CHECK(p.files.at(".cpp").find("bq0_") == std::string::npos);
}
