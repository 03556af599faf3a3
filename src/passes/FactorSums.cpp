#include "passes/FactorSums.h"

#include <algorithm>
#include <map>
#include <set>

#include "passes/PruneDeadNodes.h"
#include "passes/TensorSums.h"

namespace stnc::passes {

namespace {

// A term's coefficient: scale, times param when hasParam (a runtime coefficient).
struct Coef {
  double scale = 0;
  bool hasParam = false;
  dag::Symbol param = 0;
};

// `x` times the coefficient expression `f` (products of constants and at most one param), or false
// when `f` is none (x is then partly scaled: callers pass a copy).
bool times(const dag::Context& ctx, dag::NodeId f, Coef& x) {
  const dag::Node& fn = ctx.node(f);
  if (fn.kind == dag::NodeKind::Const) {
    x.scale *= fn.value;
    return true;
  }
  if (fn.kind == dag::NodeKind::Param && !x.hasParam) {
    x.hasParam = true;
    x.param = fn.sym;
    return true;
  }
  if (fn.kind == dag::NodeKind::Apply && fn.op == dag::Op::Mul) return times(ctx, fn.operands[0], x) && times(ctx, fn.operands[1], x);
  if (fn.kind == dag::NodeKind::Apply && fn.op == dag::Op::Neg) {
    x.scale = -x.scale;
    return times(ctx, fn.operands[0], x);
  }
  return false;
}

// The linear form sum of coef[o] * field[o] of node `id` times `c`, or false when the node is not one
// (a non-linear op, a constant term, a second field, a product of two params).
bool linearForm(const dag::Context& ctx, dag::NodeId id, Coef c, dag::Symbol& field, bool& haveField, std::map<dag::Offset, Coef>& coef) {
  const dag::Node& n = ctx.node(id);
  auto scaled = [](Coef x, double v) {
    x.scale *= v;
    return x;
  };
  // c * f * g with one of f, g a coefficient expression and the other a linear form.
  auto product = [&](dag::NodeId f, dag::NodeId g) {
    Coef x = c;
    if (times(ctx, f, x)) return linearForm(ctx, g, x, field, haveField, coef);
    x = c;
    return times(ctx, g, x) && linearForm(ctx, f, x, field, haveField, coef);
  };
  switch (n.kind) {
    case dag::NodeKind::Access: {
      if (haveField && n.sym != field) return false;
      field = n.sym;
      haveField = true;
      auto it = coef.find(n.offset);
      if (it == coef.end()) {
        coef[n.offset] = c;
        return true;
      }
      if (it->second.hasParam != c.hasParam || (c.hasParam && it->second.param != c.param)) return false;  // p*u + q*u
      it->second.scale += c.scale;
      return true;
    }
    case dag::NodeKind::Apply: {
      const dag::NodeId a = n.operands[0], b = n.operands[1], d = n.operands[2];
      switch (n.op) {
        case dag::Op::Add: return linearForm(ctx, a, c, field, haveField, coef) && linearForm(ctx, b, c, field, haveField, coef);
        case dag::Op::Sub:
          return linearForm(ctx, a, c, field, haveField, coef) && linearForm(ctx, b, scaled(c, -1.0), field, haveField, coef);
        case dag::Op::Neg: return linearForm(ctx, a, scaled(c, -1.0), field, haveField, coef);
        case dag::Op::Mul: return product(a, b);
        case dag::Op::Div:
          return ctx.isConst(b) && ctx.node(b).value != 0 && linearForm(ctx, a, scaled(c, 1.0 / ctx.node(b).value), field, haveField, coef);
        case dag::Op::Fma: return linearForm(ctx, d, c, field, haveField, coef) && product(a, b);
        default: return false;
      }
    }
    default: return false;  // Const (a constant term), Param alone, Select
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
  std::map<dag::Offset, Coef> coef;
  if (!linearForm(ctx, k.outputs[0].value, Coef{1.0, false, 0}, field, haveField, coef) || !haveField)
    return no("the output is not a weighted sum of one field (coefficients: constants, or a constant times a param)");
  for (auto it = coef.begin(); it != coef.end();) it = it->second.scale == 0.0 ? coef.erase(it) : std::next(it);
  if (coef.empty()) return no("every coefficient is zero");
  auto same = [&](const Coef& x, int d0, int d1, int d2) {
    auto it = coef.find(dag::Offset{{d0, d1, d2}});
    return it != coef.end() && it->second.scale == x.scale && it->second.hasParam == x.hasParam && (!x.hasParam || it->second.param == x.param);
  };
  dag::SumFactor f;
  f.field = ctx.name(field);
  f.output = k.outputs[0].field;
  f.fma = fma;
  for (const auto& [o, c] : coef) {
    f.pair1 = f.pair1 && same(c, o.d[0], -o.d[1], o.d[2]);
    f.pair2 = f.pair2 && same(c, o.d[0], o.d[1], -o.d[2]);
  }
  // Offsets ascend by d0, then d1, then d2: the (b, a) of each plane come in (b, a) order; a paired axis
  // keeps its non-negative half.
  for (const auto& [o, c] : coef)
    if ((!f.pair1 || o.d[1] >= 0) && (!f.pair2 || o.d[2] >= 0))
      f.terms.push_back({o.d[0], o.d[1], o.d[2], c.scale, c.hasParam ? ctx.name(c.param) : std::string()});
  // Planes with equal coefficient sets share a class.
  f.planeClass.assign(f.d0hi() - f.d0lo() + 1, -1);
  for (int d0 = f.d0lo(); d0 <= f.d0hi(); ++d0) {
    std::vector<dag::SumFactorTerm> plane;
    for (const dag::SumFactorTerm& t : f.terms)
      if (t.d0 == d0) plane.push_back(t);
    if (plane.empty()) continue;
    auto samePlane = [&](const std::vector<dag::SumFactorTerm>& c) {
      if (c.size() != plane.size()) return false;
      for (size_t i = 0; i < c.size(); ++i)
        if (c[i].b != plane[i].b || c[i].a != plane[i].a || !c[i].sameCoef(plane[i])) return false;
      return true;
    };
    size_t k = 0;
    while (k < f.classes.size() && !samePlane(f.classes[k])) ++k;
    if (k == f.classes.size()) f.classes.push_back(plane);
    f.planeClass[d0 - f.d0lo()] = static_cast<int>(k);
  }
  std::set<int> xs;
  std::set<std::pair<int, int>> ys;
  for (const dag::SumFactorTerm& t : f.terms) {
    if (f.pair2 && t.a > 0) xs.insert(t.a);
    if (f.pair1 && t.b > 0) ys.insert({t.a, t.b});
  }
  int sOps = 0, planes = 0, narrowest = 1 << 30;
  for (const auto& c : f.classes) {
    const int n = static_cast<int>(c.size());
    sOps += (fma ? n : 2 * n - 1) + static_cast<int>(std::count_if(c.begin(), c.end(), [](const dag::SumFactorTerm& t) {
              return !t.param.empty() && t.coef != 1.0;  // the coefficient's own product
            }));
  }
  std::map<int, int> pointsPerPlane;  // the sum's points in each plane, before pairing
  for (const auto& [o, c] : coef) ++pointsPerPlane[o.d[0]];
  for (const auto& [d0, n] : pointsPerPlane) narrowest = std::min(narrowest, n);
  for (int c : f.planeClass) planes += c >= 0;
  f.naiveOps = applyCount(ctx, k);
  f.sharedOps = static_cast<int>(xs.size() + ys.size()) + sOps + planes - 1;
  // Box-like sums (3 planes or more, 9 points or more in every plane) take the sumfactor schedule whatever
  // the savings: it feeds each value loaded from a plane's tile to every output that reads it (box125 with
  // runtime coefficients: 286 -> 214 us; box27: see bench/results/2026-11-30-s6-sumfactor.md).
  const bool wide = planes >= 3 && narrowest >= 9;
  if (!wide && f.naiveOps <= 100)
    return no("the sum is not arithmetic-heavy (" + std::to_string(f.naiveOps) +
              " operations per point; factoring pays above 100, or for a sum over 3 planes or more of 9 points or more each)");
  if (!wide && 2 * f.sharedOps > f.naiveOps)
    return no("shared partial sums would save too little (" + std::to_string(f.naiveOps) + " -> " + std::to_string(f.sharedOps) +
              " operations per point; factoring needs at most half, or a sum over 3 planes or more of 9 points or more each)");
  if (why) *why = "";
  return f;
}

namespace {
// A term's coefficient as a node: the constant, the param, or constant * param.
dag::NodeId coefNode(dag::Context& ctx, const dag::SumFactorTerm& t) {
  if (t.param.empty()) return ctx.constant(t.coef);
  const dag::NodeId p = ctx.param(ctx.intern(t.param));
  return t.coef == 1.0 ? p : ctx.apply(dag::Op::Mul, ctx.constant(t.coef), p);
}
}  // namespace

dag::NodeId buildSumFactor(dag::Context& ctx, const dag::SumFactor& f) {
  const dag::Symbol u = ctx.intern(f.field);
  auto X = [&](int a, int d0, int d1) {
    if (!f.pair2 || a == 0) return ctx.access(u, dag::Offset{{d0, d1, a}});
    return ctx.apply(dag::Op::Add, ctx.access(u, dag::Offset{{d0, d1, -a}}), ctx.access(u, dag::Offset{{d0, d1, a}}));
  };
  auto Y = [&](int a, int b, int d0) {
    if (!f.pair1 || b == 0) return X(a, d0, b);
    return ctx.apply(dag::Op::Add, X(a, d0, -b), X(a, d0, b));
  };
  auto S = [&](int k, int d0) {
    dag::NodeId acc = dag::kNoNode;
    for (const dag::SumFactorTerm& t : f.classes[k]) {
      const dag::NodeId c = coefNode(ctx, t), y = Y(t.a, t.b, d0);
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

// The plan's terms as one fma chain in (d0, b, a) order (the order of f.terms): c0 * u0, then fma(c, u, acc).
dag::NodeId buildChain(dag::Context& ctx, const dag::SumFactor& f) {
  const dag::Symbol u = ctx.intern(f.field);
  dag::NodeId acc = dag::kNoNode;
  for (const dag::SumFactorTerm& t : f.terms) {
    const dag::NodeId c = coefNode(ctx, t), x = ctx.access(u, dag::Offset{{t.d0, t.b, t.a}});
    acc = acc == dag::kNoNode ? ctx.apply(dag::Op::Mul, c, x) : ctx.apply(dag::Op::Fma, c, x, acc);
  }
  return acc;
}

bool factorSums(dag::Module& m, DiagEngine& diags, bool fma, bool tensor) {
  bool changed = false;
  for (dag::Kernel& k : m.kernels) {
    if (k.tensorSum) continue;  // the tensor schedule computes the sum as written (passes/TensorSums)
    std::optional<dag::SumFactor> f = analyzeSumFactor(m.ctx, k, fma);
    if (!f) continue;
    if (tensor && fma && !f->pair1 && !f->pair2 && !sourceChoosesStrategy(k)) {
      const dag::NodeId before = k.outputs[0].value;
      k.outputs[0].value = buildChain(m.ctx, *f);
      k.tensorSum = analyzeTensorSum(m.ctx, k);
      if (k.tensorSum) {
        changed = true;
        continue;
      }
      k.outputs[0].value = before;  // not a tensor sum (f32, too few terms, offsets beyond 2): factored below
    }
    k.outputs[0].value = buildSumFactor(m.ctx, *f);
    k.sumFactor = std::move(f);
    changed = true;
  }
  // The sums as written are dead now (kernels of one file share the context).
  if (changed) pruneDeadNodes(m, diags);
  return changed;
}

}  // namespace stnc::passes
