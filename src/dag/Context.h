// dag::Context: the only place nodes are created. It hash-conses (one node per distinct
// (kind, type, op, operands, payload)), so NodeId equality is structural equality, and it folds
// constant operations exactly in float64 — never through float32, whatever the stencil's type.
// It does not reassociate: (a + b) + c stays as written, so term order is the source order.
#pragma once
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "dag/Node.h"

namespace stnc::dag {

class Context {
 public:
  NodeId constant(double v);
  NodeId boolean(bool v);
  NodeId param(Symbol s);
  NodeId access(Symbol field, Offset off);
  // A lower-rank field over the kernel axes in `axes` (bit a = axis a) at off; off is 0 along the others.
  NodeId broadcast(Symbol field, unsigned axes, Offset off);
  NodeId apply(Op op, NodeId a, NodeId b = kNoNode, NodeId c = kNoNode);
  NodeId select(NodeId c, NodeId a, NodeId b);

  const Node& node(NodeId id) const { return nodes_[id]; }
  size_t size() const { return nodes_.size(); }
  bool isConst(NodeId id) const { return nodes_[id].kind == NodeKind::Const; }

  Symbol intern(const std::string& name);
  const std::string& name(Symbol s) const { return names_[s]; }
  // Looks a name up without interning it; false if it was never interned.
  bool lookup(const std::string& name, Symbol& s) const;

  // Evaluates an op on constants exactly as the generated code would in float64.
  static double fold(Op op, double a, double b, double c = 0.0);

 private:
  NodeId unique(const Node& n);
  std::vector<Node> nodes_;
  std::map<std::tuple<int, int, int, NodeId, NodeId, NodeId, uint64_t, Symbol, int, int, int, int>, NodeId> index_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, Symbol> symbols_;
};

}  // namespace stnc::dag
