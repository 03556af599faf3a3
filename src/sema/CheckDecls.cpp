#include "sema/CheckDecls.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "dag/Node.h"
#include "sema/ScheduleArgs.h"
#include "support/Suggest.h"
#include "support/Text.h"

namespace stnc::sema {

bool isReservedName(const std::string& name) {
  dag::Op op;
  if (dag::intrinsicOp(name, op)) return true;
  return name == "select" || name == "weight";
}

namespace {

class DeclChecker {
 public:
  DeclChecker(DiagEngine& d) : diags_(d) {}

  Symbols run(const ast::Program& prog) {
    const ast::Module& m = prog.merged;
    for (auto& c : m.consts) declare(c.id, syms_.consts, &c);
    for (auto& d : m.defs) declare(d.id, syms_.defs, &d);
    for (auto& o : m.offsets) declare(o.id, syms_.offsets, &o);
    for (auto& s : m.stencils) declare(s.id, syms_.stencils, &s);
    for (auto& g : m.groups) declare(g.id, syms_.groups, &g);
    for (auto& o : m.offsets) checkOffsets(o);
    for (auto& s : m.stencils) checkStencil(s);
    for (auto& g : m.groups) checkGroup(g);
    checkSchedules(m);
    // `stnc lib.stn` on a file of consts, defs and offsets (or an empty one): it compiles, but the generated
    // files declare no kernel.
    if (m.stencils.empty() && !prog.files.empty() && !diags_.hasErrors()) diags_.report(DiagId::warn_no_stencil, {prog.files.front(), 1, 1});
    return syms_;
  }

 private:
  template <typename T>
  void declare(const ast::Named& id, std::map<std::string, const T*>& table, const T* decl) {
    if (isReservedName(id.name)) {
      diags_.report(DiagId::err_reserved_name, id.loc) << id.name;
      return;
    }
    auto prev = globals_.find(id.name);
    if (prev != globals_.end()) {
      diags_.report(DiagId::err_redefinition, id.loc).note(DiagId::note_previous, prev->second) << id.name;
      return;
    }
    globals_[id.name] = id.loc;
    table[id.name] = decl;
  }

  void checkOffsets(const ast::OffsetsDecl& o) {
    if (!o.shape.name.empty()) {
      if (o.shape.name != "box" && o.shape.name != "star")
        diags_.report(DiagId::err_offsets_shape, o.shape.loc) << o.shape.name;
      return;
    }
    for (auto& e : o.entries)
      if (e.coords.size() != o.entries.front().coords.size()) {
        diags_.report(DiagId::err_offsets_rank, e.loc) << o.id.name;
        return;
      }
  }

  void checkStencil(const ast::StencilDecl& s) {
    if (!s.type.name.empty() && s.type.name != "f32" && s.type.name != "f64")
      diags_.report(DiagId::err_bad_type, s.type.loc) << s.type.name;
    if (s.axes.empty() || s.axes.size() > 3) diags_.report(DiagId::err_axes_count, s.id.loc) << s.id.name << s.axes.size();
    std::map<std::string, Loc> locals;
    // hint: a note for a redefinition (the field declared 'in' and 'out' wants 'inout').
    auto local = [&](const ast::Named& n, std::optional<DiagId> hint = std::nullopt) {
      if (isReservedName(n.name)) {
        diags_.report(DiagId::err_reserved_name, n.loc) << n.name;
        return;
      }
      auto it = locals.find(n.name);
      if (it != locals.end()) {
        auto d = diags_.report(DiagId::err_redefinition, n.loc);
        d.note(DiagId::note_previous, it->second);
        if (hint) d.note(*hint, n.loc, {n.name});
        d << n.name;
        return;
      }
      locals[n.name] = n.loc;
      if (globals_.count(n.name)) diags_.report(DiagId::warn_shadow, n.loc) << n.name;
    };
    for (auto& a : s.axes) local(a);
    for (size_t i = 0; i < s.fields.size(); ++i) {
      const ast::FieldDecl& f = s.fields[i];
      bool inAndOut = false;  // declared 'in' once and 'out' once (either order)
      for (size_t j = 0; j < i; ++j)
        if (s.fields[j].id.name == f.id.name && s.fields[j].role != f.role && s.fields[j].role != ast::FieldRole::InOut &&
            f.role != ast::FieldRole::InOut)
          inAndOut = true;
      local(f.id, inAndOut ? std::optional<DiagId>(DiagId::note_declare_inout) : std::nullopt);
    }
    for (auto& p : s.params) local(p);
    for (auto& l : s.lets) local(l.id);
    std::set<std::string> regions;
    for (auto& r : s.regions) {
      local(r.id);
      regions.insert(r.id.name);
      if (r.ranges.size() != s.axes.size())
        diags_.report(DiagId::err_region_rank, r.id.loc) << r.id.name << counted(r.ranges.size(), "range", "ranges")
                                                           << counted(s.axes.size(), "axis", "axes");
    }

    std::map<std::string, const ast::FieldDecl*> fields;
    for (auto& f : s.fields) fields.emplace(f.id.name, &f);
    checkFieldAxes(s);
    bool hasOutput = false;
    for (auto& f : s.fields) hasOutput |= f.role != ast::FieldRole::In;
    if (!hasOutput) diags_.report(DiagId::err_no_outputs, s.id.loc) << s.id.name;

    std::map<std::string, Loc> assigned;     // "region/field" -> first assignment
    std::set<std::string> writtenSomewhere;  // fields
    for (auto& eq : s.equations) {
      if (!eq.region.name.empty() && !regions.count(eq.region.name)) {
        diags_.report(DiagId::err_unknown_region, eq.region.loc) << eq.region.name << s.id.name;
        suggest(eq.region, {regions.begin(), regions.end()});
        writtenSomewhere.insert(eq.target.name);  // meant to be written: no "never assigned" on top
        continue;
      }
      auto it = fields.find(eq.target.name);
      if (it == fields.end()) {
        diags_.report(DiagId::err_assign_unknown, eq.target.loc) << eq.target.name;
        suggest(eq.target, keysOf(fields));
        continue;
      }
      if (it->second->role == ast::FieldRole::In) {
        diags_.report(DiagId::err_assign_to_input, eq.target.loc) << eq.target.name << "an 'in' field";
        continue;
      }
      const std::string key = eq.region.name + "/" + eq.target.name;
      auto prev = assigned.find(key);
      if (prev != assigned.end()) {
        diags_.report(DiagId::err_output_written_twice, eq.target.loc).note(DiagId::note_previous, prev->second)
            << eq.target.name;
        continue;
      }
      assigned[key] = eq.target.loc;
      writtenSomewhere.insert(eq.target.name);
    }
    for (auto& f : s.fields)  // the first declaration of each name (a redefinition was reported above)
      if (fields.at(f.id.name) == &f && f.role != ast::FieldRole::In && !writtenSomewhere.count(f.id.name))
        diags_.report(DiagId::err_output_not_written, f.id.loc) << f.id.name << s.id.name;

    std::map<std::string, Loc> swapped;                      // field -> where a swap first names it
    std::map<std::pair<std::string, std::string>, Loc> pairs;  // {a, b} in order -> that swap
    for (auto& sw : s.swaps) {
      if (sw.a.name != sw.b.name) {  // `swap u, v;` twice (or `swap v, u;`): one error for the statement
        auto pair = std::minmax(sw.a.name, sw.b.name);
        auto [prev, fresh] = pairs.emplace(std::make_pair(pair.first, pair.second), sw.a.loc);
        if (!fresh) {
          diags_.report(DiagId::err_swap_repeated, sw.a.loc).note(DiagId::note_first_listed, prev->second) << sw.a.name << sw.b.name;
          continue;
        }
      }
      for (const ast::Named* n : {&sw.a, &sw.b}) {
        if (!fields.count(n->name)) {
          diags_.report(DiagId::err_swap_bad, n->loc) << n->name << "not a field of this stencil";
          suggest(*n, keysOf(fields));
          continue;
        }
        const bool twiceHere = n == &sw.b && sw.a.name == sw.b.name;  // `swap a, a`: reported once, below
        auto [first, fresh] = swapped.emplace(n->name, n->loc);
        if (!fresh && !twiceHere) diags_.report(DiagId::err_swap_twice, n->loc).note(DiagId::note_first_listed, first->second) << n->name;
      }
      for (const ast::Named* n : {&sw.a, &sw.b})
        if (fields.count(n->name) && lowerRank(s, *fields.at(n->name)))
          diags_.report(DiagId::err_swap_bad, n->loc) << n->name << "a field with fewer axes than the stencil";
      if (sw.a.name == sw.b.name) diags_.report(DiagId::err_swap_bad, sw.b.loc) << sw.b.name << "the same field twice";
    }

    std::set<std::pair<std::string, std::string>> ruled;
    for (auto& b : s.boundaries) {
      auto it = fields.find(b.field.name);
      if (it == fields.end() || it->second->role == ast::FieldRole::Out) {
        diags_.report(DiagId::err_boundary_field, b.field.loc) << b.field.name;
        if (it == fields.end()) suggest(b.field, keysOf(fields));
        continue;
      }
      if (lowerRank(s, *it->second)) {
        diags_.report(DiagId::err_lower_boundary, b.field.loc) << b.field.name;
        continue;
      }
      const std::string& r = b.rule.name;
      bool known = r == "periodic" || r == "clamp" || r == "mirror" || r == "value";
      if (!known || (r == "value") != (b.value != nullptr)) {
        diags_.report(DiagId::err_boundary_rule, b.rule.loc) << (known ? r + (b.value ? "(...)" : "") : r);
        // `periodic(j)`: an axis written where only value(EXPR) takes an argument.
        const bool axisArg = b.value && b.value->kind == ast::ExprKind::Name &&
                             std::any_of(s.axes.begin(), s.axes.end(), [&](const ast::Named& a) { return a.name == b.value->name; });
        if (known && r != "value" && axisArg)
          diags_.report(DiagId::note_boundary_axes, b.value->loc) << r << b.field.name << b.value->name;
      }
      std::vector<ast::Named> axes = b.axes;
      if (axes.empty()) axes = s.axes;
      for (auto& a : axes) {
        bool isAxis = false;
        for (auto& ax : s.axes) isAxis |= ax.name == a.name;
        if (!isAxis) {
          diags_.report(DiagId::err_boundary_axis, a.loc) << a.name << s.id.name;
          continue;
        }
        if (!ruled.insert({b.field.name, a.name}).second)
          diags_.report(DiagId::err_boundary_twice, b.axes.empty() ? b.loc : a.loc) << b.field.name << a.name;
      }
    }
  }

  // A field declared over fewer axes than the stencil (`in c(k);`).
  static bool lowerRank(const ast::StencilDecl& s, const ast::FieldDecl& f) { return f.fewerAxesThan(s.axes.size()); }

  // `in c(k), s(i, k);`: distinct axes of the stencil in its order; fewer than all only for inputs.
  void checkFieldAxes(const ast::StencilDecl& s) {
    std::string order;
    for (auto& a : s.axes) appendItem(order, a.name);
    for (auto& f : s.fields) {
      if (!f.hasAxes) continue;
      if (f.axes.empty()) {
        diags_.report(DiagId::err_field_no_axes, f.id.loc) << f.id.name;
        continue;
      }
      int last = -1;
      bool ok = true;
      for (auto& a : f.axes) {
        int at = -1;
        for (size_t i = 0; i < s.axes.size(); ++i)
          if (s.axes[i].name == a.name) at = static_cast<int>(i);
        if (at < 0) {
          diags_.report(DiagId::err_boundary_axis, a.loc) << a.name << s.id.name;
          suggest(a, namesOf(s.axes));
          ok = false;
        } else if (at <= last) {
          diags_.report(DiagId::err_lower_axes_order, a.loc) << f.id.name << order;
          ok = false;
        }
        last = std::max(last, at);
      }
      if (ok && lowerRank(s, f) && f.role != ast::FieldRole::In) diags_.report(DiagId::err_lower_role, f.id.loc) << f.id.name;
    }
  }

  static std::vector<std::string> namesOf(const std::vector<ast::Named>& v) {
    std::vector<std::string> r;
    for (auto& n : v) r.push_back(n.name);
    return r;
  }

  void checkGroup(const ast::GroupDecl& g) {
    if (g.members.empty()) {
      diags_.report(DiagId::err_group_empty, g.id.loc) << g.id.name;
      return;
    }
    const ast::StencilDecl* first = nullptr;
    std::map<std::string, Loc> seen;
    for (auto& m : g.members) {
      if (auto [at, isNew] = seen.emplace(m.name, m.loc); !isNew) {
        diags_.report(DiagId::err_group_member_twice, m.loc).note(DiagId::note_first_listed, at->second) << m.name << g.id.name;
        continue;
      }
      auto it = syms_.stencils.find(m.name);
      if (it == syms_.stencils.end()) {
        diags_.report(DiagId::err_group_member, m.loc) << m.name;
        suggest(m, keysOf(syms_.stencils));
        continue;
      }
      const ast::StencilDecl* s = it->second;
      if (!s->regions.empty()) diags_.report(DiagId::err_group_regions, m.loc) << g.id.name << s->id.name;
      if (!first) {
        first = s;
        continue;
      }
      bool sameAxes = s->axes.size() == first->axes.size();
      for (size_t i = 0; sameAxes && i < s->axes.size(); ++i) sameAxes = s->axes[i].name == first->axes[i].name;
      auto typeOf = [](const ast::StencilDecl* x) { return x->type.name.empty() ? std::string("f64") : x->type.name; };
      if (!sameAxes || typeOf(s) != typeOf(first))
        diags_.report(DiagId::err_group_axes, m.loc) << g.id.name << first->id.name << s->id.name;
    }
  }

  // `schedule STRATEGY(key = value, ...)`: the keyword, the strategy, known keys with valid values, each once;
  // one schedule per stencil or group, whether given in the stencil or at the top level by name.
  // False when the statement is not a schedule at all (its options are then not looked at).
  bool checkSchedule(const ast::ScheduleDecl& d) {
    if (d.keyword.name != "schedule") {
      diags_.report(DiagId::err_schedule_keyword, d.keyword.loc) << d.keyword.name;
      return false;
    }
    if (!isScheduleStrategy(d.strategy.name)) diags_.report(DiagId::err_schedule_strategy, d.strategy.loc) << d.strategy.name;
    std::set<std::string> seen;
    for (const ast::ScheduleArg& a : d.args) {
      if (!seen.insert(a.key.name).second) {
        diags_.report(DiagId::err_schedule_option_twice, a.key.loc) << a.key.name;
        continue;
      }
      dag::ScheduleRequest r;
      std::string expected;
      if (readScheduleArg(a.key.name, a.value, r, expected)) continue;
      if (expected.empty()) {
        std::string keys;
        for (size_t i = 0; i < scheduleKeys().size(); ++i) appendItem(keys, scheduleKeys()[i], i + 1 == scheduleKeys().size() ? " or " : ", ");
        diags_.report(DiagId::err_schedule_key, a.key.loc) << a.key.name << keys;
        suggest(a.key, scheduleKeys());
      } else
        diags_.report(DiagId::err_schedule_value, a.key.loc) << a.key.name << a.value << expected;
    }
    return true;
  }
  void checkSchedules(const ast::Module& m) {
    std::map<std::string, Loc> owner;  // kernel -> its schedule
    auto claim = [&](const std::string& kernel, const ast::ScheduleDecl& d) {
      auto [it, fresh] = owner.emplace(kernel, d.loc);
      if (fresh) return;
      diags_.report(DiagId::err_schedule_twice, d.loc).note(DiagId::note_previous, it->second) << kernel;
    };
    for (const ast::StencilDecl& s : m.stencils)
      for (const ast::ScheduleDecl& d : s.schedules) {
        if (!checkSchedule(d)) continue;
        if (d.region.name.empty()) {
          claim(s.id.name, d);
          continue;
        }
        // schedule @ REGION ...: one per region, of a region the stencil declares.
        std::vector<std::string> regions;
        for (const ast::RegionDecl& r : s.regions) regions.push_back(r.id.name);
        if (std::find(regions.begin(), regions.end(), d.region.name) == regions.end()) {
          diags_.report(DiagId::err_unknown_region, d.region.loc) << d.region.name << s.id.name;
          suggest(d.region, regions);
          continue;
        }
        claim(s.id.name + " @ " + d.region.name, d);
      }
    for (const ast::ScheduleDecl& d : m.schedules) {
      if (!checkSchedule(d)) continue;
      if (!syms_.stencils.count(d.kernel.name) && !syms_.groups.count(d.kernel.name)) {
        diags_.report(DiagId::err_schedule_kernel, d.kernel.loc) << d.kernel.name;
        std::vector<std::string> kernels = keysOf(syms_.stencils), groups = keysOf(syms_.groups);
        kernels.insert(kernels.end(), groups.begin(), groups.end());
        suggest(d.kernel, kernels);
        continue;
      }
      claim(d.kernel.name, d);
    }
  }

  // "did you mean ...?" under the error just reported for `wrong`, when a candidate is near.
  void suggest(const ast::Named& wrong, const std::vector<std::string>& candidates) {
    noteDidYouMean(diags_, wrong.loc, wrong.name, candidates);
  }

  DiagEngine& diags_;
  Symbols syms_;
  std::map<std::string, Loc> globals_;
};

}  // namespace

Symbols checkDeclarations(const ast::Program& prog, DiagEngine& diags) { return DeclChecker(diags).run(prog); }

}  // namespace stnc::sema
