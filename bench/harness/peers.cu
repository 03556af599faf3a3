// Peers: straightforward hand-written CUDA kernels, one thread per output point, 32 x 8 thread
// blocks over (k, j), one block row per i plane. Coefficients are kernel arguments (read through
// the constant bank, as a programmer passing run-time coefficients would write it). Compiled with
// nvcc's default flags (FMA contraction on), unlike the stnc kernels (-fmad=false).
// They run on the same arrays (the stnc layout) as the stnc kernels; the harness checks each
// against stnc's output on the validation grid and by checksums on the benchmark grid.
#include <cstdio>
#include <cstdlib>

#include "bench.h"

namespace bench {
namespace {

constexpr int kBX = 32, kBY = 8;

struct Coef64 {
  double c[128];
};
struct Coef32 {
  float c[8];
};

struct Pos {
  long p, s0, s1;
  bool ok;
};

__device__ __forceinline__ Pos position(const stnc_rt::Layout& L) {
  const long z = blockIdx.x * static_cast<long>(kBX) + threadIdx.x;
  const long y = blockIdx.y * static_cast<long>(kBY) + threadIdx.y;
  const long x = blockIdx.z;
  Pos q;
  q.s0 = L.stride[0];
  q.s1 = L.stride[1];
  q.ok = z < L.n[2] && y < L.n[1];
  q.p = L.origin + x * q.s0 + y * q.s1 + z;
  return q;
}

// out = c0 u + sum over axes i, j, k and d = -R..-1, 1..R of c(axis, d) u(offset)
template <int R>
__global__ void __launch_bounds__(kBX* kBY) starKernel(const stnc_rt::Layout L, const double* __restrict__ u,
                                                        double* __restrict__ v, const Coef64 c) {
  const Pos q = position(L);
  if (!q.ok) return;
  const long st[3] = {q.s0, q.s1, 1};
  double acc = c.c[0] * u[q.p];
#pragma unroll
  for (int a = 0; a < 3; ++a) {
#pragma unroll
    for (int d = -R; d <= R; ++d) {
      if (d == 0) continue;
      const int idx = 1 + a * 2 * R + (d < 0 ? d + R : d + R - 1);
      acc += c.c[idx] * u[q.p + d * st[a]];
    }
  }
  v[q.p] = acc;
}

// out = sum over (a, b, c) in [-R, R]^3 (lexicographic) of w(a, b, c) u(a, b, c)
template <int R>
__global__ void __launch_bounds__(kBX* kBY) boxKernel(const stnc_rt::Layout L, const double* __restrict__ u,
                                                       double* __restrict__ v, const Coef64 c) {
  const Pos q = position(L);
  if (!q.ok) return;
  double acc = 0.0;
  int idx = 0;
#pragma unroll
  for (int a = -R; a <= R; ++a)
#pragma unroll
    for (int b = -R; b <= R; ++b)
#pragma unroll
      for (int e = -R; e <= R; ++e) acc += c.c[idx++] * u[q.p + a * q.s0 + b * q.s1 + e];
  v[q.p] = acc;
}

// p = sum over the 7-point star of c_n max(u, 0); out = |p|
__global__ void __launch_bounds__(kBX* kBY) condKernel(const stnc_rt::Layout L, const double* __restrict__ u,
                                                        double* __restrict__ v, const Coef64 c) {
  const Pos q = position(L);
  if (!q.ok) return;
  double p = c.c[0] * fmax(u[q.p], 0.0);
  p += c.c[1] * fmax(u[q.p - q.s0], 0.0);
  p += c.c[2] * fmax(u[q.p + q.s0], 0.0);
  p += c.c[3] * fmax(u[q.p - q.s1], 0.0);
  p += c.c[4] * fmax(u[q.p + q.s1], 0.0);
  p += c.c[5] * fmax(u[q.p - 1], 0.0);
  p += c.c[6] * fmax(u[q.p + 1], 0.0);
  v[q.p] = fabs(p);
}

// pnext = 2 pcur - pprev + vel (c0 pcur + sum_r c_r (6 neighbours at distance r))
__global__ void __launch_bounds__(kBX* kBY) isoKernel(const stnc_rt::Layout L, const double* __restrict__ pc,
                                                       const double* __restrict__ pp, const double* __restrict__ vel,
                                                       double* __restrict__ pn, const Coef64 c) {
  const Pos q = position(L);
  if (!q.ok) return;
  const long p = q.p;
  double lap = c.c[0] * pc[p];
#pragma unroll
  for (int r = 1; r <= 4; ++r)
    lap += c.c[r] * (pc[p + r * q.s0] + pc[p - r * q.s0] + pc[p + r * q.s1] + pc[p - r * q.s1] + pc[p + r] + pc[p - r]);
  pn[p] = 2.0 * pc[p] - pp[p] + vel[p] * lap;
}

// The acoustic inner update, f32, in place: v = 2u - v + roc2 (c0 u + sum_r c_r (...))
__global__ void __launch_bounds__(kBX* kBY) acousticKernel(const stnc_rt::Layout L, const float* __restrict__ u,
                                                            const float* __restrict__ roc2, float* __restrict__ v,
                                                            const Coef32 c) {
  const Pos q = position(L);
  if (!q.ok) return;
  const long p = q.p;
  float lap = c.c[0] * u[p];
#pragma unroll
  for (int r = 1; r <= 4; ++r)
    lap += c.c[r] * (u[p + r * q.s0] + u[p - r * q.s0] + u[p + r * q.s1] + u[p - r * q.s1] + u[p + r] + u[p - r]);
  v[p] = 2.0f * u[p] - v[p] + roc2[p] * lap;
}

// CNS hypterm, all five fluxes per thread. Fields: qu qv qw qpres cons_imx cons_imy cons_imz
// cons_iene flux_irho flux_imx flux_imy flux_imz flux_iene. coef: ALP BET GAM DEL dxinv0..2.
struct HypFields {
  const double* __restrict__ qu;
  const double* __restrict__ qv;
  const double* __restrict__ qw;
  const double* __restrict__ qp;
  const double* __restrict__ mx;
  const double* __restrict__ my;
  const double* __restrict__ mz;
  const double* __restrict__ en;
  double* __restrict__ frho;
  double* __restrict__ fmx;
  double* __restrict__ fmy;
  double* __restrict__ fmz;
  double* __restrict__ fen;
};

__global__ void __launch_bounds__(kBX* kBY) hypKernel(const stnc_rt::Layout L, const HypFields f, const Coef64 c) {
  const Pos q = position(L);
  if (!q.ok) return;
  const long p = q.p;
  const long st[3] = {q.s0, q.s1, 1};
  const double* vel[3] = {f.qu, f.qv, f.qw};
  const double* mom[3] = {f.mx, f.my, f.mz};
  double drho = 0, dmx = 0, dmy = 0, dmz = 0, den = 0;
#pragma unroll
  for (int a = 0; a < 3; ++a) {
    const double* w = vel[a];
    double rho = 0, mx = 0, my = 0, mz = 0, en = 0;
#pragma unroll
    for (int m = 1; m <= 4; ++m) {
      const long o = m * st[a];
      const double k = c.c[m - 1];
      const long pp = p + o, pm = p - o;
      rho += k * (mom[a][pp] - mom[a][pm]);
      mx += k * ((f.mx[pp] * w[pp] + (a == 0 ? f.qp[pp] : 0.0)) - (f.mx[pm] * w[pm] + (a == 0 ? f.qp[pm] : 0.0)));
      my += k * ((f.my[pp] * w[pp] + (a == 1 ? f.qp[pp] : 0.0)) - (f.my[pm] * w[pm] + (a == 1 ? f.qp[pm] : 0.0)));
      mz += k * ((f.mz[pp] * w[pp] + (a == 2 ? f.qp[pp] : 0.0)) - (f.mz[pm] * w[pm] + (a == 2 ? f.qp[pm] : 0.0)));
      en += k * ((f.en[pp] + f.qp[pp]) * w[pp] - (f.en[pm] + f.qp[pm]) * w[pm]);
    }
    const double dxi = c.c[4 + a];
    drho += dxi * rho;
    dmx += dxi * mx;
    dmy += dxi * my;
    dmz += dxi * mz;
    den += dxi * en;
  }
  f.frho[p] = -drho;
  f.fmx[p] = -dmx;
  f.fmy[p] = -dmy;
  f.fmz[p] = -dmz;
  f.fen[p] = -den;
}

dim3 gridFor(const stnc_rt::Layout& L) {
  return dim3(static_cast<unsigned>((L.n[2] + kBX - 1) / kBX), static_cast<unsigned>((L.n[1] + kBY - 1) / kBY),
              static_cast<unsigned>(L.n[0]));
}

}  // namespace

bool hasPeer(const PeerSpec& p) { return !p.kind.empty(); }

cudaError_t runPeer(const PeerSpec& ps, const stnc_rt::Layout& L, void* const* f, cudaStream_t s) {
  const dim3 block(kBX, kBY), grid = gridFor(L);
  Coef64 c{};
  for (size_t i = 0; i < ps.coef.size() && i < 128; ++i) c.c[i] = ps.coef[i];
  auto d = [&](int i) { return static_cast<double*>(f[i]); };
  if (ps.kind == "star") {
    switch (ps.r) {
      case 1: starKernel<1><<<grid, block, 0, s>>>(L, d(0), d(1), c); break;
      case 2: starKernel<2><<<grid, block, 0, s>>>(L, d(0), d(1), c); break;
      case 3: starKernel<3><<<grid, block, 0, s>>>(L, d(0), d(1), c); break;
      case 4: starKernel<4><<<grid, block, 0, s>>>(L, d(0), d(1), c); break;
      default: return cudaErrorInvalidValue;
    }
  } else if (ps.kind == "box") {
    switch (ps.r) {
      case 1: boxKernel<1><<<grid, block, 0, s>>>(L, d(0), d(1), c); break;
      case 2: boxKernel<2><<<grid, block, 0, s>>>(L, d(0), d(1), c); break;
      default: return cudaErrorInvalidValue;
    }
  } else if (ps.kind == "cond") {
    condKernel<<<grid, block, 0, s>>>(L, d(0), d(1), c);
  } else if (ps.kind == "iso3dfd") {
    isoKernel<<<grid, block, 0, s>>>(L, d(0), d(1), d(2), d(3), c);
  } else if (ps.kind == "acoustic") {
    Coef32 c32{};
    for (size_t i = 0; i < ps.coef.size() && i < 8; ++i) c32.c[i] = static_cast<float>(ps.coef[i]);
    auto g = [&](int i) { return static_cast<float*>(f[i]); };
    acousticKernel<<<grid, block, 0, s>>>(L, g(0), g(1), g(2), c32);
  } else if (ps.kind == "hypterm") {
    HypFields h{d(0), d(1), d(2), d(3), d(4), d(5), d(6), d(7), d(8), d(9), d(10), d(11), d(12)};
    hypKernel<<<grid, block, 0, s>>>(L, h, c);
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace bench
