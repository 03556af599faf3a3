// passes/SmemPlan: the shared-memory rings of the stream schedule with --smem=on (tile rows and
// columns from the in-plane footprint, rounded out to 16-byte chunks; ring slots from the planes read),
// and the parts it refuses.
#include <doctest/doctest.h>

#include "unit/DagText.h"
#include "passes/ChooseSchedule.h"
#include "passes/SmemPlan.h"

using namespace stnc;

namespace {

struct Planned {
  std::unique_ptr<test::Compiled> c;
  dag::Kernel k;
};

Planned schedule(const std::string& body, const std::string& block, int vec, int prefetch = -1) {
  Planned p{test::compileText(body), {}};
  REQUIRE_MESSAGE(p.c->module, p.c->diagText());
  p.k = test::kernelOf(*p.c, "s");
  passes::ScheduleOverride o;
  o.strategy = "stream";
  o.smem = "on";
  REQUIRE(std::sscanf(block.c_str(), "%dx%d", &o.blockX, &o.blockY) == 2);
  o.vec = vec;
  o.prefetch = prefetch;
  p.k.schedule = passes::chooseSchedule(p.c->module->ctx, p.k, o);
  return p;
}

const passes::SmemRing& ring(const passes::SmemPlan& sp, const std::string& field) {
  for (const passes::SmemRing& r : sp.rings)
    if (r.field == field) return r;
  FAIL("no ring for " << field);
  throw 0;
}

const char* kAcoustic =
    "stencil s(i, j, k) : f32 { in u, roc2; inout v; swap u, v;\n"
    "  v = 2.0 * u - v + roc2 * (u[i-4,j,k] + u[i+4,j,k] + u[i,j-4,k] + u[i,j+4,k] + u[i,j,k-4] + u[i,j,k+4] - 6.0 * u); }";

}  // namespace

TEST_CASE("acoustic f32, 16x16 threads of 4 points: the radius-4 field's tile and the centre-only rings") {
  Planned p = schedule(kAcoustic, "16x16", 4);
  const passes::SmemPlan sp = passes::planSmem(p.c->module->ctx, p.k, -1);
  REQUIRE_MESSAGE(sp.ok, sp.why);
  CHECK(sp.depth == 2);  // default pipeline depth
  const passes::SmemRing& u = ring(sp, "u");
  CHECK(u.rows == 16 + 8);
  CHECK(u.lo1 == -4);
  CHECK(u.a2 == -8);       // radius 4 in f32 is 16 bytes: rounded out to a 32-byte sector (480 chunks for 256
  CHECK(u.cols == 64 + 16);  // threads: two copies per thread either way)
  CHECK(u.amin == 0);  // in-plane reads at plane i only; the queue's head at i+4
  CHECK(u.amax == 4);
  CHECK(u.slots == 4 + 2 + 2);
  const passes::SmemRing& v = ring(sp, "v");
  CHECK(v.rows == 16);
  CHECK(v.cols == 64);
  CHECK(v.slots == 4);
  CHECK(sp.bytes == (8L * 24 * 80 + 2L * 4 * 16 * 64) * 4);
  CHECK(sp.blocksPerSm == 2);
  // How far each tile reaches past the block's last row and column (the RingCopier clip, ringHolds and the
  // TMA launcher's map regions use these): u's footprint of 4 rows, and its columns out to the sector at 64 + 8.
  CHECK(u.hi1 == 4);
  CHECK(u.hi2 == 8);
  CHECK(v.hi1 == 0);
  CHECK(v.hi2 == 0);
  // One of three ring fields (u) is read across planes: the re-read planes are a small share, no long chunks.
  CHECK(sp.reach == 4);
  CHECK_FALSE(sp.longChunks);
  // ... and the one queued field of three: a chunk's prologue re-reads little, chunks of at most 32 planes.
  CHECK(sp.maxChunk == 32);
}

TEST_CASE("the many-columns rule's longest chunk: 8 x the reach for one field of reach 1-2, 32 where at most half the fields read are queued, else 64") {
  auto plan = [](const char* src) {
    Planned p = schedule(src, "16x16", 2);
    const passes::SmemPlan sp = passes::planSmem(p.c->module->ctx, p.k, -1);
    REQUIRE_MESSAGE(sp.ok, sp.why);
    return sp.maxChunk;
  };
  // One field, queued, dim-0 reach 1 / 2: 8 / 16 planes (session 23); reach 3: 64.
  CHECK(plan("stencil s(i, j, k) : f64 { in u; out w; w = u[i-1,j,k] + u[i+1,j,k] + u[i,j-1,k] + u; }") == 8);
  CHECK(plan("stencil s(i, j, k) : f32 { in u; out w; w = u[i-2,j,k] + u[i+2,j,k] + u[i,j-1,k] + u; }") == 16);
  CHECK(plan("stencil s(i, j, k) : f64 { in u; out w; w = u[i-3,j,k] + u[i+3,j,k] + u[i,j-1,k] + u; }") == 64);
  // One queued of two (half): 32; two queued of three: 64.
  CHECK(plan("stencil s(i, j, k) : f64 { in u, c; out w; w = c * (u[i-3,j,k] + u[i+3,j,k] + u[i,j+3,k] + u); }") == 32);
  CHECK(plan("stencil s(i, j, k) : f64 { in u, q, c; out w; w = c * (u[i-1,j,k] + u[i+1,j,k] + q[i-1,j,k] + q[i+1,j,k]); }") == 64);
}

TEST_CASE("long chunks: a dim-0 reach of 2 or more and at least half of the ring fields read across planes") {
  {
    Planned p = schedule("stencil s(i, j, k) : f64 { in u; out w; w = u[i-2,j,k] + u[i+2,j,k] + u[i,j-2,k] + u[i,j,k+2] + u; }", "16x16", 2);
    const passes::SmemPlan sp = passes::planSmem(p.c->module->ctx, p.k, -1);
    REQUIRE_MESSAGE(sp.ok, sp.why);
    CHECK(sp.reach == 2);
    CHECK(sp.longChunks);
  }
  {  // radius 1: the prologue is two planes, and neighbouring chunks' reads of them hit L2
    Planned p = schedule("stencil s(i, j, k) : f64 { in u; out w; w = u[i-1,j,k] + u[i+1,j,k] + u[i,j-1,k] + u; }", "16x16", 2);
    const passes::SmemPlan sp = passes::planSmem(p.c->module->ctx, p.k, -1);
    REQUIRE_MESSAGE(sp.ok, sp.why);
    CHECK(sp.reach == 1);
    CHECK_FALSE(sp.longChunks);
  }
  {  // two ring fields, one read across planes: half of them, so long chunks
    Planned p = schedule("stencil s(i, j, k) : f64 { in u, c; out w; w = c * (u[i-3,j,k] + u[i+3,j,k] + u[i,j+3,k] + u); }", "16x16", 2);
    const passes::SmemPlan sp = passes::planSmem(p.c->module->ctx, p.k, -1);
    REQUIRE_MESSAGE(sp.ok, sp.why);
    CHECK(sp.rings.size() == 2);
    CHECK(sp.longChunks);
  }
}

TEST_CASE("f64 box: diagonal reads of neighbouring planes widen the ring, odd offsets round to 32-byte sectors") {
  Planned p = schedule(
      "stencil s(i, j, k) : f64 { in u; out v;\n"
      "  v = u[i-1,j+1,k-1] + u[i+1,j-1,k+1] + u[i-1,j,k] + u[i+1,j,k] + u; }",
      "32x8", 2, 1);
  const passes::SmemPlan sp = passes::planSmem(p.c->module->ctx, p.k, -1);
  REQUIRE_MESSAGE(sp.ok, sp.why);
  const passes::SmemRing& u = ring(sp, "u");
  CHECK(u.amin == -1);
  CHECK(u.amax == 1);
  CHECK(u.slots == 2 + 2 + 1);
  CHECK(u.rows == 8 + 2);
  CHECK(u.a2 == -4);               // column -1 lies in the sector starting at -4
  CHECK(u.cols == 4 + 64 + 4);     // and column 64 in the sector ending at 67 (360 chunks: 2 per thread either way)
  CHECK(u.hi1 == 1);               // row +1 past the block's last
  CHECK(u.hi2 == 4);               // the sector past its last column
}

TEST_CASE("ringColumns: 32-byte sectors where they cost no copy per thread, else 16-byte chunks") {
  // f64 radius 1, 32 columns, 18 rows, 256 threads: 18 x 36 / 2 = 324 chunks or 18 x 40 / 2 = 360, both 2 per thread.
  passes::ColumnSpan c = passes::ringColumns(-1, 1, 32, 18, 256, 8);
  CHECK(c.sectors);
  CHECK(c.a2 == -4);
  CHECK(c.cols == 40);
  // f32 radius 4, 32 columns, 24 rows (the acoustic PML faces): 24 x 40 / 4 = 240 chunks (one copy per
  // thread) against 24 x 48 / 4 = 288 (two): stays on 16-byte chunks.
  c = passes::ringColumns(-4, 4, 32, 24, 256, 4);
  CHECK_FALSE(c.sectors);
  CHECK(c.a2 == -4);
  CHECK(c.cols == 40);
  // Already sector-aligned (f64 radius 4): both roundings agree.
  c = passes::ringColumns(-4, 4, 32, 24, 256, 8);
  CHECK(c.a2 == -4);
  CHECK(c.cols == 40);
  // Asymmetric footprint: only the right edge reaches past the block (columns 0 .. 33 of 32, f64).
  c = passes::ringColumns(0, 2, 32, 16, 256, 8);
  CHECK(c.a2 == 0);
  CHECK(c.cols == 36);
}

TEST_CASE("rings that exceed the budget, and schedules without rings, are refused with a reason") {
  Planned wide = schedule(kAcoustic, "32x32", 4, 8);
  const passes::SmemPlan big = passes::planSmem(wide.c->module->ctx, wide.k, -1);
  CHECK_FALSE(big.ok);
  CHECK(big.why.find("budget") != std::string::npos);
  Planned off = schedule(kAcoustic, "32x8", 4);
  off.k.schedule.smem = 0;
  const passes::SmemPlan none = passes::planSmem(off.c->module->ctx, off.k, -1);
  CHECK_FALSE(none.ok);
}

TEST_CASE("--smem=on with several rows per thread: the tile holds blockY x rows rows plus the footprint") {
  Planned p = schedule(kAcoustic, "32x8", 2);
  passes::ScheduleOverride o;
  o.strategy = "stream";
  o.smem = "on";
  o.rows = 4;
  o.blockX = 32;
  o.blockY = 8;
  o.vec = 2;
  p.k.schedule = passes::chooseSchedule(p.c->module->ctx, p.k, o);
  CHECK(p.k.schedule.smem == 1);
  CHECK(p.k.schedule.rows == 4);
  const passes::SmemPlan sp = passes::planSmem(p.c->module->ctx, p.k, -1);
  REQUIRE_MESSAGE(sp.ok, sp.why);
  CHECK(ring(sp, "u").rows == 8 * 4 + 8);  // 32 rows of outputs and 4 each side
  CHECK(ring(sp, "v").rows == 8 * 4);
}

TEST_CASE("queue heads from global memory: the ring keeps only the planes read in-plane, the reach stays") {
  Planned p = schedule(kAcoustic, "16x16", 4);
  const passes::SmemPlan inRing = passes::planSmem(p.c->module->ctx, p.k, -1);
  REQUIRE_MESSAGE(inRing.ok, inRing.why);
  p.k.schedule.heads = 1;
  const passes::SmemPlan global = passes::planSmem(p.c->module->ctx, p.k, -1);
  REQUIRE_MESSAGE(global.ok, global.why);
  const passes::SmemRing& u = ring(global, "u");
  CHECK(u.amin == 0);
  CHECK(u.amax == 0);  // the head at i+4 is loaded from global memory
  CHECK(u.slots == 0 + 2 + 2);
  CHECK(u.rows == ring(inRing, "u").rows);
  CHECK(global.bytes == inRing.bytes - 4L * 24 * 80 * 4);  // four of u's eight slots
  CHECK(global.reach == 4);  // the chunk's prologue still reads planes i .. i+4
  CHECK(inRing.reach == 4);
}

TEST_CASE("a kernel whose rings fit only with global queue heads gets them - one that fits anyway keeps its heads in the ring") {
  // Radius 4 along every axis in three fields (f64, 16x16 threads of 2 points): 24 x 40 tiles, 8 slots each
  // with the heads (180 KiB), 4 without (90 KiB, within the policy's two blocks per SM).
  std::string three = "stencil s(i, j, k) : f64 { in a, b, c; out v; v = 0.0";
  for (const char* f : {"a", "b", "c"})
    three += std::string(" + ") + f + "[i-4,j,k] + " + f + "[i+4,j,k] + " + f + "[i,j-4,k] + " + f + "[i,j+4,k] + " + f + "[i,j,k-4] + " + f +
             "[i,j,k+4]";
  three += "; }";
  auto c = test::compileText(three);
  REQUIRE_MESSAGE(c->module, c->diagText());
  passes::ScheduleOverride o;
  SourceManager sm;
  DiagEngine diags(sm);
  passes::chooseSchedules(*c->module, diags, o);
  const dag::Kernel& k = test::kernelOf(*c, "s");
  CHECK(k.schedule.smem == 2);
  CHECK(k.schedule.heads == 1);
  CHECK(passes::planSmem(c->module->ctx, k, -1).ok);
  CHECK(k.schedule.reason.find("only with the queues' heads loaded from global memory") != std::string::npos);
  // --queue-heads=ring: the L1 policy, as before.
  auto c2 = test::compileText(three);
  o.queueHeads = "ring";
  passes::chooseSchedules(*c2->module, diags, o);
  CHECK(test::kernelOf(*c2, "s").schedule.smem == 0);
  // One field: its rings fit with the head in them.
  auto c3 = test::compileText(kAcoustic);
  passes::chooseSchedules(*c3->module, diags, passes::ScheduleOverride{});
  CHECK(test::kernelOf(*c3, "s").schedule.smem == 2);
  CHECK(test::kernelOf(*c3, "s").schedule.heads == 0);
}

TEST_CASE("--tma=on: slots padded to 128 bytes for the tensor memory accelerator, mbarriers after the rings") {
  // f64 radius 1 in 16x7 threads of 2 points: the u tile is 9 rows x 40 columns = 2880 bytes, not a
  // multiple of 128; with the accelerator each slot is padded to 2944 bytes.
  const char* star = "stencil s(i, j, k) : f64 { in u, c; out o;\n"
                     "  o = c * (u[i-1,j,k] + u[i+1,j,k] + u[i,j-1,k] + u[i,j+1,k] + u[i,j,k-1] + u[i,j,k+1]); }";
  Planned plain = schedule(star, "16x7", 2);
  const passes::SmemPlan a = passes::planSmem(plain.c->module->ctx, plain.k, -1);
  REQUIRE_MESSAGE(a.ok, a.why);
  CHECK_FALSE(a.tma);
  for (const passes::SmemRing& r : a.rings) CHECK(r.slotElems == static_cast<long>(r.rows) * r.cols);

  Planned p = schedule(star, "16x7", 2);
  dag::Schedule s = p.k.scheduleOf(-1);
  s.tma = 1;
  const passes::SmemPlan t = passes::planSmem(p.c->module->ctx, p.k, -1, s);
  REQUIRE_MESSAGE(t.ok, t.why);
  CHECK(t.tma);
  long ringBytes = 0;
  for (const passes::SmemRing& r : t.rings) {
    CHECK(r.slotElems * 8 % 128 == 0);
    CHECK(r.slotElems >= static_cast<long>(r.rows) * r.cols);
    CHECK(r.slotElems - static_cast<long>(r.rows) * r.cols < 128 / 8);
    ringBytes += r.elems() * 8;
  }
  const passes::SmemRing& u = ring(t, "u");
  CHECK(u.rows == 9);
  CHECK(u.cols == 40);
  CHECK(u.slotElems == 368);  // 2944 bytes
  CHECK(t.barOffset == ringBytes);
  CHECK(t.bytes == ringBytes + 8 * (t.depth + 1));
}
