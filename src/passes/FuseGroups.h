// fuseGroups: fills each group kernel from its member stencils so it can be emitted as ONE
// kernel. Fields are merged by name (first appearance order), params likewise, outputs are
// concatenated in member order; swaps and boundary rules are united. Because all members live
// in one hash-consed context, an access u[1,0,0] read by two members is already one node, i.e.
// one load in the fused kernel.
// Rejected: a field written by one member and read or written by another (the fused kernel
// would have a dependency between points).
//
//   stencil sA { in u; out la; la = u[-1] + u[1]; }   stencil sB { in u, v; out bs; bs = u[1] * v; }
//   group both = sA, sB;  =>  both: in u, v; out la, bs;  %u[1] shared by la and bs
#pragma once
#include "dag/Kernel.h"
#include "support/Diagnostics.h"

namespace stnc::passes {

bool fuseGroups(dag::Module& m, DiagEngine& diags);

}  // namespace stnc::passes
