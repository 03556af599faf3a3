// The CUDA stream kernel (dag::Strategy::Stream): each thread walks a chunk of dim 0 for a tile of `rows`
// consecutive dim-1 rows x `vec` consecutive dim-2 points, keeping the values a field needs along dim 0 in a
// register queue (one new value per point and plane). Other accesses come through L1 (vec > 1: one aligned
// vector per group of points) or, with shared-memory rings (passes/SmemPlan), from tiles that cp.async copies
// a few planes ahead (one barrier per plane). The fused region kernel (passes/FuseRegions) is this kernel
// with the region's rings computing the region's and the default equations, chosen per plane.
#pragma once
#include <string>
#include <vector>

#include "codegen/CPrinter.h"
#include "dag/Kernel.h"
#include "passes/SmemPlan.h"

namespace stnc::codegen {

// A register queue: `field` at dim-0 offsets lo..hi of the thread's row `row` and column `col`.
struct Queue {
  std::string field;
  int lo, hi;
  int row = 0, col = 0;
};

// part: the queues of one part's kernel (-2: of the whole kernel). A field another part reads along
// dim 0 gets no queue in a part that does not read it (it would be loaded for nothing).
std::vector<Queue> queuesOf(const dag::Context& ctx, const dag::Kernel& k, int rows = 1, int vec = 1, int part = -2);

// The __global__ kernel `kname`(L_, B_, [R_,] chunk_, `params`) computing part `part` (a region index, or
// -1 for the default equations) with `rows` x `vec` points per thread. sp: the planes come through these
// shared-memory rings (rows must be 1; every thread takes part in the copies and barriers, only those
// inside the box store). fused: `part` is the fused region and sp its rings; the kernel also computes the
// default equations, each block choosing per plane between region R_, the default part and both.
// queuePart: the part whose register queues the kernel keeps (-3: `part`; the edge kernel of
// passes/RegionEdges is fused with the default part's schedule, rings and queues: -1).
void emitStreamKernel(CPrinter& p, const dag::Module& m, const dag::Kernel& k, int part, int rows, int vec, const std::string& kname,
                      const std::string& params, const passes::SmemPlan* sp = nullptr, bool fused = false, int queuePart = -3);

}  // namespace stnc::codegen
