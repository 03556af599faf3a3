// driver/FitBeside: a region kernel's default part gets blocks of fewer rows where none of its blocks fits on an
// SM beside the region's resident blocks, each shape checked against (here: a model of) ptxas's registers.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "codegen/KernelBody.h"
#include "driver/FitBeside.h"
#include "driver/PartResidency.h"
#include "unit/TestUtil.h"

using namespace stnc;

namespace {
// ptxas as a table: the region part's registers, and the default part's by its block rows (the acoustic
// sample's numbers: 16x16 80, 16x8 88, 16x4 108). Counts its calls.
struct FakePtxas {
  std::map<int, int> defaultRegs = {{16, 80}, {8, 88}, {4, 108}};
  int innerRegs = 97;
  int calls = 0;
  void fill(const dag::Module& m, std::map<std::string, driver::PtxasInfo>& out) const {
    for (const dag::Kernel& k : m.kernels)
      for (int part : dag::kernelParts(k)) {
        const std::string key = k.name + "/" + codegen::partScope(k, part) + codegen::partName(k, part);
        out[key].registers = part < 0 ? defaultRegs.at(k.scheduleOf(part).blockY) : innerRegs;
      }
  }
  driver::PtxasRun run() {
    return [this](const dag::Module& m, std::map<std::string, driver::PtxasInfo>& out, std::string&) {
      ++calls;
      out.clear();
      fill(m, out);
      return true;
    };
  }
};
}  // namespace

// The acoustic sample's acoustic_sep: eta as three profiles, so the shell has no eta ring.
const char* const kShellProfiles =
    "import \"fd.stn\";\n"
    "stencil s(i, j, k) : f32 { in u, roc2, etax(i), etay(j), etaz(k); inout v, phi; swap u, v;\n"
    "  region inner = [6:-6, 6:-6, 6:-6];\n"
    "  let eta = etax + (etay + etaz);\n"
    "  schedule stream(vec = 2); schedule @ inner stream(vec = 4);\n"
    "  v @ inner = 2.0 * u - v + roc2 * lap8(u);\n"
    "  v = ((2.0 + 2.0 * eta) * u - v + roc2 * (lap8(u) + phi)) / (1.0 + 2.0 * eta);\n"
    "  phi = (phi - (dx2(eta) * dx2(u) + dy2(eta) * dy2(u) + dz2(eta) * dz2(u))) / (1.0 + eta); }";

TEST_CASE("fitDefaultParts: the shell's 16x16 blocks become 16x8 ones, which fit beside the inner box's") {
  auto c = test::compileText(kShellProfiles);
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = c->module->kernels.at(0);
  REQUIRE(k.scheduleOf(-1).blockY == 16);
  FakePtxas fake;
  std::map<std::string, driver::PtxasInfo> info;
  fake.fill(*c->module, info);
  REQUIRE(passes::defaultBlocksBeside(driver::partBlockUses(*c->module, k, info), passes::smLimits(90)) == 0);
  std::string error;
  CHECK(driver::fitDefaultParts(*c->module, 90, false, info, fake.run(), error));
  CHECK(fake.calls == 1);  // one ptxas run for the one shape tried
  CHECK(k.scheduleOf(-1).blockX == 16);
  CHECK(k.scheduleOf(-1).blockY == 8);
  CHECK(k.scheduleOf(-1).vec == 2);
  CHECK(k.scheduleOf(-1).reason.find("block 16x8 (was 16x16): its blocks fit beside the regions' resident blocks (1 per SM, ptxas 88 registers)") !=
        std::string::npos);
  CHECK(k.scheduleOf(0).blockY == 16);  // the region keeps its block
  // info now holds the numbers of the module as it is.
  CHECK(driver::partPtxas(k, -1, info)->registers == 88);
  CHECK(passes::defaultBlocksBeside(driver::partBlockUses(*c->module, k, info), passes::smLimits(90)) == 1);
}

TEST_CASE("fitDefaultParts: where no shape of 8 rows or more fits, the policy's block stays, with ptxas's numbers for it") {
  auto c = test::compileText(test::kAcousticShell);  // eta in 3-D: its ring makes the shell's 16x8 rings 45 KiB
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = c->module->kernels.at(0);
  const std::string before = k.scheduleOf(-1).reason;
  FakePtxas fake;
  std::map<std::string, driver::PtxasInfo> info;
  fake.fill(*c->module, info);
  std::string error;
  CHECK(driver::fitDefaultParts(*c->module, 90, false, info, fake.run(), error));
  CHECK(fake.calls == 2);  // 16x8, then the numbers of 16x16 again (16x4 would fit, but lost on the GPU)
  CHECK(k.scheduleOf(-1).blockY == 16);
  CHECK(k.scheduleOf(-1).reason == before);
  CHECK(driver::partPtxas(k, -1, info)->registers == 80);
}

TEST_CASE("fitDefaultParts: a shape that spills is not kept") {
  auto c = test::compileText(kShellProfiles);
  REQUIRE_MESSAGE(c->module, c->diagText());
  FakePtxas fake;
  std::map<std::string, driver::PtxasInfo> info;
  fake.fill(*c->module, info);
  driver::PtxasRun spilling = [&fake](const dag::Module& m, std::map<std::string, driver::PtxasInfo>& out, std::string& e) {
    const bool ok = fake.run()(m, out, e);
    for (auto& [key, pi] : out) pi.spillStores = 16;
    return ok;
  };
  std::string error;
  CHECK(driver::fitDefaultParts(*c->module, 90, false, info, spilling, error));
  CHECK(c->module->kernels.at(0).scheduleOf(-1).blockY == 16);
}

TEST_CASE("fitDefaultParts: a block the command line or the source gives stays") {
  FakePtxas fake;
  std::string error;
  {
    auto c = test::compileText(test::kAcousticShell);
    REQUIRE_MESSAGE(c->module, c->diagText());
    std::map<std::string, driver::PtxasInfo> info;
    fake.fill(*c->module, info);
    CHECK(driver::fitDefaultParts(*c->module, 90, true, info, fake.run(), error));  // --block
    CHECK(c->module->kernels.at(0).scheduleOf(-1).blockY == 16);
  }
  {
    std::string src = test::kAcousticShell;
    const std::string region = "region inner = [6:-6, 6:-6, 6:-6];";
    src.insert(src.find(region) + region.size(), " schedule stream(vec = 2, block = 16x16); schedule @ inner stream(vec = 4);");
    auto c = test::compileText(src);
    REQUIRE_MESSAGE(c->module, c->diagText());
    std::map<std::string, driver::PtxasInfo> info;
    fake.fill(*c->module, info);
    CHECK(driver::fitDefaultParts(*c->module, 90, false, info, fake.run(), error));
    CHECK(c->module->kernels.at(0).scheduleOf(-1).blockY == 16);
  }
  CHECK(fake.calls == 0);
}
