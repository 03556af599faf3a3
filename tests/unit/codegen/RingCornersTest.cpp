// Corner-free ring tiles (session 24): SmemRing::corners (passes/SmemPlan) and stnc_rt::cornerChunk, the chunks a
// StarRingCopier zero-fills under STNC_RING_CORNERS 0. Checked here on the host against the planner's own
// geometry: no chunk that some point of the block reads (at any offset of the field's footprint, through the
// vector groups the CUDA kernels load) is a corner chunk, and a star's tile has corners to skip.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <utility>

#include "codegen/runtime/stnc_runtime.h"
#include "dag/Kernel.h"
#include "passes/SmemPlan.h"
#include "unit/DagText.h"
#include "unit/codegen/CodegenTestUtil.h"

using namespace stnc;

namespace {

struct CornerCount {
  int needed = 0, corners = 0, neededCorners = 0;
};

// Every 16-byte chunk of ring r's tile (tile coordinates: row 0 = the block's row r.lo1, column 0 = the block's
// column r.a2): whether some point of the block reads it, and whether cornerChunk calls it a corner. A point's
// access at (d1, d2) reads, with vec points per thread, the aligned group holding column c + d2.
CornerCount countChunks(const dag::Context& ctx, const dag::Kernel& k, int part, const passes::SmemRing& r, int tileRows, int tileCols, int vec,
                        int per) {
  std::set<std::pair<int, int>> offsets;  // (d1, d2) of the field's accesses
  for (dag::NodeId id : dag::liveNodes(ctx, k, part)) {
    const dag::Node& n = ctx.node(id);
    if (n.kind == dag::NodeKind::Access && ctx.name(n.sym) == r.field) offsets.insert({n.offset.d[1], n.offset.d[2]});
  }
  std::set<std::pair<int, int>> read;  // (tile row, tile column) of every element read
  for (int y = 0; y < tileRows; ++y)
    for (int c = 0; c < tileCols; ++c)
      for (const auto& [d1, d2] : offsets) {
        const int g = ((c + d2) >= 0 ? (c + d2) / vec : -((-(c + d2) + vec - 1) / vec)) * vec;  // the group's first column
        for (int e = 0; e < vec; ++e) read.insert({y + d1 - r.lo1, g + e - r.a2});
      }
  CornerCount n;
  for (int row = 0; row < r.rows; ++row)
    for (int col = 0; col < r.cols; col += per) {
      bool needed = false;
      for (int e = 0; e < per; ++e) needed = needed || read.count({row, col + e});
      // The block's rows and columns in tile coordinates: [-lo1, -lo1 + tileRows) x [-a2, -a2 + tileCols).
      const bool corner = stnc_rt::cornerChunk(row, col, per, -r.lo1, -r.lo1 + tileRows, -r.a2, -r.a2 + tileCols);
      n.needed += needed;
      n.corners += corner;
      n.neededCorners += needed && corner;
    }
  return n;
}

}  // namespace

TEST_CASE("corner-free rings: a star's tiles have corners no point reads, a box's tiles have none to skip") {
  {
    auto c = test::compileText(test::kAcousticShell);
    REQUIRE_MESSAGE(c->module, c->diagText());
    const dag::Kernel& k = test::kernelOf(*c, "s");
    for (int part : dag::kernelParts(k)) {
      const dag::Schedule s = k.scheduleOf(part);
      const passes::SmemPlan sp = passes::planSmem(c->module->ctx, k, part);
      REQUIRE_MESSAGE(sp.ok, sp.why);
      for (const passes::SmemRing& r : sp.rings) {
        CAPTURE(part);
        CAPTURE(r.field);
        CHECK_FALSE(r.corners);  // lap8, dx2, dy2, dz2: no diagonal offset
        const CornerCount n = countChunks(c->module->ctx, k, part, r, s.blockY * s.rows, s.blockX * s.vec, s.vec, 4);
        CHECK(n.needed > 0);
        CHECK(n.neededCorners == 0);
        // u's tile (4 halo rows and columns each side) and eta's (1) have corners; v, roc2, phi are the block's own.
        if (r.field == "u" || r.field == "eta") CHECK(n.corners > 0);
        else CHECK(n.corners == 0);
      }
    }
    // The inner region's u tile, 24 x 80 for 16 x 64 points: 8 halo rows x 16 columns outside, 32 chunks of 480.
    const passes::SmemPlan inner = passes::planSmem(c->module->ctx, k, 0);
    for (const passes::SmemRing& r : inner.rings)
      if (r.field == "u") {
        const dag::Schedule s = k.scheduleOf(0);
        CHECK(r.rows == 24);
        CHECK(r.cols == 80);
        CHECK(countChunks(c->module->ctx, k, 0, r, s.blockY, s.blockX * s.vec, s.vec, 4).corners == 32);
      }
  }
  {
    // A 3x3 box in the plane reads its tile's corners: the planner says so, and cornerChunk would skip needed chunks.
    auto c = test::compileText("stencil b(i, j, k) : f32 { in u; out w;\n"
                               "  w = u[i-1,j,k] + u[i+1,j,k] + u[i,j-1,k-1] + u[i,j+1,k+1] + u[i,j-1,k+1] + u[i,j+1,k-1] + u; }");
    REQUIRE_MESSAGE(c->module, c->diagText());
    const dag::Kernel& k = test::kernelOf(*c, "b");
    const dag::Schedule s = k.scheduleOf(-1);
    const passes::SmemPlan sp = passes::planSmem(c->module->ctx, k, -1, s.smem ? s : [&] {
      dag::Schedule r = s;
      r.strategy = dag::Strategy::Stream;
      r.smem = 2, r.blockX = 16, r.blockY = 16, r.vec = 4, r.prefetch = 2;
      return r;
    }());
    REQUIRE_MESSAGE(sp.ok, sp.why);
    REQUIRE(sp.rings.size() == 1);
    const passes::SmemRing& r = sp.rings.front();
    CHECK(r.corners);
    const int vec = s.smem ? s.vec : 4, bx = s.smem ? s.blockX : 16, by = s.smem ? s.blockY * s.rows : 16;
    CHECK(countChunks(c->module->ctx, k, -1, r, by, bx * vec, vec, 4).neededCorners > 0);
  }
}

TEST_CASE("corner-free rings in the generated code: StarRingCopier for a star's halo tiles, RingCopier for the rest") {
  auto c = test::compileText(test::kAcousticShell);
  REQUIRE_MESSAGE(c->module, c->diagText());
  const std::string cu = test::generateAll(*c->module).at(".cu");
  // The inner region (16x16 threads of 4 points): u's tile with the block's own rows and columns.
  CHECK(cu.find("const stnc_rt::StarRingCopier<real, 24, 80, kBlockX * kBlockY, true> uC_(L_, uS_, yb_ - 4, zb_ - 8, tid_, B_.lo[1] - 4, "
                "B_.hi[1] + 4, B_.lo[2] - 4, B_.hi[2] + 4, yb_, yb_ + 16, zb_, zb_ + 64);") != std::string::npos);
  // Tiles without halo keep the plain copier.
  CHECK(cu.find("const stnc_rt::RingCopier<real, 16, 64, kBlockX * kBlockY, false> roc2C_(") != std::string::npos);
  CHECK(cu.find("StarRingCopier<real, 16, 64") == std::string::npos);
  // The default since session 25 (measured on the H200): corners are zero-filled, not copied.
  CHECK(cu.find("#define STNC_RING_CORNERS 0") != std::string::npos);
}
