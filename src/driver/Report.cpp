#include "driver/Report.h"

#include <algorithm>
#include <ostream>
#include <set>
#include <string>

#include "codegen/KernelBody.h"
#include "driver/PartResidency.h"
#include "passes/ChooseSchedule.h"
#include "passes/FactorSums.h"
#include "passes/Occupancy.h"
#include "passes/SmemPlan.h"

namespace stnc::driver {

KernelCost costOf(const dag::Context& ctx, const dag::Kernel& k, int part) {
  KernelCost c;
  const std::vector<dag::NodeId> live = part == -2 ? dag::liveNodes(ctx, k) : dag::liveNodes(ctx, k, part);
  std::set<std::string> read, written;
  for (dag::NodeId id : live) {
    const dag::Node& n = ctx.node(id);
    if (n.isLoad()) {  // Broadcast reads are loads too (cached: one per line or plane of the points that share them)
      ++c.loads;
      read.insert(ctx.name(n.sym));
    }
    if (n.kind == dag::NodeKind::Apply || n.kind == dag::NodeKind::Select) c.flops += n.kind == dag::NodeKind::Apply && n.op == dag::Op::Fma ? 2 : 1;
  }
  for (const dag::Output& o : k.outputs)
    if (part == -2 || o.region == part) written.insert(o.field);
  c.queuedLoads = c.loads;
  if (k.schedule.strategy == dag::Strategy::Stream)
    for (const dag::Field& f : k.fields) {
      int lo, hi;
      if (!dag::isRead(f.role) || !passes::queueSpan(ctx, k, f.name, lo, hi, part)) continue;
      int inQueue = 0;
      for (dag::NodeId id : live) {
        const dag::Node& n = ctx.node(id);
        if (n.kind == dag::NodeKind::Access && ctx.name(n.sym) == f.name && n.offset.d[1] == 0 && n.offset.d[2] == 0) ++inQueue;
      }
      c.queuedLoads -= inQueue - 1;
    }
  const int es = static_cast<int>(dag::elemSize(k.type));
  for (const dag::Field& f : k.fields) {
    if (f.lowerRank()) continue;  // a profile is read once per line or plane, not per point
    const bool r = part == -2 ? dag::isRead(f.role) : read.count(f.name) > 0;
    const bool w = part == -2 ? dag::isWritten(f.role) : written.count(f.name) > 0;
    c.bytes += es * ((r ? 1 : 0) + (w ? 1 : 0));
  }
  return c;
}

namespace {
// Whether the kernel was compiled with FMA contraction (--fp-contract=on left fma nodes).
bool hasFma(const dag::Context& ctx, const dag::Kernel& k) {
  for (dag::NodeId id : dag::liveNodes(ctx, k))
    if (ctx.node(id).kind == dag::NodeKind::Apply && ctx.node(id).op == dag::Op::Fma) return true;
  return false;
}

// With ptxas's registers (--verify-schedules): each stream part's resident blocks per SM, and for a region
// kernel how many of the default part's blocks fit beside each region's (its parts run concurrently on lanes:
// only blocks that fit beside the region's overlap its kernel; passes/Occupancy.h).
void printResidency(std::ostream& os, const dag::Module& m, const dag::Kernel& k, const std::map<std::string, PtxasInfo>& ptxas, int smVersion) {
  if (k.schedule.strategy != dag::Strategy::Stream || ptxas.empty()) return;
  const passes::SmLimits sm = passes::smLimits(smVersion);
  std::map<int, passes::BlockUse> use = partBlockUses(m, k, ptxas);
  auto resident = [&](const std::string& label, const passes::BlockUse& b) {
    const passes::Residency r = passes::residentBlocks(b, sm);
    os << "  resident : " << label << ": " << b.registers << " registers, " << b.threads << " threads, " << b.smem / 1024 << " KiB: " << r.blocks
       << " block(s) per SM (" << r.limit << ")\n";
  };
  for (const auto& [part, b] : use) resident(k.regions.empty() ? std::string("kernel") : dag::partLabel(k, part), b);
  passes::BlockUse slab;
  if (slabBlockUse(m, k, ptxas, slab)) resident("default part, slab kernel", slab);
  if (!use.count(-1)) return;
  for (const auto& [part, b] : use) {
    if (part < 0) continue;
    const int n = passes::residentBlocks(b, sm).blocks;
    const passes::Residency r = passes::residentBlocks(use[-1], sm, {{b, n}});
    os << "  overlap  : " << r.blocks << " block(s) of the default part fit beside " << n << " of " << dag::partLabel(k, part)
       << " (" << r.limit << ")" << (r.blocks ? "" : ": its launches overlap that kernel only where its blocks leave an SM") << "\n";
  }
}
}  // namespace

void printReport(std::ostream& os, const dag::Module& m, const std::map<std::string, PtxasInfo>& ptxas, int smVersion) {
  for (const dag::Kernel& k : m.kernels) {
    KernelCost c = costOf(m.ctx, k);
    os << (k.isGroup ? "group " : "stencil ") << k.name << " (" << dag::elemTypeName(k.type) << ", rank " << k.rank() << ")\n";
    os << "  schedule : " << dag::strategyName(k.schedule.strategy) << ", block " << k.schedule.blockX << "x"
       << k.schedule.blockY << (k.schedule.chunk ? ", chunk " + std::to_string(k.schedule.chunk) : std::string())
       << (k.schedule.unroll > 1 ? ", unroll " + std::to_string(k.schedule.unroll) : std::string())
       << (k.schedule.prefetch > 0 ? ", prefetch " + std::to_string(k.schedule.prefetch) : std::string())
       << (k.schedule.rows > 1 ? ", rows " + std::to_string(k.schedule.rows) : std::string())
       << (k.schedule.vec > 1 ? ", vec " + std::to_string(k.schedule.vec) : std::string())
       << (k.schedule.smem ? ", shared-memory planes" : std::string())
       << (k.schedule.smem && k.schedule.heads ? " (queue heads from global memory)" : std::string())
       << (k.schedule.smem && k.schedule.tma == 1 ? " (tiles copied by the tensor memory accelerator)" : std::string()) << "\n";
    for (const auto& [part, ps] : k.partSchedules)
      os << "  part     : " << dag::partLabel(k, part) << ": own schedule "
         << dag::strategyName(ps.strategy) << ", block " << ps.blockX << "x" << ps.blockY << ", vec " << ps.vec << ", rows " << ps.rows
         << ", unroll " << ps.unroll << " (" << ps.reason << ")\n";
    for (int part : dag::kernelParts(k)) {
      if (!k.scheduleOf(part).smem) continue;  // the part's own schedule, if it has one
      const passes::SmemPlan sp = passes::planSmem(m.ctx, k, part);
      os << "  smem     : " << dag::partLabel(k, part) << ": ";
      if (!sp.ok) {
        os << "L1 loads (" << sp.why << ")\n";
        continue;
      }
      os << sp.bytes / 1024 << " KiB per block (" << sp.blocksPerSm << " per SM), " << sp.depth << " plane(s) in flight;";
      for (const passes::SmemRing& r : sp.rings)
        os << " " << r.field << " " << r.rows << "x" << r.cols << "x" << r.slots;
      // The chunk length is sized at launch (stnc_rt::ringChunk); what the codegen decided for it:
      const long lo = 8L * sp.reach, hi = std::max(lo, sp.maxChunk);
      os << "; chunks: " << (sp.longChunks ? "one wave of long chunks when the tile columns fit, else " : "") << "about 8 waves of "
         << (lo == hi ? std::to_string(lo) : std::to_string(lo) + ".." + std::to_string(hi)) << " planes (dim-0 reach " << sp.reach << ")";
      if (k.scheduleOf(part).tma == 2) {
        const passes::SmemPlan viaTma = passes::planSmemTma(m.ctx, k, part);
        os << "; slab boxes (thin along dim 0 or 1, two tiles wide or more): a second kernel whose tiles the tensor memory "
              "accelerator copies, "
           << viaTma.bytes / 1024 << " KiB per block (" << viaTma.blocksPerSm << " per SM)";
        if (k.scheduleOf(part).slabVec > 0) os << ", " << k.scheduleOf(part).slabVec << " points per thread (slab_vec)";
      }
      os << "\n";
    }
    os << "  temporal : " << (k.schedule.temporalWhy.empty() ? "-" : k.schedule.temporalWhy) << "\n";
    if (!k.fusionWhy.empty()) os << "  fusion   : " << k.fusionWhy << "\n";
    if (!k.edgeWhy.empty()) os << "  edges    : " << k.edgeWhy << "\n";
    if (!k.alignWhy.empty()) os << "  align    : " << k.alignWhy << "\n";
    if (!k.regions.empty())
      os << "  parts    : CUDA: up to " << dag::partLaunchLanes(k)
         << " launches per sweep (each region's box, the default part's boxes around them) run concurrently, one stream each, "
            "forked from and joined into the caller's (one stream when regions overlap)\n";
    if (k.tensorSum) {
      os << "  tensor   : " << k.tensorSum->terms.size() << " terms of " << k.tensorSum->field
         << " as one fma chain in (plane, row, column) order (as written, or so reassociated by --factor-sums=on): the FP64 "
            "tensor cores compute it bit for bit (--tensor-cores=off leaves it to the other schedules)\n";
    } else if (k.sumFactor) {
      const dag::SumFactor& f = *k.sumFactor;
      os << "  factored : shared partial sums of " << f.field << " (" << f.terms.size() << " terms over planes " << f.d0lo() << ".."
         << f.d0hi() << ", " << f.classes.size() << " plane class(es)): " << f.naiveOps << " -> " << f.sharedOps
         << " operations per point (--factor-sums=on)\n";
    } else {
      std::string why;
      if (std::optional<dag::SumFactor> f = passes::analyzeSumFactor(m.ctx, k, hasFma(m.ctx, k), &why))
        os << "  factored : possible: --factor-sums=on would share partial sums of " << f->field << " (" << f->naiveOps << " -> "
           << f->sharedOps << " operations per point; rounding then differs from the sum as written)\n";
      else if (why.rfind("the sum is not", 0) == 0 || why.rfind("shared partial sums", 0) == 0)
        os << "  factored : no: " << why << "\n";  // a weighted sum that --factor-sums=on leaves as written
    }
    os << "  why      : " << k.schedule.reason << "\n";
    auto it = ptxas.find(k.name);
    if (it != ptxas.end())
      os << "  ptxas    : " << it->second.registers << " registers, " << it->second.spillStores << " B spill stores, "
         << it->second.stackFrame << " B stack\n";
    printResidency(os, m, k, ptxas, smVersion);
    os << "  loads/pt : " << c.loads << " distinct accesses";
    if (c.queuedLoads != c.loads) os << ", " << c.queuedLoads << " after register queues";
    os << "\n  flops/pt : " << c.flops << "\n  bytes/pt : " << c.bytes << " compulsory (each field read once, written once)\n";
    os << "  intensity: " << (c.bytes ? static_cast<double>(c.flops) / c.bytes : 0.0) << " flop/byte ("
       << (static_cast<double>(c.flops) / c.bytes > 7.9 ? "FP64-bound on an H200" : "memory-bound on an H200") << ")\n";
    if (!k.regions.empty())  // each part is its own kernel with its own floor
      for (int part : dag::kernelParts(k)) {
        const KernelCost pc = costOf(m.ctx, k, part);
        os << "  part cost: " << dag::partLabel(k, part) << ": " << pc.loads
           << " loads, " << pc.flops << " flops, " << pc.bytes << " compulsory bytes per point\n";
      }
  }
}

}  // namespace stnc::driver
