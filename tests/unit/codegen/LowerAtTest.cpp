// stnc_rt::lowerAt: the element of a lower-rank field (dense over its dimensions, n + 2 * halo points each) at an
// interior point, in the three forms the backends print: unclamped (CPU loops), clamped (CUDA stream kernels, whose
// lanes past a box's edge compute values they never store) and clamped except along dims the caller knows to be in
// range (the stream kernels' dim 0: the plane loop never leaves the box).
#include <doctest/doctest.h>

#include "codegen/runtime/stnc_runtime.h"

namespace {
stnc_rt::Layout layout() {
  const long n[3] = {10, 6, 8};
  const int halo[3] = {2, 1, 3};
  stnc_rt::Layout L{};
  REQUIRE(stnc_rt::makeLayout(n, halo, 4, L));
  return L;
}
}  // namespace

TEST_CASE("lowerAt indexes a profile from its first halo point and clamps only where asked") {
  const stnc_rt::Layout L = layout();
  // etax(i): 10 + 2 * 2 points; i = -2 is element 0, i = 11 (the last halo point) element 13.
  CHECK(stnc_rt::lowerAt<1u, false>(L, -2, 5, 7) == 0);
  CHECK(stnc_rt::lowerAt<1u, false>(L, 11, 0, 0) == 13);
  CHECK(stnc_rt::lowerAt<1u, true>(L, 11, 0, 0) == 13);
  // Past the array: clamped to its ends, unless the dimension is declared in range (then the plain index).
  CHECK(stnc_rt::lowerAt<1u, true>(L, 12, 0, 0) == 13);
  CHECK(stnc_rt::lowerAt<1u, true>(L, -3, 0, 0) == 0);
  CHECK(stnc_rt::lowerAt<1u, true, 1u>(L, 12, 0, 0) == 14);
  CHECK(stnc_rt::lowerAt<1u, false, 1u>(L, 12, 0, 0) == 14);
  // The in-range mask leaves the other dimensions clamped: a plane (i, k) field, 14 x 14 elements.
  CHECK(stnc_rt::lowerAt<5u, true, 1u>(L, 3, 0, 11) == (3 + 2) * 14 + 13);
  CHECK(stnc_rt::lowerAt<5u, true, 1u>(L, 3, 0, 12) == (3 + 2) * 14 + 13);
  CHECK(stnc_rt::lowerAt<5u, true, 1u>(L, 3, 0, -4) == (3 + 2) * 14 + 0);
  CHECK(stnc_rt::lowerAt<5u, true, 1u>(L, 8, 0, 2) == (8 + 2) * 14 + 5);
  // etay(j): the other coordinates are ignored.
  CHECK(stnc_rt::lowerAt<2u, true, 1u>(L, 99, 2, -99) == 3);
}
