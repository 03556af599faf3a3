#include "passes/ChooseSchedule.h"

#include "passes/AlignRegion.h"

#include "passes/FuseRegions.h"
#include "passes/RegionEdges.h"
#include "passes/SmemPlan.h"
#include "passes/TemporalBlocking.h"
#include "support/Text.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace stnc::passes {

bool queueSpan(const dag::Context& ctx, const dag::Kernel& k, const std::string& field, int& lo, int& hi, int part) {
  if (k.rank() != 3) return false;
  std::set<int> offs;
  for (dag::NodeId id : dag::liveNodes(ctx, k, part)) {
    const dag::Node& n = ctx.node(id);
    if (n.kind != dag::NodeKind::Access || ctx.name(n.sym) != field) continue;
    if (n.offset.d[1] == 0 && n.offset.d[2] == 0) offs.insert(n.offset.d[0]);
  }
  if (offs.size() < 2) return false;
  lo = *offs.begin();
  hi = *offs.rbegin();
  return true;
}

int smVersionOf(const std::string& arch) {
  const size_t at = arch.find('_');
  if (at == std::string::npos) return 0;
  int v = 0, digits = 0;
  for (size_t i = at + 1; i < arch.size() && digits < 4 && arch[i] >= '0' && arch[i] <= '9'; ++i, ++digits) v = v * 10 + (arch[i] - '0');
  return digits >= 2 ? v : 0;
}

namespace {
// Whether the rings of every part of k fit under schedule s.
bool ringsFitEveryPart(const dag::Context& ctx, const dag::Kernel& k, const dag::Schedule& s) {
  for (int part : dag::kernelParts(k))
    if (!planSmem(ctx, k, part, s).ok) return false;
  return true;
}
}  // namespace

dag::Schedule chooseSchedule(const dag::Context& ctx, const dag::Kernel& k, const ScheduleOverride& o) {
  dag::Schedule s;
  int queued = 0;
  for (const dag::Field& f : k.fields) {
    int lo, hi;
    if (dag::isRead(f.role) && queueSpan(ctx, k, f.name, lo, hi)) ++queued;
  }
  if (o.strategy == "naive" || (o.strategy == "stream" && k.rank() != 3)) {
    s.strategy = dag::Strategy::Naive;
    s.reason = o.strategy == "naive" ? "forced (--schedule=naive or the source's schedule)" : "stream needs 3 axes; naive";
  } else if (o.strategy == "stream") {
    s.strategy = dag::Strategy::Stream;
    s.reason = "forced (--schedule=stream or the source's schedule)";
  } else if (k.tensorSum) {
    // The tensor schedule (passes/TensorSums, codegen/cuda/TensorSumKernel): 4 warps, each 3 rows x 32 columns
    // of a 12 x 32 tile, 2 planes in flight (3 spill at the 128 registers that keep 4 blocks per SM).
    // Measured (bench/results/2026-12-02-s18-box125.md, box125_rt, H200): 165.2 / 507.8 / 1161.4 us at 256^3 / 384^3 /
    // 512^3 against sumfactor's 181.5 / 563.9 / 1333.6 (0.77-0.88 of the FP64 FMA floor), bit for bit the sum as written.
    s.strategy = dag::Strategy::Tensor;
    s.blockX = 32;
    s.blockY = 4;
    s.prefetch = 2;
    s.reason = "a weighted sum of " + std::to_string(k.tensorSum->terms.size()) + " terms of " + k.tensorSum->field +
               " within offsets -2..2, one fma chain in (plane, row, column) order: FP64 tensor cores (mma.sync m16n8k4, "
               "twice the FMA pipe's rate; 65 % of its multiply-adds useful; bit for bit the chain)";
  } else if (k.sumFactor) {
    // The factored weighted sum (passes/FactorSums): each plane's partial sums are computed once per
    // point from a shared-memory tile and feed the outputs of every plane they reach. 16x8 threads of
    // 4 rows (or 2, below) x one 16-byte vector: a 32x32 f64 tile, (32+2r) x (32+2r) with its ring, 3 planes in flight.
    // Measured on box125_c (256^3 f64, bench/results/2026-11-30-s6-sumfactor.md): rows 2 / prefetch 2
    // 105 us, prefetch 3 101 us, rows 4 + prefetch 3 94 us; 16x16 or 32x8 blocks, unrolling, chunk 64 and
    // register caps (96, 80) gained nothing.
    const dag::SumFactor& f = *k.sumFactor;
    s.strategy = dag::Strategy::SumFactor;
    s.blockX = 16;
    s.blockY = 8;
    // Unpaired sums (runtime coefficients) keep every in-plane value of the window live: 2 rows (4 rows
    // take 255 registers and spill). Paired sums take 4 rows when their rows ring is 2 or more deep:
    // measured (bench/results/2026-11-30-s8-sectors.md) box125_c 89.2 us at 4 rows vs 102.3 at 2, but
    // box27_c (ring 1) 95.2 at 4 vs 82.6 at 2 (its 18-row tile is copied in whole 32-byte sectors at no
    // extra copy per thread, the 34-row one is not).
    s.rows = (f.pair1 || f.pair2) && f.r1() >= 2 ? 4 : 2;
    s.prefetch = 3;
    // Wider tiles for a ring of one plane (session 22, bench/results/2026-12-02-s22-wide-tiles.md, 256^3 f64, each
    // shape measured in two calls): paired sums at 64x2 threads of 2 rows (a 128x4 tile; box27_c 83.1 -> 80.4 us,
    // 80.8 at 32x4), unpaired at 32x4 (a 64x8 tile; box27_rt 84.3 -> 82.5, 83.8 at 64x2).
    if (f.r1() < 2) {
      const bool paired = f.pair1 || f.pair2;
      s.blockX = paired ? 64 : 32;
      s.blockY = paired ? 2 : 4;
    }
    const std::string paired = f.pair1 && f.pair2 ? "symmetric along " + k.axes[1] + " and " + k.axes[2]
                               : f.pair1          ? "symmetric along " + k.axes[1]
                               : f.pair2          ? "symmetric along " + k.axes[2]
                                                  : "without symmetry (summed plane by plane)";
    s.reason = "a weighted sum of " + f.field + " with coefficients " + paired + ", factored (" + std::to_string(f.terms.size()) +
               " terms, " + std::to_string(f.classes.size()) + " plane classes): " + std::to_string(f.naiveOps) + " -> " +
               std::to_string(f.sharedOps) + " operations per point";
    s.reason += "; block " + std::to_string(s.blockX) + "x" + std::to_string(s.blockY) + ", " + std::to_string(s.rows) + " rows per thread" +
                (f.r1() < 2 ? std::string(" (a ring of one plane: a ") + (f.pair1 || f.pair2 ? "128x4" : "64x8") +
                                  " tile, measured faster than 32x16 for box27 on the H200)"
                            : "");
  } else if (queued > 0) {
    s.strategy = dag::Strategy::Stream;
    s.reason = std::to_string(queued) + " field(s) read at several offsets along " + k.axes[0] +
               ": stream along it with a register queue";
  } else {
    s.strategy = dag::Strategy::Naive;
    s.reason = k.rank() == 3 ? "no field read at several offsets along " + k.axes[0] + ": naive"
                             : "rank " + std::to_string(k.rank()) + ": naive";
  }
  if (s.strategy == dag::Strategy::Stream) {
    // Measured on the H200 (bench/results/2026-11-29-schedule-variants.md): 32x16 blocks beat 32x8
    // for kernels with small register queues (stars, boxes, cond, iso3dfd: up to 1.15x) but not for
    // wide multi-field queues (CNS hypterm: 1337 us at 32x8 vs 2040 us at 32x16, where 512-thread
    // blocks force spills); unrolling the dimension-0 loop twice pays for box stencils (many
    // in-plane loads: box125 558 -> 448 us) and hurts high-order stars with runtime coefficients.
    int queueRegs = 0, inPlaneLoads = 0, diagonal = 0, longestQueue = 0, inPlaneReach = 0;
    for (const dag::Field& f : k.fields) {
      int lo, hi;
      if (dag::isRead(f.role) && queueSpan(ctx, k, f.name, lo, hi)) {
        queueRegs += (hi - lo + 1) * static_cast<int>(dag::elemSize(k.type) / 4);
        longestQueue = std::max(longestQueue, hi - lo + 1);
      }
    }
    for (dag::NodeId id : dag::liveNodes(ctx, k)) {
      const dag::Node& n = ctx.node(id);
      if (n.kind == dag::NodeKind::Access && (n.offset.d[1] != 0 || n.offset.d[2] != 0)) ++inPlaneLoads;
      if (n.kind == dag::NodeKind::Access && n.offset.d[1] != 0 && n.offset.d[2] != 0) ++diagonal;
      if (n.kind == dag::NodeKind::Access)
        inPlaneReach = std::max({inPlaneReach, std::abs(n.offset.d[1]), std::abs(n.offset.d[2])});
    }
    // Two dim-2 points per thread in one 16-byte vector (f64; f32: 8 bytes) share their in-row
    // neighbours and halve the load instructions: star13 125 -> 99 us, star25 130 -> 128 us (with
    // 2 rows), iso3dfd 198 -> 160 us, box125 242 -> 192 us, cond 94 -> 81 us, acoustic f32
    // 3.30 -> 2.96 ms; 32x8 blocks for f64 (star19/25: 155 -> 105/145 us against 32x16). Kernels
    // with more than two outputs keep one point per thread: the fused CNS hypterm spills and runs
    // 20x slower (bench/results/2026-11-29-variants-s3.md).
    // Several dim-1 rows per thread share the in-plane loads of wide stencils: box27 105 -> 99 us,
    // box125 361 -> 304 us with FMA (bench/results/2026-11-29-variants-s2.md); 2 rows with vectors
    // (box27 100 -> 89 us); high-order stars and multi-field kernels lose.
    std::map<int, size_t> perPart;  // outputs of each region part (each part is its own CUDA kernel)
    size_t outputs = 0;
    for (const dag::Output& out : k.outputs) outputs = std::max(outputs, ++perPart[out.region]);
    if (outputs <= 2) s.vec = 2;
    if (s.vec > 1 && k.type == dag::ElemType::F64) s.blockY = 8;
    else if (queueRegs <= 18) s.blockY = 16;
    if (inPlaneLoads >= 20) s.unroll = 2;
    const bool boxLike = inPlaneLoads >= 20 && diagonal >= 4;
    if (boxLike) {  // box-like: rows share most of their in-plane loads
      s.rows = s.vec > 1 ? 2 : 4;
      s.blockY = 8;
    }
    // Shared-memory planes through a cp.async ring (session 4, bench/results/2026-11-30-smem.md):
    // 16x16 threads of one 16-byte vector each, 2 planes in flight: acoustic f32 800^3 3016 -> 2442 us,
    // iso3dfd 228 -> 152 us, star25 150 -> 111 us, star13 104 -> 95 us, cond 100 -> 88 us, star7 equal;
    // box27 96 -> 132 us (its rows share loads in registers), so boxes keep L1. Only parts whose rings
    // leave room for two blocks per SM get them (smem 2 = auto; passes/SmemPlan).
    if (!boxLike && outputs <= 2 && o.smem != "off") {
      s.smem = 2;
      s.blockX = 16;
      s.blockY = 16;
      s.vec = static_cast<int>(16 / dag::elemSize(k.type));
      s.prefetch = 2;
      // Unrolling the dim-0 loop 4x turns most of a long f64 queue's moves into renames: star25 (a queue
      // of 9 doubles per point) 104.4 -> 97.3 us (constant coefficients), 106.3 -> 103.1 us (runtime);
      // star19 lost (92 -> 100 us), star7/13, cond and the f32 radius-4 kernels (acoustic, iso3dfd)
      // moved within +-2 %; the five single-output CNS kernels ran 2 % slower as a set (one of them, three
      // fields on rings, took the rule; bench/results/2026-11-30-s7-variants.md): kernels reading one field.
      // Two rows per thread on the rings instead (session 8, --rows 2 --unroll 1: a 40-row tile for 32 outputs
      // instead of 24 for 16) ran star25_c 97.7 -> 93.4-94.9 us but star25_rt 102.0 -> 122.9 us (130 registers:
      // one block per SM instead of two): not the policy (bench/results/2026-11-30-s8-sectors.md §6).
      int readFields = 0;
      for (const dag::Field& f : k.fields) readFields += dag::isRead(f.role) ? 1 : 0;
      s.unroll = k.type == dag::ElemType::F64 && longestQueue >= 9 && readFields == 1 ? 4 : 1;
      // f64 rings of in-plane reach 1-3 take tiles wider along the contiguous axis (session 22,
      // bench/results/2026-12-02-s22-wide-tiles.md, 256^3, median of 30, each repeated): reach 1 at 64x4 threads
      // (a 128x4 tile; star7_rt 78.3 -> 76.5 us, star7_c 78.9 -> 77.6, cond_rt 77.7 -> 77.0, cond_c 78.3 -> 76.6),
      // reach 2 at 64x6 (star13_rt 80.7 -> 78.3, star13_c 80.6 -> 77.6), reach 3 at 32x8 (star19_rt 82.3 -> 81.0);
      // reach 4 keeps 16x16 (star25 at 64x4: 87.2 -> 92.2, at 64x8: 133.8); at 512^3 (session 23, bench/tiles/run.sh)
      // star7/13/19 f64 gain 3.1/2.7/0.6 % over 16x16 too.
      // At reach 1 a third plane in flight gains another 1-1.3 % there (star7_rt 76.7 -> 75.7, star7_c 77.3 -> 76.4,
      // cond_c 77.2 -> 76.3; at reach 2-4 it loses: star13_rt 78.5 -> 82.7, star19_rt 81.1 -> 85.9).
      // f32 rings of reach 1-3 (session 23, bench/results/2026-12-02-s23-f32-tiles.md, 512^3 f32, median of 20):
      // 32x8 threads of 4 points (128-point rows, 512 bytes) with 3 planes in flight: star7 0.322 -> 0.311 ms,
      // star13 0.342 -> 0.311, star19 0.427 -> 0.392 (64x4 / 64x6 tie at reach 1 and lose at 2-3; 3 planes lose for
      // f64 but win for f32, whose planes are half the bytes); reach 4 keeps 16x16 (star25 f32 at 32x8: +2.7 %).
      // Only where every part's rings still fit two blocks per SM with the queue heads in the rings: a kernel of
      // several ring fields keeps 16x16 rather than fall back to global heads, narrower vectors or L1.
      if (inPlaneReach >= 1 && inPlaneReach <= 3) {
        // The measured tiles, by element type and in-plane reach 1..3: threads along dims 2 and 1, planes in flight.
        struct WideTile {
          int blockX, blockY, prefetch;
        };
        static constexpr WideTile kF64[3] = {{64, 4, 3}, {64, 6, 2}, {32, 8, 2}};
        static constexpr WideTile kF32 = {32, 8, 3};
        const WideTile t = k.type == dag::ElemType::F64 ? kF64[inPlaneReach - 1] : kF32;
        dag::Schedule wide = s;
        wide.blockX = t.blockX;
        wide.blockY = t.blockY;
        wide.prefetch = t.prefetch;
        const long rowBytes = static_cast<long>(wide.blockX) * wide.vec * static_cast<long>(dag::elemSize(k.type));
        if (ringsFitEveryPart(ctx, k, wide)) {
          s = wide;
          s.reason += std::string("; ") + dag::elemTypeName(k.type) + " rings of in-plane reach " + std::to_string(inPlaneReach) + ": " +
                      std::to_string(s.blockX * s.vec) + "-point rows (" + std::to_string(rowBytes) + " bytes)" +
                      (s.prefetch == 3 ? ", 3 planes in flight" : "") + " measured faster than 16x16 threads on the H200 (reach 4 keeps them)";
        }
      }
    }
    // Kernels of more than two outputs (the fused CNS hypterm: 5 outputs, 8 queued fields) get rings at 32x4
    // threads of one point each when every part's rings fit the --smem=on budget. With the queues' heads in
    // the rings (prefetch 2, unroll 2; 171 KiB, one block per SM): hypterm_c 1007 -> 903 us, hypterm_rt
    // 999 -> 892 us (0.41 -> 0.46 of the floor; L1 at 32x4 is neutral; bench/results/2026-12-01-hypterm-staged.md).
    // With the heads from global memory, one plane in flight and no unrolling (69 KiB; two blocks per SM at
    // about 250 registers): 902 -> 838 us and 890 -> 758 us (0.49, 0.54); prefetch 2 or unrolling spilled, 32x8 tiles
    // ran 842-876 us (bench/results/2026-12-01-queue-heads.md).
    if (!boxLike && outputs > 2 && o.smem != "off") {
      dag::Schedule ring = s;
      ring.smem = 1;
      ring.blockX = 32;
      ring.blockY = 4;
      ring.prefetch = 2;
      if (o.queueHeads != "ring") {
        ring.heads = 1;
        ring.prefetch = 1;
        ring.unroll = 1;
      }
      if (ringsFitEveryPart(ctx, k, ring)) s = ring;
    }
    s.reason += "; block " + std::to_string(s.blockX) + "x" + std::to_string(s.blockY) + " (queues hold " + std::to_string(queueRegs) +
                " registers), unroll " + std::to_string(s.unroll) + ", " + std::to_string(s.rows) + " row(s) x " +
                std::to_string(s.vec) + " point(s) per thread (" + std::to_string(inPlaneLoads) + " in-plane loads, " +
                std::to_string(outputs) + " output(s))" +
                (s.smem ? "; planes through shared memory (cp.async ring, " + std::to_string(s.prefetch) + " in flight" +
                          (s.smem == 1 ? std::string("; more than two outputs: the --smem=on budget") +
                                             (s.heads ? ", queue heads from global memory" : "")
                                       : "") + ")"
                        : "");
  }
  // Options (the command line, a saved or an autotuned schedule) replace the policy's values; the reason,
  // which describes the policy's choice, says which.
  std::string forced;
  auto force = [&](bool set, int& field, int value, const std::string& what) {
    if (!set) return;
    if (field != value) appendItem(forced, what + " " + std::to_string(value));
    field = value;
  };
  const bool newBlock = (o.blockX > 0 && s.blockX != o.blockX) || (o.blockY > 0 && s.blockY != o.blockY);
  if (o.blockX > 0) s.blockX = o.blockX;
  if (o.blockY > 0) s.blockY = o.blockY;
  if (newBlock) forced = "block " + std::to_string(s.blockX) + "x" + std::to_string(s.blockY);
  s.chunk = o.chunk;
  force(o.unroll > 0, s.unroll, o.unroll, "unroll");
  force(o.prefetch >= 0, s.prefetch, o.prefetch, "prefetch");
  force(o.rows > 0, s.rows, o.rows, "rows");
  force(o.vec > 0, s.vec, o.vec, "vec");
  if (!forced.empty() && s.strategy != dag::Strategy::Naive)
    s.reason += "; overridden (options, the source's schedule, a saved or autotuned one): " + forced;
  // A vector is at most 16 bytes (one LDG.128 per thread); the naive mapping has no vector form.
  const int maxVec = static_cast<int>(16 / dag::elemSize(k.type));
  if (s.vec > maxVec) {
    s.reason += "; vec " + std::to_string(s.vec) + " exceeds 16 bytes of " + dag::elemTypeName(k.type) + ": vec " + std::to_string(maxVec);
    s.vec = maxVec;
  }
  if (s.strategy == dag::Strategy::Naive) s.vec = 1;
  if (s.strategy == dag::Strategy::SumFactor && s.vec != maxVec) {  // the shared-memory rows are read as 16-byte vectors
    if (o.vec > 0) s.reason += "; sumfactor reads one 16-byte vector per thread and row: vec " + std::to_string(maxVec);
    s.vec = maxVec;
  }
  if (s.strategy == dag::Strategy::SumFactor && s.prefetch < 1) s.prefetch = 1;  // the copy pipeline needs one plane in flight
  if (s.strategy == dag::Strategy::Tensor) {  // the mma fragments fix the block, its tile and the pipeline depth
    if (s.blockX != 32 || s.blockY != 4 || s.prefetch != 2 || s.rows != 1 || s.vec != 1 || s.unroll != 1)
      s.reason += "; the tensor schedule keeps block 32x4, prefetch 2 (only --chunk applies)";
    s.blockX = 32;
    s.blockY = 4;
    s.prefetch = 2;
    s.rows = s.vec = s.unroll = 1;
  }
  if (o.smem == "on") s.smem = 1;
  if (o.smem == "on" && o.prefetch < 0 && s.prefetch == 0) s.prefetch = 2;
  if (o.smem == "off") s.smem = 0;
  if (o.queueHeads != "auto") s.heads = o.queueHeads == "global" ? 1 : 0;
  if (o.tma != "auto") s.tma = o.tma == "on" ? 1 : 0;
  if (s.strategy != dag::Strategy::Stream) s.smem = 0;
  // The tensor memory accelerator fills the rings where a wave of long chunks is taken and the dim-0 reach is
  // 2 or more (session 14, bench/results/2026-12-01-s14-chunks.md §4, 256^3 f64): star19 85.3 -> 82.8 us,
  // star25_c 89.7 -> 86.1, star25_rt 92.4 -> 87.4; radius 1 loses (star7 78.3 -> 80.2), star13 and iso3dfd tied
  // then; star13 on its 64x6 tile gains 1.1-1.5 % in three calls (sessions 22-23: 78.1 -> 77.0-77.2 us, _c
  // 77.6-77.9 -> 76.8-77.2; bench/results/2026-12-02-s23-f32-tiles.md); kernels of short chunks lost before (the
  // acoustic inner region +2.5 %, hypterm +9 %; session 13).
  if (o.tma == "auto" && o.smVersion >= 90 && s.strategy == dag::Strategy::Stream && s.smem != 0 && !s.tma) {
    dag::Schedule t = s;
    t.tma = 1;
    bool pays = true;
    for (int part : dag::kernelParts(k)) {
      const SmemPlan sp = planSmem(ctx, k, part, t);
      pays = pays && sp.ok && sp.tma && sp.longChunks && sp.reach >= 2;
    }
    if (pays) {
      s.tma = 1;
      s.reason += "; tiles copied by the tensor memory accelerator (dim-0 reach 2 or more over rings of long chunks)";
    }
  }
  const TemporalPlan t = planTemporal(ctx, k);
  if (o.temporal == "off") {
    s.temporalWhy = "off (--temporal=off)";
  } else if (!t.ok) {
    s.temporalWhy = "not possible: " + t.why;
  } else {
    // auto: f64 kernels, fused at run time for fields of kTemporalAutoMinGiB or more (the measurement is at
    // its definition); f32 loses at every size measured (bench/results/2026-12-02-s18-box125.md).
    if (o.temporal == "on") {
      s.temporal = 1;
      s.temporalWhy = t.why + " (--temporal=on)";
    } else if (k.type == dag::ElemType::F64) {
      s.temporal = 2;
      s.temporalWhy = t.why + ", in cuda::step for fields of " + std::to_string(kTemporalAutoMinGiB) +
                      " GiB or more (measured on the H200, star7 f64: 1.13-1.14x at 768^3-1024^3, 1.04x at 512^3, 0.72x "
                      "at 256^3; --temporal=on fuses at every size)";
    } else {
      s.temporalWhy = "eligible, not used: measured to lose for f32 (star7 f32 pairs 0.59x / 0.70x / 0.71x at 512^3 / 800^3 / "
                      "1024^3 on the H200; f64: 1.13x at 768^3); --temporal=on forces it";
    }
  }
  return s;
}

std::vector<ScheduleOverride> scheduleCandidates(const ScheduleOverride& base) {
  std::vector<ScheduleOverride> c{base};
  auto add = [&](const std::string& strategy, int bx, int by, int rows, int prefetch, int unroll, int vec = 1,
                 const std::string& smem = "off", const std::string& heads = "auto") {
    ScheduleOverride o = base;
    o.strategy = strategy;
    o.blockX = bx;
    o.blockY = by;
    o.rows = rows;
    o.prefetch = prefetch;
    o.unroll = unroll;
    o.vec = vec;
    o.smem = smem;
    o.queueHeads = heads;  // (the user's --chunk, if any, stays)
    c.push_back(o);
  };
  // The policy's own schedule with other chunk lengths and with the tensor memory accelerator on and off (the
  // policy's rules for both are per class; per kernel they are measured here): box27_c 80.5-81.1 -> 76.0-77.0 us at
  // 128-plane chunks, where box27_rt loses 16-21 % and star13 20 % (sessions 22-23,
  // bench/results/2026-12-02-s23-f32-tiles.md). A candidate equal to the policy's choice is skipped.
  if (base.chunk <= 0)  // else the user's chunk stays
    for (int chunk : {64, 128}) {
      ScheduleOverride o = base;
      o.chunk = chunk;
      c.push_back(o);
    }
  if (base.tma == "auto")  // else the user's choice stays
    for (const char* tma : {"on", "off"}) {
      ScheduleOverride o = base;
      o.tma = tma;
      c.push_back(o);
    }
  add("naive", 32, 8, 1, 0, 1);
  add("stream", 32, 16, 1, 0, 1);
  add("stream", 32, 8, 1, 0, 1);
  add("stream", 32, 8, 1, 0, 2);
  add("stream", 32, 16, 1, 1, 1);
  add("stream", 32, 8, 2, 0, 1);
  add("stream", 32, 8, 4, 0, 1);
  add("stream", 32, 8, 4, 0, 2);
  // Vectors along the contiguous axis (vec 4 is clamped to 2 for f64, a duplicate the autotuner skips).
  add("stream", 32, 16, 1, 0, 1, 2);
  add("stream", 32, 8, 2, 0, 1, 2);
  add("stream", 32, 8, 4, 0, 1, 2);
  add("stream", 32, 8, 1, 0, 1, 4);
  add("stream", 32, 8, 2, 0, 1, 4);
  // Shared-memory planes through a cp.async ring, 2 planes in flight (16-byte vectors; 16x16 blocks
  // of 4 f32 points are 64-column tiles).
  add("stream", 16, 16, 1, 2, 1, 4, "on");
  add("stream", 32, 8, 1, 2, 1, 2, "on");
  add("stream", 32, 8, 1, 1, 1, 4, "on");
  // Rings of two rows per thread (session 8: star25_c 97.7 -> 93.4 us, star25_rt slower at 130 registers;
  // bench/results/2026-11-30-s8-sectors.md §6): measured per kernel, kept where it wins.
  add("stream", 16, 16, 2, 2, 1, 4, "on");
  // Queue heads from global memory (smaller rings; bench/results/2026-12-01-queue-heads.md): the policy's
  // choice for kernels of more than two outputs, and the same at 16x16 threads of one vector.
  add("stream", 32, 4, 1, 1, 1, 1, "on", "global");
  add("stream", 16, 16, 1, 2, 1, 4, "on", "global");
  return c;
}

namespace {

// o with the values request r sets: replacing o's where requestWins (a region's own request), else only where o
// leaves the choice to the policy (the command line first).
ScheduleOverride mergeRequest(const ScheduleOverride& o, const dag::ScheduleRequest& r, bool requestWins) {
  ScheduleOverride m = o;
  auto take = [&](bool unsetInO, bool setInR) { return setInR && (requestWins || unsetInO); };
  if (take(m.strategy == "auto", !r.strategy.empty())) m.strategy = r.strategy;
  if (take(m.blockX == 0 && m.blockY == 0, r.blockX > 0)) m.blockX = r.blockX, m.blockY = r.blockY;
  if (take(m.chunk == 0, r.chunk > 0)) m.chunk = r.chunk;
  if (take(m.unroll == 0, r.unroll > 0)) m.unroll = r.unroll;
  if (take(m.prefetch < 0, r.prefetch >= 0)) m.prefetch = r.prefetch;
  if (take(m.rows == 0, r.rows > 0)) m.rows = r.rows;
  if (take(m.vec == 0, r.vec > 0)) m.vec = r.vec;
  if (take(m.slabVec == 0, r.slabVec > 0)) m.slabVec = r.slabVec;
  if (take(m.smem == "auto", !r.smem.empty())) m.smem = r.smem;
  if (take(m.queueHeads == "auto", !r.heads.empty())) m.queueHeads = r.heads;
  if (take(m.tma == "auto", !r.tma.empty())) m.tma = r.tma;
  return m;
}

}  // namespace

bool forcesSchedule(const ScheduleOverride& o) {
  return o.strategy != "auto" || o.blockX > 0 || o.blockY > 0 || o.chunk > 0 || o.unroll > 0 || o.prefetch >= 0 || o.rows > 0 || o.vec > 0 ||
         o.smem != "auto" || o.queueHeads != "auto" || o.tma != "auto";
}

namespace {

// fillPartSchedules' first half: parts whose rings do not fit the kernel's schedule.
void fitPartRings(const dag::Context& ctx, dag::Kernel& k, const ScheduleOverride& o) {
  if (k.schedule.smem != 2) return;
  std::vector<std::pair<int, std::string>> misfits;  // parts whose rings do not fit, and why
  for (int part : dag::kernelParts(k)) {
    const SmemPlan sp = planSmem(ctx, k, part);
    if (!sp.ok) misfits.push_back({part, sp.why});
  }
  if (misfits.empty()) return;
  // Queue heads from global memory drop the ring planes between the in-plane reads and the heads: the
  // five single-output CNS kernels (rings of 136-144 KiB with their heads, L1 otherwise) then fit two
  // blocks per SM and the set runs 1670 -> 1384 us (runtime coefficients), 1937 -> 1388 us (constant);
  // kernels whose rings fit anyway keep their heads in the ring (global heads: star25 97 -> 182 us,
  // acoustic 2175 -> 2568 us; bench/results/2026-12-01-queue-heads.md).
  if (o.queueHeads == "auto" && !k.schedule.heads && misfits.size() == dag::kernelParts(k).size()) {
    dag::Schedule global = k.schedule;
    global.heads = 1;
    if (ringsFitEveryPart(ctx, k, global)) {
      k.schedule = global;
      k.schedule.reason += "; the rings fit only with the queues' heads loaded from global memory";
      return;
    }
  }
  ScheduleOverride l1o = o;  // what the user forced stays
  l1o.smem = "off";
  dag::Schedule l1 = chooseSchedule(ctx, k, l1o);
  l1.temporal = k.schedule.temporal;
  l1.temporalWhy = k.schedule.temporalWhy;
  if (misfits.size() == dag::kernelParts(k).size()) {  // no part has rings: one schedule again
    l1.reason = "no part's rings fit (" + misfits.front().second + "): the L1 policy; " + l1.reason;
    k.schedule = l1;
    return;
  }
  for (const auto& [part, why] : misfits) {
    // Narrower tiles first (fewer points per thread: the acoustic PML's five rings fit at 16x16 x 2
    // points, 68 KiB, and beat its L1 schedule 1.22 vs 1.39 ms; bench/results/2026-11-30-s5-pml.md),
    // unless the user chose the vector width; then the L1 policy.
    dag::Schedule narrow = k.schedule;
    bool fits = false;
    while (o.vec <= 0 && narrow.vec > 1 && !fits) {
      narrow.vec /= 2;
      fits = planSmem(ctx, k, part, narrow).ok;
    }
    if (fits) {
      k.partSchedules[part] = narrow;
      k.partSchedules[part].reason = "this part's rings do not fit at " + std::to_string(k.schedule.vec) + " point(s) per thread (" + why + "): " +
                                     std::to_string(narrow.vec) + " point(s) per thread, otherwise the kernel's schedule";
      continue;
    }
    k.partSchedules[part] = l1;
    k.partSchedules[part].reason = "this part's rings do not fit (" + why + "): the L1 policy; " + l1.reason;
  }
}

}  // namespace

ScheduleOverride partOverride(const ScheduleOverride& o, const dag::ScheduleRequest& r) { return mergeRequest(o, r, true); }

namespace {

// fillPartSchedules' last step: `schedule @ REGION STRATEGY(...)` gives that region's part the schedule the kernel's
// would be under the request (partOverride), on the stream or naive strategy (a part's kernel has no other); rings
// that do not fit then give way to L1 loads.
void applyPartRequests(const dag::Context& ctx, dag::Kernel& k, const ScheduleOverride& o) {
  for (const auto& [part, req] : k.partRequests) {
    ScheduleOverride po = partOverride(o, req);
    dag::Schedule s = chooseSchedule(ctx, k, po);
    if (s.strategy != dag::Strategy::Stream && s.strategy != dag::Strategy::Naive) {
      po.strategy = k.rank() == 3 ? "stream" : "naive";
      s = chooseSchedule(ctx, k, po);
    }
    if (s.strategy == dag::Strategy::Stream && s.smem) {
      const SmemPlan sp = planSmem(ctx, k, part, s);
      if (!sp.ok) {
        const std::string why = sp.why;
        po.smem = "off";
        s = chooseSchedule(ctx, k, po);
        s.reason = "the requested rings do not fit (" + why + "): L1 loads; " + s.reason;
      }
    }
    s.temporal = 0;
    s.temporalWhy.clear();
    s.reason += "; the source asks for schedule " + req.text;
    k.partSchedules[part] = s;
  }
}

}  // namespace

void fillPartSchedules(const dag::Context& ctx, dag::Kernel& k, const ScheduleOverride& o) {
  k.partSchedules.clear();
  fitPartRings(ctx, k, o);
  chooseSlabTma(ctx, k, o);
  applyPartRequests(ctx, k, o);
}

// The default part of a kernel with regions runs on the boxes left around them (stnc_rt::subtractBox: the
// acoustic sample's six PML faces). Per face of the 800^3 acoustic step (bench/results/2026-12-01-s13-tma-and-
// instructions.md §2, Nsight Compute): with the tensor memory accelerator the faces thin along dim 0 (27 planes,
// one chunk) run 161 -> 156 us and those thin along dim 1 (27 rows, two tile rows) 172 -> 148 us: their loops are
// issue-bound and the per-thread copies and chunk prologues it removes are a large share of them. The faces thin
// along dim 2 (27 columns) lose (201 -> 245 us: more DRAM reads), and so do kernels bound on the memory side (the
// inner region 1818 -> 1863 us). So the default part gets both kernels and its launch takes the accelerator for
// boxes thin along dim 0 or 1 and at least two tiles wide (Schedule::tma 2).
void chooseSlabTma(const dag::Context& ctx, dag::Kernel& k, const ScheduleOverride& o) {
  if (o.tma != "auto" || o.smVersion < 90 || k.regions.empty()) return;
  const std::vector<int> parts = dag::kernelParts(k);
  if (std::find(parts.begin(), parts.end(), -1) == parts.end()) return;
  dag::Schedule s = k.scheduleOf(-1);
  if (s.strategy != dag::Strategy::Stream || !s.smem || s.tma) return;
  const SmemPlan plain = planSmem(ctx, k, -1, s), viaTma = planSmemTma(ctx, k, -1, s);
  if (!plain.ok || !viaTma.ok || !viaTma.tma) return;
  s.tma = 2;
  s.reason += "; slab boxes (thin along dim 0 or 1, two tiles wide or more) copied by the tensor memory accelerator";
  // slab_vec (--slab-vec): the slab kernel at its own points per thread. Its boxes are whole rows wide, so the
  // lanes a 27-column PML face idles at wider tiles do not idle there (the acoustic shell's i- and j-faces hold
  // ~70 % of its points: PTX loop 311 instructions per 2 points at vec 2, 530 per 4 at vec 4, -15 % a point).
  const int maxVec = static_cast<int>(16 / dag::elemSize(k.type));
  if (o.slabVec > maxVec)
    s.reason += "; slab_vec " + std::to_string(o.slabVec) + " exceeds 16 bytes of " + dag::elemTypeName(k.type) + ": " + std::to_string(maxVec);
  if (o.slabVec > 0 && std::min(o.slabVec, maxVec) != s.vec) {
    dag::Schedule t = s;
    t.slabVec = std::min(o.slabVec, maxVec);
    const SmemPlan slab = planSmemTma(ctx, k, -1, t);
    if (slab.ok) {
      s.slabVec = t.slabVec;
      s.reason += " at " + std::to_string(s.slabVec) + " point(s) per thread (slab_vec)";
    } else {
      s.reason += "; slab_vec " + std::to_string(t.slabVec) + " not used: the slab kernel's rings do not fit (" + slab.why + ")";
    }
  }
  k.partSchedules[-1] = s;
}

ScheduleOverride withRequest(const ScheduleOverride& o, const dag::ScheduleRequest& r) { return r.present ? mergeRequest(o, r, false) : o; }

std::vector<std::string> ignoredOptions(const ScheduleOverride& o, const dag::Kernel& k, const dag::Schedule& s, std::string& why) {
  std::vector<std::string> opts;
  auto ignored = [&](bool given, const std::string& text) {
    if (given) opts.push_back(text);
  };
  if (s.strategy == dag::Strategy::Tensor) {  // chooseSchedule fixed its values: a given option that differs had no effect
    ignored(o.blockX > 0 && (o.blockX != s.blockX || o.blockY != s.blockY), "block " + std::to_string(o.blockX) + "x" + std::to_string(o.blockY));
    ignored(o.prefetch >= 0 && o.prefetch != s.prefetch, "prefetch " + std::to_string(o.prefetch));
    ignored(o.rows > 0 && o.rows != s.rows, "rows " + std::to_string(o.rows));
    ignored(o.vec > 0 && o.vec != s.vec, "vec " + std::to_string(o.vec));
    ignored(o.unroll > 0 && o.unroll != s.unroll, "unroll " + std::to_string(o.unroll));
    why = "the tensor schedule fixes block " + std::to_string(s.blockX) + "x" + std::to_string(s.blockY) + ", prefetch " + std::to_string(s.prefetch) +
          " and one point per thread for its mma fragments (only chunk applies; --tensor-cores=off leaves the sum to the other schedules)";
  } else if (s.strategy == dag::Strategy::Naive) {
    ignored(o.chunk > 0, "chunk " + std::to_string(o.chunk));
    ignored(o.prefetch > 0, "prefetch " + std::to_string(o.prefetch));
    ignored(o.rows > 1, "rows " + std::to_string(o.rows));
    ignored(o.vec > 1, "vec " + std::to_string(o.vec));
    ignored(o.unroll > 1, "unroll " + std::to_string(o.unroll));
    why = std::string("the naive schedule") + (k.rank() != 3 ? " (the stream schedule needs 3 axes)" : "") +
          " maps one point per thread; chunk, prefetch, rows, vec and unroll shape the stream schedule";
  } else if (s.strategy == dag::Strategy::SumFactor) {
    ignored(o.vec > 0 && o.vec != s.vec, "vec " + std::to_string(o.vec));
    why = "the sumfactor schedule reads one 16-byte vector per thread and row (vec " + std::to_string(s.vec) + ")";
  }
  return opts;
}

namespace {

const char* const kSlabVecWhy =
    "slab_vec shapes the second kernel of a region kernel's default part (the boxes around the regions that are thin "
    "along the first or second axis, their tiles copied by the tensor memory accelerator), which it has not";

// "a", "a and b", "a, b and c".
std::string listText(const std::vector<std::string>& items) {
  std::string list;
  for (size_t i = 0; i < items.size(); ++i) list += (i ? (i + 1 == items.size() ? " and " : ", ") : "") + items[i];
  return list;
}

}  // namespace

bool chooseSchedules(dag::Module& m, DiagEngine& diags, const ScheduleOverride& o) {
  for (dag::Kernel& k : m.kernels) {
    const ScheduleOverride ko = withRequest(o, k.request);
    k.schedule = chooseSchedule(m.ctx, k, ko);
    std::string why;
    const std::vector<std::string> ignored = ignoredOptions(ko, k, k.schedule, why);
    if (!ignored.empty())
      diags.report(DiagId::warn_schedule_option_unused, k.request.present ? k.request.loc : k.loc)
          << listText(ignored) + (ignored.size() > 1 ? " have" : " has") << k.name << why;
    if (k.request.present) k.schedule.reason += "; the source asks for schedule " + k.request.text;
    fillPartSchedules(m.ctx, k, ko);
    if (ko.slabVec > 0 && k.scheduleOf(-1).tma != 2)
      diags.report(DiagId::warn_schedule_option_unused, k.request.present && k.request.slabVec > 0 ? k.request.loc : k.loc)
          << "slab_vec " + std::to_string(ko.slabVec) + " has" << k.name << kSlabVecWhy;
    for (const auto& [part, req] : k.partRequests) {
      std::vector<std::string> unused = ignoredOptions(partOverride(ScheduleOverride{}, req), k, k.scheduleOf(part), why);
      if (req.slabVec > 0) {  // a region's part has no slab kernel
        unused.push_back("slab_vec " + std::to_string(req.slabVec));
        if (unused.size() == 1) why = kSlabVecWhy;
      }
      if (!unused.empty())
        diags.report(DiagId::warn_schedule_option_unused, req.loc)
            << listText(unused) + (unused.size() > 1 ? " have" : " has") << k.name + " @ " + k.regions[part].name << why;
    }
    chooseFusion(m.ctx, k, o.fuseRegions);
    chooseEdges(m.ctx, k, o.regionEdges);
    chooseAlignColumn(k, o.alignRegion);
  }
  return false;
}

}  // namespace stnc::passes
