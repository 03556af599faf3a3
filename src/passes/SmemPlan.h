// planSmem: the shared-memory rings of one part's stream kernel when planes arrive through a cp.async
// pipeline (--smem=on; codegen/cuda emits it). Every access that is not a register-queue slot reads a
// tile of its plane from shared memory; a queue's newest value (its head) is read from the tile too, or,
// with Schedule::heads, straight from global memory a few planes ahead (the ring then skips the planes
// between the in-plane reads and the head: the fused CNS hypterm's rings 171 -> 92 KiB at two planes in flight).
//
// Per field read by the part: the tile is the block's (blockX*vec) x (blockY*rows) outputs plus the in-plane
// footprint (dim-2 bounds rounded out to 16-byte chunks, so every copy is one aligned cp.async, and
// further to 32-byte sectors where that costs no copy per thread: ringColumns below), and
// the ring holds the planes x+amin .. x+amax read at iteration x, the `depth` planes in flight, and
// one more, so that the slot being refilled was last read two iterations ago (one barrier per plane).
//
// With Schedule::tma one thread copies each tile with the tensor memory accelerator (a 3-d tensor map over
// the box and its footprint, encoded by the launcher; out-of-bounds elements arrive as zeros like the
// cp.async ring's zero-filled chunks) and the copies of a plane group complete on one of depth + 1 mbarriers.
//
//   acoustic (u radius 4, v and roc2 at the centre), f32, block 16x16, vec 4, depth 2:
//     u: 24 rows x 80 columns x 8 slots, v and roc2: 16 x 64 x 4 slots -> 92 KiB (2 blocks per SM)
#pragma once
#include <string>
#include <vector>

#include "dag/Kernel.h"

namespace stnc::passes {

struct SmemRing {
  std::string field;
  int lo1 = 0;          // first tile row, relative to the block's first row
  int rows = 0;         // blockY x rows per thread + dim-1 footprint
  int a2 = 0;           // first tile column, relative to the block's first column (16-byte multiple)
  int cols = 0;         // a multiple of 16 bytes (of 32 where ringColumns widened the tile to sectors)
  int hi1 = 0, hi2 = 0;  // rows and columns the tile reaches past the block's last row and column (the
                         // box's points read rows lo1 .. hi1 and columns reach2lo .. reach2hi around the box)
  int reach2lo = 0, reach2hi = 0;  // the columns the box's points read around the box (the footprint, not rounded)
  int amin = 0, amax = 0;  // dim-0 offsets read from shared memory (amax: the plane issued `depth` ahead)
  int slots = 0;        // amax - amin + 2 + depth
  bool corners = true;  // whether the field is read at a diagonal offset (dims 1 and 2 both nonzero); without, the
                        // tile's corners (halo rows outside the block's columns) are never read (StarRingCopier)
  long slotElems = 0;   // elements from one slot to the next: rows x cols (with the tensor memory
                        // accelerator rounded up to 128 bytes, the alignment its copies need)
  long elems() const { return static_cast<long>(slots) * slotElems; }
};

struct SmemPlan {
  bool ok = false;
  std::string why;       // why not (too much shared memory, not a stream kernel, ...)
  int depth = 0;         // planes in flight per field (cp.async groups outstanding)
  std::vector<SmemRing> rings;
  long bytes = 0;        // dynamic shared memory per block
  int blocksPerSm = 0;   // resident blocks the shared memory allows (227 KiB per SM)
  bool tma = false;      // tiles copied by the tensor memory accelerator (Schedule::tma, every tile at most
                         // 256 rows and columns); bytes then ends with `depth + 1` 8-byte mbarriers at barOffset
  long barOffset = 0;    // byte offset of the mbarriers
  int reach = 1;         // the largest |dim-0 offset| of a plane read in-plane or as a queue's head (a chunk's
                         // prologue grows with it; the same whether the heads come from the rings or not)
  bool longChunks = false;  // the planes a chunk re-reads are a large share of its reads (reach >= 2 and at
                            // least half the rings read across planes): on few columns, the launch takes one
                            // wave of long chunks (stnc_rt::ringChunk; bench/results/2026-12-01-s14-chunks.md)
  long maxChunk = 64;    // the longest chunk of the launch's many-columns rule: 32 where at most half the fields
                         // the part reads are queued along dim 0 (a chunk's prologue re-reads little, and with the
                         // banded launch order that comes from L2: shorter chunks balance the SMs; the acoustic
                         // inner region 1824 -> 1784 us, hypterm, six queues of eight fields, 737 -> 750 us at 32;
                         // bench/results/2026-12-01-s15-slab-tma.md), else 64; 8 x the reach where shortChunks
  bool shortChunks = false;  // one field read, dim-0 reach 1-2 (7/13-point stars): chunks of 8 x the reach (session 23)
};

// Blocks whose rings exceed this are not built with shared memory (the part keeps L1 loads):
// --smem=on (Schedule::smem 1), and the policy's choice (smem 2), which keeps two blocks per SM.
constexpr long kSmemBudget = 200 * 1024;
constexpr long kSmemAutoBudget = 112 * 1024;

// The columns [a2, a2 + cols) of a tile of `rows` rows covering block columns 0 .. width-1 read at
// dim-2 offsets lo2 .. hi2, copied by `threads` threads in 16-byte chunks of elements of `elem` bytes:
// rounded out to whole 32-byte sectors when that adds no copy per thread, else to 16-byte chunks.
// Measured (bench/results/2026-11-30-s8-sectors.md, ncu): a row starting mid-sector (radius 1 in f64,
// radius 4 in f32) made L2 serve about twice the sectors its copies needed — star7_c 256^3 415 -> 245 MB
// of L2 reads and 84.9 -> 76.8 us, the acoustic inner region 1890 -> 1831 us — while the acoustic PML
// faces, whose u tile grew from 240 to 288 chunks for 256 threads (a second copy per thread), slowed
// 167 -> 177 us each although their L2 reads fell too.
struct ColumnSpan {
  int a2 = 0, cols = 0;
  bool sectors = false;  // widened to 32-byte sectors
};
ColumnSpan ringColumns(int lo2, int hi2, int width, int rows, int threads, int elem);

// Under schedule s; without it, the part's own (k.scheduleOf(part)).
SmemPlan planSmem(const dag::Context& ctx, const dag::Kernel& k, int part, const dag::Schedule& s);
inline SmemPlan planSmem(const dag::Context& ctx, const dag::Kernel& k, int part) { return planSmem(ctx, k, part, k.scheduleOf(part)); }
// The schedule of Schedule::tma 2's second kernel, the slab kernel: s with the tensor memory accelerator's rings
// (tma 1) at its own points per thread (Schedule::slabVec, when set).
inline dag::Schedule slabSchedule(const dag::Schedule& s) {
  dag::Schedule t = s;
  t.tma = 1;
  if (s.slabVec > 0) t.vec = s.slabVec;
  t.slabVec = 0;
  return t;
}
// The part's rings as the tensor memory accelerator would fill them (slabSchedule of its own schedule): the
// second kernel of Schedule::tma 2, and what passes::chooseSlabTma checks fits.
inline SmemPlan planSmemTma(const dag::Context& ctx, const dag::Kernel& k, int part, const dag::Schedule& s) {
  return planSmem(ctx, k, part, slabSchedule(s));
}
inline SmemPlan planSmemTma(const dag::Context& ctx, const dag::Kernel& k, int part) { return planSmemTma(ctx, k, part, k.scheduleOf(part)); }

}  // namespace stnc::passes
