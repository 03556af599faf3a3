// The lowered program: one dag::Context shared by every kernel (so a group's members share
// nodes and each distinct (field, offset) access is one node), and one Kernel per stencil and
// per group. Kernels refer to fields and params by name; passes fill the analysis results.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dag/Context.h"
#include "support/SourceManager.h"

namespace stnc::dag {

enum class ElemType { F32, F64 };
inline const char* elemTypeName(ElemType t) { return t == ElemType::F32 ? "f32" : "f64"; }
inline const char* elemCType(ElemType t) { return t == ElemType::F32 ? "float" : "double"; }
inline size_t elemSize(ElemType t) { return t == ElemType::F32 ? 4 : 8; }

enum class Role { In, Out, InOut };
inline const char* roleName(Role r) { return r == Role::In ? "in" : r == Role::Out ? "out" : "inout"; }
inline bool isRead(Role r) { return r != Role::Out; }
inline bool isWritten(Role r) { return r != Role::In; }

struct Field {
  std::string name;
  Role role;
  Loc loc;
  // 0: the field has every axis of the kernel. Otherwise a lower-rank input (`in c(k);`, docs/EXTENSIONS.md):
  // bit a set = it varies along kernel axis a; its array is dense over those axes (n + 2 * halo points each,
  // no pad) and every read is a Broadcast node.
  unsigned axes = 0;
  bool lowerRank() const { return axes != 0; }
};

enum class BoundaryKind { Periodic, Value, Clamp, Mirror };
inline const char* boundaryName(BoundaryKind k) {
  switch (k) {
    case BoundaryKind::Periodic: return "periodic";
    case BoundaryKind::Value: return "value";
    case BoundaryKind::Clamp: return "clamp";
    case BoundaryKind::Mirror: return "mirror";
  }
  return "periodic";
}

struct Boundary {
  std::string field;
  unsigned axisMask = 0;  // bit a set = rule applies along axis a
  BoundaryKind kind = BoundaryKind::Periodic;
  NodeId value = kNoNode;  // Value: an expression of consts and params
  Loc loc;                 // the boundary statement (diagnostics of fused groups)
};

// A sub-box of the interior: along axis a, points lo[a] <= x < n[a] + hi[a] (lo >= 0, hi <= 0).
struct Region {
  std::string name;
  std::array<int, 3> lo{0, 0, 0};
  std::array<int, 3> hi{0, 0, 0};
};

struct Output {
  std::string field;
  NodeId value;
  int region = -1;   // index into Kernel::regions; -1 = default (outside every region)
  std::string text;  // the equation as written
  Loc loc;
};

// Per-field reach: the most negative and most positive offset read along each axis.
struct FieldFootprint {
  std::string field;
  std::array<int, 3> lo{0, 0, 0};  // <= 0
  std::array<int, 3> hi{0, 0, 0};  // >= 0
  int accesses = 0;                // distinct (field, offset) loads
};

struct Footprint {
  std::vector<FieldFootprint> fields;  // fields that are read, in the kernel's field order
  std::array<int, 3> halo{0, 0, 0};    // symmetric halo per axis (the contract's halo)
};

// How the CUDA backend maps a kernel onto the GPU (chosen by the choose-schedule pass, or forced
// by the user). Naive: one point per thread, 2-D blocks over the two inner dimensions. Stream
// (2.5-D): each thread walks a chunk of the outermost dimension, keeping the values a field needs
// along that dimension in a register queue (one new load per field per point); other offsets are
// read through L1.
// SumFactor: the kernel's output is a weighted sum of one field evaluated as shared partial sums
// (passes/FactorSums, --factor-sums=on; the plan is Kernel::sumFactor). Blocks of threads own a tile of
// the (dim 1, dim 2) plane and walk a chunk of dim 0; each plane's partial sums are computed once per
// point from a shared-memory tile and added to the outputs of every plane they feed.
enum class Strategy { Naive, Stream, SumFactor, Tensor };
inline const char* strategyName(Strategy s) {
  return s == Strategy::Naive ? "naive" : s == Strategy::Stream ? "stream" : s == Strategy::SumFactor ? "sumfactor" : "tensor";
}

struct Schedule {
  Strategy strategy = Strategy::Naive;
  int blockX = 32;      // threads along the contiguous dimension
  int blockY = 8;       // threads along the next one
  int chunk = 0;        // Stream: points of dimension 0 per block (0 = chosen at launch from the SM count)
  int unroll = 1;       // Stream: unroll factor of the loop along dimension 0
  int prefetch = 0;     // Stream: the queues load this many planes ahead of use (bytes in flight)
  int rows = 1;         // Stream: consecutive dim-1 rows per thread (loads shared between the rows)
  int vec = 1;          // Stream: consecutive dim-2 points per thread, read and written as one 16-byte
                        // (or 8-byte) vector per aligned group (2 for f64; 2 or 4 for f32)
  int smem = 0;         // Stream: planes arrive in shared memory through a cp.async ring where a
                        // part's rings fit (passes/SmemPlan): 1 = --smem=on (200 KiB), 2 = the
                        // policy's (two blocks per SM); prefetch is then the pipeline depth
  int heads = 0;        // Stream with rings: 1 = each register queue's newest plane is loaded from global
                        // memory `prefetch` planes ahead (into registers) instead of from its ring, so
                        // the ring holds only the planes read in-plane (--queue-heads=global)
  int tma = 0;          // Stream with rings: 1 = one thread copies each tile with the Hopper tensor memory
                        // accelerator (cp.async.bulk.tensor, completing on an mbarrier per plane group)
                        // instead of every thread copying 16-byte chunks (--tma=on); 2 = both kernels, the
                        // launch takes the accelerator for slab boxes (thin along dim 0 or 1, two tiles wide
                        // or more: a region kernel's default part; passes::chooseSlabTma)
  int slabVec = 0;      // Stream with tma 2: points per thread of the slab kernel (0 = vec; `slab_vec`, --slab-vec):
                        // slab boxes span whole rows, so lanes do not idle at the vector width the part's
                        // narrow boxes (27-column PML faces) keep
  int temporal = 0;     // 1: cuda::step fuses steps in pairs (temporal blocking, --temporal=on); 2: only for
                        // fields of kTemporalMinBytes or more (--temporal=auto: where it was measured to pay)
  std::string temporalWhy;  // why (not), for the generated comment and --report
  std::string reason;   // why, for the generated comment and --report
};

// The plan of a factored weighted sum (passes/FactorSums): the single output is
//   out(p)    = S(class of d0lo)(p + d0lo e0) + ... + S(class of d0hi)(p + d0hi e0), a left fold over the
//               plane offsets d0 that have terms, ascending
//   S(k)(q)   = sum of t.coef * Y(t.a, t.b)(q) over the terms t of classes[k], a left fold in (b, a) order
//   Y(a, b)(q) = X(a)(q - b e1) + X(a)(q + b e1)   (b = 0: X(a)(q); unpaired: X(a)(q + b e1))
//   X(a)(q)    = f(q - a e2) + f(q + a e2)         (a = 0: f(q); unpaired: f(q + a e2))
// over field f. Planes whose coefficients are equal share a class (a box symmetric along dim 0: planes
// -d0 and d0), so S is computed once per plane and class. With `fma` (--fp-contract=on) S folds with
// fma(coef, Y, acc) instead of acc + coef * Y. The kernel's DAG holds the same computation point by
// point, so every backend gets the same bits.
struct SumFactorTerm {
  int d0 = 0, b = 0, a = 0;  // plane offset along dim 0; offsets along dims 1 and 2 (half-distances where paired)
  double coef = 0;           // the coefficient: coef, or coef * param when param is set (a runtime coefficient)
  std::string param;
  bool sameCoef(const SumFactorTerm& o) const { return coef == o.coef && param == o.param; }
};
struct SumFactor {
  std::string field, output;
  // Whether X pairs the offsets +-a along dim 2 (and Y +-b along dim 1): the coefficients are mirror-symmetric
  // along that axis. Unpaired, X_a(q) = f(q + a e2) and Y_ab(q) = X_a(q + b e1) for signed a, b: the plan is
  // then the sum regrouped by plane (runtime coefficients), which the sumfactor schedule still feeds from
  // one shared-memory tile per plane, each loaded value reused by every output that reads it.
  bool pair1 = true, pair2 = true;
  std::vector<SumFactorTerm> terms;                // every (d0, b, a) with its coefficient: d0, then b, then a ascending
  std::vector<std::vector<SumFactorTerm>> classes;  // the distinct plane coefficient sets (d0 of the first plane seen)
  std::vector<int> planeClass;                     // plane d0lo + i: its class, -1 when it has no terms
  bool fma = false;
  int naiveOps = 0, sharedOps = 0;                 // arithmetic per point as written / with X, Y and S shared
  int d0lo() const { return terms.front().d0; }
  int d0hi() const { return terms.back().d0; }
  int r1() const;  // largest |b|
  int r2() const;  // largest |a|
};

// A weighted sum of one field over a box of at most 5 x 5 x 5 offsets, as the DAG evaluates it: an fma
// chain whose terms come in ascending (d0, b, a) order (passes/TensorSums). The tensor schedule computes
// it with FP64 tensor-core mmas, which add their products in the same order with the same rounding.
struct TensorSum {
  std::string field, output;
  std::vector<SumFactorTerm> terms;  // the chain's order: (d0, b, a) ascending; coef, or coef * param
};

// The CUDA schedule the source asks for (`schedule stream(block = 32x8, rows = 2);` in a stencil, or
// `schedule NAME stream(...);` at the top level, e.g. for a group; docs/EXTENSIONS.md). Unset values:
// "" for words, 0 (-1 for prefetch) for numbers. Options on the command line win value by value; a saved
// or autotuned schedule does not replace it.
struct ScheduleRequest {
  bool present = false;
  Loc loc;
  std::string text;      // ast::ScheduleDecl::text (without `schedule`), for --report and the generated comment
  std::string strategy;  // "" | auto | naive | stream
  int blockX = 0, blockY = 0, chunk = 0, unroll = 0, prefetch = -1, rows = 0, vec = 0;
  int slabVec = 0;       // slab_vec
  std::string smem;      // "" | auto | on | off
  std::string heads;     // "" | auto | ring | global (--queue-heads)
  std::string tma;       // "" | auto | on | off (--tma)
};

struct Kernel {
  std::string name;
  Loc loc;
  ScheduleRequest request;  // from the source (sema checked it); not present: the policy chooses
  std::map<int, ScheduleRequest> partRequests;  // `schedule @ REGION ...`: region index -> that part's request
  bool isGroup = false;
  std::vector<std::string> members;  // groups: member stencils, in order
  std::vector<std::string> axes;
  ElemType type = ElemType::F64;
  std::vector<Field> fields;         // declared order (groups: first appearance order)
  std::vector<std::string> params;   // declared order
  std::vector<Loc> paramLocs;
  std::vector<Output> outputs;
  std::vector<std::pair<std::string, std::string>> swaps;
  std::vector<Boundary> boundaries;
  std::vector<Region> regions;
  Footprint footprint;  // set by the footprint pass
  Schedule schedule;    // set by the choose-schedule pass
  std::optional<SumFactor> sumFactor;  // set by the factor-sums pass (--factor-sums=on)
  std::optional<TensorSum> tensorSum;  // set by the tensor-sums pass (--fp-contract=on, unless --tensor-cores=off)
  // Region parts (-1: the default part) whose CUDA kernel has a schedule of its own (today: parts whose
  // shared-memory rings do not fit the policy's budget get narrower rings or the L1 policy). Set by
  // choose-schedule.
  std::map<int, Schedule> partSchedules;
  // The region whose CUDA kernel also computes the default equations, in one launch over the whole box
  // (passes/FuseRegions, --fuse-regions); -1: one kernel per part. fusionWhy: why (not), for --report.
  int fusedRegion = -1;
  std::string fusionWhy;
  // The region whose dim-2 edges the default part's edge kernel takes, tile-aligned (passes/RegionEdges,
  // --region-edges); -1: none. edgeWhy: why (not), for --report.
  int edgeRegion = -1;
  std::string edgeWhy;
  // The interior column of the last axis that layout() aligns on a 128-byte boundary (passes/AlignRegion,
  // --align-region); 0: every row's first. alignWhy: why, for --report.
  int alignColumn = 0;
  std::string alignWhy;
  const Schedule& scheduleOf(int part) const {
    auto it = partSchedules.find(part);
    return it == partSchedules.end() ? schedule : it->second;
  }
  int rank() const { return static_cast<int>(axes.size()); }
  const Field* field(const std::string& n) const {
    for (const Field& f : fields)
      if (f.name == n) return &f;
    return nullptr;
  }
  int fieldIndex(const std::string& n) const {
    for (size_t i = 0; i < fields.size(); ++i)
      if (fields[i].name == n) return static_cast<int>(i);
    return -1;
  }
  int paramIndex(const std::string& n) const {
    for (size_t i = 0; i < params.size(); ++i)
      if (params[i] == n) return static_cast<int>(i);
    return -1;
  }
};

struct Module {
  std::string sourcePath;  // as given on the command line
  std::string sourceName;  // basename without .stn: names the generated files
  Context ctx;
  std::vector<Kernel> kernels;  // stencils in declaration order, then groups
  const Kernel* find(const std::string& name) const {
    for (const Kernel& k : kernels)
      if (k.name == name) return &k;
    return nullptr;
  }
};

// Ids of the nodes the kernel's outputs depend on, ascending (= topological).
std::vector<NodeId> liveNodes(const Context& ctx, const Kernel& k);
// The same for the outputs of one region (-1 = the default equations).
std::vector<NodeId> liveNodes(const Context& ctx, const Kernel& k, int region);
// Regions that have equations, -1 (default) first when it has any; each becomes its own sweep.
// How reports and comments name a part: "default part" (-1) or "region NAME".
std::string partLabel(const Kernel& k, int part);

// The names of the axes field f varies along, in axis order (every axis unless it is lower-rank).
std::vector<std::string> fieldAxisNames(const Kernel& k, const Field& f);
// A lower-rank field's internal (3-D) dimensions as a mask (bit d = internal dimension d); 0 for a field of
// every axis (an array of the kernel's layout). What stnc_rt::fieldCount and the launcher's kFieldDims take.
unsigned fieldDims(const Kernel& k, const Field& f);
// The names of the axes boundary rule b applies along, in axis order.
std::vector<std::string> boundaryAxes(const Kernel& k, const Boundary& b);
std::vector<int> kernelParts(const Kernel& k);
// The most launches one sweep of a kernel with regions makes (each region's box, at most 2 x rank boxes of
// the default part around each region), at most 8: the CUDA launcher's lanes (stnc_rt::Lanes). 0 without regions.
int partLaunchLanes(const Kernel& k);

}  // namespace stnc::dag
