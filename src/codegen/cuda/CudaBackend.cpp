// The CUDA backend: per kernel, the sweep of every part under its schedule (naive here; stream in
// StreamKernel, sumfactor in SumFactorKernel, the fused region kernel via StreamKernel), the launchers
// that split a box into launches, boundary fills, the step loop (CUDA graph, temporal pairs from
// TemporalPair) and the C entry point of `stnc run`. Naive: a 2-D thread block over the two inner
// dimensions (32 threads along the contiguous one for coalesced rows), grid-stride loops over all three,
// one output point per thread iteration; every distinct (field, offset) is one load (__restrict__, const
// inputs go through the read-only path). Compiled with -fmad=false so results equal the CPU backend's
// bit for bit. Schedules are chosen by the middle end (passes/ChooseSchedule; docs/DESIGN.md).
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "codegen/Backends.h"
#include "codegen/KernelBody.h"
#include "codegen/cuda/ConstantTable.h"
#include "codegen/cuda/LaunchText.h"
#include "codegen/cuda/StreamKernel.h"
#include "codegen/cuda/SumFactorKernel.h"
#include "codegen/cuda/TensorSumKernel.h"
#include "codegen/cuda/TemporalPair.h"
#include "passes/ChooseSchedule.h"
#include "passes/FuseRegions.h"
#include "passes/RegionEdges.h"
#include "passes/SmemPlan.h"
#include "support/IntMath.h"
#include "support/Text.h"

namespace stnc::codegen {

namespace {

std::string restrictArgs(const dag::Kernel& k) {
  std::string s;
  for (const dag::Field& f : k.fields)
    appendItem(s, std::string(f.role == dag::Role::In ? "const real* __restrict__ " : "real* __restrict__ ") + cIdent(f.name));
  for (const std::string& p : k.params) s += ", const real " + cIdent(p);
  return s;
}


std::string scheduleComment(const dag::Context& ctx, const dag::Kernel& k) {
  const dag::Schedule& s = k.schedule;
  std::string c = "schedule (cuda): " + std::string(dag::strategyName(s.strategy)) + ", block " + std::to_string(s.blockX) +
                  " x " + std::to_string(s.blockY) + " over (dim 2, dim 1)";
  if (s.strategy == dag::Strategy::Stream) {
    c += ", each thread walks a chunk of dim 0 (" + (s.chunk > 0 ? std::to_string(s.chunk) : std::string("sized at launch from the SM count")) + ")";
    if (s.prefetch > 0) c += ", queues load " + std::to_string(s.prefetch) + " plane(s) ahead";
    if (s.unroll > 1) c += ", loop unrolled " + std::to_string(s.unroll) + "x";
    if (s.rows > 1) c += ", " + std::to_string(s.rows) + " dim-1 rows per thread (loads shared between the rows)";
    if (s.vec > 1)
      c += ", " + std::to_string(s.vec) + " consecutive dim-2 points per thread (" + std::to_string(s.vec * dag::elemSize(k.type)) +
           "-byte vector loads and stores; in-row neighbours shared)";
    for (const Queue& q : queuesOf(ctx, k))
      c += "\n  register queue: " + q.field + " at " + k.axes[0] + "" + std::to_string(q.lo) + ".." + std::to_string(q.hi) +
           " (one new load per point instead of " + std::to_string(q.hi - q.lo + 1) + ")" +
           (s.smem && s.heads ? ", from global memory " + std::to_string(s.prefetch) + " plane(s) ahead" : "");
  } else if (s.strategy == dag::Strategy::Tensor) {
    c += ", 4 warps of 3 rows x 32 columns (a 12 x 32 tile), each plane's products on the FP64 tensor cores (mma.sync m16n8k4), chunks of dim 0 (" +
         (s.chunk > 0 ? std::to_string(s.chunk) : std::string("sized at launch to fill whole waves")) + "), tiles 2 planes ahead in shared memory";
  } else if (s.strategy == dag::Strategy::SumFactor) {
    c += ", " + std::to_string(s.rows) + " rows x " + std::to_string(s.vec) + " points per thread; each thread walks the planes of a chunk of dim 0 (" +
         (s.chunk > 0 ? std::to_string(s.chunk) : std::string("sized at launch from the SM count")) + "), tiles arrive in shared memory " +
         std::to_string(s.prefetch) + " plane(s) ahead";
  } else {
    c += ", grid-stride over all dims, one point per thread iteration";
  }
  c += "\n  why: " + s.reason;
  for (const auto& [part, ps] : k.partSchedules)
    c += "\n  " + std::string(part < 0 ? "the " : "") + dag::partLabel(k, part) + " has its own schedule: block " +
         std::to_string(ps.blockX) + "x" + std::to_string(ps.blockY) + ", vec " + std::to_string(ps.vec) + " (" + ps.reason + ")";
  return c;
}

void emitBlockConstants(CPrinter& p, const dag::Kernel& k) {
  p.line("constexpr int kBlockX = " + std::to_string(k.schedule.blockX) + ";  // along the contiguous dimension (coalesced rows)");
  p.line("constexpr int kBlockY = " + std::to_string(k.schedule.blockY) + ";");
}

std::string launchName(const dag::Kernel& k, int part) {
  return part < 0 ? "launchPart" : "launchPart_" + cIdent(k.regions[part].name);
}

void emitNaive(CPrinter& p, const dag::Module& m, const dag::Kernel& k, int part) {
  const std::string kname = partName(k, part);
  p.openScope("__global__ void __launch_bounds__(kBlockX * kBlockY) " + kname +
              "(const stnc_rt::Layout L_, const stnc_rt::Box B_, " + restrictArgs(k) + ")");
  std::string unused = usedNamesVoidCast(m.ctx, k, false, part);
  if (!unused.empty()) p.line(unused);
  p.line("const long s0_ = L_.stride[0];");
  p.line("const long s1_ = L_.stride[1];");
  p.line("(void)s0_; (void)s1_;");
  p.line("// Columns start at a multiple of kBlockX (a box starting mid-row, like a region, keeps whole-line loads).");
  p.line("const long z_ = stnc_rt::alignCol(kLayoutPhase, B_.lo[2], kBlockX) + blockIdx.x * static_cast<long>(kBlockX) + threadIdx.x;");
  p.line("const long y_ = B_.lo[1] + blockIdx.y * static_cast<long>(kBlockY) + threadIdx.y;");
  p.line("if (z_ < B_.lo[2] || z_ >= B_.hi[2] || y_ >= B_.hi[1]) return;");
  p.openScope("for (long x_ = B_.lo[0] + blockIdx.z; x_ < B_.hi[0]; x_ += gridDim.z)  // one plane per block unless n0 > 65535");
  p.line("const long p_ = stnc_rt::at(L_, x_, y_, z_);");
  emitPointBody(p, m.ctx, k, part, nullptr, nullptr, kCudaDivide, constantRef(m.ctx, k));
  p.closeScope("for x_");
  p.closeScope(kname);
  p.line();
  p.openScope("cudaError_t " + launchName(k, part) + "(const stnc_rt::Layout& L_, const stnc_rt::Box& B_, " +
              declArgs(k, ArgMode::Sweep) + ", cudaStream_t stream_)");
  p.line("const long gx_ = (B_.hi[2] - stnc_rt::alignCol(kLayoutPhase, B_.lo[2], kBlockX) + kBlockX - 1) / kBlockX, gy_ = (B_.hi[1] - B_.lo[1] + kBlockY - 1) / kBlockY;");
  p.line("if (gy_ > 65535 || gx_ > 2147483647L) return cudaErrorInvalidConfiguration;");
  p.line("const long nx_ = B_.hi[0] - B_.lo[0];");
  p.line("const dim3 block_(kBlockX, kBlockY, 1);");
  p.line("const dim3 grid_(static_cast<unsigned>(gx_), static_cast<unsigned>(gy_), static_cast<unsigned>(nx_ < 65535 ? nx_ : 65535));");
  p.line(kname + "<<<grid_, block_, 0, stream_>>>(L_, B_, " + callArgs(k, ArgMode::Sweep) + ");");
  p.line("return cudaGetLastError();");
  p.closeScope(launchName(k, part));
}

// Launches kernel `kname` (a tile of rows x vec points per thread) over box `box`; the code returns
// on error.
// sp: the kernel's shared-memory rings (dynamic shared memory; fewer resident blocks per SM).
// extra: kernel arguments between the box and the chunk (the fused kernel's region box).
// banded: the kernel decodes its tile column and chunk from a grid of bands (StreamEmitter::emitBandedBlock).
void emitStreamLaunch(CPrinter& p, const std::string& kname, const std::string& box, int rows, int vec, const std::string& args,
                      const passes::SmemPlan* sp = nullptr, const std::string& extra = "", bool banded = false) {
  const std::string cols = vec > 1 ? "kBlockX * " + std::to_string(vec) : "kBlockX";
  p.openScope("");
  p.line("const stnc_rt::Box& b_ = " + box + ";");
  p.line("const long nx_ = b_.hi[0] - b_.lo[0];");
  p.line("const long gx_ = (b_.hi[2] - stnc_rt::alignCol(kLayoutPhase, b_.lo[2], " + cols + ") + " + cols + " - 1) / (" + cols +
         "), gy_ = (b_.hi[1] - b_.lo[1] + kBlockY * " + std::to_string(rows) + " - 1) / (kBlockY * " + std::to_string(rows) + ");");
  p.line("if (gy_ > 65535) return cudaErrorInvalidConfiguration;");
  const std::string bytes = sp ? std::to_string(sp->bytes) : "0";
  if (sp) {
    if (sp->bytes > 48 * 1024)
      p.line("if (cudaError_t e_ = cudaFuncSetAttribute(" + kname + ", cudaFuncAttributeMaxDynamicSharedMemorySize, " + bytes +
             ")) return e_;  // above the 48 KiB default (per device: set at every launch)");
    p.line("static int occ_ = 0;  // resident blocks per SM (registers and shared memory), read once");
    p.line("if (occ_ == 0 && (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_, " + kname + ", kBlockX * kBlockY, " + bytes +
           ") != cudaSuccess || occ_ <= 0)) occ_ = " + std::to_string(sp->blocksPerSm) + ";  // (the rings alone allow that many)");
    p.line(std::string("// ") + (sp->longChunks ? "One wave of long chunks for few columns, else ~8" : "About 8") + " waves of chunks of " +
           std::to_string(8 * sp->reach) + " (8 x the dim-0 reach " + std::to_string(sp->reach) + ") .. " + std::to_string(sp->maxChunk) +
           " planes" + (sp->shortChunks ? " (one field, reach 1-2: the shortest chunks keep tile columns in step, measured)"
                                : sp->maxChunk < 64 ? " (few queued fields: short prologues)" : "") + ": stnc_rt::ringChunk.");
    p.line("long chunk_ = kChunk > 0 ? kChunk : stnc_rt::ringChunk(nx_, gx_ * gy_, occ_, kBlockX * kBlockY, sms_, " +
           std::to_string(8 * sp->reach) + "L, " + (sp->longChunks ? "true" : "false") + ", " + std::to_string(sp->maxChunk) + "L);");
  } else {
    p.line("// Enough blocks for ~8 resident 256-thread blocks per SM; longer chunks amortise the queue prologue.");
    p.line("long chunk_ = kChunk > 0 ? kChunk : (nx_ * gx_ * gy_ + 8L * sms_ - 1) / (8L * sms_);");
  }
  if (banded) {
    emitChunkClamp(p);
    p.line("// Bands of whole rows of tile columns, about one wave of resident blocks (all rows when fewer), each band's");
    p.line("// chunks in order (stnc_rt::ringBandRows, stnc_rt::bandedTile): the grid's third dimension is bands x chunks.");
    p.line("const long nz_ = (nx_ + chunk_ - 1) / chunk_, rowsB_ = stnc_rt::ringBandRows(gx_, gy_, nz_, occ_, sms_);");
    p.line("if ((gy_ + rowsB_ - 1) / rowsB_ * nz_ > 65535) return cudaErrorInvalidConfiguration;");
    p.line("const dim3 block_(kBlockX, kBlockY, 1);");
    p.line("const dim3 grid_(static_cast<unsigned>(gx_), static_cast<unsigned>(rowsB_), static_cast<unsigned>((gy_ + rowsB_ - 1) / rowsB_ * nz_));");
  } else {
    emitChunkedGrid(p);
  }
  p.line(kname + "<<<grid_, block_, " + bytes + ", stream_>>>(L_, b_, " + extra + "chunk_, " + args + ");");
  p.line("if (cudaError_t e_ = cudaGetLastError()) return e_;");
  p.closeScope("");
}

// True (in the launcher) when box B_ is narrower than one tile of `vec`-point groups (a PML face a few
// columns wide): most lanes of a tile would idle, so the one-point kernel takes it. Rings copy whole
// tiles, columns outside the box included, so a ring tile only needs to be three quarters used
// (a 27-column PML face in a 32-column tile: 16x16 threads of 2 points).
std::string narrowBox(int vec, bool ring = false) {
  return "B_.hi[2] - B_.lo[2] < kBlockX * " + std::to_string(vec) + (ring ? " * 3 / 4" : "");
}

// A launcher's column count `v` less kLayoutPhase (the header; passes/AlignRegion): the kernels place tiles and
// vectors on layout()'s grid, so their arrays' interior column 0 must lie that many columns past a multiple of the
// alignment tested. As written where the phase is 0.
std::string lessPhase(const dag::Kernel& k, const std::string& v) { return layoutPhase(k) ? "(" + v + " - kLayoutPhase)" : v; }

// The condition under which the layout's rows and the field pointers are aligned to `elems` elements.
std::string alignedCondition(const dag::Kernel& k, const std::string& elems, const std::string& bytes) {
  std::string aligned = lessPhase(k, "L_.origin") + " % " + elems + " == 0 && L_.stride[1] % " + elems + " == 0 && L_.stride[0] % " + elems + " == 0";
  for (const dag::Field& f : k.fields)
    if (!f.lowerRank()) aligned += " && reinterpret_cast<unsigned long>(" + cIdent(f.name) + ") % " + bytes + " == 0";
  return aligned;
}

// The launch of ring kernel `kname` whose tiles the tensor memory accelerator copies (SmemPlan::tma), when
// `condition` holds and every ring's tensor map encodes; the code opens `if (maps_)` and the caller's next
// scope is its `else`.
void emitTmaLaunch(CPrinter& p, const dag::Kernel& k, const passes::SmemPlan& sp, const std::string& kname, int rows, int vec,
                   const std::string& args, const std::string& condition, const std::string& otherwise) {
  const std::string per = std::to_string(16 / dag::elemSize(k.type));
  // Each map covers the box grown by its ring's footprint (what the cp.async ring's clipping reads); its
  // first column must be 16-byte aligned within the allocation (aligned pads), and it reads nothing outside it.
  p.line("// The maps need the driver's encoder (cudaGetDriverEntryPointByVersion); without it " + otherwise + " runs.");
  p.line("bool maps_ = " + condition + ";");
  p.line("long text_[3];");
  std::string maps;
  for (const passes::SmemRing& r : sp.rings) {
    const std::string f = cIdent(r.field);
    const int lo[3] = {r.amin, r.lo1, r.a2}, hi[3] = {r.amax, r.hi1, r.hi2};
    p.line("// " + r.field + ": planes " + std::to_string(lo[0]) + " .. " + std::to_string(hi[0]) + ", rows " + std::to_string(lo[1]) + " .. " +
           std::to_string(hi[1]) + ", columns " + std::to_string(lo[2]) + " .. " + std::to_string(hi[2]) + " around the box");
    p.line("const long " + f + "lo_[3] = {" + std::to_string(lo[0]) + ", " + std::to_string(lo[1]) + ", " + std::to_string(lo[2]) + "}, " + f + "hi_[3] = {" +
           std::to_string(hi[0]) + ", " + std::to_string(hi[1]) + ", " + std::to_string(hi[2]) + "};");
    p.line("const stnc_rt::TileOrigin " + f + "O_ = stnc_rt::tileRegion(L_, B_, " + f + "lo_, " + f + "hi_, " + per + ", text_);");
    p.line("CUtensorMap " + f + "M_{};");
    p.line("maps_ = maps_ && stnc_rt::tileMap(&" + f + "M_, " + f + ", L_, " + f + "O_, text_, " + std::to_string(r.rows) + ", " +
           std::to_string(r.cols) + ") == cudaSuccess;");
    maps += ", " + f + "M_, " + f + "O_";
  }
  p.openScope("if (maps_)");
  emitStreamLaunch(p, kname, "B_", rows, vec, args + maps, &sp, "", true);
  p.closeScope("");
}

void emitStream(CPrinter& p, const dag::Module& m, const dag::Kernel& k, int part) {
  const std::string kname = partName(k, part);
  const int rows = std::max(1, k.schedule.rows), vec = std::max(1, k.schedule.vec);
  const passes::SmemPlan sp = passes::planSmem(m.ctx, k, part);
  if (sp.ok) p.line("// shared-memory rings: " + std::to_string(sp.bytes) + " bytes per block, " + std::to_string(sp.blocksPerSm) + " block(s) per SM");
  else if (k.schedule.smem) p.line("// no shared-memory rings for this part: " + sp.why + "; L1 loads");
  emitStreamKernel(p, m, k, part, rows, vec, kname, restrictArgs(k), sp.ok ? &sp : nullptr);
  // Schedule::tma 2 (passes::chooseSlabTma): a second kernel whose rings the tensor memory accelerator fills,
  // for the slab boxes of the part.
  const passes::SmemPlan spT = k.schedule.tma == 2 && sp.ok ? passes::planSmemTma(m.ctx, k, part, k.schedule) : passes::SmemPlan{};
  const bool slabs = spT.ok && spT.tma;
  dag::Kernel kt = k;  // the slab kernel's: the kernel emitter reads the schedule from the kernel
  kt.schedule = passes::slabSchedule(k.schedule);
  const int vecT = std::max(1, kt.schedule.vec);
  if (slabs) {
    p.line("// The same part for slab boxes (thin along dim 0 or 1, two tiles wide or more), its tiles copied by the tensor memory");
    p.line("// accelerator: " + std::to_string(spT.bytes) + " bytes of rings per block, " + std::to_string(spT.blocksPerSm) + " block(s) per SM" +
           (vecT != vec ? ", " + std::to_string(vecT) + " points per thread (slab_vec: slab boxes are whole rows wide)." : "."));
    emitStreamKernel(p, m, kt, part, rows, vecT, kname + "_tma", restrictArgs(k), &spT);
  }
  // Rows left over when the box's dim-1 extent is not a multiple of `rows`, and columns outside the
  // box's vec-aligned span: one point per thread (with rings: only for unaligned layouts).
  const bool tiled = rows > 1 || vec > 1 || sp.ok;
  if (tiled) emitStreamKernel(p, m, k, part, 1, 1, kname + "_rest", restrictArgs(k));
  p.openScope("cudaError_t " + launchName(k, part) + "(const stnc_rt::Layout& L_, const stnc_rt::Box& B_, " +
              declArgs(k, ArgMode::Sweep) + ", cudaStream_t stream_)");
  emitSmCount(p);
  const std::string args = callArgs(k, ArgMode::Sweep);
  if (sp.ok) {
    const std::string per = std::to_string(16 / dag::elemSize(k.type));
    p.line("// The rings copy 16-byte chunks: rows and pointers must be 16-byte aligned (stnc_rt::makeLayout's are),");
    p.line("// otherwise the one-point kernel takes the whole box.");
    p.line("// A box narrower than three quarters of a tile goes there too (most lanes of a tile would idle).");
    const std::string ringable = "!(" + narrowBox(vec, true) + ") && " + alignedCondition(k, per, "16");
    if (sp.tma) {
      emitTmaLaunch(p, k, sp, kname, rows, vec, args, ringable + " && " + lessPhase(k, "L_.pad[2]") + " % " + per + " == 0", "the one-point kernel");
    } else if (slabs) {
      p.line("// Slab boxes (passes::chooseSlabTma; bench/results/2026-12-01-s15-slab-tma.md): thin along dim 0 (at most 64 planes)");
      p.line("// or dim 1 (at most two tile rows) and at least two tiles wide go to the kernel the accelerator feeds.");
      p.line("const bool slab_ = (B_.hi[0] - B_.lo[0] <= 64 || B_.hi[1] - B_.lo[1] <= 2 * kBlockY * " + std::to_string(rows) + ") && B_.hi[2] - B_.lo[2] >= 2 * kBlockX * " +
             std::to_string(vecT) + ";");
      emitTmaLaunch(p, kt, spT, kname + "_tma", rows, vecT, args, "slab_ && " + ringable + " && " + lessPhase(k, "L_.pad[2]") + " % " + per + " == 0",
                    "the cp.async kernel");
      p.openScope("else if (" + ringable + ")");
      emitStreamLaunch(p, kname, "B_", rows, vec, args, &sp, "", true);
      p.closeScope("");
    } else {
      p.openScope("if (" + ringable + ")");
      emitStreamLaunch(p, kname, "B_", rows, vec, args, &sp, "", true);
      p.closeScope("");
    }
    p.openScope("else");
    emitStreamLaunch(p, kname + "_rest", "B_", 1, 1, args);
    p.closeScope("");
    p.line("return cudaSuccess;");
    p.closeScope(launchName(k, part));
    return;
  }
  if (!tiled) {
    emitStreamLaunch(p, kname, "B_", 1, 1, args);
    p.line("return cudaSuccess;");
    p.closeScope(launchName(k, part));
    return;
  }
  const std::string R = std::to_string(rows), V = std::to_string(vec);
  if (vec > 1) {
    p.line("// A box narrower than one tile of " + V + "-point groups (a PML face a few columns wide): the one-point kernel.");
    p.openScope("if (" + narrowBox(vec) + ")");
    emitStreamLaunch(p, kname + "_rest", "B_", 1, 1, args);
    p.line("return cudaSuccess;");
    p.closeScope("");
  }
  p.line("// The tiled kernel takes rows in multiples of " + R + (vec > 1 ? " and columns in aligned groups of " + V : std::string()) +
         "; the rest (at most 3 boxes) one point per thread.");
  p.line("stnc_rt::Box main_ = B_, rest_[3] = {B_, B_, B_};");
  p.line("main_.hi[1] = B_.lo[1] + (B_.hi[1] - B_.lo[1]) / " + R + " * " + R + ";");
  if (vec > 1) {
    // The vector groups a thread reads span these dim-2 offsets from its first column z_.
    int minD = 0, maxD = 0;
    for (dag::NodeId id : dag::liveNodes(m.ctx, k, part)) {
      const dag::Node& n = m.ctx.node(id);
      if (n.kind != dag::NodeKind::Access) continue;
      minD = std::min(minD, n.offset.d[2]);
      maxD = std::max(maxD, n.offset.d[2] + vec - 1);
    }
    const std::string lowReach = std::to_string(floorDiv(minD, vec) * vec), highReach = std::to_string((floorDiv(maxD, vec) + 1) * vec);
    p.line("// Vector accesses need aligned rows (stnc_rt::makeLayout gives 128-byte aligned ones); otherwise no vectors.");
    p.line("const bool aligned_ = " + alignedCondition(k, V, "(" + V + " * sizeof(real))") + ";");
    p.line("// Groups overlapping the box's first / last column also compute (not store) the points outside it, so");
    p.line("// their reads (offsets " + lowReach + " .. " + highReach + " from the group) must stay within the allocated row;");
    p.line("// where they would not, those columns go to the one-point kernel.");
    p.line("const long zlo_ = stnc_rt::alignCol(kLayoutPhase, B_.lo[2], " + V + "), zhi_ = stnc_rt::alignCol(kLayoutPhase, B_.hi[2] + " + V + " - 1, " + V + ");");
    p.line("main_.lo[2] = zlo_ + (" + lowReach + ") >= -L_.pad[2] ? B_.lo[2] : stnc_rt::alignCol(kLayoutPhase, B_.lo[2] + " + V + " - 1, " + V + ");");
    p.line("main_.hi[2] = zhi_ - " + V + " + " + highReach + " <= L_.dim[2] - L_.pad[2] ? B_.hi[2] : stnc_rt::alignCol(kLayoutPhase, B_.hi[2], " + V + ");");
    p.line("if (!aligned_ || main_.lo[2] >= main_.hi[2]) main_.lo[2] = main_.hi[2] = B_.hi[2];  // no vector columns");
  }
  p.line("rest_[0].lo[1] = main_.hi[1];  // the rows left over");
  p.line("rest_[1].hi[1] = rest_[2].hi[1] = main_.hi[1];");
  p.line("rest_[1].hi[2] = main_.lo[2];  // columns before the vector span (none unless the reads would leave the row)");
  p.line("rest_[2].lo[2] = main_.hi[2];  // and after it");
  p.openScope("if (!stnc_rt::boxEmpty(main_))");
  emitStreamLaunch(p, kname, "main_", rows, vec, args);
  p.closeScope("");
  p.openScope("for (const stnc_rt::Box& r_ : rest_)");
  p.openScope("if (!stnc_rt::boxEmpty(r_))");
  emitStreamLaunch(p, kname + "_rest", "r_", 1, 1, args);
  p.closeScope("");
  p.closeScope("");
  p.line("return cudaSuccess;");
  p.closeScope(launchName(k, part));
}

// A tiled kernel whose tiles are copied in 16-byte chunks (sumfactor, tensor; one part: their kernels have no
// regions), named partName + suffix and emitted by `kernel(kname, params, unused)`; its launcher falls back to the
// DAG's one-point kernel for layouts whose rows are not 16-byte aligned, and `launch(kname, args)` emits the rest.
void emitTiledWithFallback(CPrinter& p, const dag::Module& m, const dag::Kernel& k, int part, const std::string& suffix,
                           const std::function<void(const std::string&, const std::string&, const std::string&)>& kernel,
                           const std::function<void(const std::string&, const std::string&)>& launch) {
  p.line("// One-point kernel for unaligned layouts (its own 32x8 block).");
  p.openScope("namespace naive_fallback");
  p.line("constexpr int kBlockX = 32;");
  p.line("constexpr int kBlockY = 8;");
  emitNaive(p, m, k, part);
  p.closeScope("namespace naive_fallback");
  const std::string kname = partName(k, part) + suffix, args = callArgs(k, ArgMode::Sweep);
  kernel(kname, restrictArgs(k), usedNamesVoidCast(m.ctx, k, false, part));
  p.openScope("cudaError_t " + launchName(k, part) + "(const stnc_rt::Layout& L_, const stnc_rt::Box& B_, " + declArgs(k, ArgMode::Sweep) +
              ", cudaStream_t stream_)");
  const std::string per = std::to_string(16 / dag::elemSize(k.type));
  p.line("if (!(" + alignedCondition(k, per, "16") + "))");
  p.line("  return naive_fallback::" + launchName(k, part) + "(L_, B_, " + args + ", stream_);");
  launch(kname, args);
  p.closeScope(launchName(k, part));
}

// The sumfactor schedule: the kernel of codegen/cuda/SumFactorKernel.
void emitSumFactor(CPrinter& p, const dag::Module& m, const dag::Kernel& k, int part) {
  emitTiledWithFallback(
      p, m, k, part, "_sf", [&](const std::string& n, const std::string& ps, const std::string& un) { emitSumFactorKernel(p, k, n, ps, un); },
      [&](const std::string& n, const std::string& args) { emitSumFactorLaunch(p, k, n, args); });
}

// The tensor schedule: the kernel of codegen/cuda/TensorSumKernel (f64: 2 elements per 16-byte chunk).
void emitTensorSum(CPrinter& p, const dag::Module& m, const dag::Kernel& k, int part) {
  emitTiledWithFallback(
      p, m, k, part, "_tc", [&](const std::string& n, const std::string& ps, const std::string& un) { emitTensorSumKernel(p, k, n, ps, un); },
      [&](const std::string& n, const std::string& args) { emitTensorSumLaunch(p, k, n, args); });
}

// The fused region kernel (passes/FuseRegions): region R's schedule and rings over the whole clip box.
// launchFused leaves `done_` false where the per-part kernels must take the box instead (layouts whose
// rows are not 16-byte aligned, boxes narrower than a tile).
void emitFused(CPrinter& p, const dag::Module& m, const dag::Kernel& k, int R) {
  dag::Kernel kp = k;
  kp.schedule = k.scheduleOf(R);
  kp.partSchedules.clear();
  const passes::SmemPlan sp = passes::planSmem(m.ctx, kp, R);
  const int vec = std::max(1, kp.schedule.vec);
  p.line("// Fused: region " + k.regions[R].name + " and the default equations in one kernel over the whole box, with the region's");
  p.line("// schedule (block " + std::to_string(kp.schedule.blockX) + "x" + std::to_string(kp.schedule.blockY) + ", " + std::to_string(vec) +
         " point(s) per thread) and rings (" + std::to_string(sp.bytes) + " bytes per block). A plane of a tile wholly inside the region");
  p.line("// runs its body, one wholly outside the default body; a tile on the boundary runs both and stores per point.");
  p.line("// Fields or offsets the region's rings do not hold come through L1.");
  p.openScope("namespace fused_region");
  emitBlockConstants(p, kp);
  p.line("constexpr long kChunk = " + std::to_string(kp.schedule.chunk) + ";  // points of dim 0 per block; 0 = sized at launch");
  const std::string kname = "sweepFused";
  emitStreamKernel(p, m, kp, R, 1, vec, kname, restrictArgs(k), &sp, true);
  const std::string args = callArgs(k, ArgMode::Sweep);
  p.openScope("cudaError_t launchFused(const stnc_rt::Layout& L_, const stnc_rt::Box& B_, const stnc_rt::Box& R_, " + declArgs(k, ArgMode::Sweep) +
              ", cudaStream_t stream_, bool& done_)");
  p.line("done_ = false;");
  emitSmCount(p);
  const std::string per = std::to_string(16 / dag::elemSize(k.type));
  p.line("if (stnc_rt::boxEmpty(B_) || " + narrowBox(vec, true) + " || !(" + alignedCondition(k, per, "16") + ")) return cudaSuccess;");
  emitStreamLaunch(p, kname, "B_", 1, vec, args, &sp, "R_, ");
  p.line("done_ = true;");
  p.line("return cudaSuccess;");
  p.closeScope("launchFused");
  p.closeScope("namespace fused_region");
}

// The region the kernel fuses with its default equations (chosen by passes/FuseRegions and still
// possible under the final schedules), or -1.
int fusedRegion(const dag::Module& m, const dag::Kernel& k) {
  return k.fusedRegion >= 0 && passes::fusableRegion(m.ctx, k) == k.fusedRegion ? k.fusedRegion : -1;
}

// The region whose dim-2 edges the edge kernel takes (passes/RegionEdges, still possible under the final
// schedules), or -1.
int edgeRegionOf(const dag::Module& m, const dag::Kernel& k) {
  return k.edgeRegion >= 0 && fusedRegion(m, k) < 0 && passes::edgeRegion(m.ctx, k) == k.edgeRegion ? k.edgeRegion : -1;
}

// The edge kernel's tile width along dim 2 (the default part's block width x points per thread).
int edgeTile(const dag::Kernel& k) {
  const dag::Schedule& s = k.scheduleOf(-1);
  return s.blockX * std::max(1, s.vec);
}

// The edge kernel (passes/RegionEdges): the default part's schedule, rings and queues, fused with region R's
// body the way the fused region kernel is (tiles meeting R run both bodies and store per point).
void emitEdgeKernel(CPrinter& p, const dag::Module& m, const dag::Kernel& k, int R) {
  dag::Kernel kp = k;
  kp.schedule = k.scheduleOf(-1);
  kp.partSchedules.clear();
  const passes::SmemPlan sp = passes::planSmem(m.ctx, kp, -1);
  const int vec = std::max(1, kp.schedule.vec);
  p.line("// Region edges (passes/RegionEdges): the default part's faces thin along dim 2, widened into region " + k.regions[R].name +
         " to whole");
  p.line("// " + std::to_string(edgeTile(k)) + "-column tiles, with the default part's schedule (block " + std::to_string(kp.schedule.blockX) + "x" +
         std::to_string(kp.schedule.blockY) + ", " + std::to_string(vec) + " point(s) per thread) and rings (" + std::to_string(sp.bytes) +
         " bytes per block); a tile meeting the region");
  p.line("// runs both bodies and stores per point, so no 64-byte DRAM atom on the region's boundary is written by two kernels.");
  p.openScope("namespace region_edges");
  emitBlockConstants(p, kp);
  p.line("constexpr long kChunk = " + std::to_string(kp.schedule.chunk) + ";  // points of dim 0 per block; 0 = sized at launch");
  emitStreamKernel(p, m, kp, R, 1, vec, "sweepEdge", restrictArgs(k), &sp, true, -1);
  const std::string args = callArgs(k, ArgMode::Sweep);
  p.openScope("cudaError_t launchEdge(const stnc_rt::Layout& L_, const stnc_rt::Box& B_, const stnc_rt::Box& R_, " + declArgs(k, ArgMode::Sweep) +
              ", cudaStream_t stream_)");
  emitSmCount(p);
  emitStreamLaunch(p, "sweepEdge", "B_", 1, vec, args, &sp, "R_, ");
  p.line("return cudaSuccess;");
  p.closeScope("launchEdge");
  p.closeScope("namespace region_edges");
}

// launchSweep's region-edge split, tried before the per-part launches: the region's kernel over its
// tile-aligned middle, the edge kernel over the two dim-2 edges of the region's rows, the default part
// over the rest of the clip box (the faces thin along dims 0 and 1). `call(part, box, key)`: the launch
// text of a part.
void emitEdgeSplit(CPrinter& p, const dag::Kernel& k, int R, const std::function<std::string(int, const std::string&, const std::string&)>& call) {
  const dag::Region& r = k.regions[R];
  const std::string w = std::to_string(edgeTile(k));
  const std::string per = std::to_string(16 / dag::elemSize(k.type));
  p.openScope("");
  p.line("// Region edges: region " + r.name + "'s dim-2 bounds moved to multiples of the edge kernel's " + w + "-column tiles where they");
  p.line("// fall off them (alignment, box widths of 3/4 of a tile, and the clip box permitting; otherwise the per-part launches).");
  p.line("static constexpr int kEdgeLo_[3] = " + regionBoundsText(k, r, true) + ", kEdgeHi_[3] = " + regionBoundsText(k, r, false) + ";  // region " +
         r.name);
  p.line("const stnc_rt::Box r_ = stnc_rt::intersect(clip_, stnc_rt::regionBox(L_, kEdgeLo_, kEdgeHi_));");
  p.line("stnc_rt::Box core_ = r_, rows_ = r_;  // the region's whole tiles; the region's rows across the clip box");
  p.line("core_.lo[2] = stnc_rt::alignCol(kLayoutPhase, r_.lo[2] + " + w + " - 1, " + w + "); core_.hi[2] = stnc_rt::alignCol(kLayoutPhase, r_.hi[2], " + w + ");");
  p.line("rows_.lo[2] = clip_.lo[2]; rows_.hi[2] = clip_.hi[2];");
  p.line("stnc_rt::Box e0_ = rows_, e1_ = rows_;  // the edge kernel's boxes");
  p.line("e0_.hi[2] = core_.lo[2]; e1_.lo[2] = core_.hi[2];");
  p.line("const bool wide_ = (stnc_rt::boxEmpty(e0_) || e0_.hi[2] - e0_.lo[2] >= " + w + " * 3 / 4) && (stnc_rt::boxEmpty(e1_) || e1_.hi[2] - e1_.lo[2] >= " +
         w + " * 3 / 4);");
  p.openScope("if (!stnc_rt::boxEmpty(r_) && core_.lo[2] < core_.hi[2] && (core_.lo[2] != r_.lo[2] || core_.hi[2] != r_.hi[2]) && wide_ && " +
              alignedCondition(k, per, "16") + ")");
  p.line("if (!stnc_rt::boxEmpty(e0_)) " + call(-3, "e0_", "5") + ";");
  p.line("if (!stnc_rt::boxEmpty(e1_)) " + call(-3, "e1_", "6") + ";");
  p.line(call(R, "core_", std::to_string(R)) + ";");
  p.line("stnc_rt::Box boxes_[6] = {clip_};  // the faces thin along dims 0 and 1");
  p.line("const int nb_ = stnc_rt::subtractBox(boxes_, 1, 6, rows_);");
  p.line("for (int b_ = 0; b_ < nb_; ++b_)");
  p.line("  if (!stnc_rt::boxEmpty(boxes_[b_])) " + call(-1, "boxes_[b_]", "1 + b_") + ";");
  p.line("return e_;");
  p.closeScope();
  p.closeScope("");
}

// The launches of a region kernel's parts on lanes of their own (stnc_rt::Lanes, kept per host thread and
// device), forked from and joined back into the caller's stream: parallel branches of a captured graph.
void emitSweepOnLanes(CPrinter& p, const dag::Kernel& k) {
  const int launches = dag::partLaunchLanes(k);  // one lane per launch a sweep can make (stnc_rt::Lanes::kMax = 8)
  p.line("// The parts' launches on lanes of their own, parallel branches of the step's graph (session 16, acoustic");
  p.line("// 800^3: 2.97 -> 2.87 ms per step, bench/results/2026-12-01-s16-lanes.md; one second stream for all");
  p.line("// boxes, or stream priorities, measured no better). Without lanes (no streams): one stream.");
  p.openScope("cudaError_t launchSweepOnLanes(const stnc_rt::Layout& L_, const stnc_rt::Box& clip_, " + declArgs(k, ArgMode::Sweep) +
              ", cudaStream_t stream_)");
  std::string apart;
  if (k.regions.size() > 1) {
    std::string lo, hi;
    for (const dag::Region& r : k.regions) {
      appendItem(lo, regionBoundsText(k, r, true));
      appendItem(hi, regionBoundsText(k, r, false));
    }
    p.line("// Overlapping regions (updated in declaration order) keep one stream.");
    p.line("static constexpr int kRegionLo_[][3] = {" + lo + "}, kRegionHi_[][3] = {" + hi + "};");
    apart = "stnc_rt::regionsApart(L_, kRegionLo_, kRegionHi_, " + std::to_string(k.regions.size()) + ") ? ";
  }
  const std::string args = callArgs(k, ArgMode::Sweep);
  p.line("stnc_rt::Lanes* const lanes_ = " + apart + "stnc_rt::threadLanes(" + std::to_string(launches) + ")" + (apart.empty() ? "" : " : nullptr") + ";");
  p.line("if (!lanes_) return launchSweep(L_, clip_, " + args + ", stream_);");
  p.line("cudaError_t e_ = stnc_rt::lanesFork(*lanes_, stream_);");
  p.line("if (e_ == cudaSuccess) e_ = launchSweep(L_, clip_, " + args + ", stream_, lanes_);");
  p.line("const cudaError_t join_ = stnc_rt::lanesJoin(*lanes_, stream_);  // also after an error: a capture needs its branches joined");
  p.line("return e_ != cudaSuccess ? e_ : join_;");
  p.closeScope("launchSweepOnLanes");
}

void emitSweep(CPrinter& p, const dag::Module& m, const dag::Kernel& k) {
  auto constants = [&](const dag::Kernel& kk) {
    emitBlockConstants(p, kk);
    if (kk.schedule.strategy != dag::Strategy::Naive)
      p.line("constexpr long kChunk = " + std::to_string(kk.schedule.chunk) + ";  // points of dim 0 per block; 0 = sized at launch");
  };
  const std::vector<int> parts = dag::kernelParts(k);
  // The kernel's own constants, unless every part has a schedule (and constants) of its own.
  if (std::any_of(parts.begin(), parts.end(), [&](int part) { return !k.partSchedules.count(part); })) constants(k);
  for (int part : parts) {
    if (part >= 0) p.line("// region " + k.regions[part].name);
    if (!k.partSchedules.count(part)) {
      if (k.schedule.strategy == dag::Strategy::SumFactor) emitSumFactor(p, m, k, part);
      else if (k.schedule.strategy == dag::Strategy::Tensor) emitTensorSum(p, m, k, part);
      else if (k.schedule.strategy == dag::Strategy::Stream) emitStream(p, m, k, part);
      else emitNaive(p, m, k, part);
      continue;
    }
    dag::Kernel kp = k;
    kp.schedule = k.scheduleOf(part);
    kp.partSchedules.clear();
    p.line("// This part's own schedule: " + std::string(dag::strategyName(kp.schedule.strategy)) + ", block " + std::to_string(kp.schedule.blockX) +
           "x" + std::to_string(kp.schedule.blockY) + ", vec " + std::to_string(kp.schedule.vec) + ", rows " + std::to_string(kp.schedule.rows) +
           ", unroll " + std::to_string(kp.schedule.unroll) + ", prefetch " + std::to_string(kp.schedule.prefetch) + ".");
    p.line("// why: " + kp.schedule.reason);
    p.openScope("namespace " + partNamespace(k, part));
    constants(kp);
    if (kp.schedule.strategy == dag::Strategy::Stream) emitStream(p, m, kp, part);
    else emitNaive(p, m, kp, part);
    p.closeScope("namespace " + partNamespace(k, part));
  }
  const int fused = fusedRegion(m, k);
  if (fused >= 0) emitFused(p, m, k, fused);
  const int edges = edgeRegionOf(m, k);
  if (edges >= 0) emitEdgeKernel(p, m, k, edges);
  p.line("// Every part of the kernel over the interior points inside clip_ (host-side box split, one launch per box).");
  // Region kernels take lanes: their launches may go to streams of their own (stnc_rt::Lanes).
  const bool laned = dag::partLaunchLanes(k) > 0;
  p.openScope("cudaError_t launchSweep(const stnc_rt::Layout& L_, const stnc_rt::Box& clip_, " + declArgs(k, ArgMode::Sweep) +
              ", cudaStream_t stream_" + (laned ? ", const stnc_rt::Lanes* lanes_ = nullptr" : "") + ")");
  p.line("cudaError_t e_ = cudaSuccess;");
  const std::string args = callArgs(k, ArgMode::Sweep);
  if (fused >= 0) {
    const dag::Region& r = k.regions[fused];
    p.openScope("");
    p.line("static constexpr int kFusedLo_[3] = " + regionBoundsText(k, r, true) + ", kFusedHi_[3] = " + regionBoundsText(k, r, false) + ";  // region " +
           r.name);
    p.line("const stnc_rt::Box r_ = stnc_rt::intersect(clip_, stnc_rt::regionBox(L_, kFusedLo_, kFusedHi_));");
    p.line("bool done_ = false;");
    p.line("if ((e_ = fused_region::launchFused(L_, clip_, r_, " + args + ", stream_, done_)) != cudaSuccess || done_) return e_;");
    p.closeScope("");
    p.line("// Otherwise one launch per part:");
  }
  // The launch of `part` (-3: the edge kernel) over `box` on lane `key`.
  auto call = [&](int part, const std::string& box, const std::string& key) {
    const std::string st = laned ? "stnc_rt::laneOf(lanes_, stream_, " + key + ")" : "stream_";
    if (part == -3)
      return "if ((e_ = region_edges::launchEdge(L_, " + box + ", r_, " + args + ", " + st + ")) != cudaSuccess) return e_";
    return "if ((e_ = " + partScope(k, part) + launchName(k, part) + "(L_, " + box + ", " + args + ", " + st + ")) != cudaSuccess) return e_";
  };
  if (edges >= 0) emitEdgeSplit(p, k, edges, call);
  emitPartDispatch(
      p, k,
      [&](int part, const std::string& box) {
        return call(part, box, part >= 0 ? std::to_string(part) : box == "clip_" ? "0" : std::to_string(k.regions.size()) + " + b_");
      },
      "return cudaErrorInvalidValue;");
  p.line("return e_;");
  p.closeScope("launchSweep");
  if (laned) emitSweepOnLanes(p, k);
}

void emitKernel(CPrinter& p, const dag::Module& m, const dag::Kernel& k) {
  const std::string ns = "stn::" + cIdent(k.name);
  p.comment(kernelComment(m, k, scheduleComment(m.ctx, k)));
  p.openScope("namespace " + ns);
  p.openScope("namespace");
  emitConstantTable(p, m.ctx, k);
  emitSweep(p, m, k);
  const passes::TemporalPlan plan = passes::planTemporal(m.ctx, k);
  const bool temporal = k.schedule.temporal > 0 && plan.ok;
  const std::string sweepFn = dag::partLaunchLanes(k) > 0 ? "launchSweepOnLanes" : "launchSweep";  // (emitSweep)
  if (temporal) emitTemporalPair(p, m, k, plan);
  std::string fillDecl = declArgs(k, ArgMode::Fill);
  std::string fillCall = callArgs(k, ArgMode::Fill);
  p.openScope("cudaError_t launchFill(const stnc_rt::Layout& L_" + (fillDecl.empty() ? "" : ", " + fillDecl) +
              ", cudaStream_t stream_)");
  p.line("(void)L_; (void)stream_;");
  p.line("cudaError_t e_ = cudaSuccess;");
  {
    CPrinter inner;
    inner.indent = p.indent;
    emitFillBody(inner, m.ctx, k, "if (e_ == cudaSuccess) e_ = stnc_rt::fillBoundaryDimDevice<real>", ", stream_");
    p.raw(inner.str());
  }
  p.line("return e_;");
  p.closeScope("launchFill");
  p.openScope("cudaError_t toCuda(int status)");
  p.line("if (status == stnc_rt::kOk) return cudaSuccess;");
  p.line("if (status == stnc_rt::kMisaligned) return cudaErrorMisalignedAddress;");
  p.line("return cudaErrorInvalidValue;");
  p.closeScope("toCuda");
  p.line("struct DevSource {");
  p.line("  int field;");
  p.line("  long at;  // element index");
  p.line("  const real* wavelet;");
  p.line("};");
  p.line("struct FieldPtrs {");
  p.line("  real* p[kFieldCount];");
  p.line("};");
  p.line("// One thread adds every source in order (deterministic, like the CPU), then advances the step counter.");
  p.openScope("__global__ void addSources(FieldPtrs f_, const DevSource* s_, int n_, long* counter_)");
  p.line("const long t_ = *counter_;");
  p.line("for (int q_ = 0; q_ < n_; ++q_) f_.p[s_[q_].field][s_[q_].at] += s_[q_].wavelet[t_];");
  p.line("*counter_ = t_ + 1;");
  p.closeScope("addSources");
  p.line("// One source of add_sources: *value_ added at *at_.");
  p.openScope("__global__ void addPoint(real* at_, const real* value_)");
  p.line("*at_ += *value_;");
  p.closeScope("addPoint");
  p.closeScope("namespace");
  p.line();
  std::string ptrs;
  for (const dag::Field& f : k.fields) appendItem(ptrs, cIdent(f.name));
  std::string sweepCall = callArgs(k, ArgMode::Sweep);
  std::string fillArgs = "L_" + (fillCall.empty() ? "" : ", " + fillCall);
  p.openScope("namespace cuda");
  p.openScope("cudaError_t sweep(const stnc_rt::Layout& L_, " + declArgs(k, ArgMode::Sweep) + ", cudaStream_t stream_)");
  p.line("const void* ptrs_[kFieldCount] = {" + ptrs + "};");
  p.line("if (int s_ = check(L_, ptrs_, 128)) return toCuda(s_);");
  p.line("return " + sweepFn + "(L_, stnc_rt::interiorBox(L_), " + sweepCall + ", stream_);");
  p.closeScope("sweep");
  p.openScope("cudaError_t sweep_box(const stnc_rt::Layout& L_, const long* lo_, const long* hi_, " + declArgs(k, ArgMode::Sweep) + ", cudaStream_t stream_)");
  p.line("const void* ptrs_[kFieldCount] = {" + ptrs + "};");
  p.line("if (int s_ = check(L_, ptrs_, 128)) return toCuda(s_);");
  p.line("if (!lo_ || !hi_) return cudaErrorInvalidValue;");
  p.line("return " + sweepFn + "(L_, stnc_rt::intersect(stnc_rt::interiorBox(L_), boxOf(lo_, hi_)), " + sweepCall + ", stream_);");
  p.closeScope("sweep_box");
  p.openScope("cudaError_t fill_boundaries(const stnc_rt::Layout& L_" + (fillDecl.empty() ? "" : ", " + fillDecl) +
              ", cudaStream_t stream_)");
  p.line("if (L_.count == 0) return cudaErrorInvalidValue;");
  for (const std::string& f : ruledFields(k)) p.line("if (!" + cIdent(f) + ") return cudaErrorInvalidValue;");
  p.line("return launchFill(" + fillArgs + ", stream_);");
  p.closeScope("fill_boundaries");
  p.openScope("cudaError_t add_sources(const stnc_rt::Layout& L_, real* const* fields_, const Source* sources_, int nsources_, long t_, "
              "cudaStream_t stream_)");
  p.line("if (!fields_ || nsources_ < 0 || (nsources_ > 0 && !sources_) || t_ < 0) return cudaErrorInvalidValue;");
  p.line("if (int s_ = checkSources(L_, sources_, nsources_)) return toCuda(s_);");
  p.openScope("for (int q_ = 0; q_ < nsources_; ++q_)");
  p.line("if (!fields_[sources_[q_].field]) return cudaErrorInvalidValue;");
  p.line("addPoint<<<1, 1, 0, stream_>>>(fields_[sources_[q_].field] + sourceIndex(L_, sources_[q_]), sources_[q_].wavelet + t_);");
  p.line("if (cudaError_t e_ = cudaGetLastError()) return e_;");
  p.closeScope("for q_");
  p.line("return cudaSuccess;");
  p.closeScope("add_sources");
  p.openScope("cudaError_t step(const stnc_rt::Layout& L_, long steps_, " + declArgs(k, ArgMode::Step) +
              ", cudaStream_t stream_, const Source* sources_, int nsources_)");
  p.line("if (steps_ < 0 || nsources_ < 0 || (nsources_ > 0 && !sources_)) return cudaErrorInvalidValue;");
  p.line("const void* ptrs_[kFieldCount] = {" + ptrs + "};");
  p.line("if (int s_ = check(L_, ptrs_, 128)) return toCuda(s_);");
  p.line("if (int s_ = checkSources(L_, sources_, nsources_)) return toCuda(s_);");
  p.line("cudaError_t e_ = cudaSuccess;");
  p.line("// Point sources live on the device with a step counter, so a replayed graph reads wavelet[t] for each t.");
  p.line("DevSource* dsrc_ = nullptr;");
  p.line("long* counter_ = nullptr;");
  p.openScope("if (nsources_ > 0)");
  p.line("std::vector<DevSource> host_(nsources_);");
  p.line("for (int q_ = 0; q_ < nsources_; ++q_) host_[q_] = DevSource{sources_[q_].field, sourceIndex(L_, sources_[q_]), sources_[q_].wavelet};");
  p.line("e_ = cudaMalloc(&dsrc_, nsources_ * sizeof(DevSource));");
  p.line("if (e_ == cudaSuccess) e_ = cudaMalloc(&counter_, sizeof(long));");
  p.line("if (e_ == cudaSuccess) e_ = cudaMemcpyAsync(dsrc_, host_.data(), nsources_ * sizeof(DevSource), cudaMemcpyHostToDevice, stream_);");
  p.line("if (e_ == cudaSuccess) e_ = cudaMemsetAsync(counter_, 0, sizeof(long), stream_);");
  p.line("if (e_ == cudaSuccess) e_ = cudaStreamSynchronize(stream_);  // host_ goes out of scope");
  p.closeScope("sources");
  p.line("long rest_ = steps_;  // steps left for the one-step loop below");
  if (temporal) {
    const std::string IN = cIdent(plan.in);
    std::string pairCall;
    for (const dag::Field& f : k.fields) pairCall += cIdent(f.name) + ", ";
    for (const std::string& prm : k.params) pairCall += cIdent(prm) + ", ";
    p.line(std::string("// Temporal blocking (--temporal=") + (k.schedule.temporal == 2 ? "auto" : "on") +
           "): steps in groups of four as two fused pairs,");
    p.line("// " + plan.in + " -> (" + plan.out + ", third) then third -> (" + plan.out + ", " + plan.in +
           "): the roles end where four single steps leave them. Not with point sources.");
    if (k.schedule.temporal == 2) {
      const std::string gib = std::to_string(passes::kTemporalAutoMinGiB);
      p.line("// Only for fields of " + gib + " GiB or more: on the H200 (star7 f64, 100 steps) the pairs ran 1.13-1.14x of single");
      p.line("// steps at 768^3-1024^3, 1.04x at 512^3 (1.15 GB per field) and 0.72x at 256^3, where L2 keeps much of a");
      p.line("// sweep's input for the next (bench/results/2026-12-01-s17-temporal.md).");
      p.line("constexpr size_t kTemporalMinBytes = size_t(" + gib + ") << 30;");
      p.line("const bool fuse_ = nsources_ == 0 && steps_ >= 4 && L_.count * sizeof(real) >= kTemporalMinBytes;");
    } else {
      p.line("const bool fuse_ = nsources_ == 0 && steps_ >= 4;");
    }
    p.line("// The third array is allocated once per host thread and device and kept for later calls (a 1 GiB");
    p.line("// cudaMalloc + cudaFree per call cost more than the fusion gained); without memory the steps run singly.");
    p.line("thread_local real* scratch_[64] = {};");
    p.line("thread_local size_t scratchBytes_[64] = {};");
    p.line("int dev_ = 0;");
    p.line("real* third_ = nullptr;");
    p.openScope("if (e_ == cudaSuccess && fuse_ && cudaGetDevice(&dev_) == cudaSuccess && dev_ >= 0 && dev_ < 64)");
    p.openScope("if (scratchBytes_[dev_] < L_.count * sizeof(real))");
    p.line("if (scratch_[dev_]) cudaFree(scratch_[dev_]);");
    p.line("scratch_[dev_] = nullptr;");
    p.line("scratchBytes_[dev_] = 0;");
    p.line("if (cudaMalloc(&scratch_[dev_], L_.count * sizeof(real)) == cudaSuccess) scratchBytes_[dev_] = L_.count * sizeof(real);");
    p.line("else scratch_[dev_] = nullptr, (void)cudaGetLastError();");
    p.closeScope();
    p.line("third_ = scratch_[dev_];");
    p.closeScope();
    p.openScope("if (e_ == cudaSuccess && third_)");
    p.line("// The third array starts as a copy of " + plan.in + ", so its fixed halo cells (axes without a rule) are " + plan.in + "'s.");
    p.line("if (e_ == cudaSuccess) e_ = cudaMemcpyAsync(third_, " + IN + ", L_.count * sizeof(real), cudaMemcpyDeviceToDevice, stream_);");
    p.openScope("for (long q_ = 0; e_ == cudaSuccess && q_ < steps_ / 4 * 2; ++q_)");
    p.line("real* const src_ = q_ % 2 == 0 ? " + IN + " : third_;");
    p.line("real* const fin_ = q_ % 2 == 0 ? third_ : " + IN + ";");
    p.line("real* " + IN + " = src_;  // the source array in " + plan.in + "'s role for the fill and the pair");
    p.line("e_ = launchFill(" + fillArgs + ", stream_);");
    p.line("// Step 1's values are stored by the last pair only: " + plan.out + " is not read in between.");
    p.line("if (e_ == cudaSuccess) e_ = launchPair(L_, " + pairCall + "fin_, q_ + 1 == steps_ / 4 * 2, stream_);");
    p.closeScope("pairs");
    p.line("if (e_ == cudaSuccess) rest_ = steps_ % 4;");
    p.closeScope("temporal blocking");
  }
  p.line("// One step: fill boundaries, sweep, add point sources, swap the pairs (pointer roles).");
  p.openScope("auto oneStep_ = [&](cudaStream_t st_)");
  p.line("if (e_ == cudaSuccess) e_ = launchFill(" + fillArgs + ", st_);");
  p.line("if (e_ == cudaSuccess) e_ = " + sweepFn + "(L_, stnc_rt::interiorBox(L_), " + sweepCall + ", st_);");
  p.openScope("if (e_ == cudaSuccess && nsources_ > 0)");
  p.line("addSources<<<1, 1, 0, st_>>>(FieldPtrs{{" + ptrs + "}}, dsrc_, nsources_, counter_);");
  p.line("e_ = cudaGetLastError();");
  p.closeScope("");
  for (auto& [a, b] : k.swaps) p.line("std::swap(" + cIdent(a) + ", " + cIdent(b) + ");");
  p.closeScope("oneStep_", ";");
  p.line("cudaStream_t cs_ = nullptr;");
  p.line("cudaGraph_t graph_ = nullptr;");
  p.line("cudaGraphExec_t exec_ = nullptr;");
  p.line("cudaEvent_t ready_ = nullptr;");
  p.openScope("if (rest_ < 4)");
  p.line("for (long s_ = 0; s_ < rest_; ++s_) oneStep_(stream_);  // short runs launch directly");
  p.closeScope("");
  p.openScope("else");
  p.line("// Capture two steps (after two swaps every pointer is back in its role) and replay.");
  p.line("if (e_ == cudaSuccess) e_ = cudaStreamCreateWithFlags(&cs_, cudaStreamNonBlocking);");
  p.line("if (e_ == cudaSuccess) e_ = cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming);");
  p.line("if (e_ == cudaSuccess) e_ = cudaEventRecord(ready_, stream_);");
  p.line("if (e_ == cudaSuccess) e_ = cudaStreamWaitEvent(cs_, ready_, 0);");
  p.line("if (e_ == cudaSuccess) e_ = cudaStreamBeginCapture(cs_, cudaStreamCaptureModeThreadLocal);");
  p.openScope("if (e_ == cudaSuccess)");
  p.line("oneStep_(cs_);");
  p.line("oneStep_(cs_);");
  p.line("const cudaError_t end_ = cudaStreamEndCapture(cs_, &graph_);");
  p.line("if (e_ == cudaSuccess) e_ = end_;");
  p.closeScope("capture");
  p.line("if (e_ == cudaSuccess) e_ = cudaGraphInstantiate(&exec_, graph_, 0);");
  p.line("for (long r_ = 0; e_ == cudaSuccess && r_ < rest_ / 2; ++r_) e_ = cudaGraphLaunch(exec_, stream_);");
  p.line("if (rest_ % 2 == 1) oneStep_(stream_);");
  p.closeScope("");
  p.line("const cudaError_t sync_ = cudaStreamSynchronize(stream_);");
  p.line("if (e_ == cudaSuccess) e_ = sync_;");
  p.line("if (exec_) cudaGraphExecDestroy(exec_);");
  p.line("if (graph_) cudaGraphDestroy(graph_);");
  p.line("if (ready_) cudaEventDestroy(ready_);");
  p.line("if (cs_) cudaStreamDestroy(cs_);");
  p.line("if (dsrc_) cudaFree(dsrc_);");
  p.line("if (counter_) cudaFree(counter_);");
  p.line("return e_;");
  p.closeScope("step");
  p.closeScope("namespace cuda");
  p.closeScope("namespace " + ns);
  p.line();

  emitCudaEntry(p, k);
}

}  // namespace

std::string generateCuda(const dag::Module& m, const GenOptions& o) {
  CPrinter p;
  p.raw(banner(m, o, m.sourceName + ".cu — CUDA kernels"));
  p.line("#include \"" + m.sourceName + ".h\"");
  p.line();
  p.line("#include <algorithm>");
  p.line("#include <cstdio>");
  p.line("#include <utility>");
  p.line("#include <vector>");
  p.line();
  p.raw(kRuntimeCudaHeader);
  p.line();
  for (const dag::Kernel& k : m.kernels) emitKernel(p, m, k);
  return p.str();
}

}  // namespace stnc::codegen
