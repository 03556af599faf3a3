// Random .stn program generator for the differential tests (tests/random).
//
// A case is generated deterministically from (seed, index): a few global declarations (consts,
// const arrays, defs with shifted parameters, offsets shapes) and one stencil, or a group of 2-3
// stencils, plus the parameters of a run (extents, steps, params, input seed). A single stencil
// may declare regions and region equations (GenOptions::regionChance) and lower-rank inputs read in
// its equations and lets (GenOptions::lowerChance), each drawn from a random stream of its own, so the
// rest of the case does not depend on them.
//
// Every expression is kept as a small IR (GExpr) that can be printed two ways:
//   - sugared: as generated, with defs, sums, apply, lets, consts and minimal parentheses
//     (so the parser's precedence and associativity are exercised);
//   - flat:    expanded by the generator itself (defs substituted with their shifted arguments,
//     sums and offsets unrolled left to right, consts replaced by their exact values), fully
//     parenthesised.
// The compiler must lower both to the same DAG node (hash-consing makes that a NodeId equality):
// that checks the front end (parser, lowering of sugar) independently of the interpreter, which in
// turn checks the code generators.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace stnrand {

// Deterministic PRNG (splitmix64): identical sequences on every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int range(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<uint64_t>(hi - lo + 1)); }  // inclusive
  bool chance(double p) { return unit() < p; }
  double unit() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  template <typename T>
  const T& pick(const std::vector<T>& v) { return v[next() % v.size()]; }

 private:
  uint64_t s_;
};

uint64_t mixSeed(uint64_t seed, uint64_t index);

// An index-entry offset: c + coef * var (var empty: constant).
struct Idx {
  int c = 0;
  std::string var;
  int coef = 0;
};

struct GExpr;
using GP = std::shared_ptr<GExpr>;

enum class GK {
  Lit,      // value, text
  CRef,     // global scalar const: name
  CArr,     // global const array: name[idx]
  Par,      // stencil param: name
  Acc,      // field access: name[idx...] (bare when all zero and bareOk)
  OAcc,     // field at an offset variable: name[var]
  IVal,     // sum index as a value: var
  Wt,       // weight(var)
  Un,       // op ("-" or "!") a
  Bin,      // a op b
  Fn,       // name(args): intrinsics and select
  LetRef,   // name or name[idx...]
  DefCall,  // name(args)
  DPar,     // def parameter: name or name[idx...]
  SumR,     // sum(var in lo..hi) body
  SumO,     // sum(var in offsets) body
  Apply,    // apply(offsets, body)
};

struct GExpr {
  GK k;
  std::string name, text, var;
  std::string op;
  double value = 0;
  Idx index;                 // CArr index
  std::vector<Idx> idx;      // Acc, LetRef, DPar: one entry per axis (empty: bare)
  std::vector<int> axes;     // Acc of a lower-rank field: the (ascending) axes its idx entries index
  int lo = 0, hi = 0;        // SumR
  std::vector<GP> args;      // operands / call arguments / body (args[0])
  bool paren = false;        // print with redundant parentheses (sugared form)
};

struct OffsetItem {
  int d[3] = {0, 0, 0};
  double weight = 1.0;
};

struct ConstDecl {
  std::string name;
  std::vector<std::string> texts;  // one element = scalar const (unless isArray)
  std::vector<double> values;
  bool isArray = false;
};
struct DefDecl {
  std::string name;
  std::vector<std::string> params;
  GP body;
};
struct OffsetsDecl {
  std::string name;
  std::string text;  // the right-hand side as written
  std::vector<OffsetItem> items;
};

enum class Role { In, Out, InOut };
struct FieldDecl {
  std::string name;
  Role role;
  std::vector<int> axes;  // a lower-rank input (`in e0(j);`, docs/EXTENSIONS.md): its axes, ascending; empty: all
};
struct Boundary {
  std::string field;
  std::vector<int> axes;  // empty: all
  std::string rule;       // periodic | clamp | mirror | value
  GP value;               // value(EXPR)
};
struct Let {
  std::string name;
  GP value;
};
struct Equation {
  std::string field;
  GP value;
  std::string region;  // empty: the default equation (outside every region); else `field @ region = ...`
};
// region NAME = [lo:hi, ...]; (docs/EXTENSIONS.md): along axis a the points lo[a] <= x < n_a + hi[a].
struct RegionDecl {
  std::string name;
  int lo[3] = {0, 0, 0};  // >= 0
  int hi[3] = {0, 0, 0};  // <= 0
  // The sugared spelling of each bound (empty: nothing between the brackets and the colon, i.e. 0;
  // "-0", "1+1", a const's name...); the flat form prints the integers.
  std::string loText[3], hiText[3];
};

struct StencilDecl {
  std::string name;
  std::vector<FieldDecl> fields;
  std::vector<std::string> params;
  std::vector<Let> lets;
  std::vector<Equation> eqs;
  std::vector<RegionDecl> regions;  // never in members of a group (sema rejects them there)
  bool regionsLast = false;         // sugared form: region statements after the equations
  std::vector<std::pair<std::string, std::string>> swaps;
  std::vector<Boundary> boundaries;
};

struct Case {
  uint64_t seed = 0;
  int index = 0;
  std::string prefix;             // unique name prefix of this case's declarations
  int rank = 3;
  std::vector<std::string> axes;  // rank names
  bool f32 = false;
  std::vector<ConstDecl> consts;
  std::vector<DefDecl> defs;
  std::vector<OffsetsDecl> offsets;
  std::vector<StencilDecl> stencils;
  std::string group;  // non-empty: the case runs this group of all stencils
  // Run parameters.
  std::vector<long> size;
  long steps = 0;
  std::map<std::string, double> params;  // param name -> value (all stencils)
  uint64_t inputSeed = 0;
  bool interiorInputs = false;  // pass interior-shaped inputs for fields whose halo is ruled
  bool transcendental = false;  // exp/log/pow/sin/cos generated

  std::string kernelName() const { return group.empty() ? stencils.front().name : group; }
};

struct GenOptions {
  int maxDepth = 4;
  int maxRadius = 4;
  bool transcendental = true;
  double regionChance = 0.3;   // single stencils that get regions (Generator::addRegions)
  double lowerChance = 0.3;    // single stencils of rank >= 2 that get lower-rank inputs (Generator::addLowerRank)
};

Case generateCase(uint64_t seed, int index, const GenOptions& o = {});

// The declarations of the case as .stn text (sugared).
std::string printCase(const Case& c);
// The stencils of the case fully expanded, renamed NAME + suffix (no globals needed).
std::string printFlat(const Case& c, const std::string& suffix);
// The run parameters as one line of text, and back (for regression files).
std::string printRun(const Case& c);
// The regions of the case's stencil and the outputs each region writes, as one line ("" without regions):
// `r0 [1:-2, 0:0] (w0, v0); r1 [3:0, 2:-1] (no equations)` — for reports.
std::string describeRegions(const Case& c);

// Helpers used by the shrinker: every expression slot of the case (equations, lets, boundary
// values, def bodies), in a fixed order.
std::vector<GP*> exprSlots(Case& c);
void collectNodes(GP& root, std::vector<GP*>& out);
GP lit(double v, const std::string& text);

}  // namespace stnrand
