// passes/TemporalBlocking: which kernels the fused two-step sweep accepts, and the reason given
// for each one it refuses (the optimization report prints it).
#include <doctest/doctest.h>

#include "unit/DagText.h"
#include "passes/ChooseSchedule.h"
#include "passes/TemporalBlocking.h"

using namespace stnc;

namespace {

passes::TemporalPlan plan(const std::string& body) {
  auto c = test::compileText(body);
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = test::kernelOf(*c, "s");
  return passes::planTemporal(c->module->ctx, k);
}

const char* kHeat =
    "stencil s(i, j, k) : f64 { in u; out v; swap u, v; boundary u = periodic;\n"
    "  v = u + 0.1 * (u[i-1,j,k] + u[i+1,j,k] + u[i,j-1,k] + u[i,j+1,k] + u[i,j,k-1] + u[i,j,k+1] - 6.0 * u); }";

}  // namespace

TEST_CASE("a radius-1 star with a swap pair qualifies: the pair's input and output are named") {
  passes::TemporalPlan t = plan(kHeat);
  CHECK(t.ok);
  CHECK(t.in == "u");
  CHECK(t.out == "v");
  // A read-only coefficient field (any offset) and an in-plane diagonal are fine too.
  CHECK(plan("stencil s(i, j, k) : f32 { in u, c; out v; swap u, v;\n"
             "  v = c[i+1,j,k] * u + u[i,j-1,k-1] + u[i-1,j,k]; }")
            .ok);
}

TEST_CASE("kernels the fused sweep refuses, each with its reason") {
  struct Case {
    const char* src;
    const char* why;
  };
  const Case cases[] = {
      {"stencil s(i, j) : f64 { in u; out v; swap u, v; v = u[i-1,j] + u[i+1,j]; }", "rank 2"},
      {"stencil s(i, j, k) : f64 { in u; out v; v = u[i-1,j,k] + u[i+1,j,k]; }", "no swap pair"},
      {"stencil s(i, j, k) : f64 { in u; out v; swap u, v; v = u[i-2,j,k] + u[i+1,j,k]; }", "u is read at radius 2: measured not to pay"},
      // The radius is the first reason given, before the structural ones (here: v is also read, regions).
      {"stencil s(i, j, k) : f32 { in u, c; inout v; swap u, v; region r = [1:-1, 1:-1, 1:-1];\n"
       "  v @ r = 2.0 * u - v + c * (u[i-4,j,k] + u[i+4,j,k]); v = u; }",
       "u is read at radius 4: measured not to pay (a hand-fused pair of the radius-4 acoustic leapfrog ran 0.72x"},
      {"stencil s(i, j, k) : f64 { in u; out v; swap u, v; v = u[i-1,j+1,k] + u[i+1,j,k]; }", "off-axis across dimension 0"},
      {"stencil s(i, j, k) : f64 { in u; out v, w; swap u, v; v = u[i-1,j,k]; w = u[i+1,j,k]; }", "2 outputs"},
      {"stencil s(i, j, k) : f64 { in u; inout v; swap u, v; v = v + u[i-1,j,k] + u[i+1,j,k]; }", "also read"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.src);
    passes::TemporalPlan t = plan(c.src);
    CHECK_FALSE(t.ok);
    CHECK_MESSAGE(t.why.find(c.why) != std::string::npos, t.why);
  }
}

TEST_CASE("auto fuses f64 pairs for large fields only, on always, off never, and the schedule says why") {
  auto c = test::compileText(kHeat);
  REQUIRE(c->module);
  const dag::Kernel& k = test::kernelOf(*c, "s");
  passes::ScheduleOverride o;
  dag::Schedule s = passes::chooseSchedule(c->module->ctx, k, o);
  CHECK(s.temporal == 2);  // auto, f64: fields of 2 GiB or more (bench/results/2026-12-01-s17-temporal.md)
  CHECK(s.temporalWhy.find("2 GiB or more") != std::string::npos);
  auto c32 = test::compileText(std::string(kHeat).replace(std::string(kHeat).find("f64"), 3, "f32"));
  REQUIRE(c32->module);
  s = passes::chooseSchedule(c32->module->ctx, test::kernelOf(*c32, "s"), o);
  CHECK(s.temporal == 0);  // auto, f32: measured to lose (bench/results/2026-12-02-s18-box125.md)
  CHECK(s.temporalWhy.find("not used: measured to lose for f32") != std::string::npos);
  o.temporal = "on";
  s = passes::chooseSchedule(c->module->ctx, k, o);
  CHECK(s.temporal == 1);
  o.temporal = "off";
  s = passes::chooseSchedule(c->module->ctx, k, o);
  CHECK(s.temporal == 0);
  CHECK(s.temporalWhy.find("off") != std::string::npos);
  CHECK_FALSE(passes::forcesSchedule(o));  // not a timed schedule choice: saved schedules still apply
}
