// The occupancy calculator's model of one SM: how many blocks of a kernel are resident at once, given its
// registers per thread (from ptxas), threads per block and shared memory per block, alone or beside the
// resident blocks of other kernels (the parts of a region kernel run concurrently on lanes: a default part's
// block only overlaps the region's kernel where it fits in what the region's blocks leave of an SM).
//
//   acoustic_sep on sm_90: the inner region's kernel (97 registers, 256 threads, 92 KiB) keeps 2 blocks per
//   SM and leaves 12288 registers and 42 KiB; the shell's 16x16 blocks (80 registers, 54 KiB) need 20480 and
//   do not fit beside them, 16x8 blocks (88 registers, 36 KiB) do, one per SM.
//
// Registers are allocated per warp in units of 256 (a thread's count rounded up to a multiple of 8), shared
// memory per block with 1 KiB the runtime reserves. The per-sub-partition split of the register file is left out.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace stnc::passes {

struct SmLimits {
  int registers = 65536;     // per SM
  int regUnit = 256;         // registers allocated to a warp come in units of this many
  int threads = 2048;        // resident threads per SM
  int blocks = 32;           // resident blocks per SM
  long smem = 233472;        // shared memory per SM, bytes (228 KiB on sm_90)
  long smemPerBlock = 232448;  // the most one block may use (227 KiB)
  long reserved = 1024;      // bytes the runtime reserves per resident block
};
// The limits of an sm_XY architecture (90 and up as sm_90; 80, 86 and 89 from the CUDA occupancy tables).
SmLimits smLimits(int smVersion);

struct BlockUse {
  int threads = 0;
  int registers = 0;  // per thread
  long smem = 0;      // bytes per block (dynamic and static)
};

struct Residency {
  int blocks = 0;
  std::string limit;  // what bounds it: "registers", "shared memory", "threads", "blocks", or several of them
                      // (", "-separated, in that order) where they allow the same number
};

// Resident blocks of b on one SM whose other resident blocks are `beside` (a block use and its count each).
Residency residentBlocks(const BlockUse& b, const SmLimits& sm, const std::vector<std::pair<BlockUse, int>>& beside = {});

// A region kernel's parts (part index -> block use; -1 the default part): the fewest blocks of the default part
// that fit on an SM beside one region part's resident blocks; -1 without a default part or a region part.
int defaultBlocksBeside(const std::map<int, BlockUse>& uses, const SmLimits& sm);

}  // namespace stnc::passes
