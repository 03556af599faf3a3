#include "dag/Kernel.h"

#include <algorithm>
#include <cstdlib>

namespace stnc::dag {

std::vector<NodeId> liveNodes(const Context& ctx, const Kernel& k) { return liveNodes(ctx, k, -2); }

int SumFactor::r1() const {
  int r = 0;
  for (const SumFactorTerm& t : terms) r = std::max(r, std::abs(t.b));
  return r;
}
int SumFactor::r2() const {
  int r = 0;
  for (const SumFactorTerm& t : terms) r = std::max(r, std::abs(t.a));
  return r;
}

std::vector<std::string> fieldAxisNames(const Kernel& k, const Field& f) {
  std::vector<std::string> v;
  for (int a = 0; a < k.rank(); ++a)
    if (!f.lowerRank() || (f.axes & (1u << a))) v.push_back(k.axes[a]);
  return v;
}

unsigned fieldDims(const Kernel& k, const Field& f) {
  unsigned m = 0;
  for (int a = 0; a < k.rank(); ++a)
    if (f.axes & (1u << a)) m |= 1u << (3 - k.rank() + a);
  return m;
}

std::vector<std::string> boundaryAxes(const Kernel& k, const Boundary& b) {
  std::vector<std::string> axes;
  for (int a = 0; a < k.rank(); ++a)
    if (b.axisMask & (1u << a)) axes.push_back(k.axes[a]);
  return axes;
}

std::string partLabel(const Kernel& k, int part) { return part < 0 ? std::string("default part") : "region " + k.regions[part].name; }

std::vector<int> kernelParts(const Kernel& k) {
  std::vector<int> parts;
  for (int r = -1; r < static_cast<int>(k.regions.size()); ++r)
    for (const Output& o : k.outputs)
      if (o.region == r) {
        parts.push_back(r);
        break;
      }
  return parts;
}

int partLaunchLanes(const Kernel& k) {
  const size_t launches = k.regions.size() * (1 + 2 * static_cast<size_t>(k.rank()));
  return static_cast<int>(std::min<size_t>(8, launches));
}

std::vector<NodeId> liveNodes(const Context& ctx, const Kernel& k, int region) {
  std::vector<char> live(ctx.size(), 0);
  std::vector<NodeId> work;
  for (const Output& o : k.outputs)
    if (region == -2 || o.region == region) work.push_back(o.value);
  while (!work.empty()) {
    NodeId id = work.back();
    work.pop_back();
    if (live[id]) continue;
    live[id] = 1;
    const Node& n = ctx.node(id);
    for (int i = 0; i < n.operandCount(); ++i) work.push_back(n.operands[i]);
  }
  std::vector<NodeId> out;
  for (NodeId i = 0; i < live.size(); ++i)
    if (live[i]) out.push_back(i);
  return out;
}

}  // namespace stnc::dag
