// driver/Autotune: the schedules file (fingerprints, applying saved schedules); the timing itself
// needs a GPU and runs in scripts/bench.sh --autotune.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "unit/DagText.h"
#include "driver/Autotune.h"

using namespace stnc;

namespace {

const char* kStar =
    "stencil s(i, j, k) : f64 { in u; out v; v = u[i-1,j,k] + u[i+1,j,k] + u[i,j,k-1]; }\n";

std::string savedFile(const std::string& fingerprint, const std::string& schedule) {
  return "{\"kernels\": {\"s\": {\"fingerprint\": \"" + fingerprint + "\", \"schedule\": " + schedule + "}}}";
}

}  // namespace

TEST_CASE("a kernel's fingerprint ignores other kernels of the file but not its own computation") {
  auto a = test::compileText(kStar);
  auto b = test::compileText(std::string("stencil t(i) : f64 { in w; out z; z = w[i+1]; }\n") + kStar);
  auto c = test::compileText("stencil s(i, j, k) : f64 { in u; out v; v = u[i-1,j,k] + u[i+1,j,k] + u[i,j,k+1]; }\n");
  REQUIRE(a->module);
  REQUIRE(b->module);
  REQUIRE(c->module);
  const std::string fa = driver::kernelFingerprint(*a->module, test::kernelOf(*a, "s"));
  CHECK(fa == driver::kernelFingerprint(*b->module, test::kernelOf(*b, "s")));
  CHECK(fa != driver::kernelFingerprint(*c->module, test::kernelOf(*c, "s")));
}

TEST_CASE("a saved schedule applies to the same kernel only") {
  auto a = test::compileText(kStar);
  REQUIRE(a->module);
  const std::string fp = driver::kernelFingerprint(*a->module, test::kernelOf(*a, "s"));
  std::string err;
  CHECK(driver::applySchedules(*a->module,
                               savedFile(fp, "{\"strategy\": \"stream\", \"block\": \"32x8\", \"rows\": 2, \"prefetch\": 1}"),
                               err) == 1);
  const dag::Schedule& s = test::kernelOf(*a, "s").schedule;
  CHECK(s.strategy == dag::Strategy::Stream);
  CHECK(s.blockY == 8);
  CHECK(s.rows == 2);
  CHECK(s.prefetch == 1);
  // A stale fingerprint leaves the policy's schedule.
  auto b = test::compileText(kStar);
  REQUIRE(b->module);
  const dag::Schedule before = test::kernelOf(*b, "s").schedule;
  CHECK(driver::applySchedules(*b->module, savedFile("0000", "{\"strategy\": \"naive\", \"block\": \"32x8\"}"), err) == 0);
  CHECK(test::kernelOf(*b, "s").schedule.strategy == before.strategy);
}

TEST_CASE("malformed schedules files are errors") {
  auto a = test::compileText(kStar);
  REQUIRE(a->module);
  const std::string fp = driver::kernelFingerprint(*a->module, test::kernelOf(*a, "s"));
  std::string err;
  CHECK(driver::applySchedules(*a->module, "{not json", err) < 0);
  CHECK(driver::applySchedules(*a->module, "{\"other\": 1}", err) < 0);
  CHECK(driver::applySchedules(*a->module, savedFile(fp, "{\"strategy\": \"diagonal\", \"block\": \"32x8\"}"), err) < 0);
  CHECK(driver::applySchedules(*a->module, savedFile(fp, "{\"strategy\": \"stream\", \"block\": \"33x8\"}"), err) < 0);
  CHECK(driver::applySchedules(*a->module, savedFile(fp, "{\"strategy\": \"stream\", \"block\": \"32x8\", \"rows\": 99}"), err) < 0);
}

TEST_CASE("a saved sumfactor schedule applies to a factored kernel, and is skipped for one compiled without --factor-sums") {
  const std::string box =
      "stencil s(i, j, k) : f64 { in u; out v;\n"
      "  v = sum(a in -2..2) (sum(b in -2..2) (sum(c in -2..2) 1.0 / (1.0 + a * a + b * b + c * c) * u[i+a, j+b, k+c])); }";
  passes::ScheduleOverride on;
  on.factorSums = true;
  auto f = test::compileText(box, {}, on);
  REQUIRE_MESSAGE(f->module, f->diagText());
  REQUIRE(test::kernelOf(*f, "s").sumFactor);
  const std::string saved = "{\"strategy\": \"sumfactor\", \"block\": \"16x8\", \"rows\": 2, \"vec\": 2, \"prefetch\": 3}";
  std::string err;
  CHECK(driver::applySchedules(*f->module, savedFile(driver::kernelFingerprint(*f->module, test::kernelOf(*f, "s")), saved), err) == 1);
  CHECK(test::kernelOf(*f, "s").schedule.strategy == dag::Strategy::SumFactor);
  CHECK(test::kernelOf(*f, "s").schedule.rows == 2);
  // The same entry for the kernel compiled without the flag (a saved file copied by hand): not applied.
  auto plain = test::compileText(box);
  REQUIRE_MESSAGE(plain->module, plain->diagText());
  CHECK(driver::applySchedules(*plain->module, savedFile(driver::kernelFingerprint(*plain->module, test::kernelOf(*plain, "s")), saved), err) == 0);
  CHECK(test::kernelOf(*plain, "s").schedule.strategy == dag::Strategy::Stream);
}

TEST_CASE("a saved schedule does not replace the one the source gives") {
  const std::string src =
      "stencil s(i, j, k) : f64 { in u; out v; schedule stream(block = 32x16); v = 0.5 * (u[i-1,j,k] + u[i+1,j,k]); }";
  auto a = test::compileText(src);
  REQUIRE_MESSAGE(a->module, a->diagText());
  const std::string fp = driver::kernelFingerprint(*a->module, test::kernelOf(*a, "s"));
  std::string err;
  CHECK(driver::applySchedules(*a->module, savedFile(fp, "{\"strategy\": \"naive\", \"block\": \"32x8\"}"), err) == 0);
  CHECK(test::kernelOf(*a, "s").schedule.strategy == dag::Strategy::Stream);
  CHECK(test::kernelOf(*a, "s").schedule.blockY == 16);
}

TEST_CASE("a saved tensor schedule applies to a kernel the tensor cores take, and is skipped for one compiled without --fp-contract") {
  std::ifstream in(std::string(STNC_SOURCE_DIR) + "/bench/workloads/box125_rt.stn");
  std::stringstream ss;
  ss << in.rdbuf();
  passes::ScheduleOverride fma;
  fma.contractFma = true;
  auto t = test::compileText(ss.str(), {}, fma);
  REQUIRE_MESSAGE(t->module, t->diagText());
  REQUIRE(test::kernelOf(*t, "box125_rt").tensorSum);
  const std::string saved = "{\"strategy\": \"tensor\", \"block\": \"32x4\", \"prefetch\": 2, \"chunk\": 86}";
  std::string err;
  auto file = [&](const dag::Module& m) {  // savedFile's entry, for kernel box125_rt
    return "{\"kernels\": {\"box125_rt\": {\"fingerprint\": \"" + driver::kernelFingerprint(m, m.kernels.at(0)) + "\", \"schedule\": " + saved + "}}}";
  };
  CHECK(driver::applySchedules(*t->module, file(*t->module), err) == 1);
  CHECK(test::kernelOf(*t, "box125_rt").schedule.strategy == dag::Strategy::Tensor);
  CHECK(test::kernelOf(*t, "box125_rt").schedule.chunk == 86);
  auto plain = test::compileText(ss.str());
  REQUIRE(plain->module);
  CHECK(driver::applySchedules(*plain->module, file(*plain->module), err) == 0);
  CHECK(test::kernelOf(*plain, "box125_rt").schedule.strategy != dag::Strategy::Tensor);
}
