#include "codegen/KernelBody.h"

#include "support/Error.h"

namespace stnc::codegen {

namespace {

std::string accessName(const dag::Context& ctx, const dag::Kernel& k, const dag::Node& n) {
  std::string s = cIdent(ctx.name(n.sym));
  for (int a = 0; a < k.rank(); ++a) {
    int d = n.offset.d[a];
    s += "_" + (d < 0 ? "m" + std::to_string(-d) : std::to_string(d));
  }
  return s + "_";
}

const char* binaryOperator(dag::Op op) {
  switch (op) {
    case dag::Op::Add: return " + ";
    case dag::Op::Sub: return " - ";
    case dag::Op::Mul: return " * ";
    case dag::Op::Div: return " / ";
    case dag::Op::Lt: return " < ";
    case dag::Op::Le: return " <= ";
    case dag::Op::Gt: return " > ";
    case dag::Op::Ge: return " >= ";
    case dag::Op::Eq: return " == ";
    case dag::Op::Ne: return " != ";
    case dag::Op::And: return " && ";
    case dag::Op::Or: return " || ";
    default: return nullptr;
  }
}

}  // namespace

// min(a, b) = (b < a) ? b : a and max(a, b) = (a < b) ? b : a: on a tie (+0 and -0) and when a
// NaN is involved the first operand, unless the second compares strictly smaller / larger
// (docs/LANGUAGE.md). Printed as this select by both backends instead of fmin/fmax, whose results
// for +-0 differ between libm, gcc's builtins (which treat them as commutative) and CUDA; the
// interpreter and constant folding (dag::Context::fold) evaluate the same select.
std::string minMaxText(dag::Op op, const std::string& a, const std::string& b) {
  return op == dag::Op::Min ? "(" + b + " < " + a + ") ? " + b + " : " + a : "(" + a + " < " + b + ") ? " + b + " : " + a;
}

namespace {

// The name or inline text of a node's value.
std::string ref(const dag::Context& ctx, const dag::Kernel& k, dag::NodeId id, const LiteralFn& literalOf = nullptr) {
  const dag::Node& n = ctx.node(id);
  switch (n.kind) {
    case dag::NodeKind::Const:
      return n.type == dag::Type::Bool ? (n.value != 0 ? "true" : "false") : literalOf ? literalOf(n.value) : literal(n.value, k.type);
    case dag::NodeKind::Param: return cIdent(ctx.name(n.sym));
    case dag::NodeKind::Access:
    case dag::NodeKind::Broadcast: return accessName(ctx, k, n);
    case dag::NodeKind::Apply:
    case dag::NodeKind::Select: return "t" + std::to_string(id) + "_";
  }
  return "?";
}

bool isZeroConst(const dag::Context& ctx, dag::NodeId id) {
  const dag::Node& n = ctx.node(id);
  return n.kind == dag::NodeKind::Const && n.type != dag::Type::Bool && n.value == 0.0;
}

// A real-valued select (or min / max) between a value and a constant zero: nvcc may rewrite it into min.f32 /
// max.f32, which get the sign of a zero result wrong (stnc_rt::pick in stnc_runtime.h).
bool needsExactPick(const dag::Context& ctx, const dag::Node& n) {
  if (n.type == dag::Type::Bool) return false;
  if (n.kind == dag::NodeKind::Select) return isZeroConst(ctx, n.operands[1]) || isZeroConst(ctx, n.operands[2]);
  if (n.op == dag::Op::Min || n.op == dag::Op::Max) return isZeroConst(ctx, n.operands[0]) || isZeroConst(ctx, n.operands[1]);
  return false;
}

// divide non-null: the CUDA backend (divisions through that function, zero selects through stnc_rt::pick).
std::string applyText(const dag::Context& ctx, const dag::Kernel& k, const dag::Node& n, const char* divide, const LiteralFn& literalOf) {
  auto r = [&](int i) { return ref(ctx, k, n.operands[i], literalOf); };
  if (divide && needsExactPick(ctx, n)) {
    if (n.kind == dag::NodeKind::Select) return "stnc_rt::pick(" + r(0) + ", " + r(1) + ", " + r(2) + ")";
    const std::string a = r(0), b = r(1);  // the select of minMaxText, spelled as a pick
    return n.op == dag::Op::Min ? "stnc_rt::pick(" + b + " < " + a + ", " + b + ", " + a + ")"
                                : "stnc_rt::pick(" + a + " < " + b + ", " + b + ", " + a + ")";
  }
  if (n.kind == dag::NodeKind::Select) return r(0) + " ? " + r(1) + " : " + r(2);
  if (n.op == dag::Op::Div && divide) return std::string(divide) + "(" + r(0) + ", " + r(1) + ")";
  if (n.op == dag::Op::Neg) return "-" + r(0);
  if (n.op == dag::Op::Not) return "!" + r(0);
  if (const char* b = binaryOperator(n.op)) return r(0) + b + r(1);
  if (n.op == dag::Op::Min || n.op == dag::Op::Max) return minMaxText(n.op, r(0), r(1));  // operands are names
  std::string f = mathFunction(n.op, k.type);
  STNC_ASSERT(!f.empty(), "op without an emission");
  std::string args;
  for (int i = 0; i < n.operandCount(); ++i) args += (i ? ", " : "") + r(i);
  return f + "(" + args + ")";
}

}  // namespace

std::string offsetIndex(const dag::Kernel& k, const dag::Offset& o) {
  std::string s = "p_";
  for (int a = 0; a < k.rank(); ++a) {
    int d = o.d[a];
    if (d == 0) continue;
    int dim = internalDim(k, a);
    std::string mag = std::to_string(d < 0 ? -d : d);
    std::string term = dim == 2 ? mag : (mag == "1" ? "" : mag + " * ") + (dim == 0 ? "s0_" : "s1_");
    s += (d < 0 ? " - " : " + ") + term;
  }
  return s;
}

std::string scalarExpr(const dag::Context& ctx, const dag::Kernel& k, dag::NodeId id) {
  const dag::Node& n = ctx.node(id);
  if (n.kind == dag::NodeKind::Const || n.kind == dag::NodeKind::Param) return ref(ctx, k, id);
  auto r = [&](int i) { return "(" + scalarExpr(ctx, k, n.operands[i]) + ")"; };
  if (n.kind == dag::NodeKind::Select) return r(0) + " ? " + r(1) + " : " + r(2);
  if (n.op == dag::Op::Neg) return "-" + r(0);
  if (n.op == dag::Op::Not) return "!" + r(0);
  if (const char* b = binaryOperator(n.op)) return r(0) + b + r(1);
  if (n.op == dag::Op::Min || n.op == dag::Op::Max)  // each operand evaluated once, whatever its size
    return "[&] { const auto a_ = " + r(0) + "; const auto b_ = " + r(1) + "; return " + minMaxText(n.op, "a_", "b_") +
           "; }()";
  std::string args;
  for (int i = 0; i < n.operandCount(); ++i) args += (i ? ", " : "") + r(i);
  return mathFunction(n.op, k.type) + "(" + args + ")";
}

std::string accessLoad(const dag::Context& ctx, const dag::Kernel& k, const dag::Node& n) {
  return cIdent(ctx.name(n.sym)) + "[" + offsetIndex(k, n.offset) + "]";
}

std::string broadcastLoad(const dag::Context& ctx, const dag::Kernel& k, const dag::Node& n, bool clamp, unsigned inRangeDims) {
  static const char* const kCoord[3] = {"x_", "y_", "z_"};
  unsigned dims = 0;
  std::string c[3] = {"0", "0", "0"};
  for (int a = 0; a < k.rank(); ++a) {
    if (!(n.axes & (1u << a))) continue;
    const int dim = internalDim(k, a), d = n.offset.d[a];
    dims |= 1u << dim;
    c[dim] = std::string(kCoord[dim]) + (d == 0 ? "" : (d < 0 ? " - " : " + ") + std::to_string(d < 0 ? -d : d));
  }
  const unsigned inRange = clamp ? dims & inRangeDims : 0u;  // stnc_rt::lowerAt's InRange: what need not be clamped
  return cIdent(ctx.name(n.sym)) + "[stnc_rt::lowerAt<" + std::to_string(dims) + "u, " + (clamp ? "true" : "false") +
         (inRange ? ", " + std::to_string(inRange) + "u" : std::string()) + ">(L_, " +
         c[0] + ", " + c[1] + ", " + c[2] + ")]";
}

std::string partName(const dag::Kernel& k, int part) {
  return part < 0 ? "sweepPart" : "sweepPart_" + cIdent(k.regions[part].name);
}

std::string partNamespace(const dag::Kernel& k, int part) { return part < 0 ? "default_part" : "region_" + cIdent(k.regions[part].name); }

std::string partScope(const dag::Kernel& k, int part) { return k.partSchedules.count(part) ? partNamespace(k, part) + "::" : ""; }

void regionBounds(const dag::Kernel& k, const dag::Region& r, int lo[3], int hi[3]) {
  for (int d = 0; d < 3; ++d) lo[d] = hi[d] = 0;
  for (int a = 0; a < k.rank(); ++a) {
    lo[internalDim(k, a)] = r.lo[static_cast<size_t>(a)];
    hi[internalDim(k, a)] = r.hi[static_cast<size_t>(a)];
  }
}

std::string regionBoundsText(const dag::Kernel& k, const dag::Region& r, bool lo) {
  int b[2][3];
  regionBounds(k, r, b[0], b[1]);
  const int* v = lo ? b[0] : b[1];
  return "{" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + "}";
}

void emitPartDispatch(CPrinter& p, const dag::Kernel& k, const std::function<std::string(int, const std::string&)>& call,
                      const std::string& fail) {
  std::vector<int> parts = dag::kernelParts(k);
  for (size_t r = 0; r < k.regions.size(); ++r) {
    const dag::Region& reg = k.regions[r];
    p.line("static constexpr int kLo_" + cIdent(reg.name) + "[3] = " + regionBoundsText(k, reg, true) + ", kHi_" + cIdent(reg.name) +
           "[3] = " + regionBoundsText(k, reg, false) + ";  // region " + reg.name);
  }
  for (int part : parts) {
    if (part >= 0) {
      const std::string n = cIdent(k.regions[part].name);
      p.line("{");
      p.line("  const stnc_rt::Box b_ = stnc_rt::intersect(clip_, stnc_rt::regionBox(L_, kLo_" + n + ", kHi_" + n + "));");
      p.line("  if (!stnc_rt::boxEmpty(b_)) " + call(part, "b_") + ";");
      p.line("}");
      continue;
    }
    if (k.regions.empty()) {
      p.line("if (!stnc_rt::boxEmpty(clip_)) " + call(part, "clip_") + ";");
      continue;
    }
    p.line("// default equations: the clip box minus every region, as disjoint boxes");
    p.line("stnc_rt::Box boxes_[64] = {clip_};");
    p.line("int nb_ = 1;");
    for (const dag::Region& reg : k.regions) {
      const std::string n = cIdent(reg.name);
      p.line("if (nb_ >= 0) nb_ = stnc_rt::subtractBox(boxes_, nb_, 64, stnc_rt::regionBox(L_, kLo_" + n + ", kHi_" + n + "));");
    }
    p.line("if (nb_ < 0) " + fail + "  // more than 64 boxes: too many regions");
    p.line("for (int b_ = 0; b_ < nb_; ++b_)");
    p.line("  if (!stnc_rt::boxEmpty(boxes_[b_])) " + call(part, "boxes_[b_]") + ";");
  }
}

std::string broadcastDecl(const dag::Context& ctx, const dag::Kernel& k, const dag::Node& n, bool clamp) {
  return "const " + std::string(dag::elemCType(k.type)) + " " + accessName(ctx, k, n) + " = " + broadcastLoad(ctx, k, n, clamp) + ";";
}

std::string applyDecl(const dag::Context& ctx, const dag::Kernel& k, dag::NodeId id, const char* divide, const LiteralFn& literalOf) {
  const dag::Node& n = ctx.node(id);
  return "const " + std::string(n.type == dag::Type::Bool ? "bool" : dag::elemCType(k.type)) + " " + ref(ctx, k, id) + " = " +
         applyText(ctx, k, n, divide, literalOf) + ";";
}

void emitPointBody(CPrinter& p, const dag::Context& ctx, const dag::Kernel& k, int part, const AccessFn& access,
                   const StoreFn& store, const char* divide, const LiteralFn& literalOf,
                   const std::function<bool(dag::NodeId)>& declared) {
  const std::string real = dag::elemCType(k.type);
  for (dag::NodeId id : dag::liveNodes(ctx, k, part)) {
    const dag::Node& n = ctx.node(id);
    if (declared && declared(id)) continue;
    switch (n.kind) {
      case dag::NodeKind::Const:
      case dag::NodeKind::Param: break;
      case dag::NodeKind::Access:
        p.line("const " + real + " " + accessName(ctx, k, n) + " = " + (access ? access(n) : accessLoad(ctx, k, n)) + ";");
        break;
      case dag::NodeKind::Broadcast:  // every backend names the point's internal coordinates x_, y_, z_
        p.line(access ? "const " + real + " " + accessName(ctx, k, n) + " = " + access(n) + ";" : broadcastDecl(ctx, k, n, false));
        break;
      case dag::NodeKind::Apply:
      case dag::NodeKind::Select: p.line(applyDecl(ctx, k, id, divide, literalOf)); break;
    }
  }
  for (size_t i = 0; i < k.outputs.size(); ++i) {
    const dag::Output& o = k.outputs[i];
    if (part == -2 || o.region == part)
      p.line((store ? store(i, o) : cIdent(o.field) + "[p_]") + " = " + ref(ctx, k, o.value, literalOf) + ";");
  }
}

long layoutPhase(const dag::Kernel& k) {
  const long A = 128 / static_cast<long>(dag::elemSize(k.type));
  if (k.alignColumn <= 0 || k.footprint.halo[k.rank() - 1] == 0) return 0;  // makeLayout pads no column without a halo
  return (A - k.alignColumn % A) % A;
}

}  // namespace stnc::codegen
