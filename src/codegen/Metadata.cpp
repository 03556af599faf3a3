#include <nlohmann/json.hpp>
#include <set>

#include "codegen/Backends.h"
#include "codegen/KernelBody.h"
#include "dag/InterfaceJson.h"

namespace stnc::codegen {

std::string generateMetadata(const dag::Module& m, const GenOptions& o) {
  nlohmann::ordered_json j;
  j["generator"] = "stnc " + o.stncVersion;
  j["source"] = m.sourceName + ".stn";
  j["kernels"] = nlohmann::ordered_json::array();
  for (const dag::Kernel& k : m.kernels) {
    nlohmann::ordered_json kj;
    kj["name"] = k.name;
    kj["kind"] = k.isGroup ? "group" : "stencil";
    if (k.isGroup) kj["members"] = k.members;
    kj["axes"] = k.axes;
    kj["type"] = dag::elemTypeName(k.type);
    kj["halo"] = std::vector<int>(k.footprint.halo.begin(), k.footprint.halo.begin() + k.rank());
    for (const dag::Field& f : k.fields) {
      nlohmann::ordered_json fj = {{"name", f.name}, {"role", dag::roleName(f.role)}};
      if (f.lowerRank()) fj["axes"] = dag::fieldAxisNames(k, f);  // a lower-rank input: dense over these axes
      kj["fields"].push_back(fj);
    }
    kj["params"] = k.params;
    if (!k.swaps.empty()) kj["swaps"] = dag::swapsJson(k);
    if (!k.boundaries.empty()) kj["boundaries"] = dag::boundariesJson(k, false);
    if (!k.regions.empty()) kj["regions"] = dag::regionsJson(k);
    kj["entry_cpu"] = entryName(k, "cpu");
    kj["entry_cuda"] = entryName(k, "cuda");
    j["kernels"].push_back(kj);
  }
  j["layout"] = "row-major, last axis contiguous; per axis n + 2*halo points, innermost lead pad rounded up to 128 bytes";
  return j.dump(2) + "\n";
}

std::string usedNamesVoidCast(const dag::Context& ctx, const dag::Kernel& k, bool fillOnly, int part) {
  std::set<std::string> used;
  if (!fillOnly) {
    for (dag::NodeId id : dag::liveNodes(ctx, k, part)) {
      const dag::Node& n = ctx.node(id);
      if (n.isLoad() || n.kind == dag::NodeKind::Param) used.insert(ctx.name(n.sym));
    }
    for (const dag::Output& o : k.outputs)
      if (part == -2 || o.region == part) used.insert(o.field);
  } else {
    for (const dag::Boundary& b : k.boundaries) {
      used.insert(b.field);
      if (b.value == dag::kNoNode) continue;
      std::vector<dag::NodeId> work{b.value};
      while (!work.empty()) {
        const dag::Node& n = ctx.node(work.back());
        work.pop_back();
        if (n.kind == dag::NodeKind::Param) used.insert(ctx.name(n.sym));
        for (int i = 0; i < n.operandCount(); ++i) work.push_back(n.operands[i]);
      }
    }
  }
  std::string s;
  std::vector<std::string> names = fillOnly ? ruledFields(k) : std::vector<std::string>{};
  if (!fillOnly)
    for (const dag::Field& f : k.fields) names.push_back(f.name);
  for (const std::string& p : k.params) names.push_back(p);
  for (const std::string& n : names)
    if (!used.count(n)) s += "(void)" + cIdent(n) + "; ";
  return s;
}

void emitFillBody(CPrinter& p, const dag::Context& ctx, const dag::Kernel& k, const std::string& fillCall,
                  const std::string& suffix) {
  std::string unused = usedNamesVoidCast(ctx, k, true);
  if (!unused.empty()) p.line(unused);
  for (const std::string& f : ruledFields(k)) {
    // numpy.pad order: dimension 0 first, later dimensions over the already padded range.
    for (int d = 0; d < 3; ++d) {
      for (const dag::Boundary& b : k.boundaries) {
        if (b.field != f) continue;
        int axis = d - (3 - k.rank());
        if (axis < 0 || !(b.axisMask & (1u << axis))) continue;
        std::string value = b.value == dag::kNoNode ? "real(0)" : "static_cast<real>(" + scalarExpr(ctx, k, b.value) + ")";
        std::string kind = std::string("stnc_rt::k") + (b.kind == dag::BoundaryKind::Periodic ? "Periodic"
                                                         : b.kind == dag::BoundaryKind::Value  ? "Value"
                                                         : b.kind == dag::BoundaryKind::Clamp  ? "Clamp"
                                                                                               : "Mirror");
        p.line(fillCall + "(" + cIdent(f) + ", L_, " + std::to_string(d) + ", " + kind + ", " + value + suffix + ");  // " +
               f + " along " + k.axes[axis] + ": " + dag::boundaryName(b.kind));
      }
    }
  }
}

}  // namespace stnc::codegen
