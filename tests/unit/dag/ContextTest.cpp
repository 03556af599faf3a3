// dag::Context: hash-consing and exact float64 constant folding.
#include <doctest/doctest.h>

#include "dag/Context.h"

using namespace stnc::dag;

TEST_CASE("hash-consing gives one node per distinct access and subexpression") {
  Context c;
  Symbol u = c.intern("u");
  NodeId a = c.access(u, Offset{{1, 0, 0}});
  NodeId b = c.access(u, Offset{{1, 0, 0}});
  NodeId d = c.access(u, Offset{{-1, 0, 0}});
  CHECK(a == b);
  CHECK(a != d);
  NodeId s1 = c.apply(Op::Add, a, d);
  NodeId s2 = c.apply(Op::Add, b, d);
  CHECK(s1 == s2);
  CHECK(c.apply(Op::Add, d, a) != s1);  // no commutation: the source order is kept
  CHECK(c.size() == 4);
}

TEST_CASE("constants fold exactly in float64, never through float32") {
  Context c;
  NodeId third = c.apply(Op::Div, c.constant(1.0), c.constant(3.0));
  REQUIRE(c.isConst(third));
  CHECK(c.node(third).value == 1.0 / 3.0);
  CHECK(c.node(third).value != static_cast<double>(static_cast<float>(1.0 / 3.0)));
  NodeId cmp = c.apply(Op::Lt, c.constant(1.0), c.constant(2.0));
  CHECK(c.node(cmp).type == Type::Bool);
  CHECK(c.node(cmp).value == 1.0);
}

TEST_CASE("select with a constant condition picks its branch") {
  Context c;
  NodeId x = c.access(c.intern("x"), Offset{});
  NodeId y = c.access(c.intern("y"), Offset{});
  CHECK(c.select(c.boolean(true), x, y) == x);
  CHECK(c.select(c.boolean(false), x, y) == y);
}
