#include "codegen/cuda/SumFactorKernel.h"

#include <algorithm>
#include <set>

#include "codegen/cuda/LaunchText.h"
#include "passes/SmemPlan.h"
#include "support/Text.h"

namespace stnc::codegen {

namespace {

struct Shape {
  int per, vec, rows, r1, a2, c2, tileRows, tileCols, slots, accs, d0lo, d0hi;
};

Shape shapeOf(const dag::Kernel& k) {
  const dag::SumFactor& f = *k.sumFactor;
  const dag::Schedule& s = k.schedule;
  Shape sh{};
  sh.per = static_cast<int>(16 / dag::elemSize(k.type));
  sh.vec = s.vec;
  sh.rows = std::max(1, s.rows);
  sh.r1 = f.r1();
  sh.a2 = (f.r2() + sh.per - 1) / sh.per * sh.per;  // the column ring in whole 16-byte chunks
  sh.tileRows = s.blockY * sh.rows + 2 * sh.r1;
  // The tile's copied columns: the window's a2 rounded out to 32-byte sectors where that costs no copy
  // per thread (passes::ringColumns; a2 = 2 doubles started every tile row mid-sector).
  sh.c2 = -passes::ringColumns(-sh.a2, sh.a2, s.blockX * sh.vec, sh.tileRows, s.blockX * s.blockY, static_cast<int>(dag::elemSize(k.type))).a2;
  sh.tileCols = s.blockX * sh.vec + 2 * sh.c2;
  sh.slots = std::max(1, s.prefetch) + 2;
  sh.d0lo = f.d0lo();
  sh.d0hi = f.d0hi();
  sh.accs = sh.d0hi - sh.d0lo + 1;
  return sh;
}

std::string num(long v) { return std::to_string(v); }
std::string signedTerm(int v) { return v == 0 ? "" : (v > 0 ? " + " : " - ") + num(v < 0 ? -v : v); }
// "2", "m2": a signed offset in a name.
std::string sgn(int v) { return v < 0 ? "m" + num(-v) : num(v); }
std::string xName(int a) { return "X" + sgn(a) + "_"; }
std::string yName(int a, int b) { return "y_a" + sgn(a) + "_b" + sgn(b) + "_"; }
// "kA2 + c_ - 2": a column or row index `base` shifted by a signed offset.
std::string shifted(const std::string& base, int v) { return base + signedTerm(v); }
std::string accName(int j) { return "acc" + num(j) + "_"; }
// "-2, 2": the plane offsets of class c.
std::string planesOf(const dag::SumFactor& f, size_t c) {
  std::string s;
  for (size_t i = 0; i < f.planeClass.size(); ++i)
    if (f.planeClass[i] == static_cast<int>(c)) appendItem(s, num(f.d0lo() + static_cast<long>(i)));
  return s;
}

}  // namespace

std::string coefText(const dag::Kernel& k, const dag::SumFactorTerm& t) {
  if (t.param.empty()) return literal(t.coef, k.type);
  return t.coef == 1.0 ? cIdent(t.param) : "(" + literal(t.coef, k.type) + " * " + cIdent(t.param) + ")";
}

void emitRingOpen(CPrinter& p, const std::string& u, const std::string& row0, const std::string& col0) {
  p.line("// Chunks of the tile outside the allocation are zero-filled; they feed only points outside the box.");
  p.line("const stnc_rt::RingCopier<real, kTileRows, kTileCols, kBlockX * kBlockY, true> uC_(L_, uS_, " + row0 + ", " + col0 + ", tid_);");
  p.openScope("for (int i_ = 0; i_ < kSlots - 2; ++i_)  // the first planes in flight");
  p.line("if (i_ < n_) uC_.copy(static_cast<unsigned>(i_), " + u + ", L_, xs_ + i_);");
  p.line("stnc_rt::cpAsyncCommit();");
  p.closeScope("");
}

void emitRingPlane(CPrinter& p, const std::string& u) {
  p.line("if (t_ + kSlots - 2 < n_) uC_.copy(static_cast<unsigned>((t_ + kSlots - 2) % kSlots), " + u + ", L_, xs_ + t_ + kSlots - 2);");
  p.line("stnc_rt::cpAsyncCommit();");
  p.line("stnc_rt::cpAsyncWait<kSlots - 2>();  // this thread's copies of plane t_ have landed");
  p.line("__syncthreads();  // and every other thread's");
}

long sumFactorSmemBytes(const dag::Kernel& k) {
  const Shape sh = shapeOf(k);
  return static_cast<long>(sh.slots) * sh.tileRows * sh.tileCols * static_cast<long>(dag::elemSize(k.type));
}

void emitSumFactorKernel(CPrinter& p, const dag::Kernel& k, const std::string& kname, const std::string& params, const std::string& unused) {
  const dag::SumFactor& f = *k.sumFactor;
  const Shape sh = shapeOf(k);
  const std::string vt = std::string(dag::elemCType(k.type)) + num(sh.per);
  static const char* lane[4] = {".x", ".y", ".z", ".w"};
  const std::string u = cIdent(f.field), v = cIdent(f.output);
  std::set<int> xs;
  std::set<std::pair<int, int>> ys;  // (a, b)
  for (const dag::SumFactorTerm& t : f.terms) {
    xs.insert(t.a);
    ys.insert({t.a, t.b});
  }
  p.line("// " + f.output + " = sum over planes d0 of S_k(x + d0), S_k = sum of c_k(b, a) * Y_ab (" + num(static_cast<long>(f.classes.size())) +
         " distinct plane classes k), Y_ab = " + (f.pair1 ? "X_a(y - b) + X_a(y + b)" : "X_a(y + b)") + ",");
  p.line("// X_a = " + (f.pair2 ? f.field + "(z - a) + " + f.field + "(z + a)" : f.field + "(z + a)") + ": each X, Y and S once per point of a plane, " +
         num(f.sharedOps) + " operations per");
  p.line("// point instead of " + num(f.naiveOps) + ". Tile " + num(sh.tileRows) + " x " + num(sh.tileCols) + " (ring " + num(sh.r1) + " rows, " + num(sh.a2) +
         " columns), " + num(sh.slots) + " slots, " + num(sh.accs) + " accumulator planes per point.");
  p.openScope("__global__ void __launch_bounds__(kBlockX * kBlockY) " + kname + "(const stnc_rt::Layout L_, const stnc_rt::Box B_, const long chunk_, " +
              params + ")");
  if (!unused.empty()) p.line(unused);
  p.line("constexpr int kVec = " + num(sh.vec) + ", kRows = " + num(sh.rows) + ";  // points per thread along dim 2 (one 16-byte vector) and dim 1");
  p.line("constexpr int kR1 = " + num(sh.r1) + ", kA2 = " + num(sh.a2) + ";  // the tile's ring: rows, columns (whole 16-byte chunks)");
  p.line("constexpr int kC2 = " + num(sh.c2) + ";  // columns copied left and right of the block's" +
         (sh.c2 > sh.a2 ? ": kA2 rounded out to whole 32-byte sectors (a row starting mid-sector doubles L2's sector reads)" : ""));
  p.line("constexpr int kTileRows = kBlockY * kRows + 2 * kR1, kTileCols = kBlockX * kVec + 2 * kC2, kTile = kTileRows * kTileCols;");
  p.line("constexpr int kSlots = " + num(sh.slots) + ";  // planes read now, " + num(sh.slots - 2) + " in flight, one more: a slot is refilled two planes after its last read");
  p.line("constexpr int kWin = kVec + 2 * kA2;  // a thread's window of a tile row");
  p.line("extern __shared__ float4 smem_[];");
  p.line("real* const uS_ = reinterpret_cast<real*>(smem_);");
  p.line("const int tid_ = threadIdx.y * kBlockX + threadIdx.x;");
  p.line("const long zb_ = stnc_rt::alignCol(kLayoutPhase, B_.lo[2], kBlockX * kVec) + blockIdx.x * static_cast<long>(kBlockX * kVec);  // the tile's first column");
  p.line("const long yb_ = B_.lo[1] + blockIdx.y * static_cast<long>(kBlockY * kRows);  // and row");
  p.line("const long z_ = zb_ + threadIdx.x * kVec, y_ = yb_ + threadIdx.y * kRows;  // this thread's first point");
  p.line("const long x0_ = B_.lo[0] + blockIdx.z * chunk_;");
  p.line("const long x1_ = x0_ + chunk_ < B_.hi[0] ? x0_ + chunk_ : B_.hi[0];");
  p.line("// Planes xs_ .. xs_+n_-1 feed the outputs x0_ .. x1_-1 (plane offsets " + num(sh.d0lo) + " .. " + num(sh.d0hi) + ").");
  p.line("const long xs_ = x0_" + signedTerm(sh.d0lo) + ", n_ = x1_ - x0_ + " + num(sh.d0hi - sh.d0lo) + ";");
  emitRingOpen(p, u, "yb_ - kR1", "zb_ - kC2");
  p.line("// acc" + num(sh.accs - 1) + "_ is the output plane the current plane feeds first (offset " + num(sh.d0lo) + "), acc0_ the one it completes (offset " +
         num(sh.d0hi) + ").");
  std::string accDecl;
  for (int j = 0; j < sh.accs; ++j) accDecl += (j ? ", " : "") + accName(j) + "[kRows][kVec] = {}";
  p.line("real " + accDecl + ";");
  p.line("const real* const T0_ = uS_ + threadIdx.y * kRows * kTileCols + threadIdx.x * kVec + (kC2 - kA2);  // this thread's window in slot 0");
  if (k.schedule.unroll > 1)
    p.line("#pragma unroll " + num(k.schedule.unroll) + (k.schedule.unroll % sh.accs == 0 ? "  // a multiple of the accumulator planes: the shifts below become renames" : ""));
  p.openScope("for (long t_ = 0; t_ < n_; ++t_)");
  emitRingPlane(p, u);
  p.line("const real* const T_ = T0_ + (t_ % kSlots) * kTile;");
  // A chunk's first and last (d0hi - d0lo) planes also feed output planes of the neighbouring chunks,
  // which this block does not store: S of a class is computed only where one of its planes feeds an
  // output of this chunk (a block-uniform branch). Measured: the skipped work was 12.5 % of a 32-plane
  // chunk's FP64 instructions for box125_rt (bench/results/2026-11-30-s6-variants.md).
  // Only where Y needs no arithmetic (Y_ab a renamed X_a: dim 1 unpaired, runtime coefficients): with
  // paired rows the classes share Y's additions, which a class-wise loop would repeat (measured: box125_c
  // 94.4 -> 122.7 us class-wise). For box125_rt the class-wise loops beat one loop over every class even
  // on the planes where all are needed (189 us; one loop there, class-wise at the edges only: 232 us,
  // 254 registers).
  const bool skipEdges = !f.pair1;
  if (skipEdges) p.line("const long xp_ = xs_ + t_;  // the plane read now; it feeds the outputs xp_ - d0");
  for (size_t c = 0; skipEdges && c < f.classes.size(); ++c) {
    std::string cond;
    for (size_t i = 0; i < f.planeClass.size(); ++i)
      if (f.planeClass[i] == static_cast<int>(c)) {
        const int d0 = sh.d0lo + static_cast<int>(i);
        const std::string x = "xp_" + signedTerm(-d0);
        cond += (cond.empty() ? "" : " || ") + std::string("(") + x + " >= x0_ && " + x + " < x1_)";
      }
    p.line("const bool need" + num(static_cast<long>(c)) + "_ = " + cond + ";  // class " + num(static_cast<long>(c)) + " (planes " + planesOf(f, c) + ")");
  }
  std::string xDecl;
  for (int a : xs) appendItem(xDecl, xName(a) + "[kRows + 2 * kR1][kVec]");
  p.line("real " + xDecl + ";  // X_a of this thread's columns in its tile rows");
  p.line("#pragma unroll");
  p.openScope("for (int r_ = 0; r_ < kRows + 2 * kR1; ++r_)");
  p.line("real w_[kWin];");
  p.line("#pragma unroll");
  p.openScope("for (int c_ = 0; c_ < kWin / kVec; ++c_)");
  p.line("const " + vt + " q_ = *reinterpret_cast<const " + vt + "*>(T_ + r_ * kTileCols + c_ * kVec);");
  std::string lanes;
  for (int l = 0; l < sh.per; ++l) lanes += (l ? " " : "") + std::string("w_[c_ * kVec + ") + num(l) + "] = q_" + lane[l] + ";";
  p.line(lanes);
  p.closeScope("");
  p.line("#pragma unroll");
  p.openScope("for (int c_ = 0; c_ < kVec; ++c_)");
  for (int a : xs)
    p.line(xName(a) + "[r_][c_] = " +
           (!f.pair2 || a == 0 ? "w_[" + shifted("kA2 + c_", a) + "]" : "w_[" + shifted("kA2 + c_", -a) + "] + w_[" + shifted("kA2 + c_", a) + "]") + ";");
  p.closeScope("");
  p.closeScope("");
  auto emitYs = [&](const std::set<std::pair<int, int>>& which) {
    for (const auto& [a, b] : which) {
      const std::string X = xName(a);
      p.line("const real " + yName(a, b) + " = " +
             (!f.pair1 || b == 0 ? X + "[" + shifted("r_ + kR1", b) + "][c_]"
                                 : X + "[" + shifted("r_ + kR1", -b) + "][c_] + " + X + "[" + shifted("r_ + kR1", b) + "][c_]") +
             ";");
    }
  };
  // S of class c at this plane; it is added to every output plane it feeds (each accumulator is its own
  // output; per output the planes arrive in ascending d0, the DAG's order).
  auto emitClass = [&](size_t c) {
    const std::string sname = "S" + num(static_cast<long>(c)) + "_";
    bool firstTerm = true;
    for (const dag::SumFactorTerm& t : f.classes[c]) {
      const std::string lit = coefText(k, t), y = yName(t.a, t.b);
      if (firstTerm) p.line("real " + sname + " = " + lit + " * " + y + ";  // S of class " + num(static_cast<long>(c)) + " (planes " + planesOf(f, c) + ")");
      else if (f.fma) p.line(sname + " = " + mathFunction(dag::Op::Fma, k.type) + "(" + lit + ", " + y + ", " + sname + ");");
      else p.line(sname + " = " + sname + " + " + lit + " * " + y + ";");
      firstTerm = false;
    }
  };
  // The additions of S into the output planes it feeds, for the plane offsets of class `only` (-1: all).
  auto emitAccs = [&](int only) {
    for (int d0 = sh.d0lo; d0 <= sh.d0hi; ++d0) {
      const int c = f.planeClass[d0 - sh.d0lo];
      if (c < 0 || (only >= 0 && c != only)) continue;
      const std::string acc = accName(sh.d0hi - d0) + "[r_][c_]", sname = "S" + num(c) + "_";
      const std::string what = "  // output plane " + std::string(skipEdges ? "xp_" : "x_") + signedTerm(-d0) + " (plane offset " + num(d0) + ")";
      p.line(d0 == sh.d0lo ? acc + " = " + sname + ";" + what + ": its first plane" : acc + " = " + acc + " + " + sname + ";" + what);
    }
  };
  auto openPointLoops = [&] {
    p.line("#pragma unroll");
    p.openScope("for (int r_ = 0; r_ < kRows; ++r_)");
    p.line("#pragma unroll");
    p.openScope("for (int c_ = 0; c_ < kVec; ++c_)");
  };
  if (skipEdges) {
    // Y is a renamed X (no arithmetic): each class loops over the thread's points on its own, inside its
    // block-uniform branch, so the branch does not split the points' FMA chains (a branch per class and
    // point ran box125_c 94 -> 169 us).
    for (size_t c = 0; c < f.classes.size(); ++c) {
      p.openScope("if (need" + num(static_cast<long>(c)) + "_)");
      openPointLoops();
      std::set<std::pair<int, int>> mine;
      for (const dag::SumFactorTerm& t : f.classes[c]) mine.insert({t.a, t.b});
      emitYs(mine);
      emitClass(c);
      emitAccs(static_cast<int>(c));
      p.closeScope("");
      p.closeScope("");
      p.closeScope("");
    }
  } else {
    openPointLoops();
    emitYs(ys);
    for (size_t c = 0; c < f.classes.size(); ++c) emitClass(c);
    emitAccs(-1);
    p.closeScope("");
    p.closeScope("");
  }
  p.line("const long x_ = xs_ + t_" + signedTerm(-sh.d0hi) + ";  // the output plane " + accName(0) + " completes");
  p.openScope("if (x_ >= x0_)");
  p.line("#pragma unroll");
  p.openScope("for (int r_ = 0; r_ < kRows; ++r_)");
  p.line("if (y_ + r_ >= B_.hi[1]) break;");
  p.line("const long p_ = stnc_rt::at(L_, x_, y_ + r_, z_);");
  std::string elems;
  for (int l = 0; l < sh.vec; ++l) elems += (l ? ", " : "") + accName(0) + "[r_][" + num(l) + "]";
  p.openScope("if (z_ >= B_.lo[2] && z_ + kVec <= B_.hi[2])");
  p.line("stnc_rt::storeOnce(reinterpret_cast<" + vt + "*>(&" + v + "[p_]), " + vt + "{" + elems + "});");
  p.closeScope("");
  p.openScope("else  // the box's first or last columns");
  p.line("#pragma unroll");
  p.line("for (int c_ = 0; c_ < kVec; ++c_)");
  p.line("  if (z_ + c_ >= B_.lo[2] && z_ + c_ < B_.hi[2]) " + v + "[p_ + c_] = " + accName(0) + "[r_][c_];");
  p.closeScope("");
  p.closeScope("");
  p.closeScope("");
  if (sh.accs > 1) {
    std::string shift;
    for (int j = 0; j + 1 < sh.accs; ++j) shift += (j ? " " : "") + accName(j) + "[r_][c_] = " + accName(j + 1) + "[r_][c_];";
    p.line("#pragma unroll");
    p.line("for (int r_ = 0; r_ < kRows; ++r_)");
    p.line("#pragma unroll");
    p.line("  for (int c_ = 0; c_ < kVec; ++c_) { " + shift + " }");
  }
  p.closeScope("for t_");
  p.line("stnc_rt::cpAsyncWait<0>();  // nothing in flight when the block exits");
  p.closeScope(kname);
  p.line();
}

void emitSumFactorLaunch(CPrinter& p, const dag::Kernel& k, const std::string& kname, const std::string& args) {
  const Shape sh = shapeOf(k);
  const long bytes = sumFactorSmemBytes(k);
  const int reach = std::max({1, -sh.d0lo, sh.d0hi});
  if (bytes > 48 * 1024)
    p.line("if (cudaError_t e_ = cudaFuncSetAttribute(" + kname + ", cudaFuncAttributeMaxDynamicSharedMemorySize, " + num(bytes) +
           ")) return e_;  // above the 48 KiB default (per device: set at every launch)");
  emitSmCount(p, "per_",
              "if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_, " + kname + ", kBlockX * kBlockY, " + num(bytes) +
                  ") != cudaSuccess || per_ <= 0) per_ = 2;  // resident blocks per SM");
  p.line("const long nx_ = B_.hi[0] - B_.lo[0];");
  p.line("const long gx_ = (B_.hi[2] - stnc_rt::alignCol(kLayoutPhase, B_.lo[2], kBlockX * " + num(sh.vec) + ") + kBlockX * " + num(sh.vec) + " - 1) / (kBlockX * " +
         num(sh.vec) + "), gy_ = (B_.hi[1] - B_.lo[1] + kBlockY * " + num(sh.rows) + " - 1) / (kBlockY * " + num(sh.rows) + ");");
  p.line("if (gy_ > 65535) return cudaErrorInvalidConfiguration;");
  p.line("// About 8 waves of resident blocks, within " + num(16 * reach) + " (16 x the dim-0 reach " + num(reach) +
         ", or the box's depth) .. 64 planes: a chunk also reads the " + num(sh.d0hi - sh.d0lo) + " planes around it (and, with");
  p.line("// paired rows, computes them). Measured: box125_rt 16 / 32 / 64 planes 192.5 / 189.3 / 199.9 us; box125_c 16 planes 119 us.");
  p.line("long chunk_ = kChunk > 0 ? kChunk : (nx_ * gx_ * gy_ + 8L * per_ * sms_ - 1) / (8L * per_ * sms_);");
  p.line("if (kChunk == 0) chunk_ = std::max(std::min(nx_, " + num(16 * reach) + "L), std::min(chunk_, 64L));");
  emitChunkedGrid(p);
  p.line(kname + "<<<grid_, block_, " + num(bytes) + ", stream_>>>(L_, B_, chunk_, " + args + ");");
  p.line("return cudaGetLastError();");
}

}  // namespace stnc::codegen
