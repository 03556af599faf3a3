// The reference interpreter of the DAG (see Interpreter.h). Deliberately simple: a per-point
// evaluation of the kernel's live nodes in id order, each node one operation in the element type.
// Only the array layout is shared with the generated code (the data contract, stnc_runtime.h);
// boundary fills, the step loop and the evaluation are written here from the contract.
#include "interp/Interpreter.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "codegen/runtime/stnc_runtime.h"

// One rounding per operation, as in the generated code (built with -ffp-contract=off).
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace stnc::interp {

namespace {

constexpr int kOk = 0, kNullPointer = 1, kBadExtent = 2, kBadArgument = 5;

// One live node, resolved for evaluation: operands are slots (positions in the program).
template <typename T>
struct Instr {
  dag::NodeKind kind;
  dag::Op op;
  int a = -1, b = -1, c = -1;
  T constant = 0;  // Const, Param (the param's value)
  int field = -1;  // Access, Broadcast
  long delta = 0;  // Access: element offset from the point
  unsigned dims = 0;          // Broadcast: the internal dimensions its field has (bit d)
  long off[3] = {0, 0, 0};    // Broadcast: its offset per internal dimension
};

// Element count of field f's array: the kernel's layout, or dense over a lower-rank field's dimensions.
size_t fieldElems(const dag::Kernel& k, const dag::Field& f, const stnc_rt::Layout& L) {
  return stnc_rt::fieldCount(L, dag::fieldDims(k, f));
}

long reflect(long x, long n) {
  // Symmetric extension (the edge value repeats): reflect across the nearer edge until inside.
  while (x < 0 || x >= n) x = x < 0 ? -1 - x : 2 * n - 1 - x;
  return x;
}

template <typename T>
class Machine {
 public:
  Machine(const dag::Context& ctx, const dag::Kernel& k, const stnc_rt::Layout& L, const double* params)
      : ctx_(ctx), k_(k), L_(L) {
    for (size_t i = 0; i < k.params.size(); ++i) params_.push_back(static_cast<T>(params[i]));
    // One sweep per part: the default equations (region -1) first when there are any, then each
    // region with equations, in declaration order.
    for (int r = -1; r < static_cast<int>(k.regions.size()); ++r) {
      Part part;
      part.region = r;
      compile(part);
      if (!part.outputs.empty()) parts_.push_back(std::move(part));
    }
  }

  // Internal (3-D) dimension of kernel axis a: a rank-r kernel uses the last r dimensions.
  int dim(int axis) const { return 3 - k_.rank() + axis; }

  // One sweep: each part over its points (all loads of a point before its stores).
  void sweep(const std::vector<T*>& f) const {
    for (const Part& part : parts_) sweepPart(part, f);
  }

 private:
  struct Part {
    int region = -1;
    std::vector<Instr<T>> prog;
    std::vector<std::pair<int, int>> outputs;  // (field index, slot)
  };

  // Liveness from this part's outputs, then one instruction per live node in id order.
  void compile(Part& part) const {
    std::vector<char> live(ctx_.size(), 0);
    std::vector<dag::NodeId> work;
    for (const dag::Output& o : k_.outputs)
      if (o.region == part.region) work.push_back(o.value);
    while (!work.empty()) {
      dag::NodeId id = work.back();
      work.pop_back();
      if (live[id]) continue;
      live[id] = 1;
      const dag::Node& n = ctx_.node(id);
      for (int i = 0; i < n.operandCount(); ++i) work.push_back(n.operands[i]);
    }
    std::vector<int> slot(ctx_.size(), -1);
    auto& prog_ = part.prog;
    const dag::Context& ctx = ctx_;
    const dag::Kernel& k = k_;
    const stnc_rt::Layout& L = L_;
    for (dag::NodeId id = 0; id < ctx_.size(); ++id) {
      if (!live[id]) continue;
      const dag::Node& n = ctx.node(id);
      Instr<T> in;
      in.kind = n.kind;
      in.op = n.op;
      int* ops[3] = {&in.a, &in.b, &in.c};
      for (int i = 0; i < n.operandCount(); ++i) *ops[i] = slot[n.operands[i]];
      switch (n.kind) {
        case dag::NodeKind::Const: in.constant = static_cast<T>(n.value); break;
        case dag::NodeKind::Param: in.constant = params_[paramIndex(n.sym)]; break;
        case dag::NodeKind::Access:
          in.field = k.fieldIndex(ctx.name(n.sym));
          for (int a = 0; a < k.rank(); ++a) in.delta += n.offset.d[a] * L.stride[dim(a)];
          break;
        case dag::NodeKind::Broadcast:
          in.field = k.fieldIndex(ctx.name(n.sym));
          for (int a = 0; a < k.rank(); ++a)
            if (n.axes & (1u << a)) {
              in.dims |= 1u << dim(a);
              in.off[dim(a)] = n.offset.d[a];
            }
          break;
        default: break;
      }
      slot[id] = static_cast<int>(prog_.size());
      prog_.push_back(in);
    }
    for (const dag::Output& o : k.outputs)
      if (o.region == part.region) part.outputs.push_back({k.fieldIndex(o.field), slot[o.value]});
  }

  // Region r holds the interior points with lo[a] <= x_a < n_a + hi[a] along every axis a.
  bool inRegion(int r, const long c[3]) const {
    const dag::Region& reg = k_.regions[static_cast<size_t>(r)];
    for (int a = 0; a < k_.rank(); ++a) {
      long x = c[dim(a)];
      if (x < reg.lo[a] || x >= L_.n[dim(a)] + reg.hi[a]) return false;
    }
    return true;
  }

  // Default equations: the points outside every region.
  bool inPart(const Part& part, const long c[3]) const {
    if (part.region >= 0) return inRegion(part.region, c);
    for (size_t r = 0; r < k_.regions.size(); ++r)
      if (inRegion(static_cast<int>(r), c)) return false;
    return true;
  }

  void sweepPart(const Part& part, const std::vector<T*>& f) const {
    std::vector<T> v(part.prog.size());
    long c[3];
    for (c[0] = 0; c[0] < L_.n[0]; ++c[0])
      for (c[1] = 0; c[1] < L_.n[1]; ++c[1])
        for (c[2] = 0; c[2] < L_.n[2]; ++c[2]) {
          if (!inPart(part, c)) continue;
          const long p = L_.origin + c[0] * L_.stride[0] + c[1] * L_.stride[1] + c[2];
          for (size_t i = 0; i < part.prog.size(); ++i) v[i] = eval(part.prog[i], v, f, p, c);
          for (auto& [field, s] : part.outputs) f[field][p] = v[s];
        }
  }

 public:

  // Fills the halos of the fields with boundary rules: numpy.pad(interior, halo, mode) applied
  // dimension by dimension (dimension 0 first; earlier dimensions over their padded range,
  // later ones over their interior), for the axes each rule names.
  void fill(const std::vector<T*>& f) const {
    for (size_t fi = 0; fi < k_.fields.size(); ++fi)
      for (int a = 0; a < k_.rank(); ++a)
        for (const dag::Boundary& b : k_.boundaries)
          if (b.field == k_.fields[fi].name && (b.axisMask & (1u << a))) fillDim(f[fi], dim(a), b);
  }

 private:
  int paramIndex(dag::Symbol s) const { return k_.paramIndex(ctx_.name(s)); }

  static bool truth(T x) { return x != T(0); }

  T eval(const Instr<T>& in, const std::vector<T>& v, const std::vector<T*>& f, long p, const long c[3]) const {
    switch (in.kind) {
      case dag::NodeKind::Const:
      case dag::NodeKind::Param: return in.constant;
      case dag::NodeKind::Access: return f[in.field][p + in.delta];
      case dag::NodeKind::Broadcast: {  // dense over its dimensions, n + 2 * halo each (stnc_rt::lowerAt)
        long i = 0;
        for (int d = 0; d < 3; ++d)
          if (in.dims & (1u << d)) i = i * (L_.n[d] + 2 * L_.halo[d]) + c[d] + in.off[d] + L_.halo[d];
        return f[in.field][i];
      }
      case dag::NodeKind::Select: return truth(v[in.a]) ? v[in.b] : v[in.c];
      case dag::NodeKind::Apply: return apply(in.op, v[in.a], in.b >= 0 ? v[in.b] : T(0), in.c >= 0 ? v[in.c] : T(0));
    }
    return T(0);
  }

  static T apply(dag::Op op, T a, T b, T c) {
    switch (op) {
      case dag::Op::Neg: return -a;
      case dag::Op::Not: return truth(a) ? T(0) : T(1);
      case dag::Op::Add: return a + b;
      case dag::Op::Sub: return a - b;
      case dag::Op::Mul: return a * b;
      case dag::Op::Div: return a / b;
      case dag::Op::Lt: return a < b ? T(1) : T(0);
      case dag::Op::Le: return a <= b ? T(1) : T(0);
      case dag::Op::Gt: return a > b ? T(1) : T(0);
      case dag::Op::Ge: return a >= b ? T(1) : T(0);
      case dag::Op::Eq: return a == b ? T(1) : T(0);
      case dag::Op::Ne: return a != b ? T(1) : T(0);
      case dag::Op::And: return truth(a) && truth(b) ? T(1) : T(0);
      case dag::Op::Or: return truth(a) || truth(b) ? T(1) : T(0);
      // The <cmath> overloads for float call the float functions (fminf, powf, expf, ...).
      // min/max: the selects every backend emits (docs/LANGUAGE.md), not fmin/fmax.
      case dag::Op::Min: return b < a ? b : a;
      case dag::Op::Max: return a < b ? b : a;
      case dag::Op::Pow: return std::pow(a, b);
      case dag::Op::Abs: return std::fabs(a);
      case dag::Op::Sqrt: return std::sqrt(a);
      case dag::Op::Exp: return std::exp(a);
      case dag::Op::Log: return std::log(a);
      case dag::Op::Sin: return std::sin(a);
      case dag::Op::Cos: return std::cos(a);
      case dag::Op::Floor: return std::floor(a);
      case dag::Op::Ceil: return std::ceil(a);
      case dag::Op::Fma: return std::fma(a, b, c);  // float overload: fmaf, one rounding
    }
    return T(0);
  }

  // A boundary value: an expression of consts and params, evaluated in the element type.
  T scalar(dag::NodeId id) const {
    const dag::Node& n = ctx_.node(id);
    switch (n.kind) {
      case dag::NodeKind::Const: return static_cast<T>(n.value);
      case dag::NodeKind::Param: return params_[paramIndex(n.sym)];
      case dag::NodeKind::Access:
      case dag::NodeKind::Broadcast: return T(0);  // rejected by the front end
      case dag::NodeKind::Select: return truth(scalar(n.operands[0])) ? scalar(n.operands[1]) : scalar(n.operands[2]);
      case dag::NodeKind::Apply:
        return apply(n.op, scalar(n.operands[0]), n.operandCount() > 1 ? scalar(n.operands[1]) : T(0),
                     n.operandCount() > 2 ? scalar(n.operands[2]) : T(0));
    }
    return T(0);
  }

  void fillDim(T* arr, int d, const dag::Boundary& b) const {
    const long h = L_.halo[d], n = L_.n[d];
    if (h == 0) return;
    const T value = b.kind == dag::BoundaryKind::Value && b.value != dag::kNoNode ? scalar(b.value) : T(0);
    long lo[3], hi[3];
    for (int e = 0; e < 3; ++e) {
      lo[e] = e < d ? -L_.halo[e] : 0;
      hi[e] = e < d ? L_.n[e] + L_.halo[e] : L_.n[e];
    }
    lo[d] = -h;
    hi[d] = n + h;
    long c[3];
    for (c[0] = lo[0]; c[0] < hi[0]; ++c[0])
      for (c[1] = lo[1]; c[1] < hi[1]; ++c[1])
        for (c[2] = lo[2]; c[2] < hi[2]; ++c[2]) {
          if (c[d] >= 0 && c[d] < n) continue;  // interior along d
          long src = boundarySourceIndex(c[d], n, b.kind);
          long dst = index(c);
          if (src < 0) {
            arr[dst] = value;
          } else {
            long s[3] = {c[0], c[1], c[2]};
            s[d] = src;
            arr[dst] = arr[index(s)];
          }
        }
  }

  long index(const long c[3]) const { return L_.origin + c[0] * L_.stride[0] + c[1] * L_.stride[1] + c[2]; }

  const dag::Context& ctx_;
  const dag::Kernel& k_;
  stnc_rt::Layout L_;
  std::vector<T> params_;
  std::vector<Part> parts_;
};

// One point source: element `at` of field `field` (by role) gets wave[t] after step t's sweep.
struct Source {
  int field;
  long at;
  const double* wave;
};

template <typename T>
int runTyped(const dag::Module& m, const dag::Kernel& k, const stnc_rt::Layout& L, void** fields, const double* params,
             long steps, const std::vector<Source>& sources, long reps, double* ms, char* err, unsigned long errlen) {
  Machine<T> mach(m.ctx, k, L, params);
  std::vector<T*> f;
  for (size_t i = 0; i < k.fields.size(); ++i) f.push_back(static_cast<T*>(fields[i]));
  if (reps > 0) {
    // Time `reps` sweeps on scratch copies so the run below sees untouched inputs.
    std::vector<std::vector<T>> scratch;
    std::vector<T*> sp;
    for (size_t i = 0; i < f.size(); ++i) scratch.emplace_back(f[i], f[i] + fieldElems(k, k.fields[i], L));
    for (auto& s : scratch) sp.push_back(s.data());
    std::vector<double> times;
    for (long r = 0; r <= reps; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      mach.sweep(sp);
      double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (r > 0) times.push_back(t);
    }
    std::sort(times.begin(), times.end());
    if (ms) {
      ms[0] = times[times.size() / 2];
      ms[1] = times.front();
    }
  }
  if (steps == 0) {
    mach.fill(f);
    mach.sweep(f);
    return kOk;
  }
  for (long s = 0; s < steps; ++s) {
    mach.fill(f);
    mach.sweep(f);
    for (const Source& q : sources) f[q.field][q.at] += static_cast<T>(q.wave[s]);
    for (auto& [a, b] : k.swaps) std::swap(f[k.fieldIndex(a)], f[k.fieldIndex(b)]);
  }
  for (size_t i = 0; i < f.size(); ++i) fields[i] = f[i];
  (void)err;
  (void)errlen;
  return kOk;
}

}  // namespace

long boundarySourceIndex(long x, long n, dag::BoundaryKind kind) {
  switch (kind) {
    case dag::BoundaryKind::Periodic: {
      long r = x % n;  // numpy 'wrap': the interior repeats with period n
      return r < 0 ? r + n : r;
    }
    case dag::BoundaryKind::Clamp: return x < 0 ? 0 : n - 1;  // numpy 'edge'
    case dag::BoundaryKind::Mirror: return reflect(x, n);    // numpy 'symmetric'
    case dag::BoundaryKind::Value: return -1;                // numpy 'constant'
  }
  return -1;
}

int run(const dag::Module& m, const dag::Kernel& k, const long* n, void** fields, const double* params, long steps,
        int nsrc, const long* srcAt, const double* srcWave, long reps, double* ms, char* err, unsigned long errlen) {
  auto fail = [&](int status, const char* msg) {
    if (err && errlen) std::snprintf(err, errlen, "%s", msg);
    return status;
  };
  if (steps < 0 || reps < 0) return fail(kBadArgument, "bad argument");
  long n3[3] = {1, 1, 1};
  int h3[3] = {0, 0, 0};
  const int r = k.rank();
  for (int a = 0; a < r; ++a) {
    if (n[a] <= 0) return fail(kBadExtent, "extent must be positive");
    n3[3 - r + a] = n[a];
    h3[3 - r + a] = k.footprint.halo[a];
  }
  stnc_rt::Layout L{};
  if (!stnc_rt::makeLayout(n3, h3, static_cast<int>(dag::elemSize(k.type)), L))
    return fail(kBadExtent, "extent must be positive");
  for (size_t i = 0; i < k.fields.size(); ++i)
    if (!fields[i]) return fail(kNullPointer, "null field pointer");
  if (nsrc < 0 || (nsrc > 0 && (!srcAt || !srcWave || steps < 1))) return fail(kBadArgument, "bad point sources");
  std::vector<Source> sources;
  for (int q = 0; q < nsrc; ++q) {
    const long* at = srcAt + q * (r + 1);
    long p3[3] = {0, 0, 0};
    for (int a = 0; a < r; ++a) {
      if (at[a + 1] < 0 || at[a + 1] >= n[a]) return fail(kBadArgument, "point source outside the interior");
      p3[3 - r + a] = at[a + 1];
    }
    if (at[0] < 0 || at[0] >= static_cast<long>(k.fields.size())) return fail(kBadArgument, "point source of no field");
    if (k.fields[static_cast<size_t>(at[0])].lowerRank()) return fail(kBadArgument, "point source on a lower-rank field");
    sources.push_back(Source{static_cast<int>(at[0]), stnc_rt::at(L, p3[0], p3[1], p3[2]), srcWave + q * steps});
  }
  if (k.type == dag::ElemType::F32) return runTyped<float>(m, k, L, fields, params, steps, sources, reps, ms, err, errlen);
  return runTyped<double>(m, k, L, fields, params, steps, sources, reps, ms, err, errlen);
}

}  // namespace stnc::interp
