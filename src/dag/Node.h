// The typed DAG: immutable nodes, hash-consed by dag::Context, identified by dense ids that are
// also a topological order (operands are always created before their users).
//
// One X-macro list of operations drives the enum, the printers and the code generators.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace stnc::dag {

using NodeId = uint32_t;
constexpr NodeId kNoNode = ~0u;
using Symbol = uint32_t;  // an interned name (field or param)

// X(name, spelling, arity, result is bool, operands are bool)
#define STNC_DAG_OPS(X)              \
  X(Neg, "neg", 1, false, false)     \
  X(Not, "not", 1, true, true)       \
  X(Add, "add", 2, false, false)     \
  X(Sub, "sub", 2, false, false)     \
  X(Mul, "mul", 2, false, false)     \
  X(Div, "div", 2, false, false)     \
  X(Lt, "lt", 2, true, false)        \
  X(Le, "le", 2, true, false)        \
  X(Gt, "gt", 2, true, false)        \
  X(Ge, "ge", 2, true, false)        \
  X(Eq, "eq", 2, true, false)        \
  X(Ne, "ne", 2, true, false)        \
  X(And, "and", 2, true, true)       \
  X(Or, "or", 2, true, true)         \
  X(Min, "min", 2, false, false)     \
  X(Max, "max", 2, false, false)     \
  X(Pow, "pow", 2, false, false)     \
  X(Abs, "abs", 1, false, false)     \
  X(Sqrt, "sqrt", 1, false, false)   \
  X(Exp, "exp", 1, false, false)     \
  X(Log, "log", 1, false, false)     \
  X(Sin, "sin", 1, false, false)     \
  X(Cos, "cos", 1, false, false)     \
  X(Floor, "floor", 1, false, false) \
  X(Ceil, "ceil", 1, false, false)   \
  X(Fma, "fma", 3, false, false)

enum class Op : uint8_t {
#define X(name, spelling, arity, rbool, abool) name,
  STNC_DAG_OPS(X)
#undef X
};

struct OpInfo {
  const char* spelling;
  int arity;
  bool resultBool;
  bool operandsBool;
};
const OpInfo& opInfo(Op op);
// Looks up an intrinsic function name (abs, min, ...); false when it is not one.
bool intrinsicOp(const std::string& name, Op& op);
// The intrinsic functions' names (abs, min, ..., ceil), for "did you mean" notes.
std::vector<std::string> intrinsicNames();

enum class NodeKind : uint8_t {
  Const,   // value
  Param,   // sym
  Access,  // sym at offset
  Apply,   // op(a[, b])
  Select,  // a ? b : c
  Broadcast,  // a lower-rank input field (sym, over the kernel axes in `axes`) at offset, the same along the others
};

enum class Type : uint8_t { Real, Bool };

struct Offset {
  std::array<int, 3> d{0, 0, 0};
  bool isZero() const { return d[0] == 0 && d[1] == 0 && d[2] == 0; }
  Offset operator+(const Offset& o) const { return {{d[0] + o.d[0], d[1] + o.d[1], d[2] + o.d[2]}}; }
  bool operator==(const Offset& o) const { return d == o.d; }
  bool operator!=(const Offset& o) const { return d != o.d; }
  bool operator<(const Offset& o) const { return d < o.d; }
};

// o with the entries along the axes outside `axes` (bit a = kernel axis a) set to 0: how a shift moves a
// lower-rank field's access (it is the same value along the axes it lacks).
inline Offset maskOffset(Offset o, unsigned axes) {
  for (int a = 0; a < 3; ++a)
    if (!(axes & (1u << a))) o.d[a] = 0;
  return o;
}

struct Node {
  NodeKind kind;
  Type type;
  Op op = Op::Neg;                          // Apply
  std::array<NodeId, 3> operands{kNoNode, kNoNode, kNoNode};
  double value = 0;                         // Const
  Symbol sym = 0;                           // Param, Access, Broadcast
  Offset offset;                            // Access, Broadcast (0 along the axes a Broadcast's field lacks)
  uint8_t axes = 0;                         // Broadcast: bit a set = the field varies along kernel axis a
  bool isLoad() const { return kind == NodeKind::Access || kind == NodeKind::Broadcast; }
  int operandCount() const {
    switch (kind) {
      case NodeKind::Const:
      case NodeKind::Param:
      case NodeKind::Access:
      case NodeKind::Broadcast: return 0;
      case NodeKind::Apply: return opInfo(op).arity;
      case NodeKind::Select: return 3;
    }
    return 0;
  }
};

}  // namespace stnc::dag
