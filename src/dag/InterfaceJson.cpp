#include "dag/InterfaceJson.h"

namespace stnc::dag {

nlohmann::ordered_json regionsJson(const Kernel& k) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const Region& r : k.regions)
    a.push_back({{"name", r.name},
                 {"lo", std::vector<int>(r.lo.begin(), r.lo.begin() + k.rank())},
                 {"hi", std::vector<int>(r.hi.begin(), r.hi.begin() + k.rank())}});
  return a;
}

nlohmann::ordered_json swapsJson(const Kernel& k) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const auto& [x, y] : k.swaps) a.push_back({x, y});
  return a;
}

nlohmann::ordered_json boundariesJson(const Kernel& k, bool withValueNodes) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const Boundary& b : k.boundaries) {
    nlohmann::ordered_json bj = {{"field", b.field}, {"rule", boundaryName(b.kind)}, {"axes", boundaryAxes(k, b)}};
    if (withValueNodes && b.value != kNoNode) bj["value"] = b.value;
    a.push_back(bj);
  }
  return a;
}

}  // namespace stnc::dag
