// passes/FuseRegions: which kernels a fused region kernel can take (one region plus default equations,
// rank 3, the region on shared-memory rings), the --fuse-regions modes, and the CUDA code it leads to:
// one kernel over the whole box whose blocks pick the region's body, the default body or both per
// plane, launched before (and instead of) the per-part kernels. The GPU validates it bit for bit
// against the CPU backend (scripts/gpu-check.sh --stnc-flags=--fuse-regions=on tests/gpu/fused.stn).
#include <doctest/doctest.h>

#include "unit/DagText.h"
#include "unit/codegen/CodegenTestUtil.h"
#include "passes/ChooseSchedule.h"
#include "passes/FuseRegions.h"

using namespace stnc;

namespace {

passes::ScheduleOverride fuse(const std::string& mode) {
  passes::ScheduleOverride o;
  o.fuseRegions = mode;
  return o;
}

}  // namespace

TEST_CASE("the acoustic shell fuses under --fuse-regions=on only, and says why under every mode") {
  for (const char* mode : {"on", "auto", "off"}) {
    CAPTURE(mode);
    auto c = test::compileText(test::kAcousticShell, {}, fuse(mode));
    REQUIRE_MESSAGE(c->module, c->diagText());
    const dag::Kernel& k = test::kernelOf(*c, "s");
    std::string why = "unset";
    CHECK(passes::fusableRegion(c->module->ctx, k, &why) == 0);
    CHECK(why.empty());
    CHECK(k.fusedRegion == (std::string(mode) == "on" ? 0 : -1));
    CHECK_MESSAGE(k.fusionWhy.find(std::string(mode) == "on" ? "in one kernel" : std::string(mode) == "off" ? "--fuse-regions=off" : "measured slower") !=
                      std::string::npos,
                  k.fusionWhy);
  }
}

TEST_CASE("kernels a fused region kernel cannot take, each with its reason") {
  struct Case {
    const char* src;
    const char* why;
  };
  const Case cases[] = {
      {"stencil s(i, j, k) : f64 { in u; out v; v = u[i-1,j,k] + u[i+1,j,k]; }", "no regions"},
      {"stencil s(i, j) : f64 { in u; out v; region r = [1:-1, 1:-1]; v @ r = u[i-1,j] + u[i+1,j]; v = u; }", "rank 2"},
      {"stencil s(i, j, k) : f64 { in u; out v; region a = [1:-1, 1:-1, 1:-1]; region b = [2:-2, 2:-2, 2:-2];\n"
       "  v @ a = u[i-1,j,k] + u[i+1,j,k]; v @ b = u; v = u; }",
       "2 regions"},
      {"stencil s(i, j, k) : f64 { in u; out v; region r = [1:-1, 1:-1, 1:-1]; v @ r = u[i-1,j,k] + u[i+1,j,k]; }",
       "both have equations"},
  };
  for (const Case& cs : cases) {
    CAPTURE(cs.src);
    auto c = test::compileText(cs.src, {}, fuse("on"));
    REQUIRE_MESSAGE(c->module, c->diagText());
    const dag::Kernel& k = test::kernelOf(*c, "s");
    std::string why;
    CHECK(passes::fusableRegion(c->module->ctx, k, &why) == -1);
    CHECK_MESSAGE(why.find(cs.why) != std::string::npos, why);
    CHECK(k.fusedRegion == -1);
    if (!k.regions.empty()) CHECK(k.fusionWhy.find("not possible: ") == 0);
  }
  // The region's schedule must have rings: the L1 schedule (--smem=off) cannot be fused.
  passes::ScheduleOverride o = fuse("on");
  o.smem = "off";
  auto c = test::compileText(test::kAcousticShell, {}, o);
  REQUIRE(c->module);
  std::string why;
  CHECK(passes::fusableRegion(c->module->ctx, test::kernelOf(*c, "s"), &why) == -1);
  CHECK(why.find("no shared-memory rings") != std::string::npos);
  // Nor rings of several rows per thread: the fused kernel computes one row per thread.
  passes::ScheduleOverride r = fuse("on");
  r.rows = 2;
  r.smem = "on";  // the 200 KiB budget: the region's rings of 2 rows fit
  auto c2 = test::compileText(test::kAcousticShell, {}, r);
  REQUIRE(c2->module);
  CHECK(passes::fusableRegion(c2->module->ctx, test::kernelOf(*c2, "s"), &why) == -1);
  CHECK_MESSAGE(why.find("2 rows per thread") != std::string::npos, why);
}

TEST_CASE("the fused kernel: three bodies chosen per plane, L1 for what the rings lack, tried before the per-part launches") {
  auto c = test::compileText(test::kAcousticShell, {}, fuse("on"));
  REQUIRE_MESSAGE(c->module, c->diagText());
  const std::string cu = test::generateAll(*c->module).at(".cu");
  const size_t at = cu.find("sweepFused(const stnc_rt::Layout L_, const stnc_rt::Box B_, const stnc_rt::Box R_, const long chunk_");
  REQUIRE(at != std::string::npos);
  const std::string fused = cu.substr(at, cu.find("}  // sweepFused", at) - at);
  // The region's rings only (u, roc2, v); eta and phi (default equations only) come through L1, guarded.
  CHECK(fused.find("uC_(") != std::string::npos);
  CHECK(fused.find("etaC_(") == std::string::npos);
  CHECK(fused.find("phiC_(") == std::string::npos);
  CHECK(fused.find("? eta[p_") != std::string::npos);
  CHECK(fused.find("? phi[p_]") != std::string::npos);
  // Per plane: the region's body, the default body, or both with per-point stores.
  const size_t inner = fused.find("if (in0_ && tileIn_)"), outer = fused.find("else if (!in0_ || !tileMeets_) {"),
               both = fused.find("else {  // the tile straddles the region's boundary: both bodies");
  REQUIRE(inner != std::string::npos);
  REQUIRE(outer != std::string::npos);
  REQUIRE(both != std::string::npos);
  CHECK(inner < outer);
  CHECK(outer < both);
  CHECK(fused.find("if (inR0_) stnc_rt::storeOnce(&v[p_]") != std::string::npos);
  CHECK(fused.find("!inR0_) stnc_rt::storeOnce(&phi[p_]") != std::string::npos);
  // Registers must not cost the resident blocks the rings allow.
  CHECK(cu.find("__launch_bounds__(kBlockX * kBlockY, 2) sweepFused") != std::string::npos);
  // launchSweep tries the fused launch first; the per-part kernels stay for unaligned or narrow boxes.
  const size_t sweep = cu.find("cudaError_t launchSweep(");
  REQUIRE(sweep != std::string::npos);
  const size_t tryFused = cu.find("fused_region::launchFused(", sweep), perPart = cu.find("launchPart_inner(", sweep);
  CHECK(tryFused != std::string::npos);
  CHECK(perPart != std::string::npos);
  CHECK(tryFused < perPart);
  // Not fused: no fused kernel at all.
  auto plain = test::compileText(test::kAcousticShell);
  REQUIRE(plain->module);
  CHECK(test::generateAll(*plain->module).at(".cu").find("sweepFused") == std::string::npos);
}
