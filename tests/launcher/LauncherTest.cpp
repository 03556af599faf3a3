// The generated C++ launcher API (FILE.h + FILE.cpp from launcher.stn), used the way an
// application uses it: layouts, argument checks, sweep_box, regions, step with swaps and point
// sources. References are written here directly from the equations.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "launcher.h"

namespace {

struct Array {
  double* p;
  size_t n;
  explicit Array(size_t count) : p(static_cast<double*>(std::aligned_alloc(128, ((count * 8 + 127) / 128) * 128))), n(count) {}
  ~Array() { std::free(p); }
  void random(unsigned seed) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<double> d(0.5, 1.5);
    for (size_t i = 0; i < n; ++i) p[i] = d(g);
  }
  void fill(double v) {
    for (size_t i = 0; i < n; ++i) p[i] = v;
  }
};

}  // namespace

TEST_CASE("argument checks reject null, bad extents, foreign layouts and aliasing") {
  namespace K = stn::avg;
  const stnc_rt::Layout L = K::layout(5, 6, 7);
  Array u(L.count), v(L.count);
  CHECK(K::cpu::sweep(L, u.p, v.p) == stnc_rt::kOk);
  CHECK(K::cpu::sweep(L, nullptr, v.p) == stnc_rt::kNullPointer);
  CHECK(K::cpu::sweep(L, u.p, u.p) == stnc_rt::kAliasing);  // u is read at offsets
  CHECK(K::cpu::sweep(K::layout(0, 6, 7), u.p, v.p) == stnc_rt::kBadExtent);
  CHECK(K::cpu::sweep(stn::damp::layout(5, 6, 7), u.p, v.p) != stnc_rt::kOk);  // layout of another kernel
}

TEST_CASE("the layout pads rows to 128 bytes and index() addresses the halo") {
  namespace K = stn::avg;
  const stnc_rt::Layout L = K::layout(5, 6, 7);
  CHECK(L.stride[1] % 16 == 0);
  CHECK(K::index(L, 0, 0, 0) % 16 == 0);  // interior rows start 128-byte aligned
  CHECK(K::index(L, 0, 0, 1) == K::index(L, 0, 0, 0) + 1);
  CHECK(K::index(L, -1, -1, -1) >= 0);
  CHECK(static_cast<size_t>(K::index(L, 5, 6, 7)) < L.count);
}

TEST_CASE("sweep_box writes exactly the points of the box") {
  namespace K = stn::avg;
  const stnc_rt::Layout L = K::layout(6, 5, 9);
  Array u(L.count), v(L.count);
  u.random(1);
  v.fill(-7.0);
  const long lo[3] = {1, 0, 2}, hi[3] = {4, 5, 8};
  REQUIRE(K::cpu::sweep_box(L, lo, hi, u.p, v.p) == stnc_rt::kOk);
  for (long i = 0; i < 6; ++i)
    for (long j = 0; j < 5; ++j)
      for (long k = 0; k < 9; ++k) {
        auto U = [&](long a, long b, long c) { return u.p[K::index(L, a, b, c)]; };
        bool in = i >= lo[0] && i < hi[0] && j >= lo[1] && j < hi[1] && k >= lo[2] && k < hi[2];
        double want = in ? (U(i - 1, j, k) + U(i + 1, j, k) + U(i, j - 1, k) + U(i, j + 1, k) + U(i, j, k - 1) + U(i, j, k + 1)) / 6.0
                         : -7.0;
        CHECK(v.p[K::index(L, i, j, k)] == want);
      }
}

TEST_CASE("regions: the inner box and the shell get their own equations") {
  namespace K = stn::damp;
  const long n0 = 9, n1 = 8, n2 = 7;
  const stnc_rt::Layout L = K::layout(n0, n1, n2);
  Array u(L.count), eta(L.count), v(L.count), v0(L.count);
  u.random(2);
  eta.random(3);
  v.random(4);
  for (size_t i = 0; i < L.count; ++i) v0.p[i] = v.p[i];
  REQUIRE(K::cpu::sweep(L, u.p, eta.p, v.p) == stnc_rt::kOk);
  int inner = 0, shell = 0;
  for (long i = 0; i < n0; ++i)
    for (long j = 0; j < n1; ++j)
      for (long k = 0; k < n2; ++k) {
        auto at = [&](long a, long b, long c) { return K::index(L, a, b, c); };
        double upd = 2.0 * u.p[at(i, j, k)] - v0.p[at(i, j, k)] +
                     0.1 * (u.p[at(i - 1, j, k)] + u.p[at(i + 1, j, k)] - 2.0 * u.p[at(i, j, k)]);
        bool isInner = i >= 2 && i < n0 - 2 && j >= 1 && j < n1 - 3 && k >= 3 && k < n2 - 1;
        double want = isInner ? upd : upd / (1.0 + eta.p[at(i, j, k)]);
        (isInner ? inner : shell)++;
        CHECK(v.p[at(i, j, k)] == want);
      }
  CHECK(inner == 5 * 4 * 3);
  CHECK(shell == n0 * n1 * n2 - inner);
}

TEST_CASE("step: periodic boundary, swaps and a point source") {
  namespace K = stn::line;
  const long n = 11, steps = 7;
  const stnc_rt::Layout L = K::layout(n);
  Array a(L.count), b(L.count);
  a.random(5);
  for (size_t i = 0; i < L.count; ++i) b.p[i] = a.p[i];
  std::vector<double> ref(n);
  for (long i = 0; i < n; ++i) ref[i] = a.p[K::index(L, i)];
  std::vector<double> wavelet(steps);
  for (long t = 0; t < steps; ++t) wavelet[t] = 0.25 * (t + 1);
  const double w = 0.2;
  K::Source src{1, 3, wavelet.data()};  // field 1 = b, the freshly computed array, at i = 3
  double* pa = a.p;
  double* pb = b.p;
  REQUIRE(K::cpu::step(L, steps, pa, pb, w, &src, 1) == stnc_rt::kOk);
  for (long t = 0; t < steps; ++t) {
    std::vector<double> next(n);
    for (long i = 0; i < n; ++i) {
      double l = ref[(i + n - 1) % n], r = ref[(i + 1) % n];
      next[i] = ref[i] + w * (l - 2.0 * ref[i] + r);
    }
    next[3] += wavelet[t];
    ref = next;
  }
  for (long i = 0; i < n; ++i) CHECK(pa[K::index(L, i)] == ref[i]);  // role a holds the newest values
  K::Source bad{1, 11, wavelet.data()};
  CHECK(K::cpu::step(L, 1, pa, pb, w, &bad, 1) == stnc_rt::kBadArgument);
}
