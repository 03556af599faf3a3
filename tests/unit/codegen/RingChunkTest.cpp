// stnc_rt::ringChunk (session 14): the planes of dim 0 each block of a shared-memory ring kernel takes when the
// schedule leaves the chunk to the launch. The generated launcher calls it with the kernel's occupancy as the
// CUDA runtime reports it; here it is host code, checked against the cases measured on the H200
// (bench/results/2026-12-01-s14-chunks.md) and the invariants every launch relies on.
#include <doctest/doctest.h>

#include <algorithm>
#include <initializer_list>
#include <vector>

#include "codegen/runtime/stnc_runtime.h"

namespace {
constexpr int kSms = 132;
long chunks(long nx, long chunk) { return (nx + chunk - 1) / chunk; }
}  // namespace

TEST_CASE("few columns: one wave of about 24 warps per SM, each column cut into as many long chunks") {
  // 256^3 f64, tiles of 32x16 points: 128 columns. 256-thread blocks: 3 of them per SM make the wave (396).
  // star7 (5 resident), star13 (5), star19 (4), star25_c (3): three chunks of 86 planes, 384 blocks.
  for (int occ : {3, 4, 5, 7}) {
    const long c = stnc_rt::ringChunk(256, 128, occ, 256, kSms, 32, true);
    CHECK(c == 86);
    CHECK(chunks(256, c) * 128 <= 3L * kSms);
  }
  // star25_rt and iso3dfd: 2 resident blocks per SM (264): two chunks, not three (1.45 waves ran 117.9 us, two 93.1).
  CHECK(stnc_rt::ringChunk(256, 128, 2, 256, kSms, 32, true) == 128);
  // One resident block per SM: the 128 columns still fit one wave, each in one chunk (no prologue re-reads);
  // 200 columns do not: the many-columns rule.
  CHECK(stnc_rt::ringChunk(256, 128, 1, 256, kSms, 32, true) == 256);
  CHECK(stnc_rt::ringChunk(256, 200, 1, 256, kSms, 32, true) == 49);
  // 128-thread blocks: the wave is 6 per SM when they fit.
  CHECK(stnc_rt::ringChunk(256, 128, 6, 128, kSms, 8, true) == 43);
}

TEST_CASE("without the one-wave verdict, few columns get the many-columns rule") {
  // star7 at 256^3 (radius 1, 5 resident): ceil(256 * 128 / (8 * 660)) = 7 planes -> the floor of 8.
  CHECK(stnc_rt::ringChunk(256, 128, 5, 256, kSms, 8, false) == 8);
  // iso3dfd (radius 4, 2 resident): 16 planes -> the floor of 32, four times the one wave's 128.
  CHECK(stnc_rt::ringChunk(256, 128, 2, 256, kSms, 32, false) == 32);
  CHECK(stnc_rt::ringChunk(256, 128, 2, 256, kSms, 32, true) == 128);
}

TEST_CASE("a chunk never gets shorter than 8 x the dim-0 reach, or the box's depth") {
  // One column over a deep box: 396 chunks per column would be a plane each; the prologue floor holds.
  CHECK(stnc_rt::ringChunk(256, 1, 3, 256, kSms, 32, true) == 32);
  CHECK(stnc_rt::ringChunk(256, 1, 3, 256, kSms, 8, true) == 8);
  // A 27-plane PML face: its depth.
  CHECK(stnc_rt::ringChunk(27, 650, 3, 256, kSms, 32, true) == 27);
  CHECK(stnc_rt::ringChunk(27, 50, 3, 256, kSms, 32, true) == 27);
}

TEST_CASE("many columns: about 8 waves of resident blocks, within the reach floor and 64 planes") {
  // The acoustic inner region at 800^3 f32 (746 planes, 13 x 47 columns of 64x16): 64-plane chunks.
  CHECK(stnc_rt::ringChunk(746, 13 * 47, 3, 256, kSms, 32, true) == 64);
  // Columns just past the wave: 8 waves of 3 per SM over 400 columns of 100 planes = 13 planes -> the floor.
  CHECK(stnc_rt::ringChunk(100, 400, 3, 256, kSms, 32, true) == 32);
  // Radius 1, 512^3 (4096 columns): 8 waves would want 398 planes per block; the ceiling of 64 holds.
  CHECK(stnc_rt::ringChunk(512, 4096, 5, 256, kSms, 8, true) == 64);
  // 1000 columns of 40 planes at 5 per SM: ceil(40 * 1000 / (8 * 660)) = 8 planes, at the radius-1 floor 8.
  CHECK(stnc_rt::ringChunk(40, 1000, 5, 256, kSms, 8, true) == 8);
  CHECK(stnc_rt::ringChunk(80, 1000, 5, 256, kSms, 8, true) == 16);
  // Radius 10: the floor of 80 planes wins over the ceiling of 64 (as in the rule before session 14).
  CHECK(stnc_rt::ringChunk(512, 4096, 3, 256, kSms, 80, false) == 80);
}

TEST_CASE("every box gets a positive chunk no deeper than the box") {
  for (long nx : {1L, 2L, 7L, 27L, 256L, 1000L})
    for (long cols : {1L, 13L, 128L, 396L, 397L, 5000L})
      for (int occ : {1, 2, 3, 8})
        for (int threads : {128, 256, 512, 1024}) {
          for (bool wave : {false, true}) {
            const long c = stnc_rt::ringChunk(nx, cols, occ, threads, kSms, 32, wave);
            CHECK(c >= 1);
            CHECK(c <= nx);
          }
        }
}

// stnc_rt::ringBand / bandedBlock (session 15): the launch order of ring kernels.
TEST_CASE("banded launch order: every column and chunk exactly once, a band's chunks in order, bands one wave wide") {
  struct Case {
    long cols, chunks;
    int occ;
  };
  // The acoustic inner region (611 columns, 12 chunks, 2 per SM), star7 at 256^3 (128 columns, 32 chunks, fewer
  // columns than a wave), a box of one column, and one whose 65535-row limit widens the bands.
  for (const Case c : {Case{611, 12, 2}, Case{128, 32, 5}, Case{1, 7, 3}, Case{50, 24, 3}, Case{40000, 300, 2}}) {
    const long band = stnc_rt::ringBand(c.cols, c.chunks, c.occ, kSms);
    CHECK(band >= 1);
    CHECK(band <= std::max(c.cols, static_cast<long>(c.occ) * kSms) * 2);
    const long rows = (c.cols * c.chunks + band - 1) / band;
    CHECK(rows <= 65535);
    if (c.cols * c.chunks / (static_cast<long>(c.occ) * kSms) <= 65535) CHECK(band == std::min(c.cols, static_cast<long>(c.occ) * kSms));
    else CHECK(band % (static_cast<long>(c.occ) * kSms) == 0);  // widened by doubling
    if (c.cols * c.chunks > 100000) continue;  // the order is checked on the smaller grids
    std::vector<char> seen(static_cast<size_t>(c.cols * c.chunks), 0);
    std::vector<long> nextChunk(static_cast<size_t>(c.cols), 0);
    long valid = 0;
    for (long id = 0; id < rows * band; ++id) {
      long col = -1, chunk = -1;
      if (!stnc_rt::bandedBlock(id, band, c.cols, c.chunks, col, chunk)) {
        CHECK(id >= c.cols * c.chunks);
        continue;
      }
      ++valid;
      REQUIRE((col >= 0 && col < c.cols && chunk >= 0 && chunk < c.chunks));
      char& s = seen[static_cast<size_t>(col * c.chunks + chunk)];
      CHECK(s == 0);
      s = 1;
      // A column's chunks come in order, one band (<= band blocks) apart.
      CHECK(chunk == nextChunk[static_cast<size_t>(col)]);
      ++nextChunk[static_cast<size_t>(col)];
      if (chunk > 0 && band <= c.cols) CHECK(id - band * (col / band) * c.chunks == chunk * std::min(band, c.cols - (col / band) * band) + col % band);
    }
    CHECK(valid == c.cols * c.chunks);
  }
}

TEST_CASE("many columns: chunks stop at maxChunk (32 for kernels of few queued fields), the reach's floor still wins") {
  // The acoustic inner region at 800^3 (611 columns of 746 planes, 2 resident): 8 waves would be 216 planes.
  CHECK(stnc_rt::ringChunk(746, 611, 2, 256, kSms, 32, false) == 64);
  CHECK(stnc_rt::ringChunk(746, 611, 2, 256, kSms, 32, false, 32) == 32);
  CHECK(stnc_rt::ringChunk(746, 611, 2, 256, kSms, 40, false, 32) == 40);  // floor over ceiling
  CHECK(stnc_rt::ringChunk(746, 50, 2, 256, kSms, 8, false, 32) == 18);   // below the ceiling: unchanged
  // One wave of long chunks does not look at it.
  CHECK(stnc_rt::ringChunk(256, 128, 3, 256, kSms, 32, true, 32) == 86);
}
