// codegen/cuda/TemporalPair + the step loop: with --temporal=auto an eligible f64 kernel gets the fused pair
// (stepPair, its MID store a template parameter, the chunk an argument, halos as constants: the form that
// compiles to 32 registers without spills) and cuda::step uses it only for fields of 2 GiB or more; an f32
// kernel (measured to lose: 0.59-0.71x) keeps single steps. The GPU checks the pairs bit for bit (scripts/gpu-check.sh with
// GPU_CHECK_CUDA_FLAGS=--temporal=on; bench/temporal/run.sh compares hashes).
#include <doctest/doctest.h>

#include "unit/codegen/CodegenTestUtil.h"

using namespace stnc;

namespace {

const char* kStar =
    "stencil s(i, j, k) : f64 { in u; out v; swap u, v;\n"
    "  v = 0.4 * u + 0.1 * (u[i-1,j,k] + u[i+1,j,k] + u[i,j-1,k] + u[i,j+1,k] + u[i,j,k-1] + u[i,j,k+1]); }";

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace

TEST_CASE("auto: an eligible f64 kernel gets the fused pair, used by cuda::step for fields of 2 GiB or more") {
  const std::string cu = test::cudaOf(kStar);
  CHECK(has(cu, "template <bool kStoreMid>"));
  CHECK(has(cu, "stepPair(const stnc_rt::Layout L_, const real* __restrict__ u, real* __restrict__ v, real* __restrict__ fin_, const long chunk_)"));
  CHECK(has(cu, "constexpr long kH0_ = 1, kH1_ = 1, kH2_ = 1;"));
  CHECK(has(cu, "#pragma unroll 1"));
  CHECK(has(cu, "if (kStoreMid) v[p_] = mb_;"));
  CHECK(has(cu, "(storeMid_ ? stepPair<true> : stepPair<false>)<<<"));
  CHECK(has(cu, "constexpr size_t kTemporalMinBytes = size_t(2) << 30;"));
  CHECK(has(cu, "const bool fuse_ = nsources_ == 0 && steps_ >= 4 && L_.count * sizeof(real) >= kTemporalMinBytes;"));
  // The halo of dim 0 exists, so the ring's planes -1 .. n0 need no range check.
  CHECK(has(cu, "if (ring_ && alloc_) {"));
}

TEST_CASE("auto: an f32 kernel (pairs measured to lose) keeps single steps") {
  std::string src = kStar;
  src.replace(src.find("f64"), 3, "f32");
  const std::string cu = test::cudaOf(src);
  CHECK_FALSE(has(cu, "stepPair"));
  CHECK_FALSE(has(cu, "fuse_"));
}

TEST_CASE("without a dim-0 halo the pair's ring checks the plane range") {
  const std::string cu = test::cudaOf(
      "stencil s(i, j, k) : f64 { in u; out v; swap u, v;\n"
      "  v = 0.4 * u + 0.1 * (u[i,j-1,k] + u[i,j+1,k] + u[i,j,k-1] + u[i,j,k+1]); }");
  CHECK(has(cu, "constexpr long kH0_ = 0, kH1_ = 1, kH2_ = 1;"));
  CHECK(has(cu, "if (ring_ && alloc_ && xw_ >= 0 && xw_ < L_.n[0]) {"));
}
