#include "driver/InferExtents.h"

#include "driver/Npy.h"
#include "support/Text.h"

namespace stnc::driver {

bool haloFilledByRules(const dag::Kernel& k, const std::string& field) {
  unsigned mask = 0;
  for (const dag::Boundary& b : k.boundaries)
    if (b.field == field) mask |= b.axisMask;
  for (int a = 0; a < k.rank(); ++a)
    if (k.footprint.halo[a] > 0 && !(mask & (1u << a))) return false;
  return true;
}

bool inferExtents(const dag::Kernel& k, const std::vector<InputShape>& inputs, std::vector<long>& n, std::string& error) {
  const int rank = k.rank();
  n.assign(static_cast<size_t>(rank), 0);
  std::string ambiguous;  // the first array whose halo a rule fills (named when nothing else decides)
  for (const InputShape& in : inputs) {
    const dag::Field& f = k.fields[static_cast<size_t>(in.field)];
    std::vector<int> axes;  // the kernel axes the array's dimensions stand for
    for (int a = 0; a < rank; ++a)
      if (!f.lowerRank() || (f.axes & (1u << a))) axes.push_back(a);
    if (in.shape.size() != axes.size()) continue;  // the run's shape check names it
    // With boundary rules the array may be the interior alone: it decides only the axes without a halo.
    const bool ruled = !f.lowerRank() && haloFilledByRules(k, f.name);
    for (size_t d = 0; d < axes.size(); ++d) {
      const int a = axes[d];
      if (ruled && k.footprint.halo[a] > 0) {
        if (ambiguous.empty()) ambiguous = "'" + in.file + "' (" + f.name + ", shape " + shapeText(in.shape) + ")";
        continue;
      }
      const long interior = in.shape[d] - 2L * k.footprint.halo[a];
      if (interior <= 0) {
        error = "'" + in.file + "' for field '" + f.name + "' has shape " + shapeText(in.shape) + ": along " + k.axes[a] +
                " it holds no interior point inside the halo of " + std::to_string(k.footprint.halo[a]) +
                " (arrays are interior + 2*halo)";
        return false;
      }
      if (n[a] == 0) n[a] = interior;
    }
  }
  std::string undecided;
  for (int a = 0; a < rank; ++a)
    if (n[a] == 0) appendItem(undecided, k.axes[a]);
  if (undecided.empty()) return true;
  error = "give --size: no --in array fixes the extent along " + undecided;
  if (!ambiguous.empty())
    error += " (" + ambiguous + " may be the interior or interior + 2*halo: a boundary rule fills the field's halo)";
  return false;
}

}  // namespace stnc::driver
