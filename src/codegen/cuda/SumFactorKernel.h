// The CUDA kernel of the sumfactor schedule (dag::Strategy::SumFactor): a factored weighted sum
// (dag::SumFactor, passes/FactorSums) with its X and Y partial sums computed once per point and shared.
//
// A block of kBlockX x kBlockY threads owns a tile of kBlockY*kRows rows x kBlockX*kVec columns of the
// (dim 1, dim 2) plane and walks the planes that feed a chunk of dim-0 outputs. Each plane arrives in
// shared memory as a tile with an r1-row / r2-column ring through cp.async (prefetch planes ahead, one
// barrier per plane). Each thread then, for its kRows x kVec points of that plane, computes X (from
// its rows of the tile, read as 16-byte vectors), Y from X, and adds c * Y to the accumulators of every
// output plane Y feeds: a register queue of (d0hi - d0lo + 1) accumulators per point; the oldest is
// complete and stored. The arithmetic is the kernel's DAG point by point (passes/FactorSums builds it),
// so results are bit-identical to the CPU backend.
#pragma once
#include <string>

#include "codegen/CPrinter.h"
#include "dag/Kernel.h"

namespace stnc::codegen {

// The coefficient of a term as the DAG computes it: a literal, a param, or (literal * param) (also the tensor
// schedule's, codegen/cuda/TensorSumKernel).
std::string coefText(const dag::Kernel& k, const dag::SumFactorTerm& t);
// The one-field cp.async ring both one-field plane-sweep kernels (sumfactor, tensor) read their planes through:
// emitRingOpen declares the copier uC_ of field `u` for the tile whose first row and column are `row0` and
// `col0` and puts the first kSlots - 2 planes (xs_ ..) in flight; emitRingPlane, at the top of the plane loop
// over t_ < n_, puts plane t_ + kSlots - 2 in flight and waits until plane t_ has landed for every thread.
void emitRingOpen(CPrinter& p, const std::string& u, const std::string& row0, const std::string& col0);
void emitRingPlane(CPrinter& p, const std::string& u);
// Bytes of dynamic shared memory the kernel's ring of tiles takes.
long sumFactorSmemBytes(const dag::Kernel& k);
// The __global__ kernel `kname`(L_, B_, chunk_, `params`); `unused` casts the arguments it does not read.
void emitSumFactorKernel(CPrinter& p, const dag::Kernel& k, const std::string& kname, const std::string& params, const std::string& unused);
// Launches kernel `kname` over box B_ with arguments `args` (the statements of a launcher body;
// return on error).
void emitSumFactorLaunch(CPrinter& p, const dag::Kernel& k, const std::string& kname, const std::string& args);

}  // namespace stnc::codegen
