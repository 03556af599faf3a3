#include "passes/FuseGroups.h"

#include <map>

namespace stnc::passes {

namespace {

void fuseOne(dag::Module& m, dag::Kernel& g, DiagEngine& diags) {
  std::map<std::string, std::string> writer;  // field -> member that writes it
  std::map<std::string, std::string> reader;  // field -> first member that reads it
  std::vector<const dag::Kernel*> members;
  std::vector<std::string> ruleOwners;  // the member of each of g.boundaries
  for (const std::string& name : g.members) {
    const dag::Kernel* s = m.find(name);
    if (s && !s->isGroup) members.push_back(s);
  }
  if (members.empty()) return;
  g.axes = members.front()->axes;
  g.type = members.front()->type;
  for (const dag::Kernel* s : members) {
    for (const dag::Field& f : s->fields) {
      if (dag::isWritten(f.role)) {
        auto w = writer.find(f.name);
        auto r = reader.find(f.name);
        if (w != writer.end()) diags.report(DiagId::err_group_conflict, g.loc) << g.name << f.name << w->second << s->name;
        else if (r != reader.end() && r->second != s->name)
          diags.report(DiagId::err_group_conflict, g.loc) << g.name << f.name << s->name << r->second;
        writer[f.name] = s->name;
      } else {
        auto w = writer.find(f.name);
        if (w != writer.end()) diags.report(DiagId::err_group_conflict, g.loc) << g.name << f.name << w->second << s->name;
        reader.emplace(f.name, s->name);
      }
      dag::Field* existing = nullptr;
      for (dag::Field& e : g.fields)
        if (e.name == f.name) existing = &e;
      if (!existing) g.fields.push_back(f);
      else if (dag::isWritten(f.role)) existing->role = f.role;
    }
    for (size_t i = 0; i < s->params.size(); ++i)
      if (g.paramIndex(s->params[i]) < 0) {
        g.params.push_back(s->params[i]);
        g.paramLocs.push_back(s->paramLocs[i]);
      }
    for (const dag::Output& o : s->outputs) g.outputs.push_back(o);
    for (const auto& sw : s->swaps) {
      bool dup = false;
      for (const auto& x : g.swaps) dup |= x == sw;
      if (!dup) g.swaps.push_back(sw);
    }
    // Boundary rules (docs/LANGUAGE.md, groups): per field and axis, the one rule any member
    // gives; members that repeat the same rule (same kind, same value node) are merged, members
    // that give different rules are an error, since the fused kernel fills the halo once.
    for (const dag::Boundary& b : s->boundaries) {
      dag::Boundary rest = b;
      for (size_t xi = 0; xi < g.boundaries.size(); ++xi) {
        const dag::Boundary& x = g.boundaries[xi];
        if (x.field != b.field || !(x.axisMask & rest.axisMask)) continue;
        const unsigned both = x.axisMask & rest.axisMask;
        rest.axisMask &= ~both;
        if (x.kind == b.kind && x.value == b.value) continue;
        int axis = 0;
        while (!(both & (1u << axis))) ++axis;
        auto ruleText = [&](const dag::Boundary& r) {
          return std::string(dag::boundaryName(r.kind)) + (r.kind == dag::BoundaryKind::Value ? "(...)" : "");
        };
        std::string first = ruleText(x), second = ruleText(b);
        if (first == second) second += " with another value";
        diags.report(DiagId::err_group_boundary, g.loc)
                .note(DiagId::note_boundary_rule, x.loc, {ruleOwners[xi]})
                .note(DiagId::note_boundary_rule, b.loc, {s->name})
            << g.name << b.field << g.axes[axis] << first << ruleOwners[xi] << second << s->name;
      }
      if (rest.axisMask) {
        g.boundaries.push_back(rest);
        ruleOwners.push_back(s->name);
      }
    }
  }
}

}  // namespace

bool fuseGroups(dag::Module& m, DiagEngine& diags) {
  bool changed = false;
  for (dag::Kernel& k : m.kernels)
    if (k.isGroup && k.outputs.empty()) {
      fuseOne(m, k, diags);
      changed = true;
    }
  return changed;
}

}  // namespace stnc::passes
