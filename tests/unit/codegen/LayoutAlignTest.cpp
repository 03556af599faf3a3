// stnc_rt::makeLayout's alignAt and alignCol (passes/AlignRegion, --align-region=on): rows padded so that a chosen
// interior column starts on a 128-byte boundary, and the column arithmetic kernels place tiles and vectors with.
#include <doctest/doctest.h>

#include <initializer_list>

#include "codegen/runtime/stnc_runtime.h"

namespace {
// makeLayout of extents n^3 (halo h on every axis) for elements of es bytes, aligned on column alignAt.
stnc_rt::Layout cube(long n, int h, int es, long alignAt = 0) {
  const long n3[3] = {n, n, n};
  const int h3[3] = {h, h, h};
  stnc_rt::Layout L{};
  REQUIRE(stnc_rt::makeLayout(n3, h3, es, L, alignAt));
  return L;
}
}  // namespace

TEST_CASE("makeLayout: alignAt moves the 128-byte boundary from interior column 0 to the given column") {
  const stnc_rt::Layout plain = cube(800, 4, 4), aligned = cube(800, 4, 4, 27);
  // Without it: 32 columns (128 bytes of f32) before column 0, phase 0.
  CHECK(plain.pad[2] == 32);
  CHECK(stnc_rt::at(plain, 0, 0, 0) % 32 == 0);
  // The acoustic PML's column 27: 5 columns of pad (>= the halo 4), column 27 on the boundary, column 0 5 past it.
  CHECK(aligned.pad[2] == 5);
  CHECK(stnc_rt::at(aligned, 3, 7, 27) % 32 == 0);
  CHECK(aligned.dim[2] % 32 == 0);                // rows are still whole 128-byte lines
  CHECK(aligned.dim[2] >= aligned.pad[2] + 800 + 4);
  CHECK((aligned.origin - 5) % 32 == 0);  // what the CUDA launchers test before vectors and rings (kLayoutPhase 5)
  // f64, halo 1, column 6: 10 columns of pad (16 per 128 bytes).
  const stnc_rt::Layout d = cube(800, 1, 8, 6);
  CHECK(d.pad[2] == 10);
  CHECK(stnc_rt::at(d, 0, 0, 6) % 16 == 0);
  // A column outside the interior is ignored (the small grids of a test): as without.
  CHECK(cube(4, 4, 4, 27).pad[2] == 32);
}

TEST_CASE("alignCol: the greatest column at or before x on a multiple of w columns from a 128-byte boundary") {
  const stnc_rt::Layout aligned = cube(800, 4, 4, 27);  // phase 5
  for (long x : {-5L, 0L, 26L, 27L, 28L, 63L, 64L, 91L, 772L})
    for (long w : {1L, 4L, 16L, 32L, 64L}) {
      CHECK(stnc_rt::alignCol(0, x, w) == stnc_rt::alignDown(x, w));  // phase 0: as before
      const long c = stnc_rt::alignCol(5, x, w);
      CHECK(c <= x);
      CHECK(c > x - w);
      CHECK(stnc_rt::at(aligned, 0, 0, c) % w == 0);  // on the absolute grid of w columns
    }
  CHECK(stnc_rt::alignCol(5, 27, 32) == 27);  // 32-column tiles of the aligned region start at its first column
  CHECK(stnc_rt::alignCol(5, 27, 64) == -5);  // 64-column ones on the absolute 256-byte grid
  CHECK(stnc_rt::alignCol(5, 0, 32) == -5);   // the face before it starts in the pad
}
