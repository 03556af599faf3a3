#include "lower/AstToDag.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

#include "lower/ConstantChecks.h"
#include "sema/ScheduleArgs.h"
#include "support/Error.h"
#include "support/Suggest.h"
#include "support/Text.h"

namespace stnc::lower {

namespace {

using ast::Expr;
using ast::ExprKind;
using dag::NodeId;
using dag::kNoNode;
using dag::Offset;
using dag::Op;

constexpr size_t kMaxNodes = 4'000'000;
constexpr long kMaxSumTerms = 100'000;
// Index offsets, sum bounds, array indices and radii beyond this are certainly mistakes (a halo of a million cells).
constexpr long kMaxCompileTimeInt = 1'000'000;
constexpr long kMaxEvals = 1'000'000;  // expansion work (nested defs can double it per level)
constexpr int kMaxEvalDepth = 2'000;     // nesting of the expression being lowered (stack use)

std::string entries(size_t n) { return counted(n, "entry", "entries"); }
std::string axesCount(size_t n) { return counted(n, "axis", "axes"); }

struct OffsetItem {
  Offset off;
  double weight;
};

// A local binding: a sum index, an offset variable, or a def parameter.
struct Binding {
  enum class Kind { Int, OffsetVar, DefParam } kind;
  int intValue = 0;
  OffsetItem item{};
  const Expr* arg = nullptr;
  const struct Env* argEnv = nullptr;
  size_t defDepth = 0;  // DefParam: how many defs were open at the call (the argument's context)
};

struct Env {
  std::map<std::string, Binding> names;
  const Env* parent = nullptr;
  const Binding* find(const std::string& n) const {
    for (const Env* e = this; e; e = e->parent) {
      auto it = e->names.find(n);
      if (it != e->names.end()) return &it->second;
    }
    return nullptr;
  }
};

// Program-wide state: the context, global symbols and memoized global consts.
unsigned fieldAxisMask(const ast::StencilDecl& s, const ast::FieldDecl& f);

struct Globals {
  dag::Context& ctx;
  const sema::Symbols& syms;
  DiagEngine& diags;
  std::map<std::string, std::vector<double>> constValues;  // evaluated consts (arrays have n > 1 or isArray)
  std::set<std::string> constsInProgress;
  bool tooLarge = false;
  long evals = 0;
  int depth = 0;
};

class Lowerer {
 public:
  // stencil == nullptr: evaluating a global const (no fields, no axes).
  Lowerer(Globals& g, const ast::StencilDecl* stencil) : g_(g), ctx_(g.ctx), s_(stencil) {
    if (!s_) return;
    for (auto& f : s_->fields) {
      // The first declaration of a name counts, as in sema (a redefinition was reported there).
      if (!fieldRoles_.emplace(f.id.name, f.role).second) continue;
      if (unsigned m = fieldAxisMask(*s_, f)) fieldAxes_[f.id.name] = m;
    }
    for (auto& p : s_->params) params_.insert(p.name);
    for (size_t i = 0; i < s_->lets.size(); ++i) lets_[s_->lets[i].id.name] = i;
    for (size_t i = 0; i < s_->axes.size(); ++i) axes_[s_->axes[i].name] = static_cast<int>(i);
  }

  NodeId eval(const Expr& e, const Env* env, Offset shift) {
    if (ctx_.size() > kMaxNodes || ++g_.evals > kMaxEvals) {
      if (!g_.tooLarge)
        g_.diags.report(DiagId::err_too_large, e.loc)
            << "this expression" << (g_.evals > kMaxEvals ? kMaxEvals : static_cast<long>(kMaxNodes));
      g_.tooLarge = true;
      return kNoNode;
    }
    if (g_.depth >= kMaxEvalDepth) {
      if (!g_.tooLarge) g_.diags.report(DiagId::err_too_deep, e.loc) << kMaxEvalDepth;
      g_.tooLarge = true;
      return kNoNode;
    }
    struct DepthGuard {
      int& d;
      ~DepthGuard() { --d; }
    } guard{++g_.depth};
    switch (e.kind) {
      case ExprKind::Number: return ctx_.constant(e.number);
      case ExprKind::Name: return evalName(e, env, shift);
      case ExprKind::Index: return evalIndex(e, env, shift);
      case ExprKind::Call: return evalCall(e, env, shift);
      case ExprKind::Apply: return evalApply(e, env, shift);
      case ExprKind::Unary: return evalUnary(e, env, shift);
      case ExprKind::Binary: return evalBinary(e, env, shift);
      case ExprKind::SumRange: return evalSumRange(e, env, shift);
      case ExprKind::SumOffsets: return evalSumOffsets(e, env, shift);
    }
    STNC_UNREACHABLE("expression kind");
    return kNoNode;
  }

  // Evaluates a compile-time integer (index offset, sum bound, array index, radius).
  bool evalInt(const Expr& e, const Env* env, const char* what, int& out) {
    NodeId id = eval(e, env, {});
    if (id == kNoNode) return false;
    const dag::Node& n = ctx_.node(id);
    if (n.kind != dag::NodeKind::Const || n.type != dag::Type::Real) {
      g_.diags.report(DiagId::err_not_const, e.loc) << what;
      return false;
    }
    if (std::floor(n.value) != n.value) {
      g_.diags.report(DiagId::err_not_integer, e.loc) << what << formatNumber(n.value);
      return false;
    }
    if (std::fabs(n.value) > kMaxCompileTimeInt) {
      g_.diags.report(DiagId::err_int_range, e.loc) << what << kMaxCompileTimeInt << formatNumber(n.value);
      return false;
    }
    out = static_cast<int>(n.value);
    return true;
  }

  // In an f32 stencil, a finite constant beyond the f32 range used at `at` (lower/ConstantChecks).
  void checkF32Range(NodeId o, const Expr& at) {
    if (s_ && s_->type.name == "f32") warnF32Range(ctx_, g_.diags, o, s_->id.name, at.loc);
  }

  NodeId real(const Expr& e, const Env* env, Offset shift) {
    NodeId id = eval(e, env, shift);
    if (id == kNoNode) return id;
    if (ctx_.node(id).type != dag::Type::Real) {
      g_.diags.report(DiagId::err_bool_value, e.loc);
      return kNoNode;
    }
    return id;
  }

  NodeId boolean(const Expr& e, const Env* env, Offset shift, const char* who) {
    NodeId id = eval(e, env, shift);
    if (id == kNoNode) return id;
    if (ctx_.node(id).type != dag::Type::Bool) {
      g_.diags.report(DiagId::err_number_as_bool, e.loc) << who;
      return kNoNode;
    }
    return id;
  }

  std::set<std::string> usedLets;

  // Global consts: evaluated once, exactly, in float64.
  const std::vector<double>* constValue(const std::string& name, Loc use) {
    auto it = g_.constValues.find(name);
    if (it != g_.constValues.end()) return &it->second;
    const ast::ConstDecl* c = g_.syms.consts.at(name);
    if (!g_.constsInProgress.insert(name).second) {
      g_.diags.report(DiagId::err_value_cycle, use) << name;
      return nullptr;
    }
    Lowerer inner(g_, nullptr);
    std::vector<double> vals;
    bool ok = true;
    std::vector<const Expr*> elems;
    if (c->isArray)
      for (auto& x : c->elements) elems.push_back(x.get());
    else
      elems.push_back(c->value.get());
    for (const Expr* x : elems) {
      NodeId id = inner.eval(*x, nullptr, {});
      if (id == kNoNode) {
        ok = false;
        continue;
      }
      if (!ctx_.isConst(id) || ctx_.node(id).type != dag::Type::Real) {
        g_.diags.report(DiagId::err_not_const, x->loc) << "the value of const '" + name + "'";
        ok = false;
        continue;
      }
      vals.push_back(ctx_.node(id).value);
    }
    g_.constsInProgress.erase(name);
    if (!ok) return nullptr;
    return &(g_.constValues[name] = vals);
  }

 private:
  NodeId fieldAccess(const std::string& name, Loc loc, Offset off) {
    ast::FieldRole r = fieldRoles_.at(name);
    if (r == ast::FieldRole::Out) {
      g_.diags.report(DiagId::err_output_read, loc) << name;
      return kNoNode;
    }
    if (r == ast::FieldRole::InOut && !off.isZero()) {
      g_.diags.report(DiagId::err_inout_offset, loc) << name;
      return kNoNode;
    }
    for (int a = static_cast<int>(s_->axes.size()); a < 3; ++a)
      STNC_ASSERT(off.d[a] == 0, "offset beyond the stencil's rank");
    auto lower = fieldAxes_.find(name);
    if (lower != fieldAxes_.end())  // the same value along the axes it lacks: a shift moves it along its own only
      return ctx_.broadcast(ctx_.intern(name), lower->second, dag::maskOffset(off, lower->second));
    return ctx_.access(ctx_.intern(name), off);
  }

  NodeId letValue(const std::string& name, Loc loc, Offset shift) {
    size_t idx = lets_.at(name);
    usedLets.insert(name);
    auto key = std::make_pair(idx, shift);
    auto it = letMemo_.find(key);
    if (it != letMemo_.end()) return it->second;
    if (!letsInProgress_.insert(name).second) {
      g_.diags.report(DiagId::err_value_cycle, loc) << name;
      return kNoNode;
    }
    NodeId id = eval(*s_->lets[idx].value, nullptr, shift);
    letsInProgress_.erase(name);
    letMemo_[key] = id;
    return id;
  }

  // Resolves a bare name. Order: local bindings, stencil names, globals.
  NodeId evalName(const Expr& e, const Env* env, Offset shift) {
    const std::string& n = e.name;
    if (const Binding* b = env ? env->find(n) : nullptr) {
      switch (b->kind) {
        case Binding::Kind::Int: return ctx_.constant(b->intValue);
        case Binding::Kind::OffsetVar:
          g_.diags.report(DiagId::err_offsets_value, e.loc) << n;
          return kNoNode;
        case Binding::Kind::DefParam: return evalArg(*b, shift);
      }
    }
    if (s_) {
      if (fieldRoles_.count(n)) return fieldAccess(n, e.loc, shift);
      if (params_.count(n)) return ctx_.param(ctx_.intern(n));
      if (lets_.count(n)) return letValue(n, e.loc, shift);
      if (axes_.count(n)) {
        g_.diags.report(DiagId::err_axis_value, e.loc) << n;
        return kNoNode;
      }
    }
    if (g_.syms.consts.count(n)) {
      if (g_.syms.consts.at(n)->isArray) {
        g_.diags.report(DiagId::err_array_needs_index, e.loc) << n;
        return kNoNode;
      }
      const std::vector<double>* v = constValue(n, e.loc);
      return v ? ctx_.constant(v->front()) : kNoNode;
    }
    if (g_.syms.offsets.count(n)) {
      g_.diags.report(DiagId::err_offsets_value, e.loc) << n;
      return kNoNode;
    }
    if (g_.syms.defs.count(n)) {
      g_.diags.report(DiagId::err_arity, e.loc) << n << counted(g_.syms.defs.at(n)->params.size(), "argument", "arguments") << 0;
      return kNoNode;
    }
    if (!s_ && (g_.syms.stencils.count(n) == 0)) {
      // In a global const, stencil-local names do not exist.
    }
    reportUnknown(DiagId::err_unknown_name, e.loc, n, valueNames(env));
    return kNoNode;
  }

  // Index entry d of a field/let/def-param access: AXIS, AXIS+C or AXIS-C.
  bool axisEntry(const Expr& e, int d, const Env* env, int& delta) { return axisEntry(e, d, s_->axes[d].name, env, delta); }
  // Entry number d (0-based, for the message) naming `axis`.
  bool axisEntry(const Expr& e, int d, const std::string& axis, const Env* env, int& delta) {
    if (e.kind == ExprKind::Name && e.name == axis && !(env && env->find(axis))) {
      delta = 0;
      return true;
    }
    if (e.kind == ExprKind::Binary && (e.op == "+" || e.op == "-")) {
      const Expr& l = *e.args[0];
      if (mentionsAxis(l, axis)) {
        int base = 0, c = 0;
        if (!axisEntry(l, d, axis, env, base)) return false;
        if (!evalInt(*e.args[1], env, "an index offset", c)) return false;
        delta = e.op == "+" ? base + c : base - c;
        return true;
      }
    }
    g_.diags.report(DiagId::err_index_form, e.loc) << d + 1 << axis;
    return false;
  }

  static bool mentionsAxis(const Expr& e, const std::string& axis) {
    if (e.kind == ExprKind::Name) return e.name == axis;
    if (e.kind == ExprKind::Binary) return mentionsAxis(*e.args[0], axis);
    return false;
  }

  // Computes the shift of an index list [e0, e1, ...] on a field, let or def parameter.
  bool indexShift(const Expr& e, const Env* env, Offset& off) {
    size_t rank = s_->axes.size();
    if (e.args.size() == 1 && e.args[0]->kind == ExprKind::Name) {
      const Binding* b = env ? env->find(e.args[0]->name) : nullptr;
      if (b && b->kind == Binding::Kind::OffsetVar) {
        off = b->item.off;
        return true;
      }
    }
    for (auto& a : e.args)
      if (a->kind == ExprKind::Name) {
        const Binding* b = env ? env->find(a->name) : nullptr;
        if (b && b->kind == Binding::Kind::OffsetVar) {
          g_.diags.report(DiagId::err_offset_var_index, a->loc) << a->name;
          return false;
        }
      }
    if (e.args.size() != rank) {
      g_.diags.report(DiagId::err_index_count, e.loc) << e.name << entries(e.args.size()) << axesCount(rank);
      return false;
    }
    for (size_t d = 0; d < rank; ++d)
      if (!axisEntry(*e.args[d], static_cast<int>(d), env, off.d[d])) return false;
    return true;
  }

  // The index list of a lower-rank field: one entry per axis it has, in order.
  bool lowerIndexShift(const Expr& e, const Env* env, unsigned mask, Offset& off) {
    std::vector<int> axes;
    std::string names;
    for (int a = 0; a < static_cast<int>(s_->axes.size()); ++a)
      if (mask & (1u << a)) {
        axes.push_back(a);
        appendItem(names, s_->axes[a].name);
      }
    if (e.args.size() != axes.size()) {
      g_.diags.report(DiagId::err_lower_index_count, e.loc) << e.name << entries(e.args.size()) << axesCount(axes.size())
                                                        << names;
      return false;
    }
    for (size_t d = 0; d < axes.size(); ++d)
      if (!axisEntry(*e.args[d], static_cast<int>(d), s_->axes[axes[d]].name, env, off.d[axes[d]])) return false;
    return true;
  }

  NodeId evalIndex(const Expr& e, const Env* env, Offset shift) {
    const std::string& n = e.name;
    if (s_ && fieldAxes_.count(n) && !(env && env->find(n))) {
      Offset off;
      if (!lowerIndexShift(e, env, fieldAxes_.at(n), off)) return kNoNode;
      return fieldAccess(n, e.loc, shift + off);
    }
    const Binding* b = env ? env->find(n) : nullptr;
    if (b && b->kind == Binding::Kind::DefParam) {
      if (!s_) return notIndexable(e, "a def parameter outside a stencil");
      Offset off;
      if (!indexShift(e, env, off)) return kNoNode;
      return evalArg(*b, shift + off);
    }
    if (b) return notIndexable(e, b->kind == Binding::Kind::Int ? "a sum index" : "an offset variable");
    if (s_ && (fieldRoles_.count(n) || lets_.count(n))) {
      Offset off;
      if (!indexShift(e, env, off)) return kNoNode;
      if (fieldRoles_.count(n)) return fieldAccess(n, e.loc, shift + off);
      return letValue(n, e.loc, shift + off);
    }
    if (s_ && params_.count(n)) return notIndexable(e, "a param");
    if (s_ && axes_.count(n)) return notIndexable(e, "an axis");
    if (g_.syms.consts.count(n)) {
      const ast::ConstDecl* c = g_.syms.consts.at(n);
      if (!c->isArray) return notIndexable(e, "a scalar const");
      if (e.args.size() != 1) {
        g_.diags.report(DiagId::err_index_count, e.loc) << n << entries(e.args.size()) << axesCount(1);
        return kNoNode;
      }
      int idx = 0;
      if (!evalInt(*e.args[0], env, "an array index", idx)) return kNoNode;
      const std::vector<double>* v = constValue(n, e.loc);
      if (!v) return kNoNode;
      if (idx < 0 || static_cast<size_t>(idx) >= v->size()) {
        g_.diags.report(DiagId::err_array_index, e.args[0]->loc) << idx << n << v->size();
        return kNoNode;
      }
      return ctx_.constant((*v)[idx]);
    }
    if (g_.syms.offsets.count(n)) return notIndexable(e, "an offsets shape");
    if (!s_ && !g_.syms.defs.count(n)) {
      g_.diags.report(DiagId::err_field_in_const, e.loc) << n;
      return kNoNode;
    }
    reportUnknown(DiagId::err_unknown_name, e.loc, n, valueNames(env));
    return kNoNode;
  }

  // A def argument belongs to the caller: evaluate it with only the defs that were open at the
  // call, so that d(d(u)) (the argument of d calls d) is not mistaken for recursion.
  NodeId evalArg(const Binding& b, Offset shift) {
    std::vector<const ast::DefDecl*> inner(defStack_.begin() + static_cast<long>(b.defDepth), defStack_.end());
    defStack_.resize(b.defDepth);
    NodeId r = eval(*b.arg, b.argEnv, shift);
    defStack_.insert(defStack_.end(), inner.begin(), inner.end());
    return r;
  }

  NodeId notIndexable(const Expr& e, const char* what) {
    g_.diags.report(DiagId::err_not_indexable, e.loc) << e.name << what;
    return kNoNode;
  }

  NodeId evalCall(const Expr& e, const Env* env, Offset shift) {
    const std::string& n = e.name;
    auto arity = [&](size_t want) {
      if (e.args.size() == want) return true;
      g_.diags.report(DiagId::err_arity, e.loc) << n << counted(want, "argument", "arguments") << e.args.size();
      return false;
    };
    if (n == "select") {
      if (!arity(3)) return kNoNode;
      NodeId c = boolean(*e.args[0], env, shift, "select");
      NodeId a = real(*e.args[1], env, shift);
      NodeId b = real(*e.args[2], env, shift);
      if (c == kNoNode || a == kNoNode || b == kNoNode) return kNoNode;
      return checked(ctx_.select(c, a, b), e, {c, a, b});
    }
    if (n == "weight") {
      if (!arity(1)) return kNoNode;
      const Expr& a = *e.args[0];
      const Binding* b = (a.kind == ExprKind::Name && env) ? env->find(a.name) : nullptr;
      if (!b || b->kind != Binding::Kind::OffsetVar) {
        g_.diags.report(DiagId::err_weight_outside, a.loc) << (a.kind == ExprKind::Name ? a.name : "...");
        return kNoNode;
      }
      return ctx_.constant(b->item.weight);
    }
    Op op;
    if (dag::intrinsicOp(n, op)) {
      if (!arity(static_cast<size_t>(dag::opInfo(op).arity))) return kNoNode;
      NodeId a = real(*e.args[0], env, shift);
      NodeId b = e.args.size() > 1 ? real(*e.args[1], env, shift) : kNoNode;
      if (a == kNoNode || (e.args.size() > 1 && b == kNoNode)) return kNoNode;
      return e.args.size() > 1 ? checked(ctx_.apply(op, a, b), e, {a, b}) : checked(ctx_.apply(op, a), e, {a});
    }
    auto it = g_.syms.defs.find(n);
    if (it == g_.syms.defs.end() && fieldRoles_.count(n)) {  // a(i): C/Fortran habit for a[i]
      g_.diags.report(DiagId::err_unknown_function, e.loc) << n;
      g_.diags.report(DiagId::note_field_not_function, e.loc) << n;
      return kNoNode;
    }
    if (it == g_.syms.defs.end()) {
      std::vector<std::string> fns = dag::intrinsicNames(), defs = keysOf(g_.syms.defs);
      fns.insert(fns.end(), defs.begin(), defs.end());
      reportUnknown(DiagId::err_unknown_function, e.loc, n, fns);
      return kNoNode;
    }
    const ast::DefDecl* d = it->second;
    if (!arity(d->params.size())) return kNoNode;
    for (const ast::DefDecl* open : defStack_)
      if (open == d) {
        g_.diags.report(DiagId::err_recursion, e.loc) << n;
        return kNoNode;
      }
    Env inner;  // lexical scope: the body sees its parameters, not the caller's sum indices
    for (size_t i = 0; i < d->params.size(); ++i) {
      Binding b;
      b.kind = Binding::Kind::DefParam;
      b.arg = e.args[i].get();
      b.argEnv = env;
      b.defDepth = defStack_.size();
      inner.names[d->params[i].name] = b;
    }
    defStack_.push_back(d);
    g_.diags.pushContext({DiagId::note_expansion, Severity::Note, e.loc,
                          DiagEngine::format(DiagId::note_expansion, {n}), {}});
    NodeId r = eval(*d->body, &inner, shift);
    g_.diags.popContext();
    defStack_.pop_back();
    return r;
  }

  // Expands an offsets declaration for this stencil's rank.
  bool offsetItems(const std::string& name, Loc loc, const Env* env, std::vector<OffsetItem>& out) {
    auto it = g_.syms.offsets.find(name);
    if (it == g_.syms.offsets.end()) {
      reportUnknown(DiagId::err_unknown_name, loc, name, keysOf(g_.syms.offsets));
      return false;
    }
    if (!s_) {
      g_.diags.report(DiagId::err_field_in_const, loc) << name;
      return false;
    }
    const ast::OffsetsDecl* o = it->second;
    int rank = static_cast<int>(s_->axes.size());
    if (!o->shape.name.empty()) {
      int r = 0;
      Lowerer global(g_, nullptr);
      if (!global.evalInt(*o->radius, nullptr, "an offsets radius", r)) return false;
      if (r < 0) {
        g_.diags.report(DiagId::err_not_integer, o->radius->loc) << "an offsets radius (>= 0)" << r;
        return false;
      }
      double count = o->shape.name == "star" ? 1.0 + 2.0 * r * rank : std::pow(2.0 * r + 1.0, rank);
      if (count > static_cast<double>(kMaxSumTerms)) {
        g_.diags.report(DiagId::err_too_large, o->radius->loc) << "this offsets shape" << kMaxSumTerms;
        return false;
      }
      if (o->shape.name == "star") {
        out.push_back({Offset{}, 1.0});
        for (int a = 0; a < rank; ++a)
          for (int d = -r; d <= r; ++d) {
            if (d == 0) continue;
            Offset off;
            off.d[a] = d;
            out.push_back({off, 1.0});
          }
        return true;
      }
      int lo1 = rank > 1 ? -r : 0, lo2 = rank > 2 ? -r : 0;
      for (int a = -r; a <= r; ++a)
        for (int b = lo1; b <= -lo1; ++b)
          for (int c = lo2; c <= -lo2; ++c) out.push_back({Offset{{a, b, c}}, 1.0});
      return true;
    }
    for (auto& en : o->entries) {
      if (static_cast<int>(en.coords.size()) != rank) {
        g_.diags.report(DiagId::err_index_count, en.loc) << name << entries(en.coords.size()) << axesCount(rank);
        return false;
      }
      OffsetItem item{Offset{}, 1.0};
      Lowerer global(g_, nullptr);
      for (int d = 0; d < rank; ++d)
        if (!global.evalInt(*en.coords[d], nullptr, "an offset coordinate", item.off.d[d])) return false;
      if (en.weight) {
        NodeId w = global.eval(*en.weight, nullptr, {});
        if (w == kNoNode) return false;
        if (!ctx_.isConst(w)) {
          g_.diags.report(DiagId::err_not_const, en.weight->loc) << "an offset weight";
          return false;
        }
        item.weight = ctx_.node(w).value;
      }
      out.push_back(item);
    }
    (void)env;
    return true;
  }

  // acc + term, starting the chain at the first term (left-associative, source order).
  NodeId accumulate(NodeId acc, NodeId term) { return acc == kNoNode ? term : ctx_.apply(Op::Add, acc, term); }

  NodeId evalApply(const Expr& e, const Env* env, Offset shift) {
    std::vector<OffsetItem> items;
    if (!offsetItems(e.name, e.loc, env, items)) return kNoNode;
    NodeId acc = kNoNode;
    for (const OffsetItem& it : items) {
      NodeId v = real(*e.args[0], env, shift + it.off);
      if (v == kNoNode) return kNoNode;
      NodeId term = it.weight == 1.0 ? v : ctx_.apply(Op::Mul, ctx_.constant(it.weight), v);
      acc = accumulate(acc, term);
    }
    return acc == kNoNode ? ctx_.constant(0.0) : acc;
  }

  NodeId evalSumOffsets(const Expr& e, const Env* env, Offset shift) {
    std::vector<OffsetItem> items;
    if (!offsetItems(e.name2, e.loc, env, items)) return kNoNode;
    return sumOver(e.name, items.size(), *e.args[0], env, shift, [&](size_t t, Binding& b) {
      b.kind = Binding::Kind::OffsetVar;
      b.item = items[t];
    });
  }

  NodeId evalSumRange(const Expr& e, const Env* env, Offset shift) {
    int lo = 0, hi = 0;
    if (!evalInt(*e.args[0], env, "a sum bound", lo) || !evalInt(*e.args[1], env, "a sum bound", hi)) return kNoNode;
    if (static_cast<long>(hi) - lo > kMaxSumTerms) {
      g_.diags.report(DiagId::err_too_large, e.loc) << "this sum" << kMaxSumTerms;
      return kNoNode;
    }
    // An empty range sums to 0 (so `sum(m in 1..R)` with R = 0 is no term); written with two literal bounds, such
    // as 3..1, it is most likely a range meant to run downwards.
    if (lo > hi && isIntLiteral(*e.args[0]) && isIntLiteral(*e.args[1])) g_.diags.report(DiagId::warn_sum_empty, e.loc) << lo << hi;
    const size_t terms = lo > hi ? 0 : static_cast<size_t>(static_cast<long>(hi) - lo + 1);
    return sumOver(e.name, terms, *e.args[2], env, shift, [&](size_t t, Binding& b) {
      b.kind = Binding::Kind::Int;
      b.intValue = lo + static_cast<int>(t);
    });
  }

  // The sum of `body` over `terms` bindings of `var` (bind(t, b) sets term t's), in order, as a left fold; an
  // empty sum is 0.
  template <typename Bind>
  NodeId sumOver(const std::string& var, size_t terms, const Expr& body, const Env* env, Offset shift, const Bind& bind) {
    NodeId acc = kNoNode;
    for (size_t t = 0; t < terms; ++t) {
      Env inner;
      inner.parent = env;
      Binding b;
      bind(t, b);
      inner.names[var] = b;
      NodeId v = real(body, &inner, shift);
      if (v == kNoNode) return kNoNode;
      acc = accumulate(acc, v);
    }
    return acc == kNoNode ? ctx_.constant(0.0) : acc;
  }

  // A number as written, or one negated: `3`, `-1` (not a const's name or an expression of them).
  static bool isIntLiteral(const Expr& e) {
    return e.kind == ExprKind::Number || (e.kind == ExprKind::Unary && e.op == "-" && e.args[0]->kind == ExprKind::Number);
  }

  NodeId evalUnary(const Expr& e, const Env* env, Offset shift) {
    if (e.op == "!") {
      NodeId a = boolean(*e.args[0], env, shift, "'!'");
      return a == kNoNode ? a : ctx_.apply(Op::Not, a);
    }
    NodeId a = real(*e.args[0], env, shift);
    return a == kNoNode ? a : checked(ctx_.apply(Op::Neg, a), e, {a});
  }

  NodeId evalBinary(const Expr& e, const Env* env, Offset shift) {
    static const std::map<std::string, Op> kOps = {
        {"+", Op::Add}, {"-", Op::Sub}, {"*", Op::Mul}, {"/", Op::Div}, {"<", Op::Lt},  {"<=", Op::Le},
        {">", Op::Gt},  {">=", Op::Ge}, {"==", Op::Eq}, {"!=", Op::Ne}, {"&&", Op::And}, {"||", Op::Or}};
    Op op = kOps.at(e.op);
    NodeId a, b;
    if (ast::isLogical(e.op)) {
      a = boolean(*e.args[0], env, shift, ("'" + e.op + "'").c_str());
      b = boolean(*e.args[1], env, shift, ("'" + e.op + "'").c_str());
    } else {
      a = real(*e.args[0], env, shift);
      b = real(*e.args[1], env, shift);
    }
    if (a == kNoNode || b == kNoNode) return kNoNode;
    if (op == Op::Div && ctx_.isConst(b) && ctx_.node(b).value == 0.0) {
      if (ctx_.isConst(a)) {
        g_.diags.report(DiagId::err_div_zero, e.loc);
        return kNoNode;
      }
      g_.diags.report(DiagId::warn_div_by_zero, e.loc);
    }
    return checked(ctx_.apply(op, a, b), e, {a, b});
  }

  // A node just built from `operands` for e: the constant checks of lower/ConstantChecks.h.
  NodeId checked(NodeId r, const Expr& e, std::initializer_list<NodeId> operands) {
    if (r == kNoNode) return r;
    if (ctx_.isConst(r)) {
      warnNotFiniteFold(ctx_, g_.diags, r, operands, e.loc);
      return r;
    }
    size_t i = 0;
    for (NodeId o : operands) {
      checkF32Range(o, i < e.args.size() ? *e.args[i] : e);
      ++i;
    }
    return r;
  }

  Globals& g_;
  dag::Context& ctx_;
  // The names a value may use here, for "did you mean" notes: the bindings in env (offset variables, def
  // parameters), the stencil's fields, params and lets, and the global consts.
  std::vector<std::string> valueNames(const Env* env) const {
    std::vector<std::string> v;
    for (const Env* e = env; e; e = e->parent)
      for (auto& [n, b] : e->names) v.push_back(n);
    const std::vector<std::string> params(params_.begin(), params_.end());
    for (const std::vector<std::string>& names : {keysOf(fieldRoles_), params, keysOf(lets_), keysOf(g_.syms.consts)})
      v.insert(v.end(), names.begin(), names.end());
    return v;
  }

  // An unknown name's error, and a note naming the closest candidate when one is near.
  void reportUnknown(DiagId id, Loc loc, const std::string& name, const std::vector<std::string>& candidates) {
    g_.diags.report(id, loc) << name;
    noteDidYouMean(g_.diags, loc, name, candidates);
  }

  const ast::StencilDecl* s_;
  std::map<std::string, ast::FieldRole> fieldRoles_;
  std::map<std::string, unsigned> fieldAxes_;  // lower-rank fields: the kernel axes they have (bit a = axis a)
  std::set<std::string> params_;
  std::map<std::string, size_t> lets_;
  std::map<std::string, int> axes_;
  std::map<std::pair<size_t, Offset>, NodeId> letMemo_;
  std::set<std::string> letsInProgress_;
  std::vector<const ast::DefDecl*> defStack_;
};

dag::Role roleOf(ast::FieldRole r) {
  switch (r) {
    case ast::FieldRole::In: return dag::Role::In;
    case ast::FieldRole::Out: return dag::Role::Out;
    case ast::FieldRole::InOut: return dag::Role::InOut;
  }
  return dag::Role::In;
}

dag::BoundaryKind boundaryKind(const std::string& r) {
  if (r == "value") return dag::BoundaryKind::Value;
  if (r == "clamp") return dag::BoundaryKind::Clamp;
  if (r == "mirror") return dag::BoundaryKind::Mirror;
  return dag::BoundaryKind::Periodic;
}

// The kernel axes (bit a = axis a) of a field declared over fewer axes than its stencil; 0 otherwise.
unsigned fieldAxisMask(const ast::StencilDecl& s, const ast::FieldDecl& f) {
  if (!f.fewerAxesThan(s.axes.size())) return 0;
  unsigned m = 0;
  for (auto& a : f.axes)
    for (size_t i = 0; i < s.axes.size(); ++i)
      if (s.axes[i].name == a.name) m |= 1u << i;
  return m;
}

dag::Kernel lowerStencil(Globals& g, const ast::StencilDecl& s) {
  dag::Kernel k;
  k.name = s.id.name;
  k.loc = s.id.loc;
  for (auto& a : s.axes) k.axes.push_back(a.name);
  k.type = s.type.name == "f32" ? dag::ElemType::F32 : dag::ElemType::F64;
  for (auto& f : s.fields) k.fields.push_back({f.id.name, roleOf(f.role), f.id.loc, fieldAxisMask(s, f)});
  for (auto& p : s.params) {
    k.params.push_back(p.name);
    k.paramLocs.push_back(p.loc);
  }
  Lowerer l(g, &s);
  const bool hasDefaults =
      std::any_of(s.equations.begin(), s.equations.end(), [](const ast::Equation& eq) { return eq.region.name.empty(); });
  for (auto& r : s.regions) {
    dag::Region reg;
    reg.name = r.id.name;
    for (size_t a = 0; a < r.ranges.size() && a < 3; ++a) {
      auto bound = [&](const ast::ExprP& e, int& out, bool isLo) {
        if (!e) return;
        if (!l.evalInt(*e, nullptr, "a region bound", out)) return;
        if (isLo ? out < 0 : out > 0)
          g.diags.report(DiagId::err_region_bound, e->loc) << out << (isLo ? ">= 0" : "<= 0");
      };
      bound(r.ranges[a].first, reg.lo[a], true);
      bound(r.ranges[a].second, reg.hi[a], false);
    }
    // [0:0] along every axis (bounds past the stencil's axes stay 0): the default equations would never run.
    const bool whole = r.ranges.size() == s.axes.size() && reg.lo == std::array<int, 3>{} && reg.hi == std::array<int, 3>{};
    if (whole && hasDefaults) g.diags.report(DiagId::warn_region_whole, r.id.loc) << r.id.name;
    k.regions.push_back(reg);
  }
  for (auto& eq : s.equations) {
    NodeId v = l.real(*eq.value, nullptr, {});
    l.checkF32Range(v, *eq.value);
    int region = -1;
    for (size_t r = 0; r < s.regions.size(); ++r)
      if (s.regions[r].id.name == eq.region.name) region = static_cast<int>(r);
    if (v != kNoNode) k.outputs.push_back({eq.target.name, v, region, eq.text, eq.target.loc});
  }
  // Outputs by region, then in field declaration order, so generated code follows the declarations.
  std::stable_sort(k.outputs.begin(), k.outputs.end(), [&](const dag::Output& a, const dag::Output& b) {
    if (a.region != b.region) return a.region < b.region;
    return k.fieldIndex(a.field) < k.fieldIndex(b.field);
  });
  for (auto& sw : s.swaps) k.swaps.push_back({sw.a.name, sw.b.name});
  for (auto& b : s.boundaries) {
    dag::Boundary r;
    r.field = b.field.name;
    r.kind = boundaryKind(b.rule.name);
    r.loc = b.loc;
    for (size_t a = 0; a < s.axes.size(); ++a) {
      bool on = b.axes.empty();
      for (auto& ax : b.axes) on |= ax.name == s.axes[a].name;
      if (on) r.axisMask |= 1u << a;
    }
    if (b.value && r.kind == dag::BoundaryKind::Value) {  // another rule with an argument: reported by sema
      r.value = l.real(*b.value, nullptr, {});
      if (r.value != kNoNode) {
        // A boundary value is a scalar: consts and params only.
        std::vector<NodeId> work{r.value};
        while (!work.empty()) {
          const dag::Node& n = g.ctx.node(work.back());
          work.pop_back();
          if (n.isLoad()) {
            g.diags.report(DiagId::err_field_in_const, b.value->loc) << g.ctx.name(n.sym);
            break;
          }
          for (int i = 0; i < n.operandCount(); ++i) work.push_back(n.operands[i]);
        }
      }
    }
    k.boundaries.push_back(r);
  }
  for (auto& let : s.lets)
    if (!l.usedLets.count(let.id.name)) g.diags.report(DiagId::warn_unused_let, let.id.loc) << let.id.name;
  return k;
}

}  // namespace

std::optional<dag::Module> lowerProgram(const ast::Program& prog, const sema::Symbols& syms, DiagEngine& diags) {
  dag::Module m;
  Globals g{m.ctx, syms, diags, {}, {}, false};
  int before = diags.errorCount();
  // Every const is checked, used or not.
  for (auto& c : prog.merged.consts)
    if (syms.consts.count(c.id.name) && syms.consts.at(c.id.name) == &c) Lowerer(g, nullptr).constValue(c.id.name, c.id.loc);
  for (auto& s : prog.merged.stencils)
    if (syms.stencils.count(s.id.name) && syms.stencils.at(s.id.name) == &s && !s.axes.empty() && s.axes.size() <= 3)
      m.kernels.push_back(lowerStencil(g, s));
  for (auto& gr : prog.merged.groups) {
    if (!syms.groups.count(gr.id.name) || syms.groups.at(gr.id.name) != &gr) continue;
    dag::Kernel k;
    k.name = gr.id.name;
    k.loc = gr.id.loc;
    k.isGroup = true;
    for (auto& mem : gr.members) k.members.push_back(mem.name);
    m.kernels.push_back(std::move(k));
  }
  // The schedules the source asks for (checked by sema): in a stencil, or at the top level by name.
  // `schedule @ REGION ...` in a stencil: that region's part only (Kernel::partRequests).
  std::map<std::string, const ast::ScheduleDecl*> asked;
  std::map<std::string, std::vector<const ast::ScheduleDecl*>> askedParts;
  for (auto& s : prog.merged.stencils)
    for (auto& d : s.schedules) {
      if (d.region.name.empty()) asked.emplace(s.id.name, &d);
      else askedParts[s.id.name].push_back(&d);
    }
  for (auto& d : prog.merged.schedules) asked.emplace(d.kernel.name, &d);
  auto request = [](const ast::ScheduleDecl& d) {
    dag::ScheduleRequest r;
    r.present = true;
    r.loc = d.loc;
    r.text = d.text;
    r.strategy = d.strategy.name;
    std::string expected;
    for (const ast::ScheduleArg& a : d.args) sema::readScheduleArg(a.key.name, a.value, r, expected);
    return r;
  };
  for (dag::Kernel& k : m.kernels) {
    auto it = asked.find(k.name);
    if (it != asked.end() && it->second->keyword.name == "schedule") k.request = request(*it->second);
    for (const ast::ScheduleDecl* d : askedParts[k.name])
      for (size_t r = 0; r < k.regions.size(); ++r)
        if (d->keyword.name == "schedule" && k.regions[r].name == d->region.name) k.partRequests[static_cast<int>(r)] = request(*d);
  }
  if (diags.errorCount() > before) return std::nullopt;
  return m;
}

}  // namespace stnc::lower
