// The CUDA temporal-blocking kernel: two time steps of a kernel in one sweep (T = 2, radius 1;
// passes/TemporalBlocking.h says which kernels qualify). A block of kPairX x kPairY threads owns a
// (kPairX-4) x (kPairY-4) tile of the (dim 1, dim 2) plane and walks a chunk of dim 0:
//   1. every thread loads IN at its position (tile plus a 2-cell ring) into a register queue along
//      dim 0 and the current plane into shared memory;
//   2. the tile plus a 1-cell ring computes MID = step(IN) one plane ahead into shared memory (two
//      planes) and a queue; at halo positions MID is what the boundary fill of the second step
//      would put there (the rule's source point, a value, or the fixed halo of the MID array);
//   3. the tile computes step(MID) one plane behind and stores it (FIN), and stores MID.
// Every expression is the kernel's own DAG, printed by emitPointBody, so results are bit-identical
// to two single steps (tests: scripts/gpu-check.sh --cuda-flags=--temporal=on).
//   The MID store is a template parameter (only the last pair of a step call stores MID), the chunk a
// kernel argument: 32 registers, as the hand-written kernel (see stepPair).
#include "codegen/cuda/TemporalPair.h"

#include "codegen/Backends.h"
#include "codegen/KernelBody.h"
#include "codegen/Launcher.h"
#include "codegen/cuda/ConstantTable.h"
#include "support/Text.h"

namespace stnc::codegen {

namespace {

// The rule of `field` along internal dim d (rank 3: axis d), or nullptr (fixed halo).
const dag::Boundary* ruleOf(const dag::Kernel& k, const std::string& field, int d) {
  for (const dag::Boundary& b : k.boundaries)
    if (b.field == field && (b.axisMask & (1u << d))) return &b;
  return nullptr;
}

const char* kindName(dag::BoundaryKind kind) {
  switch (kind) {
    case dag::BoundaryKind::Periodic: return "stnc_rt::kPeriodic";
    case dag::BoundaryKind::Clamp: return "stnc_rt::kClamp";
    case dag::BoundaryKind::Mirror: return "stnc_rt::kMirror";
    case dag::BoundaryKind::Value: return "stnc_rt::kValue";
  }
  return "stnc_rt::kPeriodic";
}

std::string pairArgs(const dag::Kernel& k, const passes::TemporalPlan& t) {
  std::string s;
  for (const dag::Field& f : k.fields)
    appendItem(s, std::string(f.name == t.out ? "real* __restrict__ " : "const real* __restrict__ ") + cIdent(f.name));
  for (const std::string& p : k.params) s += ", const real " + cIdent(p);
  return s + ", real* __restrict__ fin_, const long chunk_";
}

}  // namespace

void emitTemporalPair(CPrinter& p, const dag::Module& m, const dag::Kernel& k, const passes::TemporalPlan& t) {
  const std::string real = dag::elemCType(k.type), IN = cIdent(t.in), MID = cIdent(t.out);
  p.line("// Temporal blocking: " + t.why + ".");
  const std::string unusedHalo = usedNamesVoidCast(m.ctx, k, false);
  p.line("constexpr int kPairX = 32, kPairY = 16;  // threads; each block stores a 28 x 12 tile (measured: 32x16, chunk 32)");
  p.line("constexpr long kPairChunk = 32;           // planes of dim 0 per block");
  // The point body with the swapped input read through `queue` (dim-0 offsets) and `plane`
  // (in-plane offsets), every other field from global memory at p_, the result into `dst`.
  auto body = [&](const std::string& qa, const std::string& qb, const std::string& qc, const std::string& plane,
                  const std::string& dst) {
    p.line("{");
    ++p.indent;
    emitPointBody(
        p, m.ctx, k, -2,
        [&](const dag::Node& n) {
          if (m.ctx.name(n.sym) != t.in || plane.empty()) return accessLoad(m.ctx, k, n);
          if (n.offset.d[0] != 0) return n.offset.d[0] < 0 ? qa : qc;
          if (n.offset.d[1] == 0 && n.offset.d[2] == 0) return qb;
          return plane + "[ty_ + (" + std::to_string(n.offset.d[1]) + ")][tx_ + (" + std::to_string(n.offset.d[2]) + ")]";
        },
        [&](size_t, const dag::Output&) { return dst; }, kCudaDivide, constantRef(m.ctx, k));
    p.closeScope();
  };
  // MID at a halo point is what the fill before the unfused second step writes into the MID array
  // there; fillMid writes exactly that into the MID array's halo before each pair (so that array's
  // halo also ends as the unfused steps leave it), and the pair kernel just loads it: evaluated
  // inline, this rare path cost the main loop 16 registers per thread (48 instead of 32: half the
  // resident blocks; measured 2x slower).
  std::string haloDecl, haloCall;
  for (const dag::Field& f : k.fields) {
    appendItem(haloDecl, std::string("const real* __restrict__ ") + cIdent(f.name));
    appendItem(haloCall, cIdent(f.name));
  }
  for (const std::string& prm : k.params) {
    haloDecl += ", const real " + cIdent(prm);
    haloCall += ", " + cIdent(prm);
  }
  p.openScope("__device__ " + real + " haloMid_(const stnc_rt::Layout& L_, const long xw_, const long y_, const long z_, " + haloDecl + ")");
  p.line("const long s0_ = L_.stride[0], s1_ = L_.stride[1];");
  p.line("(void)s0_; (void)s1_;");
  if (!unusedHalo.empty()) p.line(unusedHalo);
  p.line(real + " w_ = 0;");
  p.line("long q_[3] = {xw_, y_, z_};");
  p.line("bool done_ = false;");
  p.line("// The fill of the highest dimension outside the interior wrote the cell: follow the rules down.");
  for (int d = 2; d >= 0; --d) {
    const dag::Boundary* b = ruleOf(k, t.in, d);
    std::string outside = "!done_ && (q_[" + std::to_string(d) + "] < 0 || q_[" + std::to_string(d) + "] >= L_.n[" + std::to_string(d) + "])";
    if (!b) {
      p.line("if (" + outside + ") { w_ = " + MID + "[stnc_rt::at(L_, q_[0], q_[1], q_[2])]; done_ = true; }  // " + k.axes[d] +
             ": no rule, the fixed halo");
    } else if (b->kind == dag::BoundaryKind::Value) {
      p.line("if (" + outside + ") { w_ = static_cast<" + real + ">(" + (b->value == dag::kNoNode ? "0" : scalarExpr(m.ctx, k, b->value)) +
             "); done_ = true; }  // " + k.axes[d] + ": value");
    } else {
      p.line("if (" + outside + ") q_[" + std::to_string(d) + "] = stnc_rt::boundarySource(q_[" + std::to_string(d) + "], L_.n[" +
             std::to_string(d) + "], " + kindName(b->kind) + ");  // " + k.axes[d] + ": " + dag::boundaryName(b->kind));
    }
  }
  p.openScope("if (!done_)  // an interior source point: step 1 there, from global memory");
  p.line("const long p_ = stnc_rt::at(L_, q_[0], q_[1], q_[2]);");
  body("", "", "", "", "w_");  // every read from global memory
  p.closeScope();
  p.line("return w_;");
  p.closeScope("haloMid_");
  p.line();
  p.line("// The halo cells of " + t.out + " along dimension d (the cells fillBoundaryDimKernel visits: dimensions < d over the");
  p.line("// whole allocated range, dimensions > d over the interior), each set to haloMid_ of the point.");
  std::string mutDecl = haloDecl;
  {
    const std::string from = "const real* __restrict__ " + MID;
    mutDecl.replace(mutDecl.find(from), from.size(), "real* __restrict__ " + MID);
  }
  p.openScope("__global__ void fillMid(const stnc_rt::Layout L_, const int d_, " + mutDecl + ")");
  p.line("long lo_[3], ext_[3];");
  p.openScope("for (int e_ = 0; e_ < 3; ++e_)");
  p.line("lo_[e_] = e_ < d_ ? -L_.halo[e_] : 0;");
  p.line("ext_[e_] = e_ < d_ ? L_.n[e_] + 2 * L_.halo[e_] : L_.n[e_];");
  p.closeScope();
  p.line("const long h_ = L_.halo[d_];");
  p.line("ext_[d_] = 2 * h_;");
  p.line("const long total_ = ext_[0] * ext_[1] * ext_[2];");
  p.openScope("for (long i_ = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i_ < total_; i_ += static_cast<long>(gridDim.x) * blockDim.x)");
  p.line("long c_[3] = {i_ / (ext_[1] * ext_[2]), i_ / ext_[2] % ext_[1], i_ % ext_[2]};");
  p.line("for (int e_ = 0; e_ < 3; ++e_) c_[e_] += lo_[e_];");
  p.line("c_[d_] = c_[d_] - lo_[d_] < h_ ? c_[d_] - lo_[d_] - h_ : L_.n[d_] + (c_[d_] - lo_[d_] - h_);");
  p.line(MID + "[stnc_rt::at(L_, c_[0], c_[1], c_[2])] = haloMid_(L_, c_[0], c_[1], c_[2], " + haloCall + ");");
  p.closeScope();
  p.closeScope("fillMid");
  p.line();
  // Registers decide this kernel's speed (session 17, ptxas on step7 f64): a template parameter instead of a
  // runtime flag for the MID store, the halo as constants, the chunk as an argument and the plane loop kept
  // rolled take the loop from 40-48 registers (and 52-60 bytes of spills under the 4-block bound) to 32 with
  // no spills, as the hand-written kernel of bench/temporal/temporal_star7.cu.
  const std::array<int, 3> halo = internalHalo(k);
  p.line("template <bool kStoreMid>  // MID stored too (the last pair of a step call only: nothing reads it in between)");
  p.openScope("__global__ void __launch_bounds__(kPairX * kPairY, 4) stepPair(const stnc_rt::Layout L_, " + pairArgs(k, t) + ")");
  p.line("constexpr long kH0_ = " + std::to_string(halo[0]) + ", kH1_ = " + std::to_string(halo[1]) + ", kH2_ = " +
         std::to_string(halo[2]) + ";  // the halo (check() keeps L_'s equal)");
  p.line("__shared__ " + real + " sIn_[kPairY][kPairX];");
  p.line("__shared__ " + real + " sMid_[2][kPairY][kPairX];");
  p.line("const int tx_ = threadIdx.x, ty_ = threadIdx.y;");
  p.line("const long z_ = blockIdx.x * static_cast<long>(kPairX - 4) + tx_ - 2;");
  p.line("const long y_ = blockIdx.y * static_cast<long>(kPairY - 4) + ty_ - 2;");
  p.line("const long x0_ = blockIdx.z * chunk_;");
  p.line("const long x1_ = x0_ + chunk_ < L_.n[0] ? x0_ + chunk_ : L_.n[0];");
  p.line("const long s0_ = L_.stride[0], s1_ = L_.stride[1];");
  p.line("(void)s1_;");
  p.line("const bool alloc_ = y_ >= -kH1_ && y_ < L_.n[1] + kH1_ && z_ >= -kH2_ && z_ < L_.n[2] + kH2_;");
  p.line("const bool inPlane_ = y_ >= 0 && y_ < L_.n[1] && z_ >= 0 && z_ < L_.n[2];");
  p.line("const bool ring_ = tx_ >= 1 && tx_ < kPairX - 1 && ty_ >= 1 && ty_ < kPairY - 1;  // computes MID");
  p.line("const bool tile_ = tx_ >= 2 && tx_ < kPairX - 2 && ty_ >= 2 && ty_ < kPairY - 2 && inPlane_;  // stores");
  p.line("const long c_ = alloc_ ? stnc_rt::at(L_, 0, y_, z_) : 0;");
  p.line("auto ldIn_ = [&](long x) { return alloc_ && x >= -kH0_ && x < L_.n[0] + kH0_ ? " + IN + "[c_ + x * s0_] : " +
         real + "(0); };");
  std::string unused = usedNamesVoidCast(m.ctx, k, false);
  if (!unused.empty()) p.line(unused);
  bool below = false;  // IN read at dim-0 offset -1 (then the queues keep that plane)
  for (dag::NodeId id : dag::liveNodes(m.ctx, k)) {
    const dag::Node& n = m.ctx.node(id);
    below |= n.kind == dag::NodeKind::Access && m.ctx.name(n.sym) == t.in && n.offset.d[0] < 0;
  }
  p.line(real + (below ? " ia_ = ldIn_(x0_ - 2)," : "") + " ib_ = ldIn_(x0_ - 1), ic_ = ldIn_(x0_);  // " + t.in + " at x-1, x, x+1");
  p.line(real + (below ? " ma_ = 0," : "") + " mb_ = 0, mc_ = 0;  // MID at x-1, x, x+1 (x = the stored plane)");
  p.line("#pragma unroll 1  // unrolled, the loop needs 8 more registers");
  p.openScope("for (long xw_ = x0_ - 1; xw_ <= x1_; ++xw_)  // MID at plane xw_, the result at xw_ - 1");
  p.line("sIn_[ty_][tx_] = ib_;");
  p.line("__syncthreads();");
  p.line(real + " w_ = 0;");
  // xw_ runs over -1 .. n0: inside the allocation when dim 0 has a halo; otherwise its two end planes are not.
  p.openScope(halo[0] > 0 ? "if (ring_ && alloc_)" : "if (ring_ && alloc_ && xw_ >= 0 && xw_ < L_.n[0])");
  p.openScope("if (inPlane_ && xw_ >= 0 && xw_ < L_.n[0])");
  p.line("const long p_ = c_ + xw_ * s0_;");
  p.line("(void)p_;");
  body("ia_", "ib_", "ic_", "sIn_", "w_");
  p.closeScope();
  p.openScope("else  // a halo point: what the fill before the second step writes there");
  p.line("w_ = " + MID + "[c_ + xw_ * s0_];  // written by fillMid");
  p.closeScope("halo point");
  p.closeScope("ring");
  p.line("sMid_[xw_ & 1][ty_][tx_] = w_;");
  if (below) p.line("ma_ = mb_;");
  p.line("mb_ = mc_;");
  p.line("mc_ = w_;");
  p.line("__syncthreads();");
  p.line("const long xo_ = xw_ - 1;");
  p.openScope("if (tile_ && xo_ >= x0_ && xo_ < x1_)");
  p.line("const long p_ = c_ + xo_ * s0_;");
  p.line(real + " f_ = 0;");
  p.line("(void)p_;");
  body("ma_", "mb_", "mc_", "sMid_[xo_ & 1]", "f_");
  p.line("if (kStoreMid) " + MID + "[p_] = mb_;  // step 1");
  p.line("fin_[p_] = f_;  // step 2");
  p.closeScope("tile");
  if (below) p.line("ia_ = ib_;");
  p.line("ib_ = ic_;");
  p.line("ic_ = ldIn_(xw_ + 2);");
  p.closeScope("for xw_");
  p.closeScope("stepPair");
  p.line();
  std::string decl, call;
  for (const dag::Field& f : k.fields) {
    decl += std::string(f.name == t.out ? "real* " : "const real* ") + cIdent(f.name) + ", ";
    call += cIdent(f.name) + ", ";
  }
  for (const std::string& prm : k.params) {
    decl += "real " + cIdent(prm) + ", ";
    call += cIdent(prm) + ", ";
  }
  p.openScope("cudaError_t launchPair(const stnc_rt::Layout& L_, " + decl + "real* fin_, bool storeMid_, cudaStream_t stream_)");
  p.line("const long gx_ = (L_.n[2] + kPairX - 5) / (kPairX - 4), gy_ = (L_.n[1] + kPairY - 5) / (kPairY - 4), gz_ = (L_.n[0] + kPairChunk - 1) / kPairChunk;");
  p.line("if (gy_ > 65535 || gz_ > 65535 || gx_ > 2147483647L) return cudaErrorInvalidConfiguration;");
  p.openScope("for (int d_ = 0; d_ < 3; ++d_)  // the halo of " + t.out + ": step 1 as the second step's fill would see it");
  p.line("if (L_.halo[d_] == 0) continue;");
  p.line("long cells_ = 2L * L_.halo[d_];");
  p.line("for (int e_ = 0; e_ < 3; ++e_) if (e_ != d_) cells_ *= e_ < d_ ? L_.n[e_] + 2 * L_.halo[e_] : L_.n[e_];");
  p.line("const long blocks_ = (cells_ + 255) / 256 < 65535 ? (cells_ + 255) / 256 : 65535;");
  p.line("fillMid<<<static_cast<unsigned>(blocks_), 256, 0, stream_>>>(L_, d_, " + haloCall + ");");
  p.line("if (cudaError_t e_ = cudaGetLastError()) return e_;");
  p.closeScope();
  p.line("(storeMid_ ? stepPair<true> : stepPair<false>)<<<dim3(static_cast<unsigned>(gx_), static_cast<unsigned>(gy_), "
         "static_cast<unsigned>(gz_)), dim3(kPairX, kPairY, 1), 0, stream_>>>(L_, " + call + "fin_, kPairChunk);");
  p.line("return cudaGetLastError();");
  p.closeScope("launchPair");
}

}  // namespace stnc::codegen
