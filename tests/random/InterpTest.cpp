// Unit tests of the reference interpreter against values worked out by hand from the contract:
// numpy.pad semantics of the boundary rules (including halos wider than the interior), the
// one-sweep and step-loop entry semantics, and float evaluation of f32 kernels.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "codegen/runtime/stnc_runtime.h"
#include "interp/Interpreter.h"
#include "passes/Pipeline.h"

namespace {

using stnc::dag::BoundaryKind;

struct Compiled {
  stnc::SourceManager sm;
  stnc::DiagEngine diags{sm};
  std::optional<stnc::dag::Module> module;
};

std::unique_ptr<Compiled> compile(const std::string& text) {
  auto c = std::make_unique<Compiled>();
  std::ostringstream log;
  auto r = stnc::passes::compileModule("t.stn", &text, {}, {}, c->sm, c->diags, log);
  c->module = std::move(r.module);
  if (!c->module) {
    std::ostringstream os;
    c->diags.print(os);
    FAIL(os.str());
  }
  return c;
}

// Host arrays in the kernel's layout.
template <typename T>
struct Arrays {
  stnc_rt::Layout L{};
  std::vector<std::vector<T>> data;
  Arrays(const stnc::dag::Kernel& k, std::vector<long> n) {
    long n3[3] = {1, 1, 1};
    int h3[3] = {0, 0, 0};
    for (int a = 0; a < k.rank(); ++a) {
      n3[3 - k.rank() + a] = n[a];
      h3[3 - k.rank() + a] = k.footprint.halo[a];
    }
    REQUIRE(stnc_rt::makeLayout(n3, h3, sizeof(T), L));
    data.assign(k.fields.size(), std::vector<T>(L.count, T(0)));
  }
  // Element of field f at internal coordinates (x, y, z).
  T& at(void** p, int f, long x, long y, long z) { return static_cast<T*>(p[f])[stnc_rt::at(L, x, y, z)]; }
};

}  // namespace

TEST_CASE("boundary sources follow numpy.pad (wrap, edge, symmetric), halo wider than the interior") {
  // numpy.pad([1, 2, 3], 4, mode) for x = -4 .. 6 (indices into [1, 2, 3], minus one).
  const long wrap[] = {2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0};       // [3 1 2 3 | 1 2 3 | 1 2 3 1]
  const long edge[] = {0, 0, 0, 0, 0, 1, 2, 2, 2, 2, 2};       // [1 1 1 1 | 1 2 3 | 3 3 3 3]
  const long symmetric[] = {2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0};  // [3 3 2 1 | 1 2 3 | 3 2 1 1]
  for (long x = -4; x <= 6; ++x) {
    if (x >= 0 && x < 3) continue;
    CHECK(stnc::interp::boundarySourceIndex(x, 3, BoundaryKind::Periodic) == wrap[x + 4]);
    CHECK(stnc::interp::boundarySourceIndex(x, 3, BoundaryKind::Clamp) == edge[x + 4]);
    CHECK(stnc::interp::boundarySourceIndex(x, 3, BoundaryKind::Mirror) == symmetric[x + 4]);
    CHECK(stnc::interp::boundarySourceIndex(x, 3, BoundaryKind::Value) == -1);
  }
  // n = 1: every rule repeats the single value.
  for (long x : {-3L, -1L, 1L, 4L}) {
    CHECK(stnc::interp::boundarySourceIndex(x, 1, BoundaryKind::Periodic) == 0);
    CHECK(stnc::interp::boundarySourceIndex(x, 1, BoundaryKind::Mirror) == 0);
  }
}

// Reads every point of the filled 2-D array through outputs at each offset of box(2), and
// compares with numpy.pad of the interior (separable for these modes: corners included).
TEST_CASE("2-D fills equal numpy.pad of the interior, corners included") {
  for (const char* rule : {"periodic", "clamp", "mirror", "value(-7.5)"}) {
    std::string text = "stencil s(i, j) {\n  in u;\n  out ";
    std::string eqs;
    int k = 0;
    for (int dx = -2; dx <= 2; ++dx)
      for (int dy = -2; dy <= 2; ++dy, ++k) {
        text += (k ? ", o" : "o") + std::to_string(k);
        eqs += "  o" + std::to_string(k) + " = u[i" + (dx < 0 ? "-" : "+") + std::to_string(std::abs(dx)) + ",j" +
               (dy < 0 ? "-" : "+") + std::to_string(std::abs(dy)) + "];\n";
      }
    text += ";\n  boundary u = " + std::string(rule) + ";\n" + eqs + "}\n";
    auto c = compile(text);
    const stnc::dag::Kernel& kern = *c->module->find("s");
    REQUIRE(kern.footprint.halo[0] == 2);
    const long n0 = 3, n1 = 1;  // halo 2 > n: wraps and reflects more than once
    Arrays<double> A(kern, {n0, n1});
    std::vector<void*> p;
    for (auto& d : A.data) p.push_back(d.data());
    auto interior = [](long x, long y) { return 10.0 * x + y + 1; };
    for (long x = 0; x < n0; ++x)
      for (long y = 0; y < n1; ++y) A.at(p.data(), 0, 0, x, y) = interior(x, y);
    char err[128];
    REQUIRE(stnc::interp::run(*c->module, kern, std::vector<long>{n0, n1}.data(), p.data(), nullptr, 0, 0, nullptr, nullptr, 0, nullptr, err,
                              sizeof err) == 0);
    BoundaryKind kind = std::string(rule) == "periodic" ? BoundaryKind::Periodic
                        : std::string(rule) == "clamp"  ? BoundaryKind::Clamp
                        : std::string(rule) == "mirror" ? BoundaryKind::Mirror
                                                        : BoundaryKind::Value;
    k = 0;
    for (int dx = -2; dx <= 2; ++dx)
      for (int dy = -2; dy <= 2; ++dy, ++k) {
        int f = kern.fieldIndex("o" + std::to_string(k));
        for (long x = 0; x < n0; ++x)
          for (long y = 0; y < n1; ++y) {
            long px = x + dx, py = y + dy;
            double want;
            if (kind == BoundaryKind::Value) {
              want = (px >= 0 && px < n0 && py >= 0 && py < n1) ? interior(px, py) : -7.5;
            } else {
              long sx = px >= 0 && px < n0 ? px : stnc::interp::boundarySourceIndex(px, n0, kind);
              long sy = py >= 0 && py < n1 ? py : stnc::interp::boundarySourceIndex(py, n1, kind);
              want = interior(sx, sy);
            }
            INFO(rule << " at offset " << dx << "," << dy << " point " << x << "," << y);
            CHECK(A.at(p.data(), f, 0, x, y) == want);
          }
      }
  }
}

TEST_CASE("steps: fill, sweep, swap; fields[f] holds role f at the end") {
  // 1-D: u <- average of neighbours with periodic boundary, 2 steps, ping-pong with w.
  auto c = compile("stencil s(i) { in u; out w; swap u, w; boundary u = periodic; w = 0.5 * (u[i-1] + u[i+1]); }");
  const stnc::dag::Kernel& k = *c->module->find("s");
  const long n = 4;
  Arrays<double> A(k, {n});
  std::vector<void*> p;
  for (auto& d : A.data) p.push_back(d.data());
  double u0[n] = {1, 2, 4, 8};
  for (long x = 0; x < n; ++x) A.at(p.data(), 0, 0, 0, x) = u0[x];
  char err[128];
  REQUIRE(stnc::interp::run(*c->module, k, &n, p.data(), nullptr, 2, 0, nullptr, nullptr, 0, nullptr, err, sizeof err) == 0);
  // step 1: w = [ (8+2)/2, (1+4)/2, (2+8)/2, (4+1)/2 ] = [5, 2.5, 5, 2.5]; swap
  // step 2: w = [ (2.5+2.5)/2, (5+5)/2, ... ] = [2.5, 5, 2.5, 5]; swap -> u holds it.
  double want[n] = {2.5, 5, 2.5, 5};
  for (long x = 0; x < n; ++x) CHECK(A.at(p.data(), 0, 0, 0, x) == want[x]);
  for (long x = 0; x < n; ++x) CHECK(A.at(p.data(), 1, 0, 0, x) == (x % 2 ? 2.5 : 5));
}

TEST_CASE("f32 kernels compute in float; constants fold in double first") {
  auto c = compile("stencil s(i) : f32 { in u; out w, z; param p; w = u * 0.1 + p; z = (0.1 * 3.0) * u; }");
  const stnc::dag::Kernel& k = *c->module->find("s");
  const long n = 1;
  Arrays<float> A(k, {n});
  std::vector<void*> p;
  for (auto& d : A.data) p.push_back(d.data());
  A.at(p.data(), 0, 0, 0, 0) = 3.0f;
  double prm = 0.7;
  char err[128];
  REQUIRE(stnc::interp::run(*c->module, k, &n, p.data(), &prm, 0, 0, nullptr, nullptr, 0, nullptr, err, sizeof err) == 0);
  volatile float u = 3.0f, c01 = 0.1f, pf = static_cast<float>(0.7);
  float w = u * c01;
  w = w + pf;
  CHECK(A.at(p.data(), k.fieldIndex("w"), 0, 0, 0) == w);
  volatile float c03 = static_cast<float>(0.1 * 3.0);  // folded in double, rounded once
  CHECK(A.at(p.data(), k.fieldIndex("z"), 0, 0, 0) == c03 * u);
}
