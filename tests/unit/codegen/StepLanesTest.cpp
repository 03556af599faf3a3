// codegen/cuda: the launches of a region kernel's parts go to lanes of their own (stnc_rt::Lanes, per host
// thread and device), forked from and joined back into the caller's stream by every sweep, sweep_box and
// step (parallel branches of the step's graph); kernels without regions keep one stream. The GPU checks
// the results bit for bit (samples/acoustic --check, scripts/gpu-check.sh).
#include <doctest/doctest.h>

#include "unit/codegen/CodegenTestUtil.h"
#include "codegen/runtime/stnc_runtime.h"

using namespace stnc;

namespace {

size_t at(const std::string& text, const std::string& what, size_t from = 0) {
  const size_t p = text.find(what, from);
  REQUIRE_MESSAGE(p != std::string::npos, "missing: " << what);
  return p;
}

// The text of generated function `name` (from its signature to its closing comment).
std::string function(const std::string& cu, const std::string& name) {
  const size_t a = at(cu, "cudaError_t " + name + "(");
  return cu.substr(a, at(cu, "}  // " + name, a) - a);
}

}  // namespace

TEST_CASE("a region kernel's sweeps spread their part launches over one lane each, forked and joined on the caller's stream") {
  const std::string cu = test::cudaOf(test::kAcousticShell);
  // The region takes lane 0, the default part's boxes (six around the region in 3-D) lanes 1 + b_.
  const std::string sweep = function(cu, "launchSweep");
  at(sweep, "launchPart_inner(L_, b_, u, roc2, eta, v, phi, stnc_rt::laneOf(lanes_, stream_, 0))");
  at(sweep, "launchPart(L_, boxes_[b_], u, roc2, eta, v, phi, stnc_rt::laneOf(lanes_, stream_, 1 + b_))");
  // Seven lanes for one region in 3-D; without them (no streams) one stream; fork, launches, join.
  const std::string lanes = function(cu, "launchSweepOnLanes");
  const size_t get = at(lanes, "stnc_rt::Lanes* const lanes_ = stnc_rt::threadLanes(7);");
  const size_t fallback = at(lanes, "if (!lanes_) return launchSweep(L_, clip_, u, roc2, eta, v, phi, stream_);");
  const size_t fork = at(lanes, "cudaError_t e_ = stnc_rt::lanesFork(*lanes_, stream_);");
  const size_t run = at(lanes, "if (e_ == cudaSuccess) e_ = launchSweep(L_, clip_, u, roc2, eta, v, phi, stream_, lanes_);");
  const size_t join = at(lanes, "const cudaError_t join_ = stnc_rt::lanesJoin(*lanes_, stream_);");
  CHECK(get < fallback);
  CHECK(fallback < fork);
  CHECK(fork < run);
  CHECK(run < join);
  // Every entry point goes through the lanes; in step(), before the point sources (which may hit any part).
  at(function(cu, "sweep"), "return launchSweepOnLanes(L_, stnc_rt::interiorBox(L_), u, roc2, eta, v, phi, stream_);");
  at(function(cu, "sweep_box"), "return launchSweepOnLanes(L_, stnc_rt::intersect(stnc_rt::interiorBox(L_), boxOf(lo_, hi_)), ");
  const std::string step = function(cu, "step");
  CHECK(at(step, "e_ = launchSweepOnLanes(L_, stnc_rt::interiorBox(L_), u, roc2, eta, v, phi, st_);") <
        at(step, "addSources<<<1, 1, 0, st_>>>"));
  CHECK(step.find("launchSweep(") == std::string::npos);
}

TEST_CASE("lanes: one per possible launch, 1 + 2 x rank per region, at most eight, none for overlapping regions") {
  const std::string two = test::cudaOf(
      "stencil s(i, j) : f32 { in u; inout v; region a = [2:-2, 2:-2];\n"
      "  v @ a = u[i+1, j] + u[i-1, j];\n  v = u; }");
  CHECK(two.find("stnc_rt::Lanes* const lanes_ = stnc_rt::threadLanes(5);") != std::string::npos);
  const std::string many = test::cudaOf(
      "stencil s(i, j, k) : f64 { in u; inout v; region a = [2:-2, 2:-2, 2:-2]; region b = [1:-1, 1:-1, 1:-1];\n"
      "  v @ a = u[i+1, j, k] + u[i-1, j, k];\n  v @ b = 2.0 * u;\n  v = u; }");
  // Two regions may overlap (on small grids, or as written: these do): then one stream, checked per call.
  CHECK(many.find("static constexpr int kRegionLo_[][3] = {{2, 2, 2}, {1, 1, 1}}, kRegionHi_[][3] = {{-2, -2, -2}, {-1, -1, -1}};") !=
        std::string::npos);
  CHECK(many.find("stnc_rt::Lanes* const lanes_ = stnc_rt::regionsApart(L_, kRegionLo_, kRegionHi_, 2) ? stnc_rt::threadLanes(8) : nullptr;") !=
        std::string::npos);
  CHECK(many.find("stnc_rt::laneOf(lanes_, stream_, 1)") != std::string::npos);  // region b
}

TEST_CASE("a kernel without regions launches on the caller's stream only") {
  const std::string cu = test::cudaOf("stencil s(i, j, k) : f64 { in u; out w; w = u[i+1, j, k] + u[i-1, j, k]; }");
  CHECK(cu.find("cudaStreamBeginCapture") != std::string::npos);
  // (The runtime embedded in every .cu defines stnc_rt::Lanes; the kernel's code does not use it.)
  CHECK(cu.find("stnc_rt::laneOf(") == std::string::npos);
  CHECK(cu.find("launchSweepOnLanes") == std::string::npos);
  CHECK(cu.find("lanes_") == std::string::npos);
}

TEST_CASE("cuda::add_sources: declared in the header, defined in the .cu with its checks, one ordered launch per source") {
  auto c = test::compileText(test::kAcousticShell);
  REQUIRE_MESSAGE(c->module, c->diagText());
  const auto files = test::generateAll(*c->module);
  CHECK(files.at(".h").find("cudaError_t add_sources(const stnc_rt::Layout& L_, real* const* fields_, const Source* sources_, int nsources_, long t_,") !=
        std::string::npos);
  const std::string fn = function(files.at(".cu"), "add_sources");
  const size_t args = at(fn, "if (!fields_ || nsources_ < 0 || (nsources_ > 0 && !sources_) || t_ < 0) return cudaErrorInvalidValue;");
  const size_t bounds = at(fn, "if (int s_ = checkSources(L_, sources_, nsources_)) return toCuda(s_);");
  const size_t add = at(fn, "addPoint<<<1, 1, 0, stream_>>>(fields_[sources_[q_].field] + sourceIndex(L_, sources_[q_]), sources_[q_].wavelet + t_);");
  CHECK(args < bounds);
  CHECK(bounds < add);
}

TEST_CASE("stnc_rt::regionsApart: regions clipped to the interior, apart or sharing a point, decided per layout") {
  stnc_rt::Layout L{};
  const long n37[3] = {37, 19, 23};
  const int halo[3] = {1, 1, 1};
  REQUIRE(stnc_rt::makeLayout(n37, halo, 8, L));
  // tests/gpu/tworegions.stn's regions: [2, 17) and [20, 35) along i at 37 points; [2, 27) and [12, 35).
  static constexpr int apartLo[][3] = {{2, 1, 1}, {20, 2, 0}}, apartHi[][3] = {{-20, -1, -1}, {-2, -2, 0}};
  static constexpr int overlapLo[][3] = {{2, 1, 1}, {12, 2, 0}}, overlapHi[][3] = {{-10, -1, -1}, {-2, -2, 0}};
  CHECK(stnc_rt::regionsApart(L, apartLo, apartHi, 2));
  CHECK_FALSE(stnc_rt::regionsApart(L, overlapLo, overlapHi, 2));
  // The same bounds overlap on a grid of 64 points along i ([2, 44) and [20, 62)): the check is per call.
  const long n64[3] = {64, 19, 23};
  REQUIRE(stnc_rt::makeLayout(n64, halo, 8, L));
  CHECK_FALSE(stnc_rt::regionsApart(L, apartLo, apartHi, 2));
  // Touching is not sharing (hi is exclusive); one region, or none, is always apart.
  static constexpr int touchLo[][3] = {{0, 0, 0}, {32, 0, 0}}, touchHi[][3] = {{-32, 0, 0}, {0, 0, 0}};
  CHECK(stnc_rt::regionsApart(L, touchLo, touchHi, 2));
  CHECK(stnc_rt::regionsApart(L, overlapLo, overlapHi, 1));
  CHECK(stnc_rt::regionsApart(L, overlapLo, overlapHi, 0));
  // A region clipped away by a small grid shares nothing.
  const long n8[3] = {8, 19, 23};
  REQUIRE(stnc_rt::makeLayout(n8, halo, 8, L));
  static constexpr int farLo[][3] = {{2, 0, 0}, {12, 0, 0}}, farHi[][3] = {{0, 0, 0}, {0, 0, 0}};
  CHECK(stnc_rt::regionsApart(L, farLo, farHi, 2));
}
