// `stnc run` without --size: the interior extents that the --in arrays' shapes imply.
// A full-rank field's array is interior + 2*halo per axis, or the interior alone where boundary rules fill the
// field's halo (then its shape alone is ambiguous along the axes with a halo); a lower-rank field's is interior +
// 2*halo along its own axes.
#pragma once
#include <string>
#include <vector>

#include "dag/Kernel.h"

namespace stnc::driver {

// True when boundary rules of `field` cover every axis with a non-zero halo (an interior-shaped array is
// accepted for it).
bool haloFilledByRules(const dag::Kernel& k, const std::string& field);

struct InputShape {
  int field = -1;           // index into k.fields
  std::string file;         // for messages
  std::vector<long> shape;  // as the .npy header gives it
};

// Extents per axis from the inputs' shapes: the first array that fixes an axis without ambiguity decides it
// (the run's shape checks then hold every array to it). False with `error` when an axis stays undecided (only
// arrays whose halo a boundary rule fills, or none) or a shape is too small for the halo.
bool inferExtents(const dag::Kernel& k, const std::vector<InputShape>& inputs, std::vector<long>& n, std::string& error);

}  // namespace stnc::driver
