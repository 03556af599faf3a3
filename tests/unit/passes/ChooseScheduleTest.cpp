// passes/ChooseSchedule: the policy per stencil class, user overrides, and the autotuner's
// candidate list.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "unit/DagText.h"
#include "passes/ChooseSchedule.h"

using namespace stnc;

namespace {

const char* kStar7 =
    "stencil s(i, j, k) : f64 { in u; out v; v = 0.4*u + 0.1*(u[i-1,j,k] + u[i+1,j,k] + u[i,j-1,k] + u[i,j+1,k] + "
    "u[i,j,k-1] + u[i,j,k+1]); }";
const char* kBox27 =
    "offsets b1 = box(1);\n"
    "stencil s(i, j, k) : f64 { in u; out v; v = sum(o in b1) u[o] / 27.0; }";

dag::Schedule policy(const char* src, const passes::ScheduleOverride& o = {}) {
  auto c = test::compileText(src);
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = test::kernelOf(*c, "s");
  return passes::chooseSchedule(c->module->ctx, k, o);
}

}  // namespace

TEST_CASE("a 3-D star streams its planes through shared memory, 16-byte vectors - a box keeps L1 with two rows per thread") {
  dag::Schedule star = policy(kStar7);
  CHECK(star.strategy == dag::Strategy::Stream);
  CHECK(star.smem == 2);    // the policy's rings: two blocks per SM
  CHECK(star.rows == 1);
  CHECK(star.vec == 2);     // one 16-byte vector of f64 per thread
  CHECK(star.blockX == 64);   // f64, in-plane reach 1: a 128x4 tile (session 22)
  CHECK(star.blockY == 4);
  CHECK(star.prefetch == 3);  // planes in flight: 3 at reach 1
  dag::Schedule box = policy(kBox27);
  CHECK(box.smem == 0);
  CHECK(box.strategy == dag::Strategy::Stream);
  CHECK(box.rows == 2);
  CHECK(box.vec == 2);
  CHECK(box.blockY == 8);  // 256 threads: up to 255 registers for the tile's queues
  CHECK(box.unroll == 2);
  // f32: four points per 16-byte vector; reach 1: 32x8 threads (128-point rows, session 23), 3 planes in flight.
  dag::Schedule f32 = policy("stencil s(i, j, k) : f32 { in u; out v; v = u[i-1,j,k] + u[i+1,j,k] + u[i,j,k+1]; }");
  CHECK(f32.vec == 4);
  CHECK(f32.smem == 2);
  CHECK(f32.blockX == 32);
  CHECK(f32.blockY == 8);
  CHECK(f32.prefetch == 3);
  CHECK_MESSAGE(f32.reason.find("f32 rings of in-plane reach 1: 128-point rows (512 bytes), 3 planes in flight") != std::string::npos,
                f32.reason);
  // --smem=off: the L1 policy (f32 pairs, 32x16 blocks while the queues are small).
  passes::ScheduleOverride off;
  off.smem = "off";
  dag::Schedule l1 = policy("stencil s(i, j, k) : f32 { in u; out v; v = u[i-1,j,k] + u[i+1,j,k] + u[i,j,k+1]; }", off);
  CHECK(l1.smem == 0);
  CHECK(l1.vec == 2);
  CHECK(l1.blockX == 32);
  CHECK(l1.blockY == 16);
  CHECK(l1.prefetch == 0);
}

TEST_CASE("rings take tiles wider along the contiguous axis by in-plane reach and type - reach 4 keeps 16x16") {
  // The 7/13/19/25-point stars of the suite: reach r along j and k (and i).
  auto star = [](int r, const char* type = "f64") {
    std::string e = "0.0";
    for (int d = 1; d <= r; ++d)
      for (const char* f : {"u[i-%d,j,k]", "u[i+%d,j,k]", "u[i,j-%d,k]", "u[i,j+%d,k]", "u[i,j,k-%d]", "u[i,j,k+%d]"}) {
        char buf[32];
        std::snprintf(buf, sizeof buf, f, d);
        e += std::string(" + ") + buf;
      }
    return std::string("stencil s(i, j, k) : ") + type + " { in u; out v; v = " + e + "; }";
  };
  const dag::Schedule r2 = policy(star(2).c_str()), r3 = policy(star(3).c_str()), r4 = policy(star(4).c_str());
  // f32 (session 23): 32x8 threads of 4 points and 3 planes in flight at reach 1-3, 16x16 and 2 at reach 4.
  for (int r = 1; r <= 3; ++r) {
    const dag::Schedule f = policy(star(r, "f32").c_str());
    CHECK(f.blockX == 32);
    CHECK(f.blockY == 8);
    CHECK(f.vec == 4);
    CHECK(f.prefetch == 3);
  }
  const dag::Schedule f4 = policy(star(4, "f32").c_str());
  CHECK(f4.blockX == 16);
  CHECK(f4.blockY == 16);
  CHECK(f4.prefetch == 2);
  CHECK(r2.smem == 2);
  CHECK(r2.blockX == 64);
  CHECK(r2.blockY == 6);
  CHECK(r2.prefetch == 2);
  CHECK(r3.blockX == 32);
  CHECK(r3.blockY == 8);
  CHECK(r4.blockX == 16);
  CHECK(r4.blockY == 16);
  CHECK(r4.unroll == 4);  // one field, a queue of 9 doubles
  CHECK(r2.reason.find("block 64x6") != std::string::npos);
  CHECK_MESSAGE(r2.reason.find("f64 rings of in-plane reach 2: 128-point rows (1024 bytes)") != std::string::npos, r2.reason);
  CHECK(r4.reason.find("in-plane reach") == std::string::npos);  // the policy's 16x16 needs no note
  // Three ring fields at reach 2: the wide tile's rings would need the queue heads from global memory, so 16x16 stays.
  const dag::Schedule three = policy(
      "stencil s(i, j, k) : f64 { in a, b, c; out v; v = a[i,j-2,k] + a[i,j+2,k] + a[i-2,j,k] + a[i+2,j,k] + b[i,j,k-2] + "
      "b[i,j,k+2] + b[i-1,j,k] + b[i+1,j,k] + c[i,j+1,k] + c[i,j,k-1] + c[i+2,j,k] + c[i-2,j,k]; }");
  CHECK(three.smem == 2);
  CHECK(three.heads == 0);
  CHECK(three.blockX == 16);
  CHECK(three.blockY == 16);
}

TEST_CASE("kernels with more than two outputs keep one point per thread on 32x4 rings - 2-D kernels have no vectors") {
  const char* three3 =
      "stencil s(i, j, k) : f64 { in u; out a, b, c; a = u[i-1,j,k] + u[i+1,j,k]; b = u[i-1,j,k] - u[i+1,j,k]; "
      "c = u[i-1,j,k] * u[i+1,j,k] + u[i,j+1,k]; }";
  dag::Schedule three = policy(three3);
  CHECK(three.strategy == dag::Strategy::Stream);
  CHECK(three.vec == 1);
  CHECK(three.smem == 1);  // rings (the --smem=on budget)
  CHECK(three.blockX == 32);
  CHECK(three.blockY == 4);
  CHECK(three.heads == 1);  // the queues' heads from global memory, one plane ahead
  CHECK(three.prefetch == 1);
  CHECK(three.unroll == 1);
  passes::ScheduleOverride ringHeads;
  ringHeads.queueHeads = "ring";
  dag::Schedule inRing = policy(three3, ringHeads);
  CHECK(inRing.smem == 1);
  CHECK(inRing.heads == 0);
  CHECK(inRing.prefetch == 2);
  passes::ScheduleOverride l1;
  l1.smem = "off";
  dag::Schedule off = policy(three3, l1);
  CHECK(off.smem == 0);
  CHECK(off.vec == 1);
  CHECK(off.blockX == 32);
  CHECK(off.blockY == 16);
  // Rings that exceed the budget (25 radius-4 fields, 5 outputs): the L1 schedule.
  std::string wide = "stencil s(i, j, k) : f64 { in ";
  for (int f = 0; f < 25; ++f) wide += (f ? ", u" : "u") + std::to_string(f);
  wide += "; out a, b, c, d, e; ";
  for (const char* o : {"a", "b", "c", "d", "e"}) {
    wide += std::string(o) + " = 0.0";
    for (int f = 0; f < 25; ++f) wide += " + u" + std::to_string(f) + "[i-4,j,k] + u" + std::to_string(f) + "[i+4,j,k] + u" + std::to_string(f) + "[i,j+4,k] + u" +
               std::to_string(f) + "[i,j-4,k+4]";
    wide += "; ";
  }
  wide += "}";
  dag::Schedule big = policy(wide.c_str());
  CHECK_MESSAGE(big.strategy == dag::Strategy::Stream, big.reason);
  CHECK(big.smem == 0);
  CHECK(big.vec == 1);
  passes::ScheduleOverride o;
  o.vec = 2;
  dag::Schedule flat = policy("stencil s(i, j) : f64 { in u; out v; v = u[i-1,j] + u[i+1,j]; }", o);
  CHECK(flat.strategy == dag::Strategy::Naive);
  CHECK(flat.vec == 1);
}

TEST_CASE("a vector is at most 16 bytes: --vec 4 on f64 becomes 2, on f32 stays 4") {
  passes::ScheduleOverride o;
  o.vec = 4;
  dag::Schedule d = policy(kStar7, o);
  CHECK(d.vec == 2);
  CHECK(d.reason.find("exceeds 16 bytes") != std::string::npos);
  dag::Schedule f = policy("stencil s(i, j, k) : f32 { in u; out v; v = u[i-1,j,k] + u[i+1,j,k]; }", o);
  CHECK(f.vec == 4);
}

TEST_CASE("--rows keeps the policy's rings (and --smem=on's): ring tiles of several rows per thread") {
  passes::ScheduleOverride o;
  o.rows = 4;
  dag::Schedule rows = policy(kStar7, o);
  CHECK(rows.rows == 4);
  CHECK(rows.smem == 2);
  o.smem = "on";
  dag::Schedule rings = policy(kStar7, o);
  CHECK(rings.smem == 1);
  CHECK(rings.rows == 4);
}

TEST_CASE("the reason names the values options replaced, and only those") {
  passes::ScheduleOverride o;
  o.rows = 2;
  o.blockX = 32;
  o.blockY = 8;
  dag::Schedule s = policy(kStar7, o);
  CHECK(s.rows == 2);
  CHECK_MESSAGE(s.reason.find("; overridden (options, the source's schedule, a saved or autotuned one): block 32x8, rows 2") != std::string::npos, s.reason);
  dag::Schedule p = policy(kStar7);
  CHECK(p.reason.find("overridden") == std::string::npos);
  passes::ScheduleOverride same;
  same.blockX = p.blockX;  // the policy's own value: nothing replaced
  CHECK(policy(kStar7, same).reason.find("overridden") == std::string::npos);
}

TEST_CASE("options on the command line win over the policy") {
  passes::ScheduleOverride o;
  o.rows = 2;
  o.prefetch = 1;
  o.blockX = 64;
  o.blockY = 4;
  dag::Schedule s = policy(kBox27, o);
  CHECK(s.rows == 2);
  CHECK(s.prefetch == 1);
  CHECK(s.blockX == 64);
  CHECK(s.blockY == 4);
  CHECK(passes::forcesSchedule(o));
  CHECK_FALSE(passes::forcesSchedule(passes::ScheduleOverride{}));
  passes::ScheduleOverride fmaOnly;
  fmaOnly.contractFma = true;  // not a schedule choice: saved schedules still apply
  CHECK_FALSE(passes::forcesSchedule(fmaOnly));
}

TEST_CASE("autotune candidates: the policy first, naive and stream variants, FMA setting kept") {
  passes::ScheduleOverride base;
  base.contractFma = true;
  std::vector<passes::ScheduleOverride> c = passes::scheduleCandidates(base);
  REQUIRE(c.size() >= 6);
  CHECK(c[0].strategy == "auto");
  bool naive = false, rows4 = false, prefetch = false, vec = false, ringRows = false, globalHeads = false;
  for (const auto& o : c) {
    CHECK(o.contractFma);
    ringRows |= o.smem == "on" && o.rows == 2;
    globalHeads |= o.smem == "on" && o.queueHeads == "global";
    naive |= o.strategy == "naive";
    rows4 |= o.strategy == "stream" && o.rows == 4;
    prefetch |= o.strategy == "stream" && o.prefetch > 0;
    vec |= o.strategy == "stream" && o.vec > 1;
  }
  CHECK(vec);
  CHECK(naive);
  CHECK(rows4);
  CHECK(prefetch);
  CHECK(ringRows);  // rings of several rows per thread
  CHECK(globalHeads);
  // The policy's own schedule (strategy auto) at other chunk lengths and with the tensor memory accelerator toggled.
  int policyChunks = 0, policyTma = 0;
  for (const auto& o : c) {
    policyChunks += o.strategy == "auto" && o.chunk == 128 && o.blockX == 0 && o.tma == "auto";
    policyTma += o.strategy == "auto" && o.chunk == 0 && (o.tma == "on" || o.tma == "off");
  }
  CHECK(policyChunks == 1);
  CHECK(policyTma == 2);
  passes::ScheduleOverride forced = base;  // what the user forced is not varied
  forced.chunk = 32;
  forced.tma = "off";
  for (const auto& o : passes::scheduleCandidates(forced)) {
    CHECK(o.chunk == 32);  // every candidate, the block shapes too
    if (o.strategy != "auto") continue;
    CHECK(o.tma == "off");
  }
  // A stream candidate applied to a 2-D stencil falls back to naive.
  dag::Schedule s = policy("stencil s(i, j) : f64 { in u; out v; v = u[i-1,j] + u[i+1,j]; }", c.back());
  CHECK(s.strategy == dag::Strategy::Naive);
}

TEST_CASE("f64 rings reading one field along a 9-plane queue (star25) unroll the plane loop 4x, one row per thread") {
  // Radius 4 along every axis (star25), radius 3 (star19).
  auto star = [](int r) {
    std::string s = "stencil s(i, j, k) : f64 { in u; out v; v = 0.5*u";
    for (int d = 1; d <= r; ++d)
      for (const char* a : {"i", "j", "k"})
        for (int sg : {-1, 1}) {
          std::string idx[3] = {"i", "j", "k"};
          for (std::string& x : idx)
            if (x == a) x += (sg < 0 ? "-" : "+") + std::to_string(d);
          s += " + 0.01*u[" + idx[0] + "," + idx[1] + "," + idx[2] + "]";
        }
    return s + "; }";
  };
  dag::Schedule s25 = policy(star(4).c_str());
  CHECK(s25.smem == 2);
  CHECK(s25.unroll == 4);
  CHECK(s25.rows == 1);  // 2 rows measured faster with constant coefficients, slower with runtime ones
  dag::Schedule s19 = policy(star(3).c_str());
  CHECK(s19.smem == 2);
  CHECK(s19.unroll == 1);
  // f32 (the acoustic kernels): no unrolling.
  std::string f32 = star(4);
  f32.replace(f32.find("f64"), 3, "f32");
  CHECK(policy(f32.c_str()).unroll == 1);
  // Ring tiles by the tensor memory accelerator (sessions 14, 23): radius 2-4 over one field take long chunks.
  CHECK(s25.tma == 1);
  CHECK(s19.tma == 1);
  CHECK(s25.reason.find("tensor memory accelerator") != std::string::npos);
  CHECK(policy(star(2).c_str()).tma == 1);  // radius 2: 1.1-1.5 % on its 64x6 tile (sessions 22-23)
  CHECK(policy(star(1).c_str()).tma == 0);  // radius 1: slower, measured
  passes::ScheduleOverride ampere;
  ampere.smVersion = passes::smVersionOf("sm_80");  // --arch sm_80: no tensor memory accelerator
  CHECK(policy(star(4).c_str(), ampere).tma == 0);
  passes::ScheduleOverride off;
  off.tma = "off";
  CHECK(policy(star(4).c_str(), off).tma == 0);
}

TEST_CASE("a forced --tma, like every other schedule option, keeps a saved schedules file out") {
  passes::ScheduleOverride o;
  CHECK_FALSE(passes::forcesSchedule(o));
  o.tma = "on";
  CHECK(passes::forcesSchedule(o));
  o.tma = "off";
  CHECK(passes::forcesSchedule(o));
}

TEST_CASE("architecture names: sm_XY, sm_XYa and compute_XY give XY, anything else 0") {
  CHECK(passes::smVersionOf("sm_90") == 90);
  CHECK(passes::smVersionOf("sm_90a") == 90);
  CHECK(passes::smVersionOf("compute_80") == 80);
  CHECK(passes::smVersionOf("sm_100") == 100);
  CHECK(passes::smVersionOf("native") == 0);
  CHECK(passes::smVersionOf("sm_") == 0);
  CHECK(passes::smVersionOf("sm_9") == 0);
}

TEST_CASE("a schedule in the source sets what the command line leaves to the policy - the command line wins value by value") {
  const std::string src =
      "stencil s(i, j, k) : f64 { in u; out v;\n"
      "  schedule stream(block = 32x8, rows = 2, smem = off, unroll = 2);\n"
      "  v = u[i-1,j,k] + u[i+1,j,k] + u[i,j+1,k]; }";
  auto c = test::compileText(src);
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = test::kernelOf(*c, "s");
  CHECK(k.request.present);
  CHECK(k.schedule.strategy == dag::Strategy::Stream);
  CHECK(k.schedule.blockX == 32);
  CHECK(k.schedule.blockY == 8);
  CHECK(k.schedule.rows == 2);
  CHECK(k.schedule.smem == 0);
  CHECK(k.schedule.unroll == 2);
  CHECK_MESSAGE(k.schedule.reason.find("; the source asks for schedule stream(block = 32x8, rows = 2, smem = off, unroll = 2)") != std::string::npos,
                k.schedule.reason);
  // heads = global in the source: the queues' heads from global memory (with the policy's rings).
  auto g = test::compileText("stencil s(i, j, k) : f64 { in u; out v;\n  schedule stream(heads = global);\n"
                             "  v = u[i-1,j,k] + u[i+1,j,k] + u[i,j+1,k]; }");
  REQUIRE_MESSAGE(g->module, g->diagText());
  CHECK(test::kernelOf(*g, "s").schedule.heads == 1);
  CHECK(test::kernelOf(*g, "s").schedule.smem == 2);
  CHECK(test::kernelOf(*g, "s").schedule.tma == 0);  // the policy: 16-byte cp.async copies
  // tma = on in the source: ring tiles through the tensor memory accelerator; --tma=off on the command line wins.
  const char* tmaSrc = "stencil s(i, j, k) : f64 { in u; out v;\n  schedule stream(tma = on);\n"
                       "  v = u[i-1,j,k] + u[i+1,j,k] + u[i,j+1,k]; }";
  auto t = test::compileText(tmaSrc);
  REQUIRE_MESSAGE(t->module, t->diagText());
  CHECK(test::kernelOf(*t, "s").schedule.tma == 1);
  passes::ScheduleOverride off;
  off.tma = "off";
  auto toff = test::compileText(tmaSrc, {}, off);
  REQUIRE_MESSAGE(toff->module, toff->diagText());
  CHECK(test::kernelOf(*toff, "s").schedule.tma == 0);
  // The policy alone would have chosen otherwise (rings, one row).
  const dag::Schedule pol = policy("stencil s(i, j, k) : f64 { in u; out v; v = u[i-1,j,k] + u[i+1,j,k] + u[i,j+1,k]; }");
  CHECK(pol.smem == 2);
  CHECK(pol.rows == 1);
  // --rows 4 on the command line replaces the source's rows and keeps its block.
  passes::ScheduleOverride cli;
  cli.rows = 4;
  auto d = test::compileText(src, {}, cli);
  REQUIRE_MESSAGE(d->module, d->diagText());
  CHECK(test::kernelOf(*d, "s").schedule.rows == 4);
  CHECK(test::kernelOf(*d, "s").schedule.blockY == 8);
  // withRequest: unset request values leave the override alone; no request, no change.
  dag::ScheduleRequest r;
  r.present = true;
  r.vec = 1;
  passes::ScheduleOverride o;
  o.blockX = 64;
  o.blockY = 4;
  const passes::ScheduleOverride m = passes::withRequest(o, r);
  CHECK(m.vec == 1);
  CHECK(m.blockX == 64);
  CHECK(m.strategy == "auto");
  CHECK(m.prefetch == -1);
  CHECK(passes::withRequest(o, dag::ScheduleRequest{}).vec == 0);
}

TEST_CASE("a top-level schedule names its stencil or group") {
  auto c = test::compileText(
      "stencil s(i, j, k) : f64 { in u; out v; v = u[i-1,j,k] + u[i+1,j,k]; }\n"
      "stencil t(i, j, k) : f64 { in u; out w; w = u[i,j,k+1] - u[i,j,k-1]; }\n"
      "group g = s, t;\n"
      "schedule s naive;\n"
      "schedule g stream(vec = 1, block = 32x4);\n");
  REQUIRE_MESSAGE(c->module, c->diagText());
  CHECK(test::kernelOf(*c, "s").schedule.strategy == dag::Strategy::Naive);
  CHECK(test::kernelOf(*c, "t").request.present == false);
  const dag::Kernel& g = test::kernelOf(*c, "g");
  CHECK(g.request.present);
  CHECK(g.schedule.strategy == dag::Strategy::Stream);
  CHECK(g.schedule.vec == 1);
  CHECK(g.schedule.blockY == 4);
}

TEST_CASE("options the chosen schedule does not use are warned about at the stencil, and only those") {
  // A 125-term fma chain takes the tensor schedule, whose mma fragments fix block, rows and prefetch.
  std::string box125 = "stencil s(i, j, k) : f64 { in u; out v; param";
  std::string sum;
  for (int a = -2; a <= 2; ++a)
    for (int b = -2; b <= 2; ++b)
      for (int c = -2; c <= 2; ++c) {
        const std::string p = "c" + std::to_string(a + 2) + std::to_string(b + 2) + std::to_string(c + 2);
        box125 += std::string(sum.empty() ? " " : ", ") + p;
        sum += std::string(sum.empty() ? "" : " + ") + p + " * u[i" + (a < 0 ? "-" : "+") + std::to_string(std::abs(a)) + ",j" +
               (b < 0 ? "-" : "+") + std::to_string(std::abs(b)) + ",k" + (c < 0 ? "-" : "+") + std::to_string(std::abs(c)) + "]";
      }
  box125 += "; v = " + sum + "; }";
  passes::ScheduleOverride o;
  o.contractFma = true;
  o.blockX = 16;
  o.blockY = 16;
  o.rows = 2;
  o.chunk = 64;  // the tensor schedule takes the chunk
  auto t = test::compileText(box125, {}, o);
  REQUIRE_MESSAGE(t->module, t->diagText());
  CHECK(test::kernelOf(*t, "s").schedule.strategy == dag::Strategy::Tensor);
  CHECK(test::kernelOf(*t, "s").schedule.chunk == 64);
  CHECK(t->diags.warningCount() == 1);
  CHECK(t->diagText().find("1:9: warning: block 16x16 and rows 2 have no effect on 's': the tensor schedule") != std::string::npos);
  CHECK(t->diagText().find("--tensor-cores=off") != std::string::npos);
  // With the tensor cores off the same options shape the sumfactor-free stream schedule: no warning.
  o.tensorCores = "off";
  auto s = test::compileText(box125, {}, o);
  REQUIRE(s->module);
  CHECK(test::kernelOf(*s, "s").schedule.strategy == dag::Strategy::Stream);
  CHECK(s->diags.warningCount() == 0);

  // A 2-D stencil is naive: rows and vectors are the stream schedule's.
  passes::ScheduleOverride rv;
  rv.rows = 2;
  rv.vec = 2;
  rv.blockX = 64;  // naive uses the block
  rv.blockY = 4;
  auto h = test::compileText("stencil s(i, j) : f64 { in u; out v; v = u[i+1,j] + u[i-1,j]; }", {}, rv);
  REQUIRE(h->module);
  CHECK(h->diags.warningCount() == 1);
  CHECK(h->diagText().find("warning: rows 2 and vec 2 have no effect on 's': the naive schedule (the stream schedule needs 3 axes)") !=
        std::string::npos);
  // The 3-D star streams with them: silent.
  auto star = test::compileText(kStar7, {}, rv);
  REQUIRE(star->module);
  CHECK(star->diags.warningCount() == 0);

  // ignoredOptions on its own: the sumfactor schedule reads 16-byte vectors whatever --vec says.
  dag::Schedule sf;
  sf.strategy = dag::Strategy::SumFactor;
  sf.vec = 2;
  passes::ScheduleOverride v1;
  v1.vec = 1;
  std::string why;
  CHECK(passes::ignoredOptions(v1, test::kernelOf(*star, "s"), sf, why) == std::vector<std::string>{"vec 1"});
  CHECK(why.find("16-byte vector") != std::string::npos);
  v1.vec = 2;
  CHECK(passes::ignoredOptions(v1, test::kernelOf(*star, "s"), sf, why).empty());
}
