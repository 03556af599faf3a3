// passes/Occupancy: resident blocks per SM from registers, threads and shared memory, alone and beside
// another kernel's resident blocks (the numbers of the acoustic sample's parts on sm_90).
#include <doctest/doctest.h>

#include "passes/Occupancy.h"

using namespace stnc::passes;

TEST_CASE("residentBlocks: registers are allocated per warp in units of 256") {
  const SmLimits sm = smLimits(90);
  // 97 registers -> 104 per thread (3328 per warp): 19 warps, two blocks of 8.
  const Residency inner = residentBlocks({256, 97, 94208}, sm);
  CHECK(inner.blocks == 2);
  CHECK(inner.limit == "registers, shared memory");  // 92 KiB + 1 KiB fits twice in 228 KiB as well
  // 80 registers: 25 warps, three blocks; 64 registers: exactly four.
  CHECK(residentBlocks({256, 80, 55296}, sm).blocks == 3);
  CHECK(residentBlocks({256, 64, 0}, sm).blocks == 4);
  CHECK(residentBlocks({256, 64, 0}, sm).limit == "registers");
  // 24 registers and no shared memory: the thread limit (2048) decides, then the block limit.
  const Residency small = residentBlocks({256, 24, 0}, sm);
  CHECK(small.blocks == 8);
  CHECK(small.limit == "threads");
  CHECK(residentBlocks({256, 32, 0}, sm).limit == "registers, threads");  // 64 warps either way
  CHECK(residentBlocks({32, 16, 0}, sm).blocks == 32);
  CHECK(residentBlocks({32, 16, 0}, sm).limit == "blocks");
}

TEST_CASE("residentBlocks: shared memory with the runtime's 1 KiB per block") {
  const SmLimits sm = smLimits(90);
  // 228 KiB per SM: (115 + 1) KiB fits once, (113 + 1) KiB twice.
  CHECK(residentBlocks({128, 32, 115 * 1024}, sm).blocks == 1);
  CHECK(residentBlocks({128, 32, 113 * 1024}, sm).blocks == 2);
  CHECK(residentBlocks({128, 32, 113 * 1024}, sm).limit == "shared memory");
  CHECK(residentBlocks({128, 32, 228 * 1024}, sm).blocks == 0);  // over the per-block maximum (227 KiB)
  // The SM's 228 KiB, not the per-block 227: four blocks of 57120 bytes (+1 KiB each: 232576 bytes) fit
  // (tests/gpu/mathfns.stn's rings; passes/SmemPlan's blocksPerSm said 3 before it used this model).
  CHECK(residentBlocks({256, 0, 57120}, sm).blocks == 4);
  CHECK(residentBlocks({256, 0, 57120}, sm).limit == "shared memory");
  // An sm_86 SM has 100 KiB and 1536 threads.
  CHECK(residentBlocks({128, 32, 40 * 1024}, smLimits(86)).blocks == 2);
  CHECK(residentBlocks({512, 32, 0}, smLimits(86)).blocks == 3);
}

TEST_CASE("residentBlocks beside another kernel's blocks: the acoustic shell beside the inner region") {
  const SmLimits sm = smLimits(90);
  const BlockUse inner{256, 97, 94208};
  // Two inner blocks leave 12288 registers and 42 KiB: a 16x16 shell block (80 registers, 54 KiB) fits in neither.
  const Residency wide = residentBlocks({256, 80, 55296}, sm, {{inner, 2}});
  CHECK(wide.blocks == 0);
  // A 16x8 block (88 registers: 11264 per block, 36 KiB) fits once.
  const Residency narrow = residentBlocks({128, 88, 36864}, sm, {{inner, 2}});
  CHECK(narrow.blocks == 1);
  // ... and at 97 registers (13312 per block) it would not.
  CHECK(residentBlocks({128, 97, 36864}, sm, {{inner, 2}}).blocks == 0);
  CHECK(residentBlocks({128, 97, 36864}, sm, {{inner, 2}}).limit == "registers");
  // Beside one inner block the 16x16 block fits once (38912 registers left: 15 warps), its shared memory twice.
  CHECK(residentBlocks({256, 80, 55296}, sm, {{inner, 1}}).blocks == 1);
  CHECK(residentBlocks({256, 80, 55296}, sm, {{inner, 1}}).limit == "registers");
  // Over-full neighbours leave nothing.
  CHECK(residentBlocks({128, 32, 0}, sm, {{inner, 3}}).blocks == 0);
}

TEST_CASE("defaultBlocksBeside: the fewest default-part blocks that fit beside one region's resident blocks") {
  const SmLimits sm = smLimits(90);
  // The acoustic inner box's two blocks leave 12288 registers and 42 KiB: a 16x16 shell block (80 registers,
  // 54 KiB) does not fit, a 16x8 one (88 registers, 36 KiB) does once.
  const BlockUse inner{256, 97, 94208};
  CHECK(defaultBlocksBeside({{-1, {256, 80, 55296}}, {0, inner}}, sm) == 0);
  CHECK(defaultBlocksBeside({{-1, {128, 88, 36864}}, {0, inner}}, sm) == 1);
  // Two regions: the one that leaves less decides. Two 100 KiB blocks of 64 threads leave 26 KiB: two blocks of
  // 8 KiB (their registers would allow five); the inner box's leave registers for one.
  const BlockUse wide{64, 32, 102400};
  CHECK(defaultBlocksBeside({{-1, {128, 88, 8192}}, {0, wide}}, sm) == 2);
  CHECK(defaultBlocksBeside({{-1, {128, 88, 8192}}, {0, inner}, {1, wide}}, sm) == 1);
  // Without a default part or without a region part there is nothing to fit.
  CHECK(defaultBlocksBeside({{0, inner}}, sm) == -1);
  CHECK(defaultBlocksBeside({{-1, inner}}, sm) == -1);
}
