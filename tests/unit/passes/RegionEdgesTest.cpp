// passes/RegionEdges: which kernels an edge kernel can take (one region plus default equations, rank 3, the
// default part on one-row shared-memory rings, not fused), the --region-edges modes, and the CUDA code it
// leads to: an edge kernel with the default part's rings and both bodies, and a launchSweep that moves the
// region's dim-2 bounds to whole tiles before the per-part launches. The GPU validates it bit for bit against
// the CPU backend (scripts/gpu-check.sh --stnc-flags=--region-edges=on tests/gpu/edges.stn).
#include <doctest/doctest.h>

#include "unit/DagText.h"
#include "unit/codegen/CodegenTestUtil.h"
#include "passes/ChooseSchedule.h"
#include "passes/RegionEdges.h"

using namespace stnc;

namespace {

passes::ScheduleOverride edges(const std::string& mode) {
  passes::ScheduleOverride o;
  o.regionEdges = mode;
  return o;
}

}  // namespace

TEST_CASE("the acoustic shell takes region edges under --region-edges=on only, and says why under every mode") {
  for (const char* mode : {"on", "auto", "off"}) {
    CAPTURE(mode);
    auto c = test::compileText(test::kAcousticShell, {}, edges(mode));
    REQUIRE_MESSAGE(c->module, c->diagText());
    const dag::Kernel& k = test::kernelOf(*c, "s");
    std::string why = "unset";
    CHECK(passes::edgeRegion(c->module->ctx, k, &why) == 0);
    CHECK(why.empty());
    const std::string m = mode;
    CHECK(k.edgeRegion == (m == "on" ? 0 : -1));
    CHECK_MESSAGE(k.edgeWhy.find(m == "on" ? "multiples of 32 columns" : m == "off" ? "--region-edges=off" : "measured slower") != std::string::npos,
                  k.edgeWhy);
  }
}

TEST_CASE("kernels an edge kernel cannot take, each with its reason") {
  for (const test::NotRegionPair& cs : test::kNotRegionPair) {
    CAPTURE(cs.src);
    auto c = test::compileText(cs.src, {}, edges("on"));
    REQUIRE_MESSAGE(c->module, c->diagText());
    const dag::Kernel& k = test::kernelOf(*c, "s");
    std::string why;
    CHECK(passes::edgeRegion(c->module->ctx, k, &why) == -1);
    CHECK_MESSAGE(why.find(cs.why) != std::string::npos, why);
    CHECK(k.edgeRegion == -1);
    if (!k.regions.empty()) CHECK(k.edgeWhy.find("not possible: ") == 0);
  }
  // A fused kernel takes the whole box: no edges (and no reason printed twice).
  passes::ScheduleOverride f = edges("on");
  f.fuseRegions = "on";
  auto fc = test::compileText(test::kAcousticShell, {}, f);
  REQUIRE(fc->module);
  std::string why;
  CHECK(passes::edgeRegion(fc->module->ctx, test::kernelOf(*fc, "s"), &why) == -1);
  CHECK(why.find("fused") != std::string::npos);
  CHECK(test::kernelOf(*fc, "s").edgeWhy.empty());
  // The default part on L1 loads (--smem=off) has no rings to give the edge kernel.
  passes::ScheduleOverride o = edges("on");
  o.smem = "off";
  auto c = test::compileText(test::kAcousticShell, {}, o);
  REQUIRE(c->module);
  CHECK(passes::edgeRegion(c->module->ctx, test::kernelOf(*c, "s"), &why) == -1);
  CHECK(why.find("no shared-memory rings") != std::string::npos);
}

TEST_CASE("the edge kernel: the default part's rings and both bodies, and launchSweep splits the region at whole tiles first") {
  auto c = test::compileText(test::kAcousticShell, {}, edges("on"));
  REQUIRE_MESSAGE(c->module, c->diagText());
  const std::string cu = test::generateAll(*c->module).at(".cu");
  const size_t at = cu.find("sweepEdge(const stnc_rt::Layout L_, const stnc_rt::Box B_, const stnc_rt::Box R_, const long chunk_");
  REQUIRE(at != std::string::npos);
  const std::string edge = cu.substr(at, cu.find("}  // sweepEdge", at) - at);
  // The default part's rings: eta and phi too (the fused kernel, with the region's rings, reads them through L1).
  CHECK(edge.find("uC_(") != std::string::npos);
  CHECK(edge.find("etaC_(") != std::string::npos);
  CHECK(edge.find("phiC_(") != std::string::npos);
  // Its register queues are the default part's: eta at i-1 .. i+1 as well as u.
  CHECK(edge.find("etaq_m1_") != std::string::npos);
  // Per plane: the region's body, the default body, or both with per-point stores.
  CHECK(edge.find("if (in0_ && tileIn_)") != std::string::npos);
  CHECK(edge.find("if (inR0_) stnc_rt::storeOnce(&v[p_]") != std::string::npos);
  CHECK(edge.find("!inR0_) stnc_rt::storeOnce(&phi[p_]") != std::string::npos);
  // launchSweep: the split (32-column tiles of 16 threads x 2 points) before the per-part launches, the edge
  // boxes on lanes of their own, the faces thin along dims 0 and 1 as the clip box minus the region's rows.
  const size_t sweep = cu.find("cudaError_t launchSweep(");
  REQUIRE(sweep != std::string::npos);
  const std::string body = cu.substr(sweep, cu.find("}  // launchSweep", sweep) - sweep);
  CHECK(body.find("core_.lo[2] = stnc_rt::alignCol(kLayoutPhase, r_.lo[2] + 32 - 1, 32); core_.hi[2] = stnc_rt::alignCol(kLayoutPhase, r_.hi[2], 32);") != std::string::npos);
  const size_t e0 = body.find("region_edges::launchEdge(L_, e0_, r_,"), core = body.find("launchPart_inner(L_, core_,"),
               faces = body.find("stnc_rt::subtractBox(boxes_, 1, 6, rows_)"), perPart = body.find("launchPart_inner(L_, b_,");
  REQUIRE(e0 != std::string::npos);
  REQUIRE(core != std::string::npos);
  REQUIRE(faces != std::string::npos);
  REQUIRE(perPart != std::string::npos);
  CHECK(e0 < core);
  CHECK(core < faces);
  CHECK(faces < perPart);
  CHECK(body.find("laneOf(lanes_, stream_, 5)") != std::string::npos);
  CHECK(body.find("laneOf(lanes_, stream_, 6)") != std::string::npos);
  // The policy and --region-edges=off: no edge kernel at all.
  for (const char* mode : {"auto", "off"}) {
    auto plain = test::compileText(test::kAcousticShell, {}, edges(mode));
    REQUIRE(plain->module);
    CHECK(test::generateAll(*plain->module).at(".cu").find("region_edges") == std::string::npos);
  }
}
