// codegen/cuda with shared-memory rings (--smem): the structure the ring protocol needs (every thread
// copies and meets the barrier, the wait depth is the prefetch, stores guarded), and per-part schedules
// (a region part whose rings do not fit the policy's budget gets narrower rings, or its own L1 schedule,
// in its own namespace), and the L2 hints (RingCopier, storeOnce).
// The GPU validates the kernels bit for bit (scripts/gpu-check.sh); this pins the emitted decisions.
#include <doctest/doctest.h>

#include "unit/DagText.h"
#include "unit/codegen/CodegenTestUtil.h"
#include "passes/ChooseSchedule.h"
#include "passes/SmemPlan.h"

using namespace stnc;

namespace {

// The text of __global__ function `name` (up to the next __global__ or the end).
std::string kernelText(const std::string& cu, const std::string& name) {
  const size_t at = cu.find("__global__ void __launch_bounds__(kBlockX * kBlockY) " + name + "(");
  REQUIRE_MESSAGE(at != std::string::npos, "no kernel " << name);
  const size_t end = cu.find("__global__", at + 10);
  return cu.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace

TEST_CASE("the policy gives the inner region rings of 4-point groups and the shell, whose rings exceed 112 KiB so, rings of 2-point groups") {
  auto c = test::compileText(test::kAcousticShell);
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = test::kernelOf(*c, "s");
  CHECK(k.schedule.smem == 2);
  CHECK(k.schedule.vec == 4);
  REQUIRE(k.partSchedules.count(-1) == 1);
  CHECK(k.partSchedules.count(0) == 0);
  CHECK(k.scheduleOf(-1).smem == 2);
  CHECK(k.scheduleOf(-1).vec == 2);
  CHECK(k.scheduleOf(-1).blockX == 16);
  CHECK(k.scheduleOf(-1).reason.find("do not fit at 4 point(s) per thread") != std::string::npos);
  const std::string cu = test::generateAll(*c->module).at(".cu");
  // The inner part: rings, the wait depth of prefetch 2, one barrier per plane, no early return.
  const std::string inner = kernelText(cu, "sweepPart_inner");
  CHECK(inner.find("extern __shared__ float4 smem_[];") != std::string::npos);
  // u has a halo (read by neighbouring blocks too; a star's: corner-free, RingCornersTest); v and roc2 tiles are this
  // block's only.
  CHECK(inner.find("stnc_rt::StarRingCopier<real, 24, 80, kBlockX * kBlockY, true> uC_") != std::string::npos);
  CHECK(inner.find("stnc_rt::RingCopier<real, 16, 64, kBlockX * kBlockY, false> roc2C_") != std::string::npos);
  // Each copier knows the rows and columns the box's points read: the box grown by the field's footprint, not
  // by the tile's sector-wide columns (u's tile reaches 8 columns out, its points 4), in every box, thin ones too.
  CHECK(inner.find("uC_(L_, uS_, yb_ - 4, zb_ - 8, tid_, B_.lo[1] - 4, B_.hi[1] + 4, B_.lo[2] - 4, B_.hi[2] + 4, yb_, yb_ + 16, zb_, zb_ + 64);") !=
        std::string::npos);
  CHECK(inner.find("roc2C_(L_, roc2S_, yb_, zb_, tid_, B_.lo[1], B_.hi[1], B_.lo[2], B_.hi[2]);") != std::string::npos);
  CHECK(inner.find("far_") == std::string::npos);
  CHECK(kernelText(cu, "sweepPart").find("etaC_(L_, etaS_, yb_ - 1, zb_ - 8, tid_, B_.lo[1] - 1, B_.hi[1] + 1, B_.lo[2] - 1, B_.hi[2] + 1, yb_, yb_ + 16, "
                                         "zb_, zb_ + 32);") != std::string::npos);
  CHECK(inner.find("stnc_rt::cpAsyncWait<2>();") != std::string::npos);
  CHECK(inner.find("__syncthreads();") != std::string::npos);
  // The one return: a block past the last chunk (the banded grid's last row), before any barrier.
  CHECK(inner.find("return;") == inner.rfind("return;"));
  CHECK(inner.find("return;") < inner.find("__syncthreads();"));
  CHECK(inner.find("stnc_rt::bandedTile(blockIdx.y, blockIdx.z, gridDim.y, gridDim.z, (B_.hi[0] - B_.lo[0] + chunk_ - 1) / chunk_, by_, bz_);") !=
        std::string::npos);
  CHECK(inner.find("const long x0_ = B_.lo[0] + bz_ * chunk_;") != std::string::npos);
  CHECK(inner.find("const long y_ = B_.lo[1] + by_ * static_cast<long>(kBlockY) + threadIdx.y;") != std::string::npos);
  CHECK(cu.find("rowsB_ = stnc_rt::ringBandRows(gx_, gy_, nz_, occ_, sms_);") != std::string::npos);
  CHECK(cu.find("const dim3 grid_(static_cast<unsigned>(gx_), static_cast<unsigned>(rowsB_), static_cast<unsigned>((gy_ + rowsB_ - 1) / rowsB_ * nz_));") !=
        std::string::npos);
  CHECK(cu.find("sweepPart_inner<<<grid_, block_, 94208, stream_>>>") != std::string::npos);
  CHECK(inner.find("if (act_)") != std::string::npos);
  CHECK(inner.find("stnc_rt::storeOnce(reinterpret_cast<float4*>(&v[p_]), float4{") != std::string::npos);
  CHECK(inner.find("stnc_rt::cpAsyncWait<0>();") != std::string::npos);
  // The shell: its own namespace with its own block and rings of 2-point groups (five fields, eta with
  // a one-cell halo), dispatched there.
  const size_t ns = cu.find("namespace default_part {");
  REQUIRE(ns != std::string::npos);
  CHECK(cu.find("constexpr int kBlockX = 16;", ns) != std::string::npos);
  CHECK(cu.find("default_part::launchPart(") != std::string::npos);
  const std::string shell = kernelText(cu, "sweepPart");
  CHECK(shell.find("extern __shared__") != std::string::npos);
  CHECK(shell.find("stnc_rt::StarRingCopier<real, 18, 48, kBlockX * kBlockY, true> etaC_") != std::string::npos);
  CHECK(shell.find("stnc_rt::storeOnce(reinterpret_cast<float2*>(&phi[p_]), float2{") != std::string::npos);
  // A 27-column face fills three quarters of a 32-column tile: the ring kernel takes boxes that wide.
  CHECK(cu.find("if (!(B_.hi[2] - B_.lo[2] < kBlockX * 2 * 3 / 4) && ") != std::string::npos);
  // Above 48 KiB of dynamic shared memory the launch raises the limit first.
  CHECK(cu.find("cudaFuncSetAttribute(sweepPart_inner, cudaFuncAttributeMaxDynamicSharedMemorySize") != std::string::npos);
  // Radius 4 along dim 0: chunks of at least 32 planes (or the box's depth), sized at launch from the kernel's
  // occupancy (the rings' own count if the runtime cannot say); u is the only field of the inner region's three
  // rings read across planes, so no wave of long chunks (iso3dfd's case); and as the only queued field of three,
  // its prologue re-reads little: chunks of at most 32 planes (SmemPlan::maxChunk), in the shell too (u and eta
  // queued, of five fields).
  CHECK(cu.find("cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_, sweepPart_inner, kBlockX * kBlockY, ") != std::string::npos);
  CHECK(cu.find("stnc_rt::ringChunk(nx_, gx_ * gy_, occ_, kBlockX * kBlockY, sms_, 32L, false, 32L)") != std::string::npos);
  CHECK(cu.find(", true, ") == std::string::npos);
  CHECK(cu.find(", 64L);") == std::string::npos);
}

TEST_CASE("ring kernels of a radius-1 star keep short chunks: at least 8 planes") {
  auto c = test::compileText("stencil s(i, j, k) : f64 { in u; out w;\n"
                             "  w = u[i-1, j, k] + u[i+1, j, k] + u[i, j-1, k] + u[i, j+1, k] + u[i, j, k-1] + u[i, j, k+1] - 6.0 * u; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  CHECK(test::kernelOf(*c, "s").schedule.smem == 2);
  const std::string cu = test::generateAll(*c->module).at(".cu");
  // One field of reach 1: the many-columns rule takes chunks of 8 planes, no longer (session 23).
  CHECK(cu.find("stnc_rt::ringChunk(nx_, gx_ * gy_, occ_, kBlockX * kBlockY, sms_, 8L, false, 8L)") != std::string::npos);
}

TEST_CASE("ring kernels of a radius-2 star over one field: a wave of long chunks when the columns are few") {
  auto c = test::compileText("stencil s(i, j, k) : f64 { in u; out w;\n"
                             "  w = u[i-2, j, k] + u[i-1, j, k] + u[i+1, j, k] + u[i+2, j, k] + u[i, j-2, k] + u[i, j-1, k] +\n"
                             "      u[i, j+1, k] + u[i, j+2, k] + u[i, j, k-2] + u[i, j, k-1] + u[i, j, k+1] + u[i, j, k+2] - 12.0 * u; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  CHECK(test::kernelOf(*c, "s").schedule.smem == 2);
  const std::string cu = test::generateAll(*c->module).at(".cu");
  CHECK(cu.find("One wave of long chunks for few columns") != std::string::npos);
  CHECK(cu.find("stnc_rt::ringChunk(nx_, gx_ * gy_, occ_, kBlockX * kBlockY, sms_, 16L, true, 16L)") != std::string::npos);
}

TEST_CASE("ring kernels of several rows per thread: the block's first row, each row's queue guarded by the allocation, its store by the box") {
  auto c = test::compileText("stencil s(i, j, k) : f64 { in u; out w;\n"
                             "  w = u[i-1, j, k] + u[i+1, j, k] + u[i, j-1, k] + u[i, j+1, k] + u[i, j, k-1] + u[i, j, k+1] - 6.0 * u; }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  DiagEngine diags(c->sm);
  passes::ScheduleOverride o;
  o.rows = 2;
  o.blockX = o.blockY = 16;  // the tile below (the policy's own block for this star is 64x4)
  passes::chooseSchedules(*c->module, diags, o);
  CHECK(test::kernelOf(*c, "s").schedule.smem == 2);
  const std::string cu = test::generateAll(*c->module).at(".cu");
  const std::string k = kernelText(cu, "sweepPart");
  CHECK(k.find("const long y_ = B_.lo[1] + (by_ * static_cast<long>(kBlockY) + threadIdx.y) * 2;") != std::string::npos);
  CHECK(k.find("yb_ = y_ - threadIdx.y * 2;") != std::string::npos);
  // 16 threads x 2 rows and one row of footprint each side; the thread's point two rows down per threadIdx.y.
  CHECK(k.find("stnc_rt::StarRingCopier<real, 34, 40, kBlockX * kBlockY, true> uC_") != std::string::npos);
  CHECK(k.find("B_.hi[2] + 1, yb_, yb_ + 32, zb_, zb_ + 32);") != std::string::npos);  // the block's 32 rows and columns
  CHECK(k.find("uT_ = uS_ + (threadIdx.y * 2 + 1) * 40 + threadIdx.x * kVec + 4;") != std::string::npos);
  // Row 1 of a thread may lie past the box, and past the allocation: its queue loads are guarded by the allocation,
  // not the box (a queue of row 1 serves row 0's reads at j+1: where row 0 is the box's last row, row 1 is the
  // halo's, whose values it needs; the random campaign of session 19 caught the box guard), its stores by the box.
  CHECK(k.find("((act_ && y_ + 1 < L_.dim[1] - L_.pad[1]) ? *reinterpret_cast<const double2*>(&u[p_ - s0_ + s1_]) : double2{})") !=
        std::string::npos);
  CHECK(k.find("y_ + 1 < B_.hi[1]) ? *reinterpret_cast") == std::string::npos);
  CHECK(k.find("if (y_ + 1 < B_.hi[1]) stnc_rt::storeOnce(reinterpret_cast<double2*>(&w[p_ + s1_]), double2{w_r1_c0_, w_r1_c1_});") !=
        std::string::npos);
  CHECK(k.find("if (y_ + 1 < B_.hi[1] && z_ + 1 >= B_.lo[2] && z_ + 1 < B_.hi[2]) w[p_ + s1_ + 1] = w_r1_c1_;") != std::string::npos);
  // The launch covers the box in tiles of kBlockY x 2 rows.
  CHECK(cu.find("gy_ = (b_.hi[1] - b_.lo[1] + kBlockY * 2 - 1) / (kBlockY * 2);") != std::string::npos);
}

// test::kAcousticShell with its schedules chosen again under o.
std::unique_ptr<test::Compiled> shellUnder(const passes::ScheduleOverride& o) {
  auto c = test::compileText(test::kAcousticShell);
  REQUIRE_MESSAGE(c->module, c->diagText());
  DiagEngine diags(c->sm);
  passes::chooseSchedules(*c->module, diags, o);
  return c;
}

TEST_CASE("a vector width the user chose is kept: the shell, whose rings do not fit at 4 points, gets its own L1 schedule") {
  passes::ScheduleOverride o;
  o.vec = 4;
  auto c = shellUnder(o);
  const dag::Kernel& k = test::kernelOf(*c, "s");
  CHECK(k.schedule.smem == 2);
  REQUIRE(k.partSchedules.count(-1) == 1);
  CHECK(k.scheduleOf(-1).smem == 0);
  CHECK(k.scheduleOf(-1).vec == 4);
  CHECK(k.scheduleOf(-1).reason.find("do not fit") != std::string::npos);
  CHECK(k.scheduleOf(-1).reason.find("the L1 policy") != std::string::npos);
  const std::string cu = test::generateAll(*c->module).at(".cu");
  CHECK(kernelText(cu, "sweepPart").find("extern __shared__") == std::string::npos);
  CHECK(kernelText(cu, "sweepPart_inner").find("extern __shared__") != std::string::npos);
}

TEST_CASE("--smem=off gives no rings anywhere and no part schedules, --smem=on fits the shell too (200 KiB budget)") {
  auto c = test::compileText(test::kAcousticShell);
  REQUIRE_MESSAGE(c->module, c->diagText());
  DiagEngine diags(c->sm);
  passes::ScheduleOverride off;
  off.smem = "off";
  passes::chooseSchedules(*c->module, diags, off);
  const dag::Kernel& k = test::kernelOf(*c, "s");
  CHECK(k.schedule.smem == 0);
  CHECK(k.partSchedules.empty());
  CHECK(test::generateAll(*c->module).at(".cu").find("extern __shared__") == std::string::npos);
  passes::ScheduleOverride on;
  on.smem = "on";
  passes::chooseSchedules(*c->module, diags, on);
  CHECK(k.schedule.smem == 1);
  // The shell keeps the kernel's schedule but for its slab boxes (passes::chooseSlabTma).
  REQUIRE(k.partSchedules.size() == 1);
  CHECK(k.scheduleOf(-1).vec == k.schedule.vec);
  CHECK(k.scheduleOf(-1).smem == 1);
  CHECK(k.scheduleOf(-1).tma == 2);
  const std::string cu = test::generateAll(*c->module).at(".cu");
  CHECK(kernelText(cu, "sweepPart").find("extern __shared__") != std::string::npos);
  CHECK(kernelText(cu, "sweepPart_inner").find("extern __shared__") != std::string::npos);
}

TEST_CASE("the shell (a region kernel's default part) gets a second kernel the tensor memory accelerator feeds, for slab boxes") {
  auto c = test::compileText(test::kAcousticShell);
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = test::kernelOf(*c, "s");
  // The policy (sm_90, --tma=auto): both kernels for the default part, none for the inner region.
  CHECK(k.scheduleOf(-1).tma == 2);
  CHECK(k.scheduleOf(-1).reason.find("slab boxes") != std::string::npos);
  CHECK(k.scheduleOf(0).tma == 0);
  const std::string cu = test::generateAll(*c->module).at(".cu");
  // The cp.async kernel stays as it was; the second one takes tensor maps and completes on mbarriers.
  const std::string plain = kernelText(cu, "sweepPart");
  CHECK(plain.find("CUtensorMap") == std::string::npos);
  CHECK(plain.find("stnc_rt::RingCopier<") != std::string::npos);
  const std::string viaTma = kernelText(cu, "sweepPart_tma");
  CHECK(viaTma.find("const __grid_constant__ CUtensorMap uM_") != std::string::npos);
  CHECK(viaTma.find("const __grid_constant__ CUtensorMap phiM_") != std::string::npos);
  CHECK(viaTma.find("stnc_rt::RingCopier<") == std::string::npos);
  CHECK(kernelText(cu, "sweepPart_inner").find("CUtensorMap") == std::string::npos);
  // The launch: slab boxes (thin along dim 0 or 1, at least two tiles of 16 threads x 2 points wide) with
  // encoded maps go to the accelerator's kernel, other ring boxes to the cp.async kernel, the rest to the
  // one-point kernel.
  const size_t launch = cu.find("cudaError_t launchPart(");
  REQUIRE(launch != std::string::npos);
  const std::string text = cu.substr(launch, cu.find("}  // launchPart", launch) - launch);
  const size_t slab = text.find("const bool slab_ = (B_.hi[0] - B_.lo[0] <= 64 || B_.hi[1] - B_.lo[1] <= 2 * kBlockY * 1) && "
                                "B_.hi[2] - B_.lo[2] >= 2 * kBlockX * 2;");
  const size_t maps = text.find("bool maps_ = slab_ && ");
  const size_t viaTmaLaunch = text.find("sweepPart_tma<<<");
  const size_t ring = text.find("sweepPart<<<");
  const size_t rest = text.find("sweepPart_rest<<<");
  CHECK(slab != std::string::npos);
  CHECK(maps > slab);
  CHECK(viaTmaLaunch > maps);
  CHECK(ring > viaTmaLaunch);
  CHECK(rest > ring);
  CHECK(text.find("without it the cp.async kernel runs") != std::string::npos);
}

TEST_CASE("slab_vec gives the slab kernel its own points per thread where its rings fit") {
  // tests/gpu/slabs.stn's shape: the default part at 2 points per thread (its 3-column k-faces), slab boxes at 4.
  const char* src =
      "stencil s(i, j, k) : f32 { in u, eta; inout v, phi; swap u, v; region inner = [3:-3, 3:-3, 3:-3];\n"
      "  schedule stream(block = 16x16, vec = 2, slab_vec = 4);\n"
      "  v @ inner = 2.0 * u - v + 0.1 * (u[i-3,j,k] + u[i+3,j,k] + u[i,j-2,k] + u[i,j+2,k] + u[i,j,k-1] + u[i,j,k+1] - 6.0 * u);\n"
      "  v = (u - v + 0.1 * (u[i-1,j,k] + u[i+1,j,k] + u[i,j-1,k] + u[i,j+1,k] + phi)) / (1.0 + 2.0 * eta);\n"
      "  phi = (phi - (eta[i+1,j,k] - eta[i-1,j,k]) * (u[i+1,j,k] - u[i-1,j,k])) / (1.0 + eta); }";
  auto c = test::compileText(src);
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = test::kernelOf(*c, "s");
  CHECK(k.scheduleOf(-1).vec == 2);
  CHECK(k.scheduleOf(-1).tma == 2);
  CHECK(k.scheduleOf(-1).slabVec == 4);
  CHECK(k.scheduleOf(-1).reason.find("at 4 point(s) per thread (slab_vec)") != std::string::npos);
  CHECK(k.scheduleOf(0).slabVec == 0);
  CHECK(passes::planSmemTma(c->module->ctx, k, -1).bytes > passes::planSmem(c->module->ctx, k, -1).bytes);
  const std::string cu = test::generateAll(*c->module).at(".cu");
  CHECK(kernelText(cu, "sweepPart").find("constexpr int kVec = 2;") != std::string::npos);
  CHECK(kernelText(cu, "sweepPart_tma").find("constexpr int kVec = 4;") != std::string::npos);
  const size_t launch = cu.find("cudaError_t launchPart(");
  REQUIRE(launch != std::string::npos);
  const std::string text = cu.substr(launch, cu.find("}  // launchPart", launch) - launch);
  // Slab boxes are at least two tiles of 16 threads x 4 points wide; the other ring boxes keep 2-point tiles.
  CHECK(text.find("B_.hi[2] - B_.lo[2] >= 2 * kBlockX * 4;") != std::string::npos);
  const size_t viaTma = text.find("sweepPart_tma<<<"), ring = text.find("sweepPart<<<");
  REQUIRE(viaTma != std::string::npos);
  REQUIRE(ring != std::string::npos);
  CHECK(text.rfind("kBlockX * 4", viaTma) > text.rfind("bool maps_", viaTma));
  CHECK(text.substr(viaTma, ring - viaTma).find("kBlockX * 2") != std::string::npos);

  // f64: a 16-byte vector holds 2 points, so slab_vec 4 is 2, the part's width already (the reason says so).
  std::string f64 = src;
  f64.replace(f64.find(": f32"), 5, ": f64");
  auto d = test::compileText(f64);
  REQUIRE_MESSAGE(d->module, d->diagText());
  const dag::Kernel& kd = test::kernelOf(*d, "s");
  CHECK(kd.scheduleOf(-1).tma == 2);
  CHECK(kd.scheduleOf(-1).slabVec == 0);
  CHECK(kd.scheduleOf(-1).reason.find("slab_vec 4 exceeds 16 bytes of f64: 2") != std::string::npos);

  // Where the slab kernel's rings would not fit (the 3-D eta shell at 4 points: 136 KiB), it keeps the part's width.
  passes::ScheduleOverride o;
  o.slabVec = 4;
  auto shell = shellUnder(o);
  const dag::Kernel& ks = test::kernelOf(*shell, "s");
  CHECK(ks.scheduleOf(-1).vec == 2);
  CHECK(ks.scheduleOf(-1).slabVec == 0);
  CHECK(ks.scheduleOf(-1).reason.find("slab_vec 4 not used: the slab kernel's rings do not fit") != std::string::npos);
  CHECK(kernelText(test::generateAll(*shell->module).at(".cu"), "sweepPart_tma").find("constexpr int kVec = 2;") != std::string::npos);
}

TEST_CASE("no slab kernel without regions, with --tma=off or on, or below sm_90") {
  auto plain = [](const char* src, const passes::ScheduleOverride& o) {
    auto c = test::compileText(src);
    REQUIRE_MESSAGE(c->module, c->diagText());
    DiagEngine diags(c->sm);
    passes::chooseSchedules(*c->module, diags, o);
    const dag::Kernel& k = test::kernelOf(*c, "s");
    CHECK(k.scheduleOf(-1).tma != 2);
    return test::generateAll(*c->module).at(".cu").find("sweepPart_tma") == std::string::npos;
  };
  passes::ScheduleOverride off, on, ampere;
  off.tma = "off";
  on.tma = "on";
  ampere.smVersion = 80;
  CHECK(plain(test::kAcousticShell, off));
  CHECK(plain(test::kAcousticShell, on));  // every kernel is the accelerator's already
  CHECK(plain(test::kAcousticShell, ampere));
  CHECK(plain("stencil s(i, j, k) : f32 { in u; out v; v = u[i-1,j,k] + u[i+1,j,k] + u[i,j,k-1] + u[i,j,k+1]; }", {}));
}

TEST_CASE("a kernel whose every part has a schedule of its own declares no constants of the kernel's (nvcc -Werror: unused)") {
  // tests/gpu/ownparts.stn's shape: the region's five rings do not fit at 4 points per thread (it narrows to 2),
  // the default part fits but its slab boxes take the tensor memory accelerator: both parts have own schedules.
  auto c = test::compileText("import \"fd.stn\";\n"
                             "stencil s(i, j, k) : f32 { in u, roc2, eta; inout v, phi; region d = [4:-4, 4:-4, 4:-4];\n"
                             "  v @ d = ((2.0 + 2.0 * eta - eta * eta) * u - v + roc2 * (lap8(u) + phi)) / (1.0 + 2.0 * eta);\n"
                             "  phi @ d = (phi - (dx2(eta) * dx2(u) + dy2(eta) * dy2(u) + dz2(eta) * dz2(u))) / (1.0 + eta);\n"
                             "  v = 2.0 * u - v + roc2 * lap8(u); }");
  REQUIRE_MESSAGE(c->module, c->diagText());
  const dag::Kernel& k = test::kernelOf(*c, "s");
  REQUIRE(k.partSchedules.count(-1) == 1);
  REQUIRE(k.partSchedules.count(0) == 1);
  CHECK(k.scheduleOf(0).vec == 2);
  CHECK(k.scheduleOf(-1).tma == 2);
  const std::string cu = test::generateAll(*c->module).at(".cu");
  const size_t ns = cu.find("namespace stn::s {");
  REQUIRE(ns != std::string::npos);
  // The first constants after the kernel's namespace opens are those of a part's namespace, not the kernel's.
  const size_t firstBlockX = cu.find("constexpr int kBlockX = ", ns);
  const size_t firstPart = cu.find("namespace default_part {", ns);
  REQUIRE(firstBlockX != std::string::npos);
  REQUIRE(firstPart != std::string::npos);
  CHECK(firstPart < firstBlockX);
  CHECK(cu.find("namespace region_d {", ns) != std::string::npos);
  // Each part declares its own: two in all.
  size_t n = 0;
  for (size_t at = cu.find("constexpr int kBlockX = ", ns); at != std::string::npos; at = cu.find("constexpr int kBlockX = ", at + 1)) ++n;
  CHECK(n == 2);
}

TEST_CASE("schedule @ REGION: that region's kernel takes the request, over the command line's options, and the other parts keep theirs") {
  const std::string src = std::string(test::kAcousticShell).insert(std::string(test::kAcousticShell).find("  v @ inner"),
                                                                     "  schedule @ inner stream(block = 32x8, chunk = 64);\n");
  {
    auto c = test::compileText(src);
    REQUIRE_MESSAGE(c->module, c->diagText());
    const dag::Kernel& k = test::kernelOf(*c, "s");
    REQUIRE(k.partRequests.count(0) == 1);
    CHECK_FALSE(k.request.present);  // the stencil's own schedule is the policy's
    const dag::Schedule& inner = k.scheduleOf(0);
    CHECK(inner.strategy == dag::Strategy::Stream);
    CHECK(inner.blockX == 32);
    CHECK(inner.blockY == 8);
    CHECK(inner.chunk == 64);
    CHECK(inner.smem == 2);  // the policy's rings still (104 KiB at 32x8)
    CHECK(inner.reason.find("the source asks for schedule @ inner stream(block = 32x8, chunk = 64)") != std::string::npos);
    // The shell keeps the policy's part schedule (16x16 threads of 2 points).
    CHECK(k.scheduleOf(-1).blockX == 16);
    CHECK(k.scheduleOf(-1).vec == 2);
    const std::string cu = test::generateAll(*c->module).at(".cu");
    const size_t ns = cu.find("namespace region_inner {");
    REQUIRE(ns != std::string::npos);
    CHECK(cu.find("constexpr int kBlockX = 32;", ns) < cu.find("__global__", ns));
    CHECK(cu.find("constexpr long kChunk = 64;", ns) < cu.find("__global__", ns));
  }
  {
    // The command line's --block 16x16 (every kernel) does not undo the region's 32x8; its --prefetch 1 fills the rest.
    passes::ScheduleOverride o;
    o.blockX = o.blockY = 16;
    o.prefetch = 1;
    auto c = test::compileText(src, {}, o);
    REQUIRE_MESSAGE(c->module, c->diagText());
    const dag::Kernel& k = test::kernelOf(*c, "s");
    CHECK(k.scheduleOf(0).blockX == 32);
    CHECK(k.scheduleOf(0).prefetch == 1);
    CHECK(k.schedule.blockX == 16);
  }
  {
    // A naive request for the region; options the naive mapping does not use are warned about, naming the region.
    const std::string naive = std::string(test::kAcousticShell).insert(std::string(test::kAcousticShell).find("  v @ inner"),
                                                                         "  schedule @ inner naive(vec = 4);\n");
    auto c = test::compileText(naive);
    REQUIRE_MESSAGE(c->module, c->diagText());
    CHECK(test::kernelOf(*c, "s").scheduleOf(0).strategy == dag::Strategy::Naive);
    CHECK(c->diagText().find("warning: vec 4 has no effect on 's @ inner'") != std::string::npos);
  }
}
