// checkUnused: warns about input fields and params a stencil declares but never reads
// (outputs, inout fields and groups are not checked: a group's members were).
#pragma once
#include "dag/Kernel.h"
#include "support/Diagnostics.h"

namespace stnc::passes {

bool checkUnused(dag::Module& m, DiagEngine& diags);

}  // namespace stnc::passes
