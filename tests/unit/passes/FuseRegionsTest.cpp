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
  for (const test::NotRegionPair& cs : test::kNotRegionPair) {
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

TEST_CASE("the fused default body reads through L1 what lies in a ring's tile but outside the footprint its copies fill") {
  // Session 20's random campaign (seed 11, cases 145 and 264, --fuse-regions=on): the region reads u at dim-2
  // offsets -1 .. 0, so its copies fill the columns the box's points read there (STNC_RING_CLIP) and zero the rest
  // of the sector-rounded tile (from offset -4 in f64); the default equation reads u at k-4 and k+0, and w at k+0
  // where the region reads w at k-3 .. -1 only. Taken from the ring, those read zeros at the box's first or last
  // columns; they must come through L1.
  const char* src =
      "stencil s(i, j, k) : f64 {\n"
      "  in u, w; out o;\n"
      "  region r = [1:0, 0:-1, 0:-3];\n"
      "  o @ r = u[i, j, k-1] + u[i+1, j+3, k] * w[i, j, k-3] + w[i, j, k-1];\n"
      "  o = u[i+1, j, k-4] + 2.0 * u + w;\n"
      "}\n";
  passes::ScheduleOverride o = fuse("on");
  o.strategy = "stream";
  o.smem = "on";
  o.blockX = 16;
  o.blockY = 8;
  o.rows = 1;
  auto c = test::compileText(src, {}, o);
  REQUIRE_MESSAGE(c->module, c->diagText());
  REQUIRE(test::kernelOf(*c, "s").fusedRegion == 0);
  const std::string cu = test::generateAll(*c->module).at(".cu");
  const size_t at = cu.find("sweepFused(const stnc_rt::Layout L_");
  REQUIRE(at != std::string::npos);
  const std::string fused = cu.substr(at, cu.find("}  // sweepFused", at) - at);
  REQUIRE(fused.find("uC_(") != std::string::npos);
  REQUIRE(fused.find("wC_(") != std::string::npos);
  // The rings' copies are clipped to the region's footprint (u: -1 .. 0, w: -3 .. -1 along dim 2).
  // (u's tile is a star's, corner-free: the block's own rows and columns follow.)
  CHECK(fused.find("B_.lo[2] - 1, B_.hi[2], yb_, yb_ + 8, zb_, zb_ + 32);  // this thread's chunks of a u tile") != std::string::npos);
  CHECK(fused.find("B_.lo[2] - 3, B_.hi[2] - 1);  // this thread's chunks of a w tile") != std::string::npos);
  // The default body's reads beyond them: guarded global loads.
  CHECK_MESSAGE(fused.find("? u[p_ + s0_ - 4] : double(0)") != std::string::npos, fused);
  CHECK(fused.find("? w[p_] : double(0)") != std::string::npos);
  // u at offset 0 is in the footprint: from the ring (the register queue's plane), not from global memory.
  CHECK(fused.find("? u[p_] : double(0)") == std::string::npos);
}
