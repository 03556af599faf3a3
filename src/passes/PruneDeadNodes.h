// pruneDeadNodes: rebuilds the context with only the nodes some kernel output or boundary value
// still uses (constant folding and compile-time evaluation leave dead nodes behind), keeping
// their relative order, so ids stay a topological order and printing stays stable.
//
//   %0 = const 2   %1 = const 3   %2 = access u[0]   %3 = mul %1 %2   out = %3
//   =>  %0 = const 3   %1 = access u[0]   %2 = mul %0 %1   out = %2
#pragma once
#include "dag/Kernel.h"
#include "support/Diagnostics.h"

namespace stnc::passes {

bool pruneDeadNodes(dag::Module& m, DiagEngine& diags);

}  // namespace stnc::passes
