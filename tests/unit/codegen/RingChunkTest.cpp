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

// stnc_rt::ringBandRows / bandedTile (session 15): the launch order of ring kernels.
TEST_CASE("banded launch order: every tile and chunk once, a band's chunks in order, bands of about one wave") {
  struct Case {
    long gx, gy, chunks;
    int occ;
  };
  // The acoustic inner region (13 x 47 tile columns, 24 chunks, 2 per SM), star7 at 256^3 (8 x 16, 32 chunks: one
  // band), one column, a k-face (1 x 47), and a grid whose 65535 limit on bands x chunks widens the bands.
  for (const Case c : {Case{13, 47, 24, 2}, Case{8, 16, 32, 5}, Case{1, 1, 7, 3}, Case{1, 47, 24, 3}, Case{4, 40000, 300, 2}}) {
    const long rows = stnc_rt::ringBandRows(c.gx, c.gy, c.chunks, c.occ, kSms);
    REQUIRE(rows >= 1);
    REQUIRE(rows <= c.gy);
    const long bands = (c.gy + rows - 1) / rows;
    CHECK(bands * c.chunks <= 65535);
    const long wave = static_cast<long>(c.occ) * kSms;
    if (c.gy * c.chunks <= 65535 * std::max(1L, wave / c.gx)) CHECK(rows == std::clamp(wave / c.gx, 1L, c.gy));
    if (c.gx * c.gy * c.chunks > 200000) continue;  // the order is checked on the smaller grids
    std::vector<char> seen(static_cast<size_t>(c.gy * c.chunks), 0);
    std::vector<long> next(static_cast<size_t>(c.gy), 0), lastZ(static_cast<size_t>(c.gy), -1);
    long valid = 0;
    // Blocks in the hardware's order: x fastest (all columns of a tile row alike), then y, then z.
    for (long z = 0; z < bands * c.chunks; ++z)
      for (long y = 0; y < rows; ++y) {
        long row = -1, chunk = -1;
        stnc_rt::bandedTile(static_cast<unsigned>(y), static_cast<unsigned>(z), static_cast<unsigned>(rows),
                            static_cast<unsigned>(bands * c.chunks), c.chunks, row, chunk);
        REQUIRE((chunk >= 0 && chunk < c.chunks && row >= 0));
        if (row >= c.gy) {
          CHECK(row / rows == bands - 1);  // only the last band has rows past the box
          continue;
        }
        ++valid;
        char& s = seen[static_cast<size_t>(row * c.chunks + chunk)];
        CHECK(s == 0);
        s = 1;
        CHECK(chunk == next[static_cast<size_t>(row)]);  // a row's chunks in order ...
        ++next[static_cast<size_t>(row)];
        if (chunk > 0) CHECK(z == lastZ[static_cast<size_t>(row)] + 1);  // ... one band (rows x gx blocks) apart
        lastZ[static_cast<size_t>(row)] = z;
      }
    CHECK(valid == c.gy * c.chunks);
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
