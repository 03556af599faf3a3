#include "syntax/AstPrinter.h"

#include <ostream>

namespace stnc {

std::string exprToString(const ast::Expr& e) {
  auto args = [&](size_t from) {
    std::string s;
    for (size_t i = from; i < e.args.size(); ++i) s += " " + exprToString(*e.args[i]);
    return s;
  };
  switch (e.kind) {
    case ast::ExprKind::Number: return e.text;
    case ast::ExprKind::Name: return e.name;
    case ast::ExprKind::Index: return "(index " + e.name + args(0) + ")";
    case ast::ExprKind::Call: return "(call " + e.name + args(0) + ")";
    case ast::ExprKind::Apply: return "(apply " + e.name + args(0) + ")";
    case ast::ExprKind::Unary:
    case ast::ExprKind::Binary: return "(" + e.op + args(0) + ")";
    case ast::ExprKind::SumRange:
      return "(sum " + e.name + " " + exprToString(*e.args[0]) + ".." + exprToString(*e.args[1]) + " " +
             exprToString(*e.args[2]) + ")";
    case ast::ExprKind::SumOffsets: return "(sum " + e.name + " in " + e.name2 + args(0) + ")";
  }
  return "?";
}

void printAst(std::ostream& os, const ast::Module& m) {
  for (auto& i : m.imports) os << "(import \"" << i.path << "\")\n";
  for (auto& c : m.consts) {
    os << "(const " << c.id.name;
    if (c.isArray) {
      os << " [";
      for (size_t i = 0; i < c.elements.size(); ++i) os << (i ? " " : "") << exprToString(*c.elements[i]);
      os << "]";
    } else {
      os << " " << exprToString(*c.value);
    }
    os << ")\n";
  }
  for (auto& d : m.defs) {
    os << "(def " << d.id.name << " (";
    for (size_t i = 0; i < d.params.size(); ++i) os << (i ? " " : "") << d.params[i].name;
    os << ") " << exprToString(*d.body) << ")\n";
  }
  for (auto& o : m.offsets) {
    os << "(offsets " << o.id.name;
    if (!o.shape.name.empty()) os << " (" << o.shape.name << " " << exprToString(*o.radius) << ")";
    for (auto& e : o.entries) {
      os << " ([";
      for (size_t i = 0; i < e.coords.size(); ++i) os << (i ? " " : "") << exprToString(*e.coords[i]);
      os << "]" << (e.weight ? " " + exprToString(*e.weight) : "") << ")";
    }
    os << ")\n";
  }
  for (auto& s : m.stencils) {
    os << "(stencil " << s.id.name << " (";
    for (size_t i = 0; i < s.axes.size(); ++i) os << (i ? " " : "") << s.axes[i].name;
    os << ") " << (s.type.name.empty() ? "f64" : s.type.name) << "\n";
    for (auto& f : s.fields) {
      os << "  (" << ast::roleName(f.role) << " " << f.id.name;
      if (f.hasAxes) {  // `in c(k);`: the axes as declared
        os << " (";
        for (size_t i = 0; i < f.axes.size(); ++i) os << (i ? " " : "") << f.axes[i].name;
        os << ")";
      }
      os << ")\n";
    }
    for (auto& p : s.params) os << "  (param " << p.name << ")\n";
    for (auto& l : s.lets) os << "  (let " << l.id.name << " " << exprToString(*l.value) << ")\n";
    for (auto& r : s.regions) {
      os << "  (region " << r.id.name;
      for (auto& [lo, hi] : r.ranges) os << " " << (lo ? exprToString(*lo) : "0") << ":" << (hi ? exprToString(*hi) : "0");
      os << ")\n";
    }
    for (auto& e : s.equations)
      os << "  (= " << e.target.name << (e.region.name.empty() ? "" : " @" + e.region.name) << " " << exprToString(*e.value) << ")\n";
    for (auto& w : s.swaps) os << "  (swap " << w.a.name << " " << w.b.name << ")\n";
    for (auto& b : s.boundaries) {
      os << "  (boundary " << b.field.name;
      for (auto& a : b.axes) os << " " << a.name;
      os << " " << b.rule.name << (b.value ? " " + exprToString(*b.value) : "") << ")\n";
    }
    for (auto& d : s.schedules) os << "  (" << d.keyword.name << " " << d.text << ")\n";
    os << ")\n";
  }
  for (auto& g : m.groups) {
    os << "(group " << g.id.name;
    for (auto& mem : g.members) os << " " << mem.name;
    os << ")\n";
  }
  for (auto& d : m.schedules) os << "(" << d.keyword.name << " " << d.kernel.name << " " << d.text << ")\n";
}

}  // namespace stnc
