// verifyModule: structural invariants of the DAG that every pass must keep.
//   operands precede their users; types match the ops; every access names a readable field of
//   the kernel and stays within its rank; outputs are real-valued and name written fields.
// Returns the first violation as text, or an empty string.
#pragma once
#include <string>

#include "dag/Kernel.h"

namespace stnc::dag {

std::string verifyModule(const Module& m);

}  // namespace stnc::dag
