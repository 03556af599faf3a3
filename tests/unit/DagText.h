// Test-side views of a lowered module, written independently of the compiler's own printers so
// that tests do not check the compiler against itself:
//   tree(ctx, id, rank)  fully parenthesized expression: "((a[1,0,0] * b[1,0,0]) - 0.5)"
//   sumTerms(...)        the terms of a left-associated chain of additions, in order
//   accesses(...)        the distinct field accesses an expression reads, as "u[-1,0,0]"
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "TestUtil.h"
#include "dag/Kernel.h"
#include "support/Text.h"

namespace stnc::test {

// Shortest %g form that reads back to the same double.
inline std::string num(double v) {
  char buf[64];
  if (std::floor(v) == v && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  return shortestText(v);
}

inline std::string offsetText(const dag::Offset& o, int rank) {
  std::string s = "[";
  for (int a = 0; a < rank; ++a) s += (a ? "," : "") + std::to_string(o.d[a]);
  return s + "]";
}

inline std::string tree(const dag::Context& ctx, dag::NodeId id, int rank) {
  const dag::Node& n = ctx.node(id);
  auto sub = [&](int i) { return tree(ctx, n.operands[i], rank); };
  switch (n.kind) {
    case dag::NodeKind::Const:
      if (n.type == dag::Type::Bool) return n.value != 0 ? "true" : "false";
      return num(n.value);
    case dag::NodeKind::Param: return ctx.name(n.sym);
    case dag::NodeKind::Access: return ctx.name(n.sym) + offsetText(n.offset, rank);
    case dag::NodeKind::Broadcast: {  // a lower-rank field: "_" along the axes it lacks, "c[_,_,1]"
      std::string s = ctx.name(n.sym) + "[";
      for (int a = 0; a < rank; ++a) s += (a ? "," : "") + ((n.axes & (1u << a)) ? std::to_string(n.offset.d[a]) : std::string("_"));
      return s + "]";
    }
    case dag::NodeKind::Select: return "select(" + sub(0) + ", " + sub(1) + ", " + sub(2) + ")";
    case dag::NodeKind::Apply: break;
  }
  switch (n.op) {
    case dag::Op::Neg: return "-" + sub(0);
    case dag::Op::Not: return "!" + sub(0);
    case dag::Op::Add: return "(" + sub(0) + " + " + sub(1) + ")";
    case dag::Op::Sub: return "(" + sub(0) + " - " + sub(1) + ")";
    case dag::Op::Mul: return "(" + sub(0) + " * " + sub(1) + ")";
    case dag::Op::Div: return "(" + sub(0) + " / " + sub(1) + ")";
    case dag::Op::Lt: return "(" + sub(0) + " < " + sub(1) + ")";
    case dag::Op::Le: return "(" + sub(0) + " <= " + sub(1) + ")";
    case dag::Op::Gt: return "(" + sub(0) + " > " + sub(1) + ")";
    case dag::Op::Ge: return "(" + sub(0) + " >= " + sub(1) + ")";
    case dag::Op::Eq: return "(" + sub(0) + " == " + sub(1) + ")";
    case dag::Op::Ne: return "(" + sub(0) + " != " + sub(1) + ")";
    case dag::Op::And: return "(" + sub(0) + " && " + sub(1) + ")";
    case dag::Op::Or: return "(" + sub(0) + " || " + sub(1) + ")";
    default: break;
  }
  std::string s = std::string(dag::opInfo(n.op).spelling) + "(" + sub(0);
  for (int i = 1; i < n.operandCount(); ++i) s += ", " + sub(i);
  return s + ")";
}

inline const dag::Kernel& kernelOf(const Compiled& c, const std::string& name) {
  if (!c.module) throw std::runtime_error("compilation failed:\n" + c.diagText());
  const dag::Kernel* k = c.module->find(name);
  if (!k) throw std::runtime_error("no kernel '" + name + "'");
  return *k;
}

inline dag::NodeId outputNode(const Compiled& c, const std::string& kernel, const std::string& field) {
  const dag::Kernel& k = kernelOf(c, kernel);
  for (const dag::Output& o : k.outputs)
    if (o.field == field) return o.value;
  throw std::runtime_error("kernel '" + kernel + "' has no output '" + field + "'");
}

// The expression assigned to `field` in `kernel`, as a tree string.
inline std::string outputTree(const Compiled& c, const std::string& kernel, const std::string& field) {
  return tree(c.module->ctx, outputNode(c, kernel, field), kernelOf(c, kernel).rank());
}

// Terms of ((t0 + t1) + t2) + ...: [t0, t1, t2, ...] as tree strings.
inline std::vector<std::string> sumTerms(const dag::Context& ctx, dag::NodeId id, int rank) {
  std::vector<std::string> rev;
  while (ctx.node(id).kind == dag::NodeKind::Apply && ctx.node(id).op == dag::Op::Add) {
    rev.push_back(tree(ctx, ctx.node(id).operands[1], rank));
    id = ctx.node(id).operands[0];
  }
  rev.push_back(tree(ctx, id, rank));
  return std::vector<std::string>(rev.rbegin(), rev.rend());
}

inline std::set<std::string> accesses(const dag::Context& ctx, dag::NodeId id, int rank) {
  std::set<std::string> out;
  std::vector<dag::NodeId> work{id};
  while (!work.empty()) {
    const dag::Node& n = ctx.node(work.back());
    work.pop_back();
    if (n.kind == dag::NodeKind::Access) out.insert(ctx.name(n.sym) + offsetText(n.offset, rank));
    for (int i = 0; i < n.operandCount(); ++i) work.push_back(n.operands[i]);
  }
  return out;
}

// Number of Access nodes in the whole context (one per distinct (field, offset)).
inline size_t accessNodeCount(const dag::Context& ctx) {
  size_t n = 0;
  for (dag::NodeId id = 0; id < ctx.size(); ++id) n += ctx.node(id).kind == dag::NodeKind::Access;
  return n;
}

// Diagnostics of a compilation with the given severity, as "LINE:COL: message".
inline std::vector<std::string> diagsOf(const Compiled& c, Severity s) {
  std::vector<std::string> out;
  for (const Diagnostic& d : c.diags.all())
    if (d.severity == s) out.push_back(std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " + d.message);
  return out;
}

}  // namespace stnc::test
