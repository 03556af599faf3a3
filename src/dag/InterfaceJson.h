// A kernel's interface beyond its fields, as JSON, in one form for every place that prints it: --emit=json
// (dag/Printer), the generated FILE.json (codegen/Metadata) and `stnc info` (driver/Info).
#pragma once
#include <nlohmann/json.hpp>

#include "dag/Kernel.h"

namespace stnc::dag {

// [{name, lo, hi}] per region, one bound per axis (along axis a: lo[a] <= x < n[a] + hi[a], clipped to the
// interior); an empty array when the kernel has none.
nlohmann::ordered_json regionsJson(const Kernel& k);
// [[a, b], ...]: the fields swapped after each time step, in order.
nlohmann::ordered_json swapsJson(const Kernel& k);
// [{field, rule, axes}] per boundary rule; withValueNodes adds "value", the node id of a value(EXPR) rule's
// expression (meaningful where the nodes are listed too: --emit=json).
nlohmann::ordered_json boundariesJson(const Kernel& k, bool withValueNodes);

}  // namespace stnc::dag
