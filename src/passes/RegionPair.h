// region-pair: the kernel shape that both region kernels of the CUDA backend take (passes/FuseRegions'
// fused kernel, passes/RegionEdges' edge kernel): a rank-3 kernel with one region and default equations,
// both with equations, whose given part streams dim 0 one row per thread on shared-memory rings that fit.
//
//   stencil s(i, j, k) { ... region inner = [27:-27, 27:-27, 27:-27]; v @ inner = ...; v = ...; }
//   => regionPair(ctx, k, 0, "the fused kernel", "the region's", &why) == 0
#pragma once
#include <string>

#include "dag/Kernel.h"

namespace stnc::passes {

// 0 when k has that shape with `part` (0: the region, -1: the default part) on one-row rings, else -1 and
// why not. `user` names the kernel that needs the shape, `whose` the part ("the region's"), for the reason.
int regionPair(const dag::Context& ctx, const dag::Kernel& k, int part, const std::string& user, const std::string& whose,
               std::string* why);

}  // namespace stnc::passes
