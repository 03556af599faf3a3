#include "codegen/cuda/TensorSumKernel.h"

#include <map>
#include <tuple>

#include "codegen/cuda/LaunchText.h"
#include "codegen/cuda/SumFactorKernel.h"

namespace stnc::codegen {

namespace {

constexpr int kTileRows = 12 + 4, kTileCols = 32 + 4, kSlots = 4;  // 12 x 32 outputs with their 2-point ring; 2 planes in flight

std::string num(long v) { return std::to_string(v); }

}  // namespace

long tensorSumSmemBytes(const dag::Kernel& k) { return static_cast<long>(kSlots) * kTileRows * kTileCols * static_cast<long>(dag::elemSize(k.type)); }

void emitTensorSumKernel(CPrinter& p, const dag::Kernel& k, const std::string& kname, const std::string& params, const std::string& unused) {
  const dag::TensorSum& f = *k.tensorSum;
  const std::string u = cIdent(f.field), v = cIdent(f.output);
  std::map<std::tuple<int, int, int>, const dag::SumFactorTerm*> at;
  for (const dag::SumFactorTerm& t : f.terms) at[{t.d0, t.b, t.a}] = &t;
  p.line("// " + f.output + " = the fma chain of " + num(static_cast<long>(f.terms.size())) + " terms c(d0, b, a) * " + f.field +
         "(x + d0, y + b, z + a) in (d0, b, a) order, on the FP64 tensor cores:");
  p.line("// per plane and group of 3 rows x 8 points, 9 mma.sync m16n8k4 (rows: 5 plane offsets x 3 output rows; k: the 7 x 5");
  p.line("// window's taps; A = the coefficients, B = the plane from shared memory); the accumulators are the plane queue.");
  // kEdge: the block's tile columns may leave the box (stores checked per point). The interior tiles' kernel
  // stores 16-byte vectors unchecked: the checks' registers spilled at the 128 that keep 4 blocks per SM.
  p.line("template <bool kEdge>");
  p.openScope("__global__ void __launch_bounds__(kBlockX * kBlockY, 4) " + kname +
              "(const stnc_rt::Layout L_, const stnc_rt::Box B_, const long chunk_, const long bx0_, " + params + ")");
  if (!unused.empty()) p.line(unused);
  p.line("constexpr int kTileRows = " + num(kTileRows) + ", kTileCols = " + num(kTileCols) + ", kTile = kTileRows * kTileCols;  // 12 x 32 outputs, ring 2");
  p.line("constexpr int kSlots = " + num(kSlots) + ";  // planes read now, 2 in flight, one more: a slot is refilled two planes after its last read");
  p.line("extern __shared__ float4 smem_[];");
  p.line("real* const uS_ = reinterpret_cast<real*>(smem_);");
  p.line("__shared__ real cS_[125];  // c(d0, b, a) at (d0 + 2) * 25 + (b + 2) * 5 + (a + 2); 0 where the sum has no term");
  p.line("const int tid_ = threadIdx.y * kBlockX + threadIdx.x, grp_ = threadIdx.x >> 2, tig_ = threadIdx.x & 3;  // warp threadIdx.y");
  p.openScope("if (tid_ == 0)");
  std::string row;
  int q = 0;
  for (int d0 = -2; d0 <= 2; ++d0)
    for (int b = -2; b <= 2; ++b) {
      for (int a = -2; a <= 2; ++a, ++q) {
        auto it = at.find({d0, b, a});
        row += (row.empty() ? "" : " ") + std::string("cS_[") + num(q) + "] = " + (it == at.end() ? literal(0.0, k.type) : coefText(k, *it->second)) + ";";
      }
      p.line(row);
      row.clear();
    }
  p.closeScope("");
  p.line("__syncthreads();");
  p.line("real A_[9][2];  // this lane's A fragments: rows grp_ and grp_ + 8 (row = 3 m + j: plane offset m - 2, output row j), tap 4 s + tig_");
  p.line("int off_[9];    // the B element of tap 4 s + tig_: input row b' and column a' from the group's window corner (-1: padding)");
  p.line("#pragma unroll");
  p.openScope("for (int s_ = 0; s_ < 9; ++s_)");
  p.line("const int t_ = 4 * s_ + tig_, bp_ = t_ / 5, ap_ = t_ % 5;");
  p.line("#pragma unroll");
  p.openScope("for (int h_ = 0; h_ < 2; ++h_)");
  p.line("const int row_ = grp_ + 8 * h_, m_ = row_ / 3, b_ = bp_ - 2 - row_ % 3;");
  p.line("A_[s_][h_] = row_ < 15 && t_ < 35 && b_ >= -2 && b_ <= 2 ? cS_[m_ * 25 + (b_ + 2) * 5 + ap_] : real(0);");
  p.closeScope("");
  p.line("off_[s_] = t_ < 35 ? bp_ * kTileCols + ap_ : -1;");
  p.closeScope("");
  p.line("const long zb_ = stnc_rt::alignCol(kLayoutPhase, B_.lo[2], 32) + (bx0_ + blockIdx.x) * 32L, yb_ = B_.lo[1] + blockIdx.y * 12L;  // the tile's first column and row");
  p.line("const long x0_ = B_.lo[0] + blockIdx.z * chunk_;");
  p.line("const long x1_ = x0_ + chunk_ < B_.hi[0] ? x0_ + chunk_ : B_.hi[0];");
  p.line("const long xs_ = x0_ - 2, n_ = x1_ - x0_ + 4;  // planes xs_ .. xs_ + n_ - 1 feed the outputs x0_ .. x1_ - 1");
  emitRingOpen(p, u, "yb_ - 2", "zb_ - 2");
  p.line("real acc_[4][4] = {};  // group q_: rows 3 threadIdx.y .. + 2 of the tile, columns 8 q_ .. + 7 (c0 c1: row grp_, c2 c3: row grp_ + 8)");
  p.openScope("for (long t_ = 0; t_ < n_; ++t_)");
  emitRingPlane(p, u);
  p.line("const real* const T_ = uS_ + (t_ % kSlots) * kTile;");
  p.line("const long x_ = xs_ + t_ - 2;  // the output plane the rows of m = 4 complete");
  p.line("#pragma unroll");
  p.openScope("for (int q_ = 0; q_ < 4; ++q_)");
  p.line("const int ry_ = 3 * static_cast<int>(threadIdx.y), cz_ = 8 * q_;");
  p.line("const real* const W_ = T_ + ry_ * kTileCols + cz_ + grp_;  // this lane's point's window corner");
  p.line("#pragma unroll");
  p.openScope("for (int s_ = 0; s_ < 9; ++s_)");
  p.line("const real b_ = off_[s_] >= 0 ? W_[off_[s_]] : real(0);");
  p.line("asm volatile(\"mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\"");
  p.line("             : \"+d\"(acc_[q_][0]), \"+d\"(acc_[q_][1]), \"+d\"(acc_[q_][2]), \"+d\"(acc_[q_][3]) : \"d\"(A_[s_][0]), \"d\"(A_[s_][1]), \"d\"(b_));");
  p.closeScope("");
  p.line("// Rows 12..14 (c2 c3 of lane groups 4..6): output plane x_, tile row ry_ + grp_ - 4, columns cz_ + 2 tig_ and + 1.");
  p.line("const long y_ = yb_ + ry_ + grp_ - 4, z_ = zb_ + cz_ + 2 * tig_;");
  p.openScope("if (grp_ >= 4 && grp_ <= 6 && x_ >= x0_ && y_ < B_.hi[1])");
  p.line("const long p_ = stnc_rt::at(L_, x_, y_, z_);");
  p.openScope("if constexpr (kEdge)  // the box's first or last columns");
  p.line("if (z_ >= B_.lo[2] && z_ < B_.hi[2]) " + v + "[p_] = acc_[q_][2];");
  p.line("if (z_ + 1 >= B_.lo[2] && z_ + 1 < B_.hi[2]) " + v + "[p_ + 1] = acc_[q_][3];");
  p.closeScope("");
  p.openScope("else");
  p.line("stnc_rt::storeOnce(reinterpret_cast<double2*>(&" + v + "[p_]), double2{acc_[q_][2], acc_[q_][3]});");
  p.closeScope("");
  p.closeScope("");
  p.line("// Every row moves to plane offset m + 1: rows 3..7 from 0..4, rows 11..14 from 8..11 (12 lanes up), rows 8..10 from 5..7");
  p.line("// (20 lanes down); rows 0..2 start output plane x_ + 5, row 15 stays 0.");
  p.line("const real u0_ = __shfl_up_sync(0xffffffffu, acc_[q_][0], 12), u1_ = __shfl_up_sync(0xffffffffu, acc_[q_][1], 12);");
  p.line("const real u2_ = __shfl_up_sync(0xffffffffu, acc_[q_][2], 12), u3_ = __shfl_up_sync(0xffffffffu, acc_[q_][3], 12);");
  p.line("const real d0_ = __shfl_down_sync(0xffffffffu, acc_[q_][0], 20), d1_ = __shfl_down_sync(0xffffffffu, acc_[q_][1], 20);");
  p.line("acc_[q_][0] = grp_ >= 3 ? u0_ : real(0);");
  p.line("acc_[q_][1] = grp_ >= 3 ? u1_ : real(0);");
  p.line("acc_[q_][2] = grp_ >= 3 ? (grp_ < 7 ? u2_ : real(0)) : d0_;");
  p.line("acc_[q_][3] = grp_ >= 3 ? (grp_ < 7 ? u3_ : real(0)) : d1_;");
  p.closeScope("for q_");
  p.closeScope("for t_");
  p.line("stnc_rt::cpAsyncWait<0>();  // nothing in flight when the block exits");
  p.closeScope(kname);
  p.line();
}

void emitTensorSumLaunch(CPrinter& p, const dag::Kernel& k, const std::string& kname, const std::string& args) {
  const long bytes = tensorSumSmemBytes(k);
  static_assert(kSlots * kTileRows * kTileCols * 8 <= 48 * 1024, "the tile ring fits the default shared-memory limit");
  emitSmCount(p, "per_",
              "if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_, " + kname + "<false>, kBlockX * kBlockY, " + num(bytes) +
                  ") != cudaSuccess || per_ <= 0) per_ = 4;  // resident blocks per SM");
  p.line("const long nx_ = B_.hi[0] - B_.lo[0];");
  p.line("const long gx_ = (B_.hi[2] - stnc_rt::alignCol(kLayoutPhase, B_.lo[2], 32) + 31) / 32, gy_ = (B_.hi[1] - B_.lo[1] + 11) / 12;");
  p.line("if (gy_ > 65535) return cudaErrorInvalidConfiguration;");
  p.line("// Chunks per tile column: the fewest that fill every resident slot and leave the last wave 90 % full (or 4 waves or");
  p.line("// more); a chunk also computes the 4 planes around it. Measured (box125_rt 256^3: 176 columns, 528 slots): 3 chunks of");
  p.line("// 86 planes, one full wave, 169.6 us; 2.67 waves of 32 planes 181.7 us; 0.67 of a wave of 128 planes 178.0 us.");
  p.line("long per_col_ = 1;");
  p.openScope("while (per_col_ < nx_ / 16)");
  p.line("const long blocks_ = gx_ * gy_ * per_col_, slots_ = static_cast<long>(per_) * sms_, waves_ = (blocks_ + slots_ - 1) / slots_;");
  p.line("if (blocks_ >= slots_ && (blocks_ * 10 >= waves_ * slots_ * 9 || waves_ >= 4)) break;");
  p.line("++per_col_;");
  p.closeScope("");
  p.line("long chunk_ = kChunk > 0 ? kChunk : (nx_ + per_col_ - 1) / per_col_;");
  emitChunkedGrid(p);
  p.line("// Tile columns wholly inside the box [in0_, in1_) take the unchecked kernel, the others (at most one each side) the checked one.");
  p.line("const long za_ = stnc_rt::alignCol(kLayoutPhase, B_.lo[2], 32), in0_ = za_ == B_.lo[2] ? 0 : 1, in1_ = std::max(in0_, (B_.hi[2] - za_) / 32);");
  p.openScope("if (in1_ > in0_)");
  p.line("const dim3 g_(static_cast<unsigned>(in1_ - in0_), grid_.y, grid_.z);");
  p.line(kname + "<false><<<g_, block_, " + num(bytes) + ", stream_>>>(L_, B_, chunk_, in0_, " + args + ");");
  p.closeScope("");
  p.openScope("if (in0_ == 1)  // the first column starts left of the box");
  p.line("const dim3 g_(1, grid_.y, grid_.z);");
  p.line(kname + "<true><<<g_, block_, " + num(bytes) + ", stream_>>>(L_, B_, chunk_, 0L, " + args + ");");
  p.closeScope("");
  p.openScope("if (gx_ > in1_)  // the last column ends right of the box");
  p.line("const dim3 g_(static_cast<unsigned>(gx_ - in1_), grid_.y, grid_.z);");
  p.line(kname + "<true><<<g_, block_, " + num(bytes) + ", stream_>>>(L_, B_, chunk_, in1_, " + args + ");");
  p.closeScope("");
  p.line("return cudaGetLastError();");
}

}  // namespace stnc::codegen
