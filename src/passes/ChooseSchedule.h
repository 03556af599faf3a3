// chooseSchedules: picks the CUDA mapping of every kernel from its DAG (rank, footprint, loads),
// unless the user forced one (--schedule=naive|stream, --block=XxY, --chunk=N).
//
// Rule (see docs/DESIGN.md, "Schedules", for the measurements behind it):
//   rank 3 and some field read at >= 2 distinct offsets along dimension 0 (i)  -> stream
//       (2.5-D: a register queue along i turns those loads into one new load per point)
//   otherwise                                                                 -> naive
//   blocks are 32 x 8 (a warp spans 256 contiguous bytes in f64, 128 in f32).
//
//   stencil star7(i,j,k) { ... u[i-1,j,k] ... u[i+1,j,k] ... }  =>  stream, queue u[-1..1], block 32x8
#pragma once
#include <string>

#include "dag/Kernel.h"
#include "support/Diagnostics.h"

namespace stnc::passes {

struct ScheduleOverride {
  std::string strategy = "auto";  // auto | naive | stream
  int blockX = 0, blockY = 0;     // 0 = keep the default
  int chunk = 0;
  int unroll = 0;                 // 0 = default
  int prefetch = -1;              // -1 = default
  int rows = 0;                   // 0 = default
  int vec = 0;                    // 0 = default
  int slabVec = 0;                // 0 = vec: the slab kernel's points per thread (Schedule::slabVec)
  std::string smem = "auto";      // auto | on | off: stream planes through shared memory (cp.async)
  std::string queueHeads = "auto";  // auto | ring | global: where a ring kernel's register queues load their newest plane
  std::string tma = "auto";       // auto | on | off: ring tiles copied by the tensor memory accelerator
  std::string temporal = "auto";  // auto | on | off: two steps per sweep in cuda::step where possible
  std::string fuseRegions = "auto";  // auto | on | off: a region and the default equations in one kernel
  std::string regionEdges = "auto";  // auto | on | off: a region's dim-2 boundary moved to whole tiles (passes/RegionEdges)
  std::string alignRegion = "off";   // on | off: rows aligned on the largest region's first column (passes/AlignRegion)
  bool contractFma = false;       // --fp-contract=on: the contract-fma pass fuses a*b+c (not a schedule
                                  // choice, but the same kind of user override of the middle end)
  std::string tensorCores = "auto";  // auto | off: wide weighted box sums on the FP64 tensor cores where they qualify (passes/TensorSums.h)
  bool factorSums = false;        // --factor-sums=on: the factor-sums pass shares partial sums of
                                  // symmetric weighted sums (passes/FactorSums.h), a reassociation
  int smVersion = 90;             // the CUDA architecture built for (--arch sm_XY -> XY): the policy
                                  // leaves the tensor memory accelerator (sm_90) off below 90
};

// XY of an architecture name sm_XY / sm_XYa / compute_XY; 0 when there is none (the policy then assumes
// nothing the architecture may lack).
int smVersionOf(const std::string& arch);

// The span [lo, hi] of dimension-0 offsets at which `field` is read with zero offsets elsewhere;
// false if it is never read that way at two or more distinct offsets. part: the equations to look
// at (-2 = every output, -1 = the default ones, r >= 0 = region r; see dag::liveNodes).
bool queueSpan(const dag::Context& ctx, const dag::Kernel& k, const std::string& field, int& lo, int& hi,
               int part = -2);

dag::Schedule chooseSchedule(const dag::Context& ctx, const dag::Kernel& k, const ScheduleOverride& o);
// The schedules `stnc --autotune` times: `base` (the policy's choice, or what the user forced)
// first, then naive and stream variants of block shape, rows per thread, prefetch and unrolling.
// Non-schedule settings of base (contractFma) are kept in every candidate.
std::vector<ScheduleOverride> scheduleCandidates(const ScheduleOverride& base);
// o with the values the kernel's source schedule sets where o (the command line, or an autotuner
// candidate) leaves them to the policy; o itself when the source has none.
ScheduleOverride withRequest(const ScheduleOverride& o, const dag::ScheduleRequest& r);
// True when the user forced any schedule choice (then saved schedules are not applied).
bool forcesSchedule(const ScheduleOverride& o);
// Recomputes k.partSchedules from k.schedule: with the policy's shared-memory rings (smem 2), a part
// whose rings exceed the budget gets rings of fewer points per thread where they fit (unless `o` sets
// the vector width), else the L1 policy's schedule (its own block and vector), keeping what `o`
// forces; when no part's rings fit, the kernel's schedule becomes the L1 one. Then chooseSlabTma, then the
// source's `schedule @ REGION ...` requests (partOverride).
void fillPartSchedules(const dag::Context& ctx, dag::Kernel& k, const ScheduleOverride& o = {});
// What a region's own request (`schedule @ REGION ...`, Kernel::partRequests) makes of o: the values it sets win,
// the command line's included (it names one kernel), o's fill the rest.
ScheduleOverride partOverride(const ScheduleOverride& o, const dag::ScheduleRequest& r);
// Under --tma=auto on sm_90+: the default part of a kernel with regions whose rings fit either way gets
// Schedule::tma 2 (both kernels; the launch takes the tensor memory accelerator for slab boxes).
void chooseSlabTma(const dag::Context& ctx, dag::Kernel& k, const ScheduleOverride& o);
// The schedule options in o (the command line, or the source's schedule) that schedule s of kernel k does not
// use ({"rows 2", "vec 4"}; empty when it uses them all), and in `why` the reason; chooseSchedules warns with them.
std::vector<std::string> ignoredOptions(const ScheduleOverride& o, const dag::Kernel& k, const dag::Schedule& s, std::string& why);
bool chooseSchedules(dag::Module& m, DiagEngine& diags, const ScheduleOverride& o);

}  // namespace stnc::passes
