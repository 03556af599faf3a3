// computeFootprints: for every kernel and every field it reads, the most negative and most
// positive offset along each axis (per side), the number of distinct loads, and the kernel's
// symmetric halo per axis = max over fields of max(-lo, hi) — the contract's halo, which sizes
// every array of the kernel (n + 2*halo per axis). Boundary rules fill exactly that halo.
//
//   la = u[-1,0,0] + u[0,0,2]    =>  u: lo [-1,0,0] hi [0,0,2]   halo [1,0,2]
#pragma once
#include "dag/Kernel.h"
#include "support/Diagnostics.h"

namespace stnc::passes {

dag::Footprint footprintOf(const dag::Context& ctx, const dag::Kernel& k);
bool computeFootprints(dag::Module& m, DiagEngine& diags);

}  // namespace stnc::passes
