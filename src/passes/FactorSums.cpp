#include "passes/FactorSums.h"

#include <functional>
#include <map>
#include <set>

#include "passes/PruneDeadNodes.h"

namespace stnc::passes {

namespace {

// The linear form sum of coef[o] * field[o] of node `id` scaled by `scale`, or false when the node is
// not one (a param, a non-linear op, a constant term, a second field).
bool linearForm(const dag::Context& ctx, dag::NodeId id, double scale, dag::Symbol& field, bool& haveField,
                std::map<dag::Offset, double>& coef) {
  const dag::Node& n = ctx.node(id);
  auto constOf = [&](dag::NodeId x, double& v) {
    if (!ctx.isConst(x)) return false;
    v = ctx.node(x).value;
    return true;
  };
  switch (n.kind) {
    case dag::NodeKind::Access:
      if (haveField && n.sym != field) return false;
      field = n.sym;
      haveField = true;
      coef[n.offset] += scale;
      return true;
    case dag::NodeKind::Apply: {
      const dag::NodeId a = n.operands[0], b = n.operands[1], c = n.operands[2];
      double v = 0;
      switch (n.op) {
        case dag::Op::Add: return linearForm(ctx, a, scale, field, haveField, coef) && linearForm(ctx, b, scale, field, haveField, coef);
        case dag::Op::Sub: return linearForm(ctx, a, scale, field, haveField, coef) && linearForm(ctx, b, -scale, field, haveField, coef);
        case dag::Op::Neg: return linearForm(ctx, a, -scale, field, haveField, coef);
        case dag::Op::Mul:
          if (constOf(a, v)) return linearForm(ctx, b, scale * v, field, haveField, coef);
          if (constOf(b, v)) return linearForm(ctx, a, scale * v, field, haveField, coef);
          return false;
        case dag::Op::Div: return constOf(b, v) && v != 0 && linearForm(ctx, a, scale / v, field, haveField, coef);
        case dag::Op::Fma:
          if (!linearForm(ctx, c, scale, field, haveField, coef)) return false;
          if (constOf(a, v)) return linearForm(ctx, b, scale * v, field, haveField, coef);
          if (constOf(b, v)) return linearForm(ctx, a, scale * v, field, haveField, coef);
          return false;
        default: return false;
      }
    }
    default: return false;  // Const (a constant term), Param, Select
  }
}

int applyCount(const dag::Context& ctx, const dag::Kernel& k) {
  int ops = 0;
  for (dag::NodeId id : dag::liveNodes(ctx, k))
    if (ctx.node(id).kind == dag::NodeKind::Apply) ++ops;
  return ops;
}

}  // namespace

std::optional<dag::SumFactor> analyzeSumFactor(const dag::Context& ctx, const dag::Kernel& k, bool fma, std::string* why) {
  auto no = [&](const std::string& reason) -> std::optional<dag::SumFactor> {
    if (why) *why = reason;
    return std::nullopt;
  };
  if (k.rank() != 3) return no("not rank 3");
  if (k.outputs.size() != 1) return no("more than one output");
  if (!k.regions.empty()) return no("the kernel has regions");
  dag::Symbol field = 0;
  bool haveField = false;
  std::map<dag::Offset, double> coef;
  if (!linearForm(ctx, k.outputs[0].value, 1.0, field, haveField, coef) || !haveField)
    return no("the output is not a weighted sum of one field with constant coefficients");
  for (auto it = coef.begin(); it != coef.end();) it = it->second == 0.0 ? coef.erase(it) : std::next(it);
  if (coef.empty()) return no("every coefficient is zero");
  auto at = [&](int d0, int d1, int d2) {
    auto it = coef.find(dag::Offset{{d0, d1, d2}});
    return it == coef.end() ? 0.0 : it->second;
  };
  for (const auto& [o, c] : coef)
    if (at(o.d[0], -o.d[1], o.d[2]) != c || at(o.d[0], o.d[1], -o.d[2]) != c)
      return no("the coefficients are not mirror-symmetric along " + k.axes[1] + " and " + k.axes[2]);
  dag::SumFactor f;
  f.field = ctx.name(field);
  f.output = k.outputs[0].field;
  f.fma = fma;
  // Offsets ascend by d0, then d1, then d2: the non-negative (b, a) of each plane come in (b, a) order.
  for (const auto& [o, c] : coef)
    if (o.d[1] >= 0 && o.d[2] >= 0) f.terms.push_back({o.d[0], o.d[1], o.d[2], c});
  // Planes with equal coefficient sets share a class.
  f.planeClass.assign(f.d0hi() - f.d0lo() + 1, -1);
  for (int d0 = f.d0lo(); d0 <= f.d0hi(); ++d0) {
    std::vector<dag::SumFactorTerm> plane;
    for (const dag::SumFactorTerm& t : f.terms)
      if (t.d0 == d0) plane.push_back(t);
    if (plane.empty()) continue;
    auto same = [&](const std::vector<dag::SumFactorTerm>& c) {
      if (c.size() != plane.size()) return false;
      for (size_t i = 0; i < c.size(); ++i)
        if (c[i].b != plane[i].b || c[i].a != plane[i].a || c[i].coef != plane[i].coef) return false;
      return true;
    };
    size_t k = 0;
    while (k < f.classes.size() && !same(f.classes[k])) ++k;
    if (k == f.classes.size()) f.classes.push_back(plane);
    f.planeClass[d0 - f.d0lo()] = static_cast<int>(k);
  }
  std::set<int> xs;
  std::set<std::pair<int, int>> ys;
  for (const dag::SumFactorTerm& t : f.terms) {
    if (t.a > 0) xs.insert(t.a);
    if (t.b > 0) ys.insert({t.a, t.b});
  }
  int sOps = 0, planes = 0;
  for (const auto& c : f.classes) sOps += fma ? static_cast<int>(c.size()) : 2 * static_cast<int>(c.size()) - 1;
  for (int c : f.planeClass) planes += c >= 0;
  f.naiveOps = applyCount(ctx, k);
  f.sharedOps = static_cast<int>(xs.size() + ys.size()) + sOps + planes - 1;
  if (f.naiveOps <= 100)
    return no("the sum is not arithmetic-heavy (" + std::to_string(f.naiveOps) + " operations per point; factoring pays above 100)");
  if (2 * f.sharedOps > f.naiveOps)
    return no("shared partial sums would save too little (" + std::to_string(f.naiveOps) + " -> " + std::to_string(f.sharedOps) +
              " operations per point; factoring needs at most half)");
  if (why) *why = "";
  return f;
}

dag::NodeId buildSumFactor(dag::Context& ctx, const dag::SumFactor& f) {
  const dag::Symbol u = ctx.intern(f.field);
  auto X = [&](int a, int d0, int d1, int d2) {
    if (a == 0) return ctx.access(u, dag::Offset{{d0, d1, d2}});
    return ctx.apply(dag::Op::Add, ctx.access(u, dag::Offset{{d0, d1, d2 - a}}), ctx.access(u, dag::Offset{{d0, d1, d2 + a}}));
  };
  auto Y = [&](int a, int b, int d0) {
    if (b == 0) return X(a, d0, 0, 0);
    return ctx.apply(dag::Op::Add, X(a, d0, -b, 0), X(a, d0, b, 0));
  };
  auto S = [&](int k, int d0) {
    dag::NodeId acc = dag::kNoNode;
    for (const dag::SumFactorTerm& t : f.classes[k]) {
      const dag::NodeId c = ctx.constant(t.coef), y = Y(t.a, t.b, d0);
      if (acc == dag::kNoNode) acc = ctx.apply(dag::Op::Mul, c, y);
      else if (f.fma) acc = ctx.apply(dag::Op::Fma, c, y, acc);
      else acc = ctx.apply(dag::Op::Add, acc, ctx.apply(dag::Op::Mul, c, y));
    }
    return acc;
  };
  dag::NodeId out = dag::kNoNode;
  for (int d0 = f.d0lo(); d0 <= f.d0hi(); ++d0) {
    const int k = f.planeClass[d0 - f.d0lo()];
    if (k < 0) continue;
    const dag::NodeId s = S(k, d0);
    out = out == dag::kNoNode ? s : ctx.apply(dag::Op::Add, out, s);
  }
  return out;
}

bool factorSums(dag::Module& m, DiagEngine& diags, bool fma) {
  bool changed = false;
  for (dag::Kernel& k : m.kernels) {
    std::optional<dag::SumFactor> f = analyzeSumFactor(m.ctx, k, fma);
    if (!f) continue;
    k.outputs[0].value = buildSumFactor(m.ctx, *f);
    k.sumFactor = std::move(f);
    changed = true;
  }
  // The sums as written are dead now (kernels of one file share the context).
  if (changed) pruneDeadNodes(m, diags);
  return changed;
}

}  // namespace stnc::passes
