#include "driver/RegionCheck.h"

#include <algorithm>

#include "codegen/KernelBody.h"
#include "codegen/runtime/stnc_runtime.h"
#include "driver/ArgText.h"
#include "driver/Driver.h"

namespace stnc::driver {

namespace {

// The region's box in L's interior, as the generated sweeps place it (stnc_rt::regionBox on internal dimensions).
stnc_rt::Box boxOf(const dag::Kernel& k, const stnc_rt::Layout& L, const dag::Region& r) {
  int lo[3], hi[3];
  codegen::regionBounds(k, r, lo, hi);
  return stnc_rt::regionBox(L, lo, hi);
}

}  // namespace

std::vector<std::string> regionWarnings(const dag::Kernel& k, const std::vector<long>& n) {
  std::vector<std::string> out;
  stnc_rt::Layout L{};
  if (k.regions.empty() || static_cast<int>(n.size()) != k.rank() || !kernelLayout(k, n.data(), L)) return out;
  const std::string at = extentsText(n);
  const std::vector<int> parts = dag::kernelParts(k);
  std::vector<int> regions;  // the regions with equations
  for (int p : parts)
    if (p >= 0) regions.push_back(p);
  for (int r : regions)
    if (stnc_rt::boxEmpty(boxOf(k, L, k.regions[static_cast<size_t>(r)])))
      out.push_back("region '" + k.regions[static_cast<size_t>(r)].name + "' is empty at " + at + ": its equations never run");
  for (size_t x = 0; x < regions.size(); ++x)
    for (size_t y = x + 1; y < regions.size(); ++y) {
      const dag::Region& a = k.regions[static_cast<size_t>(regions[x])];
      const dag::Region& b = k.regions[static_cast<size_t>(regions[y])];
      if (!stnc_rt::boxEmpty(stnc_rt::intersect(boxOf(k, L, a), boxOf(k, L, b))))
        out.push_back("regions '" + a.name + "' and '" + b.name + "' overlap at " + at +
                      ": a point in both gets both updates, '" + a.name + "' first");
    }
  if (std::find(parts.begin(), parts.end(), -1) != parts.end()) {
    // The default part: the interior minus every region (with equations or not), as the sweeps split it.
    stnc_rt::Box boxes[64] = {stnc_rt::interiorBox(L)};
    int nb = 1;
    for (const dag::Region& r : k.regions)
      if (nb >= 0) nb = stnc_rt::subtractBox(boxes, nb, 64, boxOf(k, L, r));
    const bool empty = nb >= 0 && std::all_of(boxes, boxes + nb, [](const stnc_rt::Box& b) { return stnc_rt::boxEmpty(b); });
    if (empty)
      out.push_back("the regions cover the whole interior at " + at + ": the equations outside regions never run");
  }
  return out;
}

}  // namespace stnc::driver
