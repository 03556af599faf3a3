// stnc CUDA runtime: boundary fills on the device, error checking helpers. Embedded into every
// generated .cu file after stnc_runtime.h (guarded, like it).
#ifndef STNC_RUNTIME_CUDA_H_V1
#define STNC_RUNTIME_CUDA_H_V1
#include <cuda_runtime.h>

namespace stnc_rt {

// One thread per halo cell of one slab pair along dimension d (see fillBoundaryDim).
template <typename T>
__global__ void fillBoundaryDimKernel(T* a, Layout L, int d, int kind, T value) {
  const long h = L.halo[d];
  long lo[3], ext[3];
  for (int e = 0; e < 3; ++e) {
    lo[e] = e < d ? -L.halo[e] : 0;
    ext[e] = e < d ? L.n[e] + 2 * L.halo[e] : L.n[e];
  }
  ext[d] = 2 * h;  // both slabs
  const long total = ext[0] * ext[1] * ext[2];
  for (long t = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<long>(gridDim.x) * blockDim.x) {
    long c[3];
    long r = t;
    c[2] = r % ext[2];
    r /= ext[2];
    c[1] = r % ext[1];
    c[0] = r / ext[1];
    long p[3];
    for (int e = 0; e < 3; ++e) p[e] = c[e] + lo[e];
    p[d] = c[d] < h ? c[d] - h : L.n[d] + (c[d] - h);
    const long dst = at(L, p[0], p[1], p[2]);
    const long s = boundarySource(p[d], L.n[d], kind);
    if (s < 0) {
      a[dst] = value;
      continue;
    }
    p[d] = s;
    a[dst] = a[at(L, p[0], p[1], p[2])];
  }
}

template <typename T>
cudaError_t fillBoundaryDimDevice(T* a, const Layout& L, int d, int kind, T value, cudaStream_t stream) {
  if (L.halo[d] == 0) return cudaSuccess;
  long ext = 2L * L.halo[d];
  for (int e = 0; e < 3; ++e)
    if (e != d) ext *= e < d ? L.n[e] + 2 * L.halo[e] : L.n[e];
  const int threads = 256;
  long blocks = (ext + threads - 1) / threads;
  if (blocks > 65535) blocks = 65535;
  fillBoundaryDimKernel<T><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(a, L, d, kind, value);
  return cudaGetLastError();
}

}  // namespace stnc_rt

#endif  // STNC_RUNTIME_CUDA_H_V1

// The one cp.async of the runtime (session 9; own guard, ahead of the copiers that use it; files generated
// by the first session-9 compiler define it inside STNC_RUNTIME_CUDA_ASYNC_V3).
#if !defined(STNC_RUNTIME_CUDA_CP_ASYNC_V1) && !defined(STNC_RUNTIME_CUDA_ASYNC_V3)
#define STNC_RUNTIME_CUDA_CP_ASYNC_V1
namespace stnc_rt {

// 16 bytes from src to the shared address s, or 16 zero bytes when n is 0 (nothing read). Kind: 0 no L2
// hint, 1 evict first, 2 evict last (createpolicy per copy: only the opt-in STNC_L2_HINTS 1 and 4 use them).
template <int Kind>
__device__ __forceinline__ void cpAsyncShared(unsigned s, const void* src, int n) {
  if constexpr (Kind == 1)
    asm volatile("{\n.reg .b64 pol;\ncreatepolicy.fractional.L2::evict_first.b64 pol, 1.0;\n"
                 "cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2, pol;\n}\n" ::"r"(s), "l"(src), "r"(n) : "memory");
  else if constexpr (Kind == 2)
    asm volatile("{\n.reg .b64 pol;\ncreatepolicy.fractional.L2::evict_last.b64 pol, 1.0;\n"
                 "cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2, pol;\n}\n" ::"r"(s), "l"(src), "r"(n) : "memory");
  else
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(n) : "memory");
}

}  // namespace stnc_rt
#endif  // STNC_RUNTIME_CUDA_CP_ASYNC_V1 (or ASYNC_V3)

// Shared-memory plane pipeline (the stream schedule with --smem=on): 16-byte cp.async copies of a
// tile of one plane into shared memory, zero-filled where the tile leaves the allocated array (those
// values only feed points outside the box, which are never stored). Own guard: files generated
// before these helpers existed may share a translation unit with newer ones.
#ifndef STNC_RUNTIME_CUDA_ASYNC_V1
#define STNC_RUNTIME_CUDA_ASYNC_V1
namespace stnc_rt {

__device__ __forceinline__ void cpAsync16(void* dst, const void* src, bool valid) {
  // 0 bytes read when !valid: the 16 bytes are zero-filled
  cpAsyncShared<0>(static_cast<unsigned>(__cvta_generic_to_shared(dst)), src, valid ? 16 : 0);
}
__device__ __forceinline__ void cpAsyncCommit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// The copies of one thread for a Rows x Cols tile (row-major, Cols per row) whose first element is at
// (y, z) of every plane (z a multiple of 16 bytes in the interior frame), shared by the NT threads of a
// block. The tile's chunks of this thread and whether they lie inside the allocated rows are worked
// out once; copy() then costs one address add and one cp.async per chunk and plane. Chunks outside
// the allocation are zero-filled; a plane outside it is skipped.
template <typename T, int Rows, int Cols, int NT>
struct TileCopier {
  static constexpr int kPer = 16 / sizeof(T), kChunks = Rows * Cols / kPer, kMine = (kChunks + NT - 1) / NT;
  static_assert(Cols % kPer == 0, "tile rows are whole 16-byte chunks");
  long src[kMine];  // element offset in plane 0; -1: zero-fill; -2: no chunk for this thread
  __device__ __forceinline__ TileCopier(const Layout& L, long y, long z, int tid) {
    const long rowHi = L.dim[1] - L.pad[1], colHi = L.dim[2] - L.pad[2];
#pragma unroll
    for (int j = 0; j < kMine; ++j) {
      const int i = tid + j * NT, r = i / (Cols / kPer), c = (i - r * (Cols / kPer)) * kPer;
      const long yy = y + r, zz = z + c;
      const bool ok = yy >= -L.pad[1] && yy < rowHi && zz >= -L.pad[2] && zz + kPer <= colHi;
      src[j] = i >= kChunks ? -2 : ok ? at(L, 0, yy, zz) : -1;
    }
  }
  __device__ __forceinline__ void copy(T* dst, const T* a, const Layout& L, long x, int tid) const {
    if (x < -L.pad[0] || x >= L.dim[0] - L.pad[0]) return;
    const T* plane = a + x * L.stride[0];
#pragma unroll
    for (int j = 0; j < kMine; ++j)
      if (src[j] != -2) cpAsync16(dst + (tid + j * NT) * kPer, src[j] >= 0 ? plane + src[j] : a, src[j] >= 0);
  }
};

}  // namespace stnc_rt
#endif  // STNC_RUNTIME_CUDA_ASYNC_V1

// L2 eviction hints for the shared-memory pipeline (session 5): stores (nothing in the kernel reads
// them again) and tiles no other block reads (a field read at the centre only: v, roc2 in the acoustic
// leapfrog) can be marked evict-first, so that the 60 MB L2 keeps the lines neighbouring blocks read
// again (the halos of u) for longer.
// STNC_L2_HINTS, a sum of: 1 evict-first copies of single-use tiles, 2 evict-first stores, 4 evict-last
// copies of tiles with halos. Default 2: measured on the acoustic sample (samples/acoustic/profile.sh),
// evict-first stores ran its inner region 2166 -> 2053 us; evict-first copies slowed the 27-column PML
// faces (224 -> 257 us) and gained nothing inside; evict-last halos gained nothing. Own guard, like the block above.
#ifndef STNC_RUNTIME_CUDA_ASYNC_V2
#define STNC_RUNTIME_CUDA_ASYNC_V2
#ifndef STNC_L2_HINTS
#define STNC_L2_HINTS 2
#endif
#ifndef STNC_RING_CLIP
#define STNC_RING_CLIP 1
#endif
namespace stnc_rt {

// Kind: 0 no hint, 1 evict first, 2 evict last.
template <int Kind>
__device__ __forceinline__ void cpAsync16Hint(void* dst, const void* src, bool valid) {
  cpAsyncShared<Kind>(static_cast<unsigned>(__cvta_generic_to_shared(dst)), src, valid ? 16 : 0);
}

// A TileCopier whose copies carry an L2 policy: Reused false for tiles only this block reads.
template <typename T, int Rows, int Cols, int NT, bool Reused>
struct HintedTileCopier : TileCopier<T, Rows, Cols, NT> {
  using Base = TileCopier<T, Rows, Cols, NT>;
  static constexpr int kKind = (STNC_L2_HINTS & 1) && !Reused ? 1 : (STNC_L2_HINTS & 4) && Reused ? 2 : 0;
  // [ylo, yhi) x [zlo, zhi): the rows and columns the block's points inside the box read (the box grown by
  // the field's footprint). With STNC_RING_CLIP 1 (the default since session 6) chunks wholly outside are
  // zero-filled instead of read: they feed only points outside the box, which are never stored. A region
  // starting mid-row (the acoustic inner box at column 27 in 64-column tiles) otherwise reads 86 columns in
  // 832 that no stored point needs; clipped, its DRAM reads fell 5.99 -> 5.41 GB per sweep (2030 -> 1906 us).
  // Generated kernels pass bounds far outside the array for thin boxes, where clipping measured slower.
  __device__ __forceinline__ HintedTileCopier(const Layout& L, long y, long z, int tid, long ylo, long yhi, long zlo, long zhi)
      : Base(L, y, z, tid) {
#if STNC_RING_CLIP
#pragma unroll
    for (int j = 0; j < Base::kMine; ++j) {
      const int i = tid + j * NT, r = i / (Cols / Base::kPer), c = (i - r * (Cols / Base::kPer)) * Base::kPer;
      const long yy = y + r, zz = z + c;
      if (this->src[j] >= 0 && (yy < ylo || yy >= yhi || zz + Base::kPer <= zlo || zz >= zhi)) this->src[j] = -1;
    }
#else
    (void)ylo, (void)yhi, (void)zlo, (void)zhi;
#endif
  }
  __device__ __forceinline__ void copy(T* dst, const T* a, const Layout& L, long x, int tid) const {
    if (x < -L.pad[0] || x >= L.dim[0] - L.pad[0]) return;
    const T* plane = a + x * L.stride[0];
#pragma unroll
    for (int j = 0; j < Base::kMine; ++j)
      if (this->src[j] != -2)
        cpAsync16Hint<kKind>(dst + (tid + j * NT) * Base::kPer, this->src[j] >= 0 ? plane + this->src[j] : a, this->src[j] >= 0);
  }
};

// A store nothing in this kernel reads again: evict-first (st.global.cs) where STNC_L2_HINTS has 2.
template <typename V>
__device__ __forceinline__ void storeOnce(V* p, const V& v) {
#if STNC_L2_HINTS & 2
  __stcs(p, v);
#else
  *p = v;
#endif
}

}  // namespace stnc_rt
#endif  // STNC_RUNTIME_CUDA_ASYNC_V2

// The ring copier (session 9), which generated kernels use instead of the two copiers above (kept, with the
// same interface, for files generated before it that may share a translation unit). Everything a copy needs that does not
// change from plane to plane is worked out once per thread: the shared-memory address of its first chunk,
// each chunk's offset in a plane, and whether the chunk is read (16 bytes) or zero-filled (0 bytes read,
// from an allocated element). A copy then costs per plane one range test and one multiply, and per chunk a
// 64-bit add and a cp.async, with no branch: Nsight Compute measured the acoustic inner region issue-bound
// (72 % of issue slots busy) with 30 instructions per TileCopier copy, 4 copies in a 385-instruction loop.
// copy(slot, ...) fills slot `slot` of the ring passed to the constructor (slots are kSlotBytes apart).
#ifndef STNC_RUNTIME_CUDA_ASYNC_V3
#define STNC_RUNTIME_CUDA_ASYNC_V3
namespace stnc_rt {

// The copies of one thread into a ring of planes of a Rows x Cols tile (row-major) whose first element
// is at (y, z) of every plane (z a multiple of 16 bytes in the interior frame), shared by the NT threads of a
// block. Chunks outside the allocation are zero-filled, and so (STNC_RING_CLIP) are chunks wholly outside
// [ylo, yhi) x [zlo, zhi), the rows and columns the box's points read; a plane outside the allocation is
// skipped. Reused: whether neighbouring blocks read the tile too (the L2 hint; see HintedTileCopier).
// SlotElems: elements from one slot to the next (more than Rows x Cols where the rings are padded).
template <typename T, int Rows, int Cols, int NT, bool Reused, long SlotElems = static_cast<long>(Rows) * Cols>
struct RingCopier {
  static constexpr int kPer = 16 / static_cast<int>(sizeof(T)), kChunks = Rows * Cols / kPer, kMine = (kChunks + NT - 1) / NT;
  static constexpr bool kRagged = kChunks % NT != 0;  // only some threads have a chunk in the last round
  static constexpr unsigned kSlotBytes = static_cast<unsigned>(SlotElems * sizeof(T));
  static constexpr int kKind = (STNC_L2_HINTS & 1) && !Reused ? 1 : (STNC_L2_HINTS & 4) && Reused ? 2 : 0;
  static_assert(Cols % kPer == 0, "tile rows are whole 16-byte chunks");
  unsigned dst_;      // shared address of this thread's first chunk in slot 0
  long src_[kMine];   // element offset of each chunk in plane 0
  int bytes_[kMine];  // 16, or 0: zero-filled
  bool last_;         // whether this thread has a chunk in the last round
  __device__ __forceinline__ RingCopier(const Layout& L, T* ring, long y, long z, int tid, long ylo, long yhi, long zlo, long zhi)
      : dst_(static_cast<unsigned>(__cvta_generic_to_shared(ring)) + static_cast<unsigned>(tid) * 16u), last_(tid + (kMine - 1) * NT < kChunks) {
    const long rowHi = L.dim[1] - L.pad[1], colHi = L.dim[2] - L.pad[2];
#if !STNC_RING_CLIP
    ylo = -L.pad[1], yhi = rowHi, zlo = -L.pad[2], zhi = colHi;
#endif
#pragma unroll
    for (int j = 0; j < kMine; ++j) {
      const int i = tid + j * NT, r = i / (Cols / kPer), c = (i - r * (Cols / kPer)) * kPer;
      const long yy = y + r, zz = z + c;
      const bool read = i < kChunks && yy >= -L.pad[1] && yy < rowHi && zz >= -L.pad[2] && zz + kPer <= colHi &&
                        yy >= ylo && yy < yhi && zz + kPer > zlo && zz < zhi;
      src_[j] = read ? at(L, 0, yy, zz) : L.origin;  // zero-filled chunks name element (x, 0, 0): allocated
      bytes_[j] = read ? 16 : 0;
    }
  }
  // Without clipping: every chunk inside the allocation is read.
  __device__ __forceinline__ RingCopier(const Layout& L, T* ring, long y, long z, int tid)
      : RingCopier(L, ring, y, z, tid, -L.pad[1], L.dim[1], -L.pad[2], L.dim[2]) {}
  __device__ __forceinline__ void copy(unsigned slot, const T* a, const Layout& L, long x) const {
    if (x < -L.pad[0] || x >= L.dim[0] - L.pad[0]) return;
    const T* plane = a + x * L.stride[0];
    const unsigned s = dst_ + slot * kSlotBytes;
#pragma unroll
    for (int j = 0; j < kMine; ++j)
      if (j + 1 < kMine || !kRagged || last_) cpAsyncShared<kKind>(s + static_cast<unsigned>(j * NT * 16), plane + src_[j], bytes_[j]);
  }
};

}  // namespace stnc_rt
#endif  // STNC_RUNTIME_CUDA_ASYNC_V3

// Corner-free ring tiles (session 24; own guard): a field whose footprint has no diagonal offset (a star: no
// access moves along dims 1 and 2 at once) reads its tile's halo rows only over the block's own columns and
// its halo columns only in the block's own rows, so the four corners of the tile are never read. With
// STNC_RING_CORNERS 0 (the default since session 25) their chunks are zero-filled instead of read from L2 (the
// acoustic inner region's u tile: 1920 -> 1792 elements per plane, -7 %; its L2 -> SM reads 7.39 -> 7.16 GB per
// sweep, 1804 -> 1793 us, the sample's step loop +0.5 % random and zero fields: bench/results/2026-12-03-s25-corners.md).
// -DSTNC_RING_CORNERS=1 copies them as before (timings only, never results).
#ifndef STNC_RUNTIME_CUDA_RING_CORNERS_V1
#define STNC_RUNTIME_CUDA_RING_CORNERS_V1
#ifndef STNC_RING_CORNERS
#define STNC_RING_CORNERS 0
#endif
namespace stnc_rt {

// A RingCopier for a corner-free tile: [cy0, cy1) x [cz0, cz1) are the block's own rows and columns.
template <typename T, int Rows, int Cols, int NT, bool Reused, long SlotElems = static_cast<long>(Rows) * Cols>
struct StarRingCopier : RingCopier<T, Rows, Cols, NT, Reused, SlotElems> {
  using Base = RingCopier<T, Rows, Cols, NT, Reused, SlotElems>;
  __device__ __forceinline__ StarRingCopier(const Layout& L, T* ring, long y, long z, int tid, long ylo, long yhi, long zlo, long zhi, long cy0,
                                            long cy1, long cz0, long cz1)
      : Base(L, ring, y, z, tid, ylo, yhi, zlo, zhi) {
#if !STNC_RING_CORNERS
#pragma unroll
    for (int j = 0; j < Base::kMine; ++j) {
      const int i = tid + j * NT, r = i / (Cols / Base::kPer), c = (i - r * (Cols / Base::kPer)) * Base::kPer;
      const long yy = y + r, zz = z + c;
      if (cornerChunk(yy, zz, Base::kPer, cy0, cy1, cz0, cz1)) {
        this->src_[j] = L.origin;
        this->bytes_[j] = 0;
      }
    }
#else
    (void)cy0, (void)cy1, (void)cz0, (void)cz1;
#endif
  }
};

}  // namespace stnc_rt
#endif  // STNC_RUNTIME_CUDA_RING_CORNERS_V1

// Ring tiles through the Hopper tensor memory accelerator (session 13, --tma=on): the launcher encodes one
// 3-d tensor map per ring field over the box grown by that field's footprint (clamped to the allocation; its
// first column aligned down to 16 bytes), so every element outside that region arrives as zero, as the
// cp.async ring's clipped and zero-filled chunks do; one thread per block issues each plane's tile copy
// (cp.async.bulk.tensor) and the copies of a plane group complete on an mbarrier that every thread waits on.
// Own guard.
#ifndef STNC_RUNTIME_CUDA_TMA_V1
#define STNC_RUNTIME_CUDA_TMA_V1
#include <cuda.h>  // CUtensorMap and its enums (types only: the encoder comes through the runtime's driver entry point)
#include <cudaTypedefs.h>
// STNC_TMA_L2_PROMOTION: the L2 fill granularity the maps ask for (0 = none, 64, 128, 256 bytes).
#ifndef STNC_TMA_L2_PROMOTION
#define STNC_TMA_L2_PROMOTION 0
#endif
namespace stnc_rt {

// The array element at tensor coordinate (0, 0, 0) of a map.
struct TileOrigin {
  long x, y, z;
};

// The region of a map over box b: the box grown by [lo, hi) (per dim: the ring's footprint, its tile's
// rounded-out columns included), clamped to the allocation, its first column aligned down to `per` elements
// (16 bytes); ext gets its extents.
inline TileOrigin tileRegion(const Layout& L, const Box& b, const long lo[3], const long hi[3], long per, long ext[3]) {
  long a[3], e[3];
  for (int d = 0; d < 3; ++d) {
    a[d] = b.lo[d] + lo[d];
    e[d] = b.hi[d] + hi[d];
    if (a[d] < -L.pad[d]) a[d] = -L.pad[d];
    if (e[d] > L.dim[d] - L.pad[d]) e[d] = L.dim[d] - L.pad[d];
  }
  a[2] = alignCol(L.pad[2] % per, a[2], per);  // 16 bytes from the allocation's start
  for (int d = 0; d < 3; ++d) ext[d] = e[d] > a[d] ? e[d] - a[d] : 1;
  return TileOrigin{a[0], a[1], a[2]};
}

// Host: the tensor map of field `a` over the region (origin o, extents ext) for tiles of rows x cols x 1.
template <typename T>
inline cudaError_t tileMap(CUtensorMap* map, const T* a, const Layout& L, const TileOrigin& o, const long ext[3], int rows, int cols) {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  if (!encode) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    const cudaError_t got = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q);
#else  // CUDA 12.0-12.4: the entry point of the driver's own version (the 12.0 signature)
    const cudaError_t got = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &q);
#endif
    if (got != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn) return cudaErrorNotSupported;
    encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }
  static int major = -1;  // the tensor memory accelerator needs compute capability 9.0 (read once)
  if (major < 0) {
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) major = 0;
  }
  if (major < 9) return cudaErrorNotSupported;
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "tensor maps of 4- or 8-byte elements");
  constexpr CUtensorMapL2promotion kPromotion = STNC_TMA_L2_PROMOTION == 64    ? CU_TENSOR_MAP_L2_PROMOTION_L2_64B
                                                : STNC_TMA_L2_PROMOTION == 128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
                                                : STNC_TMA_L2_PROMOTION == 256 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                                                                               : CU_TENSOR_MAP_L2_PROMOTION_NONE;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(ext[2]), static_cast<cuuint64_t>(ext[1]), static_cast<cuuint64_t>(ext[0])};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(L.stride[1]) * sizeof(T), static_cast<cuuint64_t>(L.stride[0]) * sizeof(T)};
  const cuuint32_t box[3] = {static_cast<cuuint32_t>(cols), static_cast<cuuint32_t>(rows), 1u}, step[3] = {1u, 1u, 1u};
  const CUresult r = encode(map, sizeof(T) == 8 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT64 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3,
                            const_cast<T*>(a + at(L, o.x, o.y, o.z)), dims, strides, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE,
                            CU_TENSOR_MAP_SWIZZLE_NONE, kPromotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

__device__ __forceinline__ unsigned smemAddress(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

// The tensor copies and tx-count mbarriers exist from sm_90 on. Files built for older GPUs still compile: there
// these helpers trap, and are never reached (tileMap refuses such devices, so the launcher runs the one-point kernel).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define STNC_TMA_ASM(...) asm volatile(__VA_ARGS__)
#else
#define STNC_TMA_ASM(...) __trap()
#endif

// One arrival (the issuing thread's) completes a phase once the bytes it announced have landed.
__device__ __forceinline__ void mbarInit(unsigned long long* bar) {
  STNC_TMA_ASM("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(smemAddress(bar)) : "memory");
}
__device__ __forceinline__ void mbarInitFence() { STNC_TMA_ASM("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }
__device__ __forceinline__ void mbarExpect(unsigned long long* bar, unsigned bytes) {
  STNC_TMA_ASM("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smemAddress(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbarWait(unsigned long long* bar, unsigned parity) {
  STNC_TMA_ASM(
      "{\n .reg .pred P1;\n LAB_WAIT:\n mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n @!P1 bra LAB_WAIT;\n}\n" ::"r"(
          smemAddress(bar)),
      "r"(parity)
      : "memory");
}
// The tile at tensor coordinates (c2 columns, c1 rows, c0 planes) into shared memory at dst (128-byte aligned).
__device__ __forceinline__ void tmaTile(void* dst, const CUtensorMap* map, long c2, long c1, long c0, unsigned long long* bar) {
  STNC_TMA_ASM(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(
          smemAddress(dst)),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(static_cast<int>(c2)), "r"(static_cast<int>(c1)), "r"(static_cast<int>(c0)),
      "r"(smemAddress(bar))
      : "memory");
}

}  // namespace stnc_rt
#endif  // STNC_RUNTIME_CUDA_TMA_V1

// Timing helpers (session 5): the generated C entry point (`stnc run --bench`, `--autotune`) reads a
// buffer four times the L2 before every timed sweep, so each sweep starts with a cold L2 like the
// benchmark harness's (bench/harness): at 256^3 an array or two otherwise survive in the 60 MB L2
// between sweeps and the autotuner's timings moved 5-10 % from run to run. Own guard.
#ifndef STNC_RUNTIME_CUDA_FLUSH_V1
#define STNC_RUNTIME_CUDA_FLUSH_V1
namespace stnc_rt {

// A template so that several generated files may define it (one kernel, no ODR clash).
template <int Unused>
__global__ void l2FlushRead(const float4* __restrict__ p, unsigned long n, float* sink) {
  float acc = 0.0f;
  for (unsigned long i = blockIdx.x * static_cast<unsigned long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<unsigned long>(gridDim.x) * blockDim.x) {
    const float4 v = __ldcg(p + i);
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == 1.0f) *sink = acc;  // the buffer is zero: never true, but the loads stay
}

// Owns the buffer; without memory for it, flush() does nothing (timings then include warm-L2 effects).
class L2Flusher {
 public:
  L2Flusher() {
    int dev = 0, l2 = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev) != cudaSuccess || l2 <= 0) {
      (void)cudaGetLastError();
      return;
    }
    n_ = 4UL * static_cast<unsigned long>(l2) / sizeof(float4);
    if (cudaMalloc(&buf_, (n_ + 1) * sizeof(float4)) != cudaSuccess || cudaMemset(buf_, 0, (n_ + 1) * sizeof(float4)) != cudaSuccess) {
      (void)cudaGetLastError();
      if (buf_) cudaFree(buf_);
      buf_ = nullptr;
    }
  }
  ~L2Flusher() {
    if (buf_) cudaFree(buf_);
  }
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;
  cudaError_t flush(cudaStream_t s = 0) const {
    if (!buf_) return cudaSuccess;
    l2FlushRead<0><<<1024, 256, 0, s>>>(buf_, n_, reinterpret_cast<float*>(buf_ + n_));
    return cudaGetLastError();
  }

 private:
  float4* buf_ = nullptr;
  unsigned long n_ = 0;
};

}  // namespace stnc_rt
#endif  // STNC_RUNTIME_CUDA_FLUSH_V1

// Lanes (session 16): the streams one sweep spreads the launches of its region parts over. Parts write
// disjoint boxes and a written field is only ever read at offset 0 (sema: err_inout_offset), so the
// launches are independent; captured in the step's CUDA graph they become parallel branches, and the
// shell's small kernels fill the multiprocessors the inner kernel's last wave leaves idle.
#ifndef STNC_RUNTIME_CUDA_LANES_V1
#define STNC_RUNTIME_CUDA_LANES_V1
namespace stnc_rt {

struct Lanes {
  static constexpr int kMax = 8;
  cudaStream_t s[kMax] = {};
  cudaEvent_t done[kMax] = {};
  cudaEvent_t fork = nullptr;
  int n = 0;
};

// The stream of launch `key` (regions first, then the default part's boxes): key, the last lane for the rest.
inline cudaStream_t laneOf(const Lanes* l, cudaStream_t st, int key) {
  if (!l || l->n <= 0) return st;
  return l->s[key < l->n ? key : l->n - 1];
}

// Grows l to n lanes (at most kMax), keeping those it has (they may be in use by a capture). On an error l
// keeps the lanes made so far. (Stream priorities, inner or shell first, measured no better: session 16.)
inline cudaError_t lanesGrow(Lanes& l, int n) {
  if (n > Lanes::kMax) n = Lanes::kMax;
  cudaError_t e = l.fork ? cudaSuccess : cudaEventCreateWithFlags(&l.fork, cudaEventDisableTiming);
  while (e == cudaSuccess && l.n < n) {
    e = cudaStreamCreateWithFlags(&l.s[l.n], cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&l.done[l.n], cudaEventDisableTiming);
    if (e == cudaSuccess) ++l.n;
  }
  return e;
}

// The lanes of this host thread on the current device (at least n of them), created at the first call and kept
// for later ones (like the temporal blocking's third array; never destroyed: the process's exit releases
// them). nullptr when they cannot be made: the caller keeps one stream. Sweeps of several kernels or
// streams of one thread share the lanes: correct (each fork and join is recorded at its call), but their
// launches may wait for each other's on a lane.
inline Lanes* threadLanes(int n) {
  thread_local Lanes lanes[64];
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) {
    (void)cudaGetLastError();
    return nullptr;
  }
  Lanes& l = lanes[dev];
  if (l.n < n) {
    // Creating streams and events does not touch a capture in progress (the caller's stream may be captured).
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    (void)cudaThreadExchangeStreamCaptureMode(&mode);
    const cudaError_t e = lanesGrow(l, n);
    (void)cudaThreadExchangeStreamCaptureMode(&mode);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      return nullptr;
    }
  }
  return &l;
}

// Every lane waits for the work queued on st so far.
inline cudaError_t lanesFork(Lanes& l, cudaStream_t st) {
  cudaError_t e = l.n > 0 ? cudaEventRecord(l.fork, st) : cudaSuccess;
  for (int i = 0; i < l.n && e == cudaSuccess; ++i) e = cudaStreamWaitEvent(l.s[i], l.fork, 0);
  return e;
}

// st waits for the work queued on every lane.
inline cudaError_t lanesJoin(Lanes& l, cudaStream_t st) {
  cudaError_t e = cudaSuccess;
  for (int i = 0; i < l.n && e == cudaSuccess; ++i) {
    e = cudaEventRecord(l.done[i], l.s[i]);
    if (e == cudaSuccess) e = cudaStreamWaitEvent(st, l.done[i], 0);
  }
  return e;
}

}  // namespace stnc_rt
#endif  // STNC_RUNTIME_CUDA_LANES_V1
