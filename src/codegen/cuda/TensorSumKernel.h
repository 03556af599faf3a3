// The CUDA kernel of the tensor schedule (dag::Strategy::Tensor): a wide weighted sum of one field within
// offsets -2..2 (dag::TensorSum, passes/TensorSums) on the FP64 tensor cores.
//
// Per input plane, one matrix product per group of 3 rows x 8 points: 16 result rows = 5 plane offsets d0 x
// 3 output rows j (row 15 zero), k = the 35 taps (b', a') of the 7 input rows x 5 columns the group reads
// (9 mma.sync m16n8k4 of k = 4), A[(d0, j)][(b', a')] = the coefficient of tap (d0, b' - 2 - j, a' - 2) or 0.
// The accumulator fragment is the plane sweep's register queue: before plane p, row (m, j) holds the partial
// sum of output plane p + 2 - m; after the mmas the rows of m = 4 are complete and stored, and every row moves
// to m + 1 (warp shuffles). Each output thus gets its terms in (d0, b, a) order, one fused multiply-add each
// (the zero taps add +0): the DAG's fma chain bit for bit. A block of 4 warps owns a 12 x 32 tile of the
// (dim 1, dim 2) plane and a chunk of dim 0; planes arrive in shared memory through a cp.async ring.
#pragma once
#include <string>

#include "codegen/CPrinter.h"
#include "dag/Kernel.h"

namespace stnc::codegen {

// Bytes of dynamic shared memory the kernel's ring of tiles takes.
long tensorSumSmemBytes(const dag::Kernel& k);
// The __global__ kernel `kname`(L_, B_, chunk_, `params`); `unused` casts the arguments it does not read.
void emitTensorSumKernel(CPrinter& p, const dag::Kernel& k, const std::string& kname, const std::string& params, const std::string& unused);
// Launches kernel `kname` over box B_ with arguments `args` (the statements of a launcher body; return on error).
void emitTensorSumLaunch(CPrinter& p, const dag::Kernel& k, const std::string& kname, const std::string& args);

}  // namespace stnc::codegen
