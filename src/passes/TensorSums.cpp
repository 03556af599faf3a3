#include "passes/TensorSums.h"

#include <algorithm>
#include <tuple>

#include "passes/FactorSums.h"

namespace stnc::passes {

namespace {

constexpr int kMaxReach = 2;   // offsets within [-2, 2] on every axis: 5 plane offsets x 3 output rows fill 15 of 16 mma rows
constexpr int kMinTerms = 64;  // FP64-bound on the H200: 2 x 64 flops on 16 compulsory bytes is above its 7.9 flop/byte
// Not taken: 3 x 3 x 3 boxes (reach 1, 3 plane offsets x 5 output rows per m16n8k4, 35 % of the multiply-adds useful).
// Session 19 built and GPU-checked it bit for bit (commit 155eb63): box27_rt 256^3 ran 98.4 us against sumfactor's 83.4
// (chunks of 32 / 128 / 256 planes: 102.6 / 123.3 / 168.7 us; bench/results/2026-12-02-s19-box27-tensor.md).

// A term's coefficient node: a constant, a param, or constant * param.
bool coefficient(const dag::Context& ctx, dag::NodeId id, dag::SumFactorTerm& t) {
  const dag::Node& n = ctx.node(id);
  if (n.kind == dag::NodeKind::Const) {
    t.coef = n.value;
    return true;
  }
  if (n.kind == dag::NodeKind::Param) {
    t.coef = 1.0;
    t.param = ctx.name(n.sym);
    return true;
  }
  if (n.kind == dag::NodeKind::Apply && n.op == dag::Op::Mul) {  // constant * param (factor-sums' chains build these)
    const dag::Node& a = ctx.node(n.operands[0]);
    const dag::Node& b = ctx.node(n.operands[1]);
    if (a.kind == dag::NodeKind::Const && b.kind == dag::NodeKind::Param) {
      t.coef = a.value;
      t.param = ctx.name(b.sym);
      return true;
    }
  }
  return false;
}

// coef * access (either operand order) of field `field` (the first access seen sets it).
bool product(const dag::Context& ctx, dag::NodeId x, dag::NodeId y, dag::Symbol& field, bool& haveField, dag::SumFactorTerm& t) {
  const dag::Node& nx = ctx.node(x);
  const dag::Node& ny = ctx.node(y);
  const dag::Node* access = nx.kind == dag::NodeKind::Access ? &nx : ny.kind == dag::NodeKind::Access ? &ny : nullptr;
  if (!access || !coefficient(ctx, access == &nx ? y : x, t)) return false;
  if (haveField && access->sym != field) return false;
  field = access->sym;
  haveField = true;
  t.d0 = access->offset.d[0];
  t.b = access->offset.d[1];
  t.a = access->offset.d[2];
  return std::max({std::abs(t.d0), std::abs(t.b), std::abs(t.a)}) <= kMaxReach;
}

}  // namespace

std::optional<dag::TensorSum> analyzeTensorSum(const dag::Context& ctx, const dag::Kernel& k, std::string* why) {
  auto no = [&](const std::string& reason) -> std::optional<dag::TensorSum> {
    if (why) *why = reason;
    return std::nullopt;
  };
  if (k.type != dag::ElemType::F64) return no("not f64");
  if (k.rank() != 3) return no("not rank 3");
  if (k.outputs.size() != 1) return no("more than one output");
  if (!k.regions.empty()) return no("the kernel has regions");
  dag::TensorSum s;
  dag::Symbol field = 0;
  bool haveField = false;
  // Walk the chain from its last term: fma(c, u[o], rest) ... down to c * u[o].
  for (dag::NodeId id = k.outputs[0].value;;) {
    const dag::Node& n = ctx.node(id);
    dag::SumFactorTerm t;
    if (n.kind == dag::NodeKind::Apply && n.op == dag::Op::Fma && product(ctx, n.operands[0], n.operands[1], field, haveField, t)) {
      s.terms.push_back(t);
      id = n.operands[2];
      continue;
    }
    if (n.kind == dag::NodeKind::Apply && n.op == dag::Op::Mul && product(ctx, n.operands[0], n.operands[1], field, haveField, t)) {
      s.terms.push_back(t);
      break;
    }
    return no("the output is not one fma chain of coefficient x " + std::string(haveField ? ctx.name(field) : "field") +
              " terms within offsets -2..2 (--fp-contract=on makes a sum of products one)");
  }
  std::reverse(s.terms.begin(), s.terms.end());
  if (static_cast<int>(s.terms.size()) < kMinTerms) return no(std::to_string(s.terms.size()) + " terms: not FP64-bound (64 or more)");
  for (size_t i = 1; i < s.terms.size(); ++i) {
    const dag::SumFactorTerm &p = s.terms[i - 1], &q = s.terms[i];
    if (std::make_tuple(p.d0, p.b, p.a) >= std::make_tuple(q.d0, q.b, q.a))
      return no("the terms are not in ascending (plane, row, column) offset order (the tensor cores would round them in another order)");
  }
  s.field = ctx.name(field);
  s.output = k.outputs[0].field;
  return s;
}

bool sourceChoosesStrategy(const dag::Kernel& k) {
  return k.request.present && !k.request.strategy.empty() && k.request.strategy != "auto";
}

bool markTensorSums(dag::Module& m, DiagEngine&) {
  bool marked = false;
  for (dag::Kernel& k : m.kernels) {
    if (sourceChoosesStrategy(k)) continue;
    // Coefficients mirror-symmetric along dim 1 or 2: factor-sums shares their arithmetic (box125_c: 125 -> 39
    // fmas per point, memory-bound), which beats any tensor form.
    std::optional<dag::SumFactor> f = analyzeSumFactor(m.ctx, k, true);
    if (f && (f->pair1 || f->pair2)) continue;
    k.tensorSum = analyzeTensorSum(m.ctx, k);
    marked = marked || k.tensorSum.has_value();
  }
  return marked;
}

}  // namespace stnc::passes
