// stnc runtime: the array layout and the boundary fills shared by every generated kernel and by
// `stnc run`. This file is embedded verbatim into each generated header (guarded, so several
// generated headers can be included together) and compiled into the stnc driver.
#ifndef STNC_RUNTIME_H_V1
#define STNC_RUNTIME_H_V1
#include <cstddef>
#include <cstdint>

#ifdef __CUDACC__
#define STNC_HD __host__ __device__
#else
#define STNC_HD
#endif

namespace stnc_rt {

// Status codes of the CPU launchers (the CUDA launchers return cudaError_t).
enum Status : int {
  kOk = 0,
  kNullPointer = 1,  // a field pointer is null
  kBadExtent = 2,    // an extent is <= 0 (or the array would not fit in memory)
  kMisaligned = 3,   // a pointer is not aligned as the layout requires
  kAliasing = 4,     // an output overlaps another field it must not overlap
  kBadArgument = 5,  // anything else (negative step count, ...)
};

inline const char* statusName(int s) {
  switch (s) {
    case kOk: return "ok";
    case kNullPointer: return "null field pointer";
    case kBadExtent: return "extent must be positive";
    case kMisaligned: return "misaligned field pointer";
    case kAliasing: return "an output aliases a field it must not overlap";
    case kBadArgument: return "bad argument";
    default: return "unknown status";
  }
}

// Dense row-major layout of one array. Internally every kernel is 3-D: a rank-r stencil uses the
// last r dimensions, the leading ones have extent 1 and no halo. Dimension 2 is contiguous.
// The innermost halo is padded so every interior row starts on a 128-byte boundary when the base
// pointer is 128-byte aligned; a layout made for an aligned column a (makeLayout's alignAt: a region's
// first column, --align-region=on) pads so that column a starts there instead, and interior column 0 lies
// pad[2] mod (128 bytes) columns past the boundary (the kernel's kLayoutPhase; tiles and vectors: alignCol).
struct Layout {
  long n[3];        // interior extents
  long pad[3];      // cells allocated before the interior along each dimension (>= halo)
  long dim[3];      // allocated extents (dim[2] is the row pitch, a multiple of 128 bytes)
  long stride[3];   // element strides
  long origin;      // element index of interior point (0,0,0)
  size_t count;     // elements to allocate
  int halo[3];      // the stencil's halo per dimension (what boundary rules fill)
};

inline long roundUp(long x, long m) { return (x + m - 1) / m * m; }

// n and halo in internal (3-D) dimension order; alignAt: the interior column (>= 0) to start on a 128-byte
// boundary (0: every interior row's first). Returns false on a bad extent.
inline bool makeLayout(const long n[3], const int halo[3], int elemBytes, Layout& L, long alignAt = 0) {
  const long align = 128 / elemBytes;
  for (int d = 0; d < 3; ++d) {
    if (n[d] <= 0 || n[d] > (1L << 31)) return false;
    L.n[d] = n[d];
    L.halo[d] = halo[d];
  }
  L.pad[0] = halo[0];
  L.pad[1] = halo[1];
  if (alignAt < 0 || alignAt >= n[2]) alignAt = 0;
  L.pad[2] = halo[2] == 0 ? 0 : roundUp(halo[2] + alignAt, align) - alignAt;  // the least pad >= halo that aligns column alignAt
  L.dim[0] = n[0] + 2 * halo[0];
  L.dim[1] = n[1] + 2 * halo[1];
  L.dim[2] = roundUp(L.pad[2] + n[2] + halo[2], align);
  L.stride[2] = 1;
  L.stride[1] = L.dim[2];
  L.stride[0] = L.dim[1] * L.dim[2];
  L.origin = L.pad[0] * L.stride[0] + L.pad[1] * L.stride[1] + L.pad[2];
  L.count = static_cast<size_t>(L.dim[0]) * static_cast<size_t>(L.stride[0]);
  return true;
}

STNC_HD inline long at(const Layout& L, long x, long y, long z) {
  return L.origin + x * L.stride[0] + y * L.stride[1] + z;
}

// Lower-rank fields (`in c(k);`, docs/EXTENSIONS.md): an array dense over the internal dimensions in Dims
// (bit d = dimension d), n[d] + 2 * halo[d] points along each, row-major, no pad. lowerCount: elements to
// allocate; lowerAt: the element of interior point (x, y, z) (halo points: coordinates in [-halo, 0) and
// [n, n + halo)). Clamp (the CUDA stream kernels): a coordinate outside the allocated range is clamped into it, so the
// lanes of a tile past a box's edge, whose values are never stored, still read inside the array; the CPU loops
// visit only points of the box (no clamp: the contiguous index stays linear and vectorizes). InRange: dimensions
// whose coordinate the caller knows to lie in the array, never clamped even with Clamp (the stream kernels' dim 0:
// the plane loop stays inside the box, and the array holds the halo; the shell of the acoustic sample reads
// etax(i-1..i+1) every plane, three clamps of 64-bit coordinates saved per plane and thread).
inline size_t lowerCount(const Layout& L, unsigned dims) {
  size_t c = 1;
  for (int d = 0; d < 3; ++d)
    if (dims & (1u << d)) c *= static_cast<size_t>(L.n[d] + 2 * L.halo[d]);
  return c;
}
// Elements of a field's array: dims 0 = the layout's L.count, else a lower-rank field's lowerCount.
inline size_t fieldCount(const Layout& L, unsigned dims) { return dims ? lowerCount(L, dims) : L.count; }
template <unsigned Dims, bool Clamp, unsigned InRange = 0u>
STNC_HD inline long lowerAt(const Layout& L, long x, long y, long z) {
  const long c[3] = {x, y, z};
  long i = 0;
  for (int d = 0; d < 3; ++d)
    if (Dims & (1u << d)) {
      const long e = L.n[d] + 2 * L.halo[d];
      const long v = c[d] + L.halo[d];
      i = i * e + (!Clamp || (InRange & (1u << d)) ? v : v < 0 ? 0 : v >= e ? e - 1 : v);
    }
  return i;
}

// A box of interior points: lo[d] <= x < hi[d] per internal dimension.
struct Box {
  long lo[3];
  long hi[3];
};

// The largest multiple of w that is <= x (x may be negative).
STNC_HD inline long alignDown(long x, long w) { return x - ((x % w) + w) % w; }
// The greatest interior column <= x that lies a multiple of w columns past a boundary, where interior column 0 lies
// `phase` columns past one: alignDown(x, w) for phase 0 (the columns of makeLayout's 128-byte boundaries with phase
// pad[2] mod (128 bytes); of 16-byte ones with phase pad[2] mod 16 bytes).
STNC_HD inline long alignCol(long phase, long x, long w) { return alignDown(x + phase, w) - phase; }

// Planes of dim 0 per block of a shared-memory ring kernel (chunk), when the schedule leaves it to the
// launch. nx: the box's depth; cols: blocks per plane (tile columns x tile rows); occupancy: resident blocks
// per SM of the kernel; threads: per block; sms: multiprocessors; minChunk: 8 x the dim-0 reach (each chunk
// re-reads that many planes around it to fill its queues); oneWave: the code generator's verdict that the
// re-read planes are worth a wave of long chunks (a dim-0 reach of 2 or more, and at least half of the
// fields copied into rings read across planes).
// - Few columns and oneWave (cols fit one wave of about 24 warps per SM, or of as many blocks as are
//   resident): cut each column into as many long chunks as that wave holds. Measured at 256^3 f64 (128
//   columns, bench/results/2026-12-01-s14-chunks.md): star13/19/25 85.0/90.4/96.0 -> 80.6/85.2/89.9 us,
//   star25_rt 99.6 -> 93.2 us; grids of 1.3-1.5 waves lose most (star25_rt at 2 blocks per SM: 3 chunks
//   117.9 us, 2 chunks 93.1 us). Not for radius 1 (star7, cond 77 -> 79 us) nor iso3dfd, whose queued field is
//   one of three (145 -> 148 us).
// - Many columns: about 8 waves of resident blocks (shorter chunks balance the SMs, longer ones amortise the
//   prologue), within minChunk .. maxChunk planes: 64 where many fields are queued (hypterm 750 -> 737 us at 64
//   than 32), 32 where a chunk's prologue re-reads little (SmemPlan::maxChunk: the acoustic inner region 1824 ->
//   1784 us, bench/results/2026-12-01-s15-slab-tma.md; before the banded order 64 had won there, 2053 -> 2002 us),
//   8 x the reach for one field of dim-0 reach 1-2 (SmemPlan::shortChunks; star7 f64 at 512^3 0.654 -> 0.582 ms,
//   bench/results/2026-12-02-s23-f32-tiles.md §4).
inline long ringChunk(long nx, long cols, int occupancy, int threads, int sms, long minChunk, bool oneWave, long maxChunk = 64) {
  if (nx < 1) return 1;
  const long lo = nx < minChunk ? nx : minChunk;
  const long target = threads < 768 ? 768 / threads : 1;  // blocks of ~24 warps per SM
  const long wave = (occupancy < target ? occupancy : target) * static_cast<long>(sms);
  long c;
  if (oneWave && cols > 0 && cols <= wave) {
    const long n = wave / cols;  // chunks per column
    c = (nx + n - 1) / n;
    if (c < lo) c = lo;
  } else {
    const long resident = static_cast<long>(occupancy) * sms;
    c = (nx * cols + 8 * resident - 1) / (8 * resident);
    if (c > maxChunk) c = maxChunk;
    if (c < lo) c = lo;  // the reach's floor wins over the ceiling (radius > 8)
  }
  return c < nx ? c : nx;
}

// The launch order of a ring kernel (session 15): the grid is (tile columns along dim 2, band rows, bands x
// chunks); a band is `rows` whole rows of tile columns (about one wave of resident blocks), and the hardware runs
// a band's chunk 0 over its columns, then chunk 1, and so on. A column's chunk z+1 then starts about when its
// chunk z ends, so the planes it re-reads first are still in L2; ordering by chunk over the whole box, a box of
// more columns than a wave read them from DRAM again (the acoustic inner region, 13 x 47 columns in bands of 20 rows:
// 5.44 -> 5.32 GB of DRAM reads, 1850 -> 1824 us with a first form; bench/results/2026-12-01-s15-slab-tma.md). One band (few
// columns) is exactly the plain (columns, rows, chunks) order.
// ringBandRows: the tile rows per band for gx x gy tile columns (at least one, at most gy; more where bands x
// chunks would pass the grid's 65535 limit). bandedTile: block (blockIdx.y, blockIdx.z)'s tile row and chunk;
// rows past gy (the last band's) take no work.
inline long ringBandRows(long gx, long gy, long chunks, int occupancy, int sms) {
  const long wave = static_cast<long>(occupancy > 0 ? occupancy : 1) * (sms > 0 ? sms : 1);
  long rows = gx > 0 ? wave / gx : gy;
  if (rows < 1) rows = 1;
  if (rows > gy) rows = gy;
  while (rows < gy && (gy + rows - 1) / rows * chunks > 65535) rows = rows * 2 < gy ? rows * 2 : gy;
  return rows;
}
// (One band, gridZ == chunks, divides nothing: the division alone made ptxas spill star25_rt's kernel, 80 -> 64
// registers and 8 bytes, 87.7 -> 95.0 us.)
STNC_HD inline void bandedTile(unsigned blockY, unsigned blockZ, unsigned gridY, unsigned gridZ, long chunks, long& row, long& chunk) {
  row = blockY;
  chunk = blockZ;
  if (gridZ != chunks) {
    const long band = chunk / chunks;
    row += band * gridY;
    chunk -= band * chunks;
  }
}

STNC_HD inline bool boxEmpty(const Box& b) {
  return b.lo[0] >= b.hi[0] || b.lo[1] >= b.hi[1] || b.lo[2] >= b.hi[2];
}

inline Box interiorBox(const Layout& L) { return Box{{0, 0, 0}, {L.n[0], L.n[1], L.n[2]}}; }

inline Box intersect(const Box& a, const Box& b) {
  Box r;
  for (int d = 0; d < 3; ++d) {
    r.lo[d] = a.lo[d] > b.lo[d] ? a.lo[d] : b.lo[d];
    r.hi[d] = a.hi[d] < b.hi[d] ? a.hi[d] : b.hi[d];
  }
  return r;
}

// The box of a region: lo[d] <= x < n[d] + hi[d] (hi <= 0 counts from the end).
inline Box regionBox(const Layout& L, const int lo[3], const int hi[3]) {
  Box r;
  for (int d = 0; d < 3; ++d) {
    r.lo[d] = lo[d];
    r.hi[d] = L.n[d] + hi[d];
  }
  return intersect(r, interiorBox(L));
}

// Replaces boxes[0..n) by their parts outside `hole` (each box splits into at most 6 disjoint
// slabs: below/above the hole along dim 0, then dim 1, then dim 2). Returns the new count, or -1
// if more than `cap` boxes would be needed.
inline int subtractBox(Box* boxes, int n, int cap, const Box& hole) {
  Box out[64];
  int m = 0;
  for (int i = 0; i < n; ++i) {
    Box a = boxes[i];
    if (boxEmpty(intersect(a, hole))) {
      if (m == 64) return -1;
      out[m++] = a;
      continue;
    }
    for (int d = 0; d < 3; ++d) {
      if (a.lo[d] < hole.lo[d]) {
        Box s = a;
        s.hi[d] = hole.lo[d];
        if (m == 64) return -1;
        out[m++] = s;
        a.lo[d] = hole.lo[d];
      }
      if (hole.hi[d] < a.hi[d]) {
        Box s = a;
        s.lo[d] = hole.hi[d];
        if (m == 64) return -1;
        out[m++] = s;
        a.hi[d] = hole.hi[d];
      }
    }
  }
  if (m > cap) return -1;
  for (int i = 0; i < m; ++i) boxes[i] = out[i];
  return m;
}

// Boundary rules: the filled halo equals numpy.pad(interior, halo, mode) for
// periodic = 'wrap', value = 'constant', clamp = 'edge', mirror = 'symmetric'.
enum BoundaryKind : int { kPeriodic = 0, kValue = 1, kClamp = 2, kMirror = 3 };

// Source coordinate of halo coordinate x (outside [0, n)) along one dimension; -1 = use value.
STNC_HD inline long boundarySource(long x, long n, int kind) {
  switch (kind) {
    case kPeriodic: {
      long m = x % n;
      return m < 0 ? m + n : m;
    }
    case kClamp: return x < 0 ? 0 : (x >= n ? n - 1 : x);
    case kMirror: {
      long p = 2 * n, m = x % p;
      if (m < 0) m += p;
      return m >= n ? p - 1 - m : m;
    }
    default: return -1;
  }
}

// Fills the halo of `a` along dimension d (numpy.pad order: dimensions before d are taken over
// their padded range, dimensions after d over their interior).
template <typename T>
void fillBoundaryDim(T* a, const Layout& L, int d, int kind, T value) {
  const long h = L.halo[d];
  if (h == 0) return;
  long lo[3], hi[3];
  for (int e = 0; e < 3; ++e) {
    lo[e] = e < d ? -L.halo[e] : 0;
    hi[e] = e < d ? L.n[e] + L.halo[e] : L.n[e];
  }
  const long n = L.n[d];
  // Walk the two halo slabs of dimension d.
  for (int side = 0; side < 2; ++side) {
    long r[3][2];
    for (int e = 0; e < 3; ++e) {
      r[e][0] = lo[e];
      r[e][1] = hi[e];
    }
    r[d][0] = side == 0 ? -h : n;
    r[d][1] = side == 0 ? 0 : n + h;
    for (long x = r[0][0]; x < r[0][1]; ++x)
      for (long y = r[1][0]; y < r[1][1]; ++y)
        for (long z = r[2][0]; z < r[2][1]; ++z) {
          long p[3] = {x, y, z};
          long dst = at(L, x, y, z);
          long s = boundarySource(p[d], n, kind);
          if (s < 0) {
            a[dst] = value;
            continue;
          }
          p[d] = s;
          a[dst] = a[at(L, p[0], p[1], p[2])];
        }
  }
}

}  // namespace stnc_rt

#endif  // STNC_RUNTIME_H_V1

// Division in generated CUDA kernels (session 10; own guard): the CUDA backend prints a / b as
// stnc_rt::divide(a, b), the CPU backend keeps `/`. nvcc's IEEE division checks its operands (FCHK for
// float, a range test for double) and calls a slow subroutine when its fast reciprocal path might be off,
// and a zero numerator is such a case: fields that are zero over large regions (a wavefield before the wave
// arrives; the acoustic sample's PML kernels divide by 1 + 2 eta and 1 + eta) paid that call at every point.
// 0 / b for b nonzero and not NaN is a zero with the sign of a, flipped when b is negative: returned
// without dividing, bit for bit what a / b gives (tests/unit/codegen/DivideTest.cpp); any other case
// divides. Measured on the H200: bench/results/2026-11-30-divide.md.
#ifndef STNC_RUNTIME_DIVIDE_V1
#define STNC_RUNTIME_DIVIDE_V1
namespace stnc_rt {

// Written so that a nonzero numerator (random fields: nearly every point) costs one comparison and a branch
// before the division; the tests on b run only for a zero numerator (session 37; before, three comparisons and
// two predicate ands ran for every division). The static PTX count of the acoustic shell's loop is unchanged
// (the cold path holds a second division); the saving is on the path taken.
template <typename T>
STNC_HD inline T divide(T a, T b) {
  if (a != T(0)) return a / b;  // also a NaN numerator
  return b != b || b == T(0) ? a / b : b < T(0) ? -a : a;  // b != b: b is NaN
}

}  // namespace stnc_rt
#endif  // STNC_RUNTIME_DIVIDE_V1

// Exact selects in generated CUDA kernels (session 26; own guard, like divide): nvcc turns `x < 0 ? x : 0` (and
// the other selects between a value and a constant zero that it compares with) into min.f32 / max.f32, which
// order -0 below +0, so min(0.0, -0.0) gave -0 on the GPU where the language (docs/LANGUAGE.md) and the CPU give
// +0 (random campaign seed 53, case 41). pick(c, a, b) is `c ? a : b` through an inline-PTX select of the bits,
// which the compiler cannot rewrite; the CUDA backend prints it only for selects with a constant zero operand.
#ifndef STNC_RUNTIME_PICK_V1
#define STNC_RUNTIME_PICK_V1
namespace stnc_rt {

STNC_HD inline float pick(bool c, float a, float b) {
#ifdef __CUDA_ARCH__
  unsigned r;
  asm("{.reg .pred p; setp.ne.u32 p, %3, 0; selp.b32 %0, %1, %2, p;}"
      : "=r"(r)
      : "r"(__float_as_uint(a)), "r"(__float_as_uint(b)), "r"(static_cast<unsigned>(c)));
  return __uint_as_float(r);
#else
  return c ? a : b;
#endif
}

STNC_HD inline double pick(bool c, double a, double b) {
#ifdef __CUDA_ARCH__
  unsigned long long r;
  asm("{.reg .pred p; setp.ne.u32 p, %3, 0; selp.b64 %0, %1, %2, p;}"
      : "=l"(r)
      : "l"(static_cast<unsigned long long>(__double_as_longlong(a))),
        "l"(static_cast<unsigned long long>(__double_as_longlong(b))), "r"(static_cast<unsigned>(c)));
  return __longlong_as_double(static_cast<long long>(r));
#else
  return c ? a : b;
#endif
}

}  // namespace stnc_rt
#endif  // STNC_RUNTIME_PICK_V1

// Regions apart (session 16; own guard, like divide): whether no two of the n regions (bounds as in
// regionBox) share a point of L's interior. Overlapping regions are updated in declaration order, so the
// CUDA launcher's sweeps keep one stream for them (stnc_rt::Lanes, stnc_runtime_cuda.h).
#ifndef STNC_RUNTIME_REGIONS_APART_V1
#define STNC_RUNTIME_REGIONS_APART_V1
namespace stnc_rt {

inline bool regionsApart(const Layout& L, const int (*lo)[3], const int (*hi)[3], int n) {
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b)
      if (!boxEmpty(intersect(regionBox(L, lo[a], hi[a]), regionBox(L, lo[b], hi[b])))) return false;
  return true;
}

}  // namespace stnc_rt
#endif  // STNC_RUNTIME_REGIONS_APART_V1

// Corner chunks of a corner-free ring tile (session 24; own guard, host and device): the 16-byte chunk of
// `per` elements at row yy, columns zz .. zz+per-1 lies in a halo row (outside the block's rows [cy0, cy1))
// and wholly outside the block's columns [cz0, cz1). A star's points never read it (StarRingCopier,
// stnc_runtime_cuda.h; tests/unit/codegen/RingCornersTest.cpp checks that against the planner's footprints).
#ifndef STNC_RUNTIME_RING_CORNER_V1
#define STNC_RUNTIME_RING_CORNER_V1
namespace stnc_rt {

STNC_HD inline bool cornerChunk(long yy, long zz, int per, long cy0, long cy1, long cz0, long cz1) {
  return (yy < cy0 || yy >= cy1) && (zz + per <= cz0 || zz >= cz1);
}

}  // namespace stnc_rt
#endif  // STNC_RUNTIME_RING_CORNER_V1
