#include "Gen.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <set>
#include <sstream>

namespace stnrand {

uint64_t mixSeed(uint64_t seed, uint64_t index) {
  Rng r(seed * 0x100000001B3ull ^ (index + 0x51ED270B27ull));
  r.next();
  return r.next();
}

GP lit(double v, const std::string& text) {
  auto e = std::make_shared<GExpr>();
  e->k = GK::Lit;
  e->value = v;
  e->text = text;
  return e;
}

namespace {

GP mk(GK k) {
  auto e = std::make_shared<GExpr>();
  e->k = k;
  return e;
}
GP un(const std::string& op, GP a) {
  GP e = mk(GK::Un);
  e->op = op;
  e->args = {std::move(a)};
  return e;
}
GP bin(const std::string& op, GP a, GP b) {
  GP e = mk(GK::Bin);
  e->op = op;
  e->args = {std::move(a), std::move(b)};
  return e;
}
GP fn(const std::string& name, std::vector<GP> args) {
  GP e = mk(GK::Fn);
  e->name = name;
  e->args = std::move(args);
  return e;
}
GP litNum(double v) {
  char buf[64];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s = buf;
  return lit(v, s);
}

// Shortest text that reads back as exactly v, and is a NUMBER token of the grammar (v >= 0).
std::string exactText(double v) {
  char buf[64];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

// ---------------------------------------------------------------- literals
const std::vector<std::string> kIntLits = {"0", "1", "2", "3", "4", "5", "7", "10", "12", "100"};
const std::vector<std::string> kExactLits = {"0.5", "0.25", "0.375", "1.5", "2.75", "0.125", "3.0", "1.0", "0.0625", "6.5"};
const std::vector<std::string> kInexactLits = {"0.1", "0.2", "0.3", "0.7", "1.1", "3.14159", "2.718281828459045",
                                               "1e-3", "1.5e-2", "0.333", "0.01", "1.0000001"};
const std::vector<std::string> kOddLits = {"0x1.8p-2", "0x1p-3", "0x1.4p+1", "0x10", "2.5e1", "1e2", "5E-1", "0X1.0P0"};

GP randomLit(Rng& r) {
  int k = r.range(0, 9);
  const std::vector<std::string>& v = k < 3 ? kIntLits : k < 6 ? kExactLits : k < 9 ? kInexactLits : kOddLits;
  std::string t = r.pick(v);
  return lit(std::strtod(t.c_str(), nullptr), t);
}

// ---------------------------------------------------------------- generation
struct Scope {
  bool inDef = false;
  std::vector<std::string> defParams;
  std::vector<std::string> fields;   // readable at any offset
  std::vector<std::string> center;   // readable at offset 0 only (inout)
  std::vector<std::string> params;
  std::vector<std::pair<std::string, int>> lets;  // name, reach
  struct IntVar {
    std::string name;
    int lo, hi;
  };
  std::vector<IntVar> ints;
  std::vector<std::pair<std::string, const OffsetsDecl*>> offVars;
  int budget = 4;  // max |offset| still allowed per axis
  bool shiftFree = true;  // nothing around can shift this expression (inout fields allowed)
};

class Generator {
 public:
  Generator(Case& c, Rng& r, const GenOptions& o) : c_(c), r_(r), o_(o) {}

  void run() {
    c_.prefix = "c" + std::to_string(c_.index) + "_";
    c_.rank = r_.range(1, 3);
    static const std::vector<std::vector<std::string>> axisSets = {{"i", "j", "k"}, {"x", "y", "z"}, {"ii", "jj", "kk"}};
    const auto& as = r_.pick(axisSets);
    c_.axes.assign(as.begin() + (3 - c_.rank), as.end());
    if (r_.chance(0.5)) c_.axes.assign(as.begin(), as.begin() + c_.rank);
    c_.f32 = r_.chance(0.4);
    genConsts();
    genOffsets();
    genDefs();
    bool group = r_.chance(0.15);
    if (group) genGroup();
    else genStencil(c_.prefix + "s", false);
    genRun();
  }

 private:
  std::string pre(const std::string& s) const { return c_.prefix + s; }

  void genConsts() {
    int n = r_.range(0, 3);
    for (int i = 0; i < n; ++i) {
      ConstDecl d;
      d.name = pre("k" + std::to_string(i));
      if (r_.chance(0.5)) {
        d.isArray = true;
        int len = r_.range(1, 6);
        for (int e = 0; e < len; ++e) {
          auto [t, v] = constElem();
          d.texts.push_back(t);
          d.values.push_back(v);
        }
      } else if (i > 0 && !c_.consts.back().isArray && r_.chance(0.4)) {
        // A const computed from another: folded in float64 like the compiler does.
        const ConstDecl& prev = c_.consts.back();
        GP l = randomLit(r_);
        double v = prev.values[0] * l->value;
        d.texts.push_back(prev.name + " * " + l->text);
        d.values.push_back(v);
      } else {
        auto [t, v] = constElem();
        d.texts.push_back(t);
        d.values.push_back(v);
      }
      c_.consts.push_back(d);
    }
  }

  std::pair<std::string, double> constElem() {
    int k = r_.range(0, 4);
    if (k == 0) {  // a ratio
      GP a = randomLit(r_), b = randomLit(r_);
      if (b->value == 0) b = lit(3.0, "3.0");
      return {a->text + "/" + b->text, a->value / b->value};
    }
    GP a = randomLit(r_);
    if (k == 1) return {"-" + a->text, -a->value};
    return {a->text, a->value};
  }

  void genOffsets() {
    int n = r_.range(0, 2);
    for (int i = 0; i < n; ++i) {
      OffsetsDecl o;
      o.name = pre("o" + std::to_string(i));
      int kind = r_.range(0, 2);
      int rank = c_.rank;
      if (kind == 0) {
        int cnt = r_.range(1, 5);
        std::string t = "{ ";
        for (int e = 0; e < cnt; ++e) {
          OffsetItem it;
          t += e ? ", [" : "[";
          for (int a = 0; a < rank; ++a) {
            it.d[a] = r_.range(-2, 2);
            t += (a ? "," : "") + std::to_string(it.d[a]);
          }
          t += "]";
          if (r_.chance(0.6)) {
            auto [wt, wv] = constElem();
            t += ": " + wt;
            it.weight = wv;
          }
          o.items.push_back(it);
        }
        if (r_.chance(0.3)) t += ",";
        o.text = t + " }";
      } else {
        int R = r_.range(0, rank == 3 ? 1 : 2);
        bool star = kind == 2;
        o.text = std::string(star ? "star(" : "box(") + std::to_string(R) + ")";
        if (star) {
          o.items.push_back(OffsetItem{});
          for (int a = 0; a < rank; ++a)
            for (int d = -R; d <= R; ++d) {
              if (d == 0) continue;
              OffsetItem it;
              it.d[a] = d;
              o.items.push_back(it);
            }
        } else {
          int lo1 = rank > 1 ? -R : 0, lo2 = rank > 2 ? -R : 0;
          for (int a = -R; a <= R; ++a)
            for (int b = lo1; b <= -lo1; ++b)
              for (int cc = lo2; cc <= -lo2; ++cc) {
                OffsetItem it;
                it.d[0] = a;
                it.d[1] = b;
                it.d[2] = cc;
                o.items.push_back(it);
              }
        }
      }
      c_.offsets.push_back(o);
    }
  }

  static int reachOf(const OffsetsDecl& o) {
    int r = 0;
    for (auto& it : o.items)
      for (int a = 0; a < 3; ++a) r = std::max(r, std::abs(it.d[a]));
    return r;
  }

  void genDefs() {
    int n = r_.range(0, 3);
    for (int i = 0; i < n; ++i) {
      DefDecl d;
      d.name = pre("d" + std::to_string(i));
      int np = r_.range(1, 2);
      for (int p = 0; p < np; ++p) d.params.push_back(p == 0 ? "f" : "g");
      Scope s;
      s.inDef = true;
      s.defParams = d.params;
      s.budget = r_.range(0, 2);
      defReach_.push_back(s.budget);
      d.body = genReal(s, 3);
      c_.defs.push_back(d);
    }
  }

  // ------------------------------------------------------------ stencils
  void genStencil(const std::string& name, bool inGroup) {
    StencilDecl st;
    st.name = name;
    int nin = r_.range(1, 4);
    int nout = r_.range(1, 3);
    for (int i = 0; i < nin; ++i) st.fields.push_back({"u" + std::to_string(i), Role::In, {}});
    int wbase = inGroup ? static_cast<int>(c_.stencils.size()) * 3 : 0;
    for (int i = 0; i < nout; ++i) st.fields.push_back({"w" + std::to_string(wbase + i), Role::Out, {}});
    bool inout = !inGroup && r_.chance(0.25);
    if (inout) st.fields.push_back({"v0", Role::InOut, {}});
    int np = r_.range(0, 3);
    for (int i = 0; i < np; ++i) st.params.push_back("p" + std::to_string(i));
    if (!inGroup && r_.chance(0.3)) {
      // Time stepping: ping-pong an input with an output or the inout field.
      if (inout && r_.chance(0.6)) st.swaps.push_back({"u0", "v0"});
      else st.swaps.push_back({"u0", "w0"});
      if (nin > 1 && nout > 1 && r_.chance(0.3)) st.swaps.push_back({"w1", "u1"});
    }
    // Shuffle the declaration order of fields a little (outputs are sorted by declaration).
    if (r_.chance(0.3)) std::reverse(st.fields.begin(), st.fields.end());
    Scope s;
    for (auto& f : st.fields) {
      if (f.role == Role::In) s.fields.push_back(f.name);
      if (f.role == Role::InOut) s.center.push_back(f.name);
    }
    s.params = st.params;
    int nlet = r_.range(0, 3);
    for (int i = 0; i < nlet; ++i) {
      Scope ls = s;
      ls.budget = r_.range(0, 2);
      ls.shiftFree = false;
      Let l{"t" + std::to_string(i), genReal(ls, 3)};
      st.lets.push_back(l);
      s.lets.push_back({l.name, ls.budget});
    }
    for (auto& f : st.fields)
      if (f.role != Role::In) {
        Scope es = s;
        es.budget = o_.maxRadius;
        st.eqs.push_back({f.name, genReal(es, o_.maxDepth), ""});
      }
    if (r_.chance(0.5)) std::reverse(st.eqs.begin(), st.eqs.end());
    if (!inGroup) stencilScope_ = s;  // addRegions writes more equations in it
    // Boundary rules.
    for (auto& f : st.fields) {
      if (f.role == Role::Out || !r_.chance(0.45)) continue;
      if (inGroup && ruled_.count(f.name)) continue;
      ruled_.insert(f.name);
      Boundary b;
      b.field = f.name;
      if (c_.rank > 1 && r_.chance(0.3))
        for (int a = 0; a < c_.rank; ++a)
          if (r_.chance(0.5)) b.axes.push_back(a);
      static const std::vector<std::string> rules = {"periodic", "clamp", "mirror", "value"};
      b.rule = r_.pick(rules);
      if (b.rule == "value") b.value = genScalar(st.params, 2);
      st.boundaries.push_back(b);
    }
    c_.stencils.push_back(st);
  }

  // ------------------------------------------------------------ regions
 public:
  // Regions (docs/EXTENSIONS.md) for a share `chance` of the single stencils (groups reject them):
  // 1-2 boxes with small, empty, thin or whole-axis bounds, now and then overlapping or adjacent,
  // and region equations for some outputs, in addition to or instead of their default equation.
  // generateCase calls this after run() with the Rng reseeded to a stream of its own, so the rest
  // of every program (and every program without regions) is what it was before regions existed.
  void addRegions(double chance) {
    if (!c_.group.empty() || c_.stencils.size() != 1 || !r_.chance(chance)) return;
    StencilDecl& st = c_.stencils.front();
    static const std::vector<std::vector<std::string>> nameSets = {{"r0", "r1"}, {"inner", "rim"}, {"ra", "rb"}};
    const auto& names = r_.pick(nameSets);
    // An integer const to spell some bounds with (bounds are compile-time integer expressions).
    if (r_.chance(0.3)) {
      ConstDecl d;
      d.name = pre("kr");
      int v = r_.range(1, 3);
      d.texts.push_back(std::to_string(v));
      d.values.push_back(v);
      c_.consts.push_back(d);
      boundConst_ = &c_.consts.back();
    }
    int n = r_.chance(0.3) ? 2 : 1;
    for (int i = 0; i < n; ++i) {
      RegionDecl g = i == 0 ? genRegion() : secondRegion(st.regions.front());
      g.name = names[i];
      for (int a = 0; a < c_.rank; ++a) {
        g.loText[a] = boundText(g.lo[a]);
        g.hiText[a] = boundText(g.hi[a]);
      }
      st.regions.push_back(g);
    }
    st.regionsLast = r_.chance(0.15);
    std::vector<Equation> defaults = st.eqs;
    std::set<std::string> inRegion;  // outputs with a region equation
    for (const RegionDecl& g : st.regions) {
      if (r_.chance(0.1)) continue;  // a region without equations: a hole in the default part
      std::vector<const Equation*> pick;
      for (const Equation& e : defaults)
        if (r_.chance(0.6)) pick.push_back(&e);
      if (pick.empty()) pick.push_back(&r_.pick(defaults));
      for (const Equation* d : pick) {
        Equation e{d->field, regionValue(*d), g.name};
        st.eqs.insert(st.eqs.begin() + static_cast<long>(r_.next() % (st.eqs.size() + 1)), e);
        inRegion.insert(d->field);
      }
    }
    // Some outputs keep only their region equations (written nowhere else: those points keep what
    // the buffer held, zeros in `stnc run`).
    for (const std::string& f : inRegion)
      if (r_.chance(0.3))
        st.eqs.erase(std::remove_if(st.eqs.begin(), st.eqs.end(),
                                    [&](const Equation& e) { return e.field == f && e.region.empty(); }),
                     st.eqs.end());
    c_.transcendental = c_.transcendental || transcendental_;
  }

  // Lower-rank inputs (docs/EXTENSIONS.md) for a share `chance` of the single stencils of rank >= 2: 1-2
  // `in` fields over a proper subset of the axes (e0(j), e1(i, k), ...), read bare or at small offsets of their
  // own axes and combined into some equations and lets, so shifted let references and region equations move
  // them too (along their own axes only: the flat twin's expansion says where). generateCase calls this after
  // addRegions with a stream of its own, so programs without them are what they were before.
  void addLowerRank(double chance) {
    if (!c_.group.empty() || c_.stencils.size() != 1 || c_.rank < 2 || !r_.chance(chance)) return;
    StencilDecl& st = c_.stencils.front();
    std::vector<FieldDecl> lows;
    const int n = r_.chance(0.4) ? 2 : 1;
    for (int i = 0; i < n; ++i) {
      FieldDecl f{"e" + std::to_string(i), Role::In, {}};
      const int mask = r_.range(1, (1 << c_.rank) - 2);  // a proper, non-empty subset of the axes
      for (int a = 0; a < c_.rank; ++a)
        if (mask & (1 << a)) f.axes.push_back(a);
      lows.push_back(f);
      st.fields.insert(st.fields.begin() + static_cast<long>(r_.next() % (st.fields.size() + 1)), f);
    }
    auto read = [&]() {
      const FieldDecl& f = r_.pick(lows);
      GP e = mk(GK::Acc);
      e->name = f.name;
      e->axes = f.axes;
      if (r_.chance(0.75)) {
        e->idx.resize(f.axes.size());
        for (Idx& x : e->idx) x.c = r_.chance(0.5) ? 0 : r_.range(-2, 2);
      }
      return e;
    };
    auto term = [&]() { return r_.chance(0.3) ? bin(r_.chance(0.5) ? "*" : "+", read(), read()) : read(); };
    static const std::vector<std::string> ops = {"+", "-", "*"};
    bool used = false;
    for (Let& l : st.lets)
      if (r_.chance(0.4)) {
        l.value = bin(r_.pick(ops), l.value, term());
        used = true;
      }
    for (Equation& e : st.eqs)
      if (r_.chance(0.6)) {
        e.value = r_.chance(0.5) ? bin(r_.pick(ops), e.value, term()) : bin(r_.pick(ops), term(), e.value);
        used = true;
      }
    if (!used && !st.eqs.empty()) {
      Equation& e = st.eqs[r_.next() % st.eqs.size()];
      e.value = bin("+", e.value, term());
    }
  }

 private:
  // Along axis a: lo >= 0 from the start, hi <= 0 from the end. Thin and empty ranges are measured
  // against the first run's extent (the other runs change the extents: then they are what they are).
  void genRange(RegionDecl& g, int a, int kind) {
    const int n = static_cast<int>(c_.size[a]);
    if (kind == 0) {  // small
      g.lo[a] = r_.range(0, 3);
      g.hi[a] = -r_.range(0, 3);
    } else if (kind == 1) {  // the whole axis
      g.lo[a] = g.hi[a] = 0;
    } else if (kind == 2) {  // thin: 1-3 points wide
      int w = r_.range(1, 3);
      g.lo[a] = n > w ? r_.range(0, n - w) : 0;
      g.hi[a] = n > w ? -(n - g.lo[a] - w) : 0;
    } else {  // empty: lo at or past the end
      g.hi[a] = -r_.range(0, 2);
      g.lo[a] = std::max(0, n + g.hi[a] + r_.range(0, 1));
    }
  }

  RegionDecl genRegion() {
    RegionDecl g;
    int thin = r_.chance(0.35) ? r_.range(0, c_.rank - 1) : -1;
    int empty = r_.chance(0.06) ? r_.range(0, c_.rank - 1) : -1;
    for (int a = 0; a < c_.rank; ++a)
      genRange(g, a, a == empty ? 3 : a == thin ? 2 : r_.chance(0.2) ? 1 : 0);
    return g;
  }

  // The second region: unrelated, overlapping the first, adjacent to it or just apart along one axis.
  RegionDecl secondRegion(const RegionDecl& f) {
    int rel = r_.range(0, 3);
    if (rel == 0) return genRegion();
    RegionDecl g = f;
    int a = r_.range(0, c_.rank - 1);
    const int n = static_cast<int>(c_.size[a]);
    if (rel == 1) {  // overlapping (unless one of them is empty): the first's box moved a little
      for (int b = 0; b < c_.rank; ++b) {
        g.lo[b] = std::max(0, g.lo[b] + r_.range(-1, 1));
        g.hi[b] = std::min(0, g.hi[b] + r_.range(-1, 1));
      }
      return g;
    }
    // Adjacent (rel 2) or one point apart (rel 3) along a, after the first's end in the first run
    // (before its start when that end is past the extent).
    int end = n + f.hi[a] + (rel == 3 ? 1 : 0);
    if (end < n) {
      g.lo[a] = std::max(0, end);
      g.hi[a] = -r_.range(0, std::max(0, std::min(2, n - g.lo[a] - 1)));
    } else {
      g.lo[a] = 0;  // (the first may start past the end: it is empty, and the second is the whole axis)
      g.hi[a] = std::min(0, -(n - std::max(0, f.lo[a] - (rel == 3 ? 1 : 0))));
    }
    return g;
  }

  // A bound's sugared spelling: mostly the integer, sometimes nothing (0), -0, a sum, or the
  // integer const addRegions declared.
  std::string boundText(int v) {
    int k = r_.range(0, 9);
    int m = std::abs(v);
    std::string sign = v < 0 ? "-" : "";
    if (v == 0 && k < 3) return "";
    if (v == 0 && k == 3) return "-0";
    if (k == 4 && m >= 2) {
      int x = r_.range(1, m - 1);
      return v > 0 ? std::to_string(x) + "+" + std::to_string(m - x) : "-" + std::to_string(x) + "-" + std::to_string(m - x);
    }
    if (k == 5) return sign + "(" + std::to_string(m) + ")";
    if (k >= 6 && boundConst_) {
      int cv = static_cast<int>(boundConst_->values[0]);
      int rest = m - cv;
      if (rest == 0) return sign + boundConst_->name;
      if (rest > 0 && k >= 8)
        return v > 0 ? boundConst_->name + "+" + std::to_string(rest) : "-" + boundConst_->name + "-" + std::to_string(rest);
    }
    return std::to_string(v);
  }

  // A region equation of d's field: a new expression, or one that shares d's (the parts' DAGs then
  // share nodes).
  GP regionValue(const Equation& d) {
    if (r_.chance(0.2)) return bin(r_.chance(0.5) ? "*" : "+", randomLit(r_), d.value);
    Scope es = stencilScope_;
    es.budget = o_.maxRadius;
    return genReal(es, o_.maxDepth);
  }

  void genGroup() {
    int n = r_.range(2, 3);
    for (int i = 0; i < n; ++i) genStencil(pre("s" + std::to_string(i)), true);
    c_.group = pre("g");
  }

  void genRun() {
    long maxPoints = c_.rank == 1 ? 61 : c_.rank == 2 ? 400 : 1000;
    while (true) {
      c_.size.clear();
      long pts = 1;
      for (int a = 0; a < c_.rank; ++a) {
        long n = c_.rank == 1 ? r_.range(0, 30) * 2 + 1 : c_.rank == 2 ? r_.range(0, 9) * 2 + 1 : r_.range(0, 5) * 2 + 1;
        if (r_.chance(0.08)) n += 1;  // an even extent now and then
        c_.size.push_back(n);
        pts *= n;
      }
      if (pts <= maxPoints) break;
    }
    bool swaps = false;
    for (auto& s : c_.stencils) swaps |= !s.swaps.empty();
    if (swaps) c_.steps = r_.range(1, 4);
    else if (r_.chance(0.1)) c_.steps = r_.range(1, 3);
    for (auto& s : c_.stencils)
      for (auto& p : s.params)
        if (!c_.params.count(p)) {
          double v = (r_.range(-150, 150)) / 100.0;
          if (r_.chance(0.3)) v = r_.unit() * 3 - 1.5;
          c_.params[p] = v;
        }
    c_.inputSeed = r_.next();
    c_.interiorInputs = r_.chance(0.5);
    c_.transcendental = transcendental_;
  }

  // ------------------------------------------------------------ expressions
  Idx genIdx(const Scope& s, int budget) {
    Idx x;
    if (budget <= 0) return x;
    // Maybe use a sum index: c + coef*m, keeping |offset| <= budget.
    if (!s.ints.empty() && r_.chance(0.5)) {
      const auto& v = r_.pick(s.ints);
      int m = std::max(std::abs(v.lo), std::abs(v.hi));
      int coef = r_.chance(0.5) ? 1 : -1;
      if (m * 2 <= budget && r_.chance(0.2)) coef *= 2;
      if (std::abs(coef) * m <= budget) {
        x.var = v.name;
        x.coef = coef;
        int rest = budget - std::abs(coef) * m;
        x.c = rest > 0 ? r_.range(-rest, rest) : 0;
        return x;
      }
    }
    x.c = r_.range(-budget, budget);
    return x;
  }

  std::vector<Idx> genShift(const Scope& s, int budget) {
    std::vector<Idx> v;
    for (int a = 0; a < c_.rank; ++a) v.push_back(genIdx(s, budget));
    return v;
  }

  GP leaf(Scope& s) {
    for (int tries = 0; tries < 20; ++tries) {
      int k = r_.range(0, 15);
      switch (k) {
        case 0:
        case 1:
        case 2:
        case 3:
        case 4: {
          if (s.inDef) {
            GP e = mk(GK::DPar);
            e->name = r_.pick(s.defParams);
            if (s.budget > 0 && r_.chance(0.7)) e->idx = genShift(s, s.budget);
            return e;
          }
          if (s.fields.empty()) continue;
          GP e = mk(GK::Acc);
          e->name = r_.pick(s.fields);
          if (!s.offVars.empty() && r_.chance(0.3)) {
            auto& ov = r_.pick(s.offVars);
            e->k = GK::OAcc;
            e->var = ov.first;
            return e;
          }
          if (r_.chance(0.2)) return e;  // bare: offset 0
          e->idx = genShift(s, s.budget);
          return e;
        }
        case 5:
          if (s.center.empty() || !s.shiftFree) continue;
          {
            GP e = mk(GK::Acc);
            e->name = r_.pick(s.center);
            if (r_.chance(0.5)) e->idx.resize(c_.rank);  // v[i,j,k]
            return e;
          }
        case 6:
        case 7: return randomLit(r_);
        case 8:
          if (s.params.empty()) continue;
          {
            GP e = mk(GK::Par);
            e->name = r_.pick(s.params);
            return e;
          }
        case 9: {
          if (c_.consts.empty()) continue;
          const ConstDecl& d = r_.pick(c_.consts);
          if (!d.isArray) {
            GP e = mk(GK::CRef);
            e->name = d.name;
            return e;
          }
          GP e = mk(GK::CArr);
          e->name = d.name;
          int len = static_cast<int>(d.values.size());
          // Index: a constant, or a sum index (+ c) that stays in range.
          for (auto& v : s.ints)
            if (r_.chance(0.6)) {
              for (int cc = -v.lo; cc <= len - 1 - v.hi; ++cc)
                if (v.lo + cc >= 0 && v.hi + cc < len) {
                  e->index.var = v.name;
                  e->index.coef = 1;
                  e->index.c = cc;
                  return e;
                }
            }
          e->index.c = r_.range(0, len - 1);
          return e;
        }
        case 10:
          if (s.ints.empty()) continue;
          {
            GP e = mk(GK::IVal);
            e->var = r_.pick(s.ints).name;
            return e;
          }
        case 11:
          if (s.offVars.empty()) continue;
          {
            GP e = mk(GK::Wt);
            e->var = r_.pick(s.offVars).first;
            return e;
          }
        case 12:
        case 13: {
          std::vector<std::pair<std::string, int>> ok;
          for (auto& l : s.lets)
            if (l.second <= s.budget) ok.push_back(l);
          if (ok.empty() || s.inDef) continue;
          auto& l = r_.pick(ok);
          GP e = mk(GK::LetRef);
          e->name = l.first;
          int rest = s.budget - l.second;
          if (rest > 0 && r_.chance(0.4)) e->idx = genShift(s, rest);
          return e;
        }
        default: break;
      }
    }
    return randomLit(r_);
  }

  // A denominator kept away from zero.
  GP safeDenominator(Scope& s, int depth) {
    int k = r_.range(0, 3);
    if (k == 0) {
      GP l = randomLit(r_);
      if (l->value == 0) l = lit(2.0, "2.0");
      return l;
    }
    GP x = genReal(s, depth - 1);
    if (k == 1) return bin("+", lit(1.0, "1.0"), bin("*", x, x));
    if (k == 2) return bin("+", lit(2.0, "2"), fn("abs", {x}));
    return bin("+", fn("abs", {x}), lit(0.5, "0.5"));
  }

  GP genBool(Scope& s, int depth) {
    int k = r_.range(0, 9);
    if (depth > 1 && k == 0) return bin(r_.chance(0.5) ? "&&" : "||", genBool(s, depth - 1), genBool(s, depth - 1));
    if (depth > 1 && k == 1) return un("!", genBool(s, depth - 1));
    static const std::vector<std::string> cmps = {"<", "<=", ">", ">=", "==", "!="};
    return bin(r_.pick(cmps), genReal(s, depth - 1), genReal(s, depth - 1));
  }

  GP genReal(Scope& s, int depth) {
    GP e = genReal0(s, depth);
    if (r_.chance(0.08)) e->paren = true;
    return e;
  }

  GP genReal0(Scope& s, int depth) {
    if (depth <= 0 || r_.chance(0.15)) return leaf(s);
    int k = r_.range(0, 29);
    if (k <= 7) {
      static const std::vector<std::string> ops = {"+", "+", "-", "*", "*", "+", "-", "*"};
      return bin(ops[k], genReal(s, depth - 1), genReal(s, depth - 1));
    }
    switch (k) {
      case 8: return bin("/", genReal(s, depth - 1), safeDenominator(s, depth));
      case 9: return un("-", genReal(s, depth - 1));
      case 10: return fn(r_.chance(0.5) ? "min" : "max", {genReal(s, depth - 1), genReal(s, depth - 1)});
      case 11: return fn("abs", {genReal(s, depth - 1)});
      case 12: return fn(r_.chance(0.5) ? "floor" : "ceil", {genReal(s, depth - 1)});
      case 13: {
        GP x = genReal(s, depth - 1);
        return fn("sqrt", {r_.chance(0.5) ? fn("abs", {x}) : bin("+", lit(1.0, "1.0"), bin("*", x, x))});
      }
      case 14: return fn("select", {genBool(s, depth), genReal(s, depth - 1), genReal(s, depth - 1)});
      case 15: {
        if (!o_.transcendental) break;
        transcendental_ = true;
        GP x = genReal(s, depth - 1);
        int t = r_.range(0, 4);
        if (t == 0) return fn("exp", {bin("/", x, bin("+", lit(1.0, "1.0"), fn("abs", {x})))});
        if (t == 1) return fn("log", {bin("+", lit(1.0, "1.0"), bin("*", x, x))});
        if (t == 2) {
          static const std::vector<std::string> ex = {"0.5", "2.0", "1.5", "3", "0.25"};
          std::string et = r_.pick(ex);
          return fn("pow", {bin("+", lit(1.0, "1"), fn("abs", {x})), lit(std::strtod(et.c_str(), nullptr), et)});
        }
        return fn(t == 3 ? "sin" : "cos", {x});
      }
      case 16:
      case 17: {
        if (s.inDef) {
          // Calls between defs: only to earlier defs (no recursion).
          if (curDef() <= 0) break;
          const DefDecl& d = c_.defs[r_.range(0, curDef() - 1)];
          return callDef(s, d, defReach_[&d - &c_.defs[0]], depth);
        }
        if (c_.defs.empty()) break;
        size_t i = r_.next() % c_.defs.size();
        return callDef(s, c_.defs[i], defReach_[i], depth);
      }
      case 18:
      case 19: {  // sum over a range
        static const std::vector<std::string> names = {"m", "n", "q"};
        std::string var = names[s.ints.size() % names.size()];
        if (s.ints.size() >= 2) break;
        GP e = mk(GK::SumR);
        e->var = var;
        e->lo = r_.range(-1, 1);
        e->hi = e->lo + r_.range(-1, 3);
        if (r_.chance(0.8) && e->hi < e->lo) e->hi = e->lo;
        Scope inner = s;
        inner.ints.push_back({var, e->lo, e->hi});
        e->args = {genReal(inner, depth - 1)};
        return e;
      }
      case 20: {  // sum over offsets
        if (c_.offsets.empty() || s.inDef || !s.offVars.empty()) break;
        const OffsetsDecl& o = r_.pick(c_.offsets);
        int reach = reachOf(o);
        if (reach > s.budget) break;
        GP e = mk(GK::SumO);
        e->var = "o";
        e->name = o.name;
        Scope inner = s;
        inner.offVars.push_back({"o", &o});
        inner.budget = s.budget - reach;
        e->args = {genReal(inner, depth - 1)};
        return e;
      }
      case 21: {  // apply
        if (c_.offsets.empty() || s.inDef) break;
        const OffsetsDecl& o = r_.pick(c_.offsets);
        int reach = reachOf(o);
        if (reach > s.budget) break;
        GP e = mk(GK::Apply);
        e->name = o.name;
        Scope inner = s;
        inner.budget = s.budget - reach;
        inner.shiftFree = false;
        e->args = {genReal(inner, depth - 1)};
        return e;
      }
      default: break;
    }
    return bin(r_.chance(0.5) ? "+" : "*", genReal(s, depth - 1), genReal(s, depth - 1));
  }

  int curDef() const { return static_cast<int>(c_.defs.size()); }

  GP callDef(Scope& s, const DefDecl& d, int reach, int depth) {
    if (reach > s.budget) return leaf(s);
    GP e = mk(GK::DefCall);
    e->name = d.name;
    Scope inner = s;
    inner.budget = s.budget - reach;
    inner.shiftFree = false;
    for (size_t i = 0; i < d.params.size(); ++i) e->args.push_back(genReal(inner, std::max(0, depth - 2)));
    return e;
  }

  // Boundary values: consts and params only.
  GP genScalar(const std::vector<std::string>& params, int depth) {
    if (depth <= 0 || r_.chance(0.3)) {
      if (!params.empty() && r_.chance(0.4)) {
        GP e = mk(GK::Par);
        e->name = r_.pick(params);
        return e;
      }
      for (auto& d : c_.consts)
        if (!d.isArray && r_.chance(0.3)) {
          GP e = mk(GK::CRef);
          e->name = d.name;
          return e;
        }
      return randomLit(r_);
    }
    int k = r_.range(0, 4);
    if (k == 0) return un("-", genScalar(params, depth - 1));
    if (k == 1) return fn("max", {genScalar(params, depth - 1), genScalar(params, depth - 1)});
    static const std::vector<std::string> ops = {"+", "-", "*"};
    return bin(r_.pick(ops), genScalar(params, depth - 1), genScalar(params, depth - 1));
  }

  Case& c_;
  Rng& r_;
  const GenOptions& o_;
  std::vector<int> defReach_;
  Scope stencilScope_;                     // the single stencil's (not a group's)
  const ConstDecl* boundConst_ = nullptr;  // an integer const for region bounds
  std::set<std::string> ruled_;
  bool transcendental_ = false;
};

// ---------------------------------------------------------------- printing (sugared)
int precOf(const GExpr& e) {
  switch (e.k) {
    case GK::Bin:
      if (e.op == "||") return 1;
      if (e.op == "&&") return 2;
      if (e.op == "+" || e.op == "-") return 4;
      if (e.op == "*" || e.op == "/") return 5;
      return 3;  // comparisons
    case GK::Un: return 6;
    case GK::SumR:
    case GK::SumO: return 6;
    default: return 7;
  }
}

// The axis name of entry m of an index list: axes holds a lower-rank field's axes (empty: entry m is axis m).
const std::string& entryAxis(const Case& c, const std::vector<int>& axes, size_t m) {
  return c.axes[axes.empty() ? m : static_cast<size_t>(axes[m])];
}

class Printer {
 public:
  Printer(const Case& c) : c_(c) {}

  std::string idxText(const std::string& axis, const Idx& x) const {
    std::string s = axis;
    if (!x.var.empty() && x.coef != 0) {
      s += x.coef > 0 ? "+" : "-";
      int a = std::abs(x.coef);
      s += (a == 1 ? "" : std::to_string(a) + "*") + x.var;
    }
    if (x.c != 0) s += (x.c > 0 ? "+" : "-") + std::to_string(std::abs(x.c));
    return s;
  }

  // axes: the axes the entries index (a lower-rank field's); empty: every axis.
  std::string shiftText(const std::vector<Idx>& idx, const std::vector<int>& axes = {}) const {
    std::string s = "[";
    for (size_t m = 0; m < idx.size(); ++m) s += (m ? "," : "") + idxText(entryAxis(c_, axes, m), idx[m]);
    return s + "]";
  }

  // followedByMul: '*' or '/' tokens of the enclosing product follow this text when printed
  // without parentheses (a sum prefix would swallow them).
  std::string print(const GExpr& e, int minPrec, bool followedByMul) const {
    int p = precOf(e);
    bool paren = p < minPrec || e.paren || ((e.k == GK::SumR || e.k == GK::SumO) && followedByMul);
    if (paren) followedByMul = false;
    std::string s = body(e, followedByMul);
    return paren ? "(" + s + ")" : s;
  }

  std::string body(const GExpr& e, bool fm) const {
    switch (e.k) {
      case GK::Lit: return e.text;
      case GK::CRef:
      case GK::Par: return e.name;
      case GK::CArr: {
        std::string ix;
        if (!e.index.var.empty()) {
          ix = e.index.var;
          if (e.index.c) ix += (e.index.c > 0 ? "+" : "-") + std::to_string(std::abs(e.index.c));
        } else {
          ix = std::to_string(e.index.c);
        }
        return e.name + "[" + ix + "]";
      }
      case GK::Acc:
      case GK::LetRef:
      case GK::DPar: return e.idx.empty() ? e.name : e.name + shiftText(e.idx, e.axes);
      case GK::OAcc: return e.name + "[" + e.var + "]";
      case GK::IVal: return e.var;
      case GK::Wt: return "weight(" + e.var + ")";
      case GK::Un: return e.op + print(*e.args[0], 6, fm);
      case GK::Bin: {
        int p = precOf(e);
        if (p == 3) return print(*e.args[0], 4, false) + " " + e.op + " " + print(*e.args[1], 4, fm);
        return print(*e.args[0], p, p == 5) + " " + e.op + " " + print(*e.args[1], p + 1, fm);
      }
      case GK::Fn:
      case GK::DefCall: {
        std::string s = e.name + "(";
        for (size_t i = 0; i < e.args.size(); ++i) s += (i ? ", " : "") + print(*e.args[i], 0, false);
        return s + ")";
      }
      case GK::SumR:
        return "sum(" + e.var + " in " + std::to_string(e.lo) + ".." + std::to_string(e.hi) + ") " +
               print(*e.args[0], 5, false);
      case GK::SumO: return "sum(" + e.var + " in " + e.name + ") " + print(*e.args[0], 5, false);
      case GK::Apply: return "apply(" + e.name + ", " + print(*e.args[0], 0, false) + ")";
    }
    return "?";
  }

 private:
  const Case& c_;
};

const char* roleText(Role r) { return r == Role::In ? "in" : r == Role::Out ? "out" : "inout"; }

std::string stencilHeader(const Case& c, const StencilDecl& s, const std::string& name) {
  std::string t = "stencil " + name + "(";
  for (int a = 0; a < c.rank; ++a) t += (a ? ", " : "") + c.axes[a];
  t += ")";
  if (c.f32) t += " : f32";
  else if (c.index % 2) t += " : f64";
  t += " {\n";
  for (Role r : {Role::In, Role::Out, Role::InOut}) {
    std::string names;
    for (auto& f : s.fields) {
      if (f.role != r) continue;
      names += (names.empty() ? "" : ", ") + f.name;
      for (size_t m = 0; m < f.axes.size(); ++m) names += (m ? ", " : "(") + c.axes[static_cast<size_t>(f.axes[m])] + (m + 1 == f.axes.size() ? ")" : "");
    }
    if (!names.empty()) t += std::string("  ") + roleText(r) + " " + names + ";\n";
  }
  if (!s.params.empty()) {
    t += "  param ";
    for (size_t i = 0; i < s.params.size(); ++i) t += (i ? ", " : "") + s.params[i];
    t += ";\n";
  }
  return t;
}

// ---------------------------------------------------------------- expansion (flat form)
struct Env {
  std::map<std::string, int> ints;
  std::map<std::string, OffsetItem> offs;
  struct DP {
    const GExpr* arg;
    const Env* env;
  };
  std::map<std::string, DP> dparams;
  const Env* parent = nullptr;
  const int* findInt(const std::string& n) const {
    for (const Env* e = this; e; e = e->parent)
      if (auto it = e->ints.find(n); it != e->ints.end()) return &it->second;
    return nullptr;
  }
  const OffsetItem* findOff(const std::string& n) const {
    for (const Env* e = this; e; e = e->parent)
      if (auto it = e->offs.find(n); it != e->offs.end()) return &it->second;
    return nullptr;
  }
  const DP* findParam(const std::string& n) const {
    for (const Env* e = this; e; e = e->parent)
      if (auto it = e->dparams.find(n); it != e->dparams.end()) return &it->second;
    return nullptr;
  }
};

struct Shift {
  int d[3] = {0, 0, 0};
};

class Expander {
 public:
  Expander(const Case& c, const StencilDecl& s) : c_(c), s_(s) {}

  int idxVal(const Idx& x, const Env* env) const {
    int v = x.c;
    if (!x.var.empty() && x.coef) {
      const int* m = env ? env->findInt(x.var) : nullptr;
      if (m) v += x.coef * *m;
      else unresolved_ = true;
    }
    return v;
  }

  // A name the expansion could not resolve (the shrinker moved a sum's body out of the sum, or
  // removed a declaration): printFlat then prints a token that does not compile.
  bool unresolved() const { return unresolved_; }

  Shift addIdx(Shift sh, const std::vector<Idx>& idx, const Env* env) const {
    for (size_t a = 0; a < idx.size(); ++a) sh.d[a] += idxVal(idx[a], env);
    return sh;
  }

  GP acc(GP acc0, GP term) const { return acc0 ? bin("+", acc0, term) : term; }

  GP expand(const GExpr& e, const Env* env, Shift sh) const {
    switch (e.k) {
      case GK::Lit: return litNum(e.value);
      case GK::CRef: {
        const ConstDecl* d = constDecl(e.name);
        return d ? litNum(d->values[0]) : nullptr;
      }
      case GK::CArr: {
        const ConstDecl* d = constDecl(e.name);
        int i = idxVal(e.index, env);
        return d && i >= 0 && i < static_cast<int>(d->values.size()) ? litNum(d->values[static_cast<size_t>(i)]) : nullptr;
      }
      case GK::Par: {
        GP p = mk(GK::Par);
        p->name = e.name;
        return p;
      }
      case GK::Acc: {
        GP a = mk(GK::Acc);
        a->name = e.name;
        if (!e.axes.empty()) {  // a lower-rank field: the shift and its own offsets along its own axes only
          a->axes = e.axes;
          a->idx.resize(e.axes.size());
          for (size_t m = 0; m < e.axes.size(); ++m)
            a->idx[m].c = sh.d[e.axes[m]] + (e.idx.empty() ? 0 : idxVal(e.idx[m], env));
          return a;
        }
        Shift t = addIdx(sh, e.idx, env);
        a->idx.resize(c_.rank);
        for (int i = 0; i < c_.rank; ++i) a->idx[i].c = t.d[i];
        return a;
      }
      case GK::OAcc: {
        const OffsetItem* it = env ? env->findOff(e.var) : nullptr;
        if (!it) return nullptr;
        GP a = mk(GK::Acc);
        a->name = e.name;
        a->idx.resize(c_.rank);
        for (int i = 0; i < c_.rank; ++i) a->idx[i].c = it->d[i] + sh.d[i];
        return a;
      }
      case GK::IVal: {
        const int* m = env ? env->findInt(e.var) : nullptr;
        return m ? litNum(*m) : nullptr;
      }
      case GK::Wt: {
        const OffsetItem* it = env ? env->findOff(e.var) : nullptr;
        return it ? litNum(it->weight) : nullptr;
      }
      case GK::Un: return un(e.op, expand(*e.args[0], env, sh));
      case GK::Bin: return bin(e.op, expand(*e.args[0], env, sh), expand(*e.args[1], env, sh));
      case GK::Fn: {
        std::vector<GP> a;
        for (auto& x : e.args) a.push_back(expand(*x, env, sh));
        return fn(e.name, a);
      }
      case GK::LetRef: {
        for (auto& l : s_.lets)
          if (l.name == e.name) return expand(*l.value, nullptr, addIdx(sh, e.idx, env));
        return nullptr;
      }
      case GK::DefCall: {
        const DefDecl* d = nullptr;
        for (auto& x : c_.defs)
          if (x.name == e.name) d = &x;
        if (!d) return nullptr;
        Env inner;
        for (size_t i = 0; i < d->params.size(); ++i) inner.dparams[d->params[i]] = {e.args[i].get(), env};
        return expand(*d->body, &inner, sh);
      }
      case GK::DPar: {
        const Env::DP* b = env ? env->findParam(e.name) : nullptr;
        if (!b) return nullptr;
        return expand(*b->arg, b->env, addIdx(sh, e.idx, env));
      }
      case GK::SumR: {
        GP a;
        for (int m = e.lo; m <= e.hi; ++m) {
          Env inner;
          inner.parent = env;
          inner.ints[e.var] = m;
          a = acc(a, expand(*e.args[0], &inner, sh));
        }
        return a ? a : litNum(0.0);
      }
      case GK::SumO: {
        const OffsetsDecl* o = offsetsDecl(e.name);
        if (!o) return nullptr;
        GP a;
        for (const OffsetItem& it : o->items) {
          Env inner;
          inner.parent = env;
          inner.offs[e.var] = it;
          a = acc(a, expand(*e.args[0], &inner, sh));
        }
        return a ? a : litNum(0.0);
      }
      case GK::Apply: {
        const OffsetsDecl* o = offsetsDecl(e.name);
        if (!o) return nullptr;
        GP a;
        for (const OffsetItem& it : o->items) {
          Shift t = sh;
          for (int i = 0; i < 3; ++i) t.d[i] += it.d[i];
          GP v = expand(*e.args[0], env, t);
          a = acc(a, it.weight == 1.0 ? v : bin("*", litNum(it.weight), v));
        }
        return a ? a : litNum(0.0);
      }
    }
    return nullptr;
  }

  // nullptr where the shrinker removed a declaration that is still used (see printFlatExpr).
  const ConstDecl* constDecl(const std::string& n) const {
    for (auto& d : c_.consts)
      if (d.name == n) return &d;
    return nullptr;
  }
  const OffsetsDecl* offsetsDecl(const std::string& n) const {
    for (auto& d : c_.offsets)
      if (d.name == n) return &d;
    return nullptr;
  }

 private:
  const Case& c_;
  const StencilDecl& s_;
  mutable bool unresolved_ = false;
};

std::string printFlatExpr(const Case& c, const GExpr& e);
// Expander::expand returns nullptr for a reference it cannot resolve (the shrinker may remove a
// let, const or def that is still used): print a token that makes the flat twin fail to compile,
// so the shrinker drops that simplification (a null dereference before: found by UBSan).
std::string printFlatExpr(const Case& c, const GP& e) { return e ? printFlatExpr(c, *e) : "?unresolved?"; }

std::string printFlatExpr(const Case& c, const GExpr& e) {
  switch (e.k) {
    case GK::Lit:
      if (std::signbit(e.value)) return "(-" + exactText(-e.value) + ")";
      return exactText(e.value);
    case GK::Par: return e.name;
    case GK::Acc: {
      std::string s = e.name + "[";
      for (size_t m = 0; m < e.idx.size(); ++m) {
        int d = e.idx[m].c;
        const std::string& ax = entryAxis(c, e.axes, m);
        s += (m ? "," : "") + ax + (d == 0 ? "" : (d > 0 ? "+" : "-") + std::to_string(std::abs(d)));
      }
      return s + "]";
    }
    case GK::Un: return "(" + e.op + printFlatExpr(c, e.args[0]) + ")";
    case GK::Bin: return "(" + printFlatExpr(c, e.args[0]) + " " + e.op + " " + printFlatExpr(c, e.args[1]) + ")";
    case GK::Fn: {
      std::string s = e.name + "(";
      for (size_t i = 0; i < e.args.size(); ++i) s += (i ? ", " : "") + printFlatExpr(c, e.args[i]);
      return s + ")";
    }
    default: return "?";
  }
}

std::string equationLhs(const Equation& e) { return e.region.empty() ? e.field : e.field + " @ " + e.region; }

// The region statements of s: as generated (flat: false) or with every bound an integer (flat: true).
std::string regionsText(const Case& c, const StencilDecl& s, bool flat) {
  std::string t;
  for (const RegionDecl& g : s.regions) {
    t += "  region " + g.name + " = [";
    for (int a = 0; a < c.rank; ++a) {
      t += a ? ", " : "";
      t += flat ? std::to_string(g.lo[a]) + ":" + std::to_string(g.hi[a]) : g.loText[a] + ":" + g.hiText[a];
    }
    t += "];\n";
  }
  return t;
}

}  // namespace

Case generateCase(uint64_t seed, int index, const GenOptions& o) {
  Case c;
  c.seed = seed;
  c.index = index;
  Rng r(mixSeed(seed, static_cast<uint64_t>(index)));
  Generator g(c, r, o);
  g.run();
  // Regions from a stream of their own (see addRegions).
  r = Rng(mixSeed(seed ^ 0x5E610A5EED5ull, static_cast<uint64_t>(index)));
  g.addRegions(o.regionChance);
  // Lower-rank inputs from another stream (see addLowerRank).
  r = Rng(mixSeed(seed ^ 0x10E7FA11D5ull, static_cast<uint64_t>(index)));
  g.addLowerRank(o.lowerChance);
  return c;
}

std::string printCase(const Case& c) {
  Printer pr(c);
  std::ostringstream g, t;
  g << "// case " << c.index << " of seed " << c.seed << "\n";
  for (auto& d : c.consts) {
    g << "const " << d.name << " = ";
    if (d.isArray) {
      g << "[";
      for (size_t i = 0; i < d.texts.size(); ++i) g << (i ? ", " : "") << d.texts[i];
      g << "]";
    } else {
      g << d.texts[0];
    }
    g << ";\n";
  }
  for (auto& o : c.offsets) g << "offsets " << o.name << " = " << o.text << ";\n";
  for (auto& d : c.defs) {
    g << "def " << d.name << "(";
    for (size_t i = 0; i < d.params.size(); ++i) g << (i ? ", " : "") << d.params[i];
    g << ") = " << pr.print(*d.body, 0, false) << ";\n";
  }
  for (auto& s : c.stencils) {
    t << stencilHeader(c, s, s.name);
    for (auto& b : s.boundaries) {
      t << "  boundary " << b.field;
      if (!b.axes.empty()) {
        t << "(";
        for (size_t i = 0; i < b.axes.size(); ++i) t << (i ? ", " : "") << c.axes[b.axes[i]];
        t << ")";
      }
      t << " = " << b.rule;
      if (b.value) t << "(" << pr.print(*b.value, 0, false) << ")";
      t << ";\n";
    }
    for (auto& sw : s.swaps) t << "  swap " << sw.first << ", " << sw.second << ";\n";
    for (auto& l : s.lets) t << "  let " << l.name << " = " << pr.print(*l.value, 0, false) << ";\n";
    if (!s.regionsLast) t << regionsText(c, s, false);
    for (auto& e : s.eqs) t << "  " << equationLhs(e) << " = " << pr.print(*e.value, 0, false) << ";\n";
    if (s.regionsLast) t << regionsText(c, s, false);
    t << "}\n";
  }
  if (!c.group.empty()) {
    t << "group " << c.group << " = ";
    for (size_t i = 0; i < c.stencils.size(); ++i) t << (i ? ", " : "") << c.stencils[i].name;
    t << ";\n";
  }
  // Declarations may come in any order: put the globals after the stencils now and then.
  if (c.index % 5 == 3) return t.str() + g.str();
  return g.str() + t.str();
}

std::string printFlat(const Case& c, const std::string& suffix) {
  std::ostringstream t;
  for (auto& s : c.stencils) {
    Expander ex(c, s);
    t << stencilHeader(c, s, s.name + suffix);
    t << regionsText(c, s, true);
    for (auto& e : s.eqs) {
      GP v = ex.expand(*e.value, nullptr, {});
      t << "  " << equationLhs(e) << " = " << (ex.unresolved() ? "?unresolved?" : printFlatExpr(c, v)) << ";\n";
    }
    t << "}\n";
  }
  return t.str();
}

std::string printRun(const Case& c) {
  std::ostringstream s;
  s << "kernel " << c.kernelName() << " size";
  for (long n : c.size) s << " " << n;
  s << " steps " << c.steps << " inputseed " << c.inputSeed << " interior " << (c.interiorInputs ? 1 : 0) << " type "
    << (c.f32 ? "f32" : "f64") << " transcendental " << (c.transcendental ? 1 : 0);
  char buf[64];
  for (auto& [k, v] : c.params) {
    std::snprintf(buf, sizeof buf, "%.17g", v);
    s << " param " << k << " " << buf;
  }
  return s.str();
}

std::string describeRegions(const Case& c) {
  std::string t;
  for (const StencilDecl& s : c.stencils)
    for (const RegionDecl& g : s.regions) {
      t += (t.empty() ? "" : "; ") + g.name + " [";
      for (int a = 0; a < c.rank; ++a) t += (a ? ", " : "") + std::to_string(g.lo[a]) + ":" + std::to_string(g.hi[a]);
      std::string fields;
      for (const Equation& e : s.eqs)
        if (e.region == g.name) fields += (fields.empty() ? "" : ", ") + e.field;
      t += "] (" + (fields.empty() ? std::string("no equations") : fields) + ")";
    }
  return t;
}

void collectNodes(GP& root, std::vector<GP*>& out) {
  if (!root) return;
  out.push_back(&root);
  for (GP& a : root->args) collectNodes(a, out);
}

std::vector<GP*> exprSlots(Case& c) {
  std::vector<GP*> out;
  for (auto& s : c.stencils) {
    for (auto& e : s.eqs) out.push_back(&e.value);
    for (auto& l : s.lets) out.push_back(&l.value);
  }
  for (auto& d : c.defs) out.push_back(&d.body);
  return out;
}

}  // namespace stnrand
