#include "dag/Printer.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>

#include "dag/InterfaceJson.h"
#include "support/Text.h"

namespace stnc::dag {

std::string exactLiteral(double v) {
  if (std::isnan(v)) return "NAN";
  if (std::isinf(v)) return v > 0 ? "INFINITY" : "(-INFINITY)";
  char buf[64];
  if (std::floor(v) == v && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string offsetText(const Offset& o, int rank) {
  std::string s = "[";
  for (int a = 0; a < rank; ++a) s += (a ? "," : "") + std::to_string(o.d[a]);
  return s + "]";
}

std::string nodeText(const Context& ctx, NodeId id, int rank) {
  const Node& n = ctx.node(id);
  switch (n.kind) {
    case NodeKind::Const: return n.type == Type::Bool ? (n.value != 0 ? "true" : "false") : "const " + exactLiteral(n.value);
    case NodeKind::Param: return "param " + ctx.name(n.sym);
    case NodeKind::Access: return "access " + ctx.name(n.sym) + offsetText(n.offset, rank);
    case NodeKind::Broadcast: {  // "_" along the axes the field lacks: "broadcast c[_,_,1]"
      std::string s = "broadcast " + ctx.name(n.sym) + "[";
      for (int a = 0; a < rank; ++a) s += (a ? "," : "") + ((n.axes & (1u << a)) ? std::to_string(n.offset.d[a]) : std::string("_"));
      return s + "]";
    }
    case NodeKind::Apply: {
      std::string s = opInfo(n.op).spelling;
      for (int i = 0; i < n.operandCount(); ++i) s += " %" + std::to_string(n.operands[i]);
      return s;
    }
    case NodeKind::Select:
      return "select %" + std::to_string(n.operands[0]) + " %" + std::to_string(n.operands[1]) + " %" +
             std::to_string(n.operands[2]);
  }
  return "?";
}

namespace {
std::string axesText(const Kernel& k) {
  std::string s;
  for (size_t i = 0; i < k.axes.size(); ++i) s += (i ? ", " : "") + k.axes[i];
  return s;
}

// "[2:-2, 0:0, 0:-1]": a region's bounds per axis, as the source spells them.
std::string regionBounds(const Region& r, int rank) {
  std::string s = "[";
  for (int a = 0; a < rank; ++a) s += (a ? ", " : "") + std::to_string(r.lo[a]) + ":" + std::to_string(r.hi[a]);
  return s + "]";
}

// The nodes --emit=json lists: the live nodes of the equations and those of boundary value(EXPR) rules, in id order.
std::vector<NodeId> printedNodes(const Context& ctx, const Kernel& k) {
  const std::vector<NodeId> live = liveNodes(ctx, k);
  std::set<NodeId> ids(live.begin(), live.end());
  std::vector<NodeId> todo;
  for (const Boundary& b : k.boundaries)
    if (b.value != kNoNode) todo.push_back(b.value);
  while (!todo.empty()) {
    const NodeId id = todo.back();
    todo.pop_back();
    if (!ids.insert(id).second) continue;
    const Node& n = ctx.node(id);
    for (int i = 0; i < n.operandCount(); ++i) todo.push_back(n.operands[i]);
  }
  return std::vector<NodeId>(ids.begin(), ids.end());  // ascending ids
}

// "a" or "a @ inner": an output's field and, for a region equation, its region.
std::string outputTarget(const Kernel& k, const Output& o) {
  return o.region < 0 ? o.field : o.field + " @ " + k.regions[o.region].name;
}
}  // namespace

void printText(std::ostream& os, const Module& m) {
  for (const Kernel& k : m.kernels) {
    os << (k.isGroup ? "group " : "stencil ") << k.name << "(" << axesText(k) << ") : " << elemTypeName(k.type);
    os << "   // halo [";
    for (int a = 0; a < k.rank(); ++a) os << (a ? "," : "") << k.footprint.halo[a];
    os << "]\n";
    if (k.isGroup) {
      os << "  members";
      for (auto& mem : k.members) os << " " << mem;
      os << "\n";
    }
    for (const Field& f : k.fields) {
      os << "  " << roleName(f.role) << " " << f.name;
      if (f.lowerRank()) {
        std::string ax;
        for (const std::string& a : fieldAxisNames(k, f)) appendItem(ax, a);
        os << "(" << ax << ")";
      }
      os << "\n";
    }
    for (const std::string& p : k.params) os << "  param " << p << "\n";
    for (const Region& r : k.regions) os << "  region " << r.name << " " << regionBounds(r, k.rank()) << "\n";
    for (NodeId id : liveNodes(m.ctx, k)) os << "  %" << id << " = " << nodeText(m.ctx, id, k.rank()) << "\n";
    for (const Output& o : k.outputs) os << "  " << outputTarget(k, o) << " = %" << o.value << "\n";
    for (auto& [a, b] : k.swaps) os << "  swap " << a << ", " << b << "\n";
    for (const Boundary& b : k.boundaries) {
      os << "  boundary " << b.field << " axes=" << b.axisMask << " " << boundaryName(b.kind);
      if (b.value != kNoNode) os << " value=%" << b.value << " (" << nodeText(m.ctx, b.value, k.rank()) << ")";
      os << "\n";
    }
    os << "\n";
  }
}

void printJson(std::ostream& os, const Module& m) {
  nlohmann::ordered_json j;
  j["source"] = m.sourceName;
  j["kernels"] = nlohmann::ordered_json::array();
  for (const Kernel& k : m.kernels) {
    nlohmann::ordered_json kj;
    kj["name"] = k.name;
    kj["kind"] = k.isGroup ? "group" : "stencil";
    kj["axes"] = k.axes;
    kj["type"] = elemTypeName(k.type);
    if (k.isGroup) kj["members"] = k.members;
    for (const Field& f : k.fields) {
      nlohmann::ordered_json fj = {{"name", f.name}, {"role", roleName(f.role)}};
      if (f.lowerRank()) fj["axes"] = fieldAxisNames(k, f);
      kj["fields"].push_back(fj);
    }
    kj["params"] = k.params;
    kj["halo"] = std::vector<int>(k.footprint.halo.begin(), k.footprint.halo.begin() + k.rank());
    nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
    for (NodeId id : printedNodes(m.ctx, k)) {
      const Node& n = m.ctx.node(id);
      nlohmann::ordered_json nj;
      nj["id"] = id;
      nj["type"] = n.type == Type::Bool ? "bool" : "real";
      switch (n.kind) {
        case NodeKind::Const: nj["const"] = n.value; break;
        case NodeKind::Param: nj["param"] = m.ctx.name(n.sym); break;
        case NodeKind::Access:
          nj["access"] = m.ctx.name(n.sym);
          nj["offset"] = std::vector<int>(n.offset.d.begin(), n.offset.d.begin() + k.rank());
          break;
        case NodeKind::Broadcast: {
          nj["broadcast"] = m.ctx.name(n.sym);
          std::vector<std::string> ax;
          for (int a = 0; a < k.rank(); ++a)
            if (n.axes & (1u << a)) ax.push_back(k.axes[a]);
          nj["axes"] = ax;
          nj["offset"] = std::vector<int>(n.offset.d.begin(), n.offset.d.begin() + k.rank());
          break;
        }
        case NodeKind::Apply: nj["op"] = opInfo(n.op).spelling; break;
        case NodeKind::Select: nj["op"] = "select"; break;
      }
      if (n.operandCount()) nj["operands"] = std::vector<NodeId>(n.operands.begin(), n.operands.begin() + n.operandCount());
      nodes.push_back(nj);
    }
    kj["nodes"] = nodes;
    if (!k.regions.empty()) kj["regions"] = regionsJson(k);
    for (const Output& o : k.outputs) {  // "region": the region's name; absent for a default equation
      nlohmann::ordered_json oj = {{"field", o.field}, {"node", o.value}};
      if (o.region >= 0) oj["region"] = k.regions[o.region].name;
      kj["outputs"].push_back(oj);
    }
    if (!k.swaps.empty()) kj["swaps"] = swapsJson(k);
    if (!k.boundaries.empty()) kj["boundaries"] = boundariesJson(k, true);  // "value": a value(EXPR) rule's node
    j["kernels"].push_back(kj);
  }
  os << j.dump(2) << "\n";
}

void printDot(std::ostream& os, const Module& m) {
  os << "digraph stnc {\n  rankdir=BT;\n  node [fontname=\"monospace\"];\n";
  for (const Kernel& k : m.kernels) {
    std::string pre = k.name + "_";
    os << "  subgraph \"cluster_" << k.name << "\" {\n    label=\"" << k.name << "\";\n";
    for (NodeId id : liveNodes(m.ctx, k)) {
      const Node& n = m.ctx.node(id);
      std::string shape = n.isLoad() ? "box" : n.kind == NodeKind::Apply || n.kind == NodeKind::Select ? "ellipse" : "plaintext";
      os << "    \"" << pre << id << "\" [label=\"%" << id << " " << nodeText(m.ctx, id, k.rank()) << "\", shape=" << shape
         << "];\n";
      for (int i = 0; i < n.operandCount(); ++i) os << "    \"" << pre << n.operands[i] << "\" -> \"" << pre << id << "\";\n";
    }
    for (const Output& o : k.outputs) {  // one sink per equation: a field's region and default equations apart
      std::string sink = pre + "out_" + o.field + (o.region < 0 ? "" : "@" + k.regions[o.region].name);
      os << "    \"" << sink << "\" [label=\"" << outputTarget(k, o) << "\", shape=doubleoctagon];\n";
      os << "    \"" << pre << o.value << "\" -> \"" << sink << "\";\n";
    }
    os << "  }\n";
  }
  os << "}\n";
}

}  // namespace stnc::dag
