// stnc MPI runtime: domain decomposition, halo exchange, global-boundary fills, overlapped step
// loop and gather/scatter for the distributed launchers of `stnc FILE.stn --distributed`.
// This file is embedded verbatim into every FILE_mpi.h (after FILE.h, which embeds
// stnc_runtime.h), guarded so several generated headers can be included together. The per-kernel
// wrappers in namespace stn::K::mpi pass the kernel's constexpr tables (KernelSpec) and a sweep
// callback to the templates below. See docs/DISTRIBUTED.md.
//
// Compile-time switches (define them before including FILE_mpi.h, the same in every translation unit):
//   STNC_USE_NCCL  the CUDA variant exchanges halos through NCCL (ncclSend/ncclRecv in a group, on
//                  the communication stream; no host synchronisation inside a step). Needs nccl.h
//                  and -lnccl. Without it: CUDA-aware MPI when available, else pinned host staging.
//   STNC_NO_MPI    no MPI at all (needs CUDA and STNC_USE_NCCL): the ranks are the ranks of an NCCL
//                  communicator (one per GPU: processes, or threads of one process), make_domain takes
//                  that communicator, and only the cuda:: functions exist (gather/scatter through NCCL).
//
// Embedding: MpiLauncher.cpp defines STNC_MPI_RUNTIME_AS_STRING and includes this file inside an
// initializer, so the text between the two markers below becomes one raw string literal (the
// preprocessor does not look inside a raw string); the generator strips the marker lines.
#ifdef STNC_MPI_RUNTIME_AS_STRING
R"stnc_mpi_rt(
#endif
#ifndef STNC_MPI_RUNTIME_H_V1
#define STNC_MPI_RUNTIME_H_V1
#ifndef STNC_RUNTIME_H_V1
#include "../runtime/stnc_runtime.h"  // only when this file is compiled on its own
#endif
#if defined(__CUDACC__) || defined(STNC_WITH_CUDA)
#define STNC_MPI_CUDA 1
#else
#define STNC_MPI_CUDA 0
#endif
#if defined(STNC_USE_NCCL) && STNC_MPI_CUDA
#define STNC_MPI_NCCL 1
#else
#define STNC_MPI_NCCL 0
#endif
#if defined(STNC_NO_MPI)
#if !STNC_MPI_NCCL
#error "STNC_NO_MPI: the distributed launchers without MPI need CUDA (nvcc or STNC_WITH_CUDA) and NCCL (STNC_USE_NCCL)"
#endif
#define STNC_MPI_HAVE_MPI 0
#define STNC_MPI_PROC_NULL_ (-1)
#else
#define STNC_MPI_HAVE_MPI 1
#include <mpi.h>
#define STNC_MPI_PROC_NULL_ MPI_PROC_NULL
#endif

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>
#if STNC_MPI_CUDA
#include <cuda_runtime.h>
#if STNC_MPI_HAVE_MPI && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI: MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support()
#endif
#endif
#endif
#if STNC_MPI_NCCL
#include <nccl.h>
#endif

namespace stnc_mpi {

// Status codes beyond stnc_rt::Status.
enum Status : int {
  kMpiError = 16,      // an MPI call returned an error (only with an error handler that returns)
  kTooSmall = 17,      // a rank would get fewer points than the halo along a split axis
  kWrongDomain = 18,   // the Domain was made for another kernel, or not made at all
  kCudaError = 19,     // a CUDA call failed (cudaGetLastError() has the details)
  kCountOverflow = 20, // a gather/scatter message exceeds INT_MAX elements
  kNcclError = 21      // an NCCL call failed
};

inline const char* statusName(int s) {
  switch (s) {
    case kMpiError: return "an MPI call failed";
    case kTooSmall: return "a rank's share of a split axis is smaller than the halo (use fewer ranks or other dims)";
    case kWrongDomain: return "the domain was not made for this kernel";
    case kCudaError: return "a CUDA call failed";
    case kCountOverflow: return "a gather/scatter message exceeds INT_MAX elements";
    case kNcclError: return "an NCCL call failed";
    default: return stnc_rt::statusName(s);
  }
}

#if STNC_MPI_HAVE_MPI
template <typename T>
inline MPI_Datatype mpiType();
template <>
inline MPI_Datatype mpiType<double>() { return MPI_DOUBLE; }
template <>
inline MPI_Datatype mpiType<float>() { return MPI_FLOAT; }
#endif
#if STNC_MPI_NCCL
template <typename T>
inline ncclDataType_t ncclType();
template <>
inline ncclDataType_t ncclType<double>() { return ncclFloat64; }
template <>
inline ncclDataType_t ncclType<float>() { return ncclFloat32; }
#endif

enum : int { kNoRule = -1 };

// What the exchange needs to know about a kernel; the tables are generated per kernel, indexed
// [field][internal dimension] (rank-r kernels use the last r dimensions).
struct KernelSpec {
  int rank;
  int fieldCount;
  const int (*lo)[3];    // halo cells a field is read at below the interior (0: not read there)
  const int (*hi)[3];    // ... above the interior
  const int (*rule)[3];  // stnc_rt::BoundaryKind of the field's rule along the dimension, or kNoRule
  const bool* constant;  // never written (an `in` field in no swap pair): exchanged once per call
  int halo[3];           // the kernel's halo per internal dimension (kHaloInternal)
  int elemBytes;
  bool corners;  // some field is read at an offset along two or more axes: exchange axis by axis
};

// A box of cells in a rank's interior coordinates: lo[d] <= x < hi[d] (halo cells are < 0 or >= n).
struct Box3 {
  long lo[3];
  long hi[3];
};

inline long boxCount(const Box3& b) {
  long c = 1;
  for (int d = 0; d < 3; ++d) c *= b.hi[d] > b.lo[d] ? b.hi[d] - b.lo[d] : 0;
  return c;
}

inline bool boxEmpty(const Box3& b) { return boxCount(b) == 0; }

// N points over `parts` ranks: the first N % parts ranks get one more.
inline void splitExtent(long N, int parts, int c, long& n, long& offset) {
  const long q = N / parts, r = N % parts;
  n = q + (c < r ? 1 : 0);
  offset = c * q + (c < r ? c : r);
}

// One halo message: a box of one field sent to or received from the neighbour along `dim`.
struct Message {
  int field, dim;
  bool send;
  int peer, tag;
  Box3 box;
  size_t offset;  // into the send or receive buffer, in elements
  long count;
};

// A boundary rule applied locally on one side (the rank owns that side of the global boundary).
struct FillOp {
  int field, dim, side, kind;
};

struct Plan {
  bool built = false;
  std::vector<Message> msgs[3];  // per dimension (the exchange phases)
  // Every message as (dimension, index into msgs[dimension]), ordered by tag: NCCL matches the
  // sends and receives between two ranks in the order they are posted, so both sides post by tag.
  std::vector<std::pair<int, int>> byTag;
  std::vector<FillOp> fills[3];
  size_t sendElems = 0, recvElems = 0;
  Box3 inner{};  // interior points that read no halo cell the exchange changes
};

struct CudaResources;  // defined below when CUDA is enabled

// The decomposition of one kernel's global grid over the ranks of a communicator, plus the
// exchange buffers. Dimensions are internal (3-D): a rank-r kernel splits the last r only.
class Domain {
 public:
#if STNC_MPI_HAVE_MPI
  MPI_Comm comm = MPI_COMM_NULL;  // the Cartesian communicator (ranks in the order of `comm`)
#endif
#if STNC_MPI_NCCL
  // The NCCL communicator of the exchange (ranks = Cartesian ranks). With MPI it is made on the first
  // cuda:: call (ncclGetUniqueId on rank 0, MPI_Bcast, ncclCommInitRank) and owned by the Domain;
  // with STNC_NO_MPI it is the caller's (make_domain's argument) and never destroyed here.
  ncclComm_t nccl = nullptr;
  bool ownsNccl = false;
#endif
  int rank = 0, size = 1;
  int dims[3] = {1, 1, 1};      // ranks per dimension
  int coords[3] = {0, 0, 0};    // this rank's coordinates
  int periodic[3] = {0, 0, 0};  // some field has a periodic rule along the dimension
  int nbr[3][2] = {{STNC_MPI_PROC_NULL_, STNC_MPI_PROC_NULL_},
                   {STNC_MPI_PROC_NULL_, STNC_MPI_PROC_NULL_},
                   {STNC_MPI_PROC_NULL_, STNC_MPI_PROC_NULL_}};
  long global[3] = {1, 1, 1};   // global interior extents
  long n[3] = {1, 1, 1};        // this rank's interior extents
  long offset[3] = {0, 0, 0};   // global coordinates of this rank's interior point (0, 0, 0)
  stnc_rt::Layout L{};          // local arrays: the kernel's layout of n (allocate L.count elements)
  stnc_rt::Layout G{};          // the global array of gather/scatter: the kernel's layout of `global`
  // The local arrays seen in global coordinates (frameLayout): the sweeps of kernels with regions
  // use it, so a region is placed relative to the global interior, not to this rank's box.
  stnc_rt::Layout F{};
  const KernelSpec* spec = nullptr;
  int progressChunks = 4;  // the interior sweep runs in this many slabs with MPI_Testall between

  Plan plans[2];  // [0]: every field read at an offset, [1]: only the fields that change
  void* sendBuf = nullptr;
  void* recvBuf = nullptr;
  size_t bufBytes = 0;
#if STNC_MPI_HAVE_MPI
  std::vector<MPI_Request> reqs;
#endif
  CudaResources* cuda = nullptr;
  void (*freeCuda)(CudaResources*) = nullptr;

  Domain() = default;
  Domain(const Domain&) = delete;
  Domain& operator=(const Domain&) = delete;
  ~Domain() { release(); }

  bool atLo(int d) const { return coords[d] == 0; }
  bool atHi(int d) const { return coords[d] == dims[d] - 1; }

  // Frees the communicator and buffers (also done by the destructor, if MPI is still running).
  void release() {
    if (cuda && freeCuda) freeCuda(cuda);
    cuda = nullptr;
    std::free(sendBuf);
    std::free(recvBuf);
    sendBuf = recvBuf = nullptr;
    bufBytes = 0;
    plans[0] = Plan{};
    plans[1] = Plan{};
#if STNC_MPI_NCCL
    if (nccl && ownsNccl) ncclCommDestroy(nccl);
    nccl = nullptr;
    ownsNccl = false;
#endif
#if STNC_MPI_HAVE_MPI
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (comm != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm);
    comm = MPI_COMM_NULL;
#endif
  }
};

// The local layout L seen in global coordinates: interior extents `global`, the same strides, and
// the origin moved so that at(F, x + offset) == at(L, x). A sweep given F and a box in global
// coordinates computes exactly what it computes given L and the box in local coordinates (the
// generated sweeps address points only through stnc_rt::at), but it places regions
// (stnc_rt::regionBox reads n) relative to the global interior. dim[0] moves with the origin so the
// CUDA stream schedule's prefetch bound (last allocated plane, dim[0] - 1 - pad[0]) stays the same
// plane; count stays the local one (the aliasing check).
inline stnc_rt::Layout frameLayout(const stnc_rt::Layout& L, const long global[3], const long offset[3]) {
  stnc_rt::Layout F = L;
  for (int d = 0; d < 3; ++d) F.n[d] = global[d];
  F.origin = L.origin - offset[0] * L.stride[0] - offset[1] * L.stride[1] - offset[2] * L.stride[2];
  F.dim[0] = L.dim[0] + offset[0];
  return F;
}

// Ranks per dimension like MPI_Dims_create: the free entries (0) get the prime factors of
// size / (product of the fixed ones), largest first, each to the free entry with the smallest
// product so far; the free entries end up non-increasing. False if the fixed ones do not divide size.
inline bool dimsCreate(int size, int ndims, int* dims) {
  long fixed = 1;
  int freeCount = 0;
  for (int a = 0; a < ndims; ++a) {
    if (dims[a] < 0) return false;
    if (dims[a] > 0) fixed *= dims[a];
    else ++freeCount;
  }
  if (fixed <= 0 || size % fixed != 0) return false;
  long rest = size / fixed;
  if (freeCount == 0) return rest == 1;
  std::vector<long> primes;
  for (long p = 2; p * p <= rest; ++p)
    while (rest % p == 0) {
      primes.push_back(p);
      rest /= p;
    }
  if (rest > 1) primes.push_back(rest);
  std::vector<long> part(static_cast<size_t>(freeCount), 1);
  for (size_t q = primes.size(); q-- > 0;) *std::min_element(part.begin(), part.end()) *= primes[q];
  std::sort(part.begin(), part.end(), [](long a, long b) { return a > b; });
  for (int a = 0, f = 0; a < ndims; ++a)
    if (dims[a] == 0) dims[a] = static_cast<int>(part[static_cast<size_t>(f++)]);
  return true;
}

// Cartesian coordinates of rank r (row-major: the last dimension varies fastest, as in MPI_Cart_create
// without reordering).
inline void cartCoords(const int dims[3], int r, int c[3]) {
  for (int d = 2; d >= 0; --d) {
    c[d] = r % dims[d];
    r /= dims[d];
  }
}

inline int cartRank(const int dims[3], const int c[3]) { return (c[0] * dims[1] + c[1]) * dims[2] + c[2]; }

// The rank grid of a decomposition over `size` ranks (both variants): validates the arguments,
// chooses the free ranks per axis (MPI_Dims_create, or dimsCreate without MPI) and fills D.dims,
// D.global and D.periodic. global: kernel axis order (K.rank entries); userDims: ranks per kernel
// axis, 0 = free (null: all free).
inline int rankGrid(int size, const KernelSpec& K, const long* global, const int* userDims, Domain& D) {
  const int off = 3 - K.rank;
  int dimsA[3] = {0, 0, 0};
  long fixed = 1;
  for (int a = 0; a < K.rank; ++a) {
    dimsA[a] = userDims ? userDims[a] : 0;
    if (dimsA[a] < 0) return stnc_rt::kBadArgument;
    if (dimsA[a] > 0) fixed *= dimsA[a];
    if (global[a] <= 0) return stnc_rt::kBadExtent;
  }
  bool anyFree = false;
  for (int a = 0; a < K.rank; ++a) anyFree |= dimsA[a] == 0;
  // MPI_Dims_create would fail (fatally, with the default error handler).
  if (size <= 0 || size % fixed != 0 || (!anyFree && fixed != size)) return stnc_rt::kBadArgument;
#if STNC_MPI_HAVE_MPI
  if (MPI_Dims_create(size, K.rank, dimsA) != MPI_SUCCESS) return kMpiError;
#else
  if (!dimsCreate(size, K.rank, dimsA)) return stnc_rt::kBadArgument;
#endif
  for (int d = 0; d < 3; ++d) {
    D.dims[d] = d < off ? 1 : dimsA[d - off];
    D.global[d] = d < off ? 1 : global[d - off];
    D.periodic[d] = 0;
    for (int f = 0; f < K.fieldCount; ++f)
      if (K.rule[f][d] == stnc_rt::kPeriodic) D.periodic[d] = 1;
  }
  // Every rank checks the smallest share, so all ranks agree on the outcome.
  for (int d = 0; d < 3; ++d) {
    const long smallest = D.global[d] / D.dims[d];
    if (smallest < 1 || (D.dims[d] > 1 && smallest < K.halo[d])) return kTooSmall;
  }
  return stnc_rt::kOk;
}

// This rank's box and layouts, once D.rank, D.coords and the rank grid are known.
inline int finishDomain(const KernelSpec& K, Domain& D) {
  for (int d = 0; d < 3; ++d) splitExtent(D.global[d], D.dims[d], D.coords[d], D.n[d], D.offset[d]);
  if (!stnc_rt::makeLayout(D.n, K.halo, K.elemBytes, D.L)) return stnc_rt::kBadExtent;
  if (!stnc_rt::makeLayout(D.global, K.halo, K.elemBytes, D.G)) D.G.count = 0;
  D.F = frameLayout(D.L, D.global, D.offset);
  D.spec = &K;
  return stnc_rt::kOk;
}

#if STNC_MPI_HAVE_MPI
// Creates the Cartesian decomposition over the ranks of `comm` (collective).
inline int decompose(MPI_Comm comm, const KernelSpec& K, const long* global, const int* userDims, Domain& D) {
  D.release();
  D.spec = nullptr;
  int size = 0;
  if (MPI_Comm_size(comm, &size) != MPI_SUCCESS) return kMpiError;
  if (int s = rankGrid(size, K, global, userDims, D)) return s;
  if (MPI_Cart_create(comm, 3, D.dims, D.periodic, 0, &D.comm) != MPI_SUCCESS) return kMpiError;
  MPI_Comm_rank(D.comm, &D.rank);
  MPI_Comm_size(D.comm, &D.size);
  MPI_Cart_coords(D.comm, D.rank, 3, D.coords);
  for (int d = 0; d < 3; ++d) MPI_Cart_shift(D.comm, d, 1, &D.nbr[d][0], &D.nbr[d][1]);
  return finishDomain(K, D);
}
#endif

// The same decomposition without an MPI communicator: `size` ranks, this one is `rank`, ranks in
// row-major order over the rank grid (as MPI_Cart_create without reordering); a neighbour across the
// global boundary exists only along periodic dimensions. Local: it talks to no other rank.
inline int decomposeRanks(int size, int rank, const KernelSpec& K, const long* global, const int* userDims, Domain& D) {
  D.release();
  D.spec = nullptr;
  if (rank < 0 || rank >= size) return stnc_rt::kBadArgument;
  if (int s = rankGrid(size, K, global, userDims, D)) return s;
  D.rank = rank;
  D.size = size;
  cartCoords(D.dims, rank, D.coords);
  for (int d = 0; d < 3; ++d)
    for (int side = 0; side < 2; ++side) {
      int c[3] = {D.coords[0], D.coords[1], D.coords[2]};
      c[d] += side == 0 ? -1 : 1;
      if (c[d] < 0 || c[d] >= D.dims[d]) {
        if (!D.periodic[d]) {
          D.nbr[d][side] = STNC_MPI_PROC_NULL_;
          continue;
        }
        c[d] = (c[d] + D.dims[d]) % D.dims[d];
      }
      D.nbr[d][side] = cartRank(D.dims, c);
    }
  return finishDomain(K, D);
}

#if STNC_MPI_NCCL && !STNC_MPI_HAVE_MPI
// Without MPI: the decomposition over the ranks of an NCCL communicator (which stays the caller's).
inline int decomposeNccl(ncclComm_t comm, const KernelSpec& K, const long* global, const int* userDims, Domain& D) {
  int size = 0, rank = 0;
  if (!comm || ncclCommCount(comm, &size) != ncclSuccess || ncclCommUserRank(comm, &rank) != ncclSuccess) return kNcclError;
  if (int s = decomposeRanks(size, rank, K, global, userDims, D)) return s;
  D.nccl = comm;
  D.ownsNccl = false;
  return stnc_rt::kOk;
}
#endif

// ---- the exchange plan ------------------------------------------------------------------------

// The field's halo along (d, side) comes from the neighbouring rank (across the periodic wrap only
// if the field is periodic along d).
inline bool exchangedSide(const Domain& D, const KernelSpec& K, int f, int d, int side) {
  if (D.dims[d] == 1) return false;
  const bool global = side == 0 ? D.atLo(d) : D.atHi(d);
  return !global || K.rule[f][d] == stnc_rt::kPeriodic;
}

// The field's halo along (d, side) is filled by its rule on this rank: the side is on the global
// boundary (a periodic rule is local only when one rank holds the whole axis).
inline bool filledSide(const Domain& D, const KernelSpec& K, int f, int d, int side) {
  const int rule = K.rule[f][d];
  if (rule == kNoRule) return false;
  if (rule == stnc_rt::kPeriodic) return D.dims[d] == 1;
  return side == 0 ? D.atLo(d) : D.atHi(d);
}

inline int sideWidth(const KernelSpec& K, int f, int d, int side) { return side == 0 ? K.lo[f][d] : K.hi[f][d]; }

inline bool readAtOffset(const KernelSpec& K, int f) {
  for (int d = 0; d < 3; ++d)
    if (K.lo[f][d] > 0 || K.hi[f][d] > 0) return true;
  return false;
}

// Messages of field f along d. The ranges along the other dimensions follow numpy.pad: dimensions
// exchanged before d are taken with the halo the field needs (so corners come along), later ones
// over the interior. Without corners every range is the interior and all phases run at once.
inline void addMessages(Domain& D, const KernelSpec& K, int f, int d, Plan& P) {
  for (int side = 0; side < 2; ++side) {
    if (!exchangedSide(D, K, f, d, side)) continue;
    Box3 base;
    for (int e = 0; e < 3; ++e) {
      const bool padded = K.corners && e < d;
      base.lo[e] = padded ? -K.lo[f][e] : 0;
      base.hi[e] = padded ? D.n[e] + K.hi[f][e] : D.n[e];
    }
    const int peer = D.nbr[d][side];
    // Received: this rank's halo on `side`; sent: the interior cells the neighbour needs there.
    const int wRecv = sideWidth(K, f, d, side), wSend = sideWidth(K, f, d, 1 - side);
    // dir 0 = travelling towards the lower neighbour, 1 = towards the upper one.
    const int recvDir = side == 0 ? 1 : 0, sendDir = side == 0 ? 0 : 1;
    if (wRecv > 0) {
      Message m{f, d, false, peer, (f * 3 + d) * 2 + recvDir, base, P.recvElems, 0};
      m.box.lo[d] = side == 0 ? -wRecv : D.n[d];
      m.box.hi[d] = side == 0 ? 0 : D.n[d] + wRecv;
      m.count = boxCount(m.box);
      P.recvElems += static_cast<size_t>(m.count);
      P.msgs[d].push_back(m);
    }
    if (wSend > 0) {
      Message m{f, d, true, peer, (f * 3 + d) * 2 + sendDir, base, P.sendElems, 0};
      m.box.lo[d] = side == 0 ? 0 : D.n[d] - wSend;
      m.box.hi[d] = side == 0 ? wSend : D.n[d];
      m.count = boxCount(m.box);
      P.sendElems += static_cast<size_t>(m.count);
      P.msgs[d].push_back(m);
    }
  }
}

inline void buildPlan(Domain& D, const KernelSpec& K, bool all, Plan& P) {
  P = Plan{};
  long dirty[3][2] = {{0, 0}, {0, 0}, {0, 0}};
  for (int f = 0; f < K.fieldCount; ++f) {
    if (!readAtOffset(K, f) || (!all && K.constant[f])) continue;
    for (int d = 0; d < 3; ++d) {
      addMessages(D, K, f, d, P);
      for (int side = 0; side < 2; ++side) {
        const bool filled = filledSide(D, K, f, d, side);
        if (filled) P.fills[d].push_back({f, d, side, K.rule[f][d]});
        // Without corners the local rules run before the interior sweep (they read only this rank's
        // interior), so only exchanged sides hold the interior back.
        if ((filled && K.corners) || exchangedSide(D, K, f, d, side)) {
          const long w = sideWidth(K, f, d, side);
          if (w > dirty[d][side]) dirty[d][side] = w;
        }
      }
    }
  }
  for (int d = 0; d < 3; ++d) {
    P.inner.lo[d] = dirty[d][0];
    P.inner.hi[d] = D.n[d] - dirty[d][1];
  }
  for (int d = 0; d < 3; ++d)
    for (size_t i = 0; i < P.msgs[d].size(); ++i) P.byTag.emplace_back(d, static_cast<int>(i));
  std::stable_sort(P.byTag.begin(), P.byTag.end(), [&P](const std::pair<int, int>& a, const std::pair<int, int>& b) {
    return P.msgs[a.first][a.second].tag < P.msgs[b.first][b.second].tag;
  });
  P.built = true;
}

inline Plan& planFor(Domain& D, const KernelSpec& K, bool all) {
  Plan& P = D.plans[all ? 0 : 1];
  if (!P.built) buildPlan(D, K, all, P);
  return P;
}

// The interior minus `inner`, as up to 6 disjoint boxes (slabs of dim 0, then 1, then 2).
inline int shellBoxes(const Domain& D, const Box3& inner, Box3 out[6]) {
  Box3 rest{{0, 0, 0}, {D.n[0], D.n[1], D.n[2]}};
  if (boxEmpty(inner)) {
    out[0] = rest;
    return 1;
  }
  int m = 0;
  for (int d = 0; d < 3; ++d) {
    if (inner.lo[d] > 0) {
      out[m] = rest;
      out[m++].hi[d] = inner.lo[d];
    }
    if (inner.hi[d] < D.n[d]) {
      out[m] = rest;
      out[m++].lo[d] = inner.hi[d];
    }
    rest.lo[d] = inner.lo[d];
    rest.hi[d] = inner.hi[d];
  }
  return m;
}

// ---- host arrays ------------------------------------------------------------------------------

template <typename T>
void packBox(const T* a, const stnc_rt::Layout& L, const Box3& b, T* buf) {
  const long w = b.hi[2] - b.lo[2];
  for (long x = b.lo[0]; x < b.hi[0]; ++x)
    for (long y = b.lo[1]; y < b.hi[1]; ++y, buf += w) std::memcpy(buf, a + stnc_rt::at(L, x, y, b.lo[2]), w * sizeof(T));
}

template <typename T>
void unpackBox(T* a, const stnc_rt::Layout& L, const Box3& b, const T* buf) {
  const long w = b.hi[2] - b.lo[2];
  for (long x = b.lo[0]; x < b.hi[0]; ++x)
    for (long y = b.lo[1]; y < b.hi[1]; ++y, buf += w) std::memcpy(a + stnc_rt::at(L, x, y, b.lo[2]), buf, w * sizeof(T));
}

// The halo slab of one side along d, over the ranges stnc_rt::fillBoundaryDim uses (dimensions
// before d with their halo, later ones over the interior).
inline Box3 fillBox(const stnc_rt::Layout& L, int d, int side) {
  Box3 r;
  for (int e = 0; e < 3; ++e) {
    r.lo[e] = e < d ? -L.halo[e] : 0;
    r.hi[e] = e < d ? L.n[e] + L.halo[e] : L.n[e];
  }
  r.lo[d] = side == 0 ? -L.halo[d] : L.n[d];
  r.hi[d] = side == 0 ? 0 : L.n[d] + L.halo[d];
  return r;
}

// stnc_rt::fillBoundaryDim restricted to one side (numpy.pad semantics; the side is on the
// global boundary, so the local interior along d starts or ends where the global one does).
template <typename T>
void fillSideHost(T* a, const stnc_rt::Layout& L, int d, int side, int kind, T value) {
  if (L.halo[d] == 0) return;
  const Box3 r = fillBox(L, d, side);
  const long n = L.n[d];
  for (long x = r.lo[0]; x < r.hi[0]; ++x)
    for (long y = r.lo[1]; y < r.hi[1]; ++y)
      for (long z = r.lo[2]; z < r.hi[2]; ++z) {
        long p[3] = {x, y, z};
        const long dst = stnc_rt::at(L, x, y, z);
        const long s = stnc_rt::boundarySource(p[d], n, kind);
        if (s < 0) {
          a[dst] = value;
          continue;
        }
        p[d] = s;
        a[dst] = a[stnc_rt::at(L, p[0], p[1], p[2])];
      }
}

inline bool ensureHostBuffers(Domain& D, const Plan& P, size_t elemBytes) {
  const size_t need = (P.sendElems > P.recvElems ? P.sendElems : P.recvElems) * elemBytes;
  if (need <= D.bufBytes && D.sendBuf) return true;
  std::free(D.sendBuf);
  std::free(D.recvBuf);
  const size_t bytes = stnc_rt::roundUp(static_cast<long>(need > 0 ? need : 1), 128);
  D.sendBuf = std::aligned_alloc(128, bytes);
  D.recvBuf = std::aligned_alloc(128, bytes);
  D.bufBytes = (D.sendBuf && D.recvBuf) ? bytes : 0;
  return D.bufBytes != 0;
}

#if STNC_MPI_HAVE_MPI
// Posts the receives, then packs and posts the sends, of phase d.
template <typename T>
int beginHost(Domain& D, const Plan& P, int d, T* const* f) {
  T* sbuf = static_cast<T*>(D.sendBuf);
  T* rbuf = static_cast<T*>(D.recvBuf);
  for (const Message& m : P.msgs[d]) {
    if (m.send) continue;
    D.reqs.emplace_back();
    if (MPI_Irecv(rbuf + m.offset, static_cast<int>(m.count), mpiType<T>(), m.peer, m.tag, D.comm, &D.reqs.back()) != MPI_SUCCESS)
      return kMpiError;
  }
  for (const Message& m : P.msgs[d]) {
    if (!m.send) continue;
    packBox(f[m.field], D.L, m.box, sbuf + m.offset);
    D.reqs.emplace_back();
    if (MPI_Isend(sbuf + m.offset, static_cast<int>(m.count), mpiType<T>(), m.peer, m.tag, D.comm, &D.reqs.back()) != MPI_SUCCESS)
      return kMpiError;
  }
  return stnc_rt::kOk;
}

template <typename T>
void fillHost(Domain& D, const Plan& P, int d, T* const* f, const T* values) {
  for (const FillOp& op : P.fills[d]) fillSideHost(f[op.field], D.L, op.dim, op.side, op.kind, values[op.field * 3 + op.dim]);
}

// Waits for every posted message, unpacks phases [d0, d1) and, with `fills`, applies their local rules.
template <typename T>
int finishHost(Domain& D, const Plan& P, int d0, int d1, T* const* f, const T* values, bool fills) {
  if (!D.reqs.empty() && MPI_Waitall(static_cast<int>(D.reqs.size()), D.reqs.data(), MPI_STATUSES_IGNORE) != MPI_SUCCESS)
    return kMpiError;
  D.reqs.clear();
  const T* rbuf = static_cast<const T*>(D.recvBuf);
  for (int d = d0; d < d1; ++d) {
    for (const Message& m : P.msgs[d])
      if (!m.send) unpackBox(f[m.field], D.L, m.box, rbuf + m.offset);
    if (fills) fillHost(D, P, d, f, values);
  }
  return stnc_rt::kOk;
}

// One distributed step on host arrays: exchange + local rules, overlapped with the interior part
// of the sweep, then the boundary shell. sweep(const Box3&) runs the kernel's sweep_box over a
// box of the local interior and returns a status; all = also exchange the constant fields.
template <typename T, typename Sweep>
int stepHost(Domain& D, const KernelSpec& K, T* const* f, const T* values, bool all, Sweep&& sweep, bool doSweep = true) {
  if (D.spec != &K) return kWrongDomain;
  Plan& P = planFor(D, K, all);
  if (!ensureHostBuffers(D, P, sizeof(T))) return stnc_rt::kBadArgument;
  D.reqs.clear();
  int s = stnc_rt::kOk;
  const int firstPhases = K.corners ? 1 : 3;
  for (int d = 0; d < firstPhases && s == stnc_rt::kOk; ++d) s = beginHost(D, P, d, f);
  if (s) return s;
  if (!K.corners)
    for (int d = 0; d < 3; ++d) fillHost(D, P, d, f, values);
  if (doSweep && !boxEmpty(P.inner)) {
    // The interior in slabs along dim 0, testing the requests in between so MPI makes progress.
    const long lo = P.inner.lo[0], len = P.inner.hi[0] - lo;
    const long want = D.reqs.empty() ? 1 : D.progressChunks;
    const long chunks = want < 1 ? 1 : (want > len ? len : want);
    for (long c = 0; c < chunks; ++c) {
      Box3 b = P.inner;
      b.lo[0] = lo + len * c / chunks;
      b.hi[0] = lo + len * (c + 1) / chunks;
      if (boxEmpty(b)) continue;
      if ((s = sweep(b)) != stnc_rt::kOk) return s;
      int done = 0;
      if (!D.reqs.empty()) MPI_Testall(static_cast<int>(D.reqs.size()), D.reqs.data(), &done, MPI_STATUSES_IGNORE);
    }
  }
  if (K.corners) {
    for (int d = 0; d < 3 && s == stnc_rt::kOk; ++d) {
      if (d > 0) s = beginHost(D, P, d, f);
      if (s == stnc_rt::kOk) s = finishHost(D, P, d, d + 1, f, values, true);
    }
  } else {
    s = finishHost(D, P, 0, 3, f, values, false);
  }
  if (s || !doSweep) return s;
  Box3 shell[6];
  const int m = shellBoxes(D, P.inner, shell);
  for (int i = 0; i < m; ++i)
    if (!boxEmpty(shell[i]) && (s = sweep(shell[i])) != stnc_rt::kOk) return s;
  return stnc_rt::kOk;
}

#endif  // STNC_MPI_HAVE_MPI

// ---- gather / scatter (host arrays) -----------------------------------------------------------

// The box of rank r in global coordinates (interior), from its Cartesian coordinates.
inline Box3 rankBox(const Domain& D, int r) {
  int c[3];
  cartCoords(D.dims, r, c);
  Box3 b;
  for (int d = 0; d < 3; ++d) {
    long n = 0, o = 0;
    splitExtent(D.global[d], D.dims[d], c[d], n, o);
    b.lo[d] = o;
    b.hi[d] = o + n;
  }
  return b;
}

inline Box3 grow(const Box3& b, const stnc_rt::Layout& L) {
  Box3 r = b;
  for (int d = 0; d < 3; ++d) {
    r.lo[d] -= L.halo[d];
    r.hi[d] += L.halo[d];
  }
  return r;
}

inline Box3 shift(const Box3& b, const long* by, long sign) {
  Box3 r = b;
  for (int d = 0; d < 3; ++d) {
    r.lo[d] += sign * by[d];
    r.hi[d] += sign * by[d];
  }
  return r;
}

#if STNC_MPI_HAVE_MPI
// Collects every rank's interior into `global` (the kernel's layout of the global extents, D.G)
// on `root`; `global` is used on root only. Halo cells of `global` are left as they are.
template <typename T>
int gatherHost(const Domain& D, int root, const T* local, T* global) {
  if (!D.spec) return kWrongDomain;
  if (!local || (D.rank == root && !global)) return stnc_rt::kNullPointer;
  const Box3 mine{{0, 0, 0}, {D.n[0], D.n[1], D.n[2]}};
  const long count = boxCount(mine);
  if (count > 0x7fffffffL) return kCountOverflow;
  std::vector<T> send(static_cast<size_t>(count));
  packBox(local, D.L, mine, send.data());
  std::vector<int> counts, displs;
  std::vector<T> recv;
  if (D.rank == root) {
    counts.resize(D.size);
    displs.resize(D.size);
    long total = 0;
    for (int r = 0; r < D.size; ++r) {
      const long c = boxCount(rankBox(D, r));
      if (c > 0x7fffffffL || total > 0x7fffffffL) return kCountOverflow;
      counts[r] = static_cast<int>(c);
      displs[r] = static_cast<int>(total);
      total += c;
    }
    recv.resize(static_cast<size_t>(total));
  }
  if (MPI_Gatherv(send.data(), static_cast<int>(count), mpiType<T>(), recv.data(), counts.data(), displs.data(), mpiType<T>(),
                  root, D.comm) != MPI_SUCCESS)
    return kMpiError;
  if (D.rank == root)
    for (int r = 0; r < D.size; ++r) unpackBox(global, D.G, rankBox(D, r), recv.data() + displs[r]);
  return stnc_rt::kOk;
}

// Sends every rank its sub-box of `global` (on root, D.G layout) including the halo around it:
// along split axes that is the neighbours' interior, on the global boundary the global halo (the
// fixed boundary of fields without rules, and the initial halo of every field).
template <typename T>
int scatterHost(const Domain& D, int root, const T* global, T* local) {
  if (!D.spec) return kWrongDomain;
  if (!local || (D.rank == root && !global)) return stnc_rt::kNullPointer;
  const Box3 mine = grow(Box3{{0, 0, 0}, {D.n[0], D.n[1], D.n[2]}}, D.L);
  const long count = boxCount(mine);
  if (count > 0x7fffffffL) return kCountOverflow;
  std::vector<int> counts, displs;
  std::vector<T> send;
  if (D.rank == root) {
    counts.resize(D.size);
    displs.resize(D.size);
    long total = 0;
    for (int r = 0; r < D.size; ++r) {
      const long c = boxCount(grow(rankBox(D, r), D.G));
      if (c > 0x7fffffffL || total > 0x7fffffffL) return kCountOverflow;
      counts[r] = static_cast<int>(c);
      displs[r] = static_cast<int>(total);
      total += c;
    }
    send.resize(static_cast<size_t>(total));
    for (int r = 0; r < D.size; ++r) packBox(global, D.G, grow(rankBox(D, r), D.G), send.data() + displs[r]);
  }
  std::vector<T> recv(static_cast<size_t>(count));
  if (MPI_Scatterv(send.data(), counts.data(), displs.data(), mpiType<T>(), recv.data(), static_cast<int>(count), mpiType<T>(),
                   root, D.comm) != MPI_SUCCESS)
    return kMpiError;
  unpackBox(local, D.L, mine, recv.data());
  return stnc_rt::kOk;
}
#endif  // STNC_MPI_HAVE_MPI

#if STNC_MPI_CUDA
// ---- device arrays ----------------------------------------------------------------------------
// Every message is packed into (and unpacked from) a device buffer: with nvcc by small copy and
// fill kernels, with a host compiler (STNC_WITH_CUDA) by strided 3-D copies (cudaMemcpy3DAsync),
// so this part compiles with both. The packed buffers then go through NCCL (STNC_USE_NCCL:
// ncclSend/ncclRecv on the communication stream), or MPI: given directly when MPI is CUDA-aware,
// else copied to pinned host buffers and back (host staging).

inline int cudaStatus(cudaError_t e) { return e == cudaSuccess ? static_cast<int>(stnc_rt::kOk) : static_cast<int>(kCudaError); }

// Open MPI reports CUDA support at compile and run time; STNC_MPI_CUDA_AWARE=0|1 overrides.
inline bool cudaAwareMpi() {
#if STNC_MPI_HAVE_MPI
  if (const char* e = std::getenv("STNC_MPI_CUDA_AWARE")) return e[0] == '1';
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
#else
  return false;
#endif
}

// How the cuda:: functions move halos (fixed at compile time for NCCL, at the first call for MPI).
enum Transport : int { kHostStaging = 0, kCudaAwareMpi = 1, kNccl = 2 };

inline int cudaTransport() {
#if STNC_MPI_NCCL
  return kNccl;
#else
  return cudaAwareMpi() ? kCudaAwareMpi : kHostStaging;
#endif
}

inline const char* transportName(int t) {
  switch (t) {
    case kNccl: return "NCCL";
    case kCudaAwareMpi: return "CUDA-aware MPI";
    default: return "MPI, host staging";
  }
}

struct CudaResources {
  cudaStream_t comm = nullptr;  // packs, transfers (NCCL, staging copies), unpacks and rule fills
  cudaEvent_t ready = nullptr;  // recorded on the compute stream before the packs
  cudaEvent_t halo = nullptr;   // recorded on `comm` after the fills
  int transport = kHostStaging;
  void* send = nullptr;  // device: the packed messages (every transport)
  void* recv = nullptr;
  void* hostSend = nullptr;  // pinned host copies of send/recv (host staging only)
  void* hostRecv = nullptr;
  size_t bytes = 0;
  // value(EXPR) rules without the fill kernel (host compiler): a device buffer of the value per
  // fill op, keyed by (field, dim, side).
  struct ValueBuf {
    int field, dim, side;
    void* dev;
    size_t bytes;
    double value;
    bool uploaded;
  };
  std::vector<ValueBuf> values;
};

inline void freeCudaResources(CudaResources* c) {
  if (!c) return;
  cudaFree(c->send);
  cudaFree(c->recv);
  cudaFreeHost(c->hostSend);
  cudaFreeHost(c->hostRecv);
  for (auto& v : c->values) cudaFree(v.dev);
  if (c->ready) cudaEventDestroy(c->ready);
  if (c->halo) cudaEventDestroy(c->halo);
  if (c->comm) cudaStreamDestroy(c->comm);
  delete c;
}

#if STNC_MPI_NCCL && STNC_MPI_HAVE_MPI
// The Domain's NCCL communicator over the ranks of D.comm (collective): rank 0's unique id is
// broadcast over MPI, then ncclCommInitRank on the current device.
inline int makeNcclComm(Domain& D) {
  if (D.nccl) return stnc_rt::kOk;
  struct {
    int ok;
    ncclUniqueId id;
  } msg{};
  if (D.rank == 0) msg.ok = ncclGetUniqueId(&msg.id) == ncclSuccess;
  if (MPI_Bcast(&msg, static_cast<int>(sizeof msg), MPI_BYTE, 0, D.comm) != MPI_SUCCESS) return kMpiError;
  if (!msg.ok) return kNcclError;
  if (ncclCommInitRank(&D.nccl, D.size, msg.id, D.rank) != ncclSuccess) {
    D.nccl = nullptr;
    return kNcclError;
  }
  D.ownsNccl = true;
  return stnc_rt::kOk;
}
#endif

// The streams, events and buffers of the cuda:: functions, made on the first call (collective when
// it makes the NCCL communicator).
inline int cudaResources(Domain& D, CudaResources*& out) {
  out = D.cuda;
  if (D.cuda) return stnc_rt::kOk;
#if STNC_MPI_NCCL && STNC_MPI_HAVE_MPI
  if (int s = makeNcclComm(D)) return s;
#endif
#if STNC_MPI_NCCL
  if (!D.nccl) return kNcclError;
#endif
  CudaResources* c = new CudaResources;
  c->transport = cudaTransport();
  if (cudaStreamCreateWithFlags(&c->comm, cudaStreamNonBlocking) != cudaSuccess ||
      cudaEventCreateWithFlags(&c->ready, cudaEventDisableTiming) != cudaSuccess ||
      cudaEventCreateWithFlags(&c->halo, cudaEventDisableTiming) != cudaSuccess) {
    freeCudaResources(c);
    return kCudaError;
  }
  D.cuda = c;
  D.freeCuda = freeCudaResources;
  out = c;
  return stnc_rt::kOk;
}

inline bool ensureCudaBuffers(CudaResources& C, const Plan& P, size_t elemBytes) {
  const size_t need = stnc_rt::roundUp(static_cast<long>((P.sendElems > P.recvElems ? P.sendElems : P.recvElems) * elemBytes + 1), 128);
  if (need <= C.bytes) return true;
  cudaFree(C.send);
  cudaFree(C.recv);
  cudaFreeHost(C.hostSend);
  cudaFreeHost(C.hostRecv);
  C.send = C.recv = C.hostSend = C.hostRecv = nullptr;
  C.bytes = 0;
  if (cudaMalloc(&C.send, need) != cudaSuccess || cudaMalloc(&C.recv, need) != cudaSuccess) return false;
  if (C.transport == kHostStaging &&
      (cudaMallocHost(&C.hostSend, need) != cudaSuccess || cudaMallocHost(&C.hostRecv, need) != cudaSuccess))
    return false;
  C.bytes = need;
  return true;
}

// The array as a pitched pointer: x = internal dim 2 (bytes), y = dim 1, z = dim 0 (allocated rows).
template <typename T>
cudaPitchedPtr pitchedOf(const T* a, const stnc_rt::Layout& L) {
  return make_cudaPitchedPtr(const_cast<T*>(a), L.dim[2] * sizeof(T), L.dim[2] * sizeof(T), L.dim[1]);
}

template <typename T>
cudaPos posOf(const stnc_rt::Layout& L, const long lo[3]) {
  return make_cudaPos((lo[2] + L.pad[2]) * sizeof(T), lo[1] + L.pad[1], lo[0] + L.pad[0]);
}

template <typename T>
cudaExtent extentOf(const Box3& b) {
  return make_cudaExtent((b.hi[2] - b.lo[2]) * sizeof(T), b.hi[1] - b.lo[1], b.hi[0] - b.lo[0]);
}

#if defined(__CUDACC__)
// With nvcc the packs, unpacks and rule fills are kernels: a cudaMemcpy3DAsync of a face normal to
// the contiguous dimension moves rows of a few bytes and runs far below memory bandwidth. (A host
// compiler gets the cudaMemcpy3DAsync versions below; the results are the same bits either way.
// Compile the translation units that include FILE_mpi.h for cuda:: with one compiler.)
inline unsigned copyBlocks(long total) {
  const long b = (total + 255) / 256;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 8192 ? 8192 : b));
}

// box of `a` <-> contiguous `buf` (device memory), element t = ((x * ny) + y) * nz + z.
template <typename T>
__global__ void copyBoxKernel(T* a, stnc_rt::Layout L, Box3 b, T* buf, bool toBuf) {
  const long nz = b.hi[2] - b.lo[2], ny = b.hi[1] - b.lo[1], total = (b.hi[0] - b.lo[0]) * ny * nz;
  for (long t = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; t < total; t += gridDim.x * static_cast<long>(blockDim.x)) {
    const long z = t % nz, r = t / nz, y = r % ny, x = r / ny;
    const long p = stnc_rt::at(L, b.lo[0] + x, b.lo[1] + y, b.lo[2] + z);
    if (toBuf) buf[t] = a[p];
    else a[p] = buf[t];
  }
}

// One side's halo slab r along d, numpy.pad semantics (the sources are interior cells along d, so
// no thread reads what another writes).
template <typename T>
__global__ void fillSideKernel(T* a, stnc_rt::Layout L, Box3 r, int d, int kind, T value) {
  const long nz = r.hi[2] - r.lo[2], ny = r.hi[1] - r.lo[1], total = (r.hi[0] - r.lo[0]) * ny * nz;
  for (long t = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; t < total; t += gridDim.x * static_cast<long>(blockDim.x)) {
    long p[3] = {r.lo[0] + t / nz / ny, r.lo[1] + (t / nz) % ny, r.lo[2] + t % nz};
    const long dst = stnc_rt::at(L, p[0], p[1], p[2]);
    const long src = stnc_rt::boundarySource(p[d], L.n[d], kind);
    if (src < 0) {
      a[dst] = value;
      continue;
    }
    p[d] = src;
    a[dst] = a[stnc_rt::at(L, p[0], p[1], p[2])];
  }
}

template <typename T>
cudaError_t copyBoxAsync(T* a, const stnc_rt::Layout& L, const Box3& b, T* buf, bool toBuf, cudaStream_t s) {
  if (boxEmpty(b)) return cudaSuccess;
  copyBoxKernel<T><<<copyBlocks(boxCount(b)), 256, 0, s>>>(a, L, b, buf, toBuf);
  return cudaGetLastError();
}

template <typename T>
cudaError_t fillSideCuda(CudaResources&, T* a, const stnc_rt::Layout& L, const FillOp& op, T value, cudaStream_t s) {
  if (L.halo[op.dim] == 0) return cudaSuccess;
  const Box3 r = fillBox(L, op.dim, op.side);
  if (boxEmpty(r)) return cudaSuccess;
  fillSideKernel<T><<<copyBlocks(boxCount(r)), 256, 0, s>>>(a, L, r, op.dim, op.kind, value);
  return cudaGetLastError();
}
#else
// box of array `a` -> contiguous `buf` (toBuf) or back; buf is host (pinned) or device memory.
template <typename T>
cudaError_t copyBoxAsync(T* a, const stnc_rt::Layout& L, const Box3& b, T* buf, bool toBuf, cudaStream_t s) {
  if (boxEmpty(b)) return cudaSuccess;
  const size_t w = (b.hi[2] - b.lo[2]) * sizeof(T);
  cudaMemcpy3DParms p = {};
  cudaPitchedPtr arr = pitchedOf(a, L), lin = make_cudaPitchedPtr(buf, w, w, b.hi[1] - b.lo[1]);
  cudaPos at = posOf<T>(L, b.lo), zero = make_cudaPos(0, 0, 0);
  p.srcPtr = toBuf ? arr : lin;
  p.srcPos = toBuf ? at : zero;
  p.dstPtr = toBuf ? lin : arr;
  p.dstPos = toBuf ? zero : at;
  p.extent = extentOf<T>(b);
  p.kind = cudaMemcpyDefault;
  return cudaMemcpy3DAsync(&p, s);
}

// One layer of a box moved along d inside the same array (a rule fill: halo layer <- source layer).
template <typename T>
cudaError_t copyLayerAsync(T* a, const stnc_rt::Layout& L, const Box3& layer, int d, long srcX, cudaStream_t s) {
  if (boxEmpty(layer)) return cudaSuccess;
  Box3 src = layer;
  src.lo[d] = srcX;
  src.hi[d] = srcX + 1;
  cudaMemcpy3DParms p = {};
  p.srcPtr = pitchedOf(a, L);
  p.dstPtr = pitchedOf(a, L);
  p.srcPos = posOf<T>(L, src.lo);
  p.dstPos = posOf<T>(L, layer.lo);
  p.extent = extentOf<T>(layer);
  p.kind = cudaMemcpyDeviceToDevice;
  return cudaMemcpy3DAsync(&p, s);
}

template <typename T>
cudaError_t fillSideCuda(CudaResources& C, T* a, const stnc_rt::Layout& L, const FillOp& op, T value, cudaStream_t s) {
  if (L.halo[op.dim] == 0) return cudaSuccess;
  const Box3 r = fillBox(L, op.dim, op.side);
  if (op.kind == stnc_rt::kValue) {
    CudaResources::ValueBuf* vb = nullptr;
    for (auto& v : C.values)
      if (v.field == op.field && v.dim == op.dim && v.side == op.side) vb = &v;
    const size_t bytes = static_cast<size_t>(boxCount(r)) * sizeof(T);
    if (!vb) {
      C.values.push_back({op.field, op.dim, op.side, nullptr, 0, 0.0, false});
      vb = &C.values.back();
      if (cudaMalloc(&vb->dev, bytes) != cudaSuccess) return cudaErrorMemoryAllocation;
      vb->bytes = bytes;
    }
    if (!vb->uploaded || vb->value != static_cast<double>(value)) {
      std::vector<T> host(bytes / sizeof(T), value);
      cudaError_t e = cudaMemcpy(vb->dev, host.data(), bytes, cudaMemcpyHostToDevice);
      if (e != cudaSuccess) return e;
      vb->value = static_cast<double>(value);
      vb->uploaded = true;
    }
    return copyBoxAsync(a, L, r, static_cast<T*>(vb->dev), false, s);
  }
  for (long x = r.lo[op.dim]; x < r.hi[op.dim]; ++x) {
    Box3 layer = r;
    layer.lo[op.dim] = x;
    layer.hi[op.dim] = x + 1;
    const cudaError_t e = copyLayerAsync(a, L, layer, op.dim, stnc_rt::boundarySource(x, L.n[op.dim], op.kind), s);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}
#endif

// The sends of phase d packed into the device send buffer (on C.comm).
template <typename T>
int packCuda(Domain& D, CudaResources& C, const Plan& P, int d, T* const* f) {
  for (const Message& m : P.msgs[d])
    if (m.send && copyBoxAsync(f[m.field], D.L, m.box, static_cast<T*>(C.send) + m.offset, true, C.comm) != cudaSuccess)
      return kCudaError;
  return stnc_rt::kOk;
}

template <typename T>
int fillCuda(Domain& D, CudaResources& C, const Plan& P, int d, T* const* f, const T* values, cudaStream_t s) {
  for (const FillOp& op : P.fills[d])
    if (fillSideCuda(C, f[op.field], D.L, op, values[op.field * 3 + op.dim], s) != cudaSuccess) return kCudaError;
  return stnc_rt::kOk;
}

// The receives of phases [d0, d1) unpacked from the device receive buffer (and, with `fills`, the
// local rules of those phases), on C.comm.
template <typename T>
int unpackCuda(Domain& D, CudaResources& C, const Plan& P, int d0, int d1, T* const* f, const T* values, bool fills) {
  for (int d = d0; d < d1; ++d) {
    for (const Message& m : P.msgs[d])
      if (!m.send && copyBoxAsync(f[m.field], D.L, m.box, static_cast<T*>(C.recv) + m.offset, false, C.comm) != cudaSuccess)
        return kCudaError;
    if (fills)
      if (int e = fillCuda(D, C, P, d, f, values, C.comm)) return e;
  }
  return stnc_rt::kOk;
}

#if STNC_MPI_NCCL
// Queues, on C.comm after the packs, one NCCL group with the sends and receives of phases [d0, d1)
// (posted in tag order on every rank, so the k-th send from A to B meets B's k-th receive from A),
// then the unpacks (and, with `fills`, the local rules) of those phases. The host does not wait.
template <typename T>
int exchangeCuda(Domain& D, CudaResources& C, const Plan& P, int d0, int d1, T* const* f, const T* values, bool fills) {
  T* sbuf = static_cast<T*>(C.send);
  T* rbuf = static_cast<T*>(C.recv);
  bool any = false;
  for (const auto& di : P.byTag) any = any || (di.first >= d0 && di.first < d1);
  if (any) {
    if (ncclGroupStart() != ncclSuccess) return kNcclError;
    ncclResult_t r = ncclSuccess;
    for (const auto& di : P.byTag) {
      if (di.first < d0 || di.first >= d1) continue;
      const Message& m = P.msgs[di.first][static_cast<size_t>(di.second)];
      const size_t count = static_cast<size_t>(m.count);
      r = m.send ? ncclSend(sbuf + m.offset, count, ncclType<T>(), m.peer, D.nccl, C.comm)
                 : ncclRecv(rbuf + m.offset, count, ncclType<T>(), m.peer, D.nccl, C.comm);
      if (r != ncclSuccess) break;
    }
    const ncclResult_t e = ncclGroupEnd();
    if (r != ncclSuccess || e != ncclSuccess) return kNcclError;
  }
  return unpackCuda(D, C, P, d0, d1, f, values, fills);
}
#else
// Waits for the packs (and, with host staging, their copies to the pinned buffer; the previous
// unpacks are ordered before them on C.comm), posts the receives and sends of phases [d0, d1), waits
// for all messages, then queues (staging: the copies back to the device and) the unpacks and, with
// `fills`, the local rules of those phases on C.comm.
template <typename T>
int exchangeCuda(Domain& D, CudaResources& C, const Plan& P, int d0, int d1, T* const* f, const T* values, bool fills) {
  const bool staging = C.transport == kHostStaging;
  T* sbuf = static_cast<T*>(staging ? C.hostSend : C.send);
  T* rbuf = static_cast<T*>(staging ? C.hostRecv : C.recv);
  if (staging)
    for (int d = d0; d < d1; ++d)
      for (const Message& m : P.msgs[d])
        if (m.send && cudaMemcpyAsync(sbuf + m.offset, static_cast<T*>(C.send) + m.offset, static_cast<size_t>(m.count) * sizeof(T),
                                      cudaMemcpyDeviceToHost, C.comm) != cudaSuccess)
          return kCudaError;
  D.reqs.clear();
  if (cudaStreamSynchronize(C.comm) != cudaSuccess) return kCudaError;
  for (int d = d0; d < d1; ++d)
    for (const Message& m : P.msgs[d]) {
      if (m.send) continue;
      D.reqs.emplace_back();
      if (MPI_Irecv(rbuf + m.offset, static_cast<int>(m.count), mpiType<T>(), m.peer, m.tag, D.comm, &D.reqs.back()) !=
          MPI_SUCCESS)
        return kMpiError;
    }
  for (int d = d0; d < d1; ++d)
    for (const Message& m : P.msgs[d]) {
      if (!m.send) continue;
      D.reqs.emplace_back();
      if (MPI_Isend(sbuf + m.offset, static_cast<int>(m.count), mpiType<T>(), m.peer, m.tag, D.comm, &D.reqs.back()) !=
          MPI_SUCCESS)
        return kMpiError;
    }
  if (!D.reqs.empty() && MPI_Waitall(static_cast<int>(D.reqs.size()), D.reqs.data(), MPI_STATUSES_IGNORE) != MPI_SUCCESS)
    return kMpiError;
  D.reqs.clear();
  if (staging)
    for (int d = d0; d < d1; ++d)
      for (const Message& m : P.msgs[d])
        if (!m.send && cudaMemcpyAsync(static_cast<T*>(C.recv) + m.offset, rbuf + m.offset, static_cast<size_t>(m.count) * sizeof(T),
                                       cudaMemcpyHostToDevice, C.comm) != cudaSuccess)
          return kCudaError;
  return unpackCuda(D, C, P, d0, d1, f, values, fills);
}
#endif

// One distributed step on device arrays. The interior sweep runs on `stream` while the halos are
// packed, sent and unpacked on a second stream; the shell waits for the halos. sweep(box,
// stream) runs the kernel's sweep_box and returns a cudaError_t.
template <typename T, typename Sweep>
int stepCuda(Domain& D, const KernelSpec& K, T* const* f, const T* values, bool all, Sweep&& sweep, cudaStream_t stream,
             bool doSweep = true) {
  if (D.spec != &K) return kWrongDomain;
  CudaResources* C = nullptr;
  if (int s = cudaResources(D, C)) return s;
  Plan& P = planFor(D, K, all);
  if (!ensureCudaBuffers(*C, P, sizeof(T))) return kCudaError;
  // The packs read what the previous step (queued on `stream`) wrote.
  if (cudaEventRecord(C->ready, stream) != cudaSuccess || cudaStreamWaitEvent(C->comm, C->ready, 0) != cudaSuccess)
    return kCudaError;
  int s = stnc_rt::kOk;
  const int firstPhases = K.corners ? 1 : 3;
  for (int d = 0; d < firstPhases && s == stnc_rt::kOk; ++d) s = packCuda(D, *C, P, d, f);
  if (s) return s;
  // Without corners the local rules go first, on `stream`, ahead of the interior sweep.
  for (int d = 0; d < 3 && !K.corners && s == stnc_rt::kOk; ++d) s = fillCuda(D, *C, P, d, f, values, stream);
  if (s) return s;
  if (doSweep && !boxEmpty(P.inner) && sweep(P.inner, stream) != cudaSuccess) return kCudaError;
  if (K.corners) {
    for (int d = 0; d < 3 && s == stnc_rt::kOk; ++d) {
      if (d > 0) s = packCuda(D, *C, P, d, f);
      if (s == stnc_rt::kOk) s = exchangeCuda(D, *C, P, d, d + 1, f, values, true);
    }
  } else {
    s = exchangeCuda(D, *C, P, 0, 3, f, values, false);
  }
  if (s) return s;
  if (cudaEventRecord(C->halo, C->comm) != cudaSuccess || cudaStreamWaitEvent(stream, C->halo, 0) != cudaSuccess)
    return kCudaError;
  if (!doSweep) return stnc_rt::kOk;
  Box3 shell[6];
  const int m = shellBoxes(D, P.inner, shell);
  for (int i = 0; i < m; ++i)
    if (!boxEmpty(shell[i]) && sweep(shell[i], stream) != cudaSuccess) return kCudaError;
  return stnc_rt::kOk;
}

#if STNC_MPI_HAVE_MPI
// gather/scatter of device arrays: through a host copy of the local array.
template <typename T>
int gatherCuda(const Domain& D, int root, const T* local, T* global) {
  std::vector<T> host(D.L.count);
  if (cudaMemcpy(host.data(), local, D.L.count * sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess) return kCudaError;
  return gatherHost(D, root, host.data(), global);
}

template <typename T>
int scatterCuda(const Domain& D, int root, const T* global, T* local) {
  std::vector<T> host(D.L.count);
  if (cudaMemcpy(host.data(), local, D.L.count * sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess) return kCudaError;
  if (int s = scatterHost(D, root, global, host.data())) return s;
  return cudaStatus(cudaMemcpy(local, host.data(), D.L.count * sizeof(T), cudaMemcpyHostToDevice));
}
#else
// Without MPI, gather/scatter go through NCCL, one rank's box at a time: the owner packs it on its
// device and sends it to the root (gather), or the root packs it from the host array and sends it
// to the owner (scatter), which unpacks it. Collective over the ranks of D.nccl; they run on a
// stream of their own after a device synchronisation (call them after step(), not inside a capture).
struct NcclScratch {
  cudaStream_t s = nullptr;
  void* dev = nullptr;
  size_t bytes = 0;
  ~NcclScratch() {
    if (dev) cudaFree(dev);
    if (s) cudaStreamDestroy(s);
  }
  bool reserve(size_t need) {
    if (need <= bytes) return true;
    if (dev) cudaFree(dev);
    dev = nullptr;
    bytes = 0;
    if (cudaMalloc(&dev, need) != cudaSuccess) return false;
    bytes = need;
    return true;
  }
};

// What every NCCL gather/scatter starts with: the arguments checked, the device idle, a scratch stream.
inline int ncclCollectiveBegin(const Domain& D, int root, const void* local, const void* global, NcclScratch& w) {
  if (!D.spec) return kWrongDomain;
  if (!D.nccl) return kNcclError;
  if (!local || (D.rank == root && !global)) return stnc_rt::kNullPointer;
  if (root < 0 || root >= D.size) return stnc_rt::kBadArgument;
  if (cudaDeviceSynchronize() != cudaSuccess || cudaStreamCreateWithFlags(&w.s, cudaStreamNonBlocking) != cudaSuccess)
    return kCudaError;
  return stnc_rt::kOk;
}

// One point-to-point transfer of `count` elements of `buf` from rank `from` to rank `to` (no-op for others).
template <typename T>
int ncclTransfer(const Domain& D, int from, int to, T* buf, size_t count, cudaStream_t s) {
  if (from == to || (D.rank != from && D.rank != to)) return stnc_rt::kOk;
  if (ncclGroupStart() != ncclSuccess) return kNcclError;
  const ncclResult_t r = D.rank == from ? ncclSend(buf, count, ncclType<T>(), to, D.nccl, s)
                                        : ncclRecv(buf, count, ncclType<T>(), from, D.nccl, s);
  const ncclResult_t e = ncclGroupEnd();
  return r == ncclSuccess && e == ncclSuccess ? static_cast<int>(stnc_rt::kOk) : static_cast<int>(kNcclError);
}

template <typename T>
int gatherCuda(const Domain& D, int root, const T* local, T* global) {
  NcclScratch w;
  if (int e = ncclCollectiveBegin(D, root, local, global, w)) return e;
  const Box3 mine{{0, 0, 0}, {D.n[0], D.n[1], D.n[2]}};
  std::vector<T> host;
  for (int r = 0; r < D.size; ++r) {
    if (D.rank != r && D.rank != root) continue;
    const Box3 box = rankBox(D, r);
    const size_t count = static_cast<size_t>(boxCount(box));
    if (!w.reserve(count * sizeof(T) + 128)) return kCudaError;
    T* buf = static_cast<T*>(w.dev);
    if (D.rank == r && copyBoxAsync(const_cast<T*>(local), D.L, mine, buf, true, w.s) != cudaSuccess) return kCudaError;
    if (int e = ncclTransfer(D, r, root, buf, count, w.s)) return e;
    if (D.rank == root) {
      host.resize(count);
      if (cudaMemcpyAsync(host.data(), buf, count * sizeof(T), cudaMemcpyDeviceToHost, w.s) != cudaSuccess ||
          cudaStreamSynchronize(w.s) != cudaSuccess)
        return kCudaError;
      unpackBox(global, D.G, box, host.data());
    }
  }
  return cudaStatus(cudaStreamSynchronize(w.s));
}

template <typename T>
int scatterCuda(const Domain& D, int root, const T* global, T* local) {
  NcclScratch w;
  if (int e = ncclCollectiveBegin(D, root, local, global, w)) return e;
  const Box3 mine = grow(Box3{{0, 0, 0}, {D.n[0], D.n[1], D.n[2]}}, D.L);
  std::vector<T> host;
  for (int r = 0; r < D.size; ++r) {
    if (D.rank != r && D.rank != root) continue;
    const Box3 box = grow(rankBox(D, r), D.G);
    const size_t count = static_cast<size_t>(boxCount(box));
    if (!w.reserve(count * sizeof(T) + 128)) return kCudaError;
    T* buf = static_cast<T*>(w.dev);
    if (D.rank == root) {
      host.resize(count);
      packBox(global, D.G, box, host.data());
      if (cudaMemcpyAsync(buf, host.data(), count * sizeof(T), cudaMemcpyHostToDevice, w.s) != cudaSuccess) return kCudaError;
    }
    if (int e = ncclTransfer(D, root, r, buf, count, w.s)) return e;
    if (D.rank == r && copyBoxAsync(local, D.L, mine, buf, false, w.s) != cudaSuccess) return kCudaError;
    if (cudaStreamSynchronize(w.s) != cudaSuccess) return kCudaError;
  }
  return stnc_rt::kOk;
}
#endif  // STNC_MPI_HAVE_MPI
#endif  // CUDA

}  // namespace stnc_mpi

#endif  // STNC_MPI_RUNTIME_H_V1
#ifdef STNC_MPI_RUNTIME_AS_STRING
)stnc_mpi_rt"
#endif
