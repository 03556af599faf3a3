// `stnc run --source FIELD@C1,C2,...=WAVE`: point sources for the step loop, in the form the C entry
// points take them (codegen/Backends.h): after step t's sweep, source q adds wave[q * steps + t] to
// field `field` at one interior point. WAVE is a .npy file of float32/float64 values (one per step,
// at least --steps of them; extra values are not used) or a number (the same value every step).
#pragma once
#include <string>
#include <vector>

#include "dag/Kernel.h"

namespace stnc::driver {

struct PointSources {
  int count = 0;
  std::vector<long> at;      // per source: field index (kernel field order), then one coordinate per axis
  std::vector<double> wave;  // per source: `steps` values
};

// Parses the --source options for kernel k at interior extents n; false with a message in `error`
// (unknown field, wrong number of coordinates, a point outside the interior, a short or unreadable
// wavelet, sources without steps).
bool parsePointSources(const dag::Kernel& k, const std::vector<long>& n, long steps, const std::vector<std::string>& specs,
                       PointSources& out, std::string& error);

}  // namespace stnc::driver
