// `stnc run`'s warnings about a kernel's regions at the run's extents. The compiler cannot give them: every region
// contains the grid's middle (lo counts from the start, hi from the end), so whether regions overlap, cover the
// interior or are empty depends on the extents (docs/EXTENSIONS.md: regions should not overlap; a point in two
// gets both updates, in declaration order).
#pragma once
#include <string>
#include <vector>

#include "dag/Kernel.h"

namespace stnc::driver {

// At interior extents n (one per axis): regions with equations that are empty, pairs of them that overlap, and
// default equations that never run because the regions cover the interior. One message per finding, in
// declaration order; none for a kernel without regions.
std::vector<std::string> regionWarnings(const dag::Kernel& k, const std::vector<long>& n);

}  // namespace stnc::driver
