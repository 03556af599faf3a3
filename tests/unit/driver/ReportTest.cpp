// driver/Report (--report): per kernel the schedule and why, each region part's own schedule, the
// shared-memory rings of every part that has them, loads, flops, bytes.
#include <doctest/doctest.h>

#include <sstream>

#include "unit/TestUtil.h"
#include "driver/Report.h"
#include "passes/ChooseSchedule.h"

using namespace stnc;

TEST_CASE("--report names a part's own schedule and the other part's rings") {
  auto c = test::compileText(test::kAcousticShell);
  REQUIRE_MESSAGE(c->module, c->diagText());
  std::ostringstream os;
  driver::printReport(os, *c->module, {});
  const std::string r = os.str();
  CHECK(r.find("stencil s (f32, rank 3)") != std::string::npos);
  CHECK(r.find("shared-memory planes") != std::string::npos);
  CHECK(r.find("part     : default part: own schedule stream, block 16x16, vec 2") != std::string::npos);
  CHECK(r.find("smem     : region inner: 92 KiB per block (2 per SM), 2 plane(s) in flight; u 24x80x8") != std::string::npos);
  // u is one of the inner region's ring fields read across planes: no wave of long chunks.
  // And u is the only queued field of three: chunks of at most 32 planes (SmemPlan::maxChunk).
  CHECK(r.find("u 24x80x8 roc2 16x64x4 v 16x64x4; chunks: about 8 waves of 32 planes (dim-0 reach 4)") != std::string::npos);
  // The part's own schedule has rings too (narrower tiles): they are reported with that schedule.
  CHECK(r.find("smem     : default part: 70 KiB per block (3 per SM), 2 plane(s) in flight; u 24x40x8") != std::string::npos);
  // ... and a second kernel for its slab boxes (passes::chooseSlabTma), whose tiles are padded to 128 bytes.
  CHECK(r.find("(dim-0 reach 4); slab boxes (thin along dim 0 or 1, two tiles wide or more): a second kernel whose tiles the tensor "
               "memory accelerator copies, 70 KiB per block (3 per SM)\n") != std::string::npos);
  CHECK(r.find("(tiles copied by the tensor memory accelerator)") == std::string::npos);  // the kernel's own schedule: cp.async
  CHECK(r.find("bytes/pt : 28 compulsory") != std::string::npos);
  // Each part is its own kernel: the inner part moves u, roc2 and v (read and written), the shell also
  // eta and phi (read and written).
  CHECK(r.find("part cost: region inner: 27 loads,") != std::string::npos);
  CHECK(r.find("16 compulsory bytes per point") != std::string::npos);
  CHECK(r.find("part cost: default part: 35 loads,") != std::string::npos);
  CHECK(r.find("28 compulsory bytes per point") != std::string::npos);
  // The parts' launches run concurrently on the CUDA side: seven for one region in 3-D.
  CHECK(r.find("  parts    : CUDA: up to 7 launches per sweep") != std::string::npos);
}

TEST_CASE("--report with ptxas's registers: each part's resident blocks and what fits beside the region's") {
  auto c = test::compileText(test::kAcousticShell);
  REQUIRE_MESSAGE(c->module, c->diagText());
  std::map<std::string, driver::PtxasInfo> ptxas;
  ptxas["s"].registers = 80;
  ptxas["s/default_part::sweepPart"].registers = 80;  // the part schedule's namespace (16x16, vec 2, 70 KiB rings)
  ptxas["s/sweepPart_inner"].registers = 97;          // the region without a schedule of its own (92 KiB rings)
  std::ostringstream os;
  driver::printReport(os, *c->module, ptxas, 90);
  const std::string r = os.str();
  CHECK(r.find("  resident : default part: 80 registers, 256 threads, 70 KiB: 3 block(s) per SM (registers, shared memory)\n") != std::string::npos);
  CHECK(r.find("  resident : region inner: 97 registers, 256 threads, 92 KiB: 2 block(s) per SM (registers, shared memory)\n") != std::string::npos);
  CHECK(r.find("  overlap  : 0 block(s) of the default part fit beside 2 of region inner (registers, shared memory)") != std::string::npos);
  // Without ptxas's numbers (no --verify-schedules) there are no such lines.
  std::ostringstream plain;
  driver::printReport(plain, *c->module, {}, 90);
  CHECK(plain.str().find("resident :") == std::string::npos);
  CHECK(plain.str().find("overlap  :") == std::string::npos);
}

TEST_CASE("--report with ptxas's registers: a kernel without regions has one resident line and no overlap line") {
  auto c = test::compileText("stencil s(i, j, k) : f64 { in u; out w; w = u[i+1, j, k] + u[i-1, j, k]; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = c->module->kernels.at(0);
  REQUIRE(k.schedule.strategy == dag::Strategy::Stream);
  std::map<std::string, driver::PtxasInfo> ptxas;
  ptxas["s/sweepPart"].registers = 40;
  std::ostringstream os;
  driver::printReport(os, *c->module, ptxas, 90);
  const std::string r = os.str();
  const std::string expect = "  resident : kernel: 40 registers, " + std::to_string(k.schedule.blockX * k.schedule.blockY) + " threads, ";
  CHECK(r.find(expect) != std::string::npos);
  CHECK(r.find("overlap  :") == std::string::npos);
}

TEST_CASE("--report: a kernel without regions has no parts line") {
  auto c = test::compileText("stencil s(i, j, k) : f64 { in u; out w; w = u[i+1, j, k] + u[i-1, j, k]; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  std::ostringstream os;
  driver::printReport(os, *c->module, {});
  CHECK(os.str().find("stencil s (f64, rank 3)") != std::string::npos);
  CHECK(os.str().find("parts    :") == std::string::npos);
}

TEST_CASE("costOf per part counts only the fields the part touches") {
  auto c = test::compileText(test::kAcousticShell);
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = c->module->kernels.at(0);
  const driver::KernelCost whole = driver::costOf(c->module->ctx, k), inner = driver::costOf(c->module->ctx, k, 0),
                           shell = driver::costOf(c->module->ctx, k, -1);
  CHECK(whole.bytes == 28);
  CHECK(inner.bytes == 16);
  CHECK(shell.bytes == 28);
  CHECK(inner.loads == 27);  // lap8 (25) + roc2 + v
  CHECK(inner.flops < shell.flops);
  CHECK(whole.loads == shell.loads);  // the shell reads every access the inner part reads
}

TEST_CASE("--report: a part whose own schedule has no rings gets no smem line") {
  auto c = test::compileText(test::kAcousticShell);
  REQUIRE_MESSAGE(c->module, c->diagText());
  DiagEngine diags(c->sm);
  passes::ScheduleOverride o;
  o.vec = 4;  // the user's width: the shell's rings do not fit, so it gets the L1 policy
  passes::chooseSchedules(*c->module, diags, o);
  std::ostringstream os;
  driver::printReport(os, *c->module, {});
  const std::string r = os.str();
  CHECK(r.find("part     : default part: own schedule stream, block 32x16, vec 4") != std::string::npos);
  CHECK(r.find("smem     : region inner: 92 KiB per block") != std::string::npos);
  CHECK(r.find("smem     : default part") == std::string::npos);
}

TEST_CASE("--report: a factorable sum says --factor-sums=on would factor it, a factored one what it saves") {
  const std::string text =
      "stencil b(i, j, k) : f64 { in u; out v;\n"
      "  v = sum(a in -2..2) (sum(b in -2..2) (sum(c in -2..2) 1.0 / (1.0 + a * a + b * b + c * c) * u[i+a, j+b, k+c])); }";
  auto plain = test::compileText(text);
  REQUIRE_MESSAGE(plain->module, plain->diagText());
  std::ostringstream a;
  driver::printReport(a, *plain->module, {});
  CHECK_MESSAGE(a.str().find("factored : possible: --factor-sums=on would share partial sums of u (249 -> 63 operations per point;") !=
                    std::string::npos,
                a.str());
  passes::ScheduleOverride o;
  o.factorSums = true;
  auto fac = test::compileText(text, {}, o);
  REQUIRE_MESSAGE(fac->module, fac->diagText());
  std::ostringstream b;
  driver::printReport(b, *fac->module, {});
  CHECK_MESSAGE(b.str().find("factored : shared partial sums of u (45 terms over planes -2..2, 3 plane class(es)): 249 -> 63 operations per point") != std::string::npos,
                b.str());
  CHECK(b.str().find("schedule : sumfactor, block 16x8, prefetch 3, rows 4, vec 2") != std::string::npos);
}

TEST_CASE("--report: a weighted sum that factoring would not pay for says why, other kernels say nothing") {
  auto c = test::compileText(
      "stencil star(i, j, k) : f64 { in u; out v;\n"
      "  v = sum(m in -4..4) (u[i+m, j, k] + u[i, j+m, k] + u[i, j, k+m]); }\n"
      "stencil prod(i, j, k) : f64 { in u; out v; v = u[i-1, j, k] * u[i+1, j, k]; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  std::ostringstream os;
  driver::printReport(os, *c->module, {});
  const std::string r = os.str();
  CHECK_MESSAGE(r.find("factored : no: the sum is not arithmetic-heavy") != std::string::npos, r);
  CHECK(r.find("factored", r.find("stencil prod")) == std::string::npos);
}
