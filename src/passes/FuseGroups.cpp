#include "passes/FuseGroups.h"

#include <map>

namespace stnc::passes {

namespace {

void fuseOne(dag::Module& m, dag::Kernel& g, DiagEngine& diags) {
  std::map<std::string, std::string> writer;  // field -> member that writes it
  std::map<std::string, std::string> reader;  // field -> first member that reads it
  std::vector<const dag::Kernel*> members;
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
    for (const dag::Boundary& b : s->boundaries) {
      bool dup = false;
      for (const dag::Boundary& x : g.boundaries)
        dup |= x.field == b.field && x.axisMask == b.axisMask && x.kind == b.kind && x.value == b.value;
      if (!dup) g.boundaries.push_back(b);
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
