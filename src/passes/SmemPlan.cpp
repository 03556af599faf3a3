#include "passes/SmemPlan.h"

#include <algorithm>
#include <climits>

#include "passes/ChooseSchedule.h"
#include "passes/Occupancy.h"
#include "support/IntMath.h"

namespace stnc::passes {

ColumnSpan ringColumns(int lo2, int hi2, int width, int rows, int threads, int elem) {
  const int per = 16 / elem, sector = std::max(per, 32 / elem);
  auto spanOf = [&](int unit) {
    ColumnSpan c;
    c.a2 = floorDiv(lo2, unit) * unit;
    c.cols = (floorDiv(width - 1 + hi2, unit) + 1) * unit - c.a2;
    c.sectors = unit == sector;
    return c;
  };
  const ColumnSpan chunks = spanOf(per), sectors = spanOf(sector);
  const auto copiesPerThread = [&](const ColumnSpan& c) { return (rows * c.cols / per + threads - 1) / std::max(1, threads); };
  return copiesPerThread(sectors) <= copiesPerThread(chunks) ? sectors : chunks;
}

SmemPlan planSmem(const dag::Context& ctx, const dag::Kernel& k, int part, const dag::Schedule& s) {
  SmemPlan plan;
  if (s.strategy != dag::Strategy::Stream || s.smem == 0) {
    plan.why = "off";
    return plan;
  }
  plan.depth = s.prefetch > 0 ? s.prefetch : 2;
  const int elem = static_cast<int>(dag::elemSize(k.type)), per = 16 / elem, vec = std::max(1, s.vec);
  const int width = s.blockX * vec;  // block columns
  if (width % per != 0) {
    plan.why = "the block's " + std::to_string(width) + " columns are not whole 16-byte chunks";
    return plan;
  }
  int readFields = 0, queuedFields = 0;
  for (const dag::Field& f : k.fields) {
    if (!dag::isRead(f.role)) continue;
    int qlo = 0, qhi = -1;
    const bool queue = queueSpan(ctx, k, f.name, qlo, qhi, part);
    bool read = false;
    int lo1 = INT_MAX, hi1 = INT_MIN, lo2 = INT_MAX, hi2 = INT_MIN, amin = INT_MAX, amax = INT_MIN;
    bool diagonal = false;
    for (dag::NodeId id : dag::liveNodes(ctx, k, part)) {
      const dag::Node& n = ctx.node(id);
      if (n.kind != dag::NodeKind::Access || ctx.name(n.sym) != f.name) continue;
      read = true;
      const dag::Offset& o = n.offset;
      lo1 = std::min(lo1, o.d[1]);
      hi1 = std::max(hi1, o.d[1]);
      lo2 = std::min(lo2, o.d[2]);
      hi2 = std::max(hi2, o.d[2]);
      diagonal = diagonal || (o.d[1] != 0 && o.d[2] != 0);
      const bool slot = queue && o.d[1] == 0 && o.d[2] == 0 && o.d[0] >= qlo && o.d[0] <= qhi;
      const int d0 = slot ? qhi : o.d[0];  // a queue slot: only its head comes from shared memory
      plan.reach = std::max(plan.reach, std::abs(d0));
      if (slot && s.heads) continue;       // ... or from global memory
      amin = std::min(amin, d0);
      amax = std::max(amax, d0);
    }
    readFields += read;
    queuedFields += read && queue;
    if (amin == INT_MAX) continue;  // not read by this part (or only as a queue whose heads come from global memory)
    SmemRing r;
    r.field = f.name;
    r.lo1 = lo1;
    r.rows = s.blockY * std::max(1, s.rows) + hi1 - lo1;
    const ColumnSpan span = ringColumns(lo2, hi2, width, r.rows, s.blockX * s.blockY, elem);
    r.a2 = span.a2;
    r.cols = span.cols;
    r.hi1 = hi1;
    r.hi2 = span.a2 + span.cols - width;
    r.reach2lo = lo2;
    r.reach2hi = hi2;
    r.corners = diagonal;
    r.amin = amin;
    r.amax = amax;
    r.slots = amax - amin + 2 + plan.depth;
    r.slotElems = static_cast<long>(r.rows) * r.cols;
    plan.rings.push_back(r);
  }
  // The tensor memory accelerator writes a tile to a 128-byte aligned address; a box side is at most 256.
  plan.tma = s.tma == 1 && !plan.rings.empty() &&
             std::all_of(plan.rings.begin(), plan.rings.end(), [](const SmemRing& r) { return r.rows <= 256 && r.cols <= 256; });
  for (SmemRing& r : plan.rings) {
    if (plan.tma) r.slotElems = (r.slotElems + 128 / elem - 1) / (128 / elem) * (128 / elem);
    plan.bytes += r.elems() * elem;
  }
  if (plan.tma) {
    plan.barOffset = plan.bytes;
    plan.bytes += 8L * (plan.depth + 1);
  }
  if (plan.rings.empty()) {
    plan.why = "the part reads no field";
    return plan;
  }
  const long reaching = std::count_if(plan.rings.begin(), plan.rings.end(), [](const SmemRing& r) { return r.amax > r.amin; });
  plan.longChunks = plan.reach >= 2 && 2 * reaching >= static_cast<long>(plan.rings.size());
  plan.maxChunk = 2 * queuedFields <= readFields ? 32 : 64;
  // One field over rings of dim-0 reach 1-2 (the 7- and 13-point stars): the shortest chunks, 8 x the reach. With the
  // banded launch order a chunk's re-read planes come from L2, and short chunks keep neighbouring tile columns in step
  // (session 23, bench/results/2026-12-02-s23-f32-tiles.md §4, 512^3: star7 f64 0.654 -> 0.582 ms, star13 f64
  // 0.650 -> 0.613, star7 f32 0.311 -> 0.288, star13 f32 a tie; at 256^3 star7 already ran 8-plane chunks, 16 lost).
  plan.shortChunks = readFields == 1 && plan.reach <= 2;
  if (plan.shortChunks) plan.maxChunk = 8L * plan.reach;
  const long budget = s.smem == 2 ? kSmemAutoBudget : kSmemBudget;
  if (plan.bytes > budget) {
    plan.why = std::to_string(plan.bytes / 1024) + " KiB of shared memory per block exceeds the " + std::to_string(budget / 1024) +
               " KiB budget" + (s.smem == 2 ? " of the policy (two blocks per SM; --smem=on allows " + std::to_string(kSmemBudget / 1024) + ")" : "");
    return plan;
  }
  // Resident blocks by threads and shared memory alone (registers are ptxas's to tell: --verify-schedules).
  plan.blocksPerSm = residentBlocks({static_cast<int>(s.blockX * s.blockY), 0, plan.bytes}, smLimits(90)).blocks;
  plan.ok = plan.blocksPerSm >= 1;
  if (!plan.ok) plan.why = "no block fits an SM";
  return plan;
}

}  // namespace stnc::passes
