// Thread-block cluster experiment: do Hopper clusters (distributed shared memory, DSMEM) pay for the
// radius-4 star (bench workload star25_c, f64) by sharing j-halo rows between neighbouring blocks
// instead of re-reading them from L2? Against the stnc-generated kernel (stn::star25_c::cuda::sweep).
//
//   STNC=build-static/stnc bash bench/cluster/run.sh [N ...]   (builds, runs, prints a table per grid)
//   cluster_star25 N|NIxNJxNK [reps=30] [chunk=auto]              (reps 0: validate only)
//
// Every kernel is one template (star25<Cfg<...>>), 2.5-D streaming along dim 0 (i; k contiguous): a
// block of TK/2 x TJ threads owns a TK x TJ tile of (k, j) (each thread 2 consecutive k points, one
// 16-byte vector) and walks a chunk of i. Planes x0 .. x1+3 arrive in a ring of NS shared-memory
// slots (TJ+8 rows x TK+8 columns each) through 16-byte cp.async copies issued G+E planes ahead of
// need; the dim-0 neighbours of a point are a register queue of 9 double2, filled from the slots,
// except its first four planes x0-4 .. x0-1, loaded from global memory (as stnc does): in the ring
// they would need 8+E+G slots at the start, one slot per plane of the queue plus those in flight
// (the first version read them from slots that the prologue's copies of planes x0+4+E.. were already
// refilling: the chunk's first 2-3 output planes were wrong; bench/cluster/ring_model.py models it).
// Copies per plane: own rows with the 4 k-halo columns either side, j-halo rows only over the TK
// centre columns (a star needs no corners; stnc copies the whole (TK+8) x (TJ+8) rectangle).
// Modes (M):
//   kOwn    each block copies its tile and its full 4-row j-halo itself; __syncthreads per plane.
//   kOwnCB  the same, synchronised with barrier.cluster in a cluster of 1: the price of the
//           cluster barrier alone.
//   kPush   clusters of C blocks along j; a block copies its own rows and only the cluster's outer
//           j-halo rows (rank 0 the top 4, rank C-1 the bottom 4). As soon as its copies of a plane
//           land, each thread forwards the edge-row chunks it copied (own rows 0..3 and TJ-4..TJ-1)
//           into the matching halo rows of rank-1 / rank+1 with st.shared::cluster (fire and forget),
//           four planes before they are read.
//   kPull   the same copies; the compute reads the j-neighbour rows that belong to rank-1 / rank+1
//           straight from their shared memory (ld.shared::cluster), no extra copy.
// Synchronisation: one barrier per plane (per block, or per cluster). Iteration t (plane x = x0+t):
//   issue plane t+8+E+G; wait for my copies of planes <= t+8+E; push plane t+8+E; arrive;
//   [Split=false: wait]; compute x from slot t+4 (+ the centre of slot t+8); [Split: wait].
// Split=true puts the compute between barrier.cluster.arrive.release and wait.acquire, so a block
// does not stall on a slower neighbour before computing; that needs data one plane further ahead
// (E=1) and one more slot. A slot is refilled (or pushed into) only after every block of the
// cluster passed the barrier behind its last read: NS = 6 + E + G. All blocks of a cluster walk the
// same planes (no early exit); a cluster barrier precedes the first DSMEM access (every block has
// started) and follows the last (no block exits while a neighbour may still touch its memory).
// Edges: chunks outside the allocated array are skipped (they feed only points that are not stored);
// blocks past the grid edge (gridDim.y is padded to a multiple of C) copy what is allocated,
// compute garbage and store nothing.
// Controls in the table: own halo 64x16 reads from L2 exactly what a cluster of 2 x 64x8 does (without
// DSMEM, at 2 blocks of 512 threads per SM instead of 3 x 256); own halo + cluster barrier prices
// barrier.cluster alone; every variant has 8 slots (same shared memory per tile shape) unless noted.
// Results are compared bit for bit with the stnc kernel (same expression order, -fmad=false on both),
// on an output whose interior is poisoned first, so a missed point cannot pass.
#include <cuda_runtime.h>

#include "experiment.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "star25_c.h"

namespace {

enum Mode { kOwn, kOwnCB, kPush, kPull };
const char* const kModeName[] = {"own halo", "own halo, cluster barrier", "cluster push", "cluster pull"};

template <int TK_, int TJ_, int C_, int M_, bool Split_, int G_>
struct Cfg {
  static constexpr int TK = TK_, TJ = TJ_, C = C_, M = M_, E = Split_ ? 1 : 0, G = G_, NT = TK / 2 * TJ;
  static constexpr int W = TK + 8, R = TJ + 8, NS = 6 + E + G;  // slot: R rows x W columns
  static constexpr bool kSplit = Split_, kCB = C > 1 || M == kOwnCB;  // kCB: synchronised by barrier.cluster
  static constexpr unsigned kSlot = R * W, kSmem = NS * kSlot * 8;     // elements per slot, bytes
  static constexpr int kBlocksPerSm = std::min(2048 / NT, 233472 / static_cast<int>(kSmem + 1024));
  static_assert(TJ >= 4 && TK % 32 == 0 && (C == 1) == (M <= kOwnCB) && kSmem <= 232448, "shape");
};

// Weight at distance d (0..4) along any axis.
__host__ __device__ constexpr double wt(int d) { return d == 0 ? 0.1 : d == 1 ? 0.06 : d == 2 ? 0.045 : d == 3 ? 0.03 : 0.015; }

// The generated kernel's sum, term for term: the centre, then dim 0 at -4..-1, +1..+4, then dim 1,
// then dim 2 (the order of the offsets in star25_c.stn), left to right; no FMA (-fmad=false).
__device__ __forceinline__ double star(double c, const double (&a)[3][8]) {
  double s = wt(0) * c;
#pragma unroll
  for (int d = 0; d < 3; ++d)
#pragma unroll
    for (int m = 0; m < 8; ++m) s = s + wt(m < 4 ? 4 - m : m - 3) * a[d][m];
  return s;
}

__device__ __forceinline__ void cpAsync16(unsigned dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void cpCommit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cpWait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }
__device__ __forceinline__ void clusterArrive() { asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void clusterArriveRelaxed() { asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void clusterWait() { asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory"); }
__device__ __forceinline__ unsigned ctaRank() { unsigned r; asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r)); return r; }
// The shared::cluster address of shared::cta address a in the block of rank r of this cluster.
__device__ __forceinline__ unsigned mapa(unsigned a, unsigned r) {
  unsigned d; asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(d) : "r"(a), "r"(r)); return d;
}
__device__ __forceinline__ double2 ldCluster(unsigned a) {
  double2 v; asm volatile("ld.shared::cluster.v2.f64 {%0, %1}, [%2];\n" : "=d"(v.x), "=d"(v.y) : "r"(a) : "memory"); return v;
}
__device__ __forceinline__ void stCluster(unsigned a, double2 v) {
  asm volatile("st.shared::cluster.v2.f64 [%0], {%1, %2};\n" ::"r"(a), "d"(v.x), "d"(v.y) : "memory");
}

template <class K>
__global__ void __launch_bounds__(K::NT, K::kBlocksPerSm)
    star25(const stnc_rt::Layout L, const long chunk, const double* __restrict__ u, double* __restrict__ v) {
  constexpr int TK = K::TK, TJ = K::TJ, C = K::C, W = K::W, NS = K::NS, E = K::E, G = K::G, NT = K::NT;
  constexpr int H = TK / 2, O = TK / 2 + 4;  // 16-byte chunks in a j-halo row (centre columns) and in an own row
  constexpr int kMine = (8 * H + TJ * O + NT - 1) / NT;
  extern __shared__ __align__(16) double sm[];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * H + tx;
  const unsigned rank = C > 1 ? ctaRank() : 0;  // == blockIdx.y % C: clusters are (1, C, 1)
  const bool top = rank == 0, bot = rank == C - 1;  // loads the cluster's outer top / bottom j-halo
  if constexpr (C > 1) clusterArriveRelaxed();  // "started": its wait precedes the first DSMEM access
  const long z0 = blockIdx.x * static_cast<long>(TK), y0 = blockIdx.y * static_cast<long>(TJ), x0 = blockIdx.z * chunk;
  const long x1 = x0 + chunk < L.n[0] ? x0 + chunk : L.n[0];
  const int nt = static_cast<int>(x1 - x0), nq = nt + 8;  // planes q = 0 .. nq-1 are x0-4 .. x1+3 (0 .. 3 not in the ring)
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(sm));
  // My row r is row r + TJ of rank-1 and row r - TJ of rank+1: the same slot offset plus these.
  const unsigned up = C > 1 && !top ? mapa(base, rank - 1) + TJ * W * 8 : 0;
  const unsigned dn = C > 1 && !bot ? mapa(base, rank + 1) - TJ * W * 8 : 0;
  const unsigned self = K::M == kPull ? mapa(base, rank) : 0;  // my own slots as shared::cluster addresses
  // This thread's chunks: the block's rows in order (top halo if loaded, own rows, bottom halo if
  // loaded), chunk i to thread i % NT. src: element offset in a plane (an int: fewer registers);
  // dst: byte offset in a slot (a multiple of 16) | flags 1 copy, 2 push to rank-1, 4 push to rank+1.
  int src[kMine];
  unsigned dst[kMine];
  const long rowHi = L.dim[1] - L.pad[1], colHi = L.dim[2] - L.pad[2];
#pragma unroll
  for (int j = 0; j < kMine; ++j) {
    int i = tid + j * NT, r = 1 << 20, c = 0;
    if (top && i < 4 * H) {
      r = i / H - 4, c = i % H * 2;
    } else {
      if (top) i -= 4 * H;
      if (i < TJ * O) {
        r = i / O, c = i % O * 2 - 4;
      } else if (bot && i - TJ * O < 4 * H) {
        i -= TJ * O;
        r = TJ + i / H, c = i % H * 2;
      }
    }
    const long y = y0 + r, z = z0 + c;
    const bool ok = r < (1 << 20) && y >= -L.pad[1] && y < rowHi && z >= -L.pad[2] && z + 2 <= colHi;
    const bool edge = K::M == kPush && ok && r >= 0 && r < TJ && c >= 0 && c < TK;
    src[j] = ok ? static_cast<int>(stnc_rt::at(L, 0, y, z)) : 0;
    dst[j] = ok ? static_cast<unsigned>(((r + 4) * W + c + 4) * 8) | 1u | (edge && r < 4 && !top ? 2u : 0u) | (edge && r >= TJ - 4 && !bot ? 4u : 0u) : 0;
  }
  auto slot = [](int q) { return static_cast<unsigned>(q) % NS * K::kSlot; };  // element offset of plane q's slot
  auto copy = [&](int q) {  // issue this thread's copies of plane q
    if (q >= nq) return;
    const double* plane = u + (x0 - 4 + q) * L.stride[0];
    const unsigned s = base + slot(q) * 8;
#pragma unroll
    for (int j = 0; j < kMine; ++j)
      if (dst[j] & 1) cpAsync16(s + (dst[j] & ~15u), plane + src[j]);
  };
  auto push = [&](int q) {  // forward my landed edge chunks of plane q (read in full at iteration q-4)
    if (K::M != kPush || q < 4 || q >= nq - 4) return;
    const unsigned s = slot(q) * 8;
#pragma unroll
    for (int j = 0; j < kMine; ++j)
      if (dst[j] & 6) {
        const unsigned o = s + (dst[j] & ~15u);
        const double2 val = *reinterpret_cast<const double2*>(reinterpret_cast<const char*>(sm) + o);
        if (dst[j] & 2) stCluster(up + o, val);
        if (dst[j] & 4) stCluster(dn + o, val);
      }
  };
  // Prologue: planes 4 .. 7+E in one group, then G groups as iterations -G .. -1 would have issued.
  // Planes 0 .. 3 (x0-4 .. x0-1) never enter the ring: plane q shares its slot with plane q+NS =
  // q+6+E+G, and the prologue already issues planes up to 7+E+G (the slots of planes 0 and 1), iteration
  // 0 plane 8+E+G (plane 2's) before its barrier, while other threads may still be filling their queues.
  for (int q = 4; q < 8 + E; ++q) copy(q);
  cpCommit();
  for (int g = 0; g < G; ++g) {
    copy(8 + E + g);
    cpCommit();
  }
  const long s0 = L.stride[0], zc = z0 + 2 * tx;
  const bool rowIn = y0 + ty < L.n[1], colIn = zc < L.n[2];
  long p = stnc_rt::at(L, x0, y0 + ty, zc);
  double2 qv[9];  // the queue: this thread's two columns at i-4 .. i+4
#pragma unroll
  for (int m = 0; m < 4; ++m)  // planes x0-4 .. x0-1 from global memory (threads storing nothing: zeros)
    qv[m] = rowIn && colIn ? *reinterpret_cast<const double2*>(u + p + (m - 4) * s0) : double2{0.0, 0.0};
  cpWait<G>();  // my copies of planes <= 7+E have landed
  if constexpr (C > 1) clusterWait();  // every block of the cluster runs: DSMEM may be used
  for (int q = 4; q < 8 + E; ++q) push(q);
  if constexpr (K::kCB) clusterArrive(), clusterWait(); else __syncthreads();
  const int me = (ty + 4) * W + 2 * tx + 4;  // this thread's first point in a slot
  auto lds = [&](int q, int off) { return *reinterpret_cast<const double2*>(sm + slot(q) + me + off); };
#pragma unroll
  for (int m = 4; m < 8; ++m) qv[m] = lds(m, 0);
  for (int t = 0; t < nt; ++t, p += s0) {
    copy(t + 8 + E + G);
    cpCommit();
    cpWait<G>();  // my copies of planes <= t+8+E have landed
    push(t + 8 + E);
    if constexpr (K::kCB) clusterArrive();  // Split: wait after the compute
    if constexpr (!K::kSplit) K::kCB ? clusterWait() : __syncthreads();
    const int q = t + 4;  // plane x0+t, read in full
    qv[8] = lds(t + 8, 0);
    double2 jn[8];  // j-neighbours at -4..-1, +1..+4
#pragma unroll
    for (int m = 0; m < 8; ++m) {
      const int d = m < 4 ? m - 4 : m - 3;
      if constexpr (K::M == kPull)  // one code path: every j row through ld.shared::cluster, mine or a neighbour's
        jn[m] = ldCluster((d < 0 ? (ty + d < 0 && !top ? up : self) : (ty + d >= TJ && !bot ? dn : self)) + (slot(q) + me + d * W) * 8);
      else
        jn[m] = lds(q, d * W);
    }
    const double2 k0 = lds(q, -4), k1 = lds(q, -2), k2 = lds(q, 2), k3 = lds(q, 4);
    const double kk[10] = {k0.x, k0.y, k1.x, k1.y, qv[4].x, qv[4].y, k2.x, k2.y, k3.x, k3.y};  // columns c-4 .. c+5
    double a[3][8], b[3][8];  // the two points' neighbours, in the generated order
#pragma unroll
    for (int m = 0; m < 8; ++m) {
      const double2 iv = qv[m < 4 ? m : m + 1];
      a[0][m] = iv.x, b[0][m] = iv.y, a[1][m] = jn[m].x, b[1][m] = jn[m].y;
      a[2][m] = kk[m < 4 ? m : m + 1], b[2][m] = kk[m < 4 ? m + 1 : m + 2];
    }
    const double r0 = star(qv[4].x, a), r1 = star(qv[4].y, b);
    if (rowIn && zc + 1 < L.n[2]) __stcs(reinterpret_cast<double2*>(v + p), double2{r0, r1});  // evict-first, like stnc
    else if (rowIn && colIn) v[p] = r0;
    if constexpr (K::kSplit) K::kCB ? clusterWait() : __syncthreads();
#pragma unroll
    for (int m = 0; m < 8; ++m) qv[m] = qv[m + 1];
  }
  cpWait<0>();
  if constexpr (C > 1) clusterArrive(), clusterWait();  // no block leaves while a neighbour may still use its memory
}

template <class K>
cudaLaunchConfig_t config(const stnc_rt::Layout& L, long chunk, cudaLaunchAttribute* attr) {
  cudaLaunchConfig_t cfg{};
  const long gy = (L.n[1] + K::TJ - 1) / K::TJ;
  cfg.gridDim = dim3(static_cast<unsigned>((L.n[2] + K::TK - 1) / K::TK), static_cast<unsigned>((gy + K::C - 1) / K::C * K::C),
                     static_cast<unsigned>((L.n[0] + chunk - 1) / chunk));
  cfg.blockDim = dim3(K::TK / 2, K::TJ, 1);
  cfg.dynamicSmemBytes = K::kSmem;
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = 1, attr->val.clusterDim.y = K::C, attr->val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = K::kCB ? 1 : 0;
  return cfg;
}
template <class K>
cudaError_t launch(const stnc_rt::Layout& L, long chunk, const double* u, double* v) {
  cudaLaunchAttribute a;
  const cudaLaunchConfig_t cfg = config<K>(L, chunk, &a);
  return cudaLaunchKernelEx(&cfg, star25<K>, L, chunk, u, v);
}
template <class K>
double blocksPerSm(const stnc_rt::Layout& L, long chunk, int sms) {  // co-resident blocks per SM (occupancy API)
  cudaLaunchAttribute a;
  cudaLaunchConfig_t cfg = config<K>(L, chunk, &a);
  cfg.numAttrs = 1;
  int n = 0;
  if (cudaOccupancyMaxActiveClusters(&n, star25<K>, &cfg) != cudaSuccess) return (void)cudaGetLastError(), -1.0;
  return static_cast<double>(n) * K::C / sms;
}

struct Variant {
  int tk, tj, c, mode, ns, g;
  bool split;
  unsigned smem;
  cudaError_t (*launch)(const stnc_rt::Layout&, long, const double*, double*);
  double (*occ)(const stnc_rt::Layout&, long, int);
};
template <class K>
Variant make() {
  CK(cudaFuncSetAttribute(star25<K>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(K::kSmem)));
  return {K::TK, K::TJ, K::C, K::M, K::NS, K::G, K::kSplit, K::kSmem, launch<K>, blocksPerSm<K>};
}

__global__ void fillHash(double* a, size_t n) {  // deterministic values in [-1, 1)
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    unsigned long long z = (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    a[i] = static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1p-52 - 1.0;
  }
}
__global__ void poison(double* a, const stnc_rt::Layout L) {  // every interior point: 1e300
  const long n = L.n[0] * L.n[1] * L.n[2];
  for (long t = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; t < n; t += static_cast<long>(gridDim.x) * blockDim.x)
    a[stnc_rt::at(L, t / (L.n[1] * L.n[2]), t / L.n[2] % L.n[1], t % L.n[2])] = 1e300;
}
// Bitwise over the whole allocation. d: [0] count, [1 .. kSamples] element indices of some mismatches
// (the first to reach the counter), [kSamples+1] the lowest, [kSamples+2] the highest; planes[x + 4]:
// mismatches in plane x (x = -4 .. n0+3, halo planes included).
constexpr int kSamples = 5, kDiag = kSamples + 3;
__global__ void countDiff(const double* a, const double* b, size_t n, long s0, unsigned long long* d, unsigned* planes) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x)
    if (__double_as_longlong(a[i]) != __double_as_longlong(b[i])) {
      const unsigned long long k = atomicAdd(d, 1ull);
      if (k < kSamples) d[1 + k] = i;
      atomicMin(d + kSamples + 1, static_cast<unsigned long long>(i));
      atomicMax(d + kSamples + 2, static_cast<unsigned long long>(i));
      atomicAdd(planes + i / s0, 1u);
    }
}

// (i, j, k) of element e of the allocation, interior frame (halo points: < 0 or >= n).
void coords(const stnc_rt::Layout& L, unsigned long long e, long c[3]) {
  const long r = static_cast<long>(e % static_cast<unsigned long long>(L.stride[0]));
  c[0] = static_cast<long>(e / static_cast<unsigned long long>(L.stride[0])) - L.pad[0];
  c[1] = r / L.stride[1] - L.pad[1];
  c[2] = r % L.stride[1] - L.pad[2];
}
// One variant's mismatch report: the mismatching i planes (as ranges, with their counts) and up to
// kSamples points with the expected and the computed value, plus the lowest and highest.
std::string mismatches(const stnc_rt::Layout& L, long chunk, const double* ref, const double* out, const unsigned long long* d,
                       const unsigned* planesDev, const std::string& name) {
  char buf[256];
  std::string s;
  std::snprintf(buf, sizeof buf, "- %s: %llu points; i planes (points):", name.c_str(), d[0]);
  s += buf;
  std::vector<unsigned> planes(L.dim[0]);
  CK(cudaMemcpy(planes.data(), planesDev, planes.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  int ranges = 0;
  for (long x = 0; x < L.dim[0];) {
    if (!planes[x]) { ++x; continue; }
    long y = x;
    while (y + 1 < L.dim[0] && planes[y + 1] == planes[x]) ++y;
    if (++ranges > 16) { s += " ..."; break; }
    if (y > x) std::snprintf(buf, sizeof buf, " %ld-%ld (%u each)", x - L.pad[0], y - L.pad[0], planes[x]);
    else std::snprintf(buf, sizeof buf, " %ld (%u)", x - L.pad[0], planes[x]);
    s += buf;
    x = y + 1;
  }
  s += "\n";
  std::vector<unsigned long long> e(d + 1, d + 1 + std::min<unsigned long long>(d[0], kSamples));
  e.push_back(d[kSamples + 1]), e.push_back(d[kSamples + 2]);
  std::sort(e.begin(), e.end());
  e.erase(std::unique(e.begin(), e.end()), e.end());
  for (const unsigned long long i : e) {
    double want = 0, got = 0;
    CK(cudaMemcpy(&want, ref + i, sizeof want, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&got, out + i, sizeof got, cudaMemcpyDeviceToHost));
    long c[3];
    coords(L, i, c);
    const bool halo = c[0] < 0 || c[0] >= L.n[0] || c[1] < 0 || c[1] >= L.n[1] || c[2] < 0 || c[2] >= L.n[2];
    std::snprintf(buf, sizeof buf, "  - (%ld, %ld, %ld)%s, i %% chunk %ld: expected %.17g, got %.17g%s\n", c[0], c[1], c[2],
                  halo ? " (halo)" : "", c[0] >= 0 ? c[0] % chunk : c[0], want, got, i == d[kSamples + 1] ? " (lowest)" : i == d[kSamples + 2] ? " (highest)" : "");
    s += buf;
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  long ni = 256, nj = 256, nk = 256;
  if (argc > 1 && std::sscanf(argv[1], "%ldx%ldx%ld", &ni, &nj, &nk) != 3) ni = nj = nk = std::atol(argv[1]);
  const int reps = argc > 2 ? std::atoi(argv[2]) : 30;
  const stnc_rt::Layout L = stn::star25_c::layout(ni, nj, nk);
  if (L.count == 0 || L.origin + L.stride[0] > 0x7fffffffL) return std::fprintf(stderr, "bad grid\n"), 2;  // offsets in a plane: int
  int dev = 0, sms = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  // Planes per block: stnc's rule for its 32x16 tiles (~8 waves of 3 blocks per SM, 32..64 planes),
  // from the tile count of 64x8 / 32x16 tiles, the same for every variant (the i-halo costs (chunk+8)/chunk).
  long chunk = (ni * ((nk + 63) / 64) * ((nj + 7) / 8) + 24L * sms - 1) / (24L * sms);
  chunk = std::max(std::min(ni, 32L), std::min(chunk, 64L));
  if (argc > 3 && std::atol(argv[3]) > 0) chunk = std::min(ni, std::atol(argv[3]));
  double *u, *ref, *out, *flush;
  unsigned long long* bad;  // countDiff's d
  unsigned* badPlanes;       // countDiff's planes
  const size_t flushN = (256u << 20) / sizeof(double);
  CK(cudaMalloc(&u, L.count * sizeof(double)));
  CK(cudaMalloc(&ref, L.count * sizeof(double)));
  CK(cudaMalloc(&out, L.count * sizeof(double)));
  CK(cudaMalloc(&flush, flushN * sizeof(double)));
  CK(cudaMalloc(&bad, kDiag * sizeof(unsigned long long)));
  CK(cudaMalloc(&badPlanes, L.dim[0] * sizeof(unsigned)));
  fillHash<<<4 * sms, 256>>>(u, L.count);
  fillHash<<<4 * sms, 256>>>(ref, L.count);  // the output's halo: any values, kept by every kernel
  CK(cudaGetLastError());
  CK(stn::star25_c::cuda::sweep(L, u, ref));  // the reference
  CK(cudaDeviceSynchronize());
  const double pts = static_cast<double>(ni) * nj * nk, floorUs = 2 * pts * 8 / 4.25e12 * 1e6;
  const double tStnc = reps > 0 ? 1e3 * medianMs([&] { CK(stn::star25_c::cuda::sweep(L, u, out)); }, reps, flush, flushN * sizeof(double)) : 0;
  // Cfg<TK, TJ, C, mode, split, G>
  const Variant vs[] = {
      make<Cfg<32, 16, 1, kOwn, false, 2>>(),   make<Cfg<64, 8, 1, kOwn, false, 2>>(),    make<Cfg<64, 16, 1, kOwn, false, 2>>(),
      make<Cfg<64, 8, 1, kOwnCB, false, 2>>(),  make<Cfg<64, 8, 2, kPush, false, 2>>(),   make<Cfg<64, 8, 4, kPush, false, 2>>(),
      make<Cfg<64, 8, 2, kPull, false, 2>>(),   make<Cfg<64, 8, 4, kPull, false, 2>>(),   make<Cfg<64, 8, 1, kOwn, true, 1>>(),
      make<Cfg<64, 8, 2, kPush, true, 1>>(),    make<Cfg<64, 8, 4, kPush, true, 1>>(),    make<Cfg<32, 16, 2, kPush, false, 2>>(),
      make<Cfg<32, 16, 4, kPush, false, 2>>(),  make<Cfg<64, 4, 4, kPush, false, 2>>(),   make<Cfg<64, 4, 4, kPull, false, 2>>(),
  };
  std::printf("grid %ldx%ldx%ld f64 star25_c; memory floor %.1f us (2 x %.0f MB at 4.25 TB/s); %ld planes per block; %d reps\n", ni, nj,
              nk, floorUs, pts * 8 / 1e6, chunk, reps);
  std::printf("| variant | tile k x j, cluster | threads, smem, slots, blocks/SM | us | of floor | vs stnc | L2 reads/pt: plane (x i-halo) |"
              " DSMEM/pt | validated |\n|---|---|---|---:|---:|---:|---:|---:|---|\n");
  if (reps > 0) std::printf("| stnc sweep (generated) | see schedule above | - | %.1f | %.2f | 1.00 | - | 0 | (reference) |\n", tStnc, floorUs / tStnc);
  int nbad = 0;
  std::string diag;  // mismatch details, printed after the table
  for (const Variant& w : vs) {
    CK(cudaMemcpy(out, ref, L.count * sizeof(double), cudaMemcpyDeviceToDevice));  // reference halo, poisoned interior
    poison<<<4 * sms, 256>>>(out, L);
    CK(cudaMemset(bad, 0, kDiag * sizeof(unsigned long long)));
    CK(cudaMemset(bad + kSamples + 1, 0xff, sizeof(unsigned long long)));  // the lowest: from ~0
    CK(cudaMemset(badPlanes, 0, L.dim[0] * sizeof(unsigned)));
    char shape[64], res[96], num[96] = "- | - | -", ok[64] = "yes";
    if (w.c > 1)
      std::snprintf(shape, sizeof shape, "%dx%d, %d along j (%dx%d)", w.tk, w.tj, w.c, w.tk, w.c * w.tj);
    else
      std::snprintf(shape, sizeof shape, "%dx%d", w.tk, w.tj);
    std::snprintf(res, sizeof res, "%d, %.0f KB, %d, %.2f", w.tk / 2 * w.tj, w.smem / 1024.0, w.ns, w.occ(L, chunk, sms));
    const char* label = !w.split ? "" : w.mode == kOwn ? ", sync after compute" : ", compute between arrive and wait";
    if (const cudaError_t e = w.launch(L, chunk, u, out)) {  // e.g. no cluster of this shape fits: report, go on
      (void)cudaGetLastError();
      std::printf("| %s%s, G=%d | %s | %s | launch failed: %s | | | | | **NO** |\n", kModeName[w.mode], label, w.g, shape, res, cudaGetErrorString(e));
      ++nbad;
      continue;
    }
    countDiff<<<4 * sms, 256>>>(out, ref, L.count, L.stride[0], bad, badPlanes);
    CK(cudaGetLastError());
    unsigned long long d[kDiag];
    CK(cudaMemcpy(d, bad, sizeof d, cudaMemcpyDeviceToHost));
    const unsigned long long nd = d[0];
    nbad += nd != 0;
    if (nd) diag += mismatches(L, chunk, ref, out, d, badPlanes, kModeName[w.mode] + std::string(label) + ", " + shape);
    const double t = reps > 0 ? 1e3 * medianMs([&] { CK(w.launch(L, chunk, u, out)); }, reps, flush, flushN * sizeof(double)) : 0;
    // Loaded from L2 per output point in a plane: the cluster's own rows with k-halos, its 8 outer
    // j-halo rows (centre columns); DSMEM: 4 rows pushed per inner boundary and direction (push), or
    // the 10 row reads of threads 0..3 (resp. TJ-4..TJ-1) per inner boundary and direction (pull).
    const double plane = static_cast<double>(w.c * w.tj * (w.tk + 8) + 8 * w.tk) / (w.c * w.tj * w.tk);
    const double ds = w.mode == kPush ? 8.0 * (w.c - 1) / (w.c * w.tj) : w.mode == kPull ? 20.0 * (w.c - 1) / (w.c * w.tj) : 0;
    if (reps > 0) std::snprintf(num, sizeof num, "%.1f | %.2f | %.2f", t, floorUs / t, tStnc / t);
    if (nd) std::snprintf(ok, sizeof ok, "**NO** (%llu points)", nd);
    std::printf("| %s%s, G=%d | %s | %s | %s | %.3f (%.3f) | %.3f | %s |\n", kModeName[w.mode], label, w.g, shape, res, num, plane,
                plane * (chunk + 8) / chunk, ds, ok);
  }
  std::printf("\nstnc copies a (TK+8) x (TJ+8) rectangle per tile (with corners): 32x16 tiles 1.875 per point in a plane;"
              " these kernels copy j-halo rows over the TK centre columns only.\n");
  if (!diag.empty()) std::printf("\nMismatches (i, j, k interior coordinates; i %% chunk: position in the block's chunk):\n%s", diag.c_str());
  return nbad ? 1 : 0;
}
