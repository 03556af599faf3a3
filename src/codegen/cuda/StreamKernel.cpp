#include "codegen/cuda/StreamKernel.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "codegen/Backends.h"
#include "codegen/KernelBody.h"
#include "codegen/cuda/ConstantTable.h"
#include "passes/ChooseSchedule.h"
#include "support/IntMath.h"

namespace stnc::codegen {

std::vector<Queue> queuesOf(const dag::Context& ctx, const dag::Kernel& k, int rows, int vec, int part) {
  std::vector<Queue> qs;
  for (const dag::Field& f : k.fields) {
    int lo, hi;
    if (dag::isRead(f.role) && passes::queueSpan(ctx, k, f.name, lo, hi, part))
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < vec; ++c) qs.push_back({f.name, lo, hi, r, c});
  }
  return qs;
}

namespace {

// A register-queue slot: field f at dim-0 offset d of the thread's row `row` and column `col` (both
// 0 unless the schedule computes several dim-1 rows or dim-2 points per thread).
std::string slotName(const std::string& field, int row, int col, int d) {
  return cIdent(field) + "q_" + (row > 0 ? "r" + std::to_string(row) + "_" : "") + (col > 0 ? "c" + std::to_string(col) + "_" : "") +
         (d < 0 ? "m" + std::to_string(-d) : std::to_string(d)) + "_";
}

// The kernel computing a tile of `rows` consecutive dim-1 rows x `vec` consecutive dim-2 points per
// thread: the outputs of `part`, once per tile point, with every access shifted by the point's
// offset, built in a copy of the context. Hash consing makes the loads the points share (row r's
// u[i,j+1,k] is row r+1's u[i,j,k]) one node.
struct TileKernel {
  dag::Context ctx;
  dag::Kernel k;
  std::vector<int> rowOf, colOf;  // per output of k
};

// part -2: every output (the fused region kernel).
TileKernel tileKernel(const dag::Context& src, const dag::Kernel& k, int part, int rows, int vec) {
  TileKernel tk{src, k, {}, {}};
  tk.k.outputs.clear();
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < vec; ++c) {
      std::map<dag::NodeId, dag::NodeId> memo;
      std::function<dag::NodeId(dag::NodeId)> shift = [&](dag::NodeId id) -> dag::NodeId {
        if (r == 0 && c == 0) return id;
        auto it = memo.find(id);
        if (it != memo.end()) return it->second;
        const dag::Node n = tk.ctx.node(id);  // a copy: the context grows below
        dag::NodeId out = id;
        if (n.isLoad()) {
          dag::Offset o = n.offset;
          o.d[1] += r;
          o.d[2] += c;
          // A lower-rank field moves along the axes it has only.
          out = n.kind == dag::NodeKind::Access ? tk.ctx.access(n.sym, o) : tk.ctx.broadcast(n.sym, n.axes, dag::maskOffset(o, n.axes));
        } else if (n.kind == dag::NodeKind::Select) {
          out = tk.ctx.select(shift(n.operands[0]), shift(n.operands[1]), shift(n.operands[2]));
        } else if (n.kind == dag::NodeKind::Apply) {
          dag::NodeId ops[3] = {dag::kNoNode, dag::kNoNode, dag::kNoNode};
          for (int i = 0; i < n.operandCount(); ++i) ops[i] = shift(n.operands[i]);
          out = tk.ctx.apply(n.op, ops[0], ops[1], ops[2]);
        }
        return memo[id] = out;
      };
      for (const dag::Output& o : k.outputs) {
        if (part != -2 && o.region != part) continue;
        dag::Output copy = o;
        copy.value = shift(o.value);
        tk.k.outputs.push_back(copy);
        tk.rowOf.push_back(r);
        tk.colOf.push_back(c);
      }
    }
  return tk;
}

// The CUDA vector type of `vec` elements (8 or 16 bytes) and its constructor.
std::string vecType(const dag::Kernel& k, int vec) { return std::string(k.type == dag::ElemType::F32 ? "float" : "double") + std::to_string(vec); }
const char* kLane[4] = {".x", ".y", ".z", ".w"};

std::string ringName(const std::string& field) { return cIdent(field) + "S_"; }
std::string ringThreadName(const std::string& field) { return cIdent(field) + "T_"; }
std::string ringSlotName(const std::string& field, int d) {
  return cIdent(field) + "P" + (d < 0 ? "m" + std::to_string(-d) : std::to_string(d)) + "_";
}
const passes::SmemRing* ringOf(const passes::SmemPlan* sp, const std::string& field) {
  if (sp)
    for (const passes::SmemRing& r : sp->rings)
      if (r.field == field) return &r;
  return nullptr;
}

// "i-1", "i", "i+4": the plane at dim-0 offset d.
std::string planeText(const dag::Kernel& k, int d) { return k.axes[0] + (d == 0 ? "" : (d > 0 ? "+" : "") + std::to_string(d)); }
std::string plusTerm(long v) { return v == 0 ? "" : (v > 0 ? " + " : " - ") + std::to_string(v < 0 ? -v : v); }
// " * N" for N rows per thread (threadIdx.y counts threads, not rows), "" for one.
std::string rowsFactor(int rows) { return rows > 1 ? " * " + std::to_string(rows) : ""; }

// The cp.async copy of plane `plane` of ring r into the slot `slot` (expressions).
std::string ringCopy(const passes::SmemRing& r, const std::string& plane, const std::string& slot) {
  return cIdent(r.field) + "C_.copy(" + slot + ", " + cIdent(r.field) + ", L_, " + plane + ");";
}

// The tensor-memory-accelerator copy of plane `plane` of ring r into slot `slot`, completing on mbarrier `bar`.
std::string ringTma(const passes::SmemRing& r, const std::string& plane, const std::string& slot, const std::string& bar) {
  const std::string f = cIdent(r.field);
  return "stnc_rt::tmaTile(" + ringName(r.field) + " + (" + slot + ") * " + std::to_string(r.slotElems) + ", &" + f + "M_, " + f + "c2_, " + f +
         "c1_, " + plane + " - " + f + "O_.x, " + bar + ");";
}

// The bytes of one tile of ring r, and of one tile of every ring (a plane group of a steady iteration).
long tileBytes(const passes::SmemRing& r, int elem) { return static_cast<long>(r.rows) * r.cols * elem; }
long groupBytes(const passes::SmemPlan& sp, int elem) {
  long b = 0;
  for (const passes::SmemRing& r : sp.rings) b += tileBytes(r, elem);
  return b;
}

// The declaration of this thread's point in slot 0 of ring r (rowsTimes: " * rows" for several rows per thread).
std::string threadPoint(const passes::SmemRing& r, const std::string& rowsTimes) {
  return "const real* const " + ringThreadName(r.field) + " = " + ringName(r.field) + " + (threadIdx.y" + rowsTimes + plusTerm(-r.lo1) + ") * " +
         std::to_string(r.cols) + " + threadIdx.x * kVec" + plusTerm(-r.a2) + ";  // this thread's point in slot 0";
}

// The kernel parameters the tensor-memory-accelerator copies add: per ring its map and the map's origin.
std::string tmaParams(const passes::SmemPlan& sp) {
  std::string s;
  for (const passes::SmemRing& r : sp.rings)
    s += ", const __grid_constant__ CUtensorMap " + cIdent(r.field) + "M_, const stnc_rt::TileOrigin " + cIdent(r.field) + "O_";
  return s;
}

// The tensor-memory-accelerator half of emitRingPrologue: the mbarriers, each ring's tile coordinates in its
// map, and thread 0's first plane groups (group 0 also brings the planes iteration 0 reads; groups
// 1 .. depth-1 only for iterations that run, so every group issued is waited on).
void emitTmaRingPrologue(CPrinter& p, const passes::SmemPlan& sp, int elem, const std::string& rowsTimes) {
  const int stages = sp.depth + 1;
  p.line("unsigned long long* const bar_ = reinterpret_cast<unsigned long long*>(reinterpret_cast<char*>(smemT_) + " + std::to_string(sp.barOffset) +
         ");  // " + std::to_string(stages) + " mbarriers");
  for (const passes::SmemRing& r : sp.rings) {
    const std::string f = cIdent(r.field);
    p.line("const long " + f + "c2_ = zb_" + plusTerm(r.a2) + " - " + f + "O_.z, " + f + "c1_ = yb_" + plusTerm(r.lo1) + " - " + f + "O_.y;  // the " + r.field +
           " tile's first column and row in its map");
    p.line(threadPoint(r, rowsTimes));
  }
  long first = groupBytes(sp, elem);
  for (const passes::SmemRing& r : sp.rings) first += (r.amax - r.amin) * tileBytes(r, elem);
  p.openScope("if (tid_ == 0)");
  p.line("for (int s_ = 0; s_ < " + std::to_string(stages) + "; ++s_) stnc_rt::mbarInit(&bar_[s_]);");
  p.line("stnc_rt::mbarInitFence();");
  p.line("stnc_rt::mbarExpect(&bar_[0], " + std::to_string(first) + "u);  // group 0: the planes iteration 0 reads and the first in flight");
  for (const passes::SmemRing& r : sp.rings)
    for (int d = r.amin; d <= r.amax; ++d) p.line(ringTma(r, "x0_ + " + std::to_string(d), std::to_string((d - r.amin) % r.slots), "&bar_[0]"));
  p.openScope("for (unsigned i_ = 1; i_ < " + std::to_string(sp.depth) + " && x0_ + i_ < x1_; ++i_)  // groups 1 .. " +
              std::to_string(sp.depth - 1) + ": what iterations x0_-" + std::to_string(sp.depth - 1) + " .. x0_-1 would have issued");
  p.line("stnc_rt::mbarExpect(&bar_[i_], " + std::to_string(groupBytes(sp, elem)) + "u);");
  for (const passes::SmemRing& r : sp.rings)
    p.line(ringTma(r, "x0_ + " + std::to_string(r.amax) + " + i_", "(" + std::to_string(r.amax - r.amin) + " + i_) % " + std::to_string(r.slots),
                   "&bar_[i_]"));
  p.closeScope("");
  p.closeScope("");
  p.line("__syncthreads();  // the mbarriers are initialised before anyone waits on them");
}

// The shared-memory rings of a kernel: their declarations, and the copies before the dim-0 loop (the
// planes the first iteration reads, then the `depth` planes a steady iteration keeps in flight).
// rows: dim-1 rows per thread (the block's tile is kBlockY x rows rows). tma: the copies go through the
// tensor memory accelerator (SmemPlan::tma): thread 0 issues them, plane group g completes on mbarrier
// g % (depth + 1), and group 0 also brings the planes the first iteration reads.
void emitRingPrologue(CPrinter& p, const dag::Kernel& k, const passes::SmemPlan& sp, int rows, bool tma) {
  const int elem = static_cast<int>(dag::elemSize(k.type));
  if (tma) {
    p.line("// Shared-memory rings (--smem=on, --tma=on): thread 0 copies each plane's tile of every field with the tensor");
    p.line("// memory accelerator " + std::to_string(sp.depth) + " iteration(s) ahead (elements outside the box's footprint arrive as zeros);");
    p.line("// plane group g completes on mbarrier g % " + std::to_string(sp.depth + 1) + ", a ring holds the planes read now, those in flight");
    p.line("// and one more, so a slot is refilled two iterations after its last read (one barrier per plane).");
    p.line("extern __shared__ __align__(128) float4 smemT_[];  // " + std::to_string(sp.bytes) + " bytes: slots of 128-byte multiples, then the mbarriers");
  } else {
    p.line("// Shared-memory rings (--smem=on): each plane a field is read at arrives as a tile through 16-byte cp.async");
    p.line("// copies issued " + std::to_string(sp.depth) + " iteration(s) ahead; a ring holds the planes read now, those in flight");
    p.line("// and one more, so a slot is refilled two iterations after its last read (one barrier per plane).");
    p.line("extern __shared__ float4 smem_[];  // " + std::to_string(sp.bytes) + " bytes, 16-byte aligned");
  }
  const std::string base = tma ? "smemT_" : "smem_";
  long off = 0;
  for (const passes::SmemRing& r : sp.rings) {
    p.line("real* const " + ringName(r.field) + " = reinterpret_cast<real*>(" + base + ") + " + std::to_string(off) + ";  // " + r.field + ": " +
           std::to_string(r.slots) + " slots x " + std::to_string(r.rows) + " rows x " + std::to_string(r.cols) + " columns, planes " +
           planeText(k, r.amin) + " .. " + planeText(k, r.amax));
    off += r.elems();
  }
  p.line("const int tid_ = threadIdx.y * kBlockX + threadIdx.x;");
  const std::string rowsTimes = rowsFactor(rows);
  if (tma) {
    emitTmaRingPrologue(p, sp, elem, rowsTimes);
    return;
  }
  const int tileCols = std::max(1, k.schedule.blockX) * std::max(1, k.schedule.vec);
  const int tileRows = k.schedule.blockY * rows;
  // Slots padded for the accelerator (a --tma=on plan the fused kernel copies with cp.async) are further apart.
  const bool padded = std::any_of(sp.rings.begin(), sp.rings.end(), [](const passes::SmemRing& r) { return r.slotElems != static_cast<long>(r.rows) * r.cols; });
  p.line("// Tile copies skip the chunks no point of the box reads (STNC_RING_CLIP, default on): the box grown by");
  p.line("// each field's footprint. Measured (samples/acoustic/profile.sh): the acoustic inner region's DRAM reads");
  p.line("// 5.99 -> 5.41 GB (2030 -> 1906 us); since session 16 thin boxes too, with the footprint's columns rather");
  p.line("// than the tile's: the 27-column PML faces 536 -> 453 MB of DRAM reads, 206 -> 190 us.");
  for (const passes::SmemRing& r : sp.rings) {
    // A tile without halo, read at one plane, is read by this block only: its copies may leave L2 first.
    const bool reused = r.lo1 != 0 || r.rows != tileRows || r.a2 != 0 || r.cols != tileCols || r.amin != r.amax;
    // The rows and columns the box's points read: the box grown by the field's footprint (SmemRing::lo1 ..
    // hi1, reach2lo .. reach2hi; not the tile's sector-rounded columns).
    // A star's tile (no diagonal offset) with halo rows and halo columns never reads its corners: StarRingCopier
    // takes the block's own rows and columns, and zero-fills the corners where STNC_RING_CORNERS is 0.
    const bool star = !r.corners && (r.lo1 < 0 || r.hi1 > 0) && (r.a2 < 0 || r.hi2 > 0);
    const std::string core = star ? ", yb_, yb_ + " + std::to_string(tileRows) + ", zb_, zb_ + " + std::to_string(tileCols) : "";
    p.line(std::string("const stnc_rt::") + (star ? "StarRingCopier" : "RingCopier") + "<real, " + std::to_string(r.rows) + ", " +
           std::to_string(r.cols) + ", kBlockX * kBlockY, " + (reused ? "true" : "false") + (padded ? ", " + std::to_string(r.slotElems) : "") + "> " +
           cIdent(r.field) + "C_(L_, " + ringName(r.field) + ", yb_" + plusTerm(r.lo1) + ", zb_" + plusTerm(r.a2) + ", tid_, B_.lo[1]" +
           plusTerm(r.lo1) + ", B_.hi[1]" + plusTerm(r.hi1) + ", B_.lo[2]" + plusTerm(r.reach2lo) + ", B_.hi[2]" + plusTerm(r.reach2hi) + core +
           ");  // this thread's chunks of a " + r.field + " tile" + (reused ? " (read by neighbouring blocks too)" : " (this block's only)") +
           (star ? ", corners never read" : ""));
    p.line(threadPoint(r, rowsTimes));
    for (int d = r.amin; d < r.amax; ++d)
      p.line("if (x0_ + " + std::to_string(d) + " < x1_ + " + std::to_string(r.amax) + ") " +
             ringCopy(r, "x0_ + " + std::to_string(d), std::to_string((d - r.amin) % r.slots)));
  }
  p.line("stnc_rt::cpAsyncCommit();");
  p.openScope("for (unsigned i_ = 0; i_ < " + std::to_string(sp.depth) + "; ++i_)  // what iterations x0_-" + std::to_string(sp.depth) +
              " .. x0_-1 would have issued");
  p.openScope("if (x0_ + i_ < x1_)");
  for (const passes::SmemRing& r : sp.rings)
    p.line(ringCopy(r, "x0_ + " + std::to_string(r.amax) + " + i_", "(" + std::to_string(r.amax - r.amin) + " + i_) % " + std::to_string(r.slots)));
  p.closeScope("");
  p.line("stnc_rt::cpAsyncCommit();");
  p.closeScope("");
}

// The start of an iteration: issue the plane `depth` ahead, wait for the one read now, then the slot of
// every plane offset this iteration reads.
void emitRingIteration(CPrinter& p, const dag::Kernel& k, const passes::SmemPlan& sp, const std::set<std::pair<std::string, int>>& planes, bool tma) {
  p.line("const unsigned it_ = static_cast<unsigned>(x_ - x0_);  // unsigned: the slots' remainders are cheaper");
  if (tma) {
    const std::string stages = std::to_string(sp.depth + 1), depth = std::to_string(sp.depth);
    p.openScope("if (tid_ == 0 && x_ + " + depth + " < x1_)");
    p.line("unsigned long long* const b_ = &bar_[(it_ + " + depth + ") % " + stages + "];");
    p.line("stnc_rt::mbarExpect(b_, " + std::to_string(groupBytes(sp, static_cast<int>(dag::elemSize(k.type)))) + "u);");
    for (const passes::SmemRing& r : sp.rings)
      p.line(ringTma(r, "x_ + " + std::to_string(r.amax + sp.depth), "(it_ + " + std::to_string(r.amax - r.amin + sp.depth) + ") % " + std::to_string(r.slots),
                     "b_"));
    p.closeScope("");
    p.line("stnc_rt::mbarWait(&bar_[it_ % " + stages + "], (it_ / " + stages + ") & 1u);  // the planes read now have landed");
    p.line("__syncthreads();  // and every thread is past the reads of the slots refilled next");
  } else {
    p.openScope("if (x_ + " + std::to_string(sp.depth) + " < x1_)");
    for (const passes::SmemRing& r : sp.rings)
      p.line(ringCopy(r, "x_ + " + std::to_string(r.amax + sp.depth), "(it_ + " + std::to_string(r.amax - r.amin + sp.depth) + ") % " +
                                                                           std::to_string(r.slots)));
    p.closeScope("");
    p.line("stnc_rt::cpAsyncCommit();");
    p.line("stnc_rt::cpAsyncWait<" + std::to_string(sp.depth) + ">();  // this thread's copies of the planes read now have landed");
    p.line("__syncthreads();  // and every other thread's");
  }
  for (const auto& [field, d] : planes) {
    const passes::SmemRing& r = *ringOf(&sp, field);
    p.line("const int " + ringSlotName(field, d) + " = static_cast<int>((it_ + " + std::to_string(d - r.amin) + ") % " + std::to_string(r.slots) + ") * " +
           std::to_string(r.slotElems) + ";  // slot of plane " + planeText(k, d));
  }
}

// Emits one stream kernel (see emitStreamKernel in StreamKernel.h): the prologue (thread indices, the
// queues' first planes, the rings' first copies), then per plane the loads (ring slots, queue heads,
// vectors), the body or bodies with their stores, and the queues' shift.
class StreamEmitter {
 public:
  StreamEmitter(CPrinter& p, const dag::Module& m, const dag::Kernel& k, int part, int rows, int vec, const passes::SmemPlan* sp, bool fused,
                int queuePart)
      : p_(p), m_(m), k_(k), part_(part), rows_(rows), vec_(vec), sp_(sp), fused_(fused),
        real_(dag::elemCType(k.type)),
        vt_(vec > 1 ? vecType(k, vec) : real_),
        tk_(tileKernel(m.ctx, k, fused ? -2 : part, rows, vec)),
        qs_(queuesOf(m.ctx, k, rows, vec, queuePart == -3 ? part : queuePart)),
        heads_(sp && k.schedule.heads),
        tma_(sp && sp->tma && !fused),
        banded_(sp && !fused),
        // With rings, prefetch is the copy pipeline's depth; queue heads from global memory load as many
        // planes ahead into registers.
        D_(sp && !heads_ ? 0 : k.schedule.prefetch),
        literalOf_(constantRef(m.ctx, k)) {}

  void emit(const std::string& kname, const std::string& params) {
    // Fused: the two bodies raise the register count (156 for the acoustic sample at 4 points per thread);
    // registers must not cost resident blocks the rings allow.
    const std::string bounds = fused_ && sp_ ? "kBlockX * kBlockY, " + std::to_string(sp_->blocksPerSm) : "kBlockX * kBlockY";
    p_.openScope("__global__ void __launch_bounds__(" + bounds + ") " + kname + "(const stnc_rt::Layout L_, const stnc_rt::Box B_, " +
                 (fused_ ? "const stnc_rt::Box R_, " : "") + "const long chunk_, " + params + (tma_ ? tmaParams(*sp_) : "") + ")");
    buildBroadcastQueues();
    buildHoistable();
    std::string unused = usedNamesVoidCast(m_.ctx, k_, false, fused_ ? -2 : part_);
    if (!unused.empty()) p_.line(unused);
    emitIndices();
    emitQueuePrologue();
    if (sp_) emitRingPrologue(p_, k_, *sp_, rows_, tma_);
    emitHoisted();
    emitBroadcastQueuePrologue();
    if (k_.schedule.unroll > 1) p_.line("#pragma unroll " + std::to_string(k_.schedule.unroll));
    p_.openScope("for (long x_ = x0_; x_ < x1_; ++x_, p_ += s0_)");
    emitPlaneLoads();
    emitBroadcastQueueHeads();
    if (!fused_) emitBodyAndStores(part_);
    else emitFusedBodies();
    for (const Queue& q : qs_) {
      std::string rot;
      for (int d = q.lo; d < q.hi + D_; ++d) rot += slotName(q.field, q.row, q.col, d) + " = " + slotName(q.field, q.row, q.col, d + 1) + "; ";
      rot.pop_back();
      p_.line(rot);
    }
    emitBroadcastQueueShifts();
    p_.closeScope("for x_");
    if (sp_ && !tma_) p_.line("stnc_rt::cpAsyncWait<0>();  // nothing in flight when the block exits");
    if (tma_) p_.line("// nothing in flight: every group issued was waited on (a group is issued only for an iteration that runs)");
    p_.closeScope(kname);
    p_.line();
  }

 private:
  // The block's tile row by_ and chunk bz_ from its place in the launch order (banded_): the grid's third
  // dimension is bands x chunks, a band being gridDim.y rows of tile columns (the launcher's stnc_rt::ringBandRows,
  // about one wave of resident blocks), so the hardware runs a band's first chunks, then their second chunks, and so
  // on. A column's chunk z+1 then starts about when its chunk z ends, and the planes its prologue re-reads (chunk
  // z's last ones) are still in L2; with the chunk index slowest over the whole box they came from DRAM again once
  // the box has more columns than a wave (measured: bench/results/2026-12-01-s15-slab-tma.md).
  void emitBandedBlock() {
    p_.line("// Launch order: bands of gridDim.y rows of tile columns (one wave of resident blocks), each band's chunks in");
    p_.line("// order, so a column's chunk z+1 starts about when its chunk z ends: the planes it re-reads first are in L2.");
    p_.line("long by_ = 0, bz_ = 0;");
    p_.line("stnc_rt::bandedTile(blockIdx.y, blockIdx.z, gridDim.y, gridDim.z, (B_.hi[0] - B_.lo[0] + chunk_ - 1) / chunk_, by_, bz_);");
    p_.line("if (B_.lo[1] + by_ * kBlockY * " + std::to_string(rows_) + " >= B_.hi[1]) return;  // the last band's rows past the box: before any barrier");
  }

  // Strides, the thread's first point (z_, y_), who is active, the chunk x0_ .. x1_ and p_.
  void emitIndices() {
    const int vec = vec_, rows = rows_;
    const std::string bx = "blockIdx.x", by = banded_ ? "by_" : "blockIdx.y", bz = banded_ ? "bz_" : "blockIdx.z";
    if (banded_) emitBandedBlock();
    p_.line("const long s0_ = L_.stride[0];");
    p_.line("const long s1_ = L_.stride[1];");
    p_.line("(void)s1_;");
    if (sp_) p_.line("constexpr int kVec = " + std::to_string(vec) + ";");
    if (vec == 1) {
      p_.line("// Columns start at a multiple of kBlockX (a box starting mid-row, like a region, keeps whole-line loads).");
      p_.line("const long z_ = stnc_rt::alignCol(kLayoutPhase, B_.lo[2], kBlockX) + " + bx + " * static_cast<long>(kBlockX) + threadIdx.x;");
    } else {
      if (sp_) {
        p_.line("// Tiles start at a multiple of their width, like the rows (tiles starting at any 32-byte sector,");
        p_.line("// wasting fewer columns of a region starting mid-row, ran the acoustic inner region 24 % slower).");
      }
      p_.line("// Columns z_ .. z_+" + std::to_string(vec - 1) + " of this thread: the box's dim-2 bounds are multiples of " +
              std::to_string(vec) + " and so are the row starts, so every " + std::to_string(vec * dag::elemSize(k_.type)) +
              "-byte vector access is aligned.");
      p_.line("const long z_ = stnc_rt::alignCol(kLayoutPhase, B_.lo[2], kBlockX * " + std::to_string(vec) +
              ") + (" + bx + " * static_cast<long>(kBlockX) + threadIdx.x) * " + std::to_string(vec) + ";");
    }
    if (rows == 1) {
      p_.line("const long y_ = B_.lo[1] + " + by + " * static_cast<long>(kBlockY) + threadIdx.y;");
    } else {
      p_.line("// Rows y_ .. y_+" + std::to_string(rows - 1) + " of this thread; " +
              (sp_ ? std::string("rows past the box's last one store nothing.")
                   : "the launcher gives this kernel a multiple of " + std::to_string(rows) + " rows."));
      p_.line("const long y_ = B_.lo[1] + (" + by + " * static_cast<long>(kBlockY) + threadIdx.y) * " + std::to_string(rows) + ";");
    }
    if (sp_) {
      p_.line("const long zb_ = z_ - threadIdx.x * kVec, yb_ = y_ - threadIdx.y" + rowsFactor(rows) +
              ";  // the block's first column and row");
      p_.line("// Threads outside the box still copy and meet the barriers; they compute from zero-filled or");
      p_.line("// neighbouring values and store nothing." +
              std::string(rows > 1 ? " A thread's rows past the box's last row compute and store nothing either." : ""));
      p_.line("const bool act_ = z_ + kVec > B_.lo[2] && z_ < B_.hi[2] && y_ < B_.hi[1];");
      if (vec > 1) p_.line("const bool whole_ = z_ >= B_.lo[2] && z_ + kVec <= B_.hi[2];");
      if (fused_) {
        p_.line("// The block's tile (within the box) against region R_ along dims 1 and 2: wholly inside, or meeting it.");
        p_.line("const long ty1_ = yb_ + kBlockY < B_.hi[1] ? yb_ + kBlockY : B_.hi[1];");
        p_.line("const long tz0_ = zb_ > B_.lo[2] ? zb_ : B_.lo[2], tz1_ = zb_ + kBlockX * kVec < B_.hi[2] ? zb_ + kBlockX * kVec : B_.hi[2];");
        p_.line("const bool tileIn_ = yb_ >= R_.lo[1] && ty1_ <= R_.hi[1] && tz0_ >= R_.lo[2] && tz1_ <= R_.hi[2];");
        p_.line("const bool tileMeets_ = yb_ < R_.hi[1] && ty1_ > R_.lo[1] && tz0_ < R_.hi[2] && tz1_ > R_.lo[2];");
      }
    } else if (vec == 1) {
      p_.line("if (z_ < B_.lo[2] || z_ >= B_.hi[2] || y_ >= B_.hi[1]) return;  // no block-wide barrier follows");
    } else {
      p_.line("// A group overlapping the box's first or last column computes every point and stores those inside");
      p_.line("// (the launcher checked that the group's reads stay in the allocated rows).");
      p_.line("if (z_ + " + std::to_string(vec) + " <= B_.lo[2] || z_ >= B_.hi[2] || y_ >= B_.hi[1]) return;  // no block-wide barrier follows");
      p_.line("const bool whole_ = z_ >= B_.lo[2] && z_ + " + std::to_string(vec) + " <= B_.hi[2];");
    }
    p_.line("const long x0_ = B_.lo[0] + " + bz + " * chunk_;");
    p_.line("const long x1_ = x0_ + chunk_ < B_.hi[0] ? x0_ + chunk_ : B_.hi[0];");
    p_.line("long p_ = stnc_rt::at(L_, x0_, y_, z_);");
    if (D_ > 0 && !qs_.empty()) {
      p_.line("// Prefetch: each queue loads " + std::to_string(D_) + " plane(s) ahead of use, so more bytes are in flight per thread;");
      p_.line("// a load past the last allocated plane is skipped (its value is never used).");
      p_.line("const long last_ = L_.dim[0] - 1 - L_.pad[0];  // last allocated plane of dim 0");
    }
  }

  // The text of a load of `field` at offset o from p_: a scalar, or (vec > 1) the vector whose first
  // element is at o (o.d[2] a multiple of vec).
  std::string loadAt(const std::string& field, const dag::Offset& o) const {
    const std::string addr = cIdent(field) + "[" + offsetIndex(k_, o) + "]";
    return vec_ == 1 ? addr : "*reinterpret_cast<const " + vt_ + "*>(&" + addr + ")";
  }
  // A queue (the col-0 queue of its vector group) slot at dim-0 offset d from x: a plain load when d
  // is within the footprint (always allocated), a guarded one for the prefetched planes beyond it.
  std::string load(const Queue& q, int d, const std::string& x) const {
    dag::Offset o;
    o.d[0] = d;
    o.d[1] = q.row;
    std::string ld = loadAt(q.field, o);
    if (sp_) {  // rings: threads outside the box load too (they meet the barriers)
      const std::string past = d <= q.hi ? "" : " && " + x + " + " + std::to_string(d) + " <= last_";
      return "(" + rowActive(q.row) + past + " ? " + ld + " : " + vt_ + "{})";
    }
    if (d <= q.hi) return ld;
    return "(" + x + " + " + std::to_string(d) + " <= last_ ? " + ld + " : " + vt_ + "{})";
  }
  // With rings: whether a queue's row y_ + row can be loaded: the thread is active (its first row in the box) and the
  // row is allocated. A queue of row r > 0 also serves the thread's rows above r (an access at dim-1 offset r - r'
  // of row r'), so rows past the box's last one but inside the halo hold real values (session 19's random campaign:
  // guarded by the box, they read zeros, and the box's last row was wrong with rows >= 2 and rings); rows past the
  // allocation exist only for rows of the thread past the box, which store nothing.
  std::string rowActive(int row) const {
    return row <= 0 ? "act_" : "(act_ && y_ + " + std::to_string(row) + " < L_.dim[1] - L_.pad[1])";
  }
  // Assigns the slots of queue group q at offset d (every column of the group) from a load.
  std::string assign(const Queue& q, int d, const std::string& x) const {
    if (vec_ == 1) return slotName(q.field, q.row, 0, d) + " = " + load(q, d, x) + ";";
    std::string s = "{ const " + vt_ + " v_ = " + load(q, d, x) + "; ";
    for (int c = 0; c < vec_; ++c) s += slotName(q.field, q.row, c, d) + " = v_" + kLane[c] + "; ";
    return s + "}";
  }

  // The queues' declarations and the planes they hold before the first iteration.
  void emitQueuePrologue() {
    for (const Queue& q : qs_) {
      if (q.col != 0) continue;
      p_.line("// register queue: " + q.field + (rows_ > 1 ? " (row +" + std::to_string(q.row) + ")" : "") +
              (vec_ > 1 ? " (columns +0.." + std::to_string(vec_ - 1) + ")" : "") + " at " + k_.axes[0] + std::to_string(q.lo) + " .. " +
              k_.axes[0] + "+" + std::to_string(q.hi) + (D_ > 0 ? " (+" + std::to_string(D_) + " prefetched)" : ""));
      std::string decl = real_;
      for (int c = 0; c < vec_; ++c)
        for (int d = q.lo; d <= q.hi + D_; ++d) decl += (decl == real_ ? " " : ", ") + slotName(q.field, q.row, c, d);
      p_.line(decl + ";");
      for (int d = q.lo; d < q.hi + D_; ++d) p_.line(assign(q, d, "x0_"));
    }
  }

  const Queue* queued(const dag::Node& n) const {
    for (const Queue& q : qs_)
      if (q.field == tk_.ctx.name(n.sym) && n.offset.d[1] == q.row && n.offset.d[2] == q.col && n.offset.d[0] >= q.lo && n.offset.d[0] <= q.hi)
        return &q;
    return nullptr;
  }
  // Fused: whether the region's rings hold access n (else it is read through L1: a field only the
  // default equations read, or an offset beyond the region's footprint). Along dim 2 the tile is wider than
  // the footprint (16-byte chunks, 32-byte sectors: a2 .. hi2), but the copies fill only the chunks the
  // footprint reaches from the box (reach2lo .. reach2hi, STNC_RING_CLIP) and zero the rest, so a
  // default-equation offset outside the footprint but inside the tile must not come from the ring (session
  // 20's random campaign with regions: zeros at the box's first or last columns under --fuse-regions=on).
  bool ringHolds(const dag::Node& n) const {
    const passes::SmemRing* r = ringOf(sp_, tk_.ctx.name(n.sym));
    if (!r) return false;
    const dag::Offset& o = n.offset;
    const int g = floorDiv(o.d[2], vec_) * vec_;
    // A corner-free tile (StarRingCopier) holds no diagonal offset.
    return o.d[0] >= r->amin && o.d[0] <= r->amax && o.d[1] >= r->lo1 && o.d[1] <= r->hi1 && g >= r->a2 && g <= r->hi2 &&
           o.d[2] >= r->reach2lo && o.d[2] <= r->reach2hi && (r->corners || o.d[1] == 0 || o.d[2] == 0);
  }
  // The read of the vector at (d0, d1, group g) of a ring's tile.
  std::string ringLoad(const std::string& field, int d0, int d1, int g) const {
    const passes::SmemRing& r = *ringOf(sp_, field);
    const std::string addr = ringThreadName(field) + " + " + ringSlotName(field, d0) + plusTerm(d1 * r.cols + g * vec_);
    return vec_ == 1 ? "*(" + addr + ")" : "*reinterpret_cast<const " + vt_ + "*>(" + addr + ")";
  }

  // Per plane: the ring slots (and the copies ahead), each queue's new value, and with vec > 1 or rings
  // every other access through the aligned vector holding it, one load per vector (from global memory,
  // or from its plane's tile in shared memory).
  void emitPlaneLoads() {
    std::set<std::pair<std::string, int>> planes;  // (field, dim-0 offset) read from shared memory
    for (const Queue& q : qs_)
      if (sp_ && !heads_ && q.col == 0) planes.insert({q.field, q.hi});
    if (vec_ > 1 || sp_) {
      for (dag::NodeId id : dag::liveNodes(tk_.ctx, tk_.k, fused_ ? -2 : part_)) {
        const dag::Node& n = tk_.ctx.node(id);
        if (n.kind != dag::NodeKind::Access || queued(n) || (fused_ && !ringHolds(n))) continue;
        auto key = std::make_tuple(tk_.ctx.name(n.sym), n.offset.d[0], n.offset.d[1], floorDiv(n.offset.d[2], vec_));
        if (vecLoads_.count(key)) continue;
        const std::string name = "v" + std::to_string(vecLoads_.size()) + "_";
        vecLoads_[key] = name;
        vecOrder_.push_back({key, name});
        planes.insert({std::get<0>(key), n.offset.d[0]});
      }
    }
    if (sp_) emitRingIteration(p_, k_, *sp_, planes, tma_);
    for (const Queue& q : qs_) {
      if (q.col != 0) continue;
      if (!sp_ || heads_) {
        p_.line(assign(q, q.hi + D_, "x_") + "  // the one new load of " + q.field + (heads_ ? ", from global memory" : ""));
        continue;
      }
      const std::string ld = ringLoad(q.field, q.hi, q.row, 0);
      std::string s = vec_ == 1 ? slotName(q.field, q.row, 0, q.hi) + " = " + ld + ";" : "{ const " + vt_ + " v_ = " + ld + "; ";
      for (int c = 0; vec_ > 1 && c < vec_; ++c) s += slotName(q.field, q.row, c, q.hi) + " = v_" + kLane[c] + "; ";
      p_.line(s + (vec_ > 1 ? "}" : "") + "  // the queue's new value, from shared memory");
    }
    for (const auto& [key, name] : vecOrder_) {
      dag::Offset o;
      o.d[0] = std::get<1>(key);
      o.d[1] = std::get<2>(key);
      o.d[2] = std::get<3>(key) * vec_;
      p_.line("const " + vt_ + " " + name + " = " +
              (sp_ ? ringLoad(std::get<0>(key), o.d[0], o.d[1], std::get<3>(key)) : loadAt(std::get<0>(key), o)) + ";");
    }
  }

  // How the bodies read access n: a queue slot, a vector lane, a plain load, or (fused, not in the
  // rings) a guarded L1 load where the point's row is allocated.
  std::string access(const dag::Node& n) const {
    // A lower-rank field: clamped, since a tile's lanes past the box's edge compute (and do not store) points
    // whose coordinates may lie outside its array; along dim 0 not (the plane loop stays inside the box).
    if (n.kind == dag::NodeKind::Broadcast) {
      if (const BroadcastQueue* q = broadcastQueue(n)) return q->slot(n.offset.d[axis0()]);
      return broadcastLoad(tk_.ctx, tk_.k, n, true, 1u);
    }
    if (const Queue* q = queued(n)) return slotName(q->field, q->row, q->col, n.offset.d[0]);
    if (vec_ == 1 && !sp_) return accessLoad(tk_.ctx, tk_.k, n);
    const int g = floorDiv(n.offset.d[2], vec_);
    auto it = vecLoads_.find(std::make_tuple(tk_.ctx.name(n.sym), n.offset.d[0], n.offset.d[1], g));
    if (it == vecLoads_.end()) {
      const std::string z = "z_" + plusTerm(n.offset.d[2]);
      return "(act_ && " + z + " >= -L_.pad[2] && " + z + " < L_.dim[2] - L_.pad[2] ? " + accessLoad(tk_.ctx, tk_.k, n) + " : " + real_ + "(0))";
    }
    return vec_ == 1 ? it->second : it->second + kLane[n.offset.d[2] - g * vec_];
  }
  AccessFn accessFn() const {
    return [this](const dag::Node& n) { return access(n); };
  }
  // The value of output i at its tile point.
  std::string outName(size_t i) const {
    return cIdent(tk_.k.outputs[i].field) + "_r" + std::to_string(tk_.rowOf[i]) + "_c" + std::to_string(tk_.colOf[i]) + "_";
  }

  // Register queues for lower-rank fields that vary along dim 0 (a profile along i, read at i-1, i, i+1 by the
  // acoustic PML's dx2(eta)): like the full fields' queues, the planes a thread reads stay in registers and each
  // iteration loads only the newest (one load per plane instead of one per offset). A field read at one dim-0
  // offset keeps its plain load. Keyed by (field, offsets along the other axes); slots lo .. hi.
  struct BroadcastQueue {
    int index = 0, lo = 0, hi = 0;
    dag::NodeId node = dag::kNoNode;  // one of its nodes (the loads are printed from it)
    std::vector<int> key;             // (field, offsets along the other axes)
    std::string slot(int d) const { return "bq" + std::to_string(index) + "_" + (d < 0 ? "m" + std::to_string(-d) : std::to_string(d)) + "_"; }
  };
  // The kernel axis stored along internal dimension 0 (-1: none, a rank < 3 kernel streams along no axis of its own).
  int axis0() const {
    for (int a = 0; a < tk_.k.rank(); ++a)
      if (internalDim(tk_.k, a) == 0) return a;
    return -1;
  }
  // A lower-rank field's node that varies along dim 0 (the plane loop's dimension).
  bool variesAlongDim0(const dag::Node& n) const {
    const int a0 = axis0();
    return n.kind == dag::NodeKind::Broadcast && a0 >= 0 && (n.axes & (1u << a0));
  }
  static std::vector<int> otherOffsets(const dag::Node& n, int a0) {
    std::vector<int> o{static_cast<int>(n.sym)};
    for (int a = 0; a < 3; ++a)
      if (a != a0) o.push_back(n.offset.d[a]);
    return o;
  }
  // Collects the queues (emit() calls it first, with buildHoistable(): access() and the bodies look them up).
  void buildBroadcastQueues() {
    const int a0 = axis0();
    if (a0 < 0) return;
    std::map<std::vector<int>, BroadcastQueue> groups;
    std::vector<std::vector<int>> order;
    for (dag::NodeId id : dag::liveNodes(tk_.ctx, tk_.k, fused_ ? -2 : part_)) {
      const dag::Node& b = tk_.ctx.node(id);
      if (!variesAlongDim0(b)) continue;
      const std::vector<int> key = otherOffsets(b, a0);
      const int d = b.offset.d[a0];
      auto [it, fresh] = groups.try_emplace(key);
      if (fresh) {
        it->second.lo = it->second.hi = d, it->second.node = id;
        order.push_back(key);
      }
      it->second.lo = std::min(it->second.lo, d), it->second.hi = std::max(it->second.hi, d);
    }
    for (const std::vector<int>& key : order) {
      BroadcastQueue q = groups[key];
      if (q.lo == q.hi) continue;  // one offset: a plain load per plane costs the same
      q.index = static_cast<int>(bqs_.size());
      q.key = key;
      bqs_.push_back(q);
    }
  }
  const BroadcastQueue* broadcastQueue(const dag::Node& n) const {
    if (!variesAlongDim0(n)) return nullptr;
    const std::vector<int> key = otherOffsets(n, axis0());
    for (const BroadcastQueue& q : bqs_)
      if (q.key == key) return &q;
    return nullptr;
  }
  // The load of queue q's value at dim-0 offset d from the plane x_ (dim 0 unclamped: the plane loop and its
  // reach stay inside the array, which holds the halo).
  std::string broadcastQueueLoad(const BroadcastQueue& q, int d) const {
    dag::Node n = tk_.ctx.node(q.node);
    n.offset.d[axis0()] = d;
    return broadcastLoad(tk_.ctx, tk_.k, n, true, 1u);
  }
  // Before the loop: slots lo .. hi-1 from the chunk's first plane.
  void emitBroadcastQueuePrologue() {
    if (bqs_.empty()) return;
    p_.line("// register queues of lower-rank fields along " + k_.axes[0] + ": one load per plane (the newest), the others shifted");
    for (const BroadcastQueue& q : bqs_) {
      std::string decl = real_ + " ";
      for (int d = q.lo; d < q.hi; ++d) decl += (d > q.lo ? ", " : "") + q.slot(d);
      p_.line(decl + ";");
      p_.openScope("");
      p_.line("const long x_ = x0_;  // the slots' loads as the first iteration would name them");
      for (int d = q.lo; d < q.hi; ++d) p_.line(q.slot(d) + " = " + broadcastQueueLoad(q, d) + ";");
      p_.closeScope("");
    }
  }
  // In the loop, before the body: the newest slot.
  void emitBroadcastQueueHeads() {
    for (const BroadcastQueue& q : bqs_) p_.line("const " + real_ + " " + q.slot(q.hi) + " = " + broadcastQueueLoad(q, q.hi) + ";");
  }
  // At the loop's end: the shift.
  void emitBroadcastQueueShifts() {
    for (const BroadcastQueue& q : bqs_) {
      std::string rot;
      for (int d = q.lo; d < q.hi; ++d) rot += q.slot(d) + " = " + q.slot(d + 1) + "; ";
      rot.pop_back();
      p_.line(rot);
    }
  }

  // Loop-invariant code motion out of the plane loop. A lower-rank field that does not vary along dim 0 (a
  // profile along j or k) has the same value in every plane of the thread's chunk, and so has any arithmetic on
  // such values, constants and params alone (the acoustic PML's `etax + (etay + etaz)`: the inner sum). Both are
  // computed once per thread, before the loop, under the names the body uses. Arithmetic on constants and
  // params alone stays in the body (nvcc hoists that itself). Exact: the same operations on the same values.
  // hoistable(): 0 varies along dim 0, 1 constants and params only, 2 hoisted (depends on a hoisted load).
  // buildHoistable() fills it in one pass over the live nodes in topological order (operands first).
  void buildHoistable() {
    for (dag::NodeId id : dag::liveNodes(tk_.ctx, tk_.k, fused_ ? -2 : part_)) {
      const dag::Node& n = tk_.ctx.node(id);
      int h = 0;
      switch (n.kind) {
        case dag::NodeKind::Const:
        case dag::NodeKind::Param: h = 1; break;
        case dag::NodeKind::Access: h = 0; break;
        case dag::NodeKind::Broadcast: h = variesAlongDim0(n) ? 0 : 2; break;
        case dag::NodeKind::Apply:
        case dag::NodeKind::Select:
          h = 1;
          for (int i = 0; i < n.operandCount() && h > 0; ++i) {
            const int o = hoistable(n.operands[i]);
            h = o == 0 ? 0 : std::max(h, o);
          }
          break;
      }
      hoist_[id] = h;
    }
  }
  int hoistable(dag::NodeId id) const {
    auto it = hoist_.find(id);
    return it != hoist_.end() ? it->second : 0;
  }
  std::function<bool(dag::NodeId)> hoisted() const {
    return [this](dag::NodeId id) { return hoistable(id) == 2; };
  }
  // Declares those before the plane loop, in topological order (each load before the arithmetic that uses it).
  void emitHoisted() {
    int loads = 0, ops = 0;
    std::vector<std::string> lines;
    for (dag::NodeId id : dag::liveNodes(tk_.ctx, tk_.k, fused_ ? -2 : part_)) {
      if (hoistable(id) != 2) continue;
      const dag::Node& n = tk_.ctx.node(id);
      const bool load = n.kind == dag::NodeKind::Broadcast;
      (load ? loads : ops) += 1;
      lines.push_back(load ? broadcastDecl(tk_.ctx, tk_.k, n, true) : applyDecl(tk_.ctx, tk_.k, id, kCudaDivide, literalOf_));
    }
    if (lines.empty()) return;
    p_.line("// constant along " + k_.axes[0] + ", computed once per thread before the plane loop: " + std::to_string(loads) +
            " lower-rank load(s)" + (ops ? " and " + std::to_string(ops) + " operation(s) on them" : std::string()));
    for (const std::string& l : lines) p_.line(l);
  }

  // The body of part `which` (fused: the region or the default part; otherwise the kernel's part) and
  // its stores.
  void emitBodyAndStores(int which) {
    const std::string& real = real_;
    const int vec = vec_;
    emitPointBody(p_, tk_.ctx, tk_.k, fused_ ? which : part_, accessFn(), [&](size_t i, const dag::Output& o) {
      if (vec > 1 || sp_) return "const " + real + " " + outName(i);
      dag::Offset at;
      at.d[1] = tk_.rowOf[i];
      at.d[2] = tk_.colOf[i];
      return cIdent(o.field) + "[" + offsetIndex(k_, at) + "]";
    }, kCudaDivide, literalOf_, hoisted());
    auto mine = [&](size_t i) { return !fused_ || tk_.k.outputs[i].region == which; };
    // With rings a thread's rows past the box's last row store nothing (row 0: act_ says).
    auto rowCond = [&](size_t i) { return sp_ && tk_.rowOf[i] > 0 ? "y_ + " + std::to_string(tk_.rowOf[i]) + " < B_.hi[1]" : std::string(); };
    auto rowGuard = [&](size_t i) { return rowCond(i).empty() ? std::string() : "if (" + rowCond(i) + ") "; };
    if (vec > 1) {  // one vector store per output row; a group at the box's edge stores its inside points
      std::vector<std::string> whole, edge;
      for (size_t i = 0; i < tk_.k.outputs.size(); ++i) {
        if (!mine(i)) continue;
        const dag::Output& o = tk_.k.outputs[i];
        dag::Offset at;
        at.d[1] = tk_.rowOf[i];
        at.d[2] = tk_.colOf[i];
        edge.push_back("if (" + (rowCond(i).empty() ? "" : rowCond(i) + " && ") + "z_ + " + std::to_string(at.d[2]) + " >= B_.lo[2] && z_ + " +
                       std::to_string(at.d[2]) + " < B_.hi[2]) " +
                       cIdent(o.field) + "[" + offsetIndex(k_, at) + "] = " + outName(i) + ";");
        if (tk_.colOf[i] != 0) continue;
        at.d[2] = 0;
        std::string vals;
        for (int c = 0; c < vec; ++c) vals += (c ? ", " : "") + cIdent(o.field) + "_r" + std::to_string(at.d[1]) + "_c" + std::to_string(c) + "_";
        const std::string ptr = "reinterpret_cast<" + vt_ + "*>(&" + cIdent(o.field) + "[" + offsetIndex(k_, at) + "])";
        // Ring kernels store evict-first (stnc_rt::storeOnce); the L1 kernels did not gain from it
        // (box125_rt 286 -> 352 us, bench/results/2026-11-30-s5-pml.md).
        whole.push_back(sp_ ? rowGuard(i) + "stnc_rt::storeOnce(" + ptr + ", " + vt_ + "{" + vals + "});" : "*" + ptr + " = " + vt_ + "{" + vals + "};");
      }
      if (sp_) p_.openScope("if (act_)");
      p_.openScope("if (whole_)");
      for (const std::string& l : whole) p_.line(l);
      p_.closeScope();
      p_.openScope("else  // the box's first or last column group");
      for (const std::string& l : edge) p_.line(l);
      p_.closeScope();
      if (sp_) p_.closeScope("");
    } else if (sp_) {
      p_.openScope("if (act_)");
      for (size_t i = 0; i < tk_.k.outputs.size(); ++i) {
        if (!mine(i)) continue;
        dag::Offset at;
        at.d[1] = tk_.rowOf[i];
        const std::string idx = tk_.rowOf[i] > 0 ? offsetIndex(k_, at) : "p_";
        p_.line(rowGuard(i) + "stnc_rt::storeOnce(&" + cIdent(tk_.k.outputs[i].field) + "[" + idx + "], " + outName(i) + ");");
      }
      p_.closeScope("");
    }
  }

  // The fused kernel's three bodies: the region's, the default one, or both (straddling tiles).
  void emitFusedBodies() {
    p_.line("const bool in0_ = x_ >= R_.lo[0] && x_ < R_.hi[0];");
    p_.openScope("if (in0_ && tileIn_)  // the whole tile of this plane is in region " + k_.regions[part_].name);
    emitBodyAndStores(part_);
    p_.closeScope();
    p_.openScope("else if (!in0_ || !tileMeets_)  // none of it: the default equations");
    emitBodyAndStores(-1);
    p_.closeScope();
    p_.openScope("else  // the tile straddles the region's boundary: both bodies, one after the other, each storing its own points");
    p_.line("// (a point reads a field it writes only at its own offset, so the first body's stores do not reach the second)");
    for (int c = 0; c < vec_; ++c)
      p_.line("const bool inR" + std::to_string(c) + "_ = act_ && y_ >= R_.lo[1] && y_ < R_.hi[1] && z_" + plusTerm(c) + " >= R_.lo[2] && z_" +
              plusTerm(c) + " < R_.hi[2] && z_" + plusTerm(c) + " >= B_.lo[2] && z_" + plusTerm(c) + " < B_.hi[2];");
    for (int which : {part_, -1}) {
      p_.openScope("");
      emitPointBody(p_, tk_.ctx, tk_.k, which, accessFn(), [&](size_t i, const dag::Output&) { return "const " + real_ + " " + outName(i); },
                    kCudaDivide, literalOf_, hoisted());
      for (size_t i = 0; i < tk_.k.outputs.size(); ++i) {
        if (tk_.k.outputs[i].region != which) continue;
        dag::Offset at;
        at.d[2] = tk_.colOf[i];
        const std::string c = std::to_string(tk_.colOf[i]);
        p_.line("if (" +
                std::string(which < 0 ? "act_ && z_" + plusTerm(tk_.colOf[i]) + " >= B_.lo[2] && z_" + plusTerm(tk_.colOf[i]) + " < B_.hi[2] && !inR" : "inR") +
                c + "_) stnc_rt::storeOnce(&" + cIdent(tk_.k.outputs[i].field) + "[" + offsetIndex(k_, at) + "], " + outName(i) + ");");
      }
      p_.closeScope("");
    }
    p_.closeScope();
  }

  CPrinter& p_;
  const dag::Module& m_;
  const dag::Kernel& k_;
  const int part_, rows_, vec_;
  const passes::SmemPlan* sp_;
  const bool fused_;
  const std::string real_, vt_;
  const TileKernel tk_;
  const std::vector<Queue> qs_;
  const bool heads_;  // rings, but the queues' heads come from global memory (Schedule::heads)
  const bool tma_;    // rings filled by the tensor memory accelerator (SmemPlan::tma; not the fused kernel)
  const bool banded_;  // the launch orders the chunks in bands of tile columns (rings; not the fused kernel)
  const int D_;
  const LiteralFn literalOf_;  // the stencil's f64 constants from its constant table (codegen/cuda/ConstantTable)
  std::map<dag::NodeId, int> hoist_;          // hoistable()'s answers
  std::vector<BroadcastQueue> bqs_;           // register queues of lower-rank fields along dim 0
  std::map<std::tuple<std::string, int, int, int>, std::string> vecLoads_;
  std::vector<std::pair<std::tuple<std::string, int, int, int>, std::string>> vecOrder_;
};

}  // namespace

void emitStreamKernel(CPrinter& p, const dag::Module& m, const dag::Kernel& k, int part, int rows, int vec, const std::string& kname,
                      const std::string& params, const passes::SmemPlan* sp, bool fused, int queuePart) {
  StreamEmitter(p, m, k, part, rows, vec, sp, fused, queuePart).emit(kname, params);
}

}  // namespace stnc::codegen
