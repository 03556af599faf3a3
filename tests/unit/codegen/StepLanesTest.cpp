// codegen/cuda, step(): the launches of a region kernel's parts go to lanes of their own (stnc_rt::Lanes),
// forked from and joined back into the step's stream inside the captured graph; kernels without regions
// keep one stream. The GPU checks the results bit for bit (samples/acoustic --check, scripts/gpu-check.sh).
#include <doctest/doctest.h>

#include "unit/codegen/CodegenTestUtil.h"

using namespace stnc;

namespace {

std::string cudaOf(const char* src) {
  auto c = test::compileText(src);
  REQUIRE_MESSAGE(c->module, c->diagText());
  return test::generateAll(*c->module).at(".cu");
}

size_t at(const std::string& text, const std::string& what, size_t from = 0) {
  const size_t p = text.find(what, from);
  REQUIRE_MESSAGE(p != std::string::npos, "missing: " << what);
  return p;
}

}  // namespace

TEST_CASE("a region kernel's step spreads its part launches over one lane each, inside the captured graph") {
  const std::string cu = cudaOf(test::kAcousticShell);
  // The region takes lane 0, the default part's boxes (six around the region in 3-D) lanes 1 + b_.
  at(cu, "launchPart_inner(L_, b_, u, roc2, eta, v, phi, stnc_rt::laneOf(lanes_, stream_, 0))");
  at(cu, "launchPart(L_, boxes_[b_], u, roc2, eta, v, phi, stnc_rt::laneOf(lanes_, stream_, 1 + b_))");
  const size_t step = at(cu, "cudaError_t step(");
  const size_t create = at(cu, "e_ = stnc_rt::lanesCreate(lanes_, 7);", step);
  // Fork, the sweep on the lanes, join: then the point sources (which may hit any part's points).
  const size_t fork = at(cu, "e_ = stnc_rt::lanesFork(lanes_, st_);", step);
  const size_t sweep = at(cu, "e_ = launchSweep(L_, stnc_rt::interiorBox(L_), u, roc2, eta, v, phi, st_, &lanes_);", step);
  const size_t join = at(cu, "e_ = stnc_rt::lanesJoin(lanes_, st_);", step);
  const size_t sources = at(cu, "addSources<<<1, 1, 0, st_>>>", step);
  CHECK(create < fork);
  CHECK(fork < sweep);
  CHECK(sweep < join);
  CHECK(join < sources);
  // Lanes only for runs that capture a graph, released with it.
  CHECK(cu.find("if (e_ == cudaSuccess && rest_ >= 4) e_ = stnc_rt::lanesCreate") != std::string::npos);
  CHECK(cu.find("stnc_rt::lanesDestroy(lanes_);", join) != std::string::npos);
  // sweep() and sweep_box() (one sweep on the caller's stream) keep one stream.
  const size_t sw = at(cu, "cudaError_t sweep(");
  const std::string sweepFn = cu.substr(sw, at(cu, "}  // sweep", sw) - sw);
  CHECK(sweepFn.find("lanes_") == std::string::npos);
}

TEST_CASE("lanes: one per possible launch, 1 + 2 x rank per region, at most eight") {
  const std::string two = cudaOf(
      "stencil s(i, j) : f32 { in u; inout v; region a = [2:-2, 2:-2];\n"
      "  v @ a = u[i+1, j] + u[i-1, j];\n  v = u; }");
  CHECK(two.find("e_ = stnc_rt::lanesCreate(lanes_, 5);") != std::string::npos);
  const std::string many = cudaOf(
      "stencil s(i, j, k) : f64 { in u; inout v; region a = [2:-2, 2:-2, 2:-2]; region b = [1:-1, 1:-1, 1:-1];\n"
      "  v @ a = u[i+1, j, k] + u[i-1, j, k];\n  v @ b = 2.0 * u;\n  v = u; }");
  // Two regions may overlap (on small grids, or as written: these do): then one stream, checked per call.
  CHECK(many.find("static constexpr int kRegionLo_[][3] = {{2, 2, 2}, {1, 1, 1}}, kRegionHi_[][3] = {{-2, -2, -2}, {-1, -1, -1}};") !=
        std::string::npos);
  CHECK(many.find("if (e_ == cudaSuccess && rest_ >= 4 && stnc_rt::regionsApart(L_, kRegionLo_, kRegionHi_, 2)) e_ = "
                  "stnc_rt::lanesCreate(lanes_, 8);") != std::string::npos);
  CHECK(many.find("stnc_rt::laneOf(lanes_, stream_, 1)") != std::string::npos);  // region b
}

TEST_CASE("a kernel without regions launches on the step's stream only") {
  const std::string cu = cudaOf("stencil s(i, j, k) : f64 { in u; out w; w = u[i+1, j, k] + u[i-1, j, k]; }");
  CHECK(cu.find("cudaStreamBeginCapture") != std::string::npos);
  // (The runtime embedded in every .cu defines stnc_rt::Lanes; the step does not use it.)
  CHECK(cu.find("stnc_rt::laneOf(") == std::string::npos);
  CHECK(cu.find("lanes_") == std::string::npos);
}
