// support/Suggest: the edit distance and the "did you mean" candidates behind the notes of
// tests/diag/err_did_you_mean.stn.
#include <doctest/doctest.h>

#include "support/Suggest.h"

using namespace stnc;

TEST_CASE("edit distance counts insertions, deletions, substitutions and neighbour swaps as one each") {
  CHECK(editDistance("", "") == 0);
  CHECK(editDistance("u", "") == 1);
  CHECK(editDistance("", "abc") == 3);
  CHECK(editDistance("dtt", "dt") == 1);
  CHECK(editDistance("sqr", "sqrt") == 1);
  CHECK(editDistance("lap9", "lap8") == 1);
  CHECK(editDistance("alhpa", "alpha") == 1);  // a swap of neighbours
  CHECK(editDistance("kitten", "sitting") == 3);
  CHECK(editDistance("abc", "abc") == 0);
}

TEST_CASE("closestNames keeps every nearest candidate within a third of the name - nothing for exact or far names") {
  const std::vector<std::string> defs{"lap2", "lap4", "lap6", "lap8", "dx2"};
  CHECK(closestNames("lap9", defs) == std::vector<std::string>{"lap2", "lap4", "lap6", "lap8"});
  CHECK(closestNames("lapp", {"lap", "lapx", "dx"}) == std::vector<std::string>{"lap", "lapx"});
  CHECK(closestNames("alhpa", {"alpha", "beta"}) == std::vector<std::string>{"alpha"});
  CHECK(closestNames("uu", {"u", "v"}) == std::vector<std::string>{"u"});
  CHECK(closestNames("x", {"y", "z"}).empty());         // a one-letter name: no guess
  CHECK(closestNames("u", {"u", "uu"}).empty());        // the name exists
  CHECK(closestNames("velocity", {"pressure"}).empty());  // too far
  CHECK(closestNames("phi", {}).empty());
  CHECK(quotedAlternatives({"a"}) == "'a'");
  CHECK(quotedAlternatives({"a", "b"}) == "'a' or 'b'");
  CHECK(quotedAlternatives({"a", "b", "c"}) == "'a', 'b' or 'c'");
}
