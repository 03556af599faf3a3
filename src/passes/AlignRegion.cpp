#include "passes/AlignRegion.h"

namespace stnc::passes {

int regionAlignColumn(const dag::Kernel& k, std::string* region) {
  if (k.regions.empty()) return 0;
  // The region with the most points at large extents: the least cut from the whole box.
  size_t best = 0;
  long bestCut = -1;
  for (size_t r = 0; r < k.regions.size(); ++r) {
    long cut = 0;
    for (int a = 0; a < k.rank(); ++a) cut += k.regions[r].lo[a] - k.regions[r].hi[a];
    if (bestCut < 0 || cut < bestCut) bestCut = cut, best = r;
  }
  if (region) *region = k.regions[best].name;
  return k.regions[best].lo[k.rank() - 1];  // along the contiguous axis (internal dimension 2)
}

void chooseAlignColumn(dag::Kernel& k, const std::string& mode) {
  k.alignColumn = 0;
  k.alignWhy.clear();
  std::string region;
  const int col = regionAlignColumn(k, &region);
  if (k.regions.empty()) return;
  if (col == 0) {
    k.alignWhy = "region " + region + " starts at interior column 0, which rows align on anyway";
    return;
  }
  if (mode != "on") {
    k.alignWhy = "rows align on interior column 0 (--align-region=on would align region " + region + "'s first column, " +
                 std::to_string(col) + ")";
    return;
  }
  k.alignColumn = col;
  k.alignWhy = "rows align on interior column " + std::to_string(col) + ", region " + region +
               "'s first (--align-region=on): its kernel and the default part's no longer share the sectors of that boundary";
}

}  // namespace stnc::passes
